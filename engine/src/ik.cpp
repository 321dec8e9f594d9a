// Inverse kinematics (articula/ik.hpp, docs/ik.md): hierarchical damped
// least squares with strict null-space projection, an active set for joint
// limits, and closures/couplers as the top level.
//
// Per iteration, at q:
//   1. forward kinematics of the trees involved; every level k gets its
//      weighted residual r_k and Jacobian J_k (over the free columns);
//   2. with P = diag(free columns) and Δ = the fixed part of the step, for
//      each level in order: A = J_k P, b = −r_k − J_k Δ,
//        Δ += A⁺_λ b            (damped pseudo-inverse),
//        P −= V_k V_kᵀ          (V_k: row space of A: the level's directions),
//      so a level only moves in directions the levels above leave free;
//   3. a limited coordinate whose step crosses a limit is fixed at the limit
//      and step 2 runs again (active set); the step is scaled to maxStep;
//   4. the levels that were within tolerance at q are restored at q ⊕ Δ by
//      a few Newton steps of those levels alone (a lower level's step
//      disturbs them to second order only); the trial is accepted when they
//      hold and the first unsatisfied level's residual decreased
//      (lexicographic descent), otherwise the damping grows.
// Singular value decompositions are one-sided Jacobi (Hestenes) on Aᵀ in
// preallocated storage; the last level, when large, is solved through the
// Cholesky factor of A Aᵀ + λ² I instead (it needs no projector).

#include <articula/error.hpp>
#include <articula/ik.hpp>
#include <articula/world.hpp>

#include "algorithms.hpp"
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string_view>

namespace articula {

using detail::Anchor;
using detail::FrameRef;
using detail::SE3;

const char* toString(IkTaskKind kind) {
  switch (kind) {
    case IkTaskKind::Pose:
      return "pose";
    case IkTaskKind::Position:
      return "position";
    case IkTaskKind::Orientation:
      return "orientation";
    case IkTaskKind::CenterOfMass:
      return "com";
    case IkTaskKind::Posture:
      return "posture";
  }
  return "?";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Below this squared residual of the first unreached level the posture
// levels rest until the tasks are reached (a residual of 1e-4: one or two
// Newton steps from the tolerance).
constexpr double kQuietPosture = 1e-8;

// What IkResult::message says; setup() reserves room for the longer one, so
// that a solve that fails does not allocate.
constexpr std::string_view kClosureNotKept = "a loop closure or coupler could not be kept";
constexpr std::string_view kTaskNotReached =
    "some task was not reached (target out of reach, or blocked by limits or higher priorities)";
constexpr std::string_view kTaskImmovable =
    "some task was not reached: neither its frame nor its target frame can move (no joint between them and the "
    "world moves)";

// detail::checkIsometry takes the caller's name as a std::string: made once
// here, so that setting a target does not allocate.
const std::string kSetTarget = "InverseKinematics::setTarget";
const std::string kSetTargetOrientation = "InverseKinematics::setTargetOrientation";

struct Task {
  int id = 0;
  std::string name;
  IkTaskKind kind = IkTaskKind::Pose;
  int priority = 1;
  double weight = 1.0;
  bool enabled = true;
  FrameRef frame;
  SE3 offset;
  FrameRef targetFrame;
  SE3 target;  // in targetFrame (Position: p only; Orientation: R only)
  double positionWeight = 1.0;
  double orientationWeight = 1.0;
  bool wholeWorld = true;  // CenterOfMass
  std::uint32_t multibodySlot = 0, multibodyGeneration = 0;
  VectorXd posture;       // nq
  std::vector<int> dofs;  // as given (empty: every DoF of a vector joint)
  // compiled
  int level = -1;
  int row = 0;                   // first row in the stacked residual
  int rows = 0;                  // number of rows
  std::vector<int> postureDofs;  // DoFs regularised (compiled)
};

int taskRows(const Task& t) {
  switch (t.kind) {
    case IkTaskKind::Pose:
      return 6;
    case IkTaskKind::Position:
    case IkTaskKind::Orientation:
    case IkTaskKind::CenterOfMass:
      return 3;
    case IkTaskKind::Posture:
      return static_cast<int>(t.postureDofs.size());
  }
  return 0;
}

struct Level {
  int row = 0;
  int rows = 0;
  bool postureOnly = true;  // only posture tasks: a regulariser, never judged
  bool constraints = false;
};

struct Limit {
  int col;
  int qi;
  double lo, hi;
};

// Small deterministic generator for restart configurations.
struct SplitMix {
  std::uint64_t s;
  double uniform() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
  }
};

}  // namespace

struct InverseKinematics::Impl {
  World* world = nullptr;
  IkOptions opt;
  std::vector<Task> tasks;
  int nextId = 1;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> locked;  // link slot, generation

  // ---- set-up (rebuilt when tasks or the World's layout change) ----
  bool dirty = true;
  std::uint64_t compileCount = 0;
  std::vector<int> owners;    // trees whose DoFs are columns
  std::vector<int> fkOwners;  // trees whose kinematics the tasks read (owners and target-only trees)
  std::vector<int> columns;   // column → DoF
  std::vector<int> colOf;     // DoF → column, −1
  std::vector<std::uint32_t> closureSlots, couplerSlots;
  std::vector<Level> levels;
  std::vector<Limit> limits;
  std::vector<std::uint8_t> lockedCol;
  std::vector<std::uint8_t> relevantCol;  // supports some task or constraint: randomized on a restart
  std::vector<std::uint8_t> immovable;    // per task: neither its frame nor its target frame can move
  int n = 0;                              // columns
  int mAll = 0;                           // rows
  int mMax = 0;                           // largest level
  double massOfAll = 0.0;

  // ---- scratch ----
  detail::Data data;
  Matrix6Xd Sw;
  MatrixXd J, P, A, C, Wr, G;
  VectorXd r, rTrial, b, y, dq, fixedStep, z, colNorm, tau, rowBuffer;
  MatrixXd Rq, Cq;  // QR of Aᵀ: R, and C = Q C_R
  // Posture rows: the one column each selects (−1: none) and its weight.
  std::vector<int> rowCol;
  std::vector<double> rowWeight;
  std::vector<std::uint8_t> fixed;
  VectorXd q, qTrial, qCorr, qBest;
  std::vector<double> taskPos, taskRot;  // per task errors at the last evaluation
  IkResult result;

  detail::WorldImpl& w() const { return detail::implOf(world); }

  Task& task(int id) {
    for (auto& t : tasks)
      if (t.id == id) return t;
    throw InvalidArgument("InverseKinematics: no task with id " + std::to_string(id));
  }
  const Task& task(int id) const { return const_cast<Impl*>(this)->task(id); }

  FrameRef checkedRef(const Frame& f, const char* what) const {
    if (f.kind() == FrameKind::None) throw InvalidHandle(std::string("InverseKinematics: ") + what + ": invalid Frame");
    w().checkFrame(f);
    return w().refOf(f);
  }

  int add(Task t) {
    if (!(t.weight > 0.0) || !std::isfinite(t.weight)) {
      throw InvalidArgument("InverseKinematics: task '" + t.name + "': weight must be finite and > 0");
    }
    if (t.priority < 0) throw InvalidArgument("InverseKinematics: task '" + t.name + "': priority must be >= 0");
    if (!(t.positionWeight > 0.0) || !(t.orientationWeight > 0.0) || !std::isfinite(t.positionWeight) ||
        !std::isfinite(t.orientationWeight)) {
      throw InvalidArgument("InverseKinematics: task '" + t.name + "': position/orientation weights must be > 0");
    }
    t.id = nextId++;
    if (t.name.empty()) t.name = std::string(toString(t.kind)) + std::to_string(t.id);
    tasks.push_back(std::move(t));
    dirty = true;
    return tasks.back().id;
  }

  Task frameTask(IkTaskKind kind, const Frame& frame, const IkTaskOptions& o) {
    Task t;
    t.kind = kind;
    t.frame = checkedRef(frame, "task frame");
    if (t.frame.kind == FrameKind::World)
      throw InvalidArgument("InverseKinematics: the task frame cannot be the world");
    t.targetFrame = checkedRef(o.targetFrame, "target frame");
    detail::checkIsometry(o.offset, "InverseKinematics task", "offset");
    t.offset = SE3::fromIsometry(o.offset);
    t.priority = o.priority;
    t.weight = o.weight;
    t.positionWeight = o.positionWeight;
    t.orientationWeight = o.orientationWeight;
    t.name = o.name.empty() ? std::string(toString(kind)) + ":" + frame.name() : o.name;
    return t;
  }

  // ---- set-up ----

  int ownerOfBody(int body) const { return body < 0 ? -1 : w().model.body_owner[static_cast<std::size_t>(body)]; }

  void setup() {
    auto& W = w();
    W.ensureModel();
    if (!dirty && compileCount == W.compileCount) return;
    const auto& m = W.model;
    for (const auto& t : tasks) {
      if ((t.kind != IkTaskKind::CenterOfMass && t.kind != IkTaskKind::Posture) &&
          (!W.frameAlive(t.frame) || !W.frameAlive(t.targetFrame))) {
        throw InvalidHandle("InverseKinematics: task '" + t.name + "' refers to a frame that was removed");
      }
      if (t.kind == IkTaskKind::CenterOfMass && !t.wholeWorld &&
          (t.multibodySlot >= W.multibodies.size() || !W.multibodies[t.multibodySlot].alive ||
           W.multibodies[t.multibodySlot].generation != t.multibodyGeneration)) {
        throw InvalidHandle("InverseKinematics: task '" + t.name + "' refers to a multibody that was removed");
      }
      if (t.kind == IkTaskKind::Posture && t.posture.size() != m.nq) {
        throw InvalidArgument("InverseKinematics: posture task '" + t.name + "' has " +
                              std::to_string(t.posture.size()) + " targets; the World has " + std::to_string(m.nq) +
                              " position coordinates");
      }
    }
    const auto nowner = m.owner_kind.size();
    std::vector<std::uint8_t> active(nowner, 0), read(nowner, 0);
    auto mark = [&](int owner, std::vector<std::uint8_t>& set) {
      if (owner >= 0) set[static_cast<std::size_t>(owner)] = 1;
    };
    auto dofOwner = [&](int dof) { return ownerOfBody(m.dof_body[static_cast<std::size_t>(dof)]); };
    for (auto& t : tasks) {
      t.postureDofs.clear();
      if (!t.enabled) continue;
      switch (t.kind) {
        case IkTaskKind::CenterOfMass:
          if (t.wholeWorld) {
            std::fill(active.begin(), active.end(), 1);
          } else {
            mark(W.multibodyOwner[t.multibodySlot], active);
          }
          break;
        case IkTaskKind::Posture: {
          auto vectorDof = [&](int d) {
            const auto bi = static_cast<std::size_t>(m.dof_body[static_cast<std::size_t>(d)]);
            return m.jnt_nq[bi] == m.jnt_nv[bi];
          };
          if (t.dofs.empty()) {
            for (int d = 0; d < m.nv; ++d)
              if (vectorDof(d)) t.postureDofs.push_back(d);
          } else {
            for (const int d : t.dofs) {
              if (d < 0 || d >= m.nv) {
                throw InvalidArgument("InverseKinematics: posture task '" + t.name + "': DoF " + std::to_string(d) +
                                      " is out of range [0, " + std::to_string(m.nv) + ")");
              }
              if (!vectorDof(d)) {
                throw InvalidArgument("InverseKinematics: posture task '" + t.name + "': DoF " + std::to_string(d) +
                                      " belongs to a ball or free joint (posture targets take vector joints)");
              }
              t.postureDofs.push_back(d);
            }
          }
          for (const int d : t.postureDofs) mark(dofOwner(d), active);
          break;
        }
        default:
          mark(ownerOfBody(W.anchorOf(t.frame).body), active);
          mark(ownerOfBody(W.anchorOf(t.targetFrame).body), active);
          break;
      }
    }
    // Closures and couplers touching an active tree pull in their other side.
    closureSlots.clear();
    couplerSlots.clear();
    for (bool grew = true; grew;) {
      grew = false;
      auto join = [&](int a, int b2) {
        const bool ia = a >= 0 && active[static_cast<std::size_t>(a)];
        const bool ib = b2 >= 0 && active[static_cast<std::size_t>(b2)];
        if (ia && b2 >= 0 && !ib) {
          active[static_cast<std::size_t>(b2)] = 1;
          grew = true;
        }
        if (ib && a >= 0 && !ia) {
          active[static_cast<std::size_t>(a)] = 1;
          grew = true;
        }
      };
      for (const auto& c : W.closures) {
        if (c.alive && c.policy.enabled)
          join(ownerOfBody(W.anchorOf(c.frameA).body), ownerOfBody(W.anchorOf(c.frameB).body));
      }
      for (const auto& c : W.couplers) {
        if (c.alive && c.policy.enabled) join(ownerOfBody(W.linkBody[c.leader]), ownerOfBody(W.linkBody[c.follower]));
      }
    }
    auto isActive = [&](int o) { return o >= 0 && active[static_cast<std::size_t>(o)]; };
    for (std::uint32_t s = 0; s < W.closures.size(); ++s) {
      const auto& c = W.closures[s];
      if (c.alive && c.policy.enabled &&
          (isActive(ownerOfBody(W.anchorOf(c.frameA).body)) || isActive(ownerOfBody(W.anchorOf(c.frameB).body))))
        closureSlots.push_back(s);
    }
    for (std::uint32_t s = 0; s < W.couplers.size(); ++s) {
      const auto& c = W.couplers[s];
      if (c.alive && c.policy.enabled && isActive(ownerOfBody(W.linkBody[c.leader]))) couplerSlots.push_back(s);
    }
    for (const auto& t : tasks) {
      if (t.enabled && t.kind != IkTaskKind::CenterOfMass && t.kind != IkTaskKind::Posture)
        mark(ownerOfBody(W.anchorOf(t.targetFrame).body), read);
    }
    owners.clear();
    fkOwners.clear();
    for (std::size_t o = 0; o < nowner; ++o) {
      if (active[o]) owners.push_back(static_cast<int>(o));
      if (active[o] || read[o]) fkOwners.push_back(static_cast<int>(o));
    }
    columns.clear();
    colOf.assign(static_cast<std::size_t>(m.nv), -1);
    for (const int o : owners) {
      const auto oo = static_cast<std::size_t>(o);
      for (int k = 0; k < m.owner_nv[oo]; ++k) {
        colOf[static_cast<std::size_t>(m.owner_vadr[oo] + k)] = static_cast<int>(columns.size());
        columns.push_back(m.owner_vadr[oo] + k);
      }
    }
    n = static_cast<int>(columns.size());
    lockedCol.assign(static_cast<std::size_t>(n), 0);
    for (const auto& [slot, gen] : locked) {
      if (slot >= W.links.size() || !W.links[slot].alive || W.links[slot].generation != gen) continue;
      const auto bi = static_cast<std::size_t>(W.linkBody[slot]);
      for (int k = 0; k < m.jnt_nv[bi]; ++k) {
        const int c = colOf[static_cast<std::size_t>(m.jnt_vadr[bi] + k)];
        if (c >= 0) lockedCol[static_cast<std::size_t>(c)] = 1;
      }
    }
    // The columns that move some task's frame, target or constraint: a
    // restart randomizes those and leaves every other coordinate alone.
    relevantCol.assign(static_cast<std::size_t>(n), 0);
    auto markChain = [&](int body) {
      for (int i = body; i >= 0; i = m.body_parent[static_cast<std::size_t>(i)]) {
        const auto bi = static_cast<std::size_t>(i);
        for (int k = 0; k < m.jnt_nv[bi]; ++k) {
          const int c = colOf[static_cast<std::size_t>(m.jnt_vadr[bi] + k)];
          if (c >= 0) relevantCol[static_cast<std::size_t>(c)] = 1;
        }
      }
    };
    immovable.assign(tasks.size(), 0);
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
      const Task& t = tasks[ti];
      if (!t.enabled || t.kind == IkTaskKind::Posture) continue;
      if (t.kind == IkTaskKind::CenterOfMass) {
        for (int i = 0; i < m.nbody; ++i) {
          if (t.wholeWorld || m.body_owner[static_cast<std::size_t>(i)] == W.multibodyOwner[t.multibodySlot])
            markChain(i);
        }
        continue;
      }
      const int fb = W.anchorOf(t.frame).body;
      const int tb = W.anchorOf(t.targetFrame).body;
      markChain(fb);
      markChain(tb);
      auto movable = [&](int i) { return i >= 0 && m.body_movable[static_cast<std::size_t>(i)] != 0; };
      immovable[ti] = !movable(fb) && !movable(tb);
    }
    for (const auto s : closureSlots) {
      markChain(W.anchorOf(W.closures[s].frameA).body);
      markChain(W.anchorOf(W.closures[s].frameB).body);
    }
    for (const auto s : couplerSlots) {
      markChain(W.linkBody[W.couplers[s].leader]);
      markChain(W.linkBody[W.couplers[s].follower]);
    }
    limits.clear();
    for (const int dof : m.limitDofs) {
      const int c = colOf[static_cast<std::size_t>(dof)];
      if (c < 0) continue;
      const auto bi = static_cast<std::size_t>(m.dof_body[static_cast<std::size_t>(dof)]);
      limits.push_back({c, m.jnt_qadr[bi] + (dof - m.jnt_vadr[bi]), m.dof_lowerLimit[dof], m.dof_upperLimit[dof]});
    }
    // Levels: constraints first, then task priorities in increasing order.
    levels.clear();
    int row = 0;
    int constraintRows = 0;
    for (const auto s : closureSlots) constraintRows += numResidualRows(W.closures[s].family);
    constraintRows += static_cast<int>(couplerSlots.size());
    if (constraintRows > 0) {
      levels.push_back({0, constraintRows, false, true});
      row = constraintRows;
    }
    std::vector<int> priorities;
    for (const auto& t : tasks)
      if (t.enabled) priorities.push_back(t.priority);
    std::sort(priorities.begin(), priorities.end());
    priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
    for (const int pr : priorities) {
      Level L;
      L.row = row;
      for (auto& t : tasks) {
        if (!t.enabled || t.priority != pr) continue;
        t.level = static_cast<int>(levels.size());
        t.row = row;
        t.rows = taskRows(t);
        row += t.rows;
        if (t.kind != IkTaskKind::Posture) L.postureOnly = false;
      }
      L.rows = row - L.row;
      if (L.rows > 0) levels.push_back(L);
    }
    mAll = row;
    mMax = 0;
    for (const auto& L : levels) mMax = std::max(mMax, L.rows);
    massOfAll = 0.0;
    for (int i = 0; i < m.nbody; ++i) massOfAll += m.body_mass[static_cast<std::size_t>(i)];
    // Scratch.
    data.resize(m);
    Sw.resize(6, n);
    J.resize(mAll, n);
    r.resize(mAll);
    rTrial.resize(mAll);
    colNorm.resize(mMax);
    tau.resize(mMax);
    rowBuffer.resize(mMax);
    Rq.resize(mMax, mMax);
    Cq.resize(n, mMax);
    rowCol.assign(static_cast<std::size_t>(mAll), -1);
    rowWeight.assign(static_cast<std::size_t>(mAll), 0.0);
    P.resize(n, n);
    A.resize(mMax, n);
    C.resize(n, mMax);
    Wr.resize(mMax, mMax);
    G.resize(mMax, mMax);
    b.resize(mMax);
    z.resize(mMax);
    y.resize(n);
    dq.resize(n);
    fixedStep.resize(n);
    fixed.assign(static_cast<std::size_t>(n), 0);
    q.resize(m.nq);
    qTrial.resize(m.nq);
    qBest.resize(m.nq);
    qCorr.resize(m.nq);
    for (LevelState* st : {&cur, &trial, &best}) {
      st->err.resize(levels.size());
      st->sat.resize(levels.size());
    }
    taskPos.assign(tasks.size(), 0.0);
    taskRot.assign(tasks.size(), 0.0);
    result.tasks.resize(tasks.size());
    result.message.reserve(std::max({kClosureNotKept.size(), kTaskNotReached.size(), kTaskImmovable.size()}));
    compileCount = W.compileCount;
    dirty = false;
  }

  // ---- evaluation ----

  void kinematics(const VectorXd& qq) {
    const auto& m = w().model;
    for (const int o : fkOwners) {
      const auto oo = static_cast<std::size_t>(o);
      detail::forwardKinematicsPositions(m, qq, data, m.owner_bodyadr[oo], m.owner_bodyadr[oo] + m.owner_nbody[oo]);
    }
  }

  SE3 poseOf(const Anchor& a) const {
    return a.body < 0 ? a.X_BE : data.X_WB[static_cast<std::size_t>(a.body)] * a.X_BE;
  }

  // J(row, ·) += sign · (dir·v(p) or dir·ω) of `body`.
  void addTerm(int row, int body, bool angular, const Vector3d& dir, const Vector3d& p, double sign) {
    const auto& m = w().model;
    const Vector3d mom = p.cross(dir);
    for (int bb = body; bb >= 0; bb = m.body_parent[static_cast<std::size_t>(bb)]) {
      const auto bi = static_cast<std::size_t>(bb);
      const int va = m.jnt_vadr[bi];
      for (int k = 0; k < m.jnt_nv[bi]; ++k) {
        const int col = colOf[static_cast<std::size_t>(va + k)];
        if (col < 0) continue;
        const auto s = Sw.col(col);
        J(row, col) += sign * (angular ? dir.dot(s.head<3>()) : dir.dot(s.tail<3>()) + mom.dot(s.head<3>()));
      }
    }
  }

  // Residuals (and Jacobians) of every level at qq; per-task errors.
  void evaluate(const VectorXd& qq, VectorXd& res, bool jacobian) {
    auto& Wd = w();
    const auto& m = Wd.model;
    kinematics(qq);
    if (jacobian) {
      J.setZero();
      for (int k = 0; k < n; ++k) {
        const int dof = columns[static_cast<std::size_t>(k)];
        const auto bi = static_cast<std::size_t>(m.dof_body[static_cast<std::size_t>(dof)]);
        Sw.col(k) = data.X_WB[bi].actMotion(data.S.col(dof));
      }
    }
    int row = 0;
    for (const auto s : closureSlots) {
      const auto& c = Wd.closures[s];
      std::array<detail::ClosureRow, 6> rows;
      Wd.closureRows(c, rows.data(), nullptr, &data);
      const Anchor a = Wd.anchorOf(c.frameA);
      const Anchor bb = Wd.anchorOf(c.frameB);
      const int nr = numResidualRows(c.family);
      for (int i = 0; i < nr; ++i, ++row) {
        const auto& cr = rows[static_cast<std::size_t>(i)];
        res[row] = cr.residual;
        if (!jacobian) continue;
        addTerm(row, bb.body, cr.angular, cr.dir, cr.pB, 1.0);
        addTerm(row, a.body, cr.angular, cr.dir, cr.pA, -1.0);
      }
    }
    for (const auto s : couplerSlots) {
      const auto& c = Wd.couplers[s];
      const auto bl = static_cast<std::size_t>(Wd.linkBody[c.leader]);
      const auto bf = static_cast<std::size_t>(Wd.linkBody[c.follower]);
      res[row] = qq[m.jnt_qadr[bf]] - c.ratio * qq[m.jnt_qadr[bl]] - c.offset;
      if (jacobian) {
        const int cf = colOf[static_cast<std::size_t>(m.jnt_vadr[bf])];
        const int cl = colOf[static_cast<std::size_t>(m.jnt_vadr[bl])];
        if (cf >= 0) J(row, cf) += 1.0;
        if (cl >= 0) J(row, cl) -= c.ratio;
      }
      ++row;
    }
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
      const Task& t = tasks[ti];
      if (!t.enabled) continue;
      const double sw = std::sqrt(t.weight);
      int r0 = t.row;
      switch (t.kind) {
        case IkTaskKind::Pose:
        case IkTaskKind::Position:
        case IkTaskKind::Orientation: {
          const Anchor fa = Wd.anchorOf(t.frame);
          const Anchor ta = Wd.anchorOf(t.targetFrame);
          const SE3 F = poseOf(fa) * t.offset;
          const SE3 T = poseOf(ta) * t.target;
          if (t.kind != IkTaskKind::Position) {
            const Vector3d rel = detail::logSO3(T.R.transpose() * F.R);
            const Vector3d th = T.R * rel;
            taskRot[ti] = rel.norm();
            const double s = sw * (t.kind == IkTaskKind::Pose ? std::sqrt(t.orientationWeight) : 1.0);
            for (int i = 0; i < 3; ++i, ++r0) {
              res[r0] = s * th[i];
              if (!jacobian) continue;
              const Vector3d e = Vector3d::Unit(i) * s;
              addTerm(r0, fa.body, true, e, F.p, 1.0);
              addTerm(r0, ta.body, true, e, T.p, -1.0);
            }
          }
          if (t.kind != IkTaskKind::Orientation) {
            const Vector3d d = F.p - T.p;
            taskPos[ti] = d.norm();
            const double s = sw * (t.kind == IkTaskKind::Pose ? std::sqrt(t.positionWeight) : 1.0);
            for (int i = 0; i < 3; ++i, ++r0) {
              res[r0] = s * d[i];
              if (!jacobian) continue;
              const Vector3d e = Vector3d::Unit(i) * s;
              addTerm(r0, fa.body, false, e, F.p, 1.0);
              addTerm(r0, ta.body, false, e, T.p, -1.0);
            }
          }
          break;
        }
        case IkTaskKind::CenterOfMass: {
          int b0 = 0;
          int b1 = m.nbody;
          double mass = massOfAll;
          if (!t.wholeWorld) {
            const auto o = static_cast<std::size_t>(Wd.multibodyOwner[t.multibodySlot]);
            b0 = m.owner_bodyadr[o];
            b1 = b0 + m.owner_nbody[o];
            mass = 0.0;
            for (int i = b0; i < b1; ++i) mass += m.body_mass[static_cast<std::size_t>(i)];
          }
          Vector3d c = Vector3d::Zero();
          for (int i = b0; i < b1; ++i) {
            const auto bi = static_cast<std::size_t>(i);
            c += m.body_mass[bi] * data.X_WB[bi].transformPoint(m.body_com[bi]);
          }
          c /= mass;
          const Vector3d d = c - t.target.p;
          taskPos[ti] = d.norm();
          for (int i = 0; i < 3; ++i) res[r0 + i] = sw * d[i];
          if (jacobian) {
            for (int i = b0; i < b1; ++i) {
              const auto bi = static_cast<std::size_t>(i);
              const Vector3d ci = data.X_WB[bi].transformPoint(m.body_com[bi]);
              const double f = sw * m.body_mass[bi] / mass;
              for (int k = 0; k < 3; ++k) addTerm(r0 + k, i, false, Vector3d::Unit(k) * f, ci, 1.0);
            }
          }
          break;
        }
        case IkTaskKind::Posture: {
          double sum = 0.0;
          for (const int d : t.postureDofs) {
            const auto bi = static_cast<std::size_t>(m.dof_body[static_cast<std::size_t>(d)]);
            const int qi = m.jnt_qadr[bi] + (d - m.jnt_vadr[bi]);
            const double e = qq[qi] - t.posture[qi];
            sum += e * e;
            res[r0] = sw * e;
            if (jacobian) {
              const int col = colOf[static_cast<std::size_t>(d)];
              if (col >= 0) J(r0, col) = sw;
              rowCol[static_cast<std::size_t>(r0)] = col;
              rowWeight[static_cast<std::size_t>(r0)] = sw;
            }
            ++r0;
          }
          taskPos[ti] = std::sqrt(sum);
          break;
        }
      }
    }
  }

  // Per level of the last evaluation: squared residual and whether every
  // task (constraint) of the level is within its tolerance. Posture-only
  // levels count as satisfied: they regularise and are never judged.
  struct LevelState {
    std::vector<double> err;
    std::vector<std::uint8_t> sat;
    // The first unsatisfied level (levels.size() when none) and its error.
    int first = 0;
    double firstErr = 0.0;
  };

  void judge(const VectorXd& res, LevelState& st) const {
    const std::size_t nl = levels.size();
    st.err.resize(nl);
    st.sat.resize(nl);
    for (std::size_t l = 0; l < nl; ++l) {
      const auto& L = levels[l];
      st.err[l] = res.segment(L.row, L.rows).squaredNorm();
      st.sat[l] = L.postureOnly ? 1 : 0;
      if (L.constraints) st.sat[l] = res.segment(L.row, L.rows).lpNorm<Eigen::Infinity>() <= opt.constraintTolerance;
    }
    for (std::size_t l = 0; l < nl; ++l) {
      if (levels[l].postureOnly || levels[l].constraints) continue;
      bool ok = true;
      for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
        const Task& t = tasks[ti];
        if (!t.enabled || t.level != static_cast<int>(l) || t.kind == IkTaskKind::Posture) continue;
        if (t.kind != IkTaskKind::Orientation && taskPos[ti] > opt.positionTolerance) ok = false;
        if ((t.kind == IkTaskKind::Pose || t.kind == IkTaskKind::Orientation) && taskRot[ti] > opt.orientationTolerance)
          ok = false;
      }
      st.sat[l] = ok;
    }
    st.first = static_cast<int>(nl);
    st.firstErr = 0.0;
    for (std::size_t l = 0; l < nl; ++l) {
      if (!st.sat[l]) {
        st.first = static_cast<int>(l);
        st.firstErr = st.err[l];
        break;
      }
    }
  }

  // Lexicographic: more leading levels satisfied, then a smaller error of
  // the first unsatisfied one.
  static bool better(const LevelState& a, const LevelState& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.firstErr < b.firstErr;
  }
  LevelState cur, trial, best;
  double yield = 0.0;         // extra λ² of the levels below the first unsatisfied one, relative to their scale
  bool quietPosture = false;  // posture-only levels take no step (the tasks are nearly reached)

  bool reached(double* constraintResidual) const {
    double cr = 0.0;
    if (!levels.empty() && levels.front().constraints) cr = r.segment(0, levels.front().rows).lpNorm<Eigen::Infinity>();
    if (constraintResidual != nullptr) *constraintResidual = cr;
    bool ok = cr <= opt.constraintTolerance;
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
      const Task& t = tasks[ti];
      if (!t.enabled || t.kind == IkTaskKind::Posture) continue;
      if (t.kind != IkTaskKind::Orientation && taskPos[ti] > opt.positionTolerance) ok = false;
      if ((t.kind == IkTaskKind::Pose || t.kind == IkTaskKind::Orientation) && taskRot[ti] > opt.orientationTolerance)
        ok = false;
    }
    return ok;
  }

  // ---- one step ----

  // Damped solve of level L into y (also shrinks P unless `last`).
  void solveLevel(const Level& L, const VectorXd& res, bool last, bool below, double mu) {
    const int mk = L.rows;
    auto Ak = A.topRows(mk);
    auto bk = b.head(mk);
    if (L.postureOnly) {
      // Selection rows: row i of J P is w_i times row c_i of P.
      for (int i = 0; i < mk; ++i) {
        const auto ri = static_cast<std::size_t>(L.row + i);
        const int c = rowCol[ri];
        bk[i] = -res[L.row + i];
        if (c < 0) {
          Ak.row(i).setZero();
          continue;
        }
        Ak.row(i) = rowWeight[ri] * P.row(c);
        bk[i] -= rowWeight[ri] * dq[c];
      }
    } else {
      Ak.noalias() = J.middleRows(L.row, mk) * P;
      bk.noalias() = -res.segment(L.row, mk);
      bk.noalias() -= J.middleRows(L.row, mk) * dq;
    }
    const double scale = std::max(1.0, Ak.rowwise().squaredNorm().maxCoeff());
    // Levels below the first unsatisfied one (`below`) move in its null
    // space only to first order; when their second-order disturbance keeps
    // it from converging (a rejected or slow step) they yield: `yield`
    // damps them more each time. A regulariser moves at most half a Newton
    // step per iteration anyway.
    const double floor = L.postureOnly ? scale * std::max(1.0, yield) : (below ? scale * yield : 0.0);
    if (last && mk > 16) {
      auto Gk = G.topLeftCorner(mk, mk);
      if (L.postureOnly) {
        // A Aᵀ = W S P Pᵀ Sᵀ W = W S P Sᵀ W (P is a symmetric projector).
        for (int i = 0; i < mk; ++i) {
          const auto ri = static_cast<std::size_t>(L.row + i);
          for (int j = 0; j <= i; ++j) {
            const auto rj = static_cast<std::size_t>(L.row + j);
            const double g =
                rowCol[ri] < 0 || rowCol[rj] < 0 ? 0.0 : rowWeight[ri] * rowWeight[rj] * P(rowCol[ri], rowCol[rj]);
            Gk(i, j) = g;
            Gk(j, i) = g;
          }
        }
      } else {
        Gk.noalias() = Ak * Ak.transpose();
      }
      Gk.diagonal().array() += std::max(mu * scale, floor);
      // Factored in place: an LLT<MatrixXd> member would resize (allocate)
      // its own matrix whenever a level of another size comes last.
      Eigen::LLT<Eigen::Ref<MatrixXd>> llt(Gk);
      auto zk = z.head(mk);
      zk = bk;
      llt.solveInPlace(zk);
      y.noalias() = Ak.transpose() * zk;
      dq += y;
      return;
    }
    // One-sided Jacobi on Aᵀ (n × mk), preconditioned by a QR
    // factorization Aᵀ = Q R: the sweeps run on R (mk × mk), R W = C_R with
    // orthogonal columns, and C = Aᵀ W = Q C_R has orthogonal columns c_j,
    // A = W Σ Vᵀ with σ_j = |c_j| = |c_R j| and v_j = c_j / σ_j.
    // Householder QR in place in H (reflector k stored in H(k:n, k)); a
    // level with more rows than columns sweeps Aᵀ itself.
    auto H = C.leftCols(mk);
    H = Ak.transpose();
    const bool factored = mk <= n;
    auto Rk = Rq.topLeftCorner(mk, mk);
    if (factored) Rk.setZero();
    for (int k = 0; factored && k < mk; ++k) {
      auto x = H.col(k).tail(n - k);
      const double normX = x.norm();
      if (normX == 0.0) {
        tau[k] = 0.0;
        continue;
      }
      const double alpha = x[0] > 0.0 ? -normX : normX;
      x[0] -= alpha;  // v = x − α e₁
      const double vv = x.squaredNorm();
      tau[k] = vv > 0.0 ? 2.0 / vv : 0.0;
      Rk(k, k) = alpha;
      for (int j = k + 1; j < mk; ++j) {
        auto col = H.col(j).tail(n - k);
        col -= (tau[k] * x.dot(col)) * x;
        Rk(k, j) = col[0];
      }
    }
    // The sweeps turn R into C_R (or Aᵀ into C) in place.
    Eigen::Ref<MatrixXd> Ck = factored ? Eigen::Ref<MatrixXd>(Rk) : Eigen::Ref<MatrixXd>(H);
    auto Wk = Wr.topLeftCorner(mk, mk);
    Wk.setIdentity();
    // Squared column norms, recomputed every sweep and updated by each
    // rotation in between (a ← a − t g, b ← b + t g).
    auto norms = colNorm.head(mk);
    for (int sweep = 0; sweep < 40; ++sweep) {
      bool rotated = false;
      for (int i = 0; i < mk; ++i) norms[i] = Ck.col(i).squaredNorm();
      for (int i = 0; i < mk - 1; ++i) {
        for (int j = i + 1; j < mk; ++j) {
          const double a = norms[i];
          const double bb = norms[j];
          const double g = Ck.col(i).dot(Ck.col(j));
          if (std::abs(g) <= 1e-15 * std::sqrt(a * bb) || g == 0.0) continue;
          rotated = true;
          const double zeta = (bb - a) / (2.0 * g);
          const double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::sqrt(1.0 + zeta * zeta));
          const double c = 1.0 / std::sqrt(1.0 + t * t);
          const double s = c * t;
          norms[i] = a - t * g;
          norms[j] = bb + t * g;
          // Columns i, j ← (c x_i − s x_j, s x_i + c x_j), vectorized, in place.
          const Eigen::JacobiRotation<double> rotation(c, s);
          Ck.applyOnTheRight(i, j, rotation);
          Wk.applyOnTheRight(i, j, rotation);
        }
      }
      if (!rotated) break;
    }
    // C = Q [C_R; 0], applying the reflectors in reverse order.
    Eigen::Ref<MatrixXd> Cfull = factored ? Eigen::Ref<MatrixXd>(Cq.leftCols(mk)) : Eigen::Ref<MatrixXd>(H);
    if (factored) {
      Cfull.setZero();
      Cfull.topRows(mk) = Ck;
    }
    for (int k = mk - 1; factored && k >= 0; --k) {
      if (tau[k] == 0.0) continue;
      const auto v = H.col(k).tail(n - k);
      auto rows = Cfull.bottomRows(n - k);
      auto w = rowBuffer.head(mk);
      w.noalias() = rows.transpose() * v;
      rows.noalias() -= (tau[k] * v) * w.transpose();
    }
    // A coordinate the level does not involve (a zero column of A) stays
    // exactly still: Q's round-off would otherwise leave ~1e-17 there.
    if (factored) {
      for (int c = 0; c < n; ++c)
        if (Ak.col(c).isZero(0.0)) Cfull.row(c).setZero();
    }
    double sigmaMax = 0.0;
    for (int j = 0; j < mk; ++j) sigmaMax = std::max(sigmaMax, Ck.col(j).norm());
    const double rankTol = 1e-10 * std::max(1.0, sigmaMax);
    double sigmaMin = kInf;
    for (int j = 0; j < mk; ++j) {
      const double s = Ck.col(j).norm();
      if (s > rankTol) sigmaMin = std::min(sigmaMin, s);
    }
    // Near a singular configuration (σ_min < ε) the damping grows smoothly
    // to λ_max² (Nakamura–Hanafusa/Chiaverini), scaled down with the
    // residual (Sugihara) so that the last iterations stay Newton steps.
    double lambda2 = std::max(mu * scale, floor);
    const double eps = opt.singularThreshold;
    if (sigmaMin < eps) {
      const double ratio = sigmaMin / eps;
      lambda2 += std::min(opt.singularDamping * opt.singularDamping, bk.squaredNorm()) * (1.0 - ratio * ratio);
    }
    y.setZero();
    for (int j = 0; j < mk; ++j) {
      const double s2 = Ck.col(j).squaredNorm();
      if (s2 <= rankTol * rankTol) continue;
      const double coefficient = Wk.col(j).dot(bk) / (s2 + lambda2);
      y.noalias() += coefficient * Cfull.col(j);
      if (!last) {
        const double inv = 1.0 / s2;
        P.noalias() -= (inv * Cfull.col(j)) * Cfull.col(j).transpose();
      }
    }
    dq += y;
  }

  // The step Δ at qq for the first `nl` levels (residuals `res`, Jacobian
  // J at qq), with the active set and the step limit; false when no step.
  bool computeStep(const VectorXd& qq, const VectorXd& res, double mu, std::size_t nl, int first) {
    std::fill(fixed.begin(), fixed.end(), 0);
    fixedStep.setZero();
    for (int pass = 0; pass <= static_cast<int>(limits.size()); ++pass) {
      P.setZero();
      for (int k = 0; k < n; ++k)
        if (!lockedCol[static_cast<std::size_t>(k)] && !fixed[static_cast<std::size_t>(k)]) P(k, k) = 1.0;
      dq = fixedStep;
      for (std::size_t l = 0; l < nl; ++l) {
        // Near the solution a regulariser only slows the last Newton steps
        // (its motion disturbs the tasks to second order): it rests.
        if (levels[l].postureOnly && quietPosture) continue;
        solveLevel(levels[l], res, l + 1 == nl, static_cast<int>(l) > first, mu);
      }
      bool more = false;
      for (const auto& lim : limits) {
        const auto c = static_cast<std::size_t>(lim.col);
        if (fixed[c] || lockedCol[c]) continue;
        const double target = qq[lim.qi] + dq[lim.col];
        if (target > lim.hi || target < lim.lo) {
          fixed[c] = 1;
          fixedStep[lim.col] = std::clamp(target, lim.lo, lim.hi) - qq[lim.qi];
          more = true;
        }
      }
      if (!more) break;
    }
    const double biggest = dq.lpNorm<Eigen::Infinity>();
    if (!(biggest > 0.0) || !std::isfinite(biggest)) return false;
    if (biggest > opt.maxStep) dq *= opt.maxStep / biggest;
    return true;
  }

  void applyStep(const VectorXd& qq, VectorXd& out) {
    const auto& m = w().model;
    out = qq;
    for (const int o : owners) {
      const auto oo = static_cast<std::size_t>(o);
      for (int i = m.owner_bodyadr[oo]; i < m.owner_bodyadr[oo] + m.owner_nbody[oo]; ++i) {
        const auto bi = static_cast<std::size_t>(i);
        if (m.jnt_nv[bi] == 0) continue;
        const int col = colOf[static_cast<std::size_t>(m.jnt_vadr[bi])];
        detail::jointIntegrate(m.jnt_type[bi], qq.data() + m.jnt_qadr[bi], dq.data() + col, 1.0,
                               out.data() + m.jnt_qadr[bi]);
      }
    }
    // Round-off must not leave a limit.
    for (const auto& lim : limits) out[lim.qi] = std::clamp(out[lim.qi], lim.lo, lim.hi);
  }

  void clampIntoLimits(VectorXd& qq) const {
    for (const auto& lim : limits) qq[lim.qi] = std::clamp(qq[lim.qi], lim.lo, lim.hi);
  }

  void randomize(VectorXd& qq, SplitMix& rng) const {
    const auto& m = w().model;
    for (int k = 0; k < n; ++k) {
      if (lockedCol[static_cast<std::size_t>(k)] || !relevantCol[static_cast<std::size_t>(k)]) continue;
      const int dof = columns[static_cast<std::size_t>(k)];
      const auto bi = static_cast<std::size_t>(m.dof_body[static_cast<std::size_t>(dof)]);
      if (m.jnt_nq[bi] != m.jnt_nv[bi]) continue;
      const int qi = m.jnt_qadr[bi] + (dof - m.jnt_vadr[bi]);
      double lo = m.dof_lowerLimit[dof];
      double hi = m.dof_upperLimit[dof];
      const bool angular = m.jnt_type[bi] == JointType::Revolute;
      if (!std::isfinite(lo) || !std::isfinite(hi)) {
        if (!angular) continue;
        lo = -std::numbers::pi;
        hi = std::numbers::pi;
      }
      qq[qi] = lo + (hi - lo) * rng.uniform();
    }
  }

  // After every task is reached: up to opt.postureIterations steps that move
  // the posture-only levels towards their targets, each accepted only when
  // the tasks are still reached (after the correction of the other levels)
  // and the posture error decreased.
  void regularize(IkResult& R) {
    const auto nl = static_cast<int>(levels.size());
    int solid = 0;  // the levels before the last task level
    bool anyPosture = false;
    for (int l = 0; l < nl; ++l) {
      if (levels[static_cast<std::size_t>(l)].postureOnly) {
        anyPosture = true;
      } else {
        solid = l + 1;
      }
    }
    if (!anyPosture) return;
    auto postureError = [&](const LevelState& st) {
      double e = 0.0;
      for (int l = 0; l < nl; ++l)
        if (levels[static_cast<std::size_t>(l)].postureOnly) e += st.err[static_cast<std::size_t>(l)];
      return e;
    };
    double current = postureError(cur);
    yield = 0.0;
    quietPosture = false;
    for (int k = 0; k < opt.postureIterations; ++k) {
      ++R.iterations;
      if (!computeStep(q, r, opt.damping, levels.size(), nl)) return;
      applyStep(q, qTrial);
      evaluate(qTrial, rTrial, true);
      judge(rTrial, trial);
      for (int c = 0; c < 4 && solid > 0 && trial.first < nl; ++c) {
        if (!computeStep(qTrial, rTrial, opt.damping, static_cast<std::size_t>(solid), nl)) break;
        applyStep(qTrial, qCorr);
        qTrial.swap(qCorr);
        evaluate(qTrial, rTrial, true);
        judge(rTrial, trial);
      }
      const double next = postureError(trial);
      if (trial.first < nl || !(next < current)) {
        // Too long a step for the corrections: a shorter one, a few times.
        evaluate(q, r, true);
        judge(r, cur);
        yield = yield == 0.0 ? 10.0 : 10.0 * yield;
        if (yield > 1e4) return;
        continue;
      }
      q.swap(qTrial);
      evaluate(q, r, true);
      judge(r, cur);
      const double gain = current - next;
      current = next;
      if (gain <= 1e-6 * current) return;  // stationary
    }
  }

  // ---- the solve ----

  const IkResult& run(const VectorXd& q0, VectorXd& qOut) {
    setup();
    const auto& m = w().model;
    if (q0.size() != m.nq) {
      throw InvalidArgument("InverseKinematics::solve: expected " + std::to_string(m.nq) +
                            " position coordinates, got " + std::to_string(q0.size()));
    }
    q = q0;
    clampIntoLimits(q);
    IkResult& R = result;
    R.converged = false;
    R.iterations = 0;
    R.restarts = 0;
    R.message.clear();
    SplitMix rng{opt.seed};
    qBest = q;
    bool haveBest = false;
    const std::size_t nl = levels.size();
    for (int attempt = 0; attempt <= opt.maxRestarts; ++attempt) {
      if (attempt > 0) {
        q = q0;
        clampIntoLimits(q);
        randomize(q, rng);
        R.restarts = attempt;
      }
      evaluate(q, r, true);
      judge(r, cur);
      double mu = opt.damping;
      yield = 0.0;
      for (int it = 0; it < opt.maxIterations && cur.first < static_cast<int>(nl); ++it) {
        ++R.iterations;
        quietPosture = cur.firstErr < kQuietPosture;
        if (!computeStep(q, r, mu, nl, cur.first)) break;
        applyStep(q, qTrial);
        // The levels satisfied at q that the step disturbed (to second
        // order) are brought back by a few Newton steps of those levels only.
        const auto kept = static_cast<std::size_t>(cur.first);
        evaluate(qTrial, rTrial, kept > 0);
        judge(rTrial, trial);
        for (int c = 0; c < 4 && kept > 0 && trial.first < cur.first; ++c) {
          if (!computeStep(qTrial, rTrial, opt.damping, kept, cur.first)) break;
          applyStep(qTrial, qCorr);
          qTrial.swap(qCorr);
          evaluate(qTrial, rTrial, true);
          judge(rTrial, trial);
        }
        if (trial.first > cur.first || (trial.first == cur.first && trial.firstErr < cur.firstErr)) {
          // Slow progress on a level above a regulariser: the regulariser's
          // second-order disturbance is in the way; it yields.
          if (trial.first == cur.first && trial.firstErr > 0.25 * cur.firstErr)
            yield = yield == 0.0 ? 1.0 : 10.0 * yield;
          q.swap(qTrial);
          mu = std::max(opt.damping, mu * 0.1);
          if (kept > 0) {
            // The trial was evaluated with its Jacobian: reuse it.
            r.swap(rTrial);
            std::swap(cur, trial);
          } else {
            evaluate(q, r, true);
            judge(r, cur);
          }
        } else {
          mu *= 10.0;
          yield = yield == 0.0 ? 1.0 : 10.0 * yield;
          if (mu > 1e8) break;   // no descent: a local minimum
          evaluate(q, r, true);  // the caches hold the rejected trial
        }
      }
      if (cur.first == static_cast<int>(nl)) regularize(R);
      if (!haveBest || better(cur, best) || cur.first == static_cast<int>(nl)) {
        best = cur;
        qBest = q;
        haveBest = true;
      }
      if (cur.first == static_cast<int>(nl)) break;
    }
    q = qBest;
    evaluate(q, r, false);
    R.converged = reached(&R.constraintResidual);
    if (!R.converged) {
      R.message = R.constraintResidual > opt.constraintTolerance ? kClosureNotKept : kTaskNotReached;
    }
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
      const Task& t = tasks[ti];
      auto& out = R.tasks[ti];
      out.name = t.name;
      out.kind = t.kind;
      out.priority = t.priority;
      out.position = t.kind == IkTaskKind::Orientation || t.kind == IkTaskKind::Posture ? 0.0 : taskPos[ti];
      out.orientation = t.kind == IkTaskKind::Pose || t.kind == IkTaskKind::Orientation ? taskRot[ti] : 0.0;
      out.norm = t.kind == IkTaskKind::Posture ? taskPos[ti] : 0.0;
      out.reached = !t.enabled || t.kind == IkTaskKind::Posture ||
                    (out.position <= opt.positionTolerance && out.orientation <= opt.orientationTolerance);
      if (!out.reached && immovable[ti] && R.constraintResidual <= opt.constraintTolerance) R.message = kTaskImmovable;
    }
    qOut = q;
    return R;
  }
};

// ---- facade -------------------------------------------------------------------

InverseKinematics::InverseKinematics(World& world, const IkOptions& options) : m_impl(std::make_unique<Impl>()) {
  m_impl->world = &world;
  setOptions(options);
}

InverseKinematics::~InverseKinematics() = default;
InverseKinematics::InverseKinematics(InverseKinematics&&) noexcept = default;
InverseKinematics& InverseKinematics::operator=(InverseKinematics&&) noexcept = default;

const IkOptions& InverseKinematics::getOptions() const {
  return m_impl->opt;
}

void InverseKinematics::setOptions(const IkOptions& o) {
  auto positive = [](double x) { return x > 0.0 && std::isfinite(x); };
  if (o.maxIterations < 1) throw InvalidArgument("IkOptions: maxIterations must be at least 1");
  if (o.maxRestarts < 0) throw InvalidArgument("IkOptions: maxRestarts must be >= 0");
  if (o.postureIterations < 0) throw InvalidArgument("IkOptions: postureIterations must be >= 0");
  if (!positive(o.positionTolerance) || !positive(o.orientationTolerance) || !positive(o.constraintTolerance)) {
    throw InvalidArgument("IkOptions: tolerances must be finite and > 0");
  }
  if (!positive(o.maxStep)) throw InvalidArgument("IkOptions: maxStep must be finite and > 0");
  if (!positive(o.damping) || !std::isfinite(o.singularDamping) || o.singularDamping < 0.0 ||
      !positive(o.singularThreshold)) {
    throw InvalidArgument("IkOptions: damping must be > 0, singularDamping >= 0 and singularThreshold > 0");
  }
  m_impl->opt = o;
}

int InverseKinematics::addPoseTask(const Frame& frame, const Isometry3d& target, const IkTaskOptions& options) {
  detail::checkIsometry(target, "InverseKinematics::addPoseTask", "target");
  Task t = m_impl->frameTask(IkTaskKind::Pose, frame, options);
  t.target = SE3::fromIsometry(target);
  return m_impl->add(std::move(t));
}

int InverseKinematics::addPositionTask(const Frame& frame, const Vector3d& target, const IkTaskOptions& options) {
  if (!target.allFinite()) throw InvalidArgument("InverseKinematics::addPositionTask: target must be finite");
  Task t = m_impl->frameTask(IkTaskKind::Position, frame, options);
  t.target.p = target;
  return m_impl->add(std::move(t));
}

int InverseKinematics::addOrientationTask(const Frame& frame, const Matrix3d& target, const IkTaskOptions& options) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = target;
  detail::checkIsometry(X, "InverseKinematics::addOrientationTask", "target");
  Task t = m_impl->frameTask(IkTaskKind::Orientation, frame, options);
  t.target.R = target;
  return m_impl->add(std::move(t));
}

int InverseKinematics::addCenterOfMassTask(const Vector3d& target, std::optional<Multibody> multibody,
                                           const IkTaskOptions& options) {
  if (!target.allFinite()) throw InvalidArgument("InverseKinematics::addCenterOfMassTask: target must be finite");
  Task t;
  t.kind = IkTaskKind::CenterOfMass;
  t.target.p = target;
  t.priority = options.priority;
  t.weight = options.weight;
  if (multibody) {
    if (!multibody->isValid() || multibody->world() != m_impl->world) {
      throw InvalidHandle("InverseKinematics::addCenterOfMassTask: invalid multibody or one of another World");
    }
    t.wholeWorld = false;
    t.multibodySlot = multibody->index();
    t.multibodyGeneration = m_impl->w().multibodies[multibody->index()].generation;
  }
  t.name = options.name.empty() ? (multibody ? "com:" + multibody->name() : std::string("com")) : options.name;
  return m_impl->add(std::move(t));
}

int InverseKinematics::addPostureTask(const VectorXd& target, const std::vector<int>& dofs, IkTaskOptions options) {
  if (!target.allFinite()) throw InvalidArgument("InverseKinematics::addPostureTask: targets must be finite");
  Task t;
  t.kind = IkTaskKind::Posture;
  t.posture = target;
  t.dofs = dofs;
  t.priority = options.priority == IkTaskOptions{}.priority ? 2 : options.priority;
  t.weight = options.weight;
  t.name = options.name.empty() ? std::string("posture") : options.name;
  return m_impl->add(std::move(t));
}

int InverseKinematics::pin(const Frame& frame, const std::string& name) {
  IkTaskOptions o;
  o.priority = 0;
  o.name = name.empty() ? "pin:" + frame.name() : name;
  m_impl->checkedRef(frame, "pinned frame");
  return addPoseTask(frame, frame.getWorldTransform(), o);
}

void InverseKinematics::setTarget(int task, const Isometry3d& target) {
  Task& t = m_impl->task(task);
  detail::checkIsometry(target, kSetTarget, "target");
  t.target = SE3::fromIsometry(target);
}

void InverseKinematics::setTargetPosition(int task, const Vector3d& target) {
  Task& t = m_impl->task(task);
  if (!target.allFinite()) throw InvalidArgument("InverseKinematics::setTargetPosition: target must be finite");
  t.target.p = target;
}

void InverseKinematics::setTargetOrientation(int task, const Matrix3d& target) {
  Task& t = m_impl->task(task);
  Isometry3d X = Isometry3d::Identity();
  X.linear() = target;
  detail::checkIsometry(X, kSetTargetOrientation, "target");
  t.target.R = target;
}

void InverseKinematics::setPostureTarget(int task, const VectorXd& target) {
  Task& t = m_impl->task(task);
  if (t.kind != IkTaskKind::Posture) throw InvalidArgument("InverseKinematics::setPostureTarget: not a posture task");
  if (!target.allFinite()) throw InvalidArgument("InverseKinematics::setPostureTarget: targets must be finite");
  if (target.size() != t.posture.size()) m_impl->dirty = true;
  t.posture = target;
}

Isometry3d InverseKinematics::getTarget(int task) const {
  return m_impl->task(task).target.toIsometry();
}

void InverseKinematics::setWeight(int task, double weight) {
  if (!(weight > 0.0) || !std::isfinite(weight)) throw InvalidArgument("InverseKinematics::setWeight: must be > 0");
  m_impl->task(task).weight = weight;
}

void InverseKinematics::setPriority(int task, int priority) {
  if (priority < 0) throw InvalidArgument("InverseKinematics::setPriority: must be >= 0");
  m_impl->task(task).priority = priority;
  m_impl->dirty = true;
}

void InverseKinematics::setEnabled(int task, bool enabled) {
  auto& t = m_impl->task(task);
  if (t.enabled != enabled) m_impl->dirty = true;
  t.enabled = enabled;
}

bool InverseKinematics::isEnabled(int task) const {
  return m_impl->task(task).enabled;
}

void InverseKinematics::removeTask(int task) {
  auto& ts = m_impl->tasks;
  const auto it = std::find_if(ts.begin(), ts.end(), [&](const Task& t) { return t.id == task; });
  if (it == ts.end()) throw InvalidArgument("InverseKinematics: no task with id " + std::to_string(task));
  ts.erase(it);
  m_impl->dirty = true;
}

void InverseKinematics::clearTasks() {
  m_impl->tasks.clear();
  m_impl->dirty = true;
}

std::vector<int> InverseKinematics::getTasks() const {
  std::vector<int> ids;
  for (const auto& t : m_impl->tasks) ids.push_back(t.id);
  return ids;
}

IkTaskKind InverseKinematics::getKind(int task) const {
  return m_impl->task(task).kind;
}

std::string InverseKinematics::getName(int task) const {
  return m_impl->task(task).name;
}

void InverseKinematics::setLocked(const Joint& joint, bool lockedFlag) {
  const Link child = joint.getChildLink();  // validates the handle
  if (child.world() != m_impl->world) throw TopologyError("InverseKinematics::setLocked: joint of another World");
  auto& L = m_impl->locked;
  const std::pair<std::uint32_t, std::uint32_t> key{child.index(), child.generation()};
  const auto it = std::find(L.begin(), L.end(), key);
  if (lockedFlag && it == L.end()) L.push_back(key);
  if (!lockedFlag && it != L.end()) L.erase(it);
  m_impl->dirty = true;
}

bool InverseKinematics::isLocked(const Joint& joint) const {
  const Link child = joint.getChildLink();
  const auto& L = m_impl->locked;
  return std::find(L.begin(), L.end(), std::pair<std::uint32_t, std::uint32_t>{child.index(), child.generation()}) !=
         L.end();
}

const IkResult& InverseKinematics::solve() {
  auto& w = m_impl->w();
  w.requireUnlocked("solve inverse kinematics");
  w.ensureModel();
  VectorXd& out = m_impl->qBest;  // reused storage
  const VectorXd q0 = w.state.q;
  m_impl->run(q0, out);
  world().setPositions(out);
  return m_impl->result;
}

const IkResult& InverseKinematics::solve(const VectorXd& q0, VectorXd& q) {
  return m_impl->run(q0, q);
}

World& InverseKinematics::world() const {
  return *m_impl->world;
}

}  // namespace articula

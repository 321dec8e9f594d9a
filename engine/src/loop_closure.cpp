// Loop closures and joint couplers: topology and validation, residuals
// and their Jacobians, the bilateral rows of the step's constraint solve,
// and the kinematic projection (Levenberg–Marquardt on the stacked
// residual). See articula/loop_closure.hpp and docs/loop-closures.md.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <articula/limits.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula {

using detail::implOf;
using detail::WorldImpl;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Relative regularisation of hard bilateral rows (keeps exactly redundant
// closures solvable by the pivoting method; negligible otherwise).
constexpr double kBilateralRegularization = 1e-12;

bool knownFamily(LoopClosureFamily f) {
  switch (f) {
    case LoopClosureFamily::Rigid:
    case LoopClosureFamily::Point:
    case LoopClosureFamily::Hinge:
    case LoopClosureFamily::Slider:
    case LoopClosureFamily::Universal:
    case LoopClosureFamily::Distance:
      return true;
  }
  return false;
}

// θ = R_A · log(R_Aᵀ R_B) into rows[0..2] (angular rows along world axes).
void rotationRows(const detail::SE3& A, const detail::SE3& B, detail::ClosureRow* rows) {
  const Vector3d theta = A.R * detail::logSO3(A.R.transpose() * B.R);
  for (int i = 0; i < 3; ++i) {
    rows[i].angular = true;
    rows[i].dir = Vector3d::Unit(i);
    rows[i].residual = theta[i];
  }
}

void pointRows(const detail::SE3& A, const detail::SE3& B, detail::ClosureRow* rows) {
  const Vector3d d = B.p - A.p;
  for (int i = 0; i < 3; ++i) {
    rows[i].angular = false;
    rows[i].dir = Vector3d::Unit(i);
    rows[i].pB = B.p;
    rows[i].pA = A.p;
    rows[i].residual = d[i];
  }
}

// a·b with a fixed in A and b fixed in B: d/dt = (ω_B − ω_A)·(b × a).
void perpendicularRow(const Vector3d& a, const Vector3d& b, detail::ClosureRow& row) {
  row.angular = true;
  row.dir = b.cross(a);
  row.residual = a.dot(b);
}

}  // namespace

int numResidualRows(LoopClosureFamily family) {
  switch (family) {
    case LoopClosureFamily::Rigid:
      return 6;
    case LoopClosureFamily::Point:
      return 3;
    case LoopClosureFamily::Hinge:
    case LoopClosureFamily::Slider:
      return 5;
    case LoopClosureFamily::Universal:
      return 4;
    case LoopClosureFamily::Distance:
      return 1;
  }
  return 0;
}

std::string_view toString(LoopClosureFamily family) {
  switch (family) {
    case LoopClosureFamily::Rigid:
      return "rigid";
    case LoopClosureFamily::Point:
      return "point";
    case LoopClosureFamily::Hinge:
      return "hinge";
    case LoopClosureFamily::Slider:
      return "slider";
    case LoopClosureFamily::Universal:
      return "universal";
    case LoopClosureFamily::Distance:
      return "distance";
  }
  return "unknown";
}

std::optional<LoopClosureFamily> loopClosureFamilyFromString(std::string_view name) {
  for (const auto f : {LoopClosureFamily::Rigid, LoopClosureFamily::Point, LoopClosureFamily::Hinge,
                       LoopClosureFamily::Slider, LoopClosureFamily::Universal, LoopClosureFamily::Distance}) {
    if (toString(f) == name) return f;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// WorldImpl: records, anchors, residuals

namespace detail {

void validateRuntimePolicy(const LoopClosureRuntimePolicy& p, const std::string& where) {
  auto bad = [&](const char* field, double value, const char* expected) {
    throw InvalidArgument(where + ": runtime policy field '" + field + "' = " + std::to_string(value) + ", expected " +
                          expected);
  };
  if (!(p.errorReduction >= 0.0 && p.errorReduction <= 1.0))
    bad("errorReduction", p.errorReduction, "a value in [0, 1]");
  if (!(p.stiffness > 0.0) || !std::isfinite(p.stiffness)) bad("stiffness", p.stiffness, "a finite value > 0");
  if (!(p.damping >= 0.0) || !std::isfinite(p.damping)) bad("damping", p.damping, "a finite value >= 0");
  if (!(p.tolerance > 0.0) || !std::isfinite(p.tolerance)) bad("tolerance", p.tolerance, "a finite value > 0");
  if (p.maxIterations < 1 || p.maxIterations > kMaxSolverIterations) {
    bad("maxIterations", p.maxIterations, "in [1, 100000]");
  }
  if (p.kinematics != ClosureKinematicsPolicy::ResidualOnly && p.kinematics != ClosureKinematicsPolicy::Project) {
    throw InvalidArgument(where + ": unknown kinematics policy");
  }
  if (p.dynamics != ClosureDynamicsPolicy::Off && p.dynamics != ClosureDynamicsPolicy::Solve) {
    throw InvalidArgument(where + ": unknown dynamics policy");
  }
  if (p.stabilization != ClosureStabilization::Baumgarte && p.stabilization != ClosureStabilization::Compliance) {
    throw InvalidArgument(where + ": unknown stabilization");
  }
}

ClosureRecord& WorldImpl::closure(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= closures.size() || !closures[slot].alive || closures[slot].generation != gen) {
    throw InvalidHandle(
        "invalid LoopClosure handle: the closure was removed, one of its endpoints was removed, the world was "
        "cleared, or the handle is default-constructed");
  }
  return closures[slot];
}

CouplerRecord& WorldImpl::coupler(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= couplers.size() || !couplers[slot].alive || couplers[slot].generation != gen) {
    throw InvalidHandle(
        "invalid JointCoupler handle: the coupler was removed, one of its joints was removed, the world was "
        "cleared, or the handle is default-constructed");
  }
  return couplers[slot];
}

Anchor WorldImpl::anchorOf(const FrameRef& r) const {
  switch (r.kind) {
    case FrameKind::Link:
      return {linkBody[r.index], SE3{}};
    case FrameKind::RigidBody:
      return {rigidBodyBody[r.index], SE3{}};
    case FrameKind::FreeFrame:
    case FrameKind::FixedFrame: {
      const auto& F = frames[r.index];
      Anchor a = anchorOf(F.parent);
      a.X_BE = a.X_BE * F.X_PF;
      return a;
    }
    case FrameKind::World:
    case FrameKind::None:
      break;
  }
  return {};
}

SE3 WorldImpl::endpointPose(const ClosureRecord& c, bool b, const Data* d) const {
  const Anchor a = anchorOf(b ? c.frameB : c.frameA);
  const SE3 offset = SE3::fromIsometry(b ? c.offsetB : c.offsetA);
  const SE3 X = a.X_BE * offset;
  return a.body < 0 ? X : (d != nullptr ? *d : data).X_WB[static_cast<std::size_t>(a.body)] * X;
}

void WorldImpl::closureRows(const ClosureRecord& c, ClosureRow* rows, SE3* endpointA, const Data* kin) const {
  const SE3 A = endpointPose(c, false, kin);
  if (endpointA != nullptr) *endpointA = A;
  const SE3 B = endpointPose(c, true, kin);
  switch (c.family) {
    case LoopClosureFamily::Rigid:
      rotationRows(A, B, rows);
      pointRows(A, B, rows + 3);
      break;
    case LoopClosureFamily::Point:
      pointRows(A, B, rows);
      break;
    case LoopClosureFamily::Hinge:
      perpendicularRow(A.R.col(0), B.R.col(2), rows[0]);
      perpendicularRow(A.R.col(1), B.R.col(2), rows[1]);
      pointRows(A, B, rows + 2);
      break;
    case LoopClosureFamily::Slider: {
      rotationRows(A, B, rows);
      const Vector3d d = B.p - A.p;
      for (int i = 0; i < 2; ++i) {
        // x_A·d: d/dt = x_A·(v_B(p_B) − v_A(p_B)), both velocities at p_B.
        auto& row = rows[3 + i];
        row.angular = false;
        row.dir = A.R.col(i);
        row.pB = B.p;
        row.pA = B.p;
        row.residual = row.dir.dot(d);
      }
      break;
    }
    case LoopClosureFamily::Universal:
      perpendicularRow(A.R.col(0), B.R.col(1), rows[0]);
      pointRows(A, B, rows + 1);
      break;
    case LoopClosureFamily::Distance: {
      const Vector3d d = B.p - A.p;
      const double n = d.norm();
      auto& row = rows[0];
      row.angular = false;
      row.dir = n > 1e-12 ? Vector3d(d / n) : Vector3d::UnitX();
      row.pB = B.p;
      row.pA = A.p;
      row.residual = n - c.length;
      break;
    }
  }
}

int WorldImpl::couplerDof(std::uint32_t linkSlot) const {
  const int b = linkBody[linkSlot];
  return model.jnt_vadr[static_cast<std::size_t>(b)];
}

double WorldImpl::couplerResidual(const CouplerRecord& c) const {
  const auto bl = static_cast<std::size_t>(linkBody[c.leader]);
  const auto bf = static_cast<std::size_t>(linkBody[c.follower]);
  return state.q[model.jnt_qadr[bf]] - c.ratio * state.q[model.jnt_qadr[bl]] - c.offset;
}

namespace {

// The link or rigid body (or the world) a frame is attached to.
FrameRef bodyRefOf(const WorldImpl& w, FrameRef r) {
  while (r.kind == FrameKind::FreeFrame || r.kind == FrameKind::FixedFrame) r = w.frames[r.index].parent;
  if (r.kind == FrameKind::None) r.kind = FrameKind::World;
  return r;
}

bool linkAlive(const WorldImpl& w, std::uint32_t slot, std::uint32_t gen) {
  return slot < w.links.size() && w.links[slot].alive && w.links[slot].generation == gen;
}

}  // namespace

void WorldImpl::rebuildClosureFilters() {
  implicitFilters.clear();
  for (const auto& c : closures) {
    if (!c.alive) continue;
    ++implicitFilters[pairKey(bodyRefOf(*this, c.frameA), bodyRefOf(*this, c.frameB))];
  }
  collisionValid = false;
}

void WorldImpl::removeOrphanedClosures() {
  bool changed = false;
  for (auto& c : closures) {
    if (c.alive && (!frameAlive(c.frameA) || !frameAlive(c.frameB))) {
      c.alive = false;
      closureNames.erase(c.name);
      changed = true;
    }
  }
  for (auto& c : couplers) {
    if (c.alive &&
        (!linkAlive(*this, c.leader, c.leaderGeneration) || !linkAlive(*this, c.follower, c.followerGeneration))) {
      c.alive = false;
      couplerNames.erase(c.name);
    }
  }
  removeOrphanedActuators();
  removeOrphanedSensors();
  if (changed) rebuildClosureFilters();
}

void WorldImpl::checkClosureEndpoints(const std::string& name, const FrameRef& frameA, const FrameRef& frameB) const {
  const Anchor a = anchorOf(frameA);
  const Anchor b = anchorOf(frameB);
  const std::string names = "'" + frameName(frameA) + "' and '" + frameName(frameB) + "'";
  if (a.body == b.body) {
    throw TopologyError("loop closure '" + name + "': endpoints " + names +
                        (a.body < 0 ? " are both fixed to the world" : " are on the same body"));
  }
  const bool movA = a.body >= 0 && model.body_movable[static_cast<std::size_t>(a.body)];
  const bool movB = b.body >= 0 && model.body_movable[static_cast<std::size_t>(b.body)];
  if (!movA && !movB) {
    throw TopologyError("loop closure '" + name + "': endpoints " + names + " are both fixed to the world");
  }
}

void WorldImpl::checkCouplerJoint(const std::string& where, std::uint32_t linkSlot) const {
  const auto& L = links[linkSlot];
  if (articula::numDofs(L.joint.type) != 1 || articula::numPositions(L.joint.type) != 1) {
    throw TopologyError(where + ": joint '" + multibodies[L.multibody].name + "/" + L.joint.name + "' is " +
                        std::string(toString(L.joint.type)) +
                        "; couplers need 1-DoF joints (revolute, prismatic, screw)");
  }
}

void WorldImpl::validateClosures() const {
  for (const auto& c : closures)
    if (c.alive) checkClosureEndpoints(c.name, c.frameA, c.frameB);
  for (const auto& c : couplers) {
    if (!c.alive) continue;
    for (const std::uint32_t slot : {c.leader, c.follower}) checkCouplerJoint("joint coupler '" + c.name + "'", slot);
  }
}

bool WorldImpl::anyDynamicClosures() const {
  for (const auto& c : closures)
    if (c.alive && c.policy.enabled && c.policy.dynamics == ClosureDynamicsPolicy::Solve) return true;
  for (const auto& c : couplers)
    if (c.alive && c.policy.enabled && c.policy.dynamics == ClosureDynamicsPolicy::Solve) return true;
  return false;
}

// ---------------------------------------------------------------------------
// Dynamic rows

namespace {

// Target of a bilateral row with residual r: J·v⁺ = −errorReduction·r/h
// (Baumgarte), or an implicit spring-damper on r (compliance).
void setTarget(ConstraintRow& R, const LoopClosureRuntimePolicy& p, double residual, double h) {
  R.lo = -kInf;
  R.hi = kInf;
  if (p.stabilization == ClosureStabilization::Compliance) {
    // λ = −h(k(r + h·Jv⁺) + d·Jv⁺).
    const double kd = h * p.stiffness + p.damping;
    R.rhs = -p.stiffness / kd * residual;
    R.compliance = 1.0 / (h * kd);
  } else {
    R.rhs = -p.errorReduction * residual / h;
    R.compliance = -kBilateralRegularization;  // relative to the diagonal (see softness())
  }
}

}  // namespace

namespace {

bool solvedInStep(const LoopClosureRuntimePolicy& p) {
  return p.enabled && p.dynamics == ClosureDynamicsPolicy::Solve;
}

// One bilateral row J = dir·(B's motion) − dir·(A's motion); −1 when the
// row has no terms (both sides immovable, or a vanishing Jacobian).
int emitClosureRow(RowBuilder& B, const Anchor& a, const Anchor& b, const ClosureRow& row, int source) {
  const int r = B.row(RowKind::Bilateral, source);
  if (row.angular) {
    B.angularTerm(r, b.body, row.dir, 1.0);
    B.angularTerm(r, a.body, row.dir, -1.0);
  } else {
    B.pointTerm(r, b.body, row.pB, row.dir, 1.0);
    B.pointTerm(r, a.body, row.pA, row.dir, -1.0);
  }
  if (B.at(r).nside == 0) {
    B.drop(r);
    return -1;
  }
  auto& R = B.at(r);
  R.lo = -kInf;
  R.hi = kInf;
  return r;
}

int emitCouplerRow(RowBuilder& B, const WorldImpl& w, const CouplerRecord& c, int source) {
  const int r = B.row(RowKind::Bilateral, source);
  B.dofTerm(r, w.couplerDof(c.follower), 1.0);
  B.dofTerm(r, w.couplerDof(c.leader), -c.ratio);
  auto& R = B.at(r);
  R.lo = -kInf;
  R.hi = kInf;
  return r;
}

}  // namespace

void WorldImpl::addClosureRows(ConstraintWorkspace& ws, double h) {
  RowBuilder B(model, data, ws);
  for (std::uint32_t s = 0; s < closures.size(); ++s) {
    auto& c = closures[s];
    c.solved = false;
    if (!c.alive || !solvedInStep(c.policy)) continue;
    const Anchor a = anchorOf(c.frameA);
    const Anchor b = anchorOf(c.frameB);
    const int n = numResidualRows(c.family);
    closureRows(c, c.rowsAtStep.data(), &c.originA);
    c.lambda.resize(static_cast<std::size_t>(n), 0.0);
    for (int i = 0; i < n; ++i) {
      const auto ii = static_cast<std::size_t>(i);
      const int r = emitClosureRow(B, a, b, c.rowsAtStep[ii], static_cast<int>(s));
      c.rowIndex[ii] = r;
      if (r < 0) continue;
      setTarget(B.at(r), c.policy, c.rowsAtStep[ii].residual, h);
      B.at(r).warm = c.lambda[ii];
    }
    c.solved = true;
  }
  for (std::uint32_t s = 0; s < couplers.size(); ++s) {
    auto& c = couplers[s];
    c.solved = false;
    c.rowIndex = -1;
    if (!c.alive || !solvedInStep(c.policy)) continue;
    const int r = emitCouplerRow(B, *this, c, static_cast<int>(s));
    setTarget(B.at(r), c.policy, couplerResidual(c), h);
    B.at(r).warm = c.lambda;
    c.rowIndex = r;
    c.solved = true;
  }
}

void WorldImpl::constrainAccelerations(const VectorXd& q, const VectorXd& v, double h, VectorXd& vdot, double weight,
                                       bool first) {
  // Rows at q (the caches hold the stage's kinematics and articulated-body
  // pass), their rate ṙ = J·v and the velocity-product term J̇·v from
  // central differences of the residuals along q ⊕ ±ε·v; then the
  // acceleration-level problem J·v̇ = −J̇·v − (2/τ)·ṙ − r/τ² with
  // τ = h / errorReduction, solved directly.
  auto& ws = accelerationRows;
  for (auto& c : closures) c.solved = false;
  ws.rows.clear();
  ws.J.clear();
  ws.points.clear();
  ws.pointNormalRow.clear();
  ws.pointFirstFriction.clear();
  // The trees the solved closures touch (their kinematics is differenced).
  auto& trees = projection.owners;
  trees.clear();
  auto addTree = [&](int body) {
    if (body < 0) return;
    const int o = model.body_owner[static_cast<std::size_t>(body)];
    if (std::find(trees.begin(), trees.end(), o) == trees.end()) trees.push_back(o);
  };
  for (auto& c : closures) {
    if (!c.alive || !solvedInStep(c.policy)) continue;
    addTree(anchorOf(c.frameA).body);
    addTree(anchorOf(c.frameB).body);
    closureRows(c, c.rowsAtStep.data(), &c.originA);
  }
  if (!trees.empty()) {
    const double eps = 1e-4 / std::max(1.0, v.lpNorm<Eigen::Infinity>());
    for (int side = 0; side < 2; ++side) {
      const double sign = side == 0 ? 1.0 : -1.0;
      // (qdotk is free here: the stage's q̇ is computed after this call)
      for (const int o : trees) {
        const auto oo = static_cast<std::size_t>(o);
        const int b0 = model.owner_bodyadr[oo];
        const int b1 = b0 + model.owner_nbody[oo];
        for (int i = b0; i < b1; ++i) {
          const auto b = static_cast<std::size_t>(i);
          if (model.jnt_nv[b] == 0) continue;
          jointIntegrate(model.jnt_type[b], q.data() + model.jnt_qadr[b], v.data() + model.jnt_vadr[b], sign * eps,
                         data.qdotk.data() + model.jnt_qadr[b]);
        }
        forwardKinematicsPositions(model, data.qdotk, data, b0, b1);
      }
      for (auto& c : closures) {
        if (!c.alive || !solvedInStep(c.policy)) continue;
        std::array<ClosureRow, 6> rows;
        closureRows(c, rows.data());
        for (int k = 0; k < numResidualRows(c.family); ++k)
          c.differences[static_cast<std::size_t>(side)][static_cast<std::size_t>(k)] =
              rows[static_cast<std::size_t>(k)].residual;
      }
    }
    fkPosAt = 0;
    RowBuilder B(model, data, ws);
    for (std::uint32_t s = 0; s < closures.size(); ++s) {
      auto& c = closures[s];
      c.solved = false;
      if (!c.alive || !solvedInStep(c.policy)) continue;
      const Anchor a = anchorOf(c.frameA);
      const Anchor b = anchorOf(c.frameB);
      const double tau = c.policy.errorReduction > 0.0 ? h / c.policy.errorReduction : 0.0;
      for (int i = 0; i < numResidualRows(c.family); ++i) {
        const auto ii = static_cast<std::size_t>(i);
        const double r = c.rowsAtStep[ii].residual;
        const double plus = c.differences[0][ii];
        const double minus = c.differences[1][ii];
        const double rate = (plus - minus) / (2.0 * eps);
        const double bias = (plus + minus - 2.0 * r) / (eps * eps);
        const int row = emitClosureRow(B, a, b, c.rowsAtStep[ii], static_cast<int>(s));
        c.rowIndex[ii] = row;
        if (row < 0) continue;
        auto& R = B.at(row);
        R.rhs = -bias - (tau > 0.0 ? 2.0 * rate / tau + r / (tau * tau) : 0.0);
        R.compliance = -kBilateralRegularization;
      }
      c.solved = true;
    }
  }
  RowBuilder B(model, data, ws);
  for (std::uint32_t s = 0; s < couplers.size(); ++s) {
    auto& c = couplers[s];
    c.solved = false;
    c.rowIndex = -1;
    if (!c.alive || !solvedInStep(c.policy)) continue;
    const double tau = c.policy.errorReduction > 0.0 ? h / c.policy.errorReduction : 0.0;
    const auto bl = static_cast<std::size_t>(linkBody[c.leader]);
    const auto bf = static_cast<std::size_t>(linkBody[c.follower]);
    const double r = q[model.jnt_qadr[bf]] - c.ratio * q[model.jnt_qadr[bl]] - c.offset;
    const double rate = v[model.jnt_vadr[bf]] - c.ratio * v[model.jnt_vadr[bl]];
    const int row = emitCouplerRow(B, *this, c, static_cast<int>(s));
    auto& R = B.at(row);
    R.rhs = tau > 0.0 ? -2.0 * rate / tau - r / (tau * tau) : 0.0;
    R.compliance = -kBilateralRegularization;
    c.rowIndex = row;
    c.solved = true;
  }
  if (ws.rows.empty()) return;
  const ConstraintResult result = solveRows(model, data, directSolverOptions, vdot, ws);
  if (result.degenerate) warn("the closure rows of an RK4 stage were degenerate; projected Gauss-Seidel solved them");
  publishClosureImpulses(ws, weight, !first);
}

void WorldImpl::publishClosureImpulses(const ConstraintWorkspace& ws, double weight, bool accumulate) {
  for (auto& c : closures) {
    if (!c.alive || !c.solved) continue;
    const int n = numResidualRows(c.family);
    Vector3d torque = Vector3d::Zero();
    Vector3d force = Vector3d::Zero();
    for (int i = 0; i < n; ++i) {
      const auto ii = static_cast<std::size_t>(i);
      const int r = c.rowIndex[ii];
      const double lam = r < 0 ? 0.0 : ws.rows[static_cast<std::size_t>(r)].lambda;
      if (!accumulate && weight == 1.0) c.lambda[ii] = lam;
      if (lam == 0.0) continue;
      const ClosureRow& row = c.rowsAtStep[ii];
      if (row.angular) {
        torque += lam * row.dir;
      } else {
        force += lam * row.dir;
        torque += lam * (row.pB - c.originA.p).cross(row.dir);
      }
    }
    Vector6d impulse;
    impulse.head<3>() = weight * (c.originA.R.transpose() * torque);
    impulse.tail<3>() = weight * (c.originA.R.transpose() * force);
    c.impulse = accumulate ? Vector6d(c.impulse + impulse) : impulse;
  }
  for (auto& c : couplers) {
    if (!c.alive || !c.solved) continue;
    const double lam = c.rowIndex < 0 ? 0.0 : ws.rows[static_cast<std::size_t>(c.rowIndex)].lambda;
    if (!accumulate && weight == 1.0) c.lambda = lam;
    c.impulse = accumulate ? c.impulse + weight * lam : weight * lam;
  }
}

// ---------------------------------------------------------------------------
// Kinematic projection

namespace {

// J_row += sign · (Jacobian of dir·v(p) or dir·ω of `body`) from the world
// motion subspaces Sw (6 × local columns, [ω; v at the world origin]) of
// every DoF supporting the body.
void addJacobianTerm(const Model& m, int body, bool angular, const Vector3d& dir, const Vector3d& p, double sign,
                     const std::vector<int>& colOf, const MatrixXd& Sw, MatrixXd& J, int row) {
  if (body < 0) return;
  const Vector3d mom = p.cross(dir);
  for (int b = body; b >= 0; b = m.body_parent[static_cast<std::size_t>(b)]) {
    const auto bi = static_cast<std::size_t>(b);
    const int va = m.jnt_vadr[bi];
    for (int k = 0; k < m.jnt_nv[bi]; ++k) {
      const int col = colOf[static_cast<std::size_t>(va + k)];
      const auto s = Sw.col(col);
      const double value = angular ? dir.dot(s.head<3>()) : dir.dot(s.tail<3>()) + mom.dot(s.head<3>());
      J(row, col) += sign * value;
    }
  }
}

}  // namespace

ClosureProjectionResult WorldImpl::project(const ClosureProjectionOptions& opts, bool afterStep, bool onlyIfViolated) {
  ensureModel();
  ClosureProjectionResult result;
  result.success = true;
  auto included = [&](const LoopClosureRuntimePolicy& p) {
    return p.enabled && p.kinematics == ClosureKinematicsPolicy::Project && (!afterStep || p.projectAfterStep);
  };
  auto& P = projection;
  const auto nowner = model.owner_kind.size();
  auto ownerOfBody = [&](int body) { return body < 0 ? -1 : model.body_owner[static_cast<std::size_t>(body)]; };

  // Items (closures and couplers taking part) and the mechanisms they form:
  // trees connected by items, projected one at a time.
  P.items.clear();
  for (std::uint32_t s = 0; s < closures.size(); ++s) {
    const auto& c = closures[s];
    if (!c.alive || !included(c.policy)) continue;
    P.items.push_back({false, s, numResidualRows(c.family), ownerOfBody(anchorOf(c.frameA).body),
                       ownerOfBody(anchorOf(c.frameB).body)});
  }
  for (std::uint32_t s = 0; s < couplers.size(); ++s) {
    const auto& c = couplers[s];
    if (!c.alive || !included(c.policy)) continue;
    P.items.push_back({true, s, 1, ownerOfBody(linkBody[c.leader]), ownerOfBody(linkBody[c.follower])});
  }
  if (P.items.empty()) return result;
  P.ownerParent.resize(nowner);
  for (std::size_t o = 0; o < nowner; ++o) P.ownerParent[o] = static_cast<int>(o);
  auto find = [&](int o) {
    while (P.ownerParent[static_cast<std::size_t>(o)] != o) {
      auto& up = P.ownerParent[static_cast<std::size_t>(o)];
      up = P.ownerParent[static_cast<std::size_t>(up)];
      o = up;
    }
    return o;
  };
  for (const auto& it : P.items) {
    if (it.ownerA >= 0 && it.ownerB >= 0) {
      const int x = find(it.ownerA);
      const int y = find(it.ownerB);
      if (x != y) P.ownerParent[static_cast<std::size_t>(std::max(x, y))] = std::min(x, y);
    }
  }
  P.componentOfRoot.assign(nowner, -1);
  int ncomp = 0;
  for (auto& it : P.items) {
    const int root = find(it.ownerA >= 0 ? it.ownerA : it.ownerB);
    auto& c = P.componentOfRoot[static_cast<std::size_t>(root)];
    if (c < 0) c = ncomp++;
    it.component = c;
  }

  const int nv = model.nv;
  P.mask.setOnes(nv);
  for (const int body : P.lockedBodies) {
    const auto b = static_cast<std::size_t>(body);
    P.mask.segment(model.jnt_vadr[b], model.jnt_nv[b]).setZero();
  }
  auto limitOf = [&](int dof, bool upper) { return upper ? model.dof_upperLimit[dof] : model.dof_lowerLimit[dof]; };
  auto qIndex = [&](int dof) {
    const auto b = static_cast<std::size_t>(model.dof_body[static_cast<std::size_t>(dof)]);
    return model.jnt_qadr[b] + (dof - model.jnt_vadr[b]);
  };
  VectorXd& q = state.q;
  double initialSquared = 0.0;
  double finalSquared = 0.0;
  bool moved = false;
  // colOf is −1 everywhere between calls (each component resets its entries).
  if (P.colOf.size() != static_cast<std::size_t>(nv)) P.colOf.assign(static_cast<std::size_t>(nv), -1);
  // Trees grouped by component, in one pass (counting sort).
  P.componentStart.assign(static_cast<std::size_t>(ncomp) + 1, 0);
  P.ownerComponent.resize(nowner);
  for (std::size_t o = 0; o < nowner; ++o) {
    const int c = P.componentOfRoot[static_cast<std::size_t>(find(static_cast<int>(o)))];
    P.ownerComponent[o] = c;
    if (c >= 0) ++P.componentStart[static_cast<std::size_t>(c) + 1];
  }
  for (int c = 0; c < ncomp; ++c)
    P.componentStart[static_cast<std::size_t>(c) + 1] += P.componentStart[static_cast<std::size_t>(c)];
  P.grouped.resize(static_cast<std::size_t>(P.componentStart.back()));
  P.componentCursor.assign(P.componentStart.begin(), P.componentStart.end() - 1);
  for (std::size_t o = 0; o < nowner; ++o) {
    const int c = P.ownerComponent[o];
    if (c >= 0)
      P.grouped[static_cast<std::size_t>(P.componentCursor[static_cast<std::size_t>(c)]++)] = static_cast<int>(o);
  }

  if (static_cast<int>(P.scratch.size()) < ncomp) P.scratch.resize(static_cast<std::size_t>(ncomp));
  for (int comp = 0; comp < ncomp; ++comp) {
    // Per-mechanism matrices keep their sizes from step to step.
    auto& S = P.scratch[static_cast<std::size_t>(comp)];
    // The component's trees, coordinates (local columns) and rows.
    P.owners.assign(P.grouped.begin() + P.componentStart[static_cast<std::size_t>(comp)],
                    P.grouped.begin() + P.componentStart[static_cast<std::size_t>(comp) + 1]);
    P.columns.clear();
    for (const int o : P.owners) {
      const auto oo = static_cast<std::size_t>(o);
      for (int k = 0; k < model.owner_nv[oo]; ++k) {
        P.colOf[static_cast<std::size_t>(model.owner_vadr[oo] + k)] = static_cast<int>(P.columns.size());
        P.columns.push_back(model.owner_vadr[oo] + k);
      }
    }
    const int n = static_cast<int>(P.columns.size());
    int m = 0;
    double tolerance = opts.tolerance;
    int maxIterations = opts.maxIterations;
    bool first = true;
    for (const auto& it : P.items) {
      if (it.component != comp) continue;
      m += it.rows;
      if (afterStep || onlyIfViolated) {
        const auto& pol = it.coupler ? couplers[it.slot].policy : closures[it.slot].policy;
        tolerance = first ? pol.tolerance : std::min(tolerance, pol.tolerance);
        maxIterations = first ? pol.maxIterations : std::max(maxIterations, pol.maxIterations);
        first = false;
      }
    }
    result.rows += m;
    S.J.resize(m, n);
    S.r.resize(m);
    S.rTrial.resize(m);

    auto kinematics = [&](const VectorXd& qq) {
      for (const int o : P.owners) {
        const auto oo = static_cast<std::size_t>(o);
        forwardKinematicsPositions(model, qq, data, model.owner_bodyadr[oo],
                                   model.owner_bodyadr[oo] + model.owner_nbody[oo]);
      }
    };
    // Residual (and Jacobian over the local columns) at qq.
    // `runKinematics` false: the caches already hold qq's kinematics.
    auto evaluate = [&](const VectorXd& qq, VectorXd& r, bool jacobian, bool runKinematics = true) {
      if (runKinematics) kinematics(qq);
      if (jacobian) {
        S.J.setZero();
        // World motion subspaces of the mechanism's DoFs, once per Jacobian.
        S.Sw.resize(6, n);
        for (int k = 0; k < n; ++k) {
          const int dof = P.columns[static_cast<std::size_t>(k)];
          const auto bi = static_cast<std::size_t>(model.dof_body[static_cast<std::size_t>(dof)]);
          S.Sw.col(k) = data.X_WB[bi].actMotion(data.S.col(dof));
        }
      }
      int row = 0;
      for (const auto& it : P.items) {
        if (it.component != comp) continue;
        if (it.coupler) {
          const auto& c = couplers[it.slot];
          const auto bl = static_cast<std::size_t>(linkBody[c.leader]);
          const auto bf = static_cast<std::size_t>(linkBody[c.follower]);
          r[row] = qq[model.jnt_qadr[bf]] - c.ratio * qq[model.jnt_qadr[bl]] - c.offset;
          if (jacobian) {
            S.J(row, P.colOf[static_cast<std::size_t>(model.jnt_vadr[bf])]) += 1.0;
            S.J(row, P.colOf[static_cast<std::size_t>(model.jnt_vadr[bl])]) -= c.ratio;
          }
          ++row;
          continue;
        }
        const auto& c = closures[it.slot];
        std::array<ClosureRow, 6> rows;
        closureRows(c, rows.data());
        const Anchor a = anchorOf(c.frameA);
        const Anchor b = anchorOf(c.frameB);
        for (int i = 0; i < it.rows; ++i, ++row) {
          const ClosureRow& cr = rows[static_cast<std::size_t>(i)];
          r[row] = cr.residual;
          if (!jacobian) continue;
          addJacobianTerm(model, b.body, cr.angular, cr.dir, cr.pB, 1.0, P.colOf, S.Sw, S.J, row);
          addJacobianTerm(model, a.body, cr.angular, cr.dir, cr.pA, -1.0, P.colOf, S.Sw, S.J, row);
        }
      }
    };
    auto step = [&](const VectorXd& qq, const VectorXd& dq, VectorXd& out) {
      // out = qq ⊕ dq over the component's trees (dq over local columns).
      for (const int o : P.owners) {
        const auto oo = static_cast<std::size_t>(o);
        out.segment(model.owner_qadr[oo], model.owner_nq[oo]) = qq.segment(model.owner_qadr[oo], model.owner_nq[oo]);
        for (int i = model.owner_bodyadr[oo]; i < model.owner_bodyadr[oo] + model.owner_nbody[oo]; ++i) {
          const auto bi = static_cast<std::size_t>(i);
          if (model.jnt_nv[bi] == 0) continue;
          const int col = P.colOf[static_cast<std::size_t>(model.jnt_vadr[bi])];
          jointIntegrate(model.jnt_type[bi], qq.data() + model.jnt_qadr[bi], dq.data() + col, 1.0,
                         out.data() + model.jnt_qadr[bi]);
        }
      }
    };

    P.qStart = q;
    if (opts.respectLimits) {
      for (const int dof : model.limitDofs) {
        if (P.colOf[static_cast<std::size_t>(dof)] < 0 || P.mask[dof] == 0.0) continue;
        const int qi = qIndex(dof);
        q[qi] = std::clamp(q[qi], limitOf(dof, false), limitOf(dof, true));
      }
    }
    // The Jacobian only when the mechanism is projected at all.
    evaluate(q, S.r, !onlyIfViolated);
    double norm = S.r.norm();
    initialSquared += norm * norm;
    bool violated = !onlyIfViolated;
    if (onlyIfViolated) {
      // Only when some item exceeds its own tolerance.
      int row = 0;
      for (const auto& it : P.items) {
        if (it.component != comp) continue;
        const auto& pol = it.coupler ? couplers[it.slot].policy : closures[it.slot].policy;
        violated = violated || S.r.segment(row, it.rows).norm() > pol.tolerance;
        row += it.rows;
      }
    }
    if (!violated) {
      q = P.qStart;
      finalSquared += norm * norm;
    } else {
      if (onlyIfViolated) evaluate(q, S.r, true, false);
      moved = true;
      double mu = 0.0;
      int iterations = 0;
      bool stalled = false;
      P.qTrial = q;
      while (norm > tolerance && iterations < maxIterations && !stalled) {
        ++iterations;
        // Minimum-norm damped step dq = −Jᵀ(JJᵀ + μI)⁻¹ r. Coordinates that
        // would leave their limits are clamped at the limit (their columns
        // leave J, their fixed change moves to the right-hand side) and the
        // rest is solved again.
        S.dq.setZero(n);
        S.vFix.setZero(n);
        double scale = 1.0;
        for (int pass = 0; pass < 8; ++pass) {
          S.Jf = S.J;
          S.y = S.r;
          for (int k = 0; k < n; ++k) {
            if (P.mask[P.columns[static_cast<std::size_t>(k)]] == 0.0) S.Jf.col(k).setZero();
            if (S.vFix[k] == 0.0) continue;
            S.y.noalias() += S.J.col(k) * S.dq[k];
            S.Jf.col(k).setZero();
          }
          S.JJ.noalias() = S.Jf * S.Jf.transpose();
          scale = std::max(1.0, S.JJ.diagonal().maxCoeff());
          mu = std::max(mu, 1e-14 * scale);
          S.JJ.diagonal().array() += mu;
          S.llt.compute(S.JJ);
          S.z = S.llt.solve(S.y);
          for (int k = 0; k < n; ++k)
            if (S.vFix[k] == 0.0) S.dq[k] = -S.Jf.col(k).dot(S.z);
          bool clampedMore = false;
          if (opts.respectLimits) {
            for (const int dof : model.limitDofs) {
              const int k = P.colOf[static_cast<std::size_t>(dof)];
              if (k < 0 || P.mask[dof] == 0.0 || S.vFix[k] != 0.0) continue;
              const int qi = qIndex(dof);
              const double target = q[qi] + S.dq[k];
              const double lo = limitOf(dof, false);
              const double hi = limitOf(dof, true);
              if (target > hi || target < lo) {
                S.dq[k] = (target > hi ? hi : lo) - q[qi];
                S.vFix[k] = 1.0;
                clampedMore = true;
              }
            }
          }
          if (!clampedMore) break;
        }
        step(q, S.dq, P.qTrial);
        evaluate(P.qTrial, S.rTrial, false);
        const double trial = S.rTrial.norm();
        if (trial < norm) {
          for (const int o : P.owners) {
            const auto oo = static_cast<std::size_t>(o);
            q.segment(model.owner_qadr[oo], model.owner_nq[oo]) =
                P.qTrial.segment(model.owner_qadr[oo], model.owner_nq[oo]);
          }
          mu = std::max(0.1 * mu, 1e-14 * scale);
          // The caches hold the trial's kinematics; the Jacobian only when
          // another iteration (or the velocity projection) needs it.
          S.r = S.rTrial;
          norm = trial;
          if ((norm > tolerance && iterations < maxIterations) || opts.projectVelocities) evaluate(q, S.r, true, false);
        } else {
          // Rejected: r and J at q are unchanged; retry with more damping.
          mu = std::max(10.0 * mu, 1e-8 * scale);
          if (mu > 1e12 * scale) stalled = true;
        }
      }
      result.iterations = std::max(result.iterations, iterations);
      finalSquared += norm * norm;
      if (norm > tolerance && result.success) {
        result.success = false;
        result.message = stalled ? "the residual stopped decreasing at " + std::to_string(norm) +
                                       " (the closures cannot be satisfied from here with the free coordinates)"
                                 : "no convergence in " + std::to_string(maxIterations) + " iterations; residual " +
                                       std::to_string(norm) + " > tolerance " + std::to_string(tolerance);
      }
      if (opts.projectVelocities) {
        // v_F ← v_F − J_Fᵀ(J_F J_Fᵀ + εI)⁻¹ J v over the free coordinates F
        // (J at the final q; locked coordinates keep their velocities).
        S.Jf = S.J;
        S.vLocal.resize(n);
        for (int k = 0; k < n; ++k) {
          const int dof = P.columns[static_cast<std::size_t>(k)];
          S.vLocal[k] = state.v[dof];
          if (P.mask[dof] == 0.0) S.Jf.col(k).setZero();
        }
        S.JJ.noalias() = S.Jf * S.Jf.transpose();
        const double vscale = std::max(1.0, S.JJ.diagonal().maxCoeff());
        S.JJ.diagonal().array() += 1e-13 * vscale;
        S.llt.compute(S.JJ);
        S.y.noalias() = S.J * S.vLocal;
        S.z = S.llt.solve(S.y);
        S.vLocal.noalias() -= S.Jf.transpose() * S.z;
        for (int k = 0; k < n; ++k) state.v[P.columns[static_cast<std::size_t>(k)]] = S.vLocal[k];
        touchVelocities();
      }
    }
    for (const int dof : P.columns) P.colOf[static_cast<std::size_t>(dof)] = -1;
  }
  result.initialResidual = std::sqrt(initialSquared);
  result.finalResidual = std::sqrt(finalSquared);
  if (moved) touchPositions();
  fkPosAt = 0;  // the caches hold the last evaluated trees
  return result;
}

}  // namespace detail
}  // namespace articula

// ---------------------------------------------------------------------------
// World facade

namespace articula {

namespace {

std::string familyName(LoopClosureFamily f) {
  return knownFamily(f) ? std::string(toString(f)) : "unknown (" + std::to_string(static_cast<int>(f)) + ")";
}

WorldImpl& liveImpl(World* w, const char* what) {
  if (w == nullptr) throw InvalidHandle(std::string("invalid ") + what + " handle (default-constructed)");
  return implOf(w);
}

detail::ClosureRecord& closureOf(World* w, std::uint32_t index, std::uint32_t generation) {
  return liveImpl(w, "LoopClosure").closure(index, generation);
}

detail::CouplerRecord& couplerOf(World* w, std::uint32_t index, std::uint32_t generation) {
  return liveImpl(w, "JointCoupler").coupler(index, generation);
}

template <class Record>
bool liveSlot(const std::vector<Record>& records, std::uint32_t index, std::uint32_t generation) {
  return index < records.size() && records[index].alive && records[index].generation == generation;
}

template <class Record>
void applyPolicy(Record& record, const LoopClosureRuntimePolicy& policy, const char* kind) {
  detail::validateRuntimePolicy(policy, std::string(kind) + " '" + record.name + "'");
  record.policy = policy;
}

// Enabled, and projected or solved.
bool activePolicy(const LoopClosureRuntimePolicy& p) {
  return p.enabled && (p.kinematics == ClosureKinematicsPolicy::Project || p.dynamics == ClosureDynamicsPolicy::Solve);
}

// The last step solved the record's rows.
bool forceAvailable(const WorldImpl& w, bool solved) {
  return solved && w.simulation && w.state.frameIndex > 0;
}

}  // namespace

LoopClosure World::addLoopClosure(const std::string& name, const LoopClosureSpec& spec) {
  auto& w = *m_impl;
  w.requireDesignMode("add a loop closure");
  const std::string where = "loop closure '" + (name.empty() ? std::string("loop_closure") : name) + "'";
  auto describeFrame = [](const Frame& f) { return f.isValid() ? "'" + f.name() + "'" : std::string("(invalid)"); };
  for (const Frame* f : {&spec.frameA, &spec.frameB}) {
    if (f->kind() != FrameKind::World && f->kind() != FrameKind::None && f->world() != this) {
      throw TopologyError(where + ": endpoint " + describeFrame(*f) + " belongs to another World (endpoints " +
                          describeFrame(spec.frameA) + " and " + describeFrame(spec.frameB) + ")");
    }
    w.checkFrame(*f);
  }
  const std::string names = describeFrame(spec.frameA) + " and " + describeFrame(spec.frameB);
  if (!knownFamily(spec.family)) {
    throw TopologyError(where + " between " + names + ": unknown family " + familyName(spec.family));
  }
  detail::checkIsometry(spec.offsetA, where, "offsetA");
  detail::checkIsometry(spec.offsetB, where, "offsetB");
  if (spec.family == LoopClosureFamily::Distance && !(spec.length > 0.0 && std::isfinite(spec.length))) {
    throw InvalidArgument(where + ": a Distance closure needs a finite length > 0 (got " + std::to_string(spec.length) +
                          "); use the Point family for coincident points");
  }
  if (!name.empty()) {
    if (w.closureNames.count(name) != 0) throw TopologyError(where + ": the name is taken by another loop closure");
    if (name.find('/') != std::string::npos) throw InvalidArgument(where + ": the name must not contain '/'");
  }
  const std::string finalName = name.empty() ? WorldImpl::uniqueName(w.closureNames, "loop_closure") : name;
  w.ensureModel();
  detail::ClosureRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.name = finalName;
  rec.frameA = w.refOf(spec.frameA);
  rec.frameB = w.refOf(spec.frameB);
  if (rec.frameA.kind == FrameKind::None) rec.frameA.kind = FrameKind::World;
  if (rec.frameB.kind == FrameKind::None) rec.frameB.kind = FrameKind::World;
  rec.family = spec.family;
  rec.offsetA = spec.offsetA;
  rec.offsetB = spec.offsetB;
  rec.length = spec.length;
  rec.rowIndex.fill(-1);
  w.checkClosureEndpoints(finalName, rec.frameA, rec.frameB);  // against the current tree, before committing
  const auto slot = static_cast<std::uint32_t>(w.closures.size());
  w.closures.push_back(std::move(rec));
  w.closureNames[finalName] = slot;
  w.rebuildClosureFilters();
  return LoopClosure(this, slot, w.closures[slot].generation);
}

namespace {

// Handle of a named record (`make(slot, generation)` builds it).
template <class Record, class Make>
auto findHandle(const std::map<std::string, std::uint32_t>& names, const std::vector<Record>& records,
                const std::string& name, Make make) -> std::optional<decltype(make(0u, 0u))> {
  const auto it = names.find(name);
  if (it == names.end()) return std::nullopt;
  return make(it->second, records[it->second].generation);
}

// Handles of the live records, in creation order.
template <class Record, class Make>
auto liveHandles(const std::vector<Record>& records, Make make) {
  std::vector<decltype(make(0u, 0u))> out;
  for (std::uint32_t s = 0; s < records.size(); ++s)
    if (records[s].alive) out.push_back(make(s, records[s].generation));
  return out;
}

}  // namespace

std::optional<LoopClosure> World::getLoopClosure(const std::string& name) const {
  return findHandle(m_impl->closureNames, m_impl->closures, name,
                    [this](std::uint32_t s, std::uint32_t g) { return LoopClosure(const_cast<World*>(this), s, g); });
}

bool World::hasLoopClosure(const std::string& name) const {
  return m_impl->closureNames.count(name) != 0;
}

std::size_t World::numLoopClosures() const {
  return m_impl->closureNames.size();
}

std::vector<LoopClosure> World::getLoopClosures() const {
  return liveHandles(m_impl->closures,
                     [this](std::uint32_t s, std::uint32_t g) { return LoopClosure(const_cast<World*>(this), s, g); });
}

void World::remove(const LoopClosure& closure) {
  auto& w = *m_impl;
  if (closure.m_world != this) throw TopologyError("the loop closure belongs to another World");
  auto& rec = w.closure(closure.m_index, closure.m_generation);
  w.requireDesignMode("remove a loop closure");
  rec.alive = false;
  w.closureNames.erase(rec.name);
  w.rebuildClosureFilters();
}

JointCoupler World::addJointCoupler(const std::string& name, const JointCouplerSpec& spec) {
  auto& w = *m_impl;
  w.requireDesignMode("add a joint coupler");
  const std::string where = "joint coupler '" + (name.empty() ? std::string("joint_coupler") : name) + "'";
  for (const Joint* j : {&spec.leader, &spec.follower}) {
    if (j->m_world == nullptr) throw InvalidHandle(where + ": invalid Joint handle (default-constructed)");
    if (j->m_world != this) throw TopologyError(where + ": joint '" + j->name() + "' belongs to another World");
    w.link(j->m_index, j->m_generation);
  }
  auto jointName = [&](const Joint& j) {
    const auto& L = w.links[j.m_index];
    return "'" + w.multibodies[L.multibody].name + "/" + L.joint.name + "'";
  };
  for (const Joint* j : {&spec.leader, &spec.follower}) w.checkCouplerJoint(where, j->m_index);
  if (spec.leader == spec.follower) {
    throw TopologyError(where + ": leader and follower are the same joint " + jointName(spec.leader));
  }
  for (const auto& c : w.couplers) {
    if (c.alive && c.follower == spec.follower.m_index && c.followerGeneration == spec.follower.m_generation) {
      throw TopologyError(where + ": joint " + jointName(spec.follower) + " already follows a joint (coupler '" +
                          c.name + "')");
    }
  }
  if (!(spec.ratio != 0.0 && std::isfinite(spec.ratio))) {
    throw InvalidArgument(where + ": ratio must be finite and nonzero (got " + std::to_string(spec.ratio) + ")");
  }
  if (!std::isfinite(spec.offset)) throw InvalidArgument(where + ": offset must be finite");
  if (!name.empty()) {
    if (w.couplerNames.count(name) != 0) throw TopologyError(where + ": the name is taken by another joint coupler");
    if (name.find('/') != std::string::npos) throw InvalidArgument(where + ": the name must not contain '/'");
  }
  detail::CouplerRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.name = name.empty() ? WorldImpl::uniqueName(w.couplerNames, "joint_coupler") : name;
  rec.leader = spec.leader.m_index;
  rec.leaderGeneration = spec.leader.m_generation;
  rec.follower = spec.follower.m_index;
  rec.followerGeneration = spec.follower.m_generation;
  rec.ratio = spec.ratio;
  rec.offset = spec.offset;
  const auto slot = static_cast<std::uint32_t>(w.couplers.size());
  w.couplerNames[rec.name] = slot;
  w.couplers.push_back(std::move(rec));
  return JointCoupler(this, slot, w.couplers[slot].generation);
}

std::optional<JointCoupler> World::getJointCoupler(const std::string& name) const {
  return findHandle(m_impl->couplerNames, m_impl->couplers, name,
                    [this](std::uint32_t s, std::uint32_t g) { return JointCoupler(const_cast<World*>(this), s, g); });
}

bool World::hasJointCoupler(const std::string& name) const {
  return m_impl->couplerNames.count(name) != 0;
}

std::size_t World::numJointCouplers() const {
  return m_impl->couplerNames.size();
}

std::vector<JointCoupler> World::getJointCouplers() const {
  return liveHandles(m_impl->couplers,
                     [this](std::uint32_t s, std::uint32_t g) { return JointCoupler(const_cast<World*>(this), s, g); });
}

void World::remove(const JointCoupler& coupler) {
  auto& w = *m_impl;
  if (coupler.m_world != this) throw TopologyError("the joint coupler belongs to another World");
  auto& rec = w.coupler(coupler.m_index, coupler.m_generation);
  w.requireDesignMode("remove a joint coupler");
  rec.alive = false;
  w.couplerNames.erase(rec.name);
}

ClosureProjectionResult World::projectClosures(const ClosureProjectionOptions& options) {
  auto& w = *m_impl;
  w.requireUnlocked("project closures");
  if (!(options.tolerance > 0.0) || !std::isfinite(options.tolerance)) {
    throw InvalidArgument("projectClosures: tolerance must be finite and > 0 (got " +
                          std::to_string(options.tolerance) + ")");
  }
  if (options.maxIterations < 1) throw InvalidArgument("projectClosures: maxIterations must be at least 1");
  w.ensureModel();
  auto& locked = w.projection.lockedBodies;
  locked.clear();
  for (const Joint& j : options.lockedJoints) {
    if (j.m_world == nullptr) throw InvalidHandle("projectClosures: invalid locked Joint handle (default-constructed)");
    if (j.m_world != this) throw TopologyError("projectClosures: locked joint belongs to another World");
    w.link(j.m_index, j.m_generation);
    locked.push_back(w.linkBody[j.m_index]);
  }
  for (const RigidBody& b : options.lockedRigidBodies) {
    w.checkFrame(b);
    locked.push_back(w.rigidBodyBody[b.index()]);
  }
  return w.project(options, false, false);
}

// ---- LoopClosure handle ------------------------------------------------------

bool LoopClosure::isValid() const {
  return m_world != nullptr && liveSlot(implOf(m_world).closures, m_index, m_generation);
}

std::string LoopClosure::name() const {
  return closureOf(m_world, m_index, m_generation).name;
}

LoopClosureFamily LoopClosure::family() const {
  return closureOf(m_world, m_index, m_generation).family;
}

int LoopClosure::numRows() const {
  return numResidualRows(family());
}

LoopClosureSpec LoopClosure::getSpec() const {
  const auto& c = closureOf(m_world, m_index, m_generation);
  LoopClosureSpec s;
  s.frameA = detail::Access::frame(m_world, c.frameA.kind, c.frameA.index, c.frameA.generation);
  s.frameB = detail::Access::frame(m_world, c.frameB.kind, c.frameB.index, c.frameB.generation);
  if (c.frameA.kind == FrameKind::World) s.frameA = Frame::World();
  if (c.frameB.kind == FrameKind::World) s.frameB = Frame::World();
  s.family = c.family;
  s.offsetA = c.offsetA;
  s.offsetB = c.offsetB;
  s.length = c.length;
  return s;
}

LoopClosureRuntimePolicy LoopClosure::getRuntimePolicy() const {
  return closureOf(m_world, m_index, m_generation).policy;
}

void LoopClosure::setRuntimePolicy(const LoopClosureRuntimePolicy& policy) {
  applyPolicy(closureOf(m_world, m_index, m_generation), policy, "loop closure");
}

void LoopClosure::setEnabled(bool enabled) {
  closureOf(m_world, m_index, m_generation).policy.enabled = enabled;
}

bool LoopClosure::isEnabled() const {
  return closureOf(m_world, m_index, m_generation).policy.enabled;
}

double LoopClosure::computeResidualNorm() const {
  auto& w = liveImpl(m_world, "LoopClosure");
  const auto& c = w.closure(m_index, m_generation);
  w.ensurePositions();
  const int n = numResidualRows(c.family);
  std::array<detail::ClosureRow, 6> rows;
  w.closureRows(c, rows.data());
  double sum = 0.0;
  for (int i = 0; i < n; ++i)
    sum += rows[static_cast<std::size_t>(i)].residual * rows[static_cast<std::size_t>(i)].residual;
  return std::sqrt(sum);
}

LoopClosureResidual LoopClosure::computeResidual() const {
  auto& w = liveImpl(m_world, "LoopClosure");
  const auto& c = w.closure(m_index, m_generation);
  w.ensurePositions();
  const int n = numResidualRows(c.family);
  std::array<detail::ClosureRow, 6> rows;
  w.closureRows(c, rows.data());
  LoopClosureResidual out;
  out.residual.resize(n);
  for (int i = 0; i < n; ++i) out.residual[i] = rows[static_cast<std::size_t>(i)].residual;
  out.norm = out.residual.norm();
  out.enabled = c.policy.enabled;
  out.active = activePolicy(c.policy);
  out.forceAvailable = forceAvailable(w, c.solved);
  if (out.forceAvailable) {
    out.impulse = c.impulse;
    out.wrench = c.impulse / w.options.timeStep;
  }
  return out;
}

namespace {

Isometry3d endpoint(World* world, std::uint32_t index, std::uint32_t generation, bool b) {
  auto& w = liveImpl(world, "LoopClosure");
  const auto& c = w.closure(index, generation);
  w.ensurePositions();
  return w.endpointPose(c, b).toIsometry();
}

}  // namespace

Isometry3d LoopClosure::getEndpointA() const {
  return endpoint(m_world, m_index, m_generation, false);
}

Isometry3d LoopClosure::getEndpointB() const {
  return endpoint(m_world, m_index, m_generation, true);
}

// ---- JointCoupler handle -----------------------------------------------------

bool JointCoupler::isValid() const {
  return m_world != nullptr && liveSlot(implOf(m_world).couplers, m_index, m_generation);
}

std::string JointCoupler::name() const {
  return couplerOf(m_world, m_index, m_generation).name;
}

JointCouplerSpec JointCoupler::getSpec() const {
  const auto& c = couplerOf(m_world, m_index, m_generation);
  JointCouplerSpec s;
  s.leader = detail::Access::joint(m_world, c.leader, c.leaderGeneration);
  s.follower = detail::Access::joint(m_world, c.follower, c.followerGeneration);
  s.ratio = c.ratio;
  s.offset = c.offset;
  return s;
}

LoopClosureRuntimePolicy JointCoupler::getRuntimePolicy() const {
  return couplerOf(m_world, m_index, m_generation).policy;
}

void JointCoupler::setRuntimePolicy(const LoopClosureRuntimePolicy& policy) {
  applyPolicy(couplerOf(m_world, m_index, m_generation), policy, "joint coupler");
}

void JointCoupler::setEnabled(bool enabled) {
  couplerOf(m_world, m_index, m_generation).policy.enabled = enabled;
}

bool JointCoupler::isEnabled() const {
  return couplerOf(m_world, m_index, m_generation).policy.enabled;
}

JointCouplerResidual JointCoupler::computeResidual() const {
  auto& w = liveImpl(m_world, "JointCoupler");
  const auto& c = w.coupler(m_index, m_generation);
  w.ensureModel();
  JointCouplerResidual out;
  out.residual = w.couplerResidual(c);
  out.enabled = c.policy.enabled;
  out.active = activePolicy(c.policy);
  out.forceAvailable = forceAvailable(w, c.solved);
  if (out.forceAvailable) {
    out.impulse = c.impulse;
    out.force = c.impulse / w.options.timeStep;
  }
  return out;
}

}  // namespace articula

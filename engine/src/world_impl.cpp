#include "world_impl.hpp"

#include "joint_model.hpp"

#include <articula/joint_types.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>

namespace articula::detail {

namespace {

std::string kindName(FrameKind k) {
  switch (k) {
    case FrameKind::Link:
      return "link";
    case FrameKind::RigidBody:
      return "rigid body";
    case FrameKind::FreeFrame:
      return "free frame";
    case FrameKind::FixedFrame:
      return "fixed frame";
    case FrameKind::World:
      return "world frame";
    case FrameKind::None:
      return "invalid frame";
  }
  return "frame";
}

VectorXd perDof(const VectorXd& given, int nv, double fallback, const std::string& where, const char* field,
                bool nonNegative) {
  if (given.size() == 0) return VectorXd::Constant(nv, fallback);
  if (given.size() != nv) {
    std::ostringstream os;
    os << where << ": " << field << " has " << given.size() << " entries, expected " << nv
       << " (one per degree of freedom)";
    throw InvalidArgument(os.str());
  }
  for (int i = 0; i < nv; ++i) {
    if (std::isnan(given[i]) || (nonNegative && given[i] < 0.0)) {
      std::ostringstream os;
      os << where << ": " << field << "[" << i << "] = " << given[i] << " is invalid"
         << (nonNegative ? " (must be ≥ 0)" : "");
      throw InvalidArgument(os.str());
    }
  }
  return given;
}

Vector3d unitAxis(const Vector3d& a, const std::string& where, const char* field) {
  const double n = a.norm();
  if (!(n > 1e-12) || !a.allFinite()) {
    std::ostringstream os;
    os << where << ": " << field << " (" << a.transpose() << ") must be a non-zero finite vector";
    throw InvalidArgument(os.str());
  }
  // A vector that is unit to rounding stays as it is, so that normalizing is
  // idempotent (a saved axis reads back bit for bit).
  if (std::abs(n - 1.0) <= 4.0 * std::numeric_limits<double>::epsilon()) return a;
  return a / n;
}

}  // namespace

void checkIsometry(const Isometry3d& X, const std::string& where, const char* field) {
  const Matrix3d R = X.linear();
  if (!X.matrix().allFinite() || (R.transpose() * R - Matrix3d::Identity()).norm() > 1e-6 || R.determinant() < 0.0) {
    throw InvalidArgument(where + ": " + field + " is not a rigid transform (rotation must be orthonormal, det +1)");
  }
}

JointSpec normalizedJointSpec(const JointSpec& spec, const std::string& where) {
  JointSpec s = spec;
  const int nv = numDofs(s.type);
  checkIsometry(s.parentOffset, where, "parentOffset");
  checkIsometry(s.childOffset, where, "childOffset");
  const JointTypeInfo& info = jointTypeInfo(s.type);
  if (info.numAxes >= 1) s.axis = unitAxis(s.axis, where, "axis");
  if (info.numAxes >= 2) {
    s.axis2 = unitAxis(s.axis2, where, "axis2");
    if (s.axis.cross(s.axis2).norm() < 1e-6) {
      throw InvalidArgument(where + ": axis and axis2 must not be parallel");
    }
    if (s.type == JointType::Planar && std::abs(s.axis.dot(s.axis2)) > 1e-9) {
      throw InvalidArgument(where + ": planar joint axes must be orthogonal");
    }
  }
  if (!std::isfinite(s.pitch)) throw InvalidArgument(where + ": pitch must be finite");
  s.positionLowerLimits =
      perDof(s.positionLowerLimits, nv, -std::numeric_limits<double>::infinity(), where, "positionLowerLimits", false);
  s.positionUpperLimits =
      perDof(s.positionUpperLimits, nv, std::numeric_limits<double>::infinity(), where, "positionUpperLimits", false);
  for (int i = 0; i < nv; ++i) {
    if (s.positionLowerLimits[i] > s.positionUpperLimits[i]) {
      std::ostringstream os;
      os << where << ": positionLowerLimits[" << i << "] = " << s.positionLowerLimits[i]
         << " exceeds positionUpperLimits[" << i << "] = " << s.positionUpperLimits[i];
      throw InvalidArgument(os.str());
    }
  }
  s.velocityLimits =
      perDof(s.velocityLimits, nv, std::numeric_limits<double>::infinity(), where, "velocityLimits", true);
  s.effortLimits = perDof(s.effortLimits, nv, std::numeric_limits<double>::infinity(), where, "effortLimits", true);
  s.restPositions = perDof(s.restPositions, nv, 0.0, where, "restPositions", false);
  s.springStiffness = perDof(s.springStiffness, nv, 0.0, where, "springStiffness", true);
  s.damping = perDof(s.damping, nv, 0.0, where, "damping", true);
  s.armature = perDof(s.armature, nv, 0.0, where, "armature", true);
  s.coulombFriction = perDof(s.coulombFriction, nv, 0.0, where, "coulombFriction", true);
  if ((s.type == JointType::Ball || s.type == JointType::Free) && (s.springStiffness.array() != 0.0).any()) {
    throw InvalidArgument(where + ": spring stiffness is not available for " + std::string(toString(s.type)) +
                          " joints (their configuration is not a vector)");
  }
  return s;
}

void validateInertia(const Inertia& in, const std::string& where, bool requirePositiveMass) {
  std::ostringstream os;
  if (!std::isfinite(in.mass) || in.mass < 0.0 || (requirePositiveMass && in.mass <= 0.0)) {
    os << where << ": mass " << in.mass << " must be " << (requirePositiveMass ? "> 0" : "≥ 0");
    throw InvalidArgument(os.str());
  }
  if (!in.com.allFinite() || !in.rotational.allFinite()) throw InvalidArgument(where + ": inertia must be finite");
  if ((in.rotational - in.rotational.transpose()).norm() > 1e-9 * std::max(1.0, in.rotational.norm())) {
    throw InvalidArgument(where + ": rotational inertia must be symmetric");
  }
  Eigen::SelfAdjointEigenSolver<Matrix3d> es(in.rotational);
  const Vector3d ev = es.eigenvalues();
  const double tol = 1e-12 * std::max(1.0, ev.cwiseAbs().maxCoeff());
  if (ev.minCoeff() < -tol) {
    os << where << ": rotational inertia must be positive semi-definite (eigenvalues " << ev.transpose() << ")";
    throw InvalidArgument(os.str());
  }
  // Principal moments satisfy the triangle inequality for any real mass distribution.
  if (ev[0] + ev[1] < ev[2] - 1e-9 * std::max(1.0, ev[2])) {
    os << where << ": principal moments " << ev.transpose() << " violate the triangle inequality";
    throw InvalidArgument(os.str());
  }
}

WorldImpl::WorldImpl(World* s, const WorldOptions& o) : self(s), options(o) {
  directSolverOptions.method = "direct-pivoting";
}

void WorldImpl::requireUnlocked(const char* what) const {
  if (observing) {
    throw LifecycleError(std::string("cannot ") + what +
                         " from a step observer: the world is locked while a step calls its observers");
  }
}

void WorldImpl::requireDesignMode(const char* what) const {
  requireUnlocked(what);
  if (simulation) {
    throw LifecycleError(std::string("cannot ") + what +
                         " in simulation mode: topology is frozen; call resetToDesignMode() first");
  }
}

LinkRecord& WorldImpl::link(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= links.size() || !links[slot].alive || links[slot].generation != gen) {
    throw InvalidHandle(
        "invalid Link/Joint handle: the link was removed, the world was cleared, or the handle is default-constructed");
  }
  return links[slot];
}

MultibodyRecord& WorldImpl::multibody(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= multibodies.size() || !multibodies[slot].alive || multibodies[slot].generation != gen) {
    throw InvalidHandle(
        "invalid Multibody handle: the multibody was removed, the world was cleared, or the handle is "
        "default-constructed");
  }
  return multibodies[slot];
}

RigidBodyRecord& WorldImpl::rigidBody(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= rigidBodies.size() || !rigidBodies[slot].alive || rigidBodies[slot].generation != gen) {
    throw InvalidHandle(
        "invalid RigidBody handle: the body was removed, the world was cleared, or the handle is default-constructed");
  }
  return rigidBodies[slot];
}

UserFrameRecord& WorldImpl::userFrame(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= frames.size() || !frames[slot].alive || frames[slot].generation != gen) {
    throw InvalidHandle(
        "invalid frame handle: the frame was removed, the world was cleared, or the handle is default-constructed");
  }
  return frames[slot];
}

bool WorldImpl::frameAlive(const FrameRef& r) const {
  switch (r.kind) {
    case FrameKind::World:
      return true;
    case FrameKind::None:
      return false;
    case FrameKind::Link:
      return r.index < links.size() && links[r.index].alive && links[r.index].generation == r.generation;
    case FrameKind::RigidBody:
      return r.index < rigidBodies.size() && rigidBodies[r.index].alive &&
             rigidBodies[r.index].generation == r.generation;
    case FrameKind::FreeFrame:
    case FrameKind::FixedFrame:
      return r.index < frames.size() && frames[r.index].alive && frames[r.index].generation == r.generation &&
             frames[r.index].isFree == (r.kind == FrameKind::FreeFrame);
  }
  return false;
}

FrameRef WorldImpl::refOf(const Frame& f) const {
  return {f.kind(), f.index(), f.generation()};
}

void WorldImpl::checkFrame(const Frame& f) const {
  if (f.kind() == FrameKind::World) return;
  if (f.kind() == FrameKind::None) throw InvalidHandle("invalid Frame handle (default-constructed)");
  if (f.world() != self) {
    throw TopologyError("frame '" + (f.isValid() ? f.name() : std::string("?")) +
                        "' belongs to another World; frames cannot be used across worlds");
  }
  if (!frameAlive(refOf(f))) {
    throw InvalidHandle("invalid " + kindName(f.kind()) + " handle: the object was removed or the world was cleared");
  }
}

std::string WorldImpl::frameName(const FrameRef& r) const {
  switch (r.kind) {
    case FrameKind::World:
      return "world";
    case FrameKind::Link:
      return multibodies[links[r.index].multibody].name + "/" + links[r.index].name;
    case FrameKind::RigidBody:
      return rigidBodies[r.index].name;
    case FrameKind::FreeFrame:
    case FrameKind::FixedFrame:
      return frames[r.index].name;
    case FrameKind::None:
      break;
  }
  return {};
}

std::string WorldImpl::uniqueWorldName(const std::string& requested, const std::string& base) const {
  if (!requested.empty()) {
    if (requested.find('/') != std::string::npos) {
      throw InvalidArgument("name '" + requested + "' must not contain '/'");
    }
    if (worldNames.count(requested) != 0) {
      throw TopologyError("name '" + requested + "' is already used by another object of this world");
    }
    return requested;
  }
  if (worldNames.count(base) == 0) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (worldNames.count(candidate) == 0) return candidate;
  }
}

std::string WorldImpl::uniqueName(const std::map<std::string, std::uint32_t>& taken, const std::string& base) {
  if (taken.count(base) == 0) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (taken.count(candidate) == 0) return candidate;
  }
}

// ---------------------------------------------------------------------------
// Topology

std::uint64_t newWorldSerial() {
  static std::atomic<std::uint64_t> next{0};
  return ++next;
}

void WorldImpl::topologyChanged() {
  stepRecord.valid = false;  // sizes and indices of the last step no longer apply
  if (modelValid) {
    // Carry the runtime coordinates over into the records.
    for (std::uint32_t s = 0; s < links.size(); ++s) {
      auto& L = links[s];
      const int b = s < linkBody.size() ? linkBody[s] : -1;
      if (!L.alive || b < 0) continue;
      const auto bi = static_cast<std::size_t>(b);
      L.q = state.q.segment(model.jnt_qadr[bi], model.jnt_nq[bi]);
      L.v = state.v.segment(model.jnt_vadr[bi], model.jnt_nv[bi]);
      L.tau = state.tau.segment(model.jnt_vadr[bi], model.jnt_nv[bi]);
    }
    for (std::uint32_t s = 0; s < rigidBodies.size(); ++s) {
      auto& B = rigidBodies[s];
      const int b = s < rigidBodyBody.size() ? rigidBodyBody[s] : -1;
      if (!B.alive || b < 0) continue;
      const auto bi = static_cast<std::size_t>(b);
      B.q = state.q.segment(model.jnt_qadr[bi], 7);
      B.v = state.v.segment(model.jnt_vadr[bi], 6);
      B.tau = state.tau.segment(model.jnt_vadr[bi], 6);
    }
    for (int a = 0; a < model.nu && a < controls.size(); ++a) {
      auto& A = actuators[model.act_slot[static_cast<std::size_t>(a)]];
      A.control = controls[a];
      A.controlSet = controlSet[static_cast<std::size_t>(a)] != 0;
    }
  }
  modelValid = false;
}

void WorldImpl::ensureModel() {
  if (!modelValid) compile();
}

std::vector<std::uint32_t> WorldImpl::subtreeSlots(std::uint32_t root) const {
  std::vector<std::uint32_t> out;
  std::vector<std::uint32_t> stack{root};
  while (!stack.empty()) {
    const std::uint32_t s = stack.back();
    stack.pop_back();
    out.push_back(s);
    const auto& ch = links[s].children;
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

std::vector<std::uint32_t> WorldImpl::treeOrder(std::uint32_t mb) const {
  const int root = multibodies[mb].root;
  if (root < 0) return {};
  return subtreeSlots(static_cast<std::uint32_t>(root));
}

void WorldImpl::compile() {
  ++compileCount;
  Model m;
  m.gravity = options.gravity;
  linkBody.assign(links.size(), -1);
  rigidBodyBody.assign(rigidBodies.size(), -1);
  multibodyOwner.assign(multibodies.size(), -1);

  // Owners in creation order (generations increase monotonically).
  struct OwnerRef {
    std::uint32_t generation;
    OwnerKind kind;
    std::uint32_t slot;
  };
  std::vector<OwnerRef> owners;
  for (std::uint32_t s = 0; s < rigidBodies.size(); ++s)
    if (rigidBodies[s].alive) owners.push_back({rigidBodies[s].generation, OwnerKind::RigidBody, s});
  for (std::uint32_t s = 0; s < multibodies.size(); ++s)
    if (multibodies[s].alive) owners.push_back({multibodies[s].generation, OwnerKind::Multibody, s});
  std::sort(owners.begin(), owners.end(),
            [](const OwnerRef& a, const OwnerRef& b) { return a.generation < b.generation; });

  std::vector<const VectorXd*> initQ, initV, initTau;
  auto addBody = [&](int parent, int owner, std::uint32_t slot, const Inertia& in, const JointSpec& js,
                     const VectorXd* q, const VectorXd* v, const VectorXd* tau) {
    m.body_parent.push_back(parent);
    m.body_owner.push_back(owner);
    m.body_slot.push_back(slot);
    m.body_mass.push_back(in.mass);
    m.body_com.push_back(in.com);
    const Matrix3d rotational = conditionedRotationalInertia(in.rotational);
    m.body_inertiaCom.push_back(rotational);
    m.body_inertia.push_back(spatialInertia(in.mass, in.com, rotational));
    m.jnt_type.push_back(js.type);
    const int nq = numPositions(js.type);
    const int nv = numDofs(js.type);
    m.jnt_qadr.push_back(m.nq);
    m.jnt_nq.push_back(nq);
    m.jnt_vadr.push_back(m.nv);
    m.jnt_nv.push_back(nv);
    m.jnt_parentOffset.push_back(SE3::fromIsometry(js.parentOffset));
    m.jnt_childOffset.push_back(SE3::fromIsometry(js.childOffset));
    std::array<Vector3d, 3> axes{js.axis, js.axis2, js.axis.cross(js.axis2)};
    if (js.type == JointType::Euler) axes = eulerAxes(js.eulerOrder);
    if (js.type == JointType::Planar) axes[2] = js.axis.cross(js.axis2).normalized();
    m.jnt_axes.push_back(axes);
    m.jnt_pitch.push_back(js.pitch);
    m.jnt_constantS.push_back(jointTypeInfo(js.type).constantMotionSubspace);
    for (int k = 0; k < nv; ++k) m.dof_body.push_back(m.nbody);
    initQ.push_back(q);
    initV.push_back(v);
    initTau.push_back(tau);
    m.nq += nq;
    m.nv += nv;
    return m.nbody++;
  };

  std::vector<JointSpec> specs;  // per body, for per-DoF parameters
  const JointSpec freeSpec = normalizedJointSpec(JointSpec::free(), "rigid body");
  for (const auto& o : owners) {
    const int owner = static_cast<int>(m.owner_kind.size());
    m.owner_kind.push_back(o.kind);
    m.owner_slot.push_back(o.slot);
    m.owner_bodyadr.push_back(m.nbody);
    m.owner_qadr.push_back(m.nq);
    m.owner_vadr.push_back(m.nv);
    if (o.kind == OwnerKind::RigidBody) {
      const auto& B = rigidBodies[o.slot];
      rigidBodyBody[o.slot] = addBody(-1, owner, o.slot, B.inertia, freeSpec, &B.q, &B.v, &B.tau);
      specs.push_back(freeSpec);
    } else {
      multibodyOwner[o.slot] = owner;
      for (std::uint32_t s : treeOrder(o.slot)) {
        const auto& L = links[s];
        const int parent = L.parent < 0 ? -1 : linkBody[static_cast<std::size_t>(L.parent)];
        linkBody[s] = addBody(parent, owner, s, L.inertia, L.joint, &L.q, &L.v, &L.tau);
        specs.push_back(L.joint);
      }
    }
    m.owner_nbody.push_back(m.nbody - m.owner_bodyadr.back());
    m.owner_nq.push_back(m.nq - m.owner_qadr.back());
    m.owner_nv.push_back(m.nv - m.owner_vadr.back());
  }

  m.dof_armature.resize(m.nv);
  m.dof_damping.resize(m.nv);
  m.dof_stiffness.resize(m.nv);
  m.dof_restPosition.resize(m.nv);
  State st;
  st.q.resize(m.nq);
  st.v = VectorXd::Zero(m.nv);
  st.vdot = VectorXd::Zero(m.nv);
  st.tau = VectorXd::Zero(m.nv);
  st.fext.assign(static_cast<std::size_t>(m.nbody), Vector6d::Zero());
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const JointSpec& js = specs[b];
    const int va = m.jnt_vadr[b];
    const int nv = m.jnt_nv[b];
    const int qa = m.jnt_qadr[b];
    const int nq = m.jnt_nq[b];
    m.dof_armature.segment(va, nv) = js.armature;
    m.dof_damping.segment(va, nv) = js.damping;
    m.dof_stiffness.segment(va, nv) = js.springStiffness;
    m.dof_restPosition.segment(va, nv) = js.restPositions;
    if (initQ[b]->size() == nq) {
      st.q.segment(qa, nq) = *initQ[b];
    } else {
      jointNeutral(js.type, st.q.data() + qa);
    }
    if (initV[b]->size() == nv) st.v.segment(va, nv) = *initV[b];
    if (initTau[b]->size() == nv) st.tau.segment(va, nv) = *initTau[b];
  }
  m.anySpringOrDamper = (m.dof_damping.array() != 0.0).any() || (m.dof_stiffness.array() != 0.0).any();

  // Joint constraints and collision data.
  constexpr double inf = std::numeric_limits<double>::infinity();
  m.dof_lowerLimit = VectorXd::Constant(m.nv, -inf);
  m.dof_upperLimit = VectorXd::Constant(m.nv, inf);
  m.dof_velocityLimit = VectorXd::Constant(m.nv, inf);
  m.dof_effortLimit = VectorXd::Constant(m.nv, inf);
  m.dof_coulombFriction = VectorXd::Zero(m.nv);
  m.body_movable.assign(static_cast<std::size_t>(m.nbody), 0);
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const JointSpec& js = specs[b];
    const int va = m.jnt_vadr[b];
    const int nv = m.jnt_nv[b];
    const int p = m.body_parent[b];
    m.body_movable[b] = (nv > 0 || (p >= 0 && m.body_movable[static_cast<std::size_t>(p)])) ? 1 : 0;
    if (js.type == JointType::Free) m.freeJointBodies.push_back(i);
    if (m.jnt_nq[b] == nv) {
      m.dof_lowerLimit.segment(va, nv) = js.positionLowerLimits;
      m.dof_upperLimit.segment(va, nv) = js.positionUpperLimits;
    }
    m.dof_velocityLimit.segment(va, nv) = js.velocityLimits;
    m.dof_effortLimit.segment(va, nv) = js.effortLimits;
    m.dof_coulombFriction.segment(va, nv) = js.coulombFriction;
  }
  for (int k = 0; k < m.nv; ++k) {
    if (std::isfinite(m.dof_lowerLimit[k]) || std::isfinite(m.dof_upperLimit[k])) m.limitDofs.push_back(k);
    if (std::isfinite(m.dof_velocityLimit[k])) m.velocityLimitDofs.push_back(k);
    if (m.dof_coulombFriction[k] > 0.0) m.frictionDofs.push_back(k);
    if (std::isfinite(m.dof_effortLimit[k])) m.anyEffortLimit = true;
  }
  for (std::size_t o = 0; o < m.owner_kind.size(); ++o) {
    if (m.owner_nbody[o] > 1) m.chainOwners.push_back(static_cast<int>(o));
    const bool selfColl = m.owner_kind[o] == OwnerKind::Multibody && multibodies[m.owner_slot[o]].selfCollision;
    m.owner_selfCollision.push_back(selfColl ? 1 : 0);
  }
  compileShapes(m);
  compileActuators(m);
  st.act_integral = VectorXd::Zero(m.nu);
  st.act_lockTarget = VectorXd::Constant(m.nu, std::numeric_limits<double>::quiet_NaN());
  m.anyVaryingMotionSubspace =
      std::find(m.jnt_constantS.begin(), m.jnt_constantS.end(), false) != m.jnt_constantS.end();
  computeWeldGroupInertias(m);

  const double time = state.time;
  const std::uint64_t frame = state.frameIndex;
  model = std::move(m);
  // Closure and coupler warm starts carry over a recompile, like the records.
  st.closures = std::move(state.closures);
  st.couplers = std::move(state.couplers);
  st.closures.resize(closures.size());
  st.couplers.resize(couplers.size());
  state = std::move(st);
  state.time = time;
  state.frameIndex = frame;
  data.resize(model);
  modelValid = true;
  collisionValid = false;
  contacts.clear();
  touchPositions();
}

void WorldImpl::validate() const {
  for (const auto& mb : multibodies) {
    if (!mb.alive) continue;
    if (mb.root < 0) throw TopologyError("multibody '" + mb.name + "' has no links; add a root link or remove it");
  }
  for (const auto& B : rigidBodies) {
    if (!B.alive) continue;
    try {
      validateInertia(B.inertia, "rigid body '" + B.name + "'", true);
    } catch (const InvalidArgument& e) {
      throw TopologyError(e.what());
    }
  }
  // A subtree whose DoFs carry no mass makes the mass matrix singular.
  for (std::uint32_t mbSlot = 0; mbSlot < multibodies.size(); ++mbSlot) {
    const auto& mb = multibodies[mbSlot];
    if (!mb.alive) continue;
    const auto order = treeOrder(mbSlot);
    std::map<std::uint32_t, double> subtreeMass;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const auto& L = links[*it];
      double mass = L.inertia.mass;
      for (auto c : L.children) mass += subtreeMass[c];
      subtreeMass[*it] = mass;
      const bool hasArmature = L.joint.armature.size() > 0 && (L.joint.armature.array() > 0.0).all();
      if (numDofs(L.joint.type) > 0 && mass <= 0.0 && !hasArmature) {
        throw TopologyError("multibody '" + mb.name + "': joint '" + L.joint.name + "' moves link '" + L.name +
                            "' whose subtree has no mass (the mass matrix would be singular)");
      }
    }
  }
}

std::uint32_t WorldImpl::createLink(std::uint32_t mbSlot, int parentLink, const LinkOptions& linkOptions,
                                    const JointSpec& jointIn) {
  auto& mb = multibodies[mbSlot];
  const std::string where = "multibody '" + mb.name + "'";
  std::string name = linkOptions.name;
  if (!name.empty()) {
    if (mb.linkByName.count(name) != 0) throw TopologyError(where + ": a link named '" + name + "' already exists");
  } else {
    name = uniqueName(mb.linkByName, "link");
  }
  std::string jname = jointIn.name;
  if (!jname.empty()) {
    if (mb.jointByName.count(jname) != 0) throw TopologyError(where + ": a joint named '" + jname + "' already exists");
  } else {
    jname = uniqueName(mb.jointByName, "joint");
  }
  validateInertia(linkOptions.inertia, where + ", link '" + name + "'", false);
  JointSpec js = normalizedJointSpec(jointIn, where + ", joint '" + jname + "'");
  js.name = jname;

  topologyChanged();
  LinkRecord rec;
  rec.alive = true;
  rec.generation = newGeneration();
  rec.name = name;
  rec.multibody = mbSlot;
  rec.parent = parentLink;
  rec.inertia = linkOptions.inertia;
  rec.joint = js;
  const auto slot = static_cast<std::uint32_t>(links.size());
  links.push_back(std::move(rec));
  if (parentLink < 0) {
    mb.root = static_cast<int>(slot);
  } else {
    links[static_cast<std::size_t>(parentLink)].children.push_back(slot);
  }
  mb.linkByName[name] = slot;
  mb.jointByName[jname] = slot;
  return slot;
}

void WorldImpl::removeUserFramesAttachedTo(FrameKind kind, std::uint32_t index) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::uint32_t s = 0; s < frames.size(); ++s) {
      auto& F = frames[s];
      if (!F.alive) continue;
      const bool attached = (F.parent.kind == kind && F.parent.index == index) || !frameAlive(F.parent);
      if (attached) {
        F.alive = false;
        worldNames.erase(F.name);
        changed = true;
      }
    }
  }
}

void WorldImpl::destroyLinkSubtree(std::uint32_t slot) {
  const auto slots = subtreeSlots(slot);
  auto& L = links[slot];
  auto& mb = multibodies[L.multibody];
  if (L.parent >= 0) {
    auto& ch = links[static_cast<std::size_t>(L.parent)].children;
    ch.erase(std::remove(ch.begin(), ch.end(), slot), ch.end());
  } else {
    mb.root = -1;
  }
  for (auto s : slots) {
    auto& r = links[s];
    mb.linkByName.erase(r.name);
    mb.jointByName.erase(r.joint.name);
    r.alive = false;
    r.children.clear();
  }
  for (auto s : slots) removeUserFramesAttachedTo(FrameKind::Link, s);
  removeOrphanedShapes();
  removeOrphanedClosures();
}

// ---------------------------------------------------------------------------
// Caches

void WorldImpl::ensurePositions() {
  ensureModel();
  if (fkPosAt != qVersion) {
    forwardKinematicsPositions(model, state.q, data);
    fkPosAt = qVersion;
  }
}

void WorldImpl::ensureVelocities() {
  ensurePositions();
  if (fkVelAt != vVersion) {
    forwardKinematicsVelocities(model, state.q, state.v, data);
    fkVelAt = vVersion;
  }
}

void WorldImpl::ensureAccelerations() {
  ensureVelocities();
  if (fkAccAt != aVersion) {
    forwardKinematicsAccelerations(model, state.v, state.vdot, data);
    fkAccAt = aVersion;
  }
}

int WorldImpl::bodyOfLink(std::uint32_t slot) {
  ensureModel();
  return linkBody[slot];
}

int WorldImpl::bodyOfRigidBody(std::uint32_t slot) {
  ensureModel();
  return rigidBodyBody[slot];
}

int WorldImpl::ownerOfMultibody(std::uint32_t slot) {
  ensureModel();
  return multibodyOwner[slot];
}

FrameMotion WorldImpl::frameMotion(const FrameRef& r, bool velocity, bool acceleration) {
  FrameMotion fm;
  switch (r.kind) {
    case FrameKind::World:
    case FrameKind::None:
      return fm;
    case FrameKind::Link:
    case FrameKind::RigidBody: {
      if (acceleration) {
        ensureAccelerations();
      } else if (velocity) {
        ensureVelocities();
      } else {
        ensurePositions();
      }
      const int body = r.kind == FrameKind::Link ? linkBody[r.index] : rigidBodyBody[r.index];
      const auto b = static_cast<std::size_t>(body);
      fm.X_WF = data.X_WB[b];
      if (velocity || acceleration) fm.V = data.V[b];
      if (acceleration) fm.A = data.A[b];
      return fm;
    }
    case FrameKind::FreeFrame:
    case FrameKind::FixedFrame: {
      const auto& F = frames[r.index];
      const FrameMotion P = frameMotion(F.parent, velocity, acceleration);
      fm.X_WF = P.X_WF * F.X_PF;
      // V_F = X_FP V_P + V_rel; A_F = X_FP A_P + V_F × V_rel + A_rel.
      fm.V = F.X_PF.invActMotion(P.V) + F.V_rel;
      fm.A = F.X_PF.invActMotion(P.A) + crossMotion(fm.V, F.V_rel) + F.A_rel;
      return fm;
    }
  }
  return fm;
}

void computeWeldGroupInertias(Model& m) {
  m.body_groupInertia = m.body_inertia;
  // Children come after their parents: accumulating backwards adds each
  // group into the body it is welded to once it is complete.
  for (int i = m.nbody - 1; i >= 0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int p = m.body_parent[b];
    if (p < 0 || m.jnt_type[b] != JointType::Weld) continue;
    const SE3 X_PB = m.jnt_parentOffset[b] * m.jnt_childOffset[b].inverse();
    m.body_groupInertia[static_cast<std::size_t>(p)] += transformInertia(X_PB, m.body_groupInertia[b]);
  }
}

}  // namespace articula::detail

// Loop closures and joint couplers, the records: anchors, endpoint poses,
// the residual rows of every closure family with their directions, coupler
// residuals, endpoint checks and the collision filters closures imply.
// See articula/loop_closure.hpp and docs/loop-closures.md.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <articula/limits.hpp>

namespace articula {

namespace {

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
}  // namespace detail
}  // namespace articula

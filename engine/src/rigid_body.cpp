// RigidBody handle: a free body stored as a Free-joint segment.
#include "world_impl.hpp"

#include <articula/conventions.hpp>
#include <articula/rigid_body.hpp>

namespace articula {

namespace {

struct BodyAccess {
  detail::WorldImpl& w;
  std::size_t body;
};

BodyAccess access(const RigidBody& rb) {
  if (rb.kind() != FrameKind::RigidBody || rb.world() == nullptr) throw InvalidHandle("invalid RigidBody handle");
  auto& w = detail::implOf(rb.world());
  w.rigidBody(rb.index(), rb.generation());
  return {w, static_cast<std::size_t>(w.bodyOfRigidBody(rb.index()))};
}

}  // namespace

Inertia RigidBody::getInertia() const {
  auto a = access(*this);
  return a.w.rigidBodies[m_index].inertia;
}

void RigidBody::setInertia(const Inertia& inertia) {
  auto a = access(*this);
  detail::validateInertia(inertia, "rigid body '" + name() + "'", a.w.simulation);
  a.w.rigidBodies[m_index].inertia = inertia;
  auto& m = a.w.model;
  m.body_mass[a.body] = inertia.mass;
  m.body_com[a.body] = inertia.com;
  m.body_inertiaCom[a.body] = detail::conditionedRotationalInertia(inertia.rotational);
  m.body_inertia[a.body] = detail::spatialInertia(inertia.mass, inertia.com, m.body_inertiaCom[a.body]);
  detail::computeWeldGroupInertias(m);
  a.w.touchAccelerations();
}

double RigidBody::getMass() const {
  return getInertia().mass;
}

Isometry3d RigidBody::getPose() const {
  return getWorldTransform();
}

void RigidBody::setPose(const Isometry3d& X_WB) {
  auto a = access(*this);
  a.w.requireUnlocked("set a pose");
  const Matrix3d R = X_WB.linear();
  if (!X_WB.matrix().allFinite() || (R.transpose() * R - Matrix3d::Identity()).norm() > 1e-6) {
    throw InvalidArgument("RigidBody::setPose: not a rigid transform");
  }
  a.w.state.q.segment<7>(a.w.model.jnt_qadr[a.body]) = freeJointPositions(X_WB);
  a.w.touchPositions();
}

Vector3d RigidBody::getLinearVelocityWorld() const {
  return getLinearVelocity();
}

Vector3d RigidBody::getAngularVelocityWorld() const {
  return getAngularVelocity();
}

void RigidBody::setVelocityWorld(const Vector3d& linear, const Vector3d& angular) {
  auto a = access(*this);
  a.w.requireUnlocked("set a velocity");
  if (!linear.allFinite() || !angular.allFinite())
    throw InvalidArgument("RigidBody::setVelocityWorld: non-finite value");
  Vector6d Vw;
  Vw << angular, linear;
  a.w.state.v.segment<6>(a.w.model.jnt_vadr[a.body]) = freeJointVelocityFromWorld(getPose(), Vw);
  a.w.touchVelocities();
}

void RigidBody::addExternalForce(const Vector3d& force, const Vector3d& offset, bool forceInWorld, bool offsetInWorld) {
  auto a = access(*this);
  a.w.ensurePositions();
  const auto& X = a.w.data.X_WB[a.body];
  const Vector3d f = forceInWorld ? Vector3d(X.R.transpose() * force) : force;
  const Vector3d r = offsetInWorld ? Vector3d(X.R.transpose() * (offset - X.p)) : offset;
  auto& w6 = a.w.state.fext[a.body];
  w6.head<3>() += r.cross(f);
  w6.tail<3>() += f;
}

void RigidBody::addExternalTorque(const Vector3d& torque, bool inWorld) {
  auto a = access(*this);
  a.w.ensurePositions();
  const auto& X = a.w.data.X_WB[a.body];
  a.w.state.fext[a.body].head<3>() += inWorld ? Vector3d(X.R.transpose() * torque) : torque;
}

void RigidBody::clearExternalForces() {
  auto a = access(*this);
  a.w.state.fext[a.body].setZero();
}

double RigidBody::computeKineticEnergy() const {
  auto a = access(*this);
  a.w.ensureVelocities();
  const int b = static_cast<int>(a.body);
  return detail::kineticEnergy(a.w.model, a.w.data, a.w.state.v, b, b + 1);
}

Vector3d RigidBody::getLinearMomentum() const {
  auto a = access(*this);
  const Inertia in = a.w.rigidBodies[m_index].inertia;
  return in.mass * getLinearVelocity(in.com, Frame::World(), Frame::World());
}

Vector3d RigidBody::getAngularMomentum(const Vector3d& point) const {
  auto a = access(*this);
  a.w.ensureVelocities();
  const auto& X = a.w.data.X_WB[a.body];
  const Inertia in = a.w.rigidBodies[m_index].inertia;
  const Vector3d c = X.transformPoint(in.com);
  const Vector3d omega = getAngularVelocity();
  const Vector3d vc = getLinearVelocity(in.com, Frame::World(), Frame::World());
  return X.R * in.rotational * X.R.transpose() * omega + (c - point).cross(in.mass * vc);
}

}  // namespace articula

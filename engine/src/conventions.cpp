// Free-joint conventions (docs/conventions.md). The free-joint velocity is
// the body twist v = [ω_B; v_B]: angular velocity and velocity of the body
// origin, both in body coordinates.
#include <articula/conventions.hpp>

#include "spatial.hpp"

namespace articula {

Isometry3d freeJointTransform(const Eigen::Matrix<double, 7, 1>& q) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = detail::quatToRotation(q.data() + 3);
  X.translation() = q.head<3>();
  return X;
}

Eigen::Matrix<double, 7, 1> freeJointPositions(const Isometry3d& X_WB) {
  Eigen::Matrix<double, 7, 1> q;
  q.head<3>() = X_WB.translation();
  detail::rotationToQuat(X_WB.linear(), q.data() + 3);
  return q;
}

Vector6d freeJointVelocityToWorld(const Isometry3d& X_WB, const Vector6d& v) {
  const Matrix3d R = X_WB.linear();
  Vector6d out;
  out.head<3>() = R * v.head<3>();
  out.tail<3>() = R * v.tail<3>();
  return out;
}

Vector6d freeJointVelocityFromWorld(const Isometry3d& X_WB, const Vector6d& Vw) {
  const Matrix3d R = X_WB.linear();
  Vector6d out;
  out.head<3>() = R.transpose() * Vw.head<3>();
  out.tail<3>() = R.transpose() * Vw.tail<3>();
  return out;
}

Vector6d freeJointForceFromWorld(const Isometry3d& X_WB, const Vector6d& Fw) {
  // V_w = blockdiag(R, R) v, so F = blockdiag(Rᵀ, Rᵀ) F_w.
  return freeJointVelocityFromWorld(X_WB, Fw);
}

Vector6d freeJointVelocityToSpatial(const Isometry3d& X_WB, const Vector6d& v) {
  return detail::SE3::fromIsometry(X_WB).actMotion(v);
}

Vector6d freeJointForceFromSpatial(const Isometry3d& X_WB, const Vector6d& Fs) {
  // The spatial twist is Ad_X v, so the generalized force is Ad_Xᵀ Fs = X*⁻¹ Fs.
  return detail::SE3::fromIsometry(X_WB).invActForce(Fs);
}

}  // namespace articula

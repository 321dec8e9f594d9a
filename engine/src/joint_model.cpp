#include "joint_model.hpp"

#include <articula/error.hpp>

#include <cmath>

namespace articula::detail {

namespace {

Matrix3d axisRotation(const Vector3d& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis).toRotationMatrix();
}

// Chained rotations R = R_1(θ_1) ⋯ R_n(θ_n) about unit axes a_k. In the
// final frame the k-th column of S is s_k = (R_{k+1} ⋯ R_n)ᵀ a_k and
// ṡ_k = s_k × Σ_{j>k} s_j θ̇_j (derivative of the trailing rotations).
template <int N>
void chainedRotationSubspace(const std::array<Vector3d, 3>& axes, const double* q, Eigen::Ref<Matrix6Xd> S) {
  Matrix3d trailing = Matrix3d::Identity();  // (R_{k+1} ⋯ R_n)ᵀ
  for (int k = N - 1; k >= 0; --k) {
    S.col(k).head<3>() = trailing * axes[static_cast<std::size_t>(k)];
    S.col(k).tail<3>().setZero();
    trailing = trailing * axisRotation(axes[static_cast<std::size_t>(k)], q[k]).transpose();
  }
}

template <int N>
void chainedRotationSubspaceDot(const std::array<Vector3d, 3>& axes, const double* q, const double* v,
                                Eigen::Ref<Matrix6Xd> Sdot) {
  Eigen::Matrix<double, 6, N> S;
  chainedRotationSubspace<N>(axes, q, S);
  Vector3d trailingOmega = Vector3d::Zero();  // Σ_{j>k} s_j θ̇_j
  for (int k = N - 1; k >= 0; --k) {
    Sdot.col(k).head<3>() = S.col(k).template head<3>().cross(trailingOmega);
    Sdot.col(k).tail<3>().setZero();
    trailingOmega += S.col(k).template head<3>() * v[k];
  }
}

// Quaternion (x, y, z, w) product a ⊗ b.
void quatMultiply(const double* a, const double* b, double* out) {
  const double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  const double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  const double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  const double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
}

// q ← q ⊗ exp(h·ω/2) for a body-frame angular velocity ω.
void quatIntegrate(const double* q, const double* w, double h, double* out) {
  const Vector3d phi = h * Vector3d(w[0], w[1], w[2]);
  const double angle = phi.norm();
  double dq[4];
  if (angle < 1e-12) {
    dq[0] = 0.5 * phi.x();
    dq[1] = 0.5 * phi.y();
    dq[2] = 0.5 * phi.z();
    dq[3] = 1.0 - angle * angle / 8.0;
  } else {
    const double s = std::sin(0.5 * angle) / angle;
    dq[0] = s * phi.x();
    dq[1] = s * phi.y();
    dq[2] = s * phi.z();
    dq[3] = std::cos(0.5 * angle);
  }
  double r[4];
  quatMultiply(q, dq, r);
  const double n = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
  for (int i = 0; i < 4; ++i) out[i] = r[i] / n;
}

// q̇ = ½ q ⊗ (ω, 0).
void quatDerivative(const double* q, const double* w, double* out) {
  const double pure[4] = {w[0], w[1], w[2], 0.0};
  quatMultiply(q, pure, out);
  for (int i = 0; i < 4; ++i) out[i] *= 0.5;
}

void normalizeQuat(double* q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0.0) {
    for (int i = 0; i < 4; ++i) q[i] /= n;
  } else {
    q[0] = q[1] = q[2] = 0.0;
    q[3] = 1.0;
  }
}

}  // namespace

std::array<Vector3d, 3> eulerAxes(EulerOrder order) {
  const Vector3d X = Vector3d::UnitX();
  const Vector3d Y = Vector3d::UnitY();
  const Vector3d Z = Vector3d::UnitZ();
  switch (order) {
    case EulerOrder::XYZ:
      return {X, Y, Z};
    case EulerOrder::ZYX:
      return {Z, Y, X};
    case EulerOrder::ZYZ:
      return {Z, Y, Z};
    case EulerOrder::XZY:
      return {X, Z, Y};
    case EulerOrder::YXZ:
      return {Y, X, Z};
    case EulerOrder::YZX:
      return {Y, Z, X};
    case EulerOrder::ZXY:
      return {Z, X, Y};
  }
  return {X, Y, Z};
}

SE3 jointTransform(const Model& m, int j, const double* q) {
  const auto& ax = m.jnt_axes[static_cast<std::size_t>(j)];
  switch (m.jnt_type[static_cast<std::size_t>(j)]) {
    case JointType::Weld:
      return SE3::identity();
    case JointType::Revolute:
      return {axisRotation(ax[0], q[0]), Vector3d::Zero()};
    case JointType::Prismatic:
      return {Matrix3d::Identity(), ax[0] * q[0]};
    case JointType::Screw:
      return {axisRotation(ax[0], q[0]), ax[0] * (m.jnt_pitch[static_cast<std::size_t>(j)] * q[0])};
    case JointType::Universal:
      return {axisRotation(ax[0], q[0]) * axisRotation(ax[1], q[1]), Vector3d::Zero()};
    case JointType::Ball:
      return {quatToRotation(q), Vector3d::Zero()};
    case JointType::Euler:
      return {axisRotation(ax[0], q[0]) * axisRotation(ax[1], q[1]) * axisRotation(ax[2], q[2]), Vector3d::Zero()};
    case JointType::Planar:
      // Translation in the plane of axes[0], axes[1], then rotation about axes[2] = normal.
      return {axisRotation(ax[2], q[2]), ax[0] * q[0] + ax[1] * q[1]};
    case JointType::Translational:
      return {Matrix3d::Identity(), Vector3d(q[0], q[1], q[2])};
    case JointType::Free:
      return {quatToRotation(q + 3), Vector3d(q[0], q[1], q[2])};
  }
  return SE3::identity();
}

void jointMotionSubspace(const Model& m, int j, const double* q, Eigen::Ref<Matrix6Xd> S) {
  const auto& ax = m.jnt_axes[static_cast<std::size_t>(j)];
  S.setZero();
  switch (m.jnt_type[static_cast<std::size_t>(j)]) {
    case JointType::Weld:
      break;
    case JointType::Revolute:
      S.col(0).head<3>() = ax[0];
      break;
    case JointType::Prismatic:
      S.col(0).tail<3>() = ax[0];
      break;
    case JointType::Screw:
      S.col(0).head<3>() = ax[0];
      S.col(0).tail<3>() = ax[0] * m.jnt_pitch[static_cast<std::size_t>(j)];
      break;
    case JointType::Universal:
      chainedRotationSubspace<2>(ax, q, S);
      break;
    case JointType::Ball:
      S.topRows<3>().setIdentity();
      break;
    case JointType::Euler:
      chainedRotationSubspace<3>(ax, q, S);
      break;
    case JointType::Planar: {
      // Body velocity: ω = n θ̇, v = Rᵀ (e1 ẋ + e2 ẏ).
      const Matrix3d Rt = axisRotation(ax[2], q[2]).transpose();
      S.col(0).tail<3>() = Rt * ax[0];
      S.col(1).tail<3>() = Rt * ax[1];
      S.col(2).head<3>() = ax[2];
      break;
    }
    case JointType::Translational:
      S.bottomRows<3>().setIdentity();
      break;
    case JointType::Free:
      S.setIdentity();
      break;
  }
}

void jointMotionSubspaceDot(const Model& m, int j, const double* q, const double* v, Eigen::Ref<Matrix6Xd> Sdot) {
  const auto& ax = m.jnt_axes[static_cast<std::size_t>(j)];
  Sdot.setZero();
  switch (m.jnt_type[static_cast<std::size_t>(j)]) {
    case JointType::Universal:
      chainedRotationSubspaceDot<2>(ax, q, v, Sdot);
      break;
    case JointType::Euler:
      chainedRotationSubspaceDot<3>(ax, q, v, Sdot);
      break;
    case JointType::Planar: {
      // d/dt(Rᵀ e) = −θ̇ n × (Rᵀ e).
      const Matrix3d Rt = axisRotation(ax[2], q[2]).transpose();
      Sdot.col(0).tail<3>() = -v[2] * ax[2].cross(Rt * ax[0]);
      Sdot.col(1).tail<3>() = -v[2] * ax[2].cross(Rt * ax[1]);
      break;
    }
    default:
      break;
  }
}

void jointIntegrate(JointType type, const double* q, const double* v, double h, double* qOut) {
  switch (type) {
    case JointType::Weld:
      break;
    case JointType::Ball:
      quatIntegrate(q, v, h, qOut);
      break;
    case JointType::Free: {
      // p ← p + h R v_B (body-frame linear velocity), R ← R exp(h ω_B).
      const Matrix3d R = quatToRotation(q + 3);
      const Vector3d dp = R * Vector3d(v[3], v[4], v[5]);
      for (int i = 0; i < 3; ++i) qOut[i] = q[i] + h * dp[i];
      quatIntegrate(q + 3, v, h, qOut + 3);
      break;
    }
    default: {
      const int n = numPositions(type);
      for (int i = 0; i < n; ++i) qOut[i] = q[i] + h * v[i];
      break;
    }
  }
}

void jointPositionDerivative(JointType type, const double* q, const double* v, double* qdot) {
  switch (type) {
    case JointType::Weld:
      break;
    case JointType::Ball:
      quatDerivative(q, v, qdot);
      break;
    case JointType::Free: {
      const Matrix3d R = quatToRotation(q + 3);
      const Vector3d pdot = R * Vector3d(v[3], v[4], v[5]);
      qdot[0] = pdot.x();
      qdot[1] = pdot.y();
      qdot[2] = pdot.z();
      // Unnormalised quaternion derivative keeps RK4 stages consistent with
      // the stage's own quaternion; the result is normalised after the step.
      quatDerivative(q + 3, v, qdot + 3);
      break;
    }
    default: {
      const int n = numPositions(type);
      for (int i = 0; i < n; ++i) qdot[i] = v[i];
      break;
    }
  }
}

void jointNeutral(JointType type, double* q) {
  const int n = numPositions(type);
  for (int i = 0; i < n; ++i) q[i] = 0.0;
  if (type == JointType::Ball) q[3] = 1.0;
  if (type == JointType::Free) q[6] = 1.0;
}

void jointNormalize(JointType type, double* q) {
  if (type == JointType::Ball) normalizeQuat(q);
  if (type == JointType::Free) normalizeQuat(q + 3);
}

}  // namespace articula::detail

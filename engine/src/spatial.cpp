#include "spatial.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace articula::detail {

Matrix3d conditionedRotationalInertia(const Matrix3d& Ic) {
  const Eigen::SelfAdjointEigenSolver<Matrix3d> es(0.5 * (Ic + Ic.transpose()));
  if (es.info() != Eigen::Success) return Ic;
  const Vector3d moments = es.eigenvalues();  // ascending
  const double bound = kMinPrincipalInertiaRatio * moments[2];
  if (!(moments[2] > 0.0) || moments[0] >= bound) return Ic;
  const Vector3d raised = moments.cwiseMax(bound);
  return es.eigenvectors() * raised.asDiagonal() * es.eigenvectors().transpose();
}

Matrix3d expSO3(const Vector3d& w) {
  const double t2 = w.squaredNorm();
  const Matrix3d W = skew(w);
  double a;
  double b;
  if (t2 < 1e-12) {
    // Taylor series: sin t / t ≈ 1 − t²/6, (1 − cos t)/t² ≈ 1/2 − t²/24.
    a = 1.0 - t2 / 6.0;
    b = 0.5 - t2 / 24.0;
  } else {
    const double t = std::sqrt(t2);
    a = std::sin(t) / t;
    b = (1.0 - std::cos(t)) / t2;
  }
  return Matrix3d::Identity() + a * W + b * W * W;
}

Vector3d logSO3(const Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

SE3 expSE3(const Vector6d& V) {
  const Vector3d w = V.head<3>();
  const Vector3d v = V.tail<3>();
  const double t2 = w.squaredNorm();
  const Matrix3d W = skew(w);
  double b;
  double c;
  if (t2 < 1e-12) {
    b = 0.5 - t2 / 24.0;
    c = 1.0 / 6.0 - t2 / 120.0;
  } else {
    const double t = std::sqrt(t2);
    b = (1.0 - std::cos(t)) / t2;
    c = (t - std::sin(t)) / (t2 * t);
  }
  // Left Jacobian of SO(3): V = I + b W + c W².
  const Matrix3d J = Matrix3d::Identity() + b * W + c * W * W;
  return {expSO3(w), J * v};
}

Vector6d logSE3(const SE3& X) {
  const Vector3d w = logSO3(X.R);
  const double t2 = w.squaredNorm();
  const Matrix3d W = skew(w);
  double d;
  if (t2 < 1e-12) {
    d = 1.0 / 12.0 + t2 / 720.0;
  } else {
    const double t = std::sqrt(t2);
    d = (1.0 - t * std::sin(t) / (2.0 * (1.0 - std::cos(t)))) / t2;
  }
  const Matrix3d Jinv = Matrix3d::Identity() - 0.5 * W + d * W * W;
  Vector6d V;
  V.head<3>() = w;
  V.tail<3>() = Jinv * X.p;
  return V;
}

Matrix3d quatToRotation(const double* q) {
  Eigen::Quaterniond quat(q[3], q[0], q[1], q[2]);
  quat.normalize();
  return quat.toRotationMatrix();
}

void rotationToQuat(const Matrix3d& R, double* q) {
  Eigen::Quaterniond quat(R);
  quat.normalize();
  if (quat.w() < 0.0) quat.coeffs() *= -1.0;
  q[0] = quat.x();
  q[1] = quat.y();
  q[2] = quat.z();
  q[3] = quat.w();
}

}  // namespace articula::detail

#pragma once
// Spatial algebra on Eigen (Featherstone, "Rigid Body Dynamics Algorithms",
// ch. 2), spatial vectors ordered [angular; linear].
//
// SE3 X_AB holds the pose of frame B in frame A: x_A = R·x_B + p.
// Motion vectors m = [ω; v], force vectors f = [n; f].

#include <articula/types.hpp>

namespace articula::detail {

inline Matrix3d skew(const Vector3d& w) {
  Matrix3d S;
  S << 0.0, -w.z(), w.y(), w.z(), 0.0, -w.x(), -w.y(), w.x(), 0.0;
  return S;
}

struct SE3 {
  Matrix3d R = Matrix3d::Identity();  // rotation R_AB
  Vector3d p = Vector3d::Zero();      // p_AB, origin of B in A (m)

  static SE3 identity() { return {}; }
  static SE3 fromIsometry(const Isometry3d& X) { return {X.linear(), X.translation()}; }
  Isometry3d toIsometry() const {
    Isometry3d X = Isometry3d::Identity();
    X.linear() = R;
    X.translation() = p;
    return X;
  }
  SE3 operator*(const SE3& o) const { return {R * o.R, R * o.p + p}; }
  SE3 inverse() const {
    const Matrix3d Rt = R.transpose();
    return {Rt, -(Rt * p)};
  }
  Vector3d transformPoint(const Vector3d& x) const { return R * x + p; }

  // Motion vector from B coordinates to A coordinates.
  Vector6d actMotion(const Vector6d& m) const {
    Vector6d r;
    r.head<3>() = R * m.head<3>();
    r.tail<3>() = R * m.tail<3>() + p.cross(r.head<3>());
    return r;
  }
  // Motion vector from A coordinates to B coordinates.
  Vector6d invActMotion(const Vector6d& m) const {
    Vector6d r;
    r.head<3>() = R.transpose() * m.head<3>();
    r.tail<3>() = R.transpose() * (m.tail<3>() - p.cross(m.head<3>()));
    return r;
  }
  // Force vector from B coordinates to A coordinates.
  Vector6d actForce(const Vector6d& f) const {
    Vector6d r;
    r.tail<3>() = R * f.tail<3>();
    r.head<3>() = R * f.head<3>() + p.cross(r.tail<3>());
    return r;
  }
  // Force vector from A coordinates to B coordinates.
  Vector6d invActForce(const Vector6d& f) const {
    Vector6d r;
    r.tail<3>() = R.transpose() * f.tail<3>();
    r.head<3>() = R.transpose() * (f.head<3>() - p.cross(f.tail<3>()));
    return r;
  }
  // Motion vectors (columns) from B to A coordinates.
  template <typename Derived>
  void actMotionColumns(const Eigen::MatrixBase<Derived>& in, Eigen::Ref<Matrix6Xd> out) const {
    for (Eigen::Index j = 0; j < in.cols(); ++j) out.col(j) = actMotion(in.col(j));
  }
};

// Motion cross product v × m (Featherstone eq. 2.31).
inline Vector6d crossMotion(const Vector6d& v, const Vector6d& m) {
  Vector6d r;
  r.head<3>() = v.head<3>().cross(m.head<3>());
  r.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return r;
}

// Force cross product v ×* f (Featherstone eq. 2.32).
inline Vector6d crossForce(const Vector6d& v, const Vector6d& f) {
  Vector6d r;
  r.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  r.tail<3>() = v.head<3>().cross(f.tail<3>());
  return r;
}

// Spatial inertia of a rigid body about the frame origin, from mass m, COM c
// and rotational inertia Ic about the COM (Featherstone eq. 2.63).
inline Matrix6d spatialInertia(double m, const Vector3d& c, const Matrix3d& Ic) {
  Matrix6d I;
  const Matrix3d C = skew(c);
  I.topLeftCorner<3, 3>() = Ic - m * C * C;
  I.topRightCorner<3, 3>() = m * C;
  I.bottomLeftCorner<3, 3>() = -m * C;
  I.bottomRightCorner<3, 3>() = m * Matrix3d::Identity();
  return I;
}

// Transforms a spatial inertia (or articulated inertia) given in B
// coordinates about B's origin into A coordinates about A's origin:
// I_A = X_AB* · I_B · X_BA. Block form: rotate, then shift the origin by p.
inline Matrix6d transformInertia(const SE3& X_AB, const Matrix6d& I_B) {
  const Matrix3d& R = X_AB.R;
  const Matrix3d A = R * I_B.topLeftCorner<3, 3>() * R.transpose();
  const Matrix3d B = R * I_B.topRightCorner<3, 3>() * R.transpose();
  const Matrix3d C = R * I_B.bottomRightCorner<3, 3>() * R.transpose();
  const Matrix3d P = skew(X_AB.p);
  const Matrix3d PC = P * C;
  Matrix6d out;
  const Matrix3d BP = B * P;
  out.topLeftCorner<3, 3>() = A - BP - BP.transpose() - PC * P;  // P Bᵀ = −(B P)ᵀ
  out.topRightCorner<3, 3>() = B + PC;
  out.bottomLeftCorner<3, 3>() = out.topRightCorner<3, 3>().transpose();
  out.bottomRightCorner<3, 3>() = C;
  return out;
}

// SO(3) exponential of a rotation vector (Rodrigues).
Matrix3d expSO3(const Vector3d& w);
// SO(3) logarithm: rotation vector of R, |result| ≤ π.
Vector3d logSO3(const Matrix3d& R);
// SE(3) exponential of a twist [ω; v] (pose reached after unit time at
// constant body twist).
SE3 expSE3(const Vector6d& V);
// SE(3) logarithm (inverse of expSE3).
Vector6d logSE3(const SE3& X);
// Quaternion (x, y, z, w) stored in 4 doubles → rotation matrix (normalising).
Matrix3d quatToRotation(const double* xyzw);
// Rotation matrix → quaternion (x, y, z, w) with w ≥ 0.
void rotationToQuat(const Matrix3d& R, double* xyzw);

}  // namespace articula::detail

#pragma once
// Spatial algebra on Eigen (Featherstone, "Rigid Body Dynamics Algorithms",
// ch. 2), spatial vectors ordered [angular; linear].
//
// SE3 X_AB holds the pose of frame B in frame A: x_A = R·x_B + p.
// Motion vectors m = [ω; v], force vectors f = [n; f].

#include <articula/types.hpp>

#include <cstdint>
#include <cstring>

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

// Smallest principal moment of inertia the dynamics uses, relative to the
// body's largest (docs/loop-closures.md, "Nearly inertia-free rotations").
inline constexpr double kMinPrincipalInertiaRatio = 1e-4;

// The rotational inertia the dynamics uses for Ic: Ic itself when every
// principal moment is at least kMinPrincipalInertiaRatio times the largest
// (bit for bit), otherwise Ic with the smaller moments raised to that
// bound about the same principal axes. A rotation with a principal moment
// 1e-8 of the others (a slender rod about its own axis) has a time scale
// far below any usable step; coupled to the other axes through products of
// inertia (principal axes slightly off the joint axis) its explicitly
// integrated velocity-product terms grow without bound.
Matrix3d conditionedRotationalInertia(const Matrix3d& Ic);

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

// ---- small fixed-size kernels on raw column-major storage ----
// Two-lane double vectors (GCC/Clang vector extension; SSE2 on x86-64,
// scalar code elsewhere). Used by the hot loops of the dynamics algorithms,
// where Eigen's fixed-size expression templates compile to poorly inlined
// code at -O2.
namespace kern {

using v2d = double __attribute__((vector_size(16)));

// Unaligned loads and stores through memcpy: well defined for any address
// (a dereference of an under-aligned vector type is not, and UBSan says so
// under clang), and compiled to the same single movupd.
inline v2d load2(const double* p) {
  v2d v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store2(double* p, v2d v) {
  std::memcpy(p, &v, sizeof v);
}
inline v2d splat(double x) {
  return v2d{x, x};
}
inline double hsum(v2d v) {
  return v[0] + v[1];
}

// 6-vector as three lanes pairs.
struct V6 {
  v2d a, b, c;  // rows (0,1), (2,3), (4,5)
};
inline V6 load6(const double* p) {
  return {load2(p), load2(p + 2), load2(p + 4)};
}
inline void store6(double* p, const V6& v) {
  store2(p, v.a);
  store2(p + 2, v.b);
  store2(p + 4, v.c);
}
inline double dot6(const V6& x, const V6& y) {
  return hsum(x.a * y.a + x.b * y.b + x.c * y.c);
}

// y = M x for a column-major 6×6 matrix (two partial sums: shorter
// dependency chains).
inline V6 mul66(const double* M, const double* x) {
  const v2d x0 = splat(x[0]), x1 = splat(x[1]), x2 = splat(x[2]);
  const v2d x3 = splat(x[3]), x4 = splat(x[4]), x5 = splat(x[5]);
  V6 r;
  r.a = (load2(M) * x0 + load2(M + 6) * x1 + load2(M + 12) * x2) +
        (load2(M + 18) * x3 + load2(M + 24) * x4 + load2(M + 30) * x5);
  r.b = (load2(M + 2) * x0 + load2(M + 8) * x1 + load2(M + 14) * x2) +
        (load2(M + 20) * x3 + load2(M + 26) * x4 + load2(M + 32) * x5);
  r.c = (load2(M + 4) * x0 + load2(M + 10) * x1 + load2(M + 16) * x2) +
        (load2(M + 22) * x3 + load2(M + 28) * x4 + load2(M + 34) * x5);
  return r;
}

// (y1, y2) = (M x1, M x2).
inline void mul66x2(const double* M, const double* x1, const double* x2, V6& y1, V6& y2) {
  y1 = mul66(M, x1);
  y2 = mul66(M, x2);
}

// P += A − w uᵀ (column-major 6×6; u given as plain array).
inline void addRank1Update(double* P, const double* A, const V6& w, const double* u) {
#pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) {
    const v2d uk = splat(u[k]);
    store2(P + 6 * k, load2(P + 6 * k) + (load2(A + 6 * k) - w.a * uk));
    store2(P + 6 * k + 2, load2(P + 6 * k + 2) + (load2(A + 6 * k + 2) - w.b * uk));
    store2(P + 6 * k + 4, load2(P + 6 * k + 4) + (load2(A + 6 * k + 4) - w.c * uk));
  }
}

struct D3 {
  double x, y, z;
};
inline D3 ld3(const double* p) {
  return {p[0], p[1], p[2]};
}
inline void st3(double* p, const D3& v) {
  p[0] = v.x;
  p[1] = v.y;
  p[2] = v.z;
}
inline D3 operator+(const D3& a, const D3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline D3 operator*(double s, const D3& a) {
  return {s * a.x, s * a.y, s * a.z};
}
inline D3 cross(const D3& a, const D3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double dot(const D3& a, const D3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

// 3×3 rotation held in registers (column-major source).
struct M3 {
  D3 c0, c1, c2;  // columns
};
inline M3 ldM3(const double* R) {
  return {ld3(R), ld3(R + 3), ld3(R + 6)};
}
inline D3 operator*(const M3& R, const D3& x) {
  return {R.c0.x * x.x + R.c1.x * x.y + R.c2.x * x.z, R.c0.y * x.x + R.c1.y * x.y + R.c2.y * x.z,
          R.c0.z * x.x + R.c1.z * x.y + R.c2.z * x.z};
}

// Compact world rigid inertia [W, [h×]; −[h×], m·1]: W as column pairs
// (W00, W10), (W01, W11), row pair (W20, W21) and W22.
struct RigidW {
  v2d c0, c1, r2;
  double w22;
  D3 h;
};

// Spatial inertia about A's origin in A coordinates of a rigid body with mass
// m, COM c_B and rotational inertia Ic_B about the COM (B axes), for
// R, t = X_AB: transformInertia(X_AB, spatialInertia(m, c_B, Ic_B)) at the
// cost of one 3×3 rotation R Ic Rᵀ. All 36 entries written to I
// (column-major): [W, [h×]; −[h×], m·1] with c = R c_B + t, h = m c,
// W = R Ic Rᵀ + m(|c|²1 − c cᵀ). R is read from Rp (column-major 3×3).
inline RigidW worldRigidInertia(const double* Rp, const D3& t, double mass, const Vector3d& com, const Matrix3d& Ic,
                                double* I) {
  const v2d R0 = load2(Rp), R1 = load2(Rp + 3), R2 = load2(Rp + 6);  // rows x, y of columns
  const double z0 = Rp[2], z1 = Rp[5], z2 = Rp[8];                   // row z
  const double* J = Ic.data();
  const double* cb = com.data();
  // c = R c_B + t
  const v2d cxy = (R0 * splat(cb[0]) + R1 * splat(cb[1])) + (R2 * splat(cb[2]) + v2d{t.x, t.y});
  const double cz = (z0 * cb[0] + z1 * cb[1]) + (z2 * cb[2] + t.z);
  const v2d m2 = splat(mass);
  const v2d hxy = m2 * cxy;
  const double hz = mass * cz;
  const double hc = hsum(hxy * cxy) + hz * cz;
  v2d c0, c1, r2;
  double w22;
  std::uint64_t off[9];  // bits of Ic
  __builtin_memcpy(off, J, sizeof off);
  if ((off[1] | off[2] | off[3] | off[5] | off[6] | off[7]) == 0) {
    // Diagonal Ic (principal body axes): R Ic Rᵀ = Σ_k λ_k r_k r_kᵀ.
    const v2d L0 = splat(J[0]) * R0, L1 = splat(J[4]) * R1, L2 = splat(J[8]) * R2;
    const double l0 = J[0] * z0, l1 = J[4] * z1, l2 = J[8] * z2;
    c0 = (splat(L0[0]) * R0 + splat(L1[0]) * R1) + splat(L2[0]) * R2 - hxy * splat(cxy[0]);
    c1 = (splat(L0[1]) * R0 + splat(L1[1]) * R1) + splat(L2[1]) * R2 - hxy * splat(cxy[1]);
    r2 = (splat(l0) * R0 + splat(l1) * R1) + splat(l2) * R2 - splat(hz) * cxy;
    w22 = (l0 * z0 + l1 * z1) + (l2 * z2 - hz * cz) + hc;
  } else {
    // T = R Ic: rows x, y of each column (pairs) and row z (J symmetric).
    const v2d T0 = (R0 * splat(J[0]) + R1 * splat(J[1])) + R2 * splat(J[2]);
    const v2d T1 = (R0 * splat(J[3]) + R1 * splat(J[4])) + R2 * splat(J[5]);
    const v2d T2 = (R0 * splat(J[6]) + R1 * splat(J[7])) + R2 * splat(J[8]);
    const v2d Tz01 = (splat(z0) * load2(J) + splat(z1) * load2(J + 3)) + splat(z2) * load2(J + 6);
    const double Tz2 = (z0 * J[2] + z1 * J[5]) + z2 * J[8];
    // W = T Rᵀ − h cᵀ + hc·1.
    c0 = (T0 * splat(R0[0]) + T1 * splat(R1[0])) + T2 * splat(R2[0]) - hxy * splat(cxy[0]);
    c1 = (T0 * splat(R0[1]) + T1 * splat(R1[1])) + T2 * splat(R2[1]) - hxy * splat(cxy[1]);
    r2 = (splat(Tz01[0]) * R0 + splat(Tz01[1]) * R1) + splat(Tz2) * R2 - splat(hz) * cxy;
    w22 = (Tz01[0] * z0 + Tz01[1] * z1) + (Tz2 * z2 - hz * cz) + hc;
  }
  c0[0] += hc;
  c1[1] += hc;
  const double hx = hxy[0], hy = hxy[1];
  store2(I, c0);
  I[2] = r2[0], I[3] = 0.0, I[4] = -hz, I[5] = hy;
  store2(I + 6, v2d{c0[1], c1[1]});
  I[8] = r2[1], I[9] = hz, I[10] = 0.0, I[11] = -hx;
  store2(I + 12, r2);
  I[14] = w22, I[15] = -hy, I[16] = hx, I[17] = 0.0;
  I[18] = 0.0, I[19] = hz, I[20] = -hy, I[21] = mass, I[22] = 0.0, I[23] = 0.0;
  I[24] = -hz, I[25] = 0.0, I[26] = hx, I[27] = 0.0, I[28] = mass, I[29] = 0.0;
  I[30] = hy, I[31] = -hx, I[32] = 0.0, I[33] = 0.0, I[34] = 0.0, I[35] = mass;
  return {v2d{c0[0], c0[1]}, v2d{c0[1], c1[1]}, r2, w22, D3{hx, hy, hz}};
}

inline D3 operator-(const D3& a, const D3& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
// Rᵀ x.
inline D3 mulT(const M3& R, const D3& x) {
  return {dot(R.c0, x), dot(R.c1, x), dot(R.c2, x)};
}

// Motion vector from A to B coordinates (R, t = X_AB): [Rᵀω; Rᵀ(v − t×ω)].
inline void invActMotion(const M3& R, const D3& t, const double* m, double* out) {
  const D3 w = ld3(m);
  const D3 l = ld3(m + 3) - cross(t, w);
  st3(out, mulT(R, w));
  st3(out + 3, mulT(R, l));
}
// Force vector from B to A coordinates (R, t = X_AB): [R n + t×(R f); R f].
inline void actForce(const M3& R, const D3& t, const double* f, double* out) {
  const D3 fl = R * ld3(f + 3);
  st3(out, R * ld3(f) + cross(t, fl));
  st3(out + 3, fl);
}

// Motion vector from B to A coordinates (R, t = X_AB).
inline void actMotion(const M3& R, const D3& t, const double* m, double* out) {
  const D3 w = R * ld3(m);
  st3(out, w);
  st3(out + 3, R * ld3(m + 3) + cross(t, w));
}

}  // namespace kern

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

// Forward kinematics: X_PB = X_PJ · X_J(q) · X_CJ⁻¹, body twists
// V_i = X_{i,λ} V_λ + S_i q̇_i and accelerations
// A_i = X_{i,λ} A_λ + S_i q̈_i + V_i × S_i q̇_i + Ṡ_i q̇_i (Featherstone §3.5).
#include "algorithms.hpp"
#include "joint_model.hpp"

#include <algorithm>
#include <cmath>

namespace articula::detail {

void Data::resize(const Model& m) {
  const auto nb = static_cast<std::size_t>(m.nbody);
  X_PB.assign(nb, SE3{});
  X_WB.assign(nb, SE3{});
  V.assign(nb, Vector6d::Zero());
  A.assign(nb, Vector6d::Zero());
  cJ.assign(nb, Vector6d::Zero());
  S = Matrix6Xd::Zero(6, m.nv);
  Sdot = Matrix6Xd::Zero(6, m.nv);
  IA.assign(nb, Matrix6d::Zero());
  pA.assign(nb, Vector6d::Zero());
  c.assign(nb, Vector6d::Zero());
  a.assign(nb, Vector6d::Zero());
  f.assign(nb, Vector6d::Zero());
  U = Matrix6Xd::Zero(6, m.nv);
  Dinv.assign(nb, Matrix6d::Zero());
  u = VectorXd::Zero(m.nv);
  extraInertia = VectorXd::Zero(m.nv);
  tauTotal = VectorXd::Zero(m.nv);
  act_f0 = VectorXd::Zero(m.nu);
  act_c = VectorXd::Zero(m.nu);
  act_force = VectorXd::Zero(m.nu);
  act_integral0 = VectorXd::Zero(m.nu);
  act_gravity = VectorXd::Zero(m.anyGravityCompensation ? m.nv : 0);
  act_zero = VectorXd::Zero(m.anyGravityCompensation ? m.nv : 0);
  act_row.assign(static_cast<std::size_t>(m.nu), -1);
  q0 = VectorXd::Zero(m.nq);
  qk = VectorXd::Zero(m.nq);
  dq = VectorXd::Zero(m.nq);
  qdotk = VectorXd::Zero(m.nq);
  v0 = VectorXd::Zero(m.nv);
  vk = VectorXd::Zero(m.nv);
  dv = VectorXd::Zero(m.nv);
  imp_A.clear();
  imp_lu.clear();
  int chainNv = 0;
  for (const int o : m.chainOwners) {
    const int n = m.owner_nv[static_cast<std::size_t>(o)];
    chainNv = std::max(chainNv, n);
    imp_A.push_back(MatrixXd::Zero(n, n));
    imp_lu.emplace_back(n);
  }
  imp_f0 = VectorXd::Zero(chainNv);
  imp_dv = VectorXd::Zero(chainNv);
  Sw = Matrix6Xd::Zero(6, m.nv);
  Vw.assign(nb, Vector6d::Zero());
  Ow.assign(nb, Vector3d::Zero());
  fI.assign(nb, Vector6d::Zero());
  aI.assign(nb, Vector6d::Zero());
  uI = VectorXd::Zero(m.nv);
  // Constant motion subspaces are expressed in the body frame once.
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    if (nv == 0 || !m.jnt_constantS[b]) continue;
    Matrix6X6max SJ(6, nv);
    jointMotionSubspace(m, i, nullptr, SJ);
    m.jnt_childOffset[b].actMotionColumns(SJ, S.middleCols(m.jnt_vadr[b], nv));
  }
  // Constant parts of X_PB(q) for single-coordinate joints (Rodrigues:
  // R_J = 1 + sin q·K + (1 − cos q)·K², K = [a×]).
  jointPose.assign(nb, JointPoseCache{});
  constS.assign(nb, 0);
  for (std::size_t b = 0; b < nb; ++b) constS[b] = m.jnt_constantS[b] ? 1 : 0;
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    JointPoseCache& jc = jointPose[b];
    const SE3& XP = m.jnt_parentOffset[b];
    const SE3 XCinv = m.jnt_childOffset[b].inverse();
    const Vector3d& axis = m.jnt_axes[b][0];
    const Matrix3d K = skew(axis);
    const Matrix3d K2 = K * K;
    jc.R0 = XP.R * XCinv.R;
    jc.p0 = XP.R * XCinv.p + XP.p;
    jc.Rs = XP.R * K * XCinv.R;
    jc.Rc = XP.R * K2 * XCinv.R;
    jc.ps = XP.R * (K * XCinv.p);
    jc.pc = XP.R * (K2 * XCinv.p);
    jc.pq = XP.R * axis;
    switch (m.jnt_type[b]) {
      case JointType::Weld:
        jc.kind = PoseKind::Constant;
        break;
      case JointType::Revolute:
        jc.kind = PoseKind::Rotation;
        break;
      case JointType::Prismatic:
        jc.kind = PoseKind::Translation;
        break;
      case JointType::Screw:
        jc.kind = PoseKind::Screw;
        jc.pq *= m.jnt_pitch[b];
        break;
      default:
        jc.kind = PoseKind::Generic;
        break;
    }
  }
}

namespace {

// sin and cos of one angle (Cephes-style: Cody–Waite reduction by π/4 in
// three parts, degree-13/14 minimax polynomials on [−π/4, π/4]); ≈1 ulp.
// Falls back to the C library beyond |x| ≥ 2^20.
inline void fastSinCos(double x, double& s, double& c) {
  const double ax = std::fabs(x);
  if (!(ax < 1048576.0)) {  // also NaN
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  constexpr double kFourOverPi = 1.27323954473516268615;
  constexpr double DP1 = 7.85398125648498535156E-1;
  constexpr double DP2 = 3.77489470793079817668E-8;
  constexpr double DP3 = 2.69515142907905952645E-15;
  auto j = static_cast<long>(ax * kFourOverPi);
  double y = static_cast<double>(j);
  if (j & 1) {
    j += 1;
    y += 1.0;
  }
  const double z = ((ax - y * DP1) - y * DP2) - y * DP3;
  const double zz = z * z;
  const double ps =
      z + z * zz *
              (((((1.58962301576546568060E-10 * zz - 2.50507477628578072866E-8) * zz + 2.75573136213857245213E-6) * zz -
                 1.98412698295895385996E-4) *
                    zz +
                8.33333333332211858878E-3) *
                   zz -
               1.66666666666666307295E-1);
  const double pc =
      1.0 - 0.5 * zz +
      zz * zz *
          (((((-1.13585365213876817300E-11 * zz + 2.08757008419747316778E-9) * zz - 2.75573141792967388112E-7) * zz +
             2.48015872888517045348E-5) *
                zz -
            1.38888888888730564116E-3) *
               zz +
           4.16666666666665929218E-2);
  const long q = (j >> 1) & 3;  // quadrant of ax
  double sa, ca;                // sin, cos of ax
  switch (q) {
    case 0:
      sa = ps;
      ca = pc;
      break;
    case 1:
      sa = pc;
      ca = -ps;
      break;
    case 2:
      sa = -ps;
      ca = -pc;
      break;
    default:
      sa = -pc;
      ca = ps;
      break;
  }
  s = x < 0.0 ? -sa : sa;
  c = ca;
}

// out = a + s·b + c·e for 3×3 matrices (9 doubles) and 3-vectors.
inline void combine9(double* out, const double* a, const double* b, const double* e, double s, double c) {
  using namespace kern;
  const v2d s2 = splat(s), c2 = splat(c);
  store2(out, load2(a) + s2 * load2(b) + c2 * load2(e));
  store2(out + 2, load2(a + 2) + s2 * load2(b + 2) + c2 * load2(e + 2));
  store2(out + 4, load2(a + 4) + s2 * load2(b + 4) + c2 * load2(e + 4));
  store2(out + 6, load2(a + 6) + s2 * load2(b + 6) + c2 * load2(e + 6));
  out[8] = a[8] + s * b[8] + c * e[8];
}
inline void combine3(double* out, const double* a, const double* b, const double* e, double s, double c) {
  using namespace kern;
  store2(out, load2(a) + splat(s) * load2(b) + splat(c) * load2(e));
  out[2] = a[2] + s * b[2] + c * e[2];
}

// (Rout, pout) = (RW·R, RW·p + pW) for column-major 3×3 rotations; rows x, y
// as lane pairs, row z scalar.
inline void composePose(const double* RW, const double* pW, const double* R, const double* p, double* Rout,
                        double* pout) {
  using namespace kern;
  const v2d A0 = load2(RW), A1 = load2(RW + 3), A2 = load2(RW + 6);
  const double z0 = RW[2], z1 = RW[5], z2 = RW[8];
  const auto col = [&](const double* x, double* out) {
    const double x0 = x[0], x1 = x[1], x2 = x[2];
    store2(out, (A0 * splat(x0) + A1 * splat(x1)) + A2 * splat(x2));
    out[2] = (z0 * x0 + z1 * x1) + z2 * x2;
  };
  col(R, Rout);
  col(R + 3, Rout + 3);
  col(R + 6, Rout + 6);
  const double x0 = p[0], x1 = p[1], x2 = p[2];
  store2(pout, ((A0 * splat(x0) + A1 * splat(x1)) + A2 * splat(x2)) + load2(pW));
  pout[2] = ((z0 * x0 + z1 * x1) + z2 * x2) + pW[2];
}

}  // namespace

void forwardKinematicsPositions(const Model& m, const VectorXd& q, Data& d) {
  forwardKinematicsPositions(m, q, d, 0, m.nbody);
}

[[gnu::flatten]] void forwardKinematicsPositions(const Model& m, const VectorXd& q, Data& d, int b0, int b1) {
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const double* qi = q.data() + m.jnt_qadr[b];
    const Data::JointPoseCache& jc = d.jointPose[b];
    SE3& X = d.X_PB[b];
    switch (jc.kind) {
      case Data::PoseKind::Constant:
        X.R = jc.R0;
        X.p = jc.p0;
        break;
      case Data::PoseKind::Rotation: {
        double s, cq;
        fastSinCos(qi[0], s, cq);
        const double c = 1.0 - cq;
        combine9(X.R.data(), jc.R0.data(), jc.Rs.data(), jc.Rc.data(), s, c);
        combine3(X.p.data(), jc.p0.data(), jc.ps.data(), jc.pc.data(), s, c);
        break;
      }
      case Data::PoseKind::Translation:
        X.R = jc.R0;
        X.p = jc.p0 + qi[0] * jc.pq;
        break;
      case Data::PoseKind::Screw: {
        double s, cq;
        fastSinCos(qi[0], s, cq);
        const double c = 1.0 - cq;
        X.R = jc.R0 + s * jc.Rs + c * jc.Rc;
        X.p = jc.p0 + s * jc.ps + c * jc.pc + qi[0] * jc.pq;
        break;
      }
      case Data::PoseKind::Generic: {
        const SE3 XJ = jointTransform(m, i, qi);
        X = m.jnt_parentOffset[b] * XJ * m.jnt_childOffset[b].inverse();
        break;
      }
    }
    const int nv = m.jnt_nv[b];
    if (nv > 0 && !d.constS[b]) {
      Matrix6X6max SJ(6, nv);
      jointMotionSubspace(m, i, qi, SJ);
      m.jnt_childOffset[b].actMotionColumns(SJ, d.S.middleCols(m.jnt_vadr[b], nv));
    }
    const int p = m.body_parent[b];
    SE3& XW = d.X_WB[b];
    if (p < 0) {
      XW = X;
    } else {
      const SE3& XWP = d.X_WB[static_cast<std::size_t>(p)];
      composePose(XWP.R.data(), XWP.p.data(), X.R.data(), X.p.data(), XW.R.data(), XW.p.data());
    }
  }
}

[[gnu::flatten]] void forwardKinematicsVelocities(const Model& m, const VectorXd& q, const VectorXd& v, Data& d) {
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    Vector6d& Vi = d.V[b];
    if (p < 0) {
      Vi.setZero();
    } else {
      // V_i = X_{i,λ} V_λ (inverse action of X_PB).
      const SE3& X = d.X_PB[b];
      kern::invActMotion(kern::ldM3(X.R.data()), kern::ld3(X.p.data()), d.V[static_cast<std::size_t>(p)].data(),
                         Vi.data());
    }
    if (nv == 1) {
      const kern::V6 s6 = kern::load6(d.S.col(va).data());
      const kern::v2d qd = kern::splat(v[va]);
      kern::V6 V6 = kern::load6(Vi.data());
      V6.a += s6.a * qd;
      V6.b += s6.b * qd;
      V6.c += s6.c * qd;
      kern::store6(Vi.data(), V6);
      if (!d.constS[b]) {
        Matrix6X6max SdJ(6, 1);
        jointMotionSubspaceDot(m, i, q.data() + m.jnt_qadr[b], v.data() + va, SdJ);
        d.Sdot.col(va) = m.jnt_childOffset[b].actMotion(SdJ.col(0));
        d.cJ[b] = d.Sdot.col(va) * v[va];
      }  // constant S: cJ stays zero (set by resize(), written only here)
    } else if (nv > 0) {
      for (int k = 0; k < nv; ++k) Vi += d.S.col(va + k) * v[va + k];
      d.cJ[b].setZero();
      if (!d.constS[b]) {
        Matrix6X6max SdJ(6, nv);
        jointMotionSubspaceDot(m, i, q.data() + m.jnt_qadr[b], v.data() + va, SdJ);
        m.jnt_childOffset[b].actMotionColumns(SdJ, d.Sdot.middleCols(va, nv));
        for (int k = 0; k < nv; ++k) d.cJ[b] += d.Sdot.col(va + k) * v[va + k];
      }
    } else {
      d.cJ[b].setZero();
    }
  }
}

void forwardKinematicsAccelerations(const Model& m, const VectorXd& v, const VectorXd& vdot, Data& d) {
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    if (nv == 0 || (nv == 1 && d.constS[b])) {
      // A_i = X_{i,λ} A_λ + s v̇ + V_i × s q̇ (Ṡ = 0): the common joints,
      // and welds (A_i = X_{i,λ} A_λ).
      double* Ai = d.A[b].data();
      if (p < 0) {
        for (int k = 0; k < 6; ++k) Ai[k] = 0.0;
      } else {
        const SE3& X = d.X_PB[b];
        kern::invActMotion(kern::ldM3(X.R.data()), kern::ld3(X.p.data()), d.A[static_cast<std::size_t>(p)].data(), Ai);
      }
      if (nv == 0) continue;
      const double* s = d.S.col(va).data();
      const double qd = v[va];
      const double* Vb = d.V[b].data();
      const kern::D3 w = kern::ld3(Vb), vl = kern::ld3(Vb + 3);
      const kern::D3 sw = qd * kern::ld3(s), sl = qd * kern::ld3(s + 3);
      double c[6];
      kern::st3(c, kern::cross(w, sw));
      kern::st3(c + 3, kern::cross(w, sl) + kern::cross(vl, sw));
      const kern::V6 s6 = kern::load6(s);
      const kern::V6 c6 = kern::load6(c);
      kern::V6 a6 = kern::load6(Ai);
      const kern::v2d qdd = kern::splat(vdot[va]);
      a6.a += s6.a * qdd + c6.a;
      a6.b += s6.b * qdd + c6.b;
      a6.c += s6.c * qdd + c6.c;
      kern::store6(Ai, a6);
      continue;
    }
    Vector6d Ai = p < 0 ? Vector6d::Zero() : d.X_PB[b].invActMotion(d.A[static_cast<std::size_t>(p)]);
    if (nv > 0) {
      const Vector6d Sqd = d.S.middleCols(va, nv) * v.segment(va, nv);
      Ai.noalias() += d.S.middleCols(va, nv) * vdot.segment(va, nv);
      Ai += crossMotion(d.V[b], Sqd) + d.cJ[b];
    }
    d.A[b] = Ai;
  }
}

}  // namespace articula::detail

// Articulated-body algorithm, Featherstone (2008) Table 7.1, evaluated in
// one fixed frame per tree: world axes, origin at the tree's root-body
// position (Featherstone §7.3 with a common frame; the shifted origin keeps
// lever arms small for bodies far from the world origin). Each body's
// rigid inertia is rotated into the world frame once; articulated inertias
// and bias forces are then accumulated into the parent by plain addition, and
// the outward acceleration pass needs no coordinate transforms. Gravity
// enters as a fictitious base acceleration −g.
//
// Scratch written in those coordinates: IA, pA, c, a, U, Sw, Vw, Ow.
#include "algorithms.hpp"

#include <cstdint>

namespace articula::detail {

namespace {

using namespace kern;

// True when all six entries are +0.0 (bit test; −0.0 and NaN count as nonzero).
inline bool isZero(const Vector6d& f) {
  using v2u = unsigned long long __attribute__((vector_size(16), aligned(8)));
  const auto* p = reinterpret_cast<const v2u*>(f.data());
  const v2u o = p[0] | p[1] | p[2];
  return (o[0] | o[1]) == 0;
}

// Multi-DoF joint, pass 2 (kept generic; off the hot path).
[[gnu::noinline]] void abaPass2Multi(const Model& m, const VectorXd& tau, const VectorXd& extraInertia, int i,
                                     Data& d) {
  const auto b = static_cast<std::size_t>(i);
  const int nv = m.jnt_nv[b];
  const int va = m.jnt_vadr[b];
  const int p = m.body_parent[b];
  const Matrix6d& IA = d.IA[b];
  const Vector6d& pA = d.pA[b];
  const auto S = d.Sw.middleCols(va, nv);
  auto U = d.U.middleCols(va, nv);
  // Coefficient-based (lazy) products: sizes ≤ 6, no GEMM kernels.
  U = IA.lazyProduct(S);
  MatrixNNmax D(nv, nv);
  D = S.transpose().lazyProduct(U);
  D.diagonal() += extraInertia.segment(va, nv);
  MatrixNNmax Dinv = MatrixNNmax::Identity(nv, nv);
  D.llt().solveInPlace(Dinv);
  d.Dinv[b].topLeftCorner(nv, nv) = Dinv;
  d.u.segment(va, nv) = tau.segment(va, nv) - S.transpose().lazyProduct(pA);
  if (p < 0) return;
  const auto pb = static_cast<std::size_t>(p);
  Matrix6X6max UDinv(6, nv);
  UDinv = U.lazyProduct(Dinv);
  Matrix6d Ia = IA;
  Ia -= UDinv.lazyProduct(U.transpose());
  Vector6d pa = pA;
  pa += Ia.lazyProduct(d.c[b]);
  pa += UDinv.lazyProduct(d.u.segment(va, nv));
  d.IA[pb] += Ia;
  d.pA[pb] += pa;
}

// Inverse of the spatial inertia [Ic + m ĉĉᵀ, m ĉ; m ĉᵀ, m·1] (COM c,
// rotational inertia Ic about it): writing it A·diag(Ic, m·1)·Aᵀ with
// A = [1, ĉ; 0, 1] gives the inverse [Ic⁻¹, −Ic⁻¹ĉ; ĉ Ic⁻¹, 1/m − ĉ Ic⁻¹ ĉ].
Matrix6d inverseSpatialInertia(double mass, const Vector3d& c, const Matrix3d& Ic) {
  const Matrix3d Icinv = Ic.inverse();
  const Matrix3d C = skew(c);
  Matrix6d out;
  out.topLeftCorner<3, 3>() = Icinv;
  out.topRightCorner<3, 3>() = -Icinv * C;
  out.bottomLeftCorner<3, 3>() = C * Icinv;
  out.bottomRightCorner<3, 3>() = Matrix3d::Identity() / mass - C * Icinv * C;
  return out;
}

// Pass 2 of an N-DoF joint with fixed-size matrices (free and ball joints).
template <int N>
[[gnu::noinline]] void abaPass2Fixed(const Model& m, const VectorXd& tau, const VectorXd& extraInertia, int i,
                                     Data& d) {
  using MatN = Eigen::Matrix<double, N, N>;
  using Mat6N = Eigen::Matrix<double, 6, N>;
  const auto b = static_cast<std::size_t>(i);
  const int va = m.jnt_vadr[b];
  const int p = m.body_parent[b];
  const Matrix6d& IA = d.IA[b];
  const Vector6d& pA = d.pA[b];
  const Mat6N S = d.Sw.template middleCols<N>(va);
  const Mat6N U = IA * S;
  d.U.template middleCols<N>(va) = U;
  MatN Dinv;
  bool lone = false;
  if constexpr (N == 6) {
    lone = p < 0 && m.jnt_type[b] == JointType::Free && m.owner_nbody[static_cast<std::size_t>(m.body_owner[b])] == 1 &&
           extraInertia.template segment<6>(va).isZero() && (d.S.template middleCols<6>(va) == Matrix6d::Identity());
    // A lone free body whose joint velocity is its body twist: S = diag(R, R)
    // and IA is its own inertia rotated by R, so D = SᵀIA S is the
    // body-frame spatial inertia, inverted in closed form.
    if (lone) Dinv = inverseSpatialInertia(m.body_mass[b], m.body_com[b], m.body_inertiaCom[b]);
  }
  if (!lone) {
    MatN D = S.transpose() * U;
    D.diagonal() += extraInertia.template segment<N>(va);
    Dinv = D.llt().solve(MatN::Identity());
  }
  d.Dinv[b].template topLeftCorner<N, N>() = Dinv;
  const Eigen::Matrix<double, N, 1> u = tau.template segment<N>(va) - S.transpose() * pA;
  d.u.template segment<N>(va) = u;
  if (p < 0) return;
  const auto pb = static_cast<std::size_t>(p);
  const Mat6N UDinv = U * Dinv;
  const Matrix6d Ia = IA - UDinv * U.transpose();
  d.IA[pb] += Ia;
  d.pA[pb] += pA + Ia * d.c[b] + UDinv * u;
}

template <int N>
[[gnu::noinline]] void abaPass3Fixed(const Model& m, int i, Data& d, VectorXd& vdot) {
  const auto b = static_cast<std::size_t>(i);
  const int va = m.jnt_vadr[b];
  Vector6d& ai = d.a[b];
  const Eigen::Matrix<double, N, 1> r = d.u.template segment<N>(va) - d.U.template middleCols<N>(va).transpose() * ai;
  const Eigen::Matrix<double, N, 1> qdd = d.Dinv[b].template topLeftCorner<N, N>() * r;
  vdot.template segment<N>(va) = qdd;
  ai += d.Sw.template middleCols<N>(va) * qdd;
}

[[gnu::noinline]] void abaPass3Multi(const Model& m, int i, Data& d, VectorXd& vdot) {
  const auto b = static_cast<std::size_t>(i);
  const int nv = m.jnt_nv[b];
  const int va = m.jnt_vadr[b];
  Vector6d& ai = d.a[b];
  const auto Dinv = d.Dinv[b].topLeftCorner(nv, nv);
  auto qdd = vdot.segment(va, nv);
  VectorNmax r(nv);  // fixed capacity: no heap
  r = d.u.segment(va, nv);
  r -= d.U.middleCols(va, nv).transpose().lazyProduct(ai);
  qdd = Dinv.lazyProduct(r);
  for (int k = 0; k < nv; ++k) ai += d.Sw.col(va + k) * qdd[k];
}

}  // namespace

namespace {

[[gnu::noinline, gnu::flatten]] void abaPass1(const Model& m, const VectorXd& v, const std::vector<Vector6d>& fext,
                                              int b0, int b1, Data& d) {
  // Pass 1 (outward): world inertias, velocities, bias accelerations c_i
  // and bias forces pA_i.
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    const SE3& X = d.X_WB[b];
    // Frame: world axes, origin Ow = position of the tree's root body.
    const double* o = p < 0 ? X.p.data() : d.Ow[static_cast<std::size_t>(p)].data();
    const D3 t = ld3(X.p.data()) - ld3(o);
    st3(d.Ow[b].data(), ld3(o));
    D3 w{0.0, 0.0, 0.0}, vl{0.0, 0.0, 0.0};  // world velocity [ω; v]
    if (p >= 0) {
      const double* Vp = d.Vw[static_cast<std::size_t>(p)].data();
      w = ld3(Vp);
      vl = ld3(Vp + 3);
    }
    double* c = d.c[b].data();
    if (nv == 1 && d.constS[b]) {
      double* s = d.Sw.col(va).data();
      actMotion(ldM3(X.R.data()), t, d.S.col(va).data(), s);
      const double qd = v[va];
      const D3 sw = qd * ld3(s), sl = qd * ld3(s + 3);  // S q̇
      w = w + sw;
      vl = vl + sl;
      st3(c, cross(w, sw));
      st3(c + 3, cross(w, sl) + cross(vl, sw));
    } else if (nv > 0) {
      D3 sw{0.0, 0.0, 0.0}, sl{0.0, 0.0, 0.0};  // S q̇
      for (int j = 0; j < nv; ++j) {
        double* s = d.Sw.col(va + j).data();
        actMotion(ldM3(X.R.data()), t, d.S.col(va + j).data(), s);
        const double qd = v[va + j];
        sw = sw + qd * ld3(s);
        sl = sl + qd * ld3(s + 3);
      }
      w = w + sw;
      vl = vl + sl;
      // c = V × S q̇
      st3(c, cross(w, sw));
      st3(c + 3, cross(w, sl) + cross(vl, sw));
      if (!d.constS[b]) {
        double cj[6];
        actMotion(ldM3(X.R.data()), t, d.cJ[b].data(), cj);
        for (int k = 0; k < 6; ++k) c[k] += cj[k];
      }
    } else {
      for (int k = 0; k < 6; ++k) c[k] = 0.0;
    }
    double* Vw = d.Vw[b].data();
    st3(Vw, w);
    st3(Vw + 3, vl);
  }
  // World rigid inertias and bias forces (independent per body).
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const SE3& X = d.X_WB[b];
    const D3 t = ld3(X.p.data()) - ld3(d.Ow[b].data());
    const RigidW Iw =
        worldRigidInertia(X.R.data(), t, m.body_mass[b], m.body_com[b], m.body_inertiaCom[b], d.IA[b].data());
    const double* Vw = d.Vw[b].data();
    const D3 w = ld3(Vw), vl = ld3(Vw + 3);
    // pA = V ×* (I V) with I = [W, [h×]; −[h×], m·1] (W symmetric):
    // [w × (W w) + h × g; m g + w × (w × h)], g = w × v (Jacobi identity).
    const D3 h = Iw.h;
    const v2d fxy = (Iw.c0 * splat(w.x) + Iw.c1 * splat(w.y)) + Iw.r2 * splat(w.z);
    const double fz = hsum(Iw.r2 * v2d{w.x, w.y}) + Iw.w22 * w.z;
    const D3 g = cross(w, vl);
    double* pA = d.pA[b].data();
    st3(pA, cross(w, D3{fxy[0], fxy[1], fz}) + cross(h, g));
    st3(pA + 3, m.body_mass[b] * g + cross(w, cross(w, h)));
    if (!isZero(fext[b])) {
      double fw[6];
      kern::actForce(ldM3(X.R.data()), t, fext[b].data(), fw);
      for (int k = 0; k < 6; ++k) pA[k] -= fw[k];
    }
  }
}

[[gnu::noinline, gnu::flatten]] void abaPass2(const Model& m, const VectorXd& tau, const VectorXd& extraInertia, int b0,
                                              int b1, Data& d) {
  // Pass 2 (inward): articulated inertias and bias forces.
  for (int i = b1 - 1; i >= b0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    const double* IA = d.IA[b].data();
    const double* pA = d.pA[b].data();
    if (nv == 1) {
      const double* s = d.Sw.col(va).data();
      const double* c = d.c[b].data();
      V6 U, Ic;
      mul66x2(IA, s, c, U, Ic);
      const V6 sv = load6(s);
      const V6 pv = load6(pA);
      const double Dinv = 1.0 / (dot6(sv, U) + extraInertia[va]);
      const double u = tau[va] - dot6(sv, pv);
      double* Ust = d.U.col(va).data();
      store6(Ust, U);
      d.Dinv[b](0, 0) = Dinv;
      d.u[va] = u;
      if (p < 0) continue;
      const auto pb = static_cast<std::size_t>(p);
      // pa = pA + Ia c + U D⁻¹ u with Ia = IA − U D⁻¹ Uᵀ.
      const v2d k = splat(Dinv * (u - dot6(U, load6(c))));
      double* pP = d.pA[pb].data();
      V6 pP6 = load6(pP);
      pP6.a += pv.a + Ic.a + U.a * k;
      pP6.b += pv.b + Ic.b + U.b * k;
      pP6.c += pv.c + Ic.c + U.c * k;
      store6(pP, pP6);
      const v2d dv = splat(Dinv);
      const V6 DU{U.a * dv, U.b * dv, U.c * dv};
      addRank1Update(d.IA[pb].data(), IA, DU, Ust);
    } else if (nv == 6) {
      abaPass2Fixed<6>(m, tau, extraInertia, i, d);
    } else if (nv == 3) {
      abaPass2Fixed<3>(m, tau, extraInertia, i, d);
    } else if (nv > 1) {
      abaPass2Multi(m, tau, extraInertia, i, d);
    } else {
      if (p < 0) continue;
      const auto pb = static_cast<std::size_t>(p);
      const V6 Ic = mul66(IA, d.c[b].data());
      double* pP = d.pA[pb].data();
      const V6 pv = load6(pA);
      V6 pP6 = load6(pP);
      pP6.a += pv.a + Ic.a;
      pP6.b += pv.b + Ic.b;
      pP6.c += pv.c + Ic.c;
      store6(pP, pP6);
      d.IA[pb] += d.IA[b];
    }
  }
}

[[gnu::noinline, gnu::flatten]] void abaPass3(const Model& m, int b0, int b1, Data& d, VectorXd& vdot) {
  // Pass 3 (outward): accelerations.
  Vector6d aGravity;
  aGravity.head<3>().setZero();
  aGravity.tail<3>() = -m.gravity;
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    const double* aParent = p < 0 ? aGravity.data() : d.a[static_cast<std::size_t>(p)].data();
    const V6 ap = load6(aParent);
    const V6 cv = load6(d.c[b].data());
    V6 ai{ap.a + cv.a, ap.b + cv.b, ap.c + cv.c};
    if (nv == 1) {
      const double qdd = d.Dinv[b](0, 0) * (d.u[va] - dot6(load6(d.U.col(va).data()), ai));
      vdot[va] = qdd;
      const V6 sv = load6(d.Sw.col(va).data());
      const v2d q2 = splat(qdd);
      ai.a += sv.a * q2;
      ai.b += sv.b * q2;
      ai.c += sv.c * q2;
      store6(d.a[b].data(), ai);
    } else {
      store6(d.a[b].data(), ai);
      if (nv == 6)
        abaPass3Fixed<6>(m, i, d, vdot);
      else if (nv == 3)
        abaPass3Fixed<3>(m, i, d, vdot);
      else if (nv > 1)
        abaPass3Multi(m, i, d, vdot);
    }
  }
}

}  // namespace

void articulatedBodyAlgorithm(const Model& m, const VectorXd& v, const VectorXd& tau, const std::vector<Vector6d>& fext,
                              const VectorXd& extraInertia, int b0, int b1, Data& d, VectorXd& vdot) {
  abaPass1(m, v, fext, b0, b1, d);
  abaPass2(m, tau, extraInertia, b0, b1, d);
  abaPass3(m, b0, b1, d, vdot);
}

void articulatedImpulseResponse(const Model& m, Data& d, int b0, int b1, int vadr0, const double* tau, double* dv) {
  // A lone six-DoF body on the world (a rigid body): the response is its
  // inverse inertia applied to the impulse.
  if (b1 - b0 == 1 && m.jnt_nv[static_cast<std::size_t>(b0)] == 6 && m.body_parent[static_cast<std::size_t>(b0)] < 0) {
    const Eigen::Map<const Vector6d> t(tau);
    Eigen::Map<Vector6d> out(dv);
    out.noalias() = d.Dinv[static_cast<std::size_t>(b0)] * t;
    return;
  }
  // Pass 2 with zero velocity and no external forces: the bias forces come
  // from the impulse alone; articulated inertias are those of the last ABA.
  for (int i = b0; i < b1; ++i) d.fI[static_cast<std::size_t>(i)].setZero();
  for (int i = b1 - 1; i >= b0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    const Vector6d& f = d.fI[b];
    if (nv == 1) {
      const double u = tau[va - vadr0] - d.Sw.col(va).dot(f);
      d.uI[va] = u;
      if (p >= 0) d.fI[static_cast<std::size_t>(p)] += f + d.U.col(va) * (d.Dinv[b](0, 0) * u);
    } else if (nv > 1) {
      VectorNmax u(nv);
      for (int k = 0; k < nv; ++k) u[k] = tau[va - vadr0 + k] - d.Sw.col(va + k).dot(f);
      d.uI.segment(va, nv) = u;
      if (p >= 0) {
        VectorNmax Du(nv);
        Du = d.Dinv[b].topLeftCorner(nv, nv).lazyProduct(u);
        d.fI[static_cast<std::size_t>(p)] += f + d.U.middleCols(va, nv).lazyProduct(Du);
      }
    } else if (p >= 0) {
      d.fI[static_cast<std::size_t>(p)] += f;
    }
  }
  // Pass 3: velocity changes (no bias accelerations).
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    Vector6d a = p < 0 ? Vector6d::Zero() : d.aI[static_cast<std::size_t>(p)];
    if (nv == 1) {
      const double qd = d.Dinv[b](0, 0) * (d.uI[va] - d.U.col(va).dot(a));
      dv[va - vadr0] = qd;
      a += d.Sw.col(va) * qd;
    } else if (nv > 1) {
      VectorNmax r(nv);
      r = d.uI.segment(va, nv);
      r -= d.U.middleCols(va, nv).transpose().lazyProduct(a);
      VectorNmax qd(nv);
      qd = d.Dinv[b].topLeftCorner(nv, nv).lazyProduct(r);
      for (int k = 0; k < nv; ++k) {
        dv[va - vadr0 + k] = qd[k];
        a += d.Sw.col(va + k) * qd[k];
      }
    }
    d.aI[b] = a;
  }
}

}  // namespace articula::detail

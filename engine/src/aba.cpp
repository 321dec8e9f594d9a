// Articulated-body algorithm, Featherstone (2008) Table 7.1, in body
// coordinates. Gravity enters as a fictitious base acceleration −g.
#include "algorithms.hpp"

namespace articula::detail {

void articulatedBodyAlgorithm(const Model& m, const VectorXd& v, const VectorXd& tau,
                              const std::vector<Vector6d>& fext, const VectorXd& extraInertia,
                              int b0, int b1, Data& d, VectorXd& vdot) {
  // Pass 1 (outward): bias accelerations c_i and bias forces pA_i.
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const Vector6d& Vi = d.V[b];
    if (nv > 0) {
      const Vector6d Sqd = d.S.middleCols(va, nv) * v.segment(va, nv);
      d.c[b] = crossMotion(Vi, Sqd) + d.cJ[b];
    } else {
      d.c[b].setZero();
    }
    d.IA[b] = m.body_inertia[b];
    d.pA[b] = crossForce(Vi, m.body_inertia[b] * Vi) - fext[b];
  }

  // Pass 2 (inward): articulated inertias and bias forces.
  for (int i = b1 - 1; i >= b0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    Matrix6d Ia;
    Vector6d pa;
    if (nv == 1) {
      const auto s = d.S.col(va);
      const Vector6d U = d.IA[b] * s;
      const double D = s.dot(U) + extraInertia[va];
      const double Dinv = 1.0 / D;
      const double u = tau[va] - s.dot(d.pA[b]);
      d.U.col(va) = U;
      d.Dinv[b](0, 0) = Dinv;
      d.u[va] = u;
      if (p < 0) continue;
      Ia = d.IA[b] - (Dinv * U) * U.transpose();
      pa = d.pA[b] + Ia * d.c[b] + U * (Dinv * u);
    } else if (nv > 0) {
      const auto S = d.S.middleCols(va, nv);
      auto U = d.U.middleCols(va, nv);
      U.noalias() = d.IA[b] * S;
      Matrix6X6max D(nv, nv);
      D.noalias() = S.transpose() * U;
      D.diagonal() += extraInertia.segment(va, nv);
      Matrix6X6max Dinv(nv, nv);
      Dinv.noalias() = D.llt().solve(Matrix6X6max::Identity(nv, nv));
      d.Dinv[b].topLeftCorner(nv, nv) = Dinv;
      d.u.segment(va, nv).noalias() = tau.segment(va, nv) - S.transpose() * d.pA[b];
      if (p < 0) continue;
      const Matrix6X6max UDinv = U * Dinv;
      Ia.noalias() = d.IA[b] - UDinv * U.transpose();
      pa.noalias() = d.pA[b] + Ia * d.c[b] + UDinv * d.u.segment(va, nv);
    } else {
      if (p < 0) continue;
      Ia = d.IA[b];
      pa = d.pA[b] + Ia * d.c[b];
    }
    const auto pb = static_cast<std::size_t>(p);
    d.IA[pb] += transformInertia(d.X_PB[b], Ia);
    d.pA[pb] += d.X_PB[b].actForce(pa);
  }

  // Pass 3 (outward): accelerations.
  Vector6d aGravity;
  aGravity.head<3>().setZero();
  aGravity.tail<3>() = -m.gravity;
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    const Vector6d& aParent = p < 0 ? aGravity : d.a[static_cast<std::size_t>(p)];
    Vector6d ai = d.X_PB[b].invActMotion(aParent) + d.c[b];
    if (nv == 1) {
      const double qdd = d.Dinv[b](0, 0) * (d.u[va] - d.U.col(va).dot(ai));
      vdot[va] = qdd;
      ai += d.S.col(va) * qdd;
    } else if (nv > 0) {
      const auto Dinv = d.Dinv[b].topLeftCorner(nv, nv);
      auto qdd = vdot.segment(va, nv);
      qdd.noalias() = Dinv * (d.u.segment(va, nv) - d.U.middleCols(va, nv).transpose() * ai);
      ai.noalias() += d.S.middleCols(va, nv) * qdd;
    }
    d.a[b] = ai;
  }
}

}  // namespace articula::detail

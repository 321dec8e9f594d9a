// Spatial Jacobians in world coordinates: column k of the Jacobian of body
// i is Ad(X_W,body(k)) S_k for every DoF k supporting i (Featherstone §8.1),
// and its derivative d/dt(Ad S) = V^s × (Ad S) + Ad Ṡ with V^s the spatial
// velocity of body(k) in world coordinates.
#include "algorithms.hpp"

namespace articula::detail {

void spatialJacobianWorld(const Model& m, const Data& d, int body, int b0, int /*b1*/, Eigen::Ref<Matrix6Xd> J) {
  const int vbase = m.jnt_vadr[static_cast<std::size_t>(b0)];
  J.setZero();
  for (int k = body; k >= 0; k = m.body_parent[static_cast<std::size_t>(k)]) {
    const auto b = static_cast<std::size_t>(k);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    for (int c = 0; c < nv; ++c) J.col(va - vbase + c) = d.X_WB[b].actMotion(d.S.col(va + c));
  }
}

void spatialJacobianWorldDot(const Model& m, const Data& d, int body, int b0, int /*b1*/, Eigen::Ref<Matrix6Xd> Jdot) {
  const int vbase = m.jnt_vadr[static_cast<std::size_t>(b0)];
  Jdot.setZero();
  for (int k = body; k >= 0; k = m.body_parent[static_cast<std::size_t>(k)]) {
    const auto b = static_cast<std::size_t>(k);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    if (nv == 0) continue;
    const Vector6d Vs = d.X_WB[b].actMotion(d.V[b]);
    for (int c = 0; c < nv; ++c) {
      Vector6d col = crossMotion(Vs, d.X_WB[b].actMotion(d.S.col(va + c)));
      if (!m.jnt_constantS[b]) col += d.X_WB[b].actMotion(d.Sdot.col(va + c));
      Jdot.col(va - vbase + c) = col;
    }
  }
}

double kineticEnergy(const Model& m, const Data& d, const VectorXd& v, int b0, int b1) {
  double e = 0.0;
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    e += 0.5 * d.V[b].dot(m.body_inertia[b] * d.V[b]);
  }
  // Armature (reflected rotor inertia) is part of M, so it carries energy too.
  if (b1 > b0) {
    const int va = m.jnt_vadr[static_cast<std::size_t>(b0)];
    const int vend = m.jnt_vadr[static_cast<std::size_t>(b1 - 1)] + m.jnt_nv[static_cast<std::size_t>(b1 - 1)];
    for (int k = va; k < vend; ++k) e += 0.5 * m.dof_armature[k] * v[k] * v[k];
  }
  return e;
}

double potentialEnergy(const Model& m, const Data& d, const VectorXd& q, int b0, int b1) {
  double e = 0.0;
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const Vector3d c = d.X_WB[b].transformPoint(m.body_com[b]);
    e -= m.body_mass[b] * m.gravity.dot(c);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int qa = m.jnt_qadr[b];
    if (m.jnt_nq[b] != nv) continue;  // springs only on vector joints
    for (int k = 0; k < nv; ++k) {
      const double dx = q[qa + k] - m.dof_restPosition[va + k];
      e += 0.5 * m.dof_stiffness[va + k] * dx * dx;
    }
  }
  return e;
}

}  // namespace articula::detail

// Recursive Newton–Euler inverse dynamics, Featherstone (2008) Table 5.1,
// in body coordinates.
#include "algorithms.hpp"

namespace articula::detail {

void recursiveNewtonEuler(const Model& m, const VectorXd& v, const VectorXd& vdot,
                          const std::vector<Vector6d>* fext, bool withVelocity, bool withGravity,
                          int b0, int b1, Data& d, VectorXd& tau) {
  Vector6d aGravity = Vector6d::Zero();
  if (withGravity) aGravity.tail<3>() = -m.gravity;
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    const Vector6d& aParent = p < 0 ? aGravity : d.a[static_cast<std::size_t>(p)];
    Vector6d ai = d.X_PB[b].invActMotion(aParent);
    if (nv > 0) {
      ai.noalias() += d.S.middleCols(va, nv) * vdot.segment(va, nv);
      if (withVelocity) {
        const Vector6d Sqd = d.S.middleCols(va, nv) * v.segment(va, nv);
        ai += crossMotion(d.V[b], Sqd) + d.cJ[b];
      }
    }
    d.a[b] = ai;
    const Matrix6d& I = m.body_inertia[b];
    d.f[b] = I * ai;
    if (withVelocity) d.f[b] += crossForce(d.V[b], I * d.V[b]);
    if (fext != nullptr) d.f[b] -= (*fext)[b];
  }
  for (int i = b1 - 1; i >= b0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    if (nv > 0) {
      tau.segment(va, nv).noalias() = d.S.middleCols(va, nv).transpose() * d.f[b];
      tau.segment(va, nv) += m.dof_armature.segment(va, nv).cwiseProduct(vdot.segment(va, nv));
    }
    const int p = m.body_parent[b];
    if (p >= 0) d.f[static_cast<std::size_t>(p)] += d.X_PB[b].actForce(d.f[b]);
  }
}

}  // namespace articula::detail

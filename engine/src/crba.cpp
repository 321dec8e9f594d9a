// Composite-rigid-body algorithm, Featherstone (2008) Table 6.2.
#include "algorithms.hpp"

namespace articula::detail {

void compositeRigidBodyAlgorithm(const Model& m, int b0, int b1, Data& d, MatrixXd& M) {
  const int vbase = m.jnt_vadr[static_cast<std::size_t>(b0)];
  for (int i = b0; i < b1; ++i) d.IA[static_cast<std::size_t>(i)] = m.body_inertia[static_cast<std::size_t>(i)];
  for (int i = b1 - 1; i >= b0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int p = m.body_parent[b];
    if (p >= 0) d.IA[static_cast<std::size_t>(p)] += transformInertia(d.X_PB[b], d.IA[b]);
  }
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    if (nv == 0) continue;
    const int va = m.jnt_vadr[b];
    Matrix6X6max F(6, nv);
    F.noalias() = d.IA[b] * d.S.middleCols(va, nv);
    M.block(va - vbase, va - vbase, nv, nv).noalias() = d.S.middleCols(va, nv).transpose() * F;
    M.block(va - vbase, va - vbase, nv, nv).diagonal() += m.dof_armature.segment(va, nv);
    int j = i;
    while (m.body_parent[static_cast<std::size_t>(j)] >= 0) {
      for (int k = 0; k < nv; ++k) F.col(k) = d.X_PB[static_cast<std::size_t>(j)].actForce(F.col(k));
      j = m.body_parent[static_cast<std::size_t>(j)];
      const auto bj = static_cast<std::size_t>(j);
      const int nvj = m.jnt_nv[bj];
      if (nvj == 0) continue;
      const int vaj = m.jnt_vadr[bj];
      M.block(vaj - vbase, va - vbase, nvj, nv).noalias() = d.S.middleCols(vaj, nvj).transpose() * F;
      M.block(va - vbase, vaj - vbase, nv, nvj) = M.block(vaj - vbase, va - vbase, nvj, nv).transpose();
    }
  }
}

}  // namespace articula::detail

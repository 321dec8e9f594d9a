// Composite-rigid-body algorithm, Featherstone (2008) Table 6.2, evaluated in
// one fixed frame per tree (world axes, origin at the root body): composite
// inertias accumulate into the parent by plain addition, and
// M_ji = S_jᵀ · IC_i · S_i needs no force transforms along the path to the
// root, so the O(n·depth) part is one 6-vector dot product per (ancestor
// DoF, DoF) pair.
//
// Reads X_WB (written together with X_PB by forwardKinematicsPositions) and
// S. Scratch written in those coordinates: IA (composite inertias), Sw, Ow.
#include "algorithms.hpp"

namespace articula::detail {

using namespace kern;

[[gnu::flatten]] void compositeRigidBodyAlgorithm(const Model& m, int b0, int b1, Data& d, MatrixXd& M) {
  const int vbase = m.jnt_vadr[static_cast<std::size_t>(b0)];
  // World rigid inertias and motion subspaces.
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const SE3& X = d.X_WB[b];
    const M3 R = ldM3(X.R.data());
    // World axes, origin at the tree's root-body position (see aba.cpp).
    const int p = m.body_parent[b];
    const double* o = p < 0 ? X.p.data() : d.Ow[static_cast<std::size_t>(p)].data();
    const D3 t = ld3(X.p.data()) - ld3(o);
    st3(d.Ow[b].data(), ld3(o));
    worldRigidInertia(X.R.data(), t, m.body_mass[b], m.body_com[b], m.body_inertiaCom[b], d.IA[b].data());
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    for (int k = 0; k < nv; ++k) actMotion(R, t, d.S.col(va + k).data(), d.Sw.col(va + k).data());
  }
  // Composite inertias: IC_parent += IC_child (same coordinates).
  for (int i = b1 - 1; i >= b0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int p = m.body_parent[b];
    if (p < 0) continue;
    double* P = d.IA[static_cast<std::size_t>(p)].data();
    const double* C = d.IA[b].data();
#pragma GCC unroll 18
    for (int k = 0; k < 36; k += 2) store2(P + k, load2(P + k) + load2(C + k));
  }
  const Eigen::Index ld = M.rows();
  double* Md = M.data();
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    if (nv == 0) continue;
    const int va = m.jnt_vadr[b];
    const double* IC = d.IA[b].data();
    for (int k = 0; k < nv; ++k) {
      const int col = va + k;
      const V6 F = mul66(IC, d.Sw.col(col).data());
      double* Mc = Md + static_cast<Eigen::Index>(col - vbase) * ld;
      // Block of the joint itself (column col, rows va … va+nv−1).
      for (int r = 0; r < nv; ++r) Mc[va + r - vbase] = dot6(load6(d.Sw.col(va + r).data()), F);
      Mc[col - vbase] += m.dof_armature[col];
      // Ancestors.
      for (int j = m.body_parent[b]; j >= 0; j = m.body_parent[static_cast<std::size_t>(j)]) {
        const auto bj = static_cast<std::size_t>(j);
        const int nvj = m.jnt_nv[bj];
        const int vaj = m.jnt_vadr[bj];
        for (int r = 0; r < nvj; ++r) {
          const double val = dot6(load6(d.Sw.col(vaj + r).data()), F);
          const Eigen::Index row = vaj + r - vbase;
          Mc[row] = val;
          Md[static_cast<Eigen::Index>(col - vbase) + row * ld] = val;
        }
      }
    }
  }
}

}  // namespace articula::detail

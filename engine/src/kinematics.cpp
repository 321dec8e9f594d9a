// Forward kinematics: X_PB = X_PJ · X_J(q) · X_CJ⁻¹, body twists
// V_i = X_{i,λ} V_λ + S_i q̇_i and accelerations
// A_i = X_{i,λ} A_λ + S_i q̈_i + V_i × S_i q̇_i + Ṡ_i q̇_i (Featherstone §3.5).
#include "algorithms.hpp"
#include "joint_model.hpp"

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
  M = MatrixXd::Zero(m.nv, m.nv);
  q0 = VectorXd::Zero(m.nq);
  qk = VectorXd::Zero(m.nq);
  dq = VectorXd::Zero(m.nq);
  qdotk = VectorXd::Zero(m.nq);
  v0 = VectorXd::Zero(m.nv);
  vk = VectorXd::Zero(m.nv);
  dv = VectorXd::Zero(m.nv);
  // Constant motion subspaces are expressed in the body frame once.
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    if (nv == 0 || !m.jnt_constantS[b]) continue;
    Matrix6X6max SJ(6, nv);
    jointMotionSubspace(m, i, nullptr, SJ);
    m.jnt_childOffset[b].actMotionColumns(SJ, S.middleCols(m.jnt_vadr[b], nv));
  }
}

void forwardKinematicsPositions(const Model& m, const VectorXd& q, Data& d) {
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const double* qi = q.data() + m.jnt_qadr[b];
    const SE3 XJ = jointTransform(m, i, qi);
    d.X_PB[b] = m.jnt_parentOffset[b] * XJ * m.jnt_childOffset[b].inverse();
    const int p = m.body_parent[b];
    d.X_WB[b] = p < 0 ? d.X_PB[b] : d.X_WB[static_cast<std::size_t>(p)] * d.X_PB[b];
    const int nv = m.jnt_nv[b];
    if (nv > 0 && !m.jnt_constantS[b]) {
      Matrix6X6max SJ(6, nv);
      jointMotionSubspace(m, i, qi, SJ);
      m.jnt_childOffset[b].actMotionColumns(SJ, d.S.middleCols(m.jnt_vadr[b], nv));
    }
  }
}

void forwardKinematicsVelocities(const Model& m, const VectorXd& q, const VectorXd& v, Data& d) {
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    Vector6d Vi = p < 0 ? Vector6d::Zero() : d.X_PB[b].invActMotion(d.V[static_cast<std::size_t>(p)]);
    d.cJ[b].setZero();
    if (nv > 0) {
      Vi.noalias() += d.S.middleCols(va, nv) * v.segment(va, nv);
      if (!m.jnt_constantS[b]) {
        Matrix6X6max SdJ(6, nv);
        jointMotionSubspaceDot(m, i, q.data() + m.jnt_qadr[b], v.data() + va, SdJ);
        m.jnt_childOffset[b].actMotionColumns(SdJ, d.Sdot.middleCols(va, nv));
        d.cJ[b].noalias() = d.Sdot.middleCols(va, nv) * v.segment(va, nv);
      }
    }
    d.V[b] = Vi;
  }
}

void forwardKinematicsAccelerations(const Model& m, const VectorXd& v, const VectorXd& vdot, Data& d) {
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
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

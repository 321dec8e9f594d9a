// Loop closures and joint couplers in the step: their bilateral rows in the
// constraint solve, the accelerations they constrain for the explicit
// integrators, and the impulses they publish. See docs/loop-closures.md.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <limits>

namespace articula {
namespace detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Relative regularisation of hard bilateral rows (keeps exactly redundant
// closures solvable by the pivoting method; negligible otherwise).
constexpr double kBilateralRegularization = 1e-12;

}  // namespace

namespace {

// Target of a bilateral row with residual r: J·v⁺ = −errorReduction·r/h
// (Baumgarte), or an implicit spring-damper on r (compliance).
void setTarget(ConstraintRow& R, const LoopClosureRuntimePolicy& p, double residual, double h) {
  R.lo = -kInf;
  R.hi = kInf;
  if (p.stabilization == ClosureStabilization::Compliance) {
    // λ = −h(k(r + h·Jv⁺) + d·Jv⁺).
    const double kd = h * p.stiffness + p.damping;
    R.rhs = -p.stiffness / kd * residual;
    R.compliance = 1.0 / (h * kd);
  } else {
    R.rhs = -p.errorReduction * residual / h;
    R.compliance = -kBilateralRegularization;  // relative to the diagonal (see softness())
  }
}

}  // namespace

namespace {

bool solvedInStep(const LoopClosureRuntimePolicy& p) {
  return p.enabled && p.dynamics == ClosureDynamicsPolicy::Solve;
}

// One bilateral row J = dir·(B's motion) − dir·(A's motion); −1 when the
// row has no terms (both sides immovable, or a vanishing Jacobian).
int emitClosureRow(RowBuilder& B, const Anchor& a, const Anchor& b, const ClosureRow& row, int source) {
  const int r = B.row(RowKind::Bilateral, source);
  if (row.angular) {
    B.angularTerm(r, b.body, row.dir, 1.0);
    B.angularTerm(r, a.body, row.dir, -1.0);
  } else {
    B.pointTerm(r, b.body, row.pB, row.dir, 1.0);
    B.pointTerm(r, a.body, row.pA, row.dir, -1.0);
  }
  if (B.at(r).nside == 0) {
    B.drop(r);
    return -1;
  }
  auto& R = B.at(r);
  R.lo = -kInf;
  R.hi = kInf;
  return r;
}

int emitCouplerRow(RowBuilder& B, const WorldImpl& w, const CouplerRecord& c, int source) {
  const int r = B.row(RowKind::Bilateral, source);
  B.dofTerm(r, w.couplerDof(c.follower), 1.0);
  B.dofTerm(r, w.couplerDof(c.leader), -c.ratio);
  auto& R = B.at(r);
  R.lo = -kInf;
  R.hi = kInf;
  return r;
}

}  // namespace

void WorldImpl::addClosureRows(ConstraintWorkspace& ws, double h) {
  RowBuilder B(model, data, ws);
  for (std::uint32_t s = 0; s < closures.size(); ++s) {
    auto& c = closures[s];
    ClosureState& cs = state.closures[s];
    cs.solved = false;
    if (!c.alive || !solvedInStep(c.policy)) continue;
    const Anchor a = anchorOf(c.frameA);
    const Anchor b = anchorOf(c.frameB);
    const int n = numResidualRows(c.family);
    closureRows(c, c.rowsAtStep.data(), &cs.originA);
    cs.lambda.resize(static_cast<std::size_t>(n), 0.0);
    for (int i = 0; i < n; ++i) {
      const auto ii = static_cast<std::size_t>(i);
      const int r = emitClosureRow(B, a, b, c.rowsAtStep[ii], static_cast<int>(s));
      c.rowIndex[ii] = r;
      if (r < 0) continue;
      setTarget(B.at(r), c.policy, c.rowsAtStep[ii].residual, h);
      B.at(r).warm = cs.lambda[ii];
    }
    cs.solved = true;
  }
  for (std::uint32_t s = 0; s < couplers.size(); ++s) {
    auto& c = couplers[s];
    CouplerState& cs = state.couplers[s];
    cs.solved = false;
    c.rowIndex = -1;
    if (!c.alive || !solvedInStep(c.policy)) continue;
    const int r = emitCouplerRow(B, *this, c, static_cast<int>(s));
    setTarget(B.at(r), c.policy, couplerResidual(c), h);
    B.at(r).warm = cs.lambda;
    c.rowIndex = r;
    cs.solved = true;
  }
}

void WorldImpl::constrainAccelerations(const VectorXd& q, const VectorXd& v, double h, VectorXd& vdot, double weight,
                                       bool first) {
  // Rows at q (the caches hold the stage's kinematics and articulated-body
  // pass), their rate ṙ = J·v and the velocity-product term J̇·v from
  // central differences of the residuals along q ⊕ ±ε·v; then the
  // acceleration-level problem J·v̇ = −J̇·v − (2/τ)·ṙ − r/τ² with
  // τ = h / errorReduction, solved directly.
  auto& ws = accelerationRows;
  for (auto& cs : state.closures) cs.solved = false;
  ws.rows.clear();
  ws.J.clear();
  ws.points.clear();
  ws.pointNormalRow.clear();
  ws.pointFirstFriction.clear();
  // The trees the solved closures touch (their kinematics is differenced).
  auto& trees = projection.owners;
  trees.clear();
  auto addTree = [&](int body) {
    if (body < 0) return;
    const int o = model.body_owner[static_cast<std::size_t>(body)];
    if (std::find(trees.begin(), trees.end(), o) == trees.end()) trees.push_back(o);
  };
  for (std::size_t s = 0; s < closures.size(); ++s) {
    auto& c = closures[s];
    if (!c.alive || !solvedInStep(c.policy)) continue;
    addTree(anchorOf(c.frameA).body);
    addTree(anchorOf(c.frameB).body);
    closureRows(c, c.rowsAtStep.data(), &state.closures[s].originA);
  }
  if (!trees.empty()) {
    const double eps = 1e-4 / std::max(1.0, v.lpNorm<Eigen::Infinity>());
    for (int side = 0; side < 2; ++side) {
      const double sign = side == 0 ? 1.0 : -1.0;
      // (qdotk is free here: the stage's q̇ is computed after this call)
      for (const int o : trees) {
        const auto oo = static_cast<std::size_t>(o);
        const int b0 = model.owner_bodyadr[oo];
        const int b1 = b0 + model.owner_nbody[oo];
        for (int i = b0; i < b1; ++i) {
          const auto b = static_cast<std::size_t>(i);
          if (model.jnt_nv[b] == 0) continue;
          jointIntegrate(model.jnt_type[b], q.data() + model.jnt_qadr[b], v.data() + model.jnt_vadr[b], sign * eps,
                         data.qdotk.data() + model.jnt_qadr[b]);
        }
        forwardKinematicsPositions(model, data.qdotk, data, b0, b1);
      }
      for (auto& c : closures) {
        if (!c.alive || !solvedInStep(c.policy)) continue;
        std::array<ClosureRow, 6> rows;
        closureRows(c, rows.data());
        for (int k = 0; k < numResidualRows(c.family); ++k)
          c.differences[static_cast<std::size_t>(side)][static_cast<std::size_t>(k)] =
              rows[static_cast<std::size_t>(k)].residual;
      }
    }
    fkPosAt = 0;
    RowBuilder B(model, data, ws);
    for (std::uint32_t s = 0; s < closures.size(); ++s) {
      auto& c = closures[s];
      state.closures[s].solved = false;
      if (!c.alive || !solvedInStep(c.policy)) continue;
      const Anchor a = anchorOf(c.frameA);
      const Anchor b = anchorOf(c.frameB);
      const double tau = c.policy.errorReduction > 0.0 ? h / c.policy.errorReduction : 0.0;
      for (int i = 0; i < numResidualRows(c.family); ++i) {
        const auto ii = static_cast<std::size_t>(i);
        const double r = c.rowsAtStep[ii].residual;
        const double plus = c.differences[0][ii];
        const double minus = c.differences[1][ii];
        const double rate = (plus - minus) / (2.0 * eps);
        const double bias = (plus + minus - 2.0 * r) / (eps * eps);
        const int row = emitClosureRow(B, a, b, c.rowsAtStep[ii], static_cast<int>(s));
        c.rowIndex[ii] = row;
        if (row < 0) continue;
        auto& R = B.at(row);
        R.rhs = -bias - (tau > 0.0 ? 2.0 * rate / tau + r / (tau * tau) : 0.0);
        R.compliance = -kBilateralRegularization;
      }
      state.closures[s].solved = true;
    }
  }
  RowBuilder B(model, data, ws);
  for (std::uint32_t s = 0; s < couplers.size(); ++s) {
    auto& c = couplers[s];
    state.couplers[s].solved = false;
    c.rowIndex = -1;
    if (!c.alive || !solvedInStep(c.policy)) continue;
    const double tau = c.policy.errorReduction > 0.0 ? h / c.policy.errorReduction : 0.0;
    const auto bl = static_cast<std::size_t>(linkBody[c.leader]);
    const auto bf = static_cast<std::size_t>(linkBody[c.follower]);
    const double r = q[model.jnt_qadr[bf]] - c.ratio * q[model.jnt_qadr[bl]] - c.offset;
    const double rate = v[model.jnt_vadr[bf]] - c.ratio * v[model.jnt_vadr[bl]];
    const int row = emitCouplerRow(B, *this, c, static_cast<int>(s));
    auto& R = B.at(row);
    R.rhs = tau > 0.0 ? -2.0 * rate / tau - r / (tau * tau) : 0.0;
    R.compliance = -kBilateralRegularization;
    c.rowIndex = row;
    state.couplers[s].solved = true;
  }
  if (ws.rows.empty()) return;
  const ConstraintResult result = solveRows(model, data, directSolverOptions, vdot, ws);
  if (result.degenerate) warn("the closure rows of an RK4 stage were degenerate; projected Gauss-Seidel solved them");
  publishClosureImpulses(ws, weight, !first);
}

void WorldImpl::publishClosureImpulses(const ConstraintWorkspace& ws, double weight, bool accumulate) {
  for (std::size_t s = 0; s < closures.size(); ++s) {
    const ClosureRecord& c = closures[s];
    ClosureState& cs = state.closures[s];
    if (!c.alive || !cs.solved) continue;
    const int n = numResidualRows(c.family);
    Vector3d torque = Vector3d::Zero();
    Vector3d force = Vector3d::Zero();
    for (int i = 0; i < n; ++i) {
      const auto ii = static_cast<std::size_t>(i);
      const int r = c.rowIndex[ii];
      const double lam = r < 0 ? 0.0 : ws.rows[static_cast<std::size_t>(r)].lambda;
      if (!accumulate && weight == 1.0) cs.lambda[ii] = lam;
      if (lam == 0.0) continue;
      const ClosureRow& row = c.rowsAtStep[ii];
      if (row.angular) {
        torque += lam * row.dir;
      } else {
        force += lam * row.dir;
        torque += lam * (row.pB - cs.originA.p).cross(row.dir);
      }
    }
    Vector6d impulse;
    impulse.head<3>() = weight * (cs.originA.R.transpose() * torque);
    impulse.tail<3>() = weight * (cs.originA.R.transpose() * force);
    cs.impulse = accumulate ? Vector6d(cs.impulse + impulse) : impulse;
  }
  for (std::size_t s = 0; s < couplers.size(); ++s) {
    const CouplerRecord& c = couplers[s];
    CouplerState& cs = state.couplers[s];
    if (!c.alive || !cs.solved) continue;
    const double lam = c.rowIndex < 0 ? 0.0 : ws.rows[static_cast<std::size_t>(c.rowIndex)].lambda;
    if (!accumulate && weight == 1.0) cs.lambda = lam;
    cs.impulse = accumulate ? cs.impulse + weight * lam : weight * lam;
  }
}
}  // namespace detail
}  // namespace articula

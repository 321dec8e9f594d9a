// World::step orchestration. Reads top to bottom, one call per stage,
// each stage timed:
//   1. kinematics   forward kinematics of the current state (poses, twists)
//   2. dynamics     passive joint forces + articulated-body forward dynamics
//   3. integration  semi-implicit Euler or RK4 update of (q, v)
// No heap allocation happens here: every buffer lives in Data, sized when
// the model is compiled.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <chrono>

namespace articula::detail {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Joint springs and dampers. For semi-implicit Euler they are implicit in
// v_{n+1}: τ = −k (q_n + h v_{n+1} − r) − d v_{n+1}, which moves
// (k h² + d h) onto the joint-space diagonal (stable for any stiffness).
void passiveForces(const Model& m, const VectorXd& q, const VectorXd& v, const VectorXd& tau, double h,
                   VectorXd& tauTotal, VectorXd& extraInertia) {
  tauTotal = tau;
  extraInertia = m.dof_armature;
  if (!m.anySpringOrDamper) return;
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const bool vectorJoint = m.jnt_nq[b] == nv;
    for (int k = 0; k < nv; ++k) {
      const int dof = va + k;
      const double kd = m.dof_stiffness[dof];
      const double dd = m.dof_damping[dof];
      double t = -(dd + kd * h) * v[dof];
      if (vectorJoint && kd != 0.0) t -= kd * (q[m.jnt_qadr[b] + k] - m.dof_restPosition[dof]);
      tauTotal[dof] += t;
      extraInertia[dof] += kd * h * h + dd * h;
    }
  }
}

void integratePositions(const Model& m, const VectorXd& q, const VectorXd& v, double h, VectorXd& qOut) {
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    jointIntegrate(m.jnt_type[b], q.data() + m.jnt_qadr[b], v.data() + m.jnt_vadr[b], h, qOut.data() + m.jnt_qadr[b]);
  }
}

void positionDerivative(const Model& m, const VectorXd& q, const VectorXd& v, VectorXd& qdot) {
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    jointPositionDerivative(m.jnt_type[b], q.data() + m.jnt_qadr[b], v.data() + m.jnt_vadr[b],
                            qdot.data() + m.jnt_qadr[b]);
  }
}

}  // namespace

void WorldImpl::computeForwardDynamicsAll(const VectorXd& q, const VectorXd& v, bool implicitPassive, VectorXd& vdot) {
  const double h = implicitPassive ? options.timeStep : 0.0;
  passiveForces(model, q, v, state.tau, h, data.tauTotal, data.extraInertia);
  articulatedBodyAlgorithm(model, v, data.tauTotal, state.fext, data.extraInertia, 0, model.nbody, data, vdot);
}

void WorldImpl::enterSimulation() {
  if (simulation) return;
  validate();
  ensureModel();
  simulation = true;
  state.time = 0.0;
  state.frameIndex = 0;
  resetState = state;
}

void WorldImpl::stepOnce() {
  const double h = options.timeStep;
  const auto t0 = Clock::now();
  Clock::time_point t1;
  Clock::time_point t2;

  if (options.integrator == Integrator::SemiImplicitEuler) {
    // 1. kinematics. The articulated-body pass rebuilds velocities in its own
    // frame; the body-frame velocity pass is needed only for Ṡ·q̇ of joints
    // whose motion subspace depends on q.
    if (model.anyVaryingMotionSubspace) {
      ensureVelocities();
    } else {
      ensurePositions();
    }
    t1 = Clock::now();
    // 2. dynamics
    computeForwardDynamicsAll(state.q, state.v, true, state.vdot);
    t2 = Clock::now();
    // 3. integration: v ← v + h v̇, q ← q ⊕ h v
    state.v += h * state.vdot;
    data.q0 = state.q;
    integratePositions(model, data.q0, state.v, h, state.q);
  } else {
    // Classical RK4 on (q, v) with q̇ = G(q) v; passive forces explicit.
    data.q0 = state.q;
    data.v0 = state.v;
    data.dq.setZero();
    data.dv.setZero();
    double kinematicsTime = 0.0;
    double dynamicsTime = 0.0;
    static constexpr double kStageStep[4] = {0.0, 0.5, 0.5, 1.0};
    static constexpr double kWeight[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
    for (int s = 0; s < 4; ++s) {
      const auto ts = Clock::now();
      if (s == 0) {
        data.qk = data.q0;
        data.vk = data.v0;
      } else {
        data.qk = data.q0 + (kStageStep[s] * h) * data.qdotk;
        data.vk = data.v0 + (kStageStep[s] * h) * state.vdot;
      }
      forwardKinematicsPositions(model, data.qk, data);
      if (model.anyVaryingMotionSubspace) forwardKinematicsVelocities(model, data.qk, data.vk, data);
      const auto tk = Clock::now();
      computeForwardDynamicsAll(data.qk, data.vk, false, state.vdot);
      positionDerivative(model, data.qk, data.vk, data.qdotk);
      data.dq += kWeight[s] * data.qdotk;
      data.dv += kWeight[s] * state.vdot;
      kinematicsTime += seconds(ts, tk);
      dynamicsTime += seconds(tk, Clock::now());
    }
    t1 = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kinematicsTime));
    t2 = t1 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(dynamicsTime));
    state.q = data.q0 + h * data.dq;
    state.v = data.v0 + h * data.dv;
    state.vdot = data.dv;  // the step's average acceleration
    for (int i = 0; i < model.nbody; ++i) {
      const auto b = static_cast<std::size_t>(i);
      jointNormalize(model.jnt_type[b], state.q.data() + model.jnt_qadr[b]);
    }
    // The caches hold stage values now.
    fkPosAt = 0;
  }

  state.time += h;
  ++state.frameIndex;
  for (auto& w : state.fext) w.setZero();
  touchPositions();
  const auto t3 = Clock::now();
  timings.kinematics = seconds(t0, t1);
  timings.dynamics = seconds(t1, t2);
  timings.integration = seconds(t2, t3);
  timings.total = seconds(t0, t3);
}

}  // namespace articula::detail

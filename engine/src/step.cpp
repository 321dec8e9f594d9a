// World::step orchestration. stepOnce reads top to bottom: the step's
// start (controls, energy baseline), one function per integrator, and the
// step's end (projection, divergence, sensors). Every stage is timed by a
// scoped StageTimer into StepTimings:
//   control      the controller callback and the control targets
//   1. kinematics   forward kinematics of the current state (poses, twists)
//   2. collision    shape transforms to Bullet, broadphase + narrowphase
//   3. dynamics     passive joint forces + articulated-body forward dynamics
//   4. solve        constraint rows (contacts, friction, limits, closures),
//                   islands, the impulse solve → constrained velocities
//   5. integration  the update of (q, v)
//   6. projection   closures and couplers projected back onto their manifold
//   7. divergence   the new state's kinematics, energy check and sensors
//                   (counted as kinematics)
// RungeKutta4 times the kinematics and dynamics of each of its four
// evaluations into the same two stages.
// Contact-free worlds allocate nothing here: every buffer lives in Data,
// sized when the model is compiled. A step that produces non-finite values
// keeps the previous state and records a warning.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace articula::detail {

namespace {

using Clock = std::chrono::steady_clock;

// Converged steps in a row after which an unconverged solve records a new
// warning (one second at the default step).
constexpr long kQuietStepsBeforeNewWarning = 1000;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Joint springs and dampers. For semi-implicit Euler they are implicit in
// v_{n+1}: τ = −k (q_n + h v_{n+1} − r) − d v_{n+1}, which moves
// (k h² + d h) onto the joint-space diagonal (stable for any stiffness).
void passiveForces(const Model& m, const VectorXd& q, const VectorXd& v, const VectorXd& tau, double h,
                   VectorXd& tauTotal, VectorXd& extraInertia) {
  tauTotal = tau;
  if (m.anyEffortLimit) {
    for (int k = 0; k < m.nv; ++k) tauTotal[k] = std::clamp(tauTotal[k], -m.dof_effortLimit[k], m.dof_effortLimit[k]);
  }
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

// Free joints carry the body twist [ω_B; v_B]. Semi-implicit Euler on the
// body-frame linear velocity, v_B ← v_B + h(a_B − ω × v_B), lets |v| grow by
// h²|ω|²/2 per step on a spinning body. Instead the linear velocity is
// advanced in the frame of the step's start, v ← v + h·a_B (the "classical"
// acceleration, which the constraint rows of that frame see), positions
// move with it, and the result is re-expressed in the rotated frame:
// a spinning, force-free body keeps its world velocity exactly.
// ω × v of the free joint whose body twist [ω; v] starts at v[va].
Vector3d freeJointConvective(const VectorXd& v, int va) {
  return v.segment<3>(va).cross(v.segment<3>(va + 3));
}

void addConvectiveTerm(const Model& m, const VectorXd& vOld, double h, VectorXd& v) {
  for (const int body : m.freeJointBodies) {
    const int va = m.jnt_vadr[static_cast<std::size_t>(body)];
    v.segment<3>(va + 3) += h * freeJointConvective(vOld, va);
  }
}

void rotateIntoNewFrame(const Model& m, const VectorXd& vPositions, double h, VectorXd& v) {
  for (const int body : m.freeJointBodies) {
    const int va = m.jnt_vadr[static_cast<std::size_t>(body)];
    const Vector3d w = vPositions.segment<3>(va);
    const double angle = h * w.norm();
    if (angle == 0.0) continue;
    const Eigen::AngleAxisd inc(angle, w / w.norm());
    v.segment<3>(va + 3) = inc.inverse() * Vector3d(v.segment<3>(va + 3));
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
  if (model.nu > 0) {
    // Generalized gravity g(q) = RNEA(q, 0, 0) for gravity-compensating actuators.
    if (model.anyGravityCompensation) {
      recursiveNewtonEuler(model, v, data.act_zero, nullptr, false, true, 0, model.nbody, data, data.act_gravity);
    }
    actuatorForces(model, controls, q, v, state.act_integral, h, data);
  }
  articulatedBodyAlgorithm(model, v, data.tauTotal, state.fext, data.extraInertia, 0, model.nbody, data, vdot);
}

// Semi-implicit Euler takes the velocity-product (Coriolis, centrifugal,
// gyroscopic) terms at the step's start velocity. A chain with a nearly
// inertia-free direction (a slender tool spinning about its own axis, a
// light wrist) that turns fast makes those terms stiff: the explicit update
// then gains energy up to divergence, and a smaller step alone does not cure
// it. With f(v) the acceleration of the articulated-body algorithm at fixed
// q and forces (plus the free joints' convective term), the stiffness of a
// state is ‖∂f/∂v‖∞ (1/s). When some body of a chain turns faster than
// kImplicitAngularSpeed, ∂f/∂v is formed by one forward difference per DoF
// of the chain (one articulated-body pass over the chain's bodies each);
// when it is at least kImplicitStiffness, the chain's update is made
// implicit in those terms, linearised (as MuJoCo's "implicit" integrator):
//   (1 − h ∂f/∂v) Δv = h f(v₀).
// Below that bound the explicit update is kept: the implicit one is not
// energy-neutral for the coupling terms of a chain, whose power balances
// the change of M along the motion, and on a non-stiff state it gains more
// than the explicit one (a planar four-bar swinging through its whole
// range stays below 100/s). Both bounds are properties of the state, not
// of h. Slower chains, lone bodies and RK4 are unchanged
// (docs/loop-closures.md, "Fast chains").
constexpr double kImplicitAngularSpeed = 10.0;  // rad/s
constexpr double kImplicitStiffness = 100.0;    // 1/s

namespace {

// Adds the free joints' convective acceleration ω × v (body frame) of
// bodies [b0, b1) to out (indices relative to vadr0).
void addConvectiveAcceleration(const Model& m, const VectorXd& v, int b0, int b1, int vadr0, double* out) {
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    if (m.jnt_type[b] != JointType::Free) continue;
    const int va = m.jnt_vadr[b];
    const Vector3d c = freeJointConvective(v, va);
    for (int k = 0; k < 3; ++k) out[va + 3 + k - vadr0] += c[k];
  }
}

}  // namespace

void WorldImpl::implicitVelocityProducts(double h) {
  for (std::size_t c = 0; c < model.chainOwners.size(); ++c) {
    const auto o = static_cast<std::size_t>(model.chainOwners[c]);
    const int b0 = model.owner_bodyadr[o];
    const int b1 = b0 + model.owner_nbody[o];
    const int va = model.owner_vadr[o];
    const int n = model.owner_nv[o];
    // The articulated-body pass just left every body's world angular
    // velocity (the first three components of Vw) at the start velocity.
    double fastest = 0.0;
    for (int b = b0; b < b1; ++b) {
      fastest = std::max(fastest, data.Vw[static_cast<std::size_t>(b)].head<3>().squaredNorm());
    }
    if (fastest <= kImplicitAngularSpeed * kImplicitAngularSpeed) continue;
    // A = 1 − h ∂f/∂v, column by column.
    MatrixXd& A = data.imp_A[c];
    auto f0 = data.imp_f0.head(n);
    f0 = state.vdot.segment(va, n);
    addConvectiveAcceleration(model, state.v, b0, b1, va, f0.data());
    data.vk = state.v;
    for (int j = 0; j < n; ++j) {
      const double vj = state.v[va + j];
      const double eps = 1e-7 * (1.0 + std::abs(vj));
      data.vk[va + j] = vj + eps;
      articulatedBodyAlgorithm(model, data.vk, data.tauTotal, state.fext, data.extraInertia, b0, b1, data, data.dv);
      auto col = A.col(j);
      col = data.dv.segment(va, n);
      addConvectiveAcceleration(model, data.vk, b0, b1, va, col.data());
      col = (-h / eps) * (col - f0);
      col[j] += 1.0;
      data.vk[va + j] = vj;
    }
    double stiffness = 0.0;
    for (int i = 0; i < n; ++i) {
      double row = 0.0;
      for (int j = 0; j < n; ++j) row += std::abs(A(i, j) - (i == j ? 1.0 : 0.0));
      stiffness = std::max(stiffness, row);
    }
    // Back to the start velocity: the solve reuses this pass's scratch.
    articulatedBodyAlgorithm(model, state.v, data.tauTotal, state.fext, data.extraInertia, b0, b1, data, state.vdot);
    if (stiffness < kImplicitStiffness * h) continue;  // A − 1 = −h ∂f/∂v
    data.imp_lu[c].compute(A);
    auto dv = data.imp_dv.head(n);
    dv = data.imp_lu[c].solve(f0);  // Δv / h
    // v̇ such that v₀ + h v̇, plus the convective term the step adds after
    // this, is v₀ + Δv.
    state.vdot.segment(va, n) = dv;
    f0.setZero();
    addConvectiveAcceleration(model, state.v, b0, b1, va, f0.data());
    state.vdot.segment(va, n) -= f0;
    diagnostics.implicitVelocityProducts = true;
  }
}

void WorldImpl::enterSimulation() {
  if (simulation) return;
  validate();
  ensureModel();
  validateClosures();
  simulation = true;
  state.time = 0.0;
  state.frameIndex = 0;
  resolveActuatorDefaults();
  resetState = state;
  resetControls = controls;
  resetSensors();
}

bool WorldImpl::hasContactOrJointRows() const {
  return model.nshape > 0 || !model.limitDofs.empty() || !model.velocityLimitDofs.empty() ||
         !model.frictionDofs.empty() || !model.lockActuators.empty();
}

bool WorldImpl::hasConstraints() const {
  return hasContactOrJointRows() || anyDynamicClosures();
}

void WorldImpl::detectContacts() {
  auto& pts = constraints.points;
  pts.clear();
  if (model.nshape == 0) return;
  ensureCollision();
  if (!collision) return;
  collision->update(data.X_WB);
  collision->detect(pts);
  // Shapes switched off at run time keep their objects but make no contacts.
  pts.erase(std::remove_if(pts.begin(), pts.end(),
                           [&](const ContactPoint& c) {
                             return !model.shape_collidable[static_cast<std::size_t>(c.shapeA)] ||
                                    !model.shape_collidable[static_cast<std::size_t>(c.shapeB)];
                           }),
            pts.end());
}

void WorldImpl::publishContacts() {
  contacts.clear();
  const auto& ws = constraints;
  for (std::size_t c = 0; c < ws.points.size(); ++c) {
    const ContactPoint& p = ws.points[c];
    const auto sa = static_cast<std::size_t>(p.shapeA);
    const auto sb = static_cast<std::size_t>(p.shapeB);
    Contact out;
    const FrameRef fa = bodyFrame(model.shape_body[sa]);
    const FrameRef fb = bodyFrame(model.shape_body[sb]);
    out.frameA = detail::Access::frame(self, fa.kind, fa.index, fa.generation);
    out.frameB = detail::Access::frame(self, fb.kind, fb.index, fb.generation);
    out.shapeA = detail::Access::shape(self, model.shape_slot[sa], shapes[model.shape_slot[sa]].generation);
    out.shapeB = detail::Access::shape(self, model.shape_slot[sb], shapes[model.shape_slot[sb]].generation);
    out.point = 0.5 * (p.pointA + p.pointB);
    out.normal = p.normal;
    out.depth = -p.distance;
    out.age = p.age;
    const int nr = c < ws.pointNormalRow.size() ? ws.pointNormalRow[c] : -1;
    double f1 = 0.0;
    double f2 = 0.0;
    if (nr >= 0) {
      out.normalImpulse = ws.rows[static_cast<std::size_t>(nr)].lambda;
      const int f0 = ws.pointFirstFriction[c];
      if (f0 >= 0) {
        const int nf = frictionRowCount(options.solver);
        for (int k = 0; k < nf; ++k) {
          out.frictionImpulse += ws.rows[static_cast<std::size_t>(f0 + k)].lambda *
                                 frictionDirection(ws.pointTangent1[c], ws.pointTangent2[c], k, nf);
        }
        f1 = out.frictionImpulse.dot(ws.pointTangent1[c]);
        f2 = out.frictionImpulse.dot(ws.pointTangent2[c]);
      }
    }
    if (p.cache != nullptr) CollisionDetector::storeImpulse(p.cache, out.normalImpulse, f1, f2);
    contacts.push_back(out);
  }
}

namespace {

// Adds the wall-clock time of its scope to one stage of StepTimings.
class StageTimer {
 public:
  explicit StageTimer(double& stage) : m_stage(stage), m_start(Clock::now()) {}
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;
  ~StageTimer() { m_stage += seconds(m_start, Clock::now()); }

 private:
  double& m_stage;
  Clock::time_point m_start;
};

}  // namespace

void WorldImpl::stepOnce() {
  const auto start = Clock::now();
  timings = StepTimings{};
  diagnostics = StepDiagnostics{};
  const bool constrained = hasConstraints();
  beginStep();
  if (options.integrator == Integrator::SemiImplicitEuler) {
    stepSemiImplicitEuler(constrained);
  } else {
    stepRungeKutta4();
  }
  finishStep(constrained);
  timings.total = seconds(start, Clock::now());
}

void WorldImpl::beginStep() {
  {
    // The controller callback and the control targets it sets.
    const StageTimer timer(timings.control);
    data.q0 = state.q;
    data.v0 = state.v;
    if (model.nu > 0) {
      prepareControls();
      data.act_integral0 = state.act_integral;
    }
  }
  // The energy baseline is the state this step starts from whenever that
  // state, or what defines its energy, was changed outside a step.
  const EnergyMonitor& em = energyMonitor;
  if (energyCheckApplies() && (em.qVersion != qVersion || em.vVersion != vVersion || em.gravity != options.gravity ||
                               em.timeStep != options.timeStep)) {
    const StageTimer timer(timings.kinematics);
    takeEnergyBaseline();
  }
}

void WorldImpl::stepSemiImplicitEuler(bool constrained) {
  const double h = options.timeStep;
  // The body velocities of the step's start, when the caches hold them (the
  // divergence check of the step before computed them): sensors and joint
  // forces evaluated inside this step reuse them. Nothing in the step
  // writes them before it records its outputs.
  startVelocitiesCached = fkPosAt == qVersion && fkVelAt == vVersion;
  {
    // 1. kinematics. The articulated-body pass rebuilds velocities in its
    // own frame; the body-frame velocity pass is needed only for Ṡ·q̇ of
    // joints whose motion subspace depends on q.
    const StageTimer timer(timings.kinematics);
    if (model.anyVaryingMotionSubspace) {
      ensureVelocities();
    } else {
      ensurePositions();
    }
  }
  if (constrained) {
    // 2. collision
    const StageTimer timer(timings.collision);
    detectContacts();
  }
  {
    // 3. dynamics: v* = v + h v̇(τ, f_ext)
    const StageTimer timer(timings.dynamics);
    computeForwardDynamicsAll(state.q, state.v, true, state.vdot);
    implicitVelocityProducts(h);
    state.v += h * state.vdot;
    addConvectiveTerm(model, data.v0, h, state.v);
  }
  // 4. solve: v ← v* + M̃⁻¹ Jᵀ λ
  const VectorXd* positionVelocity = &state.v;
  {
    const StageTimer timer(timings.solve);
    if (constrained) positionVelocity = solveConstraints(h);
    if (model.nu > 0) {
      actuatorOutputs(model, state.v, data);
      for (const int a : model.lockActuators) {
        const int row = data.act_row[static_cast<std::size_t>(a)];
        data.act_force[a] = row >= 0 ? constraints.rows[static_cast<std::size_t>(row)].lambda / h : 0.0;
      }
    }
    recordStep(state.time, true);
  }
  // 5. integration: q ← q ⊕ h v (v already updated)
  const StageTimer timer(timings.integration);
  integratePositions(model, data.q0, *positionVelocity, h, state.q);
  rotateIntoNewFrame(model, *positionVelocity, h, state.v);
  if (model.nu > 0) integrateActuators(model, controls, state.q, h, state.act_integral);
}

const VectorXd* WorldImpl::solveConstraints(double h) {
  constraints.vStar = state.v;
  buildStandardRows(model, data, options.solver, h, data.q0, data.v0, state.v, constraints);
  addClosureRows(constraints, h);
  if (!model.lockActuators.empty()) addLockRows(constraints, h);
  const ConstraintResult r = solveRows(model, data, options.solver, state.v, constraints, executor.get());
  reportSolve(r);
  state.vdot += (state.v - constraints.vStar) / h;
  const VectorXd* positionVelocity = &state.v;
  if (options.solver.errorCorrection == ErrorCorrection::SplitImpulse && constraints.vPos.size() == model.nv &&
      !constraints.vPos.isZero(0.0)) {
    data.vk = state.v + constraints.vPos;
    positionVelocity = &data.vk;
  }
  publishContacts();
  publishClosureImpulses(constraints, 1.0, false);
  return positionVelocity;
}

void WorldImpl::reportSolve(const ConstraintResult& r) {
  diagnostics.numContacts = static_cast<int>(constraints.points.size());
  diagnostics.numRows = r.rows;
  diagnostics.numIslands = r.islands;
  diagnostics.iterations = r.iterations;
  diagnostics.innerIterations = r.inner;
  diagnostics.residual = r.residual;
  diagnostics.converged = r.residual <= options.solver.convergenceTolerance;
  diagnostics.fallback = r.fallback;
  if (!diagnostics.converged) {
    if (unconvergedRun++ == 0) {
      std::ostringstream os;
      os << "the constraint solve (" << options.solver.method << ") did not converge: residual " << r.residual
         << " m/s after " << r.iterations << " iterations, above the tolerance of "
         << options.solver.convergenceTolerance
         << " (ConstraintSolverOptions::convergenceTolerance); StepDiagnostics::converged says which steps";
      warn(os.str());
    }
    convergedRun = 0;
  } else if (++convergedRun >= kQuietStepsBeforeNewWarning) {
    // A solve that converges on and off (a pile, a stack near its
    // tolerance) records one warning, not one (and an allocation) every few
    // steps.
    unconvergedRun = 0;
  }
  // Fallback warnings, like the convergence one, are recorded when a run of
  // such steps starts, so that a long run of them does not push every other
  // warning out of the bounded list.
  if (r.degenerate && !fallbackRun.degenerate) {
    warn(
        "the pivoting method failed on a degenerate island (singular pivot or pivot limit); projected "
        "Gauss-Seidel solved it instead");
  }
  if (r.largestTooLarge > 0 && !fallbackRun.tooLarge) {
    warn("an island of " + std::to_string(r.largestTooLarge) +
         " rows is larger than the pivoting method takes (600); projected Gauss-Seidel solved it instead");
  }
  fallbackRun.degenerate = r.degenerate;
  fallbackRun.tooLarge = r.largestTooLarge > 0;
}

void WorldImpl::stepRungeKutta4() {
  const double h = options.timeStep;
  const bool closuresInDynamics = anyDynamicClosures();
  if (hasContactOrJointRows() && !warnedRk4Constraints) {
    warn(
        "the RungeKutta4 integrator ignores contacts, joint limits, joint friction and actuator locks (loop "
        "closures and couplers are solved); use SemiImplicitEuler");
    warnedRk4Constraints = true;
  }
  // Classical RK4 on (q, v) with q̇ = G(q) v; passive forces explicit. Each
  // of the four stages times its kinematics and its dynamics.
  data.dq.setZero();
  data.dv.setZero();
  static constexpr double kStageStep[4] = {0.0, 0.5, 0.5, 1.0};
  static constexpr double kWeight[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  for (int s = 0; s < 4; ++s) {
    {
      const StageTimer timer(timings.kinematics);
      if (s == 0) {
        data.qk = data.q0;
        data.vk = data.v0;
      } else {
        data.qk = data.q0 + (kStageStep[s] * h) * data.qdotk;
        data.vk = data.v0 + (kStageStep[s] * h) * state.vdot;
      }
      forwardKinematicsPositions(model, data.qk, data);
      if (model.anyVaryingMotionSubspace) forwardKinematicsVelocities(model, data.qk, data.vk, data);
    }
    const StageTimer timer(timings.dynamics);
    computeForwardDynamicsAll(data.qk, data.vk, false, state.vdot);
    if (closuresInDynamics) constrainAccelerations(data.qk, data.vk, h, state.vdot, kWeight[s] * h, s == 0);
    positionDerivative(model, data.qk, data.vk, data.qdotk);
    data.dq += kWeight[s] * data.qdotk;
    data.dv += kWeight[s] * state.vdot;
  }
  const StageTimer timer(timings.integration);
  state.q = data.q0 + h * data.dq;
  state.v = data.v0 + h * data.dv;
  state.vdot = data.dv;  // the step's average acceleration
  for (int i = 0; i < model.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    jointNormalize(model.jnt_type[b], state.q.data() + model.jnt_qadr[b]);
  }
  // The caches hold stage values now.
  fkPosAt = 0;
  if (model.nu > 0) {
    actuatorOutputs(model, state.v, data);
    integrateActuators(model, controls, state.q, h, state.act_integral);
  }
  recordStep(state.time, false);
}

void WorldImpl::finishStep(bool constrained) {
  const double h = options.timeStep;
  if (!state.q.allFinite() || !state.v.allFinite()) {
    rejectStep(
        "the step produced non-finite positions or velocities (non-finite applied forces, or a degenerate "
        "problem)");
  }
  if (diagnostics.failed || (!constrained && options.integrator == Integrator::SemiImplicitEuler)) {
    forgetClosureForces();
  }
  if (!diagnostics.failed && (!closures.empty() || !couplers.empty())) {
    // 6. projection: position stabilisation of closed chains, back onto the
    // closures.
    const StageTimer timer(timings.projection);
    projection.lockedBodies.clear();
    ClosureProjectionOptions po;
    // RK4 rows act on accelerations: the velocities are projected as well.
    po.projectVelocities = options.integrator == Integrator::RungeKutta4;
    const ClosureProjectionResult pr = project(po, true, true);
    if (!pr.success) warn("closure projection after the step failed: " + pr.message);
  }
  // 7. divergence: a finite but exploding result is rejected too. Its
  // kinematics of the new state serve the next step's stage 1 and the
  // sensors, so its time counts as kinematics.
  const StageTimer timer(timings.kinematics);
  touchPositions();
  if (!diagnostics.failed) {
    if (const std::string why = checkDivergence(h); !why.empty()) {
      rejectStep(why);
      forgetClosureForces();
      touchPositions();
    }
  }
  // Versions the next step compares against (0: take a baseline then).
  energyMonitor.qVersion = energyCheckApplies() ? qVersion : 0;
  energyMonitor.vVersion = vVersion;

  state.time += h;
  ++state.frameIndex;
  if (diagnostics.failed) stepRecord.valid = false;
  if (!sensorNames.empty()) updateSensors();
  for (auto& w : state.fext) w.setZero();
}

double WorldImpl::totalEnergy(double* kinetic) {
  ensureVelocities();
  const double k = kineticEnergy(model, data, state.v, 0, model.nbody);
  if (kinetic != nullptr) *kinetic = k;
  return k + potentialEnergy(model, data, state.q, 0, model.nbody);
}

bool WorldImpl::energyCheckApplies() const {
  if (!(options.divergence.energyGainFraction > 0.0)) return false;
  return std::none_of(frames.begin(), frames.end(), [](const UserFrameRecord& f) { return f.alive && f.isFree; });
}

void WorldImpl::takeEnergyBaseline() {
  EnergyMonitor& e = energyMonitor;
  e.budget = totalEnergy(&e.peakKinetic);
  double mass = 0.0;
  for (int i = 0; i < model.nbody; ++i) mass += model.body_mass[static_cast<std::size_t>(i)];
  e.floor = std::max(options.divergence.energyFloor, 0.01 * mass * options.gravity.norm());
  e.gravity = options.gravity;
  e.timeStep = options.timeStep;
}

// Two signs of a step that blew up while staying finite (documented in
// docs/conventions.md, "Divergence"): a velocity coordinate beyond
// maxSpeed, or energy that no input supplied. The energy balance over one
// step is E(q₊, v₊) ≤ budget + W with W = h (τ·v₊ + Σ f_ext·V₊), the work
// of the applied joint forces and wrenches held over the step; gravity and
// springs are in E, and damping, friction, limits and contacts only take
// energy out, up to the solver's small position corrections, which the
// allowance (a fraction of the peak kinetic energy) covers.
std::string WorldImpl::checkDivergence(double h) {
  const DivergenceOptions& o = options.divergence;
  if (o.maxSpeed > 0.0 && model.nv > 0) {
    Eigen::Index k = 0;
    const double fastest = state.v.cwiseAbs().maxCoeff(&k);
    if (fastest > o.maxSpeed) {
      std::ostringstream os;
      os << "velocity coordinate " << k << " reached " << fastest << " (rad/s or m/s), beyond the limit of "
         << o.maxSpeed << " (WorldOptions::divergence.maxSpeed)";
      return os.str();
    }
  }
  if (!energyCheckApplies()) return {};
  EnergyMonitor& e = energyMonitor;
  double kinetic = 0.0;
  const double energy = totalEnergy(&kinetic);
  double work = h * state.tau.dot(state.v);
  for (int a = 0; a < model.nu; ++a) {
    work += h * data.act_force[a] * state.v[model.act_dof[static_cast<std::size_t>(a)]];
  }
  for (int i = 0; i < model.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    work += h * state.fext[b].dot(data.V[b]);
  }
  // Rows whose velocity target is separating (penetration or limit
  // correction, restitution) may add kinetic energy: at most λ·target each
  // (for J v⁺ = b reached from J v* ≤ b, ΔT = λ (J v* + b)/2 ≤ λ b). A
  // robot that starts inside the ground or past a limit is pushed out by
  // its contacts; that energy has a source.
  for (int r = 0; r < diagnostics.numRows && r < static_cast<int>(constraints.rows.size()); ++r) {
    const ConstraintRow& row = constraints.rows[static_cast<std::size_t>(r)];
    work += std::max(0.0, row.lambda * row.rhs);
    work += std::max(0.0, row.lambdaPosition * row.rhsPosition);
  }
  const double budget = e.budget + work;
  const double peak = std::max(e.peakKinetic, kinetic);
  const double allowed = std::max(o.energyGainFraction * peak, e.floor);
  if (energy - budget > allowed) {
    std::ostringstream os;
    os << "the total energy rose to " << energy << " J, " << (energy - budget)
       << " J more than the applied forces supplied (allowed: " << allowed
       << " J, WorldOptions::divergence.energyGainFraction)";
    return os.str();
  }
  // Energy lost (damping, contacts) lowers the budget: a later gain is
  // measured from where the system is, not from where it started.
  e.budget = std::min(budget, energy);
  e.peakKinetic = peak;
  return {};
}

void WorldImpl::rejectStep(const std::string& why) {
  state.q = data.q0;
  state.v = data.v0;
  state.vdot.setZero();
  if (model.nu > 0) state.act_integral = data.act_integral0;
  diagnostics.failed = true;
  diagnostics.message = why + "; the previous state was kept";
  warn(diagnostics.message);
  contacts.clear();
}

void WorldImpl::forgetClosureForces() {
  for (auto& cs : state.closures) cs.solved = false;
  for (auto& cs : state.couplers) cs.solved = false;
}

}  // namespace articula::detail

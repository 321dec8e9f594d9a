// Joint reactions and contact wrenches of the last step (Joint::getReaction,
// World::getContactWrench).
//
// The step keeps copies of what it used (StepRecord); everything else is
// evaluated on demand from the step's start state (Data::q0, v0) and its
// accelerations State::vdot, which include the constraint impulses:
//   f_ext,b  = applied wrench + contact forces + loop-closure forces (impulses / h)
//   f_b      = RNEA(q0, v0, v̇, f_ext)   the force the parent applies through b's joint
// and the generalized forces of the step by cause (applied, actuators,
// implicit springs and dampers at v⁺, joint-space rows). For semi-implicit
// Euler the two agree: Sᵀf_b = Σ causes − armature·v̇ (docs/forces.md).
#include "world_impl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace articula::detail {

namespace {

template <class T>
void sizeLike(std::vector<T>& v, int n) {
  if (static_cast<int>(v.size()) != n) v.resize(static_cast<std::size_t>(n));
}
void sizeLike(VectorXd& v, int n) {
  if (v.size() != n) v.resize(n);
}

// World-coordinate wrench [torque about x; force] of force F at point p.
Vector6d wrenchAbout(const Vector3d& x, const Vector3d& p, const Vector3d& F) {
  Vector6d w;
  w.head<3>() = (p - x).cross(F);
  w.tail<3>() = F;
  return w;
}

// A world-coordinate wrench about the body origin, in body coordinates.
Vector6d toBody(const SE3& X_WB, const Vector6d& w) {
  Vector6d r;
  r.head<3>() = X_WB.R.transpose() * w.head<3>();
  r.tail<3>() = X_WB.R.transpose() * w.tail<3>();
  return r;
}

}  // namespace

void WorldImpl::recordStep(double startTime, bool kinematicsAtStart) {
  StepRecord& r = stepRecord;
  sizeLike(r.vPlus, model.nv);
  sizeLike(r.tau, model.nv);
  sizeLike(r.vdot, model.nv);
  sizeLike(r.fext, model.nbody);
  r.vPlus = state.v;
  r.tau = state.tau;
  r.vdot = state.vdot;
  for (std::size_t b = 0; b < r.fext.size(); ++b) r.fext[b] = state.fext[b];
  r.time = startTime;
  ++r.serial;
  r.valid = true;
  stepForcesEvaluated = false;
  // Sensors due in this step are evaluated here, while the kinematic
  // caches still hold the step's start: no pass is repeated for them.
  // So are the joint forces when someone read those of the step before
  // (a controller or logger reading them every step).
  if (!kinematicsAtStart) return;
  const bool forces = forcesAskedAt != 0 && forcesAskedAt + 1 == r.serial;
  bool due = false;
  bool motion = false;
  for (const SensorRecord& s : sensors) {
    if (!s.alive || !sensorDue(s)) continue;
    due = true;
    motion = motion || s.spec.type == SensorType::Imu || s.spec.type == SensorType::ForceTorque;
  }
  if (due || forces) evaluateStep(motion, forces, true);
}

void WorldImpl::evaluateStep(bool motion, bool forces, bool inStep) {
  StepRecord& r = stepRecord;
  const int nb = model.nbody;
  const double h = options.timeStep;
  if (r.evaluated != r.serial) {
    r.evaluated = r.serial;
    r.haveMotion = false;
    stepForcesEvaluated = false;
    r.haveBase = false;
  }
  // Kinematics of the step's start, computed only as far as asked. After
  // the step the caches then hold q0 and v0, not the current state: they
  // are marked stale. Inside the step (before the integration) they hold
  // q0, and v0 when the joints' motion subspaces vary (stage 1 computed the
  // velocities then) or when the step started with fresh velocities; the
  // step marks every cache stale at its end.
  bool positions = inStep;
  bool velocities = inStep && (model.anyVaryingMotionSubspace || startVelocitiesCached);
  bool touched = false;
  const auto needPositions = [&] {
    if (positions) return;
    forwardKinematicsPositions(model, data.q0, data);
    positions = touched = true;
  };
  const auto needVelocities = [&] {
    needPositions();
    if (velocities) return;
    forwardKinematicsVelocities(model, data.q0, data.v0, data);
    velocities = touched = true;
  };
  if (!r.haveBase) {
    sizeLike(r.X_WB, nb);
    sizeLike(r.fAll, nb);
    sizeLike(r.contactWrench, nb);
    needPositions();
    for (int i = 0; i < nb; ++i) {
      const auto b = static_cast<std::size_t>(i);
      r.X_WB[b] = data.X_WB[b];
      r.contactWrench[b].setZero();
      r.fAll[b] = r.fext[b];
    }
    // Contacts: the published impulses on A (and their opposite on B).
    const auto& ws = constraints;
    for (std::size_t c = 0; c < contacts.size() && c < ws.points.size(); ++c) {
      const Contact& k = contacts[c];
      const Vector3d F = (k.normalImpulse * k.normal + k.frictionImpulse) / h;
      const int bodies[2] = {model.shape_body[static_cast<std::size_t>(ws.points[c].shapeA)],
                             model.shape_body[static_cast<std::size_t>(ws.points[c].shapeB)]};
      for (int s = 0; s < 2; ++s) {
        if (bodies[s] < 0) continue;
        const auto b = static_cast<std::size_t>(bodies[s]);
        const Vector6d w = wrenchAbout(r.X_WB[b].p, k.point, s == 0 ? F : Vector3d(-F));
        r.contactWrench[b] += w;
        r.fAll[b] += toBody(r.X_WB[b], w);
      }
    }
    // Loop closures: the impulse on B's body about A's endpoint, A coordinates.
    for (std::size_t slot = 0; slot < closures.size(); ++slot) {
      const ClosureRecord& c = closures[slot];
      const ClosureState& cs = state.closures[slot];
      if (!c.alive || !cs.solved) continue;
      const Vector3d F = cs.originA.R * cs.impulse.tail<3>() / h;
      const Vector3d T = cs.originA.R * cs.impulse.head<3>() / h;
      const int bodies[2] = {anchorOf(c.frameB).body, anchorOf(c.frameA).body};
      for (int s = 0; s < 2; ++s) {
        if (bodies[s] < 0) continue;
        const auto b = static_cast<std::size_t>(bodies[s]);
        Vector6d w = wrenchAbout(r.X_WB[b].p, cs.originA.p, F);
        w.head<3>() += T;
        r.fAll[b] += toBody(r.X_WB[b], s == 0 ? w : Vector6d(-w));
      }
    }
    r.haveBase = true;
  }
  if ((motion || forces) && !r.haveMotion) {
    sizeLike(r.V, nb);
    sizeLike(r.A, nb);
    needVelocities();
    forwardKinematicsAccelerations(model, data.v0, r.vdot, data);
    // Taken over rather than copied: the kinematic caches no longer hold
    // velocities or accelerations (the buffers keep their sizes).
    std::swap(r.V, data.V);
    std::swap(r.A, data.A);
    fkVelAt = 0;
    fkAccAt = 0;
    r.haveMotion = true;
  }
  if (forces && !stepForcesEvaluated) {
    needPositions();  // the motion subspaces and parent transforms of the step's start
    evaluateForces();
  }
  if (touched && !inStep) {
    fkPosAt = 0;
    fkVelAt = 0;
    fkAccAt = 0;
  }
}

// The joint forces and their causes; the kinematic caches hold the step's
// start positions (motion subspaces) and StepRecord its motion.
void WorldImpl::evaluateForces() {
  StepRecord& r = stepRecord;
  const int nb = model.nbody;
  const int nv = model.nv;
  const double h = options.timeStep;
  sizeLike(r.jointForce, nb);
  for (VectorXd* v :
       {&r.applied, &r.actuator, &r.spring, &r.damper, &r.friction, &r.limit, &r.coupler, &r.inertia, &r.total}) {
    sizeLike(*v, nv);
    v->setZero();
  }
  // The backward pass of recursive Newton–Euler on the accelerations of
  // the step (its forward pass is the acceleration kinematics, done): each
  // body's f = I (a − g) + v ×* I v − f_ext, children's added to parents.
  for (int i = 0; i < nb; ++i) {
    const auto k = static_cast<std::size_t>(i);
    Vector6d a = r.A[k];
    a.tail<3>() -= r.X_WB[k].R.transpose() * model.gravity;
    const Matrix6d& I = model.body_inertia[k];
    const Vector6d hm = I * r.V[k];
    Vector6d f = I * a - r.fAll[k];
    f.head<3>() += r.V[k].head<3>().cross(hm.head<3>()) + r.V[k].tail<3>().cross(hm.tail<3>());
    f.tail<3>() += r.V[k].head<3>().cross(hm.tail<3>());
    r.jointForce[k] = f;
  }
  for (int i = nb - 1; i >= 0; --i) {
    const auto k = static_cast<std::size_t>(i);
    const int p = model.body_parent[k];
    if (p < 0) continue;
    const auto pk = static_cast<std::size_t>(p);
    r.jointForce[pk] += data.X_PB[k].actForce(r.jointForce[k]);
  }
  if (r.S.cols() != nv) r.S.resize(6, nv);
  r.S = data.S;
  for (int i = 0; i < nb; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int va = model.jnt_vadr[b];
    for (int k = 0; k < model.jnt_nv[b]; ++k) r.total[va + k] = r.S.col(va + k).dot(r.jointForce[b]);
  }

  // Generalized forces by cause.
  const bool euler = options.integrator == Integrator::SemiImplicitEuler;
  for (int k = 0; k < nv; ++k) {
    double t = r.tau[k];
    if (model.anyEffortLimit) t = std::clamp(t, -model.dof_effortLimit[k], model.dof_effortLimit[k]);
    r.applied[k] = t;
    r.inertia[k] = -model.dof_armature[k] * r.vdot[k];
  }
  for (int a = 0; a < model.nu; ++a) r.actuator[model.act_dof[static_cast<std::size_t>(a)]] += data.act_force[a];
  if (model.anySpringOrDamper) {
    const VectorXd& vel = euler ? r.vPlus : data.v0;
    for (int i = 0; i < nb; ++i) {
      const auto b = static_cast<std::size_t>(i);
      const int n = model.jnt_nv[b];
      const int va = model.jnt_vadr[b];
      const bool vectorJoint = model.jnt_nq[b] == n;
      for (int k = 0; k < n; ++k) {
        const int dof = va + k;
        const double kd = model.dof_stiffness[dof];
        double s = euler ? -kd * h * vel[dof] : 0.0;
        if (vectorJoint && kd != 0.0) s -= kd * (data.q0[model.jnt_qadr[b] + k] - model.dof_restPosition[dof]);
        r.spring[dof] = s;
        r.damper[dof] = -model.dof_damping[dof] * vel[dof];
      }
    }
  }
  // Joint-space rows: Jᵀλ / h into their cause (lock rows are actuator forces).
  const auto& ws = constraints;
  auto addRow = [&](int row, VectorXd& into) {
    if (row < 0 || row >= diagnostics.numRows || row >= static_cast<int>(ws.rows.size())) return;
    const ConstraintRow& cr = ws.rows[static_cast<std::size_t>(row)];
    for (int s = 0; s < cr.nside; ++s) {
      const RowSide& side = cr.side[s];
      for (int k = 0; k < side.n; ++k) {
        into[side.vadr + k] += ws.J[static_cast<std::size_t>(side.offset + k)] * cr.lambda / h;
      }
    }
  };
  if (euler && !diagnostics.failed) {
    for (int row = 0; row < diagnostics.numRows && row < static_cast<int>(ws.rows.size()); ++row) {
      const ConstraintRow& cr = ws.rows[static_cast<std::size_t>(row)];
      const bool limit = cr.kind == RowKind::PositionLimit || cr.kind == RowKind::VelocityLimit;
      if (!limit && cr.kind != RowKind::JointFriction) continue;
      // A DoF row: one Jacobian entry, at its DoF (the source).
      const RowSide& side = cr.side[0];
      const int dof = cr.source;
      (limit ? r.limit : r.friction)[dof] +=
          ws.J[static_cast<std::size_t>(side.offset + dof - side.vadr)] * cr.lambda / h;
    }
    for (std::size_t slot = 0; slot < couplers.size(); ++slot) {
      const CouplerRecord& c = couplers[slot];
      if (c.alive && state.couplers[slot].solved) addRow(c.rowIndex, r.coupler);
    }
  }
  stepForcesEvaluated = true;
}

WorldImpl::ReactionWrenches WorldImpl::reactionWrenches(std::uint32_t linkSlot, const Frame* coordinates, bool split) {
  ReactionWrenches out;
  ensureModel();
  const int body = linkBody[linkSlot];
  if (!simulation || !stepRecord.valid || body < 0) return out;
  forcesAskedAt = stepRecord.serial;
  evaluateStep(false, true);
  const StepRecord& r = stepRecord;
  const auto b = static_cast<std::size_t>(body);
  const int va = model.jnt_vadr[b];
  const int n = model.jnt_nv[b];
  // About the joint frame's origin, joint-frame coordinates.
  const SE3& X_CJ = model.jnt_childOffset[b];
  const Vector6d fJ = X_CJ.invActForce(r.jointForce[b]);
  // The free directions: the motion subspace at the joint frame, projected
  // in that frame's coordinates (orthonormal axes for the common joints).
  Vector6d free = Vector6d::Zero();
  if (split && n > 0) {
    Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> SJ(6, n);
    for (int k = 0; k < n; ++k) SJ.col(k) = X_CJ.invActMotion(r.S.col(va + k));
    const MatrixNNmax G = SJ.transpose() * SJ;
    const VectorNmax y = G.ldlt().solve(SJ.transpose() * fJ);
    free = SJ * y;
  }
  out.wrench = fJ;
  out.free = free;
  out.constraint = split ? Vector6d(fJ - free) : Vector6d::Zero();
  if (coordinates != nullptr) {
    // Rotate from joint coordinates (at the step's start) into the frame's
    // current orientation.
    const Matrix3d R_WJ = r.X_WB[b].R * X_CJ.R;
    const Matrix3d R =
        coordinates->isWorld() ? R_WJ : Matrix3d(coordinates->getWorldTransform().linear().transpose() * R_WJ);
    for (Vector6d* v : {&out.wrench, &out.free, &out.constraint}) {
      if (!split && v != &out.wrench) continue;
      const Vector6d x = *v;
      v->head<3>() = R * x.head<3>();
      v->tail<3>() = R * x.tail<3>();
    }
  }
  return out;
}

JointReaction WorldImpl::jointReaction(std::uint32_t linkSlot, const std::optional<Frame>& coordinates) {
  JointReaction out;
  ensureModel();
  const int body = linkBody[linkSlot];
  const int n = body < 0 ? 0 : model.jnt_nv[static_cast<std::size_t>(body)];
  for (VectorXd* v : {&out.total, &out.applied, &out.actuator, &out.spring, &out.damper, &out.friction, &out.limit,
                      &out.coupler, &out.inertia}) {
    *v = VectorXd::Zero(n);
  }
  if (!simulation || !stepRecord.valid || body < 0) {
    out.time = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  evaluateStep(false, true);
  const StepRecord& r = stepRecord;
  const auto b = static_cast<std::size_t>(body);
  const int va = model.jnt_vadr[b];
  out.time = r.time;
  out.total = r.total.segment(va, n);
  out.applied = r.applied.segment(va, n);
  out.actuator = r.actuator.segment(va, n);
  out.spring = r.spring.segment(va, n);
  out.damper = r.damper.segment(va, n);
  out.friction = r.friction.segment(va, n);
  out.limit = r.limit.segment(va, n);
  out.coupler = r.coupler.segment(va, n);
  out.inertia = r.inertia.segment(va, n);
  const ReactionWrenches w = reactionWrenches(linkSlot, coordinates ? &*coordinates : nullptr);
  out.wrench = w.wrench;
  out.freeWrench = w.free;
  out.constraintWrench = w.constraint;
  return out;
}

}  // namespace articula::detail

// Actuators, controls and schedules: facade, validation, compilation into
// the Model, and what happens before a step (controls from schedules and
// the controller, locks engaging). The forces themselves: actuation.cpp.
#include <articula/actuator.hpp>
#include <articula/world.hpp>

#include "world_impl.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace articula {

const char* toString(ActuatorType type) {
  switch (type) {
    case ActuatorType::Motor:
      return "motor";
    case ActuatorType::PositionServo:
      return "position";
    case ActuatorType::VelocityServo:
      return "velocity";
    case ActuatorType::Pid:
      return "pid";
    case ActuatorType::DcMotor:
      return "dc_motor";
    case ActuatorType::Lock:
      return "lock";
  }
  return "unknown";
}

std::optional<ActuatorType> actuatorTypeFromString(const std::string& name) {
  for (const ActuatorType t : {ActuatorType::Motor, ActuatorType::PositionServo, ActuatorType::VelocityServo,
                               ActuatorType::Pid, ActuatorType::DcMotor, ActuatorType::Lock}) {
    if (name == toString(t)) return t;
  }
  return std::nullopt;
}

double ScheduleSpec::evaluate(double t) const {
  switch (kind) {
    case Kind::Sine:
      return offset + amplitude * std::sin(2.0 * std::numbers::pi * frequency * t + phase);
    case Kind::Step:
      return t < stepTime ? offset : offset + amplitude;
    case Kind::Keyframes:
      break;
  }
  if (keyframes.empty()) return 0.0;
  const double last = keyframes.back().first;
  if (loop && last > 0.0 && t > last) t = std::fmod(t, last);
  if (t <= keyframes.front().first) return keyframes.front().second;
  if (t >= last) return keyframes.back().second;
  // First keyframe with time > t; t lies in [k−1, k).
  const auto it = std::upper_bound(keyframes.begin(), keyframes.end(), t,
                                   [](double x, const std::pair<double, double>& k) { return x < k.first; });
  const auto& b = *it;
  const auto& a = *(it - 1);
  if (interpolation == Interpolation::Hold) return a.second;
  const double s = (t - a.first) / (b.first - a.first);
  return a.second + s * (b.second - a.second);
}

namespace detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Default servo gains: critically damped at this frequency (docs/actuators.md).
constexpr double kDefaultServoFrequency = 10.0;  // Hz

bool needsPosition(ActuatorType t) {
  return t == ActuatorType::PositionServo || t == ActuatorType::Pid || t == ActuatorType::Lock;
}

void checkFinite(double v, const std::string& where, const char* field) {
  if (!std::isfinite(v))
    throw InvalidArgument(where + ": " + field + " must be finite (got " + std::to_string(v) + ")");
}

void checkGain(const std::optional<double>& g, const std::string& where, const char* field) {
  if (g && !(std::isfinite(*g) && *g >= 0.0)) {
    throw InvalidArgument(where + ": " + field + " must be finite and ≥ 0 (got " + std::to_string(*g) + ")");
  }
}

void checkRange(double lo, double hi, const std::string& where, const char* what) {
  if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
    throw InvalidArgument(where + ": the " + what + " range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "] is empty or not a number");
  }
}

}  // namespace

ActuatorRecord& WorldImpl::actuator(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= actuators.size() || !actuators[slot].alive || actuators[slot].generation != gen) {
    throw InvalidHandle(
        "invalid Actuator handle: the actuator was removed, its joint was removed, the world was cleared, or the "
        "handle is stale");
  }
  return actuators[slot];
}

std::uint32_t WorldImpl::jointSlot(const std::string& joint, const std::string& where) const {
  const auto slash = joint.find('/');
  if (slash == std::string::npos) {
    throw TopologyError(where + ": joint '" + joint + "' must be named \"multibody/joint\"");
  }
  const std::string mbName = joint.substr(0, slash);
  const std::string jName = joint.substr(slash + 1);
  const auto it = worldNames.find(mbName);
  if (it == worldNames.end() || it->second.kind != FrameKind::None) {
    throw TopologyError(where + ": no multibody '" + mbName + "' (joint '" + joint + "')");
  }
  const auto& M = multibodies[it->second.index];
  const auto j = M.jointByName.find(jName);
  if (j == M.jointByName.end())
    throw TopologyError(where + ": multibody '" + mbName + "' has no joint '" + jName + "'");
  return j->second;
}

void WorldImpl::checkActuator(const ActuatorSpec& s, std::uint32_t linkSlot, const std::string& where) const {
  const JointSpec& js = links[linkSlot].joint;
  const int nv = numDofs(js.type);
  const std::string jointName = multibodies[links[linkSlot].multibody].name + "/" + js.name;
  if (!actuatorTypeFromString(toString(s.type))) throw InvalidArgument(where + ": unknown actuator type");
  if (s.coordinate < 0 || s.coordinate >= nv) {
    throw TopologyError(where + ": joint '" + jointName + "' (" + std::string(toString(js.type)) + ") has " +
                        std::to_string(nv) + " DoF; coordinate " + std::to_string(s.coordinate) + " does not exist");
  }
  if (needsPosition(s.type) && numPositions(js.type) != nv && s.type != ActuatorType::Lock) {
    throw TopologyError(where + ": a " + toString(s.type) + " actuator needs a position coordinate; joint '" +
                        jointName + "' is " + std::string(toString(js.type)) + " (use a motor or velocity servo)");
  }
  if (!(std::isfinite(s.gear) && s.gear > 0.0)) {
    throw InvalidArgument(where + ": gear must be finite and > 0 (got " + std::to_string(s.gear) + ")");
  }
  checkRange(s.controlMin, s.controlMax, where, "control");
  checkRange(s.forceMin, s.forceMax, where, "force");
  if (s.forceMin > 0.0 || s.forceMax < 0.0) {
    throw InvalidArgument(where + ": the force range [" + std::to_string(s.forceMin) + ", " +
                          std::to_string(s.forceMax) + "] must contain 0");
  }
  checkGain(s.kp, where, "kp");
  checkGain(s.kd, where, "kd");
  checkGain(s.kv, where, "kv");
  checkGain(s.ki, where, "ki");
  if (!(s.integralLimit > 0.0)) {
    throw InvalidArgument(where + ": integralLimit must be > 0 (got " + std::to_string(s.integralLimit) + ")");
  }
  if (std::isnan(s.velocityLimit) || s.velocityLimit <= 0.0) {
    throw InvalidArgument(where + ": velocityLimit must be > 0 (got " + std::to_string(s.velocityLimit) + ")");
  }
  if (s.type == ActuatorType::DcMotor) {
    checkFinite(s.stallTorque, where, "stallTorque");
    checkFinite(s.noLoadSpeed, where, "noLoadSpeed");
    if (!(s.stallTorque > 0.0) || !(s.noLoadSpeed > 0.0)) {
      throw InvalidArgument(where + ": a DC motor needs stallTorque > 0 and noLoadSpeed > 0 (got " +
                            std::to_string(s.stallTorque) + ", " + std::to_string(s.noLoadSpeed) + ")");
    }
  }
  if (s.control) checkFinite(*s.control, where, "control");
}

void WorldImpl::removeOrphanedActuators() {
  bool removed = false;
  for (auto& a : actuators) {
    if (!a.alive) continue;
    const bool alive = a.link < links.size() && links[a.link].alive && links[a.link].generation == a.linkGeneration;
    if (alive) continue;
    a.alive = false;
    actuatorNames.erase(a.spec.name);
    removed = true;
  }
  if (!removed) return;
  schedules.erase(std::remove_if(schedules.begin(), schedules.end(),
                                 [&](const ScheduleSpec& s) { return actuatorNames.count(s.actuator) == 0; }),
                  schedules.end());
}

void WorldImpl::compileActuators(Model& m) {
  actuatorIndex.assign(actuators.size(), -1);
  VectorXd u;
  std::vector<std::uint8_t> set;
  std::vector<double> values;
  auto& M = m;
  for (std::uint32_t slot = 0; slot < actuators.size(); ++slot) {
    const auto& A = actuators[slot];
    if (!A.alive) continue;
    const int body = linkBody[A.link];
    if (body < 0) continue;
    const auto b = static_cast<std::size_t>(body);
    const ActuatorSpec& s = A.spec;
    actuatorIndex[slot] = M.nu++;
    M.act_type.push_back(s.type);
    M.act_slot.push_back(slot);
    M.act_dof.push_back(M.jnt_vadr[b] + s.coordinate);
    M.act_qpos.push_back(M.jnt_nq[b] == M.jnt_nv[b] ? M.jnt_qadr[b] + s.coordinate : -1);
    values.push_back(A.control);
    set.push_back(A.controlSet ? 1 : 0);
  }
  const int nu = M.nu;
  auto sized = [nu](VectorXd& v) { v.resize(nu); };
  for (VectorXd* v : {&M.act_gear, &M.act_controlMin, &M.act_controlMax, &M.act_forceMin, &M.act_forceMax, &M.act_kp,
                      &M.act_kd, &M.act_kv, &M.act_ki, &M.act_integralLimit, &M.act_stall, &M.act_noLoadSpeed})
    sized(*v);
  for (int a = 0; a < nu; ++a) {
    const ActuatorSpec& s = actuators[M.act_slot[static_cast<std::size_t>(a)]].spec;
    M.act_gear[a] = s.gear;
    double lo = s.controlMin;
    double hi = s.controlMax;
    if (s.type == ActuatorType::DcMotor) {
      lo = std::max(lo, -1.0);
      hi = std::min(hi, 1.0);
    } else if (s.type == ActuatorType::Lock) {
      lo = std::max(lo, 0.0);
      hi = std::min(hi, 1.0);
    }
    M.act_controlMin[a] = lo;
    M.act_controlMax[a] = std::max(lo, hi);
    M.act_forceMin[a] = s.forceMin;
    M.act_forceMax[a] = s.forceMax;
    // Gains a file did not give are resolved on entering simulation mode.
    M.act_kp[a] = s.kp.value_or(kNaN);
    M.act_kd[a] = s.kd.value_or(kNaN);
    M.act_kv[a] = s.kv.value_or(kNaN);
    M.act_ki[a] = s.ki;
    M.act_integralLimit[a] = s.integralLimit;
    M.act_stall[a] = s.stallTorque;
    M.act_noLoadSpeed[a] = s.noLoadSpeed;
    if (s.type == ActuatorType::Lock) M.lockActuators.push_back(a);
    const bool compensates = s.gravityCompensation && s.type != ActuatorType::Motor &&
                             s.type != ActuatorType::DcMotor && s.type != ActuatorType::Lock;
    M.act_gravityCompensation.push_back(compensates ? 1 : 0);
    M.anyGravityCompensation = M.anyGravityCompensation || compensates;
  }
  controls = Eigen::Map<const VectorXd>(values.data(), nu);
  controlSet = std::move(set);
  for (int a = 0; a < nu; ++a) {
    const auto i = static_cast<std::size_t>(a);
    if (!controlSet[i]) controls[a] = M.act_type[i] == ActuatorType::Lock ? 1.0 : 0.0;
    controls[a] = std::clamp(controls[a], M.act_controlMin[a], M.act_controlMax[a]);
  }
  M.schedule_actuator.clear();
  for (const auto& sch : schedules) {
    const auto it = actuatorNames.find(sch.actuator);
    M.schedule_actuator.push_back(it == actuatorNames.end() ? -1 : actuatorIndex[it->second]);
  }
}

void WorldImpl::resolveActuatorDefaults() {
  if (model.nu == 0) return;
  ensurePositions();
  // Effective inertia of each actuated DoF at this configuration: the
  // joint-space inertia's diagonal M_ii (armature included), i.e. the
  // inertia the joint moves when every other joint is held by its servo.
  std::vector<double> inertia(static_cast<std::size_t>(model.nu), 0.0);
  std::vector<VectorXd> ownerDiagonal(model.owner_kind.size());  // per tree, computed once
  MatrixXd M;
  for (int a = 0; a < model.nu; ++a) {
    const bool anyDefault = std::isnan(model.act_kp[a]) || std::isnan(model.act_kd[a]) || std::isnan(model.act_kv[a]);
    if (!anyDefault) continue;
    const int dof = model.act_dof[static_cast<std::size_t>(a)];
    const auto o = static_cast<std::size_t>(model.body_owner[static_cast<std::size_t>(model.dof_body[dof])]);
    if (ownerDiagonal[o].size() == 0) {
      const int b0 = model.owner_bodyadr[o];
      M.setZero(model.owner_nv[o], model.owner_nv[o]);
      compositeRigidBodyAlgorithm(model, b0, b0 + model.owner_nbody[o], data, M);
      ownerDiagonal[o] = M.diagonal();
    }
    inertia[static_cast<std::size_t>(a)] = ownerDiagonal[o][dof - model.owner_vadr[o]];
  }
  const double w = 2.0 * std::numbers::pi * kDefaultServoFrequency;
  for (int a = 0; a < model.nu; ++a) {
    const double mEff = std::max(inertia[static_cast<std::size_t>(a)], 1e-9);
    if (std::isnan(model.act_kp[a])) model.act_kp[a] = mEff * w * w;
    if (std::isnan(model.act_kd[a])) model.act_kd[a] = 2.0 * mEff * w;
    if (std::isnan(model.act_kv[a])) model.act_kv[a] = 2.0 * mEff * w;
  }
  // Position targets never set hold the pose the simulation starts from.
  for (int a = 0; a < model.nu; ++a) {
    const auto i = static_cast<std::size_t>(a);
    if (controlSet[i] || model.act_qpos[i] < 0) continue;
    if (model.act_type[i] == ActuatorType::PositionServo || model.act_type[i] == ActuatorType::Pid) {
      controls[a] = std::clamp(state.q[model.act_qpos[i]], model.act_controlMin[a], model.act_controlMax[a]);
    }
  }
  state.act_integral.setZero();
  state.act_lockTarget.setConstant(kNaN);
  data.act_force.setZero();
}

void WorldImpl::prepareControls() {
  for (std::size_t k = 0; k < schedules.size() && k < model.schedule_actuator.size(); ++k) {
    const int a = model.schedule_actuator[k];
    if (a >= 0) controls[a] = schedules[k].evaluate(state.time);
  }
  if (controller) {
    ControllerInput in;
    in.time = state.time;
    in.q = std::span<const double>(state.q.data(), static_cast<std::size_t>(model.nq));
    in.v = std::span<const double>(state.v.data(), static_cast<std::size_t>(model.nv));
    controller(in, std::span<double>(controls.data(), static_cast<std::size_t>(model.nu)));
  }
  for (int a = 0; a < model.nu; ++a) {
    if (!std::isfinite(controls[a])) {
      warn("actuator '" + actuators[model.act_slot[static_cast<std::size_t>(a)]].spec.name +
           "': a non-finite control was replaced by 0");
      controls[a] = 0.0;
    }
    controls[a] = std::clamp(controls[a], model.act_controlMin[a], model.act_controlMax[a]);
  }
  for (const int a : model.lockActuators) {
    const auto i = static_cast<std::size_t>(a);
    if (controls[a] >= 0.5) {
      if (std::isnan(state.act_lockTarget[a])) {
        state.act_lockTarget[a] = model.act_qpos[i] >= 0 ? state.q[model.act_qpos[i]] : 0.0;
      }
    } else {
      state.act_lockTarget[a] = kNaN;
    }
  }
}

void WorldImpl::addLockRows(ConstraintWorkspace& ws, double h) {
  RowBuilder B(model, data, ws);
  for (const int a : model.lockActuators) {
    const auto i = static_cast<std::size_t>(a);
    data.act_row[i] = -1;
    const double target = state.act_lockTarget[a];
    if (std::isnan(target)) continue;
    const int dof = model.act_dof[i];
    const int r = B.row(RowKind::Bilateral, dof);
    B.dofTerm(r, dof);
    ConstraintRow& R = B.at(r);
    R.lo = -kInf;
    R.hi = kInf;
    // Joints without a position coordinate (ball, free) hold the velocity only.
    const int qpos = model.act_qpos[i];
    R.rhs = qpos >= 0 ? options.solver.limitErrorReduction * (target - data.q0[qpos]) / h : 0.0;
    R.compliance = -1e-12;  // relative regularisation, as loop-closure rows
    data.act_row[i] = r;
  }
}

}  // namespace detail

using detail::WorldImpl;

namespace {

detail::ActuatorRecord& actuatorOf(World* w, std::uint32_t index, std::uint32_t generation) {
  if (w == nullptr) throw InvalidHandle("invalid Actuator handle (default-constructed)");
  return detail::implOf(w).actuator(index, generation);
}

std::string actuatorWhere(const std::string& name) {
  return "actuator '" + (name.empty() ? std::string("actuator") : name) + "'";
}

ActuatorSpec publicSpec(const WorldImpl& w, std::uint32_t slot) {
  const auto& A = w.actuators[slot];
  ActuatorSpec s = A.spec;
  const auto& L = w.links[A.link];
  s.joint = w.multibodies[L.multibody].name + "/" + L.joint.name;
  const int a = slot < w.actuatorIndex.size() && w.modelValid ? w.actuatorIndex[slot] : -1;
  if (a >= 0 && a < w.controls.size()) {
    if (w.controlSet[static_cast<std::size_t>(a)])
      s.control = w.controls[a];
    else
      s.control.reset();
  } else {
    if (A.controlSet)
      s.control = A.control;
    else
      s.control.reset();
  }
  return s;
}

// The compiled index of an actuator (the model is compiled on demand).
int compiledIndex(WorldImpl& w, std::uint32_t slot) {
  w.ensureModel();
  return w.actuatorIndex[slot];
}

}  // namespace

Actuator World::addActuator(const ActuatorSpec& spec) {
  auto& w = *m_impl;
  w.requireDesignMode("add an actuator");
  const std::string where = actuatorWhere(spec.name);
  const std::uint32_t link = w.jointSlot(spec.joint, where);
  w.checkActuator(spec, link, where);
  if (!spec.name.empty()) {
    if (w.actuatorNames.count(spec.name) != 0) throw TopologyError(where + ": the name is taken by another actuator");
    if (spec.name.find('/') != std::string::npos) throw InvalidArgument(where + ": the name must not contain '/'");
  }
  detail::ActuatorRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.spec = spec;
  rec.spec.name = spec.name.empty() ? WorldImpl::uniqueName(w.actuatorNames, "actuator") : spec.name;
  rec.link = link;
  rec.linkGeneration = w.links[link].generation;
  rec.controlSet = spec.control.has_value();
  rec.control = spec.control.value_or(0.0);
  w.topologyChanged();
  const auto slot = static_cast<std::uint32_t>(w.actuators.size());
  w.actuatorNames[rec.spec.name] = slot;
  w.actuators.push_back(std::move(rec));
  return Actuator(this, slot, w.actuators[slot].generation);
}

std::optional<Actuator> World::getActuator(const std::string& name) const {
  const auto it = m_impl->actuatorNames.find(name);
  if (it == m_impl->actuatorNames.end()) return std::nullopt;
  return Actuator(const_cast<World*>(this), it->second, m_impl->actuators[it->second].generation);
}

bool World::hasActuator(const std::string& name) const {
  return m_impl->actuatorNames.count(name) != 0;
}

std::size_t World::numActuators() const {
  return m_impl->actuatorNames.size();
}

std::vector<Actuator> World::getActuators() const {
  std::vector<Actuator> out;
  const auto& recs = m_impl->actuators;
  for (std::uint32_t s = 0; s < recs.size(); ++s)
    if (recs[s].alive) out.push_back(Actuator(const_cast<World*>(this), s, recs[s].generation));
  return out;
}

void World::remove(const Actuator& actuator) {
  auto& w = *m_impl;
  if (actuator.m_world != this) throw TopologyError("the actuator belongs to another World");
  auto& rec = w.actuator(actuator.m_index, actuator.m_generation);
  w.requireDesignMode("remove an actuator");
  w.topologyChanged();
  rec.alive = false;
  w.actuatorNames.erase(rec.spec.name);
  const std::string name = rec.spec.name;
  w.schedules.erase(
      std::remove_if(w.schedules.begin(), w.schedules.end(), [&](const ScheduleSpec& s) { return s.actuator == name; }),
      w.schedules.end());
}

void World::setControl(const Actuator& actuator, double value) {
  auto& w = *m_impl;
  if (actuator.m_world != this) throw TopologyError("the actuator belongs to another World");
  w.requireUnlocked("set a control");
  const auto& rec = w.actuator(actuator.m_index, actuator.m_generation);
  if (!std::isfinite(value)) {
    throw InvalidArgument("actuator '" + rec.spec.name + "': the control must be finite (got " + std::to_string(value) +
                          ")");
  }
  const int a = compiledIndex(w, actuator.m_index);
  w.controls[a] = std::clamp(value, w.model.act_controlMin[a], w.model.act_controlMax[a]);
  w.controlSet[static_cast<std::size_t>(a)] = 1;
}

double World::getControl(const Actuator& actuator) const {
  auto& w = *m_impl;
  w.actuator(actuator.m_index, actuator.m_generation);
  const int a = compiledIndex(w, actuator.m_index);
  const auto i = static_cast<std::size_t>(a);
  // In design mode an unset position target is the coordinate's current position.
  if (!w.simulation && !w.controlSet[i] && w.model.act_qpos[i] >= 0 &&
      (w.model.act_type[i] == ActuatorType::PositionServo || w.model.act_type[i] == ActuatorType::Pid)) {
    return std::clamp(w.state.q[w.model.act_qpos[i]], w.model.act_controlMin[a], w.model.act_controlMax[a]);
  }
  return w.controls[a];
}

VectorXd World::getControls() const {
  auto& w = *m_impl;
  w.ensureModel();
  VectorXd u(w.model.nu);
  for (std::uint32_t s = 0; s < w.actuators.size(); ++s) {
    const int a = w.actuatorIndex[s];
    if (a >= 0) u[a] = getControl(Actuator(const_cast<World*>(this), s, w.actuators[s].generation));
  }
  return u;
}

void World::setControls(const VectorXd& u) {
  auto& w = *m_impl;
  w.requireUnlocked("set the controls");
  w.ensureModel();
  if (u.size() != w.model.nu) {
    throw InvalidArgument("setControls: expected " + std::to_string(w.model.nu) + " controls (one per actuator), got " +
                          std::to_string(u.size()));
  }
  if (!u.allFinite()) throw InvalidArgument("setControls: the controls must be finite");
  for (int a = 0; a < w.model.nu; ++a) {
    w.controls[a] = std::clamp(u[a], w.model.act_controlMin[a], w.model.act_controlMax[a]);
    w.controlSet[static_cast<std::size_t>(a)] = 1;
  }
}

ControlSpace World::getControlSpace() const {
  auto& w = *m_impl;
  w.ensureModel();
  ControlSpace cs;
  cs.lower = w.model.act_controlMin;
  cs.upper = w.model.act_controlMax;
  for (int a = 0; a < w.model.nu; ++a)
    cs.names.push_back(w.actuators[w.model.act_slot[static_cast<std::size_t>(a)]].spec.name);
  return cs;
}

VectorXd World::getActuatorForces() const {
  auto& w = *m_impl;
  w.ensureModel();
  return w.data.act_force;
}

void World::holdCurrentPose() {
  auto& w = *m_impl;
  w.requireUnlocked("hold the current pose");
  w.ensureModel();
  for (int a = 0; a < w.model.nu; ++a) {
    const auto i = static_cast<std::size_t>(a);
    const ActuatorType t = w.model.act_type[i];
    if ((t != ActuatorType::PositionServo && t != ActuatorType::Pid) || w.model.act_qpos[i] < 0) continue;
    w.controls[a] = std::clamp(w.state.q[w.model.act_qpos[i]], w.model.act_controlMin[a], w.model.act_controlMax[a]);
    w.controlSet[i] = 1;
  }
}

namespace {

// Checks a schedule against the world (its actuator, the names taken) and
// itself. `replacing`: the name of the schedule it replaces.
void checkSchedule(const WorldImpl& w, const ScheduleSpec& schedule, const std::string* replacing) {
  const std::string where = "schedule '" + schedule.name + "'";
  if (schedule.name.empty()) throw InvalidArgument("a schedule needs a name");
  for (const auto& s : w.schedules) {
    if (s.name == schedule.name && (replacing == nullptr || s.name != *replacing)) {
      throw TopologyError(where + ": the name is taken by another schedule");
    }
  }
  if (w.actuatorNames.count(schedule.actuator) == 0) {
    throw TopologyError(where + ": no actuator '" + schedule.actuator + "'");
  }
  double previous = -std::numeric_limits<double>::infinity();
  for (const auto& [t, value] : schedule.keyframes) {
    if (!std::isfinite(t) || !std::isfinite(value)) throw InvalidArgument(where + ": keyframes must be finite");
    if (!(t > previous)) {
      throw InvalidArgument(where + ": keyframe times must increase (" + std::to_string(t) + " after " +
                            std::to_string(previous) + ")");
    }
    previous = t;
  }
  if (schedule.kind == ScheduleSpec::Kind::Keyframes && schedule.keyframes.empty()) {
    throw InvalidArgument(where + ": a keyframe schedule needs at least one keyframe");
  }
  for (const double v : {schedule.amplitude, schedule.frequency, schedule.phase, schedule.offset, schedule.stepTime}) {
    if (!std::isfinite(v))
      throw InvalidArgument(where + ": amplitude, frequency, phase, offset and stepTime must be finite");
  }
}

}  // namespace

void World::addSchedule(const ScheduleSpec& schedule) {
  auto& w = *m_impl;
  w.requireDesignMode("add a schedule");
  checkSchedule(w, schedule, nullptr);
  w.topologyChanged();
  w.schedules.push_back(schedule);
}

void World::setSchedule(const std::string& name, const ScheduleSpec& schedule) {
  auto& w = *m_impl;
  w.requireDesignMode("change a schedule");
  const auto it =
      std::find_if(w.schedules.begin(), w.schedules.end(), [&](const ScheduleSpec& s) { return s.name == name; });
  if (it == w.schedules.end()) throw TopologyError("no schedule '" + name + "'");
  checkSchedule(w, schedule, &name);
  w.topologyChanged();
  *it = schedule;
}

std::vector<ScheduleSpec> World::getSchedules() const {
  return m_impl->schedules;
}

void World::removeSchedule(const std::string& name) {
  auto& w = *m_impl;
  w.requireDesignMode("remove a schedule");
  const auto it =
      std::find_if(w.schedules.begin(), w.schedules.end(), [&](const ScheduleSpec& s) { return s.name == name; });
  if (it == w.schedules.end()) return;
  w.topologyChanged();
  w.schedules.erase(it);
}

void World::setController(Controller controller) {
  auto& w = *m_impl;
  w.requireUnlocked("set the controller");
  w.controller = std::move(controller);
}

// ---- Actuator handle ----

bool Actuator::isValid() const {
  if (m_world == nullptr) return false;
  const auto& recs = detail::implOf(m_world).actuators;
  return m_index < recs.size() && recs[m_index].alive && recs[m_index].generation == m_generation;
}

std::string Actuator::name() const {
  return actuatorOf(m_world, m_index, m_generation).spec.name;
}

void Actuator::setName(const std::string& name) {
  auto& rec = actuatorOf(m_world, m_index, m_generation);
  auto& w = detail::implOf(m_world);
  w.requireDesignMode("rename an actuator");
  if (name == rec.spec.name) return;
  const std::string where = actuatorWhere(name);
  if (name.empty()) throw InvalidArgument("an actuator's name must not be empty");
  if (name.find('/') != std::string::npos) throw InvalidArgument(where + ": the name must not contain '/'");
  if (w.actuatorNames.count(name) != 0) throw TopologyError(where + ": the name is taken by another actuator");
  for (auto& s : w.schedules)
    if (s.actuator == rec.spec.name) s.actuator = name;
  w.actuatorNames.erase(rec.spec.name);
  w.actuatorNames[name] = m_index;
  rec.spec.name = name;
}

ActuatorSpec Actuator::getSpec() const {
  actuatorOf(m_world, m_index, m_generation);
  return publicSpec(detail::implOf(m_world), m_index);
}

void Actuator::setSpec(const ActuatorSpec& spec) {
  auto& rec = actuatorOf(m_world, m_index, m_generation);
  auto& w = detail::implOf(m_world);
  w.requireDesignMode("change an actuator");
  const std::string where = actuatorWhere(rec.spec.name);
  const std::uint32_t link = w.jointSlot(spec.joint, where);
  w.checkActuator(spec, link, where);
  w.topologyChanged();
  const std::string name = rec.spec.name;
  rec.spec = spec;
  rec.spec.name = name;
  rec.link = link;
  rec.linkGeneration = w.links[link].generation;
  rec.controlSet = spec.control.has_value();
  rec.control = spec.control.value_or(0.0);
}

void Actuator::setControl(double value) {
  if (m_world == nullptr) throw InvalidHandle("invalid Actuator handle (default-constructed)");
  m_world->setControl(*this, value);
}

double Actuator::getControl() const {
  if (m_world == nullptr) throw InvalidHandle("invalid Actuator handle (default-constructed)");
  return m_world->getControl(*this);
}

double Actuator::getForce() const {
  actuatorOf(m_world, m_index, m_generation);
  auto& w = detail::implOf(m_world);
  const int a = compiledIndex(w, m_index);
  return a < w.data.act_force.size() ? w.data.act_force[a] : 0.0;
}

}  // namespace articula

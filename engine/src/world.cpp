// World facade: object creation and lookup, lifecycle, world state.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <articula/conventions.hpp>
#include <articula/limits.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace articula {

using detail::FrameRef;
using detail::SE3;

World::World(const WorldOptions& options) : m_impl(std::make_unique<detail::WorldImpl>(this, WorldOptions{})) {
  setOptions(options);
}

World::~World() = default;

const WorldOptions& World::getOptions() const {
  return m_impl->options;
}

const std::vector<std::string>& constraintSolverMethods() {
  static const std::vector<std::string> methods = {"projected-gauss-seidel", "direct-pivoting", "nonsmooth-newton",
                                                   "convex"};
  return methods;
}

bool isConstraintSolverMethod(const std::string& method) {
  const auto& all = constraintSolverMethods();
  return std::find(all.begin(), all.end(), method) != all.end();
}

void World::setOptions(const WorldOptions& options) {
  m_impl->requireUnlocked("change the options");
  if (!std::isfinite(options.timeStep) || options.timeStep <= 0.0) {
    throw InvalidArgument("time step must be a positive finite number of seconds (got " +
                          std::to_string(options.timeStep) + ")");
  }
  if (options.timeStep < kMinTimeStep || options.timeStep > kMaxTimeStep) {
    std::ostringstream os;
    os << "time step " << options.timeStep << " s is outside [" << kMinTimeStep << ", " << kMaxTimeStep
       << "] s: no step that short or that long makes progress";
    throw InvalidArgument(os.str());
  }
  if (!options.gravity.allFinite()) throw InvalidArgument("gravity must be finite");
  const auto& s = options.solver;
  if (!isConstraintSolverMethod(s.method)) {
    std::string expected;
    for (const std::string& m : constraintSolverMethods()) expected += (expected.empty() ? "\"" : ", \"") + m + "\"";
    throw InvalidArgument("unknown constraint solver method '" + s.method + "'; expected one of " + expected);
  }
  auto check = [](bool ok, const std::string& what) {
    if (!ok) throw InvalidArgument("constraint solver option " + what);
  };
  check(s.maxIterations >= 1 && s.maxIterations <= kMaxSolverIterations,
        "maxIterations must be in [1, " + std::to_string(kMaxSolverIterations) + "] (got " +
            std::to_string(s.maxIterations) + ")");
  check(s.tolerance >= 0.0 && std::isfinite(s.tolerance), "tolerance must be finite and ≥ 0");
  check(s.frictionDirections >= 4 && s.frictionDirections <= kMaxFrictionDirections && s.frictionDirections % 2 == 0,
        "frictionDirections must be even and in [4, " + std::to_string(kMaxFrictionDirections) + "] (got " +
            std::to_string(s.frictionDirections) + ")");
  check(s.restitutionThreshold >= 0.0 && std::isfinite(s.restitutionThreshold),
        "restitutionThreshold must be finite and ≥ 0");
  check(s.errorReduction >= 0.0 && s.errorReduction <= 1.0, "errorReduction must be in [0, 1]");
  check(s.limitErrorReduction >= 0.0 && s.limitErrorReduction <= 1.0, "limitErrorReduction must be in [0, 1]");
  check(s.allowedPenetration >= 0.0 && std::isfinite(s.allowedPenetration),
        "allowedPenetration must be finite and ≥ 0");
  check(s.maxCorrectionVelocity > 0.0, "maxCorrectionVelocity must be > 0");
  check(s.constraintForceMixing >= 0.0 && std::isfinite(s.constraintForceMixing),
        "constraintForceMixing must be finite and ≥ 0");
  check(s.convergenceTolerance > 0.0 && std::isfinite(s.convergenceTolerance),
        "convergenceTolerance must be finite and > 0");
  check(s.krylovIterations >= 1 && s.krylovIterations <= kMaxSolverIterations,
        "krylovIterations must be in [1, " + std::to_string(kMaxSolverIterations) + "] (got " +
            std::to_string(s.krylovIterations) + ")");
  check(s.convexRegularization > 0.0 && s.convexRegularization <= 1.0, "convexRegularization must be in (0, 1]");
  if (options.solver.method != m_impl->options.solver.method) {
    // The convergence warning names the method: another method's first
    // unconverged solve is a new warning.
    m_impl->unconvergedRun = 0;
    m_impl->convergedRun = 0;
  }
  m_impl->options = options;
  m_impl->model.gravity = options.gravity;
}

void World::setGravity(const Vector3d& g) {
  m_impl->requireUnlocked("change the gravity");
  WorldOptions o = getOptions();
  o.gravity = g;
  setOptions(o);
}

void World::setExecutor(std::shared_ptr<Executor> executor) {
  m_impl->requireUnlocked("change the executor");
  m_impl->executor = std::move(executor);
}

const std::shared_ptr<Executor>& World::getExecutor() const {
  return m_impl->executor;
}

void World::setTimeStep(double h) {
  m_impl->requireUnlocked("change the time step");
  WorldOptions o = getOptions();
  o.timeStep = h;
  setOptions(o);
}

// ---- rigid bodies ----------------------------------------------------------

RigidBody World::addRigidBody(const std::string& name, const RigidBodyOptions& options) {
  auto& w = *m_impl;
  w.requireDesignMode("add a rigid body");
  const std::string n = w.uniqueWorldName(name, "rigid_body");
  detail::validateInertia(options.inertia, "rigid body '" + n + "'", false);
  const Matrix3d R = options.pose.linear();
  if (!options.pose.matrix().allFinite() || (R.transpose() * R - Matrix3d::Identity()).norm() > 1e-6) {
    throw InvalidArgument("rigid body '" + n + "': pose is not a rigid transform");
  }
  if (!options.linearVelocity.allFinite() || !options.angularVelocity.allFinite()) {
    throw InvalidArgument("rigid body '" + n + "': velocities must be finite");
  }
  w.topologyChanged();
  detail::RigidBodyRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.name = n;
  rec.inertia = options.inertia;
  Isometry3d X = options.pose;
  rec.q = freeJointPositions(X);
  Vector6d Vw;
  Vw << options.angularVelocity, options.linearVelocity;
  rec.v = freeJointVelocityFromWorld(X, Vw);
  rec.tau = VectorXd::Zero(6);
  const auto slot = static_cast<std::uint32_t>(w.rigidBodies.size());
  w.rigidBodies.push_back(std::move(rec));
  w.worldNames[n] = {FrameKind::RigidBody, slot, w.rigidBodies.back().generation};
  return RigidBody(this, FrameKind::RigidBody, slot, w.rigidBodies.back().generation);
}

std::optional<RigidBody> World::getRigidBody(const std::string& name) const {
  auto it = m_impl->worldNames.find(name);
  if (it == m_impl->worldNames.end() || it->second.kind != FrameKind::RigidBody) return std::nullopt;
  return RigidBody(const_cast<World*>(this), FrameKind::RigidBody, it->second.index, it->second.generation);
}

bool World::hasRigidBody(const std::string& name) const {
  return getRigidBody(name).has_value();
}

std::size_t World::numRigidBodies() const {
  std::size_t n = 0;
  for (const auto& b : m_impl->rigidBodies) n += b.alive ? 1 : 0;
  return n;
}

std::vector<RigidBody> World::getRigidBodies() const {
  std::vector<RigidBody> out;
  for (std::uint32_t s = 0; s < m_impl->rigidBodies.size(); ++s) {
    const auto& b = m_impl->rigidBodies[s];
    if (b.alive) out.push_back(RigidBody(const_cast<World*>(this), FrameKind::RigidBody, s, b.generation));
  }
  return out;
}

// ---- multibodies -----------------------------------------------------------

Multibody World::addMultibody(const std::string& name) {
  auto& w = *m_impl;
  w.requireDesignMode("add a multibody");
  const std::string n = w.uniqueWorldName(name, "multibody");
  w.topologyChanged();
  detail::MultibodyRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.name = n;
  const auto slot = static_cast<std::uint32_t>(w.multibodies.size());
  w.multibodies.push_back(std::move(rec));
  // Multibodies are not frames; the name map records them with kind None.
  w.worldNames[n] = {FrameKind::None, slot, w.multibodies.back().generation};
  return Multibody(this, slot, w.multibodies.back().generation);
}

std::optional<Multibody> World::getMultibody(const std::string& name) const {
  auto it = m_impl->worldNames.find(name);
  if (it == m_impl->worldNames.end() || it->second.kind != FrameKind::None) return std::nullopt;
  return Multibody(const_cast<World*>(this), it->second.index, it->second.generation);
}

bool World::hasMultibody(const std::string& name) const {
  return getMultibody(name).has_value();
}

std::size_t World::numMultibodies() const {
  std::size_t n = 0;
  for (const auto& b : m_impl->multibodies) n += b.alive ? 1 : 0;
  return n;
}

std::vector<Multibody> World::getMultibodies() const {
  std::vector<Multibody> out;
  for (std::uint32_t s = 0; s < m_impl->multibodies.size(); ++s) {
    const auto& b = m_impl->multibodies[s];
    if (b.alive) out.push_back(Multibody(const_cast<World*>(this), s, b.generation));
  }
  return out;
}

// ---- user frames -----------------------------------------------------------

namespace {

// Validates and records a user frame; returns its slot.
std::uint32_t addUserFrame(detail::WorldImpl& w, const std::string& name, const Frame& parent, const Isometry3d& X_PF,
                           bool isFree) {
  w.checkFrame(parent);
  const std::string n = w.uniqueWorldName(name, "frame");
  const Matrix3d R = X_PF.linear();
  if (!X_PF.matrix().allFinite() || (R.transpose() * R - Matrix3d::Identity()).norm() > 1e-6) {
    throw InvalidArgument("frame '" + n + "': X_PF is not a rigid transform");
  }
  detail::UserFrameRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.name = n;
  rec.isFree = isFree;
  rec.parent = w.refOf(parent);
  rec.X_PF = SE3::fromIsometry(X_PF);
  const auto slot = static_cast<std::uint32_t>(w.frames.size());
  w.frames.push_back(std::move(rec));
  w.worldNames[n] = {isFree ? FrameKind::FreeFrame : FrameKind::FixedFrame, slot, w.frames.back().generation};
  return slot;
}

}  // namespace

FreeFrame World::addFreeFrame(const std::string& name, const Frame& parent, const Isometry3d& X_PF) {
  m_impl->requireUnlocked("add a frame");
  const auto slot = addUserFrame(*m_impl, name, parent, X_PF, true);
  return FreeFrame(this, FrameKind::FreeFrame, slot, m_impl->frames[slot].generation);
}

FixedFrame World::addFixedFrame(const std::string& name, const Frame& parent, const Isometry3d& X_PF) {
  m_impl->requireUnlocked("add a frame");
  const auto slot = addUserFrame(*m_impl, name, parent, X_PF, false);
  return FixedFrame(this, FrameKind::FixedFrame, slot, m_impl->frames[slot].generation);
}

std::optional<Frame> World::getFrame(const std::string& name) const {
  auto& w = *m_impl;
  if (name == "world") return Frame::World();
  auto it = w.worldNames.find(name);
  if (it != w.worldNames.end()) {
    if (it->second.kind == FrameKind::None) return std::nullopt;  // a multibody
    return Frame(const_cast<World*>(this), it->second.kind, it->second.index, it->second.generation);
  }
  const auto slash = name.find('/');
  if (slash == std::string::npos) return std::nullopt;
  auto mb = getMultibody(name.substr(0, slash));
  if (!mb) return std::nullopt;
  auto link = mb->getLink(name.substr(slash + 1));
  if (!link) return std::nullopt;
  return Frame(*link);
}

std::optional<FreeFrame> World::getFreeFrame(const std::string& name) const {
  auto it = m_impl->worldNames.find(name);
  if (it == m_impl->worldNames.end() || it->second.kind != FrameKind::FreeFrame) return std::nullopt;
  return FreeFrame(const_cast<World*>(this), FrameKind::FreeFrame, it->second.index, it->second.generation);
}

std::optional<FixedFrame> World::getFixedFrame(const std::string& name) const {
  auto it = m_impl->worldNames.find(name);
  if (it == m_impl->worldNames.end() || it->second.kind != FrameKind::FixedFrame) return std::nullopt;
  return FixedFrame(const_cast<World*>(this), FrameKind::FixedFrame, it->second.index, it->second.generation);
}

bool World::hasFrame(const std::string& name) const {
  return getFrame(name).has_value();
}

std::size_t World::numFrames() const {
  std::size_t n = 0;
  for (const auto& f : m_impl->frames) n += f.alive ? 1 : 0;
  return n;
}

std::vector<Frame> World::getFrames() const {
  std::vector<Frame> out;
  for (std::uint32_t s = 0; s < m_impl->frames.size(); ++s) {
    const auto& f = m_impl->frames[s];
    if (!f.alive) continue;
    out.push_back(
        Frame(const_cast<World*>(this), f.isFree ? FrameKind::FreeFrame : FrameKind::FixedFrame, s, f.generation));
  }
  return out;
}

// ---- removal ---------------------------------------------------------------

void World::remove(const RigidBody& body) {
  auto& w = *m_impl;
  w.checkFrame(body);
  w.requireDesignMode("remove a rigid body");
  w.topologyChanged();
  auto& rec = w.rigidBody(body.index(), body.generation());
  rec.alive = false;
  w.worldNames.erase(rec.name);
  w.removeUserFramesAttachedTo(FrameKind::RigidBody, body.index());
  w.removeOrphanedShapes();
  w.removeOrphanedClosures();
}

void World::remove(const Multibody& multibody) {
  auto& w = *m_impl;
  if (multibody.world() != this) throw TopologyError("the multibody belongs to another World");
  auto& rec = w.multibody(multibody.index(), multibody.generation());
  w.requireDesignMode("remove a multibody");
  w.topologyChanged();
  if (rec.root >= 0) w.destroyLinkSubtree(static_cast<std::uint32_t>(rec.root));
  rec.alive = false;
  w.worldNames.erase(rec.name);
}

void World::remove(const Frame& userFrame) {
  m_impl->requireUnlocked("remove a frame");
  auto& w = *m_impl;
  w.checkFrame(userFrame);
  if (userFrame.kind() != FrameKind::FreeFrame && userFrame.kind() != FrameKind::FixedFrame) {
    throw TopologyError("World::remove(Frame) removes user frames only; '" + userFrame.name() + "' is not one");
  }
  auto& rec = w.userFrame(userFrame.index(), userFrame.generation());
  if (w.simulation) {
    // Closures are topology: one that would lose an endpoint blocks the removal.
    const detail::FrameRef target = w.refOf(userFrame);
    for (const auto& c : w.closures) {
      if (!c.alive) continue;
      for (detail::FrameRef f : {c.frameA, c.frameB}) {
        for (; f.kind == FrameKind::FreeFrame || f.kind == FrameKind::FixedFrame; f = w.frames[f.index].parent) {
          if (f.kind == target.kind && f.index == target.index) {
            throw LifecycleError("cannot remove frame '" + rec.name + "' in simulation mode: loop closure '" + c.name +
                                 "' is attached to it; call resetToDesignMode() first");
          }
        }
      }
    }
  }
  rec.alive = false;
  w.worldNames.erase(rec.name);
  w.removeUserFramesAttachedTo(userFrame.kind(), userFrame.index());
  w.removeOrphanedClosures();
}

// ---- lifecycle -------------------------------------------------------------

bool World::isSimulationMode() const {
  return m_impl->simulation;
}

void World::validateTopology() const {
  m_impl->validate();
  m_impl->ensureModel();
  m_impl->validateClosures();
}

void World::enterSimulationMode() {
  m_impl->requireUnlocked("enter simulation mode");
  m_impl->enterSimulation();
}

namespace {

// Calls the observers of one step with the world locked; observers removed
// during the calls are dropped afterwards, observers added join after them.
void notifyObservers(World& world, detail::WorldImpl& w) {
  struct Unlock {
    detail::WorldImpl& w;
    ~Unlock() {
      w.observing = false;
      auto& obs = w.stepObservers;
      obs.erase(std::remove_if(obs.begin(), obs.end(), [](const auto& o) { return o.first == 0; }), obs.end());
      for (auto& p : w.pendingObservers) obs.push_back(std::move(p));
      w.pendingObservers.clear();
    }
  } unlock{w};
  w.observing = true;
  for (const auto& [id, observer] : w.stepObservers) {
    if (id != 0) observer(world);
  }
}

}  // namespace

void World::step(std::size_t n) {
  if (n == 0) return;
  auto& w = *m_impl;
  w.requireUnlocked("step the world");
  w.enterSimulation();
  for (std::size_t i = 0; i < n; ++i) {
    w.stepOnce();
    if (!w.stepObservers.empty()) notifyObservers(*this, w);
  }
}

bool World::isLocked() const {
  return m_impl->observing;
}

std::uint64_t World::addStepObserver(std::function<void(const World&)> observer) {
  if (!observer) throw InvalidArgument("addStepObserver: the observer is empty");
  auto& w = *m_impl;
  const std::uint64_t id = ++w.lastObserverId;
  (w.observing ? w.pendingObservers : w.stepObservers).emplace_back(id, std::move(observer));
  return id;
}

void World::removeStepObserver(std::uint64_t id) {
  auto& w = *m_impl;
  auto matches = [id](const auto& o) { return o.first == id; };
  auto& pending = w.pendingObservers;
  pending.erase(std::remove_if(pending.begin(), pending.end(), matches), pending.end());
  auto& obs = w.stepObservers;
  if (w.observing) {
    // The observer may be the one running: mark it, drop it after the calls.
    for (auto& o : obs) {
      if (o.first == id) o.first = 0;
    }
  } else {
    obs.erase(std::remove_if(obs.begin(), obs.end(), matches), obs.end());
  }
}

void World::reset() {
  m_impl->requireUnlocked("reset the world");
  auto& w = *m_impl;
  if (!w.simulation) throw LifecycleError("reset() needs simulation mode; call enterSimulationMode() first");
  w.state = w.resetState;
  if (w.resetControls.size() == w.controls.size()) w.controls = w.resetControls;
  w.contacts.clear();
  // Closures added since simulation mode was entered have no reset state.
  w.state.closures.resize(w.closures.size());
  w.state.couplers.resize(w.couplers.size());
  for (auto& cs : w.state.closures) {
    cs.solved = false;
    std::fill(cs.lambda.begin(), cs.lambda.end(), 0.0);
  }
  for (auto& cs : w.state.couplers) {
    cs.solved = false;
    cs.lambda = 0.0;
  }
  w.diagnostics = StepDiagnostics{};
  w.collisionValid = false;  // forget persistent contacts (warm starts)
  w.resetSensors();
  w.touchPositions();
}

void World::resetToDesignMode() {
  m_impl->requireUnlocked("leave simulation mode");
  m_impl->simulation = false;
}

void World::clear() {
  m_impl->requireUnlocked("clear the world");
  auto& w = *m_impl;
  w.links.clear();
  w.multibodies.clear();
  w.rigidBodies.clear();
  w.frames.clear();
  w.shapes.clear();
  w.shapeNames.clear();
  w.closures.clear();
  w.couplers.clear();
  w.closureNames.clear();
  w.couplerNames.clear();
  w.actuators.clear();
  w.actuatorNames.clear();
  w.schedules.clear();
  w.keyframes.clear();
  w.viewpoints.clear();
  w.sensors.clear();
  w.sensorNames.clear();
  w.stepRecord.valid = false;
  w.queryCollision.reset();
  w.controller = nullptr;
  w.controls.resize(0);
  w.controlSet.clear();
  w.resetControls.resize(0);
  w.implicitFilters.clear();
  w.collisionSettings.clear();
  w.collision.reset();
  w.collisionValid = false;
  w.contacts.clear();
  w.diagnostics = StepDiagnostics{};
  w.worldNames.clear();
  w.simulation = false;
  w.modelValid = false;
  w.state = detail::State{};
  w.resetState = detail::State{};
  w.timings = StepTimings{};
}

void World::sync(WorldSyncStage stage) {
  m_impl->requireUnlocked("synchronise the world");
  switch (stage) {
    case WorldSyncStage::Kinematics:
      if (!m_impl->closures.empty() || !m_impl->couplers.empty()) {
        m_impl->projection.lockedBodies.clear();
        m_impl->project(ClosureProjectionOptions{}, false, true);
      }
      m_impl->ensureAccelerations();
      break;
  }
}

double World::getTime() const {
  return m_impl->state.time;
}
std::uint64_t World::getFrameIndex() const {
  return m_impl->state.frameIndex;
}
const StepTimings& World::getLastStepTimings() const {
  return m_impl->timings;
}

// ---- world state -----------------------------------------------------------

int World::numPositions() const {
  m_impl->ensureModel();
  return m_impl->model.nq;
}

int World::numDofs() const {
  m_impl->ensureModel();
  return m_impl->model.nv;
}

StateSpace World::getStateSpace() const {
  auto& w = *m_impl;
  w.ensureModel();
  const auto& m = w.model;
  std::vector<StateSegment> segs;
  for (int i = 0; i < m.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    StateSegment s;
    const int owner = m.body_owner[b];
    if (m.owner_kind[static_cast<std::size_t>(owner)] == detail::OwnerKind::RigidBody) {
      s.owner = w.rigidBodies[m.body_slot[b]].name;
    } else {
      const auto& L = w.links[m.body_slot[b]];
      s.owner = w.multibodies[L.multibody].name;
      s.joint = L.joint.name;
    }
    s.type = m.jnt_type[b];
    s.positionOffset = m.jnt_qadr[b];
    s.numPositions = m.jnt_nq[b];
    s.velocityOffset = m.jnt_vadr[b];
    s.numDofs = m.jnt_nv[b];
    segs.push_back(std::move(s));
  }
  std::vector<ConstraintBlock> blocks;
  int row = 0;
  for (const auto& c : w.closures) {
    if (!c.alive) continue;
    const int n = numResidualRows(c.family);
    blocks.push_back({c.name, "loop_closure", std::string(toString(c.family)), row, n});
    row += n;
  }
  for (const auto& c : w.couplers) {
    if (!c.alive) continue;
    blocks.push_back({c.name, "joint_coupler", "coupler", row, 1});
    ++row;
  }
  return StateSpace(std::move(segs), std::move(blocks));
}

VectorXd World::getPositions() const {
  m_impl->ensureModel();
  return m_impl->state.q;
}

void World::getPositions(Eigen::Ref<VectorXd> q) const {
  m_impl->ensureModel();
  if (q.size() != m_impl->model.nq) {
    throw InvalidArgument("World::getPositions: expected " + std::to_string(m_impl->model.nq) + " entries, got " +
                          std::to_string(q.size()));
  }
  q = m_impl->state.q;
}

void World::setPositions(const VectorXd& q) {
  m_impl->requireUnlocked("set positions");
  auto& w = *m_impl;
  w.ensureModel();
  if (q.size() != w.model.nq) {
    throw InvalidArgument("World::setPositions: expected " + std::to_string(w.model.nq) + " entries, got " +
                          std::to_string(q.size()));
  }
  w.state.q = q;
  for (int i = 0; i < w.model.nbody; ++i) {
    const auto b = static_cast<std::size_t>(i);
    detail::jointNormalize(w.model.jnt_type[b], w.state.q.data() + w.model.jnt_qadr[b]);
  }
  w.touchPositions();
}

VectorXd World::getVelocities() const {
  m_impl->ensureModel();
  return m_impl->state.v;
}

void World::getVelocities(Eigen::Ref<VectorXd> v) const {
  m_impl->ensureModel();
  if (v.size() != m_impl->model.nv) {
    throw InvalidArgument("World::getVelocities: expected " + std::to_string(m_impl->model.nv) + " entries, got " +
                          std::to_string(v.size()));
  }
  v = m_impl->state.v;
}

void World::setVelocities(const VectorXd& v) {
  m_impl->requireUnlocked("set velocities");
  auto& w = *m_impl;
  w.ensureModel();
  if (v.size() != w.model.nv) {
    throw InvalidArgument("World::setVelocities: expected " + std::to_string(w.model.nv) + " entries, got " +
                          std::to_string(v.size()));
  }
  w.state.v = v;
  w.touchVelocities();
}

WorldState World::getState() const {
  auto& w = *m_impl;
  w.ensureModel();
  WorldState s;
  s.time = w.state.time;
  s.frameIndex = w.state.frameIndex;
  s.positions = w.state.q;
  s.velocities = w.state.v;
  s.accelerations = w.state.vdot;
  s.forces = w.state.tau;
  s.externalWrenches.resize(6, w.model.nbody);
  for (int i = 0; i < w.model.nbody; ++i) s.externalWrenches.col(i) = w.state.fext[static_cast<std::size_t>(i)];
  return s;
}

void World::setState(const WorldState& s) {
  m_impl->requireUnlocked("set the state");
  auto& w = *m_impl;
  w.ensureModel();
  const auto& m = w.model;
  auto check = [](const char* what, Eigen::Index got, int expected) {
    if (got != expected) {
      throw InvalidArgument(std::string("World::setState: ") + what + " has " + std::to_string(got) +
                            " entries, the world expects " + std::to_string(expected));
    }
  };
  check("positions", s.positions.size(), m.nq);
  check("velocities", s.velocities.size(), m.nv);
  check("accelerations", s.accelerations.size(), m.nv);
  check("forces", s.forces.size(), m.nv);
  check("externalWrenches (columns)", s.externalWrenches.cols(), m.nbody);
  w.state.time = s.time;
  w.state.frameIndex = s.frameIndex;
  w.state.q = s.positions;
  w.state.v = s.velocities;
  w.state.vdot = s.accelerations;
  w.state.tau = s.forces;
  for (int i = 0; i < m.nbody; ++i) w.state.fext[static_cast<std::size_t>(i)] = s.externalWrenches.col(i);
  w.touchPositions();
}

double World::computeKineticEnergy() const {
  auto& w = *m_impl;
  w.ensureVelocities();
  return detail::kineticEnergy(w.model, w.data, w.state.v, 0, w.model.nbody);
}

double World::computePotentialEnergy() const {
  auto& w = *m_impl;
  w.ensurePositions();
  return detail::potentialEnergy(w.model, w.data, w.state.q, 0, w.model.nbody);
}

}  // namespace articula

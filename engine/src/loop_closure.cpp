// Loop closures and joint couplers: the family names and the World facade
// (adding, finding, removing, policies, handles). The records and residuals,
// the step rows and the projection are in loop_closure_residuals.cpp,
// loop_closure_rows.cpp and loop_closure_projection.cpp.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula {

using detail::implOf;
using detail::WorldImpl;

namespace {

bool knownFamily(LoopClosureFamily f) {
  switch (f) {
    case LoopClosureFamily::Rigid:
    case LoopClosureFamily::Point:
    case LoopClosureFamily::Hinge:
    case LoopClosureFamily::Slider:
    case LoopClosureFamily::Universal:
    case LoopClosureFamily::Distance:
      return true;
  }
  return false;
}

}  // namespace

int numResidualRows(LoopClosureFamily family) {
  switch (family) {
    case LoopClosureFamily::Rigid:
      return 6;
    case LoopClosureFamily::Point:
      return 3;
    case LoopClosureFamily::Hinge:
    case LoopClosureFamily::Slider:
      return 5;
    case LoopClosureFamily::Universal:
      return 4;
    case LoopClosureFamily::Distance:
      return 1;
  }
  return 0;
}

std::string_view toString(LoopClosureFamily family) {
  switch (family) {
    case LoopClosureFamily::Rigid:
      return "rigid";
    case LoopClosureFamily::Point:
      return "point";
    case LoopClosureFamily::Hinge:
      return "hinge";
    case LoopClosureFamily::Slider:
      return "slider";
    case LoopClosureFamily::Universal:
      return "universal";
    case LoopClosureFamily::Distance:
      return "distance";
  }
  return "unknown";
}

std::optional<LoopClosureFamily> loopClosureFamilyFromString(std::string_view name) {
  for (const auto f : {LoopClosureFamily::Rigid, LoopClosureFamily::Point, LoopClosureFamily::Hinge,
                       LoopClosureFamily::Slider, LoopClosureFamily::Universal, LoopClosureFamily::Distance}) {
    if (toString(f) == name) return f;
  }
  return std::nullopt;
}
}  // namespace articula

// ---------------------------------------------------------------------------
// World facade

namespace articula {

namespace {

std::string familyName(LoopClosureFamily f) {
  return knownFamily(f) ? std::string(toString(f)) : "unknown (" + std::to_string(static_cast<int>(f)) + ")";
}

WorldImpl& liveImpl(World* w, const char* what) {
  if (w == nullptr) throw InvalidHandle(std::string("invalid ") + what + " handle (default-constructed)");
  return implOf(w);
}

detail::ClosureRecord& closureOf(World* w, std::uint32_t index, std::uint32_t generation) {
  return liveImpl(w, "LoopClosure").closure(index, generation);
}

detail::CouplerRecord& couplerOf(World* w, std::uint32_t index, std::uint32_t generation) {
  return liveImpl(w, "JointCoupler").coupler(index, generation);
}

template <class Record>
bool liveSlot(const std::vector<Record>& records, std::uint32_t index, std::uint32_t generation) {
  return index < records.size() && records[index].alive && records[index].generation == generation;
}

template <class Record>
void applyPolicy(Record& record, const LoopClosureRuntimePolicy& policy, const char* kind) {
  detail::validateRuntimePolicy(policy, std::string(kind) + " '" + record.name + "'");
  record.policy = policy;
}

// Enabled, and projected or solved.
bool activePolicy(const LoopClosureRuntimePolicy& p) {
  return p.enabled && (p.kinematics == ClosureKinematicsPolicy::Project || p.dynamics == ClosureDynamicsPolicy::Solve);
}

// The last step solved the record's rows.
bool forceAvailable(const WorldImpl& w, bool solved) {
  return solved && w.simulation && w.state.frameIndex > 0;
}

}  // namespace

LoopClosure World::addLoopClosure(const std::string& name, const LoopClosureSpec& spec) {
  auto& w = *m_impl;
  w.requireDesignMode("add a loop closure");
  const std::string where = "loop closure '" + (name.empty() ? std::string("loop_closure") : name) + "'";
  auto describeFrame = [](const Frame& f) { return f.isValid() ? "'" + f.name() + "'" : std::string("(invalid)"); };
  for (const Frame* f : {&spec.frameA, &spec.frameB}) {
    if (f->kind() != FrameKind::World && f->kind() != FrameKind::None && f->world() != this) {
      throw TopologyError(where + ": endpoint " + describeFrame(*f) + " belongs to another World (endpoints " +
                          describeFrame(spec.frameA) + " and " + describeFrame(spec.frameB) + ")");
    }
    w.checkFrame(*f);
  }
  const std::string names = describeFrame(spec.frameA) + " and " + describeFrame(spec.frameB);
  if (!knownFamily(spec.family)) {
    throw TopologyError(where + " between " + names + ": unknown family " + familyName(spec.family));
  }
  detail::checkIsometry(spec.offsetA, where, "offsetA");
  detail::checkIsometry(spec.offsetB, where, "offsetB");
  if (spec.family == LoopClosureFamily::Distance && !(spec.length > 0.0 && std::isfinite(spec.length))) {
    throw InvalidArgument(where + ": a Distance closure needs a finite length > 0 (got " + std::to_string(spec.length) +
                          "); use the Point family for coincident points");
  }
  if (!name.empty()) {
    if (w.closureNames.count(name) != 0) throw TopologyError(where + ": the name is taken by another loop closure");
    if (name.find('/') != std::string::npos) throw InvalidArgument(where + ": the name must not contain '/'");
  }
  const std::string finalName = name.empty() ? WorldImpl::uniqueName(w.closureNames, "loop_closure") : name;
  w.ensureModel();
  detail::ClosureRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.name = finalName;
  rec.frameA = w.refOf(spec.frameA);
  rec.frameB = w.refOf(spec.frameB);
  if (rec.frameA.kind == FrameKind::None) rec.frameA.kind = FrameKind::World;
  if (rec.frameB.kind == FrameKind::None) rec.frameB.kind = FrameKind::World;
  rec.family = spec.family;
  rec.offsetA = spec.offsetA;
  rec.offsetB = spec.offsetB;
  rec.length = spec.length;
  rec.rowIndex.fill(-1);
  w.checkClosureEndpoints(finalName, rec.frameA, rec.frameB);  // against the current tree, before committing
  const auto slot = static_cast<std::uint32_t>(w.closures.size());
  w.closures.push_back(std::move(rec));
  w.state.closures.resize(w.closures.size());
  w.closureNames[finalName] = slot;
  w.rebuildClosureFilters();
  return LoopClosure(this, slot, w.closures[slot].generation);
}

namespace {

// Handle of a named record (`make(slot, generation)` builds it).
template <class Record, class Make>
auto findHandle(const std::map<std::string, std::uint32_t>& names, const std::vector<Record>& records,
                const std::string& name, Make make) -> std::optional<decltype(make(0u, 0u))> {
  const auto it = names.find(name);
  if (it == names.end()) return std::nullopt;
  return make(it->second, records[it->second].generation);
}

// Handles of the live records, in creation order.
template <class Record, class Make>
auto liveHandles(const std::vector<Record>& records, Make make) {
  std::vector<decltype(make(0u, 0u))> out;
  for (std::uint32_t s = 0; s < records.size(); ++s)
    if (records[s].alive) out.push_back(make(s, records[s].generation));
  return out;
}

}  // namespace

std::optional<LoopClosure> World::getLoopClosure(const std::string& name) const {
  return findHandle(m_impl->closureNames, m_impl->closures, name,
                    [this](std::uint32_t s, std::uint32_t g) { return LoopClosure(const_cast<World*>(this), s, g); });
}

bool World::hasLoopClosure(const std::string& name) const {
  return m_impl->closureNames.count(name) != 0;
}

std::size_t World::numLoopClosures() const {
  return m_impl->closureNames.size();
}

std::vector<LoopClosure> World::getLoopClosures() const {
  return liveHandles(m_impl->closures,
                     [this](std::uint32_t s, std::uint32_t g) { return LoopClosure(const_cast<World*>(this), s, g); });
}

void World::remove(const LoopClosure& closure) {
  auto& w = *m_impl;
  if (closure.m_world != this) throw TopologyError("the loop closure belongs to another World");
  auto& rec = w.closure(closure.m_index, closure.m_generation);
  w.requireDesignMode("remove a loop closure");
  rec.alive = false;
  w.closureNames.erase(rec.name);
  w.rebuildClosureFilters();
}

JointCoupler World::addJointCoupler(const std::string& name, const JointCouplerSpec& spec) {
  auto& w = *m_impl;
  w.requireDesignMode("add a joint coupler");
  const std::string where = "joint coupler '" + (name.empty() ? std::string("joint_coupler") : name) + "'";
  for (const Joint* j : {&spec.leader, &spec.follower}) {
    if (j->m_world == nullptr) throw InvalidHandle(where + ": invalid Joint handle (default-constructed)");
    if (j->m_world != this) throw TopologyError(where + ": joint '" + j->name() + "' belongs to another World");
    w.link(j->m_index, j->m_generation);
  }
  auto jointName = [&](const Joint& j) {
    const auto& L = w.links[j.m_index];
    return "'" + w.multibodies[L.multibody].name + "/" + L.joint.name + "'";
  };
  for (const Joint* j : {&spec.leader, &spec.follower}) w.checkCouplerJoint(where, j->m_index);
  if (spec.leader == spec.follower) {
    throw TopologyError(where + ": leader and follower are the same joint " + jointName(spec.leader));
  }
  for (const auto& c : w.couplers) {
    if (c.alive && c.follower == spec.follower.m_index && c.followerGeneration == spec.follower.m_generation) {
      throw TopologyError(where + ": joint " + jointName(spec.follower) + " already follows a joint (coupler '" +
                          c.name + "')");
    }
  }
  if (!(spec.ratio != 0.0 && std::isfinite(spec.ratio))) {
    throw InvalidArgument(where + ": ratio must be finite and nonzero (got " + std::to_string(spec.ratio) + ")");
  }
  if (!std::isfinite(spec.offset)) throw InvalidArgument(where + ": offset must be finite");
  if (!name.empty()) {
    if (w.couplerNames.count(name) != 0) throw TopologyError(where + ": the name is taken by another joint coupler");
    if (name.find('/') != std::string::npos) throw InvalidArgument(where + ": the name must not contain '/'");
  }
  detail::CouplerRecord rec;
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.name = name.empty() ? WorldImpl::uniqueName(w.couplerNames, "joint_coupler") : name;
  rec.leader = spec.leader.m_index;
  rec.leaderGeneration = spec.leader.m_generation;
  rec.follower = spec.follower.m_index;
  rec.followerGeneration = spec.follower.m_generation;
  rec.ratio = spec.ratio;
  rec.offset = spec.offset;
  const auto slot = static_cast<std::uint32_t>(w.couplers.size());
  w.couplerNames[rec.name] = slot;
  w.couplers.push_back(std::move(rec));
  w.state.couplers.resize(w.couplers.size());
  return JointCoupler(this, slot, w.couplers[slot].generation);
}

std::optional<JointCoupler> World::getJointCoupler(const std::string& name) const {
  return findHandle(m_impl->couplerNames, m_impl->couplers, name,
                    [this](std::uint32_t s, std::uint32_t g) { return JointCoupler(const_cast<World*>(this), s, g); });
}

bool World::hasJointCoupler(const std::string& name) const {
  return m_impl->couplerNames.count(name) != 0;
}

std::size_t World::numJointCouplers() const {
  return m_impl->couplerNames.size();
}

std::vector<JointCoupler> World::getJointCouplers() const {
  return liveHandles(m_impl->couplers,
                     [this](std::uint32_t s, std::uint32_t g) { return JointCoupler(const_cast<World*>(this), s, g); });
}

void World::remove(const JointCoupler& coupler) {
  auto& w = *m_impl;
  if (coupler.m_world != this) throw TopologyError("the joint coupler belongs to another World");
  auto& rec = w.coupler(coupler.m_index, coupler.m_generation);
  w.requireDesignMode("remove a joint coupler");
  rec.alive = false;
  w.couplerNames.erase(rec.name);
}

ClosureProjectionResult World::projectClosures(const ClosureProjectionOptions& options) {
  auto& w = *m_impl;
  w.requireUnlocked("project closures");
  if (!(options.tolerance > 0.0) || !std::isfinite(options.tolerance)) {
    throw InvalidArgument("projectClosures: tolerance must be finite and > 0 (got " +
                          std::to_string(options.tolerance) + ")");
  }
  if (options.maxIterations < 1) throw InvalidArgument("projectClosures: maxIterations must be at least 1");
  w.ensureModel();
  auto& locked = w.projection.lockedBodies;
  locked.clear();
  for (const Joint& j : options.lockedJoints) {
    if (j.m_world == nullptr) throw InvalidHandle("projectClosures: invalid locked Joint handle (default-constructed)");
    if (j.m_world != this) throw TopologyError("projectClosures: locked joint belongs to another World");
    w.link(j.m_index, j.m_generation);
    locked.push_back(w.linkBody[j.m_index]);
  }
  for (const RigidBody& b : options.lockedRigidBodies) {
    w.checkFrame(b);
    locked.push_back(w.rigidBodyBody[b.index()]);
  }
  return w.project(options, false, false);
}

// ---- LoopClosure handle ------------------------------------------------------

bool LoopClosure::isValid() const {
  return m_world != nullptr && liveSlot(implOf(m_world).closures, m_index, m_generation);
}

std::string LoopClosure::name() const {
  return closureOf(m_world, m_index, m_generation).name;
}

LoopClosureFamily LoopClosure::family() const {
  return closureOf(m_world, m_index, m_generation).family;
}

int LoopClosure::numRows() const {
  return numResidualRows(family());
}

LoopClosureSpec LoopClosure::getSpec() const {
  const auto& c = closureOf(m_world, m_index, m_generation);
  LoopClosureSpec s;
  s.frameA = detail::Access::frame(m_world, c.frameA.kind, c.frameA.index, c.frameA.generation);
  s.frameB = detail::Access::frame(m_world, c.frameB.kind, c.frameB.index, c.frameB.generation);
  if (c.frameA.kind == FrameKind::World) s.frameA = Frame::World();
  if (c.frameB.kind == FrameKind::World) s.frameB = Frame::World();
  s.family = c.family;
  s.offsetA = c.offsetA;
  s.offsetB = c.offsetB;
  s.length = c.length;
  return s;
}

LoopClosureRuntimePolicy LoopClosure::getRuntimePolicy() const {
  return closureOf(m_world, m_index, m_generation).policy;
}

void LoopClosure::setRuntimePolicy(const LoopClosureRuntimePolicy& policy) {
  applyPolicy(closureOf(m_world, m_index, m_generation), policy, "loop closure");
}

void LoopClosure::setEnabled(bool enabled) {
  closureOf(m_world, m_index, m_generation).policy.enabled = enabled;
}

bool LoopClosure::isEnabled() const {
  return closureOf(m_world, m_index, m_generation).policy.enabled;
}

double LoopClosure::computeResidualNorm() const {
  auto& w = liveImpl(m_world, "LoopClosure");
  const auto& c = w.closure(m_index, m_generation);
  w.ensurePositions();
  const int n = numResidualRows(c.family);
  std::array<detail::ClosureRow, 6> rows;
  w.closureRows(c, rows.data());
  double sum = 0.0;
  for (int i = 0; i < n; ++i)
    sum += rows[static_cast<std::size_t>(i)].residual * rows[static_cast<std::size_t>(i)].residual;
  return std::sqrt(sum);
}

LoopClosureResidual LoopClosure::computeResidual() const {
  auto& w = liveImpl(m_world, "LoopClosure");
  const auto& c = w.closure(m_index, m_generation);
  w.ensurePositions();
  const int n = numResidualRows(c.family);
  std::array<detail::ClosureRow, 6> rows;
  w.closureRows(c, rows.data());
  LoopClosureResidual out;
  out.residual.resize(n);
  for (int i = 0; i < n; ++i) out.residual[i] = rows[static_cast<std::size_t>(i)].residual;
  out.norm = out.residual.norm();
  out.enabled = c.policy.enabled;
  out.active = activePolicy(c.policy);
  const detail::ClosureState* cs = m_index < w.state.closures.size() ? &w.state.closures[m_index] : nullptr;
  out.forceAvailable = cs != nullptr && forceAvailable(w, cs->solved);
  if (out.forceAvailable) {
    out.impulse = cs->impulse;
    out.wrench = cs->impulse / w.options.timeStep;
  }
  return out;
}

namespace {

Isometry3d endpoint(World* world, std::uint32_t index, std::uint32_t generation, bool b) {
  auto& w = liveImpl(world, "LoopClosure");
  const auto& c = w.closure(index, generation);
  w.ensurePositions();
  return w.endpointPose(c, b).toIsometry();
}

}  // namespace

Isometry3d LoopClosure::getEndpointA() const {
  return endpoint(m_world, m_index, m_generation, false);
}

Isometry3d LoopClosure::getEndpointB() const {
  return endpoint(m_world, m_index, m_generation, true);
}

// ---- JointCoupler handle -----------------------------------------------------

bool JointCoupler::isValid() const {
  return m_world != nullptr && liveSlot(implOf(m_world).couplers, m_index, m_generation);
}

std::string JointCoupler::name() const {
  return couplerOf(m_world, m_index, m_generation).name;
}

JointCouplerSpec JointCoupler::getSpec() const {
  const auto& c = couplerOf(m_world, m_index, m_generation);
  JointCouplerSpec s;
  s.leader = detail::Access::joint(m_world, c.leader, c.leaderGeneration);
  s.follower = detail::Access::joint(m_world, c.follower, c.followerGeneration);
  s.ratio = c.ratio;
  s.offset = c.offset;
  return s;
}

LoopClosureRuntimePolicy JointCoupler::getRuntimePolicy() const {
  return couplerOf(m_world, m_index, m_generation).policy;
}

void JointCoupler::setRuntimePolicy(const LoopClosureRuntimePolicy& policy) {
  applyPolicy(couplerOf(m_world, m_index, m_generation), policy, "joint coupler");
}

void JointCoupler::setEnabled(bool enabled) {
  couplerOf(m_world, m_index, m_generation).policy.enabled = enabled;
}

bool JointCoupler::isEnabled() const {
  return couplerOf(m_world, m_index, m_generation).policy.enabled;
}

JointCouplerResidual JointCoupler::computeResidual() const {
  auto& w = liveImpl(m_world, "JointCoupler");
  const auto& c = w.coupler(m_index, m_generation);
  w.ensureModel();
  JointCouplerResidual out;
  out.residual = w.couplerResidual(c);
  out.enabled = c.policy.enabled;
  out.active = activePolicy(c.policy);
  const detail::CouplerState* cs = m_index < w.state.couplers.size() ? &w.state.couplers[m_index] : nullptr;
  out.forceAvailable = cs != nullptr && forceAvailable(w, cs->solved);
  if (out.forceAvailable) {
    out.impulse = cs->impulse;
    out.force = cs->impulse / w.options.timeStep;
  }
  return out;
}

}  // namespace articula

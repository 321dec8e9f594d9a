// Runtime frames: the state plus what the solver carries between steps, in
// one flat byte layout (docs/replay.md). Native byte order; every field is
// aligned to its size and the frame's length is a multiple of 8.
//
//   header (40 bytes)  f64 time, u64 frameIndex, u32 flags (1: simulation mode, 2: actuators, 4: sensors),
//                      u32 nq, nv, bodies, closures, couplers
//   state              f64 q[nq], v[nv], v̇[nv], τ[nv]; external wrenches: u32 count,
//                      u32 0, then per body whose wrench is not zero (ascending):
//                      u32 body, u32 0, f64 wrench[6]
//   free frames        u32 count, u32 0, then per free user frame (creation
//                      order): f64 rotation[9] (column by column),
//                      translation[3], velocity[6], acceleration[6]
//   actuators          only with flag 2: u32 count, u32 0, then per actuator
//                      f64 control, integral, lock target
//   sensors            only with flag 4: u32 count, u32 0, then per sensor
//                      u64 noise counter, f64 next update, f64 reading time,
//                      u32 values, u32 0, f64 values[values]
//   policies           48 bytes per closure, then per coupler
//   solver data        per closure: u32 rows, u32 0, f64 impulse[rows]
//                      per coupler: f64 impulse
//                      diagnostics (32 bytes)
//                      u32 manifolds, u32 0, then per manifold: i32 shape0,
//                      i32 shape1, i32 points, i32 0, points × 80 bytes
#include <articula/world.hpp>

#include "collision.hpp"
#include "world_impl.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace articula {

namespace detail {

namespace {

constexpr std::size_t kPolicyBytes = 48;
constexpr std::size_t kFreeFrameBytes = 24 * sizeof(double);
constexpr std::uint32_t kSimulationFlag = 1;
constexpr std::uint32_t kActuatorFlag = 2;
constexpr std::uint32_t kSensorFlag = 4;

class Writer {
 public:
  explicit Writer(std::vector<unsigned char>& out) : m_out(out) {}
  template <class T>
  void put(const T& v) {
    raw(&v, sizeof(T));
  }
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    m_out.insert(m_out.end(), b, b + n);
  }
  void doubles(const double* p, Eigen::Index n) { raw(p, static_cast<std::size_t>(n) * sizeof(double)); }
  void policy(const LoopClosureRuntimePolicy& p) {
    const std::uint8_t bytes[8] = {static_cast<std::uint8_t>(p.enabled),
                                   static_cast<std::uint8_t>(p.kinematics),
                                   static_cast<std::uint8_t>(p.dynamics),
                                   static_cast<std::uint8_t>(p.stabilization),
                                   static_cast<std::uint8_t>(p.projectAfterStep),
                                   0,
                                   0,
                                   0};
    raw(bytes, sizeof bytes);
    put(static_cast<std::int32_t>(p.maxIterations));
    put(std::uint32_t{0});
    put(p.errorReduction);
    put(p.stiffness);
    put(p.damping);
    put(p.tolerance);
  }

 private:
  std::vector<unsigned char>& m_out;
};

class Reader {
 public:
  Reader(const unsigned char* data, std::size_t size) : m_data(data), m_size(size) {}
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  const unsigned char* take(std::size_t n) {
    if (m_size - m_at < n) throw InvalidArgument("runtime frame: truncated (" + std::to_string(m_size) + " bytes)");
    const unsigned char* p = m_data + m_at;
    m_at += n;
    return p;
  }
  void doubles(double* out, std::size_t n) {
    const unsigned char* p = take(n * sizeof(double));
    if (n > 0) std::memcpy(out, p, n * sizeof(double));  // `out` may be null when n = 0
  }
  LoopClosureRuntimePolicy policy() {
    const unsigned char* b = take(8);
    if (b[0] > 1 || b[1] > 1 || b[2] > 1 || b[3] > 1 || b[4] > 1) {
      throw InvalidArgument("runtime frame: a runtime policy holds an unknown enumeration value");
    }
    LoopClosureRuntimePolicy p;
    p.enabled = b[0] != 0;
    p.kinematics = static_cast<ClosureKinematicsPolicy>(b[1]);
    p.dynamics = static_cast<ClosureDynamicsPolicy>(b[2]);
    p.stabilization = static_cast<ClosureStabilization>(b[3]);
    p.projectAfterStep = b[4] != 0;
    p.maxIterations = get<std::int32_t>();
    get<std::uint32_t>();
    p.errorReduction = get<double>();
    p.stiffness = get<double>();
    p.damping = get<double>();
    p.tolerance = get<double>();
    return p;
  }
  std::size_t position() const { return m_at; }
  bool atEnd() const { return m_at == m_size; }

 private:
  const unsigned char* m_data;
  std::size_t m_size;
  std::size_t m_at = 0;
};

// The parsed solver-data part of a frame.
struct SolverData {
  std::vector<std::vector<double>> closureLambda;
  std::vector<double> couplerLambda;
  StepDiagnostics diagnostics;
  std::vector<ManifoldState> manifolds;
};

SolverData parseSolverData(const std::vector<unsigned char>& bytes, std::size_t closures, std::size_t couplers) {
  Reader in(bytes.data(), bytes.size());
  SolverData d;
  d.closureLambda.resize(closures);
  for (auto& l : d.closureLambda) {
    const auto rows = in.get<std::uint32_t>();
    in.get<std::uint32_t>();
    if (rows > 6) throw InvalidArgument("runtime frame: a loop closure has at most 6 rows");
    l.resize(rows);
    in.doubles(l.data(), rows);
  }
  d.couplerLambda.resize(couplers);
  in.doubles(d.couplerLambda.data(), couplers);
  d.diagnostics.numContacts = in.get<std::int32_t>();
  d.diagnostics.numRows = in.get<std::int32_t>();
  d.diagnostics.numIslands = in.get<std::int32_t>();
  d.diagnostics.iterations = in.get<std::int32_t>();
  d.diagnostics.residual = in.get<double>();
  const auto flags = in.get<std::uint32_t>();
  in.get<std::uint32_t>();
  d.diagnostics.fallback = (flags & 1u) != 0;
  d.diagnostics.failed = (flags & 2u) != 0;
  const auto manifolds = in.get<std::uint32_t>();
  in.get<std::uint32_t>();
  // Every manifold takes at least its 16-byte header.
  if (manifolds > bytes.size() / 16) throw InvalidArgument("runtime frame: truncated (manifolds)");
  d.manifolds.resize(manifolds);
  for (ManifoldState& m : d.manifolds) {
    m.shape0 = in.get<std::int32_t>();
    m.shape1 = in.get<std::int32_t>();
    m.numPoints = in.get<std::int32_t>();
    in.get<std::int32_t>();
    if (m.numPoints < 1 || m.numPoints > 4) throw InvalidArgument("runtime frame: a manifold holds 1 to 4 points");
    const std::size_t n = static_cast<std::size_t>(m.numPoints) * manifoldPointSize();
    const unsigned char* p = in.take(n);
    m.points.assign(p, p + n);
  }
  if (!in.atEnd()) throw InvalidArgument("runtime frame: trailing bytes after the contact manifolds");
  return d;
}

}  // namespace

void encodeRuntimeFrame(WorldImpl& w, std::vector<unsigned char>& out) {
  w.ensureModel();
  out.clear();
  Writer o(out);
  const Model& m = w.model;
  std::uint32_t closures = 0;
  for (const auto& rec : w.closures) closures += rec.alive ? 1 : 0;
  std::uint32_t couplers = 0;
  for (const auto& rec : w.couplers) couplers += rec.alive ? 1 : 0;
  o.put(w.state.time);
  o.put(w.state.frameIndex);
  const bool anySensor = !w.sensorNames.empty();
  o.put((w.simulation ? kSimulationFlag : 0u) | (m.nu > 0 ? kActuatorFlag : 0u) | (anySensor ? kSensorFlag : 0u));
  o.put(static_cast<std::uint32_t>(m.nq));
  o.put(static_cast<std::uint32_t>(m.nv));
  o.put(static_cast<std::uint32_t>(m.nbody));
  o.put(closures);
  o.put(couplers);
  o.doubles(w.state.q.data(), m.nq);
  o.doubles(w.state.v.data(), m.nv);
  o.doubles(w.state.vdot.data(), m.nv);
  o.doubles(w.state.tau.data(), m.nv);
  // Wrenches are cleared by every step: only the non-zero ones are written.
  const std::size_t countAt = out.size();
  std::uint32_t wrenches = 0;
  o.put(std::uint64_t{0});
  for (int i = 0; i < m.nbody; ++i) {
    const Vector6d& f = w.state.fext[static_cast<std::size_t>(i)];
    if (!(f.array() != 0.0).any()) continue;
    ++wrenches;
    o.put(static_cast<std::uint32_t>(i));
    o.put(std::uint32_t{0});
    o.doubles(f.data(), 6);
  }
  std::memcpy(out.data() + countAt, &wrenches, sizeof wrenches);
  std::uint32_t freeFrames = 0;
  for (const auto& f : w.frames) freeFrames += f.alive && f.isFree ? 1 : 0;
  o.put(freeFrames);
  o.put(std::uint32_t{0});
  for (const auto& f : w.frames) {
    if (!f.alive || !f.isFree) continue;
    o.doubles(f.X_PF.R.data(), 9);
    o.doubles(f.X_PF.p.data(), 3);
    o.doubles(f.V_rel.data(), 6);
    o.doubles(f.A_rel.data(), 6);
  }
  if (m.nu > 0) {
    o.put(static_cast<std::uint32_t>(m.nu));
    o.put(std::uint32_t{0});
    for (int a = 0; a < m.nu; ++a) {
      o.put(w.controls[a]);
      o.put(w.state.act_integral[a]);
      o.put(w.state.act_lockTarget[a]);
    }
  }
  if (anySensor) {
    o.put(static_cast<std::uint32_t>(w.sensorNames.size()));
    o.put(std::uint32_t{0});
    for (const auto& sensor : w.sensors) {
      if (!sensor.alive) continue;
      o.put(sensor.noiseCounter);
      o.put(sensor.nextUpdate);
      o.put(sensor.readingTime);
      o.put(static_cast<std::uint32_t>(sensor.values.size()));
      o.put(std::uint32_t{0});
      o.doubles(sensor.values.data(), sensor.values.size());
    }
  }
  for (const auto& rec : w.closures) {
    if (rec.alive) o.policy(rec.policy);
  }
  for (const auto& rec : w.couplers) {
    if (rec.alive) o.policy(rec.policy);
  }
  for (std::size_t slot = 0; slot < w.closures.size(); ++slot) {
    if (!w.closures[slot].alive) continue;
    const std::vector<double>& lambda = w.state.closures[slot].lambda;
    o.put(static_cast<std::uint32_t>(lambda.size()));
    o.put(std::uint32_t{0});
    o.doubles(lambda.data(), static_cast<Eigen::Index>(lambda.size()));
  }
  for (std::size_t slot = 0; slot < w.couplers.size(); ++slot) {
    if (w.couplers[slot].alive) o.put(w.state.couplers[slot].lambda);
  }
  const StepDiagnostics& d = w.diagnostics;
  o.put(static_cast<std::int32_t>(d.numContacts));
  o.put(static_cast<std::int32_t>(d.numRows));
  o.put(static_cast<std::int32_t>(d.numIslands));
  o.put(static_cast<std::int32_t>(d.iterations));
  o.put(d.residual);
  o.put(static_cast<std::uint32_t>((d.fallback ? 1u : 0u) | (d.failed ? 2u : 0u)));
  o.put(std::uint32_t{0});
  if (w.simulation && w.collisionValid && w.collision) {
    w.collision->capture(out);
  } else {
    o.put(std::uint64_t{0});  // no manifolds
  }
}

namespace {
constexpr std::uint32_t kMaxRuntimeFrameBodies = std::uint32_t{1} << 20;
}  // namespace

RuntimeSnapshot decodeRuntimeFrame(const unsigned char* data, std::size_t size) {
  Reader in(data, size);
  RuntimeSnapshot s;
  s.state.time = in.get<double>();
  s.state.frameIndex = in.get<std::uint64_t>();
  const auto flags = in.get<std::uint32_t>();
  if (flags > (kSimulationFlag | kActuatorFlag | kSensorFlag)) throw InvalidArgument("runtime frame: unknown flags");
  s.simulationMode = (flags & kSimulationFlag) != 0;
  const auto nq = in.get<std::uint32_t>();
  const auto nv = in.get<std::uint32_t>();
  const auto nbody = in.get<std::uint32_t>();
  const auto closures = in.get<std::uint32_t>();
  const auto couplers = in.get<std::uint32_t>();
  // Counts are bounded by what the remaining bytes can hold before anything
  // is allocated. External wrenches are stored only for the bodies that have
  // one, so the body count is bounded by a limit of its own (a million
  // bodies: 48 MB of wrenches), not by the bytes.
  const std::size_t rest = size - in.position();
  if (nq > rest / 8 || nv > rest / 24 || nbody > kMaxRuntimeFrameBodies || closures > rest / kPolicyBytes ||
      couplers > rest / kPolicyBytes) {
    throw InvalidArgument("runtime frame: truncated (" + std::to_string(size) + " bytes)");
  }
  s.state.positions.resize(nq);
  s.state.velocities.resize(nv);
  s.state.accelerations.resize(nv);
  s.state.forces.resize(nv);
  s.state.externalWrenches.resize(6, nbody);
  in.doubles(s.state.positions.data(), nq);
  in.doubles(s.state.velocities.data(), nv);
  in.doubles(s.state.accelerations.data(), nv);
  in.doubles(s.state.forces.data(), nv);
  s.state.externalWrenches.setZero();
  const auto wrenches = in.get<std::uint32_t>();
  in.get<std::uint32_t>();
  if (wrenches > nbody) throw InvalidArgument("runtime frame: more external wrenches than bodies");
  std::int64_t previous = -1;
  for (std::uint32_t k = 0; k < wrenches; ++k) {
    const auto body = in.get<std::uint32_t>();
    in.get<std::uint32_t>();
    if (body >= nbody || static_cast<std::int64_t>(body) <= previous) {
      throw InvalidArgument("runtime frame: external wrenches out of body order");
    }
    previous = body;
    in.doubles(s.state.externalWrenches.col(body).data(), 6);
  }
  const auto freeFrames = in.get<std::uint32_t>();
  in.get<std::uint32_t>();
  if (freeFrames > (size - in.position()) / kFreeFrameBytes)
    throw InvalidArgument("runtime frame: truncated (free frames)");
  s.freeFrames.resize(freeFrames);
  for (FreeFrameState& f : s.freeFrames) {
    Matrix3d R;
    Vector3d p;
    in.doubles(R.data(), 9);
    in.doubles(p.data(), 3);
    f.relativeTransform.linear() = R;
    f.relativeTransform.translation() = p;
    in.doubles(f.relativeVelocity.data(), 6);
    in.doubles(f.relativeAcceleration.data(), 6);
  }
  if ((flags & kActuatorFlag) != 0) {
    const auto count = in.get<std::uint32_t>();
    in.get<std::uint32_t>();
    if (count > (size - in.position()) / 24) throw InvalidArgument("runtime frame: truncated (actuators)");
    s.actuators.resize(count);
    for (ActuatorRuntimeState& a : s.actuators) {
      a.control = in.get<double>();
      a.integral = in.get<double>();
      a.lockTarget = in.get<double>();
    }
  }
  if ((flags & kSensorFlag) != 0) {
    const auto count = in.get<std::uint32_t>();
    in.get<std::uint32_t>();
    if (count > (size - in.position()) / 32) throw InvalidArgument("runtime frame: truncated (sensors)");
    s.sensors.resize(count);
    for (SensorRuntimeState& r : s.sensors) {
      r.noiseCounter = in.get<std::uint64_t>();
      r.nextUpdate = in.get<double>();
      r.readingTime = in.get<double>();
      const auto n = in.get<std::uint32_t>();
      in.get<std::uint32_t>();
      if (n > (size - in.position()) / 8) throw InvalidArgument("runtime frame: truncated (sensor values)");
      r.values.resize(n);
      in.doubles(r.values.data(), n);
    }
  }
  s.closurePolicies.resize(closures);
  for (auto& p : s.closurePolicies) p = in.policy();
  s.couplerPolicies.resize(couplers);
  for (auto& p : s.couplerPolicies) p = in.policy();
  const std::size_t solverStart = in.position();
  s.solverData.assign(data + solverStart, data + size);
  parseSolverData(s.solverData, closures, couplers);  // structure check
  return s;
}

}  // namespace detail

RuntimeSnapshot World::captureRuntimeState() const {
  std::vector<unsigned char> frame;
  detail::encodeRuntimeFrame(*m_impl, frame);
  return detail::decodeRuntimeFrame(frame.data(), frame.size());
}

void World::restoreRuntimeState(const RuntimeSnapshot& s) {
  auto& w = *m_impl;
  w.requireUnlocked("restore a runtime state");
  const std::vector<LoopClosure> closures = getLoopClosures();
  const std::vector<JointCoupler> couplers = getJointCouplers();
  if (s.closurePolicies.size() != closures.size() || s.couplerPolicies.size() != couplers.size()) {
    throw InvalidArgument("restoreRuntimeState: the snapshot has " + std::to_string(s.closurePolicies.size()) +
                          " loop closures and " + std::to_string(s.couplerPolicies.size()) + " couplers, the world " +
                          std::to_string(closures.size()) + " and " + std::to_string(couplers.size()));
  }
  // Check everything before changing anything.
  const detail::SolverData solver = detail::parseSolverData(s.solverData, closures.size(), couplers.size());
  for (std::size_t i = 0; i < closures.size(); ++i) {
    detail::validateRuntimePolicy(s.closurePolicies[i],
                                  "restoreRuntimeState: loop closure '" + closures[i].name() + "'");
  }
  for (std::size_t i = 0; i < couplers.size(); ++i) {
    detail::validateRuntimePolicy(s.couplerPolicies[i],
                                  "restoreRuntimeState: joint coupler '" + couplers[i].name() + "'");
  }
  w.ensureModel();
  const int nq = w.model.nq;
  const int nv = w.model.nv;
  if (s.state.positions.size() != nq || s.state.velocities.size() != nv || s.state.accelerations.size() != nv ||
      s.state.forces.size() != nv || s.state.externalWrenches.cols() != w.model.nbody) {
    throw InvalidArgument("restoreRuntimeState: the snapshot's state sizes do not match the world's");
  }
  std::size_t k = 0;
  for (const auto& rec : w.closures) {
    if (!rec.alive) continue;
    const std::size_t rows = solver.closureLambda[k++].size();
    const auto expected = static_cast<std::size_t>(numResidualRows(rec.family));
    if (rows != 0 && rows != expected) {
      throw InvalidArgument("restoreRuntimeState: loop closure '" + rec.name + "' has " + std::to_string(expected) +
                            " rows, the snapshot " + std::to_string(rows));
    }
  }
  if (s.actuators.size() != static_cast<std::size_t>(w.model.nu)) {
    throw InvalidArgument("restoreRuntimeState: the snapshot has " + std::to_string(s.actuators.size()) +
                          " actuators, the world " + std::to_string(w.model.nu));
  }
  for (const ActuatorRuntimeState& a : s.actuators) {
    if (!std::isfinite(a.control) || !std::isfinite(a.integral) || std::isinf(a.lockTarget)) {
      throw InvalidArgument("restoreRuntimeState: an actuator's control, integral or lock target is not finite");
    }
  }
  if (s.sensors.size() != w.sensorNames.size()) {
    throw InvalidArgument("restoreRuntimeState: the snapshot has " + std::to_string(s.sensors.size()) +
                          " sensors, the world " + std::to_string(w.sensorNames.size()));
  }
  {
    std::size_t j = 0;
    for (const auto& sensor : w.sensors) {
      if (!sensor.alive) continue;
      const SensorRuntimeState& from = s.sensors[j++];
      if (from.values.size() != static_cast<std::size_t>(sensor.values.size())) {
        throw InvalidArgument("restoreRuntimeState: sensor '" + sensor.spec.name + "' has " +
                              std::to_string(sensor.values.size()) + " values, the snapshot " +
                              std::to_string(from.values.size()));
      }
      if (!std::isfinite(from.nextUpdate)) {
        throw InvalidArgument("restoreRuntimeState: sensor '" + sensor.spec.name + "': next update time not finite");
      }
    }
  }
  std::size_t freeFrames = 0;
  for (const auto& f : w.frames) freeFrames += f.alive && f.isFree ? 1 : 0;
  if (s.freeFrames.size() != freeFrames) {
    throw InvalidArgument("restoreRuntimeState: the snapshot has " + std::to_string(s.freeFrames.size()) +
                          " free frames, the world " + std::to_string(freeFrames));
  }
  for (const FreeFrameState& f : s.freeFrames) {
    const Matrix3d R = f.relativeTransform.linear();
    if (!f.relativeTransform.matrix().allFinite() || !f.relativeVelocity.allFinite() ||
        !f.relativeAcceleration.allFinite() || (R.transpose() * R - Matrix3d::Identity()).norm() > 1e-6) {
      throw InvalidArgument("restoreRuntimeState: a free frame's motion is not finite or not rigid");
    }
  }
  for (const auto& m : solver.manifolds) {
    if (m.shape0 < 0 || m.shape1 < 0 || m.shape0 >= w.model.nshape || m.shape1 >= w.model.nshape) {
      throw InvalidArgument("restoreRuntimeState: a manifold names a shape the world does not have");
    }
  }

  if (s.simulationMode && !w.simulation) enterSimulationMode();
  k = 0;
  for (auto& f : w.frames) {
    if (!f.alive || !f.isFree) continue;
    const FreeFrameState& from = s.freeFrames[k++];
    f.X_PF.R = from.relativeTransform.linear();
    f.X_PF.p = from.relativeTransform.translation();
    f.V_rel = from.relativeVelocity;
    f.A_rel = from.relativeAcceleration;
  }
  setState(s.state);
  for (int a = 0; a < w.model.nu; ++a) {
    const ActuatorRuntimeState& from = s.actuators[static_cast<std::size_t>(a)];
    w.controls[a] = from.control;
    w.controlSet[static_cast<std::size_t>(a)] = 1;
    w.state.act_integral[a] = from.integral;
    w.state.act_lockTarget[a] = from.lockTarget;
  }
  k = 0;
  for (std::size_t slot = 0; slot < w.closures.size(); ++slot) {
    if (!w.closures[slot].alive) continue;
    w.closures[slot].policy = s.closurePolicies[k];
    detail::ClosureState& cs = w.state.closures[slot];
    cs.lambda = solver.closureLambda[k];
    cs.solved = false;  // the rows of the recorded step are not kept: no force until the next step
    ++k;
  }
  k = 0;
  for (std::size_t slot = 0; slot < w.couplers.size(); ++slot) {
    if (!w.couplers[slot].alive) continue;
    w.couplers[slot].policy = s.couplerPolicies[k];
    detail::CouplerState& cs = w.state.couplers[slot];
    cs.lambda = solver.couplerLambda[k];
    cs.solved = false;
    ++k;
  }
  k = 0;
  for (auto& sensor : w.sensors) {
    if (!sensor.alive) continue;
    const SensorRuntimeState& from = s.sensors[k++];
    sensor.noiseCounter = from.noiseCounter;
    sensor.nextUpdate = from.nextUpdate;
    sensor.readingTime = from.readingTime;
    for (std::size_t j = 0; j < from.values.size(); ++j) sensor.values[static_cast<Eigen::Index>(j)] = from.values[j];
  }
  w.stepRecord.valid = false;  // the recorded step's forces are not kept
  w.diagnostics = solver.diagnostics;
  w.contacts.clear();
  if (w.simulation && w.model.nshape > 0) {
    w.ensureCollision();
    if (w.collision) {
      w.ensurePositions();
      w.collision->update(w.data.X_WB);
      w.collision->restore(solver.manifolds);
    }
  }
}

}  // namespace articula

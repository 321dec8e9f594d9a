// Sensors (articula/sensor.hpp): records, handles, and their update at the
// end of a step from the step's start state, accelerations and forces
// (StepRecord, forces.cpp).
#include "world_impl.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace articula {

std::string_view toString(SensorType type) {
  switch (type) {
    case SensorType::Imu:
      return "imu";
    case SensorType::ForceTorque:
      return "force_torque";
    case SensorType::Contact:
      return "contact";
    case SensorType::JointEncoder:
      return "joint_encoder";
    case SensorType::Rangefinder:
      return "rangefinder";
  }
  return "?";
}

bool operator==(const SensorSpec& a, const SensorSpec& b) {
  return a.name == b.name && a.type == b.type && a.frame == b.frame && a.joint == b.joint &&
         a.pose.matrix() == b.pose.matrix() && a.rate == b.rate && a.noiseStddev == b.noiseStddev &&
         a.noiseBias == b.noiseBias && a.seed == b.seed && a.childOnParent == b.childOnParent &&
         a.minRange == b.minRange && a.maxRange == b.maxRange;
}

namespace detail {

bool sensorUsesFrame(SensorType t) {
  return t == SensorType::Imu || t == SensorType::Rangefinder || t == SensorType::Contact;
}

namespace {

// splitmix64 (Steele, Lea and Flood 2014): a counter-based stream, the
// same on every platform.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t drawBits(std::uint64_t seed, std::uint64_t counter) {
  return mix(seed + 0x9e3779b97f4a7c15ull * (counter + 1));
}

double uniform01(std::uint64_t seed, std::uint64_t counter) {
  return (static_cast<double>(drawBits(seed, counter) >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
}

// The ziggurat of the standard normal density (Marsaglia and Tsang 2000, in
// Doornik's 2005 form): 128 layers of equal area V, the base layer ending at
// R with the tail beyond it. x[i] are the layers' right edges.
struct Ziggurat {
  static constexpr int kLayers = 128;
  static constexpr double R = 3.442619855899;
  static constexpr double V = 9.91256303526217e-3;
  std::array<double, kLayers + 1> x{};
  std::array<double, kLayers> inner{};  // x[i + 1] / x[i]: |u| below it is inside the layer's rectangle

  Ziggurat() {
    double f = std::exp(-0.5 * R * R);
    x[0] = V / f;
    x[1] = R;
    for (int i = 2; i < kLayers; ++i) {
      x[static_cast<std::size_t>(i)] = std::sqrt(-2.0 * std::log(V / x[static_cast<std::size_t>(i - 1)] + f));
      f = std::exp(-0.5 * x[static_cast<std::size_t>(i)] * x[static_cast<std::size_t>(i)]);
    }
    x[kLayers] = 0.0;
    for (std::size_t i = 0; i < kLayers; ++i) inner[i] = x[i + 1] / x[i];
  }
};

// One standard normal value from draws `counter`, `counter + 1`, ...: one
// draw in about 99 % of calls (a point inside a layer's rectangle), a few
// more in the wedges and the tail.
double normal(std::uint64_t seed, std::uint64_t& counter) {
  static const Ziggurat z;
  for (;;) {
    const std::uint64_t bits = drawBits(seed, counter++);
    const double u = (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-52 - 1.0;  // in (−1, 1)
    const auto i = static_cast<std::size_t>(bits & 0x7f);                        // the layer (bits u does not use)
    if (std::abs(u) < z.inner[i]) return u * z.x[i];
    if (i == 0) {  // the tail beyond R (Marsaglia 1964)
      double a = 0.0;
      double b = 0.0;
      do {
        a = std::log(uniform01(seed, counter++)) / Ziggurat::R;
        b = std::log(uniform01(seed, counter++));
      } while (-2.0 * b < a * a);
      return u < 0.0 ? a - Ziggurat::R : Ziggurat::R - a;
    }
    const double v = u * z.x[i];
    const double f0 = std::exp(-0.5 * (z.x[i] * z.x[i] - v * v));
    const double f1 = std::exp(-0.5 * (z.x[i + 1] * z.x[i + 1] - v * v));
    if (f1 + uniform01(seed, counter++) * (f0 - f1) < 1.0) return v;
  }
}

void checkNumber(double x, const std::string& where, const char* field, bool positive) {
  if (!std::isfinite(x) || x < 0.0 || (positive && x == 0.0)) {
    throw InvalidArgument(where + ": " + field + " must be a finite number " + (positive ? "> 0" : "≥ 0") + " (got " +
                          std::to_string(x) + ")");
  }
}

}  // namespace

SensorRecord& WorldImpl::sensor(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= sensors.size() || !sensors[slot].alive || sensors[slot].generation != gen) {
    throw InvalidHandle(
        "invalid Sensor handle: the sensor was removed, what it is attached to was removed, the world was cleared, "
        "or the handle is stale");
  }
  return sensors[slot];
}

std::optional<FrameRef> WorldImpl::frameByName(const std::string& name) const {
  if (name == "world") return FrameRef{};
  const auto it = worldNames.find(name);
  if (it != worldNames.end()) {
    if (it->second.kind == FrameKind::None) return std::nullopt;  // a multibody
    return it->second;
  }
  const auto slash = name.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const auto mb = worldNames.find(name.substr(0, slash));
  if (mb == worldNames.end() || mb->second.kind != FrameKind::None) return std::nullopt;
  const auto& M = multibodies[mb->second.index];
  const auto l = M.linkByName.find(name.substr(slash + 1));
  if (l == M.linkByName.end()) return std::nullopt;
  return FrameRef{FrameKind::Link, l->second, links[l->second].generation};
}

int WorldImpl::numSensorValues(const SensorSpec& spec, int jointNq, int jointNv) {
  switch (spec.type) {
    case SensorType::Imu:
    case SensorType::ForceTorque:
      return 6;
    case SensorType::Contact:
      return 2;
    case SensorType::JointEncoder:
      return jointNq + jointNv;
    case SensorType::Rangefinder:
      return 1;
  }
  return 0;
}

void WorldImpl::checkSensor(const SensorSpec& s, SensorRecord& r, const std::string& where) const {
  if (static_cast<int>(s.type) > static_cast<int>(SensorType::Rangefinder)) {
    throw InvalidArgument(where + ": unknown sensor type " + std::to_string(static_cast<int>(s.type)));
  }
  checkNumber(s.rate, where, "rate", false);
  checkNumber(s.noiseStddev, where, "noiseStddev", false);
  if (!std::isfinite(s.noiseBias)) throw InvalidArgument(where + ": noiseBias must be finite");
  checkIsometry(s.pose, where, "pose");
  if (s.type == SensorType::Rangefinder) {
    checkNumber(s.minRange, where, "minRange", false);
    checkNumber(s.maxRange, where, "maxRange", true);
    if (s.minRange > s.maxRange) {
      throw InvalidArgument(where + ": minRange (" + std::to_string(s.minRange) + ") is larger than maxRange (" +
                            std::to_string(s.maxRange) + ")");
    }
  }
  if (sensorUsesFrame(s.type)) {
    const auto f = frameByName(s.frame);
    if (!f)
      throw TopologyError(where + ": no frame '" + s.frame + "' (\"world\", a body, a frame or \"multibody/link\")");
    if (s.type == SensorType::Contact && f->kind != FrameKind::Link && f->kind != FrameKind::RigidBody) {
      throw TopologyError(where + ": a contact sensor needs a link or a rigid body, not '" + s.frame + "'");
    }
    r.frame = *f;
  } else {
    r.link = jointSlot(s.joint, where);
    r.linkGeneration = links[r.link].generation;
  }
}

int WorldImpl::sensorJointBody(const SensorRecord& r) const {
  if (sensorUsesFrame(r.spec.type) || r.link >= links.size() || !links[r.link].alive) return -1;
  return r.link < linkBody.size() ? linkBody[r.link] : -1;
}

void WorldImpl::removeOrphanedSensors() {
  for (auto& s : sensors) {
    if (!s.alive) continue;
    const bool alive = sensorUsesFrame(s.spec.type) ? frameAlive(s.frame)
                                                    : s.link < links.size() && links[s.link].alive &&
                                                          links[s.link].generation == s.linkGeneration;
    if (alive) continue;
    s.alive = false;
    sensorNames.erase(s.spec.name);
  }
}

void WorldImpl::resetSensors() {
  for (auto& s : sensors) {
    s.noiseCounter = 0;
    s.nextUpdate = 0.0;
    s.readingTime = std::numeric_limits<double>::quiet_NaN();
    s.values.setZero();
  }
  stepRecord.valid = false;
}

Vector6d WorldImpl::subtreeJointForce(int body) const {
  // Newton–Euler of the subtree of `body` (contiguous in preorder): what
  // its bodies' motion needs, less the gravity, contact, closure and
  // applied wrenches on them, summed in world coordinates. The same sum as
  // recursive Newton–Euler's backward pass, over the subtree only. Bodies
  // welded to their parent move with it: their inertia is in the parent's
  // group inertia, and only the wrenches applied to them are added.
  const StepRecord& r = stepRecord;
  const auto owner = static_cast<std::size_t>(model.body_owner[static_cast<std::size_t>(body)]);
  const int end = model.owner_bodyadr[owner] + model.owner_nbody[owner];
  Vector6d fW = Vector6d::Zero();
  for (int i = body; i < end; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (i > body && model.body_parent[k] < body) break;
    if (i > body && model.jnt_type[k] == JointType::Weld) {
      if (!r.fAll[k].isZero(0.0)) fW -= r.X_WB[k].actForce(r.fAll[k]);
      continue;
    }
    Vector6d a = r.A[k];
    a.tail<3>() -= r.X_WB[k].R.transpose() * model.gravity;
    const Matrix6d& I = model.body_groupInertia[k];
    const Vector6d h = I * r.V[k];
    Vector6d f = I * a - r.fAll[k];
    f.head<3>() += r.V[k].head<3>().cross(h.head<3>()) + r.V[k].tail<3>().cross(h.tail<3>());
    f.tail<3>() += r.V[k].head<3>().cross(h.tail<3>());
    fW += r.X_WB[k].actForce(f);
  }
  return r.X_WB[static_cast<std::size_t>(body)].invActForce(fW);
}

bool WorldImpl::sensorDue(const SensorRecord& s) const {
  return s.spec.rate <= 0.0 || stepRecord.time + 1e-9 * options.timeStep >= s.nextUpdate;
}

void WorldImpl::updateSensors() {
  const StepRecord& r = stepRecord;
  if (!r.valid) return;
  const double t = r.time;
  const double h = options.timeStep;
  bool due = false;
  bool needMotion = false;
  for (SensorRecord& s : sensors) {
    if (!s.alive || !sensorDue(s)) continue;
    due = true;
    needMotion = needMotion || s.spec.type == SensorType::Imu || s.spec.type == SensorType::ForceTorque;
  }
  if (!due) return;
  evaluateStep(needMotion, false);  // done in the step already, unless the integrator is RK4
  for (SensorRecord& s : sensors) {
    if (!s.alive || !sensorDue(s)) continue;
    const SensorSpec& spec = s.spec;
    if (spec.rate > 0.0) {
      const double period = 1.0 / spec.rate;
      while (s.nextUpdate <= t + 1e-9 * h) s.nextUpdate += period;
    }
    VectorXd& out = s.values;
    switch (spec.type) {
      case SensorType::Imu: {
        const Anchor a = anchorOf(s.frame);
        const SE3 X_BS = a.X_BE * SE3::fromIsometry(spec.pose);
        Vector3d accel = -model.gravity;  // body coordinates below; world here
        Vector3d omega = Vector3d::Zero();
        if (a.body >= 0) {
          const auto b = static_cast<std::size_t>(a.body);
          const Vector3d w = r.V[b].head<3>();
          const Vector3d vO = r.V[b].tail<3>();
          const Vector3d wd = r.A[b].head<3>();
          const Vector3d vdO = r.A[b].tail<3>();
          const Vector3d p = X_BS.p;
          // R_WBᵀ p̈ of the sensor point: v̇_O + ω × v_O + ω̇ × p + ω × (ω × p).
          accel = vdO + w.cross(vO) + wd.cross(p) + w.cross(w.cross(p)) - r.X_WB[b].R.transpose() * model.gravity;
          omega = w;
        }
        out.head<3>() = X_BS.R.transpose() * accel;
        out.tail<3>() = X_BS.R.transpose() * omega;
        break;
      }
      case SensorType::ForceTorque: {
        const int body = sensorJointBody(s);
        out.setZero();
        if (body < 0) break;
        const auto b = static_cast<std::size_t>(body);
        const SE3 X_BS = model.jnt_childOffset[b] * SE3::fromIsometry(spec.pose);
        Vector6d f = X_BS.invActForce(subtreeJointForce(body));
        if (spec.childOnParent) f = -f;
        out.head<3>() = f.tail<3>();
        out.tail<3>() = f.head<3>();
        break;
      }
      case SensorType::Contact: {
        const Anchor a = anchorOf(s.frame);
        double force = 0.0;
        bool touching = false;
        for (std::size_t c = 0; c < contacts.size() && c < constraints.points.size(); ++c) {
          const ContactPoint& p = constraints.points[c];
          if (model.shape_body[static_cast<std::size_t>(p.shapeA)] != a.body &&
              model.shape_body[static_cast<std::size_t>(p.shapeB)] != a.body) {
            continue;
          }
          force += contacts[c].normalImpulse / h;
          touching = touching || contacts[c].normalImpulse > 0.0 || contacts[c].depth >= 0.0;
        }
        out[0] = touching ? 1.0 : 0.0;
        out[1] = force;
        break;
      }
      case SensorType::JointEncoder: {
        const int body = sensorJointBody(s);
        out.setZero();
        if (body < 0) break;
        const auto b = static_cast<std::size_t>(body);
        const int nq = model.jnt_nq[b];
        const int nv = model.jnt_nv[b];
        out.head(nq) = data.q0.segment(model.jnt_qadr[b], nq);
        out.segment(nq, nv) = data.v0.segment(model.jnt_vadr[b], nv);
        break;
      }
      case SensorType::Rangefinder: {
        const Anchor a = anchorOf(s.frame);
        SE3 X_WS = a.X_BE * SE3::fromIsometry(spec.pose);
        if (a.body >= 0) X_WS = r.X_WB[static_cast<std::size_t>(a.body)] * X_WS;
        rangeHits.clear();
        const Vector3d dir = X_WS.R.col(0);
        raycastShapes(r.X_WB, X_WS.p + spec.minRange * dir, dir, spec.maxRange - spec.minRange, a.body, false,
                      rangeHits);
        out[0] = rangeHits.empty() ? spec.maxRange : spec.minRange + rangeHits.front().distance;
        break;
      }
    }
    if (spec.noiseBias != 0.0) out.array() += spec.noiseBias;
    if (spec.noiseStddev > 0.0) {
      for (Eigen::Index k = 0; k < out.size(); ++k) out[k] += spec.noiseStddev * normal(spec.seed, s.noiseCounter);
    }
    s.readingTime = t;
  }
}

}  // namespace detail

// ---- the facade --------------------------------------------------------------

namespace {

std::string sensorWhere(const std::string& name) {
  return "sensor '" + name + "'";
}

}  // namespace

Sensor World::addSensor(const SensorSpec& spec) {
  auto& w = *m_impl;
  w.requireDesignMode("add a sensor");
  const std::string where = sensorWhere(spec.name);
  detail::SensorRecord rec;
  w.checkSensor(spec, rec, where);
  if (!spec.name.empty()) {
    if (w.sensorNames.count(spec.name) != 0) throw TopologyError(where + ": the name is taken by another sensor");
  }
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.spec = spec;
  rec.spec.name = spec.name.empty() ? detail::WorldImpl::uniqueName(w.sensorNames, "sensor") : spec.name;
  int nq = 0;
  int nv = 0;
  if (spec.type == SensorType::JointEncoder) {
    const JointSpec& js = w.links[rec.link].joint;
    nq = articula::numPositions(js.type);
    nv = articula::numDofs(js.type);
  }
  rec.values = VectorXd::Zero(detail::WorldImpl::numSensorValues(spec, nq, nv));
  rec.readingTime = std::numeric_limits<double>::quiet_NaN();
  const auto slot = static_cast<std::uint32_t>(w.sensors.size());
  w.sensorNames[rec.spec.name] = slot;
  w.sensors.push_back(std::move(rec));
  return Sensor(this, slot, w.sensors[slot].generation);
}

std::optional<Sensor> World::getSensor(const std::string& name) const {
  const auto it = m_impl->sensorNames.find(name);
  if (it == m_impl->sensorNames.end()) return std::nullopt;
  return Sensor(const_cast<World*>(this), it->second, m_impl->sensors[it->second].generation);
}

std::size_t World::numSensors() const {
  return m_impl->sensorNames.size();
}

std::vector<Sensor> World::getSensors() const {
  std::vector<Sensor> out;
  const auto& w = *m_impl;
  for (std::uint32_t i = 0; i < w.sensors.size(); ++i) {
    if (w.sensors[i].alive) out.push_back(Sensor(const_cast<World*>(this), i, w.sensors[i].generation));
  }
  return out;
}

void World::remove(const Sensor& sensor) {
  auto& w = *m_impl;
  if (sensor.m_world != this) throw TopologyError("the sensor belongs to another World");
  auto& rec = w.sensor(sensor.m_index, sensor.m_generation);
  w.requireDesignMode("remove a sensor");
  rec.alive = false;
  w.sensorNames.erase(rec.spec.name);
}

namespace {

detail::SensorRecord& recordOf(World* world, std::uint32_t index, std::uint32_t gen) {
  if (world == nullptr) throw InvalidHandle("invalid Sensor handle (default-constructed)");
  return detail::implOf(world).sensor(index, gen);
}

}  // namespace

bool Sensor::isValid() const {
  if (m_world == nullptr) return false;
  const auto& w = detail::implOf(m_world);
  return m_index < w.sensors.size() && w.sensors[m_index].alive && w.sensors[m_index].generation == m_generation;
}

std::string Sensor::name() const {
  return recordOf(m_world, m_index, m_generation).spec.name;
}

SensorType Sensor::type() const {
  return recordOf(m_world, m_index, m_generation).spec.type;
}

SensorSpec Sensor::getSpec() const {
  const auto& r = recordOf(m_world, m_index, m_generation);
  auto& w = detail::implOf(m_world);
  SensorSpec s = r.spec;
  if (detail::sensorUsesFrame(s.type)) {
    s.frame = w.frameName(r.frame);
    s.joint.clear();
  } else {
    s.joint = w.multibodies[w.links[r.link].multibody].name + "/" + w.links[r.link].joint.name;
    s.frame.clear();
  }
  return s;
}

int Sensor::numValues() const {
  return static_cast<int>(recordOf(m_world, m_index, m_generation).values.size());
}

std::vector<std::string> Sensor::valueNames() const {
  const auto& r = recordOf(m_world, m_index, m_generation);
  switch (r.spec.type) {
    case SensorType::Imu:
      return {"ax", "ay", "az", "wx", "wy", "wz"};
    case SensorType::ForceTorque:
      return {"fx", "fy", "fz", "tx", "ty", "tz"};
    case SensorType::Contact:
      return {"touching", "normal_force"};
    case SensorType::JointEncoder: {
      const JointSpec& js = detail::implOf(m_world).links[r.link].joint;
      std::vector<std::string> names;
      for (int k = 0; k < numPositions(js.type); ++k) names.push_back("q" + std::to_string(k));
      for (int k = 0; k < numDofs(js.type); ++k) names.push_back("v" + std::to_string(k));
      return names;
    }
    case SensorType::Rangefinder:
      return {"distance"};
  }
  return {};
}

SensorReading Sensor::getReading() const {
  const auto& r = recordOf(m_world, m_index, m_generation);
  SensorReading out;
  out.time = r.readingTime;
  out.valid = !std::isnan(r.readingTime);
  out.values = r.values;
  return out;
}

double Sensor::getReading(Eigen::Ref<VectorXd> values) const {
  const auto& r = recordOf(m_world, m_index, m_generation);
  if (values.size() != r.values.size()) {
    throw InvalidArgument("Sensor::getReading ('" + r.spec.name + "'): the output holds " +
                          std::to_string(values.size()) + " values, the sensor gives " +
                          std::to_string(r.values.size()));
  }
  values = r.values;
  return r.readingTime;
}

}  // namespace articula

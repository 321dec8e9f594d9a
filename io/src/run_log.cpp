// Run-log columns (LogColumns), the group list, SHA-256 and the options
// text of a log.
#include <articula/io/import.hpp>
#include <articula/io/run_log.hpp>
#include <articula/io/state_columns.hpp>

#include "scene_common.hpp"

#include <articula/error.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace articula::io {

LogGroups parseLogGroups(const std::string& list) {
  LogGroups g;
  g.residuals = g.controls = g.sensors = false;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    if (name == "residuals") {
      g.residuals = true;
    } else if (name == "controls") {
      g.controls = true;
    } else if (name == "sensors") {
      g.sensors = true;
    } else if (name == "reactions") {
      g.reactions = true;
    } else if (name == "joint-forces") {
      g.jointForces = true;
    } else if (name == "limits") {
      g.limits = true;
    } else if (name == "friction") {
      g.friction = true;
    } else if (name == "contacts") {
      g.contacts = true;
    } else if (name == "energies") {
      g.energies = true;
    } else if (name == "diagnostics") {
      g.diagnostics = true;
    } else if (name == "all") {
      g = LogGroups{true, true, true, true, true, true, true, true, true, true};
    } else {
      throw InvalidArgument("unknown group '" + name + "' (" + logGroupNames() + ")");
    }
    start = end + 1;
  }
  return g;
}

const char* logGroupNames() {
  return "residuals, controls, sensors, reactions, joint-forces, limits, friction, contacts, energies, "
         "diagnostics or all, comma-separated";
}

void LogColumns::add(const std::string& dataset, std::vector<std::string> names) {
  if (names.empty()) return;
  LogBlock block;
  block.dataset = dataset;
  block.offset = size();
  block.size = static_cast<int>(names.size());
  for (auto& n : names) m_names.push_back(std::move(n));
  m_blocks.push_back(std::move(block));
}

LogColumns::LogColumns(const World& world, const LogGroups& groups) : m_groups(groups) {
  const StateColumns state(world);
  m_nq = static_cast<int>(world.numPositions());
  m_nv = static_cast<int>(world.numDofs());
  m_q.resize(m_nq);
  m_v.resize(m_nv);
  add("t", {"t"});
  auto prefixed = [](const char* prefix, const std::vector<std::string>& names) {
    std::vector<std::string> out;
    out.reserve(names.size());
    for (const auto& n : names) out.push_back(prefix + n);
    return out;
  };
  add("q", prefixed("q:", state.positionNames()));
  add("v", prefixed("v:", state.velocityNames()));
  if (groups.residuals) {
    m_closures = world.getLoopClosures();
    std::vector<std::string> names;
    for (const auto& c : m_closures) names.push_back("residual:" + c.name());
    add("residual", std::move(names));
  }
  if (groups.controls) {
    m_actuators = world.getActuators();
    std::vector<std::string> ctrl, force;
    for (const auto& a : m_actuators) {
      ctrl.push_back("ctrl:" + a.name());
      force.push_back("force:" + a.name());
    }
    add("ctrl", std::move(ctrl));
    add("force", std::move(force));
  }
  if (groups.sensors) {
    m_sensors = world.getSensors();
    std::vector<std::string> names;
    int largest = 0;
    for (const Sensor& s : m_sensors) {
      const std::vector<std::string> values = s.valueNames();
      for (const auto& n : values) names.push_back("sensor:" + s.name() + ":" + n);
      m_sensorSizes.push_back(static_cast<int>(values.size()));
      largest = std::max(largest, static_cast<int>(values.size()));
    }
    m_reading.resize(largest);
    add("sensor", std::move(names));
  }
  static const std::array<const char*, 6> kWrench = {"fx", "fy", "fz", "tx", "ty", "tz"};
  if (groups.reactions) {
    std::vector<std::string> names;
    for (const Multibody& mb : world.getMultibodies()) {
      for (const Joint& j : mb.getJoints()) {
        m_joints.push_back(j);
        for (const char* c : kWrench) names.push_back("reaction:" + mb.name() + "/" + j.name() + ":" + c);
      }
    }
    add("reaction", std::move(names));
  }
  // Per-DoF groups: the joints' DoFs under their state column names.
  std::vector<std::string> dofNames;
  if (groups.jointForces || groups.limits || groups.friction) {
    for (const StateOwner& owner : state.owners()) {
      if (owner.multibody.empty() || owner.numDofs == 0) continue;
      m_dofJoints.push_back(*world.getMultibody(owner.multibody)->getJoint(owner.joint));
      for (int k = 0; k < owner.numDofs; ++k) {
        dofNames.push_back(state.velocityNames()[static_cast<std::size_t>(owner.velocityOffset + k)]);
      }
    }
  }
  for (const auto& [on, dataset] : {std::pair{groups.jointForces, "jointforce"}, std::pair{groups.limits, "limit"},
                                    std::pair{groups.friction, "friction"}}) {
    if (on) add(dataset, prefixed((std::string(dataset) + ":").c_str(), dofNames));
  }
  if (groups.contacts) {
    for (const RigidBody& b : world.getRigidBodies()) {
      if (!world.getCollisionShapes(b).empty()) m_contactBodies.push_back(b);
    }
    for (const Multibody& mb : world.getMultibodies()) {
      for (const Link& l : mb.getLinks()) {
        if (!world.getCollisionShapes(l).empty()) m_contactBodies.push_back(l);
      }
    }
    std::vector<std::string> names;
    for (const Frame& f : m_contactBodies) {
      for (const char* c : kWrench) names.push_back("contact:" + f.name() + ":" + c);
    }
    add("contact", std::move(names));
  }
  if (groups.energies) add("energy", {"energy:kinetic", "energy:potential", "energy:total"});
  if (groups.diagnostics) {
    add("diagnostics", {"diagnostics:contacts", "diagnostics:rows", "diagnostics:iterations", "diagnostics:residual",
                        "diagnostics:converged"});
  }
}

int LogColumns::find(const std::string& name) const {
  const auto it = std::find(m_names.begin(), m_names.end(), name);
  return it == m_names.end() ? -1 : static_cast<int>(it - m_names.begin());
}

bool LogColumns::allocationFree() const {
  return !m_groups.reactions && !m_groups.jointForces && !m_groups.limits && !m_groups.friction && !m_groups.contacts;
}

void LogColumns::fill(const World& world, double* row) {
  row[0] = world.getTime();
  world.getPositions(m_q);
  world.getVelocities(m_v);
  std::copy(m_q.data(), m_q.data() + m_nq, row + 1);
  std::copy(m_v.data(), m_v.data() + m_nv, row + 1 + m_nq);
  fillRest(world, row);
}

void LogColumns::fill(const World& world, double t, const VectorXd& q, const VectorXd& v, double* row) {
  if (q.size() != m_nq || v.size() != m_nv) throw InvalidArgument("LogColumns::fill: q or v has the wrong size");
  row[0] = t;
  std::copy(q.data(), q.data() + m_nq, row + 1);
  std::copy(v.data(), v.data() + m_nv, row + 1 + m_nq);
  fillRest(world, row);
}

void LogColumns::fillRest(const World& world, double* row) {
  double* out = row + 1 + m_nq + m_nv;
  for (const auto& c : m_closures) *out++ = c.computeResidualNorm();
  for (const auto& a : m_actuators) *out++ = a.getControl();
  for (const auto& a : m_actuators) *out++ = a.getForce();
  for (std::size_t i = 0; i < m_sensors.size(); ++i) {
    const int n = m_sensorSizes[i];
    m_sensors[i].getReading(m_reading.head(n));
    std::copy(m_reading.data(), m_reading.data() + n, out);
    out += n;
  }
  // Wrench columns: [f; t] (the engine's wrenches are [torque; force]).
  auto wrench = [&](const Vector6d& w) {
    for (int i : {3, 4, 5, 0, 1, 2}) *out++ = w[i];
  };
  for (const Joint& j : m_joints) wrench(j.getReaction().wrench);
  if (!m_dofJoints.empty()) {
    std::vector<JointReaction> reactions;
    reactions.reserve(m_dofJoints.size());
    for (const Joint& j : m_dofJoints) reactions.push_back(j.getReaction());
    for (const auto& [on, member] :
         {std::pair{m_groups.jointForces, &JointReaction::total}, std::pair{m_groups.limits, &JointReaction::limit},
          std::pair{m_groups.friction, &JointReaction::friction}}) {
      if (!on) continue;
      for (const JointReaction& r : reactions) {
        const VectorXd& values = r.*member;
        out = std::copy(values.data(), values.data() + values.size(), out);
      }
    }
  }
  for (const Frame& f : m_contactBodies) wrench(world.getContactWrench(f));
  if (m_groups.energies) {
    const double kinetic = world.computeKineticEnergy();
    const double potential = world.computePotentialEnergy();
    *out++ = kinetic;
    *out++ = potential;
    *out++ = kinetic + potential;
  }
  if (m_groups.diagnostics) {
    const StepDiagnostics& d = world.getStepDiagnostics();
    *out++ = d.numContacts;
    *out++ = d.numRows;
    *out++ = d.iterations;
    *out++ = d.residual;
    *out++ = d.converged ? 1.0 : 0.0;
  }
}

// --- SHA-256 (FIPS 180-4) ---------------------------------------------------

namespace {

constexpr std::array<std::uint32_t, 64> kSha256K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

void sha256Block(std::array<std::uint32_t, 8>& h, const unsigned char* p) {
  std::array<std::uint32_t, 64> w{};
  for (std::size_t i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) | (std::uint32_t{p[4 * i + 2]} << 8) |
           std::uint32_t{p[4 * i + 3]};
  }
  for (std::size_t i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kSha256K[i] + w[i];
    const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

}  // namespace

std::string csvNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, r.ptr);
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string sha256Hex(std::string_view bytes) {
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) sha256Block(h, data + i);
  // The tail, 0x80, zeros, and the length in bits (big-endian).
  std::array<unsigned char, 128> tail{};
  const std::size_t rest = n - i;
  std::copy(data + i, data + n, tail.begin());
  tail[rest] = 0x80;
  const std::size_t blocks = rest + 9 <= 64 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
  for (std::size_t b = 0; b < 8; ++b) tail[blocks * 64 - 1 - b] = static_cast<unsigned char>(bits >> (8 * b));
  for (std::size_t b = 0; b < blocks; ++b) sha256Block(h, tail.data() + 64 * b);
  std::string hex;
  char digits[9];
  for (const std::uint32_t word : h) {
    std::snprintf(digits, sizeof digits, "%08x", word);
    hex += digits;
  }
  return hex;
}

std::string optionsJson(const WorldOptions& options) {
  const std::string gravity = "[" + formatNumber(options.gravity.x()) + ", " + formatNumber(options.gravity.y()) +
                              ", " + formatNumber(options.gravity.z()) + "]";
  const std::string dt = formatNumber(options.timeStep);
  return std::string("{\"time_step\": ") + dt + ", \"integrator\": \"" +
         (options.integrator == Integrator::RungeKutta4 ? "rk4" : "semi-implicit-euler") +
         "\", \"solver\": " + jsonString(options.solver.method) + ", \"gravity\": " + gravity + "}";
}

}  // namespace articula::io

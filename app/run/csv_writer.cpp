#include "csv_writer.hpp"

#include "cli.hpp"

#include <algorithm>
#include <utility>

namespace articula::run {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

CsvLog parseCsvLog(const std::string& list) {
  CsvLog log;
  log.residuals = log.controls = log.sensors = false;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string g = list.substr(start, end - start);
    if (g == "residuals") {
      log.residuals = true;
    } else if (g == "controls") {
      log.controls = true;
    } else if (g == "sensors") {
      log.sensors = true;
    } else if (g == "reactions") {
      log.reactions = true;
    } else if (g == "joint-forces") {
      log.jointForces = true;
    } else if (g == "limits") {
      log.limits = true;
    } else if (g == "friction") {
      log.friction = true;
    } else if (g == "contacts") {
      log.contacts = true;
    } else if (g == "all") {
      log = CsvLog{true, true, true, true, true, true, true, true};
    } else {
      throw CliError("--log: unknown group '" + g + "' (" + csvLogGroups() + ")", true);
    }
    start = end + 1;
  }
  return log;
}

const char* csvLogGroups() {
  return "residuals, controls, sensors, reactions, joint-forces, limits, friction, contacts or all, comma-separated";
}

CsvWriter::CsvWriter(const std::string& path, const World& world, const StateColumns& columns,
                     const std::vector<LoopClosure>& closures, const CsvLog& log)
    : m_closures(log.residuals ? closures : std::vector<LoopClosure>{}), m_log(log) {
  if (path.empty()) return;
  try {
    m_out = std::make_unique<AtomicFile>(path);
    m_enabled = true;
  } catch (const FileAccessError& e) {
    throw CliError(std::string("--csv: ") + e.what());
  }
  std::string header = "t";
  for (const auto& n : columns.positionNames()) header += "," + csvField("q:" + n);
  for (const auto& n : columns.velocityNames()) header += "," + csvField("v:" + n);
  for (const auto& c : m_closures) header += "," + csvField("residual:" + c.name());
  m_world = &world;
  if (log.controls) {
    const ControlSpace controls = world.getControlSpace();
    for (const auto& n : controls.names) header += "," + csvField("ctrl:" + n);
    for (const auto& n : controls.names) header += "," + csvField("force:" + n);
  }
  if (log.sensors) {
    m_sensors = world.getSensors();
    for (const Sensor& x : m_sensors) {
      for (const std::string& n : x.valueNames()) header += "," + csvField("sensor:" + x.name() + ":" + n);
    }
  }
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Joint& j : mb.getJoints()) {
      if (log.reactions) m_joints.push_back(j);
    }
  }
  static const char* const kWrench[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
  for (const Joint& j : m_joints) {
    for (const char* c : kWrench)
      header += "," + csvField("reaction:" + j.getMultibody().name() + "/" + j.name() + ":" + c);
  }
  // Per-DoF groups: the joints' DoFs under their state column names.
  std::vector<std::string> dofNames;
  for (const StateOwner& owner : columns.owners()) {
    if (owner.multibody.empty() || owner.numDofs == 0) continue;
    m_dofJoints.push_back(*world.getMultibody(owner.multibody)->getJoint(owner.joint));
    for (int k = 0; k < owner.numDofs; ++k) {
      dofNames.push_back(columns.velocityNames()[static_cast<std::size_t>(owner.velocityOffset + k)]);
    }
  }
  for (const auto& [on, prefix] : {std::pair{log.jointForces, "jointforce:"}, std::pair{log.limits, "limit:"},
                                   std::pair{log.friction, "friction:"}}) {
    if (!on) continue;
    for (const std::string& n : dofNames) header += "," + csvField(prefix + n);
  }
  if (!log.jointForces && !log.limits && !log.friction) m_dofJoints.clear();
  if (log.contacts) {
    for (const RigidBody& b : world.getRigidBodies()) {
      if (!world.getCollisionShapes(b).empty()) m_contactBodies.push_back(b);
    }
    for (const Multibody& mb : world.getMultibodies()) {
      for (const Link& l : mb.getLinks()) {
        if (!world.getCollisionShapes(l).empty()) m_contactBodies.push_back(l);
      }
    }
    for (const Frame& f : m_contactBodies) {
      for (const char* c : kWrench) header += "," + csvField("contact:" + f.name() + ":" + c);
    }
  }
  header += '\n';
  write(header);
}

void CsvWriter::write(const std::string& text) {
  try {
    m_out->write(text);
  } catch (const FileAccessError& e) {
    m_out.reset();
    throw CliError(std::string("--csv: ") + e.what());
  }
}

void CsvWriter::row(double t, const VectorXd& q, const VectorXd& v) {
  if (!m_out) return;
  m_line = formatNumber(t);
  for (Eigen::Index i = 0; i < q.size(); ++i) (m_line += ',') += formatNumber(q[i]);
  for (Eigen::Index i = 0; i < v.size(); ++i) (m_line += ',') += formatNumber(v[i]);
  for (const auto& c : m_closures) (m_line += ',') += formatNumber(c.computeResidual().norm);
  if (m_log.controls && m_world->numActuators() > 0) {
    const VectorXd u = m_world->getControls();
    const VectorXd f = m_world->getActuatorForces();
    for (Eigen::Index i = 0; i < u.size(); ++i) (m_line += ',') += formatNumber(u[i]);
    for (Eigen::Index i = 0; i < f.size(); ++i) (m_line += ',') += formatNumber(f[i]);
  }
  for (const Sensor& x : m_sensors) {
    m_reading.resize(x.numValues());
    x.getReading(m_reading);
    for (Eigen::Index i = 0; i < m_reading.size(); ++i) (m_line += ',') += formatNumber(m_reading[i]);
  }
  // Wrench columns: [f; t] (the engine's wrenches are [torque; force]).
  auto wrench = [&](const Vector6d& w) {
    for (int i : {3, 4, 5, 0, 1, 2}) (m_line += ',') += formatNumber(w[i]);
  };
  for (const Joint& j : m_joints) wrench(j.getReaction().wrench);
  if (!m_dofJoints.empty()) {
    std::vector<JointReaction> reactions;
    for (const Joint& j : m_dofJoints) reactions.push_back(j.getReaction());
    for (const auto& [on, member] :
         {std::pair{m_log.jointForces, &JointReaction::total}, std::pair{m_log.limits, &JointReaction::limit},
          std::pair{m_log.friction, &JointReaction::friction}}) {
      if (!on) continue;
      for (const JointReaction& r : reactions) {
        const VectorXd& values = r.*member;
        for (Eigen::Index i = 0; i < values.size(); ++i) (m_line += ',') += formatNumber(values[i]);
      }
    }
  }
  for (const Frame& f : m_contactBodies) wrench(m_world->getContactWrench(f));
  m_line += '\n';
  write(m_line);
}

void CsvWriter::close(const std::string& path) {
  if (!m_out) return;
  try {
    m_out->commit();
  } catch (const FileAccessError& e) {
    m_out.reset();
    throw CliError(std::string("--csv: ") + e.what());
  }
  m_out.reset();
  (void)path;
}

}  // namespace articula::run

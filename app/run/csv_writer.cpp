#include "csv_writer.hpp"

#include "cli.hpp"

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

CsvWriter::CsvWriter(const std::string& path, const World& world, const StateColumns& columns,
                     const std::vector<LoopClosure>& closures)
    : m_closures(closures) {
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
  for (const auto& c : closures) header += "," + csvField("residual:" + c.name());
  m_world = &world;
  const ControlSpace controls = world.getControlSpace();
  for (const auto& n : controls.names) header += "," + csvField("ctrl:" + n);
  for (const auto& n : controls.names) header += "," + csvField("force:" + n);
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
  if (m_world->numActuators() > 0) {
    const VectorXd u = m_world->getControls();
    const VectorXd f = m_world->getActuatorForces();
    for (Eigen::Index i = 0; i < u.size(); ++i) (m_line += ',') += formatNumber(u[i]);
    for (Eigen::Index i = 0; i < f.size(); ++i) (m_line += ',') += formatNumber(f[i]);
  }
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

#include "csv_writer.hpp"

namespace articula::run {

std::string csvField(const std::string& s) {
  return io::csvField(s);
}

io::LogGroups parseCsvLog(const std::string& list) {
  try {
    return io::parseLogGroups(list);
  } catch (const InvalidArgument& e) {
    throw CliError(std::string("--log: ") + e.what(), true);
  }
}

CsvWriter::CsvWriter(const std::string& path, const World& world, const io::LogGroups& groups) {
  if (path.empty()) return;
  try {
    m_out = std::make_unique<AtomicFile>(path);
    m_enabled = true;
  } catch (const FileAccessError& e) {
    throw CliError(std::string("--csv: ") + e.what());
  }
  m_world = &world;
  m_columns.emplace(world, groups);
  m_row.resize(static_cast<std::size_t>(m_columns->size()));
  std::string header;
  for (const std::string& n : m_columns->names()) (header += header.empty() ? "" : ",") += csvField(n);
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
  m_columns->fill(*m_world, t, q, v, m_row.data());
  m_line.clear();
  for (std::size_t i = 0; i < m_row.size(); ++i) {
    if (i > 0) m_line += ',';
    m_line += formatNumber(m_row[i]);
  }
  m_line += '\n';
  write(m_line);
}

void CsvWriter::close() {
  if (!m_out) return;
  try {
    m_out->commit();
  } catch (const FileAccessError& e) {
    m_out.reset();
    throw CliError(std::string("--csv: ") + e.what());
  }
  m_out.reset();
}

}  // namespace articula::run

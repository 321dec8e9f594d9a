#pragma once
// The trajectory CSV of articula-run (README.md, "CSV"): a header of the
// run log's column names (io::LogColumns), then one row per frame.

#include "cli.hpp"

#include <articula/io/run_log.hpp>
#include <articula/world.hpp>

#include <articula/file_io.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace articula::run {

/// `s` as a CSV field: quoted (with doubled quotes) when it holds a comma,
/// a quote or a line break.
std::string csvField(const std::string& s);

/// Parses --log's comma-separated groups (io::parseLogGroups).
/// @throws CliError for an unknown group.
io::LogGroups parseCsvLog(const std::string& list);

/// Writes the rows of a run log; does nothing for an empty path.
/// The rows go to a temporary file next to `path` that replaces it only at
/// close(): a failed or interrupted run leaves the previous file as it was,
/// and two runs writing one file never interleave (the last to finish wins).
class CsvWriter {
 public:
  /// Starts the file and writes the header. @throws CliError when it cannot be written.
  CsvWriter(const std::string& path, const World& world, const io::LogGroups& groups = {});
  bool enabled() const { return m_enabled; }
  /// One row: t, q, v given, the other columns from the world. @throws CliError when writing failed.
  void row(double t, const VectorXd& q, const VectorXd& v);
  /// Syncs the file and puts it in place. @throws CliError naming the file when writing failed.
  void close();

 private:
  void write(const std::string& text);

  std::unique_ptr<AtomicFile> m_out;  ///< until close()
  bool m_enabled = false;
  const World* m_world = nullptr;
  std::optional<io::LogColumns> m_columns;
  std::vector<double> m_row;
  std::string m_line;
};

}  // namespace articula::run

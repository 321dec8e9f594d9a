#pragma once
// The trajectory CSV of articula-run (README.md, "CSV"): a header of state
// column names, then one row per frame.

#include "state_columns.hpp"

#include <articula/loop_closure.hpp>
#include <articula/world.hpp>

#include <articula/file_io.hpp>

#include <memory>
#include <string>
#include <vector>

namespace articula::run {

/// `s` as a CSV field: quoted (with doubled quotes) when it holds a comma,
/// a quote or a line break.
std::string csvField(const std::string& s);

/// Writes t, q:..., v:..., residual:... rows; does nothing for an empty path.
/// The rows go to a temporary file next to `path` that replaces it only at
/// close(): a failed or interrupted run leaves the previous file as it was,
/// and two runs writing one file never interleave (the last to finish wins).
class CsvWriter {
 public:
  /// Starts the file and writes the header. @throws CliError when it cannot be written.
  /// Actuators add ctrl:NAME and force:NAME columns (the controls and forces of the last step).
  CsvWriter(const std::string& path, const World& world, const StateColumns& columns,
            const std::vector<LoopClosure>& closures);
  bool enabled() const { return m_enabled; }
  /// One row; the residuals are the closures' current ones. @throws CliError when writing failed.
  void row(double t, const VectorXd& q, const VectorXd& v);
  /// Syncs the file and puts it in place. @throws CliError naming `path` when writing failed.
  void close(const std::string& path);

 private:
  void write(const std::string& text);

  std::unique_ptr<AtomicFile> m_out;  ///< until close()
  bool m_enabled = false;
  std::vector<LoopClosure> m_closures;
  const World* m_world = nullptr;
  std::string m_line;
};

}  // namespace articula::run

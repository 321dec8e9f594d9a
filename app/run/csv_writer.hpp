#pragma once
// The trajectory CSV of articula-run (README.md, "CSV"): a header of state
// column names, then one row per frame.

#include "state_columns.hpp"

#include <articula/loop_closure.hpp>
#include <articula/world.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace articula::run {

/// `s` as a CSV field: quoted (with doubled quotes) when it holds a comma,
/// a quote or a line break.
std::string csvField(const std::string& s);

/// Writes t, q:..., v:..., residual:... rows; does nothing for an empty path.
class CsvWriter {
 public:
  /// Opens `path` and writes the header. @throws CliError when it cannot be written.
  CsvWriter(const std::string& path, const StateColumns& columns, const std::vector<LoopClosure>& closures);
  bool enabled() const { return m_out.is_open(); }
  /// One row; the residuals are the closures' current ones.
  void row(double t, const VectorXd& q, const VectorXd& v);
  /// @throws CliError naming `path` when writing failed.
  void close(const std::string& path);

 private:
  std::ofstream m_out;
  std::vector<LoopClosure> m_closures;
  std::string m_line;
};

}  // namespace articula::run

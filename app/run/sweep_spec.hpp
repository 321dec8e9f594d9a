#pragma once
// Sweep files (docs/sweeps.md): a base scene and its run options, the
// parameters to vary and how to sample them, and the metrics each run
// reports. Reading checks the file's shape; checkSweep checks its names
// against the scene, before any run.

#include "commands.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace articula::run {

struct SweepParameter {
  enum class Kind { List, Range, Uniform, LogUniform, Normal };
  std::string name;
  int line = 0;  ///< 1-based line in the sweep file
  Kind kind = Kind::List;
  std::vector<std::string> values;  ///< List: the values as written
  double a = 0.0, b = 0.0;          ///< Range: from, to; Uniform/LogUniform: low, high; Normal: mean, sd
  long count = 0;                   ///< Range: number of values
};

struct SweepMetric {
  enum class Kind { Final, Max, Min, Mean, EnergyDrift, MaxResidual, Diverged, Steps, Unconverged };
  std::string text;  ///< as written: "final:q:hinge", "energy-drift"
  Kind kind = Kind::Final;
  std::string column;  ///< Final/Max/Min/Mean: a run-log column name
  int line = 0;
};

struct SweepSpec {
  enum class Sampling { Grid, Zip, Random };
  std::filesystem::path file;             ///< absolute
  std::string sha256;                     ///< of the sweep file's bytes
  std::vector<std::string> runArguments;  ///< the `run` arguments every run shares (scene and options)
  RunOptions base;                        ///< those arguments parsed
  std::vector<SweepParameter> parameters;
  Sampling sampling = Sampling::Grid;
  long samples = 0;        ///< Random: number of runs
  std::uint64_t seed = 0;  ///< Random
  std::vector<SweepMetric> metrics;
};

/// Reads a sweep file. @throws CliError "FILE:LINE: problem".
SweepSpec readSweep(const std::filesystem::path& file);

/// The parameter values of every run (text, as `--param` takes them), in
/// run order: grid (the first parameter varies slowest), zip, or seeded
/// random samples (each value depends on the seed, the run and the
/// parameter only).
std::vector<std::vector<std::string>> expandRuns(const SweepSpec& spec);

/// Checks every parameter name and the metrics' columns against the scene
/// (loaded once; its import report goes to stderr unless `quiet`).
/// @throws CliError "FILE:LINE: problem".
void checkSweep(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, bool quiet);

/// Accumulates a run's metrics over the rows of its log.
class MetricAccumulator {
 public:
  explicit MetricAccumulator(const std::vector<SweepMetric>& metrics) : m_metrics(&metrics) {}
  void row(const io::LogColumns& columns, const double* row);
  /// The metric values (NaN where undefined).
  std::vector<double> finish(const RunOutcome& outcome) const;

 private:
  const std::vector<SweepMetric>* m_metrics;
  std::vector<int> m_columns;  ///< per metric, the column index (-1: none)
  int m_energy = -1;
  long m_rows = 0;
  double m_energy0 = 0.0, m_drift = 0.0;
  std::vector<double> m_final, m_max, m_min, m_sum;
};

}  // namespace articula::run

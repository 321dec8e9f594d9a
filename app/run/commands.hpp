#pragma once
// The subcommands of articula-run. Each returns the process exit code and
// throws CliError / io::ImportError for bad input (exit code 2).

#include "world_setup.hpp"

#include <articula/io/run_log.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace articula::run {

/// Everything `run` takes (parseRun), and what a sweep sets for each run.
struct RunOptions {
  WorldSetup setup;
  std::optional<double> duration;
  std::optional<long> steps;
  std::string csv;
  std::string hdf5;
  io::LogGroups log;
  bool logGiven = false;
  std::string record;
  std::optional<long> recordEvery;
  bool quiet = false;
  long every = 1;
  std::string commandLine;  ///< recorded in the HDF5 log
};

/// How a run ended (executeRun).
struct RunOutcome {
  int exitCode = 0;
  long steps = 0;     ///< good steps taken
  double time = 0.0;  ///< simulated time reached (s)
  bool diverged = false;
  std::string failure;       ///< why it diverged
  double maxResidual = 0.0;  ///< largest closure or coupler residual (0 without)
  long unconverged = 0;      ///< steps whose constraint solve did not converge
};

/// Called with every row written to the HDF5 log (--hdf5), in order.
using RowObserver = std::function<void(const io::LogColumns& columns, const double* row)>;

/// Parses the arguments of `run` (`legacy`: no subcommand was given).
RunOptions parseRun(const std::vector<std::string>& argv, bool legacy);
/// Runs as `run` does: builds the world, steps, writes the outputs and
/// prints the summary line; returns how it ended.
RunOutcome executeRun(const RunOptions& options, const RowObserver& rows = {});

void printUsage(std::ostream& os);

/// `run`; `legacy` when no subcommand was given (the default scene is used
/// when there is neither a FILE nor --scene).
int runCommand(const std::vector<std::string>& args, bool legacy);
int inspectCommand(const std::vector<std::string>& args);
int exportCommand(const std::vector<std::string>& args);
/// `replay`: a replay file written by `run --record`.
int replayCommand(const std::vector<std::string>& args);
int listCommand(const std::vector<std::string>& args);
/// `sweep`: parameter studies (docs/sweeps.md).
int sweepCommand(const std::vector<std::string>& args);
/// `render`: a scene or a replay frame to a PNG (offscreen OpenGL).
int renderCommand(const std::vector<std::string>& args);
/// `ik`: inverse kinematics from a file's initial state.
int ikCommand(const std::vector<std::string>& args);

}  // namespace articula::run

#pragma once
// How articula-run builds the world of a run, and how that is written into
// a replay file and read back, so that `replay` rebuilds the same world.

#include "cli.hpp"
#include "parameters.hpp"

#include <articula/recording.hpp>
#include <articula/world.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace articula::run {

/// The input and every option that shapes the world before it steps.
struct WorldSetup {
  InputOptions input;
  std::optional<double> dt;
  std::optional<Integrator> integrator;
  std::string solver;  ///< empty: the file's
  /// --threads: islands of the constraint solve on a pool of this many
  /// threads (1: the stepping thread alone; 0: one per hardware thread).
  /// Results do not depend on it.
  int threads = 1;
  std::optional<Vector3d> gravity;
  bool noContacts = false;
  /// --keyframe: the scene's keyframe the run starts from (before --set).
  std::string keyframe;
  /// --set: initial positions, applied before entering simulation mode.
  std::vector<std::pair<std::string, double>> sets;
  /// --hold: every joint coordinate without an actuator gets a position
  /// servo holding the initial pose (io::addHoldingServos).
  bool hold = false;
  /// --controls FILE.csv: one keyframe schedule per actuator column.
  std::string controls;
  bool controlsHold = false;  ///< --controls-hold: zero-order hold instead of linear interpolation
  /// --param NAME=VALUE (parameters.hpp): design parameters are applied
  /// after the options above, --hold and --controls; q: ones with --set,
  /// v: ones after them.
  std::vector<ParameterValue> params;
};

/// Handles --set JOINT=VALUE, --keyframe NAME and --param NAME=VALUE (the
/// start of a run or an ik solve); returns false for any other option.
bool parseStartOption(ArgScanner& args, const std::string& option, WorldSetup& setup);

/// Reads a controls CSV (a header "time" or "t", then one column per
/// actuator, named `NAME` or `ctrl:NAME`; rows of numbers with increasing
/// times) into keyframe schedules. @throws CliError with file and line.
std::vector<ScheduleSpec> readControlsCsv(const std::string& file, const World& world, bool hold);

/// Reads the input into `world` (the import report goes to stderr unless
/// `quiet`), applies the options, removes every collision shape for
/// noContacts, applies the keyframe and the initial positions and (with
/// `simulate`) enters simulation mode. Returns the import report.
/// @throws CliError (or io::ImportError) for bad input.
io::ImportReport prepareWorld(World& world, const WorldSetup& setup, bool quiet, bool simulate = true);

/// Stores in `recording` what rebuilds the world: the scene reference (the
/// absolute path of the file, or "builtin:NAME") and metadata: root,
/// no-contacts, package-path.N (absolute), and the world's effective dt,
/// integrator, solver and gravity.
void describeSetup(Recording& recording, const WorldSetup& setup, const World& world);

/// The setup a recording was made with (no --set: the frames carry the
/// state). `scene` (a file or a built-in scene name; empty: the recorded
/// scene reference) replaces the scene; `packagePaths` are searched before
/// the recorded ones. @throws CliError for a recording without a scene
/// reference (and no `scene`) or with malformed metadata.
WorldSetup setupFromRecording(const Recording& recording, const std::string& scene,
                              const std::vector<std::filesystem::path>& packagePaths);

/// "semi-implicit-euler" or "rk4".
std::string integratorName(Integrator integrator);
/// The integrator for one of its names ("semi-implicit-euler" or "sie",
/// "rk4" or "runge-kutta-4"), if it is one.
std::optional<Integrator> integratorFromName(const std::string& name);
/// Whether `method` is a constraint solver method (constraintSolverMethods()).
bool isSolverMethod(const std::string& method);
/// The constraint solver methods, comma-separated, for messages.
std::string solverMethodList();

}  // namespace articula::run

#pragma once
// The subcommands of articula-run. Each returns the process exit code and
// throws CliError / io::ImportError for bad input (exit code 2).

#include <ostream>
#include <string>
#include <vector>

namespace articula::run {

void printUsage(std::ostream& os);

/// `run`; `legacy` when no subcommand was given (the default scene is used
/// when there is neither a FILE nor --scene).
int runCommand(const std::vector<std::string>& args, bool legacy);
int inspectCommand(const std::vector<std::string>& args);
int exportCommand(const std::vector<std::string>& args);
/// `replay`: a replay file written by `run --record`.
int replayCommand(const std::vector<std::string>& args);
int listCommand(const std::vector<std::string>& args);
/// `render`: a scene or a replay frame to a PNG (offscreen OpenGL).
int renderCommand(const std::vector<std::string>& args);
/// `ik`: inverse kinematics from a file's initial state.
int ikCommand(const std::vector<std::string>& args);

}  // namespace articula::run

// articula-run: headless simulation runner (README.md, "Headless runner").
//
//   articula-run run FILE [options]        FILE: .articula, .urdf, .sdf, .world or MJCF .xml
//   articula-run inspect FILE [--json]
//   articula-run export IN OUT (.articula, .urdf, .sdf, .xml)
//   articula-run replay FILE.replay [--scene SCENE] [--csv OUT.csv] [--frame K]
//   articula-run render FILE [--replay R --frame K] --out IMG.png [--size WxH] [--camera ...]
//   articula-run ik FILE --target FRAME=X,Y,Z[,R,P,Y] [--pin FRAME] [--json] [--out POSE.articula]
//   articula-run sweep SWEEP.yaml [--jobs N] [--slurm ...]
//   articula-run list
//
// Exit codes: 0 ok, 2 bad input or usage, 3 the simulation diverged, 4 ik: a target not reached.
#include "builtin_scenes.hpp"
#include "cli.hpp"
#include "commands.hpp"

#include <articula/error.hpp>
#include <articula/io/scene_file.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace articula::run;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const auto& a : args) {
    if ((a == "-h" || a == "--help") && args[0] != "sweep") {
      printUsage(std::cout);
      return kExitOk;
    }
  }
  try {
    if (args.empty()) return runCommand(args, true);
    const std::string command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "run") return runCommand(rest, false);
    if (command == "inspect") return inspectCommand(rest);
    if (command == "export") return exportCommand(rest);
    if (command == "replay") return replayCommand(rest);
    if (command == "list") return listCommand(rest);
    if (command == "sweep") return sweepCommand(rest);
    if (command == "render") return renderCommand(rest);
    if (command == "ik") return ikCommand(rest);
    if (command == "help") {
      printUsage(std::cout);
      return kExitOk;
    }
    if (command[0] == '-' || looksLikeFile(command)) return runCommand(args, true);
    std::string hint = "run, inspect, export, replay, render, ik, sweep or list";
    for (const auto& s : articula::scenes::builtinScenes()) {
      if (s.name == command) hint = "to run the built-in scene write --scene " + command;
    }
    usageError("unknown command '" + command + "' (" + hint + ")");
  } catch (const CliError& e) {
    std::cerr << "articula-run: " << e.what() << "\n";
    if (e.usageHint()) {
      const bool sweep = !args.empty() && args[0] == "sweep";
      std::cerr << "run 'articula-run " << (sweep ? "sweep " : "") << "--help' for the "
                << (sweep ? "sweep options" : "commands and options") << "\n";
    }
    return kExitBadInput;
  } catch (const articula::io::ImportError& e) {
    std::cerr << "articula-run: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const articula::Error& e) {
    std::cerr << "articula-run: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "articula-run: internal error: " << e.what() << "\n";
    return 1;
  }
}

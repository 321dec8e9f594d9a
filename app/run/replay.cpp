// articula-run replay: reads a replay file, rebuilds the world it was
// recorded in, checks that the frames fit it, then prints a summary, prints
// one frame, or writes every frame as the CSV of `run --csv`.
#include <articula/io/state_columns.hpp>
#include "cli.hpp"
#include "commands.hpp"
#include "csv_writer.hpp"
#include "world_setup.hpp"

#include <articula/articula.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <system_error>

namespace fs = std::filesystem;

namespace articula::run {

namespace {

struct ReplayOptions {
  std::string file;
  std::string scene;  ///< --scene: replaces the recorded scene
  std::string csv;
  std::optional<std::uint64_t> frame;
  std::vector<fs::path> packagePaths;
  bool quiet = false;
};

ReplayOptions parseReplay(const std::vector<std::string>& argv) {
  ReplayOptions o;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--scene") {
      o.scene = args.value();
      if (o.scene.empty()) usageError("--scene needs a file or a built-in scene name");
    } else if (a == "--csv") {
      o.csv = args.value();
    } else if (a == "--frame") {
      const long k = parseLong(a, args.value());
      if (k < 0) usageError("--frame must be >= 0 (a step index)");
      o.frame = static_cast<std::uint64_t>(k);
    } else if (a == "--package-path") {
      InputOptions input;
      parseInputOption(args, a, input);
      o.packagePaths.insert(o.packagePaths.end(), input.import.packagePath.begin(), input.import.packagePath.end());
    } else if (a == "--quiet" || a == "-q") {
      args.noValue();
      o.quiet = true;
    } else if (!a.empty() && a[0] != '-' && o.file.empty()) {
      o.file = a;
    } else if (!a.empty() && a[0] != '-') {
      usageError("replay takes one FILE.replay (got '" + o.file + "' and '" + a + "')");
    } else {
      usageError("unknown option '" + a + "' for replay");
    }
  }
  if (o.file.empty()) usageError("replay needs a FILE.replay (written by 'articula-run run ... --record')");
  if (!o.csv.empty()) {
    checkOutputOption("--csv", o.csv);
    if (sameFile(o.csv, o.file)) usageError("--csv names the replay file itself; it would be overwritten");
  }
  return o;
}

// The frame index of --frame K, or a CliError naming the recorded steps nearest to K.
std::size_t frameOfStep(const Recording& recording, std::uint64_t step, const std::string& file) {
  if (const std::optional<std::size_t> index = recording.findStep(step)) return *index;
  const std::string what = "--frame " + std::to_string(step) + ": step " + std::to_string(step) + " is not in " + file;
  if (recording.empty()) throw CliError(what + " (it holds no frames)");
  const std::optional<std::size_t> before = recording.findAtOrBefore(step);
  if (!before) {
    throw CliError(what + "; the first recorded step is " + std::to_string(recording.frameInfo(0).step));
  }
  if (*before + 1 >= recording.size()) {
    throw CliError(what + "; the last recorded step is " + std::to_string(recording.frameInfo(*before).step));
  }
  throw CliError(what + "; the nearest recorded steps are " + std::to_string(recording.frameInfo(*before).step) +
                 " and " + std::to_string(recording.frameInfo(*before + 1).step));
}

void printFrame(const World& world, std::uint64_t step) {
  const StateColumns columns(world);
  const VectorXd q = world.getPositions();
  const VectorXd v = world.getVelocities();
  std::string out = "frame " + std::to_string(step) + ": t=" + formatNumber(world.getTime()) + "\n";
  for (std::size_t i = 0; i < columns.positionNames().size(); ++i) {
    out += "q:" + columns.positionNames()[i] + " " + formatNumber(q[static_cast<Eigen::Index>(i)]) + "\n";
  }
  for (std::size_t i = 0; i < columns.velocityNames().size(); ++i) {
    out += "v:" + columns.velocityNames()[i] + " " + formatNumber(v[static_cast<Eigen::Index>(i)]) + "\n";
  }
  for (const LoopClosure& c : world.getLoopClosures()) {
    out += "residual:" + c.name() + " " + formatNumber(c.computeResidual().norm) + "\n";
  }
  std::cout << out << std::flush;
}

// A time for reading, as run's summary line writes it (nine significant digits).
std::string timeText(double t) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", t);
  return buffer;
}

void printSummary(const Recording& recording, const ReplayOptions& o) {
  const RecordingStats stats = recording.stats();
  std::string out = "replay:   " + o.file + "\n";
  out += "scene:    " + (o.scene.empty() ? recording.sceneReference() : o.scene);
  if (!o.scene.empty() && !recording.sceneReference().empty()) {
    out += " (recorded with " + recording.sceneReference() + ")";
  }
  out += "\n";
  std::string options;
  for (const auto& [key, value] : recording.metadata()) options += (options.empty() ? "" : " ") + key + "=" + value;
  if (!options.empty()) out += "options:  " + options + "\n";
  out += "frames:   " + std::to_string(stats.frames);
  if (!recording.empty()) {
    const RecordedFrameInfo first = recording.frameInfo(0);
    const RecordedFrameInfo last = recording.frameInfo(recording.size() - 1);
    out += ", steps " + std::to_string(first.step) + ".." + std::to_string(last.step) + " (every " +
           std::to_string(recording.options().every) + ")\n";
    out += "dt:       " + formatNumber(recording.timeStep()) + " s\n";
    out += "duration: " + timeText(last.time - first.time) + " s (t = " + timeText(first.time) + " .. " +
           timeText(last.time) + ")\n";
  } else {
    out += "\n";
  }
  if (stats.droppedFrames > 0) {
    out += "dropped:  " + std::to_string(stats.droppedFrames) + " frames (the memory budget of the recording)\n";
  }
  out += "size:     " + formatByteCount(stats.storedBytesPerFrame()) + " bytes per frame stored, " +
         formatByteCount(stats.rawBytesPerFrame()) + " raw";
  if (stats.storedBytes > 0) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1f", double(stats.rawBytes) / double(stats.storedBytes));
    out += std::string(" (") + ratio + "x smaller)";
  }
  out += "\n";
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, recording.fingerprint().hash);
  out += std::string("layout:   fingerprint ") + hash + ", " + std::to_string(recording.fingerprint().entries.size()) +
         " entries; matches the scene\n";
  std::cout << out << std::flush;
}

}  // namespace

int replayCommand(const std::vector<std::string>& argv) {
  const ReplayOptions o = parseReplay(argv);
  Recording recording;
  try {
    recording = Recording::load(o.file);
  } catch (const ReplayFileError& e) {
    throw CliError(e.what());
  }
  // Checked before the world is built: a missing frame is a quick error.
  const std::size_t frameIndex = o.frame ? frameOfStep(recording, *o.frame, o.file) : 0;

  const WorldSetup setup = setupFromRecording(recording, o.scene, o.packagePaths);
  const std::string sceneName = o.scene.empty() ? recording.sceneReference() : o.scene;
  if (o.scene.empty() && !setup.input.file.empty()) {
    std::error_code ec;
    if (!fs::exists(setup.input.file, ec)) {
      throw CliError(o.file + " was recorded with the scene " + setup.input.file +
                     ", which does not exist; give the scene with --scene");
    }
  }
  World world;
  prepareWorld(world, setup, o.quiet);
  try {
    recording.checkLayout(world);
  } catch (const LayoutIncompatible& e) {
    const std::string difference = describeLayoutDifference(recording.fingerprint(), computeLayoutFingerprint(world));
    throw CliError("the replay does not fit the scene " + sceneName + ": " +
                   (difference.empty() ? e.what() : difference));
  }

  if (!o.csv.empty()) {
    CsvWriter csv(o.csv, world);
    for (std::size_t i = 0; i < recording.size(); ++i) {
      recording.restore(world, i);
      csv.row(world.getTime(), world.getPositions(), world.getVelocities());
    }
    csv.close();
    if (!o.quiet) {
      std::cerr << "articula-run: wrote " << recording.size() << " frame" << (recording.size() == 1 ? "" : "s")
                << " to " << o.csv << "\n"
                << std::flush;
    }
  }
  if (o.frame) {
    recording.restore(world, frameIndex);
    printFrame(world, *o.frame);
  }
  if (o.csv.empty() && !o.frame) printSummary(recording, o);
  return kExitOk;
}

}  // namespace articula::run

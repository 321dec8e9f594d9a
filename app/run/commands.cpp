// articula-run run / export / list, and the usage text.
#include "commands.hpp"

#include <articula/io/state_columns.hpp>
#include "builtin_scenes.hpp"
#include "cli.hpp"
#include "csv_writer.hpp"
#include "progress.hpp"
#include "world_setup.hpp"

#include <articula/articula.hpp>
#include <articula/io/export.hpp>
#include <articula/io/load_checks.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/limits.hpp>

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <system_error>
#include <utility>

namespace fs = std::filesystem;

namespace articula::run {

void printUsage(std::ostream& os) {
  os << "usage: articula-run run FILE [options]       simulate a .articula, .urdf, .sdf, .world or MJCF .xml file\n"
        "       articula-run inspect FILE [--json]    print the topology and the import report\n"
        "       articula-run export IN OUT             convert a URDF/SDF/MJCF file (or a built-in scene) to\n"
        "                                              .articula, .urdf, .sdf or .xml (MJCF), chosen by OUT's "
        "extension\n"
        "       articula-run replay FILE.replay       check a run recorded with --record against its scene;\n"
        "                                             print its summary, one frame or its CSV\n"
        "       articula-run render FILE --out IMG.png  draw a scene (or a replay frame) to a PNG, offscreen\n"
        "       articula-run render --replay R --video OUT.mp4  a video of a replay (or of FILE simulated)\n"
        "       articula-run ik FILE --target FRAME=X,Y,Z[,R,P,Y]  solve inverse kinematics from the file's state\n"
        "       articula-run sweep SWEEP.yaml         run a parameter study, locally in parallel or as a Slurm\n"
        "                                             job array (articula-run sweep --help, docs/sweeps.md)\n"
        "       articula-run list                     list the built-in scenes\n"
        "\n"
        "run options:\n"
        "  --duration S             simulated time in seconds (default 5)\n"
        "  --steps N                number of steps (instead of --duration)\n"
        "  --dt S                   time step in seconds (default: the file's)\n"
        "  --integrator NAME        semi-implicit-euler | rk4\n"
        "  --no-contacts            remove every collision shape: no contacts are generated\n"
        "  --gravity X,Y,Z          gravity in m/s^2, world frame\n"
        "  --fixed-base             weld the root link of an imported URDF/SDF model to the world\n"
        "  --floating-base          give it a six-DoF free joint instead\n"
        "  --ground [HEIGHT]        add a ground plane at z = HEIGHT (default 0) unless the file has one; a\n"
        "                           floating-base model starts with its lowest collision point on it, a\n"
        "                           welded one that reaches through it is lifted onto it\n"
        "  --set JOINT=VALUE        initial position of a 1-DoF joint (JOINT:K=VALUE for coordinate K of a\n"
        "                           multi-DoF joint or rigid body); repeatable; loop closures are re-assembled\n"
        "  --package-path DIR       where package://NAME/ and model:// resolve (the folder containing NAME);\n"
        "                           repeatable (also for inspect, export and replay)\n"
        "  --keyframe NAME          start from the scene's keyframe NAME (positions, velocities, controls);\n"
        "                           --set still applies after it\n"
        "  --hold                   every joint without an actuator gets a position servo holding the\n"
        "                           initial pose (gravity-compensated, default gains)\n"
        "  --controls FILE.csv      drive actuators over time: a header 'time,ACTUATOR,...', then rows;\n"
        "                           linear interpolation between rows (--controls-hold: zero-order hold)\n"
        "  --csv OUT.csv            write t, q:..., v:..., residual:..., ctrl:..., force:..., sensor:... for\n"
        "                           every step\n"
        "  --log GROUPS             the logged column groups after t, q and v (default residuals,controls,sensors):\n"
        "                           residuals, controls, sensors, reactions, joint-forces, limits, friction,\n"
        "                           contacts, energies, diagnostics, all (comma-separated)\n"
        "  --hdf5 OUT.h5            write the same rows (every --every-th step) to an HDF5 log, with energies\n"
        "                           and step diagnostics; one dataset per column group (docs/sweeps.md)\n"
        "  --param NAME=VALUE       a design parameter (docs/sweeps.md): options.time-step, body:NAME.mass,\n"
        "                           joint:NAME.damping, actuator:NAME.kp, shape:NAME.friction, q:NAME, ...;\n"
        "                           repeatable\n"
        "  --record OUT.replay      record the run (t = 0 included) into a replay file, with the scene's path\n"
        "                           and the options above that shape the world\n"
        "  --record-every K         record every K-th step (default 1)\n"
        "  --quiet                  no progress bar, import report or warnings; the summary line stays\n"
        "  --verbose                the whole import report (default: one line counting its findings)\n"
        "  --scene NAME             a built-in scene instead of FILE (see 'articula-run list')\n"
        "  --solver METHOD          projected-gauss-seidel | direct-pivoting | nonsmooth-newton | convex\n"
        "  --threads N              solve the contact islands on N threads (0: one per hardware thread;\n"
        "                           default 1); the results are the same bit for bit\n"
        "  --every K                write every K-th step to the CSV (default 1)\n"
        "  -h, --help               this text\n"
        "\n"
        "replay options (the world is rebuilt from the recorded scene and options, then checked against the\n"
        "recording's layout; without --csv or --frame a summary is printed):\n"
        "  --scene SCENE            replay in this scene file or built-in scene instead of the recorded one\n"
        "  --csv OUT.csv            write every recorded frame, with the columns and numbers of run --csv\n"
        "  --frame K                print the frame recorded at step K: t, then one line per column\n"
        "  --package-path DIR       searched before the recorded package paths; repeatable\n"
        "  --quiet                  no import report or notes\n"
        "\n"
        "render options (needs an X display: run under xvfb-run on a machine without one):\n"
        "  --out IMG.png            the image to write\n"
        "  --replay R.replay        draw a recorded frame: the world is rebuilt as replay does (FILE, if\n"
        "                           given, replaces the recorded scene)\n"
        "  --frame K                the step to draw (default: the last recorded one)\n"
        "  --steps N                simulate N steps before drawing (without --replay)\n"
        "  --size WxH               image size in pixels (default 1280x720)\n"
        "  --camera VIEW            iso (default), front, back, left, right, top, fit, or EX,EY,EZ:CX,CY,CZ\n"
        "                           (eye and centre, metres); presets frame the whole scene\n"
        "  --layers L1,L2,...       exactly these layers: visuals, collision, contacts, frames, joints, com,\n"
        "                           closures, grid, selection, shadows (default: visuals, grid, closures,\n"
        "                           selection, shadows)\n"
        "  --show L,..  --hide L,.. add layers to / remove layers from the default set\n"
        "  --overlay                draw the stats panel over the scene\n"
        "  --plot WHAT              a live plot in the overlay (implies --overlay; repeatable): energy,\n"
        "                           kinetic, potential, residual, solve-residual, q:NAME or v:NAME (CSV\n"
        "                           column names), fed with up to 2000 frames before the one drawn\n"
        "                           (--replay or --steps)\n"
        "  --video OUT.mp4|OUT.webm a video instead of an image (H.264 or VP9 through the ffmpeg program):\n"
        "                           of the replay, or of FILE simulated for --duration S (default 5)\n"
        "  --fps N                  video frames per second (default 30); frame k shows T0 + k*speed/fps\n"
        "  --from T0, --to T1       the simulated time span (default: all of it)\n"
        "  --speed X                simulated seconds per second of video (default 1)\n"
        "  --codec h264|vp9         (default: by the extension)\n"
        "  --follow BODY            the camera centre follows a link or rigid body; the view direction stays\n"
        "  --orbit DEG              the camera turns about its centre at DEG degrees per second of video\n"
        "  --progress               print 'frame K N' on stdout after each video frame (for programs)\n"
        "  --scene NAME, --package-path DIR, --fixed-base, --floating-base, --ground, --quiet: as for run\n"
        "(inspect and export take --package-path, --fixed-base, --floating-base and --ground too; export\n"
        "also --param, --set and --keyframe: the file is written with them applied)\n"
        "\n"
        "ik options (targets in the world frame, metres; orientation in radians as in URDF:\n"
        "R = Rz(yaw) Ry(pitch) Rx(roll)):\n"
        "  --target FRAME=X,Y,Z[,ROLL,PITCH,YAW]  a position (or pose) target for the origin of a link, rigid\n"
        "                           body or frame; FRAME is NAME or MULTIBODY/LINK; repeatable\n"
        "  --pin FRAME              hold FRAME's position and orientation where they are (above every target)\n"
        "  --pin-position FRAME     hold only FRAME's origin (a point foot on a 3-DoF leg)\n"
        "  --posture                keep the other coordinates near the start (lowest priority)\n"
        "  --tolerance M[,RAD]      when a target counts as reached (default 1e-10 m and rad)\n"
        "  --restarts N             attempts from random in-limit configurations after a failure (default 10)\n"
        "  --max-iterations N       per attempt (default 100)\n"
        "  --json                   print the result as JSON\n"
        "  --out POSE.articula      write the scene in the solved pose (the closest one when not converged)\n"
        "  --quiet                  no import report or notes on stderr\n"
        "  FILE options of run: --package-path, --fixed-base, --floating-base, --ground, --set, --keyframe,\n"
        "  --scene, --verbose\n"
        "  exit code 4 when the targets are not all reached (the closest pose found is still printed)\n"
        "\n"
        "At the end run prints one line on stdout:\n"
        "  steps=N sim_time=S wall_time=S us_per_step=X rtf=X [key=value ...]\n"
        "Exit codes: 0 ok, 2 bad input or usage (also: a replay file that is truncated, corrupted or does not\n"
        "fit the scene), 3 the simulation diverged (non-finite state, velocity or energy blow-up), 4 ik did\n"
        "not reach every target.\n";
}

namespace {

// The most steps one run takes: a billion steps is hours of wall time.
constexpr long kMaxSteps = 1000000000L;

// Memory for the frames of --record; more than any ordinary run needs.
constexpr std::size_t kRecordingBudget = std::size_t{4} << 30;

}  // namespace

RunOptions parseRun(const std::vector<std::string>& argv, bool legacy) {
  RunOptions o;
  InputOptions& input = o.setup.input;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--duration") {
      o.duration = parseDouble(a, args.value());
      if (*o.duration <= 0.0) usageError("--duration must be positive");
    } else if (a == "--steps") {
      o.steps = parseLong(a, args.value());
      if (*o.steps < 0 || *o.steps > kMaxSteps) usageError("--steps must be in [0, " + std::to_string(kMaxSteps) + "]");
    } else if (a == "--dt") {
      o.setup.dt = parseDouble(a, args.value());
      if (*o.setup.dt <= 0.0) usageError("--dt must be positive");
      if (*o.setup.dt < kMinTimeStep || *o.setup.dt > kMaxTimeStep) {
        usageError("--dt " + formatNumber(*o.setup.dt) + " is outside [" + formatNumber(kMinTimeStep) + ", " +
                   formatNumber(kMaxTimeStep) + "] s");
      }
    } else if (a == "--integrator") {
      const std::string n = args.value();
      o.setup.integrator = integratorFromName(n);
      if (!o.setup.integrator) usageError("unknown integrator '" + n + "' (semi-implicit-euler or rk4)");
    } else if (a == "--no-contacts") {
      args.noValue();
      o.setup.noContacts = true;
    } else if (a == "--gravity") {
      o.setup.gravity = parseVector3(a, args.value());
    } else if (parseStartOption(args, a, o.setup)) {
    } else if (a == "--hold") {
      args.noValue();
      o.setup.hold = true;
    } else if (a == "--controls") {
      o.setup.controls = args.value();
      if (o.setup.controls.empty()) usageError("--controls needs a CSV file");
    } else if (a == "--controls-hold") {
      args.noValue();
      o.setup.controlsHold = true;
    } else if (a == "--csv") {
      o.csv = args.value();
    } else if (a == "--hdf5") {
      o.hdf5 = args.value();
      if (o.hdf5.empty()) usageError("--hdf5 needs a file name");
    } else if (a == "--log") {
      o.log = parseCsvLog(args.value());
      o.logGiven = true;
    } else if (a == "--record") {
      o.record = args.value();
      if (o.record.empty()) usageError("--record needs a file name");
    } else if (a == "--record-every") {
      o.recordEvery = parseLong(a, args.value());
      if (*o.recordEvery < 1) usageError("--record-every must be >= 1");
    } else if (a == "--quiet" || a == "-q") {
      args.noValue();
      o.quiet = true;
    } else if (a == "--scene") {
      input.scene = args.value();
    } else if (a == "--solver") {
      o.setup.solver = args.value();
      if (!isSolverMethod(o.setup.solver)) {
        usageError("unknown solver '" + o.setup.solver + "' (" + solverMethodList() + ")");
      }
    } else if (a == "--threads") {
      const long n = parseLong(a, args.value());
      if (n < 0 || n > 256) usageError("--threads must be between 0 (one per hardware thread) and 256");
      o.setup.threads = static_cast<int>(n);
    } else if (a == "--every") {
      o.every = parseLong(a, args.value());
      if (o.every < 1) usageError("--every must be >= 1");
    } else if (parseInputOption(args, a, input)) {
    } else if (!a.empty() && a[0] != '-' && input.file.empty()) {
      input.file = a;
    } else if (!a.empty() && a[0] != '-') {
      usageError("run takes one FILE (got '" + input.file + "' and '" + a + "')");
    } else {
      usageError("unknown option '" + a + "'");
    }
  }
  if (o.duration && o.steps) usageError("give either --duration or --steps, not both");
  if (o.recordEvery && o.record.empty()) usageError("--record-every needs --record OUT.replay");
  if (o.logGiven && o.csv.empty() && o.hdf5.empty()) {
    usageError("--log selects logged columns: it needs --csv OUT.csv or --hdf5 OUT.h5");
  }
  if (o.setup.controlsHold && o.setup.controls.empty()) usageError("--controls-hold needs --controls FILE.csv");
  if (!input.file.empty() && !input.scene.empty()) usageError("give either FILE or --scene, not both");
  if (input.file.empty() && input.scene.empty()) {
    if (!legacy) usageError("run needs a FILE (.articula, .urdf, .sdf, .world or MJCF .xml)");
    input.scene = "double-pendulum";
  }
  if (!o.record.empty()) {
    const fs::path dir = fs::path(o.record).parent_path();
    std::error_code ec;
    if (!dir.empty() && !fs::is_directory(dir, ec))
      throw CliError("--record: '" + dir.string() + "' is not a directory");
    checkOutputOption("--record", o.record);
  }
  if (!o.csv.empty()) checkOutputOption("--csv", o.csv);
  if (!o.hdf5.empty()) checkOutputOption("--hdf5", o.hdf5);
  const std::vector<std::pair<const char*, const std::string*>> outputs = {
      {"--csv", &o.csv}, {"--record", &o.record}, {"--hdf5", &o.hdf5}};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (!outputs[i].second->empty() && !outputs[j].second->empty() &&
          sameFile(*outputs[i].second, *outputs[j].second)) {
        usageError(std::string(outputs[i].first) + " and " + outputs[j].first + " name the same file");
      }
    }
  }
  o.commandLine = "articula-run run";
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    std::string quoted = "'";
    for (const char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    o.commandLine += " " + (plain ? a : quoted + "'");
  }
  if (!input.file.empty()) {
    for (const std::string* out : {&o.csv, &o.record, &o.hdf5}) {
      if (!out->empty() && sameFile(*out, input.file)) usageError(*out + " is the input file; it would be overwritten");
    }
  }
  return o;
}

namespace {

double largestResidual(const std::vector<LoopClosure>& closures, const std::vector<JointCoupler>& couplers) {
  double r = 0.0;
  for (const auto& c : closures) r = std::max(r, c.computeResidual().norm);
  for (const auto& c : couplers) r = std::max(r, std::abs(c.computeResidual().residual));
  return r;
}

io::RunLogInfo runLogInfo(const RunOptions& o, const World& world) {
  io::RunLogInfo info;
  const InputOptions& input = o.setup.input;
  if (input.file.empty()) {
    info.scenePath = "builtin:" + input.scene;
  } else {
    std::error_code ec;
    const fs::path absolute = fs::absolute(input.file, ec);
    info.scenePath = ec ? input.file : absolute.lexically_normal().string();
    try {
      info.sceneSha256 = io::sha256Hex(readInputFile(input.file, kMaxTextFileBytes, "a scene file"));
    } catch (const FileAccessError&) {
      // Read once already: a file that changed since is logged without a hash.
    }
  }
  info.commandLine = o.commandLine;
  info.options = io::optionsJson(world.getOptions());
  return info;
}

}  // namespace

int runCommand(const std::vector<std::string>& argv, bool legacy) {
  return executeRun(parseRun(argv, legacy)).exitCode;
}

RunOutcome executeRun(const RunOptions& o, const RowObserver& observeRow) {
  World world;
  const io::ImportReport report = prepareWorld(world, o.setup, o.quiet);
  std::optional<Recorder> recorder;
  if (!o.record.empty()) {
    // The scene's <recording> section, if any, gives the recording options.
    RecordingOptions recording;
    if (report.recording) {
      recording = report.recording->options;
    } else {
      recording.budgetBytes = kRecordingBudget;
      recording.overflow = RecordingOverflow::ThinToKeyframes;
    }
    if (o.recordEvery) recording.every = static_cast<std::uint64_t>(*o.recordEvery);
    recorder.emplace(world, recording);
    describeSetup(recorder->recording(), o.setup, world);
  }

  const double dt = world.getOptions().timeStep;
  const double wanted = o.steps ? static_cast<double>(*o.steps) : std::round((o.duration ? *o.duration : 5.0) / dt);
  if (!(wanted <= static_cast<double>(kMaxSteps))) {
    throw CliError("--duration " + formatNumber(o.duration ? *o.duration : 5.0) + " s at a time step of " +
                   formatNumber(dt) + " s would take " + formatNumber(wanted) + " steps; the limit is " +
                   std::to_string(kMaxSteps) + " (use a shorter --duration or a longer --dt)");
  }
  const long steps = static_cast<long>(wanted);
  const StateColumns columns(world);
  const std::vector<LoopClosure> closures = world.getLoopClosures();
  const std::vector<JointCoupler> couplers = world.getJointCouplers();
  const bool constrained = !closures.empty() || !couplers.empty();

  VectorXd q = world.getPositions();
  VectorXd v = world.getVelocities();
  double t = world.getTime();
  if (!q.allFinite() || !v.allFinite()) throw CliError("the initial state is not finite");
  if (steps > 0) {
    const std::vector<io::ImmovableLink> immovable = io::findImmovableLinks(world);
    if (!immovable.empty()) {
      throw CliError((o.setup.input.file.empty() ? o.setup.input.scene : o.setup.input.file) + ": " +
                     immovable.front().problem);
    }
  }
  CsvWriter csv(o.csv, world, o.log);
  csv.row(t, q, v);
  std::optional<io::LogColumns> logColumns;
  std::unique_ptr<io::Hdf5Log> hdf5;
  if (!o.hdf5.empty()) {
    io::LogGroups groups = o.log;
    groups.energies = groups.diagnostics = true;
    logColumns.emplace(world, groups);
    try {
      hdf5 = std::make_unique<io::Hdf5Log>(o.hdf5, *logColumns, runLogInfo(o, world));
    } catch (const FileAccessError& e) {
      throw CliError(std::string("--hdf5: ") + e.what());
    }
  }
  auto logRow = [&] {
    if (!hdf5) return;
    double* row = hdf5->nextRow();
    logColumns->fill(world, t, q, v, row);
    if (observeRow) observeRow(*logColumns, row);
    try {
      hdf5->append();
    } catch (const FileAccessError& e) {
      throw CliError(std::string("--hdf5: ") + e.what());
    }
  };
  logRow();
  double maxResidual = constrained ? largestResidual(closures, couplers) : 0.0;

  ProgressBar progress(!o.quiet && isatty(STDERR_FILENO) != 0, steps);
  StepTimings timings;
  long good = 0;
  long written = 0;
  long unconverged = 0;  // steps whose constraint solve did not converge
  double worstResidual = 0.0;
  std::string failure;
  const auto start = std::chrono::steady_clock::now();
  for (long k = 1; k <= steps; ++k) {
    try {
      world.step();
    } catch (const std::exception& e) {
      failure = std::string("the step threw: ") + e.what();
      break;
    }
    VectorXd qNext = world.getPositions();
    VectorXd vNext = world.getVelocities();
    const StepDiagnostics& d = world.getStepDiagnostics();
    if (d.failed || !qNext.allFinite() || !vNext.allFinite()) {
      failure = d.failed && !d.message.empty() ? d.message : std::string("the state became non-finite");
      break;
    }
    q.swap(qNext);
    v.swap(vNext);
    t = world.getTime();
    good = k;
    if (!d.converged) {
      ++unconverged;
      worstResidual = std::max(worstResidual, d.residual);
    }
    timings += world.getLastStepTimings();
    if (constrained) maxResidual = std::max(maxResidual, largestResidual(closures, couplers));
    if (k % o.every == 0) {
      csv.row(t, q, v);
      logRow();
      written = k;
    }
    progress.update(k, t);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish(good, t);

  const bool diverged = !failure.empty();
  if (!diverged && observeRow && hdf5 && written != good) {
    // The metrics see the last state even when --every skipped it.
    std::vector<double> last(static_cast<std::size_t>(logColumns->size()));
    logColumns->fill(world, t, q, v, last.data());
    observeRow(*logColumns, last.data());
  }
  if (diverged && (csv.enabled() || hdf5) && written != good) {
    try {
      world.setPositions(q);
      world.setVelocities(v);
    } catch (const std::exception&) {
    }
    csv.row(t, q, v);
    logRow();
  }
  csv.close();
  if (hdf5) {
    try {
      hdf5->setAttribute("steps", std::to_string(good));
      hdf5->setAttribute("status", diverged ? "diverged at step " + std::to_string(good + 1) + ": " + failure : "ok");
      hdf5->commit();
    } catch (const FileAccessError& e) {
      throw CliError(std::string("--hdf5: ") + e.what());
    }
  }

  RecordingStats recorded;
  if (recorder) {
    Recording& recording = recorder->recording();
    if (diverged) {
      // The frames after the last good step hold the diverged state.
      if (const std::optional<std::size_t> last = recording.findAtOrBefore(static_cast<std::uint64_t>(good))) {
        recording.truncateAfter(*last);
      }
    }
    try {
      recording.save(o.record);
    } catch (const ReplayFileError& e) {
      throw CliError(std::string("--record: ") + e.what());
    }
    recorded = recording.stats();
  }

  if (!o.quiet) {
    std::vector<std::string> warnings = world.getWarnings();
    if (recorder && !recorder->stopReason().empty()) {
      warnings.push_back("recording stopped: " + recorder->stopReason());
    }
    if (recorded.droppedFrames > 0) {
      const RecordingOptions& ro = recorder->recording().options();
      warnings.push_back(
          "the recording outgrew its memory budget of " + std::to_string(ro.budgetBytes) +
          " bytes: " + std::to_string(recorded.droppedFrames) + " frames were " +
          (ro.overflow == RecordingOverflow::DropOldest ? "dropped from the start of " : "thinned out of ") + o.record);
    }
    std::vector<std::string> shown;
    for (const auto& w : warnings) {
      const bool repeatsFailure = diverged && w.find(failure) != std::string::npos;
      if (!repeatsFailure && std::find(shown.begin(), shown.end(), w) == shown.end()) shown.push_back(w);
    }
    for (const auto& w : shown) std::cerr << "articula-run: warning: " << w << "\n";
  }
  if (unconverged > 0 && !o.quiet) {
    char worst[32];
    std::snprintf(worst, sizeof worst, "%.3g", worstResidual);
    std::cerr << "articula-run: the constraint solve (" << world.getOptions().solver.method << ") did not converge in "
              << unconverged << " of " << good << " steps (largest residual " << worst << " m/s, tolerance "
              << formatNumber(world.getOptions().solver.convergenceTolerance)
              << "); another --solver (nonsmooth-newton, convex) may help\n"
              << std::flush;
  }
  if (diverged) {
    std::cerr << "articula-run: the simulation diverged at step " << good + 1 << ": " << failure
              << "\narticula-run: stopped; the last good frame is step " << good << " (t = " << formatNumber(t) << " s)"
              << (csv.enabled() ? ", the last row of " + o.csv : std::string())
              << (recorder ? ", the last frame of " + o.record : std::string())
              << (good == 0 ? "; a model that diverges at once is often its masses or its starting pose: the "
                              "import's warnings (--verbose) say what was repaired"
                            : "; try a smaller --dt")
              << "\n"
              << std::flush;
  }
  if (recorder && !o.quiet) {
    std::cerr << "articula-run: recorded " << recorded.frames << " frame" << (recorded.frames == 1 ? "" : "s") << " to "
              << o.record << " (" << formatByteCount(recorded.storedBytesPerFrame()) << " bytes per frame stored, "
              << formatByteCount(recorded.rawBytesPerFrame()) << " raw)\n"
              << std::flush;
  }

  std::printf("steps=%ld sim_time=%.9g wall_time=%.6g us_per_step=%.6g rtf=%.6g", good, t, wall,
              good > 0 ? 1e6 * wall / static_cast<double>(good) : 0.0, wall > 0.0 ? t / wall : 0.0);
  const double perStep = good > 0 ? 1e6 / static_cast<double>(good) : 0.0;
  std::printf(
      " engine_us_per_step=%.6g control_us=%.4g kinematics_us=%.4g collision_us=%.4g dynamics_us=%.4g "
      "solve_us=%.4g integration_us=%.4g projection_us=%.4g",
      timings.total * perStep, timings.control * perStep, timings.kinematics * perStep, timings.collision * perStep,
      timings.dynamics * perStep, timings.solve * perStep, timings.integration * perStep, timings.projection * perStep);
  if (constrained) std::printf(" max_residual=%.3g", maxResidual);
  std::printf(" unconverged_solves=%ld", unconverged);
  if (diverged) std::printf(" diverged=1 last_good_step=%ld", good);
  if (recorder) {
    std::printf(" recorded_frames=%zu replay_bytes_per_frame=%s", recorded.frames,
                formatByteCount(recorded.storedBytesPerFrame()).c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
  RunOutcome outcome;
  outcome.exitCode = diverged ? kExitDiverged : kExitOk;
  outcome.steps = good;
  outcome.time = t;
  outcome.diverged = diverged;
  outcome.failure = failure;
  outcome.maxResidual = maxResidual;
  outcome.unconverged = unconverged;
  return outcome;
}

int exportCommand(const std::vector<std::string>& argv) {
  WorldSetup setup;
  InputOptions& input = setup.input;
  bool quiet = false;
  std::vector<std::string> positional;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--quiet" || a == "-q") {
      args.noValue();
      quiet = true;
    } else if (parseInputOption(args, a, input) || parseStartOption(args, a, setup)) {
    } else if (!a.empty() && a[0] != '-') {
      positional.push_back(a);
    } else {
      usageError("unknown option '" + a + "' for export");
    }
  }
  if (positional.size() != 2) {
    usageError("export needs IN (a file or a built-in scene) and OUT (.articula, .urdf, .sdf or .xml for MJCF)");
  }
  const std::optional<io::ExportFormat> format = io::exportFormatForPath(positional[1]);
  if (!format) {
    usageError("export: cannot tell the format of '" + positional[1] +
               "' from its extension: use .articula, .urdf, .sdf (or .world) or .xml (MJCF)");
  }
  if (sameFile(positional[0], positional[1])) {
    usageError("export: OUT is the same file as IN (" + positional[1] + "); write to another file");
  }
  checkOutputOption("OUT", positional[1]);
  if (looksLikeFile(positional[0])) {
    input.file = positional[0];
  } else {
    input.scene = positional[0];
  }
  World world;
  const io::ImportReport report = prepareWorld(world, setup, quiet, false);
  io::ExportReport written;
  if (*format == io::ExportFormat::Articula) {
    io::saveScene(world, positional[1], report.recording);
  } else {
    written = io::exportFile(world, positional[1], *format);
  }
  // What the format cannot hold is said, never dropped silently.
  if (!quiet) std::fputs(written.toText().c_str(), stderr);
  std::printf("wrote %s (%s%s)\n", positional[1].c_str(), io::toString(*format),
              written.notExported.empty() && written.converted.empty() ? "" : ("; " + written.summary()).c_str());
  return kExitOk;
}

int listCommand(const std::vector<std::string>& argv) {
  if (!argv.empty()) usageError("list takes no arguments");
  for (const auto& s : scenes::builtinScenes()) std::printf("  %-16s %s\n", s.name.c_str(), s.description.c_str());
  return kExitOk;
}

}  // namespace articula::run

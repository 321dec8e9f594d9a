// articula-run run / export / list, and the usage text.
#include "commands.hpp"

#include "builtin_scenes.hpp"
#include "cli.hpp"
#include "progress.hpp"
#include "state_columns.hpp"

#include <articula/articula.hpp>
#include <articula/io/scene_file.hpp>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <utility>

namespace articula::run {

void printUsage(std::ostream& os) {
  os << "usage: articula-run run FILE [options]       simulate a .articula, .urdf, .sdf or .world file\n"
        "       articula-run inspect FILE [--json]    print the topology and the import report\n"
        "       articula-run export IN OUT.articula   convert a URDF/SDF file (or a built-in scene) to .articula\n"
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
        "  --set JOINT=VALUE        initial position of a 1-DoF joint (JOINT:K=VALUE for coordinate K of a\n"
        "                           multi-DoF joint or rigid body); repeatable; loop closures are re-assembled\n"
        "  --package-path DIR       where package://NAME/ and model:// resolve (the folder containing NAME);\n"
        "                           repeatable (also for inspect and export)\n"
        "  --csv OUT.csv            write t, q:..., v:..., residual:... for every step, t = 0 included\n"
        "  --record OUT.replay      replay recording (not implemented yet)\n"
        "  --quiet                  no progress bar, import report or warnings; the summary line stays\n"
        "  --scene NAME             a built-in scene instead of FILE (see 'articula-run list')\n"
        "  --solver METHOD          projected-gauss-seidel | direct-pivoting\n"
        "  --every K                write every K-th step to the CSV (default 1)\n"
        "  -h, --help               this text\n"
        "\n"
        "At the end run prints one line on stdout:\n"
        "  steps=N sim_time=S wall_time=S us_per_step=X rtf=X [key=value ...]\n"
        "Exit codes: 0 ok, 2 bad input or usage, 3 the simulation diverged (non-finite state).\n";
}

namespace {

struct RunOptions {
  InputOptions input;
  std::optional<double> duration;
  std::optional<long> steps;
  std::optional<double> dt;
  std::optional<Integrator> integrator;
  std::string solver;
  bool noContacts = false;
  std::optional<Vector3d> gravity;
  std::vector<std::pair<std::string, double>> sets;
  std::string csv;
  std::string record;
  bool quiet = false;
  long every = 1;
};

RunOptions parseRun(const std::vector<std::string>& argv, bool legacy) {
  RunOptions o;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--duration") {
      o.duration = parseDouble(a, args.value());
      if (*o.duration <= 0.0) usageError("--duration must be positive");
    } else if (a == "--steps") {
      o.steps = parseLong(a, args.value());
      if (*o.steps < 0) usageError("--steps must be >= 0");
    } else if (a == "--dt") {
      o.dt = parseDouble(a, args.value());
      if (*o.dt <= 0.0) usageError("--dt must be positive");
    } else if (a == "--integrator") {
      const std::string n = args.value();
      if (n == "semi-implicit-euler" || n == "sie") {
        o.integrator = Integrator::SemiImplicitEuler;
      } else if (n == "rk4" || n == "runge-kutta-4") {
        o.integrator = Integrator::RungeKutta4;
      } else {
        usageError("unknown integrator '" + n + "' (semi-implicit-euler or rk4)");
      }
    } else if (a == "--no-contacts") {
      args.noValue();
      o.noContacts = true;
    } else if (a == "--gravity") {
      o.gravity = parseVector3(a, args.value());
    } else if (a == "--set") {
      const std::string s = args.value();
      const std::size_t eq = s.rfind('=');
      if (eq == std::string::npos || eq == 0) usageError("--set expects JOINT=VALUE, got '" + s + "'");
      o.sets.emplace_back(s.substr(0, eq), parseDouble("--set " + s.substr(0, eq), s.substr(eq + 1)));
    } else if (a == "--csv") {
      o.csv = args.value();
    } else if (a == "--record") {
      o.record = args.value();
    } else if (a == "--quiet" || a == "-q") {
      args.noValue();
      o.quiet = true;
    } else if (a == "--scene") {
      o.input.scene = args.value();
    } else if (a == "--solver") {
      o.solver = args.value();
      if (o.solver != "projected-gauss-seidel" && o.solver != "direct-pivoting") {
        usageError("unknown solver '" + o.solver + "' (projected-gauss-seidel or direct-pivoting)");
      }
    } else if (a == "--every") {
      o.every = parseLong(a, args.value());
      if (o.every < 1) usageError("--every must be >= 1");
    } else if (parseInputOption(args, a, o.input)) {
    } else if (!a.empty() && a[0] != '-' && o.input.file.empty()) {
      o.input.file = a;
    } else if (!a.empty() && a[0] != '-') {
      usageError("run takes one FILE (got '" + o.input.file + "' and '" + a + "')");
    } else {
      usageError("unknown option '" + a + "'");
    }
  }
  if (o.duration && o.steps) usageError("give either --duration or --steps, not both");
  if (!o.input.file.empty() && !o.input.scene.empty()) usageError("give either FILE or --scene, not both");
  if (o.input.file.empty() && o.input.scene.empty()) {
    if (!legacy) usageError("run needs a FILE (.articula, .urdf, .sdf or .world)");
    o.input.scene = "double-pendulum";
  }
  return o;
}

void removeCollisionShapes(World& world) {
  std::vector<Shape> shapes = world.getCollisionShapes(Frame::World());
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) {
      for (const Shape& s : link.getCollisionShapes()) shapes.push_back(s);
    }
  }
  for (const RigidBody& body : world.getRigidBodies()) {
    for (const Shape& s : body.getCollisionShapes()) shapes.push_back(s);
  }
  for (const Shape& s : shapes) world.remove(s);
}

// Applies --set, then re-assembles the closures with the set coordinates held.
void applyInitialPositions(World& world, const RunOptions& o) {
  if (o.sets.empty()) return;
  const StateColumns columns(world);
  VectorXd q = world.getPositions();
  ClosureProjectionOptions projection;
  for (const auto& [name, value] : o.sets) {
    const StateOwner* owner = nullptr;
    const int index = columns.resolvePosition(name, &owner);
    q[index] = value;
    if (owner->joint.empty()) {
      if (auto body = world.getRigidBody(owner->name)) projection.lockedRigidBodies.push_back(*body);
    } else if (auto mb = world.getMultibody(owner->multibody)) {
      if (auto joint = mb->getJoint(owner->joint)) projection.lockedJoints.push_back(*joint);
    }
  }
  world.setPositions(q);
  if (world.numLoopClosures() + world.numJointCouplers() == 0) return;
  const ClosureProjectionResult r = world.projectClosures(projection);
  if (!r.success) {
    char residual[32];
    std::snprintf(residual, sizeof residual, "%.3g", r.finalResidual);
    throw CliError(std::string("--set: the loop closures cannot be closed with the given positions held (residual ") +
                   residual + (r.message.empty() ? std::string() : "; " + r.message) + ")");
  }
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

class CsvWriter {
 public:
  CsvWriter(const std::string& path, const StateColumns& columns, const std::vector<LoopClosure>& closures)
      : m_closures(closures) {
    if (path.empty()) return;
    m_out.open(path, std::ios::binary | std::ios::trunc);
    if (!m_out) throw CliError("--csv: cannot write '" + path + "'");
    std::string header = "t";
    for (const auto& n : columns.positionNames()) header += "," + csvField("q:" + n);
    for (const auto& n : columns.velocityNames()) header += "," + csvField("v:" + n);
    for (const auto& c : closures) header += "," + csvField("residual:" + c.name());
    header += '\n';
    m_out << header;
  }
  bool enabled() const { return m_out.is_open(); }
  void row(double t, const VectorXd& q, const VectorXd& v) {
    if (!enabled()) return;
    m_line = formatNumber(t);
    for (Eigen::Index i = 0; i < q.size(); ++i) (m_line += ',') += formatNumber(q[i]);
    for (Eigen::Index i = 0; i < v.size(); ++i) (m_line += ',') += formatNumber(v[i]);
    for (const auto& c : m_closures) (m_line += ',') += formatNumber(c.computeResidual().norm);
    m_line += '\n';
    m_out << m_line;
  }
  void close(const std::string& path) {
    if (!enabled()) return;
    m_out.close();
    if (!m_out) throw CliError("--csv: error while writing '" + path + "'");
  }

 private:
  std::ofstream m_out;
  std::vector<LoopClosure> m_closures;
  std::string m_line;
};

double largestResidual(const std::vector<LoopClosure>& closures, const std::vector<JointCoupler>& couplers) {
  double r = 0.0;
  for (const auto& c : closures) r = std::max(r, c.computeResidual().norm);
  for (const auto& c : couplers) r = std::max(r, std::abs(c.computeResidual().residual));
  return r;
}

}  // namespace

int runCommand(const std::vector<std::string>& argv, bool legacy) {
  const RunOptions o = parseRun(argv, legacy);
  if (!o.record.empty()) throw CliError("--record: replay recording is not implemented yet");

  World world;
  const io::ImportReport report = loadInput(world, o.input, o.quiet);
  if (!o.quiet && hasFindings(report)) std::cerr << report.toText() << std::flush;

  WorldOptions wo = world.getOptions();
  if (o.dt) wo.timeStep = *o.dt;
  if (o.integrator) wo.integrator = *o.integrator;
  if (!o.solver.empty()) wo.solver.method = o.solver;
  if (o.gravity) wo.gravity = *o.gravity;
  world.setOptions(wo);
  if (o.noContacts) removeCollisionShapes(world);
  applyInitialPositions(world, o);
  try {
    world.enterSimulationMode();
  } catch (const Error& e) {
    throw CliError(std::string("the scene cannot be simulated: ") + e.what());
  }

  const long steps = o.steps ? *o.steps : std::lround((o.duration ? *o.duration : 5.0) / wo.timeStep);
  const StateColumns columns(world);
  const std::vector<LoopClosure> closures = world.getLoopClosures();
  const std::vector<JointCoupler> couplers = world.getJointCouplers();
  const bool constrained = !closures.empty() || !couplers.empty();

  VectorXd q = world.getPositions();
  VectorXd v = world.getVelocities();
  double t = world.getTime();
  if (!q.allFinite() || !v.allFinite()) throw CliError("the initial state is not finite");
  CsvWriter csv(o.csv, columns, closures);
  csv.row(t, q, v);
  double maxResidual = constrained ? largestResidual(closures, couplers) : 0.0;

  ProgressBar progress(!o.quiet && isatty(STDERR_FILENO) != 0, steps);
  StepTimings timings;
  long good = 0;
  long written = 0;
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
    timings += world.getLastStepTimings();
    if (constrained) maxResidual = std::max(maxResidual, largestResidual(closures, couplers));
    if (k % o.every == 0) {
      csv.row(t, q, v);
      written = k;
    }
    progress.update(k, t);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish(good, t);

  const bool diverged = !failure.empty();
  if (diverged && csv.enabled() && written != good) {
    try {
      world.setPositions(q);
      world.setVelocities(v);
    } catch (const std::exception&) {
    }
    csv.row(t, q, v);
  }
  csv.close(o.csv);

  if (!o.quiet) {
    std::vector<std::string> warnings = world.getWarnings();
    std::vector<std::string> shown;
    for (const auto& w : warnings) {
      const bool repeatsFailure = diverged && w.find(failure) != std::string::npos;
      if (!repeatsFailure && std::find(shown.begin(), shown.end(), w) == shown.end()) shown.push_back(w);
    }
    for (const auto& w : shown) std::cerr << "articula-run: warning: " << w << "\n";
  }
  if (diverged) {
    std::cerr << "articula-run: the simulation diverged at step " << good + 1 << ": " << failure
              << "\narticula-run: stopped; the last good frame is step " << good << " (t = " << formatNumber(t) << " s)"
              << (csv.enabled() ? ", the last row of " + o.csv : std::string()) << "; try a smaller --dt\n"
              << std::flush;
  }

  std::printf("steps=%ld sim_time=%.9g wall_time=%.6g us_per_step=%.6g rtf=%.6g", good, t, wall,
              good > 0 ? 1e6 * wall / static_cast<double>(good) : 0.0, wall > 0.0 ? t / wall : 0.0);
  const double perStep = good > 0 ? 1e6 / static_cast<double>(good) : 0.0;
  std::printf(
      " engine_us_per_step=%.6g kinematics_us=%.4g collision_us=%.4g dynamics_us=%.4g solve_us=%.4g "
      "integration_us=%.4g projection_us=%.4g",
      timings.total * perStep, timings.kinematics * perStep, timings.collision * perStep, timings.dynamics * perStep,
      timings.solve * perStep, timings.integration * perStep, timings.projection * perStep);
  if (constrained) std::printf(" max_residual=%.3g", maxResidual);
  if (diverged) std::printf(" diverged=1 last_good_step=%ld", good);
  std::printf("\n");
  std::fflush(stdout);
  return diverged ? kExitDiverged : kExitOk;
}

int exportCommand(const std::vector<std::string>& argv) {
  InputOptions input;
  bool quiet = false;
  std::vector<std::string> positional;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--quiet" || a == "-q") {
      args.noValue();
      quiet = true;
    } else if (parseInputOption(args, a, input)) {
    } else if (!a.empty() && a[0] != '-') {
      positional.push_back(a);
    } else {
      usageError("unknown option '" + a + "' for export");
    }
  }
  if (positional.size() != 2) usageError("export needs IN (a file or a built-in scene) and OUT.articula");
  if (looksLikeFile(positional[0])) {
    input.file = positional[0];
  } else {
    input.scene = positional[0];
  }
  World world;
  const io::ImportReport report = loadInput(world, input, quiet);
  if (!quiet && hasFindings(report)) std::cerr << report.toText() << std::flush;
  io::saveScene(world, positional[1]);
  std::printf("wrote %s\n", positional[1].c_str());
  return kExitOk;
}

int listCommand(const std::vector<std::string>& argv) {
  if (!argv.empty()) usageError("list takes no arguments");
  for (const auto& s : scenes::builtinScenes()) std::printf("  %-16s %s\n", s.name.c_str(), s.description.c_str());
  return kExitOk;
}

}  // namespace articula::run

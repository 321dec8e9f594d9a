// articula-run: headless simulation runner.
//
//   articula-run [run] [FILE.articula] [--scene NAME] [--duration S | --steps N] [--dt H]
//                [--integrator semi-implicit-euler|rk4] [--solver METHOD] [--csv FILE] [--every K]
//   articula-run export SCENE|FILE.articula OUT.articula
//   articula-run list
#include "builtin_scenes.hpp"

#include <articula/io/scene_file.hpp>

#include <articula/articula.hpp>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

struct RunOptions {
  std::string scene = "double-pendulum";
  std::string file;  // a .articula scene (instead of --scene)
  std::optional<double> duration;
  std::optional<long> steps;
  std::optional<double> dt;
  std::optional<articula::Integrator> integrator;
  std::string solver;  // empty: the scene's
  std::string csv;
  long every = 1;
};

void printUsage(std::ostream& os) {
  os << "usage: articula-run [run] [FILE.articula] [options]\n"
        "       articula-run export SCENE|FILE.articula OUT.articula\n"
        "       articula-run list\n\n"
        "Runs a scene (a built-in one, or a .articula file) headless and prints a summary;\n"
        "export writes a built-in scene (or a re-saved scene file) in the native format.\n\n"
        "options:\n"
        "  --scene NAME         scene to run (default double-pendulum; see 'articula-run list')\n"
        "  --duration SECONDS   simulated time (default 5)\n"
        "  --steps N            number of steps (instead of --duration)\n"
        "  --dt SECONDS         time step (default: the scene's, 0.001)\n"
        "  --integrator NAME    semi-implicit-euler | rk4\n"
        "  --solver METHOD      constraint solver: projected-gauss-seidel (default) | direct-pivoting\n"
        "  --csv FILE           write time, q and v per recorded step (columns named by the state space)\n"
        "  --every K            record every K-th step in the CSV (default 1)\n"
        "  -h, --help           this text\n";
}

[[noreturn]] void usageError(const std::string& msg) {
  std::cerr << "articula-run: " << msg << "\n\n";
  printUsage(std::cerr);
  std::exit(2);
}

double parseDouble(const std::string& opt, const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v)) usageError(opt + " expects a number, got '" + s + "'");
  return v;
}

long parseLong(const std::string& opt, const std::string& s) {
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0') usageError(opt + " expects an integer, got '" + s + "'");
  return v;
}

RunOptions parseRun(const std::vector<std::string>& args) {
  RunOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) usageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--scene") {
      o.scene = value();
    } else if (a == "--duration") {
      o.duration = parseDouble(a, value());
      if (*o.duration <= 0.0) usageError("--duration must be positive");
    } else if (a == "--steps") {
      o.steps = parseLong(a, value());
      if (*o.steps < 0) usageError("--steps must be ≥ 0");
    } else if (a == "--dt") {
      o.dt = parseDouble(a, value());
      if (*o.dt <= 0.0) usageError("--dt must be positive");
    } else if (a == "--integrator") {
      const std::string n = value();
      if (n == "semi-implicit-euler" || n == "sie") {
        o.integrator = articula::Integrator::SemiImplicitEuler;
      } else if (n == "rk4" || n == "runge-kutta-4") {
        o.integrator = articula::Integrator::RungeKutta4;
      } else {
        usageError("unknown integrator '" + n + "' (semi-implicit-euler or rk4)");
      }
    } else if (a == "--solver") {
      o.solver = value();
      if (o.solver != "projected-gauss-seidel" && o.solver != "direct-pivoting") {
        usageError("unknown solver '" + o.solver + "' (projected-gauss-seidel or direct-pivoting)");
      }
    } else if (a == "--csv") {
      o.csv = value();
    } else if (a == "--every") {
      o.every = parseLong(a, value());
      if (o.every < 1) usageError("--every must be ≥ 1");
    } else if (!a.empty() && a[0] != '-' && o.file.empty()) {
      o.file = a;
    } else {
      usageError("unknown option '" + a + "'");
    }
  }
  if (o.duration && o.steps) usageError("give either --duration or --steps, not both");
  return o;
}

std::string counted(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string integratorName(articula::Integrator i) {
  return i == articula::Integrator::RungeKutta4 ? "RK4" : "semi-implicit Euler";
}

int run(const RunOptions& o) {
  using namespace articula;
  World world;
  if (o.file.empty()) {
    scenes::buildScene(world, o.scene);
  } else {
    io::loadScene(world, o.file);
  }
  WorldOptions wo = world.getOptions();
  if (o.dt) wo.timeStep = *o.dt;
  if (o.integrator) wo.integrator = *o.integrator;
  if (!o.solver.empty()) wo.solver.method = o.solver;
  world.setOptions(wo);
  world.enterSimulationMode();

  const long steps = o.steps ? *o.steps : std::lround((o.duration ? *o.duration : 5.0) / wo.timeStep);
  const StateSpace space = world.getStateSpace();

  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) {
      std::cerr << "articula-run: cannot write '" << o.csv << "'\n";
      return 1;
    }
    csv.precision(17);
    csv << "time";
    for (const auto& n : space.positionNames()) csv << ',' << n;
    for (const auto& n : space.velocityNames()) csv << ',' << n;
    csv << '\n';
  }
  auto writeRow = [&]() {
    if (!csv.is_open()) return;
    csv << world.getTime();
    const VectorXd q = world.getPositions();
    const VectorXd v = world.getVelocities();
    for (Eigen::Index i = 0; i < q.size(); ++i) csv << ',' << q[i];
    for (Eigen::Index i = 0; i < v.size(); ++i) csv << ',' << v[i];
    csv << '\n';
  };

  const double e0 = world.computeKineticEnergy() + world.computePotentialEnergy();
  writeRow();
  StepTimings sum;
  long contactSum = 0;
  int maxContacts = 0;
  const bool showProgress = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  auto lastReport = start;
  const auto closures = world.getLoopClosures();
  const auto couplers = world.getJointCouplers();
  double maxClosureResidual = 0.0;
  for (long k = 1; k <= steps; ++k) {
    world.step();
    sum += world.getLastStepTimings();
    for (const auto& c : closures) maxClosureResidual = std::max(maxClosureResidual, c.computeResidual().norm);
    for (const auto& c : couplers)
      maxClosureResidual = std::max(maxClosureResidual, std::abs(c.computeResidual().residual));
    if (k % o.every == 0) writeRow();
    contactSum += world.getStepDiagnostics().numContacts;
    maxContacts = std::max(maxContacts, world.getStepDiagnostics().numContacts);
    if (!world.getPositions().allFinite()) {
      std::cerr << "articula-run: the state became non-finite at step " << k << " (t = " << world.getTime()
                << " s); try a smaller --dt\n";
      return 1;
    }
    if (showProgress && (k & 1023) == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - lastReport > std::chrono::milliseconds(500)) {
        std::fprintf(stderr, "\r  %5.1f %%", 100.0 * static_cast<double>(k) / static_cast<double>(steps));
        lastReport = now;
      }
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (showProgress) std::fprintf(stderr, "\r          \r");
  const double e1 = world.computeKineticEnergy() + world.computePotentialEnergy();

  std::printf("Articula headless run\n");
  std::printf("  scene          %s\n", o.file.empty() ? o.scene.c_str() : o.file.c_str());
  std::printf("  objects        %s, %s, %d DoF (%d position coordinates)\n",
              counted(world.numMultibodies(), "multibody", "multibodies").c_str(),
              counted(world.numRigidBodies(), "rigid body", "rigid bodies").c_str(), world.numDofs(),
              world.numPositions());
  std::printf("  integrator     %s, dt = %g s\n", integratorName(wo.integrator).c_str(), wo.timeStep);
  std::printf("  steps          %ld (simulated %.4f s)\n", steps, world.getTime());
  std::printf("  wall time      %.4f s (real-time factor %.1f)\n", wall, wall > 0.0 ? world.getTime() / wall : 0.0);
  if (steps > 0) {
    const double us = 1e6 / static_cast<double>(steps);
    std::printf(
        "  per step       %.2f us (kinematics %.2f, collision %.2f, dynamics %.2f, solve %.2f, integration %.2f, "
        "projection %.2f)\n",
        sum.total * us, sum.kinematics * us, sum.collision * us, sum.dynamics * us, sum.solve * us,
        sum.integration * us, sum.projection * us);
    if (maxContacts > 0) {
      std::printf("  contacts       %.1f per step on average, %d at most (%s)\n",
                  static_cast<double>(contactSum) / static_cast<double>(steps), maxContacts, wo.solver.method.c_str());
    }
  }
  if (!closures.empty() || !couplers.empty()) {
    std::printf("  closures       %s, %s; largest residual during the run %.3g\n",
                counted(closures.size(), "loop closure", "loop closures").c_str(),
                counted(couplers.size(), "joint coupler", "joint couplers").c_str(), maxClosureResidual);
  }
  const auto warnings = world.getWarnings();
  if (!warnings.empty()) {
    std::printf("  warnings       %zu (last: %s)\n", warnings.size(), warnings.back().c_str());
  }
  std::printf("  energy         %.9g J -> %.9g J (change %.3g J)\n", e0, e1, e1 - e0);
  const VectorXd q = world.getPositions();
  std::printf("  final q        ");
  for (Eigen::Index i = 0; i < std::min<Eigen::Index>(q.size(), 8); ++i) std::printf("%s%.6f", i ? ", " : "", q[i]);
  std::printf("%s\n", q.size() > 8 ? ", ..." : "");
  if (csv.is_open()) std::printf("  csv            %s\n", o.csv.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const auto& a : args) {
    if (a == "-h" || a == "--help") {
      printUsage(std::cout);
      return 0;
    }
  }
  if (!args.empty() && args[0] == "list") {
    for (const auto& s : articula::scenes::builtinScenes())
      std::printf("  %-16s %s\n", s.name.c_str(), s.description.c_str());
    return 0;
  }
  try {
    if (!args.empty() && args[0] == "export") {
      if (args.size() != 3) usageError("export needs SCENE|FILE.articula and OUT.articula");
      articula::World world;
      const std::string& in = args[1];
      if (in.size() > 9 && in.substr(in.size() - 9) == ".articula") {
        articula::io::loadScene(world, in);
      } else {
        articula::scenes::buildScene(world, in);
      }
      articula::io::saveScene(world, args[2]);
      std::printf("wrote %s\n", args[2].c_str());
      return 0;
    }
    if (!args.empty() && args[0] == "run") args.erase(args.begin());
    return run(parseRun(args));
  } catch (const articula::io::ImportError& e) {
    std::cerr << "articula-run: " << e.what() << "\n";
    return 2;
  } catch (const articula::Error& e) {
    std::cerr << "articula-run: " << e.what() << "\n";
    return 1;
  }
}

// What actuators cost per step: TALOS (fixed base, from its URDF) with the
// 32 gravity-compensated position servos its <transmission>s declare,
// against the same robot without them.
//
//   articula-bench-actuators [STEPS]   (default 20000 steps, best of 9 interleaved runs)
//
// Both runs leave out collision shapes and joint limits, and both robots
// stay where they start: the servoed one holds its pose under gravity, the
// one without actuators has no gravity. The difference is then the
// actuators' own cost (servo forces, their implicit terms and the
// per-step gravity pass), not contacts, limit rows or divergence checks
// that a robot falling limp would add.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include "talos_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>

using namespace articula;
using articula::bench::microsecondsPerStep;
using articula::bench::removeShapesAndLimits;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const long steps = argc > 1 ? std::atol(argv[1]) : 20000;
  const fs::path talos = bench::talosFile();
  const io::ImportOptions options = bench::talosOptions();
  World driven;
  World plain;  // the servos without gravity compensation
  World limp;
  try {
    io::importUrdf(driven, talos, options);
    io::importUrdf(limp, talos, options);
    io::importUrdf(plain, talos, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula-bench-actuators: %s\n", e.what());
    return 2;
  }
  for (const Actuator& a : limp.getActuators()) limp.remove(a);
  limp.setGravity(Vector3d::Zero());
  for (Actuator a : plain.getActuators()) {
    ActuatorSpec spec = a.getSpec();
    spec.gravityCompensation = false;
    a.setSpec(spec);
  }
  removeShapesAndLimits(plain);
  removeShapesAndLimits(driven);
  removeShapesAndLimits(limp);
  // Runs interleaved, best of 9 each: slow phases of the machine hit all three alike.
  double withServos = std::numeric_limits<double>::infinity();
  double without = withServos;
  double plainServos = withServos;
  for (int r = 0; r < 9; ++r) {
    without = std::min(without, microsecondsPerStep(limp, steps));
    withServos = std::min(withServos, microsecondsPerStep(driven, steps));
    plainServos = std::min(plainServos, microsecondsPerStep(plain, steps));
  }
  if (std::getenv("ARTICULA_BENCH_STAGES") != nullptr) {
    for (World* w : {&driven, &limp, &plain}) {
      const StepTimings& t = w->getLastStepTimings();
      std::fprintf(
          stderr, "stages (us): kinematics %.2f dynamics %.2f solve %.2f integration %.2f projection %.2f total %.2f\n",
          1e6 * t.kinematics, 1e6 * t.dynamics, 1e6 * t.solve, 1e6 * t.integration, 1e6 * t.projection, 1e6 * t.total);
    }
  }
  for (World* w : {&driven, &limp, &plain}) {
    if (!w->getWarnings().empty()) std::fprintf(stderr, "warning: %s\n", w->getWarnings().back().c_str());
  }
  std::printf("TALOS, fixed base, %d DoF, %zu position servos, no contacts or limits, %ld steps (best of 9)\n",
              driven.numDofs(), driven.numActuators(), steps);
  std::printf("  without actuators   %8.2f us/step\n", without);
  std::printf("  with the servos     %8.2f us/step\n", withServos);
  std::printf("  extra cost          %+7.1f %%\n", 100.0 * (withServos / without - 1.0));
  std::printf("  servos without gravity compensation %8.2f us/step (%+.1f %%; the robot sags)\n", plainServos,
              100.0 * (plainServos / without - 1.0));
  return 0;
}

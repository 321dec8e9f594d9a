// What actuators cost per step: TALOS (fixed base, from its URDF) with the
// 32 gravity-compensated position servos its <transmission>s declare,
// against the same robot without them.
//
//   articula-bench-actuators [STEPS]   (default 4000 steps, best of 5 runs)
//
// Both runs leave out collision shapes and joint limits, and both robots
// stay where they start: the servoed one holds its pose under gravity, the
// one without actuators has no gravity. The difference is then the
// actuators' own cost (servo forces, their implicit terms and the
// per-step gravity pass), not contacts, limit rows or divergence checks
// that a robot falling limp would add.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

void removeShapesAndLimits(World& world) {
  WorldSpec spec = world.getSpec();
  spec.shapes.erase(
      std::remove_if(spec.shapes.begin(), spec.shapes.end(), [](const ShapeSpec& s) { return s.collision; }),
      spec.shapes.end());
  for (MultibodySpec& mb : spec.multibodies) {
    for (LinkSpec& l : mb.links) {
      l.joint.positionLowerLimits.setConstant(-std::numeric_limits<double>::infinity());
      l.joint.positionUpperLimits.setConstant(std::numeric_limits<double>::infinity());
    }
  }
  world.applySpec(spec);
}

// Best µs per step over `repeats` runs of `steps` steps from the initial state.
double microsecondsPerStep(World& world, long steps, int repeats) {
  world.enterSimulationMode();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    world.reset();
    const auto t0 = std::chrono::steady_clock::now();
    world.step(static_cast<std::size_t>(steps));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, 1e6 * s / static_cast<double>(steps));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const long steps = argc > 1 ? std::atol(argv[1]) : 4000;
  const fs::path models = ARTICULA_MODELS_DIR;
  const fs::path talos = models / "example-robot-data" / "robots" / "talos_data" / "robots" / "talos_reduced.urdf";
  io::ImportOptions options;
  options.packagePath.push_back(models);
  options.useEnvironmentPaths = false;
  options.root = io::RootAttachment::Fixed;
  World driven;
  World limp;
  try {
    io::importUrdf(driven, talos, options);
    io::importUrdf(limp, talos, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula-bench-actuators: %s\n", e.what());
    return 2;
  }
  for (const Actuator& a : limp.getActuators()) limp.remove(a);
  limp.setGravity(Vector3d::Zero());
  removeShapesAndLimits(driven);
  removeShapesAndLimits(limp);
  const double withServos = microsecondsPerStep(driven, steps, 5);
  const double without = microsecondsPerStep(limp, steps, 5);
  for (World* w : {&driven, &limp}) {
    if (!w->getWarnings().empty()) std::fprintf(stderr, "warning: %s\n", w->getWarnings().back().c_str());
  }
  std::printf("TALOS, fixed base, %d DoF, %zu position servos, no contacts or limits, %ld steps (best of 5)\n",
              driven.numDofs(), driven.numActuators(), steps);
  std::printf("  without actuators   %8.2f us/step\n", without);
  std::printf("  with the servos     %8.2f us/step\n", withServos);
  std::printf("  extra cost          %+7.1f %%\n", 100.0 * (withServos / without - 1.0));
  return 0;
}

#pragma once
// What the TALOS cost benchmarks share (bench_actuators.cpp,
// bench_sensors.cpp): the robot without collision shapes and limits, and a
// timed run from its initial state.

#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>

namespace articula::bench {

/// Removes the collision shapes and the joint limits: what is left is the
/// cost under study, not contacts or limit rows.
inline void removeShapesAndLimits(World& world) {
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

/// talos_reduced.urdf of the shared models, and the options that import it
/// with a fixed base.
inline std::filesystem::path talosFile() {
  return std::filesystem::path(ARTICULA_MODELS_DIR) / "example-robot-data" / "robots" / "talos_data" / "robots" /
         "talos_reduced.urdf";
}
inline io::ImportOptions talosOptions() {
  io::ImportOptions options;
  options.packagePath.push_back(ARTICULA_MODELS_DIR);
  options.useEnvironmentPaths = false;
  options.root = io::RootAttachment::Fixed;
  return options;
}

/// µs per step of one run of `steps` steps from the initial state.
inline double microsecondsPerStep(World& world, long steps) {
  if (!world.isSimulationMode()) world.enterSimulationMode();
  world.reset();
  const auto t0 = std::chrono::steady_clock::now();
  world.step(static_cast<std::size_t>(steps));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return 1e6 * s / static_cast<double>(steps);
}

}  // namespace articula::bench

#pragma once
// Frames by link name and random in-limit configurations of imported
// robots (inverse-kinematics tests and benchmarks).

#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

namespace articula::test {

// Import options for the robots of ARTICULA_MODELS_DIR: its package path
// only, no meshes (kinematics is all these tests read).
inline io::ImportOptions robotImportOptions(io::RootAttachment root) {
  io::ImportOptions o;
  o.packagePath.push_back(ARTICULA_MODELS_DIR);
  o.useEnvironmentPaths = false;
  o.root = root;
  o.loadMeshes = false;
  return o;
}

// The link named `name` in any multibody, else the user frame of that name.
// @throws std::runtime_error when there is none.
inline Frame frameNamed(const World& world, const std::string& name) {
  for (const Multibody& mb : world.getMultibodies())
    if (auto l = mb.getLink(name)) return *l;
  if (auto f = world.getFrame(name)) return *f;
  throw std::runtime_error("no frame named " + name);
}

// A uniformly random in-limit configuration (unlimited revolute: [−π, π]);
// ball and free joints keep their coordinates.
inline VectorXd randomConfiguration(const World& world, std::mt19937_64& rng) {
  VectorXd q = world.getPositions();
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Joint& j : mb.getJoints()) {
      if (j.numDofs() != j.numPositions()) continue;
      const JointSpec s = j.getSpec();
      for (int k = 0; k < j.numDofs(); ++k) {
        double lo = s.positionLowerLimits.size() > k ? s.positionLowerLimits[k] : -std::numbers::pi;
        double hi = s.positionUpperLimits.size() > k ? s.positionUpperLimits[k] : std::numbers::pi;
        if (!std::isfinite(lo)) lo = -std::numbers::pi;
        if (!std::isfinite(hi)) hi = std::numbers::pi;
        q[j.positionOffset() + k] = lo + (hi - lo) * u(rng);
      }
    }
  }
  return q;
}

}  // namespace articula::test

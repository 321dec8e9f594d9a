#pragma once
// Scenes built in code, shared by articula-run, the tests and the benchmarks.

#include <articula/world.hpp>

#include <string>
#include <vector>

namespace articula::scenes {

struct SceneInfo {
  std::string name;
  std::string description;
};

/// Names and one-line descriptions of the built-in scenes.
std::vector<SceneInfo> builtinScenes();

/// Populates `world` (which must be empty) with the scene `name`.
/// "chain-N" builds a serial chain of N revolute links.
/// @throws InvalidArgument for an unknown name.
void buildScene(World& world, const std::string& name);

/// A serial chain of `n` revolute links (0.1 m apart, 1 kg, axis y,
/// alternating with axis x every third link), fixed base.
Multibody buildRevoluteChain(World& world, const std::string& name, int n);

/// A crank-rocker four-bar in the x-z plane (joint axes along y) with its
/// ground pivot at `origin`: crank 0.1 m, coupler 0.35 m, rocker 0.3 m,
/// ground 0.4 m, built as the chain crank → coupler → rocker and closed by
/// a Hinge loop closure "<name>_pin" from the rocker tip to the world;
/// assembled with the crank at −1 rad.
Multibody buildFourBar(World& world, const std::string& name, const Vector3d& origin);

}  // namespace articula::scenes

// The benchmark scenes, built as engine-neutral descriptions.
#pragma once

#include "peer.hpp"

#include <string>
#include <vector>

namespace bench {

/// A fixed-base chain of `links` revolute links: 1 kg boxes 0.1 m apart,
/// axes alternating y, y, x, no gravity-free tricks. Contact-free.
Scene makeSerialChain(int links);

/// A robot read from a URDF file with its root welded to the world. Links
/// attached by fixed joints are merged into their parent (masses and
/// inertias added), and so are prismatic joints (grippers' fingers, which
/// without their limits would slide off); limits are ignored. Contact-free.
Scene makeFixedBaseRobot(const std::string& name, const std::string& urdfPath);

/// `count` 0.2 m, 1 kg boxes stacked on the ground, touching.
Scene makeBoxStack(int count);

/// Two 0.2 m boxes stacked on the ground, touching: a 1 kg box at the
/// bottom carrying one `ratio` times heavier (kg), each with a solid box's
/// inertia for its mass. Named "mass-ratio-<ratio>".
/// @throws std::invalid_argument unless ratio > 0.
Scene makeMassRatioStack(double ratio);

/// `count` 0.2 m, 1 kg boxes released from a lattice 10 wide with random
/// orientations above the ground.
Scene makeBoxPile(int count);

/// A quadruped read from a URDF (Solo-12) with a free-floating trunk,
/// spheres on its feet, standing on the ground under joint-space PD.
Scene makeQuadruped(const std::string& urdfPath);

/// `count` planar four-bar linkages (crank 0.1 m, coupler 0.35 m, rocker
/// 0.3 m, ground 0.4 m) side by side, each a 3-link chain whose rocker tip
/// is pinned to the world by a Closure, assembled at a crank angle of 1 rad.
Scene makeFourBars(int count);

/// The directory holding example-robot-data: the environment variable
/// ARTICULA_MODELS_DIR if set, else the CMake cache variable of that name.
std::string modelsDirectory();

}  // namespace bench

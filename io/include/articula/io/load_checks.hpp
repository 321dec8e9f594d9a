#pragma once
/// @file
/// Checks of a loaded world for states that no time step can repair, so
/// that they are reported when the file is loaded rather than as a
/// divergence at the first step.

#include <articula/world.hpp>

#include <string>
#include <vector>

namespace articula::io {

/// A moving link that the dynamics cannot accelerate.
struct ImmovableLink {
  std::string multibody;  ///< its multibody
  std::string link;       ///< the link (full name)
  std::string joint;      ///< its parent joint (full name)
  std::string problem;    ///< the whole message
};

/// Links whose parent joint has a degree of freedom with no inertia behind
/// it: the joint-space mass matrix (the link, everything it carries, and the
/// joint's armature) has a zero diagonal entry for that degree of freedom,
/// so forward dynamics divides by zero at the first step. Evaluated at the
/// world's current configuration.
std::vector<ImmovableLink> findImmovableLinks(const World& world);

}  // namespace articula::io

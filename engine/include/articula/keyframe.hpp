#pragma once
/// @file
/// Keyframes: named poses stored with a World (and in its WorldSpec and
/// scene files). A keyframe holds every position coordinate (q, as
/// World::getPositions packs them), optionally the velocities and the
/// controls, and a time that orders keyframes into a motion: a sequence of
/// keyframes becomes one position schedule per position actuator
/// (World::makeKeyframeSchedules), so a motion posed by hand runs headless.
///
/// A keyframe is tied to the coordinate layout it was captured with: after
/// an edit that changes the number of coordinates, applying it is refused
/// (with both counts in the message) rather than guessed.

#include <articula/types.hpp>

#include <string>

namespace articula {

struct KeyframeSpec {
  std::string name;   ///< unique among keyframes, not empty, no '/'
  double time = 0.0;  ///< s: its place in a motion (finite, ≥ 0)
  VectorXd q;         ///< positions (World::numPositions())
  VectorXd v;         ///< velocities (World::numDofs()), or empty: zero when applied
  VectorXd controls;  ///< controls (World::numActuators()), or empty: unchanged when applied
};

}  // namespace articula

#pragma once
/// @file
/// Viewpoints: named camera positions saved with a World (and in its
/// WorldSpec and scene files), so that a scene opens, renders and records
/// videos from the views its author chose. The engine keeps them for
/// editors, file writers and renderers and never uses them itself: they
/// take no part in simulation, in the layout fingerprint or in replays.

#include <articula/types.hpp>

#include <string>

namespace articula {

struct ViewpointSpec {
  std::string name;                        ///< unique among viewpoints, not empty; no '/', ':', ',' or white space
  Vector3d eye = Vector3d(3.5, 3.5, 2.5);  ///< where the camera is (m, world)
  Vector3d center = Vector3d::Zero();      ///< what it looks at (m, world), ≠ eye
  double fovYDegrees = 45.0;               ///< vertical field of view (degrees), in [1, 170]

  friend bool operator==(const ViewpointSpec& a, const ViewpointSpec& b) {
    return a.name == b.name && a.eye == b.eye && a.center == b.center && a.fovYDegrees == b.fovYDegrees;
  }
};

}  // namespace articula

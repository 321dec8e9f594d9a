#pragma once
/// @file
/// Kinematic collision queries (World::checkCollisions, computeDistance,
/// raycast): answered at the current configuration, in either mode,
/// without stepping and without changing what the next step does.

#include <articula/frame.hpp>
#include <articula/shape.hpp>
#include <articula/types.hpp>

namespace articula {

/// Signed distance between two shapes or two bodies (World::computeDistance).
struct DistanceResult {
  /// > 0: the gap between the surfaces; < 0: the penetration depth (m).
  double distance = 0.0;
  Vector3d pointA = Vector3d::Zero();   ///< witness point on A's surface, world coordinates (m)
  Vector3d pointB = Vector3d::Zero();   ///< witness point on B's surface, world coordinates (m)
  Vector3d normal = Vector3d::UnitZ();  ///< unit, world coordinates, from B towards A
  Shape shapeA;                         ///< the shapes the witness points lie on
  Shape shapeB;
};

/// A ray's hit on a collision shape (World::raycast).
struct RaycastHit {
  Shape shape;
  Frame body;                           ///< the shape's owner: link, rigid body or the world frame
  Vector3d point = Vector3d::Zero();    ///< world coordinates (m)
  Vector3d normal = Vector3d::UnitZ();  ///< outward surface normal at the hit, world coordinates
  double distance = 0.0;                ///< along the ray from its origin (m)
};

}  // namespace articula

#pragma once
/// @file
/// Mark-and-sweep reconciliation of what the viewer has drawn with a new
/// scene description: which shapes to add, remove, rebuild (geometry or
/// colour changed) or only re-place (local pose or body changed), and which
/// to leave untouched. A plain function, testable without OpenGL.

#include <articula/viewer/scene_description.hpp>

#include <cstddef>
#include <vector>

namespace articula::viewer {

/// What the viewer keeps about a shape it has drawn.
struct DrawnShape {
  ObjectId id = 0;
  std::uint64_t contentHash = 0;
  ObjectId body = kWorldBodyId;  ///< id of the body it moves with
  Isometry3d localPose = Isometry3d::Identity();
  bool collision = false;
};

struct ReconcilePlan {
  std::vector<std::size_t> added;      ///< indices into the description's shapes: new ids
  std::vector<std::size_t> rebuilt;    ///< known ids whose geometry, colour or kind changed
  std::vector<std::size_t> moved;      ///< known ids with the same drawable but another local pose or body
  std::vector<std::size_t> unchanged;  ///< known ids, nothing changed
  std::vector<ObjectId> removed;       ///< drawn ids the description no longer has, in drawn order

  /// Whether applying the plan changes anything.
  bool empty() const { return added.empty() && rebuilt.empty() && moved.empty() && removed.empty(); }
};

/// Compares `drawn` with `desired` by id. Every description shape lands in
/// exactly one of added, rebuilt, moved, unchanged (in description order);
/// every drawn id absent from the description is in removed. Duplicate ids
/// in the description are an error (InvalidArgument).
ReconcilePlan reconcile(const std::vector<DrawnShape>& drawn, const SceneDescription& desired);

/// The DrawnShape a description shape becomes once applied.
DrawnShape drawnShapeOf(const SceneDescription& description, std::size_t shapeIndex);

}  // namespace articula::viewer

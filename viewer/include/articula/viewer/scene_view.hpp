#pragma once
/// @file
/// SceneView: the OpenSceneGraph scene of a SceneDescription, placed by
/// RenderSnapshots. Shapes are built once and kept across design changes
/// by mark-and-sweep reconciliation (reconcile.hpp); debug layers are
/// redrawn from each snapshot. OpenSceneGraph stays out of this header.
///
/// Threads: one thread (the viewer's) uses a SceneView; it reads only the
/// description and snapshots it is given, never a World.

#include <articula/viewer/camera.hpp>
#include <articula/viewer/debug_layers.hpp>
#include <articula/viewer/gizmo.hpp>
#include <articula/viewer/reconcile.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>

#include <Eigen/Geometry>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace osg {
class Node;
}

namespace articula::viewer {

/// What a ray or a screen point hits.
struct PickResult {
  ObjectId shape = 0;            ///< the shape hit (0 for none)
  ObjectId body = kWorldBodyId;  ///< the body it moves with (kWorldBodyId for static shapes)
  std::string shapeName;
  std::string bodyName;                 ///< "multibody/link", a rigid body's name, or "world"
  Vector3d point = Vector3d::Zero();    ///< world (m)
  Vector3d normal = Vector3d::UnitZ();  ///< world, unit
  double distance = 0.0;                ///< along the ray (m)
  bool collision = false;               ///< a collision shape (the visual layer was hidden)
};

class SceneView {
 public:
  SceneView();
  ~SceneView();
  SceneView(const SceneView&) = delete;
  SceneView& operator=(const SceneView&) = delete;

  /// Makes the scene show `description`: shapes whose id is new are built,
  /// removed ones dropped, changed ones rebuilt, moved ones re-placed, the
  /// rest untouched. Returns what was done.
  const ReconcilePlan& setDescription(std::shared_ptr<const SceneDescription> description);
  std::shared_ptr<const SceneDescription> description() const;
  /// Places shapes and redraws the debug layers from a snapshot of the
  /// current description (a snapshot of another description version is
  /// ignored; returns false).
  bool applySnapshot(const RenderSnapshot& snapshot);
  /// The snapshot last applied (version 0 before any).
  const RenderSnapshot& appliedSnapshot() const;

  void setLayerVisible(Layer layer, bool visible);
  bool isLayerVisible(Layer layer) const;
  std::uint32_t layers() const;
  void setLayers(std::uint32_t mask);

  /// Bodies drawn highlighted (Selection layer).
  void setSelection(const std::vector<ObjectId>& bodies);
  const std::vector<ObjectId>& selection() const;
  /// Bodies drawn outlined in red (an interference check's colliding
  /// bodies), with the selection layer.
  void setInterference(const std::vector<ObjectId>& bodies);
  const std::vector<ObjectId>& interference() const;

  /// Length of a contact force arrow per newton (m/N); 0 (default):
  /// automatic, the largest force of each snapshot drawn 3 axis lengths long.
  void setContactForceScale(double metresPerNewton);
  /// Length of link-frame axes and joint axes (m); 0 (default): 5 % of the scene's size.
  void setAxisLength(double metres);
  void setBackground(const Vector4d& rgba);
  Vector4d background() const;

  /// Bounds of the shapes at the applied poses (planes excluded; their
  /// height is included). Empty when there is nothing to bound.
  Eigen::AlignedBox3d bounds() const;

  /// The nearest visible shape hit by `ray` (collision shapes when the
  /// collision layer is shown and visuals are hidden, or when no visual
  /// shape is hit), ignoring debug drawings and the gizmo.
  std::optional<PickResult> pick(const Ray& ray) const;

  /// The transform gizmo, drawn at its pose when shown.
  Gizmo& gizmo();
  void setGizmoVisible(bool visible);
  bool isGizmoVisible() const;
  /// Re-reads the gizmo's pose, size, mode and highlight into the scene.
  void updateGizmo();

  /// Number of shape drawables built since construction (a reconciliation
  /// that keeps a shape does not build it again).
  std::uint64_t shapesBuilt() const;
  /// Shapes currently in the scene.
  std::size_t shapeCount() const;

  /// The scene graph's root, for a Viewport.
  osg::Node* root() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace articula::viewer

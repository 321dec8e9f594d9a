#pragma once
/// @file
/// A transform gizmo: three axis handles at an object's pose that turn mouse
/// rays into desired poses of the object. Plain math, independent of any
/// rendering library; the viewer draws it (red x, green y, blue z) and feeds
/// it the rays under the cursor (see OrbitCamera::rayThrough()).
///
/// The gizmo never moves anything itself: a drag reports the desired pose to
/// a callback, and whoever owns the world applies it (and then usually calls
/// setPose() with the pose the object really took).

#include <articula/types.hpp>
#include <articula/viewer/camera.hpp>

#include <functional>
#include <optional>
#include <utility>

namespace articula::viewer {

enum class GizmoMode {
  Translate,  ///< arrows: drag moves along an axis
  Rotate,     ///< rings: drag rotates about an axis through the pose's origin
};

enum class GizmoAxis { None, X, Y, Z };

class Gizmo {
 public:
  /// A drag is undefined when the sine of the angle between the ray and the
  /// axis (translate), or between the ray and the plane (rotate), is below
  /// this.
  static constexpr double kParallelSine = 1e-3;

  /// Where the handle sits: the object's pose.
  void setPose(const Isometry3d& pose) { pose_ = pose; }
  Isometry3d pose() const { return pose_; }

  void setMode(GizmoMode mode) { mode_ = mode; }
  GizmoMode mode() const { return mode_; }

  /// Arrow length / ring radius (m); the viewer sets it from the camera
  /// distance so the gizmo keeps a constant size on the screen. Non-positive
  /// or non-finite values are ignored.
  void setSize(double metres);
  double size() const { return size_; }

  /// Handle axes along the pose's axes (true, the default) or the world's.
  void setLocalAxes(bool local) { localAxes_ = local; }
  bool localAxes() const { return localAxes_; }

  /// World direction (unit) of a handle axis; zero for GizmoAxis::None.
  Vector3d axisDirection(GizmoAxis axis) const;

  /// The handle under a ray, `pickRadius` being a distance in metres (the
  /// viewer converts its pick radius in pixels at the gizmo's depth).
  /// Translate: the arrow (segment from the origin to origin + size·axis)
  /// closest to the ray, if within pickRadius. Rotate: the ring (circle of
  /// radius size about the origin, in the plane normal to the axis) closest
  /// to the ray, if within pickRadius. None otherwise. Only the part of the
  /// ray in front of its origin counts.
  GizmoAxis hitTest(const Ray& ray, double pickRadius) const;

  /// Starts dragging the handle under the ray; the drag keeps the mode, axis
  /// direction and start pose it began with. False (and no drag) when no
  /// handle is hit or the ray is nearly parallel to the hit handle's
  /// constraint (then no start point can be defined).
  bool beginDrag(const Ray& ray, double pickRadius);
  /// The desired pose for the current ray during a drag, also passed to the
  /// callback.
  ///  - Translate: the start pose moved along the axis by the difference
  ///    between the points of the axis line closest to the current ray and
  ///    to the ray at beginDrag(), rounded to a multiple of the translation
  ///    snap when it is set.
  ///  - Rotate: the ray meets the plane through the start origin normal to
  ///    the axis; the start pose turns about the axis through its origin by
  ///    the signed angle (right hand about the axis) from the start hit to
  ///    the current hit, rounded to a multiple of the rotation snap when set.
  /// nullopt (no change, no callback) when not dragging, when the ray is
  /// nearly parallel to the axis (translate) or to the plane (rotate), or
  /// when the plane is behind the ray's origin or hit at the origin itself.
  std::optional<Isometry3d> drag(const Ray& ray);
  void endDrag();
  bool isDragging() const { return activeAxis_ != GizmoAxis::None; }
  /// The dragged axis; None when not dragging.
  GizmoAxis activeAxis() const { return activeAxis_; }

  /// The highlighted handle (the viewer sets it from hitTest() on mouse moves).
  void setHovered(GizmoAxis axis) { hovered_ = axis; }
  GizmoAxis hovered() const { return hovered_; }

  /// Translation step (m) of drags; 0 (the default) = continuous.
  void setTranslationSnap(double metres);
  double translationSnap() const { return translationSnap_; }
  /// Rotation step (rad) of drags; 0 (the default) = continuous.
  void setRotationSnap(double radians);
  double rotationSnap() const { return rotationSnap_; }

  /// Receives every desired pose drag() computes.
  void setOnDesiredPose(std::function<void(const Isometry3d&)> callback) { onDesiredPose_ = std::move(callback); }

 private:
  std::optional<Isometry3d> desiredPose(const Ray& ray) const;

  Isometry3d pose_ = Isometry3d::Identity();
  GizmoMode mode_ = GizmoMode::Translate;
  double size_ = 1.0;
  bool localAxes_ = true;
  GizmoAxis hovered_ = GizmoAxis::None;
  double translationSnap_ = 0.0;
  double rotationSnap_ = 0.0;
  std::function<void(const Isometry3d&)> onDesiredPose_;

  // The drag in progress (activeAxis_ != None).
  GizmoAxis activeAxis_ = GizmoAxis::None;
  GizmoMode dragMode_ = GizmoMode::Translate;
  Isometry3d startPose_ = Isometry3d::Identity();
  Vector3d dragAxis_ = Vector3d::UnitX();     ///< world, unit
  double startParameter_ = 0.0;               ///< translate: axis coordinate of the start point
  Vector3d startVector_ = Vector3d::UnitY();  ///< rotate: start hit − origin, in the plane
};

}  // namespace articula::viewer

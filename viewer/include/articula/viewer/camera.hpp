#pragma once
/// @file
/// The viewer's orbit camera: plain math in a z-up world, independent of any
/// rendering library. Pixel coordinates have their origin at the top-left
/// corner of the viewport, x to the right and y downwards; pixel (i, j) covers
/// [i, i+1) × [j, j+1), so its centre is at (i + 0.5, j + 0.5) and the centre
/// of a width × height viewport is at (width/2, height/2). Angles are radians
/// unless a name says degrees.

#include <articula/types.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace articula::viewer {

using Vector2d = Eigen::Vector2d;
using Matrix4d = Eigen::Matrix4d;

/// A half-line in world coordinates.
struct Ray {
  Vector3d origin = Vector3d::Zero();
  Vector3d direction = Vector3d::UnitX();  ///< unit
};

/// Where the camera is and what it looks at.
struct CameraPose {
  Vector3d eye = Vector3d::Zero();
  Vector3d center = Vector3d::Zero();
  Vector3d up = Vector3d::UnitZ();  ///< unit, perpendicular to center − eye (the screen's upward direction)
};

/// A camera orbiting a centre point in a z-up world.
///
/// The eye sits at
///   center + distance · (cos(el) cos(az), cos(el) sin(az), sin(el)),
/// looking at the centre, where the azimuth az is measured about world +z
/// from +x and the elevation el is clamped to ±89° so the view never looks
/// straight along z (world +z always points up on the screen). The default
/// camera is the "iso" view of the origin from 5 m with a 45° vertical field
/// of view.
class OrbitCamera {
 public:
  /// Radians the orbit turns per pixel of mouse motion (0.3° per pixel:
  /// dragging across a 600-pixel viewport turns the view by 180°).
  static constexpr double kOrbitRadiansPerPixel = 0.3 * 3.14159265358979323846 / 180.0;
  /// Elevation limit (radians): 89°.
  static constexpr double kMaxElevation = 89.0 * 3.14159265358979323846 / 180.0;
  /// Distance limits of zoom(), setView() and fit() (m).
  static constexpr double kMinDistance = 1e-3;
  static constexpr double kMaxDistance = 1e6;
  /// Distance factor of one zoom step (positive steps move closer).
  static constexpr double kZoomFactorPerStep = 0.85;
  /// Fraction of the half field of view that fit() fills with the box: the
  /// box's outermost corner lies at 90% of the way from the centre of the
  /// viewport to its edge.
  static constexpr double kFitFill = 0.9;

  /// Looks from `eye` at `center`: derives the distance, azimuth and
  /// elevation (the elevation is clamped to ±89°, which moves the eye when
  /// it was closer to the vertical; the distance is clamped to
  /// [kMinDistance, kMaxDistance]). When `eye` is straight above or below
  /// the centre the previous azimuth is kept.
  void setView(const Vector3d& eye, const Vector3d& center);
  /// Sets every orbit parameter (angles in radians; clamped as in setView()).
  void setOrbit(const Vector3d& center, double distance, double azimuth, double elevation);
  /// Moves the centre, keeping the viewing direction and distance.
  void setCenter(const Vector3d& center);
  /// Sets the distance (clamped to [kMinDistance, kMaxDistance]).
  void setDistance(double distance);

  CameraPose pose() const;
  Vector3d center() const { return center_; }
  double distance() const { return distance_; }
  double azimuth() const { return azimuth_; }      ///< radians, in (−π, π]
  double elevation() const { return elevation_; }  ///< radians, in [−89°, 89°]

  /// Unit vector from the eye to the centre.
  Vector3d forward() const;
  /// Unit vector pointing right on the screen (horizontal in the world).
  Vector3d right() const;
  /// Unit vector pointing up on the screen.
  Vector3d up() const;

  /// Vertical field of view in degrees, clamped to [1, 170]; default 45.
  void setFieldOfView(double fovYDegrees);
  double fieldOfView() const { return fovYDegrees_; }

  /// Turns the view about the centre by kOrbitRadiansPerPixel per pixel of
  /// mouse motion (pixel y grows downwards). The scene follows the cursor:
  /// dragging right turns the scene to the right (the eye moves left, the
  /// azimuth decreases), dragging down tilts the scene's top towards the
  /// viewer (the eye rises, the elevation increases).
  void orbit(double dxPixels, double dyPixels);
  /// Moves the centre and the eye parallel to the screen so that the point
  /// at the centre's depth under the cursor follows the cursor exactly.
  void pan(double dxPixels, double dyPixels, int viewportHeight);
  /// distance *= 0.85^steps (positive steps move closer), clamped to
  /// [kMinDistance, kMaxDistance].
  void zoom(double steps);
  /// Keeps the viewing direction, moves the centre to the box centre and
  /// picks the smallest distance at which all 8 corners lie inside the
  /// viewport with the margin of kFitFill (`aspect` = width / height). An
  /// empty box fits the unit cube [−0.5, 0.5]³ about the origin.
  ///
  /// With `coveredLeft` > 0 (a fraction of the width, in [0, 1)), the part
  /// of the viewport left of coveredLeft · width is covered (by an overlay
  /// panel): the box is framed in the rest of the width, and the centre is
  /// moved sideways so that the box's centre appears in that part's middle.
  void fit(const Eigen::AlignedBox3d& bounds, double aspect, double coveredLeft = 0.0);

  /// The named views (see setPreset()).
  static std::vector<std::string> presetNames();
  /// Sets the viewing direction to a named view, keeping the centre and the
  /// distance. The names follow the robot convention (x forward, y left,
  /// z up): "front" faces a robot that looks along +x.
  ///   "iso"   az 45°,  el 30°  (eye on the +x +y +z side)
  ///   "front" az 0°,   el 0°   (eye on +x looking along −x; +y right)
  ///   "back"  az 180°, el 0°   (eye on −x looking along +x; −y right)
  ///   "left"  az 90°,  el 0°   (eye on +y looking along −y; −x right)
  ///   "right" az −90°, el 0°   (eye on −y looking along +y; +x right)
  ///   "top"   az −90°, el 89°  (looking down −z; +x right, +y up)
  /// Throws std::invalid_argument listing the names for an unknown one.
  void setPreset(const std::string& name);

  /// World → eye transform (OpenGL convention: the eye at the origin
  /// looking down −z, y up).
  Matrix4d viewMatrix() const;
  /// OpenGL perspective projection (clip coordinates, depth to [−1, 1]) for
  /// the vertical field of view; `aspect` = width / height.
  Matrix4d projectionMatrix(double aspect, double zNear, double zFar) const;
  /// Near and far plane distances that enclose the box (0 < near < far).
  /// When the eye is inside or beyond the box, near is a small fraction of
  /// far; an empty box gives planes about the centre.
  std::pair<double, double> nearFar(const Eigen::AlignedBox3d& bounds) const;

  /// The ray from the eye through pixel coordinates (x, y) of a
  /// width × height viewport.
  Ray rayThrough(double x, double y, int width, int height) const;
  /// Pixel coordinates of a world point in a width × height viewport
  /// (possibly outside it); nullopt when the point is not in front of the
  /// eye.
  std::optional<Vector2d> project(const Vector3d& world, int width, int height) const;
  /// World length of one pixel at the depth of `world` (m), for drawing
  /// handles with a constant screen size; the depth is taken as at least
  /// kMinDistance.
  double metresPerPixel(const Vector3d& world, int viewportHeight) const;

 private:
  double tanHalfFovY() const;

  Vector3d center_ = Vector3d::Zero();
  double distance_ = 5.0;
  double azimuth_ = 45.0 * 3.14159265358979323846 / 180.0;
  double elevation_ = 30.0 * 3.14159265358979323846 / 180.0;
  double fovYDegrees_ = 45.0;
};

/// A parsed "--camera" value: either a preset (a name of
/// OrbitCamera::presetNames() or "fit") or an eye and a centre.
struct CameraSpec {
  std::string preset;         ///< empty when hasEyeCenter
  bool hasEyeCenter = false;  ///< eye and center are set
  Vector3d eye = Vector3d::Zero();
  Vector3d center = Vector3d::Zero();
};

/// Parses "--camera" text: a preset name ("iso", "front", ...), "fit", or
/// "EX,EY,EZ:CX,CY,CZ" (eye:center, metres; finite numbers, eye ≠ center).
/// Surrounding white space is ignored. Throws std::invalid_argument with a
/// message naming what was expected.
CameraSpec parseCameraSpec(const std::string& text);

}  // namespace articula::viewer

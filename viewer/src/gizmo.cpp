#include <articula/viewer/gizmo.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace articula::viewer {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr std::array<GizmoAxis, 3> kAxes = {GizmoAxis::X, GizmoAxis::Y, GizmoAxis::Z};

int axisIndex(GizmoAxis axis) {
  switch (axis) {
    case GizmoAxis::X:
      return 0;
    case GizmoAxis::Y:
      return 1;
    case GizmoAxis::Z:
      return 2;
    case GizmoAxis::None:
      break;
  }
  return -1;
}

/// Distance between the ray p + t·d (t ≥ 0, d unit) and the segment
/// o + s·a (s ∈ [0, length], a unit).
double raySegmentDistance(const Ray& ray, const Vector3d& o, const Vector3d& a, double length) {
  const Vector3d& p = ray.origin;
  const Vector3d& d = ray.direction;
  const auto distance = [&](double t, double s) { return (p + t * d - (o + s * a)).norm(); };
  // The squared distance is a convex quadratic in (t, s): its minimum over
  // the region is either the unconstrained minimum, if inside, or lies on
  // one of the region's edges t = 0, s = 0, s = length, where the 1-D
  // minimum is a clamped projection.
  double best = std::numeric_limits<double>::infinity();
  const Vector3d w = o - p;
  const double b = a.dot(d);
  const double denom = 1.0 - b * b;
  if (denom > 1e-12) {
    const double s = (b * d.dot(w) - a.dot(w)) / denom;
    const double t = d.dot(w) + s * b;
    if (t >= 0.0 && s >= 0.0 && s <= length) best = distance(t, s);
  }
  const double sAtRayOrigin = std::clamp((p - o).dot(a), 0.0, length);
  best = std::min(best, distance(0.0, sAtRayOrigin));
  for (const double s : {0.0, length}) best = std::min(best, distance(std::max(0.0, (o + s * a - p).dot(d)), s));
  return best;
}

/// Distance from a point to the ray p + t·d (t ≥ 0, d unit).
double pointRayDistance(const Vector3d& q, const Ray& ray) {
  const Vector3d v = q - ray.origin;
  const double t = std::max(0.0, v.dot(ray.direction));
  return (v - t * ray.direction).norm();
}

/// Distance between the ray and the circle of `radius` about `o` in the
/// plane normal to `axis` (unit).
double rayCircleDistance(const Ray& ray, const Vector3d& o, const Vector3d& axis, double radius) {
  // Orthonormal basis (u, v) of the circle's plane.
  const Vector3d u = axis.unitOrthogonal();
  const Vector3d v = axis.cross(u);
  const auto at = [&](double theta) {
    return pointRayDistance(o + radius * (std::cos(theta) * u + std::sin(theta) * v), ray);
  };
  // Coarse sampling finds the basin of the nearest point; a golden-section
  // search refines it to well below any sensible pick radius.
  constexpr int kSamples = 72;
  constexpr double kStep = 2.0 * kPi / kSamples;
  double bestTheta = 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kSamples; ++i) {
    const double theta = i * kStep;
    const double dist = at(theta);
    if (dist < best) {
      best = dist;
      bestTheta = theta;
    }
  }
  const double invPhi = (std::sqrt(5.0) - 1.0) / 2.0;
  double lo = bestTheta - kStep;
  double hi = bestTheta + kStep;
  double x1 = hi - invPhi * (hi - lo);
  double x2 = lo + invPhi * (hi - lo);
  double f1 = at(x1);
  double f2 = at(x2);
  for (int i = 0; i < 40; ++i) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - invPhi * (hi - lo);
      f1 = at(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + invPhi * (hi - lo);
      f2 = at(x2);
    }
  }
  return std::min({best, f1, f2});
}

/// Axis coordinate s of the point o + s·a of the axis line closest to the
/// ray's line; nullopt when they are nearly parallel.
std::optional<double> closestAxisParameter(const Ray& ray, const Vector3d& o, const Vector3d& a) {
  const Vector3d& d = ray.direction;
  const double sine = a.cross(d).norm();
  if (!(sine >= Gizmo::kParallelSine)) return std::nullopt;
  // Minimising |o + s·a − p − t·d|² over s and t (a, d unit, b = a·d):
  //   s − b·t = −a·w,  b·s − t = −d·w,  with w = o − p.
  const Vector3d w = o - ray.origin;
  const double b = a.dot(d);
  return (b * d.dot(w) - a.dot(w)) / (sine * sine);
}

/// Where the ray meets the plane through `o` normal to `n` (unit); nullopt
/// when the ray is nearly parallel to the plane or the plane is behind it.
std::optional<Vector3d> rayPlaneHit(const Ray& ray, const Vector3d& o, const Vector3d& n) {
  const double dn = ray.direction.dot(n);
  if (!(std::abs(dn) >= Gizmo::kParallelSine)) return std::nullopt;
  const double t = (o - ray.origin).dot(n) / dn;
  if (!(t >= 0.0)) return std::nullopt;
  return ray.origin + t * ray.direction;
}

double snapTo(double value, double step) {
  return step > 0.0 ? std::round(value / step) * step : value;
}

bool validRay(const Ray& ray) {
  return ray.origin.allFinite() && ray.direction.allFinite() && std::abs(ray.direction.norm() - 1.0) < 1e-6;
}

}  // namespace

void Gizmo::setSize(double metres) {
  if (std::isfinite(metres) && metres > 0.0) size_ = metres;
}

void Gizmo::setTranslationSnap(double metres) {
  translationSnap_ = std::isfinite(metres) && metres > 0.0 ? metres : 0.0;
}

void Gizmo::setRotationSnap(double radians) {
  rotationSnap_ = std::isfinite(radians) && radians > 0.0 ? radians : 0.0;
}

Vector3d Gizmo::axisDirection(GizmoAxis axis) const {
  const int i = axisIndex(axis);
  if (i < 0) return Vector3d::Zero();
  if (!localAxes_) return Vector3d::Unit(i);
  // The pose's rotation is orthonormal up to rounding; normalise anyway so a
  // slightly drifted pose still gives unit handle axes.
  return pose_.linear().col(i).normalized();
}

GizmoAxis Gizmo::hitTest(const Ray& ray, double pickRadius) const {
  if (!validRay(ray) || !(pickRadius >= 0.0)) return GizmoAxis::None;
  const Vector3d o = pose_.translation();
  GizmoAxis hit = GizmoAxis::None;
  double best = pickRadius;
  for (const GizmoAxis axis : kAxes) {
    const Vector3d a = axisDirection(axis);
    const double dist =
        mode_ == GizmoMode::Translate ? raySegmentDistance(ray, o, a, size_) : rayCircleDistance(ray, o, a, size_);
    if (dist <= best) {
      best = dist;
      hit = axis;
    }
  }
  return hit;
}

bool Gizmo::beginDrag(const Ray& ray, double pickRadius) {
  endDrag();
  const GizmoAxis axis = hitTest(ray, pickRadius);
  if (axis == GizmoAxis::None) return false;
  const Vector3d a = axisDirection(axis);
  const Vector3d o = pose_.translation();
  if (mode_ == GizmoMode::Translate) {
    const std::optional<double> s = closestAxisParameter(ray, o, a);
    if (!s) return false;
    startParameter_ = *s;
  } else {
    const std::optional<Vector3d> hitPoint = rayPlaneHit(ray, o, a);
    if (!hitPoint) return false;
    const Vector3d v = *hitPoint - o;
    if (!(v.norm() > 1e-9 * size_)) return false;
    startVector_ = v;
  }
  dragMode_ = mode_;
  dragAxis_ = a;
  startPose_ = pose_;
  activeAxis_ = axis;
  return true;
}

std::optional<Isometry3d> Gizmo::desiredPose(const Ray& ray) const {
  if (!isDragging() || !validRay(ray)) return std::nullopt;
  const Vector3d o = startPose_.translation();
  Isometry3d result = startPose_;
  if (dragMode_ == GizmoMode::Translate) {
    const std::optional<double> s = closestAxisParameter(ray, o, dragAxis_);
    if (!s) return std::nullopt;
    result.translation() = o + snapTo(*s - startParameter_, translationSnap_) * dragAxis_;
  } else {
    const std::optional<Vector3d> hitPoint = rayPlaneHit(ray, o, dragAxis_);
    if (!hitPoint) return std::nullopt;
    const Vector3d v = *hitPoint - o;
    if (!(v.norm() > 1e-9 * size_)) return std::nullopt;
    // Signed angle from the start vector to v, right-handed about the axis.
    const double angle = std::atan2(startVector_.cross(v).dot(dragAxis_), startVector_.dot(v));
    // The axis passes through the origin, so the translation stays.
    result.linear() =
        Eigen::AngleAxisd(snapTo(angle, rotationSnap_), dragAxis_).toRotationMatrix() * startPose_.linear();
  }
  return result;
}

std::optional<Isometry3d> Gizmo::drag(const Ray& ray) {
  std::optional<Isometry3d> result = desiredPose(ray);
  if (result && onDesiredPose_) onDesiredPose_(*result);
  return result;
}

void Gizmo::endDrag() {
  activeAxis_ = GizmoAxis::None;
}

}  // namespace articula::viewer

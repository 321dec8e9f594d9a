#include <articula/viewer/camera.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace articula::viewer {

namespace {

constexpr double kPi = 3.14159265358979323846;

double degrees(double deg) {
  return deg * kPi / 180.0;
}

/// Wraps an angle to (−π, π].
double wrapAngle(double a) {
  if (!std::isfinite(a)) return 0.0;
  double w = std::remainder(a, 2.0 * kPi);  // in [−π, π]
  if (w <= -kPi) w += 2.0 * kPi;
  return w;
}

double clampDistance(double d) {
  if (!std::isfinite(d)) return d > 0.0 ? OrbitCamera::kMaxDistance : OrbitCamera::kMinDistance;
  return std::clamp(d, OrbitCamera::kMinDistance, OrbitCamera::kMaxDistance);
}

double clampElevation(double el) {
  if (!std::isfinite(el)) return 0.0;
  return std::clamp(el, -OrbitCamera::kMaxElevation, OrbitCamera::kMaxElevation);
}

struct Preset {
  std::string_view name;
  double azimuthDeg;
  double elevationDeg;
};

// Keep in step with the table in camera.hpp.
constexpr std::array<Preset, 6> kPresets = {{
    {"iso", 45.0, 30.0},
    {"front", 0.0, 0.0},
    {"back", 180.0, 0.0},
    {"left", 90.0, 0.0},
    {"right", -90.0, 0.0},
    {"top", -90.0, 89.0},
}};

std::string presetList() {
  std::string s;
  for (const Preset& p : kPresets) {
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

std::string_view trim(std::string_view s) {
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

[[noreturn]] void throwSpec(const std::string& text, const std::string& why) {
  throw std::invalid_argument("invalid camera '" + text + "': " + why + " (expected a preset name (" + presetList() +
                              "), 'fit', or EX,EY,EZ:CX,CY,CZ with the eye and centre in metres)");
}

/// Parses "X,Y,Z" into a point; `what` names the part for messages.
Vector3d parsePoint(const std::string& text, std::string_view part, const char* what) {
  Vector3d p;
  int count = 0;
  while (true) {
    const std::size_t comma = part.find(',');
    std::string_view number = trim(part.substr(0, comma));
    if (count == 3) throwSpec(text, std::string("the ") + what + " has more than three coordinates");
    // from_chars is locale-independent but rejects a leading '+'.
    if (number.size() > 1 && number.front() == '+' && number[1] != '-' && number[1] != '+') number.remove_prefix(1);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
      throwSpec(text, std::string("the ") + what + " coordinate '" + std::string(number) + "' is not a finite number");
    }
    p[count++] = value;
    if (comma == std::string_view::npos) break;
    part.remove_prefix(comma + 1);
  }
  if (count != 3) throwSpec(text, std::string("the ") + what + " needs three comma-separated coordinates");
  return p;
}

}  // namespace

// ---------------------------------------------------------------------------
// Orbit parameters

void OrbitCamera::setView(const Vector3d& eye, const Vector3d& center) {
  const Vector3d offset = eye - center;
  const double horizontal = std::hypot(offset.x(), offset.y());
  center_ = center;
  distance_ = clampDistance(offset.norm());
  if (horizontal > 1e-12 * std::max(1.0, offset.norm())) azimuth_ = wrapAngle(std::atan2(offset.y(), offset.x()));
  if (offset.norm() > 0.0) elevation_ = clampElevation(std::atan2(offset.z(), horizontal));
}

void OrbitCamera::setOrbit(const Vector3d& center, double distance, double azimuth, double elevation) {
  center_ = center;
  distance_ = clampDistance(distance);
  azimuth_ = wrapAngle(azimuth);
  elevation_ = clampElevation(elevation);
}

void OrbitCamera::setCenter(const Vector3d& center) {
  center_ = center;
}

void OrbitCamera::setDistance(double distance) {
  distance_ = clampDistance(distance);
}

Vector3d OrbitCamera::forward() const {
  const double ce = std::cos(elevation_);
  return -Vector3d(ce * std::cos(azimuth_), ce * std::sin(azimuth_), std::sin(elevation_));
}

Vector3d OrbitCamera::right() const {
  // forward × z, normalised; the elevation limit keeps it well defined.
  return Vector3d(-std::sin(azimuth_), std::cos(azimuth_), 0.0);
}

Vector3d OrbitCamera::up() const {
  return right().cross(forward());
}

CameraPose OrbitCamera::pose() const {
  CameraPose p;
  p.center = center_;
  p.eye = center_ - distance_ * forward();
  p.up = up();
  return p;
}

void OrbitCamera::setFieldOfView(double fovYDegrees) {
  if (!std::isfinite(fovYDegrees)) return;
  fovYDegrees_ = std::clamp(fovYDegrees, 1.0, 170.0);
}

double OrbitCamera::tanHalfFovY() const {
  return std::tan(0.5 * degrees(fovYDegrees_));
}

// ---------------------------------------------------------------------------
// Mouse navigation

void OrbitCamera::orbit(double dxPixels, double dyPixels) {
  if (!std::isfinite(dxPixels) || !std::isfinite(dyPixels)) return;
  azimuth_ = wrapAngle(azimuth_ - dxPixels * kOrbitRadiansPerPixel);
  elevation_ = clampElevation(elevation_ + dyPixels * kOrbitRadiansPerPixel);
}

void OrbitCamera::pan(double dxPixels, double dyPixels, int viewportHeight) {
  if (viewportHeight <= 0 || !std::isfinite(dxPixels) || !std::isfinite(dyPixels)) return;
  // Points at the centre's depth lie in a plane parallel to the image; moving
  // the camera within that plane shifts all of them by the same number of
  // pixels, `metres` per pixel. The scene follows the cursor, so the camera
  // moves the other way (pixel y grows downwards, the screen's up upwards).
  const double metres = 2.0 * distance_ * tanHalfFovY() / viewportHeight;
  center_ += metres * (-dxPixels * right() + dyPixels * up());
}

void OrbitCamera::zoom(double steps) {
  if (!std::isfinite(steps)) return;
  distance_ = clampDistance(distance_ * std::pow(kZoomFactorPerStep, steps));
}

void OrbitCamera::fit(const Eigen::AlignedBox3d& bounds, double aspect, double coveredLeft) {
  Eigen::AlignedBox3d box = bounds;
  if (box.isEmpty()) box = Eigen::AlignedBox3d(Vector3d::Constant(-0.5), Vector3d::Constant(0.5));
  if (box.sizes().maxCoeff() <= 0.0) {
    // A single point: frame a unit cube about it.
    const Vector3d c = box.center();
    box = Eigen::AlignedBox3d(c - Vector3d::Constant(0.5), c + Vector3d::Constant(0.5));
  }
  if (!std::isfinite(aspect) || aspect <= 0.0) aspect = 1.0;

  const Vector3d f = forward();
  const Vector3d r = right();
  const Vector3d u = up();
  if (!std::isfinite(coveredLeft) || coveredLeft < 0.0 || coveredLeft >= 1.0) coveredLeft = 0.0;
  const double tanY = tanHalfFovY() * kFitFill;
  const double tanXFull = tanHalfFovY() * aspect;  // the whole width, no margin
  const Vector3d c = box.center();
  // The free part of the width in normalized device x ∈ [−1, 1]: from
  // −1 + 2·coveredLeft to 1, its middle at m = coveredLeft, half width
  // h = 1 − coveredLeft.
  const double m = coveredLeft;
  const double h = 1.0 - coveredLeft;

  // The eye looks at c − m·tanXFull·d·r, so that the box centre c appears
  // at x = m. A corner at offset p from c has depth d + p·f from the eye and
  // appears at x − m = (p·r − m·tanXFull·(p·f)) / (tanXFull (d + p·f)); it
  // is inside the filled part of the free width when that is at most
  // h·kFitFill in magnitude, and inside the height when
  // |p·u| ≤ tanY (d + p·f). The smallest d meeting every inequality puts
  // the tightest corner exactly on the margin (m = 0: the plain fit).
  double d = 0.0;
  for (int i = 0; i < 8; ++i) {
    const Vector3d p = box.corner(static_cast<Eigen::AlignedBox3d::CornerType>(i)) - c;
    const double depthOffset = p.dot(f);
    d = std::max(d, std::abs(p.dot(r) - m * tanXFull * depthOffset) / (h * kFitFill * tanXFull) - depthOffset);
    d = std::max(d, std::abs(p.dot(u)) / tanY - depthOffset);
    d = std::max(d, kMinDistance - depthOffset);  // every corner in front of the eye
  }
  distance_ = clampDistance(d);
  center_ = c - m * tanXFull * distance_ * r;
}

// ---------------------------------------------------------------------------
// Presets

std::vector<std::string> OrbitCamera::presetNames() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.emplace_back(p.name);
  return names;
}

void OrbitCamera::setPreset(const std::string& name) {
  for (const Preset& p : kPresets) {
    if (p.name == name) {
      azimuth_ = wrapAngle(degrees(p.azimuthDeg));
      elevation_ = clampElevation(degrees(p.elevationDeg));
      return;
    }
  }
  throw std::invalid_argument("unknown camera preset '" + name + "' (expected one of: " + presetList() + ")");
}

// ---------------------------------------------------------------------------
// Matrices, rays and projection

Matrix4d OrbitCamera::viewMatrix() const {
  const Vector3d f = forward();
  const Vector3d r = right();
  const Vector3d u = up();
  const Vector3d eye = center_ - distance_ * f;
  Matrix4d V = Matrix4d::Identity();
  V.block<1, 3>(0, 0) = r.transpose();
  V.block<1, 3>(1, 0) = u.transpose();
  V.block<1, 3>(2, 0) = -f.transpose();
  V(0, 3) = -r.dot(eye);
  V(1, 3) = -u.dot(eye);
  V(2, 3) = f.dot(eye);
  return V;
}

Matrix4d OrbitCamera::projectionMatrix(double aspect, double zNear, double zFar) const {
  const double cot = 1.0 / tanHalfFovY();
  Matrix4d P = Matrix4d::Zero();
  P(0, 0) = cot / aspect;
  P(1, 1) = cot;
  P(2, 2) = (zFar + zNear) / (zNear - zFar);
  P(2, 3) = 2.0 * zFar * zNear / (zNear - zFar);
  P(3, 2) = -1.0;
  return P;
}

std::pair<double, double> OrbitCamera::nearFar(const Eigen::AlignedBox3d& bounds) const {
  // Ratio far/near beyond which the depth buffer loses too much precision.
  constexpr double kMinNearFraction = 1e-5;
  if (bounds.isEmpty()) return {distance_ * 1e-3, distance_ * 1e3};
  const Vector3d f = forward();
  const Vector3d eye = center_ - distance_ * f;
  double minDepth = std::numeric_limits<double>::infinity();
  double maxDepth = -std::numeric_limits<double>::infinity();
  // Depth is linear in position, so its extremes over the box are at corners.
  for (int i = 0; i < 8; ++i) {
    const double depth = (bounds.corner(static_cast<Eigen::AlignedBox3d::CornerType>(i)) - eye).dot(f);
    minDepth = std::min(minDepth, depth);
    maxDepth = std::max(maxDepth, depth);
  }
  if (!(maxDepth > 0.0)) return {distance_ * 1e-3, distance_ * 1e3};  // the box is behind the eye
  const double farPlane = maxDepth * 1.01 + 1e-9;
  const double nearPlane = std::max(minDepth * 0.99, farPlane * kMinNearFraction);
  return {nearPlane, farPlane};
}

Ray OrbitCamera::rayThrough(double x, double y, int width, int height) const {
  const double w = std::max(width, 1);
  const double h = std::max(height, 1);
  const double tanY = tanHalfFovY();
  const double tanX = tanY * w / h;
  const double ndcX = 2.0 * x / w - 1.0;
  const double ndcY = 1.0 - 2.0 * y / h;
  const Vector3d f = forward();
  Ray ray;
  ray.origin = center_ - distance_ * f;
  ray.direction = (f + ndcX * tanX * right() + ndcY * tanY * up()).normalized();
  return ray;
}

std::optional<Vector2d> OrbitCamera::project(const Vector3d& world, int width, int height) const {
  const double w = std::max(width, 1);
  const double h = std::max(height, 1);
  const Vector3d f = forward();
  const Vector3d p = world - (center_ - distance_ * f);
  const double depth = p.dot(f);
  if (!(depth > 1e-12 * std::max(1.0, p.norm()))) return std::nullopt;
  const double tanY = tanHalfFovY();
  const double tanX = tanY * w / h;
  const double ndcX = p.dot(right()) / (depth * tanX);
  const double ndcY = p.dot(up()) / (depth * tanY);
  return Vector2d(0.5 * (ndcX + 1.0) * w, 0.5 * (1.0 - ndcY) * h);
}

double OrbitCamera::metresPerPixel(const Vector3d& world, int viewportHeight) const {
  const Vector3d f = forward();
  const double depth = std::max((world - (center_ - distance_ * f)).dot(f), kMinDistance);
  return 2.0 * depth * tanHalfFovY() / std::max(viewportHeight, 1);
}

// ---------------------------------------------------------------------------
// "--camera"

CameraSpec parseCameraSpec(const std::string& text) {
  const std::string_view body = trim(text);
  if (body.empty()) throwSpec(text, "the text is empty");
  CameraSpec spec;
  const std::size_t colon = body.find(':');
  if (colon == std::string_view::npos) {
    const std::string name(body);
    const std::vector<std::string> names = OrbitCamera::presetNames();
    if (name != "fit" && std::find(names.begin(), names.end(), name) == names.end()) {
      throwSpec(text, "'" + name + "' is not a preset name and has no ':' between an eye and a centre");
    }
    spec.preset = name;
    return spec;
  }
  if (body.find(':', colon + 1) != std::string_view::npos) throwSpec(text, "more than one ':'");
  spec.eye = parsePoint(text, body.substr(0, colon), "eye");
  spec.center = parsePoint(text, body.substr(colon + 1), "centre");
  if (spec.eye == spec.center) throwSpec(text, "the eye and the centre coincide");
  spec.hasEyeCenter = true;
  return spec;
}

}  // namespace articula::viewer

// What the inspector's forms share (inspector_parts.hpp).
#include "inspector_parts.hpp"

#include <QObject>

#include <algorithm>
#include <cmath>

namespace articula::studio::inspector_parts {

// ---- rotations -----------------------------------------------------------------

// R = Rz(yaw)·Ry(pitch)·Rx(roll); returns (roll, pitch, yaw) in radians.
Vector3d rollPitchYaw(const Matrix3d& R) {
  const double s = std::clamp(-R(2, 0), -1.0, 1.0);
  const double pitch = std::asin(s);
  if (std::abs(s) > 1.0 - 1e-12) {
    // Gimbal lock: only yaw − roll (or yaw + roll) is defined; put it all in yaw.
    return Vector3d(0.0, pitch, std::atan2(-R(0, 1), R(1, 1)));
  }
  return Vector3d(std::atan2(R(2, 1), R(2, 2)), pitch, std::atan2(R(1, 0), R(0, 0)));
}

Matrix3d rotationFromRollPitchYaw(const Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Vector3d::UnitX()))
      .toRotationMatrix();
}

// ---- value checks --------------------------------------------------------------

QString positiveMessage(double v) {
  return std::isfinite(v) && v > 0.0 ? QString() : QObject::tr("Must be greater than zero.");
}

QString nonNegativeMessage(double v) {
  return std::isfinite(v) && v >= 0.0 ? QString() : QObject::tr("Must not be negative.");
}

QString finiteMessage(double v) {
  return std::isfinite(v) ? QString() : QObject::tr("Must be a finite number.");
}

QString unitIntervalMessage(double v) {
  return v >= 0.0 && v <= 1.0 ? QString() : QObject::tr("Must be between 0 and 1.");
}

}  // namespace articula::studio::inspector_parts

#pragma once
/// @file
/// What the inspector's forms of several object kinds share (inspector*.cpp
/// only): looking objects up, rotations as shown in pose fields, and the
/// messages of the common value checks.

#include "object_ref.hpp"

#include <articula/error.hpp>

#include <QString>

#include <numbers>
#include <optional>
#include <string>

namespace articula::studio::inspector_parts {

inline constexpr double kDegPerRad = 180.0 / std::numbers::pi;

/// The object `value` holds; throws InvalidHandle (naming `ref`) when the
/// object no longer exists.
template <typename T>
T need(const std::optional<T>& value, const ObjectRef& ref) {
  if (!value) throw InvalidHandle(std::string(kindName(ref.kind)) + " '" + ref.name + "' no longer exists");
  return *value;
}

// ---- rotations -----------------------------------------------------------------

/// R = Rz(yaw)·Ry(pitch)·Rx(roll); returns (roll, pitch, yaw) in radians.
Vector3d rollPitchYaw(const Matrix3d& R);
Matrix3d rotationFromRollPitchYaw(const Vector3d& rpy);

// ---- value checks --------------------------------------------------------------
// A message for a refused value, empty for a fine one.

QString positiveMessage(double v);
QString nonNegativeMessage(double v);
QString finiteMessage(double v);
QString unitIntervalMessage(double v);

}  // namespace articula::studio::inspector_parts

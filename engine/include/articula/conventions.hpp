#pragma once
/// @file
/// Conversions between the free-joint velocity convention and other
/// conventions. Each velocity conversion comes with the wrench conversion
/// that preserves power: for V' = A·V the matching force is F = Aᵀ·F', so
/// F'·V' = F·V (docs/conventions.md).

#include <articula/types.hpp>

namespace articula {

/// Free-joint position q = [p; quaternion xyzw] → X_WB.
Isometry3d freeJointTransform(const Eigen::Matrix<double, 7, 1>& q);
/// X_WB → q = [p; quaternion xyzw] (w ≥ 0).
Eigen::Matrix<double, 7, 1> freeJointPositions(const Isometry3d& X_WB);

/// Body twist v = [ω_B; v_B] (the free-joint velocity) → world-frame
/// classical velocity [ω_W; ṗ_W] of the body origin.
Vector6d freeJointVelocityToWorld(const Isometry3d& X_WB, const Vector6d& v);
/// Inverse of freeJointVelocityToWorld.
Vector6d freeJointVelocityFromWorld(const Isometry3d& X_WB, const Vector6d& Vw);
/// Wrench [τ_W; f_W] (world coordinates, torque about the body origin) →
/// free-joint generalized force (power-conjugate to the body twist).
Vector6d freeJointForceFromWorld(const Isometry3d& X_WB, const Vector6d& Fw);

/// Body twist → spatial twist at the world origin [ω_W; v_O] (Featherstone's
/// spatial velocity in world coordinates).
Vector6d freeJointVelocityToSpatial(const Isometry3d& X_WB, const Vector6d& v);
/// Spatial wrench at the world origin [n_O; f_W] → free-joint generalized force.
Vector6d freeJointForceFromSpatial(const Isometry3d& X_WB, const Vector6d& Fs);

}  // namespace articula

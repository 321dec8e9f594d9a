#pragma once
// Per-type joint kinematics: X_J(q), motion subspace S(q) and its time
// derivative in the joint (child-side) frame, and configuration updates.
// Packing per type is given in docs/conventions.md.

#include "model.hpp"

namespace articula::detail {

// X_J(q): pose of the joint's child-side frame in its parent-side frame.
SE3 jointTransform(const Model& m, int j, const double* q);
// Motion subspace S(q) (6 × nv), joint child-side frame coordinates.
void jointMotionSubspace(const Model& m, int j, const double* q, Eigen::Ref<Matrix6Xd> S);
// Ṡ(q, q̇) (6 × nv), joint child-side frame coordinates; only for joints
// whose S is not constant (others: zero).
void jointMotionSubspaceDot(const Model& m, int j, const double* q, const double* v, Eigen::Ref<Matrix6Xd> Sdot);
// qOut = q ⊕ h·v (Lie-group update for ball/free, addition otherwise).
void jointIntegrate(JointType type, const double* q, const double* v, double h, double* qOut);
// q̇ = G(q)·v as an nq-vector (quaternion derivative for ball/free).
void jointPositionDerivative(JointType type, const double* q, const double* v, double* qdot);
// Neutral configuration (zeros, identity quaternion).
void jointNeutral(JointType type, double* q);
// Normalises quaternions in place.
void jointNormalize(JointType type, double* q);
// Unit axes of an Euler order.
std::array<Vector3d, 3> eulerAxes(EulerOrder order);

}  // namespace articula::detail

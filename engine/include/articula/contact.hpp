#pragma once
/// @file
/// Contacts produced by World::step() and the per-step solver diagnostics.

#include <articula/frame.hpp>
#include <articula/shape.hpp>
#include <articula/types.hpp>

#include <cstdint>
#include <string>

namespace articula {

/// One contact point of the last step.
///
/// Lifetime: the view returned by World::getContacts() is valid until the
/// next step(), reset(), topology change or clear(); copy what you keep.
/// Order: by shape pair (in the order Bullet's broadphase reports pairs,
/// deterministic for a given world), then by point within a pair.
struct Contact {
  Frame frameA;  ///< link, rigid body, or the world frame (static shapes)
  Frame frameB;
  Shape shapeA;
  Shape shapeB;
  Vector3d point = Vector3d::Zero();    ///< world coordinates (m), midway between the two surfaces
  Vector3d normal = Vector3d::UnitZ();  ///< unit, world coordinates, from B towards A (the direction A is pushed)
  double depth = 0.0;                   ///< penetration (m); > 0 overlapping, < 0 a gap (speculative contact)
  double normalImpulse = 0.0;           ///< impulse on A along `normal` during the step (N·s), ≥ 0
  Vector3d frictionImpulse = Vector3d::Zero();  ///< tangential impulse on A, world coordinates (N·s)
  int age = 0;                                  ///< number of earlier steps this contact point persisted
};

/// What the constraint stage did in the last step.
struct StepDiagnostics {
  int numContacts = 0;  ///< contact points
  int numRows = 0;      ///< constraint rows (contacts, friction, limits, joint friction, closures, couplers, locks)
  int numIslands = 0;   ///< independent problems solved
  /// Projected Gauss–Seidel sweeps or Newton iterations (max over islands),
  /// or pivots (sum over islands).
  int iterations = 0;
  int innerIterations = 0;  ///< Newton methods: linear-solver iterations, summed over Newton steps and islands
  /// How far the solve is from solving its problem, as a velocity error
  /// (m/s or rad/s; largest over rows): the complementarity error of the
  /// boxed problem (projected Gauss–Seidel, pivoting, Newton) or the
  /// optimality error of the convex problem (docs/contacts.md).
  double residual = 0.0;
  bool converged = true;  ///< residual ≤ ConstraintSolverOptions::convergenceTolerance
  bool fallback = false;  ///< the pivoting method failed on an island and projected Gauss–Seidel solved it
  /// Semi-implicit Euler made a chain's velocity update implicit in the
  /// velocity-product terms, because a link of it turned fast and the
  /// explicit update was stiff (docs/loop-closures.md, "Fast chains").
  bool implicitVelocityProducts = false;
  bool failed = false;  ///< the step produced non-finite values; the previous state was kept
  std::string message;  ///< what went wrong (empty when nothing did)
};

}  // namespace articula

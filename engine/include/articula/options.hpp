#pragma once
/// @file
/// Value objects for world, rigid-body and link construction.

#include <articula/types.hpp>

#include <string>
#include <vector>

namespace articula {

/// Time integration scheme of World::step().
enum class Integrator {
  SemiImplicitEuler,  ///< v ← v + h·v̇, then q ← q ⊕ h·v; springs and damping implicit (default)
  RungeKutta4,        ///< classical fourth-order Runge–Kutta; for contact-free scenes
};

/// How penetration of contacts is removed.
enum class ErrorCorrection {
  Baumgarte,     ///< a velocity bias errorReduction·(depth − allowedPenetration)/h in the contact rows (adds energy)
  SplitImpulse,  ///< a separate position-level solve; the correction moves positions but leaves velocities untouched
};

/// The velocity-level constraint problem solved once per step (contacts,
/// friction, joint limits, joint friction, loop closures, couplers,
/// actuator locks). Method names (docs/contacts.md has the capability
/// matrix):
///   "projected-gauss-seidel"  sweeps over the rows, every second one taking the contact normals back to
///                             front; maxIterations, tolerance and warm start apply (default)
///   "direct-pivoting"         Dantzig-style principal pivoting on each island's Delassus matrix;
///                             exact up to round-off, falls back to projected Gauss–Seidel on failure
///   "nonsmooth-newton"        the same boxed complementarity problem written as Fischer–Burmeister
///                             equations, solved by Newton iterations with a preconditioned conjugate
///                             residual inner solve that never forms the Delassus matrix
///   "convex"                  a strictly convex problem in the velocities with a regularised Coulomb
///                             cone (exact circle, not a pyramid), solved by Newton with exact line
///                             search; unique solution, converges from any start
struct ConstraintSolverOptions {
  std::string method = "projected-gauss-seidel";
  int maxIterations = 50;  ///< projected Gauss–Seidel sweeps, or Newton iterations, per island
  /// Projected Gauss–Seidel: stop when no impulse changes more than this in
  /// a sweep (N·s), or when the residual is below convergenceTolerance / 1000.
  double tolerance = 1e-10;
  bool warmStart = true;       ///< start from the previous step's impulses of persisting contacts
  int frictionDirections = 4;  ///< pyramid edges, even, ≥ 4: frictionDirections/2 two-sided rows ("convex": a cone)
  double restitutionThreshold = 0.05;  ///< approach speed below which restitution is ignored (m/s)
  ErrorCorrection errorCorrection = ErrorCorrection::Baumgarte;
  double errorReduction = 0.2;         ///< fraction of penetration removed per step (ERP), in [0, 1]
  double allowedPenetration = 1e-4;    ///< penetration left uncorrected (m), ≥ 0
  double maxCorrectionVelocity = 1.0;  ///< cap on the separating speed the correction may add (m/s), > 0
  double constraintForceMixing =
      1e-8;  ///< softness of contact rows: added to their Delassus diagonal as a fraction of it (CFM)
  double limitErrorReduction = 1.0;  ///< fraction of a joint-limit violation removed per step
  /// A solve counts as converged when its residual (StepDiagnostics::residual,
  /// a velocity error in m/s or rad/s) is at most this; the Newton methods
  /// stop there. An unconverged solve is reported, never silent.
  double convergenceTolerance = 1e-6;
  int krylovIterations = 40;  ///< "nonsmooth-newton" and large "convex" islands: inner iterations per Newton step
  /// "convex": regularisation R of every row as a fraction of its Delassus
  /// diagonal (dimensionless, > 0). A contact then yields R·λ of velocity
  /// under load λ: smaller is stiffer and harder to solve.
  double convexRegularization = 1e-3;
};

/// The constraint solver methods, in the order of ConstraintSolverOptions' list.
const std::vector<std::string>& constraintSolverMethods();

/// Whether `method` names a constraint solver method.
bool isConstraintSolverMethod(const std::string& method);

/// When a step counts as diverged. A diverged step is rejected like one
/// that produced non-finite values: the previous state is kept, the step's
/// StepDiagnostics say `failed` with the reason, and a warning is recorded
/// (docs/conventions.md, "Divergence").
struct DivergenceOptions {
  /// Largest magnitude of any velocity coordinate (rad/s or m/s); ≤ 0 turns
  /// the check off.
  double maxSpeed = 1e4;
  /// A step after which the total energy (kinetic + gravity + springs)
  /// exceeds its baseline plus the work of the applied forces by more than
  /// this fraction of the largest kinetic energy since the baseline, and by
  /// more than the floor, is rejected; ≤ 0 turns the check off. The baseline
  /// is taken when the simulation starts and whenever the state, the gravity
  /// or the time step is written from outside a step. Not checked while the
  /// world has free (driven) frames, which may do work through contacts.
  double energyGainFraction = 0.5;
  /// The floor of that gain (J): the larger of this and the energy of
  /// lifting every body's mass by 1 cm against gravity.
  double energyFloor = 1e-6;
};

/// World-wide settings.
struct WorldOptions {
  Vector3d gravity{0.0, 0.0, -9.81};  ///< gravitational acceleration in the world frame (m/s²)
  double timeStep = 1e-3;             ///< step size h (s), > 0
  /// Contacts, limits and joint friction are solved with SemiImplicitEuler
  /// only; RungeKutta4 ignores them (a warning is recorded once).
  Integrator integrator = Integrator::SemiImplicitEuler;
  ConstraintSolverOptions solver;
  DivergenceOptions divergence;  ///< what makes a step count as diverged
};

/// Mass properties of a body. The rotational inertia is about the centre of
/// mass, with axes parallel to the body frame.
struct Inertia {
  double mass = 1.0;                ///< kg, ≥ 0
  Vector3d com = Vector3d::Zero();  ///< centre of mass in the body frame (m)
  Matrix3d rotational =
      Matrix3d::Identity();  ///< about the COM, body axes (kg·m²); symmetric, PSD, triangle inequality

  /// Solid box of side lengths `size` (m) and the given mass, COM at the origin.
  static Inertia box(double mass, const Vector3d& size);
  /// Solid sphere of `radius` (m).
  static Inertia sphere(double mass, double radius);
  /// Solid cylinder of `radius` and `length` along z (m).
  static Inertia cylinder(double mass, double radius, double length);
  /// Point mass at `com` (zero rotational inertia).
  static Inertia pointMass(double mass, const Vector3d& com);
  /// Solid capsule: a cylinder of `radius` and `length` along z closed by a
  /// hemisphere at each end (the shape of Geometry::capsule), COM at the origin.
  static Inertia capsule(double mass, double radius, double length);
  /// Solid ellipsoid of semi-axes `semiAxes` along x, y, z (m).
  static Inertia ellipsoid(double mass, const Vector3d& semiAxes);

  /// Adds `part`, whose mass properties are given in a frame at pose `X` in
  /// this inertia's frame: the masses add, the centres of mass average by
  /// mass, and both rotational inertias move to the common centre
  /// (parallel-axis theorem). Adding to a zero mass gives `part` moved by X.
  Inertia& add(const Inertia& part, const Isometry3d& X = Isometry3d::Identity());
  /// Zero mass, centre at the origin, zero rotational inertia: the start of a sum.
  static Inertia zero();
};

/// Initial data of a free-floating rigid body.
struct RigidBodyOptions {
  Inertia inertia;                              ///< mass properties in the body frame
  Isometry3d pose = Isometry3d::Identity();     ///< X_WB, body frame in the world
  Vector3d linearVelocity = Vector3d::Zero();   ///< velocity of the body origin, world coordinates (m/s)
  Vector3d angularVelocity = Vector3d::Zero();  ///< world coordinates (rad/s)
};

/// Construction data of a link.
struct LinkOptions {
  std::string name;  ///< unique in the multibody; empty = autogenerated ("link", "link_1", ...)
  Inertia inertia;   ///< mass properties in the link frame
};

}  // namespace articula

#pragma once
// Helpers for the tests that build and step worlds: construction data,
// default constants, run lengths, solver selection and state checks.

#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <string>

// Sanitizer and unoptimised builds simulate shorter spans (and smaller
// scenes): they are there to catch memory and undefined-behaviour errors;
// the optimised build runs the full scenarios.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(NDEBUG)
#define ARTICULA_TEST_REDUCED_RUNS 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#ifndef ARTICULA_TEST_REDUCED_RUNS
#define ARTICULA_TEST_REDUCED_RUNS 1
#endif
#endif
#endif

namespace articula::test {

/// True in sanitizer and unoptimised builds, whose long simulations run
/// over shorter spans.
#ifdef ARTICULA_TEST_REDUCED_RUNS
inline constexpr bool kReducedRuns = true;
#else
inline constexpr bool kReducedRuns = false;
#endif

inline constexpr double kG = 9.81;  // |default gravity| (m/s²), along −z
inline constexpr double kH = 1e-3;  // default time step (s)
inline const QString kPgs = QStringLiteral("projected-gauss-seidel");
inline const QString kPivoting = QStringLiteral("direct-pivoting");
inline const QString kNewton = QStringLiteral("nonsmooth-newton");
inline const QString kConvex = QStringLiteral("convex");

/// Number of default time steps in `seconds`.
inline int stepsFor(double seconds) {
  return static_cast<int>(std::lround(seconds / kH));
}

/// Options for a solver method name, or "rk4" for the RK4 integrator
/// (closure rows solved at the acceleration level in each stage).
inline WorldOptions optionsFor(const QString& method) {
  WorldOptions o;
  if (method == "rk4") {
    o.integrator = Integrator::RungeKutta4;
  } else {
    o.solver.method = method.toStdString();
  }
  return o;
}

/// Whether `method` solves its rows exactly (up to round-off): the two
/// boxed-LCP methods and the Newton method on single rows. The convex
/// method's rows are compliant by its regularisation (docs/contacts.md):
/// a row misses its velocity target by up to convexRegularization × 1e-3 of
/// the velocity change its impulse makes, and by the convergence tolerance.
inline bool isCompliantMethod(const QString& method) {
  return method == QStringLiteral("convex");
}

/// Checks that every step's convergence report is honest: `converged` is
/// exactly "residual within the tolerance", the residual is finite, and a
/// run of unconverged steps left a warning (reported()).
struct ConvergenceCheck {
  long steps = 0;
  long unconverged = 0;
  double worst = 0.0;  ///< largest residual of an unconverged step (m/s)
  QString failure;     ///< the first inconsistency, empty while there is none

  /// Records the last step; false (and `failure` set) on an inconsistency.
  bool record(const World& world) {
    const StepDiagnostics& d = world.getStepDiagnostics();
    ++steps;
    const double tol = world.getOptions().solver.convergenceTolerance;
    if (failure.isEmpty() && !std::isfinite(d.residual)) failure = QString("step %1: non-finite residual").arg(steps);
    if (failure.isEmpty() && d.converged != (d.residual <= tol)) {
      failure = QString("step %1: converged = %2 with residual %3 (tolerance %4)")
                    .arg(steps)
                    .arg(d.converged)
                    .arg(d.residual, 0, 'g', 10)
                    .arg(tol, 0, 'g', 10);
    }
    if (!d.converged) {
      ++unconverged;
      worst = std::max(worst, d.residual);
    }
    return failure.isEmpty();
  }
  /// Whether the unconverged steps, if any, were reported as a warning.
  bool reported(const World& world) const {
    if (unconverged == 0) return true;
    for (const std::string& w : world.getWarnings())
      if (w.find("did not converge") != std::string::npos) return true;
    return false;
  }
};

/// Data column "method" with a row for each constraint solver.
inline void addSolverRows() {
  QTest::addColumn<QString>("method");
  QTest::newRow("projected-gauss-seidel") << kPgs;
  QTest::newRow("direct-pivoting") << kPivoting;
  QTest::newRow("nonsmooth-newton") << kNewton;
  QTest::newRow("convex") << kConvex;
}

inline bool stateIsFinite(const World& world) {
  return world.getPositions().allFinite() && world.getVelocities().allFinite();
}

inline double totalEnergy(const World& world) {
  return world.computeKineticEnergy() + world.computePotentialEnergy();
}

/// Link of mass `mass` with its COM at `com` and a diagonal rotational
/// inertia (0.02, 0.03, 0.04) kg·m².
inline LinkOptions linkOptions(const std::string& name, double mass = 1.0, const Vector3d& com = Vector3d::Zero()) {
  LinkOptions o;
  o.name = name;
  o.inertia.mass = mass;
  o.inertia.com = com;
  o.inertia.rotational = Vector3d(0.02, 0.03, 0.04).asDiagonal();
  return o;
}

/// Rigid body at pose `X` of mass `mass` with a diagonal rotational inertia
/// (0.1, 0.2, 0.25) kg·m².
inline RigidBodyOptions bodyOptions(const Isometry3d& X = Isometry3d::Identity(), double mass = 2.0) {
  RigidBodyOptions o;
  o.inertia.mass = mass;
  o.inertia.rotational = Vector3d(0.1, 0.2, 0.25).asDiagonal();
  o.pose = X;
  return o;
}

}  // namespace articula::test

// Steps `world` `n` times, failing the test on a non-finite state or a
// failed step (the time printed to 10 significant digits).
#define STEP_CHECKED(world, n)                                                                     \
  do {                                                                                             \
    for (int step_i_ = 0; step_i_ < (n); ++step_i_) {                                              \
      (world).step();                                                                              \
      ARTICULA_CHECK(articula::test::stateIsFinite(world) && !(world).getStepDiagnostics().failed, \
                     QString("step failed at t = %1 s: %2")                                        \
                         .arg(articula::test::num((world).getTime(), 10),                          \
                              QString::fromStdString((world).getStepDiagnostics().message)));      \
    }                                                                                              \
  } while (false)

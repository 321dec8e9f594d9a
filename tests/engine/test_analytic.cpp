// Comparisons with closed-form solutions: pendulum periods, torque-free
// rigid-body motion (conservation laws and the axisymmetric precession),
// free fall, and a Free-rooted multibody against a RigidBody.

#include "crossing_detector.hpp"
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;

Vector6d stack(const Vector3d& a, const Vector3d& b) {
  Vector6d x;
  x << a, b;
  return x;
}

Matrix3d boxRotational(double m, const Vector3d& s) {
  return (m / 12.0 *
          Vector3d(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(), s.x() * s.x() + s.y() * s.y()))
      .asDiagonal();
}

// Simulates a 1-DoF pendulum from rest at θ0 and returns the mean period of
// the oscillation about θ_eq, measured over `periods` full periods.
double measurePeriod(World& world, Joint joint, double theta0, double thetaEq, double periodGuess, int periods) {
  joint.setPosition(0, theta0);
  joint.setVelocity(0, 0.0);
  CrossingDetector det;
  det.add(world.getTime(), joint.getPosition(0) - thetaEq, 0.0);
  const double h = world.getOptions().timeStep;
  const int steps = static_cast<int>(std::ceil((periods + 0.3) * periodGuess / h));
  for (int n = 1; n <= steps; ++n) {
    world.step();
    det.add(world.getTime(), joint.getPosition(0) - thetaEq, joint.getVelocity(0));
  }
  if (det.count() < static_cast<std::size_t>(periods)) return std::numeric_limits<double>::quiet_NaN();
  return det.meanPeriod();
}

// A simple pendulum: point mass m at distance L below a pivot placed away
// from the origin, rotating about Y.
Joint buildSimplePendulum(World& world, double m, double L) {
  Multibody mb = world.addMultibody("simple");
  LinkOptions lo;
  lo.name = "bob";
  lo.inertia = Inertia::pointMass(m, Vector3d(0.0, 0.0, -L));
  JointSpec js = JointSpec::revolute(Vector3d::UnitY());
  js.parentOffset = Isometry3d(Eigen::Translation3d(0.3, -0.2, 2.0));
  return mb.addLink(lo, js).getParentJoint();
}

// A compound pendulum (bar) whose joint frame is offset and rotated in both
// the parent (yaw about Z keeps the X axis horizontal) and the link (a roll
// about the joint axis X plus a translation), so the equilibrium angle is
// not 0.
struct Compound {
  Joint joint;
  double m, Iaxis, dPerp, thetaEq;
};

Compound buildCompoundPendulum(World& world) {
  Compound c;
  c.m = 2.0;
  const Vector3d size(0.05, 0.1, 0.8);
  const Vector3d com(0.0, 0.0, -0.35);
  Isometry3d childOffset = Isometry3d::Identity();
  childOffset.linear() = Eigen::AngleAxisd(0.4, Vector3d::UnitX()).toRotationMatrix();
  childOffset.translation() = Vector3d(0.05, 0.02, 0.1);
  Isometry3d parentOffset = Isometry3d::Identity();
  parentOffset.linear() = Eigen::AngleAxisd(0.9, Vector3d::UnitZ()).toRotationMatrix();
  parentOffset.translation() = Vector3d(-0.4, 0.6, 1.5);

  Multibody mb = world.addMultibody("compound");
  LinkOptions lo;
  lo.name = "bar";
  lo.inertia.mass = c.m;
  lo.inertia.com = com;
  lo.inertia.rotational = boxRotational(c.m, size);
  JointSpec js = JointSpec::revolute(Vector3d::UnitX());
  js.parentOffset = parentOffset;
  js.childOffset = childOffset;
  c.joint = mb.addLink(lo, js).getParentJoint();

  // COM in the (child-side) joint frame; the joint axis is its X axis,
  // which is also the link's X axis (childOffset rotates about X).
  const Vector3d cJ = childOffset.inverse() * com;
  c.dPerp = std::hypot(cJ.y(), cJ.z());
  c.Iaxis = boxRotational(c.m, size)(0, 0) + c.m * c.dPerp * c.dPerp;
  // R_X(θ) rotates the (y, z) components by θ; gravity is −z in the parent
  // joint frame (parentOffset only yaws), so the COM hangs straight down
  // when atan2(c_z, c_y) + θ = −π/2.
  double eq = -0.5 * kPi - std::atan2(cJ.z(), cJ.y());
  while (eq > kPi) eq -= 2.0 * kPi;
  while (eq <= -kPi) eq += 2.0 * kPi;
  c.thetaEq = eq;
  return c;
}

// A general inertia: rotated principal axes, COM away from the body origin.
Inertia asymmetricInertia() {
  Inertia I;
  I.mass = 3.0;
  I.com = Vector3d(0.1, -0.05, 0.2);
  const Matrix3d Q = Eigen::AngleAxisd(0.6, Vector3d(0.3, -1.0, 0.5).normalized()).toRotationMatrix();
  I.rotational = Q * Vector3d(1.0, 2.0, 2.8).asDiagonal() * Q.transpose();
  return I;
}

Isometry3d somePose(double angle, const Vector3d& axis, const Vector3d& p) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  X.translation() = p;
  return X;
}

// Angular momentum about the world point `point` from the pose and world
// velocities: L = I_W ω + m (c − point) × v_c.
Vector3d angularMomentumFromState(const Inertia& in, const Isometry3d& X, const Vector3d& w, const Vector3d& vOrigin,
                                  const Vector3d& point) {
  const Matrix3d R = X.linear();
  const Vector3d rc = R * in.com;
  const Vector3d c = X.translation() + rc;
  const Vector3d vc = vOrigin + w.cross(rc);
  return R * in.rotational * R.transpose() * w + in.mass * (c - point).cross(vc);
}

double kineticEnergyFromState(const Inertia& in, const Isometry3d& X, const Vector3d& w, const Vector3d& vOrigin) {
  const Matrix3d R = X.linear();
  const Vector3d vc = vOrigin + w.cross(R * in.com);
  return 0.5 * in.mass * vc.squaredNorm() + 0.5 * w.dot(R * in.rotational * R.transpose() * w);
}

}  // namespace

class TestAnalytic : public QObject {
  Q_OBJECT

 private slots:
  void simplePendulumSmallAnglePeriod();
  void simplePendulumLargeAnglePeriod();
  void simplePendulumSemiImplicitEulerPeriod();
  void compoundPendulumPeriod();
  void torqueFreeBodyConservesMomentumAndEnergy();
  void axisymmetricBodyPrecession();
  void freeFallRk4MatchesParabola();
  void freeFallSemiImplicitEulerMatchesDiscreteFormula();
  void freeMultibodyMatchesRigidBody_data();
  void freeMultibodyMatchesRigidBody();
};

// (a) θ0 = 0.01 rad: T = 2π√(L/g) to 0.1 % (finite-amplitude correction
// θ0²/16 ≈ 6e-6), and the exact elliptic-integral period to 1e-7.
void TestAnalytic::simplePendulumSmallAnglePeriod() {
  WorldOptions opts;
  opts.timeStep = 1e-4;
  opts.integrator = Integrator::RungeKutta4;
  World world(opts);
  const double L = 1.2;
  const double g = opts.gravity.norm();
  Joint joint = buildSimplePendulum(world, 0.7, L);
  const double omega0 = std::sqrt(g / L);
  const double Tlin = 2.0 * kPi / omega0;
  const double theta0 = 0.01;
  const double T = measurePeriod(world, joint, theta0, 0.0, Tlin, 4);
  const double Texact = exactPendulumPeriod(omega0, theta0);
  qInfo("simple pendulum small angle: T = %.12g, 2pi sqrt(L/g) = %.12g (rel %.2e), exact %.12g (rel %.2e)", T, Tlin,
        std::abs(T - Tlin) / Tlin, Texact, std::abs(T - Texact) / Texact);
  QVERIFY2(std::abs(T - Tlin) <= 1e-3 * Tlin, qPrintable(QString("T = %1, 2π√(L/g) = %2").arg(num(T), num(Tlin))));
  QVERIFY2(std::abs(T - Texact) <= 1e-7 * Texact, qPrintable(QString("T = %1, exact %2").arg(num(T), num(Texact))));
}

// θ0 = 1.5 rad: the exact period (16 % longer than the linear one).
void TestAnalytic::simplePendulumLargeAnglePeriod() {
  WorldOptions opts;
  opts.timeStep = 1e-4;
  opts.integrator = Integrator::RungeKutta4;
  World world(opts);
  const double L = 0.8;
  const double g = opts.gravity.norm();
  Joint joint = buildSimplePendulum(world, 1.3, L);
  const double omega0 = std::sqrt(g / L);
  const double theta0 = 1.5;
  const double Texact = exactPendulumPeriod(omega0, theta0);
  const double T = measurePeriod(world, joint, theta0, 0.0, Texact, 4);
  qInfo("simple pendulum theta0 = 1.5: T = %.12g, exact %.12g (rel %.2e)", T, Texact, std::abs(T - Texact) / Texact);
  QVERIFY(Texact > 1.1 * 2.0 * kPi / omega0);
  QVERIFY2(std::abs(T - Texact) <= 1e-7 * Texact, qPrintable(QString("T = %1, exact %2").arg(num(T), num(Texact))));
}

// Semi-implicit Euler with h = 1e-3 (ω0·h ≈ 3.5e-3): symplectic Euler's
// period error is O((ω0 h)²) here; 1e-4 relative.
void TestAnalytic::simplePendulumSemiImplicitEulerPeriod() {
  WorldOptions opts;
  opts.timeStep = 1e-3;
  opts.integrator = Integrator::SemiImplicitEuler;
  World world(opts);
  const double L = 0.8;
  const double g = opts.gravity.norm();
  Joint joint = buildSimplePendulum(world, 1.3, L);
  const double omega0 = std::sqrt(g / L);
  for (double theta0 : {0.01, 1.0}) {
    const double Texact = exactPendulumPeriod(omega0, theta0);
    const double T = measurePeriod(world, joint, theta0, 0.0, Texact, 6);
    qInfo("simple pendulum SIE theta0 = %g: T = %.10g, exact %.10g (rel %.2e)", theta0, T, Texact,
          std::abs(T - Texact) / Texact);
    QVERIFY2(std::abs(T - Texact) <= 1e-4 * Texact,
             qPrintable(QString("θ0 = %1: T = %2, exact %3").arg(num(theta0), num(T), num(Texact))));
  }
}

// Compound pendulum: T = 2π√(I_axis/(m g d)) for small amplitude (0.1 %), the
// exact period at small and large amplitude (1e-7).
void TestAnalytic::compoundPendulumPeriod() {
  for (double amplitude : {0.01, 1.2}) {
    WorldOptions opts;
    opts.timeStep = 1e-4;
    opts.integrator = Integrator::RungeKutta4;
    World world(opts);
    Compound c = buildCompoundPendulum(world);
    const double g = opts.gravity.norm();
    // Equilibrium check: no gravity torque at θ_eq.
    c.joint.setPosition(0, c.thetaEq);
    const VectorXd gEq = c.joint.getMultibody().getGravityForces();
    QVERIFY2(std::abs(gEq[0]) <= 1e-12 * c.m * g * c.dPerp, qPrintable(QString("g(θ_eq) = %1").arg(num(gEq[0]))));
    const double omega0 = std::sqrt(c.m * g * c.dPerp / c.Iaxis);
    const double Tlin = 2.0 * kPi / omega0;
    const double Texact = exactPendulumPeriod(omega0, amplitude);
    const double T = measurePeriod(world, c.joint, c.thetaEq + amplitude, c.thetaEq, Texact, 5);
    qInfo("compound pendulum A = %g: theta_eq = %.6f, T = %.12g, linear %.12g, exact %.12g (rel %.2e)", amplitude,
          c.thetaEq, T, Tlin, Texact, std::abs(T - Texact) / Texact);
    if (amplitude < 0.1) {
      QVERIFY2(std::abs(T - Tlin) <= 1e-3 * Tlin,
               qPrintable(QString("T = %1, 2π√(I/(mgd)) = %2").arg(num(T), num(Tlin))));
    }
    QVERIFY2(std::abs(T - Texact) <= 1e-7 * Texact, qPrintable(QString("T = %1, exact %2").arg(num(T), num(Texact))));
  }
}

// (b) Torque-free asymmetric body with the COM away from the body origin,
// tumbling (ω not along a principal axis), RK4, h = 1e-4, 5 s: angular
// momentum about two fixed points, linear momentum and kinetic energy are
// conserved to 1e-9 relative; the COM moves on a straight line.
void TestAnalytic::torqueFreeBodyConservesMomentumAndEnergy() {
  WorldOptions opts;
  opts.gravity = Vector3d::Zero();
  opts.timeStep = 1e-4;
  opts.integrator = Integrator::RungeKutta4;
  World world(opts);
  const Inertia in = asymmetricInertia();
  RigidBodyOptions ro;
  ro.inertia = in;
  ro.pose = somePose(1.1, Vector3d(1.0, -2.0, 0.5), Vector3d(1.0, 2.0, 3.0));
  ro.angularVelocity = Vector3d(0.8, -1.1, 1.5);
  ro.linearVelocity = Vector3d(0.3, -0.2, 0.5);
  RigidBody body = world.addRigidBody("tumbler", ro);
  const Vector3d pointB(-1.0, 0.5, 2.0);

  const Vector3d L0 = angularMomentumFromState(in, ro.pose, ro.angularVelocity, ro.linearVelocity, Vector3d::Zero());
  const Vector3d LB0 = angularMomentumFromState(in, ro.pose, ro.angularVelocity, ro.linearVelocity, pointB);
  const double T0 = kineticEnergyFromState(in, ro.pose, ro.angularVelocity, ro.linearVelocity);
  const Vector3d c0 = ro.pose * in.com;
  const Vector3d vc0 = ro.linearVelocity + ro.angularVelocity.cross(ro.pose.linear() * in.com);
  const Vector3d P0 = in.mass * vc0;
  // The engine's own momentum/energy functions agree with the definitions.
  ARTICULA_VERIFY_NEAR(body.getAngularMomentum(), L0, 1e-12);
  ARTICULA_VERIFY_NEAR(body.getAngularMomentum(pointB), LB0, 1e-12);
  ARTICULA_VERIFY_NEAR(body.getLinearMomentum(), P0, 1e-12);
  QVERIFY(std::abs(body.computeKineticEnergy() - T0) <= 1e-12 * T0);
  QVERIFY(std::abs(world.computeKineticEnergy() - T0) <= 1e-12 * T0);

  double maxL = 0.0, maxLB = 0.0, maxLEngine = 0.0, maxT = 0.0, maxP = 0.0, maxC = 0.0, maxWchange = 0.0;
  const Vector3d w0 = ro.angularVelocity;
  for (int n = 1; n <= 50000; ++n) {
    world.step();
    if (n % 10 != 0) continue;
    const Isometry3d X = body.getPose();
    const Vector3d w = body.getAngularVelocityWorld();
    const Vector3d v = body.getLinearVelocityWorld();
    const double t = world.getTime();
    maxL = std::max(maxL, (angularMomentumFromState(in, X, w, v, Vector3d::Zero()) - L0).norm() / L0.norm());
    maxLB = std::max(maxLB, (angularMomentumFromState(in, X, w, v, pointB) - LB0).norm() / LB0.norm());
    maxLEngine = std::max(maxLEngine, (body.getAngularMomentum() - L0).norm() / L0.norm());
    maxT = std::max(maxT, std::abs(kineticEnergyFromState(in, X, w, v) - T0) / T0);
    maxP = std::max(maxP, (body.getLinearMomentum() - P0).norm() / P0.norm());
    maxC = std::max(maxC, (X * in.com - (c0 + vc0 * t)).norm() / (1.0 + c0.norm()));
    maxWchange = std::max(maxWchange, (w - w0).norm());
  }
  qInfo(
      "torque-free body: rel drift L_O %.2e, L_B %.2e, L_O(engine) %.2e, T %.2e, P %.2e, COM line %.2e; "
      "max |w - w0| = %.3g rad/s",
      maxL, maxLB, maxLEngine, maxT, maxP, maxC, maxWchange);
  QVERIFY(maxWchange > 0.1);  // really tumbling: ω_W is not constant
  QVERIFY2(maxL <= 1e-9, qPrintable(QString("angular momentum about O drifts %1").arg(num(maxL))));
  QVERIFY2(maxLB <= 1e-9, qPrintable(QString("angular momentum about B drifts %1").arg(num(maxLB))));
  QVERIFY2(maxLEngine <= 1e-9, qPrintable(QString("getAngularMomentum drifts %1").arg(num(maxLEngine))));
  QVERIFY2(maxT <= 1e-9, qPrintable(QString("kinetic energy drifts %1").arg(num(maxT))));
  QVERIFY2(maxP <= 1e-9, qPrintable(QString("linear momentum drifts %1").arg(num(maxP))));
  QVERIFY2(maxC <= 1e-9, qPrintable(QString("COM leaves its line by %1").arg(num(maxC))));
}

// (c) Axisymmetric body I1 = I2 ≠ I3 (COM at the origin, principal axes =
// body axes). Euler's equations
//   I1 ω̇1 = (I1 − I3) ω2 ω3,  I1 ω̇2 = (I3 − I1) ω3 ω1,  ω̇3 = 0
// give, with Ω = (I3 − I1)/I1 · ω3, ω̇1 = −Ω ω2, ω̇2 = Ω ω1, hence
//   ω1 = A cos(Ωt + φ), ω2 = A sin(Ωt + φ), ω3 = const
// (A, φ from ω(0)). In the world, ω = L/I1 + ω3 (1 − I3/I1) e3, so the
// symmetry axis obeys ė3 = ω × e3 = (|L|/I1) L̂ × e3: it cones about the
// constant L at the rate |L|/I1.
void TestAnalytic::axisymmetricBodyPrecession() {
  WorldOptions opts;
  opts.gravity = Vector3d::Zero();
  opts.timeStep = 1e-4;
  opts.integrator = Integrator::RungeKutta4;
  World world(opts);
  const double I1 = 0.5;
  const double I3 = 0.8;
  RigidBodyOptions ro;
  ro.inertia.mass = 2.0;
  ro.inertia.com = Vector3d::Zero();
  ro.inertia.rotational = Vector3d(I1, I1, I3).asDiagonal();
  ro.pose = somePose(0.7, Vector3d(1.0, 1.0, 0.0), Vector3d(0.0, 0.0, 1.0));
  const Vector3d wB0(0.6, -0.3, 1.5);
  const Matrix3d R0 = ro.pose.linear();
  ro.angularVelocity = R0 * wB0;
  RigidBody body = world.addRigidBody("top", ro);

  const double A = std::hypot(wB0.x(), wB0.y());
  const double phi = std::atan2(wB0.y(), wB0.x());
  const double w3 = wB0.z();
  const double Omega = (I3 - I1) / I1 * w3;
  const Vector3d L = R0 * Vector3d(I1 * wB0.x(), I1 * wB0.y(), I3 * wB0.z());
  const double coneRate = L.norm() / I1;
  const Vector3d e30 = R0.col(2);

  ARTICULA_VERIFY_NEAR(body.getAngularVelocity(Frame::World(), body), wB0, 1e-14);
  double maxW = 0.0, maxAxis = 0.0;
  for (int n = 1; n <= 50000; ++n) {
    world.step();
    if (n % 100 != 0) continue;
    const double t = world.getTime();
    const Vector3d wExpected(A * std::cos(Omega * t + phi), A * std::sin(Omega * t + phi), w3);
    const Vector3d wBody = body.getAngularVelocity(Frame::World(), body);
    const Vector3d e3 = body.getPose().linear().col(2);
    const Vector3d e3Expected = Eigen::AngleAxisd(coneRate * t, L.normalized()) * e30;
    maxW = std::max(maxW, (wBody - wExpected).norm());
    maxAxis = std::max(maxAxis, (e3 - e3Expected).norm());
    ARTICULA_CHECK((wBody - wExpected).norm() <= 1e-6,
                   QString("t = %1: ω_B = %2, expected %3").arg(num(t), vec(wBody), vec(wExpected)));
    ARTICULA_CHECK((e3 - e3Expected).norm() <= 1e-6,
                   QString("t = %1: symmetry axis %2, expected %3").arg(num(t), vec(e3), vec(e3Expected)));
    // The body twist's angular part is the same vector.
    ARTICULA_CHECK(
        (Vector3d(body.getSpatialVelocity().head<3>()) - wBody).norm() <= 1e-12,
        QString("t = %1: spatial velocity %2 vs ω_B %3").arg(num(t), vec(body.getSpatialVelocity()), vec(wBody)));
    ARTICULA_CHECK((body.getAngularMomentum(Vector3d(0.0, 0.0, 1.0)) - L).norm() <= 1e-9 * L.norm(),
                   QString("t = %1: L = %2, expected %3")
                       .arg(num(t), vec(body.getAngularMomentum(Vector3d(0.0, 0.0, 1.0))), vec(L)));
  }
  qInfo(
      "precession: Omega = %.4g rad/s, cone rate = %.4g rad/s, max |w_B - analytic| = %.2e, max |e3 - analytic| = %.2e",
      Omega, coneRate, maxW, maxAxis);
}

// (d) Free fall of a spinning body: isotropic rotational inertia about the
// COM (so ω_W is constant and R(t) = exp([ω]t) R0) with the COM away from
// the body origin. Exact: c(t) = c0 + v_c0 t + ½ g t², p(t) = c(t) − R(t) com.
// RK4 (h = 1e-3, 2 s) must match to 1e-9.
void TestAnalytic::freeFallRk4MatchesParabola() {
  WorldOptions opts;
  opts.timeStep = 1e-3;
  opts.integrator = Integrator::RungeKutta4;
  World world(opts);
  RigidBodyOptions ro;
  ro.inertia.mass = 1.3;
  ro.inertia.com = Vector3d(0.2, -0.1, 0.05);
  ro.inertia.rotational = 0.04 * Matrix3d::Identity();
  ro.pose = somePose(2.0, Vector3d(-0.3, 0.2, 1.0), Vector3d(0.5, -1.0, 10.0));
  ro.angularVelocity = Vector3d(0.4, -0.9, 1.3);
  ro.linearVelocity = Vector3d(1.0, 2.0, 3.0);
  RigidBody body = world.addRigidBody("ball", ro);
  const Matrix3d R0 = ro.pose.linear();
  const Vector3d c0 = ro.pose * ro.inertia.com;
  const Vector3d vc0 = ro.linearVelocity + ro.angularVelocity.cross(R0 * ro.inertia.com);
  const Vector3d g = opts.gravity;
  const double wn = ro.angularVelocity.norm();
  const Vector3d axis = ro.angularVelocity / wn;
  double maxP = 0.0, maxR = 0.0;
  for (int n = 1; n <= 2000; ++n) {
    world.step();
    const double t = world.getTime();
    const Matrix3d R = Eigen::AngleAxisd(wn * t, axis).toRotationMatrix() * R0;
    const Vector3d c = c0 + vc0 * t + 0.5 * g * t * t;
    const Vector3d p = c - R * ro.inertia.com;
    const Isometry3d X = body.getPose();
    maxP = std::max(maxP, (X.translation() - p).norm() / std::max(1.0, p.norm()));
    maxR = std::max(maxR, (X.linear() - R).norm());
    ARTICULA_CHECK((X.translation() - p).norm() <= 1e-9 * std::max(1.0, p.norm()) && (X.linear() - R).norm() <= 1e-9,
                   QString("t = %1: p = %2, expected %3; |ΔR| = %4")
                       .arg(num(t), vec(X.translation()), vec(p))
                       .arg(num((X.linear() - R).norm())));
    ARTICULA_CHECK((body.getAngularVelocityWorld() - ro.angularVelocity).norm() <= 1e-9,
                   QString("t = %1: ω = %2").arg(num(t), vec(body.getAngularVelocityWorld())));
  }
  qInfo("free fall RK4: max rel position error %.2e, max rotation error %.2e", maxP, maxR);
}

// Semi-implicit Euler without rotation: v_n = v0 + n h g and
// p_n = p0 + h Σ_{k=1..n} v_k = p0 + n h v0 + h² g n(n+1)/2 (exactly, up to
// rounding), with a rotated pose and the COM away from the origin.
void TestAnalytic::freeFallSemiImplicitEulerMatchesDiscreteFormula() {
  WorldOptions opts;
  opts.timeStep = 1e-3;
  opts.integrator = Integrator::SemiImplicitEuler;
  opts.gravity = Vector3d(0.5, -0.3, -9.81);
  World world(opts);
  RigidBodyOptions ro;
  ro.inertia = asymmetricInertia();
  ro.pose = somePose(0.8, Vector3d(0.2, 1.0, -0.4), Vector3d(0.3, 0.4, 5.0));
  ro.linearVelocity = Vector3d(-1.0, 0.5, 2.0);
  RigidBody body = world.addRigidBody("brick", ro);
  const double h = opts.timeStep;
  const Vector3d p0 = ro.pose.translation();
  for (int n = 1; n <= 1000; ++n) {
    world.step();
    const double dn = static_cast<double>(n);
    const Vector3d vExpected = ro.linearVelocity + dn * h * opts.gravity;
    const Vector3d pExpected = p0 + dn * h * ro.linearVelocity + 0.5 * h * h * dn * (dn + 1.0) * opts.gravity;
    const Isometry3d X = body.getPose();
    ARTICULA_CHECK((X.translation() - pExpected).norm() <= 1e-11 * std::max(1.0, pExpected.norm()) &&
                       (body.getLinearVelocityWorld() - vExpected).norm() <= 1e-11 * std::max(1.0, vExpected.norm()),
                   QString("step %1: p = %2 (expected %3), v = %4 (expected %5)")
                       .arg(n)
                       .arg(vec(X.translation()), vec(pExpected), vec(body.getLinearVelocityWorld()), vec(vExpected)));
    ARTICULA_CHECK((X.linear() - ro.pose.linear()).norm() <= 1e-12 && body.getAngularVelocityWorld().norm() <= 1e-12,
                   QString("step %1: rotation changed; ω = %2").arg(n).arg(vec(body.getAngularVelocityWorld())));
  }
}

void TestAnalytic::freeMultibodyMatchesRigidBody_data() {
  QTest::addColumn<int>("integrator");
  QTest::newRow("semi-implicit Euler") << static_cast<int>(Integrator::SemiImplicitEuler);
  QTest::newRow("RK4") << static_cast<int>(Integrator::RungeKutta4);
}

// (e) A multibody whose single link has a Free root joint is the same
// mechanical system as a RigidBody: identical inertia and initial state give
// identical trajectories (1e-12 per step over 1000 steps, with gravity and
// tumbling).
void TestAnalytic::freeMultibodyMatchesRigidBody() {
  QFETCH(int, integrator);
  WorldOptions opts;
  opts.timeStep = 1e-3;
  opts.integrator = static_cast<Integrator>(integrator);
  const Inertia in = asymmetricInertia();
  const Isometry3d pose = somePose(-0.9, Vector3d(0.4, 0.1, -1.0), Vector3d(-0.5, 1.5, 2.0));
  const Vector3d w(1.2, -0.7, 2.1);
  const Vector3d v(0.4, 0.9, 1.5);

  World wA(opts);
  RigidBodyOptions ro;
  ro.inertia = in;
  ro.pose = pose;
  ro.angularVelocity = w;
  ro.linearVelocity = v;
  RigidBody body = wA.addRigidBody("body", ro);

  World wB(opts);
  Multibody mb = wB.addMultibody("floating");
  LinkOptions lo;
  lo.name = "base";
  lo.inertia = in;
  Link link = mb.addLink(lo, JointSpec::free());
  mb.setPositions(freeJointPositions(pose));
  mb.setVelocities(freeJointVelocityFromWorld(pose, stack(w, v)));
  ARTICULA_VERIFY_NEAR(link.getWorldTransform().matrix(), pose.matrix(), 1e-14);
  ARTICULA_VERIFY_NEAR(link.getAngularVelocity(), w, 1e-14);
  ARTICULA_VERIFY_NEAR(link.getLinearVelocity(), v, 1e-14);
  QVERIFY(std::abs(wA.computeKineticEnergy() - wB.computeKineticEnergy()) <= 1e-12 * wA.computeKineticEnergy());
  QVERIFY(std::abs(wA.computePotentialEnergy() - wB.computePotentialEnergy()) <=
          1e-12 * std::abs(wA.computePotentialEnergy()));

  for (int n = 1; n <= 1000; ++n) {
    wA.step();
    wB.step();
    const Isometry3d XA = body.getPose();
    const Isometry3d XB = link.getWorldTransform();
    const Vector6d VA = body.getSpatialVelocity();
    const Vector6d VB = link.getSpatialVelocity();
    const double errX = test::relativeError(XA.matrix(), XB.matrix());
    const double errV = test::relativeError(VA, VB);
    ARTICULA_CHECK(errX <= 1e-12 && errV <= 1e-12,
                   QString("step %1: pose error %2, twist error %3\nbody twist %4\nlink twist %5")
                       .arg(n)
                       .arg(num(errX), num(errV), vec(VA), vec(VB)));
  }
  ARTICULA_VERIFY_NEAR(body.getAngularMomentum(), mb.getAngularMomentum(), 1e-11);
  ARTICULA_VERIFY_NEAR(body.getLinearMomentum(), mb.getLinearMomentum(), 1e-11);
  ARTICULA_VERIFY_NEAR(Vector6d(wA.getVelocities()), Vector6d(wB.getVelocities()), 1e-12);
}

QTEST_APPLESS_MAIN(TestAnalytic)
#include "test_analytic.moc"

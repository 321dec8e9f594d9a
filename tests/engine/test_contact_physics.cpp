// Contact, friction, restitution, joint-limit and joint-friction physics
// compared with closed-form results: resting, sliding and stacked boxes,
// bouncing and rolling spheres, collisions in free space, joint position,
// velocity and effort limits, Coulomb joint friction, split-impulse error
// correction, failure handling and the contact view.

#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kDigits = 10;  // significant digits of the values in failure messages

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Vector3d position(const RigidBody& body) {
  return body.getPose().translation();
}

RigidBody addBox(World& world, const std::string& name, double mass, const Vector3d& size, const Isometry3d& pose,
                 const Material& material = {}, const Vector3d& linearVelocity = Vector3d::Zero(),
                 const Vector3d& angularVelocity = Vector3d::Zero()) {
  RigidBodyOptions o;
  o.inertia = Inertia::box(mass, size);
  o.pose = pose;
  o.linearVelocity = linearVelocity;
  o.angularVelocity = angularVelocity;
  RigidBody body = world.addRigidBody(name, o);
  body.addCollisionShape({.name = name + "_shape", .geometry = Geometry::box(size), .material = material});
  return body;
}

RigidBody addSphere(World& world, const std::string& name, double mass, double radius, const Isometry3d& pose,
                    const Material& material = {}, const Vector3d& linearVelocity = Vector3d::Zero(),
                    const Vector3d& angularVelocity = Vector3d::Zero()) {
  RigidBodyOptions o;
  o.inertia = Inertia::sphere(mass, radius);
  o.pose = pose;
  o.linearVelocity = linearVelocity;
  o.angularVelocity = angularVelocity;
  RigidBody body = world.addRigidBody(name, o);
  body.addCollisionShape({.name = name + "_shape", .geometry = Geometry::sphere(radius), .material = material});
  return body;
}

// Fails the test when the state of `world` is not finite.
#define REQUIRE_FINITE(world) \
  ARTICULA_CHECK(stateIsFinite(world), QString("non-finite state at t = %1 s").arg(num((world).getTime(), kDigits)))

// ---- box on an incline ------------------------------------------------------

constexpr double kInclineAngle = 25.0 * kPi / 180.0;
constexpr double kBoxSide = 0.2;

// A plane tilted by θ about +y through the world origin and a 0.2 m cube
// (1 kg) aligned with it, resting on it. Both materials use friction μ, so
// the contact coefficient is μ. Returns the box.
RigidBody buildIncline(World& world, double theta, double mu) {
  const Isometry3d tilt = test::rotation(theta, Vector3d::UnitY());
  world.addCollisionShape(
      Frame::World(), {.name = "incline", .geometry = Geometry::plane(), .pose = tilt, .material = Material{mu, 0.0}});
  Isometry3d pose = tilt;
  pose.translation() = tilt.linear() * Vector3d(0.0, 0.0, 0.5 * kBoxSide);
  return addBox(world, "box", 1.0, Vector3d::Constant(kBoxSide), pose, Material{mu, 0.0});
}

// ---- joints -----------------------------------------------------------------

constexpr double kRotorInertia = 0.2;  // about the joint axis (kg·m²)

// One link on a revolute joint about the world z axis (parallel to gravity,
// so gravity does no work), COM on the axis, inertia kRotorInertia about it.
Joint addRotor(World& world, JointSpec spec) {
  Multibody mb = world.addMultibody("rotor");
  LinkOptions lo;
  lo.name = "disc";
  lo.inertia.mass = 1.0;
  lo.inertia.rotational = Vector3d(0.15, 0.15, kRotorInertia).asDiagonal();
  spec.type = JointType::Revolute;
  spec.axis = Vector3d::UnitZ();
  return mb.addLink(lo, spec).getParentJoint();
}

VectorXd scalar(double x) {
  return VectorXd::Constant(1, x);
}

// Angular acceleration of `joint` under the applied torque `tau` from rest,
// by finite differences of the velocity between t = 0.1 s and t = 0.6 s.
double measureRotorAcceleration(World& world, Joint joint, double tau, QString* failure) {
  joint.setForces(scalar(tau));
  for (int n = 0; n < stepsFor(0.1); ++n) world.step();
  const double t1 = world.getTime();
  const double w1 = joint.getVelocity(0);
  for (int n = 0; n < stepsFor(0.5); ++n) world.step();
  const double t2 = world.getTime();
  const double w2 = joint.getVelocity(0);
  if (!stateIsFinite(world)) *failure = "non-finite state";
  return (w2 - w1) / (t2 - t1);
}

// ---- momentum ---------------------------------------------------------------

struct Momentum {
  Vector3d linear = Vector3d::Zero();
  Vector3d angular = Vector3d::Zero();
};

Momentum totalMomentum(const std::vector<RigidBody>& bodies, const Vector3d& point) {
  Momentum m;
  for (const RigidBody& b : bodies) {
    m.linear += b.getLinearMomentum();
    m.angular += b.getAngularMomentum(point);
  }
  return m;
}

}  // namespace

class TestContactPhysics : public QObject {
  Q_OBJECT

 private slots:
  void boxRestsOnGround_data();
  void boxRestsOnGround();
  void unconvergedWarningsDoNotRepeat();
  void boxSticksOnIncline_data();
  void boxSticksOnIncline();
  void boxSlidesDownIncline_data();
  void boxSlidesDownIncline();
  void bouncingSphereReboundHeight();
  void stackOfTenBoxesStands_data();
  void stackOfTenBoxesStands();
  void pendulumStopsAtPositionLimit_data();
  void pendulumStopsAtPositionLimit();
  void slidingSphereStartsRolling();
  void offCentreCollisionConservesMomentum();
  void headOnElasticSpheresReverseRelativeVelocity();
  void manyRandomBoxesStayFiniteAndAboveGround();
  void coulombJointFriction_data();
  void coulombJointFriction();
  void jointVelocityLimit_data();
  void jointVelocityLimit();
  void jointEffortLimit_data();
  void jointEffortLimit();
  void splitImpulseRemovesPenetrationWithoutLaunching_data();
  void splitImpulseRemovesPenetrationWithoutLaunching();
  void nonFiniteForceFailsStepAndKeepsState();
  void contactViewOfRestingBox();
  void frictionPolygonDirections_data();
  void frictionPolygonDirections();
};

// 1. A 1 kg, 0.2 m cube resting on the ground for 5 s: after 0.5 s of
// settling its COM moves vertically by at most 0.1 mm, and at the end its
// linear and angular speeds are below 1e-5.
void TestContactPhysics::boxRestsOnGround_data() {
  addSolverRows();
}

void TestContactPhysics::boxRestsOnGround() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  world.addGroundPlane();
  RigidBody box = addBox(world, "box", 1.0, Vector3d::Constant(kBoxSide), test::translation(0.3, -0.2, 0.5 * kBoxSide));
  STEP_CHECKED(world, stepsFor(0.5));
  const double z0 = position(box).z();
  ARTICULA_CHECK(
      std::abs(z0 - 0.5 * kBoxSide) <= 1e-3,
      QString("box not resting on the ground after settling: z = %1 m, expected %2").arg(num(z0, kDigits)).arg(0.1));
  double maxDrift = 0.0;
  for (int n = 0; n < stepsFor(4.5); ++n) {
    world.step();
    REQUIRE_FINITE(world);
    maxDrift = std::max(maxDrift, std::abs(position(box).z() - z0));
  }
  const double v = box.getLinearVelocityWorld().norm();
  const double w = box.getAngularVelocityWorld().norm();
  qInfo("%s: max vertical drift %.3e m, final |v| %.3e m/s, |w| %.3e rad/s", qPrintable(method), maxDrift, v, w);
  ARTICULA_CHECK(maxDrift <= 1e-4, QString("vertical drift %1 m > 1e-4 m").arg(num(maxDrift, kDigits)));
  ARTICULA_CHECK(v <= 1e-5, QString("residual linear speed %1 m/s > 1e-5").arg(num(v, kDigits)));
  ARTICULA_CHECK(w <= 1e-5, QString("residual angular speed %1 rad/s > 1e-5").arg(num(w, kDigits)));
}

// 2a. θ = 25°, μ = 0.7 > tan θ ≈ 0.466: static friction holds the box; after
// 0.2 s of settling it moves by at most 0.1 mm over 2 s.
void TestContactPhysics::boxSticksOnIncline_data() {
  addSolverRows();
}

void TestContactPhysics::boxSticksOnIncline() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  const double mu = 0.7;
  QVERIFY(mu > std::tan(kInclineAngle));
  RigidBody box = buildIncline(world, kInclineAngle, mu);
  STEP_CHECKED(world, stepsFor(0.2));
  const Vector3d p0 = position(box);
  double maxDisp = 0.0;
  for (int n = 0; n < stepsFor(2.0); ++n) {
    world.step();
    REQUIRE_FINITE(world);
    maxDisp = std::max(maxDisp, (position(box) - p0).norm());
  }
  qInfo("%s: max displacement on the incline %.3e m", qPrintable(method), maxDisp);
  ARTICULA_CHECK(
      maxDisp <= 1e-4,
      QString("box crept %1 m > 1e-4 m on a %2° incline with μ = %3").arg(num(maxDisp, kDigits)).arg(25).arg(mu));
}

// 2b. θ = 25°, μ = 0.2 < tan θ: the box slides with a = g (sin θ − μ cos θ).
// Semi-implicit Euler makes the position exactly quadratic under constant
// acceleration, so the second difference of the along-slope coordinate over
// two 0.3 s windows (after 0.2 s) gives a.
void TestContactPhysics::boxSlidesDownIncline_data() {
  addSolverRows();
}

void TestContactPhysics::boxSlidesDownIncline() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  const double mu = 0.2;
  QVERIFY(mu < std::tan(kInclineAngle));
  RigidBody box = buildIncline(world, kInclineAngle, mu);
  const Matrix3d R = test::rotation(kInclineAngle, Vector3d::UnitY()).linear();
  const Vector3d down = R * Vector3d::UnitX();  // (cos θ, 0, −sin θ)
  const Vector3d normal = R * Vector3d::UnitZ();
  STEP_CHECKED(world, stepsFor(0.2));
  const int window = stepsFor(0.3);
  const double T = window * kH;
  const double s0 = down.dot(position(box));
  STEP_CHECKED(world, window);
  const double s1 = down.dot(position(box));
  STEP_CHECKED(world, window);
  const double s2 = down.dot(position(box));
  const double a = (s2 - 2.0 * s1 + s0) / (T * T);
  const double expected = kG * (std::sin(kInclineAngle) - mu * std::cos(kInclineAngle));
  const double height = normal.dot(position(box));
  qInfo("%s: a = %.6f m/s², expected %.6f (rel. err %.3e); height above the incline %.6f m", qPrintable(method), a,
        expected, std::abs(a / expected - 1.0), height);
  ARTICULA_CHECK(std::abs(height - 0.5 * kBoxSide) <= 1e-3,
                 QString("box left the incline surface: distance %1 m, expected 0.1").arg(num(height, kDigits)));
  ARTICULA_CHECK(std::abs(a / expected - 1.0) <= 0.01,
                 QString("sliding acceleration %1 m/s², expected g(sinθ − μcosθ) = %2")
                     .arg(num(a, kDigits), num(expected, kDigits)));
}

// 3. A sphere (r = 0.1 m, e = 0.5, frictionless) dropped from a bottom height
// of 1 m onto ground with e = 0: restitution max(0.5, 0) = 0.5, so the first
// rebound reaches e² = 0.25 of the drop height (±3 %).
void TestContactPhysics::bouncingSphereReboundHeight() {
  World world;
  world.addGroundPlane();
  const double r = 0.1;
  const double dropHeight = 1.0;
  const double e = 0.5;
  RigidBody ball = addSphere(world, "ball", 1.0, r, test::translation(0.0, 0.0, dropHeight + r), Material{0.0, e});
  bool rebounding = false;
  bool done = false;
  double apex = -std::numeric_limits<double>::infinity();
  double minBottom = std::numeric_limits<double>::infinity();
  for (int n = 0; n < stepsFor(1.2) && !done; ++n) {
    world.step();
    REQUIRE_FINITE(world);
    const double bottom = position(ball).z() - r;
    const double vz = ball.getLinearVelocityWorld().z();
    minBottom = std::min(minBottom, bottom);
    if (!rebounding && vz > 0.0) rebounding = true;
    if (rebounding) {
      apex = std::max(apex, bottom);
      if (vz < 0.0) done = true;
    }
  }
  QVERIFY2(done, "the sphere did not complete its first rebound within 1.2 s");
  const double ratio = apex / dropHeight;
  qInfo("apex %.6f m, ratio %.6f, expected e² = %.4f (rel. err %.3e); max penetration %.3e m", apex, ratio, e * e,
        std::abs(ratio / (e * e) - 1.0), -minBottom);
  ARTICULA_CHECK(std::abs(ratio / (e * e) - 1.0) <= 0.03,
                 QString("rebound ratio %1, expected e² = %2").arg(num(ratio, kDigits), num(e * e, kDigits)));
}

// 4. Ten 1 kg, 0.2 m cubes stacked exactly touching stand for 10 s (1 s in
// reduced runs): no box moves horizontally by more than 1 cm (and the stack
// keeps its height within 2 cm).
void TestContactPhysics::stackOfTenBoxesStands_data() {
  addSolverRows();
}

void TestContactPhysics::stackOfTenBoxesStands() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  world.addGroundPlane();
  constexpr int kCount = 10;
  std::vector<RigidBody> boxes;
  std::vector<Vector3d> start;
  for (int i = 0; i < kCount; ++i) {
    const Isometry3d pose = test::translation(0.0, 0.0, 0.5 * kBoxSide + i * kBoxSide);
    boxes.push_back(addBox(world, "box_" + std::to_string(i), 1.0, Vector3d::Constant(kBoxSide), pose));
    start.push_back(pose.translation());
  }
  const double duration = kReducedRuns ? 1.0 : 10.0;
  const auto t0 = std::chrono::steady_clock::now();
  double maxHorizontal = 0.0;
  double maxVertical = 0.0;
  for (int n = 0; n < stepsFor(duration); ++n) {
    world.step();
    REQUIRE_FINITE(world);
    for (int i = 0; i < kCount; ++i) {
      const Vector3d d = position(boxes[i]) - start[i];
      maxHorizontal = std::max(maxHorizontal, d.head<2>().norm());
      maxVertical = std::max(maxVertical, std::abs(d.z()));
    }
  }
  const double seconds = secondsSince(t0);
  qInfo("%s: max horizontal displacement %.3e m, max vertical %.3e m, %.2f s wall time for %.0f s", qPrintable(method),
        maxHorizontal, maxVertical, seconds, duration);
  ARTICULA_CHECK(maxHorizontal <= 0.01,
                 QString("a box moved %1 m horizontally (> 1 cm)").arg(num(maxHorizontal, kDigits)));
  ARTICULA_CHECK(maxVertical <= 0.02, QString("a box moved %1 m vertically (> 2 cm)").arg(num(maxVertical, kDigits)));
}

// 5. A pendulum (1 kg point mass 0.5 m below a revolute joint about y,
// θ̈ = −(g/L) sin θ) released from rest at ±1.2 rad swings into a limit at
// ∓0.3 rad, where gravity pushes it into the limit. The limit is never
// violated by more than 1e-3 rad, and once the limit is reached the angle
// stays within 1e-3 rad of it (no bounce).
void TestContactPhysics::pendulumStopsAtPositionLimit_data() {
  QTest::addColumn<QString>("method");
  QTest::addColumn<bool>("upper");
  for (const QString& method : {kPgs, kPivoting}) {
    QTest::newRow(qPrintable("upper limit, " + method)) << method << true;
    QTest::newRow(qPrintable("lower limit, " + method)) << method << false;
  }
}

void TestContactPhysics::pendulumStopsAtPositionLimit() {
  QFETCH(QString, method);
  QFETCH(bool, upper);
  World world(optionsFor(method));
  const double L = 0.5;
  const double sign = upper ? 1.0 : -1.0;  // violation = sign·(θ − limit)
  const double limit = -0.3 * sign;
  const double theta0 = -1.2 * sign;
  Multibody mb = world.addMultibody("pendulum");
  LinkOptions lo;
  lo.name = "bob";
  lo.inertia = Inertia::pointMass(1.0, Vector3d(0.0, 0.0, -L));
  JointSpec js = JointSpec::revolute(Vector3d::UnitY());
  if (upper) {
    js.positionUpperLimits = scalar(limit);
  } else {
    js.positionLowerLimits = scalar(limit);
  }
  Joint joint = mb.addLink(lo, js).getParentJoint();
  joint.setPosition(0, theta0);
  // Gravity pushes into the limit there: θ̈(limit) = −(g/L) sin(limit) has the sign of the violation.
  QVERIFY(sign * (-kG / L * std::sin(limit)) > 0.0);

  const double tol = 1e-3;
  double maxViolation = -std::numeric_limits<double>::infinity();
  double maxDeparture = 0.0;
  double contactTime = -1.0;
  for (int n = 0; n < stepsFor(1.5); ++n) {
    world.step();
    REQUIRE_FINITE(world);
    const double violation = sign * (joint.getPosition(0) - limit);
    maxViolation = std::max(maxViolation, violation);
    if (contactTime < 0.0 && violation >= -tol) contactTime = world.getTime();
    if (contactTime >= 0.0) maxDeparture = std::max(maxDeparture, -violation);
  }
  const double finalSpeed = std::abs(joint.getVelocity(0));
  qInfo(
      "%s %s: reached the limit at t = %.3f s, max violation %.3e rad, max departure after contact %.3e rad, final "
      "|θ̇| %.3e rad/s",
      qPrintable(method), upper ? "upper" : "lower", contactTime, maxViolation, maxDeparture, finalSpeed);
  QVERIFY2(contactTime > 0.0, "the pendulum never reached its limit");
  ARTICULA_CHECK(maxViolation <= tol, QString("limit violated by %1 rad (> 1e-3)").arg(num(maxViolation, kDigits)));
  ARTICULA_CHECK(maxDeparture <= tol,
                 QString("the pendulum bounced %1 rad away from the limit (> 1e-3)").arg(num(maxDeparture, kDigits)));
  ARTICULA_CHECK(finalSpeed <= 1e-3,
                 QString("not at rest against the limit: |θ̇| = %1 rad/s").arg(num(finalSpeed, kDigits)));
}

// 6. A solid sphere (I = 2/5 m r²) launched horizontally at v0 without spin
// on ground with μ = 0.5: sliding friction acts until rolling starts at
// t = 2 v0 / (7 μ g), after which v = (5/7) v0 = ω r.
void TestContactPhysics::slidingSphereStartsRolling() {
  World world;
  const double mu = 0.5;
  const double r = 0.1;
  const double v0 = 2.0;
  world.addGroundPlane(0.0, Material{mu, 0.0});
  RigidBody ball =
      addSphere(world, "ball", 1.0, r, test::translation(0.0, 0.0, r), Material{mu, 0.0}, Vector3d(v0, 0.0, 0.0));
  const double rollTime = 2.0 * v0 / (7.0 * mu * kG);
  QVERIFY(rollTime < 0.2);
  STEP_CHECKED(world, stepsFor(0.2));
  const double vEarly = ball.getLinearVelocityWorld().x();
  STEP_CHECKED(world, stepsFor(0.8));
  const double v = ball.getLinearVelocityWorld().x();
  const double wr = ball.getAngularVelocityWorld().y() * r;
  const double expected = 5.0 / 7.0 * v0;
  qInfo(
      "rolling from t = %.4f s: v(0.2 s) = %.6f m/s, v(1 s) = %.6f m/s (expected %.6f, rel. err %.3e), ω r = %.6f "
      "m/s (slip %.3e); height %.6f m",
      rollTime, vEarly, v, expected, std::abs(v / expected - 1.0), wr, std::abs(v - wr) / expected, position(ball).z());
  ARTICULA_CHECK(std::abs(position(ball).z() - r) <= 1e-3,
                 QString("sphere left the ground: centre height %1 m").arg(num(position(ball).z(), kDigits)));
  ARTICULA_CHECK(std::abs(v / expected - 1.0) <= 0.01,
                 QString("rolling speed %1 m/s, expected 5/7 v0 = %2").arg(num(v, kDigits), num(expected, kDigits)));
  ARTICULA_CHECK(std::abs(v - wr) <= 0.01 * std::abs(v),
                 QString("slipping: v = %1 m/s, ω r = %2 m/s").arg(num(v, kDigits), num(wr, kDigits)));
}

// 7a. Gravity off: a 1 kg sphere hits a 3 kg box (0.3 × 0.25 × 0.2 m) off
// centre, with friction (μ = 0.8, sliding at first) and e = 0.5, so both
// bodies leave spinning. The contact impulses are equal and opposite and act
// at one point, so the total linear momentum and the angular momentum about
// a fixed point change only by what the free motion changes them.
//
// The free-joint step advances the world linear velocity exactly
// (docs/conventions.md), so the total linear momentum must be conserved as
// it is. The angular velocity follows Euler's equations with an explicit
// step, which does not conserve the angular momentum of a spinning
// asymmetric box exactly; the balance is therefore checked on the discrete
// scheme, step by step: with R the rotation, c the COM, w its world velocity
// and ω the world angular velocity at the start of a step, the update is
// m (w⁺ − w) = P and R (I_B (ω⁺_B − ω_B) + h ω_B × I_B ω_B) = (p − c) × P for
// an impulse P at p. Summed over both bodies, Σ P and
// Σ (c − o) × P + (p − c) × P must vanish to 1e-9 of the initial momenta.
void TestContactPhysics::offCentreCollisionConservesMomentum() {
  WorldOptions opts;
  opts.gravity = Vector3d::Zero();
  World world(opts);
  const double h = opts.timeStep;
  RigidBody box = addBox(world, "box", 3.0, Vector3d(0.3, 0.25, 0.2), Isometry3d::Identity(), Material{0.8, 0.0},
                         Vector3d(-0.2, 0.0, 0.1));
  RigidBody ball = addSphere(world, "ball", 1.0, 0.1, test::translation(-0.5, 0.0, 0.0), Material{0.8, 0.5},
                             Vector3d(2.0, 0.4, 0.0));
  const std::vector<RigidBody> bodies{box, ball};
  const Vector3d origin(0.3, -0.2, 0.1);
  const Momentum m0 = totalMomentum(bodies, origin);

  struct Pre {
    Matrix3d R;
    Vector3d c, w, omega;
  };
  std::vector<Pre> pre(bodies.size());
  double maxLinear = 0.0;
  double maxAngular = 0.0;
  double maxExchanged = 0.0;
  double preImpactLinear = 0.0;
  double preImpactAngular = 0.0;
  bool touched = false;
  for (int n = 0; n < stepsFor(0.4); ++n) {
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const Isometry3d X = bodies[i].getPose();
      pre[i] = {X.linear(), X.translation(), bodies[i].getLinearVelocityWorld(), bodies[i].getAngularVelocityWorld()};
    }
    world.step();
    REQUIRE_FINITE(world);
    Vector3d sumP = Vector3d::Zero();
    Vector3d sumL = Vector3d::Zero();
    double exchanged = 0.0;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const Inertia in = bodies[i].getInertia();
      const Pre& b = pre[i];
      const Matrix3d Rnext = bodies[i].getPose().linear();
      const Vector3d omegaB = b.R.transpose() * b.omega;
      const Vector3d omegaBNext = Rnext.transpose() * bodies[i].getAngularVelocityWorld();
      const Vector3d P = in.mass * (bodies[i].getLinearVelocityWorld() - b.w);
      const Vector3d angular = b.R * (in.rotational * (omegaBNext - omegaB) + h * omegaB.cross(in.rotational * omegaB));
      sumP += P;
      sumL += (b.c - origin).cross(P) + angular;
      exchanged = std::max(exchanged, P.norm());
    }
    maxLinear = std::max(maxLinear, sumP.norm() / m0.linear.norm());
    maxAngular = std::max(maxAngular, sumL.norm() / m0.angular.norm());
    maxExchanged = std::max(maxExchanged, exchanged);
    touched = touched || !world.getContacts().empty();
    if (!touched) {
      const Momentum m = totalMomentum(bodies, origin);
      preImpactLinear = std::max(preImpactLinear, (m.linear - m0.linear).norm() / m0.linear.norm());
      preImpactAngular = std::max(preImpactAngular, (m.angular - m0.angular).norm() / m0.angular.norm());
    }
  }
  const Momentum m1 = totalMomentum(bodies, origin);
  const double spin = box.getAngularVelocityWorld().norm();
  qInfo(
      "discrete impulse balance: linear %.3e, angular %.3e (relative); largest impulse %.4f N·s; box spin %.4f "
      "rad/s; plain momentum before impact %.3e / %.3e, after 0.4 s %.3e / %.3e",
      maxLinear, maxAngular, maxExchanged, spin, preImpactLinear, preImpactAngular,
      (m1.linear - m0.linear).norm() / m0.linear.norm(), (m1.angular - m0.angular).norm() / m0.angular.norm());
  ARTICULA_CHECK(touched && maxExchanged > 0.1 * m0.linear.norm() && spin > 0.1,
                 QString("no collision: largest impulse %1 N·s, box spin %2 rad/s")
                     .arg(num(maxExchanged, kDigits), num(spin, kDigits)));
  ARTICULA_CHECK(preImpactLinear <= 1e-12 && preImpactAngular <= 1e-12,
                 QString("momentum changed before the impact: %1 / %2")
                     .arg(num(preImpactLinear, kDigits), num(preImpactAngular, kDigits)));
  ARTICULA_CHECK(maxLinear <= 1e-9,
                 QString("contact impulses change the linear momentum by %1 (relative)").arg(num(maxLinear, kDigits)));
  const double linearDrift = (m1.linear - m0.linear).norm() / m0.linear.norm();
  ARTICULA_CHECK(linearDrift <= 1e-9,
                 QString("total linear momentum changed by %1 (relative) over the run").arg(num(linearDrift, kDigits)));
  ARTICULA_CHECK(
      maxAngular <= 1e-9,
      QString("contact impulses change the angular momentum by %1 (relative)").arg(num(maxAngular, kDigits)));
}

// 7b. Two frictionless spheres (1 kg and 2 kg) with e = 1 collide head-on:
// the relative velocity reverses (±2 %). Nothing spins, so the plain linear
// and angular momenta are conserved to 1e-9.
void TestContactPhysics::headOnElasticSpheresReverseRelativeVelocity() {
  WorldOptions opts;
  opts.gravity = Vector3d::Zero();
  World world(opts);
  const Material elastic{0.0, 1.0};
  RigidBody a = addSphere(world, "a", 1.0, 0.1, test::translation(-0.3, 0.0, 0.0), elastic, Vector3d(1.0, 0.0, 0.0));
  RigidBody b = addSphere(world, "b", 2.0, 0.1, test::translation(0.3, 0.0, 0.0), elastic, Vector3d(-1.0, 0.0, 0.0));
  const std::vector<RigidBody> bodies{a, b};
  const Vector3d point(0.1, 0.2, -0.3);
  const Momentum m0 = totalMomentum(bodies, point);
  const Vector3d relBefore = a.getLinearVelocityWorld() - b.getLinearVelocityWorld();
  double maxLinear = 0.0;
  double maxAngular = 0.0;
  bool touched = false;
  for (int n = 0; n < stepsFor(0.4); ++n) {
    world.step();
    REQUIRE_FINITE(world);
    touched = touched || !world.getContacts().empty();
    const Momentum m = totalMomentum(bodies, point);
    maxLinear = std::max(maxLinear, (m.linear - m0.linear).norm() / m0.linear.norm());
    maxAngular = std::max(maxAngular, (m.angular - m0.angular).norm() / m0.angular.norm());
  }
  const Vector3d relAfter = a.getLinearVelocityWorld() - b.getLinearVelocityWorld();
  const double err = (relAfter + relBefore).norm() / relBefore.norm();
  qInfo("relative velocity before %s, after %s (rel. err %.3e); momentum error linear %.3e, angular %.3e",
        qPrintable(xyz(relBefore, kDigits)), qPrintable(xyz(relAfter, kDigits)), err, maxLinear, maxAngular);
  QVERIFY2(touched, "the spheres never touched");
  ARTICULA_CHECK(
      err <= 0.02,
      QString("relative velocity after %1, expected %2").arg(xyz(relAfter, kDigits), xyz(-relBefore, kDigits)));
  ARTICULA_CHECK(maxLinear <= 1e-9, QString("linear momentum changed by %1 (relative)").arg(num(maxLinear, kDigits)));
  ARTICULA_CHECK(maxAngular <= 1e-9,
                 QString("angular momentum changed by %1 (relative)").arg(num(maxAngular, kDigits)));
}

// 8. 500 boxes of random sizes (0.08–0.16 m sides, 1000 kg/m³) and random
// orientations on a jittered, non-overlapping 10 × 10 grid (5 layers between
// 0.3 and 1.7 m) fall onto the ground for 1.5 s (reduced runs: 2 layers of
// 7 × 7 for 1 s): every step stays finite and no box centre sinks more than
// 1 cm below its lowest possible resting height (half its smallest side).
void TestContactPhysics::manyRandomBoxesStayFiniteAndAboveGround() {
  World world;
  world.addGroundPlane();
  std::mt19937 rng(20240611u);
  std::uniform_real_distribution<double> sideDist(0.08, 0.16);
  std::uniform_real_distribution<double> jitter(-0.03, 0.03);
  std::normal_distribution<double> gauss(0.0, 1.0);
  constexpr double kSpacing = 0.35;  // > 2·(largest half-diagonal 0.139) + 2·0.03
  const int layers = kReducedRuns ? 2 : 5;
  const int perSide = kReducedRuns ? 7 : 10;
  const double duration = kReducedRuns ? 1.0 : 1.5;
  const double centre = 0.5 * (perSide - 1);
  std::vector<double> minHeight;
  for (int layer = 0; layer < layers; ++layer) {
    for (int i = 0; i < perSide; ++i) {
      for (int j = 0; j < perSide; ++j) {
        const Vector3d size(sideDist(rng), sideDist(rng), sideDist(rng));
        Isometry3d pose = Isometry3d::Identity();
        pose.linear() = Quaterniond(gauss(rng), gauss(rng), gauss(rng), gauss(rng)).normalized().toRotationMatrix();
        pose.translation() = Vector3d((i - centre) * kSpacing + jitter(rng), (j - centre) * kSpacing + jitter(rng),
                                      0.3 + layer * kSpacing + jitter(rng));
        const double mass = 1000.0 * size.prod();
        addBox(world, "box_" + std::to_string(minHeight.size()), mass, size, pose);
        minHeight.push_back(0.5 * size.minCoeff());
      }
    }
  }
  QCOMPARE(world.numRigidBodies(), static_cast<std::size_t>(layers * perSide * perSide));
  const auto t0 = std::chrono::steady_clock::now();
  double worst = std::numeric_limits<double>::infinity();  // min over boxes and steps of z − lowest resting height
  for (int n = 0; n < stepsFor(duration); ++n) {
    world.step();
    const VectorXd q = world.getPositions();
    ARTICULA_CHECK(q.allFinite() && world.getVelocities().allFinite(),
                   QString("non-finite state at t = %1 s").arg(num(world.getTime(), kDigits)));
    for (std::size_t k = 0; k < minHeight.size(); ++k) {
      const double z = q[static_cast<Eigen::Index>(7 * k + 2)];
      worst = std::min(worst, z - minHeight[k]);
      ARTICULA_CHECK(z >= minHeight[k] - 0.01,
                     QString("box %1 sank: centre z = %2 m, lowest resting height %3 m, t = %4 s")
                         .arg(k)
                         .arg(num(z, kDigits), num(minHeight[k], kDigits), num(world.getTime(), kDigits)));
    }
  }
  qInfo("%zu boxes, %.1f s: %.2f s wall time, deepest centre %.3e m below its resting height, %d contacts at the end",
        minHeight.size(), duration, secondsSince(t0), -worst, world.getStepDiagnostics().numContacts);
}

// 9. Coulomb joint friction f = 0.5 N·m on a rotor (I = 0.2 kg·m² about a
// vertical axis): a torque τ = 0.3 < f holds it still; τ = ±1.5 > f gives
// θ̈ = ±(|τ| − f)/I = ±5 rad/s².
void TestContactPhysics::coulombJointFriction_data() {
  addSolverRows();
}

void TestContactPhysics::coulombJointFriction() {
  QFETCH(QString, method);
  const double f = 0.5;
  JointSpec spec;
  spec.coulombFriction = scalar(f);
  {
    World world(optionsFor(method));
    Joint joint = addRotor(world, spec);
    joint.setForces(scalar(0.3));
    STEP_CHECKED(world, stepsFor(1.0));
    const double q = joint.getPosition(0);
    const double v = joint.getVelocity(0);
    qInfo("%s: τ = 0.3 < f: θ = %.3e rad, θ̇ = %.3e rad/s after 1 s", qPrintable(method), q, v);
    ARTICULA_CHECK(
        std::abs(q) <= 1e-7 && std::abs(v) <= 1e-7,
        QString("static joint friction slipped: θ = %1 rad, θ̇ = %2 rad/s").arg(num(q, kDigits), num(v, kDigits)));
  }
  for (const double tau : {1.5, -1.5}) {
    World world(optionsFor(method));
    Joint joint = addRotor(world, spec);
    QString failure;
    const double a = measureRotorAcceleration(world, joint, tau, &failure);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    const double expected = std::copysign(std::abs(tau) - f, tau) / kRotorInertia;
    qInfo("%s: τ = %.1f: θ̈ = %.8f rad/s², expected %.8f", qPrintable(method), tau, a, expected);
    ARTICULA_CHECK(std::abs(a / expected - 1.0) <= 0.01,
                   QString("τ = %1: θ̈ = %2 rad/s², expected (τ − f)/I = %3")
                       .arg(num(tau, kDigits), num(a, kDigits), num(expected, kDigits)));
  }
}

// 10a. Velocity limit 2 rad/s under a 50 N·m torque: |θ̇| never exceeds the
// limit (beyond 1e-9 relative) and reaches it.
void TestContactPhysics::jointVelocityLimit_data() {
  addSolverRows();
}

void TestContactPhysics::jointVelocityLimit() {
  QFETCH(QString, method);
  const double limit = 2.0;
  JointSpec spec;
  spec.velocityLimits = scalar(limit);
  World world(optionsFor(method));
  Joint joint = addRotor(world, spec);
  joint.setForces(scalar(50.0));
  double maxSpeed = 0.0;
  for (int n = 0; n < stepsFor(0.5); ++n) {
    world.step();
    REQUIRE_FINITE(world);
    maxSpeed = std::max(maxSpeed, std::abs(joint.getVelocity(0)));
  }
  const double finalSpeed = joint.getVelocity(0);
  qInfo("%s: velocity limit %.1f: max |θ̇| = %.15g (relative excess %.3e), final θ̇ = %.15g", qPrintable(method), limit,
        maxSpeed, maxSpeed / limit - 1.0, finalSpeed);
  // The convex method may exceed the limit by its convergence tolerance.
  const double allowance = isCompliantMethod(method) ? WorldOptions{}.solver.convergenceTolerance : 0.0;
  ARTICULA_CHECK(maxSpeed <= limit * (1.0 + 1e-9) + allowance,
                 QString("velocity limit %1 exceeded: |θ̇| = %2").arg(num(limit, kDigits)).arg(maxSpeed, 0, 'g', 17));
  ARTICULA_CHECK(finalSpeed >= limit * (1.0 - 1e-6),
                 QString("did not reach the velocity limit: θ̇ = %1 rad/s").arg(finalSpeed, 0, 'g', 17));
}

// 10b. Effort limit 1 N·m with τ = ±10 N·m: the applied torque is clamped,
// so θ̈ = ±1/I (1e-6 relative).
void TestContactPhysics::jointEffortLimit_data() {
  addSolverRows();
}

void TestContactPhysics::jointEffortLimit() {
  QFETCH(QString, method);
  for (const double tau : {10.0, -10.0}) {
    JointSpec spec;
    spec.effortLimits = scalar(1.0);
    World world(optionsFor(method));
    Joint joint = addRotor(world, spec);
    QString failure;
    const double a = measureRotorAcceleration(world, joint, tau, &failure);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    const double expected = std::copysign(1.0, tau) / kRotorInertia;
    qInfo("%s: effort limit 1, τ = %.0f: θ̈ = %.12f rad/s², expected %.12f", qPrintable(method), tau, a, expected);
    ARTICULA_CHECK(std::abs(a / expected - 1.0) <= 1e-6,
                   QString("effort limit 1 with τ = %1: θ̈ = %2 rad/s², expected 1/I = %3")
                       .arg(num(tau, kDigits), num(a, kDigits), num(expected, kDigits)));
  }
}

// 11. A box starting 5 mm into the ground with split-impulse error
// correction: within 1 s the penetration drops below allowedPenetration +
// 1e-4 m, and the correction never gives the box an upward velocity above
// 1e-3 m/s (a Baumgarte bias would give ERP·(5 mm − allowed)/h ≈ 1 m/s).
void TestContactPhysics::splitImpulseRemovesPenetrationWithoutLaunching_data() {
  addSolverRows();
}

void TestContactPhysics::splitImpulseRemovesPenetrationWithoutLaunching() {
  QFETCH(QString, method);
  WorldOptions opts = optionsFor(method);
  opts.solver.errorCorrection = ErrorCorrection::SplitImpulse;
  World world(opts);
  world.addGroundPlane();
  const double depth0 = 0.005;
  RigidBody box =
      addBox(world, "box", 1.0, Vector3d::Constant(kBoxSide), test::translation(0.0, 0.0, 0.5 * kBoxSide - depth0));
  const double allowed = opts.solver.allowedPenetration;
  const double baumgarteSpeed = opts.solver.errorReduction * (depth0 - allowed) / kH;
  double maxUp = 0.0;
  for (int n = 0; n < stepsFor(1.0); ++n) {
    world.step();
    REQUIRE_FINITE(world);
    maxUp = std::max(maxUp, box.getLinearVelocityWorld().z());
  }
  const double depth = 0.5 * kBoxSide - position(box).z();
  double contactDepth = -std::numeric_limits<double>::infinity();
  for (const Contact& c : world.getContacts()) contactDepth = std::max(contactDepth, c.depth);
  qInfo("%s: depth after 1 s %.3e m (contacts report %.3e), max upward speed %.3e m/s (Baumgarte bias would be %.3f)",
        qPrintable(method), depth, contactDepth, maxUp, baumgarteSpeed);
  QVERIFY2(!world.getContacts().empty(), "no contacts with the ground after 1 s");
  ARTICULA_CHECK(depth <= allowed + 1e-4 && contactDepth <= allowed + 1e-4,
                 QString("penetration not removed: %1 m from the pose, %2 m from the contacts (> %3)")
                     .arg(num(depth, kDigits), num(contactDepth, kDigits), num(allowed + 1e-4, kDigits)));
  ARTICULA_CHECK(std::abs(position(box).z() - 0.5 * kBoxSide) <= 1e-3,
                 QString("box not resting at the surface: z = %1 m").arg(num(position(box).z(), kDigits)));
  ARTICULA_CHECK(maxUp <= 1e-3, QString("split impulse launched the box upward at %1 m/s").arg(num(maxUp, kDigits)));
}

// 12. A NaN external force: step() does not throw, keeps the previous state,
// reports failure and a warning; the force is discarded and the next step
// is normal.
void TestContactPhysics::nonFiniteForceFailsStepAndKeepsState() {
  World world;
  world.addGroundPlane();
  RigidBody box = addBox(world, "box", 1.0, Vector3d::Constant(kBoxSide), test::translation(0.0, 0.0, 0.5 * kBoxSide));
  STEP_CHECKED(world, 100);
  const VectorXd q0 = world.getPositions();
  const VectorXd v0 = world.getVelocities();
  world.clearWarnings();
  box.addExternalForce(Vector3d(std::numeric_limits<double>::quiet_NaN(), 0.0, 0.0));
  try {
    world.step();
  } catch (const std::exception& e) {
    QFAIL(qPrintable(QString("step() threw: %1").arg(QString::fromUtf8(e.what()))));
  }
  const StepDiagnostics& diag = world.getStepDiagnostics();
  QVERIFY2(diag.failed, "a NaN force did not mark the step as failed");
  QVERIFY2(!diag.message.empty(), "failed step without a message");
  QVERIFY2(!world.getWarnings().empty(), "failed step without a warning");
  QVERIFY2(stateIsFinite(world), "non-finite state after a failed step");
  QVERIFY2(world.getPositions() == q0, "positions changed by a failed step");
  QVERIFY2(world.getVelocities() == v0, "velocities changed by a failed step");

  world.step();
  QVERIFY2(!world.getStepDiagnostics().failed, qPrintable("the step after a failed one failed too: " +
                                                          QString::fromStdString(world.getStepDiagnostics().message)));
  QVERIFY(stateIsFinite(world));
  STEP_CHECKED(world, 100);
  ARTICULA_CHECK(std::abs(position(box).z() - 0.5 * kBoxSide) <= 1e-3 && box.getLinearVelocityWorld().norm() <= 1e-3,
                 QString("box not resting after recovery: z = %1, v = %2")
                     .arg(num(position(box).z(), kDigits), xyz(box.getLinearVelocityWorld(), kDigits)));
}

// 13. The contact view of a resting box: every contact pairs the box's body
// frame and shape with the ground's world frame and shape, the normal
// pushes the box up (+z), points lie on the bottom face, friction impulses
// vanish, and the normal impulses of a step sum to m g h (±1 %).
void TestContactPhysics::contactViewOfRestingBox() {
  World world;
  const Shape ground = world.addGroundPlane();
  const double mass = 1.0;
  RigidBody box = addBox(world, "box", mass, Vector3d::Constant(kBoxSide), test::translation(0.4, 0.1, 0.5 * kBoxSide));
  const Shape boxShape = box.getCollisionShapes().at(0);
  STEP_CHECKED(world, stepsFor(0.5));
  const double expected = mass * kG * kH;
  double worstSum = 0.0;
  for (int n = 0; n < 100; ++n) {
    world.step();
    const auto contacts = world.getContacts();
    const StepDiagnostics& diag = world.getStepDiagnostics();
    ARTICULA_CHECK(contacts.size() >= 3, QString("%1 contacts for a box face on a plane").arg(contacts.size()));
    ARTICULA_CHECK(diag.numContacts == static_cast<int>(contacts.size()),
                   QString("diagnostics report %1 contacts, view has %2").arg(diag.numContacts).arg(contacts.size()));
    double sum = 0.0;
    for (const Contact& c : contacts) {
      const bool boxIsA = c.frameA == box;
      const Frame& other = boxIsA ? c.frameB : c.frameA;
      const Shape& mine = boxIsA ? c.shapeA : c.shapeB;
      const Shape& theirs = boxIsA ? c.shapeB : c.shapeA;
      ARTICULA_CHECK((boxIsA || c.frameB == box) && other.isWorld() && mine == boxShape && theirs == ground,
                     QString("contact between %1 and %2 does not pair the box with the ground")
                         .arg(QString::fromStdString(c.frameA.name()), QString::fromStdString(c.frameB.name())));
      const Vector3d up = boxIsA ? c.normal : Vector3d(-c.normal);
      ARTICULA_CHECK((up - Vector3d::UnitZ()).norm() <= 1e-6 && std::abs(c.normal.norm() - 1.0) <= 1e-12,
                     QString("normal %1 does not push the box along +z").arg(xyz(c.normal, kDigits)));
      const Vector3d local = c.point - position(box);
      ARTICULA_CHECK(std::abs(c.point.z()) <= 1e-3 && std::abs(local.x()) <= 0.5 * kBoxSide + 1e-3 &&
                         std::abs(local.y()) <= 0.5 * kBoxSide + 1e-3,
                     QString("contact point %1 not on the bottom face").arg(xyz(c.point, kDigits)));
      ARTICULA_CHECK(c.depth <= 1e-3, QString("depth %1 m").arg(num(c.depth, kDigits)));
      ARTICULA_CHECK(c.normalImpulse >= 0.0, QString("negative normal impulse %1").arg(num(c.normalImpulse, kDigits)));
      ARTICULA_CHECK(c.frictionImpulse.norm() <= 1e-4 * expected,
                     QString("friction impulse %1 on flat ground").arg(xyz(c.frictionImpulse, kDigits)));
      ARTICULA_CHECK(c.age > 0, QString("contact age %1 on a resting box").arg(c.age));
      sum += c.normalImpulse;
    }
    worstSum = std::max(worstSum, std::abs(sum / expected - 1.0));
    ARTICULA_CHECK(
        std::abs(sum / expected - 1.0) <= 0.01,
        QString("sum of normal impulses %1 N·s, expected m g h = %2").arg(num(sum, kDigits), num(expected, kDigits)));
  }
  const StepTimings& t = world.getLastStepTimings();
  qInfo("normal impulse sum within %.3e of m g h; last step %.1f µs (collision %.1f, solve %.1f)", worstSum,
        1e6 * t.total, 1e6 * t.collision, 1e6 * t.solve);
  QVERIFY(t.kinematics >= 0.0 && t.collision >= 0.0 && t.dynamics >= 0.0 && t.solve >= 0.0 && t.integration >= 0.0);
  QVERIFY(t.total >= t.collision && t.total >= t.solve && t.total > 0.0);
}

// 14. Friction directions. A box (μ = 0.5) slides on the ground at 3 m/s in
// a direction at angle φ to world x. The friction polygon is a regular
// K-gon circumscribing the Coulomb circle, with face normals at multiples
// of π/(K/2) + π/2: sliding against a face the deceleration is μg, towards
// a vertex μg/cos(π/K). K = 4 at 0 (face) and at 45° (vertex, √2 μg), K = 8
// at 45° (face) and at 22.5° (vertex).
void TestContactPhysics::frictionPolygonDirections_data() {
  QTest::addColumn<int>("directions");
  QTest::addColumn<double>("angle");
  QTest::addColumn<double>("factor");
  const double pi = std::numbers::pi;
  QTest::newRow("K=4, face") << 4 << 0.0 << 1.0;
  QTest::newRow("K=4, vertex") << 4 << pi / 4 << 1.0 / std::cos(pi / 4);
  QTest::newRow("K=8, face") << 8 << pi / 4 << 1.0;
  QTest::newRow("K=8, vertex") << 8 << pi / 8 << 1.0 / std::cos(pi / 8);
}

void TestContactPhysics::frictionPolygonDirections() {
  QFETCH(int, directions);
  QFETCH(double, angle);
  QFETCH(double, factor);
  const double mu = 0.5;
  const double g = 9.81;
  WorldOptions o;
  o.solver.frictionDirections = directions;
  World world(o);
  world.addGroundPlane(0.0, Material{mu, 0.0});
  const Vector3d dir(std::cos(angle), std::sin(angle), 0.0);
  RigidBody box = addBox(world, "box", 1.0, Vector3d(0.2, 0.2, 0.2), test::translation(0.0, 0.0, 0.1),
                         Material{mu, 0.0}, 3.0 * dir);
  world.step(static_cast<std::size_t>(stepsFor(0.05)));
  const double v0 = box.getLinearVelocityWorld().dot(dir);
  world.step(static_cast<std::size_t>(stepsFor(0.2)));
  const double v1 = box.getLinearVelocityWorld().dot(dir);
  const double decel = (v0 - v1) / 0.2;
  const double expected = factor * mu * g;
  qInfo("K = %d, sliding at %.1f°: deceleration %.5f m/s², expected %.5f (rel. err %.2e)", directions,
        angle * 180.0 / std::numbers::pi, decel, expected, std::abs(decel / expected - 1.0));
  ARTICULA_CHECK(v1 > 0.5, QString("the box stopped too early: v = %1 m/s").arg(num(v1, kDigits)));
  ARTICULA_CHECK(std::abs(decel / expected - 1.0) <= 0.01,
                 QString("deceleration %1 m/s², expected %2").arg(num(decel, kDigits), num(expected, kDigits)));
}

// An unconverged solve records a warning when a run of them starts; a
// solve that converges on and off records one, and a new one only after
// a second (1000 steps) of converged solves.
void TestContactPhysics::unconvergedWarningsDoNotRepeat() {
  World w;
  w.addGroundPlane();
  RigidBodyOptions o;
  o.inertia = Inertia::box(1.0, Vector3d::Constant(0.2));
  o.pose.translation() = Vector3d(0.0, 0.0, 0.1);
  RigidBody box = w.addRigidBody("box", o);
  CollisionShapeOptions shape;
  shape.geometry = Geometry::box(Vector3d::Constant(0.2));
  box.addCollisionShape(shape);
  WorldOptions loose = w.getOptions();
  WorldOptions strict = loose;
  strict.solver.convergenceTolerance = 1e-300;  // one sweep after a kick does not meet it
  strict.solver.maxIterations = 1;
  loose.solver.convergenceTolerance = 1e3;  // every solve does
  const auto convergenceWarnings = [&w] {
    int n = 0;
    for (const std::string& s : w.getWarnings()) n += s.find("did not converge") != std::string::npos;
    return n;
  };
  w.setOptions(loose);
  w.step(10);
  QCOMPARE(convergenceWarnings(), 0);
  // On and off: one warning.
  for (int k = 0; k < 20; ++k) {
    w.setOptions(strict);
    box.setVelocityWorld(Vector3d(0.01, 0.0, -0.05), Vector3d(0.0, 0.1, 0.0));
    w.step();
    QVERIFY(!w.getStepDiagnostics().converged);
    w.setOptions(loose);
    w.step(5);
    QVERIFY(w.getStepDiagnostics().converged);
  }
  QCOMPARE(convergenceWarnings(), 1);
  // After a second of converged solves, the next unconverged one warns again.
  w.step(1000);
  w.setOptions(strict);
  box.setVelocityWorld(Vector3d(0.01, 0.0, -0.05), Vector3d(0.0, 0.1, 0.0));
  w.step();
  QVERIFY(!w.getStepDiagnostics().converged);
  QCOMPARE(convergenceWarnings(), 2);
  // A run still going on is reported again once the list is cleared...
  w.step();
  QCOMPARE(convergenceWarnings(), 2);
  w.clearWarnings();
  box.setVelocityWorld(Vector3d(0.01, 0.0, -0.05), Vector3d(0.0, 0.1, 0.0));
  w.step();
  QVERIFY(!w.getStepDiagnostics().converged);
  QCOMPARE(convergenceWarnings(), 1);
  // ... and when the solver method changes (the warning names it).
  WorldOptions other = strict;
  other.solver.method = strict.solver.method == "convex" ? "nonsmooth-newton" : "convex";
  w.setOptions(other);
  box.setVelocityWorld(Vector3d(0.01, 0.0, -0.05), Vector3d(0.0, 0.1, 0.0));
  w.step();
  QVERIFY(!w.getStepDiagnostics().converged);
  QCOMPARE(convergenceWarnings(), 2);
  QVERIFY(w.getWarnings().back().find("(" + other.solver.method + ")") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestContactPhysics)
#include "test_contact_physics.moc"

// The contact acceptance scenes, run with every constraint solver method
// that is meant to hold them, against analytic results and conservation:
// a tower of 20 boxes standing for a minute, heavy boxes on light ones
// (100:1, 1000:1), a pile of 1,000 boxes, a box on an incline just above
// and just below the friction angle, a sphere that starts rolling at 5/7 of
// its sliding speed, and two card-house A-frames whose thrust matches the
// moment balance. Every step's convergence report is checked against its
// residual: a solve that misses the tolerance says so.

#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kDigits = 10;
constexpr double kSide = 0.2;  // box side (m)

RigidBody addBox(World& world, const std::string& name, double mass, const Vector3d& size, const Isometry3d& pose,
                 const Material& material = {}) {
  RigidBodyOptions o;
  o.inertia = Inertia::box(mass, size);
  o.pose = pose;
  RigidBody body = world.addRigidBody(name, o);
  body.addCollisionShape({.name = name + "_shape", .geometry = Geometry::box(size), .material = material});
  return body;
}

// `count` 1 kg cubes stacked exactly touching on a ground plane, bottom first.
std::vector<RigidBody> buildTower(World& world, int count) {
  world.addGroundPlane();
  std::vector<RigidBody> boxes;
  for (int i = 0; i < count; ++i) {
    boxes.push_back(addBox(world, "box_" + std::to_string(i), 1.0, Vector3d::Constant(kSide),
                           test::translation(0.0, 0.0, 0.5 * kSide + i * kSide)));
  }
  return boxes;
}

Vector3d position(const RigidBody& body) {
  return body.getPose().translation();
}

using ConvergenceAudit = ConvergenceCheck;

#define STEP_AUDITED(world, audit, n)                                                             \
  for (int step_ = 0; step_ < (n); ++step_) {                                                     \
    (world).step();                                                                               \
    (audit).record(world);                                                                        \
    ARTICULA_CHECK(stateIsFinite(world),                                                          \
                   QString("non-finite state at t = %1 s").arg(num((world).getTime(), kDigits))); \
    ARTICULA_CHECK(!(world).getStepDiagnostics().failed,                                          \
                   QString::fromStdString((world).getStepDiagnostics().message));                 \
  }                                                                                               \
  ARTICULA_CHECK((audit).failure.isEmpty(), (audit).failure)

void addExactMethodRows() {
  QTest::addColumn<QString>("method");
  QTest::newRow("direct-pivoting") << kPivoting;
  QTest::newRow("nonsmooth-newton") << kNewton;
  QTest::newRow("convex") << kConvex;
}

}  // namespace

class TestContactSolvers : public QObject {
  Q_OBJECT

 private slots:
  void towerOfTwentyStandsAMinute_data();
  void towerOfTwentyStandsAMinute();
  void gaussSeidelReportsWhatItMisses();
  void heavyOnLightStacks_data();
  void heavyOnLightStacks();
  void pileOfAThousandBoxes_data();
  void pileOfAThousandBoxes();
  void inclineAtTheFrictionAngle_data();
  void inclineAtTheFrictionAngle();
  void sphereRollsAtFiveSevenths_data();
  void sphereRollsAtFiveSevenths();
  void cardHouseThrustMatchesMomentBalance_data();
  void cardHouseThrustMatchesMomentBalance();
};

// 20 cubes (1 kg, 0.2 m) stacked exactly touching stand for 60 s (0.5 s in
// reduced runs): after 0.5 s of settling the top box moves by at most 1 mm,
// and every solve converges.
void TestContactSolvers::towerOfTwentyStandsAMinute_data() {
  addExactMethodRows();
}

void TestContactSolvers::towerOfTwentyStandsAMinute() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  const std::vector<RigidBody> boxes = buildTower(world, 20);
  ConvergenceAudit audit;
  STEP_AUDITED(world, audit, stepsFor(0.5));
  const Vector3d top0 = position(boxes.back());
  double drift = 0.0;
  const int steps = stepsFor(kReducedRuns ? 0.5 : 60.0);
  for (int k = 0; k < steps; k += 1000) {
    STEP_AUDITED(world, audit, std::min(1000, steps - k));
    drift = std::max(drift, (position(boxes.back()) - top0).norm());
  }
  qInfo("%s: top box drift %.3e m over %.0f s; %ld of %ld solves unconverged (worst residual %.2e m/s)",
        qPrintable(method), drift, steps * kH, audit.unconverged, audit.steps, audit.worst);
  ARTICULA_CHECK(drift <= 1e-3, QString("the top box drifted %1 m (> 1 mm)").arg(num(drift, kDigits)));
  ARTICULA_CHECK(audit.unconverged == 0, QString("%1 solves did not converge (worst residual %2 m/s)")
                                             .arg(audit.unconverged)
                                             .arg(num(audit.worst, kDigits)));
}

// Projected Gauss–Seidel with its 50 sweeps does not converge on the tower:
// every such step says so (converged = false, a recorded warning), and the
// residual it reports bounds the velocity error it leaves: the top box's
// drift rate is below the worst residual.
void TestContactSolvers::gaussSeidelReportsWhatItMisses() {
  World world(optionsFor(kPgs));
  const std::vector<RigidBody> boxes = buildTower(world, 20);
  ConvergenceAudit audit;
  STEP_AUDITED(world, audit, stepsFor(0.5));
  const Vector3d top0 = position(boxes.back());
  const double seconds = 2.0;
  STEP_AUDITED(world, audit, stepsFor(seconds));
  const double rate = (position(boxes.back()) - top0).norm() / seconds;
  qInfo("projected-gauss-seidel: %ld of %ld solves unconverged, worst residual %.2e m/s; top box drift rate %.2e m/s",
        audit.unconverged, audit.steps, audit.worst, rate);
  QVERIFY2(audit.unconverged > 0, "expected projected Gauss-Seidel not to converge on a 20-box tower in 50 sweeps");
  QVERIFY2(audit.reported(world), "unconverged solves left no warning");
  ARTICULA_CHECK(rate <= audit.worst, QString("drift rate %1 m/s exceeds the reported residual %2 m/s")
                                          .arg(num(rate, kDigits), num(audit.worst, kDigits)));
}

// A 0.2 m box 100 or 1000 times heavier than the 1 kg box it rests on: over
// 5 s (1 s in reduced runs) no contact penetrates more than 1e-4 m and the
// heavy box moves by at most 1 mm.
void TestContactSolvers::heavyOnLightStacks_data() {
  QTest::addColumn<QString>("method");
  QTest::addColumn<double>("ratio");
  for (const QString& m : {kPivoting, kNewton, kConvex}) {
    for (const double ratio : {100.0, 1000.0}) {
      QTest::newRow(qPrintable(QString("%1, %2:1").arg(m).arg(ratio))) << m << ratio;
    }
  }
}

void TestContactSolvers::heavyOnLightStacks() {
  QFETCH(QString, method);
  QFETCH(double, ratio);
  World world(optionsFor(method));
  world.addGroundPlane();
  addBox(world, "light", 1.0, Vector3d::Constant(kSide), test::translation(0.0, 0.0, 0.5 * kSide));
  RigidBody heavy = addBox(world, "heavy", ratio, Vector3d::Constant(kSide), test::translation(0.0, 0.0, 1.5 * kSide));
  ConvergenceAudit audit;
  STEP_AUDITED(world, audit, stepsFor(0.2));
  const Vector3d p0 = position(heavy);
  double depth = 0.0;
  double drift = 0.0;
  for (int n = 0; n < stepsFor(kReducedRuns ? 1.0 : 5.0); ++n) {
    STEP_AUDITED(world, audit, 1);
    for (const Contact& c : world.getContacts()) depth = std::max(depth, c.depth);
    drift = std::max(drift, (position(heavy) - p0).norm());
  }
  qInfo("%s, %.0f:1: deepest contact %.3e m, heavy box drift %.3e m, %ld unconverged", qPrintable(method), ratio, depth,
        drift, audit.unconverged);
  ARTICULA_CHECK(depth <= 1e-4, QString("a contact penetrated %1 m (> 1e-4 m)").arg(num(depth, kDigits)));
  ARTICULA_CHECK(drift <= 1e-3, QString("the heavy box moved %1 m (> 1 mm)").arg(num(drift, kDigits)));
  ARTICULA_CHECK(audit.reported(world), QStringLiteral("unconverged solves left no warning"));
}

// 1,000 cubes released from a 10 × 10 × 10 lattice (0.3 m apart, random
// orientations) fall into a pile for 4 s (0.3 s in reduced runs): the
// state stays finite, no box ends below the ground, every step's
// convergence report matches its residual and unconverged steps are warned
// about; at the end the pile has come to rest (mean speed below 1 cm/s).
void TestContactSolvers::pileOfAThousandBoxes_data() {
  // The Newton methods are left out: on islands of thousands of rows they
  // cost 4× (Newton) and 25× (convex) projected Gauss–Seidel
  // (docs/contacts.md, "Known limits"). Pivoting solves the small islands
  // and hands the large ones to projected Gauss–Seidel, with a warning.
  QTest::addColumn<QString>("method");
  QTest::newRow("projected-gauss-seidel") << kPgs;
  QTest::newRow("direct-pivoting") << kPivoting;
}

void TestContactSolvers::pileOfAThousandBoxes() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  world.addGroundPlane();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> jitter(-0.02, 0.02);
  std::vector<RigidBody> boxes;
  for (int z = 0; z < 10; ++z) {
    for (int y = 0; y < 10; ++y) {
      for (int x = 0; x < 10; ++x) {
        Isometry3d X = Isometry3d::Identity();
        X.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
        X.translation() = Vector3d(0.3 * (x - 4.5) + jitter(rng), 0.3 * (y - 4.5) + jitter(rng), 0.25 + 0.3 * z);
        boxes.push_back(addBox(world, "box_" + std::to_string(boxes.size()), 1.0, Vector3d::Constant(kSide), X));
      }
    }
  }
  ConvergenceAudit audit;
  const double duration = kReducedRuns ? 0.3 : 4.0;
  STEP_AUDITED(world, audit, stepsFor(duration));
  double lowest = 1e9;
  double meanSpeed = 0.0;
  for (const RigidBody& b : boxes) {
    lowest = std::min(lowest, position(b).z());
    meanSpeed += b.getLinearVelocityWorld().norm() / static_cast<double>(boxes.size());
  }
  qInfo("%s: %ld of %ld solves unconverged (worst residual %.2e m/s); lowest centre %.4f m, mean speed %.3e m/s",
        qPrintable(method), audit.unconverged, audit.steps, audit.worst, lowest, meanSpeed);
  // A cube's centre is at least half a side above the ground (less the
  // allowed penetration and a margin for a box caught on an edge).
  ARTICULA_CHECK(lowest >= 0.5 * kSide - 5e-3, QString("a box centre is at %1 m").arg(num(lowest, kDigits)));
  ARTICULA_CHECK(audit.reported(world), QStringLiteral("unconverged solves left no warning"));
  if (!kReducedRuns) {
    ARTICULA_CHECK(meanSpeed <= 0.01, QString("the pile still moves: mean speed %1 m/s").arg(num(meanSpeed, kDigits)));
  }
}

// A 0.2 m cube on a plane tilted by 25°, with μ 0.03 above tan θ (it sticks:
// it moves by at most 0.1 mm in 2 s) and 0.03 below (it slides with
// a = g (sin θ − μ cos θ), within 2 %).
void TestContactSolvers::inclineAtTheFrictionAngle_data() {
  QTest::addColumn<QString>("method");
  QTest::addColumn<double>("offset");
  for (const std::string& m : constraintSolverMethods()) {
    for (const double offset : {0.03, -0.03}) {
      QTest::newRow(
          qPrintable(QString("%1, μ = tanθ %2 0.03").arg(QString::fromStdString(m)).arg(offset > 0 ? '+' : '-')))
          << QString::fromStdString(m) << offset;
    }
  }
}

void TestContactSolvers::inclineAtTheFrictionAngle() {
  QFETCH(QString, method);
  QFETCH(double, offset);
  const double theta = 25.0 * kPi / 180.0;
  const double mu = std::tan(theta) + offset;
  World world(optionsFor(method));
  const Isometry3d tilt = test::rotation(theta, Vector3d::UnitY());
  world.addCollisionShape(
      Frame::World(), {.name = "incline", .geometry = Geometry::plane(), .pose = tilt, .material = Material{mu, 0.0}});
  Isometry3d pose = tilt;
  pose.translation() = tilt.linear() * Vector3d(0.0, 0.0, 0.5 * kSide);
  RigidBody box = addBox(world, "box", 1.0, Vector3d::Constant(kSide), pose, Material{mu, 0.0});
  const Vector3d down = tilt.linear() * Vector3d::UnitX();
  ConvergenceAudit audit;
  STEP_AUDITED(world, audit, stepsFor(0.2));
  if (offset > 0.0) {
    const Vector3d p0 = position(box);
    STEP_AUDITED(world, audit, stepsFor(2.0));
    const double moved = (position(box) - p0).norm();
    qInfo("%s: μ = %.4f > tan θ: moved %.3e m in 2 s", qPrintable(method), mu, moved);
    ARTICULA_CHECK(moved <= 1e-4, QString("the box crept %1 m (> 1e-4 m)").arg(num(moved, kDigits)));
    return;
  }
  const int window = stepsFor(0.3);
  const double T = window * kH;
  const double s0 = down.dot(position(box));
  STEP_AUDITED(world, audit, window);
  const double s1 = down.dot(position(box));
  STEP_AUDITED(world, audit, window);
  const double s2 = down.dot(position(box));
  const double a = (s2 - 2.0 * s1 + s0) / (T * T);
  const double expected = kG * (std::sin(theta) - mu * std::cos(theta));
  qInfo("%s: μ = %.4f < tan θ: a = %.5f m/s², expected %.5f (rel. err %.2e)", qPrintable(method), mu, a, expected,
        std::abs(a / expected - 1.0));
  ARTICULA_CHECK(std::abs(a / expected - 1.0) <= 0.02,
                 QString("sliding acceleration %1, expected %2").arg(num(a, kDigits), num(expected, kDigits)));
}

// A solid sphere (r = 0.1 m) launched sliding at v0 = 2 m/s without spin on
// ground with μ = 0.3 rolls without slipping from t = 2 v0 / (7 μ g) on, at
// 5/7 v0 (angular momentum about the contact point is conserved).
void TestContactSolvers::sphereRollsAtFiveSevenths_data() {
  addSolverRows();
}

void TestContactSolvers::sphereRollsAtFiveSevenths() {
  QFETCH(QString, method);
  const double r = 0.1;
  const double v0 = 2.0;
  const double mu = 0.3;
  World world(optionsFor(method));
  world.addGroundPlane(0.0, Material{mu, 0.0});
  RigidBodyOptions o;
  o.inertia = Inertia::sphere(1.0, r);
  o.pose = test::translation(0.0, 0.0, r);
  o.linearVelocity = Vector3d(v0, 0.0, 0.0);
  RigidBody ball = world.addRigidBody("ball", o);
  ball.addCollisionShape({.name = "ball_shape", .geometry = Geometry::sphere(r), .material = Material{mu, 0.0}});
  ConvergenceAudit audit;
  const double rollTime = 2.0 * v0 / (7.0 * mu * kG);
  STEP_AUDITED(world, audit, stepsFor(rollTime + 0.3));
  const double v = ball.getLinearVelocityWorld().x();
  const double spin = ball.getAngularVelocityWorld().y() * r;
  qInfo("%s: v = %.6f m/s, expected %.6f (rel. err %.2e); ω r = %.6f", qPrintable(method), v, 5.0 / 7.0 * v0,
        std::abs(v / (5.0 / 7.0 * v0) - 1.0), spin);
  ARTICULA_CHECK(std::abs(v / (5.0 / 7.0 * v0) - 1.0) <= 1e-3,
                 QString("rolling speed %1, expected 5/7 v0 = %2").arg(num(v, kDigits), num(5.0 / 7.0 * v0, kDigits)));
  ARTICULA_CHECK(std::abs(spin - v) <= 1e-3 * v0,
                 QString("still slipping: ω r = %1, v = %2").arg(num(spin, kDigits), num(v, kDigits)));
}

// Two card-house A-frames side by side: in each, two slabs (0.3 × 0.2 ×
// 0.02 m, 0.5 kg) lean 20° from vertical against each other, touching
// through frictionless spheres on their top ends, their feet on ground
// with μ = 1. They stand for 3 s (the spheres move less than 1 mm after
// settling), and the horizontal thrust between the slabs equals the moment
// balance of a slab about its foot: H = m g (x_C − x_F) / (z_S − z_F) with
// C its centre of mass, F its foot contact and S the sphere centre (2 %).
void TestContactSolvers::cardHouseThrustMatchesMomentBalance_data() {
  // Not the convex method: its A-frames creep and fall after about 4 s
  // (docs/contacts.md, "Known limits").
  QTest::addColumn<QString>("method");
  QTest::newRow("projected-gauss-seidel") << kPgs;
  QTest::newRow("direct-pivoting") << kPivoting;
  QTest::newRow("nonsmooth-newton") << kNewton;
}

void TestContactSolvers::cardHouseThrustMatchesMomentBalance() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  world.addGroundPlane(0.0, Material{1.0, 0.0});
  const double L = 0.3;
  const double t = 0.02;
  const double w = 0.2;
  const double r = 0.02;
  const double mass = 0.5;
  const double alpha = 20.0 * kPi / 180.0;
  struct Slab {
    RigidBody body;
    double side;  // +1: the right slab (leans left), −1: the left one
  };
  std::vector<Slab> slabs;
  for (int frame = 0; frame < 2; ++frame) {
    const double y = 0.4 * frame;
    for (const double side : {1.0, -1.0}) {
      // The slab's axis runs from its foot up to its top end, where the
      // sphere (centre on the axis) touches the other slab's sphere at x = 0.
      const Matrix3d R = Eigen::AngleAxisd(-side * alpha, Vector3d::UnitY()).toRotationMatrix();
      const Vector3d axis = R * Vector3d::UnitZ();
      const Vector3d top(side * r, y, 0.0);  // sphere centre; z fixed below
      Vector3d centre = top - axis * (0.5 * L);
      // Lift so that the lowest corner of the slab touches the ground.
      double lowest = 1e9;
      for (const double a : {-0.5 * t, 0.5 * t})
        lowest = std::min(lowest, (centre + R * Vector3d(a, 0.0, -0.5 * L)).z());
      centre.z() -= lowest;
      Isometry3d X = Isometry3d::Identity();
      X.linear() = R;
      X.translation() = centre;
      RigidBodyOptions o;
      o.inertia = Inertia::box(mass, Vector3d(t, w, L));
      o.pose = X;
      RigidBody body = world.addRigidBody("slab_" + std::to_string(slabs.size()), o);
      body.addCollisionShape({.name = "slab_box_" + std::to_string(slabs.size()),
                              .geometry = Geometry::box(Vector3d(t, w, L)),
                              .material = Material{1.0, 0.0}});
      body.addCollisionShape({.name = "slab_tip_" + std::to_string(slabs.size()),
                              .geometry = Geometry::sphere(r),
                              .pose = test::translation(0.0, 0.0, 0.5 * L),
                              .material = Material{0.0, 0.0}});
      slabs.push_back({body, side});
    }
  }
  ConvergenceAudit audit;
  STEP_AUDITED(world, audit, stepsFor(0.5));
  auto tip = [&](const Slab& s) { return Vector3d(s.body.getPose() * Vector3d(0.0, 0.0, 0.5 * L)); };
  std::vector<Vector3d> tips0;
  for (const Slab& s : slabs) tips0.push_back(tip(s));
  double moved = 0.0;
  double worstThrust = 0.0;
  for (int n = 0; n < stepsFor(3.0); ++n) {
    STEP_AUDITED(world, audit, 1);
    for (std::size_t i = 0; i < slabs.size(); ++i) moved = std::max(moved, (tip(slabs[i]) - tips0[i]).norm());
  }
  // Statics of each slab from the last step's contacts.
  for (const Slab& s : slabs) {
    Vector3d foot = Vector3d::Zero();
    double footImpulse = 0.0;
    double thrust = 0.0;
    for (const Contact& c : world.getContacts()) {
      const bool onA = c.frameA == s.body;
      const bool onB = c.frameB == s.body;
      if (!onA && !onB) continue;
      const Vector3d impulse = (onA ? 1.0 : -1.0) * (c.normalImpulse * c.normal + c.frictionImpulse);
      const bool ground = (onA ? c.frameB : c.frameA).isWorld();
      if (ground) {
        foot += impulse.z() * c.point;
        footImpulse += impulse.z();
      } else {
        thrust += std::abs(impulse.x()) / kH;
      }
    }
    QVERIFY2(footImpulse > 0.0, "a slab has no ground contact");
    foot /= footImpulse;
    const Vector3d com = s.body.getPose().translation();
    const Vector3d sphere = tip(s);
    const double expected = mass * kG * std::abs(com.x() - foot.x()) / (sphere.z() - foot.z());
    worstThrust = std::max(worstThrust, std::abs(thrust / expected - 1.0));
    qInfo("%s: slab thrust %.5f N, moment balance %.5f N", qPrintable(method), thrust, expected);
  }
  qInfo("%s: tips moved %.3e m; thrust rel. err %.2e", qPrintable(method), moved, worstThrust);
  ARTICULA_CHECK(moved <= 1e-3, QString("the A-frames sagged: a tip moved %1 m").arg(num(moved, kDigits)));
  ARTICULA_CHECK(worstThrust <= 0.02,
                 QString("thrust differs from the moment balance by %1 (relative)").arg(num(worstThrust, kDigits)));
}

QTEST_MAIN(TestContactSolvers)
#include "test_contact_solvers.moc"

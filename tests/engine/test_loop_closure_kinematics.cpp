// Kinematics of closed chains: position and velocity projection of loop
// closures and joint couplers (World::projectClosures, World::sync),
// compared with closed-form mechanisms: a Grashof crank–rocker four-bar
// (triangle solution, cross-checked with Freudenstein's equation), an
// offset slider–crank, gear and mimic couplers, plus locked joints,
// position limits, runtime policies and first-order optimality of the
// minimum-norm projection (finite-difference constraint Jacobians).

#include "test_helpers.hpp"

#include <articula/articula.hpp>
#include <articula/loop_closure.hpp>

#include <QtTest/QtTest>

#include <Eigen/SVD>

#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180.0;

// Angle difference wrapped into [−π, π].
double wrapAngle(double x) {
  return std::remainder(x, 2.0 * kPi);
}

// ---------------------------------------------------------------------------
// Four-bar linkage (planar, all joint axes along world z).
//
// Ground pivots O2 = origin (crank) and O4 = origin + (d, 0, 0) (rocker).
// Crank a = 0.1, coupler b = 0.35, rocker c = 0.3, ground d = 0.4:
// s + l = 0.1 + 0.4 = 0.5 < p + q = 0.35 + 0.3 = 0.65 (Grashof) and the
// shortest link is the crank, adjacent to the ground: a crank–rocker.
//
// Serial chain crank → coupler → rocker with revolute z joints:
//   crank joint at O2 (coordinate θ2 = absolute crank angle),
//   coupler joint at the crank tip, parentOffset = T(a,0,0)·Rz(bend3),
//   rocker joint at the coupler's end, parentOffset = T(b,0,0)·Rz(bend4).
// Each link's x axis points along the link. The bends make the zero
// configuration bent (and not singular): crank along +x, coupler along +y,
// rocker along +x, so the rocker tip is at (0.4, 0.35) while O4 = (0.4, 0):
// open by a gap of exactly 0.35 m.
// The closure ties the rocker tip (offset T(c,0,0) in the rocker) to the
// world frame at O4.
constexpr double kA = 0.1;
constexpr double kB = 0.35;
constexpr double kC = 0.3;
constexpr double kD = 0.4;
constexpr double kBend3 = 0.5 * kPi;
constexpr double kBend4 = -0.5 * kPi;

struct FourBar {
  Multibody mb;
  Joint crank, coupler, rocker;
  Link crankLink, couplerLink, rockerLink;
  LoopClosure closure;
  Vector3d origin = Vector3d::Zero();
  Vector3d o4() const { return origin + Vector3d(kD, 0.0, 0.0); }
};

LinkOptions linkOptions(const std::string& name) {
  LinkOptions lo;
  lo.name = name;
  lo.inertia = Inertia::box(1.0, Vector3d(0.1, 0.02, 0.02));
  return lo;
}

FourBar buildFourBar(World& world, const std::string& name, LoopClosureFamily family,
                     const Vector3d& origin = Vector3d::Zero()) {
  FourBar fb;
  fb.origin = origin;
  fb.mb = world.addMultibody(name);
  fb.crankLink =
      fb.mb.addLink(linkOptions("crank_link"), JointSpec::revolute(Vector3d::UnitZ())
                                                   .named("crank")
                                                   .withParentOffset(translation(origin.x(), origin.y(), origin.z())));
  fb.couplerLink =
      fb.mb.addLink(linkOptions("coupler_link"), fb.crankLink,
                    JointSpec::revolute(Vector3d::UnitZ())
                        .named("coupler")
                        .withParentOffset(translation(kA, 0.0, 0.0) * rotation(kBend3, Vector3d::UnitZ())));
  fb.rockerLink = fb.mb.addLink(linkOptions("rocker_link"), fb.couplerLink,
                                JointSpec::revolute(Vector3d::UnitZ())
                                    .named("rocker")
                                    .withParentOffset(translation(kB, 0.0, 0.0) * rotation(kBend4, Vector3d::UnitZ())));
  fb.crank = fb.crankLink.getParentJoint();
  fb.coupler = fb.couplerLink.getParentJoint();
  fb.rocker = fb.rockerLink.getParentJoint();
  LoopClosureSpec spec;
  spec.frameA = Frame::World();
  spec.offsetA = translation(fb.o4().x(), fb.o4().y(), fb.o4().z());
  spec.frameB = fb.rockerLink;
  spec.offsetB = translation(kC, 0.0, 0.0);
  spec.family = family;
  fb.closure = world.addLoopClosure(name + "_closure", spec);
  return fb;
}

// Closed-form position analysis. With the crank pin A = a(cosθ2, sinθ2)
// and v = A − O4 (|v| = f, direction β), the rocker pin B lies on the
// circle of radius c about O4 and of radius b about A; in the triangle
// O4–A–B the angle at O4 is γ, cos γ = (c² + f² − b²)/(2cf), so the
// rocker angle (direction O4 → B) is θ4 = β + σγ, σ = ±1 being the two
// assembly branches. The coupler angle is θ3 = atan2(B − A), the rocker
// link's x axis points B → O4 (angle θ4 + π), and the joint coordinates
// follow from the bends.
struct FourBarSolution {
  double theta3 = 0.0;
  double theta4 = 0.0;
  double rel = 0.0;  // angle from the coupler direction to the rocker's x axis, wrapped
  Vector3d q = Vector3d::Zero();
};

FourBarSolution solveFourBar(double theta2, int sigma) {
  const double Ax = kA * std::cos(theta2);
  const double Ay = kA * std::sin(theta2);
  const double vx = Ax - kD;
  const double vy = Ay;
  const double f = std::hypot(vx, vy);
  const double beta = std::atan2(vy, vx);
  const double gamma = std::acos((kC * kC + f * f - kB * kB) / (2.0 * kC * f));
  FourBarSolution s;
  s.theta4 = beta + static_cast<double>(sigma) * gamma;
  const double Bx = kD + kC * std::cos(s.theta4);
  const double By = kC * std::sin(s.theta4);
  s.theta3 = std::atan2(By - Ay, Bx - Ax);
  s.rel = wrapAngle(s.theta4 + kPi - s.theta3);
  s.q = Vector3d(theta2, wrapAngle(s.theta3 - theta2 - kBend3), s.rel - kBend4);
  return s;
}

// Freudenstein's equation for the same linkage (independent check of the
// triangle solution): cos(θ2 − θ4) = K1 cos θ4 − K2 cos θ2 + K3 with
// K1 = d/a, K2 = d/c, K3 = (a² − b² + c² + d²)/(2ac). Returns the defect.
double freudensteinDefect(double theta2, double theta4) {
  const double K1 = kD / kA;
  const double K2 = kD / kC;
  const double K3 = (kA * kA - kB * kB + kC * kC + kD * kD) / (2.0 * kA * kC);
  return std::cos(theta2 - theta4) - (K1 * std::cos(theta4) - K2 * std::cos(theta2) + K3);
}

// Rocker angle (direction O4 → B) measured from the engine's link frames.
double engineRockerAngle(const FourBar& fb) {
  const Vector3d x = fb.rockerLink.getWorldTransform().linear().col(0);
  return std::atan2(-x.y(), -x.x());
}

// Branch indicator from the engine's frames: sign of (A − O4) × (B − O4)
// (z component), with A the coupler link origin (crank pin) and B the
// rocker link origin (rocker pin). Equals σ of solveFourBar.
int engineBranch(const FourBar& fb) {
  const Vector3d A = fb.couplerLink.getWorldTransform().translation() - fb.o4();
  const Vector3d B = fb.rockerLink.getWorldTransform().translation() - fb.o4();
  const double z = A.x() * B.y() - A.y() * B.x();
  return z > 0.0 ? 1 : (z < 0.0 ? -1 : 0);
}

// Rocker tip in the world from the link frame (independent of the closure).
Vector3d rockerTip(const FourBar& fb) {
  return fb.rockerLink.getWorldTransform() * Vector3d(kC, 0.0, 0.0);
}

VectorXd residualAt(Multibody mb, const LoopClosure& closure, const VectorXd& q) {
  mb.setPositions(q);
  return closure.computeResidual().residual;
}

// Central finite-difference Jacobian of the closure residual with respect
// to the multibody's coordinates (all revolute: q ⊕ δ = q + δ).
MatrixXd fdJacobian(Multibody mb, const LoopClosure& closure, const VectorXd& q, double h) {
  const VectorXd r0 = residualAt(mb, closure, q);
  MatrixXd J(r0.size(), q.size());
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    VectorXd qp = q;
    VectorXd qm = q;
    qp[i] += h;
    qm[i] -= h;
    J.col(i) = (residualAt(mb, closure, qp) - residualAt(mb, closure, qm)) / (2.0 * h);
  }
  mb.setPositions(q);
  return J;
}

QString describeResult(const ClosureProjectionResult& r) {
  return QString("success %1, iterations %2, rows %3, initialResidual %4, finalResidual %5, message '%6'")
      .arg(r.success)
      .arg(r.iterations)
      .arg(r.rows)
      .arg(num(r.initialResidual), num(r.finalResidual), QString::fromStdString(r.message));
}

ClosureProjectionOptions lockOptions(const std::vector<Joint>& locked) {
  ClosureProjectionOptions o;
  o.lockedJoints = locked;
  return o;
}

// ---------------------------------------------------------------------------
// Offset slider–crank: crank r about z at the origin, connecting rod l
// pinned at the crank tip, piston pin at (x, e) on a separate multibody
// whose root is a prismatic joint along world x (coordinate x).
// Closed form: (x − r cos θ)² + (e − r sin θ)² = l², piston on +x:
//   x = r cos θ + sqrt(l² − (r sin θ − e)²).
constexpr double kR = 0.1;
constexpr double kL = 0.35;
constexpr double kE = 0.05;

double pistonPosition(double theta) {
  const double s = kR * std::sin(theta) - kE;
  return kR * std::cos(theta) + std::sqrt(kL * kL - s * s);
}

}  // namespace

class TestLoopClosureKinematics : public QObject {
  Q_OBJECT

 private slots:
  void fourBarCrankRockerFollowsClosedForm_data();
  void fourBarCrankRockerFollowsClosedForm();
  void sliderCrankFollowsClosedForm_data();
  void sliderCrankFollowsClosedForm();
  void unassembledFourBarAssemblesWithMinimalChange();
  void lockedJointsThatCannotCloseFail();
  void positionLimitsSelectTheBranch();
  void syncProjectsOnlyWithProjectPolicy();
  void velocityProjectionIsTangent();
  void gearAndMimicCouplers();
  void disabledAndResidualOnlyClosuresAreNotProjected();
};

// 1. Crank–rocker driven through 360° in 1° steps with the crank locked:
//    rocker angle = closed-form branch solution to 1e-9 rad at every step,
//    branch and continuity kept, crank coordinate exactly as set.
void TestLoopClosureKinematics::fourBarCrankRockerFollowsClosedForm_data() {
  QTest::addColumn<int>("family");
  QTest::addColumn<int>("sigma");
  QTest::newRow("hinge, branch +1") << static_cast<int>(LoopClosureFamily::Hinge) << 1;
  QTest::newRow("hinge, branch -1") << static_cast<int>(LoopClosureFamily::Hinge) << -1;
  QTest::newRow("point, branch +1") << static_cast<int>(LoopClosureFamily::Point) << 1;
  QTest::newRow("point, branch -1") << static_cast<int>(LoopClosureFamily::Point) << -1;
}

void TestLoopClosureKinematics::fourBarCrankRockerFollowsClosedForm() {
  QFETCH(int, family);
  QFETCH(int, sigma);
  World world;
  FourBar fb = buildFourBar(world, "fourbar", static_cast<LoopClosureFamily>(family), Vector3d(0.2, -0.1, 0.3));
  QCOMPARE(fb.closure.numRows(), numResidualRows(static_cast<LoopClosureFamily>(family)));

  // Assemble once from a perturbed copy of the chosen branch.
  const FourBarSolution s0 = solveFourBar(0.0, sigma);
  fb.mb.setPositions(Vector3d(0.0, s0.q[1] + 0.03, s0.q[2] - 0.04));
  QVERIFY2(fb.closure.computeResidual().norm > 1e-3, "the perturbed start should violate the loop");
  {
    const ClosureProjectionResult res = world.projectClosures(lockOptions({fb.crank}));
    QVERIFY2(res.success, qPrintable(describeResult(res)));
    QCOMPARE(res.rows, fb.closure.numRows());
    QCOMPARE(engineBranch(fb), sigma);
  }

  const double maxStep = 0.02;  // closed form: |Δθ4| ≤ 0.00695 rad per 1° of crank
  double prev = engineRockerAngle(fb);
  double worstErr = 0.0;
  for (int k = 0; k <= 360; ++k) {
    const double theta2 = static_cast<double>(k) * kDeg;
    fb.crank.setPosition(0, theta2);
    const ClosureProjectionResult res = world.projectClosures(lockOptions({fb.crank}));
    ARTICULA_CHECK(res.success, QString("step %1 (θ2 = %2): %3").arg(k).arg(num(theta2), describeResult(res)));
    ARTICULA_CHECK(
        fb.crank.getPosition(0) == theta2,
        QString("step %1: locked crank moved from %2 to %3").arg(k).arg(num(theta2), num(fb.crank.getPosition(0))));

    const FourBarSolution ref = solveFourBar(theta2, sigma);
    const double fd = freudensteinDefect(theta2, ref.theta4);
    ARTICULA_CHECK(std::abs(fd) <= 1e-12,
                   QString("reference violates Freudenstein's equation at step %1: %2").arg(k).arg(num(fd)));

    const double theta4 = engineRockerAngle(fb);
    const double err = std::abs(wrapAngle(theta4 - ref.theta4));
    worstErr = std::max(worstErr, err);
    ARTICULA_CHECK(err <= 1e-9, QString("step %1 (θ2 = %2): rocker angle %3, closed form %4, error %5 rad; %6")
                                    .arg(k)
                                    .arg(num(theta2), num(theta4), num(ref.theta4), num(err), describeResult(res)));
    const int branch = engineBranch(fb);
    ARTICULA_CHECK(branch == sigma,
                   QString("step %1: branch changed to %2 (expected %3)").arg(k).arg(branch).arg(sigma));
    const double step = std::abs(wrapAngle(theta4 - prev));
    ARTICULA_CHECK(step <= maxStep, QString("step %1: rocker angle jumped by %2 rad (from %3 to %4)")
                                        .arg(k)
                                        .arg(num(step), num(prev), num(theta4)));
    const double norm = fb.closure.computeResidual().norm;
    ARTICULA_CHECK(norm <= 1e-10,
                   QString("step %1: closure residual %2 after a successful projection").arg(k).arg(num(norm)));
    const double gap = (rockerTip(fb) - fb.o4()).norm();
    ARTICULA_CHECK(gap <= 1e-10, QString("step %1: rocker tip is %2 m from O4").arg(k).arg(num(gap)));
    prev = theta4;
  }
  qInfo("worst rocker-angle error over the revolution: %.3e rad", worstErr);
}

// 2. Offset slider–crank over one revolution (crank locked): piston
//    coordinate = r cos θ + sqrt(l² − (r sin θ − e)²) to 1e-9 m.
void TestLoopClosureKinematics::sliderCrankFollowsClosedForm_data() {
  QTest::addColumn<int>("family");
  QTest::newRow("point") << static_cast<int>(LoopClosureFamily::Point);
  QTest::newRow("hinge") << static_cast<int>(LoopClosureFamily::Hinge);
}

void TestLoopClosureKinematics::sliderCrankFollowsClosedForm() {
  QFETCH(int, family);
  World world;
  Multibody mb = world.addMultibody("slider_crank");
  const Link crankLink = mb.addLink(linkOptions("crank_link"), JointSpec::revolute(Vector3d::UnitZ()).named("crank"));
  const Link rodLink =
      mb.addLink(linkOptions("rod_link"), crankLink,
                 JointSpec::revolute(Vector3d::UnitZ()).named("rod").withParentOffset(translation(kR, 0.0, 0.0)));
  Multibody pistonMb = world.addMultibody("piston");
  const Link pistonLink = pistonMb.addLink(
      linkOptions("piston_link"),
      JointSpec::prismatic(Vector3d::UnitX()).named("slide").withParentOffset(translation(0.0, kE, 0.0)));
  LoopClosureSpec spec;
  spec.frameA = rodLink;
  spec.offsetA = translation(kL, 0.0, 0.0);
  spec.frameB = pistonLink;
  spec.family = static_cast<LoopClosureFamily>(family);
  const LoopClosure closure = world.addLoopClosure("wrist_pin", spec);
  Joint crank = crankLink.getParentJoint();
  Joint rod = rodLink.getParentJoint();
  Joint slide = pistonLink.getParentJoint();

  // Perturbed start near the analytic assembly at θ = 0.
  const double x0 = pistonPosition(0.0);
  rod.setPosition(0, std::atan2(kE, x0 - kR) + 0.05);
  slide.setPosition(0, x0 + 0.01);
  QVERIFY2(closure.computeResidual().norm > 1e-3, "the perturbed start should violate the loop");

  double worstErr = 0.0;
  for (int k = 0; k <= 360; ++k) {
    const double theta = static_cast<double>(k) * kDeg;
    crank.setPosition(0, theta);
    const ClosureProjectionResult res = world.projectClosures(lockOptions({crank}));
    ARTICULA_CHECK(res.success, QString("step %1 (θ = %2): %3").arg(k).arg(num(theta), describeResult(res)));
    ARTICULA_CHECK(
        crank.getPosition(0) == theta,
        QString("step %1: locked crank moved from %2 to %3").arg(k).arg(num(theta), num(crank.getPosition(0))));
    ARTICULA_CHECK(res.rows == closure.numRows(), QString("rows %1, expected %2").arg(res.rows).arg(closure.numRows()));
    const double x = slide.getPosition(0);
    const double xRef = pistonPosition(theta);
    const double err = std::abs(x - xRef);
    worstErr = std::max(worstErr, err);
    ARTICULA_CHECK(err <= 1e-9, QString("step %1 (θ = %2): piston %3 m, closed form %4 m, error %5; %6")
                                    .arg(k)
                                    .arg(num(theta), num(x), num(xRef), num(err), describeResult(res)));
    // The piston link stays on its line y = e (it is a prismatic joint).
    const Vector3d pin = pistonLink.getWorldTransform().translation();
    ARTICULA_CHECK(std::abs(pin.y() - kE) <= 1e-15, QString("piston pin off its line: %1").arg(vec(pin)));
  }
  qInfo("worst piston error over the revolution: %.3e m", worstErr);
}

// 3. Assembly from the open zero configuration (no locks): success within
//    50 iterations, residuals as reported, a genuinely closed result; and
//    the minimum-norm property near an assembled configuration: the change
//    Δq is orthogonal to the null space of the finite-difference constraint
//    Jacobian and no larger than the change with the crank locked.
void TestLoopClosureKinematics::unassembledFourBarAssemblesWithMinimalChange() {
  World world;
  FourBar fb = buildFourBar(world, "fourbar", LoopClosureFamily::Hinge);
  fb.mb.setPositions(Vector3d::Zero());
  // Zero configuration: tip at (0.4, 0.35), O4 at (0.4, 0): gap 0.35 m.
  const Vector3d tip0 = rockerTip(fb);
  VERIFY_NEAR(tip0, Vector3d(0.4, 0.35, 0.0), 1e-15);
  const double expectedGap = 0.35;
  const LoopClosureResidual before = fb.closure.computeResidual();
  ARTICULA_CHECK(std::abs(before.norm - expectedGap) <= 1e-14,
                 QString("residual before %1, expected the gap %2").arg(num(before.norm), num(expectedGap)));

  const ClosureProjectionResult res = world.projectClosures();
  ARTICULA_CHECK(res.success, describeResult(res));
  ARTICULA_CHECK(res.iterations >= 1 && res.iterations <= 50, describeResult(res));
  ARTICULA_CHECK(res.rows == 5, describeResult(res));
  ARTICULA_CHECK(res.finalResidual <= 1e-10, describeResult(res));
  ARTICULA_CHECK(std::abs(res.initialResidual - before.norm) <= 1e-14,
                 QString("initialResidual %1, residual before %2").arg(num(res.initialResidual), num(before.norm)));
  ARTICULA_CHECK(res.message.empty(), describeResult(res));
  const LoopClosureResidual after = fb.closure.computeResidual();
  ARTICULA_CHECK(after.norm <= 1e-10, QString("residual after %1: %2").arg(num(after.norm), vec(after.residual)));
  ARTICULA_CHECK(std::abs(after.norm - res.finalResidual) <= 1e-12,
                 QString("finalResidual %1, computeResidual %2").arg(num(res.finalResidual), num(after.norm)));
  // Independent checks of closure: the tip is at O4, and the rocker angle
  // is one of the two closed-form solutions for the resulting crank angle.
  const double gap = (rockerTip(fb) - fb.o4()).norm();
  ARTICULA_CHECK(gap <= 1e-10, QString("tip is %1 m from O4").arg(num(gap)));
  const double theta2 = fb.crank.getPosition(0);
  const int branch = engineBranch(fb);
  QVERIFY(branch == 1 || branch == -1);
  const double err = std::abs(wrapAngle(engineRockerAngle(fb) - solveFourBar(theta2, branch).theta4));
  ARTICULA_CHECK(err <= 1e-9, QString("rocker angle differs from the closed form by %1 rad").arg(num(err)));

  // Minimal change near an assembled configuration.
  const FourBarSolution sol = solveFourBar(0.6, 1);
  const VectorXd qStar = sol.q;
  const VectorXd delta = 1e-5 * Vector3d(0.3, -0.7, 0.5);
  const VectorXd q0 = qStar + delta;
  fb.mb.setPositions(q0);
  const ClosureProjectionResult r1 = world.projectClosures();
  ARTICULA_CHECK(r1.success, describeResult(r1));
  const VectorXd q1 = fb.mb.getPositions();
  const VectorXd dq = q1 - q0;
  ARTICULA_CHECK(dq.norm() > 1e-7, QString("the projection did not move: Δq = %1").arg(vec(dq)));

  const MatrixXd J = fdJacobian(fb.mb, fb.closure, q1, 1e-6);
  Eigen::JacobiSVD<MatrixXd> svd(J, Eigen::ComputeFullV);
  const VectorXd sv = svd.singularValues();
  ARTICULA_CHECK(sv.size() == 3 && sv[1] > 1e-2 && sv[2] < 1e-8,
                 QString("constraint Jacobian should have rank 2; singular values %1").arg(vec(sv)));
  const VectorXd nullDir = svd.matrixV().col(2);
  const double tangential = std::abs(nullDir.dot(dq));
  ARTICULA_CHECK(tangential <= 1e-3 * dq.norm(),
                 QString("Δq = %1 has a null-space component %2 (|Δq| = %3, null direction %4)")
                     .arg(vec(dq), num(tangential), num(dq.norm()), vec(nullDir)));

  fb.mb.setPositions(q0);
  const ClosureProjectionResult r2 = world.projectClosures(lockOptions({fb.crank}));
  ARTICULA_CHECK(r2.success, describeResult(r2));
  const VectorXd dqLocked = fb.mb.getPositions() - q0;
  ARTICULA_CHECK(dq.norm() <= dqLocked.norm(),
                 QString("|Δq| = %1 free, %2 with the crank locked").arg(num(dq.norm()), num(dqLocked.norm())));
  qInfo(
      "assembly from zero: %d iterations, final residual %.3e; near-assembled: |Δq| = %.6e, null-space "
      "fraction %.3e, |Δq| with the crank locked %.6e",
      res.iterations, res.finalResidual, dq.norm(), tangential / dq.norm(), dqLocked.norm());
}

// 4. Crank and coupler locked where the rocker cannot reach O4: failure
//    with a message, no increase of the residual, locked coordinates
//    bit-for-bit unchanged; the reported residual is consistent with the
//    geometric lower bound |B − O4| − c.
void TestLoopClosureKinematics::lockedJointsThatCannotCloseFail() {
  World world;
  FourBar fb = buildFourBar(world, "fourbar", LoopClosureFamily::Hinge);
  const double crank0 = 0.0;
  const double coupler0 = 0.0;
  fb.mb.setPositions(Vector3d(crank0, coupler0, 0.0));
  // B = (a, b) = (0.1, 0.35) is fixed; the tip is on the circle of radius c
  // about B; |B − O4| = sqrt(0.3² + 0.35²) ≠ c, so the residual is at least
  // |B − O4| − c.
  const double bo4 = std::hypot(kD - kA, kB);
  const double lowerBound = bo4 - kC;
  const double before = fb.closure.computeResidual().norm;
  ARTICULA_CHECK(std::abs(before - 0.35) <= 1e-14, QString("residual before %1").arg(num(before)));

  const ClosureProjectionResult res = world.projectClosures(lockOptions({fb.crank, fb.coupler}));
  ARTICULA_CHECK(!res.success, describeResult(res));
  ARTICULA_CHECK(!res.message.empty(), describeResult(res));
  ARTICULA_CHECK(res.finalResidual <= res.initialResidual, describeResult(res));
  ARTICULA_CHECK(
      res.finalResidual < res.initialResidual,
      QString("the free rocker can reduce the residual (to %1): %2").arg(num(lowerBound), describeResult(res)));
  ARTICULA_CHECK(std::abs(res.initialResidual - before) <= 1e-14, describeResult(res));
  ARTICULA_CHECK(res.finalResidual >= lowerBound - 1e-12,
                 QString("finalResidual below the geometric minimum %1: %2").arg(num(lowerBound), describeResult(res)));
  const double after = fb.closure.computeResidual().norm;
  ARTICULA_CHECK(std::abs(after - res.finalResidual) <= 1e-12,
                 QString("kept configuration has residual %1, reported %2").arg(num(after), num(res.finalResidual)));
  qInfo("locked failure: initial %.6f, final %.12f, geometric minimum %.12f, message '%s'", res.initialResidual,
        res.finalResidual, lowerBound, res.message.c_str());
  ARTICULA_CHECK(fb.crank.getPosition(0) == crank0 && fb.coupler.getPosition(0) == coupler0,
                 QString("locked coordinates moved: crank %1, coupler %2")
                     .arg(num(fb.crank.getPosition(0)), num(fb.coupler.getPosition(0))));
}

// 5. Rocker joint limits that exclude the branch next to the start: the
//    projection ends on the other branch (closed form), within the limits.
//    The limits keep the coupler–rocker angle on one side (0.1 … π − 0.1),
//    which contains one whole branch (|angle| ∈ [1.4, 2.2] rad on both).
void TestLoopClosureKinematics::positionLimitsSelectTheBranch() {
  const double theta2 = 1.0;
  const FourBarSolution allowed = solveFourBar(theta2, 1);
  const FourBarSolution excluded = solveFourBar(theta2, -1);
  QVERIFY2(allowed.rel > 0.1 && allowed.rel < kPi - 0.1 && excluded.rel < 0.0,
           qPrintable(QString("branch angles %1 and %2").arg(num(allowed.rel), num(excluded.rel))));
  const double lower = 0.1 - kBend4;
  const double upper = kPi - 0.1 - kBend4;

  struct Start {
    const char* what;
    Vector3d q;
    bool respectLimits;
    int expectedBranch;
  };
  // Next to the excluded branch (coupler off by 0.02 rad; the rocker
  // coordinate outside the limits), and inside the limits with the
  // coupler of the excluded branch.
  const Vector3d nearExcluded(theta2, excluded.q[1] + 0.02, excluded.q[2]);
  const Vector3d insideLimits(theta2, excluded.q[1], lower + 0.05);
  const std::vector<Start> starts = {
      {"near the excluded branch, limits ignored", nearExcluded, false, -1},
      {"near the excluded branch", nearExcluded, true, 1},
      {"inside the limits", insideLimits, true, 1},
  };
  for (const Start& start : starts) {
    World world;
    FourBar fb = buildFourBar(world, "fourbar", LoopClosureFamily::Hinge);
    JointSpec spec = fb.rocker.getSpec();
    spec.positionLowerLimits = VectorXd::Constant(1, lower);
    spec.positionUpperLimits = VectorXd::Constant(1, upper);
    Joint rocker = fb.rocker;
    rocker.setSpec(spec);
    fb.mb.setPositions(start.q);
    QVERIFY(fb.closure.computeResidual().norm > 1e-3);
    ClosureProjectionOptions opts = lockOptions({fb.crank});
    opts.respectLimits = start.respectLimits;
    const ClosureProjectionResult res = world.projectClosures(opts);
    const QString ctx = QString("%1: %2; q = %3").arg(start.what, describeResult(res), vec(fb.mb.getPositions()));
    ARTICULA_CHECK(res.success, ctx);
    const double q4 = fb.rocker.getPosition(0);
    if (start.respectLimits) {
      ARTICULA_CHECK(q4 >= lower && q4 <= upper,
                     QString("rocker coordinate %1 outside [%2, %3]; %4").arg(num(q4), num(lower), num(upper), ctx));
    }
    const FourBarSolution ref = solveFourBar(theta2, start.expectedBranch);
    const double err = std::abs(wrapAngle(engineRockerAngle(fb) - ref.theta4));
    ARTICULA_CHECK(engineBranch(fb) == start.expectedBranch && err <= 1e-9,
                   QString("branch %1 (expected %2), rocker angle error %3 rad; %4")
                       .arg(engineBranch(fb))
                       .arg(start.expectedBranch)
                       .arg(num(err), ctx));
    ARTICULA_CHECK(fb.crank.getPosition(0) == theta2, ctx);
  }
}

// 6. sync(Kinematics) in simulation mode projects a violated Project-policy
//    closure, and leaves a ResidualOnly closure (and all positions) alone.
void TestLoopClosureKinematics::syncProjectsOnlyWithProjectPolicy() {
  World world;
  FourBar fb = buildFourBar(world, "fourbar", LoopClosureFamily::Hinge);
  fb.mb.setPositions(solveFourBar(0.4, 1).q);
  QVERIFY(fb.closure.computeResidual().norm <= 1e-12);
  world.enterSimulationMode();
  QVERIFY(world.isSimulationMode());
  const double tol = fb.closure.getRuntimePolicy().tolerance;

  // Project (default policy).
  QVERIFY(fb.closure.getRuntimePolicy().kinematics == ClosureKinematicsPolicy::Project);
  Joint crank = fb.crank;
  crank.setPosition(0, 0.5);
  const double violated = fb.closure.computeResidual().norm;
  QVERIFY2(violated > 1e-3, qPrintable(num(violated)));
  world.sync(WorldSyncStage::Kinematics);
  const double projected = fb.closure.computeResidual().norm;
  ARTICULA_CHECK(projected <= tol, QString("after sync with Project: residual %1 (was %2, tolerance %3)")
                                       .arg(num(projected), num(violated), num(tol)));
  const double gap = (rockerTip(fb) - fb.o4()).norm();
  ARTICULA_CHECK(gap <= 1e-10, QString("after sync the rocker tip is %1 m from O4").arg(num(gap)));

  // ResidualOnly: nothing moves.
  LoopClosure closure = fb.closure;
  LoopClosureRuntimePolicy p = closure.getRuntimePolicy();
  p.kinematics = ClosureKinematicsPolicy::ResidualOnly;
  closure.setRuntimePolicy(p);
  crank.setPosition(0, 0.7);
  fb.mb.setVelocities(Vector3d(0.3, -0.2, 0.1));
  const VectorXd qBefore = world.getPositions();
  const VectorXd vBefore = world.getVelocities();
  const VectorXd rBefore = closure.computeResidual().residual;
  QVERIFY(rBefore.norm() > 1e-3);
  world.sync(WorldSyncStage::Kinematics);
  const VectorXd qAfter = world.getPositions();
  const VectorXd vAfter = world.getVelocities();
  ARTICULA_CHECK(qAfter.size() == qBefore.size() && (qAfter.array() == qBefore.array()).all(),
                 QString("positions changed: %1 -> %2").arg(vec(qBefore), vec(qAfter)));
  ARTICULA_CHECK(vAfter.size() == vBefore.size() && (vAfter.array() == vBefore.array()).all(),
                 QString("velocities changed: %1 -> %2").arg(vec(vBefore), vec(vAfter)));
  const VectorXd rAfter = closure.computeResidual().residual;
  ARTICULA_CHECK(rAfter.size() == rBefore.size() && (rAfter - rBefore).norm() <= 1e-15,
                 QString("residual changed: %1 -> %2").arg(vec(rBefore), vec(rAfter)));
}

// 7. Velocity projection: after projectClosures the joint velocity is
//    tangent to the constraint manifold (residual along q + εv is O(ε²)),
//    while the random velocity before is not (O(ε)).
void TestLoopClosureKinematics::velocityProjectionIsTangent() {
  World world;
  FourBar fb = buildFourBar(world, "fourbar", LoopClosureFamily::Hinge);
  std::mt19937 rng(20240611u);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  const double eps = 1e-6;

  const auto drift = [&](const VectorXd& q, const VectorXd& v) {
    const VectorXd r0 = residualAt(fb.mb, fb.closure, q);
    const VectorXd r1 = residualAt(fb.mb, fb.closure, q + eps * v);
    fb.mb.setPositions(q);
    return (r1 - r0).norm();
  };

  for (int trial = 0; trial < 5; ++trial) {
    const double theta2 = uni(rng) * kPi;
    const int sigma = trial % 2 == 0 ? 1 : -1;
    // Slightly violated positions, random velocities.
    fb.mb.setPositions(solveFourBar(theta2, sigma).q + 1e-3 * Vector3d(uni(rng), uni(rng), uni(rng)));
    const VectorXd v0 = Vector3d(uni(rng), uni(rng), uni(rng));
    fb.mb.setVelocities(v0);
    const double driftBefore = drift(fb.mb.getPositions(), v0);
    ARTICULA_CHECK(driftBefore >= 1e-8, QString("trial %1: random velocity %2 is already tangent (drift %3)")
                                            .arg(trial)
                                            .arg(vec(v0), num(driftBefore)));

    // projectVelocities = false leaves the velocities alone.
    const VectorXd qStart = fb.mb.getPositions();
    {
      ClosureProjectionOptions o;
      o.projectVelocities = false;
      const ClosureProjectionResult res = world.projectClosures(o);
      ARTICULA_CHECK(res.success, describeResult(res));
      const VectorXd v = fb.mb.getVelocities();
      ARTICULA_CHECK(
          (v.array() == v0.array()).all(),
          QString("trial %1: projectVelocities = false changed v: %2 -> %3").arg(trial).arg(vec(v0), vec(v)));
    }
    fb.mb.setPositions(qStart);

    const ClosureProjectionResult res = world.projectClosures();
    ARTICULA_CHECK(res.success, describeResult(res));
    const VectorXd q = fb.mb.getPositions();
    const VectorXd v = fb.mb.getVelocities();
    const double driftAfter = drift(q, v);
    ARTICULA_CHECK(driftAfter <= 1e-9, QString("trial %1: projected velocity %2 (from %3) drifts %4 over ε = %5")
                                           .arg(trial)
                                           .arg(vec(v), vec(v0), num(driftAfter), num(eps)));
    // Not trivially zero: the mechanism has one DoF and the random
    // velocity has a component along it.
    const MatrixXd J = fdJacobian(fb.mb, fb.closure, q, 1e-6);
    Eigen::JacobiSVD<MatrixXd> svd(J, Eigen::ComputeFullV);
    const VectorXd n = svd.matrixV().col(2);
    ARTICULA_CHECK(std::abs(n.dot(v0)) < 1e-3 || v.norm() > 1e-8,
                   QString("trial %1: projected velocity vanished (%2) though v0 = %3 has a tangent component %4")
                       .arg(trial)
                       .arg(vec(v), vec(v0), num(n.dot(v0))));
    // J v = 0 also with the finite-difference Jacobian.
    const double Jv = (J * v).norm();
    ARTICULA_CHECK(Jv <= 1e-8, QString("trial %1: |J v| = %2").arg(trial).arg(num(Jv)));
    qInfo("trial %d: drift over eps before %.3e, after %.3e; |v0| %.3f, |v| %.3f", trial, driftBefore, driftAfter,
          v0.norm(), v.norm());
  }
}

// 8. Gear (2:1 with offset, two multibodies) and mimic (ratio −1, one
//    multibody): projection satisfies both couplers; with the leader
//    locked only the follower moves and vice versa (analytic values); the
//    free projection is the minimum-norm (orthogonal) projection onto the
//    line q_f = k q_l + o.
void TestLoopClosureKinematics::gearAndMimicCouplers() {
  World world;
  Multibody g1 = world.addMultibody("gear1");
  Multibody g2 = world.addMultibody("gear2");
  Joint gear1 = g1.addLink(linkOptions("wheel"), JointSpec::revolute(Vector3d::UnitZ()).named("axle")).getParentJoint();
  Joint gear2 =
      g2.addLink(linkOptions("wheel"),
                 JointSpec::revolute(Vector3d::UnitZ()).named("axle").withParentOffset(translation(0.3, 0.0, 0.0)))
          .getParentJoint();
  Multibody hand = world.addMultibody("hand");
  const Link l1 = hand.addLink(linkOptions("l1"), JointSpec::revolute(Vector3d::UnitZ()).named("m1"));
  const Link l2 =
      hand.addLink(linkOptions("l2"), l1,
                   JointSpec::revolute(Vector3d::UnitZ()).named("m2").withParentOffset(translation(0.2, 0.0, 0.0)));
  Joint m1 = l1.getParentJoint();
  Joint m2 = l2.getParentJoint();

  const double kGear = 0.5;
  const double oGear = 0.1;
  const double kMimic = -1.0;
  const double oMimic = 0.0;
  const JointCoupler gear = world.addJointCoupler("gear", JointCouplerSpec{gear1, gear2, kGear, oGear});
  const JointCoupler mimic = world.addJointCoupler("mimic", JointCouplerSpec{m1, m2, kMimic, oMimic});

  const double gl0 = 0.7, gf0 = -0.3, ml0 = 0.4, mf0 = 0.9;
  const auto reset = [&] {
    gear1.setPosition(0, gl0);
    gear2.setPosition(0, gf0);
    m1.setPosition(0, ml0);
    m2.setPosition(0, mf0);
  };
  const auto check = [&](const QString& what, double expGl, double expGf, double expMl, double expMf) {
    const double gl = gear1.getPosition(0), gf = gear2.getPosition(0), ml = m1.getPosition(0), mf = m2.getPosition(0);
    const QString values =
        QString("%1: gear %2, %3 (expected %4, %5); mimic %6, %7 (expected %8, %9)")
            .arg(what, num(gl), num(gf), num(expGl), num(expGf), num(ml), num(mf), num(expMl), num(expMf));
    ARTICULA_CHECK(std::abs(gl - expGl) <= 1e-12 && std::abs(gf - expGf) <= 1e-12 && std::abs(ml - expMl) <= 1e-12 &&
                       std::abs(mf - expMf) <= 1e-12,
                   values);
    const double rg = gear.computeResidual().residual;
    const double rm = mimic.computeResidual().residual;
    ARTICULA_CHECK(std::abs(rg) <= 1e-12 && std::abs(rm) <= 1e-12,
                   QString("%1: coupler residuals %2, %3").arg(what, num(rg), num(rm)));
    ARTICULA_CHECK(std::abs(gf - kGear * gl - oGear) <= 1e-12 && std::abs(mf - kMimic * ml - oMimic) <= 1e-12,
                   QString("%1: q_f − k q_l − o = %2, %3; %4")
                       .arg(what, num(gf - kGear * gl - oGear), num(mf - kMimic * ml - oMimic), values));
  };

  reset();
  const double rg0 = gf0 - kGear * gl0 - oGear;
  const double rm0 = mf0 - kMimic * ml0 - oMimic;
  ARTICULA_CHECK(
      std::abs(gear.computeResidual().residual - rg0) <= 1e-15 &&
          std::abs(mimic.computeResidual().residual - rm0) <= 1e-15,
      QString("residuals before %1, %2; expected %3, %4")
          .arg(num(gear.computeResidual().residual), num(mimic.computeResidual().residual), num(rg0), num(rm0)));

  // Free: orthogonal projection onto q_f − k q_l − o = 0, i.e. along
  // the gradient (−k, 1): q_l += k r/(1 + k²), q_f −= r/(1 + k²).
  ClosureProjectionOptions tight;
  tight.tolerance = 1e-13;
  {
    const ClosureProjectionResult res = world.projectClosures(tight);
    ARTICULA_CHECK(res.success && res.rows == 2, describeResult(res));
    ARTICULA_CHECK(std::abs(res.initialResidual - std::hypot(rg0, rm0)) <= 1e-14, describeResult(res));
    check("no locks", gl0 + kGear * rg0 / (1.0 + kGear * kGear), gf0 - rg0 / (1.0 + kGear * kGear),
          ml0 + kMimic * rm0 / (1.0 + kMimic * kMimic), mf0 - rm0 / (1.0 + kMimic * kMimic));
  }

  // Projects with the joints `a` and `b` (values `a0`, `b0`) locked, from
  // the reset state. Empty when it succeeds and keeps both bit for bit, else
  // what went wrong.
  const auto projectLocked = [&](const QString& which, Joint a, Joint b, double a0, double b0) -> QString {
    reset();
    ClosureProjectionOptions o = tight;
    o.lockedJoints = {a, b};
    const ClosureProjectionResult res = world.projectClosures(o);
    if (!res.success) return describeResult(res);
    if (!(a.getPosition(0) == a0 && b.getPosition(0) == b0)) {
      return QString("locked %1 moved: %2, %3").arg(which, num(a.getPosition(0)), num(b.getPosition(0)));
    }
    return {};
  };

  // Leaders locked: followers take q_f = k q_l + o; leaders bit-for-bit kept.
  {
    const QString problem = projectLocked("leaders", gear1, m1, gl0, ml0);
    ARTICULA_CHECK(problem.isEmpty(), problem);
    check("leaders locked", gl0, kGear * gl0 + oGear, ml0, kMimic * ml0 + oMimic);
  }

  // Followers locked: leaders take q_l = (q_f − o)/k.
  {
    const QString problem = projectLocked("followers", gear2, m2, gf0, mf0);
    ARTICULA_CHECK(problem.isEmpty(), problem);
    check("followers locked", (gf0 - oGear) / kGear, gf0, (mf0 - oMimic) / kMimic, mf0);
  }
}

// 9. Closures that are disabled or ResidualOnly are not projected and
//    their rows are not counted; a Project closure next to them is.
void TestLoopClosureKinematics::disabledAndResidualOnlyClosuresAreNotProjected() {
  World world;
  FourBar projected = buildFourBar(world, "projected", LoopClosureFamily::Point, Vector3d(0.0, 0.0, 0.0));
  FourBar disabled = buildFourBar(world, "disabled", LoopClosureFamily::Hinge, Vector3d(0.0, 1.0, 0.0));
  FourBar residualOnly = buildFourBar(world, "residual_only", LoopClosureFamily::Hinge, Vector3d(0.0, 2.0, 0.0));
  LoopClosure cDisabled = disabled.closure;
  cDisabled.setEnabled(false);
  QVERIFY(!cDisabled.isEnabled());
  LoopClosure cResidual = residualOnly.closure;
  LoopClosureRuntimePolicy p = cResidual.getRuntimePolicy();
  p.kinematics = ClosureKinematicsPolicy::ResidualOnly;
  cResidual.setRuntimePolicy(p);
  QVERIFY(cResidual.getRuntimePolicy().kinematics == ClosureKinematicsPolicy::ResidualOnly);

  // All three violated (open zero configuration: gap 0.35 m each).
  for (FourBar* fb : {&projected, &disabled, &residualOnly}) fb->mb.setPositions(Vector3d::Zero());
  const VectorXd qDisabled = disabled.mb.getPositions();
  const VectorXd qResidual = residualOnly.mb.getPositions();
  const VectorXd rDisabled = cDisabled.computeResidual().residual;
  const VectorXd rResidual = cResidual.computeResidual().residual;
  const double rProjected = projected.closure.computeResidual().norm;
  QVERIFY(rDisabled.norm() > 0.1 && rResidual.norm() > 0.1 && rProjected > 0.1);

  const ClosureProjectionResult res = world.projectClosures();
  ARTICULA_CHECK(res.success, describeResult(res));
  ARTICULA_CHECK(res.rows == 3, QString("only the Point closure's 3 rows are included; %1").arg(describeResult(res)));
  ARTICULA_CHECK(
      std::abs(res.initialResidual - rProjected) <= 1e-14,
      QString("initialResidual should be the included closure's %1; %2").arg(num(rProjected), describeResult(res)));
  const double after = projected.closure.computeResidual().norm;
  ARTICULA_CHECK(after <= 1e-10, QString("projected closure residual %1").arg(num(after)));
  ARTICULA_CHECK(
      (disabled.mb.getPositions().array() == qDisabled.array()).all(),
      QString("disabled closure's mechanism moved: %1 -> %2").arg(vec(qDisabled), vec(disabled.mb.getPositions())));
  ARTICULA_CHECK((residualOnly.mb.getPositions().array() == qResidual.array()).all(),
                 QString("ResidualOnly closure's mechanism moved: %1 -> %2")
                     .arg(vec(qResidual), vec(residualOnly.mb.getPositions())));
  ARTICULA_CHECK((cDisabled.computeResidual().residual - rDisabled).norm() == 0.0 &&
                     (cResidual.computeResidual().residual - rResidual).norm() == 0.0,
                 "residuals of the excluded closures changed");
  const LoopClosureResidual rr = cResidual.computeResidual();
  ARTICULA_CHECK(rr.enabled && rr.residual.size() == 5,
                 QString("ResidualOnly closure still reports its residual (%1 rows)").arg(rr.residual.size()));

  // Only excluded closures left: nothing to do, nothing moves.
  LoopClosure cProjected = projected.closure;
  cProjected.setEnabled(false);
  projected.mb.setPositions(Vector3d::Zero());
  const VectorXd qAll = world.getPositions();
  const ClosureProjectionResult none = world.projectClosures();
  ARTICULA_CHECK(none.rows == 0 && none.success && none.finalResidual == 0.0, describeResult(none));
  ARTICULA_CHECK(
      (world.getPositions().array() == qAll.array()).all(),
      QString("positions moved with no included closure: %1 -> %2").arg(vec(qAll), vec(world.getPositions())));
}

QTEST_APPLESS_MAIN(TestLoopClosureKinematics)
#include "test_loop_closure_kinematics.moc"

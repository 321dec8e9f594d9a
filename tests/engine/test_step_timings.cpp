// World::getLastStepTimings: every stage is measured around its own code.
// A controller that busy-waits (2 ms, or 20 times the longest stage) must
// show up as control time and nowhere else; the stages are disjoint parts of the step, so they add up
// to at most its total and, but for the few assignments between them, to
// all of it; a stage that has nothing to do in a step takes no time. Both
// integrators, on a closed-chain biped falling onto the ground.
#include "closed_loop_robots.hpp"
#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>

using namespace articula;

namespace {

// The controller's busy wait: at least 2 ms, and 20 times the longest stage
// of the step (so it stands out in slow builds too, sanitizers included).
constexpr double kControllerSeconds = 2e-3;

void busyWait(double seconds) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
  }
}

double stageSum(const StepTimings& t) {
  return t.control + t.kinematics + t.collision + t.dynamics + t.solve + t.integration + t.projection;
}

QString describe(const StepTimings& t) {
  return QString(
             "control %1, kinematics %2, collision %3, dynamics %4, solve %5, integration %6, projection %7, "
             "total %8 µs")
      .arg(1e6 * t.control)
      .arg(1e6 * t.kinematics)
      .arg(1e6 * t.collision)
      .arg(1e6 * t.dynamics)
      .arg(1e6 * t.solve)
      .arg(1e6 * t.integration)
      .arg(1e6 * t.projection)
      .arg(1e6 * t.total);
}

// The biped (four loop closures) with its collision shapes above the
// ground, and a motor on a separate pendulum driven by `controller`.
void buildScene(World& w, const double* controllerSeconds) {
  w.addGroundPlane();
  robots::BipedOptions o;
  o.collisionShapes = true;
  o.origin = Vector3d(0.0, 0.0, 0.95);
  robots::buildBiped(w, o);
  Multibody rig = w.addMultibody("rig");
  LinkOptions lo;
  lo.name = "arm";
  lo.inertia = Inertia::box(1.0, Vector3d(0.05, 0.05, 0.4));
  rig.addLink(lo,
              JointSpec::revolute(Vector3d::UnitY()).named("hinge").withParentOffset(test::translation(2.0, 0.0, 1.5)));
  ActuatorSpec motor;
  motor.name = "motor";
  motor.joint = "rig/hinge";
  motor.type = ActuatorType::Motor;
  w.addActuator(motor);
  if (controllerSeconds != nullptr) {
    w.setController([controllerSeconds](const ControllerInput&, std::span<double> u) {
      busyWait(*controllerSeconds);
      u[0] = 0.1;
    });
  }
}

}  // namespace

class TestStepTimings : public QObject {
  Q_OBJECT

 private slots:
  void stagesAreMeasuredWhereTheirCodeRuns_data();
  void stagesAreMeasuredWhereTheirCodeRuns();
  void stagesWithoutWorkTakeNoTime();
  void timingsOfManyStepsAddUp();
};

void TestStepTimings::stagesAreMeasuredWhereTheirCodeRuns_data() {
  QTest::addColumn<int>("integrator");
  QTest::newRow("semi-implicit Euler") << static_cast<int>(Integrator::SemiImplicitEuler);
  QTest::newRow("RK4") << static_cast<int>(Integrator::RungeKutta4);
}

void TestStepTimings::stagesAreMeasuredWhereTheirCodeRuns() {
  QFETCH(int, integrator);
  const bool euler = integrator == static_cast<int>(Integrator::SemiImplicitEuler);
  WorldOptions wo;
  wo.integrator = static_cast<Integrator>(integrator);
  World w(wo);
  double wait = 0.0;
  buildScene(w, &wait);
  w.enterSimulationMode();
  // Far enough for the feet to touch the ground.
  bool touched = false;
  for (int n = 0; n < 400 && !touched; ++n) {
    w.step();
    touched = !w.getContacts().empty();
  }
  QVERIFY2(!euler || touched, "the biped never reached the ground");
  double longest = 0.0;
  for (int n = 0; n < 5; ++n) {
    w.step();
    const StepTimings& t = w.getLastStepTimings();
    for (const double stage : {t.kinematics, t.collision, t.dynamics, t.solve, t.integration, t.projection}) {
      longest = std::max(longest, stage);
    }
  }
  wait = std::max(kControllerSeconds, 20.0 * longest);
  // Each stage's shortest time over the steps: a stage the scheduler
  // happens to preempt in one step (other tests share the machine) is not
  // the controller's time showing up there.
  std::array<double, 6> shortest;
  shortest.fill(std::numeric_limits<double>::infinity());
  QString last;
  for (int n = 0; n < 5; ++n) {
    w.step();
    const StepTimings& t = w.getLastStepTimings();
    const QString what = describe(t);
    last = what;
    // The controller's wait is control time...
    QVERIFY2(t.control >= wait, qPrintable(what));
    const double stages[6] = {t.kinematics, t.collision, t.dynamics, t.solve, t.integration, t.projection};
    for (std::size_t k = 0; k < shortest.size(); ++k) shortest[k] = std::min(shortest[k], stages[k]);
    QVERIFY2(t.kinematics > 0.0 && t.dynamics > 0.0 && t.integration > 0.0 && t.projection > 0.0, qPrintable(what));
    if (euler) {
      QVERIFY2(t.collision > 0.0 && t.solve > 0.0, qPrintable(what));
    } else {
      // RK4 detects no contacts and solves no rows: no time there.
      QCOMPARE(t.collision, 0.0);
      QCOMPARE(t.solve, 0.0);
    }
    // Disjoint parts of the step: at most the total, and nearly all of it.
    QVERIFY2(stageSum(t) <= t.total, qPrintable(what));
    QVERIFY2(stageSum(t) >= 0.9 * t.total, qPrintable(what));
  }
  // ... and not any other stage's.
  for (const double other : shortest) QVERIFY2(other < 0.5 * wait, qPrintable(last));
}

void TestStepTimings::stagesWithoutWorkTakeNoTime() {
  // No contacts, closures or couplers: collision and projection never
  // start their timers.
  World w;
  Multibody mb = w.addMultibody("pendulum");
  mb.addLink(test::linkOptions("bob", 1.0, Vector3d(0.0, 0.0, -0.5)), JointSpec::revolute(Vector3d::UnitY()));
  mb.setPositions(VectorXd::Constant(1, 0.4));
  w.step(3);
  const StepTimings& t = w.getLastStepTimings();
  QCOMPARE(t.collision, 0.0);
  QCOMPARE(t.projection, 0.0);
  QVERIFY(t.kinematics > 0.0 && t.dynamics > 0.0 && t.integration > 0.0 && t.total > 0.0);
  QVERIFY(stageSum(t) <= t.total);
}

void TestStepTimings::timingsOfManyStepsAddUp() {
  // A step's timings are its own (reset at its start), and += sums them.
  World w;
  buildScene(w, nullptr);
  w.enterSimulationMode();
  StepTimings sum;
  double totals = 0.0;
  for (int n = 0; n < 20; ++n) {
    w.step();
    sum += w.getLastStepTimings();
    totals += w.getLastStepTimings().total;
    QVERIFY(stageSum(w.getLastStepTimings()) <= w.getLastStepTimings().total);
  }
  QCOMPARE(sum.total, totals);
  QVERIFY(stageSum(sum) <= sum.total);
}

QTEST_APPLESS_MAIN(TestStepTimings)
#include "test_step_timings.moc"

// Solo-12 (example-robot-data), imported from its URDF with a floating
// trunk and its mesh collision shapes, stands on the ground for 10 s (2 s
// in reduced runs) under the position servos of io::addHoldingServos, with
// every constraint solver method: after 1 s of settling the trunk moves by
// at most 1 mm and no joint by more than 1e-3 rad, the joints stay within
// 0.2 rad of their servo targets (the servos give under the trunk's weight),
// and every step's convergence report matches its residual.

#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <string>

using namespace articula;
using namespace articula::test;

class TestQuadrupedStand : public QObject {
  Q_OBJECT

 private slots:
  void standsOnItsServos_data();
  void standsOnItsServos();
};

void TestQuadrupedStand::standsOnItsServos_data() {
  addSolverRows();
}

void TestQuadrupedStand::standsOnItsServos() {
  QFETCH(QString, method);
  World world(optionsFor(method));
  io::ImportOptions o;
  o.packagePath.push_back(ARTICULA_MODELS_DIR);
  o.useEnvironmentPaths = false;
  o.root = io::RootAttachment::Floating;
  o.addGroundPlane = true;
  io::importUrdf(
      world, std::string(ARTICULA_MODELS_DIR) + "/example-robot-data/robots/solo_description/robots/solo12.urdf", o);
  QCOMPARE(world.getMultibodies().size(), std::size_t{1});
  Multibody solo = world.getMultibodies().front();
  // Knees bent: hips ±0.8 rad, knees ∓1.6 rad (front legs forward-bent, hind
  // legs backward), then the trunk lowered so that the feet touch the ground.
  for (const char* leg : {"FL", "FR", "HL", "HR"}) {
    const double sign = leg[0] == 'F' ? 1.0 : -1.0;
    solo.getJoint(std::string(leg) + "_HFE")->setPosition(0, sign * 0.8);
    solo.getJoint(std::string(leg) + "_KFE")->setPosition(0, -sign * 1.6);
  }
  double lowest = 1e9;
  for (const Link& link : solo.getLinks()) {
    if (link.name().find("FOOT") == std::string::npos) continue;
    lowest = std::min(lowest, link.getWorldTransform().translation().z());
  }
  Joint root = solo.getLinks().front().getParentJoint();
  VectorXd q = root.getPositions();
  q[2] -= lowest - 0.016;  // the foot spheres' radius, about
  root.setPositions(q);
  QVERIFY(io::addHoldingServos(world) == 12);

  ConvergenceCheck check;
  for (int n = 0; n < stepsFor(1.0); ++n) {
    world.step();
    QVERIFY2(check.record(world), qPrintable(check.failure));
  }
  const Vector3d trunk0 = solo.getLinks().front().getWorldTransform().translation();
  const VectorXd joints0 = solo.getPositions().tail(12);
  double trunkDrift = 0.0;
  for (int n = 0; n < stepsFor(kReducedRuns ? 2.0 : 10.0); ++n) {
    world.step();
    QVERIFY2(check.record(world), qPrintable(check.failure));
    QVERIFY2(stateIsFinite(world), "non-finite state");
    trunkDrift = std::max(trunkDrift, (solo.getLinks().front().getWorldTransform().translation() - trunk0).norm());
  }
  // The servos (10 Hz, gravity-compensated for the legs alone) give under
  // the trunk's weight; what matters is that the pose they settle in holds.
  const double jointDrift = (solo.getPositions().tail(12) - joints0).cwiseAbs().maxCoeff();
  double sag = 0.0;
  for (const Actuator& a : world.getActuators()) {
    const ActuatorSpec spec = a.getSpec();
    const std::string jointName = spec.joint.substr(spec.joint.find('/') + 1);
    sag = std::max(sag, std::abs(solo.getJoint(jointName)->getPosition(0) - a.getControl()));
  }
  qInfo(
      "%s: trunk at %.4f m, drift %.3e m; joints drift %.3e rad (sag below the targets %.3f rad); %ld of %ld "
      "solves unconverged",
      qPrintable(method), trunk0.z(), trunkDrift, jointDrift, sag, check.unconverged, check.steps);
  ARTICULA_CHECK(trunk0.z() > 0.15, QString("the trunk sank to %1 m").arg(trunk0.z()));
  ARTICULA_CHECK(trunkDrift <= 1e-3, QString("the trunk moved %1 m (> 1 mm)").arg(trunkDrift));
  ARTICULA_CHECK(jointDrift <= 1e-3, QString("a joint moved %1 rad while standing").arg(jointDrift));
  ARTICULA_CHECK(sag <= 0.2, QString("a joint sagged %1 rad below its servo target").arg(sag));
  ARTICULA_CHECK(check.reported(world), QStringLiteral("unconverged solves left no warning"));
}

QTEST_MAIN(TestQuadrupedStand)
#include "test_quadruped_stand.moc"

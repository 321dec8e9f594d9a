// Every built-in scene of articula-run builds, validates and runs; scenes
// with a conserved quantity keep it.
#include "builtin_scenes.hpp"
#include "test_helpers.hpp"

#include <QtTest/QtTest>

using namespace articula;

class TestBuiltinScenes : public QObject {
  Q_OBJECT

 private slots:
  void everySceneRuns_data() {
    QTest::addColumn<QString>("scene");
    for (const auto& s : scenes::builtinScenes()) {
      const std::string name = s.name == "chain-N" ? "chain-12" : s.name;
      QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
  }

  void everySceneRuns() {
    QFETCH(QString, scene);
    World world;
    scenes::buildScene(world, scene.toStdString());
    world.validateTopology();
    QVERIFY(world.numDofs() > 0);
    const double e0 = world.computeKineticEnergy() + world.computePotentialEnergy();
    world.step(500);
    QVERIFY(world.getPositions().allFinite());
    QVERIFY(world.getVelocities().allFinite());
    const double e1 = world.computeKineticEnergy() + world.computePotentialEnergy();
    if (world.getOptions().gravity.isZero()) {
      // Torque-free bodies (RK4): energy conserved to integration accuracy.
      QVERIFY2(std::abs(e1 - e0) <= 1e-9 * std::abs(e0), qPrintable(QString("%1 -> %2").arg(e0).arg(e1)));
    }
  }

  // Closed-chain scenes start assembled, stay closed, and (RK4, no damping)
  // keep their energy to 1e-4 of the largest kinetic energy over 2 s.
  void closedChainScenesStayClosed_data() {
    QTest::addColumn<QString>("scene");
    for (const char* name : {"four-bar", "slider-crank", "gear-pair"}) QTest::newRow(name) << QString(name);
  }

  void closedChainScenesStayClosed() {
    QFETCH(QString, scene);
    World world;
    scenes::buildScene(world, scene.toStdString());
    QVERIFY(world.numLoopClosures() + world.numJointCouplers() > 0);
    auto largestResidual = [&world] {
      double r = 0.0;
      for (const auto& c : world.getLoopClosures()) r = std::max(r, c.computeResidual().norm);
      for (const auto& c : world.getJointCouplers()) r = std::max(r, std::abs(c.computeResidual().residual));
      return r;
    };
    QVERIFY2(largestResidual() <= 1e-10, qPrintable(QString("initial residual %1").arg(largestResidual())));
    const double e0 = world.computeKineticEnergy() + world.computePotentialEnergy();
    double maxKinetic = 0.0;
    double maxError = 0.0;
    double maxResidual = 0.0;
    for (int i = 0; i < 2000; ++i) {
      world.step();
      const double kinetic = world.computeKineticEnergy();
      maxKinetic = std::max(maxKinetic, kinetic);
      maxError = std::max(maxError, std::abs(kinetic + world.computePotentialEnergy() - e0));
      maxResidual = std::max(maxResidual, largestResidual());
    }
    QVERIFY2(maxKinetic > 0.01, qPrintable(QString("the mechanism hardly moved (%1 J)").arg(maxKinetic)));
    QVERIFY2(maxResidual <= 1e-9, qPrintable(QString("largest residual %1").arg(maxResidual)));
    QVERIFY2(maxError <= 1e-4 * maxKinetic,
             qPrintable(QString("energy error %1 J, largest kinetic energy %2 J").arg(maxError).arg(maxKinetic)));
  }

  void springMassLosesEnergyToItsDamper() {
    World world;
    scenes::buildScene(world, "spring-mass");
    double previous = world.computeKineticEnergy() + world.computePotentialEnergy();
    for (int i = 0; i < 200; ++i) {
      world.step();
      const double e = world.computeKineticEnergy() + world.computePotentialEnergy();
      QVERIFY2(e < previous, qPrintable(QString("step %1: %2 -> %3").arg(i).arg(previous).arg(e)));
      previous = e;
    }
  }

  void chainHasRequestedLinks() {
    World world;
    scenes::buildScene(world, "chain-17");
    QCOMPARE(world.numDofs(), 17);
    QCOMPARE(world.getMultibody("chain")->numLinks(), std::size_t{17});
  }

  void badNamesAreRefused() {
    World world;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, scenes::buildScene(world, "no-such-scene"));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, scenes::buildScene(world, "chain-0"));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, scenes::buildScene(world, "chain-"));
  }
};

QTEST_APPLESS_MAIN(TestBuiltinScenes)
#include "test_builtin_scenes.moc"

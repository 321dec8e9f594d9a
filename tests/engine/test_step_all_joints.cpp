// World::step() on random trees holding every joint type: its accelerations
// equal the articulated-body forward dynamics of the facade (which always
// runs the velocity pass, so Ṡ·q̇ of universal, euler and planar joints is
// included), and RK4 conserves energy.
#include "random_tree.hpp"
#include "test_helpers.hpp"

#include <QtTest/QtTest>

using namespace articula;
using namespace articula::test;

namespace {

RandomTree treeWithState(std::uint32_t seed, JointType root) {
  TreeOptions opt;
  opt.numLinks = 12;  // every joint type below the root
  opt.rootType = root;
  RandomTree t = makeRandomTree(seed, opt);
  std::mt19937 rng(seed + 100);
  t.mb.setPositions(randomPositions(rng, t.mb));
  t.mb.setVelocities(randomVectorX(rng, t.mb.numDofs(), -1.0, 1.0));
  return t;
}

}  // namespace

class TestStepAllJoints : public QObject {
  Q_OBJECT

 private slots:
  void semiImplicitStepUsesForwardDynamics_data() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("root");
    for (int seed = 1; seed <= 6; ++seed) {
      QTest::newRow(qPrintable(QString("fixed-%1").arg(seed))) << seed << static_cast<int>(JointType::Weld);
      QTest::newRow(qPrintable(QString("free-%1").arg(seed))) << seed << static_cast<int>(JointType::Free);
    }
  }

  void semiImplicitStepUsesForwardDynamics() {
    QFETCH(int, seed);
    QFETCH(int, root);
    RandomTree t = treeWithState(static_cast<std::uint32_t>(seed), static_cast<JointType>(root));
    const double h = t.world->getOptions().timeStep;
    const VectorXd v0 = t.mb.getVelocities();
    const VectorXd tau = VectorXd::Zero(t.mb.numDofs());
    const VectorXd vdot = t.mb.computeForwardDynamics(tau);
    QVERIFY(vdot.allFinite());
    t.world->step();
    // v⁺ = v + h·v̇ (no springs or dampers in these trees), except for the
    // linear part of free joints, which is advanced with the classical
    // acceleration and re-expressed in the rotated frame (docs/conventions.md).
    VectorXd expected = v0 + h * vdot;
    for (const Joint& j : t.mb.getJoints()) {
      if (j.type() != JointType::Free) continue;
      const int o = j.velocityOffset();
      const Vector3d w = v0.segment<3>(o);
      const Vector3d lin = expected.segment<3>(o + 3) + h * w.cross(Vector3d(v0.segment<3>(o + 3)));
      const Vector3d wNext = expected.segment<3>(o);
      expected.segment<3>(o + 3) =
          wNext.norm() > 0.0 ? Vector3d(Eigen::AngleAxisd(h * wNext.norm(), wNext.normalized()).inverse() * lin) : lin;
    }
    ARTICULA_VERIFY_NEAR(t.mb.getVelocities(), expected, 1e-12);
    ARTICULA_VERIFY_NEAR(t.mb.getAccelerations(), vdot, 1e-10);
  }

  void rk4ConservesEnergy_data() { semiImplicitStepUsesForwardDynamics_data(); }

  void rk4ConservesEnergy() {
    QFETCH(int, seed);
    QFETCH(int, root);
    RandomTree t = treeWithState(static_cast<std::uint32_t>(seed), static_cast<JointType>(root));
    WorldOptions o = t.world->getOptions();
    o.integrator = Integrator::RungeKutta4;
    o.timeStep = 1e-4;
    t.world->setOptions(o);
    // Energy scale: kinetic energy plus the work gravity does over 1 m.
    const double scale = t.world->computeKineticEnergy() + 9.81 * t.mb.getMass();
    const double e0 = t.world->computeKineticEnergy() + t.world->computePotentialEnergy();
    double worst = 0.0;
    for (int k = 0; k < 20; ++k) {
      t.world->step(100);
      const double e = t.world->computeKineticEnergy() + t.world->computePotentialEnergy();
      worst = std::max(worst, std::abs(e - e0));
    }
    QVERIFY2(worst <= 1e-8 * scale, qPrintable(QString("energy drift %1 J (scale %2 J)").arg(worst).arg(scale)));
  }
};

QTEST_APPLESS_MAIN(TestStepAllJoints)
#include "test_step_all_joints.moc"

// The peer benchmark's scenes and backends: the scenes start where they
// claim (closures assembled, feet on the ground), coordinates survive a
// round trip, Articula's forward dynamics agrees with stepping and with
// every peer engine compiled in, and the quadruped stands.
#include "models.hpp"
#include "peer.hpp"
#include "scenes.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <random>

using namespace bench;

namespace {

std::string robot(const std::string& relative) {
  return modelsDirectory() + "/example-robot-data/robots/" + relative;
}

double relative(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() / std::max(a.norm(), b.norm());
}

}  // namespace

class PeerScenesTest : public QObject {
  Q_OBJECT

 private slots:
  void fourBarsStartAssembled() {
    for (int count : {1, 10}) {
      const Scene s = makeFourBars(count);
      QCOMPARE(s.closures.size(), static_cast<std::size_t>(count));
      auto meter = makeMeter(s);
      const double error = meter->closureError(s.q0);
      QVERIFY2(error < 1e-12, qPrintable(QString("closure error %1 m at the initial state").arg(error)));
      // Moving the crank alone opens the loop: the meter does measure.
      Eigen::VectorXd q = s.q0;
      q[0] += 0.1;
      QVERIFY(meter->closureError(q) > 1e-3);
    }
  }

  void freeBodyCoordinatesRoundTrip() {
    const Scene s = makeBoxPile(20);
    auto inst = makeArticulaBackend()->create(s);
    std::mt19937 rng(5);
    std::normal_distribution<double> N;
    Eigen::VectorXd q = s.q0;
    Eigen::VectorXd v(s.numDofs());
    for (int i = 0; i < v.size(); ++i) v[i] = N(rng);
    inst->setState(q, v);
    Eigen::VectorXd q2;
    Eigen::VectorXd v2;
    inst->getState(q2, v2);
    for (int b = 0; b < 20; ++b) {
      // A quaternion and its negative are one orientation.
      const auto qa = q.segment<4>(7 * b + 3);
      const auto qb = q2.segment<4>(7 * b + 3);
      QVERIFY(std::min((qa - qb).norm(), (qa + qb).norm()) < 1e-12);
      QVERIFY((q.segment<3>(7 * b) - q2.segment<3>(7 * b)).norm() < 1e-12);
    }
    QVERIFY(relative(v, v2) < 1e-12);
  }

  void forwardDynamicsMatchesStepping() {
    // Semi-implicit Euler: v₁ = v₀ + h·v̇(q₀, v₀).
    Scene s = makeSerialChain(10);
    auto inst = makeArticulaBackend()->create(s);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    Eigen::VectorXd q(10);
    Eigen::VectorXd v(10);
    for (int i = 0; i < 10; ++i) q[i] = 3.0 * U(rng), v[i] = 2.0 * U(rng);
    const Eigen::VectorXd a = inst->forwardDynamics(q, v, Eigen::VectorXd::Zero(10));
    inst->setState(q, v);
    inst->step();
    Eigen::VectorXd q1;
    Eigen::VectorXd v1;
    inst->getState(q1, v1);
    QVERIFY(relative((v1 - v) / s.dt, a) < 1e-9);
    QVERIFY(relative(q1, q + s.dt * v1) < 1e-12);
  }

  void forwardDynamicsAgreesWithPeers_data() {
    QTest::addColumn<QString>("scene");
    QTest::newRow("chain-5") << "chain-5";
    QTest::newRow("chain-30") << "chain-30";
    QTest::newRow("panda") << "panda";
    QTest::newRow("talos") << "talos";
  }

  void forwardDynamicsAgreesWithPeers() {
    QFETCH(QString, scene);
    Scene s;
    if (scene == "chain-5") {
      s = makeSerialChain(5);
    } else if (scene == "chain-30") {
      s = makeSerialChain(30);
    } else {
      const std::string urdf =
          scene == "panda" ? robot("panda_description/urdf/panda.urdf") : robot("talos_data/robots/talos_reduced.urdf");
      ARTICULA_REQUIRE_MODEL(urdf);
      s = makeFixedBaseRobot(scene == "panda" ? "panda" : "talos", urdf);
    }
    auto all = makePeerBackends();
    if (all.empty()) QSKIP("no peer engine compiled in");
    auto articula = makeArticulaBackend()->create(s);
    const int n = s.numDofs();
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    for (const auto& peer : all) {
      auto other = peer->create(s);
      // Bullet computes in single precision.
      const double tolerance = peer->key() == "bullet" ? 3e-5 : 1e-10;
      double worst = 0.0;
      for (int k = 0; k < 20; ++k) {
        Eigen::VectorXd q(n);
        Eigen::VectorXd v(n);
        Eigen::VectorXd tau(n);
        for (int i = 0; i < n; ++i) q[i] = 3.0 * U(rng), v[i] = 2.0 * U(rng), tau[i] = 5.0 * U(rng);
        worst = std::max(worst, relative(articula->forwardDynamics(q, v, tau), other->forwardDynamics(q, v, tau)));
      }
      QVERIFY2(worst < tolerance, qPrintable(QString("%1: worst relative difference %2 > %3")
                                                 .arg(QString::fromStdString(peer->name()))
                                                 .arg(worst)
                                                 .arg(tolerance)));
    }
  }

  void quadrupedStands() {
    ARTICULA_REQUIRE_MODEL(robot("solo_description/robots/solo12.urdf"));
    const Scene s = makeQuadruped(robot("solo_description/robots/solo12.urdf"));
    QCOMPARE(s.numJointDofs(), 12);
    auto inst = makeArticulaBackend()->create(s);
    const double z0 = s.q0[2];
    inst->step();
    // The lowest foot starts on the ground, not in it.
    QVERIFY(inst->maxPenetration() < 1e-4);
    for (int k = 0; k < 2000; ++k) inst->step();
    Eigen::VectorXd q;
    Eigen::VectorXd v;
    inst->getState(q, v);
    // Upright (quaternion w near 1), on its feet a little lower under the
    // PD's sag, and at rest.
    QVERIFY(std::abs(q[3]) > 0.999);
    QVERIFY(q[2] < z0 && q[2] > z0 - 0.03);
    QVERIFY2(v.norm() < 5e-2, qPrintable(QString("|v| = %1").arg(v.norm())));
  }
};

QTEST_GUILESS_MAIN(PeerScenesTest)
#include "test_peer_scenes.moc"

// Runtime snapshots: restoring the snapshot of step k and stepping gives
// the recorded steps k+1, k+2, ... bit for bit, in the same world and in a
// freshly built one, with contacts (both solvers), loop closures and
// couplers; bad snapshots are refused and change nothing.
#include "replay_scenes.hpp"
#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace articula;

namespace {

using Builder = std::function<void(World&)>;

Builder builderFor(const QString& scene) {
  if (scene == "pile") return test::pile;
  if (scene == "four-bar with box") return test::fourBarWithBox;
  return test::gears;
}

void configure(World& w, const QString& method, bool rk4) {
  WorldOptions o = test::optionsFor(method);
  if (rk4) o.integrator = Integrator::RungeKutta4;
  w.setOptions(o);
}

}  // namespace

class TestRuntimeSnapshot : public QObject {
  Q_OBJECT

 private slots:
  void restoreReproducesTheRecording_data() {
    QTest::addColumn<QString>("scene");
    QTest::addColumn<QString>("method");
    QTest::addColumn<bool>("rk4");
    for (const QString& m : {test::kPgs, test::kPivoting}) {
      QTest::newRow(qPrintable("pile, " + m)) << "pile" << m << false;
      QTest::newRow(qPrintable("four-bar with box, " + m)) << "four-bar with box" << m << false;
      QTest::newRow(qPrintable("gears, " + m)) << "gears" << m << false;
    }
    QTest::newRow("gears, rk4") << "gears" << test::kPgs << true;
  }

  void restoreReproducesTheRecording() {
    QFETCH(QString, scene);
    QFETCH(QString, method);
    QFETCH(bool, rk4);
    World world;
    builderFor(scene)(world);
    configure(world, method, rk4);
    world.enterSimulationMode();
    constexpr int kSteps = 560;
    std::vector<RuntimeSnapshot> recording;
    for (int k = 0; k < kSteps; ++k) {
      recording.push_back(world.captureRuntimeState());
      world.step();
    }
    recording.push_back(world.captureRuntimeState());
    QVERIFY(test::stateIsFinite(world));
    if (scene != "gears") QVERIFY(!world.getContacts().empty());

    World fresh;
    builderFor(scene)(fresh);
    configure(fresh, method, rk4);
    for (World* target : {&world, &fresh}) {
      // Frames all along the run, with and without contacts at the time.
      for (int k = 0; k < kSteps; k += (k < 2 ? 1 : 37)) {
        target->restoreRuntimeState(recording[static_cast<std::size_t>(k)]);
        QCOMPARE(target->getFrameIndex(), recording[static_cast<std::size_t>(k)].state.frameIndex);
        for (int j = k + 1; j <= std::min(k + 40, kSteps); ++j) {
          target->step();
          const WorldState& expected = recording[static_cast<std::size_t>(j)].state;
          ARTICULA_CHECK(target->getPositions() == expected.positions && target->getVelocities() == expected.velocities,
                         QString("%1 world: restored frame %2, step to %3 differs")
                             .arg(target == &world ? "same" : "fresh")
                             .arg(k)
                             .arg(j));
          QCOMPARE(target->getTime(), expected.time);
        }
      }
    }
  }

  void policiesAreRestored() {
    World world;
    test::fourBarWithBox(world);
    world.enterSimulationMode();
    const RuntimeSnapshot before = world.captureRuntimeState();
    LoopClosure pin = *world.getLoopClosure("pin");
    LoopClosureRuntimePolicy p = pin.getRuntimePolicy();
    p.errorReduction = 0.5;
    p.enabled = false;
    pin.setRuntimePolicy(p);
    world.restoreRuntimeState(before);
    QVERIFY(pin.getRuntimePolicy().enabled);
    QCOMPARE(pin.getRuntimePolicy().errorReduction, before.closurePolicies.front().errorReduction);
  }

  void badSnapshotsChangeNothing() {
    World world;
    test::pile(world);
    world.step(200);
    const RuntimeSnapshot good = world.captureRuntimeState();
    QVERIFY(good.solverData.size() > 64);  // contacts are held
    world.step(3);
    const RuntimeSnapshot now = world.captureRuntimeState();

    RuntimeSnapshot truncated = good;
    truncated.solverData.resize(truncated.solverData.size() - 7);
    RuntimeSnapshot longer = good;
    longer.solverData.push_back(0);
    RuntimeSnapshot wrongState = good;
    wrongState.state.positions.conservativeResize(good.state.positions.size() - 1);
    RuntimeSnapshot wrongPolicies = good;
    wrongPolicies.closurePolicies.emplace_back();
    RuntimeSnapshot wrongShape = good;
    const std::int32_t huge = 100000;
    // No closures or couplers: the solver data starts with the diagnostics
    // (32 bytes) and the manifold count (8 bytes), then the first manifold's shape0.
    std::memcpy(wrongShape.solverData.data() + 40, &huge, sizeof huge);
    for (const RuntimeSnapshot* bad : {&truncated, &longer, &wrongState, &wrongPolicies, &wrongShape}) {
      EXPECT_THROW_NONEMPTY(InvalidArgument, world.restoreRuntimeState(*bad));
      const RuntimeSnapshot after = world.captureRuntimeState();
      QVERIFY(after.state.positions == now.state.positions);
      QVERIFY(after.state.velocities == now.state.velocities);
      QVERIFY(after.solverData == now.solverData);
      QCOMPARE(after.state.frameIndex, now.state.frameIndex);
    }
  }

  void designModeSnapshot() {
    World world;
    test::gears(world);
    const RuntimeSnapshot design = world.captureRuntimeState();
    QVERIFY(!design.simulationMode);
    World other;
    test::gears(other);
    other.restoreRuntimeState(design);
    QVERIFY(!other.isSimulationMode());
    QVERIFY(other.getPositions() == world.getPositions());
  }
};

QTEST_APPLESS_MAIN(TestRuntimeSnapshot)
#include "test_runtime_snapshot.moc"

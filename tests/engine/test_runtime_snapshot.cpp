// Runtime snapshots: restoring the snapshot of step k and stepping gives
// the recorded steps k+1, k+2, ... bit for bit, in the same world and in a
// freshly built one, with contacts (both solvers), loop closures and
// couplers; bad snapshots are refused and change nothing.
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

CollisionShapeOptions shape(const Geometry& g, const Isometry3d& pose = Isometry3d::Identity()) {
  CollisionShapeOptions c;
  c.geometry = g;
  c.pose = pose;
  return c;
}

// Boxes, a sphere and a capsule dropped tilted onto the ground and each other.
void pile(World& w) {
  w.addGroundPlane();
  for (int i = 0; i < 6; ++i) {
    RigidBodyOptions o;
    o.inertia = Inertia::box(1.0, {0.3, 0.2, 0.1});
    o.pose = test::translation(0.05 * (i % 3), 0.04 * (i % 2), 0.12 + 0.18 * i) *
             test::rotation(0.3 * i, Vector3d(1, 2, 3).normalized());
    RigidBody b = w.addRigidBody("box" + std::to_string(i), o);
    b.addCollisionShape(shape(Geometry::box({0.3, 0.2, 0.1})));
  }
  RigidBodyOptions s;
  s.inertia = Inertia::sphere(0.5, 0.08);
  s.pose = test::translation(0.1, 0.0, 1.4);
  s.angularVelocity = Vector3d(0, 3, 0);
  w.addRigidBody("ball", s).addCollisionShape(shape(Geometry::sphere(0.08)));
  RigidBodyOptions k;
  k.inertia = Inertia::cylinder(0.5, 0.05, 0.3);
  k.pose = test::translation(-0.1, 0.05, 1.7) * test::rotation(1.0, Vector3d::UnitX());
  w.addRigidBody("capsule", k).addCollisionShape(shape(Geometry::capsule(0.05, 0.3)));
}

// A four-bar (crank, coupler, rocker; the rocker's tip pinned to the world)
// with a box falling on its coupler.
void fourBarWithBox(World& w) {
  w.addGroundPlane(-2.0);
  Multibody mb = w.addMultibody("fourbar");
  const auto rod = [](double m, double l) {
    Inertia in = Inertia::box(m, {l, 0.04, 0.04});
    in.com = Vector3d(0.5 * l, 0, 0);
    return in;
  };
  const JointSpec hinge = JointSpec::revolute(Vector3d::UnitY());
  const Link crank = mb.addLink({"crank", rod(0.5, 0.4)}, hinge.named("crank"));
  const Link coupler = mb.addLink({"coupler", rod(1.0, 1.0)}, crank,
                                  hinge.named("coupler").withParentOffset(test::translation(0.4, 0, 0)));
  const Link rocker = mb.addLink({"rocker", rod(0.8, 0.7)}, coupler,
                                 hinge.named("rocker").withParentOffset(test::translation(1.0, 0, 0)));
  w.addCollisionShape(coupler, shape(Geometry::box({1.0, 0.2, 0.04}), test::translation(0.5, 0, 0)));
  LoopClosureSpec spec;
  spec.frameA = Frame::World();
  spec.offsetA = test::translation(1.0, 0, 0);
  spec.frameB = rocker;
  spec.offsetB = test::translation(0.7, 0, 0);
  spec.family = LoopClosureFamily::Point;
  w.addLoopClosure("pin", spec);
  mb.setPositions(Vector3d(-1.2, 1.7, 1.9));
  ClosureProjectionOptions po;
  po.lockedJoints = {crank.getParentJoint()};
  w.projectClosures(po);
  RigidBodyOptions o;
  o.inertia = Inertia::box(0.3, {0.1, 0.1, 0.1});
  o.pose = test::translation(0.6, 0, 0.8);
  w.addRigidBody("box", o).addCollisionShape(shape(Geometry::box({0.1, 0.1, 0.1})));
}

// Two wheels geared 1 : −2 (a coupler), the leader driven by a spring.
void gears(World& w) {
  Multibody mb = w.addMultibody("gears");
  JointSpec a = JointSpec::revolute(Vector3d::UnitZ()).named("a");
  a.springStiffness = VectorXd::Constant(1, 5.0);
  a.restPositions = VectorXd::Constant(1, 1.0);
  const Link wa = mb.addLink({"wheel_a", Inertia::cylinder(1.0, 0.2, 0.05)}, a);
  const Link wb =
      mb.addLink({"wheel_b", Inertia::cylinder(0.5, 0.1, 0.05)}, wa,
                 JointSpec::revolute(Vector3d::UnitZ()).named("b").withParentOffset(test::translation(0.3, 0, 0)));
  w.addJointCoupler("mesh", JointCouplerSpec{wa.getParentJoint(), wb.getParentJoint(), -2.0, 0.0});
}

using Builder = std::function<void(World&)>;

Builder builderFor(const QString& scene) {
  if (scene == "pile") return pile;
  if (scene == "four-bar with box") return fourBarWithBox;
  return gears;
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
    fourBarWithBox(world);
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
    pile(world);
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
    gears(world);
    const RuntimeSnapshot design = world.captureRuntimeState();
    QVERIFY(!design.simulationMode);
    World other;
    gears(other);
    other.restoreRuntimeState(design);
    QVERIFY(!other.isSimulationMode());
    QVERIFY(other.getPositions() == world.getPositions());
  }
};

QTEST_APPLESS_MAIN(TestRuntimeSnapshot)
#include "test_runtime_snapshot.moc"

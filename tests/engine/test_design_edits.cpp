// In-place design edits (renames, shape geometry, closure and coupler
// specs) and the world lock while a step calls its observers.
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

using namespace articula;
using namespace articula::test;

namespace {

struct Scene {
  World world;
  Multibody arm;
  Link a, b, c;
  RigidBody box;
  Shape ball;
  LoopClosure tie;
  JointCoupler gear;

  Scene() {
    arm = world.addMultibody("arm");
    a = arm.addLink({"a", Inertia::sphere(1.0, 0.05)}, JointSpec::revolute(Vector3d::UnitY()).named("ja"));
    JointSpec j = JointSpec::revolute(Vector3d::UnitY()).named("jb");
    j.parentOffset.translation() << 0, 0, -0.3;
    b = arm.addLink({"b", Inertia::sphere(1.0, 0.05)}, a, j);
    c = arm.addLink({"c", Inertia::sphere(1.0, 0.05)}, a, JointSpec::revolute(Vector3d::UnitY()).named("jc"));
    box = world.addRigidBody("box", {Inertia::box(1.0, Vector3d::Constant(0.1)), Isometry3d::Identity()});
    ball = c.addCollisionShape({.name = "ball", .geometry = Geometry::sphere(0.05), .material = {}});
    LoopClosureSpec s;
    s.frameA = b;
    s.frameB = c;
    s.family = LoopClosureFamily::Distance;
    s.length = 0.3;
    tie = world.addLoopClosure("tie", s);
    gear = world.addJointCoupler("gear", {*arm.getJoint("ja"), *arm.getJoint("jb"), 2.0, 0.0});
  }
};

}  // namespace

class TestDesignEdits : public QObject {
  Q_OBJECT

 private slots:
  void renamesKeepHandlesAndUpdateLookups() {
    Scene s;
    s.arm.setName("limb");
    s.b.setName("upper");
    s.arm.getJoint("jb")->setName("elbow");
    s.box.setName("crate");
    s.ball.setName("knob");
    s.tie.setName("rod");
    s.gear.setName("belt");
    QVERIFY(s.arm.isValid() && s.b.isValid() && s.box.isValid() && s.ball.isValid());
    QCOMPARE(s.arm.name(), std::string("limb"));
    QCOMPARE(s.b.name(), std::string("limb/upper"));
    QVERIFY(s.world.getFrame("limb/upper").has_value());
    QVERIFY(!s.world.getMultibody("arm").has_value());
    QVERIFY(s.world.getMultibody("limb")->getJoint("elbow").has_value());
    QVERIFY(s.world.getRigidBody("crate").has_value());
    QVERIFY(!s.world.getRigidBody("box").has_value());
    QVERIFY(s.world.getShape("knob").has_value());
    QVERIFY(s.world.getLoopClosure("rod").has_value());
    QVERIFY(s.world.getJointCoupler("belt").has_value());
    // The spec and the state names follow.
    const WorldSpec spec = s.world.getSpec();
    QCOMPARE(spec.loopClosures[0].frameA, std::string("limb/upper"));
    QCOMPARE(spec.jointCouplers[0].follower, std::string("limb/elbow"));
    const auto names = s.world.getStateSpace().positionNames();
    QVERIFY(std::find_if(names.begin(), names.end(),
                         [](const std::string& n) { return n.find("elbow") != std::string::npos; }) != names.end());
  }

  void badRenamesAreRefusedAndChangeNothing() {
    Scene s;
    QVERIFY_THROWS_EXCEPTION(TopologyError, s.box.setName("arm"));  // multibodies share the namespace
    QVERIFY_THROWS_EXCEPTION(TopologyError, s.b.setName("c"));
    QVERIFY_THROWS_EXCEPTION(TopologyError, s.arm.getJoint("jb")->setName("jc"));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, s.ball.setName(""));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, s.tie.setName("a/b"));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, Frame::World().setName("w"));
    QCOMPARE(s.box.name(), std::string("box"));
    QCOMPARE(s.b.name(), std::string("arm/b"));
    s.world.step();
    QVERIFY_THROWS_EXCEPTION(LifecycleError, s.box.setName("crate"));
  }

  void shapeGeometryChangesInPlace() {
    Scene s;
    s.ball.setGeometry(Geometry::box({0.1, 0.2, 0.3}));
    QVERIFY(s.ball.getGeometry().type == GeometryType::Box);
    QVERIFY(s.world.getShape("ball") == s.ball);
    // A plane cannot move with a link; the shape keeps its sphere.
    Scene t;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, t.ball.setGeometry(Geometry::plane()));
    QVERIFY(t.ball.getGeometry().type == GeometryType::Sphere);
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, t.ball.setGeometry(Geometry::sphere(-1.0)));
    // The new geometry collides: a box dropped on a ground rests on its half height.
    World w;
    w.addGroundPlane();
    RigidBodyOptions o;
    o.pose.translation() << 0, 0, 0.5;
    RigidBody body = w.addRigidBody("b", o);
    Shape sh = body.addCollisionShape({.name = "s", .geometry = Geometry::sphere(0.05), .material = {}});
    sh.setGeometry(Geometry::box({0.4, 0.4, 0.2}));
    w.step(stepsFor(1.5));
    QVERIFY(std::abs(body.getPose().translation().z() - 0.1) < 2e-3);
  }

  void closureAndCouplerSpecsChangeInPlace() {
    Scene s;
    LoopClosureSpec spec = s.tie.getSpec();
    spec.family = LoopClosureFamily::Point;
    spec.offsetA.translation() << 0, 0, 0.1;
    s.tie.setSpec(spec);
    QVERIFY(s.tie.isValid());
    QVERIFY(s.tie.family() == LoopClosureFamily::Point);
    QCOMPARE(s.world.numLoopClosures(), std::size_t{1});
    QCOMPARE(s.tie.name(), std::string("tie"));
    // An invalid spec (both ends on one body) leaves it as it was.
    LoopClosureSpec bad = spec;
    bad.frameB = s.b;
    QVERIFY_THROWS_EXCEPTION(TopologyError, s.tie.setSpec(bad));
    QVERIFY(s.tie.family() == LoopClosureFamily::Point);
    QVERIFY(s.tie.getSpec().frameB == Frame(s.c));

    JointCouplerSpec g = s.gear.getSpec();
    g.ratio = -3.0;
    g.follower = *s.arm.getJoint("jc");
    s.gear.setSpec(g);
    QCOMPARE(s.gear.getSpec().ratio, -3.0);
    QCOMPARE(s.gear.getSpec().follower.name(), std::string("jc"));
    g.ratio = 0.0;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, s.gear.setSpec(g));
    QCOMPARE(s.gear.getSpec().ratio, -3.0);
    QCOMPARE(s.world.numJointCouplers(), std::size_t{1});
    // The edited world steps and keeps the coupling (the closure, which no
    // longer fits this geometry, is switched off).
    s.tie.setEnabled(false);
    s.arm.getJoint("ja")->setPosition(0, 0.1);
    s.world.step(100);
    const double r = s.gear.computeResidual().residual;
    QVERIFY2(std::abs(r) < 1e-6, qPrintable(QString::number(r)));
  }

  void observersCannotEditTheWorldDuringAStep() {
    Scene s;
    int calls = 0;
    std::string refused;
    s.world.addStepObserver([&](const World& w) {
      ++calls;
      QVERIFY(w.isLocked());
      try {
        s.arm.getJoint("ja")->setPosition(0, 1.0);
      } catch (const LifecycleError& e) {
        refused = e.what();
      }
      QVERIFY_THROWS_EXCEPTION(LifecycleError, s.world.step());
      QVERIFY_THROWS_EXCEPTION(LifecycleError, s.world.setPositions(s.world.getPositions()));
      QVERIFY_THROWS_EXCEPTION(LifecycleError, s.world.reset());
      QVERIFY_THROWS_EXCEPTION(LifecycleError, s.world.addFreeFrame("f"));
    });
    s.world.step(3);
    QCOMPARE(calls, 3);
    QVERIFY(refused.find("observer") != std::string::npos);
    QVERIFY(!s.world.isLocked());
    s.arm.getJoint("ja")->setPosition(0, 1.0);  // allowed again
  }

  void observersMayRemoveThemselvesAndAddOthers() {
    World w;
    w.addRigidBody("b");
    std::vector<int> log;
    std::uint64_t first = 0;
    first = w.addStepObserver([&](const World&) {
      log.push_back(1);
      w.removeStepObserver(first);  // itself
      w.addStepObserver([&](const World&) { log.push_back(3); });
    });
    const std::uint64_t second = w.addStepObserver([&](const World&) { log.push_back(2); });
    w.step(2);
    // Step 1: 1 then 2 (3 joins after); step 2: 2 then 3.
    QCOMPARE(log, (std::vector<int>{1, 2, 2, 3}));
    w.removeStepObserver(second);
    w.step();
    QCOMPARE(log.back(), 3);
    QCOMPARE(log.size(), std::size_t{5});
  }

  void anObserverThatThrowsLeavesTheWorldUnlocked() {
    World w;
    w.addRigidBody("b");
    const auto id = w.addStepObserver([](const World&) { throw std::runtime_error("observer failed"); });
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, w.step());
    QVERIFY(!w.isLocked());
    w.removeStepObserver(id);
    w.step();
    QCOMPARE(w.getFrameIndex(), std::uint64_t{2});
  }
};

QTEST_GUILESS_MAIN(TestDesignEdits)
#include "test_design_edits.moc"

// WorldSpec: getSpec() of a world built through the facade rebuilds a world
// that steps bit for bit like it; applySpec edits the design in one go,
// keeps state by name, and leaves the world untouched when it fails.
#include "random_tree.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>

using namespace articula;
using namespace articula::test;

namespace {

bool sameBits(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0);
}

// A world with every kind of object: a rigid body created between two
// multibodies (so the state packing interleaves them), user frames, shapes
// on the world, bodies and links, a closure, a coupler and an explicit
// collision setting.
void buildEverything(World& w) {
  w.addGroundPlane(0.0, Material{0.6, 0.1});
  Multibody arm = w.addMultibody("arm");
  Link base = arm.addLink({"base", Inertia::box(2.0, {0.2, 0.2, 0.1})},
                          JointSpec::weld(Isometry3d(Eigen::Translation3d(0, 0, 1.0))));
  JointSpec shoulder = JointSpec::revolute({0, 1, 1});  // normalised by the engine
  shoulder.name = "shoulder";
  shoulder.damping = VectorXd::Constant(1, 0.05);
  shoulder.parentOffset.translation() << 0, 0, 0.05;
  Link upper = arm.addLink({"upper", Inertia::cylinder(1.0, 0.03, 0.4)}, base, shoulder);
  JointSpec elbow = JointSpec::revolute(Vector3d::UnitY()).named("elbow");
  elbow.parentOffset.translation() << 0, 0, -0.4;
  elbow.positionLowerLimits = VectorXd::Constant(1, -1.0);
  elbow.positionUpperLimits = VectorXd::Constant(1, 1.0);
  Link fore = arm.addLink({"fore", Inertia::cylinder(0.5, 0.02, 0.3)}, upper, elbow);
  JointSpec wrist = JointSpec::revolute(Vector3d::UnitY()).named("wrist");
  wrist.parentOffset.translation() << 0, 0, -0.3;
  Link hand = arm.addLink({"hand", Inertia::sphere(0.2, 0.05)}, fore, wrist);
  arm.getJoint("shoulder")->setPosition(0, 0.4);
  arm.getJoint("elbow")->setVelocity(0, 1.5);
  hand.addCollisionShape({.name = "hand_ball", .geometry = Geometry::sphere(0.05), .material = {}});
  upper.addVisualShape(VisualShapeOptions{"upper_vis", Geometry::cylinder(0.03, 0.4), Isometry3d::Identity(),
                                          Vector4d(0.2, 0.3, 0.9, 1.0)});

  RigidBodyOptions box;
  box.inertia = Inertia::box(1.0, {0.1, 0.1, 0.1});
  box.pose.translation() << 0.5, 0.0, 0.3;
  box.pose.linear() = Eigen::AngleAxisd(0.3, Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  box.angularVelocity << 0.5, -1.0, 2.0;
  box.linearVelocity << 0.1, 0.0, 0.0;
  RigidBody b = w.addRigidBody("box", box);
  b.addCollisionShape({.name = "box_geom", .geometry = Geometry::box({0.1, 0.1, 0.1}), .material = {0.9, 0.0}});

  Multibody pendulum = w.addMultibody("pendulum");
  JointSpec pivot = JointSpec::ball().named("pivot");
  pivot.parentOffset.translation() << -0.5, 0, 1.2;
  Link bob = pendulum.addLink({"bob", Inertia::pointMass(1.0, {0, 0, -0.5})}, pivot);
  Link bob2 = pendulum.addLink({"bob2", Inertia::sphere(0.3, 0.04)}, bob,
                               JointSpec::revolute(Vector3d::UnitX()).named("swing"));
  Link bob3 = pendulum.addLink({"bob3", Inertia::sphere(0.3, 0.04)}, bob,
                               JointSpec::revolute(Vector3d::UnitX()).named("swing2"));
  VectorXd v(3);
  v << 0.3, -0.2, 0.1;
  pendulum.getJoint("pivot")->setVelocities(v);
  bob.addCollisionShape({.name = "bob_geom", .geometry = Geometry::capsule(0.03, 0.2), .material = {}});

  w.addFixedFrame("tool", hand, Isometry3d(Eigen::Translation3d(0, 0, -0.05)));
  FreeFrame target = w.addFreeFrame("target", Frame::World(), Isometry3d(Eigen::Translation3d(1, 1, 1)));
  Vector6d V;
  V << 0, 0, 0.1, 0.2, 0, 0;
  target.setRelativeSpatialVelocity(V);

  LoopClosureSpec tie;
  tie.frameA = bob2;
  tie.frameB = bob3;
  tie.family = LoopClosureFamily::Distance;
  tie.length = 0.1;
  LoopClosure c = w.addLoopClosure("tie", tie);
  LoopClosureRuntimePolicy policy;
  policy.errorReduction = 0.3;
  c.setRuntimePolicy(policy);
  w.addJointCoupler("gear", {*arm.getJoint("elbow"), *arm.getJoint("wrist"), -0.5, 0.1});
  w.setCollisionEnabled(hand, b, false);
}

// Steps two worlds side by side and requires identical states.
void requireSameStepping(World& a, World& b, int steps) {
  QVERIFY(sameBits(a.getPositions(), b.getPositions()));
  QVERIFY(sameBits(a.getVelocities(), b.getVelocities()));
  for (int k = 0; k < steps; ++k) {
    a.step();
    b.step();
    if (!sameBits(a.getPositions(), b.getPositions()) || !sameBits(a.getVelocities(), b.getVelocities())) {
      QFAIL(qPrintable(QString("states differ after step %1").arg(k + 1)));
    }
    QCOMPARE(a.getContacts().size(), b.getContacts().size());
  }
  QCOMPARE(a.getTime(), b.getTime());
}

}  // namespace

class TestWorldSpec : public QObject {
  Q_OBJECT

 private slots:
  void specListsEveryObjectByName() {
    World w;
    buildEverything(w);
    const WorldSpec spec = w.getSpec();
    QCOMPARE(spec.rigidBodies.size(), std::size_t{1});
    QCOMPARE(spec.multibodies.size(), std::size_t{2});
    QCOMPARE(spec.multibodies[0].links.size(), std::size_t{4});
    QCOMPARE(spec.multibodies[0].links[2].parent, std::string("upper"));
    QCOMPARE(spec.frames.size(), std::size_t{2});
    QCOMPARE(spec.frames[0].parent, std::string("arm/hand"));
    QCOMPARE(spec.shapes.size(), std::size_t{5});
    QCOMPARE(spec.shapes[0].owner, std::string("world"));
    QCOMPARE(spec.loopClosures.size(), std::size_t{1});
    QCOMPARE(spec.loopClosures[0].frameA, std::string("pendulum/bob2"));
    QCOMPARE(spec.loopClosures[0].policy.errorReduction, 0.3);
    QCOMPARE(spec.jointCouplers.size(), std::size_t{1});
    QCOMPARE(spec.jointCouplers[0].leader, std::string("arm/elbow"));
    QCOMPARE(spec.collisionSettings.size(), std::size_t{1});
    // The rigid body was created between the two multibodies.
    QCOMPARE(spec.ownerOrder, (std::vector<std::string>{"arm", "box", "pendulum"}));
    // Coordinates are the current ones.
    QCOMPARE(spec.multibodies[0].links[1].q[0], 0.4);
    QCOMPARE(spec.multibodies[0].links[2].v[0], 1.5);
    // The rigid body's pose reads back.
    const Isometry3d X = spec.rigidBodies[0].pose();
    QVERIFY((X.matrix() - w.getRigidBody("box")->getPose().matrix()).norm() < 1e-14);
  }

  // Viewpoints: set (or replaced by name), removed, checked, carried by the
  // spec, and no part of the layout or the stepping.
  void viewpointsRoundTripAndTakeNoPartInTheLayout() {
    World a;
    buildEverything(a);
    const LayoutFingerprint before = computeLayoutFingerprint(a);
    ViewpointSpec side;
    side.name = "side";
    side.eye = Vector3d(0, -4, 1);
    side.center = Vector3d(0, 0, 0.5);
    a.setViewpoint(side);
    ViewpointSpec top{"top", Vector3d(0, 0, 6), Vector3d(0.1, 0, 0), 30.0};
    a.setViewpoint(top);
    side.fovYDegrees = 60.0;
    a.setViewpoint(side);  // replaces, in place
    QCOMPARE(a.getViewpoints().size(), std::size_t{2});
    QCOMPARE(a.getViewpoints()[0].name, std::string("side"));
    QCOMPARE(a.getViewpoint("side")->fovYDegrees, 60.0);
    QVERIFY(!a.getViewpoint("front"));
    QVERIFY(before == computeLayoutFingerprint(a));
    for (const ViewpointSpec& bad : {ViewpointSpec{"", Vector3d(1, 0, 0), Vector3d::Zero(), 45.0},
                                     ViewpointSpec{"a/b", Vector3d(1, 0, 0), Vector3d::Zero(), 45.0},
                                     ViewpointSpec{"same", Vector3d(1, 2, 3), Vector3d(1, 2, 3), 45.0},
                                     ViewpointSpec{"nan", Vector3d(std::nan(""), 0, 0), Vector3d::Zero(), 45.0},
                                     ViewpointSpec{"two words", Vector3d(1, 0, 0), Vector3d::Zero(), 45.0},
                                     ViewpointSpec{"a,b", Vector3d(1, 0, 0), Vector3d::Zero(), 45.0},
                                     ViewpointSpec{"wide", Vector3d(1, 0, 0), Vector3d::Zero(), 171.0},
                                     ViewpointSpec{"narrow", Vector3d(1, 0, 0), Vector3d::Zero(), 0.5}}) {
      QVERIFY_THROWS_EXCEPTION(InvalidArgument, a.setViewpoint(bad));
    }
    const WorldSpec spec = a.getSpec();
    QCOMPARE(spec.viewpoints, a.getViewpoints());
    World b(spec);
    QCOMPARE(b.getViewpoints(), a.getViewpoints());
    QVERIFY(b.getSpec() == spec);
    WorldSpec other = spec;
    other.viewpoints.pop_back();
    QVERIFY(!(other == spec));
    requireSameStepping(a, b, 50);
    // A recording of the world without viewpoints restores into the one with them.
    World c;
    buildEverything(c);
    Recording r;
    c.step(3);
    r.append(c);
    World d;
    buildEverything(d);
    d.setViewpoint(top);
    d.enterSimulationMode();
    r.restore(d, 0);
    QVERIFY(sameBits(d.getPositions(), c.getPositions()));
    // Appending a spec keeps this scene's viewpoints.
    WorldSpec joined;
    joined.viewpoints = {top};
    joined.append(spec);
    QCOMPARE(joined.viewpoints.size(), std::size_t{1});
    a.removeViewpoint("side");
    a.removeViewpoint("nothing");
    QCOMPARE(a.getViewpoints().size(), std::size_t{1});
    a.clear();
    QVERIFY(a.getViewpoints().empty());
  }

  void meshPartsAreCheckedAndKept() {
    const std::vector<Vector3d> quad{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    Geometry g = Geometry::triangleMesh(quad, {{0, 1, 2}, {0, 2, 3}});
    const auto refused = [&](std::vector<MeshPart> parts, GeometryType type, const std::string& expected) {
      World w;
      RigidBody b = w.addRigidBody("b");
      VisualShapeOptions o;
      o.geometry =
          type == GeometryType::TriangleMesh ? g : Geometry::convexMesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
      o.geometry.parts = std::move(parts);
      try {
        b.addVisualShape(o);
        return std::string("accepted");
      } catch (const InvalidArgument& e) {
        return std::string(e.what()).find(expected) == std::string::npos ? std::string(e.what()) : std::string();
      }
    };
    const Vector4d red(1, 0, 0, 1);
    QCOMPARE(refused({MeshPart{1, 2, red}}, GeometryType::TriangleMesh, "part 0 covers triangles 1..2"), std::string());
    QCOMPARE(refused({MeshPart{0, 0, red}}, GeometryType::TriangleMesh, "at least one triangle"), std::string());
    QCOMPARE(refused({MeshPart{-1, 1, red}}, GeometryType::TriangleMesh, "part 0"), std::string());
    QCOMPARE(refused({MeshPart{1, 1, red}, MeshPart{0, 1, red}}, GeometryType::TriangleMesh, "part 1 covers"),
             std::string());
    QCOMPARE(refused({MeshPart{0, 1, Vector4d(1, 0, 0, 1.5)}}, GeometryType::TriangleMesh, "outside [0, 1]"),
             std::string());
    QCOMPARE(refused({MeshPart{0, 1, red}}, GeometryType::ConvexMesh, "triangle meshes only"), std::string());

    // Kept through the spec; a changed part colour is a different spec.
    World w;
    RigidBody b = w.addRigidBody("b");
    VisualShapeOptions o;
    o.geometry = g;
    o.geometry.parts = {MeshPart{1, 1, red}};
    Shape shape = b.addVisualShape(o);
    QVERIFY(shape.getGeometry().parts == o.geometry.parts);
    const WorldSpec spec = w.getSpec();
    World rebuilt(spec);
    QVERIFY(rebuilt.getSpec() == spec);
    QVERIFY(rebuilt.getRigidBody("b")->getVisualShapes().front().getGeometry().parts == o.geometry.parts);
    WorldSpec changed = spec;
    for (ShapeSpec& sh : changed.shapes) {
      if (!sh.collision) sh.geometry.parts.front().color = Vector4d(0, 0, 1, 1);
    }
    QVERIFY(!(changed == spec));
  }

  void rebuiltWorldStepsBitForBit() {
    World a;
    buildEverything(a);
    World b(a.getSpec());
    QCOMPARE(b.numDofs(), a.numDofs());
    QCOMPARE(b.getStateSpace().positionNames(), a.getStateSpace().positionNames());
    requireSameStepping(a, b, 300);
  }

  void specOfWorldInSimulationModeCarriesCurrentState() {
    World a;
    buildEverything(a);
    a.step(50);
    World b(a.getSpec());
    QVERIFY(sameBits(a.getPositions(), b.getPositions()));
    QVERIFY(sameBits(a.getVelocities(), b.getVelocities()));
  }

  void editedWorldRoundTrips() {
    // Removals leave holes in the engine's storage; the spec has none.
    World a;
    buildEverything(a);
    a.getMultibody("arm")->getLink("hand")->remove();
    a.remove(*a.getShape("box_geom"));
    a.addRigidBody("late", {Inertia::sphere(1.0, 0.1), Isometry3d(Eigen::Translation3d(0, 2, 0.5))})
        .addCollisionShape({.name = "late_ball", .geometry = Geometry::sphere(0.1), .material = {}});
    World b(a.getSpec());
    QCOMPARE(b.getSpec().ownerOrder, a.getSpec().ownerOrder);
    requireSameStepping(a, b, 200);
  }

  void whateverStateAWorldAcceptsRebuilds() {
    // A rigid body's quaternion written unnormalised (as a scene file may
    // hold it): the spec stores the coordinates as the world has them.
    World a;
    a.addRigidBody("b", {Inertia::box(1.0, {0.1, 0.2, 0.3}), Isometry3d::Identity()});
    VectorXd q = a.getPositions();
    q.segment<4>(3) << 1.0, 0.0, 0.0, 1.0;
    a.setPositions(q);
    World b(a.getSpec());
    requireSameStepping(a, b, 20);
  }

  void randomTreesOfEveryJointTypeRoundTrip() {
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
      TreeOptions opt;
      opt.numLinks = 12;
      RandomTree t = makeRandomTree(seed, opt);
      std::mt19937 rng(seed + 100);
      t.mb.setPositions(randomPositions(rng, t.mb));
      t.mb.setVelocities(randomVectorX(rng, t.mb.numDofs(), -1.0, 1.0));
      World b(t.world->getSpec());
      requireSameStepping(*t.world, b, 100);
    }
  }

  void applySpecChangesTheDesignAndKeepsStateByName() {
    World w;
    buildEverything(w);
    w.getMultibody("pendulum")->getJoint("swing")->setPosition(0, 0.25);
    WorldSpec spec = w.getSpec();
    // Edits: damping of a joint, a renamed link (its state comes from the
    // spec), a changed q in the spec for a persisting joint (kept: by name).
    spec.findLink("arm", "fore")->joint.damping = VectorXd::Constant(1, 2.0);
    spec.findLink("pendulum", "bob")->q = VectorXd();  // would be neutral, but the joint persists
    spec.findLink("arm", "upper")->q = VectorXd::Constant(1, -0.7);
    LinkSpec* renamed = spec.findLink("pendulum", "bob3");
    renamed->name = "bob3b";
    renamed->joint.name = "swing2b";
    renamed->q = VectorXd::Constant(1, 0.9);
    spec.loopClosures[0].frameB = "pendulum/bob3b";

    const VectorXd pivotBefore = w.getMultibody("pendulum")->getJoint("pivot")->getPositions();
    const Multibody oldHandle = *w.getMultibody("arm");
    bool observed = false;
    w.addStepObserver([&](const World&) { observed = true; });
    w.applySpec(spec);

    QVERIFY(!oldHandle.isValid());
    Multibody arm = *w.getMultibody("arm");
    QCOMPARE(arm.getJoint("elbow")->getSpec().damping[0], 2.0);
    QCOMPARE(arm.getJoint("shoulder")->getPosition(0), 0.4);  // kept by name, not the spec's −0.7
    QVERIFY(sameBits(w.getMultibody("pendulum")->getJoint("pivot")->getPositions(), pivotBefore));
    QCOMPARE(w.getMultibody("pendulum")->getJoint("swing2b")->getPosition(0), 0.9);  // new name: from the spec
    QCOMPARE(w.getMultibody("pendulum")->getJoint("swing")->getPosition(0), 0.25);
    QCOMPARE(w.getLoopClosure("tie")->getSpec().frameB.name(), std::string("pendulum/bob3b"));
    w.step();
    QVERIFY(observed);

    // FromSpec takes every coordinate from the spec.
    w.resetToDesignMode();
    WorldSpec again = w.getSpec();
    again.findLink("arm", "upper")->q = VectorXd::Constant(1, -0.7);
    w.applySpec(again, SpecStatePolicy::FromSpec);
    QCOMPARE(w.getMultibody("arm")->getJoint("shoulder")->getPosition(0), -0.7);
  }

  void applySpecThatFailsLeavesTheWorldUntouched() {
    World w;
    buildEverything(w);
    const WorldSpec before = w.getSpec();
    const Multibody arm = *w.getMultibody("arm");
    const VectorXd q = w.getPositions();

    auto expectFailure = [&](WorldSpec bad, const char* expected) {
      try {
        w.applySpec(bad);
        QFAIL("applySpec accepted an invalid spec");
      } catch (const Error& e) {
        if (!QString(e.what()).contains(expected)) QFAIL(qPrintable(QString("unexpected message: ") + e.what()));
      }
      QVERIFY(arm.isValid());
      QVERIFY(sameBits(w.getPositions(), q));
      QCOMPARE(w.getSpec().shapes.size(), before.shapes.size());
      QCOMPARE(w.getSpec().multibodies[0].links.size(), before.multibodies[0].links.size());
    };
    WorldSpec bad = before;
    bad.multibodies[0].links[3].parent = "nowhere";
    expectFailure(bad, "nowhere");
    bad = before;
    bad.shapes.back().owner = "ghost";
    expectFailure(bad, "ghost");
    bad = before;
    bad.multibodies[1].links[0].q = VectorXd::Zero(3);  // a ball joint has 4 coordinates
    expectFailure(bad, "4");
    bad = before;
    bad.rigidBodies[0].inertia.mass = -1.0;
    expectFailure(bad, "mass");
    bad = before;
    bad.jointCouplers[0].follower = "arm/nope";
    expectFailure(bad, "arm/nope");
    bad = before;
    bad.rigidBodies.push_back(bad.rigidBodies[0]);  // a name clash
    expectFailure(bad, "box");

    // And the world still steps like a fresh copy of its old design.
    World copy(before);
    requireSameStepping(w, copy, 50);
  }

  void applySpecIsRefusedInSimulationMode() {
    World w;
    buildEverything(w);
    w.step();
    QVERIFY_THROWS_EXCEPTION(LifecycleError, w.applySpec(w.getSpec()));
  }

  void appendJoinsTwoSpecs() {
    World a;
    buildEverything(a);
    World small;
    small.addRigidBody("ball", {Inertia::sphere(1.0, 0.1), Isometry3d(Eigen::Translation3d(3, 0, 1))})
        .addCollisionShape({.name = "ball_geom", .geometry = Geometry::sphere(0.1), .material = {}});
    WorldSpec joined = a.getSpec();
    joined.append(small.getSpec());
    World b(joined);
    QCOMPARE(b.numRigidBodies(), std::size_t{2});
    QCOMPARE(b.getSpec().ownerOrder, (std::vector<std::string>{"arm", "box", "pendulum", "ball"}));
    QVERIFY(b.getShape("ball_geom").has_value());
  }

  void rigidBodyPoseHelpersMatchTheFacade() {
    RigidBodySpec s;
    Isometry3d X = Isometry3d::Identity();
    X.linear() = Eigen::AngleAxisd(1.1, Vector3d(0.3, -1, 0.2).normalized()).toRotationMatrix();
    X.translation() << 1, 2, 3;
    s.name = "b";
    s.setPose(X);
    s.setVelocityWorld({0.5, 0, -1}, {0, 2, 0});
    WorldSpec spec;
    spec.rigidBodies.push_back(s);
    World w(spec);
    const RigidBody b = *w.getRigidBody("b");
    QVERIFY((b.getPose().matrix() - X.matrix()).norm() < 1e-12);
    QVERIFY((b.getLinearVelocityWorld() - Vector3d(0.5, 0, -1)).norm() < 1e-12);
    QVERIFY((b.getAngularVelocityWorld() - Vector3d(0, 2, 0)).norm() < 1e-12);
  }
};

QTEST_GUILESS_MAIN(TestWorldSpec)
#include "test_world_spec.moc"

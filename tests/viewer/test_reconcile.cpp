// Scene descriptions of worlds and their mark-and-sweep reconciliation with
// what the viewer has drawn (no OpenGL), and render snapshots checked
// against quantities computed another way.
#include "replay_scenes.hpp"
#include "test_helpers.hpp"

#include <articula/viewer/reconcile.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>

#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace articula;
using namespace articula::test;
using namespace articula::viewer;

namespace {

std::vector<DrawnShape> drawnFrom(const SceneDescription& d) {
  std::vector<DrawnShape> drawn;
  for (std::size_t i = 0; i < d.shapes.size(); ++i) drawn.push_back(drawnShapeOf(d, i));
  return drawn;
}

std::vector<std::string> namesOf(const SceneDescription& d, const std::vector<std::size_t>& indices) {
  std::vector<std::string> names;
  for (std::size_t i : indices) names.push_back(d.shapes[i].name);
  std::sort(names.begin(), names.end());
  return names;
}

VisualShapeOptions visual(const std::string& name, const Geometry& g, const Vector4d& color) {
  VisualShapeOptions o;
  o.name = name;
  o.geometry = g;
  o.color = color;
  return o;
}

}  // namespace

class TestReconcile : public QObject {
  Q_OBJECT
 private slots:
  void describesBodiesShapesJointsAndClosures() {
    World w;
    fourBarWithBox(w);
    w.addVisualShape(*w.getFrame("fourbar/crank"), visual("crank_look", Geometry::cylinder(0.02, 0.4), {1, 0, 0, 1}));
    const SceneDescription d = describeScene(w, 7);
    QCOMPARE(d.version, std::uint64_t{7});
    // world, box, three links
    QCOMPARE(d.bodies.size(), std::size_t{5});
    QCOMPARE(d.bodies[0].kind, BodyKind::World);
    QCOMPARE(d.bodies[0].id, kWorldBodyId);
    QCOMPARE(d.joints.size(), std::size_t{3});
    QCOMPARE(d.closures.size(), std::size_t{1});
    QCOMPARE(d.closures[0].name, std::string("pin"));
    // ground, coupler plate, box, crank visual
    QCOMPARE(d.shapes.size(), std::size_t{4});
    std::set<ObjectId> ids;
    for (const ShapeDescription& s : d.shapes) ids.insert(s.id);
    for (const BodyDescription& b : d.bodies) ids.insert(b.id);
    QCOMPARE(ids.size(), d.shapes.size() + d.bodies.size());
    const int crankLook = d.findShape(shapeId(*w.getShape("crank_look")));
    QVERIFY(crankLook >= 0);
    const ShapeDescription& look = d.shapes[static_cast<std::size_t>(crankLook)];
    QVERIFY(!look.collision);
    QCOMPARE(d.bodies[look.body].name, std::string("fourbar/crank"));
    QVERIFY(look.color.isApprox(Vector4d(1, 0, 0, 1)));
    const int ground = d.findShape(shapeId(*w.getShape("ground")));
    QVERIFY(ground >= 0);
    QCOMPARE(d.shapes[static_cast<std::size_t>(ground)].body, 0u);
    QVERIFY(d.shapes[static_cast<std::size_t>(ground)].collision);
    for (const JointDescription& j : d.joints) {
      QVERIFY(j.axis.isApprox(Vector3d::UnitY()));
      QCOMPARE(j.numPositions, 1);
      QVERIFY(j.positionOffset >= 0 && j.positionOffset < d.numPositions);
      QCOMPARE(d.positionNames[static_cast<std::size_t>(j.positionOffset)].rfind(j.name, 0), std::size_t{0});
    }
    QCOMPARE(d.numPositions, w.numPositions());
    QCOMPARE(static_cast<int>(d.positionNames.size()), w.numPositions());
    QCOMPARE(d.findShape(12345), -1);
  }

  // The drawn axis follows the joint-type table: a joint's own axis, a
  // planar joint's rotation axis (the normal of its plane), none for types
  // without one.
  void jointAxesFollowTheJointTypeTable() {
    World w;
    Multibody mb = w.addMultibody("m");
    LinkOptions lo;
    lo.inertia = Inertia::box(1.0, Vector3d(0.1, 0.1, 0.1));
    lo.name = "slider";
    const Link a = mb.addLink(lo, JointSpec::planar(Vector3d::UnitY(), Vector3d::UnitZ()));
    lo.name = "hinge";
    const Link b = mb.addLink(lo, a, JointSpec::revolute(Vector3d(0.0, 0.6, 0.8)));
    lo.name = "ball";
    mb.addLink(lo, b, JointSpec::ball());
    const SceneDescription d = describeScene(w);
    QCOMPARE(d.joints.size(), std::size_t{3});
    std::map<std::string, Vector3d> axes;
    for (const JointDescription& j : d.joints) axes[d.bodies[j.childBody].name] = j.axis;
    QVERIFY(axes.at("m/slider").isApprox(Vector3d::UnitX()));
    QVERIFY(axes.at("m/hinge").isApprox(Vector3d(0.0, 0.6, 0.8)));
    QCOMPARE(axes.at("m/ball").squaredNorm(), 0.0);
  }

  void firstReconcileAddsEverythingThenNothingChanges() {
    World w;
    pile(w);
    const SceneDescription d = describeScene(w);
    const ReconcilePlan first = reconcile({}, d);
    QCOMPARE(first.added.size(), d.shapes.size());
    QVERIFY(first.removed.empty() && first.rebuilt.empty() && first.moved.empty() && first.unchanged.empty());
    const ReconcilePlan second = reconcile(drawnFrom(d), describeScene(w, 2));
    QVERIFY(second.empty());
    QCOMPARE(second.unchanged.size(), d.shapes.size());
  }

  void editsAreClassified() {
    World w;
    pile(w);
    RigidBody box0 = *w.getRigidBody("box0");
    w.addVisualShape(box0, visual("paint", Geometry::box({0.3, 0.2, 0.1}), {0.2, 0.4, 0.9, 1}));
    w.addVisualShape(box0, visual("marker", Geometry::sphere(0.02), {1, 1, 0, 1}));
    w.addVisualShape(box0, visual("tag", Geometry::sphere(0.03), {0, 1, 0, 1}));
    const SceneDescription before = describeScene(w, 1);
    const std::vector<DrawnShape> drawn = drawnFrom(before);
    const ObjectId box1Shape = shapeId(w.getCollisionShapes(*w.getRigidBody("box1")).at(0));
    const ObjectId tagShape = shapeId(*w.getShape("tag"));

    // Remove a body (its shape goes), add a shape, recolour one, move one,
    // change one's geometry.
    w.remove(*w.getRigidBody("box1"));
    w.addVisualShape(*w.getRigidBody("ball"), visual("stripe", Geometry::box({0.01, 0.2, 0.01}), {1, 1, 1, 1}));
    w.getShape("paint")->setColor({0.9, 0.1, 0.1, 1});
    w.getShape("marker")->setLocalPose(translation(0.1, 0, 0.05));
    w.remove(*w.getShape("tag"));
    w.addVisualShape(box0, visual("tag2", Geometry::sphere(0.05), {0, 1, 0, 1}));

    const SceneDescription after = describeScene(w, 2);
    const ReconcilePlan plan = reconcile(drawn, after);
    QCOMPARE(namesOf(after, plan.added), (std::vector<std::string>{"stripe", "tag2"}));
    // "paint" changed colour; the ball's collision shape stood in for its
    // missing visuals until "stripe" arrived, so it is rebuilt too.
    QCOMPARE(plan.rebuilt.size(), std::size_t{2});
    QVERIFY(std::find(plan.rebuilt.begin(), plan.rebuilt.end(),
                      static_cast<std::size_t>(after.findShape(shapeId(*w.getShape("paint"))))) != plan.rebuilt.end());
    QVERIFY(std::find(plan.rebuilt.begin(), plan.rebuilt.end(),
                      static_cast<std::size_t>(after.findShape(
                          shapeId(w.getCollisionShapes(*w.getRigidBody("ball")).at(0))))) != plan.rebuilt.end());
    QCOMPARE(namesOf(after, plan.moved), (std::vector<std::string>{"marker"}));
    QCOMPARE(plan.removed.size(), std::size_t{2});
    QVERIFY(std::find(plan.removed.begin(), plan.removed.end(), box1Shape) != plan.removed.end());
    QVERIFY(std::find(plan.removed.begin(), plan.removed.end(), tagShape) != plan.removed.end());
    // Every description shape is in exactly one list.
    QCOMPARE(plan.added.size() + plan.rebuilt.size() + plan.moved.size() + plan.unchanged.size(), after.shapes.size());
    // Applying the plan and reconciling again changes nothing.
    QVERIFY(reconcile(drawnFrom(after), after).empty());
  }

  void duplicateIdsAreRefused() {
    World w;
    pile(w);
    SceneDescription d = describeScene(w);
    d.shapes.push_back(d.shapes.front());
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, reconcile({}, d));
  }

  void contentHashSeesGeometryAndColourOnly() {
    const Geometry a = Geometry::box({1, 2, 3});
    Geometry b = a;
    QCOMPARE(shapeContentHash(a, {1, 0, 0, 1}), shapeContentHash(b, {1, 0, 0, 1}));
    QVERIFY(shapeContentHash(a, {1, 0, 0, 1}) != shapeContentHash(a, {1, 0, 0, 0.5}));
    b.size.z() = 3.0000001;
    QVERIFY(shapeContentHash(a, {1, 0, 0, 1}) != shapeContentHash(b, {1, 0, 0, 1}));
    Geometry m = Geometry::triangleMesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{0, 1, 2}});
    Geometry n = m;
    n.triangles[0] = {0, 2, 1};
    QVERIFY(shapeContentHash(m, {1, 1, 1, 1}) != shapeContentHash(n, {1, 1, 1, 1}));
  }

  void snapshotAgreesWithTheWorld() {
    World w;
    fourBarWithBox(w);
    w.enterSimulationMode();
    w.step(40);
    const SceneDescription d = describeScene(w, 3);
    RenderSnapshot s;
    fillRenderSnapshot(w, d, s);
    QCOMPARE(s.descriptionVersion, std::uint64_t{3});
    QCOMPARE(s.step, std::uint64_t{40});
    QCOMPARE(s.time, w.getTime());
    QCOMPARE(s.bodyPoses.size(), d.bodies.size());
    QVERIFY(s.bodyPoses[0].isApprox(Isometry3d::Identity()));
    // Joint origins through the child (childOffset) equal those through the
    // parent (parentOffset): the joint frames coincide.
    const Multibody mb = *w.getMultibody("fourbar");
    for (std::size_t i = 0; i < d.joints.size(); ++i) {
      const Link child = *mb.getLink(d.bodies[d.joints[i].childBody].name.substr(std::string("fourbar/").size()));
      const JointSpec spec = child.getParentJoint().getSpec();
      const std::optional<Link> parent = child.getParentLink();
      const Isometry3d X_WP = parent ? parent->getWorldTransform() : Isometry3d::Identity();
      const Isometry3d viaParent = X_WP * spec.parentOffset;
      QVERIFY2((s.joints[i].origin - viaParent.translation()).norm() < 1e-9, d.joints[i].name.c_str());
      QVERIFY((s.joints[i].axis - viaParent.linear() * Vector3d::UnitY()).norm() < 1e-9);
    }
    // Point closure: the residual is the distance between the endpoints.
    QCOMPARE(s.closures.size(), std::size_t{1});
    QVERIFY(std::abs((s.closures[0].endpointA - s.closures[0].endpointB).norm() - s.closures[0].residual) < 1e-12);
    QVERIFY(s.closures[0].residual < 1e-6);
    // The closure's A endpoint is fixed in the world at (1, 0, 0).
    QVERIFY((s.closures[0].endpointA - Vector3d(1, 0, 0)).norm() < 1e-12);
    // System centre of mass: mass-weighted link and body COMs.
    const RigidBody box = *w.getRigidBody("box");
    const Vector3d expected =
        (mb.getMass() * mb.getCOM() + box.getMass() * box.getPose().translation()) / (mb.getMass() + box.getMass());
    QVERIFY((s.systemCom - expected).norm() < 1e-12);
    QCOMPARE(s.stats.kineticEnergy, w.computeKineticEnergy());
    QCOMPARE(s.positions.size(), static_cast<std::size_t>(w.numPositions()));
    QVERIFY(s.stats.simulationMode);
  }

  void contactForcesFollowImpulses() {
    // Momentum balance of the pile: over a window of steps, the vertical
    // impulse of the ground contacts (force × dt summed from the snapshots)
    // equals the change of vertical momentum minus gravity's impulse.
    World w;
    pile(w);
    w.enterSimulationMode();
    w.step(200);
    const SceneDescription d = describeScene(w);
    const double dt = w.getOptions().timeStep;
    const double g = w.getOptions().gravity.z();
    const auto momentum = [&w] {
      double p = 0.0;
      for (const RigidBody& b : w.getRigidBodies()) p += b.getMass() * b.getLinearVelocity().z();
      return p;
    };
    double mass = 0.0;
    for (const RigidBody& b : w.getRigidBodies()) mass += b.getMass();
    const double p0 = momentum();
    double groundImpulse = 0.0;
    int steps = 0;
    bool sawContacts = false;
    RenderSnapshot s;
    for (; steps < 400; ++steps) {
      w.step();
      fillRenderSnapshot(w, d, s);
      QCOMPARE(s.stats.numContacts, static_cast<int>(s.contacts.size()));
      const auto contacts = w.getContacts();
      QCOMPARE(s.contacts.size(), contacts.size());
      sawContacts = sawContacts || !contacts.empty();
      for (std::size_t i = 0; i < contacts.size(); ++i) {
        if (contacts[i].frameB.isWorld()) groundImpulse += s.contacts[i].force.z() * dt;
        if (contacts[i].frameA.isWorld()) groundImpulse -= s.contacts[i].force.z() * dt;
      }
    }
    QVERIFY(sawContacts);
    const double expected = momentum() - p0 - mass * g * dt * steps;
    QVERIFY2(std::abs(groundImpulse - expected) < 1e-6 * std::abs(expected),
             qPrintable(QString("ground impulse %1, momentum balance %2").arg(groundImpulse).arg(expected)));
  }
};

QTEST_MAIN(TestReconcile)
#include "test_reconcile.moc"

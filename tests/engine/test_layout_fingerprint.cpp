// The layout fingerprint changes with everything recorded state depends on
// (joints and their packing, bodies, closures, couplers, collision shapes,
// solver layout) and with nothing it does not (state values, sizes, masses,
// visual shapes, colours); the difference is described by name.
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <functional>
#include <string>

using namespace articula;

namespace {

// A pendulum arm of two links, a free box with a collision shape, a ground
// and a user frame; optionally edited before the fingerprint is taken.
void build(World& w, const std::function<void(World&)>& edit = {}) {
  Multibody arm = w.addMultibody("arm");
  const Link upper = arm.addLink({"upper", Inertia::box(1.0, {0.1, 0.1, 1.0})}, JointSpec::revolute(Vector3d::UnitY()));
  const Link lower = arm.addLink({"lower", Inertia::box(1.0, {0.1, 0.1, 1.0})}, upper,
                                 JointSpec::revolute(Vector3d::UnitY()).named("elbow"));
  (void)lower;
  RigidBodyOptions o;
  o.inertia = Inertia::box(2.0, {0.2, 0.2, 0.2});
  RigidBody box = w.addRigidBody("box", o);
  CollisionShapeOptions c;
  c.name = "box_shape";
  c.geometry = Geometry::box({0.2, 0.2, 0.2});
  box.addCollisionShape(c);
  w.addGroundPlane();
  if (edit) edit(w);
}

LayoutFingerprint fingerprint(const std::function<void(World&)>& edit = {}) {
  World w;
  build(w, edit);
  return computeLayoutFingerprint(w);
}

QString differenceTo(const std::function<void(World&)>& edit) {
  return QString::fromStdString(describeLayoutDifference(fingerprint(), fingerprint(edit)));
}

}  // namespace

class TestLayoutFingerprint : public QObject {
  Q_OBJECT

 private slots:
  void equalForEqualWorlds() {
    const LayoutFingerprint a = fingerprint();
    const LayoutFingerprint b = fingerprint();
    QVERIFY(a == b);
    QCOMPARE(a.hash, b.hash);
    QVERIFY(describeLayoutDifference(a, b).empty());
    QVERIFY(!a.entries.empty());
  }

  void ignoresWhatStateDoesNotDependOn() {
    const LayoutFingerprint base = fingerprint();
    const auto same = [&](const char* what, const std::function<void(World&)>& edit) {
      const LayoutFingerprint f = fingerprint(edit);
      QVERIFY2(f == base, qPrintable(QString(what) + ": " + QString::fromStdString(describeLayoutDifference(base, f))));
    };
    same("state values", [](World& w) {
      VectorXd q = w.getPositions();
      q[0] = 0.3;
      w.setPositions(q);
      w.setVelocities(VectorXd::Constant(w.numDofs(), 1.0));
    });
    same("mass", [](World& w) { w.getRigidBody("box")->setInertia(Inertia::box(5.0, {0.2, 0.2, 0.2})); });
    same("visual shape", [](World& w) {
      VisualShapeOptions v;
      v.geometry = Geometry::sphere(0.1);
      w.getRigidBody("box")->addVisualShape(v);
    });
    same("colour and friction", [](World& w) { w.getShape("box_shape")->setMaterial(Material{0.1, 0.5}); });
    same("time step and gravity", [](World& w) {
      w.setTimeStep(0.002);
      w.setGravity({0, 0, -1.6});
    });
    same("after stepping", [](World& w) { w.step(10); });
  }

  void namesWhatDiffers_data() {
    QTest::addColumn<QString>("expected");
    QTest::newRow("link added") << "link 'arm/hand' added";
    QTest::newRow("joint type changed") << "joint 'arm/elbow': revolute";
    QTest::newRow("closure removed") << "loop closure 'tie' removed";
    QTest::newRow("coupler added") << "joint coupler 'gear' added";
    QTest::newRow("collision shape added") << "collision shape 'extra' added";
    QTest::newRow("collision shape type") << "collision shape 'box_shape': box on 'box' → sphere on 'box'";
    QTest::newRow("solver") << "solver: projected-gauss-seidel";
    QTest::newRow("rigid body removed") << "rigid body 'box' removed";
  }

  void namesWhatDiffers() {
    QFETCH(QString, expected);
    const QString row = QTest::currentDataTag();
    std::function<void(World&)> edit;
    LayoutFingerprint recorded = fingerprint();
    if (row == "link added") {
      edit = [](World& w) {
        Multibody arm = *w.getMultibody("arm");
        arm.addLink({"hand", Inertia::box(0.5, {0.1, 0.1, 0.1})}, *arm.getLink("lower"),
                    JointSpec::revolute(Vector3d::UnitY()));
      };
    } else if (row == "joint type changed") {
      edit = [](World& w) {
        Joint elbow = *w.getMultibody("arm")->getJoint("elbow");
        JointSpec s = elbow.getSpec();
        s.type = JointType::Prismatic;
        elbow.setSpec(s);
      };
    } else if (row == "closure removed") {
      const auto tie = [](World& w) {
        LoopClosureSpec s;
        s.frameA = *w.getMultibody("arm")->getLink("lower");
        s.frameB = *w.getRigidBody("box");
        s.family = LoopClosureFamily::Point;
        w.addLoopClosure("tie", s);
      };
      recorded = fingerprint(tie);
      edit = {};
    } else if (row == "coupler added") {
      edit = [](World& w) {
        const Multibody arm = *w.getMultibody("arm");
        w.addJointCoupler("gear",
                          JointCouplerSpec{arm.getRootLink()->getParentJoint(), *arm.getJoint("elbow"), 2.0, 0.0});
      };
    } else if (row == "collision shape added") {
      edit = [](World& w) {
        CollisionShapeOptions c;
        c.name = "extra";
        c.geometry = Geometry::sphere(0.05);
        w.getMultibody("arm")->getLink("lower")->addCollisionShape(c);
      };
    } else if (row == "collision shape type") {
      edit = [](World& w) {
        RigidBody box = *w.getRigidBody("box");
        w.remove(*w.getShape("box_shape"));
        CollisionShapeOptions c;
        c.name = "box_shape";
        c.geometry = Geometry::sphere(0.1);
        box.addCollisionShape(c);
      };
    } else if (row == "solver") {
      edit = [](World& w) {
        WorldOptions o = w.getOptions();
        o.solver.method = "direct-pivoting";
        w.setOptions(o);
      };
    } else if (row == "rigid body removed") {
      edit = [](World& w) { w.remove(*w.getRigidBody("box")); };
    }
    const LayoutFingerprint current = fingerprint(edit);
    QVERIFY(!(recorded == current));
    QVERIFY(recorded.hash != current.hash);
    const QString d = QString::fromStdString(describeLayoutDifference(recorded, current));
    QVERIFY2(d.contains(expected), qPrintable(d));
  }

  void longDifferencesAreCut() {
    const QString d = differenceTo([](World& w) {
      for (int i = 0; i < 8; ++i) {
        CollisionShapeOptions c;
        c.name = "s" + std::to_string(i);
        c.geometry = Geometry::sphere(0.05);
        w.getRigidBody("box")->addCollisionShape(c);
      }
    });
    QVERIFY2(d.contains("and 3 more"), qPrintable(d));
    QCOMPARE(d.count("added"), 5);
  }
};

QTEST_APPLESS_MAIN(TestLayoutFingerprint)
#include "test_layout_fingerprint.moc"

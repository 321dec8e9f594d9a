// The joint-type table (articula/joint_types.hpp) against the engine's own
// kinematics: every fact the table states about a type is checked on a
// link moved by a joint of that type, so the table cannot drift from what
// the engine does.
#include "test_helpers.hpp"

#include <articula/articula.hpp>
#include <articula/joint_types.hpp>

#include <QtTest/QtTest>

#include <numbers>
#include <set>
#include <string>

using namespace articula;

namespace {

// Two orthogonal unit axes off the coordinate axes.
const Vector3d kAxis = Vector3d(0.36, 0.48, 0.8);
const Vector3d kAxis2 = Vector3d(0.8, -0.6, 0.0);

struct OneJoint {
  World world;
  Multibody mb;
  Link link;
  Joint joint;
};

std::unique_ptr<OneJoint> oneJoint(JointType type, const Vector3d& axis = kAxis, const Vector3d& axis2 = kAxis2) {
  auto o = std::make_unique<OneJoint>();
  JointSpec spec;
  spec.type = type;
  spec.axis = axis;
  spec.axis2 = axis2;
  o->mb = o->world.addMultibody("m");
  LinkOptions lo;
  lo.name = "l";
  lo.inertia = Inertia::box(1.0, Vector3d(0.1, 0.2, 0.3));
  o->link = o->mb.addLink(lo, spec);
  o->joint = o->link.getParentJoint();
  return o;
}

// A configuration away from the default: every vector coordinate moved, the
// quaternion turned.
VectorXd movedPositions(const JointTypeInfo& info, const VectorXd& q0) {
  VectorXd q = q0;
  for (int i = 0; i < info.numPositions; ++i)
    if (info.positionKind[static_cast<std::size_t>(i)] != CoordinateKind::Quaternion) q[i] += 0.3 + 0.1 * i;
  if (info.quaternionStart >= 0) {
    const Eigen::Quaterniond r(Eigen::AngleAxisd(0.7, Vector3d(1.0, 2.0, 3.0).normalized()));
    q.segment<4>(info.quaternionStart) << r.x(), r.y(), r.z(), r.w();
  }
  return q;
}

Isometry3d poseAt(OneJoint& o, const VectorXd& q) {
  o.joint.setPositions(q);
  return o.link.getWorldTransform();
}

// "planar q2", "free dof 4": which coordinate a failed check was about.
QByteArray label(const JointTypeInfo& info, const char* what, int index) {
  return QByteArray(info.name.data(), static_cast<qsizetype>(info.name.size())) + " " + what +
         QByteArray::number(index);
}

bool samePose(const Isometry3d& a, const Isometry3d& b, double tol = 1e-9) {
  return (a.matrix() - b.matrix()).cwiseAbs().maxCoeff() < tol;
}

}  // namespace

class TestJointTypes : public QObject {
  Q_OBJECT

 private slots:
  void tableCoversEveryTypeInOrder() {
    const auto types = jointTypes();
    QCOMPARE(static_cast<int>(types.size()), static_cast<int>(JointType::Free) + 1);
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < types.size(); ++i) {
      const JointTypeInfo& info = types[i];
      QCOMPARE(static_cast<std::size_t>(info.type), i);
      QCOMPARE(&jointTypeInfo(info.type), &info);
      QVERIFY(toString(info.type) == info.name);
      QCOMPARE(numPositions(info.type), info.numPositions);
      QCOMPARE(numDofs(info.type), info.numDofs);
      JointType parsed = JointType::Weld;
      QVERIFY(jointTypeFromString(info.name, parsed));
      QVERIFY(parsed == info.type);
      QVERIFY(names.insert(info.name).second);
      QVERIFY(info.numPositions >= info.numDofs);
      QVERIFY(info.numAxes >= 0 && info.numAxes <= 2);
      // Names: present and distinct within the type.
      std::set<std::string_view> coordinateNames;
      for (int k = 0; k < info.numPositions; ++k) {
        QVERIFY(!info.positionName[static_cast<std::size_t>(k)].empty());
        QVERIFY(coordinateNames.insert(info.positionName[static_cast<std::size_t>(k)]).second);
      }
      std::set<std::string_view> dofNames;
      for (int k = 0; k < info.numDofs; ++k) {
        QVERIFY(!info.dofName[static_cast<std::size_t>(k)].empty());
        QVERIFY(dofNames.insert(info.dofName[static_cast<std::size_t>(k)]).second);
      }
      // A quaternion is four coordinates, and only it is.
      for (int k = 0; k < info.numPositions; ++k) {
        const bool inQuaternion =
            info.quaternionStart >= 0 && k >= info.quaternionStart && k < info.quaternionStart + 4;
        QCOMPARE(info.positionKind[static_cast<std::size_t>(k)] == CoordinateKind::Quaternion, inQuaternion);
      }
      QCOMPARE(info.vectorPositions(), info.numPositions == info.numDofs);
    }
    JointType unused = JointType::Revolute;
    QVERIFY(!jointTypeFromString("hinge", unused));
    QVERIFY(unused == JointType::Revolute);
  }

  void countsMatchTheEngine_data() { typeRows(); }
  void countsMatchTheEngine() {
    QFETCH(int, type);
    const JointTypeInfo& info = jointTypeInfo(static_cast<JointType>(type));
    auto o = oneJoint(info.type);
    QCOMPARE(o->joint.numPositions(), info.numPositions);
    QCOMPARE(o->joint.numDofs(), info.numDofs);
    QVERIFY(o->joint.type() == info.type);
    if (info.quaternionStart >= 0) {
      const VectorXd q0 = o->joint.getPositions();
      QVERIFY(std::abs(q0.segment<4>(info.quaternionStart).norm() - 1.0) < 1e-12);
    }
  }

  // A velocity coordinate marked angular turns the link at that rate; one
  // marked linear only translates it.
  void angularDofsTurnTheLink_data() { typeRows(); }
  void angularDofsTurnTheLink() {
    QFETCH(int, type);
    const JointTypeInfo& info = jointTypeInfo(static_cast<JointType>(type));
    auto o = oneJoint(info.type);
    o->joint.setPositions(movedPositions(info, o->joint.getPositions()));
    for (int k = 0; k < info.numDofs; ++k) {
      VectorXd v = VectorXd::Zero(info.numDofs);
      v[k] = 1.0;
      o->joint.setVelocities(v);
      const double w = o->link.getAngularVelocity().norm();
      const double lin = o->link.getLinearVelocity().norm();
      const QByteArray what = label(info, "dof ", k);
      if (info.isAngularDof(k)) {
        QVERIFY2(std::abs(w - 1.0) < 1e-9, what.constData());
      } else {
        QVERIFY2(w < 1e-12, what.constData());
        QVERIFY2(std::abs(lin - 1.0) < 1e-9, what.constData());
      }
    }
  }

  // An angle coordinate turns the link and comes back after 2π; a length
  // coordinate translates it by as much as it changes, without turning it.
  void positionKindsMatchTheMotion_data() { typeRows(); }
  void positionKindsMatchTheMotion() {
    QFETCH(int, type);
    const JointTypeInfo& info = jointTypeInfo(static_cast<JointType>(type));
    auto o = oneJoint(info.type);
    const VectorXd q1 = movedPositions(info, o->joint.getPositions());
    const Isometry3d X1 = poseAt(*o, q1);
    for (int i = 0; i < info.numPositions; ++i) {
      const QByteArray what = label(info, "q", i);
      VectorXd q = q1;
      switch (info.positionKind[static_cast<std::size_t>(i)]) {
        case CoordinateKind::Angle: {
          QVERIFY(info.isAngle(i) && !info.isLength(i));
          q[i] += 2.0 * std::numbers::pi;
          QVERIFY2(samePose(poseAt(*o, q), X1), what.constData());
          q[i] = q1[i] + 0.4;
          const Isometry3d X = poseAt(*o, q);
          const double turned = Eigen::AngleAxisd(X1.linear().transpose() * X.linear()).angle();
          QVERIFY2(std::abs(turned - 0.4) < 1e-9, what.constData());
          break;
        }
        case CoordinateKind::Length: {
          QVERIFY(info.isLength(i) && !info.isAngle(i));
          q[i] += 0.25;
          const Isometry3d X = poseAt(*o, q);
          QVERIFY2((X.linear() - X1.linear()).cwiseAbs().maxCoeff() < 1e-12, what.constData());
          QVERIFY2(std::abs((X.translation() - X1.translation()).norm() - 0.25) < 1e-12, what.constData());
          break;
        }
        case CoordinateKind::Quaternion:
          QVERIFY(!info.isAngle(i) && !info.isLength(i));
          break;
      }
    }
  }

  // The type reads JointSpec::axis if numAxes ≥ 1, and axis2 if it is 2.
  void numAxesIsWhatTheTypeReads_data() { typeRows(); }
  void numAxesIsWhatTheTypeReads() {
    QFETCH(int, type);
    const JointTypeInfo& info = jointTypeInfo(static_cast<JointType>(type));
    auto base = oneJoint(info.type);
    const VectorXd q = movedPositions(info, base->joint.getPositions());
    const Isometry3d X = poseAt(*base, q);
    // Other axes, still orthogonal unit pairs (planar joints need that).
    auto otherFirst = oneJoint(info.type, kAxis2.cross(kAxis), kAxis2);
    auto otherSecond = oneJoint(info.type, kAxis, kAxis.cross(kAxis2));
    const bool readsFirst = !samePose(poseAt(*otherFirst, q), X);
    const bool readsSecond = !samePose(poseAt(*otherSecond, q), X);
    QCOMPARE(readsFirst, info.numAxes >= 1);
    QCOMPARE(readsSecond, info.numAxes >= 2);
  }

  // The body-frame motion subspace is constant exactly when the table says.
  void constantMotionSubspace_data() { typeRows(); }
  void constantMotionSubspace() {
    QFETCH(int, type);
    const JointTypeInfo& info = jointTypeInfo(static_cast<JointType>(type));
    auto o = oneJoint(info.type);
    const VectorXd q0 = o->joint.getPositions();
    o->joint.setPositions(q0);
    const Matrix6Xd S0 = o->mb.getJacobian(o->link, Vector3d::Zero(), o->link);
    o->joint.setPositions(movedPositions(info, q0));
    const Matrix6Xd S1 = o->mb.getJacobian(o->link, Vector3d::Zero(), o->link);
    QCOMPARE(static_cast<int>(S0.cols()), info.numDofs);  // a weld: no columns, trivially constant
    const bool constant = S0.size() == 0 || (S0 - S1).cwiseAbs().maxCoeff() < 1e-12;
    QCOMPARE(constant, info.constantMotionSubspace);
  }

 private:
  static void typeRows() {
    QTest::addColumn<int>("type");
    for (const JointTypeInfo& info : jointTypes())
      QTest::newRow(std::string(info.name).c_str()) << static_cast<int>(info.type);
  }
};

QTEST_APPLESS_MAIN(TestJointTypes)
#include "test_joint_types.moc"

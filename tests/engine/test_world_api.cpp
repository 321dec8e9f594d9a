// World facade API: fresh-by-default queries, handle validity, cross-world
// use, lifecycle errors, name rules, StateSpace layout, WorldState round
// trips, step(0)/reset()/sync() semantics and option validation.
//
// Expected values are computed independently (analytic forward kinematics of
// a planar two-link arm, hand-derived velocities), never taken from the
// engine's own output.

#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

// Expects `ExType` whose message mentions `needle`.
#define EXPECT_THROW_MENTIONING(ExType, needle, ...)                                                \
  do {                                                                                              \
    bool caught_ = false;                                                                           \
    try {                                                                                           \
      __VA_ARGS__;                                                                                  \
    } catch (const ExType& e_) {                                                                    \
      caught_ = true;                                                                               \
      const std::string msg_ = e_.what();                                                           \
      QVERIFY2(msg_.find(needle) != std::string::npos,                                              \
               qPrintable(QString("message '%1' does not mention '%2'")                             \
                              .arg(QString::fromStdString(msg_), QString::fromStdString(needle)))); \
    } catch (const std::exception& e_) {                                                            \
      QFAIL(qPrintable(QString("expected " #ExType ", got a different exception (%1) from: %2")     \
                           .arg(QString::fromUtf8(e_.what()), QStringLiteral(#__VA_ARGS__))));      \
    }                                                                                               \
    QVERIFY2(caught_, "expected " #ExType " from: " #__VA_ARGS__);                                  \
  } while (false)

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// Last path component of a name ("mb/link" -> "link").
std::string leafName(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

/// Planar rotation about z built from cos/sin directly (independent of Eigen's AngleAxis).
Matrix3d rotZ(double a) {
  Matrix3d R;
  R << std::cos(a), -std::sin(a), 0.0,  //
      std::sin(a), std::cos(a), 0.0,    //
      0.0, 0.0, 1.0;
  return R;
}

Isometry3d pose(const Matrix3d& R, const Vector3d& p) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = R;
  X.translation() = p;
  return X;
}

LinkOptions linkOptions(const std::string& name, double mass = 1.0, const Vector3d& com = Vector3d::Zero()) {
  LinkOptions o;
  o.name = name;
  o.inertia.mass = mass;
  o.inertia.com = com;
  o.inertia.rotational = Vector3d(0.02, 0.03, 0.04).asDiagonal();
  return o;
}

RigidBodyOptions bodyOptions(double mass = 2.0) {
  RigidBodyOptions o;
  o.inertia.mass = mass;
  o.inertia.rotational = Vector3d(0.1, 0.2, 0.25).asDiagonal();
  return o;
}

constexpr double kL1 = 0.7;   // shoulder → elbow
constexpr double kL2 = 0.45;  // elbow → tip frame

/// Planar two-link arm: revolute z joints, the elbow at (kL1, 0, 0) in the upper arm.
struct Arm {
  Multibody mb;
  Link upper;
  Link fore;
  Joint shoulder;
  Joint elbow;
};

Arm makeArm(World& w, const std::string& name = "arm") {
  Arm a;
  a.mb = w.addMultibody(name);
  a.upper = a.mb.addLink(linkOptions("upper", 1.0, Vector3d(0.5 * kL1, 0, 0)),
                         JointSpec::revolute(Vector3d::UnitZ()).named("shoulder"));
  a.fore = a.mb.addLink(linkOptions("fore", 0.8, Vector3d(0.5 * kL2, 0, 0)), a.upper,
                        JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(kL1, 0, 0)).named("elbow"));
  a.shoulder = a.upper.getParentJoint();
  a.elbow = a.fore.getParentJoint();
  return a;
}

/// Analytic world pose of the forearm frame.
Isometry3d foreArmPose(double t1, double t2) {
  return pose(rotZ(t1 + t2), Vector3d(kL1 * std::cos(t1), kL1 * std::sin(t1), 0.0));
}

/// Adds a pendulum multibody "pend": one link hinged about world x with an offset COM.
Multibody makePendulum(World& w, const std::string& name = "pend") {
  Multibody mb = w.addMultibody(name);
  mb.addLink(linkOptions("bob", 1.5, Vector3d(0, 0.4, 0)), JointSpec::revolute(Vector3d::UnitX()).named("hinge"));
  return mb;
}

bool bitEqual(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}

}  // namespace

class TestWorldApi : public QObject {
  Q_OBJECT

 private slots:
  void freshKinematicsTwoLinkArm();
  void freshVelocities();
  void rigidBodyVelocitiesFromWorldState();
  void freeFrameFollowsLink();
  void defaultHandlesAreInvalid();
  void removedHandlesAreInvalid();
  void clearInvalidatesEverything();
  void crossWorldUseIsRejected();
  void simulationModeRejectsTopologyEdits();
  void validateTopologyReportsErrors();
  void worldLevelNamesAreUnique();
  void linkAndJointNamesAreUniquePerMultibody();
  void autogeneratedNamesSkipTakenNames();
  void lookupsByName();
  void stateSpaceLayout();
  void stateSpaceIsAValueObject();
  void stateRoundTrip();
  void sizeMismatchIsRejected();
  void stepZeroIsNoOp();
  void resetRestoresInitialState();
  void firstStepEntersSimulationMode();
  void resetToDesignModeKeepsState();
  void syncDoesNotAdvanceTime();
  void setOptionsRejectsBadTimeStep();
};

// ---------------------------------------------------------------------------
// Fresh-by-default queries
// ---------------------------------------------------------------------------

void TestWorldApi::freshKinematicsTwoLinkArm() {
  World w;
  Arm arm = makeArm(w);

  // Neutral configuration: both angles zero.
  VERIFY_NEAR(arm.upper.getWorldTransform().matrix(), Isometry3d::Identity().matrix(), 1e-12);
  VERIFY_NEAR(arm.fore.getWorldTransform().matrix(), foreArmPose(0, 0).matrix(), 1e-12);

  // Joint::setPosition, then read immediately (no update call).
  double t1 = 0.3, t2 = -1.1;
  arm.shoulder.setPosition(0, t1);
  arm.elbow.setPosition(0, t2);
  QCOMPARE(arm.shoulder.getPosition(0), t1);
  QCOMPARE(arm.elbow.getPosition(0), t2);
  VERIFY_NEAR(arm.upper.getWorldTransform().matrix(), pose(rotZ(t1), Vector3d::Zero()).matrix(), 1e-12);
  VERIFY_NEAR(arm.fore.getWorldTransform().matrix(), foreArmPose(t1, t2).matrix(), 1e-12);
  // Relative transforms: fore in upper = Trans(L1)·Rz(t2).
  const Isometry3d X_UF = pose(rotZ(t2), Vector3d(kL1, 0, 0));
  VERIFY_NEAR(arm.fore.getTransform(arm.upper).matrix(), X_UF.matrix(), 1e-12);
  VERIFY_NEAR(arm.elbow.getRelativeTransform().matrix(), X_UF.matrix(), 1e-12);
  VERIFY_NEAR(arm.upper.getTransform(arm.fore).matrix(), X_UF.inverse().matrix(), 1e-12);
  VERIFY_NEAR(arm.fore.getTransform(arm.fore).matrix(), Isometry3d::Identity().matrix(), 1e-12);

  // Multibody::setPositions (tree order: shoulder, elbow).
  t1 = -2.0;
  t2 = 0.75;
  VectorXd q(2);
  q << t1, t2;
  arm.mb.setPositions(q);
  VERIFY_NEAR(arm.fore.getWorldTransform().matrix(), foreArmPose(t1, t2).matrix(), 1e-12);

  // World::setPositions via the state space offsets.
  const StateSpace ss = w.getStateSpace();
  const auto segS = ss.segment("arm", "shoulder");
  const auto segE = ss.segment("arm", "elbow");
  QVERIFY(segS && segE);
  t1 = 1.2;
  t2 = 2.5;
  VectorXd qw = w.getPositions();
  qw[segS->positionOffset] = t1;
  qw[segE->positionOffset] = t2;
  w.setPositions(qw);
  QCOMPARE(arm.elbow.getPosition(0), t2);
  VERIFY_NEAR(arm.fore.getWorldTransform().matrix(), foreArmPose(t1, t2).matrix(), 1e-12);

  // Still fresh in simulation mode.
  w.enterSimulationMode();
  t1 = 0.1;
  t2 = 0.2;
  arm.shoulder.setPosition(0, t1);
  arm.elbow.setPosition(0, t2);
  VERIFY_NEAR(arm.fore.getWorldTransform().matrix(), foreArmPose(t1, t2).matrix(), 1e-12);
  t2 = -0.9;
  arm.elbow.setPositions(VectorXd::Constant(1, t2));
  VERIFY_NEAR(arm.fore.getWorldTransform().matrix(), foreArmPose(t1, t2).matrix(), 1e-12);
}

void TestWorldApi::freshVelocities() {
  World w;
  Arm arm = makeArm(w);
  const double t1 = 0.4, t2 = 0.9;
  arm.shoulder.setPosition(0, t1);
  arm.elbow.setPosition(0, t2);
  FreeFrame tip = w.addFreeFrame("tip", arm.fore, translation(kL2, 0, 0));

  const StateSpace ss = w.getStateSpace();
  const auto segS = ss.segment("arm", "shoulder");
  const auto segE = ss.segment("arm", "elbow");
  QVERIFY(segS && segE);

  for (const auto& [w1, w2] : {std::pair{0.8, -0.5}, std::pair{-1.7, 3.0}}) {
    VectorXd v = w.getVelocities();
    v[segS->velocityOffset] = w1;
    v[segE->velocityOffset] = w2;
    w.setVelocities(v);  // then read immediately: fresh

    const Vector3d z = Vector3d::UnitZ();
    const Vector3d pFore(kL1 * std::cos(t1), kL1 * std::sin(t1), 0);
    const Matrix3d RFore = rotZ(t1 + t2);
    const Vector3d pTip = pFore + RFore * Vector3d(kL2, 0, 0);

    const Vector3d omegaFore = (w1 + w2) * z;
    const Vector3d vFore = w1 * z.cross(pFore);
    const Vector3d vTip = w1 * z.cross(pTip) + w2 * z.cross(pTip - pFore);

    VERIFY_NEAR(arm.upper.getAngularVelocity(), Vector3d(w1 * z), 1e-12);
    VERIFY_NEAR(arm.upper.getLinearVelocity(), Vector3d::Zero().eval(), 1e-12);
    VERIFY_NEAR(arm.fore.getAngularVelocity(), omegaFore, 1e-12);
    VERIFY_NEAR(arm.fore.getLinearVelocity(), vFore, 1e-12);
    // A point on the forearm given by its offset in the forearm frame.
    VERIFY_NEAR(arm.fore.getLinearVelocity(Vector3d(kL2, 0, 0)), vTip, 1e-12);
    // The tip frame rides on the forearm.
    VERIFY_NEAR(tip.getLinearVelocity(), vTip, 1e-12);
    VERIFY_NEAR(tip.getAngularVelocity(), omegaFore, 1e-12);

    // Body twist in the forearm's own coordinates.
    Vector6d bodyTwist;
    bodyTwist << RFore.transpose() * omegaFore, RFore.transpose() * vFore;
    VERIFY_NEAR(arm.fore.getSpatialVelocity(), bodyTwist, 1e-12);

    // Observed from the upper arm (expressed in world coordinates): the elbow
    // origin is fixed there, the forearm rotates at w2 about z.
    VERIFY_NEAR(arm.fore.getAngularVelocity(arm.upper, Frame::World()), Vector3d(w2 * z), 1e-12);
    VERIFY_NEAR(arm.fore.getLinearVelocity(arm.upper, Frame::World()), Vector3d::Zero().eval(), 1e-12);
    VERIFY_NEAR(tip.getLinearVelocity(arm.upper, Frame::World()), Vector3d(w2 * z.cross(pTip - pFore)), 1e-12);

    // Same through Joint::setVelocity.
    arm.shoulder.setVelocity(0, 0.0);
    VERIFY_NEAR(arm.fore.getLinearVelocity(), Vector3d::Zero().eval(), 1e-12);
    VERIFY_NEAR(arm.fore.getAngularVelocity(), Vector3d(w2 * z), 1e-12);
  }
}

void TestWorldApi::rigidBodyVelocitiesFromWorldState() {
  World w;
  RigidBodyOptions o = bodyOptions();
  const Matrix3d R0 = Eigen::AngleAxisd(0.7, Vector3d(1, 2, -1).normalized()).toRotationMatrix();
  const Vector3d p0(0.3, -1.0, 2.0);
  o.pose = pose(R0, p0);
  const Vector3d lin0(0.5, 0.25, -1.0), ang0(-0.3, 0.8, 0.1);
  o.linearVelocity = lin0;
  o.angularVelocity = ang0;
  RigidBody rb = w.addRigidBody("rb", o);

  VERIFY_NEAR(rb.getPose().matrix(), o.pose.matrix(), 1e-12);
  VERIFY_NEAR(rb.getLinearVelocityWorld(), lin0, 1e-12);
  VERIFY_NEAR(rb.getAngularVelocityWorld(), ang0, 1e-12);

  const auto seg = w.getStateSpace().segment("rb");
  QVERIFY(seg);
  QCOMPARE(seg->numDofs, 6);
  // The world velocity vector holds the body twist [ω_B; v_B].
  Vector6d twist0;
  twist0 << R0.transpose() * ang0, R0.transpose() * lin0;
  VERIFY_NEAR(Vector6d(w.getVelocities().segment(seg->velocityOffset, 6)), twist0, 1e-12);

  // Write a new twist through the world vector and read frame velocities.
  const Vector3d omegaB(1.0, -2.0, 0.5), vB(0.2, 0.3, -0.4);
  VectorXd v = w.getVelocities();
  v.segment(seg->velocityOffset, 3) = omegaB;
  v.segment(seg->velocityOffset + 3, 3) = vB;
  w.setVelocities(v);
  VERIFY_NEAR(rb.getAngularVelocityWorld(), Vector3d(R0 * omegaB), 1e-12);
  VERIFY_NEAR(rb.getLinearVelocityWorld(), Vector3d(R0 * vB), 1e-12);
  VERIFY_NEAR(rb.getAngularVelocity(), Vector3d(R0 * omegaB), 1e-12);
  VERIFY_NEAR(rb.getLinearVelocity(), Vector3d(R0 * vB), 1e-12);
  Vector6d twist;
  twist << omegaB, vB;
  VERIFY_NEAR(rb.getSpatialVelocity(), twist, 1e-12);
  const Vector3d offset(0.1, 0.2, 0.3);
  VERIFY_NEAR(rb.getLinearVelocity(offset), Vector3d(R0 * vB + (R0 * omegaB).cross(R0 * offset)), 1e-12);

  // setVelocityWorld writes back into the world vector.
  const Vector3d lin1(-1, 0, 2), ang1(0, 0.5, 0);
  rb.setVelocityWorld(lin1, ang1);
  Vector6d twist1;
  twist1 << R0.transpose() * ang1, R0.transpose() * lin1;
  VERIFY_NEAR(Vector6d(w.getVelocities().segment(seg->velocityOffset, 6)), twist1, 1e-12);

  // setPose writes into the world position vector and the frame.
  const Matrix3d R1 = Eigen::AngleAxisd(-1.3, Vector3d(0, 1, 1).normalized()).toRotationMatrix();
  const Vector3d p1(4, 5, 6);
  rb.setPose(pose(R1, p1));
  VERIFY_NEAR(rb.getWorldTransform().matrix(), pose(R1, p1).matrix(), 1e-12);
  VERIFY_NEAR(Vector3d(w.getPositions().segment(seg->positionOffset, 3)), p1, 1e-14);
}

void TestWorldApi::freeFrameFollowsLink() {
  World w;
  Arm arm = makeArm(w);
  FreeFrame tip = w.addFreeFrame("tip", arm.fore, translation(kL2, 0, 0));
  FixedFrame marker = w.addFixedFrame("marker", arm.upper, rotation(0.5, Vector3d::UnitX()) * translation(0, 0.1, 0));
  FreeFrame nested = w.addFreeFrame("nested", tip, translation(0, 0.2, 0));
  QVERIFY(tip.isValid());
  QVERIFY(tip.getParentFrame() == arm.fore);
  QVERIFY(nested.getParentFrame() == tip);
  QCOMPARE(w.numFrames(), std::size_t{3});

  for (const auto& [t1, t2] : {std::pair{0.0, 0.0}, std::pair{0.6, -0.4}, std::pair{-2.2, 1.9}}) {
    arm.shoulder.setPosition(0, t1);
    arm.elbow.setPosition(0, t2);
    const Isometry3d X_WF = foreArmPose(t1, t2);
    const Isometry3d X_WT = pose(rotZ(t1 + t2), X_WF.translation() + rotZ(t1 + t2) * Vector3d(kL2, 0, 0));
    VERIFY_NEAR(tip.getWorldTransform().matrix(), X_WT.matrix(), 1e-12);
    VERIFY_NEAR(tip.getRelativeTransform().matrix(), translation(kL2, 0, 0).matrix(), 1e-15);
    const Isometry3d X_WN = pose(rotZ(t1 + t2), X_WT.translation() + rotZ(t1 + t2) * Vector3d(0, 0.2, 0));
    VERIFY_NEAR(nested.getWorldTransform().matrix(), X_WN.matrix(), 1e-12);
    const Isometry3d X_WM =
        pose(rotZ(t1), Vector3d::Zero()) * rotation(0.5, Vector3d::UnitX()) * translation(0, 0.1, 0);
    VERIFY_NEAR(marker.getWorldTransform().matrix(), X_WM.matrix(), 1e-12);
    // Tip relative to the marker.
    VERIFY_NEAR(tip.getTransform(marker).matrix(), (X_WM.inverse() * X_WT).matrix(), 1e-12);
  }

  // setTransform in the world: relative transform follows; then the arm moves and the frame follows.
  const Isometry3d X_target = rotation(0.3, Vector3d(1, 1, 0)) * translation(1, 2, 3);
  tip.setTransform(X_target);
  VERIFY_NEAR(tip.getWorldTransform().matrix(), X_target.matrix(), 1e-12);
  const Isometry3d X_FT = arm.fore.getWorldTransform().inverse() * X_target;
  VERIFY_NEAR(tip.getRelativeTransform().matrix(), X_FT.matrix(), 1e-12);
  arm.shoulder.setPosition(0, 1.0);
  arm.elbow.setPosition(0, 0.5);
  VERIFY_NEAR(tip.getWorldTransform().matrix(), (foreArmPose(1.0, 0.5) * X_FT).matrix(), 1e-12);

  // A free frame's own relative twist, with the arm at rest: its world body twist equals it.
  arm.mb.setVelocities(VectorXd::Zero(2));
  Vector6d V;
  V << 0.1, -0.2, 0.3, 1.0, 2.0, -3.0;
  nested.setRelativeSpatialVelocity(V);
  VERIFY_NEAR(nested.getRelativeSpatialVelocity(), V, 1e-15);
  VERIFY_NEAR(nested.getSpatialVelocity(), V, 1e-12);

  // Frames are usable in simulation mode too and keep following.
  w.enterSimulationMode();
  arm.shoulder.setPosition(0, -0.3);
  arm.elbow.setPosition(0, 0.8);
  VERIFY_NEAR(tip.getWorldTransform().matrix(), (foreArmPose(-0.3, 0.8) * X_FT).matrix(), 1e-12);
}

// ---------------------------------------------------------------------------
// Handles
// ---------------------------------------------------------------------------

void TestWorldApi::defaultHandlesAreInvalid() {
  QVERIFY(Frame::World().isValid());
  QVERIFY(Frame::World().isWorld());
  QVERIFY(Frame::World().getWorldTransform().matrix().isIdentity(0.0));

  Frame f;
  RigidBody rb;
  Multibody mb;
  Link link;
  Joint joint;
  FreeFrame ff;
  FixedFrame fx;
  QVERIFY(!f.isValid());
  QVERIFY(!rb.isValid());
  QVERIFY(!mb.isValid());
  QVERIFY(!link.isValid());
  QVERIFY(!joint.isValid());
  QVERIFY(!ff.isValid());
  QVERIFY(!fx.isValid());
  QCOMPARE(static_cast<int>(f.kind()), static_cast<int>(FrameKind::None));

  EXPECT_THROW_NONEMPTY(InvalidHandle, f.getWorldTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, f.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, f.getSpatialVelocity());
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.getPose());
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.getMass());
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.setPose(Isometry3d::Identity()));
  EXPECT_THROW_NONEMPTY(InvalidHandle, mb.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, mb.numLinks());
  EXPECT_THROW_NONEMPTY(InvalidHandle, mb.getPositions());
  EXPECT_THROW_NONEMPTY(InvalidHandle, mb.addLink(linkOptions("x")));
  EXPECT_THROW_NONEMPTY(InvalidHandle, link.getMultibody());
  EXPECT_THROW_NONEMPTY(InvalidHandle, link.getParentJoint());
  EXPECT_THROW_NONEMPTY(InvalidHandle, link.getWorldTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, link.addExternalForce(Vector3d::UnitX()));
  EXPECT_THROW_NONEMPTY(InvalidHandle, joint.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, joint.numDofs());
  EXPECT_THROW_NONEMPTY(InvalidHandle, joint.getPositions());
  EXPECT_THROW_NONEMPTY(InvalidHandle, joint.setPosition(0, 1.0));
  EXPECT_THROW_NONEMPTY(InvalidHandle, ff.getRelativeTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, ff.setRelativeTransform(Isometry3d::Identity()));
  EXPECT_THROW_NONEMPTY(InvalidHandle, fx.getRelativeTransform());

  // Default handles are not accepted as arguments either (InvalidHandle or
  // TopologyError are both reasonable here; only "rejected" is checked).
  World w;
  Multibody real = w.addMultibody("m");
  real.addLink(linkOptions("root"), JointSpec::free());
  EXPECT_THROW_NONEMPTY(Error, real.addLink(linkOptions("child"), link, JointSpec::revolute(Vector3d::UnitZ())));
  EXPECT_THROW_NONEMPTY(Error, w.addFreeFrame("f", f));
  QCOMPARE(real.numLinks(), std::size_t{1});
  QCOMPARE(w.numFrames(), std::size_t{0});
}

void TestWorldApi::removedHandlesAreInvalid() {
  World w;
  // Rigid body.
  RigidBody rb = w.addRigidBody("rb", bodyOptions());
  const Frame rbFrame = rb;
  QVERIFY(rb.isValid() && rbFrame.isValid());
  w.remove(rb);
  QVERIFY(!rb.isValid());
  QVERIFY(!rbFrame.isValid());
  QVERIFY(!w.hasRigidBody("rb"));
  QVERIFY(!w.getRigidBody("rb").has_value());
  QCOMPARE(w.numRigidBodies(), std::size_t{0});
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.getPose());
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.getMass());
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.setVelocityWorld(Vector3d::Zero(), Vector3d::Zero()));
  EXPECT_THROW_NONEMPTY(InvalidHandle, rbFrame.getWorldTransform());
  // Re-adding the same name gives a new, valid handle; the old one stays invalid.
  RigidBody rb2 = w.addRigidBody("rb", bodyOptions());
  QVERIFY(rb2.isValid());
  QVERIFY(!rb.isValid());
  QVERIFY(rb2 != rb);
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.getPose());

  // Multibody: the multibody, its links and joints.
  Arm arm = makeArm(w);
  w.remove(arm.mb);
  QVERIFY(!arm.mb.isValid());
  QVERIFY(!arm.upper.isValid());
  QVERIFY(!arm.fore.isValid());
  QVERIFY(!arm.shoulder.isValid());
  QVERIFY(!arm.elbow.isValid());
  QVERIFY(!w.hasMultibody("arm"));
  QCOMPARE(w.numMultibodies(), std::size_t{0});
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.mb.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.mb.numLinks());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.mb.numDofs());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.mb.addLink(linkOptions("x")));
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.upper.getWorldTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.fore.getMultibody());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.fore.getInertia());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.elbow.getPositions());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.elbow.setPosition(0, 1.0));
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.shoulder.type());
  QCOMPARE(w.numPositions(), 7);  // only rb2 left

  // A link subtree: removed links and joints invalid, the rest valid.
  Arm arm2 = makeArm(w, "arm2");
  arm2.fore.remove();
  QVERIFY(!arm2.fore.isValid());
  QVERIFY(!arm2.elbow.isValid());
  QVERIFY(arm2.upper.isValid());
  QVERIFY(arm2.shoulder.isValid());
  QVERIFY(arm2.mb.isValid());
  QCOMPARE(arm2.mb.numLinks(), std::size_t{1});
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm2.fore.getWorldTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm2.fore.remove());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm2.elbow.numDofs());

  // User frames: removing a frame removes frames attached to it.
  FreeFrame f1 = w.addFreeFrame("f1");
  FreeFrame f2 = w.addFreeFrame("f2", f1, translation(1, 0, 0));
  FixedFrame g = w.addFixedFrame("g", f2, translation(0, 1, 0));
  FreeFrame other = w.addFreeFrame("other");
  QCOMPARE(w.numFrames(), std::size_t{4});
  w.remove(f1);
  QVERIFY(!f1.isValid());
  QVERIFY(!f2.isValid());
  QVERIFY(!g.isValid());
  QVERIFY(other.isValid());
  QCOMPARE(w.numFrames(), std::size_t{1});
  QVERIFY(!w.hasFrame("f2"));
  EXPECT_THROW_NONEMPTY(InvalidHandle, f2.getWorldTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, f2.setRelativeTransform(Isometry3d::Identity()));
  EXPECT_THROW_NONEMPTY(InvalidHandle, g.getRelativeTransform());
}

void TestWorldApi::clearInvalidatesEverything() {
  World w;
  RigidBody rb = w.addRigidBody("rb", bodyOptions());
  Arm arm = makeArm(w);
  FreeFrame ff = w.addFreeFrame("ff", arm.fore);
  FixedFrame fx = w.addFixedFrame("fx", rb, translation(0, 0, 1));
  w.enterSimulationMode();
  w.step(3);
  QVERIFY(w.isSimulationMode());

  w.clear();
  QVERIFY(!w.isSimulationMode());
  QVERIFY(!rb.isValid());
  QVERIFY(!arm.mb.isValid());
  QVERIFY(!arm.upper.isValid());
  QVERIFY(!arm.fore.isValid());
  QVERIFY(!arm.shoulder.isValid());
  QVERIFY(!arm.elbow.isValid());
  QVERIFY(!ff.isValid());
  QVERIFY(!fx.isValid());
  QVERIFY(Frame::World().isValid());
  QCOMPARE(w.numRigidBodies(), std::size_t{0});
  QCOMPARE(w.numMultibodies(), std::size_t{0});
  QCOMPARE(w.numFrames(), std::size_t{0});
  QCOMPARE(w.numPositions(), 0);
  QCOMPARE(w.numDofs(), 0);
  QCOMPARE(w.getStateSpace().segments().size(), std::size_t{0});
  EXPECT_THROW_NONEMPTY(InvalidHandle, rb.getPose());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.mb.numDofs());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.upper.getWorldTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.elbow.getPosition(0));
  EXPECT_THROW_NONEMPTY(InvalidHandle, ff.getRelativeTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, fx.getWorldTransform());

  // The world is usable again (design mode); old handles stay invalid even
  // when the same names are reused.
  RigidBody rbNew = w.addRigidBody("rb", bodyOptions());
  Arm armNew = makeArm(w);
  QVERIFY(rbNew.isValid());
  QVERIFY(armNew.fore.isValid());
  QVERIFY(!rb.isValid());
  QVERIFY(!arm.fore.isValid());
  QVERIFY(rbNew != rb);
  QVERIFY(armNew.fore != arm.fore);
  EXPECT_THROW_NONEMPTY(InvalidHandle, arm.fore.getWorldTransform());
  QCOMPARE(w.numPositions(), 7 + 2);
  w.step(1);
  QVERIFY(w.isSimulationMode());
}

void TestWorldApi::crossWorldUseIsRejected() {
  World a;
  World b;
  Arm armA = makeArm(a, "armA");
  Arm armB = makeArm(b, "armB");
  RigidBody rbB = b.addRigidBody("rbB", bodyOptions());
  FreeFrame frameB = b.addFreeFrame("frameB");

  // A link of world B as the parent of a new link in world A.
  EXPECT_THROW_NONEMPTY(TopologyError,
                        armA.mb.addLink(linkOptions("x"), armB.fore, JointSpec::revolute(Vector3d::UnitZ())));
  QCOMPARE(armA.mb.numLinks(), std::size_t{2});
  QCOMPARE(armB.mb.numLinks(), std::size_t{2});

  // A frame of world B as the parent of a user frame of world A.
  EXPECT_THROW_NONEMPTY(TopologyError, a.addFreeFrame("f", armB.fore));
  EXPECT_THROW_NONEMPTY(TopologyError, a.addFreeFrame("f", frameB));
  EXPECT_THROW_NONEMPTY(TopologyError, a.addFixedFrame("g", rbB, Isometry3d::Identity()));
  QCOMPARE(a.numFrames(), std::size_t{0});
  QVERIFY(!a.hasFrame("f"));

  // Moving a link of world A under a link of world B.
  EXPECT_THROW_NONEMPTY(TopologyError, armA.fore.moveTo(armB.upper));
  QVERIFY(armA.fore.getParentLink() == armA.upper);
  QCOMPARE(armA.mb.numLinks(), std::size_t{2});
  QCOMPARE(armB.mb.numLinks(), std::size_t{2});

  // Removing world B's objects through world A must fail and leave B intact.
  bool threw = false;
  try {
    a.remove(rbB);
  } catch (const Error&) {
    threw = true;
  }
  QVERIFY2(threw, "World::remove accepted a rigid body of another world");
  QVERIFY(rbB.isValid());
  QCOMPARE(b.numRigidBodies(), std::size_t{1});
  threw = false;
  try {
    a.remove(armB.mb);
  } catch (const Error&) {
    threw = true;
  }
  QVERIFY2(threw, "World::remove accepted a multibody of another world");
  QVERIFY(armB.mb.isValid());
  QCOMPARE(b.numMultibodies(), std::size_t{1});

  // Within one world, a link of another multibody is not a valid parent.
  Multibody second = a.addMultibody("second");
  second.addLink(linkOptions("root"), JointSpec::weld());
  EXPECT_THROW_NONEMPTY(TopologyError,
                        second.addLink(linkOptions("x"), armA.fore, JointSpec::revolute(Vector3d::UnitZ())));
  QCOMPARE(second.numLinks(), std::size_t{1});
  QCOMPARE(armA.mb.numLinks(), std::size_t{2});
}

// ---------------------------------------------------------------------------
// Lifecycle
// ---------------------------------------------------------------------------

void TestWorldApi::simulationModeRejectsTopologyEdits() {
  World w;
  RigidBody rb = w.addRigidBody("rb", bodyOptions());
  Arm arm = makeArm(w);
  QVERIFY(!w.isSimulationMode());
  w.enterSimulationMode();
  QVERIFY(w.isSimulationMode());

  EXPECT_THROW_NONEMPTY(LifecycleError, w.addRigidBody("rb2", bodyOptions()));
  EXPECT_THROW_NONEMPTY(LifecycleError, w.addMultibody("mb2"));
  EXPECT_THROW_NONEMPTY(LifecycleError,
                        arm.mb.addLink(linkOptions("extra"), arm.fore, JointSpec::revolute(Vector3d::UnitZ())));
  EXPECT_THROW_NONEMPTY(LifecycleError, w.remove(rb));
  EXPECT_THROW_NONEMPTY(LifecycleError, w.remove(arm.mb));
  EXPECT_THROW_NONEMPTY(LifecycleError, arm.fore.remove());
  EXPECT_THROW_NONEMPTY(LifecycleError, arm.fore.moveTo(arm.upper));
  EXPECT_THROW_NONEMPTY(LifecycleError, arm.fore.moveTo(arm.upper, JointSpec::prismatic(Vector3d::UnitX())));
  EXPECT_THROW_NONEMPTY(LifecycleError, arm.fore.split("split"));
  EXPECT_THROW_NONEMPTY(LifecycleError, arm.fore.copyTo(arm.upper));
  EXPECT_THROW_NONEMPTY(LifecycleError, arm.fore.copyAsMultibody("copy"));
  EXPECT_THROW_NONEMPTY(LifecycleError, arm.elbow.setSpec(JointSpec::prismatic(Vector3d::UnitX())));

  // Nothing changed.
  QVERIFY(w.isSimulationMode());
  QVERIFY(rb.isValid());
  QVERIFY(arm.fore.isValid());
  QCOMPARE(w.numRigidBodies(), std::size_t{1});
  QCOMPARE(w.numMultibodies(), std::size_t{1});
  QCOMPARE(arm.mb.numLinks(), std::size_t{2});
  QCOMPARE(static_cast<int>(arm.elbow.type()), static_cast<int>(JointType::Revolute));
  QVERIFY(!w.hasMultibody("split"));
  QVERIFY(!w.hasMultibody("copy"));
  QCOMPARE(w.numDofs(), 6 + 2);

  // User frames may be added and removed in simulation mode.
  FreeFrame ff;
  EXPECT_NO_THROW(ff = w.addFreeFrame("sim_frame", arm.fore));
  QVERIFY(ff.isValid());
  EXPECT_NO_THROW(w.remove(ff));
  QVERIFY(!ff.isValid());

  // Stepping still works, then design mode allows edits again.
  w.step(2);
  w.resetToDesignMode();
  QVERIFY(!w.isSimulationMode());
  EXPECT_NO_THROW(w.addRigidBody("rb2", bodyOptions()));
  EXPECT_NO_THROW(arm.elbow.setSpec(JointSpec::prismatic(Vector3d::UnitX()).named("elbow")));
  QCOMPARE(static_cast<int>(arm.elbow.type()), static_cast<int>(JointType::Prismatic));
  QCOMPARE(w.numRigidBodies(), std::size_t{2});
}

void TestWorldApi::validateTopologyReportsErrors() {
  {  // A multibody without a root link.
    World w;
    makeArm(w);
    w.addMultibody("empty_mb");
    EXPECT_THROW_MENTIONING(TopologyError, std::string("empty_mb"), w.validateTopology());
    EXPECT_THROW_NONEMPTY(TopologyError, w.enterSimulationMode());
    QVERIFY(!w.isSimulationMode());
    EXPECT_THROW_NONEMPTY(TopologyError, w.step(1));
    QVERIFY(!w.isSimulationMode());
    QCOMPARE(w.getTime(), 0.0);
    QCOMPARE(w.getFrameIndex(), std::uint64_t{0});
    // Fixing the problem makes the world valid.
    w.getMultibody("empty_mb")->addLink(linkOptions("root"), JointSpec::free());
    EXPECT_NO_THROW(w.validateTopology());
    EXPECT_NO_THROW(w.enterSimulationMode());
    QVERIFY(w.isSimulationMode());
  }
  {  // A free rigid body with zero mass.
    World w;
    RigidBodyOptions o = bodyOptions();
    o.inertia.mass = 0.0;
    o.inertia.rotational.setZero();
    RigidBody massless = w.addRigidBody("massless", o);
    w.addRigidBody("heavy", bodyOptions());
    EXPECT_THROW_MENTIONING(TopologyError, std::string("massless"), w.validateTopology());
    EXPECT_THROW_NONEMPTY(TopologyError, w.enterSimulationMode());
    QVERIFY(!w.isSimulationMode());
    massless.setInertia(bodyOptions().inertia);
    EXPECT_NO_THROW(w.validateTopology());
  }
  {  // An empty world and a regular world are valid.
    World w;
    EXPECT_NO_THROW(w.validateTopology());
    makeArm(w);
    w.addRigidBody("rb", bodyOptions());
    EXPECT_NO_THROW(w.validateTopology());
    QVERIFY(!w.isSimulationMode());  // validation alone does not enter simulation mode
  }
}

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

void TestWorldApi::worldLevelNamesAreUnique() {
  World w;
  w.addRigidBody("thing", bodyOptions());
  EXPECT_THROW_NONEMPTY(TopologyError, w.addRigidBody("thing", bodyOptions()));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addMultibody("thing"));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addFreeFrame("thing"));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addFixedFrame("thing", Frame::World(), Isometry3d::Identity()));

  w.addMultibody("mb");
  EXPECT_THROW_NONEMPTY(TopologyError, w.addRigidBody("mb", bodyOptions()));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addMultibody("mb"));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addFreeFrame("mb"));

  w.addFreeFrame("frame");
  EXPECT_THROW_NONEMPTY(TopologyError, w.addRigidBody("frame", bodyOptions()));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addMultibody("frame"));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addFixedFrame("frame", Frame::World(), Isometry3d::Identity()));

  QCOMPARE(w.numRigidBodies(), std::size_t{1});
  QCOMPARE(w.numMultibodies(), std::size_t{1});
  QCOMPARE(w.numFrames(), std::size_t{1});

  // After removal the name is free again.
  w.remove(*w.getRigidBody("thing"));
  EXPECT_NO_THROW(w.addMultibody("thing"));
  QVERIFY(w.hasMultibody("thing"));
  QVERIFY(!w.hasRigidBody("thing"));
}

void TestWorldApi::linkAndJointNamesAreUniquePerMultibody() {
  World w;
  Multibody m1 = w.addMultibody("m1");
  Multibody m2 = w.addMultibody("m2");
  Link r1 = m1.addLink(linkOptions("base"), JointSpec::free().named("root"));
  EXPECT_THROW_NONEMPTY(TopologyError, m1.addLink(linkOptions("base"), r1, JointSpec::revolute(Vector3d::UnitZ())));
  EXPECT_THROW_NONEMPTY(TopologyError,
                        m1.addLink(linkOptions("other"), r1, JointSpec::revolute(Vector3d::UnitZ()).named("root")));
  QCOMPARE(m1.numLinks(), std::size_t{1});
  QVERIFY(!m1.hasLink("other"));

  // A second root is rejected.
  EXPECT_THROW_NONEMPTY(TopologyError, m1.addLink(linkOptions("root2"), JointSpec::free()));
  QCOMPARE(m1.numLinks(), std::size_t{1});

  // The same link and joint names are fine in another multibody.
  Link r2 = m2.addLink(linkOptions("base"), JointSpec::free().named("root"));
  QVERIFY(r2.isValid());
  QVERIFY(r2 != r1);
  QVERIFY(m2.hasLink("base"));
  QVERIFY(m2.hasJoint("root"));
  QVERIFY(*m1.getLink("base") == r1);
  QVERIFY(*m2.getLink("base") == r2);

  Link c = m1.addLink(linkOptions("child"), r1, JointSpec::revolute(Vector3d::UnitZ()).named("hinge"));
  QVERIFY(*m1.getJoint("hinge") == c.getParentJoint());
  QCOMPARE(qs(c.getParentJoint().name()), QString("hinge"));
  EXPECT_THROW_NONEMPTY(TopologyError, m1.addLink(linkOptions("child"), c, JointSpec::revolute(Vector3d::UnitZ())));
  EXPECT_THROW_NONEMPTY(TopologyError,
                        m1.addLink(linkOptions("child2"), c, JointSpec::revolute(Vector3d::UnitZ()).named("hinge")));
  QCOMPARE(m1.numLinks(), std::size_t{2});
}

void TestWorldApi::autogeneratedNamesSkipTakenNames() {
  World w;
  // Rigid bodies.
  w.addRigidBody("rigid_body_1", bodyOptions());
  w.addMultibody("rigid_body_2");  // world-level names are shared across categories
  const std::string a = w.addRigidBody("", bodyOptions()).name();
  const std::string b = w.addRigidBody("", bodyOptions()).name();
  const std::string c = w.addRigidBody("", bodyOptions()).name();
  for (const std::string& n : {a, b, c}) {
    QVERIFY(!n.empty());
    QVERIFY2(n != "rigid_body_1" && n != "rigid_body_2", n.c_str());
    QVERIFY(w.hasRigidBody(n));
  }
  QVERIFY(a != b && b != c && a != c);
  QCOMPARE(w.numRigidBodies(), std::size_t{4});
  // An autogenerated name is taken afterwards.
  EXPECT_THROW_NONEMPTY(TopologyError, w.addRigidBody(a, bodyOptions()));
  EXPECT_THROW_NONEMPTY(TopologyError, w.addFreeFrame(b));

  // Links and joints.
  Multibody mb = w.addMultibody("mb");
  Link root = mb.addLink(linkOptions("link_1"), JointSpec::free());
  Link l1 = mb.addLink(linkOptions(""), root, JointSpec::revolute(Vector3d::UnitZ()));
  Link l2 = mb.addLink(linkOptions(""), root, JointSpec::revolute(Vector3d::UnitZ()));
  Link l3 = mb.addLink(linkOptions(""), l1, JointSpec::prismatic(Vector3d::UnitX()).named("joint_a"));
  std::vector<std::string> linkNames;
  for (const Link& l : {root, l1, l2, l3}) linkNames.push_back(leafName(l.name()));
  QCOMPARE(qs(linkNames[0]), QString("link_1"));
  for (std::size_t i = 1; i < linkNames.size(); ++i) {
    QVERIFY(!linkNames[i].empty());
    QVERIFY2(linkNames[i] != "link_1", linkNames[i].c_str());
    QVERIFY2(mb.hasLink(linkNames[i]), linkNames[i].c_str());
  }
  std::vector<std::string> sorted = linkNames;
  std::sort(sorted.begin(), sorted.end());
  QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());

  std::vector<std::string> jointNames;
  for (const Joint& j : mb.getJoints()) {
    jointNames.push_back(j.name());
    QVERIFY(!j.name().empty());
    QVERIFY2(mb.hasJoint(j.name()), j.name().c_str());
    QVERIFY(*mb.getJoint(j.name()) == j);
  }
  QCOMPARE(jointNames.size(), std::size_t{4});
  std::sort(jointNames.begin(), jointNames.end());
  QVERIFY(std::adjacent_find(jointNames.begin(), jointNames.end()) == jointNames.end());
  QCOMPARE(qs(l3.getParentJoint().name()), QString("joint_a"));
}

void TestWorldApi::lookupsByName() {
  World w;
  Arm arm = makeArm(w);
  RigidBody rb = w.addRigidBody("rb", bodyOptions());
  FreeFrame tip = w.addFreeFrame("tip", arm.fore, translation(kL2, 0, 0));
  FixedFrame mark = w.addFixedFrame("mark", rb, translation(0, 0, 0.1));

  QVERIFY(w.hasRigidBody("rb"));
  QVERIFY(!w.hasRigidBody("arm"));
  QVERIFY(!w.hasRigidBody("nope"));
  QVERIFY(!w.getRigidBody("nope").has_value());
  QVERIFY(*w.getRigidBody("rb") == rb);
  QCOMPARE(qs(rb.name()), QString("rb"));
  QVERIFY(w.hasMultibody("arm"));
  QVERIFY(!w.getMultibody("rb").has_value());
  QVERIFY(*w.getMultibody("arm") == arm.mb);
  QCOMPARE(qs(arm.mb.name()), QString("arm"));
  QCOMPARE(w.numRigidBodies(), std::size_t{1});
  QCOMPARE(w.numMultibodies(), std::size_t{1});
  QCOMPARE(w.numFrames(), std::size_t{2});
  QCOMPARE(w.getRigidBodies().size(), std::size_t{1});
  QCOMPARE(w.getMultibodies().size(), std::size_t{1});

  QVERIFY(w.hasFrame("tip"));
  QVERIFY(w.hasFrame("mark"));
  QVERIFY(!w.hasFrame("nothing"));
  QVERIFY(*w.getFrame("tip") == tip);
  QCOMPARE(static_cast<int>(w.getFrame("tip")->kind()), static_cast<int>(FrameKind::FreeFrame));
  QVERIFY(*w.getFreeFrame("tip") == tip);
  QVERIFY(*w.getFixedFrame("mark") == mark);
  QCOMPARE(static_cast<int>(w.getFrame("mark")->kind()), static_cast<int>(FrameKind::FixedFrame));
  const auto rbFrame = w.getFrame("rb");
  QVERIFY(rbFrame.has_value());
  QCOMPARE(static_cast<int>(rbFrame->kind()), static_cast<int>(FrameKind::RigidBody));
  QVERIFY(*rbFrame == rb);
  const auto linkFrame = w.getFrame("arm/fore");
  QVERIFY(linkFrame.has_value());
  QCOMPARE(static_cast<int>(linkFrame->kind()), static_cast<int>(FrameKind::Link));
  QVERIFY(*linkFrame == arm.fore);
  QVERIFY(!w.getFrame("arm/nope").has_value());

  // Multibody structure queries.
  QCOMPARE(arm.mb.numLinks(), std::size_t{2});
  QCOMPARE(arm.mb.numJoints(), std::size_t{2});
  QVERIFY(*arm.mb.getRootLink() == arm.upper);
  QVERIFY(*arm.mb.getLink("fore") == arm.fore);
  QVERIFY(!arm.mb.getLink("tip").has_value());
  QVERIFY(*arm.mb.getJoint("elbow") == arm.elbow);
  QVERIFY(!arm.mb.hasJoint("fore"));
  const auto links = arm.mb.getLinks();
  QCOMPARE(links.size(), std::size_t{2});
  QVERIFY(links[0] == arm.upper && links[1] == arm.fore);
  const auto joints = arm.mb.getJoints();
  QVERIFY(joints[0] == arm.shoulder && joints[1] == arm.elbow);
  QVERIFY(arm.fore.getMultibody() == arm.mb);
  QVERIFY(*arm.fore.getParentLink() == arm.upper);
  QVERIFY(!arm.upper.getParentLink().has_value());
  QVERIFY(arm.upper.getParentFrame().isWorld());
  QVERIFY(arm.fore.getParentFrame() == arm.upper);
  QCOMPARE(arm.upper.getChildLinks().size(), std::size_t{1});
  QVERIFY(arm.upper.getChildLinks()[0] == arm.fore);
  QVERIFY(arm.elbow.getChildLink() == arm.fore);
  QVERIFY(*arm.elbow.getParentLink() == arm.upper);
  QVERIFY(!arm.shoulder.getParentLink().has_value());
  QVERIFY(arm.elbow.getMultibody() == arm.mb);
  QCOMPARE(arm.elbow.positionOffset(), 1);
  QCOMPARE(arm.elbow.velocityOffset(), 1);
  QCOMPARE(qs(arm.elbow.name()), QString("elbow"));
  QCOMPARE(static_cast<int>(arm.elbow.type()), static_cast<int>(JointType::Revolute));
}

// ---------------------------------------------------------------------------
// StateSpace
// ---------------------------------------------------------------------------

void TestWorldApi::stateSpaceLayout() {
  World w;
  RigidBodyOptions o = bodyOptions();
  const Matrix3d R0 = Eigen::AngleAxisd(2.5, Vector3d(0.3, -1, 0.2).normalized()).toRotationMatrix();
  const Vector3d p0(1.0, 2.0, 3.0);
  o.pose = pose(R0, p0);
  o.linearVelocity = Vector3d(0.1, 0.2, 0.3);
  o.angularVelocity = Vector3d(-0.5, 0.0, 0.25);
  w.addRigidBody("rb", o);

  Multibody arm = w.addMultibody("arm");
  Link base = arm.addLink(linkOptions("base"), JointSpec::free().named("root"));
  Link l1 = arm.addLink(linkOptions("l1"), base, JointSpec::ball().named("shoulder"));
  arm.addLink(linkOptions("l2"), l1, JointSpec::revolute(Vector3d::UnitY()).named("elbow"));
  Multibody pend = makePendulum(w);

  QCOMPARE(w.numPositions(), 7 + 7 + 4 + 1 + 1);
  QCOMPARE(w.numDofs(), 6 + 6 + 3 + 1 + 1);
  QVERIFY(w.numPositions() != w.numDofs());
  QCOMPARE(arm.numPositions(), 12);
  QCOMPARE(arm.numDofs(), 10);
  QCOMPARE(pend.numPositions(), 1);
  QCOMPARE(w.getPositions().size(), Eigen::Index{20});
  QCOMPARE(w.getVelocities().size(), Eigen::Index{17});

  const StateSpace ss = w.getStateSpace();
  QCOMPARE(ss.numPositions(), 20);
  QCOMPARE(ss.numVelocities(), 17);
  QCOMPARE(ss.segments().size(), std::size_t{5});
  QCOMPARE(ss.positionNames().size(), std::size_t{20});
  QCOMPARE(ss.velocityNames().size(), std::size_t{17});

  struct Expected {
    std::string owner, joint;
    JointType type;
    int nq, nv;
  };
  const std::vector<Expected> expected = {
      {"rb", "", JointType::Free, 7, 6},
      {"arm", "root", JointType::Free, 7, 6},
      {"arm", "shoulder", JointType::Ball, 4, 3},
      {"arm", "elbow", JointType::Revolute, 1, 1},
      {"pend", "hinge", JointType::Revolute, 1, 1},
  };
  for (const Expected& e : expected) {
    const auto seg = ss.segment(e.owner, e.joint);
    QVERIFY2(seg.has_value(), (e.owner + "/" + e.joint).c_str());
    QCOMPARE(qs(seg->owner), qs(e.owner));
    QCOMPARE(qs(seg->joint), qs(e.joint));
    QCOMPARE(static_cast<int>(seg->type), static_cast<int>(e.type));
    QCOMPARE(seg->numPositions, e.nq);
    QCOMPARE(seg->numDofs, e.nv);
    const std::string prefix = e.joint.empty() ? e.owner + "/" : e.owner + "/" + e.joint + "/";
    for (int i = 0; i < e.nq; ++i) {
      const std::string name = prefix + "q" + std::to_string(i);
      QCOMPARE(qs(ss.positionNames()[static_cast<std::size_t>(seg->positionOffset + i)]), qs(name));
      const auto idx = ss.positionIndex(name);
      QVERIFY2(idx.has_value(), name.c_str());
      QCOMPARE(*idx, seg->positionOffset + i);
    }
    for (int i = 0; i < e.nv; ++i) {
      const std::string name = prefix + "v" + std::to_string(i);
      QCOMPARE(qs(ss.velocityNames()[static_cast<std::size_t>(seg->velocityOffset + i)]), qs(name));
      const auto idx = ss.velocityIndex(name);
      QVERIFY2(idx.has_value(), name.c_str());
      QCOMPARE(*idx, seg->velocityOffset + i);
    }
  }
  QVERIFY(!ss.segment("arm", "nope").has_value());
  QVERIFY(!ss.segment("nope").has_value());
  QVERIFY(!ss.positionIndex("arm/elbow/q1").has_value());
  QVERIFY(!ss.velocityIndex("rb/v6").has_value());

  // Segments tile [0, nq) and [0, nv) without gaps, in the same order.
  std::vector<StateSegment> byQ = ss.segments(), byV = ss.segments();
  std::sort(byQ.begin(), byQ.end(), [](const auto& x, const auto& y) { return x.positionOffset < y.positionOffset; });
  std::sort(byV.begin(), byV.end(), [](const auto& x, const auto& y) { return x.velocityOffset < y.velocityOffset; });
  int nq = 0, nv = 0;
  for (std::size_t i = 0; i < byQ.size(); ++i) {
    QCOMPARE(byQ[i].positionOffset, nq);
    QCOMPARE(byV[i].velocityOffset, nv);
    QCOMPARE(qs(byQ[i].owner + "/" + byQ[i].joint), qs(byV[i].owner + "/" + byV[i].joint));
    nq += byQ[i].numPositions;
    nv += byV[i].numDofs;
  }
  QCOMPARE(nq, 20);
  QCOMPARE(nv, 17);

  // A multibody occupies a contiguous block in tree order; Joint offsets are relative to it.
  const auto rootSeg = ss.segment("arm", "root");
  for (const Joint& j : arm.getJoints()) {
    const auto seg = ss.segment("arm", j.name());
    QVERIFY(seg.has_value());
    QCOMPARE(seg->positionOffset, rootSeg->positionOffset + j.positionOffset());
    QCOMPARE(seg->velocityOffset, rootSeg->velocityOffset + j.velocityOffset());
  }
  QCOMPARE(arm.getJoints()[1].positionOffset(), 7);
  QCOMPARE(arm.getJoints()[2].positionOffset(), 11);
  QCOMPARE(arm.getJoints()[1].velocityOffset(), 6);
  QCOMPARE(arm.getJoints()[2].velocityOffset(), 9);

  // Values: neutral quaternions, and the world vector agrees with joint vectors.
  Joint shoulder = *arm.getJoint("shoulder");
  const auto segSh = ss.segment("arm", "shoulder");
  Eigen::Vector4d identityQuat(0, 0, 0, 1);
  VERIFY_NEAR(shoulder.getPositions(), identityQuat, 0.0);
  VectorXd neutralFree(7);
  neutralFree << 0, 0, 0, 0, 0, 0, 1;
  VERIFY_NEAR(VectorXd(w.getPositions().segment(rootSeg->positionOffset, 7)), neutralFree, 0.0);

  const Eigen::Vector4d quat = Eigen::Vector4d(0.1, 0.2, -0.3, 0.9).normalized();
  shoulder.setPositions(quat);
  VERIFY_NEAR(VectorXd(w.getPositions().segment(segSh->positionOffset, 4)), quat, 1e-14);
  VERIFY_NEAR(VectorXd(arm.getPositions().segment(7, 4)), quat, 1e-14);

  const auto segE = ss.segment("arm", "elbow");
  VectorXd q = w.getPositions();
  q[segE->positionOffset] = 0.77;
  const auto segH = ss.segment("pend", "hinge");
  q[segH->positionOffset] = -0.33;
  w.setPositions(q);
  QCOMPARE(arm.getJoint("elbow")->getPosition(0), 0.77);
  QCOMPARE(pend.getJoint("hinge")->getPosition(0), -0.33);

  // Rigid body: q = [p; quaternion xyzw] (either sign), v = body twist.
  const auto segRb = ss.segment("rb");
  const VectorXd qrb = w.getPositions().segment(segRb->positionOffset, 7);
  VERIFY_NEAR(Vector3d(qrb.head<3>()), p0, 1e-14);
  const Quaterniond q0(R0);
  const Eigen::Vector4d xyzw(q0.x(), q0.y(), q0.z(), q0.w());
  const Eigen::Vector4d got = qrb.tail<4>();
  QVERIFY2(std::min((got - xyzw).norm(), (got + xyzw).norm()) < 1e-12,
           qPrintable(QString::fromStdString(test::describe(got.transpose()))));
  Vector6d twist;
  twist << R0.transpose() * o.angularVelocity, R0.transpose() * o.linearVelocity;
  VERIFY_NEAR(Vector6d(w.getVelocities().segment(segRb->velocityOffset, 6)), twist, 1e-12);
}

void TestWorldApi::stateSpaceIsAValueObject() {
  World w;
  Multibody pend = makePendulum(w);
  const StateSpace before = w.getStateSpace();
  QCOMPARE(before.numPositions(), 1);
  pend.addLink(linkOptions("slider"), *pend.getLink("bob"), JointSpec::prismatic(Vector3d::UnitY()).named("slide"));
  w.addRigidBody("rb", bodyOptions());
  // The old copy is unchanged, a new one reflects the new topology.
  QCOMPARE(before.numPositions(), 1);
  QCOMPARE(before.numVelocities(), 1);
  QCOMPARE(before.segments().size(), std::size_t{1});
  QVERIFY(!before.segment("pend", "slide").has_value());
  const StateSpace after = w.getStateSpace();
  QCOMPARE(after.numPositions(), 1 + 1 + 7);
  QCOMPARE(after.numVelocities(), 1 + 1 + 6);
  QVERIFY(after.segment("pend", "slide").has_value());
  QVERIFY(after.segment("rb").has_value());
}

// ---------------------------------------------------------------------------
// WorldState, step(0), reset(), sync(), options
// ---------------------------------------------------------------------------

namespace {
/// A world with a falling tumbling rigid body, a two-link arm and a pendulum under gravity.
void buildMixedWorld(World& w) {
  RigidBodyOptions o = bodyOptions(1.5);
  o.pose = translation(0, 0, 2);
  o.linearVelocity = Vector3d(0.3, 0, 1);
  o.angularVelocity = Vector3d(0.5, 2.0, -0.1);
  w.addRigidBody("rb", o);
  Arm arm = makeArm(w);
  // The arm moves in the horizontal plane: give it motion and a persistent joint force.
  VectorXd q(2), v(2), tau(2);
  q << 0.2, -0.4;
  v << 0.5, -0.3;
  tau << 0.05, -0.02;
  arm.mb.setPositions(q);
  arm.mb.setVelocities(v);
  arm.mb.setForces(tau);
}
}  // namespace

void TestWorldApi::stateRoundTrip() {
  World w;
  buildMixedWorld(w);
  Multibody pend = makePendulum(w);
  pend.getJoint("hinge")->setPosition(0, 0.5);
  w.enterSimulationMode();
  w.step(20);

  const WorldState s = w.getState();
  QCOMPARE(s.positions.size(), Eigen::Index{w.numPositions()});
  QCOMPARE(s.velocities.size(), Eigen::Index{w.numDofs()});
  QCOMPARE(s.frameIndex, std::uint64_t{20});
  VERIFY_NEAR(VectorXd::Constant(1, s.time), VectorXd::Constant(1, 20 * 1e-3), 1e-12);

  w.step(30);
  const WorldState s50 = w.getState();
  QVERIFY(!bitEqual(s50.positions, s.positions));  // the scene moves

  w.setState(s);
  QVERIFY(bitEqual(w.getPositions(), s.positions));
  QVERIFY(bitEqual(w.getVelocities(), s.velocities));
  QCOMPARE(w.getTime(), s.time);
  QCOMPARE(w.getFrameIndex(), s.frameIndex);
  const WorldState again = w.getState();
  QVERIFY(bitEqual(again.positions, s.positions));
  QVERIFY(bitEqual(again.velocities, s.velocities));
  QVERIFY(bitEqual(again.forces, s.forces));

  // Replaying from the restored state reproduces the same trajectory.
  w.step(30);
  QVERIFY(bitEqual(w.getPositions(), s50.positions));
  QVERIFY(bitEqual(w.getVelocities(), s50.velocities));
  QCOMPARE(w.getTime(), s50.time);
  QCOMPARE(w.getFrameIndex(), std::uint64_t{50});
}

void TestWorldApi::sizeMismatchIsRejected() {
  World w;
  buildMixedWorld(w);
  Multibody arm = *w.getMultibody("arm");
  w.enterSimulationMode();
  w.step(2);
  const WorldState good = w.getState();
  const int nq = w.numPositions(), nv = w.numDofs();

  WorldState bad = good;
  bad.positions.resize(nq + 1);
  bad.positions.setZero();
  EXPECT_THROW_NONEMPTY(InvalidArgument, w.setState(bad));
  bad = good;
  bad.positions.resize(nq - 1);
  EXPECT_THROW_NONEMPTY(InvalidArgument, w.setState(bad));
  bad = good;
  bad.velocities.resize(nv + 2);
  bad.velocities.setZero();
  EXPECT_THROW_NONEMPTY(InvalidArgument, w.setState(bad));
  // The world state is unchanged by the rejected writes.
  QVERIFY(bitEqual(w.getPositions(), good.positions));
  QVERIFY(bitEqual(w.getVelocities(), good.velocities));

  EXPECT_THROW_NONEMPTY(InvalidArgument, w.setPositions(VectorXd::Zero(nq - 1)));
  EXPECT_THROW_NONEMPTY(InvalidArgument, w.setVelocities(VectorXd::Zero(nv + 1)));
  EXPECT_THROW_NONEMPTY(InvalidArgument, arm.setPositions(VectorXd::Zero(3)));
  EXPECT_THROW_NONEMPTY(InvalidArgument, arm.setVelocities(VectorXd::Zero(1)));
  EXPECT_THROW_NONEMPTY(InvalidArgument, arm.setForces(VectorXd::Zero(5)));
  Joint elbow = *arm.getJoint("elbow");
  EXPECT_THROW_NONEMPTY(InvalidArgument, elbow.setPositions(VectorXd::Zero(2)));
  EXPECT_THROW_NONEMPTY(InvalidArgument, elbow.setVelocities(VectorXd::Zero(0)));
  EXPECT_THROW_NONEMPTY(InvalidArgument, elbow.setPosition(1, 0.5));
  EXPECT_THROW_NONEMPTY(InvalidArgument, elbow.setPosition(-1, 0.5));
  EXPECT_THROW_NONEMPTY(InvalidArgument, elbow.getPosition(3));
  QVERIFY(bitEqual(w.getPositions(), good.positions));

  // The correct sizes are accepted.
  EXPECT_NO_THROW(w.setState(good));
  EXPECT_NO_THROW(w.setPositions(good.positions));
}

void TestWorldApi::stepZeroIsNoOp() {
  World w;
  buildMixedWorld(w);
  w.enterSimulationMode();
  w.step(5);
  const double t = w.getTime();
  QVERIFY(t > 0.0);
  const std::uint64_t frame = w.getFrameIndex();
  QCOMPARE(frame, std::uint64_t{5});
  const VectorXd q = w.getPositions(), v = w.getVelocities();

  w.step(0);
  QCOMPARE(w.getTime(), t);
  QCOMPARE(w.getFrameIndex(), frame);
  QVERIFY(bitEqual(w.getPositions(), q));
  QVERIFY(bitEqual(w.getVelocities(), v));

  // And the next real step still advances.
  w.step(1);
  QCOMPARE(w.getFrameIndex(), frame + 1);
  QVERIFY(w.getTime() > t);
  QVERIFY(!bitEqual(w.getPositions(), q));
}

void TestWorldApi::resetRestoresInitialState() {
  World w;
  buildMixedWorld(w);
  Multibody pend = makePendulum(w);
  pend.getJoint("hinge")->setPosition(0, 0.5);
  pend.getJoint("hinge")->setVelocity(0, -1.0);
  w.enterSimulationMode();
  const VectorXd q0 = w.getPositions(), v0 = w.getVelocities();

  w.step(100);
  QVERIFY(!bitEqual(w.getPositions(), q0));
  QVERIFY(!bitEqual(w.getVelocities(), v0));
  VERIFY_NEAR(VectorXd::Constant(1, w.getTime()), VectorXd::Constant(1, 0.1), 1e-12);
  QCOMPARE(w.getFrameIndex(), std::uint64_t{100});

  w.reset();
  QVERIFY(w.isSimulationMode());
  QCOMPARE(w.getTime(), 0.0);
  QCOMPARE(w.getFrameIndex(), std::uint64_t{0});
  QVERIFY(bitEqual(w.getPositions(), q0));
  QVERIFY(bitEqual(w.getVelocities(), v0));
  QCOMPARE(pend.getJoint("hinge")->getPosition(0), 0.5);

  // Frames are fresh after reset too: the pendulum link is back at 0.5 rad about x.
  const Link bob = *pend.getLink("bob");
  VERIFY_NEAR(bob.getWorldTransform().matrix(), rotation(0.5, Vector3d::UnitX()).matrix(), 1e-12);

  // A second run from the reset state reproduces the first one.
  w.step(100);
  const VectorXd q100 = w.getPositions();
  w.reset();
  w.step(100);
  QVERIFY(bitEqual(w.getPositions(), q100));
}

void TestWorldApi::firstStepEntersSimulationMode() {
  World w;
  buildMixedWorld(w);
  Multibody pend = makePendulum(w);
  pend.getJoint("hinge")->setPosition(0, -0.25);
  const VectorXd q0 = w.getPositions(), v0 = w.getVelocities();
  QVERIFY(!w.isSimulationMode());
  w.step(10);
  QVERIFY(w.isSimulationMode());
  QCOMPARE(w.getFrameIndex(), std::uint64_t{10});
  w.reset();
  QVERIFY(bitEqual(w.getPositions(), q0));
  QVERIFY(bitEqual(w.getVelocities(), v0));
  QCOMPARE(w.getTime(), 0.0);
}

void TestWorldApi::resetToDesignModeKeepsState() {
  World w;
  buildMixedWorld(w);
  w.enterSimulationMode();
  w.step(10);
  const VectorXd q = w.getPositions(), v = w.getVelocities();
  w.resetToDesignMode();
  QVERIFY(!w.isSimulationMode());
  QVERIFY(bitEqual(w.getPositions(), q));
  QVERIFY(bitEqual(w.getVelocities(), v));
  // Topology edits are allowed again and keep the existing coordinates.
  const auto segBefore = w.getStateSpace().segment("rb");
  QVERIFY(segBefore.has_value());
  const VectorXd qrb = q.segment(segBefore->positionOffset, 7);
  const VectorXd qArm = w.getMultibody("arm")->getPositions();
  makePendulum(w);
  const auto segAfter = w.getStateSpace().segment("rb");
  QVERIFY(segAfter.has_value());
  VERIFY_NEAR(VectorXd(w.getPositions().segment(segAfter->positionOffset, 7)), qrb, 0.0);
  VERIFY_NEAR(w.getMultibody("arm")->getPositions(), qArm, 0.0);
}

void TestWorldApi::syncDoesNotAdvanceTime() {
  World w;
  buildMixedWorld(w);
  Arm arm{*w.getMultibody("arm"), {}, {}, {}, {}};
  arm.upper = *arm.mb.getLink("upper");
  arm.fore = *arm.mb.getLink("fore");

  // Design mode.
  EXPECT_NO_THROW(w.sync());
  QCOMPARE(w.getTime(), 0.0);

  w.enterSimulationMode();
  w.step(5);
  const double t = w.getTime();
  const std::uint64_t frame = w.getFrameIndex();
  const VectorXd q = w.getPositions(), v = w.getVelocities();
  w.sync(WorldSyncStage::Kinematics);
  w.sync();
  QCOMPARE(w.getTime(), t);
  QCOMPARE(w.getFrameIndex(), frame);
  QVERIFY(bitEqual(w.getPositions(), q));
  QVERIFY(bitEqual(w.getVelocities(), v));
  // Frames agree with the current state after sync.
  const double t1 = arm.mb.getPositions()[0], t2 = arm.mb.getPositions()[1];
  VERIFY_NEAR(arm.fore.getWorldTransform().matrix(), foreArmPose(t1, t2).matrix(), 1e-12);
}

void TestWorldApi::setOptionsRejectsBadTimeStep() {
  World w;
  buildMixedWorld(w);
  const double h0 = w.getOptions().timeStep;
  QCOMPARE(h0, 1e-3);
  for (const double bad : {0.0, -1e-3, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    WorldOptions o = w.getOptions();
    o.timeStep = bad;
    EXPECT_THROW_NONEMPTY(InvalidArgument, w.setOptions(o));
    EXPECT_THROW_NONEMPTY(InvalidArgument, w.setTimeStep(bad));
    QCOMPARE(w.getOptions().timeStep, h0);
  }
  // Valid changes are accepted in both modes and used by step().
  WorldOptions o = w.getOptions();
  o.timeStep = 2e-3;
  o.integrator = Integrator::RungeKutta4;
  o.gravity = Vector3d(0, 0, -1.62);
  w.setOptions(o);
  QCOMPARE(w.getOptions().timeStep, 2e-3);
  QCOMPARE(static_cast<int>(w.getOptions().integrator), static_cast<int>(Integrator::RungeKutta4));
  QCOMPARE(w.getOptions().gravity.z(), -1.62);
  w.enterSimulationMode();
  w.step(1);
  VERIFY_NEAR(VectorXd::Constant(1, w.getTime()), VectorXd::Constant(1, 2e-3), 1e-15);
  w.setTimeStep(5e-4);
  QCOMPARE(w.getOptions().timeStep, 5e-4);
  w.setGravity(Vector3d(0, 0, -9.81));
  QCOMPARE(w.getOptions().gravity.z(), -9.81);
  w.step(2);
  VERIFY_NEAR(VectorXd::Constant(1, w.getTime()), VectorXd::Constant(1, 3e-3), 1e-15);
  WorldOptions badInSim = w.getOptions();
  badInSim.timeStep = -1.0;
  EXPECT_THROW_NONEMPTY(InvalidArgument, w.setOptions(badInSim));
  QCOMPARE(w.getOptions().timeStep, 5e-4);
}

QTEST_APPLESS_MAIN(TestWorldApi)
#include "test_world_api.moc"

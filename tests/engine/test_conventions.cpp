// Tests of the free-joint convention conversions (conventions.hpp) and of
// their consistency with the engine's state packing and force application.
//
// Reference formulas (derived independently of the engine, X_WB = (R, p)):
//   free-joint q = [p; x y z w] with Eigen's Quaterniond(w, x, y, z) = R
//   body twist v = [ω_B; v_B], world velocity Vw = [ω_W; ṗ] = [R ω_B; R v_B]
//   spatial twist at the world origin Vs = [ω_W; ṗ − ω_W × p]
//   world wrench about the body origin Fw = [τ; f]  → generalized force [Rᵀτ; Rᵀf]
//   spatial wrench about the world origin Fs = [n_O; f] → [Rᵀ(n_O − p × f); Rᵀf]
// Power preservation: F·v == Fw·Vw == Fs·Vs.

#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <string>

using namespace articula;

namespace {

class Rng {
 public:
  explicit Rng(unsigned seed) : m_gen(seed) {}
  double normal() { return m_normal(m_gen); }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(m_gen); }
  Vector3d vec3(double scale = 1.0) { return scale * Vector3d(normal(), normal(), normal()); }
  Vector6d vec6(double scale = 1.0) {
    Vector6d x;
    for (int i = 0; i < 6; ++i) x[i] = scale * normal();
    return x;
  }
  Quaterniond quat() {
    Quaterniond q(normal(), normal(), normal(), normal());
    q.normalize();
    return q;
  }
  Isometry3d iso(double translationScale = 2.0) {
    Isometry3d X = Isometry3d::Identity();
    X.linear() = quat().toRotationMatrix();
    X.translation() = vec3(translationScale);
    return X;
  }

 private:
  std::mt19937 m_gen;
  std::normal_distribution<double> m_normal{0.0, 1.0};
};

Vector6d stack(const Vector3d& a, const Vector3d& b) {
  Vector6d x;
  x << a, b;
  return x;
}

// A general inertia: off-diagonal rotational inertia (principal moments
// satisfying the triangle inequality) and a COM away from the body origin.
Inertia generalInertia() {
  Inertia I;
  I.mass = 2.5;
  I.com = Vector3d(0.12, -0.07, 0.2);
  const Matrix3d Q = (Eigen::AngleAxisd(0.4, Vector3d(1.0, 2.0, -0.5).normalized())).toRotationMatrix();
  I.rotational = Q * Vector3d(0.08, 0.12, 0.15).asDiagonal() * Q.transpose();
  return I;
}

}  // namespace

class TestConventions : public QObject {
  Q_OBJECT

 private slots:
  void freeJointTransformMatchesPacking();
  void freeJointPositionsRoundTrip();
  void freeJointPositionsCanonicalSign();
  void velocityToWorldMatchesDefinition();
  void velocityWorldRoundTrip();
  void velocityToSpatialMatchesDefinition();
  void forceFromWorldPreservesPower();
  void forceFromSpatialPreservesPower();
  void forceConversionsMatchTransposes();
  void rigidBodyStatePacking();
  void rigidBodyVelocityWriteBack();
  void externalForceMatchesGeneralizedForce();
  void externalForceMatchesNewtonEuler();
};

// q = [px, py, pz, qx, qy, qz, qw] is the rotation Quaterniond(w, x, y, z).
void TestConventions::freeJointTransformMatchesPacking() {
  Rng rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const Quaterniond quat = rng.quat();
    const Vector3d p = rng.vec3(3.0);
    Eigen::Matrix<double, 7, 1> q;
    q << p, quat.x(), quat.y(), quat.z(), quat.w();
    const Isometry3d X = freeJointTransform(q);
    ARTICULA_VERIFY_NEAR(X.translation(), p, 1e-14);
    ARTICULA_VERIFY_NEAR(X.linear(), quat.toRotationMatrix(), 1e-14);
    // Bottom row of a proper isometry.
    ARTICULA_VERIFY_NEAR(X.matrix().row(3), Eigen::RowVector4d(0.0, 0.0, 0.0, 1.0), 0.0);
    // Rotation is orthonormal with det +1.
    QVERIFY(std::abs(X.linear().determinant() - 1.0) < 1e-13);
  }
  // A concrete rotation: 90° about z is (x, y, z, w) = (0, 0, sin 45°, cos 45°).
  Eigen::Matrix<double, 7, 1> q;
  q << 1.0, 2.0, 3.0, 0.0, 0.0, std::sqrt(0.5), std::sqrt(0.5);
  const Isometry3d X = freeJointTransform(q);
  ARTICULA_VERIFY_NEAR(X.linear() * Vector3d::UnitX(), Vector3d::UnitY(), 1e-15);
  ARTICULA_VERIFY_NEAR(X * Vector3d::Zero(), Vector3d(1.0, 2.0, 3.0), 1e-15);
}

void TestConventions::freeJointPositionsRoundTrip() {
  Rng rng(12);
  for (int trial = 0; trial < 100; ++trial) {
    const Isometry3d X = rng.iso();
    const Eigen::Matrix<double, 7, 1> q = freeJointPositions(X);
    QVERIFY(std::abs(q.tail<4>().norm() - 1.0) < 1e-14);
    const Isometry3d X2 = freeJointTransform(q);
    ARTICULA_VERIFY_NEAR(X2.matrix(), X.matrix(), 1e-13);
    // And back again: q is reproduced exactly (up to rounding).
    ARTICULA_VERIFY_NEAR(freeJointPositions(X2), q, 1e-13);
  }
}

// freeJointPositions returns w ≥ 0, so q and −q (the same rotation) map to
// the same canonical coordinates.
void TestConventions::freeJointPositionsCanonicalSign() {
  Rng rng(13);
  for (int trial = 0; trial < 50; ++trial) {
    Quaterniond quat = rng.quat();
    if (quat.w() > 0.0) quat.coeffs() = -quat.coeffs();  // force w < 0
    const Vector3d p = rng.vec3();
    Eigen::Matrix<double, 7, 1> q;
    q << p, quat.x(), quat.y(), quat.z(), quat.w();
    const Eigen::Matrix<double, 7, 1> canonical = freeJointPositions(freeJointTransform(q));
    QVERIFY2(canonical[6] >= 0.0, "w must be non-negative");
    Eigen::Matrix<double, 7, 1> expected;
    expected << p, -quat.x(), -quat.y(), -quat.z(), -quat.w();
    ARTICULA_VERIFY_NEAR(canonical, expected, 1e-13);
  }
}

void TestConventions::velocityToWorldMatchesDefinition() {
  Rng rng(14);
  for (int trial = 0; trial < 50; ++trial) {
    const Isometry3d X = rng.iso();
    const Vector6d v = rng.vec6();
    const Matrix3d R = X.linear();
    const Vector6d expected = stack(R * v.head<3>(), R * v.tail<3>());
    ARTICULA_VERIFY_NEAR(freeJointVelocityToWorld(X, v), expected, 1e-14);
  }
}

void TestConventions::velocityWorldRoundTrip() {
  Rng rng(15);
  for (int trial = 0; trial < 100; ++trial) {
    const Isometry3d X = rng.iso();
    const Vector6d v = rng.vec6();
    const Vector6d Vw = rng.vec6();
    ARTICULA_VERIFY_NEAR(freeJointVelocityFromWorld(X, freeJointVelocityToWorld(X, v)), v, 1e-13);
    ARTICULA_VERIFY_NEAR(freeJointVelocityToWorld(X, freeJointVelocityFromWorld(X, Vw)), Vw, 1e-13);
  }
}

// The spatial twist's linear part is the velocity of the body-fixed point
// currently at the world origin: ṗ + ω × (0 − p).
void TestConventions::velocityToSpatialMatchesDefinition() {
  Rng rng(16);
  for (int trial = 0; trial < 50; ++trial) {
    const Isometry3d X = rng.iso();
    const Vector6d v = rng.vec6();
    const Matrix3d R = X.linear();
    const Vector3d p = X.translation();
    const Vector3d w = R * v.head<3>();
    const Vector3d pdot = R * v.tail<3>();
    const Vector6d expected = stack(w, pdot - w.cross(p));
    ARTICULA_VERIFY_NEAR(freeJointVelocityToSpatial(X, v), expected, 1e-13);
    // Consistent with the world-velocity conversion.
    const Vector6d Vw = freeJointVelocityToWorld(X, v);
    ARTICULA_VERIFY_NEAR(freeJointVelocityToSpatial(X, v), stack(Vw.head<3>(), Vw.tail<3>() + p.cross(Vw.head<3>())),
                         1e-13);
  }
}

void TestConventions::forceFromWorldPreservesPower() {
  Rng rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    const Isometry3d X = rng.iso();
    const Vector6d v = rng.vec6();
    const Vector6d Fw = rng.vec6(5.0);
    const double powerGeneralized = freeJointForceFromWorld(X, Fw).dot(v);
    const double powerWorld = Fw.dot(freeJointVelocityToWorld(X, v));
    const double scale = Fw.norm() * v.norm();
    QVERIFY2(std::abs(powerGeneralized - powerWorld) <= 1e-12 * scale,
             qPrintable(QString("F·v = %1, Fw·Vw = %2").arg(powerGeneralized, 0, 'g', 17).arg(powerWorld, 0, 'g', 17)));
  }
}

void TestConventions::forceFromSpatialPreservesPower() {
  Rng rng(18);
  for (int trial = 0; trial < 200; ++trial) {
    const Isometry3d X = rng.iso(5.0);  // large translations make the p × f terms matter
    const Vector6d v = rng.vec6();
    const Vector6d Fs = rng.vec6(5.0);
    const double powerGeneralized = freeJointForceFromSpatial(X, Fs).dot(v);
    const double powerSpatial = Fs.dot(freeJointVelocityToSpatial(X, v));
    const double scale = Fs.norm() * v.norm() * (1.0 + X.translation().norm());
    QVERIFY2(
        std::abs(powerGeneralized - powerSpatial) <= 1e-12 * scale,
        qPrintable(QString("F·v = %1, Fs·Vs = %2").arg(powerGeneralized, 0, 'g', 17).arg(powerSpatial, 0, 'g', 17)));
  }
}

// Power preservation alone leaves the force map determined only through
// the velocity map; check the explicit transposes too.
void TestConventions::forceConversionsMatchTransposes() {
  Rng rng(19);
  for (int trial = 0; trial < 50; ++trial) {
    const Isometry3d X = rng.iso(3.0);
    const Matrix3d R = X.linear();
    const Vector3d p = X.translation();
    const Vector6d Fw = rng.vec6();
    ARTICULA_VERIFY_NEAR(freeJointForceFromWorld(X, Fw),
                         stack(R.transpose() * Fw.head<3>(), R.transpose() * Fw.tail<3>()), 1e-13);
    const Vector6d Fs = rng.vec6();
    const Vector3d torqueAtBodyOrigin = Fs.head<3>() - p.cross(Fs.tail<3>());
    ARTICULA_VERIFY_NEAR(freeJointForceFromSpatial(X, Fs),
                         stack(R.transpose() * torqueAtBodyOrigin, R.transpose() * Fs.tail<3>()), 1e-13);
    // Build the 6×6 velocity map column by column and compare the force map
    // with its transpose (F = Aᵀ F').
    Matrix6d A;
    Matrix6d B;
    for (int c = 0; c < 6; ++c) {
      A.col(c) = freeJointVelocityToSpatial(X, Vector6d::Unit(c));
    }
    for (int c = 0; c < 6; ++c) {
      B.col(c) = freeJointForceFromSpatial(X, Vector6d::Unit(c));
    }
    ARTICULA_VERIFY_NEAR(B, A.transpose(), 1e-13);
  }
}

// A rigid body occupies a Free-joint segment of the world state: its q is
// freeJointPositions(pose) (up to the quaternion sign) and its v is the body
// twist freeJointVelocityFromWorld(pose, [ω_W; v_W]).
void TestConventions::rigidBodyStatePacking() {
  World world;
  // A multibody first, so the bodies' segments are not trivially at offset 0.
  Multibody mb = world.addMultibody("arm");
  LinkOptions lo;
  lo.name = "upper";
  lo.inertia = Inertia::pointMass(1.0, Vector3d(0.0, 0.0, -0.5));
  const Link upper = mb.addLink(lo, JointSpec::revolute(Vector3d::UnitY()).named("shoulder"));
  lo.name = "lower";
  mb.addLink(lo, upper,
             JointSpec::revolute(Vector3d::UnitY())
                 .withParentOffset(Isometry3d(Eigen::Translation3d(0.0, 0.0, -0.5)))
                 .named("elbow"));
  mb.setPositions(Eigen::Vector2d(0.3, -0.2));
  mb.setVelocities(Eigen::Vector2d(0.7, 0.1));

  Rng rng(20);
  struct Expected {
    std::string name;
    Isometry3d pose;
    Vector3d w, vLin;
  };
  std::vector<Expected> bodies;
  for (int i = 0; i < 2; ++i) {
    RigidBodyOptions o;
    o.inertia = generalInertia();
    o.pose = rng.iso();
    o.angularVelocity = rng.vec3();
    o.linearVelocity = rng.vec3();
    const std::string name = "body" + std::to_string(i);
    world.addRigidBody(name, o);
    bodies.push_back({name, o.pose, o.angularVelocity, o.linearVelocity});
  }

  const StateSpace space = world.getStateSpace();
  QCOMPARE(space.numPositions(), world.numPositions());
  QCOMPARE(space.numVelocities(), world.numDofs());
  QCOMPARE(world.numPositions(), 2 + 7 * 2);
  QCOMPARE(world.numDofs(), 2 + 6 * 2);
  const VectorXd q = world.getPositions();
  const VectorXd v = world.getVelocities();
  for (const Expected& e : bodies) {
    const std::optional<StateSegment> seg = space.segment(e.name);
    QVERIFY2(seg.has_value(), e.name.c_str());
    QVERIFY(seg->type == JointType::Free);
    QCOMPARE(seg->numPositions, 7);
    QCOMPARE(seg->numDofs, 6);
    const Eigen::Matrix<double, 7, 1> qSeg = q.segment<7>(seg->positionOffset);
    ARTICULA_VERIFY_NEAR(freeJointTransform(qSeg).matrix(), e.pose.matrix(), 1e-13);
    const Vector6d vSeg = v.segment<6>(seg->velocityOffset);
    ARTICULA_VERIFY_NEAR(vSeg, freeJointVelocityFromWorld(e.pose, stack(e.w, e.vLin)), 1e-13);
    // The frame's body twist is the same vector.
    const std::optional<RigidBody> body = world.getRigidBody(e.name);
    QVERIFY(body.has_value());
    ARTICULA_VERIFY_NEAR(body->getSpatialVelocity(), vSeg, 1e-13);
    ARTICULA_VERIFY_NEAR(body->getAngularVelocityWorld(), e.w, 1e-13);
    ARTICULA_VERIFY_NEAR(body->getLinearVelocityWorld(), e.vLin, 1e-13);
  }
}

// Writing a Free segment of the world velocity vector sets the body twist:
// the world-frame accessors then return freeJointVelocityToWorld(pose, v).
void TestConventions::rigidBodyVelocityWriteBack() {
  World world;
  RigidBodyOptions o;
  o.inertia = generalInertia();
  Rng rng(21);
  o.pose = rng.iso();
  RigidBody body = world.addRigidBody("body", o);
  const std::optional<StateSegment> seg = world.getStateSpace().segment("body");
  QVERIFY(seg.has_value());
  for (int trial = 0; trial < 10; ++trial) {
    const Vector6d vBody = rng.vec6();
    VectorXd v = world.getVelocities();
    v.segment<6>(seg->velocityOffset) = vBody;
    world.setVelocities(v);
    const Vector6d Vw = freeJointVelocityToWorld(o.pose, vBody);
    ARTICULA_VERIFY_NEAR(body.getAngularVelocityWorld(), Vector3d(Vw.head<3>()), 1e-13);
    ARTICULA_VERIFY_NEAR(body.getLinearVelocityWorld(), Vector3d(Vw.tail<3>()), 1e-13);
    // Frame queries: angular velocity in body coordinates is ω_B.
    ARTICULA_VERIFY_NEAR(body.getAngularVelocity(Frame::World(), body), Vector3d(vBody.head<3>()), 1e-13);
    ARTICULA_VERIFY_NEAR(body.getLinearVelocity(Frame::World(), body), Vector3d(vBody.tail<3>()), 1e-13);
  }
}

// A world force at a world point on a RigidBody gives the same
// accelerations as the generalized force freeJointForceFromWorld(X, [(r − p) × f; f])
// applied with setForces on a Free-rooted multibody with the same inertia and state,
// and (another code path) as Link::addExternalForce on such a multibody.
void TestConventions::externalForceMatchesGeneralizedForce() {
  Rng rng(22);
  for (int trial = 0; trial < 5; ++trial) {
    WorldOptions opts;
    opts.timeStep = 1e-3;
    opts.integrator = Integrator::SemiImplicitEuler;
    const Inertia inertia = generalInertia();
    const Isometry3d pose = rng.iso();
    const Vector3d w = rng.vec3();
    const Vector3d vLin = rng.vec3();
    const Vector3d f = rng.vec3(10.0);
    const Vector3d r = pose.translation() + rng.vec3(0.5);  // world point of application

    World wA(opts);
    RigidBodyOptions ro;
    ro.inertia = inertia;
    ro.pose = pose;
    ro.angularVelocity = w;
    ro.linearVelocity = vLin;
    RigidBody body = wA.addRigidBody("body", ro);

    World wB(opts);
    Multibody mb = wB.addMultibody("mb");
    LinkOptions lo;
    lo.name = "link";
    lo.inertia = inertia;
    mb.addLink(lo, JointSpec::free());
    mb.setPositions(freeJointPositions(pose));
    const Vector6d v0 = freeJointVelocityFromWorld(pose, stack(w, vLin));
    mb.setVelocities(v0);

    World wC(opts);
    Multibody mc = wC.addMultibody("mc");
    Link linkC = mc.addLink(lo, JointSpec::free());
    mc.setPositions(freeJointPositions(pose));
    mc.setVelocities(v0);

    body.addExternalForce(f, r, /*forceInWorld=*/true, /*offsetInWorld=*/true);
    const Vector6d Fw = stack((r - pose.translation()).cross(f), f);
    mb.setForces(freeJointForceFromWorld(pose, Fw));
    linkC.addExternalForce(f, r, true, true);

    wA.step();
    wB.step();
    wC.step();

    const std::optional<StateSegment> seg = wA.getStateSpace().segment("body");
    QVERIFY(seg.has_value());
    const Vector6d accBody = wA.getState().accelerations.segment<6>(seg->velocityOffset);
    const VectorXd accMb = mb.getAccelerations();
    QCOMPARE(accMb.size(), 6);
    ARTICULA_VERIFY_NEAR(accBody, Vector6d(accMb), 1e-12);
    ARTICULA_VERIFY_NEAR(Vector6d(mc.getAccelerations()), Vector6d(accMb), 1e-12);
    // Same resulting state.
    ARTICULA_VERIFY_NEAR(Vector6d(wA.getVelocities().segment<6>(seg->velocityOffset)), Vector6d(mb.getVelocities()),
                         1e-12);
    ARTICULA_VERIFY_NEAR(body.getPose().matrix(), mb.getRootLink()->getWorldTransform().matrix(), 1e-12);
    // Semi-implicit Euler on a free joint (docs/conventions.md): ω⁺ = ω + h·ω̇;
    // the linear part is advanced with the classical acceleration and then
    // re-expressed in the rotated body frame.
    const double h = opts.timeStep;
    const Vector3d w0 = v0.head<3>();
    const Vector3d w1 = w0 + h * accMb.head<3>();
    const Vector3d lin = v0.tail<3>() + h * (accMb.tail<3>() + w0.cross(Vector3d(v0.tail<3>())));
    Vector6d expected;
    expected << w1, Eigen::AngleAxisd(h * w1.norm(), w1.normalized()).inverse() * lin;
    ARTICULA_VERIFY_NEAR(Vector6d(mb.getVelocities()), expected, 1e-12);
  }
}

// The accelerations of a pushed rigid body match the Newton–Euler equations
// about the centre of mass:
//   m a_c = f + m g,   I_W α + ω × I_W ω = (r − c) × f,
// converted to the free-joint acceleration (derivative of the body twist):
//   ω̇_B = Rᵀ α,   v̇_B = Rᵀ a_o − ω_B × v_B,   a_o = a_c − α × Rc − ω × (ω × Rc).
void TestConventions::externalForceMatchesNewtonEuler() {
  Rng rng(23);
  for (int trial = 0; trial < 5; ++trial) {
    WorldOptions opts;
    opts.gravity = Vector3d(0.3, -0.2, -9.81);
    const Inertia inertia = generalInertia();
    RigidBodyOptions ro;
    ro.inertia = inertia;
    ro.pose = rng.iso();
    ro.angularVelocity = rng.vec3(2.0);
    ro.linearVelocity = rng.vec3();
    World world(opts);
    RigidBody body = world.addRigidBody("body", ro);
    const Vector3d f = rng.vec3(10.0);
    const Vector3d r = ro.pose.translation() + rng.vec3(0.5);
    body.addExternalForce(f, r, true, true);
    // A second force given in body coordinates at a body point.
    const Vector3d fB = rng.vec3(3.0);
    const Vector3d rB = rng.vec3(0.3);
    body.addExternalForce(fB, rB, /*forceInWorld=*/false, /*offsetInWorld=*/false);
    const Vector3d tauW = rng.vec3(2.0);
    body.addExternalTorque(tauW, true);

    const Matrix3d R = ro.pose.linear();
    const Vector3d p = ro.pose.translation();
    const Vector3d comW = R * inertia.com;
    const Vector3d c = p + comW;
    const Vector3d w = ro.angularVelocity;
    const Matrix3d Iw = R * inertia.rotational * R.transpose();
    const Vector3d f2 = R * fB;
    const Vector3d r2 = p + R * rB;
    const Vector3d fTotal = f + f2;
    const Vector3d torqueC = (r - c).cross(f) + (r2 - c).cross(f2) + tauW;
    const Vector3d alpha = Iw.ldlt().solve(torqueC - w.cross(Iw * w));
    const Vector3d ac = fTotal / inertia.mass + opts.gravity;
    const Vector3d ao = ac - alpha.cross(comW) - w.cross(w.cross(comW));
    const Vector3d wB = R.transpose() * w;
    const Vector3d vB = R.transpose() * ro.linearVelocity;
    const Vector6d expected = stack(R.transpose() * alpha, R.transpose() * ao - wB.cross(vB));

    world.step();
    const std::optional<StateSegment> seg = world.getStateSpace().segment("body");
    QVERIFY(seg.has_value());
    const Vector6d acc = world.getState().accelerations.segment<6>(seg->velocityOffset);
    ARTICULA_VERIFY_NEAR(acc, expected, 1e-11);
    // External forces are cleared after the step.
    QVERIFY(world.getState().externalWrenches.cwiseAbs().maxCoeff() == 0.0);
  }
}

QTEST_APPLESS_MAIN(TestConventions)
#include "test_conventions.moc"

// Frame semantics: transforms between arbitrary frames, free and fixed user
// frames, and relative velocities and accelerations as derivatives observed
// from a (possibly moving, rotating) frame.
//
// The reference for velocities and accelerations is central finite
// differences along the trajectory q(±h) = q ⊕ (±h v), v(±h) = v ± h v̇
// (v̇ set with Multibody::setAccelerations), X_PF(±h) = X_PF·exp(±h V),
// V(±h) = V ± h A for free frames, and a rigid body moving with its world
// velocity. The acceleration observed from A is also checked against the
// non-inertial-frame formula
//   a_BA = a_B − a_A − α_A×p_BA − 2ω_A×v_BA − ω_A×(ω_A×p_BA),
//   α_BA = α_B − α_A − ω_A×ω_B   (world coordinates).

#include "random_tree.hpp"
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <random>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

struct NamedFrame {
  Frame frame;
  QString name;
  bool hasAcceleration = true;  ///< false for the rigid body (its acceleration comes from step())
};

struct FreeMotion {
  FreeFrame frame;
  Isometry3d X0;  ///< relative pose at t = 0
  Vector6d V;     ///< relative body twist at t = 0
  Vector6d A;     ///< relative body twist derivative
};

/// A moving multibody, user frames attached to links, to the world and to
/// each other, and a rigid body; every motion parametrized by time t.
struct Scene {
  RandomTree tree;
  VectorXd q, v, vdot;
  std::vector<FreeMotion> freeMotions;
  RigidBody body;
  Isometry3d bodyPose0 = Isometry3d::Identity();
  Vector3d bodyLinear = Vector3d::Zero();   ///< world velocity of the body origin
  Vector3d bodyAngular = Vector3d::Zero();  ///< world angular velocity
  std::vector<NamedFrame> frames;

  /// State at time t along the trajectory (first order in t, which is all a
  /// central difference needs).
  void apply(double t) {
    Multibody& mb = tree.mb;
    mb.setPositions(t == 0.0 ? q : integratePositions(mb, q, v, t));
    mb.setVelocities(v + t * vdot);
    for (FreeMotion& m : freeMotions) {
      m.frame.setRelativeTransform(m.X0 * expSE3(t * m.V));
      m.frame.setRelativeSpatialVelocity(m.V + t * m.A);
      m.frame.setRelativeSpatialAcceleration(m.A);
    }
    Isometry3d X = Isometry3d::Identity();
    X.linear() = expSO3(t * bodyAngular) * bodyPose0.linear();
    X.translation() = bodyPose0.translation() + t * bodyLinear;
    body.setPose(X);
    body.setVelocityWorld(bodyLinear, bodyAngular);
    mb.setAccelerations(vdot);
  }
};

std::unique_ptr<Scene> makeScene(std::uint32_t seed) {
  auto s = std::make_unique<Scene>();
  TreeOptions opt;
  opt.numLinks = 11;
  opt.rootType = JointType::Free;
  s->tree = makeRandomTree(seed, opt);
  std::mt19937 rng(seed + 77u);
  World& world = *s->tree.world;
  world.resetToDesignMode();
  RigidBodyOptions ro;
  ro.inertia = randomInertia(rng);
  s->body = world.addRigidBody("body", ro);
  world.enterSimulationMode();

  const std::vector<Link>& L = s->tree.links;
  const FixedFrame fixedOnLink = world.addFixedFrame("fixedOnLink", L[7], randomTransform(rng, 0.5));
  const FreeFrame freeOnLink = world.addFreeFrame("freeOnLink", L[3], randomTransform(rng, 0.5));
  const FreeFrame freeOnWorld = world.addFreeFrame("freeOnWorld", Frame::World(), randomTransform(rng, 1.0));
  const FreeFrame freeOnFree = world.addFreeFrame("freeOnFree", freeOnLink, randomTransform(rng, 0.5));
  const FixedFrame fixedOnFree = world.addFixedFrame("fixedOnFree", freeOnWorld, randomTransform(rng, 0.5));
  for (const FreeFrame& f : {freeOnLink, freeOnWorld, freeOnFree}) {
    s->freeMotions.push_back({f, f.getRelativeTransform(), Vector6d(randomVectorX(rng, 6, -1.0, 1.0)),
                              Vector6d(randomVectorX(rng, 6, -2.0, 2.0))});
  }
  s->q = randomPositions(rng, s->tree.mb);
  s->v = randomVectorX(rng, s->tree.mb.numDofs(), -1.5, 1.5);
  s->vdot = randomVectorX(rng, s->tree.mb.numDofs(), -2.0, 2.0);
  s->bodyPose0 = randomTransform(rng, 1.0);
  s->bodyLinear = randomVector(rng, -1.0, 1.0);
  s->bodyAngular = randomVector(rng, -1.0, 1.0);

  s->frames = {{Frame::World(), "world"},
               {L[0], "root link"},
               {L[5], "link5"},
               {L[10], "link10"},
               {fixedOnLink, "fixedOnLink"},
               {freeOnLink, "freeOnLink"},
               {freeOnWorld, "freeOnWorld"},
               {freeOnFree, "freeOnFree"},
               {fixedOnFree, "fixedOnFree"},
               {s->body, "rigid body", false}};
  s->apply(0.0);
  return s;
}

Vector6d stack(const Vector3d& a, const Vector3d& b) {
  Vector6d x;
  x << a, b;
  return x;
}

}  // namespace

class FrameTest : public QObject {
  Q_OBJECT

 private slots:
  // X_AB·X_BC = X_AC, X_BA = X_AB⁻¹, X_AA = I, X_AB = X_WA⁻¹ X_WB, and the
  // translation of X_AB re-expressed in C is R_CA p_AB.
  void transformIdentities() {
    for (std::uint32_t seed : {11u, 12u}) {
      auto s = makeScene(seed);
      const auto& F = s->frames;
      for (const NamedFrame& a : F) {
        const Isometry3d X_WA = a.frame.getWorldTransform();
        ARTICULA_VERIFY_NEAR_MSG(a.frame.getTransform().matrix(), X_WA.matrix(), 0.0, a.name + " default relativeTo");
        ARTICULA_VERIFY_NEAR_MSG(a.frame.getTransform(Frame::World()).matrix(), X_WA.matrix(), 0.0,
                                 a.name + " relative to world");
        ARTICULA_VERIFY_NEAR_MSG(a.frame.getTransform(a.frame).matrix(), Eigen::Matrix4d::Identity(), 1e-14,
                                 a.name + " relative to itself");
        ARTICULA_VERIFY_NEAR_MSG(Matrix3d(X_WA.linear() * X_WA.linear().transpose()), Matrix3d::Identity(), 1e-14,
                                 a.name + " rotation orthonormal");
        for (const NamedFrame& b : F) {
          const QString ab = b.name + " rel. " + a.name;
          const Isometry3d X_AB = b.frame.getTransform(a.frame);
          ARTICULA_VERIFY_NEAR_MSG(X_AB.matrix(),
                                   Eigen::Matrix4d((X_WA.inverse() * b.frame.getWorldTransform()).matrix()), 1e-12,
                                   ab + ": X_AB = X_WA⁻¹ X_WB");
          ARTICULA_VERIFY_NEAR_MSG(X_AB.matrix(), Eigen::Matrix4d(a.frame.getTransform(b.frame).inverse().matrix()),
                                   1e-12, ab + ": X_AB = X_BA⁻¹");
          ARTICULA_VERIFY_NEAR_MSG(b.frame.getTransform(a.frame, a.frame).matrix(), X_AB.matrix(), 1e-14,
                                   ab + ": in its own coordinates");
          for (const NamedFrame& c : F) {
            const Isometry3d X_BC = c.frame.getTransform(b.frame);
            ARTICULA_VERIFY_NEAR_MSG(Eigen::Matrix4d((X_AB * X_BC).matrix()), c.frame.getTransform(a.frame).matrix(),
                                     1e-12, ab + ", " + c.name + ": X_AB X_BC = X_AC");
            // Re-expression: the position of B's origin relative to A, in C's coordinates.
            const Isometry3d X_AB_C = b.frame.getTransform(a.frame, c.frame);
            const Matrix3d R_CA = c.frame.getTransform(a.frame).linear().transpose();
            ARTICULA_VERIFY_NEAR_MSG(Vector3d(X_AB_C.translation()), Vector3d(R_CA * X_AB.translation()), 1e-12,
                                     ab + " in " + c.name + ": translation R_CA p_AB");
            ARTICULA_VERIFY_NEAR_MSG(Matrix3d(X_AB_C.linear() * X_AB_C.linear().transpose()), Matrix3d::Identity(),
                                     1e-12, ab + " in " + c.name + ": rotation orthonormal");
          }
        }
      }
    }
  }

  void freeFrameSetAndGet() {
    auto s = makeScene(21u);
    std::mt19937 rng(2100u);
    World& world = *s->tree.world;
    const Link parent = s->tree.links[4];
    const Link other = s->tree.links[9];
    const Isometry3d X_PF = randomTransform(rng, 0.5);
    FreeFrame f = world.addFreeFrame("user", parent, X_PF);
    QVERIFY(f.isValid());
    QCOMPARE(static_cast<int>(f.kind()), static_cast<int>(FrameKind::FreeFrame));
    QCOMPARE(QString::fromStdString(f.name()), QString("user"));
    QVERIFY2(f.getParentFrame() == Frame(parent), "parent frame of a free frame");
    QVERIFY(world.getFreeFrame("user").has_value());
    QVERIFY(*world.getFreeFrame("user") == f);
    ARTICULA_VERIFY_NEAR_MSG(f.getRelativeTransform().matrix(), X_PF.matrix(), 1e-15, "relative transform at creation");
    ARTICULA_VERIFY_NEAR_MSG(f.getTransform(parent).matrix(), X_PF.matrix(), 1e-12, "transform relative to the parent");
    ARTICULA_VERIFY_NEAR_MSG(f.getWorldTransform().matrix(),
                             Eigen::Matrix4d((parent.getWorldTransform() * X_PF).matrix()), 1e-12, "X_WF = X_WP X_PF");

    // Moving the multibody moves the frame with its parent, not relative to it.
    s->tree.mb.setPositions(randomPositions(rng, s->tree.mb));
    ARTICULA_VERIFY_NEAR_MSG(f.getRelativeTransform().matrix(), X_PF.matrix(), 1e-15,
                             "relative transform after q change");
    ARTICULA_VERIFY_NEAR_MSG(f.getWorldTransform().matrix(),
                             Eigen::Matrix4d((parent.getWorldTransform() * X_PF).matrix()), 1e-12,
                             "X_WF after q change");

    const Isometry3d Y = randomTransform(rng, 0.5);
    f.setRelativeTransform(Y);
    ARTICULA_VERIFY_NEAR_MSG(f.getRelativeTransform().matrix(), Y.matrix(), 1e-15, "setRelativeTransform round trip");

    // setTransform relative to another (moving) frame.
    for (const Frame& R : {Frame(other), Frame(s->freeMotions[2].frame), Frame::World(), Frame(parent)}) {
      const Isometry3d X_RF = randomTransform(rng, 1.0);
      f.setTransform(X_RF, R);
      ARTICULA_VERIFY_NEAR_MSG(f.getTransform(R).matrix(), X_RF.matrix(), 1e-12,
                               "setTransform(X, R) → getTransform(R)");
      ARTICULA_VERIFY_NEAR_MSG(
          f.getRelativeTransform().matrix(),
          Eigen::Matrix4d((parent.getWorldTransform().inverse() * R.getWorldTransform() * X_RF).matrix()), 1e-12,
          "setTransform stores X_PR X_RF");
    }
    const Isometry3d X_WF = randomTransform(rng, 1.0);
    f.setTransform(X_WF);
    ARTICULA_VERIFY_NEAR_MSG(f.getWorldTransform().matrix(), X_WF.matrix(), 1e-12, "setTransform default world");

    const Vector6d V = randomVectorX(rng, 6, -1.0, 1.0);
    const Vector6d A = randomVectorX(rng, 6, -1.0, 1.0);
    f.setRelativeSpatialVelocity(V);
    f.setRelativeSpatialAcceleration(A);
    ARTICULA_VERIFY_NEAR_MSG(f.getRelativeSpatialVelocity(), V, 0.0, "relative velocity round trip");
    ARTICULA_VERIFY_NEAR_MSG(f.getRelativeSpatialAcceleration(), A, 0.0, "relative acceleration round trip");
    // The relative twist is the velocity relative to the parent in the frame's coordinates.
    ARTICULA_VERIFY_NEAR_MSG(f.getAngularVelocity(parent, f), Vector3d(V.head<3>()), 1e-12, "ω relative to parent");
    ARTICULA_VERIFY_NEAR_MSG(f.getLinearVelocity(parent, f), Vector3d(V.tail<3>()), 1e-12, "v relative to parent");
    ARTICULA_VERIFY_NEAR_MSG(f.getSpatialVelocity(parent, f), V, 1e-12, "twist relative to parent");
  }

  // A free frame with a constant relative twist V moves as X(t) = X0·exp(tV):
  // the velocity reported at X(t) is the derivative of that exact curve.
  void freeFrameConstantTwistFollowsExponential() {
    std::mt19937 rng(3100u);
    World world;
    FreeFrame parent = world.addFreeFrame("parent", Frame::World(), randomTransform(rng, 1.0));
    FreeFrame f = world.addFreeFrame("f", parent, Isometry3d::Identity());
    const double h = 1e-6;
    for (int trial = 0; trial < 5; ++trial) {
      const Isometry3d X0 = randomTransform(rng, 1.0);
      const Vector6d V = randomVectorX(rng, 6, -2.0, 2.0);
      const double t = uniform(rng, -1.5, 1.5);
      auto poseAt = [&](double time) { return Isometry3d(X0 * expSE3(time * V)); };
      f.setRelativeTransform(poseAt(t));
      f.setRelativeSpatialVelocity(V);
      f.setRelativeSpatialAcceleration(Vector6d::Zero());
      const Isometry3d Xp = poseAt(t + h);
      const Isometry3d Xm = poseAt(t - h);
      const Vector3d pdot = (Xp.translation() - Xm.translation()) / (2.0 * h);
      const Vector3d w = logSO3(Xp.linear() * Xm.linear().transpose()) / (2.0 * h);
      const QString ctx = QString("trial %1").arg(trial);
      ARTICULA_VERIFY_NEAR_MSG(f.getLinearVelocity(parent, parent), pdot, 1e-7, ctx + " ṗ_PF in P");
      ARTICULA_VERIFY_NEAR_MSG(f.getAngularVelocity(parent, parent), w, 1e-7, ctx + " ω_PF in P");
      // Constant twist: the acceleration observed from the parent is d/dt of R_PF v.
      const Vector3d expectedAcc = poseAt(t).linear() * V.head<3>().cross(V.tail<3>());
      ARTICULA_VERIFY_NEAR_MSG(f.getLinearAcceleration(parent, parent), expectedAcc, 1e-12, ctx + " p̈_PF in P");
      ARTICULA_VERIFY_NEAR_MSG(f.getAngularAcceleration(parent, parent), Vector3d::Zero(), 1e-12, ctx + " ω̇_PF");
    }
  }

  // A fixed frame moves rigidly with its link.
  void fixedFrameFollowsLink() {
    auto s = makeScene(41u);
    std::mt19937 rng(4100u);
    const Link link = s->tree.links[6];
    const Isometry3d X_LF = randomTransform(rng, 0.5);
    const FixedFrame f = s->tree.world->addFixedFrame("fixed6", link, X_LF);
    QCOMPARE(static_cast<int>(f.kind()), static_cast<int>(FrameKind::FixedFrame));
    QVERIFY2(f.getParentFrame() == Frame(link), "parent of a fixed frame");
    ARTICULA_VERIFY_NEAR_MSG(f.getRelativeTransform().matrix(), X_LF.matrix(), 1e-15, "relative transform");
    const Isometry3d X_FF2 = randomTransform(rng, 0.5);
    const FixedFrame f2 = s->tree.world->addFixedFrame("fixedOnFixed", f, X_FF2);
    for (int trial = 0; trial < 4; ++trial) {
      const QString ctx = QString("trial %1").arg(trial);
      s->tree.mb.setPositions(randomPositions(rng, s->tree.mb));
      s->tree.mb.setVelocities(randomVectorX(rng, s->tree.mb.numDofs(), -2.0, 2.0));
      s->tree.mb.setAccelerations(randomVectorX(rng, s->tree.mb.numDofs(), -2.0, 2.0));
      const Isometry3d X_WL = link.getWorldTransform();
      ARTICULA_VERIFY_NEAR_MSG(f.getWorldTransform().matrix(), Eigen::Matrix4d((X_WL * X_LF).matrix()), 1e-12,
                               ctx + " X_WF = X_WL X_LF");
      ARTICULA_VERIFY_NEAR_MSG(f2.getWorldTransform().matrix(), Eigen::Matrix4d((X_WL * X_LF * X_FF2).matrix()), 1e-12,
                               ctx + " nested fixed frame");
      ARTICULA_VERIFY_NEAR_MSG(f.getTransform(link).matrix(), X_LF.matrix(), 1e-12, ctx + " X_LF");
      const Vector3d r = randomVector(rng, -0.5, 0.5);  // point of F
      const Vector3d rL = X_LF * r;                     // the same point in L
      ARTICULA_VERIFY_NEAR_MSG(f.getAngularVelocity(), link.getAngularVelocity(), 1e-12, ctx + " ω");
      ARTICULA_VERIFY_NEAR_MSG(f.getLinearVelocity(r), link.getLinearVelocity(rL), 1e-12, ctx + " point velocity");
      ARTICULA_VERIFY_NEAR_MSG(f.getAngularAcceleration(), link.getAngularAcceleration(), 1e-12, ctx + " α");
      ARTICULA_VERIFY_NEAR_MSG(f.getLinearAcceleration(r), link.getLinearAcceleration(rL), 1e-12,
                               ctx + " point acceleration");
      ARTICULA_VERIFY_NEAR_MSG(f.getLinearVelocity(r, link, link), Vector3d::Zero(), 1e-12,
                               ctx + " no motion relative to L");
      ARTICULA_VERIFY_NEAR_MSG(f.getLinearAcceleration(r, link, f), Vector3d::Zero(), 1e-12,
                               ctx + " no acceleration relative to L");
      // Body twist of F: [R_FL ω_L; R_FL (v_L + ω_L × p_LF)] in L's body coordinates.
      const Vector6d VL = link.getSpatialVelocity();
      const Matrix3d R_FL = X_LF.linear().transpose();
      const Vector6d expected =
          stack(R_FL * VL.head<3>(), R_FL * (VL.tail<3>() + VL.head<3>().cross(X_LF.translation())));
      ARTICULA_VERIFY_NEAR_MSG(f.getSpatialVelocity(), expected, 1e-12, ctx + " body twist of a fixed frame");
    }
  }

  // getSpatialVelocity/getSpatialAcceleration agree with the 3-vector queries.
  void spatialQueriesMatchComponents() {
    auto s = makeScene(51u);
    const double h = 1e-6;
    for (const NamedFrame& b : s->frames) {
      for (const NamedFrame& a : s->frames) {
        for (const NamedFrame& c : {s->frames[0], s->frames[2], s->frames[5], b}) {
          const QString ctx = b.name + " rel. " + a.name + " in " + c.name;
          ARTICULA_VERIFY_NEAR_MSG(
              b.frame.getSpatialVelocity(a.frame, c.frame),
              stack(b.frame.getAngularVelocity(a.frame, c.frame), b.frame.getLinearVelocity(a.frame, c.frame)), 1e-12,
              ctx + ": spatial velocity vs components");
        }
      }
      ARTICULA_VERIFY_NEAR_MSG(b.frame.getSpatialVelocity(),
                               stack(b.frame.getAngularVelocity(Frame::World(), b.frame),
                                     b.frame.getLinearVelocity(Frame::World(), b.frame)),
                               1e-12, b.name + ": body twist");
    }
    // Body-twist derivative: ω̇ = R_FW α_W, classical acceleration R (v̇ + ω × v),
    // and the finite difference of the body twist along the trajectory.
    std::vector<Vector6d> plus, minus;
    s->apply(h);
    for (const NamedFrame& f : s->frames) plus.push_back(f.frame.getSpatialVelocity());
    s->apply(-h);
    for (const NamedFrame& f : s->frames) minus.push_back(f.frame.getSpatialVelocity());
    s->apply(0.0);
    for (std::size_t k = 0; k < s->frames.size(); ++k) {
      const NamedFrame& f = s->frames[k];
      if (!f.hasAcceleration) continue;
      const Matrix3d R = f.frame.getWorldTransform().linear();
      const Vector6d V = f.frame.getSpatialVelocity();
      const Vector6d A = f.frame.getSpatialAcceleration();
      ARTICULA_VERIFY_NEAR_MSG(Vector3d(A.head<3>()), Vector3d(R.transpose() * f.frame.getAngularAcceleration()), 1e-12,
                               f.name + ": ω̇ body");
      ARTICULA_VERIFY_NEAR_MSG(Vector3d(R * (A.tail<3>() + V.head<3>().cross(V.tail<3>()))),
                               f.frame.getLinearAcceleration(), 1e-12, f.name + ": classical acceleration");
      ARTICULA_VERIFY_NEAR_MSG(A, Vector6d((plus[k] - minus[k]) / (2.0 * h)), 1e-6,
                               f.name + ": body-twist derivative vs finite differences");
    }
    // A free frame attached to the world reports its own relative motion.
    const FreeMotion& m = s->freeMotions[1];
    ARTICULA_VERIFY_NEAR_MSG(m.frame.getSpatialVelocity(), m.V, 1e-12, "free frame on world: twist");
    ARTICULA_VERIFY_NEAR_MSG(m.frame.getSpatialAcceleration(), m.A, 1e-12, "free frame on world: acceleration");
  }

  // Velocity of B (point r) relative to A = derivative of the position of
  // the point in A's coordinates; angular velocity from the relative rotation.
  void relativeVelocityMatchesFiniteDifferences() {
    for (std::uint32_t seed : {61u, 62u}) {
      auto s = makeScene(seed);
      std::mt19937 rng(seed * 100u);
      const double h = 1e-6;
      const std::size_t n = s->frames.size();
      std::vector<Vector3d> offsets;
      for (std::size_t k = 0; k < n; ++k) offsets.push_back(randomVector(rng, -0.5, 0.5));
      auto record = [&](double t) {
        s->apply(t);
        std::vector<std::vector<Isometry3d>> X(n, std::vector<Isometry3d>(n));
        for (std::size_t a = 0; a < n; ++a)
          for (std::size_t b = 0; b < n; ++b) X[a][b] = s->frames[b].frame.getTransform(s->frames[a].frame);
        return X;
      };
      const auto Xp = record(h);
      const auto Xm = record(-h);
      s->apply(0.0);
      for (std::size_t a = 0; a < n; ++a) {
        const Frame& A = s->frames[a].frame;
        for (std::size_t b = 0; b < n; ++b) {
          const Frame& B = s->frames[b].frame;
          const Vector3d& r = offsets[b];
          const QString ctx = QString("seed %1: %2 rel. %3").arg(seed).arg(s->frames[b].name).arg(s->frames[a].name);
          const Vector3d pdot = (Xp[a][b] * r - Xm[a][b] * r) / (2.0 * h);
          const Vector3d w = logSO3(Xp[a][b].linear() * Xm[a][b].linear().transpose()) / (2.0 * h);
          const Vector3d origindot = (Xp[a][b].translation() - Xm[a][b].translation()) / (2.0 * h);
          ARTICULA_VERIFY_NEAR_MSG(B.getLinearVelocity(r, A, A), pdot, 1e-6, ctx + " point velocity in A");
          ARTICULA_VERIFY_NEAR_MSG(B.getLinearVelocity(A, A), origindot, 1e-6, ctx + " origin velocity in A");
          ARTICULA_VERIFY_NEAR_MSG(B.getAngularVelocity(A, A), w, 1e-6, ctx + " angular velocity in A");
          // Re-expressed in a third frame C: R_CA times the same vector.
          const Frame& C = s->frames[(a + b + 3) % n].frame;
          const Matrix3d R_CA = A.getTransform(C).linear();
          ARTICULA_VERIFY_NEAR_MSG(B.getLinearVelocity(r, A, C), Vector3d(R_CA * pdot), 1e-6,
                                   ctx + " point velocity in C");
          ARTICULA_VERIFY_NEAR_MSG(B.getAngularVelocity(A, C), Vector3d(R_CA * w), 1e-6,
                                   ctx + " angular velocity in C");
          ARTICULA_VERIFY_NEAR_MSG(B.getSpatialVelocity(A, C), stack(R_CA * w, R_CA * origindot), 1e-6,
                                   ctx + " spatial velocity in C");
        }
      }
    }
  }

  // Acceleration of B (point r) observed from A = derivative of the relative
  // velocity in A's coordinates (A may rotate and accelerate).
  void relativeAccelerationMatchesFiniteDifferences() {
    for (std::uint32_t seed : {71u, 72u}) {
      auto s = makeScene(seed);
      std::mt19937 rng(seed * 100u);
      const double h = 1e-5;
      const std::size_t n = s->frames.size();
      std::vector<Vector3d> offsets;
      for (std::size_t k = 0; k < n; ++k) offsets.push_back(randomVector(rng, -0.5, 0.5));
      struct Rel {
        Vector3d v, w;
      };
      auto record = [&](double t) {
        s->apply(t);
        std::vector<std::vector<Rel>> R(n, std::vector<Rel>(n));
        for (std::size_t a = 0; a < n; ++a) {
          for (std::size_t b = 0; b < n; ++b) {
            const Frame& A = s->frames[a].frame;
            const Frame& B = s->frames[b].frame;
            R[a][b] = {B.getLinearVelocity(offsets[b], A, A), B.getAngularVelocity(A, A)};
          }
        }
        return R;
      };
      const auto Rp = record(h);
      const auto Rm = record(-h);
      s->apply(0.0);
      for (std::size_t a = 0; a < n; ++a) {
        if (!s->frames[a].hasAcceleration) continue;
        const Frame& A = s->frames[a].frame;
        for (std::size_t b = 0; b < n; ++b) {
          if (!s->frames[b].hasAcceleration) continue;
          const Frame& B = s->frames[b].frame;
          const QString ctx = QString("seed %1: %2 rel. %3").arg(seed).arg(s->frames[b].name).arg(s->frames[a].name);
          const Vector3d acc = (Rp[a][b].v - Rm[a][b].v) / (2.0 * h);
          const Vector3d alpha = (Rp[a][b].w - Rm[a][b].w) / (2.0 * h);
          ARTICULA_VERIFY_NEAR_MSG(B.getLinearAcceleration(offsets[b], A, A), acc, 1e-6,
                                   ctx + " point acceleration in A vs finite differences");
          ARTICULA_VERIFY_NEAR_MSG(B.getAngularAcceleration(A, A), alpha, 1e-6,
                                   ctx + " angular acceleration in A vs finite differences");
          const Frame& C = s->frames[(a + 2 * b + 1) % n].frame;
          const Matrix3d R_CA = A.getTransform(C).linear();
          ARTICULA_VERIFY_NEAR_MSG(B.getLinearAcceleration(offsets[b], A, C), Vector3d(R_CA * acc), 1e-6,
                                   ctx + " point acceleration in C");
          ARTICULA_VERIFY_NEAR_MSG(B.getAngularAcceleration(A, C), Vector3d(R_CA * alpha), 1e-6,
                                   ctx + " angular acceleration in C");
        }
      }
    }
  }

  // The same accelerations from world-frame quantities and the
  // non-inertial-frame formula.
  void relativeAccelerationMatchesTransportFormula() {
    for (std::uint32_t seed : {81u, 82u, 83u}) {
      auto s = makeScene(seed);
      std::mt19937 rng(seed * 100u);
      for (const NamedFrame& na : s->frames) {
        if (!na.hasAcceleration) continue;
        const Frame& A = na.frame;
        const Vector3d pA = A.getWorldTransform().translation();
        const Vector3d wA = A.getAngularVelocity();
        const Vector3d vA = A.getLinearVelocity();
        const Vector3d alphaA = A.getAngularAcceleration();
        const Vector3d aA = A.getLinearAcceleration();
        const Matrix3d R_WA = A.getWorldTransform().linear();
        for (const NamedFrame& nb : s->frames) {
          if (!nb.hasAcceleration) continue;
          const Frame& B = nb.frame;
          const QString ctx = QString("seed %1: %2 rel. %3").arg(seed).arg(nb.name).arg(na.name);
          const Vector3d r = randomVector(rng, -0.5, 0.5);
          const Vector3d p = B.getWorldTransform() * r - pA;
          const Vector3d vRel = B.getLinearVelocity(r) - vA - wA.cross(p);
          const Vector3d aRel =
              B.getLinearAcceleration(r) - aA - alphaA.cross(p) - 2.0 * wA.cross(vRel) - wA.cross(wA.cross(p));
          const Vector3d wRel = B.getAngularVelocity() - wA;
          const Vector3d alphaRel = B.getAngularAcceleration() - alphaA - wA.cross(B.getAngularVelocity());
          ARTICULA_VERIFY_NEAR_MSG(B.getLinearVelocity(r, A, Frame::World()), vRel, 1e-10,
                                   ctx + " v_BA (world coords)");
          ARTICULA_VERIFY_NEAR_MSG(Vector3d(R_WA * B.getLinearVelocity(r, A, A)), vRel, 1e-10,
                                   ctx + " v_BA (A coords)");
          ARTICULA_VERIFY_NEAR_MSG(B.getAngularVelocity(A, Frame::World()), wRel, 1e-10, ctx + " ω_BA");
          ARTICULA_VERIFY_NEAR_MSG(B.getLinearAcceleration(r, A, Frame::World()), aRel, 1e-10,
                                   ctx + " a_BA (world coords) vs transport formula");
          ARTICULA_VERIFY_NEAR_MSG(Vector3d(R_WA * B.getLinearAcceleration(r, A, A)), aRel, 1e-10,
                                   ctx + " a_BA (A coords) vs transport formula");
          ARTICULA_VERIFY_NEAR_MSG(B.getAngularAcceleration(A, Frame::World()), alphaRel, 1e-10,
                                   ctx + " α_BA vs α_B − α_A − ω_A × ω_B");
        }
      }
    }
  }
};

QTEST_APPLESS_MAIN(FrameTest)
#include "test_frames.moc"

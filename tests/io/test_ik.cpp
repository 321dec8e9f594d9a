// Inverse kinematics (articula/ik.hpp) on real robots and on closed chains.
//
// Targets come from forward kinematics of random in-limit configurations,
// so every one is reachable; the UR5's solutions are checked against its
// closed-form inverse kinematics (tests/engine/ur_analytic_ik.hpp); closure
// residuals, pinned feet and limits are measured, not assumed.

#include "../engine/ur_analytic_ik.hpp"
#include "builtin_scenes.hpp"
#include "models.hpp"
#include "robot_poses.hpp"
#include "test_helpers.hpp"

#include <articula/articula.hpp>
#include <articula/ik.hpp>
#include <articula/io/import.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <random>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kRobots = articula::test::modelsPath() / "example-robot-data" / "robots";

io::ImportOptions options(io::RootAttachment root) {
  return articula::test::robotImportOptions(root);
}

using articula::test::frameNamed;
using articula::test::randomConfiguration;

// Every limited coordinate inside its limits (exactly: the solver never
// crosses a limit, and round-off is clamped).
bool withinLimits(const World& world, const VectorXd& q, std::string* which) {
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Joint& j : mb.getJoints()) {
      if (j.numDofs() != j.numPositions()) continue;
      const JointSpec s = j.getSpec();
      for (int k = 0; k < j.numDofs(); ++k) {
        const double x = q[j.positionOffset() + k];
        if ((s.positionLowerLimits.size() > k && x < s.positionLowerLimits[k]) ||
            (s.positionUpperLimits.size() > k && x > s.positionUpperLimits[k])) {
          *which = j.name() + " = " + std::to_string(x);
          return false;
        }
      }
    }
  }
  return true;
}

double angleBetween(const Isometry3d& a, const Isometry3d& b) {
  return Eigen::AngleAxisd(a.linear().transpose() * b.linear()).angle();
}

struct TrialStats {
  int reached = 0;
  int limitViolations = 0;
  int closedFormMismatches = 0;
  double worstPosition = 0.0, worstOrientation = 0.0;
  int iterations = 0;
};

}  // namespace

class TestIk : public QObject {
  Q_OBJECT

  // 1,000 random reachable pose targets of `tip` from the file's initial state.
  TrialStats randomTargets(World& world, const std::string& tip, const std::string& dhBase = {}) {
    IkOptions opt;
    opt.maxRestarts = 30;
    InverseKinematics ik(world, opt);
    const Frame frame = frameNamed(world, tip);
    const int task = ik.addPoseTask(frame, Isometry3d::Identity());
    const VectorXd q0 = world.getPositions();
    std::mt19937_64 rng(7);
    TrialStats s;
    VectorXd q;
    for (int trial = 0; trial < 1000; ++trial) {
      world.setPositions(randomConfiguration(world, rng));
      const Isometry3d target = frame.getWorldTransform();
      world.setPositions(q0);
      ik.setTarget(task, target);
      const IkResult& r = ik.solve(q0, q);
      world.setPositions(q);
      const Isometry3d got = frame.getWorldTransform();
      const double ep = (got.translation() - target.translation()).norm();
      const double eo = angleBetween(got, target);
      s.iterations += r.iterations;
      if (r.converged && ep <= 1e-6 && eo <= 1e-6) {
        ++s.reached;
        s.worstPosition = std::max(s.worstPosition, ep);
        s.worstOrientation = std::max(s.worstOrientation, eo);
      }
      std::string which;
      if (!withinLimits(world, q, &which)) {
        ++s.limitViolations;
        qWarning("limit violated: %s", which.c_str());
      }
      if (!dhBase.empty() && r.converged) {
        // The solution is one of the closed-form solutions of the pose of
        // tool0 in the DH base frame `base`.
        const Isometry3d T06 = frameNamed(world, dhBase).getWorldTransform().inverse() * got;
        const auto sols = articula::test::urInverse(articula::test::kUr5, T06);
        if (!articula::test::urMatchesSolution(sols, q.head(6), 1e-6)) ++s.closedFormMismatches;
      }
    }
    world.setPositions(q0);
    return s;
  }

 private slots:
  void ur5ReachesRandomTargetsWithClosedFormSolutions() {
    World world;
    io::importUrdf(world, kRobots / "ur_description" / "urdf" / "ur5_robot.urdf", options(io::RootAttachment::Fixed));
    QCOMPARE(world.numPositions(), 6);
    // The DH model matches the URDF: forward kinematics agree (the premise of the check).
    std::mt19937_64 rng(3);
    for (int i = 0; i < 20; ++i) {
      const VectorXd q = randomConfiguration(world, rng);
      world.setPositions(q);
      const Isometry3d X =
          frameNamed(world, "base").getWorldTransform().inverse() * frameNamed(world, "tool0").getWorldTransform();
      const Isometry3d D = articula::test::urForward(articula::test::kUr5, {q[0], q[1], q[2], q[3], q[4], q[5]});
      QVERIFY2((X.matrix() - D.matrix()).norm() < 1e-9, "URDF and DH forward kinematics differ");
    }
    world.setPositions(VectorXd::Zero(6));
    const TrialStats s = randomTargets(world, "tool0", "base");
    qInfo("UR5: %d/1000 reached (worst %.2e m, %.2e rad), %d iterations in all, %d not closed-form", s.reached,
          s.worstPosition, s.worstOrientation, s.iterations, s.closedFormMismatches);
    QVERIFY2(s.reached >= 990, qPrintable(QString("only %1 of 1000 reached").arg(s.reached)));
    QCOMPARE(s.limitViolations, 0);
    QCOMPARE(s.closedFormMismatches, 0);
  }

  void pandaReachesRandomTargets() {
    World world;
    io::importUrdf(world, kRobots / "panda_description" / "urdf" / "panda.urdf", options(io::RootAttachment::Fixed));
    const TrialStats s = randomTargets(world, "panda_hand");
    qInfo("Panda: %d/1000 reached (worst %.2e m, %.2e rad), %d iterations in all", s.reached, s.worstPosition,
          s.worstOrientation, s.iterations);
    QVERIFY2(s.reached >= 990, qPrintable(QString("only %1 of 1000 reached").arg(s.reached)));
    QCOMPARE(s.limitViolations, 0);
  }

  void talosReachesRandomHandTargets() {
    World world;
    io::importUrdf(world, kRobots / "talos_data" / "robots" / "talos_reduced.urdf", options(io::RootAttachment::Fixed));
    const TrialStats s = randomTargets(world, "gripper_left_base_link");
    qInfo("TALOS: %d/1000 reached (worst %.2e m, %.2e rad), %d iterations in all", s.reached, s.worstPosition,
          s.worstOrientation, s.iterations);
    QVERIFY2(s.reached >= 990, qPrintable(QString("only %1 of 1000 reached").arg(s.reached)));
    QCOMPARE(s.limitViolations, 0);
  }

  // A lower priority never changes a higher one's residual.
  void secondaryTaskLeavesPrimaryResidual() {
    World world;
    io::importUrdf(world, kRobots / "panda_description" / "urdf" / "panda.urdf", options(io::RootAttachment::Fixed));
    const Frame hand = frameNamed(world, "panda_hand");
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 20; ++trial) {
      // A reachable target, from a start near (not at) a configuration reaching it.
      const VectorXd qStar = randomConfiguration(world, rng);
      world.setPositions(qStar);
      const Vector3d target = hand.getWorldTransform().translation();
      VectorXd q0 = qStar;
      std::normal_distribution<double> noise(0.0, 0.15);
      for (int i = 0; i < q0.size(); ++i) q0[i] += noise(rng);
      InverseKinematics primaryOnly(world);
      IkTaskOptions p;
      p.priority = 0;
      primaryOnly.addPositionTask(hand, target, p);
      VectorXd qa, qb;
      const double ra = primaryOnly.solve(q0, qa).tasks[0].position;
      InverseKinematics both(world);
      both.addPositionTask(hand, target, p);
      IkTaskOptions s;
      s.priority = 1;
      // Conflicting: an orientation the arm cannot take at that position, and a posture.
      both.addOrientationTask(hand, Eigen::AngleAxisd(2.0, Vector3d(1, 1, 0).normalized()).toRotationMatrix(), s);
      both.addPostureTask(VectorXd::Constant(world.numPositions(), 0.3));
      const IkResult& r = both.solve(q0, qb);
      const double rb = r.tasks[0].position;
      QVERIFY2(
          ra <= 1e-10 && rb <= 1e-10 && std::abs(ra - rb) <= 1e-10,
          qPrintable(
              QString("trial %1: primary residual %2 alone, %3 with the secondary tasks").arg(trial).arg(ra).arg(rb)));
      // The secondary task did act: the hand turned towards its target.
      world.setPositions(qb);
      const double withSecondary = r.tasks[1].orientation;
      world.setPositions(qa);
      const Matrix3d Rt = Eigen::AngleAxisd(2.0, Vector3d(1, 1, 0).normalized()).toRotationMatrix();
      const double without = Eigen::AngleAxisd(hand.getWorldTransform().linear().transpose() * Rt).angle();
      QVERIFY2(withSecondary <= without + 1e-9, qPrintable(QString("trial %1").arg(trial)));
    }
  }

  // Dragging a closed chain by its coupler keeps every closure.
  void closedChainsFollowTheirCoupler() {
    for (const std::string scene : {"four-bar", "slider-crank"}) {
      World world;
      scenes::buildScene(world, scene);
      const std::string link = scene == "four-bar" ? "coupler" : "rod";
      const Frame coupler = frameNamed(world, link);
      InverseKinematics ik(world);
      IkTaskOptions o;
      o.offset = articula::test::translation(0.15, 0, 0);
      const Vector3d start = (coupler.getWorldTransform() * Vector3d(0.15, 0, 0));
      const int task = ik.addPositionTask(coupler, start, o);
      double worst = 0.0;
      double moved = 0.0;
      for (int k = 1; k <= 40; ++k) {
        // A drag: the target circles around the start, partly out of reach.
        const double a = 0.15 * k;
        const Vector3d target = start + 0.08 * Vector3d(std::cos(a) - 1.0, 0.0, std::sin(a));
        ik.setTargetPosition(task, target);
        ik.solve();
        for (const LoopClosure& c : world.getLoopClosures()) worst = std::max(worst, c.computeResidualNorm());
        moved = std::max(moved, (coupler.getWorldTransform() * Vector3d(0.15, 0, 0) - start).norm());
      }
      qInfo("%s: worst closure residual %.2e over 40 drag steps; the coupler point moved up to %.3f m", scene.c_str(),
            worst, moved);
      QVERIFY2(worst <= 1e-9, scene.c_str());
      QVERIFY(moved > 0.02);
    }
  }

  // TALOS on a free root, both feet pinned: hand targets are reached and the
  // feet stay where they were.
  void talosWithPinnedFeetReachesHandTargets() {
    World world;
    io::importUrdf(world, kRobots / "talos_data" / "robots" / "talos_reduced.urdf",
                   options(io::RootAttachment::Floating));
    const Frame left = frameNamed(world, "left_sole_link");
    const Frame right = frameNamed(world, "right_sole_link");
    const Frame hand = frameNamed(world, "gripper_left_base_link");
    const Isometry3d leftAt = left.getWorldTransform();
    const Isometry3d rightAt = right.getWorldTransform();
    InverseKinematics ik(world);
    ik.pin(left);
    ik.pin(right);
    const Isometry3d handAt = hand.getWorldTransform();
    const int task = ik.addPoseTask(hand, handAt);
    ik.addPostureTask(world.getPositions());
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-0.12, 0.12);
    int reached = 0;
    double feet = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
      Isometry3d target = handAt;
      target.translation() += Vector3d(u(rng), u(rng), u(rng));
      ik.setTarget(task, target);
      const IkResult& r = ik.solve();
      const Isometry3d got = hand.getWorldTransform();
      if (r.converged && (got.translation() - target.translation()).norm() <= 1e-6 && angleBetween(got, target) <= 1e-6)
        ++reached;
      else
        qWarning("trial %d: %s after %d iterations (hand %.2e m, %.2e rad)", trial, r.message.c_str(), r.iterations,
                 (got.translation() - target.translation()).norm(), angleBetween(got, target));
      feet = std::max({feet, (left.getWorldTransform().matrix() - leftAt.matrix()).norm(),
                       (right.getWorldTransform().matrix() - rightAt.matrix()).norm()});
      std::string which;
      QVERIFY2(withinLimits(world, world.getPositions(), &which), which.c_str());
    }
    qInfo("TALOS, feet pinned: %d/20 hand targets reached; feet moved at most %.2e", reached, feet);
    QCOMPARE(reached, 20);
    QVERIFY(feet <= 1e-9);
  }

  // postureIterations: once the tasks are reached the posture moves towards
  // its target, with the tasks still reached.
  void postureIterationsKeepTheTasks() {
    World world;
    io::importUrdf(world, kRobots / "talos_data" / "robots" / "talos_reduced.urdf",
                   options(io::RootAttachment::Floating));
    const Frame hand = frameNamed(world, "gripper_left_base_link");
    const VectorXd q0 = world.getPositions();
    Isometry3d target = hand.getWorldTransform();
    target.translation() += Vector3d(0.05, 0.08, 0.12);
    std::map<int, double> postureError;
    for (int polish : {0, 30, 300}) {
      IkOptions o;
      o.postureIterations = polish;
      InverseKinematics ik(world, o);
      ik.pin(frameNamed(world, "left_sole_link"));
      ik.pin(frameNamed(world, "right_sole_link"));
      ik.addPoseTask(hand, target);
      ik.addPostureTask(q0);
      VectorXd q;
      const IkResult& r = ik.solve(q0, q);
      QVERIFY2(r.converged, r.message.c_str());
      for (int t = 0; t < 3; ++t) QVERIFY(r.tasks[static_cast<std::size_t>(t)].reached);
      postureError[polish] = r.tasks[3].norm;
    }
    qInfo("posture error %.4f rad without, %.4f with 30 and %.4f with 300 posture iterations", postureError[0],
          postureError[30], postureError[300]);
    // Closer to the posture, and 30 iterations get near the constrained optimum.
    QVERIFY(postureError[30] < postureError[0] - 0.01);
    QVERIFY(std::abs(postureError[30] - postureError[300]) < 0.005);
  }

  // A target given in a frame that moves with the robot is relative: the
  // left hand held in front of the torso while the torso is turned by a
  // higher-priority orientation task; an orientation-only task.
  void relativeAndOrientationTasks() {
    World world;
    io::importUrdf(world, kRobots / "talos_data" / "robots" / "talos_reduced.urdf", options(io::RootAttachment::Fixed));
    const Frame torso = frameNamed(world, "torso_2_link");
    const Frame hand = frameNamed(world, "gripper_left_base_link");
    InverseKinematics ik(world);
    IkTaskOptions high;
    high.priority = 0;
    const Matrix3d turned =
        Eigen::AngleAxisd(0.3, Vector3d::UnitZ()).toRotationMatrix() * torso.getWorldTransform().linear();
    ik.addOrientationTask(torso, turned, high);
    IkTaskOptions relative;
    relative.targetFrame = torso;
    relative.offset = articula::test::translation(0.0, 0.0, -0.05);  // a point 5 cm along the gripper's -z
    const Vector3d inFront(0.35, 0.1, -0.05);
    ik.addPositionTask(hand, inFront, relative);
    const IkResult& r = ik.solve();
    QVERIFY2(r.converged, r.message.c_str());
    const Isometry3d T = torso.getWorldTransform();
    QVERIFY(Eigen::AngleAxisd(T.linear().transpose() * turned).angle() < 1e-9);
    const Vector3d point = hand.getWorldTransform() * Vector3d(0.0, 0.0, -0.05);
    QVERIFY2((T.inverse() * point - inFront).norm() < 1e-9, qPrintable(articula::test::xyz(T.inverse() * point)));
  }

  // Restarts randomize only the joints that move a task; a task whose frame
  // cannot move says so.
  void restartsLeaveUnrelatedJoints() {
    World world;
    io::importUrdf(world, kRobots / "talos_data" / "robots" / "talos_reduced.urdf", options(io::RootAttachment::Fixed));
    IkOptions o;
    o.maxRestarts = 5;
    InverseKinematics ik(world, o);
    ik.addPositionTask(frameNamed(world, "gripper_left_base_link"), Vector3d(0.3, 0.4, 1.5));  // out of reach
    const VectorXd q0 = world.getPositions();
    VectorXd q;
    const IkResult& r = ik.solve(q0, q);
    QVERIFY(!r.converged);
    QCOMPARE(r.restarts, 5);
    const Multibody mb = world.getMultibodies().front();
    for (const Joint& j : mb.getJoints()) {
      const std::string name = j.name();
      const bool onChain = name.rfind("arm_left_", 0) == 0 || name.rfind("torso_", 0) == 0;
      if (onChain || j.numPositions() == 0) continue;
      QVERIFY2(q[j.positionOffset()] == q0[j.positionOffset()], name.c_str());
    }
    InverseKinematics welded(world);
    welded.addPositionTask(frameNamed(world, "base_link"), Vector3d(1, 0, 0));
    const IkResult& w = welded.solve(q0, q);
    QVERIFY(!w.converged);
    QVERIFY2(w.message.find("can move") != std::string::npos, w.message.c_str());
  }

  // The function form leaves the world alone and agrees with the in-place solve.
  void solveAsFunctionDoesNotTouchTheWorld() {
    World world;
    io::importUrdf(world, kRobots / "ur_description" / "urdf" / "ur5_robot.urdf", options(io::RootAttachment::Fixed));
    world.setPositions((VectorXd(6) << 0.1, -1.0, 1.2, -0.5, 0.4, 0.2).finished());
    const VectorXd before = world.getPositions();
    InverseKinematics ik(world);
    ik.addPositionTask(frameNamed(world, "tool0"), Vector3d(0.3, 0.3, 0.4));
    VectorXd q;
    const bool converged = ik.solve(before, q).converged;
    QVERIFY(converged);
    QCOMPARE(world.getPositions(), before);
    ik.solve();
    QVERIFY((world.getPositions() - q).norm() < 1e-12);
  }

  void lockedJointsAndCenterOfMass() {
    World world;
    io::importUrdf(world, kRobots / "panda_description" / "urdf" / "panda.urdf", options(io::RootAttachment::Fixed));
    Multibody mb = world.getMultibodies().front();
    const Joint j1 = mb.getLink("panda_link1")->getParentJoint();
    const double q1 = j1.getPosition(0);
    IkOptions restarts;
    restarts.maxRestarts = 10;
    InverseKinematics ik(world, restarts);
    ik.setLocked(j1);
    ik.addPositionTask(frameNamed(world, "panda_hand"), Vector3d(0.3, 0.0, 0.5));
    QVERIFY(ik.solve().converged);
    QCOMPARE(j1.getPosition(0), q1);
    // Centre of mass of the arm moved sideways within reach.
    InverseKinematics com(world);
    const Vector3d c0 = mb.getCOM();
    const Vector3d target = c0 + Vector3d(0.03, 0.02, -0.02);
    com.addCenterOfMassTask(target, mb);
    const IkResult& r = com.solve();
    QVERIFY2(r.converged, r.message.c_str());
    QVERIFY((mb.getCOM() - target).norm() < 1e-6);
  }

  void floatingBodiesUseTheirLieGroup() {
    World world;
    RigidBody box = world.addRigidBody("box");
    Multibody mb = world.addMultibody("ball_chain");
    Link a = mb.addLink({"a", Inertia::box(1.0, {0.1, 0.1, 0.4})}, JointSpec::ball().named("ball"));
    InverseKinematics ik(world);
    const Isometry3d target = articula::test::pose(
        Eigen::AngleAxisd(2.5, Vector3d(0.3, -1, 0.2).normalized()).toRotationMatrix(), Vector3d(1, 2, 3));
    ik.addPoseTask(box, target);
    IkTaskOptions o;
    o.offset = articula::test::translation(0, 0, -0.4);
    ik.addPositionTask(a, Vector3d(0.0, 0.4, 0.0), o);
    const IkResult& r = ik.solve();
    QVERIFY2(r.converged, r.message.c_str());
    QVERIFY((box.getWorldTransform().matrix() - target.matrix()).norm() < 1e-8);
    QVERIFY((a.getWorldTransform() * Vector3d(0, 0, -0.4) - Vector3d(0, 0.4, 0)).norm() < 1e-8);
    // Unit quaternions: normalising them again changes nothing.
    const VectorXd q = world.getPositions();
    world.setPositions(q);
    QVERIFY((world.getPositions() - q).norm() < 1e-12);
  }

  void badInputIsRefused() {
    World world;
    RigidBody box = world.addRigidBody("box");
    InverseKinematics ik(world);
    IkTaskOptions o;
    o.weight = -1.0;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, ik.addPositionTask(box, Vector3d::Zero(), o));
    QVERIFY_THROWS_EXCEPTION(InvalidHandle, ik.addPositionTask(Frame(), Vector3d::Zero()));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, ik.setTargetPosition(42, Vector3d::Zero()));
    const int t = ik.addPostureTask(VectorXd::Zero(3));
    VectorXd q;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, ik.solve(world.getPositions(), q));  // 3 targets for 7 coordinates
    ik.removeTask(t);
    const int p = ik.addPositionTask(box, Vector3d(1, 0, 0));
    world.remove(box);
    QVERIFY_THROWS_EXCEPTION(InvalidHandle, ik.solve());
    ik.removeTask(p);
  }
};

QTEST_MAIN(TestIk)
#include "test_ik.moc"

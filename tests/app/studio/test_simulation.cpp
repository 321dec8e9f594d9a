// The studio's simulation thread (app/studio/simulation.hpp): stepping,
// scrubbing and branching reproduce a headless World bit for bit, reset,
// divergence recovery, replay layout checks, the drag spring, joint servos
// and efforts against analytic values, pacing, play-back, and the timeline
// widget driving it.
#include "simulation.hpp"
#include "timeline_widget.hpp"

#include <articula/error.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/recording.hpp>
#include <articula/world.hpp>

#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::studio;

namespace {

const std::filesystem::path kScenes = std::filesystem::path(ARTICULA_SOURCE_DIR) / "scenes";

std::string readScene(const std::string& name) {
  std::ifstream in(kScenes / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A headless world loaded from the same text, in simulation mode.
std::unique_ptr<World> headless(const std::string& text) {
  auto world = std::make_unique<World>();
  io::loadSceneFromString(*world, text, "<design>", kScenes);
  world->enterSimulationMode();
  return world;
}

/// Whether two vectors hold the same doubles, bit for bit; names the first difference.
bool sameBits(const std::vector<double>& a, const VectorXd& b, QString* why) {
  if (a.size() != static_cast<std::size_t>(b.size())) {
    *why = QStringLiteral("sizes %1 and %2").arg(a.size()).arg(b.size());
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = b[static_cast<Eigen::Index>(i)];
    if (std::memcmp(&a[i], &x, sizeof x) != 0) {
      *why = QStringLiteral("entry %1: %2 vs %3").arg(i).arg(a[i], 0, 'g', 17).arg(x, 0, 'g', 17);
      return false;
    }
  }
  return true;
}

bool sameBits(const VectorXd& a, const VectorXd& b, QString* why) {
  return sameBits(std::vector<double>(a.data(), a.data() + a.size()), b, why);
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

const viewer::RenderSnapshot& shown(Simulation& sim) {
  sim.publisher().acquire();
  return sim.publisher().latest();
}

bool allFinite(const std::vector<double>& values) {
  for (double x : values) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

/// A free box, no gravity.
std::string boxScene(double mass) {
  World w;
  w.setGravity(Vector3d::Zero());
  RigidBodyOptions options;
  options.inertia = Inertia::box(mass, Vector3d(0.2, 0.3, 0.4));
  w.addRigidBody("box", options);
  return io::sceneToString(w);
}

/// One link on a revolute joint about y ("pendulum/hinge"), its centre of
/// mass at `com` along the link's x axis.
std::string pendulumScene(double mass, double com, double inertiaYY, const Vector3d& gravity, bool servo = false) {
  World w;
  w.setGravity(gravity);
  Multibody mb = w.addMultibody("pendulum");
  LinkOptions link;
  link.name = "arm";
  link.inertia.mass = mass;
  link.inertia.com = Vector3d(com, 0, 0);
  link.inertia.rotational = Vector3d(inertiaYY, inertiaYY, inertiaYY).asDiagonal();
  JointSpec hinge = JointSpec::revolute(Vector3d::UnitY());
  hinge.name = "hinge";
  mb.addLink(link, hinge);
  if (servo) {
    ActuatorSpec s;
    s.name = "servo";
    s.joint = "pendulum/hinge";
    s.type = ActuatorType::PositionServo;  // default gains: critically damped at 10 Hz
    w.addActuator(s);
  }
  return io::sceneToString(w);
}

}  // namespace

class TestSimulation : public QObject {
  Q_OBJECT

 private slots:
  void steppingMatchesHeadlessWorld() {
    const std::string text = readScene("four_bar.articula");
    Simulation sim;
    QVERIFY(!sim.isActive());
    sim.start(text, kScenes);
    QVERIFY(sim.isActive());
    QVERIFY(sim.description() != nullptr);
    QCOMPARE(sim.status().step, std::uint64_t{0});
    QCOMPARE(sim.status().frames, std::size_t{1});
    QVERIFY(!sim.status().playing);

    sim.step(1000);
    sim.waitIdle();
    QVERIFY(sim.status().active);
    QCOMPARE(sim.status().step, std::uint64_t{1000});
    QCOMPARE(sim.status().frames, std::size_t{1001});
    QVERIFY(!sim.status().shownFrame.has_value());

    auto world = headless(text);
    world->step(1000);
    const viewer::RenderSnapshot& s = shown(sim);
    QCOMPARE(s.step, std::uint64_t{1000});
    QCOMPARE(s.time, world->getTime());
    QString why;
    QVERIFY2(sameBits(s.positions, world->getPositions(), &why), qPrintable(why));
    QVERIFY2(sameBits(s.velocities, world->getVelocities(), &why), qPrintable(why));
    QCOMPARE(sim.status().time, world->getTime());
    QCOMPARE(sim.status().timeStep, world->getOptions().timeStep);
    QCOMPARE(sim.status().solverMethod, world->getOptions().solver.method);

    sim.stop();
    QVERIFY(!sim.isActive());
    QVERIFY(!sim.status().active);
    QVERIFY(sim.description() == nullptr);
  }

  void scrubShowsRecordedFrameAndBranches() {
    const std::string text = readScene("four_bar.articula");
    Simulation sim;
    sim.start(text, kScenes);
    sim.step(1000);
    sim.scrubTo(200);
    sim.waitIdle();
    QCOMPARE(sim.status().shownFrame, std::optional<std::size_t>(200));
    QCOMPARE(sim.status().step, std::uint64_t{200});
    QCOMPARE(sim.status().frames, std::size_t{1001});

    const Recording recording = sim.recordingCopy();
    QCOMPARE(recording.size(), std::size_t{1001});
    const RuntimeSnapshot frame = recording.snapshot(200);
    const viewer::RenderSnapshot& s = shown(sim);
    QCOMPARE(s.step, std::uint64_t{200});
    QString why;
    QVERIFY2(sameBits(s.positions, frame.state.positions, &why), qPrintable(why));
    QVERIFY2(sameBits(s.velocities, frame.state.velocities, &why), qPrintable(why));
    const double dt = sim.status().timeStep;
    QVERIFY(std::abs(s.time - 200 * dt) <= 1e-12);
    QCOMPARE(s.time, frame.state.time);

    // Stepping from the shown frame is a new branch: 200 + 100 steps.
    sim.step(100);
    sim.waitIdle();
    auto world = headless(text);
    world->step(300);
    const viewer::RenderSnapshot& b = shown(sim);
    QCOMPARE(b.step, std::uint64_t{300});
    QVERIFY2(sameBits(b.positions, world->getPositions(), &why), qPrintable(why));
    QVERIFY2(sameBits(b.velocities, world->getVelocities(), &why), qPrintable(why));
    QCOMPARE(sim.status().frames, std::size_t{301});
    QVERIFY(!sim.status().shownFrame.has_value());
    const Recording branched = sim.recordingCopy();
    QCOMPARE(branched.size(), std::size_t{301});
    QCOMPARE(branched.frameInfo(branched.size() - 1).step, std::uint64_t{300});
    QVERIFY2(sameBits(branched.snapshot(300).state.positions, world->getPositions(), &why), qPrintable(why));

    // Scrubbing clamps to the recording.
    sim.scrubTo(5000);
    sim.waitIdle();
    QCOMPARE(sim.status().shownFrame, std::optional<std::size_t>(300));
  }

  void resumeFromShownContinuesTheBranch() {
    const std::string text = readScene("four_bar.articula");
    Simulation sim;
    sim.start(text, kScenes);
    sim.setTargetRealTimeFactor(0.0);
    sim.step(400);
    sim.scrubTo(100);
    sim.resumeFromShown();
    // Until the thread has taken the command, status() still reports the
    // run to step 400, which would end the wait below at once.
    sim.waitIdle();
    QTRY_VERIFY(sim.status().step > 150);
    sim.pause();
    sim.waitIdle();
    QVERIFY(!sim.status().playing);
    const std::uint64_t steps = sim.status().step;
    QCOMPARE(sim.status().frames, static_cast<std::size_t>(steps + 1));
    auto world = headless(text);
    world->step(steps);
    QString why;
    QVERIFY2(sameBits(shown(sim).positions, world->getPositions(), &why), qPrintable(why));
  }

  // Reset shows recorded frame 0 again and discards the later frames; in a
  // live run frame 0 is the state at t = 0.
  void resetReturnsToTheStart() {
    const std::string text = readScene("four_bar.articula");
    Simulation sim;
    sim.start(text, kScenes);
    sim.step(250);
    sim.scrubTo(100);
    sim.reset();
    sim.waitIdle();
    QCOMPARE(sim.status().step, std::uint64_t{0});
    QCOMPARE(sim.status().time, 0.0);
    QCOMPARE(sim.status().frames, std::size_t{1});
    QVERIFY(!sim.status().shownFrame.has_value());
    QVERIFY(!sim.status().playing);
    auto world = headless(text);
    const viewer::RenderSnapshot& s = shown(sim);
    QCOMPARE(s.step, std::uint64_t{0});
    QVERIFY(sameBits(s.time, 0.0));
    QString why;
    QVERIFY2(sameBits(s.positions, world->getPositions(), &why), qPrintable(why));
    QVERIFY2(sameBits(s.velocities, world->getVelocities(), &why), qPrintable(why));
    const Recording kept = sim.recordingCopy();
    QCOMPARE(kept.size(), std::size_t{1});
    QCOMPARE(kept.frameInfo(0).step, std::uint64_t{0});
    QVERIFY2(sameBits(kept.snapshot(0).state.positions, world->getPositions(), &why), qPrintable(why));

    // And runs as from the start again.
    sim.step(50);
    sim.waitIdle();
    world->step(50);
    QVERIFY2(sameBits(shown(sim).positions, world->getPositions(), &why), qPrintable(why));
  }

  // After loading a replay, reset shows the replay's first frame, not the
  // design's initial state.
  void resetAfterAReplayShowsItsFirstFrame() {
    const std::string text = readScene("four_bar.articula");
    // A replay recorded from step 30 on: its frame 0 is not the initial state.
    auto source = headless(text);
    source->step(30);
    Recording replay;
    {
      Recorder recorder(*source);
      source->step(30);
      replay = recorder.recording();
    }
    QCOMPARE(replay.size(), std::size_t{31});
    QCOMPARE(replay.frameInfo(0).step, std::uint64_t{30});
    const RuntimeSnapshot first = replay.snapshot(0);
    QVERIFY(first.state.time > 0.0);

    Simulation sim;
    sim.start(text, kScenes, {}, replay);
    sim.scrubTo(20);
    sim.step(15);
    sim.waitIdle();
    QCOMPARE(sim.status().step, std::uint64_t{65});
    sim.reset();
    sim.waitIdle();
    QCOMPARE(sim.status().step, std::uint64_t{30});
    QVERIFY(sameBits(sim.status().time, first.state.time));
    QCOMPARE(sim.status().frames, std::size_t{1});
    QVERIFY(!sim.status().shownFrame.has_value());
    QVERIFY(!sim.status().playing);
    const viewer::RenderSnapshot& s = shown(sim);
    QCOMPARE(s.step, std::uint64_t{30});
    QVERIFY(sameBits(s.time, first.state.time));
    QString why;
    QVERIFY2(sameBits(s.positions, first.state.positions, &why), qPrintable(why));
    QVERIFY2(sameBits(s.velocities, first.state.velocities, &why), qPrintable(why));
    // The recording keeps only that frame.
    const Recording kept = sim.recordingCopy();
    QCOMPARE(kept.size(), std::size_t{1});
    QCOMPARE(kept.frameInfo(0).step, std::uint64_t{30});
    QVERIFY(sameBits(kept.frameInfo(0).time, first.state.time));
    QVERIFY2(sameBits(kept.snapshot(0).state.positions, first.state.positions, &why), qPrintable(why));
    QVERIFY2(sameBits(kept.snapshot(0).state.velocities, first.state.velocities, &why), qPrintable(why));

    // Stepping on continues the replayed run.
    sim.step(10);
    sim.waitIdle();
    auto world = headless(text);
    world->step(40);
    QCOMPARE(shown(sim).step, std::uint64_t{40});
    QVERIFY2(sameBits(shown(sim).positions, world->getPositions(), &why), qPrintable(why));
    QCOMPARE(sim.status().frames, std::size_t{11});
  }

  void divergenceRestoresTheLastGoodFrame() {
    const std::string text = readScene("four_bar.articula");
    Simulation sim;
    QSignalSpy diverged(&sim, &Simulation::diverged);
    sim.start(text, kScenes);
    sim.step(20);
    sim.setJointEffort({ObjectKind::Joint, "four_bar/crank_joint"}, 0, 1e300);
    sim.step(1000);
    sim.waitIdle();
    QCOMPARE(diverged.count(), 1);
    const QString message = diverged.at(0).at(0).toString();
    QVERIFY2(message.contains(QStringLiteral("t = ")), qPrintable(message));
    QVERIFY(!sim.status().playing);

    const Recording recording = sim.recordingCopy();
    QVERIFY(recording.size() >= 21);
    const std::size_t last = recording.size() - 1;
    const RuntimeSnapshot good = recording.snapshot(last);
    QVERIFY(good.state.positions.allFinite() && good.state.velocities.allFinite());
    const viewer::RenderSnapshot& s = shown(sim);
    QVERIFY(allFinite(s.positions) && allFinite(s.velocities));
    QCOMPARE(s.step, good.state.frameIndex);
    QCOMPARE(sim.status().step, good.state.frameIndex);
    QString why;
    QVERIFY2(sameBits(s.positions, good.state.positions, &why), qPrintable(why));
    QVERIFY2(sameBits(s.velocities, good.state.velocities, &why), qPrintable(why));
    // Every recorded frame is finite.
    for (std::size_t i = 0; i <= last; ++i) {
      const RuntimeSnapshot f = recording.snapshot(i);
      QVERIFY(f.state.positions.allFinite() && f.state.velocities.allFinite());
    }
    // The frames before the effort are the headless run's.
    auto world = headless(text);
    world->step(20);
    QVERIFY2(sameBits(recording.snapshot(20).state.positions, world->getPositions(), &why), qPrintable(why));
  }

  void replayOfAnotherSceneIsRefused() {
    Recording boxes;
    {
      auto world = headless(readScene("box_stack.articula"));
      Recorder recorder(*world);
      world->step(10);
      boxes = recorder.recording();
    }
    QCOMPARE(boxes.size(), std::size_t{11});
    Simulation sim;
    QSignalSpy status(&sim, &Simulation::statusChanged);
    QVERIFY_THROWS_EXCEPTION(LayoutIncompatible, sim.start(readScene("four_bar.articula"), kScenes, {}, boxes));
    QVERIFY(!sim.isActive());
    QVERIFY(!sim.status().active);
    QCOMPARE(status.count(), 0);

    // Bad scene text: nothing starts either.
    QVERIFY_THROWS_EXCEPTION(io::ImportError, sim.start("<articula version=\"1\"><nonsense", kScenes));
    QVERIFY(!sim.isActive());
  }

  void replayOfTheSameSceneIsShown() {
    const std::string text = readScene("four_bar.articula");
    Recording replay;
    {
      auto world = headless(text);
      Recorder recorder(*world);
      world->step(60);
      replay = recorder.recording();
    }
    Simulation sim;
    sim.start(text, kScenes, {}, replay);
    sim.waitIdle();
    QCOMPARE(sim.status().frames, std::size_t{61});
    QCOMPARE(sim.status().shownFrame, std::optional<std::size_t>(0));
    sim.scrubTo(60);
    sim.waitIdle();
    auto world = headless(text);
    world->step(60);
    QString why;
    QVERIFY2(sameBits(shown(sim).positions, world->getPositions(), &why), qPrintable(why));

    // Saving writes the recording; loading it back gives the same frames.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path file = std::filesystem::path(dir.path().toStdString()) / "run.artreplay";
    sim.saveRecording(file, "four_bar.articula");
    const Recording loaded = Recording::load(file);
    QCOMPARE(loaded.size(), std::size_t{61});
    QCOMPARE(loaded.sceneReference(), std::string("four_bar.articula"));
    QVERIFY2(sameBits(loaded.snapshot(60).state.positions, world->getPositions(), &why), qPrintable(why));
  }

  void dragSpringPullsABodyToTheTarget() {
    const double mass = 2.0;
    Simulation sim;
    sim.start(boxScene(mass), {});
    const Vector3d target(1.0, 0.0, 0.0);
    const double stiffnessPerKg = 200.0;
    sim.setDragSpring({ObjectKind::RigidBody, "box"}, Vector3d::Zero(), target, stiffnessPerKg);
    sim.step(500);
    sim.waitIdle();
    const viewer::RenderSnapshot& s = shown(sim);
    QCOMPARE(s.positions.size(), std::size_t{7});
    // A critically damped spring from rest at distance 1:
    // x(t) = 1 − (1 + ωt)·exp(−ωt), ω = sqrt(k/m) = sqrt(stiffness per kg).
    const double omega = std::sqrt(stiffnessPerKg);
    const double t = s.time;
    const double expected = 1.0 - (1.0 + omega * t) * std::exp(-omega * t);
    QVERIFY2(std::abs(s.positions[0] - expected) < 5e-3,
             qPrintable(QStringLiteral("x = %1, expected %2").arg(s.positions[0]).arg(expected)));
    QVERIFY(std::abs(s.positions[1]) < 1e-12 && std::abs(s.positions[2]) < 1e-12);
    // Force through the centre of mass: no rotation.
    QVERIFY(std::abs(s.positions[6]) > 1.0 - 1e-12);

    // Halfway, to check the approach rather than only the end.
    sim.reset();
    sim.step(100);
    sim.waitIdle();
    const viewer::RenderSnapshot& h = shown(sim);
    const double th = h.time;
    const double expectedHalf = 1.0 - (1.0 + omega * th) * std::exp(-omega * th);
    QVERIFY2(std::abs(h.positions[0] - expectedHalf) < 1e-2,
             qPrintable(QStringLiteral("x = %1, expected %2").arg(h.positions[0]).arg(expectedHalf)));

    // Without the spring the box coasts: its velocity stays as it was.
    sim.clearDragSpring();
    sim.step(1);
    sim.waitIdle();
    const std::vector<double> coasting = shown(sim).velocities;
    QVERIFY(std::abs(coasting[0]) + std::abs(coasting[3]) > 0.0);
    sim.step(10);
    sim.waitIdle();
    QVERIFY(shown(sim).velocities == coasting);
  }

  // An engine position servo driven from the GUI thread.
  void positionServoActuatorHoldsThePendulum() {
    const double mass = 1.0;
    const double com = 0.5;
    const double iyy = 1e-3;
    const double g = 9.81;
    Simulation sim;
    sim.start(pendulumScene(mass, com, iyy, Vector3d(0, 0, -g), true), {});
    QCOMPARE(sim.actuators().size(), std::size_t{1});
    const double target = 0.5;
    sim.setControl("servo", target);
    sim.step(2000);
    sim.waitIdle();
    // Equilibrium of kp·(target − q) against gravity. About +y the centre
    // of mass sits at (com·cos q, 0, −com·sin q), so gravity's generalized
    // force is m·g·com·cos q and q = target + m·g·com·cos q / kp, with the
    // default kp = M·(2π·10 Hz)², M = I_yy + m·com².
    const double M = iyy + mass * com * com;
    const double omega = 2.0 * std::numbers::pi * 10.0;
    const double kp = M * omega * omega;
    const auto equilibrium = [&](double u) {
      double q = u;
      for (int i = 0; i < 50; ++i) q = u + mass * g * com * std::cos(q) / kp;
      return q;
    };
    const double q = equilibrium(target);
    const viewer::RenderSnapshot& s = shown(sim);
    QVERIFY2(std::abs(s.positions[0] - q) < 1e-6,
             qPrintable(QStringLiteral("q = %1, expected %2").arg(s.positions[0], 0, 'g', 12).arg(q, 0, 'g', 12)));
    QVERIFY(std::abs(s.velocities[0]) < 1e-6);

    // A new target: the joint follows to its equilibrium.
    sim.setControl("servo", -0.3);
    sim.step(2000);
    sim.waitIdle();
    QVERIFY(std::abs(shown(sim).positions[0] - equilibrium(-0.3)) < 1e-6);

    // The controls are recorded: scrubbing back restores the old target, and
    // resuming from there reproduces the recorded continuation.
    const Recording before = sim.recordingCopy();
    QCOMPARE(before.snapshot(1000).actuators.front().control, target);
    QCOMPARE(before.snapshot(3000).actuators.front().control, -0.3);
    sim.scrubTo(1000);
    sim.waitIdle();
    QTRY_COMPARE(sim.control("servo"), std::optional<double>(target));  // the GUI learns the frame's control
    sim.step(100);  // a new branch from frame 1000, with the control recorded there
    sim.waitIdle();
    const Recording branch = sim.recordingCopy();
    QCOMPARE(branch.snapshot(branch.size() - 1).actuators.front().control, target);
    for (std::size_t k = 1001; k < branch.size(); ++k) {
      QCOMPARE(branch.snapshot(k).state.positions, before.snapshot(k).state.positions);
    }
  }

  // The joint forces the viewer draws come from the simulation thread:
  // switched on from this (the GUI) thread while the simulation steps, a
  // pendulum held still by its servo shows its weight on the hinge.
  void jointForcesReachTheViewer() {
    const double mass = 1.0;
    Simulation sim;
    sim.start(pendulumScene(mass, 0.5, 1e-3, Vector3d(0, 0, -9.81), true), {});
    sim.setControl("servo", 0.5);
    sim.step(1000);
    sim.publisher().setJointForces(true);  // while the simulation thread steps
    sim.waitIdle();
    sim.step(1000);
    sim.waitIdle();
    const viewer::RenderSnapshot& s = shown(sim);
    QCOMPARE(s.joints.size(), std::size_t{1});
    QVERIFY2((s.joints[0].force - Vector3d(0, 0, mass * 9.81)).norm() < 1e-6,
             qPrintable(QStringLiteral("force %1 %2 %3")
                            .arg(s.joints[0].force.x())
                            .arg(s.joints[0].force.y())
                            .arg(s.joints[0].force.z())));
    QCOMPARE(s.jointForces.size(), std::size_t{1});
    sim.publisher().setJointForces(false);
  }

  void jointEffortAcceleratesByTauOverM() {
    const double mass = 2.0;
    const double com = 0.3;
    const double iyy = 0.02;
    Simulation sim;
    sim.start(pendulumScene(mass, com, iyy, Vector3d::Zero()), {});
    const double tau = 0.7;
    const double M = iyy + mass * com * com;
    sim.setJointEffort({ObjectKind::Joint, "pendulum/hinge"}, 0, tau);
    sim.step(1);
    sim.waitIdle();
    const Recording recording = sim.recordingCopy();
    const RuntimeSnapshot frame = recording.snapshot(1);
    const double expected = tau / M;
    QVERIFY2(std::abs(frame.state.accelerations[0] - expected) <= 1e-12 * expected,
             qPrintable(QStringLiteral("%1 vs %2").arg(frame.state.accelerations[0], 0, 'g', 17).arg(expected)));
    QCOMPARE(frame.state.forces[0], tau);
    const double dt = sim.status().timeStep;
    QVERIFY(std::abs(shown(sim).velocities[0] - dt * expected) <= 1e-12 * dt * expected);

    // The effort persists: ten more steps, ten more increments.
    sim.step(10);
    sim.waitIdle();
    QVERIFY(std::abs(shown(sim).velocities[0] - 11 * dt * expected) <= 1e-10 * dt * expected);

    // Zero removes it: the velocity stays.
    sim.setJointEffort({ObjectKind::Joint, "pendulum/hinge"}, 0, 0.0);
    sim.step(1);
    sim.waitIdle();
    const double v = shown(sim).velocities[0];
    sim.step(5);
    sim.waitIdle();
    QCOMPARE(shown(sim).velocities[0], v);

    // Commands naming nothing are reported, not thrown.
    QSignalSpy messages(&sim, &Simulation::message);
    sim.setJointEffort({ObjectKind::Joint, "pendulum/nothing"}, 0, 1.0);
    sim.setJointEffort({ObjectKind::Joint, "pendulum/hinge"}, 3, 1.0);
    sim.waitIdle();
    QCOMPARE(messages.count(), 2);
  }

  // The GUI thread keeps the efforts and controls it sent, so that controls
  // built later show them; start() and stop() forget them.
  void drivesSentAreKept() {
    const ObjectRef hinge{ObjectKind::Joint, "pendulum/hinge"};
    const std::string scene = pendulumScene(1.0, 0.5, 1e-3, Vector3d::Zero(), true);
    Simulation sim;
    sim.setJointEffort(hinge, 0, 1.0);  // nothing runs: nothing is sent
    QCOMPARE(sim.jointEffort(hinge, 0), 0.0);
    QVERIFY(!sim.control("servo").has_value());
    sim.start(scene, {});
    QCOMPARE(sim.jointEffort(hinge, 0), 0.0);
    QCOMPARE(sim.control("servo"), std::optional<double>(0.0));  // holds the initial position
    sim.setJointEffort(hinge, 0, -0.25);
    sim.setControl("servo", 0.4);
    QCOMPARE(sim.jointEffort(hinge, 0), -0.25);
    QCOMPARE(sim.control("servo"), std::optional<double>(0.4));
    // The link's reference names no joint.
    QCOMPARE(sim.jointEffort({ObjectKind::Link, "pendulum/hinge"}, 0), 0.0);

    // What the simulation refuses is not kept.
    QSignalSpy messages(&sim, &Simulation::message);
    sim.setJointEffort(hinge, 1, 2.0);
    sim.setJointEffort({ObjectKind::Joint, "pendulum/nothing"}, 0, 2.0);
    sim.setJointEffort(hinge, 0, std::numeric_limits<double>::quiet_NaN());
    sim.setControl("servo", std::numeric_limits<double>::infinity());
    sim.setControl("nothing", 1.0);
    sim.waitIdle();
    QCOMPARE(messages.count(), 5);
    QCOMPARE(sim.jointEffort(hinge, 0), -0.25);
    QCOMPARE(sim.jointEffort(hinge, 1), 0.0);
    QCOMPARE(sim.jointEffort({ObjectKind::Joint, "pendulum/nothing"}, 0), 0.0);
    QCOMPARE(sim.control("servo"), std::optional<double>(0.4));
    QVERIFY(!sim.control("nothing").has_value());

    // The worker applies what is kept: the effort as a joint force, the
    // control in the actuator (its force on top, not in the joint's τ).
    sim.step(1);
    sim.waitIdle();
    const Recording recording = sim.recordingCopy();
    const RuntimeSnapshot frame = recording.snapshot(recording.size() - 1);
    QCOMPARE(frame.state.forces[0], -0.25);
    QCOMPARE(frame.actuators.front().control, 0.4);

    // Zero removes the effort.
    sim.setJointEffort(hinge, 0, 0.0);
    QCOMPARE(sim.jointEffort(hinge, 0), 0.0);

    // Stopping, and starting again, forget them.
    sim.setJointEffort(hinge, 0, 0.5);
    sim.setControl("servo", 0.1);
    sim.stop();
    QCOMPARE(sim.jointEffort(hinge, 0), 0.0);
    QVERIFY(!sim.control("servo").has_value());
    sim.start(scene, {});
    sim.setJointEffort(hinge, 0, 0.5);
    sim.setControl("servo", 0.1);
    sim.start(scene, {});
    QCOMPARE(sim.jointEffort(hinge, 0), 0.0);
    QCOMPARE(sim.control("servo"), std::optional<double>(0.0));
  }

  // The simulated position of a joint, read from the snapshot the GUI
  // thread acquired; its offset in q is the simulation world's (rigid
  // bodies of the scene text come before the multibodies).
  void shownJointPositionFollowsTheAcquiredSnapshot() {
    World design;
    Multibody mb = design.addMultibody("pendulum");
    LinkOptions link;
    link.name = "arm";
    link.inertia.mass = 1.0;
    link.inertia.com = Vector3d(0.5, 0, 0);
    link.inertia.rotational = Vector3d(1e-3, 1e-3, 1e-3).asDiagonal();
    JointSpec spec = JointSpec::revolute(Vector3d::UnitY());
    spec.name = "hinge";
    mb.addLink(link, spec);
    RigidBodyOptions box;
    box.inertia = Inertia::box(1.0, Vector3d(0.2, 0.3, 0.4));
    design.addRigidBody("box", box);
    const ObjectRef hinge{ObjectKind::Joint, "pendulum/hinge"};

    Simulation sim;
    QVERIFY(!sim.shownJointPosition(hinge, 0).has_value());
    sim.start(io::sceneToString(design), {});
    // Nothing of this simulation acquired yet.
    QVERIFY(!sim.shownJointPosition(hinge, 0).has_value());
    sim.step(200);
    sim.waitIdle();
    const viewer::RenderSnapshot& s = shown(sim);
    QCOMPARE(s.positions.size(), std::size_t{8});
    const std::optional<double> q = sim.shownJointPosition(hinge, 0);
    QVERIFY(q.has_value());
    // The design's packing (the multibody was created first: its hinge leads).
    const auto hingeOffset =
        static_cast<std::size_t>(design.getStateSpace().segment("pendulum", "hinge")->positionOffset);
    QCOMPARE(hingeOffset, std::size_t{0});
    QVERIFY(sameBits(*q, s.positions[hingeOffset]));
    QVERIFY(*q > 0.05);  // gravity turned the arm about +y
    QVERIFY(!sim.shownJointPosition(hinge, 1).has_value());
    QVERIFY(!sim.shownJointPosition({ObjectKind::Joint, "pendulum/nothing"}, 0).has_value());

    // A new simulation does not read the old one's snapshot.
    sim.start(io::sceneToString(design), {});
    QVERIFY(!sim.shownJointPosition(hinge, 0).has_value());
    sim.stop();
    QVERIFY(!sim.shownJointPosition(hinge, 0).has_value());
  }

  void livePlayIsPacedToTheTargetFactor() {
    Simulation sim;
    sim.start(readScene("four_bar.articula"), kScenes);
    const double factor = 0.5;
    sim.setTargetRealTimeFactor(factor);
    sim.waitIdle();
    const auto begin = std::chrono::steady_clock::now();
    sim.play();
    QTest::qWait(300);
    sim.pause();
    sim.waitIdle();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    QVERIFY(!sim.status().playing);
    QCOMPARE(sim.status().targetRealTimeFactor, factor);
    const double t = sim.status().time;
    QVERIFY(t > 0.0);
    // Pacing never runs ahead of the target.
    QVERIFY2(t <= factor * wall + 2 * sim.status().timeStep,
             qPrintable(QStringLiteral("t = %1 after %2 s of wall-clock time").arg(t).arg(wall)));
  }

  void playBackRunsToTheLastFrame() {
    Simulation sim;
    sim.start(readScene("four_bar.articula"), kScenes);
    sim.step(300);
    sim.scrubTo(0);
    sim.playBack(4.0);
    sim.waitIdle();
    QTRY_VERIFY(!sim.status().playing);
    sim.waitIdle();
    QCOMPARE(sim.status().shownFrame, std::optional<std::size_t>(300));
    QCOMPARE(shown(sim).step, std::uint64_t{300});
    QCOMPARE(sim.status().frames, std::size_t{301});
  }

  void timelineFollowsAndScrubs() {
    Simulation sim;
    TimelineWidget timeline(&sim);
    timeline.show();
    auto* slider = timeline.findChild<QSlider*>(QStringLiteral("timelineSlider"));
    QVERIFY(slider != nullptr);
    QVERIFY(timeline.findChild<QPushButton*>(QStringLiteral("playBackButton")) != nullptr);
    QVERIFY(timeline.findChild<QPushButton*>(QStringLiteral("resumeButton")) != nullptr);
    QVERIFY(timeline.findChild<QComboBox*>(QStringLiteral("speedCombo")) != nullptr);
    QVERIFY(!slider->isEnabled());

    sim.start(readScene("four_bar.articula"), kScenes);
    sim.step(300);
    sim.waitIdle();
    QVERIFY(slider->isEnabled());
    QCOMPARE(slider->minimum(), 0);
    QCOMPARE(slider->maximum(), 300);
    QCOMPARE(slider->value(), 300);
    // Following the status did not scrub.
    QVERIFY(!sim.status().shownFrame.has_value());

    slider->setValue(120);
    sim.waitIdle();
    QCOMPARE(shown(sim).step, std::uint64_t{120});
    QCOMPARE(sim.status().shownFrame, std::optional<std::size_t>(120));
    QCOMPARE(slider->value(), 120);

    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Right);
    sim.waitIdle();
    QCOMPARE(shown(sim).step, std::uint64_t{121});
    QTest::keyClick(slider, Qt::Key_Home);
    sim.waitIdle();
    QCOMPARE(shown(sim).step, std::uint64_t{0});
    QTest::keyClick(slider, Qt::Key_End);
    sim.waitIdle();
    QCOMPARE(shown(sim).step, std::uint64_t{300});

    // Stepping from a scrubbed frame: the range follows the new branch.
    slider->setValue(100);
    sim.step(50);
    sim.waitIdle();
    QCOMPARE(slider->maximum(), 150);
    QCOMPARE(slider->value(), 150);

    // Play back at 4× from the first frame: runs to the last one and pauses.
    auto* speed = timeline.findChild<QComboBox*>(QStringLiteral("speedCombo"));
    speed->setCurrentIndex(speed->count() - 1);
    QCOMPARE(timeline.playBackSpeed(), 4.0);
    QTest::keyClick(slider, Qt::Key_Home);
    sim.waitIdle();
    QCOMPARE(sim.status().shownFrame, std::optional<std::size_t>(0));
    QTest::mouseClick(timeline.findChild<QPushButton*>(QStringLiteral("playBackButton")), Qt::LeftButton);
    sim.waitIdle();
    QVERIFY(sim.status().playingBack || sim.status().shownFrame == std::optional<std::size_t>(150));
    QTRY_VERIFY(!sim.status().playing);
    sim.waitIdle();
    QCOMPARE(sim.status().shownFrame, std::optional<std::size_t>(150));
    QCOMPARE(slider->value(), 150);

    // The replay buttons only ask.
    QSignalSpy save(&timeline, &TimelineWidget::saveReplayRequested);
    QSignalSpy load(&timeline, &TimelineWidget::loadReplayRequested);
    QTest::mouseClick(timeline.findChild<QPushButton*>(QStringLiteral("saveReplayButton")), Qt::LeftButton);
    QTest::mouseClick(timeline.findChild<QPushButton*>(QStringLiteral("loadReplayButton")), Qt::LeftButton);
    QCOMPARE(save.count(), 1);
    QCOMPARE(load.count(), 1);

    sim.stop();
    QVERIFY(!slider->isEnabled());
    QVERIFY(!timeline.findChild<QPushButton*>(QStringLiteral("playBackButton"))->isEnabled());
  }
};

QTEST_MAIN(TestSimulation)
#include "test_simulation.moc"

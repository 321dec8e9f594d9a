// Recordings: frames hold exactly the documented raw runtime state (plus a
// fixed index entry) whatever the meshes and shapes; restoring a recorded
// frame and stepping reproduces the recording bit for bit; a different
// layout is refused and changes nothing; the memory budget drops or thins
// frames as documented; branching; replay files round-trip and truncated
// or corrupted files are refused.
#include "replay_scenes.hpp"
#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace articula;

namespace {

// The documented raw frame size (docs/replay.md) of the world's current
// runtime state: header, state, policies, closure and coupler impulses,
// diagnostics, manifolds with their points.
std::size_t expectedRawBytes(const World& world, bool closureRowsSolved) {
  const WorldState s = world.getState();
  std::size_t n = 40;
  n += 8 * static_cast<std::size_t>(s.positions.size() + 3 * s.velocities.size());
  n += 8;  // count of non-zero external wrenches
  for (Eigen::Index b = 0; b < s.externalWrenches.cols(); ++b) n += s.externalWrenches.col(b).isZero(0.0) ? 0 : 56;
  n += 8;  // count of free frames
  for (const Frame& f : world.getFrames()) n += f.kind() == FrameKind::FreeFrame ? 24 * 8 : 0;
  n += 48 * (world.numLoopClosures() + world.numJointCouplers());
  for (const LoopClosure& c : world.getLoopClosures()) {
    n += 8 + (closureRowsSolved ? 8 * static_cast<std::size_t>(numResidualRows(c.getSpec().family)) : 0);
  }
  n += 8 * world.numJointCouplers();
  n += 32 + 8;  // diagnostics, manifold count
  std::set<std::pair<std::string, std::string>> pairs;
  for (const Contact& c : world.getContacts()) pairs.emplace(c.shapeA.name(), c.shapeB.name());
  n += 16 * pairs.size() + 80 * world.getContacts().size();
  return n;
}

bool sameSnapshot(const RuntimeSnapshot& a, const RuntimeSnapshot& b) {
  const auto samePolicies = [](const std::vector<LoopClosureRuntimePolicy>& x,
                               const std::vector<LoopClosureRuntimePolicy>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].enabled != y[i].enabled || x[i].kinematics != y[i].kinematics || x[i].dynamics != y[i].dynamics ||
          x[i].stabilization != y[i].stabilization || x[i].errorReduction != y[i].errorReduction ||
          x[i].stiffness != y[i].stiffness || x[i].damping != y[i].damping ||
          x[i].projectAfterStep != y[i].projectAfterStep || x[i].tolerance != y[i].tolerance ||
          x[i].maxIterations != y[i].maxIterations) {
        return false;
      }
    }
    return true;
  };
  if (a.freeFrames.size() != b.freeFrames.size()) return false;
  for (std::size_t i = 0; i < a.freeFrames.size(); ++i) {
    if (a.freeFrames[i].relativeTransform.matrix() != b.freeFrames[i].relativeTransform.matrix() ||
        a.freeFrames[i].relativeVelocity != b.freeFrames[i].relativeVelocity ||
        a.freeFrames[i].relativeAcceleration != b.freeFrames[i].relativeAcceleration) {
      return false;
    }
  }
  return a.state.time == b.state.time && a.state.frameIndex == b.state.frameIndex &&
         a.state.positions == b.state.positions && a.state.velocities == b.state.velocities &&
         a.state.accelerations == b.state.accelerations && a.state.forces == b.state.forces &&
         a.state.externalWrenches == b.state.externalWrenches && a.simulationMode == b.simulationMode &&
         samePolicies(a.closurePolicies, b.closurePolicies) && samePolicies(a.couplerPolicies, b.couplerPolicies) &&
         a.solverData == b.solverData;
}

// A 12-link pendulum chain swinging (smooth motion, no contacts).
void chain(World& w) {
  Multibody mb = w.addMultibody("chain");
  Link parent = mb.addLink(test::linkOptions("l0", 1.0, Vector3d(0.1, 0, 0)), JointSpec::revolute(Vector3d::UnitY()));
  for (int i = 1; i < 12; ++i) {
    parent = mb.addLink(test::linkOptions("l" + std::to_string(i), 1.0, Vector3d(0.1, 0, 0)), parent,
                        JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(0.2, 0, 0)));
  }
  mb.setPositions(VectorXd::Constant(12, 0.3));
}

// A sphere-like triangle mesh with about 2·n² triangles.
Geometry heavyMesh(double radius, int n) {
  std::vector<Vector3d> v;
  std::vector<std::array<int, 3>> t;
  for (int i = 0; i <= n; ++i) {
    const double th = M_PI * i / n;
    for (int j = 0; j < n; ++j) {
      const double ph = 2 * M_PI * j / n;
      v.emplace_back(radius * std::sin(th) * std::cos(ph), radius * std::sin(th) * std::sin(ph), radius * std::cos(th));
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int a = i * n + j;
      const int b = i * n + (j + 1) % n;
      t.push_back({a, a + n, b});
      t.push_back({b, a + n, b + n});
    }
  }
  return Geometry::triangleMesh(std::move(v), std::move(t));
}

// Spheres dropped on the ground; with `meshes` > 0 every body also carries
// that many heavy visual meshes, and a heavy static mesh lies far away.
void spheres(World& w, int meshes) {
  w.addGroundPlane();
  for (int i = 0; i < 5; ++i) {
    RigidBodyOptions o;
    o.inertia = Inertia::sphere(1.0, 0.1);
    o.pose = test::translation(0.3 * i, 0.0, 0.2 + 0.1 * i);
    RigidBody b = w.addRigidBody("ball" + std::to_string(i), o);
    b.addCollisionShape(test::shape(Geometry::sphere(0.1)));
    for (int k = 0; k < meshes; ++k) {
      VisualShapeOptions vis;
      vis.geometry = heavyMesh(0.1, 60);
      b.addVisualShape(vis);
    }
  }
  if (meshes > 0) {
    w.addCollisionShape(Frame::World(), test::shape(heavyMesh(1.0, 80), test::translation(100, 0, 0)));
  }
}

RecordingOptions wholeFrames() {
  RecordingOptions o;
  o.deltaEncoding = false;
  return o;
}

struct BudgetRun {
  Recording recorded;   // under the budget
  Recording unlimited;  // every frame, whole
  bool stayedInBudget = true;
};

// The chain recorded for `steps` steps with `options`, next to an unlimited
// recording; after every step the stored bytes must be within the budget
// unless the newest block alone holds every kept frame.
BudgetRun recordChainWithBudget(const RecordingOptions& options, int steps) {
  World world;
  chain(world);
  world.enterSimulationMode();
  BudgetRun run;
  run.unlimited = Recording(wholeFrames());
  run.unlimited.append(world);
  Recorder recorder(world, options);
  for (int k = 0; k < steps; ++k) {
    world.step();
    run.unlimited.append(world);
    const Recording& r = recorder.recording();
    const bool onlyNewestBlock = r.frameInfo(0).step + options.keyframeInterval > world.getFrameIndex();
    if (r.stats().storedBytes > options.budgetBytes && !onlyNewestBlock) run.stayedInBudget = false;
  }
  run.recorded = recorder.recording();
  return run;
}

std::vector<unsigned char> readFile(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const QString& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::uint64_t fnv1a(const unsigned char* p, std::size_t n) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

class TestRecording : public QObject {
  Q_OBJECT

 private slots:
  void framesHoldExactlyTheRawState_data() {
    QTest::addColumn<QString>("scene");
    QTest::newRow("pile (contacts)") << "pile";
    QTest::newRow("four-bar with box (closure, contacts)") << "four-bar";
    QTest::newRow("gears (coupler)") << "gears";
  }

  void framesHoldExactlyTheRawState() {
    QFETCH(QString, scene);
    World world;
    if (scene == "pile") test::pile(world);
    if (scene == "four-bar") test::fourBarWithBox(world);
    if (scene == "gears") test::gears(world);
    world.enterSimulationMode();
    Recorder recorder(world, wholeFrames());
    QCOMPARE(recorder.recording().size(), std::size_t{1});
    QCOMPARE(recorder.recording().frameInfo(0).rawBytes, expectedRawBytes(world, false));
    std::size_t withContacts = 0;
    for (int k = 1; k <= 400; ++k) {
      world.step();
      const RecordedFrameInfo info = recorder.recording().frameInfo(recorder.recording().size() - 1);
      QCOMPARE(info.step, static_cast<std::uint64_t>(k));
      QCOMPARE(info.time, world.getTime());
      ARTICULA_CHECK(info.rawBytes == expectedRawBytes(world, true),
                     QString("step %1: %2 bytes, the documented layout gives %3")
                         .arg(k)
                         .arg(info.rawBytes)
                         .arg(expectedRawBytes(world, true)));
      QCOMPARE(info.storedBytes, info.rawBytes + kRecordedFrameIndexBytes);
      QVERIFY(info.keyframe);
      withContacts += world.getContacts().empty() ? 0 : 1;
    }
    if (scene != "gears") QVERIFY2(withContacts > 20, qPrintable(QString("%1 frames with contacts").arg(withContacts)));
    const RecordingStats stats = recorder.recording().stats();
    QCOMPARE(stats.frames, std::size_t{401});
    QVERIFY(stats.storedBytesPerFrame() <= 1.2 * stats.rawBytesPerFrame());
  }

  void meshesAndShapeComplexityDoNotChangeFrames() {
    World plain;
    spheres(plain, 0);
    World heavy;
    spheres(heavy, 4);  // 5 × 4 visual meshes of 7200 triangles, a static mesh of 12800
    for (World* w : {&plain, &heavy}) w->enterSimulationMode();
    Recorder a(plain, wholeFrames());
    Recorder b(heavy, wholeFrames());
    RecordingOptions delta;
    Recorder ad(plain, delta);
    Recorder bd(heavy, delta);
    for (int k = 0; k < 500; ++k) {
      plain.step();
      heavy.step();
    }
    QVERIFY(!plain.getContacts().empty());
    QCOMPARE(a.recording().size(), b.recording().size());
    for (std::size_t i = 0; i < a.recording().size(); ++i) {
      const RecordedFrameInfo fa = a.recording().frameInfo(i);
      const RecordedFrameInfo fb = b.recording().frameInfo(i);
      ARTICULA_CHECK(
          fa.rawBytes == fb.rawBytes && fa.storedBytes == fb.storedBytes,
          QString("frame %1: %2 bytes without meshes, %3 with").arg(i).arg(fa.storedBytes).arg(fb.storedBytes));
      QCOMPARE(ad.recording().frameInfo(i).storedBytes, bd.recording().frameInfo(i).storedBytes);
    }
    QCOMPARE(a.recording().stats().storedBytes, b.recording().stats().storedBytes);
    // With the ground contacts of five balls the frame is a few hundred bytes.
    QVERIFY(b.recording().stats().storedBytesPerFrame() < 2000);
  }

  void restoreAndStepReproducesTheRecording_data() {
    QTest::addColumn<QString>("scene");
    QTest::addColumn<QString>("method");
    for (const QString& m : {test::kPgs, test::kPivoting}) {
      QTest::newRow(qPrintable("pile, " + m)) << "pile" << m;
      QTest::newRow(qPrintable("four-bar with box, " + m)) << "four-bar" << m;
    }
    QTest::newRow("gears") << "gears" << test::kPgs;
  }

  void restoreAndStepReproducesTheRecording() {
    QFETCH(QString, scene);
    QFETCH(QString, method);
    const auto build = [&](World& w) {
      if (scene == "pile") test::pile(w);
      if (scene == "four-bar") test::fourBarWithBox(w);
      if (scene == "gears") test::gears(w);
      w.setOptions(test::optionsFor(method));
    };
    World world;
    build(world);
    world.enterSimulationMode();
    RecordingOptions options;
    options.keyframeInterval = 16;  // restores decode chains of differences
    Recorder recorder(world, options);
    world.step(500);
    const Recording recording = recorder.recording();
    QCOMPARE(recording.size(), std::size_t{501});
    World fresh;
    build(fresh);
    for (World* target : {&world, &fresh}) {
      for (std::size_t k :
           {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{130}, std::size_t{333}, std::size_t{470}}) {
        recording.restore(*target, k);
        ARTICULA_CHECK(sameSnapshot(target->captureRuntimeState(), recording.snapshot(k)),
                       QString("restored frame %1 differs from the recording").arg(k));
        for (std::size_t j = k + 1; j <= std::min<std::size_t>(k + 30, 500); ++j) {
          target->step();
          ARTICULA_CHECK(sameSnapshot(target->captureRuntimeState(), recording.snapshot(j)),
                         QString("%1 world: restored frame %2, frame %3 differs from the recording")
                             .arg(target == &world ? "same" : "fresh")
                             .arg(k)
                             .arg(j));
        }
      }
    }
  }

  // A free frame moved by the caller every step (here the anchor of a
  // pendulum's tip, a kinematic input): its motion is part of each frame,
  // so restoring puts it back where it was and the continuation with the
  // same driver repeats the recording bit for bit.
  void freeFramesAreRecordedInputs() {
    const auto build = [](World& w) {
      Multibody mb = w.addMultibody("pendulum");
      Link a = mb.addLink(test::linkOptions("a", 1.0, Vector3d(0.25, 0, 0)), JointSpec::revolute(Vector3d::UnitY()));
      Link b = mb.addLink(test::linkOptions("b", 1.0, Vector3d(0.25, 0, 0)), a,
                          JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(0.5, 0, 0)));
      FreeFrame anchor = w.addFreeFrame("anchor", Frame::World(), test::translation(0.7, 0, 0.3));
      LoopClosureSpec spec;
      spec.frameA = anchor;
      spec.frameB = b;
      spec.offsetB = test::translation(0.5, 0, 0);
      spec.family = LoopClosureFamily::Point;
      LoopClosure c = w.addLoopClosure("tether", spec);
      LoopClosureRuntimePolicy p = c.getRuntimePolicy();
      p.stabilization = ClosureStabilization::Compliance;
      p.stiffness = 200.0;
      p.damping = 2.0;
      p.kinematics = ClosureKinematicsPolicy::ResidualOnly;
      c.setRuntimePolicy(p);
    };
    const auto drive = [](World& w) {
      FreeFrame anchor = *w.getFreeFrame("anchor");
      const double t = w.getTime();
      anchor.setRelativeTransform(test::translation(0.7 + 0.2 * std::sin(3 * t), 0, 0.3));
      anchor.setRelativeSpatialVelocity((Vector6d() << 0, 0, 0, 0.6 * std::cos(3 * t), 0, 0).finished());
    };
    World world;
    build(world);
    world.enterSimulationMode();
    Recorder recorder(world);
    for (int k = 0; k < 300; ++k) {
      drive(world);
      world.step();
    }
    QCOMPARE(recorder.recording().snapshot(120).freeFrames.size(), std::size_t{1});
    World fresh;
    build(fresh);
    recorder.recording().restore(fresh, 120);
    const Isometry3d expected = recorder.recording().snapshot(120).freeFrames[0].relativeTransform;
    QVERIFY(fresh.getFrame("anchor")->getTransform().matrix() == expected.matrix());
    QVERIFY(expected.translation().x() != world.getFrame("anchor")->getTransform().translation().x());
    for (std::size_t j = 121; j <= 300; ++j) {
      drive(fresh);
      fresh.step();
      ARTICULA_CHECK(sameSnapshot(fresh.captureRuntimeState(), recorder.recording().snapshot(j)),
                     QString("frame %1 differs").arg(j));
    }
    // A world without the free frame has another layout.
    World other;
    build(other);
    other.remove(*other.getLoopClosure("tether"));
    other.remove(*other.getFrame("anchor"));
    EXPECT_THROW_NAMING(LayoutIncompatible, std::vector<std::string>{"free frame 'anchor' removed"},
                        recorder.recording().restore(other, 10));
  }

  void differencesDecodeToTheWholeFrames() {
    World world;
    chain(world);
    world.enterSimulationMode();
    Recorder whole(world, wholeFrames());
    RecordingOptions delta;
    delta.keyframeInterval = 32;
    Recorder diff(world, delta);
    world.step(300);
    QCOMPARE(whole.recording().size(), diff.recording().size());
    for (std::size_t i = 0; i < whole.recording().size(); ++i) {
      ARTICULA_CHECK(sameSnapshot(whole.recording().snapshot(i), diff.recording().snapshot(i)),
                     QString("frame %1 decodes differently").arg(i));
      QCOMPARE(diff.recording().frameInfo(i).keyframe, i % 32 == 0);
    }
    const RecordingStats w = whole.recording().stats();
    const RecordingStats d = diff.recording().stats();
    QCOMPARE(w.rawBytes, d.rawBytes);
    // Unchanged words (forces, wrenches, policies) cost half a byte.
    QVERIFY2(
        d.storedBytesPerFrame() < 0.75 * d.rawBytesPerFrame(),
        qPrintable(
            QString("%1 stored vs %2 raw bytes per frame").arg(d.storedBytesPerFrame()).arg(d.rawBytesPerFrame())));
  }

  void layoutMismatchIsRefusedAndChangesNothing_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("named");
    QTest::newRow("added link") << "add link"
                                << "link 'fourbar/extra'";
    QTest::newRow("changed joint type") << "joint type"
                                        << "joint 'fourbar/rocker'";
    QTest::newRow("removed closure") << "remove closure"
                                     << "loop closure 'pin'";
    QTest::newRow("removed collision shape") << "remove shape"
                                             << "collision shape";
  }

  void layoutMismatchIsRefusedAndChangesNothing() {
    QFETCH(QString, change);
    QFETCH(QString, named);
    World world;
    test::fourBarWithBox(world);
    world.enterSimulationMode();
    Recorder recorder(world);
    world.step(50);

    World other;
    test::fourBarWithBox(other);
    Multibody mb = *other.getMultibody("fourbar");
    if (change == "add link") {
      mb.addLink(test::linkOptions("extra"), *mb.getLink("rocker"), JointSpec::revolute(Vector3d::UnitY()));
    } else if (change == "joint type") {
      mb.getJoint("rocker")->setSpec(JointSpec::prismatic(Vector3d::UnitX()));
    } else if (change == "remove closure") {
      other.remove(*other.getLoopClosure("pin"));
    } else {
      other.remove(other.getRigidBody("box")->getCollisionShapes().front());
    }
    other.step(7);
    const RuntimeSnapshot before = other.captureRuntimeState();
    EXPECT_THROW_NAMING(LayoutIncompatible, std::vector<std::string>{named.toStdString()},
                        recorder.recording().restore(other, 30));
    QVERIFY(sameSnapshot(other.captureRuntimeState(), before));
    QCOMPARE(other.getFrameIndex(), std::uint64_t{7});
    // Appending from such a world is refused too.
    Recording copy = recorder.recording();
    EXPECT_THROW_NAMING(LayoutIncompatible, std::vector<std::string>{named.toStdString()}, copy.append(other));
    QCOMPARE(copy.size(), recorder.recording().size());
  }

  void recorderStopsWhenTheLayoutChanges() {
    World world;
    test::gears(world);
    Recorder recorder(world);
    world.step(10);
    QVERIFY(recorder.stopReason().empty());
    world.resetToDesignMode();
    Multibody mb = *world.getMultibody("gears");
    mb.addLink(test::linkOptions("extra"), *mb.getLink("wheel_b"), JointSpec::revolute(Vector3d::UnitZ()));
    EXPECT_NO_THROW(world.step(5));
    QVERIFY2(recorder.stopReason().find("link 'gears/extra'") != std::string::npos, recorder.stopReason().c_str());
    QCOMPARE(recorder.recording().size(), std::size_t{11});
  }

  void recordsEveryKthStep() {
    World world;
    test::gears(world);
    world.enterSimulationMode();
    RecordingOptions o;
    o.every = 5;
    Recorder recorder(world, o);
    world.step(52);
    QCOMPARE(recorder.recording().size(), std::size_t{11});
    for (std::size_t i = 0; i < 11; ++i) QCOMPARE(recorder.recording().frameInfo(i).step, std::uint64_t{5 * i});
    QVERIFY(recorder.recording().findStep(35).has_value());
    QVERIFY(!recorder.recording().findStep(36).has_value());
    QCOMPARE(*recorder.recording().findAtOrBefore(39), std::size_t{7});
    // Attached between two recorded steps: the first frame comes at the next multiple.
    world.step(1);
    Recorder late(world, o);
    QVERIFY(late.recording().empty());
    QVERIFY(!late.recording().hasLayout());
    world.step(9);
    QVERIFY2(late.stopReason().empty(), late.stopReason().c_str());
    QCOMPARE(late.recording().size(), std::size_t{2});
    QCOMPARE(late.recording().frameInfo(0).step, std::uint64_t{55});
    QCOMPARE(late.recording().frameInfo(1).step, std::uint64_t{60});
  }

  void budgetDropsOldestFrames() {
    RecordingOptions o;
    o.keyframeInterval = 10;
    o.budgetBytes = 8000;
    o.overflow = RecordingOverflow::DropOldest;
    const BudgetRun run = recordChainWithBudget(o, 400);
    QVERIFY(run.stayedInBudget);
    const Recording& r = run.recorded;
    const Recording& unlimited = run.unlimited;
    QVERIFY(r.frameInfo(0).step > 300);
    QCOMPARE(r.frameInfo(r.size() - 1).step, std::uint64_t{400});
    QCOMPARE(r.frameInfo(0).step % 10, std::uint64_t{0});  // whole blocks go
    QCOMPARE(r.stats().droppedFrames + r.size(), std::size_t{401});
    for (std::size_t i = 0; i < r.size(); ++i) {
      QCOMPARE(r.frameInfo(i).step, r.frameInfo(0).step + i);
      QVERIFY(sameSnapshot(r.snapshot(i), unlimited.snapshot(static_cast<std::size_t>(r.frameInfo(i).step))));
    }
  }

  void budgetThinsOlderFramesToKeyframes() {
    RecordingOptions o;
    o.keyframeInterval = 10;
    o.budgetBytes = 12000;
    o.overflow = RecordingOverflow::ThinToKeyframes;
    const BudgetRun run = recordChainWithBudget(o, 605);
    QVERIFY(run.stayedInBudget);
    const Recording& r = run.recorded;
    const Recording& unlimited = run.unlimited;
    QVERIFY(r.stats().storedBytes <= o.budgetBytes);
    // The start of the run is still there, older frames are sparser (one
    // keyframe per block), the newest block (steps 600–605) is whole.
    QCOMPARE(r.frameInfo(0).step, std::uint64_t{0});
    QVERIFY(r.size() < 150);
    const std::size_t older = r.size() - 6;
    for (std::size_t i = 0; i < 6; ++i) QCOMPARE(r.frameInfo(older + i).step, std::uint64_t{600 + i});
    std::uint64_t previousGap = 1000000;
    std::uint64_t maxGap = 0;
    for (std::size_t i = 1; i < older; ++i) {
      const std::uint64_t gap = r.frameInfo(i).step - r.frameInfo(i - 1).step;
      QCOMPARE(gap % 10, std::uint64_t{0});
      QVERIFY(gap <= previousGap || gap == 10);  // spacing never grows towards the present
      previousGap = gap;
      maxGap = std::max(maxGap, gap);
      QVERIFY(r.frameInfo(i).keyframe);
    }
    QVERIFY(maxGap > 10);  // the oldest keyframes were thinned again
    QVERIFY(r.frameInfo(older - 1).step < 600);
    for (std::size_t i = 0; i < r.size(); ++i) {
      QVERIFY(sameSnapshot(r.snapshot(i), unlimited.snapshot(static_cast<std::size_t>(r.frameInfo(i).step))));
    }
    QCOMPARE(r.stats().droppedFrames + r.size(), std::size_t{606});
  }

  void steppingFromARestoredFrameStartsABranch() {
    World world;
    test::fourBarWithBox(world);
    world.enterSimulationMode();
    RecordingOptions o;
    o.keepBranches = true;
    o.keyframeInterval = 8;
    Recorder recorder(world, o);
    world.step(100);
    const Recording original = recorder.recording();
    recorder.restore(40);
    QCOMPARE(recorder.recording().size(), std::size_t{101});  // scrubbing discards nothing
    recorder.restore(70);
    recorder.restore(40);
    world.step(10);
    QCOMPARE(recorder.recording().size(), std::size_t{51});
    QCOMPARE(recorder.branches().size(), std::size_t{1});
    QCOMPARE(recorder.branches().begin()->first, std::string("branch 1"));
    QCOMPARE(recorder.branches().begin()->second.size(), std::size_t{101});
    // Unchanged inputs: the new branch repeats the old one bit for bit.
    for (std::size_t i = 0; i <= 50; ++i) QVERIFY(sameSnapshot(recorder.recording().snapshot(i), original.snapshot(i)));
    // A push makes a different branch.
    recorder.restore(45);
    Link coupler = *world.getMultibody("fourbar")->getLink("coupler");
    coupler.addExternalForce(Vector3d(0, 0, 500));
    world.step(5);
    QCOMPARE(recorder.recording().size(), std::size_t{51});
    QCOMPARE(recorder.branches().size(), std::size_t{2});
    QVERIFY(!sameSnapshot(recorder.recording().snapshot(50), original.snapshot(50)));
    QVERIFY(sameSnapshot(recorder.recording().snapshot(45), original.snapshot(45)));
    // Without keepBranches nothing is kept.
    Recorder plain(world);
    world.step(20);
    plain.restore(3);
    world.step(1);
    QCOMPARE(plain.recording().size(), std::size_t{5});
    QVERIFY(plain.branches().empty());
  }

  void fileRoundTrip() {
    World world;
    test::fourBarWithBox(world);
    world.enterSimulationMode();
    RecordingOptions o;
    o.keyframeInterval = 20;
    Recorder recorder(world, o);
    recorder.recording().setSceneReference("scenes/four_bar.articula");
    recorder.recording().setMetadata("root", "fixed");
    world.step(300);
    QTemporaryDir dir;
    const QString path = dir.filePath("run.replay");
    recorder.recording().save(path.toStdString());
    const Recording loaded = Recording::load(path.toStdString());
    const Recording& r = recorder.recording();
    QCOMPARE(loaded.size(), r.size());
    QVERIFY(loaded.fingerprint() == r.fingerprint());
    QCOMPARE(loaded.timeStep(), r.timeStep());
    QCOMPARE(loaded.sceneReference(), std::string("scenes/four_bar.articula"));
    QCOMPARE(loaded.metadata().at("root"), std::string("fixed"));
    QCOMPARE(loaded.options().keyframeInterval, std::uint32_t{20});
    QCOMPARE(loaded.stats().storedBytes, r.stats().storedBytes);
    for (std::size_t i = 0; i < r.size(); ++i) {
      QCOMPARE(loaded.frameInfo(i).step, r.frameInfo(i).step);
      QVERIFY(sameSnapshot(loaded.snapshot(i), r.snapshot(i)));
    }
    // A loaded recording restores into a fresh world and continues exactly.
    World fresh;
    test::fourBarWithBox(fresh);
    loaded.restore(fresh, 250);
    fresh.step(50);
    QVERIFY(sameSnapshot(fresh.captureRuntimeState(), r.snapshot(300)));
    // Saving again gives the same bytes.
    const QString again = dir.filePath("again.replay");
    loaded.save(again.toStdString());
    QVERIFY(readFile(path) == readFile(again));
    // No temporary file is left next to it.
    QVERIFY(QDir(dir.path()).entryList({"*.tmp"}, QDir::Files | QDir::Hidden).isEmpty());
  }

  void truncatedAndCorruptedFilesAreRefused() {
    World world;
    test::pile(world);
    world.enterSimulationMode();
    Recorder recorder(world);
    world.step(120);
    QTemporaryDir dir;
    const QString path = dir.filePath("pile.replay");
    recorder.recording().save(path.toStdString());
    const std::vector<unsigned char> good = readFile(path);
    QVERIFY(good.size() > 1000);
    const QString bad = dir.filePath("bad.replay");
    const auto expectRefusal = [&](const std::vector<unsigned char>& bytes, const std::vector<std::string>& needles) {
      writeFile(bad, bytes);
      std::vector<std::string> all = needles;
      all.push_back(bad.toStdString());
      EXPECT_THROW_NAMING(ReplayFileError, all, Recording::load(bad.toStdString()));
    };
    for (const std::size_t keep :
         {std::size_t{9}, std::size_t{24}, std::size_t{31}, good.size() / 2, good.size() - 9, good.size() - 1}) {
      expectRefusal(std::vector<unsigned char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(keep)),
                    {"truncated"});
    }
    expectRefusal({}, {"not an Articula replay"});
    expectRefusal(std::vector<unsigned char>{'s', 'o', 'l', 'i', 'd', ' ', 'x', 'y', 'z', '\n'},
                  {"not an Articula replay"});
    // A flipped bit anywhere is caught (by the header checks or the checksum).
    for (std::size_t at = 0; at < good.size(); at += 1 + good.size() / 300) {
      std::vector<unsigned char> flipped = good;
      flipped[at] ^= static_cast<unsigned char>(1u << (at % 8));
      writeFile(bad, flipped);
      EXPECT_THROW_NAMING(ReplayFileError, std::vector<std::string>{bad.toStdString()},
                          Recording::load(bad.toStdString()));
    }
    {
      std::vector<unsigned char> flipped = good;
      flipped[good.size() / 2] ^= 0x10;
      expectRefusal(flipped, {"corrupted", "checksum"});
      std::vector<unsigned char> version = good;
      version[8] = 7;
      expectRefusal(version, {"version 7"});
    }
    // Damage with a matching checksum: structural checks refuse it or the
    // file loads; it never crashes or loads half.
    std::mt19937 rng(7);
    int refused = 0;
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<unsigned char> damaged = good;
      const std::size_t at = 24 + rng() % (good.size() - 32);
      damaged[at] = static_cast<unsigned char>(rng());
      const std::uint64_t sum = fnv1a(damaged.data(), damaged.size() - 8);
      std::memcpy(damaged.data() + damaged.size() - 8, &sum, 8);
      writeFile(bad, damaged);
      try {
        const Recording r = Recording::load(bad.toStdString());
        QCOMPARE(r.size(), recorder.recording().size());
        for (std::size_t i = 0; i < r.size(); i += 17) r.snapshot(i);
      } catch (const ReplayFileError& e) {
        ++refused;
        QVERIFY(std::string(e.what()).find(bad.toStdString()) == 0);
      }
    }
    QVERIFY(refused > 0);
    // The good file still loads.
    QCOMPARE(Recording::load(path.toStdString()).size(), std::size_t{121});
    EXPECT_THROW_NAMING(ReplayFileError, std::vector<std::string>{"no such file"},
                        Recording::load(dir.filePath("missing.replay").toStdString()));
  }

  void badOptionsAreRefused() {
    RecordingOptions o;
    o.every = 0;
    EXPECT_THROW_NAMING(InvalidArgument, std::vector<std::string>{"every"}, Recording{o});
    o = {};
    o.keyframeInterval = 0;
    EXPECT_THROW_NAMING(InvalidArgument, std::vector<std::string>{"keyframeInterval"}, Recording{o});
    o = {};
    o.budgetBytes = 0;
    EXPECT_THROW_NAMING(InvalidArgument, std::vector<std::string>{"budgetBytes"}, Recording{o});
    Recording empty;
    EXPECT_THROW_NAMING(InvalidArgument, std::vector<std::string>{"out of range"}, empty.snapshot(0));
  }
};

QTEST_GUILESS_MAIN(TestRecording)
#include "test_recording.moc"

// Keyframes (articula/keyframe.hpp): the World API, the WorldSpec, the
// scene format, and keyframe sequences as position schedules.

#include "test_helpers.hpp"

#include <articula/articula.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kScene = fs::path(ARTICULA_SOURCE_DIR) / "scenes" / "keyframe_arm.articula";

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

class TestKeyframes : public QObject {
  Q_OBJECT

 private slots:
  void sceneFileRoundTrips() {
    World world;
    io::loadScene(world, kScene);
    QCOMPARE(world.getKeyframes().size(), std::size_t(3));
    const KeyframeSpec reach = *world.getKeyframe("reach");
    QCOMPARE(reach.time, 1.0);
    QCOMPARE(reach.q, (VectorXd(2) << 0.8, -0.6).finished());
    QCOMPARE(reach.v.size(), Eigen::Index(0));
    // Load → save reproduces the file byte for byte, and the spec round trips.
    QCOMPARE(io::sceneToString(world, kScene.parent_path()), readText(kScene));
    World copy(world.getSpec());
    QVERIFY(copy.getSpec() == world.getSpec());
    // Velocities and controls are written when present.
    KeyframeSpec moving = world.captureKeyframe("moving", 4.0, true, true);
    moving.v << 0.5, -0.25;
    world.addKeyframe(moving);
    World reread;
    io::loadSceneFromString(reread, io::sceneToString(world), "moving.articula");
    QVERIFY(reread.getSpec() == world.getSpec());
    QCOMPARE(reread.getKeyframe("moving")->v, moving.v);
    QCOMPARE(reread.getKeyframe("moving")->controls.size(), Eigen::Index(2));
    // A scene without actuators, schedules or keyframes stays version 1.
    World bare;
    bare.addRigidBody("box");
    QVERIFY(io::sceneToString(bare).find("version=\"1\"") != std::string::npos);
    bare.addKeyframe(bare.captureKeyframe("rest"));
    QVERIFY(io::sceneToString(bare).find("version=\"2\"") != std::string::npos);
  }

  // The schedules in the scene are exactly those makeKeyframeSchedules makes
  // from its keyframes in time order.
  void keyframeSequencesBecomeSchedules() {
    World world;
    io::loadScene(world, kScene);
    const std::vector<ScheduleSpec> made = world.makeKeyframeSchedules({"home", "reach", "fold"});
    QCOMPARE(made.size(), std::size_t(2));
    const std::vector<ScheduleSpec> schedules = world.getSchedules();
    for (const ScheduleSpec& s : made) {
      const auto stored =
          std::find_if(schedules.begin(), schedules.end(), [&](const ScheduleSpec& x) { return x.name == s.name; });
      QVERIFY2(stored != schedules.end(), s.name.c_str());
      QVERIFY(stored->keyframes == s.keyframes);
      QCOMPARE(stored->actuator, s.actuator);
    }
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, world.makeKeyframeSchedules({"reach", "home"}));  // times decrease
    QVERIFY_THROWS_EXCEPTION(TopologyError, world.makeKeyframeSchedules({"home", "nowhere"}));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, world.makeKeyframeSchedules({}));
  }

  void applyAndValidate() {
    World world;
    io::loadScene(world, kScene);
    world.setVelocities((VectorXd(2) << 1.0, 2.0).finished());
    world.applyKeyframe("fold");
    QCOMPARE(world.getPositions(), (VectorXd(2) << -0.4, 1.2).finished());
    QCOMPARE(world.getVelocities(), VectorXd::Zero(2).eval());
    QVERIFY_THROWS_EXCEPTION(TopologyError, world.applyKeyframe("nowhere"));
    KeyframeSpec bad = world.captureKeyframe("bad");
    bad.q.resize(3);
    bad.q.setZero();
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, world.addKeyframe(bad));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, world.addKeyframe(world.captureKeyframe("reach")));  // taken
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, world.addKeyframe(world.captureKeyframe("a/b")));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, world.addKeyframe(world.captureKeyframe("late", -1.0)));
    // After an edit that adds coordinates, applying an old keyframe is refused, naming both counts.
    world.addRigidBody("extra");
    try {
      world.applyKeyframe("reach");
      QFAIL("applied a keyframe of another layout");
    } catch (const TopologyError& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("holds 2 positions") != std::string::npos && m.find("now has 9") != std::string::npos, m.c_str());
    }
    world.removeKeyframe("reach");
    QVERIFY(!world.getKeyframe("reach"));
    world.clear();
    QVERIFY(world.getKeyframes().empty());
  }

  // A malformed keyframe in a file: the file, the line and what was expected.
  void badKeyframeInAFileNamesTheLine() {
    std::string text = readText(kScene);
    const std::string good = "<keyframe name=\"reach\" time=\"1\" q=\"0.8 -0.6\"/>";
    const auto at = text.find(good);
    QVERIFY(at != std::string::npos);
    text.replace(at, good.size(), "<keyframe name=\"reach\" time=\"1\" q=\"0.8 -0.6 0.1\"/>");
    World world;
    try {
      io::loadSceneFromString(world, text, "arm.articula");
      QFAIL("accepted a keyframe with three positions for two coordinates");
    } catch (const io::ImportError& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("arm.articula") != std::string::npos && m.find(":37") != std::string::npos &&
                   m.find("q has 3 values; the world has 2") != std::string::npos,
               m.c_str());
    }
  }
};

QTEST_MAIN(TestKeyframes)
#include "test_keyframes.moc"

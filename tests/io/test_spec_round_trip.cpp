// World → WorldSpec → World on everything that ships and every shared robot:
// the built-in scenes, scenes/*.articula, the example-robot-data URDFs
// (welded, and floating on a ground so that contacts are part of the run)
// and the public corpus. The rebuilt world must step 200 steps bit for bit
// like the original, its spec must rebuild the same world again, and so must
// the native scene text written from it.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include "builtin_scenes.hpp"
#include "models.hpp"
#include "sdformat_home.hpp"

#include <QtTest/QtTest>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = fs::path(ARTICULA_SOURCE_DIR);
const fs::path kModels = articula::test::modelsPath();
const fs::path kCorpus = kSource / "tests" / "data" / "corpus";

bool sameBits(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0);
}

std::vector<fs::path> sharedRobots() {
  std::vector<fs::path> out;
  if (!fs::is_directory(kModels)) return out;
  for (const auto& e : fs::recursive_directory_iterator(kModels)) {
    if (e.is_regular_file() && e.path().extension() == ".urdf") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  std::ifstream in(kCorpus / "corpus.list");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    files.push_back(line.substr(first, line.find_last_not_of(" \t\r") - first + 1));
  }
  return files;
}

// Builds the world a row names: "builtin:NAME", "scene:FILE", "robot:FILE",
// "floating:FILE" (free root on a ground) or "corpus:ENTRY/FILE".
void build(World& world, const QString& row) {
  const std::string what = row.section(':', 1).toStdString();
  if (row.startsWith("builtin:")) {
    scenes::buildScene(world, what);
  } else if (row.startsWith("scene:")) {
    io::loadScene(world, kSource / "scenes" / what);
  } else {
    io::ImportOptions o;
    o.useEnvironmentPaths = false;
    if (row.startsWith("corpus:")) {
      o.packagePath = {kCorpus / fs::path(what).begin()->string()};
      o.addGroundPlane = true;
      io::importFile(world, kCorpus / what, o);
    } else {
      o.packagePath = {kModels, kModels / "example-robot-data" / "robots"};
      if (row.startsWith("floating:")) {
        o.root = io::RootAttachment::Floating;
        o.addGroundPlane = true;
      }
      io::importFile(world, what, o);
    }
  }
}

}  // namespace

class TestSpecRoundTrip : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(articula::test::ensureWritableHomeForSdformat(m_home)); }

  void sharedModelsArePresent() {
    // A missing model folder is a failure in CI, not a quiet pass over fewer rows.
    ARTICULA_REQUIRE_MODEL(kModels / "example-robot-data");
    QVERIFY2(sharedRobots().size() >= 15,
             qPrintable("expected the example-robot-data URDFs under " + QString::fromStdString(kModels.string())));
  }

  void rebuildsBitForBit_data() {
    QTest::addColumn<QString>("row");
    for (const auto& s : scenes::builtinScenes()) {
      const std::string name = s.name == "chain-N" ? "chain-25" : s.name;  // the parametrised chain
      QTest::addRow("builtin %s", name.c_str()) << ("builtin:" + QString::fromStdString(name));
    }
    for (const auto& e : fs::directory_iterator(kSource / "scenes")) {
      if (e.path().extension() != ".articula") continue;
      const std::string name = e.path().filename().string();
      QTest::addRow("scene %s", name.c_str()) << ("scene:" + QString::fromStdString(name));
    }
    for (const fs::path& p : sharedRobots()) {
      const std::string name = p.filename().string();
      QTest::addRow("robot %s", name.c_str()) << ("robot:" + QString::fromStdString(p.string()));
      QTest::addRow("floating %s", name.c_str()) << ("floating:" + QString::fromStdString(p.string()));
    }
    for (const std::string& f : corpusFiles())
      QTest::addRow("corpus %s", f.c_str()) << ("corpus:" + QString::fromStdString(f));
  }

  void rebuildsBitForBit() {
    QFETCH(QString, row);
    World a;
    try {
      build(a, row);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("could not build the original: %1").arg(e.what())));
    }
    const WorldSpec spec = a.getSpec();
    World b(spec);
    QCOMPARE(b.numPositions(), a.numPositions());
    QCOMPARE(b.numShapes(), a.numShapes());
    QCOMPARE(b.numLoopClosures(), a.numLoopClosures());
    QCOMPARE(b.numJointCouplers(), a.numJointCouplers());
    QVERIFY(b.getStateSpace().positionNames() == a.getStateSpace().positionNames());
    // The spec of the rebuilt world rebuilds it again.
    World c(b.getSpec());
    // The native scene format is written from the spec and read back into one:
    // saving and loading is lossless too.
    World d;
    try {
      io::loadSceneFromString(d, io::sceneToString(a, kSource), "<saved>", kSource);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("the saved scene does not load: %1").arg(e.what())));
    }
    QCOMPARE(d.numShapes(), a.numShapes());
    for (int k = 0; k < 200; ++k) {
      a.step();
      b.step();
      c.step();
      d.step();
      if (!sameBits(a.getPositions(), b.getPositions()) || !sameBits(a.getVelocities(), b.getVelocities()) ||
          !sameBits(a.getPositions(), c.getPositions()) || !sameBits(a.getPositions(), d.getPositions()) ||
          !sameBits(a.getVelocities(), d.getVelocities())) {
        QFAIL(qPrintable(QString("states differ after step %1").arg(k + 1)));
      }
      QCOMPARE(b.getContacts().size(), a.getContacts().size());
    }
  }

  // Importers read into a world of their own and apply the result in one go:
  // a file that fails late (after bodies were built) leaves the target world
  // exactly as it was, options and observers included.
  void failedImportsLeaveTheWorldUntouched_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("text");
    QTest::addRow("urdf") << "urdf"
                          << "<robot name='r'><link name='a'><inertial><mass value='1'/><inertia ixx='1' iyy='1' "
                             "izz='1' ixy='0' ixz='0' iyz='0'/></inertial></link><link name='b'><inertial><mass "
                             "value='-1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/></inertial>"
                             "</link><joint name='j' type='revolute'><parent link='a'/><child link='b'/><axis "
                             "xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>";
    QTest::addRow("articula") << "articula"
                              << "<articula version='1'><multibody name='m'><link name='l'><inertia mass='1' "
                                 "com='0 0 0' rotational='1 0 0 0 1 0 0 0 1'/><joint name='j' type='free'/></link>"
                                 "</multibody><shape name='s' kind='collision' owner='ghost'><geometry "
                                 "type='sphere' radius='0.1'/></shape></articula>";
  }

  void failedImportsLeaveTheWorldUntouched() {
    QFETCH(QString, format);
    QFETCH(QString, text);
    WorldOptions options;
    options.gravity = Vector3d(0, 0, -1.62);
    options.timeStep = 2e-3;
    World world(options);
    int observed = 0;
    world.addStepObserver([&](const World&) { ++observed; });
    bool failed = false;
    try {
      if (format == "urdf") {
        io::importUrdfFromString(world, text.toStdString());
      } else {
        io::loadSceneFromString(world, text.toStdString());
      }
    } catch (const std::exception&) {
      failed = true;
    }
    QVERIFY(failed);
    QCOMPARE(world.numMultibodies() + world.numRigidBodies() + world.numShapes(), std::size_t{0});
    QCOMPARE(world.getOptions().gravity.z(), -1.62);
    QCOMPARE(world.getOptions().timeStep, 2e-3);
    world.step();
    QCOMPARE(observed, 1);
  }

 private:
  QTemporaryDir m_home;
};

QTEST_MAIN(TestSpecRoundTrip)
#include "test_spec_round_trip.moc"

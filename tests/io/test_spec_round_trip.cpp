// World → WorldSpec → World on everything that ships and every shared robot:
// the built-in scenes, scenes/*.articula, the example-robot-data URDFs
// (welded, and floating on a ground so that contacts are part of the run)
// and the public corpus. The rebuilt world must step 200 steps bit for bit
// like the original, and its spec must rebuild the same world again.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include "builtin_scenes.hpp"
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
const fs::path kModels = kSource.parent_path() / "shared" / "models";
const fs::path kCorpus = kSource / "tests" / "data" / "corpus";

bool sameBits(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
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
    // A missing model folder is a failure, not a quiet pass over fewer rows.
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
    for (int k = 0; k < 200; ++k) {
      a.step();
      b.step();
      c.step();
      if (!sameBits(a.getPositions(), b.getPositions()) || !sameBits(a.getVelocities(), b.getVelocities()) ||
          !sameBits(a.getPositions(), c.getPositions())) {
        QFAIL(qPrintable(QString("states differ after step %1").arg(k + 1)));
      }
      QCOMPARE(b.getContacts().size(), a.getContacts().size());
    }
  }

 private:
  QTemporaryDir m_home;
};

QTEST_MAIN(TestSpecRoundTrip)
#include "test_spec_round_trip.moc"

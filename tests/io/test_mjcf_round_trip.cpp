// Export to MJCF, import the MJCF back: for every built-in scene, every
// scenes/*.articula and every shared robot (welded, and floating on a
// ground), the world read back has the same forward kinematics, mass
// properties, mass matrix, joint properties and closures as the original
// (tests/io/export_compare.hpp), except what the export report lists.
// And the MJCF scenes that ship read, export and read back unchanged.
#include <articula/articula.hpp>
#include <articula/io/export.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include "builtin_scenes.hpp"
#include "export_compare.hpp"
#include "models.hpp"

#include <QtTest/QtTest>

#include <filesystem>
#include <string>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = fs::path(ARTICULA_SOURCE_DIR);
const fs::path kModels = articula::test::modelsPath();

io::ImportOptions readOptions() {
  io::ImportOptions o;
  o.useEnvironmentPaths = false;
  o.packagePath = {kModels, kModels / "example-robot-data" / "robots"};
  return o;
}

void build(World& world, const QString& row) {
  const std::string what = row.section(':', 1).toStdString();
  if (row.startsWith("builtin:")) {
    scenes::buildScene(world, what);
  } else if (row.startsWith("scene:")) {
    io::loadScene(world, kSource / "scenes" / what);
  } else {
    io::ImportOptions o = readOptions();
    if (row.startsWith("floating:")) {
      o.root = io::RootAttachment::Floating;
      o.addGroundPlane = true;
    }
    io::importFile(world, what, o);
  }
}

// Closures the writer wrote in another form (a Hinge as two connects)
// come back under other names: they are checked by what they hold, below.
// Shapes written in another form (a mesh inline) are not compared.
test::ExportCompareOptions compareOptions(const io::ExportReport& report) {
  test::ExportCompareOptions o;
  o.compareInitialState = true;
  o.compareWorldOptions = true;
  o.skipNotExported(report);
  for (const io::ExportEntry& e : report.converted) {
    if (e.object.rfind("closure ", 0) == 0 || e.object.rfind("shape ", 0) == 0) o.skipObject(e.object);
  }
  return o;
}

}  // namespace

class TestMjcfRoundTrip : public QObject {
  Q_OBJECT

 private slots:
  void roundTrip_data() {
    QTest::addColumn<QString>("row");
    for (const auto& s : scenes::builtinScenes()) {
      const std::string name = s.name == "chain-N" ? "chain-25" : s.name;
      QTest::addRow("builtin %s", name.c_str()) << ("builtin:" + QString::fromStdString(name));
    }
    for (const auto& e : fs::directory_iterator(kSource / "scenes")) {
      if (e.path().extension() != ".articula") continue;
      QTest::addRow("scene %s", e.path().filename().string().c_str())
          << ("scene:" + QString::fromStdString(e.path().filename().string()));
    }
    std::vector<fs::path> robots;
    if (fs::is_directory(kModels)) {
      for (const auto& e : fs::recursive_directory_iterator(kModels)) {
        if (e.is_regular_file() && e.path().extension() == ".urdf") robots.push_back(e.path());
      }
    }
    std::sort(robots.begin(), robots.end());
    for (const fs::path& r : robots) {
      QTest::addRow("robot %s", r.filename().string().c_str()) << ("robot:" + QString::fromStdString(r.string()));
      QTest::addRow("floating %s", r.filename().string().c_str()) << ("floating:" + QString::fromStdString(r.string()));
    }
  }

  void roundTrip() {
    QFETCH(QString, row);
    ARTICULA_REQUIRE_MODEL(kModels / "example-robot-data");
    World original;
    build(original, row);
    const WorldSpec spec = original.getSpec();
    io::ExportReport report;
    io::ExportOptions eo;
    const std::string text = io::toMjcf(spec, report, eo);
    QVERIFY(!text.empty());
    World back;
    try {
      io::importMjcfFromString(back, text, "<exported mjcf>", {}, readOptions());
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("the exported MJCF does not import: ") + e.what() + "\n" +
                       QString::fromStdString(text.substr(0, 3000))));
    }
    const std::string differences = test::compareExported(original, back, compareOptions(report));
    if (!differences.empty()) qInfo("%s", report.toText().c_str());
    QVERIFY2(differences.empty(), differences.c_str());
    // Converted closures still hold where the original's do: at the
    // original's configuration, read back, the stacked residual is as small.
    double worst = 0.0;
    for (const LoopClosure& c : back.getLoopClosures()) worst = std::max(worst, c.computeResidualNorm());
    double originalWorst = 0.0;
    for (const LoopClosure& c : original.getLoopClosures())
      originalWorst = std::max(originalWorst, c.computeResidualNorm());
    QVERIFY2(worst <= std::max(1e-6, 10.0 * originalWorst), qPrintable(QString::number(worst)));
    // Every closure of the original is there, as itself or reported.
    QVERIFY(back.numLoopClosures() + report.notExported.size() >= original.numLoopClosures());
  }

  // The MJCF files that ship: read, written and read again, nothing changes.
  void shippedMjcfScenes_data() {
    QTest::addColumn<QString>("file");
    for (const auto& e : fs::directory_iterator(kSource / "scenes" / "mjcf")) {
      if (e.path().extension() == ".xml") {
        QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().string());
      }
    }
  }
  void shippedMjcfScenes() {
    QFETCH(QString, file);
    World original;
    io::importFile(original, file.toStdString(), readOptions());
    const QString out = QDir::temp().filePath("articula_round_trip_" + QFileInfo(file).fileName());
    const io::ExportReport report = io::exportFile(original, out.toStdString());
    QVERIFY2(report.notExported.empty(), report.toText().c_str());
    World back;
    io::importFile(back, out.toStdString(), readOptions());
    QFile::remove(out);
    const std::string differences = test::compareExported(original, back, compareOptions(report));
    QVERIFY2(differences.empty(), differences.c_str());
    QCOMPARE(back.numActuators(), original.numActuators());
    QCOMPARE(back.numSensors(), original.numSensors());
    QVERIFY(back.getKeyframes().size() >= original.getKeyframes().size());  // plus "initial" when q is not neutral
    for (std::size_t i = 0; i < original.getKeyframes().size(); ++i) {
      const KeyframeSpec a = original.getKeyframes()[i];
      const KeyframeSpec b = *back.getKeyframe(a.name);
      QVERIFY((a.q - b.q).norm() < 1e-9);
    }
  }
};

QTEST_GUILESS_MAIN(TestMjcfRoundTrip)
#include "test_mjcf_round_trip.moc"

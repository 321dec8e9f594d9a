// Sensors in files: SDF <sensor> elements (imu, contact, ray/lidar on
// links; force_torque on joints) become engine sensors with their poses,
// rates, noise and directions, what is not simulated is reported with its
// line, the readings of the imported rig match statics, and the native
// scene format keeps sensors byte for byte.
#include "test_helpers.hpp"

#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include "sdformat_home.hpp"

#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

fs::path sensorsFile() {
  return fs::path(ARTICULA_SOURCE_DIR) / "tests" / "data" / "sdf" / "sensors.sdf";
}

io::ImportOptions testOptions() {
  io::ImportOptions o;
  o.useEnvironmentPaths = false;
  return o;
}

const io::ReportEntry* findEntry(const std::vector<io::ReportEntry>& list, const std::string& needle) {
  for (const io::ReportEntry& e : list) {
    if (e.message.find(needle) != std::string::npos) return &e;
  }
  return nullptr;
}

}  // namespace

class TestSensorFiles : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_home;

 private slots:
  void initTestCase() { QVERIFY(articula::test::ensureWritableHomeForSdformat(m_home)); }

  void sdfSensorsAreImported() {
    World world;
    const io::ImportReport report = io::importSdf(world, sensorsFile(), testOptions());
    QCOMPARE(world.numSensors(), std::size_t{6});
    QCOMPARE(report.sensors.size(), std::size_t{6});
    const std::string base = world.getSensor("rig::base::imu")->getSpec().frame;
    QCOMPARE(base, std::string("rig/base"));

    // IMU: pose in the link, rate, one noise level (the largest), a warning for the differing axes.
    const SensorSpec imu = world.getSensor("rig::base::imu")->getSpec();
    QVERIFY(imu.type == SensorType::Imu);
    QCOMPARE(imu.rate, 200.0);
    QCOMPARE(imu.noiseStddev, 0.02);
    QVERIFY((imu.pose.translation() - Vector3d(0.05, 0, 0.02)).norm() < 1e-15);
    QVERIFY((imu.pose.linear() - Eigen::AngleAxisd(std::numbers::pi / 2, Vector3d::UnitZ()).toRotationMatrix()).norm() <
            1e-12);
    const io::ReportEntry* noise = findEntry(report.warnings, "different noise");
    QVERIFY(noise != nullptr);
    QCOMPARE(noise->line, 24);

    // Contact on the link; the single ray as a rangefinder with its range.
    QVERIFY(world.getSensor("rig::base::bumper")->type() == SensorType::Contact);
    const SensorSpec cliff = world.getSensor("rig::base::cliff")->getSpec();
    QVERIFY(cliff.type == SensorType::Rangefinder);
    QCOMPARE(cliff.minRange, 0.01);
    QCOMPARE(cliff.maxRange, 3.0);
    // A 640-ray scan: one rangefinder, and a warning with its line.
    const io::ReportEntry* scan = findEntry(report.warnings, "640 rays");
    QVERIFY(scan != nullptr);
    QCOMPARE(scan->line, 54);
    // The camera is reported, with its line.
    const io::ReportEntry* cam = findEntry(report.ignored, "<sensor name='cam'>");
    QVERIFY(cam != nullptr);
    QCOMPARE(cam->line, 65);
    QVERIFY(report.toText().find("sensor: ") != std::string::npos);
    QVERIFY(report.toJson().find("\"sensors\":[{") != std::string::npos);
    QVERIFY(report.summary().find("6 sensors") != std::string::npos);

    // Force–torque: the child's frame and SDF's default direction.
    const SensorSpec ft = world.getSensor("rig::hinge::ft")->getSpec();
    QVERIFY(ft.type == SensorType::ForceTorque);
    QVERIFY(ft.childOnParent);
    QCOMPARE(ft.rate, 100.0);
    QCOMPARE(ft.joint, std::string("rig/hinge"));
    const SensorSpec up = world.getSensor("rig::hinge::ft_up")->getSpec();
    QVERIFY(!up.childOnParent);
    QVERIFY((up.pose.translation() - Vector3d(0, 0, 0.1)).norm() < 1e-15);
  }

  void importedSensorsReadStatics() {
    World world;
    io::importSdf(world, sensorsFile(), testOptions());
    world.step(3);
    const double g = -world.getOptions().gravity.z();  // SDF's default: 9.8
    // The arm (1.5 kg, its centre of mass on the hinge axis) hangs from the hinge.
    const VectorXd ft = world.getSensor("rig::hinge::ft")->getReading().values;
    const VectorXd up = world.getSensor("rig::hinge::ft_up")->getReading().values;
    QVERIFY2(std::abs(ft[2] + 1.5 * g) < 1e-9, qPrintable(test::vec(ft)));
    QVERIFY2(std::abs(up[2] - 1.5 * g) < 1e-9, qPrintable(test::vec(up)));
    QVERIFY(ft.segment<2>(0).norm() < 1e-9 && up.tail<3>().norm() < 1e-9);
    // The downward ray from 1 m above the ground plane (the base's own box is not seen).
    const VectorXd cliff = world.getSensor("rig::base::cliff")->getReading().values;
    QVERIFY2(std::abs(cliff[0] - 1.0) < 1e-12, qPrintable(test::vec(cliff)));
    // The base is welded to the world: the IMU reads +g along its z (plus noise of 0.02).
    const VectorXd imu = world.getSensor("rig::base::imu")->getReading().values;
    QVERIFY2(std::abs(imu[2] - g) < 0.2, qPrintable(test::vec(imu)));
  }

  void scenesKeepSensorsByteForByte() {
    World world;
    io::importSdf(world, sensorsFile(), testOptions());
    const std::string text = io::sceneToString(world);
    QVERIFY(text.find("<articula version=\"3\">") != std::string::npos);
    QVERIFY(text.find("direction=\"child_to_parent\"") != std::string::npos);
    World copy;
    try {
      io::loadSceneFromString(copy, text);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QVERIFY(copy.getSpec() == world.getSpec());
    QCOMPARE(io::sceneToString(copy), text);
  }

  void badSensorElementsFailWithTheLine() {
    World model;
    Multibody mb = model.addMultibody("m");
    LinkOptions lo;
    lo.name = "l";
    mb.addLink(lo, JointSpec::revolute(Vector3d::UnitZ()).named("j"));
    const std::string scene = io::sceneToString(model);
    const std::size_t end = scene.rfind("</articula>");
    std::string head = scene.substr(0, end);
    QVERIFY(head.find("version=\"1\"") != std::string::npos);
    head.replace(head.find("version=\"1\""), 11, "version=\"3\"");
    const int line = static_cast<int>(std::count(head.begin(), head.end(), '\n')) + 1;
    struct Case {
      std::string element;
      std::string needle;
    };
    const std::vector<Case> cases = {
        {"  <sensor name=\"s\" type=\"sonar\" frame=\"m/l\"/>\n", "unknown sensor type 'sonar'"},
        {"  <sensor name=\"s\" type=\"imu\" frame=\"m/nowhere\"/>\n", "no frame 'm/nowhere'"},
        {"  <sensor name=\"s\" type=\"force_torque\" joint=\"m/j\" direction=\"up\"/>\n", "direction"},
        {"  <sensor name=\"s\" type=\"imu\" frame=\"m/l\" rate=\"-3\"/>\n", "rate"},
    };
    for (const Case& c : cases) {
      World w;
      bool thrown = false;
      try {
        io::loadSceneFromString(w, head + c.element + "</articula>\n", "bad.articula");
      } catch (const io::ImportError& e) {
        thrown = true;
        const std::string what = e.what();
        QVERIFY2(what.find(c.needle) != std::string::npos, what.c_str());
        QCOMPARE(e.line(), line);
      }
      QVERIFY2(thrown, c.element.c_str());
      QCOMPARE(w.numSensors(), std::size_t{0});
    }
    // A version-2 scene does not know sensors.
    World w;
    std::string v2 = head + "  <sensor name=\"s\" type=\"imu\" frame=\"m/l\"/>\n</articula>\n";
    v2.replace(v2.find("version=\"3\""), 11, "version=\"2\"");
    bool thrown = false;
    try {
      io::loadSceneFromString(w, v2, "old.articula");
    } catch (const io::ImportError& e) {
      thrown = std::string(e.what()).find("unknown element <sensor>") != std::string::npos;
    }
    QVERIFY(thrown);
  }
};

QTEST_GUILESS_MAIN(TestSensorFiles)
#include "test_sensor_files.moc"

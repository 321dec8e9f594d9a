// URDF import: real robots from example-robot-data load with the DoF counts
// their files declare; closed loops (a link with two parents, <loop_joint>)
// are cut into closures that hold while simulating; <mimic> becomes a
// coupler; every malformed input gives its own ImportError with the line and
// leaves the World empty.
#include "models.hpp"
#include "test_helpers.hpp"

#include <articula/io/import.hpp>

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <QXmlStreamReader>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(ARTICULA_SOURCE_DIR) / "tests" / "data" / "urdf";
const fs::path kModels = articula::test::modelsPath();
const fs::path kRobots = kModels / "example-robot-data" / "robots";

io::ImportOptions modelOptions() {
  io::ImportOptions o;
  o.packagePath.push_back(kModels);
  o.useEnvironmentPaths = false;
  return o;
}

// Moving DoFs a URDF declares, counted from the XML independently of the
// importer: one per revolute, continuous and prismatic <joint>, three per
// planar, six per floating.
int declaredDofs(const fs::path& file) {
  QFile f(QString::fromStdString(file.string()));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  QXmlStreamReader xml(&f);
  int dofs = 0;
  int depth = 0;
  while (!xml.atEnd()) {
    const auto token = xml.readNext();
    if (token == QXmlStreamReader::StartElement) {
      ++depth;
      if (depth == 2 && xml.name() == QLatin1String("joint")) {
        const QString type = xml.attributes().value("type").toString();
        if (type == "revolute" || type == "continuous" || type == "prismatic") dofs += 1;
        if (type == "planar") dofs += 3;
        if (type == "floating") dofs += 6;
      }
    } else if (token == QXmlStreamReader::EndElement) {
      --depth;
    }
  }
  return xml.hasError() ? -1 : dofs;
}

double totalResidual(const World& world) {
  double r = 0.0;
  for (const LoopClosure& c : world.getLoopClosures()) r = std::max(r, c.computeResidual().norm);
  return r;
}

void useRk4(World& world) {
  WorldOptions o = world.getOptions();
  o.integrator = Integrator::RungeKutta4;
  o.timeStep = 1e-3;
  world.setOptions(o);
}

double energy(const World& world) {
  return world.computeKineticEnergy() + world.computePotentialEnergy();
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

class TestUrdfImport : public QObject {
  Q_OBJECT

 private slots:
  // A floating base without an <inertial> carrying an arm on a hinge (as
  // many public arm descriptions are written): the free joint would be
  // singular, so the base is given a small mass with a warning, and the
  // robot falls freely at g without diverging.
  void masslessFloatingBaseGetsAMass() {
    std::string urdf = "<robot name='arm'><link name='base'/>";
    std::string parent = "base";
    for (int i = 1; i <= 3; ++i) {
      const std::string link = "l" + std::to_string(i);
      urdf += "<joint name='j" + std::to_string(i) + "' type='revolute'><parent link='" + parent + "'/><child link='" +
              link +
              "'/><origin xyz='0 0 0.2'/><axis xyz='0 0 1'/><limit lower='-3' upper='3' effort='1' "
              "velocity='1'/></joint><link name='" +
              link +
              "'><inertial><mass value='1'/><inertia ixx='0.01' iyy='0.01' izz='0.01' ixy='0' ixz='0' "
              "iyz='0'/></inertial></link>";
      parent = link;
    }
    urdf += "</robot>";
    io::ImportOptions o;
    o.root = io::RootAttachment::Floating;
    World world;
    const io::ImportReport report = io::importUrdfFromString(world, urdf, "arm.urdf", {}, o);
    const Link base = *world.getMultibody("arm")->getLink("base");
    QCOMPARE(base.getInertia().mass, 0.03);  // 1 % of the 3 kg arm
    bool warned = false;
    for (const auto& w : report.warnings)
      warned = warned || w.message.find("'base' moves with 6 DoFs") != std::string::npos;
    QVERIFY(warned);
    world.step(500);
    QVERIFY(!world.getStepDiagnostics().failed);
    // Free fall: the centre of mass moves down at g·t.
    const Multibody mb = *world.getMultibody("arm");
    const double t = world.getTime();
    QVERIFY(std::abs(mb.getCOMLinearVelocity().z() + 9.81 * t) < 1e-6);
  }

  // ---- real robots -------------------------------------------------------

  void exampleRobotDataLoads_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("documentedDofs");  // from the models' README, -1 where it gives none
    if (!fs::is_directory(kRobots)) {
      QTest::newRow("absent") << QString() << -1;
      return;
    }
    const std::map<std::string, int> documented{
        {"panda.urdf", 9},   {"panda_collision.urdf", 9}, {"ur5_robot.urdf", 6},      {"ur5_gripper.urdf", 6},
        {"solo12.urdf", 12}, {"hyq_no_sensors.urdf", 12}, {"double_pendulum.urdf", 2}};
    std::set<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(kRobots)) {
      if (e.path().extension() == ".urdf") files.insert(e.path().string());
    }
    for (const std::string& f : files) {
      const std::string leaf = fs::path(f).filename().string();
      const auto it = documented.find(leaf);
      QTest::newRow(leaf.c_str()) << QString::fromStdString(f) << (it == documented.end() ? -1 : it->second);
    }
  }

  void exampleRobotDataLoads() {
    QFETCH(QString, file);
    QFETCH(int, documentedDofs);
    if (file.isEmpty()) ARTICULA_REQUIRE_MODEL(kRobots);
    const fs::path path = file.toStdString();
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdf(world, path, modelOptions()));
    QCOMPARE(world.numMultibodies(), std::size_t{1});
    QCOMPARE(world.numDofs(), declaredDofs(path));
    if (documentedDofs >= 0) QCOMPARE(world.numDofs(), documentedDofs);
    QVERIFY(world.numShapes() > 0);
    // What is not imported is listed with file and line.
    const std::string text = readFile(path);
    if (text.find("<gazebo") != std::string::npos || text.find("<transmission") != std::string::npos) {
      QVERIFY(!report.ignored.empty());
      for (const io::ReportEntry& e : report.ignored) {
        QCOMPARE(QString::fromStdString(e.file), file);
        QVERIFY2(e.line > 0, e.message.c_str());
      }
    }
    QVERIFY(report.toText().find(path.string()) != std::string::npos);
    // The floating-base variant adds the six DoFs of a free root.
    World floating;
    io::ImportOptions o = modelOptions();
    o.root = io::RootAttachment::Floating;
    o.loadMeshes = false;
    EXPECT_NO_THROW(io::importUrdf(floating, path, o));
    QCOMPARE(floating.numDofs(), world.numDofs() + 6);
    // A short run stays finite.
    world.step(20);
    QVERIFY(world.getPositions().allFinite());
  }

  void meshesComeFromTheirFiles() {
    const fs::path ur5 = kRobots / "ur_description" / "urdf" / "ur5_robot.urdf";
    ARTICULA_REQUIRE_MODEL(ur5);
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdf(world, ur5, modelOptions()));
    QVERIFY(report.numMeshesLoaded > 0);
    const Multibody mb = world.getMultibodies().front();
    int convex = 0;
    int visualMeshes = 0;
    for (const Link& l : mb.getLinks()) {
      for (const Shape& s : l.getCollisionShapes()) {
        const Geometry& g = s.getGeometry();
        if (g.type != GeometryType::ConvexMesh) continue;
        ++convex;
        QVERIFY(fs::exists(g.meshFile));
        QVERIFY(g.vertices.size() >= 4);
      }
      for (const Shape& s : l.getVisualShapes()) {
        const Geometry& g = s.getGeometry();
        if (g.type != GeometryType::TriangleMesh) continue;
        ++visualMeshes;
        QVERIFY(!g.triangles.empty());
        for (const auto& t : g.triangles) {
          for (const int i : t) QVERIFY(i >= 0 && static_cast<std::size_t>(i) < g.vertices.size());
        }
      }
    }
    QVERIFY(convex > 0);
    QVERIFY(visualMeshes > 0);
  }

  void exportRefersToMeshFiles() {
    const fs::path ur5 = kRobots / "ur_description" / "urdf" / "ur5_robot.urdf";
    ARTICULA_REQUIRE_MODEL(ur5);
    World world;
    io::importUrdf(world, ur5, modelOptions());
    QTemporaryDir dir;
    const fs::path scene = fs::path(dir.path().toStdString()) / "ur5.articula";
    io::saveScene(world, scene);
    const std::string text = readFile(scene);
    // References to the mesh files, relative to the scene, no inline vertices.
    QVERIFY(text.find("file=\"../") != std::string::npos);
    QVERIFY(text.find("vertices=") == std::string::npos);
    QVERIFY(text.size() < 200000);
    World loaded;
    EXPECT_NO_THROW(io::loadScene(loaded, scene));
    QCOMPARE(io::sceneToString(loaded, scene.parent_path()), text);
    QCOMPARE(loaded.numShapes(), world.numShapes());
    const auto shapesOf = [](const World& w) {
      std::vector<std::size_t> n;
      for (const Link& l : w.getMultibodies().front().getLinks()) {
        for (const Shape& s : l.getCollisionShapes()) n.push_back(s.getGeometry().vertices.size());
        for (const Shape& s : l.getVisualShapes()) n.push_back(s.getGeometry().vertices.size());
      }
      return n;
    };
    QVERIFY(shapesOf(loaded) == shapesOf(world));
  }

  void importedLoopsSurviveTheSceneFormat() {
    World world;
    io::importUrdf(world, kData / "four_bar_unassembled.urdf");
    useRk4(world);
    World loaded;
    EXPECT_NO_THROW(io::loadSceneFromString(loaded, io::sceneToString(world)));
    QCOMPARE(io::sceneToString(loaded), io::sceneToString(world));
    world.step(300);
    loaded.step(300);
    QVERIFY(loaded.getPositions() == world.getPositions());
  }

  // ---- closed loops -------------------------------------------------------

  void linkWithTwoParentsIsCut() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdf(world, kData / "four_bar_two_parents.urdf"));
    QCOMPARE(report.cuts.size(), std::size_t{1});
    // Breadth first from 'ground': crank_joint, rocker_joint, then coupler_joint
    // and rocker_pin_joint reach new links; pin_joint reaches 'pin' again.
    QCOMPARE(report.cuts[0].joint, std::string("pin_joint"));
    QVERIFY(report.cuts[0].family == LoopClosureFamily::Hinge);
    QVERIFY(report.cuts[0].reason.find("rocker_pin_joint") != std::string::npos);
    QVERIFY(report.cuts[0].line > 0);
    QVERIFY(world.hasLoopClosure("pin_joint"));
    QCOMPARE(world.numDofs(), 4);  // the tree keeps four revolute joints
    QVERIFY(!report.assembly.performed);
    QVERIFY(totalResidual(world) < 1e-12);
  }

  void parallelogramKeepsItsCouplerLevel() {
    World world;
    io::importUrdf(world, kData / "four_bar_two_parents.urdf");
    useRk4(world);
    const Multibody mb = world.getMultibodies().front();
    Joint crank = *mb.getJoint("crank_joint");
    crank.setPosition(0, 0.6);
    ClosureProjectionOptions po;
    po.lockedJoints = {crank};
    QVERIFY(world.projectClosures(po).success);
    const Link coupler = *mb.getLink("coupler");
    const Matrix3d R0 = coupler.getWorldTransform().linear();
    const double e0 = energy(world);
    world.step(1000);
    // A parallelogram's coupler translates without turning; the rocker
    // follows the crank.
    QVERIFY2((coupler.getWorldTransform().linear() - R0).norm() < 1e-6,
             qPrintable(test::num((coupler.getWorldTransform().linear() - R0).norm())));
    QVERIFY(std::abs(mb.getJoint("rocker_joint")->getPosition(0) - crank.getPosition(0)) < 1e-6);
    QVERIFY(std::abs(crank.getPosition(0) - 0.6) > 0.1);  // it did swing
    QVERIFY2(totalResidual(world) <= 1e-6, qPrintable(test::num(totalResidual(world))));
    QVERIFY2(std::abs(energy(world) - e0) < 1e-4 * std::max(1.0, std::abs(e0)),
             qPrintable(test::num(energy(world) - e0)));
  }

  void unassembledModelIsAssembled() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdf(world, kData / "four_bar_unassembled.urdf"));
    QVERIFY(report.assembly.performed);
    // The coupler end (1.2, 0, -0.5) and the rocker end (1, 0, -0.7) are
    // √(0.2² + 0.2²) apart before assembly.
    QVERIFY(std::abs(report.assembly.residualBefore - std::sqrt(0.08)) < 1e-12);
    QVERIFY(report.assembly.residualAfter <= 1e-10);
    QVERIFY(totalResidual(world) <= 1e-10);
    QVERIFY(report.toText().find("assembled") != std::string::npos);
    useRk4(world);
    world.step(1000);
    QVERIFY2(totalResidual(world) <= 1e-6, qPrintable(test::num(totalResidual(world))));
  }

  void unassembledModelWithoutAssembly() {
    World world;
    io::ImportOptions o;
    o.assemble = false;
    const io::ImportReport report = io::importUrdf(world, kData / "four_bar_unassembled.urdf", o);
    QVERIFY(!report.assembly.performed);
    QVERIFY(std::abs(totalResidual(world) - std::sqrt(0.08)) < 1e-12);
  }

  void loopThatCannotCloseIsAnError() {
    // Crank (0.5 m), coupler (1.2 m) and rocker (0.7 m) cannot span pivots 3 m apart.
    std::string text = readFile(kData / "four_bar_unassembled.urdf");
    const std::size_t at = text.find("<origin xyz=\"1.0 0 0\"/>");
    QVERIFY(at != std::string::npos);
    text.replace(at, std::string("<origin xyz=\"1.0 0 0\"/>").size(), "<origin xyz=\"3.0 0 0\"/>");
    World world;
    try {
      io::importUrdfFromString(world, text, "far.urdf");
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY2(std::string(e.what()).find("cannot assemble") != std::string::npos, e.what());
    }
    QCOMPARE(world.numMultibodies(), std::size_t{0});
    World open;
    io::ImportOptions o;
    o.assemble = false;
    EXPECT_NO_THROW(io::importUrdfFromString(open, text, "far.urdf", {}, o));
  }

  void loopJointElementBecomesClosure() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdf(world, kData / "four_bar_loop_joint.urdf"));
    QCOMPARE(report.cuts.size(), std::size_t{1});
    QCOMPARE(report.cuts[0].joint, std::string("coupler_rocker"));
    QVERIFY(report.cuts[0].family == LoopClosureFamily::Hinge);
    QVERIFY(report.cuts[0].reason.find("loop_joint") != std::string::npos);
    QCOMPARE(world.numDofs(), 3);
    QVERIFY(totalResidual(world) < 1e-12);
    useRk4(world);
    const Multibody mb = world.getMultibodies().front();
    Joint crank = *mb.getJoint("crank_joint");
    crank.setPosition(0, -0.5);
    ClosureProjectionOptions po;
    po.lockedJoints = {crank};
    QVERIFY(world.projectClosures(po).success);
    world.step(1000);
    QVERIFY2(totalResidual(world) <= 1e-6, qPrintable(test::num(totalResidual(world))));
    QVERIFY(std::abs(mb.getJoint("rocker_joint")->getPosition(0) - crank.getPosition(0)) < 1e-6);
  }

  void mimicBecomesCoupler() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdf(world, kData / "gripper_mimic.urdf"));
    QCOMPARE(report.couplers.size(), std::size_t{1});
    QCOMPARE(report.couplers[0].leader, std::string("left"));
    QCOMPARE(report.couplers[0].follower, std::string("right"));
    QCOMPARE(report.couplers[0].ratio, -1.0);
    const JointCoupler c = *world.getJointCoupler("right");
    QCOMPARE(c.getSpec().ratio, -1.0);
    // Limits and damping come through.
    const JointSpec left = world.getMultibodies().front().getJoint("left")->getSpec();
    QCOMPARE(left.positionLowerLimits[0], -0.04);
    QCOMPARE(left.positionUpperLimits[0], 0.04);
    QCOMPARE(left.effortLimits[0], 20.0);
    QCOMPARE(left.velocityLimits[0], 0.5);
    QCOMPARE(left.damping[0], 0.5);
    // Push the left finger: the right one moves the opposite way.
    useRk4(world);
    world.enterSimulationMode();
    Joint leftJoint = *world.getMultibodies().front().getJoint("left");
    const Joint rightJoint = *world.getMultibodies().front().getJoint("right");
    for (int k = 0; k < 200; ++k) {
      leftJoint.setForces(VectorXd::Constant(1, 0.5));
      world.step();
    }
    QVERIFY(leftJoint.getPosition(0) > 1e-3);
    QVERIFY2(std::abs(rightJoint.getPosition(0) + leftJoint.getPosition(0)) <= 1e-6,
             qPrintable(test::num(rightJoint.getPosition(0) + leftJoint.getPosition(0))));
  }

  void rootAttachment() {
    const std::string text = readFile(kData / "gripper_mimic.urdf");
    World fixed;
    io::importUrdfFromString(fixed, text);
    QVERIFY(fixed.getMultibodies().front().getRootLink()->getParentJoint().type() == JointType::Weld);
    World floating;
    io::ImportOptions o;
    o.root = io::RootAttachment::Floating;
    io::importUrdfFromString(floating, text, "<string>", {}, o);
    QVERIFY(floating.getMultibodies().front().getRootLink()->getParentJoint().type() == JointType::Free);
    // A root link called "world" is the world: its joint becomes the root joint.
    const std::string onWorld =
        "<robot name=\"r\">\n"
        "  <link name=\"world\"/>\n"
        "  <link name=\"arm\"><inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" "
        "iyz=\"0\" izz=\"0.1\"/></inertial></link>\n"
        "  <joint name=\"shoulder\" type=\"revolute\"><parent link=\"world\"/><child link=\"arm\"/><origin xyz=\"0 0 "
        "1\"/><axis xyz=\"0 0 1\"/>\n"
        "    <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>\n"
        "</robot>";
    World w;
    io::importUrdfFromString(w, onWorld);
    QCOMPARE(w.numDofs(), 1);
    const Link arm = *w.getMultibodies().front().getLink("arm");
    QCOMPARE(arm.getParentJoint().name(), std::string("shoulder"));
    VERIFY_NEAR(arm.getWorldTransform().translation(), Vector3d(0, 0, 1), 1e-15);
  }

  void inertialFrameIsRotatedIntoTheLink() {
    // A thin rod along the inertial frame's x axis, turned by 90° about z: in
    // the link frame its large moments are about x and z.
    const std::string text =
        "<robot name=\"r\">\n"
        "  <link name=\"rod\">\n"
        "    <inertial><origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 1.5707963267948966\"/><mass value=\"2\"/>\n"
        "      <inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.5\" iyz=\"0\" izz=\"0.5\"/></inertial>\n"
        "  </link>\n"
        "</robot>";
    World w;
    io::importUrdfFromString(w, text);
    const Inertia in = w.getMultibodies().front().getRootLink()->getInertia();
    QCOMPARE(in.mass, 2.0);
    VERIFY_NEAR(in.com, Vector3d(0.1, 0.2, 0.3), 1e-15);
    VERIFY_NEAR(Vector3d(in.rotational.diagonal()), Vector3d(0.5, 0.001, 0.5), 1e-12);
  }

  // ---- what peers load is imported, with a report entry -------------------

  void acceptedWithReport_data() {
    QTest::addColumn<QString>("urdf");
    QTest::addColumn<bool>("warning");  // a warning (true) or an ignored element (false)
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("line");
    const QString link =
        "<link name=\"%1\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
        "izz=\"1\"/></inertial></link>";
    const QString a = link.arg("a");
    const QString b = link.arg("b");
    const QString joint =
        "<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/>%1</joint>";
    QTest::newRow("robot without name") << QString("<robot>\n" + a + "\n</robot>") << true
                                        << "<robot> has no name; the model is called 'bad'" << 1;
    QTest::newRow("indefinite inertia")
        << QString(
               "<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/>"
               "<inertia ixx=\"1\" ixy=\"2\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>")
        << true << "include negative values" << 2;
    // Principal moments (−5e-20, 1e-3, 1e-3): CAD round-off next to zero.
    QTest::newRow("round-off negative moment")
        << QString(
               "<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/>"
               "<inertia ixx=\"-5e-20\" ixy=\"0\" ixz=\"0\" iyy=\"1e-3\" iyz=\"0\" izz=\"1e-3\"/></inertial></link>\n"
               "</robot>")
        << true << "-5e-20" << 2;
    QTest::newRow("mimic of an unknown joint")
        << QString("<robot name=\"r\">\n" + a + "\n" + b + "\n" + joint.arg("<mimic joint=\"ghost\"/>") + "\n</robot>")
        << true << "<mimic> of joint 'j' dropped: it names 'ghost', which is not a joint of this robot" << 4;
    QTest::newRow("unknown element with a non-numeric value")
        << QString(
               "<robot name=\"r\">\n<link name=\"a\">\n<collision><geometry><box size=\"1 1 1\"/></geometry>\n"
               "<verbose value=\"Yes\"/></collision></link>\n</robot>")
        << false << "<verbose> in <collision> not imported" << 4;
    QTest::newRow("missing collision mesh") << QString(
                                                   "<robot name=\"r\">\n<link name=\"a\">\n<collision><geometry><mesh "
                                                   "filename=\"no_such.stl\"/></geometry></collision></link>\n</robot>")
                                            << true << "collision 0 of link 'a': mesh 'no_such.stl' skipped" << 2;
    QTest::newRow("unknown element in a joint")
        << QString("<robot name=\"r\">\n" + a + "\n" + b + "\n" +
                   joint.arg("\n<hardware><value>fast</value></hardware>") + "\n</robot>")
        << false << "<hardware> in <joint> not imported" << 5;
  }

  void acceptedWithReport() {
    QFETCH(QString, urdf);
    QFETCH(bool, warning);
    QFETCH(QString, expected);
    QFETCH(int, line);
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdfFromString(world, urdf.toStdString(), "bad.urdf", kData));
    const std::vector<io::ReportEntry>& entries = warning ? report.warnings : report.ignored;
    bool found = false;
    for (const io::ReportEntry& e : entries) {
      if (e.message.find(expected.toStdString()) == std::string::npos) continue;
      found = true;
      QCOMPARE(e.file, std::string("bad.urdf"));
      QCOMPARE(e.line, line);
    }
    QVERIFY2(found, report.toText().c_str());
    QCOMPARE(world.numMultibodies(), std::size_t{1});
  }

  void repairedInertiaIsAMassDistribution() {
    // ixy = 2 with unit diagonal: moments (−1, 1, 3) → the negative one
    // clamped, (0, 1, 3) → the two smaller raised together by 1, (1, 2, 3).
    World world;
    io::importUrdfFromString(world,
                             "<robot name=\"r\"><link name=\"a\"><inertial><mass value=\"1\"/>"
                             "<inertia ixx=\"1\" ixy=\"2\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>"
                             "</robot>",
                             "r.urdf");
    const Inertia in = world.getMultibodies().front().getLinks().front().getInertia();
    const Vector3d ev = Eigen::SelfAdjointEigenSolver<Matrix3d>(in.rotational).eigenvalues();
    QVERIFY(ev.minCoeff() >= 0.0);
    QVERIFY(ev[0] + ev[1] >= ev[2] * (1.0 - 1e-12));
    // The largest moment (3, along (1, 1, 0)/√2) is kept; the others meet
    // it, with the margin of 1e-6 of the largest moment that sdformat's
    // own check needs: each raised by 1 + 3e-6.
    VERIFY_NEAR(ev, Vector3d(1.0 + 3e-6, 2.0 + 3e-6, 3.0), 1e-12);
  }

  void namelessRobotIsNamedAfterItsFile() {
    World nameless;
    const std::string text =
        "<robot><link name=\"a\"><inertial><mass value=\"1\"/>"
        "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link></robot>";
    io::importUrdfFromString(nameless, text, "/some/where/arm_v2.urdf", kData);
    QCOMPARE(nameless.getMultibodies().front().name(), std::string("arm_v2"));
  }

  void mimicOfAMissingJointLeavesTheFollowerFree() {
    World world;
    const io::ImportReport report = io::importUrdfFromString(
        world,
        "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"><inertial><mass value=\"1\"/>"
        "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>"
        "<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/>"
        "<mimic joint=\"ghost\" multiplier=\"2\"/></joint></robot>",
        "m.urdf");
    QCOMPARE(world.numJointCouplers(), std::size_t{0});
    QVERIFY(report.couplers.empty());
    QCOMPARE(world.getMultibodies().front().numDofs(), 1);
  }

  void floatingBaseIsPlacedOnTheAddedGround_data() {
    QTest::addColumn<QString>("collision");
    QTest::addColumn<double>("reach");  // how far the shape reaches below the link frame (m)
    // A cylinder lying along y: its radius reaches down.
    QTest::newRow("lying cylinder") << "<origin rpy=\"1.5707963267948966 0 0\"/><geometry><cylinder radius=\"0.1\" "
                                       "length=\"1\"/></geometry>"
                                    << 0.1;
    // Tilted 0.3 rad about x: half the length times cos 0.3 plus the radius times sin 0.3.
    QTest::newRow("tilted cylinder") << "<origin rpy=\"0.3 0 0\"/><geometry><cylinder radius=\"0.1\" "
                                        "length=\"1\"/></geometry>"
                                     << 0.5 * std::cos(0.3) + 0.1 * std::sin(0.3);
    // A cube rolled 45° about x (its edge down; the yaw after it does not
    // change how low it reaches): half the diagonal of a face.
    QTest::newRow("turned box") << "<origin rpy=\"0.7853981633974483 0 0.7853981633974483\"/><geometry><box "
                                   "size=\"0.2 0.2 0.2\"/></geometry>"
                                << 0.1 * std::sqrt(2.0);
    QTest::newRow("sphere below") << "<origin xyz=\"0 0 -0.3\"/><geometry><sphere radius=\"0.05\"/></geometry>" << 0.35;
  }

  void floatingBaseIsPlacedOnTheAddedGround() {
    QFETCH(QString, collision);
    QFETCH(double, reach);
    const std::string urdf =
        "<robot name=\"r\"><link name=\"base\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" "
        "ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial><collision>" +
        collision.toStdString() + "</collision></link></robot>";
    io::ImportOptions options;
    options.root = io::RootAttachment::Floating;
    options.addGroundPlane = true;
    options.groundHeight = -0.25;
    World world;
    io::importUrdfFromString(world, urdf, "g.urdf", kData, options);
    const Link base = world.getMultibodies().front().getLinks().front();
    QVERIFY2(std::abs(base.getWorldTransform().translation().z() - (-0.25 + reach)) < 1e-12,
             qPrintable(QString::number(base.getWorldTransform().translation().z())));
    // A fixed base is lifted only when it reaches through the ground (the
    // sphere 0.35 m below a ground 0.25 m below), and without placement
    // nothing moves.
    options.root = io::RootAttachment::Fixed;
    World fixed;
    io::importUrdfFromString(fixed, urdf, "g.urdf", kData, options);
    QVERIFY(std::abs(fixed.getMultibodies().front().getLinks().front().getWorldTransform().translation().z() -
                     std::max(0.0, -0.25 + reach)) < 1e-12);
    options.root = io::RootAttachment::Floating;
    options.placeOnGround = false;
    World unplaced;
    io::importUrdfFromString(unplaced, urdf, "g.urdf", kData, options);
    QCOMPARE(unplaced.getMultibodies().front().getLinks().front().getWorldTransform().translation().z(), 0.0);
    QCOMPARE(unplaced.numShapes(), fixed.numShapes());
  }

  // ---- bad input ---------------------------------------------------------

  void badInput_data() {
    QTest::addColumn<QString>("urdf");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("line");
    const QString link =
        "<link name=\"%1\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
        "izz=\"1\"/></inertial></link>";
    const QString a = link.arg("a");
    const QString b = link.arg("b");
    QTest::newRow("malformed XML") << QString("<robot name=\"r\">\n" + a +
                                              "\n<joint name=\"j\" type=\"fixed\">\n</robot>")
                                   << "malformed XML" << 3;
    QTest::newRow("not a robot") << QString("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"/>") << "expected a <robot>"
                                 << 2;
    QTest::newRow("link without name") << QString("<robot name=\"r\">\n<link/>\n</robot>") << "<link> has no name" << 2;
    QTest::newRow("duplicate link") << QString("<robot name=\"r\">\n" + a + "\n" + a + "\n</robot>")
                                    << "duplicate link name 'a' (first defined at line 2)" << 3;
    QTest::newRow("duplicate joint")
        << QString("<robot name=\"r\">\n" + a + "\n" + b + "\n" + link.arg("c") +
                   "\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>"
                   "\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"c\"/></joint>\n</robot>")
        << "duplicate joint name 'j'" << 6;
    QTest::newRow("unknown joint type")
        << QString("<robot name=\"r\">\n" + a + "\n" + b +
                   "\n<joint name=\"j\" type=\"hinge\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>")
        << "unknown type 'hinge'" << 4;
    QTest::newRow("joint without child")
        << QString("<robot name=\"r\">\n" + a + "\n" + b +
                   "\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/></joint>\n</robot>")
        << "has no <child link=...>" << 4;
    QTest::newRow("unknown parent link")
        << QString("<robot name=\"r\">\n" + a + "\n" + b +
                   "\n<joint name=\"j\" type=\"fixed\">\n<parent link=\"x\"/><child link=\"b\"/></joint>\n</robot>")
        << "parent link 'x', which does not exist" << 5;
    QTest::newRow("joint to itself")
        << QString("<robot name=\"r\">\n" + a +
                   "\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"a\"/></joint>\n</robot>")
        << "connects link 'a' to itself" << 3;
    QTest::newRow("cycle through the root")
        << QString("<robot name=\"r\">\n" + a + "\n" + b +
                   "\n<joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 "
                   "1\"/></joint>"
                   "\n<joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"a\"/><axis xyz=\"0 0 "
                   "1\"/></joint>\n</robot>")
        << "cycle through the root" << 1;
    QTest::newRow("two roots") << QString("<robot name=\"r\">\n" + a + "\n" + b + "\n</robot>") << "several root links"
                               << 3;
    QTest::newRow("negative mass")
        << QString(
               "<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"-1\"/>"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>")
        << "mass -1 is negative" << 2;
    QTest::newRow("NaN in an origin") << QString("<robot name=\"r\">\n" + a + "\n" + b +
                                                 "\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child "
                                                 "link=\"b\"/>\n<origin xyz=\"0 nan 0\"/></joint>\n</robot>")
                                      << "attribute 'xyz' of <origin> must be 3 finite numbers, got '0 nan 0'" << 5;
    QTest::newRow("zero axis") << QString("<robot name=\"r\">\n" + a + "\n" + b +
                                          "\n<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child "
                                          "link=\"b\"/><axis xyz=\"0 0 0\"/></joint>\n</robot>")
                               << "has a zero axis" << 4;
    QTest::newRow("inverted limits")
        << QString("<robot name=\"r\">\n" + a + "\n" + b +
                   "\n<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/>"
                   "<limit lower=\"1\" upper=\"-1\" effort=\"1\" velocity=\"1\"/></joint>\n</robot>")
        << "lower limit 1 is above the upper limit -1" << 4;
    QTest::newRow("planar loop joint") << QString("<robot name=\"r\">\n" + a + "\n" + b + "\n" + link.arg("c") +
                                                  "\n<joint name=\"j1\" type=\"continuous\"><parent link=\"a\"/><child "
                                                  "link=\"b\"/><axis xyz=\"0 0 1\"/></joint>"
                                                  "\n<joint name=\"j2\" type=\"continuous\"><parent link=\"a\"/><child "
                                                  "link=\"c\"/><axis xyz=\"0 0 1\"/></joint>"
                                                  "\n<joint name=\"j3\" type=\"planar\"><parent link=\"b\"/><child "
                                                  "link=\"c\"/><axis xyz=\"0 0 1\"/></joint>\n</robot>")
                                       << "has no loop-closure equivalent" << 7;
  }

  void badInput() {
    QFETCH(QString, urdf);
    QFETCH(QString, expected);
    QFETCH(int, line);
    World world;
    bool threw = false;
    try {
      io::importUrdfFromString(world, urdf.toStdString(), "bad.urdf", kData);
    } catch (const io::ImportError& e) {
      threw = true;
      QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos, e.what());
      QCOMPARE(e.file(), std::string("bad.urdf"));
      QVERIFY2(e.line() == line, qPrintable(QString("line %1 in: %2").arg(e.line()).arg(e.what())));
    }
    QVERIFY2(threw, "no ImportError");
    QCOMPARE(world.numMultibodies(), std::size_t{0});
    QCOMPARE(world.numShapes(), std::size_t{0});
    QCOMPARE(world.numLoopClosures(), std::size_t{0});
    QCOMPARE(world.numJointCouplers(), std::size_t{0});
  }

  void unreadableFile() {
    World world;
    try {
      io::importUrdf(world, kData / "does_not_exist.urdf");
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY(std::string(e.what()).find("no such file") != std::string::npos);
      QVERIFY(e.file().find("does_not_exist.urdf") != std::string::npos);
    }
  }

  void nonEmptyWorldIsRefused() {
    World world;
    world.addRigidBody("box");
    try {
      io::importUrdf(world, kData / "gripper_mimic.urdf");
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY(std::string(e.what()).find("must be empty") != std::string::npos);
    }
    QCOMPARE(world.numRigidBodies(), std::size_t{1});  // untouched
  }

  void missingVisualMeshIsReported() {
    const std::string text =
        "<robot name=\"r\">\n"
        "  <link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
        "izz=\"1\"/></inertial>\n"
        "    <visual><geometry><mesh filename=\"package://nowhere/mesh.dae\"/></geometry></visual></link>\n"
        "</robot>";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdfFromString(world, text, "r.urdf", kData));
    QCOMPARE(report.warnings.size(), std::size_t{1});
    QCOMPARE(report.warnings[0].line, 2);
    QVERIFY(report.warnings[0].message.find("package 'nowhere'") != std::string::npos);
  }

  // What public robot files hold and peers accept, read with a warning: a
  // roslaunch substitution left in an origin, transmissions without a
  // hardware interface, a chain that only its last link gives mass, a
  // joint whose zero lies outside its limits.
  void publicFileQuirks() {
    const std::string inertial =
        "<inertial><mass value='1'/><inertia ixx='0.01' iyy='0.01' izz='0.01' ixy='0' ixz='0' iyz='0'/></inertial>";
    {
      // Husky's imu joint: $(optenv VAR default) reads as its default.
      const std::string text =
          "<robot name='r'><link name='a'>" + inertial + "</link><link name='b'>" + inertial +
          "</link>\n<joint name='j' type='fixed'><parent link='a'/><child link='b'/>\n"
          "<origin xyz='$(arg x)' rpy='$(optenv IMU_RPY 0 0 1.5707963267948966)'/></joint></robot>";
      World world;
      const io::ImportReport report = io::importUrdfFromString(world, text, "r.urdf");
      const JointSpec j = world.getMultibody("r")->getJoint("j")->getSpec();
      QVERIFY(j.parentOffset.translation().isZero());
      QVERIFY((j.parentOffset.linear() * Vector3d::UnitX()).isApprox(Vector3d::UnitY(), 1e-12));
      int found = 0;
      for (const io::ReportEntry& e : report.warnings) {
        if (e.line == 3 && e.message.find("unexpanded substitution") != std::string::npos) ++found;
      }
      QCOMPARE(found, 2);  // xyz read as zeros, rpy as optenv's default
      World bad;
      try {
        io::importUrdfFromString(bad,
                                 "<robot name='r'><link name='a'><inertial><mass value='$(arg m)'/></inertial>"
                                 "</link></robot>",
                                 "r.urdf");
        QFAIL("a substituted mass was read");
      } catch (const io::ImportError& e) {
        QVERIFY2(std::string(e.what()).find("expand the file with xacro") != std::string::npos, e.what());
      }
    }
    {
      // Atlas's transmissions name no hardware interface: motors, as Drake makes them.
      std::string text = "<robot name='r'><link name='a'/>";
      for (int i = 1; i <= 2; ++i) {
        const std::string n = std::to_string(i);
        text += "<link name='l" + n + "'>" + inertial + "</link><joint name='j" + n +
                "' type='revolute'><parent link='a'/><child link='l" + n +
                "'/><axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='7' velocity='1'/></joint>"
                "<transmission name='t" +
                n + "'><type>pr2_mechanism_model/SimpleTransmission</type><joint name='j" + n + "'/><actuator name='m" +
                n +
                "'><mechanicalReduction>1</mechanicalReduction></actuator>"
                "</transmission>";
      }
      text += "</robot>";
      World world;
      const io::ImportReport report = io::importUrdfFromString(world, text, "r.urdf");
      QCOMPARE(world.numActuators(), std::size_t{2});
      const ActuatorSpec m = world.getActuator("m1")->getSpec();
      QVERIFY(m.type == ActuatorType::Motor);
      QCOMPARE(m.forceMax, 7.0);
      int found = 0;
      for (const io::ReportEntry& e : report.warnings) {
        found += e.message.find("2 transmission joints name no <hardwareInterface>") != std::string::npos;
      }
      QCOMPARE(found, 1);
    }
    {
      // A 7-DoF arm without inertials whose fingers are its only mass (as
      // example-robot-data's panda.urdf): its mass matrix is singular until
      // the arm's links get mass. A two-hinge wrist through a massless link
      // ahead of a link with full inertia is not singular and keeps no mass.
      std::string text = "<robot name='arm'><link name='l0'/>";
      const char* axes[] = {"0 0 1", "0 1 0", "0 0 1", "0 1 0", "0 0 1", "0 1 0", "0 0 1"};
      for (int i = 1; i <= 7; ++i) {
        text += "<link name='l" + std::to_string(i) + "'/><joint name='j" + std::to_string(i) +
                "' type='revolute'><parent link='l" + std::to_string(i - 1) + "'/><child link='l" + std::to_string(i) +
                "'/><origin xyz='0 0 0.1'/><axis xyz='" + axes[i - 1] +
                "'/><limit lower='-3' upper='3' effort='10' velocity='1'/></joint>";
      }
      text +=
          "<link name='finger'/><joint name='f' type='prismatic'><parent link='l7'/><child link='finger'/>"
          "<origin xyz='0 0 0.1'/><axis xyz='1 0 0'/><limit lower='0' upper='0.04' effort='1' velocity='1'/>"
          "</joint></robot>";
      World world;
      const io::ImportReport report = io::importUrdfFromString(world, text, "arm.urdf");
      const Multibody mb = *world.getMultibody("arm");
      const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(mb.getMassMatrix());
      QVERIFY(eig.eigenvalues().minCoeff() > 1e-9 * eig.eigenvalues().maxCoeff());
      for (int i = 1; i <= 7; ++i) QVERIFY(mb.getLink("l" + std::to_string(i))->getInertia().mass > 0.0);
      bool warned = false;
      for (const io::ReportEntry& e : report.warnings) {
        warned = warned || e.message.find(
                               "the mass matrix of 'arm' is singular with the file's masses: its 7 moving "
                               "links without mass ('l1', ") != std::string::npos;
      }
      QVERIFY2(warned, report.toText().c_str());
      world.step(1000);
      QVERIFY2(!world.getStepDiagnostics().failed, world.getStepDiagnostics().message.c_str());

      const std::string wrist = "<robot name='w'><link name='a'/><link name='mid'/><link name='hand'>" + inertial +
                                "</link><joint name='j1' type='revolute'><parent link='a'/><child link='mid'/><axis "
                                "xyz='0 0 1'/><limit lower='-3' upper='3' effort='1' velocity='1'/></joint><joint "
                                "name='j2' type='revolute'><parent link='mid'/><child link='hand'/><axis xyz='1 0 "
                                "0'/><limit lower='-3' upper='3' effort='1' velocity='1'/></joint></robot>";
      World w2;
      io::importUrdfFromString(w2, wrist, "w.urdf");
      QCOMPARE(w2.getMultibody("w")->getLink("mid")->getInertia().mass, 0.0);
    }
    {
      // A joint whose zero is outside its limits starts on the nearest one
      // and stays within them (no kick out of the limit in the first step).
      const std::string text = "<robot name='k'><link name='a'/><link name='b'>" + inertial +
                               "</link>\n<joint name='j' type='revolute'><parent link='a'/><child link='b'/>"
                               "<origin xyz='0 0 1'/><axis xyz='0 1 0'/>"
                               "<limit lower='0.82' upper='5.46' effort='1' velocity='1'/></joint></robot>";
      World world;
      const io::ImportReport report = io::importUrdfFromString(world, text, "k.urdf");
      const Joint j = *world.getMultibody("k")->getJoint("j");
      QCOMPARE(j.getPosition(0), 0.82);
      bool warned = false;
      for (const io::ReportEntry& e : report.warnings) {
        warned = warned || (e.line == 2 && e.message.find("joint 'j' would start at 0, outside its limits [0.82, "
                                                          "5.46]; it starts at 0.82") != std::string::npos);
      }
      QVERIFY2(warned, report.toText().c_str());
      world.enterSimulationMode();
      double speed = 0.0;
      for (int k = 0; k < 1000; ++k) {
        world.step();
        speed = std::max(speed, std::abs(j.getVelocity(0)));
      }
      // The link's centre of mass is on the hinge axis: gravity does not turn
      // it, so any speed would be the kick of the limit.
      QVERIFY2(speed < 1e-6, qPrintable(QString::number(speed)));
    }
  }
};

QTEST_APPLESS_MAIN(TestUrdfImport)
#include "test_urdf_import.moc"

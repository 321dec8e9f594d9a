// SDF import: loops cut where the file says or breadth-first, gearbox,
// mimic and <drake:mimic> couplers, worlds with includes, poses checked
// against the SDF values composed by hand, closed loops that assemble and
// simulate, SDF 1.11 <inertial auto> computed by hand, public files
// (Gazebo's gearbox world, Drake's WSG 50, gz-sim's auto-inertia pendulum),
// and bad files that fail with the line and leave the World empty.
#include "test_helpers.hpp"

#include <articula/io/import.hpp>

#include "sdformat_home.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <iterator>
#include <numbers>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

using namespace articula;
namespace fs = std::filesystem;

namespace {

fs::path dataDir() {
  return fs::path(ARTICULA_SOURCE_DIR) / "tests" / "data" / "sdf";
}

io::ImportOptions testOptions() {
  io::ImportOptions o;
  o.useEnvironmentPaths = false;
  o.packagePath = {dataDir() / "models"};
  return o;
}

Isometry3d xyzRpy(double x, double y, double z, double roll, double pitch, double yaw) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = test::rotZ(yaw) * Eigen::AngleAxisd(pitch, Vector3d::UnitY()).toRotationMatrix() *
               Eigen::AngleAxisd(roll, Vector3d::UnitX()).toRotationMatrix();
  X.translation() = Vector3d(x, y, z);
  return X;
}

double poseError(const Isometry3d& a, const Isometry3d& b) {
  return (a.matrix() - b.matrix()).norm();
}

Link linkOf(const World& world, const std::string& multibody, const std::string& link) {
  const std::optional<Multibody> mb = world.getMultibody(multibody);
  if (!mb) throw Error("no multibody '" + multibody + "'");
  const std::optional<Link> l = mb->getLink(link);
  if (!l) throw Error("no link '" + link + "' in '" + multibody + "'");
  return *l;
}

bool isEmpty(const World& w) {
  return w.numMultibodies() == 0 && w.numRigidBodies() == 0 && w.numShapes() == 0 && w.numLoopClosures() == 0 &&
         w.numJointCouplers() == 0;
}

/// World poses of the four-bar links at zero joint angles (the model sits at z = 1).
Isometry3d fourBarLinkPose(const std::string& link) {
  if (link == "coupler") return xyzRpy(0, 0, 1.2, 0, 0, 0);
  if (link == "rocker") return xyzRpy(0.7, 0, 1, 0, 0, 0);
  return xyzRpy(0, 0, 1, 0, 0, 0);
}

/// Simulates one second at 1 ms with RK4 and returns the largest closure
/// and coupler residuals at the end.
std::pair<double, double> simulateOneSecond(World& world) {
  WorldOptions o = world.getOptions();
  o.integrator = Integrator::RungeKutta4;
  o.timeStep = 1e-3;
  world.setOptions(o);
  world.enterSimulationMode();
  world.step(1000);
  double closure = 0.0;
  double coupler = 0.0;
  for (const LoopClosure& c : world.getLoopClosures()) closure = std::max(closure, c.computeResidual().norm);
  for (const JointCoupler& c : world.getJointCouplers()) {
    coupler = std::max(coupler, std::abs(c.computeResidual().residual));
  }
  return {closure, coupler};
}

fs::path corpusDir() {
  return fs::path(ARTICULA_SOURCE_DIR) / "tests" / "data" / "corpus";
}

/// The report entry whose message holds every one of `needles`, or null.
const io::ReportEntry* findEntry(const std::vector<io::ReportEntry>& entries,
                                 std::initializer_list<const char*> needles) {
  for (const io::ReportEntry& e : entries) {
    bool all = true;
    for (const char* n : needles) all = all && e.message.find(n) != std::string::npos;
    if (all) return &e;
  }
  return nullptr;
}

/// Solid box of density 1 (mass = volume) about its centre, body axes.
Matrix3d boxInertia(double mass, const Vector3d& size) {
  const Vector3d s2 = size.cwiseProduct(size);
  return (mass / 12.0 * Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y())).asDiagonal();
}

/// The inertia of a point mass `m` at offset `d`, about the origin (the
/// parallel-axis term).
Matrix3d parallelAxis(double m, const Vector3d& d) {
  return m * (d.squaredNorm() * Matrix3d::Identity() - d * d.transpose());
}

}  // namespace

class TestSdfImport : public QObject {
  Q_OBJECT

 private slots:
  // sdformat writes its log to $HOME/.sdformat; use a temporary home when
  // that is not writable.
  void initTestCase() { QVERIFY(articula::test::ensureWritableHomeForSdformat(m_home)); }

  // The joint marked must_be_loop_joint is the one cut, whatever the tree
  // would have chosen; the joint that then reaches the coupler from the
  // rocker is traversed against its SDF direction.
  void mustBeLoopJointIsCut() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, dataDir() / "fourbar_loop_joint.sdf", testOptions()));
    QCOMPARE(report.format, std::string("sdf"));
    QCOMPARE(report.cuts.size(), std::size_t(1));
    const io::LoopCut& cut = report.cuts.front();
    QCOMPARE(cut.joint, std::string("fourbar_loop_joint::j2"));
    QCOMPARE(cut.closure, cut.joint);
    QVERIFY(cut.family == LoopClosureFamily::Hinge);
    QVERIFY2(cut.reason.find("must_be_loop_joint") != std::string::npos, cut.reason.c_str());
    QVERIFY(cut.line > 0);
    QCOMPARE(world.numLoopClosures(), std::size_t(1));
    QVERIFY(world.hasLoopClosure("fourbar_loop_joint::j2"));

    // j4 (parent coupler, child rocker) became the coupler's engine joint,
    // with the rocker as engine parent.
    const Link coupler = linkOf(world, "fourbar_loop_joint", "coupler");
    QCOMPARE(coupler.getParentJoint().name(), std::string("j4"));
    QCOMPARE(test::leafName(coupler.getParentLink()->name()), std::string("rocker"));
    for (const char* name : {"ground", "crank", "coupler", "rocker"}) {
      const double err =
          poseError(linkOf(world, "fourbar_loop_joint", name).getWorldTransform(), fourBarLinkPose(name));
      ARTICULA_CHECK(err < 1e-12, QString("link %1 is off its SDF pose by %2").arg(name).arg(err));
    }
    QVERIFY(!report.assembly.performed);
    QVERIFY(report.assembly.residualBefore < 1e-12);

    // The flag also counts written directly in <physics>.
    std::ifstream in(dataDir() / "fourbar_loop_joint.sdf");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string simbody = "<simbody><must_be_loop_joint>true</must_be_loop_joint></simbody>";
    QVERIFY(text.find(simbody) != std::string::npos);
    text.replace(text.find(simbody), simbody.size(), "<must_be_loop_joint>true</must_be_loop_joint>");
    World literal;
    EXPECT_NO_THROW(report = io::importSdfFromString(literal, text, "literal.sdf", dataDir(), testOptions()));
    QCOMPARE(report.cuts.size(), std::size_t(1));
    QCOMPARE(report.cuts.front().joint, std::string("fourbar_loop_joint::j2"));
  }

  // Without the flag, breadth first from the ground: j1 and j3 reach the
  // crank and rocker, j2 reaches the coupler from the crank, and j4 closes
  // the loop.
  void breadthFirstCutIsDeterministic() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, dataDir() / "fourbar.sdf", testOptions()));
    QCOMPARE(report.cuts.size(), std::size_t(1));
    const io::LoopCut& cut = report.cuts.front();
    QCOMPARE(cut.joint, std::string("fourbar::j4"));
    QVERIFY(cut.family == LoopClosureFamily::Hinge);
    QCOMPARE(cut.reason, std::string("link 'coupler' is already reached through joint 'j2' (breadth-first from root "
                                     "'ground'); 'j4' closes the loop"));
    const Multibody mb = *world.getMultibody("fourbar");
    QCOMPARE(mb.numLinks(), std::size_t(4));
    QCOMPARE(test::leafName(mb.getRootLink()->name()), std::string("ground"));
    QCOMPARE(mb.getRootLink()->getParentJoint().name(), std::string("fix"));
    QVERIFY(mb.getRootLink()->getParentJoint().type() == JointType::Weld);
    QCOMPARE(mb.numDofs(), 3);
    QCOMPARE(test::leafName(linkOf(world, "fourbar", "coupler").getParentLink()->name()), std::string("crank"));
    QVERIFY(report.toText().find("j4") != std::string::npos);

    // Importing again gives the same cut.
    World again;
    QCOMPARE(io::importSdf(again, dataDir() / "fourbar.sdf", testOptions()).cuts.front().reason, cut.reason);
  }

  void worldWithIncludes() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, dataDir() / "world.sdf", testOptions()));
    QVERIFY(test::relativeError(world.getOptions().gravity, Vector3d(0, 0, -3.7)) < 1e-15);
    QCOMPARE(world.getOptions().timeStep, 0.002);

    // Static models: shapes on the world frame, the plane turned into a
    // ground plane, the static mesh kept as a triangle mesh.
    QCOMPARE(world.numMultibodies(), std::size_t(2));
    const std::optional<Shape> plane = world.getShape("ground_plane::link::plane");
    QVERIFY(plane.has_value());
    QVERIFY(plane->getGeometry().type == GeometryType::Plane);
    QVERIFY(plane->getOwner().isWorld());
    QCOMPARE(plane->getMaterial().friction, 0.9);
    const std::optional<Shape> slab = world.getShape("table::top::slab");
    QVERIFY(slab.has_value());
    QVERIFY(slab->getOwner().isWorld());
    QVERIFY(poseError(slab->getWorldTransform(), xyzRpy(2, 0, 0.45, 0, 0, 0.5)) < 1e-12);
    QVERIFY(world.getShape("table::top::ornament")->getGeometry().type == GeometryType::TriangleMesh);
    QVERIFY(world.getShape("ball::body::spike")->getGeometry().type == GeometryType::ConvexMesh);
    QCOMPARE(report.numMeshesLoaded, 2);

    // The free ball starts at its SDF pose.
    const Link ball = linkOf(world, "ball", "body");
    QVERIFY(ball.getParentJoint().type() == JointType::Free);
    QVERIFY(poseError(ball.getWorldTransform(), xyzRpy(0, 0, 2, 0, 0, 0)) < 1e-12);

    // The included crate: include pose composed with the link pose.
    const Link crate = linkOf(world, "crate", "body");
    QVERIFY(poseError(crate.getWorldTransform(), xyzRpy(1, 2, 0.25, 0, 0, std::numbers::pi / 2)) < 1e-12);
    QCOMPARE(crate.getInertia().mass, 4.0);
    QCOMPARE(world.getShape("crate::body::box")->getMaterial().friction, 0.4);
    const Vector4d colour = world.getVisualShapes(crate).front().getColor();
    QVERIFY(test::relativeError(colour, Vector4d(0.6, 0.4, 0.2, 1.0)) < 1e-6);

    // Light, plugin and the crate's camera are reported with file and line.
    bool light = false;
    bool plugin = false;
    bool camera = false;
    for (const io::ReportEntry& e : report.ignored) {
      QVERIFY2(e.line > 0, e.message.c_str());
      light |= e.message.find("<light name='sun'>") != std::string::npos;
      plugin |= e.message.find("<plugin name='stats'>") != std::string::npos;
      if (e.message.find("<sensor name='camera'>") != std::string::npos) {
        camera = true;
        QVERIFY2(e.file.find("sdf_test_crate") != std::string::npos, e.file.c_str());
      }
    }
    QVERIFY(light && plugin && camera);

    // The ball falls onto the plane and rests there.
    world.step(1500);
    const double z = ball.getWorldTransform().translation().z();
    ARTICULA_CHECK(std::abs(z - 0.1) < 0.02, QString("the ball rests at z = %1").arg(z));
  }

  // Gearbox: θ2 = −2·θ1 with θ about +z from the base; gear2's hinge axis
  // points down, so the coupler is q2 = +2·q1. Mimic: q = 0.5·q1 + 0.1.
  void gearboxAndMimicBecomeCouplers() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, dataDir() / "gears.sdf", testOptions()));
    QCOMPARE(report.couplers.size(), std::size_t(2));
    QCOMPARE(world.numJointCouplers(), std::size_t(2));
    const io::CouplerMade& gearbox = report.couplers[0];
    QCOMPARE(gearbox.coupler, std::string("gears::gearbox"));
    QCOMPARE(gearbox.leader, std::string("gear1_joint"));
    QCOMPARE(gearbox.follower, std::string("gear2_joint"));
    QCOMPARE(gearbox.ratio, 2.0);
    QCOMPARE(gearbox.offset, 0.0);
    QVERIFY(gearbox.line > 0);
    const io::CouplerMade& mimic = report.couplers[1];
    QCOMPARE(mimic.coupler, std::string("gears::arm2_joint"));
    QCOMPARE(mimic.leader, std::string("arm1_joint"));
    QCOMPARE(mimic.follower, std::string("arm2_joint"));
    QCOMPARE(mimic.ratio, 0.5);
    QCOMPARE(mimic.offset, 0.1);
    // The mimic offset is violated at zero angles; import assembles it.
    QVERIFY(report.assembly.performed);
    QVERIFY(std::abs(report.assembly.residualBefore - 0.1) < 1e-12);
    QVERIFY(report.assembly.residualAfter <= 1e-10);
    for (const JointCoupler& c : world.getJointCouplers()) QVERIFY(std::abs(c.computeResidual().residual) <= 1e-10);
    const JointCouplerSpec spec = world.getJointCoupler("gears::gearbox")->getSpec();
    QCOMPARE(spec.leader.name(), std::string("gear1_joint"));
    QCOMPARE(spec.follower.name(), std::string("gear2_joint"));

    // Turn gear1 and let the couplers move the rest: gear2 turns about +z
    // by −2·0.1 as the gearbox says, arm2 stays at 0.5·arm1 + 0.1.
    const Multibody mb = *world.getMultibody("gears");
    Joint gear1 = *mb.getJoint("gear1_joint");
    gear1.setPosition(0, 0.1);
    ClosureProjectionOptions po;
    po.lockedJoints = {gear1, *mb.getJoint("arm1_joint")};
    QVERIFY(world.projectClosures(po).success);
    const Matrix3d R = linkOf(world, "gears", "gear2").getWorldTransform().linear();
    const double angle = std::atan2(R(1, 0), R(0, 0));
    ARTICULA_CHECK(std::abs(angle + 0.2) < 1e-9, QString("gear2 turned by %1 about +z").arg(angle));
    const double arm1 = mb.getJoint("arm1_joint")->getPosition(0);
    const double arm2 = mb.getJoint("arm2_joint")->getPosition(0);
    ARTICULA_CHECK(std::abs(arm2 - (0.5 * arm1 + 0.1)) < 1e-9, QString("arm1 at %1, arm2 at %2").arg(arm1).arg(arm2));
  }

  // Link poses in SDF are the poses at zero joint positions, where every
  // joint frame is shared by its two links; the loop opens when the world's
  // <state> turns the crank, and the import closes it again.
  void openLoopIsAssembled() {
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, dataDir() / "fourbar_state.sdf", testOptions()));
    QVERIFY(report.assembly.performed);
    // Before: the coupler turns with the crank (j2 at zero), so its end C
    // leaves the rocker's along the chord 2·|AC|·sin(0.3/2), |AC|² = 0.4² + 0.5².
    const double chord = 2.0 * std::sqrt(0.41) * std::sin(0.15);
    ARTICULA_CHECK(std::abs(report.assembly.residualBefore - chord) < 1e-12,
                   QString("residual before %1, expected %2").arg(report.assembly.residualBefore).arg(chord));
    ARTICULA_CHECK(report.assembly.residualAfter <= 1e-9,
                   QString("residual after %1").arg(report.assembly.residualAfter));
    QVERIFY(world.getLoopClosures().front().computeResidual().norm <= 1e-9);
    QVERIFY(report.toText().find("assembled") != std::string::npos);
  }

  void loopModelsSimulate_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("must_be_loop_joint") << "fourbar_loop_joint.sdf";
    QTest::newRow("breadth-first cut") << "fourbar.sdf";
    QTest::newRow("assembled") << "fourbar_state.sdf";
    QTest::newRow("couplers") << "gears.sdf";
  }

  void loopModelsSimulate() {
    QFETCH(QString, file);
    World world;
    EXPECT_NO_THROW(io::importSdf(world, dataDir() / file.toStdString(), testOptions()));
    if (world.numJointCouplers() > 0) {
      // Assembled at import and at rest in the horizontal plane: spin the leaders.
      const Multibody mb = *world.getMultibody("gears");
      for (const char* leader : {"gear1_joint", "arm1_joint"}) mb.getJoint(leader)->setVelocity(0, 1.0);
    }
    const double energy = world.computeKineticEnergy() + world.computePotentialEnergy();
    const auto [closure, coupler] = simulateOneSecond(world);
    QVERIFY(world.getPositions().allFinite());
    ARTICULA_CHECK(closure <= 1e-6, QString("closure residual %1 after 1 s").arg(closure));
    ARTICULA_CHECK(coupler <= 1e-6, QString("coupler residual %1 after 1 s").arg(coupler));
    if (world.numJointCouplers() == 0) {
      // Undamped loops keep their energy (the projection removes a little).
      const double after = world.computeKineticEnergy() + world.computePotentialEnergy();
      ARTICULA_CHECK(std::abs(after - energy) < 1e-2 * std::max(1.0, std::abs(energy)),
                     QString("energy %1 → %2").arg(energy).arg(after));
    }
    // The loop actually moved.
    QVERIFY(world.computeKineticEnergy() > 1e-6);
  }

  // A pendulum hinged on a frame of its base: link pose, COM and inertia
  // at q = 0 against the SDF values composed by hand, and the motion about
  // the hinge axis through the hinge point.
  void pendulumPosesMatchTheFile() {
    const std::string sdf = R"(<?xml version="1.0"?>
<sdf version="1.9">
  <model name="pendulum">
    <pose>1 2 3 0 0 0.5</pose>
    <link name="base"/>
    <frame name="hinge_frame" attached_to="base">
      <pose>0 0 1 0 0 0</pose>
    </frame>
    <link name="bob">
      <pose relative_to="hinge_frame">0 0 -0.5 0.1 0 0</pose>
      <inertial>
        <pose>0.1 0 -0.2 0 0.3 0</pose>
        <mass>2</mass>
        <inertia><ixx>0.02</ixx><iyy>0.03</iyy><izz>0.04</izz></inertia>
      </inertial>
    </link>
    <joint name="fix" type="fixed">
      <parent>world</parent>
      <child>base</child>
    </joint>
    <joint name="hinge" type="revolute">
      <pose relative_to="hinge_frame"/>
      <parent>hinge_frame</parent>
      <child>bob</child>
      <axis><xyz>1 0 0</xyz></axis>
    </joint>
  </model>
</sdf>
)";
    World world;
    EXPECT_NO_THROW(io::importSdfFromString(world, sdf, "pendulum.sdf", {}, testOptions()));
    const Isometry3d X_WM = xyzRpy(1, 2, 3, 0, 0, 0.5);
    const Isometry3d X_WH = X_WM * xyzRpy(0, 0, 1, 0, 0, 0);
    const Isometry3d X_WB = X_WH * xyzRpy(0, 0, -0.5, 0.1, 0, 0);
    const Link base = linkOf(world, "pendulum", "base");
    const Link bob = linkOf(world, "pendulum", "bob");
    QVERIFY(poseError(base.getWorldTransform(), X_WM) < 1e-12);
    QVERIFY(poseError(bob.getWorldTransform(), X_WB) < 1e-12);
    const Vector3d com = X_WB * Vector3d(0.1, 0, -0.2);
    QVERIFY(test::relativeError(bob.getCOM(), com) < 1e-12);
    const Matrix3d R_LI = Eigen::AngleAxisd(0.3, Vector3d::UnitY()).toRotationMatrix();
    const Matrix3d I = R_LI * Vector3d(0.02, 0.03, 0.04).asDiagonal() * R_LI.transpose();
    QVERIFY(test::relativeError(bob.getInertia().rotational, I) < 1e-12);
    QCOMPARE(bob.getInertia().mass, 2.0);

    // Turning the hinge by 0.4 rad rotates the COM about the model's x axis
    // through the hinge point.
    bob.getParentJoint().setPosition(0, 0.4);
    const Vector3d axis = X_WM.linear() * Vector3d::UnitX();
    const Vector3d expected = X_WH.translation() + Eigen::AngleAxisd(0.4, axis) * (com - X_WH.translation());
    ARTICULA_CHECK(test::relativeError(bob.getCOM(), expected) < 1e-12,
                   QString("COM %1, expected %2").arg(test::xyz(bob.getCOM()), test::xyz(expected)));
  }

  // Nested models are flattened into the top-level model's multibody
  // ("inner::l"); a link of a static nested model is fixed to the world,
  // so the joint hanging the base from it becomes the root joint.
  void nestedModelsAreFlattened() {
    const std::string sdf = R"(<?xml version="1.0"?>
<sdf version="1.9">
  <model name="outer">
    <pose>0 0 1 0 0 1.5707963267948966</pose>
    <model name="post">
      <static>true</static>
      <link name="top">
        <pose>0 0 0.5 0 0 0</pose>
        <collision name="c"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision>
      </link>
    </model>
    <link name="base"><pose>1 0 0 0 0 0</pose></link>
    <model name="inner">
      <pose relative_to="base">0 1 0 0 0 0</pose>
      <link name="l"><pose>0 0 1 0 0 0</pose></link>
    </model>
    <joint name="hang" type="revolute">
      <parent>post::top</parent>
      <child>base</child>
      <axis><xyz>0 1 0</xyz></axis>
    </joint>
    <joint name="j" type="revolute">
      <parent>base</parent>
      <child>inner::l</child>
      <axis><xyz expressed_in="base">1 0 0</xyz></axis>
    </joint>
  </model>
</sdf>
)";
    World world;
    EXPECT_NO_THROW(io::importSdfFromString(world, sdf, "nested.sdf", {}, testOptions()));
    QCOMPARE(world.numMultibodies(), std::size_t(1));
    const Multibody mb = *world.getMultibody("outer");
    QCOMPARE(mb.numLinks(), std::size_t(2));
    const Link base = linkOf(world, "outer", "base");
    const Link l = linkOf(world, "outer", "inner::l");
    QVERIFY(base.getParentJoint().name() == "hang" && !base.getParentLink().has_value());
    QVERIFY(base.getParentJoint().type() == JointType::Revolute);
    const Isometry3d X_WM = xyzRpy(0, 0, 1, 0, 0, std::numbers::pi / 2);
    QVERIFY(poseError(base.getWorldTransform(), X_WM * xyzRpy(1, 0, 0, 0, 0, 0)) < 1e-12);
    QVERIFY(poseError(l.getWorldTransform(), X_WM * xyzRpy(1, 1, 1, 0, 0, 0)) < 1e-12);
    const std::optional<Shape> post = world.getShape("outer::post::top::c");
    QVERIFY(post.has_value() && post->getOwner().isWorld());
    QVERIFY(poseError(post->getWorldTransform(), X_WM * xyzRpy(0, 0, 0.5, 0, 0, 0)) < 1e-12);

    // j turns l about the base's x axis, which is the world's y axis.
    const Matrix3d R0 = l.getWorldTransform().linear();
    mb.getJoint("j")->setPosition(0, 0.5);
    const Matrix3d expected = Eigen::AngleAxisd(0.5, Vector3d::UnitY()).toRotationMatrix() * R0;
    QVERIFY(test::relativeError(l.getWorldTransform().linear(), expected) < 1e-12);
  }

  void rootAttachmentOptions() {
    World world;
    io::ImportOptions o = testOptions();
    o.root = io::RootAttachment::Floating;
    o.addGroundPlane = true;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, dataDir() / "fourbar.sdf", o));
    const Link ground = *world.getMultibody("fourbar")->getRootLink();
    QVERIFY(ground.getParentJoint().type() == JointType::Free);
    QVERIFY(poseError(ground.getWorldTransform(), fourBarLinkPose("ground")) < 1e-12);
    QVERIFY(world.getShape("ground").has_value());
    bool dropped = false;
    for (const io::ReportEntry& e : report.ignored) dropped |= e.message.find("'fix'") != std::string::npos;
    QVERIFY(dropped);

    // Fixed welds a root that has no joint to the world where the file puts it.
    World fixed;
    o.root = io::RootAttachment::Fixed;
    EXPECT_NO_THROW(io::importSdf(fixed, dataDir() / "world.sdf", o));
    const Link ball = linkOf(fixed, "ball", "body");
    QVERIFY(ball.getParentJoint().type() == JointType::Weld);
    QVERIFY(poseError(ball.getWorldTransform(), xyzRpy(0, 0, 2, 0, 0, 0)) < 1e-12);
  }

  // Every joint type, the limits SDF writes, and a universal joint whose
  // SDF child is the engine parent.
  void jointTypes() {
    const std::string sdf = R"(<?xml version="1.0"?>
<sdf version="1.9">
  <model name="types">
    <link name="a"/>
    <link name="b"><pose>0 0 -0.3 0 0 0</pose></link>
    <link name="c"><pose>0 0 -0.6 0 0 0</pose></link>
    <link name="d"><pose>0 0 -0.9 0 0 0</pose></link>
    <link name="e"><pose>0 0 -1.2 0 0 0</pose></link>
    <link name="f"><pose>0 0 -1.5 0 0 0</pose></link>
    <link name="g"><pose>0 0 -1.8 0 0 0</pose></link>
    <link name="h">
      <pose>0.2 0 -1.8 0 0 0.3</pose>
      <inertial><mass>0</mass><inertia><ixx>0</ixx><iyy>0</iyy><izz>0</izz></inertia></inertial>
    </link>
    <joint name="fix" type="fixed"><parent>world</parent><child>a</child></joint>
    <joint name="universal" type="universal">
      <pose>0 0 0.1 0 0 0</pose>
      <parent>b</parent>
      <child>a</child>
      <axis><xyz>1 0 0</xyz><limit><lower>-0.5</lower><upper>0.6</upper></limit></axis>
      <axis2><xyz>0 1 0</xyz><limit><lower>-0.7</lower><upper>0.8</upper></limit></axis2>
    </joint>
    <joint name="prismatic" type="prismatic">
      <parent>b</parent><child>c</child>
      <axis>
        <xyz>0 0 1</xyz>
        <limit><lower>-0.1</lower><upper>0.2</upper><effort>30</effort><velocity>2</velocity></limit>
        <dynamics><damping>0.5</damping><friction>0.25</friction></dynamics>
      </axis>
    </joint>
    <joint name="ball" type="ball"><parent>c</parent><child>d</child></joint>
    <joint name="screw" type="screw">
      <parent>d</parent><child>e</child>
      <thread_pitch>100</thread_pitch>
      <axis><xyz>0 0 1</xyz></axis>
    </joint>
    <joint name="continuous" type="continuous">
      <parent>e</parent><child>f</child>
      <axis><xyz>0 1 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
    </joint>
    <joint name="revolute2" type="revolute2">
      <parent>f</parent><child>g</child>
      <axis><xyz>1 0 0</xyz></axis>
      <axis2><xyz>0 1 0</xyz></axis2>
    </joint>
    <joint name="revolute" type="revolute">
      <parent>g</parent><child>h</child>
      <axis><xyz>0 0 1</xyz><limit><lower>-2</lower><upper>3</upper></limit></axis>
    </joint>
  </model>
</sdf>
)";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, sdf, "types.sdf", {}, testOptions()));
    QCOMPARE(report.warnings.size(), std::size_t(1));
    QVERIFY2(report.warnings.front().message.find("link 'h'") != std::string::npos,
             report.warnings.front().message.c_str());
    const Multibody mb = *world.getMultibody("types");
    QVERIFY(mb.getJoint("universal")->type() == JointType::Universal);
    QVERIFY(mb.getJoint("prismatic")->type() == JointType::Prismatic);
    QVERIFY(mb.getJoint("ball")->type() == JointType::Ball);
    QVERIFY(mb.getJoint("screw")->type() == JointType::Screw);
    QVERIFY(mb.getJoint("continuous")->type() == JointType::Revolute);
    QVERIFY(mb.getJoint("revolute2")->type() == JointType::Universal);
    QVERIFY(mb.getJoint("revolute")->type() == JointType::Revolute);

    const JointSpec prismatic = mb.getJoint("prismatic")->getSpec();
    QCOMPARE(prismatic.positionLowerLimits[0], -0.1);
    QCOMPARE(prismatic.positionUpperLimits[0], 0.2);
    QCOMPARE(prismatic.effortLimits[0], 30.0);
    QCOMPARE(prismatic.velocityLimits[0], 2.0);
    QCOMPARE(prismatic.damping[0], 0.5);
    QCOMPARE(prismatic.coulombFriction[0], 0.25);
    const JointSpec continuous = mb.getJoint("continuous")->getSpec();
    QVERIFY(std::isinf(continuous.positionLowerLimits[0]) && std::isinf(continuous.positionUpperLimits[0]));
    QVERIFY(std::isinf(continuous.effortLimits[0]) && std::isinf(continuous.velocityLimits[0]));
    const JointSpec revolute = mb.getJoint("revolute")->getSpec();
    QCOMPARE(revolute.positionLowerLimits[0], -2.0);
    QCOMPARE(revolute.positionUpperLimits[0], 3.0);

    // Screw: <thread_pitch> 100 rad/m, positive for a left-handed thread:
    // one radian moves the child 1 cm down the axis.
    const Link d = linkOf(world, "types", "d");
    const Link e = linkOf(world, "types", "e");
    mb.getJoint("screw")->setPosition(0, 1.0);
    const Isometry3d X_DE = e.getTransform(d);
    QVERIFY(std::abs(X_DE.translation().z() - (-0.3 - 0.01)) < 1e-12);

    // The universal joint (parent b, child a) is the root's side: b hangs
    // from a. Its engine axes are (−axis2, −axis) and its coordinates
    // (q2, q1), so that SDF coordinates (q1, q2) place b where
    // X_ab = X_aJ · (Rot(x, q1)·Rot(y, q2))⁻¹ · X_bJ⁻¹ says.
    Joint universal = *mb.getJoint("universal");
    QCOMPARE(test::leafName(universal.getParentLink()->name()), std::string("a"));
    const JointSpec u = universal.getSpec();
    QVERIFY(test::relativeError(u.axis, Vector3d(0, -1, 0)) < 1e-15);
    QVERIFY(test::relativeError(u.axis2, Vector3d(-1, 0, 0)) < 1e-15);
    QCOMPARE(u.positionLowerLimits[0], -0.7);
    QCOMPARE(u.positionUpperLimits[1], 0.6);
    const double q1 = 0.3;
    const double q2 = -0.2;
    VectorXd q(2);
    q << q2, q1;
    universal.setPositions(q);
    Isometry3d X_J = Isometry3d::Identity();
    X_J.linear() =
        (Eigen::AngleAxisd(q1, Vector3d::UnitX()) * Eigen::AngleAxisd(q2, Vector3d::UnitY())).toRotationMatrix();
    const Isometry3d X_aJ = xyzRpy(0, 0, 0.1, 0, 0, 0);
    const Isometry3d X_bJ = xyzRpy(0, 0, 0.4, 0, 0, 0);
    const Isometry3d X_ab = X_aJ * X_J.inverse() * X_bJ.inverse();
    const Link a = linkOf(world, "types", "a");
    const Link b = linkOf(world, "types", "b");
    ARTICULA_CHECK(poseError(b.getTransform(a), X_ab) < 1e-12,
                   QString("X_ab off by %1").arg(poseError(b.getTransform(a), X_ab)));
  }

  // ---- what peers load is imported, with a report entry -------------------

  void invalidInertiaIsRepairedBeforeValidation() {
    // sdformat refuses moments (1, 1, 3) (1 + 1 < 3) and (1, 1, −1); both
    // load with the nearest valid moments and a warning at the <inertial>.
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"m\">\n"
        "<link name=\"a\">\n<inertial>\n<mass>2</mass>\n<inertia><ixx>1</ixx><iyy>1</iyy><izz>3</izz></inertia>\n"
        "</inertial>\n</link>\n"
        "<link name=\"b\">\n<inertial>\n<mass>1</mass>\n<inertia><ixx>1</ixx><iyy>1</iyy><izz>-1</izz></inertia>\n"
        "</inertial>\n</link>\n"
        "<joint name=\"j\" type=\"revolute\"><parent>a</parent><child>b</child></joint>\n</model>\n</sdf>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, text.toStdString(), "inertia.sdf"));
    QCOMPARE(report.warnings.size(), std::size_t{2});
    QCOMPARE(report.warnings[0].line, 5);
    QVERIFY2(report.warnings[0].message.find("violate the triangle inequality") != std::string::npos,
             report.toText().c_str());
    QCOMPARE(report.warnings[1].line, 11);
    QVERIFY2(report.warnings[1].message.find("include negative values") != std::string::npos, report.toText().c_str());
    const Multibody mb = world.getMultibodies().front();
    const Inertia a = mb.getLink("a")->getInertia();
    QCOMPARE(a.mass, 2.0);
    VERIFY_NEAR(Vector3d(a.rotational.diagonal()), Vector3d(1.5, 1.5, 3.0), 1e-12);
    const Inertia b = mb.getLink("b")->getInertia();
    VERIFY_NEAR(Vector3d(b.rotational.diagonal()), Vector3d(1.0, 1.0, 0.0), 1e-12);
  }

  // A <limit> whose <lower> is above its <upper> (Gazebo classic's
  // gearbox.world): sdformat accepts it and Gazebo hands both stops to ODE,
  // whose documentation says a high stop below the low stop makes both
  // ineffective. The joint has no limits, with a warning at the <limit>.
  void reversedLimitsMeanNoLimits() {
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"m\">\n"
        "<link name=\"a\"/>\n<link name=\"b\"/>\n"
        "<joint name=\"j\" type=\"revolute\"><parent>world</parent><child>a</child>\n"
        "<axis><xyz>0 0 1</xyz>\n<limit><upper>-1000</upper><lower>1000</lower></limit>\n</axis>\n</joint>\n"
        "<joint name=\"k\" type=\"prismatic\"><parent>a</parent><child>b</child>\n"
        "<axis><xyz>1 0 0</xyz><limit><lower>-0.5</lower><upper>0.5</upper></limit></axis>\n</joint>\n"
        "</model>\n</sdf>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, text.toStdString(), "limits.sdf"));
    const io::ReportEntry* w = findEntry(report.warnings, {"joint 'j'", "<lower>1000</lower>", "<upper>-1000</upper>"});
    QVERIFY2(w != nullptr, report.toText().c_str());
    QCOMPARE(w->line, 8);
    QCOMPARE(w->file, std::string("limits.sdf"));
    QVERIFY2(w->message.find("without position limits") != std::string::npos, w->message.c_str());
    const Multibody mb = *world.getMultibody("m");
    const JointSpec j = mb.getJoint("j")->getSpec();
    QVERIFY(std::isinf(j.positionLowerLimits[0]) && j.positionLowerLimits[0] < 0);
    QVERIFY(std::isinf(j.positionUpperLimits[0]) && j.positionUpperLimits[0] > 0);
    // The well-formed limit of the next joint is kept.
    const JointSpec k = mb.getJoint("k")->getSpec();
    QCOMPARE(k.positionLowerLimits[0], -0.5);
    QCOMPARE(k.positionUpperLimits[0], 0.5);
  }

  // A gearbox whose <axis> and <axis2> are left out (sdformat reads 0 0 1,
  // perpendicular to the hinges here): each side uses the axis of the joint
  // it couples, with a warning. θ1 (ref → parent about x) is q_12, θ2
  // (ref → child about x) is q_23, and θ2 = −ratio·θ1 with ratio −1.5 gives
  // q_23 = 1.5·q_12: Gazebo's ODEGearboxJoint test checks
  // q_12·ratio = −q_23 on this layout.
  void gearboxWithoutAxesUsesTheCoupledJoints() {
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"m\">\n"
        "<link name=\"ref\"/>\n<link name=\"one\"><pose>0 0 1 0 0 0</pose></link>\n"
        "<link name=\"three\"><pose>0 1 1 0 0 0</pose></link>\n"
        "<joint name=\"fix\" type=\"fixed\"><parent>world</parent><child>ref</child></joint>\n"
        "<joint name=\"j12\" type=\"revolute\"><parent>ref</parent><child>one</child>"
        "<axis><xyz>1 0 0</xyz></axis></joint>\n"
        "<joint name=\"j23\" type=\"revolute\"><parent>ref</parent><child>three</child>"
        "<axis><xyz>1 0 0</xyz></axis></joint>\n"
        "<joint name=\"gear\" type=\"gearbox\"><parent>one</parent><child>three</child>\n"
        "<gearbox_ratio>-1.5</gearbox_ratio><gearbox_reference_body>ref</gearbox_reference_body>\n"
        "</joint>\n</model>\n</sdf>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, text.toStdString(), "gearbox.sdf"));
    QCOMPARE(report.couplers.size(), std::size_t(1));
    const io::CouplerMade& c = report.couplers.front();
    QCOMPARE(c.leader, std::string("j12"));
    QCOMPARE(c.follower, std::string("j23"));
    QCOMPARE(c.ratio, 1.5);
    QCOMPARE(c.offset, 0.0);
    const io::ReportEntry* axis = findEntry(report.warnings, {"'gear' has no <axis>", "'j12'", "1 0 0"});
    const io::ReportEntry* axis2 = findEntry(report.warnings, {"'gear' has no <axis2>", "'j23'", "1 0 0"});
    QVERIFY2(axis != nullptr && axis2 != nullptr, report.toText().c_str());
    QCOMPARE(axis->line, 10);
    QCOMPARE(axis2->line, 10);
  }

  // Gazebo classic's own gearbox regression world imports, runs, and keeps
  // the gear relation q_23 = 1.5·q_12 of both models (model_2's joint_12 runs
  // from link_1 to the reference body, so its sign turns twice).
  void gazeboGearboxWorldKeepsTheRatio() {
    const fs::path entry = corpusDir() / "gazebo_gearbox";
    io::ImportOptions o = testOptions();
    o.packagePath = {entry};
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, entry / "test" / "worlds" / "gearbox.world", o));
    // The reversed limits of joint_02, at their <limit>; the gearboxes'
    // missing axes, at the joint_13 of each model.
    for (const auto& [line, model] : {std::pair{181, "model_1"}, std::pair{378, "model_2"}}) {
      bool found = false;
      for (const io::ReportEntry& e : report.warnings) {
        found |= e.line == line && e.message.find("joint 'joint_02'") != std::string::npos &&
                 e.message.find("<lower>1000</lower> above <upper>-1000</upper>") != std::string::npos;
      }
      ARTICULA_CHECK(
          found, QString("no limit warning at line %1 (%2):\n%3").arg(line).arg(model).arg(test::qs(report.toText())));
      QVERIFY(std::isinf(world.getMultibody(model)->getJoint("joint_02")->getSpec().positionUpperLimits[0]));
    }
    for (const int line : {204, 404}) {
      int found = 0;
      for (const io::ReportEntry& e : report.warnings) {
        found += e.line == line && e.message.find("gearbox joint 'joint_13' has no <axis") != std::string::npos;
      }
      ARTICULA_CHECK(found == 2,
                     QString("%1 axis warnings at line %2:\n%3").arg(found).arg(line).arg(test::qs(report.toText())));
    }
    QCOMPARE(report.couplers.size(), std::size_t(2));
    for (const io::CouplerMade& c : report.couplers) {
      QCOMPARE(c.leader, std::string("joint_12"));
      QCOMPARE(c.follower, std::string("joint_23"));
      QCOMPARE(c.ratio, 1.5);
    }
    const Multibody m1 = *world.getMultibody("model_1");
    const Multibody m2 = *world.getMultibody("model_2");
    m1.getJoint("joint_12")->setVelocity(0, 1.0);
    m2.getJoint("joint_12")->setVelocity(0, -0.5);
    // Velocities that keep the couplers: the projection moves joint_23 along.
    ClosureProjectionOptions po;
    po.lockedJoints = {*m1.getJoint("joint_12"), *m2.getJoint("joint_12")};
    QVERIFY(world.projectClosures(po).success);
    const auto [closure, coupler] = simulateOneSecond(world);
    QVERIFY(world.getPositions().allFinite());
    ARTICULA_CHECK(coupler <= 1e-6, QString("coupler residual %1 after 1 s").arg(coupler));
    for (const Multibody& mb : {m1, m2}) {
      const double q12 = mb.getJoint("joint_12")->getPosition(0);
      const double q23 = mb.getJoint("joint_23")->getPosition(0);
      ARTICULA_CHECK(std::abs(q12) > 0.1 && std::abs(q23 - 1.5 * q12) < 1e-6,
                     QString("%1: q_12 = %2, q_23 = %3").arg(test::qs(mb.name())).arg(q12).arg(q23));
    }
  }

  // <drake:mimic> (Drake's extension, the prefix never declared as in
  // Drake's own WSG 50 file): q = multiplier·q_leader + offset, a coupler
  // reported at the element. Other extension elements are listed once per
  // kind, at the first one.
  void drakeMimicBecomesACoupler() {
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.7\">\n<model name=\"grip\">\n"
        "<link name=\"body\"/>\n<link name=\"left\"/>\n<link name=\"right\"/>\n"
        "<joint name=\"fix\" type=\"fixed\"><parent>world</parent><child>body</child></joint>\n"
        "<joint name=\"l\" type=\"prismatic\"><parent>body</parent><child>left</child>\n"
        "<axis><xyz>1 0 0</xyz></axis>\n<drake:controller_gains p=\"10000\" d=\"100\"/>\n</joint>\n"
        "<joint name=\"r\" type=\"prismatic\"><parent>body</parent><child>right</child>\n"
        "<axis><xyz>1 0 0</xyz></axis>\n<drake:controller_gains p=\"10000\" d=\"100\"/>\n"
        "<drake:mimic joint=\"l\" multiplier=\"-1\" offset=\"0.01\"/>\n</joint>\n"
        "<drake:acceleration>3</drake:acceleration>\n"
        "<gz:extra><gz:inner/></gz:extra>\n"
        "</model>\n</sdf>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, text.toStdString(), "grip.sdf"));
    QCOMPARE(report.couplers.size(), std::size_t(1));
    const io::CouplerMade& c = report.couplers.front();
    QCOMPARE(c.coupler, std::string("grip::r"));
    QCOMPARE(c.leader, std::string("l"));
    QCOMPARE(c.follower, std::string("r"));
    QCOMPARE(c.ratio, -1.0);
    QCOMPARE(c.offset, 0.01);
    QCOMPARE(c.line, 15);
    QCOMPARE(world.numJointCouplers(), std::size_t(1));
    // The offset is violated at zero: the import assembles it.
    const Multibody mb = *world.getMultibody("grip");
    const double l = mb.getJoint("l")->getPosition(0);
    const double r = mb.getJoint("r")->getPosition(0);
    ARTICULA_CHECK(std::abs(r - (-l + 0.01)) < 1e-9, QString("l = %1, r = %2").arg(l).arg(r));

    // One entry per extension kind, at its first element; nothing for the
    // imported <drake:mimic> or for children of a reported element.
    const io::ReportEntry* gains = findEntry(report.ignored, {"<drake:controller_gains>"});
    QVERIFY2(gains != nullptr, report.toText().c_str());
    QCOMPARE(gains->line, 10);
    QVERIFY2(gains->message.find("2 <drake:controller_gains> elements") != std::string::npos, gains->message.c_str());
    const io::ReportEntry* acceleration = findEntry(report.ignored, {"<drake:acceleration>"});
    QVERIFY2(acceleration != nullptr, report.toText().c_str());
    QCOMPARE(acceleration->line, 17);
    const io::ReportEntry* extra = findEntry(report.ignored, {"<gz:extra>", "'gz' namespace"});
    QVERIFY2(extra != nullptr, report.toText().c_str());
    QCOMPARE(extra->line, 18);
    int extension = 0;
    for (const io::ReportEntry& e : report.ignored) {
      extension += e.message.find("is not imported (an extension element of the") != std::string::npos;
    }
    QCOMPARE(extension, 3);
    QVERIFY(findEntry(report.ignored, {"<drake:mimic>"}) == nullptr);
    QVERIFY(findEntry(report.ignored, {"<gz:inner>"}) == nullptr);
  }

  // The checks of URDF's <mimic>: a leader that does not exist drops the
  // coupling with a warning (the joint moves freely); a ball joint is not
  // coupled (ignored).
  void drakeMimicIsCheckedAsUrdfMimic() {
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.7\">\n<model name=\"m\">\n"
        "<link name=\"a\"/>\n<link name=\"b\"/>\n<link name=\"c\"/>\n"
        "<joint name=\"fix\" type=\"fixed\"><parent>world</parent><child>a</child></joint>\n"
        "<joint name=\"ab\" type=\"revolute\"><parent>a</parent><child>b</child>\n"
        "<drake:mimic joint=\"ghost\" multiplier=\"2\" offset=\"0\"/>\n</joint>\n"
        "<joint name=\"bc\" type=\"ball\"><parent>b</parent><child>c</child>\n"
        "<drake:mimic joint=\"ab\" multiplier=\"1\" offset=\"0\"/>\n</joint>\n"
        "</model>\n</sdf>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, text.toStdString(), "mimic.sdf"));
    QCOMPARE(report.couplers.size(), std::size_t(0));
    const io::ReportEntry* ghost =
        findEntry(report.warnings, {"<drake:mimic> of joint 'ab'", "'ghost'", "moves freely"});
    QVERIFY2(ghost != nullptr, report.toText().c_str());
    QCOMPARE(ghost->line, 9);
    const io::ReportEntry* ball = findEntry(report.ignored, {"<drake:mimic> of joint 'bc'", "'bc' is a ball joint"});
    QVERIFY2(ball != nullptr, report.toText().c_str());
    QCOMPARE(ball->line, 12);
  }

  // Drake's WSG 50 with mimic: the right finger follows the left one,
  // q_right = −q_left.
  void drakeWsg50FingersAreCoupled() {
    const fs::path entry = corpusDir() / "drake_wsg50_mimic";
    io::ImportOptions o = testOptions();
    o.packagePath = {entry};
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world,
                                           entry / "drake" / "manipulation" / "models" / "wsg_50_description" / "sdf" /
                                               "schunk_wsg_50_with_mimic.sdf",
                                           o));
    QCOMPARE(report.couplers.size(), std::size_t(1));
    QCOMPARE(report.couplers.front().leader, std::string("left_finger_sliding_joint"));
    QCOMPARE(report.couplers.front().follower, std::string("right_finger_sliding_joint"));
    QCOMPARE(report.couplers.front().ratio, -1.0);
    QCOMPARE(report.couplers.front().line, 271);
    const io::ReportEntry* gains = findEntry(report.ignored, {"<drake:controller_gains>"});
    QVERIFY2(gains != nullptr, report.toText().c_str());
    QCOMPARE(gains->line, 248);
  }

  // <inertial auto="true"> (SDF 1.11): mass, centre of mass and inertia of
  // the collisions as solids of their <density>, by hand:
  // - box: a 0.1×0.2×0.3 m box at density 500 is 3 kg with the box moments;
  // - two: that box at the origin and a sphere of radius 0.1 (default
  //   density 1000: 4000π/3·0.001 kg) at z = 0.5, combined by the
  //   parallel-axis theorem about their common centre of mass;
  // - turned: the inertial's own <density> 2000 for a collision without one,
  //   the box turned by 90° about z (Ixx and Iyy trade places), and a given
  //   <mass> of 6 kg that the result is scaled to.
  // What sdformat 12 prints about the newer version becomes a warning, and
  // nothing reaches stderr.
  void autoInertiaIsComputedFromCollisions() {
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.11\">\n<model name=\"m\">\n"
        "<link name=\"box\">\n<inertial auto=\"true\"/>\n"
        "<collision name=\"c\"><density>500</density><geometry><box><size>0.1 0.2 0.3</size></box></geometry>"
        "</collision>\n</link>\n"
        "<link name=\"two\">\n<inertial auto=\"true\"/>\n"
        "<collision name=\"c\"><density>500</density><geometry><box><size>0.1 0.2 0.3</size></box></geometry>"
        "</collision>\n"
        "<collision name=\"s\"><pose>0 0 0.5 0 0 0</pose><geometry><sphere><radius>0.1</radius></sphere>"
        "</geometry></collision>\n</link>\n"
        "<link name=\"turned\">\n<inertial auto=\"true\"><density>2000</density><mass>6</mass></inertial>\n"
        "<collision name=\"c\"><pose>0 0 0 0 0 1.5707963267948966</pose>"
        "<geometry><box><size>0.1 0.2 0.3</size></box></geometry></collision>\n</link>\n"
        "<joint name=\"j1\" type=\"revolute\"><parent>box</parent><child>two</child></joint>\n"
        "<joint name=\"j2\" type=\"revolute\"><parent>two</parent><child>turned</child></joint>\n"
        "</model>\n</sdf>\n";
    World world;
    io::ImportReport report;
    std::ostringstream err;
    std::streambuf* cerr = std::cerr.rdbuf(err.rdbuf());
    try {
      report = io::importSdfFromString(world, text.toStdString(), "auto.sdf");
    } catch (const std::exception& e) {
      std::cerr.rdbuf(cerr);
      QFAIL(e.what());
    }
    std::cerr.rdbuf(cerr);
    QVERIFY2(err.str().empty(), err.str().c_str());
    const Multibody mb = *world.getMultibody("m");
    const Vector3d size(0.1, 0.2, 0.3);

    const Inertia box = mb.getLink("box")->getInertia();
    QVERIFY(std::abs(box.mass - 3.0) < 1e-12);
    VERIFY_NEAR(box.com, Vector3d::Zero(), 1e-12);
    VERIFY_NEAR(Vector3d(box.rotational.diagonal()), Vector3d(0.0325, 0.025, 0.0125), 1e-12);
    QVERIFY(box.rotational.isDiagonal(1e-15));

    const Inertia two = mb.getLink("two")->getInertia();
    const double ms = 1000.0 * 4.0 / 3.0 * std::numbers::pi * 0.001;
    const double m = 3.0 + ms;
    const Vector3d com(0, 0, 0.5 * ms / m);
    const Matrix3d I = boxInertia(3.0, size) + parallelAxis(3.0, -com) + 0.4 * ms * 0.01 * Matrix3d::Identity() +
                       parallelAxis(ms, Vector3d(0, 0, 0.5) - com);
    QVERIFY(std::abs(two.mass - m) < 1e-12);
    VERIFY_NEAR(two.com, com, 1e-12);
    VERIFY_NEAR(two.rotational, I, 1e-12);

    const Inertia turned = mb.getLink("turned")->getInertia();
    QVERIFY(std::abs(turned.mass - 6.0) < 1e-12);
    VERIFY_NEAR(Vector3d(turned.rotational.diagonal()), Vector3d(0.025, 0.0325, 0.0125) * 2.0, 1e-12);

    // One entry per link, at its <inertial>, with the mass.
    for (const auto& [link, line, mass] :
         {std::tuple{"'box'", 5, "mass 3 kg"}, std::tuple{"'two'", 9, "mass 7.18879 kg"},
          std::tuple{"'turned'", 14, "mass 6 kg"}}) {
      const io::ReportEntry* e = findEntry(report.warnings, {link, "<inertial auto=\"true\">", mass});
      ARTICULA_CHECK(e != nullptr, QString("no entry for %1 with %2:\n%3").arg(link, mass, test::qs(report.toText())));
      QCOMPARE(e->line, line);
      QCOMPARE(e->file, std::string("auto.sdf"));
    }
    QVERIFY2(findEntry(report.warnings, {"'turned'", "scaled to its <mass>"}) != nullptr, report.toText().c_str());
    // sdformat's own words about the version, at the <sdf> element; not its
    // complaint about the attribute it does not know.
    const io::ReportEntry* version =
        findEntry(report.warnings, {"sdformat", "Unable to convert from SDF version 1.11"});
    QVERIFY2(version != nullptr, report.toText().c_str());
    QCOMPARE(version->line, 2);
    QCOMPARE(version->file, std::string("auto.sdf"));
    QVERIFY2(findEntry(report.warnings, {"XML Attribute[auto]"}) == nullptr, report.toText().c_str());
  }

  // An <include>d model's <inertial auto="true"> is read from the included
  // file (sdformat names that file for its elements), and its entry points
  // there: a sphere of radius 0.2 at density 250 is 250·4π/3·0.008 kg.
  void autoInertiaOfAnIncludedModel() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path models = fs::path(dir.path().toStdString());
    fs::create_directories(models / "ball");
    std::ofstream(models / "ball" / "model.config")
        << "<?xml version=\"1.0\"?>\n<model><name>ball</name><sdf version=\"1.11\">model.sdf</sdf></model>\n";
    std::ofstream(models / "ball" / "model.sdf")
        << "<?xml version=\"1.0\"?>\n<sdf version=\"1.11\">\n<model name=\"ball\">\n<link name=\"body\">\n"
           "<inertial auto=\"true\"/>\n<collision name=\"c\">\n<density>250</density>\n"
           "<geometry><sphere><radius>0.2</radius></sphere></geometry>\n</collision>\n</link>\n</model>\n</sdf>\n";
    const std::string world =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n"
        "<include><uri>model://ball</uri></include>\n</world>\n</sdf>\n";
    io::ImportOptions o = testOptions();
    o.packagePath = {models};
    World w;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(w, world, "world.sdf", {}, o));
    const double mass = 250.0 * 4.0 / 3.0 * std::numbers::pi * 0.008;
    const Inertia I = linkOf(w, "ball", "body").getInertia();
    QVERIFY(std::abs(I.mass - mass) < 1e-12);
    VERIFY_NEAR(Vector3d(I.rotational.diagonal()), Vector3d::Constant(0.4 * mass * 0.04), 1e-12);
    const io::ReportEntry* e = findEntry(report.warnings, {"link 'body'", "<inertial auto=\"true\">"});
    QVERIFY2(e != nullptr, report.toText().c_str());
    QCOMPARE(e->line, 5);
    QCOMPARE(fs::path(e->file), models / "ball" / "model.sdf");
  }

  // gz-sim's auto-inertia pendulum: the upper links of the two models, three
  // cylinders of radius 0.1 (lengths 0.3, 0.3, 0.9) at densities
  // (8000, 1000, 1000) and (100, 10000, 100).
  void gzsimAutoInertiaPendulum() {
    const fs::path entry = corpusDir() / "gzsim_auto_inertia_pendulum";
    io::ImportOptions o = testOptions();
    o.packagePath = {entry};
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdf(world, entry / "auto_inertia_pendulum.sdf", o));
    const double v = std::numbers::pi * 0.01;  // volume per metre of length
    for (const auto& [model, mass] : {std::pair{"pendulum", v * (0.3 * 8000 + 0.3 * 1000 + 0.9 * 1000)},
                                      std::pair{"pendulum2", v * (0.3 * 100 + 0.3 * 10000 + 0.9 * 100)}}) {
      const double m = linkOf(world, model, "upper_link").getInertia().mass;
      ARTICULA_CHECK(std::abs(m - mass) < 1e-9,
                     QString("%1: upper_link has %2 kg, expected %3").arg(model).arg(m).arg(mass));
    }
    QCOMPARE(linkOf(world, "pendulum", "base").getInertia().mass, 256.425);
  }

  void frameAttachedToWorldIsFixedInTheWorld() {
    // A model at x = 1 with a frame "anchor" attached to the world at
    // z = 2 (world coordinates): a link placed relative to it sits at
    // (0, 0, 2) in the world, and a joint whose parent is the frame joins
    // the world.
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n<model name=\"m\">\n"
        "<pose>1 0 0 0 0 0</pose>\n"
        "<frame name=\"anchor\" attached_to=\"world\"><pose>0 0 2 0 0 0</pose></frame>\n"
        "<link name=\"a\"><pose relative_to=\"anchor\">0 0 0 0 0 0</pose>\n<inertial><mass>1</mass></inertial>"
        "</link>\n"
        "<joint name=\"hinge\" type=\"revolute\"><parent>anchor</parent><child>a</child>"
        "<axis><xyz>1 0 0</xyz></axis></joint>\n"
        "</model>\n</world>\n</sdf>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, text.toStdString(), "frames.sdf"));
    bool warned = false;
    for (const io::ReportEntry& e : report.warnings) {
      if (e.message.find("'anchor'") != std::string::npos &&
          e.message.find("fixed in the world") != std::string::npos) {
        warned = true;
        QCOMPARE(e.line, 6);
      }
    }
    QVERIFY2(warned, report.toText().c_str());
    const Multibody mb = world.getMultibodies().front();
    const Link a = *mb.getLink("a");
    VERIFY_NEAR(Vector3d(a.getWorldTransform().translation()), Vector3d(0.0, 0.0, 2.0), 1e-12);
    QVERIFY(a.getParentJoint().type() == JointType::Revolute);
  }

  void missingMeshIsSkippedWithAWarning() {
    const QString text =
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"m\">\n"
        "<link name=\"a\">\n<collision name=\"c\">\n<geometry><mesh><uri>meshes/missing.stl</uri></mesh>"
        "</geometry>\n</collision>\n<collision name=\"box\"><geometry><box><size>1 1 1</size></box></geometry>"
        "</collision>\n</link>\n</model>\n</sdf>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importSdfFromString(world, text.toStdString(), "mesh.sdf"));
    QCOMPARE(report.warnings.size(), std::size_t{1});
    QVERIFY2(report.warnings[0].message.find("'meshes/missing.stl' skipped") != std::string::npos,
             report.toText().c_str());
    QCOMPARE(report.warnings[0].line, 5);
    QCOMPARE(world.numShapes(), std::size_t{1});  // the box
  }

  void sdformatErrorsAreShort() {
    // Many errors at once: ours first, sdformat's words after, trimmed.
    QString body;
    for (int i = 0; i < 40; ++i) {
      body +=
          QString("<joint name=\"j%1\" type=\"revolute\"><parent>nowhere%1</parent><child>a</child></joint>\n").arg(i);
    }
    const QString text = "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"m\">\n<link name=\"a\"/>\n" +
                         body + "</model>\n</sdf>\n";
    World world;
    try {
      io::importSdfFromString(world, text.toStdString(), "many.sdf");
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY2(std::string(e.what()).size() < 1200, e.what());
      QVERIFY2(std::string(e.what()).find("more") != std::string::npos, e.what());
    }
  }

  void badFilesFail_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");
    QTest::addColumn<int>("line");
    auto model = [](const char* body) {
      return QString("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"m\">\n%1\n</model>\n</sdf>\n")
          .arg(QString::fromUtf8(body));
    };
    QTest::newRow("malformed XML") << model("<link name=\"a\">\n<pose>0 0 0 0 0 0</pose>\n</lnk>") << "malformed XML"
                                   << 4;
    QTest::newRow("not SDF") << "<robot name=\"r\"/>"
                             << "expected the root element <sdf" << 1;
    QTest::newRow("unknown joint type")
        << model(
               "<link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"hinge\">\n"
               "<parent>a</parent><child>b</child>\n</joint>")
        << "joint 'j' has unknown type 'hinge'" << 6;
    QTest::newRow("joint child missing")
        << model(
               "<link name=\"a\"/>\n<joint name=\"j\" type=\"revolute\">\n<parent>a</parent>\n"
               "<child>nowhere</child>\n</joint>")
        << "child 'nowhere' names no link or frame" << 5;
    QTest::newRow("negative mass") << model("<link name=\"a\">\n<inertial>\n<mass>-1</mass>\n</inertial>\n</link>")
                                   << "mass -1 is negative" << 5;
    QTest::newRow("NaN in a pose") << model("<link name=\"a\">\n<pose>0 nan 0 0 0 0</pose>\n</link>")
                                   << "'nan' is not a finite number" << 5;
    QTest::newRow("duplicate link names")
        << model("<link name=\"a\"/>\n<link name=\"a\"/>") << "two elements named 'a'" << 5;
    QTest::newRow("unknown include")
        << "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n<include>\n"
           "<uri>model://no_such_model</uri>\n</include>\n</world>\n</sdf>\n"
        << "model://no_such_model" << 5;
    QTest::newRow("gearbox without a joint to its reference")
        << model(
               "<link name=\"a\"/>\n<link name=\"b\"/>\n<link name=\"c\"/>\n"
               "<joint name=\"ab\" type=\"revolute\"><parent>a</parent><child>b</child></joint>\n"
               "<joint name=\"g\" type=\"gearbox\"><parent>b</parent><child>c</child>"
               "<gearbox_reference_body>a</gearbox_reference_body></joint>")
        << "no joint connects the reference body 'a' with 'c'" << 8;
    QTest::newRow("gearbox axis not parallel")
        << model(
               "<link name=\"a\"/>\n<link name=\"b\"/>\n<link name=\"c\"/>\n"
               "<joint name=\"ab\" type=\"revolute\"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz>"
               "</axis></joint>\n"
               "<joint name=\"ac\" type=\"revolute\"><parent>a</parent><child>c</child><axis><xyz>1 0 0</xyz>"
               "</axis></joint>\n"
               "<joint name=\"g\" type=\"gearbox\"><parent>b</parent><child>c</child>"
               "<gearbox_reference_body>a</gearbox_reference_body>\n<axis><xyz>0 0 1</xyz></axis>\n"
               "<axis2><xyz>1 0 0</xyz></axis2></joint>")
        << "its <axis> (0 0 1 in world coordinates) is not parallel to the axis of 'ab' (1 0 0)" << 10;
    QTest::newRow("drake:mimic of itself")
        << model(
               "<link name=\"a\"/>\n<link name=\"b\"/>\n"
               "<joint name=\"ab\" type=\"revolute\"><parent>a</parent><child>b</child>\n"
               "<drake:mimic joint=\"ab\" multiplier=\"1\" offset=\"0\"/>\n</joint>")
        << "<drake:mimic> of joint 'ab' names the joint itself" << 7;
    QTest::newRow("drake:mimic multiplier not a number")
        << model(
               "<link name=\"a\"/>\n<link name=\"b\"/>\n<link name=\"c\"/>\n"
               "<joint name=\"ab\" type=\"revolute\"><parent>a</parent><child>b</child></joint>\n"
               "<joint name=\"bc\" type=\"revolute\"><parent>b</parent><child>c</child>\n"
               "<drake:mimic joint=\"ab\" multiplier=\"two\" offset=\"0\"/>\n</joint>")
        << "multiplier=\"two\" is not a finite number" << 9;
    QTest::newRow("auto inertia without collisions")
        << "<?xml version=\"1.0\"?>\n<sdf version=\"1.11\">\n<model name=\"m\">\n<link name=\"a\">\n"
           "<inertial auto=\"true\"/>\n</link>\n</model>\n</sdf>\n"
        << "<inertial auto=\"true\"> computes the mass from the link's <collision> elements" << 5;
    QTest::newRow("negative density")
        << "<?xml version=\"1.0\"?>\n<sdf version=\"1.11\">\n<model name=\"m\">\n<link name=\"a\">\n"
           "<inertial auto=\"true\"/>\n<collision name=\"c\">\n<density>-5</density>\n"
           "<geometry><sphere><radius>1</radius></sphere></geometry>\n</collision>\n</link>\n</model>\n</sdf>\n"
        << "<density> '-5' is not a density" << 7;
    QTest::newRow("screw joint closing a loop")
        << model(
               "<link name=\"a\"/>\n<link name=\"b\"/>\n"
               "<joint name=\"ab\" type=\"revolute\"><parent>a</parent><child>b</child></joint>\n"
               "<joint name=\"s\" type=\"screw\"><parent>a</parent><child>b</child></joint>")
        << "has no loop-closure equivalent" << 7;
  }

  void badFilesFail() {
    QFETCH(QString, text);
    QFETCH(QString, problem);
    QFETCH(int, line);
    World world;
    try {
      io::importSdfFromString(world, text.toStdString(), "bad.sdf", dataDir(), testOptions());
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      const QString what = QString::fromUtf8(e.what());
      QVERIFY2(what.contains(problem), qPrintable(what));
      QVERIFY2(e.line() == line, qPrintable(QString("line %1, expected %2: %3").arg(e.line()).arg(line).arg(what)));
      QCOMPARE(e.file(), std::string("bad.sdf"));
    }
    QVERIFY(isEmpty(world));
  }

  void nonEmptyWorldIsRefused() {
    World world;
    world.addGroundPlane();
    QVERIFY_THROWS_EXCEPTION(io::ImportError, io::importSdf(world, dataDir() / "fourbar.sdf", testOptions()));
    QCOMPARE(world.numShapes(), std::size_t(1));
  }

 private:
  QTemporaryDir m_home;
};

QTEST_APPLESS_MAIN(TestSdfImport)
#include "test_sdf_import.moc"

// MJCF import, element by element: each case writes a small <mujoco> model
// and checks what Articula builds from it against the MJCF reference's
// semantics worked out by hand (frames, units, inertia of solids, default
// classes, equality constraints, actuators, sensors, keyframes, includes),
// and that what is not imported is reported with file and line.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

constexpr double kPi = std::numbers::pi;

struct Imported {
  World world;
  io::ImportReport report;
};

std::unique_ptr<Imported> load(const std::string& text, const fs::path& base = {}, io::ImportOptions o = {}) {
  auto out = std::make_unique<Imported>();
  o.useEnvironmentPaths = false;
  out->report = io::importMjcfFromString(out->world, text, "model.xml", base, o);
  return out;
}

// The message of the ImportError the text raises, or "" when it imports.
std::string importError(const std::string& text, int* line = nullptr) {
  World w;
  try {
    io::importMjcfFromString(w, text, "bad.xml");
  } catch (const io::ImportError& e) {
    if (line != nullptr) *line = e.line();
    return e.what();
  }
  return {};
}

bool hasEntry(const std::vector<io::ReportEntry>& list, const std::string& needle, int line = -1) {
  for (const io::ReportEntry& e : list) {
    if (e.message.find(needle) != std::string::npos && (line < 0 || e.line == line)) return true;
  }
  return false;
}

Isometry3d linkPose(const World& w, const std::string& mb, const std::string& link) {
  return w.getMultibody(mb)->getLink(link)->getWorldTransform();
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

}  // namespace

class TestMjcfImport : public QObject {
  Q_OBJECT

 private slots:
  // <compiler angle eulerseq>, <option>, and every orientation attribute.
  void framesUnitsAndOrientations() {
    const auto m = load(R"(<mujoco model="frames">
  <compiler angle="degree" eulerseq="zyx"/>
  <option timestep="0.004" gravity="0 0 -3"/>
  <worldbody>
    <body name="a" pos="1 2 3" euler="90 0 0">
      <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <joint name="ja" type="hinge" axis="0 0 1"/>
      <body name="b" pos="0 1 0" axisangle="1 0 0 90">
        <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
        <joint name="jb" type="slide" axis="1 0 0"/>
      </body>
      <body name="c" xyaxes="0 1 0 -1 0 0">
        <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
        <joint name="jc"/>
      </body>
      <body name="d" zaxis="1 0 0">
        <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
        <joint name="jd"/>
      </body>
    </body>
  </worldbody>
</mujoco>)");
    const World& w = m->world;
    QCOMPARE(w.getOptions().timeStep, 0.004);
    QVERIFY(w.getOptions().gravity.isApprox(Vector3d(0, 0, -3)));
    // euler "90 0 0" in sequence zyx: 90° about z.
    const Isometry3d A = linkPose(w, "frames", "a");
    QVERIFY(A.translation().isApprox(Vector3d(1, 2, 3)));
    QVERIFY(A.linear().isApprox(Eigen::AngleAxisd(kPi / 2, Vector3d::UnitZ()).toRotationMatrix(), 1e-12));
    const Isometry3d B = linkPose(w, "frames", "b");
    QVERIFY((B.translation() - (A * Vector3d(0, 1, 0))).norm() < 1e-12);
    QVERIFY(B.linear().isApprox(A.linear() * Eigen::AngleAxisd(kPi / 2, Vector3d::UnitX()).toRotationMatrix(), 1e-12));
    // xyaxes: x along the parent's y, y along the parent's −x.
    const Matrix3d C = linkPose(w, "frames", "c").linear();
    QVERIFY((A.linear().transpose() * C).col(0).isApprox(Vector3d::UnitY(), 1e-12));
    QVERIFY((A.linear().transpose() * C).col(1).isApprox(-Vector3d::UnitX(), 1e-12));
    // zaxis: the shortest turn taking z onto the parent's x.
    const Matrix3d D = A.linear().transpose() * linkPose(w, "frames", "d").linear();
    QVERIFY(D.col(2).isApprox(Vector3d::UnitX(), 1e-12));
    QVERIFY(D.col(1).isApprox(Vector3d::UnitY(), 1e-12));
    // Two orientations on one element are refused, as MuJoCo refuses them.
    const std::string two = importError(
        R"(<mujoco><worldbody><body zaxis="1 0 0" quat="1 0 0 0"><geom size="1"/></body></worldbody></mujoco>)");
    QVERIFY2(two.find("more than one orientation") != std::string::npos, two.c_str());
    // The hinge of b turns about its body's z axis; its slide moves along its body's x.
    World& ww = m->world;
    auto mb = ww.getMultibody("frames");
    QVERIFY(mb.has_value());
    Joint jb = *mb->getJoint("jb");
    QVERIFY(jb.type() == JointType::Prismatic);
    VectorXd q = mb->getPositions();
    q.setZero();
    q[jb.positionOffset()] = 0.5;
    mb->setPositions(q);
    const Isometry3d B2 = linkPose(ww, "frames", "b");
    QVERIFY((B2.translation() - B.translation() - 0.5 * B.linear().col(0)).norm() < 1e-12);
  }

  // Degrees apply to joint ranges and refs; radians when the compiler says so.
  void jointsAndTheirAttributes() {
    const auto m = load(R"(<mujoco model="joints">
  <compiler angle="degree" autolimits="true"/>
  <worldbody>
    <body name="base">
      <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <joint name="hinge" range="-90 45" damping="0.5" stiffness="3" springref="10" armature="0.2" frictionloss="0.1"/>
      <body name="slider" pos="0 0 1">
        <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
        <joint name="slide" type="slide" axis="0 2 0" range="-0.1 0.2" limited="false"/>
        <body name="ball" pos="0 0 1">
          <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
          <joint name="ball" type="ball" pos="0 0 0.5"/>
        </body>
      </body>
    </body>
    <body name="puck" pos="3 0 1">
      <freejoint name="puck_free"/>
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
</mujoco>)");
    World& w = m->world;
    // Two trees: each multibody is named after its root body.
    QVERIFY(w.getMultibody("base").has_value());
    auto mb = *w.getMultibody("base");
    const JointSpec hinge = mb.getJoint("hinge")->getSpec();
    QCOMPARE(hinge.positionLowerLimits[0], -kPi / 2);
    QCOMPARE(hinge.positionUpperLimits[0], kPi / 4);
    QCOMPARE(hinge.damping[0], 0.5);
    QCOMPARE(hinge.springStiffness[0], 3.0);
    QVERIFY(std::abs(hinge.restPositions[0] - 10.0 * kPi / 180.0) < 1e-15);
    QCOMPARE(hinge.armature[0], 0.2);
    QCOMPARE(hinge.coulombFriction[0], 0.1);
    const JointSpec slide = mb.getJoint("slide")->getSpec();
    // limited="false" wins over autolimits: no finite bound.
    QVERIFY(slide.positionLowerLimits.size() == 0 || !std::isfinite(slide.positionLowerLimits[0]));
    QVERIFY(slide.positionUpperLimits.size() == 0 || !std::isfinite(slide.positionUpperLimits[0]));
    QVERIFY(slide.axis.isApprox(Vector3d::UnitY()));
    const JointSpec ball = mb.getJoint("ball")->getSpec();
    QVERIFY(ball.type == JointType::Ball);
    // The ball turns about its pivot: the body's origin swings on a sphere of radius 0.5 around it.
    const Vector3d pivot = linkPose(w, "base", "ball") * Vector3d(0, 0, 0.5);
    VectorXd q = mb.getPositions();
    const Eigen::Index iq = mb.getJoint("ball")->positionOffset();
    const Eigen::Quaterniond turn(Eigen::AngleAxisd(0.7, Vector3d::UnitX()));
    q.segment<4>(iq) << turn.x(), turn.y(), turn.z(), turn.w();
    mb.setPositions(q);
    const Vector3d origin = linkPose(w, "base", "ball").translation();
    QVERIFY(std::abs((origin - pivot).norm() - 0.5) < 1e-12);
    QVERIFY((origin - pivot).isApprox(turn * Vector3d(0, 0, -0.5), 1e-12));
    // A lone body with a free joint is a rigid body, where the file puts it.
    QVERIFY(w.getRigidBody("puck").has_value());
    QVERIFY(w.getRigidBody("puck")->getWorldTransform().translation().isApprox(Vector3d(3, 0, 1)));
    // Sphere of radius 0.1 at MuJoCo's default density 1000.
    QVERIFY(std::abs(w.getRigidBody("puck")->getInertia().mass - 1000.0 * 4.0 / 3.0 * kPi * 1e-3) < 1e-9);
  }

  // A body with several joints applies them in order, each about the frame
  // the previous one left, pivoting at its own pos.
  void severalJointsInOneBody() {
    const auto m = load(R"(<mujoco model="gimbal">
  <compiler angle="radian"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <inertial pos="0 0 -0.5" mass="2" diaginertia="0.1 0.2 0.3"/>
      <joint name="j1" axis="1 0 0" pos="0 0 0.1"/>
      <joint name="j2" axis="0 1 0" pos="0 0.2 0"/>
      <joint name="j3" type="slide" axis="0 0 1"/>
    </body>
  </worldbody>
</mujoco>)");
    World& w = m->world;
    auto mb = *w.getMultibody("gimbal");
    QCOMPARE(mb.numDofs(), 3);
    const double q1 = 0.3, q2 = -0.8, q3 = 0.05;
    VectorXd q(3);
    q << q1, q2, q3;
    mb.setPositions(q);
    // X = X0 · T(p1) R(x, q1) T(−p1) · T(p2) R(y, q2) T(−p2) · T(q3 z)
    const auto pivot = [](const Vector3d& p, const Vector3d& axis, double angle) {
      return Isometry3d(Eigen::Translation3d(p) * Eigen::AngleAxisd(angle, axis) * Eigen::Translation3d(-p));
    };
    const Isometry3d expected =
        Isometry3d(Eigen::Translation3d(0, 0, 1)) * pivot(Vector3d(0, 0, 0.1), Vector3d::UnitX(), q1) *
        pivot(Vector3d(0, 0.2, 0), Vector3d::UnitY(), q2) * Isometry3d(Eigen::Translation3d(0, 0, q3));
    const Isometry3d X = linkPose(w, "gimbal", "arm");
    QVERIFY2((X.matrix() - expected.matrix()).norm() < 1e-12, "multi-joint body frame");
    QCOMPARE(mb.getMass(), 2.0);
  }

  // <inertial quat fullinertia> turns the tensor into body axes; without an
  // <inertial>, the geoms' solids (density or mass) give it.
  void inertiaFromInertialAndFromGeoms() {
    const fs::path dir = fs::path(QDir::tempPath().toStdString()) / "articula_mjcf_inertia";
    fs::create_directories(dir / "meshes");
    // A cube of side 0.2 centred at (0.1, 0, 0), outward triangles.
    write(dir / "meshes" / "cube.obj", R"(v 0 -0.1 -0.1
v 0.2 -0.1 -0.1
v 0.2 0.1 -0.1
v 0 0.1 -0.1
v 0 -0.1 0.1
v 0.2 -0.1 0.1
v 0.2 0.1 0.1
v 0 0.1 0.1
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
)");
    const auto m = load(R"(<mujoco model="inertia">
  <compiler angle="radian" meshdir="meshes"/>
  <asset><mesh name="cube" file="cube.obj"/></asset>
  <worldbody>
    <body name="rotated">
      <joint name="j0"/>
      <inertial pos="0.1 0 0" quat="0.7071067811865476 0 0 0.7071067811865476" mass="3" diaginertia="1 2 3"/>
    </body>
    <body name="full" pos="1 0 0">
      <joint name="j1"/>
      <inertial pos="0 0 0" mass="1" fullinertia="4 5 6 0.1 0.2 0.3"/>
    </body>
    <body name="solids" pos="2 0 0">
      <joint name="j2"/>
      <geom type="box" size="0.1 0.2 0.3" density="500"/>
      <geom type="sphere" size="0.1" pos="0 0 1" mass="2"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.05"/>
    </body>
    <body name="meshy" pos="3 0 0">
      <joint name="j3"/>
      <geom type="mesh" mesh="cube" density="1000"/>
    </body>
  </worldbody>
</mujoco>)",
                        dir);
    const World& w = m->world;
    const Inertia r = w.getMultibody("rotated")->getLink("rotated")->getInertia();
    // 90° about z swaps the x and y moments.
    QVERIFY(r.rotational.isApprox(Vector3d(2, 1, 3).asDiagonal().toDenseMatrix(), 1e-12));
    QVERIFY(r.com.isApprox(Vector3d(0.1, 0, 0)));
    Matrix3d full;
    full << 4, 0.1, 0.2, 0.1, 5, 0.3, 0.2, 0.3, 6;
    QVERIFY(w.getMultibody("full")->getLink("full")->getInertia().rotational.isApprox(full, 1e-12));
    // Box 0.2 × 0.4 × 0.6 at density 500: 24 kg; sphere 2 kg at z = 1; a
    // capsule of radius 0.05 and cylinder length 0.4 along x at density 1000.
    const Inertia s = w.getMultibody("solids")->getLink("solids")->getInertia();
    const double capsule = 1000.0 * (kPi * 0.05 * 0.05 * 0.4 + 4.0 / 3.0 * kPi * 0.05 * 0.05 * 0.05);
    QVERIFY(std::abs(s.mass - (24.0 + 2.0 + capsule)) < 1e-9);
    const Vector3d com =
        (24.0 * Vector3d::Zero() + 2.0 * Vector3d(0, 0, 1) + capsule * Vector3d(0.2, 0, 0)) / (26.0 + capsule);
    QVERIFY((s.com - com).norm() < 1e-12);
    // Mesh: the cube's 8 kg (0.008 m³ at 1000), centred at (0.1, 0, 0), I = m a²/6.
    const Inertia c = w.getMultibody("meshy")->getLink("meshy")->getInertia();
    // Mesh files hold single-precision vertices: 1e-6 relative.
    QVERIFY2(std::abs(c.mass - 8.0) < 8e-6, qPrintable(QString::number(c.mass, 'g', 17)));
    QVERIFY((c.com - Vector3d(0.1, 0, 0)).norm() < 1e-7);
    QVERIFY((c.rotational - Matrix3d::Identity() * 8.0 * 0.04 / 6.0).norm() < 1e-6);
    fs::remove_all(dir);
  }

  // Geoms: every type, fromto, visual-only geoms, materials and rgba, planes.
  void geomsMaterialsAndPlanes() {
    const auto m = load(R"(<mujoco model="geoms">
  <compiler angle="radian"/>
  <asset><material name="red" rgba="1 0 0 1"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" friction="0.6 0.005 0.0001"/>
    <body name="b" pos="0 0 1">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.2 0.3" material="red"/>
      <geom name="cap" type="capsule" fromto="0 0 0 0 0 0.4" size="0.05" rgba="0 1 0 1"/>
      <geom name="cyl" type="cylinder" size="0.05 0.1" pos="0 0 -0.5"/>
      <geom name="ell" type="ellipsoid" size="0.1 0.2 0.3" pos="0.5 0 0"/>
      <geom name="look" type="sphere" size="0.05" contype="0" conaffinity="0" rgba="0 0 1 0.5"/>
      <geom name="hidden" type="sphere" size="0.05" group="3"/>
      <body name="c" pos="1 0 0"><joint/><geom size="0.01"/></body>
    </body>
  </worldbody>
</mujoco>)");
    const World& w = m->world;
    const auto shape = [&](const std::string& name) { return *w.getShape(name); };
    QVERIFY(shape("floor").getGeometry().type == GeometryType::Plane);
    QCOMPARE(shape("floor").getMaterial().friction, 0.6);
    QVERIFY(shape("box").getGeometry().size.isApprox(Vector3d(0.2, 0.4, 0.6)));
    QVERIFY(shape("box").isCollision());
    QVERIFY(shape("box_visual").getColor().isApprox(Vector4d(1, 0, 0, 1)));
    QCOMPARE(shape("cap").getGeometry().radius, 0.05);
    QVERIFY(std::abs(shape("cap").getGeometry().length - 0.4) < 1e-15);
    QVERIFY(shape("cap").getLocalPose().translation().isApprox(Vector3d(0, 0, 0.2)));
    QVERIFY(shape("cap_visual").getColor().isApprox(Vector4d(0, 1, 0, 1)));
    QVERIFY(std::abs(shape("cyl").getGeometry().length - 0.2) < 1e-15);
    QVERIFY(shape("ell").getGeometry().size.isApprox(Vector3d(0.1, 0.2, 0.3)));
    QVERIFY(!shape("look").isCollision());
    QVERIFY(shape("look").getColor().isApprox(Vector4d(0, 0, 1, 0.5)));
    // Group 3 is not drawn by MuJoCo: a collision shape without a visual twin.
    QVERIFY(shape("hidden").isCollision());
    QVERIFY(!w.getShape("hidden_visual").has_value());
    QVERIFY(w.getMultibody("geoms").has_value());  // a free body with children is a multibody (one tree: the model)
  }

  // <default> classes inherit, childclass reaches down the tree, the
  // element's own attribute wins.
  void defaultClassesAndChildclass() {
    const auto m = load(R"(<mujoco model="defaults">
  <compiler angle="radian"/>
  <default>
    <joint damping="1"/>
    <geom type="box" size="0.1 0.1 0.1"/>
    <default class="arm">
      <joint damping="2" armature="0.5"/>
      <default class="wrist">
        <joint damping="3"/>
      </default>
    </default>
  </default>
  <worldbody>
    <body name="plain" pos="5 0 0">
      <joint name="j_plain"/>
      <geom name="g_plain"/>
    </body>
    <body name="shoulder" childclass="arm">
      <joint name="j_shoulder"/>
      <geom name="g_shoulder"/>
      <body name="elbow">
        <joint name="j_elbow" damping="7"/>
        <geom name="g_elbow" type="sphere" size="0.05"/>
        <body name="hand">
          <joint name="j_wrist" class="wrist"/>
          <geom type="sphere" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)");
    const World& w = m->world;
    const auto spec = [&](const std::string& mb, const std::string& j) {
      return w.getMultibody(mb)->getJoint(j)->getSpec();
    };
    QCOMPARE(spec("plain", "j_plain").damping[0], 1.0);
    QVERIFY(spec("plain", "j_plain").armature.size() == 0 || spec("plain", "j_plain").armature[0] == 0.0);
    QCOMPARE(spec("shoulder", "j_shoulder").damping[0], 2.0);
    QCOMPARE(spec("shoulder", "j_shoulder").armature[0], 0.5);
    QCOMPARE(spec("shoulder", "j_elbow").damping[0], 7.0);
    QCOMPARE(spec("shoulder", "j_wrist").damping[0], 3.0);
    QCOMPARE(spec("shoulder", "j_wrist").armature[0], 0.5);  // inherited from arm
    QVERIFY(w.getShape("g_plain")->getGeometry().type == GeometryType::Box);
    QVERIFY(w.getShape("g_elbow")->getGeometry().type == GeometryType::Sphere);
    // An unknown class is an error with the line.
    int line = 0;
    const std::string error = importError(R"(<mujoco>
<worldbody>
  <body><joint class="nosuch"/><geom size="1"/></body>
</worldbody>
</mujoco>)",
                                          &line);
    QVERIFY2(error.find("class 'nosuch'") != std::string::npos, error.c_str());
    QCOMPARE(line, 3);
  }

  // connect / weld / joint equalities become Point and Rigid closures and a
  // coupler; the closures hold at the reference pose.
  void equalitiesBecomeClosuresAndCouplers() {
    const auto m = load(R"(<mujoco model="loops">
  <compiler angle="radian"/>
  <worldbody>
    <body name="crank" pos="0 0 1">
      <joint name="crank_joint" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/>
      <body name="rod" pos="0.2 0 0">
        <joint name="rod_joint" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02"/>
      </body>
    </body>
    <body name="wheel" pos="1 0 1">
      <joint name="wheel_joint" axis="0 1 0"/>
      <geom type="cylinder" size="0.1 0.02"/>
    </body>
    <body name="follower" pos="2 0 1">
      <joint name="follower_joint" axis="0 1 0"/>
      <geom type="cylinder" size="0.1 0.02"/>
    </body>
    <body name="plate" pos="0 1 1">
      <joint name="plate_joint" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.01"/>
    </body>
  </worldbody>
  <equality>
    <connect name="pin" body1="rod" body2="world" anchor="0.4 0 0"/>
    <weld name="glue" body1="plate" body2="world"/>
    <joint name="gear" joint1="follower_joint" joint2="wheel_joint" polycoef="0.1 -2 0 0 0"/>
    <tendon name="t" tendon1="x"/>
  </equality>
  <tendon/>
</mujoco>)");
    World& w = m->world;
    QCOMPARE(w.numLoopClosures(), std::size_t(2));
    const LoopClosure pin = *w.getLoopClosure("pin");
    QVERIFY(pin.family() == LoopClosureFamily::Point);
    QVERIFY(pin.computeResidualNorm() < 1e-12);
    const LoopClosure glue = *w.getLoopClosure("glue");
    QVERIFY(glue.family() == LoopClosureFamily::Rigid);
    QVERIFY(glue.computeResidualNorm() < 1e-12);
    QCOMPARE(m->report.cuts.size(), std::size_t(2));
    QCOMPARE(m->report.couplers.size(), std::size_t(1));
    const JointCoupler gear = *w.getJointCoupler("gear");
    QCOMPARE(gear.getSpec().ratio, -2.0);
    QCOMPARE(gear.getSpec().offset, 0.1);
    QVERIFY(hasEntry(m->report.ignored, "<tendon> equality 't' not imported (Articula has no tendons)"));
    QVERIFY(hasEntry(m->report.ignored, "<tendon> not imported (Articula has no tendons)"));
    // The pin keeps the rod tip at the world point it starts at while the crank turns.
    w.enterSimulationMode();
    for (int i = 0; i < 300; ++i) w.step();
    QVERIFY(w.getLoopClosure("pin")->computeResidualNorm() < 1e-6);
  }

  // Actuators: motor, position, velocity, and general with an affine bias
  // (a position servo), with gears and ranges; tendon transmissions reported.
  void actuators() {
    const auto m = load(R"(<mujoco model="act">
  <compiler angle="radian" autolimits="true"/>
  <default><position kp="50"/></default>
  <worldbody>
    <body name="a">
      <joint name="j1"/><geom size="0.1"/>
      <body name="b" pos="0 0 1"><joint name="j2"/><geom size="0.1"/>
        <body name="c" pos="0 0 1"><joint name="j3"/><geom size="0.1"/>
          <body name="d" pos="0 0 1"><joint name="j4"/><geom size="0.1"/></body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m" joint="j1" gear="10" ctrlrange="-1 1" forcerange="-2 3"/>
    <position name="p" joint="j2" kv="4"/>
    <velocity name="v" joint="j3" kv="6"/>
    <general name="g" joint="j4" gainprm="100" biasprm="0 -100 -10" biastype="affine" ctrlrange="-1 1"/>
    <motor name="t" tendon="x"/>
  </actuator>
</mujoco>)");
    const World& w = m->world;
    QCOMPARE(w.numActuators(), std::size_t(4));
    const ActuatorSpec mo = w.getActuator("m")->getSpec();
    QVERIFY(mo.type == ActuatorType::Motor);
    QCOMPARE(mo.gear, 10.0);
    QCOMPARE(mo.controlMin, -1.0);
    QCOMPARE(mo.forceMin, -20.0);  // forcerange acts on the actuator force, before the gear
    QCOMPARE(mo.forceMax, 30.0);
    const ActuatorSpec p = w.getActuator("p")->getSpec();
    QVERIFY(p.type == ActuatorType::PositionServo);
    QCOMPARE(*p.kp, 50.0);  // from the default class
    QCOMPARE(*p.kd, 4.0);
    const ActuatorSpec v = w.getActuator("v")->getSpec();
    QVERIFY(v.type == ActuatorType::VelocityServo);
    QCOMPARE(*v.kv, 6.0);
    const ActuatorSpec g = w.getActuator("g")->getSpec();
    QVERIFY(g.type == ActuatorType::PositionServo);
    QCOMPARE(*g.kp, 100.0);
    QCOMPARE(*g.kd, 10.0);
    QVERIFY(hasEntry(m->report.ignored, "tendon transmission not imported"));
  }

  // Sensors on sites, and keyframes mapped to Articula's coordinates.
  void sensorsAndKeyframes() {
    const auto m = load(R"(<mujoco model="sk">
  <compiler angle="radian"/>
  <worldbody>
    <geom type="plane" size="0 0 1"/>
    <body name="base" pos="0 0 1">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <site name="imu" pos="0 0 0.1"/>
      <site name="eye" pos="0.05 0 -0.1" zaxis="0 0 -1"/>
      <body name="leg" pos="0 0 -0.2">
        <joint name="knee" ref="0.5"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/>
        <site name="ft" pos="0 0 0"/>
      </body>
    </body>
  </worldbody>
  <actuator><position name="kneeservo" joint="knee"/></actuator>
  <sensor>
    <accelerometer name="acc" site="imu"/>
    <gyro name="gyr" site="imu"/>
    <force name="f" site="ft"/>
    <torque name="t" site="ft"/>
    <jointpos name="kq" joint="knee"/>
    <rangefinder name="range" site="eye"/>
    <touch name="touch" site="ft"/>
    <framepos name="fp" objtype="site" objname="imu"/>
  </sensor>
  <keyframe>
    <key name="crouch" qpos="1 2 3 0 0 0 1 0.8" qvel="1 0 0 0 0 0 0" ctrl="0.7"/>
  </keyframe>
</mujoco>)");
    World& w = m->world;
    QCOMPARE(w.numSensors(), std::size_t(5));  // one IMU, one force-torque, encoder, rangefinder, contact
    QVERIFY(hasEntry(m->report.ignored, "<framepos> sensor not imported"));
    // The rangefinder looks down (the site's +z is the world's −z), past the
    // leg: it sees the plane at 1 − 0.1 = 0.9 m.
    w.enterSimulationMode();
    w.step();
    const VectorXd range = w.getSensor("range")->getReading().values;
    QVERIFY2(std::abs(range[0] - 0.9) < 1e-3, qPrintable(QString::number(range[0])));
    w.resetToDesignMode();
    // The keyframe: free-joint quaternion [w x y z] = [0 0 0 1] is 180° about z,
    // read as [x y z w]; joint coordinates are MuJoCo's qpos.
    const KeyframeSpec k = *w.getKeyframe("crouch");
    QVERIFY(k.q.head<3>().isApprox(Vector3d(1, 2, 3)));
    QVERIFY(k.q.segment<4>(3).isApprox(Eigen::Vector4d(0, 0, 1, 0)));
    QCOMPARE(k.q[7], 0.8);
    // The knee starts at its ref, where the file draws it.
    QCOMPARE(w.getMultibody("sk")->getJoint("knee")->getPosition(0), 0.5);
    // MuJoCo's free-joint velocity is [linear (world), angular (body)]: 1 m/s
    // along world x is −1 m/s along the body's x after the half turn.
    QVERIFY(k.v.segment<3>(3).isApprox(Vector3d(-1, 0, 0), 1e-12));
    QCOMPARE(k.controls[0], 0.7);  // the servo target, a qpos value
  }

  // <include> reads another file's children in place; what is not imported
  // is reported with its own file and line.
  void includesAndReports() {
    const fs::path dir = fs::path(QDir::tempPath().toStdString()) / "articula_mjcf_include";
    fs::create_directories(dir);
    write(dir / "arm.xml", R"(<mujoco>
  <body name="arm">
    <joint name="shoulder"/>
    <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.05" solref="0.01 1"/>
  </body>
</mujoco>)");
    write(dir / "robot.xml", R"(<mujoco model="robot">
  <visual><global offwidth="800"/></visual>
  <worldbody>
    <include file="arm.xml"/>
  </worldbody>
</mujoco>)");
    World w;
    io::ImportOptions o;
    o.useEnvironmentPaths = false;
    const io::ImportReport r = io::importFile(w, dir / "robot.xml", o);
    QCOMPARE(r.format, std::string("mjcf"));
    QVERIFY(w.getMultibody("robot").has_value());
    QVERIFY(w.getMultibody("robot")->getLink("arm").has_value());
    bool solref = false;
    for (const io::ReportEntry& e : r.ignored) {
      if (e.message.find("'solref'") != std::string::npos) {
        solref = true;
        QCOMPARE(fs::path(e.file).filename().string(), std::string("arm.xml"));
        QCOMPARE(e.line, 4);
      }
    }
    QVERIFY(solref);
    QVERIFY(hasEntry(r.ignored, "<visual> not imported", 2));
    // The same file included twice would define everything twice: refused, as in MuJoCo.
    write(dir / "twice.xml",
          R"(<mujoco><worldbody><include file="arm.xml"/><include file="arm.xml"/></worldbody></mujoco>)");
    World twice;
    try {
      io::importFile(twice, dir / "twice.xml", o);
      QFAIL("a file included twice must fail");
    } catch (const io::ImportError& e) {
      QVERIFY2(std::string(e.what()).find("already included") != std::string::npos, e.what());
    }
    // A missing include names the file.
    write(dir / "broken.xml", R"(<mujoco><worldbody><include file="nosuch.xml"/></worldbody></mujoco>)");
    World w2;
    try {
      io::importFile(w2, dir / "broken.xml", o);
      QFAIL("a missing include must fail");
    } catch (const io::ImportError& e) {
      QVERIFY2(std::string(e.what()).find("nosuch.xml") != std::string::npos, e.what());
    }
    fs::remove_all(dir);
  }

  // The MJCF scenes that ship open and run 2 s: finite state, closures held,
  // energy not gained beyond what the actuators can give (they are off).
  void shippedScenesRun_data() {
    QTest::addColumn<QString>("file");
    for (const auto& e : fs::directory_iterator(fs::path(ARTICULA_SOURCE_DIR) / "scenes" / "mjcf")) {
      if (e.path().extension() == ".xml") {
        QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().string());
      }
    }
  }
  void shippedScenesRun() {
    QFETCH(QString, file);
    World w;
    io::ImportOptions o;
    o.useEnvironmentPaths = false;
    const io::ImportReport r = io::importFile(w, file.toStdString(), o);
    QCOMPARE(r.format, std::string("mjcf"));
    QVERIFY2(r.ignored.empty(), r.toText().c_str());  // a scene of ours uses only what is imported
    for (const KeyframeSpec& k : w.getKeyframes()) QCOMPARE(k.q.size(), Eigen::Index(w.numPositions()));
    w.enterSimulationMode();
    const double e0 = w.computeKineticEnergy() + w.computePotentialEnergy();
    const auto steps = static_cast<std::size_t>(2.0 / w.getOptions().timeStep);
    for (std::size_t i = 0; i < steps; ++i) {
      w.step();
      QVERIFY2(w.getPositions().allFinite(), "non-finite state");
    }
    for (const LoopClosure& c : w.getLoopClosures()) QVERIFY(c.computeResidualNorm() <= 1e-6);
    const double e1 = w.computeKineticEnergy() + w.computePotentialEnergy();
    QVERIFY2(e1 <= e0 + 1e-3 * std::max(1.0, std::abs(e0)), qPrintable(QString("energy %1 -> %2").arg(e0).arg(e1)));
  }

  // What MuJoCo accepts and Articula names differently, or must refuse.
  void namesMasksAndEdgeCases() {
    const auto m = load(R"(<mujoco model="edge">
  <compiler angle="radian"/>
  <worldbody>
    <site name="cart" pos="0 0 3"/>
    <body name="cart" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" contype="1" conaffinity="0"/>
    </body>
    <body name="arm/upper" pos="2 0 0">
      <joint name="arm/shoulder" damping="0.1"/>
      <geom type="sphere" size="0.1" contype="2" conaffinity="2"/>
      <site name="arm/tip"/>
    </body>
  </worldbody>
  <actuator><general name="slow" joint="arm/shoulder" dyntype="integrator"/></actuator>
  <keyframe><key name="moving" qvel="1 0 0 0 0 0 0"/></keyframe>
</mujoco>)");
    const World& w = m->world;
    // A site and a body may share a name in MJCF: the site's frame gives way.
    QVERIFY(w.getRigidBody("cart").has_value());
    QVERIFY(w.getFrame("cart_site").has_value());
    // '/' separates a multibody from its parts in Articula: replaced, with a warning.
    QVERIFY(w.getMultibody("arm_upper").has_value());
    QVERIFY(w.getMultibody("arm_upper")->getJoint("arm_shoulder").has_value());
    QVERIFY(w.getFrame("arm_tip").has_value());
    QVERIFY(hasEntry(m->report.warnings, "'arm/upper' is named 'arm_upper'"));
    // Activation dynamics have no Articula form: reported, not read as a motor.
    QCOMPARE(w.numActuators(), std::size_t(0));
    QVERIFY(hasEntry(m->report.ignored, "dyntype 'integrator'"));
    // Bit masks Articula does not model are said once.
    QVERIFY(hasEntry(m->report.warnings, "contype/conaffinity bit masks"));
    // A keyframe with qvel and no qpos: the free body's velocity from its initial pose.
    const KeyframeSpec k = *w.getKeyframe("moving");
    QVERIFY(k.v.segment<3>(3).isApprox(Vector3d(1, 0, 0)));
    // A servo with gear 0 acts on nothing: refused with its line.
    int line = 0;
    const std::string e = importError(R"(<mujoco>
<worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>
<actuator><position joint="j" gear="0"/></actuator>
</mujoco>)",
                                      &line);
    QVERIFY2(e.find("gear is 0") != std::string::npos, e.c_str());
    QCOMPARE(line, 3);
  }

  // Bad input fails with the file's line and a reason, and leaves nothing behind.
  // A site's fromto puts it at the segment's middle, z along the segment
  // (a rangefinder looks along it); inheritrange gives a position servo the
  // joint's range, scaled about its middle.
  void siteFromtoAndInheritRange() {
    const auto m = load(R"(<mujoco model="fr">
  <compiler angle="degree"/>
  <worldbody>
    <geom type="plane" size="0 0 1"/>
    <body name="base" pos="0 0 1">
      <geom type="box" size="0.1 0.1 0.1"/>
      <site name="down" fromto="0.3 0 -0.2 0.3 0 -0.4"/>
      <body name="arm">
        <joint name="j" axis="0 1 0" range="-30 90"/>
        <geom size="0.05" pos="0.2 0 0"/>
      </body>
    </body>
  </worldbody>
  <default><position kp="10" inheritrange="0.5"/></default>
  <actuator>
    <position name="full" joint="j" inheritrange="1"/>
    <position name="half" joint="j"/>
  </actuator>
  <sensor><rangefinder name="rf" site="down"/></sensor>
</mujoco>)");
    World& w = m->world;
    // The site sits at (0.3, 0, 1 − 0.3) and looks down: 0.7 m to the plane.
    w.enterSimulationMode();
    w.step();
    const VectorXd range = w.getSensor("rf")->getReading().values;
    QVERIFY2(std::abs(range[0] - 0.7) < 1e-3, qPrintable(QString::number(range[0])));
    w.resetToDesignMode();
    const double lo = -30.0 * kPi / 180.0;
    const double hi = 90.0 * kPi / 180.0;
    const ActuatorSpec full = w.getActuator("full")->getSpec();
    QVERIFY(std::abs(full.controlMin - lo) < 1e-12);
    QVERIFY(std::abs(full.controlMax - hi) < 1e-12);
    const ActuatorSpec half = w.getActuator("half")->getSpec();  // from the default class
    QVERIFY(std::abs(half.controlMin - (0.5 * (lo + hi) - 0.25 * (hi - lo))) < 1e-12);
    QVERIFY(std::abs(half.controlMax - (0.5 * (lo + hi) + 0.25 * (hi - lo))) < 1e-12);
    const std::string e = importError(
        "<mujoco><worldbody><body><joint name=\"j\"/><geom size=\"1\"/></body></worldbody>"
        "<actuator><position joint=\"j\" inheritrange=\"1\"/></actuator></mujoco>");
    QVERIFY2(e.find("inheritrange needs a range on joint 'j'") != std::string::npos, e.c_str());
  }

  // What refers to the parts of a <composite> (not imported) is reported and
  // left out, as MuJoCo would have made those parts; a name nothing would
  // make is still an error.
  void partsOfACompositeAreReported() {
    const auto m = load(R"(<mujoco model="cable">
  <worldbody>
    <composite type="cable" count="11 1 1" size="1" initial="none">
      <geom type="capsule" size=".005"/>
    </composite>
    <body name="slider" pos="1.1 0 0">
      <joint name="s" type="slide" axis="1 0 0"/>
      <geom size=".01"/>
    </body>
  </worldbody>
  <equality><connect name="end" body1="B_last" body2="slider" anchor="0 0 0"/></equality>
  <contact><exclude body1="B_last" body2="slider"/></contact>
  <actuator>
    <motor name="pull" site="S_last" gear="0 0 0 1 0 0"/>
    <motor name="push" joint="s"/>
  </actuator>
  <sensor><jointpos name="js" joint="J_3"/></sensor>
  <keyframe><key name="k" qpos="0 1 2 3"/></keyframe>
</mujoco>)");
    const World& w = m->world;
    QCOMPARE(w.numActuators(), std::size_t(1));
    QCOMPARE(w.numLoopClosures(), std::size_t(0));
    QCOMPARE(w.numSensors(), std::size_t(0));
    const auto& ignored = m->report.ignored;
    QVERIFY(hasEntry(ignored, "<composite> in <worldbody> not imported (nor the bodies, joints and sites it generates)",
                     3));
    QVERIFY(hasEntry(
        ignored, "<connect> not imported: body 'B_last' is not defined (the <composite> at line 3 would make it", 11));
    QVERIFY(hasEntry(ignored, "<exclude> not imported: body 'B_last'", 12));
    QVERIFY(hasEntry(ignored, "<jointpos> not imported: joint 'J_3'", 17));
    QVERIFY(hasEntry(ignored, "key 'k' not imported: its coordinates include those of the <composite> at line 3", 18));
    std::string e = importError(
        "<mujoco><worldbody><composite type=\"cable\" count=\"5 1 1\"/><body name=\"a\"><geom size=\"1\"/></body>"
        "</worldbody><contact><exclude body1=\"a\" body2=\"tip\"/></contact></mujoco>");
    QVERIFY2(e.find("body 'tip' is not defined") != std::string::npos, e.c_str());
    e = importError(
        "<mujoco><worldbody><body name=\"a\"><geom size=\"1\"/></body></worldbody>"
        "<contact><exclude body1=\"a\" body2=\"B_last\"/></contact></mujoco>");
    QVERIFY2(e.find("body 'B_last' is not defined") != std::string::npos, e.c_str());
  }

  void clearErrors() {
    int line = 0;
    std::string e = importError(
        "<mujoco>\n<worldbody>\n<body><geom type=\"box\" size=\"0.1 0.1\"/></body>\n</worldbody>\n</mujoco>", &line);
    QVERIFY2(e.find("needs 3 sizes") != std::string::npos, e.c_str());
    QCOMPARE(line, 3);
    e = importError("<mujoco><worldbody><body><joint type=\"screw\"/><geom size=\"1\"/></body></worldbody></mujoco>");
    QVERIFY2(e.find("unknown type 'screw'") != std::string::npos, e.c_str());
    e = importError(
        "<mujoco><worldbody><body><geom size=\"1\"/><joint/></body></worldbody>"
        "<keyframe><key qpos=\"1 2\"/></keyframe></mujoco>");
    QVERIFY2(e.find("qpos has 2 numbers, the model has 1") != std::string::npos, e.c_str());
    e = importError("<robot name='x'/>");
    QVERIFY2(e.find("expected <mujoco>") != std::string::npos, e.c_str());
    e = importError("<mujoco><worldbody><body pos=\"1 x 2\"><geom size=\"1\"/></body></worldbody></mujoco>");
    QVERIFY2(e.find("'x' is not a finite number") != std::string::npos, e.c_str());
  }
};

QTEST_GUILESS_MAIN(TestMjcfImport)
#include "test_mjcf_import.moc"

// Actuators in files: the native format round-trips <actuator> and
// <schedule> byte for byte; URDF <transmission>s become actuators (effort →
// motor, position → servo, velocity → velocity servo, state-only → none);
// and real robots driven that way hold their initial pose under gravity.
#include "models.hpp"
#include "test_helpers.hpp"

#include <articula/articula.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = articula::test::modelsPath();
const fs::path kRobots = kModels / "example-robot-data" / "robots";

io::ImportOptions modelOptions(io::RootAttachment root = io::RootAttachment::Fixed) {
  io::ImportOptions o;
  o.packagePath.push_back(kModels);
  o.useEnvironmentPaths = false;
  o.root = root;
  return o;
}

// A two-link arm with one actuator of every kind and one schedule of every kind.
void buildDriven(World& w) {
  Multibody mb = w.addMultibody("arm");
  Link a = mb.addLink({"a", Inertia::box(1.0, {0.1, 0.1, 0.3})}, JointSpec::revolute(Vector3d::UnitY()).named("j1"));
  JointSpec j2 = JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitY()).named("j2");
  j2.parentOffset.translation() << 0, 0, -0.3;
  mb.addLink({"b", Inertia::box(0.5, {0.1, 0.1, 0.3})}, a, j2);
  const auto add = [&](const std::string& name, const std::string& joint, ActuatorType type, int coordinate) {
    ActuatorSpec s;
    s.name = name;
    s.joint = joint;
    s.type = type;
    s.coordinate = coordinate;
    return s;
  };
  ActuatorSpec servo = add("servo", "arm/j1", ActuatorType::PositionServo, 0);
  servo.kp = 120.5;
  servo.forceMin = -30.0;
  servo.forceMax = 30.0;
  servo.gravityCompensation = true;
  w.addActuator(servo);
  ActuatorSpec pid = add("pid", "arm/j2", ActuatorType::Pid, 1);
  pid.kp = 50.0;
  pid.kd = 2.0;
  pid.ki = 10.0;
  pid.integralLimit = 0.3;
  pid.control = 0.1;
  w.addActuator(pid);
  ActuatorSpec dc = add("dc", "arm/j2", ActuatorType::DcMotor, 0);
  dc.gear = 12.0;
  dc.stallTorque = 0.4;
  dc.noLoadSpeed = 300.0;
  dc.velocityLimit = 2.5;
  w.addActuator(dc);
  ActuatorSpec vel = add("vel", "arm/j1", ActuatorType::VelocityServo, 0);
  vel.kv = 3.0;
  vel.controlMin = -1.0;
  vel.controlMax = 1.0;
  w.addActuator(vel);
  w.addActuator(add("motor", "arm/j1", ActuatorType::Motor, 0));
  w.addActuator(add("brake", "arm/j2", ActuatorType::Lock, 1));
  ScheduleSpec keys;
  keys.name = "keys";
  keys.actuator = "servo";
  keys.keyframes = {{0.0, 0.0}, {0.5, 0.25}, {1.25, -0.1}};
  keys.loop = true;
  w.addSchedule(keys);
  ScheduleSpec sine;
  sine.name = "sine";
  sine.actuator = "dc";
  sine.kind = ScheduleSpec::Kind::Sine;
  sine.amplitude = 0.5;
  sine.frequency = 1.5;
  sine.phase = 0.25;
  w.addSchedule(sine);
  ScheduleSpec step;
  step.name = "step";
  step.actuator = "brake";
  step.kind = ScheduleSpec::Kind::Step;
  step.offset = 1.0;
  step.amplitude = -1.0;
  step.stepTime = 0.75;
  w.addSchedule(step);
}

std::string urdfWithTransmissions(const std::string& transmissions) {
  return R"(<robot name="bot">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l1"><inertial><origin xyz="0.2 0 0"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l2"><inertial><origin xyz="0.2 0 0"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l3"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="40" velocity="2"/></joint>
  <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/><origin xyz="0.4 0 0"/><axis xyz="0 1 0"/></joint>
  <joint name="j3" type="prismatic"><parent link="l2"/><child link="l3"/><origin xyz="0.4 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" effort="15" velocity="0.5"/></joint>
)" + transmissions +
         "\n</robot>\n";
}

std::string transmission(const std::string& name, const std::string& joint, const std::string& iface,
                         const std::string& reduction = "1") {
  return "<transmission name=\"" + name + "\"><type>transmission_interface/SimpleTransmission</type><joint name=\"" +
         joint + "\"><hardwareInterface>" + iface + "</hardwareInterface></joint><actuator name=\"" + name +
         "_motor\"><mechanicalReduction>" + reduction + "</mechanicalReduction></actuator></transmission>\n";
}

// Imports `file`, steps `seconds` and returns the largest |q − q0| over the
// joints (fixed base: every coordinate is a joint angle).
double largestDrift(World& world, double seconds) {
  world.enterSimulationMode();
  const VectorXd q0 = world.getPositions();
  world.step(static_cast<std::size_t>(std::lround(seconds / world.getOptions().timeStep)));
  if (!world.getPositions().allFinite()) return std::numeric_limits<double>::infinity();
  return (world.getPositions() - q0).cwiseAbs().maxCoeff();
}

}  // namespace

class TestActuatorFiles : public QObject {
  Q_OBJECT

 private slots:
  void nativeRoundTripIsByteIdentical() {
    World world;
    buildDriven(world);
    const std::string first = io::sceneToString(world);
    QVERIFY(first.find("<actuator name=\"servo\"") != std::string::npos);
    QVERIFY(first.find("<schedule name=\"sine\"") != std::string::npos);
    World copy;
    io::loadSceneFromString(copy, first);
    QVERIFY(copy.getSpec() == world.getSpec());
    QCOMPARE(io::sceneToString(copy), first);
    // And it steps like the original (schedules and actuators included).
    world.step(300);
    copy.step(300);
    QVERIFY(world.getPositions() == copy.getPositions());
  }

  void badActuatorElementsNameTheLine() {
    World world;
    buildDriven(world);
    std::string text = io::sceneToString(world);
    const auto at = text.find("type=\"pid\"");
    QVERIFY(at != std::string::npos);
    std::string bad = text;
    bad.replace(at, 10, "type=\"pd\"");
    World w1;
    try {
      io::loadSceneFromString(w1, bad, "bad.articula");
      QFAIL("an unknown actuator type was accepted");
    } catch (const io::ImportError& e) {
      QVERIFY2(e.line() > 0 && std::string(e.what()).find("unknown actuator type 'pd'") != std::string::npos, e.what());
    }
    QCOMPARE(w1.numMultibodies(), std::size_t{0});
    std::string noJoint = text;
    noJoint.replace(noJoint.find("joint=\"arm/j1\""), 14, "joint=\"arm/jx\"");
    World w2;
    QVERIFY_THROWS_EXCEPTION(io::ImportError, io::loadSceneFromString(w2, noJoint, "bad.articula"));
    std::string oddKeys = text;
    const auto k = oddKeys.find("keyframes=\"");
    oddKeys.insert(k + 11, "7 ");
    World w3;
    QVERIFY_THROWS_EXCEPTION(io::ImportError, io::loadSceneFromString(w3, oddKeys, "bad.articula"));
  }

  void urdfTransmissionsBecomeActuators() {
    const std::string text =
        urdfWithTransmissions(transmission("t1", "j1", "hardware_interface/EffortJointInterface", "50") +
                              transmission("t2", "j2", "VelocityJointInterface") +
                              transmission("t3", "j3", "hardware_interface/PositionJointInterface") +
                              transmission("t4", "j2", "hardware_interface/JointStateInterface"));
    World world;
    const io::ImportReport report = io::importUrdfFromString(world, text, "bot.urdf", {}, modelOptions());
    QCOMPARE(world.numActuators(), std::size_t{3});
    QCOMPARE(report.actuators.size(), std::size_t{3});
    const ActuatorSpec motor = world.getActuator("t1_motor")->getSpec();
    QVERIFY(motor.type == ActuatorType::Motor);
    QCOMPARE(motor.joint, std::string("bot/j1"));
    QCOMPARE(motor.gear, 50.0);
    QCOMPARE(motor.forceMax, 40.0);
    QCOMPARE(motor.forceMin, -40.0);
    QCOMPARE(motor.velocityLimit, 2.0);
    const ActuatorSpec vel = world.getActuator("t2_motor")->getSpec();
    QVERIFY(vel.type == ActuatorType::VelocityServo);
    QVERIFY(std::isinf(vel.forceMax));  // a continuous joint without <limit effort>
    const ActuatorSpec pos = world.getActuator("t3_motor")->getSpec();
    QVERIFY(pos.type == ActuatorType::PositionServo);
    QVERIFY(pos.gravityCompensation);
    QCOMPARE(pos.forceMax, 15.0);
    QVERIFY(report.toText().find("actuator: bot.urdf") != std::string::npos);
    QVERIFY(report.summary().find("3 actuators") != std::string::npos);
    QVERIFY(report.toJson().find("\"actuators\":[{\"actuator\":\"t1_motor\"") != std::string::npos);
    // The effort motor scaled by its gear: control 0.5 → 25 N·m, within ±40.
    world.getActuator("t1_motor")->setControl(0.5);
    world.setGravity(Vector3d::Zero());
    world.step();
    QCOMPARE(world.getActuator("t1_motor")->getForce(), 25.0);
  }

  void transmissionsToMissingJointsWarn() {
    const std::string text = urdfWithTransmissions(transmission("t9", "nowhere", "EffortJointInterface"));
    World world;
    const io::ImportReport report = io::importUrdfFromString(world, text, "bot.urdf", {}, modelOptions());
    QCOMPARE(world.numActuators(), std::size_t{0});
    bool warned = false;
    for (const auto& w : report.warnings) warned = warned || w.message.find("'nowhere'") != std::string::npos;
    QVERIFY(warned);
  }

  // UR5 and TALOS (fixed base), driven by the position servos their
  // <transmission>s declare, hold their initial pose under gravity.
  void realRobotsHoldTheirPose_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("actuators");
    QTest::newRow("UR5") << "ur_description/urdf/ur5_robot.urdf" << 6;
    QTest::newRow("TALOS") << "talos_data/robots/talos_reduced.urdf" << 32;
  }
  void realRobotsHoldTheirPose() {
    QFETCH(QString, file);
    QFETCH(int, actuators);
    const fs::path path = kRobots / file.toStdString();
    ARTICULA_REQUIRE_MODEL(path);
    World world;
    io::importUrdf(world, path, modelOptions());
    QCOMPARE(static_cast<int>(world.numActuators()), actuators);
    // Gravity pulls hard: without the servos the arm falls.
    World limp;
    io::importUrdf(limp, path, modelOptions());
    for (const Actuator& a : limp.getActuators()) limp.remove(a);
    const double fallen = largestDrift(limp, 0.5);
    QVERIFY2(fallen > 0.05, qPrintable(QString("without servos the robot moved only %1 rad").arg(fallen)));
    const double drift = largestDrift(world, 2.0);
    QVERIFY2(drift <= 1e-3, qPrintable(QString("largest |q - q0| after 2 s: %1 rad").arg(drift)));
  }

  // A URDF without transmissions, held by addHoldingServos (--hold).
  void holdingServosHoldPanda() {
    const fs::path path = kRobots / "panda_description" / "urdf" / "panda.urdf";
    ARTICULA_REQUIRE_MODEL(path);
    World world;
    io::importUrdf(world, path, modelOptions());
    QCOMPARE(world.numActuators(), std::size_t{0});
    // Its neutral pose is outside joint 4's limits [-3.07, -0.07]: start at the nearest valid pose.
    for (Joint j : world.getMultibodies().front().getJoints()) {
      const JointSpec js = j.getSpec();
      for (int k = 0; k < js.positionLowerLimits.size(); ++k) {
        const double q = j.getPositions()[k];
        j.setPosition(k, std::clamp(q, js.positionLowerLimits[k], js.positionUpperLimits[k]));
      }
    }
    const int added = io::addHoldingServos(world);
    QCOMPARE(added, world.numDofs());
    QCOMPARE(io::addHoldingServos(world), 0);  // every coordinate is driven now
    const double drift = largestDrift(world, 2.0);
    QVERIFY2(drift <= 1e-3, qPrintable(QString("largest |q - q0| after 2 s: %1 rad").arg(drift)));
  }
};

QTEST_GUILESS_MAIN(TestActuatorFiles)
#include "test_actuator_files.moc"

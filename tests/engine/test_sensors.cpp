// Sensors and joint reactions against analytic values: an IMU at rest, on
// a pendulum and on a spinning body; a force–torque sensor under a static
// arm held by servos; the step's joint reactions against inverse dynamics
// and against the sum of their causes; contact forces of a resting box;
// limit forces of a pendulum on its stop; encoders, rangefinders, update
// rates, seeded noise, and restore-and-step with sensors.
#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <numbers>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;

// World coordinates → frame coordinates of a frame with rotation R_WF.
Vector3d inFrame(const Matrix3d& R_WF, const Vector3d& v) {
  return R_WF.transpose() * v;
}

// A pendulum: one link on a revolute joint about y at the origin, its COM
// at (0, 0, −l) with mass m and rotational inertia iy about the COM's y
// axis (so I_O = iy + m l²), hanging at q = 0.
struct Pendulum {
  World world;
  Multibody mb;
  Joint joint;
  Link link;
  double m = 2.0, l = 0.8, iy = 0.05;
  Pendulum() {
    WorldOptions o;
    o.timeStep = 1e-3;
    world.setOptions(o);
    mb = world.addMultibody("pendulum");
    LinkOptions lo;
    lo.name = "bob";
    lo.inertia.mass = m;
    lo.inertia.com = Vector3d(0, 0, -l);
    lo.inertia.rotational = Vector3d(iy, iy, iy).asDiagonal();
    link = mb.addLink(lo, JointSpec::revolute(Vector3d::UnitY()).named("hinge"));
    joint = *mb.getJoint("hinge");
  }
  double inertiaAboutPivot() const { return iy + m * l * l; }
};

SensorSpec imuOn(const std::string& frame, const Isometry3d& pose = Isometry3d::Identity()) {
  SensorSpec s;
  s.name = "imu";
  s.type = SensorType::Imu;
  s.frame = frame;
  s.pose = pose;
  return s;
}

// A 3-link arm on a fixed base: base (welded) → shoulder (revolute y) →
// upper → elbow (revolute y) → fore → wrist (revolute x) → hand.
struct Arm {
  World world;
  Multibody mb;
  std::vector<double> masses{3.0, 2.0, 1.0};
  std::vector<Vector3d> coms{Vector3d(0.2, 0.01, 0.05), Vector3d(0.15, -0.02, 0.0), Vector3d(0.05, 0.0, 0.03)};
  explicit Arm(bool servos) {
    WorldOptions o;
    o.timeStep = 1e-3;
    world.setOptions(o);
    mb = world.addMultibody("arm");
    Link base = mb.addLink(linkOptions("base", 5.0), JointSpec::weld(translation(0, 0, 0.5)).named("mount"));
    Link upper =
        mb.addLink(linkOptions("upper", masses[0], coms[0]), base,
                   JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 0.1)).named("shoulder"));
    Link fore =
        mb.addLink(linkOptions("fore", masses[1], coms[1]), upper,
                   JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0.4, 0, 0)).named("elbow"));
    mb.addLink(linkOptions("hand", masses[2], coms[2]), fore,
               JointSpec::revolute(Vector3d::UnitX()).withParentOffset(translation(0.3, 0, 0)).named("wrist"));
    if (servos) {
      for (const char* j : {"shoulder", "elbow", "wrist"}) {
        ActuatorSpec a;
        a.name = std::string(j) + "_servo";
        a.joint = std::string("arm/") + j;
        a.type = ActuatorType::PositionServo;
        a.kp = 400.0;
        a.kd = 40.0;
        a.gravityCompensation = true;
        world.addActuator(a);
      }
    }
    VectorXd q(3);
    q << 0.3, -0.7, 0.4;
    mb.setPositions(q);
  }
};

CollisionShapeOptions shapeOptions(const std::string& name, const Geometry& g) {
  CollisionShapeOptions o;
  o.name = name;
  o.geometry = g;
  return o;
}

}  // namespace

class TestSensors : public QObject {
  Q_OBJECT

 private slots:
  // ---- IMU ----------------------------------------------------------------
  void imuAtRestReadsGravityUp() {
    Pendulum p;
    const Isometry3d tilt = rotation(0.4, Vector3d(1, 2, 3).normalized()) * translation(0.1, -0.2, -0.5);
    p.world.addSensor(imuOn("pendulum/bob", tilt));
    SensorSpec onWorld = imuOn("world", rotation(0.7, Vector3d::UnitZ()));
    onWorld.name = "ground_imu";
    p.world.addSensor(onWorld);
    p.world.step();
    const SensorReading r = p.world.getSensor("imu")->getReading();
    QVERIFY(r.valid);
    QCOMPARE(r.time, 0.0);
    // Hanging at rest: specific force +g (up), no rotation.
    const Matrix3d R_WS = tilt.linear();
    VERIFY_NEAR(r.values.head<3>(), inFrame(R_WS, Vector3d(0, 0, kG)), 1e-12);
    VERIFY_NEAR(r.values.tail<3>(), Vector3d::Zero(), 1e-12);
    const SensorReading g = p.world.getSensor("ground_imu")->getReading();
    VERIFY_NEAR(g.values.head<3>(), inFrame(rotation(0.7, Vector3d::UnitZ()).linear(), Vector3d(0, 0, kG)), 1e-12);
  }

  void imuOnAPendulumReadsCentripetalAndTangential() {
    Pendulum p;
    const double r = 0.6;  // sensor on the rod, below the pivot
    p.world.addSensor(imuOn("pendulum/bob", translation(0, 0, -r)));
    const double theta = 0.9;
    const double omega = 2.5;
    p.joint.setPosition(0, theta);
    p.joint.setVelocity(0, omega);
    p.world.step();
    const SensorReading s = p.world.getSensor("imu")->getReading();
    // θ̈ of the pendulum, and the sensor point (−r sin θ, 0, −r cos θ) in
    // the world (rotation about y by θ).
    const double alpha = -p.m * kG * p.l * std::sin(theta) / p.inertiaAboutPivot();
    const Vector3d a(-r * (std::cos(theta) * alpha - std::sin(theta) * omega * omega), 0.0,
                     r * (std::sin(theta) * alpha + std::cos(theta) * omega * omega));
    const Vector3d specific = a - Vector3d(0, 0, -kG);
    const Matrix3d R_WB = Eigen::AngleAxisd(theta, Vector3d::UnitY()).toRotationMatrix();
    VERIFY_NEAR(s.values.head<3>(), inFrame(R_WB, specific), 1e-12);
    VERIFY_NEAR(s.values.tail<3>(), Vector3d(0, omega, 0), 1e-12);
    // In the rod's frame: centripetal r ω² towards the pivot (+z), tangential r θ̈ along −x... checked by name too.
    const Vector3d local = s.values.head<3>() - inFrame(R_WB, Vector3d(0, 0, kG));
    QVERIFY(std::abs(local.z() - r * omega * omega) < 1e-12);
    QVERIFY(std::abs(local.x() - (-r * alpha)) < 1e-12);
  }

  void imuOnASpinningBodyReadsItsRate() {
    WorldOptions o;
    o.gravity = Vector3d(0, 0, -kG);
    World world(o);
    RigidBodyOptions b;
    b.inertia = Inertia::sphere(1.5, 0.2);
    const Vector3d omegaW(0.3, -1.2, 4.0);
    b.angularVelocity = omegaW;
    b.linearVelocity = Vector3d(1, 0, 2);
    b.pose = rotation(0.5, Vector3d(0, 1, 1).normalized()) * translation(0, 0, 3);
    world.addRigidBody("ball", b);
    const Vector3d offset(0.1, 0.05, -0.02);
    world.addSensor(imuOn("ball", translation(offset.x(), offset.y(), offset.z())));
    world.step();
    const SensorReading s = world.getSensor("imu")->getReading();
    const Matrix3d R = b.pose.linear();
    const Vector3d omegaB = R.transpose() * omegaW;
    VERIFY_NEAR(s.values.tail<3>(), omegaB, 1e-12);
    // Free fall, torque-free sphere: only the centripetal acceleration of the offset point.
    VERIFY_NEAR(s.values.head<3>(), Vector3d(omegaB.cross(omegaB.cross(offset))), 1e-12);
  }

  // ---- forces -------------------------------------------------------------
  void forceTorqueUnderAStaticArmReadsItsWeight() {
    Arm arm(true);
    SensorSpec ft;
    ft.name = "ft";
    ft.type = SensorType::ForceTorque;
    ft.joint = "arm/shoulder";
    arm.world.addSensor(ft);
    arm.world.step();
    const SensorReading s = arm.world.getSensor("ft")->getReading();
    QVERIFY(s.valid);
    // Static: the parent carries the weight of the subtree and its moment
    // about the joint origin. World quantities from the links' poses.
    const Link upper = *arm.mb.getLink("upper");
    const Isometry3d X_WJ = arm.world.getFrame("arm/upper")->getWorldTransform();  // joint frame = link frame here
    double mass = 0.0;
    Vector3d moment = Vector3d::Zero();
    for (const char* name : {"upper", "fore", "hand"}) {
      const Link l = *arm.mb.getLink(name);
      mass += l.getInertia().mass;
      moment += (l.getCOM() - X_WJ.translation()).cross(l.getInertia().mass * Vector3d(0, 0, kG));
    }
    const Vector3d force(0, 0, mass * kG);
    const Matrix3d R = X_WJ.linear();
    VERIFY_NEAR(s.values.head<3>(), inFrame(R, force), 1e-9 * force.norm());
    VERIFY_NEAR(s.values.tail<3>(), inFrame(R, moment), 1e-9 * moment.norm());
    (void)upper;
    // The same from the joint's reaction in world coordinates, and its split.
    const JointReaction jr = arm.mb.getJoint("shoulder")->getReaction(Frame::World());
    VERIFY_NEAR(jr.wrench.tail<3>(), force, 1e-9 * force.norm());
    VERIFY_NEAR(jr.wrench.head<3>(), moment, 1e-9 * moment.norm());
    // The free direction of the shoulder is its y torque: the servo holds it.
    QVERIFY(std::abs(jr.total[0] - moment.dot(R.col(1))) < 1e-9 * moment.norm());
    VERIFY_NEAR(jr.actuator, jr.total, 1e-9 * moment.norm());
    QVERIFY(std::abs(jr.constraintWrench.head<3>().dot(R.col(1))) < 1e-9 * moment.norm());
  }

  // A program that reads joint forces after every step makes the next
  // steps evaluate them inside the step, with the sensors' motion: the
  // sensors then read what they read without it, and the motion is the same.
  void sensorsReadTheSameWhenJointForcesAreReadToo() {
    const auto run = [](bool readForces) {
      Arm arm(false);  // a free swing: no rows
      VectorXd v(3);
      v << 1.5, -2.0, 3.0;
      arm.mb.setVelocities(v);
      arm.world.addSensor(imuOn("arm/hand", translation(0.05, 0.02, -0.03)));
      SensorSpec ft;
      ft.name = "ft";
      ft.type = SensorType::ForceTorque;
      ft.joint = "arm/elbow";
      arm.world.addSensor(ft);
      std::vector<VectorXd> readings;
      for (int k = 0; k < 60; ++k) {
        arm.world.step();
        if (readForces) (void)arm.mb.getJoint("wrist")->getReaction();
        readings.push_back(arm.world.getSensor("imu")->getReading().values);
        readings.push_back(arm.world.getSensor("ft")->getReading().values);
      }
      return std::make_pair(readings, arm.mb.getPositions());
    };
    const auto [plain, qPlain] = run(false);
    const auto [reading, qReading] = run(true);
    QVERIFY(qPlain == qReading);  // reading outputs never changes the motion
    double largest = 0.0;
    for (std::size_t i = 0; i < plain.size(); ++i) {
      const double scale = 1.0 + reading[i].norm();
      largest = std::max(largest, (plain[i] - reading[i]).norm() / scale);
    }
    QVERIFY2(largest < 1e-12, qPrintable(num(largest)));
  }

  // A force–torque sensor sums its subtree's Newton–Euler terms, treating
  // bodies welded below a body as one rigid group with it; the joint's
  // reaction comes from the per-body backward pass. The two agree while
  // the arm swings with a welded tool and a welded tool tip under it.
  void forceTorqueWithWeldedBodiesEqualsTheJointReaction() {
    Arm arm(false);
    Link hand = *arm.mb.getLink("hand");
    Link tool = arm.mb.addLink(linkOptions("tool", 0.7, Vector3d(0.03, 0.02, -0.01)), hand,
                               JointSpec::weld(translation(0.1, 0.0, 0.05) * rotation(0.4, Vector3d::UnitZ())));
    arm.mb.addLink(linkOptions("tip", 0.2, Vector3d(0.0, 0.01, 0.02)), tool,
                   JointSpec::weld(translation(0.0, 0.06, 0.0) * rotation(-0.9, Vector3d::UnitX())));
    VectorXd v(3);
    v << 1.2, -2.5, 3.5;
    arm.mb.setVelocities(v);
    for (const char* joint : {"elbow", "wrist"}) {
      SensorSpec ft;
      ft.name = std::string("ft_") + joint;
      ft.type = SensorType::ForceTorque;
      ft.joint = std::string("arm/") + joint;
      arm.world.addSensor(ft);
    }
    double largest = 0.0;
    for (int k = 0; k < 80; ++k) {
      arm.world.step();
      for (const char* joint : {"elbow", "wrist"}) {
        const VectorXd s = arm.world.getSensor(std::string("ft_") + joint)->getReading().values;
        const JointReaction r = arm.mb.getJoint(joint)->getReaction();  // [torque; force], joint frame
        const double scale = 1.0 + r.wrench.norm();
        largest = std::max(largest, (s.head<3>() - r.wrench.tail<3>()).norm() / scale);
        largest = std::max(largest, (s.tail<3>() - r.wrench.head<3>()).norm() / scale);
      }
    }
    QVERIFY2(largest < 1e-9, qPrintable(num(largest)));
  }

  void reactionEqualsInverseDynamicsOfTheRealisedMotion() {
    Arm arm(false);
    VectorXd v(3);
    v << 1.5, -2.0, 3.0;
    arm.mb.setVelocities(v);
    VectorXd tau(3);
    tau << 4.0, -1.0, 0.5;
    arm.mb.setForces(tau);
    const VectorXd q0 = arm.mb.getPositions();
    arm.world.step();
    const VectorXd vdot = arm.mb.getAccelerations();
    arm.mb.setPositions(q0);
    arm.mb.setVelocities(v);
    const VectorXd id = arm.mb.computeInverseDynamics(vdot);
    VectorXd total(3);
    int k = 0;
    for (const char* j : {"shoulder", "elbow", "wrist"}) {
      const JointReaction r = arm.mb.getJoint(j)->getReaction();
      total[k++] = r.total[0];
      VERIFY_NEAR(r.applied, VectorXd::Constant(1, tau[k - 1]), 1e-12);
    }
    VERIFY_NEAR(total, id, 1e-10);
    VERIFY_NEAR(total, tau, 1e-10);
  }

  void reactionSplitsIntoItsCauses() {
    // Springs, dampers, friction, limits, servos and a coupler at once:
    // Sᵀf from the realised motion equals the sum of the step's causes.
    Arm arm(true);
    arm.world.resetToDesignMode();
    JointSpec elbow = arm.mb.getJoint("elbow")->getSpec();
    elbow.springStiffness = VectorXd::Constant(1, 30.0);
    elbow.restPositions = VectorXd::Constant(1, 0.2);
    elbow.damping = VectorXd::Constant(1, 0.7);
    elbow.coulombFriction = VectorXd::Constant(1, 0.3);
    elbow.armature = VectorXd::Constant(1, 0.02);
    arm.mb.getJoint("elbow")->setSpec(elbow);
    JointSpec wrist = arm.mb.getJoint("wrist")->getSpec();
    wrist.positionLowerLimits = VectorXd::Constant(1, -0.1);
    wrist.positionUpperLimits = VectorXd::Constant(1, 0.1);
    arm.mb.getJoint("wrist")->setSpec(wrist);
    arm.world.remove(*arm.world.getActuator("wrist_servo"));
    JointCouplerSpec gear;
    gear.leader = *arm.mb.getJoint("shoulder");
    gear.follower = *arm.mb.getJoint("elbow");
    gear.ratio = 0.5;
    gear.offset = -0.85;  // satisfied at the start
    arm.world.addJointCoupler("gear", gear);
    VectorXd q(3);
    q << 0.3, -0.7, 0.1;
    arm.mb.setPositions(q);
    VectorXd v(3);
    v << 0.5, 1.0, 2.0;  // the wrist runs into its upper limit
    arm.mb.setVelocities(v);
    arm.world.setControl(*arm.world.getActuator("shoulder_servo"), 0.6);
    bool limited = false;
    for (int i = 0; i < 5; ++i) {
      arm.world.step();
      for (const char* j : {"shoulder", "elbow", "wrist"}) {
        const JointReaction r = arm.mb.getJoint(j)->getReaction();
        const VectorXd causes =
            r.applied + r.actuator + r.spring + r.damper + r.friction + r.limit + r.coupler + r.inertia;
        VERIFY_NEAR(r.total, causes, 1e-9);
      }
      limited = limited || arm.mb.getJoint("wrist")->getReaction().limit[0] < 0.0;
    }
    QVERIFY2(limited, "the upper limit pushes back");
    const JointReaction e = arm.mb.getJoint("elbow")->getReaction();
    QVERIFY(e.spring[0] != 0.0 && e.damper[0] != 0.0 && e.inertia[0] != 0.0 && e.coupler[0] != 0.0);
    const JointReaction sh = arm.mb.getJoint("shoulder")->getReaction();
    QVERIFY(sh.coupler[0] != 0.0 && sh.actuator[0] != 0.0);
  }

  void limitForceOfAPendulumOnItsStop() {
    // A horizontal pendulum resting on its limit: the limit torque holds m g l.
    Pendulum p;
    JointSpec s = p.joint.getSpec();
    s.positionLowerLimits = VectorXd::Constant(1, kPi / 2);
    p.joint.setSpec(s);
    WorldOptions o = p.world.getOptions();
    o.solver.method = "direct-pivoting";
    p.world.setOptions(o);
    p.joint.setPosition(0, kPi / 2);  // COM at (−l, 0, 0): gravity turns it towards −q, into the stop
    p.world.step(200);
    const JointReaction r = p.joint.getReaction();
    const double expected = p.m * kG * p.l;  // the stop's torque about +y
    QVERIFY2(std::abs(r.limit[0] - expected) < 1e-6 * std::abs(expected),
             qPrintable(QString("limit torque %1, expected %2").arg(r.limit[0]).arg(expected)));
    // The impulse of the step is the force times h.
    QVERIFY(std::abs(r.limit[0] * p.world.getOptions().timeStep - expected * 1e-3) < 1e-9);
  }

  void contactSensorOnARestingBoxReadsItsWeight() {
    WorldOptions o;
    o.solver.method = "direct-pivoting";
    World world(o);
    world.addGroundPlane();
    const double m = 3.0;
    RigidBody box = world.addRigidBody("box", bodyOptions(translation(0, 0, 0.1), m));
    box.addCollisionShape(shapeOptions("box", Geometry::box(Vector3d(0.4, 0.3, 0.2))));
    SensorSpec c;
    c.name = "touch";
    c.type = SensorType::Contact;
    c.frame = "box";
    world.addSensor(c);
    world.step(500);
    const SensorReading s = world.getSensor("touch")->getReading();
    QCOMPARE(s.values[0], 1.0);
    QVERIFY2(std::abs(s.values[1] - m * kG) < 1e-6 * m * kG, qPrintable(num(s.values[1])));
    const Vector6d w = world.getContactWrench(box);
    VERIFY_NEAR(Vector3d(w.tail<3>()), Vector3d(0, 0, m * kG), 1e-6 * m * kG);
    // The ground is not touched by anything in the air.
    box.setPose(translation(0, 0, 2.0));
    box.setVelocityWorld(Vector3d::Zero(), Vector3d::Zero());
    world.step();
    QCOMPARE(world.getSensor("touch")->getReading().values[0], 0.0);
  }

  // ---- encoders, rangefinders, rates, noise -------------------------------
  void encoderReadsTheStepsStartState() {
    Pendulum p;
    SensorSpec e;
    e.name = "enc";
    e.type = SensorType::JointEncoder;
    e.joint = "pendulum/hinge";
    p.world.addSensor(e);
    p.joint.setPosition(0, 0.3);
    p.joint.setVelocity(0, -0.2);
    p.world.step();
    const Sensor s = *p.world.getSensor("enc");
    QCOMPARE(s.valueNames(), (std::vector<std::string>{"q0", "v0"}));
    VERIFY_NEAR(s.getReading().values, Eigen::Vector2d(0.3, -0.2), 0.0);
  }

  void rangefinderMeasuresTheGround() {
    World world;
    world.addGroundPlane();
    RigidBody b = world.addRigidBody("drone", bodyOptions(translation(0.3, 0.1, 1.7), 1.0));
    b.addCollisionShape(shapeOptions("hull", Geometry::sphere(0.1)));
    SensorSpec r;
    r.name = "range";
    r.type = SensorType::Rangefinder;
    r.frame = "drone";
    r.pose = rotation(kPi / 2, Vector3d::UnitY());  // +x of the sensor points down (−z)
    r.maxRange = 5.0;
    world.addSensor(r);
    SensorSpec shortRange = r;
    shortRange.name = "short";
    shortRange.maxRange = 1.0;
    world.addSensor(shortRange);
    world.step();
    // Its own hull is not seen; the ground is 1.7 m below.
    QVERIFY(std::abs(world.getSensor("range")->getReading().values[0] - 1.7) < 1e-12);
    QCOMPARE(world.getSensor("short")->getReading().values[0], 1.0);
  }

  void ratesHoldReadingsBetweenUpdates() {
    Pendulum p;
    SensorSpec e;
    e.name = "slow";
    e.type = SensorType::JointEncoder;
    e.joint = "pendulum/hinge";
    e.rate = 100.0;  // every 10 steps of 1 ms
    p.world.addSensor(e);
    p.joint.setPosition(0, 1.0);
    std::vector<double> times;
    for (int i = 0; i < 35; ++i) {
      p.world.step();
      const double t = p.world.getSensor("slow")->getReading().time;
      if (times.empty() || times.back() != t) times.push_back(t);
    }
    QCOMPARE(times.size(), std::size_t{4});
    for (std::size_t k = 0; k < times.size(); ++k) QVERIFY(std::abs(times[k] - 0.01 * double(k)) < 1e-12);
  }

  void noiseIsSeededAndStatisticallyRight() {
    auto run = [](std::uint64_t seed) {
      Pendulum p;
      SensorSpec e;
      e.name = "noisy";
      e.type = SensorType::JointEncoder;
      e.joint = "pendulum/hinge";
      e.noiseStddev = 0.01;
      e.noiseBias = 0.002;
      e.seed = seed;
      p.world.addSensor(e);
      WorldOptions o = p.world.getOptions();
      o.gravity.setZero();  // q stays 0, v stays 0: the reading is the noise
      p.world.setOptions(o);
      std::vector<double> values;
      for (int i = 0; i < 20000; ++i) {
        p.world.step();
        values.push_back(p.world.getSensor("noisy")->getReading().values[0]);
      }
      return values;
    };
    const std::vector<double> a = run(7);
    const std::vector<double> b = run(7);
    const std::vector<double> c = run(8);
    QVERIFY(a == b);
    QVERIFY(a != c);
    double mean = 0.0;
    for (double x : a) mean += x;
    mean /= double(a.size());
    double var = 0.0;
    for (double x : a) var += (x - mean) * (x - mean);
    var /= double(a.size() - 1);
    // 4.5 standard errors of the mean and of the standard deviation.
    QVERIFY2(std::abs(mean - 0.002) < 4.5 * 0.01 / std::sqrt(20000.0), qPrintable(num(mean)));
    QVERIFY2(std::abs(std::sqrt(var) - 0.01) < 4.5 * 0.01 / std::sqrt(2.0 * 20000.0), qPrintable(num(std::sqrt(var))));
  }

  void restoreAndStepStaysBitExact() {
    Arm arm(true);
    WorldSpec spec = arm.world.getSpec();
    SensorSpec imu = imuOn("arm/hand", translation(0.05, 0, 0));
    imu.noiseStddev = 0.05;
    imu.seed = 42;
    imu.rate = 250.0;
    SensorSpec ft;
    ft.name = "ft";
    ft.type = SensorType::ForceTorque;
    ft.joint = "arm/elbow";
    ft.noiseStddev = 0.1;
    ft.seed = 3;
    arm.world.addSensor(imu);
    arm.world.addSensor(ft);
    arm.world.setControl(*arm.world.getActuator("shoulder_servo"), 1.2);
    arm.world.step(37);
    const RuntimeSnapshot snap = arm.world.captureRuntimeState();
    auto readings = [&](int n) {
      std::vector<double> out;
      for (int i = 0; i < n; ++i) {
        arm.world.step();
        for (const Sensor& s : arm.world.getSensors()) {
          const SensorReading r = s.getReading();
          out.push_back(r.time);
          for (Eigen::Index k = 0; k < r.values.size(); ++k) out.push_back(r.values[k]);
        }
      }
      return out;
    };
    const std::vector<double> first = readings(50);
    arm.world.restoreRuntimeState(snap);
    const std::vector<double> second = readings(50);
    QCOMPARE(first.size(), second.size());
    QVERIFY(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)) == 0);
    // A world of the spec steps the same.
    World copy(arm.world.getSpec());
    QCOMPARE(copy.numSensors(), std::size_t{2});
    QVERIFY(copy.getSpec() == arm.world.getSpec());
    (void)spec;
  }

  // ---- the facade ---------------------------------------------------------
  void badSpecsAreRefused() {
    Pendulum p;
    SensorSpec s = imuOn("pendulum/nothing");
    EXPECT_THROW_NAMING(TopologyError, (std::vector<std::string>{"imu", "pendulum/nothing"}), p.world.addSensor(s));
    s = imuOn("pendulum/bob");
    s.rate = -1.0;
    EXPECT_THROW_NAMING(InvalidArgument, (std::vector<std::string>{"rate"}), p.world.addSensor(s));
    SensorSpec ft;
    ft.type = SensorType::ForceTorque;
    ft.joint = "pendulum/none";
    EXPECT_THROW_NAMING(TopologyError, (std::vector<std::string>{"none"}), p.world.addSensor(ft));
    SensorSpec range;
    range.type = SensorType::Rangefinder;
    range.frame = "pendulum/bob";
    range.minRange = 3.0;
    range.maxRange = 1.0;
    EXPECT_THROW_NAMING(InvalidArgument, (std::vector<std::string>{"minRange"}), p.world.addSensor(range));
    SensorSpec contact;
    contact.type = SensorType::Contact;
    contact.frame = "world";
    EXPECT_THROW_NONEMPTY(TopologyError, p.world.addSensor(contact));
    p.world.addSensor(imuOn("pendulum/bob"));
    EXPECT_THROW_NAMING(TopologyError, (std::vector<std::string>{"taken"}), p.world.addSensor(imuOn("pendulum/bob")));
  }

  void sensorsFollowTheirBodies() {
    Pendulum p;
    const Sensor s = p.world.addSensor(imuOn("pendulum/bob"));
    QVERIFY(!s.getReading().valid);
    QVERIFY(std::isnan(s.getReading().time));
    p.world.remove(p.mb);
    QVERIFY(!s.isValid());
    QCOMPARE(p.world.numSensors(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestSensors)
#include "test_sensors.moc"

// Actuators against analytic results: the implicit position servo follows
// the closed-form recurrence of its discretisation and stays stable where
// an explicit PD diverges; PID removes a steady-state error; force ranges,
// the DC motor's torque–speed line, velocity servos and locks reach their
// analytic steady states; schedules and controllers drive controls; and
// replays with controllers restore bit for bit.
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <numbers>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;

struct Rig {
  World world;
  Multibody mb;
  Joint joint;
};

// One link on a revolute joint about y at the origin: mass m with its COM
// at (l, 0, 0) and rotational inertia iz about its COM's y axis, so the
// joint's inertia is iz + m l². Gravity −z (g) acts with torque m g l cos q.
void buildLink(Rig& r, double m, double l, double iy, double g) {
  WorldOptions o;
  o.gravity = Vector3d(0, 0, -g);
  o.timeStep = 1e-3;
  o.divergence.maxSpeed = 0.0;  // the explicit PD below must be free to diverge
  o.divergence.energyGainFraction = 0.0;
  r.world.setOptions(o);
  r.mb = r.world.addMultibody("rig");
  LinkOptions lo;
  lo.name = "arm";
  lo.inertia.mass = m;
  lo.inertia.com = Vector3d(l, 0, 0);
  lo.inertia.rotational = Vector3d(iy, iy, iy).asDiagonal();
  r.mb.addLink(lo, JointSpec::revolute(Vector3d::UnitY()).named("hinge"));
  r.joint = *r.mb.getJoint("hinge");
}

ActuatorSpec servo(double kp, double kd) {
  ActuatorSpec s;
  s.name = "servo";
  s.joint = "rig/hinge";
  s.type = ActuatorType::PositionServo;
  s.kp = kp;
  s.kd = kd;
  return s;
}

double q0(const World& w) {
  return w.getPositions()[0];
}

bool sameBits(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0);
}

bool sameRuntime(const RuntimeSnapshot& a, const RuntimeSnapshot& b) {
  if (a.actuators.size() != b.actuators.size()) return false;
  for (std::size_t i = 0; i < a.actuators.size(); ++i) {
    if (std::memcmp(&a.actuators[i], &b.actuators[i], sizeof(ActuatorRuntimeState)) != 0) return false;
  }
  return a.state.time == b.state.time && sameBits(a.state.positions, b.state.positions) &&
         sameBits(a.state.velocities, b.state.velocities);
}

}  // namespace

class TestActuators : public QObject {
  Q_OBJECT

 private slots:
  // The servo's step, with I the joint inertia and no gravity:
  //   q̇⁺ = (I q̇ + h kp (u − q)) / (I + h kp h + h kd),  q⁺ = q + h q̇⁺,
  // iterated here independently of the engine.
  void positionServoFollowsItsImplicitRecurrence_data() {
    QTest::addColumn<double>("ratio");  // kp h² / I
    QTest::addColumn<double>("zeta");   // damping ratio of the continuous servo
    QTest::newRow("soft, underdamped") << 1e-3 << 0.2;
    QTest::newRow("critically damped") << 1e-2 << 1.0;
    QTest::newRow("kp h²/I = 1e4") << 1e4 << 0.7;
  }
  void positionServoFollowsItsImplicitRecurrence() {
    QFETCH(double, ratio);
    QFETCH(double, zeta);
    Rig r;
    const double I = 0.05;
    buildLink(r, 1.0, 0.0, I, 0.0);
    const double h = r.world.getOptions().timeStep;
    const double kp = ratio * I / (h * h);
    const double kd = 2.0 * zeta * std::sqrt(kp * I);
    Actuator a = r.world.addActuator(servo(kp, kd));
    const double target = 0.8;
    a.setControl(target);
    r.world.enterSimulationMode();
    double q = 0.0;
    double v = 0.0;
    double worst = 0.0;
    for (int n = 0; n < 3000; ++n) {
      r.world.step();
      v = (I * v + h * kp * (target - q)) / (I + h * h * kp + h * kd);
      q += h * v;
      worst = std::max(worst, std::abs(q0(r.world) - q));
    }
    QVERIFY2(worst < 1e-9 * (1.0 + std::abs(target)), qPrintable(QString("largest difference %1").arg(worst)));
    // The force it reports is the one the recurrence applied in the last step.
    QVERIFY(std::abs(a.getForce() - (kp * (target - (q - h * v)) - (kp * h + kd) * v)) < 1e-6 * std::max(1.0, kp));
    if (ratio > 1.0) QVERIFY(std::abs(q0(r.world) - target) < 1e-6);  // settled
  }

  // At kp h²/I = 1e4 the implicit servo settles; the same gains applied as
  // an explicit PD (a motor driven by a controller) diverge.
  void implicitServoSettlesWhereExplicitPdDiverges() {
    const double I = 0.05;
    const double h = 1e-3;
    const double kp = 1e4 * I / (h * h);
    const double kd = 2.0 * std::sqrt(kp * I);
    const double target = 0.5;
    Rig implicit;
    buildLink(implicit, 1.0, 0.0, I, 0.0);
    implicit.world.addActuator(servo(kp, kd)).setControl(target);
    implicit.world.step(2000);
    QVERIFY(std::abs(q0(implicit.world) - target) < 1e-8);

    Rig explicitPd;
    buildLink(explicitPd, 1.0, 0.0, I, 0.0);
    ActuatorSpec motor;
    motor.name = "motor";
    motor.joint = "rig/hinge";
    motor.type = ActuatorType::Motor;
    explicitPd.world.addActuator(motor);
    explicitPd.world.setController(
        [&](const ControllerInput& in, std::span<double> u) { u[0] = kp * (target - in.q[0]) - kd * in.v[0]; });
    double largest = 0.0;
    for (int n = 0; n < 200 && std::isfinite(largest) && largest < 1e6; ++n) {
      explicitPd.world.step();
      largest = std::max(largest, std::abs(q0(explicitPd.world) - target));
      if (!std::isfinite(q0(explicitPd.world))) largest = std::numeric_limits<double>::infinity();
    }
    QVERIFY2(!(largest < 1e3), qPrintable(QString("the explicit PD stayed within %1 rad").arg(largest)));
  }

  // A saturated servo applies its bound: the joint accelerates at F/I
  // exactly. With very high gains a saturated PD is a bang-bang controller
  // (it overshoots, as the continuous system does) but the oscillation never
  // grows and the force never leaves its range; with moderate gains it settles.
  void forceRangeClampsAndStaysStable() {
    const double I = 0.05;
    const double h = 1e-3;
    for (const double kp : {1e4 * I / (h * h), 50.0}) {
      Rig r;
      buildLink(r, 1.0, 0.0, I, 0.0);
      ActuatorSpec s = servo(kp, 2.0 * std::sqrt(kp * I));
      s.forceMin = -0.5;
      s.forceMax = 0.5;
      Actuator a = r.world.addActuator(s);
      a.setControl(2.0);
      r.world.enterSimulationMode();
      r.world.step(100);
      QCOMPARE(a.getForce(), 0.5);
      QVERIFY(std::abs(r.world.getVelocities()[0] - 100 * h * 0.5 / I) < 1e-12);
      double firstWindow = 0.0;
      double lastWindow = 0.0;
      double largestForce = 0.0;
      for (int n = 0; n < 30000; ++n) {
        r.world.step();
        const double e = std::abs(q0(r.world) - 2.0);
        if (n >= 1000 && n < 5000) firstWindow = std::max(firstWindow, e);
        if (n >= 25000) lastWindow = std::max(lastWindow, e);
        largestForce = std::max(largestForce, std::abs(a.getForce()));
      }
      QVERIFY(std::isfinite(lastWindow));
      QVERIFY2(lastWindow <= firstWindow,
               qPrintable(QString("kp %1: |e| grew from %2 to %3").arg(kp).arg(firstWindow).arg(lastWindow)));
      QVERIFY2(largestForce <= 0.5 * (1.0 + 1e-9), qPrintable(QString("kp %1: force %2").arg(kp).arg(largestForce)));
      if (kp < 100.0) QVERIFY2(lastWindow < 1e-6, qPrintable(QString("|e| = %1").arg(lastWindow)));
    }
  }

  // A motor: τ = gear · u, clamped to the force range.
  void motorAppliesGearTimesControl() {
    const double I = 0.2;
    Rig r;
    buildLink(r, 1.0, 0.0, I, 0.0);
    ActuatorSpec s;
    s.name = "m";
    s.joint = "rig/hinge";
    s.gear = 3.0;
    s.forceMax = 5.0;
    s.forceMin = -5.0;
    Actuator a = r.world.addActuator(s);
    a.setControl(1.0);
    r.world.step(10);
    QCOMPARE(a.getForce(), 3.0);
    QVERIFY(std::abs(r.world.getVelocities()[0] - 10 * 1e-3 * 3.0 / I) < 1e-12);
    a.setControl(-4.0);
    r.world.step();
    QCOMPARE(a.getForce(), -5.0);
  }

  // DC motor on a wheel with joint damping b: the steady state solves
  //   gear·stall·(u − gear·ω/ω₀) = b ω,  ω = gear·stall·u / (b + gear²·stall/ω₀);
  // without load it spins at the no-load speed over the gear.
  void dcMotorFollowsItsTorqueSpeedLine() {
    for (const double b : {0.0, 0.02}) {
      Rig r;
      buildLink(r, 1.0, 0.0, 0.01, 0.0);
      if (b > 0.0) {
        JointSpec js = r.joint.getSpec();
        js.damping = VectorXd::Constant(1, b);
        r.joint.setSpec(js);
      }
      ActuatorSpec s;
      s.name = "dc";
      s.joint = "rig/hinge";
      s.type = ActuatorType::DcMotor;
      s.gear = 4.0;
      s.stallTorque = 0.3;
      s.noLoadSpeed = 200.0;
      s.control = 0.75;
      Actuator a = r.world.addActuator(s);
      r.world.step();
      // First step from rest: the line's implicit damping acts on q̇⁺ already.
      const double h = 1e-3;
      const double c = 16.0 * 0.3 / 200.0;
      const double v1 = h * 4.0 * 0.3 * 0.75 / (0.01 + h * (c + b));
      QVERIFY(std::abs(r.world.getVelocities()[0] - v1) < 1e-12);
      r.world.step(20000);
      const double expected = 4.0 * 0.3 * 0.75 / (b + c);
      QVERIFY2(std::abs(r.world.getVelocities()[0] - expected) < 1e-6 * expected,
               qPrintable(QString("ω = %1, expected %2").arg(r.world.getVelocities()[0]).arg(expected)));
      QVERIFY(std::abs(a.getForce() - b * expected) < 1e-6);
    }
  }

  // Velocity servo against joint damping b: kv (r − ω) = b ω.
  void velocityServoReachesItsSteadyState() {
    Rig r;
    buildLink(r, 1.0, 0.0, 0.01, 0.0);
    JointSpec js = r.joint.getSpec();
    js.damping = VectorXd::Constant(1, 0.1);
    r.joint.setSpec(js);
    ActuatorSpec s;
    s.name = "vel";
    s.joint = "rig/hinge";
    s.type = ActuatorType::VelocityServo;
    s.kv = 0.4;
    Actuator a = r.world.addActuator(s);
    a.setControl(3.0);
    r.world.step(5000);
    QVERIFY(std::abs(r.world.getVelocities()[0] - 0.4 * 3.0 / 0.5) < 1e-9);
  }

  // A pendulum held horizontal under gravity. A P servo sags to the angle
  // where kp q = m g l cos q; a PID with the same P and D gains removes that
  // error; with the force range below m g l the integral is bounded by its clamp.
  void pidRemovesSteadyStateErrorWithAntiWindup() {
    const double m = 2.0;
    const double l = 0.5;
    const double g = 9.81;
    const double kp = 400.0;
    const double kd = 20.0;
    {
      Rig r;
      buildLink(r, m, l, 0.01, g);
      r.world.addActuator(servo(kp, kd)).setControl(0.0);
      r.world.step(8000);
      double q = 0.0;  // Newton on kp q − m g l cos q = 0
      for (int i = 0; i < 50; ++i) q -= (kp * q - m * g * l * std::cos(q)) / (kp + m * g * l * std::sin(q));
      QVERIFY2(std::abs(q0(r.world) - q) < 1e-7, qPrintable(QString("q = %1, expected %2").arg(q0(r.world)).arg(q)));
      QVERIFY(q > 0.02);  // a visible error for the PID to remove
    }
    {
      Rig r;
      buildLink(r, m, l, 0.01, g);
      ActuatorSpec s = servo(kp, kd);
      s.type = ActuatorType::Pid;
      s.ki = 2000.0;
      Actuator a = r.world.addActuator(s);
      a.setControl(0.0);
      r.world.step(10000);
      QVERIFY2(std::abs(q0(r.world)) < 1e-6, qPrintable(QString("q = %1").arg(q0(r.world))));
      // The integral term carries the gravity torque: ki ∫e = −m g l.
      QVERIFY(std::abs(a.getForce() + m * g * l) < 1e-4);
    }
    {
      Rig r;
      buildLink(r, m, l, 0.01, g);
      ActuatorSpec s = servo(kp, kd);
      s.type = ActuatorType::Pid;
      s.ki = 2000.0;
      s.integralLimit = 0.05;
      s.forceMin = -0.5 * m * g * l;  // cannot hold the arm up
      s.forceMax = 0.5 * m * g * l;
      Actuator a = r.world.addActuator(s);
      a.setControl(0.0);
      for (int n = 0; n < 5000; ++n) {
        r.world.step();
        const double integral = r.world.captureRuntimeState().actuators[0].integral;
        QVERIFY(std::abs(integral) <= 0.05);
      }
      QCOMPARE(std::abs(r.world.captureRuntimeState().actuators[0].integral), 0.05);
      QCOMPARE(std::abs(a.getForce()), 0.5 * m * g * l);
    }
  }

  // A lock holds the pendulum where it was when it engaged; its force is the
  // gravity torque; released, the pendulum falls; locked again, it holds there.
  void lockHoldsAndReleases() {
    const double m = 1.0;
    const double l = 0.4;
    const double g = 9.81;
    Rig r;
    buildLink(r, m, l, 0.01, g);
    r.joint.setPosition(0, -0.3);
    ActuatorSpec s;
    s.name = "brake";
    s.joint = "rig/hinge";
    s.type = ActuatorType::Lock;
    Actuator a = r.world.addActuator(s);
    QCOMPARE(a.getControl(), 1.0);  // locked by default
    r.world.step(1000);
    QVERIFY(std::abs(q0(r.world) + 0.3) < 1e-9);
    QVERIFY(std::abs(a.getForce() + m * g * l * std::cos(-0.3)) < 1e-6);
    a.setControl(0.0);
    r.world.step(200);
    const double released = q0(r.world);
    QVERIFY(released > -0.2);  // fell towards q > 0 (gravity torque m g l cos q > 0)
    a.setControl(1.0);
    r.world.step();
    const double held = q0(r.world);
    r.world.step(500);
    QVERIFY(std::abs(q0(r.world) - held) < 1e-6);
    QVERIFY(std::abs(r.world.getVelocities()[0]) < 1e-9);
  }

  // An unset position target holds the initial pose; default gains are
  // critically damped at 10 Hz for the joint's inertia: the step response
  // is the recurrence with kp = I (20π)², kd = 2 I (20π).
  void defaultsHoldPoseWithTenHertzGains() {
    const double I = 0.03 + 1.5 * 0.2 * 0.2;
    Rig r;
    buildLink(r, 1.5, 0.2, 0.03, 0.0);
    r.joint.setPosition(0, 0.25);
    ActuatorSpec s;
    s.name = "hold";
    s.joint = "rig/hinge";
    s.type = ActuatorType::PositionServo;
    Actuator a = r.world.addActuator(s);
    QCOMPARE(a.getControl(), 0.25);  // design mode: the current position
    r.world.setVelocities(VectorXd::Constant(1, 1.0));
    r.world.enterSimulationMode();
    QCOMPARE(a.getControl(), 0.25);
    QVERIFY(!a.getSpec().kp.has_value());  // the spec keeps "default"
    const double w = 2.0 * kPi * 10.0;
    const double kp = I * w * w;
    const double kd = 2.0 * I * w;
    const double h = 1e-3;
    double q = 0.25;
    double v = 1.0;
    double worst = 0.0;
    for (int n = 0; n < 1000; ++n) {
      r.world.step();
      v = (I * v + h * kp * (0.25 - q)) / (I + h * h * kp + h * kd);
      q += h * v;
      worst = std::max(worst, std::abs(q0(r.world) - q));
    }
    QVERIFY2(worst < 1e-10, qPrintable(QString("largest difference %1").arg(worst)));
  }

  void schedulesEvaluateKeyframesAndGenerators() {
    ScheduleSpec s;
    s.keyframes = {{0.0, 0.0}, {1.0, 2.0}, {3.0, -2.0}};
    QCOMPARE(s.evaluate(-1.0), 0.0);
    QCOMPARE(s.evaluate(0.5), 1.0);
    QCOMPARE(s.evaluate(2.0), 0.0);
    QCOMPARE(s.evaluate(5.0), -2.0);
    s.interpolation = ScheduleSpec::Interpolation::Hold;
    QCOMPARE(s.evaluate(0.5), 0.0);
    QCOMPARE(s.evaluate(2.5), 2.0);
    s.loop = true;
    s.interpolation = ScheduleSpec::Interpolation::Linear;
    QCOMPARE(s.evaluate(3.5), 1.0);
    ScheduleSpec sine;
    sine.kind = ScheduleSpec::Kind::Sine;
    sine.amplitude = 2.0;
    sine.frequency = 0.25;
    sine.offset = 1.0;
    QVERIFY(std::abs(sine.evaluate(1.0) - 3.0) < 1e-15);
    ScheduleSpec step;
    step.kind = ScheduleSpec::Kind::Step;
    step.offset = 0.1;
    step.amplitude = 0.4;
    step.stepTime = 0.2;
    QCOMPARE(step.evaluate(0.1), 0.1);
    QCOMPARE(step.evaluate(0.2), 0.5);
  }

  // Held keyframes take a stiff servo through each setpoint in turn;
  // setSchedule replaces a schedule in place.
  void schedulesDriveAJointThroughSetpoints() {
    Rig r;
    const double I = 0.05;
    buildLink(r, 1.0, 0.0, I, 0.0);
    const double kp = 2000.0;
    r.world.addActuator(servo(kp, 2.0 * std::sqrt(kp * I)));
    ScheduleSpec s;
    s.name = "moves";
    s.actuator = "servo";
    s.keyframes = {{0.0, 0.2}, {1.0, -0.4}, {2.0, 0.7}};
    s.interpolation = ScheduleSpec::Interpolation::Hold;
    r.world.addSchedule(s);
    for (const auto& [time, setpoint] : s.keyframes) {
      while (r.world.getTime() < time + 0.9) r.world.step();
      QVERIFY2(
          std::abs(q0(r.world) - setpoint) < 1e-6,
          qPrintable(QString("t = %1: q = %2, setpoint %3").arg(r.world.getTime()).arg(q0(r.world)).arg(setpoint)));
    }
    r.world.resetToDesignMode();
    ScheduleSpec other = s;
    other.name = "renamed";
    other.kind = ScheduleSpec::Kind::Step;
    ScheduleSpec second = s;
    second.name = "second";
    r.world.addSchedule(second);
    r.world.setSchedule("moves", other);
    QCOMPARE(r.world.getSchedules().front().name, std::string("renamed"));
    QVERIFY(r.world.getSchedules().front().kind == ScheduleSpec::Kind::Step);
    QVERIFY_THROWS_EXCEPTION(TopologyError, r.world.setSchedule("nothing", other));
    other.name = "second";  // taken
    QVERIFY_THROWS_EXCEPTION(TopologyError, r.world.setSchedule("renamed", other));
  }

  // A schedule sets the control before each step from the step's start time;
  // a controller runs after it and may override it; controls are clamped.
  void schedulesAndControllersDriveControls() {
    Rig r;
    buildLink(r, 1.0, 0.0, 0.05, 0.0);
    ActuatorSpec s = servo(500.0, 10.0);
    s.controlMin = -1.0;
    s.controlMax = 1.0;
    r.world.addActuator(s);
    ScheduleSpec sch;
    sch.name = "ramp";
    sch.actuator = "servo";
    sch.keyframes = {{0.0, 0.0}, {0.1, 0.5}, {0.2, 2.0}};
    r.world.addSchedule(sch);
    Actuator a = *r.world.getActuator("servo");
    for (int n = 0; n < 250; ++n) {
      const double t = r.world.getTime();
      r.world.step();
      QCOMPARE(a.getControl(), std::clamp(sch.evaluate(t), -1.0, 1.0));
    }
    r.world.resetToDesignMode();
    int calls = 0;
    r.world.setController([&](const ControllerInput& in, std::span<double> u) {
      ++calls;
      QCOMPARE(u.size(), std::size_t{1});
      QCOMPARE(in.q.size(), std::size_t{1});
      u[0] = -0.25;
    });
    r.world.step(3);
    QCOMPARE(calls, 3);
    QCOMPARE(a.getControl(), -0.25);
  }

  // Restoring a recorded frame and stepping on reproduces the recording bit
  // for bit with a PID, a schedule and a controller running.
  void replayWithControllersIsBitExact() {
    const auto build = [](Rig& r) {
      buildLink(r, 1.0, 0.3, 0.02, 9.81);
      ActuatorSpec s = servo(300.0, 5.0);
      s.type = ActuatorType::Pid;
      s.ki = 100.0;
      s.integralLimit = 0.2;
      r.world.addActuator(s);
      ActuatorSpec lock;
      lock.name = "lock";
      lock.joint = "rig/hinge";
      lock.type = ActuatorType::Lock;
      lock.control = 0.0;
      r.world.addActuator(lock);
      ScheduleSpec sch;
      sch.name = "wave";
      sch.actuator = "servo";
      sch.kind = ScheduleSpec::Kind::Sine;
      sch.amplitude = 0.7;
      sch.frequency = 1.3;
      r.world.addSchedule(sch);
      r.world.setController([](const ControllerInput& in, std::span<double> u) {
        u[1] = (in.time > 0.4 && in.time < 0.5) ? 1.0 : 0.0;  // brake for a while
      });
    };
    Rig original;
    build(original);
    original.world.enterSimulationMode();
    Recorder recorder(original.world);
    original.world.step(800);
    const Recording recording = recorder.recording();
    Rig copy;
    build(copy);
    for (const std::size_t k : {std::size_t{0}, std::size_t{120}, std::size_t{430}, std::size_t{455}}) {
      recording.restore(copy.world, k);
      for (std::size_t j = k + 1; j <= k + 100; ++j) {
        copy.world.step();
        QVERIFY2(sameRuntime(copy.world.captureRuntimeState(), recording.snapshot(j)),
                 qPrintable(QString("restored frame %1: frame %2 differs").arg(k).arg(j)));
      }
    }
  }

  // The spec carries actuators and schedules; a world rebuilt from it steps
  // bit for bit; the layout fingerprint names the actuators.
  void specRoundTripAndFingerprint() {
    Rig r;
    buildLink(r, 1.0, 0.3, 0.02, 9.81);
    ActuatorSpec s = servo(300.0, 5.0);
    s.forceMax = 4.0;
    s.forceMin = -4.0;
    r.world.addActuator(s);
    ScheduleSpec sch;
    sch.name = "steps";
    sch.actuator = "servo";
    sch.keyframes = {{0.0, 0.1}, {0.3, -0.4}};
    sch.interpolation = ScheduleSpec::Interpolation::Hold;
    r.world.addSchedule(sch);
    const WorldSpec spec = r.world.getSpec();
    QCOMPARE(spec.actuators.size(), std::size_t{1});
    QCOMPARE(spec.actuators[0].joint, std::string("rig/hinge"));
    QCOMPARE(spec.schedules.size(), std::size_t{1});
    World copy(spec);
    QVERIFY(copy.getSpec() == spec);
    r.world.step(500);
    copy.step(500);
    QVERIFY(sameBits(r.world.getPositions(), copy.getPositions()));
    const LayoutFingerprint f = computeLayoutFingerprint(copy);
    QVERIFY(std::find(f.entries.begin(), f.entries.end(), "actuator 'servo': position on 'rig/hinge' coordinate 0") !=
            f.entries.end());
  }

  void badActuatorsAreRefused() {
    Rig r;
    buildLink(r, 1.0, 0.0, 0.05, 0.0);
    Link ball =
        r.mb.addLink({"ball", Inertia::sphere(1.0, 0.1)}, *r.mb.getLink("arm"), JointSpec::ball().named("ball"));
    Q_UNUSED(ball);
    ActuatorSpec s = servo(1.0, 1.0);
    s.joint = "rig/nothing";
    QVERIFY_THROWS_EXCEPTION(TopologyError, r.world.addActuator(s));
    s.joint = "rig/hinge";
    s.coordinate = 1;
    QVERIFY_THROWS_EXCEPTION(TopologyError, r.world.addActuator(s));
    s.coordinate = 0;
    s.joint = "rig/ball";
    QVERIFY_THROWS_EXCEPTION(TopologyError, r.world.addActuator(s));
    s.type = ActuatorType::Motor;
    s.coordinate = 2;
    r.world.addActuator(s);  // a motor on one of the ball joint's DoFs is fine
    s.name = "neg";
    s.joint = "rig/hinge";
    s.coordinate = 0;
    s.gear = -1.0;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, r.world.addActuator(s));
    s.gear = 1.0;
    s.forceMin = 1.0;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, r.world.addActuator(s));
    QCOMPARE(r.world.numActuators(), std::size_t{1});
    // Removing the joint removes its actuators.
    r.mb.getLink("ball")->remove();
    QCOMPARE(r.world.numActuators(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestActuators)
#include "test_actuators.moc"

// Divergence detection: a step whose result is finite but exploding is
// rejected like a non-finite one (WorldOptions::divergence).
//
// Energy blow-up. Classical RK4 applied to an undamped oscillator
// θ̈ = −ω² θ (the joint spring is explicit under RK4) multiplies the state
// by R(i·hω) = 1 + z + z²/2 + z³/6 + z⁴/24 each step, z = i·hω. For
// hω = 5, |R| ≈ 21.5: the energy grows ≈ 460-fold in one step while every
// number stays finite. For hω = 0.5, |R| = 1 − O((hω)⁶): no false alarm.
//
// Velocity blow-up: a joint force large enough to pass maxSpeed in one
// step; its work is supplied from outside, so only the speed check applies.

#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <complex>
#include <string>

using namespace articula;

namespace {

struct Oscillator {
  World world;
  Joint joint;
  double inertia = 0.0;  // about the joint axis (kg·m²)
  double stiffness = 0.0;
};

// A disc on a revolute joint about its own axis (no gravity torque), held
// by a joint spring of natural frequency ω.
void buildOscillator(Oscillator& o, double omega, Integrator integrator) {
  WorldOptions options;
  options.integrator = integrator;
  options.timeStep = 1e-3;
  o.world.setOptions(options);
  Multibody mb = o.world.addMultibody("oscillator");
  const Inertia disc = Inertia::cylinder(2.0, 0.1, 0.02);
  o.inertia = disc.rotational(2, 2);
  o.stiffness = omega * omega * o.inertia;
  JointSpec spec = JointSpec::revolute(Vector3d::UnitZ());
  spec.springStiffness = VectorXd::Constant(1, o.stiffness);
  Link link = mb.addLink({"disc", disc}, spec);
  o.joint = link.getParentJoint();
  o.joint.setPosition(0, 0.01);
}

double oscillatorEnergy(const Oscillator& o) {
  const double q = o.joint.getPosition(0);
  const double v = o.joint.getVelocity(0);
  return 0.5 * o.inertia * v * v + 0.5 * o.stiffness * q * q;
}

}  // namespace

class TestDivergence : public QObject {
  Q_OBJECT

 private slots:
  void analyticAmplification() {
    // The premise of the test: RK4's amplification factor at hω = 5 and 0.5.
    auto R = [](double x) {
      const std::complex<double> z(0.0, x);
      return std::abs(1.0 + z + z * z / 2.0 + z * z * z / 6.0 + z * z * z * z / 24.0);
    };
    QVERIFY(R(5.0) > 20.0);
    QVERIFY(std::abs(R(0.5) - 1.0) < 1e-3);  // 1 − (hω)⁶/144 + …
  }

  void energyBlowUpIsRejected() {
    Oscillator o;
    buildOscillator(o, 5000.0, Integrator::RungeKutta4);  // hω = 5
    const double e0 = oscillatorEnergy(o);
    const double q0 = o.joint.getPosition(0);
    o.world.step();
    const StepDiagnostics& d = o.world.getStepDiagnostics();
    QVERIFY(d.failed);
    QVERIFY2(d.message.find("energy") != std::string::npos, d.message.c_str());
    // The state the step started from was kept: bounded and finite.
    QCOMPARE(o.joint.getPosition(0), q0);
    QCOMPARE(o.joint.getVelocity(0), 0.0);
    QVERIFY(std::abs(oscillatorEnergy(o) - e0) <= 1e-12 * e0);
    QVERIFY(o.world.computeKineticEnergy() + o.world.computePotentialEnergy() <= e0 * (1.0 + 1e-9));
    // The warning is recorded.
    bool warned = false;
    for (const std::string& w : o.world.getWarnings()) warned = warned || w.find("energy") != std::string::npos;
    QVERIFY(warned);
  }

  void energyCheckOffLetsTheBlowUpThrough() {
    // The same step with the check off: the energy really does explode, so
    // the rejection above is the check's doing.
    Oscillator o;
    buildOscillator(o, 5000.0, Integrator::RungeKutta4);
    WorldOptions options = o.world.getOptions();
    options.divergence.energyGainFraction = 0.0;
    o.world.setOptions(options);
    const double e0 = oscillatorEnergy(o);
    o.world.step();
    QVERIFY(!o.world.getStepDiagnostics().failed);
    QVERIFY2(oscillatorEnergy(o) > 100.0 * e0, qPrintable(QString::number(oscillatorEnergy(o) / e0)));
  }

  void stableOscillatorRaisesNoAlarm() {
    for (const Integrator integrator : {Integrator::RungeKutta4, Integrator::SemiImplicitEuler}) {
      Oscillator o;
      buildOscillator(o, 500.0, integrator);  // hω = 0.5
      for (int k = 0; k < 5000; ++k) {
        o.world.step();
        QVERIFY2(!o.world.getStepDiagnostics().failed, o.world.getStepDiagnostics().message.c_str());
      }
    }
  }

  void speedLimitRejectsTheStep() {
    World world;
    WorldOptions options;
    options.gravity.setZero();
    world.setOptions(options);
    Multibody mb = world.addMultibody("slider");
    Link link =
        mb.addLink({"block", Inertia::box(1.0, Vector3d(0.1, 0.1, 0.1))}, JointSpec::prismatic(Vector3d::UnitX()));
    Joint joint = link.getParentJoint();
    // v after one step = h·F/m = 1e-3 · 2e7 / 1 = 2e4 m/s > 1e4.
    joint.setForces(VectorXd::Constant(1, 2e7));
    world.step();
    QVERIFY(world.getStepDiagnostics().failed);
    QVERIFY2(world.getStepDiagnostics().message.find("maxSpeed") != std::string::npos,
             world.getStepDiagnostics().message.c_str());
    QCOMPARE(joint.getVelocity(0), 0.0);
    QCOMPARE(joint.getPosition(0), 0.0);
    // Below the limit the same push is a legitimate step.
    joint.setForces(VectorXd::Constant(1, 5e6));
    world.step();
    QVERIFY2(!world.getStepDiagnostics().failed, world.getStepDiagnostics().message.c_str());
    QVERIFY(std::abs(joint.getVelocity(0) - 5e3) < 1e-6);
  }

  void stateWrittenOutsideTheStepIsANewBaseline() {
    // Setting a fast velocity between steps is the user's energy, not a
    // blow-up: the monitor starts over from the written state.
    Oscillator o;
    buildOscillator(o, 500.0, Integrator::SemiImplicitEuler);
    for (int k = 0; k < 10; ++k) o.world.step();
    o.joint.setVelocity(0, 50.0);
    for (int k = 0; k < 1000; ++k) {
      o.world.step();
      QVERIFY2(!o.world.getStepDiagnostics().failed, o.world.getStepDiagnostics().message.c_str());
    }
  }

  void fallingAndLandingRaisesNoAlarm() {
    // Free fall, impact and rest of a box on the ground with the default
    // options: contacts take energy out, nothing is flagged.
    World world;
    world.addGroundPlane();
    RigidBodyOptions box;
    box.inertia = Inertia::box(1.0, Vector3d(0.2, 0.2, 0.2));
    box.pose.translation() = Vector3d(0.0, 0.0, 1.0);
    box.pose.linear() = Eigen::AngleAxisd(0.4, Vector3d(1, 1, 0).normalized()).toRotationMatrix();
    RigidBody b = world.addRigidBody("box", box);
    b.addCollisionShape({.name = "box_shape", .geometry = Geometry::box(Vector3d(0.2, 0.2, 0.2)), .material = {}});
    for (int k = 0; k < 3000; ++k) {
      world.step();
      QVERIFY2(!world.getStepDiagnostics().failed, world.getStepDiagnostics().message.c_str());
    }
    QVERIFY(b.getWorldTransform().translation().z() < 0.2);
  }
};

QTEST_APPLESS_MAIN(TestDivergence)
#include "test_divergence.moc"

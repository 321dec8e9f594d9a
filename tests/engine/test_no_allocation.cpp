// step() must not allocate once simulation mode is entered (world.hpp:
// "enterSimulationMode() ... allocates the workspace; step() then allocates
// nothing"), nor InverseKinematics::solve(q0, q) once set up (ik.hpp).
//
// The allocation functions are replaced by counting versions
// (tests/support/counting_allocator.cpp; malloc/calloc/realloc too on glibc
// without a sanitizer). Counting is switched on only around the calls
// under test, and positive controls prove that the counters do count.

#include "closed_loop_robots.hpp"
#include "counting_allocator.hpp"
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

// Keeps the compiler from eliding allocations in the positive controls.
void* volatile g_sink = nullptr;

// ---------------------------------------------------------------------------
// Scene
// ---------------------------------------------------------------------------

LinkOptions linkOptions(const std::string& name, double mass, const Vector3d& com) {
  LinkOptions o;
  o.name = name;
  o.inertia.mass = mass;
  o.inertia.com = com;
  o.inertia.rotational = Vector3d(0.02, 0.025, 0.03).asDiagonal();
  return o;
}

JointSpec passive(JointSpec spec, bool spring) {
  const int nv = numDofs(spec.type);
  if (spring) spec.springStiffness = VectorXd::Constant(nv, 10.0);
  spec.damping = VectorXd::Constant(nv, 0.1);
  spec.armature = VectorXd::Constant(nv, 0.01);
  return spec;
}

struct Scene {
  Multibody mb;
  Link torso, arm, slider, shoulder, wrist, plate;
  Joint revolute, prismatic;
  RigidBody body;
  FreeFrame marker;
};

Scene buildScene(World& w) {
  Scene s;
  s.mb = w.addMultibody("robot");
  s.torso = s.mb.addLink(linkOptions("torso", 2.0, Vector3d(0, 0, 0.05)), JointSpec::free().named("root"));
  s.arm = s.mb.addLink(
      linkOptions("arm", 1.0, Vector3d(0.1, 0, 0)), s.torso,
      passive(JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0.2, 0, 0)), true).named("j_arm"));
  s.slider =
      s.mb.addLink(linkOptions("slider", 0.5, Vector3d(0, 0, 0.02)), s.arm,
                   passive(JointSpec::prismatic(Vector3d::UnitX()).withParentOffset(translation(0.2, 0, 0)), true)
                       .named("j_slider"));
  s.shoulder =
      s.mb.addLink(linkOptions("shoulder", 0.8, Vector3d(0, 0, -0.1)), s.torso,
                   passive(JointSpec::ball().withParentOffset(translation(-0.2, 0, 0)), false).named("j_ball"));
  s.wrist = s.mb.addLink(
      linkOptions("wrist", 0.4, Vector3d(0, 0.02, -0.05)), s.shoulder,
      passive(JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitZ()).withParentOffset(translation(0, 0, -0.2)),
              true)
          .named("j_uni"));
  s.plate = s.mb.addLink(linkOptions("plate", 0.3, Vector3d(0.01, 0, 0)), s.wrist,
                         passive(JointSpec::euler().withParentOffset(translation(0, 0, -0.1)), true).named("j_eul"));
  s.mb.addLink(linkOptions("tray", 0.3, Vector3d(0, 0.01, 0)), s.torso,
               passive(JointSpec::planar().withParentOffset(translation(0, 0.2, 0)), true).named("j_pla"));
  s.revolute = s.arm.getParentJoint();
  s.prismatic = s.slider.getParentJoint();
  s.revolute.setVelocity(0, 1.0);
  s.shoulder.getParentJoint().setVelocities(Vector3d(0.5, -0.3, 0.2));
  s.mb.setForces(VectorXd::Constant(s.mb.numDofs(), 0.01));

  RigidBodyOptions o;
  o.inertia.mass = 1.2;
  o.inertia.rotational = Vector3d(0.05, 0.08, 0.1).asDiagonal();
  o.pose = translation(1, 0, 1);
  o.angularVelocity = Vector3d(0.3, 2.0, -0.5);
  s.body = w.addRigidBody("body", o);
  w.addRigidBody("ball", RigidBodyOptions{});
  s.marker = w.addFreeFrame("marker", s.plate, translation(0, 0, -0.05));
  return s;
}

/// Builds the scene with the other integrator, enters simulation mode, takes
/// one warm-up step, then switches to `integrator` (all before counting).
void prepare(World& w, Scene& s, Integrator integrator) {
  s = buildScene(w);
  w.enterSimulationMode();
  w.step(1);
  WorldOptions o = w.getOptions();
  o.integrator = integrator;
  w.setOptions(o);
}

// Inverse kinematics scene: two 7-link revolute arms with position limits
// (axes z, y, z, y, z, y, z; 0.2 m apart), a four-bar closed by a Hinge
// LoopClosure to the world, and a free RigidBody.
struct IkScene {
  std::vector<Link> arm, arm2;
  RigidBody body;
  LoopClosure closure;
};

std::vector<Link> addArm(World& w, const std::string& name, const Vector3d& base) {
  Multibody mb = w.addMultibody(name);
  std::vector<Link> links;
  for (int i = 0; i < 7; ++i) {
    const bool z = i % 2 == 0;
    JointSpec j = JointSpec::revolute(z ? Vector3d::UnitZ() : Vector3d::UnitY())
                      .withParentOffset(i == 0 ? translation(base.x(), base.y(), base.z()) : translation(0, 0, 0.2));
    j.positionLowerLimits = VectorXd::Constant(1, z ? -2.6 : -1.9);
    j.positionUpperLimits = VectorXd::Constant(1, z ? 2.6 : 1.9);
    const LinkOptions o = linkOptions(name + "_" + std::to_string(i + 1), 1.0, Vector3d(0, 0, 0.1));
    links.push_back(i == 0 ? mb.addLink(o, j) : mb.addLink(o, links.back(), j));
  }
  mb.setPositions((VectorXd(7) << 0.2, 0.6, -0.3, -1.2, 0.4, 0.9, 0.1).finished());
  return links;
}

IkScene buildIkScene(World& w) {
  IkScene s;
  s.arm = addArm(w, "arm", Vector3d::Zero());
  s.arm2 = addArm(w, "arm2", Vector3d(0.8, 0, 0));
  Multibody fb = w.addMultibody("four_bar");
  const JointSpec hinge = JointSpec::revolute(Vector3d::UnitZ());
  Link crank = fb.addLink(linkOptions("crank", 1.0, Vector3d(0.05, 0, 0)),
                          JointSpec(hinge).withParentOffset(translation(0, 1, 0)));
  Link coupler = fb.addLink(linkOptions("coupler", 1.0, Vector3d(0.17, 0, 0)), crank,
                            JointSpec(hinge).withParentOffset(translation(0.1, 0, 0)));
  Link rocker = fb.addLink(linkOptions("rocker", 1.0, Vector3d(0.15, 0, 0)), coupler,
                           JointSpec(hinge).withParentOffset(translation(0.35, 0, 0)));
  fb.setPositions(Vector3d(1.0, 0.5, -2.0));
  LoopClosureSpec pin;
  pin.frameA = Frame::World();
  pin.offsetA = translation(0.4, 1, 0);
  pin.frameB = rocker;
  pin.offsetB = translation(0.3, 0, 0);
  pin.family = LoopClosureFamily::Hinge;
  s.closure = w.addLoopClosure("pin", pin);
  RigidBodyOptions o;
  o.inertia.mass = 1.0;
  o.pose = translation(-0.5, 0.5, 0.5);
  s.body = w.addRigidBody("free_body", o);
  return s;
}

}  // namespace

#define VERIFY_NO_ALLOCATION(c)                                                \
  do {                                                                         \
    const Counts c_ = (c);                                                     \
    QVERIFY2(c_.news == 0 && c_.mallocs == 0, qPrintable(describeCounts(c_))); \
  } while (false)

class TestNoAllocation : public QObject {
  Q_OBJECT

 private slots:
  void countersCount();
  void countersCountEngineAllocations();
  void stepDoesNotAllocate_data();
  void stepDoesNotAllocate();
  void externalForceThenStepDoesNotAllocate_data();
  void externalForceThenStepDoesNotAllocate();
  void setPositionThenStepDoesNotAllocate_data();
  void setPositionThenStepDoesNotAllocate();
  void restingContactsDoNotAllocate_data();
  void restingContactsDoNotAllocate();
  void closedChainsDoNotAllocate_data();
  void closedChainsDoNotAllocate();
  void closedLoopBipedDoesNotAllocate_data();
  void closedLoopBipedDoesNotAllocate();
  void actuatorsSchedulesAndControllersDoNotAllocate_data();
  void actuatorsSchedulesAndControllersDoNotAllocate();
  void inverseKinematicsDoesNotAllocate_data();
  void inverseKinematicsDoesNotAllocate();
};

namespace {
void addIntegratorRows() {
  QTest::addColumn<int>("integrator");
  QTest::newRow("semi-implicit Euler") << static_cast<int>(Integrator::SemiImplicitEuler);
  QTest::newRow("Runge-Kutta 4") << static_cast<int>(Integrator::RungeKutta4);
}
}  // namespace

// Positive controls: the check can fail.
void TestNoAllocation::countersCount() {
  {
    CountingScope scope;
    std::vector<int> v(100, 7);
    g_sink = v.data();
  }
  QVERIFY2(counts().news >= 1, qPrintable(describeCounts(counts())));
  QVERIFY2(counts().deletes >= 1, qPrintable(describeCounts(counts())));
  {
    CountingScope scope;
    int* p = new int[16];
    g_sink = p;
    delete[] p;
  }
  QCOMPARE(counts().news, std::size_t{1});
  struct alignas(64) Wide {
    double d[8];
  };
  {
    CountingScope scope;
    Wide* p = new Wide;
    g_sink = p;
    delete p;
  }
  QCOMPARE(counts().news, std::size_t{1});
  {
    CountingScope scope;
    int* p = new (std::nothrow) int(3);
    g_sink = p;
    delete p;
  }
  QCOMPARE(counts().news, std::size_t{1});
  {
    CountingScope scope;
    std::string s(200, 'x');  // beyond the small-string buffer
    g_sink = s.data();
  }
  QVERIFY(counts().news >= 1);
  if (kMallocCounted) {
    {
      CountingScope scope;
      VectorXd big = VectorXd::Zero(1000);  // Eigen uses malloc, not operator new
      g_sink = big.data();
    }
    QVERIFY2(counts().mallocs >= 1, qPrintable(describeCounts(counts())));
    {
      CountingScope scope;
      void* p = std::malloc(64);
      g_sink = p;
      std::free(p);
    }
    QCOMPARE(counts().mallocs, std::size_t{1});
  } else {
    qInfo("malloc interposition disabled (sanitizer or non-glibc): only operator new is counted");
  }
  // Nothing is counted outside a scope.
  g_newCount = 0;
  std::vector<double> outside(50);
  g_sink = outside.data();
  QCOMPARE(g_newCount.load(), std::size_t{0});
}

// The counters also see allocations made inside the engine library.
void TestNoAllocation::countersCountEngineAllocations() {
  World w;
  Scene s = buildScene(w);
  w.enterSimulationMode();
  w.step(1);
  {
    CountingScope scope;
    const StateSpace ss = w.getStateSpace();  // vectors of segments and names
    g_sink = const_cast<StateSegment*>(ss.segments().data());
  }
  QVERIFY2(counts().news >= 1, qPrintable(describeCounts(counts())));
  if (kMallocCounted) {
    CountingScope scope;
    const VectorXd q = w.getPositions();  // a fresh Eigen vector (malloc)
    g_sink = const_cast<double*>(q.data());
  }
  if (kMallocCounted) QVERIFY2(counts().mallocs >= 1, qPrintable(describeCounts(counts())));
  {
    CountingScope scope;
    const FreeFrame f = w.addFreeFrame("a_frame_with_a_name_longer_than_the_small_string_buffer", s.torso);
    g_sink = const_cast<FreeFrame*>(&f);
  }
  QVERIFY2(counts().news + counts().mallocs >= 1, qPrintable(describeCounts(counts())));
}

void TestNoAllocation::stepDoesNotAllocate_data() {
  addIntegratorRows();
}

void TestNoAllocation::stepDoesNotAllocate() {
  QFETCH(int, integrator);
  World w;
  Scene s;
  prepare(w, s, static_cast<Integrator>(integrator));
  const double t0 = w.getTime();
  {
    CountingScope scope;
    w.step(100);
  }
  const Counts c = counts();
  VERIFY_NO_ALLOCATION(c);
  // The steps happened (and produced a sane state).
  QCOMPARE(w.getFrameIndex(), std::uint64_t{101});
  QVERIFY(w.getTime() > t0);
  QVERIFY(w.getPositions().allFinite());
}

void TestNoAllocation::externalForceThenStepDoesNotAllocate_data() {
  addIntegratorRows();
}

void TestNoAllocation::externalForceThenStepDoesNotAllocate() {
  QFETCH(int, integrator);
  World w;
  Scene s;
  prepare(w, s, static_cast<Integrator>(integrator));
  {
    CountingScope scope;
    for (int k = 0; k < 50; ++k) {
      const double a = 0.01 * k;
      s.torso.addExternalForce(Vector3d(std::sin(a), 0.0, 5.0), Vector3d(0.05, 0.0, 0.0));
      s.plate.addExternalForce(Vector3d(0.0, 1.0, 0.0), Vector3d(1.0, 0.0, 0.5), false, true);
      s.arm.addExternalTorque(Vector3d(0.0, 0.1 * std::cos(a), 0.0));
      s.body.addExternalForce(Vector3d(0.0, 0.0, 12.0), Vector3d(0.01, 0.0, 0.0));
      s.body.addExternalTorque(Vector3d(0.01, 0.0, 0.0), false);
      w.step();
    }
  }
  const Counts c = counts();
  VERIFY_NO_ALLOCATION(c);
  QCOMPARE(w.getFrameIndex(), std::uint64_t{51});
  QVERIFY(w.getPositions().allFinite());
}

void TestNoAllocation::setPositionThenStepDoesNotAllocate_data() {
  addIntegratorRows();
}

void TestNoAllocation::setPositionThenStepDoesNotAllocate() {
  QFETCH(int, integrator);
  World w;
  Scene s;
  prepare(w, s, static_cast<Integrator>(integrator));
  {
    CountingScope scope;
    for (int k = 0; k < 50; ++k) {
      s.revolute.setPosition(0, 0.3 + 0.001 * k);
      s.prismatic.setPosition(0, 0.02);
      s.revolute.setVelocity(0, 0.5);
      w.step();
    }
  }
  const Counts c = counts();
  VERIFY_NO_ALLOCATION(c);
  QCOMPARE(w.getFrameIndex(), std::uint64_t{51});
  QVERIFY(w.getPositions().allFinite());
}

// Resting contacts (a stack of boxes and a pendulum held at its joint limit,
// projected Gauss-Seidel): once the buffers have grown to the problem's
// size, further steps allocate nothing.
void TestNoAllocation::restingContactsDoNotAllocate_data() {
  QTest::addColumn<QString>("method");
  for (const std::string& m : constraintSolverMethods()) QTest::newRow(m.c_str()) << QString::fromStdString(m);
}

// Every constraint solver method: a stack of boxes on the ground and a
// pendulum held against its limit with joint friction.
void TestNoAllocation::restingContactsDoNotAllocate() {
  QFETCH(QString, method);
  WorldOptions wo;
  wo.solver.method = method.toStdString();
  World w(wo);
  w.addGroundPlane();
  for (int i = 0; i < 3; ++i) {
    RigidBodyOptions o;
    o.inertia = Inertia::box(1.0, Vector3d::Constant(0.2));
    o.pose = Isometry3d::Identity();
    o.pose.translation() = Vector3d(0.0, 0.0, 0.1 + 0.2 * i);
    RigidBody b = w.addRigidBody("box" + std::to_string(i), o);
    CollisionShapeOptions shape;
    shape.geometry = Geometry::box(Vector3d::Constant(0.2));
    b.addCollisionShape(shape);
  }
  Multibody mb = w.addMultibody("pendulum");
  Inertia bob = Inertia::pointMass(1.0, Vector3d(0.0, 0.0, -0.5));
  JointSpec js = JointSpec::revolute(Vector3d::UnitY());
  js.parentOffset.translation() = Vector3d(2.0, 0.0, 1.0);
  js.positionUpperLimits = VectorXd::Constant(1, 0.3);
  js.coulombFriction = VectorXd::Constant(1, 0.01);
  Link link = mb.addLink(LinkOptions{"bob", bob}, js);
  link.getParentJoint().setPosition(0, 0.29);
  mb.setForces(VectorXd::Constant(1, 5.0));  // pushes into the limit
  // Every sensor type: updating them is part of the step.
  auto sensor = [&](const std::string& name, SensorType type, const std::string& frame, const std::string& joint) {
    SensorSpec s;
    s.name = name;
    s.type = type;
    s.frame = frame;
    s.joint = joint;
    s.noiseStddev = 0.01;
    s.pose = Isometry3d(Eigen::AngleAxisd(1.5707963267948966, Vector3d::UnitY()));
    w.addSensor(s);
  };
  sensor("imu", SensorType::Imu, "box2", "");
  sensor("ft", SensorType::ForceTorque, "", "pendulum/" + link.getParentJoint().name());
  sensor("touch", SensorType::Contact, "box0", "");
  sensor("encoder", SensorType::JointEncoder, "", "pendulum/" + link.getParentJoint().name());
  sensor("range", SensorType::Rangefinder, "pendulum/bob", "");
  w.step(200);
  QVERIFY(w.getContacts().size() >= 8);
  QVERIFY(w.getStepDiagnostics().numRows > 0);
  VectorXd reading(6);
  const Sensor imu = *w.getSensor("imu");
  {
    CountingScope scope;
    w.step(100);
    imu.getReading(reading);
  }
  VERIFY_NO_ALLOCATION(counts());
  QVERIFY(w.getPositions().allFinite());
  QVERIFY(std::abs(link.getParentJoint().getPosition(0) - 0.3) < 1e-6);
}

void TestNoAllocation::closedChainsDoNotAllocate_data() {
  addIntegratorRows();
}

// A four-bar (hinge closure, projected after every step) next to a gear
// pair (joint coupler): rows, solve and projection reuse their buffers.
void TestNoAllocation::closedChainsDoNotAllocate() {
  QFETCH(int, integrator);
  WorldOptions wo;
  wo.integrator = static_cast<Integrator>(integrator);
  wo.gravity = Vector3d(0.0, -9.81, 0.0);
  World w(wo);
  Multibody mb = w.addMultibody("four_bar");
  auto bar = [](const std::string& name, double length) {
    LinkOptions o;
    o.name = name;
    o.inertia = Inertia::box(1.0, Vector3d(length, 0.02, 0.02));
    o.inertia.com = Vector3d(0.5 * length, 0.0, 0.0);
    return o;
  };
  Link crank = mb.addLink(bar("crank", 0.1), JointSpec::revolute(Vector3d::UnitZ()));
  Link coupler = mb.addLink(bar("coupler", 0.35), crank,
                            JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(0.1, 0, 0)));
  Link rocker = mb.addLink(bar("rocker", 0.3), coupler,
                           JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(0.35, 0, 0)));
  mb.setPositions(Vector3d(1.0, 0.5, -2.0));
  LoopClosureSpec pin;
  pin.frameA = Frame::World();
  pin.offsetA = translation(0.4, 0, 0);
  pin.frameB = rocker;
  pin.offsetB = translation(0.3, 0, 0);
  pin.family = LoopClosureFamily::Hinge;
  const LoopClosure closure = w.addLoopClosure("pin", pin);
  Multibody g1 = w.addMultibody("pinion");
  Multibody g2 = w.addMultibody("gear");
  Link a = g1.addLink(linkOptions("a", 1.0, Vector3d::Zero()), JointSpec::revolute(Vector3d::UnitZ()));
  Link b = g2.addLink(linkOptions("b", 2.0, Vector3d::Zero()),
                      JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(1, 0, 0)));
  a.getParentJoint().setVelocity(0, 3.0);
  w.addJointCoupler("mesh", JointCouplerSpec{a.getParentJoint(), b.getParentJoint(), -0.5, 0.0});
  QVERIFY(w.projectClosures().success);
  w.step(200);
  {
    CountingScope scope;
    w.step(100);
  }
  VERIFY_NO_ALLOCATION(counts());
  QVERIFY(closure.computeResidual().norm <= 1e-9);
  QVERIFY(closure.computeResidual().forceAvailable);
  QVERIFY(w.getLastStepTimings().projection > 0.0);
}

void TestNoAllocation::closedLoopBipedDoesNotAllocate_data() {
  addIntegratorRows();
}

// The floating-base biped of tests/support/closed_loop_robots.hpp (four
// loops, rods on ball joints, leaf springs) in free fall: rows, solve and
// the projection of its 26 closure rows after every step.
void TestNoAllocation::closedLoopBipedDoesNotAllocate() {
  QFETCH(int, integrator);
  WorldOptions wo;
  wo.integrator = static_cast<Integrator>(integrator);
  World w(wo);
  robots::Biped b = robots::buildBiped(w);
  VectorXd v(b.mb.numDofs());
  for (int i = 0; i < v.size(); ++i) v[i] = std::sin(1.7 * i + 0.3);
  b.mb.setVelocities(v);
  w.enterSimulationMode();
  w.step(200);
  {
    CountingScope scope;
    w.step(200);
  }
  VERIFY_NO_ALLOCATION(counts());
  for (const auto& c : b.closures) QVERIFY(c.computeResidualNorm() <= 1e-9);
  QVERIFY(w.getLastStepTimings().projection > 0.0);
}

// Every actuator type, a keyframe schedule, a generator and a controller.
void TestNoAllocation::actuatorsSchedulesAndControllersDoNotAllocate_data() {
  addIntegratorRows();
}

void TestNoAllocation::actuatorsSchedulesAndControllersDoNotAllocate() {
  QFETCH(int, integrator);
  World w;
  buildScene(w);
  const auto add = [&](const std::string& name, const std::string& joint, ActuatorType type, int coordinate = 0) {
    ActuatorSpec a;
    a.name = name;
    a.joint = "robot/" + joint;
    a.type = type;
    a.coordinate = coordinate;
    a.forceMin = -5.0;
    a.forceMax = 5.0;
    a.ki = 1.0;
    a.stallTorque = 1.0;
    a.noLoadSpeed = 10.0;
    w.addActuator(a);
  };
  add("servo", "j_arm", ActuatorType::PositionServo);
  add("pid", "j_slider", ActuatorType::Pid);
  add("velocity", "j_ball", ActuatorType::VelocityServo, 1);
  add("motor", "j_uni", ActuatorType::Motor, 1);
  add("dc", "j_eul", ActuatorType::DcMotor, 2);
  add("lock", "j_pla", ActuatorType::Lock, 2);
  ScheduleSpec keys;
  keys.name = "keys";
  keys.actuator = "servo";
  keys.keyframes = {{0.0, 0.0}, {0.05, 0.3}, {0.1, -0.2}};
  keys.loop = true;
  w.addSchedule(keys);
  ScheduleSpec sine;
  sine.name = "sine";
  sine.actuator = "dc";
  sine.kind = ScheduleSpec::Kind::Sine;
  sine.amplitude = 0.5;
  sine.frequency = 2.0;
  w.addSchedule(sine);
  w.setController([](const ControllerInput& in, std::span<double> u) {
    u[3] = 0.1 * std::sin(in.time);
    u[5] = in.time < 0.05 ? 1.0 : 0.0;  // the lock engages and releases
  });
  w.enterSimulationMode();
  w.step(1);
  WorldOptions o = w.getOptions();
  o.integrator = static_cast<Integrator>(integrator);
  w.setOptions(o);
  w.step(1);  // Runge–Kutta 4 warns once that it ignores the lock's row
  {
    CountingScope scope;
    w.step(100);
  }
  VERIFY_NO_ALLOCATION(counts());
  QVERIFY(w.getPositions().allFinite());
  QVERIFY(w.getActuatorForces().allFinite());
  QVERIFY(w.getActuatorForces().norm() > 0.0);
}

void TestNoAllocation::inverseKinematicsDoesNotAllocate_data() {
  QTest::addColumn<bool>("wide");
  QTest::addColumn<int>("postureIterations");
  QTest::newRow("pin above the pose tasks") << false << 0;
  // Pin, tip and body pose share priority 0 (18 rows), an elbow position
  // below them: the largest level is not the last one (the posture, 17
  // rows, solved through a Cholesky factor).
  QTest::newRow("pin and pose tasks in one level") << true << 0;
  QTest::newRow("posture iterations") << false << 10;
}

// ik.hpp: "Once set up, a solve does not allocate". After one solve (the
// set-up), solves towards new targets (setTarget), one of them out of reach
// (restarts, the failure message), allocate nothing.
void TestNoAllocation::inverseKinematicsDoesNotAllocate() {
  QFETCH(bool, wide);
  QFETCH(int, postureIterations);
  World w;
  IkScene s = buildIkScene(w);
  QVERIFY(w.projectClosures().success);
  const VectorXd qInit = w.getPositions();
  const Isometry3d X_tip = s.arm.back().getWorldTransform();
  const Vector3d p_elbow = s.arm[3].getWorldTransform().translation();
  const Isometry3d X_body = s.body.getWorldTransform();
  const Isometry3d X_pin = s.arm2[3].getWorldTransform();
  // Reachable targets: the tip and elbow of the arm at configurations near
  // the initial one; the body moved and turned.
  constexpr int kSolves = 6;
  std::vector<Isometry3d> tipTargets, bodyTargets;
  std::vector<Vector3d> elbowTargets;
  for (int k = 0; k < kSolves; ++k) {
    VectorXd q = qInit;
    for (int i = 0; i < 7; ++i) q[i] += 0.1 * std::sin(1.3 * k + i);
    w.setPositions(q);
    tipTargets.push_back(s.arm.back().getWorldTransform());
    elbowTargets.push_back(s.arm[3].getWorldTransform().translation());
    Isometry3d X = X_body;
    X.translation() += Vector3d(0.02 * k, -0.01 * k, 0.03);
    X.linear() = X.linear() * Eigen::AngleAxisd(0.1 * (k + 1), Vector3d(1, 2, 3).normalized()).toRotationMatrix();
    bodyTargets.push_back(X);
  }
  w.setPositions(qInit);
  Isometry3d outOfReach = X_tip;
  outOfReach.translation() += Vector3d(5, 0, 0);

  IkOptions options;
  options.maxRestarts = 2;
  options.postureIterations = postureIterations;
  InverseKinematics ik(w, options);
  ik.pin(s.arm2[3]);
  IkTaskOptions top;
  top.priority = wide ? 0 : 1;
  const int tip = ik.addPoseTask(s.arm.back(), X_tip, top);
  const int body = ik.addPoseTask(s.body, X_body, top);
  int elbow = -1;
  if (wide) {
    IkTaskOptions below;
    below.priority = 1;
    elbow = ik.addPositionTask(s.arm[3], p_elbow, below);
  }
  ik.addPostureTask(qInit);
  VectorXd q0 = qInit;
  VectorXd q = qInit;
  QVERIFY(ik.solve(q0, q).converged);  // set-up

  std::array<bool, kSolves + 1> converged{};
  std::array<int, kSolves + 1> iterations{};
  {
    CountingScope scope;
    for (int k = 0; k < kSolves; ++k) {
      ik.setTarget(tip, tipTargets[static_cast<std::size_t>(k)]);
      ik.setTarget(body, bodyTargets[static_cast<std::size_t>(k)]);
      if (elbow >= 0) ik.setTargetPosition(elbow, elbowTargets[static_cast<std::size_t>(k)]);
      const IkResult& r = ik.solve(q0, q);
      converged[static_cast<std::size_t>(k)] = r.converged;
      iterations[static_cast<std::size_t>(k)] = r.iterations;
      q0.swap(q);  // the next solve starts from this solution, as in a drag
    }
    ik.setTarget(tip, outOfReach);
    const IkResult& r = ik.solve(q0, q);
    converged[kSolves] = r.converged;
    iterations[kSolves] = r.iterations;
  }
  const Counts c = counts();
  VERIFY_NO_ALLOCATION(c);
  for (int k = 0; k < kSolves; ++k) {
    QVERIFY2(converged[static_cast<std::size_t>(k)], qPrintable(QString("solve %1: not converged after %2 iterations")
                                                                    .arg(k)
                                                                    .arg(iterations[static_cast<std::size_t>(k)])));
  }
  QVERIFY(!converged[kSolves]);
  QVERIFY(iterations[kSolves] > 0);
  // The solves did what they say: the last reachable solution holds the
  // pin and the closure, and reaches the tip target.
  w.setPositions(q0);
  QVERIFY((s.arm2[3].getWorldTransform().matrix() - X_pin.matrix()).norm() <= 1e-9);
  QVERIFY((s.arm.back().getWorldTransform().matrix() - tipTargets.back().matrix()).norm() <= 1e-9);
  QVERIFY(s.closure.computeResidualNorm() <= 1e-9);
}

QTEST_APPLESS_MAIN(TestNoAllocation)
#include "test_no_allocation.moc"

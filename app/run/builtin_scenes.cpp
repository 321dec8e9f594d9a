#include "builtin_scenes.hpp"

#include <articula/error.hpp>

#include <cmath>

namespace articula::scenes {

namespace {

Isometry3d translation(double x, double y, double z) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(x, y, z);
  return X;
}

void doublePendulum(World& world) {
  auto mb = world.addMultibody("double_pendulum");
  Inertia rod = Inertia::cylinder(1.0, 0.02, 0.5);
  rod.com = Vector3d(0, 0, -0.25);
  auto upper = mb.addLink(
      {"upper", rod}, JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 2)).named("shoulder"));
  auto lower =
      mb.addLink({"lower", rod}, upper,
                 JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, -0.5)).named("elbow"));
  upper.getParentJoint().setPosition(0, 1.2);
  lower.getParentJoint().setPosition(0, -0.4);
}

void tumblingBody(World& world) {
  RigidBodyOptions o;
  o.inertia = Inertia::box(2.0, Vector3d(0.1, 0.3, 0.6));
  o.pose = translation(0, 0, 1);
  o.angularVelocity = Vector3d(0.1, 4.0, 0.05);  // near the unstable intermediate axis
  world.addRigidBody("box", o);
  WorldOptions wo = world.getOptions();
  wo.gravity.setZero();
  wo.integrator = Integrator::RungeKutta4;
  world.setOptions(wo);
}

void gyroscope(World& world) {
  auto mb = world.addMultibody("gyroscope");
  Inertia disc = Inertia::cylinder(1.0, 0.1, 0.02);
  disc.com = Vector3d(0, 0, 0.2);
  auto rotor = mb.addLink({"rotor", disc}, JointSpec::ball().named("pivot"));
  rotor.getParentJoint().setVelocities(Vector3d(0, 0, 60));
  Eigen::Vector4d q(std::sin(0.25), 0, 0, std::cos(0.25));  // tilted 0.5 rad about x
  rotor.getParentJoint().setPositions(q);
  WorldOptions wo = world.getOptions();
  wo.integrator = Integrator::RungeKutta4;
  world.setOptions(wo);
}

void springMass(World& world) {
  auto mb = world.addMultibody("spring_mass");
  JointSpec js = JointSpec::prismatic(Vector3d::UnitZ()).named("slider");
  js.springStiffness = Eigen::VectorXd::Constant(1, 400.0);
  js.damping = Eigen::VectorXd::Constant(1, 0.5);
  js.restPositions = Eigen::VectorXd::Constant(1, 0.0);
  auto mass = mb.addLink({"mass", Inertia::box(1.0, Vector3d(0.1, 0.1, 0.1))}, js);
  mass.getParentJoint().setPosition(0, 0.1);
}

void boxStack(World& world) {
  world.addGroundPlane();
  for (int i = 0; i < 10; ++i) {
    RigidBodyOptions o;
    o.inertia = Inertia::box(1.0, Vector3d(0.2, 0.2, 0.2));
    o.pose = translation(0, 0, 0.1 + 0.2 * i);
    auto b = world.addRigidBody("box" + std::to_string(i), o);
    CollisionShapeOptions s;
    s.geometry = Geometry::box(Vector3d(0.2, 0.2, 0.2));
    b.addCollisionShape(s);
    VisualShapeOptions v;
    v.geometry = s.geometry;
    b.addVisualShape(v);
  }
}

void bouncingBall(World& world) {
  world.addGroundPlane(0.0, Material{0.5, 0.8});
  RigidBodyOptions o;
  o.inertia = Inertia::sphere(1.0, 0.1);
  o.pose = translation(0, 0, 1.1);
  o.linearVelocity = Vector3d(0.5, 0, 0);
  auto b = world.addRigidBody("ball", o);
  CollisionShapeOptions s;
  s.geometry = Geometry::sphere(0.1);
  s.material = Material{0.5, 0.8};
  b.addCollisionShape(s);
}

void limitedPendulum(World& world) {
  auto mb = world.addMultibody("pendulum");
  Inertia bob = Inertia::sphere(1.0, 0.05);
  bob.com = Vector3d(0, 0, -0.5);
  JointSpec js = JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 1)).named("hinge");
  js.positionLowerLimits = Eigen::VectorXd::Constant(1, -0.5);
  js.positionUpperLimits = Eigen::VectorXd::Constant(1, 0.5);
  js.coulombFriction = Eigen::VectorXd::Constant(1, 0.05);
  auto link = mb.addLink({"bob", bob}, js);
  link.getParentJoint().setPosition(0, 0.4);
  link.getParentJoint().setVelocity(0, -4.0);
}

}  // namespace

std::vector<SceneInfo> builtinScenes() {
  return {
      {"double-pendulum", "two rods on revolute joints, released from 1.2 / -0.4 rad (chaotic)"},
      {"tumbling-box", "torque-free box spinning near its intermediate axis (RK4, no gravity)"},
      {"gyroscope", "spinning disc on a ball joint precessing under gravity (RK4)"},
      {"spring-mass", "1 kg on a damped prismatic spring, k = 400 N/m"},
      {"box-stack", "ten 0.2 m boxes stacked on the ground (contacts, friction)"},
      {"bouncing-ball", "sphere with restitution 0.8 bouncing along the ground"},
      {"limited-pendulum", "pendulum swinging between joint limits at ±0.5 rad, with joint friction"},
      {"chain-N", "serial chain of N revolute links, fixed base (e.g. chain-30)"},
  };
}

Multibody buildRevoluteChain(World& world, const std::string& name, int n) {
  if (n < 1) throw InvalidArgument("a chain needs at least one link (got " + std::to_string(n) + ")");
  auto mb = world.addMultibody(name);
  Inertia in = Inertia::box(1.0, Vector3d(0.03, 0.03, 0.1));
  in.com = Vector3d(0, 0, -0.05);
  Link parent;
  for (int i = 0; i < n; ++i) {
    const Vector3d axis = (i % 3 == 2) ? Vector3d::UnitX() : Vector3d::UnitY();
    JointSpec js = JointSpec::revolute(axis).withParentOffset(translation(0, 0, i == 0 ? 0.0 : -0.1));
    js.name = "j" + std::to_string(i);
    LinkOptions lo{"l" + std::to_string(i), in};
    parent = i == 0 ? mb.addLink(lo, js) : mb.addLink(lo, parent, js);
    parent.getParentJoint().setPosition(0, 0.1 * std::sin(1.0 + i));
  }
  return mb;
}

void buildScene(World& world, const std::string& name) {
  if (name == "double-pendulum") return doublePendulum(world);
  if (name == "tumbling-box") return tumblingBody(world);
  if (name == "gyroscope") return gyroscope(world);
  if (name == "spring-mass") return springMass(world);
  if (name == "box-stack") return boxStack(world);
  if (name == "bouncing-ball") return bouncingBall(world);
  if (name == "limited-pendulum") return limitedPendulum(world);
  if (name.rfind("chain-", 0) == 0) {
    const std::string count = name.substr(6);
    char* end = nullptr;
    const long n = std::strtol(count.c_str(), &end, 10);
    if (count.empty() || *end != '\0' || n < 1 || n > 10000) {
      throw InvalidArgument("scene '" + name + "': expected chain-N with 1 ≤ N ≤ 10000");
    }
    buildRevoluteChain(world, "chain", static_cast<int>(n));
    return;
  }
  std::string known;
  for (const auto& s : builtinScenes()) known += "\n  " + s.name + "  " + s.description;
  throw InvalidArgument("unknown scene '" + name + "'; built-in scenes:" + known);
}

}  // namespace articula::scenes

#include "builtin_scenes.hpp"

#include <articula/error.hpp>

#include <cmath>
#include <numbers>

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

// A visual bar of length `length` along x from the link origin.
void addBar(Link link, double length, const Vector4d& color) {
  VisualShapeOptions v;
  v.geometry = Geometry::box(Vector3d(length, 0.02, 0.02));
  v.pose = translation(0.5 * length, 0, 0);
  v.color = color;
  link.addVisualShape(v);
}

Inertia barInertia(double mass, double length) {
  Inertia in = Inertia::box(mass, Vector3d(length, 0.02, 0.02));
  in.com = Vector3d(0.5 * length, 0, 0);
  return in;
}

void sliderCrank(World& world) {
  // Crank r = 0.1 m about y at (0, 0, 1), rod l = 0.35 m, piston sliding along x.
  const double r = 0.1;
  const double l = 0.35;
  auto mech = world.addMultibody("slider_crank");
  auto crank =
      mech.addLink({"crank", barInertia(0.5, r)},
                   JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 1)).named("crank_joint"));
  auto rod =
      mech.addLink({"rod", barInertia(0.3, l)}, crank,
                   JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(r, 0, 0)).named("rod_joint"));
  addBar(crank, r, Vector4d(0.85, 0.3, 0.2, 1));
  addBar(rod, l, Vector4d(0.3, 0.5, 0.85, 1));
  auto pistonTree = world.addMultibody("piston");
  auto piston =
      pistonTree.addLink({"piston", Inertia::box(1.0, Vector3d(0.06, 0.06, 0.06))},
                         JointSpec::prismatic(Vector3d::UnitX()).withParentOffset(translation(0, 0, 1)).named("slide"));
  VisualShapeOptions v;
  v.geometry = Geometry::box(Vector3d(0.06, 0.06, 0.06));
  v.color = Vector4d(0.6, 0.6, 0.6, 1);
  piston.addVisualShape(v);
  LoopClosureSpec pin;
  pin.frameA = rod;
  pin.offsetA = translation(l, 0, 0);
  pin.frameB = piston;
  pin.family = LoopClosureFamily::Point;
  world.addLoopClosure("wrist_pin", pin);
  crank.getParentJoint().setPosition(0, 0.5);
  crank.getParentJoint().setVelocity(0, 6.0);
  piston.getParentJoint().setPosition(0, 0.4);
  ClosureProjectionOptions po;
  po.lockedJoints = {crank.getParentJoint()};
  world.projectClosures(po);
}

void gearPair(World& world) {
  // Wheel B (r = 0.2 m) meshes with wheel A (r = 0.1 m): q_B = −q_A / 2.
  auto makeWheel = [&](const std::string& name, double radius, double x, const Vector4d& color) {
    auto mb = world.addMultibody(name);
    const double mass = 2.0 * radius / 0.1;
    Inertia in = Inertia::cylinder(mass, radius, 0.02);
    in.rotational = Eigen::AngleAxisd(0.5 * std::numbers::pi, Vector3d::UnitX()).toRotationMatrix() * in.rotational *
                    Eigen::AngleAxisd(0.5 * std::numbers::pi, Vector3d::UnitX()).toRotationMatrix().transpose();
    auto link = mb.addLink({"wheel", in},
                           JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(x, 0, 1)).named("axle"));
    VisualShapeOptions v;
    v.geometry = Geometry::cylinder(radius, 0.02);
    v.pose.linear() = Eigen::AngleAxisd(0.5 * std::numbers::pi, Vector3d::UnitX()).toRotationMatrix();
    v.color = color;
    link.addVisualShape(v);
    VisualShapeOptions mark;
    mark.geometry = Geometry::box(Vector3d(radius, 0.03, 0.01));
    mark.pose = translation(0.5 * radius, 0.0, 0);
    mark.color = Vector4d(0.1, 0.1, 0.1, 1);
    link.addVisualShape(mark);
    return link;
  };
  auto a = makeWheel("pinion", 0.1, 0.0, Vector4d(0.85, 0.6, 0.2, 1));
  auto b = makeWheel("gear", 0.2, 0.3, Vector4d(0.3, 0.6, 0.3, 1));
  JointCouplerSpec mesh;
  mesh.leader = a.getParentJoint();
  mesh.follower = b.getParentJoint();
  mesh.ratio = -0.5;
  world.addJointCoupler("mesh", mesh);
  // A torsion spring on the pinion keeps the pair oscillating.
  JointSpec spring = a.getParentJoint().getSpec();
  spring.springStiffness = Eigen::VectorXd::Constant(1, 2.0);
  a.getParentJoint().setSpec(spring);
  a.getParentJoint().setPosition(0, 1.0);
  b.getParentJoint().setPosition(0, -0.5);
}

}  // namespace

Multibody buildFourBar(World& world, const std::string& name, const Vector3d& origin) {
  const double a = 0.1;   // crank
  const double b = 0.35;  // coupler
  const double c = 0.3;   // rocker
  const double d = 0.4;   // ground (O2 → O4 along x)
  auto mb = world.addMultibody(name);
  auto at = [&](double x) {
    Isometry3d X = Isometry3d::Identity();
    X.translation() = origin + Vector3d(x, 0, 0);
    return X;
  };
  auto crank = mb.addLink({"crank", barInertia(0.5, a)},
                          JointSpec::revolute(Vector3d::UnitY()).withParentOffset(at(0)).named("crank_joint"));
  auto coupler =
      mb.addLink({"coupler", barInertia(1.0, b)}, crank,
                 JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(a, 0, 0)).named("coupler_joint"));
  auto rocker =
      mb.addLink({"rocker", barInertia(0.8, c)}, coupler,
                 JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(b, 0, 0)).named("rocker_joint"));
  addBar(crank, a, Vector4d(0.85, 0.3, 0.2, 1));
  addBar(coupler, b, Vector4d(0.3, 0.5, 0.85, 1));
  addBar(rocker, c, Vector4d(0.3, 0.7, 0.3, 1));
  LoopClosureSpec pin;
  // The hinge axis is z of the endpoint frames: turn it onto the joints' y.
  const Eigen::Matrix3d zToY = Eigen::AngleAxisd(-0.5 * std::numbers::pi, Vector3d::UnitX()).toRotationMatrix();
  pin.frameA = Frame::World();
  pin.offsetA = at(d);
  pin.offsetA.linear() = zToY;
  pin.frameB = rocker;
  pin.offsetB = translation(c, 0, 0);
  pin.offsetB.linear() = zToY;
  pin.family = LoopClosureFamily::Hinge;
  world.addLoopClosure(name + "_pin", pin);
  // The assembled configuration for a crank at 1 rad (angles φ in the x-z
  // plane, counter-clockwise from x; a joint angle about y is −Δφ), drawn
  // 0.25 rad off in the coupler and rocker joints so that the loop starts
  // open and is assembled here with the crank held.
  const double phi2 = 1.0;
  const Eigen::Vector2d A(a * std::cos(phi2), a * std::sin(phi2));
  const Eigen::Vector2d O4(d, 0.0);
  const Eigen::Vector2d f = A - O4;
  const double gamma = std::acos((c * c + f.squaredNorm() - b * b) / (2.0 * c * f.norm()));
  const double phi4 = std::atan2(f.y(), f.x()) + gamma;  // rocker O4 → B
  const Eigen::Vector2d B = O4 + c * Eigen::Vector2d(std::cos(phi4), std::sin(phi4));
  const double phi3 = std::atan2(B.y() - A.y(), B.x() - A.x());
  const double rockerChain = phi4 + std::numbers::pi;  // the chain's rocker points B → O4
  crank.getParentJoint().setPosition(0, -phi2);
  coupler.getParentJoint().setPosition(0, -(phi3 - phi2) + 0.25);
  rocker.getParentJoint().setPosition(0, -(rockerChain - phi3) - 0.25);
  ClosureProjectionOptions po;
  po.lockedJoints = {crank.getParentJoint()};
  const auto result = world.projectClosures(po);
  if (!result.success) throw TopologyError("four-bar '" + name + "' did not assemble: " + result.message);
  return mb;
}

std::vector<SceneInfo> builtinScenes() {
  return {
      {"double-pendulum", "two rods on revolute joints, released from 1.2 / -0.4 rad (chaotic)"},
      {"tumbling-box", "torque-free box spinning near its intermediate axis (RK4, no gravity)"},
      {"gyroscope", "spinning disc on a ball joint precessing under gravity (RK4)"},
      {"spring-mass", "1 kg on a damped prismatic spring, k = 400 N/m"},
      {"box-stack", "ten 0.2 m boxes stacked on the ground (contacts, friction)"},
      {"bouncing-ball", "sphere with restitution 0.8 bouncing along the ground"},
      {"limited-pendulum", "pendulum swinging between joint limits at ±0.5 rad, with joint friction"},
      {"four-bar", "crank-rocker four-bar (loop closed by a hinge closure) swinging under gravity (RK4)"},
      {"slider-crank", "crank, connecting rod and piston (point closure), spinning crank (RK4)"},
      {"gear-pair", "two wheels meshed 2:1 by a joint coupler, pinion on a torsion spring (RK4)"},
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
  // Contact-free closed chains run with RK4, whose stages solve the closure
  // and coupler rows at the acceleration level (energy kept to ~1e-4).
  auto useRk4 = [&] {
    WorldOptions o = world.getOptions();
    o.integrator = Integrator::RungeKutta4;
    world.setOptions(o);
  };
  if (name == "four-bar") {
    buildFourBar(world, "four_bar", Vector3d(0, 0, 1));
    return useRk4();
  }
  if (name == "slider-crank") {
    sliderCrank(world);
    return useRk4();
  }
  if (name == "gear-pair") {
    gearPair(world);
    return useRk4();
  }
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

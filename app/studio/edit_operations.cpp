// The design edits of the studio (edit_operations.hpp).
#include "edit_operations.hpp"

#include <articula/error.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/joint_types.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <utility>

namespace articula::studio::ops {

namespace {

// ---- look-ups ------------------------------------------------------------------

std::string quoted(const std::string& name) {
  return "'" + name + "'";
}

[[noreturn]] void throwMissing(const ObjectRef& ref) {
  throw InvalidArgument(std::string("there is no ") + kindName(ref.kind) + " named " + quoted(ref.name));
}

RigidBody requireRigidBody(const World& world, const ObjectRef& ref) {
  auto body = findRigidBody(world, ref);
  if (!body) throwMissing(ref);
  return *body;
}

Multibody requireMultibody(const World& world, const ObjectRef& ref) {
  auto mb = findMultibody(world, ref);
  if (!mb) throwMissing(ref);
  return *mb;
}

Link requireLink(const World& world, const ObjectRef& ref) {
  auto link = findLink(world, ref);
  if (!link) throwMissing(ref);
  return *link;
}

Joint requireJoint(const World& world, const ObjectRef& ref) {
  auto joint = findJoint(world, ref);
  if (!joint) throwMissing(ref);
  return *joint;
}

Shape requireShape(const World& world, const ObjectRef& ref) {
  auto shape = findShape(world, ref);
  if (!shape) throwMissing(ref);
  return *shape;
}

LoopClosure requireLoopClosure(const World& world, const ObjectRef& ref) {
  auto closure = findLoopClosure(world, ref);
  if (!closure) throwMissing(ref);
  return *closure;
}

JointCoupler requireCoupler(const World& world, const ObjectRef& ref) {
  auto coupler = findCoupler(world, ref);
  if (!coupler) throwMissing(ref);
  return *coupler;
}

Frame requireFrame(const World& world, const ObjectRef& ref) {
  auto frame = findFrame(world, ref);
  if (!frame) throwMissing(ref);
  return *frame;
}

// Rigid bodies, multibodies and user frames share one namespace; "world"
// names the world frame in scene files.
bool worldNameTaken(const World& world, const std::string& name) {
  return name == "world" || world.hasRigidBody(name) || world.hasMultibody(name) || world.hasFrame(name);
}

bool shapeNameTaken(const World& world, const std::string& name) {
  return world.getShape(name).has_value();
}

// The body a rigid-body, link or joint reference names, as a frame.
Frame bodyFrame(const World& world, const ObjectRef& ref) {
  switch (ref.kind) {
    case ObjectKind::RigidBody:
      return requireRigidBody(world, ref);
    case ObjectKind::Link:
      return requireLink(world, ref);
    case ObjectKind::Joint:
      return requireJoint(world, ref).getChildLink();
    default:
      throw InvalidArgument(std::string("a ") + kindName(ref.kind) + " (" + quoted(ref.name) +
                            ") has no mass properties; select a rigid body or a link");
  }
}

// ---- joint specs ---------------------------------------------------------------

JointSpec jointSpecFor(JointType type) {
  switch (type) {
    case JointType::Weld:
      return JointSpec::weld();
    case JointType::Revolute:
      return JointSpec::revolute(Vector3d::UnitZ());
    case JointType::Prismatic:
      return JointSpec::prismatic(Vector3d::UnitZ());
    case JointType::Screw:
      return JointSpec::screw(Vector3d::UnitZ(), 0.01);
    case JointType::Universal:
      return JointSpec::universal(Vector3d::UnitZ(), Vector3d::UnitY());
    case JointType::Ball:
      return JointSpec::ball();
    case JointType::Euler:
      return JointSpec::euler();
    case JointType::Planar:
      return JointSpec::planar();
    case JointType::Translational:
      return JointSpec::translational();
    case JointType::Free:
      return JointSpec::free();
  }
  throw InvalidArgument("unknown joint type");
}

// ---- shapes --------------------------------------------------------------------

// Everything needed to create a shape again.
struct ShapeCopy {
  bool collision = true;
  Frame owner;
  CollisionShapeOptions collisionOptions;
  VisualShapeOptions visualOptions;
};

ShapeCopy captureShape(const Shape& shape) {
  ShapeCopy c;
  c.collision = shape.isCollision();
  c.owner = shape.getOwner();
  if (c.collision) {
    c.collisionOptions.name = shape.name();
    c.collisionOptions.geometry = shape.getGeometry();
    c.collisionOptions.pose = shape.getLocalPose();
    c.collisionOptions.material = shape.getMaterial();
    c.collisionOptions.collidable = shape.isCollidable();
  } else {
    c.visualOptions.name = shape.name();
    c.visualOptions.geometry = shape.getGeometry();
    c.visualOptions.pose = shape.getLocalPose();
    c.visualOptions.color = shape.getColor();
  }
  return c;
}

Shape addShape(World& world, const ShapeCopy& c) {
  return c.collision ? world.addCollisionShape(c.owner, c.collisionOptions)
                     : world.addVisualShape(c.owner, c.visualOptions);
}

void setCopyName(ShapeCopy& c, const std::string& name) {
  if (c.collision) {
    c.collisionOptions.name = name;
  } else {
    c.visualOptions.name = name;
  }
}

// Shapes of `owner` in creation order (collision and visual together).
std::vector<Shape> shapesOf(const World& world, const Frame& owner) {
  std::vector<Shape> shapes = world.getCollisionShapes(owner);
  const std::vector<Shape> visual = world.getVisualShapes(owner);
  shapes.insert(shapes.end(), visual.begin(), visual.end());
  std::sort(shapes.begin(), shapes.end(), [](const Shape& a, const Shape& b) { return a.index() < b.index(); });
  return shapes;
}

// ---- loop closures and couplers ------------------------------------------------

// Moves the follower so that the coupler holds (when it is projected).
void satisfyCoupler(const JointCoupler& coupler) {
  const LoopClosureRuntimePolicy policy = coupler.getRuntimePolicy();
  if (!policy.enabled || policy.kinematics != ClosureKinematicsPolicy::Project) return;
  const JointCouplerSpec spec = coupler.getSpec();
  Joint follower = spec.follower;
  follower.setPosition(0, spec.ratio * spec.leader.getPosition(0) + spec.offset);
}

// ---- inertia -------------------------------------------------------------------

void requirePositive(double value, const char* what) {
  if (!std::isfinite(value) || value <= 0.0) {
    std::ostringstream os;
    os << what << " must be positive and finite (got " << value << ")";
    throw InvalidArgument(os.str());
  }
}

bool nameTaken(const World& world, const ObjectRef& ref, const std::string& newName) {
  switch (ref.kind) {
    case ObjectKind::RigidBody:
    case ObjectKind::Multibody:
    case ObjectKind::Frame:
      return worldNameTaken(world, newName);
    case ObjectKind::Link:
      return requireLink(world, ref).getMultibody().hasLink(newName);
    case ObjectKind::Joint:
      return requireJoint(world, ref).getMultibody().hasJoint(newName);
    case ObjectKind::Shape:
      return shapeNameTaken(world, newName);
    case ObjectKind::LoopClosure:
      return world.hasLoopClosure(newName);
    case ObjectKind::Coupler:
      return world.hasJointCoupler(newName);
    case ObjectKind::Actuator:
      return world.hasActuator(newName);
    default:
      throw InvalidArgument(std::string("a ") + kindName(ref.kind) + " cannot be renamed");
  }
}

// The last component of a reference name ("multibody/link" → "link").
std::string leafOf(const ObjectRef& ref) {
  if (ref.kind == ObjectKind::Link || ref.kind == ObjectKind::Joint) return splitPath(ref.name).second;
  return ref.name;
}

ObjectRef renamedRef(const ObjectRef& ref, const std::string& newName) {
  if (ref.kind == ObjectKind::Link || ref.kind == ObjectKind::Joint) {
    return ObjectRef{ref.kind, splitPath(ref.name).first + "/" + newName};
  }
  return ObjectRef{ref.kind, newName};
}

}  // namespace

// ---- names -------------------------------------------------------------------------

std::string uniqueName(const std::string& base, const std::function<bool(const std::string&)>& taken) {
  if (!taken(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!taken(candidate)) return candidate;
  }
}

// ---- inertia -------------------------------------------------------------------------

Inertia primitiveInertia(const Geometry& g, double density) {
  if (g.type == GeometryType::Box || g.type == GeometryType::Sphere || g.type == GeometryType::Cylinder ||
      g.type == GeometryType::Capsule || g.type == GeometryType::Ellipsoid) {
    return *solidInertia(g, density);
  }
  requirePositive(density, "density");
  throw InvalidArgument("no mass properties for a " + std::string(toString(g.type)) +
                        " shape (only box, sphere, capsule, cylinder and ellipsoid)");
}

Inertia inertiaFromShapes(const World& world, const ObjectRef& body, double density,
                          std::vector<std::string>* skipped) {
  requirePositive(density, "density");
  const Frame frame = bodyFrame(world, body);
  std::vector<Shape> shapes = world.getCollisionShapes(frame);
  if (shapes.empty()) shapes = world.getVisualShapes(frame);
  Inertia total = Inertia::zero();
  int parts = 0;
  for (const Shape& shape : shapes) {
    const Geometry& g = shape.getGeometry();
    if (g.type == GeometryType::Plane || g.type == GeometryType::ConvexMesh || g.type == GeometryType::TriangleMesh) {
      if (skipped != nullptr) skipped->push_back(shape.name());
      continue;
    }
    // Shape frame S at X_BS in the body frame B.
    total.add(primitiveInertia(g, density), shape.getLocalPose());
    ++parts;
  }
  if (parts == 0) {
    throw InvalidArgument(std::string(kindName(body.kind)) + " " + quoted(body.name) +
                          " has no box, sphere, capsule, cylinder or ellipsoid shape to compute its inertia from");
  }
  return total;
}

// ---- creation ------------------------------------------------------------------------

namespace {

// Adds `shape` to `owner` as a collision and a visual shape named after `base`.
void addBodyShapes(World& world, const Frame& owner, const std::string& base, const BodyShape& shape) {
  const auto taken = [&](const std::string& n) { return shapeNameTaken(world, n); };
  CollisionShapeOptions collision;
  collision.name = uniqueName(base + "_collision", taken);
  collision.geometry = shape.geometry;
  world.addCollisionShape(owner, collision);
  VisualShapeOptions visual;
  visual.name = uniqueName(base + "_visual", taken);
  visual.geometry = shape.geometry;
  visual.color = shape.color;
  world.addVisualShape(owner, visual);
}

}  // namespace

ObjectRef createRigidBody(World& world, const std::string& name, const BodyShape& shape, const Isometry3d& pose) {
  const std::string n =
      name.empty() ? uniqueName("body", [&](const std::string& s) { return worldNameTaken(world, s); }) : name;
  if (n == "world") throw TopologyError("the name 'world' is reserved for the world frame");
  RigidBodyOptions options;
  options.inertia = primitiveInertia(shape.geometry, shape.density);
  options.pose = pose;
  const RigidBody body = world.addRigidBody(n, options);
  addBodyShapes(world, body, n, shape);
  return refOf(body);
}

ObjectRef createMultibody(World& world, const std::string& name, JointType rootJoint, const BodyShape& shape,
                          const Isometry3d& pose) {
  const std::string n =
      name.empty() ? uniqueName("multibody", [&](const std::string& s) { return worldNameTaken(world, s); }) : name;
  if (n == "world") throw TopologyError("the name 'world' is reserved for the world frame");
  const Inertia inertia = primitiveInertia(shape.geometry, shape.density);
  Multibody mb = world.addMultibody(n);
  LinkOptions options;
  options.name = "root";
  options.inertia = inertia;
  const Link root = mb.addLink(options, jointSpecFor(rootJoint).withParentOffset(pose).named("root_joint"));
  addBodyShapes(world, root, n + "_root", shape);
  return refOf(root);
}

ObjectRef addLink(World& world, const ObjectRef& parentLink, const std::string& name, JointType type,
                  const Isometry3d& parentOffset, const BodyShape& shape) {
  const Link parent = requireLink(world, parentLink);
  Multibody mb = parent.getMultibody();
  const std::string n = name.empty() ? uniqueName("link", [&](const std::string& s) { return mb.hasLink(s); }) : name;
  if (n.find('/') != std::string::npos) throw InvalidArgument("link name " + quoted(n) + " must not contain '/'");
  const std::string jointName = uniqueName(n + "_joint", [&](const std::string& s) { return mb.hasJoint(s); });
  LinkOptions options;
  options.name = n;
  options.inertia = primitiveInertia(shape.geometry, shape.density);
  const Link link = mb.addLink(options, parent, jointSpecFor(type).withParentOffset(parentOffset).named(jointName));
  addBodyShapes(world, link, mb.name() + "_" + n, shape);
  return refOf(link);
}

ObjectRef addLoopClosure(World& world, const std::string& name, const ObjectRef& frameA, const ObjectRef& frameB,
                         LoopClosureFamily family) {
  LoopClosureSpec spec;
  spec.frameA = requireFrame(world, frameA);
  spec.frameB = requireFrame(world, frameB);
  spec.family = family;
  const Isometry3d X_WA = spec.frameA.getWorldTransform();
  const Isometry3d X_WB = spec.frameB.getWorldTransform();
  if (family == LoopClosureFamily::Distance) {
    spec.length = (X_WB.translation() - X_WA.translation()).norm();
    // Origins closer than this coincide up to the round-off of assembled chains.
    if (!(spec.length > 1e-9)) {
      throw InvalidArgument("a distance closure between " + quoted(frameA.name) + " and " + quoted(frameB.name) +
                            " needs origins that are apart; they coincide");
    }
  } else {
    // Endpoint A is frame B's pose seen from frame A: X_AB = X_WA⁻¹ X_WB.
    spec.offsetA = X_WA.inverse(Eigen::Isometry) * X_WB;
    spec.offsetB = Isometry3d::Identity();
  }
  return refOf(world.addLoopClosure(name, spec));
}

ObjectRef addActuator(World& world, const ObjectRef& jointRef, ActuatorType type) {
  const Joint joint = requireJoint(world, jointRef);
  const JointType jt = joint.getSpec().type;
  if (joint.numDofs() == 0) throw InvalidArgument("joint '" + jointRef.name + "' has no degree of freedom to drive");
  const bool positional = numPositions(jt) == numDofs(jt);
  ActuatorSpec spec;
  spec.joint = jointRef.name;
  spec.type = positional || type != ActuatorType::PositionServo ? type : ActuatorType::VelocityServo;
  spec.gravityCompensation = spec.type == ActuatorType::PositionServo || spec.type == ActuatorType::VelocityServo;
  if (spec.type == ActuatorType::DcMotor) {
    spec.stallTorque = 1.0;
    spec.noLoadSpeed = 10.0;
  }
  const std::string base = joint.name() + "_" + toString(spec.type);
  spec.name = uniqueName(base, [&](const std::string& n) { return world.hasActuator(n); });
  return refOf(world.addActuator(spec));
}

ObjectRef addSchedule(World& world, const ObjectRef& actuatorRef) {
  const auto a = findActuator(world, actuatorRef);
  if (!a) throw InvalidArgument("select an actuator to schedule");
  ScheduleSpec s;
  s.name = uniqueName(a->name() + "_schedule", [&](const std::string& n) {
    for (const ScheduleSpec& other : world.getSchedules())
      if (other.name == n) return true;
    return false;
  });
  s.actuator = a->name();
  s.kind = ScheduleSpec::Kind::Sine;
  s.amplitude = 0.2;
  s.frequency = 0.5;
  s.offset = a->getControl();
  world.addSchedule(s);
  return {ObjectKind::Schedule, s.name};
}

void setActuatorSpec(World& world, const ObjectRef& ref, const ActuatorSpec& spec) {
  auto a = findActuator(world, ref);
  if (!a) throw InvalidArgument("no actuator '" + ref.name + "'");
  a->setSpec(spec);
}

ObjectRef addCoupler(World& world, const std::string& name, const ObjectRef& leader, const ObjectRef& follower,
                     double ratio, double offset) {
  JointCouplerSpec spec;
  spec.leader = requireJoint(world, leader);
  spec.follower = requireJoint(world, follower);
  spec.ratio = ratio;
  spec.offset = offset;
  const JointCoupler coupler = world.addJointCoupler(name, spec);
  satisfyCoupler(coupler);
  return refOf(coupler);
}

ObjectRef addUserFrame(World& world, const std::string& name, const ObjectRef& parent, const Isometry3d& pose,
                       bool fixed) {
  const Frame p = requireFrame(world, parent);
  const std::string n =
      name.empty() ? uniqueName("frame", [&](const std::string& s) { return worldNameTaken(world, s); }) : name;
  if (n == "world") throw TopologyError("the name 'world' is reserved for the world frame");
  if (fixed) return refOfFrame(world.addFixedFrame(n, p, pose));
  return refOfFrame(world.addFreeFrame(n, p, pose));
}

// ---- removal and copies ----------------------------------------------------------------

void remove(World& world, const ObjectRef& ref) {
  switch (ref.kind) {
    case ObjectKind::RigidBody:
      world.remove(requireRigidBody(world, ref));
      return;
    case ObjectKind::Multibody:
      world.remove(requireMultibody(world, ref));
      return;
    case ObjectKind::Link:
    case ObjectKind::Joint: {
      Link link = ref.kind == ObjectKind::Link ? requireLink(world, ref) : requireJoint(world, ref).getChildLink();
      // A multibody without its root link is not a valid design: removing
      // the root removes the whole multibody.
      if (!link.getParentLink()) {
        world.remove(link.getMultibody());
      } else {
        link.remove();
      }
      return;
    }
    case ObjectKind::Shape:
      world.remove(requireShape(world, ref));
      return;
    case ObjectKind::LoopClosure:
      world.remove(requireLoopClosure(world, ref));
      return;
    case ObjectKind::Coupler:
      world.remove(requireCoupler(world, ref));
      return;
    case ObjectKind::Actuator: {
      const auto a = findActuator(world, ref);
      if (!a) throw InvalidArgument("no actuator '" + ref.name + "'");
      world.remove(*a);
      return;
    }
    case ObjectKind::Schedule:
      if (!findSchedule(world, ref)) throw InvalidArgument("no schedule '" + ref.name + "'");
      world.removeSchedule(ref.name);
      return;
    case ObjectKind::Keyframe:
      if (!findKeyframe(world, ref)) throw InvalidArgument("no keyframe '" + ref.name + "'");
      world.removeKeyframe(ref.name);
      return;
    case ObjectKind::Frame:
      world.remove(requireFrame(world, ref));
      return;
    default:
      break;
  }
  throw InvalidArgument(std::string("the ") + kindName(ref.kind) + " cannot be removed");
}

namespace {

// A copy of a whole multibody (its root link's subtree) next to the original.
Multibody copyMultibody(World& world, const Multibody& mb, const Vector3d& shift) {
  const auto root = mb.getRootLink();
  if (!root) throw TopologyError("multibody " + quoted(mb.name()) + " has no root link to copy");
  const JointSpec spec = root->getParentJoint().getSpec();
  const std::string name = uniqueName(mb.name(), [&](const std::string& s) { return worldNameTaken(world, s); });
  Multibody copy = root->copyAsMultibody(name, spec);
  copy.setSelfCollision(mb.getSelfCollision());
  // The root joint's parent is the world, so moving its parent offset moves
  // the whole copy by `shift` (the joint keeps its coordinates).
  Joint copyRoot = copy.getRootLink()->getParentJoint();
  JointSpec shifted = copyRoot.getSpec();
  shifted.parentOffset.pretranslate(shift);
  copyRoot.setSpec(shifted);
  return copy;
}

}  // namespace

ObjectRef duplicate(World& world, const ObjectRef& ref, const Vector3d& shift) {
  switch (ref.kind) {
    case ObjectKind::RigidBody: {
      const RigidBody body = requireRigidBody(world, ref);
      RigidBodyOptions options;
      options.inertia = body.getInertia();
      options.pose = body.getPose();
      options.pose.pretranslate(shift);
      options.linearVelocity = body.getLinearVelocityWorld();
      options.angularVelocity = body.getAngularVelocityWorld();
      const std::string name = uniqueName(body.name(), [&](const std::string& s) { return worldNameTaken(world, s); });
      const RigidBody copy = world.addRigidBody(name, options);
      for (const Shape& shape : shapesOf(world, body)) {
        ShapeCopy c = captureShape(shape);
        c.owner = copy;
        setCopyName(c, uniqueName(shape.name(), [&](const std::string& s) { return shapeNameTaken(world, s); }));
        addShape(world, c);
      }
      return refOf(copy);
    }
    case ObjectKind::Multibody:
      return refOf(copyMultibody(world, requireMultibody(world, ref), shift));
    case ObjectKind::Link:
    case ObjectKind::Joint: {
      const Link link =
          ref.kind == ObjectKind::Link ? requireLink(world, ref) : requireJoint(world, ref).getChildLink();
      const auto parent = link.getParentLink();
      Link copy;
      if (parent) {
        copy = link.copyTo(*parent);
      } else {
        copy = *copyMultibody(world, link.getMultibody(), shift).getRootLink();
      }
      return ref.kind == ObjectKind::Link ? refOf(copy) : refOf(copy.getParentJoint());
    }
    case ObjectKind::Shape: {
      const Shape shape = requireShape(world, ref);
      ShapeCopy c = captureShape(shape);
      setCopyName(c, uniqueName(shape.name(), [&](const std::string& s) { return shapeNameTaken(world, s); }));
      return refOf(addShape(world, c));
    }
    case ObjectKind::Frame: {
      const Frame frame = requireFrame(world, ref);
      const std::string name = uniqueName(frame.name(), [&](const std::string& s) { return worldNameTaken(world, s); });
      if (frame.kind() == FrameKind::FreeFrame) {
        const FreeFrame original = *world.getFreeFrame(frame.name());
        FreeFrame copy = world.addFreeFrame(name, frame.getParentFrame(), original.getRelativeTransform());
        copy.setRelativeSpatialVelocity(original.getRelativeSpatialVelocity());
        copy.setRelativeSpatialAcceleration(original.getRelativeSpatialAcceleration());
        return refOfFrame(copy);
      }
      const FixedFrame original = *world.getFixedFrame(frame.name());
      return refOfFrame(world.addFixedFrame(name, frame.getParentFrame(), original.getRelativeTransform()));
    }
    default:
      break;
  }
  throw InvalidArgument(std::string("a ") + kindName(ref.kind) + " cannot be duplicated");
}

std::vector<ObjectRef> insertWorld(World& world, const World& from, const Isometry3d& X) {
  std::vector<ObjectRef> created;
  // Names of `from` → names in `world`, for the references of closures and couplers.
  std::map<std::string, std::string> renamed;
  const auto copyShapes = [&](const Frame& source, const Frame& owner) {
    for (const Shape& shape : shapesOf(from, source)) {
      ShapeCopy c = captureShape(shape);
      c.owner = owner;
      setCopyName(c, uniqueName(shape.name(), [&](const std::string& n) { return shapeNameTaken(world, n); }));
      addShape(world, c);
    }
  };
  for (const RigidBody& body : from.getRigidBodies()) {
    RigidBodyOptions options;
    options.inertia = body.getInertia();
    options.pose = X * body.getPose();
    options.linearVelocity = X.linear() * body.getLinearVelocityWorld();
    options.angularVelocity = X.linear() * body.getAngularVelocityWorld();
    const std::string name = uniqueName(body.name(), [&](const std::string& n) { return worldNameTaken(world, n); });
    renamed[body.name()] = name;
    const RigidBody copy = world.addRigidBody(name, options);
    copyShapes(body, copy);
    created.push_back(refOf(copy));
  }
  for (const Multibody& mb : from.getMultibodies()) {
    const auto root = mb.getRootLink();
    if (!root) continue;
    const std::string name = uniqueName(mb.name(), [&](const std::string& n) { return worldNameTaken(world, n); });
    renamed[mb.name()] = name;
    Multibody copy = world.addMultibody(name);
    copy.setSelfCollision(mb.getSelfCollision());
    // Parents before children: the links in depth-first order from the root.
    std::vector<Link> order{*root};
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::vector<Link> children = order[i].getChildLinks();
      order.insert(order.end(), children.begin(), children.end());
    }
    for (const Link& link : order) {
      LinkOptions options;
      options.name = splitPath(link.name()).second;  // a link's name is "multibody/link"
      options.inertia = link.getInertia();
      JointSpec joint = link.getParentJoint().getSpec();
      Link made;
      if (const auto parent = link.getParentLink()) {
        made = copy.addLink(options, *copy.getLink(splitPath(parent->name()).second), joint);
      } else {
        joint.parentOffset = X * joint.parentOffset;
        made = copy.addLink(options, joint);
      }
      copyShapes(link, made);
    }
    copy.setPositions(mb.getPositions());
    copy.setVelocities(mb.getVelocities());
    created.push_back(refOf(copy));
  }
  // "body" or "multibody/link" of `from` as named in `world`.
  const auto renamedPath = [&](const std::string& path) {
    const auto [head, tail] = splitPath(path);
    const std::string& first = head.empty() ? tail : head;
    const auto it = renamed.find(first);
    const std::string mapped = it == renamed.end() ? first : it->second;
    return head.empty() ? mapped : mapped + "/" + tail;
  };
  // A frame of `from` as the frame of the same name in `world`.
  const auto mapFrame = [&](const Frame& frame) {
    ObjectRef ref = refOfFrame(frame);
    if (ref.kind != ObjectKind::World) ref.name = renamedPath(ref.name);
    const std::optional<Frame> mapped = findFrame(world, ref);
    if (!mapped) throw TopologyError("frame '" + ref.name + "' of the inserted model has no copy");
    return *mapped;
  };
  for (const LoopClosure& closure : from.getLoopClosures()) {
    LoopClosureSpec spec = closure.getSpec();
    spec.frameA = mapFrame(spec.frameA);
    spec.frameB = mapFrame(spec.frameB);
    const std::string name =
        uniqueName(closure.name(), [&](const std::string& n) { return world.getLoopClosure(n).has_value(); });
    LoopClosure copy = world.addLoopClosure(name, spec);
    copy.setRuntimePolicy(closure.getRuntimePolicy());
    copy.setEnabled(closure.isEnabled());
  }
  const auto mapJoint = [&](const Joint& joint) {
    ObjectRef ref = refOf(joint);
    ref.name = renamedPath(ref.name);
    return requireJoint(world, ref);
  };
  for (const JointCoupler& coupler : from.getJointCouplers()) {
    JointCouplerSpec spec = coupler.getSpec();
    spec.leader = mapJoint(spec.leader);
    spec.follower = mapJoint(spec.follower);
    const std::string name =
        uniqueName(coupler.name(), [&](const std::string& n) { return world.getJointCoupler(n).has_value(); });
    JointCoupler copy = world.addJointCoupler(name, spec);
    copy.setRuntimePolicy(coupler.getRuntimePolicy());
    copy.setEnabled(coupler.isEnabled());
  }
  return created;
}

Eigen::AlignedBox3d worldBounds(const Shape& shape) {
  Eigen::AlignedBox3d box;
  const Geometry& g = shape.getGeometry();
  const Isometry3d X = shape.getWorldTransform();
  Vector3d half = Vector3d::Zero();
  switch (g.type) {
    case GeometryType::Plane:
      return box;
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh:
      for (const Vector3d& v : g.vertices) box.extend(X * v);
      return box;
    case GeometryType::Box:
      half = 0.5 * g.size;
      break;
    case GeometryType::Ellipsoid:
      half = g.size;
      break;
    case GeometryType::Sphere:
      half = Vector3d::Constant(g.radius);
      break;
    case GeometryType::Cylinder:
      half = Vector3d(g.radius, g.radius, 0.5 * g.length);
      break;
    case GeometryType::Capsule:
      half = Vector3d(g.radius, g.radius, 0.5 * g.length + g.radius);
      break;
  }
  // The rotated box's extent along each world axis: |R|·half.
  const Vector3d extent = X.linear().cwiseAbs() * half;
  box.extend(X.translation() - extent);
  box.extend(X.translation() + extent);
  return box;
}

Vector3d freeSpot(const World& world, const Vector3d& half, const Vector3d& preferred, double clearance) {
  std::vector<Eigen::AlignedBox3d> occupied;
  const auto addBounds = [&](const Frame& owner) {
    Eigen::AlignedBox3d b;
    for (const Shape& s : shapesOf(world, owner)) b.extend(worldBounds(s));
    if (!b.isEmpty()) occupied.push_back(b);
  };
  for (const RigidBody& body : world.getRigidBodies()) addBounds(body);
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) addBounds(link);
  }
  const Vector3d grown = half + Vector3d::Constant(clearance);
  const auto isFree = [&](const Vector3d& c) {
    const Eigen::AlignedBox3d candidate(c - grown, c + grown);
    return std::none_of(occupied.begin(), occupied.end(),
                        [&](const Eigen::AlignedBox3d& b) { return b.intersects(candidate); });
  };
  if (isFree(preferred)) return preferred;
  // Rings of candidates around the preferred spot, one box width apart,
  // nearest first; a ring of radius r holds about 2πr/step spots.
  const double step = 2.0 * std::max(grown.x(), grown.y());
  for (int ring = 1; ring <= 64; ++ring) {
    const double r = ring * step;
    const int spots = std::max(8, static_cast<int>(std::ceil(2.0 * std::numbers::pi * r / step)));
    for (int k = 0; k < spots; ++k) {
      const double angle = 2.0 * std::numbers::pi * k / spots;
      const Vector3d c = preferred + Vector3d(r * std::cos(angle), r * std::sin(angle), 0.0);
      if (isFree(c)) return c;
    }
  }
  return preferred;
}

ObjectRef reparent(World& world, const ObjectRef& link, const ObjectRef& newParentLink) {
  Link child = requireLink(world, link);
  const Link parent = requireLink(world, newParentLink);
  const Multibody from = child.getMultibody();
  const bool wasRoot = !child.getParentLink().has_value();
  child.moveTo(parent);
  // Moving a root link leaves its multibody empty.
  if (wasRoot && from.isValid() && from.numLinks() == 0) world.remove(from);
  return refOf(child);
}

void changeJointType(World& world, const ObjectRef& jointRef, JointType type) {
  Joint joint = requireJoint(world, jointRef);
  if (numDofs(type) != 1) {
    for (const JointCoupler& c : world.getJointCouplers()) {
      const JointCouplerSpec spec = c.getSpec();
      if (spec.leader == joint || spec.follower == joint) {
        throw TopologyError("joint " + quoted(jointRef.name) + " is coupled by " + quoted(c.name()) +
                            ", which needs a joint with one degree of freedom; a " + std::string(toString(type)) +
                            " joint has " + std::to_string(numDofs(type)));
      }
    }
  }
  const JointSpec old = joint.getSpec();
  JointSpec spec = old;
  spec.type = type;
  // Per-DoF values are in the units of the old coordinates (rad, m): they
  // go with any change of type.
  if (type != old.type) {
    spec.positionLowerLimits.resize(0);
    spec.positionUpperLimits.resize(0);
    spec.velocityLimits.resize(0);
    spec.effortLimits.resize(0);
    spec.restPositions.resize(0);
    spec.springStiffness.resize(0);
    spec.damping.resize(0);
    spec.armature.resize(0);
    spec.coulombFriction.resize(0);
  }
  if (!jointTypeInfo(type).vectorPositions()) {
    // Their configuration is not a vector: no springs, no position limits.
    spec.restPositions.resize(0);
    spec.springStiffness.resize(0);
    spec.positionLowerLimits.resize(0);
    spec.positionUpperLimits.resize(0);
  }
  if (jointTypeInfo(type).numAxes == 2 && spec.axis.cross(spec.axis2).norm() < 1e-6) {
    // The kept first axis needs a second one that is not parallel to it.
    spec.axis2 = spec.axis.unitOrthogonal();
  }
  if (type == JointType::Planar && std::abs(spec.axis.normalized().dot(spec.axis2.normalized())) > 1e-9) {
    const Vector3d a = spec.axis.normalized();
    spec.axis2 = (spec.axis2 - a.dot(spec.axis2) * a).normalized();
  }
  joint.setSpec(spec);
}

ObjectRef rename(World& world, const ObjectRef& ref, const std::string& newName) {
  if (!exists(world, ref) || ref.kind == ObjectKind::World) {
    if (ref.kind == ObjectKind::World) throw TopologyError("the world cannot be renamed");
    throwMissing(ref);
  }
  if (newName.empty()) {
    throw TopologyError(std::string("the ") + kindName(ref.kind) + " " + quoted(ref.name) +
                        " needs a name; an empty name is not allowed");
  }
  if (newName.find('/') != std::string::npos) {
    throw TopologyError("name " + quoted(newName) + " must not contain '/'");
  }
  if (newName == leafOf(ref)) return ref;
  if (nameTaken(world, ref, newName)) {
    throw TopologyError("cannot rename " + std::string(kindName(ref.kind)) + " " + quoted(ref.name) + " to " +
                        quoted(newName) + ": the name is already taken");
  }

  switch (ref.kind) {
    case ObjectKind::RigidBody:
      requireRigidBody(world, ref).setName(newName);
      break;
    case ObjectKind::Multibody:
      requireMultibody(world, ref).setName(newName);
      break;
    case ObjectKind::Link:
      requireLink(world, ref).setName(newName);
      break;
    case ObjectKind::Joint:
      requireJoint(world, ref).setName(newName);
      break;
    case ObjectKind::Shape:
      requireShape(world, ref).setName(newName);
      break;
    case ObjectKind::LoopClosure:
      requireLoopClosure(world, ref).setName(newName);
      break;
    case ObjectKind::Coupler:
      requireCoupler(world, ref).setName(newName);
      break;
    case ObjectKind::Actuator: {
      auto a = findActuator(world, ref);
      if (!a) throw InvalidArgument("no actuator '" + ref.name + "'");
      a->setName(newName);
      break;
    }
    default:
      requireFrame(world, ref).setName(newName);
      break;
  }
  return renamedRef(ref, newName);
}

// ---- in-place replacements ------------------------------------------------------------------

void setShapeGeometry(World& world, const ObjectRef& shapeRef, const Geometry& geometry) {
  requireShape(world, shapeRef).setGeometry(geometry);
}

void setLoopClosureGeometry(World& world, const ObjectRef& closureRef, LoopClosureFamily family,
                            const Isometry3d& offsetA, const Isometry3d& offsetB, double length) {
  LoopClosure closure = requireLoopClosure(world, closureRef);
  LoopClosureSpec spec = closure.getSpec();
  spec.family = family;
  spec.offsetA = offsetA;
  spec.offsetB = offsetB;
  spec.length = family == LoopClosureFamily::Distance ? length : 0.0;
  closure.setSpec(spec);
}

void setCouplerRatio(World& world, const ObjectRef& couplerRef, double ratio, double offset) {
  JointCoupler coupler = requireCoupler(world, couplerRef);
  JointCouplerSpec spec = coupler.getSpec();
  spec.ratio = ratio;
  spec.offset = offset;
  coupler.setSpec(spec);
  satisfyCoupler(coupler);
}

}  // namespace articula::studio::ops

#include "object_ref.hpp"

namespace articula::studio {

const char* kindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::None:
      return "nothing";
    case ObjectKind::World:
      return "world";
    case ObjectKind::RigidBody:
      return "rigid body";
    case ObjectKind::Multibody:
      return "multibody";
    case ObjectKind::Link:
      return "link";
    case ObjectKind::Joint:
      return "joint";
    case ObjectKind::Shape:
      return "shape";
    case ObjectKind::LoopClosure:
      return "loop closure";
    case ObjectKind::Coupler:
      return "coupler";
    case ObjectKind::Actuator:
      return "actuator";
    case ObjectKind::Schedule:
      return "schedule";
    case ObjectKind::Keyframe:
      return "keyframe";
    case ObjectKind::Frame:
      return "frame";
    case ObjectKind::Group:
      return "group";
  }
  return "object";
}

std::pair<std::string, std::string> splitPath(const std::string& path) {
  const auto slash = path.find('/');
  if (slash == std::string::npos) return {std::string(), path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

ObjectRef refOf(const RigidBody& body) {
  return {ObjectKind::RigidBody, body.name()};
}
ObjectRef refOf(const Multibody& multibody) {
  return {ObjectKind::Multibody, multibody.name()};
}
// Frame::name of a link is already "multibody/link".
ObjectRef refOf(const Link& link) {
  return {ObjectKind::Link, link.name()};
}
ObjectRef refOf(const Joint& joint) {
  return {ObjectKind::Joint, joint.getMultibody().name() + "/" + joint.name()};
}
ObjectRef refOf(const Shape& shape) {
  return {ObjectKind::Shape, shape.name()};
}
ObjectRef refOf(const LoopClosure& closure) {
  return {ObjectKind::LoopClosure, closure.name()};
}
ObjectRef refOf(const Actuator& actuator) {
  return {ObjectKind::Actuator, actuator.name()};
}

ObjectRef refOf(const JointCoupler& coupler) {
  return {ObjectKind::Coupler, coupler.name()};
}

ObjectRef refOfFrame(const Frame& frame) {
  switch (frame.kind()) {
    case FrameKind::World:
      return {ObjectKind::World, "world"};
    case FrameKind::Link:
      return {ObjectKind::Link, frame.name()};  // Frame::name of a link is "multibody/link"
    case FrameKind::RigidBody:
      return {ObjectKind::RigidBody, frame.name()};
    case FrameKind::FreeFrame:
    case FrameKind::FixedFrame:
      return {ObjectKind::Frame, frame.name()};
    case FrameKind::None:
      break;
  }
  return {};
}

std::optional<RigidBody> findRigidBody(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::RigidBody) return std::nullopt;
  return world.getRigidBody(ref.name);
}

std::optional<Multibody> findMultibody(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Multibody) return std::nullopt;
  return world.getMultibody(ref.name);
}

std::optional<Link> findLink(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Link) return std::nullopt;
  const auto [mb, link] = splitPath(ref.name);
  const std::optional<Multibody> m = world.getMultibody(mb);
  if (!m) return std::nullopt;
  return m->getLink(link);
}

std::optional<Joint> findJoint(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Joint) return std::nullopt;
  const auto [mb, joint] = splitPath(ref.name);
  const std::optional<Multibody> m = world.getMultibody(mb);
  if (!m) return std::nullopt;
  return m->getJoint(joint);
}

std::optional<Shape> findShape(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Shape) return std::nullopt;
  return world.getShape(ref.name);
}

std::optional<LoopClosure> findLoopClosure(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::LoopClosure) return std::nullopt;
  return world.getLoopClosure(ref.name);
}

std::optional<Actuator> findActuator(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Actuator) return std::nullopt;
  return world.getActuator(ref.name);
}

std::optional<ScheduleSpec> findSchedule(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Schedule) return std::nullopt;
  for (const ScheduleSpec& s : world.getSchedules())
    if (s.name == ref.name) return s;
  return std::nullopt;
}

std::optional<KeyframeSpec> findKeyframe(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Keyframe) return std::nullopt;
  return world.getKeyframe(ref.name);
}

std::optional<JointCoupler> findCoupler(const World& world, const ObjectRef& ref) {
  if (ref.kind != ObjectKind::Coupler) return std::nullopt;
  return world.getJointCoupler(ref.name);
}

std::optional<articula::Frame> findFrame(const World& world, const ObjectRef& ref) {
  switch (ref.kind) {
    case ObjectKind::World:
      return articula::Frame::World();
    case ObjectKind::RigidBody:
      if (auto b = findRigidBody(world, ref)) return articula::Frame(*b);
      return std::nullopt;
    case ObjectKind::Link:
      if (auto l = findLink(world, ref)) return articula::Frame(*l);
      return std::nullopt;
    case ObjectKind::Joint:
      if (auto j = findJoint(world, ref)) return articula::Frame(j->getChildLink());
      return std::nullopt;
    case ObjectKind::Frame: {
      if (auto f = world.getFreeFrame(ref.name)) return articula::Frame(*f);
      if (auto f = world.getFixedFrame(ref.name)) return articula::Frame(*f);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

bool exists(const World& world, const ObjectRef& ref) {
  switch (ref.kind) {
    case ObjectKind::World:
      return true;
    case ObjectKind::RigidBody:
      return findRigidBody(world, ref).has_value();
    case ObjectKind::Multibody:
      return findMultibody(world, ref).has_value();
    case ObjectKind::Link:
      return findLink(world, ref).has_value();
    case ObjectKind::Joint:
      return findJoint(world, ref).has_value();
    case ObjectKind::Shape:
      return findShape(world, ref).has_value();
    case ObjectKind::LoopClosure:
      return findLoopClosure(world, ref).has_value();
    case ObjectKind::Coupler:
      return findCoupler(world, ref).has_value();
    case ObjectKind::Actuator:
      return findActuator(world, ref).has_value();
    case ObjectKind::Schedule:
      return findSchedule(world, ref).has_value();
    case ObjectKind::Keyframe:
      return findKeyframe(world, ref).has_value();
    case ObjectKind::Frame:
      return findFrame(world, ref).has_value();
    case ObjectKind::None:
    case ObjectKind::Group:
      return false;
  }
  return false;
}

ObjectRef movingBodyOf(const World& world, const ObjectRef& ref) {
  switch (ref.kind) {
    case ObjectKind::RigidBody:
    case ObjectKind::Link:
      return exists(world, ref) ? ref : ObjectRef{};
    case ObjectKind::Joint:
      if (auto j = findJoint(world, ref)) return refOf(j->getChildLink());
      return {};
    case ObjectKind::Multibody:
      if (auto m = findMultibody(world, ref)) {
        if (auto root = m->getRootLink()) return refOf(*root);
      }
      return {};
    case ObjectKind::Shape:
      if (auto s = findShape(world, ref)) {
        const articula::Frame owner = s->getOwner();
        if (owner.kind() == FrameKind::Link || owner.kind() == FrameKind::RigidBody) return refOfFrame(owner);
      }
      return {};
    default:
      return {};
  }
}

}  // namespace articula::studio

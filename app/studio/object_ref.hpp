#pragma once
/// @file
/// ObjectRef: names an object of the design by kind and name, so that a
/// reference survives the World being rebuilt (undo, redo, reload), which
/// invalidates every handle. Plain C++: no Qt.

#include <articula/world.hpp>

#include <optional>
#include <string>
#include <vector>

namespace articula::studio {

enum class ObjectKind {
  None,
  World,        ///< the world: options, static shapes (name "world")
  RigidBody,    ///< name: the body's
  Multibody,    ///< name: the multibody's
  Link,         ///< name: "multibody/link" (what Frame::name() gives a link)
  Joint,        ///< name: "multibody/joint" (the parent joint of a link)
  Shape,        ///< name: the shape's (unique in the world)
  LoopClosure,  ///< name: the closure's
  Coupler,      ///< name: the joint coupler's
  Actuator,     ///< name: the actuator's
  Schedule,     ///< name: the schedule's
  Keyframe,     ///< name: the keyframe's
  Frame,        ///< name: the user frame's
  Group,        ///< a heading of the scene tree ("Loop closures", ...): not an object
};

struct ObjectRef {
  ObjectKind kind = ObjectKind::None;
  std::string name;

  bool isNone() const { return kind == ObjectKind::None; }
  friend bool operator==(const ObjectRef& a, const ObjectRef& b) { return a.kind == b.kind && a.name == b.name; }
  friend bool operator!=(const ObjectRef& a, const ObjectRef& b) { return !(a == b); }
  friend bool operator<(const ObjectRef& a, const ObjectRef& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.name < b.name;
  }
};

/// "rigid body", "link", ... (for messages and menus).
const char* kindName(ObjectKind kind);

/// References to live handles (they hold names, not handles).
ObjectRef refOf(const RigidBody& body);
ObjectRef refOf(const Multibody& multibody);
ObjectRef refOf(const Link& link);
ObjectRef refOf(const Joint& joint);
ObjectRef refOf(const Shape& shape);
ObjectRef refOf(const LoopClosure& closure);
ObjectRef refOf(const JointCoupler& coupler);
ObjectRef refOf(const Actuator& actuator);
/// A frame: a link, rigid body, user frame or the world.
ObjectRef refOfFrame(const Frame& frame);

/// Handles for a reference in `world`; nullopt when it names nothing there
/// (or the wrong kind).
std::optional<RigidBody> findRigidBody(const World& world, const ObjectRef& ref);
std::optional<Multibody> findMultibody(const World& world, const ObjectRef& ref);
std::optional<Link> findLink(const World& world, const ObjectRef& ref);
std::optional<Joint> findJoint(const World& world, const ObjectRef& ref);
std::optional<Shape> findShape(const World& world, const ObjectRef& ref);
std::optional<LoopClosure> findLoopClosure(const World& world, const ObjectRef& ref);
std::optional<JointCoupler> findCoupler(const World& world, const ObjectRef& ref);
std::optional<Actuator> findActuator(const World& world, const ObjectRef& ref);
std::optional<ScheduleSpec> findSchedule(const World& world, const ObjectRef& ref);
std::optional<KeyframeSpec> findKeyframe(const World& world, const ObjectRef& ref);
/// The frame of a World, RigidBody, Link (a Joint gives its child link) or
/// Frame reference.
std::optional<articula::Frame> findFrame(const World& world, const ObjectRef& ref);
/// Whether the reference names an object that exists in `world` (World
/// always does; Group and None never).
bool exists(const World& world, const ObjectRef& ref);

/// The body (link or rigid body) a shape, joint or link reference moves
/// with, as a reference; None for the world and static shapes.
ObjectRef movingBodyOf(const World& world, const ObjectRef& ref);

/// Splits "a/b" into {"a", "b"}; no slash gives {"", name}.
std::pair<std::string, std::string> splitPath(const std::string& path);

}  // namespace articula::studio

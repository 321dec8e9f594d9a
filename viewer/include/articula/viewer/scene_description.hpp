#pragma once
/// @file
/// What the viewer draws, as plain data: the visual and collision shapes of
/// a world with stable ids, the bodies they move with, the joints and loop
/// closures the debug layers mark. Built from the world by the thread that
/// owns it (describeScene), then handed to the viewer; the viewer never
/// reads the World itself. No OpenSceneGraph here.

#include <articula/frame.hpp>
#include <articula/loop_closure.hpp>
#include <articula/multibody.hpp>
#include <articula/sensor.hpp>
#include <articula/shape.hpp>
#include <articula/types.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace articula {
class World;
}

namespace articula::viewer {

/// Stable id of a shape or body: the handle's kind, slot index and
/// generation packed into 64 bits. An id is never reused for a different
/// object of the same world (a removed object's slot gets a new generation).
using ObjectId = std::uint64_t;

/// The world frame as a body id (static shapes belong to it).
inline constexpr ObjectId kWorldBodyId = 0;

enum class BodyKind : std::uint8_t { World, Link, RigidBody };

/// A body shapes move with.
struct BodyDescription {
  ObjectId id = kWorldBodyId;
  BodyKind kind = BodyKind::World;
  std::string name;                      ///< "multibody/link", the rigid body's name, or "world"
  Vector3d localCom = Vector3d::Zero();  ///< centre of mass in the body frame (m)
  double mass = 0.0;
  /// The body's handle, for the thread that owns the world (the snapshot
  /// maker reads poses through it); the viewer never uses it.
  Frame frame;
};

/// A drawable shape.
struct ShapeDescription {
  ObjectId id = 0;
  std::string name;
  bool collision = false;  ///< a collision shape (drawn by the collision layer) or a visual shape
  std::uint32_t body = 0;  ///< index into SceneDescription::bodies
  Isometry3d localPose = Isometry3d::Identity();  ///< shape frame in the body frame
  Geometry geometry;
  /// RGBA: the visual shape's colour; for a collision shape a colour of
  /// its body (from a palette), used when it stands in for missing visuals.
  Vector4d color{0.7, 0.7, 0.7, 1.0};
  /// A collision shape of a body that has no visual shape: the visual
  /// layer draws it too, so that every body is seen.
  bool standIn = false;
  /// Hash of geometry and colour: equal hashes mean the drawable can be
  /// kept. The local pose is not part of it (a moved shape keeps its
  /// drawable, only its transform changes).
  std::uint64_t contentHash = 0;
};

/// A joint, for the joint-axis layer.
struct JointDescription {
  ObjectId id = 0;
  std::string name;             ///< "multibody/joint"
  std::uint32_t childBody = 0;  ///< index into bodies
  /// Joint frame in the child body frame, and the first axis in the joint
  /// frame (zero for joints without an axis: weld, ball, free, ...).
  Isometry3d childOffset = Isometry3d::Identity();
  Vector3d axis = Vector3d::Zero();
  bool prismatic = false;
  int positionOffset = -1;  ///< index of the joint's first coordinate in the world's q (-1: none)
  int velocityOffset = -1;
  int numPositions = 0;
  int numDofs = 0;
  Joint joint;  ///< handle, for the thread that owns the world only
};

/// A sensor, for plots.
struct SensorDescription {
  std::string name;
  std::vector<std::string> valueNames;
  int offset = 0;  ///< of its first value in RenderSnapshot::sensorValues
  Sensor sensor;   ///< handle, for the thread that owns the world only
};

/// A loop closure, for the closure layer.
struct ClosureDescription {
  ObjectId id = 0;
  std::string name;
  double tolerance = 1e-10;  ///< residual norm below which it is drawn as closed
  LoopClosure closure;       ///< handle, for the thread that owns the world only
};

/// Everything the viewer draws from one version of the design.
struct SceneDescription {
  /// Increases whenever describeScene sees a different design; snapshots
  /// name the version they were made for.
  std::uint64_t version = 0;
  std::vector<BodyDescription> bodies;  ///< bodies[0] is the world
  std::vector<ShapeDescription> shapes;
  std::vector<JointDescription> joints;
  std::vector<ClosureDescription> closures;
  std::vector<SensorDescription> sensors;
  int numSensorValues = 0;
  int numPositions = 0;
  int numDofs = 0;
  /// Names of the world's coordinates (as in the state space), for plots.
  std::vector<std::string> positionNames;
  std::vector<std::string> velocityNames;

  /// Index of the shape or body with this id, or -1.
  int findShape(ObjectId id) const;
  int findBody(ObjectId id) const;
};

/// Reads the design of `world` (its shapes, bodies, joints and closures).
/// `version` is stored as is. Call on the thread that owns the world.
SceneDescription describeScene(const World& world, std::uint64_t version = 1);

/// The palette colour describeScene gives collision shapes of a body.
Vector4d bodyPaletteColor(ObjectId body);

/// Hash of a geometry and colour (ShapeDescription::contentHash).
std::uint64_t shapeContentHash(const Geometry& geometry, const Vector4d& color);

/// Id of a shape or body handle.
ObjectId shapeId(const Shape& shape);
ObjectId bodyId(const Frame& body);

}  // namespace articula::viewer

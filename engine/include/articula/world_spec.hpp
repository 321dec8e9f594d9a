#pragma once
/// @file
/// WorldSpec: an editable description of a whole world, made of plain,
/// copyable values. Objects are named, not indexed: a frame is referred to
/// as "world", a rigid body's name, a user frame's name, or
/// "multibody/link"; a joint as "multibody/joint".
///
///   WorldSpec spec = world.getSpec();   // any world, built any way
///   spec.multibodies[0].links[1].joint.damping = VectorXd::Constant(1, 0.5);
///   world.applySpec(spec);              // design mode: one recompile
///   World copy(spec);                   // steps bit for bit like `world`
///
/// Order is meaningful and kept: it decides the packing of the state
/// vector (rigid bodies, then multibodies, each in list order; links of a
/// multibody in tree order) and the order in which shapes are handed to
/// collision detection, so a world rebuilt from its spec steps bit for bit
/// like the original.

#include <articula/actuator.hpp>
#include <articula/joint_spec.hpp>
#include <articula/keyframe.hpp>
#include <articula/loop_closure.hpp>
#include <articula/options.hpp>
#include <articula/sensor.hpp>
#include <articula/shape.hpp>
#include <articula/types.hpp>
#include <articula/viewpoint.hpp>

#include <Eigen/Geometry>

#include <string>
#include <vector>

namespace articula {

/// A collision or visual shape and the frame it is attached to.
struct ShapeSpec {
  std::string name;                          ///< unique in the world
  std::string owner = "world";               ///< "world", a rigid body, or "multibody/link"
  bool collision = true;                     ///< false: a visual shape (drawn, never collides)
  Geometry geometry;                         ///< shape geometry
  Isometry3d pose = Isometry3d::Identity();  ///< shape frame in the owner frame
  Material material;                         ///< collision shapes
  bool collidable = true;                    ///< collision shapes: false keeps the shape out of contact generation
  Vector4d color{0.7, 0.7, 0.7, 1.0};        ///< visual shapes: RGBA in [0, 1]
};

/// A free-floating rigid body. Its state is stored as the coordinates of
/// its free joint (docs/conventions.md), so that it reads back exactly.
struct RigidBodySpec {
  std::string name;
  Inertia inertia;
  Vector3d position = Vector3d::Zero();                             ///< origin of the body in the world (m)
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();  ///< R_WB
  Vector6d velocity = Vector6d::Zero();  ///< body twist [ω_B; v_B] in body coordinates (free-joint convention)
  Vector6d force = Vector6d::Zero();     ///< applied generalized force [torque; force], body coordinates

  /// X_WB.
  Isometry3d pose() const;
  void setPose(const Isometry3d& X_WB);
  /// Sets `velocity` from world-frame angular and linear (body origin) velocities.
  void setVelocityWorld(const Vector3d& linear, const Vector3d& angular);
};

/// A link and its parent joint.
struct LinkSpec {
  std::string name;    ///< unique in the multibody
  std::string parent;  ///< parent link name; empty for the root (its joint connects it to the world)
  Inertia inertia;
  JointSpec joint;  ///< the parent joint (name unique in the multibody)
  /// Initial joint coordinates, velocities and applied forces (the joint's
  /// segments, docs/conventions.md); empty = neutral configuration, zero.
  VectorXd q, v, tau;
};

/// A tree of links. Links are listed parents before children; siblings
/// keep their order.
struct MultibodySpec {
  std::string name;
  bool selfCollision = false;
  std::vector<LinkSpec> links;
};

/// A user frame. Parents are listed before their children.
struct FrameSpec {
  std::string name;
  bool isFree = true;  ///< free (settable motion) or fixed to its parent
  std::string parent = "world";
  Isometry3d pose = Isometry3d::Identity();  ///< X_PF
  Vector6d velocity = Vector6d::Zero();      ///< free frames: twist relative to the parent, own coordinates
  Vector6d acceleration = Vector6d::Zero();  ///< free frames: its derivative
};

/// A loop closure between two named frames, with its runtime policy.
struct ClosureSpec {
  std::string name;
  std::string frameA, frameB;  ///< frame names (see the file comment)
  LoopClosureFamily family = LoopClosureFamily::Rigid;
  Isometry3d offsetA = Isometry3d::Identity();
  Isometry3d offsetB = Isometry3d::Identity();
  double length = 0.0;  ///< Distance family only (m), > 0
  LoopClosureRuntimePolicy policy;
};

/// A joint coupler q_follower = ratio·q_leader + offset between named joints.
struct CouplerSpec {
  std::string name;
  std::string leader, follower;  ///< "multibody/joint"
  double ratio = 1.0;
  double offset = 0.0;
  LoopClosureRuntimePolicy policy;
};

/// An explicit collision setting between two bodies (frame names; "world"
/// for static shapes).
struct CollisionSettingSpec {
  std::string a, b;
  bool enabled = true;
};

/// The whole world.
struct WorldSpec {
  WorldOptions options;
  std::vector<RigidBodySpec> rigidBodies;
  std::vector<MultibodySpec> multibodies;
  std::vector<FrameSpec> frames;
  std::vector<ShapeSpec> shapes;  ///< in creation order (world, body and link shapes together)
  std::vector<ClosureSpec> loopClosures;
  std::vector<CouplerSpec> jointCouplers;
  std::vector<CollisionSettingSpec> collisionSettings;
  std::vector<ActuatorSpec> actuators;    ///< in control order (articula/actuator.hpp)
  std::vector<ScheduleSpec> schedules;    ///< evaluated in this order before every step
  std::vector<KeyframeSpec> keyframes;    ///< named poses (articula/keyframe.hpp)
  std::vector<SensorSpec> sensors;        ///< in creation order (articula/sensor.hpp)
  std::vector<ViewpointSpec> viewpoints;  ///< saved camera views (articula/viewpoint.hpp)
  /// Names of rigid bodies and multibodies in the order their coordinates
  /// are packed in the state vector. Empty: rigid bodies first, then
  /// multibodies. Objects not listed follow the listed ones in that order.
  std::vector<std::string> ownerOrder;

  /// Lookups by name; nullptr when absent. Pointers are invalidated by
  /// adding to the list they point into.
  RigidBodySpec* findRigidBody(const std::string& name);
  MultibodySpec* findMultibody(const std::string& name);
  LinkSpec* findLink(const std::string& multibody, const std::string& link);
  FrameSpec* findFrame(const std::string& name);
  ShapeSpec* findShape(const std::string& name);
  ClosureSpec* findLoopClosure(const std::string& name);
  CouplerSpec* findJointCoupler(const std::string& name);
  ActuatorSpec* findActuator(const std::string& name);
  ScheduleSpec* findSchedule(const std::string& name);
  KeyframeSpec* findKeyframe(const std::string& name);
  SensorSpec* findSensor(const std::string& name);

  /// Appends every object of `other` (options and viewpoints are kept: the
  /// viewpoints are this scene's). Names must not
  /// clash; World(spec) reports a clash.
  void append(const WorldSpec& other);
};

/// Exact equality of two specs (every value, name and order), e.g. to tell
/// whether an edit changed anything.
bool operator==(const WorldSpec& a, const WorldSpec& b);
inline bool operator!=(const WorldSpec& a, const WorldSpec& b) {
  return !(a == b);
}

/// How World::applySpec treats the state of objects that exist before and after.
enum class SpecStatePolicy {
  KeepByName,  ///< rigid bodies and joints whose name (and joint type) persist keep the world's current q, v, τ
  FromSpec,    ///< every coordinate is taken from the spec
};

}  // namespace articula

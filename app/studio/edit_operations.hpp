#pragma once
/// @file
/// The design edits of the studio as plain functions over a World in design
/// mode (no Qt): each is what one editor command does. Document::edit()
/// wraps a call in an undoable step. Every function either completes or
/// throws (articula::Error and subclasses, with a message naming the
/// objects); a throwing function may leave the world partly changed, and
/// Document::edit() then puts the design back. Objects are named by
/// ObjectRef (object_ref.hpp), and the refs returned name what was created.

#include "object_ref.hpp"

#include <articula/world.hpp>

#include <Eigen/Geometry>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace articula::studio::ops {

/// What the "create" commands give a new body: one primitive shape, used
/// both as collision shape and visual shape, and a density for its inertia.
struct BodyShape {
  Geometry geometry = Geometry::box(Vector3d(0.2, 0.2, 0.2));
  Vector4d color{0.7, 0.7, 0.7, 1.0};
  double density = 1000.0;  ///< kg/m³
};

/// A name not yet taken by `taken(name)`: `base`, else `base_1`, `base_2`, ...
std::string uniqueName(const std::string& base, const std::function<bool(const std::string&)>& taken);

/// Mass properties of a primitive of uniform `density` (box, sphere,
/// capsule, cylinder, ellipsoid), in the shape frame. @throws
/// InvalidArgument for planes and meshes.
Inertia primitiveInertia(const Geometry& geometry, double density);

/// Mass properties of the body `body` (rigid body or link) filled with
/// `density`: the sum of its collision shapes (its visual shapes when it
/// has none), each moved to the body frame (parallel-axis theorem). Mesh
/// shapes are skipped and listed in `skipped` (names). @throws
/// InvalidArgument when no primitive shape is left.
Inertia inertiaFromShapes(const World& world, const ObjectRef& body, double density,
                          std::vector<std::string>* skipped = nullptr);

/// A rigid body at `pose` with `shape` as its collision and visual shape
/// and the shape's inertia. An empty name becomes "body", "body_1", ...
ObjectRef createRigidBody(World& world, const std::string& name, const BodyShape& shape, const Isometry3d& pose);

/// A multibody with one root link carrying `shape`, attached to the world
/// by `rootJoint` at `pose`. Returns the root link.
ObjectRef createMultibody(World& world, const std::string& name, JointType rootJoint, const BodyShape& shape,
                          const Isometry3d& pose);

/// A link under `parentLink` (a Link reference) joined by a joint of
/// `type` (axis z, no limits) whose frame sits at `parentOffset` in the
/// parent link. The link carries `shape` and its inertia. Returns the link.
ObjectRef addLink(World& world, const ObjectRef& parentLink, const std::string& name, JointType type,
                  const Isometry3d& parentOffset, const BodyShape& shape);

/// A loop closure of `family` between two frames (links, rigid bodies,
/// user frames, the world), satisfied where the frames are now: endpoint B
/// is frame B's origin and endpoint A is the same world pose expressed in
/// frame A (Distance: the current distance between the origins, which must
/// be positive).
ObjectRef addLoopClosure(World& world, const std::string& name, const ObjectRef& frameA, const ObjectRef& frameB,
                         LoopClosureFamily family);

/// An actuator of `type` on a joint's first DoF (a position servo becomes a
/// velocity servo on a ball or free joint), gravity-compensated when a
/// servo, with default gains and a unique name.
ObjectRef addActuator(World& world, const ObjectRef& joint, ActuatorType type);
/// A sine schedule (0.2 around the current control, 0.5 Hz) on an actuator,
/// with a unique name.
ObjectRef addSchedule(World& world, const ObjectRef& actuator);
/// Replaces an actuator's parameters (everything but its name).
void setActuatorSpec(World& world, const ObjectRef& actuator, const ActuatorSpec& spec);

/// A coupler follower = ratio·leader + offset between two 1-DoF joints.
ObjectRef addCoupler(World& world, const std::string& name, const ObjectRef& leader, const ObjectRef& follower,
                     double ratio, double offset);

/// A user frame (free or fixed) at `pose` in `parent`.
ObjectRef addUserFrame(World& world, const std::string& name, const ObjectRef& parent, const Isometry3d& pose,
                       bool fixed);

/// Removes any object (a link takes its subtree; a body its shapes and the
/// closures attached to it). The world itself cannot be removed.
void remove(World& world, const ObjectRef& ref);

/// Copies an object next to the original: a rigid body (shapes included,
/// moved by `shift` in the world), a link subtree (under the same parent),
/// a multibody, a shape (same owner), a user frame. Returns the copy.
ObjectRef duplicate(World& world, const ObjectRef& ref, const Vector3d& shift = Vector3d(0.25, 0.0, 0.0));

/// Copies the bodies of `from` into `world` (Insert Model): its rigid
/// bodies and multibodies (links, joints, coordinates, velocities, shapes)
/// moved by `X` (applied in the world: the root joints' parent offsets and
/// the rigid bodies' poses), then its loop closures and joint couplers.
/// Shapes owned by the world of `from` (its ground) are left out, as are
/// user frames and collision settings. Names taken in `world` get a
/// numeric suffix. Returns the multibodies and rigid bodies created.
std::vector<ObjectRef> insertWorld(World& world, const World& from, const Isometry3d& X);

/// World-space bounding box of a shape's geometry at its current pose
/// (planes: empty; meshes: their vertices).
Eigen::AlignedBox3d worldBounds(const Shape& shape);

/// Where a new body whose collision box has half extents `half` goes: at
/// `preferred` when that box, grown by `clearance` (m), overlaps the
/// bounds of no body (rigid body or link) of `world`; else the nearest
/// free spot on rings around `preferred` at the same height (steps of
/// the box's width). Returns the centre chosen (m, world).
Vector3d freeSpot(const World& world, const Vector3d& half, const Vector3d& preferred, double clearance = 0.05);

/// Moves a link's subtree under another link (possibly of another
/// multibody), keeping its joint.
ObjectRef reparent(World& world, const ObjectRef& link, const ObjectRef& newParentLink);

/// Gives a joint another type, keeping its name, offsets and (for types
/// with one axis) its axis; limits and other per-DoF values (in the units
/// of the old coordinates) are dropped.
void changeJointType(World& world, const ObjectRef& joint, JointType type);

/// Renames an object (rigid body, multibody, link, joint, shape, loop
/// closure, coupler, user frame) and every reference to it in the design.
/// @throws TopologyError for a taken or empty name.
ObjectRef rename(World& world, const ObjectRef& ref, const std::string& newName);

/// Replaces a shape's geometry, keeping its name, owner, pose and material
/// or colour.
void setShapeGeometry(World& world, const ObjectRef& shape, const Geometry& geometry);

/// Replaces a loop closure's family, endpoints' offsets and length, keeping
/// its name, frames and runtime policy.
void setLoopClosureGeometry(World& world, const ObjectRef& closure, LoopClosureFamily family, const Isometry3d& offsetA,
                            const Isometry3d& offsetB, double length);

/// Replaces a coupler's ratio and offset, keeping its name, joints and policy.
void setCouplerRatio(World& world, const ObjectRef& coupler, double ratio, double offset);

}  // namespace articula::studio::ops

#pragma once
// Pieces shared by the URDF, SDF and MJCF writers: numbers that read back
// exactly, roll-pitch-yaw angles, mesh references, and the exported link
// frames (a link's frame is placed at its parent joint, export.hpp).

#include <articula/io/export.hpp>

#include <articula/world_spec.hpp>

#include <string>

namespace articula::io::detail {

/// The shortest text that parses back to the same double.
std::string exportNumber(double x);
/// "x y z" of a vector's entries.
std::string exportNumbers(const Vector3d& v);
std::string exportNumbers(const VectorXd& v);

/// Roll, pitch, yaw (rotation about fixed X, then Y, then Z: R = Rz·Ry·Rx),
/// the URDF and SDF convention; poseFromXyzRpy() inverts it.
Vector3d rollPitchYaw(const Matrix3d& R);

/// The mesh file of a geometry as the exported file refers to it: relative
/// to options.meshBase when given, absolute otherwise (forward slashes).
std::string meshReference(const Geometry& geometry, const ExportOptions& options);

/// The joint frame of a link in its link frame (the link's childOffset):
/// the exported link frame. Content in the link frame maps to the exported
/// frame by exportedFromLink(link) * X_L.
Isometry3d exportedFromLink(const LinkSpec& link);
/// The exported joint origin: the pose of the link's exported frame in its
/// parent's exported frame at zero joint position (for the root: in the
/// world), i.e. childOffset(parent)⁻¹ · parentOffset.
Isometry3d exportedJointOrigin(const MultibodySpec& multibody, const LinkSpec& link);

/// What a frame name of the spec ("world", a rigid body, a user frame,
/// "multibody/link") is attached to in the exported files.
struct ExportedFrame {
  enum class Kind { World, RigidBody, Link, None } kind = Kind::None;
  const MultibodySpec* multibody = nullptr;  ///< Link
  const LinkSpec* link = nullptr;            ///< Link
  const RigidBodySpec* rigidBody = nullptr;  ///< RigidBody
  /// The frame's pose in the exported frame of what it is attached to (for
  /// a user frame: composed through its fixed parents).
  Isometry3d pose = Isometry3d::Identity();
  /// The body's name in the exported file ("world", the rigid body, the link).
  std::string bodyName;
};
/// Resolves `name` (user frames through their parents; a free user frame,
/// which moves on its own, resolves to Kind::None).
ExportedFrame resolveExportFrame(const WorldSpec& spec, const std::string& name);

/// The multibody and link spec of "multibody/joint" (the link whose parent
/// joint it is), or nulls.
std::pair<const MultibodySpec*, const LinkSpec*> findJointOwner(const WorldSpec& spec, const std::string& joint);

/// 'name', as the report quotes names.
std::string inQuotes(const std::string& name);
/// v[i], or `fallback` where v has no entry i (per-DoF vectors may be empty).
double perDof(const VectorXd& v, int i, double fallback);
/// Whether v has a finite entry.
bool anyFinite(const VectorXd& v);
/// Exactly the identity.
bool isIdentity(const Isometry3d& X);
/// The neutral coordinates of a joint type (identity quaternions [x y z w], zeros).
VectorXd neutralPositions(JointType type);
/// X_J(q) of a free joint, q = [p, quaternion xyzw]; the identity for another size.
Isometry3d freeJointPose(const VectorXd& q);

/// Adds an entry to the report.
void notExported(ExportReport& report, std::string object, std::string message);
void converted(ExportReport& report, std::string object, std::string message);

}  // namespace articula::io::detail

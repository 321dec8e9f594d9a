#pragma once
/// @file
/// Closed kinematic chains and joint couplings on top of the tree.
///
/// A LoopClosure ties two frames together with a residual r(q) = 0; the
/// tree (multibodies, links, joints) keeps its generalized coordinates and
/// DoF counts, and closures add constraint rows on top. A JointCoupler ties
/// the coordinates of two 1-DoF joints: q_follower = ratio · q_leader + offset.
///
/// Topology (the endpoints, the family, the offsets, the coupled joints)
/// is design-mode data. The runtime policy (enabled, projection, dynamic
/// solve, stabilization, tolerances) may change at any time and takes
/// effect at the next step, sync or projection.
///
/// Residual definitions (docs/loop-closures.md). Let A = X_W,frameA · offsetA
/// and B = X_W,frameB · offsetB be the two endpoint frames in the world,
/// with origins p_A, p_B and axes x_A, y_A, z_A, x_B, y_B, z_B. All vectors
/// are in world coordinates; rows are ordered [angular; linear]:
///   Rigid     (6)  [θ; p_B − p_A], θ = R_A · log(R_Aᵀ R_B) (rad, the rotation vector taking A to B)
///   Point     (3)  p_B − p_A (m)
///   Hinge     (5)  [x_A·z_B; y_A·z_B; p_B − p_A]      rotation about the common z axis is free
///   Slider    (5)  [θ; x_A·(p_B − p_A); y_A·(p_B − p_A)]  translation along z_A is free
///   Universal (4)  [x_A·y_B; p_B − p_A]                rotation about x_A and y_B is free
///   Distance  (1)  |p_B − p_A| − length (m)
/// The dot-product rows are dimensionless (cosines of the angle between
/// axes that should be perpendicular).

#include <articula/frame.hpp>
#include <articula/multibody.hpp>
#include <articula/rigid_body.hpp>
#include <articula/types.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace articula {

class World;

/// What a loop closure constrains (see the file comment for the residuals).
enum class LoopClosureFamily : std::uint8_t {
  Rigid,      ///< weld: 6 rows
  Point,      ///< ball: 3 rows
  Hinge,      ///< revolute about the common z axis: 5 rows
  Slider,     ///< prismatic along z of endpoint A: 5 rows
  Universal,  ///< Hooke joint about x of A and y of B: 4 rows
  Distance,   ///< fixed distance between the origins: 1 row
};

/// Number of residual rows of a family.
int numResidualRows(LoopClosureFamily family);
/// Lower-case name ("rigid", "point", "hinge", "slider", "universal", "distance").
std::string_view toString(LoopClosureFamily family);
/// Inverse of toString; nullopt for an unknown name.
std::optional<LoopClosureFamily> loopClosureFamilyFromString(std::string_view name);

/// Topology of a loop closure. The endpoints are symmetric: neither is a
/// parent of the other. Any frames of one world may be used (the world
/// frame, links, rigid bodies, user frames), as long as they are on
/// different bodies and not both fixed to the world.
struct LoopClosureSpec {
  Frame frameA;  ///< first endpoint frame
  Frame frameB;  ///< second endpoint frame
  LoopClosureFamily family = LoopClosureFamily::Rigid;
  Isometry3d offsetA = Isometry3d::Identity();  ///< endpoint A in frameA
  Isometry3d offsetB = Isometry3d::Identity();  ///< endpoint B in frameB
  double length = 0.0;                          ///< Distance family only: target distance (m), > 0
};

/// Kinematic participation.
enum class ClosureKinematicsPolicy : std::uint8_t {
  ResidualOnly,  ///< residuals are reported; positions are never moved for this closure
  Project,       ///< World::projectClosures and sync(Kinematics) move tree coordinates to satisfy it
};

/// Dynamic participation.
enum class ClosureDynamicsPolicy : std::uint8_t {
  Off,    ///< no constraint force
  Solve,  ///< bilateral rows in the step's constraint solve
};

/// How the position error of the solved rows is fed back.
enum class ClosureStabilization : std::uint8_t {
  Baumgarte,   ///< hard rows with the velocity target −errorReduction·r/h
  Compliance,  ///< soft rows: a spring `stiffness` and damper `damping` per row, integrated implicitly
};

/// Runtime policy of a loop closure or joint coupler; separate from topology.
struct LoopClosureRuntimePolicy {
  bool enabled = true;  ///< false: the closure contributes nothing (no rows, no projection)
  ClosureKinematicsPolicy kinematics = ClosureKinematicsPolicy::Project;
  ClosureDynamicsPolicy dynamics = ClosureDynamicsPolicy::Solve;
  ClosureStabilization stabilization = ClosureStabilization::Baumgarte;
  double errorReduction = 0.2;  ///< Baumgarte: fraction of the residual removed per step, in [0, 1]
  double stiffness = 1e6;       ///< Compliance: per row (N/m, N·m/rad or N/rad for coordinates), > 0
  double damping = 1e3;         ///< Compliance: per row (N·s/m, ...), ≥ 0
  /// After each step, project positions back onto the closure (only with
  /// kinematics = Project). Removes the drift that velocity-level rows leave.
  bool projectAfterStep = true;
  double tolerance = 1e-10;  ///< residual norm below which projection stops (m / rad / dimensionless)
  int maxIterations = 50;    ///< projection iterations, ≥ 1
};

/// A closure's residual and, after a step that solved it, its force.
///
/// The wrench is what the closure applies to the body of frameB (the
/// opposite acts on frameA's body), as [torque about the origin of
/// endpoint A; force], in the coordinates of endpoint A (frameA · offsetA).
struct LoopClosureResidual {
  VectorXd residual;  ///< numResidualRows(family) values, as defined for the family
  double norm = 0.0;  ///< Euclidean norm of `residual`
  bool enabled = false;
  /// Takes part in some stage: enabled, and projected or solved.
  bool active = false;
  /// The last step solved this closure's rows; `impulse` and `wrench` are valid.
  bool forceAvailable = false;
  Vector6d impulse = Vector6d::Zero();  ///< over the last step (N·m·s; N·s)
  Vector6d wrench = Vector6d::Zero();   ///< impulse / time step (N·m; N)
};

/// Handle to a loop closure (world-owned).
class LoopClosure {
 public:
  LoopClosure() = default;
  bool isValid() const;
  std::string name() const;
  /// Renames the closure (design mode).
  void setName(const std::string& name);
  LoopClosureFamily family() const;
  int numRows() const;
  /// The topology as given (with the frames as handles).
  LoopClosureSpec getSpec() const;
  /// Replaces endpoints, family, offsets and length (design mode), checked as
  /// World::addLoopClosure checks them; the handle stays valid. On failure
  /// the closure is unchanged.
  void setSpec(const LoopClosureSpec& spec);
  LoopClosureRuntimePolicy getRuntimePolicy() const;
  /// @throws InvalidArgument for an out-of-range field.
  void setRuntimePolicy(const LoopClosureRuntimePolicy& policy);
  void setEnabled(bool enabled);
  bool isEnabled() const;
  /// Residual at the current positions (fresh), and the last step's force.
  LoopClosureResidual computeResidual() const;
  /// computeResidual().norm without allocating (observers of a step use this).
  double computeResidualNorm() const;
  /// World poses of endpoint A and B.
  Isometry3d getEndpointA() const;
  Isometry3d getEndpointB() const;

  friend bool operator==(const LoopClosure& a, const LoopClosure& b) {
    return a.m_world == b.m_world && a.m_index == b.m_index && a.m_generation == b.m_generation;
  }
  std::uint32_t index() const { return m_index; }

 private:
  LoopClosure(World* w, std::uint32_t i, std::uint32_t g) : m_world(w), m_index(i), m_generation(g) {}
  World* m_world = nullptr;
  std::uint32_t m_index = 0;
  std::uint32_t m_generation = 0;
  friend class World;
};

/// Topology of a joint coupler: q_follower = ratio · q_leader + offset.
/// Both joints have exactly one DoF (revolute, prismatic or screw) and may
/// belong to the same or different multibodies.
struct JointCouplerSpec {
  Joint leader;
  Joint follower;
  double ratio = 1.0;   ///< finite, nonzero (a gear ratio, or a mimic multiplier)
  double offset = 0.0;  ///< rad or m
};

/// A coupler's residual q_f − ratio·q_l − offset and its last impulse.
struct JointCouplerResidual {
  double residual = 0.0;  ///< rad or m
  bool enabled = false;
  bool active = false;
  bool forceAvailable = false;
  double impulse = 0.0;  ///< generalized impulse on the follower over the last step (N·m·s or N·s)
  double force = 0.0;    ///< impulse / time step
};

/// Handle to a joint coupler (world-owned). Its runtime policy uses the
/// same fields as a loop closure's.
class JointCoupler {
 public:
  JointCoupler() = default;
  bool isValid() const;
  std::string name() const;
  /// Renames the coupler (design mode).
  void setName(const std::string& name);
  JointCouplerSpec getSpec() const;
  /// Replaces leader, follower, ratio and offset (design mode), checked as
  /// World::addJointCoupler checks them; the handle stays valid. On failure
  /// the coupler is unchanged.
  void setSpec(const JointCouplerSpec& spec);
  LoopClosureRuntimePolicy getRuntimePolicy() const;
  void setRuntimePolicy(const LoopClosureRuntimePolicy& policy);
  void setEnabled(bool enabled);
  bool isEnabled() const;
  JointCouplerResidual computeResidual() const;

  friend bool operator==(const JointCoupler& a, const JointCoupler& b) {
    return a.m_world == b.m_world && a.m_index == b.m_index && a.m_generation == b.m_generation;
  }
  std::uint32_t index() const { return m_index; }

 private:
  JointCoupler(World* w, std::uint32_t i, std::uint32_t g) : m_world(w), m_index(i), m_generation(g) {}
  World* m_world = nullptr;
  std::uint32_t m_index = 0;
  std::uint32_t m_generation = 0;
  friend class World;
};

/// Options of World::projectClosures.
struct ClosureProjectionOptions {
  /// Joints whose coordinates stay where they are (e.g. the crank while the loop follows).
  std::vector<Joint> lockedJoints;
  /// Rigid bodies whose pose stays where it is.
  std::vector<RigidBody> lockedRigidBodies;
  double tolerance = 1e-10;   ///< stop when the stacked residual norm is below
  int maxIterations = 100;    ///< Levenberg–Marquardt iterations, ≥ 1
  bool respectLimits = true;  ///< keep joint coordinates within their position limits
  /// Also remove the velocity components that violate the constraints
  /// (minimal change), so that J·v = 0 afterwards.
  bool projectVelocities = true;
};

/// Outcome of World::projectClosures.
struct ClosureProjectionResult {
  bool success = false;          ///< final residual ≤ tolerance
  int iterations = 0;            ///< Levenberg–Marquardt iterations taken
  int rows = 0;                  ///< residual rows included
  double initialResidual = 0.0;  ///< stacked residual norm before
  double finalResidual = 0.0;    ///< ... and after
  std::string message;           ///< why it failed (empty on success)
};

}  // namespace articula

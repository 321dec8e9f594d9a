#pragma once
/// @file
/// Inverse kinematics over a World: tasks with weights and strict
/// priorities, loop closures and couplers kept exactly, joint limits never
/// crossed.
///
/// An InverseKinematics problem belongs to one World. Its tasks are
///   - frame tasks: the pose, position or orientation of a point/frame
///     attached to any link, rigid body or user frame (with an offset),
///     towards a target given in any frame (a target frame that moves with
///     the robot makes the task relative: a hand held in front of the torso);
///   - centre-of-mass tasks: of one multibody or of the whole world;
///   - posture tasks: targets for chosen coordinates (a regulariser).
///
/// Every task has a priority (0 is the highest) and a weight (within its
/// priority). Levels are solved in order, each in the null space of the
/// levels above it: a lower level never changes a higher level's
/// linearised residual (strict null-space projection; see docs/ik.md).
/// Above every task level sit the equalities of the World: enabled loop
/// closures and joint couplers. Joint position limits hold at every
/// iterate: a coordinate whose step would cross its limit is fixed at the
/// limit and the levels are solved again without it (an active set), so
/// the solver never clamps after the fact. Locked joints do not move.
///
/// Each iteration is a damped least-squares (Levenberg–Marquardt) step per
/// level, with damping that grows near singular configurations and when a
/// step fails to improve the highest unsatisfied level. Ball and free
/// joints are updated on their Lie groups (q ⊕ Δ). Optional restarts from
/// random in-limit configurations (a fixed seed: reproducible) rescue
/// solves caught in a local minimum.
///
/// Once set up, a solve does not allocate; changing the task list or the
/// World's topology sets it up again on the next solve.

#include <articula/frame.hpp>
#include <articula/multibody.hpp>
#include <articula/types.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace articula {

class World;

enum class IkTaskKind : std::uint8_t {
  Pose,          ///< position and orientation (6 rows)
  Position,      ///< position of a point (3 rows)
  Orientation,   ///< orientation (3 rows)
  CenterOfMass,  ///< centre of mass of a multibody or of the world (3 rows)
  Posture,       ///< targets for chosen coordinates (one row per DoF)
};

/// "pose", "position", "orientation", "com", "posture".
const char* toString(IkTaskKind kind);

/// Options of a task.
struct IkTaskOptions {
  std::string name;                            ///< for results and messages; a default is made from the frame
  int priority = 1;                            ///< 0 is the highest; posture tasks default to 2 (see addPostureTask)
  double weight = 1.0;                         ///< within the priority; > 0
  Isometry3d offset = Isometry3d::Identity();  ///< the task point/frame in the task frame (frame tasks)
  Frame targetFrame = Frame::World();          ///< frame the target is given in (frame tasks)
  double positionWeight = 1.0;                 ///< Pose tasks: relative weight of the 3 position rows (m)
  double orientationWeight = 1.0;              ///< Pose tasks: relative weight of the 3 orientation rows (rad)
};

/// Solver settings.
struct IkOptions {
  int maxIterations = 100;              ///< per attempt
  double positionTolerance = 1e-10;     ///< m: a task's position error that counts as reached
  double orientationTolerance = 1e-10;  ///< rad
  double constraintTolerance = 1e-10;   ///< closure and coupler residual that counts as kept
  double maxStep = 0.5;                 ///< largest change of one coordinate per iteration (rad or m)
  double damping = 1e-12;           ///< smallest Levenberg–Marquardt damping λ² (relative to the Jacobian's scale)
  double singularDamping = 1e-2;    ///< extra damping λ_max near singular directions (bounded by the residual)
  double singularThreshold = 1e-2;  ///< smallest singular value below which that damping sets in
  int maxRestarts = 0;              ///< attempts from random in-limit configurations after a failure
  /// Once every task is reached, up to this many more iterations move the
  /// posture tasks towards their targets while every task stays reached
  /// (0: the solve stops as soon as the tasks are reached). Posing by hand
  /// wants a few: the rest of the robot returns towards its posture.
  int postureIterations = 0;
  std::uint64_t seed = 1;  ///< of the restart configurations
};

/// The residual of one task after a solve.
struct IkTaskResult {
  std::string name;
  IkTaskKind kind = IkTaskKind::Pose;
  int priority = 0;
  double position = 0.0;     ///< m: position error (Pose, Position, CenterOfMass)
  double orientation = 0.0;  ///< rad: angle of the orientation error (Pose, Orientation)
  double norm = 0.0;         ///< Posture: norm of the coordinate errors
  bool reached = false;      ///< within the tolerances (posture tasks: always true)
};

/// What a solve did.
struct IkResult {
  bool converged = false;           ///< every non-posture task reached and every constraint kept
  int iterations = 0;               ///< over all attempts
  int restarts = 0;                 ///< attempts after the first
  double constraintResidual = 0.0;  ///< largest closure/coupler residual at the solution
  std::vector<IkTaskResult> tasks;  ///< in task order
  std::string message;              ///< why it stopped when not converged
};

class InverseKinematics {
 public:
  explicit InverseKinematics(World& world, const IkOptions& options = {});
  ~InverseKinematics();
  InverseKinematics(InverseKinematics&&) noexcept;
  InverseKinematics& operator=(InverseKinematics&&) noexcept;
  InverseKinematics(const InverseKinematics&) = delete;
  InverseKinematics& operator=(const InverseKinematics&) = delete;

  const IkOptions& getOptions() const;
  /// @throws InvalidArgument for a non-positive tolerance, step or iteration count.
  void setOptions(const IkOptions& options);

  /// Tasks return an id (stable until removed). `frame` is a link, rigid
  /// body or user frame of the World; targets are given in
  /// options.targetFrame. @throws InvalidHandle, TopologyError, InvalidArgument.
  int addPoseTask(const Frame& frame, const Isometry3d& target, const IkTaskOptions& options = {});
  int addPositionTask(const Frame& frame, const Vector3d& target, const IkTaskOptions& options = {});
  int addOrientationTask(const Frame& frame, const Matrix3d& target, const IkTaskOptions& options = {});
  /// Centre of mass of `multibody`, or of every body of the World when nullopt.
  int addCenterOfMassTask(const Vector3d& target, std::optional<Multibody> multibody = std::nullopt,
                          const IkTaskOptions& options = {});
  /// Targets for the DoFs of vector joints (revolute, prismatic, ...; nq = nv):
  /// `target` has one entry per position coordinate of the World (nq); only
  /// coordinates in `dofs` (velocity indices; empty: every DoF of a vector
  /// joint) are regularised. Default priority: 2 unless options say otherwise.
  int addPostureTask(const VectorXd& target, const std::vector<int>& dofs = {}, IkTaskOptions options = {});
  /// Holds `frame` at its current pose: a Pose task of priority 0.
  int pin(const Frame& frame, const std::string& name = {});

  /// A frame task's target (Position and Orientation tasks use its parts).
  void setTarget(int task, const Isometry3d& target);
  void setTargetPosition(int task, const Vector3d& target);     ///< Pose, Position, CenterOfMass
  void setTargetOrientation(int task, const Matrix3d& target);  ///< Pose, Orientation
  void setPostureTarget(int task, const VectorXd& target);
  /// The task's target now (Pose form: translation and rotation as set).
  Isometry3d getTarget(int task) const;
  void setWeight(int task, double weight);
  void setPriority(int task, int priority);
  void setEnabled(int task, bool enabled);
  bool isEnabled(int task) const;
  void removeTask(int task);
  void clearTasks();
  std::vector<int> getTasks() const;  ///< ids in order
  IkTaskKind getKind(int task) const;
  std::string getName(int task) const;

  /// A locked joint keeps its coordinates.
  void setLocked(const Joint& joint, bool locked = true);
  bool isLocked(const Joint& joint) const;

  /// Solves from the World's positions and writes the solution to them
  /// (design mode, or between steps in simulation mode). The result is
  /// valid until the next solve.
  const IkResult& solve();
  /// Solves from `q0` (nq) and returns the solution in `q` without touching
  /// the World (no allocation once set up and `q` is sized).
  const IkResult& solve(const VectorXd& q0, VectorXd& q);

  World& world() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace articula

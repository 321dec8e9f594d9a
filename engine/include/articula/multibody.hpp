#pragma once
/// @file
/// Multibody (a tree of links), Link and Joint handles.
///
/// Every link has exactly one parent joint; a multibody has one root link
/// whose joint connects it to the world (Free for a floating base, Weld for
/// a fixed base, or any other type). Generalized coordinates of a multibody
/// are the concatenation, in tree order (parents before children, then
/// creation order), of its joints' segments (docs/conventions.md).

#include <articula/frame.hpp>
#include <articula/joint_spec.hpp>
#include <articula/options.hpp>
#include <articula/shape.hpp>

#include <optional>
#include <string>
#include <vector>

namespace articula {

namespace detail {
struct Access;
}

class Link;
class Joint;

/// Handle to a tree of links and joints.
class Multibody {
 public:
  Multibody() = default;
  bool isValid() const;
  std::string name() const;
  /// Renames the multibody (design mode); see Frame::setName.
  void setName(const std::string& name);
  articula::World* world() const { return m_world; }

  // ---- topology (design mode) -------------------------------------------
  /// Adds the root link, connected to the world by `rootJoint`.
  /// @throws TopologyError if a root exists or a name is taken.
  /// @throws LifecycleError in simulation mode.
  Link addLink(const LinkOptions& options, const JointSpec& rootJoint = JointSpec::free());
  /// Adds a link under `parent` (a link of this multibody) connected by `joint`.
  /// @throws TopologyError if parent belongs to another multibody or world, or a name is taken.
  Link addLink(const LinkOptions& options, const Link& parent, const JointSpec& joint);

  /// Whether links of this multibody that are not parent and child of one
  /// joint collide with each other (default false).
  void setSelfCollision(bool enabled);
  bool getSelfCollision() const;

  std::size_t numLinks() const;
  std::size_t numJoints() const { return numLinks(); }
  /// Degrees of freedom (velocity coordinates) of the tree.
  int numDofs() const;
  /// Position coordinates of the tree (differs from numDofs with ball/free joints).
  int numPositions() const;
  std::optional<Link> getRootLink() const;
  std::optional<Link> getLink(const std::string& name) const;
  bool hasLink(const std::string& name) const;
  std::optional<Joint> getJoint(const std::string& name) const;
  bool hasJoint(const std::string& name) const;
  /// Links in tree order (parents before children).
  std::vector<Link> getLinks() const;
  /// Joints in tree order (the parent joint of each link of getLinks()).
  std::vector<Joint> getJoints() const;

  // ---- state -------------------------------------------------------------
  VectorXd getPositions() const;
  void setPositions(const VectorXd& q);
  VectorXd getVelocities() const;
  void setVelocities(const VectorXd& v);
  /// Generalized accelerations of the last dynamics computation.
  VectorXd getAccelerations() const;
  void setAccelerations(const VectorXd& vdot);
  /// Applied generalized forces τ (persist until changed).
  VectorXd getForces() const;
  void setForces(const VectorXd& tau);

  // ---- dynamics (fresh for the current state) ------------------------------
  /// Joint-space mass matrix M(q) (armature included), nv×nv.
  MatrixXd getMassMatrix() const;
  MatrixXd getInverseMassMatrix() const;
  /// Coriolis and centrifugal forces C(q, v)·v.
  VectorXd getCoriolisForces() const;
  /// Gravity forces g(q) such that M v̇ + C v + g = τ.
  VectorXd getGravityForces() const;
  /// C(q, v)·v + g(q).
  VectorXd getCoriolisAndGravityForces() const;
  /// Generalized forces τ = M v̇ + C v + g − Σ Jᵀ f_ext that produce `vdot`
  /// (recursive Newton–Euler; external link wrenches included).
  VectorXd computeInverseDynamics(const VectorXd& vdot) const;
  /// Accelerations v̇ produced by `tau` and the current external wrenches
  /// (articulated-body algorithm). Does not change the state.
  VectorXd computeForwardDynamics(const VectorXd& tau) const;

  /// Total mass (kg).
  double getMass() const;
  /// Centre of mass in the world frame (m).
  Vector3d getCOM() const;
  Vector3d getCOMLinearVelocity() const;
  /// 3×nv Jacobian of the COM position, world coordinates.
  Matrix3Xd getCOMJacobian() const;
  /// ½ vᵀ M v (J).
  double computeKineticEnergy() const;
  /// Gravitational plus spring potential energy (J); zero height at the world origin.
  double computePotentialEnergy() const;
  /// Σ m v_com (world coordinates, kg·m/s).
  Vector3d getLinearMomentum() const;
  /// Angular momentum about the world point `point`, world coordinates (kg·m²/s).
  Vector3d getAngularMomentum(const Vector3d& point = Vector3d::Zero()) const;

  /// 6×nv Jacobian [angular; linear] of the point at `offset` (in the link
  /// frame) of `link`, whole-multibody form (zero columns for DoFs that do
  /// not move the link), rows expressed in `inCoordinatesOf`.
  Matrix6Xd getJacobian(const Link& link, const Vector3d& offset = Vector3d::Zero(),
                        const Frame& inCoordinatesOf = Frame::World()) const;
  /// Time derivative of getJacobian (coordinates of `inCoordinatesOf`
  /// held fixed in time for the world frame; for another frame the
  /// derivative is of the rotated matrix, d/dt(R_CW J)).
  Matrix6Xd getJacobianTimeDerivative(const Link& link, const Vector3d& offset = Vector3d::Zero(),
                                      const Frame& inCoordinatesOf = Frame::World()) const;

  friend bool operator==(const Multibody& a, const Multibody& b) {
    return a.m_world == b.m_world && a.m_index == b.m_index && a.m_generation == b.m_generation;
  }
  std::uint32_t index() const { return m_index; }
  std::uint32_t generation() const { return m_generation; }

 private:
  Multibody(articula::World* w, std::uint32_t i, std::uint32_t g) : m_world(w), m_index(i), m_generation(g) {}
  articula::World* m_world = nullptr;
  std::uint32_t m_index = 0;
  std::uint32_t m_generation = 0;
  friend class World;
  friend class Link;
  friend class Joint;
};

/// Handle to a link of a multibody. A Link is a Frame.
class Link : public Frame {
 public:
  Link() = default;
  Multibody getMultibody() const;
  /// The link's parent joint.
  Joint getParentJoint() const;
  /// Parent link, or nullopt for the root.
  std::optional<Link> getParentLink() const;
  std::vector<Link> getChildLinks() const;

  Inertia getInertia() const;
  /// Changes mass properties (allowed in both modes; topology is unchanged).
  void setInertia(const Inertia& inertia);

  /// Centre of mass in the world frame (m).
  Vector3d getCOM() const;

  /// Same as World::addCollisionShape / addVisualShape with this link as owner.
  Shape addCollisionShape(const CollisionShapeOptions& options);
  Shape addVisualShape(const VisualShapeOptions& options);
  std::vector<Shape> getCollisionShapes() const;
  std::vector<Shape> getVisualShapes() const;

  /// Adds a force (N) applied at `offset` for the next step. Forces are
  /// accumulated as a wrench about the link origin, in link coordinates,
  /// using the current pose, and cleared after every step().
  /// @param forceInWorld  `force` is in world coordinates (else link)
  /// @param offsetInWorld `offset` is a world point (else a link point)
  void addExternalForce(const Vector3d& force, const Vector3d& offset = Vector3d::Zero(), bool forceInWorld = true,
                        bool offsetInWorld = false);
  /// Adds a torque (N·m) for the next step.
  void addExternalTorque(const Vector3d& torque, bool inWorld = true);
  void clearExternalForces();
  /// Accumulated external wrench [torque; force] about the link origin, link coordinates.
  Vector6d getExternalWrench() const;

  /// Indices (in the multibody's velocity vector) of the DoFs that move this link, root first.
  std::vector<int> getDependentDofs() const;
  /// Whole-multibody Jacobian; see Multibody::getJacobian.
  Matrix6Xd getJacobian(const Vector3d& offset = Vector3d::Zero(), const Frame& inCoordinatesOf = Frame::World()) const;
  /// Link-chain form: only the columns of getDependentDofs().
  Matrix6Xd getChainJacobian(const Vector3d& offset = Vector3d::Zero(),
                             const Frame& inCoordinatesOf = Frame::World()) const;
  Matrix6Xd getJacobianTimeDerivative(const Vector3d& offset = Vector3d::Zero(),
                                      const Frame& inCoordinatesOf = Frame::World()) const;
  /// Rows [angular] / [linear] of getJacobian.
  Matrix3Xd getAngularJacobian(const Frame& inCoordinatesOf = Frame::World()) const;
  Matrix3Xd getLinearJacobian(const Vector3d& offset = Vector3d::Zero(),
                              const Frame& inCoordinatesOf = Frame::World()) const;

  // ---- skeleton editing (design mode) ------------------------------------
  /// Removes this link and its subtree. All their handles become invalid.
  void remove();
  /// Moves this link's subtree under `newParent` (possibly in another
  /// multibody), keeping the parent joint. Names that clash in the target
  /// multibody get a numeric suffix. Handles stay valid.
  void moveTo(const Link& newParent);
  /// As moveTo, replacing the parent joint by `joint`.
  void moveTo(const Link& newParent, const JointSpec& joint);
  /// Moves this subtree into a new multibody named `name`, connected to the
  /// world by `rootJoint`. For a Free root joint its coordinates are set so
  /// that the link keeps its world pose and velocity.
  Multibody split(const std::string& name, const JointSpec& rootJoint = JointSpec::free());
  /// Copies this subtree (with its joint coordinates) under `newParent`.
  /// Returns the copy of this link.
  Link copyTo(const Link& newParent) const;
  /// Copies this subtree into a new multibody; the copy of this link is its
  /// root, connected to the world by `rootJoint` (pose kept for Free).
  Multibody copyAsMultibody(const std::string& name, const JointSpec& rootJoint = JointSpec::free()) const;

 private:
  using Frame::Frame;
  friend class World;
  friend class Joint;
  friend class Multibody;
};

/// Handle to the parent joint of a link.
/// What a joint carried in the last step (Joint::getReaction), from the
/// step's own quantities: the motion it realised (its start state and
/// accelerations), gravity, applied wrenches, and the contact and loop
/// closure impulses it solved (divided by the time step).
///
/// `wrench` is the spatial force the parent applies to the child through
/// the joint, [torque; force] about the joint frame's origin. It splits
/// into `freeWrench`, its part along the joint's free directions (whose
/// generalized components are `total`), and `constraintWrench`, the part
/// the joint's structure carries (bearing loads; zero for a free joint).
/// `total` is the sum of the generalized forces acting on the joint's
/// coordinates, listed by cause below (each nv of the joint):
///   total = applied + actuator + spring + damper + friction + limit + coupler − armature·v̇.
/// Limit and friction impulses of the step are `limit`·h and `friction`·h.
struct JointReaction {
  double time = 0.0;  ///< start time of the step (s)
  Vector6d wrench = Vector6d::Zero();
  Vector6d freeWrench = Vector6d::Zero();
  Vector6d constraintWrench = Vector6d::Zero();
  VectorXd total;     ///< Sᵀ·wrench (N·m or N)
  VectorXd applied;   ///< applied generalized forces (Joint::setForces), after the effort limit
  VectorXd actuator;  ///< actuators on the joint (including lock rows)
  VectorXd spring;    ///< joint stiffness
  VectorXd damper;    ///< joint damping
  VectorXd friction;  ///< joint friction rows
  VectorXd limit;     ///< position- and velocity-limit rows
  VectorXd coupler;   ///< joint couplers leading or following this joint
  VectorXd inertia;   ///< −armature·v̇ (the rotor's share of the motor force)
};

class Joint {
 public:
  Joint() = default;
  bool isValid() const;
  std::string name() const;
  /// Renames the joint (design mode); unique in its multibody.
  void setName(const std::string& name);
  JointType type() const;
  int numDofs() const;
  int numPositions() const;
  /// The construction data (design values).
  JointSpec getSpec() const;
  /// Replaces the joint (type, axes, offsets, limits, ...); its coordinates
  /// are reset to the neutral configuration when the type changes.
  /// Design mode only.
  void setSpec(const JointSpec& spec);
  Link getChildLink() const;
  std::optional<Link> getParentLink() const;
  Multibody getMultibody() const;
  /// Offset of this joint's segment in the multibody's position/velocity vectors.
  int positionOffset() const;
  int velocityOffset() const;

  VectorXd getPositions() const;
  void setPositions(const VectorXd& q);
  double getPosition(int dof) const;
  void setPosition(int dof, double value);
  VectorXd getVelocities() const;
  void setVelocities(const VectorXd& v);
  double getVelocity(int dof) const;
  void setVelocity(int dof, double value);
  VectorXd getAccelerations() const;
  VectorXd getForces() const;
  void setForces(const VectorXd& tau);
  /// X_PC(q): child link pose in the parent frame.
  Isometry3d getRelativeTransform() const;
  /// What the joint carried in the last step (see JointReaction), with the
  /// wrenches in joint-frame coordinates, or in those of `coordinates`.
  /// Zeros (time NaN) before the first step after entering simulation mode.
  JointReaction getReaction() const;
  JointReaction getReaction(const Frame& coordinates) const;
  /// getReaction(coordinates).wrench without allocating (observers of a
  /// step use this); zero before the first step.
  Vector6d getReactionWrench(const Frame& coordinates) const;

  friend bool operator==(const Joint& a, const Joint& b) {
    return a.m_world == b.m_world && a.m_index == b.m_index && a.m_generation == b.m_generation;
  }

 private:
  Joint(articula::World* w, std::uint32_t i, std::uint32_t g) : m_world(w), m_index(i), m_generation(g) {}
  articula::World* m_world = nullptr;
  std::uint32_t m_index = 0;  // the child link's index
  std::uint32_t m_generation = 0;
  friend class World;
  friend struct detail::Access;
  friend class Link;
  friend class Multibody;
};

}  // namespace articula

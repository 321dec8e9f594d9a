// The engine-neutral scene description shared by the peer benchmark's
// backends, and the interface each backend (Articula, DART, MuJoCo, Bullet)
// implements. Every backend builds the same model from a Scene, so the
// coordinates of all engines line up and forward dynamics can be compared
// entry by entry.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bench {

enum class JointType {
  Revolute,   ///< 1 DoF about `axis`
  Prismatic,  ///< 1 DoF along `axis`
  Free,       ///< 6 DoF; only a tree's first body, attached to the world
};

enum class GeomType {
  Sphere,  ///< size.x() = radius
  Box,     ///< size = full side lengths
};

/// A collision geometry attached to a body.
struct Geom {
  GeomType type = GeomType::Box;
  Eigen::Vector3d size = Eigen::Vector3d::Zero();
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();  ///< in the body frame
};

/// One body of a tree and the joint to its parent. The body frame is the
/// joint frame (the URDF convention): at q = 0 it sits at `jointPose` in the
/// parent body's frame (the world's for the root). A revolute joint turns
/// the body frame about `axis`, a prismatic one moves it along `axis`, both
/// given in the body frame.
struct Body {
  std::string name;
  int parent = -1;  ///< index in Tree::bodies (always smaller than this body's); -1 = the world
  JointType joint = JointType::Revolute;
  Eigen::Isometry3d jointPose = Eigen::Isometry3d::Identity();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  ///< unit length
  double mass = 1.0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero();          ///< in the body frame
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Identity();  ///< about the COM, body axes
  std::vector<Geom> geoms;                                ///< collision geometry (may be empty)
};

/// A kinematic tree. Only bodies[0] may have a Free joint; every other
/// body is attached by a revolute or prismatic joint.
struct Tree {
  std::string name;
  std::vector<Body> bodies;
};

/// A loop closure: point `pointA` of body A and point `pointB` of body B
/// coincide (a ball joint: three constraint rows). treeB = -1 means the
/// world, and pointB is then a world point. In the scene's initial state the
/// two points coincide.
struct Closure {
  int treeA = 0;
  int bodyA = 0;
  Eigen::Vector3d pointA = Eigen::Vector3d::Zero();
  int treeB = -1;
  int bodyB = -1;
  Eigen::Vector3d pointB = Eigen::Vector3d::Zero();
};

/// Joint-space PD control of every 1-DoF joint, applied as generalized
/// forces before each step: τ = kp·(qref − q) − kd·v.
struct PdControl {
  Eigen::VectorXd qref;  ///< one entry per 1-DoF joint, in neutral order
  double kp = 0.0;
  double kd = 0.0;
};

enum class SceneKind {
  ContactFree,  ///< no ground, no collision, no limits; forward dynamics and energy are compared
  Contact,      ///< ground plane z = 0 and collisions between geoms of different bodies
  ClosedChain,  ///< closures, no ground, no collision
};

/// Coordinates in neutral order: trees in order, bodies in order.
///   - revolute/prismatic: 1 position (rad or m), 1 velocity;
///   - free: 7 positions: origin x, y, z, then the orientation quaternion
///     w, x, y, z (body to world); 6 velocities: the body origin's linear
///     velocity, then the angular velocity, both in world coordinates.
struct Scene {
  std::string name;
  SceneKind kind = SceneKind::ContactFree;
  double dt = 1e-3;  ///< s; every engine integrates with semi-implicit Euler
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};
  double friction = 0.8;  ///< Coulomb coefficient of every contact (restitution is 0)
  std::vector<Tree> trees;
  std::vector<Closure> closures;
  std::optional<PdControl> pd;
  Eigen::VectorXd q0;  ///< initial positions, neutral order
  Eigen::VectorXd v0;  ///< initial velocities, neutral order

  int numPositions() const;
  int numDofs() const;
  /// Number of 1-DoF joints (the entries of PdControl::qref).
  int numJointDofs() const;
};

/// What an engine's constraint solver reports about its last step.
struct SolveReport {
  double residual = 0.0;  ///< velocity error of the solve (m/s or rad/s; largest over rows)
  int iterations = 0;     ///< sweeps or Newton iterations (max over islands), or pivots (sum)
  bool converged = true;  ///< residual within the solver's convergence tolerance
  bool failed = false;    ///< the step was rejected (non-finite or diverged) and the previous state kept
};

/// One engine's running copy of a scene.
class Instance {
 public:
  virtual ~Instance() = default;
  /// One time step of Scene::dt, with the PD control if the scene has one.
  virtual void step() = 0;
  /// Current state in neutral order (sizes numPositions(), numDofs()).
  virtual void getState(Eigen::VectorXd& q, Eigen::VectorXd& v) const = 0;
  virtual void setState(const Eigen::VectorXd& q, const Eigen::VectorXd& v) = 0;
  /// Contact-free scenes: generalized accelerations v̇ at (q, v) under the
  /// generalized forces τ and gravity, with no constraints; also sets the
  /// state to (q, v).
  virtual Eigen::VectorXd forwardDynamics(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                          const Eigen::VectorXd& tau) = 0;
  /// Deepest penetration (m, ≥ 0) among the contacts the engine found in
  /// its last step; 0 without contacts.
  virtual double maxPenetration() const = 0;
  /// The constraint solve of the last step; empty for engines that do not
  /// report one (the peers).
  virtual std::optional<SolveReport> lastSolve() const { return std::nullopt; }
};

/// An engine able to run scenes.
class Backend {
 public:
  virtual ~Backend() = default;
  /// Engine name and version, e.g. "MuJoCo 2.2.2".
  virtual std::string name() const = 0;
  /// Short name for tables and JSON keys: "articula", "dart", "mujoco", "bullet".
  virtual std::string key() const = 0;
  /// Whether the engine can run `scene`; if not, `why` says what it lacks.
  virtual bool supports(const Scene& scene, std::string& why) const = 0;
  /// Builds the scene in its initial state. Throws std::runtime_error.
  virtual std::unique_ptr<Instance> create(const Scene& scene) const = 0;
};

/// Evaluates every engine's state with one set of formulas (Articula's):
/// the energy and closure error of a state in neutral coordinates.
class Meter {
 public:
  virtual ~Meter() = default;
  /// Kinetic plus gravitational potential energy (J).
  virtual double energy(const Eigen::VectorXd& q, const Eigen::VectorXd& v) = 0;
  /// Largest distance between the two points of a Closure (m); 0 without closures.
  virtual double closureError(const Eigen::VectorXd& q) = 0;
};

/// Articula with its default settings, or with peer-like ones: at most 10
/// projected Gauss–Seidel sweeps (Bullet's default budget) and loop
/// closures held by their velocity-level rows only, without the position
/// projection after each step (as every peer does). The latter runs
/// contact and closed-chain scenes only.
std::unique_ptr<Backend> makeArticulaBackend(bool peerLike = false);
/// Articula with its default settings but the constraint solver method
/// `method` (one of articula::constraintSolverMethods()), keyed
/// "articula (<method>)". It runs contact scenes only: one row per method
/// of the work–precision comparison.
/// @throws std::invalid_argument if `method` is not a solver method.
std::unique_ptr<Backend> makeArticulaMethodBackend(const std::string& method);
/// Articula's constraint solver method names, default first.
std::vector<std::string> articulaSolverMethods();
std::unique_ptr<Meter> makeMeter(const Scene& scene);
/// Every peer engine compiled in, in a fixed order (DART, MuJoCo, Bullet).
std::vector<std::unique_ptr<Backend>> makePeerBackends();

#ifdef ARTICULA_BENCH_WITH_DART
std::unique_ptr<Backend> makeDartBackend();
#endif
#ifdef ARTICULA_BENCH_WITH_MUJOCO
std::unique_ptr<Backend> makeMujocoBackend();
#endif
#ifdef ARTICULA_BENCH_WITH_BULLET
std::unique_ptr<Backend> makeBulletBackend();
#endif

}  // namespace bench

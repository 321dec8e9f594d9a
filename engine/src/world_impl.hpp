#pragma once
// WorldImpl: the design records behind the facade handles (Spec), the
// compiled Model, the runtime State and the kinematic caches (Data).
//
// Records live in slot vectors; every created object gets a generation from
// a world-wide counter that never repeats, so a handle (slot, generation)
// is valid iff the slot holds a live record with the same generation.
// Topology edits write the compiled state back into the records, mark the
// model stale, and the next query recompiles it (Spec → Model).

#include <articula/actuator.hpp>
#include <articula/error.hpp>
#include <articula/frame.hpp>
#include <articula/joint_spec.hpp>
#include <articula/options.hpp>
#include <articula/world.hpp>

#include "algorithms.hpp"
#include "collision.hpp"
#include "constraint.hpp"
#include "model.hpp"

#include <Eigen/Cholesky>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace articula::detail {

struct LinkRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  std::string name;
  std::uint32_t multibody = 0;          // owning multibody slot
  int parent = -1;                      // parent link slot, −1 for the root
  std::vector<std::uint32_t> children;  // child link slots in creation order
  Inertia inertia;
  JointSpec joint;     // validated; axes normalised
  VectorXd q, v, tau;  // joint coordinates carried across recompiles
};

struct MultibodyRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  bool selfCollision = false;
  std::string name;
  int root = -1;  // root link slot
  std::map<std::string, std::uint32_t> linkByName;
  std::map<std::string, std::uint32_t> jointByName;
};

struct RigidBodyRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  std::string name;
  Inertia inertia;
  VectorXd q, v, tau;  // free-joint coordinates (7, 6, 6)
};

struct FrameRef {
  FrameKind kind = FrameKind::World;
  std::uint32_t index = 0;
  std::uint32_t generation = 0;
};

struct UserFrameRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  std::string name;
  bool isFree = true;
  FrameRef parent;
  SE3 X_PF;                           // pose in the parent frame
  Vector6d V_rel = Vector6d::Zero();  // twist relative to parent, own coordinates
  Vector6d A_rel = Vector6d::Zero();  // its derivative, own coordinates
};

struct ShapeRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  std::string name;
  FrameRef owner;  // World, Link or RigidBody
  bool collision = true;
  Geometry geometry;
  Isometry3d pose = Isometry3d::Identity();
  Material material;
  bool collidable = true;
  Vector4d color{0.7, 0.7, 0.7, 1.0};
};

// One residual row of a closure: r and its Jacobian
//   ṙ = dir·(ω_B or v_B(pB)) − dir·(ω_A or v_A(pA)).
struct ClosureRow {
  bool angular = false;
  Vector3d dir = Vector3d::Zero();
  Vector3d pB = Vector3d::Zero();
  Vector3d pA = Vector3d::Zero();
  double residual = 0.0;
};

struct ClosureRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  std::string name;
  FrameRef frameA, frameB;
  LoopClosureFamily family = LoopClosureFamily::Rigid;
  Isometry3d offsetA = Isometry3d::Identity();
  Isometry3d offsetB = Isometry3d::Identity();
  double length = 0.0;
  LoopClosureRuntimePolicy policy;
  // The step's rows (workspace; their outputs are in State::closures).
  std::array<ClosureRow, 6> rowsAtStep;
  std::array<int, 6> rowIndex{};                       // constraint row of each residual row, −1 if dropped
  std::array<std::array<double, 6>, 2> differences{};  // RK4: residuals at q ⊕ ±ε·v
};

struct CouplerRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  std::string name;
  std::uint32_t leader = 0, leaderGeneration = 0;  // link slots of the joints
  std::uint32_t follower = 0, followerGeneration = 0;
  double ratio = 1.0;
  double offset = 0.0;
  LoopClosureRuntimePolicy policy;
  int rowIndex = -1;  // the step's row (workspace; its outputs are in State::couplers)
};

struct ActuatorRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  ActuatorSpec spec;                           // as given; spec.joint is rewritten from the link by getSpec
  std::uint32_t link = 0, linkGeneration = 0;  // the joint's child link
  double control = 0.0;                        // carried across recompiles
  bool controlSet = false;                     // set by the spec or setControl (else the default applies)
};

struct SensorRecord {
  bool alive = false;
  std::uint32_t generation = 0;
  SensorSpec spec;                             // frame and joint names rewritten from the references by getSpec
  FrameRef frame;                              // Imu, Rangefinder, Contact
  std::uint32_t link = 0, linkGeneration = 0;  // ForceTorque, JointEncoder: the joint's child link
  // runtime
  std::uint64_t noiseCounter = 0;
  double nextUpdate = 0.0;
  double readingTime = 0.0;  // NaN before the first update
  VectorXd values;           // sized by numSensorValues
};

// What the last step leaves for joint reactions, contact wrenches and
// sensors (forces.cpp): copied during the step (sized once), evaluated on
// demand from the step's start state (Data::q0, v0) and State::vdot.
struct StepRecord {
  bool valid = false;           // a step ran since entering simulation, reset or restore, and was kept
  double time = 0.0;            // start time of that step
  std::uint64_t serial = 0;     // counts recorded steps (a cache key)
  std::uint64_t evaluated = 0;  // `serial` of the step the outputs below describe (0: none)
  bool haveBase = false;        // X_WB, fAll, contactWrench hold that step
  bool haveMotion = false;      // V, A hold it
  VectorXd vPlus;               // velocities after the solve (implicit springs and dampers)
  VectorXd tau;                 // applied generalized forces of the step
  VectorXd vdot;                // accelerations of the step (State::vdot, with the constraint impulses)
  std::vector<Vector6d> fext;   // applied wrenches of the step (body coordinates, body origin)
  // outputs
  std::vector<Vector6d> fAll;           // fext + contacts + closures, body coordinates, body origin
  std::vector<Vector6d> contactWrench;  // per body: world coordinates, about the body origin
  std::vector<Vector6d> jointForce;     // per body: parent → child through its joint, body coordinates, body origin
  std::vector<SE3> X_WB;                // body poses at the step's start
  std::vector<Vector6d> V, A;           // body twists and accelerations at the step's start (no gravity)
  Matrix6Xd S;                          // motion subspaces at the step's start (body coordinates)
  VectorXd applied, actuator, spring, damper, friction, limit, coupler, inertia, total;
};

// Where a closure endpoint sits: a body (−1: fixed to the world) and the
// endpoint pose in that body's frame.
struct Anchor {
  int body = -1;
  SE3 X_BE;
};

// Scratch of the kinematic projection (sized on demand, reused).
struct ProjectionWorkspace {
  struct Item {
    bool coupler = false;
    std::uint32_t slot = 0;
    int rows = 0;
    int ownerA = -1, ownerB = -1;  // trees of the two sides (−1: the world)
    int component = -1;            // mechanism (trees connected by items)
  };
  std::vector<Item> items;
  std::vector<int> ownerParent, componentOfRoot, owners, columns, colOf;
  std::vector<int> ownerComponent, componentStart, componentCursor, grouped;  // trees grouped by component
  struct Scratch {           // over one mechanism's rows and coordinates
    MatrixXd J, Jf, JJ, Sw;  // Sw: world motion subspaces of the columns (6 × n)
    VectorXd r, rTrial, y, z, dq, vFix, vLocal;
    Eigen::LLT<MatrixXd> llt;
  };
  std::vector<Scratch> scratch;  // per mechanism
  VectorXd qTrial, qStart, mask;
  std::vector<int> lockedBodies;  // bodies whose joint coordinates are held
};

// Key of an explicit collision setting: the two bodies, ordered.
using BodyKey = std::tuple<int, std::uint32_t, std::uint32_t>;  // frame kind, slot, generation
using PairKey = std::pair<BodyKey, BodyKey>;

// World pose and motion of a frame: body twist V and its derivative A in
// the frame's own coordinates.
struct FrameMotion {
  SE3 X_WF;
  Vector6d V = Vector6d::Zero();
  Vector6d A = Vector6d::Zero();
};

// A number no other WorldImpl of this process has had.
std::uint64_t newWorldSerial();

class WorldImpl {
 public:
  explicit WorldImpl(World* self, const WorldOptions& options);

  World* self;
  WorldOptions options;
  std::shared_ptr<Executor> executor;  // islands of the solve (World::setExecutor); null: the calling thread
  bool simulation = false;
  std::uint32_t nextGeneration = 1;

  std::vector<LinkRecord> links;
  std::vector<MultibodyRecord> multibodies;
  std::vector<RigidBodyRecord> rigidBodies;
  std::vector<UserFrameRecord> frames;
  std::vector<ShapeRecord> shapes;
  std::map<std::string, FrameRef> worldNames;  // rigid bodies, multibodies, user frames
  std::map<std::string, std::uint32_t> shapeNames;
  std::map<PairKey, bool> collisionSettings;  // explicit per-pair enable/disable
  std::map<PairKey, int> implicitFilters;     // pairs filtered by topology (loop-closure endpoints), counted
  std::vector<ClosureRecord> closures;
  std::vector<CouplerRecord> couplers;
  std::map<std::string, std::uint32_t> closureNames;
  std::map<std::string, std::uint32_t> couplerNames;
  ProjectionWorkspace projection;
  std::vector<ActuatorRecord> actuators;
  std::map<std::string, std::uint32_t> actuatorNames;
  std::vector<ScheduleSpec> schedules;    // design; compiled into Model::schedule_actuator
  std::vector<KeyframeSpec> keyframes;    // named poses (keyframe.cpp)
  std::vector<ViewpointSpec> viewpoints;  // saved camera views (viewpoint.cpp); never used by a step
  Controller controller;
  VectorXd controls;                     // nu: per compiled actuator
  std::vector<std::uint8_t> controlSet;  // nu: given by the user (else a default is taken on entering simulation)
  VectorXd resetControls;                // controls when simulation mode was entered
  std::vector<int> actuatorIndex;        // actuator slot → compiled index (−1 if none)
  ConstraintWorkspace accelerationRows;  // RK4: closure rows of a stage
  ConstraintSolverOptions directSolverOptions;  // RK4: options of the stage solve (direct method)

  // Compiled model and runtime state.
  Model model;
  State state;
  Data data;
  State resetState;
  bool modelValid = false;
  std::vector<int> linkBody;        // link slot → body index (−1 if none)
  std::vector<int> rigidBodyBody;   // rigid-body slot → body index
  std::vector<int> multibodyOwner;  // multibody slot → owner index
  StepTimings timings;
  std::uint64_t serial = newWorldSerial();  // unique per WorldImpl in the process
  std::uint64_t compileCount = 0;           // compile() calls: a new count means the layout may have changed
  std::vector<std::pair<std::uint64_t, std::function<void(const World&)>>> stepObservers;
  std::uint64_t lastObserverId = 0;
  // While a step calls its observers the world is locked: edits throw,
  // observers added wait in `pendingObservers` for the next step, and
  // removed ones are marked (id 0) and dropped after the calls.
  bool observing = false;
  std::vector<std::pair<std::uint64_t, std::function<void(const World&)>>> pendingObservers;

  // Contact generation and the constraint stage.
  std::unique_ptr<CollisionDetector> collision;  // null when no collidable shapes
  bool collisionValid = false;                   // rebuilt lazily after filter changes
  std::vector<int> shapeIndex;                   // shape slot → compiled collision shape (−1 if none)
  ConstraintWorkspace constraints;
  std::vector<Contact> contacts;
  StepDiagnostics diagnostics;
  // Divergence monitor (step.cpp): the energy budget of the state the last
  // step left; a new baseline is taken whenever the state, gravity or time
  // step changed outside a step (the versions below no longer match).
  struct EnergyMonitor {
    double budget = 0.0;       // J: total energy at the baseline plus the work of inputs since
    double peakKinetic = 0.0;  // J: largest kinetic energy since the baseline
    double floor = 0.0;        // J: smallest gain that counts
    std::uint64_t qVersion = 0;
    std::uint64_t vVersion = 0;
    Vector3d gravity = Vector3d::Zero();
    double timeStep = 0.0;
  } energyMonitor;
  std::deque<std::string> warnings;
  bool warnedRk4Constraints = false;
  // Steps in a row whose constraint solve did not converge (a warning is
  // recorded when a run of them starts), and steps in a row whose solve
  // did (a new run needs kQuietStepsBeforeNewWarning of them first).
  long unconvergedRun = 0;
  long convergedRun = 0;
  struct {
    bool degenerate = false;  // the last step's pivoting fell back on a degenerate island
    bool tooLarge = false;    // ... or on an island too large for it
  } fallbackRun;

  // Versions for fresh-by-default caches.
  std::uint64_t qVersion = 1;
  std::uint64_t vVersion = 1;
  std::uint64_t aVersion = 1;
  std::uint64_t fkPosAt = 0;
  std::uint64_t fkVelAt = 0;
  std::uint64_t fkAccAt = 0;

  // ---- checks ----
  void requireDesignMode(const char* what) const;  // also refuses while locked
  // @throws LifecycleError while a step is calling its observers.
  void requireUnlocked(const char* what) const;
  LinkRecord& link(std::uint32_t slot, std::uint32_t gen);
  MultibodyRecord& multibody(std::uint32_t slot, std::uint32_t gen);
  RigidBodyRecord& rigidBody(std::uint32_t slot, std::uint32_t gen);
  UserFrameRecord& userFrame(std::uint32_t slot, std::uint32_t gen);
  bool frameAlive(const FrameRef& r) const;
  void checkFrame(const Frame& f) const;  // valid and of this world (or the world frame)
  std::string frameName(const FrameRef& r) const;

  // ---- names ----
  std::string uniqueWorldName(const std::string& requested, const std::string& base) const;
  static std::string uniqueName(const std::map<std::string, std::uint32_t>& taken, const std::string& base);

  // ---- topology ----
  void topologyChanged();  // writes state back into records; marks the model stale
  void ensureModel();
  void compile();
  void validate() const;
  std::uint32_t newGeneration() { return nextGeneration++; }
  std::uint32_t createLink(std::uint32_t mb, int parentLink, const LinkOptions& linkOptions, const JointSpec& joint);
  void destroyLinkSubtree(std::uint32_t slot);
  void removeUserFramesAttachedTo(FrameKind kind, std::uint32_t index);
  std::vector<std::uint32_t> subtreeSlots(std::uint32_t root) const;  // preorder
  std::vector<std::uint32_t> treeOrder(std::uint32_t mb) const;       // preorder from the root

  // ---- state and caches ----
  // ---- divergence (step.cpp) ----
  double totalEnergy(double* kinetic);  // kinetic + potential at the current state (fresh kinematics)
  bool energyCheckApplies() const;      // enabled, and no driven frames
  void takeEnergyBaseline();
  std::string checkDivergence(double h);    // empty, or why the step's result diverged
  void rejectStep(const std::string& why);  // keeps the state from before the step

  void touchPositions() {
    ++qVersion;
    ++vVersion;
    ++aVersion;
  }
  void touchVelocities() {
    ++vVersion;
    ++aVersion;
  }
  void touchAccelerations() { ++aVersion; }
  void ensurePositions();
  void ensureVelocities();
  void ensureAccelerations();
  int bodyOfLink(std::uint32_t slot);  // ensures the model
  int bodyOfRigidBody(std::uint32_t slot);
  int ownerOfMultibody(std::uint32_t slot);
  FrameMotion frameMotion(const FrameRef& r, bool velocity, bool acceleration);
  FrameRef refOf(const Frame& f) const;

  // ---- shapes and collision (shape.cpp) ----
  ShapeRecord& shape(std::uint32_t slot, std::uint32_t gen);
  void removeOrphanedShapes();  // shapes whose owner no longer exists
  static PairKey pairKey(const FrameRef& a, const FrameRef& b);
  FrameRef bodyFrame(int body) const;  // −1 → world
  bool bodiesMayCollide(int bodyA, int bodyB) const;
  void compileShapes(Model& m);  // called by compile()
  void ensureCollision();
  // A contact detector for the compiled shapes and the filtering rules.
  std::unique_ptr<CollisionDetector> makeCollisionDetector();
  void warn(std::string message);

  // ---- loop closures and couplers (loop_closure.cpp) ----
  ClosureRecord& closure(std::uint32_t slot, std::uint32_t gen);
  CouplerRecord& coupler(std::uint32_t slot, std::uint32_t gen);
  Anchor anchorOf(const FrameRef& r) const;  // needs the model
  // Endpoint poses and residual rows read the kinematics of `d` (null:
  // the World's own Data, which needs positions).
  SE3 endpointPose(const ClosureRecord& c, bool b, const Data* d = nullptr) const;
  // Residual rows of closure c at the current kinematics (numResidualRows rows).
  // `endpointA`, when given, receives endpoint A's world pose.
  void closureRows(const ClosureRecord& c, ClosureRow* rows, SE3* endpointA = nullptr, const Data* d = nullptr) const;
  double couplerResidual(const CouplerRecord& c) const;
  int couplerDof(std::uint32_t linkSlot) const;  // the joint's DoF (and q index: vector joint)
  void removeOrphanedClosures();                 // closures and couplers whose endpoints no longer exist
  void rebuildClosureFilters();
  void validateClosures() const;
  // @throws TopologyError: endpoints on one body, or both fixed to the world.
  void checkClosureEndpoints(const std::string& name, const FrameRef& frameA, const FrameRef& frameB) const;
  // @throws TopologyError unless the joint of `linkSlot` has one coordinate.
  void checkCouplerJoint(const std::string& where, std::uint32_t linkSlot) const;
  bool anyDynamicClosures() const;
  void addClosureRows(ConstraintWorkspace& ws, double h);  // after buildStandardRows
  // RK4 stages: closure and coupler rows at the acceleration level, solved
  // into vdot (after the stage's articulated-body pass); the stage's force,
  // times `weight` (h × the stage weight), is added to the reported impulses.
  void constrainAccelerations(const VectorXd& q, const VectorXd& v, double h, VectorXd& vdot, double weight,
                              bool first);
  // Impulses of the solved closures from the row impulses of `ws`, times
  // `weight`, replacing or adding to the stored ones.
  void publishClosureImpulses(const ConstraintWorkspace& ws, double weight, bool accumulate);
  // Projection of the closures/couplers selected by `afterStep` (policy
  // projectAfterStep) or all with kinematics = Project.
  // projection.lockedBodies lists the bodies to hold.
  ClosureProjectionResult project(const ClosureProjectionOptions& opts, bool afterStep, bool onlyIfViolated);

  // ---- actuators (actuator.cpp) ----
  ActuatorRecord& actuator(std::uint32_t slot, std::uint32_t gen);
  // Resolves "multibody/joint" to its link slot. @throws TopologyError naming `where`.
  std::uint32_t jointSlot(const std::string& joint, const std::string& where) const;
  // Checks an actuator spec against the joint of `linkSlot`. @throws as World::addActuator.
  void checkActuator(const ActuatorSpec& spec, std::uint32_t linkSlot, const std::string& where) const;
  void removeOrphanedActuators();   // actuators whose joint is gone, and schedules whose actuator is gone
  void compileActuators(Model& m);  // called by compile()
  // Entering simulation: default gains at the current configuration and
  // default controls (position targets hold the current pose).
  void resolveActuatorDefaults();
  // Before a step: schedules, the controller, the control ranges, locks.
  void prepareControls();
  void addLockRows(ConstraintWorkspace& ws, double h);  // after buildStandardRows

  // ---- sensors, joint reactions and queries (sensor.cpp, forces.cpp, query.cpp) ----
  std::vector<SensorRecord> sensors;
  std::map<std::string, std::uint32_t> sensorNames;
  StepRecord stepRecord;
  std::unique_ptr<CollisionDetector> queryCollision;  // checkCollisions: own manifolds, cleared per query
  std::uint64_t collisionBuild = 0;                   // ensureCollision rebuilds
  std::uint64_t queryCollisionBuild = 0;              // ... the query detector was built for
  std::vector<RaycastHit> rangeHits;                  // rangefinder scratch
  // Convex meshes' hull planes (n, c: n·x ≤ c) per compiled shape, for raycasts.
  std::vector<std::vector<Vector4d>> hullCache;
  std::vector<std::uint8_t> hullCacheDone;
  std::uint64_t hullCacheCompile = ~std::uint64_t{0};
  SensorRecord& sensor(std::uint32_t slot, std::uint32_t gen);
  // Resolves a frame name ("world", a rigid body, a user frame, "multibody/link").
  std::optional<FrameRef> frameByName(const std::string& name) const;
  // @throws as World::addSensor; fills the references of `r`.
  void checkSensor(const SensorSpec& spec, SensorRecord& r, const std::string& where) const;
  static int numSensorValues(const SensorSpec& spec, int jointNq, int jointNv);
  int sensorJointBody(const SensorRecord& r) const;  // −1 if none
  void removeOrphanedSensors();
  void resetSensors();  // readings invalid, generators at their start
  // After a step: the step's copies (allocation-free once sized).
  // `kinematicsAtStart`: the kinematic caches hold the step's start
  // positions (semi-implicit Euler, before the integration).
  void recordStep(double startTime, bool kinematicsAtStart);
  bool sensorDue(const SensorRecord& s) const;  // updates at the recorded step
  // The wrench the parent applies to `body` through its joint in the
  // recorded step (body coordinates, body origin), from the subtree's
  // motion (needs StepRecord V, A and the base outputs).
  Vector6d subtreeJointForce(int body) const;
  // Evaluates the step outputs (poses, twists, accelerations at the step's
  // start; contact wrenches; joint forces when `forces`). Leaves the
  // kinematic caches stale.
  // `motion`: twists and accelerations (StepRecord::V, A); `forces`: the
  // joint forces and their causes. Positions and contact wrenches always.
  void evaluateStep(bool motion, bool forces, bool inStep = false);
  void evaluateForces();
  bool startVelocitiesCached = false;  // Data::V held the start velocities of the current Euler step
  bool stepForcesEvaluated = false;    // jointForce and the generalized terms hold the recorded step
  std::uint64_t forcesAskedAt = 0;     // StepRecord::serial of the last step whose joint forces were read
  JointReaction jointReaction(std::uint32_t linkSlot, const std::optional<Frame>& coordinates);
  struct ReactionWrenches {
    Vector6d wrench = Vector6d::Zero(), free = Vector6d::Zero(), constraint = Vector6d::Zero();
  };
  // The joint's wrench and its split (allocation-free); zeros before a step.
  ReactionWrenches reactionWrenches(std::uint32_t linkSlot, const Frame* coordinates, bool split = true);
  void updateSensors();  // end of a step
  // Raycast against collision shapes with body poses `X_WB`; `skipBody`
  // (≥ 0) is not seen. Appends hits (all, or only the nearest) to `out`.
  void raycastShapes(const std::vector<SE3>& X_WB, const Vector3d& origin, const Vector3d& direction,
                     double maxDistance, int skipBody, bool all, std::vector<RaycastHit>& out);

  // ---- stepping (step.cpp) ----
  void enterSimulation();
  bool hasContactOrJointRows() const;  // contacts, limits, joint friction
  bool hasConstraints() const;         // ... or closure and coupler rows
  void detectContacts();
  void publishContacts();
  void stepOnce();
  void beginStep();  // controls, energy baseline
  void stepSemiImplicitEuler(bool constrained);
  void stepRungeKutta4();
  const VectorXd* solveConstraints(double h);   // → the velocity that moves the positions
  void reportSolve(const ConstraintResult& r);  // diagnostics and convergence/fallback warnings
  void finishStep(bool constrained);            // non-finite check, projection, divergence, sensors
  void forgetClosureForces();                   // no closure or coupler force until the next solved step
  void computeForwardDynamicsAll(const VectorXd& q, const VectorXd& v, bool implicitPassive, VectorXd& vdot);
  // Semi-implicit Euler: makes state.vdot of chains whose links turn fast
  // implicit in the velocity-product terms (linearised) on stiff steps.
  void implicitVelocityProducts(double h);
};

// Imu, Rangefinder and Contact sensors are attached to a frame; the others to a joint.
bool sensorUsesFrame(SensorType type);
// Validates a joint spec, normalising axes and expanding per-DoF vectors.
// @throws InvalidArgument with the joint name and the offending field.
JointSpec normalizedJointSpec(const JointSpec& spec, const std::string& where);
// Checks that X is a rigid transform. @throws InvalidArgument naming `where` and `field`.
void checkIsometry(const Isometry3d& X, const std::string& where, const char* field);
// Validates inertia. @throws InvalidArgument.
void validateInertia(const Inertia& inertia, const std::string& where, bool requirePositiveMass);
// Validates a loop-closure or coupler runtime policy. @throws InvalidArgument naming `where`.
void validateRuntimePolicy(const LoopClosureRuntimePolicy& policy, const std::string& where);

// The raw runtime frame (docs/replay.md): everything mutable that decides
// how the world continues, written from the world's own storage without
// temporaries. `out` is overwritten (its capacity is reused).
void encodeRuntimeFrame(WorldImpl& world, std::vector<unsigned char>& out);
// Splits a raw frame into a RuntimeSnapshot; checks the structure (sizes,
// counts, enumerations), not the world. @throws InvalidArgument.
RuntimeSnapshot decodeRuntimeFrame(const unsigned char* data, std::size_t size);

// The library's own access to a World's implementation and to handle
// construction (not part of the public headers' API).
struct Access {
  static WorldImpl& impl(const World& w) { return *w.m_impl; }
  static Frame frame(World* w, FrameKind kind, std::uint32_t index, std::uint32_t generation) {
    if (kind == FrameKind::World) return Frame::World();
    return Frame(w, kind, index, generation);
  }
  static Shape shape(World* w, std::uint32_t index, std::uint32_t generation) { return Shape(w, index, generation); }
  static Joint joint(World* w, std::uint32_t linkSlot, std::uint32_t generation) {
    return Joint(w, linkSlot, generation);
  }
  static Actuator actuator(World* w, std::uint32_t index, std::uint32_t generation) {
    return Actuator(w, index, generation);
  }
  static Sensor sensor(World* w, std::uint32_t index, std::uint32_t generation) { return Sensor(w, index, generation); }
};

inline WorldImpl& implOf(const World* w) {
  return Access::impl(*w);
}

}  // namespace articula::detail

#pragma once
// Model (static, struct of arrays), State (mutable) and Data (kinematic
// caches and algorithm scratch). Bodies are ordered so that every parent
// precedes its children; the bodies of one owner (rigid body or
// multibody) are contiguous, and so are their q and v segments.

#include <articula/actuator.hpp>
#include <articula/joint_spec.hpp>
#include <articula/types.hpp>

#include "spatial.hpp"

#include <Eigen/LU>

#include <array>
#include <cstdint>
#include <vector>

namespace articula::detail {

using Matrix6X6max = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;              // 6 × nv, nv ≤ 6, no heap
using MatrixNNmax = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;  // nv × nv, nv ≤ 6, no heap
using VectorNmax = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;                // nv, nv ≤ 6, no heap

enum class OwnerKind : std::uint8_t { RigidBody, Multibody };

struct Model {
  int nbody = 0;                      // number of bodies
  int nq = 0;                         // position coordinates
  int nv = 0;                         // velocity coordinates (DoFs)
  Vector3d gravity{0.0, 0.0, -9.81};  // world frame (m/s²)

  // ---- per body (size nbody) ----
  std::vector<int> body_parent;           // parent body, −1 = world
  std::vector<int> body_owner;            // index into owner_* arrays
  std::vector<std::uint32_t> body_slot;   // facade slot (link or rigid-body index)
  std::vector<double> body_mass;          // kg
  std::vector<Vector3d> body_com;         // COM in body frame (m)
  std::vector<Matrix3d> body_inertiaCom;  // rotational inertia about COM, body axes (kg·m²)
  std::vector<Matrix6d> body_inertia;     // spatial inertia about body origin, body coordinates
  // body_inertia of b and of every body welded to it below (through weld
  // joints only), b's coordinates: the rigid composite a subtree sum can
  // treat as one body (computeWeldGroupInertias).
  std::vector<Matrix6d> body_groupInertia;

  // ---- per joint (the parent joint of each body; size nbody) ----
  std::vector<JointType> jnt_type;
  std::vector<int> jnt_qadr;                      // first index in q
  std::vector<int> jnt_nq;                        // length in q
  std::vector<int> jnt_vadr;                      // first index in v
  std::vector<int> jnt_nv;                        // length in v
  std::vector<SE3> jnt_parentOffset;              // X_PJ: joint frame in parent body frame (world for roots)
  std::vector<SE3> jnt_childOffset;               // X_CJ: joint frame in child body frame
  std::vector<std::array<Vector3d, 3>> jnt_axes;  // unit axes in the joint frame (meaning per type)
  std::vector<double> jnt_pitch;                  // screw pitch (m/rad)
  std::vector<bool> jnt_constantS;                // motion subspace constant in the body frame

  // ---- per DoF (size nv) ----
  std::vector<int> dof_body;              // body whose parent joint owns the DoF
  VectorXd dof_armature;                  // kg·m² or kg
  VectorXd dof_damping;                   // viscous damping coefficient
  VectorXd dof_stiffness;                 // spring stiffness
  VectorXd dof_restPosition;              // spring rest position (vector joints only)
  bool anySpringOrDamper = false;         // any nonzero damping or stiffness
  bool anyVaryingMotionSubspace = false;  // any joint whose S depends on q (universal, euler, planar)

  // ---- joint constraints per DoF (size nv; ±inf / 0 when absent) ----
  VectorXd dof_lowerLimit;  // vector joints only (nq == nv)
  VectorXd dof_upperLimit;
  VectorXd dof_velocityLimit;          // +inf when absent
  VectorXd dof_effortLimit;            // +inf when absent
  VectorXd dof_coulombFriction;        // 0 when absent
  std::vector<int> limitDofs;          // DoFs with a finite position limit
  std::vector<int> velocityLimitDofs;  // DoFs with a finite velocity limit
  std::vector<int> frictionDofs;       // DoFs with Coulomb friction
  bool anyEffortLimit = false;
  std::vector<int> freeJointBodies;        // bodies whose parent joint is Free
  std::vector<int> chainOwners;            // owners with two or more bodies (fast-chain check)
  std::vector<std::uint8_t> body_movable;  // some DoF between the world and the body

  // ---- collision shapes (collision kind only; size nshape) ----
  int nshape = 0;
  std::vector<int> shape_body;            // −1: static (attached to the world)
  std::vector<std::uint32_t> shape_slot;  // facade slot of the shape record
  std::vector<SE3> shape_pose;            // shape frame in the body frame (world frame when static)
  std::vector<double> shape_friction;
  std::vector<double> shape_restitution;
  std::vector<std::uint8_t> shape_collidable;

  // ---- per owner ----
  std::vector<OwnerKind> owner_kind;
  std::vector<std::uint32_t> owner_slot;  // facade slot of the rigid body / multibody
  std::vector<int> owner_bodyadr;         // first body
  std::vector<int> owner_nbody;           // number of bodies
  std::vector<int> owner_qadr;
  std::vector<int> owner_nq;
  std::vector<int> owner_vadr;
  std::vector<int> owner_nv;
  std::vector<std::uint8_t> owner_selfCollision;  // multibodies: links collide with non-adjacent links

  // ---- actuators (size nu, control order) ----
  int nu = 0;
  std::vector<ActuatorType> act_type;
  std::vector<std::uint32_t> act_slot;  // facade slot of the actuator record
  std::vector<int> act_dof;             // the DoF it drives
  std::vector<int> act_qpos;            // its position coordinate, −1 when the joint has none (ball, free)
  VectorXd act_gear;                    // mechanical reduction
  VectorXd act_controlMin, act_controlMax;
  VectorXd act_forceMin, act_forceMax;                // N·m or N at the joint
  VectorXd act_kp, act_kd, act_kv, act_ki;            // gains (defaults resolved on entering simulation mode)
  VectorXd act_integralLimit;                         // Pid anti-windup clamp (rad·s or m·s)
  VectorXd act_stall, act_noLoadSpeed;                // DcMotor (motor side: N·m, rad/s)
  std::vector<int> lockActuators;                     // actuators of type Lock
  std::vector<std::uint8_t> act_gravityCompensation;  // add the DoF's generalized gravity force
  bool anyGravityCompensation = false;
  // ---- schedules (size nschedule) ----
  std::vector<int> schedule_actuator;  // compiled actuator each drives
};

// Fills Model::body_groupInertia from body_inertia and the weld joints'
// constant transforms. O(bodies); call after any body_inertia change.
void computeWeldGroupInertias(Model& m);

// What the last step's rows of one loop closure left behind (State::closures).
struct ClosureState {
  bool solved = false;                  // the step solved its rows: `impulse` is a force
  Vector6d impulse = Vector6d::Zero();  // on B's body, [torque about A's origin; force], A coordinates
  SE3 originA;                          // endpoint A at the step (the frame of `impulse`)
  std::vector<double> lambda;           // row impulses (warm start of the next step)
};

// ... and of one joint coupler.
struct CouplerState {
  bool solved = false;
  double impulse = 0.0;
  double lambda = 0.0;  // warm start
};

// Mutable runtime state: everything a step reads from the step before, so
// that a runtime frame is this plus the contact cache.
struct State {
  double time = 0.0;             // s
  std::uint64_t frameIndex = 0;  // steps since entering simulation mode
  VectorXd q;                    // positions (nq)
  VectorXd v;                    // velocities (nv)
  VectorXd vdot;                 // accelerations of the last dynamics computation (nv)
  VectorXd tau;                  // applied generalized forces (nv), persistent
  std::vector<Vector6d> fext;    // per body: external wrench about body origin, body coordinates; cleared after a step
  VectorXd act_integral;         // nu: Pid integral of the error ∫(u − q) dt (rad·s or m·s); 0 otherwise
  VectorXd act_lockTarget;       // nu: Lock: the held position (or NaN while released)
  // By record slot (WorldImpl::closures, ::couplers; slots are never reused).
  std::vector<ClosureState> closures;
  std::vector<CouplerState> couplers;
};

// Kinematic caches and scratch; sized once by resize().
struct Data {
  // forward kinematics
  std::vector<SE3> X_PB;     // body pose in its parent frame (world for roots)
  std::vector<SE3> X_WB;     // body pose in world
  std::vector<Vector6d> V;   // body twist, body coordinates
  std::vector<Vector6d> A;   // body acceleration (derivative of V), body coordinates, no gravity
  std::vector<Vector6d> cJ;  // Ṡ·q̇ of the parent joint, body coordinates
  Matrix6Xd S;               // 6 × nv motion subspaces, body coordinates
  Matrix6Xd Sdot;            // 6 × nv time derivatives of S, body coordinates
  // articulated-body algorithm / RNEA / CRBA scratch
  std::vector<Matrix6d> IA;    // articulated (or composite) inertias
  std::vector<Vector6d> pA;    // bias forces
  std::vector<Vector6d> c;     // velocity-product accelerations
  std::vector<Vector6d> a;     // accelerations (with gravity offset)
  std::vector<Vector6d> f;     // body forces (RNEA)
  Matrix6Xd U;                 // 6 × nv
  std::vector<Matrix6d> Dinv;  // per body, top-left nv×nv used
  VectorXd u;                  // nv
  VectorXd extraInertia;       // nv: armature + implicit spring/damper terms
  VectorXd tauTotal;           // nv
  // actuators of the step (size nu): τ = act_f0 − act_c·q̇⁺ unless clamped
  VectorXd act_f0, act_c, act_force;  // explicit part, implicit coefficient, applied force (N·m or N)
  VectorXd act_integral0;             // State::act_integral at the start of the step
  VectorXd act_gravity;               // nv: generalized gravity force g(q) (gravity-compensating actuators)
  VectorXd act_zero;                  // nv zeros (RNEA's accelerations)
  std::vector<int> act_row;           // Lock: its constraint row in the step, −1 if none
  // integrator scratch
  VectorXd q0, v0, qk, vk, dq, dv, qdotk;
  // semi-implicit Euler, fast chains: per chain owner (Model::chainOwners)
  // the matrix 1 − h ∂f/∂v and its factorisation; f(v₀) and Δv/h scratch
  std::vector<MatrixXd> imp_A;
  std::vector<Eigen::PartialPivLU<MatrixXd>> imp_lu;
  VectorXd imp_f0, imp_dv;

  // ---- derived by resize() from the joint model (joint offsets, axes and
  // types only change through compile(), which calls resize()) ----
  // X_PB(q) = X_PJ·X_J(q)·X_CJ⁻¹ for joints with one scalar coordinate:
  //   R = R0 + sin q·Rs + (1 − cos q)·Rc,  p = p0 + sin q·ps + (1 − cos q)·pc + q·pq.
  enum class PoseKind : std::uint8_t { Generic, Constant, Rotation, Translation, Screw };
  struct JointPoseCache {
    Matrix3d R0, Rs, Rc;
    Vector3d p0, ps, pc, pq;
    PoseKind kind = PoseKind::Generic;
  };
  std::vector<JointPoseCache> jointPose;
  std::vector<std::uint8_t> constS;  // per body: Model::jnt_constantS as bytes
  // ABA / CRBA scratch in world-aligned coordinates about a per-tree origin
  // Ow (the position of the tree's root body, so that lever arms stay small
  // far from the world origin): motion subspaces Sw (6 × nv), body
  // velocities Vw, and Ow per body.
  Matrix6Xd Sw;
  std::vector<Vector6d> Vw;
  std::vector<Vector3d> Ow;
  // impulse-response scratch (articulatedImpulseResponse)
  std::vector<Vector6d> fI, aI;
  VectorXd uI;

  void resize(const Model& model);
};

}  // namespace articula::detail

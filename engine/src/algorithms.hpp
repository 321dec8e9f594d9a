#pragma once
// Algorithms as free functions over (const Model&, const State&/vectors, Data&).
// Each says which Data fields it reads and writes.

#include "model.hpp"

namespace articula::detail {

// Forward kinematics, position level. Reads q. Writes X_PB, X_WB, S.
void forwardKinematicsPositions(const Model& m, const VectorXd& q, Data& d);
// The same over bodies [b0, b1) (whole trees: an owner's contiguous range).
void forwardKinematicsPositions(const Model& m, const VectorXd& q, Data& d, int b0, int b1);
// Velocity level. Reads q, v, X_PB, S. Writes V, Sdot, cJ.
void forwardKinematicsVelocities(const Model& m, const VectorXd& q, const VectorXd& v, Data& d);
// Acceleration level. Reads v, vdot, X_PB, V, S, cJ. Writes A (no gravity).
void forwardKinematicsAccelerations(const Model& m, const VectorXd& v, const VectorXd& vdot, Data& d);

// Articulated-body algorithm (Featherstone 2008, Table 7.1), bodies
// [b0, b1) only (an owner's contiguous range; pass 0, nbody for all).
// Computes vdot = FD(q, v, tau, fext) with `extraInertia` added to the
// joint-space diagonal (armature, implicit spring/damper terms).
// Reads X_WB, S, cJ and v (velocities are rebuilt in the per-tree frame; pass
// the v used for forwardKinematicsVelocities). Writes IA, pA, c, a, U, Dinv,
// u, Sw, Vw, Ow (per-tree frame) and the vdot segment.
void articulatedBodyAlgorithm(const Model& m, const VectorXd& v, const VectorXd& tau, const std::vector<Vector6d>& fext,
                              const VectorXd& extraInertia, int b0, int b1, Data& d, VectorXd& vdot);

// Response of the velocities of one tree (bodies [b0, b1), DoFs from
// vadr0) to a generalized impulse: dv = M̃⁻¹ tau with M̃ the joint-space
// inertia plus the extra diagonal of the last articulatedBodyAlgorithm call
// on that tree (whose IA, U, Dinv and Sw it reuses; O(n) per call).
// `tau` and `dv` are relative to vadr0. Writes fI, aI, uI (except for a
// lone six-DoF body, whose response is its inverse inertia times tau).
void articulatedImpulseResponse(const Model& m, Data& d, int b0, int b1, int vadr0, const double* tau, double* dv);

// Recursive Newton–Euler (Featherstone Table 5.1) over bodies [b0, b1):
// tau = M vdot + C v + g − Σ Jᵀ fext (+ armature·vdot). `withVelocity`
// false treats v as zero; `withGravity` false drops gravity; `fext` may be
// null. Reads X_PB, X_WB, V, S, cJ. Writes a, f, tau segment.
void recursiveNewtonEuler(const Model& m, const VectorXd& v, const VectorXd& vdot, const std::vector<Vector6d>* fext,
                          bool withVelocity, bool withGravity, int b0, int b1, Data& d, VectorXd& tau);

// Composite-rigid-body algorithm (Featherstone Table 6.2) over bodies
// [b0, b1); writes the corresponding block of M (indices relative to
// vadr0 = first DoF of b0). Armature included. Reads X_WB, S (both written
// by forwardKinematicsPositions). Writes IA, M; the caller zeroes M.
void compositeRigidBodyAlgorithm(const Model& m, int b0, int b1, Data& d, MatrixXd& M);

// World-coordinate spatial Jacobian columns [ω; v at world origin] of body
// `body` for the DoFs of bodies in [b0, b1) (columns relative to the first
// DoF of b0); zero for DoFs not supporting the body. Reads X_WB, S.
void spatialJacobianWorld(const Model& m, const Data& d, int body, int b0, int b1, Eigen::Ref<Matrix6Xd> J);
// Time derivative of spatialJacobianWorld. Reads X_WB, V, S, Sdot.
void spatialJacobianWorldDot(const Model& m, const Data& d, int body, int b0, int b1, Eigen::Ref<Matrix6Xd> Jdot);

// Kinetic energy ½ vᵀ M v = ½ Σ Vᵀ I V + ½ Σ armature v² over bodies [b0, b1). Reads V.
double kineticEnergy(const Model& m, const Data& d, const VectorXd& v, int b0, int b1);
// Gravitational potential −Σ m g·c over bodies [b0, b1) plus springs of their DoFs.
double potentialEnergy(const Model& m, const Data& d, const VectorXd& q, int b0, int b1);

// Body twist of `body` converted to world coordinates [ω_W; v_W of body origin].
inline Vector6d worldVelocity(const Data& d, int body) {
  const auto b = static_cast<std::size_t>(body);
  Vector6d r;
  r.head<3>() = d.X_WB[b].R * d.V[b].head<3>();
  r.tail<3>() = d.X_WB[b].R * d.V[b].tail<3>();
  return r;
}

// Actuator forces (actuation.cpp). With h > 0 the stiffness and damping
// of servos are implicit in q̇⁺ = q̇ + h q̈: each actuator's force is
// τ = f0 − c q̇⁺, so τ(q̇) = f0 − c q̇ goes into tauTotal and c h onto the
// joint-space diagonal (extraInertia). A force outside the actuator's range
// (predicted at q̇) is applied as the bound, explicitly. h = 0: explicit.
// Reads controls u, q, v, State::act_integral and (gravity compensation) act_gravity. Writes act_f0, act_c and
// adds to tauTotal and extraInertia.
void actuatorForces(const Model& m, const VectorXd& u, const VectorXd& q, const VectorXd& v, const VectorXd& integral,
                    double h, Data& d);
// The force each actuator applied, from the step's final velocities
// (τ = f0 − c q̇⁺). Writes act_force (Lock rows are read by the caller).
void actuatorOutputs(const Model& m, const VectorXd& vNew, Data& d);
// Pid integrals after the step: ∫e += h (u − q⁺), clamped to ±integralLimit.
void integrateActuators(const Model& m, const VectorXd& u, const VectorXd& qNew, double h, VectorXd& integral);

}  // namespace articula::detail

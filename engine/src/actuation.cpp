// Actuator forces of one step (docs/actuators.md).
//
// Servos are integrated implicitly, the way joint springs and dampers are
// (step.cpp): with q⁺ = q + h q̇⁺ a position servo's force
//   τ = kp (u − q⁺) − kd q̇⁺ = kp (u − q) − (kp h + kd) q̇⁺
// is f0 − c q̇⁺ with f0 = kp (u − q) and c = kp h + kd. Substituting
// q̇⁺ = q̇ + h q̈ moves c h onto the joint-space diagonal and leaves
// f0 − c q̇ as an applied force, so the stiffness never makes the step
// unstable (an explicit PD is stable only for kp h² / m_eff < 4).
#include "algorithms.hpp"

#include <algorithm>
#include <cmath>

namespace articula::detail {

void actuatorForces(const Model& m, const VectorXd& u, const VectorXd& q, const VectorXd& v, const VectorXd& integral,
                    double h, Data& d) {
  for (int a = 0; a < m.nu; ++a) {
    const auto i = static_cast<std::size_t>(a);
    const int dof = m.act_dof[i];
    const int qpos = m.act_qpos[i];
    double f0 = 0.0;
    double c = 0.0;
    switch (m.act_type[i]) {
      case ActuatorType::Motor:
        f0 = m.act_gear[a] * u[a];
        break;
      case ActuatorType::PositionServo:
        f0 = m.act_kp[a] * (u[a] - q[qpos]);
        c = m.act_kp[a] * h + m.act_kd[a];
        break;
      case ActuatorType::VelocityServo:
        f0 = m.act_kv[a] * u[a];
        c = m.act_kv[a];
        break;
      case ActuatorType::Pid:
        f0 = m.act_kp[a] * (u[a] - q[qpos]) + m.act_ki[a] * integral[a];
        c = m.act_kp[a] * h + m.act_kd[a];
        break;
      case ActuatorType::DcMotor: {
        // τ_motor = stall (u − ω_motor / noLoadSpeed), ω_motor = gear q̇; τ = gear τ_motor.
        const double g = m.act_gear[a];
        f0 = g * m.act_stall[a] * u[a];
        c = g * g * m.act_stall[a] / m.act_noLoadSpeed[a];
        break;
      }
      case ActuatorType::Lock:
        break;  // a constraint row (WorldImpl::addLockRows)
    }
    if (m.act_gravityCompensation[i]) f0 += d.act_gravity[dof];
    const double predicted = f0 - c * v[dof];
    const double lo = m.act_forceMin[a];
    const double hi = m.act_forceMax[a];
    if (predicted < lo || predicted > hi) {
      f0 = std::clamp(predicted, lo, hi);
      c = 0.0;
    }
    d.act_f0[a] = f0;
    d.act_c[a] = c;
    d.tauTotal[dof] += f0 - c * v[dof];
    d.extraInertia[dof] += c * h;
  }
}

void actuatorOutputs(const Model& m, const VectorXd& vNew, Data& d) {
  for (int a = 0; a < m.nu; ++a) {
    d.act_force[a] = d.act_f0[a] - d.act_c[a] * vNew[m.act_dof[static_cast<std::size_t>(a)]];
  }
}

void integrateActuators(const Model& m, const VectorXd& u, const VectorXd& qNew, double h, VectorXd& integral) {
  for (int a = 0; a < m.nu; ++a) {
    const auto i = static_cast<std::size_t>(a);
    if (m.act_type[i] != ActuatorType::Pid) continue;
    const double limit = m.act_integralLimit[a];
    integral[a] = std::clamp(integral[a] + h * (u[a] - qNew[m.act_qpos[i]]), -limit, limit);
  }
}

}  // namespace articula::detail

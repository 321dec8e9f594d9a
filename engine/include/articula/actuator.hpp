#pragma once
/// @file
/// Actuators, controls and schedules: what drives a robot.
///
/// An actuator acts on one DoF of a joint (its `coordinate`: 0 for a
/// revolute, prismatic or screw joint; one of the coordinates of a
/// multi-DoF joint). Every step it applies a generalized force τ (N·m or N,
/// at the joint) computed from its control u — one number per actuator,
/// kept apart from the state (World::setControl, World::getControls):
///
/// | type          | τ                                                    | control  |
/// |---------------|------------------------------------------------------|----------|
/// | Motor         | gear · u                                             | force    |
/// | PositionServo | kp (u − q) − kd q̇, implicit                          | target q |
/// | VelocityServo | kv (u − q̇), implicit                                 | target q̇ |
/// | Pid           | kp e + ki ∫e dt − kd q̇, e = u − q; P and D implicit  | target q |
/// | DcMotor       | gear · stall (u − gear q̇ / noLoadSpeed), implicit    | voltage fraction in [−1, 1] |
/// | Lock          | a hard constraint row holding q (u ≥ 0.5: locked)    | 0 or 1   |
///
/// Every τ is clamped to [forceMin, forceMax] (a clamped servo applies the
/// bound as a constant force). "Implicit" means the stiffness and damping
/// enter the step the way joint springs and dampers do: with semi-implicit
/// Euler, q̇⁺ appears in the force, so (kp h² + kd h) joins the joint-space
/// inertia and arbitrarily high gains stay stable (docs/actuators.md).
/// Controls outside [controlMin, controlMax] are clamped.

#include <articula/types.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace articula {

class World;
namespace detail {
struct Access;
}

enum class ActuatorType : std::uint8_t {
  Motor,          ///< τ = gear · u
  PositionServo,  ///< implicit PD on the coordinate; u is the target position
  VelocityServo,  ///< implicit damper towards u, the target velocity
  Pid,            ///< PID on the coordinate with an integral clamp (anti-windup); u is the target
  DcMotor,        ///< a DC motor's torque–speed line behind a gear; u is the voltage fraction
  Lock,           ///< holds the coordinate with a constraint row while u ≥ 0.5
};

/// "motor", "position", "velocity", "pid", "dc_motor", "lock".
const char* toString(ActuatorType type);
/// Inverse of toString; nullopt for an unknown name.
std::optional<ActuatorType> actuatorTypeFromString(const std::string& name);

/// An actuator as a value: part of the WorldSpec, and what
/// World::addActuator takes.
struct ActuatorSpec {
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  std::string name;    ///< unique among actuators; no '/'
  std::string joint;   ///< "multibody/joint"
  int coordinate = 0;  ///< DoF of the joint, 0 ≤ coordinate < its DoF count
  ActuatorType type = ActuatorType::Motor;
  double gear = 1.0;                             ///< mechanical reduction (Motor, DcMotor), > 0
  double controlMin = -kInf, controlMax = kInf;  ///< control range (DcMotor: within [−1, 1]; Lock: [0, 1])
  double forceMin = -kInf, forceMax = kInf;      ///< generalized force range at the joint (N·m or N)
  /// PositionServo, Pid: stiffness (N·m/rad or N/m) and damping (N·m·s/rad
  /// or N·s/m). Empty: critically damped at 10 Hz for the joint's effective
  /// inertia at the initial configuration (docs/actuators.md).
  std::optional<double> kp, kd;
  std::optional<double> kv;     ///< VelocityServo gain (N·m·s/rad or N·s/m); empty: as kd above
  double ki = 0.0;              ///< Pid integral gain (N·m/(rad·s))
  double integralLimit = kInf;  ///< Pid: |∫e dt| ≤ this (rad·s or m·s), the anti-windup clamp
  double stallTorque = 0.0;     ///< DcMotor: motor torque at zero speed and u = 1 (N·m), > 0
  double noLoadSpeed = 0.0;     ///< DcMotor: motor speed at zero torque and u = 1 (rad/s), > 0
  double velocityLimit = kInf;  ///< informational (from URDF `<limit velocity>`); the joint limit acts
  /// PositionServo, VelocityServo, Pid: add the generalized gravity force of
  /// the DoF at the current configuration (feed-forward), as position-
  /// controlled hardware does; the servo then holds its target without sag.
  bool gravityCompensation = false;
  /// The control to start from. Empty: position targets (PositionServo, Pid)
  /// hold the coordinate's initial position, Lock starts locked (1), others 0.
  std::optional<double> control;
};

/// Time-varying controls for one actuator, evaluated before every step.
struct ScheduleSpec {
  enum class Kind : std::uint8_t {
    Keyframes,  ///< piecewise over (time, value) keyframes
    Sine,       ///< offset + amplitude · sin(2π frequency t + phase)
    Step,       ///< `offset` before `stepTime`, offset + amplitude after
  };
  enum class Interpolation : std::uint8_t { Linear, Hold };

  std::string name;      ///< unique among schedules
  std::string actuator;  ///< the actuator it drives
  Kind kind = Kind::Keyframes;
  /// Keyframes: (time s, value), times strictly increasing. Before the first
  /// time the first value holds, after the last the last value (or, with
  /// `loop`, the schedule restarts every last time).
  std::vector<std::pair<double, double>> keyframes;
  Interpolation interpolation = Interpolation::Linear;  ///< Hold: zero-order hold
  bool loop = false;
  double amplitude = 0.0;  ///< Sine, Step
  double frequency = 0.0;  ///< Sine (Hz)
  double phase = 0.0;      ///< Sine (rad)
  double offset = 0.0;     ///< Sine, Step
  double stepTime = 0.0;   ///< Step (s)

  /// The value at time t (s).
  double evaluate(double t) const;
};

/// Names and ranges of the controls, in actuator order.
struct ControlSpace {
  std::vector<std::string> names;
  VectorXd lower, upper;
};

/// What a controller callback sees before a step (World::setController).
struct ControllerInput {
  double time = 0.0;          ///< s
  std::span<const double> q;  ///< positions (World::numPositions())
  std::span<const double> v;  ///< velocities (World::numDofs())
};

/// Called before every step with the state and the controls (actuator
/// order), which it may overwrite. It must not allocate or change the world.
using Controller = std::function<void(const ControllerInput& input, std::span<double> controls)>;

/// A handle to an actuator (world pointer, slot, generation).
class Actuator {
 public:
  Actuator() = default;
  bool isValid() const;
  std::string name() const;
  /// Renames the actuator (design mode); schedules that name it follow.
  void setName(const std::string& name);
  ActuatorSpec getSpec() const;
  /// Replaces everything but the name (design mode), checked as
  /// World::addActuator checks it; on failure the actuator is unchanged.
  void setSpec(const ActuatorSpec& spec);
  /// The control (clamped to the control range). Either mode.
  void setControl(double value);
  double getControl() const;
  /// The generalized force it applied in the last step (N·m or N); 0 before
  /// the first step. A Lock reports its constraint impulse divided by h.
  double getForce() const;

  friend bool operator==(const Actuator& a, const Actuator& b) {
    return a.m_world == b.m_world && a.m_index == b.m_index && a.m_generation == b.m_generation;
  }
  std::uint32_t index() const { return m_index; }

 private:
  Actuator(World* w, std::uint32_t i, std::uint32_t g) : m_world(w), m_index(i), m_generation(g) {}
  World* m_world = nullptr;
  std::uint32_t m_index = 0;
  std::uint32_t m_generation = 0;
  friend class World;
  friend struct detail::Access;
};

}  // namespace articula

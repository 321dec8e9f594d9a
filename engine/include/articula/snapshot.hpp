#pragma once
/// @file
/// RuntimeSnapshot: everything mutable that decides how a World continues
/// from a step, for replays and scrubbing.

#include <articula/loop_closure.hpp>
#include <articula/state_space.hpp>

#include <cstdint>
#include <vector>

namespace articula {

/// The WorldState, the free user frames' motion, the simulation mode, the loop-closure and coupler runtime
/// policies (creation order), and what the solver carries from one step to
/// the next: contact manifolds with their warm-start impulses and the
/// closure and coupler row impulses, as raw bytes. Restoring a snapshot into
/// the world it came from (or one of the same layout, same build) and
/// stepping reproduces the original continuation bit for bit.
/// The motion of a free user frame relative to its parent (FreeFrame's
/// relative transform, spatial velocity and acceleration).
struct FreeFrameState {
  Isometry3d relativeTransform = Isometry3d::Identity();
  Vector6d relativeVelocity = Vector6d::Zero();
  Vector6d relativeAcceleration = Vector6d::Zero();
};

/// An actuator's runtime values (articula/actuator.hpp).
struct ActuatorRuntimeState {
  double control = 0.0;     ///< the control of the last step
  double integral = 0.0;    ///< Pid: ∫(u − q) dt
  double lockTarget = 0.0;  ///< Lock: the held position, NaN while released
};

/// A sensor's runtime values (articula/sensor.hpp).
struct SensorRuntimeState {
  std::uint64_t noiseCounter = 0;  ///< draws taken from the noise generator
  double nextUpdate = 0.0;         ///< time of the next update (s)
  double readingTime = 0.0;        ///< the reading's time (NaN before the first update)
  std::vector<double> values;      ///< the reading
};

struct RuntimeSnapshot {
  WorldState state;
  /// Free user frames in creation order: inputs that move closure
  /// endpoints and shapes, set by whoever drives the world.
  std::vector<FreeFrameState> freeFrames;
  bool simulationMode = false;
  std::vector<LoopClosureRuntimePolicy> closurePolicies;
  std::vector<LoopClosureRuntimePolicy> couplerPolicies;
  /// Per actuator (control order): controls are inputs, but a run continues
  /// bit for bit only with the ones it had.
  std::vector<ActuatorRuntimeState> actuators;
  /// Per sensor (creation order): the noise generator and the held reading.
  std::vector<SensorRuntimeState> sensors;
  std::vector<unsigned char> solverData;
};

}  // namespace articula

#pragma once
/// @file
/// Bounds on options, checked by World::setOptions and the loop-closure
/// runtime policies (and by articula-run for its command line): beyond
/// them a step takes forever or makes no progress.

namespace articula {

inline constexpr double kMinTimeStep = 1e-9;         ///< shortest time step (s)
inline constexpr double kMaxTimeStep = 10.0;         ///< longest time step (s)
inline constexpr int kMaxSolverIterations = 100000;  ///< most solver sweeps or closure projection iterations
inline constexpr int kMaxFrictionDirections = 64;    ///< most friction pyramid edges

}  // namespace articula

#pragma once
/// @file
/// RenderSnapshot: what the viewer needs of one simulation step — body
/// poses, contacts, closure endpoints and residuals, centres of mass,
/// coordinates for plots, stats — made by the thread that steps the world
/// and handed to the viewer through a TripleBuffer. Every field of one
/// snapshot describes the same step (`version`).

#include <articula/types.hpp>
#include <articula/world.hpp>

#include <cstdint>
#include <vector>

namespace articula::viewer {

struct SceneDescription;

struct ContactMark {
  Vector3d point = Vector3d::Zero();    ///< world (m)
  Vector3d normal = Vector3d::UnitZ();  ///< unit, from B towards A
  Vector3d force = Vector3d::Zero();    ///< force on A over the step (N): (normal + friction impulse) / dt
  double depth = 0.0;
};

struct ClosureMark {
  Vector3d endpointA = Vector3d::Zero();  ///< world (m)
  Vector3d endpointB = Vector3d::Zero();
  double residual = 0.0;  ///< residual norm
  bool enabled = true;
};

struct JointMark {
  Vector3d origin = Vector3d::Zero();  ///< joint frame origin, world
  Vector3d axis = Vector3d::Zero();    ///< unit first axis, world (zero: no axis)
  /// The wrench the parent applies to the child through the joint in the
  /// last step, about the joint origin, world coordinates (zero unless the
  /// snapshot was made with joint forces).
  Vector3d force = Vector3d::Zero();
  Vector3d torque = Vector3d::Zero();
};

/// Numbers for the stats panel.
struct SimulationStats {
  StepTimings timings;           ///< the last step's stage times (s)
  double realTimeFactor = 0.0;   ///< simulated / wall-clock time over the last ~0.5 s of stepping (0: unknown)
  double stepsPerSecond = 0.0;   ///< wall-clock stepping rate over the same window
  double kineticEnergy = 0.0;    ///< J
  double potentialEnergy = 0.0;  ///< J
  double maxClosureResidual = 0.0;
  double solverResidual = 0.0;  ///< the last step's constraint solve residual (m/s, StepDiagnostics::residual)
  int solverIterations = 0;     ///< its iterations
  bool solverConverged = true;  ///< whether it reached the convergence tolerance
  int numContacts = 0;
  bool simulationMode = false;
};

struct RenderSnapshot {
  std::uint64_t version = 0;              ///< increases with every published snapshot
  std::uint64_t descriptionVersion = 0;   ///< the SceneDescription::version the arrays follow
  double time = 0.0;                      ///< simulated time (s)
  std::uint64_t step = 0;                 ///< the world's frame index
  std::vector<Isometry3d> bodyPoses;      ///< X_WB per description body (bodies[0] = identity)
  std::vector<Vector3d> bodyComs;         ///< world centre of mass per description body
  Vector3d systemCom = Vector3d::Zero();  ///< centre of mass of every moving body
  std::vector<JointMark> joints;          ///< per description joint
  std::vector<ClosureMark> closures;      ///< per description closure
  std::vector<ContactMark> contacts;
  std::vector<double> positions;     ///< the world's q
  std::vector<double> velocities;    ///< the world's v
  std::vector<double> sensorValues;  ///< every sensor's reading, in SceneDescription::sensors order
  std::vector<double> jointForces;   ///< per DoF: the generalized force through its joint (with joint forces)
  SimulationStats stats;
};

/// Fills `out` from `world` for the layout of `description` (same world,
/// same design), on the thread that owns the world. Reuses `out`'s
/// storage: once its arrays have their sizes it allocates nothing, except
/// when the contact count exceeds the room kept (twice the count at the
/// last growth). Sets descriptionVersion; does not touch
/// out.version (the publisher numbers snapshots) nor the rate fields of out.stats.
/// `jointForces`: also the joints' reactions (JointMark::force, torque and
/// jointForces), which costs a kinematics and an inverse-dynamics pass.
void fillRenderSnapshot(const World& world, const SceneDescription& description, RenderSnapshot& out,
                        bool jointForces = false);

}  // namespace articula::viewer

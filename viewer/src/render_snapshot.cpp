#include <articula/viewer/render_snapshot.hpp>

#include <articula/viewer/scene_description.hpp>

#include <algorithm>

namespace articula::viewer {

void fillRenderSnapshot(const World& world, const SceneDescription& description, RenderSnapshot& out,
                        bool jointForces) {
  out.descriptionVersion = description.version;
  out.time = world.getTime();
  out.step = world.getFrameIndex();

  const std::size_t nb = description.bodies.size();
  out.bodyPoses.resize(nb);
  out.bodyComs.resize(nb);
  double totalMass = 0.0;
  Vector3d weighted = Vector3d::Zero();
  for (std::size_t i = 0; i < nb; ++i) {
    const BodyDescription& b = description.bodies[i];
    const Isometry3d X = b.kind == BodyKind::World ? Isometry3d::Identity() : b.frame.getWorldTransform();
    out.bodyPoses[i] = X;
    out.bodyComs[i] = X * b.localCom;
    if (b.kind != BodyKind::World && b.mass > 0.0) {
      totalMass += b.mass;
      weighted += b.mass * out.bodyComs[i];
    }
  }
  out.systemCom = totalMass > 0.0 ? Vector3d(weighted / totalMass) : Vector3d::Zero();

  out.joints.resize(description.joints.size());
  for (std::size_t i = 0; i < description.joints.size(); ++i) {
    const JointDescription& j = description.joints[i];
    const Isometry3d X = out.bodyPoses[j.childBody] * j.childOffset;
    out.joints[i].origin = X.translation();
    out.joints[i].axis = X.linear() * j.axis;
    out.joints[i].force.setZero();
    out.joints[i].torque.setZero();
  }
  out.jointForces.assign(jointForces ? static_cast<std::size_t>(world.numDofs()) : 0u, 0.0);
  if (jointForces && world.isSimulationMode()) {
    for (std::size_t i = 0; i < description.joints.size(); ++i) {
      const JointDescription& j = description.joints[i];
      const Vector6d w = j.joint.getReactionWrench(Frame::World());
      out.joints[i].torque = w.head<3>();
      out.joints[i].force = w.tail<3>();
      // The generalized force through each DoF: the wrench along the joint's
      // free directions, i.e. the axis component for the 1-DoF joints.
      if (j.numDofs == 1 && j.velocityOffset >= 0 && j.axis.squaredNorm() > 0.0) {
        const Vector3d axisW = out.joints[i].axis;
        out.jointForces[static_cast<std::size_t>(j.velocityOffset)] =
            j.prismatic ? w.tail<3>().dot(axisW) : w.head<3>().dot(axisW);
      }
    }
  }
  out.sensorValues.resize(static_cast<std::size_t>(description.numSensorValues));
  for (const SensorDescription& s : description.sensors) {
    if (s.valueNames.empty()) continue;
    s.sensor.getReading(
        Eigen::Map<VectorXd>(out.sensorValues.data() + s.offset, static_cast<Eigen::Index>(s.valueNames.size())));
  }

  double maxResidual = 0.0;
  out.closures.resize(description.closures.size());
  for (std::size_t i = 0; i < description.closures.size(); ++i) {
    const LoopClosure& c = description.closures[i].closure;
    ClosureMark& m = out.closures[i];
    m.endpointA = c.getEndpointA().translation();
    m.endpointB = c.getEndpointB().translation();
    m.residual = c.computeResidualNorm();
    m.enabled = c.isEnabled();
    if (m.enabled) maxResidual = std::max(maxResidual, m.residual);
  }

  const std::span<const Contact> contacts = world.getContacts();
  const double dt = world.getOptions().timeStep;
  // Room for twice the count when the array must grow: the count varies
  // from step to step, and each growth would allocate inside step().
  if (out.contacts.capacity() < contacts.size()) out.contacts.reserve(2 * contacts.size());
  out.contacts.resize(contacts.size());
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const Contact& c = contacts[i];
    ContactMark& m = out.contacts[i];
    m.point = c.point;
    m.normal = c.normal;
    m.force = (c.normalImpulse * c.normal + c.frictionImpulse) / dt;
    m.depth = c.depth;
  }

  // Straight into the snapshot's storage: publishing runs inside step(),
  // which allocates nothing once the arrays have their sizes.
  out.positions.resize(static_cast<std::size_t>(world.numPositions()));
  out.velocities.resize(static_cast<std::size_t>(world.numDofs()));
  world.getPositions(Eigen::Map<VectorXd>(out.positions.data(), world.numPositions()));
  world.getVelocities(Eigen::Map<VectorXd>(out.velocities.data(), world.numDofs()));

  SimulationStats& s = out.stats;
  s.timings = world.getLastStepTimings();
  s.kineticEnergy = world.computeKineticEnergy();
  s.potentialEnergy = world.computePotentialEnergy();
  s.maxClosureResidual = maxResidual;
  const StepDiagnostics& d = world.getStepDiagnostics();
  s.solverResidual = d.residual;
  s.solverIterations = d.iterations;
  s.solverConverged = d.converged;
  s.numContacts = static_cast<int>(contacts.size());
  s.simulationMode = world.isSimulationMode();
}

}  // namespace articula::viewer

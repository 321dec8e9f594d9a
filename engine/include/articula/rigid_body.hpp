#pragma once
/// @file
/// RigidBody: a free-floating body (six DoF). A RigidBody is a Frame.

#include <articula/frame.hpp>
#include <articula/options.hpp>
#include <articula/shape.hpp>

#include <vector>

namespace articula {

/// Handle to a free rigid body. Its state is the pose X_WB and the
/// velocity; in the world state vector it occupies a Free-joint segment.
class RigidBody : public Frame {
 public:
  RigidBody() = default;

  Inertia getInertia() const;
  void setInertia(const Inertia& inertia);
  double getMass() const;

  /// X_WB.
  Isometry3d getPose() const;
  void setPose(const Isometry3d& X_WB);
  /// Velocity of the body origin, world coordinates (m/s).
  Vector3d getLinearVelocityWorld() const;
  /// Angular velocity, world coordinates (rad/s).
  Vector3d getAngularVelocityWorld() const;
  void setVelocityWorld(const Vector3d& linear, const Vector3d& angular);

  /// Same as World::addCollisionShape / addVisualShape with this body as owner.
  Shape addCollisionShape(const CollisionShapeOptions& options);
  Shape addVisualShape(const VisualShapeOptions& options);
  std::vector<Shape> getCollisionShapes() const;
  std::vector<Shape> getVisualShapes() const;

  /// See Link::addExternalForce.
  void addExternalForce(const Vector3d& force, const Vector3d& offset = Vector3d::Zero(), bool forceInWorld = true,
                        bool offsetInWorld = false);
  void addExternalTorque(const Vector3d& torque, bool inWorld = true);
  void clearExternalForces();

  double computeKineticEnergy() const;
  Vector3d getLinearMomentum() const;
  /// About the world point `point`, world coordinates.
  Vector3d getAngularMomentum(const Vector3d& point = Vector3d::Zero()) const;

 private:
  using Frame::Frame;
  friend class World;
};

}  // namespace articula

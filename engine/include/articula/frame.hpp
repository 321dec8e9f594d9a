#pragma once
/// @file
/// Frame handles and frame semantics: transforms, velocities and
/// accelerations of any frame relative to any frame, in the coordinates of
/// any frame (docs/notation.md).

#include <articula/types.hpp>

#include <cstdint>
#include <string>

namespace articula {

namespace detail {
struct Access;
}

class World;

/// What a Frame handle refers to.
enum class FrameKind : std::uint8_t {
  None,        ///< default-constructed handle; invalid
  World,       ///< the inertial world frame (shared by every World)
  Link,        ///< a multibody link
  RigidBody,   ///< a free rigid body
  FreeFrame,   ///< a user frame with settable relative transform, velocity and acceleration
  FixedFrame,  ///< a user frame rigidly attached to its parent
};

/// A cheap handle to a frame (world pointer, id, generation).
///
/// Queries are fresh: after any state write (joint positions, velocities,
/// free-frame motion) they return values for the new state.
/// Velocities are first derivatives, accelerations second derivatives as
/// observed from the `relativeTo` frame (which may be non-inertial; see the
/// relative-acceleration formula in docs/notation.md); accelerations of
/// links and rigid bodies are those of the last computed dynamics (step()
/// or setAccelerations()).
///
/// A handle must not be used after its World is destroyed.
/// @throws InvalidHandle from every query when !isValid() (the world frame
///         is always valid).
class Frame {
 public:
  Frame() = default;

  /// The inertial world frame.
  static Frame World();

  /// True for the world frame, or when the referenced object still exists.
  bool isValid() const;
  bool isWorld() const { return m_kind == FrameKind::World; }
  FrameKind kind() const { return m_kind; }
  /// Name of the frame ("world" for the world frame).
  std::string name() const;
  /// Renames a rigid body, a user frame or a link (design mode). A link's
  /// name is the part after "multibody/" and is unique in its multibody;
  /// the others share the world's namespace.
  /// @throws TopologyError for a taken name, InvalidArgument for an empty
  ///         name, one with '/', or the world frame; LifecycleError in
  ///         simulation mode.
  void setName(const std::string& name);
  /// The frame this one is attached to (the world for links' roots and
  /// rigid bodies; the parent link for links). Invalid for the world frame.
  Frame getParentFrame() const;

  /// X_RF: pose of this frame F relative to `relativeTo` R.
  Isometry3d getTransform(const Frame& relativeTo = Frame::World()) const;
  /// X_RF with its rotation and translation re-expressed in `inCoordinatesOf`.
  Isometry3d getTransform(const Frame& relativeTo, const Frame& inCoordinatesOf) const;
  /// X_WF.
  Isometry3d getWorldTransform() const { return getTransform(Frame::World()); }

  /// Body twist of this frame relative to the world, in this frame's
  /// coordinates: [ω; v of the origin] (rad/s, m/s).
  Vector6d getSpatialVelocity() const;
  /// Relative twist [ω_FR; v_FR of the origin] of this frame relative to R,
  /// expressed in C (the quantities of getAngularVelocity/getLinearVelocity).
  Vector6d getSpatialVelocity(const Frame& relativeTo, const Frame& inCoordinatesOf) const;
  /// Linear velocity of the point at `offset` (in this frame, m) relative to
  /// R, expressed in C (m/s).
  Vector3d getLinearVelocity(const Frame& relativeTo = Frame::World(),
                             const Frame& inCoordinatesOf = Frame::World()) const;
  Vector3d getLinearVelocity(const Vector3d& offset, const Frame& relativeTo = Frame::World(),
                             const Frame& inCoordinatesOf = Frame::World()) const;
  /// Angular velocity relative to R, expressed in C (rad/s).
  Vector3d getAngularVelocity(const Frame& relativeTo = Frame::World(),
                              const Frame& inCoordinatesOf = Frame::World()) const;

  /// Derivative of the body twist (body coordinates) relative to the world:
  /// [ω̇; v̇] with the classical linear acceleration of the origin equal to
  /// R·(v̇ + ω × v).
  Vector6d getSpatialAcceleration() const;
  /// Linear acceleration of the point at `offset` as observed from R, in C (m/s²).
  Vector3d getLinearAcceleration(const Frame& relativeTo = Frame::World(),
                                 const Frame& inCoordinatesOf = Frame::World()) const;
  Vector3d getLinearAcceleration(const Vector3d& offset, const Frame& relativeTo = Frame::World(),
                                 const Frame& inCoordinatesOf = Frame::World()) const;
  /// Angular acceleration as observed from R, in C (rad/s²).
  Vector3d getAngularAcceleration(const Frame& relativeTo = Frame::World(),
                                  const Frame& inCoordinatesOf = Frame::World()) const;

  friend bool operator==(const Frame& a, const Frame& b) {
    return a.m_world == b.m_world && a.m_kind == b.m_kind && a.m_index == b.m_index && a.m_generation == b.m_generation;
  }
  friend bool operator!=(const Frame& a, const Frame& b) { return !(a == b); }

  /// Internal: stable index of the referenced object.
  std::uint32_t index() const { return m_index; }
  /// Internal: generation of the referenced object.
  std::uint32_t generation() const { return m_generation; }
  /// The owning world (null for the world frame and invalid handles).
  articula::World* world() const { return m_world; }

 protected:
  Frame(articula::World* world, FrameKind kind, std::uint32_t index, std::uint32_t generation)
      : m_world(world), m_kind(kind), m_index(index), m_generation(generation) {}

  articula::World* m_world = nullptr;
  FrameKind m_kind = FrameKind::None;
  std::uint32_t m_index = 0;
  std::uint32_t m_generation = 0;

  friend class World;
  friend struct detail::Access;
};

/// A user frame with a settable pose, velocity and acceleration relative to
/// its parent frame (a "simple frame"). Its motion is kinematic input, not
/// simulated.
class FreeFrame : public Frame {
 public:
  FreeFrame() = default;
  /// Pose of this frame in its parent frame.
  Isometry3d getRelativeTransform() const;
  void setRelativeTransform(const Isometry3d& X_PF);
  /// Sets the pose so that getTransform(relativeTo) == X_RF.
  void setTransform(const Isometry3d& X_RF, const Frame& relativeTo = Frame::World());
  /// Twist relative to the parent, in this frame's coordinates [ω; v].
  void setRelativeSpatialVelocity(const Vector6d& V);
  Vector6d getRelativeSpatialVelocity() const;
  /// Derivative of the relative twist, in this frame's coordinates.
  void setRelativeSpatialAcceleration(const Vector6d& A);
  Vector6d getRelativeSpatialAcceleration() const;

 private:
  using Frame::Frame;
  friend class World;
};

/// A user frame rigidly attached to its parent frame.
class FixedFrame : public Frame {
 public:
  FixedFrame() = default;
  /// Pose of this frame in its parent frame (set at creation).
  Isometry3d getRelativeTransform() const;

 private:
  using Frame::Frame;
  friend class World;
};

}  // namespace articula

#pragma once
/// @file
/// StateSpace (named flat-vector metadata) and WorldState (a copy of the
/// whole runtime state).

#include <articula/joint_spec.hpp>
#include <articula/types.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace articula {

/// One joint's segment of the world's q and v vectors.
struct StateSegment {
  std::string owner;  ///< multibody or rigid-body name
  std::string joint;  ///< joint name (empty for a rigid body)
  JointType type = JointType::Weld;
  int positionOffset = 0;  ///< first index in q
  int numPositions = 0;    ///< length in q
  int velocityOffset = 0;  ///< first index in v
  int numDofs = 0;         ///< length in v
};

/// Constraint rows that loop closures and joint couplers add on top of the
/// tree coordinates (the DoF counts do not change).
struct ConstraintBlock {
  std::string name;    ///< closure or coupler name
  std::string kind;    ///< "loop_closure" or "joint_coupler"
  std::string family;  ///< closure family name, or "coupler"
  int rowOffset = 0;   ///< first row in the stacked residual (creation order, closures then couplers)
  int numRows = 0;
};

/// Named metadata of the world's flat state vectors. A value object: it
/// does not change when the world's topology changes afterwards.
///
/// Entry names are "owner/joint/q<i>" and "owner/joint/v<i>" ("owner/q<i>"
/// for rigid bodies).
class StateSpace {
 public:
  StateSpace() = default;
  explicit StateSpace(std::vector<StateSegment> segments, std::vector<ConstraintBlock> constraints = {});

  int numPositions() const { return m_nq; }
  int numVelocities() const { return m_nv; }
  const std::vector<StateSegment>& segments() const { return m_segments; }
  const std::vector<std::string>& positionNames() const { return m_qNames; }
  const std::vector<std::string>& velocityNames() const { return m_vNames; }
  std::optional<int> positionIndex(const std::string& name) const;
  std::optional<int> velocityIndex(const std::string& name) const;
  /// Segment of a joint (or a rigid body with joint == "").
  std::optional<StateSegment> segment(const std::string& owner, const std::string& joint = {}) const;
  /// Closure and coupler rows (metadata; not part of q or v).
  const std::vector<ConstraintBlock>& constraintBlocks() const { return m_constraints; }
  int numConstraintRows() const { return m_nc; }

 private:
  std::vector<StateSegment> m_segments;
  std::vector<std::string> m_qNames;
  std::vector<std::string> m_vNames;
  std::vector<ConstraintBlock> m_constraints;
  int m_nq = 0;
  int m_nc = 0;
  int m_nv = 0;
};

/// A copy of the world's mutable runtime state. Sizes follow StateSpace.
struct WorldState {
  double time = 0.0;             ///< simulated time (s)
  std::uint64_t frameIndex = 0;  ///< number of steps taken since simulation mode was entered
  VectorXd positions;            ///< q (nq)
  VectorXd velocities;           ///< v (nv)
  VectorXd accelerations;        ///< v̇ of the last dynamics computation (nv)
  VectorXd forces;               ///< applied generalized forces τ (nv)
  Matrix6Xd externalWrenches;    ///< per body [torque; force] about the body origin, body coordinates (6 × bodies)
};

}  // namespace articula

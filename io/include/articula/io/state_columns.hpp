#pragma once
/// @file
/// Names of the world's state coordinates, as run logs (CSV and HDF5) write
/// them in their column names and articula-run reads them in --set.

#include <articula/world.hpp>

#include <string>
#include <vector>

namespace articula::io {

/// One joint (or rigid body) with coordinates, in state packing order.
struct StateOwner {
  std::string name;       ///< the column base: joint, multibody/joint when the joint name is not unique, or body
  std::string multibody;  ///< empty for a rigid body
  std::string joint;      ///< empty for a rigid body
  int positionOffset = 0;
  int numPositions = 0;
  int velocityOffset = 0;
  int numDofs = 0;
};

/// Coordinate names: `<joint>` for a joint with one coordinate,
/// `<joint>:<k>` for one with several, `<body>:<k>` for a rigid body.
class StateColumns {
 public:
  explicit StateColumns(const World& world);

  const std::vector<StateOwner>& owners() const { return m_owners; }
  /// Names of q and v in packing order (without the "q:" / "v:" prefix).
  const std::vector<std::string>& positionNames() const { return m_q; }
  const std::vector<std::string>& velocityNames() const { return m_v; }

  /// The index in q of a --set name (`joint`, `multibody/joint`, `joint:K`,
  /// `body:K`, optionally prefixed with `q:`), and its owner.
  /// @throws InvalidArgument naming the problem (unknown, ambiguous, multi-DoF without :K).
  int resolvePosition(const std::string& name, const StateOwner** owner = nullptr) const;

 private:
  std::vector<StateOwner> m_owners;
  std::vector<std::string> m_q;
  std::vector<std::string> m_v;
  std::vector<std::string> m_ambiguousJoints;  ///< joint names used in more than one multibody
  std::vector<std::string> m_fixedJoints;      ///< joints without coordinates (weld), plain and qualified
};

}  // namespace articula::io

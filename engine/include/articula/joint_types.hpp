#pragma once
/// @file
/// One table of facts per joint type: coordinate counts, which spec axes
/// the type reads, what each position and velocity coordinate is, and its
/// name. The engine, the importers and exporters, the viewer and the studio
/// all read this table, so they cannot disagree about a type.

#include <articula/joint_spec.hpp>

#include <array>
#include <span>
#include <string_view>

namespace articula {

/// What one position coordinate of a joint measures.
enum class CoordinateKind {
  Angle,      ///< radians
  Length,     ///< metres
  Quaternion  ///< a component of a unit quaternion [x, y, z, w] (no unit)
};

/// Which line the viewer draws for a joint (and what "the joint's axis" means).
enum class ShownAxis {
  None,   ///< no single axis (weld, ball, euler, translational, free)
  Axis,   ///< JointSpec::axis
  Normal  ///< axis × axis2, the rotation axis of a planar joint
};

/// Facts of one joint type.
struct JointTypeInfo {
  JointType type;                                ///< the type these facts describe
  std::string_view name;                         ///< lower-case name, as scene files spell it ("revolute")
  int numPositions;                              ///< nq
  int numDofs;                                   ///< nv
  int numAxes;                                   ///< how many of JointSpec::axis, axis2 the type reads (0, 1 or 2)
  int quaternionStart;                           ///< index of the unit quaternion in q, or -1
  bool constantMotionSubspace;                   ///< S does not depend on q
  ShownAxis shownAxis;                           ///< the axis a viewer shows
  std::array<CoordinateKind, 7> positionKind;    ///< first numPositions entries are used
  std::array<std::string_view, 7> positionName;  ///< short names, UTF-8 ("θ", "x", "qw")
  std::array<bool, 6> angularDof;                ///< velocity coordinate k is a rate of rotation (rad/s)
  std::array<std::string_view, 6> dofName;       ///< short names, UTF-8 ("ω_x", "v_x")

  /// Whether q is a plain vector (no quaternion): springs, rest positions
  /// and per-coordinate limits apply to it.
  bool vectorPositions() const { return quaternionStart < 0; }
  /// Whether position coordinate i is an angle.
  bool isAngle(int i) const {
    return i >= 0 && i < numPositions && positionKind[static_cast<std::size_t>(i)] == CoordinateKind::Angle;
  }
  /// Whether position coordinate i is a length.
  bool isLength(int i) const {
    return i >= 0 && i < numPositions && positionKind[static_cast<std::size_t>(i)] == CoordinateKind::Length;
  }
  /// Whether velocity coordinate k is a rate of rotation.
  bool isAngularDof(int k) const { return k >= 0 && k < numDofs && angularDof[static_cast<std::size_t>(k)]; }
};

/// The facts of a joint type.
const JointTypeInfo& jointTypeInfo(JointType type);

/// Every joint type, in the order of the enumeration.
std::span<const JointTypeInfo> jointTypes();

/// The type with this lower-case name, or false.
bool jointTypeFromString(std::string_view name, JointType& type);

}  // namespace articula

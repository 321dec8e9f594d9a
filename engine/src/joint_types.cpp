#include <articula/joint_types.hpp>

namespace articula {

namespace {

using K = CoordinateKind;
constexpr K A = K::Angle;
constexpr K L = K::Length;
constexpr K Q = K::Quaternion;

// In the order of the enumeration (checked by jointTypeInfo).
constexpr std::array<JointTypeInfo, 10> kJointTypes{{
    {JointType::Weld, "weld", 0, 0, 0, -1, true, ShownAxis::None, {}, {}, {}, {}},
    {JointType::Revolute, "revolute", 1, 1, 1, -1, true, ShownAxis::Axis, {A}, {"θ"}, {true}, {"θ̇"}},
    {JointType::Prismatic, "prismatic", 1, 1, 1, -1, true, ShownAxis::Axis, {L}, {"d"}, {false}, {"ḋ"}},
    {JointType::Screw, "screw", 1, 1, 1, -1, true, ShownAxis::Axis, {A}, {"θ"}, {true}, {"θ̇"}},
    {JointType::Universal,
     "universal",
     2,
     2,
     2,
     -1,
     false,
     ShownAxis::Axis,
     {A, A},
     {"θ1", "θ2"},
     {true, true},
     {"θ̇1", "θ̇2"}},
    {JointType::Ball,
     "ball",
     4,
     3,
     0,
     0,
     true,
     ShownAxis::None,
     {Q, Q, Q, Q},
     {"qx", "qy", "qz", "qw"},
     {true, true, true},
     {"ωx", "ωy", "ωz"}},
    {JointType::Euler,
     "euler",
     3,
     3,
     0,
     -1,
     false,
     ShownAxis::None,
     {A, A, A},
     {"α", "β", "γ"},
     {true, true, true},
     {"α̇", "β̇", "γ̇"}},
    {JointType::Planar,
     "planar",
     3,
     3,
     2,
     -1,
     false,
     ShownAxis::Normal,
     {L, L, A},
     {"x", "y", "θ"},
     {false, false, true},
     {"ẋ", "ẏ", "θ̇"}},
    {JointType::Translational,
     "translational",
     3,
     3,
     0,
     -1,
     true,
     ShownAxis::None,
     {L, L, L},
     {"x", "y", "z"},
     {false, false, false},
     {"ẋ", "ẏ", "ż"}},
    {JointType::Free,
     "free",
     7,
     6,
     0,
     3,
     true,
     ShownAxis::None,
     {L, L, L, Q, Q, Q, Q},
     {"x", "y", "z", "qx", "qy", "qz", "qw"},
     {true, true, true, false, false, false},
     {"ωx", "ωy", "ωz", "vx", "vy", "vz"}},
}};

constexpr bool tableInEnumOrder() {
  for (std::size_t i = 0; i < kJointTypes.size(); ++i)
    if (static_cast<std::size_t>(kJointTypes[i].type) != i) return false;
  return true;
}
static_assert(tableInEnumOrder(), "the joint-type table follows the enumeration");
static_assert(kJointTypes.back().type == JointType::Free, "every joint type has a row");

}  // namespace

const JointTypeInfo& jointTypeInfo(JointType type) {
  const auto i = static_cast<std::size_t>(type);
  return i < kJointTypes.size() ? kJointTypes[i] : kJointTypes[0];
}

std::span<const JointTypeInfo> jointTypes() {
  return kJointTypes;
}

bool jointTypeFromString(std::string_view name, JointType& type) {
  for (const JointTypeInfo& info : kJointTypes) {
    if (info.name == name) {
      type = info.type;
      return true;
    }
  }
  return false;
}

int numPositions(JointType type) {
  return jointTypeInfo(type).numPositions;
}

int numDofs(JointType type) {
  return jointTypeInfo(type).numDofs;
}

std::string_view toString(JointType type) {
  const auto i = static_cast<std::size_t>(type);
  return i < kJointTypes.size() ? kJointTypes[i].name : std::string_view("unknown");
}

}  // namespace articula

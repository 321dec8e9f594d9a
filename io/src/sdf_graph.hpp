#pragma once
// The SDF pre-pass's graph: the links and joints of one top-level model
// (nested models flattened), and the spanning forest that decides which
// joints are tree joints, which close loops and which couple joints. No
// sdformat types beyond the pointers back to the parsed elements, so that
// the forest is plain graph code.
//
// Per model: every joint to the world (file order) roots a tree at its
// moving link unless that link is already reached; the canonical link, then
// every link not reached yet (file order), roots a tree with a free root.
// From each root the tree grows breadth first over the joints in file
// order; the first joint that reaches a link is its tree joint and every
// later one closes a loop. Joints marked must_be_loop_joint are never tree
// joints; gearbox joints are couplings.

#include <sdf/sdf_config.h>

#include <Eigen/Geometry>

#include <map>
#include <string>
#include <vector>

namespace sdf {
inline namespace SDF_VERSION_NAMESPACE {
class Joint;
class Link;
}  // namespace SDF_VERSION_NAMESPACE
}  // namespace sdf

namespace articula::io::detail {

/// One link of a top-level model (nested models flattened).
struct SdfLinkNode {
  const sdf::Link* link = nullptr;
  std::string name;  ///< scoped name relative to the top-level model
  Eigen::Isometry3d X_WL = Eigen::Isometry3d::Identity();
  bool anchored = false;  ///< part of a static model: fixed to the world
};

/// One joint of a top-level model. Link indices: -1 is the world.
struct SdfJointNode {
  const sdf::Joint* joint = nullptr;
  std::string name;    ///< scoped name relative to the top-level model
  std::string prefix;  ///< scope of the joint ("" or "inner::")
  std::string type;    ///< as written in the file
  int parent = -1;
  int child = -1;
  Eigen::Isometry3d X_WJ = Eigen::Isometry3d::Identity();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();    ///< joint frame (SDF's default when <axis> is absent)
  Eigen::Vector3d axis2 = Eigen::Vector3d::UnitZ();   ///< joint frame
  Eigen::Vector3d axisW = Eigen::Vector3d::UnitZ();   ///< world frame
  Eigen::Vector3d axis2W = Eigen::Vector3d::UnitZ();  ///< world frame
  bool mustBeLoop = false;
};

enum class SdfJointRole { Unassigned, Tree, Cut, Coupling, Ignored };

struct SdfModelGraph {
  std::string name;
  std::vector<SdfLinkNode> links;
  std::vector<SdfJointNode> joints;
  std::map<std::string, int> linkIndex;
  std::map<std::string, int> jointIndex;
  int canonical = -1;
};

struct SdfTree {
  int root = -1;
  std::vector<int> links;  ///< breadth-first order, the root first
};

struct SdfForest {
  std::vector<SdfTree> trees;
  std::vector<SdfJointRole> role;
  std::vector<std::string> reason;  ///< per joint: why it closes a loop (Cut) or was dropped (Ignored)
  std::vector<int> treeJoint;       ///< per link: the joint that reached it, or -1
  std::vector<int> treeOf;          ///< per link: index into trees, or -1
};

/// A link index that is the world or a link fixed to it.
bool isGround(const SdfModelGraph& g, int link);
/// "world" for -1, else the link's scoped name.
std::string linkName(const SdfModelGraph& g, int link);

/// The spanning forest of `g`. With `floatingRoot`, joints to the world are
/// dropped (Ignored, with the reason) and every tree gets a free root.
SdfForest spanningForest(const SdfModelGraph& g, bool floatingRoot);

}  // namespace articula::io::detail

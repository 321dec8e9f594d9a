// The spanning forest of an SDF model graph (sdf_graph.hpp).
#include "sdf_graph.hpp"

#include <deque>

namespace articula::io::detail {

namespace {

std::string inQuotes(const std::string& s) {
  return "'" + s + "'";
}

std::string alreadyReached(const SdfModelGraph& g, const SdfForest& f, int link, const std::string& closing) {
  const auto li = static_cast<std::size_t>(link);
  const SdfTree& tree = f.trees[static_cast<std::size_t>(f.treeOf[li])];
  const std::string how = f.treeJoint[li] >= 0 ? "is already reached through joint " +
                                                     inQuotes(g.joints[static_cast<std::size_t>(f.treeJoint[li])].name)
                                               : "is the root";
  return "link " + inQuotes(linkName(g, link)) + " " + how + " (breadth-first from root " +
         inQuotes(linkName(g, tree.root)) + "); " + inQuotes(closing) + " closes the loop";
}

/// Grows tree `t` breadth first from its root over link-to-link joints.
void grow(const SdfModelGraph& g, SdfForest& f, int t, const std::vector<std::vector<int>>& incident) {
  const int root = f.trees[static_cast<std::size_t>(t)].root;
  std::deque<int> queue{root};
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (const int ji : incident[static_cast<std::size_t>(u)]) {
      const SdfJointNode& j = g.joints[static_cast<std::size_t>(ji)];
      SdfJointRole& role = f.role[static_cast<std::size_t>(ji)];
      if (role != SdfJointRole::Unassigned || j.mustBeLoop || j.type == "gearbox") continue;
      const int v = j.parent == u ? j.child : j.parent;
      if (isGround(g, v)) continue;
      const auto vi = static_cast<std::size_t>(v);
      if (f.treeOf[vi] < 0) {
        role = SdfJointRole::Tree;
        f.treeOf[vi] = t;
        f.treeJoint[vi] = ji;
        f.trees[static_cast<std::size_t>(t)].links.push_back(v);
        queue.push_back(v);
      } else {
        role = SdfJointRole::Cut;
        f.reason[static_cast<std::size_t>(ji)] = alreadyReached(g, f, v, j.name);
      }
    }
  }
}

}  // namespace

bool isGround(const SdfModelGraph& g, int link) {
  return link < 0 || g.links[static_cast<std::size_t>(link)].anchored;
}

std::string linkName(const SdfModelGraph& g, int link) {
  return link < 0 ? "world" : g.links[static_cast<std::size_t>(link)].name;
}

SdfForest spanningForest(const SdfModelGraph& g, bool floatingRoot) {
  SdfForest f;
  f.role.assign(g.joints.size(), SdfJointRole::Unassigned);
  f.reason.assign(g.joints.size(), {});
  f.treeJoint.assign(g.links.size(), -1);
  f.treeOf.assign(g.links.size(), -1);
  std::vector<std::vector<int>> incident(g.links.size());
  for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
    const SdfJointNode& j = g.joints[ji];
    if (j.parent >= 0) incident[static_cast<std::size_t>(j.parent)].push_back(static_cast<int>(ji));
    incident[static_cast<std::size_t>(j.child)].push_back(static_cast<int>(ji));
  }
  auto newTree = [&](int root, int rootJoint) {
    const int t = static_cast<int>(f.trees.size());
    f.trees.push_back(SdfTree{root, {root}});
    f.treeOf[static_cast<std::size_t>(root)] = t;
    f.treeJoint[static_cast<std::size_t>(root)] = rootJoint;
    if (rootJoint >= 0) f.role[static_cast<std::size_t>(rootJoint)] = SdfJointRole::Tree;
    grow(g, f, t, incident);
  };
  // Joints to the world (or to static links), in file order.
  for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
    const SdfJointNode& j = g.joints[ji];
    const bool parentGround = isGround(g, j.parent);
    const bool childGround = isGround(g, j.child);
    if (j.type == "gearbox") {
      f.role[ji] = SdfJointRole::Coupling;
      continue;
    }
    if (parentGround && childGround) {
      f.role[ji] = SdfJointRole::Ignored;
      f.reason[ji] = "joint " + inQuotes(j.name) + " connects " + inQuotes(linkName(g, j.parent)) + " and " +
                     inQuotes(linkName(g, j.child)) + ", which are both fixed to the world: ignored";
      continue;
    }
    if (!parentGround && !childGround) continue;
    if (floatingRoot) {
      f.role[ji] = SdfJointRole::Ignored;
      f.reason[ji] = "joint " + inQuotes(j.name) + " to " + inQuotes(linkName(g, parentGround ? j.parent : j.child)) +
                     " is dropped: the import options ask for a floating root";
      continue;
    }
    if (j.mustBeLoop) continue;
    const int link = parentGround ? j.child : j.parent;
    if (f.treeOf[static_cast<std::size_t>(link)] < 0) {
      newTree(link, static_cast<int>(ji));
    } else {
      f.role[ji] = SdfJointRole::Cut;
      f.reason[ji] = alreadyReached(g, f, link, j.name);
    }
  }
  // Floating roots: the canonical link first, then the others in file order.
  if (g.canonical >= 0 && !isGround(g, g.canonical) && f.treeOf[static_cast<std::size_t>(g.canonical)] < 0) {
    newTree(g.canonical, -1);
  }
  for (std::size_t li = 0; li < g.links.size(); ++li) {
    if (!g.links[li].anchored && f.treeOf[li] < 0) newTree(static_cast<int>(li), -1);
  }
  for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
    if (f.role[ji] == SdfJointRole::Unassigned && g.joints[ji].mustBeLoop) {
      f.role[ji] = SdfJointRole::Cut;
      f.reason[ji] = "marked must_be_loop_joint";
    }
  }
  return f;
}

}  // namespace articula::io::detail

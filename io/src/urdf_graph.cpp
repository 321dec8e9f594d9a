#include "urdf_graph.hpp"

#include <articula/io/scene_file.hpp>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <set>

namespace articula::io::detail {

namespace {

using tinyxml2::XMLElement;

std::string attribute(const XMLElement* e, const char* name) {
  const char* v = e->Attribute(name);
  return v != nullptr ? std::string(v) : std::string();
}

// The link named by <tag link="..."/> inside a joint, or empty.
std::string linkReference(const XMLElement* joint, const char* tag, int* line) {
  const XMLElement* e = joint->FirstChildElement(tag);
  if (e == nullptr) return {};
  *line = e->GetLineNum();
  return attribute(e, "link");
}

bool knownJointType(const std::string& t) {
  static const std::set<std::string> types{"revolute", "continuous", "prismatic", "fixed", "floating", "planar"};
  return types.count(t) != 0;
}

}  // namespace

UrdfGraph analyzeUrdf(const tinyxml2::XMLDocument& doc, const std::string& file) {
  const XMLElement* robot = doc.RootElement();
  if (robot == nullptr || std::string(robot->Name()) != "robot") {
    throw ImportError(file, robot != nullptr ? robot->GetLineNum() : 0,
                      std::string("expected a <robot> root element, found ") +
                          (robot != nullptr ? "<" + std::string(robot->Name()) + ">" : "no element"));
  }
  UrdfGraph g;
  g.robotName = attribute(robot, "name");
  g.robotLine = robot->GetLineNum();
  if (g.robotName.empty()) {
    // Named after the file instead (the importer reports it).
    g.robotName = std::filesystem::path(file).stem().string();
    if (g.robotName.empty()) g.robotName = "robot";
  }

  for (const XMLElement* e = robot->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "link") {
      UrdfLinkNode n{attribute(e, "name"), e->GetLineNum(), e};
      if (n.name.empty()) throw ImportError(file, n.line, "<link> has no name attribute");
      const auto [it, inserted] = g.linkIndex.emplace(n.name, static_cast<int>(g.links.size()));
      if (!inserted) {
        throw ImportError(file, n.line,
                          "duplicate link name '" + n.name + "' (first defined at line " +
                              std::to_string(g.links[static_cast<std::size_t>(it->second)].line) + ")");
      }
      g.links.push_back(n);
    } else if (tag == "joint" || tag == "loop_joint") {
      UrdfJointNode j;
      j.name = attribute(e, "name");
      j.type = attribute(e, "type");
      j.line = e->GetLineNum();
      j.loopElement = tag == "loop_joint";
      j.element = e;
      if (j.name.empty()) throw ImportError(file, j.line, "<" + tag + "> has no name attribute");
      if (j.type.empty()) throw ImportError(file, j.line, "joint '" + j.name + "' has no type attribute");
      if (!knownJointType(j.type)) {
        throw ImportError(file, j.line,
                          "joint '" + j.name + "' has unknown type '" + j.type +
                              "' (expected revolute, continuous, prismatic, fixed, floating or planar)");
      }
      const auto [it, inserted] = g.jointIndex.emplace(j.name, static_cast<int>(g.joints.size()));
      if (!inserted) {
        throw ImportError(file, j.line,
                          "duplicate joint name '" + j.name + "' (first defined at line " +
                              std::to_string(g.joints[static_cast<std::size_t>(it->second)].line) + ")");
      }
      g.joints.push_back(j);
    }
  }
  if (g.links.empty()) throw ImportError(file, g.robotLine, "robot '" + g.robotName + "' has no links");

  // References.
  for (UrdfJointNode& j : g.joints) {
    int lineP = j.line;
    int lineC = j.line;
    const bool pairForm = j.loopElement && j.element->FirstChildElement("link1") != nullptr;
    j.parent = linkReference(j.element, pairForm ? "link1" : "parent", &lineP);
    j.child = linkReference(j.element, pairForm ? "link2" : "child", &lineC);
    const char* pTag = pairForm ? "<link1 link=...>" : "<parent link=...>";
    const char* cTag = pairForm ? "<link2 link=...>" : "<child link=...>";
    if (j.parent.empty()) throw ImportError(file, j.line, "joint '" + j.name + "' has no " + pTag);
    if (j.child.empty()) throw ImportError(file, j.line, "joint '" + j.name + "' has no " + cTag);
    if (g.linkIndex.count(j.parent) == 0) {
      throw ImportError(file, lineP,
                        "joint '" + j.name + "' names parent link '" + j.parent + "', which does not exist");
    }
    if (g.linkIndex.count(j.child) == 0) {
      throw ImportError(file, lineC, "joint '" + j.name + "' names child link '" + j.child + "', which does not exist");
    }
    if (j.parent == j.child) {
      throw ImportError(file, j.line, "joint '" + j.name + "' connects link '" + j.parent + "' to itself");
    }
  }

  // Roots: links that are no joint's child.
  std::vector<int> parentsOf(g.links.size(), 0);
  for (const UrdfJointNode& j : g.joints) {
    if (!j.loopElement) ++parentsOf[static_cast<std::size_t>(g.linkIndex.at(j.child))];
  }
  std::vector<int> roots;
  for (std::size_t i = 0; i < g.links.size(); ++i) {
    if (parentsOf[i] == 0) roots.push_back(static_cast<int>(i));
  }
  if (roots.empty()) {
    // Walk up first parents from the first link until a link repeats: the cycle.
    std::vector<std::string> path;
    std::set<std::string> seen;
    std::string link = g.links.front().name;
    while (seen.insert(link).second) {
      path.push_back(link);
      for (const UrdfJointNode& j : g.joints) {
        if (!j.loopElement && j.child == link) {
          link = j.parent;
          break;
        }
      }
    }
    std::string cycle = link;
    for (auto it = std::find(path.begin(), path.end(), link) + 1; it != path.end(); ++it) cycle += " ← " + *it;
    throw ImportError(
        file, g.robotLine,
        "no root link: every link is the child of a joint, so the joints form a cycle through the root (" + cycle +
            " ← " + link + ")");
  }
  if (roots.size() > 1) {
    std::string names;
    for (const int r : roots) {
      names += (names.empty() ? "'" : ", '") + g.links[static_cast<std::size_t>(r)].name + "' (line " +
               std::to_string(g.links[static_cast<std::size_t>(r)].line) + ")";
    }
    throw ImportError(file, g.links[static_cast<std::size_t>(roots[1])].line,
                      "several root links: " + names + "; a URDF robot is one connected tree with one root");
  }
  g.root = roots.front();

  // Spanning tree: breadth first from the root, joints in file order. The
  // first joint that reaches a link is its tree joint; every later one closes
  // a loop.
  g.parentJoint.assign(g.links.size(), -1);
  std::vector<bool> reached(g.links.size(), false);
  std::vector<bool> cut(g.joints.size(), false);
  std::vector<std::vector<int>> childrenJoints(g.links.size());
  for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
    const UrdfJointNode& j = g.joints[ji];
    if (j.loopElement) continue;
    childrenJoints[static_cast<std::size_t>(g.linkIndex.at(j.parent))].push_back(static_cast<int>(ji));
  }
  std::deque<int> queue{g.root};
  reached[static_cast<std::size_t>(g.root)] = true;
  while (!queue.empty()) {
    const int link = queue.front();
    queue.pop_front();
    for (const int ji : childrenJoints[static_cast<std::size_t>(link)]) {
      const UrdfJointNode& j = g.joints[static_cast<std::size_t>(ji)];
      const auto child = static_cast<std::size_t>(g.linkIndex.at(j.child));
      if (!reached[child]) {
        reached[child] = true;
        g.parentJoint[child] = ji;
        g.treeJoints.push_back(ji);
        queue.push_back(static_cast<int>(child));
      } else {
        cut[static_cast<std::size_t>(ji)] = true;
      }
    }
  }
  for (std::size_t i = 0; i < g.links.size(); ++i) {
    if (!reached[i]) {
      throw ImportError(file, g.links[i].line,
                        "link '" + g.links[i].name + "' cannot be reached from the root link '" +
                            g.links[static_cast<std::size_t>(g.root)].name +
                            "': its joints form a cycle that is not connected to the root");
    }
  }
  for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
    const UrdfJointNode& j = g.joints[ji];
    if (j.loopElement) {
      g.cuts.push_back({static_cast<int>(ji), "declared as <loop_joint>"});
    } else if (cut[ji]) {
      const int tree = g.parentJoint[static_cast<std::size_t>(g.linkIndex.at(j.child))];
      const UrdfJointNode& t = g.joints[static_cast<std::size_t>(tree)];
      g.cuts.push_back({static_cast<int>(ji), "link '" + j.child + "' has two parent joints; '" + t.name + "' (line " +
                                                  std::to_string(t.line) +
                                                  ") is reached first breadth-first from the root, so '" + j.name +
                                                  "' closes the loop"});
    }
  }
  return g;
}

UrdfGraph analyzeUrdfText(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& file) {
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
    throw ImportError(file, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  }
  return analyzeUrdf(doc, file);
}

}  // namespace articula::io::detail

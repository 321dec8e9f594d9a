#pragma once
// The URDF pre-pass: reads the link/joint graph with tinyxml2 (which knows
// line numbers and does not mind loops), checks names and references, picks a
// spanning tree from the root and says which joints close loops.

#include <tinyxml2.h>

#include <map>
#include <string>
#include <vector>

namespace articula::io::detail {

struct UrdfLinkNode {
  std::string name;
  int line = 0;
  const tinyxml2::XMLElement* element = nullptr;
};

struct UrdfJointNode {
  std::string name;
  std::string type;
  std::string parent;
  std::string child;
  int line = 0;
  bool loopElement = false;  ///< written as <loop_joint>: always a closure
  const tinyxml2::XMLElement* element = nullptr;
};

struct UrdfCut {
  int joint = -1;  ///< index into UrdfGraph::joints
  std::string reason;
};

struct UrdfGraph {
  std::string robotName;
  int robotLine = 0;
  std::vector<UrdfLinkNode> links;
  std::vector<UrdfJointNode> joints;
  std::map<std::string, int> linkIndex;
  std::map<std::string, int> jointIndex;
  int root = -1;                 ///< index of the root link
  std::vector<int> treeJoints;   ///< joints of the spanning tree, parents before children
  std::vector<int> parentJoint;  ///< per link: its tree joint (-1 for the root)
  std::vector<UrdfCut> cuts;     ///< joints that close loops, in file order
};

/// Builds the graph of a parsed URDF document.
/// @throws ImportError (file, line, problem) for a missing <robot>, links or
/// joints without names, duplicate names, unknown joint types, joints naming
/// unknown links, a joint that connects a link to itself, no root (a cycle
/// through the root) or several roots.
UrdfGraph analyzeUrdf(const tinyxml2::XMLDocument& doc, const std::string& file);

/// Parses the text and builds the graph. @throws ImportError for malformed XML
/// (with tinyxml2's line) and everything analyzeUrdf throws for.
UrdfGraph analyzeUrdfText(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& file);

}  // namespace articula::io::detail

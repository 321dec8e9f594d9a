// libFuzzer target: the URDF pre-pass (XML parse, names, references, tree and
// loop cuts) on arbitrary bytes. Every input either yields a graph whose tree
// and cuts account for every joint, or an ImportError; anything else is a bug.
#include "urdf_graph.hpp"

#include <articula/io/scene_file.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tinyxml2::XMLDocument doc;
  try {
    const articula::io::detail::UrdfGraph g = articula::io::detail::analyzeUrdfText(doc, text, "fuzz.urdf");
    // One tree joint per link but the root; every other joint is cut.
    if (g.treeJoints.size() + 1 != g.links.size()) std::abort();
    if (g.treeJoints.size() + g.cuts.size() != g.joints.size()) std::abort();
    if (g.root < 0 || static_cast<std::size_t>(g.root) >= g.links.size()) std::abort();
  } catch (const articula::io::ImportError&) {
  }
  return 0;
}

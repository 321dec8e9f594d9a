// Input checks made before a reader or a library touches a file
// (input_guard.hpp).
#include "input_guard.hpp"

#include "import_common.hpp"

#include <articula/file_io.hpp>
#include <articula/io/load_checks.hpp>
#include <articula/io/scene_file.hpp>

#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace articula::io::detail {

std::string readTextInput(const fs::path& file) {
  try {
    return readInputFile(file, kMaxTextFileBytes, "a scene or robot file");
  } catch (const FileAccessError& e) {
    throw ImportError(file.string(), 0, e.problem());
  }
}

std::string missingFileReason(const fs::path& file) {
  try {
    checkInputFile(file, std::numeric_limits<std::uint64_t>::max(), "a file");
  } catch (const FileAccessError& e) {
    if (e.problem() != "no such file") return "'" + file.string() + "' " + e.problem();
  }
  return "file '" + file.string() + "' does not exist";
}

// ---- meshes ----------------------------------------------------------------

std::string screenMeshBytes(std::string_view bytes) {
  std::size_t i = 0;
  // Skip a byte order mark and leading white space: an XML file starts with '<'.
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n')) ++i;
  if (i >= bytes.size() || bytes[i] != '<') return {};
  // An XML mesh (COLLADA): count the element depth in one linear pass.
  int depth = 0;
  int deepest = 0;
  while ((i = bytes.find('<', i)) != std::string_view::npos) {
    const std::string_view rest = bytes.substr(i);
    if (rest.substr(0, 4) == "<!--") {
      const std::size_t end = bytes.find("-->", i + 4);
      if (end == std::string_view::npos) break;
      i = end + 3;
      continue;
    }
    if (rest.substr(0, 9) == "<![CDATA[") {
      const std::size_t end = bytes.find("]]>", i + 9);
      if (end == std::string_view::npos) break;
      i = end + 3;
      continue;
    }
    const bool closing = rest.size() > 1 && rest[1] == '/';
    const bool declaration = rest.size() > 1 && (rest[1] == '?' || rest[1] == '!');
    // The end of the tag, skipping '>' inside quoted attribute values.
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < bytes.size(); ++j) {
      const char c = bytes[j];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      }
    }
    if (j >= bytes.size()) break;
    if (closing) {
      depth = std::max(0, depth - 1);
    } else if (!declaration && bytes[j - 1] != '/') {
      ++depth;
      deepest = std::max(deepest, depth);
      if (depth > kMaxMeshXmlDepth) {
        return "its XML elements nest more than " + std::to_string(kMaxMeshXmlDepth) +
               " deep; the mesh is not loaded (a deeper file would exhaust the mesh reader's stack)";
      }
    }
    i = j + 1;
  }
  return {};
}

void checkMeshFile(const fs::path& file) {
  std::string bytes;
  try {
    bytes = readInputFile(file, kMaxMeshFileBytes, "a mesh file");
  } catch (const FileAccessError& e) {
    throw Error("cannot read mesh '" + file.string() + "': " + e.problem());
  }
  const std::string problem = screenMeshBytes(bytes);
  if (!problem.empty()) throw Error("cannot read mesh '" + file.string() + "': " + problem);
}

// ---- SDF includes ----------------------------------------------------------

namespace {

class IncludeWalker {
 public:
  IncludeWalker(const ImportOptions& options, fs::path base) : m_options(options), m_base(std::move(base)) {}

  void walk(const std::string& source, const fs::path& folder, const std::string& text, int depth) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
      // The importer reports the malformed top file; an included one is named here.
      if (depth == 0) return;
      throw ImportError(source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
    }
    visit(doc.RootElement(), source, folder, depth);
  }

 private:
  void visit(const tinyxml2::XMLElement* e, const std::string& source, const fs::path& folder, int depth) {
    // Iterative over siblings, recursive over depth: bounded by the XML
    // parser's own depth limit.
    for (; e != nullptr; e = e->NextSiblingElement()) {
      if (std::string_view(e->Name()) == "include") {
        include(e, source, folder, depth);
      } else {
        visit(e->FirstChildElement(), source, folder, depth);
      }
    }
  }

  void include(const tinyxml2::XMLElement* e, const std::string& source, const fs::path& folder, int depth) {
    const tinyxml2::XMLElement* uriElement = e->FirstChildElement("uri");
    if (uriElement == nullptr || uriElement->GetText() == nullptr) return;  // sdformat reports it
    std::string uri = uriElement->GetText();
    uri.erase(0, uri.find_first_not_of(" \t\r\n"));
    uri.erase(uri.find_last_not_of(" \t\r\n") + 1);
    const int line = uriElement->GetLineNum();
    if (depth + 1 > kMaxSdfIncludeDepth) {
      throw ImportError(
          source, line,
          "<include> '" + uri + "' nests includes more than " + std::to_string(kMaxSdfIncludeDepth) + " deep");
    }
    std::string whyNot;
    const std::optional<fs::path> found = resolve(uri, folder, &whyNot);
    if (!found) throw ImportError(source, line, "<include> '" + uri + "' cannot be resolved: " + whyNot);
    std::error_code ec;
    fs::path key = fs::weakly_canonical(*found, ec);
    if (ec) key = *found;
    if (std::find(m_stack.begin(), m_stack.end(), key) != m_stack.end()) {
      throw ImportError(source, line,
                        "<include> '" + uri + "' includes " + found->string() +
                            ", which is already being included: the includes form a cycle");
    }
    if (!m_done.insert(key).second) return;  // included before, not in a cycle: already checked
    std::string text;
    try {
      text = readInputFile(*found, kMaxTextFileBytes, "an SDF file");
    } catch (const FileAccessError& error) {
      throw ImportError(source, line, "<include> '" + uri + "': " + error.what());
    }
    m_stack.push_back(key);
    walk(found->string(), found->parent_path(), text, depth + 1);
    m_stack.pop_back();
  }

  const ResourceResolver& resolverFor(const fs::path& folder) {
    auto it = m_resolvers.find(folder.string());
    if (it == m_resolvers.end()) {
      it = m_resolvers.emplace(folder.string(), ResourceResolver(m_options, folder, true)).first;
    }
    return it->second;
  }

  /// The SDF file an include names: a file, or a model folder with its
  /// model.config (its newest <sdf> entry that exists) or a model.sdf.
  std::optional<fs::path> resolve(const std::string& uri, const fs::path& folder, std::string* whyNot) {
    std::optional<fs::path> target;
    for (const fs::path& dir : {folder, m_base}) {
      const ResourceResolver& r = resolverFor(dir);
      for (const std::string& candidate : {uri + "/model.config", uri + "/model.sdf", uri}) {
        if (const std::optional<fs::path> p = r.resolve(candidate)) {
          target = candidate == uri ? *p : p->parent_path();
          break;
        }
      }
      if (target) break;
    }
    if (!target) {
      const ResourceResolver& resolver = resolverFor(folder);
      resolver.resolve(uri + "/model.config", whyNot);
      if (uri.rfind("model://", 0) != 0 && uri.rfind("package://", 0) != 0) resolver.resolve(uri, whyNot);
      return std::nullopt;
    }
    std::error_code ec;
    if (!fs::is_directory(*target, ec)) return target;
    const fs::path config = *target / "model.config";
    if (fs::exists(config, ec)) {
      std::string text;
      try {
        text = readInputFile(config, kMaxTextFileBytes, "a model.config file");
      } catch (const FileAccessError& error) {
        *whyNot = error.what();
        return std::nullopt;
      }
      // As sdformat picks it: the <sdf> entry of the highest version whose
      // file is there (model.config lists one file per SDF version).
      tinyxml2::XMLDocument doc;
      if (doc.Parse(text.c_str(), text.size()) == tinyxml2::XML_SUCCESS && doc.RootElement() != nullptr) {
        std::optional<fs::path> best;
        double bestVersion = -1.0;
        for (const tinyxml2::XMLElement* sdf = doc.RootElement()->FirstChildElement("sdf"); sdf != nullptr;
             sdf = sdf->NextSiblingElement("sdf")) {
          if (sdf->GetText() == nullptr || !fs::exists(*target / sdf->GetText(), ec)) continue;
          const double version = sdf->DoubleAttribute("version", 0.0);
          if (!best || version > bestVersion) {
            best = *target / sdf->GetText();
            bestVersion = version;
          }
        }
        if (best) return best;
      }
    }
    if (fs::exists(*target / "model.sdf", ec)) return *target / "model.sdf";
    *whyNot = "the model folder " + target->string() + " has no model.config naming an SDF file and no model.sdf";
    return std::nullopt;
  }

  const ImportOptions& m_options;
  fs::path m_base;  ///< folder of the top file: sdformat resolves through it too
  std::map<std::string, ResourceResolver> m_resolvers;
  std::vector<fs::path> m_stack;
  std::set<fs::path> m_done;
};

}  // namespace

void checkSdfIncludes(const std::string& source, const fs::path& baseDirectory, const std::string& text,
                      const ImportOptions& options) {
  IncludeWalker walker(options, baseDirectory);
  walker.walk(source, baseDirectory, text, 0);
}

}  // namespace articula::io::detail

namespace articula::io {

std::vector<ImmovableLink> findImmovableLinks(const World& world) {
  std::vector<ImmovableLink> out;
  for (const Multibody& mb : world.getMultibodies()) {
    if (mb.numDofs() == 0) continue;
    const MatrixXd M = mb.getMassMatrix();
    const double scale = M.diagonal().cwiseAbs().maxCoeff();
    for (const Joint& joint : mb.getJoints()) {
      for (int d = 0; d < joint.numDofs(); ++d) {
        const int i = joint.velocityOffset() + d;
        const double m = M(i, i);
        if (std::isfinite(m) && m > 1e-12 * scale && m > 0.0) continue;
        const Link link = joint.getChildLink();
        out.push_back(ImmovableLink{
            mb.name(), link.name(), joint.name(),
            "link '" + link.name() + "' moves on joint '" + joint.name() + "' (degree of freedom " + std::to_string(d) +
                ") but has no inertia about it: neither the link nor anything it carries has mass or inertia "
                "along that motion, so no time step can accelerate it; give the link mass and inertia, or the "
                "joint armature"});
        break;
      }
    }
  }
  return out;
}

}  // namespace articula::io

// importFile: the reader chosen by extension (or, for .xml, by the root element).
#include "import_common.hpp"
#include "input_guard.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace fs = std::filesystem;

namespace articula::io {

namespace {

std::string lowerExtension(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// The first element name of an XML file ("robot", "sdf", "articula"), or empty.
std::string rootElementName(const fs::path& file) {
  const std::string text = detail::readTextInput(file);
  std::size_t i = 0;
  while ((i = text.find('<', i)) != std::string::npos) {
    if (i + 1 < text.size() && (text[i + 1] == '?' || text[i + 1] == '!')) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) != 0 || text[j] == '_')) ++j;
    return text.substr(i + 1, j - i - 1);
  }
  return {};
}

}  // namespace

ImportReport importFile(World& world, const fs::path& file, const ImportOptions& options) {
  std::string ext = lowerExtension(file);
  if (ext == ".xml") {
    const std::string root = rootElementName(file);
    if (root == "robot") ext = ".urdf";
    if (root == "sdf") ext = ".sdf";
    if (root == "articula") ext = ".articula";
    if (root == "mujoco") ext = ".mjcf";
  }
  if (ext == ".mjcf") return importMjcf(world, file, options);
  if (ext == ".urdf") return importUrdf(world, file, options);
  if (ext == ".sdf" || ext == ".world") return importSdf(world, file, options);
  if (ext == ".articula") {
    ImportReport report;
    report.recording = loadScene(world, file);
    if (options.addGroundPlane) detail::addGround(world, options);
    report.file = file.string();
    report.format = "articula";
    return report;
  }
  throw ImportError(file.string(), 0,
                    "unknown file type '" + file.extension().string() +
                        "': expected .articula, .urdf, .sdf, .world or .mjcf (or .xml holding one of them, or MJCF)");
}

}  // namespace articula::io

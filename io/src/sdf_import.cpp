// SDF import through sdformat12.
#include "import_common.hpp"

namespace articula::io {

ImportReport importSdf(World& world, const std::filesystem::path& file, const ImportOptions& options) {
  (void)world;
  (void)options;
  throw ImportError(file.string(), 0, "SDF import is not available yet");
}

ImportReport importSdfFromString(World& world, const std::string& text, const std::string& sourceName,
                                 const std::filesystem::path& baseDirectory, const ImportOptions& options) {
  (void)world;
  (void)text;
  (void)baseDirectory;
  (void)options;
  throw ImportError(sourceName, 0, "SDF import is not available yet");
}

}  // namespace articula::io

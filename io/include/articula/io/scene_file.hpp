#pragma once
/// @file
/// The native scene format: versioned XML (`<articula version="1">`,
/// extension `.articula`) holding everything a World's design holds, and
/// its initial state. Numbers are written with 17 significant digits and
/// rotations as full matrices, so load → save reproduces a file byte for
/// byte. The format is described in docs/scene-format.md.

#include <articula/error.hpp>
#include <articula/world.hpp>

#include <filesystem>
#include <string>

namespace articula::io {

/// The format version this library writes (and the newest it reads).
inline constexpr int kSceneFormatVersion = 1;

/// A file that cannot be read or understood: names the file, the line (0 if
/// unknown) and the problem.
class ImportError : public Error {
 public:
  ImportError(std::string file, int line, const std::string& problem);
  const std::string& file() const { return m_file; }
  int line() const { return m_line; }

 private:
  std::string m_file;
  int m_line = 0;
};

/// The scene as text. Meshes read from files are written as references to
/// those files (relative to `meshBase` when given, absolute otherwise) with
/// their scale; other meshes inline as vertices and triangles.
std::string sceneToString(const World& world, const std::filesystem::path& meshBase = {});
/// Writes the scene; mesh paths are relative to the file's folder.
/// @throws ImportError when the file cannot be written.
void saveScene(const World& world, const std::filesystem::path& file);

/// Reads a scene into `world`, which must be empty and in design mode. On
/// failure the world is cleared again (nothing half-built) and ImportError
/// names the source, the line and the problem.
/// Relative mesh paths resolve against `baseDirectory`.
void loadSceneFromString(World& world, const std::string& text, const std::string& sourceName = "<string>",
                         const std::filesystem::path& baseDirectory = {});
void loadScene(World& world, const std::filesystem::path& file);

}  // namespace articula::io

#pragma once
/// @file
/// The native scene format: versioned XML (`<articula version="1">`,
/// extension `.articula`) holding everything a World's design holds, and
/// its initial state. Numbers are written with 17 significant digits and
/// rotations as full matrices, so load → save reproduces a file byte for
/// byte. The format is described in docs/scene-format.md.

#include <articula/error.hpp>
#include <articula/recording.hpp>
#include <articula/world.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace articula::io {

/// The format version this library writes (and the newest it reads).
inline constexpr int kSceneFormatVersion = 5;

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

/// The optional `<recording>` section: how the scene is recorded when it
/// is simulated, and the replay file that belongs to it.
struct SceneRecording {
  RecordingOptions options;
  /// Empty: none. Written relative to the scene's folder; on load resolved
  /// against it (the file need not exist).
  std::filesystem::path replay;
};

/// The scene as text. Meshes read from files are written as references to
/// those files (relative to `base` when given, absolute otherwise) with
/// their scale; other meshes inline as vertices and triangles. The replay
/// path of `recording` is written relative to `base` too.
std::string sceneToString(const World& world, const std::filesystem::path& base = {},
                          const std::optional<SceneRecording>& recording = std::nullopt);
/// Writes the scene; mesh and replay paths are relative to the file's folder.
/// @throws ImportError when the file cannot be written.
void saveScene(const World& world, const std::filesystem::path& file,
               const std::optional<SceneRecording>& recording = std::nullopt);

/// Reads a scene into `world`, which must be empty and in design mode, and
/// returns its recording section if it has one. On failure the world is
/// cleared again (nothing half-built) and ImportError names the source, the
/// line and the problem. Relative mesh and replay paths resolve against
/// `baseDirectory`.
std::optional<SceneRecording> loadSceneFromString(World& world, const std::string& text,
                                                  const std::string& sourceName = "<string>",
                                                  const std::filesystem::path& baseDirectory = {});
std::optional<SceneRecording> loadScene(World& world, const std::filesystem::path& file);

}  // namespace articula::io

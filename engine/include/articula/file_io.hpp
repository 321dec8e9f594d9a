#pragma once
/// @file
/// Bounded input and atomic output for every file Articula reads or writes
/// (scenes, URDF, SDF, meshes, replays, CSV, images).
///
/// Input: only a regular file (or a symbolic link to one) is read, and only
/// up to a size limit, so a FIFO, a device such as /dev/zero or a directory
/// is refused at once with a message that says what it is.
///
/// Output: the bytes go to a temporary file in the target's folder, which is
/// flushed, synced and renamed over the target only when everything was
/// written. A failed write (full disk, a file size limit) or a crash leaves
/// the previous file untouched. A target that exists and is not a regular
/// file (a device node, a FIFO, a directory) is refused.

#include <articula/error.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace articula {

/// Size limit of text inputs: scenes, URDF, SDF and model.config files (bytes).
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{64} << 20;
/// Size limit of mesh files (bytes).
inline constexpr std::uint64_t kMaxMeshFileBytes = std::uint64_t{256} << 20;
/// Size limit of replay files (bytes).
inline constexpr std::uint64_t kMaxReplayFileBytes = std::uint64_t{4} << 30;

/// A file cannot be read or written. what() is "FILE: PROBLEM"; problem()
/// is the part after the file name ("is a FIFO, not a file").
class FileAccessError : public Error {
 public:
  FileAccessError(const std::filesystem::path& file, const std::string& problem);
  const std::filesystem::path& file() const { return m_file; }
  const std::string& problem() const { return m_problem; }

 private:
  std::filesystem::path m_file;
  std::string m_problem;
};

/// Checks, without opening it, that `file` is a regular file of at most
/// `maxBytes` bytes. `what` names the kind of file in the size message
/// ("a mesh file").
/// @throws FileAccessError "no such file", "is a FIFO, not a file", "is a
/// directory, not a file", "is N bytes, more than the M bytes allowed for a mesh file", ...
void checkInputFile(const std::filesystem::path& file, std::uint64_t maxBytes, std::string_view what);

/// Reads a whole regular file of at most `maxBytes` bytes. The file is
/// opened without blocking and checked after opening, so a FIFO never
/// blocks the caller and a file that grows while it is read is refused too.
/// @throws FileAccessError as checkInputFile, or when reading fails.
std::string readInputFile(const std::filesystem::path& file, std::uint64_t maxBytes, std::string_view what);

/// Refuses an output target that exists and is not a regular file, or whose
/// folder does not exist. @throws FileAccessError.
void checkOutputTarget(const std::filesystem::path& file);

/// An output file written atomically: write() appends to a temporary file
/// in the target's folder; commit() flushes and syncs it and renames it over
/// the target. Destroyed without commit() (an error, an exception), the
/// temporary file is removed and the target is untouched.
class AtomicFile {
 public:
  /// Creates the temporary file. @throws FileAccessError (see checkOutputTarget).
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `bytes` (buffered). @throws FileAccessError when the write fails (e.g. the disk is full).
  void write(std::string_view bytes);
  /// Writes what is buffered, syncs, and renames over the target.
  /// @throws FileAccessError; the target is then unchanged.
  void commit();
  const std::filesystem::path& target() const { return m_target; }

 private:
  void flushBuffer();
  void discard() noexcept;

  std::filesystem::path m_target;
  std::filesystem::path m_temporary;
  int m_fd = -1;
  std::string m_buffer;
  bool m_committed = false;
};

/// Writes `bytes` to `file` atomically (an AtomicFile written and committed at once).
/// @throws FileAccessError; the previous file is then intact.
void writeFileAtomically(const std::filesystem::path& file, std::string_view bytes);

}  // namespace articula

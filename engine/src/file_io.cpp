// Bounded input and atomic output (file_io.hpp). POSIX: open(2) with
// O_NONBLOCK so that opening a FIFO returns at once, fstat(2) on the open
// descriptor, and write–fsync–rename for outputs.
#include <articula/file_io.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <utility>

namespace fs = std::filesystem;

namespace articula {

namespace {

std::string errnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// What a non-regular file is, as the end of "FILE is ...".
std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO, not a file";
  if (S_ISCHR(mode)) return "is a character device, not a file";
  if (S_ISBLK(mode)) return "is a block device, not a file";
  if (S_ISSOCK(mode)) return "is a socket, not a file";
  return "is not a regular file";
}

std::string openProblem(int error) {
  if (error == ENOENT) return "no such file";
  if (error == EACCES) return "permission denied";
  if (error == ELOOP) return "too many levels of symbolic links";
  return "cannot be opened: " + errnoText(error);
}

void checkStat(const fs::path& file, const struct stat& st, std::uint64_t maxBytes, std::string_view what) {
  if (!S_ISREG(st.st_mode)) throw FileAccessError(file, kindOf(st.st_mode));
  if (static_cast<std::uint64_t>(st.st_size) > maxBytes) {
    throw FileAccessError(file, "is " + std::to_string(st.st_size) + " bytes, more than the " +
                                    std::to_string(maxBytes) + " bytes allowed for " + std::string(what));
  }
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : m_fd(fd) {}
  ~Descriptor() {
    if (m_fd >= 0) ::close(m_fd);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return m_fd; }

 private:
  int m_fd;
};

// Writes all of `data`, retrying after EINTR and short writes.
int writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

std::string writeProblem(int error) {
  if (error == ENOSPC) return "error while writing: no space left on the device; the previous file is unchanged";
  if (error == EFBIG) return "error while writing: the file is too large; the previous file is unchanged";
  if (error == EDQUOT) return "error while writing: disk quota exceeded; the previous file is unchanged";
  return "error while writing: " + errnoText(error) + "; the previous file is unchanged";
}

std::atomic<unsigned> g_temporaryCounter{0};

}  // namespace

FileAccessError::FileAccessError(const fs::path& file, const std::string& problem)
    : Error(file.string() + ": " + problem), m_file(file), m_problem(problem) {}

void checkInputFile(const fs::path& file, std::uint64_t maxBytes, std::string_view what) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw FileAccessError(file, openProblem(errno));
  checkStat(file, st, maxBytes, what);
}

std::string readInputFile(const fs::path& file, std::uint64_t maxBytes, std::string_view what) {
  const Descriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) throw FileAccessError(file, openProblem(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw FileAccessError(file, "cannot be examined: " + errnoText(errno));
  checkStat(file, st, maxBytes, what);
  std::string bytes;
  bytes.resize(static_cast<std::size_t>(st.st_size));
  std::size_t have = 0;
  for (;;) {
    if (have == bytes.size()) {
      // The file may have grown since fstat: read on, within the limit.
      if (have >= maxBytes) {
        char probe;
        const ssize_t n = ::read(fd.get(), &probe, 1);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw FileAccessError(file, "read error: " + errnoText(errno));
        throw FileAccessError(file, "grew beyond the " + std::to_string(maxBytes) + " bytes allowed for " +
                                        std::string(what) + " while it was read");
      }
      bytes.resize(std::min<std::uint64_t>(maxBytes, std::max<std::uint64_t>(4096, 2 * have)));
    }
    const ssize_t n = ::read(fd.get(), bytes.data() + have, bytes.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileAccessError(file, "read error: " + errnoText(errno));
    }
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  bytes.resize(have);
  return bytes;
}

void checkOutputTarget(const fs::path& file) {
  if (file.empty()) throw FileAccessError(file, "an empty file name");
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      throw FileAccessError(file, kindOf(st.st_mode) + "; outputs are written to regular files only");
    }
  } else if (errno != ENOENT) {
    throw FileAccessError(file, "cannot be written: " + errnoText(errno));
  }
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  struct stat dir {};
  if (::stat(folder.c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode)) {
    throw FileAccessError(file, "its folder '" + folder.string() + "' does not exist");
  }
}

AtomicFile::AtomicFile(fs::path target) : m_target(std::move(target)) {
  checkOutputTarget(m_target);
  // Write through a symbolic link to the file it names, not over the link.
  std::error_code ec;
  if (fs::is_symlink(m_target, ec)) {
    const fs::path resolved = fs::canonical(m_target, ec);
    if (!ec) m_target = resolved;
  }
  const fs::path folder = m_target.parent_path();
  const std::string stem = "." + m_target.filename().string() + ".";
  const auto seed = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string unique = std::to_string(::getpid()) + "-" + std::to_string(g_temporaryCounter++) + "-" +
                               std::to_string((seed >> 4) % 1000000) + ".tmp";
    m_temporary = folder / (stem + unique);
    // 0666 minus the umask, like any newly created file.
    m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (m_fd >= 0) break;
    if (errno != EEXIST) {
      const int error = errno;
      throw FileAccessError(m_target,
                            "cannot be written (creating a temporary file in its folder: " + errnoText(error) + ")");
    }
  }
  if (m_fd < 0) throw FileAccessError(m_target, "cannot create a temporary file in its folder");
  // An existing target keeps its permissions.
  struct stat st {};
  if (::stat(m_target.c_str(), &st) == 0) ::fchmod(m_fd, st.st_mode & 07777);
}

AtomicFile::~AtomicFile() {
  if (!m_committed) discard();
}

void AtomicFile::discard() noexcept {
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
  }
  if (!m_temporary.empty()) {
    ::unlink(m_temporary.c_str());
    m_temporary.clear();
  }
}

void AtomicFile::flushBuffer() {
  if (m_fd < 0) throw FileAccessError(m_target, "the output was already closed");
  const int error = writeAll(m_fd, m_buffer.data(), m_buffer.size());
  m_buffer.clear();
  if (error != 0) {
    discard();
    throw FileAccessError(m_target, writeProblem(error));
  }
}

void AtomicFile::write(std::string_view bytes) {
  if (m_fd < 0) throw FileAccessError(m_target, "the output was already closed");
  m_buffer.append(bytes);
  if (m_buffer.size() >= (std::size_t{1} << 16)) flushBuffer();
}

void AtomicFile::commit() {
  flushBuffer();
  if (::fsync(m_fd) != 0) {
    const int error = errno;
    discard();
    throw FileAccessError(m_target, writeProblem(error));
  }
  const int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    const int error = errno;
    discard();
    throw FileAccessError(m_target, writeProblem(error));
  }
  if (::rename(m_temporary.c_str(), m_target.c_str()) != 0) {
    const int error = errno;
    discard();
    throw FileAccessError(m_target, "cannot be replaced: " + errnoText(error) + "; the previous file is unchanged");
  }
  m_temporary.clear();
  m_committed = true;
  // The rename itself lasts only once the folder is synced.
  const fs::path folder = m_target.parent_path().empty() ? fs::path(".") : m_target.parent_path();
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void writeFileAtomically(const fs::path& file, std::string_view bytes) {
  AtomicFile out(file);
  out.write(bytes);
  out.commit();
}

}  // namespace articula

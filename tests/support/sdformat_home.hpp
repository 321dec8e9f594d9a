#pragma once
// sdformat writes its log to $HOME/.sdformat/sdformat.log. Tests that read
// SDF point HOME at a temporary folder when the real one is not writable
// (a read-only or missing home in CI).
#include <QtCore/QTemporaryDir>
#include <QtCore/QtGlobal>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace articula::test {

inline bool canWriteSdformatLogBelow(const std::filesystem::path& home) {
  std::error_code ec;
  std::filesystem::create_directories(home / ".sdformat", ec);
  std::ofstream probe(home / ".sdformat" / "sdformat.log", std::ios::app);
  return !ec && probe.good();
}

/// Points HOME at `fallback` unless the current home takes sdformat's log.
/// Returns false when that is needed and `fallback` is unusable.
inline bool ensureWritableHomeForSdformat(const QTemporaryDir& fallback) {
  const char* home = std::getenv("HOME");
  if (home != nullptr && canWriteSdformatLogBelow(home)) return true;
  if (!fallback.isValid()) return false;
  qputenv("HOME", fallback.path().toLocal8Bit());
  return true;
}

}  // namespace articula::test

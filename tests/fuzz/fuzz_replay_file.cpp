// libFuzzer target: the replay file reader on arbitrary bytes. The checksum
// at the end is recomputed first, so that the structural checks behind it
// are what gets explored. Every input either loads — and then every frame
// decodes and the recording survives toBytes → fromBytes with the same
// frames — or gives a ReplayFileError; anything else is a bug.
#include <articula/articula.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

std::uint64_t fnv1a(const unsigned char* p, std::size_t n) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<unsigned char> bytes(data, data + size);
  if (bytes.size() >= 32) {
    const std::uint64_t sum = fnv1a(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  }
  articula::Recording recording;
  try {
    recording = articula::Recording::fromBytes(bytes, "fuzz.replay");
  } catch (const articula::ReplayFileError&) {
    return 0;
  }
  for (std::size_t i = 0; i < recording.size(); ++i) recording.snapshot(i);
  const articula::Recording again = articula::Recording::fromBytes(recording.toBytes(), "fuzz-resaved.replay");
  if (again.size() != recording.size()) std::abort();
  for (std::size_t i = 0; i < recording.size(); ++i) {
    if (again.snapshot(i).solverData != recording.snapshot(i).solverData) std::abort();
  }
  return 0;
}

#pragma once
// 64-bit FNV-1a, the hash of layout fingerprints and the checksum of replay
// files. Continue a hash by passing the previous value as `h`.

#include <cstddef>
#include <cstdint>

namespace articula::detail {

inline constexpr std::uint64_t kFnv1aOffset = 14695981039346656037ull;

inline std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = kFnv1aOffset) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace articula::detail

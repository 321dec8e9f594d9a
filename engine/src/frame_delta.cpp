// The frame difference codec; the format is described in frame_delta.hpp.
#include "frame_delta.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

namespace articula::detail {

namespace {

int significantBytes(std::uint64_t x) {
  return (64 - std::countl_zero(x) + 7) / 8;  // 0 for x = 0
}

std::uint64_t load8(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

bool appendDelta(const unsigned char* cur, const unsigned char* prev, std::size_t n, std::vector<unsigned char>& out) {
  const std::size_t words = n / 8;
  const std::size_t start = out.size();
  // Room for the worst case plus 8 bytes, so that every word is stored with
  // one 8-byte write and the pointer advanced by its significant bytes.
  out.resize(start + words * 8 + (words + 1) / 2 + 8);
  unsigned char* const base = out.data() + start;
  unsigned char* o = base;
  for (std::size_t w = 0; w < words; w += 2) {
    unsigned char* control = o++;
    const std::uint64_t x0 = load8(cur + 8 * w) ^ load8(prev + 8 * w);
    const int l0 = significantBytes(x0);
    std::memcpy(o, &x0, 8);
    o += l0;
    int l1 = 0;
    if (w + 1 < words) {
      const std::uint64_t x1 = load8(cur + 8 * w + 8) ^ load8(prev + 8 * w + 8);
      l1 = significantBytes(x1);
      std::memcpy(o, &x1, 8);
      o += l1;
    }
    *control = static_cast<unsigned char>(l0 | (l1 << 4));
  }
  const auto size = static_cast<std::size_t>(o - base);
  out.resize(size < n ? start + size : start);
  return size < n;
}

bool applyDelta(const unsigned char* delta, std::size_t size, unsigned char* frame, std::size_t n) {
  const std::size_t words = n / 8;
  const unsigned char* d = delta;
  const unsigned char* const end = delta + size;
  for (std::size_t w = 0; w < words; w += 2) {
    if (d == end) return false;
    const unsigned char control = *d++;
    const int lens[2] = {control & 0x0f, control >> 4};
    for (std::size_t k = 0; k < 2; ++k) {
      const int len = lens[k];
      if (w + k >= words) {
        if (len != 0) return false;
        continue;
      }
      if (len > 8 || end - d < len) return false;
      std::uint64_t x = 0;
      if (end - d >= 8) {
        x = load8(d);
        if (len < 8) x &= (std::uint64_t{1} << (8 * len)) - 1;
      } else {
        std::memcpy(&x, d, static_cast<std::size_t>(len));
      }
      d += len;
      const std::uint64_t a = load8(frame + 8 * (w + k)) ^ x;
      std::memcpy(frame + 8 * (w + k), &a, 8);
    }
  }
  return d == end;
}

}  // namespace articula::detail

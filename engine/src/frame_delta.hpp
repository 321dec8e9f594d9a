#pragma once
// Byte differences between two runtime frames of equal size (a multiple of
// 8 bytes), the encoding of a recording's frames after each block's
// keyframe (docs/replay.md): the XOR of each 8-byte word with the previous
// frame's, without its leading zero bytes. Per pair of words one control
// byte (low nibble: significant bytes of the first word, 0–8; high nibble:
// of the second), then each word's significant bytes, least significant
// first. Unchanged words cost half a byte; a double that changed in its
// low mantissa bits a few bytes.

#include <cstddef>
#include <vector>

namespace articula::detail {

// Appends the difference of `cur` from `prev` (n bytes each) to `out`;
// returns false (with `out` as it was) when it would not be smaller than n.
bool appendDelta(const unsigned char* cur, const unsigned char* prev, std::size_t n, std::vector<unsigned char>& out);

// Applies a difference (`size` bytes) to `frame` (the previous frame, n
// bytes) in place. Returns false when the encoding is malformed.
bool applyDelta(const unsigned char* delta, std::size_t size, unsigned char* frame, std::size_t n);

}  // namespace articula::detail

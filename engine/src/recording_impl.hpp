#pragma once
// The store of a Recording (recording.cpp) shared with its file format
// (replay_file.cpp): blocks of a keyframe and byte differences, each frame
// indexed by an Entry. Internal to the engine.

#include <articula/recording.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace articula {

namespace detail {

constexpr std::uint32_t kDeltaFlag = 0x80000000u;

struct Entry {
  std::uint64_t step = 0;
  double time = 0.0;
  std::uint32_t offset = 0;   // into the block's bytes
  std::uint32_t rawSize = 0;  // | kDeltaFlag when stored as a difference
  std::size_t raw() const { return rawSize & ~kDeltaFlag; }
  bool delta() const { return (rawSize & kDeltaFlag) != 0; }
};
static_assert(sizeof(Entry) == kRecordedFrameIndexBytes);

struct Block {
  std::vector<Entry> entries;
  std::vector<unsigned char> bytes;
  bool thinned = false;
  std::size_t stored() const { return bytes.size() + entries.size() * sizeof(Entry); }
  std::size_t storedSize(std::size_t j) const {
    const std::size_t end = j + 1 < entries.size() ? entries[j + 1].offset : bytes.size();
    return end - entries[j].offset;
  }
};

// Throws InvalidArgument unless the options can drive a recording.
void validateOptions(const RecordingOptions& o);

}  // namespace detail

struct Recording::Impl {
  RecordingOptions options;
  // Set by the first world appended (mutable: checkWorld is also a query).
  mutable LayoutFingerprint fingerprint;
  mutable bool hasLayout = false;
  mutable double timeStep = 0.0;
  std::string sceneReference;
  std::map<std::string, std::string> metadata;
  std::vector<detail::Block> blocks;
  std::vector<std::size_t> firstIndex;  // per block: index of its first frame
  std::size_t frames = 0;
  std::size_t stored = 0;
  std::size_t droppedFrames = 0;
  // The raw frame of the last kept frame (the base of the next difference).
  std::vector<unsigned char> last;
  std::vector<unsigned char> scratch;
  // What the layout was last found equal to.
  mutable std::uint64_t checkedSerial = 0;
  mutable std::uint64_t checkedCompile = 0;
  mutable std::string checkedSolver;
  mutable int checkedFriction = -1;

  void reindex();

  std::pair<std::size_t, std::size_t> locate(std::size_t index) const;

  void requireIndex(std::size_t index, const char* what) const;

  // Decodes frame `index` into `out`.
  void decode(std::size_t index, std::vector<unsigned char>& out) const;

  // Throws LayoutIncompatible unless the world's layout is the recording's
  // (the first world appended sets it). The full fingerprint is computed
  // again only when the world, its compiled model or its solver changed.
  void checkWorld(const World& world, const char* refusal) const;

  void truncateAfter(std::size_t index);

  // Discards the frames at `step` and later.
  void discardFrom(std::uint64_t step);

  std::uint64_t stepOf(std::size_t index) const;
  std::uint64_t lastStep() const { return blocks.back().entries.back().step; }

  void clearFrames();

  // Appends `raw` (which is left holding the previous frame's bytes).
  void appendRaw(std::vector<unsigned char>& raw, std::uint64_t step, double time);

  void enforceBudget();
};

}  // namespace articula

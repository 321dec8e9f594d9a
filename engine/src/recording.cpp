// Recordings of runtime frames: blocks of a keyframe and byte differences,
// a memory budget, restore with a layout check, branching, replay files.
#include <articula/file_io.hpp>
#include <articula/recording.hpp>

#include <articula/world.hpp>

#include "hash.hpp"
#include "world_impl.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>
#include <utility>

namespace articula {

static_assert(std::endian::native == std::endian::little, "replay frames and files are little-endian");

namespace {

// ---------------------------------------------------------------------------
// Byte differences between two frames of equal size (a multiple of 8): the
// XOR of each 8-byte word with the previous frame's, without its leading
// zero bytes. Per pair of words one control byte (low nibble: significant
// bytes of the first word, 0–8; high nibble: of the second), then each
// word's significant bytes, least significant first. Unchanged words cost
// half a byte; a double that changed in its low mantissa bits a few bytes.

int significantBytes(std::uint64_t x) {
  return (64 - std::countl_zero(x) + 7) / 8;  // 0 for x = 0
}

std::uint64_t load8(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Appends the difference of `cur` from `prev` (n bytes each) to `out`;
// returns false (with `out` as it was) when it would not be smaller than n.
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

// Applies a difference to `frame` (the previous frame, n bytes) in place.
// Returns false when the encoding is malformed.
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

void validateOptions(const RecordingOptions& o) {
  if (o.every == 0) throw InvalidArgument("RecordingOptions: every must be at least 1");
  if (o.budgetBytes == 0) throw InvalidArgument("RecordingOptions: budgetBytes must be positive");
  if (o.keyframeInterval == 0) throw InvalidArgument("RecordingOptions: keyframeInterval must be at least 1");
  if (o.overflow != RecordingOverflow::DropOldest && o.overflow != RecordingOverflow::ThinToKeyframes) {
    throw InvalidArgument("RecordingOptions: unknown overflow policy");
  }
}

}  // namespace

struct Recording::Impl {
  RecordingOptions options;
  // Set by the first world appended (mutable: checkWorld is also a query).
  mutable LayoutFingerprint fingerprint;
  mutable bool hasLayout = false;
  mutable double timeStep = 0.0;
  std::string sceneReference;
  std::map<std::string, std::string> metadata;
  std::vector<Block> blocks;
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

  void reindex() {
    firstIndex.resize(blocks.size());
    std::size_t n = 0;
    stored = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      firstIndex[b] = n;
      n += blocks[b].entries.size();
      stored += blocks[b].stored();
    }
    frames = n;
  }

  std::pair<std::size_t, std::size_t> locate(std::size_t index) const {
    const auto it = std::upper_bound(firstIndex.begin(), firstIndex.end(), index);
    const auto b = static_cast<std::size_t>(it - firstIndex.begin()) - 1;
    return {b, index - firstIndex[b]};
  }

  void requireIndex(std::size_t index, const char* what) const {
    if (index >= frames) {
      throw InvalidArgument(std::string(what) + ": frame " + std::to_string(index) +
                            " out of range (the recording has " + std::to_string(frames) + " frames)");
    }
  }

  // Decodes frame `index` into `out`.
  void decode(std::size_t index, std::vector<unsigned char>& out) const {
    const auto [b, j] = locate(index);
    const Block& block = blocks[b];
    std::size_t start = j;
    while (block.entries[start].delta()) --start;  // the block's first frame is always whole
    const Entry& first = block.entries[start];
    out.assign(block.bytes.begin() + first.offset, block.bytes.begin() + first.offset + first.raw());
    for (std::size_t k = start + 1; k <= j; ++k) {
      const Entry& e = block.entries[k];
      const unsigned char* p = block.bytes.data() + e.offset;
      if (!e.delta()) {
        out.assign(p, p + e.raw());
      } else if (e.raw() != out.size() || !applyDelta(p, block.storedSize(k), out.data(), out.size())) {
        throw InvalidArgument("recording: frame " + std::to_string(firstIndex[b] + k) + " is corrupted");
      }
    }
  }

  // Throws LayoutIncompatible unless the world's layout is the recording's
  // (the first world appended sets it). The full fingerprint is computed
  // again only when the world, its compiled model or its solver changed.
  void checkWorld(const World& world, const char* refusal) const {
    detail::WorldImpl& w = detail::Access::impl(world);
    w.ensureModel();
    const ConstraintSolverOptions& solver = world.getOptions().solver;
    if (hasLayout && checkedSerial == w.serial && checkedCompile == w.compileCount && checkedSolver == solver.method &&
        checkedFriction == solver.frictionDirections) {
      return;
    }
    LayoutFingerprint current = computeLayoutFingerprint(world);
    if (hasLayout && !(current == fingerprint)) {
      throw LayoutIncompatible(refusal + describeLayoutDifference(fingerprint, current));
    }
    if (!hasLayout) {
      fingerprint = std::move(current);
      hasLayout = true;
      timeStep = world.getOptions().timeStep;
    }
    checkedSerial = w.serial;
    checkedCompile = w.compileCount;
    checkedSolver = solver.method;
    checkedFriction = solver.frictionDirections;
  }

  void truncateAfter(std::size_t index) {
    if (index + 1 >= frames) return;
    const auto [b, j] = locate(index);
    decode(index, last);
    blocks.resize(b + 1);
    Block& block = blocks[b];
    block.bytes.resize(block.entries[j].offset + block.storedSize(j));
    block.entries.resize(j + 1);
    reindex();
  }

  // Discards the frames at `step` and later.
  void discardFrom(std::uint64_t step) {
    if (frames == 0 || lastStep() < step) return;
    if (blocks.front().entries.front().step >= step) {
      clearFrames();
      return;
    }
    std::size_t lo = 0;
    std::size_t hi = frames;  // first frame with step >= `step` lies in (lo, hi]
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (stepOf(mid) < step) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    truncateAfter(lo);
  }

  std::uint64_t stepOf(std::size_t index) const {
    const auto [b, j] = locate(index);
    return blocks[b].entries[j].step;
  }
  std::uint64_t lastStep() const { return blocks.back().entries.back().step; }

  void clearFrames() {
    blocks.clear();
    last.clear();
    reindex();
  }

  // Appends `raw` (which is left holding the previous frame's bytes).
  void appendRaw(std::vector<unsigned char>& raw, std::uint64_t step, double time) {
    if (raw.size() % 8 != 0 || raw.size() >= kDeltaFlag) throw InvalidArgument("recording: malformed runtime frame");
    if (frames > 0 && step <= lastStep()) discardFrom(step);
    const bool newBlock =
        blocks.empty() || blocks.back().thinned || blocks.back().entries.size() >= options.keyframeInterval;
    if (newBlock) {
      if (!blocks.empty()) {
        // The finished block gives back what it reserved.
        blocks.back().bytes.shrink_to_fit();
        blocks.back().entries.shrink_to_fit();
      }
      blocks.emplace_back();
      // Room for the whole block at once (differences are smaller than whole frames).
      const std::size_t interval = std::min<std::size_t>(options.keyframeInterval, 4096);
      blocks.back().bytes.reserve(interval * (raw.size() + raw.size() / 16 + 16));
      blocks.back().entries.reserve(interval);
    }
    Block& block = blocks.back();
    Entry e;
    e.step = step;
    e.time = time;
    e.offset = static_cast<std::uint32_t>(block.bytes.size());
    e.rawSize = static_cast<std::uint32_t>(raw.size());
    if (block.bytes.size() + raw.size() >= std::numeric_limits<std::uint32_t>::max()) {
      throw InvalidArgument("recording: a block would exceed 4 GiB");
    }
    const std::size_t before = block.bytes.size();
    if (!newBlock && options.deltaEncoding && last.size() == raw.size() &&
        appendDelta(raw.data(), last.data(), raw.size(), block.bytes)) {
      e.rawSize |= kDeltaFlag;
    } else {
      block.bytes.insert(block.bytes.end(), raw.begin(), raw.end());
    }
    block.entries.push_back(e);
    if (newBlock) firstIndex.push_back(frames);
    ++frames;
    stored += block.bytes.size() - before + sizeof(Entry);
    last.swap(raw);
    enforceBudget();
  }

  void enforceBudget() {
    while (stored > options.budgetBytes && blocks.size() > 1) {
      const std::size_t older = blocks.size() - 1;  // the newest block is never touched
      if (options.overflow == RecordingOverflow::DropOldest) {
        droppedFrames += blocks.front().entries.size();
        blocks.erase(blocks.begin());
      } else {
        std::size_t b = 0;
        while (b < older && blocks[b].thinned) ++b;
        if (b < older) {
          Block& block = blocks[b];
          droppedFrames += block.entries.size() - 1;
          block.bytes.resize(block.storedSize(0));
          block.bytes.shrink_to_fit();
          block.entries.resize(1);
          block.entries.shrink_to_fit();
          block.thinned = true;
        } else if (older == 1) {
          droppedFrames += 1;
          blocks.erase(blocks.begin());
        } else {
          // Every older block holds one keyframe: drop every second one.
          std::vector<Block> kept;
          for (std::size_t k = 0; k < blocks.size(); ++k) {
            if (k < older && k % 2 == 1) {
              droppedFrames += 1;
            } else {
              kept.push_back(std::move(blocks[k]));
            }
          }
          blocks = std::move(kept);
        }
      }
      reindex();
    }
  }
};

// ---------------------------------------------------------------------------

Recording::Recording(const RecordingOptions& options) : m_impl(std::make_unique<Impl>()) {
  validateOptions(options);
  m_impl->options = options;
}
Recording::~Recording() = default;
Recording::Recording(const Recording& other) : m_impl(std::make_unique<Impl>(*other.m_impl)) {}
Recording& Recording::operator=(const Recording& other) {
  if (this != &other) m_impl = std::make_unique<Impl>(*other.m_impl);
  return *this;
}
Recording::Recording(Recording&& other) : m_impl(std::exchange(other.m_impl, std::make_unique<Impl>())) {}
Recording& Recording::operator=(Recording&& other) {
  if (this != &other) m_impl = std::exchange(other.m_impl, std::make_unique<Impl>());
  return *this;
}

const RecordingOptions& Recording::options() const {
  return m_impl->options;
}

void Recording::setOptions(const RecordingOptions& options) {
  validateOptions(options);
  m_impl->options = options;
  m_impl->enforceBudget();
}

const LayoutFingerprint& Recording::fingerprint() const {
  return m_impl->fingerprint;
}

bool Recording::hasLayout() const {
  return m_impl->hasLayout;
}

double Recording::timeStep() const {
  return m_impl->timeStep;
}

const std::string& Recording::sceneReference() const {
  return m_impl->sceneReference;
}

void Recording::setSceneReference(std::string reference) {
  m_impl->sceneReference = std::move(reference);
}

const std::map<std::string, std::string>& Recording::metadata() const {
  return m_impl->metadata;
}

void Recording::setMetadata(const std::string& key, std::string value) {
  m_impl->metadata[key] = std::move(value);
}

std::size_t Recording::size() const {
  return m_impl->frames;
}

RecordedFrameInfo Recording::frameInfo(std::size_t index) const {
  const Impl& I = *m_impl;
  I.requireIndex(index, "Recording::frameInfo");
  const auto [b, j] = I.locate(index);
  const Entry& e = I.blocks[b].entries[j];
  RecordedFrameInfo info;
  info.step = e.step;
  info.time = e.time;
  info.keyframe = !e.delta();
  info.storedBytes = I.blocks[b].storedSize(j) + sizeof(Entry);
  info.rawBytes = e.raw();
  return info;
}

std::optional<std::size_t> Recording::findAtOrBefore(std::uint64_t step) const {
  const Impl& I = *m_impl;
  if (I.frames == 0 || I.stepOf(0) > step) return std::nullopt;
  std::size_t lo = 0;
  std::size_t hi = I.frames;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (I.stepOf(mid) <= step) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

std::optional<std::size_t> Recording::findStep(std::uint64_t step) const {
  const std::optional<std::size_t> i = findAtOrBefore(step);
  if (i && m_impl->stepOf(*i) == step) return i;
  return std::nullopt;
}

RecordingStats Recording::stats() const {
  const Impl& I = *m_impl;
  RecordingStats s;
  s.frames = I.frames;
  s.storedBytes = I.stored;
  s.droppedFrames = I.droppedFrames;
  for (const Block& b : I.blocks) {
    for (const Entry& e : b.entries) s.rawBytes += e.raw();
  }
  return s;
}

void Recording::append(const World& world) {
  Impl& I = *m_impl;
  I.checkWorld(world, "the world's layout differs from the recording's: ");
  detail::WorldImpl& w = detail::Access::impl(world);
  detail::encodeRuntimeFrame(w, I.scratch);
  I.appendRaw(I.scratch, w.state.frameIndex, w.state.time);
}

void Recording::truncateAfter(std::size_t index) {
  m_impl->requireIndex(index, "Recording::truncateAfter");
  m_impl->truncateAfter(index);
}

void Recording::clear() {
  m_impl->clearFrames();
  m_impl->droppedFrames = 0;
}

RuntimeSnapshot Recording::snapshot(std::size_t index) const {
  const Impl& I = *m_impl;
  I.requireIndex(index, "Recording::snapshot");
  std::vector<unsigned char> raw;
  I.decode(index, raw);
  return detail::decodeRuntimeFrame(raw.data(), raw.size());
}

void Recording::checkLayout(const World& world) const {
  if (!m_impl->hasLayout) throw LayoutIncompatible("the recording is empty: it has no layout to compare");
  m_impl->checkWorld(world, "the recording does not fit this world; its layout differs: ");
}

void Recording::restore(World& world, std::size_t index) const {
  m_impl->requireIndex(index, "Recording::restore");
  checkLayout(world);
  world.restoreRuntimeState(snapshot(index));
}

// ---------------------------------------------------------------------------
// Replay files (docs/replay.md):
//   "ARTREPLY", u32 version, u32 byte-order mark, u64 payload bytes,
//   payload, u64 FNV-1a checksum of everything before it.

namespace {

constexpr char kMagic[8] = {'A', 'R', 'T', 'R', 'E', 'P', 'L', 'Y'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrderMark = 0x01020304u;
constexpr std::size_t kFileHeaderBytes = 24;

// A checksum only proves that the file is what was written, not that what
// was written makes sense: a frame with a non-finite number cannot be
// restored into a world that steps. Names the first non-finite part.
const char* nonFiniteIn(const RuntimeSnapshot& s) {
  if (!std::isfinite(s.state.time)) return "time";
  if (!s.state.positions.allFinite()) return "joint positions";
  if (!s.state.velocities.allFinite()) return "joint velocities";
  if (!s.state.forces.allFinite()) return "applied forces";
  if (!s.state.externalWrenches.allFinite()) return "external wrenches";
  for (const FreeFrameState& f : s.freeFrames) {
    if (!f.relativeTransform.matrix().allFinite() || !f.relativeVelocity.allFinite() ||
        !f.relativeAcceleration.allFinite()) {
      return "frame motion";
    }
  }
  return nullptr;
}

class FileWriter {
 public:
  template <class T>
  void put(const T& v) {
    raw(&v, sizeof(T));
  }
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
  void string(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  std::vector<unsigned char> bytes;
};

class FileReader {
 public:
  FileReader(const std::vector<unsigned char>& bytes, std::size_t begin, std::size_t end, std::string file)
      : m_bytes(bytes), m_at(begin), m_end(end), m_file(std::move(file)) {}
  [[noreturn]] void fail(const std::string& problem) const {
    throw ReplayFileError(m_file + ": " + problem + " (at byte " + std::to_string(m_at) + ")");
  }
  const unsigned char* take(std::size_t n, const char* what) {
    if (m_end - m_at < n) fail(std::string("the file ends inside ") + what);
    const unsigned char* p = m_bytes.data() + m_at;
    m_at += n;
    return p;
  }
  template <class T>
  T get(const char* what) {
    T v;
    std::memcpy(&v, take(sizeof(T), what), sizeof(T));
    return v;
  }
  std::string string(const char* what) {
    const auto n = get<std::uint32_t>(what);
    const unsigned char* p = take(n, what);
    return {reinterpret_cast<const char*>(p), n};
  }
  std::size_t remaining() const { return m_end - m_at; }

 private:
  const std::vector<unsigned char>& m_bytes;
  std::size_t m_at;
  std::size_t m_end;
  std::string m_file;
};

}  // namespace

std::vector<unsigned char> Recording::toBytes() const {
  const Impl& I = *m_impl;
  FileWriter p;
  p.put(I.fingerprint.hash);
  p.put(static_cast<std::uint32_t>(I.fingerprint.entries.size()));
  for (const std::string& e : I.fingerprint.entries) p.string(e);
  p.put(I.timeStep);
  p.put(I.options.every);
  p.put(static_cast<std::uint64_t>(I.options.budgetBytes));
  p.put(static_cast<std::uint8_t>(I.options.overflow));
  p.put(static_cast<std::uint8_t>(I.options.deltaEncoding));
  p.put(static_cast<std::uint8_t>(I.options.keepBranches));
  p.put(std::uint8_t{0});
  p.put(I.options.keyframeInterval);
  p.string(I.sceneReference);
  p.put(static_cast<std::uint32_t>(I.metadata.size()));
  for (const auto& [k, v] : I.metadata) {
    p.string(k);
    p.string(v);
  }
  p.put(static_cast<std::uint64_t>(I.frames));
  p.put(static_cast<std::uint64_t>(I.droppedFrames));
  p.put(static_cast<std::uint64_t>(I.blocks.size()));
  for (const Block& b : I.blocks) {
    p.put(static_cast<std::uint32_t>(b.thinned ? 1 : 0));
    p.put(static_cast<std::uint32_t>(b.entries.size()));
    p.put(static_cast<std::uint64_t>(b.bytes.size()));
    p.raw(b.entries.data(), b.entries.size() * sizeof(Entry));
    p.raw(b.bytes.data(), b.bytes.size());
  }

  FileWriter f;
  f.raw(kMagic, sizeof kMagic);
  f.put(kVersion);
  f.put(kByteOrderMark);
  f.put(static_cast<std::uint64_t>(p.bytes.size()));
  f.raw(p.bytes.data(), p.bytes.size());
  f.put(detail::fnv1a(f.bytes.data(), f.bytes.size()));
  return std::move(f.bytes);
}

void Recording::save(const std::filesystem::path& file) const {
  const std::vector<unsigned char> bytes = toBytes();
  try {
    writeFileAtomically(file, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const FileAccessError& e) {
    throw ReplayFileError(e.what());
  }
}

Recording Recording::load(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::string text;
  try {
    text = readInputFile(file, kMaxReplayFileBytes, "a replay file");
  } catch (const FileAccessError& e) {
    throw ReplayFileError(e.what());
  }
  const std::vector<unsigned char> bytes(text.begin(), text.end());
  text = std::string();
  return fromBytes(bytes, name);
}

Recording Recording::fromBytes(const std::vector<unsigned char>& bytes, const std::string& name) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    throw ReplayFileError(name + ": not an Articula replay file (it does not start with \"ARTREPLY\")");
  }
  if (bytes.size() < kFileHeaderBytes + 8) {
    throw ReplayFileError(name + ": truncated: " + std::to_string(bytes.size()) +
                          " bytes, not even the header and checksum");
  }
  std::uint32_t version;
  std::uint32_t mark;
  std::uint64_t payload;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&mark, bytes.data() + 12, 4);
  std::memcpy(&payload, bytes.data() + 16, 8);
  if (mark != kByteOrderMark) throw ReplayFileError(name + ": written with another byte order");
  if (version != kVersion) {
    throw ReplayFileError(name + ": replay format version " + std::to_string(version) + "; this build reads version " +
                          std::to_string(kVersion));
  }
  const std::uint64_t expected = kFileHeaderBytes + payload + 8;
  if (payload > bytes.size() || bytes.size() != expected) {
    throw ReplayFileError(name + (bytes.size() < expected ? ": truncated: " : ": has trailing bytes: ") +
                          std::to_string(bytes.size()) + " bytes, the header says " + std::to_string(expected));
  }
  std::uint64_t checksum;
  std::memcpy(&checksum, bytes.data() + bytes.size() - 8, 8);
  if (checksum != detail::fnv1a(bytes.data(), bytes.size() - 8)) {
    throw ReplayFileError(name + ": corrupted: the checksum does not match the contents");
  }

  FileReader r(bytes, kFileHeaderBytes, bytes.size() - 8, name);
  Recording rec;
  Impl& I = *rec.m_impl;
  I.fingerprint.hash = r.get<std::uint64_t>("the layout fingerprint");
  const auto entries = r.get<std::uint32_t>("the layout fingerprint");
  if (entries > r.remaining() / 4) r.fail("the layout fingerprint is longer than the file");
  for (std::uint32_t k = 0; k < entries; ++k) I.fingerprint.entries.push_back(r.string("the layout fingerprint"));
  if (layoutFingerprintHash(I.fingerprint.entries) != I.fingerprint.hash) {
    r.fail("the layout fingerprint does not match its hash");
  }
  I.hasLayout = true;
  I.timeStep = r.get<double>("the time step");
  if (!(I.timeStep > 0.0) || !std::isfinite(I.timeStep)) r.fail("the time step is not a positive finite number");
  RecordingOptions& o = I.options;
  o.every = r.get<std::uint64_t>("the options");
  o.budgetBytes = static_cast<std::size_t>(r.get<std::uint64_t>("the options"));
  o.overflow = static_cast<RecordingOverflow>(r.get<std::uint8_t>("the options"));
  o.deltaEncoding = r.get<std::uint8_t>("the options") != 0;
  o.keepBranches = r.get<std::uint8_t>("the options") != 0;
  r.get<std::uint8_t>("the options");
  o.keyframeInterval = r.get<std::uint32_t>("the options");
  try {
    validateOptions(o);
  } catch (const InvalidArgument& e) {
    r.fail(e.what());
  }
  I.sceneReference = r.string("the scene reference");
  const auto meta = r.get<std::uint32_t>("the metadata");
  if (meta > r.remaining() / 8) r.fail("the metadata is longer than the file");
  for (std::uint32_t k = 0; k < meta; ++k) {
    std::string key = r.string("the metadata");
    I.metadata[key] = r.string("the metadata");
  }
  const auto frames = r.get<std::uint64_t>("the frame count");
  I.droppedFrames = static_cast<std::size_t>(r.get<std::uint64_t>("the frame count"));
  const auto blocks = r.get<std::uint64_t>("the block count");
  if (blocks > r.remaining() / 16) r.fail("more blocks than the file can hold");
  I.blocks.resize(static_cast<std::size_t>(blocks));
  for (Block& b : I.blocks) {
    const auto thinned = r.get<std::uint32_t>("a block header");
    const auto n = r.get<std::uint32_t>("a block header");
    const auto size = r.get<std::uint64_t>("a block header");
    if (thinned > 1 || n == 0 || (thinned == 1 && n != 1)) r.fail("malformed block header");
    if (n > r.remaining() / sizeof(Entry)) r.fail("a block's index is longer than the file");
    b.thinned = thinned == 1;
    b.entries.resize(n);
    std::memcpy(b.entries.data(), r.take(n * sizeof(Entry), "a block's index"), n * sizeof(Entry));
    if (size > r.remaining()) r.fail("a block's frames are longer than the file");
    const unsigned char* p = r.take(static_cast<std::size_t>(size), "a block's frames");
    b.bytes.assign(p, p + size);
    if (b.entries.front().delta() || b.entries.front().offset != 0) r.fail("a block does not start with a keyframe");
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t end = j + 1 < n ? b.entries[j + 1].offset : b.bytes.size();
      if (b.entries[j].offset > end || end > b.bytes.size()) r.fail("a frame's offset lies outside its block");
      if (!b.entries[j].delta() && end - b.entries[j].offset != b.entries[j].raw()) {
        r.fail("a whole frame's size does not match its index entry");
      }
    }
  }
  if (r.remaining() != 0) r.fail("bytes left after the last block");
  I.reindex();
  if (I.frames != frames) r.fail("the frame count does not match the blocks");
  // Every frame must decode, in step order, with the step and time of its index entry.
  std::vector<unsigned char> raw;
  std::uint64_t previous = 0;
  for (std::size_t i = 0; i < I.frames; ++i) {
    const auto [b, j] = I.locate(i);
    const Entry& e = I.blocks[b].entries[j];
    if (i > 0 && e.step <= previous) r.fail("frame " + std::to_string(i) + " is out of step order");
    previous = e.step;
    try {
      I.decode(i, raw);
      const RuntimeSnapshot s = detail::decodeRuntimeFrame(raw.data(), raw.size());
      if (s.state.frameIndex != e.step || !(s.state.time == e.time)) {
        r.fail("frame " + std::to_string(i) + " does not match its index entry");
      }
      if (const char* what = nonFiniteIn(s)) {
        r.fail("frame " + std::to_string(i) + " (step " + std::to_string(e.step) + ") holds non-finite " + what);
      }
    } catch (const InvalidArgument& ex) {
      r.fail("frame " + std::to_string(i) + ": " + ex.what());
    }
  }
  if (I.frames > 0) I.decode(I.frames - 1, I.last);
  return rec;
}

// ---------------------------------------------------------------------------

Recorder::Recorder(World& world, const RecordingOptions& options) : m_world(&world), m_recording(options) {
  if (world.getState().frameIndex % options.every == 0) m_recording.append(world);
  m_observer = world.addStepObserver([this](const World&) { onStep(); });
}

Recorder::~Recorder() {
  m_world->removeStepObserver(m_observer);
}

void Recorder::capture() {
  m_recording.append(*m_world);
}

void Recorder::restore(std::size_t index) {
  m_recording.restore(*m_world, index);
}

void Recorder::onStep() {
  if (m_paused || !m_stopReason.empty()) return;
  try {
    if (m_recording.hasLayout()) m_recording.checkLayout(*m_world);
  } catch (const LayoutIncompatible& e) {
    m_stopReason = e.what();
    return;
  }
  const std::uint64_t step = detail::implOf(m_world).state.frameIndex;
  const std::size_t n = m_recording.size();
  if (n > 0 && m_recording.frameInfo(n - 1).step >= step) {
    // Stepping from a restored frame: a new branch replaces what followed it.
    if (m_recording.options().keepBranches) {
      m_branches.emplace("branch " + std::to_string(m_branches.size() + 1), m_recording);
    }
    const std::optional<std::size_t> keep = step == 0 ? std::nullopt : m_recording.findAtOrBefore(step - 1);
    if (keep) {
      m_recording.truncateAfter(*keep);
    } else {
      m_recording.clear();
    }
  }
  if (step % m_recording.options().every == 0) m_recording.append(*m_world);
}

}  // namespace articula

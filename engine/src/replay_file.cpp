// Replay files: a Recording as bytes and back (docs/replay.md), with every
// frame decoded and checked on load.
#include <articula/file_io.hpp>
#include <articula/recording.hpp>

#include "hash.hpp"
#include "recording_impl.hpp"
#include "world_impl.hpp"

#include <cmath>
#include <cstring>
#include <utility>

namespace articula {

using detail::Block;
using detail::Entry;
using detail::validateOptions;

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

}  // namespace articula

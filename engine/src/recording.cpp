// Recordings of runtime frames: blocks of a keyframe and byte differences
// (frame_delta.cpp), a memory budget, restore with a layout check,
// branching. The replay file format is in replay_file.cpp.
#include <articula/recording.hpp>

#include <articula/world.hpp>

#include "frame_delta.hpp"
#include "recording_impl.hpp"
#include "world_impl.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <utility>

namespace articula {

static_assert(std::endian::native == std::endian::little, "replay frames and files are little-endian");

namespace detail {

void validateOptions(const RecordingOptions& o) {
  if (o.every == 0) throw InvalidArgument("RecordingOptions: every must be at least 1");
  if (o.budgetBytes == 0) throw InvalidArgument("RecordingOptions: budgetBytes must be positive");
  if (o.keyframeInterval == 0) throw InvalidArgument("RecordingOptions: keyframeInterval must be at least 1");
  if (o.overflow != RecordingOverflow::DropOldest && o.overflow != RecordingOverflow::ThinToKeyframes) {
    throw InvalidArgument("RecordingOptions: unknown overflow policy");
  }
}

}  // namespace detail

using detail::appendDelta;
using detail::applyDelta;
using detail::Block;
using detail::Entry;
using detail::kDeltaFlag;
using detail::validateOptions;

void Recording::Impl::reindex() {
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

std::pair<std::size_t, std::size_t> Recording::Impl::locate(std::size_t index) const {
  const auto it = std::upper_bound(firstIndex.begin(), firstIndex.end(), index);
  const auto b = static_cast<std::size_t>(it - firstIndex.begin()) - 1;
  return {b, index - firstIndex[b]};
}

void Recording::Impl::requireIndex(std::size_t index, const char* what) const {
  if (index >= frames) {
    throw InvalidArgument(std::string(what) + ": frame " + std::to_string(index) + " out of range (the recording has " +
                          std::to_string(frames) + " frames)");
  }
}

// Decodes frame `index` into `out`.
void Recording::Impl::decode(std::size_t index, std::vector<unsigned char>& out) const {
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
void Recording::Impl::checkWorld(const World& world, const char* refusal) const {
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

void Recording::Impl::truncateAfter(std::size_t index) {
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
void Recording::Impl::discardFrom(std::uint64_t step) {
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

std::uint64_t Recording::Impl::stepOf(std::size_t index) const {
  const auto [b, j] = locate(index);
  return blocks[b].entries[j].step;
}

void Recording::Impl::clearFrames() {
  blocks.clear();
  last.clear();
  reindex();
}

// Appends `raw` (which is left holding the previous frame's bytes).
void Recording::Impl::appendRaw(std::vector<unsigned char>& raw, std::uint64_t step, double time) {
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

void Recording::Impl::enforceBudget() {
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

#pragma once
/// @file
/// Recording a World's runtime state step by step, restoring any recorded
/// frame exactly, branching, and replay files (docs/replay.md).
///
/// A frame holds only mutable runtime state (the raw runtime frame of
/// World::captureRuntimeState: time, step, mode, q, v, v̇, applied forces and
/// wrenches, closure and coupler policies and row impulses, contact
/// manifolds with their warm starts, the step's diagnostics). Topology,
/// shapes, meshes and materials are never stored; the layout fingerprint
/// that travels with the recording says which worlds can take its frames.

#include <articula/error.hpp>
#include <articula/layout.hpp>
#include <articula/snapshot.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace articula {

class World;

/// What happens when the frames would exceed the memory budget. Frames are
/// kept in blocks of `keyframeInterval`: a keyframe stored whole, then
/// frames stored as differences. The newest block is always kept whole.
enum class RecordingOverflow : std::uint8_t {
  /// Ring buffer: the oldest block is dropped.
  DropOldest,
  /// Older blocks are thinned to their keyframe, oldest first, so the whole
  /// run stays reachable at one frame per block; when every older block is
  /// thinned, every second one of them is dropped (the spacing doubles).
  ThinToKeyframes,
};

struct RecordingOptions {
  /// Record the frames whose step index is a multiple of `every` (≥ 1).
  std::uint64_t every = 1;
  /// Memory for frames, index entries included (bytes, > 0).
  std::size_t budgetBytes = std::size_t{256} << 20;
  RecordingOverflow overflow = RecordingOverflow::DropOldest;
  /// Store frames after a block's keyframe as byte differences from the
  /// frame before (whole when that is not smaller).
  bool deltaEncoding = true;
  /// Frames per block (≥ 1); restoring decodes at most this many frames.
  std::uint32_t keyframeInterval = 64;
  /// When stepping from a restored frame discards later frames, keep the
  /// recording as it was in Recorder::branches() (a full copy).
  bool keepBranches = false;
};

/// One recorded frame.
struct RecordedFrameInfo {
  std::uint64_t step = 0;       ///< the world's frame index: steps since entering simulation mode
  double time = 0.0;            ///< simulated time (s)
  bool keyframe = false;        ///< stored whole rather than as a difference
  std::size_t storedBytes = 0;  ///< bytes held for this frame, its index entry included
  std::size_t rawBytes = 0;     ///< bytes of its raw runtime frame
};

/// Totals over the kept frames.
struct RecordingStats {
  std::size_t frames = 0;
  std::size_t storedBytes = 0;    ///< frame data and index entries
  std::size_t rawBytes = 0;       ///< the same frames as raw runtime frames
  std::size_t droppedFrames = 0;  ///< dropped or thinned away by the budget since recording began
  double storedBytesPerFrame() const { return frames ? double(storedBytes) / double(frames) : 0.0; }
  double rawBytesPerFrame() const { return frames ? double(rawBytes) / double(frames) : 0.0; }
};

/// Bytes of the index entry that each stored frame carries besides its data.
inline constexpr std::size_t kRecordedFrameIndexBytes = 24;

/// A sequence of recorded frames with the layout fingerprint they belong
/// to. A value type: copies are independent.
class Recording {
 public:
  /// An empty recording; its layout is taken from the first world appended.
  explicit Recording(const RecordingOptions& options = {});
  ~Recording();
  Recording(const Recording& other);
  Recording& operator=(const Recording& other);
  /// Leaves `other` empty.
  Recording(Recording&& other);
  Recording& operator=(Recording&& other);

  const RecordingOptions& options() const;
  /// Takes effect with the next frame; a smaller budget is applied at once.
  /// @throws InvalidArgument for every = 0, budgetBytes = 0 or keyframeInterval = 0.
  void setOptions(const RecordingOptions& options);
  const LayoutFingerprint& fingerprint() const;
  /// False until a world is first appended; a loaded recording has the layout of its file.
  bool hasLayout() const;
  /// The time step of the world when the first frame was recorded (s).
  double timeStep() const;

  /// Which scene the frames belong to (a path or a name), saved with the file.
  const std::string& sceneReference() const;
  void setSceneReference(std::string reference);
  /// Free key/value pairs saved with the file (e.g. how the scene was loaded).
  const std::map<std::string, std::string>& metadata() const;
  void setMetadata(const std::string& key, std::string value);

  std::size_t size() const;
  bool empty() const { return size() == 0; }
  /// @throws InvalidArgument for an index out of range.
  RecordedFrameInfo frameInfo(std::size_t index) const;
  /// The index of the frame recorded at `step`, if it is kept.
  std::optional<std::size_t> findStep(std::uint64_t step) const;
  /// The index of the last kept frame at or before `step`, if any.
  std::optional<std::size_t> findAtOrBefore(std::uint64_t step) const;
  RecordingStats stats() const;

  /// Appends the world's runtime state as a frame. A frame whose step is
  /// not after the last kept one starts a new branch: the kept frames at
  /// that step and later are discarded first.
  /// @throws LayoutIncompatible when the world's layout is not the recording's.
  void append(const World& world);
  /// Discards the frames after `index` (index = size() − 1 keeps all).
  void truncateAfter(std::size_t index);
  void clear();

  /// The runtime state of a frame. @throws InvalidArgument for an index out of range.
  RuntimeSnapshot snapshot(std::size_t index) const;
  /// Puts `world` into the state of a frame (kinematics fresh). Checks the
  /// layout first. @throws LayoutIncompatible naming what differs; the world
  /// is then unchanged. @throws InvalidArgument for an index out of range.
  void restore(World& world, std::size_t index) const;
  /// @throws LayoutIncompatible naming what differs between the world and the recording.
  void checkLayout(const World& world) const;

  /// Writes a replay file (written to a temporary file and renamed, so an
  /// existing file is replaced only by a complete one).
  /// @throws ReplayFileError.
  void save(const std::filesystem::path& file) const;
  /// Reads a replay file whole and checks it (header, checksum, every
  /// frame) before returning. @throws ReplayFileError naming the file and the problem.
  static Recording load(const std::filesystem::path& file);
  /// The bytes of a replay file, and back; `sourceName` starts every error message.
  std::vector<unsigned char> toBytes() const;
  static Recording fromBytes(const std::vector<unsigned char>& bytes, const std::string& sourceName);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// Records a World after its steps (World::addStepObserver). Construction
/// records the current state when its step index is a multiple of
/// `every`; destruction detaches, so the world must outlive the recorder.
/// When the world's layout changes, the recorder stops and says why
/// (stopReason()). Like the World, not thread-safe: use both from the
/// thread that steps the world.
class Recorder {
 public:
  explicit Recorder(World& world, const RecordingOptions& options = {});
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  World& world() const { return *m_world; }
  const Recording& recording() const { return m_recording; }
  /// For metadata, options, saving; appending through it is allowed.
  Recording& recording() { return m_recording; }

  /// Records the current state now, whatever its step index.
  /// @throws LayoutIncompatible when the world's layout changed.
  void capture();
  /// No frames are recorded while paused.
  void setPaused(bool paused) { m_paused = paused; }
  bool isPaused() const { return m_paused; }
  /// Why recording stopped (the world's layout changed); empty while recording.
  const std::string& stopReason() const { return m_stopReason; }

  /// Puts the world into frame `index`. Nothing is discarded until the world
  /// steps from there: then the frames after `index` go (the new branch
  /// replaces them), kept in branches() when options().keepBranches.
  void restore(std::size_t index);
  /// Earlier branches by name ("branch 1", "branch 2", ...), each the whole
  /// recording as it was before stepping from a restored frame discarded its end.
  const std::map<std::string, Recording>& branches() const { return m_branches; }

 private:
  void onStep();
  World* m_world;
  Recording m_recording;
  std::map<std::string, Recording> m_branches;
  std::uint64_t m_observer = 0;
  bool m_paused = false;
  std::string m_stopReason;
};

}  // namespace articula

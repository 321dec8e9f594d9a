#pragma once
/// @file
/// SnapshotPublisher: the simulation side makes a RenderSnapshot after each
/// step (as a World step observer, or by calling publish()) and the viewer
/// side takes the newest one through a lock-free triple buffer.
///
/// Threads: publish() / attach() / the observer run on the thread that owns
/// the world; acquire() / latest() on the viewer's thread. setDescription()
/// belongs to the producer (call it while the world is not stepping).

#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/triple_buffer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace articula::viewer {

class SnapshotPublisher {
 public:
  SnapshotPublisher();
  ~SnapshotPublisher();
  SnapshotPublisher(const SnapshotPublisher&) = delete;
  SnapshotPublisher& operator=(const SnapshotPublisher&) = delete;

  // ---- producer ----------------------------------------------------------
  /// The layout snapshots follow (shared with the viewer, never changed in
  /// place: a new design is a new description).
  void setDescription(std::shared_ptr<const SceneDescription> description);
  std::shared_ptr<const SceneDescription> description() const { return m_description; }
  /// Publishes a snapshot after every step of `world` until detach() or
  /// destruction. The world must outlive the attachment.
  void attach(World& world);
  void detach();
  /// Makes and publishes a snapshot of `world` now (after an edit, a reset,
  /// a restore from a recording).
  void publish(const World& world);
  /// Whether snapshots carry the joints' reactions (fillRenderSnapshot);
  /// off by default. Any thread may set it; the next snapshot follows.
  void setJointForces(bool on) { m_jointForces.store(on, std::memory_order_relaxed); }
  bool jointForces() const { return m_jointForces.load(std::memory_order_relaxed); }
  /// Snapshots published so far.
  std::uint64_t publishedCount() const { return m_version; }

  // ---- consumer ----------------------------------------------------------
  /// Takes the newest snapshot if a new one was published since the last
  /// call; returns whether latest() changed.
  bool acquire() { return m_buffer.acquire(); }
  /// The snapshot last acquired (version 0 before the first).
  const RenderSnapshot& latest() const { return m_buffer.readSlot(); }

 private:
  std::atomic<bool> m_jointForces{false};
  void updateRate(const World& world, SimulationStats& stats);

  TripleBuffer<RenderSnapshot> m_buffer;
  std::shared_ptr<const SceneDescription> m_description;
  World* m_world = nullptr;
  std::uint64_t m_observer = 0;
  std::uint64_t m_version = 0;
  // Real-time factor: simulated over wall-clock time since an anchor that
  // moves forward every ~0.5 s of wall-clock time (restarted when the
  // simulated time does not advance by whole steps, e.g. after a reset).
  std::chrono::steady_clock::time_point m_anchorWall{};
  double m_anchorTime = 0.0;
  std::uint64_t m_anchorStep = 0;
  std::uint64_t m_lastStep = 0;
  bool m_anchored = false;
  double m_rtf = 0.0;
  double m_stepsPerSecond = 0.0;
};

}  // namespace articula::viewer

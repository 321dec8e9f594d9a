#include <articula/viewer/snapshot_publisher.hpp>

#include <articula/error.hpp>

#include <cmath>
#include <utility>

namespace articula::viewer {

namespace {
constexpr double kRateWindowSeconds = 0.5;
}

SnapshotPublisher::SnapshotPublisher() = default;

SnapshotPublisher::~SnapshotPublisher() {
  detach();
}

void SnapshotPublisher::setDescription(std::shared_ptr<const SceneDescription> description) {
  m_description = std::move(description);
}

void SnapshotPublisher::attach(World& world) {
  detach();
  m_world = &world;
  m_observer = world.addStepObserver([this](const World& w) { publish(w); });
}

void SnapshotPublisher::detach() {
  if (m_world != nullptr) m_world->removeStepObserver(m_observer);
  m_world = nullptr;
  m_observer = 0;
}

void SnapshotPublisher::publish(const World& world) {
  if (!m_description) throw InvalidArgument("SnapshotPublisher::publish: no scene description set");
  RenderSnapshot& s = m_buffer.writeSlot();
  fillRenderSnapshot(world, *m_description, s, jointForces());
  updateRate(world, s.stats);
  s.version = ++m_version;
  m_buffer.publish();
}

void SnapshotPublisher::updateRate(const World& world, SimulationStats& stats) {
  const auto now = std::chrono::steady_clock::now();
  const std::uint64_t step = world.getFrameIndex();
  const double t = world.getTime();
  // Only consecutive steps measure the rate; anything else (a reset, a
  // restore, a publish without a step) starts a new window.
  if (!m_anchored || step < m_lastStep || step > m_lastStep + 1 || t < m_anchorTime) {
    m_anchored = true;
    m_anchorWall = now;
    m_anchorTime = t;
    m_anchorStep = step;
    if (step != m_lastStep + 1) {
      m_rtf = 0.0;
      m_stepsPerSecond = 0.0;
    }
  } else {
    const double wall = std::chrono::duration<double>(now - m_anchorWall).count();
    if (wall >= kRateWindowSeconds) {
      m_rtf = (t - m_anchorTime) / wall;
      m_stepsPerSecond = static_cast<double>(step - m_anchorStep) / wall;
      m_anchorWall = now;
      m_anchorTime = t;
      m_anchorStep = step;
    }
  }
  m_lastStep = step;
  stats.realTimeFactor = m_rtf;
  stats.stepsPerSecond = m_stepsPerSecond;
}

}  // namespace articula::viewer

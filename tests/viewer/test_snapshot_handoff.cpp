// The lock-free handoff of render snapshots: a producer at ≥ 1 kHz, a
// consumer at 60 Hz, every consumed snapshot describing one step, and
// neither side waiting for the other.
#include "replay_scenes.hpp"
#include "test_helpers.hpp"

#include <articula/viewer/snapshot_publisher.hpp>
#include <articula/viewer/triple_buffer.hpp>

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace articula;
using namespace articula::test;
using namespace articula::viewer;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kRun = std::chrono::seconds(5);
constexpr auto kProducerPeriod = std::chrono::microseconds(500);    // 2 kHz
constexpr auto kConsumerPeriod = std::chrono::microseconds(16667);  // 60 Hz

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct SideStats {
  std::uint64_t count = 0;
  double maxCall = 0.0;      // longest publish() / acquire() (s)
  std::uint64_t stalls = 0;  // calls longer than kStall

  void record(double callSeconds);
};

// A call this long would mean waiting for the other side (a lock held
// across a snapshot copy); a preempted thread can also take this long, now
// and then, on a loaded machine, so a few are tolerated.
constexpr double kStall = 1e-3;
constexpr std::uint64_t kToleratedStalls = 3;

// Under ThreadSanitizer (the tsan preset) a world step with a consumer
// running beside it is several times slower than the warm-up measures, and
// uneven: the stepping rate and the measured real-time factor are not
// asserted there.
#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

void SideStats::record(double callSeconds) {
  maxCall = std::max(maxCall, callSeconds);
  if (callSeconds > kStall) ++stalls;
}

// A snapshot whose every field is derived from `v`.
void fillUniform(RenderSnapshot& s, std::uint64_t v) {
  const auto x = static_cast<double>(v);
  s.version = v;
  s.descriptionVersion = v;
  s.time = 1e-3 * x;
  s.step = v;
  s.bodyPoses.resize(200);
  for (Isometry3d& X : s.bodyPoses) {
    X.setIdentity();
    X.translation() = Vector3d(x, -x, 2 * x);
  }
  s.positions.assign(300, x);
  s.velocities.assign(300, -x);
  s.contacts.resize(50);
  for (ContactMark& c : s.contacts) c.depth = x;
  s.stats.kineticEnergy = x;
}

QString uniformError(const RenderSnapshot& s) {
  const auto x = static_cast<double>(s.version);
  if (s.descriptionVersion != s.version || s.step != s.version || s.time != 1e-3 * x || s.stats.kineticEnergy != x)
    return QString("header fields of version %1 disagree").arg(s.version);
  for (const Isometry3d& X : s.bodyPoses) {
    if (X.translation() != Vector3d(x, -x, 2 * x))
      return QString("a body pose of version %1 is from another").arg(s.version);
  }
  for (double q : s.positions) {
    if (q != x) return QString("a position of version %1 is from another").arg(s.version);
  }
  for (double v : s.velocities) {
    if (v != -x) return QString("a velocity of version %1 is from another").arg(s.version);
  }
  for (const ContactMark& c : s.contacts) {
    if (c.depth != x) return QString("a contact of version %1 is from another").arg(s.version);
  }
  return {};
}

}  // namespace

class TestSnapshotHandoff : public QObject {
  Q_OBJECT
 private slots:
  void tripleBufferSingleThread() {
    TripleBuffer<int> b(0);
    QVERIFY(TripleBuffer<int>::isLockFree());
    QVERIFY(!b.acquire());
    QCOMPARE(b.readSlot(), 0);
    b.writeSlot() = 1;
    b.publish();
    b.writeSlot() = 2;
    b.publish();
    QVERIFY(b.acquire());
    QCOMPARE(b.readSlot(), 2);  // the newest; 1 was skipped
    QVERIFY(!b.acquire());
    QCOMPARE(b.readSlot(), 2);
    // The producer's slot is never the consumer's.
    for (int i = 3; i < 20; ++i) {
      QVERIFY(&b.writeSlot() != &b.readSlot());
      b.writeSlot() = i;
      b.publish();
      if (i % 3 == 0) {
        QVERIFY(b.acquire());
        QCOMPARE(b.readSlot(), i);
      }
    }
  }

  // Large snapshots written field by field at 2 kHz, read at 60 Hz for 5 s:
  // a torn read would mix versions.
  void stressUniformSnapshots() {
    TripleBuffer<RenderSnapshot> buffer;
    std::atomic<bool> stop{false};
    SideStats producer;
    std::thread thread([&] {
      auto next = Clock::now();
      std::uint64_t v = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        fillUniform(buffer.writeSlot(), ++v);
        const auto t0 = Clock::now();
        buffer.publish();
        producer.record(seconds(Clock::now() - t0));
        ++producer.count;
        next += kProducerPeriod;
        std::this_thread::sleep_until(next);
      }
    });
    SideStats consumer;
    QString error;
    std::uint64_t last = 0;
    const auto start = Clock::now();
    auto next = start;
    while (Clock::now() - start < kRun) {
      const auto t0 = Clock::now();
      const bool fresh = buffer.acquire();
      consumer.record(seconds(Clock::now() - t0));
      if (fresh) {
        const RenderSnapshot& s = buffer.readSlot();
        if (error.isEmpty()) error = uniformError(s);
        if (error.isEmpty() && s.version <= last) error = QString("version %1 after %2").arg(s.version).arg(last);
        last = s.version;
        ++consumer.count;
      }
      next += kConsumerPeriod;
      std::this_thread::sleep_until(next);
    }
    const double elapsed = seconds(Clock::now() - start);
    stop = true;
    thread.join();
    qInfo(
        "producer %.0f Hz (longest publish %.1f us), consumer took %llu snapshots at %.1f Hz (longest acquire %.1f us)",
        static_cast<double>(producer.count) / elapsed, 1e6 * producer.maxCall,
        static_cast<unsigned long long>(consumer.count), static_cast<double>(consumer.count) / elapsed,
        1e6 * consumer.maxCall);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(static_cast<double>(producer.count) / elapsed >= 1000.0);
    QVERIFY(static_cast<double>(consumer.count) / elapsed >= 50.0);
    // One atomic exchange each: nothing near a frame's time.
    QVERIFY2(producer.stalls <= kToleratedStalls && consumer.stalls <= kToleratedStalls, "handoff calls stalled");
  }

  // A real world stepped at ≥ 1 kHz on its own thread, publishing through
  // the step observer; the viewer side checks each snapshot against
  // itself: the time is the step's, and every body's pose is the one its
  // coordinates give.
  void stressWorldPublisher() {
    World w;
    pile(w);
    w.enterSimulationMode();
    SnapshotPublisher publisher;
    auto description = std::make_shared<SceneDescription>(describeScene(w));
    publisher.setDescription(description);
    publisher.attach(w);
    // Where each rigid body's seven coordinates are in q.
    const StateSpace space = w.getStateSpace();
    std::vector<std::pair<std::size_t, int>> bodyCoordinates;  // (description body, q offset)
    for (std::size_t i = 1; i < description->bodies.size(); ++i) {
      const auto seg = space.segment(description->bodies[i].name);
      QVERIFY(seg && seg->numPositions == 7);
      bodyCoordinates.emplace_back(i, seg->positionOffset);
    }
    const double dt = w.getOptions().timeStep;
    // A sanitized debug build steps this world far slower than 1 kHz; there
    // (and under ThreadSanitizer) the rate is not asserted (the handoff
    // itself is, above), only the consistency of every snapshot.
    const auto warmUp = Clock::now();
    for (int i = 0; i < 50; ++i) w.step();
    const double stepSeconds = seconds(Clock::now() - warmUp) / 50.0;
    const bool canReach1kHz = stepSeconds < 5e-4 && !kThreadSanitizer;

    std::atomic<bool> stop{false};
    SideStats producer;
    std::thread thread([&] {
      auto next = Clock::now();
      while (!stop.load(std::memory_order_relaxed)) {
        const auto t0 = Clock::now();
        w.step();  // publishes
        producer.maxCall = std::max(producer.maxCall, seconds(Clock::now() - t0));
        ++producer.count;
        next += std::chrono::microseconds(900);
        std::this_thread::sleep_until(next);
      }
    });
    SideStats consumer;
    QString error;
    std::uint64_t lastVersion = 0;
    const auto start = Clock::now();
    auto next = start;
    while (Clock::now() - start < kRun) {
      if (publisher.acquire()) {
        ++consumer.count;
        const RenderSnapshot& s = publisher.latest();
        if (error.isEmpty() && s.version <= lastVersion) error = "versions do not increase";
        lastVersion = s.version;
        if (error.isEmpty() && std::abs(s.time - static_cast<double>(s.step) * dt) > 1e-9)
          error = QString("time %1 is not step %2's").arg(s.time).arg(s.step);
        for (const auto& [body, offset] : bodyCoordinates) {
          const auto o = static_cast<std::size_t>(offset);
          const Vector3d p(s.positions[o], s.positions[o + 1], s.positions[o + 2]);
          const Eigen::Quaterniond q(s.positions[o + 6], s.positions[o + 3], s.positions[o + 4], s.positions[o + 5]);
          const Isometry3d& X = s.bodyPoses[body];
          if (error.isEmpty() && ((X.translation() - p).norm() > 1e-12 ||
                                  (X.linear() - q.normalized().toRotationMatrix()).norm() > 1e-9)) {
            error = QString("body %1's pose is not its coordinates' at step %2").arg(body).arg(s.step);
          }
        }
      }
      next += kConsumerPeriod;
      std::this_thread::sleep_until(next);
    }
    const double elapsed = seconds(Clock::now() - start);
    stop = true;
    thread.join();
    publisher.detach();
    qInfo("world stepped at %.0f Hz, %llu snapshots published, %llu consumed (%.1f Hz), RTF %.2f",
          static_cast<double>(producer.count) / elapsed, static_cast<unsigned long long>(publisher.publishedCount()),
          static_cast<unsigned long long>(consumer.count), static_cast<double>(consumer.count) / elapsed,
          publisher.latest().stats.realTimeFactor);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(publisher.publishedCount(), producer.count + 50);
    if (canReach1kHz) {
      QVERIFY(static_cast<double>(producer.count) / elapsed >= 1000.0);
    } else {
      qInfo("a step takes %.2f ms in this build: the 1 kHz rate is not asserted", 1e3 * stepSeconds);
    }
    QVERIFY(static_cast<double>(consumer.count) / elapsed >= 50.0);
    // Stepping at ~1.1 kHz with dt = 1 ms: real-time factor about 1.1.
    const double expectedRtf = static_cast<double>(producer.count) * dt / elapsed;
    if (!kThreadSanitizer) {
      QVERIFY2(std::abs(publisher.latest().stats.realTimeFactor - expectedRtf) < 0.25 * expectedRtf,
               qPrintable(
                   QString("RTF %1, expected about %2").arg(publisher.latest().stats.realTimeFactor).arg(expectedRtf)));
    }
  }

  void detachStopsPublishing() {
    World w;
    pile(w);
    SnapshotPublisher publisher;
    publisher.setDescription(std::make_shared<SceneDescription>(describeScene(w)));
    publisher.attach(w);
    w.step(3);
    QCOMPARE(publisher.publishedCount(), std::uint64_t{3});
    publisher.detach();
    w.step(3);
    QCOMPARE(publisher.publishedCount(), std::uint64_t{3});
    QVERIFY(publisher.acquire());
    QCOMPARE(publisher.latest().step, std::uint64_t{3});
    // A publish without a description is refused.
    SnapshotPublisher bare;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, bare.publish(w));
  }
};

QTEST_MAIN(TestSnapshotHandoff)
#include "test_snapshot_handoff.moc"

// Publishing render snapshots runs inside World::step (a step observer),
// and a step in simulation mode allocates nothing: once a snapshot slot's
// arrays have their sizes, making and publishing snapshots must not
// allocate either. Allocations are counted by replacing the global
// allocation functions (tests/support/counting_allocator.cpp).
#include "builtin_scenes.hpp"
#include "counting_allocator.hpp"
#include "replay_scenes.hpp"
#include "test_helpers.hpp"

#include <articula/viewer/snapshot_publisher.hpp>

#include <QtTest>

using namespace articula;
using namespace articula::test;
using namespace articula::viewer;

class TestPublishAllocation : public QObject {
  Q_OBJECT
 private slots:
  void publishingInsideStepDoesNotAllocate() {
    // Contacts (a settled pile) and a loop closure (a swinging four-bar).
    World w;
    pile(w);
    scenes::buildFourBar(w, "linkage", Vector3d(3, 0, 1));
    w.enterSimulationMode();
    w.step(1500);
    SnapshotPublisher publisher;
    publisher.setDescription(std::make_shared<SceneDescription>(describeScene(w)));
    publisher.attach(w);
    // Every slot of the triple buffer gets its sizes: the consumer's
    // acquires rotate all three slots through the producer's hands (the
    // first fill of a slot allocates its arrays).
    for (int i = 0; i < 30; ++i) {
      w.step(10);
      QVERIFY(publisher.acquire());
    }
    QVERIFY(!w.getContacts().empty());
    QCOMPARE(publisher.latest().closures.size(), std::size_t{1});

    const std::uint64_t before = publisher.publishedCount();
    Counts c{};
    {
      CountingScope scope;
      for (int i = 0; i < 30; ++i) {
        w.step(10);
        publisher.acquire();
      }
      c = counts();
    }
    QCOMPARE(publisher.publishedCount(), before + 300);
    QVERIFY2(c.news == 0 && c.mallocs == 0, qPrintable(describeCounts(c)));

    // Control: a snapshot with empty arrays does allocate, and is counted.
    RenderSnapshot fresh;
    {
      CountingScope scope;
      fillRenderSnapshot(w, *publisher.description(), fresh);
      c = counts();
    }
    QVERIFY2(c.news + c.mallocs > 0, qPrintable(describeCounts(c)));
    publisher.detach();
  }
};

QTEST_MAIN(TestPublishAllocation)
#include "test_publish_allocation.moc"

// PlotBuffer (the scrolling sample window of live plots) and the overlay's
// bookkeeping that needs no OpenGL: which snapshot numbers end up in which
// plot, labels, and that an overlay can be made and destroyed without a GL
// context.
#include <articula/error.hpp>
#include <articula/viewer/overlay.hpp>
#include <articula/viewer/plot_buffer.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>

#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>

// Counts every allocation of the process, so a test can check that a stretch
// of code allocates nothing.
namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

using namespace articula;
using namespace articula::viewer;

namespace {

RenderSnapshot makeSnapshot(std::uint64_t version, double time) {
  RenderSnapshot s;
  s.version = version;
  s.descriptionVersion = 1;
  s.time = time;
  s.step = version * 10;
  s.positions = {0.1 * static_cast<double>(version), 2.0, 3.0};
  s.velocities = {-1.0, -0.5 * static_cast<double>(version)};
  s.stats.kineticEnergy = 1.5 * static_cast<double>(version);
  s.stats.potentialEnergy = -10.0;
  s.stats.maxClosureResidual = 1e-9 * static_cast<double>(version);
  return s;
}

}  // namespace

class TestPlotBuffer : public QObject {
  Q_OBJECT

 private slots:
  void fillsInOrderThenScrolls();
  void minAndMax();
  void timeGoingBackwardsClears();
  void pushNeverAllocates();
  void copyToArrays();
  void zeroCapacityIsRejected();

  void overlayNeedsNoGl();
  void overlayPlotBookkeeping();
  void feedAppendsOnlyNewVersions();
  void feedMapsQuantities();
  void feedSkipsOutOfRangeCoordinates();
  void feedClearsCoordinatesOnNewLayout();
  void feedClearsWhenTimeGoesBack();
  void labels();
};

void TestPlotBuffer::fillsInOrderThenScrolls() {
  PlotBuffer b(4);
  QCOMPARE(b.capacity(), std::size_t{4});
  QCOMPARE(b.size(), std::size_t{0});
  QVERIFY(b.empty());

  for (int i = 0; i < 3; ++i) b.push(i, 10.0 * i);
  QCOMPARE(b.size(), std::size_t{3});
  for (std::size_t i = 0; i < 3; ++i) {
    QCOMPARE(b.time(i), static_cast<double>(i));
    QCOMPARE(b.value(i), 10.0 * static_cast<double>(i));
  }

  // Three more: the window keeps the newest four, oldest first, also across
  // the wrap-around of the ring.
  for (int i = 3; i < 6; ++i) b.push(i, 10.0 * i);
  QCOMPARE(b.size(), std::size_t{4});
  QCOMPARE(b.capacity(), std::size_t{4});
  for (std::size_t i = 0; i < 4; ++i) {
    QCOMPARE(b.time(i), static_cast<double>(i + 2));
    QCOMPARE(b.value(i), 10.0 * static_cast<double>(i + 2));
  }
  QCOMPARE(b.lastTime(), 5.0);
  QCOMPARE(b.lastValue(), 50.0);

  // Many wraps.
  for (int i = 6; i < 1003; ++i) b.push(i, -i);
  QCOMPARE(b.size(), std::size_t{4});
  for (std::size_t i = 0; i < 4; ++i) QCOMPARE(b.time(i), static_cast<double>(999 + i));
  QCOMPARE(b.value(0), -999.0);

  b.clear();
  QVERIFY(b.empty());
  QCOMPARE(b.capacity(), std::size_t{4});
  b.push(0.5, 7.0);
  QCOMPARE(b.size(), std::size_t{1});
  QCOMPARE(b.time(0), 0.5);
  QCOMPARE(b.value(0), 7.0);
}

void TestPlotBuffer::minAndMax() {
  PlotBuffer b(3);
  QCOMPARE(b.minValue(), 0.0);
  QCOMPARE(b.maxValue(), 0.0);
  b.push(0, 5.0);
  QCOMPARE(b.minValue(), 5.0);
  QCOMPARE(b.maxValue(), 5.0);
  b.push(1, -2.0);
  b.push(2, std::numeric_limits<double>::quiet_NaN());
  QCOMPARE(b.minValue(), -2.0);
  QCOMPARE(b.maxValue(), 5.0);
  // The 5 scrolls out: min/max cover only the kept samples.
  b.push(3, 1.0);
  QCOMPARE(b.minValue(), -2.0);
  QCOMPARE(b.maxValue(), 1.0);
  b.push(4, 0.5);
  b.push(5, 0.75);
  QCOMPARE(b.minValue(), 0.5);
  QCOMPARE(b.maxValue(), 1.0);
}

void TestPlotBuffer::timeGoingBackwardsClears() {
  PlotBuffer b(10);
  for (int i = 0; i < 5; ++i) b.push(0.1 * i, i);
  // Equal time is kept (paused simulation, several snapshots at one time).
  b.push(0.4, 99.0);
  QCOMPARE(b.size(), std::size_t{6});
  // Earlier than the newest kept sample: a reset or a scrub; start afresh.
  b.push(0.25, -1.0);
  QCOMPARE(b.size(), std::size_t{1});
  QCOMPARE(b.time(0), 0.25);
  QCOMPARE(b.value(0), -1.0);
  QCOMPARE(b.minValue(), -1.0);
  QCOMPARE(b.maxValue(), -1.0);
  b.push(0.3, 2.0);
  QCOMPARE(b.size(), std::size_t{2});
}

void TestPlotBuffer::pushNeverAllocates() {
  PlotBuffer b(2000);
  const long before = g_allocations.load();
  for (int i = 0; i < 10000; ++i) b.push(1e-3 * i, std::sin(i));
  b.push(-1.0, 0.0);  // clear by time going back
  for (int i = 0; i < 100; ++i) b.push(i, i);
  b.clear();
  for (int i = 0; i < 3000; ++i) b.push(i, i);
  volatile double sink = b.minValue() + b.maxValue() + b.time(0) + b.value(b.size() - 1);
  (void)sink;
  const long after = g_allocations.load();
  QCOMPARE(after - before, 0L);
  QCOMPARE(b.capacity(), std::size_t{2000});
  QCOMPARE(b.size(), std::size_t{2000});
  QCOMPARE(b.time(0), 1000.0);
}

void TestPlotBuffer::copyToArrays() {
  PlotBuffer b(3);
  for (int i = 0; i < 5; ++i) b.push(i, i * i);
  std::vector<double> t;
  std::vector<double> v;
  b.copyTo(t, v);
  QCOMPARE(t, (std::vector<double>{2, 3, 4}));
  QCOMPARE(v, (std::vector<double>{4, 9, 16}));
  // Reused storage: a second copy into large-enough arrays allocates nothing.
  const long before = g_allocations.load();
  b.push(5, 25);
  b.copyTo(t, v);
  QCOMPARE(g_allocations.load() - before, 0L);
  QCOMPARE(t, (std::vector<double>{3, 4, 5}));
}

void TestPlotBuffer::zeroCapacityIsRejected() {
  QVERIFY_THROWS_EXCEPTION(InvalidArgument, PlotBuffer(0));
}

void TestPlotBuffer::overlayNeedsNoGl() {
  // Construction, input, feeding and destruction without any GL context;
  // render() while hidden draws nothing and so needs no context either.
  for (int i = 0; i < 2; ++i) {
    Overlay o;
    QVERIFY(o.isVisible());
    QVERIFY(o.isStatsVisible());
    QVERIFY(o.arePlotsVisible());
    QVERIFY(!o.wantsMouse());
    QVERIFY(!o.wantsKeyboard());
    o.mouseMove(10, 10);
    o.mouseButton(0, true);
    o.mouseButton(0, false);
    o.mouseButton(7, true);  // ignored
    o.mouseWheel(2);
    o.key(OverlayKey::Enter, true);
    o.modifiers(true, false, false);
    for (unsigned int c = 0; c < 1000; ++c) o.text('a' + c % 26);
    o.feed(makeSnapshot(1, 0.0));
    o.setVisible(false);
    QVERIFY(!o.isVisible());
    o.render(640, 480, 0.016, {});
    QVERIFY(!o.wantsMouse());
    o.releaseGL();  // nothing to release
  }
}

void TestPlotBuffer::overlayPlotBookkeeping() {
  Overlay o;
  QVERIFY(o.plots().empty());
  const int a = o.addPlot({PlotQuantity::TotalEnergy, -1, "E"});
  const int b = o.addPlot({PlotQuantity::Position, 1, ""});
  const int c = o.addPlot({PlotQuantity::Velocity, 0, "v0"});
  QVERIFY(a > 0 && b > 0 && c > 0);
  QVERIFY(a != b && b != c && a != c);
  QCOMPARE(o.plotIds(), (std::vector<int>{a, b, c}));
  auto specs = o.plots();
  QCOMPARE(specs.size(), std::size_t{3});
  QCOMPARE(specs[1].quantity, PlotQuantity::Position);
  QCOMPARE(specs[1].index, 1);
  QCOMPARE(specs[2].label, std::string("v0"));

  // plotData references stay valid while other plots come and go.
  const PlotBuffer& cData = o.plotData(c);
  o.removePlot(b);
  o.removePlot(12345);  // unknown: ignored
  for (int i = 0; i < 20; ++i) o.addPlot({PlotQuantity::KineticEnergy, -1, ""});
  o.feed(makeSnapshot(1, 0.0));
  QCOMPARE(cData.size(), std::size_t{1});
  QCOMPARE(&cData, &o.plotData(c));
  QCOMPARE(o.plots().size(), std::size_t{22});
  QVERIFY_THROWS_EXCEPTION(InvalidArgument, o.plotData(b));
  QVERIFY_THROWS_EXCEPTION(InvalidArgument, o.plotLabel(b));

  // Ids are not reused.
  const int d = o.addPlot({PlotQuantity::KineticEnergy, -1, ""});
  QVERIFY(d > c + 20);
  o.clearPlots();
  QVERIFY(o.plots().empty());
  QVERIFY(o.plotIds().empty());
}

void TestPlotBuffer::feedAppendsOnlyNewVersions() {
  Overlay o;
  const int e = o.addPlot({PlotQuantity::KineticEnergy, -1, ""});
  o.feed(makeSnapshot(3, 0.1));
  QCOMPARE(o.plotData(e).size(), std::size_t{1});
  o.feed(makeSnapshot(3, 0.1));  // same version: nothing
  QCOMPARE(o.plotData(e).size(), std::size_t{1});
  o.feed(makeSnapshot(2, 0.2));  // older version: nothing
  QCOMPARE(o.plotData(e).size(), std::size_t{1});
  o.feed(makeSnapshot(4, 0.2));
  o.feed(makeSnapshot(9, 0.3));  // versions may skip (the viewer sees only some)
  QCOMPARE(o.plotData(e).size(), std::size_t{3});
  QCOMPARE(o.plotData(e).value(0), 4.5);
  QCOMPARE(o.plotData(e).value(1), 6.0);
  QCOMPARE(o.plotData(e).value(2), 13.5);
  QCOMPARE(o.plotData(e).time(2), 0.3);

  // A plot added later starts with the next new snapshot.
  const int r = o.addPlot({PlotQuantity::ClosureResidual, -1, ""});
  o.feed(makeSnapshot(9, 0.3));
  QCOMPARE(o.plotData(r).size(), std::size_t{0});
  o.feed(makeSnapshot(10, 0.4));
  QCOMPARE(o.plotData(r).size(), std::size_t{1});
  QCOMPARE(o.plotData(e).size(), std::size_t{4});

  // Version 0 counts as new for a fresh overlay.
  Overlay fresh;
  const int k = fresh.addPlot({PlotQuantity::KineticEnergy, -1, ""});
  fresh.feed(makeSnapshot(0, 0.0));
  QCOMPARE(fresh.plotData(k).size(), std::size_t{1});
  fresh.feed(makeSnapshot(0, 0.0));
  QCOMPARE(fresh.plotData(k).size(), std::size_t{1});

  // A new source numbers its snapshots from 1 again: after resetFeed its
  // first snapshot is taken (the plots start afresh).
  o.resetFeed();
  QCOMPARE(o.plotData(e).size(), std::size_t{0});
  o.feed(makeSnapshot(1, 0.05));
  QCOMPARE(o.plotData(e).size(), std::size_t{1});
  QCOMPARE(o.plotData(e).time(0), 0.05);
}

void TestPlotBuffer::feedMapsQuantities() {
  Overlay o;
  const int total = o.addPlot({PlotQuantity::TotalEnergy, -1, ""});
  const int kinetic = o.addPlot({PlotQuantity::KineticEnergy, -1, ""});
  const int potential = o.addPlot({PlotQuantity::PotentialEnergy, -1, ""});
  const int residual = o.addPlot({PlotQuantity::ClosureResidual, -1, ""});
  const int q0 = o.addPlot({PlotQuantity::Position, 0, ""});
  const int q2 = o.addPlot({PlotQuantity::Position, 2, ""});
  const int v1 = o.addPlot({PlotQuantity::Velocity, 1, ""});
  const int v0 = o.addPlot({PlotQuantity::Velocity, 0, ""});

  for (std::uint64_t version = 1; version <= 5; ++version) {
    o.feed(makeSnapshot(version, 0.01 * static_cast<double>(version)));
  }

  for (int id : {total, kinetic, potential, residual, q0, q2, v1, v0}) {
    QCOMPARE(o.plotData(id).size(), std::size_t{5});
    for (std::size_t i = 0; i < 5; ++i) QCOMPARE(o.plotData(id).time(i), 0.01 * static_cast<double>(i + 1));
  }
  for (std::size_t i = 0; i < 5; ++i) {
    const double n = static_cast<double>(i + 1);
    QCOMPARE(o.plotData(kinetic).value(i), 1.5 * n);
    QCOMPARE(o.plotData(potential).value(i), -10.0);
    QCOMPARE(o.plotData(total).value(i), 1.5 * n - 10.0);
    QCOMPARE(o.plotData(residual).value(i), 1e-9 * n);
    QCOMPARE(o.plotData(q0).value(i), 0.1 * n);
    QCOMPARE(o.plotData(q2).value(i), 3.0);
    QCOMPARE(o.plotData(v1).value(i), -0.5 * n);
    QCOMPARE(o.plotData(v0).value(i), -1.0);
  }
  QCOMPARE(o.plotData(total).minValue(), 1.5 - 10.0);
  QCOMPARE(o.plotData(total).maxValue(), 7.5 - 10.0);
}

void TestPlotBuffer::feedSkipsOutOfRangeCoordinates() {
  Overlay o;
  const int qOut = o.addPlot({PlotQuantity::Position, 3, ""});  // q has 3 entries
  const int qNeg = o.addPlot({PlotQuantity::Position, -1, ""});
  const int vOut = o.addPlot({PlotQuantity::Velocity, 2, ""});  // v has 2 entries
  const int e = o.addPlot({PlotQuantity::TotalEnergy, -1, ""});
  o.feed(makeSnapshot(1, 0.0));
  o.feed(makeSnapshot(2, 0.1));
  QCOMPARE(o.plotData(qOut).size(), std::size_t{0});
  QCOMPARE(o.plotData(qNeg).size(), std::size_t{0});
  QCOMPARE(o.plotData(vOut).size(), std::size_t{0});
  QCOMPARE(o.plotData(e).size(), std::size_t{2});

  // Once the world has that coordinate, samples arrive.
  RenderSnapshot s = makeSnapshot(3, 0.2);
  s.positions.push_back(42.0);
  o.feed(s);
  QCOMPARE(o.plotData(qOut).size(), std::size_t{1});
  QCOMPARE(o.plotData(qOut).value(0), 42.0);
}

void TestPlotBuffer::feedClearsCoordinatesOnNewLayout() {
  Overlay o;
  const int q0 = o.addPlot({PlotQuantity::Position, 0, ""});
  const int e = o.addPlot({PlotQuantity::KineticEnergy, -1, ""});
  o.feed(makeSnapshot(1, 0.0));
  o.feed(makeSnapshot(2, 0.1));
  QCOMPARE(o.plotData(q0).size(), std::size_t{2});
  // Another design: q[0] may be another coordinate now; energies continue.
  RenderSnapshot s = makeSnapshot(3, 0.2);
  s.descriptionVersion = 2;
  o.feed(s);
  QCOMPARE(o.plotData(q0).size(), std::size_t{1});
  QCOMPARE(o.plotData(q0).value(0), 0.1 * 3);
  QCOMPARE(o.plotData(e).size(), std::size_t{3});
}

void TestPlotBuffer::feedClearsWhenTimeGoesBack() {
  Overlay o;
  const int e = o.addPlot({PlotQuantity::KineticEnergy, -1, ""});
  const int q = o.addPlot({PlotQuantity::Position, 1, ""});
  for (std::uint64_t v = 1; v <= 10; ++v) o.feed(makeSnapshot(v, 0.1 * static_cast<double>(v)));
  QCOMPARE(o.plotData(e).size(), std::size_t{10});
  // A reset: new version, earlier time.
  o.feed(makeSnapshot(11, 0.0));
  QCOMPARE(o.plotData(e).size(), std::size_t{1});
  QCOMPARE(o.plotData(e).time(0), 0.0);
  QCOMPARE(o.plotData(e).value(0), 1.5 * 11);
  QCOMPARE(o.plotData(q).size(), std::size_t{1});
}

void TestPlotBuffer::labels() {
  Overlay o;
  const int q0 = o.addPlot({PlotQuantity::Position, 0, ""});
  const int q5 = o.addPlot({PlotQuantity::Position, 5, ""});
  const int v1 = o.addPlot({PlotQuantity::Velocity, 1, ""});
  const int named = o.addPlot({PlotQuantity::Velocity, 1, "my label"});
  const int total = o.addPlot({PlotQuantity::TotalEnergy, -1, ""});
  const int residual = o.addPlot({PlotQuantity::ClosureResidual, -1, ""});

  // Without a description: index names.
  QCOMPARE(o.plotLabel(q0), std::string("q[0]"));
  QCOMPARE(o.plotLabel(v1), std::string("v[1]"));
  QCOMPARE(o.plotLabel(named), std::string("my label"));
  QCOMPARE(o.plotLabel(total), std::string("Total energy (J)"));
  QCOMPARE(o.plotLabel(residual), std::string("Max closure residual"));

  auto description = std::make_shared<SceneDescription>();
  description->positionNames = {"arm/shoulder", "arm/elbow"};
  description->velocityNames = {"arm/shoulder", "arm/elbow"};
  o.setDescription(description);
  QCOMPARE(o.plotLabel(q0), std::string("arm/shoulder"));
  QCOMPARE(o.plotLabel(q5), std::string("q[5]"));  // beyond the names
  QCOMPARE(o.plotLabel(v1), std::string("arm/elbow"));
  QCOMPARE(o.plotLabel(named), std::string("my label"));
  // plots() gives the specs as added (labels not filled in).
  QCOMPARE(o.plots()[0].label, std::string());
  o.setDescription(nullptr);
  QCOMPARE(o.plotLabel(q0), std::string("q[0]"));
}

QTEST_MAIN(TestPlotBuffer)
#include "test_plot_buffer.moc"

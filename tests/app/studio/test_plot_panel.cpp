// The Plots dock: series of any run-log column over the recorded frames.
// Plotted values equal the recorded state and a straight run of the same
// design; the CSV export equals articula-run's --csv columns; clicking the
// plot scrubs the timeline; a new branch replaces the rows; pause freezes
// them; the PNG and SVG exports draw the series.
#include "document.hpp"
#include "frame_table.hpp"
#include "plot_panel.hpp"
#include "simulation.hpp"

#include <articula/io/state_columns.hpp>
#include <articula/world.hpp>

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <map>

using namespace articula;
using namespace articula::studio;

namespace {

QString scene(const char* name) {
  return QStringLiteral(ARTICULA_SOURCE_DIR "/scenes/") + name;
}

/// CSV text → header and rows of fields (no quoted commas in these files).
struct Csv {
  QStringList header;
  std::vector<QStringList> rows;
};

Csv readCsv(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  Csv csv;
  const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
  if (lines.isEmpty()) return {};
  csv.header = lines[0].split(',');
  for (int i = 1; i < lines.size(); ++i) csv.rows.push_back(lines[i].split(','));
  return csv;
}

/// Waits until the panel has read `frames` recorded frames.
bool waitForRows(PlotPanel& panel, const QString& column, std::size_t frames) {
  return QTest::qWaitFor([&] { return panel.points(column).size() == frames; }, 10000);
}

}  // namespace

class TestPlotPanel : public QObject {
  Q_OBJECT

 private slots:
  void init() { m_document.open(scene("servo_arm.articula").toStdString()); }

  void cleanup() { m_simulation.stop(); }

  // q and v equal the recorded frames; step outputs (actuator forces, joint
  // reactions, energies) equal a straight run of the design, step by step.
  void seriesEqualTheRecordedValues() {
    PlotPanel panel(&m_document, &m_simulation);
    panel.resize(700, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.availableColumns().isEmpty());
    m_simulation.start(m_document.designSpec());
    m_simulation.step(300);
    m_simulation.waitIdle();
    QTRY_VERIFY(!panel.availableColumns().isEmpty());
    const QStringList wanted = {"q:shoulder",          "v:elbow",      "force:shoulder_servo", "reaction:arm/elbow:tz",
                                "jointforce:shoulder", "energy:total", "ctrl:elbow_pid"};
    for (const QString& c : wanted) QVERIFY2(panel.addSeries(c), qPrintable(c));
    QVERIFY(!panel.addSeries("q:shoulder"));  // already plotted
    QVERIFY(!panel.addSeries("q:nothing"));
    QCOMPARE(panel.series(), wanted);
    QVERIFY(waitForRows(panel, "q:shoulder", 301));

    // Recorded frames against the plotted positions and velocities.
    const Recording recording = m_simulation.recordingCopy();
    QCOMPARE(recording.size(), std::size_t(301));
    World restored(m_document.designSpec());
    restored.enterSimulationMode();
    const io::StateColumns state(restored);
    const int qi = state.resolvePosition("shoulder");
    const auto q = panel.points("q:shoulder");
    const auto v = panel.points("v:elbow");
    int vi = -1;
    for (std::size_t k = 0; k < state.velocityNames().size(); ++k) {
      if (state.velocityNames()[k] == "elbow") vi = static_cast<int>(k);
    }
    QVERIFY(vi >= 0);
    for (std::size_t i = 0; i < recording.size(); ++i) {
      recording.restore(restored, i);
      QCOMPARE(q[i].first, restored.getTime());
      QCOMPARE(q[i].second, restored.getPositions()[qi]);
      QCOMPARE(v[i].second, restored.getVelocities()[vi]);
    }

    // A straight run: 300 steps of a world of the same design.
    World run(m_document.designSpec());
    run.enterSimulationMode();
    const Actuator servo = *run.getActuator("shoulder_servo");
    const Joint elbow = *run.getMultibody("arm")->getJoint("elbow");
    const Joint shoulder = *run.getMultibody("arm")->getJoint("shoulder");
    const auto force = panel.points("force:shoulder_servo");
    const auto reaction = panel.points("reaction:arm/elbow:tz");
    const auto jointForce = panel.points("jointforce:shoulder");
    const auto energy = panel.points("energy:total");
    const auto total = [&run] { return run.computeKineticEnergy() + run.computePotentialEnergy(); };
    QCOMPARE(energy[0].second, total());
    QCOMPARE(force.size(), std::size_t(301));
    QCOMPARE(reaction.size(), std::size_t(301));
    // Frame 0 is the start: no step, the outputs of a world that never
    // stepped (zero reactions).
    QCOMPARE(reaction[0].second, 0.0);
    for (std::size_t i = 1; i <= 300; ++i) {
      run.step();
      QCOMPARE(q[i].second, run.getPositions()[qi]);
      QCOMPARE(force[i].first, run.getTime());
      QCOMPARE(force[i].second, servo.getForce());
      QCOMPARE(reaction[i].second, elbow.getReaction().wrench[2]);  // engine wrenches are [torque; force]
      QCOMPARE(jointForce[i].second, shoulder.getReaction().total[0]);
      QCOMPARE(energy[i].second, total());
    }
    QVERIFY(std::abs(force[300].second) > 1e-3);  // the servo works against gravity
  }

  // The CSV export writes articula-run's --csv columns, text for text.
  void csvExportEqualsTheRunnersCsv() {
    QTemporaryDir dir;
    PlotPanel panel(&m_document, &m_simulation);
    panel.resize(700, 300);
    panel.show();
    m_simulation.start(m_document.designSpec());
    m_simulation.step(250);
    m_simulation.waitIdle();
    QTRY_VERIFY(!panel.availableColumns().isEmpty());
    const QStringList columns = {"q:shoulder",      "q:elbow",
                                 "v:shoulder",      "ctrl:shoulder_servo",
                                 "force:elbow_pid", "reaction:arm/shoulder:fz",
                                 "energy:kinetic",  "diagnostics:iterations"};
    for (const QString& c : columns) QVERIFY2(panel.addSeries(c), qPrintable(c));
    QVERIFY(waitForRows(panel, "q:shoulder", 251));
    const QString ours = dir.filePath("plot.csv");
    QString error;
    QVERIFY2(panel.exportCsv(ours, &error), qPrintable(error));

    const QString theirs = dir.filePath("run.csv");
    QProcess run;
    run.start(ARTICULA_RUN_EXE,
              {"run", scene("servo_arm.articula"), "--steps", "250", "--csv", theirs, "--log", "all", "--quiet"});
    QVERIFY(run.waitForFinished(60000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());

    const Csv a = readCsv(ours), b = readCsv(theirs);
    QCOMPARE(a.header, QStringList{"t"} + columns);
    QCOMPARE(a.rows.size(), std::size_t(251));
    QCOMPARE(b.rows.size(), a.rows.size());
    for (int k = 0; k < a.header.size(); ++k) {
      const int j = static_cast<int>(b.header.indexOf(a.header[k]));
      QVERIFY2(j >= 0, qPrintable(a.header[k]));
      for (std::size_t r = 0; r < a.rows.size(); ++r) {
        QVERIFY2(
            a.rows[r][k] == b.rows[r][j],
            qPrintable(QStringLiteral("%1, row %2: %3 vs %4").arg(a.header[k]).arg(r).arg(a.rows[r][k], b.rows[r][j])));
      }
    }
  }

  // Clicking the plot shows the frame at that time; the cursor follows.
  void clickingThePlotScrubs() {
    PlotPanel panel(&m_document, &m_simulation);
    connect(&panel, &PlotPanel::frameRequested, &m_simulation, [this](std::size_t i) { m_simulation.scrubTo(i); });
    panel.resize(800, 320);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    m_simulation.start(m_document.designSpec());
    m_simulation.step(400);
    m_simulation.waitIdle();
    QTRY_VERIFY(!panel.availableColumns().isEmpty());
    QVERIFY(panel.addSeries("q:shoulder"));
    QVERIFY(waitForRows(panel, "q:shoulder", 401));
    PlotCanvas* canvas = panel.canvas();
    const auto [t0, t1] = canvas->timeRange();
    QCOMPARE(t0, 0.0);
    QVERIFY(std::abs(t1 - 0.4) < 1e-12);
    const double target = 0.1;
    const QPoint at(static_cast<int>(std::lround(canvas->xOfTime(target))), canvas->height() / 2);
    QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
    m_simulation.waitIdle();
    QTRY_VERIFY(m_simulation.status().shownFrame.has_value());
    // One pixel is 0.4 s / plot width; the frame shown is the nearest to
    // the time under the click.
    const double tClicked = canvas->timeOfX(at.x());
    const auto shown = *m_simulation.status().shownFrame;
    QCOMPARE(shown, static_cast<std::size_t>(std::lround(tClicked / 0.001)));
    QVERIFY(std::abs(m_simulation.status().time - target) < 0.4 / canvas->width() * 2);
    QTRY_COMPARE(canvas->cursorTime(), m_simulation.status().time);

    // A drag pans instead (no scrub); the wheel zooms about the pointer.
    QTest::mousePress(canvas, Qt::LeftButton, {}, at);
    QTest::mouseMove(canvas, at + QPoint(80, 0));
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, at + QPoint(80, 0));
    m_simulation.waitIdle();
    QCOMPARE(*m_simulation.status().shownFrame, shown);
    const auto [p0, p1] = canvas->timeRange();
    QVERIFY(p0 < 0.0);
    QVERIFY(std::abs((p1 - p0) - 0.4) < 1e-9);
    canvas->fit();
    QWheelEvent wheel(QPointF(canvas->xOfTime(0.2), 50), canvas->mapToGlobal(QPointF(canvas->xOfTime(0.2), 50)),
                      QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas, &wheel);
    const auto [z0, z1] = canvas->timeRange();
    QVERIFY(std::abs((z1 - z0) - 0.32) < 1e-9);
    QVERIFY(z0 > 0.0 && z1 < 0.4);
    // Zooming in stops at a span the axis can label (and paints).
    for (int k = 0; k < 400; ++k) QApplication::sendEvent(canvas, &wheel);
    canvas->repaint();
    const auto [y0, y1] = canvas->timeRange();
    QVERIFY(y1 - y0 >= 0.999e-9);
  }

  // Resuming from a shown frame replaces the later frames: so do the rows.
  // Paused, the rows stay as they were until unpaused.
  void newBranchReplacesRowsAndPauseFreezes() {
    PlotPanel panel(&m_document, &m_simulation);
    connect(&panel, &PlotPanel::frameRequested, &m_simulation, [this](std::size_t i) { m_simulation.scrubTo(i); });
    panel.resize(700, 300);
    panel.show();
    m_simulation.start(m_document.designSpec());
    m_simulation.step(200);
    m_simulation.waitIdle();
    QTRY_VERIFY(!panel.availableColumns().isEmpty());
    QVERIFY(panel.addSeries("q:elbow"));
    QVERIFY(waitForRows(panel, "q:elbow", 201));
    const auto before = panel.points("q:elbow");
    m_simulation.scrubTo(100);
    // The new branch differs: an effort pushes the elbow.
    m_simulation.setJointEffort({ObjectKind::Joint, "arm/elbow"}, 0, 15.0);
    m_simulation.step(20);
    m_simulation.waitIdle();
    QVERIFY(waitForRows(panel, "q:elbow", 121));
    const auto after = panel.points("q:elbow");
    for (std::size_t i = 0; i <= 100; ++i) QCOMPARE(after[i], before[i]);
    QVERIFY(after[120].second != before[120].second);
    const Recording recording = m_simulation.recordingCopy();
    World w(m_document.designSpec());
    w.enterSimulationMode();
    const int qi = io::StateColumns(w).resolvePosition("elbow");
    for (std::size_t i = 0; i < recording.size(); ++i) {
      recording.restore(w, i);
      QCOMPARE(after[i].second, w.getPositions()[qi]);
    }
    // The effort was sent after frame 100 was recorded: the step from frame
    // 100 as recorded does not reach frame 101, so frame 101's step outputs
    // are left out rather than shown wrong. Later frames hold the effort.
    QVERIFY(panel.addSeries("force:elbow_pid"));
    const auto force = panel.points("force:elbow_pid");
    QCOMPARE(force.size(), std::size_t(120));
    QCOMPARE(force[100].first, after[100].first);
    QCOMPARE(force[101].first, after[102].first);

    panel.setPaused(true);
    QVERIFY(panel.isPaused());
    m_simulation.step(30);
    m_simulation.waitIdle();
    QTest::qWait(100);
    QCOMPARE(panel.points("q:elbow").size(), std::size_t(121));
    // A branch while paused: the plotted rows are no longer the frames, so
    // a click does not scrub but says why.
    m_simulation.scrubTo(10);
    m_simulation.step(5);
    m_simulation.waitIdle();
    QTRY_VERIFY(m_simulation.status().frames == 16);
    QSignalSpy said(&panel, &PlotPanel::message);
    QTest::mouseClick(panel.canvas(), Qt::LeftButton, {},
                      QPoint(static_cast<int>(panel.canvas()->xOfTime(0.05)), panel.canvas()->height() / 2));
    QCOMPARE(said.count(), 1);
    QVERIFY(said.at(0).at(0).toString().contains("resume it to scrub"));
    m_simulation.waitIdle();
    QVERIFY(!m_simulation.status().shownFrame.has_value());
    panel.setPaused(false);
    QVERIFY(waitForRows(panel, "q:elbow", 16));
  }

  void columnsForObjects() {
    PlotPanel panel(&m_document, &m_simulation);
    QVERIFY(panel.columnsFor({ObjectKind::Joint, "arm/shoulder"}).isEmpty());  // not simulating
    m_simulation.start(m_document.designSpec());
    m_simulation.waitIdle();
    panel.show();
    QTRY_VERIFY(!panel.availableColumns().isEmpty());
    const QStringList joint = panel.columnsFor({ObjectKind::Joint, "arm/shoulder"});
    for (const char* c : {"q:shoulder", "v:shoulder", "jointforce:shoulder", "limit:shoulder", "friction:shoulder",
                          "reaction:arm/shoulder:fx", "reaction:arm/shoulder:tz"}) {
      QVERIFY2(joint.contains(c), qPrintable(joint.join(' ')));
    }
    QVERIFY(!joint.contains("q:elbow"));
    // A link: its parent joint's quantities and its contact wrench.
    const QStringList link = panel.columnsFor({ObjectKind::Link, "arm/fore"});
    QVERIFY2(link.contains("q:elbow") && link.contains("reaction:arm/elbow:fx"), qPrintable(link.join(' ')));
    QCOMPARE(panel.columnsFor({ObjectKind::Actuator, "elbow_pid"}), (QStringList{"ctrl:elbow_pid", "force:elbow_pid"}));
    const QStringList world = panel.columnsFor({ObjectKind::World, "world"});
    for (const char* c : {"energy:total", "energy:kinetic", "diagnostics:residual"}) QVERIFY(world.contains(c));
    for (const QString& c : joint + link + world) QVERIFY2(panel.availableColumns().contains(c), qPrintable(c));
  }

  // A box resting on the ground: its contact force and the total contact
  // force carry its weight.
  void contactForcesOfARestingStack() {
    m_document.open(scene("box_stack.articula").toStdString());
    PlotPanel panel(&m_document, &m_simulation);
    panel.show();
    m_simulation.start(m_document.designSpec());
    m_simulation.step(400);
    m_simulation.waitIdle();
    QTRY_VERIFY(!panel.availableColumns().isEmpty());
    QVERIFY(panel.addSeries("contact:total:fz"));
    QVERIFY(waitForRows(panel, "contact:total:fz", 401));
    double mass = 0.0;
    for (const RigidBody& b : m_document.world().getRigidBodies()) mass += b.getMass();
    QVERIFY(mass > 0.0);
    const double weight = mass * m_document.world().getOptions().gravity.norm();
    const double fz = panel.points("contact:total:fz").back().second;
    QVERIFY2(std::abs(fz - weight) < 1e-3 * weight, qPrintable(QStringLiteral("%1 vs %2").arg(fz).arg(weight)));
  }

  void exportsDrawTheSeries() {
    QTemporaryDir dir;
    PlotPanel panel(&m_document, &m_simulation);
    panel.resize(800, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    m_simulation.start(m_document.designSpec());
    m_simulation.step(300);
    m_simulation.waitIdle();
    QTRY_VERIFY(!panel.availableColumns().isEmpty());
    QVERIFY(panel.addSeries("q:shoulder"));
    QVERIFY(panel.addSeries("q:elbow"));
    QVERIFY(waitForRows(panel, "q:shoulder", 301));
    const QString png = dir.filePath("plot.png");
    QString error;
    QVERIFY2(panel.exportImage(png, &error), qPrintable(error));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 640);
    // The first two series colours are drawn (anti-aliasing softens edges:
    // count pixels close to each colour).
    const auto count = [&](QColor c) {
      int n = 0;
      for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
          const QColor p = image.pixelColor(x, y);
          if (std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) + std::abs(p.blue() - c.blue()) < 40) ++n;
        }
      }
      return n;
    };
    QVERIFY2(count(QColor(31, 119, 180)) > 100, "first series not drawn");
    QVERIFY2(count(QColor(255, 127, 14)) > 100, "second series not drawn");
    const QString svg = dir.filePath("plot.svg");
    QVERIFY2(panel.exportImage(svg, &error), qPrintable(error));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("q:shoulder"));
    QVERIFY(text.contains("#1f77b4"));  // the first series' stroke
    // A path that cannot be written leaves nothing and says why.
    QVERIFY(!panel.exportImage(dir.filePath("missing/plot.png"), &error));
    QVERIFY(!error.isEmpty());
  }

 private:
  Document m_document;
  Simulation m_simulation;
};

QTEST_MAIN(TestPlotPanel)
#include "test_plot_panel.moc"

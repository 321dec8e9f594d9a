// articula-run render end to end: scenes, robots and replay frames drawn to
// PNG offscreen (under Xvfb), and its errors.
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QProcessEnvironment>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtGui/QImage>
#include <QtTest/QtTest>

#include "models.hpp"
#include "run_tool.hpp"

namespace {

using articula::test::RunResult;

RunResult runTool(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
  return articula::test::runProgram(QStringLiteral(ARTICULA_RUN_EXE), args, env);
}

QString sourcePath(const QString& relative) {
  return QStringLiteral(ARTICULA_SOURCE_DIR "/") + relative;
}

QString modelsPath() {
  return articula::test::modelsDir() + "/example-robot-data/robots";
}

// Pixels whose strongest channel leads the others by 40.
struct Hues {
  int red = 0, green = 0, blue = 0;
};
Hues countHues(const QImage& image) {
  Hues h;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (c.red() > c.green() + 40 && c.red() > c.blue() + 40) ++h.red;
      if (c.green() > c.red() + 40 && c.green() > c.blue() + 40) ++h.green;
      if (c.blue() > c.red() + 40 && c.blue() > c.green() + 10) ++h.blue;
    }
  }
  return h;
}

int differentPixels(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return a.width() * a.height();
  int n = 0;
  for (int y = 0; y < a.height(); ++y) {
    for (int x = 0; x < a.width(); ++x) {
      if (a.pixel(x, y) != b.pixel(x, y)) ++n;
    }
  }
  return n;
}

}  // namespace

class TestRenderCli : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (qgetenv("DISPLAY").isEmpty()) QSKIP("no X display (this test runs under xvfb-run)");
    QVERIFY(m_dir.isValid());
  }

  void rendersTheFourBar() {
    const QString out = m_dir.filePath("four_bar.png");
    const RunResult r =
        runTool({"render", sourcePath("scenes/four_bar.articula"), "--out", out, "--size", "320x240", "--quiet"});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(r.err));
    const QImage image(out);
    QCOMPARE(image.size(), QSize(320, 240));
    // The crank, coupler and rocker colours.
    const Hues h = countHues(image);
    QVERIFY2(h.red > 30 && h.green > 30 && h.blue > 30,
             qPrintable(QString("red %1 green %2 blue %3").arg(h.red).arg(h.green).arg(h.blue)));
    QVERIFY(QDir(m_dir.path()).entryList({"*.tmp"}, QDir::Files | QDir::Hidden).isEmpty());
  }

  void replayFrameEqualsTheRunThatReachedIt() {
    // The same state, reached by simulating 400 steps or restored from the
    // recording, draws the same pixels; frame 0 draws others.
    const QString replay = m_dir.filePath("four_bar.replay");
    const RunResult run =
        runTool({"run", sourcePath("scenes/four_bar.articula"), "--steps", "400", "--record", replay, "--quiet"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QString fromReplay = m_dir.filePath("replay_400.png");
    const QString fromRun = m_dir.filePath("run_400.png");
    const QString start = m_dir.filePath("replay_0.png");
    QCOMPARE(runTool({"render", "--replay", replay, "--frame", "400", "--out", fromReplay, "--size", "320x240", "-q"})
                 .exitCode,
             0);
    QCOMPARE(runTool({"render", sourcePath("scenes/four_bar.articula"), "--steps", "400", "--out", fromRun, "--size",
                      "320x240", "-q"})
                 .exitCode,
             0);
    QCOMPARE(
        runTool({"render", "--replay", replay, "--frame", "0", "--out", start, "--size", "320x240", "-q"}).exitCode, 0);
    QCOMPARE(differentPixels(QImage(fromReplay), QImage(fromRun)), 0);
    QVERIFY(differentPixels(QImage(fromReplay), QImage(start)) > 100);
    // Without --frame: the last recorded frame.
    const QString last = m_dir.filePath("replay_last.png");
    QCOMPARE(runTool({"render", "--replay", replay, "--out", last, "--size", "320x240", "-q"}).exitCode, 0);
    QCOMPARE(differentPixels(QImage(last), QImage(fromReplay)), 0);
    // A step that was not recorded names the recorded range.
    const RunResult missing = runTool({"render", "--replay", replay, "--frame", "9999", "--out", last});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("step 9999 is not in") && missing.err.contains("0..400"), qPrintable(missing.err));
  }

  void rendersARobotUrdf() {
    const QString urdf = modelsPath() + "/panda_description/urdf/panda.urdf";
    ARTICULA_REQUIRE_MODEL(urdf);
    const QString out = m_dir.filePath("panda.png");
    const RunResult r = runTool({"render", urdf, "--package-path", modelsPath(), "--out", out, "--size", "320x240",
                                 "--hide", "grid", "--camera", "front", "-q"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QImage image(out);
    QCOMPARE(image.size(), QSize(320, 240));
    // The background fills the corners; the robot covers a fair part of the middle.
    const QRgb background = image.pixel(0, 0);
    QCOMPARE(image.pixel(319, 0), background);
    QCOMPARE(image.pixel(0, 239), background);
    int covered = 0;
    for (int y = 40; y < 200; ++y) {
      for (int x = 80; x < 240; ++x) {
        if (image.pixel(x, y) != background) ++covered;
      }
    }
    QVERIFY2(covered > 2000, qPrintable(QString("%1 robot pixels").arg(covered)));
  }

  void cameraAndLayersChangeTheImage() {
    const QString scene = sourcePath("scenes/box_stack.articula");
    const QString iso = m_dir.filePath("iso.png");
    const QString front = m_dir.filePath("front.png");
    const QString eye = m_dir.filePath("eye.png");
    const QString layers = m_dir.filePath("layers.png");
    const QStringList common{"--steps", "200", "--size", "240x180", "-q"};
    QCOMPARE(runTool(QStringList{"render", scene, "--out", iso} + common).exitCode, 0);
    QCOMPARE(runTool(QStringList{"render", scene, "--out", front, "--camera", "front"} + common).exitCode, 0);
    QCOMPARE(runTool(QStringList{"render", scene, "--out", eye, "--camera", "3,-3,2:0,0,0.5"} + common).exitCode, 0);
    QCOMPARE(runTool(QStringList{"render", scene, "--out", layers, "--show", "contacts,frames,com"} + common).exitCode,
             0);
    QVERIFY(differentPixels(QImage(iso), QImage(front)) > 1000);
    QVERIFY(differentPixels(QImage(iso), QImage(eye)) > 1000);
    QVERIFY(differentPixels(QImage(iso), QImage(layers)) > 50);
  }

  // --camera NAME uses a viewpoint saved in the scene: the same picture as
  // its eye and centre given by hand; its field of view counts; an unknown
  // name lists the scene's viewpoints; inspect lists them.
  void cameraNamesASavedViewpoint() {
    QFile in(sourcePath("scenes/box_stack.articula"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QString text = QString::fromUtf8(in.readAll());
    text.replace(QRegularExpression("<articula version=\"\\d\">"), "<articula version=\"4\">");
    text.replace("</articula>",
                 "    <viewpoint name=\"corner\" eye=\"3 -3 2\" center=\"0 0 0.5\"/>\n"
                 "    <viewpoint name=\"narrow\" eye=\"3 -3 2\" center=\"0 0 0.5\" fovy=\"20\"/>\n"
                 "</articula>");
    const QString scene = m_dir.filePath("views.articula");
    QFile out(scene);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text.toUtf8());
    out.close();
    const QStringList common{"--steps", "50", "--size", "240x180", "-q"};
    const QString named = m_dir.filePath("named.png"), byHand = m_dir.filePath("byhand.png"),
                  narrow = m_dir.filePath("narrow.png");
    QCOMPARE(runTool(QStringList{"render", scene, "--out", named, "--camera", "corner"} + common).exitCode, 0);
    QCOMPARE(runTool(QStringList{"render", scene, "--out", byHand, "--camera", "3,-3,2:0,0,0.5"} + common).exitCode, 0);
    QCOMPARE(runTool(QStringList{"render", scene, "--out", narrow, "--camera", "narrow"} + common).exitCode, 0);
    QCOMPARE(differentPixels(QImage(named), QImage(byHand)), 0);
    QVERIFY(differentPixels(QImage(named), QImage(narrow)) > 1000);
    const RunResult unknown = runTool(QStringList{"render", scene, "--out", named, "--camera", "sideways"} + common);
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("'sideways' is neither a viewpoint of the scene (it has corner, narrow)"),
             qPrintable(unknown.err));
    const RunResult inspect = runTool({"inspect", scene});
    QCOMPARE(inspect.exitCode, 0);
    QVERIFY2(
        inspect.out.contains("viewpoints (render --camera NAME):\n  corner: eye 3,-3,2, looking at 0,0,0.5, 45 deg"),
        qPrintable(inspect.out));
  }

  void plotsShowTheRecordedHistory() {
    // The plots window (top right) appears with --plot and holds curves
    // fed by the recorded frames before the drawn one.
    const QString replay = m_dir.filePath("plots.replay");
    QCOMPARE(
        runTool({"run", sourcePath("scenes/four_bar.articula"), "--steps", "600", "--record", replay, "-q"}).exitCode,
        0);
    const QString plain = m_dir.filePath("plain.png");
    const QString plotted = m_dir.filePath("plotted.png");
    const QStringList common{"render", "--replay", replay, "--size", "640x400", "--hide", "grid", "-q"};
    QCOMPARE(runTool(common + QStringList{"--out", plain}).exitCode, 0);
    const RunResult r =
        runTool(common + QStringList{"--out", plotted, "--plot", "energy", "--plot", "q:crank_joint", "--plot",
                                     "v:rocker_joint", "--plot", "residual", "--plot", "solve-residual"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QImage a(plain);
    const QImage b(plotted);
    int changedTopRight = 0;
    for (int y = 0; y < 200; ++y) {
      for (int x = 440; x < 640; ++x) {
        if (a.pixel(x, y) != b.pixel(x, y)) ++changedTopRight;
      }
    }
    QVERIFY2(changedTopRight > 5000, qPrintable(QString("%1 pixels changed").arg(changedTopRight)));
    // Unknown names are refused with what is accepted.
    const RunResult bad = runTool(common + QStringList{"--out", plotted, "--plot", "q:nope"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--plot q:nope"), qPrintable(bad.err));
    const RunResult unknown = runTool(common + QStringList{"--out", plotted, "--plot", "torque"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("energy, kinetic, potential, residual, solve-residual, q:NAME or v:NAME"),
             qPrintable(unknown.err));
  }

  void badInputIsRefused_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString scene = sourcePath("scenes/four_bar.articula");
    QTest::newRow("no out") << QStringList{"render", scene} << "render needs --out IMG.png";
    QTest::newRow("no input") << QStringList{"render", "--out", "x.png"} << "render needs a FILE";
    QTest::newRow("bad size") << QStringList{"render", scene, "--out", "x.png", "--size", "10x10"}
                              << "--size: width and height must be 16 to 8192 pixels";
    QTest::newRow("size text") << QStringList{"render", scene, "--out", "x.png", "--size", "big"}
                               << "--size expects WxH";
    QTest::newRow("camera") << QStringList{"render", scene, "--out", "x.png", "--camera", "sideways"} << "--camera:";
    QTest::newRow("layer") << QStringList{"render", scene, "--out", "x.png", "--show", "sparkles"}
                           << "unknown layer 'sparkles'";
    QTest::newRow("frame without replay")
        << QStringList{"render", scene, "--out", "x.png", "--frame", "3"} << "--frame needs --replay";
    QTest::newRow("missing folder") << QStringList{"render", scene, "--out", "/nonexistent/dir/x.png"}
                                    << "is not a directory";
    QTest::newRow("missing file") << QStringList{"render", "nope.articula", "--out", "x.png"} << "nope.articula";
    QTest::newRow("damaged replay") << QStringList{"render", "--replay", scene, "--out", "x.png"}
                                    << "four_bar.articula";
  }
  void badInputIsRefused() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const RunResult r = runTool(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
  }

  void noDisplayIsAClearError() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    const RunResult r =
        runTool({"render", sourcePath("scenes/four_bar.articula"), "--out", m_dir.filePath("n.png")}, env);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("xvfb-run"), qPrintable(r.err));
    QVERIFY(!QFile::exists(m_dir.filePath("n.png")));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestRenderCli)
#include "test_render_cli.moc"

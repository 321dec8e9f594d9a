// articula-run end to end: the command-line contract of README.md
// ("Headless runner"), exercised by running the built executable.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include "models.hpp"
#include "run_tool.hpp"

#include <cmath>

namespace {

using articula::test::RunResult;

RunResult runTool(const QStringList& args) {
  return articula::test::runProgram(QStringLiteral(ARTICULA_RUN_EXE), args);
}

QString describe(const RunResult& r) {
  return QStringLiteral("exit %1%2\n--- stdout\n%3--- stderr\n%4")
      .arg(r.exitCode)
      .arg(r.crashed ? QStringLiteral(" (crashed)") : QString())
      .arg(r.out, r.err);
}

QString sourcePath(const QString& relative) {
  return QStringLiteral(ARTICULA_SOURCE_DIR "/") + relative;
}

struct Csv {
  QStringList header;
  QList<QList<double>> rows;
  QString text;
  int column(const QString& name) const { return static_cast<int>(header.indexOf(name)); }
};

Csv readCsv(const QString& path) {
  Csv csv;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return csv;
  csv.text = QString::fromUtf8(f.readAll());
  QStringList lines = csv.text.split(QLatin1Char('\n'));
  if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
  if (lines.isEmpty()) return csv;
  csv.header = lines.takeFirst().split(QLatin1Char(','));
  for (const QString& line : lines) {
    QList<double> row;
    for (const QString& field : line.split(QLatin1Char(','))) {
      bool ok = false;
      row.append(field.toDouble(&ok));
      if (!ok) row.last() = std::nan("");
    }
    csv.rows.append(row);
  }
  return csv;
}

bool writeFile(const QString& path, const QByteArray& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(text) == text.size();
}

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// One rod on a revolute joint about y, released from `q`.
QByteArray pendulumLink(const char* link, const char* joint, const char* q, const char* jointExtra = "") {
  return QByteArray("        <link name=\"") + link +
         "\">\n"
         "            <inertia mass=\"1\" com=\"0 0 -0.5\" rotational=\"0.02 0 0 0 0.02 0 0 0 0.001\"/>\n"
         "            <joint name=\"" +
         joint + "\" type=\"revolute\" axis=\"0 1 0\"" + jointExtra +
         ">\n"
         "                <parent_offset translation=\"0 0 1\" rotation=\"1 0 0 0 1 0 0 0 1\"/>\n"
         "                <child_offset translation=\"0 0 0\" rotation=\"1 0 0 0 1 0 0 0 1\"/>\n"
         "            </joint>\n"
         "            <state q=\"" +
         q +
         "\" v=\"0\" tau=\"0\"/>\n"
         "        </link>\n";
}

QByteArray pendulumScene(const char* options, const char* jointExtra = "") {
  return QByteArray(
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<articula version=\"1\">\n"
             "    <options ") +
         options +
         "/>\n"
         "    <multibody name=\"pendulum\" self_collision=\"false\">\n" +
         pendulumLink("rod", "hinge", "0.7", jointExtra) +
         "    </multibody>\n"
         "</articula>\n";
}

const QRegularExpression kSummary(QStringLiteral(R"(^steps=(\d+) sim_time=\S+ wall_time=\S+ us_per_step=\S+ rtf=\S+)"));

// The value of `key=value` on the summary line.
QString summaryValue(const QString& out, const QString& key) {
  const QRegularExpressionMatch m =
      QRegularExpression(QStringLiteral(" ") + QRegularExpression::escape(key) + QStringLiteral("=(\\S+)")).match(out);
  return m.hasMatch() ? m.captured(1) : QString();
}

const char* const kUr5 = "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";

}  // namespace

class TestRunnerCli : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  QString tmp(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QStringLiteral(ARTICULA_RUN_EXE)), ARTICULA_RUN_EXE);
  }

  void fourBarCsv() {
    const QString csvPath = tmp(QStringLiteral("four_bar.csv"));
    const RunResult r = runTool({QStringLiteral("run"), sourcePath(QStringLiteral("scenes/four_bar.articula")),
                                 QStringLiteral("--steps"), QStringLiteral("100"), QStringLiteral("--csv"), csvPath});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    const QStringList outLines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(outLines.size(), 1);
    const QRegularExpressionMatch m = kSummary.match(outLines.first());
    QVERIFY2(m.hasMatch(), qPrintable(outLines.first()));
    QCOMPARE(m.captured(1), QStringLiteral("100"));

    const Csv csv = readCsv(csvPath);
    const QStringList expected = {"t",
                                  "q:crank_joint",
                                  "q:coupler_joint",
                                  "q:rocker_joint",
                                  "v:crank_joint",
                                  "v:coupler_joint",
                                  "v:rocker_joint",
                                  "residual:four_bar_pin"};
    QCOMPARE(csv.header, expected);
    QCOMPARE(csv.rows.size(), 101);
    const int residual = csv.column(QStringLiteral("residual:four_bar_pin"));
    for (int i = 0; i < csv.rows.size(); ++i) {
      const QList<double>& row = csv.rows[i];
      QCOMPARE(row.size(), expected.size());
      QVERIFY2(std::abs(row[0] - 0.001 * i) <= 1e-12, qPrintable(QStringLiteral("row %1: t = %2").arg(i).arg(row[0])));
      if (i > 0) QVERIFY(std::abs((row[0] - csv.rows[i - 1][0]) - 0.001) <= 1e-12);
      QVERIFY2(row[residual] <= 1e-6, qPrintable(QStringLiteral("row %1: residual %2").arg(i).arg(row[residual])));
      for (double x : row) QVERIFY(std::isfinite(x));
    }
    // The crank starts at −1 rad and the four-bar moves under gravity.
    QCOMPARE(csv.rows[0][1], -1.0);
    QVERIFY(csv.rows[100][1] != csv.rows[0][1]);
  }

  void durationAndDt() {
    const RunResult r =
        runTool({QStringLiteral("run"), sourcePath(QStringLiteral("scenes/four_bar.articula")),
                 QStringLiteral("--duration"), QStringLiteral("0.05"), QStringLiteral("--dt"), QStringLiteral("0.0005"),
                 QStringLiteral("--integrator"), QStringLiteral("semi-implicit-euler"), QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.startsWith(QStringLiteral("steps=100 sim_time=0.05")), qPrintable(r.out));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
  }

  // The summary counts the steps whose constraint solve did not converge,
  // and stderr says so: projected Gauss–Seidel on the 10-box stack misses
  // the tolerance every step; the Newton and convex methods do not. An
  // unknown method is refused with the list of methods.
  void unconvergedSolvesAreCounted() {
    const QString scene = sourcePath(QStringLiteral("scenes/box_stack.articula"));
    auto count = [](const QString& out) {
      const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("unconverged_solves=(\\d+)")).match(out);
      return m.hasMatch() ? m.captured(1).toLong() : -1L;
    };
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--duration"), QStringLiteral("0.2")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(count(r.out) > 100, qPrintable(r.out));
    QVERIFY2(r.err.contains(QStringLiteral("did not converge in")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("nonsmooth-newton")), qPrintable(r.err));
    for (const QString& method : {QStringLiteral("nonsmooth-newton"), QStringLiteral("convex")}) {
      r = runTool({QStringLiteral("run"), scene, QStringLiteral("--duration"), QStringLiteral("0.2"),
                   QStringLiteral("--solver"), method});
      QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
      QVERIFY2(count(r.out) == 0, qPrintable(method + ": " + r.out));
      QVERIFY2(!r.err.contains(QStringLiteral("did not converge")), qPrintable(r.err));
    }
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--solver"), QStringLiteral("jacobi")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("nonsmooth-newton")) && r.err.contains(QStringLiteral("convex")),
             qPrintable(r.err));
  }

  // --threads spreads the islands of the solve over a thread pool: the CSV
  // is the same byte for byte. A negative count is refused.
  void threadsGiveTheSameRun() {
    const QString scene = sourcePath(QStringLiteral("scenes/mjcf/tumbling_blocks.xml"));
    QStringList csvs;
    for (const QString& threads : {QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}) {
      const QString csv = tmp(QStringLiteral("blocks_") + threads + QStringLiteral(".csv"));
      const RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--duration"), QStringLiteral("2"),
                                   QStringLiteral("--log"), QStringLiteral("all"), QStringLiteral("--csv"), csv,
                                   QStringLiteral("--threads"), threads, QStringLiteral("--quiet")});
      QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
      QFile f(csv);
      QVERIFY(f.open(QIODevice::ReadOnly));
      csvs << QString::fromUtf8(f.readAll());
    }
    QVERIFY(csvs[0].count(QLatin1Char('\n')) > 900);  // 1,000 steps of 2 ms
    QVERIFY2(csvs[0].contains(QStringLiteral("diagnostics:residual")), qPrintable(csvs[0].left(400)));
    QVERIFY(csvs[1] == csvs[0]);
    QVERIFY(csvs[2] == csvs[0]);
    const RunResult bad = runTool({QStringLiteral("run"), scene, QStringLiteral("--threads"), QStringLiteral("-2")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("--threads")), qPrintable(bad.err));
  }

  void rigidBodyColumnsAndNoContacts() {
    const QString scene = sourcePath(QStringLiteral("scenes/box_stack.articula"));
    const QString withContacts = tmp(QStringLiteral("stack.csv"));
    const QString without = tmp(QStringLiteral("stack_free.csv"));
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--duration"), QStringLiteral("0.5"),
                           QStringLiteral("--csv"), withContacts, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--duration"), QStringLiteral("0.5"),
                 QStringLiteral("--csv"), without, QStringLiteral("--no-contacts"), QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const Csv a = readCsv(withContacts);
    const Csv b = readCsv(without);
    QCOMPARE(a.header, b.header);
    QCOMPARE(a.header.size(), 1 + 10 * 7 + 10 * 6);
    QCOMPARE(a.header[1], QStringLiteral("q:box0:0"));
    QCOMPARE(a.header[7], QStringLiteral("q:box0:6"));
    QCOMPARE(a.header[71], QStringLiteral("v:box0:0"));
    const int z = a.column(QStringLiteral("q:box0:2"));
    QVERIFY(z > 0);
    // On the ground the bottom box stays at 0.1 m; without contacts it falls ½ g t² = 1.23 m.
    QVERIFY2(std::abs(a.rows.last()[z] - 0.1) < 0.01, qPrintable(QString::number(a.rows.last()[z])));
    QVERIFY2(std::abs(b.rows.last()[z] - (0.1 - 0.5 * 9.81 * 0.25)) < 0.01,
             qPrintable(QString::number(b.rows.last()[z])));
  }

  // --log selects the column groups: sensors by default, reactions,
  // joint forces, limits, friction and contact wrenches on request; the
  // values are those of statics (a resting stack, a hanging pendulum).
  void logGroupsSelectColumns() {
    const QString scene = tmp(QStringLiteral("sensing_pendulum.articula"));
    QByteArray text = pendulumScene("gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"semi-implicit-euler\"");
    text.replace("<articula version=\"1\">", "<articula version=\"3\">");
    text.replace("</articula>",
                 "    <sensor name=\"enc\" type=\"joint_encoder\" joint=\"pendulum/hinge\"/>\n"
                 "    <sensor name=\"ft\" type=\"force_torque\" joint=\"pendulum/hinge\" rate=\"100\"/>\n"
                 "</articula>");
    QVERIFY(writeFile(scene, text));
    const QString csvPath = tmp(QStringLiteral("sensing.csv"));
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("20"),
                           QStringLiteral("--csv"), csvPath, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    Csv csv = readCsv(csvPath);
    QVERIFY2(
        csv.header.contains(QStringLiteral("sensor:enc:q0")) && csv.header.contains(QStringLiteral("sensor:ft:fz")),
        qPrintable(csv.header.join(',')));
    // The encoder reads the state each step started from: row k holds q of row k-1.
    const int q = csv.column(QStringLiteral("q:hinge"));
    const int enc = csv.column(QStringLiteral("sensor:enc:q0"));
    for (int k = 1; k < csv.rows.size(); ++k) QCOMPARE(csv.rows[k][enc], csv.rows[k - 1][q]);

    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--csv"),
                 csvPath, QStringLiteral("--log"), QStringLiteral("reactions,joint-forces,limits,friction"),
                 QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    csv = readCsv(csvPath);
    QVERIFY(!csv.header.contains(QStringLiteral("sensor:enc:q0")));
    for (const char* c : {"reaction:pendulum/hinge:fx", "reaction:pendulum/hinge:tz", "jointforce:hinge", "limit:hinge",
                          "friction:hinge"}) {
      QVERIFY2(csv.header.contains(QString::fromUtf8(c)), c);
    }
    // A free pendulum: the hinge passes no torque about its axis.
    const int tau = csv.column(QStringLiteral("jointforce:hinge"));
    for (int k = 1; k < csv.rows.size(); ++k) QVERIFY(std::abs(csv.rows[k][tau]) < 1e-9);

    // Contact wrenches of a resting stack: the bottom box carries all five.
    const QString stack = sourcePath(QStringLiteral("scenes/box_stack.articula"));
    r = runTool({QStringLiteral("run"), stack, QStringLiteral("--duration"), QStringLiteral("1"),
                 QStringLiteral("--csv"), csvPath, QStringLiteral("--log"), QStringLiteral("contacts"),
                 QStringLiteral("--solver"), QStringLiteral("direct-pivoting"), QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    csv = readCsv(csvPath);
    const int fz = csv.column(QStringLiteral("contact:box0:fz"));
    QVERIFY2(fz > 0, qPrintable(csv.header.join(',')));
    // box0 is pushed up by the ground (10 boxes of 1 kg) and down by box1 (9).
    QVERIFY2(std::abs(csv.rows.last()[fz] - 9.81) < 0.05, qPrintable(QString::number(csv.rows.last()[fz])));

    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--csv"), csvPath, QStringLiteral("--log"),
                 QStringLiteral("sensors,forces")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("unknown group 'forces'")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--log"), QStringLiteral("sensors")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("needs --csv")), qPrintable(describe(r)));
  }

  void inspectJson() {
    const RunResult r = runTool(
        {QStringLiteral("inspect"), sourcePath(QStringLiteral("scenes/four_bar.articula")), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + "\n" + r.out));
    const QJsonObject root = doc.object();
    QCOMPARE(root.value("dofs").toInt(), 3);
    QCOMPARE(root.value("format").toString(), QStringLiteral("articula"));
    const QJsonArray multibodies = root.value("multibodies").toArray();
    QCOMPARE(multibodies.size(), 1);
    const QJsonObject mb = multibodies[0].toObject();
    QCOMPARE(mb.value("name").toString(), QStringLiteral("four_bar"));
    const QJsonArray joints = mb.value("joints").toArray();
    QCOMPARE(joints.size(), 3);
    const QJsonObject j1 = joints[1].toObject();
    QCOMPARE(j1.value("name").toString(), QStringLiteral("coupler_joint"));
    QCOMPARE(j1.value("type").toString(), QStringLiteral("revolute"));
    QCOMPARE(j1.value("dofs").toInt(), 1);
    QCOMPARE(j1.value("parent").toString(), QStringLiteral("crank"));
    QCOMPARE(j1.value("child").toString(), QStringLiteral("coupler"));
    QCOMPARE(joints[0].toObject().value("parent").toString(), QStringLiteral("world"));
    QCOMPARE(mb.value("links").toArray().size(), 3);
    const QJsonArray closures = root.value("loop_closures").toArray();
    QCOMPARE(closures.size(), 1);
    const QJsonObject c = closures[0].toObject();
    QCOMPARE(c.value("name").toString(), QStringLiteral("four_bar_pin"));
    QCOMPARE(c.value("family").toString(), QStringLiteral("hinge"));
    QCOMPARE(c.value("frame_a").toString(), QStringLiteral("world"));
    QCOMPARE(c.value("frame_b").toString(), QStringLiteral("four_bar/rocker"));
    QVERIFY(c.value("cut_from").isNull());
    QVERIFY(root.value("couplers").isArray());
    QVERIFY(root.value("import_report").isObject());
  }

  void inspectText() {
    const RunResult r = runTool({QStringLiteral("inspect"), sourcePath(QStringLiteral("scenes/gear_pair.articula"))});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.contains(QStringLiteral("couplers:")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("DoF")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("import of ")), qPrintable(r.out));
    const RunResult fb = runTool({QStringLiteral("inspect"), sourcePath(QStringLiteral("scenes/four_bar.articula"))});
    QVERIFY2(fb.exitCode == 0, qPrintable(describe(fb)));
    for (const char* s :
         {"crank_joint", "revolute", "four_bar_pin: hinge, world <-> four_bar/rocker", "total: 3 DoF"}) {
      QVERIFY2(fb.out.contains(QString::fromUtf8(s)), qPrintable(s + QStringLiteral(" missing in\n") + fb.out));
    }
  }

  void badInputExitsWith2() {
    const QString fourBar = sourcePath(QStringLiteral("scenes/four_bar.articula"));
    RunResult r = runTool({QStringLiteral("run"), tmp(QStringLiteral("missing.articula"))});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY(r.err.contains(QStringLiteral("missing.articula")));
    QVERIFY(r.out.isEmpty());

    r = runTool({QStringLiteral("run"), fourBar, QStringLiteral("--no-such-option")});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY(r.err.contains(QStringLiteral("--no-such-option")));

    r = runTool({QStringLiteral("frobnicate"), fourBar});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));

    r = runTool({QStringLiteral("run")});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));

    for (const QStringList& bad :
         {QStringList{"--steps", "ten"}, QStringList{"--dt", "-1"}, QStringList{"--gravity", "0,0"},
          QStringList{"--set", "nope=1"}, QStringList{"--set", "crank_joint=abc"},
          QStringList{"--steps", "1", "--duration", "1"}, QStringList{"--record-every", "0"},
          QStringList{"--record", tmp(QStringLiteral("no/such/dir/x.replay"))}, QStringList{"--record-every", "5"}}) {
      r = runTool(QStringList{QStringLiteral("run"), fourBar} + bad);
      QVERIFY2(r.exitCode == 2, qPrintable(bad.join(' ') + ": " + describe(r)));
      QVERIFY2(!r.err.isEmpty(), qPrintable(bad.join(' ')));
    }
    QVERIFY2(r.err.contains(QStringLiteral("--record-every needs --record")), qPrintable(r.err));

    // Unknown joint type on line 7.
    const QString malformed = tmp(QStringLiteral("malformed.articula"));
    QVERIFY(writeFile(malformed, pendulumScene("gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"rk4\"")
                                     .replace("type=\"revolute\"", "type=\"banana\"")));
    for (const char* command : {"run", "inspect"}) {
      r = runTool({QString::fromUtf8(command), malformed});
      QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
      QVERIFY2(r.err.contains(malformed + QStringLiteral(":7:")), qPrintable(r.err));
      QVERIFY2(r.err.contains(QStringLiteral("banana")), qPrintable(r.err));
    }
    // Broken XML.
    const QString broken = tmp(QStringLiteral("broken.articula"));
    QVERIFY(writeFile(broken,
                      "<?xml version=\"1.0\"?>\n<articula version=\"1\">\n  <multibody name=\"x\">\n</articula>\n"));
    r = runTool({QStringLiteral("run"), broken});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY2(QRegularExpression(QRegularExpression::escape(broken) + QStringLiteral(":\\d+:")).match(r.err).hasMatch(),
             qPrintable(r.err));
  }

  void divergenceExitsWith3() {
    // RK4 at h = 10 ms on a joint spring with hω ≈ 2.85 (k = 21900 N·m/rad,
    // 0.27 kg·m² about the hinge), just outside RK4's stability interval:
    // |R(i·hω)| ≈ 1.05, so the energy grows ≈ 11 % a step while every
    // number stays finite for thousands of steps. The energy check stops it.
    const QString scene = tmp(QStringLiteral("stiff.articula"));
    QVERIFY(writeFile(
        scene, pendulumScene("gravity=\"0 0 -9.81\" time_step=\"0.01\" integrator=\"rk4\"", " stiffness=\"21900\"")));
    const QString csvPath = tmp(QStringLiteral("stiff.csv"));
    const RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("1000"),
                                 QStringLiteral("--csv"), csvPath});
    QVERIFY2(r.exitCode == 3, qPrintable(describe(r)));
    QVERIFY2(kSummary.match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral(" diverged=1")), qPrintable(r.out));
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral(R"( last_good_step=(\d+))")).match(r.out);
    QVERIFY2(m.hasMatch(), qPrintable(r.out));
    const int lastGood = m.captured(1).toInt();
    QVERIFY(lastGood > 0 && lastGood < 1000);
    QCOMPARE(kSummary.match(r.out).captured(1).toInt(), lastGood);
    QVERIFY2(r.err.contains(QStringLiteral("diverged")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("total energy")), qPrintable(r.err));
    const Csv csv = readCsv(csvPath);
    QVERIFY(!csv.text.contains(QStringLiteral("nan"), Qt::CaseInsensitive));
    QVERIFY(!csv.text.contains(QStringLiteral("inf"), Qt::CaseInsensitive));
    QCOMPARE(csv.rows.size(), lastGood + 1);
    for (const auto& row : csv.rows)
      for (double x : row) QVERIFY(std::isfinite(x));
    QVERIFY2(std::abs(csv.rows.last()[0] - 0.01 * lastGood) < 1e-9, qPrintable(QString::number(csv.rows.last()[0])));
  }

  void setChangesTheInitialState() {
    const QString fourBar = sourcePath(QStringLiteral("scenes/four_bar.articula"));
    const QString csvPath = tmp(QStringLiteral("set.csv"));
    RunResult r = runTool({QStringLiteral("run"), fourBar, QStringLiteral("--steps"), QStringLiteral("10"),
                           QStringLiteral("--set"), QStringLiteral("crank_joint=-0.8"), QStringLiteral("--csv"),
                           csvPath, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    Csv csv = readCsv(csvPath);
    QCOMPARE(csv.rows.size(), 11);
    QCOMPARE(csv.rows[0][csv.column(QStringLiteral("q:crank_joint"))], -0.8);
    // The loop was closed again around the new crank angle.
    QVERIFY(std::abs(csv.rows[0][csv.column(QStringLiteral("q:coupler_joint"))] - 2.116124470400796) > 1e-3);
    QVERIFY2(csv.rows[0][csv.column(QStringLiteral("residual:four_bar_pin"))] <= 1e-6,
             qPrintable(QString::number(csv.rows[0][csv.column(QStringLiteral("residual:four_bar_pin"))])));

    // Rigid bodies and multi-DoF joints take NAME:K.
    const QString stack = sourcePath(QStringLiteral("scenes/box_stack.articula"));
    r = runTool({QStringLiteral("run"), stack, QStringLiteral("--steps"), QStringLiteral("0"), QStringLiteral("--set"),
                 QStringLiteral("box9:2=3.5"), QStringLiteral("--csv"), csvPath});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.startsWith(QStringLiteral("steps=0 ")), qPrintable(r.out));
    csv = readCsv(csvPath);
    QCOMPARE(csv.rows.size(), 1);
    QCOMPARE(csv.rows[0][csv.column(QStringLiteral("q:box9:2"))], 3.5);
    r = runTool({QStringLiteral("run"), stack, QStringLiteral("--steps"), QStringLiteral("0"), QStringLiteral("--set"),
                 QStringLiteral("box9=3.5")});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(QStringLiteral("box9:K=VALUE")), qPrintable(r.err));
  }

  void duplicateJointNamesAreQualified() {
    const QString scene = tmp(QStringLiteral("two_pendulums.articula"));
    QByteArray text = pendulumScene("gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"semi-implicit-euler\"");
    text.replace("</articula>", "    <multibody name=\"second\" self_collision=\"false\">\n" +
                                    pendulumLink("rod", "hinge", "-0.3") + "    </multibody>\n</articula>");
    QVERIFY(writeFile(scene, text));
    const QString csvPath = tmp(QStringLiteral("two.csv"));
    RunResult r =
        runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--csv"),
                 csvPath, QStringLiteral("--set"), QStringLiteral("second/hinge=0.25")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const Csv csv = readCsv(csvPath);
    QCOMPARE(csv.header,
             (QStringList{"t", "q:pendulum/hinge", "q:second/hinge", "v:pendulum/hinge", "v:second/hinge"}));
    QCOMPARE(csv.rows[0][2], 0.25);
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--set"), QStringLiteral("hinge=0.25")});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(QStringLiteral("MULTIBODY/hinge")), qPrintable(r.err));
  }

  void zeroGravityKeepsAPendulumAtRest() {
    const QString scene = tmp(QStringLiteral("pendulum.articula"));
    QVERIFY(writeFile(scene,
                      pendulumScene("gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"semi-implicit-euler\"")));
    const QString still = tmp(QStringLiteral("still.csv"));
    const QString swinging = tmp(QStringLiteral("swinging.csv"));
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("200"),
                           QStringLiteral("--gravity"), QStringLiteral("0,0,0"), QStringLiteral("--csv"), still});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("200"),
                 QStringLiteral("--csv"), swinging});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const Csv a = readCsv(still);
    const Csv b = readCsv(swinging);
    QCOMPARE(a.header, (QStringList{"t", "q:hinge", "v:hinge"}));
    QCOMPARE(a.rows.size(), 201);
    for (const auto& row : a.rows) {
      QCOMPARE(row[1], 0.7);
      QCOMPARE(row[2], 0.0);
    }
    QVERIFY(std::abs(b.rows.last()[1] - 0.7) > 1e-3);
  }

  void exportRoundTrip() {
    const QString original = sourcePath(QStringLiteral("scenes/four_bar.articula"));
    const QString copy = tmp(QStringLiteral("copy.articula"));
    RunResult r = runTool({QStringLiteral("export"), original, copy});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QByteArray saved = readFile(copy);
    QVERIFY(!saved.isEmpty());
    QCOMPARE(saved, readFile(original));
    const QString again = tmp(QStringLiteral("again.articula"));
    r = runTool({QStringLiteral("export"), copy, again});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(readFile(again), saved);
    // A built-in scene by name.
    const QString builtin = tmp(QStringLiteral("gear.articula"));
    r = runTool({QStringLiteral("export"), QStringLiteral("gear-pair"), builtin});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    r = runTool(
        {QStringLiteral("run"), builtin, QStringLiteral("--steps"), QStringLiteral("5"), QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    r = runTool({QStringLiteral("export"), tmp(QStringLiteral("none.urdf")), tmp(QStringLiteral("none.articula"))});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
  }

  // export picks URDF, SDF or MJCF by OUT's extension, says what the format
  // cannot hold, and the file runs again; an unknown extension is a usage error.
  void exportToEveryFormat() {
    const QString scene = sourcePath(QStringLiteral("scenes/slider_crank.articula"));
    for (const char* ext : {"urdf", "sdf", "xml"}) {
      const QString out = tmp(QStringLiteral("slider_crank.") + ext);
      RunResult r = runTool({QStringLiteral("export"), scene, out});
      QVERIFY2(r.exitCode == 0 && r.out.contains(QStringLiteral("wrote ") + out), qPrintable(describe(r)));
      QVERIFY(QFileInfo::exists(out));
      r = runTool(
          {QStringLiteral("run"), out, QStringLiteral("--steps"), QStringLiteral("200"), QStringLiteral("--quiet")});
      QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    }
    // Every MJCF scene that ships exports to the other formats too.
    const QString mjcf = sourcePath(QStringLiteral("scenes/mjcf/double_pendulum.xml"));
    const QString urdf = tmp(QStringLiteral("double_pendulum.urdf"));
    RunResult r = runTool({QStringLiteral("export"), mjcf, urdf});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    // The floor has no URDF form: said on stderr, counted in the summary line.
    QVERIFY2(r.err.contains(QStringLiteral("not exported")), qPrintable(describe(r)));
    QVERIFY2(r.out.contains(QStringLiteral("not exported")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("export"), scene, tmp(QStringLiteral("slider_crank.dae"))});
    QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral(".urdf")), qPrintable(describe(r)));
    QVERIFY(!QFileInfo::exists(tmp(QStringLiteral("slider_crank.dae"))));
  }

  void builtinScenesStillWork() {
    RunResult r = runTool({QStringLiteral("list")});
    QVERIFY2(r.exitCode == 0 && r.out.contains(QStringLiteral("four-bar")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), QStringLiteral("--scene"), QStringLiteral("four-bar"),
                 QStringLiteral("--steps"), QStringLiteral("20")});
    QVERIFY2(r.exitCode == 0 && kSummary.match(r.out).hasMatch(), qPrintable(describe(r)));
    r = runTool({QStringLiteral("--scene"), QStringLiteral("chain-5"), QStringLiteral("--steps"), QStringLiteral("20"),
                 QStringLiteral("--solver"), QStringLiteral("direct-pivoting")});
    QVERIFY2(r.exitCode == 0 && r.out.startsWith(QStringLiteral("steps=20 ")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("--help")});
    QVERIFY2(r.exitCode == 0 && r.out.contains(QStringLiteral("articula-run run FILE")), qPrintable(describe(r)));
  }

  // run --record then replay --csv writes the same bytes as run --csv.
  void recordThenReplayCsvIsIdentical_data() {
    QTest::addColumn<QString>("scene");
    QTest::addColumn<int>("steps");
    QTest::addColumn<QStringList>("options");
    QTest::newRow("four_bar, loop closure") << QStringLiteral("scenes/four_bar.articula") << 500 << QStringList();
    QTest::newRow("box_stack, contacts") << QStringLiteral("scenes/box_stack.articula") << 300 << QStringList();
    QTest::newRow("gear_pair, coupler") << QStringLiteral("scenes/gear_pair.articula") << 500 << QStringList();
    QTest::newRow("four_bar, options") << QStringLiteral("scenes/four_bar.articula") << 300
                                       << QStringList{"--dt",      "0.0005",    "--integrator", "rk4",
                                                      "--gravity", "0,0,-1.62", "--set",        "crank_joint=-0.8"};
    QTest::newRow("box_stack, no contacts, direct pivoting")
        << QStringLiteral("scenes/box_stack.articula") << 200
        << QStringList{"--no-contacts", "--solver", "direct-pivoting"};
    QTest::newRow("built-in scene") << QString() << 200 << QStringList{"--scene", "four-bar"};
  }

  void recordThenReplayCsvIsIdentical() {
    QFETCH(QString, scene);
    QFETCH(int, steps);
    QFETCH(QStringList, options);
    const QString name = QString::fromUtf8(QTest::currentDataTag()).replace(QRegularExpression("[^a-z_]"), "_");
    const QString replay = tmp(name + ".replay");
    const QString runCsv = tmp(name + "_run.csv");
    const QString replayCsv = tmp(name + "_replay.csv");
    QStringList args{QStringLiteral("run")};
    if (!scene.isEmpty()) args << sourcePath(scene);
    args << options << QStringLiteral("--steps") << QString::number(steps) << QStringLiteral("--record") << replay
         << QStringLiteral("--csv") << runCsv;
    RunResult r = runTool(args);
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    QVERIFY2(kSummary.match(r.out).hasMatch(), qPrintable(r.out));
    QCOMPARE(summaryValue(r.out, QStringLiteral("recorded_frames")), QString::number(steps + 1));
    QVERIFY2(summaryValue(r.out, QStringLiteral("replay_bytes_per_frame")).toDouble() > 0.0, qPrintable(r.out));
    QVERIFY2(r.err.contains(QStringLiteral("recorded %1 frames to %2").arg(steps + 1).arg(replay)), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("bytes per frame stored")), qPrintable(r.err));

    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--csv"), replayCsv, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    const QByteArray expected = readFile(runCsv);
    const QByteArray actual = readFile(replayCsv);
    QVERIFY(!expected.isEmpty());
    QCOMPARE(static_cast<int>(expected.count('\n')), steps + 2);
    if (actual != expected) {
      const QList<QByteArray> a = actual.split('\n');
      const QList<QByteArray> e = expected.split('\n');
      for (int i = 0; i < std::min(a.size(), e.size()); ++i) {
        if (a[i] != e[i])
          QFAIL(qPrintable(QStringLiteral("line %1 differs:\n  run:    %2\n  replay: %3")
                               .arg(i + 1)
                               .arg(QString::fromUtf8(e[i]), QString::fromUtf8(a[i]))));
      }
      QCOMPARE(a.size(), e.size());
    }
  }

  void replayFramePrintsTheCsvRow() {
    const QString replay = tmp(QStringLiteral("frame.replay"));
    const QString csvPath = tmp(QStringLiteral("frame.csv"));
    RunResult r = runTool({QStringLiteral("run"), sourcePath(QStringLiteral("scenes/four_bar.articula")),
                           QStringLiteral("--steps"), QStringLiteral("200"), QStringLiteral("--record"), replay,
                           QStringLiteral("--csv"), csvPath, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QStringList lines = readCsv(csvPath).text.split(QLatin1Char('\n'));
    const QStringList header = lines[0].split(QLatin1Char(','));
    for (const int k : {0, 137, 200}) {
      const QStringList fields = lines[k + 1].split(QLatin1Char(','));
      QCOMPARE(fields.size(), header.size());
      QString expected = QStringLiteral("frame %1: t=%2\n").arg(k).arg(fields[0]);
      for (int i = 1; i < header.size(); ++i) expected += header[i] + QLatin1Char(' ') + fields[i] + QLatin1Char('\n');
      r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--frame"), QString::number(k)});
      QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
      QCOMPARE(r.out, expected);
    }
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--frame"), QStringLiteral("201")});
    QVERIFY2(r.exitCode == 2 && !r.crashed, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(QStringLiteral("the last recorded step is 200")), qPrintable(r.err));
  }

  void replaySummary() {
    const QString scene = sourcePath(QStringLiteral("scenes/box_stack.articula"));
    const QString replay = tmp(QStringLiteral("summary.replay"));
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("100"),
                           QStringLiteral("--record"), replay, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    r = runTool({QStringLiteral("replay"), replay});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    for (const QString& s :
         {QStringLiteral("frames:   101, steps 0..100 (every 1)"), QStringLiteral("dt:       0.001 s"),
          QStringLiteral("duration: 0.1 s (t = 0 .. 0.1)"), QStringLiteral("scene:    ") + QDir::cleanPath(scene),
          QStringLiteral("bytes per frame stored"), QStringLiteral("no-contacts=0"),
          QStringLiteral("matches the scene")}) {
      QVERIFY2(r.out.contains(s), qPrintable(s + QStringLiteral(" missing in\n") + r.out));
    }
    QVERIFY2(QRegularExpression(QStringLiteral("fingerprint [0-9a-f]{16}, [1-9]\\d* entries")).match(r.out).hasMatch(),
             qPrintable(r.out));
    // The same scene given explicitly.
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--scene"), scene});
    QVERIFY2(r.exitCode == 0 && r.out.contains(QStringLiteral("matches the scene")), qPrintable(describe(r)));
  }

  void recordEveryKeepsEveryKthStep() {
    const QString replay = tmp(QStringLiteral("every.replay"));
    const QString csvPath = tmp(QStringLiteral("every.csv"));
    RunResult r = runTool({QStringLiteral("run"), sourcePath(QStringLiteral("scenes/four_bar.articula")),
                           QStringLiteral("--steps"), QStringLiteral("103"), QStringLiteral("--record"), replay,
                           QStringLiteral("--record-every"), QStringLiteral("5"), QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(summaryValue(r.out, QStringLiteral("recorded_frames")), QStringLiteral("21"));
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--csv"), csvPath});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const Csv csv = readCsv(csvPath);
    QCOMPARE(csv.rows.size(), 21);
    for (int i = 0; i < csv.rows.size(); ++i) QVERIFY(std::abs(csv.rows[i][0] - 0.005 * i) <= 1e-12);
    r = runTool({QStringLiteral("replay"), replay});
    QVERIFY2(r.out.contains(QStringLiteral("frames:   21, steps 0..100 (every 5)")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--frame"), QStringLiteral("10")});
    QVERIFY2(r.exitCode == 0 && r.out.startsWith(QStringLiteral("frame 10: t=0.01")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--frame"), QStringLiteral("7")});
    QVERIFY2(r.exitCode == 2 && !r.crashed, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(QStringLiteral("the nearest recorded steps are 5 and 10")), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
  }

  // A scene's <recording> section gives the options of --record
  // (--record-every overrides its interval), and export keeps the section.
  void sceneRecordingSectionGivesTheOptions() {
    QFile source(sourcePath(QStringLiteral("scenes/four_bar.articula")));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QByteArray text = source.readAll();
    const QByteArray section =
        "<recording every=\"4\" budget_bytes=\"100000000\" overflow=\"drop-oldest\" delta_encoding=\"false\" "
        "keyframe_interval=\"8\" keep_branches=\"false\" replay=\"four_bar.replay\"/>\n</articula>";
    text.replace("</articula>", section);
    const QString scene = tmp(QStringLiteral("recorded_four_bar.articula"));
    QVERIFY(writeFile(scene, text));
    const QString replay = tmp(QStringLiteral("section.replay"));
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("100"),
                           QStringLiteral("--record"), replay, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(summaryValue(r.out, QStringLiteral("recorded_frames")), QStringLiteral("26"));
    r = runTool({QStringLiteral("replay"), replay});
    QVERIFY2(r.out.contains(QStringLiteral("(every 4)")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("100"),
                 QStringLiteral("--record"), replay, QStringLiteral("--record-every"), QStringLiteral("10"),
                 QStringLiteral("--quiet")});
    QCOMPARE(summaryValue(r.out, QStringLiteral("recorded_frames")), QStringLiteral("11"));
    const QString exported = tmp(QStringLiteral("exported_four_bar.articula"));
    r = runTool({QStringLiteral("export"), scene, exported, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QByteArray out = readFile(exported);
    QVERIFY2(out.contains("every=\"4\"") && out.contains("replay=\"four_bar.replay\""), out.constData());
  }

  void damagedReplayFilesExitWith2() {
    const QString replay = tmp(QStringLiteral("whole.replay"));
    RunResult r = runTool({QStringLiteral("run"), sourcePath(QStringLiteral("scenes/four_bar.articula")),
                           QStringLiteral("--steps"), QStringLiteral("300"), QStringLiteral("--record"), replay,
                           QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QByteArray bytes = readFile(replay);
    QVERIFY(bytes.size() > 1000);

    const QString truncated = tmp(QStringLiteral("truncated.replay"));
    QVERIFY(writeFile(truncated, bytes.left(bytes.size() / 2)));
    QByteArray flippedBytes = bytes;
    flippedBytes[flippedBytes.size() / 2] = static_cast<char>(flippedBytes[flippedBytes.size() / 2] ^ 0x10);
    const QString flipped = tmp(QStringLiteral("flipped.replay"));
    QVERIFY(writeFile(flipped, flippedBytes));
    const QString text = tmp(QStringLiteral("text.replay"));
    QVERIFY(writeFile(text, "t,q:crank_joint\n0,-1\n"));

    const QList<QPair<QString, QString>> cases = {
        {truncated, QStringLiteral("truncated")},
        {flipped, QStringLiteral("corrupted")},
        {text, QStringLiteral("not an Articula replay file")},
        {tmp(QStringLiteral("absent.replay")), QStringLiteral("no such file")}};
    for (const auto& [file, problem] : cases) {
      for (const QStringList& extra :
           {QStringList(), QStringList{"--csv", tmp(QStringLiteral("damaged.csv"))}, QStringList{"--frame", "3"}}) {
        r = runTool(QStringList{QStringLiteral("replay"), file} + extra);
        QVERIFY2(r.exitCode == 2 && !r.crashed, qPrintable(file + ": " + describe(r)));
        QVERIFY2(r.err.startsWith(QStringLiteral("articula-run: ") + file), qPrintable(r.err));
        QVERIFY2(r.err.contains(problem), qPrintable(problem + QStringLiteral(" missing in ") + r.err));
        QVERIFY(r.out.isEmpty());
      }
    }
    // The intact file still reads.
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
  }

  void replayInAnotherSceneExitsWith2() {
    const QString replay = tmp(QStringLiteral("mismatch.replay"));
    RunResult r = runTool({QStringLiteral("run"), sourcePath(QStringLiteral("scenes/four_bar.articula")),
                           QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--record"), replay,
                           QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QString other = sourcePath(QStringLiteral("scenes/slider_crank.articula"));
    for (const QStringList& extra :
         {QStringList(), QStringList{"--csv", tmp(QStringLiteral("mismatch.csv"))}, QStringList{"--frame", "0"}}) {
      r = runTool(QStringList{QStringLiteral("replay"), replay, QStringLiteral("--scene"), other} + extra);
      QVERIFY2(r.exitCode == 2 && !r.crashed, qPrintable(describe(r)));
      QVERIFY2(r.err.contains(QStringLiteral("does not fit the scene ") + other + QStringLiteral(": ")),
               qPrintable(r.err));
      QVERIFY(r.out.isEmpty());
    }
    QVERIFY(!QFile::exists(tmp(QStringLiteral("mismatch.csv"))));
    // A built-in scene by name.
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--scene"), QStringLiteral("gear-pair")});
    QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral("does not fit the scene gear-pair")),
             qPrintable(describe(r)));
    // An unknown built-in scene.
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--scene"), QStringLiteral("no-such-scene")});
    QVERIFY2(r.exitCode == 2 && !r.crashed, qPrintable(describe(r)));
  }

  void divergedRecordingEndsAtTheLastGoodStep() {
    const QString scene = tmp(QStringLiteral("stiff_record.articula"));
    QVERIFY(writeFile(
        scene, pendulumScene("gravity=\"0 0 -9.81\" time_step=\"0.01\" integrator=\"rk4\"", " stiffness=\"21900\"")));
    const QString replay = tmp(QStringLiteral("diverged.replay"));
    const QString runCsv = tmp(QStringLiteral("diverged_run.csv"));
    const QString replayCsv = tmp(QStringLiteral("diverged_replay.csv"));
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--steps"), QStringLiteral("1000"),
                           QStringLiteral("--csv"), runCsv, QStringLiteral("--record"), replay});
    QVERIFY2(r.exitCode == 3, qPrintable(describe(r)));
    const QString lastGood = summaryValue(r.out, QStringLiteral("last_good_step"));
    QVERIFY2(lastGood.toInt() > 0, qPrintable(r.out));
    QCOMPARE(summaryValue(r.out, QStringLiteral("recorded_frames")), QString::number(lastGood.toInt() + 1));
    r = runTool({QStringLiteral("replay"), replay, QStringLiteral("--csv"), replayCsv});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(readFile(replayCsv), readFile(runCsv));
  }

  void urdfRun() {
    const QString models = articula::test::modelsDir();
    ARTICULA_REQUIRE_MODEL(models + "/" + kUr5);
    const QString csvPath = tmp(QStringLiteral("ur5.csv"));
    const RunResult r = runTool({QStringLiteral("run"), models + "/" + kUr5, QStringLiteral("--package-path"), models,
                                 QStringLiteral("--steps"), QStringLiteral("100"), QStringLiteral("--csv"), csvPath,
                                 QStringLiteral("--set"), QStringLiteral("elbow_joint=0.5")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(kSummary.match(r.out).hasMatch(), qPrintable(r.out));
    const Csv csv = readCsv(csvPath);
    QCOMPARE(csv.rows.size(), 101);
    for (const char* joint : {"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
                              "wrist_2_joint", "wrist_3_joint"}) {
      QVERIFY2(csv.column(QStringLiteral("q:") + joint) > 0, joint);
      QVERIFY2(csv.column(QStringLiteral("v:") + joint) > 0, joint);
    }
    QCOMPARE(csv.rows[0][csv.column(QStringLiteral("q:elbow_joint"))], 0.5);
  }

  void urdfInspectAndFloatingBase() {
    const QString models = articula::test::modelsDir();
    ARTICULA_REQUIRE_MODEL(models + "/" + kUr5);
    auto dofs = [&](const QStringList& extra) {
      const RunResult r = runTool(QStringList{QStringLiteral("inspect"), models + "/" + kUr5, QStringLiteral("--json"),
                                              QStringLiteral("--package-path"), models} +
                                  extra);
      if (r.exitCode != 0) {
        qWarning("%s", qPrintable(describe(r)));
        return -1;
      }
      const QJsonObject root = QJsonDocument::fromJson(r.out.toUtf8()).object();
      if (root.value("format").toString() != QStringLiteral("urdf")) return -2;
      return root.value("dofs").toInt(-3);
    };
    QCOMPARE(dofs({}), 6);
    QCOMPARE(dofs({QStringLiteral("--fixed-base")}), 6);
    QCOMPARE(dofs({QStringLiteral("--floating-base")}), 12);
    const RunResult text =
        runTool({QStringLiteral("inspect"), models + "/" + kUr5, QStringLiteral("--package-path"), models});
    QVERIFY2(text.exitCode == 0 && text.out.contains(QStringLiteral("shoulder_pan_joint")), qPrintable(describe(text)));
  }

  void groundAndFloatingBase() {
    // A box robot (0.2 m cube under its link frame, a sphere of 0.05 m hanging
    // 0.5 m below on a hinge) with a floating base and --ground 0.1: it
    // starts with the sphere's bottom on the ground, falls no further and
    // stays there; the replay rebuilds the same world (ground included).
    const QString urdf = tmp(QStringLiteral("lander.urdf"));
    QVERIFY(writeFile(
        urdf,
        "<robot name=\"lander\">\n"
        "<link name=\"base\"><inertial><mass value=\"2\"/>"
        "<inertia ixx=\"0.02\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.02\"/></inertial>\n"
        "<collision><origin xyz=\"0 0 0.1\"/><geometry><box size=\"0.2 0.2 0.2\"/></geometry></collision></link>\n"
        "<link name=\"foot\"><inertial><mass value=\"0.5\"/>"
        "<inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" izz=\"0.001\"/></inertial>\n"
        "<collision><origin xyz=\"0 0 -0.5\"/><geometry><sphere radius=\"0.05\"/></geometry></collision></link>\n"
        "<joint name=\"leg\" type=\"fixed\"><parent link=\"base\"/><child link=\"foot\"/></joint>\n"
        "</robot>\n"));
    const QString csvPath = tmp(QStringLiteral("lander.csv"));
    const QString replay = tmp(QStringLiteral("lander.replay"));
    RunResult r = runTool({QStringLiteral("run"), urdf, QStringLiteral("--floating-base"), QStringLiteral("--ground"),
                           QStringLiteral("0.1"), QStringLiteral("--duration"), QStringLiteral("1"),
                           QStringLiteral("--csv"), csvPath, QStringLiteral("--record"), replay});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const Csv csv = readCsv(csvPath);
    const int z = csv.column(QStringLiteral("q:root_free:2"));
    QVERIFY2(z > 0, qPrintable(csv.header.join(',')));
    // Sphere bottom = z_base − 0.55 = 0.1 at the start.
    QVERIFY2(std::abs(csv.rows.first()[z] - 0.65) < 1e-12, qPrintable(QString::number(csv.rows.first()[z])));
    for (const auto& row : csv.rows) QVERIFY2(row[z] > 0.64 && row[z] < 0.66, qPrintable(QString::number(row[z])));
    // Without --ground the same robot falls freely: ½ g t² = 4.9 m in 1 s.
    r = runTool({QStringLiteral("run"), urdf, QStringLiteral("--floating-base"), QStringLiteral("--duration"),
                 QStringLiteral("1"), QStringLiteral("--csv"), csvPath});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(readCsv(csvPath).rows.last()[z] < -4.0);
    // The replay remembers the ground.
    r = runTool({QStringLiteral("replay"), replay});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    // --ground takes no number when none follows; an unusable one is an error.
    r = runTool({QStringLiteral("inspect"), urdf, QStringLiteral("--ground"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), urdf, QStringLiteral("--ground=abc")});
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
  }

  void importReportIsOneLineUnlessVerbose() {
    // Two <gazebo> blocks and an unknown element inside a collision: three
    // ignored elements of two kinds, and a nameless robot: one warning.
    const QString urdf = tmp(QStringLiteral("noisy.urdf"));
    QVERIFY(writeFile(urdf,
                      "<robot>\n<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" "
                      "ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n<collision><geometry><box size=\"1 1 "
                      "1\"/></geometry><verbose value=\"Yes\"/></collision></link>\n<gazebo reference=\"a\"/>\n"
                      "<gazebo/>\n</robot>\n"));
    RunResult r = runTool({QStringLiteral("run"), urdf, QStringLiteral("--steps"), QStringLiteral("2")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().contains(QStringLiteral("1 warning, 3 ignored elements of 2 kinds")), qPrintable(r.err));
    QVERIFY2(lines.first().contains(QStringLiteral("--verbose")), qPrintable(r.err));
    r = runTool(
        {QStringLiteral("run"), urdf, QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--verbose")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.err.count(QStringLiteral("  ignored: ")), 3);
    QVERIFY2(r.err.contains(QStringLiteral("<verbose> in <collision> not imported")), qPrintable(r.err));
    QCOMPARE(r.err.count(QStringLiteral("  warning: ")), 1);
  }

  void urdfExport() {
    const QString models = articula::test::modelsDir();
    ARTICULA_REQUIRE_MODEL(models + "/" + kUr5);
    const QString out = tmp(QStringLiteral("ur5.articula"));
    RunResult r =
        runTool({QStringLiteral("export"), models + "/" + kUr5, out, QStringLiteral("--package-path"), models});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    r = runTool({QStringLiteral("inspect"), out, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value("dofs").toInt(), 6);
    r = runTool(
        {QStringLiteral("run"), out, QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
  }

  // --controls FILE.csv is the run with the equivalent keyframe schedules,
  // bit for bit; the CSV gains ctrl: and force: columns.
  void controlsCsvEqualsSchedules() {
    const QString scene = sourcePath(QStringLiteral("scenes/servo_arm.articula"));
    QFile in(scene);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QString text = QString::fromUtf8(in.readAll());
    // The scene without its own schedules ...
    text.remove(QRegularExpression(QStringLiteral("\\s*<schedule [^>]*/>")));
    const QString bare = tmp(QStringLiteral("bare.articula"));
    {
      QFile out(bare);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(text.toUtf8());
    }
    // ... driven from a controls file ...
    const QString controls = tmp(QStringLiteral("controls.csv"));
    {
      QFile out(controls);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write("time,shoulder_servo,ctrl:elbow_pid\n0,0,0\n0.1,0.5,-0.25\n0.25,-0.3,0.75\n0.4,0.2,0\n");
    }
    // ... and from the same keyframes written as schedules.
    QString scheduled = text;
    scheduled.replace(
        QStringLiteral("</articula>"),
        QStringLiteral("    <schedule name=\"a\" actuator=\"shoulder_servo\" kind=\"keyframes\" "
                       "interpolation=\"linear\" loop=\"false\" keyframes=\"0 0 0.1 0.5 0.25 -0.3 0.4 0.2\"/>\n"
                       "    <schedule name=\"b\" actuator=\"elbow_pid\" kind=\"keyframes\" "
                       "interpolation=\"linear\" loop=\"false\" keyframes=\"0 0 0.1 -0.25 0.25 0.75 0.4 0\"/>\n"
                       "</articula>"));
    const QString withSchedules = tmp(QStringLiteral("scheduled.articula"));
    {
      QFile out(withSchedules);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(scheduled.toUtf8());
    }
    const QString a = tmp(QStringLiteral("controls_run.csv"));
    const QString b = tmp(QStringLiteral("schedule_run.csv"));
    RunResult r = runTool({QStringLiteral("run"), bare, QStringLiteral("--steps"), QStringLiteral("600"),
                           QStringLiteral("--controls"), controls, QStringLiteral("--csv"), a});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), withSchedules, QStringLiteral("--steps"), QStringLiteral("600"),
                 QStringLiteral("--csv"), b});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    const Csv ca = readCsv(a);
    const Csv cb = readCsv(b);
    QCOMPARE(ca.rows.size(), 601);
    QCOMPARE(ca.text, cb.text);
    const int ctrl = ca.column(QStringLiteral("ctrl:shoulder_servo"));
    const int force = ca.column(QStringLiteral("force:elbow_pid"));
    QVERIFY(ctrl > 0 && force > ctrl);
    // Row k holds the control of step k, evaluated at its start time (k − 1) h.
    QVERIFY(std::abs(ca.rows[51][ctrl] - 0.25) < 1e-12);
    QVERIFY(std::abs(ca.rows[600][ctrl] - 0.2) < 1e-12);
    // Zero-order hold changes the run.
    r = runTool({QStringLiteral("run"), bare, QStringLiteral("--steps"), QStringLiteral("600"),
                 QStringLiteral("--controls"), controls, QStringLiteral("--controls-hold"), QStringLiteral("--csv"),
                 a});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(readCsv(a).rows[51][ctrl], 0.0);
    // A column naming no actuator is an error with the file and line.
    {
      QFile out(controls);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write("time,wrist\n0,0\n");
    }
    r = runTool({QStringLiteral("run"), bare, QStringLiteral("--steps"), QStringLiteral("5"),
                 QStringLiteral("--controls"), controls});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("controls.csv:1")) && r.err.contains(QStringLiteral("no actuator 'wrist'")),
             qPrintable(r.err));
  }

  // --hold keeps a URDF without transmissions in its pose; inspect lists actuators.
  void holdAndInspectActuators() {
    const QString panda = articula::test::modelPathString(articula::test::modelsPath() / "example-robot-data" /
                                                          "robots" / "panda_description" / "urdf" / "panda.urdf");
    ARTICULA_REQUIRE_MODEL(panda);
    const QString csvPath = tmp(QStringLiteral("panda_hold.csv"));
    const QString packages = articula::test::modelPathString(articula::test::modelsPath());
    RunResult r = runTool({QStringLiteral("run"), panda, QStringLiteral("--fixed-base"), QStringLiteral("--hold"),
                           QStringLiteral("--set"), QStringLiteral("panda_joint4=-0.5"),  // 0 is outside its limits
                           QStringLiteral("--package-path"), packages, QStringLiteral("--duration"),
                           QStringLiteral("1"), QStringLiteral("--csv"), csvPath});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(QStringLiteral("--hold: 9 position servo(s)")), qPrintable(r.err));
    const Csv csv = readCsv(csvPath);
    int ctrlColumns = 0;
    for (const QString& h : csv.header) ctrlColumns += h.startsWith(QStringLiteral("ctrl:")) ? 1 : 0;
    QCOMPARE(ctrlColumns, 9);
    for (int c = 1; c < csv.header.size(); ++c) {
      if (!csv.header[c].startsWith(QStringLiteral("q:"))) continue;
      QVERIFY2(std::abs(csv.rows.last()[c] - csv.rows.first()[c]) <= 1e-3, qPrintable(csv.header[c]));
    }
    r = runTool({QStringLiteral("inspect"), sourcePath(QStringLiteral("scenes/servo_arm.articula"))});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.contains(QStringLiteral("2 actuators")) &&
                 r.out.contains(QStringLiteral("shoulder_servo: position on arm/shoulder, kp 400, kd 20")) &&
                 r.out.contains(QStringLiteral("elbow_moves: drives elbow_pid, 4 keyframes")),
             qPrintable(r.out));
  }

  // `ik`: a UR5 tool target reached from the file's state; JSON; --out
  // writes the posed scene; unreachable targets and unknown frames.
  void inverseKinematicsCommand() {
    const QString ur5 = articula::test::modelPathString(articula::test::modelsPath() / "example-robot-data" / "robots" /
                                                        "ur_description" / "urdf" / "ur5_robot.urdf");
    ARTICULA_REQUIRE_MODEL(ur5);
    const QString packages = articula::test::modelPathString(articula::test::modelsPath());
    const QString pose = tmp(QStringLiteral("ur5_posed.articula"));
    // Tool pointing down (roll = pi) 0.4 m in front, 0.3 m up.
    RunResult r =
        runTool({QStringLiteral("ik"), ur5, QStringLiteral("--package-path"), packages, QStringLiteral("--target"),
                 QStringLiteral("tool0=0.4,0.1,0.3,3.14159265358979,0,0"), QStringLiteral("--out"), pose});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
    QVERIFY2(r.out.startsWith(QStringLiteral("converged")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("q:shoulder_pan_joint = ")) &&
                 r.out.contains(QStringLiteral("q:wrist_3_joint = ")),
             qPrintable(r.out));
    QVERIFY(QFile::exists(pose));
    r = runTool({QStringLiteral("ik"), ur5, QStringLiteral("--package-path"), packages, QStringLiteral("--target"),
                 QStringLiteral("tool0=0.4,0.1,0.3,3.14159265358979,0,0"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY2(json.value(QStringLiteral("converged")).toBool(), qPrintable(r.out));
    const QJsonObject task = json.value(QStringLiteral("tasks")).toArray().at(0).toObject();
    QVERIFY(task.value(QStringLiteral("position_error")).toDouble(1.0) < 1e-9);
    QVERIFY(task.value(QStringLiteral("orientation_error")).toDouble(1.0) < 1e-9);
    // Where the frame is now: at the target.
    const QJsonArray at = task.value(QStringLiteral("at")).toArray();
    QCOMPARE(at.size(), 6);
    QVERIFY(std::abs(at[0].toDouble() - 0.4) < 1e-9 && std::abs(at[1].toDouble() - 0.1) < 1e-9 &&
            std::abs(at[2].toDouble() - 0.3) < 1e-9);
    const QJsonObject q = json.value(QStringLiteral("q")).toObject();
    QCOMPARE(q.size(), 6);
    // The written scene starts in the solved pose: its first CSV row is q.
    const QString csvPath = tmp(QStringLiteral("ur5_posed.csv"));
    r = runTool({QStringLiteral("run"), pose, QStringLiteral("--steps"), QStringLiteral("0"), QStringLiteral("--csv"),
                 csvPath, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const Csv csv = readCsv(csvPath);
    for (auto it = q.begin(); it != q.end(); ++it) {
      const int c = csv.column(it.key());
      QVERIFY2(c >= 0, qPrintable(it.key()));
      QVERIFY2(std::abs(csv.rows.first()[c] - it.value().toDouble()) < 1e-8, qPrintable(it.key()));
    }
    // Out of reach: exit code 4 and the closest pose.
    r = runTool({QStringLiteral("ik"), ur5, QStringLiteral("--package-path"), packages, QStringLiteral("--target"),
                 QStringLiteral("tool0=3,0,0.5"), QStringLiteral("--restarts"), QStringLiteral("2")});
    QVERIFY2(r.exitCode == 4, qPrintable(describe(r)));
    QVERIFY2(r.out.startsWith(QStringLiteral("not converged")) && r.out.contains(QStringLiteral("(not reached)")),
             qPrintable(r.out));
    r = runTool({QStringLiteral("ik"), ur5, QStringLiteral("--package-path"), packages, QStringLiteral("--target"),
                 QStringLiteral("tool=0.4,0.1,0.3")});
    QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral("no link, rigid body or frame named 'tool'")) &&
                 r.err.contains(QStringLiteral("tool0")),
             qPrintable(describe(r)));
    // Point feet: --pin-position holds only the origins, so Solo12's
    // 3-DoF legs still let the body move (a full pin would lock it).
    const QString solo = articula::test::modelPathString(articula::test::modelsPath() / "example-robot-data" /
                                                         "robots" / "solo_description" / "robots" / "solo12.urdf");
    QStringList soloArgs{QStringLiteral("ik"), solo, QStringLiteral("--floating-base"), QStringLiteral("--quiet")};
    for (const char* foot : {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"})
      soloArgs << QStringLiteral("--pin-position") << QString::fromLatin1(foot);
    soloArgs << QStringLiteral("--target") << QStringLiteral("base_link=0,0,-0.03,0,0.1,0");
    r = runTool(soloArgs);
    QVERIFY2(r.exitCode == 0 && r.out.startsWith(QStringLiteral("converged")), qPrintable(describe(r)));
    r = runTool({QStringLiteral("ik"), ur5, QStringLiteral("--target"), QStringLiteral("tool0=1,2")});
    QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral("expected 3 numbers")), qPrintable(describe(r)));
  }

  // Keyframes headless: --keyframe starts there, and the keyframe sequence,
  // played by its schedules, is followed by the servos.
  void keyframesHeadless() {
    const QString scene = sourcePath(QStringLiteral("scenes/keyframe_arm.articula"));
    const QString csvPath = tmp(QStringLiteral("keyframes.csv"));
    RunResult r = runTool({QStringLiteral("run"), scene, QStringLiteral("--keyframe"), QStringLiteral("reach"),
                           QStringLiteral("--steps"), QStringLiteral("0"), QStringLiteral("--csv"), csvPath});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    Csv csv = readCsv(csvPath);
    QCOMPARE(csv.rows.first()[csv.column(QStringLiteral("q:shoulder"))], 0.8);
    QCOMPARE(csv.rows.first()[csv.column(QStringLiteral("q:elbow"))], -0.6);
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--keyframe"), QStringLiteral("wave")});
    QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral("no keyframe 'wave' (it has home, reach, fold)")),
             qPrintable(describe(r)));
    r = runTool({QStringLiteral("run"), scene, QStringLiteral("--duration"), QStringLiteral("3"),
                 QStringLiteral("--csv"), csvPath, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    csv = readCsv(csvPath);
    const int t = csv.column(QStringLiteral("t"));
    const int shoulder = csv.column(QStringLiteral("q:shoulder"));
    const int elbow = csv.column(QStringLiteral("q:elbow"));
    // Near each keyframe's time the arm is near that keyframe (the servos
    // lag their moving targets a little), and it settles on the last one.
    auto at = [&](double time) {
      for (const auto& row : csv.rows)
        if (row[t] >= time - 1e-9) return row;
      return csv.rows.last();
    };
    const auto reach = at(1.0);
    QVERIFY2(std::abs(reach[shoulder] - 0.8) < 0.1 && std::abs(reach[elbow] + 0.6) < 0.1,
             qPrintable(QStringLiteral("at t = 1: %1 %2").arg(reach[shoulder]).arg(reach[elbow])));
    const auto end = csv.rows.last();
    QVERIFY2(std::abs(end[shoulder] + 0.4) < 0.01 && std::abs(end[elbow] - 1.2) < 0.01,
             qPrintable(QStringLiteral("at the end: %1 %2").arg(end[shoulder]).arg(end[elbow])));
  }
};

QTEST_APPLESS_MAIN(TestRunnerCli)
#include "test_runner_cli.moc"

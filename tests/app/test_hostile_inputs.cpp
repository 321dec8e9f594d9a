// Hostile inputs and outputs, end to end through articula-run: every reader
// (scenes, URDF, SDF and their includes, meshes, replays and the scene path a
// replay stores) and every output (CSV, replays, exported scenes, images)
// given something that is not what it should be. Each case must end with
// its own specific message and exit code 2 (or a report warning where the
// file is still usable), within 5 s and 500 MB, without a crash. The files
// are made by the test: FIFOs, device links, sparse files of a size beyond
// the limits, nestings deep enough to overflow a recursive parser.
//
// Also: atomic outputs (a write that fails for lack of space, a writer
// killed mid-run, two writers of one file).
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

struct Outcome {
  int exitCode = -1;  ///< -1 when killed by a signal
  int signal = 0;     ///< the signal that ended it, if any
  bool timedOut = false;
  double seconds = 0.0;  ///< wall time
  long maxRssKiB = 0;    ///< peak resident memory
  QString out;
  QString err;
};

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(bytes) == bytes.size();
}

/// Runs argv[0] with the arguments, stdin from /dev/null, and measures it.
/// A process still running after `timeoutMs` is killed.
Outcome runMeasured(const QStringList& argv, const QString& scratch, int timeoutMs = 5000) {
  Outcome r;
  const QString outPath = scratch + "/.stdout";
  const QString errPath = scratch + "/.stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const QByteArray outBytes = outPath.toLocal8Bit();
  const QByteArray errBytes = errPath.toLocal8Bit();
  posix_spawn_file_actions_addopen(&actions, 1, outBytes.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, errBytes.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<QByteArray> storage;
  for (const QString& a : argv) storage.push_back(a.toLocal8Bit());
  std::vector<char*> args;
  for (QByteArray& a : storage) args.push_back(a.data());
  args.push_back(nullptr);
  QElapsedTimer clock;
  clock.start();
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    r.err = "cannot start " + argv.front();
    return r;
  }
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  struct rusage usage {};
  for (;;) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (clock.elapsed() > timeoutMs && !r.timedOut) {
      r.timedOut = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.seconds = static_cast<double>(clock.nsecsElapsed()) * 1e-9;
  r.maxRssKiB = usage.ru_maxrss;
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = QString::fromUtf8(readAll(outPath));
  r.err = QString::fromUtf8(readAll(errPath));
  return r;
}

QString describe(const Outcome& r) {
  return QStringLiteral("exit %1 signal %2%3, %4 s, %5 MiB\n--- stdout\n%6--- stderr\n%7")
      .arg(r.exitCode)
      .arg(r.signal)
      .arg(r.timedOut ? QStringLiteral(" (timed out)") : QString())
      .arg(r.seconds, 0, 'f', 2)
      .arg(r.maxRssKiB / 1024)
      .arg(r.out, r.err);
}

// ---- generated files -----------------------------------------------------------------------------

const char* const kIdentity = "rotation=\"1 0 0 0 1 0 0 0 1\"";

/// A link of a pendulum on a revolute joint about y.
QByteArray linkXml(const QByteArray& name, const QByteArray& inertia, const QByteArray& state,
                   const QByteArray& jointExtra = "", const QByteArray& type = "revolute") {
  return "    <link name=\"" + name + "\">\n      <inertia " + inertia + "/>\n      <joint name=\"" + name +
         "_joint\" type=\"" + type + "\" axis=\"0 1 0\"" + jointExtra +
         ">\n        <parent_offset translation=\"0 0 1\" " + kIdentity +
         "/>\n        <child_offset translation=\"0 0 0\" " + kIdentity + "/>\n      </joint>\n      " + state +
         "\n    </link>\n";
}

const QByteArray kRodInertia = "mass=\"1\" com=\"0 0 -0.5\" rotational=\"0.02 0 0 0 0.02 0 0 0 0.001\"";

QByteArray scene(const QByteArray& body,
                 const QByteArray& options =
                     "gravity=\"0 0 -9.81\" time_step=\"0.001\" "
                     "integrator=\"semi-implicit-euler\"",
                 const QByteArray& optionChildren = "") {
  return "<?xml version=\"1.0\"?>\n<articula version=\"1\">\n  <options " + options +
         (optionChildren.isEmpty() ? QByteArray("/>\n") : ">\n" + optionChildren + "\n  </options>\n") + body +
         "</articula>\n";
}

QByteArray pendulum(const QByteArray& q = "0.7", const QByteArray& jointExtra = "") {
  return scene("  <multibody name=\"pendulum\">\n" +
               linkXml("rod", kRodInertia, "<state q=\"" + q + "\" v=\"0\" tau=\"0\"/>", jointExtra) +
               "  </multibody>\n");
}

QByteArray solver(const QByteArray& iterations, const QByteArray& directions) {
  return "    <solver method=\"projected-gauss-seidel\" max_iterations=\"" + iterations +
         "\" tolerance=\"1e-10\" warm_start=\"true\" friction_directions=\"" + directions +
         "\" restitution_threshold=\"0.05\" error_correction=\"baumgarte\" error_reduction=\"0.2\" "
         "allowed_penetration=\"1e-04\" max_correction_velocity=\"1\" constraint_force_mixing=\"1e-08\" "
         "limit_error_reduction=\"1\"/>";
}

/// A scene with one shape on a pendulum: `geometry` is the <geometry> element.
QByteArray withShape(const QByteArray& kind, const QByteArray& geometry) {
  const bool visual = kind == "visual";
  return scene(
      "  <multibody name=\"pendulum\">\n" + linkXml("rod", kRodInertia, "<state q=\"0.7\" v=\"0\" tau=\"0\"/>") +
      "  </multibody>\n  <shape name=\"s\" kind=\"" + kind + "\" owner=\"pendulum/rod\"" +
      (visual ? " color=\"1 1 1 1\"" : " collidable=\"true\"") + ">\n    " + geometry +
      "\n    <pose translation=\"0 0 0\" " + kIdentity + "/>\n" +
      (visual ? QByteArray() : QByteArray("    <material friction=\"0.5\" restitution=\"0\"/>\n")) + "  </shape>\n");
}

/// COLLADA whose scene nests `depth` nodes.
QByteArray deepCollada(int depth) {
  QByteArray text =
      "<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
      "<library_visual_scenes><visual_scene id=\"s\">\n";
  for (int i = 0; i < depth; ++i) text += "<node>";
  for (int i = 0; i < depth; ++i) text += "</node>";
  text += "\n</visual_scene></library_visual_scenes>\n<scene><instance_visual_scene url=\"#s\"/></scene>\n</COLLADA>\n";
  return text;
}

QByteArray asciiStl(const std::vector<std::array<double, 9>>& triangles) {
  QByteArray text = "solid s\n";
  for (const auto& t : triangles) {
    text += "facet normal 0 0 1\nouter loop\n";
    for (int k = 0; k < 3; ++k) {
      text += "vertex " + QByteArray::number(t[3 * k]) + " " + QByteArray::number(t[3 * k + 1]) + " " +
              QByteArray::number(t[3 * k + 2]) + "\n";
    }
    text += "endloop\nendfacet\n";
  }
  return text + "endsolid s\n";
}

QByteArray urdf(const QByteArray& visualMesh) {
  return "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <link name=\"base\">\n    <inertial><mass value=\"1\"/>"
         "<inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
         "    <visual><geometry><mesh filename=\"" +
         visualMesh + "\"/></geometry></visual>\n  </link>\n</robot>\n";
}

QByteArray sdfModel(const QByteArray& name, const QByteArray& includeUri) {
  QByteArray text = "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"" + name +
                    "\">\n<link name=\"l\"><inertial><mass>1</mass></inertial></link>\n";
  if (!includeUri.isEmpty()) text += "<include>\n<uri>" + includeUri + "</uri>\n<name>inner</name>\n</include>\n";
  return text + "</model>\n</sdf>\n";
}

QByteArray modelConfig(const QByteArray& name) {
  return "<?xml version=\"1.0\"?>\n<model><name>" + name + "</name><sdf version=\"1.9\">model.sdf</sdf></model>\n";
}

std::uint64_t fnv1a(const char* data, std::size_t n) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

struct Case {
  QString name;
  QStringList args;  ///< after the executable
  int exitCode = 2;
  QString expect;  ///< a part of stderr
};

}  // namespace

class TestHostileInputs : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  std::vector<Case> m_cases;
  QString m_exe = QStringLiteral(ARTICULA_RUN_EXE);
  double m_slowest = 0.0;  ///< longest case (s)
  long m_largest = 0;      ///< largest peak memory of a case (KiB)

  QString path(const QString& name) const { return m_dir.filePath(name); }
  QString put(const QString& name, const QByteArray& bytes) {
    const QString p = path(name);
    QDir().mkpath(QFileInfo(p).absolutePath());
    if (!writeFile(p, bytes)) qFatal("cannot write %s", qPrintable(p));
    return p;
  }
  QString fifo(const QString& name) {
    const QString p = path(name);
    QDir().mkpath(QFileInfo(p).absolutePath());
    if (::mkfifo(p.toLocal8Bit().constData(), 0644) != 0) qFatal("mkfifo %s failed", qPrintable(p));
    return p;
  }
  QString symlinkTo(const QString& name, const QString& target) {
    const QString p = path(name);
    QDir().mkpath(QFileInfo(p).absolutePath());
    if (::symlink(target.toLocal8Bit().constData(), p.toLocal8Bit().constData()) != 0) qFatal("symlink failed");
    return p;
  }
  QString folder(const QString& name) {
    const QString p = path(name);
    QDir().mkpath(p);
    return p;
  }
  /// A sparse file of `bytes` bytes (no disk space used).
  QString sparse(const QString& name, std::int64_t bytes) {
    const QString p = path(name);
    QFile f(p);
    if (!f.open(QIODevice::WriteOnly) || !f.resize(bytes)) qFatal("cannot make %s", qPrintable(p));
    return p;
  }
  void add(const QString& name, const QStringList& args, const QString& expect, int exitCode = 2) {
    m_cases.push_back(Case{name, args, exitCode, expect});
  }

  /// A replay recorded from `scenePath` (a pendulum released from q = 0.123456789).
  QString record(const QString& name, const QString& scenePath) {
    const QString replay = path(name);
    const Outcome r =
        runMeasured({m_exe, "run", scenePath, "--steps", "5", "--record", replay, "--quiet"}, m_dir.path(), 60000);
    if (r.exitCode != 0) qFatal("recording failed: %s", qPrintable(describe(r)));
    return replay;
  }

  void buildCorpus() {
    const QString good = put("good.articula", pendulum());
    const QString goodUrdf = put("good.urdf", urdf("meshes/box.stl"));
    put("meshes/box.stl", asciiStl({{0, 0, 0, 1, 0, 0, 0, 1, 0},
                                    {0, 0, 0, 0, 1, 0, 0, 0, 1},
                                    {0, 0, 0, 0, 0, 1, 1, 0, 0},
                                    {1, 0, 0, 0, 1, 0, 0, 0, 1}}));

    // ---- not a regular file, too large: every reader ----
    add("scene FIFO", {"run", fifo("pipe.articula")}, "is a FIFO, not a file");
    add("scene /dev/zero link", {"run", symlinkTo("zero.articula", "/dev/zero")}, "is a character device, not a file");
    add("scene /dev/urandom link", {"run", symlinkTo("random.articula", "/dev/urandom")},
        "is a character device, not a file");
    add("scene /dev/zero directly", {"run", "/dev/zero"}, "is a character device, not a file");
    add("scene directory", {"run", folder("dir.articula")}, "is a directory");
    add("scene too large", {"run", sparse("huge.articula", (std::int64_t{64} << 20) + 1)}, "more than the");
    add("inspect FIFO", {"inspect", fifo("pipe2.articula")}, "is a FIFO, not a file");
    add("export from FIFO", {"export", fifo("pipe3.urdf"), path("out1.articula")}, "is a FIFO, not a file");
    add("URDF FIFO", {"run", fifo("pipe.urdf")}, "is a FIFO, not a file");
    add("URDF /dev/zero link", {"run", symlinkTo("zero.urdf", "/dev/zero")}, "is a character device");
    add("URDF directory", {"run", folder("dir.urdf")}, "is a directory");
    add("URDF too large", {"run", sparse("huge.urdf", (std::int64_t{64} << 20) + 10)}, "more than the");
    add(".xml /dev/urandom link", {"run", symlinkTo("random.xml", "/dev/urandom")}, "is a character device");
    add("SDF FIFO", {"run", fifo("pipe.sdf")}, "is a FIFO, not a file");
    add("SDF world /dev/zero link", {"run", symlinkTo("zero.world", "/dev/zero")}, "is a character device");
    add("SDF directory", {"run", folder("dir.sdf")}, "is a directory");
    add("replay FIFO", {"replay", fifo("pipe.replay")}, "is a FIFO, not a file");
    add("replay /dev/zero link", {"replay", symlinkTo("zero.replay", "/dev/zero")}, "is a character device");
    add("replay directory", {"replay", folder("dir.replay")}, "is a directory");
    add("replay of garbage", {"replay", put("garbage.replay", QByteArray(4096, 'x'))}, "not an Articula replay");

    // ---- meshes ----
    add("scene mesh FIFO",
        {"run", put("mesh_fifo.articula", withShape("collision", "<geometry type=\"convex_mesh\" file=\"" +
                                                                     fifo("meshes/pipe.stl").toUtf8() + "\"/>"))},
        "is a FIFO, not a file");
    add("scene mesh /dev/zero",
        {"run", put("mesh_zero.articula",
                    withShape("visual", "<geometry type=\"triangle_mesh\" file=\"" +
                                            symlinkTo("meshes/zero.stl", "/dev/zero").toUtf8() + "\"/>"))},
        "is a character device");
    add("scene mesh directory",
        {"run", put("mesh_dir.articula", withShape("visual", "<geometry type=\"triangle_mesh\" file=\"" +
                                                                 folder("meshes/dir.stl").toUtf8() + "\"/>"))},
        "is a directory");
    add("scene mesh too large",
        {"run",
         put("mesh_huge.articula",
             withShape("visual", "<geometry type=\"triangle_mesh\" file=\"" +
                                     sparse("meshes/huge.stl", (std::int64_t{256} << 20) + 1).toUtf8() + "\"/>"))},
        "more than the");
    put("meshes/deep.dae", deepCollada(200000));
    add("deep COLLADA collision mesh",
        {"run", put("deep_collision.articula",
                    withShape("collision", "<geometry type=\"convex_mesh\" file=\"meshes/deep.dae\"/>"))},
        "nest more than 256");
    add("deep COLLADA visual mesh",
        {"run", put("deep_visual.articula",
                    withShape("visual", "<geometry type=\"triangle_mesh\" file=\"meshes/deep.dae\"/>"))},
        "nest more than 256");
    put("meshes/deep_commented.dae", "<!-- a comment -->\n" + deepCollada(5000));
    add("deep COLLADA after a comment",
        {"run", put("deep_comment.articula",
                    withShape("visual", "<geometry type=\"triangle_mesh\" file=\"meshes/deep_commented.dae\"/>"))},
        "nest more than 256");
    // A visual mesh that cannot be used leaves a usable robot: a report warning, exit 0.
    // A usable robot with an unusable mesh: a report warning (listed in full
    // with --verbose) and exit 0.
    add("deep COLLADA in a URDF visual",
        {"run", put("deep.urdf", urdf("meshes/deep.dae")), "--steps", "2", "--verbose"}, "nest more than 256", 0);
    add("URDF visual mesh FIFO",
        {"run", put("mesh_fifo.urdf", urdf(fifo("meshes/pipe2.stl").toUtf8())), "--steps", "2", "--verbose"},
        "is a FIFO, not a file", 0);
    put("meshes/noise.stl", QByteArray(3000, '\x07'));
    add("mesh of noise",
        {"run",
         put("noise.articula", withShape("visual", "<geometry type=\"triangle_mesh\" file=\"meshes/noise.stl\"/>"))},
        "cannot read mesh");
    add("missing mesh",
        {"run",
         put("nomesh.articula", withShape("visual", "<geometry type=\"triangle_mesh\" file=\"meshes/none.stl\"/>"))},
        "does not exist");
    {
      // 20,000 coplanar points: refused quickly, not after a cubic search.
      QByteArray vertices;
      for (int i = 0; i < 20000; ++i) {
        vertices += QByteArray::number(std::cos(i * 0.001) * (1 + i % 7)) + " " +
                    QByteArray::number(std::sin(i * 0.001) * (1 + i % 7)) + " 0 ";
      }
      add("20000 coplanar convex points",
          {"run", put("coplanar.articula", withShape("collision", "<geometry type=\"convex_mesh\" vertices=\"" +
                                                                      vertices.trimmed() + "\"/>"))},
          "coplanar");
    }
    {
      std::vector<std::array<double, 9>> flat;
      for (int i = 0; i < 7000; ++i) {
        const double x = i % 100;
        const double y = i / 100;
        flat.push_back({x, y, 0, x + 1, y, 0, x, y + 1, 0});
      }
      put("meshes/flat.stl", asciiStl(flat));
      add("flat convex mesh file",
          {"run",
           put("flat.articula", withShape("collision", "<geometry type=\"convex_mesh\" file=\"meshes/flat.stl\"/>"))},
          "flat");
    }

    // ---- .articula contents ----
    add("misspelt attribute", {"run", put("misspelt.articula", pendulum("0.7", " stifness=\"1000\""))},
        "unknown attribute 'stifness' on <joint>");
    add("unknown child element",
        {"run", put("child.articula", scene("  <multibody name=\"m\">\n" +
                                            linkXml("rod", kRodInertia, "<state q=\"0\" v=\"0\" tau=\"0\"/><bogus/>") +
                                            "  </multibody>\n"))},
        "unknown element <bogus> in <link>");
    add("repeated state",
        {"run",
         put("twostates.articula",
             scene("  <multibody name=\"m\">\n" +
                   linkXml("rod", kRodInertia, "<state q=\"0\" v=\"0\" tau=\"0\"/><state q=\"1\" v=\"0\" tau=\"0\"/>") +
                   "  </multibody>\n"))},
        "unknown element <state> in <link>");
    add("unknown attribute on the root",
        {"run", put("root.articula", QByteArray(pendulum()).replace("version=\"1\"", "version=\"1\" colour=\"red\""))},
        "unknown attribute 'colour' on <articula>");
    add("attribute unused by its geometry",
        {"run", put("unused.articula", withShape("visual", "<geometry type=\"box\" size=\"1 1 1\" radius=\"2\"/>"))},
        "unknown attribute 'radius' on <geometry>");
    add("unknown top-level element", {"run", put("top.articula", scene("  <robot/>\n"))}, "unknown element <robot>");
    add("malformed XML", {"run", put("malformed.articula", "<articula version=\"1\"><options")}, "malformed XML");
    {
      QByteArray deep = "<articula version=\"1\">";
      for (int i = 0; i < 100000; ++i) deep += "<a>";
      add("deeply nested scene XML", {"run", put("deep.articula", deep)}, "malformed XML");
    }
    add("NaN in a number", {"run", put("nan.articula", pendulum("nan"))}, "expected numbers");
    add("infinite state", {"run", put("inf.articula", pendulum("inf"))}, "non-finite");
    add("newer format version",
        {"run", put("v99.articula", QByteArray(pendulum()).replace("version=\"1\"", "version=\"99\""))},
        "format version 99");
    add("zero quaternion in a state",
        {"run", put("zeroquat.articula",
                    scene("  <multibody name=\"m\">\n" +
                          linkXml("ball", kRodInertia, "<state q=\"0 0 0 0\" v=\"0 0 0\" tau=\"0 0 0\"/>", "", "ball") +
                          "  </multibody>\n"))},
        "quaternion [x y z w] has length 0");
    add("moving link without inertia about its axis",
        {"run",
         put("noinertia.articula", scene("  <multibody name=\"m\">\n" +
                                         linkXml("rod", "mass=\"0\" com=\"0 0 0\" rotational=\"0 0 0 0 0 0 0 0 0\"",
                                                 "<state q=\"0\" v=\"0\" tau=\"0\"/>") +
                                         "  </multibody>\n"))},
        "has no inertia about it");
    add("point mass on its own axis",
        {"run",
         put("pointmass.articula", scene("  <multibody name=\"m\">\n" +
                                         linkXml("rod", "mass=\"1\" com=\"0 0 0\" rotational=\"0 0 0 0 0 0 0 0 0\"",
                                                 "<state q=\"0\" v=\"0\" tau=\"0\"/>") +
                                         "  </multibody>\n"))},
        "has no inertia about it");
    add("time step 1e-300 in the file",
        {"run", put("tinydt.articula", scene("", "gravity=\"0 0 -9.81\" time_step=\"1e-300\" integrator=\"rk4\""))},
        "time step");
    add("solver iterations 2e9",
        {"run", put("iters.articula", scene("", "gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"rk4\"",
                                            solver("2000000000", "4")))},
        "maxIterations must be in [1, 100000]");
    add("friction directions 2e9",
        {"run", put("dirs.articula", scene("", "gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"rk4\"",
                                           solver("50", "2000000000")))},
        "frictionDirections must be even and in [4, 64]");
    add("negative mass",
        {"run",
         put("negmass.articula", scene("  <multibody name=\"m\">\n" +
                                       linkXml("rod", "mass=\"-1\" com=\"0 0 0\" rotational=\"1 0 0 0 1 0 0 0 1\"",
                                               "<state q=\"0\" v=\"0\" tau=\"0\"/>") +
                                       "  </multibody>\n"))},
        "mass");

    // ---- SDF includes ----
    folder("models");
    put("models/selfie/model.config", modelConfig("selfie"));
    put("models/selfie/model.sdf", sdfModel("selfie", "model://selfie"));
    add("SDF model including itself",
        {"run", put("self.sdf", sdfModel("top", "model://selfie")), "--package-path", path("models")},
        "the includes form a cycle");
    put("models/ping/model.config", modelConfig("ping"));
    put("models/ping/model.sdf", sdfModel("ping", "model://pong"));
    put("models/pong/model.config", modelConfig("pong"));
    put("models/pong/model.sdf", sdfModel("pong", "model://ping"));
    add("SDF include cycle of two",
        {"run", put("pingpong.sdf", sdfModel("top", "model://ping")), "--package-path", path("models")},
        "the includes form a cycle");
    put("models/outer/model.config", modelConfig("outer"));
    put("models/outer/model.sdf", sdfModel("outer", "model://no_such_model"));
    add("SDF nested include missing",
        {"run", put("nested.sdf", sdfModel("top", "model://outer")), "--package-path", path("models")},
        "'model://no_such_model' cannot be resolved");
    put("models/piped/model.config", modelConfig("piped"));
    fifo("models/piped/model.sdf");
    add("SDF include of a FIFO",
        {"run", put("piped.sdf", sdfModel("top", "model://piped")), "--package-path", path("models")},
        "is a FIFO, not a file");
    for (int i = 0; i < 40; ++i) {
      const QByteArray name = "chain" + QByteArray::number(i);
      const QString folderName = "models/" + QString::fromUtf8(name);
      put(folderName + "/model.config", modelConfig(name));
      put(folderName + "/model.sdf", sdfModel(name, i < 39 ? "model://chain" + QByteArray::number(i + 1) : ""));
    }
    add("SDF include chain 40 deep",
        {"run", put("chain.sdf", sdfModel("top", "model://chain0")), "--package-path", path("models")},
        "nests includes more than 32 deep");

    // ---- replays ----
    const QString distinctive = put("distinct.articula", pendulum("0.123456789"));
    const QString replay = record("good.replay", distinctive);
    {
      QByteArray bytes = readAll(replay);
      const double marker = 0.123456789;
      const QByteArray needle(reinterpret_cast<const char*>(&marker), sizeof marker);
      const qsizetype at = bytes.indexOf(needle);
      if (at < 0) qFatal("the recorded state was not found in the replay");
      const double nan = std::numeric_limits<double>::quiet_NaN();
      std::memcpy(bytes.data() + at, &nan, sizeof nan);
      const std::uint64_t sum = fnv1a(bytes.constData(), static_cast<std::size_t>(bytes.size()) - 8);
      std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
      add("forged replay with NaN state", {"replay", put("forged.replay", bytes)}, "holds non-finite joint positions");
      add("truncated replay", {"replay", put("truncated.replay", readAll(replay).left(200))}, "truncated");
      QByteArray flipped = readAll(replay);
      flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x40);
      add("corrupted replay", {"replay", put("flipped.replay", flipped)}, "checksum");
    }
    {
      // The scene a replay names, replaced by something that is not a file.
      const QString sceneA = put("replayed_a.articula", pendulum("0.2"));
      const QString replayA = record("a.replay", sceneA);
      QFile::remove(sceneA);
      if (::mkfifo(sceneA.toLocal8Bit().constData(), 0644) != 0) qFatal("mkfifo failed");
      add("replay whose scene is now a FIFO", {"replay", replayA}, "is a FIFO, not a file");
      const QString sceneB = put("replayed_b.articula", pendulum("0.3"));
      const QString replayB = record("b.replay", sceneB);
      QFile::remove(sceneB);
      if (::symlink("/dev/zero", sceneB.toLocal8Bit().constData()) != 0) qFatal("symlink failed");
      add("replay whose scene is now /dev/zero", {"replay", replayB}, "is a character device");
      const QString sceneC = put("replayed_c.articula", pendulum("0.4"));
      const QString replayC = record("c.replay", sceneC);
      QFile::remove(sceneC);
      add("replay whose scene is gone", {"replay", replayC}, "does not exist");
      add("replay --scene FIFO", {"replay", replay, "--scene", fifo("scene_pipe.articula")}, "is a FIFO, not a file");
      add("render --replay FIFO", {"render", good, "--replay", fifo("render_pipe.replay"), "--out", path("r.png")},
          "is a FIFO, not a file");
    }

    // ---- numbers on the command line ----
    add("--duration 1e300", {"run", good, "--duration", "1e300"}, "the limit is 1000000000");
    add("--dt 1e-300", {"run", good, "--dt", "1e-300"}, "--dt 1e-300 is outside");
    add("--dt 1e300", {"run", good, "--dt", "1e300"}, "is outside");
    add("--steps 1e11", {"run", good, "--steps", "100000000000"}, "--steps must be in [0, 1000000000]");
    add("--steps too long for a long", {"run", good, "--steps", "99999999999999999999999"}, "expects an integer");
    add("render --steps 1e12", {"render", good, "--steps", "1000000000000", "--out", path("x.png")},
        "--steps must be in");
    add("--every 0", {"run", good, "--every", "0"}, "--every must be >= 1");
    add("--record-every -5", {"run", good, "--record", path("e.replay"), "--record-every", "-5"},
        "--record-every must be >= 1");

    // ---- outputs ----
    add("--csv to a FIFO", {"run", good, "--steps", "3", "--csv", fifo("out.csv")}, "is a FIFO, not a file");
    add("--csv to /dev/full", {"run", good, "--steps", "3", "--csv", "/dev/full"}, "is a character device");
    add("--csv to a directory", {"run", good, "--steps", "3", "--csv", folder("csvdir")}, "is a directory");
    add("--csv into a missing folder", {"run", good, "--steps", "3", "--csv", path("nowhere/out.csv")},
        "does not exist");
    add("--record to a FIFO", {"run", good, "--steps", "3", "--record", fifo("out.replay")}, "is a FIFO, not a file");
    add("--record to /dev/null", {"run", good, "--steps", "3", "--record", "/dev/null"}, "is a character device");
    add("--csv onto the input", {"run", good, "--steps", "3", "--csv", good}, "is the input file");
    add("--csv and --record the same", {"run", good, "--steps", "3", "--csv", path("same"), "--record", path("same")},
        "name the same file");
    add("replay --csv onto the replay", {"replay", replay, "--csv", replay}, "would be overwritten");
    add("replay --csv to a FIFO", {"replay", replay, "--csv", fifo("replay_out.csv")}, "is a FIFO, not a file");
    add("export onto its input", {"export", good, good}, "OUT is the same file as IN");
    add("export to a format it cannot write", {"export", goodUrdf, path("out.dae")}, "from its extension");
    add("export to /dev/full", {"export", good, symlinkTo("full.articula", "/dev/full")}, "is a character device");
    add("export to a FIFO", {"export", good, fifo("export_pipe.articula")}, "is a FIFO, not a file");
    add("render --out FIFO", {"render", good, "--out", fifo("img.png")}, "is a FIFO, not a file");
    add("render --out /dev/null", {"render", good, "--out", "/dev/null"}, "is a character device");
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(m_exe), ARTICULA_RUN_EXE);
    buildCorpus();
    QVERIFY2(m_cases.size() >= 60, qPrintable(QString::number(m_cases.size())));
  }

  void hostileInput_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < m_cases.size(); ++i) {
      QTest::newRow(m_cases[i].name.toUtf8().constData()) << static_cast<int>(i);
    }
  }

  void hostileInput() {
    QFETCH(int, index);
    const Case& c = m_cases[static_cast<std::size_t>(index)];
    const Outcome r = runMeasured(QStringList{m_exe} + c.args, m_dir.path(), 5000);
    m_slowest = std::max(m_slowest, r.seconds);
    m_largest = std::max(m_largest, r.maxRssKiB);
    QVERIFY2(!r.timedOut, qPrintable(describe(r)));
    QVERIFY2(r.signal == 0, qPrintable(describe(r)));
    QVERIFY2(r.seconds < 5.0, qPrintable(describe(r)));
    QVERIFY2(r.maxRssKiB < 500 * 1024, qPrintable(describe(r)));
    QVERIFY2(r.exitCode == c.exitCode, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(c.expect), qPrintable("expected \"" + c.expect + "\"\n" + describe(r)));
    QVERIFY2(!r.err.contains("internal error"), qPrintable(describe(r)));
  }

  void cleanupTestCase() {
    qInfo("%zu hostile inputs; slowest %.2f s, largest peak memory %ld MiB", m_cases.size(), m_slowest,
          m_largest / 1024);
  }

  // A write that runs out of space (a file size limit stands in for a full
  // disk) fails with exit 2 and leaves the previous file as it was, with no
  // temporary file left behind.
  void failedWritesKeepThePreviousFile_data() {
    QTest::addColumn<QString>("option");
    QTest::newRow("--csv") << "--csv";
    QTest::newRow("--record") << "--record";
    QTest::newRow("export") << "export";
  }

  void failedWritesKeepThePreviousFile() {
    QFETCH(QString, option);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString scenePath = dir.filePath("scene.articula");
    QVERIFY(writeFile(scenePath, pendulum()));
    const QString target = dir.filePath(option == "export" ? "out.articula" : "out.data");
    const QByteArray previous = "the previous contents\n";
    QVERIFY(writeFile(target, previous));
    const QStringList command = option == "export"
                                    ? QStringList{"export", "double-pendulum", target}
                                    : QStringList{"run", scenePath, "--steps", "20000", "--quiet", option, target};
    // ulimit -f counts blocks of 512 or 1024 bytes: one block is less than
    // any of these outputs. SIGXFSZ is ignored, so a write past the limit
    // fails (EFBIG) as it would on a full disk.
    const QStringList shell = {"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"", m_exe};
    const Outcome r = runMeasured(shell + command, dir.path(), 20000);
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains("the file is too large") || r.err.contains("no space left"), qPrintable(describe(r)));
    QVERIFY2(r.err.contains("the previous file is unchanged"), qPrintable(describe(r)));
    QCOMPARE(readAll(target), previous);
    const QStringList left = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
    for (const QString& name : left) QVERIFY2(!name.endsWith(".tmp"), qPrintable(name));
  }

  // A writer killed mid-run (SIGKILL) leaves the previous file whole.
  void killedWriterKeepsThePreviousFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString scenePath = dir.filePath("scene.articula");
    QVERIFY(writeFile(scenePath, pendulum()));
    const QString csv = dir.filePath("out.csv");
    const QByteArray previous = "t,q:pendulum/rod_joint\n0,1\n";
    QVERIFY(writeFile(csv, previous));
    QProcess p;
    p.start(m_exe, {"run", scenePath, "--steps", "100000000", "--csv", csv, "--quiet"});
    QVERIFY(p.waitForStarted());
    // Wait until the temporary file has grown: the run is mid-write.
    QElapsedTimer clock;
    clock.start();
    bool writing = false;
    while (!writing && clock.elapsed() < 20000) {
      for (const QFileInfo& f : QDir(dir.path()).entryInfoList(QDir::Files | QDir::Hidden)) {
        if (f.fileName().endsWith(".tmp") && f.size() > (1 << 17)) writing = true;
      }
      QTest::qWait(20);
    }
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    p.waitForFinished();
    QVERIFY2(writing, "the run never started writing");
    QCOMPARE(readAll(csv), previous);
  }

  // Two runs writing one CSV at once: the file is one run's whole output,
  // never an interleaving of both.
  void concurrentWritersDoNotInterleave() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString a = dir.filePath("a.articula");
    const QString b = dir.filePath("b.articula");
    QVERIFY(writeFile(a, pendulum("0.5")));
    QVERIFY(writeFile(b, pendulum("-0.5")));
    const QString csv = dir.filePath("shared.csv");
    QProcess pa;
    QProcess pb;
    pa.start(m_exe, {"run", a, "--steps", "30000", "--csv", csv, "--quiet"});
    pb.start(m_exe, {"run", b, "--steps", "30000", "--csv", csv, "--quiet"});
    QVERIFY(pa.waitForFinished(120000));
    QVERIFY(pb.waitForFinished(120000));
    QCOMPARE(pa.exitCode(), 0);
    QCOMPARE(pb.exitCode(), 0);
    QList<QByteArray> lines = readAll(csv).split('\n');
    QVERIFY(lines.size() > 2);
    QVERIFY(lines.last().isEmpty());
    lines.removeLast();
    QCOMPARE(lines.size(), 30002);  // header, t = 0, 30000 steps
    // Every row continues the run its first row belongs to: the sign of q
    // at t = 0 tells which one, and the pendulum never crosses from one
    // release angle to the other's within a row-to-row step.
    const double q0 = lines[1].split(',')[1].toDouble();
    QVERIFY(std::abs(std::abs(q0) - 0.5) < 1e-12);
    double t = -1.0;
    for (int i = 1; i < lines.size(); ++i) {
      const QList<QByteArray> fields = lines[i].split(',');
      QCOMPARE(fields.size(), lines[0].split(',').size());
      const double ti = fields[0].toDouble();
      QVERIFY2(ti > t, qPrintable(QString("row %1: time %2 after %3").arg(i).arg(ti).arg(t)));
      t = ti;
    }
  }
};

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"

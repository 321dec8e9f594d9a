// Bounded input and atomic output (articula/file_io.hpp) and the checks made
// before a reader parses a file (io/src/input_guard.cpp): what is not a
// regular file is refused with what it is, outputs replace their target
// only when complete, mesh files nesting too deep never reach assimp, SDF
// include graphs are walked for cycles and missing includes, unknown
// attributes and elements of scene files are errors with their line, and
// states no step can repair are refused at load.
#include "import_common.hpp"
#include "input_guard.hpp"
#include "test_helpers.hpp"

#include <articula/file_io.hpp>
#include <articula/io/import.hpp>
#include <articula/io/load_checks.hpp>
#include <articula/io/scene_file.hpp>

#include <QtTest/QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace articula;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void spit(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

std::string nested(int depth) {
  std::string s = "<?xml version=\"1.0\"?>\n<COLLADA>";
  for (int i = 0; i < depth; ++i) s += "<node id=\"a>b\">";
  for (int i = 0; i < depth; ++i) s += "</node>";
  return s + "</COLLADA>\n";
}

const char* const kLink =
    "<link name=\"rod\">\n"
    "<inertia mass=\"1\" com=\"0 0 -0.5\" rotational=\"0.02 0 0 0 0.02 0 0 0 0.001\"/>\n"
    "<joint name=\"hinge\" type=\"revolute\" axis=\"0 1 0\"%1>\n"
    "<parent_offset translation=\"0 0 1\" rotation=\"1 0 0 0 1 0 0 0 1\"/>\n"
    "<child_offset translation=\"0 0 0\" rotation=\"1 0 0 0 1 0 0 0 1\"/>\n"
    "</joint>\n"
    "%2"
    "</link>\n";

std::string pendulum(const QString& jointExtra = {}, const QString& afterJoint = {}) {
  return "<?xml version=\"1.0\"?>\n<articula version=\"1\">\n"
         "<options gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"rk4\"/>\n"
         "<multibody name=\"m\">\n" +
         QString(kLink).arg(jointExtra, afterJoint).toStdString() + "</multibody>\n</articula>\n";
}

std::string sdfModel(const std::string& name, const std::string& include) {
  std::string s = "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<model name=\"" + name +
                  "\">\n<link name=\"l\"><inertial><mass>1</mass></inertial></link>\n";
  if (!include.empty()) s += "<include>\n<uri>" + include + "</uri>\n<name>inner</name>\n</include>\n";
  return s + "</model>\n</sdf>\n";
}

std::string modelConfig() {
  return "<?xml version=\"1.0\"?>\n<model><name>m</name><sdf version=\"1.9\">model.sdf</sdf></model>\n";
}

}  // namespace

class TestInputGuard : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path dir() const { return fs::path(m_dir.path().toStdString()); }

  template <class F>
  QString problemOf(F&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return QString::fromUtf8(e.what());
    }
    return QString();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // sdformat writes ~/.sdformat: keep it in the test's folder.
    qputenv("HOME", m_dir.path().toUtf8());
  }

  // ---- bounded input ----

  void nonRegularFilesAreRefused_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("FIFO") << "fifo"
                          << "is a FIFO, not a file";
    QTest::newRow("directory") << "dir"
                               << "is a directory, not a file";
    QTest::newRow("/dev/zero") << "zero"
                               << "is a character device, not a file";
    QTest::newRow("missing") << "missing"
                             << "no such file";
    QTest::newRow("too large") << "large"
                               << "more than the 1000 bytes allowed for a test file";
  }

  void nonRegularFilesAreRefused() {
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    const fs::path p = dir() / ("input-" + kind.toStdString());
    if (kind == "fifo") QVERIFY(::mkfifo(p.c_str(), 0644) == 0);
    if (kind == "dir") fs::create_directory(p);
    if (kind == "zero") fs::create_symlink("/dev/zero", p);
    if (kind == "large") spit(p, std::string(1001, 'x'));
    for (int pass = 0; pass < 2; ++pass) {
      try {
        if (pass == 0) (void)readInputFile(p, 1000, "a test file");
        if (pass == 1) checkInputFile(p, 1000, "a test file");
        QFAIL("no FileAccessError");
      } catch (const FileAccessError& e) {
        QVERIFY2(QString::fromStdString(e.problem()) == expected || QString(e.what()).contains(expected), e.what());
        QCOMPARE(e.file(), p);
      }
    }
  }

  void regularFilesAreReadWhole() {
    const fs::path p = dir() / "plain.txt";
    const std::string text(100000, 'a');
    spit(p, text);
    QCOMPARE(readInputFile(p, 100000, "a test file"), text);
    fs::create_symlink(p, dir() / "link.txt");
    QCOMPARE(readInputFile(dir() / "link.txt", 100000, "a test file"), text);
    spit(dir() / "empty.txt", "");
    QCOMPARE(readInputFile(dir() / "empty.txt", 10, "a test file"), std::string());
  }

  void importersNameWhatTheFileIs() {
    const fs::path fifo = dir() / "robot.urdf";
    QVERIFY(::mkfifo(fifo.c_str(), 0644) == 0);
    World world;
    const QString urdf = problemOf([&] { io::importUrdf(world, fifo); });
    QVERIFY2(urdf.contains("robot.urdf: is a FIFO, not a file"), qPrintable(urdf));
    const QString sdf = problemOf([&] { io::importSdf(world, "/dev/zero"); });
    QVERIFY2(sdf.contains("/dev/zero: is a character device, not a file"), qPrintable(sdf));
    const QString scene = problemOf([&] { io::loadScene(world, dir()); });
    QVERIFY2(scene.contains("is a directory, not a file"), qPrintable(scene));
    const QString any = problemOf([&] { io::importFile(world, "/dev/urandom"); });
    QVERIFY2(!any.isEmpty(), "importFile accepted /dev/urandom");
    const QString replay = problemOf([&] { Recording::load(fifo); });
    QVERIFY2(replay.contains("is a FIFO, not a file"), qPrintable(replay));
  }

  // ---- atomic output ----

  void atomicWritesReplaceWhole() {
    const fs::path p = dir() / "out" / "file.txt";
    fs::create_directories(p.parent_path());
    spit(p, "old");
    ::chmod(p.c_str(), 0640);
    writeFileAtomically(p, "new contents");
    QCOMPARE(slurp(p), std::string("new contents"));
    QCOMPARE(static_cast<int>(fs::status(p).permissions() & fs::perms::all), 0640);
    {
      AtomicFile f(p);
      f.write("abandoned");
      // Destroyed without commit: the target stays as it was.
    }
    QCOMPARE(slurp(p), std::string("new contents"));
    for (const auto& entry : fs::directory_iterator(p.parent_path())) {
      QVERIFY2(entry.path() == p, entry.path().c_str());
    }
    // Through a symbolic link: the file it names is replaced, the link stays.
    const fs::path link = dir() / "out" / "link.txt";
    fs::create_symlink(p, link);
    writeFileAtomically(link, "via the link");
    QVERIFY(fs::is_symlink(link));
    QCOMPARE(slurp(p), std::string("via the link"));
  }

  void atomicWritesRefuseNonRegularTargets() {
    const fs::path fifo = dir() / "target.fifo";
    QVERIFY(::mkfifo(fifo.c_str(), 0644) == 0);
    const QString a = problemOf([&] { writeFileAtomically(fifo, "x"); });
    QVERIFY2(a.contains("is a FIFO, not a file"), qPrintable(a));
    QVERIFY(fs::is_fifo(fifo));
    const QString b = problemOf([&] { writeFileAtomically("/dev/full", "x"); });
    QVERIFY2(b.contains("is a character device"), qPrintable(b));
    const QString c = problemOf([&] { writeFileAtomically(dir() / "no" / "such" / "folder.txt", "x"); });
    QVERIFY2(c.contains("does not exist"), qPrintable(c));
    const QString d = problemOf([&] { writeFileAtomically(dir(), "x"); });
    QVERIFY2(d.contains("is a directory"), qPrintable(d));
  }

  // ---- meshes ----

  void meshScreen() {
    // nested(n) is n nodes inside the <COLLADA> root: n + 1 levels.
    QCOMPARE(io::detail::screenMeshBytes(nested(255)), std::string());
    QVERIFY(!io::detail::screenMeshBytes(nested(256)).empty());
    QVERIFY(io::detail::screenMeshBytes(nested(100000)).find("nest more than 256") != std::string::npos);
    // Comments, CDATA, declarations and self-closing tags do not nest.
    std::string flat = "<?xml version=\"1.0\"?><!DOCTYPE x><a>";
    for (int i = 0; i < 1000; ++i) flat += "<b/><!-- <c> --><![CDATA[<d>]]>";
    QCOMPARE(io::detail::screenMeshBytes(flat + "</a>"), std::string());
    // Binary and text meshes that are not XML pass untouched.
    QCOMPARE(io::detail::screenMeshBytes(std::string(80, '\0') + "<<<<<<<<"), std::string());
    QCOMPARE(io::detail::screenMeshBytes("solid x\nendsolid x\n"), std::string());
  }

  void deepColladaIsNotHandedToAssimp() {
    const fs::path deep = dir() / "deep.dae";
    spit(deep, nested(100000));
    const QString problem = problemOf([&] { io::detail::loadMesh(deep); });
    QVERIFY2(problem.contains("nest more than 256"), qPrintable(problem));
  }

  // ---- SDF includes ----

  void sdfIncludeGraph_data() {
    QTest::addColumn<QString>("top");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("line");
    QTest::newRow("self") << "model://selfie"
                          << "the includes form a cycle" << 6;
    QTest::newRow("two") << "model://ping"
                         << "the includes form a cycle" << 6;
    QTest::newRow("nested missing") << "model://outer"
                                    << "'model://nowhere' cannot be resolved" << 6;
    QTest::newRow("missing") << "model://nowhere"
                             << "'model://nowhere' cannot be resolved" << 6;
  }

  void sdfIncludeGraph() {
    QFETCH(QString, top);
    QFETCH(QString, expected);
    QFETCH(int, line);
    const fs::path models = dir() / "models";
    spit(models / "selfie" / "model.config", modelConfig());
    spit(models / "selfie" / "model.sdf", sdfModel("selfie", "model://selfie"));
    spit(models / "ping" / "model.config", modelConfig());
    spit(models / "ping" / "model.sdf", sdfModel("ping", "model://pong"));
    spit(models / "pong" / "model.config", modelConfig());
    spit(models / "pong" / "model.sdf", sdfModel("pong", "model://ping"));
    spit(models / "outer" / "model.config", modelConfig());
    spit(models / "outer" / "model.sdf", sdfModel("outer", "model://nowhere"));
    const fs::path file = dir() / "top.sdf";
    spit(file, sdfModel("top", top.toStdString()));
    io::ImportOptions options;
    options.packagePath = {models};
    options.useEnvironmentPaths = false;
    World world;
    try {
      io::importSdf(world, file, options);
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
      QCOMPARE(e.line(), line);
    }
    QCOMPARE(world.numMultibodies(), std::size_t(0));
  }

  void sdfIncludesThatResolveStillLoad() {
    const fs::path models = dir() / "models-ok";
    spit(models / "inner" / "model.config", modelConfig());
    spit(models / "inner" / "model.sdf", sdfModel("inner", ""));
    const fs::path file = dir() / "ok.sdf";
    spit(file,
         "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n"
         "<include><uri>model://inner</uri><name>a</name></include>\n"
         "<include><uri>model://inner</uri><name>b</name><pose>1 0 0 0 0 0</pose></include>\n"
         "</world>\n</sdf>\n");
    io::ImportOptions options;
    options.packagePath = {models};
    options.useEnvironmentPaths = false;
    World world;
    EXPECT_NO_THROW(io::importSdf(world, file, options));
    QCOMPARE(world.numMultibodies(), std::size_t(2));
  }

  // ---- scene files: nothing ignored, nothing impossible ----

  void sceneFileStrictness_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("line");
    QTest::newRow("misspelt attribute") << QString::fromStdString(pendulum(" stifness=\"1000\""))
                                        << "unknown attribute 'stifness' on <joint>" << 7;
    QTest::newRow("unknown child") << QString::fromStdString(pendulum({}, "<spring k=\"1\"/>\n"))
                                   << "unknown element <spring> in <link>" << 11;
    QTest::newRow("second state") << QString::fromStdString(pendulum({},
                                                                     "<state q=\"0\" v=\"0\" tau=\"0\"/>\n"
                                                                     "<state q=\"1\" v=\"0\" tau=\"0\"/>\n"))
                                  << "unknown element <state> in <link>" << 12;
    QTest::newRow("non-finite state") << QString::fromStdString(pendulum({}, "<state q=\"inf\" v=\"0\" tau=\"0\"/>\n"))
                                      << "non-finite" << 11;
    QTest::newRow("massless moving link")
        << QString::fromStdString(pendulum())
               .replace("mass=\"1\" com=\"0 0 -0.5\" rotational=\"0.02 0 0 0 0.02 0 0 0 0.001\"",
                        "mass=\"0\" com=\"0 0 0\" rotational=\"0 0 0 0 0 0 0 0 0\"")
        << "has no inertia about it" << 5;
  }

  void sceneFileStrictness() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    QFETCH(int, line);
    World world;
    try {
      io::loadSceneFromString(world, text.toStdString(), "bad.articula");
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
      QCOMPARE(e.line(), line);
      QCOMPARE(e.file(), std::string("bad.articula"));
    }
    QCOMPARE(world.numMultibodies(), std::size_t(0));
  }

  void zeroQuaternionIsRefusedAtItsLine() {
    std::string text = pendulum({}, "<state q=\"0 0 0 0\" v=\"0 0 0\" tau=\"0 0 0\"/>\n");
    text.replace(text.find("type=\"revolute\""), 15, "type=\"ball\"");
    World world;
    try {
      io::loadSceneFromString(world, text, "ball.articula");
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY2(QString(e.what()).contains("quaternion [x y z w] has length 0"), e.what());
      QCOMPARE(e.line(), 11);
    }
  }

  // An armature alone is inertia enough: the link can be moved.
  void armatureMakesAMasslessLinkMovable() {
    World world;
    Multibody mb = world.addMultibody("m");
    JointSpec js;
    js.name = "j";
    js.type = JointType::Revolute;
    LinkOptions lo;
    lo.name = "l";
    lo.inertia.mass = 0.0;
    lo.inertia.rotational.setZero();
    mb.addLink(lo, js);
    QCOMPARE(io::findImmovableLinks(world).size(), std::size_t(1));
    js.armature = VectorXd::Constant(1, 0.01);
    mb.getJoints().front().setSpec(js);
    QCOMPARE(io::findImmovableLinks(world).size(), std::size_t(0));
  }

  // Every shipped scene still loads: the strict reader accepts what the writer writes.
  void shippedScenesLoad() {
    for (const auto& entry : fs::directory_iterator(fs::path(ARTICULA_SOURCE_DIR) / "scenes")) {
      if (entry.path().extension() != ".articula") continue;  // scenes/mjcf: tests/io/test_mjcf_import.cpp
      World world;
      EXPECT_NO_THROW(io::loadScene(world, entry.path()));
    }
  }
};

QTEST_GUILESS_MAIN(TestInputGuard)
#include "test_input_guard.moc"

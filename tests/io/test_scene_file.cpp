// The native scene format: every built-in scene survives save → load → save
// byte for byte and simulates identically; bad files give ImportError with
// the line and leave the World empty.
#include "builtin_scenes.hpp"
#include "test_helpers.hpp"

#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

using namespace articula;

namespace {

QStringList builtinSceneNames() {
  QStringList names;
  for (const auto& s : scenes::builtinScenes())
    names << QString::fromStdString(s.name == "chain-N" ? "chain-7" : s.name);
  return names;
}

}  // namespace

class TestSceneFile : public QObject {
  Q_OBJECT

 private slots:
  void roundTripIsExact_data() {
    QTest::addColumn<QString>("scene");
    for (const QString& name : builtinSceneNames()) QTest::newRow(qPrintable(name)) << name;
  }

  void roundTripIsExact() {
    QFETCH(QString, scene);
    World original;
    scenes::buildScene(original, scene.toStdString());
    const std::string first = io::sceneToString(original);
    World loaded;
    EXPECT_NO_THROW(io::loadSceneFromString(loaded, first, scene.toStdString()));
    const std::string second = io::sceneToString(loaded);
    QVERIFY2(first == second, qPrintable("the second save differs:\n" + QString::fromStdString(second)));
    QCOMPARE(loaded.numDofs(), original.numDofs());
    QCOMPARE(loaded.numShapes(), original.numShapes());
    QCOMPARE(loaded.numLoopClosures(), original.numLoopClosures());
    QCOMPARE(loaded.numJointCouplers(), original.numJointCouplers());
    QCOMPARE(loaded.getStateSpace().positionNames(), original.getStateSpace().positionNames());
    // Same design and state: the same trajectory, bit for bit.
    original.step(200);
    loaded.step(200);
    QVERIFY2(loaded.getPositions() == original.getPositions(),
             qPrintable(QString("positions differ after 200 steps:\n%1\n%2")
                            .arg(QString::fromStdString(test::describe(loaded.getPositions().transpose())),
                                 QString::fromStdString(test::describe(original.getPositions().transpose())))));
  }

  // Every shipped scene file loads and saves back byte for byte.
  void shippedScenesRoundTrip() {
    const std::filesystem::path dir = std::filesystem::path(ARTICULA_SOURCE_DIR) / "scenes";
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".articula") continue;
      ++files;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      World w;
      EXPECT_NO_THROW(io::loadScene(w, entry.path()));
      QVERIFY2(io::sceneToString(w) == text, qPrintable(QString::fromStdString(entry.path().string())));
      w.step(10);
      QVERIFY(w.getPositions().allFinite());
    }
    QVERIFY2(files >= 3,
             qPrintable(QString("only %1 scene files in %2").arg(files).arg(QString::fromStdString(dir.string()))));
  }

  // <viewpoint> (format version 4): saved camera views survive save → load
  // → save byte for byte; a scene without them stays at its lower version;
  // bad ones are refused at their line.
  void viewpointsRoundTrip() {
    World w;
    scenes::buildScene(w, "four-bar");
    const std::string without = io::sceneToString(w);
    QVERIFY(without.find("<viewpoint") == std::string::npos);
    QVERIFY(without.find("version=\"4\"") == std::string::npos);
    w.setViewpoint({"side", Vector3d(0.1, -3.0, 0.7), Vector3d(0.1, 0.0, 0.2), 45.0});
    w.setViewpoint({"close", Vector3d(0.4, 0.4, 0.5), Vector3d(0.0, 0.0, 0.1), 28.5});
    const std::string first = io::sceneToString(w);
    QVERIFY(first.find("<articula version=\"4\">") != std::string::npos);
    QVERIFY2(first.find("<viewpoint name=\"close\" eye=") != std::string::npos, first.c_str());
    QVERIFY2(first.find("fovy=\"28.5\"") != std::string::npos, first.c_str());
    QVERIFY2(first.find("<viewpoint name=\"side\"") < first.find("<viewpoint name=\"close\""), first.c_str());
    World loaded;
    io::loadSceneFromString(loaded, first, "views.articula");
    QCOMPARE(loaded.getViewpoints(), w.getViewpoints());
    QCOMPARE(io::sceneToString(loaded), first);
    const auto refused = [](const std::string& body, int version, int line, const std::string& expected) {
      World x;
      try {
        io::loadSceneFromString(
            x, "<articula version=\"" + std::to_string(version) + "\">\n" + body + "\n</articula>\n", "views.articula");
        return std::string("accepted");
      } catch (const io::ImportError& e) {
        if (e.line() != line) return "line " + std::to_string(e.line()) + ": " + e.what();
        if (std::string(e.what()).find(expected) == std::string::npos) return std::string(e.what());
        return std::string();
      }
    };
    QCOMPARE(refused("<viewpoint name=\"a\" eye=\"1 1 1\" center=\"1 1 1\"/>", 4, 2, "must not be at the center"),
             std::string());
    QCOMPARE(refused("<viewpoint name=\"a\" eye=\"1 1\" center=\"0 0 0\"/>", 4, 2, "eye"), std::string());
    QCOMPARE(refused("<viewpoint name=\"a\" eye=\"1 1 1\" center=\"0 0 0\" fovy=\"0\"/>", 4, 2, "field of view"),
             std::string());
    QCOMPARE(refused("<viewpoint name=\"a\" eye=\"1 1 1\" center=\"0 0 0\"/>\n<viewpoint name=\"a\" eye=\"2 1 1\" "
                     "center=\"0 0 0\"/>",
                     4, 3, "a second viewpoint named 'a'"),
             std::string());
    QCOMPARE(refused("<viewpoint name=\"a\" eye=\"1 1 1\" center=\"0 0 0\"/>", 3, 2, "unknown element <viewpoint>"),
             std::string());
  }

  void newerVersionIsRefused() {
    World w;
    try {
      const std::string newer = std::to_string(io::kSceneFormatVersion + 1);
      io::loadSceneFromString(w, "<?xml version=\"1.0\"?>\n<articula version=\"" + newer + "\">\n</articula>\n",
                              "future.articula");
      QFAIL("a file of a newer format version was accepted");
    } catch (const io::ImportError& e) {
      QCOMPARE(e.line(), 2);
      QVERIFY2(std::string(e.what()).find("newer") != std::string::npos, e.what());
    }
  }

  void malformedXmlNamesTheLine() {
    World w;
    try {
      io::loadSceneFromString(w, "<articula version=\"1\">\n<options\n</articula>\n", "broken.articula");
      QFAIL("malformed XML was accepted");
    } catch (const io::ImportError& e) {
      QVERIFY(e.line() >= 2);
      QCOMPARE(QString::fromStdString(e.file()), QString("broken.articula"));
    }
  }

  // Malformed native files: each gives an ImportError naming the line and
  // its specific problem, and leaves the World empty.
  void malformedFilesNameTheProblem_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("expected");
    const QString pose =
        "<parent_offset translation=\"0 0 0\" rotation=\"1 0 0 0 1 0 0 0 1\"/>"
        "<child_offset translation=\"0 0 0\" rotation=\"1 0 0 0 1 0 0 0 1\"/>";
    const QString inertia = "<inertia mass=\"1\" com=\"0 0 0\" rotational=\"1 0 0 0 1 0 0 0 1\"/>";
    auto link = [&](const QString& joint) {
      return "<multibody name=\"m\">\n<link name=\"a\">" + inertia + joint + "</link>\n</multibody>";
    };
    QTest::newRow("unknown element") << "<gadget/>" << 2 << "unknown element <gadget>";
    QTest::newRow("unknown integrator")
        << "<options gravity=\"0 0 -9.81\" time_step=\"0.001\" integrator=\"leapfrog\"/>" << 2 << "leapfrog";
    QTest::newRow("missing attribute") << "<options gravity=\"0 0 -9.81\" integrator=\"rk4\"/>" << 2 << "time_step";
    QTest::newRow("wrong count") << "<options gravity=\"0 -9.81\" time_step=\"0.001\" integrator=\"rk4\"/>" << 2
                                 << "expected 3 numbers";
    QTest::newRow("not a number") << "<options gravity=\"0 0 down\" time_step=\"0.001\" integrator=\"rk4\"/>" << 2
                                  << "expected numbers";
    QTest::newRow("NaN") << "<options gravity=\"0 0 nan\" time_step=\"0.001\" integrator=\"rk4\"/>" << 2
                         << "expected numbers";
    QTest::newRow("negative time step") << "<options gravity=\"0 0 -9.81\" time_step=\"-1\" integrator=\"rk4\"/>" << 2
                                        << "time step";
    QTest::newRow("negative mass") << "<rigid_body name=\"b\"><inertia mass=\"-1\" com=\"0 0 0\" "
                                      "rotational=\"1 0 0 0 1 0 0 0 1\"/></rigid_body>"
                                   << 2 << "mass";
    QTest::newRow("unknown joint type") << link("<joint name=\"j\" type=\"hinge\" axis=\"0 0 1\">" + pose + "</joint>")
                                        << 3 << "unknown joint type 'hinge'";
    QTest::newRow("zero axis") << link("<joint name=\"j\" type=\"revolute\" axis=\"0 0 0\">" + pose + "</joint>") << 3
                               << "axis";
    QTest::newRow("undefined parent link")
        << "<multibody name=\"m\">\n<link name=\"b\" parent=\"a\">" + inertia +
               "<joint name=\"j\" type=\"revolute\" axis=\"0 0 1\">" + pose + "</joint></link>\n</multibody>"
        << 3 << "parent link 'a'";
    QTest::newRow("undefined frame")
        << "<frame name=\"f\" kind=\"fixed\" parent=\"nowhere\"><pose translation=\"0 0 0\" "
           "rotation=\"1 0 0 0 1 0 0 0 1\"/></frame>"
        << 2 << "no frame named 'nowhere'";
    QTest::newRow("duplicate rigid body")
        << "<rigid_body name=\"b\">" + inertia + "</rigid_body>\n<rigid_body name=\"b\">" + inertia + "</rigid_body>"
        << 3 << "already used";
    QTest::newRow("unknown shape kind") << "<shape name=\"s\" kind=\"ghost\" owner=\"world\"/>" << 2 << "ghost";
    const QString rec =
        "<recording every=\"1\" budget_bytes=\"1000\" overflow=\"drop-oldest\" delta_encoding=\"true\" "
        "keyframe_interval=\"64\" keep_branches=\"false\"";
    QTest::newRow("recording every 0") << QString(rec).replace("every=\"1\"", "every=\"0\"") + "/>" << 2
                                       << "'every' = \"0\": expected a whole number >= 1";
    QTest::newRow("recording negative budget")
        << QString(rec).replace("budget_bytes=\"1000\"", "budget_bytes=\"-5\"") + "/>" << 2 << "budget_bytes";
    QTest::newRow("recording unknown overflow")
        << QString(rec).replace("drop-oldest", "forget") + "/>" << 2 << "drop-oldest | thin-to-keyframes";
    QTest::newRow("recording missing attribute")
        << QString(rec).replace(" keep_branches=\"false\"", "") + "/>" << 2 << "keep_branches";
    QTest::newRow("two recording sections") << rec + "/>\n" + rec + "/>" << 3 << "a second <recording>";
    QTest::newRow("unknown coupler joint")
        << "<joint_coupler name=\"c\" leader=\"m/a\" follower=\"m/b\" ratio=\"1\" offset=\"0\"/>" << 2
        << "no joint 'm/a'";
  }

  void malformedFilesNameTheProblem() {
    QFETCH(QString, body);
    QFETCH(int, line);
    QFETCH(QString, expected);
    const std::string text = "<articula version=\"1\">\n" + body.toStdString() + "\n</articula>\n";
    World w;
    try {
      io::loadSceneFromString(w, text, "bad.articula");
      QFAIL("the file was accepted");
    } catch (const io::ImportError& e) {
      QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos, e.what());
      QVERIFY2(e.line() == line, qPrintable(QString("line %1, expected %2: %3").arg(e.line()).arg(line).arg(e.what())));
      QCOMPARE(QString::fromStdString(e.file()), QString("bad.articula"));
    }
    QCOMPARE(w.numMultibodies() + w.numRigidBodies() + w.numFrames(), std::size_t{0});
  }

  // The optional <recording> section: options and the replay path survive
  // save → load → save; the path is written relative to the scene's folder
  // and read back against it; a scene without the section reads none.
  void recordingSectionRoundTrips() {
    World w;
    scenes::buildScene(w, "four-bar");
    io::SceneRecording r;
    r.options.every = 5;
    r.options.budgetBytes = 123456789;
    r.options.overflow = RecordingOverflow::ThinToKeyframes;
    r.options.deltaEncoding = false;
    r.options.keyframeInterval = 17;
    r.options.keepBranches = true;
    QTemporaryDir dir;
    const std::filesystem::path folder = dir.path().toStdString();
    std::filesystem::create_directories(folder / "runs");
    r.replay = folder / "runs" / "four_bar.replay";
    const std::filesystem::path file = folder / "four_bar.articula";
    io::saveScene(w, file, r);
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    QVERIFY2(text.find("replay=\"runs/four_bar.replay\"") != std::string::npos, text.c_str());
    World back;
    const std::optional<io::SceneRecording> read = io::loadScene(back, file);
    QVERIFY(read.has_value());
    QCOMPARE(read->options.every, std::uint64_t{5});
    QCOMPARE(read->options.budgetBytes, std::size_t{123456789});
    QVERIFY(read->options.overflow == RecordingOverflow::ThinToKeyframes);
    QVERIFY(!read->options.deltaEncoding);
    QCOMPARE(read->options.keyframeInterval, std::uint32_t{17});
    QVERIFY(read->options.keepBranches);
    QCOMPARE(QString::fromStdString(read->replay.lexically_normal().string()),
             QString::fromStdString(r.replay.lexically_normal().string()));
    const std::filesystem::path again = folder / "again.articula";
    io::saveScene(back, again, read);
    std::ifstream in2(again);
    QCOMPARE(std::string((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>()), text);
    World plain;
    QVERIFY(!io::loadSceneFromString(plain, io::sceneToString(w), "plain.articula").has_value());
  }

  // A joint axis given off unit length is normalized once; saving and
  // loading it again changes no bit (normalizing a unit vector again could
  // move its last digit).
  void obliqueAxesRoundTripExactly() {
    World w;
    Multibody mb = w.addMultibody("m");
    mb.addLink({"a", Inertia::box(1.0, {0.1, 0.1, 0.1})}, JointSpec::revolute(Vector3d(1, 1, 0)).named("j1"));
    mb.addLink({"b", Inertia::box(1.0, {0.1, 0.1, 0.1})}, *mb.getLink("a"),
               JointSpec::prismatic(Vector3d(0.3, -0.7, 2.9)).named("j2"));
    const std::string first = io::sceneToString(w);
    World back;
    io::loadSceneFromString(back, first, "first.articula");
    QCOMPARE(io::sceneToString(back), first);
    QVERIFY(back.getMultibody("m")->getJoint("j1")->getSpec().axis ==
            w.getMultibody("m")->getJoint("j1")->getSpec().axis);
  }

  void failureLeavesTheWorldEmpty() {
    World original;
    scenes::buildScene(original, "four-bar");
    std::string text = io::sceneToString(original);
    // Break the closure's family: everything before it has been built.
    const auto at = text.find("family=\"hinge\"");
    QVERIFY(at != std::string::npos);
    text.replace(at, 14, "family=\"gizmo\"");
    World w;
    try {
      io::loadSceneFromString(w, text, "four_bar.articula");
      QFAIL("an unknown family was accepted");
    } catch (const io::ImportError& e) {
      QVERIFY2(std::string(e.what()).find("gizmo") != std::string::npos, e.what());
      QVERIFY(e.line() > 1);
    }
    QCOMPARE(w.numMultibodies(), std::size_t{0});
    QCOMPARE(w.numShapes(), std::size_t{0});
    QCOMPARE(w.numLoopClosures(), std::size_t{0});
  }

  void inlineMeshesRoundTrip() {
    // Meshes built in code (no file) are written inline.
    World world;
    const std::vector<Vector3d> tetra{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    RigidBody body = world.addRigidBody("tetra");
    CollisionShapeOptions c;
    c.geometry = Geometry::convexMesh(tetra);
    body.addCollisionShape(c);
    VisualShapeOptions v;
    v.geometry = Geometry::triangleMesh(tetra, {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}});
    body.addVisualShape(v);
    const std::string first = io::sceneToString(world);
    QVERIFY(first.find("type=\"convex_mesh\"") != std::string::npos);
    QVERIFY(first.find("type=\"triangle_mesh\"") != std::string::npos);
    World loaded;
    EXPECT_NO_THROW(io::loadSceneFromString(loaded, first));
    QCOMPARE(io::sceneToString(loaded), first);
    QCOMPARE(loaded.getRigidBody("tetra")->getVisualShapes().front().getGeometry().triangles.size(), std::size_t{4});
  }

  void meshPartsRoundTrip() {
    // Inline meshes write their coloured parts (format version 5).
    World world;
    const std::vector<Vector3d> tetra{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    RigidBody body = world.addRigidBody("tetra");
    VisualShapeOptions v;
    v.geometry = Geometry::triangleMesh(tetra, {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}});
    v.geometry.parts = {MeshPart{0, 2, Vector4d(1, 0, 0, 1)}, MeshPart{3, 1, Vector4d(0, 0, 1, 0.5)}};
    body.addVisualShape(v);
    const std::string first = io::sceneToString(world);
    QVERIFY2(first.find("parts=\"0 2 1 0 0 1 3 1 0 0 1 0.5\"") != std::string::npos, first.c_str());
    QVERIFY(first.find("<articula version=\"5\">") != std::string::npos);
    World loaded;
    EXPECT_NO_THROW(io::loadSceneFromString(loaded, first));
    QVERIFY(loaded.getRigidBody("tetra")->getVisualShapes().front().getGeometry().parts == v.geometry.parts);
    QCOMPARE(io::sceneToString(loaded), first);

    // A mesh file's parts are read from the file again, so they are not
    // written; parts removed from such a mesh are written as an empty list.
    QTemporaryDir dir;
    const std::filesystem::path folder(dir.path().toStdString());
    std::ofstream(folder / "two.mtl") << "newmtl a\nKd 1 0 0\nnewmtl b\nKd 0 1 0\n";
    std::ofstream(folder / "two.obj") << "mtllib two.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                         "usemtl a\nf 1 3 2\nf 1 2 4\nusemtl b\nf 1 4 3\nf 2 3 4\n";
    World fromFile;
    RigidBody b = fromFile.addRigidBody("b");
    VisualShapeOptions m;
    m.name = "look";
    m.geometry = Geometry::triangleMesh(tetra, {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}});
    Shape shape = b.addVisualShape(m);
    {
      // The file's geometry, as an importer makes it.
      World probe;
      io::importUrdfFromString(probe,
                               "<robot name=\"r\"><link name=\"a\"><visual><geometry><mesh filename=\"two.obj\"/>"
                               "</geometry></visual></link></robot>",
                               "r.urdf", folder);
      shape.setGeometry(probe.getMultibodies().front().getLinks().front().getVisualShapes().front().getGeometry());
    }
    QCOMPARE(shape.getGeometry().parts.size(), std::size_t{2});
    const std::string withFile = io::sceneToString(fromFile, folder);
    QVERIFY2(withFile.find("parts=") == std::string::npos, withFile.c_str());
    QVERIFY(withFile.find("version=\"5\"") == std::string::npos);
    World again;
    io::loadSceneFromString(again, withFile, "scene.articula", folder);
    QVERIFY(again.getRigidBody("b")->getVisualShapes().front().getGeometry().parts == shape.getGeometry().parts);
    Geometry plain = shape.getGeometry();
    plain.parts.clear();
    shape.setGeometry(plain);
    const std::string cleared = io::sceneToString(fromFile, folder);
    QVERIFY2(cleared.find("parts=\"\"") != std::string::npos, cleared.c_str());
    World clearedAgain;
    io::loadSceneFromString(clearedAgain, cleared, "scene.articula", folder);
    QVERIFY(clearedAgain.getRigidBody("b")->getVisualShapes().front().getGeometry().parts.empty());

    // Bad lists name the line.
    const std::string good = "parts=\"0 2 1 0 0 1 3 1 0 0 1 0.5\"";
    const auto refused = [&](const std::string& parts, const std::string& expected) {
      std::string text = first;
      text.replace(text.find(good), good.size(), "parts=\"" + parts + "\"");
      World x;
      try {
        io::loadSceneFromString(x, text, "parts.articula");
        return std::string("accepted");
      } catch (const io::ImportError& e) {
        if (std::string(e.what()).find(expected) == std::string::npos || e.line() < 3) {
          return "line " + std::to_string(e.line()) + ": " + e.what();
        }
        return std::string();
      }
    };
    QCOMPARE(refused("0 1 1 0", "groups of six"), std::string());
    QCOMPARE(refused("0 5 1 0 0 1", "part 0 covers triangles 0..4"), std::string());
    QCOMPARE(refused("2 1 1 0 0 1 0 1 1 0 0 1", "part 1 covers triangles 0..0"), std::string());
    QCOMPARE(refused("0.5 1 1 0 0 1", "whole numbers"), std::string());
    QCOMPARE(refused("0 1 2 0 0 1", "outside [0, 1]"), std::string());
  }
};

QTEST_APPLESS_MAIN(TestSceneFile)
#include "test_scene_file.moc"

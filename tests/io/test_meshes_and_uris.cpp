// Meshes and resource URIs: the same tetrahedron written as ASCII STL,
// binary STL, OBJ and COLLADA reads back as the same four vertices and four
// triangles; convex hulls and scale; the per-file cache; package://,
// model://, file:// and relative URIs through options, environment and the
// folders above the file.
#include "import_common.hpp"
#include "models.hpp"
#include "test_helpers.hpp"

#include <articula/io/import.hpp>

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(ARTICULA_SOURCE_DIR) / "tests" / "data";
const fs::path kModels = articula::test::modelsPath();

// The unit tetrahedron, faces counter-clockwise seen from outside.
const std::vector<Vector3d> kTetra{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
const std::vector<std::array<int, 3>> kFaces{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

void writeAsciiStl(const fs::path& p) {
  std::string s = "solid tetra\n";
  for (const auto& f : kFaces) {
    s += " facet normal 0 0 0\n  outer loop\n";
    for (const int i : f) {
      const Vector3d& v = kTetra[static_cast<std::size_t>(i)];
      s += "   vertex " + std::to_string(v.x()) + " " + std::to_string(v.y()) + " " + std::to_string(v.z()) + "\n";
    }
    s += "  endloop\n endfacet\n";
  }
  writeText(p, s + "endsolid tetra\n");
}

void writeBinaryStl(const fs::path& p) {
  std::ofstream out(p, std::ios::binary);
  const std::string header(80, ' ');
  out.write(header.data(), 80);
  const auto n = static_cast<std::uint32_t>(kFaces.size());
  out.write(reinterpret_cast<const char*>(&n), 4);
  for (const auto& f : kFaces) {
    float values[12] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
      const Vector3d& v = kTetra[static_cast<std::size_t>(f[static_cast<std::size_t>(k)])];
      for (int c = 0; c < 3; ++c) values[3 + 3 * k + c] = static_cast<float>(v[c]);
    }
    out.write(reinterpret_cast<const char*>(values), sizeof values);
    const std::uint16_t attributes = 0;
    out.write(reinterpret_cast<const char*>(&attributes), 2);
  }
}

void writeObj(const fs::path& p) {
  std::string s = "# tetrahedron\n";
  for (const Vector3d& v : kTetra) {
    s += "v " + std::to_string(v.x()) + " " + std::to_string(v.y()) + " " + std::to_string(v.z()) + "\n";
  }
  for (const auto& f : kFaces) {
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " + std::to_string(f[2] + 1) + "\n";
  }
  writeText(p, s);
}

void writeCollada(const fs::path& p) {
  std::string positions;
  for (const Vector3d& v : kTetra) {
    positions += std::to_string(v.x()) + " " + std::to_string(v.y()) + " " + std::to_string(v.z()) + " ";
  }
  std::string indices;
  for (const auto& f : kFaces)
    indices += std::to_string(f[0]) + " " + std::to_string(f[1]) + " " + std::to_string(f[2]) + " ";
  writeText(p,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
            "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
            "  <asset><unit name=\"meter\" meter=\"1\"/><up_axis>Z_UP</up_axis></asset>\n"
            "  <library_geometries><geometry id=\"tetra\"><mesh>\n"
            "    <source id=\"pos\"><float_array id=\"pos-array\" count=\"12\">" +
                positions +
                "</float_array>\n"
                "      <technique_common><accessor source=\"#pos-array\" count=\"4\" stride=\"3\">\n"
                "        <param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/><param name=\"Z\" "
                "type=\"float\"/>\n"
                "      </accessor></technique_common></source>\n"
                "    <vertices id=\"verts\"><input semantic=\"POSITION\" source=\"#pos\"/></vertices>\n"
                "    <triangles count=\"4\"><input semantic=\"VERTEX\" source=\"#verts\" offset=\"0\"/><p>" +
                indices +
                "</p></triangles>\n"
                "  </mesh></geometry></library_geometries>\n"
                "  <library_visual_scenes><visual_scene id=\"scene\"><node id=\"n\">\n"
                "    <instance_geometry url=\"#tetra\"/>\n"
                "  </node></visual_scene></library_visual_scenes>\n"
                "  <scene><instance_visual_scene url=\"#scene\"/></scene>\n"
                "</COLLADA>\n");
}

// The tetrahedron as OBJ with a material library: faces 1, 2 and 4 use the
// materials `first` and `last`, face 3 the material `middle`.
void writeObjWithMaterials(const fs::path& p, const std::string& mtl, const std::string& first,
                           const std::string& middle, const std::string& last) {
  writeText(p.parent_path() / "parts.mtl", mtl);
  std::string s = "mtllib parts.mtl\n";
  for (const Vector3d& v : kTetra) {
    s += "v " + std::to_string(v.x()) + " " + std::to_string(v.y()) + " " + std::to_string(v.z()) + "\n";
  }
  const auto face = [&](const std::array<int, 3>& f) {
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " + std::to_string(f[2] + 1) + "\n";
  };
  s += "usemtl " + first + "\n";
  face(kFaces[0]);
  face(kFaces[1]);
  s += "usemtl " + middle + "\n";
  face(kFaces[2]);
  s += "usemtl " + last + "\n";
  face(kFaces[3]);
  writeText(p, s);
}

const std::string kRedBlueMtl = "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\nnewmtl crimson\nKd 1 0 0\n";

// Triangles per colour of a mesh's parts; every triangle must be in a part.
void trianglesPerColour(const std::vector<MeshPart>& parts, std::size_t numTriangles, std::map<QString, int>& out) {
  out.clear();
  int next = 0;
  for (const MeshPart& part : parts) {
    QVERIFY2(part.firstTriangle == next, "parts should follow each other");
    next = part.firstTriangle + part.triangleCount;
    out[test::num(part.color[0], 4) + " " + test::num(part.color[1], 4) + " " + test::num(part.color[2], 4)] +=
        part.triangleCount;
  }
  QCOMPARE(static_cast<std::size_t>(next), numTriangles);
}

// Sorted, so that two vertex lists compare whatever order a reader produced.
std::vector<Vector3d> sorted(std::vector<Vector3d> v) {
  std::sort(v.begin(), v.end(), [](const Vector3d& a, const Vector3d& b) {
    return std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3);
  });
  return v;
}

// Signed volume of a closed triangle mesh (divergence theorem).
double volume(const std::vector<Vector3d>& v, const std::vector<std::array<int, 3>>& t) {
  double vol = 0.0;
  for (const auto& f : t) {
    vol += v[static_cast<std::size_t>(f[0])].dot(
               v[static_cast<std::size_t>(f[1])].cross(v[static_cast<std::size_t>(f[2])])) /
           6.0;
  }
  return vol;
}

std::string urdfWithMesh(const std::string& uri, const std::string& scale = "1 1 1") {
  return "<robot name=\"r\">\n"
         "  <link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
         "izz=\"1\"/></inertial>\n"
         "    <collision><geometry><mesh filename=\"" +
         uri + "\" scale=\"" + scale +
         "\"/></geometry></collision>\n"
         "  </link>\n"
         "</robot>\n";
}

}  // namespace

class TestMeshesAndUris : public QObject {
  Q_OBJECT

 private slots:
  void formatsReadTheSameMesh_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("ASCII STL") << "tetra_ascii.stl";
    QTest::newRow("binary STL") << "tetra_binary.stl";
    QTest::newRow("OBJ") << "tetra.obj";
    QTest::newRow("COLLADA") << "tetra.dae";
  }

  void formatsReadTheSameMesh() {
    QFETCH(QString, name);
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / name.toStdString();
    if (name.endsWith("ascii.stl")) writeAsciiStl(p);
    if (name.endsWith("binary.stl")) writeBinaryStl(p);
    if (name.endsWith(".obj")) writeObj(p);
    if (name.endsWith(".dae")) writeCollada(p);
    std::shared_ptr<const io::detail::MeshData> mesh;
    EXPECT_NO_THROW(mesh = io::detail::loadMesh(p));
    QCOMPARE(mesh->vertices.size(), std::size_t{4});
    QCOMPARE(mesh->triangles.size(), std::size_t{4});
    const std::vector<Vector3d> got = sorted(mesh->vertices);
    const std::vector<Vector3d> expected = sorted(kTetra);
    for (std::size_t i = 0; i < 4; ++i) VERIFY_NEAR(got[i], expected[i], 1e-6);
    // Orientation kept: outward faces give the tetrahedron's volume 1/6.
    QVERIFY2(std::abs(volume(mesh->vertices, mesh->triangles) - 1.0 / 6.0) < 1e-6,
             qPrintable(test::num(volume(mesh->vertices, mesh->triangles))));
  }

  void hullAndScale() {
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "tetra.obj";
    writeObj(p);
    const Geometry hull = io::detail::meshGeometry(p, Vector3d(2, 3, 4), true);
    QVERIFY(hull.type == GeometryType::ConvexMesh);
    QCOMPARE(hull.meshFile, p.string());
    QCOMPARE(hull.meshScale, Vector3d(2, 3, 4));
    const std::vector<Vector3d> got = sorted(hull.vertices);
    const std::vector<Vector3d> expected = sorted({{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {0, 0, 4}});
    QCOMPARE(got.size(), std::size_t{4});
    for (std::size_t i = 0; i < 4; ++i) VERIFY_NEAR(got[i], expected[i], 1e-6);
    const Geometry full = io::detail::meshGeometry(p, Vector3d(2, 3, 4), false);
    QVERIFY(full.type == GeometryType::TriangleMesh);
    QVERIFY(std::abs(volume(full.vertices, full.triangles) - 24.0 / 6.0) < 1e-9);
  }

  void severalMaterialsBecomeColouredParts() {
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "parts.obj";
    writeObjWithMaterials(p, kRedBlueMtl, "red", "blue", "crimson");
    const auto mesh = io::detail::loadMesh(p);
    QCOMPARE(mesh->triangles.size(), std::size_t{4});
    QVERIFY2(std::abs(volume(mesh->vertices, mesh->triangles) - 1.0 / 6.0) < 1e-6, "the solid changed");
    // Red and crimson are one colour: three red triangles, one blue.
    std::map<QString, int> counts;
    trianglesPerColour(mesh->parts, 4, counts);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(counts.size(), std::size_t{2});
    QCOMPARE(counts.at("1 0 0"), 3);
    QCOMPARE(counts.at("0 0 1"), 1);
    // The visual geometry carries them; the hull (moving collision) does not.
    QCOMPARE(io::detail::meshGeometry(p, Vector3d::Ones(), false).parts.size(), mesh->parts.size());
    QVERIFY(io::detail::meshGeometry(p, Vector3d::Ones(), true).parts.empty());
  }

  void oneColourIsNotParts() {
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "parts.obj";
    writeObjWithMaterials(p, kRedBlueMtl, "red", "crimson", "red");
    const auto mesh = io::detail::loadMesh(p);
    QVERIFY(mesh->parts.empty());
    QVERIFY(mesh->color.has_value());
    VERIFY_NEAR(*mesh->color, Vector4d(1, 0, 0, 1), 1e-6);
    const fs::path plain = fs::path(dir.path().toStdString()) / "plain.obj";
    writeObj(plain);
    QVERIFY(io::detail::loadMesh(plain)->parts.empty());
  }

  void importersFollowTheirPeersOnMeshColours() {
    // URDF: as RViz, the mesh's own materials are drawn, the visual's
    // <material> colours the rest. SDF: as Gazebo, a visual's material
    // colours the whole mesh. MJCF: as MuJoCo, the geom's colour is used.
    QTemporaryDir dir;
    const fs::path folder(dir.path().toStdString());
    writeObjWithMaterials(folder / "parts.obj", kRedBlueMtl, "red", "blue", "red");
    const std::string inertial =
        "<inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>"
        "</inertial>";
    const auto visualOf = [](const World& w) {
      for (const ShapeSpec& sh : w.getSpec().shapes) {
        if (!sh.collision) return sh;
      }
      return ShapeSpec{};
    };
    {
      World w;
      io::importUrdfFromString(w,
                               "<robot name=\"r\"><material name=\"grey\"><color rgba=\"0.5 0.5 0.5 1\"/></material>"
                               "<link name=\"a\">" +
                                   inertial +
                                   "<visual><geometry><mesh filename=\"parts.obj\"/></geometry>"
                                   "<material name=\"grey\"/></visual></link></robot>",
                               "r.urdf", folder);
      const ShapeSpec v = visualOf(w);
      QCOMPARE(v.geometry.parts.size(), std::size_t{2});
      VERIFY_NEAR(v.color, Vector4d(0.5, 0.5, 0.5, 1), 1e-12);
    }
    const auto sdf = [&](const std::string& material) {
      World w;
      io::importSdfFromString(w,
                              "<sdf version=\"1.9\"><model name=\"m\"><link name=\"a\"><visual name=\"v\">"
                              "<geometry><mesh><uri>parts.obj</uri></mesh></geometry>" +
                                  material + "</visual></link></model></sdf>",
                              "m.sdf", folder);
      return visualOf(w);
    };
    QCOMPARE(sdf("").geometry.parts.size(), std::size_t{2});
    const ShapeSpec coloured = sdf("<material><diffuse>0 1 0 1</diffuse></material>");
    QVERIFY(coloured.geometry.parts.empty());
    VERIFY_NEAR(coloured.color, Vector4d(0, 1, 0, 1), 1e-12);
    {
      World w;
      io::importMjcfFromString(w,
                               "<mujoco><asset><mesh name=\"p\" file=\"parts.obj\"/></asset><worldbody>"
                               "<body><freejoint/><geom type=\"mesh\" mesh=\"p\" rgba=\"0 1 0 1\"/></body>"
                               "</worldbody></mujoco>",
                               "m.xml", folder);
      const ShapeSpec v = visualOf(w);
      QVERIFY(v.geometry.type == GeometryType::TriangleMesh);
      QVERIFY(v.geometry.parts.empty());
    }
  }

  void pandaMeshesShowTheirMaterials() {
    // A public robot whose visual meshes have several materials each.
    const fs::path urdf = kModels / "example-robot-data" / "robots" / "panda_description" / "urdf" / "panda.urdf";
    ARTICULA_REQUIRE_MODEL(urdf);
    World w;
    io::ImportOptions options;
    options.packagePath = {kModels};
    io::importFile(w, urdf, options);
    int withParts = 0;
    bool link6 = false;
    for (const ShapeSpec& sh : w.getSpec().shapes) {
      if (sh.collision || sh.geometry.parts.empty()) continue;
      ++withParts;
      std::map<QString, int> counts;
      trianglesPerColour(sh.geometry.parts, sh.geometry.triangles.size(), counts);
      if (QTest::currentTestFailed()) return;
      if (sh.geometry.meshFile.find("link6.dae") != std::string::npos) {
        link6 = true;
        // link6.dae: white shell, dark grey (0.25) parts, a red face.
        QVERIFY2(counts.count("1 1 1") == 1 && counts.count("1 0 0") == 1 && counts.size() >= 3,
                 qPrintable(QString::number(counts.size())));
      }
    }
    qInfo("panda: %d visual meshes with coloured parts", withParts);
    QVERIFY(link6);
    QVERIFY(withParts >= 8);
  }

  void cacheReadsAFileOnce() {
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "mesh.obj";
    writeObj(p);
    const auto first = io::detail::loadMesh(p);
    QVERIFY(io::detail::loadMesh(p) == first);  // the same object: not read again
    // A changed file is read again.
    writeText(p, "v 0 0 0\nv 2 0 0\nv 0 2 0\nv 0 0 2\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    fs::last_write_time(p, fs::last_write_time(p) + std::chrono::seconds(5));
    const auto second = io::detail::loadMesh(p);
    QVERIFY(second != first);
    double extent = 0.0;
    for (const Vector3d& v : second->vertices) extent = std::max(extent, v.maxCoeff());
    QCOMPARE(extent, 2.0);
  }

  void unreadableMeshIsLeftOutWithAWarning() {
    // The robot loads without the shape (as peers load robots whose mesh
    // package is missing); the report says which mesh and why, with the line.
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "broken.stl";
    writeText(p, "this is not a mesh");
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(
        report = io::importUrdfFromString(world, urdfWithMesh("broken.stl"), "r.urdf", dir.path().toStdString()));
    QCOMPARE(report.warnings.size(), std::size_t{1});
    QVERIFY2(report.warnings[0].message.find("broken.stl' skipped") != std::string::npos, report.toText().c_str());
    QCOMPARE(report.warnings[0].line, 2);
    QCOMPARE(world.numMultibodies(), std::size_t{1});
    QCOMPARE(world.numShapes(), std::size_t{0});
  }

  void uriForms() {
    // The SDF test data holds meshes/tetrahedron.stl; "sdf" is its folder.
    const fs::path mesh = kData / "sdf" / "meshes" / "tetrahedron.stl";
    QVERIFY(fs::exists(mesh));
    io::ImportOptions o;
    o.useEnvironmentPaths = false;
    o.packagePath = {kData};
    const std::vector<std::string> uris{"package://sdf/meshes/tetrahedron.stl",   // folder containing the package
                                        "package:///sdf/meshes/tetrahedron.stl",  // common extra slash
                                        "model://sdf/meshes/tetrahedron.stl",
                                        "file://" + mesh.string(),
                                        "meshes/tetrahedron.stl",  // relative to the file
                                        mesh.string()};
    for (const std::string& uri : uris) {
      World world;
      io::ImportReport report;
      EXPECT_NO_THROW(report = io::importUrdfFromString(world, urdfWithMesh(uri), "r.urdf", kData / "sdf", o));
      QCOMPARE(report.numMeshesLoaded, 1);
    }
    // The package folder itself on the path works too.
    o.packagePath = {kData / "sdf"};
    World world;
    EXPECT_NO_THROW(
        io::importUrdfFromString(world, urdfWithMesh("package://sdf/meshes/tetrahedron.stl"), "r.urdf", {}, o));
  }

  void environmentPackagePath() {
    io::ImportOptions o;
    QVERIFY(qputenv("ARTICULA_PACKAGE_PATH", QByteArray("/nonexistent:") + QByteArray::fromStdString(kData.string())));
    World world;
    EXPECT_NO_THROW(
        io::importUrdfFromString(world, urdfWithMesh("package://sdf/meshes/tetrahedron.stl"), "r.urdf", {}, o));
    world.clear();
    o.useEnvironmentPaths = false;
    const io::ImportReport unresolved =
        io::importUrdfFromString(world, urdfWithMesh("package://sdf/meshes/tetrahedron.stl"), "r.urdf", {}, o);
    QCOMPARE(unresolved.numMeshesLoaded, 0);
    QCOMPARE(unresolved.warnings.size(), std::size_t{1});
    QVERIFY2(unresolved.warnings[0].message.find("package 'sdf'") != std::string::npos, unresolved.toText().c_str());
    QVERIFY(unresolved.warnings[0].message.find("--package-path") != std::string::npos);
    qunsetenv("ARTICULA_PACKAGE_PATH");
    qputenv("ROS_PACKAGE_PATH", QByteArray::fromStdString((kData / "sdf").string()));
    world.clear();
    EXPECT_NO_THROW(io::importUrdfFromString(world, urdfWithMesh("package://sdf/meshes/tetrahedron.stl"), "r.urdf", {},
                                             io::ImportOptions{}));
    qunsetenv("ROS_PACKAGE_PATH");
  }

  void foldersAboveTheFile() {
    // example-robot-data's package:// URIs resolve with no path at all: the
    // folder that contains the package lies above the URDF.
    const fs::path ur5 = kModels / "example-robot-data" / "robots" / "ur_description" / "urdf" / "ur5_robot.urdf";
    ARTICULA_REQUIRE_MODEL(ur5);
    io::ImportOptions o;
    o.useEnvironmentPaths = false;
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdf(world, ur5, o));
    QVERIFY(report.numMeshesLoaded > 0);
    QVERIFY(report.warnings.empty());
  }

  void masslessMovingLinkIsAWarning() {
    const std::string text =
        "<robot name=\"r\">\n"
        "  <link name=\"base\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" "
        "iyz=\"0\" izz=\"1\"/></inertial></link>\n"
        "  <link name=\"hollow\"/>\n"
        "  <link name=\"tip\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" "
        "iyz=\"0\" izz=\"1\"/></inertial></link>\n"
        "  <joint name=\"j1\" type=\"continuous\"><parent link=\"base\"/><child link=\"hollow\"/><axis xyz=\"0 0 "
        "1\"/></joint>\n"
        "  <joint name=\"j2\" type=\"fixed\"><parent link=\"hollow\"/><child link=\"tip\"/><origin xyz=\"1 0 "
        "0\"/></joint>\n"
        "</robot>\n";
    World world;
    io::ImportReport report;
    EXPECT_NO_THROW(report = io::importUrdfFromString(world, text));
    QCOMPARE(report.warnings.size(), std::size_t{1});
    QVERIFY(report.warnings[0].message.find("'hollow'") != std::string::npos);
    QVERIFY(report.toJson().find("\"warnings\":[{") != std::string::npos);
    // The mass further out carries the joint: it simulates.
    world.step(10);
    QVERIFY(world.getPositions().allFinite());
  }

  void unknownExtensionIsRefused() {
    World world;
    try {
      io::importFile(world, kData / "model.stl");
      QFAIL("no ImportError");
    } catch (const io::ImportError& e) {
      QVERIFY(std::string(e.what()).find("unknown file type '.stl'") != std::string::npos);
    }
  }
};

QTEST_APPLESS_MAIN(TestMeshesAndUris)
#include "test_meshes_and_uris.moc"

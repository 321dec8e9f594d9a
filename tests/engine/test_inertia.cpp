// Mass properties of solids (solidInertia, Inertia::capsule, ::ellipsoid)
// checked against a second algorithm: the volume integral of a finely
// tessellated surface of the same solid (solidMeshInertia), which converges
// to the solid as the triangles shrink. Inertia::add is checked against
// solids cut in parts, and solidMeshInertia against the exact box.
#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

using namespace articula;

namespace {

constexpr double kPi = std::numbers::pi;

struct Mesh {
  std::vector<Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;
};

// The surface of revolution about z of the profile (radius, z), from the
// bottom pole to the top pole, with `around` segments; consistent winding.
Mesh revolve(const std::vector<std::pair<double, double>>& profile, int around) {
  Mesh m;
  const int rows = static_cast<int>(profile.size());
  for (const auto& [r, z] : profile) {
    for (int j = 0; j < around; ++j) {
      const double a = 2.0 * kPi * j / around;
      m.vertices.emplace_back(r * std::cos(a), r * std::sin(a), z);
    }
  }
  for (int i = 0; i + 1 < rows; ++i) {
    for (int j = 0; j < around; ++j) {
      const int a = i * around + j;
      const int b = i * around + (j + 1) % around;
      const int c = (i + 1) * around + (j + 1) % around;
      const int d = (i + 1) * around + j;
      m.triangles.push_back({a, b, c});
      m.triangles.push_back({a, c, d});
    }
  }
  return m;
}

// An arc of the circle of radius r centred at z = zc, from angle a0 to a1
// (measured from −z), as profile points.
void arc(std::vector<std::pair<double, double>>& profile, double r, double zc, double a0, double a1, int steps) {
  for (int k = 0; k <= steps; ++k) {
    const double a = a0 + (a1 - a0) * k / steps;
    profile.emplace_back(r * std::sin(a), zc - r * std::cos(a));
  }
}

constexpr int kAround = 720;
constexpr int kAlong = 360;

Mesh sphereMesh(double r) {
  std::vector<std::pair<double, double>> p;
  arc(p, r, 0.0, 0.0, kPi, kAlong);
  return revolve(p, kAround);
}

Mesh capsuleMesh(double r, double l) {
  std::vector<std::pair<double, double>> p;
  arc(p, r, -0.5 * l, 0.0, 0.5 * kPi, kAlong / 2);
  arc(p, r, 0.5 * l, 0.5 * kPi, kPi, kAlong / 2);
  return revolve(p, kAround);
}

Mesh cylinderMesh(double r, double l) {
  return revolve({{0.0, -0.5 * l}, {r, -0.5 * l}, {r, 0.5 * l}, {0.0, 0.5 * l}}, kAround);
}

// Relative agreement of two inertias: mass, centre (against the size) and
// every entry of the rotational inertia (against its largest).
bool near(const Inertia& a, const Inertia& b, double tol, double size) {
  const double scale = std::max(a.rotational.cwiseAbs().maxCoeff(), b.rotational.cwiseAbs().maxCoeff());
  return std::abs(a.mass - b.mass) <= tol * b.mass && (a.com - b.com).norm() <= tol * size &&
         (a.rotational - b.rotational).cwiseAbs().maxCoeff() <= tol * scale;
}

QString describe(const Inertia& a, const Inertia& b) {
  return QString("mass %1 vs %2, I diag (%3 %4 %5) vs (%6 %7 %8)")
      .arg(a.mass)
      .arg(b.mass)
      .arg(a.rotational(0, 0))
      .arg(a.rotational(1, 1))
      .arg(a.rotational(2, 2))
      .arg(b.rotational(0, 0))
      .arg(b.rotational(1, 1))
      .arg(b.rotational(2, 2));
}

}  // namespace

class TestInertia : public QObject {
  Q_OBJECT

 private slots:
  // Every primitive against its tessellation (720 × 360 quads: the
  // inscribed surface is short of the solid by about (π/720)² ≈ 2e-5).
  void primitivesAgreeWithTheirTessellation() {
    const double density = 750.0;
    struct Case {
      const char* name;
      Geometry g;
      Mesh mesh;
      double size;
    };
    Mesh ellipsoid = sphereMesh(1.0);
    const Vector3d semi(0.3, 0.5, 0.8);
    for (Vector3d& v : ellipsoid.vertices) v = v.cwiseProduct(semi);
    const std::vector<Case> cases{
        {"sphere", Geometry::sphere(0.4), sphereMesh(0.4), 0.4},
        {"capsule", Geometry::capsule(0.15, 0.6), capsuleMesh(0.15, 0.6), 0.6},
        {"short capsule", Geometry::capsule(0.3, 0.05), capsuleMesh(0.3, 0.05), 0.3},
        {"cylinder", Geometry::cylinder(0.2, 0.9), cylinderMesh(0.2, 0.9), 0.9},
        {"ellipsoid", Geometry::ellipsoid(semi), ellipsoid, 0.8},
    };
    for (const Case& c : cases) {
      const std::optional<Inertia> exact = solidInertia(c.g, density);
      const std::optional<Inertia> integral = solidMeshInertia(c.mesh.vertices, c.mesh.triangles, density);
      QVERIFY2(exact && integral, c.name);
      QVERIFY2(near(*integral, *exact, 1e-4, c.size), qPrintable(QString(c.name) + ": " + describe(*integral, *exact)));
      // The same mesh as a TriangleMesh geometry, turned inside out: the same solid.
      Mesh flipped = c.mesh;
      for (auto& t : flipped.triangles) std::swap(t[1], t[2]);
      const std::optional<Inertia> inside =
          solidInertia(Geometry::triangleMesh(flipped.vertices, flipped.triangles), density);
      QVERIFY2(inside && near(*inside, *integral, 1e-12, c.size), c.name);
    }
  }

  // The box's 12 triangles are its exact surface: the integral equals the
  // formula to round-off, wherever the box sits and however it is turned.
  void boxMeshIsExactAnywhere() {
    const Vector3d size(0.1, 0.2, 0.3);
    const Inertia formula = *solidInertia(Geometry::box(size), 500.0);
    QCOMPARE(formula.mass, 3.0);  // 0.006 m³ at 500 kg/m³
    Isometry3d X = Isometry3d::Identity();
    X.linear() = Eigen::AngleAxisd(0.7, Vector3d(1, 2, 3).normalized()).toRotationMatrix();
    X.translation() = Vector3d(2.0, -1.0, 0.5);
    Mesh box;
    for (int i = 0; i < 8; ++i) {
      const Vector3d corner(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5);
      box.vertices.push_back(X * corner.cwiseProduct(size));
    }
    const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : faces) {
      box.triangles.push_back({f[0], f[1], f[2]});
      box.triangles.push_back({f[0], f[2], f[3]});
    }
    const Inertia integral = *solidMeshInertia(box.vertices, box.triangles, 500.0);
    Inertia expected = Inertia::zero();
    expected.add(formula, X);
    QVERIFY2(near(integral, expected, 1e-12, 1.0), qPrintable(describe(integral, expected)));
    QVERIFY((integral.com - X.translation()).norm() < 1e-12);
  }

  // A solid cut in parts and summed by add() is the whole: a 2 m rod from
  // two 1 m halves, a capsule from its cylinder and two hemispheres
  // (each the half of a sphere, centre 3r/8 off its face).
  void partsAddUpToTheWhole() {
    const Vector3d half(0.2, 0.3, 1.0);
    Inertia rod = Inertia::zero();
    Isometry3d up = Isometry3d::Identity();
    up.translation() = Vector3d(0, 0, 0.5);
    rod.add(Inertia::box(1.0, half), up);
    rod.add(Inertia::box(1.0, half), up.inverse());
    const Inertia whole = Inertia::box(2.0, Vector3d(0.2, 0.3, 2.0));
    QVERIFY2(near(rod, whole, 1e-14, 1.0), qPrintable(describe(rod, whole)));

    const double r = 0.1;
    const double l = 0.4;
    const double density = 1000.0;
    const double mHemisphere = density * 2.0 / 3.0 * kPi * r * r * r;
    // A hemisphere about its own centre: 2/5 m r² about the face's diameters
    // minus m (3r/8)² for the axes across; 2/5 m r² about its own axis.
    Inertia hemisphere = Inertia::sphere(mHemisphere, r);
    hemisphere.rotational(0, 0) -= mHemisphere * (3.0 * r / 8.0) * (3.0 * r / 8.0);
    hemisphere.rotational(1, 1) = hemisphere.rotational(0, 0);
    Inertia capsule = *solidInertia(Geometry::cylinder(r, l), density);
    Isometry3d top = Isometry3d::Identity();
    top.translation() = Vector3d(0, 0, 0.5 * l + 3.0 * r / 8.0);
    Isometry3d bottom = Isometry3d::Identity();
    bottom.translation() = -top.translation();
    capsule.add(hemisphere, top).add(hemisphere, bottom);
    const Inertia formula = *solidInertia(Geometry::capsule(r, l), density);
    QVERIFY2(near(capsule, formula, 1e-12, l), qPrintable(describe(capsule, formula)));
    // A capsule without a cylinder is a sphere.
    QVERIFY(near(Inertia::capsule(2.0, r, 0.0), Inertia::sphere(2.0, r), 1e-14, r));
    // Adding nothing changes nothing; adding to nothing moves the part.
    Inertia zero = Inertia::zero();
    zero.add(Inertia::zero());
    QCOMPARE(zero.mass, 0.0);
  }

  void badInputIsRefused() {
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, solidInertia(Geometry::sphere(0.1), -1.0));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, solidInertia(Geometry::sphere(0.0), 1000.0));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, solidInertia(Geometry::box(Vector3d(1, 0, 1)), 1000.0));
    QVERIFY(!solidInertia(Geometry::plane(), 1000.0));
    QVERIFY(!solidInertia(Geometry::convexMesh({Vector3d::Zero(), Vector3d::UnitX(), Vector3d::UnitY()}), 1000.0));
    // An open surface bounds no volume.
    QVERIFY(!solidMeshInertia({Vector3d::Zero(), Vector3d::UnitX(), Vector3d::UnitY()}, {{0, 1, 2}}, 1000.0));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, solidMeshInertia({Vector3d::Zero()}, {{0, 1, 2}}, 1000.0));
  }
};

QTEST_APPLESS_MAIN(TestInertia)
#include "test_inertia.moc"

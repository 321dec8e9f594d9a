// convexHull: the hull of a cube's corners among points inside it and on
// its faces is the cube (its eight corners, in the points' own double
// coordinates, six outward faces, and the solid of its triangles is the
// box's exactly); the hull of random points contains every point and has
// Euler characteristic 2; flat or too few points give no hull.
#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <random>
#include <set>
#include <vector>

using namespace articula;

class TestConvexHull : public QObject {
  Q_OBJECT

 private slots:
  void cubeAmongInnerPoints() {
    const Vector3d size(0.3, 0.5, 0.7);
    std::vector<Vector3d> points;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> unit(-0.5, 0.5);
    for (int i = 0; i < 50; ++i) points.emplace_back(unit(rng) * size.x(), unit(rng) * size.y(), unit(rng) * size.z());
    std::set<int> corners;
    for (int i = 0; i < 8; ++i) {
      corners.insert(static_cast<int>(points.size()));
      // Not representable in float: the hull must keep the given doubles.
      points.emplace_back((i & 1 ? 0.5 : -0.5) * size.x() + 1e-12, (i & 2 ? 0.5 : -0.5) * size.y(),
                          (i & 4 ? 0.5 : -0.5) * size.z());
    }
    points.emplace_back(0.5 * size.x(), 0.1, 0.1);  // on a face: not a corner
    const ConvexHull hull = convexHull(points);
    QCOMPARE(std::set<int>(hull.corners.begin(), hull.corners.end()), corners);
    QCOMPARE(hull.faces.size(), std::size_t{6});  // coplanar triangles merged into the cube's faces
    QCOMPARE(hull.triangles.size(), std::size_t{12});
    // Outward: the solid the triangles bound is the box, to round-off.
    const std::optional<Inertia> solid = solidMeshInertia(points, hull.triangles, 1000.0);
    QVERIFY(solid.has_value());
    const Inertia box = Inertia::box(1000.0 * size.prod(), size);
    QVERIFY(std::abs(solid->mass - box.mass) < 1e-9 * box.mass);
    QVERIFY((solid->rotational - box.rotational).norm() < 1e-9 * box.rotational.norm());
    double signedVolume = 0.0;
    for (const auto& t : hull.triangles) {
      signedVolume += points[static_cast<std::size_t>(t[0])].dot(
                          points[static_cast<std::size_t>(t[1])].cross(points[static_cast<std::size_t>(t[2])])) /
                      6.0;
    }
    QVERIFY2(signedVolume > 0.0, "the triangles face inwards");
  }

  void randomPointsAreInside() {
    std::mt19937 rng(11);
    std::normal_distribution<double> gauss;
    std::vector<Vector3d> points;
    for (int i = 0; i < 300; ++i) points.emplace_back(gauss(rng), 2.0 * gauss(rng), 0.5 * gauss(rng));
    const ConvexHull hull = convexHull(points);
    QVERIFY(hull.faces.size() >= 4);
    // Every point is inside every face's plane (outward normal by Newell).
    for (const std::vector<int>& face : hull.faces) {
      Vector3d n = Vector3d::Zero();
      for (std::size_t i = 0; i < face.size(); ++i) {
        n += points[static_cast<std::size_t>(face[i])].cross(
            points[static_cast<std::size_t>(face[(i + 1) % face.size()])]);
      }
      n.normalize();
      const double c = n.dot(points[static_cast<std::size_t>(face[0])]);
      for (const Vector3d& p : points) QVERIFY(n.dot(p) <= c + 1e-6);
    }
    // A closed polyhedron: V − E + F = 2.
    std::size_t edges = 0;
    for (const std::vector<int>& face : hull.faces) edges += face.size();
    QCOMPARE(
        static_cast<long>(hull.corners.size()) - static_cast<long>(edges / 2) + static_cast<long>(hull.faces.size()),
        2L);
  }

  void noVolumeNoHull() {
    QVERIFY(convexHull({Vector3d::Zero(), Vector3d::UnitX(), Vector3d::UnitY()}).faces.empty());
    std::vector<Vector3d> flat;
    for (int i = 0; i < 20; ++i) flat.emplace_back(std::cos(i), std::sin(i), 0.0);
    const ConvexHull hull = convexHull(flat);
    QVERIFY(hull.faces.empty() && hull.triangles.empty());
  }
};

QTEST_APPLESS_MAIN(TestConvexHull)
#include "test_convex_hull.moc"

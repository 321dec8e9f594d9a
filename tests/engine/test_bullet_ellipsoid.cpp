// The ellipsoid collision shape's support function against its definition:
// the support point in direction d lies on the surface x²/a² + y²/b² +
// z²/c² = 1 where the outward normal is along d, for every length of d
// (GJK asks with directions as short as the distance it has left).
#include "bullet_ellipsoid.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <random>

using articula::detail::EllipsoidShape;

namespace {

// Bullet's scalar may be float: every vector is made from doubles here.
btVector3 vec(double x, double y, double z) {
  return {static_cast<btScalar>(x), static_cast<btScalar>(y), static_cast<btScalar>(z)};
}

const btVector3 kAxes = vec(0.05, 0.08, 0.12);

double surfaceValue(const btVector3& p) {
  const btVector3 u = p / kAxes;
  return static_cast<double>(u.dot(u));
}

double dot(const btVector3& a, const btVector3& b) {
  return static_cast<double>(a.dot(b));
}

double length(const btVector3& a) {
  return static_cast<double>(a.length());
}

// The outward normal at surface point p: S⁻²p, normalised.
btVector3 normalAt(const btVector3& p) {
  return (p / (kAxes * kAxes)).normalized();
}

}  // namespace

class TestBulletEllipsoid : public QObject {
  Q_OBJECT

 private slots:
  void supportIsOnTheSurfaceWithTheNormalAlongD();
  void supportDoesNotDependOnTheLengthOfD();
  void zeroAndNonFiniteDirectionsGiveASurfacePoint();
  void supportWithoutMarginIsMovedInAlongD();
};

void TestBulletEllipsoid::supportIsOnTheSurfaceWithTheNormalAlongD() {
  const EllipsoidShape e(kAxes, 0);
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (int i = 0; i < 500; ++i) {
    const btVector3 d = vec(g(rng), g(rng), g(rng));
    const btVector3 p = e.localGetSupportingVertex(d);
    QVERIFY2(std::abs(surfaceValue(p) - 1.0) < 1e-5, qPrintable(QString("off the surface: %1").arg(surfaceValue(p))));
    const double along = dot(normalAt(p), d.normalized());
    QVERIFY2(along > 1.0 - 1e-5, qPrintable(QString("normal not along d: cos = %1").arg(along)));
    // No other point of the surface lies farther along d: test a ring of
    // nearby surface points.
    for (int k = 0; k < 8; ++k) {
      const btVector3 q = p + vec(0.01 * g(rng), 0.01 * g(rng), 0.01 * g(rng));
      const btVector3 onSurface = q / static_cast<btScalar>(std::sqrt(surfaceValue(q)));
      QVERIFY(dot(onSurface, d) <= dot(p, d) + 1e-6 * length(d));
    }
  }
}

void TestBulletEllipsoid::supportDoesNotDependOnTheLengthOfD() {
  const EllipsoidShape e(kAxes, 0);
  const btVector3 ref = e.localGetSupportingVertex(vec(0.3, -0.7, 0.2));
  for (const double scale : {1e-30, 1e-20, 1e-17, 1e-12, 1.0, 1e12, 1e30}) {
    const btVector3 p = e.localGetSupportingVertex(vec(0.3 * scale, -0.7 * scale, 0.2 * scale));
    QVERIFY2(length(p - ref) < 1e-6,
             qPrintable(QString("|d| = %1: support moved by %2 m").arg(scale).arg(length(p - ref))));
  }
}

void TestBulletEllipsoid::zeroAndNonFiniteDirectionsGiveASurfacePoint() {
  const EllipsoidShape e(kAxes, 0);
  const double inf = std::numeric_limits<double>::infinity();
  for (const btVector3& d : {vec(0, 0, 0), vec(inf, 0, 0), vec(std::nan(""), 1, 0)}) {
    const btVector3 p = e.localGetSupportingVertex(d);
    QVERIFY(std::isfinite(p.x()) && std::isfinite(p.y()) && std::isfinite(p.z()));
    QVERIFY(std::abs(surfaceValue(p) - 1.0) < 1e-5);
  }
}

void TestBulletEllipsoid::supportWithoutMarginIsMovedInAlongD() {
  const double margin = 0.004;
  const EllipsoidShape e(kAxes, static_cast<btScalar>(margin));
  QCOMPARE(e.getMargin(), static_cast<btScalar>(margin));
  for (const double scale : {1e-25, 1.0, 1e25}) {
    const btVector3 d = vec(-0.2 * scale, 0.5 * scale, 0.9 * scale);
    const btVector3 outer = e.localGetSupportingVertex(d);
    const btVector3 inner = e.localGetSupportingVertexWithoutMargin(d);
    const btVector3 shift = outer - inner;
    QVERIFY2(std::abs(length(shift) - margin) < 1e-6,
             qPrintable(QString("|d| = %1: moved in by %2 m").arg(scale).arg(length(shift))));
    // Moved in along d (normalised before scaling: |d|² overflows a float).
    QVERIFY(dot(shift.normalized(), vec(-0.2, 0.5, 0.9).normalized()) > 1.0 - 1e-5);
  }
}

QTEST_APPLESS_MAIN(TestBulletEllipsoid)
#include "test_bullet_ellipsoid.moc"

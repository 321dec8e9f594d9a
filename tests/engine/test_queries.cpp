// Kinematic queries against closed forms: signed distances between
// primitives and planes, raycasts against every geometry type, and
// interference checks that match the contacts of a first step without
// changing what the simulation does.
#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <numbers>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;

CollisionShapeOptions shapeOptions(const std::string& name, const Geometry& g,
                                   const Isometry3d& pose = Isometry3d::Identity()) {
  CollisionShapeOptions o;
  o.name = name;
  o.geometry = g;
  o.pose = pose;
  return o;
}

// A static shape of the world at pose X.
Shape addStatic(World& w, const std::string& name, const Geometry& g, const Isometry3d& X) {
  return w.addCollisionShape(Frame::World(), shapeOptions(name, g, X));
}

Geometry cubeHull(double side) {
  std::vector<Vector3d> v;
  for (int i = 0; i < 8; ++i) {
    v.emplace_back(side * ((i & 1) - 0.5), side * (((i >> 1) & 1) - 0.5), side * (((i >> 2) & 1) - 0.5));
  }
  return Geometry::convexMesh(v);
}

}  // namespace

class TestQueries : public QObject {
  Q_OBJECT

 private slots:
  // ---- distances ------------------------------------------------------------
  void sphereSphereIsExact() {
    World w;
    const Shape a = addStatic(w, "a", Geometry::sphere(0.3), translation(0.1, 0.2, 0.3));
    const Shape b = addStatic(w, "b", Geometry::sphere(0.5), translation(1.3, -0.4, 0.9));
    const Vector3d d = Vector3d(0.1, 0.2, 0.3) - Vector3d(1.3, -0.4, 0.9);
    const DistanceResult r = w.computeDistance(a, b);
    QVERIFY(std::abs(r.distance - (d.norm() - 0.8)) < 1e-12);
    VERIFY_NEAR(r.normal, Vector3d(d.normalized()), 1e-12);
    VERIFY_NEAR(r.pointA, Vector3d(Vector3d(0.1, 0.2, 0.3) - 0.3 * d.normalized()), 1e-12);
    VERIFY_NEAR(r.pointB, Vector3d(Vector3d(1.3, -0.4, 0.9) + 0.5 * d.normalized()), 1e-12);
    QVERIFY(r.shapeA == a && r.shapeB == b);
    // Overlapping: negative.
    const Shape c = addStatic(w, "c", Geometry::sphere(0.5), translation(0.5, 0.2, 0.3));
    QVERIFY(std::abs(w.computeDistance(a, c).distance - (0.4 - 0.8)) < 1e-12);
  }

  void primitivesAgainstAPlaneAreExact() {
    World w;
    const Shape ground = w.addGroundPlane(0.25);
    const Isometry3d X = translation(0.3, -0.1, 1.2) * rotation(0.7, Vector3d(1, 2, -1).normalized());
    const Matrix3d R = X.linear();
    const Vector3d n = R.transpose() * Vector3d::UnitZ();  // the plane normal in shape coordinates
    const double h = 1.2 - 0.25;
    struct Case {
      Geometry g;
      double depthBelowCentre;  // support of the shape along −n
    };
    const Vector3d size(0.4, 0.3, 0.2);
    const double r = 0.15;
    const double len = 0.5;
    const Vector3d semi(0.3, 0.2, 0.1);
    const std::vector<Case> cases = {
        {Geometry::box(size), 0.5 * (size.cwiseProduct(n.cwiseAbs())).sum()},
        {Geometry::sphere(r), r},
        {Geometry::capsule(r, len), r + 0.5 * len * std::abs(n.z())},
        {Geometry::cylinder(r, len), r * std::hypot(n.x(), n.y()) + 0.5 * len * std::abs(n.z())},
        {Geometry::ellipsoid(semi), semi.cwiseProduct(n).norm()},
        {cubeHull(0.4), 0.2 * n.cwiseAbs().sum()},
    };
    int k = 0;
    for (const Case& c : cases) {
      const Shape s = addStatic(w, "s" + std::to_string(k++), c.g, X);
      const DistanceResult d = w.computeDistance(s, ground);
      ARTICULA_CHECK(std::abs(d.distance - (h - c.depthBelowCentre)) < 1e-12,
                     QString("%1: distance %2, expected %3")
                         .arg(QString::fromUtf8(toString(c.g.type).data()))
                         .arg(d.distance, 0, 'g', 17)
                         .arg(h - c.depthBelowCentre, 0, 'g', 17));
      VERIFY_NEAR(d.normal, Vector3d(Vector3d::UnitZ()), 1e-15);
      QVERIFY(std::abs(d.pointB.z() - 0.25) < 1e-12);
      QVERIFY(std::abs(d.pointA.z() - d.pointB.z() - d.distance) < 1e-12);
      // The reverse order flips the normal.
      const DistanceResult e = w.computeDistance(ground, s);
      QCOMPARE(e.distance, d.distance);
      VERIFY_NEAR(e.normal, Vector3d(-Vector3d::UnitZ()), 1e-15);
    }
  }

  void sphereBoxAndGjkPairs() {
    World w;
    const Shape box = addStatic(w, "box", Geometry::box(Vector3d(1.0, 0.6, 0.4)), rotation(0.3, Vector3d::UnitZ()));
    const Matrix3d R = rotation(0.3, Vector3d::UnitZ()).linear();
    // Sphere beyond a face, and beyond an edge.
    const Shape s1 =
        addStatic(w, "s1", Geometry::sphere(0.1), Isometry3d(Eigen::Translation3d(R * Vector3d(0.9, 0, 0))));
    QVERIFY(std::abs(w.computeDistance(s1, box).distance - (0.4 - 0.1)) < 1e-12);
    const Shape s2 =
        addStatic(w, "s2", Geometry::sphere(0.1), Isometry3d(Eigen::Translation3d(R * Vector3d(0.8, 0.6, 0.0))));
    QVERIFY(std::abs(w.computeDistance(box, s2).distance - (std::hypot(0.3, 0.3) - 0.1)) < 1e-12);
    // Inside: the nearest face.
    const Shape s3 =
        addStatic(w, "s3", Geometry::sphere(0.05), Isometry3d(Eigen::Translation3d(R * Vector3d(0.4, 0.0, 0.0))));
    QVERIFY(std::abs(w.computeDistance(s3, box).distance - (-0.1 - 0.05)) < 1e-12);
    // Box–box and capsule–box by GJK/EPA (single precision): within 1e-6.
    const Shape b2 = addStatic(w, "b2", Geometry::box(Vector3d(0.2, 0.2, 0.2)),
                               rotation(0.3, Vector3d::UnitZ()) * translation(0.85, 0.0, 0.0));
    QVERIFY(std::abs(w.computeDistance(b2, box).distance - 0.25) < 1e-6);
    const Shape cap =
        addStatic(w, "cap", Geometry::capsule(0.1, 0.4), rotation(0.3, Vector3d::UnitZ()) * translation(0.0, 0.0, 0.7));
    const DistanceResult d = w.computeDistance(cap, box);
    QVERIFY2(std::abs(d.distance - (0.7 - 0.2 - 0.1 - 0.2)) < 1e-6, qPrintable(num(d.distance)));
    VERIFY_NEAR(d.normal, Vector3d(Vector3d::UnitZ()), 1e-5);
    const Shape deep = addStatic(w, "deep", Geometry::box(Vector3d(0.2, 0.2, 0.2)),
                                 rotation(0.3, Vector3d::UnitZ()) * translation(0.0, 0.0, 0.25));
    const DistanceResult dd = w.computeDistance(deep, box);
    QVERIFY2(std::abs(dd.distance - (-0.05)) < 1e-6, qPrintable(num(dd.distance)));
    VERIFY_NEAR(dd.normal, Vector3d(Vector3d::UnitZ()), 1e-5);
    QVERIFY(std::abs(dd.pointA.z() - 0.15) < 1e-6 && std::abs(dd.pointB.z() - 0.2) < 1e-6);
  }

  void bodiesTakeTheirClosestShapes() {
    World w;
    w.addGroundPlane();
    RigidBody b = w.addRigidBody("b", bodyOptions(translation(0, 0, 1.0), 1.0));
    b.addCollisionShape(shapeOptions("high", Geometry::sphere(0.1), translation(0, 0, 0.5)));
    const Shape low =
        b.addCollisionShape(shapeOptions("low", Geometry::box(Vector3d(0.2, 0.2, 0.2)), translation(0, 0, -0.3)));
    const DistanceResult d = w.computeDistance(b, Frame::World());
    QVERIFY(std::abs(d.distance - 0.6) < 1e-12);
    QVERIFY(d.shapeA == low);
    // Errors name the problem.
    const Shape visual = b.addVisualShape(VisualShapeOptions{});
    EXPECT_THROW_NAMING(InvalidArgument, (std::vector<std::string>{"visual"}), w.computeDistance(visual, low));
    RigidBody empty = w.addRigidBody("empty", bodyOptions());
    EXPECT_THROW_NAMING(InvalidArgument, (std::vector<std::string>{"empty", "no collision shapes"}),
                        w.computeDistance(empty, b));
    const Shape other = w.addGroundPlane(1.0, Material{}, "ceiling");
    EXPECT_THROW_NAMING(InvalidArgument, (std::vector<std::string>{"planes"}),
                        w.computeDistance(*w.getShape("ground"), other));
  }

  // ---- raycasts ---------------------------------------------------------------
  void raycastsHitEveryGeometry() {
    // Each shape sits at the origin, turned; the ray comes from far along
    // a direction d. The entry distance is known in closed form.
    const Isometry3d turn = rotation(0.6, Vector3d(0.3, -1.0, 0.4).normalized());
    const Matrix3d R = turn.linear();
    const Vector3d dLocal = Vector3d(1.0, 0.4, -0.3).normalized();  // the direction in shape coordinates
    const Vector3d dWorld = R * dLocal;
    const double far = 10.0;
    const Vector3d origin = -far * dWorld;
    const double r = 0.3;
    const double len = 0.8;
    const Vector3d size(0.6, 0.5, 0.4);
    const Vector3d semi(0.5, 0.3, 0.2);
    // Entry parameters through the centre (the ray passes the origin).
    const double boxEntry = std::min({0.5 * size.x() / std::abs(dLocal.x()), 0.5 * size.y() / std::abs(dLocal.y()),
                                      0.5 * size.z() / std::abs(dLocal.z())});
    const double sphereEntry = r;
    const double ellipsoidEntry = 1.0 / dLocal.cwiseQuotient(semi).norm();
    // Cylinder (and capsule side) through the centre: the side or the cap, whichever first.
    const double rho = std::hypot(dLocal.x(), dLocal.y());
    const double cylinderEntry = std::min(r / rho, 0.5 * len / std::abs(dLocal.z()));
    // Capsule: |z| at the side entry r/rho is 0.3·0.3/0.93 < len/2, so the side.
    const double capsuleEntry = r / rho;
    QVERIFY(capsuleEntry * std::abs(dLocal.z()) < 0.5 * len);
    struct Case {
      Geometry g;
      double entry;
      double tol;
    };
    const std::vector<Case> cases = {
        {Geometry::box(size), boxEntry, 1e-12},
        {Geometry::sphere(r), sphereEntry, 1e-12},
        {Geometry::capsule(r, len), capsuleEntry, 1e-12},
        {Geometry::cylinder(r, len), cylinderEntry, 1e-12},
        {Geometry::ellipsoid(semi), ellipsoidEntry, 1e-12},
        {cubeHull(0.4), std::min({0.2 / std::abs(dLocal.x()), 0.2 / std::abs(dLocal.y()), 0.2 / std::abs(dLocal.z())}),
         1e-12},
        {Geometry::triangleMesh({Vector3d(-1, -1, 0), Vector3d(1, -1, 0), Vector3d(0, 1, 0)}, {{0, 1, 2}}), 0.0, 1e-12},
    };
    for (const Case& c : cases) {
      World w;
      addStatic(w, "s", c.g, turn);
      const std::optional<RaycastHit> hit = w.raycast(origin, 3.0 * dWorld);  // not unit
      ARTICULA_CHECK(hit.has_value(), QString("%1: no hit").arg(QString::fromUtf8(toString(c.g.type).data())));
      ARTICULA_CHECK(std::abs(hit->distance - (far - c.entry)) < c.tol,
                     QString("%1: distance %2, expected %3")
                         .arg(QString::fromUtf8(toString(c.g.type).data()))
                         .arg(hit->distance, 0, 'g', 17)
                         .arg(far - c.entry, 0, 'g', 17));
      VERIFY_NEAR(hit->point, Vector3d(origin + hit->distance * dWorld), 1e-12);
      QVERIFY(hit->normal.dot(dWorld) < 0.0);
      QVERIFY(std::abs(hit->normal.norm() - 1.0) < 1e-12);
      QVERIFY(hit->body.isWorld());
      // Too short a ray misses; a ray from inside does not hit that shape.
      QVERIFY(!w.raycast(origin, dWorld, far - c.entry - 1e-3));
      if (c.g.type != GeometryType::TriangleMesh) {
        ARTICULA_CHECK(!w.raycast(Vector3d(R * Vector3d(0.01, 0, 0)), dWorld),
                       QString("%1: hit from inside").arg(QString::fromUtf8(toString(c.g.type).data())));
      }
    }
    // The plane: from above, straight down and slanted.
    World w;
    w.addGroundPlane(0.5);
    QVERIFY(std::abs(w.raycast(Vector3d(0, 0, 2), Vector3d(0, 0, -1))->distance - 1.5) < 1e-15);
    const Vector3d slant = Vector3d(1, 0, -1).normalized();
    QVERIFY(std::abs(w.raycast(Vector3d(0, 0, 2), slant)->distance - 1.5 * std::sqrt(2.0)) < 1e-12);
    QVERIFY(!w.raycast(Vector3d(0, 0, 2), Vector3d(0, 0, 1)));
  }

  void raycastAllIsOrderedAndNormalsAreOutward() {
    World w;
    addStatic(w, "far", Geometry::sphere(0.5), translation(5, 0, 0));
    addStatic(w, "near", Geometry::box(Vector3d(1, 1, 1)), translation(2, 0, 0));
    addStatic(w, "off", Geometry::sphere(0.5), translation(3, 2, 0));
    const std::vector<RaycastHit> hits = w.raycastAll(Vector3d::Zero(), Vector3d::UnitX());
    QCOMPARE(hits.size(), std::size_t{2});
    QCOMPARE(hits[0].shape.name(), std::string("near"));
    QVERIFY(std::abs(hits[0].distance - 1.5) < 1e-15);
    VERIFY_NEAR(hits[0].normal, Vector3d(-Vector3d::UnitX()), 0.0);
    QCOMPARE(hits[1].shape.name(), std::string("far"));
    QVERIFY(std::abs(hits[1].distance - 4.5) < 1e-15);
    QCOMPARE(w.raycastAll(Vector3d::Zero(), Vector3d::UnitX(), 2.0).size(), std::size_t{1});
    EXPECT_THROW_NAMING(InvalidArgument, (std::vector<std::string>{"direction"}),
                        w.raycast(Vector3d::Zero(), Vector3d::Zero()));
    EXPECT_THROW_NAMING(InvalidArgument, (std::vector<std::string>{"maxDistance"}),
                        w.raycast(Vector3d::Zero(), Vector3d::UnitX(), -1.0));
  }

  // ---- interference -----------------------------------------------------------
  void interferenceEqualsTheContactsOfAFirstStep() {
    auto build = [](World& w) {
      w.addGroundPlane();
      for (int i = 0; i < 4; ++i) {
        RigidBody b = w.addRigidBody(
            "box" + std::to_string(i),
            bodyOptions(translation(0.35 * i, 0.1 * i, 0.09 + 0.01 * i) * rotation(0.2 * i, Vector3d::UnitZ()), 1.0));
        b.addCollisionShape(shapeOptions("box" + std::to_string(i), Geometry::box(Vector3d(0.4, 0.4, 0.2))));
      }
      RigidBody s = w.addRigidBody("ball", bodyOptions(translation(0.0, 0.0, 0.33), 1.0));
      s.addCollisionShape(shapeOptions("ball", Geometry::sphere(0.15)));
      // A two-link arm whose links overlap: parent and child do not collide.
      Multibody mb = w.addMultibody("arm");
      Link l0 = mb.addLink(linkOptions("l0"), JointSpec::weld(translation(3, 0, 0.5)));
      l0.addCollisionShape(shapeOptions("l0", Geometry::box(Vector3d(0.3, 0.3, 0.3))));
      Link l1 = mb.addLink(linkOptions("l1"), l0, JointSpec::revolute(Vector3d::UnitZ()));
      l1.addCollisionShape(shapeOptions("l1", Geometry::sphere(0.2)));
    };
    World design;
    build(design);
    const std::vector<Contact> found = design.checkCollisions();
    QVERIFY(!design.isSimulationMode());
    QVERIFY(found.size() >= 8);
    World stepped;
    build(stepped);
    WorldOptions o = stepped.getOptions();
    o.gravity.setZero();
    stepped.setOptions(o);
    stepped.step();
    std::vector<Contact> first;
    for (const Contact& c : stepped.getContacts()) {
      if (c.depth >= 0.0) first.push_back(c);
    }
    QCOMPARE(found.size(), first.size());
    for (std::size_t i = 0; i < found.size(); ++i) {
      QCOMPARE(found[i].shapeA.name(), first[i].shapeA.name());
      QCOMPARE(found[i].shapeB.name(), first[i].shapeB.name());
      QVERIFY(found[i].point == first[i].point);
      QVERIFY(found[i].normal == first[i].normal);
      QCOMPARE(found[i].depth, first[i].depth);
      QCOMPARE(found[i].normalImpulse, 0.0);
    }
    for (const Contact& c : found) {
      QVERIFY(!(c.shapeA.name() == "l0" && c.shapeB.name() == "l1"));
      QVERIFY(!(c.shapeA.name() == "l1" && c.shapeB.name() == "l0"));
    }
    // A margin adds the near misses.
    QVERIFY(design.checkCollisions(0.05).size() >= found.size());
  }

  void queriesDoNotChangeTheSimulation() {
    auto build = [](World& w) {
      w.addGroundPlane();
      for (int i = 0; i < 5; ++i) {
        RigidBody b =
            w.addRigidBody("box" + std::to_string(i), bodyOptions(translation(0.01 * i, 0, 0.1 + 0.21 * i), 1.0));
        b.addCollisionShape(shapeOptions("box" + std::to_string(i), Geometry::box(Vector3d(0.3, 0.3, 0.2))));
      }
    };
    World a;
    World b;
    build(a);
    build(b);
    for (int i = 0; i < 300; ++i) {
      a.step();
      b.step();
      (void)b.checkCollisions(0.01);
      (void)b.raycastAll(Vector3d(0, 0, 3), Vector3d(0, 0, -1));
      (void)b.computeDistance(*b.getRigidBody("box1"), *b.getRigidBody("box3"));
    }
    const VectorXd qa = a.getPositions();
    const VectorXd qb = b.getPositions();
    QVERIFY(std::memcmp(qa.data(), qb.data(), sizeof(double) * std::size_t(qa.size())) == 0);
  }
};

QTEST_GUILESS_MAIN(TestQueries)
#include "test_queries.moc"

// Kinematic collision queries (articula/query.hpp): contacts at the current
// configuration, signed distances and raycasts, in either mode and without
// touching what the next step does.
//
// Distances are computed in double precision wherever a closed form
// exists (a plane against any shape through its support function, sphere
// pairs, sphere–box); other pairs go to Bullet's GJK/EPA, which works in
// single precision here. Raycasts are closed-form in double precision for
// every primitive, triangle meshes, and convex meshes (against the planes of
// their hull's faces, computed once per compiled model).
#include "world_impl.hpp"

#include "bullet_convert.hpp"
#include "bullet_ellipsoid.hpp"

#include <btBulletCollisionCommon.h>

#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btTriangleShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace articula {

namespace detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double sgn(double x) {
  return x < 0.0 ? -1.0 : 1.0;
}

// Support point of a convex geometry in direction d (shape coordinates).
Vector3d support(const Geometry& g, const Vector3d& d) {
  switch (g.type) {
    case GeometryType::Box:
      return 0.5 * Vector3d(sgn(d.x()) * g.size.x(), sgn(d.y()) * g.size.y(), sgn(d.z()) * g.size.z());
    case GeometryType::Sphere:
      return d.norm() > 0.0 ? Vector3d(g.radius * d.normalized()) : Vector3d(g.radius, 0, 0);
    case GeometryType::Capsule: {
      const Vector3d s = d.norm() > 0.0 ? Vector3d(g.radius * d.normalized()) : Vector3d(g.radius, 0, 0);
      return s + Vector3d(0, 0, sgn(d.z()) * 0.5 * g.length);
    }
    case GeometryType::Cylinder: {
      const double rho = std::hypot(d.x(), d.y());
      const Vector3d radial =
          rho > 0.0 ? Vector3d(g.radius * d.x() / rho, g.radius * d.y() / rho, 0.0) : Vector3d::Zero();
      return radial + Vector3d(0, 0, sgn(d.z()) * 0.5 * g.length);
    }
    case GeometryType::Ellipsoid: {
      const Vector3d ad = g.size.cwiseProduct(d);
      const double n = ad.norm();
      return n > 0.0 ? Vector3d(g.size.cwiseProduct(ad) / n) : Vector3d(g.size.x(), 0, 0);
    }
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh: {
      Vector3d best = Vector3d::Zero();
      double bestDot = -kInf;
      for (const Vector3d& v : g.vertices) {
        if (v.dot(d) > bestDot) {
          bestDot = v.dot(d);
          best = v;
        }
      }
      return best;
    }
    case GeometryType::Plane:
      break;
  }
  return Vector3d::Zero();
}

// Bullet shapes for GJK/EPA and the convex cast (margins included in their
// support, so the full shape is used).
struct BtShapes {
  std::vector<std::unique_ptr<btConvexShape>> shapes;  // one, or one per triangle of a mesh
};

void makeConvex(const Geometry& g, BtShapes& out) {
  switch (g.type) {
    case GeometryType::Box: {
      auto s = std::make_unique<btBoxShape>(toBt(0.5 * g.size));
      s->setMargin(0);
      out.shapes.push_back(std::move(s));
      return;
    }
    case GeometryType::Sphere:
      out.shapes.push_back(std::make_unique<btSphereShape>(static_cast<btScalar>(g.radius)));
      return;
    case GeometryType::Capsule:
      out.shapes.push_back(
          std::make_unique<btCapsuleShapeZ>(static_cast<btScalar>(g.radius), static_cast<btScalar>(g.length)));
      return;
    case GeometryType::Cylinder: {
      auto s = std::make_unique<btCylinderShapeZ>(toBt(Vector3d(g.radius, g.radius, 0.5 * g.length)));
      s->setMargin(0);
      out.shapes.push_back(std::move(s));
      return;
    }
    case GeometryType::Ellipsoid:
      out.shapes.push_back(std::make_unique<EllipsoidShape>(toBt(g.size), btScalar(0)));
      return;
    case GeometryType::ConvexMesh: {
      auto s = std::make_unique<btConvexHullShape>();
      for (const auto& v : g.vertices) s->addPoint(toBt(v), false);
      s->recalcLocalAabb();
      s->setMargin(0);
      out.shapes.push_back(std::move(s));
      return;
    }
    case GeometryType::TriangleMesh:
      for (const auto& t : g.triangles) {
        auto s = std::make_unique<btTriangleShape>(toBt(g.vertices[static_cast<std::size_t>(t[0])]),
                                                   toBt(g.vertices[static_cast<std::size_t>(t[1])]),
                                                   toBt(g.vertices[static_cast<std::size_t>(t[2])]));
        s->setMargin(0);
        out.shapes.push_back(std::move(s));
      }
      return;
    case GeometryType::Plane:
      return;
  }
}

// A shape placed in the world for a distance query.
struct Placed {
  const Geometry* g = nullptr;
  SE3 X;  // X_WS
};

// Signed distance, witnesses on A and B and the normal from B towards A.
struct Pair {
  double distance = kInf;
  Vector3d pA, pB, n;
};

// Plane B (normal +z of its frame) against any shape A.
Pair planeDistance(const Placed& a, const Placed& plane) {
  const Vector3d n = plane.X.R.col(2);
  const Vector3d dLocal = a.X.R.transpose() * (-n);
  const Vector3d pA = a.X.transformPoint(support(*a.g, dLocal));
  Pair r;
  r.distance = n.dot(pA - plane.X.p);
  r.pA = pA;
  r.pB = pA - r.distance * n;
  r.n = n;
  return r;
}

Pair sphereSphere(const Placed& a, const Placed& b) {
  const Vector3d d = a.X.p - b.X.p;
  const double len = d.norm();
  Pair r;
  r.n = len > 0.0 ? Vector3d(d / len) : Vector3d::UnitZ();
  r.distance = len - a.g->radius - b.g->radius;
  r.pA = a.X.p - a.g->radius * r.n;
  r.pB = b.X.p + b.g->radius * r.n;
  return r;
}

// Sphere A against box B.
Pair sphereBox(const Placed& sphere, const Placed& box) {
  const Vector3d c = box.X.R.transpose() * (sphere.X.p - box.X.p);  // sphere centre in box coordinates
  const Vector3d e = 0.5 * box.g->size;
  const Vector3d q = c.cwiseMax(-e).cwiseMin(e);
  Pair r;
  Vector3d nLocal;
  double centreDistance;
  if (q != c) {
    const Vector3d d = c - q;
    centreDistance = d.norm();
    nLocal = d / centreDistance;
  } else {
    // Inside: the nearest face.
    const Vector3d gap = e - c.cwiseAbs();
    Eigen::Index k = 0;
    gap.minCoeff(&k);
    nLocal = Vector3d::Zero();
    nLocal[k] = sgn(c[k]);
    centreDistance = -gap[k];
  }
  Vector3d onBox = q;
  if (q == c) {
    for (int k = 0; k < 3; ++k) {
      if (nLocal[k] != 0.0) onBox[k] = nLocal[k] * e[k];
    }
  }
  r.n = box.X.R * nLocal;
  r.distance = centreDistance - sphere.g->radius;
  r.pB = box.X.transformPoint(onBox);
  r.pA = sphere.X.p - sphere.g->radius * r.n;
  return r;
}

Pair gjk(const Placed& a, const Placed& b) {
  BtShapes sa;
  BtShapes sb;
  makeConvex(*a.g, sa);
  makeConvex(*b.g, sb);
  Pair best;
  const btTransform ta = toBt(a.X);
  const btTransform tb = toBt(b.X);
  for (const auto& x : sa.shapes) {
    for (const auto& y : sb.shapes) {
      btGjkEpaSolver2::sResults res;
      const btVector3 guess = toBt(b.X.p - a.X.p);
      if (!btGjkEpaSolver2::SignedDistance(x.get(), ta, y.get(), tb, guess, res)) continue;
      // GJK/EPA work on the shapes without their margins (a capsule's is
      // its radius): the margins are taken off the distance here.
      const double ma = static_cast<double>(x->getMargin());
      const double mb = static_cast<double>(y->getMargin());
      const double d = static_cast<double>(res.distance) - ma - mb;
      if (d < best.distance) {
        const Vector3d wa = fromBt(res.witnesses[0]);
        const Vector3d wb = fromBt(res.witnesses[1]);
        // Bullet's normal points from B to A.
        Vector3d n = fromBt(res.normal);
        if (n.norm() > 0.0) n.normalize();
        best.distance = d;
        best.n = n;
        best.pA = wa - ma * n;
        best.pB = wb + mb * n;
      }
    }
  }
  return best;
}

Pair shapeDistance(const Placed& a, const Placed& b) {
  const GeometryType ta = a.g->type;
  const GeometryType tb = b.g->type;
  if (tb == GeometryType::Plane) return planeDistance(a, b);
  if (ta == GeometryType::Plane) {
    Pair r = planeDistance(b, a);
    std::swap(r.pA, r.pB);
    r.n = -r.n;
    return r;
  }
  if (ta == GeometryType::Sphere && tb == GeometryType::Sphere) return sphereSphere(a, b);
  if (ta == GeometryType::Sphere && tb == GeometryType::Box) return sphereBox(a, b);
  if (ta == GeometryType::Box && tb == GeometryType::Sphere) {
    Pair r = sphereBox(b, a);
    std::swap(r.pA, r.pB);
    r.n = -r.n;
    return r;
  }
  return gjk(a, b);
}

// ---- raycasts in shape coordinates: the entry parameter s ∈ [0, smax] and
// the outward normal, or s = ∞ (the origin inside the shape is no hit).

struct Entry {
  double s = kInf;
  Vector3d n = Vector3d::Zero();
};

// Smallest root s ≥ 0 of a s² + 2 b s + c = 0 entering the quadric (c > 0: outside).
double enterQuadric(double a, double b, double c) {
  if (c <= 0.0 || a <= 0.0) return kInf;
  const double disc = b * b - a * c;
  if (disc < 0.0) return kInf;
  // Stable form of (−b − √disc)/a.
  const double s = b < 0.0 ? c / (-b + std::sqrt(disc)) : (-b - std::sqrt(disc)) / a;
  return s >= 0.0 ? s : kInf;
}

Entry raySphere(const Vector3d& o, const Vector3d& d, double r) {
  Entry e;
  e.s = enterQuadric(d.dot(d), o.dot(d), o.dot(o) - r * r);
  if (e.s < kInf) e.n = (o + e.s * d).normalized();
  return e;
}

Entry rayBox(const Vector3d& o, const Vector3d& d, const Vector3d& half) {
  Entry e;
  double tNear = -kInf;
  double tFar = kInf;
  int axis = -1;
  for (int k = 0; k < 3; ++k) {
    if (d[k] == 0.0) {
      if (std::abs(o[k]) > half[k]) return e;
      continue;
    }
    double t0 = (-half[k] - o[k]) / d[k];
    double t1 = (half[k] - o[k]) / d[k];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > tNear) {
      tNear = t0;
      axis = k;
    }
    tFar = std::min(tFar, t1);
  }
  if (axis < 0 || tNear > tFar || tNear < 0.0) return e;  // missed, or the origin is inside
  e.s = tNear;
  e.n[axis] = -sgn(d[axis]);
  return e;
}

// Infinite cylinder x² + y² = r², entered at |z| ≤ zHalf.
Entry raySide(const Vector3d& o, const Vector3d& d, double r, double zHalf) {
  Entry e;
  const double s =
      enterQuadric(d.x() * d.x() + d.y() * d.y(), o.x() * d.x() + o.y() * d.y(), o.x() * o.x() + o.y() * o.y() - r * r);
  if (s == kInf) return e;
  const Vector3d p = o + s * d;
  if (std::abs(p.z()) > zHalf) return e;
  e.s = s;
  e.n = Vector3d(p.x(), p.y(), 0.0).normalized();
  return e;
}

bool insideCapsule(const Vector3d& o, double r, double zHalf) {
  const Vector3d axis(0, 0, std::clamp(o.z(), -zHalf, zHalf));
  return (o - axis).squaredNorm() <= r * r;
}

Entry rayCapsule(const Vector3d& o, const Vector3d& d, double r, double zHalf) {
  if (insideCapsule(o, r, zHalf)) return {};
  Entry best = raySide(o, d, r, zHalf);
  for (const double z : {-zHalf, zHalf}) {
    const Vector3d c(0, 0, z);
    Entry e = raySphere(o - c, d, r);
    if (e.s < best.s) best = e;
  }
  return best;
}

Entry rayCylinder(const Vector3d& o, const Vector3d& d, double r, double zHalf) {
  if (std::abs(o.z()) <= zHalf && o.x() * o.x() + o.y() * o.y() <= r * r) return {};
  Entry best = raySide(o, d, r, zHalf);
  if (d.z() != 0.0) {
    for (const double z : {-zHalf, zHalf}) {
      const double s = (z - o.z()) / d.z();
      if (s < 0.0 || s >= best.s) continue;
      const Vector3d p = o + s * d;
      if (p.x() * p.x() + p.y() * p.y() > r * r) continue;
      // Entering through this cap only if the ray moves inwards through it.
      if ((z > 0.0) != (d.z() < 0.0)) continue;
      best.s = s;
      best.n = Vector3d(0, 0, sgn(z));
    }
  }
  return best;
}

Entry rayEllipsoid(const Vector3d& o, const Vector3d& d, const Vector3d& a) {
  const Vector3d os = o.cwiseQuotient(a);
  const Vector3d ds = d.cwiseQuotient(a);
  Entry e;
  e.s = enterQuadric(ds.dot(ds), os.dot(ds), os.dot(os) - 1.0);
  if (e.s < kInf) e.n = (o + e.s * d).cwiseQuotient(a.cwiseProduct(a)).normalized();
  return e;
}

Entry rayPlane(const Vector3d& o, const Vector3d& d) {
  Entry e;
  if (o.z() <= 0.0 || d.z() >= 0.0) return e;
  e.s = -o.z() / d.z();
  e.n = Vector3d::UnitZ();
  return e;
}

// Möller–Trumbore over every triangle (either side).
Entry rayTriangles(const Vector3d& o, const Vector3d& d, const Geometry& g) {
  Entry best;
  for (const auto& t : g.triangles) {
    const Vector3d& a = g.vertices[static_cast<std::size_t>(t[0])];
    const Vector3d& b = g.vertices[static_cast<std::size_t>(t[1])];
    const Vector3d& c = g.vertices[static_cast<std::size_t>(t[2])];
    const Vector3d e1 = b - a;
    const Vector3d e2 = c - a;
    const Vector3d p = d.cross(e2);
    const double det = e1.dot(p);
    if (det == 0.0) continue;
    const double inv = 1.0 / det;
    const Vector3d tv = o - a;
    const double u = tv.dot(p) * inv;
    if (u < 0.0 || u > 1.0) continue;
    const Vector3d q = tv.cross(e1);
    const double v = d.dot(q) * inv;
    if (v < 0.0 || u + v > 1.0) continue;
    const double s = e2.dot(q) * inv;
    if (s < 0.0 || s >= best.s) continue;
    best.s = s;
    Vector3d n = e1.cross(e2).normalized();
    if (n.dot(d) > 0.0) n = -n;  // facing the ray
    best.n = n;
  }
  return best;
}

// The faces of a convex mesh's hull as planes n·x ≤ c (double precision,
// from the original vertices of each face).
std::vector<Vector4d> hullPlanes(const Geometry& g) {
  std::vector<Vector4d> planes;
  const ConvexHull hull = convexHull(g.vertices);
  for (const std::vector<int>& face : hull.faces) {
    // Newell's normal of the loop (robust for nearly collinear corners);
    // the loop runs counter-clockwise seen from outside.
    Vector3d n = Vector3d::Zero();
    for (std::size_t i = 0; i < face.size(); ++i) {
      n += g.vertices[static_cast<std::size_t>(face[i])].cross(
          g.vertices[static_cast<std::size_t>(face[(i + 1) % face.size()])]);
    }
    if (!(n.norm() > 0.0)) continue;
    n.normalize();
    double c = -kInf;
    for (const int v : face) c = std::max(c, n.dot(g.vertices[static_cast<std::size_t>(v)]));
    planes.emplace_back(n.x(), n.y(), n.z(), c);
  }
  return planes;
}

Entry rayPlanes(const Vector3d& o, const Vector3d& d, const std::vector<Vector4d>& planes) {
  Entry e;
  double tNear = -kInf;
  double tFar = kInf;
  int entering = -1;
  for (std::size_t i = 0; i < planes.size(); ++i) {
    const Vector3d n = planes[i].head<3>();
    const double f0 = n.dot(o) - planes[i][3];
    const double slope = n.dot(d);
    if (slope == 0.0) {
      if (f0 > 0.0) return e;
      continue;
    }
    const double t = -f0 / slope;
    if (slope < 0.0) {
      if (t > tNear) {
        tNear = t;
        entering = static_cast<int>(i);
      }
    } else {
      tFar = std::min(tFar, t);
    }
  }
  if (entering < 0 || tNear > tFar || tNear < 0.0) return e;  // missed, or the origin is inside
  e.s = tNear;
  e.n = planes[static_cast<std::size_t>(entering)].head<3>();
  return e;
}

Entry rayShape(const Geometry& g, const Vector3d& o, const Vector3d& d, const std::vector<Vector4d>* planes) {
  switch (g.type) {
    case GeometryType::Box:
      return rayBox(o, d, 0.5 * g.size);
    case GeometryType::Sphere:
      return raySphere(o, d, g.radius);
    case GeometryType::Capsule:
      return rayCapsule(o, d, g.radius, 0.5 * g.length);
    case GeometryType::Cylinder:
      return rayCylinder(o, d, g.radius, 0.5 * g.length);
    case GeometryType::Ellipsoid:
      return rayEllipsoid(o, d, g.size);
    case GeometryType::Plane:
      return rayPlane(o, d);
    case GeometryType::TriangleMesh:
      return rayTriangles(o, d, g);
    case GeometryType::ConvexMesh:
      return planes != nullptr ? rayPlanes(o, d, *planes) : Entry{};
  }
  return {};
}

// Bounding sphere radius of a geometry about its frame origin (∞ for planes).
double boundingRadius(const Geometry& g) {
  switch (g.type) {
    case GeometryType::Box:
      return 0.5 * g.size.norm();
    case GeometryType::Sphere:
      return g.radius;
    case GeometryType::Capsule:
      return g.radius + 0.5 * g.length;
    case GeometryType::Cylinder:
      return std::hypot(g.radius, 0.5 * g.length);
    case GeometryType::Ellipsoid:
      return g.size.maxCoeff();
    case GeometryType::Plane:
      return kInf;
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh: {
      double r = 0.0;
      for (const Vector3d& v : g.vertices) r = std::max(r, v.norm());
      return r;
    }
  }
  return kInf;
}

}  // namespace

void WorldImpl::raycastShapes(const std::vector<SE3>& X_WB, const Vector3d& origin, const Vector3d& direction,
                              double maxDistance, int skipBody, bool all, std::vector<RaycastHit>& out) {
  const std::size_t first = out.size();
  const double len = direction.norm();
  const Vector3d u = direction / len;  // unit: s is a distance
  for (int k = 0; k < model.nshape; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    const int body = model.shape_body[kk];
    if (skipBody >= 0 && body == skipBody) continue;
    const ShapeRecord& rec = shapes[model.shape_slot[kk]];
    const SE3 X_WS = body < 0 ? model.shape_pose[kk] : X_WB[static_cast<std::size_t>(body)] * model.shape_pose[kk];
    // Cull by the bounding sphere.
    const double radius = boundingRadius(rec.geometry);
    if (std::isfinite(radius)) {
      const Vector3d c = X_WS.p - origin;
      const double along = c.dot(u);
      const double off2 = c.squaredNorm() - along * along;
      if (off2 > radius * radius || along < -radius || along - radius > maxDistance) continue;
    }
    const Vector3d o = X_WS.R.transpose() * (origin - X_WS.p);
    const Vector3d d = X_WS.R.transpose() * u;
    const std::vector<Vector4d>* planes = nullptr;
    if (rec.geometry.type == GeometryType::ConvexMesh) {
      if (hullCacheCompile != compileCount) {
        hullCache.assign(static_cast<std::size_t>(model.nshape), {});
        hullCacheDone.assign(static_cast<std::size_t>(model.nshape), 0);
        hullCacheCompile = compileCount;
      }
      if (hullCacheDone[kk] == 0) {
        hullCache[kk] = hullPlanes(rec.geometry);
        hullCacheDone[kk] = 1;
      }
      planes = &hullCache[kk];
    }
    const Entry e = rayShape(rec.geometry, o, d, planes);
    if (!(e.s < kInf) || e.s > maxDistance) continue;  // s = ∞: no entry
    RaycastHit hit;
    hit.shape = Access::shape(self, model.shape_slot[kk], rec.generation);
    const FrameRef f = bodyFrame(body);
    hit.body = Access::frame(self, f.kind, f.index, f.generation);
    hit.distance = e.s;
    hit.point = origin + e.s * u;
    hit.normal = X_WS.R * e.n;
    if (all) {
      out.push_back(hit);
    } else if (out.size() == first) {
      out.push_back(hit);
    } else if (hit.distance < out[first].distance) {
      out[first] = hit;
    }
  }
  if (all) {
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                     [](const RaycastHit& a, const RaycastHit& b) { return a.distance < b.distance; });
  }
}

}  // namespace detail

// ---- the facade --------------------------------------------------------------

namespace {

void checkRay(const Vector3d& direction, double maxDistance) {
  if (!direction.allFinite() || direction.norm() == 0.0) {
    throw InvalidArgument("raycast: the direction must be finite and non-zero");
  }
  if (std::isnan(maxDistance) || maxDistance < 0.0) {
    throw InvalidArgument("raycast: maxDistance must be ≥ 0 (got " + std::to_string(maxDistance) + ")");
  }
}

}  // namespace

std::optional<RaycastHit> World::raycast(const Vector3d& origin, const Vector3d& direction, double maxDistance) const {
  checkRay(direction, maxDistance);
  if (!origin.allFinite()) throw InvalidArgument("raycast: the origin must be finite");
  auto& w = *m_impl;
  w.ensurePositions();
  std::vector<RaycastHit> hits;
  w.raycastShapes(w.data.X_WB, origin, direction, maxDistance, -1, false, hits);
  if (hits.empty()) return std::nullopt;
  return hits.front();
}

std::vector<RaycastHit> World::raycastAll(const Vector3d& origin, const Vector3d& direction, double maxDistance) const {
  checkRay(direction, maxDistance);
  if (!origin.allFinite()) throw InvalidArgument("raycast: the origin must be finite");
  auto& w = *m_impl;
  w.ensurePositions();
  std::vector<RaycastHit> hits;
  w.raycastShapes(w.data.X_WB, origin, direction, maxDistance, -1, true, hits);
  return hits;
}

std::vector<Contact> World::checkCollisions(double margin) const {
  if (std::isnan(margin) || margin < 0.0) {
    throw InvalidArgument("checkCollisions: margin must be ≥ 0 (got " + std::to_string(margin) + ")");
  }
  auto& w = *m_impl;
  w.ensurePositions();
  std::vector<Contact> out;
  if (w.model.nshape == 0) return out;
  w.ensureCollision();
  if (!w.collision) return out;
  if (!w.queryCollision || w.queryCollisionBuild != w.collisionBuild) {
    w.queryCollision = w.makeCollisionDetector();
    w.queryCollisionBuild = w.collisionBuild;
  }
  // Forget the points of the previous query: this one is a first step.
  w.queryCollision->restore({});
  w.queryCollision->update(w.data.X_WB);
  std::vector<detail::ContactPoint> pts;
  w.queryCollision->detect(pts);
  for (const detail::ContactPoint& p : pts) {
    const auto sa = static_cast<std::size_t>(p.shapeA);
    const auto sb = static_cast<std::size_t>(p.shapeB);
    if (!w.model.shape_collidable[sa] || !w.model.shape_collidable[sb]) continue;
    if (p.distance > margin) continue;
    Contact c;
    const detail::FrameRef fa = w.bodyFrame(w.model.shape_body[sa]);
    const detail::FrameRef fb = w.bodyFrame(w.model.shape_body[sb]);
    c.frameA = detail::Access::frame(const_cast<World*>(this), fa.kind, fa.index, fa.generation);
    c.frameB = detail::Access::frame(const_cast<World*>(this), fb.kind, fb.index, fb.generation);
    c.shapeA = detail::Access::shape(const_cast<World*>(this), w.model.shape_slot[sa],
                                     w.shapes[w.model.shape_slot[sa]].generation);
    c.shapeB = detail::Access::shape(const_cast<World*>(this), w.model.shape_slot[sb],
                                     w.shapes[w.model.shape_slot[sb]].generation);
    c.point = 0.5 * (p.pointA + p.pointB);
    c.normal = p.normal;
    c.depth = -p.distance;
    out.push_back(c);
  }
  return out;
}

namespace {

struct ShapeAt {
  Shape handle;
  detail::Placed placed;
};

ShapeAt placeShape(detail::WorldImpl& w, const Shape& s) {
  auto& rec = w.shape(s.index(), s.generation());
  if (!rec.collision) throw InvalidArgument("computeDistance: '" + rec.name + "' is a visual shape");
  ShapeAt out;
  out.handle = s;
  out.placed.g = &rec.geometry;
  out.placed.X = detail::SE3::fromIsometry(s.getWorldTransform());
  return out;
}

DistanceResult fromPair(const detail::Pair& p, const Shape& a, const Shape& b) {
  DistanceResult r;
  r.distance = p.distance;
  r.pointA = p.pA;
  r.pointB = p.pB;
  r.normal = p.n;
  r.shapeA = a;
  r.shapeB = b;
  return r;
}

}  // namespace

DistanceResult World::computeDistance(const Shape& a, const Shape& b) const {
  auto& w = *m_impl;
  if (a.m_world != this || b.m_world != this) {
    throw TopologyError("computeDistance: the shape belongs to another World (or the handle is empty)");
  }
  const ShapeAt A = placeShape(w, a);
  const ShapeAt B = placeShape(w, b);
  if (A.placed.g->type == GeometryType::Plane && B.placed.g->type == GeometryType::Plane) {
    throw InvalidArgument("computeDistance: two planes have no distance");
  }
  return fromPair(detail::shapeDistance(A.placed, B.placed), a, b);
}

DistanceResult World::computeDistance(const Frame& a, const Frame& b) const {
  auto& w = *m_impl;
  w.checkFrame(a);
  w.checkFrame(b);
  const std::vector<Shape> sa = getCollisionShapes(a);
  const std::vector<Shape> sb = getCollisionShapes(b);
  auto name = [](const Frame& f) { return f.kind() == FrameKind::World ? std::string("world") : f.name(); };
  if (sa.empty()) throw InvalidArgument("computeDistance: '" + name(a) + "' has no collision shapes");
  if (sb.empty()) throw InvalidArgument("computeDistance: '" + name(b) + "' has no collision shapes");
  std::optional<DistanceResult> best;
  for (const Shape& x : sa) {
    for (const Shape& y : sb) {
      if (x.getGeometry().type == GeometryType::Plane && y.getGeometry().type == GeometryType::Plane) continue;
      const DistanceResult r = computeDistance(x, y);
      if (!best || r.distance < best->distance) best = r;
    }
  }
  if (!best) throw InvalidArgument("computeDistance: two planes have no distance");
  return *best;
}

Vector6d World::getContactWrench(const Frame& body) const {
  auto& w = *m_impl;
  w.checkFrame(body);
  if (body.kind() != FrameKind::Link && body.kind() != FrameKind::RigidBody) {
    throw InvalidArgument("getContactWrench: '" +
                          (body.kind() == FrameKind::World ? std::string("world") : body.name()) +
                          "' is not a link or rigid body");
  }
  w.ensureModel();
  const detail::Anchor a = w.anchorOf(w.refOf(body));
  if (!w.simulation || !w.stepRecord.valid || a.body < 0) return Vector6d::Zero();
  w.evaluateStep(false, false);
  return w.stepRecord.contactWrench[static_cast<std::size_t>(a.body)];
}

}  // namespace articula

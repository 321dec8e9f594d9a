// Bullet collision world (collision detection only). Bullet is built in
// single precision here: BT_USE_DOUBLE_PRECISION must stay undefined.
#include "collision.hpp"

#include "bullet_convert.hpp"
#include "bullet_ellipsoid.hpp"

#include <btBulletCollisionCommon.h>

#include <BulletCollision/CollisionShapes/btConvexHullShape.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace articula::detail {

namespace {

// Collision margin of the convex shapes whose margin lies inside the
// geometry (box, cylinder): small, so that edges stay nearly sharp.
btScalar innerMargin(double smallestHalfExtent) {
  return static_cast<btScalar>(std::min(0.0005, 0.05 * smallestHalfExtent));
}

class Filter : public btOverlapFilterCallback {
 public:
  explicit Filter(std::function<bool(int, int)> f) : m_f(std::move(f)) {}
  bool needBroadphaseCollision(btBroadphaseProxy* a, btBroadphaseProxy* b) const override {
    if ((a->m_collisionFilterGroup & b->m_collisionFilterMask) == 0) return false;
    if ((b->m_collisionFilterGroup & a->m_collisionFilterMask) == 0) return false;
    const auto* oa = static_cast<const btCollisionObject*>(a->m_clientObject);
    const auto* ob = static_cast<const btCollisionObject*>(b->m_clientObject);
    return m_f(oa->getUserIndex(), ob->getUserIndex());
  }

 private:
  std::function<bool(int, int)> m_f;
};

// The dispatcher, with the scratch array the near callback lists a pair's
// manifolds into (reserved up front: a step does not allocate).
struct Dispatcher : btCollisionDispatcher {
  explicit Dispatcher(btCollisionConfiguration* config) : btCollisionDispatcher(config) { manifolds.reserve(16); }
  btManifoldArray manifolds;
};

// A convex shape whose bounding box lies farther from a plane than the
// contact threshold cannot touch it, yet Bullet's convex–plane algorithm
// tries every perturbed orientation of the shape each step while the
// manifold holds fewer points than the multipoint threshold, which is
// always the case for a shape that does not touch. Such pairs, with an
// empty manifold, are not dispatched; every other pair is. The bound is
// conservative: Bullet's points are vertices of the shape at its pose
// (the perturbation only picks which vertex), and its bounding box holds
// them all.
bool emptyManifolds(const btBroadphasePair& pair, btManifoldArray& manifolds) {
  if (pair.m_algorithm == nullptr) return true;
  manifolds.resizeNoInitialize(0);
  pair.m_algorithm->getAllContactManifolds(manifolds);
  for (int k = 0; k < manifolds.size(); ++k)
    if (manifolds[k]->getNumContacts() > 0) return false;
  return true;
}

bool farFromPlane(const btCollisionObject& plane, const btBroadphaseProxy& other) {
  const auto* shape = static_cast<const btStaticPlaneShape*>(plane.getCollisionShape());
  const btTransform& X = plane.getWorldTransform();
  const btVector3 n = X.getBasis() * shape->getPlaneNormal();
  const btScalar c = n.dot(X.getOrigin()) + shape->getPlaneConstant();  // n·x = c on the plane (unit n)
  const btVector3 centre = btScalar(0.5) * (other.m_aabbMin + other.m_aabbMax);
  const btVector3 half = btScalar(0.5) * (other.m_aabbMax - other.m_aabbMin);
  const btScalar lowest =
      n.dot(centre) - (std::abs(n.x()) * half.x() + std::abs(n.y()) * half.y() + std::abs(n.z()) * half.z());
  const auto* otherObject = static_cast<const btCollisionObject*>(other.m_clientObject);
  const btScalar threshold =
      std::max(gContactBreakingThreshold,
               otherObject->getCollisionShape()->getContactBreakingThreshold(gContactBreakingThreshold));
  return lowest - c > threshold;
}

void nearCallback(btBroadphasePair& pair, btCollisionDispatcher& dispatcher, const btDispatcherInfo& info) {
  const auto* o0 = static_cast<const btCollisionObject*>(pair.m_pProxy0->m_clientObject);
  const auto* o1 = static_cast<const btCollisionObject*>(pair.m_pProxy1->m_clientObject);
  const bool plane0 = o0->getCollisionShape()->getShapeType() == STATIC_PLANE_PROXYTYPE;
  const bool plane1 = o1->getCollisionShape()->getShapeType() == STATIC_PLANE_PROXYTYPE;
  if (plane0 != plane1 && (plane0 ? o1 : o0)->getCollisionShape()->isConvex() &&
      farFromPlane(plane0 ? *o0 : *o1, plane0 ? *pair.m_pProxy1 : *pair.m_pProxy0) &&
      emptyManifolds(pair, static_cast<Dispatcher&>(dispatcher).manifolds)) {
    return;
  }
  btCollisionDispatcher::defaultNearCallback(pair, dispatcher, info);
}

}  // namespace

struct CollisionDetector::Impl {
  btDefaultCollisionConfiguration config;
  Dispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btCollisionWorld world{&dispatcher, &broadphase, &config};
  std::unique_ptr<Filter> filter;
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btTriangleMesh>> meshes;
  std::vector<std::unique_ptr<btCollisionObject>> objects;
  std::vector<int> body;                       // per shape
  std::vector<SE3> pose;                       // per shape
  std::vector<int> moving;                     // indices of shapes on bodies
  std::vector<btPersistentManifold*> ordered;  // scratch of orderedManifolds
};

namespace {

std::unique_ptr<btCollisionShape> makeShape(const Geometry& g, std::vector<std::unique_ptr<btTriangleMesh>>& meshes) {
  switch (g.type) {
    case GeometryType::Box: {
      auto s = std::make_unique<btBoxShape>(toBt(0.5 * g.size));
      s->setMargin(innerMargin(0.5 * g.size.minCoeff()));  // keeps the outer extents
      return s;
    }
    case GeometryType::Sphere:
      return std::make_unique<btSphereShape>(static_cast<btScalar>(g.radius));
    case GeometryType::Capsule:
      return std::make_unique<btCapsuleShapeZ>(static_cast<btScalar>(g.radius), static_cast<btScalar>(g.length));
    case GeometryType::Cylinder: {
      auto s = std::make_unique<btCylinderShapeZ>(toBt(Vector3d(g.radius, g.radius, 0.5 * g.length)));
      s->setMargin(innerMargin(std::min(g.radius, 0.5 * g.length)));
      return s;
    }
    case GeometryType::Ellipsoid:
      return std::make_unique<EllipsoidShape>(toBt(g.size), innerMargin(g.size.minCoeff()));
    case GeometryType::Plane:
      return std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), btScalar(0));
    case GeometryType::ConvexMesh: {
      auto s = std::make_unique<btConvexHullShape>();
      for (const auto& v : g.vertices) s->addPoint(toBt(v), false);
      s->recalcLocalAabb();
      s->optimizeConvexHull();
      s->initializePolyhedralFeatures();
      s->setMargin(btScalar(0.0005));
      return s;
    }
    case GeometryType::TriangleMesh: {
      auto mesh = std::make_unique<btTriangleMesh>();
      for (const auto& t : g.triangles) {
        const auto& a = g.vertices[static_cast<std::size_t>(t[0])];
        const auto& b = g.vertices[static_cast<std::size_t>(t[1])];
        const auto& c = g.vertices[static_cast<std::size_t>(t[2])];
        mesh->addTriangle(toBt(a), toBt(b), toBt(c), false);
      }
      auto s = std::make_unique<btBvhTriangleMeshShape>(mesh.get(), true);
      meshes.push_back(std::move(mesh));
      return s;
    }
  }
  return nullptr;
}

}  // namespace

CollisionDetector::CollisionDetector(const std::vector<ShapeInput>& shapes, std::function<bool(int, int)> mayCollide)
    : m_impl(std::make_unique<Impl>()) {
  auto& I = *m_impl;
  // Complete manifolds at once for convex–plane and convex–convex pairs
  // (boxes on a plane get their four corners in the first step).
  I.config.setPlaneConvexMultipointIterations(8, 4);
  I.config.setConvexConvexMultipointIterations(8, 4);
  I.dispatcher.setNearCallback(&nearCallback);
  I.filter = std::make_unique<Filter>(std::move(mayCollide));
  I.world.getPairCache()->setOverlapFilterCallback(I.filter.get());
  I.world.setForceUpdateAllAabbs(false);
  // Moving shapes are added at their pose in their body, not yet in the
  // world, so they would all overlap near the origin: pairs are found at the
  // first detection instead of at insertion (which would make O(n²) pairs).
  I.broadphase.m_deferedcollide = true;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& in = shapes[i];
    auto shape = makeShape(*in.geometry, I.meshes);
    auto obj = std::make_unique<btCollisionObject>();
    obj->setCollisionShape(shape.get());
    obj->setUserIndex(static_cast<int>(i));
    const bool isStatic = in.body < 0;
    obj->setWorldTransform(toBt(in.pose));
    if (isStatic) {
      obj->setCollisionFlags(obj->getCollisionFlags() | btCollisionObject::CF_STATIC_OBJECT);
      obj->setActivationState(ISLAND_SLEEPING);
      I.world.addCollisionObject(obj.get(), btBroadphaseProxy::StaticFilter,
                                 btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
    } else {
      obj->setActivationState(DISABLE_DEACTIVATION);
      I.world.addCollisionObject(obj.get(), btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
      I.moving.push_back(static_cast<int>(i));
    }
    I.body.push_back(in.body);
    I.pose.push_back(in.pose);
    I.shapes.push_back(std::move(shape));
    I.objects.push_back(std::move(obj));
  }
}

CollisionDetector::~CollisionDetector() {
  auto& I = *m_impl;
  for (auto& o : I.objects) I.world.removeCollisionObject(o.get());
}

void CollisionDetector::update(const std::vector<SE3>& X_WB) {
  auto& I = *m_impl;
  for (const int i : I.moving) {
    const auto s = static_cast<std::size_t>(i);
    I.objects[s]->setWorldTransform(toBt(X_WB[static_cast<std::size_t>(I.body[s])] * I.pose[s]));
  }
}

namespace {

// Manifolds in the order of their shape indices.
void orderedManifolds(btCollisionDispatcher& dispatcher, std::vector<btPersistentManifold*>& out) {
  out.clear();
  const int nm = dispatcher.getNumManifolds();
  for (int k = 0; k < nm; ++k) out.push_back(dispatcher.getManifoldByIndexInternal(k));
  std::sort(out.begin(), out.end(), [](const btPersistentManifold* a, const btPersistentManifold* b) {
    const int a0 = a->getBody0()->getUserIndex();
    const int b0 = b->getBody0()->getUserIndex();
    return a0 != b0 ? a0 < b0 : a->getBody1()->getUserIndex() < b->getBody1()->getUserIndex();
  });
}

}  // namespace

namespace {

// A persistent point as contact generation and warm starting read it in the
// next step: local points (cache matching, refresh), world points, normal
// and distance (refresh, choosing which point to drop from a full
// manifold, the contact list), the warm-start impulses and the age. Every
// other field is set afresh whenever Bullet adds or replaces a point.
struct CompactPoint {
  float localA[3], localB[3], worldA[3], worldB[3], normal[3];
  float distance, impulse, lateral1, lateral2;
  std::int32_t lifeTime;
};
static_assert(sizeof(CompactPoint) == 80, "compact manifold points are 80 bytes");
static_assert(std::is_same_v<btScalar, float>, "compact manifold points hold single-precision Bullet values");

void put3(float* out, const btVector3& v) {
  out[0] = v.x();
  out[1] = v.y();
  out[2] = v.z();
}
btVector3 get3(const float* in) {
  return {in[0], in[1], in[2]};
}

}  // namespace

std::size_t manifoldPointSize() {
  return sizeof(CompactPoint);
}

void CollisionDetector::capture(std::vector<unsigned char>& out) const {
  auto& I = *m_impl;
  orderedManifolds(I.dispatcher, I.ordered);
  const auto append = [&out](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    out.insert(out.end(), b, b + n);
  };
  const std::size_t countAt = out.size();
  std::uint32_t count = 0;
  const std::uint32_t zero = 0;
  append(&count, 4);
  append(&zero, 4);
  for (const btPersistentManifold* man : I.ordered) {
    const std::int32_t np = man->getNumContacts();
    if (np == 0) continue;
    ++count;
    const std::int32_t header[4] = {man->getBody0()->getUserIndex(), man->getBody1()->getUserIndex(), np, 0};
    append(header, sizeof header);
    for (int j = 0; j < np; ++j) {
      const btManifoldPoint& pt = man->getContactPoint(j);
      CompactPoint c{};
      put3(c.localA, pt.m_localPointA);
      put3(c.localB, pt.m_localPointB);
      put3(c.worldA, pt.m_positionWorldOnA);
      put3(c.worldB, pt.m_positionWorldOnB);
      put3(c.normal, pt.m_normalWorldOnB);
      c.distance = pt.m_distance1;
      c.impulse = pt.m_appliedImpulse;
      c.lateral1 = pt.m_appliedImpulseLateral1;
      c.lateral2 = pt.m_appliedImpulseLateral2;
      c.lifeTime = pt.m_lifeTime;
      append(&c, sizeof c);
    }
  }
  std::memcpy(out.data() + countAt, &count, 4);
}

void CollisionDetector::restore(const std::vector<ManifoldState>& in) {
  auto& I = *m_impl;
  // Every pair close enough to touch gets its collision algorithm and
  // manifold (a pair that held points was within the contact threshold, so
  // its boxes overlap now too); then every manifold is emptied and refilled.
  I.world.performDiscreteCollisionDetection();
  orderedManifolds(I.dispatcher, I.ordered);
  for (btPersistentManifold* man : I.ordered) man->clearManifold();
  std::size_t next = 0;
  for (btPersistentManifold* man : I.ordered) {
    const int s0 = man->getBody0()->getUserIndex();
    const int s1 = man->getBody1()->getUserIndex();
    while (next < in.size() && (in[next].shape0 < s0 || (in[next].shape0 == s0 && in[next].shape1 < s1))) ++next;
    if (next == in.size() || in[next].shape0 != s0 || in[next].shape1 != s1) continue;
    const ManifoldState& st = in[next];
    for (int j = 0; j < st.numPoints; ++j) {
      CompactPoint c;
      std::memcpy(&c, st.points.data() + static_cast<std::size_t>(j) * sizeof(CompactPoint), sizeof c);
      btManifoldPoint pt(get3(c.localA), get3(c.localB), get3(c.normal), c.distance);
      pt.m_positionWorldOnA = get3(c.worldA);
      pt.m_positionWorldOnB = get3(c.worldB);
      pt.m_appliedImpulse = c.impulse;
      pt.m_appliedImpulseLateral1 = c.lateral1;
      pt.m_appliedImpulseLateral2 = c.lateral2;
      pt.m_lifeTime = c.lifeTime;
      man->addManifoldPoint(pt);
    }
  }
}

void CollisionDetector::detect(std::vector<ContactPoint>& out) {
  auto& I = *m_impl;
  out.clear();
  I.world.performDiscreteCollisionDetection();
  orderedManifolds(I.dispatcher, I.ordered);
  for (btPersistentManifold* man : I.ordered) {
    const int np = man->getNumContacts();
    if (np == 0) continue;
    const int a = man->getBody0()->getUserIndex();
    const int b = man->getBody1()->getUserIndex();
    for (int j = 0; j < np; ++j) {
      btManifoldPoint& pt = man->getContactPoint(j);
      ContactPoint c;
      c.shapeA = a;
      c.shapeB = b;
      c.pointA = fromBt(pt.getPositionWorldOnA());
      c.pointB = fromBt(pt.getPositionWorldOnB());
      c.normal = fromBt(pt.m_normalWorldOnB).normalized();
      c.distance = static_cast<double>(pt.getDistance());
      c.age = std::max(0, pt.getLifeTime() - 1);  // Bullet counts the current step
      c.cache = &pt;
      out.push_back(c);
    }
  }
}

void CollisionDetector::loadImpulse(const void* cache, double& normal, double& t1, double& t2) {
  const auto* pt = static_cast<const btManifoldPoint*>(cache);
  normal = static_cast<double>(pt->m_appliedImpulse);
  t1 = static_cast<double>(pt->m_appliedImpulseLateral1);
  t2 = static_cast<double>(pt->m_appliedImpulseLateral2);
}

void CollisionDetector::storeImpulse(void* cache, double normal, double t1, double t2) {
  auto* pt = static_cast<btManifoldPoint*>(cache);
  pt->m_appliedImpulse = static_cast<btScalar>(normal);
  pt->m_appliedImpulseLateral1 = static_cast<btScalar>(t1);
  pt->m_appliedImpulseLateral2 = static_cast<btScalar>(t2);
}

}  // namespace articula::detail

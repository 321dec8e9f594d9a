#pragma once
// Contact generation: a Bullet collision world used only to find contacts
// (dynamic AABB-tree broadphase, persistent manifolds). Bullet types stay
// in collision.cpp; this header is plain Eigen.
//
// The collision objects are created once per compiled model; each step
// only pushes the world transforms of moving shapes.

#include <articula/shape.hpp>

#include "spatial.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace articula::detail {

struct ContactPoint {
  int shapeA = -1;  // compiled shape indices
  int shapeB = -1;
  Vector3d pointA = Vector3d::Zero();   // on A's surface, world
  Vector3d pointB = Vector3d::Zero();   // on B's surface, world
  Vector3d normal = Vector3d::UnitZ();  // unit, from B towards A, world
  double distance = 0.0;                // signed; < 0 penetration
  int age = 0;                          // steps the point persisted
  void* cache = nullptr;                // persistent point (warm-start storage)
};

// The persistent points of one contact manifold, in the compact form of
// capture(): what contact generation and warm starting carry from one step
// to the next.
struct ManifoldState {
  int shape0 = -1;  // compiled shape indices, in the manifold's order
  int shape1 = -1;
  int numPoints = 0;
  std::vector<unsigned char> points;
};

// Bytes of one captured manifold point.
std::size_t manifoldPointSize();

class CollisionDetector {
 public:
  struct ShapeInput {
    int body = -1;  // −1: static
    SE3 pose;       // in the body frame (world frame when static)
    const Geometry* geometry = nullptr;
  };
  // `mayCollide(shapeI, shapeJ)` is asked once when two shapes' boxes start
  // to overlap; it must not change while the detector lives.
  CollisionDetector(const std::vector<ShapeInput>& shapes, std::function<bool(int, int)> mayCollide);
  ~CollisionDetector();
  CollisionDetector(const CollisionDetector&) = delete;
  CollisionDetector& operator=(const CollisionDetector&) = delete;

  // Pushes the transforms of moving shapes (X_WB per body).
  void update(const std::vector<SE3>& X_WB);
  // Broadphase + narrowphase; appends every manifold point to `out` (cleared
  // first), manifolds ordered by their shape indices so that the order does
  // not depend on the order in which pairs were found.
  void detect(std::vector<ContactPoint>& out);

  // Appends the manifolds that hold points, ordered by shape indices:
  // u32 count, u32 0, then per manifold i32 shape0, i32 shape1, i32 points,
  // i32 0 and the points (manifoldPointSize() bytes each).
  void capture(std::vector<unsigned char>& out) const;
  // Replaces every manifold's points by the captured ones, for the poses last
  // pushed with update() (which must be the captured poses).
  void restore(const std::vector<ManifoldState>& in);

  // Warm-start storage inside a persistent point: the normal impulse and
  // the friction impulse along the contact's two tangent directions.
  static void loadImpulse(const void* cache, double& normal, double& t1, double& t2);
  static void storeImpulse(void* cache, double normal, double t1, double t2);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace articula::detail

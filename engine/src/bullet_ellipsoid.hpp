#pragma once
// A solid ellipsoid as a Bullet convex shape, with its exact support point.
// Bullet has no ellipsoid; a unit btMultiSphereShape scaled by the
// semi-axes, the usual stand-in, returns S·d̂ (S = diag(a, b, c)) as its
// support in direction d, which is not the ellipsoid's (S²d/|Sd|) unless d
// is along an axis: its contacts with a plane were off by millimetres, and
// overlaps of a few millimetres went unreported. Only collision.cpp and
// query.cpp include this (Bullet types stay out of the engine's headers).

#include <BulletCollision/CollisionShapes/btConvexInternalShape.h>

namespace articula::detail {

class EllipsoidShape : public btConvexInternalShape {
 public:
  // `margin` ≥ 0 lies inside the surface: the support with margin is the
  // ellipsoid's own. It is clamped so that the inner body stays convex.
  EllipsoidShape(const btVector3& semiAxes, btScalar margin);

  btVector3 localGetSupportingVertex(const btVector3& direction) const override;
  btVector3 localGetSupportingVertexWithoutMargin(const btVector3& direction) const override;
  void batchedUnitVectorGetSupportingVertexWithoutMargin(const btVector3* directions, btVector3* out,
                                                         int count) const override;
  void getAabb(const btTransform& t, btVector3& aabbMin, btVector3& aabbMax) const override;
  void calculateLocalInertia(btScalar mass, btVector3& inertia) const override;
  void setMargin(btScalar margin) override;
  const char* getName() const override { return "Ellipsoid"; }

  const btVector3& semiAxes() const { return m_axes; }

 private:
  btVector3 m_axes;
};

}  // namespace articula::detail

#include "bullet_ellipsoid.hpp"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>

#include <algorithm>
#include <cmath>

namespace articula::detail {

namespace {

// d scaled so that its largest component is ±1 (the support does not
// depend on |d|, and GJK asks with directions as short as the distance it
// has left, far below any absolute epsilon), or zero when d has no
// direction (zero or not finite).
btVector3 unitMaxNorm(const btVector3& d) {
  const btScalar m = std::max({std::abs(d.x()), std::abs(d.y()), std::abs(d.z())});
  if (!(m > 0) || !std::isfinite(m)) return {0, 0, 0};
  return d / m;
}

// The point of the ellipsoid farthest along d: S²d/|Sd|.
btVector3 ellipsoidSupport(const btVector3& axes, const btVector3& d) {
  const btVector3 sd = axes * unitMaxNorm(d);
  const btScalar n = sd.length();
  if (n == 0) return {axes.x(), 0, 0};
  return axes * sd / n;
}

}  // namespace

EllipsoidShape::EllipsoidShape(const btVector3& semiAxes, btScalar margin) : m_axes(semiAxes) {
  m_shapeType = CUSTOM_CONVEX_SHAPE_TYPE;
  m_implicitShapeDimensions = semiAxes;
  setMargin(margin);
}

void EllipsoidShape::setMargin(btScalar margin) {
  // The inner body (the ellipsoid moved in by the margin along its normals)
  // is convex while the margin stays below the smallest radius of
  // curvature, a_min² / a_max.
  const btScalar lo = m_axes[m_axes.minAxis()];
  const btScalar hi = m_axes[m_axes.maxAxis()];
  m_collisionMargin = std::max(btScalar(0), std::min(margin, btScalar(0.5) * lo * lo / hi));
}

btVector3 EllipsoidShape::localGetSupportingVertex(const btVector3& direction) const {
  return ellipsoidSupport(m_axes, direction);
}

btVector3 EllipsoidShape::localGetSupportingVertexWithoutMargin(const btVector3& direction) const {
  const btVector3 s = ellipsoidSupport(m_axes, direction);
  const btVector3 d = unitMaxNorm(direction);
  if (m_collisionMargin == 0 || d.isZero()) return s;
  return s - (m_collisionMargin / d.length()) * d;
}

void EllipsoidShape::batchedUnitVectorGetSupportingVertexWithoutMargin(const btVector3* directions, btVector3* out,
                                                                       int count) const {
  for (int i = 0; i < count; ++i) out[i] = localGetSupportingVertexWithoutMargin(directions[i]);
}

void EllipsoidShape::getAabb(const btTransform& t, btVector3& aabbMin, btVector3& aabbMax) const {
  // Half extent along world axis i: |row i of R·S|.
  const btMatrix3x3& R = t.getBasis();
  btVector3 half;
  for (int i = 0; i < 3; ++i) half[i] = (R[i] * m_axes).length();
  aabbMin = t.getOrigin() - half;
  aabbMax = t.getOrigin() + half;
}

void EllipsoidShape::calculateLocalInertia(btScalar mass, btVector3& inertia) const {
  const btVector3 a2 = m_axes * m_axes;
  inertia = btScalar(0.2) * mass * btVector3(a2.y() + a2.z(), a2.x() + a2.z(), a2.x() + a2.y());
}

}  // namespace articula::detail

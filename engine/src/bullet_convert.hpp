#pragma once
// Conversions between the engine's double-precision types and Bullet's
// (single precision here). Bullet types stay in the .cpp files that talk to
// Bullet (collision.cpp, query.cpp).

#include "spatial.hpp"

#include <btBulletCollisionCommon.h>

#ifdef BT_USE_DOUBLE_PRECISION
#error "Articula links the single-precision Bullet libraries; do not define BT_USE_DOUBLE_PRECISION"
#endif

namespace articula::detail {

inline btVector3 toBt(const Vector3d& v) {
  return {static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()), static_cast<btScalar>(v.z())};
}

inline Vector3d fromBt(const btVector3& v) {
  return {static_cast<double>(v.x()), static_cast<double>(v.y()), static_cast<double>(v.z())};
}

inline btTransform toBt(const SE3& X) {
  btMatrix3x3 R;
  R.setValue(static_cast<btScalar>(X.R(0, 0)), static_cast<btScalar>(X.R(0, 1)), static_cast<btScalar>(X.R(0, 2)),
             static_cast<btScalar>(X.R(1, 0)), static_cast<btScalar>(X.R(1, 1)), static_cast<btScalar>(X.R(1, 2)),
             static_cast<btScalar>(X.R(2, 0)), static_cast<btScalar>(X.R(2, 1)), static_cast<btScalar>(X.R(2, 2)));
  return btTransform(R, toBt(X.p));
}

}  // namespace articula::detail

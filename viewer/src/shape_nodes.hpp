#pragma once
// OpenSceneGraph drawables of engine geometries, and conversions.

#include <articula/shape.hpp>
#include <articula/types.hpp>

#include <osg/Matrixd>
#include <osg/Node>
#include <osg/StateSet>
#include <osg/Vec3>
#include <osg/Vec4>
#include <osg/ref_ptr>

namespace articula::viewer::detail {

inline osg::Vec3 toOsg(const Vector3d& v) {
  return osg::Vec3(static_cast<float>(v.x()), static_cast<float>(v.y()), static_cast<float>(v.z()));
}
inline osg::Vec4 toOsg(const Vector4d& v) {
  return osg::Vec4(static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]),
                   static_cast<float>(v[3]));
}
/// OpenSceneGraph matrices are row-vector (transposed) 4×4.
osg::Matrixd toOsg(const Isometry3d& X);

/// A node drawing `geometry` in its shape frame: lit, with a material of
/// `color` (blended when alpha < 1). Planes are drawn as a square of side
/// `planeExtent` (m). Convex meshes are drawn as their hull. With
/// `partColors`, a triangle mesh's coloured parts are drawn in their own
/// colours (visuals); without, the whole mesh is `color` (collision view).
osg::ref_ptr<osg::Node> createShapeNode(const Geometry& geometry, const Vector4d& color, double planeExtent,
                                        bool partColors = true);

/// A lit material of `color` on `stateSet` (blended, in the transparent bin, when alpha < 1).
void applyMaterial(osg::StateSet& stateSet, const Vector4d& color);

}  // namespace articula::viewer::detail

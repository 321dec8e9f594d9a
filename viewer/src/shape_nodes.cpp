#include "shape_nodes.hpp"

#include <osg/BlendFunc>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osg/ShapeDrawable>
#include <osgUtil/SmoothingVisitor>

#include <LinearMath/btConvexHullComputer.h>

#include <cmath>
#include <vector>

namespace articula::viewer::detail {

namespace {

constexpr float kCreaseAngle = 0.6f;  // rad: edges sharper than ~35° stay sharp

// Round shapes at detail ratio 0.5: about 20 segments around, a few
// hundred triangles (ratio 1.5 gave 3600 per sphere, and software OpenGL
// drew 1000 spheres at 2 frames per second).
constexpr float kRoundDetail = 0.5f;

osg::ref_ptr<osg::Geode> shapeGeode(osg::Shape* shape, float detail) {
  osg::ref_ptr<osg::TessellationHints> hints = new osg::TessellationHints;
  hints->setDetailRatio(detail);
  osg::ref_ptr<osg::ShapeDrawable> drawable = new osg::ShapeDrawable(shape, hints.get());
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(drawable.get());
  return geode;
}

// Triangles [first, end) with smooth normals except across sharp edges.
// The whole mesh keeps its vertex array; a part of it takes only the
// vertices its triangles use, so that a mesh of many parts is not copied
// once per part.
osg::ref_ptr<osg::Geometry> meshDrawable(const std::vector<Vector3d>& vertices,
                                         const std::vector<std::array<int, 3>>& triangles, std::size_t first,
                                         std::size_t end) {
  osg::ref_ptr<osg::Geometry> geometry = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  osg::ref_ptr<osg::DrawElementsUInt> indices = new osg::DrawElementsUInt(GL_TRIANGLES);
  indices->reserve(3 * (end - first));
  if (first == 0 && end == triangles.size()) {
    v->reserve(vertices.size());
    for (const Vector3d& p : vertices) v->push_back(toOsg(p));
    for (std::size_t t = first; t < end; ++t) {
      for (int k : triangles[t]) indices->push_back(static_cast<unsigned>(k));
    }
  } else {
    std::vector<unsigned> index(vertices.size(), ~0u);
    for (std::size_t t = first; t < end; ++t) {
      for (int k : triangles[t]) {
        unsigned& i = index[static_cast<std::size_t>(k)];
        if (i == ~0u) {
          i = static_cast<unsigned>(v->size());
          v->push_back(toOsg(vertices[static_cast<std::size_t>(k)]));
        }
        indices->push_back(i);
      }
    }
  }
  geometry->setVertexArray(v.get());
  geometry->addPrimitiveSet(indices.get());
  geometry->setUseVertexBufferObjects(true);
  osgUtil::SmoothingVisitor::smooth(*geometry, kCreaseAngle);
  return geometry;
}

osg::ref_ptr<osg::Geode> meshGeode(const std::vector<Vector3d>& vertices,
                                   const std::vector<std::array<int, 3>>& triangles) {
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(meshDrawable(vertices, triangles, 0, triangles.size()).get());
  return geode;
}

// One drawable per coloured part, each with its own material, and one for
// the triangles between parts, which take the node's (the shape's) colour.
osg::ref_ptr<osg::Geode> partsGeode(const Geometry& g) {
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  std::vector<std::array<int, 3>> rest;
  std::size_t next = 0;
  const auto restUpTo = [&](std::size_t end) {
    for (; next < end; ++next) rest.push_back(g.triangles[next]);
  };
  for (const MeshPart& part : g.parts) {
    const auto first = static_cast<std::size_t>(part.firstTriangle);
    const std::size_t end = first + static_cast<std::size_t>(part.triangleCount);
    restUpTo(first);
    osg::ref_ptr<osg::Geometry> drawable = meshDrawable(g.vertices, g.triangles, first, end);
    applyMaterial(*drawable->getOrCreateStateSet(), part.color);
    geode->addDrawable(drawable.get());
    next = end;
  }
  restUpTo(g.triangles.size());
  if (!rest.empty()) geode->addDrawable(meshDrawable(g.vertices, rest, 0, rest.size()).get());
  return geode;
}

// Faces of the convex hull of `points` (Bullet's hull computer).
std::vector<std::array<int, 3>> hullTriangles(const std::vector<Vector3d>& points,
                                              std::vector<Vector3d>& hullVertices) {
  std::vector<double> coords;
  coords.reserve(3 * points.size());
  for (const Vector3d& p : points) coords.insert(coords.end(), {p.x(), p.y(), p.z()});
  btConvexHullComputer hull;
  hull.compute(coords.data(), static_cast<int>(3 * sizeof(double)), static_cast<int>(points.size()), 0, 0);
  hullVertices.clear();
  for (int i = 0; i < hull.vertices.size(); ++i) {
    const btVector3& p = hull.vertices[i];
    hullVertices.emplace_back(static_cast<double>(p.x()), static_cast<double>(p.y()), static_cast<double>(p.z()));
  }
  std::vector<std::array<int, 3>> triangles;
  for (int f = 0; f < hull.faces.size(); ++f) {
    const btConvexHullComputer::Edge* first = &hull.edges[hull.faces[f]];
    std::vector<int> face;
    const btConvexHullComputer::Edge* e = first;
    do {
      face.push_back(e->getTargetVertex());
      e = e->getNextEdgeOfFace();
    } while (e != first && face.size() <= static_cast<std::size_t>(hull.vertices.size()));
    for (std::size_t k = 1; k + 1 < face.size(); ++k) triangles.push_back({face[0], face[k], face[k + 1]});
  }
  return triangles;
}

}  // namespace

osg::Matrixd toOsg(const Isometry3d& X) {
  const Eigen::Matrix4d& m = X.matrix();
  return osg::Matrixd(m(0, 0), m(1, 0), m(2, 0), m(3, 0), m(0, 1), m(1, 1), m(2, 1), m(3, 1), m(0, 2), m(1, 2), m(2, 2),
                      m(3, 2), m(0, 3), m(1, 3), m(2, 3), m(3, 3));
}

void applyMaterial(osg::StateSet& stateSet, const Vector4d& color) {
  osg::ref_ptr<osg::Material> material = new osg::Material;
  const osg::Vec4 c = toOsg(color);
  material->setDiffuse(osg::Material::FRONT_AND_BACK, c);
  material->setAmbient(osg::Material::FRONT_AND_BACK, osg::Vec4(c.r() * 0.45f, c.g() * 0.45f, c.b() * 0.45f, c.a()));
  material->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.15f, 0.15f, 0.15f, c.a()));
  material->setShininess(osg::Material::FRONT_AND_BACK, 24.0f);
  stateSet.setAttributeAndModes(material.get(), osg::StateAttribute::ON);
  if (color[3] < 1.0) {
    stateSet.setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA), osg::StateAttribute::ON);
    stateSet.setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  } else {
    stateSet.setMode(GL_BLEND, osg::StateAttribute::OFF);
    stateSet.setRenderingHint(osg::StateSet::OPAQUE_BIN);
  }
}

osg::ref_ptr<osg::Node> createShapeNode(const Geometry& g, const Vector4d& color, double planeExtent, bool partColors) {
  osg::ref_ptr<osg::Node> node;
  switch (g.type) {
    case GeometryType::Box:
      node = shapeGeode(new osg::Box(osg::Vec3(), static_cast<float>(g.size.x()), static_cast<float>(g.size.y()),
                                     static_cast<float>(g.size.z())),
                        1.0f);
      break;
    case GeometryType::Sphere:
      node = shapeGeode(new osg::Sphere(osg::Vec3(), static_cast<float>(g.radius)), kRoundDetail);
      break;
    case GeometryType::Capsule:
      node = shapeGeode(new osg::Capsule(osg::Vec3(), static_cast<float>(g.radius), static_cast<float>(g.length)),
                        kRoundDetail);
      break;
    case GeometryType::Cylinder:
      node = shapeGeode(new osg::Cylinder(osg::Vec3(), static_cast<float>(g.radius), static_cast<float>(g.length)),
                        kRoundDetail);
      break;
    case GeometryType::Ellipsoid: {
      // A unit sphere scaled to the semi-axes; normals renormalized.
      osg::ref_ptr<osg::MatrixTransform> scale =
          new osg::MatrixTransform(osg::Matrixd::scale(g.size.x(), g.size.y(), g.size.z()));
      scale->addChild(shapeGeode(new osg::Sphere(osg::Vec3(), 1.0f), kRoundDetail).get());
      scale->getOrCreateStateSet()->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
      node = scale;
      break;
    }
    case GeometryType::Plane: {
      const auto h = static_cast<float>(0.5 * planeExtent);
      osg::ref_ptr<osg::Geometry> quad = new osg::Geometry;
      osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
      v->push_back(osg::Vec3(-h, -h, 0));
      v->push_back(osg::Vec3(h, -h, 0));
      v->push_back(osg::Vec3(h, h, 0));
      v->push_back(osg::Vec3(-h, h, 0));
      osg::ref_ptr<osg::Vec3Array> n = new osg::Vec3Array;
      n->push_back(osg::Vec3(0, 0, 1));
      quad->setVertexArray(v.get());
      quad->setNormalArray(n.get(), osg::Array::BIND_OVERALL);
      quad->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
      osg::ref_ptr<osg::Geode> geode = new osg::Geode;
      geode->addDrawable(quad.get());
      node = geode;
      break;
    }
    case GeometryType::ConvexMesh: {
      std::vector<Vector3d> hullVertices;
      const std::vector<std::array<int, 3>> triangles = hullTriangles(g.vertices, hullVertices);
      node = meshGeode(hullVertices, triangles);
      break;
    }
    case GeometryType::TriangleMesh:
      node = partColors && !g.parts.empty() ? partsGeode(g) : meshGeode(g.vertices, g.triangles);
      break;
  }
  applyMaterial(*node->getOrCreateStateSet(), color);
  return node;
}

}  // namespace articula::viewer::detail

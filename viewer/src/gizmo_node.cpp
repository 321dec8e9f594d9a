#include "gizmo_node.hpp"

#include <osg/Array>
#include <osg/Geometry>
#include <osg/LineWidth>
#include <osg/PrimitiveSet>
#include <osg/StateSet>
#include <osg/Switch>
#include <osg/observer_ptr>

#include <array>
#include <cmath>
#include <string>

namespace articula::viewer {

namespace {

constexpr float kPiF = 3.14159265f;

// Handle shapes, in units of the gizmo size.
constexpr float kShaftLength = 0.8f;  ///< arrow shaft from the origin; the head's cone covers the rest
constexpr float kHeadRadius = 0.06f;
constexpr int kHeadSegments = 16;
constexpr int kRingSegments = 96;
constexpr float kLineWidth = 3.0f;

const std::array<osg::Vec4, 3> kAxisColours = {osg::Vec4(0.9f, 0.15f, 0.15f, 1.0f), osg::Vec4(0.2f, 0.8f, 0.2f, 1.0f),
                                               osg::Vec4(0.2f, 0.35f, 1.0f, 1.0f)};
const osg::Vec4 kHighlightColour(1.0f, 0.9f, 0.1f, 1.0f);
constexpr std::array<const char*, 3> kAxisNames = {"x", "y", "z"};

/// Switch children, in GizmoMode order.
constexpr unsigned kTranslateChild = 0;
constexpr unsigned kRotateChild = 1;

/// The handle geometries of a gizmo node, kept as its user data so that
/// updates need not search the subgraph.
struct GizmoParts : public osg::Referenced {
  osg::observer_ptr<osg::Switch> modes;
  std::array<osg::observer_ptr<osg::Geometry>, 3> arrows;
  std::array<osg::observer_ptr<osg::Geometry>, 3> rings;
};

/// Unit axis i and two unit vectors completing a right-handed basis.
void axisBasis(int i, osg::Vec3& axis, osg::Vec3& u, osg::Vec3& v) {
  const std::array<osg::Vec3, 3> e = {osg::Vec3(1.0f, 0.0f, 0.0f), osg::Vec3(0.0f, 1.0f, 0.0f),
                                      osg::Vec3(0.0f, 0.0f, 1.0f)};
  axis = e[static_cast<std::size_t>(i)];
  u = e[static_cast<std::size_t>((i + 1) % 3)];
  v = e[static_cast<std::size_t>((i + 2) % 3)];
}

osg::ref_ptr<osg::Geometry> newGeometry(const std::string& name, const osg::Vec4& colour) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setName(name);
  // The colour changes on hover, so the geometry is not compiled into a
  // display list and is updated in step with drawing.
  g->setDataVariance(osg::Object::DYNAMIC);
  g->setUseDisplayList(false);
  g->setUseVertexBufferObjects(true);
  osg::ref_ptr<osg::Vec4Array> colours = new osg::Vec4Array(1);
  (*colours)[0] = colour;
  g->setColorArray(colours.get(), osg::Array::BIND_OVERALL);
  return g;
}

/// An arrow along axis i from the origin to 1: a line shaft and a cone head.
osg::ref_ptr<osg::Geometry> makeArrow(int i) {
  osg::Vec3 axis, u, v;
  axisBasis(i, axis, u, v);
  osg::ref_ptr<osg::Geometry> g =
      newGeometry(std::string(kGizmoNodeName) + ".translate." + kAxisNames[static_cast<std::size_t>(i)],
                  kAxisColours[static_cast<std::size_t>(i)]);
  osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
  vertices->push_back(osg::Vec3(0.0f, 0.0f, 0.0f));
  vertices->push_back(axis * kShaftLength);
  // Cone: a triangle from each base edge to the tip, and the base disc.
  const osg::Vec3 tip = axis;
  const osg::Vec3 base = axis * kShaftLength;
  for (int k = 0; k < kHeadSegments; ++k) {
    const float a0 = 2.0f * kPiF * static_cast<float>(k) / kHeadSegments;
    const float a1 = 2.0f * kPiF * static_cast<float>(k + 1) / kHeadSegments;
    const osg::Vec3 p0 = base + (u * std::cos(a0) + v * std::sin(a0)) * kHeadRadius;
    const osg::Vec3 p1 = base + (u * std::cos(a1) + v * std::sin(a1)) * kHeadRadius;
    vertices->push_back(p0);
    vertices->push_back(p1);
    vertices->push_back(tip);
    vertices->push_back(p1);
    vertices->push_back(p0);
    vertices->push_back(base);
  }
  g->setVertexArray(vertices.get());
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 2));
  g->addPrimitiveSet(new osg::DrawArrays(GL_TRIANGLES, 2, static_cast<GLsizei>(vertices->size() - 2)));
  return g;
}

/// A unit circle about the origin in the plane normal to axis i.
osg::ref_ptr<osg::Geometry> makeRing(int i) {
  osg::Vec3 axis, u, v;
  axisBasis(i, axis, u, v);
  osg::ref_ptr<osg::Geometry> g =
      newGeometry(std::string(kGizmoNodeName) + ".rotate." + kAxisNames[static_cast<std::size_t>(i)],
                  kAxisColours[static_cast<std::size_t>(i)]);
  osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
  for (int k = 0; k < kRingSegments; ++k) {
    const float a = 2.0f * kPiF * static_cast<float>(k) / kRingSegments;
    vertices->push_back(u * std::cos(a) + v * std::sin(a));
  }
  g->setVertexArray(vertices.get());
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINE_LOOP, 0, kRingSegments));
  return g;
}

void setColour(osg::Geometry* g, const osg::Vec4& colour) {
  if (g == nullptr) return;
  auto* colours = dynamic_cast<osg::Vec4Array*>(g->getColorArray());
  if (colours == nullptr || colours->empty() || (*colours)[0] == colour) return;
  (*colours)[0] = colour;
  colours->dirty();
}

}  // namespace

osg::ref_ptr<osg::MatrixTransform> createGizmoNode() {
  osg::ref_ptr<osg::MatrixTransform> node = new osg::MatrixTransform;
  node->setName(kGizmoNodeName);
  node->setDataVariance(osg::Object::DYNAMIC);

  // Drawn last, over everything: no depth test (which also leaves the depth
  // buffer untouched), no lighting so the colours stay flat. PROTECTED keeps
  // a parent's OVERRIDE (for example a wireframe or lighting mode of the
  // scene) from changing the gizmo.
  osg::StateSet* state = node->getOrCreateStateSet();
  const auto onTop = osg::StateAttribute::OFF | osg::StateAttribute::OVERRIDE | osg::StateAttribute::PROTECTED;
  state->setMode(GL_LIGHTING, onTop);
  state->setMode(GL_DEPTH_TEST, onTop);
  state->setMode(GL_CULL_FACE, onTop);
  state->setMode(GL_BLEND, onTop);
  state->setTextureMode(0, GL_TEXTURE_2D, onTop);
  state->setAttributeAndModes(new osg::LineWidth(kLineWidth),
                              osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE | osg::StateAttribute::PROTECTED);
  state->setRenderBinDetails(kGizmoRenderBin, "RenderBin");

  osg::ref_ptr<GizmoParts> parts = new GizmoParts;
  osg::ref_ptr<osg::Switch> modes = new osg::Switch;
  modes->setName(std::string(kGizmoNodeName) + ".modes");
  modes->setDataVariance(osg::Object::DYNAMIC);
  osg::ref_ptr<osg::Group> arrows = new osg::Group;
  arrows->setName(std::string(kGizmoNodeName) + ".translate");
  osg::ref_ptr<osg::Group> rings = new osg::Group;
  rings->setName(std::string(kGizmoNodeName) + ".rotate");
  for (int i = 0; i < 3; ++i) {
    osg::ref_ptr<osg::Geometry> arrow = makeArrow(i);
    osg::ref_ptr<osg::Geometry> ring = makeRing(i);
    arrows->addChild(arrow.get());
    rings->addChild(ring.get());
    parts->arrows[static_cast<std::size_t>(i)] = arrow.get();
    parts->rings[static_cast<std::size_t>(i)] = ring.get();
  }
  modes->insertChild(kTranslateChild, arrows.get(), true);
  modes->insertChild(kRotateChild, rings.get(), false);
  parts->modes = modes.get();
  node->addChild(modes.get());
  node->setUserData(parts.get());
  return node;
}

void updateGizmoNode(osg::MatrixTransform& node, const Gizmo& gizmo) {
  auto* parts = dynamic_cast<GizmoParts*>(node.getUserData());
  if (parts == nullptr) return;

  // OpenSceneGraph multiplies row vectors from the left: rows 0–2 are the
  // images of the unit axes, row 3 the translation.
  const Isometry3d pose = gizmo.pose();
  const double s = gizmo.size();
  const std::array<GizmoAxis, 3> axes = {GizmoAxis::X, GizmoAxis::Y, GizmoAxis::Z};
  osg::Matrixd m;  // identity
  for (int r = 0; r < 3; ++r) {
    const Vector3d axis = gizmo.axisDirection(axes[static_cast<std::size_t>(r)]);
    for (int c = 0; c < 3; ++c) m(r, c) = s * axis[c];
  }
  for (int c = 0; c < 3; ++c) m(3, c) = pose.translation()[c];
  node.setMatrix(m);

  const bool rotate = gizmo.mode() == GizmoMode::Rotate;
  if (osg::ref_ptr<osg::Switch> modes; parts->modes.lock(modes)) {
    modes->setValue(kTranslateChild, !rotate);
    modes->setValue(kRotateChild, rotate);
  }

  const GizmoAxis highlighted = gizmo.isDragging() ? gizmo.activeAxis() : gizmo.hovered();
  for (std::size_t i = 0; i < 3; ++i) {
    const osg::Vec4& colour = axes[i] == highlighted ? kHighlightColour : kAxisColours[i];
    osg::ref_ptr<osg::Geometry> arrow;
    if (parts->arrows[i].lock(arrow)) setColour(arrow.get(), colour);
    osg::ref_ptr<osg::Geometry> ring;
    if (parts->rings[i].lock(ring)) setColour(ring.get(), colour);
  }
}

}  // namespace articula::viewer

#include <articula/viewer/scene_view.hpp>

#include "gizmo_node.hpp"
#include "shape_nodes.hpp"

#include <osg/BlendFunc>
#include <osg/Depth>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LightModel>
#include <osg/LightSource>
#include <osg/LineWidth>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osg/Point>
#include <osg/PolygonMode>
#include <osg/PolygonOffset>
#include <osgUtil/IntersectionVisitor>
#include <osgUtil/LineSegmentIntersector>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace articula::viewer {

namespace {

using detail::toOsg;

constexpr unsigned kShapeMask = 0x1;  // traversal mask bit of pickable shapes
constexpr unsigned kHiddenMask = 0x0;
constexpr double kPlaneExtent = 40.0;  // side of the square drawn for a plane (m)
constexpr double kGridHalf = 10.0;     // the grid covers ±10 m
constexpr double kGridCell = 0.5;

const Vector4d kCollisionColor{1.0, 0.55, 0.1, 0.45};
const osg::Vec4 kSelectionColor{0.1f, 0.9f, 1.0f, 1.0f};
const osg::Vec4 kInterferenceColor{1.0f, 0.12f, 0.1f, 1.0f};

// Lines and points rebuilt from every snapshot, drawn unlit and on top.
class DebugDrawing {
 public:
  explicit DebugDrawing(float lineWidth = 2.0f, float pointSize = 7.0f) {
    m_geode = new osg::Geode;
    m_geometry = new osg::Geometry;
    m_vertices = new osg::Vec3Array;
    m_colors = new osg::Vec4Array;
    m_lines = new osg::DrawArrays(GL_LINES, 0, 0);
    m_points = new osg::DrawArrays(GL_POINTS, 0, 0);
    m_geometry->setDataVariance(osg::Object::DYNAMIC);
    m_geometry->setUseDisplayList(false);
    m_geometry->setUseVertexBufferObjects(true);
    m_geometry->setVertexArray(m_vertices.get());
    m_geometry->setColorArray(m_colors.get(), osg::Array::BIND_PER_VERTEX);
    m_geometry->addPrimitiveSet(m_lines.get());
    m_geometry->addPrimitiveSet(m_points.get());
    m_geode->addDrawable(m_geometry.get());
    osg::StateSet* ss = m_geode->getOrCreateStateSet();
    ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
    ss->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
    ss->setAttributeAndModes(new osg::LineWidth(lineWidth));
    ss->setAttributeAndModes(new osg::Point(pointSize));
    ss->setRenderBinDetails(900, "RenderBin");
    m_geode->setNodeMask(kHiddenMask);
    // A single point has a zero-radius bound, which small-feature culling
    // would drop: these drawings are never culled.
    m_geode->setCullingActive(false);
    m_geometry->setCullingActive(false);
  }
  osg::Geode* node() const { return m_geode.get(); }
  void clear() {
    m_lineVertices.clear();
    m_lineColors.clear();
    m_pointVertices.clear();
    m_pointColors.clear();
  }
  void line(const Vector3d& a, const Vector3d& b, const osg::Vec4& color) {
    m_lineVertices.push_back(toOsg(a));
    m_lineVertices.push_back(toOsg(b));
    m_lineColors.push_back(color);
    m_lineColors.push_back(color);
  }
  void point(const Vector3d& p, const osg::Vec4& color) {
    m_pointVertices.push_back(toOsg(p));
    m_pointColors.push_back(color);
  }
  // Lines first, then points, in one vertex array.
  void commit() {
    m_vertices->assign(m_lineVertices.begin(), m_lineVertices.end());
    m_vertices->insert(m_vertices->end(), m_pointVertices.begin(), m_pointVertices.end());
    m_colors->assign(m_lineColors.begin(), m_lineColors.end());
    m_colors->insert(m_colors->end(), m_pointColors.begin(), m_pointColors.end());
    m_lines->setFirst(0);
    m_lines->setCount(static_cast<GLsizei>(m_lineVertices.size()));
    m_points->setFirst(static_cast<GLint>(m_lineVertices.size()));
    m_points->setCount(static_cast<GLsizei>(m_pointVertices.size()));
    m_vertices->dirty();
    m_colors->dirty();
    m_lines->dirty();
    m_points->dirty();
    m_geometry->dirtyBound();
  }

 private:
  osg::ref_ptr<osg::Geode> m_geode;
  osg::ref_ptr<osg::Geometry> m_geometry;
  osg::ref_ptr<osg::Vec3Array> m_vertices;
  osg::ref_ptr<osg::Vec4Array> m_colors;
  osg::ref_ptr<osg::DrawArrays> m_lines;
  osg::ref_ptr<osg::DrawArrays> m_points;
  std::vector<osg::Vec3> m_lineVertices, m_pointVertices;
  std::vector<osg::Vec4> m_lineColors, m_pointColors;
};

// Residual colour: green when closed (≤ tolerance), through yellow to red
// at 1 cm (log scale).
osg::Vec4 residualColor(double residual, double tolerance) {
  if (!(residual > tolerance)) return {0.1f, 0.9f, 0.2f, 1.0f};
  const double lo = std::log10(std::max(tolerance, 1e-12));
  const double t = std::clamp((std::log10(residual) - lo) / (-2.0 - lo), 0.0, 1.0);
  const auto f = static_cast<float>(t);
  return t < 0.5 ? osg::Vec4(2.0f * f, 0.9f, 0.1f, 1.0f) : osg::Vec4(1.0f, 0.9f * (2.0f - 2.0f * f), 0.1f, 1.0f);
}

osg::ref_ptr<osg::Geode> makeGrid(double z) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  const int n = static_cast<int>(std::lround(kGridHalf / kGridCell));
  const auto h = static_cast<float>(kGridHalf);
  const auto zz = static_cast<float>(z);
  for (int i = -n; i <= n; ++i) {
    const auto s = static_cast<float>(i * kGridCell);
    const osg::Vec4 color =
        i == 0 ? osg::Vec4(0.30f, 0.30f, 0.34f, 1.0f)
               : (i % 2 == 0 ? osg::Vec4(0.45f, 0.45f, 0.48f, 1.0f) : osg::Vec4(0.55f, 0.55f, 0.58f, 1.0f));
    v->push_back(osg::Vec3(s, -h, zz));
    v->push_back(osg::Vec3(s, h, zz));
    v->push_back(osg::Vec3(-h, s, zz));
    v->push_back(osg::Vec3(h, s, zz));
    for (int k = 0; k < 4; ++k) c->push_back(color);
  }
  g->setVertexArray(v.get());
  g->setColorArray(c.get(), osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(v->size())));
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g.get());
  osg::StateSet* ss = geode->getOrCreateStateSet();
  ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  ss->setAttributeAndModes(new osg::LineWidth(1.0f));
  return geode;
}

struct ShapeEntry {
  DrawnShape drawn;
  std::size_t index = 0;  // into the description's shapes
  bool plane = false;
  Eigen::AlignedBox3d localBox;                  // of the geometry, in the shape frame (empty for planes)
  osg::ref_ptr<osg::MatrixTransform> visual;     // in the visual group (visual shapes and stand-ins)
  osg::ref_ptr<osg::MatrixTransform> collision;  // in the collision group (collision shapes)
  osg::ref_ptr<osg::Node> drawable;              // the visual (or stand-in) drawable
  bool collisionPending = false;                 // a collision shape not built yet (its layer was hidden)
};

Eigen::AlignedBox3d geometryBox(const Geometry& g) {
  Eigen::AlignedBox3d b;
  switch (g.type) {
    case GeometryType::Box:
      b.extend(Vector3d(-0.5 * g.size));
      b.extend(Vector3d(0.5 * g.size));
      break;
    case GeometryType::Sphere:
      b.extend(Vector3d::Constant(-g.radius));
      b.extend(Vector3d::Constant(g.radius));
      break;
    case GeometryType::Capsule:
      b.extend(Vector3d(-g.radius, -g.radius, -0.5 * g.length - g.radius));
      b.extend(Vector3d(g.radius, g.radius, 0.5 * g.length + g.radius));
      break;
    case GeometryType::Cylinder:
      b.extend(Vector3d(-g.radius, -g.radius, -0.5 * g.length));
      b.extend(Vector3d(g.radius, g.radius, 0.5 * g.length));
      break;
    case GeometryType::Ellipsoid:
      b.extend(Vector3d(-g.size));
      b.extend(Vector3d(g.size));
      break;
    case GeometryType::Plane:
      break;
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh:
      for (const Vector3d& v : g.vertices) b.extend(v);
      break;
  }
  return b;
}

}  // namespace

struct SceneView::Impl {
  osg::ref_ptr<osg::Group> root = new osg::Group;
  osg::ref_ptr<osg::Group> visuals = new osg::Group;
  osg::ref_ptr<osg::Group> collisions = new osg::Group;
  osg::ref_ptr<osg::Group> selectionGroup = new osg::Group;
  osg::ref_ptr<osg::Group> gridGroup = new osg::Group;
  // Planar shadows: the visual shapes (planes excepted) flattened onto the
  // ground along the sun's direction, drawn dark and translucent.
  osg::ref_ptr<osg::MatrixTransform> shadows = new osg::MatrixTransform;
  osg::ref_ptr<osg::MatrixTransform> gizmoNode;
  DebugDrawing contacts{2.0f, 8.0f};
  DebugDrawing frames{2.0f, 6.0f};
  DebugDrawing joints{3.0f, 8.0f};
  DebugDrawing coms{1.0f, 10.0f};
  DebugDrawing closures{3.0f, 9.0f};
  DebugDrawing jointForces{3.0f, 8.0f};

  std::shared_ptr<const SceneDescription> description;
  std::unordered_map<ObjectId, ShapeEntry> shapes;
  std::vector<ObjectId> order;  // drawn order (for reconcile's removed list)
  ReconcilePlan plan;
  RenderSnapshot applied;
  std::vector<Isometry3d> carriedPoses;  // per description body, until a snapshot of it arrives
  mutable Eigen::AlignedBox3d cachedBounds;
  mutable bool boundsValid = false;
  std::uint32_t layers = kDefaultLayers;
  std::vector<ObjectId> selection;
  std::vector<ObjectId> interference;
  double forceScale = 0.0;  // 0: automatic
  double axisLength = 0.0;
  double gridHeight = std::numeric_limits<double>::quiet_NaN();
  bool hasGround = false;
  Vector4d background{0.86, 0.88, 0.92, 1.0};
  std::uint64_t built = 0;
  Gizmo gizmo;
  bool gizmoVisible = false;

  Impl() {
    // A sun from above and in front, and a dim fill from below; lit both sides.
    osg::ref_ptr<osg::LightSource> sun = new osg::LightSource;
    osg::Light* l0 = sun->getLight();
    l0->setLightNum(0);
    l0->setPosition(osg::Vec4(0.35f, -0.55f, 0.76f, 0.0f));
    l0->setDiffuse(osg::Vec4(0.85f, 0.85f, 0.82f, 1.0f));
    l0->setAmbient(osg::Vec4(0.35f, 0.35f, 0.38f, 1.0f));
    l0->setSpecular(osg::Vec4(0.5f, 0.5f, 0.5f, 1.0f));
    osg::ref_ptr<osg::LightSource> fill = new osg::LightSource;
    osg::Light* l1 = fill->getLight();
    l1->setLightNum(1);
    l1->setPosition(osg::Vec4(-0.4f, 0.6f, -0.3f, 0.0f));
    l1->setDiffuse(osg::Vec4(0.25f, 0.25f, 0.28f, 1.0f));
    l1->setAmbient(osg::Vec4(0, 0, 0, 1));
    l1->setSpecular(osg::Vec4(0, 0, 0, 1));
    root->addChild(sun.get());
    root->addChild(fill.get());
    osg::StateSet* ss = root->getOrCreateStateSet();
    ss->setMode(GL_LIGHTING, osg::StateAttribute::ON);
    ss->setMode(GL_LIGHT0, osg::StateAttribute::ON);
    ss->setMode(GL_LIGHT1, osg::StateAttribute::ON);
    ss->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
    ss->setMode(GL_CULL_FACE, osg::StateAttribute::OFF);
    osg::ref_ptr<osg::LightModel> model = new osg::LightModel;
    model->setTwoSided(true);
    model->setAmbientIntensity(osg::Vec4(0.2f, 0.2f, 0.2f, 1.0f));
    ss->setAttributeAndModes(model.get());

    visuals->setName("articula.visuals");
    collisions->setName("articula.collision");
    // Translucent collision shapes over the visuals: no depth writes.
    collisions->getOrCreateStateSet()->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
    osg::StateSet* sel = selectionGroup->getOrCreateStateSet();
    sel->setAttributeAndModes(new osg::PolygonMode(osg::PolygonMode::FRONT_AND_BACK, osg::PolygonMode::LINE),
                              osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
    sel->setAttributeAndModes(new osg::LineWidth(2.0f), osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
    sel->setAttributeAndModes(new osg::PolygonOffset(-1.0f, -1.0f),
                              osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
    sel->setMode(GL_BLEND, osg::StateAttribute::OFF | osg::StateAttribute::OVERRIDE);
    sel->setRenderBinDetails(850, "RenderBin", osg::StateSet::OVERRIDE_RENDERBIN_DETAILS);
    root->addChild(visuals.get());
    root->addChild(gridGroup.get());
    setUpShadows();
    root->addChild(shadows.get());
    root->addChild(collisions.get());
    root->addChild(selectionGroup.get());
    for (DebugDrawing* d : {&contacts, &frames, &joints, &coms, &closures, &jointForces}) root->addChild(d->node());
    gizmoNode = createGizmoNode();
    gizmoNode->setNodeMask(kHiddenMask);
    root->addChild(gizmoNode.get());
    applyLayers();
  }

  bool shown(Layer layer) const { return (layers & static_cast<std::uint32_t>(layer)) != 0; }

  void applyLayers() {
    visuals->setNodeMask(shown(Layer::Visuals) ? ~0u : kHiddenMask);
    collisions->setNodeMask(shown(Layer::Collision) ? ~0u : kHiddenMask);
    gridGroup->setNodeMask(shown(Layer::Grid) ? ~0u : kHiddenMask);
    // Shadows fall on a ground plane only (a world without one has none).
    shadows->setNodeMask(shown(Layer::Shadows) && hasGround ? ~0u : kHiddenMask);
    selectionGroup->setNodeMask(shown(Layer::Selection) ? ~0u : kHiddenMask);
    contacts.node()->setNodeMask(shown(Layer::Contacts) ? ~0u : kHiddenMask);
    frames.node()->setNodeMask(shown(Layer::LinkFrames) ? ~0u : kHiddenMask);
    joints.node()->setNodeMask(shown(Layer::JointAxes) ? ~0u : kHiddenMask);
    jointForces.node()->setNodeMask(shown(Layer::JointForces) ? ~0u : kHiddenMask);
    coms.node()->setNodeMask(shown(Layer::CentersOfMass) ? ~0u : kHiddenMask);
    closures.node()->setNodeMask(shown(Layer::Closures) ? ~0u : kHiddenMask);
    if (shown(Layer::Collision)) buildPendingCollisions();
    // Hidden drawings are not kept up to date: draw the shown ones now.
    if (description) drawDebug();
  }

  // Collision drawables are built the first time their layer is shown.
  void buildPendingCollisions() {
    if (!description) return;
    for (const ObjectId id : order) {
      ShapeEntry& e = shapes.at(id);
      if (!e.collisionPending) continue;
      const ShapeDescription& s = description->shapes[e.index];
      e.collision = new osg::MatrixTransform;
      e.collision->addChild(detail::createShapeNode(s.geometry, kCollisionColor, kPlaneExtent, false).get());
      e.collision->setNodeMask(kShapeMask);
      collisions->addChild(e.collision.get());
      e.collisionPending = false;
      ++built;
      place(e);
    }
  }

  void build(ShapeEntry& e, const ShapeDescription& s) {
    e.plane = s.geometry.type == GeometryType::Plane;
    e.localBox = geometryBox(s.geometry);
    if (e.visual) visuals->removeChild(e.visual.get());
    if (e.visual) shadows->removeChild(e.visual.get());
    if (e.collision) collisions->removeChild(e.collision.get());
    e.visual = nullptr;
    e.collision = nullptr;
    e.drawable = nullptr;
    if (!s.collision || s.standIn) {
      e.drawable = detail::createShapeNode(s.geometry, s.color, kPlaneExtent);
      if (e.plane) {
        // Behind the grid and anything lying on the plane.
        e.drawable->getOrCreateStateSet()->setAttributeAndModes(new osg::PolygonOffset(1.0f, 1.0f));
      }
      e.visual = new osg::MatrixTransform;
      e.visual->addChild(e.drawable.get());
      e.visual->setNodeMask(kShapeMask);
      visuals->addChild(e.visual.get());
      if (!e.plane) shadows->addChild(e.visual.get());
      ++built;
    }
    // Collision drawables wait until their layer is shown (most views never show it).
    e.collisionPending = s.collision;
  }

  void setUpShadows() {
    osg::StateSet* ss = shadows->getOrCreateStateSet();
    const auto over = osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE;
    osg::ref_ptr<osg::Material> dark = new osg::Material;
    dark->setColorMode(osg::Material::OFF);
    const osg::Vec4 black(0, 0, 0, 0.3f);
    dark->setAmbient(osg::Material::FRONT_AND_BACK, black);
    dark->setDiffuse(osg::Material::FRONT_AND_BACK, black);
    dark->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0, 0, 0, 0));
    dark->setEmission(osg::Material::FRONT_AND_BACK, black);
    ss->setAttributeAndModes(dark.get(), over);
    ss->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA), over);
    // Every shadow fragment lies in the ground plane at one depth: with
    // depth writes on and a strict test, a pixel is darkened once however
    // many surfaces project onto it.
    ss->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, true), over);
    ss->setAttributeAndModes(new osg::PolygonOffset(-1.0f, -1.0f), over);
    ss->setRenderBinDetails(5, "RenderBin", osg::StateSet::OVERRIDE_RENDERBIN_DETAILS);
  }

  // Projection onto the plane z = h along the direction to the sun.
  void placeShadows(double h) {
    const Vector3d l = Vector3d(0.35, -0.55, 0.76).normalized();
    Eigen::Matrix4d S = Eigen::Matrix4d::Identity();
    // x' = x - l (z - h) / l_z  (and z' = h)
    S(0, 2) = -l.x() / l.z();
    S(0, 3) = l.x() * h / l.z();
    S(1, 2) = -l.y() / l.z();
    S(1, 3) = l.y() * h / l.z();
    S(2, 2) = 0.0;
    S(2, 3) = h;
    Isometry3d X;
    X.matrix() = S;
    shadows->setMatrix(toOsg(X));
  }

  void remove(ShapeEntry& e) {
    if (e.visual) shadows->removeChild(e.visual.get());
    if (e.visual) visuals->removeChild(e.visual.get());
    if (e.collision) collisions->removeChild(e.collision.get());
  }

  // Pose of a description body: from the applied snapshot when it follows
  // this description, else the body's pose in the last snapshot of an
  // earlier description (a design edit keeps bodies where they were until
  // the owner publishes a snapshot of the new design).
  Isometry3d bodyPose(std::uint32_t body) const {
    if (applied.descriptionVersion == description->version && body < applied.bodyPoses.size()) {
      return applied.bodyPoses[body];
    }
    return body < carriedPoses.size() ? carriedPoses[body] : Isometry3d::Identity();
  }

  void place(const ShapeEntry& e) {
    const ShapeDescription& s = description->shapes[e.index];
    const Isometry3d X = bodyPose(s.body) * s.localPose;
    const osg::Matrixd m = toOsg(X);
    if (e.visual) e.visual->setMatrix(m);
    if (e.collision && shown(Layer::Collision)) e.collision->setMatrix(m);
  }

  void rebuildGrid() {
    double z = 0.0;
    hasGround = false;
    if (description) {
      for (const ShapeDescription& s : description->shapes) {
        if (s.geometry.type == GeometryType::Plane && s.body == 0) {
          z = s.localPose.translation().z();
          hasGround = true;
          break;
        }
      }
    }
    applyLayers();
    if (z == gridHeight) return;
    gridHeight = z;
    placeShadows(z);
    gridGroup->removeChildren(0, gridGroup->getNumChildren());
    gridGroup->addChild(makeGrid(z).get());
  }

  double sceneAxisLength() const {
    if (axisLength > 0.0) return axisLength;
    const Eigen::AlignedBox3d b = bounds();
    if (b.isEmpty()) return 0.1;
    return std::clamp(0.05 * b.diagonal().norm(), 0.02, 1.0);
  }

  // Cached until the next description or snapshot.
  Eigen::AlignedBox3d bounds() const {
    if (!boundsValid) {
      cachedBounds = computeBounds();
      boundsValid = true;
    }
    return cachedBounds;
  }

  Eigen::AlignedBox3d computeBounds() const {
    Eigen::AlignedBox3d b;
    if (!description) return b;
    for (const auto& [id, e] : shapes) {
      const ShapeDescription& s = description->shapes[e.index];
      const Isometry3d X = bodyPose(s.body) * s.localPose;
      if (e.plane) {
        // A plane contributes its height only.
        b.extend(X.translation());
        continue;
      }
      if (e.localBox.isEmpty()) continue;
      for (int k = 0; k < 8; ++k) {
        b.extend(X * e.localBox.corner(static_cast<Eigen::AlignedBox3d::CornerType>(k)));
      }
    }
    return b;
  }

  void rebuildSelection() {
    selectionGroup->removeChildren(0, selectionGroup->getNumChildren());
    if (!description) return;
    addOutlines(selection, kSelectionColor);
    addOutlines(interference, kInterferenceColor);
  }

  // Outlines of every shape of `bodies` in `color`.
  void addOutlines(const std::vector<ObjectId>& bodies, const osg::Vec4& color) {
    const std::unordered_set<ObjectId> wanted(bodies.begin(), bodies.end());
    if (wanted.empty()) return;
    for (const ObjectId id : order) {
      const ShapeEntry& e = shapes.at(id);
      if (!e.drawable || !wanted.count(e.drawn.body)) continue;
      osg::ref_ptr<osg::MatrixTransform> outline = new osg::MatrixTransform;
      outline->setUserData(e.visual.get());  // follows this shape's transform
      osg::ref_ptr<osg::Group> colored = new osg::Group;
      colored->addChild(e.drawable.get());
      // An emissive-only material: the same colour whatever the lights.
      osg::ref_ptr<osg::Material> mat = new osg::Material;
      mat->setColorMode(osg::Material::OFF);
      mat->setAmbient(osg::Material::FRONT_AND_BACK, osg::Vec4(0, 0, 0, 1));
      mat->setDiffuse(osg::Material::FRONT_AND_BACK, osg::Vec4(0, 0, 0, 1));
      mat->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0, 0, 0, 1));
      mat->setEmission(osg::Material::FRONT_AND_BACK, color);
      colored->getOrCreateStateSet()->setAttributeAndModes(mat.get(),
                                                           osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
      outline->addChild(colored.get());
      outline->setMatrix(e.visual->getMatrix());
      selectionGroup->addChild(outline.get());
    }
  }

  void placeSelection() {
    for (unsigned i = 0; i < selectionGroup->getNumChildren(); ++i) {
      auto* outline = static_cast<osg::MatrixTransform*>(selectionGroup->getChild(i));
      if (auto* source = dynamic_cast<osg::MatrixTransform*>(outline->getUserData()))
        outline->setMatrix(source->getMatrix());
    }
  }

  void drawDebug() {
    const RenderSnapshot& s = applied;
    const bool any = shown(Layer::Contacts) || shown(Layer::LinkFrames) || shown(Layer::JointAxes) ||
                     shown(Layer::CentersOfMass) || shown(Layer::Closures) || shown(Layer::JointForces);
    if (!any) return;
    const double L = sceneAxisLength();
    if (shown(Layer::Contacts)) drawContacts(s, L);
    if (shown(Layer::LinkFrames)) drawFrames(s, L);
    if (shown(Layer::JointAxes)) drawJoints(s, L);
    if (shown(Layer::CentersOfMass)) drawComs(s, L);
    if (shown(Layer::Closures)) drawClosures(s);
    if (shown(Layer::JointForces)) drawJointForces(s, L);
  }

  void drawContacts(const RenderSnapshot& s, double L) {
    contacts.clear();
    double scale = forceScale;
    if (scale <= 0.0) {
      // Automatic: the largest force of the snapshot is 3 axis lengths long.
      double largest = 0.0;
      for (const ContactMark& c : s.contacts) largest = std::max(largest, c.force.norm());
      scale = largest > 0.0 ? 3.0 * L / largest : 0.0;
    }
    for (const ContactMark& c : s.contacts) {
      contacts.point(c.point, osg::Vec4(0.95f, 0.1f, 0.1f, 1.0f));
      contacts.line(c.point, c.point + 0.6 * L * c.normal, osg::Vec4(1.0f, 0.85f, 0.1f, 1.0f));
      contacts.line(c.point, c.point + scale * c.force, osg::Vec4(0.85f, 0.15f, 0.85f, 1.0f));
    }
    contacts.commit();
  }

  // The force each joint carries, from the joint origin (orange), scaled
  // like contact forces (the largest drawn 3 axis lengths long).
  void drawJointForces(const RenderSnapshot& s, double L) {
    jointForces.clear();
    double scale = forceScale;
    if (scale <= 0.0) {
      double largest = 0.0;
      for (const JointMark& j : s.joints) largest = std::max(largest, j.force.norm());
      scale = largest > 0.0 ? 3.0 * L / largest : 0.0;
    }
    const osg::Vec4 orange(1.0f, 0.5f, 0.05f, 1.0f);
    for (const JointMark& j : s.joints) {
      if (j.force.squaredNorm() == 0.0) continue;
      jointForces.point(j.origin, orange);
      jointForces.line(j.origin, j.origin + scale * j.force, orange);
    }
    jointForces.commit();
  }

  void drawFrames(const RenderSnapshot& s, double L) {
    frames.clear();
    for (std::size_t i = 1; i < s.bodyPoses.size(); ++i) {
      const Isometry3d& X = s.bodyPoses[i];
      const Vector3d o = X.translation();
      frames.line(o, o + L * X.linear().col(0), osg::Vec4(0.9f, 0.1f, 0.1f, 1.0f));
      frames.line(o, o + L * X.linear().col(1), osg::Vec4(0.1f, 0.8f, 0.1f, 1.0f));
      frames.line(o, o + L * X.linear().col(2), osg::Vec4(0.15f, 0.3f, 1.0f, 1.0f));
    }
    frames.commit();
  }

  void drawJoints(const RenderSnapshot& s, double L) {
    joints.clear();
    for (const JointMark& j : s.joints) {
      if (j.axis.squaredNorm() == 0.0) {
        joints.point(j.origin, osg::Vec4(1.0f, 0.85f, 0.0f, 1.0f));
        continue;
      }
      joints.line(j.origin - 1.5 * L * j.axis, j.origin + 1.5 * L * j.axis, osg::Vec4(1.0f, 0.85f, 0.0f, 1.0f));
      joints.point(j.origin, osg::Vec4(1.0f, 0.6f, 0.0f, 1.0f));
    }
    joints.commit();
  }

  void drawComs(const RenderSnapshot& s, double L) {
    coms.clear();
    for (std::size_t i = 1; i < s.bodyComs.size(); ++i) coms.point(s.bodyComs[i], osg::Vec4(0.1f, 0.1f, 0.1f, 1.0f));
    if (s.bodyComs.size() > 1) {
      const Vector3d c = s.systemCom;
      const osg::Vec4 white(1.0f, 1.0f, 1.0f, 1.0f);
      coms.line(c - Vector3d(L, 0, 0), c + Vector3d(L, 0, 0), white);
      coms.line(c - Vector3d(0, L, 0), c + Vector3d(0, L, 0), white);
      coms.line(c - Vector3d(0, 0, L), c + Vector3d(0, 0, L), white);
    }
    coms.commit();
  }

  void drawClosures(const RenderSnapshot& s) {
    closures.clear();
    for (std::size_t i = 0; i < s.closures.size(); ++i) {
      const ClosureMark& c = s.closures[i];
      const double tol = i < description->closures.size() ? description->closures[i].tolerance : 1e-10;
      const osg::Vec4 color = c.enabled ? residualColor(c.residual, tol) : osg::Vec4(0.5f, 0.5f, 0.5f, 1.0f);
      closures.point(c.endpointA, color);
      closures.point(c.endpointB, color);
      closures.line(c.endpointA, c.endpointB, color);
    }
    closures.commit();
  }
};

SceneView::SceneView() : m(std::make_unique<Impl>()) {}
SceneView::~SceneView() = default;

const ReconcilePlan& SceneView::setDescription(std::shared_ptr<const SceneDescription> description) {
  std::vector<DrawnShape> drawn;
  drawn.reserve(m->order.size());
  for (const ObjectId id : m->order) drawn.push_back(m->shapes.at(id).drawn);
  const SceneDescription empty;
  ReconcilePlan plan = reconcile(drawn, description ? *description : empty);
  // Carry the body poses over to the new description, by body id.
  std::unordered_map<ObjectId, Isometry3d> lastPoses;
  if (m->description) {
    for (std::size_t b = 0; b < m->description->bodies.size(); ++b) {
      lastPoses.emplace(m->description->bodies[b].id, m->bodyPose(static_cast<std::uint32_t>(b)));
    }
  }
  m->description = description ? std::move(description) : std::make_shared<const SceneDescription>();
  const SceneDescription& d = *m->description;
  m->carriedPoses.assign(d.bodies.size(), Isometry3d::Identity());
  for (std::size_t b = 0; b < d.bodies.size(); ++b) {
    if (const auto it = lastPoses.find(d.bodies[b].id); it != lastPoses.end()) m->carriedPoses[b] = it->second;
  }

  for (const ObjectId id : plan.removed) {
    m->remove(m->shapes.at(id));
    m->shapes.erase(id);
  }
  for (const std::size_t i : plan.added) {
    ShapeEntry& e = m->shapes[d.shapes[i].id];
    m->build(e, d.shapes[i]);
  }
  for (const std::size_t i : plan.rebuilt) m->build(m->shapes.at(d.shapes[i].id), d.shapes[i]);
  m->order.clear();
  for (std::size_t i = 0; i < d.shapes.size(); ++i) {
    ShapeEntry& e = m->shapes.at(d.shapes[i].id);
    e.index = i;
    e.drawn = drawnShapeOf(d, i);
    m->order.push_back(d.shapes[i].id);
  }
  // Until a snapshot of this version arrives, bodies keep their last poses.
  for (const ObjectId id : m->order) m->place(m->shapes.at(id));
  m->rebuildGrid();
  // Drop selected bodies that no longer exist.
  std::erase_if(m->selection, [&d](ObjectId b) { return d.findBody(b) < 0; });
  std::erase_if(m->interference, [&d](ObjectId b) { return d.findBody(b) < 0; });
  m->rebuildSelection();
  m->plan = std::move(plan);
  return m->plan;
}

std::shared_ptr<const SceneDescription> SceneView::description() const {
  return m->description;
}

bool SceneView::applySnapshot(const RenderSnapshot& snapshot) {
  if (!m->description || snapshot.descriptionVersion != m->description->version) return false;
  m->applied = snapshot;
  m->boundsValid = false;
  for (const ObjectId id : m->order) m->place(m->shapes.at(id));
  m->placeSelection();
  m->drawDebug();
  return true;
}

const RenderSnapshot& SceneView::appliedSnapshot() const {
  return m->applied;
}

void SceneView::setLayerVisible(Layer layer, bool visible) {
  if (visible) {
    m->layers |= static_cast<std::uint32_t>(layer);
  } else {
    m->layers &= ~static_cast<std::uint32_t>(layer);
  }
  m->applyLayers();
}
bool SceneView::isLayerVisible(Layer layer) const {
  return m->shown(layer);
}
std::uint32_t SceneView::layers() const {
  return m->layers;
}
void SceneView::setLayers(std::uint32_t mask) {
  m->layers = mask;
  m->applyLayers();
}

void SceneView::setSelection(const std::vector<ObjectId>& bodies) {
  m->selection = bodies;
  m->rebuildSelection();
}
const std::vector<ObjectId>& SceneView::selection() const {
  return m->selection;
}

void SceneView::setInterference(const std::vector<ObjectId>& bodies) {
  m->interference = bodies;
  m->rebuildSelection();
}

const std::vector<ObjectId>& SceneView::interference() const {
  return m->interference;
}

void SceneView::setContactForceScale(double metresPerNewton) {
  m->forceScale = metresPerNewton;
  if (m->description) m->drawDebug();
}
void SceneView::setAxisLength(double metres) {
  m->axisLength = metres;
  if (m->description) m->drawDebug();
}
void SceneView::setBackground(const Vector4d& rgba) {
  m->background = rgba;
}
Vector4d SceneView::background() const {
  return m->background;
}

Eigen::AlignedBox3d SceneView::bounds() const {
  return m->bounds();
}

std::optional<PickResult> SceneView::pick(const Ray& ray) const {
  if (!m->description) return std::nullopt;
  const double reach = 1e4;
  const osg::Vec3d start(ray.origin.x(), ray.origin.y(), ray.origin.z());
  const Vector3d endPoint = ray.origin + reach * ray.direction;
  const osg::Vec3d end(endPoint.x(), endPoint.y(), endPoint.z());
  // Visual shapes first (when shown), then collision shapes (when shown).
  std::vector<std::pair<osg::Group*, bool>> groups;
  if (m->shown(Layer::Visuals)) groups.emplace_back(m->visuals.get(), false);
  if (m->shown(Layer::Collision)) groups.emplace_back(m->collisions.get(), true);
  for (const auto& [group, collision] : groups) {
    osg::ref_ptr<osgUtil::LineSegmentIntersector> intersector = new osgUtil::LineSegmentIntersector(start, end);
    osgUtil::IntersectionVisitor visitor(intersector.get());
    visitor.setTraversalMask(kShapeMask);
    group->accept(visitor);
    if (!intersector->containsIntersections()) continue;
    const osgUtil::LineSegmentIntersector::Intersection& hit = intersector->getFirstIntersection();
    for (const ObjectId id : m->order) {
      const ShapeEntry& e = m->shapes.at(id);
      osg::MatrixTransform* node = collision ? e.collision.get() : e.visual.get();
      if (node == nullptr) continue;
      if (std::find(hit.nodePath.begin(), hit.nodePath.end(), node) == hit.nodePath.end()) continue;
      const ShapeDescription& s = m->description->shapes[e.index];
      PickResult r;
      r.shape = s.id;
      r.shapeName = s.name;
      r.body = m->description->bodies[s.body].id;
      r.bodyName = m->description->bodies[s.body].name;
      const osg::Vec3d p = hit.getWorldIntersectPoint();
      osg::Vec3d n = hit.getWorldIntersectNormal();
      n.normalize();
      r.point = Vector3d(p.x(), p.y(), p.z());
      r.normal = Vector3d(n.x(), n.y(), n.z());
      r.distance = (r.point - ray.origin).dot(ray.direction);
      r.collision = collision;
      return r;
    }
  }
  return std::nullopt;
}

Gizmo& SceneView::gizmo() {
  return m->gizmo;
}
void SceneView::setGizmoVisible(bool visible) {
  m->gizmoVisible = visible;
  m->gizmoNode->setNodeMask(visible ? ~0u : kHiddenMask);
  updateGizmo();
}
bool SceneView::isGizmoVisible() const {
  return m->gizmoVisible;
}
void SceneView::updateGizmo() {
  updateGizmoNode(*m->gizmoNode, m->gizmo);
}

std::uint64_t SceneView::shapesBuilt() const {
  return m->built;
}
std::size_t SceneView::shapeCount() const {
  return m->shapes.size();
}
osg::Node* SceneView::root() const {
  return m->root.get();
}

}  // namespace articula::viewer

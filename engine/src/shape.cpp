// Geometry values, Shape handles, collision filtering, and the compilation
// of collision shapes into the Model and the collision detector.
#include "world_impl.hpp"

#include <cmath>
#include <sstream>

namespace articula {

using detail::FrameRef;
using detail::implOf;
using detail::ShapeRecord;
using detail::WorldImpl;

// ---- Geometry --------------------------------------------------------------

std::string_view toString(GeometryType type) {
  switch (type) {
    case GeometryType::Box:
      return "box";
    case GeometryType::Sphere:
      return "sphere";
    case GeometryType::Capsule:
      return "capsule";
    case GeometryType::Cylinder:
      return "cylinder";
    case GeometryType::Ellipsoid:
      return "ellipsoid";
    case GeometryType::Plane:
      return "plane";
    case GeometryType::ConvexMesh:
      return "convex mesh";
    case GeometryType::TriangleMesh:
      return "triangle mesh";
  }
  return "geometry";
}

Geometry Geometry::box(const Vector3d& size) {
  Geometry g;
  g.type = GeometryType::Box;
  g.size = size;
  return g;
}
Geometry Geometry::sphere(double radius) {
  Geometry g;
  g.type = GeometryType::Sphere;
  g.radius = radius;
  return g;
}
Geometry Geometry::capsule(double radius, double length) {
  Geometry g;
  g.type = GeometryType::Capsule;
  g.radius = radius;
  g.length = length;
  return g;
}
Geometry Geometry::cylinder(double radius, double length) {
  Geometry g;
  g.type = GeometryType::Cylinder;
  g.radius = radius;
  g.length = length;
  return g;
}
Geometry Geometry::ellipsoid(const Vector3d& semiAxes) {
  Geometry g;
  g.type = GeometryType::Ellipsoid;
  g.size = semiAxes;
  return g;
}
Geometry Geometry::plane() {
  Geometry g;
  g.type = GeometryType::Plane;
  return g;
}
Geometry Geometry::convexMesh(std::vector<Vector3d> vertices) {
  Geometry g;
  g.type = GeometryType::ConvexMesh;
  g.vertices = std::move(vertices);
  return g;
}
Geometry Geometry::triangleMesh(std::vector<Vector3d> vertices, std::vector<std::array<int, 3>> triangles) {
  Geometry g;
  g.type = GeometryType::TriangleMesh;
  g.vertices = std::move(vertices);
  g.triangles = std::move(triangles);
  return g;
}

namespace {

void positive(double x, const std::string& where, const char* field) {
  if (!(x > 0.0) || !std::isfinite(x)) {
    std::ostringstream os;
    os << where << ": " << field << " = " << x << " must be positive and finite";
    throw InvalidArgument(os.str());
  }
}

void validateGeometry(const Geometry& g, const std::string& where) {
  switch (g.type) {
    case GeometryType::Box:
    case GeometryType::Ellipsoid:
      for (int i = 0; i < 3; ++i) positive(g.size[i], where, g.type == GeometryType::Box ? "box size" : "semi-axis");
      break;
    case GeometryType::Sphere:
      positive(g.radius, where, "radius");
      break;
    case GeometryType::Capsule:
    case GeometryType::Cylinder:
      positive(g.radius, where, "radius");
      positive(g.length, where, "length");
      break;
    case GeometryType::Plane:
      break;
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh: {
      const std::size_t need = g.type == GeometryType::ConvexMesh ? 4 : 3;
      if (g.vertices.size() < need) {
        std::ostringstream os;
        os << where << ": a " << toString(g.type) << " needs at least " << need << " vertices, got "
           << g.vertices.size();
        throw InvalidArgument(os.str());
      }
      for (std::size_t i = 0; i < g.vertices.size(); ++i) {
        if (!g.vertices[i].allFinite()) {
          throw InvalidArgument(where + ": vertex " + std::to_string(i) + " is not finite");
        }
      }
      if (g.type == GeometryType::TriangleMesh) {
        if (g.triangles.empty()) throw InvalidArgument(where + ": a triangle mesh needs at least one triangle");
        const auto nvtx = static_cast<int>(g.vertices.size());
        for (std::size_t t = 0; t < g.triangles.size(); ++t) {
          for (const int k : g.triangles[t]) {
            if (k < 0 || k >= nvtx) {
              std::ostringstream os;
              os << where << ": triangle " << t << " refers to vertex " << k << ", valid indices are 0.." << nvtx - 1;
              throw InvalidArgument(os.str());
            }
          }
        }
      } else {
        // A hull needs volume: not all points on one plane. Linear in the
        // vertex count (the first step of quickhull): the point farthest
        // from p0, then the one farthest from that line, then the one
        // farthest from that plane. If even the farthest lies on the plane
        // (relative to the extent), every point does.
        const Vector3d& p0 = g.vertices[0];
        std::size_t i1 = 0;
        double extent = 0.0;
        for (std::size_t i = 0; i < g.vertices.size(); ++i) {
          const double d = (g.vertices[i] - p0).norm();
          if (d > extent) {
            extent = d;
            i1 = i;
          }
        }
        const Vector3d e1 = g.vertices[i1] - p0;
        Vector3d normal = Vector3d::Zero();
        for (const auto& p : g.vertices) {
          const Vector3d n = e1.cross(p - p0);
          if (n.squaredNorm() > normal.squaredNorm()) normal = n;
        }
        bool solid = false;
        if (extent > 0.0 && normal.norm() > 1e-12 * extent * extent) {
          const Vector3d unit = normal.normalized();
          for (const auto& p : g.vertices) {
            if (std::abs(unit.dot(p - p0)) > 1e-9 * extent) {
              solid = true;
              break;
            }
          }
        }
        if (!solid) throw InvalidArgument(where + ": the convex mesh vertices are coplanar (the hull has no volume)");
      }
      break;
    }
  }
  if (g.parts.empty()) return;
  if (g.type != GeometryType::TriangleMesh) {
    throw InvalidArgument(where + ": coloured parts apply to triangle meshes only, not to a " +
                          std::string(toString(g.type)));
  }
  long long next = 0;
  const auto ntri = static_cast<long long>(g.triangles.size());
  for (std::size_t i = 0; i < g.parts.size(); ++i) {
    const MeshPart& p = g.parts[i];
    const long long first = p.firstTriangle;
    const long long end = first + p.triangleCount;
    if (p.triangleCount < 1 || first < next || end > ntri) {
      std::ostringstream os;
      os << where << ": part " << i << " covers triangles " << first << ".." << end - 1
         << "; parts need at least one triangle, in increasing order without overlap, within 0.." << ntri - 1;
      throw InvalidArgument(os.str());
    }
    if (!(p.color.array() >= 0.0).all() || !(p.color.array() <= 1.0).all()) {
      throw InvalidArgument(where + ": part " + std::to_string(i) + " has a colour component outside [0, 1]");
    }
    next = end;
  }
}

void validateMaterial(const Material& m, const std::string& where) {
  if (!(m.friction >= 0.0) || !std::isfinite(m.friction)) {
    std::ostringstream os;
    os << where << ": friction = " << m.friction << " must be finite and ≥ 0";
    throw InvalidArgument(os.str());
  }
  if (!(m.restitution >= 0.0 && m.restitution <= 1.0)) {
    std::ostringstream os;
    os << where << ": restitution = " << m.restitution << " must be in [0, 1]";
    throw InvalidArgument(os.str());
  }
}

std::uint32_t addShape(WorldImpl& w, const Frame& owner, ShapeRecord rec, const char* what) {
  w.checkFrame(owner);
  w.requireDesignMode(what);
  const std::string where = std::string(rec.collision ? "collision shape" : "visual shape") +
                            (rec.name.empty() ? std::string() : " '" + rec.name + "'");
  if (owner.kind() != FrameKind::World && owner.kind() != FrameKind::Link && owner.kind() != FrameKind::RigidBody) {
    throw TopologyError(where + ": shapes attach to links, rigid bodies or the world frame; '" + owner.name() +
                        "' is a user frame");
  }
  if (!rec.name.empty() && w.shapeNames.count(rec.name) != 0) {
    throw TopologyError("a shape named '" + rec.name + "' already exists in this world");
  }
  validateGeometry(rec.geometry, where);
  detail::checkIsometry(rec.pose, where, "pose");
  if (rec.collision) {
    validateMaterial(rec.material, where);
    const bool moving = owner.kind() != FrameKind::World;
    if (moving && (rec.geometry.type == GeometryType::Plane || rec.geometry.type == GeometryType::TriangleMesh)) {
      throw InvalidArgument(where + ": a " + std::string(toString(rec.geometry.type)) +
                            " collision shape must be static (attached to the world frame); '" + owner.name() +
                            "' moves. Use a convex mesh or primitives for moving bodies");
    }
  } else if (rec.geometry.type == GeometryType::Plane) {
    throw InvalidArgument(where + ": an infinite plane cannot be a visual shape");
  } else if (!(rec.color.array() >= 0.0).all() || !(rec.color.array() <= 1.0).all()) {
    throw InvalidArgument(where + ": colour components must be in [0, 1]");
  }
  if (rec.name.empty()) rec.name = WorldImpl::uniqueName(w.shapeNames, rec.collision ? "shape" : "visual");
  rec.alive = true;
  rec.generation = w.newGeneration();
  rec.owner = w.refOf(owner);
  w.topologyChanged();
  const auto slot = static_cast<std::uint32_t>(w.shapes.size());
  w.shapeNames[rec.name] = slot;
  w.shapes.push_back(std::move(rec));
  return slot;
}

ShapeRecord& recordOf(World* world, std::uint32_t index, std::uint32_t generation) {
  if (world == nullptr) throw InvalidHandle("invalid Shape handle (default-constructed)");
  return implOf(world).shape(index, generation);
}

}  // namespace

// ---- World -----------------------------------------------------------------

Shape World::addCollisionShape(const Frame& owner, const CollisionShapeOptions& options) {
  ShapeRecord rec;
  rec.name = options.name;
  rec.collision = true;
  rec.geometry = options.geometry;
  rec.pose = options.pose;
  rec.material = options.material;
  rec.collidable = options.collidable;
  const auto slot = addShape(*m_impl, owner, std::move(rec), "add a collision shape");
  return Shape(this, slot, m_impl->shapes[slot].generation);
}

Shape World::addVisualShape(const Frame& owner, const VisualShapeOptions& options) {
  ShapeRecord rec;
  rec.name = options.name;
  rec.collision = false;
  rec.geometry = options.geometry;
  rec.pose = options.pose;
  rec.color = options.color;
  const auto slot = addShape(*m_impl, owner, std::move(rec), "add a visual shape");
  return Shape(this, slot, m_impl->shapes[slot].generation);
}

Shape World::addGroundPlane(double height, const Material& material, const std::string& name) {
  CollisionShapeOptions o;
  o.name = name;
  o.geometry = Geometry::plane();
  o.pose = Isometry3d::Identity();
  o.pose.translation().z() = height;
  o.material = material;
  if (!std::isfinite(height)) throw InvalidArgument("ground plane height must be finite");
  return addCollisionShape(Frame::World(), o);
}

std::optional<Shape> World::getShape(const std::string& name) const {
  const auto it = m_impl->shapeNames.find(name);
  if (it == m_impl->shapeNames.end()) return std::nullopt;
  return Shape(const_cast<World*>(this), it->second, m_impl->shapes[it->second].generation);
}

std::size_t World::numShapes() const {
  return m_impl->shapeNames.size();
}

namespace {
std::vector<Shape> shapesOf(World* world, const Frame& owner, bool collision) {
  auto& w = implOf(world);
  w.checkFrame(owner);
  const FrameRef ref = w.refOf(owner);
  std::vector<Shape> out;
  for (std::uint32_t s = 0; s < w.shapes.size(); ++s) {
    const auto& r = w.shapes[s];
    if (r.alive && r.collision == collision && r.owner.kind == ref.kind &&
        (ref.kind == FrameKind::World || (r.owner.index == ref.index && r.owner.generation == ref.generation))) {
      out.push_back(detail::Access::shape(world, s, r.generation));
    }
  }
  return out;
}
}  // namespace

std::vector<Shape> World::getCollisionShapes(const Frame& owner) const {
  return shapesOf(const_cast<World*>(this), owner, true);
}

std::vector<Shape> World::getVisualShapes(const Frame& owner) const {
  return shapesOf(const_cast<World*>(this), owner, false);
}

void World::remove(const Shape& shape) {
  if (shape.m_world != this) throw InvalidHandle("the shape belongs to another World or is default-constructed");
  auto& rec = m_impl->shape(shape.m_index, shape.m_generation);
  m_impl->requireDesignMode("remove a shape");
  m_impl->topologyChanged();
  rec.alive = false;
  m_impl->shapeNames.erase(rec.name);
}

void World::setCollisionEnabled(const Frame& a, const Frame& b, bool enabled) {
  auto& w = *m_impl;
  w.checkFrame(a);
  w.checkFrame(b);
  for (const Frame* f : {&a, &b}) {
    if (f->kind() != FrameKind::World && f->kind() != FrameKind::Link && f->kind() != FrameKind::RigidBody) {
      throw TopologyError("collision settings apply to links, rigid bodies and the world frame; '" + f->name() +
                          "' is a user frame");
    }
  }
  w.collisionSettings[WorldImpl::pairKey(w.refOf(a), w.refOf(b))] = enabled;
  w.collisionValid = false;
}

void World::clearCollisionSetting(const Frame& a, const Frame& b) {
  auto& w = *m_impl;
  w.checkFrame(a);
  w.checkFrame(b);
  w.collisionSettings.erase(WorldImpl::pairKey(w.refOf(a), w.refOf(b)));
  w.collisionValid = false;
}

std::vector<World::CollisionSetting> World::getCollisionSettings() const {
  auto& w = *m_impl;
  std::vector<CollisionSetting> out;
  auto frameOf = [&](const detail::BodyKey& k, Frame& f) {
    const auto kind = static_cast<FrameKind>(std::get<0>(k));
    if (kind == FrameKind::World) {
      f = Frame::World();
      return true;
    }
    const detail::FrameRef r{kind, std::get<1>(k), std::get<2>(k)};
    if (!w.frameAlive(r)) return false;
    f = detail::Access::frame(const_cast<World*>(this), r.kind, r.index, r.generation);
    return true;
  };
  for (const auto& [key, enabled] : w.collisionSettings) {
    CollisionSetting s;
    s.enabled = enabled;
    if (frameOf(key.first, s.a) && frameOf(key.second, s.b)) out.push_back(s);
  }
  return out;
}

bool World::isCollisionEnabled(const Frame& a, const Frame& b) const {
  auto& w = *m_impl;
  w.checkFrame(a);
  w.checkFrame(b);
  w.ensureModel();
  auto bodyOf = [&](const Frame& f) -> int {
    if (f.kind() == FrameKind::Link) return w.bodyOfLink(f.index());
    if (f.kind() == FrameKind::RigidBody) return w.bodyOfRigidBody(f.index());
    if (f.kind() == FrameKind::World) return -1;
    throw TopologyError("collision settings apply to links, rigid bodies and the world frame; '" + f.name() +
                        "' is a user frame");
  };
  return w.bodiesMayCollide(bodyOf(a), bodyOf(b));
}

std::span<const Contact> World::getContacts() const {
  return {m_impl->contacts.data(), m_impl->contacts.size()};
}

const StepDiagnostics& World::getStepDiagnostics() const {
  return m_impl->diagnostics;
}

std::vector<std::string> World::getWarnings() const {
  return {m_impl->warnings.begin(), m_impl->warnings.end()};
}

void World::clearWarnings() {
  m_impl->warnings.clear();
  // A run of unconverged or fallback steps still going on is reported
  // again by its next step: a cleared list does not hide it.
  m_impl->unconvergedRun = 0;
  m_impl->convergedRun = 0;
  m_impl->fallbackRun = {};
}

// ---- Shape handle ----------------------------------------------------------

bool Shape::isValid() const {
  if (m_world == nullptr) return false;
  const auto& w = implOf(m_world);
  return m_index < w.shapes.size() && w.shapes[m_index].alive && w.shapes[m_index].generation == m_generation;
}

std::string Shape::name() const {
  return recordOf(m_world, m_index, m_generation).name;
}

bool Shape::isCollision() const {
  return recordOf(m_world, m_index, m_generation).collision;
}

Frame Shape::getOwner() const {
  const auto& r = recordOf(m_world, m_index, m_generation);
  return detail::Access::frame(m_world, r.owner.kind, r.owner.index, r.owner.generation);
}

const Geometry& Shape::getGeometry() const {
  return recordOf(m_world, m_index, m_generation).geometry;
}

Isometry3d Shape::getLocalPose() const {
  return recordOf(m_world, m_index, m_generation).pose;
}

void Shape::setLocalPose(const Isometry3d& pose) {
  auto& r = recordOf(m_world, m_index, m_generation);
  auto& w = implOf(m_world);
  w.requireDesignMode("move a shape");
  detail::checkIsometry(pose, "shape '" + r.name + "'", "pose");
  w.topologyChanged();
  r.pose = pose;
}

Isometry3d Shape::getWorldTransform() const {
  const auto& r = recordOf(m_world, m_index, m_generation);
  return getOwner().getWorldTransform() * r.pose;
}

namespace {
ShapeRecord& collisionRecord(World* world, std::uint32_t i, std::uint32_t g) {
  auto& r = recordOf(world, i, g);
  if (!r.collision)
    throw InvalidArgument("shape '" + r.name + "' is a visual shape; it has no material or collidable flag");
  return r;
}
}  // namespace

Material Shape::getMaterial() const {
  return collisionRecord(m_world, m_index, m_generation).material;
}

void Shape::setMaterial(const Material& material) {
  auto& r = collisionRecord(m_world, m_index, m_generation);
  validateMaterial(material, "shape '" + r.name + "'");
  r.material = material;
  auto& w = implOf(m_world);
  if (w.modelValid && m_index < w.shapeIndex.size() && w.shapeIndex[m_index] >= 0) {
    const auto k = static_cast<std::size_t>(w.shapeIndex[m_index]);
    w.model.shape_friction[k] = material.friction;
    w.model.shape_restitution[k] = material.restitution;
  }
}

bool Shape::isCollidable() const {
  return collisionRecord(m_world, m_index, m_generation).collidable;
}

void Shape::setCollidable(bool collidable) {
  auto& r = collisionRecord(m_world, m_index, m_generation);
  r.collidable = collidable;
  auto& w = implOf(m_world);
  if (w.modelValid && m_index < w.shapeIndex.size() && w.shapeIndex[m_index] >= 0) {
    w.model.shape_collidable[static_cast<std::size_t>(w.shapeIndex[m_index])] = collidable ? 1 : 0;
  }
}

Vector4d Shape::getColor() const {
  const auto& r = recordOf(m_world, m_index, m_generation);
  if (r.collision)
    throw InvalidArgument("shape '" + r.name + "' is a collision shape; only visual shapes have a colour");
  return r.color;
}

void Shape::setColor(const Vector4d& rgba) {
  auto& r = recordOf(m_world, m_index, m_generation);
  if (r.collision)
    throw InvalidArgument("shape '" + r.name + "' is a collision shape; only visual shapes have a colour");
  if (!(rgba.array() >= 0.0).all() || !(rgba.array() <= 1.0).all()) {
    throw InvalidArgument("shape '" + r.name + "': colour components must be in [0, 1]");
  }
  r.color = rgba;
}

// ---- WorldImpl -------------------------------------------------------------

namespace detail {

ShapeRecord& WorldImpl::shape(std::uint32_t slot, std::uint32_t gen) {
  if (slot >= shapes.size() || !shapes[slot].alive || shapes[slot].generation != gen) {
    throw InvalidHandle(
        "invalid Shape handle: the shape or its body was removed, the world was cleared, or the handle is "
        "default-constructed");
  }
  return shapes[slot];
}

void WorldImpl::removeOrphanedShapes() {
  for (auto& s : shapes) {
    if (s.alive && !frameAlive(s.owner)) {
      s.alive = false;
      shapeNames.erase(s.name);
    }
  }
}

PairKey WorldImpl::pairKey(const FrameRef& a, const FrameRef& b) {
  auto key = [](const FrameRef& r) {
    if (r.kind == FrameKind::World) return BodyKey{static_cast<int>(FrameKind::World), 0u, 0u};
    return BodyKey{static_cast<int>(r.kind), r.index, r.generation};
  };
  BodyKey ka = key(a);
  BodyKey kb = key(b);
  if (kb < ka) std::swap(ka, kb);
  return {ka, kb};
}

FrameRef WorldImpl::bodyFrame(int body) const {
  if (body < 0) return {FrameKind::World, 0, 0};
  const auto b = static_cast<std::size_t>(body);
  const auto owner = static_cast<std::size_t>(model.body_owner[b]);
  const std::uint32_t slot = model.body_slot[b];
  if (model.owner_kind[owner] == OwnerKind::RigidBody)
    return {FrameKind::RigidBody, slot, rigidBodies[slot].generation};
  return {FrameKind::Link, slot, links[slot].generation};
}

bool WorldImpl::bodiesMayCollide(int a, int b) const {
  if (!collisionSettings.empty()) {
    const auto it = collisionSettings.find(pairKey(bodyFrame(a), bodyFrame(b)));
    if (it != collisionSettings.end()) return it->second && !(a < 0 && b < 0);
  }
  if (a == b) return false;  // one body (or two static shapes)
  if (!implicitFilters.empty() && implicitFilters.count(pairKey(bodyFrame(a), bodyFrame(b))) != 0) return false;
  if (a < 0 || b < 0) return true;
  const auto ba = static_cast<std::size_t>(a);
  const auto bb = static_cast<std::size_t>(b);
  const int oa = model.body_owner[ba];
  if (oa != model.body_owner[bb]) return true;
  if (model.body_parent[ba] == b || model.body_parent[bb] == a) return false;
  return model.owner_selfCollision[static_cast<std::size_t>(oa)] != 0;
}

void WorldImpl::compileShapes(Model& m) {
  shapeIndex.assign(shapes.size(), -1);
  for (std::uint32_t s = 0; s < shapes.size(); ++s) {
    const auto& r = shapes[s];
    if (!r.alive || !r.collision) continue;
    int body = -1;
    if (r.owner.kind == FrameKind::Link) body = linkBody[r.owner.index];
    if (r.owner.kind == FrameKind::RigidBody) body = rigidBodyBody[r.owner.index];
    shapeIndex[s] = m.nshape++;
    m.shape_body.push_back(body);
    m.shape_slot.push_back(s);
    m.shape_pose.push_back(SE3::fromIsometry(r.pose));
    m.shape_friction.push_back(r.material.friction);
    m.shape_restitution.push_back(r.material.restitution);
    m.shape_collidable.push_back(r.collidable ? 1 : 0);
  }
}

void WorldImpl::ensureCollision() {
  ensureModel();
  if (collisionValid) return;
  collision.reset();
  constraints.points.clear();
  if (model.nshape > 0) collision = makeCollisionDetector();
  collisionValid = true;
  ++collisionBuild;
}

std::unique_ptr<CollisionDetector> WorldImpl::makeCollisionDetector() {
  std::vector<CollisionDetector::ShapeInput> in(static_cast<std::size_t>(model.nshape));
  for (int k = 0; k < model.nshape; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    in[kk].body = model.shape_body[kk];
    in[kk].pose = model.shape_pose[kk];
    in[kk].geometry = &shapes[model.shape_slot[kk]].geometry;
  }
  return std::make_unique<CollisionDetector>(in, [this](int i, int j) {
    return bodiesMayCollide(model.shape_body[static_cast<std::size_t>(i)],
                            model.shape_body[static_cast<std::size_t>(j)]);
  });
}

void WorldImpl::warn(std::string message) {
  std::ostringstream os;
  os << "t = " << state.time << " s (frame " << state.frameIndex << "): " << message;
  warnings.push_back(os.str());
  while (warnings.size() > 100) warnings.pop_front();
}

}  // namespace detail

// ---- Link / RigidBody conveniences -------------------------------------------

namespace {
World& ownerWorld(World* world, const char* handle) {
  if (world == nullptr) throw InvalidHandle(std::string("invalid ") + handle + " handle (default-constructed)");
  return *world;
}
}  // namespace

Shape Link::addCollisionShape(const CollisionShapeOptions& options) {
  return ownerWorld(m_world, "Link").addCollisionShape(*this, options);
}
Shape Link::addVisualShape(const VisualShapeOptions& options) {
  return ownerWorld(m_world, "Link").addVisualShape(*this, options);
}
std::vector<Shape> Link::getCollisionShapes() const {
  return ownerWorld(m_world, "Link").getCollisionShapes(*this);
}
std::vector<Shape> Link::getVisualShapes() const {
  return ownerWorld(m_world, "Link").getVisualShapes(*this);
}
Shape RigidBody::addCollisionShape(const CollisionShapeOptions& options) {
  return ownerWorld(m_world, "RigidBody").addCollisionShape(*this, options);
}
Shape RigidBody::addVisualShape(const VisualShapeOptions& options) {
  return ownerWorld(m_world, "RigidBody").addVisualShape(*this, options);
}
std::vector<Shape> RigidBody::getCollisionShapes() const {
  return ownerWorld(m_world, "RigidBody").getCollisionShapes(*this);
}
std::vector<Shape> RigidBody::getVisualShapes() const {
  return ownerWorld(m_world, "RigidBody").getVisualShapes(*this);
}

void Multibody::setSelfCollision(bool enabled) {
  if (m_world == nullptr) throw InvalidHandle("invalid Multibody handle (default-constructed)");
  auto& w = implOf(m_world);
  w.multibody(m_index, m_generation).selfCollision = enabled;
  if (w.modelValid) {
    const int o = w.ownerOfMultibody(m_index);
    if (o >= 0) w.model.owner_selfCollision[static_cast<std::size_t>(o)] = enabled ? 1 : 0;
  }
  w.collisionValid = false;
}

bool Multibody::getSelfCollision() const {
  if (m_world == nullptr) throw InvalidHandle("invalid Multibody handle (default-constructed)");
  return implOf(m_world).multibody(m_index, m_generation).selfCollision;
}

}  // namespace articula

#include <articula/viewer/scene_description.hpp>

#include <articula/joint_types.hpp>
#include <articula/multibody.hpp>
#include <articula/world.hpp>

#include "hash.hpp"  // the engine's FNV-1a

#include <optional>

namespace articula::viewer {

namespace {

// Ids: a tag byte (what kind of object), then the generation (24 bits) and
// the slot index (32 bits). Shapes and bodies never share an id.
constexpr std::uint64_t kShapeTag = 0x53;

ObjectId pack(std::uint64_t tag, std::uint32_t index, std::uint32_t generation) {
  return (tag << 56) | ((static_cast<std::uint64_t>(generation) & 0xffffffull) << 32) | index;
}

template <class T>
std::uint64_t hashValue(const T& value, std::uint64_t h) {
  return detail::fnv1a(&value, sizeof(T), h);
}

std::uint64_t hashVector(const Vector3d& v, std::uint64_t h) {
  return detail::fnv1a(v.data(), 3 * sizeof(double), h);
}

}  // namespace

ObjectId shapeId(const Shape& shape) {
  return pack(kShapeTag, shape.index(), shape.generation());
}

ObjectId bodyId(const Frame& body) {
  if (body.isWorld()) return kWorldBodyId;
  return pack(static_cast<std::uint64_t>(body.kind()), body.index(), body.generation());
}

Vector4d bodyPaletteColor(ObjectId body) {
  // Muted, distinguishable colours; the world's static shapes are light grey.
  static constexpr double kPalette[][3] = {{0.80, 0.42, 0.30}, {0.32, 0.55, 0.80}, {0.40, 0.70, 0.40},
                                           {0.85, 0.70, 0.30}, {0.60, 0.45, 0.75}, {0.35, 0.70, 0.70},
                                           {0.80, 0.50, 0.60}, {0.55, 0.60, 0.35}};
  if (body == kWorldBodyId) return {0.78, 0.78, 0.74, 1.0};
  const std::uint64_t h = detail::fnv1a(&body, sizeof(body));
  const double* c = kPalette[h % (sizeof(kPalette) / sizeof(kPalette[0]))];
  return {c[0], c[1], c[2], 1.0};
}

std::uint64_t shapeContentHash(const Geometry& g, const Vector4d& color) {
  std::uint64_t h = detail::kFnv1aOffset;
  h = hashValue(g.type, h);
  h = hashVector(g.size, h);
  h = hashValue(g.radius, h);
  h = hashValue(g.length, h);
  const std::uint64_t nv = g.vertices.size();
  const std::uint64_t nt = g.triangles.size();
  h = hashValue(nv, h);
  for (const Vector3d& v : g.vertices) h = hashVector(v, h);
  h = hashValue(nt, h);
  if (nt > 0) h = detail::fnv1a(g.triangles.data(), nt * sizeof(g.triangles[0]), h);
  h = detail::fnv1a(g.meshFile.data(), g.meshFile.size(), h);
  h = hashVector(g.meshScale, h);
  const std::uint64_t np = g.parts.size();
  h = hashValue(np, h);
  for (const MeshPart& p : g.parts) {
    h = hashValue(p.firstTriangle, h);
    h = hashValue(p.triangleCount, h);
    h = detail::fnv1a(p.color.data(), 4 * sizeof(double), h);
  }
  h = detail::fnv1a(color.data(), 4 * sizeof(double), h);
  return h;
}

int SceneDescription::findShape(ObjectId id) const {
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

int SceneDescription::findBody(ObjectId id) const {
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (bodies[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

SceneDescription describeScene(const World& world, std::uint64_t version) {
  SceneDescription d;
  d.version = version;

  auto addShapes = [&](const Frame& owner, std::uint32_t bodyIndex) {
    const bool hasVisuals = !world.getVisualShapes(owner).empty();
    for (const bool collision : {false, true}) {
      const std::vector<Shape> shapes = collision ? world.getCollisionShapes(owner) : world.getVisualShapes(owner);
      for (const Shape& s : shapes) {
        ShapeDescription sd;
        sd.id = shapeId(s);
        sd.name = s.name();
        sd.collision = collision;
        sd.body = bodyIndex;
        sd.localPose = s.getLocalPose();
        sd.geometry = s.getGeometry();
        sd.color = collision ? bodyPaletteColor(bodyId(owner)) : s.getColor();
        sd.standIn = collision && !hasVisuals;
        sd.contentHash = shapeContentHash(sd.geometry, sd.color) ^ (collision ? 0x9e3779b97f4a7c15ull : 0) ^
                         (sd.standIn ? 0x5bd1e9955bd1e995ull : 0);
        d.shapes.push_back(std::move(sd));
      }
    }
  };

  const StateSpace space = world.getStateSpace();

  BodyDescription worldBody;
  worldBody.name = "world";
  worldBody.frame = Frame::World();
  d.bodies.push_back(worldBody);
  addShapes(Frame::World(), 0);

  // A moving body (its name is "multibody/link" for a link) and its shapes;
  // returns its index.
  const auto addBody = [&](const Frame& frame, BodyKind kind, const Inertia& inertia) {
    BodyDescription b;
    b.id = bodyId(frame);
    b.kind = kind;
    b.name = frame.name();
    b.localCom = inertia.com;
    b.mass = inertia.mass;
    b.frame = frame;
    const auto index = static_cast<std::uint32_t>(d.bodies.size());
    d.bodies.push_back(std::move(b));
    addShapes(frame, index);
    return index;
  };

  for (const RigidBody& rb : world.getRigidBodies()) addBody(rb, BodyKind::RigidBody, rb.getInertia());

  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) {
      const std::uint32_t index = addBody(link, BodyKind::Link, link.getInertia());
      const Joint joint = link.getParentJoint();
      const JointSpec spec = joint.getSpec();
      JointDescription jd;
      jd.id = bodyId(link);  // a joint is identified by its child link
      jd.name = mb.name() + "/" + joint.name();
      jd.childBody = index;
      jd.childOffset = spec.childOffset;
      switch (jointTypeInfo(spec.type).shownAxis) {
        case ShownAxis::Axis:
          jd.axis = spec.axis.normalized();
          break;
        case ShownAxis::Normal:
          jd.axis = spec.axis.cross(spec.axis2).normalized();
          break;
        case ShownAxis::None:
          break;
      }
      jd.prismatic = spec.type == JointType::Prismatic;
      if (const std::optional<StateSegment> seg = space.segment(mb.name(), joint.name());
          seg && seg->numPositions > 0) {
        jd.numPositions = seg->numPositions;
        jd.positionOffset = seg->positionOffset;
        jd.velocityOffset = seg->velocityOffset;
      }
      jd.numDofs = joint.numDofs();
      if (jd.velocityOffset < 0 && jd.numDofs > 0) {
        if (const std::optional<StateSegment> seg = space.segment(mb.name(), joint.name())) {
          jd.velocityOffset = seg->velocityOffset;
        }
      }
      jd.joint = joint;
      d.joints.push_back(jd);
    }
  }

  for (const LoopClosure& c : world.getLoopClosures()) {
    ClosureDescription cd;
    cd.id = pack(0x4c, c.index(), 0);
    cd.name = c.name();
    cd.tolerance = c.getRuntimePolicy().tolerance;
    cd.closure = c;
    d.closures.push_back(cd);
  }

  for (const Sensor& s : world.getSensors()) {
    SensorDescription sd;
    sd.name = s.name();
    sd.valueNames = s.valueNames();
    sd.offset = d.numSensorValues;
    sd.sensor = s;
    d.numSensorValues += s.numValues();
    d.sensors.push_back(std::move(sd));
  }

  d.numPositions = world.numPositions();
  d.numDofs = world.numDofs();
  d.positionNames = space.positionNames();
  d.velocityNames = space.velocityNames();
  return d;
}

}  // namespace articula::viewer

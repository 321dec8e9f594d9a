// WorldSpec: reading a world's design back as values, and building a world
// from values in one go (a scratch world is built, then swapped in, so a
// spec that fails leaves the world as it was).
#include <articula/error.hpp>
#include <articula/world.hpp>
#include <articula/world_spec.hpp>

#include "joint_model.hpp"
#include "world_impl.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace articula {

using detail::FrameRef;
using detail::WorldImpl;

// ---- value helpers ----------------------------------------------------------

Isometry3d RigidBodySpec::pose() const {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = orientation.normalized().toRotationMatrix();
  X.translation() = position;
  return X;
}

void RigidBodySpec::setPose(const Isometry3d& X_WB) {
  position = X_WB.translation();
  orientation = Eigen::Quaterniond(X_WB.linear()).normalized();
}

void RigidBodySpec::setVelocityWorld(const Vector3d& linear, const Vector3d& angular) {
  const Matrix3d R_BW = orientation.normalized().toRotationMatrix().transpose();
  velocity << R_BW * angular, R_BW * linear;
}

namespace {

template <class T>
T* findByName(std::vector<T>& items, const std::string& name) {
  for (auto& item : items) {
    if (item.name == name) return &item;
  }
  return nullptr;
}

}  // namespace

RigidBodySpec* WorldSpec::findRigidBody(const std::string& name) {
  return findByName(rigidBodies, name);
}
MultibodySpec* WorldSpec::findMultibody(const std::string& name) {
  return findByName(multibodies, name);
}
LinkSpec* WorldSpec::findLink(const std::string& multibody, const std::string& link) {
  MultibodySpec* mb = findMultibody(multibody);
  return mb ? findByName(mb->links, link) : nullptr;
}
FrameSpec* WorldSpec::findFrame(const std::string& name) {
  return findByName(frames, name);
}
ShapeSpec* WorldSpec::findShape(const std::string& name) {
  return findByName(shapes, name);
}
ClosureSpec* WorldSpec::findLoopClosure(const std::string& name) {
  return findByName(loopClosures, name);
}
CouplerSpec* WorldSpec::findJointCoupler(const std::string& name) {
  return findByName(jointCouplers, name);
}
ActuatorSpec* WorldSpec::findActuator(const std::string& name) {
  return findByName(actuators, name);
}
ScheduleSpec* WorldSpec::findSchedule(const std::string& name) {
  return findByName(schedules, name);
}
KeyframeSpec* WorldSpec::findKeyframe(const std::string& name) {
  return findByName(keyframes, name);
}
SensorSpec* WorldSpec::findSensor(const std::string& name) {
  return findByName(sensors, name);
}

void WorldSpec::append(const WorldSpec& other) {
  // Keep the other spec's owner order after this one's.
  if (!other.ownerOrder.empty() || !ownerOrder.empty()) {
    if (ownerOrder.empty()) {
      for (const auto& b : rigidBodies) ownerOrder.push_back(b.name);
      for (const auto& m : multibodies) ownerOrder.push_back(m.name);
    }
    if (other.ownerOrder.empty()) {
      for (const auto& b : other.rigidBodies) ownerOrder.push_back(b.name);
      for (const auto& m : other.multibodies) ownerOrder.push_back(m.name);
    } else {
      ownerOrder.insert(ownerOrder.end(), other.ownerOrder.begin(), other.ownerOrder.end());
    }
  }
  rigidBodies.insert(rigidBodies.end(), other.rigidBodies.begin(), other.rigidBodies.end());
  multibodies.insert(multibodies.end(), other.multibodies.begin(), other.multibodies.end());
  frames.insert(frames.end(), other.frames.begin(), other.frames.end());
  shapes.insert(shapes.end(), other.shapes.begin(), other.shapes.end());
  loopClosures.insert(loopClosures.end(), other.loopClosures.begin(), other.loopClosures.end());
  jointCouplers.insert(jointCouplers.end(), other.jointCouplers.begin(), other.jointCouplers.end());
  collisionSettings.insert(collisionSettings.end(), other.collisionSettings.begin(), other.collisionSettings.end());
  actuators.insert(actuators.end(), other.actuators.begin(), other.actuators.end());
  schedules.insert(schedules.end(), other.schedules.begin(), other.schedules.end());
  keyframes.insert(keyframes.end(), other.keyframes.begin(), other.keyframes.end());
  sensors.insert(sensors.end(), other.sensors.begin(), other.sensors.end());
  // Viewpoints belong to the scene they were saved in, not to the models it
  // takes in: the other spec's are not appended.
}

namespace {

template <class Derived>
bool same(const Eigen::MatrixBase<Derived>& a, const Eigen::MatrixBase<Derived>& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && a == b;
}
bool same(const Isometry3d& a, const Isometry3d& b) {
  return a.matrix() == b.matrix();
}
bool same(const Inertia& a, const Inertia& b) {
  return a.mass == b.mass && a.com == b.com && a.rotational == b.rotational;
}
bool same(const Geometry& a, const Geometry& b) {
  return a.type == b.type && a.size == b.size && a.radius == b.radius && a.length == b.length &&
         a.vertices == b.vertices && a.triangles == b.triangles && a.meshFile == b.meshFile &&
         a.meshScale == b.meshScale && a.parts == b.parts;
}
bool same(const LoopClosureRuntimePolicy& a, const LoopClosureRuntimePolicy& b) {
  return a.enabled == b.enabled && a.kinematics == b.kinematics && a.dynamics == b.dynamics &&
         a.stabilization == b.stabilization && a.errorReduction == b.errorReduction && a.stiffness == b.stiffness &&
         a.damping == b.damping && a.projectAfterStep == b.projectAfterStep && a.tolerance == b.tolerance &&
         a.maxIterations == b.maxIterations;
}
bool same(const JointSpec& a, const JointSpec& b) {
  return a.name == b.name && a.type == b.type && a.axis == b.axis && a.axis2 == b.axis2 &&
         a.eulerOrder == b.eulerOrder && a.pitch == b.pitch && same(a.parentOffset, b.parentOffset) &&
         same(a.childOffset, b.childOffset) && same(a.positionLowerLimits, b.positionLowerLimits) &&
         same(a.positionUpperLimits, b.positionUpperLimits) && same(a.velocityLimits, b.velocityLimits) &&
         same(a.effortLimits, b.effortLimits) && same(a.restPositions, b.restPositions) &&
         same(a.springStiffness, b.springStiffness) && same(a.damping, b.damping) && same(a.armature, b.armature) &&
         same(a.coulombFriction, b.coulombFriction);
}
bool same(const WorldOptions& a, const WorldOptions& b) {
  const auto& s = a.solver;
  const auto& t = b.solver;
  return a.gravity == b.gravity && a.timeStep == b.timeStep && a.integrator == b.integrator && s.method == t.method &&
         s.maxIterations == t.maxIterations && s.tolerance == t.tolerance && s.warmStart == t.warmStart &&
         s.frictionDirections == t.frictionDirections && s.restitutionThreshold == t.restitutionThreshold &&
         s.errorCorrection == t.errorCorrection && s.errorReduction == t.errorReduction &&
         s.allowedPenetration == t.allowedPenetration && s.maxCorrectionVelocity == t.maxCorrectionVelocity &&
         s.constraintForceMixing == t.constraintForceMixing && s.limitErrorReduction == t.limitErrorReduction &&
         s.convergenceTolerance == t.convergenceTolerance && s.krylovIterations == t.krylovIterations &&
         s.convexRegularization == t.convexRegularization && a.divergence.maxSpeed == b.divergence.maxSpeed &&
         a.divergence.energyGainFraction == b.divergence.energyGainFraction &&
         a.divergence.energyFloor == b.divergence.energyFloor;
}
bool same(const RigidBodySpec& a, const RigidBodySpec& b) {
  return a.name == b.name && same(a.inertia, b.inertia) && a.position == b.position &&
         a.orientation.coeffs() == b.orientation.coeffs() && a.velocity == b.velocity && a.force == b.force;
}
bool same(const LinkSpec& a, const LinkSpec& b) {
  return a.name == b.name && a.parent == b.parent && same(a.inertia, b.inertia) && same(a.joint, b.joint) &&
         same(a.q, b.q) && same(a.v, b.v) && same(a.tau, b.tau);
}
bool same(const MultibodySpec& a, const MultibodySpec& b) {
  if (a.name != b.name || a.selfCollision != b.selfCollision || a.links.size() != b.links.size()) return false;
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    if (!same(a.links[i], b.links[i])) return false;
  }
  return true;
}
bool same(const FrameSpec& a, const FrameSpec& b) {
  return a.name == b.name && a.isFree == b.isFree && a.parent == b.parent && same(a.pose, b.pose) &&
         a.velocity == b.velocity && a.acceleration == b.acceleration;
}
bool same(const ShapeSpec& a, const ShapeSpec& b) {
  return a.name == b.name && a.owner == b.owner && a.collision == b.collision && same(a.geometry, b.geometry) &&
         same(a.pose, b.pose) && a.material.friction == b.material.friction &&
         a.material.restitution == b.material.restitution && a.collidable == b.collidable && a.color == b.color;
}
bool same(const ClosureSpec& a, const ClosureSpec& b) {
  return a.name == b.name && a.frameA == b.frameA && a.frameB == b.frameB && a.family == b.family &&
         same(a.offsetA, b.offsetA) && same(a.offsetB, b.offsetB) && a.length == b.length && same(a.policy, b.policy);
}
bool same(const CouplerSpec& a, const CouplerSpec& b) {
  return a.name == b.name && a.leader == b.leader && a.follower == b.follower && a.ratio == b.ratio &&
         a.offset == b.offset && same(a.policy, b.policy);
}
bool same(const ActuatorSpec& a, const ActuatorSpec& b) {
  return a.name == b.name && a.joint == b.joint && a.coordinate == b.coordinate && a.type == b.type &&
         a.gear == b.gear && a.controlMin == b.controlMin && a.controlMax == b.controlMax && a.forceMin == b.forceMin &&
         a.forceMax == b.forceMax && a.kp == b.kp && a.kd == b.kd && a.kv == b.kv && a.ki == b.ki &&
         a.integralLimit == b.integralLimit && a.stallTorque == b.stallTorque && a.noLoadSpeed == b.noLoadSpeed &&
         a.velocityLimit == b.velocityLimit && a.control == b.control && a.gravityCompensation == b.gravityCompensation;
}
bool same(const ScheduleSpec& a, const ScheduleSpec& b) {
  return a.name == b.name && a.actuator == b.actuator && a.kind == b.kind && a.keyframes == b.keyframes &&
         a.interpolation == b.interpolation && a.loop == b.loop && a.amplitude == b.amplitude &&
         a.frequency == b.frequency && a.phase == b.phase && a.offset == b.offset && a.stepTime == b.stepTime;
}
bool same(const KeyframeSpec& a, const KeyframeSpec& b) {
  return a.name == b.name && a.time == b.time && same(a.q, b.q) && same(a.v, b.v) && same(a.controls, b.controls);
}
bool same(const CollisionSettingSpec& a, const CollisionSettingSpec& b) {
  return a.a == b.a && a.b == b.b && a.enabled == b.enabled;
}
template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

bool operator==(const WorldSpec& a, const WorldSpec& b) {
  return same(a.options, b.options) && same(a.rigidBodies, b.rigidBodies) && same(a.multibodies, b.multibodies) &&
         same(a.frames, b.frames) && same(a.shapes, b.shapes) && same(a.loopClosures, b.loopClosures) &&
         same(a.jointCouplers, b.jointCouplers) && same(a.collisionSettings, b.collisionSettings) &&
         same(a.actuators, b.actuators) && same(a.schedules, b.schedules) && same(a.keyframes, b.keyframes) &&
         a.sensors == b.sensors && a.viewpoints == b.viewpoints && a.ownerOrder == b.ownerOrder;
}

namespace {

// The current coordinates of a joint (link slot) or rigid body (slot): the
// compiled state when the model is current, else the record.
struct Coordinates {
  VectorXd q, v, tau;
};

Coordinates linkCoordinates(const WorldImpl& w, std::uint32_t slot) {
  const auto& L = w.links[slot];
  const int b = w.modelValid && slot < w.linkBody.size() ? w.linkBody[slot] : -1;
  if (b < 0) {
    // Not compiled yet: the record, with unset coordinates made explicit.
    Coordinates c{L.q, L.v, L.tau};
    const int nq = numPositions(L.joint.type);
    const int nv = numDofs(L.joint.type);
    if (c.q.size() != nq) {
      c.q = VectorXd::Zero(nq);
      detail::jointNeutral(L.joint.type, c.q.data());
    }
    if (c.v.size() != nv) c.v = VectorXd::Zero(nv);
    if (c.tau.size() != nv) c.tau = VectorXd::Zero(nv);
    return c;
  }
  const auto bi = static_cast<std::size_t>(b);
  const auto& m = w.model;
  return {w.state.q.segment(m.jnt_qadr[bi], m.jnt_nq[bi]), w.state.v.segment(m.jnt_vadr[bi], m.jnt_nv[bi]),
          w.state.tau.segment(m.jnt_vadr[bi], m.jnt_nv[bi])};
}

Coordinates rigidBodyCoordinates(const WorldImpl& w, std::uint32_t slot) {
  const auto& B = w.rigidBodies[slot];
  const int b = w.modelValid && slot < w.rigidBodyBody.size() ? w.rigidBodyBody[slot] : -1;
  if (b < 0) return {B.q, B.v, B.tau};
  const auto bi = static_cast<std::size_t>(b);
  const auto& m = w.model;
  return {w.state.q.segment(m.jnt_qadr[bi], 7), w.state.v.segment(m.jnt_vadr[bi], 6),
          w.state.tau.segment(m.jnt_vadr[bi], 6)};
}

std::string jointName(const WorldImpl& w, std::uint32_t linkSlot) {
  const auto& L = w.links[linkSlot];
  return w.multibodies[L.multibody].name + "/" + L.joint.name;
}

}  // namespace

WorldSpec World::getSpec() const {
  const WorldImpl& w = *m_impl;
  WorldSpec spec;
  spec.options = w.options;

  // Rigid bodies and multibodies; their interleaving decides the state packing.
  struct Owner {
    std::uint32_t generation;
    bool rigid;
    std::uint32_t slot;
  };
  std::vector<Owner> owners;
  for (std::uint32_t s = 0; s < w.rigidBodies.size(); ++s) {
    const auto& B = w.rigidBodies[s];
    if (!B.alive) continue;
    owners.push_back({B.generation, true, s});
    RigidBodySpec b;
    b.name = B.name;
    b.inertia = B.inertia;
    const Coordinates c = rigidBodyCoordinates(w, s);
    if (c.q.size() == 7) {
      b.position = c.q.head<3>();
      b.orientation.coeffs() = c.q.tail<4>();
    }
    if (c.v.size() == 6) b.velocity = c.v;
    if (c.tau.size() == 6) b.force = c.tau;
    spec.rigidBodies.push_back(std::move(b));
  }
  for (std::uint32_t s = 0; s < w.multibodies.size(); ++s) {
    const auto& M = w.multibodies[s];
    if (!M.alive) continue;
    owners.push_back({M.generation, false, s});
    MultibodySpec mb;
    mb.name = M.name;
    mb.selfCollision = M.selfCollision;
    for (const std::uint32_t ls : w.treeOrder(s)) {
      const auto& L = w.links[ls];
      LinkSpec link;
      link.name = L.name;
      if (L.parent >= 0) link.parent = w.links[static_cast<std::size_t>(L.parent)].name;
      link.inertia = L.inertia;
      link.joint = L.joint;
      Coordinates c = linkCoordinates(w, ls);
      link.q = std::move(c.q);
      link.v = std::move(c.v);
      link.tau = std::move(c.tau);
      mb.links.push_back(std::move(link));
    }
    spec.multibodies.push_back(std::move(mb));
  }
  std::sort(owners.begin(), owners.end(), [](const Owner& a, const Owner& b) { return a.generation < b.generation; });
  // The order is written only where "rigid bodies first" would not reproduce it.
  bool rigidFirst = true;
  for (std::size_t i = 1; i < owners.size(); ++i) rigidFirst = rigidFirst && !(owners[i].rigid && !owners[i - 1].rigid);
  if (!rigidFirst) {
    for (const Owner& o : owners) {
      spec.ownerOrder.push_back(o.rigid ? w.rigidBodies[o.slot].name : w.multibodies[o.slot].name);
    }
  }

  for (const auto& F : w.frames) {
    if (!F.alive) continue;
    FrameSpec f;
    f.name = F.name;
    f.isFree = F.isFree;
    f.parent = w.frameName(F.parent);
    f.pose = F.X_PF.toIsometry();
    f.velocity = F.V_rel;
    f.acceleration = F.A_rel;
    spec.frames.push_back(std::move(f));
  }
  for (const auto& S : w.shapes) {
    if (!S.alive) continue;
    ShapeSpec s;
    s.name = S.name;
    s.owner = w.frameName(S.owner);
    s.collision = S.collision;
    s.geometry = S.geometry;
    s.pose = S.pose;
    s.material = S.material;
    s.collidable = S.collidable;
    s.color = S.color;
    spec.shapes.push_back(std::move(s));
  }
  for (const auto& C : w.closures) {
    if (!C.alive) continue;
    ClosureSpec c;
    c.name = C.name;
    c.frameA = w.frameName(C.frameA);
    c.frameB = w.frameName(C.frameB);
    c.family = C.family;
    c.offsetA = C.offsetA;
    c.offsetB = C.offsetB;
    c.length = C.length;
    c.policy = C.policy;
    spec.loopClosures.push_back(std::move(c));
  }
  for (const auto& C : w.couplers) {
    if (!C.alive) continue;
    CouplerSpec c;
    c.name = C.name;
    c.leader = jointName(w, C.leader);
    c.follower = jointName(w, C.follower);
    c.ratio = C.ratio;
    c.offset = C.offset;
    c.policy = C.policy;
    spec.jointCouplers.push_back(std::move(c));
  }
  for (const auto& s : getCollisionSettings()) {
    spec.collisionSettings.push_back({s.a.isWorld() ? std::string("world") : s.a.name(),
                                      s.b.isWorld() ? std::string("world") : s.b.name(), s.enabled});
  }
  for (const Actuator& a : getActuators()) spec.actuators.push_back(a.getSpec());
  spec.schedules = getSchedules();
  spec.keyframes = getKeyframes();
  spec.viewpoints = getViewpoints();
  for (const Sensor& x : getSensors()) spec.sensors.push_back(x.getSpec());
  return spec;
}

namespace {

// Builds the objects of `spec` into the empty world `world`.
class SpecBuilder {
 public:
  SpecBuilder(World& world, const WorldSpec& spec)
      : m_world(world), m_spec(spec), m_impl(detail::Access::impl(world)) {}

  void run() {
    buildOwners();
    for (const auto& f : m_spec.frames) buildFrame(f);
    for (const auto& s : m_spec.shapes) buildShape(s);
    for (const auto& c : m_spec.loopClosures) buildClosure(c);
    for (const auto& c : m_spec.jointCouplers) buildCoupler(c);
    for (const auto& c : m_spec.collisionSettings) {
      m_world.setCollisionEnabled(frame(c.a, "collision setting"), frame(c.b, "collision setting"), c.enabled);
    }
    for (const auto& a : m_spec.actuators) m_world.addActuator(a);
    for (const auto& s : m_spec.schedules) m_world.addSchedule(s);
    for (const auto& k : m_spec.keyframes) m_world.addKeyframe(k);
    for (const auto& v : m_spec.viewpoints) m_world.setViewpoint(v);
    for (const auto& x : m_spec.sensors) m_world.addSensor(x);
  }

 private:
  void buildOwners() {
    std::map<std::string, std::pair<bool, std::size_t>> byName;  // name → (rigid, index)
    for (std::size_t i = 0; i < m_spec.rigidBodies.size(); ++i) byName.try_emplace(m_spec.rigidBodies[i].name, true, i);
    for (std::size_t i = 0; i < m_spec.multibodies.size(); ++i) {
      byName.try_emplace(m_spec.multibodies[i].name, false, i);
    }
    std::vector<bool> builtRigid(m_spec.rigidBodies.size(), false);
    std::vector<bool> builtMultibody(m_spec.multibodies.size(), false);
    for (const std::string& name : m_spec.ownerOrder) {
      const auto it = byName.find(name);
      if (it == byName.end()) {
        throw TopologyError("world spec: ownerOrder names '" + name +
                            "', which is neither a rigid body nor a multibody");
      }
      const auto [rigid, i] = it->second;
      auto& built = rigid ? builtRigid : builtMultibody;
      if (built[i]) throw TopologyError("world spec: ownerOrder lists '" + name + "' twice");
      built[i] = true;
      if (rigid) {
        buildRigidBody(m_spec.rigidBodies[i]);
      } else {
        buildMultibody(m_spec.multibodies[i]);
      }
    }
    for (std::size_t i = 0; i < m_spec.rigidBodies.size(); ++i) {
      if (!builtRigid[i]) buildRigidBody(m_spec.rigidBodies[i]);
    }
    for (std::size_t i = 0; i < m_spec.multibodies.size(); ++i) {
      if (!builtMultibody[i]) buildMultibody(m_spec.multibodies[i]);
    }
  }

  void buildRigidBody(const RigidBodySpec& b) {
    const std::string where = "rigid body '" + b.name + "'";
    if (!b.position.allFinite() || !b.orientation.coeffs().allFinite() || !b.velocity.allFinite() ||
        !b.force.allFinite()) {
      throw InvalidArgument(where + ": position, orientation, velocity and force must be finite");
    }
    // The coordinates are stored as given (a world may hold a quaternion
    // that is unit only to round-off): the spec rebuilds that world exactly.
    RigidBodyOptions options;
    options.inertia = b.inertia;
    const RigidBody body = m_world.addRigidBody(b.name, options);
    auto& R = m_impl.rigidBodies[body.index()];
    R.q.resize(7);
    R.q << b.position, b.orientation.coeffs();
    R.v = b.velocity;
    R.tau = b.force;
  }

  void buildMultibody(const MultibodySpec& spec) {
    Multibody mb = m_world.addMultibody(spec.name);
    mb.setSelfCollision(spec.selfCollision);
    std::map<std::string, Link> links;
    for (const LinkSpec& ls : spec.links) {
      const std::string where = "multibody '" + mb.name() + "', link '" + ls.name + "'";
      Link link;
      if (ls.parent.empty()) {
        link = mb.addLink(LinkOptions{ls.name, ls.inertia}, ls.joint);
      } else {
        const auto parent = links.find(ls.parent);
        if (parent == links.end()) {
          throw TopologyError(where + ": parent link '" + ls.parent +
                              "' is not listed before it (links are listed parents first)");
        }
        link = mb.addLink(LinkOptions{ls.name, ls.inertia}, parent->second, ls.joint);
      }
      links[leaf(link.name())] = link;
      auto& L = m_impl.links[link.index()];
      const int nq = numPositions(L.joint.type);
      const int nv = numDofs(L.joint.type);
      check(where, "q", ls.q, nq);
      check(where, "v", ls.v, nv);
      check(where, "tau", ls.tau, nv);
      L.q = ls.q;
      L.v = ls.v;
      L.tau = ls.tau;
    }
  }

  static void check(const std::string& where, const char* field, const VectorXd& x, int size) {
    if (x.size() != 0 && x.size() != size) {
      throw InvalidArgument(where + ": " + field + " has " + std::to_string(x.size()) + " entries, the joint has " +
                            std::to_string(size));
    }
    if (!x.allFinite()) throw InvalidArgument(where + ": " + field + " must be finite");
  }

  static std::string leaf(const std::string& name) {
    const auto slash = name.find('/');
    return slash == std::string::npos ? name : name.substr(slash + 1);
  }

  Frame frame(const std::string& name, const std::string& where) const {
    if (name == "world") return Frame::World();
    if (auto f = m_world.getFrame(name)) return *f;
    throw TopologyError(where + ": no frame named '" + name + "' (a rigid body, a user frame, or multibody/link)");
  }

  Joint joint(const std::string& name, const std::string& where) const {
    const auto slash = name.find('/');
    if (slash != std::string::npos) {
      if (auto mb = m_world.getMultibody(name.substr(0, slash))) {
        if (auto j = mb->getJoint(name.substr(slash + 1))) return *j;
      }
    }
    throw TopologyError(where + ": no joint named '" + name + "' (expected multibody/joint)");
  }

  void buildFrame(const FrameSpec& f) {
    const Frame parent = frame(f.parent, "frame '" + f.name + "'");
    if (f.isFree) {
      const FreeFrame ff = m_world.addFreeFrame(f.name, parent, f.pose);
      if (!f.velocity.allFinite() || !f.acceleration.allFinite()) {
        throw InvalidArgument("frame '" + f.name + "': velocity and acceleration must be finite");
      }
      auto& F = m_impl.frames[ff.index()];
      F.V_rel = f.velocity;
      F.A_rel = f.acceleration;
    } else {
      m_world.addFixedFrame(f.name, parent, f.pose);
    }
  }

  void buildShape(const ShapeSpec& s) {
    const Frame owner = frame(s.owner, "shape '" + s.name + "'");
    if (s.collision) {
      m_world.addCollisionShape(owner, CollisionShapeOptions{s.name, s.geometry, s.pose, s.material, s.collidable});
    } else {
      m_world.addVisualShape(owner, VisualShapeOptions{s.name, s.geometry, s.pose, s.color});
    }
  }

  void buildClosure(const ClosureSpec& c) {
    const std::string where = "loop closure '" + c.name + "'";
    LoopClosureSpec spec;
    spec.frameA = frame(c.frameA, where);
    spec.frameB = frame(c.frameB, where);
    spec.family = c.family;
    spec.offsetA = c.offsetA;
    spec.offsetB = c.offsetB;
    spec.length = c.length;
    m_world.addLoopClosure(c.name, spec).setRuntimePolicy(c.policy);
  }

  void buildCoupler(const CouplerSpec& c) {
    const std::string where = "joint coupler '" + c.name + "'";
    JointCouplerSpec spec;
    spec.leader = joint(c.leader, where);
    spec.follower = joint(c.follower, where);
    spec.ratio = c.ratio;
    spec.offset = c.offset;
    m_world.addJointCoupler(c.name, spec).setRuntimePolicy(c.policy);
  }

  World& m_world;
  const WorldSpec& m_spec;
  WorldImpl& m_impl;
};

}  // namespace

World::World(const WorldSpec& spec) : m_impl(std::make_unique<detail::WorldImpl>(this, WorldOptions{})) {
  applySpec(spec, SpecStatePolicy::FromSpec);
}

void World::applySpec(const WorldSpec& spec, SpecStatePolicy statePolicy) {
  WorldImpl& old = *m_impl;
  old.requireDesignMode("apply a world spec");
  World scratch(spec.options);
  WorldImpl& fresh = *scratch.m_impl;
  // Generations continue the world's own, so no handle of the old design
  // matches an object of the new one by accident.
  fresh.nextGeneration = old.nextGeneration;
  SpecBuilder(scratch, spec).run();

  if (statePolicy == SpecStatePolicy::KeepByName) {
    fresh.topologyChanged();  // the coordinates live in the records again
    for (auto& B : fresh.rigidBodies) {
      const auto it = old.worldNames.find(B.name);
      if (it == old.worldNames.end() || it->second.kind != FrameKind::RigidBody) continue;
      Coordinates c = rigidBodyCoordinates(old, it->second.index);
      B.q = std::move(c.q);
      B.v = std::move(c.v);
      B.tau = std::move(c.tau);
    }
    for (auto& L : fresh.links) {
      // Multibodies are registered in the name map with kind None.
      const auto mbIt = old.worldNames.find(fresh.multibodies[L.multibody].name);
      if (mbIt == old.worldNames.end() || mbIt->second.kind != FrameKind::None) continue;
      const auto& M = old.multibodies[mbIt->second.index];
      const auto linkIt = M.linkByName.find(L.name);
      if (linkIt == M.linkByName.end()) continue;
      const auto& oldLink = old.links[linkIt->second];
      if (oldLink.joint.type != L.joint.type) continue;
      Coordinates c = linkCoordinates(old, linkIt->second);
      L.q = std::move(c.q);
      L.v = std::move(c.v);
      L.tau = std::move(c.tau);
    }
    fresh.state.time = old.state.time;
    fresh.state.frameIndex = old.state.frameIndex;
  }

  // Swap the new design in; what belongs to the World rather than to its
  // design (observers, warnings, identity) carries over.
  fresh.stepObservers = std::move(old.stepObservers);
  fresh.lastObserverId = old.lastObserverId;
  fresh.controller = std::move(old.controller);
  fresh.warnings = std::move(old.warnings);
  fresh.serial = old.serial;
  fresh.compileCount = old.compileCount + fresh.compileCount;
  fresh.qVersion = old.qVersion + 1;
  fresh.vVersion = old.vVersion + 1;
  fresh.aVersion = old.aVersion + 1;
  fresh.self = this;
  std::swap(m_impl, scratch.m_impl);
  scratch.m_impl->self = &scratch;
}

}  // namespace articula

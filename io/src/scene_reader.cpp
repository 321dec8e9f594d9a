// Reads the native scene format (see scene_file.hpp, docs/scene-format.md).
#include "import_common.hpp"
#include "input_guard.hpp"
#include "scene_common.hpp"

#include <articula/io/load_checks.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/joint_types.hpp>

#include <tinyxml2.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace articula::io {

ImportError::ImportError(std::string file, int line, const std::string& problem)
    : Error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + problem),
      m_file(std::move(file)),
      m_line(line) {}

namespace {

using tinyxml2::XMLElement;

class Reader {
 public:
  Reader(World& world, std::string source, std::filesystem::path base)
      : m_world(world), m_source(std::move(source)), m_base(std::move(base)) {}

  void run(const std::string& text) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
      throw ImportError(m_source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
    }
    const XMLElement* root = doc.RootElement();
    if (root == nullptr || std::string(root->Name()) != "articula") {
      throw ImportError(m_source, root ? root->GetLineNum() : 0, "expected the root element <articula version=\"1\">");
    }
    const int version = integer(root, "version");
    if (version > kSceneFormatVersion) {
      throw ImportError(m_source, root->GetLineNum(),
                        "the scene has format version " + std::to_string(version) +
                            "; this build reads versions up to " + std::to_string(kSceneFormatVersion) +
                            " (it was written by a newer Articula)");
    }
    if (version < 1) throw ImportError(m_source, root->GetLineNum(), "format version must be at least 1");
    std::vector<const XMLElement*> keyframes;
    for (const XMLElement* e = root->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
      m_readElements.insert(e);
      const std::string name = e->Name();
      try {
        if (name == "options") {
          readOptions(e);
        } else if (name == "rigid_body") {
          readRigidBody(e);
        } else if (name == "multibody") {
          readMultibody(e);
        } else if (name == "frame") {
          readFrame(e);
        } else if (name == "shape") {
          readShape(e);
        } else if (name == "collision_setting") {
          m_world.setCollisionEnabled(frame(e, "a"), frame(e, "b"), boolean(e, "enabled"));
        } else if (name == "loop_closure") {
          readClosure(e);
        } else if (name == "joint_coupler") {
          readCoupler(e);
        } else if (name == "actuator" && version >= 2) {
          readActuator(e);
        } else if (name == "schedule" && version >= 2) {
          readSchedule(e);
        } else if (name == "keyframe" && version >= 2) {
          keyframes.push_back(e);  // once every body exists
        } else if (name == "sensor" && version >= 3) {
          readSensor(e);
        } else if (name == "viewpoint" && version >= 4) {
          readViewpoint(e);
        } else if (name == "recording") {
          if (m_recording) fail(e, "a second <recording> section (a scene has at most one)");
          readRecording(e);
        } else {
          fail(e, "unknown element <" + name + ">");
        }
      } catch (const ImportError&) {
        throw;
      } catch (const Error& err) {
        fail(e, err.what());
      }
    }
    for (const XMLElement* e : keyframes) {
      try {
        readKeyframe(e);
      } catch (const ImportError&) {
        throw;
      } catch (const Error& err) {
        fail(e, err.what());
      }
    }
    checkEverythingRead(root);
    applyState();
    for (const ImmovableLink& link : findImmovableLinks(m_world)) {
      const auto line = m_linkLines.find(link.link);
      throw ImportError(m_source, line == m_linkLines.end() ? 0 : line->second, link.problem);
    }
  }

 private:
  [[noreturn]] void fail(const XMLElement* e, const std::string& problem) const {
    throw ImportError(m_source, e ? e->GetLineNum() : 0, problem);
  }

  // Every attribute and element the reader consults is marked; whatever is
  // left unmarked at the end is unknown (a misspelling) or unused, and an
  // error (docs/scene-format.md).
  const char* attribute(const XMLElement* e, const char* attr) const {
    m_readAttributes.emplace(e, attr);
    return e->Attribute(attr);
  }

  bool has(const XMLElement* e, const char* attr) const { return attribute(e, attr) != nullptr; }

  const XMLElement* child(const XMLElement* e, const char* name) const {
    const XMLElement* c = e->FirstChildElement(name);
    if (c != nullptr) m_readElements.insert(c);
    return c;
  }

  void checkEverythingRead(const XMLElement* e) const {
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a != nullptr; a = a->Next()) {
      if (m_readAttributes.count({e, a->Name()}) == 0) {
        fail(e, std::string("unknown attribute '") + a->Name() + "' on <" + e->Name() +
                    "> (misspelt, or not used by this element)");
      }
    }
    for (const XMLElement* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
      if (m_readElements.count(c) == 0) {
        fail(c, std::string("unknown element <") + c->Name() + "> in <" + e->Name() +
                    "> (misspelt, repeated, or not used by this element)");
      }
      checkEverythingRead(c);
    }
  }

  const char* text(const XMLElement* e, const char* attr) const {
    const char* value = attribute(e, attr);
    if (value == nullptr) fail(e, std::string("<") + e->Name() + "> needs the attribute '" + attr + "'");
    return value;
  }

  std::string optionalText(const XMLElement* e, const char* attr) const {
    const char* value = attribute(e, attr);
    return value ? value : "";
  }

  std::vector<double> numbers(const XMLElement* e, const char* attr, int expected = -1, bool required = true) const {
    std::vector<double> out;
    const char* value = attribute(e, attr);
    if (value == nullptr) {
      if (required) fail(e, std::string("<") + e->Name() + "> needs the attribute '" + attr + "'");
      return out;
    }
    const char* p = value;
    while (*p != '\0') {
      while (*p == ' ' || *p == '\t' || *p == '\n') ++p;
      if (*p == '\0') break;
      char* end = nullptr;
      const double x = std::strtod(p, &end);
      if (end == p || std::isnan(x)) {
        fail(e, std::string("attribute '") + attr + "' = \"" + value + "\": expected numbers");
      }
      out.push_back(x);
      p = end;
    }
    if (expected >= 0 && static_cast<int>(out.size()) != expected) {
      fail(e, std::string("attribute '") + attr + "' = \"" + value + "\": expected " + std::to_string(expected) +
                  " numbers, found " + std::to_string(out.size()));
    }
    return out;
  }

  double number(const XMLElement* e, const char* attr) const { return numbers(e, attr, 1)[0]; }

  // The value of an attribute that names one of `options`.
  template <class T>
  T choose(const XMLElement* e, const char* attr, std::initializer_list<std::pair<const char*, T>> options) const {
    const std::string value = text(e, attr);
    std::string expected;
    for (const auto& [name, result] : options) {
      if (value == name) return result;
      expected += (expected.empty() ? "" : " | ") + std::string(name);
    }
    fail(e, "attribute '" + std::string(attr) + "' = '" + value + "': expected " + expected);
  }

  int integer(const XMLElement* e, const char* attr) const {
    int value = 0;
    m_readAttributes.emplace(e, attr);
    if (e->QueryIntAttribute(attr, &value) != tinyxml2::XML_SUCCESS) {
      fail(e, std::string("attribute '") + attr + "' must be an integer");
    }
    return value;
  }

  bool boolean(const XMLElement* e, const char* attr) const {
    bool value = false;
    m_readAttributes.emplace(e, attr);
    if (e->QueryBoolAttribute(attr, &value) != tinyxml2::XML_SUCCESS) {
      fail(e, std::string("attribute '") + attr + "' must be true or false");
    }
    return value;
  }

  Vector3d vector3(const XMLElement* e, const char* attr) const {
    const auto v = numbers(e, attr, 3);
    return {v[0], v[1], v[2]};
  }

  VectorXd vectorX(const XMLElement* e, const char* attr) const {
    const auto v = numbers(e, attr, -1, false);
    return Eigen::Map<const VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
  }

  Matrix3d matrix3(const XMLElement* e, const char* attr) const {
    const auto v = numbers(e, attr, 9);
    Matrix3d R;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) R(r, c) = v[static_cast<std::size_t>(3 * r + c)];
    return R;
  }

  const XMLElement* required(const XMLElement* e, const char* name) const {
    const XMLElement* c = child(e, name);
    if (c == nullptr) fail(e, std::string("<") + e->Name() + "> needs a <" + name + "> element");
    return c;
  }

  Isometry3d pose(const XMLElement* parent, const char* name) const {
    const XMLElement* e = required(parent, name);
    Isometry3d X = Isometry3d::Identity();
    X.translation() = vector3(e, "translation");
    X.linear() = matrix3(e, "rotation");
    return X;
  }

  Inertia inertia(const XMLElement* parent) const {
    const XMLElement* e = required(parent, "inertia");
    Inertia in;
    in.mass = number(e, "mass");
    in.com = vector3(e, "com");
    in.rotational = matrix3(e, "rotational");
    return in;
  }

  Frame frame(const XMLElement* e, const char* attr) const {
    const std::string name = text(e, attr);
    if (name == "world") return Frame::World();
    const auto f = m_world.getFrame(name);
    if (!f)
      fail(e, "attribute '" + std::string(attr) + "': no frame named '" + name + "' (defined earlier in the file)");
    return *f;
  }

  void readOptions(const XMLElement* e) {
    WorldOptions o = m_world.getOptions();
    o.gravity = vector3(e, "gravity");
    o.timeStep = number(e, "time_step");
    o.integrator = choose<Integrator>(
        e, "integrator", {{"semi-implicit-euler", Integrator::SemiImplicitEuler}, {"rk4", Integrator::RungeKutta4}});
    if (const XMLElement* s = child(e, "solver")) {
      ConstraintSolverOptions& so = o.solver;
      so.method = text(s, "method");
      so.maxIterations = integer(s, "max_iterations");
      so.tolerance = number(s, "tolerance");
      so.warmStart = boolean(s, "warm_start");
      so.frictionDirections = integer(s, "friction_directions");
      so.restitutionThreshold = number(s, "restitution_threshold");
      so.errorCorrection = choose<ErrorCorrection>(
          s, "error_correction",
          {{"baumgarte", ErrorCorrection::Baumgarte}, {"split-impulse", ErrorCorrection::SplitImpulse}});
      so.errorReduction = number(s, "error_reduction");
      so.allowedPenetration = number(s, "allowed_penetration");
      so.maxCorrectionVelocity = number(s, "max_correction_velocity");
      so.constraintForceMixing = number(s, "constraint_force_mixing");
      so.limitErrorReduction = number(s, "limit_error_reduction");
      // Added in a later version of the format: optional, defaults kept.
      if (s->Attribute("convergence_tolerance") != nullptr)
        so.convergenceTolerance = number(s, "convergence_tolerance");
      if (s->Attribute("krylov_iterations") != nullptr) so.krylovIterations = integer(s, "krylov_iterations");
      if (s->Attribute("convex_regularization") != nullptr)
        so.convexRegularization = number(s, "convex_regularization");
    }
    m_world.setOptions(o);
  }

  void rememberState(const XMLElement* parent, const std::string& owner, const std::string& joint) {
    const XMLElement* s = child(parent, "state");
    if (s == nullptr) return;
    m_states.push_back({owner, joint, vectorX(s, "q"), vectorX(s, "v"), vectorX(s, "tau"), s->GetLineNum()});
  }

  void readRigidBody(const XMLElement* e) {
    RigidBodyOptions o;
    o.inertia = inertia(e);
    const RigidBody body = m_world.addRigidBody(text(e, "name"), o);
    rememberState(e, body.name(), "");
  }

  JointSpec jointSpec(const XMLElement* e) const {
    JointSpec js;
    js.name = text(e, "name");
    const std::string type = text(e, "type");
    if (!jointTypeFromString(type, js.type)) fail(e, "unknown joint type '" + type + "'");
    js.axis = vector3(e, "axis");
    if (has(e, "axis2")) js.axis2 = vector3(e, "axis2");
    const std::string order = has(e, "euler_order") ? text(e, "euler_order") : "xyz";
    bool known = false;
    for (const auto o : {EulerOrder::XYZ, EulerOrder::ZYX, EulerOrder::ZYZ, EulerOrder::XZY, EulerOrder::YXZ,
                         EulerOrder::YZX, EulerOrder::ZXY}) {
      if (order == eulerOrderName(o)) {
        js.eulerOrder = o;
        known = true;
      }
    }
    if (!known) fail(e, "unknown euler_order '" + order + "'");
    if (has(e, "pitch")) js.pitch = number(e, "pitch");
    js.positionLowerLimits = vectorX(e, "lower");
    js.positionUpperLimits = vectorX(e, "upper");
    js.velocityLimits = vectorX(e, "velocity_limit");
    js.effortLimits = vectorX(e, "effort_limit");
    js.restPositions = vectorX(e, "rest");
    js.springStiffness = vectorX(e, "stiffness");
    js.damping = vectorX(e, "damping");
    js.armature = vectorX(e, "armature");
    js.coulombFriction = vectorX(e, "friction");
    js.parentOffset = pose(e, "parent_offset");
    js.childOffset = pose(e, "child_offset");
    return js;
  }

  void readMultibody(const XMLElement* e) {
    Multibody mb = m_world.addMultibody(text(e, "name"));
    if (has(e, "self_collision")) mb.setSelfCollision(boolean(e, "self_collision"));
    std::map<std::string, Link> links;
    for (const XMLElement* l = e->FirstChildElement(); l != nullptr; l = l->NextSiblingElement()) {
      m_readElements.insert(l);
      if (std::string(l->Name()) != "link") fail(l, "unknown element <" + std::string(l->Name()) + "> in <multibody>");
      try {
        LinkOptions lo;
        lo.name = text(l, "name");
        lo.inertia = inertia(l);
        const JointSpec js = jointSpec(required(l, "joint"));
        const std::string parent = optionalText(l, "parent");
        Link link;
        if (parent.empty()) {
          link = mb.addLink(lo, js);
        } else {
          const auto it = links.find(parent);
          if (it == links.end()) fail(l, "parent link '" + parent + "' is not defined before this link");
          link = mb.addLink(lo, it->second, js);
        }
        links[lo.name] = link;
        m_linkLines[link.name()] = l->GetLineNum();
        rememberState(l, mb.name(), js.name);
      } catch (const ImportError&) {
        throw;
      } catch (const Error& err) {
        fail(l, err.what());
      }
    }
  }

  void readFrame(const XMLElement* e) {
    const std::string kind = text(e, "kind");
    const Frame parent = frame(e, "parent");
    const Isometry3d X = pose(e, "pose");
    if (kind == "free") {
      FreeFrame f = m_world.addFreeFrame(text(e, "name"), parent, X);
      const auto v = numbers(e, "velocity", 6, false);
      const auto a = numbers(e, "acceleration", 6, false);
      if (!v.empty()) f.setRelativeSpatialVelocity(Eigen::Map<const Vector6d>(v.data()));
      if (!a.empty()) f.setRelativeSpatialAcceleration(Eigen::Map<const Vector6d>(a.data()));
    } else if (kind == "fixed") {
      m_world.addFixedFrame(text(e, "name"), parent, X);
    } else {
      fail(e, "unknown frame kind '" + kind + "' (expected free or fixed)");
    }
  }

  // "first count r g b a" per coloured part of a triangle mesh; the shape
  // checks ranges and colours when it is added.
  std::vector<MeshPart> parts(const XMLElement* e) const {
    const auto v = numbers(e, "parts");
    if (v.size() % 6 != 0) fail(e, "attribute 'parts': expected groups of six numbers (first count r g b a)");
    std::vector<MeshPart> out;
    for (std::size_t i = 0; i < v.size(); i += 6) {
      for (std::size_t k = 0; k < 2; ++k) {
        if (v[i + k] != std::floor(v[i + k]) || std::abs(v[i + k]) > 2e9) {
          fail(e, "attribute 'parts': the first triangle and the count must be whole numbers");
        }
      }
      out.push_back(MeshPart{static_cast<int>(v[i]), static_cast<int>(v[i + 1]),
                             Vector4d(v[i + 2], v[i + 3], v[i + 4], v[i + 5])});
    }
    return out;
  }

  Geometry geometry(const XMLElement* parent) const {
    const XMLElement* e = required(parent, "geometry");
    const std::string type = text(e, "type");
    if (type == "box") return Geometry::box(vector3(e, "size"));
    if (type == "ellipsoid") return Geometry::ellipsoid(vector3(e, "size"));
    if (type == "sphere") return Geometry::sphere(number(e, "radius"));
    if (type == "capsule") return Geometry::capsule(number(e, "radius"), number(e, "length"));
    if (type == "cylinder") return Geometry::cylinder(number(e, "radius"), number(e, "length"));
    if (type == "plane") return Geometry::plane();
    if ((type == "convex_mesh" || type == "triangle_mesh") && has(e, "file")) {
      std::filesystem::path file = text(e, "file");
      if (file.is_relative()) file = m_base / file;
      const Vector3d scale = has(e, "scale") ? vector3(e, "scale") : Vector3d::Ones();
      if (!std::filesystem::exists(file)) fail(e, "mesh file '" + file.string() + "' does not exist");
      Geometry g;
      try {
        g = detail::meshGeometry(file, scale, type == "convex_mesh");
      } catch (const Error& err) {
        fail(e, "mesh file '" + file.string() + "': " + err.what());
      }
      if (type == "triangle_mesh" && has(e, "parts")) g.parts = parts(e);
      return g;
    }
    if (type == "convex_mesh" || type == "triangle_mesh") {
      const auto v = numbers(e, "vertices");
      if (v.size() % 3 != 0) fail(e, "attribute 'vertices': expected x y z triples");
      std::vector<Vector3d> vertices;
      for (std::size_t i = 0; i < v.size(); i += 3) vertices.emplace_back(v[i], v[i + 1], v[i + 2]);
      if (type == "convex_mesh") return Geometry::convexMesh(std::move(vertices));
      const auto t = numbers(e, "triangles");
      if (t.size() % 3 != 0) fail(e, "attribute 'triangles': expected index triples");
      std::vector<std::array<int, 3>> triangles;
      for (std::size_t i = 0; i < t.size(); i += 3)
        triangles.push_back({static_cast<int>(t[i]), static_cast<int>(t[i + 1]), static_cast<int>(t[i + 2])});
      Geometry g = Geometry::triangleMesh(std::move(vertices), std::move(triangles));
      if (has(e, "parts")) g.parts = parts(e);
      return g;
    }
    fail(e, "unknown geometry type '" + type + "'");
  }

  void readShape(const XMLElement* e) {
    const std::string kind = text(e, "kind");
    const Frame owner = frame(e, "owner");
    if (kind == "collision") {
      CollisionShapeOptions o;
      o.name = text(e, "name");
      o.geometry = geometry(e);
      o.pose = pose(e, "pose");
      const XMLElement* m = required(e, "material");
      o.material.friction = number(m, "friction");
      o.material.restitution = number(m, "restitution");
      o.collidable = boolean(e, "collidable");
      m_world.addCollisionShape(owner, o);
    } else if (kind == "visual") {
      VisualShapeOptions o;
      o.name = text(e, "name");
      o.geometry = geometry(e);
      o.pose = pose(e, "pose");
      const auto c = numbers(e, "color", 4);
      o.color = Vector4d(c[0], c[1], c[2], c[3]);
      m_world.addVisualShape(owner, o);
    } else {
      fail(e, "unknown shape kind '" + kind + "' (expected collision or visual)");
    }
  }

  LoopClosureRuntimePolicy policy(const XMLElement* parent) const {
    LoopClosureRuntimePolicy p;
    const XMLElement* e = child(parent, "policy");
    if (e == nullptr) return p;
    p.enabled = boolean(e, "enabled");
    p.kinematics = choose<ClosureKinematicsPolicy>(
        e, "kinematics",
        {{"project", ClosureKinematicsPolicy::Project}, {"residual-only", ClosureKinematicsPolicy::ResidualOnly}});
    p.dynamics = choose<ClosureDynamicsPolicy>(
        e, "dynamics", {{"solve", ClosureDynamicsPolicy::Solve}, {"off", ClosureDynamicsPolicy::Off}});
    p.stabilization = choose<ClosureStabilization>(
        e, "stabilization",
        {{"baumgarte", ClosureStabilization::Baumgarte}, {"compliance", ClosureStabilization::Compliance}});
    p.errorReduction = number(e, "error_reduction");
    p.stiffness = number(e, "stiffness");
    p.damping = number(e, "damping");
    p.projectAfterStep = boolean(e, "project_after_step");
    p.tolerance = number(e, "tolerance");
    p.maxIterations = integer(e, "max_iterations");
    return p;
  }

  void readClosure(const XMLElement* e) {
    LoopClosureSpec spec;
    const std::string family = text(e, "family");
    const auto f = loopClosureFamilyFromString(family);
    if (!f) fail(e, "unknown loop-closure family '" + family + "'");
    spec.family = *f;
    spec.frameA = frame(e, "frame_a");
    spec.frameB = frame(e, "frame_b");
    if (spec.family == LoopClosureFamily::Distance) spec.length = number(e, "length");
    spec.offsetA = pose(e, "offset_a");
    spec.offsetB = pose(e, "offset_b");
    LoopClosure c = m_world.addLoopClosure(text(e, "name"), spec);
    c.setRuntimePolicy(policy(e));
  }

  Joint joint(const XMLElement* e, const char* attr) const {
    const std::string full = text(e, attr);
    const auto slash = full.find('/');
    if (slash == std::string::npos) fail(e, "attribute '" + std::string(attr) + "' must be multibody/joint");
    const auto mb = m_world.getMultibody(full.substr(0, slash));
    const auto j = mb ? mb->getJoint(full.substr(slash + 1)) : std::nullopt;
    if (!j) fail(e, "attribute '" + std::string(attr) + "': no joint '" + full + "'");
    return *j;
  }

  void readCoupler(const XMLElement* e) {
    JointCouplerSpec spec;
    spec.leader = joint(e, "leader");
    spec.follower = joint(e, "follower");
    spec.ratio = number(e, "ratio");
    spec.offset = number(e, "offset");
    JointCoupler c = m_world.addJointCoupler(text(e, "name"), spec);
    c.setRuntimePolicy(policy(e));
  }

  void readActuator(const XMLElement* e) {
    ActuatorSpec a;
    a.name = text(e, "name");
    a.joint = text(e, "joint");
    a.coordinate = integer(e, "coordinate");
    const std::string type = text(e, "type");
    const auto t = actuatorTypeFromString(type);
    if (!t)
      fail(e, "unknown actuator type '" + type + "' (expected motor | position | velocity | pid | dc_motor | lock)");
    a.type = *t;
    a.gear = number(e, "gear");
    const auto control = numbers(e, "control_range", 2);
    a.controlMin = control[0];
    a.controlMax = control[1];
    const auto force = numbers(e, "force_range", 2);
    a.forceMin = force[0];
    a.forceMax = force[1];
    const auto optional = [&](const char* attr) -> std::optional<double> {
      if (!has(e, attr)) return std::nullopt;
      return number(e, attr);
    };
    a.kp = optional("kp");
    a.kd = optional("kd");
    a.kv = optional("kv");
    if (a.type == ActuatorType::Pid) {
      a.ki = number(e, "ki");
      a.integralLimit = number(e, "integral_limit");
    }
    if (a.type == ActuatorType::DcMotor) {
      a.stallTorque = number(e, "stall_torque");
      a.noLoadSpeed = number(e, "no_load_speed");
    }
    if (has(e, "velocity_limit")) a.velocityLimit = number(e, "velocity_limit");
    if (has(e, "gravity_compensation")) a.gravityCompensation = boolean(e, "gravity_compensation");
    a.control = optional("control");
    m_world.addActuator(a);
  }

  void readSensor(const XMLElement* e) {
    SensorSpec s;
    s.name = text(e, "name");
    const std::string type = text(e, "type");
    bool known = false;
    for (const SensorType t : {SensorType::Imu, SensorType::ForceTorque, SensorType::Contact, SensorType::JointEncoder,
                               SensorType::Rangefinder}) {
      if (type == toString(t)) {
        s.type = t;
        known = true;
      }
    }
    if (!known) {
      fail(e,
           "unknown sensor type '" + type + "' (expected imu | force_torque | contact | joint_encoder | rangefinder)");
    }
    if (has(e, "frame")) s.frame = text(e, "frame");
    if (has(e, "joint")) s.joint = text(e, "joint");
    if (e->FirstChildElement("pose") != nullptr) s.pose = pose(e, "pose");
    if (has(e, "rate")) s.rate = number(e, "rate");
    if (has(e, "noise_stddev")) s.noiseStddev = number(e, "noise_stddev");
    if (has(e, "noise_bias")) s.noiseBias = number(e, "noise_bias");
    if (has(e, "seed")) s.seed = wholeNumber(e, "seed", 0);
    if (has(e, "direction")) {
      const std::string d = text(e, "direction");
      if (d != "parent_to_child" && d != "child_to_parent") {
        fail(e, "attribute 'direction' = \"" + d + "\": expected parent_to_child or child_to_parent");
      }
      s.childOnParent = d == "child_to_parent";
    }
    if (has(e, "range")) {
      const auto range = numbers(e, "range", 2);
      s.minRange = range[0];
      s.maxRange = range[1];
    }
    m_world.addSensor(s);
  }

  void readSchedule(const XMLElement* e) {
    ScheduleSpec s;
    s.name = text(e, "name");
    s.actuator = text(e, "actuator");
    s.kind = choose<ScheduleSpec::Kind>(e, "kind",
                                        {{"keyframes", ScheduleSpec::Kind::Keyframes},
                                         {"sine", ScheduleSpec::Kind::Sine},
                                         {"step", ScheduleSpec::Kind::Step}});
    switch (s.kind) {
      case ScheduleSpec::Kind::Keyframes: {
        s.interpolation = choose<ScheduleSpec::Interpolation>(
            e, "interpolation",
            {{"linear", ScheduleSpec::Interpolation::Linear}, {"hold", ScheduleSpec::Interpolation::Hold}});
        s.loop = boolean(e, "loop");
        const auto keys = numbers(e, "keyframes");
        if (keys.empty() || keys.size() % 2 != 0) {
          fail(e, "attribute 'keyframes': expected pairs of time and value (an even count of numbers, at least 2)");
        }
        for (std::size_t k = 0; k < keys.size(); k += 2) s.keyframes.emplace_back(keys[k], keys[k + 1]);
        break;
      }
      case ScheduleSpec::Kind::Sine:
        s.amplitude = number(e, "amplitude");
        s.frequency = number(e, "frequency");
        s.phase = number(e, "phase");
        s.offset = number(e, "offset");
        break;
      case ScheduleSpec::Kind::Step:
        s.offset = number(e, "offset");
        s.amplitude = number(e, "amplitude");
        s.stepTime = number(e, "step_time");
        break;
    }
    m_world.addSchedule(s);
  }

  void readViewpoint(const XMLElement* e) {
    ViewpointSpec v;
    v.name = text(e, "name");
    if (m_world.getViewpoint(v.name)) fail(e, "a second viewpoint named '" + v.name + "'");
    v.eye = vector3(e, "eye");
    v.center = vector3(e, "center");
    if (e->Attribute("fovy") != nullptr) v.fovYDegrees = number(e, "fovy");
    m_world.setViewpoint(v);
  }

  void readKeyframe(const XMLElement* e) {
    KeyframeSpec k;
    k.name = text(e, "name");
    if (e->Attribute("time") != nullptr) k.time = number(e, "time");
    auto vector = [&](const char* attr, bool required) {
      const auto x = numbers(e, attr, -1, required);
      return VectorXd(Eigen::Map<const VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())));
    };
    k.q = vector("q", true);
    k.v = vector("v", false);
    k.controls = vector("controls", false);
    m_world.addKeyframe(k);
  }

  std::uint64_t wholeNumber(const XMLElement* e, const char* attr, std::uint64_t least) const {
    const char* value = text(e, attr);
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(value, &end, 10);
    if (*value == '\0' || *value == '-' || *end != '\0' || errno == ERANGE || n < least) {
      fail(e, std::string("attribute '") + attr + "' = \"" + value +
                  "\": expected a whole number >= " + std::to_string(least));
    }
    return static_cast<std::uint64_t>(n);
  }

  void readRecording(const XMLElement* e) {
    SceneRecording r;
    const auto count = [&](const char* attr, std::uint64_t least) { return wholeNumber(e, attr, least); };
    r.options.every = count("every", 1);
    r.options.budgetBytes = static_cast<std::size_t>(count("budget_bytes", 1));
    r.options.overflow = choose<RecordingOverflow>(
        e, "overflow",
        {{"drop-oldest", RecordingOverflow::DropOldest}, {"thin-to-keyframes", RecordingOverflow::ThinToKeyframes}});
    r.options.deltaEncoding = boolean(e, "delta_encoding");
    const std::uint64_t interval = count("keyframe_interval", 1);
    if (interval > 0xffffffffu) fail(e, "attribute 'keyframe_interval' is too large");
    r.options.keyframeInterval = static_cast<std::uint32_t>(interval);
    r.options.keepBranches = boolean(e, "keep_branches");
    const std::string replay = optionalText(e, "replay");
    if (!replay.empty()) {
      const std::filesystem::path path(replay);
      r.replay = path.is_absolute() || m_base.empty() ? path : m_base / path;
    }
    m_recording = r;
  }

 public:
  const std::optional<SceneRecording>& recording() const { return m_recording; }

 private:
  void applyState() {
    if (m_states.empty()) return;
    const StateSpace space = m_world.getStateSpace();
    WorldState state = m_world.getState();
    for (const auto& s : m_states) {
      const auto seg = space.segment(s.owner, s.joint);
      if (!seg) throw ImportError(m_source, s.line, "state of unknown joint '" + s.owner + "/" + s.joint + "'");
      auto check = [&](const VectorXd& x, int n, const char* what) {
        if (x.size() != n) {
          throw ImportError(m_source, s.line,
                            std::string("<state> ") + what + ": expected " + std::to_string(n) + " numbers, found " +
                                std::to_string(x.size()));
        }
      };
      check(s.q, seg->numPositions, "q");
      check(s.v, seg->numDofs, "v");
      check(s.tau, seg->numDofs, "tau");
      // A state no step can repair is refused here, with its line, rather
      // than as a divergence at the first step.
      if (!s.q.allFinite() || !s.v.allFinite() || !s.tau.allFinite()) {
        throw ImportError(
            m_source, s.line,
            "<state> of '" + s.owner + (s.joint.empty() ? "" : "/" + s.joint) + "' holds a non-finite number");
      }
      if (seg->type == JointType::Ball || seg->type == JointType::Free) {
        const Eigen::Index at = seg->type == JointType::Free ? 3 : 0;
        const double norm = s.q.segment(at, 4).norm();
        if (!(norm > 1e-6)) {
          throw ImportError(m_source, s.line,
                            "<state> of '" + s.owner + (s.joint.empty() ? "" : "/" + s.joint) +
                                "': the orientation quaternion [x y z w] has length " + formatNumber(norm) +
                                "; it must be a unit quaternion (w = 1 for no rotation)");
        }
      }
      state.positions.segment(seg->positionOffset, seg->numPositions) = s.q;
      state.velocities.segment(seg->velocityOffset, seg->numDofs) = s.v;
      state.forces.segment(seg->velocityOffset, seg->numDofs) = s.tau;
    }
    m_world.setState(state);
  }

  struct StateEntry {
    std::string owner, joint;
    VectorXd q, v, tau;
    int line = 0;
  };

  World& m_world;
  std::string m_source;
  std::filesystem::path m_base;
  std::vector<StateEntry> m_states;
  std::optional<SceneRecording> m_recording;
  mutable std::set<std::pair<const XMLElement*, std::string>> m_readAttributes;  ///< attributes consulted
  mutable std::set<const XMLElement*> m_readElements;                            ///< elements consulted
  std::map<std::string, int> m_linkLines;                                        ///< line of each link (full name)
};

}  // namespace

std::optional<SceneRecording> loadSceneFromString(World& world, const std::string& text, const std::string& sourceName,
                                                  const std::filesystem::path& baseDirectory) {
  if (world.isSimulationMode() || world.numMultibodies() + world.numRigidBodies() + world.numFrames() > 0) {
    throw LifecycleError("loadScene needs an empty World in design mode");
  }
  // Read into a world of its own, then applied in one go: a failure leaves
  // `world` as it was.
  World scratch(world.getOptions());
  Reader reader(scratch, sourceName, baseDirectory);
  reader.run(text);
  try {
    world.applySpec(scratch.getSpec(), SpecStatePolicy::FromSpec);
  } catch (const ImportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ImportError(sourceName, 0, e.what());
  }
  return reader.recording();
}

std::optional<SceneRecording> loadScene(World& world, const std::filesystem::path& file) {
  return loadSceneFromString(world, detail::readTextInput(file), file.string(), file.parent_path());
}

}  // namespace articula::io

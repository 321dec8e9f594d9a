// MJCF (MuJoCo XML) writer, checked against MuJoCo 2.2.2 (Debian
// libmujoco-dev): tests/io/test_mjcf_export.cpp loads every file it writes
// with mj_loadXML and compares MuJoCo's forward dynamics with ours.
//
// Layout of the written model:
//   - every body's frame is the joint frame of its Articula link
//     (export.hpp, "Link frames"); its joints sit at the body origin, so ball
//     and free coordinates map directly (quaternions reordered w first);
//   - a joint becomes MuJoCo joints of one body, composed in order the way
//     MuJoCo composes them (each rotation and translation about or along
//     its axis in the frame the previous ones moved):
//       revolute → hinge; prismatic → slide; ball → ball; weld → none;
//       screw → hinge + slide along the axis, tied by a joint equality;
//       universal → hinge(axis), hinge(axis2); euler → three hinges in
//       eulerOrder; planar → slide(axis), slide(axis2), hinge(axis × axis2);
//       translational → slides x, y, z; free root → freejoint; free below
//       the root (MuJoCo only frees top-level bodies) → slides x, y, z + ball;
//   - names: a body is named after its link, a joint after its joint, when
//     the name is unique in the world, else "multibody.link" and
//     "multibody.joint" (no '/', which Articula's names cannot hold); the
//     MuJoCo joints of a joint that becomes several are "<name>:0",
//     "<name>:1", ...; a rigid body's free joint is named after the body;
//     sensors that become several are "<sensor>:accelerometer", ...;
//   - collision shapes are geoms of group 3 (MuJoCo hides it by default),
//     visual shapes geoms of group 1 that collide with nothing;
//   - the initial state: the first MuJoCo joint of every link (both of a
//     screw) gets `ref` = its initial coordinate and the body is written at
//     that coordinate, free bodies at their initial pose, so that MuJoCo's
//     reference configuration qpos0 is the initial configuration where it
//     can be (connect anchors and joint equalities are computed there);
//     the whole initial state (every coordinate, the velocities and the
//     controls) is the first keyframe, "initial".
#include "export_common.hpp"

#include <articula/world.hpp>

#include <tinyxml2.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <set>

namespace articula::io {

namespace {

namespace fs = std::filesystem;
using detail::exportNumber;
using detail::exportNumbers;
using detail::neutralPositions;
using tinyxml2::XMLElement;

// The smallest principal moment of inertia Articula's dynamics uses,
// relative to the largest (engine/src/spatial.hpp kMinPrincipalInertiaRatio,
// docs/loop-closures.md "Nearly inertia-free rotations"): inertias are
// written as the dynamics uses them, so that both engines move the same
// bodies.
constexpr double kMinPrincipalInertiaRatio = 1e-4;
// MuJoCo refuses moving bodies (bodies with joints) whose mass or any
// principal moment is below mjMINVAL = 1e-15; such bodies get these
// (reported), small enough to leave the dynamics of the rest unchanged to
// about 1e-12.
constexpr double kMinMovingMass = 1e-12;     // kg
constexpr double kMinMovingInertia = 1e-14;  // kg·m²
// The frequency of the default servo gains (docs/actuators.md).
constexpr double kDefaultServoFrequency = 10.0;  // Hz
// Hinge closures are written as two connect constraints, at the endpoint
// and this far along the hinge axis.
constexpr double kHingeAxisLength = 0.1;  // m
// A closure counts as assembled at MuJoCo's reference configuration when
// its anchors are this close.
constexpr double kAssembledTolerance = 1e-8;  // m

std::string quatText(const Matrix3d& R) {
  Quaterniond q(R);
  q.normalize();
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();
  return exportNumber(q.w()) + " " + exportNumber(q.x()) + " " + exportNumber(q.y()) + " " + exportNumber(q.z());
}

Matrix3d axisRotation(const Vector3d& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis).toRotationMatrix();
}

double at(const VectorXd& v, int i, double fallback) {
  return i < v.size() ? v[i] : fallback;
}

// One MuJoCo joint written for (a part of) an Articula joint.
enum class PartKind { Hinge, Slide, Ball, Free };

struct Part {
  PartKind kind = PartKind::Hinge;
  Vector3d axis = Vector3d::UnitZ();  // hinge, slide: unit axis in the body frame before this part moves it
  int dof = 0;                        // our DoF index within the joint (hinge, slide); first DoF (ball, free)
  double scale = 1.0;                 // coordinate = scale · our coordinate `dof` (the screw's slide: pitch)
  std::string name;
  double ref = 0.0;  // MuJoCo's reference coordinate (qpos0) for hinge and slide
};

Vector3d unit(const Vector3d& v, const Vector3d& fallback) {
  const double n = v.norm();
  return n > 0.0 && std::isfinite(n) ? Vector3d(v / n) : fallback;
}

std::array<Vector3d, 3> eulerAxes(EulerOrder order) {
  const Vector3d X = Vector3d::UnitX();
  const Vector3d Y = Vector3d::UnitY();
  const Vector3d Z = Vector3d::UnitZ();
  switch (order) {
    case EulerOrder::XYZ:
      return {X, Y, Z};
    case EulerOrder::ZYX:
      return {Z, Y, X};
    case EulerOrder::ZYZ:
      return {Z, Y, Z};
    case EulerOrder::XZY:
      return {X, Z, Y};
    case EulerOrder::YXZ:
      return {Y, X, Z};
    case EulerOrder::YZX:
      return {Y, Z, X};
    case EulerOrder::ZXY:
      return {Z, X, Y};
  }
  return {X, Y, Z};
}

// The MuJoCo joints of a joint (file comment), without names and refs.
std::vector<Part> jointParts(const JointSpec& js, bool isRoot) {
  std::vector<Part> parts;
  const auto add = [&](PartKind kind, const Vector3d& axis, int dof, double scale = 1.0) {
    Part p;
    p.kind = kind;
    p.axis = axis;
    p.dof = dof;
    p.scale = scale;
    parts.push_back(p);
  };
  const Vector3d a1 = unit(js.axis, Vector3d::UnitZ());
  const Vector3d a2 = unit(js.axis2, Vector3d::UnitY());
  switch (js.type) {
    case JointType::Weld:
      break;
    case JointType::Revolute:
      add(PartKind::Hinge, a1, 0);
      break;
    case JointType::Prismatic:
      add(PartKind::Slide, a1, 0);
      break;
    case JointType::Screw:
      add(PartKind::Hinge, a1, 0);
      add(PartKind::Slide, a1, 0, js.pitch);
      break;
    case JointType::Universal:
      add(PartKind::Hinge, a1, 0);
      add(PartKind::Hinge, a2, 1);
      break;
    case JointType::Ball:
      add(PartKind::Ball, Vector3d::UnitZ(), 0);
      break;
    case JointType::Euler: {
      const auto axes = eulerAxes(js.eulerOrder);
      for (int k = 0; k < 3; ++k) add(PartKind::Hinge, axes[static_cast<std::size_t>(k)], k);
      break;
    }
    case JointType::Planar:
      add(PartKind::Slide, a1, 0);
      add(PartKind::Slide, a2, 1);
      add(PartKind::Hinge, unit(a1.cross(a2), Vector3d::UnitZ()), 2);
      break;
    case JointType::Translational:
      add(PartKind::Slide, Vector3d::UnitX(), 0);
      add(PartKind::Slide, Vector3d::UnitY(), 1);
      add(PartKind::Slide, Vector3d::UnitZ(), 2);
      break;
    case JointType::Free:
      if (isRoot) {
        add(PartKind::Free, Vector3d::UnitZ(), 0);
      } else {
        // Linear DoFs 3..5 of the body twist; p moves along the parent's axes.
        add(PartKind::Slide, Vector3d::UnitX(), 3);
        add(PartKind::Slide, Vector3d::UnitY(), 4);
        add(PartKind::Slide, Vector3d::UnitZ(), 5);
        add(PartKind::Ball, Vector3d::UnitZ(), 0);
      }
      break;
  }
  return parts;
}

// The joint motion X_J(q) (docs/conventions.md), for the initial state.
Isometry3d jointMotion(const JointSpec& js, const VectorXd& q) {
  Isometry3d X = Isometry3d::Identity();
  const Vector3d a1 = unit(js.axis, Vector3d::UnitZ());
  const Vector3d a2 = unit(js.axis2, Vector3d::UnitY());
  const auto quat = [&](int o) {
    Quaterniond Q(q[o + 3], q[o], q[o + 1], q[o + 2]);
    if (Q.norm() == 0.0) return Matrix3d(Matrix3d::Identity());
    return Matrix3d(Q.normalized().toRotationMatrix());
  };
  if (q.size() < numPositions(js.type)) return X;
  switch (js.type) {
    case JointType::Weld:
      break;
    case JointType::Revolute:
      X.linear() = axisRotation(a1, q[0]);
      break;
    case JointType::Prismatic:
      X.translation() = a1 * q[0];
      break;
    case JointType::Screw:
      X.linear() = axisRotation(a1, q[0]);
      X.translation() = a1 * (js.pitch * q[0]);
      break;
    case JointType::Universal:
      X.linear() = axisRotation(a1, q[0]) * axisRotation(a2, q[1]);
      break;
    case JointType::Ball:
      X.linear() = quat(0);
      break;
    case JointType::Euler: {
      const auto ax = eulerAxes(js.eulerOrder);
      X.linear() = axisRotation(ax[0], q[0]) * axisRotation(ax[1], q[1]) * axisRotation(ax[2], q[2]);
      break;
    }
    case JointType::Planar:
      X.linear() = axisRotation(unit(a1.cross(a2), Vector3d::UnitZ()), q[2]);
      X.translation() = a1 * q[0] + a2 * q[1];
      break;
    case JointType::Translational:
      X.translation() = Vector3d(q[0], q[1], q[2]);
      break;
    case JointType::Free:
      X.linear() = quat(3);
      X.translation() = Vector3d(q[0], q[1], q[2]);
      break;
  }
  return X;
}

// The motion of one hinge or slide part at coordinate x.
Isometry3d partMotion(const Part& p, double x) {
  Isometry3d X = Isometry3d::Identity();
  if (p.kind == PartKind::Hinge) X.linear() = axisRotation(p.axis, x);
  if (p.kind == PartKind::Slide) X.translation() = p.axis * x;
  return X;
}

// An exported body: a link or a rigid body.
struct Body {
  std::string name;
  const MultibodySpec* multibody = nullptr;
  const LinkSpec* link = nullptr;
  const RigidBodySpec* rigidBody = nullptr;
  int parent = -1;             // index into m_bodies, -1: the world
  std::vector<Part> parts;     // its MuJoCo joints
  std::string jointName;       // the base name of its joint
  Isometry3d X0;               // exportedJointOrigin (rigid body: identity)
  Isometry3d written;          // pos/quat in the parent body (the reference configuration)
  Isometry3d X_W_ref;          // world pose at MuJoCo's reference configuration qpos0
  VectorXd q0, v0;             // our initial coordinates of its joint
  bool moving = false;         // has MuJoCo joints
  bool collides = false;       // has collidable collision shapes
  bool initialInQpos0 = true;  // the initial coordinates are MuJoCo's qpos0
};

class Writer {
 public:
  Writer(const WorldSpec& spec, ExportReport& report, const ExportOptions& options)
      : m_spec(spec), m_report(report), m_options(options) {}

  std::string run() {
    m_doc.InsertEndChild(m_doc.NewDeclaration());
    m_root = m_doc.NewElement("mujoco");
    m_doc.InsertEndChild(m_root);
    m_root->SetAttribute("model", (m_options.modelName.empty() ? "articula" : m_options.modelName).c_str());
    XMLElement* compiler = child(m_root, "compiler");
    compiler->SetAttribute("angle", "radian");
    compiler->SetAttribute("autolimits", "true");
    compiler->SetAttribute("inertiafromgeom", "false");
    writeOptions();
    m_asset = child(m_root, "asset");
    m_worldbody = child(m_root, "worldbody");

    collectBodies();
    writeWorldContent();
    for (std::size_t i = 0; i < m_bodies.size(); ++i) {
      if (m_bodies[i].parent < 0) writeBody(m_worldbody, i);
    }
    for (const FrameSpec& f : m_spec.frames) writeFrame(f);
    writeContacts();
    writeEqualities();
    writeActuators();
    writeSensors();
    writeKeyframes();
    for (const ScheduleSpec& s : m_spec.schedules) {
      detail::notExported(m_report, "schedule '" + s.name + "'",
                          "MJCF has no control schedules (MuJoCo's controls are set by the program)");
    }
    for (const ViewpointSpec& v : m_spec.viewpoints) writeCamera(v);
    removeIfEmpty(m_asset);
    tinyxml2::XMLPrinter printer;
    m_doc.Print(&printer);
    return printer.CStr();
  }

 private:
  // ---- small helpers ---------------------------------------------------

  XMLElement* child(XMLElement* parent, const char* name) {
    XMLElement* e = m_doc.NewElement(name);
    parent->InsertEndChild(e);
    return e;
  }

  XMLElement* section(XMLElement*& slot, const char* name) {
    if (slot == nullptr) slot = child(m_root, name);
    return slot;
  }

  static void removeIfEmpty(XMLElement* e) {
    if (e != nullptr && e->NoChildren()) e->Parent()->DeleteChild(e);
  }

  static void setPose(XMLElement* e, const Isometry3d& X) {
    if (!X.translation().isZero(0.0)) e->SetAttribute("pos", exportNumbers(Vector3d(X.translation())).c_str());
    if (!X.linear().isIdentity(0.0)) e->SetAttribute("quat", quatText(X.linear()).c_str());
  }

  static void setNumber(XMLElement* e, const char* name, double x) { e->SetAttribute(name, exportNumber(x).c_str()); }

  std::string uniqueName(std::set<std::string>& used, const std::string& base) {
    if (used.insert(base).second) return base;
    for (int k = 1;; ++k) {
      const std::string candidate = base + "_" + std::to_string(k);
      if (used.insert(candidate).second) return candidate;
    }
  }

  // ---- options -----------------------------------------------------------

  void writeOptions() {
    const WorldOptions& o = m_spec.options;
    XMLElement* e = child(m_root, "option");
    setNumber(e, "timestep", o.timeStep);
    e->SetAttribute("gravity", exportNumbers(o.gravity).c_str());
    e->SetAttribute("integrator", o.integrator == Integrator::RungeKutta4 ? "RK4" : "Euler");
    detail::converted(m_report, "options",
                      "MuJoCo solves contacts, limits, joint friction and equality constraints with its own "
                      "soft-constraint solver (default solref/solimp, friction max of the two geoms); "
                      "Articula's solver settings and divergence checks are not written");
  }

  // ---- bodies ------------------------------------------------------------

  // The packing order of the owners (WorldSpec::ownerOrder).
  std::vector<std::pair<const RigidBodySpec*, const MultibodySpec*>> ownersInOrder() const {
    std::vector<std::pair<const RigidBodySpec*, const MultibodySpec*>> out;
    std::vector<bool> rigidDone(m_spec.rigidBodies.size(), false);
    std::vector<bool> multibodyDone(m_spec.multibodies.size(), false);
    for (const std::string& name : m_spec.ownerOrder) {
      for (std::size_t i = 0; i < m_spec.rigidBodies.size(); ++i) {
        if (!rigidDone[i] && m_spec.rigidBodies[i].name == name) {
          out.emplace_back(&m_spec.rigidBodies[i], nullptr);
          rigidDone[i] = true;
        }
      }
      for (std::size_t i = 0; i < m_spec.multibodies.size(); ++i) {
        if (!multibodyDone[i] && m_spec.multibodies[i].name == name) {
          out.emplace_back(nullptr, &m_spec.multibodies[i]);
          multibodyDone[i] = true;
        }
      }
    }
    for (std::size_t i = 0; i < m_spec.rigidBodies.size(); ++i) {
      if (!rigidDone[i]) out.emplace_back(&m_spec.rigidBodies[i], nullptr);
    }
    for (std::size_t i = 0; i < m_spec.multibodies.size(); ++i) {
      if (!multibodyDone[i]) out.emplace_back(nullptr, &m_spec.multibodies[i]);
    }
    return out;
  }

  void collectBodies() {
    // Names: plain where unique in the world, else qualified by the multibody.
    std::map<std::string, int> bodyCount;
    std::map<std::string, int> jointCount;
    bodyCount["world"] = 1;
    for (const RigidBodySpec& r : m_spec.rigidBodies) {
      ++bodyCount[r.name];
      ++jointCount[r.name];
    }
    for (const MultibodySpec& mb : m_spec.multibodies) {
      for (const LinkSpec& l : mb.links) {
        ++bodyCount[l.name];
        ++jointCount[l.joint.name];
      }
    }
    std::set<std::string> collidingBodies;
    for (const ShapeSpec& s : m_spec.shapes) {
      if (s.collision && s.collidable) collidingBodies.insert(s.owner);
    }
    for (const auto& owner : ownersInOrder()) {
      // Named, not a structured binding: the lambda below captures it.
      const RigidBodySpec* rigid = owner.first;
      const MultibodySpec* mb = owner.second;
      if (rigid != nullptr) {
        Body b;
        b.name = uniqueName(m_bodyNames, rigid->name);
        b.rigidBody = rigid;
        b.jointName = uniqueName(m_jointNames, rigid->name);
        Part free;
        free.kind = PartKind::Free;
        free.name = b.jointName;
        b.parts.push_back(free);
        b.X0 = Isometry3d::Identity();
        b.written = rigid->pose();
        b.X_W_ref = b.written;
        b.q0 = VectorXd(7);
        const Quaterniond Q = rigid->orientation.normalized();
        b.q0 << rigid->position, Q.x(), Q.y(), Q.z(), Q.w();
        b.v0 = rigid->velocity;
        b.moving = true;
        b.collides = collidingBodies.count(rigid->name) > 0;
        b.initialInQpos0 = rigid->velocity.isZero(0.0);
        m_rigidBodyIndex[rigid] = m_bodies.size();
        m_bodies.push_back(b);
        if (!rigid->force.isZero(0.0)) {
          detail::notExported(m_report, "rigid body '" + rigid->name + "'",
                              "its applied force: MuJoCo keeps applied forces in mjData, not in the model");
        }
        continue;
      }
      // Links in tree order: depth first, children in list order.
      std::function<void(const LinkSpec&, int)> visit = [&](const LinkSpec& link, int parent) {
        addLink(*mb, link, parent, bodyCount, jointCount, collidingBodies);
        const int self = static_cast<int>(m_bodies.size()) - 1;
        for (const LinkSpec& c : mb->links) {
          if (c.parent == link.name) visit(c, self);
        }
      };
      for (const LinkSpec& l : mb->links) {
        if (l.parent.empty()) visit(l, -1);
      }
    }
  }

  void addLink(const MultibodySpec& mb, const LinkSpec& link, int parent, const std::map<std::string, int>& bodyCount,
               const std::map<std::string, int>& jointCount, const std::set<std::string>& collidingBodies) {
    Body b;
    b.multibody = &mb;
    b.link = &link;
    b.parent = parent;
    const auto count = [](const std::map<std::string, int>& m, const std::string& n) {
      const auto it = m.find(n);
      return it == m.end() ? 0 : it->second;
    };
    b.name = uniqueName(m_bodyNames, count(bodyCount, link.name) == 1 ? link.name : mb.name + "." + link.name);
    const std::string jointBase =
        count(jointCount, link.joint.name) == 1 ? link.joint.name : mb.name + "." + link.joint.name;
    const JointSpec& js = link.joint;
    b.parts = jointParts(js, link.parent.empty());
    b.X0 = detail::exportedJointOrigin(mb, link);
    b.q0 = link.q.size() == numPositions(js.type) ? link.q : neutralPositions(js.type);
    b.v0 = link.v.size() == numDofs(js.type) ? link.v : VectorXd(VectorXd::Zero(numDofs(js.type)));
    b.moving = !b.parts.empty();
    b.collides = collidingBodies.count(mb.name + "/" + link.name) > 0;
    if (b.parts.size() == 1) {
      b.parts[0].name = uniqueName(m_jointNames, jointBase);
    } else {
      for (std::size_t k = 0; k < b.parts.size(); ++k) {
        b.parts[k].name = uniqueName(m_jointNames, jointBase + ":" + std::to_string(k));
      }
    }
    b.jointName = jointBase;
    // The reference configuration (file comment): the first hinge or slide
    // (both of a screw) at its initial coordinate, a free root at its pose.
    b.written = b.X0;
    if (!b.parts.empty() && b.parts[0].kind == PartKind::Free) {
      b.written = b.X0 * jointMotion(js, b.q0);
    } else if (!b.parts.empty() && b.parts[0].kind != PartKind::Ball) {
      const std::size_t baked = js.type == JointType::Screw ? 2 : 1;
      for (std::size_t k = 0; k < baked; ++k) {
        Part& p = b.parts[k];
        // A free joint below the root: its slides are p = q[0..2].
        const Eigen::Index i = js.type == JointType::Free ? static_cast<Eigen::Index>(k) : p.dof;
        p.ref = p.scale * b.q0[i];
        b.written = b.written * partMotion(p, p.ref);
      }
      // The coordinates of the other parts are 0 (a ball's the identity) in qpos0.
      for (std::size_t k = baked; k < b.parts.size(); ++k) {
        const Part& p = b.parts[k];
        if (p.kind == PartKind::Ball) {
          const Eigen::Index o = js.type == JointType::Free ? 3 : 0;
          b.initialInQpos0 = b.initialInQpos0 && b.q0[o + 3] == 1.0;
        } else {
          const Eigen::Index i = js.type == JointType::Free ? static_cast<Eigen::Index>(k) : p.dof;
          b.initialInQpos0 = b.initialInQpos0 && b.q0[i] == 0.0;
        }
      }
    } else if (!b.parts.empty()) {
      b.initialInQpos0 = b.q0[3] == 1.0;  // a ball: qpos0 is the identity
    }
    b.initialInQpos0 = b.initialInQpos0 && b.v0.isZero(0.0);
    b.X_W_ref = parent < 0 ? b.written : m_bodies[static_cast<std::size_t>(parent)].X_W_ref * b.written;
    m_linkIndex[&link] = m_bodies.size();
    m_bodies.push_back(b);
    if (link.tau.size() > 0 && !link.tau.isZero(0.0)) {
      detail::notExported(m_report, "joint '" + mb.name + "/" + js.name + "'",
                          "its applied generalized force: MuJoCo keeps applied forces in mjData, not in the model");
    }
  }

  void writeBody(XMLElement* parentElement, std::size_t index) {
    const Body& b = m_bodies[index];
    XMLElement* e = child(parentElement, "body");
    e->SetAttribute("name", b.name.c_str());
    setPose(e, b.written);
    writeJoints(e, b);
    writeInertial(e, b);
    const std::string owner = ownerOf(b);
    for (const ShapeSpec& s : m_spec.shapes) {
      if (s.owner == owner) {
        writeGeom(e, s, b.link != nullptr ? detail::exportedFromLink(*b.link) : Isometry3d::Identity(), &b);
      }
    }
    m_bodyElements[index] = e;
    for (std::size_t i = index + 1; i < m_bodies.size(); ++i) {
      if (m_bodies[i].parent == static_cast<int>(index)) writeBody(e, i);
    }
  }

  // A per-DoF value that MuJoCo holds once for the DoFs first .. first +
  // count − 1 of a joint: the value when they share it, else nothing.
  std::optional<double> uniformValue(const VectorXd& values, int first, int count, double fallback) {
    const double x = at(values, first, fallback);
    for (int k = first + 1; k < first + count; ++k) {
      if (at(values, k, fallback) != x) return std::nullopt;
    }
    return x;
  }

  void writeJoints(XMLElement* e, const Body& b) {
    if (b.rigidBody != nullptr) {
      XMLElement* j = child(e, "joint");
      j->SetAttribute("name", b.parts[0].name.c_str());
      j->SetAttribute("type", "free");
      return;
    }
    const JointSpec& js = b.link->joint;
    const std::string where = "joint '" + b.multibody->name + "/" + js.name + "'";
    std::vector<std::string> lost;
    const double inf = std::numeric_limits<double>::infinity();
    for (const Part& p : b.parts) {
      XMLElement* j = nullptr;
      if (p.kind == PartKind::Free) {
        j = child(e, "joint");  // <freejoint> takes no damping or armature
        j->SetAttribute("name", p.name.c_str());
        j->SetAttribute("type", "free");
      } else {
        j = child(e, "joint");
        j->SetAttribute("name", p.name.c_str());
        j->SetAttribute("type", p.kind == PartKind::Hinge ? "hinge" : p.kind == PartKind::Slide ? "slide" : "ball");
        if (p.kind != PartKind::Ball) j->SetAttribute("axis", exportNumbers(p.axis).c_str());
        if (p.ref != 0.0) setNumber(j, "ref", p.ref);
      }
      // The per-DoF values of this part: one DoF (hinge, slide), or the
      // 3 (ball) or 6 (free) DoFs that MuJoCo gives one value.
      const bool screwSlide = js.type == JointType::Screw && p.kind == PartKind::Slide;
      if (screwSlide) continue;  // the screw's DoF values sit on its hinge
      const int first = p.dof;
      const int count = p.kind == PartKind::Ball ? 3 : p.kind == PartKind::Free ? 6 : 1;
      const auto value = [&](const VectorXd& values, double fallback, const char* attribute, const char* what) {
        const std::optional<double> x = uniformValue(values, first, count, fallback);
        if (!x) {
          lost.push_back(std::string(what) + " (differs between the DoFs MuJoCo's " + p.name + " holds as one)");
          return;
        }
        if (*x != fallback) setNumber(j, attribute, *x);
      };
      const bool vectorJoint = js.type != JointType::Ball && js.type != JointType::Free;
      if (vectorJoint && (p.kind == PartKind::Hinge || p.kind == PartKind::Slide)) {
        const double lo = at(js.positionLowerLimits, first, -inf);
        const double hi = at(js.positionUpperLimits, first, inf);
        if (std::isfinite(lo) || std::isfinite(hi)) {
          j->SetAttribute("range", (exportNumber(lo) + " " + exportNumber(hi)).c_str());
        }
        value(js.springStiffness, 0.0, "stiffness", "spring stiffness");
        if (at(js.springStiffness, first, 0.0) != 0.0 || at(js.restPositions, first, 0.0) != 0.0) {
          setNumber(j, "springref", at(js.restPositions, first, 0.0));
        }
      }
      value(js.damping, 0.0, "damping", "damping");
      value(js.armature, 0.0, "armature", "armature");
      value(js.coulombFriction, 0.0, "frictionloss", "joint friction");
    }
    bool linearArmature = false;
    for (int k = 3; k < 6; ++k) linearArmature = linearArmature || at(js.armature, k, 0.0) != 0.0;
    if (js.type == JointType::Free && linearArmature) {
      // MuJoCo's linear free DoFs are ṗ = R v_B: the armature force a·p̈
      // carries a·(ω × v_B) that Articula's a·v̇_B does not.
      detail::converted(m_report, where,
                        "armature on a free joint's linear DoFs: MuJoCo applies it to the world-frame velocity "
                        "(an extra a·(ω × v) in body coordinates)");
    }
    if (js.type == JointType::Screw) {
      detail::converted(m_report, where,
                        "screw: a hinge and a slide along its axis tied by a joint equality (slide = pitch · angle; "
                        "MuJoCo's soft constraint, one more DoF)");
    }
    if (js.type == JointType::Free && !b.link->parent.empty()) {
      // The slides move along the parent's axes: per-axis values hold only when equal.
      for (const VectorXd* values : {&js.damping, &js.armature, &js.coulombFriction}) {
        if (!uniformValue(*values, 3, 3, 0.0)) {
          lost.push_back("linear damping, armature or friction that differ between the axes");
          break;
        }
      }
      detail::converted(m_report, where,
                        "free joint below the root: three slides along the parent's axes and a ball (MuJoCo frees only "
                        "top-level bodies); its velocity is [ṗ in the parent joint frame; ω]");
    }
    for (int k = 0; k < numDofs(js.type); ++k) {
      if (std::isfinite(at(js.velocityLimits, k, inf))) {
        lost.push_back("velocity limits (MuJoCo has none)");
        break;
      }
    }
    for (int k = 0; k < numDofs(js.type); ++k) {
      if (std::isfinite(at(js.effortLimits, k, inf))) {
        lost.push_back("effort limits (MuJoCo 2.2.2 clamps actuator forces only)");
        break;
      }
    }
    if (!lost.empty()) {
      std::string text;
      for (const std::string& s : lost) text += (text.empty() ? "" : "; ") + s;
      detail::notExported(m_report, where, text);
    }
  }

  // The inertia in the exported frame, as Articula's dynamics uses it.
  void writeInertial(XMLElement* e, const Body& b) {
    const Inertia& in = b.rigidBody != nullptr ? b.rigidBody->inertia : b.link->inertia;
    const Isometry3d E = b.link != nullptr ? detail::exportedFromLink(*b.link) : Isometry3d::Identity();
    const std::string where = b.rigidBody != nullptr ? "rigid body '" + b.rigidBody->name + "'"
                                                     : "link '" + b.multibody->name + "/" + b.link->name + "'";
    const Matrix3d R = E.linear();
    const Matrix3d Ic = R * (0.5 * (in.rotational + in.rotational.transpose())) * R.transpose();
    Eigen::SelfAdjointEigenSolver<Matrix3d> es(Ic);
    Vector3d moments = es.eigenvalues();
    Matrix3d axes = es.eigenvectors();
    if (axes.determinant() < 0.0) axes.col(2) = -axes.col(2);
    double mass = in.mass;
    if (moments[2] > 0.0 && moments[0] < kMinPrincipalInertiaRatio * moments[2]) {
      moments = moments.cwiseMax(kMinPrincipalInertiaRatio * moments[2]);
      detail::converted(m_report, where,
                        "principal moments of inertia raised to 1e-4 of the largest, as Articula's dynamics uses them");
    }
    if (b.moving && (mass < kMinMovingMass || moments.minCoeff() < kMinMovingInertia)) {
      mass = std::max(mass, kMinMovingMass);
      moments = moments.cwiseMax(kMinMovingInertia);
      detail::converted(m_report, where,
                        "mass and principal inertia raised to at least " + exportNumber(kMinMovingMass) + " kg and " +
                            exportNumber(kMinMovingInertia) + " kg·m² (MuJoCo refuses moving bodies without them)");
    }
    // A flat body (A + B = C) may miss MuJoCo's check A + B ≥ C by the
    // rounding of the eigenvalues: share that out.
    const double deficit = moments[2] - moments[0] - moments[1];
    if (deficit > 0.0 && deficit <= 1e-12 * moments[2]) {
      moments[0] += deficit;
      moments[1] += deficit;
    }
    if (mass == 0.0 && moments.isZero(0.0)) return;  // nothing to carry (a static or welded frame)
    XMLElement* i = child(e, "inertial");
    i->SetAttribute("pos", exportNumbers(Vector3d(E * in.com)).c_str());
    if (!axes.isIdentity(0.0)) i->SetAttribute("quat", quatText(axes).c_str());
    setNumber(i, "mass", mass);
    i->SetAttribute("diaginertia", exportNumbers(moments).c_str());
  }

  // ---- geometry ------------------------------------------------------------

  void writeWorldContent() {
    for (const ShapeSpec& s : m_spec.shapes) {
      if (s.owner == "world" || s.owner.empty()) writeGeom(m_worldbody, s, Isometry3d::Identity(), nullptr);
    }
  }

  // Whether MuJoCo 2.2.2 reads the mesh file (STL in binary, OBJ, MSH).
  static bool mujocoReadsMeshFile(const std::string& file) {
    std::string ext = fs::path(file).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return false;
    if (ext == ".obj" || ext == ".msh") return true;
    if (ext != ".stl") return false;
    // MuJoCo rejects ASCII STL: a binary one is 84 + 50·n bytes.
    std::ifstream in(file, std::ios::binary);
    char header[84] = {};
    if (!in.read(header, sizeof header)) return false;
    std::uint32_t n = 0;
    for (int k = 3; k >= 0; --k) n = (n << 8) | static_cast<unsigned char>(header[80 + k]);
    return fs::file_size(file, ec) == 84u + 50u * static_cast<std::uintmax_t>(n);
  }

  // A mesh asset for the shape's geometry; empty when none can be written.
  std::string meshAsset(const ShapeSpec& s) {
    const Geometry& g = s.geometry;
    const std::string where = "shape '" + s.name + "'";
    if (!g.meshFile.empty() && mujocoReadsMeshFile(g.meshFile)) {
      const std::string file = detail::meshReference(g, m_options);
      const std::string key = file + "|" + exportNumbers(g.meshScale);
      const auto it = m_meshAssets.find(key);
      if (it != m_meshAssets.end()) return it->second;
      const std::string name = uniqueName(m_meshNames, fs::path(g.meshFile).stem().string());
      XMLElement* e = child(m_asset, "mesh");
      e->SetAttribute("name", name.c_str());
      e->SetAttribute("file", file.c_str());
      if (g.meshScale != Vector3d::Ones()) e->SetAttribute("scale", exportNumbers(g.meshScale).c_str());
      m_meshAssets[key] = name;
      return name;
    }
    if (g.vertices.size() < 4) {
      detail::notExported(m_report, where, "a mesh of fewer than 4 vertices (MuJoCo needs at least 4)");
      return {};
    }
    const std::string inlineKey =
        "inline|" + g.meshFile + "|" + exportNumbers(g.meshScale) + "|" + std::string(toString(g.type));
    if (!g.meshFile.empty()) {
      detail::converted(m_report, where,
                        "its mesh file '" + g.meshFile +
                            "' is not one MuJoCo 2.2.2 reads (binary STL, OBJ, MSH): written inline as its vertices");
      const auto it = m_meshAssets.find(inlineKey);
      if (it != m_meshAssets.end()) return it->second;
    }
    const std::string name = uniqueName(m_meshNames, s.name);
    XMLElement* e = child(m_asset, "mesh");
    e->SetAttribute("name", name.c_str());
    std::string vertices;
    vertices.reserve(g.vertices.size() * 30);
    for (const Vector3d& v : g.vertices) vertices += (vertices.empty() ? "" : " ") + exportNumbers(v);
    e->SetAttribute("vertex", vertices.c_str());
    if (g.type == GeometryType::TriangleMesh && !g.triangles.empty()) {
      std::string faces;
      for (const auto& t : g.triangles) {
        faces +=
            (faces.empty() ? "" : " ") + std::to_string(t[0]) + " " + std::to_string(t[1]) + " " + std::to_string(t[2]);
      }
      e->SetAttribute("face", faces.c_str());
    }
    if (!g.meshFile.empty()) m_meshAssets[inlineKey] = name;
    return name;
  }

  void writeGeom(XMLElement* parent, const ShapeSpec& s, const Isometry3d& ownerFromLink, const Body* body) {
    const Geometry& g = s.geometry;
    const std::string where = "shape '" + s.name + "'";
    XMLElement* e = m_doc.NewElement("geom");
    e->SetAttribute("name", s.name.c_str());
    switch (g.type) {
      case GeometryType::Box:
        e->SetAttribute("type", "box");
        e->SetAttribute("size", exportNumbers(Vector3d(0.5 * g.size)).c_str());
        break;
      case GeometryType::Sphere:
        e->SetAttribute("type", "sphere");
        setNumber(e, "size", g.radius);
        break;
      case GeometryType::Capsule:
      case GeometryType::Cylinder:
        e->SetAttribute("type", g.type == GeometryType::Capsule ? "capsule" : "cylinder");
        e->SetAttribute("size", (exportNumber(g.radius) + " " + exportNumber(0.5 * g.length)).c_str());
        break;
      case GeometryType::Ellipsoid:
        e->SetAttribute("type", "ellipsoid");
        e->SetAttribute("size", exportNumbers(g.size).c_str());
        break;
      case GeometryType::Plane:
        if (body != nullptr && (body->moving || anyMovingAncestor(*body))) {
          detail::notExported(m_report, where, "a plane on a moving body (MuJoCo allows planes on static bodies only)");
          m_doc.DeleteNode(e);
          return;
        }
        e->SetAttribute("type", "plane");
        e->SetAttribute("size", "0 0 1");  // infinite
        break;
      case GeometryType::ConvexMesh:
      case GeometryType::TriangleMesh: {
        const std::string mesh = meshAsset(s);
        if (mesh.empty()) {
          m_doc.DeleteNode(e);
          return;
        }
        e->SetAttribute("type", "mesh");
        e->SetAttribute("mesh", mesh.c_str());
        if (g.type == GeometryType::TriangleMesh && s.collision) {
          detail::converted(m_report, where, "a triangle mesh collides as its convex hull in MuJoCo");
        }
        break;
      }
    }
    parent->InsertEndChild(e);
    setPose(e, ownerFromLink * s.pose);
    if (!s.collision) {
      e->SetAttribute("contype", 0);
      e->SetAttribute("conaffinity", 0);
      e->SetAttribute("group", 1);
      const Vector4d& c = s.color;
      e->SetAttribute(
          "rgba", (exportNumber(c[0]) + " " + exportNumber(c[1]) + " " + exportNumber(c[2]) + " " + exportNumber(c[3]))
                      .c_str());
      return;
    }
    e->SetAttribute("group", 3);
    e->SetAttribute("friction", (exportNumber(s.material.friction) + " 0 0").c_str());
    if (!s.collidable) {
      e->SetAttribute("contype", 0);
      e->SetAttribute("conaffinity", 0);
    } else {
      m_collisionGeoms.push_back({e, s.owner.empty() ? std::string("world") : s.owner, s.material.friction});
    }
    if (s.material.restitution > 0.0) {
      detail::notExported(m_report, where,
                          "restitution " + exportNumber(s.material.restitution) +
                              " (MuJoCo's contacts have no coefficient of restitution)");
    }
  }

  bool anyMovingAncestor(const Body& b) const {
    for (int p = b.parent; p >= 0; p = m_bodies[static_cast<std::size_t>(p)].parent) {
      if (m_bodies[static_cast<std::size_t>(p)].moving) return true;
    }
    return false;
  }

  // ---- frames, sites, cameras ------------------------------------------------

  // The body element a resolved frame is attached to (the worldbody for the world).
  XMLElement* bodyElement(const detail::ExportedFrame& f) {
    const std::optional<std::size_t> i = bodyIndex(f);
    if (!i) return f.kind == detail::ExportedFrame::Kind::World ? m_worldbody : nullptr;
    return m_bodyElements[*i];
  }

  std::optional<std::size_t> bodyIndex(const detail::ExportedFrame& f) const {
    if (f.kind == detail::ExportedFrame::Kind::Link) {
      const auto it = m_linkIndex.find(f.link);
      if (it != m_linkIndex.end()) return it->second;
    }
    if (f.kind == detail::ExportedFrame::Kind::RigidBody) {
      const auto it = m_rigidBodyIndex.find(f.rigidBody);
      if (it != m_rigidBodyIndex.end()) return it->second;
    }
    return std::nullopt;
  }

  std::string bodyName(const detail::ExportedFrame& f) const {
    const std::optional<std::size_t> i = bodyIndex(f);
    return i ? m_bodies[*i].name : std::string("world");
  }

  // X_W of a resolved frame's body at MuJoCo's reference configuration.
  Isometry3d referencePose(const detail::ExportedFrame& f) const {
    const std::optional<std::size_t> i = bodyIndex(f);
    return i ? m_bodies[*i].X_W_ref : Isometry3d::Identity();
  }

  XMLElement* addSite(XMLElement* body, const std::string& base, const Isometry3d& X) {
    XMLElement* e = child(body, "site");
    e->SetAttribute("name", uniqueName(m_siteNames, base).c_str());
    setPose(e, X);
    return e;
  }

  void writeFrame(const FrameSpec& f) {
    const std::string where = "frame '" + f.name + "'";
    if (f.isFree) {
      detail::notExported(m_report, where, "a free (driven) frame: MJCF has no kinematically driven frame");
      return;
    }
    const detail::ExportedFrame r = detail::resolveExportFrame(m_spec, f.name);
    XMLElement* body = bodyElement(r);
    if (body == nullptr) {
      detail::notExported(m_report, where, "attached to a free frame");
      return;
    }
    addSite(body, f.name, r.pose);
    detail::converted(m_report, where, "a fixed frame: written as a site");
  }

  void writeCamera(const ViewpointSpec& v) {
    // MuJoCo cameras look along −z with +y up: x = right, y = up.
    const Vector3d forward = unit(v.center - v.eye, -Vector3d::UnitZ());
    Vector3d up = Vector3d::UnitZ();
    if (std::abs(forward.dot(up)) > 1.0 - 1e-9) up = Vector3d::UnitY();
    const Vector3d x = forward.cross(up).normalized();
    const Vector3d y = x.cross(forward);
    XMLElement* e = child(m_worldbody, "camera");
    e->SetAttribute("name", v.name.c_str());
    e->SetAttribute("mode", "fixed");
    e->SetAttribute("pos", exportNumbers(v.eye).c_str());
    e->SetAttribute("xyaxes", (exportNumbers(x) + " " + exportNumbers(y)).c_str());
    setNumber(e, "fovy", v.fovYDegrees);
  }

  // ---- contacts ----------------------------------------------------------------

  struct CollisionGeom {
    XMLElement* element;
    std::string owner;  // "world", a rigid body, "multibody/link"
    double friction;
  };

  // The exported body index of an owner name, or nullopt for the world.
  std::optional<std::size_t> ownerBody(const std::string& owner) const {
    return bodyIndex(detail::resolveExportFrame(m_spec, owner));
  }

  std::string ownerBodyName(const std::string& owner) const {
    const std::optional<std::size_t> i = ownerBody(owner);
    return i ? m_bodies[*i].name : std::string("world");
  }

  void writeContacts() {
    // Links of a multibody without self-collision collide only with other
    // bodies: each such multibody gets a bit of its own (contype = its bit,
    // conaffinity = every other bit); everything else is class 0 (contype
    // 1, conaffinity all bits). MuJoCo itself skips pairs within a body,
    // parent–child pairs (filterparent) and static–static pairs.
    std::map<const MultibodySpec*, int> classOf;
    std::map<const MultibodySpec*, int> collidingLinks;
    for (const Body& b : m_bodies) {
      if (b.multibody != nullptr && b.collides && !b.multibody->selfCollision) ++collidingLinks[b.multibody];
    }
    int nextBit = 1;
    std::vector<const MultibodySpec*> overflow;
    for (const MultibodySpec& mb : m_spec.multibodies) {
      if (collidingLinks[&mb] < 2) continue;
      if (nextBit <= 30) {
        classOf[&mb] = nextBit++;
      } else {
        overflow.push_back(&mb);
      }
    }
    const std::uint32_t all = nextBit >= 31 ? 0x7fffffffu : ((1u << nextBit) - 1u);
    for (const CollisionGeom& g : m_collisionGeoms) {
      const std::optional<std::size_t> i = ownerBody(g.owner);
      int cls = 0;
      if (i && m_bodies[*i].multibody != nullptr) {
        const auto it = classOf.find(m_bodies[*i].multibody);
        if (it != classOf.end()) cls = it->second;
      }
      if (cls == 0) {
        if (all != 1u) g.element->SetAttribute("conaffinity", static_cast<unsigned>(all));
      } else {
        g.element->SetAttribute("contype", static_cast<unsigned>(1u << cls));
        g.element->SetAttribute("conaffinity", static_cast<unsigned>(all & ~(1u << cls)));
      }
    }
    // Pairs MuJoCo would collide and Articula does not, and the reverse.
    std::set<std::pair<std::string, std::string>> explicitPairs;
    const auto key = [](std::string a, std::string b) {
      if (b < a) std::swap(a, b);
      return std::make_pair(a, b);
    };
    for (const CollisionSettingSpec& c : m_spec.collisionSettings) {
      const std::string a = ownerBodyName(c.a);
      const std::string b = ownerBodyName(c.b);
      if (a == b) continue;
      explicitPairs.insert(key(a, b));
      if (!c.enabled) {
        exclude(a, b);
      } else if (!mujocoCollides(c.a, c.b, classOf)) {
        writePairs(c.a, c.b);
      }
    }
    // Self-colliding multibodies: links Articula lets collide and MuJoCo
    // skips because a weld joint merged them or their parents.
    for (std::size_t x = 0; x < m_bodies.size(); ++x) {
      const Body& p = m_bodies[x];
      if (p.multibody == nullptr || !p.multibody->selfCollision || !p.collides) continue;
      for (std::size_t y = x + 1; y < m_bodies.size(); ++y) {
        const Body& q = m_bodies[y];
        if (q.multibody != p.multibody || !q.collides) continue;
        if (q.parent == static_cast<int>(x) || p.parent == static_cast<int>(y)) continue;  // Articula skips these
        if (explicitPairs.count(key(p.name, q.name)) > 0) continue;
        if (mujocoFilters(static_cast<int>(x), static_cast<int>(y))) writePairs(ownerOf(p), ownerOf(q));
      }
    }
    for (const MultibodySpec* mb : overflow) {
      std::vector<std::size_t> links;
      for (std::size_t i = 0; i < m_bodies.size(); ++i) {
        if (m_bodies[i].multibody == mb && m_bodies[i].collides) links.push_back(i);
      }
      for (std::size_t x = 0; x < links.size(); ++x) {
        for (std::size_t y = x + 1; y < links.size(); ++y) {
          const Body& p = m_bodies[links[x]];
          const Body& q = m_bodies[links[y]];
          if (q.parent == static_cast<int>(links[x]) || p.parent == static_cast<int>(links[y])) continue;
          if (explicitPairs.count(key(p.name, q.name)) == 0) exclude(p.name, q.name);
        }
      }
    }
    // The bodies of a loop closure's endpoints do not collide (World::addLoopClosure).
    for (const ClosureSpec& c : m_spec.loopClosures) {
      const detail::ExportedFrame a = detail::resolveExportFrame(m_spec, c.frameA);
      const detail::ExportedFrame b = detail::resolveExportFrame(m_spec, c.frameB);
      if (a.kind == detail::ExportedFrame::Kind::None || b.kind == detail::ExportedFrame::Kind::None) continue;
      const std::string na = bodyName(a);
      const std::string nb = bodyName(b);
      if (na == nb || explicitPairs.count(key(na, nb)) > 0) continue;
      const bool ca = na == "world" ? worldCollides() : m_bodies[*bodyIndex(a)].collides;
      const bool cb = nb == "world" ? worldCollides() : m_bodies[*bodyIndex(b)].collides;
      if (ca && cb) {
        exclude(na, nb);
        explicitPairs.insert(key(na, nb));
      }
    }
    bool mixedFriction = false;
    for (const CollisionGeom& g : m_collisionGeoms) {
      if (g.friction != m_collisionGeoms.front().friction) mixedFriction = true;
    }
    if (mixedFriction) {
      detail::converted(m_report, "contacts",
                        "MuJoCo combines the friction of two geoms as the larger one, Articula as their geometric "
                        "mean: contacts between shapes of different friction differ");
    }
  }

  bool worldCollides() const {
    for (const CollisionGeom& g : m_collisionGeoms) {
      if (!ownerBody(g.owner)) return true;
    }
    return false;
  }

  // MuJoCo's weld body of a body: the nearest moving one up the tree, -1 for
  // a body fixed to the world.
  int weldOf(int i) const {
    while (i >= 0 && !m_bodies[static_cast<std::size_t>(i)].moving) i = m_bodies[static_cast<std::size_t>(i)].parent;
    return i;
  }

  // Whether MuJoCo skips the pair by its own rules: one weld body, parent
  // and child weld bodies (filterparent), or both fixed to the world.
  bool mujocoFilters(int i, int j) const {
    const int wi = weldOf(i);
    const int wj = weldOf(j);
    if (wi == wj) return true;
    if (wi < 0 || wj < 0) return false;
    const int pi = weldOf(m_bodies[static_cast<std::size_t>(wi)].parent);
    const int pj = weldOf(m_bodies[static_cast<std::size_t>(wj)].parent);
    return (pj >= 0 && wi == pj) || (pi >= 0 && wj == pi);
  }

  bool mujocoCollides(const std::string& a, const std::string& b, const std::map<const MultibodySpec*, int>& classOf) {
    const std::optional<std::size_t> ia = ownerBody(a);
    const std::optional<std::size_t> ib = ownerBody(b);
    const int i = ia ? static_cast<int>(*ia) : -1;
    const int j = ib ? static_cast<int>(*ib) : -1;
    if (mujocoFilters(i, j)) return false;
    if (ia && ib) {
      const Body& A = m_bodies[*ia];
      const Body& B = m_bodies[*ib];
      if (A.multibody != nullptr && A.multibody == B.multibody && classOf.count(A.multibody) > 0) return false;
    }
    return true;
  }

  std::string ownerOf(const Body& b) const {
    return b.rigidBody != nullptr ? b.rigidBody->name : b.multibody->name + "/" + b.link->name;
  }

  void exclude(const std::string& a, const std::string& b) {
    XMLElement* e = child(section(m_contact, "contact"), "exclude");
    e->SetAttribute("body1", a.c_str());
    e->SetAttribute("body2", b.c_str());
  }

  void writePairs(const std::string& ownerA, const std::string& ownerB) {
    for (const CollisionGeom& ga : m_collisionGeoms) {
      if (ga.owner != ownerA) continue;
      for (const CollisionGeom& gb : m_collisionGeoms) {
        if (gb.owner != ownerB) continue;
        XMLElement* e = child(section(m_contact, "contact"), "pair");
        e->SetAttribute("geom1", ga.element->Attribute("name"));
        e->SetAttribute("geom2", gb.element->Attribute("name"));
        const std::string mu = exportNumber(std::sqrt(ga.friction * gb.friction));
        e->SetAttribute("friction", (mu + " " + mu + " 0 0 0").c_str());
      }
    }
  }

  // ---- equality constraints --------------------------------------------------

  void setActive(XMLElement* e, const LoopClosureRuntimePolicy& policy) {
    if (!policy.enabled || policy.dynamics == ClosureDynamicsPolicy::Off) e->SetAttribute("active", "false");
  }

  XMLElement* equality(const char* type, const std::string& name) {
    XMLElement* e = child(section(m_equality, "equality"), type);
    e->SetAttribute("name", uniqueName(m_equalityNames, name).c_str());
    return e;
  }

  // Reports a connect anchor that MuJoCo computes at qpos0 where the
  // closure is not assembled.
  void checkAnchor(const std::string& where, const detail::ExportedFrame& a, const Isometry3d& endA,
                   const detail::ExportedFrame& b, const Isometry3d& endB) {
    const Vector3d pA = referencePose(a) * endA.translation();
    const Vector3d pB = referencePose(b) * endB.translation();
    const double gap = (pA - pB).norm();
    if (gap > kAssembledTolerance) {
      detail::converted(m_report, where,
                        "MuJoCo 2.2.2 fixes the connect anchor on body2 where body1's anchor is at the reference "
                        "configuration (qpos0), where this closure is open by " +
                            exportNumber(gap) + " m: the anchor on '" + bodyName(b) + "' is off by that much");
    }
  }

  void writeEqualities() {
    for (const ClosureSpec& c : m_spec.loopClosures) {
      const std::string where = "closure '" + c.name + "'";
      const detail::ExportedFrame a = detail::resolveExportFrame(m_spec, c.frameA);
      const detail::ExportedFrame b = detail::resolveExportFrame(m_spec, c.frameB);
      if (a.kind == detail::ExportedFrame::Kind::None || b.kind == detail::ExportedFrame::Kind::None) {
        detail::notExported(m_report, where, "an endpoint is on a free (driven) frame or unknown");
        continue;
      }
      const Isometry3d endA = a.pose * c.offsetA;  // endpoint A in body1's frame
      const Isometry3d endB = b.pose * c.offsetB;  // endpoint B in body2's frame
      switch (c.family) {
        case LoopClosureFamily::Point: {
          XMLElement* e = equality("connect", c.name);
          e->SetAttribute("body1", bodyName(a).c_str());
          e->SetAttribute("body2", bodyName(b).c_str());
          e->SetAttribute("anchor", exportNumbers(Vector3d(endA.translation())).c_str());
          setActive(e, c.policy);
          checkAnchor(where, a, endA, b, endB);
          break;
        }
        case LoopClosureFamily::Hinge: {
          // Two points on the common axis coincide ⇔ the origins coincide and the z axes align.
          for (int k = 0; k < 2; ++k) {
            Isometry3d endAk = endA;
            Isometry3d endBk = endB;
            endAk.translation() += k * kHingeAxisLength * endA.linear().col(2);
            endBk.translation() += k * kHingeAxisLength * endB.linear().col(2);
            XMLElement* e = equality("connect", k == 0 ? c.name : c.name + ":axis");
            e->SetAttribute("body1", bodyName(a).c_str());
            e->SetAttribute("body2", bodyName(b).c_str());
            e->SetAttribute("anchor", exportNumbers(Vector3d(endAk.translation())).c_str());
            setActive(e, c.policy);
            checkAnchor(k == 0 ? where : where + " (axis point)", a, endAk, b, endBk);
          }
          detail::converted(m_report, where,
                            "hinge: two connect constraints, at the endpoint and " + exportNumber(kHingeAxisLength) +
                                " m along its z axis (one redundant row; MuJoCo 2.2.2 has no hinge equality)");
          break;
        }
        case LoopClosureFamily::Rigid: {
          // relpose: body2 in body1 when endpoint B is endpoint A.
          const Isometry3d rel = endA * endB.inverse();
          XMLElement* e = equality("weld", c.name);
          e->SetAttribute("body1", bodyName(a).c_str());
          e->SetAttribute("body2", bodyName(b).c_str());
          e->SetAttribute("relpose",
                          (exportNumbers(Vector3d(rel.translation())) + " " + quatText(rel.linear())).c_str());
          setActive(e, c.policy);
          break;
        }
        case LoopClosureFamily::Slider:
        case LoopClosureFamily::Universal:
          detail::notExported(m_report, where,
                              std::string(toString(c.family)) +
                                  " closure: MuJoCo 2.2.2's equalities (connect, weld, joint) cannot hold it");
          continue;
        case LoopClosureFamily::Distance:
          detail::notExported(m_report, where, "distance closure: MuJoCo 2.2.2 removed distance equalities");
          continue;
      }
      if (c.policy.stabilization == ClosureStabilization::Compliance) {
        detail::converted(m_report, where, "compliant stabilization: MuJoCo's default soft constraint instead");
      }
    }
    for (const CouplerSpec& c : m_spec.jointCouplers) {
      const std::string where = "coupler '" + c.name + "'";
      const Part* leader = scalarJoint(c.leader);
      const Part* follower = scalarJoint(c.follower);
      if (leader == nullptr || follower == nullptr) {
        detail::notExported(m_report, where, "a coupled joint is not a one-DoF joint of this world");
        continue;
      }
      // MuJoCo: y − y0 = a0 + a1 (x − x0) with x0, y0 the qpos0 values (ref).
      const double a0 = c.ratio * leader->ref + c.offset - follower->ref;
      XMLElement* e = equality("joint", c.name);
      e->SetAttribute("joint1", follower->name.c_str());
      e->SetAttribute("joint2", leader->name.c_str());
      e->SetAttribute("polycoef", (exportNumber(a0) + " " + exportNumber(c.ratio) + " 0 0 0").c_str());
      setActive(e, c.policy);
    }
    // Screws: slide = pitch · angle.
    for (const Body& b : m_bodies) {
      if (b.link == nullptr || b.link->joint.type != JointType::Screw) continue;
      XMLElement* e = equality("joint", b.jointName + ":screw");
      e->SetAttribute("joint1", b.parts[1].name.c_str());
      e->SetAttribute("joint2", b.parts[0].name.c_str());
      // y0 = pitch x0 (both refs baked), so a0 = 0.
      e->SetAttribute("polycoef", (exportNumber(b.parts[0].ref * b.link->joint.pitch - b.parts[1].ref) + " " +
                                   exportNumber(b.link->joint.pitch) + " 0 0 0")
                                      .c_str());
    }
  }

  // The MuJoCo joint of a one-DoF joint "multibody/joint" (a screw's hinge).
  const Part* scalarJoint(const std::string& joint) const {
    const auto [mb, link] = detail::findJointOwner(m_spec, joint);
    if (link == nullptr || numDofs(link->joint.type) != 1) return nullptr;
    const auto it = m_linkIndex.find(link);
    if (it == m_linkIndex.end()) return nullptr;
    return &m_bodies[it->second].parts[0];
  }

  // ---- actuators ---------------------------------------------------------------

  // The MuJoCo joint and gear vector (6) of DoF `coordinate` of `joint`.
  struct Transmission {
    const Part* part = nullptr;
    std::array<double, 6> gear{};  // a unit or zero vector
    bool vector = false;           // ball or free: gear is a vector
  };

  std::optional<Transmission> transmission(const std::string& joint, int coordinate) const {
    const auto [mb, link] = detail::findJointOwner(m_spec, joint);
    if (link == nullptr) return std::nullopt;
    const auto it = m_linkIndex.find(link);
    if (it == m_linkIndex.end()) return std::nullopt;
    const Body& b = m_bodies[it->second];
    Transmission t;
    for (const Part& p : b.parts) {
      if (p.kind == PartKind::Hinge || p.kind == PartKind::Slide) {
        if (p.dof == coordinate && !(b.link->joint.type == JointType::Screw && p.kind == PartKind::Slide) &&
            !(b.link->joint.type == JointType::Free)) {
          t.part = &p;
          t.gear[0] = 1.0;
          return t;
        }
      } else if (p.kind == PartKind::Ball && coordinate >= 0 && coordinate < 3) {
        t.part = &p;
        t.vector = true;
        t.gear[static_cast<std::size_t>(coordinate)] = 1.0;
        return t;
      } else if (p.kind == PartKind::Free && coordinate >= 0 && coordinate < 3) {
        // MuJoCo's free DoFs are [linear (world); angular (body)].
        t.part = &p;
        t.vector = true;
        t.gear[static_cast<std::size_t>(3 + coordinate)] = 1.0;
        return t;
      }
    }
    return std::nullopt;
  }

  // kp, kd, kv as Articula resolves them (docs/actuators.md, "Default gains").
  struct Gains {
    double kp = 0.0, kd = 0.0, kv = 0.0;
  };

  Gains gains(const ActuatorSpec& a, std::vector<std::string>& notes) {
    Gains g;
    if (a.kp && a.kd && (a.type != ActuatorType::VelocityServo || a.kv)) {
      g.kp = *a.kp;
      g.kd = *a.kd;
      g.kv = a.kv ? *a.kv : *a.kd;
      return g;
    }
    if (a.type == ActuatorType::VelocityServo && a.kv) {
      g.kv = *a.kv;
      return g;
    }
    double mEff = 0.0;
    try {
      if (!m_world) m_world = std::make_unique<World>(m_spec);
      const auto [mbSpec, link] = detail::findJointOwner(m_spec, a.joint);
      const std::optional<Multibody> mb = mbSpec != nullptr ? m_world->getMultibody(mbSpec->name) : std::nullopt;
      const std::optional<Joint> j = mb ? mb->getJoint(link->joint.name) : std::nullopt;
      if (j) mEff = mb->getMassMatrix().diagonal()[j->velocityOffset() + a.coordinate];
    } catch (const std::exception&) {
      mEff = 0.0;  // a spec no world can be built from: the gains' floor
    }
    mEff = std::max(mEff, 1e-9);
    const double w = 2.0 * std::numbers::pi * kDefaultServoFrequency;
    g.kp = a.kp ? *a.kp : mEff * w * w;
    g.kd = a.kd ? *a.kd : 2.0 * mEff * w;
    g.kv = a.kv ? *a.kv : 2.0 * mEff * w;
    notes.push_back("default gains written as the values Articula resolves at the initial configuration (kp " +
                    exportNumber(g.kp) + ", kd " + exportNumber(g.kd) + ", kv " + exportNumber(g.kv) + ")");
    return g;
  }

  static std::string range(double lo, double hi) { return exportNumber(lo) + " " + exportNumber(hi); }

  void writeActuators() {
    for (const ActuatorSpec& a : m_spec.actuators) {
      const std::string where = "actuator '" + a.name + "'";
      if (a.type == ActuatorType::Pid || a.type == ActuatorType::Lock) {
        detail::notExported(m_report, where,
                            std::string(toString(a.type)) + " actuator: MuJoCo 2.2.2 has no equivalent actuator");
        continue;
      }
      const std::optional<Transmission> t = transmission(a.joint, a.coordinate);
      if (!t) {
        detail::notExported(m_report, where,
                            "acts on a coordinate MuJoCo's joints do not have with a constant gear (the linear "
                            "coordinates of a free joint are body-frame, MuJoCo's world-frame)");
        continue;
      }
      std::vector<std::string> notes;
      Gains g;
      if (a.type == ActuatorType::PositionServo || a.type == ActuatorType::VelocityServo) g = gains(a, notes);
      const bool generalServo = a.type == ActuatorType::PositionServo && g.kd != 0.0;
      const char* tag = a.type == ActuatorType::Motor                            ? "motor"
                        : a.type == ActuatorType::VelocityServo                  ? "velocity"
                        : a.type == ActuatorType::PositionServo && !generalServo ? "position"
                                                                                 : "general";
      XMLElement* e = child(section(m_actuator, "actuator"), tag);
      e->SetAttribute("name", a.name.c_str());
      e->SetAttribute("joint", t->part->name.c_str());
      const double gear = (a.type == ActuatorType::Motor || a.type == ActuatorType::DcMotor) ? a.gear : 1.0;
      if (t->vector || gear != 1.0) {
        std::string text;
        for (double x : t->gear) text += (text.empty() ? "" : " ") + exportNumber(x * gear);
        e->SetAttribute("gear", text.c_str());
      }
      if (a.type == ActuatorType::PositionServo && !generalServo) setNumber(e, "kp", g.kp);
      if (a.type == ActuatorType::VelocityServo) setNumber(e, "kv", g.kv);
      if (generalServo) {
        // τ = kp (u − q) − kd q̇: a fixed gain and an affine bias.
        setNumber(e, "gainprm", g.kp);
        e->SetAttribute("biastype", "affine");
        e->SetAttribute("biasprm", ("0 " + exportNumber(-g.kp) + " " + exportNumber(-g.kd)).c_str());
        notes.push_back(
            "a <general> actuator kp (u − q) − kd q̇ (MuJoCo integrates the gains explicitly, Articula "
            "implicitly)");
      }
      if (a.type == ActuatorType::DcMotor) {
        // τ = gear · stall (u − gear q̇ / ω0): MuJoCo's force stall u − (stall/ω0) (gear q̇), times the gear.
        setNumber(e, "gainprm", a.stallTorque);
        e->SetAttribute("biastype", "affine");
        e->SetAttribute("biasprm", ("0 0 " + exportNumber(-a.stallTorque / a.noLoadSpeed)).c_str());
        notes.push_back("a <general> actuator with the same torque–speed line (explicit in MuJoCo)");
      }
      if (std::isfinite(a.controlMin) || std::isfinite(a.controlMax)) {
        e->SetAttribute("ctrlrange", range(a.controlMin, a.controlMax).c_str());
      }
      // MuJoCo clamps the force before the gear; Articula at the joint.
      if (std::isfinite(a.forceMin) || std::isfinite(a.forceMax)) {
        e->SetAttribute("forcerange", range(a.forceMin / gear, a.forceMax / gear).c_str());
      }
      if (a.gravityCompensation) {
        detail::notExported(m_report, where, "gravity compensation (MuJoCo 2.2.2 actuators have no feed-forward)");
      }
      if (!notes.empty()) {
        std::string text;
        for (const std::string& n : notes) text += (text.empty() ? "" : "; ") + n;
        detail::converted(m_report, where, text);
      }
      m_exportedActuators.push_back(&a);
    }
  }

  // ---- sensors -------------------------------------------------------------------

  XMLElement* sensor(const char* type, const std::string& name) {
    XMLElement* e = child(section(m_sensor, "sensor"), type);
    e->SetAttribute("name", uniqueName(m_sensorNames, name).c_str());
    return e;
  }

  void writeSensors() {
    for (const SensorSpec& s : m_spec.sensors) {
      const std::string where = "sensor '" + s.name + "'";
      std::vector<XMLElement*> written;
      switch (s.type) {
        case SensorType::Imu:
        case SensorType::Rangefinder: {
          const detail::ExportedFrame f = detail::resolveExportFrame(m_spec, s.frame);
          XMLElement* body = bodyElement(f);
          if (body == nullptr) {
            detail::notExported(m_report, where, "on a free (driven) frame");
            continue;
          }
          Isometry3d X = f.pose * s.pose;
          if (s.type == SensorType::Rangefinder) {
            // MuJoCo's rangefinder looks along the site's +z: turn +z onto our +x.
            X.linear() = X.linear() * axisRotation(Vector3d::UnitY(), 0.5 * std::numbers::pi);
          }
          XMLElement* site = addSite(body, s.name, X);
          if (s.type == SensorType::Imu) {
            written.push_back(sensor("accelerometer", s.name + ":accelerometer"));
            written.push_back(sensor("gyro", s.name + ":gyro"));
            detail::converted(m_report, where, "an accelerometer and a gyro");
          } else {
            XMLElement* r = sensor("rangefinder", s.name);
            setNumber(r, "cutoff", s.maxRange);
            written.push_back(r);
            detail::converted(m_report, where,
                              "MuJoCo's rangefinder reads −1 when nothing is hit (Articula: maxRange) and has no "
                              "minimum range; readings beyond maxRange are cut off to it");
          }
          for (XMLElement* w : written) w->SetAttribute("site", site->Attribute("name"));
          break;
        }
        case SensorType::ForceTorque: {
          const auto [mb, link] = detail::findJointOwner(m_spec, s.joint);
          const auto it = link != nullptr ? m_linkIndex.find(link) : m_linkIndex.end();
          if (it == m_linkIndex.end()) {
            detail::notExported(m_report, where, "its joint is unknown");
            continue;
          }
          // The sensor frame is `pose` in the joint frame: the body's frame.
          XMLElement* site = addSite(m_bodyElements[it->second], s.name, s.pose);
          written.push_back(sensor("force", s.name + ":force"));
          written.push_back(sensor("torque", s.name + ":torque"));
          for (XMLElement* w : written) w->SetAttribute("site", site->Attribute("name"));
          detail::converted(m_report, where,
                            std::string("a force and a torque sensor (the wrench the parent applies to the child") +
                                (s.childOnParent ? "; this sensor reads the opposite)" : ")"));
          break;
        }
        case SensorType::Contact: {
          const detail::ExportedFrame f = detail::resolveExportFrame(m_spec, s.frame);
          const std::optional<std::size_t> i = bodyIndex(f);
          std::optional<std::pair<Vector3d, Vector3d>> box;
          if (i) box = collisionBox(*i);
          if (!box) {
            detail::notExported(m_report, where, "its body has no collision shapes in MuJoCo's bodies");
            continue;
          }
          Isometry3d X = Isometry3d::Identity();
          X.translation() = 0.5 * (box->first + box->second);
          XMLElement* site = addSite(m_bodyElements[*i], s.name, X);
          site->SetAttribute("type", "box");
          site->SetAttribute(
              "size",
              exportNumbers(Vector3d(0.5 * (box->second - box->first) * 1.05 + Vector3d::Constant(1e-3))).c_str());
          site->SetAttribute("group", 4);
          XMLElement* t = sensor("touch", s.name);
          t->SetAttribute("site", site->Attribute("name"));
          written.push_back(t);
          detail::converted(m_report, where,
                            "a touch sensor over a box enclosing the body's collision shapes: the total normal force "
                            "only (no touching flag)");
          break;
        }
        case SensorType::JointEncoder: {
          const auto [mb, link] = detail::findJointOwner(m_spec, s.joint);
          const auto it = link != nullptr ? m_linkIndex.find(link) : m_linkIndex.end();
          if (it == m_linkIndex.end()) {
            detail::notExported(m_report, where, "its joint is unknown");
            continue;
          }
          const Body& b = m_bodies[it->second];
          const JointType type = b.link->joint.type;
          if (type == JointType::Free) {
            detail::notExported(m_report, where, "a free joint's encoder (MuJoCo has no free-joint sensor)");
            continue;
          }
          if (type == JointType::Ball) {
            written.push_back(sensor("ballquat", s.name + ":quat"));
            written.push_back(sensor("ballangvel", s.name + ":angvel"));
            for (XMLElement* w : written) w->SetAttribute("joint", b.parts[0].name.c_str());
            detail::converted(m_report, where, "ballquat (w first) and ballangvel");
            break;
          }
          std::vector<const Part*> scalar;
          for (const Part& p : b.parts) {
            if (!(type == JointType::Screw && p.kind == PartKind::Slide)) scalar.push_back(&p);
          }
          for (const char* kind : {"jointpos", "jointvel"}) {
            for (const Part* p : scalar) {
              XMLElement* w = sensor(kind, s.name + ":" + p->name + ":" + (kind[5] == 'p' ? "pos" : "vel"));
              w->SetAttribute("joint", p->name.c_str());
              written.push_back(w);
            }
          }
          break;
        }
      }
      if (s.noiseStddev > 0.0) {
        for (XMLElement* w : written) setNumber(w, "noise", s.noiseStddev);
      }
      std::vector<std::string> lost;
      if (s.rate > 0.0) lost.push_back("update rate");
      if (s.noiseBias != 0.0) lost.push_back("noise bias");
      if (s.noiseStddev > 0.0) lost.push_back("noise generation (MuJoCo 2.2.2 stores the noise but adds none)");
      if (!lost.empty()) {
        std::string text;
        for (const std::string& x : lost) text += (text.empty() ? "" : "; ") + x;
        detail::notExported(m_report, where, text);
      }
    }
  }

  // The box (min, max corners, body frame) around a body's collision shapes.
  std::optional<std::pair<Vector3d, Vector3d>> collisionBox(std::size_t index) const {
    const Body& b = m_bodies[index];
    const std::string owner = ownerOf(b);
    const Isometry3d E = b.link != nullptr ? detail::exportedFromLink(*b.link) : Isometry3d::Identity();
    Vector3d lo = Vector3d::Constant(std::numeric_limits<double>::infinity());
    Vector3d hi = -lo;
    for (const ShapeSpec& s : m_spec.shapes) {
      if (s.owner != owner || !s.collision) continue;
      const Geometry& g = s.geometry;
      std::vector<Vector3d> points;
      Vector3d half = Vector3d::Zero();
      switch (g.type) {
        case GeometryType::Box:
          half = 0.5 * g.size;
          break;
        case GeometryType::Sphere:
          half = Vector3d::Constant(g.radius);
          break;
        case GeometryType::Capsule:
          half = Vector3d(g.radius, g.radius, 0.5 * g.length + g.radius);
          break;
        case GeometryType::Cylinder:
          half = Vector3d(g.radius, g.radius, 0.5 * g.length);
          break;
        case GeometryType::Ellipsoid:
          half = g.size;
          break;
        case GeometryType::Plane:
          break;
        case GeometryType::ConvexMesh:
        case GeometryType::TriangleMesh:
          points = g.vertices;
          break;
      }
      if (points.empty() && !half.isZero(0.0)) {
        for (int c = 0; c < 8; ++c) {
          points.emplace_back((c & 1) ? half.x() : -half.x(), (c & 2) ? half.y() : -half.y(),
                              (c & 4) ? half.z() : -half.z());
        }
      }
      for (const Vector3d& p : points) {
        const Vector3d x = E * (s.pose * p);
        lo = lo.cwiseMin(x);
        hi = hi.cwiseMax(x);
      }
    }
    if (!(lo.array() <= hi.array()).all()) return std::nullopt;
    return std::make_pair(lo, hi);
  }

  // ---- keyframes -------------------------------------------------------------------

  // MuJoCo's qpos and qvel of a body's joints for our q and v of its joint.
  void appendState(const Body& b, const VectorXd& q, const VectorXd& v, std::vector<double>& qpos,
                   std::vector<double>& qvel) const {
    const JointType type = b.rigidBody != nullptr ? JointType::Free : b.link->joint.type;
    for (const Part& p : b.parts) {
      switch (p.kind) {
        case PartKind::Hinge:
        case PartKind::Slide:
          if (type == JointType::Free) {  // non-root free: p and ṗ = R v_B
            const Quaterniond Q(q[6], q[3], q[4], q[5]);
            const Vector3d pdot = Q.normalized().toRotationMatrix() * Vector3d(v.segment<3>(3));
            const auto k = static_cast<Eigen::Index>(p.dof - 3);
            qpos.push_back(q[k]);
            qvel.push_back(pdot[k]);
          } else {
            qpos.push_back(p.scale * q[p.dof]);
            qvel.push_back(p.scale * v[p.dof]);
          }
          break;
        case PartKind::Ball: {
          const Eigen::Index o = type == JointType::Free ? 3 : 0;
          qpos.insert(qpos.end(), {q[o + 3], q[o], q[o + 1], q[o + 2]});
          qvel.insert(qvel.end(), {v[0], v[1], v[2]});
          break;
        }
        case PartKind::Free: {
          // qpos: the body's world pose; qvel: [ṗ (world); ω (body)].
          const Isometry3d X = b.X0 * jointMotion(b.link != nullptr ? b.link->joint : JointSpec::free(), q);
          Quaterniond Q(X.linear());
          Q.normalize();
          const Vector3d pdot = X.linear() * Vector3d(v.segment<3>(3));
          qpos.insert(qpos.end(),
                      {X.translation().x(), X.translation().y(), X.translation().z(), Q.w(), Q.x(), Q.y(), Q.z()});
          qvel.insert(qvel.end(), {pdot.x(), pdot.y(), pdot.z(), v[0], v[1], v[2]});
          break;
        }
      }
    }
  }

  static std::string joinNumbers(const std::vector<double>& x) {
    std::string out;
    for (double d : x) out += (out.empty() ? "" : " ") + exportNumber(d);
    return out;
  }

  // Our world q and v (World packing) → MuJoCo qpos, qvel; false on a size mismatch.
  bool worldState(const VectorXd& q, const VectorXd& v, std::vector<double>& qpos, std::vector<double>& qvel) const {
    Eigen::Index qa = 0;
    Eigen::Index va = 0;
    for (const Body& b : m_bodies) {
      const JointType type = b.rigidBody != nullptr ? JointType::Free : b.link->joint.type;
      const int nq = numPositions(type);
      const int nv = numDofs(type);
      if (qa + nq > q.size() || (v.size() > 0 && va + nv > v.size())) return false;
      const VectorXd qj = q.segment(qa, nq);
      const VectorXd vj = v.size() > 0 ? VectorXd(v.segment(va, nv)) : VectorXd(VectorXd::Zero(nv));
      appendState(b, qj, vj, qpos, qvel);
      qa += nq;
      va += nv;
    }
    return qa == q.size() && (v.size() == 0 || va == v.size());
  }

  void writeKeyframes() {
    // "initial": the initial state, controls as Articula starts them.
    std::vector<double> qpos;
    std::vector<double> qvel;
    bool initialInQpos0 = true;
    for (const Body& b : m_bodies) {
      appendState(b, b.q0, b.v0, qpos, qvel);
      initialInQpos0 = initialInQpos0 && b.initialInQpos0;
    }
    std::vector<double> ctrl;
    for (const ActuatorSpec* a : m_exportedActuators) {
      double u = a->control.value_or(0.0);
      if (!a->control && a->type == ActuatorType::PositionServo) {
        const auto [mb, link] = detail::findJointOwner(m_spec, a->joint);
        const auto it = m_linkIndex.find(link);
        if (it != m_linkIndex.end() && a->coordinate < m_bodies[it->second].q0.size()) {
          u = m_bodies[it->second].q0[a->coordinate];
        }
      }
      ctrl.push_back(std::clamp(u, a->controlMin, a->controlMax));
    }
    std::set<std::string> keyNames;
    for (const KeyframeSpec& k : m_spec.keyframes) keyNames.insert(k.name);
    std::string initialName = "initial";
    for (int n = 1; keyNames.count(initialName) > 0; ++n) initialName = "initial_" + std::to_string(n);
    if (!qpos.empty() || !ctrl.empty()) {
      XMLElement* e = child(section(m_keyframe, "keyframe"), "key");
      e->SetAttribute("name", initialName.c_str());
      e->SetAttribute("time", "0");
      if (!qpos.empty()) e->SetAttribute("qpos", joinNumbers(qpos).c_str());
      if (!qvel.empty()) e->SetAttribute("qvel", joinNumbers(qvel).c_str());
      if (!ctrl.empty()) e->SetAttribute("ctrl", joinNumbers(ctrl).c_str());
    }
    if (!initialInQpos0) {
      detail::converted(m_report, "initial state",
                        "MuJoCo's reference configuration (qpos0) holds the initial coordinate of each joint's first "
                        "hinge or slide (ref) and the pose of free bodies; the whole initial state is the keyframe '" +
                            initialName + "'");
    }
    for (const KeyframeSpec& k : m_spec.keyframes) {
      const std::string where = "keyframe '" + k.name + "'";
      std::vector<double> kq;
      std::vector<double> kv;
      if (!worldState(k.q, k.v, kq, kv)) {
        detail::notExported(m_report, where, "its coordinates do not match the world's layout");
        continue;
      }
      XMLElement* e = child(section(m_keyframe, "keyframe"), "key");
      e->SetAttribute("name", k.name.c_str());
      setNumber(e, "time", k.time);
      if (!kq.empty()) e->SetAttribute("qpos", joinNumbers(kq).c_str());
      if (k.v.size() > 0 && !kv.empty()) e->SetAttribute("qvel", joinNumbers(kv).c_str());
      if (k.controls.size() == static_cast<Eigen::Index>(m_spec.actuators.size()) && !m_exportedActuators.empty()) {
        std::vector<double> kc;
        for (const ActuatorSpec* a : m_exportedActuators) {
          kc.push_back(k.controls[static_cast<Eigen::Index>(a - m_spec.actuators.data())]);
        }
        e->SetAttribute("ctrl", joinNumbers(kc).c_str());
      }
    }
  }

  const WorldSpec& m_spec;
  ExportReport& m_report;
  const ExportOptions& m_options;
  tinyxml2::XMLDocument m_doc;
  XMLElement* m_root = nullptr;
  XMLElement* m_asset = nullptr;
  XMLElement* m_worldbody = nullptr;
  XMLElement* m_contact = nullptr;
  XMLElement* m_equality = nullptr;
  XMLElement* m_actuator = nullptr;
  XMLElement* m_sensor = nullptr;
  XMLElement* m_keyframe = nullptr;
  std::vector<Body> m_bodies;                          // packing order: owners, links depth first
  std::map<std::size_t, XMLElement*> m_bodyElements;   // by m_bodies index
  std::map<const LinkSpec*, std::size_t> m_linkIndex;  // into m_bodies
  std::map<const RigidBodySpec*, std::size_t> m_rigidBodyIndex;
  std::vector<CollisionGeom> m_collisionGeoms;
  std::vector<const ActuatorSpec*> m_exportedActuators;  // in control order
  std::map<std::string, std::string> m_meshAssets;       // file|scale → asset name
  std::set<std::string> m_bodyNames, m_jointNames, m_meshNames, m_siteNames, m_sensorNames, m_equalityNames;
  std::unique_ptr<World> m_world;  // only for default servo gains
};

}  // namespace

std::string toMjcf(const WorldSpec& spec, ExportReport& report, const ExportOptions& options) {
  if (report.format.empty()) report.format = toString(ExportFormat::Mjcf);
  Writer writer(spec, report, options);
  return writer.run();
}

}  // namespace articula::io

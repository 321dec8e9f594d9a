// URDF writer (export.hpp): the first multibody as one <robot>, in the form
// urdf_import.cpp reads back.
//
// - A massless link named "world" is always written first and the root joint
//   attaches the root link to it, so that the root joint keeps its name,
//   type and pose (urdf_import reads such a link as the world frame). A Free
//   root becomes a "floating" joint whose origin is the root's initial pose
//   (urdf_import moves that pose into the free joint's coordinates).
// - Every exported link frame is the joint frame of the Articula link
//   (export.hpp, "Link frames"): inertials and shapes are re-expressed by
//   exportedFromLink(), joint origins by exportedJointOrigin().
// - Ball and universal joints are written as Drake's <drake:joint> (the
//   only URDF form urdf_import reads for them); closures as <loop_joint>
//   with one attachment per endpoint; couplers as <mimic>; actuators as ROS
//   <transmission>s with the hardware interface urdf_import maps back to
//   the actuator type.
// - Infinite limits are written as ±1e308, which urdf_import reads as "no
//   limit" and urdfdom accepts (it refuses "inf").
#include "export_common.hpp"

#include <tinyxml2.h>

#include <Eigen/Geometry>

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace articula::io {

namespace {

using detail::anyFinite;
using detail::exportNumber;
using detail::exportNumbers;
using detail::freeJointPose;
using detail::inQuotes;
using detail::isIdentity;
using detail::neutralPositions;
using detail::perDof;
using tinyxml2::XMLElement;

/// What urdf_import reads as an infinite limit (its kInfiniteLimit).
constexpr double kNoLimit = 1e308;
constexpr double kInf = std::numeric_limits<double>::infinity();

bool anyPositive(const VectorXd& v) {
  return v.size() > 0 && (v.array() > 0.0).any();
}

bool sameLimit(double a, double b) {
  return a == b || (std::isinf(a) && std::isinf(b) && (a > 0) == (b > 0));
}

/// True when the runtime policy differs from the default one.
bool customPolicy(const LoopClosureRuntimePolicy& p) {
  const LoopClosureRuntimePolicy d;
  return p.enabled != d.enabled || p.kinematics != d.kinematics || p.dynamics != d.dynamics ||
         p.stabilization != d.stabilization || p.errorReduction != d.errorReduction || p.stiffness != d.stiffness ||
         p.damping != d.damping || p.projectAfterStep != d.projectAfterStep || p.tolerance != d.tolerance ||
         p.maxIterations != d.maxIterations;
}

/// True when the options differ from the defaults (compared through the
/// spec's own equality, which covers every field).
bool customOptions(const WorldOptions& options) {
  WorldSpec a;
  a.options = options;
  return a != WorldSpec{};
}

class UrdfWriter {
 public:
  UrdfWriter(const WorldSpec& spec, ExportReport& report, const ExportOptions& options)
      : m_spec(spec), m_report(report), m_options(options) {}

  std::string run() {
    if (m_report.format.empty()) m_report.format = toString(ExportFormat::Urdf);
    m_mb = m_spec.multibodies.empty() ? nullptr : &m_spec.multibodies.front();
    m_doc.InsertEndChild(m_doc.NewDeclaration());
    m_robot = m_doc.NewElement("robot");
    m_doc.InsertEndChild(m_robot);
    std::string name = m_options.modelName;
    if (name.empty()) name = m_mb != nullptr ? m_mb->name : "articula";
    m_robot->SetAttribute("name", name.c_str());
    // The link that stands for the world frame (massless: urdf_import reads
    // it as the world).
    child(m_robot, "link")->SetAttribute("name", "world");
    if (m_mb != nullptr) writeMultibody();
    writeLoopJoints();
    writeMimics();
    writeTransmissions();
    reportTheRest();
    tinyxml2::XMLPrinter printer;
    m_doc.Print(&printer);
    return printer.CStr();
  }

 private:
  static XMLElement* child(XMLElement* parent, const char* name) {
    XMLElement* e = parent->GetDocument()->NewElement(name);
    parent->InsertEndChild(e);
    return e;
  }

  void notExported(const std::string& object, const std::string& message) {
    detail::notExported(m_report, object, message);
  }
  void converted(const std::string& object, const std::string& message) {
    detail::converted(m_report, object, message);
  }

  std::string linkPath(const LinkSpec& link) const { return m_mb->name + "/" + link.name; }
  std::string jointPath(const LinkSpec& link) const { return m_mb->name + "/" + link.joint.name; }

  static void writeOrigin(XMLElement* parent, const Isometry3d& X) {
    if (isIdentity(X)) return;
    XMLElement* o = child(parent, "origin");
    o->SetAttribute("xyz", exportNumbers(Vector3d(X.translation())).c_str());
    o->SetAttribute("rpy", exportNumbers(detail::rollPitchYaw(X.linear())).c_str());
  }

  // ---- links -----------------------------------------------------------------

  void writeMultibody() {
    if (m_mb->selfCollision) {
      notExported("multibody " + inQuotes(m_mb->name),
                  "self-collision is not exported: URDF has no such setting (urdf_import turns it off)");
    }
    for (const LinkSpec& link : m_mb->links) {
      writeLink(link);
      writeJoint(link);
    }
    writeInitialState();
  }

  void writeLink(const LinkSpec& link) {
    XMLElement* e = child(m_robot, "link");
    e->SetAttribute("name", link.name.c_str());
    const Isometry3d X_EL = detail::exportedFromLink(link);
    const Inertia& in = link.inertia;
    if (in.mass != 0.0 || !in.com.isZero(0.0) || !in.rotational.isZero(0.0)) {
      // The inertia about the COM in exported axes, written as a full
      // tensor with an unrotated origin: I_E = R_EL · I_L · R_ELᵀ.
      const Matrix3d R = X_EL.linear();
      Matrix3d I = R * in.rotational * R.transpose();
      I = 0.5 * (I + I.transpose());
      XMLElement* inertial = child(e, "inertial");
      const Vector3d com = X_EL * in.com;
      child(inertial, "origin")->SetAttribute("xyz", exportNumbers(com).c_str());
      child(inertial, "mass")->SetAttribute("value", exportNumber(in.mass).c_str());
      XMLElement* moments = child(inertial, "inertia");
      moments->SetAttribute("ixx", exportNumber(I(0, 0)).c_str());
      moments->SetAttribute("ixy", exportNumber(I(0, 1)).c_str());
      moments->SetAttribute("ixz", exportNumber(I(0, 2)).c_str());
      moments->SetAttribute("iyy", exportNumber(I(1, 1)).c_str());
      moments->SetAttribute("iyz", exportNumber(I(1, 2)).c_str());
      moments->SetAttribute("izz", exportNumber(I(2, 2)).c_str());
    }
    const std::string owner = linkPath(link);
    // urdf_import adds a link's visuals before its collisions; either order
    // is kept among shapes of one kind.
    for (const bool collision : {false, true}) {
      for (const ShapeSpec& shape : m_spec.shapes) {
        if (shape.owner == owner && shape.collision == collision) writeShape(e, shape, X_EL);
      }
    }
  }

  void writeShape(XMLElement* link, const ShapeSpec& shape, const Isometry3d& X_EL) {
    const std::string object = "shape " + inQuotes(shape.name);
    const Geometry& g = shape.geometry;
    XMLElement* e = link->GetDocument()->NewElement(shape.collision ? "collision" : "visual");
    e->SetAttribute("name", shape.name.c_str());
    writeOrigin(e, X_EL * shape.pose);
    XMLElement* geometry = child(e, "geometry");
    switch (g.type) {
      case GeometryType::Box:
        child(geometry, "box")->SetAttribute("size", exportNumbers(g.size).c_str());
        break;
      case GeometryType::Sphere:
        child(geometry, "sphere")->SetAttribute("radius", exportNumber(g.radius).c_str());
        break;
      case GeometryType::Cylinder:
      case GeometryType::Capsule: {
        // URDF 1.0 has no capsule and urdfdom refuses the 1.1 draft's
        // <capsule>: a capsule is a cylinder of its radius and length marked
        // articula:capsule="true", which urdf_import reads back as the capsule.
        XMLElement* c = child(geometry, "cylinder");
        c->SetAttribute("radius", exportNumber(g.radius).c_str());
        c->SetAttribute("length", exportNumber(g.length).c_str());
        if (g.type == GeometryType::Capsule) {
          c->SetAttribute("articula:capsule", "true");
          converted(object,
                    "written as a <cylinder> marked articula:capsule, which urdf_import reads back as the capsule; "
                    "other URDF readers see the cylinder without its end caps");
        }
        break;
      }
      case GeometryType::ConvexMesh:
      case GeometryType::TriangleMesh: {
        if (g.meshFile.empty()) {
          m_doc.DeleteNode(e);
          notExported(object, "a mesh given by its vertices, not read from a file: URDF refers to mesh files only");
          return;
        }
        XMLElement* m = child(geometry, "mesh");
        m->SetAttribute("filename", detail::meshReference(g, m_options).c_str());
        if (g.meshScale != Vector3d::Ones()) m->SetAttribute("scale", exportNumbers(g.meshScale).c_str());
        // urdf_import makes the convex hull of moving collision meshes and
        // keeps every triangle of visual ones.
        const GeometryType readBack = shape.collision ? GeometryType::ConvexMesh : GeometryType::TriangleMesh;
        if (g.type != readBack) {
          converted(object, "written as its mesh file '" + g.meshFile + "', which reads back as a " +
                                std::string(toString(readBack)) + " (it is a " + std::string(toString(g.type)) + ")");
        }
        break;
      }
      case GeometryType::Ellipsoid:
      case GeometryType::Plane:
        m_doc.DeleteNode(e);
        notExported(object, "URDF has no " + std::string(toString(g.type)) + " geometry");
        return;
    }
    if (shape.collision) {
      const Material d;
      if (shape.material.friction != d.friction || shape.material.restitution != d.restitution) {
        notExported(object, "its contact material (friction, restitution) is not exported: URDF has none");
      }
      if (!shape.collidable) {
        notExported(object, "written as a collision shape; that it takes no part in contacts is not exported");
      }
    } else {
      // A material of the shape's own name: urdfdom shares materials by name.
      XMLElement* material = child(e, "material");
      material->SetAttribute("name", shape.name.c_str());
      child(material, "color")->SetAttribute("rgba", exportNumbers(VectorXd(shape.color)).c_str());
    }
    link->InsertEndChild(e);
  }

  // ---- joints ----------------------------------------------------------------

  /// URDF can hold a planar joint whose in-plane axes are those urdf_import
  /// derives from the normal, and Drake's universal joint turns about x,
  /// then y of the joint frame.
  static bool planarAxesReadBack(const JointSpec& j) {
    const Vector3d n = j.axis.cross(j.axis2).normalized();
    const Matrix3d R = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), n).toRotationMatrix();
    return (R.col(0) - j.axis.normalized()).norm() < 1e-12 && (R.col(1) - j.axis2.normalized()).norm() < 1e-12;
  }
  static bool universalAxesReadBack(const JointSpec& j) {
    return (j.axis.normalized() - Vector3d::UnitX()).norm() < 1e-12 &&
           (j.axis2.normalized() - Vector3d::UnitY()).norm() < 1e-12;
  }

  /// The URDF type a joint is written as ("" for none); `drake`: as
  /// <drake:joint>.
  static std::string urdfType(const LinkSpec& link, bool* drake) {
    const JointSpec& j = link.joint;
    *drake = false;
    switch (j.type) {
      case JointType::Weld:
        return "fixed";
      case JointType::Revolute: {
        const bool limited = std::isfinite(perDof(j.positionLowerLimits, 0, -kInf)) ||
                             std::isfinite(perDof(j.positionUpperLimits, 0, kInf));
        return limited ? "revolute" : "continuous";
      }
      case JointType::Prismatic:
        return "prismatic";
      case JointType::Free:
        return "floating";
      case JointType::Planar:
        return planarAxesReadBack(j) ? "planar" : "";
      case JointType::Ball:
        *drake = true;
        return "ball";
      case JointType::Universal:
        *drake = universalAxesReadBack(j);
        return *drake ? "universal" : "";
      case JointType::Screw:
      case JointType::Euler:
      case JointType::Translational:
        return "";
    }
    return "";
  }

  void writeJoint(const LinkSpec& link) {
    const JointSpec& j = link.joint;
    const std::string object = "joint " + inQuotes(jointPath(link));
    bool drake = false;
    std::string type = urdfType(link, &drake);
    if (type.empty()) {
      notExported(object, "URDF has no " + std::string(toString(j.type)) +
                              (j.type == JointType::Universal || j.type == JointType::Planar ? " joint with these axes"
                                                                                             : " joint") +
                              "; written as a fixed joint, which removes its degrees of freedom");
      type = "fixed";
    }
    XMLElement* e = child(m_robot, drake ? "drake:joint" : "joint");
    if (drake) {
      m_robot->SetAttribute("xmlns:drake", "http://drake.mit.edu");
      converted(object, "written as Drake's <drake:joint type=\"" + type +
                            "\">, which urdf_import reads; urdfdom refuses the file (it leaves the child link "
                            "unattached, a second root)");
    }
    e->SetAttribute("name", j.name.c_str());
    e->SetAttribute("type", type.c_str());
    Isometry3d origin = detail::exportedJointOrigin(*m_mb, link);
    if (link.parent.empty() && j.type == JointType::Free) {
      // urdf_import turns the floating joint's origin into its coordinates:
      // the origin is the root's initial pose.
      origin = j.parentOffset * freeJointPose(link.q);
      if (!isIdentity(j.parentOffset)) {
        converted(object,
                  "its parent offset is folded into the floating joint's origin: the free joint reads back "
                  "with coordinates relative to the world, not to that offset");
      }
    }
    writeOrigin(e, origin);
    child(e, "parent")->SetAttribute("link", link.parent.empty() ? "world" : link.parent.c_str());
    child(e, "child")->SetAttribute("link", link.name.c_str());
    if (type == "revolute" || type == "continuous" || type == "prismatic") {
      child(e, "axis")->SetAttribute("xyz", exportNumbers(Vector3d(j.axis.normalized())).c_str());
    } else if (type == "planar") {
      child(e, "axis")->SetAttribute("xyz", exportNumbers(Vector3d(j.axis.cross(j.axis2).normalized())).c_str());
    }
    if (type == "revolute" || type == "continuous" || type == "prismatic") {
      writeLimitsAndDynamics(e, link, type);
    } else if (type != "fixed") {
      // urdf_import reads limits and dynamics of one-DoF joints only.
      const bool dynamics = anyPositive(j.damping) || anyPositive(j.coulombFriction) ||
                            anyPositive(j.springStiffness) || anyPositive(j.armature);
      const bool limits = anyFinite(j.positionLowerLimits) || anyFinite(j.positionUpperLimits) ||
                          anyFinite(j.velocityLimits) || anyFinite(j.effortLimits);
      if (dynamics || limits) {
        notExported(object, std::string(dynamics ? "damping, friction, springs and armature" : "") +
                                (dynamics && limits ? " and " : "") + (limits ? "limits" : "") + " of a " +
                                std::string(toString(j.type)) + " joint are not exported: URDF has them for " +
                                "one-DoF joints only");
      }
    }
  }

  void writeLimitsAndDynamics(XMLElement* e, const LinkSpec& link, const std::string& type) {
    const JointSpec& j = link.joint;
    const std::string object = "joint " + inQuotes(jointPath(link));
    const double lower = perDof(j.positionLowerLimits, 0, -kInf);
    const double upper = perDof(j.positionUpperLimits, 0, kInf);
    const double effort = perDof(j.effortLimits, 0, kInf);
    const double velocity = perDof(j.velocityLimits, 0, kInf);
    auto bounded = [](double v) { return std::isfinite(v) ? v : (v > 0 ? kNoLimit : -kNoLimit); };
    // urdfdom requires <limit> on revolute and prismatic joints, with effort
    // and velocity; continuous joints need one only for finite values.
    if (type != "continuous" || std::isfinite(effort) || std::isfinite(velocity)) {
      XMLElement* limit = child(e, "limit");
      if (type != "continuous") {
        limit->SetAttribute("lower", exportNumber(bounded(lower)).c_str());
        limit->SetAttribute("upper", exportNumber(bounded(upper)).c_str());
      }
      limit->SetAttribute("effort", exportNumber(bounded(effort)).c_str());
      limit->SetAttribute("velocity", exportNumber(bounded(velocity)).c_str());
    }
    if (type != "continuous" && lower == 0.0 && upper == 0.0) {
      notExported(object, "the limits [0, 0] are not exported: urdf_import reads lower = upper = 0 as no limit");
    }
    if (effort == 0.0 || velocity == 0.0) {
      notExported(object, "a zero effort or velocity limit is not exported: urdf_import reads 0 as no limit");
    }
    const double damping = perDof(j.damping, 0, 0.0);
    const double friction = perDof(j.coulombFriction, 0, 0.0);
    if (damping > 0.0 || friction > 0.0) {
      XMLElement* dynamics = child(e, "dynamics");
      if (damping > 0.0) dynamics->SetAttribute("damping", exportNumber(damping).c_str());
      if (friction > 0.0) dynamics->SetAttribute("friction", exportNumber(friction).c_str());
    }
    if (anyPositive(j.springStiffness) || anyPositive(j.armature)) {
      std::string what = anyPositive(j.springStiffness) ? "spring stiffness and rest position" : "";
      if (anyPositive(j.armature)) what += std::string(what.empty() ? "" : " and ") + "armature";
      notExported(object, what + " not exported: URDF has no element for them");
    }
  }

  /// Joint coordinates, velocities and forces: URDF describes the model
  /// only (a floating root's initial pose excepted, in its origin).
  void writeInitialState() {
    std::vector<std::string> what;
    bool positions = false;
    bool velocities = false;
    bool forces = false;
    for (const LinkSpec& link : m_mb->links) {
      const bool rootPose = link.parent.empty() && link.joint.type == JointType::Free;
      if (!rootPose && link.q.size() > 0 && link.q != neutralPositions(link.joint.type)) positions = true;
      if (link.v.size() > 0 && !link.v.isZero(0.0)) velocities = true;
      if (link.tau.size() > 0 && !link.tau.isZero(0.0)) forces = true;
    }
    if (positions) what.emplace_back("joint positions");
    if (velocities) what.emplace_back("velocities");
    if (forces) what.emplace_back("applied joint forces");
    if (what.empty()) return;
    std::string list;
    for (std::size_t i = 0; i < what.size(); ++i)
      list += (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") + what[i];
    notExported("initial state of " + inQuotes(m_mb->name),
                "initial " + list + " not exported: URDF has no initial state (the robot reads back at zero)");
  }

  // ---- closures, couplers, actuators -------------------------------------------

  /// The exported body a frame name lies on, if it is the world or a link of
  /// the exported multibody.
  std::optional<detail::ExportedFrame> frameInRobot(const std::string& name) const {
    detail::ExportedFrame f = detail::resolveExportFrame(m_spec, name);
    if (f.kind == detail::ExportedFrame::Kind::World) return f;
    if (f.kind == detail::ExportedFrame::Kind::Link && f.multibody == m_mb) return f;
    return std::nullopt;
  }

  void writeLoopJoints() {
    std::set<std::string> jointNames;
    if (m_mb != nullptr) {
      for (const LinkSpec& l : m_mb->links) jointNames.insert(l.joint.name);
    }
    for (const ClosureSpec& c : m_spec.loopClosures) {
      const std::string object = "closure " + inQuotes(c.name);
      const auto a = frameInRobot(c.frameA);
      const auto b = frameInRobot(c.frameB);
      if (!a || !b) {
        notExported(object,
                    "it joins a body that is not in the exported robot (URDF describes one robot; export "
                    "to SDF or MJCF to keep it)");
        continue;
      }
      // The <loop_joint> types urdf_import reads, with z of both
      // attachments along the axis (Hinge, Slider).
      const char* type = nullptr;
      switch (c.family) {
        case LoopClosureFamily::Rigid:
          type = "fixed";
          break;
        case LoopClosureFamily::Hinge:
          type = "continuous";
          break;
        case LoopClosureFamily::Slider:
          type = "prismatic";
          break;
        case LoopClosureFamily::Point:
        case LoopClosureFamily::Universal:
        case LoopClosureFamily::Distance:
          break;
      }
      if (type == nullptr) {
        notExported(object, "a " + std::string(toString(c.family)) +
                                " closure: urdf_import reads <loop_joint> of types revolute, continuous, prismatic "
                                "and fixed only");
        continue;
      }
      if (jointNames.count(c.name) != 0) {
        notExported(object, "its name is taken by a joint of the robot, and URDF joints share one namespace");
        continue;
      }
      XMLElement* e = child(m_robot, "loop_joint");
      e->SetAttribute("name", c.name.c_str());
      e->SetAttribute("type", type);
      const auto attach = [&](const char* tag, const detail::ExportedFrame& f, const Isometry3d& offset) {
        XMLElement* x = child(e, tag);
        x->SetAttribute("link", f.bodyName.c_str());
        const Isometry3d X = f.pose * offset;
        x->SetAttribute("xyz", exportNumbers(Vector3d(X.translation())).c_str());
        x->SetAttribute("rpy", exportNumbers(detail::rollPitchYaw(X.linear())).c_str());
      };
      attach("link1", *a, c.offsetA);
      attach("link2", *b, c.offsetB);
      child(e, "axis")->SetAttribute("xyz", "0 0 1");
      if (customPolicy(c.policy)) notExported(object, "its runtime policy is not exported: URDF has none");
    }
  }

  /// The joint spec of "multibody/joint" when it is a one-DoF joint of the
  /// exported robot written as such.
  const LinkSpec* oneDofJointInRobot(const std::string& joint) const {
    const auto [mb, link] = detail::findJointOwner(m_spec, joint);
    if (mb == nullptr || mb != m_mb) return nullptr;
    const JointType t = link->joint.type;
    return t == JointType::Revolute || t == JointType::Prismatic ? link : nullptr;
  }

  void writeMimics() {
    for (const CouplerSpec& c : m_spec.jointCouplers) {
      const std::string object = "coupler " + inQuotes(c.name);
      const LinkSpec* leader = oneDofJointInRobot(c.leader);
      const LinkSpec* follower = oneDofJointInRobot(c.follower);
      if (leader == nullptr || follower == nullptr) {
        notExported(object,
                    "it couples a joint that is not a revolute or prismatic joint of the exported robot "
                    "(URDF describes one robot; <mimic> couples its one-DoF joints)");
        continue;
      }
      // The follower's joint element (written as <joint>: one-DoF joints
      // are never Drake joints).
      for (XMLElement* e = m_robot->FirstChildElement("joint"); e != nullptr; e = e->NextSiblingElement("joint")) {
        if (follower->joint.name != e->Attribute("name")) continue;
        XMLElement* mimic = child(e, "mimic");
        mimic->SetAttribute("joint", leader->joint.name.c_str());
        mimic->SetAttribute("multiplier", exportNumber(c.ratio).c_str());
        mimic->SetAttribute("offset", exportNumber(c.offset).c_str());
      }
      if (c.name != follower->joint.name) {
        converted(object, "written as <mimic> on joint " + inQuotes(follower->joint.name) +
                              ", after which urdf_import names the coupler");
      }
      if (customPolicy(c.policy)) notExported(object, "its runtime policy is not exported: URDF has none");
    }
  }

  void writeTransmissions() {
    for (const ActuatorSpec& a : m_spec.actuators) {
      const std::string object = "actuator " + inQuotes(a.name);
      const LinkSpec* link = oneDofJointInRobot(a.joint);
      if (link == nullptr) {
        notExported(object,
                    "its joint is not a revolute or prismatic joint of the exported robot (URDF "
                    "transmissions drive one-DoF joints)");
        continue;
      }
      // urdf_import: position interface → gravity-compensated position
      // servo, velocity → gravity-compensated velocity servo, effort → motor;
      // the joint's effort limit is the force range.
      const char* iface = nullptr;
      ActuatorSpec back;
      switch (a.type) {
        case ActuatorType::PositionServo:
        case ActuatorType::Pid:
          iface = "PositionJointInterface";
          back.type = ActuatorType::PositionServo;
          back.gravityCompensation = true;
          break;
        case ActuatorType::VelocityServo:
          iface = "VelocityJointInterface";
          back.type = ActuatorType::VelocityServo;
          back.gravityCompensation = true;
          break;
        case ActuatorType::Motor:
        case ActuatorType::DcMotor:
          iface = "EffortJointInterface";
          back.type = ActuatorType::Motor;
          break;
        case ActuatorType::Lock:
          break;
      }
      if (iface == nullptr) {
        notExported(object, "a lock: no ROS hardware interface holds a joint");
        continue;
      }
      XMLElement* t = child(m_robot, "transmission");
      t->SetAttribute("name", (a.name + "_transmission").c_str());
      child(t, "type")->SetText("transmission_interface/SimpleTransmission");
      XMLElement* j = child(t, "joint");
      j->SetAttribute("name", link->joint.name.c_str());
      child(j, "hardwareInterface")->SetText((std::string("hardware_interface/") + iface).c_str());
      XMLElement* act = child(t, "actuator");
      act->SetAttribute("name", a.name.c_str());
      child(act, "mechanicalReduction")->SetText(exportNumber(a.gear).c_str());
      // What reads back differently.
      const double effort = perDof(link->joint.effortLimits, 0, kInf);
      back.forceMin = std::isfinite(effort) && effort > 0.0 ? -effort : -kInf;
      back.forceMax = -back.forceMin;
      const double velocity = perDof(link->joint.velocityLimits, 0, kInf);
      back.velocityLimit = velocity > 0.0 ? velocity : kInf;
      std::vector<std::string> lost;
      if (a.type != back.type) lost.push_back("its type (" + std::string(toString(a.type)) + ")");
      if (a.kp || a.kd || a.kv || a.ki != 0.0 || a.integralLimit != back.integralLimit) lost.emplace_back("its gains");
      if (a.stallTorque != 0.0 || a.noLoadSpeed != 0.0) lost.emplace_back("its motor curve");
      if (a.controlMin != back.controlMin || a.controlMax != back.controlMax) lost.emplace_back("its control range");
      if (!sameLimit(a.forceMin, back.forceMin) || !sameLimit(a.forceMax, back.forceMax)) {
        lost.emplace_back("its force range (it reads back as the joint's effort limit)");
      }
      if (!sameLimit(a.velocityLimit, back.velocityLimit)) lost.emplace_back("its velocity limit");
      if (a.gravityCompensation != back.gravityCompensation) lost.emplace_back("its gravity compensation setting");
      if (a.control) lost.emplace_back("its initial control");
      if (!lost.empty()) {
        std::string list;
        for (std::size_t i = 0; i < lost.size(); ++i) list += (i == 0 ? "" : ", ") + lost[i];
        converted(object, std::string("written as a ") + iface + " transmission, which reads back as a " +
                              toString(back.type) + " without " + list);
      }
    }
  }

  // ---- what URDF cannot hold ----------------------------------------------------

  void reportTheRest() {
    const std::string oneRobot = "URDF describes one robot; export to SDF or MJCF to keep it";
    for (std::size_t i = 1; i < m_spec.multibodies.size(); ++i) {
      notExported("multibody " + inQuotes(m_spec.multibodies[i].name), "not exported: " + oneRobot);
    }
    for (const RigidBodySpec& r : m_spec.rigidBodies) {
      notExported("rigid body " + inQuotes(r.name), "not exported: " + oneRobot);
    }
    for (const ShapeSpec& s : m_spec.shapes) {
      if (s.owner == "world") notExported("shape " + inQuotes(s.name), "a world shape is not exported: " + oneRobot);
    }
    for (const FrameSpec& f : m_spec.frames) {
      notExported("frame " + inQuotes(f.name), "user frames are not exported: URDF has no frames besides links");
    }
    for (const CollisionSettingSpec& c : m_spec.collisionSettings) {
      notExported("collision setting " + inQuotes(c.a) + " / " + inQuotes(c.b), "URDF has no collision filtering");
    }
    for (const ScheduleSpec& s : m_spec.schedules) {
      notExported("schedule " + inQuotes(s.name), "URDF has no control schedules");
    }
    for (const KeyframeSpec& k : m_spec.keyframes) notExported("keyframe " + inQuotes(k.name), "URDF has no keyframes");
    for (const SensorSpec& s : m_spec.sensors) {
      notExported("sensor " + inQuotes(s.name), "URDF has no sensors (export to SDF or MJCF to keep it)");
    }
    for (const ViewpointSpec& v : m_spec.viewpoints) {
      notExported("viewpoint " + inQuotes(v.name), "URDF has no camera views");
    }
    if (customOptions(m_spec.options)) {
      notExported("world options",
                  "gravity, time step, integrator and solver settings are not exported: URDF has "
                  "no world (export to SDF or MJCF to keep them)");
    }
  }

  const WorldSpec& m_spec;
  ExportReport& m_report;
  const ExportOptions& m_options;
  const MultibodySpec* m_mb = nullptr;
  tinyxml2::XMLDocument m_doc;
  XMLElement* m_robot = nullptr;
};

}  // namespace

std::string toUrdf(const WorldSpec& spec, ExportReport& report, const ExportOptions& options) {
  UrdfWriter writer(spec, report, options);
  return writer.run();
}

}  // namespace articula::io

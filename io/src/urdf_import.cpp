// URDF import. A tinyxml2 pre-pass (urdf_graph) finds the tree and the joints
// that close loops and checks every number with its line; the cut joints and
// <loop_joint> elements are removed and the remaining tree is read by urdfdom.
#include "import_common.hpp"
#include "input_guard.hpp"
#include "urdf_graph.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace articula::io {

namespace {

using detail::CutJoint;
using detail::UrdfGraph;
using tinyxml2::XMLElement;

// urdfdom reports through console_bridge; collect what it says while it parses.
class CollectingHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char* /*filename*/, int /*line*/) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) messages += (messages.empty() ? "" : "; ") + text;
  }
  std::string messages;
};

std::mutex g_urdfdomMutex;

// Prints a document without the given elements (the joints that close loops).
class TreePrinter : public tinyxml2::XMLPrinter {
 public:
  explicit TreePrinter(std::set<const XMLElement*> skip) : m_skip(std::move(skip)) {}
  bool VisitEnter(const XMLElement& e, const tinyxml2::XMLAttribute* first) override {
    return m_skip.count(&e) != 0 ? false : XMLPrinter::VisitEnter(e, first);
  }
  bool VisitExit(const XMLElement& e) override { return m_skip.count(&e) != 0 ? true : XMLPrinter::VisitExit(e); }

 private:
  std::set<const XMLElement*> m_skip;
};

// What an infinite limit is written as for urdfdom (it reads finite numbers
// only); read back as no limit.
constexpr double kInfiniteLimit = 1e308;

std::string shortNumber(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

Vector3d toEigen(const urdf::Vector3& v) {
  return {v.x, v.y, v.z};
}

Isometry3d toIsometry(const urdf::Pose& p) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() =
      Eigen::Quaterniond(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z).normalized().toRotationMatrix();
  X.translation() = toEigen(p.position);
  return X;
}

// Numbers the pre-pass checks (attribute → count), inside <link>, <joint>,
// <loop_joint> and top-level <material> elements.
const std::map<std::string, std::size_t>& numericAttributes() {
  static const std::map<std::string, std::size_t> m{
      {"xyz", 3},     {"rpy", 3},      {"size", 3},       {"scale", 3}, {"rgba", 4},   {"value", 1},
      {"ixx", 1},     {"ixy", 1},      {"ixz", 1},        {"iyy", 1},   {"iyz", 1},    {"izz", 1},
      {"radius", 1},  {"length", 1},   {"lower", 1},      {"upper", 1}, {"effort", 1}, {"velocity", 1},
      {"damping", 1}, {"friction", 1}, {"multiplier", 1}, {"offset", 1}};
  return m;
}

// Elements urdfdom reads inside <link>, <joint>, <loop_joint> and <material>.
// Anything else is another tool's extension: ignored (and reported) without
// looking at its attributes, as urdfdom does.
bool isUrdfElement(const std::string& tag) {
  static const std::set<std::string> known{"inertial",    "origin",
                                           "mass",        "inertia",
                                           "visual",      "collision",
                                           "geometry",    "box",
                                           "cylinder",    "sphere",
                                           "mesh",        "capsule",
                                           "material",    "color",
                                           "texture",     "axis",
                                           "parent",      "child",
                                           "limit",       "dynamics",
                                           "mimic",       "safety_controller",
                                           "calibration", "link1",
                                           "link2"};
  return known.count(tag) != 0;
}

// An unexpanded roslaunch or xacro substitution left in a numeric
// attribute ("$(optenv VAR 0 0 1.57)", "$(arg x)", "${pi/2}"): the numbers
// it stands for when they can be known — optenv's default — or nothing.
std::optional<std::string> substitutionDefault(const std::string& value) {
  const std::size_t open = value.find("$(");
  if (open == std::string::npos) return std::nullopt;
  const std::size_t close = value.find(')', open);
  if (close == std::string::npos || value.find_first_not_of(" \t", close + 1) != std::string::npos ||
      value.find_first_not_of(" \t") != open) {
    return std::nullopt;
  }
  std::istringstream words(value.substr(open + 2, close - open - 2));
  std::string command, variable;
  words >> command >> variable;
  if (command != "optenv" || variable.empty()) return std::nullopt;
  std::string rest, word;
  while (words >> word) rest += (rest.empty() ? "" : " ") + word;
  return rest;
}

bool isSubstitution(const std::string& value) {
  return value.find("$(") != std::string::npos || value.find("${") != std::string::npos;
}

// Checks the numbers urdfdom will read in `e` and the URDF elements below it;
// `unknown` receives the other elements (not descended into). An origin or
// a value given by an unexpanded roslaunch substitution is read as the
// substitution's default (optenv) or, for an <origin>, as zeros, each with an
// entry in `repaired` (line, message); other bad numbers throw.
void checkNumbers(XMLElement* e, const std::string& file, std::vector<const XMLElement*>& unknown,
                  std::vector<std::pair<int, std::string>>& repaired) {
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a != nullptr; a = a->Next()) {
    const auto it = numericAttributes().find(a->Name());
    if (it == numericAttributes().end()) continue;
    if (detail::parseDoubles(a->Value(), it->second)) continue;
    const std::string value = a->Value();
    const std::string where = "attribute '" + std::string(a->Name()) + "' of <" + e->Name() + ">";
    if (isSubstitution(value)) {
      std::string replacement;
      if (const std::optional<std::string> d = substitutionDefault(value); d && detail::parseDoubles(*d, it->second)) {
        replacement = *d;
      } else if (std::string(e->Name()) == "origin") {
        replacement = "0 0 0";
      }
      if (!replacement.empty()) {
        repaired.emplace_back(e->GetLineNum(), where + " is the unexpanded substitution '" + value + "'; read as '" +
                                                   replacement + "' (expand the file with xacro to choose)");
        e->SetAttribute(a->Name(), replacement.c_str());  // `a` stays valid: the attribute is updated in place
        continue;
      }
    }
    std::ostringstream os;
    os << where << " must be " << it->second << " finite number" << (it->second > 1 ? "s" : "") << ", got '" << value
       << "'";
    if (isSubstitution(value)) os << " (an unexpanded xacro or roslaunch substitution: expand the file with xacro)";
    throw ImportError(file, e->GetLineNum(), os.str());
  }
  for (XMLElement* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    if (isUrdfElement(c->Name())) {
      checkNumbers(c, file, unknown, repaired);
    } else {
      unknown.push_back(c);
    }
  }
}

struct Importer {
  World& world;
  const ImportOptions& options;
  std::string file;
  detail::ResourceResolver resolver;
  ImportReport report;
  UrdfGraph graph;
  std::map<std::string, Link> links;
  std::string worldLink;           // name of the link standing for the world ("world"), or empty
  std::set<std::string> capsules;  // "link/visual/i", "link/collision/i" read as cylinders by urdfdom
  std::map<std::string, std::string> extendedJoints;  // <drake:joint> name → "ball" or "universal"

  Importer(World& w, const ImportOptions& o, std::string f, const fs::path& base)
      : world(w), options(o), file(std::move(f)), resolver(o, base, false) {
    report.file = file;
    report.format = "urdf";
  }

  int linkLine(const std::string& name) const {
    const auto it = graph.linkIndex.find(name);
    return it == graph.linkIndex.end() ? 0 : graph.links[static_cast<std::size_t>(it->second)].line;
  }
  int jointLine(const std::string& name) const {
    const auto it = graph.jointIndex.find(name);
    return it == graph.jointIndex.end() ? 0 : graph.joints[static_cast<std::size_t>(it->second)].line;
  }
  void ignore(int line, const std::string& message) { report.ignored.push_back(ReportEntry{file, line, message}); }
  void warn(int line, const std::string& message) { report.warnings.push_back(ReportEntry{file, line, message}); }

  // Elements outside the model proper, and children of links and joints that
  // the engine has no use for.
  void noteIgnoredElements(const XMLElement* robot) {
    static const std::set<std::string> topKnown{"link", "joint", "loop_joint", "material", "transmission"};
    for (const XMLElement* e = robot->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (topKnown.count(tag) == 0) {
        std::string what = "<" + tag + ">";
        if (const char* n = e->Attribute("name")) what += " '" + std::string(n) + "'";
        if (tag == "gazebo") {
          const char* ref = e->Attribute("reference");
          what = std::string("<gazebo") + (ref != nullptr ? " reference='" + std::string(ref) + "'" : "") + ">";
        }
        ignore(e->GetLineNum(), what + " not imported (no equivalent in the engine)");
        continue;
      }
      if (tag != "joint") continue;
      for (const char* child : {"safety_controller", "calibration"}) {
        if (const XMLElement* c = e->FirstChildElement(child)) {
          ignore(c->GetLineNum(),
                 "<" + std::string(child) + "> of joint '" + std::string(e->Attribute("name")) + "' not imported");
        }
      }
    }
  }

  // The tree (cut joints and <loop_joint>s removed) through urdfdom.
  urdf::ModelInterfaceSharedPtr parseTree(const tinyxml2::XMLDocument& doc) {
    std::set<const XMLElement*> skip;
    for (const detail::UrdfCut& c : graph.cuts) skip.insert(graph.joints[static_cast<std::size_t>(c.joint)].element);
    TreePrinter printer(std::move(skip));
    doc.Accept(&printer);
    const std::string tree(printer.CStr());
    CollectingHandler handler;
    urdf::ModelInterfaceSharedPtr model;
    {
      std::lock_guard<std::mutex> lock(g_urdfdomMutex);
      console_bridge::useOutputHandler(&handler);
      try {
        model = urdf::parseURDF(tree);
      } catch (const std::exception& e) {
        handler.messages += (handler.messages.empty() ? "" : "; ") + std::string(e.what());
      }
      console_bridge::restorePreviousOutputHandler();
    }
    if (!model) {
      // urdfdom names the element in brackets ("Joint [j] is of type ..."): use its line.
      int line = graph.robotLine;
      const std::size_t open = handler.messages.find('[');
      const std::size_t close = handler.messages.find(']', open);
      if (open != std::string::npos && close != std::string::npos) {
        const std::string name = handler.messages.substr(open + 1, close - open - 1);
        if (const int l = jointLine(name); l > 0)
          line = l;
        else if (const int k = linkLine(name); k > 0)
          line = k;
      }
      throw ImportError(file, line,
                        "the URDF parser rejected the model: " +
                            (handler.messages.empty() ? std::string("no reason given") : handler.messages));
    }
    return model;
  }

  Inertia inertiaOf(const urdf::Link& l) {
    Inertia in;
    in.mass = 0.0;
    in.com.setZero();
    in.rotational.setZero();
    if (!l.inertial) return in;
    const urdf::Inertial& u = *l.inertial;
    Matrix3d I;
    I << u.ixx, u.ixy, u.ixz, u.ixy, u.iyy, u.iyz, u.ixz, u.iyz, u.izz;
    const Isometry3d X = toIsometry(u.origin);
    in.mass = u.mass;
    in.com = X.translation();
    in.rotational = X.linear() * I * X.linear().transpose();
    detail::checkInertia(in, "link '" + l.name + "'", file, linkLine(l.name));
    if (std::string repaired = detail::repairInertia(in, "link '" + l.name + "'"); !repaired.empty()) {
      warn(linkLine(l.name), repaired);
    }
    return in;
  }

  std::optional<Geometry> geometryOf(const urdf::Geometry& g, const std::string& what, int line, bool collision,
                                     bool onWorld, bool capsule = false) {
    switch (g.type) {
      case urdf::Geometry::SPHERE: {
        const double radius = dynamic_cast<const urdf::Sphere&>(g).radius;
        if (radius == 0.0) {
          // Some tools write a point contact this way.
          if (!collision) {
            ignore(line, what + ": sphere of radius 0 not drawn");
            return std::nullopt;
          }
          warn(line, what + ": sphere of radius 0 (a point contact) read as radius 1 mm");
          return Geometry::sphere(1e-3);
        }
        return Geometry::sphere(radius);
      }
      case urdf::Geometry::BOX: {
        const auto& b = dynamic_cast<const urdf::Box&>(g);
        return Geometry::box(toEigen(b.dim));
      }
      case urdf::Geometry::CYLINDER: {
        const auto& c = dynamic_cast<const urdf::Cylinder&>(g);
        return capsule ? Geometry::capsule(c.radius, c.length) : Geometry::cylinder(c.radius, c.length);
      }
      case urdf::Geometry::MESH: {
        const auto& m = dynamic_cast<const urdf::Mesh&>(g);
        if (!options.loadMeshes) {
          ignore(line, what + ": mesh '" + m.filename + "' not loaded (meshes are off)");
          return std::nullopt;
        }
        std::string why;
        const std::optional<fs::path> path = resolver.resolve(m.filename, &why);
        // A mesh that cannot be had leaves its shape out, with a warning:
        // peers load such robots (a mesh package not installed), and the
        // rest of the robot is still worth simulating.
        if (!path) {
          warn(line, what + ": mesh '" + m.filename + "' skipped: " + why);
          return std::nullopt;
        }
        try {
          Geometry geom = detail::meshGeometry(*path, toEigen(m.scale), collision && !onWorld);
          ++report.numMeshesLoaded;
          return geom;
        } catch (const Error& e) {
          warn(line, what + ": mesh '" + path->string() + "' skipped: " + e.what());
          return std::nullopt;
        }
      }
    }
    return std::nullopt;
  }

  void addShapes(const urdf::Link& l, const Frame& owner, bool onWorld) {
    const int line = linkLine(l.name);
    for (std::size_t i = 0; i < l.visual_array.size(); ++i) {
      const urdf::Visual& v = *l.visual_array[i];
      const std::string what = "visual " + std::to_string(i) + " of link '" + l.name + "'";
      if (!v.geometry) continue;
      const std::optional<Geometry> g = geometryOf(*v.geometry, what, line, false, onWorld,
                                                   capsules.count(l.name + "/visual/" + std::to_string(i)) != 0);
      if (!g) continue;
      VisualShapeOptions o;
      o.name = l.name + "/visual" + (v.name.empty() ? std::to_string(i) : ":" + v.name);
      o.geometry = *g;
      o.pose = toIsometry(v.origin);
      if (v.material) {
        const urdf::Color& c = v.material->color;
        o.color = Vector4d(c.r, c.g, c.b, c.a);
        if (!v.material->texture_filename.empty()) {
          ignore(line, what + ": texture '" + v.material->texture_filename + "' not imported (colour used)");
        }
      } else if (g->type == GeometryType::TriangleMesh || g->type == GeometryType::ConvexMesh) {
        const auto mesh = detail::loadMesh(g->meshFile);
        if (mesh->color) o.color = *mesh->color;
      }
      world.addVisualShape(owner, o);
    }
    for (std::size_t i = 0; i < l.collision_array.size(); ++i) {
      const urdf::Collision& c = *l.collision_array[i];
      const std::string what = "collision " + std::to_string(i) + " of link '" + l.name + "'";
      if (!c.geometry) continue;
      const std::optional<Geometry> g = geometryOf(*c.geometry, what, line, true, onWorld,
                                                   capsules.count(l.name + "/collision/" + std::to_string(i)) != 0);
      if (!g) continue;
      CollisionShapeOptions o;
      o.name = l.name + "/collision" + (c.name.empty() ? std::to_string(i) : ":" + c.name);
      o.geometry = *g;
      o.pose = toIsometry(c.origin);
      world.addCollisionShape(owner, o);
    }
  }

  JointSpec jointSpecOf(const urdf::Joint& j) {
    const int line = jointLine(j.name);
    JointSpec s;
    s.name = j.name;
    s.parentOffset = toIsometry(j.parent_to_joint_origin_transform);
    s.childOffset = Isometry3d::Identity();
    Vector3d axis = toEigen(j.axis);
    const bool needsAxis = j.type == urdf::Joint::REVOLUTE || j.type == urdf::Joint::CONTINUOUS ||
                           j.type == urdf::Joint::PRISMATIC || j.type == urdf::Joint::PLANAR;
    if (needsAxis && !(axis.norm() > 1e-12)) throw ImportError(file, line, "joint '" + j.name + "' has a zero axis");
    switch (j.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        s.type = JointType::Revolute;
        s.axis = axis.normalized();
        break;
      case urdf::Joint::PRISMATIC:
        s.type = JointType::Prismatic;
        s.axis = axis.normalized();
        break;
      case urdf::Joint::FIXED:
        s.type = JointType::Weld;
        break;
      case urdf::Joint::FLOATING:
        s.type = JointType::Free;
        if (const auto it = extendedJoints.find(j.name); it != extendedJoints.end()) {
          // <drake:joint type="ball|universal">, read by urdfdom as floating.
          // Drake's universal joint turns about x of the joint frame, then y.
          s = it->second == "ball" ? JointSpec::ball() : JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitY());
          s.name = j.name;
          s.parentOffset = toIsometry(j.parent_to_joint_origin_transform);
        }
        break;
      case urdf::Joint::PLANAR: {
        // URDF gives the plane's normal; the engine's planar joint takes two
        // in-plane axes (and rotates about their cross product, the normal).
        const Matrix3d R = detail::rotationWithZAlong(axis);
        s.type = JointType::Planar;
        s.axis = R.col(0);
        s.axis2 = R.col(1);
        break;
      }
      default:
        throw ImportError(file, line, "joint '" + j.name + "' has an unknown type");
    }
    const int n = numDofs(s.type);
    if (j.dynamics && n == 1) {
      if (j.dynamics->damping < 0.0 || j.dynamics->friction < 0.0) {
        throw ImportError(file, line, "joint '" + j.name + "': damping and friction must be ≥ 0");
      }
      if (j.dynamics->damping > 0.0) s.damping = VectorXd::Constant(1, j.dynamics->damping);
      if (j.dynamics->friction > 0.0) s.coulombFriction = VectorXd::Constant(1, j.dynamics->friction);
    }
    if (j.limits && n == 1) {
      const urdf::JointLimits& L = *j.limits;
      if (j.type != urdf::Joint::CONTINUOUS && !(L.lower == 0.0 && L.upper == 0.0)) {
        if (L.lower > L.upper) {
          std::ostringstream os;
          os << "joint '" << j.name << "': lower limit " << L.lower << " is above the upper limit " << L.upper;
          throw ImportError(file, line, os.str());
        }
        const double inf = std::numeric_limits<double>::infinity();
        s.positionLowerLimits = VectorXd::Constant(1, L.lower <= -kInfiniteLimit ? -inf : L.lower);
        s.positionUpperLimits = VectorXd::Constant(1, L.upper >= kInfiniteLimit ? inf : L.upper);
      }
      if (L.velocity >= kInfiniteLimit) {
        // no limit (written as Inf)
      } else if (L.velocity > 0.0) {
        s.velocityLimits = VectorXd::Constant(1, L.velocity);
      } else {
        ignore(line, "joint '" + j.name + "': velocity limit " + shortNumber(L.velocity) + " read as no limit");
      }
      if (L.effort >= kInfiniteLimit) {
        // no limit (written as Inf)
      } else if (L.effort > 0.0) {
        s.effortLimits = VectorXd::Constant(1, L.effort);
      } else {
        ignore(line, "joint '" + j.name + "': effort limit " + shortNumber(L.effort) + " read as no limit");
      }
    }
    return s;
  }

  Link addLinkFor(Multibody& mb, const urdf::Link& l, const std::optional<Link>& parent, const JointSpec& joint) {
    LinkOptions lo;
    lo.name = l.name;
    lo.inertia = inertiaOf(l);
    try {
      Link link = parent ? mb.addLink(lo, *parent, joint) : mb.addLink(lo, joint);
      links.emplace(l.name, link);
      addShapes(l, link, false);
      return link;
    } catch (const ImportError&) {
      throw;
    } catch (const Error& e) {
      throw ImportError(file, joint.name.empty() ? linkLine(l.name) : jointLine(joint.name),
                        "link '" + l.name + "': " + e.what());
    }
  }

  void buildTree(const urdf::ModelInterface& model) {
    const std::string rootName = graph.links[static_cast<std::size_t>(graph.root)].name;
    const urdf::LinkConstSharedPtr root = model.getLink(rootName);
    // A root called "world" without mass stands for the world itself (the
    // convention of Gazebo and many ROS descriptions).
    const bool rootIsWorld = rootName == "world" && (!root->inertial || root->inertial->mass == 0.0);
    std::vector<std::pair<urdf::LinkConstSharedPtr, JointSpec>> roots;
    if (rootIsWorld) {
      worldLink = rootName;
      addShapes(*root, Frame::World(), true);
      for (const urdf::JointSharedPtr& j : root->child_joints) {
        JointSpec s = jointSpecOf(*j);
        if (options.root == RootAttachment::Floating && s.type != JointType::Free) {
          ignore(jointLine(j->name), "joint '" + j->name + "' to 'world' replaced by a free joint (floating base)");
          const Isometry3d X = s.parentOffset;
          s = JointSpec::free().named(j->name);
          s.parentOffset = X;
        }
        roots.emplace_back(model.getLink(j->child_link_name), s);
      }
    } else {
      JointSpec s = options.root == RootAttachment::Floating ? JointSpec::free() : JointSpec::weld();
      s.name = options.root == RootAttachment::Floating ? "root_free" : "root_weld";
      roots.emplace_back(root, s);
    }
    for (std::size_t r = 0; r < roots.size(); ++r) {
      const std::string mbName = r == 0 ? graph.robotName : graph.robotName + ":" + roots[r].first->name;
      Multibody mb = world.addMultibody(mbName);
      // Neighbouring meshes of a robot overlap; like Gazebo and MuJoCo, links
      // of one model do not collide with each other unless asked to.
      mb.setSelfCollision(false);
      const bool floatingRoot = roots[r].second.type == JointType::Free;
      const Isometry3d rootPose = roots[r].second.parentOffset;
      JointSpec rootJoint = roots[r].second;
      if (floatingRoot) rootJoint.parentOffset = Isometry3d::Identity();
      Link rootLink = addLinkFor(mb, *roots[r].first, std::nullopt, rootJoint);
      if (floatingRoot && !rootPose.isApprox(Isometry3d::Identity())) {
        // The free joint's coordinates carry the initial pose: [p, quaternion xyzw].
        VectorXd q = rootLink.getParentJoint().getPositions();
        const Eigen::Quaterniond Q(rootPose.linear());
        q << rootPose.translation(), Q.x(), Q.y(), Q.z(), Q.w();
        rootLink.getParentJoint().setPositions(q);
      }
      // Breadth first below this root.
      std::vector<urdf::LinkConstSharedPtr> queue{roots[r].first};
      for (std::size_t k = 0; k < queue.size(); ++k) {
        const urdf::LinkConstSharedPtr parent = queue[k];
        for (const urdf::JointSharedPtr& j : parent->child_joints) {
          const urdf::LinkConstSharedPtr child = model.getLink(j->child_link_name);
          addLinkFor(mb, *child, links.at(parent->name), jointSpecOf(*j));
          queue.push_back(child);
        }
      }
    }
  }

  Frame frameOf(const std::string& link) const {
    if (link == worldLink) return Frame::World();
    return links.at(link);
  }

  void cutLoops() {
    for (const detail::UrdfCut& c : graph.cuts) {
      const detail::UrdfJointNode& n = graph.joints[static_cast<std::size_t>(c.joint)];
      const XMLElement* e = n.element;
      CutJoint cut;
      cut.name = n.name;
      cut.line = n.line;
      cut.parent = frameOf(n.parent);
      cut.child = frameOf(n.child);
      auto pose = [&](const XMLElement* o) {
        if (o == nullptr) return Isometry3d::Identity();
        const auto xyz = detail::parseDoubles(o->Attribute("xyz") ? o->Attribute("xyz") : "0 0 0", 3);
        const auto rpy = detail::parseDoubles(o->Attribute("rpy") ? o->Attribute("rpy") : "0 0 0", 3);
        return detail::poseFromXyzRpy(Vector3d((*xyz)[0], (*xyz)[1], (*xyz)[2]),
                                      Vector3d((*rpy)[0], (*rpy)[1], (*rpy)[2]));
      };
      // The attachment's offset: attributes on <link1>/<link2>, or an
      // <origin> inside them (the form Drake writes).
      auto attachment = [&](const XMLElement* a) {
        const XMLElement* origin = a != nullptr ? a->FirstChildElement("origin") : nullptr;
        return pose(origin != nullptr ? origin : a);
      };
      if (e->FirstChildElement("link1") != nullptr) {
        cut.jointInParent = attachment(e->FirstChildElement("link1"));
        cut.jointInChild = attachment(e->FirstChildElement("link2"));
      } else {
        cut.jointInParent = pose(e->FirstChildElement("origin"));
        cut.jointInChild = Isometry3d::Identity();
      }
      if (const XMLElement* a = e->FirstChildElement("axis")) {
        const auto xyz = detail::parseDoubles(a->Attribute("xyz") ? a->Attribute("xyz") : "1 0 0", 3);
        cut.axis = Vector3d((*xyz)[0], (*xyz)[1], (*xyz)[2]);
      } else {
        cut.axis = Vector3d::UnitX();  // the URDF default axis
      }
      if (n.type == "floating") {
        ignore(n.line, "loop-closing joint '" + n.name + "' is floating: it constrains nothing and is dropped");
        continue;
      }
      const std::optional<LoopClosureFamily> family = detail::closureFamilyForJointType(n.type);
      if (!family) {
        throw ImportError(file, n.line,
                          "joint '" + n.name + "' closes a loop but its type '" + n.type +
                              "' has no loop-closure equivalent (revolute, continuous, prismatic or fixed)");
      }
      detail::addCutClosure(world, cut, *family, c.reason, file, report);
      if (e->FirstChildElement("mimic") != nullptr) {
        ignore(n.line, "<mimic> of loop-closing joint '" + n.name + "' not imported (the joint is a closure)");
      }
    }
  }

  // The text of a child element, trimmed ("" when absent).
  static std::string childText(const XMLElement* e, const char* name) {
    const XMLElement* c = e != nullptr ? e->FirstChildElement(name) : nullptr;
    std::string t = c != nullptr && c->GetText() != nullptr ? c->GetText() : "";
    const auto b = t.find_first_not_of(" \t\r\n");
    const auto end = t.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : t.substr(b, end - b + 1);
  }

  // The interfaces a <joint> or <actuator> of a transmission lists, without
  // the "hardware_interface/" prefix.
  static std::vector<std::string> interfaces(const XMLElement* e) {
    std::vector<std::string> out;
    for (const XMLElement* h = e != nullptr ? e->FirstChildElement("hardwareInterface") : nullptr; h != nullptr;
         h = h->NextSiblingElement("hardwareInterface")) {
      std::string t = h->GetText() != nullptr ? h->GetText() : "";
      std::erase_if(t, [](unsigned char c) { return std::isspace(c) != 0; });
      if (const auto slash = t.rfind('/'); slash != std::string::npos) t = t.substr(slash + 1);
      if (!t.empty()) out.push_back(t);
    }
    return out;
  }

  /// ROS <transmission>s become actuators: per joint, a position interface
  /// (preferred when several are listed) → a gravity-compensated position
  /// servo, velocity → velocity servo, effort → motor; the actuator's
  /// <mechanicalReduction> is the gear and the joint's <limit effort> the
  /// force range. Joint-state-only transmissions make nothing.
  /// Differential transmissions drive each of their joints on its own.
  void addTransmissions(const XMLElement* robot) {
    std::set<std::string> taken;
    int noInterface = 0;  // joints of transmissions without a <hardwareInterface>
    int noInterfaceLine = 0;
    for (const XMLElement* t = robot->FirstChildElement("transmission"); t != nullptr;
         t = t->NextSiblingElement("transmission")) {
      const std::string tname = t->Attribute("name") ? t->Attribute("name") : "transmission";
      std::string type = childText(t, "type");
      if (type.empty() && t->Attribute("type") != nullptr) type = t->Attribute("type");  // the pre-ROS-1 form
      const std::string shortType = type.substr(type.rfind('/') == std::string::npos ? 0 : type.rfind('/') + 1);
      const XMLElement* firstActuator = t->FirstChildElement("actuator");
      std::size_t joints = 0;
      for (const XMLElement* j = t->FirstChildElement("joint"); j != nullptr; j = j->NextSiblingElement("joint"))
        ++joints;
      if (joints == 0) {
        ignore(t->GetLineNum(), "<transmission> '" + tname + "' names no joint: not imported");
        continue;
      }
      if (shortType != "SimpleTransmission" && !shortType.empty()) {
        ignore(t->GetLineNum(), "<transmission> '" + tname + "' (" + shortType +
                                    "): each joint gets its own actuator; the coupling of its motors is not modelled");
      }
      const XMLElement* actuatorElement = firstActuator;
      for (const XMLElement* j = t->FirstChildElement("joint"); j != nullptr; j = j->NextSiblingElement("joint")) {
        const std::string jname = j->Attribute("name") ? j->Attribute("name") : "";
        std::vector<std::string> ifaces = interfaces(j);
        if (ifaces.empty()) ifaces = interfaces(actuatorElement);  // older files list it on the actuator
        const auto has = [&](const char* name) {
          return std::find(ifaces.begin(), ifaces.end(), name) != ifaces.end();
        };
        ActuatorSpec spec;
        std::string iface;
        if (has("PositionJointInterface")) {
          spec.type = ActuatorType::PositionServo;
          spec.gravityCompensation = true;
          iface = "PositionJointInterface";
        } else if (has("VelocityJointInterface")) {
          spec.type = ActuatorType::VelocityServo;
          spec.gravityCompensation = true;
          iface = "VelocityJointInterface";
        } else if (has("EffortJointInterface")) {
          spec.type = ActuatorType::Motor;
          iface = "EffortJointInterface";
        } else if (ifaces.empty()) {
          // Drake makes a motor of every transmission, whatever its interface.
          spec.type = ActuatorType::Motor;
          iface = "EffortJointInterface";
          if (noInterface++ == 0) noInterfaceLine = j->GetLineNum();
        } else {
          if (has("JointStateInterface")) continue;  // nothing to drive
          ignore(j->GetLineNum(), "<transmission> '" + tname + "': joint '" + jname + "' has interface '" +
                                      ifaces.front() + "', which the engine has no actuator for: not imported");
          continue;
        }
        std::optional<Joint> joint;
        std::string full;
        for (const Multibody& mb : world.getMultibodies()) {
          if (auto found = mb.getJoint(jname)) {
            joint = found;
            full = mb.name() + "/" + jname;
            break;
          }
        }
        if (!joint || numDofs(joint->getSpec().type) != 1) {
          warn(j->GetLineNum(), "<transmission> '" + tname + "': joint '" + jname + "' " +
                                    (joint ? "is not a 1-DoF joint" : "is not in the model (fixed, cut or missing)") +
                                    ": no actuator made");
          continue;
        }
        const std::string reduction = childText(actuatorElement, "mechanicalReduction");
        if (!reduction.empty()) {
          const auto g = detail::parseDoubles(reduction, 1);
          if (g && (*g)[0] != 0.0 && std::isfinite((*g)[0])) {
            spec.gear = std::abs((*g)[0]);
          } else {
            warn(actuatorElement->GetLineNum(), "<transmission> '" + tname + "': <mechanicalReduction> '" + reduction +
                                                    "' is not a nonzero number; gear 1 used");
          }
        }
        const JointSpec js = joint->getSpec();
        const double effort = js.effortLimits.size() > 0 ? js.effortLimits[0] : ActuatorSpec::kInf;
        if (effort > 0.0 && std::isfinite(effort)) {
          spec.forceMin = -effort;
          spec.forceMax = effort;
        } else if (effort == 0.0) {
          warn(jointLine(jname), "joint '" + jname + "' has <limit effort=\"0\">: its actuator is not limited");
        }
        if (js.velocityLimits.size() > 0 && js.velocityLimits[0] > 0.0) spec.velocityLimit = js.velocityLimits[0];
        std::string name = actuatorElement != nullptr && actuatorElement->Attribute("name") != nullptr
                               ? actuatorElement->Attribute("name")
                               : tname;
        if (joints > 1 || taken.count(name) != 0 || name.find('/') != std::string::npos) name = tname + "_" + jname;
        std::erase(name, '/');
        while (taken.count(name) != 0) name += "_";
        taken.insert(name);
        spec.name = name;
        spec.joint = full;
        world.addActuator(spec);
        report.actuators.push_back(ActuatorMade{name, full, toString(spec.type), iface, spec.gear,
                                                std::isfinite(spec.forceMax) ? spec.forceMax : ActuatorSpec::kInf, file,
                                                t->GetLineNum()});
        if (const XMLElement* next =
                actuatorElement != nullptr ? actuatorElement->NextSiblingElement("actuator") : nullptr) {
          actuatorElement = next;  // differential: the i-th actuator's reduction for the i-th joint
        }
      }
    }
    if (noInterface > 0) {
      warn(noInterfaceLine, std::to_string(noInterface) + " transmission joint" +
                                (noInterface > 1 ? "s name" : " names") +
                                " no <hardwareInterface>; each got a motor (effort) actuator, as Drake makes");
    }
  }

  void addCouplers(const urdf::ModelInterface& model) {
    for (const int ji : graph.treeJoints) {
      const std::string& name = graph.joints[static_cast<std::size_t>(ji)].name;
      const urdf::JointConstSharedPtr j = model.getJoint(name);
      if (!j || !j->mimic) continue;
      const int line = jointLine(name);
      const std::string& leaderName = j->mimic->joint_name;
      const urdf::JointConstSharedPtr leaderJoint = model.getJoint(leaderName);
      if (!leaderJoint) {
        // urdfdom and DART load such files; the follower then moves freely.
        warn(line, "<mimic> of joint '" + name + "' dropped: it names '" + leaderName + "', " +
                       (graph.jointIndex.count(leaderName) != 0 ? "a joint that closes a loop (not a tree joint)"
                                                                : "which is not a joint of this robot") +
                       "; '" + name + "' moves freely");
        continue;
      }
      const Joint follower = links.at(j->child_link_name).getParentJoint();
      const Joint leader = links.at(leaderJoint->child_link_name).getParentJoint();
      if (follower.numDofs() != 1 || leader.numDofs() != 1) {
        // Reduced models weld joints but keep their <mimic> tags.
        ignore(line, "<mimic> of joint '" + name + "' (mimicking '" + leaderName + "') not imported: " +
                         (follower.numDofs() != 1 ? "'" + name + "'" : "'" + leaderName + "'") + " is a " +
                         std::string(toString((follower.numDofs() != 1 ? follower : leader).type())) + " joint");
        continue;
      }
      JointCouplerSpec spec;
      spec.leader = leader;
      spec.follower = follower;
      spec.ratio = j->mimic->multiplier;
      spec.offset = j->mimic->offset;
      try {
        world.addJointCoupler(name, spec);
      } catch (const Error& e) {
        throw ImportError(file, line, "<mimic> of joint '" + name + "': " + e.what());
      }
      report.couplers.push_back(CouplerMade{name, leaderName, name, spec.ratio, spec.offset, file, line});
    }
  }

  // ---- what other URDF readers accept, made readable for urdfdom ----------

  /// Rewrites, in the document, what urdfdom refuses but other readers (or
  /// the URDF 1.1 draft) accept, each with a report entry: a nameless
  /// <robot>, a version other than 1.0, joints to an undeclared "world"
  /// link, <mimic> without a joint, infinite limits, capsules.
  void acceptWhatPeersAccept(tinyxml2::XMLDocument& doc) {
    XMLElement* robot = doc.RootElement();
    if (robot == nullptr || std::string(robot->Name()) != "robot") return;  // analyzeUrdf reports it
    const char* name = robot->Attribute("name");
    if (name == nullptr || *name == '\0') {
      // urdfdom refuses a nameless robot; the name only labels the multibody.
      std::string stem = fs::path(file).stem().string();
      if (stem.empty() || stem.front() == '<') stem = "robot";
      warn(robot->GetLineNum(), "<robot> has no name; the model is called '" + stem + "'");
      robot->SetAttribute("name", stem.c_str());
    }
    if (const char* version = robot->Attribute("version"); version != nullptr && std::string(version) != "1.0") {
      ignore(robot->GetLineNum(), "<robot version=\"" + std::string(version) +
                                      "\"> read as version 1.0 (with the capsules of later drafts)");
      robot->DeleteAttribute("version");
    }
    bool worldDeclared = false;
    const XMLElement* worldUser = nullptr;
    for (XMLElement* e = robot->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "link") {
        if (const char* n = e->Attribute("name"); n != nullptr && std::string(n) == "world") worldDeclared = true;
        markCapsules(e);
      } else if (tag == "joint" || tag == "drake:joint") {
        if (tag == "drake:joint") acceptDrakeJoint(e);
        for (const char* end : {"parent", "child"}) {
          const XMLElement* x = e->FirstChildElement(end);
          const char* l = x != nullptr ? x->Attribute("link") : nullptr;
          if (l != nullptr && std::string(l) == "world" && worldUser == nullptr) worldUser = e;
        }
        acceptJointExtensions(e);
      }
    }
    if (worldUser != nullptr && !worldDeclared) {
      // The meaning is clear: the joint attaches to the world.
      warn(worldUser->GetLineNum(), "joint '" +
                                        std::string(worldUser->Attribute("name") ? worldUser->Attribute("name") : "") +
                                        "' names the link 'world', which the file does not declare: read as "
                                        "the world frame");
      XMLElement* worldElement = doc.NewElement("link");
      worldElement->SetAttribute("name", "world");
      robot->InsertFirstChild(worldElement);
    }
  }

  static tinyxml2::XMLDocument* doc(XMLElement* e) { return e->GetDocument(); }

  /// Drake's <drake:joint> adds joint types URDF lacks; the engine has them:
  /// ball and universal (urdfdom reads them as floating; jointSpecOf turns
  /// them back), planar and the URDF types (read as they are).
  void acceptDrakeJoint(XMLElement* joint) {
    const std::string name = joint->Attribute("name") ? joint->Attribute("name") : "";
    const std::string type = joint->Attribute("type") ? joint->Attribute("type") : "";
    joint->SetName("joint");
    if (XMLElement* dynamics = joint->FirstChildElement("dynamics")) {
      // Multi-DoF joints carry one damping per DoF there.
      const char* damping = dynamics->Attribute("damping");
      if (damping != nullptr && !detail::parseDoubles(damping, 1)) {
        ignore(dynamics->GetLineNum(),
               "<dynamics damping=\"" + std::string(damping) + "\"> of " + type + " joint '" + name + "' not imported");
        joint->DeleteChild(dynamics);
      }
    }
    if (type == "ball" || type == "universal") {
      extendedJoints[name] = type;
      joint->SetAttribute("type", "floating");
      if (XMLElement* dynamics = joint->FirstChildElement("dynamics")) {
        ignore(dynamics->GetLineNum(), "<dynamics> of " + type + " joint '" + name + "' not imported");
        joint->DeleteChild(dynamics);
      }
    }
  }

  /// <mimic> without a joint is dropped; ±Inf limits, or none on a
  /// revolute or prismatic joint, mean no limit.
  void acceptJointExtensions(XMLElement* joint) {
    const std::string name = joint->Attribute("name") ? joint->Attribute("name") : "";
    if (XMLElement* mimic = joint->FirstChildElement("mimic");
        mimic != nullptr && mimic->Attribute("joint") == nullptr) {
      warn(mimic->GetLineNum(), "<mimic> of joint '" + name + "' names no joint: dropped");
      joint->DeleteChild(mimic);
    }
    XMLElement* limit = joint->FirstChildElement("limit");
    const char* type = joint->Attribute("type");
    if (limit == nullptr && type != nullptr && (std::string(type) == "revolute" || std::string(type) == "prismatic")) {
      // urdfdom requires <limit> here; other readers take its absence as
      // "no limits".
      ignore(joint->GetLineNum(), "joint '" + name + "' (" + type + ") has no <limit>: read as no limits");
      limit = doc(joint)->NewElement("limit");
      for (const char* attribute : {"upper", "effort", "velocity"}) limit->SetAttribute(attribute, kInfiniteLimit);
      limit->SetAttribute("lower", -kInfiniteLimit);
      joint->InsertEndChild(limit);
      return;
    }
    if (limit == nullptr) return;
    for (const char* attribute : {"lower", "upper", "effort", "velocity"}) {
      const char* value = limit->Attribute(attribute);
      if (value == nullptr) continue;
      std::string v = value;
      std::erase_if(v, [](unsigned char c) { return std::isspace(c) != 0; });
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      const bool negative = !v.empty() && v.front() == '-';
      if (!v.empty() && (v.front() == '-' || v.front() == '+')) v.erase(0, 1);
      if (v != "inf" && v != "infinity") continue;
      ignore(limit->GetLineNum(), "joint '" + name + "': " + attribute + "=\"" + value + "\" read as no limit");
      // urdfdom reads finite numbers only; kInfiniteLimit stands for ±∞.
      limit->SetAttribute(attribute, negative ? -kInfiniteLimit : kInfiniteLimit);
    }
  }

  /// Capsules (URDF 1.1 draft; urdfdom 1.0 refuses them), and cylinders
  /// marked articula:capsule="true" (Articula's export), go through urdfdom
  /// as cylinders of the same radius and length and come back as capsules.
  void markCapsules(XMLElement* link) {
    const std::string name = link->Attribute("name") ? link->Attribute("name") : "";
    for (const char* kind : {"visual", "collision"}) {
      int index = 0;
      for (XMLElement* e = link->FirstChildElement(kind); e != nullptr; e = e->NextSiblingElement(kind), ++index) {
        XMLElement* geometry = e->FirstChildElement("geometry");
        XMLElement* capsule = geometry != nullptr ? geometry->FirstChildElement("capsule") : nullptr;
        XMLElement* cylinder = geometry != nullptr ? geometry->FirstChildElement("cylinder") : nullptr;
        // Articula's export writes a capsule as a cylinder marked articula:capsule (urdfdom reads it).
        const bool marked = cylinder != nullptr && cylinder->BoolAttribute("articula:capsule", false);
        if (capsule == nullptr && !marked) continue;
        if (capsule != nullptr) capsule->SetName("cylinder");
        capsules.insert(name + "/" + kind + "/" + std::to_string(index));
      }
    }
  }

  ImportReport run(const std::string& text) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
      throw ImportError(file, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
    }
    acceptWhatPeersAccept(doc);
    graph = detail::analyzeUrdf(doc, file);
    XMLElement* robot = doc.RootElement();
    std::vector<const XMLElement*> unknown;
    std::vector<std::pair<int, std::string>> repaired;
    for (XMLElement* e = robot->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag == "link" || tag == "joint" || tag == "loop_joint" || tag == "material") {
        checkNumbers(e, file, unknown, repaired);
      }
    }
    for (const auto& [line, message] : repaired) warn(line, message);
    for (const XMLElement* u : unknown) {
      const XMLElement* parent = u->Parent() != nullptr ? u->Parent()->ToElement() : nullptr;
      ignore(u->GetLineNum(), "<" + std::string(u->Name()) + "> in <" +
                                  (parent != nullptr ? std::string(parent->Name()) : std::string("?")) +
                                  "> not imported (not a URDF element)");
    }
    noteIgnoredElements(robot);
    const urdf::ModelInterfaceSharedPtr model = parseTree(doc);
    buildTree(*model);
    cutLoops();
    addCouplers(*model);
    addTransmissions(robot);
    detail::giveMassToMasslessSubtrees(world, file, report);
    detail::giveMassWhereMassMatrixIsSingular(world, file, report);
    detail::warnMasslessLinks(world, file, report);
    detail::startInsideLimits(world, file, report, [this](const std::string& joint) { return jointLine(joint); });
    detail::assembleClosures(world, options, file, report);
    if (options.addGroundPlane) detail::addGround(world, options);
    return report;
  }
};

}  // namespace

ImportReport importUrdfFromString(World& world, const std::string& text, const std::string& sourceName,
                                  const fs::path& baseDirectory, const ImportOptions& options) {
  return detail::guardedImport(world, sourceName, [&](World& target) {
    Importer importer(target, options, sourceName, baseDirectory);
    return importer.run(text);
  });
}

ImportReport importUrdf(World& world, const fs::path& file, const ImportOptions& options) {
  return importUrdfFromString(world, detail::readTextInput(file), file.string(), file.parent_path(), options);
}

}  // namespace articula::io

// MJCF (MuJoCo XML) import: <mujoco> models read with tinyxml2 into a
// WorldSpec, compiled once at the end (docs/import.md, "MJCF").
//
// Frames. A MuJoCo body's pose is given in its parent body's frame; its
// joints sit at `pos` in the body frame and turn about `axis` (body frame),
// applied in the order they are listed, each about the frame the previous
// ones left. Articula links carry one joint each, so a body with k joints
// becomes k links: k − 1 massless links named after the joints, then the
// body's own link with the last joint. Every joint frame has the body's
// orientation (joint axis in the body frame), so hinge, slide and ball
// coordinates read as MuJoCo's qpos does; a joint's `ref` is where it starts.
#include "import_common.hpp"
#include "input_guard.hpp"

#include <articula/file_io.hpp>

#include <tinyxml2.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace articula::io {

namespace {

using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

using AttributeMap = std::map<std::string, std::string>;

constexpr double kPlaneThickness = 0.002;  // m: the box that draws a finite, non-colliding plane

// One default class: the attributes it gives each element kind.
struct DefaultClass {
  std::map<std::string, AttributeMap> elements;  // tag → attributes
};

// A MuJoCo joint as Articula holds it.
struct JointPlace {
  std::string owner;  // multibody or rigid body
  std::string link;   // link in the multibody (empty for a rigid body)
  JointType type = JointType::Revolute;
  double ref = 0.0;  // hinge/slide: the coordinate at the file's pose
  int nq = 0, nv = 0;
  // hinge/slide: the file's range (radians or metres), NaN without one.
  double rangeLower = std::numeric_limits<double>::quiet_NaN();
  double rangeUpper = std::numeric_limits<double>::quiet_NaN();
};

// A body of the file once placed.
struct BodyPlace {
  std::string frame;                         // "world", a rigid body, "multibody/link"
  Isometry3d X_W = Isometry3d::Identity();   // world pose of the body frame at the reference pose
  Isometry3d X_LB = Isometry3d::Identity();  // body frame in the Articula link frame
  std::string multibody;                     // empty for the world and rigid bodies
  std::string link;
};

// The minimal rotation taking +z to `dir` (MuJoCo's zaxis and fromto
// frames): about z × dir; for dir along −z, half a turn about x, as MuJoCo
// turns it.
Matrix3d rotationFromZ(const Vector3d& dir) {
  Vector3d axis = Vector3d::UnitZ().cross(dir);
  const double s = axis.norm();
  axis = s < 1e-10 ? Vector3d::UnitX() : Vector3d(axis / s);
  return Eigen::AngleAxisd(std::atan2(s, dir.z()), axis).toRotationMatrix();
}

class MjcfImporter {
 public:
  MjcfImporter(World& world, const ImportOptions& options, std::string file, fs::path baseDirectory)
      : m_world(world), m_options(options), m_file(std::move(file)), m_base(std::move(baseDirectory)) {
    m_report.file = m_file;
    m_report.format = "mjcf";
  }

  ImportReport run(const std::string& text) {
    XMLDocument& doc = parseDocument(text, m_file);
    const XMLElement* root = doc.RootElement();
    if (root == nullptr || std::string(root->Name()) != "mujoco") {
      throw ImportError(m_file, root != nullptr ? root->GetLineNum() : 0,
                        "not an MJCF file: the root element is <" + std::string(root != nullptr ? root->Name() : "") +
                            ">, expected <mujoco>");
    }
    m_modelName = attr(root, "model").value_or("");
    m_defaults["main"] = DefaultClass{};
    // Compiler settings and defaults first: they apply to elements listed before them too.
    for (const XMLElement* e : children(root)) {
      const std::string tag = e->Name();
      if (tag == "compiler") readCompiler(e);
    }
    for (const XMLElement* e : children(root)) {
      if (std::string(e->Name()) == "default") readDefault(e, "");
    }
    for (const XMLElement* e : children(root)) {
      const std::string tag = e->Name();
      if (tag == "option")
        readOption(e);
      else if (tag == "asset")
        readAssets(e);
    }
    for (const XMLElement* e : children(root)) {
      if (std::string(e->Name()) == "worldbody") readWorldBody(e);
    }
    nameSiteFrames();
    scaleToTotalMass();
    for (const XMLElement* e : children(root)) {
      const std::string tag = e->Name();
      if (tag == "contact")
        readContact(e);
      else if (tag == "equality")
        readEquality(e);
      else if (tag == "actuator")
        readActuators(e);
      else if (tag == "sensor")
        readSensors(e);
    }
    // Keyframes last: they need every joint and actuator.
    for (const XMLElement* e : children(root)) {
      if (std::string(e->Name()) == "keyframe") readKeyframes(e);
    }
    for (const XMLElement* e : children(root)) {
      const std::string tag = e->Name();
      if (tag == "compiler" || tag == "default" || tag == "option" || tag == "asset" || tag == "worldbody" ||
          tag == "contact" || tag == "equality" || tag == "actuator" || tag == "sensor" || tag == "keyframe") {
        continue;
      }
      ignore(e, "<" + tag + "> not imported" + whyNot(tag));
    }
    if (m_noContact) {
      // MuJoCo's contact (or constraint) flag is off: nothing touches.
      for (ShapeSpec& shape : m_spec.shapes) shape.collidable = false;
    }
    unqualifyNames();
    if (m_contactMasks.size() > 1) {
      m_report.warnings.push_back(ReportEntry{
          m_file, 0,
          "geoms have different contype/conaffinity bit masks: Articula lets every pair of colliding geoms on "
          "different bodies collide (MuJoCo only those whose bits match); <contact><exclude> keeps pairs apart"});
    }
    m_spec.options = m_world.getOptions();
    applyOptions(m_spec.options);
    m_world.applySpec(m_spec, SpecStatePolicy::FromSpec);
    detail::giveMassToMasslessSubtrees(m_world, m_file, m_report);
    warnMasslessBodies();
    detail::assembleClosures(m_world, m_options, m_file, m_report);
    // The file's own shapes may be named "ground" (a drawn, non-colliding plane).
    if (m_options.addGroundPlane) detail::addGround(m_world, m_options, uniqueName("ground", m_shapeNames));
    return m_report;
  }

 private:
  World& m_world;
  const ImportOptions& m_options;
  std::string m_file;
  fs::path m_base;
  ImportReport m_report;
  WorldSpec m_spec;
  std::string m_modelName;

  // Parsed documents (the model and its includes) and the file of each.
  std::vector<std::unique_ptr<XMLDocument>> m_docs;
  std::map<const XMLDocument*, std::string> m_docFile;
  std::set<std::string> m_includeStack;
  std::map<std::string, std::pair<const XMLElement*, XMLDocument*>> m_included;  // file → its <include>, document

  // <compiler>
  bool m_degrees = true;
  std::string m_eulerSeq = "xyz";
  fs::path m_meshDir;
  bool m_autoLimits = true;
  std::string m_inertiaFromGeom = "auto";
  double m_boundMass = 0.0;
  double m_boundInertia = 0.0;
  double m_setTotalMass = -1.0;               // > 0: every body's mass and inertia scaled to this total
  bool m_balanceInertia = false;              // principal moments violating A + B ≥ C set to their mean
  std::pair<int, int> m_inertiaGroups{0, 5};  // geom groups whose geoms give a body its mass

  // <option>
  std::optional<double> m_timeStep;
  std::optional<Vector3d> m_gravity;
  std::optional<Integrator> m_integrator;
  bool m_noGravity = false;   // <flag gravity="disable">
  bool m_noContact = false;   // contact (or constraint) disabled: no shape takes part in contacts
  bool m_noLimits = false;    // limit (or constraint) disabled: joint ranges not enforced
  bool m_noFriction = false;  // frictionloss (or constraint) disabled
  bool m_noEquality = false;  // equality (or constraint) disabled: <equality> not imported
  bool m_noPassive = false;   // passive disabled: no joint springs or dampers

  std::map<std::string, DefaultClass> m_defaults;
  std::map<std::string, AttributeMap> m_meshes;                       // name → attributes (file, scale)
  std::map<std::string, Vector4d> m_materials;                        // name → rgba
  std::map<std::string, BodyPlace> m_bodies;                          // body name → place
  std::map<std::string, JointPlace> m_joints;                         // joint name → place
  std::vector<std::string> m_jointOrder;                              // joints in qpos order
  std::map<std::string, std::pair<std::string, Isometry3d>> m_sites;  // site → (frame, pose in that frame)
  std::set<std::string> m_names;                                      // names taken among frames (bodies, links, sites)
  std::set<std::string> m_shapeNames;
  std::set<std::pair<int, int>> m_contactMasks;  // (contype, conaffinity) of the colliding geoms
  std::vector<int> m_actuatorOf;                 // file actuator index → index in m_spec.actuators, or −1
  std::set<std::string> m_reportedAttributes;
  int m_unnamedBodies = 0;
  int m_worldGeoms = 0;
  std::set<std::string> m_bodyNames;  // every body of the file
  // Elements that generate bodies, joints and sites in MuJoCo (<composite>,
  // <flexcomp>, <replicate>) and are not imported: their line and the names
  // they would generate, for the elements that refer to those names.
  struct SkippedGenerator {
    int line = 0;
    std::string tag;
    std::string prefix;
  };
  std::vector<SkippedGenerator> m_skippedGenerators;
  // Thrown by a look-up of a name only a skipped generator defines; the
  // element that referred to it is then not imported.
  struct GeneratedName {
    std::string message;
  };

  std::set<std::string> m_jointLinks;  // "multibody/link": the massless links of a body's first joints

  // ---- documents -------------------------------------------------------------

  XMLDocument& parseDocument(const std::string& text, const std::string& file) {
    auto doc = std::make_unique<XMLDocument>();
    if (doc->Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
      throw ImportError(file, doc->ErrorLineNum(), std::string("malformed XML: ") + doc->ErrorStr());
    }
    XMLDocument& ref = *doc;
    m_docFile[&ref] = file;
    m_docs.push_back(std::move(doc));
    return ref;
  }

  std::string fileOf(const XMLElement* e) const {
    const auto it = m_docFile.find(e->GetDocument());
    return it != m_docFile.end() ? it->second : m_file;
  }

  // The children of `e`, with <include file="..."/> replaced by the
  // children of the included file's root.
  std::vector<const XMLElement*> children(const XMLElement* e) {
    std::vector<const XMLElement*> out;
    for (const XMLElement* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
      if (std::string(c->Name()) != "include") {
        out.push_back(c);
        continue;
      }
      const char* name = c->Attribute("file");
      if (name == nullptr) throw ImportError(fileOf(c), c->GetLineNum(), "<include> needs a file attribute");
      fs::path path(name);
      if (path.is_relative()) path = m_base / path;
      const std::string key = path.lexically_normal().string();
      if (m_includeStack.count(key) != 0) {
        throw ImportError(fileOf(c), c->GetLineNum(), "<include file='" + std::string(name) + "'> includes itself");
      }
      // Each file is read once; as in MuJoCo, a second <include> of the same
      // file is an error (it would define everything in it twice).
      const auto seen = m_included.find(key);
      if (seen != m_included.end() && seen->second.first != c) {
        throw ImportError(fileOf(c), c->GetLineNum(),
                          "<include file='" + std::string(name) + "'>: the file is already included at line " +
                              std::to_string(seen->second.first->GetLineNum()));
      }
      if (seen == m_included.end()) {
        std::string text;
        try {
          text = detail::readTextInput(path);
        } catch (const std::exception& ex) {
          throw ImportError(
              fileOf(c), c->GetLineNum(),
              "<include file='" + std::string(name) + "'>: cannot read " + path.string() + ": " + ex.what());
        }
        m_included[key] = {c, &parseDocument(text, path.string())};
      }
      const XMLElement* root = m_included[key].second->RootElement();
      if (root == nullptr) continue;
      m_includeStack.insert(key);
      for (const XMLElement* x : children(root)) out.push_back(x);
      m_includeStack.erase(key);
    }
    return out;
  }

  // ---- report ------------------------------------------------------------------

  // Moving bodies without mass. The massless links that carry the first
  // joints of a body with several joints are the body's, not reported.
  void warnMasslessBodies() {
    for (const Multibody& mb : m_world.getMultibodies()) {
      const std::string prefix = mb.name() + "/";
      for (const Link& link : mb.getLinks()) {
        if (link.getParentJoint().numDofs() == 0 || link.getInertia().mass > 0.0) continue;
        std::string local = link.name();
        if (local.rfind(prefix, 0) == 0) local = local.substr(prefix.size());
        if (m_jointLinks.count(prefix + local) != 0) continue;
        m_report.warnings.push_back(ReportEntry{m_file, 0, "body '" + local + "' moves but has no mass"});
      }
    }
  }

  void ignore(const XMLElement* e, const std::string& message) {
    m_report.ignored.push_back(ReportEntry{fileOf(e), e->GetLineNum(), message});
  }
  void warn(const XMLElement* e, const std::string& message) {
    m_report.warnings.push_back(ReportEntry{fileOf(e), e->GetLineNum(), message});
  }
  [[noreturn]] void fail(const XMLElement* e, const std::string& message) const {
    throw ImportError(fileOf(e), e->GetLineNum(), message);
  }

  static bool isGenerator(const std::string& tag) {
    return tag == "composite" || tag == "flexcomp" || tag == "replicate";
  }
  static std::string generatorNote(const std::string& tag) {
    return isGenerator(tag) ? " (nor the bodies, joints and sites it generates)" : "";
  }
  void skipGenerator(const XMLElement* c) {
    const std::string tag = c->Name();
    if (!isGenerator(tag)) return;
    const char* prefix = c->Attribute(tag == "composite" ? "prefix" : tag == "flexcomp" ? "name" : "prefix");
    m_skippedGenerators.push_back(SkippedGenerator{c->GetLineNum(), tag, prefix != nullptr ? prefix : ""});
  }
  // Whether `name` is one a skipped generator would have made: MuJoCo names
  // a composite's parts PREFIX + a capital letter or two and an index
  // ("B_first", "B_last", "B_12", "S_last", "J0_3"), a flexcomp's NAME + "_" + index.
  const SkippedGenerator* generatorOf(const std::string& name) const {
    static const std::regex compositePart("[A-Z]{1,2}_?(first|last|[0-9]+(_[0-9]+)*)");
    static const std::regex flexPart("_[0-9]+");
    for (const SkippedGenerator& g : m_skippedGenerators) {
      if (name.rfind(g.prefix, 0) != 0) continue;
      const std::string rest = name.substr(g.prefix.size());
      if (std::regex_match(rest, g.tag == "flexcomp" ? flexPart : compositePart)) return &g;
      if (g.tag == "replicate" && !g.prefix.empty()) return &g;
    }
    return nullptr;
  }
  // A reference to a `kind` ("body", "site", "joint") named `name` that
  // the file does not define. @throws GeneratedName when a skipped
  // generator would have made it, else ImportError.
  [[noreturn]] void undefined(const XMLElement* e, const std::string& kind, const std::string& name,
                              const std::string& what = "") const {
    const std::string base = (what.empty() ? "" : what + ": ") + kind + " '" + name + "' is not defined";
    if (const SkippedGenerator* g = generatorOf(name)) {
      throw GeneratedName{base + " (the <" + g->tag + "> at line " + std::to_string(g->line) +
                          " would make it, and it is not imported)"};
    }
    fail(e, base);
  }
  // An element that refers to a part of a skipped generator.
  void notImported(const XMLElement* c, const GeneratedName& g) {
    ignore(c, "<" + std::string(c->Name()) + "> not imported: " + g.message);
  }

  static std::string whyNot(const std::string& tag) {
    if (tag == "tendon") return " (Articula has no tendons)";
    if (tag == "visual" || tag == "statistic") return " (rendering settings)";
    if (tag == "size" || tag == "extension" || tag == "custom" || tag == "deformable") return " (not modelled)";
    return "";
  }

  // Reports the attributes of `e` (and of its default class) that nothing
  // read, once per element kind and attribute in the file.
  void reportUnread(const XMLElement* e, const AttributeMap& effective, const std::set<std::string>& read) {
    for (const auto& [name, value] : effective) {
      if (read.count(name) != 0 || name == "class" || name == "name") continue;
      const std::string key = std::string(e->Name()) + "@" + name;
      if (!m_reportedAttributes.insert(key).second) continue;
      ignore(e, "attribute '" + name + "' of <" + e->Name() + "> not imported (first of its kind in the file)");
    }
  }

  // ---- attributes -----------------------------------------------------------------

  static std::optional<std::string> attr(const XMLElement* e, const char* name) {
    const char* v = e->Attribute(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  }

  // An element with the attributes its default class gives it.
  struct Elem {
    const XMLElement* e = nullptr;
    AttributeMap values;  // own attributes over the class's
    std::set<std::string> read;

    bool has(const std::string& name) const { return values.count(name) != 0; }
    std::optional<std::string> get(const std::string& name) {
      read.insert(name);
      const auto it = values.find(name);
      if (it == values.end()) return std::nullopt;
      return it->second;
    }
  };

  Elem elem(const XMLElement* e, const std::string& childClass, const std::string& defaultTag = "") {
    Elem out;
    out.e = e;
    const std::string cls = attr(e, "class").value_or(childClass.empty() ? "main" : childClass);
    const auto it = m_defaults.find(cls);
    if (it == m_defaults.end()) fail(e, "class '" + cls + "' is not defined in <default>");
    const std::string tag = defaultTag.empty() ? std::string(e->Name()) : defaultTag;
    const auto t = it->second.elements.find(tag);
    if (t != it->second.elements.end()) out.values = t->second;
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a != nullptr; a = a->Next()) {
      setAttribute(out.values, a->Name(), a->Value());
    }
    return out;
  }

  // MuJoCo reads these arrays as far as they are given: the entries not
  // given keep the default class's values (size="0.1" over a default
  // size="0.03 0.2" is 0.1 0.2; likewise friction, gear, gain and bias).
  static const std::set<std::string>& partialArrays() {
    static const std::set<std::string> names{
        "size",   "friction", "gear",        "gainprm",     "biasprm",        "dynprm",         "polycoef",
        "solref", "solimp",   "solreflimit", "solimplimit", "solreffriction", "solimpfriction", "fluidcoef"};
    return names;
  }

  static void setAttribute(AttributeMap& values, const std::string& name, const std::string& value) {
    const auto old = values.find(name);
    if (old == values.end() || partialArrays().count(name) == 0) {
      values[name] = value;
      return;
    }
    std::istringstream given(value), inherited(old->second);
    std::vector<std::string> out, under;
    for (std::string token; given >> token;) out.push_back(token);
    for (std::string token; inherited >> token;) under.push_back(token);
    for (std::size_t i = out.size(); i < under.size(); ++i) out.push_back(under[i]);
    std::string merged;
    for (const std::string& token : out) merged += (merged.empty() ? "" : " ") + token;
    values[name] = merged;
  }

  void done(Elem& x) { reportUnread(x.e, x.values, x.read); }

  std::vector<double> numbers(Elem& x, const std::string& name, std::size_t minCount, std::size_t maxCount) {
    const std::optional<std::string> text = x.get(name);
    if (!text) return {};
    std::istringstream in(*text);
    std::vector<double> out;
    std::string token;
    while (in >> token) {
      const std::optional<double> v = detail::parseFiniteDouble(token);
      if (!v) fail(x.e, "attribute '" + name + "' of <" + x.e->Name() + ">: '" + token + "' is not a finite number");
      out.push_back(*v);
    }
    if (out.size() < minCount || out.size() > maxCount) {
      std::string expected = std::to_string(minCount);
      if (maxCount != minCount) expected += (maxCount > 100 ? " or more" : " to " + std::to_string(maxCount));
      fail(x.e, "attribute '" + name + "' of <" + x.e->Name() + "> has " + std::to_string(out.size()) +
                    " numbers, expected " + expected);
    }
    return out;
  }

  std::optional<double> number(Elem& x, const std::string& name) {
    const std::vector<double> v = numbers(x, name, 1, 1);
    if (v.empty()) return std::nullopt;
    return v[0];
  }

  Vector3d vec3(Elem& x, const std::string& name, const Vector3d& fallback) {
    const std::vector<double> v = numbers(x, name, 3, 3);
    return v.empty() ? fallback : Vector3d(v[0], v[1], v[2]);
  }

  std::optional<bool> boolean(Elem& x, const std::string& name) {
    const std::optional<std::string> v = x.get(name);
    if (!v) return std::nullopt;
    if (*v == "true") return true;
    if (*v == "false") return false;
    if (*v == "auto") return std::nullopt;
    fail(x.e, "attribute '" + name + "' of <" + x.e->Name() + "> is '" + *v + "', expected true, false or auto");
  }

  // An integer attribute (groups, contact bits) read as MuJoCo reads it,
  // without overflowing on a huge value.
  static int clampToInt(double v) { return static_cast<int>(std::clamp(std::trunc(v), -2147483648.0, 2147483647.0)); }

  double angle(double value) const { return m_degrees ? value * std::numbers::pi / 180.0 : value; }

  // MuJoCo's orientation attributes: quat, axisangle, euler, xyaxes, zaxis.
  Matrix3d orientation(Elem& x) {
    const std::vector<double> q = numbers(x, "quat", 4, 4);
    const std::vector<double> aa = numbers(x, "axisangle", 4, 4);
    const std::vector<double> eu = numbers(x, "euler", 3, 3);
    const std::vector<double> xy = numbers(x, "xyaxes", 6, 6);
    const std::vector<double> z = numbers(x, "zaxis", 3, 3);
    const int given = int(!q.empty()) + int(!aa.empty()) + int(!eu.empty()) + int(!xy.empty()) + int(!z.empty());
    if (given > 1) {
      // The class may give one and the element another: the element's own wins.
      int own = 0;
      for (const char* name : {"quat", "axisangle", "euler", "xyaxes", "zaxis"}) own += x.e->Attribute(name) != nullptr;
      if (own > 1) {
        fail(x.e, "<" + std::string(x.e->Name()) +
                      "> gives more than one orientation (quat, axisangle, euler, xyaxes, zaxis)");
      }
      for (const char* name : {"quat", "axisangle", "euler", "xyaxes", "zaxis"}) {
        if (x.e->Attribute(name) != nullptr) {
          Elem mine = x;
          mine.values.clear();
          mine.values[name] = x.e->Attribute(name);
          return orientation(mine);
        }
      }
      fail(x.e, "<" + std::string(x.e->Name()) +
                    "> gives more than one orientation (quat, axisangle, euler, xyaxes, zaxis)");
    }
    if (!q.empty()) {
      Eigen::Quaterniond quat(q[0], q[1], q[2], q[3]);
      if (quat.norm() < 1e-12) fail(x.e, "quat of <" + std::string(x.e->Name()) + "> is zero");
      return quat.normalized().toRotationMatrix();
    }
    if (!aa.empty()) {
      Vector3d axis(aa[0], aa[1], aa[2]);
      if (axis.norm() < 1e-12) fail(x.e, "axisangle of <" + std::string(x.e->Name()) + "> has a zero axis");
      return Eigen::AngleAxisd(angle(aa[3]), axis.normalized()).toRotationMatrix();
    }
    if (!eu.empty()) {
      Matrix3d R = Matrix3d::Identity();
      for (int i = 0; i < 3; ++i) {
        const char c = m_eulerSeq[static_cast<std::size_t>(i)];
        const int axisIndex = std::tolower(static_cast<unsigned char>(c)) - 'x';
        const Matrix3d Ri =
            Eigen::AngleAxisd(angle(eu[static_cast<std::size_t>(i)]), Vector3d::Unit(axisIndex)).toRotationMatrix();
        // Lower case: about the rotated (moving) axes; upper case: about the fixed ones.
        R = std::islower(static_cast<unsigned char>(c)) != 0 ? Matrix3d(R * Ri) : Matrix3d(Ri * R);
      }
      return R;
    }
    if (!xy.empty()) {
      Vector3d ax(xy[0], xy[1], xy[2]);
      Vector3d ay(xy[3], xy[4], xy[5]);
      if (ax.norm() < 1e-12) fail(x.e, "xyaxes of <" + std::string(x.e->Name()) + "> has a zero x axis");
      ax.normalize();
      ay -= ax.dot(ay) * ax;
      if (ay.norm() < 1e-12) fail(x.e, "xyaxes of <" + std::string(x.e->Name()) + "> has parallel axes");
      ay.normalize();
      Matrix3d R;
      R.col(0) = ax;
      R.col(1) = ay;
      R.col(2) = ax.cross(ay);
      return R;
    }
    if (!z.empty()) {
      const Vector3d dir(z[0], z[1], z[2]);
      if (dir.norm() < 1e-12) fail(x.e, "zaxis of <" + std::string(x.e->Name()) + "> is zero");
      return rotationFromZ(dir);
    }
    return Matrix3d::Identity();
  }

  Isometry3d pose(Elem& x) {
    Isometry3d X = Isometry3d::Identity();
    X.translation() = vec3(x, "pos", Vector3d::Zero());
    X.linear() = orientation(x);
    return X;
  }

  // ---- compiler, option, defaults, assets -------------------------------------------

  void readCompiler(const XMLElement* e) {
    Elem x = elem(e, "", "compiler");
    if (const auto a = x.get("angle")) {
      if (*a != "degree" && *a != "radian") fail(e, "<compiler angle='" + *a + "'>: expected degree or radian");
      m_degrees = *a == "degree";
    }
    if (const auto s = x.get("eulerseq")) {
      const bool valid = s->size() == 3 && std::all_of(s->begin(), s->end(), [](char c) {
                           return std::string("xyzXYZ").find(c) != std::string::npos;
                         });
      if (!valid) fail(e, "<compiler eulerseq='" + *s + "'>: expected three of x, y, z, X, Y, Z");
      m_eulerSeq = *s;
    }
    const auto assetdir = x.get("assetdir");
    if (const auto m = x.get("meshdir")) {
      m_meshDir = *m;
    } else if (assetdir) {
      m_meshDir = *assetdir;
    }
    if (const auto a = boolean(x, "autolimits")) m_autoLimits = *a;
    if (const auto i = x.get("inertiafromgeom")) {
      if (*i != "true" && *i != "false" && *i != "auto") {
        fail(e, "<compiler inertiafromgeom='" + *i + "'>: expected true, false or auto");
      }
      m_inertiaFromGeom = *i;
    }
    if (const auto b = number(x, "boundmass")) m_boundMass = *b;
    if (const auto b = number(x, "boundinertia")) m_boundInertia = *b;
    if (const auto t = number(x, "settotalmass")) m_setTotalMass = *t;
    if (const auto b = boolean(x, "balanceinertia")) m_balanceInertia = *b;
    if (const std::vector<double> r = numbers(x, "inertiagrouprange", 2, 2); !r.empty()) {
      m_inertiaGroups = {clampToInt(r[0]), clampToInt(r[1])};
    }
    // Frames are local to their parent; MuJoCo 2.3.3 and older also read
    // global coordinates, which are not imported.
    if (const auto c = x.get("coordinate"); c && *c != "local") {
      fail(e, "<compiler coordinate='" + *c +
                  "'>: only local coordinates are imported (MuJoCo itself removed global "
                  "coordinates in 2.3.4)");
    }
    x.get("texturedir");
    x.get("discardvisual");  // every geom is kept
    x.get("fusestatic");     // static bodies are welded links either way
    x.get("usethread");
    x.get("strippath");
    // Mesh inertia is always computed exactly (MuJoCo's default since 2.3;
    // 2.2 approximated it unless exactmeshinertia was true).
    x.get("exactmeshinertia");
    done(x);
  }

  void readOption(const XMLElement* e) {
    Elem x = elem(e, "", "option");
    if (const auto h = number(x, "timestep")) {
      if (*h <= 0.0) fail(e, "<option timestep> must be positive");
      m_timeStep = *h;
    }
    if (x.has("gravity")) m_gravity = vec3(x, "gravity", Vector3d::Zero());
    if (const auto i = x.get("integrator")) {
      if (*i == "RK4") {
        m_integrator = Integrator::RungeKutta4;
      } else {
        m_integrator = Integrator::SemiImplicitEuler;
        if (*i != "Euler") {
          warn(e, "<option integrator='" + *i +
                      "'> read as Articula's semi-implicit Euler (joint damping, springs and servos are "
                      "integrated implicitly there too)");
        }
      }
    }
    done(x);
    for (const XMLElement* c : children(e)) {
      if (std::string(c->Name()) == "flag") {
        readFlags(c);
      } else {
        ignore(c, "<" + std::string(c->Name()) + "> in <option> not imported");
      }
    }
  }

  // <option><flag>: the switches that change what the model is. Disabled
  // gravity, contacts, limits, joint friction, equality constraints (all four
  // for constraint="disable") and passive forces are left out of the import;
  // solver and diagnostic switches change nothing here.
  void readFlags(const XMLElement* e) {
    Elem x = elem(e, "", "flag");
    const auto disabled = [&](const char* name) {
      const std::optional<std::string> v = x.get(name);
      if (v && *v != "enable" && *v != "disable") {
        fail(e, "<flag " + std::string(name) + "='" + *v + "'>: expected enable or disable");
      }
      return v && *v == "disable";
    };
    m_noGravity = disabled("gravity") || m_noGravity;
    const bool noConstraint = disabled("constraint");
    m_noContact = disabled("contact") || noConstraint || m_noContact;
    m_noLimits = disabled("limit") || noConstraint || m_noLimits;
    m_noFriction = disabled("frictionloss") || noConstraint || m_noFriction;
    m_noEquality = disabled("equality") || noConstraint || m_noEquality;
    m_noPassive = disabled("passive") || m_noPassive;
    for (const char* a : {"warmstart", "energy", "fwdinv", "invdiscrete", "sensornoise", "refsafe", "sensor",
                          "filterparent", "clampctrl", "midphase", "eulerdamp", "island", "multiccd", "nativeccd"}) {
      x.get(a);
    }
    done(x);
  }

  void applyOptions(WorldOptions& o) const {
    if (m_timeStep) o.timeStep = *m_timeStep;
    o.gravity = m_noGravity ? Vector3d::Zero() : m_gravity.value_or(Vector3d(0.0, 0.0, -9.81));
    if (m_integrator) o.integrator = *m_integrator;
  }

  static const std::set<std::string>& actuatorTags() {
    static const std::set<std::string> tags{"general", "motor",    "position", "velocity", "intvelocity",
                                            "damper",  "cylinder", "muscle",   "adhesion", "plugin"};
    return tags;
  }

  void readDefault(const XMLElement* e, const std::string& parent) {
    const std::string name = parent.empty() ? attr(e, "class").value_or("main") : attr(e, "class").value_or("");
    if (name.empty()) fail(e, "a nested <default> needs a class attribute");
    if (!parent.empty() && m_defaults.count(name) != 0) fail(e, "default class '" + name + "' is defined twice");
    DefaultClass cls = parent.empty() ? m_defaults["main"] : m_defaults[parent];
    for (const XMLElement* c : children(e)) {
      const std::string tag = c->Name();
      if (tag == "default") continue;
      AttributeMap& values = cls.elements[tag];
      for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a != nullptr; a = a->Next()) {
        setAttribute(values, a->Name(), a->Value());
      }
      // Actuator shortcuts share one default in MuJoCo.
      if (actuatorTags().count(tag) != 0 && tag != "general") {
        for (const auto& [k, v] : values) cls.elements["general"][k] = v;
      }
      if (tag == "freejoint") continue;
    }
    m_defaults[name] = cls;
    for (const XMLElement* c : children(e)) {
      if (std::string(c->Name()) == "default") readDefault(c, name);
    }
  }

  void readAssets(const XMLElement* e) {
    for (const XMLElement* c : children(e)) {
      const std::string tag = c->Name();
      if (tag == "mesh") {
        Elem x = elem(c, "");
        const std::optional<std::string> file = x.get("file");
        std::string name = x.get("name").value_or("");
        if (!file) {
          readInlineMesh(x, name);
          continue;
        }
        if (name.empty()) name = fs::path(*file).stem().string();
        AttributeMap m;
        m["file"] = *file;
        const Vector3d scale = vec3(x, "scale", Vector3d::Ones());
        m["scale"] = std::to_string(scale.x()) + " " + std::to_string(scale.y()) + " " + std::to_string(scale.z());
        m_meshes[name] = m;
        m_meshScale[name] = scale;
        done(x);
      } else if (tag == "material") {
        Elem x = elem(c, "");
        const std::string name = x.get("name").value_or("");
        const std::vector<double> rgba = numbers(x, "rgba", 4, 4);
        m_materials[name] = rgba.empty() ? Vector4d(1, 1, 1, 1) : Vector4d(rgba[0], rgba[1], rgba[2], rgba[3]);
        for (const char* a : {"texture", "specular", "shininess", "reflectance", "emission", "texrepeat", "texuniform",
                              "metallic", "roughness"}) {
          x.get(a);  // appearance beyond colour: not part of the model
        }
        done(x);
      } else {
        ignore(c, "<" + tag + "> asset not imported");
      }
    }
  }
  std::map<std::string, Vector3d> m_meshScale;

  // A mesh given by its vertices (and faces) in the file, scaled.
  struct InlineMesh {
    std::vector<Vector3d> vertices;
    std::vector<std::array<int, 3>> triangles;  // the faces, or the convex hull's when the file gives none
  };
  std::map<std::string, InlineMesh> m_inlineMeshes;

  void readInlineMesh(Elem& x, const std::string& name) {
    const std::vector<double> v = numbers(x, "vertex", 0, 1u << 30);
    if (v.empty()) {
      ignore(x.e, "<mesh> '" + name + "' without a file or vertices not imported");
      done(x);
      return;
    }
    if (name.empty()) fail(x.e, "a <mesh> given by its vertices needs a name");
    if (v.size() % 3 != 0 || v.size() < 12) {
      fail(x.e, "<mesh> '" + name + "': vertex needs at least four points of three numbers each");
    }
    const Vector3d scale = vec3(x, "scale", Vector3d::Ones());
    InlineMesh mesh;
    for (std::size_t i = 0; i < v.size(); i += 3) {
      mesh.vertices.push_back(Vector3d(v[i], v[i + 1], v[i + 2]).cwiseProduct(scale));
    }
    const std::vector<double> f = numbers(x, "face", 0, 1u << 30);
    if (f.size() % 3 != 0) fail(x.e, "<mesh> '" + name + "': face needs three vertex indices per triangle");
    for (std::size_t i = 0; i < f.size(); i += 3) {
      std::array<int, 3> t{};
      for (std::size_t k = 0; k < 3; ++k) {
        const double index = f[i + k];
        if (index < 0.0 || index >= static_cast<double>(mesh.vertices.size()) || index != std::floor(index)) {
          fail(x.e, "<mesh> '" + name + "': face index " + std::to_string(index) + " is not a vertex");
        }
        t[k] = static_cast<int>(index);
      }
      mesh.triangles.push_back(t);
    }
    // Without faces MuJoCo takes the convex hull of the vertices.
    if (mesh.triangles.empty()) mesh.triangles = convexHull(mesh.vertices).triangles;
    m_inlineMeshes[name] = std::move(mesh);
    done(x);
  }

  // ---- bodies ------------------------------------------------------------------------

  std::string uniqueName(std::string base, std::set<std::string>& taken) {
    if (taken.insert(base).second) return base;
    for (int i = 1;; ++i) {
      const std::string candidate = base + "_" + std::to_string(i);
      if (taken.insert(candidate).second) return candidate;
    }
  }

  void readWorldBody(const XMLElement* wb) {
    BodyPlace world;
    world.frame = "world";
    m_bodies["world"] = world;
    // Count the trees: a single tree takes the model's name.
    std::vector<const XMLElement*> tops;
    for (const XMLElement* c : children(wb)) {
      if (std::string(c->Name()) == "body") tops.push_back(c);
    }
    for (const XMLElement* c : children(wb)) {
      const std::string tag = c->Name();
      if (tag == "geom") {
        addGeom(c, "", world, "world", m_worldGeoms++);
      } else if (tag == "site") {
        addSite(c, "", world);
      } else if (tag == "body") {
        readTree(c, tops.size() == 1 ? m_modelName : std::string());
      } else if (tag == "camera") {
        addCamera(c);
      } else if (tag == "light") {
        ignore(c, "<light> not imported (scene lighting is the viewer's)");
      } else {
        skipGenerator(c);
        ignore(c, "<" + tag + "> in <worldbody> not imported" + generatorNote(tag));
      }
    }
  }

  struct JointRead {
    const XMLElement* e = nullptr;
    JointSpec spec;
    std::string name;
    double ref = 0.0;
    bool isFree = false;
    double rangeLower = std::numeric_limits<double>::quiet_NaN();  // hinge/slide range, even when not limited
    double rangeUpper = std::numeric_limits<double>::quiet_NaN();
  };

  // Reads the joints of a body (in order), relative to the body frame.
  std::vector<JointRead> readJoints(const XMLElement* body, const std::string& childClass) {
    std::vector<JointRead> out;
    for (const XMLElement* c : children(body)) {
      const std::string tag = c->Name();
      if (tag != "joint" && tag != "freejoint") continue;
      JointRead j;
      j.e = c;
      Elem x = elem(c, childClass, tag);
      j.name = x.get("name").value_or("");
      std::string type = tag == "freejoint" ? "free" : x.get("type").value_or("hinge");
      const Vector3d pos = vec3(x, "pos", Vector3d::Zero());
      Vector3d axis = vec3(x, "axis", Vector3d::UnitZ());
      if (type != "free" && type != "ball") {
        if (axis.norm() < 1e-12) fail(c, "joint '" + j.name + "': the axis is zero");
        axis.normalize();
      }
      JointSpec& s = j.spec;
      const bool angular = type == "hinge" || type == "ball";
      if (type == "hinge") {
        s = JointSpec::revolute(axis);
      } else if (type == "slide") {
        s = JointSpec::prismatic(axis);
      } else if (type == "ball") {
        s = JointSpec::ball();
      } else if (type == "free") {
        s = JointSpec::free();
        j.isFree = true;
      } else {
        fail(c, "joint '" + j.name + "': unknown type '" + type + "' (expected hinge, slide, ball or free)");
      }
      Isometry3d T = Isometry3d::Identity();
      T.translation() = pos;
      s.parentOffset = T;
      s.childOffset = T;
      if (type == "hinge" || type == "slide") {
        if (const auto r = number(x, "ref")) j.ref = angular ? angle(*r) : *r;
      }
      const auto dofs = [&](double v) { return VectorXd::Constant(numDofs(s.type), v); };
      if (const auto d = number(x, "damping"); d && *d != 0.0 && !m_noPassive) s.damping = dofs(*d);
      if (const auto k = number(x, "stiffness"); k && *k != 0.0 && !m_noPassive) {
        if (type == "hinge" || type == "slide") {
          s.springStiffness = dofs(*k);
          double ref = number(x, "springref").value_or(0.0);
          if (angular) ref = angle(ref);
          s.restPositions = dofs(ref);
        } else {
          ignore(c, "joint '" + j.name + "': stiffness of a " + type + " joint not imported");
        }
      } else {
        x.get("springref");
      }
      if (const auto a = number(x, "armature"); a && *a != 0.0) s.armature = dofs(*a);
      if (const auto f = number(x, "frictionloss"); f && *f != 0.0 && !m_noFriction) s.coulombFriction = dofs(*f);
      const std::optional<bool> limited = boolean(x, "limited");
      const std::vector<double> range = numbers(x, "range", 2, 2);
      const bool hasLimits = limited.value_or(m_autoLimits && !range.empty()) && !m_noLimits;
      if (!range.empty() && (type == "hinge" || type == "slide") && range[0] <= range[1]) {
        j.rangeLower = angular ? angle(range[0]) : range[0];
        j.rangeUpper = angular ? angle(range[1]) : range[1];
      }
      if (hasLimits && !range.empty() && (type == "hinge" || type == "slide")) {
        if (range[0] > range[1]) fail(c, "joint '" + j.name + "': range lower bound above upper bound");
        const double lo = angular ? angle(range[0]) : range[0];
        const double hi = angular ? angle(range[1]) : range[1];
        s.positionLowerLimits = dofs(lo);
        s.positionUpperLimits = dofs(hi);
      } else if (hasLimits && !range.empty() && type == "ball") {
        ignore(c, "joint '" + j.name + "': the cone limit of a ball joint not imported");
      }
      const std::vector<double> frc = numbers(x, "actuatorfrcrange", 2, 2);
      if (!frc.empty() && boolean(x, "actuatorfrclimited").value_or(m_autoLimits)) {
        s.effortLimits = dofs(std::max(std::abs(frc[0]), std::abs(frc[1])));
        if (frc[0] != -frc[1]) warn(c, "joint '" + j.name + "': an asymmetric actuatorfrcrange read as ±max");
      }
      x.get("group");
      x.get("user");
      done(x);
      out.push_back(std::move(j));
    }
    return out;
  }

  // Body tree rooted at a child of <worldbody>.
  void readTree(const XMLElement* top, const std::string& modelName) {
    const std::string childClass = attr(top, "childclass").value_or("");
    Elem x = elem(top, childClass, "body");
    std::string name = x.get("name").value_or("");
    if (name.empty()) name = "body_" + std::to_string(++m_unnamedBodies);
    const Isometry3d X = pose(x);
    x.get("childclass");
    if (x.get("mocap").value_or("false") == "true") warn(top, "body '" + name + "': mocap read as welded to the world");
    done(x);
    std::vector<JointRead> joints = readJoints(top, childClass);
    const std::vector<const XMLElement*> content = children(top);
    const bool hasChildBodies = std::any_of(content.begin(), content.end(),
                                            [](const XMLElement* c) { return std::string(c->Name()) == "body"; });
    // A lone free body is a rigid body.
    if (joints.size() == 1 && joints[0].isFree && !hasChildBodies) {
      if (!m_bodyNames.insert(name).second) fail(top, "body '" + name + "' is defined twice");
      RigidBodySpec rb;
      rb.name = cleanName(top, name);
      if (!m_names.insert(rb.name).second) rb.name = uniqueName(rb.name + "_body", m_names);
      for (const char* property : {"damping", "armature", "frictionloss", "stiffness"}) {
        const auto& sj = joints[0].spec;
        const VectorXd& v = std::string(property) == "damping"        ? sj.damping
                            : std::string(property) == "armature"     ? sj.armature
                            : std::string(property) == "frictionloss" ? sj.coulombFriction
                                                                      : sj.springStiffness;
        if (v.size() > 0 && !v.isZero(0.0)) {
          ignore(joints[0].e, "body '" + name + "': " + property +
                                  " of the free joint of a lone body not imported (Articula's rigid bodies have none)");
        }
      }
      rb.setPose(X);
      BodyPlace place;
      place.frame = rb.name;
      place.X_W = X;
      m_bodies[name] = place;
      rb.inertia = bodyInertia(top, childClass, name);
      m_spec.rigidBodies.push_back(rb);
      m_spec.ownerOrder.push_back(rb.name);
      registerJoint(joints[0], rb.name, "", JointType::Free);
      readBodyContent(top, childClass, place);
      return;
    }
    MultibodySpec mb;
    mb.name = cleanName(top, modelName.empty() ? name : modelName);
    if (m_names.count(mb.name) != 0) mb.name = uniqueName(mb.name + "_model", m_names);
    m_names.insert(mb.name);
    m_spec.multibodies.push_back(mb);
    m_spec.ownerOrder.push_back(mb.name);
    const std::size_t index = m_spec.multibodies.size() - 1;
    readBody(top, childClass, index, "", Isometry3d::Identity(), X, name, std::move(joints));
  }

  void registerJoint(const JointRead& j, const std::string& owner, const std::string& link, JointType type) {
    JointPlace p;
    p.owner = owner;
    p.link = link;
    p.type = type;
    p.ref = j.ref;
    p.nq = numPositions(type);
    p.nv = numDofs(type);
    p.rangeLower = j.rangeLower;
    p.rangeUpper = j.rangeUpper;
    m_jointOrder.push_back(j.name);
    if (!j.name.empty()) {
      if (m_joints.count(j.name) != 0) fail(j.e, "joint '" + j.name + "' is defined twice");
      m_joints[j.name] = p;
    }
    m_jointPlaces.push_back(p);
  }
  std::vector<JointPlace> m_jointPlaces;  // in qpos order

  // A body of a multibody: its joints become links (see the file comment).
  void readBody(const XMLElement* e, const std::string& childClass, std::size_t mbIndex, const std::string& parentLink,
                const Isometry3d& X_WP, const Isometry3d& X_PB, const std::string& bodyName,
                std::vector<JointRead> joints) {
    const std::string mbName = m_spec.multibodies[mbIndex].name;
    std::set<std::string> linkNames;
    for (const LinkSpec& l : m_spec.multibodies[mbIndex].links) linkNames.insert(l.name);
    std::string parent = parentLink;
    Isometry3d X_parentBody = X_PB;  // the body frame at rest, in the parent link's frame
    if (joints.empty()) {
      JointRead weld;
      weld.e = e;
      weld.spec = JointSpec::weld();
      joints.push_back(weld);
    }
    std::set<std::string> jointNames;
    for (const LinkSpec& l : m_spec.multibodies[mbIndex].links) jointNames.insert(l.joint.name);
    for (std::size_t k = 0; k < joints.size(); ++k) {
      JointRead& j = joints[k];
      const bool last = k + 1 == joints.size();
      LinkSpec link;
      if (last) {
        if (linkNames.count(bodyName) != 0 || !m_bodyNames.insert(bodyName).second) {
          fail(e, "body '" + bodyName + "' is defined twice");
        }
        link.name = cleanName(e, bodyName);
      } else {
        link.name = uniqueName(bodyName + "_" + (j.name.empty() ? "joint" + std::to_string(k) : j.name), linkNames);
        m_jointLinks.insert(mbName + "/" + link.name);
      }
      linkNames.insert(link.name);
      link.parent = parent;
      link.inertia = Inertia{0.0, Vector3d::Zero(), Matrix3d::Zero()};
      const bool isWeld = j.spec.type == JointType::Weld;
      if (j.name.empty()) {
        j.name = isWeld ? bodyName : bodyName + (joints.size() > 1 ? "_joint" + std::to_string(k) : "_joint");
        j.name = uniqueName(j.name, jointNames);
      } else if (!jointNames.insert(j.name).second) {
        fail(j.e, "joint '" + j.name + "' is defined twice");
      }
      link.joint = j.spec;
      link.joint.name = cleanName(j.e, j.name);
      if (j.isFree) {
        if (!parent.empty()) {
          warn(j.e, "joint '" + j.name + "': a free joint inside a chain is read as free relative to its parent body");
        }
        // The file's pose is the initial value of the free coordinates.
        link.joint.parentOffset = Isometry3d::Identity();
        link.joint.childOffset = Isometry3d::Identity();
        const Eigen::Quaterniond quat(X_parentBody.linear());
        link.q.resize(7);
        link.q << X_parentBody.translation(), quat.x(), quat.y(), quat.z(), quat.w();
      } else {
        // The body frame in the file is where the joint is at q = ref
        // (MuJoCo's qpos0): q = 0 is the file's pose turned (or slid) back
        // by ref, and the link starts at q = ref.
        Isometry3d back = Isometry3d::Identity();
        if (j.spec.type == JointType::Revolute)
          back.linear() = Eigen::AngleAxisd(-j.ref, j.spec.axis).toRotationMatrix();
        if (j.spec.type == JointType::Prismatic) back.translation() = -j.ref * j.spec.axis;
        link.joint.parentOffset = X_parentBody * j.spec.parentOffset * back;
        if (j.ref != 0.0) link.q = VectorXd::Constant(1, j.ref);
      }
      if (!isWeld) registerJoint(j, mbName, link.name, link.joint.type);
      m_spec.multibodies[mbIndex].links.push_back(link);
      parent = link.name;
      X_parentBody = Isometry3d::Identity();  // the next joint acts in this body frame
    }
    const std::string linkName = m_spec.multibodies[mbIndex].links.back().name;
    const std::string frame = mbName + "/" + linkName;
    BodyPlace place;
    place.frame = frame;
    place.X_W = X_WP * X_PB;
    place.multibody = mbName;
    place.link = linkName;
    m_bodies[bodyName] = place;
    // Inertia of the body's own link (the last one).
    LinkSpec& own = m_spec.multibodies[mbIndex].links.back();
    own.inertia = bodyInertia(e, childClass, bodyName);
    readBodyContent(e, childClass, place);
    for (const XMLElement* c : children(e)) {
      if (std::string(c->Name()) != "body") continue;
      const std::string cc = attr(c, "childclass").value_or(childClass);
      Elem x = elem(c, cc, "body");
      std::string name = x.get("name").value_or("");
      if (name.empty()) name = "body_" + std::to_string(++m_unnamedBodies);
      const Isometry3d X = pose(x);
      x.get("childclass");
      done(x);
      readBody(c, cc, mbIndex, linkName, place.X_W, X, name, readJoints(c, cc));
    }
  }

  // Geoms, sites and cameras of a body, and a report of what is not imported.
  void readBodyContent(const XMLElement* e, const std::string& childClass, const BodyPlace& place) {
    int geomIndex = 0;
    for (const XMLElement* c : children(e)) {
      const std::string tag = c->Name();
      if (tag == "geom") {
        addGeom(c, childClass, place, place.link.empty() ? place.frame : place.link, geomIndex++);
      } else if (tag == "site") {
        addSite(c, childClass, place);
      } else if (tag == "body" || tag == "joint" || tag == "freejoint" || tag == "inertial") {
        continue;
      } else if (tag == "camera") {
        ignore(c, "<camera> on a body not imported (viewpoints are fixed in the world)");
      } else if (tag == "light") {
        ignore(c, "<light> not imported (scene lighting is the viewer's)");
      } else {
        skipGenerator(c);
        ignore(c, "<" + tag + "> in <body> not imported" + generatorNote(tag));
      }
    }
  }

  // ---- inertia ------------------------------------------------------------------------

  struct GeomRead {
    Geometry geometry;
    Isometry3d pose = Isometry3d::Identity();  // in the body frame
    bool valid = false;
    std::string meshFile;                       // for mesh geoms
    std::vector<double> size;                   // the size attribute as given
    std::vector<std::array<int, 3>> triangles;  // a mesh given in the file: its surface (volume, inertia)
  };

  // A geom's geometry and pose in the body frame (the attributes are read from `x`).
  GeomRead readGeometry(Elem& x, const std::string& what) {
    GeomRead g;
    const std::string type = x.get("type").value_or("sphere");
    std::vector<double> size = numbers(x, "size", 0, 3);
    g.size = size;
    const std::vector<double> fromto = numbers(x, "fromto", 6, 6);
    g.pose = pose(x);
    double halfLength = size.size() > 1 ? size[1] : 0.0;
    if (!fromto.empty()) {
      if (type != "capsule" && type != "cylinder" && type != "box" && type != "ellipsoid") {
        fail(x.e, what + ": fromto is for capsule, cylinder, box and ellipsoid geoms");
      }
      const Vector3d a(fromto[0], fromto[1], fromto[2]);
      const Vector3d b(fromto[3], fromto[4], fromto[5]);
      if ((b - a).norm() < 1e-12) fail(x.e, what + ": fromto has two equal points");
      g.pose = Isometry3d::Identity();
      g.pose.translation() = 0.5 * (a + b);
      g.pose.linear() = rotationFromZ(b - a);
      halfLength = 0.5 * (b - a).norm();
      if (type == "box" || type == "ellipsoid") {
        // Across the segment both half-sizes are the first size (MJCF reference, geom/fromto).
        if (size.empty()) fail(x.e, what + ": a " + type + " with fromto needs a size");
        size = {size[0], size[0], halfLength};
      }
    }
    const auto need = [&](std::size_t n) {
      if (size.size() < n) {
        fail(x.e, what + ": a " + type + " needs " + std::to_string(n) + (n == 1 ? " size" : " sizes"));
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (!(size[i] > 0.0)) fail(x.e, what + ": sizes must be positive");
      }
    };
    if (type == "sphere") {
      need(1);
      g.geometry = Geometry::sphere(size[0]);
    } else if (type == "capsule" || type == "cylinder") {
      need(1);
      if (!(halfLength > 0.0)) fail(x.e, what + ": a " + type + " needs a half-length (size or fromto)");
      g.geometry = type == "capsule" ? Geometry::capsule(size[0], 2.0 * halfLength)
                                     : Geometry::cylinder(size[0], 2.0 * halfLength);
    } else if (type == "box") {
      need(3);
      g.geometry = Geometry::box(2.0 * Vector3d(size[0], size[1], size[2]));
    } else if (type == "ellipsoid") {
      need(3);
      g.geometry = Geometry::ellipsoid(Vector3d(size[0], size[1], size[2]));
    } else if (type == "plane") {
      g.geometry = Geometry::plane();
    } else if (type == "mesh" && m_inlineMeshes.count(x.get("mesh").value_or("")) != 0) {
      const InlineMesh& mesh = m_inlineMeshes.at(*x.get("mesh"));
      g.geometry = Geometry::convexMesh(mesh.vertices);
      g.triangles = mesh.triangles;
    } else if (type == "mesh") {
      const std::string mesh = x.get("mesh").value_or("");
      const auto it = m_meshes.find(mesh);
      if (it == m_meshes.end()) fail(x.e, what + ": mesh '" + mesh + "' is not defined in <asset>");
      fs::path file = m_meshDir / it->second.at("file");
      if (file.is_relative()) file = m_base / file;
      g.meshFile = file.string();
      g.geometry.type = GeometryType::ConvexMesh;
      g.geometry.meshFile = file.string();
      g.geometry.meshScale = m_meshScale[mesh];
    } else {
      ignore(x.e, what + ": geom type '" + type + "' not imported");
      return g;
    }
    x.get("mesh");
    g.valid = true;
    return g;
  }

  // Mass properties of a solid geometry of unit density: mass (= volume),
  // centre and rotational inertia about it, in the geom frame.
  std::optional<Inertia> unitInertia(const GeomRead& g) {
    const Geometry& geo = g.geometry;
    if (geo.type != GeometryType::ConvexMesh && geo.type != GeometryType::TriangleMesh) return solidInertia(geo, 1.0);
    if (!g.triangles.empty()) return solidMeshInertia(geo.vertices, g.triangles, 1.0);  // given in the file, scaled
    if (g.meshFile.empty() || !m_options.loadMeshes) return std::nullopt;
    std::shared_ptr<const detail::MeshData> mesh;
    try {
      mesh = detail::loadMesh(g.meshFile);
    } catch (const std::exception&) {
      return std::nullopt;  // reported with the geom
    }
    std::vector<Vector3d> vertices;
    vertices.reserve(mesh->vertices.size());
    for (const Vector3d& v : mesh->vertices) vertices.push_back(v.cwiseProduct(geo.meshScale));
    return solidMeshInertia(vertices, mesh->triangles, 1.0);
  }

  Inertia bodyInertia(const XMLElement* body, const std::string& childClass, const std::string& name) {
    const XMLElement* inertial = nullptr;
    for (const XMLElement* c : children(body)) {
      if (std::string(c->Name()) == "inertial") inertial = c;
    }
    const bool fromGeoms = m_inertiaFromGeom == "true" || (m_inertiaFromGeom == "auto" && inertial == nullptr);
    Inertia I = Inertia::zero();
    if (!fromGeoms && inertial != nullptr) {
      Elem x = elem(inertial, childClass, "inertial");
      const Isometry3d X = pose(x);
      const std::optional<double> mass = number(x, "mass");
      if (!mass) fail(inertial, "body '" + name + "': <inertial> needs a mass");
      if (*mass < 0.0) fail(inertial, "body '" + name + "': negative mass");
      I.mass = *mass;
      I.com = X.translation();
      const std::vector<double> diag = numbers(x, "diaginertia", 3, 3);
      const std::vector<double> full = numbers(x, "fullinertia", 6, 6);
      Matrix3d J = Matrix3d::Zero();
      if (!full.empty()) {
        // Ixx Iyy Izz Ixy Ixz Iyz, in the inertial frame.
        J << full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2];
      } else if (!diag.empty()) {
        J = Vector3d(diag[0], diag[1], diag[2]).asDiagonal();
      } else {
        fail(inertial, "body '" + name + "': <inertial> needs diaginertia or fullinertia");
      }
      // The inertial frame's orientation turns the tensor into body axes.
      I.rotational = X.linear() * J * X.linear().transpose();
      done(x);
    } else if (fromGeoms) {
      for (const XMLElement* c : children(body)) {
        if (std::string(c->Name()) != "geom") continue;
        Elem x = elem(c, childClass, "geom");
        const std::string what = "body '" + name + "' geom";
        GeomRead g = readGeometry(x, what);
        if (!g.valid || g.geometry.type == GeometryType::Plane) continue;
        const int group = clampToInt(number(x, "group").value_or(0.0));
        if (group < m_inertiaGroups.first || group > m_inertiaGroups.second) continue;
        const std::optional<double> mass = number(x, "mass");
        const double density = number(x, "density").value_or(1000.0);
        std::optional<Inertia> unit = unitInertia(g);
        if (!unit) {
          if (mass.value_or(density) != 0.0) {
            ignore(c, what + ": a mesh geom's mass not imported (the mesh is not loaded or has no volume)");
          }
          continue;
        }
        const double scale = mass ? *mass / unit->mass : density;
        Inertia part = *unit;
        part.mass *= scale;
        part.rotational *= scale;
        I.add(part, g.pose);
      }
    }
    boundInertia(I);
    detail::checkInertia(I, "body '" + name + "'", fileOf(body), body->GetLineNum());
    const std::string repaired = detail::repairInertia(I, "body '" + name + "'");
    if (!repaired.empty()) warn(body, repaired);
    return I;
  }

  // MuJoCo's compiler passes on a body's mass properties, in its order:
  // balanceinertia, then boundmass and boundinertia (on the principal
  // moments). settotalmass comes last, over the whole model (scaleToTotalMass).
  void boundInertia(Inertia& I) const {
    if (!m_balanceInertia && m_boundInertia <= 0.0 && m_boundMass <= 0.0) return;
    const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(0.5 * (I.rotational + I.rotational.transpose()));
    Vector3d moments = eig.eigenvalues();
    if (m_balanceInertia) {
      const bool valid = moments[0] + moments[1] >= moments[2] && moments[0] + moments[2] >= moments[1] &&
                         moments[1] + moments[2] >= moments[0];
      if (!valid) moments = Vector3d::Constant(moments.mean());
    }
    moments = moments.cwiseMax(m_boundInertia);
    I.rotational = eig.eigenvectors() * moments.asDiagonal() * eig.eigenvectors().transpose();
    I.mass = std::max(I.mass, m_boundMass);
  }

  // <compiler settotalmass>: every body's mass and rotational inertia scaled
  // by one factor so that the model's mass is the given total.
  void scaleToTotalMass() {
    if (m_setTotalMass <= 0.0) return;
    double total = 0.0;
    for (const RigidBodySpec& rb : m_spec.rigidBodies) total += rb.inertia.mass;
    for (const MultibodySpec& mb : m_spec.multibodies) {
      for (const LinkSpec& l : mb.links) total += l.inertia.mass;
    }
    if (!(total > 0.0)) return;
    const double scale = m_setTotalMass / total;
    const auto apply = [scale](Inertia& I) {
      I.mass *= scale;
      I.rotational *= scale;
    };
    for (RigidBodySpec& rb : m_spec.rigidBodies) apply(rb.inertia);
    for (MultibodySpec& mb : m_spec.multibodies) {
      for (LinkSpec& l : mb.links) apply(l.inertia);
    }
  }

  // ---- geoms, sites, cameras -------------------------------------------------------

  void addGeom(const XMLElement* c, const std::string& childClass, const BodyPlace& place, const std::string& bodyName,
               int index = 0) {
    Elem x = elem(c, childClass, "geom");
    const std::string given = x.get("name").value_or("");
    const std::string base = given.empty() ? bodyName + "_geom" + std::to_string(index) : given;
    GeomRead g = readGeometry(x, "geom '" + base + "'");
    // Mass attributes are read with the body's inertia.
    x.get("mass");
    x.get("density");
    const int contype = clampToInt(number(x, "contype").value_or(1.0));
    const int conaffinity = clampToInt(number(x, "conaffinity").value_or(1.0));
    const int group = clampToInt(number(x, "group").value_or(0.0));
    const std::vector<double> friction = numbers(x, "friction", 1, 3);
    const std::vector<double> rgba = numbers(x, "rgba", 4, 4);
    const std::string material = x.get("material").value_or("");
    for (const char* a : {"condim", "priority", "solref", "solimp", "solmix", "margin", "gap", "user", "shellinertia",
                          "fitscale", "fluidshape", "fluidcoef"}) {
      if (!x.has(a)) continue;
      if (std::string(a) == "user") x.get(a);
    }
    done(x);
    if (!g.valid) return;
    Vector4d color(0.5, 0.5, 0.5, 1.0);
    if (!rgba.empty()) {
      color = Vector4d(rgba[0], rgba[1], rgba[2], rgba[3]);
    } else if (!material.empty()) {
      const auto it = m_materials.find(material);
      if (it == m_materials.end()) fail(c, "geom '" + base + "': material '" + material + "' is not defined");
      color = it->second;
    }
    if (g.geometry.type == GeometryType::ConvexMesh && !g.meshFile.empty()) {
      if (!m_options.loadMeshes) {
        ignore(c, "geom '" + base + "': mesh '" + g.meshFile + "' not loaded (meshes are skipped)");
        return;
      }
      try {
        const bool moving = place.frame != "world";
        g.geometry = detail::meshGeometry(g.meshFile, g.geometry.meshScale, moving);
        ++m_report.numMeshesLoaded;
      } catch (const std::exception& ex) {
        // As for URDF and SDF (docs/import.md): the shape is left out.
        warn(c, "geom '" + base + "': " + ex.what() + "; the shape is left out");
        return;
      }
    }
    const Isometry3d pose = place.X_LB * g.pose;
    const Eigen::Vector2d planeSize(g.size.size() > 0 ? g.size[0] : 0.0, g.size.size() > 1 ? g.size[1] : 0.0);
    const bool collides = contype != 0 || conaffinity != 0;
    if (g.geometry.type == GeometryType::Plane && place.frame != "world") {
      ignore(c, "geom '" + base + "': a plane on a moving body not imported (planes are static)");
      return;
    }
    if (collides) {
      m_contactMasks.insert({contype, conaffinity});
      ShapeSpec s;
      s.name = uniqueName(base, m_shapeNames);
      s.owner = place.frame;
      s.collision = true;
      s.geometry = g.geometry;
      // A mesh given in the file collides as its convex hull on a moving
      // body and as its surface on the world, like a mesh file.
      if (!g.triangles.empty() && place.frame == "world") {
        s.geometry = Geometry::triangleMesh(g.geometry.vertices, g.triangles);
      }
      s.pose = pose;
      if (!friction.empty()) s.material.friction = friction[0];
      m_spec.shapes.push_back(s);
    }
    if (g.geometry.type == GeometryType::Plane) {
      // An infinite plane cannot be drawn: MuJoCo draws the rectangle of
      // half-sizes size[0] × size[1] (0: infinite), a thin box here; a
      // colliding plane is drawn as the ground it is.
      if (!collides) {
        if (planeSize.x() > 0.0 && planeSize.y() > 0.0) {
          ShapeSpec v;
          v.name = uniqueName(base, m_shapeNames);
          v.owner = place.frame;
          v.collision = false;
          v.geometry = Geometry::box(Vector3d(2.0 * planeSize.x(), 2.0 * planeSize.y(), kPlaneThickness));
          v.pose = pose * Isometry3d(Eigen::Translation3d(0.0, 0.0, -0.5 * kPlaneThickness));
          v.color = color;
          m_spec.shapes.push_back(v);
        } else {
          ignore(c, "geom '" + base + "': an infinite plane that does not collide not imported (nothing to draw)");
        }
      }
      return;
    }
    // MuJoCo draws geom groups 0–2; a colliding geom also gets its look.
    if (!collides || group <= 2) {
      ShapeSpec v;
      v.name = uniqueName(collides ? base + "_visual" : base, m_shapeNames);
      v.owner = place.frame;
      v.collision = false;
      v.geometry = g.geometry;
      if (g.geometry.type == GeometryType::ConvexMesh && !g.meshFile.empty()) {
        v.geometry = detail::meshGeometry(g.meshFile, g.geometry.meshScale, false);
      } else if (!g.triangles.empty()) {
        v.geometry = Geometry::triangleMesh(g.geometry.vertices, g.triangles);  // drawn as given
      }
      v.geometry.parts.clear();  // MuJoCo draws a mesh in the geom's colour, whatever the file's materials
      v.pose = pose;
      v.color = color;
      m_spec.shapes.push_back(v);
    }
  }

  void addSite(const XMLElement* c, const std::string& childClass, const BodyPlace& place) {
    Elem x = elem(c, childClass, "site");
    std::string name = x.get("name").value_or("");
    Isometry3d X = pose(x);
    // fromto: at the segment's middle, z along it (as a geom's fromto).
    if (const std::vector<double> fromto = numbers(x, "fromto", 6, 6); !fromto.empty()) {
      const Vector3d a(fromto[0], fromto[1], fromto[2]);
      const Vector3d b(fromto[3], fromto[4], fromto[5]);
      if ((b - a).norm() < 1e-12) fail(c, "site '" + name + "': fromto has two equal points");
      X = Isometry3d::Identity();
      X.translation() = 0.5 * (a + b);
      X.linear() = rotationFromZ(b - a);
    }
    for (const char* a : {"type", "size", "rgba", "group", "material", "user"}) x.get(a);
    done(x);
    if (name.empty()) return;  // only named sites can be referred to
    if (m_sites.count(name) != 0) fail(c, "site '" + name + "' is defined twice");
    m_sites[name] = {place.frame, place.X_LB * X};
    FrameSpec f;
    f.name = cleanName(c, name);  // made unique once every body has its name (nameSiteFrames)
    f.isFree = false;
    f.parent = place.frame;
    f.pose = place.X_LB * X;
    m_spec.frames.push_back(f);
    m_siteFrame[name] = f.name;
  }

  // Sites have a namespace of their own in MJCF: a site named like a body
  // becomes NAME_site.
  void nameSiteFrames() {
    for (FrameSpec& f : m_spec.frames) {
      const std::string given = f.name;
      f.name = m_names.count(given) != 0 ? uniqueName(given + "_site", m_names) : given;
      m_names.insert(f.name);
      for (auto& [site, frame] : m_siteFrame) {
        if (frame == given) frame = f.name;
      }
    }
  }

  // Articula's names have no '/', which separates a multibody from its
  // parts; MJCF names may have one.
  std::string cleanName(const XMLElement* e, const std::string& name) {
    if (name.find('/') == std::string::npos) return name;
    std::string clean = name;
    std::replace(clean.begin(), clean.end(), '/', '_');
    warn(e, "'" + name + "' is named '" + clean + "' (Articula names have no '/')");
    return clean;
  }
  std::map<std::string, std::string> m_siteFrame;

  void addCamera(const XMLElement* c) {
    Elem x = elem(c, "", "camera");
    std::string name = x.get("name").value_or("");
    const Isometry3d X = pose(x);
    const double fovy = number(x, "fovy").value_or(45.0);
    x.get("mode");
    done(x);
    ViewpointSpec v;
    v.name = name.empty() ? "camera_" + std::to_string(m_spec.viewpoints.size() + 1) : name;
    std::replace_if(
        v.name.begin(), v.name.end(),
        [](char ch) {
          return ch == '/' || ch == ':' || ch == ',' || std::isspace(static_cast<unsigned char>(ch)) != 0;
        },
        '_');
    v.eye = X.translation();
    // MuJoCo cameras look along their −z axis.
    v.center = X.translation() - X.linear().col(2);
    v.fovYDegrees = std::clamp(fovy, 1.0, 170.0);
    m_spec.viewpoints.push_back(v);
  }

  // ---- contact, equality --------------------------------------------------------------

  const BodyPlace& bodyPlace(const XMLElement* e, const std::string& name) {
    const auto it = m_bodies.find(name);
    if (it == m_bodies.end()) undefined(e, "body", name);
    return it->second;
  }

  void readContact(const XMLElement* e) {
    for (const XMLElement* c : children(e)) {
      try {
        const std::string tag = c->Name();
        if (tag != "exclude") {
          ignore(c, "<" + tag + "> in <contact> not imported (Articula pairs bodies, not geoms)");
          continue;
        }
        Elem x = elem(c, "", "exclude");
        const std::string a = x.get("body1").value_or("");
        const std::string b = x.get("body2").value_or("");
        done(x);
        m_spec.collisionSettings.push_back(CollisionSettingSpec{bodyPlace(c, a).frame, bodyPlace(c, b).frame, false});
      } catch (const GeneratedName& g) {
        notImported(c, g);
      }
    }
  }

  std::optional<Isometry3d> siteOrBody(Elem& x, const char* bodyAttr, const char* siteAttr, std::string& frame) {
    if (const auto site = x.get(siteAttr)) {
      const auto it = m_sites.find(*site);
      if (it == m_sites.end()) undefined(x.e, "site", *site);
      frame = it->second.first;
      return it->second.second;
    }
    const std::optional<std::string> body = x.get(bodyAttr);
    if (!body) return std::nullopt;
    const BodyPlace& p = bodyPlace(x.e, *body);
    frame = p.frame;
    return p.X_LB;
  }

  Isometry3d worldPose(const std::string& frame) const {
    for (const auto& [name, p] : m_bodies) {
      if (p.frame == frame) return p.X_W * p.X_LB.inverse();
    }
    return Isometry3d::Identity();
  }

  void readEquality(const XMLElement* e) {
    for (const XMLElement* c : children(e)) {
      try {
        const std::string tag = c->Name();
        if (m_noEquality) {
          ignore(c, "<" + tag + "> not imported: equality constraints are disabled (<option><flag>)");
          continue;
        }
        // Every kind of equality constraint shares the <default><equality> of its class.
        Elem x = elem(c, "", "equality");
        std::string name = objectName(x);
        if (boolean(x, "active").value_or(true) == false) {
          ignore(c, "<" + tag + "> '" + name + "' not imported: it is inactive");
          continue;
        }
        x.get("solref");
        x.get("solimp");
        if (tag == "connect" || tag == "weld") {
          std::string frameA, frameB = "world";
          std::optional<Isometry3d> A = siteOrBody(x, "body1", "site1", frameA);
          if (!A) fail(c, "<" + tag + "> needs body1 or site1");
          std::optional<Isometry3d> B = siteOrBody(x, "body2", "site2", frameB);
          if (!B) B = Isometry3d::Identity();
          ClosureSpec cl;
          cl.name = name.empty() ? uniqueName(tag, m_closureNames) : uniqueName(name, m_closureNames);
          cl.frameA = frameA;
          cl.frameB = frameB;
          const Isometry3d X_WA = worldPose(frameA);
          const Isometry3d X_WB = worldPose(frameB);
          const bool bySite = x.e->Attribute("site1") != nullptr;
          if (tag == "connect") {
            cl.family = LoopClosureFamily::Point;
            Isometry3d anchor = *A;
            if (!bySite) {
              const Vector3d p = vec3(x, "anchor", Vector3d::Zero());
              anchor = *A * Isometry3d(Eigen::Translation3d(p));
            }
            cl.offsetA = Isometry3d(Eigen::Translation3d(anchor.translation()));
            if (bySite) {
              // The two sites are pulled together, wherever they are at the reference pose.
              cl.offsetB = Isometry3d(Eigen::Translation3d(B->translation()));
            } else {
              // The same world point in body2 at the reference pose.
              const Vector3d world = X_WA * anchor.translation();
              cl.offsetB = Isometry3d(Eigen::Translation3d(X_WB.inverse() * world));
            }
          } else if (bySite) {
            // The frames of the two sites are aligned (anchor and relpose are for bodies).
            cl.family = LoopClosureFamily::Rigid;
            cl.offsetA = *A;
            cl.offsetB = *B;
            x.get("torquescale");
          } else {
            cl.family = LoopClosureFamily::Rigid;
            const std::vector<double> rel = numbers(x, "relpose", 7, 7);
            const Vector3d anchor = vec3(x, "anchor", Vector3d::Zero());
            // The weld point, in body2 (the anchor), held where it is at the reference pose.
            Isometry3d inB = *B * Isometry3d(Eigen::Translation3d(anchor));
            const Isometry3d world = X_WB * inB;
            Isometry3d inA = X_WA.inverse() * world;
            if (rel.size() == 7 && (rel[3] != 0.0 || rel[4] != 0.0 || rel[5] != 0.0 || rel[6] != 0.0)) {
              // relpose: the weld frame in body1 (MuJoCo holds body1 · relpose
              // on body2 · anchor, with body2's orientation at relpose's).
              Isometry3d X12 = Isometry3d::Identity();
              X12.translation() = Vector3d(rel[0], rel[1], rel[2]);
              X12.linear() = Eigen::Quaterniond(rel[3], rel[4], rel[5], rel[6]).normalized().toRotationMatrix();
              inA = *A * X12;
            }
            cl.offsetA = inA;
            cl.offsetB = inB;
            x.get("torquescale");
          }
          m_spec.loopClosures.push_back(cl);
          LoopCut cut;
          cut.joint = cl.name;
          cut.closure = cl.name;
          cut.family = cl.family;
          cut.reason = "an MJCF <" + tag + "> equality constraint closes a loop";
          cut.file = fileOf(c);
          cut.line = c->GetLineNum();
          m_report.cuts.push_back(cut);
        } else if (tag == "joint") {
          const std::string j1 = x.get("joint1").value_or("");
          const std::optional<std::string> j2 = x.get("joint2");
          const std::vector<double> poly = numbers(x, "polycoef", 1, 5);
          done(x);
          const auto place = [&](const std::string& j) {
            const auto it = m_joints.find(j);
            if (it == m_joints.end()) undefined(c, "joint", j);
            if (it->second.link.empty() ||
                (it->second.type != JointType::Revolute && it->second.type != JointType::Prismatic)) {
              fail(c, "<equality joint>: joint '" + j + "' is not a hinge or slide joint of a chain");
            }
            return it->second;
          };
          const JointPlace follower = place(j1);
          if (!j2) {
            ignore(c, "<equality joint> '" + name + "' with one joint (holding it at a value) not imported");
            continue;
          }
          const JointPlace leader = place(*j2);
          std::vector<double> p = poly.empty() ? std::vector<double>{0.0, 1.0, 0.0, 0.0, 0.0} : poly;
          p.resize(5, 0.0);
          if (p[2] != 0.0 || p[3] != 0.0 || p[4] != 0.0) {
            warn(c, "<equality joint> '" + name + "': the quadratic and higher terms of polycoef are not imported");
          }
          CouplerSpec cp;
          cp.name = name.empty() ? uniqueName(j1 + "_coupler", m_closureNames) : uniqueName(name, m_closureNames);
          cp.follower = follower.owner + "/" + jointNameOf(follower);
          cp.leader = leader.owner + "/" + jointNameOf(leader);
          // MuJoCo: q₁ − ref₁ = a₀ + a₁·(q₂ − ref₂), with q as qpos.
          cp.ratio = p[1];
          cp.offset = follower.ref + p[0] - p[1] * leader.ref;
          m_spec.jointCouplers.push_back(cp);
          m_report.couplers.push_back(
              CouplerMade{cp.name, cp.leader, cp.follower, cp.ratio, cp.offset, fileOf(c), c->GetLineNum()});
          continue;
        } else {
          ignore(c, "<" + tag + "> equality" + (name.empty() ? std::string() : " '" + name + "'") + " not imported" +
                        whyNot(tag));
          continue;
        }
        done(x);
      } catch (const GeneratedName& g) {
        notImported(c, g);
      }
    }
  }
  std::set<std::string> m_closureNames;

  // Body and joint names must be unique in a whole MJCF file, so a file
  // with two trees of the same link names (what Articula's export writes
  // then) names them MODEL.LINK and MODEL.JOINT. A tree in which every
  // link and joint is qualified by the same MODEL becomes the multibody
  // MODEL with the unqualified names.
  void unqualifyNames() {
    std::set<std::string> owners;
    for (const MultibodySpec& mb : m_spec.multibodies) owners.insert(mb.name);
    for (const RigidBodySpec& rb : m_spec.rigidBodies) owners.insert(rb.name);
    for (MultibodySpec& mb : m_spec.multibodies) {
      const auto dot = mb.name.find('.');
      if (dot == std::string::npos || dot == 0) continue;
      const std::string model = mb.name.substr(0, dot);
      const std::string prefix = model + ".";
      const auto qualified = [&](const std::string& n) { return n.size() > prefix.size() && n.rfind(prefix, 0) == 0; };
      const bool all = std::all_of(mb.links.begin(), mb.links.end(),
                                   [&](const LinkSpec& l) { return qualified(l.name) && qualified(l.joint.name); });
      if (!all || owners.count(model) != 0) continue;
      const std::string oldName = mb.name;
      std::map<std::string, std::string> renamed;  // "old/part" → "new/part"
      for (LinkSpec& l : mb.links) {
        const std::string link = l.name.substr(prefix.size());
        const std::string joint = l.joint.name.substr(prefix.size());
        renamed[oldName + "/" + l.name] = model + "/" + link;
        renamed[oldName + "/" + l.joint.name] = model + "/" + joint;
        l.name = link;
        l.joint.name = joint;
        if (!l.parent.empty()) l.parent = l.parent.substr(prefix.size());
      }
      mb.name = model;
      owners.insert(model);
      const auto fix = [&](std::string& ref) {
        const auto it = renamed.find(ref);
        if (it != renamed.end()) ref = it->second;
        if (ref == oldName) ref = model;
      };
      for (ShapeSpec& x : m_spec.shapes) fix(x.owner);
      for (FrameSpec& x : m_spec.frames) fix(x.parent);
      for (ClosureSpec& x : m_spec.loopClosures) {
        fix(x.frameA);
        fix(x.frameB);
      }
      for (CouplerSpec& x : m_spec.jointCouplers) {
        fix(x.leader);
        fix(x.follower);
      }
      for (CollisionSettingSpec& x : m_spec.collisionSettings) {
        fix(x.a);
        fix(x.b);
      }
      for (ActuatorSpec& x : m_spec.actuators) fix(x.joint);
      for (SensorSpec& x : m_spec.sensors) {
        fix(x.frame);
        fix(x.joint);
      }
      for (std::string& x : m_spec.ownerOrder) fix(x);
    }
  }

  // The name of a closure, coupler, actuator or sensor: Articula's names
  // have no '/', which separates a multibody from its parts.
  std::string objectName(Elem& x) { return cleanName(x.e, x.get("name").value_or("")); }

  std::string jointNameOf(const JointPlace& p) const {
    for (const MultibodySpec& mb : m_spec.multibodies) {
      if (mb.name != p.owner) continue;
      for (const LinkSpec& l : mb.links) {
        if (l.name == p.link) return l.joint.name;
      }
    }
    return p.link;
  }

  // ---- actuators ------------------------------------------------------------------------

  void readActuators(const XMLElement* e) {
    for (const XMLElement* c : children(e)) {
      try {
        const std::string tag = c->Name();
        m_actuatorOf.push_back(-1);
        if (actuatorTags().count(tag) == 0) {
          ignore(c, "<" + tag + "> in <actuator> not imported");
          continue;
        }
        Elem x = elem(c, "", "general");
        // The element's own tag default too (e.g. <default><position kp=.../>).
        {
          Elem own = elem(c, "", tag);
          for (const auto& [k, v] : own.values) x.values[k] = v;
        }
        const std::string name = objectName(x);
        const std::string what = "actuator '" + name + "'";
        const std::optional<std::string> joint = x.get("joint");
        for (const char* t : {"tendon", "site", "body", "jointinparent", "cranksite", "slidersite"}) {
          if (x.has(t)) {
            x.get(t);
            if (std::string(t) != "jointinparent") {
              ignore(c, what + ": a " + std::string(t) + " transmission not imported (joints only)");
            }
          }
        }
        if (!joint) {
          if (!x.has("tendon") && !x.has("site") && !x.has("body"))
            ignore(c, what + " has no transmission: not imported");
          continue;
        }
        const auto it = m_joints.find(*joint);
        if (it == m_joints.end()) undefined(c, "joint", *joint, what);
        const JointPlace& jp = it->second;
        if (jp.link.empty() || jp.nv != 1) {
          ignore(c, what + ": joint '" + *joint + "' is not a hinge or slide joint; not imported");
          continue;
        }
        ActuatorSpec a;
        a.name = name.empty() ? uniqueName(*joint + "_" + tag, m_actuatorNames) : uniqueName(name, m_actuatorNames);
        a.joint = jp.owner + "/" + jointNameOf(jp);
        const std::vector<double> gear = numbers(x, "gear", 1, 6);
        const double g = gear.empty() ? 1.0 : gear[0];
        if (g == 0.0) fail(c, what + ": gear is 0 (the actuator would act on nothing)");
        std::vector<double> ctrl = numbers(x, "ctrlrange", 2, 2);
        const std::vector<double> force = numbers(x, "forcerange", 2, 2);
        // inheritrange (position servos, MuJoCo 3): the control range is the
        // joint's range scaled by it about its middle.
        const double inherit = tag == "position" ? number(x, "inheritrange").value_or(0.0) : 0.0;
        if (inherit > 0.0) {
          if (!(jp.rangeUpper > jp.rangeLower))
            fail(c, what + ": inheritrange needs a range on joint '" + *joint + "'");
          const double mid = 0.5 * (jp.rangeLower + jp.rangeUpper);
          const double half = 0.5 * (jp.rangeUpper - jp.rangeLower) * inherit;
          ctrl = {mid - half, mid + half};
        }
        const bool ctrlLimited = inherit > 0.0 || boolean(x, "ctrllimited").value_or(m_autoLimits && !ctrl.empty());
        const bool forceLimited = boolean(x, "forcelimited").value_or(m_autoLimits && !force.empty());
        const std::vector<double> gain = numbers(x, "gainprm", 1, 10);
        const std::vector<double> bias = numbers(x, "biasprm", 1, 10);
        const std::string gaintype = x.get("gaintype").value_or("fixed");
        const std::string biastype = x.get("biastype").value_or("none");
        const std::string dyntype = x.get("dyntype").value_or("none");
        x.get("dynprm");
        x.get("group");
        x.get("actlimited");
        x.get("actrange");
        x.get("lengthrange");
        // Activation dynamics (integrator, filter, muscle) have no Articula form.
        bool ok = dyntype == "none";
        if (!ok) {
          // reported below
        } else if (tag == "motor") {
          a.type = ActuatorType::Motor;
          a.gear = g;
        } else if (tag == "position") {
          a.type = ActuatorType::PositionServo;
          a.kp = number(x, "kp").value_or(1.0) * g * g;
          if (const auto kv = number(x, "kv"); kv && *kv != 0.0)
            a.kd = *kv * g * g;
          else
            a.kd = 0.0;
        } else if (tag == "velocity") {
          a.type = ActuatorType::VelocityServo;
          a.kv = number(x, "kv").value_or(1.0) * g * g;
        } else if (tag == "general") {
          std::vector<double> gp = gain;
          gp.resize(3, 0.0);
          if (gain.empty()) gp[0] = 1.0;
          std::vector<double> bp = bias;
          bp.resize(3, 0.0);
          if (gaintype != "fixed") {
            ok = false;
          } else if (biastype == "none" || (bp[0] == 0.0 && bp[1] == 0.0 && bp[2] == 0.0)) {
            a.type = ActuatorType::Motor;
            a.gear = g * gp[0];
          } else if (biastype == "affine" && bp[0] == 0.0 && bp[1] == -gp[0] && gp[0] > 0.0) {
            // force = kp·u − kp·q − kv·q̇: a position servo.
            a.type = ActuatorType::PositionServo;
            a.kp = gp[0] * g * g;
            a.kd = -bp[2] * g * g;
          } else if (biastype == "affine" && bp[0] == 0.0 && bp[1] == 0.0 && bp[2] == -gp[0] && gp[0] > 0.0) {
            a.type = ActuatorType::VelocityServo;
            a.kv = gp[0] * g * g;
          } else {
            ok = false;
          }
        } else {
          ok = false;
        }
        if (!ok) {
          ignore(c, what + ": <" + tag + ">" +
                        (dyntype != "none" ? " with dyntype '" + dyntype + "' (activation dynamics)"
                                           : " of this gain and bias") +
                        " has no Articula actuator; not imported");
          done(x);
          continue;
        }
        if (a.type != ActuatorType::Motor && g != 1.0) {
          converted(c, what + ": gear " + std::to_string(g) + " folded into the servo's gains and targets");
        }
        if (ctrlLimited && !ctrl.empty()) {
          a.controlMin = ctrl[0];
          a.controlMax = ctrl[1];
          if (a.type != ActuatorType::Motor && g != 1.0) {
            // A servo's target is a joint coordinate: MuJoCo's control is gear times it.
            a.controlMin = std::min(ctrl[0] / g, ctrl[1] / g);
            a.controlMax = std::max(ctrl[0] / g, ctrl[1] / g);
          }
        }
        if (forceLimited && !force.empty()) {
          const double lo = force[0] * std::abs(g);
          const double hi = force[1] * std::abs(g);
          a.forceMin = g >= 0.0 ? lo : -hi;
          a.forceMax = g >= 0.0 ? hi : -lo;
        }
        m_actuatorOf.back() = static_cast<int>(m_spec.actuators.size());
        m_servoGear.push_back(a.type == ActuatorType::Motor ? 1.0 : g);
        m_spec.actuators.push_back(a);
        m_report.actuators.push_back(ActuatorMade{a.name, a.joint, toString(a.type), "<" + tag + ">", a.gear,
                                                  std::isfinite(a.forceMax) ? a.forceMax : ActuatorSpec::kInf,
                                                  fileOf(c), c->GetLineNum()});
        done(x);
      } catch (const GeneratedName& g) {
        notImported(c, g);
      }
    }
  }
  std::set<std::string> m_actuatorNames;
  std::vector<double> m_servoGear;  // per imported actuator: what MuJoCo's control is divided by

  void converted(const XMLElement* e, const std::string& message) { warn(e, message); }

  // ---- sensors -----------------------------------------------------------------------------

  void readSensors(const XMLElement* e) {
    std::map<std::string, std::size_t> imuAt, ftAt;  // site → sensor index
    std::map<std::string, std::size_t> encoderAt;    // joint → sensor index
    for (const XMLElement* c : children(e)) {
      try {
        const std::string tag = c->Name();
        Elem x = elem(c, "", tag);
        const std::string name = objectName(x);
        const std::optional<std::string> site = x.get("site");
        const std::optional<std::string> joint = x.get("joint");
        const double noise = number(x, "noise").value_or(0.0);
        x.get("user");
        SensorSpec s;
        s.name = name;
        s.noiseStddev = noise;
        const auto siteFrame = [&]() -> std::pair<std::string, Isometry3d> {
          if (!site) fail(c, "<" + tag + "> needs a site");
          const auto it = m_sites.find(*site);
          if (it == m_sites.end()) undefined(c, "site", *site);
          return it->second;
        };
        if (tag == "accelerometer" || tag == "gyro") {
          const auto [frame, pose] = siteFrame();
          const auto at = imuAt.find(*site);
          if (at != imuAt.end()) {
            warn(c, "<" + tag + "> '" + name + "' is the same IMU as sensor '" + m_spec.sensors[at->second].name +
                        "' (an Articula IMU measures both)");
            done(x);
            continue;
          }
          s.type = SensorType::Imu;
          s.frame = frame;
          s.pose = pose;
          imuAt[*site] = m_spec.sensors.size();
        } else if (tag == "force" || tag == "torque") {
          const auto [frame, pose] = siteFrame();
          const auto at = ftAt.find(*site);
          if (at != ftAt.end()) {
            warn(c, "<" + tag + "> '" + name + "' is the same force-torque sensor as '" +
                        m_spec.sensors[at->second].name + "'");
            done(x);
            continue;
          }
          // The joint of the site's body (its last link), at the site.
          const LinkSpec* link = linkOfFrame(frame);
          if (link == nullptr || link->joint.type == JointType::Free) {
            ignore(c, "<" + tag + "> '" + name + "': the site's body has no parent joint; not imported");
            done(x);
            continue;
          }
          s.type = SensorType::ForceTorque;
          s.joint = frame.substr(0, frame.find('/')) + "/" + link->joint.name;
          s.pose = link->joint.childOffset.inverse() * pose;
          ftAt[*site] = m_spec.sensors.size();
        } else if (tag == "touch") {
          const auto [frame, pose] = siteFrame();
          s.type = SensorType::Contact;
          s.frame = frame;
          warn(c, "<touch> '" + name + "' measures every contact of its body, not only those in the site's volume");
        } else if (tag == "jointpos" || tag == "jointvel") {
          if (!joint) fail(c, "<" + tag + "> needs a joint");
          const auto it = m_joints.find(*joint);
          if (it == m_joints.end()) undefined(c, "joint", *joint);
          if (it->second.link.empty()) {
            ignore(c, "<" + tag + "> '" + name + "' on the free joint of a rigid body not imported");
            done(x);
            continue;
          }
          s.type = SensorType::JointEncoder;
          s.joint = it->second.owner + "/" + jointNameOf(it->second);
          // An encoder measures both q and v (docs/import.md): a jointpos and a
          // jointvel on the same joint are one encoder.
          const auto at = encoderAt.find(s.joint);
          if (at != encoderAt.end()) {
            warn(c, "<" + tag + "> '" + name + "' is the same joint encoder as sensor '" +
                        m_spec.sensors[at->second].name + "'");
            done(x);
            continue;
          }
          encoderAt[s.joint] = m_spec.sensors.size();
        } else if (tag == "rangefinder") {
          const auto [frame, pose] = siteFrame();
          s.type = SensorType::Rangefinder;
          s.frame = frame;
          // MuJoCo's rangefinder looks along the site's +z, ours along +x.
          s.pose = pose * Isometry3d(Eigen::AngleAxisd(-std::numbers::pi / 2, Vector3d::UnitY()));
          s.maxRange = 1e6;
        } else {
          ignore(c, "<" + tag + "> sensor not imported (Articula has no sensor of this kind)");
          continue;
        }
        done(x);
        m_spec.sensors.push_back(s);
        m_report.sensors.push_back(SensorMade{s.name, std::string(toString(s.type)),
                                              s.joint.empty() ? s.frame : s.joint, fileOf(c), c->GetLineNum()});
      } catch (const GeneratedName& g) {
        notImported(c, g);
      }
    }
  }

  const LinkSpec* linkOfFrame(const std::string& frame) const {
    const auto slash = frame.find('/');
    if (slash == std::string::npos) return nullptr;
    for (const MultibodySpec& mb : m_spec.multibodies) {
      if (mb.name != frame.substr(0, slash)) continue;
      for (const LinkSpec& l : mb.links) {
        if (l.name == frame.substr(slash + 1)) return &l;
      }
    }
    return nullptr;
  }

  // ---- keyframes -------------------------------------------------------------------------

  int mjNq() const {
    int n = 0;
    for (const JointPlace& p : m_jointPlaces) n += p.nq;  // MuJoCo's counts are Articula's
    return n;
  }
  int mjNv() const {
    int n = 0;
    for (const JointPlace& p : m_jointPlaces) n += p.nv;
    return n;
  }

  void readKeyframes(const XMLElement* e) {
    World probe(m_spec);  // the packing of q and v
    for (const XMLElement* c : children(e)) {
      if (std::string(c->Name()) != "key") {
        ignore(c, "<" + std::string(c->Name()) + "> in <keyframe> not imported");
        continue;
      }
      Elem x = elem(c, "", "key");
      KeyframeSpec k;
      k.name = x.get("name").value_or("key_" + std::to_string(m_spec.keyframes.size() + 1));
      std::replace(k.name.begin(), k.name.end(), '/', '_');
      k.time = number(x, "time").value_or(0.0);
      const std::vector<double> qpos = numbers(x, "qpos", 0, 1u << 30);
      const std::vector<double> qvel = numbers(x, "qvel", 0, 1u << 30);
      const std::vector<double> ctrl = numbers(x, "ctrl", 0, 1u << 30);
      done(x);
      const bool sizesDiffer = (!qpos.empty() && static_cast<int>(qpos.size()) != mjNq()) ||
                               (!qvel.empty() && static_cast<int>(qvel.size()) != mjNv());
      if (sizesDiffer && !m_skippedGenerators.empty()) {
        const SkippedGenerator& g = m_skippedGenerators.front();
        ignore(c, "key '" + k.name + "' not imported: its coordinates include those of the <" + g.tag + "> at line " +
                      std::to_string(g.line) + ", which is not imported");
        continue;
      }
      if (!qpos.empty() && static_cast<int>(qpos.size()) != mjNq()) {
        fail(c, "key '" + k.name + "': qpos has " + std::to_string(qpos.size()) + " numbers, the model has " +
                    std::to_string(mjNq()) + " position coordinates");
      }
      if (!qvel.empty() && static_cast<int>(qvel.size()) != mjNv()) {
        fail(c, "key '" + k.name + "': qvel has " + std::to_string(qvel.size()) + " numbers, the model has " +
                    std::to_string(mjNv()) + " velocity coordinates");
      }
      k.q = probe.getPositions();
      if (!qvel.empty()) k.v = VectorXd::Zero(probe.numDofs());
      // Both layouts list the joints in the file's order (ownerOrder keeps it).
      std::size_t iq = 0, iv = 0;
      Eigen::Index aq = 0, av = 0;
      for (const JointPlace& p : m_jointPlaces) {
        if (p.type == JointType::Free) {
          // Without qpos the pose is the initial one (q = [p, x y z w]).
          Eigen::Quaterniond quat(k.q[aq + 6], k.q[aq + 3], k.q[aq + 4], k.q[aq + 5]);
          if (!qpos.empty()) {
            k.q.segment<3>(aq) = Vector3d(qpos[iq], qpos[iq + 1], qpos[iq + 2]);
            quat = Eigen::Quaterniond(qpos[iq + 3], qpos[iq + 4], qpos[iq + 5], qpos[iq + 6]).normalized();
            k.q.segment<4>(aq + 3) << quat.x(), quat.y(), quat.z(), quat.w();
          }
          if (!qvel.empty()) {
            // MuJoCo: [linear velocity (world), angular velocity (body)]; ours [ω_B; v_B].
            const Vector3d vw(qvel[iv], qvel[iv + 1], qvel[iv + 2]);
            const Vector3d w(qvel[iv + 3], qvel[iv + 4], qvel[iv + 5]);
            k.v.segment<3>(av) = w;
            k.v.segment<3>(av + 3) = quat.normalized().toRotationMatrix().transpose() * vw;
          }
          iq += 7;
        } else if (p.type == JointType::Ball) {
          if (!qpos.empty()) {
            const Eigen::Quaterniond quat =
                Eigen::Quaterniond(qpos[iq], qpos[iq + 1], qpos[iq + 2], qpos[iq + 3]).normalized();
            k.q.segment<4>(aq) << quat.x(), quat.y(), quat.z(), quat.w();
          }
          if (!qvel.empty()) k.v.segment<3>(av) = Vector3d(qvel[iv], qvel[iv + 1], qvel[iv + 2]);
          iq += 4;
        } else {
          if (!qpos.empty()) k.q[aq] = qpos[iq];
          if (!qvel.empty()) k.v[av] = qvel[iv];
          iq += 1;
        }
        aq += p.nq;
        av += p.nv;
        iv += static_cast<std::size_t>(p.nv);
      }
      if (!ctrl.empty()) {
        if (ctrl.size() != m_actuatorOf.size()) {
          fail(c, "key '" + k.name + "': ctrl has " + std::to_string(ctrl.size()) + " numbers, the model has " +
                      std::to_string(m_actuatorOf.size()) + " actuators");
        }
        k.controls = VectorXd::Zero(static_cast<Eigen::Index>(m_spec.actuators.size()));
        for (std::size_t i = 0; i < ctrl.size(); ++i) {
          const int target = m_actuatorOf[i];
          if (target < 0) continue;
          // A servo's target is a joint coordinate (qpos): MuJoCo's control is gear times it.
          k.controls[target] = ctrl[i] / m_servoGear[static_cast<std::size_t>(target)];
        }
      }
      m_spec.keyframes.push_back(k);
    }
    // A key named "initial" (what Articula's MJCF export writes) is the
    // initial state too.
    const auto initial = std::find_if(m_spec.keyframes.begin(), m_spec.keyframes.end(),
                                      [](const KeyframeSpec& k) { return k.name == "initial"; });
    if (initial != m_spec.keyframes.end()) {
      const KeyframeSpec k = *initial;  // a copy: m_spec is replaced below
      World start(m_spec);
      start.setPositions(k.q);
      if (k.v.size() > 0) start.setVelocities(k.v);
      if (k.controls.size() > 0) start.setControls(k.controls);
      m_spec = start.getSpec();
    }
  }
};

}  // namespace

ImportReport importMjcfFromString(World& world, const std::string& text, const std::string& sourceName,
                                  const fs::path& baseDirectory, const ImportOptions& options) {
  return detail::guardedImport(world, sourceName, [&](World& target) {
    MjcfImporter importer(target, options, sourceName, baseDirectory);
    return importer.run(text);
  });
}

ImportReport importMjcf(World& world, const fs::path& file, const ImportOptions& options) {
  return importMjcfFromString(world, detail::readTextInput(file), file.string(), file.parent_path(), options);
}

}  // namespace articula::io

// SDF import through sdformat12.
//
// Each top-level SDF model becomes one Multibody named after the model.
// Nested models are flattened into it: their links and joints are named
// "inner::name" (the SDF scoped name relative to the top-level model).
// Objects that live in the World's namespace are prefixed with the model:
// loop closures and joint couplers "model::joint", shapes
// "model::link::shape". A Free (or Weld) root joint the file does not
// declare is named "link_free" ("link_weld"). A model whose links fall
// into several unconnected groups gets one Multibody per group; the extra
// ones are named "model::rootlink".
//
// Links of static models (and of static nested models) are fixed to the
// world: their shapes are attached to the world frame, and a joint between
// such a link and a moving one is treated like a joint to the world.
//
// Spanning tree, per model: sdf_graph.hpp. A tree without a joint to the
// world gets a Free joint (Weld for RootAttachment::Fixed). Gearbox joints,
// <mimic> and Drake's <drake:mimic> become JointCouplers.
//
// sdformat 12 reads SDF up to 1.9: what it drops of later versions
// (<inertial auto="true">, SDF 1.11) is read from the file's XML, and what it
// prints while parsing becomes report warnings.
//
// Link poses in the file are the poses at zero joint positions; a world's
// <state> may set joint angles, and the closures are then assembled.
//
// A tree joint may be traversed from its SDF child to its SDF parent. The
// engine joint then has the SDF child as its parent: the offsets follow the
// engine's parent and child, and the axes are negated (a universal joint
// also swaps its two axes and coordinates), so that its coordinates equal
// the SDF joint's.
#include "import_common.hpp"
#include "input_guard.hpp"
#include "sdf_graph.hpp"

#include <tinyxml2.h>
#include <sdf/Box.hh>
#include <sdf/Capsule.hh>
#include <sdf/Collision.hh>
#include <sdf/Console.hh>
#include <sdf/Cylinder.hh>
#include <sdf/Element.hh>
#include <sdf/Ellipsoid.hh>
#include <sdf/Error.hh>
#include <sdf/ForceTorque.hh>
#include <sdf/Geometry.hh>
#include <sdf/Imu.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Lidar.hh>
#include <sdf/Link.hh>
#include <sdf/Material.hh>
#include <sdf/Mesh.hh>
#include <sdf/Model.hh>
#include <sdf/Noise.hh>
#include <sdf/ParserConfig.hh>
#include <sdf/Physics.hh>
#include <sdf/Plane.hh>
#include <sdf/Root.hh>
#include <sdf/Sensor.hh>
#include <sdf/Sphere.hh>
#include <sdf/Visual.hh>
#include <sdf/World.hh>
#include <sdf/parser.hh>

#include <Eigen/Geometry>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace articula::io {

namespace {

using detail::CutJoint;
using detail::ResourceResolver;

/// What sdformat calls a document loaded from a string.
const std::string kSdfStringName = "<data-string>";
/// SDF's default joint limits (±1e16) mean "no limit".
constexpr double kNoLimit = 1e16;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

Vector3d toEigen(const ignition::math::Vector3d& v) {
  return {v.X(), v.Y(), v.Z()};
}

Isometry3d toEigen(const ignition::math::Pose3d& p) {
  const ignition::math::Quaterniond& q = p.Rot();
  Isometry3d X = Isometry3d::Identity();
  X.linear() = Eigen::Quaterniond(q.W(), q.X(), q.Y(), q.Z()).normalized().toRotationMatrix();
  X.translation() = toEigen(p.Pos());
  return X;
}

int lineOf(const sdf::ElementPtr& e) {
  return e && e->LineNumber() ? *e->LineNumber() : 0;
}

std::string inQuotes(const std::string& s) {
  return "'" + s + "'";
}

/// The text of a child element (also one sdformat does not know and copied
/// as is), or nothing when absent.
std::optional<std::string> childText(const sdf::ElementPtr& parent, const std::string& name) {
  if (!parent || !parent->HasElement(name)) return std::nullopt;
  const sdf::ParamPtr value = parent->GetElement(name)->GetValue();
  return value ? value->GetAsString() : std::string();
}

/// The child element, or null (never creates it).
sdf::ElementPtr childElement(const sdf::ElementPtr& parent, const std::string& name) {
  return parent && parent->HasElement(name) ? parent->GetElement(name) : nullptr;
}

std::string nameAttribute(const sdf::ElementPtr& e) {
  return e->HasAttribute("name") ? e->GetAttribute("name")->GetAsString() : std::string();
}

/// `must_be_loop_joint`, read where the SDF spec puts it
/// (<physics><simbody>) and where it is often written (<physics>).
bool mustBeLoopJoint(const sdf::ElementPtr& joint) {
  const sdf::ElementPtr physics = childElement(joint, "physics");
  for (const sdf::ElementPtr& holder : {childElement(physics, "simbody"), physics}) {
    const std::optional<std::string> text = childText(holder, "must_be_loop_joint");
    if (text && (*text == "true" || *text == "1")) return true;
  }
  return false;
}

/// The problem an ImportError describes, without its "file:line: " prefix.
std::string problemOf(const ImportError& e) {
  const std::string prefix = e.file() + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": ";
  const std::string what = e.what();
  return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
}

/// Elements that are reported as not imported wherever they appear.
const std::set<std::string>& unsupportedElements() {
  static const std::set<std::string> names{"actor", "audio_sink",       "audio_source", "battery",    "gripper",
                                           "light", "particle_emitter", "plugin",       "population", "projector",
                                           "road"};
  return names;
}

/// A number as the report prints it: six significant digits, round-off
/// (|x| < 1e-12) as 0.
std::string numberText(double x) {
  std::ostringstream out;
  out << std::setprecision(6) << (std::abs(x) < 1e-12 ? 0.0 : x);
  return out.str();
}

/// "x y z", as SDF writes a vector.
std::string xyzText(const Vector3d& v) {
  return numberText(v.x()) + " " + numberText(v.y()) + " " + numberText(v.z());
}

/// SDF's default density of a collision for <inertial auto="true"> (water).
constexpr double kDefaultDensity = 1000.0;

/// The mass properties of a solid of `density` (kg/m³) filling `geom`, in the
/// geometry's frame; nothing for geometry without a volume formula (meshes,
/// planes, heightmaps).
std::optional<Inertia> solidInertiaOf(const sdf::Geometry& geom, double density) {
  switch (geom.Type()) {
    case sdf::GeometryType::BOX:
      return solidInertia(Geometry::box(toEigen(geom.BoxShape()->Size())), density);
    case sdf::GeometryType::SPHERE:
      return solidInertia(Geometry::sphere(geom.SphereShape()->Radius()), density);
    case sdf::GeometryType::CYLINDER:
      return solidInertia(Geometry::cylinder(geom.CylinderShape()->Radius(), geom.CylinderShape()->Length()), density);
    case sdf::GeometryType::CAPSULE:
      return solidInertia(Geometry::capsule(geom.CapsuleShape()->Radius(), geom.CapsuleShape()->Length()), density);
    case sdf::GeometryType::ELLIPSOID:
      return solidInertia(Geometry::ellipsoid(toEigen(geom.EllipsoidShape()->Radii())), density);
    default:
      return std::nullopt;
  }
}

/// While alive, what sdformat prints (sdferr, sdfwarn: "Error [Converter.cc:156]
/// Unable to convert ...") goes to a buffer instead of stderr, for the report.
/// sdformat's console is one per process: the lock keeps two imports from
/// redirecting it at the same time.
class SdformatConsoleCapture {
 public:
  SdformatConsoleCapture() : m_lock(mutex()) {
    sdf::Console::ConsoleStream& stream = sdf::Console::Instance()->GetMsgStream();
    m_previous = stream.GetStream();
    stream.SetStream(&m_buffer);
  }
  ~SdformatConsoleCapture() { sdf::Console::Instance()->GetMsgStream().SetStream(m_previous); }
  SdformatConsoleCapture(const SdformatConsoleCapture&) = delete;
  SdformatConsoleCapture& operator=(const SdformatConsoleCapture&) = delete;

  std::string text() const { return m_buffer.str(); }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> m_lock;
  std::ostringstream m_buffer;
  std::ostream* m_previous = nullptr;
};

/// One message sdformat printed: its level ("Error", "Warning"), the SDF file
/// and line when the message names them (sdformat 12 writes
/// "[XML path:file:L12]: " before the words of some), and the words.
struct SdformatMessage {
  std::string level;
  std::string file;
  int line = 0;
  std::string text;
};

/// Splits what sdformat printed into messages. Each starts on a new line
/// with "Level [source.cc:N] "; later lines belong to the message before.
/// `isFile` tells the SDF files sdformat may name (the XML path before the
/// file may hold ':' itself, as in "drake:mimic").
template <class IsFile>
std::vector<SdformatMessage> parseSdformatOutput(const std::string& output, IsFile&& isFile) {
  std::vector<SdformatMessage> messages;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    // Colours are only written to a terminal; strip them anyway.
    for (std::size_t esc = line.find('\x1b'); esc != std::string::npos; esc = line.find('\x1b', esc)) {
      const std::size_t end = line.find('m', esc);
      line.erase(esc, end == std::string::npos ? std::string::npos : end - esc + 1);
    }
    bool started = false;
    const std::size_t close = line.find("] ");
    for (const char* level : {"Error", "Warning", "Msg", "Dbg"}) {
      if (line.rfind(std::string(level) + " [", 0) != 0 || close == std::string::npos) continue;
      messages.push_back(SdformatMessage{level, {}, 0, line.substr(close + 2)});
      started = true;
      break;
    }
    if (!started && !messages.empty() && !line.empty()) messages.back().text += " " + line;
  }
  for (SdformatMessage& m : messages) {
    // "[/sdf/model[@name=\"m\"]/link:FILE:L12]: words".
    std::string& t = m.text;
    if (t.rfind("[/", 0) != 0) continue;
    const std::size_t end = t.find("]: ");
    if (end == std::string::npos) continue;
    const std::string where = t.substr(1, end - 1);
    const std::size_t l = where.rfind(":L");
    if (l == std::string::npos) continue;
    const std::optional<double> number = detail::parseFiniteDouble(where.substr(l + 2));
    if (!number || *number < 1.0) continue;
    // The file starts after a ':' outside the path's [...] parts.
    int depth = 0;
    bool quoted = false;
    for (std::size_t i = 0; i < l; ++i) {
      const char ch = where[i];
      if (quoted) {
        quoted = ch != '"';
      } else if (ch == '"') {
        quoted = true;
      } else if (ch == '[') {
        ++depth;
      } else if (ch == ']') {
        --depth;
      } else if (ch == ':' && depth == 0 && isFile(where.substr(i + 1, l - i - 1))) {
        m.file = where.substr(i + 1, l - i - 1);
        m.line = static_cast<int>(*number);
        t = t.substr(end + 3);
        break;
      }
    }
  }
  return messages;
}

// ---- the model graph (sdf_graph.hpp) ----------------------------------------

using LinkNode = detail::SdfLinkNode;
using JointNode = detail::SdfJointNode;
using JointRole = detail::SdfJointRole;
using ModelGraph = detail::SdfModelGraph;
using Tree = detail::SdfTree;
using Forest = detail::SdfForest;
using detail::isGround;
using detail::linkName;

// ---- the importer ----------------------------------------------------------

class SdfImporter {
 public:
  SdfImporter(World& world, std::string source, fs::path baseDirectory, const ImportOptions& options)
      : m_world(world),
        m_source(std::move(source)),
        m_options(options),
        m_resolver(options, std::move(baseDirectory), true) {
    m_report.file = m_source;
    m_report.format = "sdf";
  }

  /// `file`: load through sdformat from the file (relative includes resolve
  /// against it); else from `text`.
  ImportReport run(const std::string& text, const fs::path* file) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
      throw ImportError(m_source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
    }
    const tinyxml2::XMLElement* top = doc.RootElement();
    if (top == nullptr || std::string(top->Name()) != "sdf") {
      throw ImportError(m_source, top ? top->GetLineNum() : 0, "expected the root element <sdf version=\"...\">");
    }
    m_sdfName = file ? file->string() : kSdfStringName;
    detail::checkSdfIncludes(m_source, m_resolver.baseDirectory(), text, m_options);
    // Joints written in the SDF 1.0–1.2 way are rewritten; sdformat then
    // reads the rewritten text (relative includes still resolve through
    // the package path and the file's folder).
    const std::optional<std::string> rewritten = rewriteLegacyJoints(doc);
    if (rewritten) {
      file = nullptr;
      m_sdfName = kSdfStringName;
    }

    m_readText = rewritten ? *rewritten : text;
    m_rootLine = top->GetLineNum();

    sdf::ParserConfig config;
    config.SetFindCallback([this](const std::string& uri) { return findModel(uri); });
    // Parse (includes expanded), accept what peers accept, then build the DOM.
    // What sdformat prints meanwhile becomes report warnings.
    sdf::Root root;
    std::string printed;
    {
      const SdformatConsoleCapture capture;
      sdf::SDFPtr parsed(new sdf::SDF());
      sdf::init(parsed);
      sdf::Errors errors;
      const bool read = file ? sdf::readFile(file->string(), config, parsed, errors)
                             : sdf::readString(m_readText, config, parsed, errors);
      if (!read && errors.empty()) errors.emplace_back(sdf::ErrorCode::FILE_READ, "the SDF parser could not read it");
      if (!errors.empty()) failWithErrors(root, errors, doc);
      acceptWhatPeersAccept(parsed->Root());
      errors = root.Load(parsed, config);
      if (!errors.empty()) failWithErrors(root, errors, doc);
      printed = capture.text();
    }
    reportSdformatOutput(printed);

    reportUnsupported(root.Element());
    for (const auto& [kind, seen] : m_foreignElements) {
      if (seen.second > 1) {
        m_report.ignored[seen.first].message +=
            "; " + std::to_string(seen.second) + " <" + kind + "> elements, the first one here";
      }
    }
    if (root.WorldCount() > 0) {
      for (uint64_t i = 1; i < root.WorldCount(); ++i) {
        ignore(root.WorldByIndex(i)->Element(),
               "world " + inQuotes(root.WorldByIndex(i)->Name()) + ": only the first world of a file is imported");
      }
      importWorld(*root.WorldByIndex(0));
    } else if (root.Model() != nullptr) {
      importModel(*root.Model());
    } else {
      throw ImportError(m_source, lineOf(root.Element()), "the file holds no <world> and no <model>");
    }
    detail::giveMassToMasslessSubtrees(m_world, m_source, m_report);
    detail::giveMassWhereMassMatrixIsSingular(m_world, m_source, m_report);
    detail::warnMasslessLinks(m_world, m_source, m_report);
    detail::startInsideLimits(m_world, m_source, m_report);
    detail::assembleClosures(m_world, m_options, m_source, m_report);
    if (m_options.addGroundPlane && !m_hasPlane) detail::addGround(m_world, m_options, uniqueShapeName("ground"));
    if (m_timeStep) m_world.setTimeStep(*m_timeStep);
    if (m_gravity) m_world.setGravity(*m_gravity);
    return std::move(m_report);
  }

 private:
  /// Models, then the joint angles of <state>; gravity and time step are
  /// applied once everything else has been imported.
  void importWorld(const sdf::World& w) {
    for (uint64_t i = 0; i < w.ModelCount(); ++i) importModel(*w.ModelByIndex(i));
    for (sdf::ElementPtr e = w.Element()->GetFirstElement(); e; e = e->GetNextElement()) {
      if (e->GetName() != "state") continue;
      for (sdf::ElementPtr m = e->GetFirstElement(); m; m = m->GetNextElement()) {
        if (m->GetName() == "model") {
          applyModelState(m, nameAttribute(m), "");
        } else if (m->GetExplicitlySetInFile() && m->LineNumber()) {
          ignore(m, "<state><" + m->GetName() + "> is not imported; only joint angles of models are");
        }
      }
    }
    m_gravity = toEigen(w.Gravity());
    if (const sdf::Physics* physics = w.PhysicsDefault()) {
      const double h = physics->MaxStepSize();
      if (!(h > 0.0) || !std::isfinite(h)) {
        fail(physics->Element(), "<max_step_size> must be a positive finite number of seconds");
      }
      m_timeStep = h;
    }
  }

  // ---- files and errors ----------------------------------------------------

  /// The file of `e` (elements sdformat copies without knowing them carry
  /// none: their parent's).
  std::string fileOf(sdf::ElementPtr e) const {
    while (e && e->FilePath().empty() && e->GetParent()) e = e->GetParent();
    if (!e || e->FilePath().empty() || e->FilePath() == kSdfStringName) return m_source;
    return e->FilePath();
  }

  /// The line of `e`: sdformat's, else, for an element it copied without
  /// knowing it (<drake:mimic>, <density> before SDF 1.11), the line of that
  /// element in the file's XML, else its parent's.
  int lineIn(const sdf::ElementPtr& e) const {
    if (!e || e->LineNumber()) return lineOf(e);
    if (const tinyxml2::XMLElement* x = xmlElementOf(e)) return x->GetLineNum();
    return lineIn(e->GetParent());
  }

  [[noreturn]] void fail(const sdf::ElementPtr& e, const std::string& problem) const {
    throw ImportError(fileOf(e), lineIn(e), problem);
  }

  void ignore(const sdf::ElementPtr& e, const std::string& message) {
    m_report.ignored.push_back(ReportEntry{fileOf(e), lineIn(e), message});
  }

  void warn(const sdf::ElementPtr& e, const std::string& message) {
    m_report.warnings.push_back(ReportEntry{fileOf(e), lineIn(e), message});
  }

  /// sdformat's find-file callback: `model://NAME` and relative include URIs
  /// through the package path. Returns the model folder (or file), or empty.
  std::string findModel(const std::string& uri) {
    for (const std::string& candidate : {uri, uri + "/model.config", uri + "/model.sdf"}) {
      if (const std::optional<fs::path> p = m_resolver.resolve(candidate)) {
        return (candidate == uri ? *p : p->parent_path()).string();
      }
    }
    std::string whyNot;
    m_resolver.resolve(uri + "/model.config", &whyNot);
    m_lookupFailures.push_back(uri + ": " + whyNot);
    return {};
  }

  /// Throws the errors sdformat reported as one ImportError. When the model
  /// loaded far enough, the importer's own checks name the element and line
  /// that sdformat does not.
  [[noreturn]] void failWithErrors(const sdf::Root& root, const sdf::Errors& errors, const tinyxml2::XMLDocument& doc) {
    // The first error is the deepest; "Error reading element" and "Unable
    // to read" follow from it.
    std::vector<const sdf::Error*> primary;
    for (const sdf::Error& e : errors) {
      const bool consequence = e.Code() == sdf::ErrorCode::STRING_READ || e.Code() == sdf::ErrorCode::FILE_READ ||
                               e.Message().rfind("Error reading element", 0) == 0;
      if (primary.empty() || !consequence) primary.push_back(&e);
    }
    auto fileOfError = [&](const sdf::Error& e) {
      return !e.FilePath() || *e.FilePath() == kSdfStringName || *e.FilePath() == m_sdfName ? m_source : *e.FilePath();
    };
    std::string file = m_source;
    int line = 0;
    for (const sdf::Error* e : primary) {
      if (e->LineNumber().value_or(0) > 0) {
        file = fileOfError(*e);
        line = *e->LineNumber();
        break;
      }
    }
    // sdformat's own words, kept short: the first few errors, each trimmed.
    constexpr std::size_t kShownErrors = 3;
    constexpr std::size_t kMessageChars = 240;
    std::string summary;
    for (std::size_t i = 0; i < primary.size() && i < kShownErrors; ++i) {
      const sdf::Error* e = primary[i];
      const std::string errorFile = fileOfError(*e);
      const int errorLine = e->LineNumber().value_or(0);
      const bool elsewhere = errorLine > 0 && (errorFile != file || errorLine != line);
      std::string message = e->Message();
      if (message.size() > kMessageChars) message = message.substr(0, kMessageChars) + "…";
      summary += (summary.empty() ? "" : "; ") +
                 (elsewhere ? errorFile + ":" + std::to_string(errorLine) + ": " : std::string()) + message +
                 valueProblem(*e, doc);
    }
    if (primary.size() > kShownErrors) {
      summary += "; and " + std::to_string(primary.size() - kShownErrors) + " more";
    }
    for (const std::string& lookup : m_lookupFailures) summary += "; " + lookup;
    try {
      if (root.Model() != nullptr) checkModel(*root.Model(), "");
      for (uint64_t w = 0; w < root.WorldCount(); ++w) {
        for (uint64_t i = 0; i < root.WorldByIndex(w)->ModelCount(); ++i) {
          checkModel(*root.WorldByIndex(w)->ModelByIndex(i), "");
        }
      }
    } catch (const ImportError& located) {
      throw ImportError(located.file(), located.line(), problemOf(located) + " (sdformat: " + summary + ")");
    }
    throw ImportError(file, line, summary);
  }

  /// For an element sdformat could not read: its text, when it holds a
  /// number that is malformed or not finite.
  std::string valueProblem(const sdf::Error& e, const tinyxml2::XMLDocument& doc) const {
    if (e.Code() != sdf::ErrorCode::ELEMENT_INVALID || !e.LineNumber() || !e.XmlPath() ||
        (e.FilePath() && *e.FilePath() != m_sdfName)) {
      return {};
    }
    const std::string path = *e.XmlPath();  // XmlPath() returns a temporary
    std::string leaf = path.substr(path.rfind('/') + 1);
    leaf = leaf.substr(0, leaf.find('['));
    const tinyxml2::XMLElement* found = nullptr;
    std::vector<const tinyxml2::XMLElement*> stack{doc.RootElement()};
    while (!stack.empty() && found == nullptr) {
      const tinyxml2::XMLElement* x = stack.back();
      stack.pop_back();
      if (x->GetLineNum() == *e.LineNumber() && leaf == x->Name() && x->FirstChildElement() == nullptr) found = x;
      for (const tinyxml2::XMLElement* c = x->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
        stack.push_back(c);
      }
    }
    if (found == nullptr || found->GetText() == nullptr) return {};
    std::istringstream words(found->GetText());
    std::string word;
    while (words >> word) {
      if (!detail::parseFiniteDouble(word)) {
        return ": <" + leaf + "> holds '" + std::string(found->GetText()) + "', and '" + word +
               "' is not a finite number";
      }
    }
    return {};
  }

  /// Checks sdformat leaves to the importer or reports without a line:
  /// duplicate names, joint types and endpoints, mass properties.
  void checkModel(const sdf::Model& model, const std::string& prefix) {
    std::map<std::string, sdf::ElementPtr> seen;
    for (sdf::ElementPtr e = model.Element()->GetFirstElement(); e; e = e->GetNextElement()) {
      const std::string kind = e->GetName();
      if (kind != "link" && kind != "joint" && kind != "frame" && kind != "model") continue;
      const std::string name = nameAttribute(e);
      const auto [it, inserted] = seen.emplace(name, e);
      if (!inserted && it->second->GetName() != kind && (kind == "joint" || it->second->GetName() == "joint")) {
        // A joint named like a link (common in SDF before 1.7, which did
        // not share one namespace): Gazebo loads it, and links and joints
        // are looked up apart here.
        if (m_warnedNames.insert(prefix + name).second) {
          warn(e, "model " + inQuotes(model.Name()) + ": the joint and the link named " + inQuotes(name) +
                      " share a name (SDF 1.7 and later require unique names); kept apart");
        }
        continue;
      }
      if (!inserted) {
        fail(e, "model " + inQuotes(model.Name()) + " has two elements named " + inQuotes(name) + ": a <" +
                    it->second->GetName() + "> (line " + std::to_string(lineOf(it->second)) + ") and this <" + kind +
                    ">");
      }
    }
    for (uint64_t i = 0; i < model.LinkCount(); ++i) inertiaOf(*model.LinkByIndex(i), prefix, false);
    for (uint64_t i = 0; i < model.JointCount(); ++i) {
      const sdf::Joint& joint = *model.JointByIndex(i);
      typeOf(joint);
      std::string link;
      if (!joint.ResolveParentLink(link).empty()) {
        fail(joint.Element(), "joint " + inQuotes(joint.Name()) + ": parent " + inQuotes(joint.ParentLinkName()) +
                                  " names no link or frame of model " + inQuotes(model.Name()));
      }
      if (!joint.ResolveChildLink(link).empty()) {
        fail(joint.Element(), "joint " + inQuotes(joint.Name()) + ": child " + inQuotes(joint.ChildLinkName()) +
                                  " names no link or frame of model " + inQuotes(model.Name()));
      }
    }
    for (uint64_t i = 0; i < model.ModelCount(); ++i) {
      checkModel(*model.ModelByIndex(i), prefix + model.ModelByIndex(i)->Name() + "::");
    }
  }

  /// Reports sensors, plugins, lights, actors and the like, and the
  /// elements of other namespaces ("drake:...", "gz:...") that are not
  /// imported, once per kind (the count is added after the walk).
  void reportUnsupported(const sdf::ElementPtr& e) {
    for (sdf::ElementPtr c = e->GetFirstElement(); c; c = c->GetNextElement()) {
      const std::string kind = c->GetName();
      if (unsupportedElements().count(kind) != 0) {
        if (c->GetExplicitlySetInFile() && c->LineNumber()) {
          const std::string name = nameAttribute(c);
          ignore(c, "<" + kind + (name.empty() ? "" : " name=" + inQuotes(name)) + "> is not imported (" + kind +
                        "s are not simulated)");
        }
        continue;
      }
      if (kind.find(':') != std::string::npos) {
        // An extension element: read as a whole or not at all.
        if (!(kind == "drake:mimic" && e->GetName() == "joint")) reportForeign(c);
        continue;
      }
      reportUnsupported(c);
    }
  }

  void reportForeign(const sdf::ElementPtr& c) {
    const std::string kind = c->GetName();
    const auto [it, first] = m_foreignElements.emplace(kind, std::pair<std::size_t, int>{m_report.ignored.size(), 0});
    ++it->second.second;
    if (!first) return;
    ignore(c, "<" + kind + "> is not imported (an extension element of the " +
                  inQuotes(kind.substr(0, kind.find(':'))) + " namespace)");
  }

  /// What sdformat printed while reading the file, as warnings: at the file
  /// and line it names, else at the <sdf> element of the imported file.
  /// Its complaint about <inertial auto> (SDF 1.11) is left out: the
  /// importer reads the attribute itself.
  void reportSdformatOutput(const std::string& printed) {
    auto isFile = [this](const std::string& f) {
      std::error_code ec;
      return f == m_sdfName || f == kSdfStringName || fs::is_regular_file(f, ec);
    };
    std::set<std::tuple<std::string, int, std::string>> seen;
    for (const SdformatMessage& m : parseSdformatOutput(printed, isFile)) {
      if (m.level == "Dbg" || m.text.find("XML Attribute[auto] in element[inertial]") != std::string::npos) continue;
      const std::string file = m.file.empty() || m.file == kSdfStringName || m.file == m_sdfName ? m_source : m.file;
      const int line = m.file.empty() ? m_rootLine : m.line;
      const std::string level = m.level == "Error" ? "error" : m.level == "Warning" ? "warning" : "message";
      const std::string message = "sdformat " + level + ": " + m.text;
      if (seen.emplace(file, line, message).second) m_report.warnings.push_back(ReportEntry{file, line, message});
    }
  }

  // ---- reading the model ---------------------------------------------------

  std::string typeOf(const sdf::Joint& joint) const {
    const std::string type = joint.Element()->GetAttribute("type")->GetAsString();
    if (joint.Type() == sdf::JointType::INVALID) {
      fail(joint.Element(), "joint " + inQuotes(joint.Name()) + " has unknown type " + inQuotes(type) +
                                " (expected revolute, continuous, prismatic, fixed, ball, universal, revolute2, "
                                "screw or gearbox)");
    }
    return type;
  }

  /// The link's mass properties as written in the file (sdformat keeps no
  /// values when they break its validity checks), repaired as URDF's are;
  /// `report`: a repair becomes a report warning.
  Inertia inertiaOf(const sdf::Link& link, const std::string& prefix, bool report = true) {
    const sdf::ElementPtr inertial = childElement(link.Element(), "inertial");
    if (autoInertial(link, inertial)) return autoInertia(link, inertial, prefix, report);
    const Isometry3d X_LI = toEigen(link.Inertial().Pose());
    // SDF's defaults: mass 1 kg, unit principal moments, no products.
    auto value = [](const sdf::ElementPtr& parent, const std::string& name, double fallback) {
      const std::optional<std::string> text = childText(parent, name);
      if (!text) return fallback;
      const std::optional<double> v = detail::parseFiniteDouble(*text);
      return v ? *v : std::numeric_limits<double>::quiet_NaN();
    };
    const sdf::ElementPtr moments = childElement(inertial, "inertia");
    Matrix3d I_I;
    const double ixy = value(moments, "ixy", 0.0), ixz = value(moments, "ixz", 0.0), iyz = value(moments, "iyz", 0.0);
    I_I << value(moments, "ixx", 1.0), ixy, ixz, ixy, value(moments, "iyy", 1.0), iyz, ixz, iyz,
        value(moments, "izz", 1.0);
    Inertia inertia;
    inertia.mass = value(inertial, "mass", 1.0);
    inertia.com = X_LI.translation();
    inertia.rotational = X_LI.linear() * I_I * X_LI.linear().transpose();
    const sdf::ElementPtr where = inertial && inertial->LineNumber() ? inertial : link.Element();
    const std::string what = "link " + inQuotes(prefix + link.Name());
    detail::checkInertia(inertia, what, fileOf(where), lineOf(where));
    if (std::string repaired = detail::repairInertia(inertia, what); report && !repaired.empty()) {
      m_report.warnings.push_back(ReportEntry{fileOf(where), lineOf(where), repaired});
    }
    return inertia;
  }

  /// The parsed XML of the file `e` was read from, or null when it cannot be
  /// read again.
  const tinyxml2::XMLDocument* xmlOf(sdf::ElementPtr e) const {
    while (e && e->FilePath().empty() && e->GetParent()) e = e->GetParent();
    const std::string path = e ? e->FilePath() : std::string();
    const bool imported = path.empty() || path == kSdfStringName || path == m_sdfName;
    const std::string key = imported ? std::string() : path;
    auto it = m_xml.find(key);
    if (it == m_xml.end()) {
      auto doc = std::make_unique<tinyxml2::XMLDocument>();
      std::string text = m_readText;
      if (!imported) {
        std::ifstream in(path, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      if (text.empty() || doc->Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) doc.reset();
      it = m_xml.emplace(key, std::move(doc)).first;
    }
    return it->second.get();
  }

  /// The XML element `e` was read from, for what sdformat 12 does not keep
  /// (attributes it does not know, lines of elements it copies): the
  /// element of that name (and name attribute, and parent) on the line
  /// sdformat gives it, or, for one without a line, the same child of its
  /// parent's XML element. Null when not found.
  const tinyxml2::XMLElement* xmlElementOf(const sdf::ElementPtr& e) const {
    if (!e) return nullptr;
    const std::string name = e->GetName();
    const sdf::ElementPtr parent = e->GetParent();
    if (!e->LineNumber()) {
      const tinyxml2::XMLElement* p = xmlElementOf(parent);
      if (p == nullptr) return nullptr;
      int index = 0;
      for (sdf::ElementPtr c = parent->GetFirstElement(); c && c != e; c = c->GetNextElement()) {
        index += c->GetName() == name ? 1 : 0;
      }
      for (const tinyxml2::XMLElement* c = p->FirstChildElement(name.c_str()); c != nullptr;
           c = c->NextSiblingElement(name.c_str())) {
        if (index-- == 0) return c;
      }
      return nullptr;
    }
    const tinyxml2::XMLDocument* doc = xmlOf(e);
    if (doc == nullptr) return nullptr;
    const int line = *e->LineNumber();
    auto sameName = [](const tinyxml2::XMLElement* x, const sdf::ElementPtr& s) {
      if (!s->HasAttribute("name")) return true;
      const char* n = x->Attribute("name");
      return n != nullptr && s->GetAttribute("name")->GetAsString() == n;
    };
    std::vector<const tinyxml2::XMLElement*> stack{doc->RootElement()};
    while (!stack.empty()) {
      const tinyxml2::XMLElement* x = stack.back();
      stack.pop_back();
      if (x->GetLineNum() > line) continue;  // neither it nor its children are on that line
      for (const tinyxml2::XMLElement* c = x->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
        stack.push_back(c);
      }
      if (x->GetLineNum() != line || name != x->Name() || !sameName(x, e)) continue;
      const tinyxml2::XMLElement* xp = x->Parent() ? x->Parent()->ToElement() : nullptr;
      if (parent && xp != nullptr && (parent->GetName() != xp->Name() || !sameName(xp, parent))) continue;
      return x;
    }
    return nullptr;
  }

  /// `<inertial auto="true">` (SDF 1.11). sdformat 12 drops the attribute
  /// ("XML Attribute[auto] in element[inertial] not defined"), so it is read
  /// from the file's XML.
  bool autoInertial(const sdf::Link& link, const sdf::ElementPtr& inertial) const {
    if (!inertial) return false;
    std::string value;
    if (inertial->HasAttribute("auto")) {  // a later sdformat keeps it
      value = inertial->GetAttribute("auto")->GetAsString();
    } else if (const tinyxml2::XMLElement* x = xmlElementOf(inertial); x != nullptr && x->Attribute("auto")) {
      value = x->Attribute("auto");
    }
    if (value.empty() || value == "false" || value == "0") return false;
    if (value == "true" || value == "1") return true;
    fail(inertial, "link " + inQuotes(link.Name()) + ": <inertial auto=\"" + value + "\"> must be true or false");
  }

  /// `<inertial auto="true">` (SDF 1.11): the link's mass, centre of mass and
  /// inertia are those of its collision geometries as solids of their
  /// `<density>` (else the inertial's `<density>`, else water's 1000 kg/m³),
  /// combined by the parallel-axis theorem; values written in the inertial
  /// are replaced, except a `<mass>`, to which the result is scaled
  /// (sdformat 15.2 and later). Meshes have no volume formula here: they add
  /// no mass (a warning).
  Inertia autoInertia(const sdf::Link& link, const sdf::ElementPtr& inertial, const std::string& prefix, bool report) {
    const std::string what = "link " + inQuotes(prefix + link.Name());
    auto density = [&](const sdf::ElementPtr& holder, double fallback) {
      const std::optional<std::string> text = childText(holder, "density");
      if (!text) return fallback;
      const std::optional<double> v = detail::parseFiniteDouble(*text);
      if (!v || *v < 0.0) {
        fail(childElement(holder, "density"),
             what + ": <density> '" + *text + "' is not a density (kg/m³, a finite number of at least 0)");
      }
      return *v;
    };
    if (link.CollisionCount() == 0) {
      fail(inertial, what +
                         ": <inertial auto=\"true\"> computes the mass from the link's <collision> elements, "
                         "and it has none; add a <collision> or write <mass> and <inertia>");
    }
    const double linkDensity = density(inertial, kDefaultDensity);
    Inertia total = Inertia::zero();
    int parts = 0;
    for (uint64_t i = 0; i < link.CollisionCount(); ++i) {
      const sdf::Collision& c = *link.CollisionByIndex(i);
      const std::string collision = "collision " + inQuotes(prefix + link.Name() + "::" + c.Name());
      std::optional<Inertia> solid;
      try {
        solid = solidInertiaOf(*c.Geom(), density(c.Element(), linkDensity));
      } catch (const InvalidArgument& e) {
        fail(c.Element(), what + ": <inertial auto=\"true\">: " + collision + ": " + e.what());
      }
      if (!solid) {
        if (report && c.Geom()->Type() != sdf::GeometryType::EMPTY) {
          warn(c.Element(), what + ": <inertial auto=\"true\">: " + collision +
                                " adds no mass (the inertia of meshes, planes and heightmaps is not computed)");
        }
        continue;
      }
      total.add(*solid, resolvePose(c.SemanticPose(), "", c.Element(), collision));
      ++parts;
    }
    std::string note;
    if (const std::optional<std::string> mass = childText(inertial, "mass")) {
      const std::optional<double> m = detail::parseFiniteDouble(*mass);
      if (!m || *m < 0.0) fail(inertial, what + ": <mass> '" + *mass + "' is not a mass (kg, at least 0)");
      if (total.mass > 0.0) {
        total.rotational *= *m / total.mass;
        total.mass = *m;
        note = ", scaled to its <mass>";
      }
    }
    const bool inertia = childElement(inertial, "inertia") != nullptr;
    const bool pose = childElement(inertial, "pose") != nullptr;
    if (inertia || pose) {
      note += std::string("; the <inertial>'s ") + (inertia ? "<inertia>" : "") + (inertia && pose ? " and " : "") +
              (pose ? "<pose>" : "") + " are replaced";
    }
    const sdf::ElementPtr& where = inertial;
    detail::checkInertia(total, what, fileOf(where), lineIn(where));
    if (report) {
      warn(where, what + ": <inertial auto=\"true\"> (SDF 1.11, which sdformat 12 does not compute): mass " +
                      numberText(total.mass) + " kg, centre of mass " + xyzText(total.com) +
                      " and inertia computed from " + std::to_string(parts) + " collision" + (parts == 1 ? "" : "s") +
                      " and their <density>" + note);
      if (std::string repaired = detail::repairInertia(total, what); !repaired.empty()) warn(where, repaired);
      if (childElement(inertial, "auto_inertia_params")) {
        ignore(childElement(inertial, "auto_inertia_params"),
               what + ": <auto_inertia_params> is not read (it tunes mesh inertia, which is not computed)");
      }
    } else {
      detail::repairInertia(total, what);
    }
    return total;
  }

  /// `<parent><link_name>L</link_name></parent>` (SDF 1.0–1.2, still found
  /// in files that claim a later version) becomes `<parent>L</parent>`, and
  /// likewise for `<child>`. Returns the rewritten text when anything changed.
  std::optional<std::string> rewriteLegacyJoints(tinyxml2::XMLDocument& doc) {
    bool changed = false;
    std::vector<tinyxml2::XMLElement*> stack{doc.RootElement()};
    while (!stack.empty()) {
      tinyxml2::XMLElement* e = stack.back();
      stack.pop_back();
      for (tinyxml2::XMLElement* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
        stack.push_back(c);
      }
      if (std::string(e->Name()) != "joint") continue;
      for (const char* end : {"parent", "child"}) {
        tinyxml2::XMLElement* x = e->FirstChildElement(end);
        tinyxml2::XMLElement* legacy = x != nullptr ? x->FirstChildElement("link_name") : nullptr;
        if (legacy == nullptr) continue;
        const std::string link = legacy->GetText() != nullptr ? legacy->GetText() : "";
        m_report.warnings.push_back(ReportEntry{m_source, x->GetLineNum(),
                                                "joint " + inQuotes(e->Attribute("name") ? e->Attribute("name") : "") +
                                                    ": <" + end + "><link_name> (SDF 1.0–1.2) read as <" + end + ">" +
                                                    link + "</" + end + ">"});
        x->DeleteChildren();
        x->SetText(link.c_str());
        changed = true;
      }
    }
    if (!changed) return std::nullopt;
    tinyxml2::XMLPrinter printer;
    doc.Print(&printer);
    return std::string(printer.CStr());
  }

  /// Rewrites, in the parsed elements and before sdformat validates them,
  /// what sdformat refuses but peers load, each with a report entry: link
  /// inertias that are not a mass distribution (repaired as for URDF),
  /// material scripts without a name or URI (Gazebo's pre-1.5 text form; a
  /// world with one would be dropped whole), and model frames attached to
  /// "world".
  void acceptWhatPeersAccept(const sdf::ElementPtr& e) {
    for (sdf::ElementPtr c = e->GetFirstElement(); c; c = c->GetNextElement()) {
      const std::string name = c->GetName();
      if (name == "model") fixWorldFramesOfModel(c, worldPoseOfModel(c));
      if (name == "inertial") repairInertiaElement(c, e);
      if (name == "material") dropIncompleteScript(c);
      acceptWhatPeersAccept(c);
    }
  }

  /// sdformat drops a link (and the world holding it) whose moments break
  /// the triangle inequality or are negative; the nearest valid moments are
  /// written back instead (slightly inside the valid set, so that sdformat's
  /// own round-off accepts them).
  void repairInertiaElement(const sdf::ElementPtr& inertial, const sdf::ElementPtr& link) {
    const sdf::ElementPtr moments = childElement(inertial, "inertia");
    if (!moments) return;
    auto value = [&](const char* name, double fallback) {
      const std::optional<std::string> text = childText(moments, name);
      const std::optional<double> v = text ? detail::parseFiniteDouble(*text) : std::optional<double>(fallback);
      return v ? *v : std::numeric_limits<double>::quiet_NaN();
    };
    Inertia inertia;
    const double ixy = value("ixy", 0.0), ixz = value("ixz", 0.0), iyz = value("iyz", 0.0);
    inertia.rotational << value("ixx", 1.0), ixy, ixz, ixy, value("iyy", 1.0), iyz, ixz, iyz, value("izz", 1.0);
    if (!inertia.rotational.allFinite()) return;  // reported by inertiaOf
    const std::string what = "link " + inQuotes(nameAttribute(link));
    const std::string repaired = detail::repairInertia(inertia, what);
    if (repaired.empty()) return;
    m_report.warnings.push_back(ReportEntry{fileOf(inertial), lineOf(inertial), repaired});
    const Matrix3d& I = inertia.rotational;
    const char* names[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
    const double values[6] = {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
    for (int k = 0; k < 6; ++k) moments->GetElement(names[k])->Set<double>(values[k]);
  }

  void dropIncompleteScript(const sdf::ElementPtr& material) {
    const sdf::ElementPtr script = childElement(material, "script");
    if (!script) return;
    const std::optional<std::string> uri = childText(script, "uri");
    const std::optional<std::string> name = childText(script, "name");
    const bool incomplete = !uri || uri->empty() || uri->rfind("__default__", 0) == 0 || !name || name->empty() ||
                            name->rfind("__default__", 0) == 0;
    if (!incomplete) return;
    ignore(script, "material <script> without a <uri> and a <name> (a pre-1.5 Gazebo material name) not imported");
    material->RemoveChild(script);
  }

  /// The model's pose in the world when it is given relative to the world
  /// (the common case), else nothing.
  static std::optional<ignition::math::Pose3d> worldPoseOfModel(const sdf::ElementPtr& model) {
    const sdf::ElementPtr pose = childElement(model, "pose");
    if (!pose) return ignition::math::Pose3d::Zero;
    if (pose->HasAttribute("relative_to") && !pose->GetAttribute("relative_to")->GetAsString().empty() &&
        pose->GetAttribute("relative_to")->GetAsString() != "world") {
      return std::nullopt;
    }
    return pose->Get<ignition::math::Pose3d>();
  }

  void fixWorldFramesOfModel(const sdf::ElementPtr& model, const std::optional<ignition::math::Pose3d>& X_WM) {
    std::set<std::string> worldFrames;
    for (sdf::ElementPtr c = model->GetFirstElement(); c; c = c->GetNextElement()) {
      if (c->GetName() == "model") {
        fixWorldFramesOfModel(c, std::nullopt);
        continue;
      }
      if (c->GetName() != "frame" || !c->HasAttribute("attached_to")) continue;
      if (c->GetAttribute("attached_to")->GetAsString() != "world") continue;
      const std::string name = nameAttribute(c);
      const sdf::ElementPtr pose = c->GetElement("pose");
      const std::string relativeTo =
          pose->HasAttribute("relative_to") ? pose->GetAttribute("relative_to")->GetAsString() : std::string();
      if (!X_WM || !(relativeTo.empty() || relativeTo == "world")) {
        fail(c, "frame " + inQuotes(name) +
                    " is attached to 'world' inside a model whose pose is not given relative to the world; "
                    "attach it to a frame of the model");
      }
      // Same pose, now relative to the model frame: X_MF = X_WM⁻¹ X_WF.
      const Isometry3d X_MF = toEigen(*X_WM).inverse() * toEigen(pose->Get<ignition::math::Pose3d>());
      const Eigen::Quaterniond r(X_MF.linear());
      c->GetAttribute("attached_to")->SetFromString("");
      pose->Set(ignition::math::Pose3d(X_MF.translation().x(), X_MF.translation().y(), X_MF.translation().z(), r.w(),
                                       r.x(), r.y(), r.z()));
      if (pose->HasAttribute("relative_to")) pose->GetAttribute("relative_to")->SetFromString("__model__");
      worldFrames.insert(name);
      m_report.warnings.push_back(ReportEntry{
          fileOf(c), lineOf(c),
          "frame " + inQuotes(name) + " of model " + inQuotes(nameAttribute(model)) +
              " is attached to 'world', which sdformat does not allow inside a model: treated as fixed in the "
              "world"});
    }
    if (worldFrames.empty()) return;
    for (sdf::ElementPtr j = model->GetFirstElement(); j; j = j->GetNextElement()) {
      if (j->GetName() != "joint") continue;
      const sdf::ElementPtr parent = childElement(j, "parent");
      if (parent && worldFrames.count(parent->Get<std::string>()) != 0) parent->Set<std::string>("world");
    }
  }

  Isometry3d resolvePose(const sdf::SemanticPose& pose, const std::string& to, const sdf::ElementPtr& e,
                         const std::string& what) const {
    ignition::math::Pose3d p;
    const sdf::Errors errors = pose.Resolve(p, to);
    if (!errors.empty()) fail(e, "cannot resolve the pose of " + what + ": " + errors.front().Message());
    return toEigen(p);
  }

  struct PendingJoint {
    const sdf::Joint* joint;
    std::string prefix;
    Isometry3d X_WS;  ///< pose of the joint's model scope
  };

  void collectLinks(ModelGraph& g, const sdf::Model& model, const std::string& prefix, const Isometry3d& X_WS,
                    bool anchored, std::vector<PendingJoint>& joints) {
    for (uint64_t i = 0; i < model.LinkCount(); ++i) {
      const sdf::Link& link = *model.LinkByIndex(i);
      LinkNode node;
      node.link = &link;
      node.name = prefix + link.Name();
      node.X_WL = X_WS * resolvePose(link.SemanticPose(), "__model__", link.Element(), "link " + inQuotes(node.name));
      node.anchored = anchored;
      g.linkIndex[node.name] = static_cast<int>(g.links.size());
      g.links.push_back(node);
    }
    for (uint64_t i = 0; i < model.JointCount(); ++i) joints.push_back({model.JointByIndex(i), prefix, X_WS});
    for (uint64_t i = 0; i < model.ModelCount(); ++i) {
      const sdf::Model& nested = *model.ModelByIndex(i);
      const std::string scope = prefix + nested.Name() + "::";
      const Isometry3d X_WN =
          X_WS * resolvePose(nested.SemanticPose(), "", nested.Element(), "model " + inQuotes(prefix + nested.Name()));
      collectLinks(g, nested, scope, X_WN, anchored || nested.Static(), joints);
    }
  }

  int linkOf(const ModelGraph& g, const std::string& scopedName) const {
    if (scopedName == "world") return -1;
    return g.linkIndex.at(scopedName);
  }

  JointNode readJoint(const ModelGraph& g, const PendingJoint& pending) const {
    const sdf::Joint& joint = *pending.joint;
    JointNode node;
    node.joint = &joint;
    node.name = pending.prefix + joint.Name();
    node.prefix = pending.prefix;
    node.type = typeOf(joint);
    std::string parent;
    std::string child;
    if (!joint.ResolveParentLink(parent).empty() || !joint.ResolveChildLink(child).empty()) {
      fail(joint.Element(), "joint " + inQuotes(node.name) + ": cannot resolve its parent " +
                                inQuotes(joint.ParentLinkName()) + " and child " + inQuotes(joint.ChildLinkName()) +
                                " to links");
    }
    node.parent = parent == "world" ? -1 : linkOf(g, pending.prefix + parent);
    node.child = linkOf(g, pending.prefix + child);
    node.X_WJ =
        pending.X_WS * resolvePose(joint.SemanticPose(), "__model__", joint.Element(), "joint " + inQuotes(node.name));
    const Matrix3d R_WS = pending.X_WS.linear();
    const Matrix3d R_WJ = node.X_WJ.linear();
    for (unsigned k = 0; k < 2; ++k) {
      Vector3d a_J = Vector3d::UnitZ();
      if (const sdf::JointAxis* axis = joint.Axis(k)) {
        ignition::math::Vector3d xyz;
        const sdf::Errors errors = axis->ResolveXyz(xyz, "__model__");
        if (!errors.empty()) {
          fail(axis->Element(),
               "joint " + inQuotes(node.name) + ": cannot resolve its axis: " + errors.front().Message());
        }
        a_J = R_WJ.transpose() * (R_WS * toEigen(xyz));
      }
      (k == 0 ? node.axis : node.axis2) = a_J;
      (k == 0 ? node.axisW : node.axis2W) = R_WJ * a_J;
    }
    node.mustBeLoop = mustBeLoopJoint(joint.Element());
    return node;
  }

  ModelGraph readModel(const sdf::Model& model) {
    checkModel(model, "");
    ModelGraph g;
    g.name = model.Name();
    const Isometry3d X_WM = resolvePose(model.SemanticPose(), "", model.Element(), "model " + inQuotes(g.name));
    std::vector<PendingJoint> pending;
    collectLinks(g, model, "", X_WM, model.Static(), pending);
    for (const PendingJoint& p : pending) {
      JointNode node = readJoint(g, p);
      g.jointIndex[node.name] = static_cast<int>(g.joints.size());
      g.joints.push_back(std::move(node));
    }
    const auto canonical = g.linkIndex.find(model.CanonicalLinkAndRelativeName().second);
    if (canonical != g.linkIndex.end()) g.canonical = canonical->second;
    return g;
  }

  // ---- building --------------------------------------------------------------

  /// Pose of the engine frame a graph endpoint maps to: the world frame for
  /// the world and static links, else the link.
  static Isometry3d framePose(const ModelGraph& g, int link) {
    return isGround(g, link) ? Isometry3d::Identity() : g.links[static_cast<std::size_t>(link)].X_WL;
  }

  Frame engineFrame(const ModelGraph& g, int link) const {
    return isGround(g, link) ? Frame::World() : Frame(m_links[static_cast<std::size_t>(link)]);
  }

  /// Limits and dynamics of SDF axis `k` (<axis>, <axis2>) of joint `j`
  /// into DoF `dof` of `spec`.
  void applyAxis(JointSpec& spec, int dof, const JointNode& j, unsigned k, const sdf::JointAxis& axis, bool limited) {
    const double lower = axis.Lower();
    const double upper = axis.Upper();
    if (limited && lower > upper) {
      // Gazebo hands the stops to ODE, where a low stop above the high stop
      // makes both ineffective (dParamLoStop/dParamHiStop); sdformat
      // accepts the file.
      const sdf::ElementPtr limit = childElement(axis.Element(), "limit");
      warn(limit ? limit : j.joint->Element(),
           "joint " + inQuotes(j.name) + ": <" + (k == 0 ? "axis" : "axis2") + "><limit> has <lower>" +
               numberText(lower) + "</lower> above <upper>" + numberText(upper) +
               "</upper>; as in Gazebo (ODE ignores such stops) the joint is imported without position limits");
      limited = false;
    }
    spec.positionLowerLimits[dof] = limited && lower > -kNoLimit ? lower : -kInfinity;
    spec.positionUpperLimits[dof] = limited && upper < kNoLimit ? upper : kInfinity;
    spec.effortLimits[dof] = axis.Effort() >= 0.0 ? axis.Effort() : kInfinity;
    spec.velocityLimits[dof] = axis.MaxVelocity() >= 0.0 ? axis.MaxVelocity() : kInfinity;
    spec.damping[dof] = axis.Damping();
    spec.coulombFriction[dof] = axis.Friction();
    spec.springStiffness[dof] = axis.SpringStiffness();
    spec.restPositions[dof] = axis.SpringReference();
  }

  /// Translation per radian of a screw joint.
  double screwPitch(const JointNode& j) const {
    const sdf::ElementPtr e = j.joint->Element();
    if (const std::optional<std::string> text = childText(e, "screw_thread_pitch")) {
      // SDF 1.10: metres per revolution, positive for a right-handed thread.
      const std::optional<double> v = detail::parseFiniteDouble(*text);
      if (!v) fail(e, "joint " + inQuotes(j.name) + ": <screw_thread_pitch> '" + *text + "' is not a finite number");
      return *v / (2.0 * std::numbers::pi);
    }
    // <thread_pitch> as Gazebo reads it: radians per metre, positive for a
    // left-handed thread.
    const double threadPitch = j.joint->ThreadPitch();
    if (!(std::abs(threadPitch) > 0.0) || !std::isfinite(threadPitch)) {
      fail(e, "joint " + inQuotes(j.name) + ": <thread_pitch> must be a non-zero finite number");
    }
    return -1.0 / threadPitch;
  }

  /// The engine joint for tree joint `j`, whose engine child is `child`.
  JointSpec treeJointSpec(const ModelGraph& g, const JointNode& j, int child) {
    const bool flipped = j.child != child;
    const int parent = flipped ? j.child : j.parent;
    JointSpec spec;
    spec.name = j.name;
    std::size_t axes = 1;
    if (j.type == "fixed") {
      spec.type = JointType::Weld;
      axes = 0;
    } else if (j.type == "revolute" || j.type == "continuous") {
      spec.type = JointType::Revolute;
    } else if (j.type == "prismatic") {
      spec.type = JointType::Prismatic;
    } else if (j.type == "screw") {
      spec.type = JointType::Screw;
      spec.pitch = screwPitch(j);
    } else if (j.type == "universal" || j.type == "revolute2") {
      spec.type = JointType::Universal;
      axes = 2;
    } else if (j.type == "ball") {
      spec.type = JointType::Ball;
      axes = 0;
    } else {
      fail(j.joint->Element(), "joint " + inQuotes(j.name) + " of type " + inQuotes(j.type) + " cannot be imported");
    }
    spec.parentOffset = framePose(g, parent).inverse() * j.X_WJ;
    spec.childOffset = framePose(g, child).inverse() * j.X_WJ;
    const int n = numDofs(spec.type);
    // Per-DoF values come from the joint's axes; a joint without axes (a
    // ball) keeps them empty: no limits, no damping.
    if (axes > 0) {
      for (VectorXd* v :
           {&spec.positionLowerLimits, &spec.positionUpperLimits, &spec.effortLimits, &spec.velocityLimits,
            &spec.damping, &spec.coulombFriction, &spec.springStiffness, &spec.restPositions}) {
        v->setZero(n);
      }
    }
    // Universal joints traversed backwards turn Rot(a1, q1)·Rot(a2, q2) into
    // Rot(-a2, q2)·Rot(-a1, q1): the engine's first DoF is the SDF's second.
    const bool swap = flipped && axes == 2;
    for (unsigned k = 0; k < axes; ++k) {
      const sdf::JointAxis* axis = j.joint->Axis(k);
      const int dof = swap ? 1 - static_cast<int>(k) : static_cast<int>(k);
      applyAxis(spec, dof, j, k, axis ? *axis : sdf::JointAxis(), j.type != "continuous");
      const Vector3d a = (k == 0 ? j.axis : j.axis2) * (flipped ? -1.0 : 1.0);
      (dof == 0 ? spec.axis : spec.axis2) = a;
    }
    return spec;
  }

  Link addTreeLink(Multibody& mb, const ModelGraph& g, const Forest& f, int link) {
    const LinkNode& node = g.links[static_cast<std::size_t>(link)];
    const LinkOptions opts{node.name, inertiaOf(*node.link, "")};
    const int ji = f.treeJoint[static_cast<std::size_t>(link)];
    const Tree& tree = f.trees[static_cast<std::size_t>(f.treeOf[static_cast<std::size_t>(link)])];
    const sdf::ElementPtr where =
        ji >= 0 ? g.joints[static_cast<std::size_t>(ji)].joint->Element() : node.link->Element();
    try {
      if (link == tree.root) {
        if (ji >= 0) return mb.addLink(opts, treeJointSpec(g, g.joints[static_cast<std::size_t>(ji)], link));
        if (m_options.root == RootAttachment::Fixed) {
          return mb.addLink(opts, JointSpec::weld(node.X_WL).named(uniqueJointName(g, node.name + "_weld")));
        }
        Link root = mb.addLink(opts, JointSpec::free().named(uniqueJointName(g, node.name + "_free")));
        const Eigen::Quaterniond q(node.X_WL.linear());
        VectorXd pose(7);
        pose << node.X_WL.translation(), q.x(), q.y(), q.z(), q.w();
        root.getParentJoint().setPositions(pose);
        return root;
      }
      const JointNode& j = g.joints[static_cast<std::size_t>(ji)];
      const int parent = j.child == link ? j.parent : j.child;
      return mb.addLink(opts, m_links[static_cast<std::size_t>(parent)], treeJointSpec(g, j, link));
    } catch (const ImportError&) {
      throw;
    } catch (const Error& e) {
      fail(where, "link " + inQuotes(node.name) + ": " + e.what());
    }
  }

  /// A joint name not used by the model.
  static std::string uniqueJointName(const ModelGraph& g, const std::string& base) {
    std::string name = base;
    for (int i = 2; g.jointIndex.count(name) != 0; ++i) name = base + "_" + std::to_string(i);
    return name;
  }

  std::string uniqueShapeName(const std::string& base) const {
    std::string name = base;
    for (int i = 2; m_world.getShape(name).has_value(); ++i) name = base + "_" + std::to_string(i);
    return name;
  }

  void importModel(const sdf::Model& model) {
    const ModelGraph g = readModel(model);
    const Forest f = detail::spanningForest(g, m_options.root == RootAttachment::Floating);
    for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
      if (f.role[ji] == JointRole::Ignored) ignore(g.joints[ji].joint->Element(), f.reason[ji]);
    }
    m_links.assign(g.links.size(), Link());
    m_joints.assign(g.joints.size(), std::nullopt);
    // The tree of the canonical link carries the model's name.
    const int named = g.canonical >= 0 && f.treeOf[static_cast<std::size_t>(g.canonical)] >= 0
                          ? f.treeOf[static_cast<std::size_t>(g.canonical)]
                          : 0;
    for (std::size_t t = 0; t < f.trees.size(); ++t) {
      const Tree& tree = f.trees[t];
      const std::string name = static_cast<int>(t) == named ? g.name : g.name + "::" + linkName(g, tree.root);
      Multibody mb;
      try {
        mb = m_world.addMultibody(name);
      } catch (const Error& e) {
        fail(model.Element(), "model " + inQuotes(g.name) + ": " + e.what());
      }
      mb.setSelfCollision(model.SelfCollide());
      for (const int link : tree.links) {
        const auto li = static_cast<std::size_t>(link);
        m_links[li] = addTreeLink(mb, g, f, link);
        const int ji = f.treeJoint[li];
        if (ji < 0) continue;
        const Joint joint = m_links[li].getParentJoint();
        m_joints[static_cast<std::size_t>(ji)] = joint;
        const bool flipped = g.joints[static_cast<std::size_t>(ji)].child != link;
        m_stateJoints[g.name][g.joints[static_cast<std::size_t>(ji)].name] =
            StateJoint{joint, flipped && joint.numDofs() == 2};
      }
    }
    for (std::size_t li = 0; li < g.links.size(); ++li) addShapes(g, static_cast<int>(li));
    for (std::size_t li = 0; li < g.links.size(); ++li) addLinkSensors(g, static_cast<int>(li));
    for (std::size_t ji = 0; ji < g.joints.size(); ++ji) addJointSensors(g, static_cast<int>(ji));
    for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
      if (f.role[ji] == JointRole::Cut) addClosure(g, g.joints[ji], f.reason[ji]);
    }
    for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
      const JointNode& j = g.joints[ji];
      if (j.type == "gearbox") addGearbox(g, j);
      addMimic(g, j);
      addDrakeMimic(g, f, ji);
    }
  }

  /// <state><model name="M"><joint name="J"><angle axis="i">: the initial
  /// position of a tree joint (nested models by their <model> elements).
  void applyModelState(const sdf::ElementPtr& state, const std::string& model, const std::string& prefix) {
    const auto joints = m_stateJoints.find(model);
    if (joints == m_stateJoints.end()) {
      ignore(state, "<state> of model " + inQuotes(model) + " is not imported: the model has no joint to set");
      return;
    }
    for (sdf::ElementPtr e = state->GetFirstElement(); e; e = e->GetNextElement()) {
      const std::string name = prefix + nameAttribute(e);
      if (e->GetName() == "model") {
        applyModelState(e, model, name + "::");
        continue;
      }
      if (e->GetName() != "joint") {
        if (e->GetExplicitlySetInFile() && e->LineNumber()) {
          ignore(e, "<state> of model " + inQuotes(model) + ": <" + e->GetName() +
                        "> is not imported; only joint angles are");
        }
        continue;
      }
      const auto it = joints->second.find(name);
      if (it == joints->second.end()) {
        ignore(e, "<state>: " + inQuotes(name) + " is not a joint of the tree of model " + inQuotes(model) +
                      " (a joint that closes a loop follows from the assembly); its angle is not imported");
        continue;
      }
      Joint joint = it->second.joint;
      if (joint.numDofs() != joint.numPositions()) {
        fail(e, "<state>: joint " + inQuotes(name) + " is a " + std::string(toString(joint.type())) +
                    " joint; angles are read for joints with one or two axes");
      }
      for (sdf::ElementPtr angle = e->GetFirstElement(); angle; angle = angle->GetNextElement()) {
        if (angle->GetName() != "angle") continue;
        unsigned int axis = 0;
        if (!angle->GetAttribute("axis")->Get<unsigned int>(axis) || axis >= static_cast<unsigned>(joint.numDofs())) {
          fail(angle,
               "<state>: joint " + inQuotes(name) + " has no axis " + angle->GetAttribute("axis")->GetAsString());
        }
        const double value = angle->Get<double>();
        if (!std::isfinite(value)) fail(angle, "<state>: the angle of joint " + inQuotes(name) + " is not finite");
        const int dof = static_cast<int>(axis);
        joint.setPosition(it->second.swapped ? 1 - dof : dof, value);
      }
    }
  }

  // ---- closures and couplers -----------------------------------------------

  void addClosure(const ModelGraph& g, const JointNode& j, const std::string& reason) {
    const std::string type = j.type == "revolute2" ? "universal" : j.type;
    const std::optional<LoopClosureFamily> family = detail::closureFamilyForJointType(type);
    if (!family) {
      fail(j.joint->Element(), "joint " + inQuotes(j.name) + " of type " + inQuotes(j.type) + " closes a loop, but a " +
                                   j.type +
                                   " joint has no loop-closure equivalent; mark another joint of the loop "
                                   "must_be_loop_joint");
    }
    CutJoint cut;
    cut.name = g.name + "::" + j.name;
    cut.line = lineOf(j.joint->Element());
    cut.parent = engineFrame(g, j.parent);
    cut.child = engineFrame(g, j.child);
    cut.jointInParent = framePose(g, j.parent).inverse() * j.X_WJ;
    cut.jointInChild = framePose(g, j.child).inverse() * j.X_WJ;
    cut.axis = j.axis;
    cut.axis2 = j.axis2;
    detail::addCutClosure(m_world, cut, *family, reason, fileOf(j.joint->Element()), m_report);
  }

  /// The engine joint of tree joint `name`, for a coupler.
  Joint coupledJoint(const ModelGraph& g, const JointNode& coupling, const std::string& name,
                     const std::string& role) const {
    const auto it = g.jointIndex.find(name);
    if (it == g.jointIndex.end()) {
      fail(coupling.joint->Element(),
           "joint " + inQuotes(coupling.name) + ": its " + role + " joint " + inQuotes(name) + " does not exist");
    }
    const std::optional<Joint>& joint = m_joints[static_cast<std::size_t>(it->second)];
    if (!joint) {
      fail(coupling.joint->Element(), "joint " + inQuotes(coupling.name) + ": its " + role + " joint " +
                                          inQuotes(name) +
                                          " is not a joint of the tree (it closes a loop or is "
                                          "ignored), so it has no coordinate to couple");
    }
    return *joint;
  }

  /// `where`: the element the report names (default: the joint).
  void addCoupler(const JointNode& at, const std::string& name, const Joint& leader, const Joint& follower,
                  const std::string& leaderName, const std::string& followerName, double ratio, double offset,
                  sdf::ElementPtr where = nullptr) {
    if (!where) where = at.joint->Element();
    try {
      m_world.addJointCoupler(name, JointCouplerSpec{leader, follower, ratio, offset});
    } catch (const Error& e) {
      fail(where, "joint " + inQuotes(at.name) + ": " + e.what());
    }
    m_report.couplers.push_back(
        CouplerMade{name, leaderName, followerName, ratio, offset, fileOf(where), lineIn(where)});
  }

  /// A gearbox joint couples the joint between its reference body and its
  /// parent link (θ1, about `axis`) with the joint between the reference
  /// body and its child link (θ2, about `axis2`): θ2 = -gearbox_ratio·θ1.
  void addGearbox(const ModelGraph& g, const JointNode& gearbox) {
    const sdf::ElementPtr e = gearbox.joint->Element();
    const std::string refName = e->Get<std::string>("gearbox_reference_body");
    const double gearRatio = e->Get<double>("gearbox_ratio");
    const std::string scopedRef = refName == "world" ? refName : gearbox.prefix + refName;
    if (refName == "__default__" || (scopedRef != "world" && g.linkIndex.count(scopedRef) == 0)) {
      fail(e, "gearbox joint " + inQuotes(gearbox.name) + ": <gearbox_reference_body> " + inQuotes(refName) +
                  " is not a link of the model");
    }
    if (!std::isfinite(gearRatio) || gearRatio == 0.0) {
      fail(e, "gearbox joint " + inQuotes(gearbox.name) + ": <gearbox_ratio> must be a non-zero finite number");
    }
    const int ref = linkOf(g, scopedRef);
    // The joint between the reference body and `link`, and the sign that
    // turns its coordinate into the angle from the reference body to `link`
    // about the gearbox axis `which`. An axis the file leaves out (sdformat
    // then reads 0 0 1) is the joint's own.
    auto side = [&](int link, const Vector3d& axisW, const char* which) -> std::pair<int, double> {
      const sdf::ElementPtr axis = childElement(e, which);
      const bool written = axis && axis->GetExplicitlySetInFile() && axis->LineNumber();
      for (std::size_t ji = 0; ji < g.joints.size(); ++ji) {
        const JointNode& j = g.joints[ji];
        if (j.type == "gearbox") continue;
        if (!((j.parent == ref && j.child == link) || (j.parent == link && j.child == ref))) continue;
        const Vector3d a = written ? axisW : j.axisW;
        if (!written) {
          warn(e, "gearbox joint " + inQuotes(gearbox.name) + " has no <" + which + ">: the axis of " +
                      inQuotes(j.name) + " (" + xyzText(j.axisW.normalized()) +
                      " in world coordinates), the joint it couples, is used");
        }
        const double alignment = j.axisW.normalized().dot(a.normalized());
        if (std::abs(alignment) < 1.0 - 1e-6) {
          fail(axis, "gearbox joint " + inQuotes(gearbox.name) + ": its <" + which + "> (" + xyzText(a.normalized()) +
                         " in world coordinates) is not parallel to the axis of " + inQuotes(j.name) + " (" +
                         xyzText(j.axisW.normalized()) + "), the joint it couples; write an <" + which +
                         "> parallel to it, or none");
        }
        return {static_cast<int>(ji), (alignment > 0.0 ? 1.0 : -1.0) * (j.parent == ref ? 1.0 : -1.0)};
      }
      fail(e, "gearbox joint " + inQuotes(gearbox.name) + ": no joint connects the reference body " +
                  inQuotes(scopedRef) + " with " + inQuotes(linkName(g, link)));
    };
    const auto [leaderJoint, leaderSign] = side(gearbox.parent, gearbox.axisW, "axis");
    const auto [followerJoint, followerSign] = side(gearbox.child, gearbox.axis2W, "axis2");
    const std::string& leaderName = g.joints[static_cast<std::size_t>(leaderJoint)].name;
    const std::string& followerName = g.joints[static_cast<std::size_t>(followerJoint)].name;
    const Joint leader = coupledJoint(g, gearbox, leaderName, "leader");
    const Joint follower = coupledJoint(g, gearbox, followerName, "follower");
    addCoupler(gearbox, g.name + "::" + gearbox.name, leader, follower, leaderName, followerName,
               -gearRatio * leaderSign * followerSign, 0.0);
  }

  /// <axis><mimic joint="leader"><multiplier/><offset/><reference/></mimic>
  /// (SDF 1.11): q = multiplier·(q_leader − reference) + offset.
  void addMimic(const ModelGraph& g, const JointNode& j) {
    const sdf::JointAxis* axis = j.joint->Axis(0);
    const sdf::JointAxis* axis2 = j.joint->Axis(1);
    if (axis2 != nullptr && childElement(axis2->Element(), "mimic")) {
      fail(j.joint->Element(), "joint " + inQuotes(j.name) +
                                   ": <mimic> on <axis2> is not supported (couplers join "
                                   "one-degree-of-freedom joints)");
    }
    const sdf::ElementPtr mimic = axis ? childElement(axis->Element(), "mimic") : nullptr;
    if (!mimic) return;
    const sdf::ElementPtr e = j.joint->Element();
    auto number = [&](const char* name, double fallback) {
      const std::optional<std::string> text = childText(mimic, name);
      if (!text) return fallback;
      const std::optional<double> v = detail::parseFiniteDouble(*text);
      if (!v) fail(e, "joint " + inQuotes(j.name) + ": <mimic><" + name + "> '" + *text + "' is not a finite number");
      return *v;
    };
    if (!mimic->HasAttribute("joint")) fail(e, "joint " + inQuotes(j.name) + ": <mimic> needs the attribute 'joint'");
    if (mimic->HasAttribute("axis") && mimic->GetAttribute("axis")->GetAsString() != "axis") {
      fail(e, "joint " + inQuotes(j.name) + ": <mimic axis=\"" + mimic->GetAttribute("axis")->GetAsString() +
                  "\"> is not supported (couplers join one-degree-of-freedom joints)");
    }
    const std::string leaderName = j.prefix + mimic->GetAttribute("joint")->GetAsString();
    const double multiplier = number("multiplier", 1.0);
    const double offset = number("offset", 0.0);
    const double reference = number("reference", 0.0);
    const Joint leader = coupledJoint(g, j, leaderName, "leader");
    const Joint follower = coupledJoint(g, j, j.name, "follower");
    addCoupler(j, g.name + "::" + j.name, leader, follower, leaderName, j.name, multiplier,
               offset - multiplier * reference);
  }

  /// `<drake:mimic joint="L" multiplier="m" offset="c"/>` in a <joint>
  /// (Drake's extension, the semantics of URDF's <mimic>): q = m·q_L + c,
  /// L a joint of the same model. Checked as the URDF <mimic> is: a leader
  /// that is missing or closes a loop drops the coupling (warning), a joint
  /// of more than one DoF is not coupled (ignored); missing multiplier or
  /// offset, which Drake requires, read as URDF's defaults 1 and 0.
  void addDrakeMimic(const ModelGraph& g, const Forest& f, std::size_t ji) {
    const JointNode& j = g.joints[ji];
    const sdf::ElementPtr mimic = childElement(j.joint->Element(), "drake:mimic");
    if (!mimic) return;
    const std::string what = "<drake:mimic> of joint " + inQuotes(j.name);
    const sdf::ElementPtr& where = mimic;
    const sdf::JointAxis* axis = j.joint->Axis(0);
    if (axis != nullptr && childElement(axis->Element(), "mimic")) {
      ignore(where, what + " not imported: the joint's <axis><mimic> couples it");
      return;
    }
    auto attribute = [&](const char* name) -> std::optional<std::string> {
      if (!mimic->HasAttribute(name)) return std::nullopt;
      return mimic->GetAttribute(name)->GetAsString();
    };
    const std::optional<std::string> leaderAttribute = attribute("joint");
    if (!leaderAttribute || leaderAttribute->empty()) {
      warn(where, what + " names no joint (attribute 'joint'): dropped");
      return;
    }
    const std::string leaderName = j.prefix + *leaderAttribute;
    if (leaderName == j.name) fail(where, what + " names the joint itself; a joint cannot mimic itself");
    auto number = [&](const char* name, double fallback) {
      const std::optional<std::string> text = attribute(name);
      if (!text) {
        warn(where,
             what + " has no '" + name + "' (Drake requires it): " + numberText(fallback) + ", as for URDF's <mimic>");
        return fallback;
      }
      const std::optional<double> v = detail::parseFiniteDouble(*text);
      if (!v) fail(where, what + ": " + name + "=\"" + *text + "\" is not a finite number");
      return *v;
    };
    const double multiplier = number("multiplier", 1.0);
    const double offset = number("offset", 0.0);
    if (f.role[ji] != JointRole::Tree || !m_joints[ji]) {
      ignore(where, what +
                        " not imported: the joint is not a joint of the tree (it closes a loop, couples joints "
                        "or is dropped), so it has no coordinate to couple");
      return;
    }
    const auto leaderIt = g.jointIndex.find(leaderName);
    if (leaderIt == g.jointIndex.end() || !m_joints[static_cast<std::size_t>(leaderIt->second)]) {
      warn(where, what + " dropped: it names " + inQuotes(leaderName) + ", " +
                      (leaderIt == g.jointIndex.end() ? "which is not a joint of model " + inQuotes(g.name)
                                                      : std::string("a joint that is not a tree joint (it closes "
                                                                    "a loop, couples joints or is dropped)")) +
                      "; " + inQuotes(j.name) + " moves freely");
      return;
    }
    const Joint follower = *m_joints[ji];
    const Joint leader = *m_joints[static_cast<std::size_t>(leaderIt->second)];
    if (follower.numDofs() != 1 || leader.numDofs() != 1) {
      const Joint& multi = follower.numDofs() != 1 ? follower : leader;
      ignore(where, what + " (mimicking " + inQuotes(leaderName) +
                        ") not imported: " + inQuotes(follower.numDofs() != 1 ? j.name : leaderName) + " is a " +
                        std::string(toString(multi.type())) + " joint (couplers join one-degree-of-freedom joints)");
      return;
    }
    addCoupler(j, g.name + "::" + j.name, leader, follower, leaderName, j.name, multiplier, offset, where);
  }

  // ---- shapes ----------------------------------------------------------------

  const ResourceResolver& resolverFor(const std::string& sdfFile) {
    if (sdfFile.empty() || sdfFile == kSdfStringName || sdfFile == m_sdfName) return m_resolver;
    const fs::path dir = fs::path(sdfFile).parent_path();
    auto it = m_resolvers.find(dir.string());
    if (it == m_resolvers.end()) it = m_resolvers.emplace(dir.string(), ResourceResolver(m_options, dir, true)).first;
    return it->second;
  }

  /// Geometry of a collision or visual; nothing (reported) for geometry
  /// that is not imported.
  std::optional<Geometry> geometryOf(const sdf::Geometry& geom, const sdf::ElementPtr& owner, const std::string& what,
                                     bool collision, bool moving) {
    switch (geom.Type()) {
      case sdf::GeometryType::BOX:
        return Geometry::box(toEigen(geom.BoxShape()->Size()));
      case sdf::GeometryType::SPHERE:
        return Geometry::sphere(geom.SphereShape()->Radius());
      case sdf::GeometryType::CYLINDER:
        return Geometry::cylinder(geom.CylinderShape()->Radius(), geom.CylinderShape()->Length());
      case sdf::GeometryType::CAPSULE:
        return Geometry::capsule(geom.CapsuleShape()->Radius(), geom.CapsuleShape()->Length());
      case sdf::GeometryType::ELLIPSOID:
        return Geometry::ellipsoid(toEigen(geom.EllipsoidShape()->Radii()));
      case sdf::GeometryType::PLANE:
        if (!collision) {
          ignore(owner, what + ": a plane cannot be drawn; the visual is not imported");
        } else if (moving) {
          ignore(owner, what + ": a plane must be static, and this link moves; the collision is not imported");
        } else {
          return Geometry::plane();
        }
        return std::nullopt;
      case sdf::GeometryType::MESH:
        return meshOf(*geom.MeshShape(), owner, what, collision && moving);
      case sdf::GeometryType::EMPTY:
        return std::nullopt;
      default:
        ignore(owner, what + ": heightmaps are not supported; not imported");
        return std::nullopt;
    }
  }

  std::optional<Geometry> meshOf(const sdf::Mesh& mesh, const sdf::ElementPtr& owner, const std::string& what,
                                 bool convexHull) {
    if (!m_options.loadMeshes) {
      ignore(owner, what + ": mesh " + inQuotes(mesh.Uri()) + " not loaded (meshes are switched off)");
      return std::nullopt;
    }
    if (!mesh.Submesh().empty()) {
      ignore(owner, what + ": <submesh> " + inQuotes(mesh.Submesh()) + " is not supported; the whole mesh is used");
    }
    // A mesh that cannot be had leaves its shape out, with a warning: peers
    // load such models (a robot whose mesh package is not installed), and
    // the rest of the robot is still worth simulating.
    std::string whyNot;
    const std::optional<fs::path> file = resolverFor(mesh.FilePath()).resolve(mesh.Uri(), &whyNot);
    if (!file) {
      warn(owner, what + ": mesh " + inQuotes(mesh.Uri()) + " skipped: " + whyNot);
      return std::nullopt;
    }
    try {
      Geometry g = detail::meshGeometry(*file, toEigen(mesh.Scale()), convexHull);
      ++m_report.numMeshesLoaded;
      return g;
    } catch (const Error& e) {
      warn(owner, what + ": mesh " + inQuotes(mesh.Uri()) + " skipped: " + e.what());
      return std::nullopt;
    }
  }

  static Material materialOf(const sdf::Collision& collision) {
    Material m;
    const sdf::ElementPtr surface = childElement(collision.Element(), "surface");
    const sdf::ElementPtr ode = childElement(childElement(surface, "friction"), "ode");
    if (const std::optional<std::string> mu = childText(ode, "mu")) {
      if (const std::optional<double> v = detail::parseFiniteDouble(*mu)) m.friction = *v;
    }
    if (const std::optional<std::string> e = childText(childElement(surface, "bounce"), "restitution_coefficient")) {
      if (const std::optional<double> v = detail::parseFiniteDouble(*e)) m.restitution = *v;
    }
    return m;
  }

  // ---- sensors -------------------------------------------------------------

  /// A sensor name not yet taken: `base`, else base_2, base_3, ...
  std::string uniqueSensorName(const std::string& base) const {
    std::string name = base;
    for (int i = 2; m_world.getSensor(name).has_value(); ++i) name = base + "_" + std::to_string(i);
    return name;
  }

  /// One noise level for all of a sensor's values: SDF gives one per axis
  /// (and per quantity); the largest standard deviation is kept, with a
  /// warning when they differ.
  void applyNoise(SensorSpec& spec, const std::vector<const sdf::Noise*>& noises, const sdf::Sensor& sensor) {
    double stddev = 0.0;
    double bias = 0.0;
    bool differ = false;
    bool randomBias = false;
    for (std::size_t i = 0; i < noises.size(); ++i) {
      const sdf::Noise& n = *noises[i];
      if (n.Type() == sdf::NoiseType::NONE) continue;
      if (i > 0 &&
          (n.StdDev() != noises[0]->StdDev() || n.Mean() + n.BiasMean() != noises[0]->Mean() + noises[0]->BiasMean())) {
        differ = true;
      }
      stddev = std::max(stddev, n.StdDev());
      bias = n.Mean() + n.BiasMean();
      randomBias = randomBias || n.BiasStdDev() > 0.0;
    }
    spec.noiseStddev = stddev;
    spec.noiseBias = bias;
    spec.seed = std::hash<std::string>{}(spec.name) & 0xffffffffu;
    const std::string what = "sensor " + inQuotes(sensor.Name());
    if (differ) {
      std::ostringstream level;
      level << stddev;
      warn(sensor.Element(), what + ": its axes have different noise; one level (standard deviation " + level.str() +
                                 ") is applied to every value");
    }
    if (randomBias) warn(sensor.Element(), what + ": a random bias (bias_stddev) is not simulated");
  }

  void addLinkSensors(const ModelGraph& g, int link) {
    const LinkNode& node = g.links[static_cast<std::size_t>(link)];
    const sdf::Link& sdfLink = *node.link;
    const Frame owner = engineFrame(g, link);
    const Isometry3d X_OL = owner.isWorld() ? node.X_WL : Isometry3d::Identity();
    for (uint64_t i = 0; i < sdfLink.SensorCount(); ++i) {
      const sdf::Sensor& sensor = *sdfLink.SensorByIndex(i);
      const std::string what = "sensor " + inQuotes(node.name + "::" + sensor.Name());
      SensorSpec spec;
      spec.name = uniqueSensorName(g.name + "::" + node.name + "::" + sensor.Name());
      spec.frame = owner.name();
      spec.pose = X_OL * resolvePose(sensor.SemanticPose(), "", sensor.Element(), what);
      spec.rate = std::max(0.0, sensor.UpdateRate());
      switch (sensor.Type()) {
        case sdf::SensorType::IMU: {
          spec.type = SensorType::Imu;
          if (const sdf::Imu* imu = sensor.ImuSensor()) {
            applyNoise(
                spec,
                {&imu->LinearAccelerationXNoise(), &imu->LinearAccelerationYNoise(), &imu->LinearAccelerationZNoise(),
                 &imu->AngularVelocityXNoise(), &imu->AngularVelocityYNoise(), &imu->AngularVelocityZNoise()},
                sensor);
          }
          break;
        }
        case sdf::SensorType::CONTACT:
          spec.type = SensorType::Contact;
          if (owner.isWorld()) {
            ignore(sensor.Element(), what + " is on a static link: contact sensors need a moving body");
            continue;
          }
          break;
        case sdf::SensorType::LIDAR:
        case sdf::SensorType::GPU_LIDAR: {
          spec.type = SensorType::Rangefinder;
          if (const sdf::Lidar* lidar = sensor.LidarSensor()) {
            spec.minRange = std::max(0.0, lidar->RangeMin());
            spec.maxRange = lidar->RangeMax() > spec.minRange ? lidar->RangeMax() : spec.minRange + 1.0;
            applyNoise(spec, {&lidar->LidarNoise()}, sensor);
            if (lidar->HorizontalScanSamples() > 1 || lidar->VerticalScanSamples() > 1) {
              warn(sensor.Element(),
                   what + ": a scan of " +
                       std::to_string(lidar->HorizontalScanSamples() * std::max(1u, lidar->VerticalScanSamples())) +
                       " rays is imported as one rangefinder along the sensor's x axis");
            }
          }
          break;
        }
        default:
          ignore(sensor.Element(), "<sensor name=" + inQuotes(sensor.Name()) + "> of type " +
                                       inQuotes(sensor.TypeStr()) + " on link " + inQuotes(node.name) +
                                       " is not imported (Articula simulates imu, force_torque, contact and "
                                       "ray/lidar sensors)");
          continue;
      }
      try {
        m_world.addSensor(spec);
      } catch (const Error& e) {
        fail(sensor.Element(), what + ": " + e.what());
      }
      m_report.sensors.push_back(SensorMade{spec.name, std::string(toString(spec.type)), spec.frame,
                                            fileOf(sensor.Element()), lineOf(sensor.Element())});
    }
  }

  void addJointSensors(const ModelGraph& g, int ji) {
    const JointNode& j = g.joints[static_cast<std::size_t>(ji)];
    for (uint64_t i = 0; i < j.joint->SensorCount(); ++i) {
      const sdf::Sensor& sensor = *j.joint->SensorByIndex(i);
      const std::string what = "sensor " + inQuotes(j.name + "::" + sensor.Name());
      if (sensor.Type() != sdf::SensorType::FORCE_TORQUE) {
        ignore(sensor.Element(), "<sensor name=" + inQuotes(sensor.Name()) + "> of type " + inQuotes(sensor.TypeStr()) +
                                     " on joint " + inQuotes(j.name) +
                                     " is not imported (joints carry force_torque sensors)");
        continue;
      }
      const std::optional<Joint>& joint = m_joints[static_cast<std::size_t>(ji)];
      if (!joint) {
        ignore(sensor.Element(), what +
                                     " is on a joint that is not part of the tree (a loop closure or a "
                                     "coupling): not imported");
        continue;
      }
      SensorSpec spec;
      spec.type = SensorType::ForceTorque;
      spec.name = uniqueSensorName(g.name + "::" + j.name + "::" + sensor.Name());
      spec.joint = joint->getMultibody().name() + "/" + joint->name();
      spec.rate = std::max(0.0, sensor.UpdateRate());
      const sdf::ForceTorque* ft = sensor.ForceTorqueSensor();
      const sdf::ForceTorqueFrame frame = ft != nullptr ? ft->Frame() : sdf::ForceTorqueFrame::CHILD;
      if (frame == sdf::ForceTorqueFrame::SENSOR) {
        // sdformat does not resolve the poses of joint sensors: the raw
        // pose, in the joint frame (SDF's default for them).
        spec.pose = toEigen(sensor.RawPose());
        if (!sensor.PoseRelativeTo().empty()) {
          warn(sensor.Element(),
               what + ": <pose relative_to=" + inQuotes(sensor.PoseRelativeTo()) + "> is read in the joint frame");
        }
      } else {
        // The child link's frame (the joint frame is at childOffset in it).
        spec.pose = joint->getSpec().childOffset.inverse();
        if (frame == sdf::ForceTorqueFrame::PARENT) {
          warn(sensor.Element(), what + ": <frame>parent</frame> is read in the child link's frame");
        }
      }
      if (ft != nullptr) {
        applyNoise(spec,
                   {&ft->ForceXNoise(), &ft->ForceYNoise(), &ft->ForceZNoise(), &ft->TorqueXNoise(),
                    &ft->TorqueYNoise(), &ft->TorqueZNoise()},
                   sensor);
        spec.childOnParent = ft->MeasureDirection() == sdf::ForceTorqueMeasureDirection::CHILD_TO_PARENT;
      }
      if (j.child < 0 || !(m_links[static_cast<std::size_t>(j.child)] == joint->getChildLink())) {
        warn(sensor.Element(), what +
                                   ": the joint is reversed in the tree (its SDF child is the engine's parent); "
                                   "the sensor reads the wrench on the SDF parent");
      }
      try {
        m_world.addSensor(spec);
      } catch (const Error& e) {
        fail(sensor.Element(), what + ": " + e.what());
      }
      m_report.sensors.push_back(SensorMade{spec.name, std::string(toString(spec.type)), spec.joint,
                                            fileOf(sensor.Element()), lineOf(sensor.Element())});
    }
  }

  void addShapes(const ModelGraph& g, int link) {
    const LinkNode& node = g.links[static_cast<std::size_t>(link)];
    const sdf::Link& sdfLink = *node.link;
    const bool moving = !node.anchored;
    const Frame owner = engineFrame(g, link);
    const Isometry3d X_OL = moving ? Isometry3d::Identity() : node.X_WL;
    const std::string prefix = g.name + "::" + node.name + "::";
    const sdf::ElementPtr linkElement = sdfLink.Element();
    if (moving && linkElement->HasElement("gravity") && !linkElement->Get<bool>("gravity")) {
      ignore(sdfLink.Element(), "link " + inQuotes(node.name) + ": <gravity>false</gravity> is not supported");
    }
    if (moving && linkElement->HasElement("kinematic") && linkElement->Get<bool>("kinematic")) {
      ignore(sdfLink.Element(), "link " + inQuotes(node.name) + ": <kinematic>true</kinematic> is not supported");
    }
    for (uint64_t i = 0; i < sdfLink.CollisionCount(); ++i) {
      const sdf::Collision& c = *sdfLink.CollisionByIndex(i);
      const std::string what = "collision " + inQuotes(node.name + "::" + c.Name());
      const std::optional<Geometry> geometry = geometryOf(*c.Geom(), c.Element(), what, true, moving);
      if (!geometry) continue;
      CollisionShapeOptions opts;
      opts.name = uniqueShapeName(prefix + c.Name());
      opts.geometry = *geometry;
      opts.pose = X_OL * resolvePose(c.SemanticPose(), "", c.Element(), what);
      if (geometry->type == GeometryType::Plane) {
        opts.pose.linear() = opts.pose.linear() * detail::rotationWithZAlong(toEigen(c.Geom()->PlaneShape()->Normal()));
        m_hasPlane = true;
      }
      opts.material = materialOf(c);
      try {
        m_world.addCollisionShape(owner, opts);
      } catch (const Error& e) {
        fail(c.Element(), what + ": " + e.what());
      }
    }
    for (uint64_t i = 0; i < sdfLink.VisualCount(); ++i) {
      const sdf::Visual& v = *sdfLink.VisualByIndex(i);
      const std::string what = "visual " + inQuotes(node.name + "::" + v.Name());
      const std::optional<Geometry> geometry = geometryOf(*v.Geom(), v.Element(), what, false, moving);
      if (!geometry) continue;
      VisualShapeOptions opts;
      opts.name = uniqueShapeName(prefix + v.Name());
      opts.geometry = *geometry;
      opts.pose = X_OL * resolvePose(v.SemanticPose(), "", v.Element(), what);
      const sdf::ElementPtr diffuse = v.Material() ? childElement(v.Material()->Element(), "diffuse") : nullptr;
      if (diffuse && diffuse->GetExplicitlySetInFile()) {
        const ignition::math::Color c = v.Material()->Diffuse();
        opts.color = Vector4d(c.R(), c.G(), c.B(), c.A());
        opts.geometry.parts.clear();  // as in Gazebo, the visual's material colours the whole mesh
      } else if (!geometry->meshFile.empty()) {
        if (const std::optional<Vector4d> c = detail::loadMesh(geometry->meshFile)->color) opts.color = *c;
      }
      opts.color[3] *= 1.0 - static_cast<double>(v.Transparency());
      opts.color = opts.color.cwiseMax(0.0).cwiseMin(1.0);
      try {
        m_world.addVisualShape(owner, opts);
      } catch (const Error& e) {
        fail(v.Element(), what + ": " + e.what());
      }
    }
  }

  World& m_world;
  std::string m_source;   ///< the file name in reports and errors
  std::string m_sdfName;  ///< what sdformat calls the document
  const ImportOptions& m_options;
  ResourceResolver m_resolver;
  std::map<std::string, ResourceResolver> m_resolvers;  ///< per folder of an included SDF file
  std::vector<std::string> m_lookupFailures;
  ImportReport m_report;
  bool m_hasPlane = false;
  std::optional<Vector3d> m_gravity;  ///< of the imported world
  std::optional<double> m_timeStep;   ///< of the imported world (s)
  /// Tree joints by model and joint name, for the joint angles of <state>.
  struct StateJoint {
    Joint joint;
    bool swapped = false;  ///< a universal joint traversed backwards: its DoFs are the SDF's in reverse
  };
  std::map<std::string, std::map<std::string, StateJoint>> m_stateJoints;
  std::set<std::string> m_warnedNames;  ///< link/joint names shared, warned about once
  /// Extension elements not imported, by name: their entry in the report's
  /// ignored list and how many there are.
  std::map<std::string, std::pair<std::size_t, int>> m_foreignElements;
  std::string m_readText;  ///< the text sdformat reads for the imported file (legacy joints rewritten)
  int m_rootLine = 0;      ///< line of its <sdf> element
  /// Parsed XML of the files sdformat read, by the path it names them with,
  /// for what sdformat 12 does not keep (<inertial auto>).
  mutable std::map<std::string, std::unique_ptr<tinyxml2::XMLDocument>> m_xml;
  std::vector<Link> m_links;                   ///< per link of the model being imported
  std::vector<std::optional<Joint>> m_joints;  ///< per joint of that model: its engine joint, if in the tree
};

}  // namespace

ImportReport importSdf(World& world, const fs::path& file, const ImportOptions& options) {
  return detail::guardedImport(world, file.string(), [&](World& target) {
    const std::string text = detail::readTextInput(file);
    SdfImporter importer(target, file.string(), file.parent_path(), options);
    return importer.run(text, &file);
  });
}

ImportReport importSdfFromString(World& world, const std::string& text, const std::string& sourceName,
                                 const fs::path& baseDirectory, const ImportOptions& options) {
  return detail::guardedImport(world, sourceName, [&](World& target) {
    SdfImporter importer(target, sourceName, baseDirectory, options);
    return importer.run(text, nullptr);
  });
}

}  // namespace articula::io

// URDF and SDF export (articula/io/export.hpp) on everything that ships and
// every shared robot: the built-in scenes, scenes/*.articula and the
// example-robot-data URDFs (welded, and floating on a ground). Every export
// must be accepted by the reference parser of its format (urdfdom,
// sdformat), read back by our importers into the same world
// (export_compare.hpp: masses, inertias, joint frames and mass matrices at
// random configurations, closures, couplers, shapes, joint properties and the
// initial state), and its report must list exactly what the format cannot
// hold. Focused cases: a closed chain with a coupler, a Distance closure,
// mesh references relative to the written file, joint types and sensors only
// SDF holds.
#include <articula/articula.hpp>
#include <articula/io/export.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include "builtin_scenes.hpp"
#include "export_compare.hpp"
#include "import_common.hpp"
#include "models.hpp"
#include "sdformat_home.hpp"

#include <urdf_parser/urdf_parser.h>
#include <sdf/Root.hh>

#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = fs::path(ARTICULA_SOURCE_DIR);
const fs::path kModels = articula::test::modelsPath();

std::string q(const std::string& s) {
  return "'" + s + "'";
}

std::vector<fs::path> sharedRobots() {
  std::vector<fs::path> out;
  if (!fs::is_directory(kModels)) return out;
  for (const auto& e : fs::recursive_directory_iterator(kModels)) {
    if (e.is_regular_file() && e.path().extension() == ".urdf") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Builds the world a row names: "builtin:NAME", "scene:FILE", "robot:FILE"
// (welded) or "floating:FILE" (free root on a ground).
void build(World& world, const QString& row) {
  const std::string what = row.section(':', 1).toStdString();
  if (row.startsWith("builtin:")) {
    scenes::buildScene(world, what);
  } else if (row.startsWith("scene:")) {
    io::loadScene(world, kSource / "scenes" / what);
  } else {
    io::ImportOptions o;
    o.useEnvironmentPaths = false;
    o.packagePath = {kModels, kModels / "example-robot-data" / "robots"};
    if (row.startsWith("floating:")) {
      o.root = io::RootAttachment::Floating;
      o.addGroundPlane = true;
    }
    io::importFile(world, what, o);
  }
}

io::ImportOptions readBackOptions() {
  io::ImportOptions o;
  o.useEnvironmentPaths = false;
  return o;
}

std::multiset<std::string> objects(const std::vector<io::ExportEntry>& entries) {
  std::multiset<std::string> out;
  for (const io::ExportEntry& e : entries) out.insert(e.object);
  return out;
}

std::string listDifference(const std::multiset<std::string>& expected, const std::multiset<std::string>& actual) {
  std::string out;
  std::multiset<std::string> missing;
  std::multiset<std::string> extra;
  std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(),
                      std::inserter(extra, extra.end()));
  for (const std::string& m : missing) out += "  expected, not reported: " + m + "\n";
  for (const std::string& x : extra) out += "  reported, not expected: " + x + "\n";
  return out;
}

bool mentions(const io::ExportReport& report, const std::string& word) {
  return std::any_of(report.converted.begin(), report.converted.end(),
                     [&](const io::ExportEntry& e) { return e.message.find(word) != std::string::npos; });
}

/// The comparison options for a report: what it lists as not exported is
/// skipped, and so are the shapes it says read back in another form.
test::ExportCompareOptions compareOptions(const io::ExportReport& report, bool urdf) {
  test::ExportCompareOptions o;
  o.onlyFirstMultibody = urdf;
  o.compareInitialState = true;
  o.compareWorldOptions = true;
  o.skipNotExported(report);
  for (const io::ExportEntry& e : report.converted) {
    if (e.object.rfind("shape ", 0) == 0) o.skipObject(e.object);
  }
  return o;
}

// ---- what each format cannot hold, from the spec --------------------------------

double perDof(const VectorXd& v, int i, double fallback) {
  return v.size() > i ? v[i] : fallback;
}
bool anyPositive(const VectorXd& v) {
  return v.size() > 0 && (v.array() > 0.0).any();
}
bool anyFinite(const VectorXd& v) {
  return v.size() > 0 && v.array().isFinite().any();
}
bool anyNonZero(const VectorXd& v) {
  return v.size() > 0 && !v.isZero(0.0);
}
VectorXd neutral(JointType t) {
  VectorXd q0 = VectorXd::Zero(numPositions(t));
  if (t == JointType::Ball) q0[3] = 1.0;
  if (t == JointType::Free) q0[6] = 1.0;
  return q0;
}
bool defaultPolicy(const LoopClosureRuntimePolicy& p) {
  const LoopClosureRuntimePolicy d;
  return p.enabled == d.enabled && p.kinematics == d.kinematics && p.dynamics == d.dynamics &&
         p.stabilization == d.stabilization && p.errorReduction == d.errorReduction && p.stiffness == d.stiffness &&
         p.damping == d.damping && p.projectAfterStep == d.projectAfterStep && p.tolerance == d.tolerance &&
         p.maxIterations == d.maxIterations;
}

/// "multibody/link" of a frame name (user frames followed to their parent),
/// "world", a rigid body name, or "" for a free user frame.
std::string bodyName(const WorldSpec& spec, const std::string& frame) {
  std::string name = frame.empty() ? "world" : frame;
  for (;;) {
    const auto f =
        std::find_if(spec.frames.begin(), spec.frames.end(), [&](const FrameSpec& x) { return x.name == name; });
    if (f == spec.frames.end()) return name;
    if (f->isFree) return "";
    name = f->parent;
  }
}

/// The owner (multibody or rigid body name) of a body name.
std::string ownerOf(const std::string& body) {
  return body.substr(0, body.find('/'));
}

const LinkSpec* jointLink(const WorldSpec& spec, const std::string& joint, std::string* owner = nullptr) {
  const std::size_t slash = joint.find('/');
  for (const MultibodySpec& mb : spec.multibodies) {
    if (mb.name != joint.substr(0, slash)) continue;
    for (const LinkSpec& l : mb.links) {
      if (l.joint.name == joint.substr(slash + 1)) {
        if (owner != nullptr) *owner = mb.name;
        return &l;
      }
    }
  }
  return nullptr;
}

bool universalXY(const JointSpec& j) {
  return (j.axis.normalized() - Vector3d::UnitX()).norm() < 1e-12 &&
         (j.axis2.normalized() - Vector3d::UnitY()).norm() < 1e-12;
}
bool planarReadBack(const JointSpec& j) {
  const Vector3d n = j.axis.cross(j.axis2).normalized();
  const Matrix3d R = Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), n).toRotationMatrix();
  return (R.col(0) - j.axis.normalized()).norm() < 1e-12 && (R.col(1) - j.axis2.normalized()).norm() < 1e-12;
}

void expectCommon(const WorldSpec& spec, std::multiset<std::string>& out) {
  for (const FrameSpec& f : spec.frames) out.insert("frame " + q(f.name));
  for (const CollisionSettingSpec& c : spec.collisionSettings)
    out.insert("collision setting " + q(c.a) + " / " + q(c.b));
  for (const ScheduleSpec& s : spec.schedules) out.insert("schedule " + q(s.name));
  for (const KeyframeSpec& k : spec.keyframes) out.insert("keyframe " + q(k.name));
  for (const ViewpointSpec& v : spec.viewpoints) out.insert("viewpoint " + q(v.name));
  for (const ClosureSpec& c : spec.loopClosures) {
    if (!defaultPolicy(c.policy)) out.insert("closure " + q(c.name));
  }
  for (const CouplerSpec& c : spec.jointCouplers) {
    if (!defaultPolicy(c.policy)) out.insert("coupler " + q(c.name));
  }
}

/// What URDF cannot hold: everything but the first multibody, and what the
/// first one has that URDF (as urdf_import reads it) has no element for.
std::multiset<std::string> expectedUrdfLosses(const WorldSpec& spec) {
  std::multiset<std::string> out;
  expectCommon(spec, out);
  const MultibodySpec* first = spec.multibodies.empty() ? nullptr : &spec.multibodies.front();
  for (std::size_t i = 1; i < spec.multibodies.size(); ++i) out.insert("multibody " + q(spec.multibodies[i].name));
  for (const RigidBodySpec& r : spec.rigidBodies) out.insert("rigid body " + q(r.name));
  for (const SensorSpec& s : spec.sensors) out.insert("sensor " + q(s.name));
  WorldSpec options;
  options.options = spec.options;
  if (options != WorldSpec{}) out.insert("world options");
  const Material defaultMaterial;
  for (const ShapeSpec& s : spec.shapes) {
    const std::string object = "shape " + q(s.name);
    if (s.owner == "world") {
      out.insert(object);
      continue;
    }
    if (first == nullptr || ownerOf(s.owner) != first->name) continue;
    const GeometryType t = s.geometry.type;
    if (t == GeometryType::Ellipsoid || t == GeometryType::Plane ||
        ((t == GeometryType::ConvexMesh || t == GeometryType::TriangleMesh) && s.geometry.meshFile.empty())) {
      out.insert(object);
      continue;
    }
    if (s.collision &&
        (s.material.friction != defaultMaterial.friction || s.material.restitution != defaultMaterial.restitution)) {
      out.insert(object);
    }
    if (s.collision && !s.collidable) out.insert(object);
  }
  auto oneDof = [&](const std::string& joint) {
    std::string owner;
    const LinkSpec* l = jointLink(spec, joint, &owner);
    return l != nullptr && first != nullptr && owner == first->name &&
           (l->joint.type == JointType::Revolute || l->joint.type == JointType::Prismatic);
  };
  for (const ClosureSpec& c : spec.loopClosures) {
    const std::string a = bodyName(spec, c.frameA);
    const std::string b = bodyName(spec, c.frameB);
    const auto inRobot = [&](const std::string& body) {
      return body == "world" ||
             (first != nullptr && body.find('/') != std::string::npos && ownerOf(body) == first->name);
    };
    const bool family = c.family == LoopClosureFamily::Rigid || c.family == LoopClosureFamily::Hinge ||
                        c.family == LoopClosureFamily::Slider;
    if (!inRobot(a) || !inRobot(b) || !family) out.insert("closure " + q(c.name));
  }
  for (const CouplerSpec& c : spec.jointCouplers) {
    if (!oneDof(c.leader) || !oneDof(c.follower)) out.insert("coupler " + q(c.name));
  }
  for (const ActuatorSpec& a : spec.actuators) {
    if (!oneDof(a.joint) || a.type == ActuatorType::Lock) out.insert("actuator " + q(a.name));
  }
  if (first == nullptr) return out;
  if (first->selfCollision) out.insert("multibody " + q(first->name));
  bool state = false;
  for (const LinkSpec& l : first->links) {
    const JointSpec& j = l.joint;
    const std::string object = "joint " + q(first->name + "/" + j.name);
    const bool written = j.type == JointType::Weld || j.type == JointType::Revolute || j.type == JointType::Prismatic ||
                         j.type == JointType::Free || j.type == JointType::Ball ||
                         (j.type == JointType::Universal && universalXY(j)) ||
                         (j.type == JointType::Planar && planarReadBack(j));
    if (!written) out.insert(object);
    if (j.type == JointType::Revolute || j.type == JointType::Prismatic) {
      if (anyPositive(j.springStiffness) || anyPositive(j.armature)) out.insert(object);
      const double inf = std::numeric_limits<double>::infinity();
      const bool limited = j.type == JointType::Prismatic || std::isfinite(perDof(j.positionLowerLimits, 0, -inf)) ||
                           std::isfinite(perDof(j.positionUpperLimits, 0, inf));
      if (limited && perDof(j.positionLowerLimits, 0, -1) == 0.0 && perDof(j.positionUpperLimits, 0, 1) == 0.0) {
        out.insert(object);
      }
      if (perDof(j.effortLimits, 0, 1) == 0.0 || perDof(j.velocityLimits, 0, 1) == 0.0) out.insert(object);
    } else if (written && j.type != JointType::Weld) {
      if (anyPositive(j.damping) || anyPositive(j.coulombFriction) || anyPositive(j.springStiffness) ||
          anyPositive(j.armature) || anyFinite(j.positionLowerLimits) || anyFinite(j.positionUpperLimits) ||
          anyFinite(j.velocityLimits) || anyFinite(j.effortLimits)) {
        out.insert(object);
      }
    }
    const bool rootPose = l.parent.empty() && j.type == JointType::Free;
    if ((!rootPose && l.q.size() > 0 && l.q != neutral(j.type)) || anyNonZero(l.v) || anyNonZero(l.tau)) state = true;
  }
  if (state) out.insert("initial state of " + q(first->name));
  return out;
}

/// The closures whose endpoints meet with every joint at zero and free
/// roots at their initial pose (what an SDF joint frame can hold), by the
/// engine's own residual.
std::set<std::string> closedAtFileConfiguration(const WorldSpec& spec) {
  WorldSpec zero = spec;
  for (MultibodySpec& mb : zero.multibodies) {
    for (LinkSpec& l : mb.links) {
      if (!(l.parent.empty() && l.joint.type == JointType::Free)) l.q.resize(0);
    }
  }
  World w(zero);
  std::set<std::string> closed;
  for (const LoopClosure& c : w.getLoopClosures()) {
    if (c.computeResidual().norm < 1e-9) closed.insert(c.name());
  }
  return closed;
}

/// What SDF cannot hold (as sdf_import reads it).
std::multiset<std::string> expectedSdfLosses(const WorldSpec& spec) {
  std::multiset<std::string> out;
  expectCommon(spec, out);
  for (const ActuatorSpec& a : spec.actuators) out.insert("actuator " + q(a.name));
  WorldSpec options;
  options.options = spec.options;
  options.options.gravity = WorldOptions{}.gravity;
  options.options.timeStep = WorldOptions{}.timeStep;
  if (options != WorldSpec{}) out.insert("world options");
  for (const ShapeSpec& s : spec.shapes) {
    const GeometryType t = s.geometry.type;
    if (((t == GeometryType::ConvexMesh || t == GeometryType::TriangleMesh) && s.geometry.meshFile.empty()) ||
        (t == GeometryType::Plane && !s.collision) || (s.collision && !s.collidable)) {
      out.insert("shape " + q(s.name));
    }
  }
  for (const SensorSpec& s : spec.sensors) {
    bool lost = s.type == SensorType::JointEncoder;
    if (s.type == SensorType::ForceTorque) {
      const LinkSpec* l = jointLink(spec, s.joint);
      lost = l == nullptr || l->joint.type == JointType::Free;
    } else if (s.type != SensorType::JointEncoder) {
      const std::string body = bodyName(spec, s.frame);
      lost = body.empty() || body == "world";
    }
    if (lost) out.insert("sensor " + q(s.name));
  }
  // Models: owners joined by exportable closures and couplers, unless
  // their names clash.
  std::vector<std::string> owners;
  for (const MultibodySpec& mb : spec.multibodies) owners.push_back(mb.name);
  for (const RigidBodySpec& r : spec.rigidBodies) owners.push_back(r.name);
  std::map<std::string, std::string> parent;
  for (const std::string& o : owners) parent[o] = o;
  std::function<std::string(const std::string&)> find = [&](const std::string& o) {
    return parent[o] == o ? o : find(parent[o]);
  };
  const std::set<std::string> closed = closedAtFileConfiguration(spec);
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> joins;  // object, owners
  for (const ClosureSpec& c : spec.loopClosures) {
    const std::string a = bodyName(spec, c.frameA);
    const std::string b = bodyName(spec, c.frameB);
    if (a.empty() || b.empty() || c.family == LoopClosureFamily::Distance || closed.count(c.name) == 0) {
      out.insert("closure " + q(c.name));
      continue;
    }
    if (a != "world" && b != "world") joins.push_back({"closure " + q(c.name), {ownerOf(a), ownerOf(b)}});
  }
  auto sdfOneDof = [&](const std::string& joint, std::string* owner) {
    const LinkSpec* l = jointLink(spec, joint, owner);
    return l != nullptr && (l->joint.type == JointType::Revolute || l->joint.type == JointType::Prismatic ||
                            (l->joint.type == JointType::Screw && l->joint.pitch != 0.0));
  };
  for (const CouplerSpec& c : spec.jointCouplers) {
    std::string lo, fo;
    if (!sdfOneDof(c.leader, &lo) || !sdfOneDof(c.follower, &fo)) {
      out.insert("coupler " + q(c.name));
      continue;
    }
    joins.push_back({"coupler " + q(c.name), {lo, fo}});
  }
  for (const auto& [object, pair] : joins) parent[find(pair.first)] = find(pair.second);
  std::map<std::string, std::multiset<std::string>> names;  // group root → names in the model
  for (const MultibodySpec& mb : spec.multibodies) {
    for (const LinkSpec& l : mb.links) {
      names[find(mb.name)].insert(l.name);
      if (l.joint.type != JointType::Free) names[find(mb.name)].insert(l.joint.name);
    }
  }
  for (const RigidBodySpec& r : spec.rigidBodies) names[find(r.name)].insert(r.name);
  for (const ClosureSpec& c : spec.loopClosures) {
    const std::string a = bodyName(spec, c.frameA);
    const std::string b = bodyName(spec, c.frameB);
    if (!a.empty() && !b.empty() && closed.count(c.name) != 0)
      names[find(ownerOf(a == "world" ? b : a))].insert(c.name);
  }
  std::set<std::string> clashing;
  for (const auto& [root, n] : names) {
    for (const std::string& x : n) {
      if (n.count(x) > 1) clashing.insert(root);
    }
  }
  for (const auto& [object, pair] : joins) {
    if (pair.first != pair.second && clashing.count(find(pair.first)) != 0) out.insert(object);
  }
  for (const MultibodySpec& mb : spec.multibodies) {
    bool state = false;
    for (const LinkSpec& l : mb.links) {
      const JointSpec& j = l.joint;
      const std::string object = "joint " + q(mb.name + "/" + j.name);
      const bool root = l.parent.empty();
      if (j.type == JointType::Euler || j.type == JointType::Planar || j.type == JointType::Translational ||
          (j.type == JointType::Free && !root)) {
        out.insert(object);
      }
      if (j.type == JointType::Free) {
        if (anyNonZero(j.damping) || anyNonZero(j.coulombFriction) || anyNonZero(j.armature)) out.insert(object);
      } else if (anyNonZero(j.armature)) {
        out.insert(object);
      }
      if (j.type == JointType::Ball &&
          (anyNonZero(j.damping) || anyNonZero(j.coulombFriction) || anyNonZero(j.springStiffness) ||
           anyFinite(j.positionLowerLimits) || anyFinite(j.positionUpperLimits) || anyFinite(j.velocityLimits) ||
           anyFinite(j.effortLimits))) {
        out.insert(object);
      }
      const bool angles = j.type == JointType::Revolute || j.type == JointType::Prismatic ||
                          j.type == JointType::Screw || j.type == JointType::Universal;
      const bool nonNeutral = l.q.size() > 0 && l.q != neutral(j.type);
      if ((nonNeutral && !angles && !(root && j.type == JointType::Free)) || anyNonZero(l.v) || anyNonZero(l.tau)) {
        state = true;
      }
    }
    if (state) out.insert("initial state of " + q(mb.name));
  }
  for (const RigidBodySpec& r : spec.rigidBodies) {
    if (!r.velocity.isZero(0.0) || !r.force.isZero(0.0)) out.insert("initial state of " + q(r.name));
  }
  return out;
}

// ---- checks ----------------------------------------------------------------------

/// urdfdom's verdict on a URDF text.
bool urdfdomAccepts(const std::string& text) {
  return urdf::parseURDF(text) != nullptr;
}

/// sdformat's errors on an SDF text (empty: accepted).
std::string sdformatErrors(const std::string& text) {
  sdf::Root root;
  const sdf::Errors errors = root.LoadSdfString(text);
  std::string out;
  for (const sdf::Error& e : errors) out += e.Message() + "\n";
  return out;
}

/// (a) and (d) for URDF: urdfdom's verdict and the report.
void checkUrdfText(const WorldSpec& spec, const std::string& text, const io::ExportReport& report,
                   const std::string& what) {
  QVERIFY2(!text.empty(), what.c_str());
  // urdfdom accepts it, unless the report says a construct it refuses was
  // written (capsules, Drake joints).
  const bool refused = mentions(report, "urdfdom");
  QVERIFY2(urdfdomAccepts(text) == !refused,
           qPrintable(QString::fromStdString(what + ": urdfdom " + (refused ? "accepts" : "refuses") +
                                             " the exported URDF\n" + report.toText() + text.substr(0, 3000))));
  // The report lists exactly what URDF cannot hold.
  const std::string losses = listDifference(expectedUrdfLosses(spec), objects(report.notExported));
  QVERIFY2(losses.empty(), qPrintable(QString::fromStdString(what + ": URDF report\n" + losses + report.toText())));
}

void checkUrdf(World& original, const std::string& what) {
  const WorldSpec spec = original.getSpec();
  io::ExportReport report;
  const std::string text = io::toUrdf(spec, report);
  checkUrdfText(spec, text, report, what);
  if (QTest::currentTestFailed()) return;
  // (c) read back: the same robot.
  World back;
  try {
    io::importUrdfFromString(back, text, "<exported urdf>", {}, readBackOptions());
  } catch (const std::exception& e) {
    QFAIL(qPrintable(QString::fromStdString(what + ": the exported URDF does not import: " + e.what() + "\n" +
                                            text.substr(0, 4000))));
  }
  const std::string differences = test::compareExported(original, back, compareOptions(report, true));
  if (!differences.empty()) qInfo("%s", (what + ": URDF export report:\n" + report.toText()).c_str());
  QVERIFY2(differences.empty(), qPrintable(QString::fromStdString(what + ": URDF read back differs:\n" + differences)));
}

void checkSdf(World& original, const std::string& what) {
  const WorldSpec spec = original.getSpec();
  io::ExportReport report;
  const std::string text = io::toSdf(spec, report);
  QVERIFY2(!text.empty(), what.c_str());
  // (b) sdformat accepts it.
  const std::string errors = sdformatErrors(text);
  QVERIFY2(errors.empty(), qPrintable(QString::fromStdString(what + ": sdformat refuses the exported SDF:\n" + errors +
                                                             text.substr(0, 4000))));
  const std::string losses = listDifference(expectedSdfLosses(spec), objects(report.notExported));
  QVERIFY2(losses.empty(), qPrintable(QString::fromStdString(what + ": SDF report\n" + losses + report.toText())));
  World back;
  try {
    io::importSdfFromString(back, text, "<exported sdf>", {}, readBackOptions());
  } catch (const std::exception& e) {
    QFAIL(qPrintable(QString::fromStdString(what + ": the exported SDF does not import: " + e.what() + "\n" +
                                            text.substr(0, 4000))));
  }
  const test::ExportCompareOptions options = compareOptions(report, false);
  const std::string differences = test::compareExported(original, back, options);
  if (!differences.empty()) qInfo("%s", (what + ": SDF export report:\n" + report.toText()).c_str());
  QVERIFY2(differences.empty(), qPrintable(QString::fromStdString(what + ": SDF read back differs:\n" + differences)));
}

Isometry3d translation(double x, double y, double z) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(x, y, z);
  return X;
}

Inertia barInertia(double mass, const Vector3d& along) {
  Inertia in = Inertia::box(mass, Vector3d(0.02, 0.02, 0.02) + along.cwiseAbs());
  in.com = 0.5 * along;
  return in;
}

/// A parallelogram four-bar drawn closed (every joint at zero): crank and
/// rocker up from pivots 0.4 m apart, a coupler across, closed by a Hinge
/// closure from the rocker tip to the world; and a flywheel on the crank
/// coupled to the crank joint (ratio 2, offset 0.1). Assembled with the
/// crank at 0.3 rad.
void buildClosedMechanism(World& world) {
  const Vector3d up(0, 0, 0.2);
  auto mb = world.addMultibody("linkage");
  auto crank =
      mb.addLink({"crank", barInertia(0.5, up)},
                 JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 1)).named("crank_joint"));
  auto coupler = mb.addLink(
      {"coupler", barInertia(1.0, Vector3d(0.4, 0, 0))}, crank,
      JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 0.2)).named("coupler_joint"));
  auto rocker =
      mb.addLink({"rocker", barInertia(0.8, -up)}, coupler,
                 JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0.4, 0, 0)).named("rocker_joint"));
  auto flywheel = mb.addLink(
      {"flywheel", Inertia::cylinder(0.3, 0.05, 0.01)}, crank,
      JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 0.1)).named("flywheel_joint"));
  for (const Link& l : {crank, coupler, rocker, flywheel}) {
    VisualShapeOptions v;
    v.geometry = Geometry::box(Vector3d(0.03, 0.03, 0.03));
    v.color = Vector4d(0.2, 0.4, 0.6, 1.0);
    Link(l).addVisualShape(v);
  }
  LoopClosureSpec pin;
  const Matrix3d zToY = Eigen::AngleAxisd(-0.5 * std::numbers::pi, Vector3d::UnitX()).toRotationMatrix();
  pin.frameA = Frame::World();
  pin.offsetA = translation(0.4, 0, 1);
  pin.offsetA.linear() = zToY;
  pin.frameB = rocker;
  pin.offsetB = translation(0, 0, -0.2);
  pin.offsetB.linear() = zToY;
  pin.family = LoopClosureFamily::Hinge;
  world.addLoopClosure("pin", pin);
  JointCouplerSpec gear;
  gear.leader = crank.getParentJoint();
  gear.follower = flywheel.getParentJoint();
  gear.ratio = 2.0;
  gear.offset = 0.1;
  world.addJointCoupler("flywheel_gear", gear);
  crank.getParentJoint().setPosition(0, 0.3);
  ClosureProjectionOptions po;
  po.lockedJoints = {crank.getParentJoint()};
  const ClosureProjectionResult r = world.projectClosures(po);
  if (!r.success) throw std::runtime_error("the test mechanism did not assemble: " + r.message);
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

class TestUrdfSdfExport : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(articula::test::ensureWritableHomeForSdformat(m_home)); }

  void sharedModelsArePresent() {
    ARTICULA_REQUIRE_MODEL(kModels / "example-robot-data");
    QVERIFY(sharedRobots().size() >= 15);
  }

  void roundTrips_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("row");
    std::vector<std::pair<std::string, QString>> rows;  // tag, row
    for (const auto& s : scenes::builtinScenes()) {
      const std::string name = s.name == "chain-N" ? "chain-25" : s.name;
      rows.emplace_back("builtin " + name, "builtin:" + QString::fromStdString(name));
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(kSource / "scenes")) {
      if (e.path().extension() == ".articula") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
      rows.emplace_back("scene " + p.filename().string(), "scene:" + QString::fromStdString(p.filename().string()));
    }
    for (const fs::path& p : sharedRobots()) {
      const std::string name = p.filename().string();
      rows.emplace_back("robot " + name, "robot:" + QString::fromStdString(p.string()));
      rows.emplace_back("floating " + name, "floating:" + QString::fromStdString(p.string()));
    }
    for (const char* format : {"urdf", "sdf"}) {
      for (const auto& [tag, row] : rows) QTest::addRow("%s %s", format, tag.c_str()) << QString(format) << row;
    }
  }

  void roundTrips() {
    QFETCH(QString, format);
    QFETCH(QString, row);
    if (row.startsWith("robot:") || row.startsWith("floating:")) ARTICULA_REQUIRE_MODEL(row.section(':', 1));
    World original;
    try {
      build(original, row);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("could not build the original: %1").arg(e.what())));
    }
    if (format == "urdf") {
      checkUrdf(original, row.toStdString());
    } else {
      checkSdf(original, row.toStdString());
    }
  }

  // A closed chain drawn closed and a coupler survive both formats as a
  // closure and a coupler of the same kind.
  void closureAndCouplerRoundTrip() {
    World original;
    buildClosedMechanism(original);
    checkUrdf(original, "mechanism");
    checkSdf(original, "mechanism");
    for (const bool urdf : {true, false}) {
      io::ExportReport report;
      const std::string text = urdf ? io::toUrdf(original.getSpec(), report) : io::toSdf(original.getSpec(), report);
      // Everything but the initial joint positions (URDF has no initial state).
      const std::multiset<std::string> lost = objects(report.notExported);
      const std::multiset<std::string> expected =
          urdf ? std::multiset<std::string>{"initial state of 'linkage'"} : std::multiset<std::string>{};
      QVERIFY2(lost == expected, qPrintable(QString::fromStdString(report.toText())));
      World back;
      if (urdf) {
        io::importUrdfFromString(back, text, "<urdf>", {}, readBackOptions());
      } else {
        io::importSdfFromString(back, text, "<sdf>", {}, readBackOptions());
      }
      QCOMPARE(back.numLoopClosures(), std::size_t{1});
      QVERIFY(back.getLoopClosures().front().family() == LoopClosureFamily::Hinge);
      QCOMPARE(back.numJointCouplers(), std::size_t{1});
      const JointCouplerSpec c = back.getJointCouplers().front().getSpec();
      QCOMPARE(QString::fromStdString(c.leader.name()), QString("crank_joint"));
      QCOMPARE(QString::fromStdString(c.follower.name()), QString("flywheel_joint"));
      QCOMPARE(c.ratio, 2.0);
      QCOMPARE(c.offset, 0.1);
    }
    // The built-in four-bar's closure is open at zero joint angles: URDF
    // keeps it (each <loop_joint> attachment has its own offset), SDF, whose
    // loop joint has one frame, reports it.
    World fourBar;
    scenes::buildScene(fourBar, "four-bar");
    io::ExportReport urdfReport;
    io::ExportReport sdfReport;
    const std::string urdf = io::toUrdf(fourBar.getSpec(), urdfReport);
    const std::string sdf = io::toSdf(fourBar.getSpec(), sdfReport);
    QVERIFY(urdf.find("<loop_joint name=\"four_bar_pin\"") != std::string::npos);
    QVERIFY(objects(urdfReport.notExported).count("closure 'four_bar_pin'") == 0);
    QVERIFY(objects(sdfReport.notExported).count("closure 'four_bar_pin'") == 1);
    QVERIFY(sdf.find("four_bar_pin") == std::string::npos);
  }

  // Bodies joined across multibodies (a closure and a coupler between two
  // arms, a rigid body welded to one by a closure) are written as one SDF
  // model, which reads back as one multibody per tree.
  void closuresAcrossModels() {
    World original;
    auto arm = [&](const std::string& name, double x, double tip) {
      auto mb = original.addMultibody(name);
      return mb.addLink(
          {name + "_bar", barInertia(0.5, Vector3d(tip, 0, 0))},
          JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(x, 0, 1)).named(name + "_hinge"));
    };
    const Link left = arm("left", 0.0, 0.25);
    const Link right = arm("right", 0.5, -0.25);
    LoopClosureSpec pin;
    pin.frameA = left;
    pin.offsetA = translation(0.25, 0, 0);
    pin.frameB = right;
    pin.offsetB = translation(-0.25, 0, 0);
    pin.family = LoopClosureFamily::Point;
    original.addLoopClosure("pin", pin);
    JointCouplerSpec mirror;
    mirror.leader = left.getParentJoint();
    mirror.follower = right.getParentJoint();
    mirror.ratio = -1.0;
    original.addJointCoupler("mirror", mirror);
    RigidBodyOptions o;
    o.inertia = Inertia::box(0.2, Vector3d(0.05, 0.05, 0.05));
    o.pose = translation(0.4, 0, 0.9);
    const RigidBody weight = original.addRigidBody("weight", o);
    LoopClosureSpec weld;
    weld.frameA = right;
    weld.offsetA = right.getWorldTransform().inverse() * o.pose;
    weld.frameB = weight;
    weld.family = LoopClosureFamily::Rigid;
    original.addLoopClosure("weld", weld);
    checkSdf(original, "arms");
    checkUrdf(original, "arms");
    io::ExportReport report;
    const std::string text = io::toSdf(original.getSpec(), report);
    QVERIFY2(report.complete(), qPrintable(QString::fromStdString(report.toText())));
    World back;
    io::importSdfFromString(back, text, "<sdf>", {}, readBackOptions());
    QCOMPARE(back.numMultibodies(), std::size_t{3});
    QCOMPARE(back.numLoopClosures(), std::size_t{2});
    QCOMPARE(back.numJointCouplers(), std::size_t{1});
    QVERIFY(back.getMultibody("left") && back.getMultibody("left::right_bar") && back.getMultibody("left::weight"));
  }

  // The comparison can fail: each small change to the mechanism is found,
  // and an unchanged copy compares equal.
  void comparisonFindsChanges_data() {
    QTest::addColumn<QString>("change");
    for (const char* c :
         {"none", "mass", "com", "inertia", "joint offset", "child offset", "axis", "closure offset", "closure family",
          "coupler ratio", "damping", "limit", "armature", "shape pose", "colour", "no closure", "no flywheel"}) {
      QTest::newRow(c) << QString(c);
    }
  }

  void comparisonFindsChanges() {
    QFETCH(QString, change);
    World original;
    buildClosedMechanism(original);
    WorldSpec spec = original.getSpec();
    MultibodySpec& mb = spec.multibodies.front();
    const std::string c = change.toStdString();
    if (c == "mass") mb.links[1].inertia.mass *= 1.0001;
    if (c == "com") mb.links[1].inertia.com.x() += 1e-6;
    if (c == "inertia") mb.links[1].inertia.rotational(2, 2) *= 1.001;
    if (c == "joint offset") mb.links[2].joint.parentOffset.translation().z() += 1e-6;
    if (c == "child offset") mb.links[2].joint.childOffset.translation().x() += 1e-6;
    if (c == "axis") mb.links[0].joint.axis = -mb.links[0].joint.axis;
    if (c == "closure offset") spec.loopClosures.front().offsetB.translation().x() += 1e-6;
    if (c == "closure family") spec.loopClosures.front().family = LoopClosureFamily::Point;
    if (c == "coupler ratio") spec.jointCouplers.front().ratio = 2.0001;
    if (c == "damping") mb.links[0].joint.damping = VectorXd::Constant(1, 0.1);
    if (c == "limit") mb.links[1].joint.positionLowerLimits = VectorXd::Constant(1, -2.0);
    if (c == "armature") mb.links[1].joint.armature = VectorXd::Constant(1, 0.01);
    if (c == "shape pose") spec.shapes.front().pose.translation().y() += 1e-6;
    if (c == "colour") spec.shapes.front().color[0] += 0.01;
    if (c == "no closure") spec.loopClosures.clear();
    if (c == "no flywheel") {
      mb.links.pop_back();
      spec.jointCouplers.clear();
      std::erase_if(spec.shapes, [](const ShapeSpec& s) { return s.owner == "linkage/flywheel"; });
    }
    World changed(spec);
    const std::string differences = test::compareExported(original, changed);
    if (c == "none") {
      QVERIFY2(differences.empty(), differences.c_str());
    } else {
      QVERIFY2(!differences.empty(), qPrintable("the change '" + change + "' went unnoticed"));
    }
  }

  // A Distance closure has no joint in either format: reported, not written.
  void distanceClosureIsReported() {
    World original;
    auto mb = original.addMultibody("pendulum");
    Inertia bob = Inertia::sphere(1.0, 0.05);
    bob.com = Vector3d(0, 0, -0.5);
    auto link = mb.addLink({"bob", bob}, JointSpec::ball().withParentOffset(translation(0, 0, 1)).named("pivot"));
    LoopClosureSpec tether;
    tether.frameA = Frame::World();
    tether.offsetA = translation(0.3, 0, 1);
    tether.frameB = link;
    tether.offsetB = translation(0, 0, -0.5);
    tether.family = LoopClosureFamily::Distance;
    tether.length = (Vector3d(0, 0, 0.5) - Vector3d(0.3, 0, 1)).norm();
    original.addLoopClosure("tether", tether);
    for (const bool urdf : {true, false}) {
      io::ExportReport report;
      const std::string text = urdf ? io::toUrdf(original.getSpec(), report) : io::toSdf(original.getSpec(), report);
      QCOMPARE(objects(report.notExported).count("closure 'tether'"), std::size_t{1});
      QVERIFY(text.find("tether") == std::string::npos);
      World back;
      if (urdf) {
        io::importUrdfFromString(back, text, "<urdf>", {}, readBackOptions());
      } else {
        io::importSdfFromString(back, text, "<sdf>", {}, readBackOptions());
      }
      QCOMPARE(back.numLoopClosures(), std::size_t{0});
    }
    checkUrdf(original, "tethered pendulum");
    checkSdf(original, "tethered pendulum");
  }

  // exportFile writes next to the meshes: mesh references are relative to
  // the output folder, and the written files load back with them.
  void meshReferencesAreRelativeToTheFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = dir.path().toStdString();
    fs::create_directories(root / "out" / "meshes");
    const fs::path mesh = root / "out" / "meshes" / "tetrahedron.stl";
    fs::copy_file(kSource / "tests" / "data" / "sdf" / "meshes" / "tetrahedron.stl", mesh);
    World original;
    auto mb = original.addMultibody("arm");
    auto link =
        mb.addLink({"link", Inertia::sphere(1.0, 0.1)},
                   JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(0, 0, 0.5)).named("hinge"));
    CollisionShapeOptions c;
    c.name = "hull";
    c.geometry = io::detail::meshGeometry(mesh, Vector3d(0.5, 0.5, 2.0), true);
    c.pose = translation(0.1, 0, 0);
    link.addCollisionShape(c);
    VisualShapeOptions v;
    v.name = "look";
    v.geometry = io::detail::meshGeometry(mesh, Vector3d(0.5, 0.5, 2.0), false);
    v.color = Vector4d(0.1, 0.8, 0.3, 1.0);
    link.addVisualShape(v);
    original.addCollisionShape(Frame::World(), {"floor_mesh", io::detail::meshGeometry(mesh, Vector3d::Ones(), false),
                                                translation(0, 0, -0.2), Material{}, true});
    for (const char* name : {"robot.urdf", "world.sdf"}) {
      const fs::path file = root / "out" / name;
      const io::ExportReport report = io::exportFile(original, file);
      QVERIFY(fs::is_regular_file(file));
      QCOMPARE(QString::fromStdString(report.file), QString::fromStdString(file.string()));
      const bool urdf = fs::path(name).extension() == ".urdf";
      QCOMPARE(QString::fromStdString(report.format), QString(urdf ? "urdf" : "sdf"));
      // URDF holds the world mesh nowhere; SDF holds everything.
      const std::multiset<std::string> expected =
          urdf ? std::multiset<std::string>{"shape 'floor_mesh'"} : std::multiset<std::string>{};
      QVERIFY2(objects(report.notExported) == expected, qPrintable(QString::fromStdString(report.toText())));
      const std::string text = readFile(file);
      QVERIFY2(text.find("\"meshes/tetrahedron.stl\"") != std::string::npos ||
                   text.find(">meshes/tetrahedron.stl<") != std::string::npos,
               qPrintable(QString::fromStdString(text)));
      QVERIFY(text.find(root.string()) == std::string::npos);  // no absolute path
      World back;
      io::importFile(back, file, readBackOptions());
      test::ExportCompareOptions o = compareOptions(report, urdf);
      const std::string differences = test::compareExported(original, back, o);
      QVERIFY2(differences.empty(), qPrintable(QString::fromStdString(differences)));
    }
  }

  // Joint types and dynamics SDF holds and URDF does not: screw, universal
  // about arbitrary axes, springs; and sensors.
  void sdfOnlyJointsAndSensors() {
    World original;
    auto mb = original.addMultibody("machine");
    JointSpec screw = JointSpec::screw(Vector3d::UnitZ(), 0.01).withParentOffset(translation(0, 0, 1)).named("lead");
    screw.positionLowerLimits = VectorXd::Constant(1, -3.0);
    screw.positionUpperLimits = VectorXd::Constant(1, 4.0);
    screw.damping = VectorXd::Constant(1, 0.2);
    auto nut = mb.addLink({"nut", Inertia::box(0.5, Vector3d(0.1, 0.1, 0.05))}, screw);
    JointSpec cross = JointSpec::universal(Vector3d(1, 1, 0).normalized(), Vector3d(-1, 1, 0).normalized())
                          .withParentOffset(translation(0, 0, -0.1))
                          .named("cross");
    cross.childOffset = translation(0, 0, 0.05);
    cross.springStiffness = Eigen::Vector2d(3.0, 4.0);
    cross.restPositions = Eigen::Vector2d(0.1, -0.2);
    cross.coulombFriction = Eigen::Vector2d(0.01, 0.02);
    auto arm = mb.addLink({"arm", barInertia(0.4, Vector3d(0, 0, -0.3))}, nut, cross);
    JointSpec slide = JointSpec::prismatic(Vector3d(0, 1, 0)).withParentOffset(translation(0, 0, -0.3)).named("slide");
    slide.velocityLimits = VectorXd::Constant(1, 2.0);
    slide.effortLimits = VectorXd::Constant(1, 50.0);
    auto tip = mb.addLink({"tip", Inertia::sphere(0.2, 0.03)}, arm, slide);
    CollisionShapeOptions s;
    s.name = "tip_ball";
    s.geometry = Geometry::ellipsoid(Vector3d(0.03, 0.04, 0.05));
    s.material = Material{0.4, 0.3};
    tip.addCollisionShape(s);
    nut.getParentJoint().setPosition(0, 0.5);
    arm.getParentJoint().setPositions(Eigen::Vector2d(0.2, -0.1));
    SensorSpec imu;
    imu.name = "imu";
    imu.type = SensorType::Imu;
    imu.frame = "machine/arm";
    imu.pose = translation(0, 0.01, -0.2);
    imu.rate = 200;
    original.addSensor(imu);
    SensorSpec ft;
    ft.name = "wrench";
    ft.type = SensorType::ForceTorque;
    ft.joint = "machine/slide";
    ft.childOnParent = true;
    original.addSensor(ft);
    SensorSpec range;
    range.name = "range";
    range.type = SensorType::Rangefinder;
    range.frame = "machine/tip";
    range.minRange = 0.05;
    range.maxRange = 4.0;
    original.addSensor(range);
    SensorSpec encoder;
    encoder.name = "encoder";
    encoder.type = SensorType::JointEncoder;
    encoder.joint = "machine/lead";
    original.addSensor(encoder);
    checkSdf(original, "machine");
    {
      // URDF has neither the screw joint nor a universal joint about these
      // axes (both are written fixed and reported), nor sensors.
      io::ExportReport urdfReport;
      const std::string urdf = io::toUrdf(original.getSpec(), urdfReport);
      checkUrdfText(original.getSpec(), urdf, urdfReport, "machine");
      const std::multiset<std::string> lost = objects(urdfReport.notExported);
      QVERIFY(lost.count("joint 'machine/lead'") == 1 && lost.count("joint 'machine/cross'") == 1);
      QCOMPARE(lost.count("sensor 'imu'") + lost.count("sensor 'wrench'") + lost.count("sensor 'range'") +
                   lost.count("sensor 'encoder'"),
               std::size_t{4});
    }

    io::ExportReport report;
    const std::string text = io::toSdf(original.getSpec(), report);
    World back;
    io::importSdfFromString(back, text, "<sdf>", {}, readBackOptions());
    // Three of the four sensors (SDF has no joint encoder), same kinds.
    std::multiset<std::string> kinds;
    for (const Sensor& x : back.getSensors()) kinds.insert(std::string(toString(x.type())));
    const std::multiset<std::string> expected{std::string(toString(SensorType::Imu)),
                                              std::string(toString(SensorType::ForceTorque)),
                                              std::string(toString(SensorType::Rangefinder))};
    QVERIFY(kinds == expected);
    for (const Sensor& x : back.getSensors()) {
      const SensorSpec b = x.getSpec();
      if (b.type == SensorType::Imu) {
        QCOMPARE(b.rate, 200.0);
        const Isometry3d Xa = original.getFrame("machine/arm")->getWorldTransform() * imu.pose;
        const Isometry3d Xb = back.getFrame(b.frame)->getWorldTransform() * b.pose;
        QVERIFY((Xa.matrix() - Xb.matrix()).norm() < 1e-9);
      } else if (b.type == SensorType::ForceTorque) {
        QCOMPARE(QString::fromStdString(b.joint), QString("machine/slide"));
        QVERIFY(b.childOnParent);
        QVERIFY((b.pose.matrix() - Isometry3d::Identity().matrix()).norm() < 1e-12);
      } else {
        QCOMPARE(b.minRange, 0.05);
        QCOMPARE(b.maxRange, 4.0);
      }
    }
  }

 private:
  QTemporaryDir m_home;
};

QTEST_GUILESS_MAIN(TestUrdfSdfExport)
#include "test_urdf_sdf_export.moc"

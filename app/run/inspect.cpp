// articula-run inspect: the topology of a scene or robot file, as text or JSON.
#include "cli.hpp"
#include "commands.hpp"

#include <articula/articula.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

namespace articula::run {

namespace {

struct JointInfo {
  std::string name;
  std::string type;
  int dofs = 0;
  int positions = 0;
  std::string parent;  ///< parent link, or "world"
  std::string child;
  double childMass = 0.0;
};

struct MultibodyInfo {
  std::string name;
  int dofs = 0;
  int positions = 0;
  bool selfCollision = false;
  std::string base;  ///< "fixed", "floating", or the root joint type
  std::vector<JointInfo> joints;
};

struct ClosureInfo {
  std::string name;
  std::string family;
  std::string frameA;
  std::string frameB;
  std::optional<std::string> cutFrom;
};

struct CouplerInfo {
  std::string name;
  std::string leader;
  std::string follower;
  double ratio = 1.0;
  double offset = 0.0;
};

struct Topology {
  std::vector<MultibodyInfo> multibodies;
  std::vector<std::pair<std::string, double>> rigidBodies;  ///< name, mass
  std::vector<ClosureInfo> closures;
  std::vector<CouplerInfo> couplers;
  std::vector<ActuatorSpec> actuators;
  std::vector<ScheduleSpec> schedules;
  std::vector<ViewpointSpec> viewpoints;
  int dofs = 0;
  int positions = 0;
};

std::string qualifiedJoint(const Joint& j) {
  return j.getMultibody().name() + "/" + j.name();
}

// A link's name within its multibody (Frame::name() is "multibody/link").
std::string linkName(const Link& link, const std::string& multibody) {
  std::string name = link.name();
  const std::string prefix = multibody + "/";
  if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
  return name;
}

Topology collect(const World& world, const io::ImportReport& report) {
  Topology t;
  for (const Multibody& mb : world.getMultibodies()) {
    MultibodyInfo m;
    m.name = mb.name();
    m.dofs = mb.numDofs();
    m.positions = mb.numPositions();
    m.selfCollision = mb.getSelfCollision();
    for (const Joint& j : mb.getJoints()) {
      JointInfo ji;
      ji.name = j.name();
      ji.type = std::string(toString(j.type()));
      ji.dofs = j.numDofs();
      ji.positions = j.numPositions();
      const auto parent = j.getParentLink();
      ji.parent = parent ? linkName(*parent, m.name) : "world";
      const Link child = j.getChildLink();
      ji.child = linkName(child, m.name);
      ji.childMass = child.getInertia().mass;
      m.joints.push_back(std::move(ji));
    }
    if (const auto root = mb.getRootLink()) {
      const JointType type = root->getParentJoint().type();
      m.base = type == JointType::Weld ? "fixed" : type == JointType::Free ? "floating" : std::string(toString(type));
    }
    t.multibodies.push_back(std::move(m));
  }
  for (const RigidBody& b : world.getRigidBodies()) t.rigidBodies.emplace_back(b.name(), b.getInertia().mass);
  for (const LoopClosure& c : world.getLoopClosures()) {
    ClosureInfo ci;
    ci.name = c.name();
    ci.family = std::string(toString(c.family()));
    const LoopClosureSpec spec = c.getSpec();
    ci.frameA = spec.frameA.name();
    ci.frameB = spec.frameB.name();
    for (const io::LoopCut& cut : report.cuts) {
      if (cut.closure == ci.name) ci.cutFrom = cut.joint;
    }
    t.closures.push_back(std::move(ci));
  }
  for (const JointCoupler& c : world.getJointCouplers()) {
    const JointCouplerSpec spec = c.getSpec();
    t.couplers.push_back(
        {c.name(), qualifiedJoint(spec.leader), qualifiedJoint(spec.follower), spec.ratio, spec.offset});
  }
  for (const Actuator& a : world.getActuators()) t.actuators.push_back(a.getSpec());
  t.schedules = world.getSchedules();
  t.viewpoints = world.getViewpoints();
  t.dofs = world.numDofs();
  t.positions = world.numPositions();
  return t;
}

// "position servo on arm/elbow, kp 100, kd default, force ±50, gravity compensation".
std::string actuatorSummary(const ActuatorSpec& a) {
  std::string s = std::string(toString(a.type)) + " on " + a.joint;
  if (a.coordinate != 0) s += ":" + std::to_string(a.coordinate);
  const auto gain = [](const char* name, const std::optional<double>& g) {
    return std::string(", ") + name + " " + (g ? formatNumber(*g) : std::string("default (10 Hz)"));
  };
  switch (a.type) {
    case ActuatorType::PositionServo:
      s += gain("kp", a.kp) + gain("kd", a.kd);
      break;
    case ActuatorType::VelocityServo:
      s += gain("kv", a.kv);
      break;
    case ActuatorType::Pid:
      s += gain("kp", a.kp) + gain("kd", a.kd) + ", ki " + formatNumber(a.ki) +
           ", |integral| <= " + formatNumber(a.integralLimit);
      break;
    case ActuatorType::DcMotor:
      s += ", stall " + formatNumber(a.stallTorque) + " N·m, no-load " + formatNumber(a.noLoadSpeed) + " rad/s";
      break;
    case ActuatorType::Motor:
    case ActuatorType::Lock:
      break;
  }
  if (a.gear != 1.0) s += ", gear " + formatNumber(a.gear);
  if (std::isfinite(a.forceMin) || std::isfinite(a.forceMax)) {
    s += ", force [" + formatNumber(a.forceMin) + ", " + formatNumber(a.forceMax) + "]";
  }
  if (std::isfinite(a.controlMin) || std::isfinite(a.controlMax)) {
    s += ", control [" + formatNumber(a.controlMin) + ", " + formatNumber(a.controlMax) + "]";
  }
  if (a.gravityCompensation) s += ", gravity compensation";
  return s;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

void printText(std::ostream& os, const Topology& t, const io::ImportReport& report) {
  os << report.file << " (" << report.format << "): " << plural(t.multibodies.size(), "multibody", "multibodies")
     << ", " << plural(t.rigidBodies.size(), "rigid body", "rigid bodies") << ", "
     << plural(t.closures.size(), "loop closure", "loop closures") << ", "
     << plural(t.couplers.size(), "coupler", "couplers") << ", " << plural(t.actuators.size(), "actuator", "actuators")
     << "\n";
  os << "total: " << t.dofs << " DoF, " << t.positions << " position coordinates\n";
  for (const MultibodyInfo& m : t.multibodies) {
    os << "\nmultibody " << m.name << ": " << plural(m.joints.size(), "link", "links") << ", " << m.dofs << " DoF, "
       << (m.base == "fixed" || m.base == "floating" ? m.base + " base" : "root joint " + m.base)
       << (m.selfCollision ? ", self-collision" : "") << "\n";
    std::size_t wName = 5, wType = 4, wParent = 6, wDof = 3;
    for (const JointInfo& j : m.joints) {
      if (j.positions != j.dofs) wDof = std::max<std::size_t>(wDof, 9);
      wName = std::max(wName, j.name.size());
      wType = std::max(wType, j.type.size());
      wParent = std::max(wParent, j.parent.size());
    }
    os << "  " << padded("joint", wName) << "  " << padded("type", wType) << "  " << padded("DoF", wDof) << "  "
       << padded("parent", wParent) << "    child (mass)\n";
    for (const JointInfo& j : m.joints) {
      std::string dof = std::to_string(j.dofs);
      if (j.positions != j.dofs) dof += " (nq " + std::to_string(j.positions) + ")";
      os << "  " << padded(j.name, wName) << "  " << padded(j.type, wType) << "  " << padded(dof, wDof) << "  "
         << padded(j.parent, wParent) << " -> " << j.child << " (" << formatNumber(j.childMass) << " kg)\n";
    }
  }
  if (!t.rigidBodies.empty()) {
    os << "\nrigid bodies (6 DoF each):\n";
    for (const auto& [name, mass] : t.rigidBodies) os << "  " << name << " (" << formatNumber(mass) << " kg)\n";
  }
  if (!t.closures.empty()) {
    os << "\nloop closures:\n";
    for (const ClosureInfo& c : t.closures) {
      os << "  " << c.name << ": " << c.family << ", " << c.frameA << " <-> " << c.frameB;
      if (c.cutFrom) os << ", cut from joint " << *c.cutFrom;
      os << "\n";
    }
  }
  if (!t.couplers.empty()) {
    os << "\ncouplers:\n";
    for (const CouplerInfo& c : t.couplers) {
      os << "  " << c.name << ": " << c.follower << " = " << formatNumber(c.ratio) << " * " << c.leader << " + "
         << formatNumber(c.offset) << "\n";
    }
  }
  if (!t.actuators.empty()) {
    os << "\nactuators:\n";
    for (const ActuatorSpec& a : t.actuators) os << "  " << a.name << ": " << actuatorSummary(a) << "\n";
  }
  if (!t.schedules.empty()) {
    os << "\nschedules:\n";
    for (const ScheduleSpec& s : t.schedules) {
      os << "  " << s.name << ": drives " << s.actuator << ", "
         << (s.kind == ScheduleSpec::Kind::Sine   ? "sine"
             : s.kind == ScheduleSpec::Kind::Step ? "step"
                                                  : std::to_string(s.keyframes.size()) + " keyframes")
         << "\n";
    }
  }
  if (!t.viewpoints.empty()) {
    os << "\nviewpoints (render --camera NAME):\n";
    for (const ViewpointSpec& v : t.viewpoints) {
      os << "  " << v.name << ": eye " << formatNumber(v.eye.x()) << "," << formatNumber(v.eye.y()) << ","
         << formatNumber(v.eye.z()) << ", looking at " << formatNumber(v.center.x()) << ","
         << formatNumber(v.center.y()) << "," << formatNumber(v.center.z()) << ", " << formatNumber(v.fovYDegrees)
         << " deg\n";
    }
  }
  os << "\n" << report.toText();
}

void printJson(std::ostream& os, const Topology& t, const io::ImportReport& report) {
  os << "{\n  \"file\": " << jsonString(report.file) << ",\n  \"format\": " << jsonString(report.format)
     << ",\n  \"dofs\": " << t.dofs << ",\n  \"positions\": " << t.positions << ",\n  \"multibodies\": [";
  for (std::size_t i = 0; i < t.multibodies.size(); ++i) {
    const MultibodyInfo& m = t.multibodies[i];
    os << (i ? "," : "") << "\n    {\"name\": " << jsonString(m.name) << ", \"dofs\": " << m.dofs
       << ", \"positions\": " << m.positions << ", \"base\": " << jsonString(m.base)
       << ", \"self_collision\": " << (m.selfCollision ? "true" : "false") << ",\n     \"links\": [";
    for (std::size_t k = 0; k < m.joints.size(); ++k) {
      const JointInfo& j = m.joints[k];
      os << (k ? ", " : "") << "{\"name\": " << jsonString(j.child) << ", \"parent\": " << jsonString(j.parent)
         << ", \"mass\": " << formatNumber(j.childMass) << "}";
    }
    os << "],\n     \"joints\": [";
    for (std::size_t k = 0; k < m.joints.size(); ++k) {
      const JointInfo& j = m.joints[k];
      os << (k ? "," : "") << "\n       {\"name\": " << jsonString(j.name) << ", \"type\": " << jsonString(j.type)
         << ", \"dofs\": " << j.dofs << ", \"positions\": " << j.positions << ", \"parent\": " << jsonString(j.parent)
         << ", \"child\": " << jsonString(j.child) << "}";
    }
    os << "]}";
  }
  os << "],\n  \"rigid_bodies\": [";
  for (std::size_t i = 0; i < t.rigidBodies.size(); ++i) {
    os << (i ? ", " : "") << "{\"name\": " << jsonString(t.rigidBodies[i].first)
       << ", \"dofs\": 6, \"positions\": 7, \"mass\": " << formatNumber(t.rigidBodies[i].second) << "}";
  }
  os << "],\n  \"loop_closures\": [";
  for (std::size_t i = 0; i < t.closures.size(); ++i) {
    const ClosureInfo& c = t.closures[i];
    os << (i ? "," : "") << "\n    {\"name\": " << jsonString(c.name) << ", \"family\": " << jsonString(c.family)
       << ", \"frame_a\": " << jsonString(c.frameA) << ", \"frame_b\": " << jsonString(c.frameB)
       << ", \"cut_from\": " << (c.cutFrom ? jsonString(*c.cutFrom) : std::string("null")) << "}";
  }
  os << "],\n  \"couplers\": [";
  for (std::size_t i = 0; i < t.couplers.size(); ++i) {
    const CouplerInfo& c = t.couplers[i];
    os << (i ? "," : "") << "\n    {\"name\": " << jsonString(c.name) << ", \"leader\": " << jsonString(c.leader)
       << ", \"follower\": " << jsonString(c.follower) << ", \"ratio\": " << formatNumber(c.ratio)
       << ", \"offset\": " << formatNumber(c.offset) << "}";
  }
  os << "],\n  \"actuators\": [";
  for (std::size_t i = 0; i < t.actuators.size(); ++i) {
    const ActuatorSpec& a = t.actuators[i];
    const auto opt = [](const std::optional<double>& x) { return x ? formatNumber(*x) : std::string("null"); };
    const auto fin = [](double x) { return std::isfinite(x) ? formatNumber(x) : std::string("null"); };
    os << (i ? "," : "") << "\n    {\"name\": " << jsonString(a.name) << ", \"joint\": " << jsonString(a.joint)
       << ", \"coordinate\": " << a.coordinate << ", \"type\": " << jsonString(toString(a.type))
       << ", \"gear\": " << formatNumber(a.gear) << ", \"control_range\": [" << fin(a.controlMin) << ", "
       << fin(a.controlMax) << "], \"force_range\": [" << fin(a.forceMin) << ", " << fin(a.forceMax)
       << "], \"kp\": " << opt(a.kp) << ", \"kd\": " << opt(a.kd) << ", \"kv\": " << opt(a.kv)
       << ", \"gravity_compensation\": " << (a.gravityCompensation ? "true" : "false") << "}";
  }
  os << "],\n  \"viewpoints\": [";
  for (std::size_t i = 0; i < t.viewpoints.size(); ++i) {
    const ViewpointSpec& v = t.viewpoints[i];
    const auto point = [](const Vector3d& p) {
      return "[" + formatNumber(p.x()) + ", " + formatNumber(p.y()) + ", " + formatNumber(p.z()) + "]";
    };
    os << (i ? "," : "") << "\n    {\"name\": " << jsonString(v.name) << ", \"eye\": " << point(v.eye)
       << ", \"center\": " << point(v.center) << ", \"fovy\": " << formatNumber(v.fovYDegrees) << "}";
  }
  os << "],\n  \"import_report\": " << report.toJson() << "\n}\n";
}

}  // namespace

int inspectCommand(const std::vector<std::string>& argv) {
  InputOptions input;
  bool json = false;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--json") {
      args.noValue();
      json = true;
    } else if (a == "--scene") {
      input.scene = args.value();
    } else if (parseInputOption(args, a, input)) {
    } else if (!a.empty() && a[0] != '-' && input.file.empty()) {
      input.file = a;
    } else {
      usageError(a.empty() || a[0] != '-' ? "inspect takes one FILE (got '" + a + "' as well)"
                                          : "unknown option '" + a + "' for inspect");
    }
  }
  if (input.file.empty() && input.scene.empty()) usageError("inspect needs a FILE");
  if (!input.file.empty() && !input.scene.empty()) usageError("give either FILE or --scene, not both");
  World world;
  const io::ImportReport report = loadInput(world, input, json);
  const Topology topology = collect(world, report);
  std::ostringstream out;
  if (json) {
    printJson(out, topology, report);
  } else {
    printText(out, topology, report);
  }
  std::cout << out.str() << std::flush;
  return kExitOk;
}

}  // namespace articula::run

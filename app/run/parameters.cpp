#include "parameters.hpp"

#include "cli.hpp"
#include "world_setup.hpp"

#include <articula/error.hpp>
#include <articula/limits.hpp>
#include <articula/world_spec.hpp>

#include <algorithm>
#include <cmath>

namespace articula::run {

const char* parameterSyntax() {
  return "options.{time-step,gravity,gravity-x,gravity-y,gravity-z,solver,integrator}, "
         "body:NAME.{mass,inertia-scale,friction,restitution}, "
         "joint:NAME.{damping,friction,stiffness,armature,rest,lower,upper,effort,velocity-limit}, "
         "actuator:NAME.{kp,kd,kv,ki,gear,ctrl-min,ctrl-max,force-min,force-max,control}, "
         "shape:NAME.{friction,restitution}, material.{friction,restitution}, q:COORDINATE, v:COORDINATE";
}

bool isCoordinateParameter(const std::string& name) {
  return name.rfind("q:", 0) == 0 || name.rfind("v:", 0) == 0;
}

namespace {

[[noreturn]] void fail(const ParameterValue& p, const std::string& problem) {
  throw CliError("parameter " + p.name + ": " + problem);
}

double number(const ParameterValue& p) {
  double x = 0.0;
  try {
    x = parseDouble(p.name, p.text);
  } catch (const CliError&) {
    fail(p, "'" + p.text + "' is not a number");
  }
  if (!std::isfinite(x)) fail(p, "the value must be finite");
  return x;
}

double nonNegative(const ParameterValue& p) {
  const double x = number(p);
  if (x < 0.0) fail(p, "the value must be >= 0 (got " + formatNumber(x) + ")");
  return x;
}

// " (the scene has: a, b, ...)" with at most 12 names, for messages.
std::string known(const std::vector<std::string>& names) {
  if (names.empty()) return " (the scene has none)";
  std::string list;
  for (std::size_t i = 0; i < names.size() && i < 12; ++i) list += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > 12) list += ", ... (" + std::to_string(names.size()) + " in all)";
  return " (the scene has: " + list + ")";
}

std::vector<std::string> bodyNames(const WorldSpec& spec) {
  std::vector<std::string> names;
  for (const RigidBodySpec& b : spec.rigidBodies) names.push_back(b.name);
  for (const MultibodySpec& mb : spec.multibodies) {
    for (const LinkSpec& l : mb.links) names.push_back(l.name);
  }
  return names;
}

// "kind:NAME.field" → (NAME, field).
std::pair<std::string, std::string> objectAndField(const ParameterValue& p, std::size_t prefix) {
  const std::size_t dot = p.name.rfind('.');
  if (dot == std::string::npos || dot <= prefix || dot + 1 == p.name.size()) {
    fail(p, "write KIND:NAME.FIELD (" + std::string(parameterSyntax()) + ")");
  }
  return {p.name.substr(prefix, dot - prefix), p.name.substr(dot + 1)};
}

[[noreturn]] void unknownField(const ParameterValue& p, const std::string& field, const char* fields) {
  fail(p, "unknown field '" + field + "' (" + fields + ")");
}

// The body or link a name addresses: a rigid body, MULTIBODY/LINK, or a link
// name used by one multibody only.
Inertia* findInertia(WorldSpec& spec, const ParameterValue& p, const std::string& name, std::string* owner) {
  if (RigidBodySpec* b = spec.findRigidBody(name)) {
    *owner = b->name;
    return &b->inertia;
  }
  const std::size_t slash = name.find('/');
  if (slash != std::string::npos) {
    if (LinkSpec* l = spec.findLink(name.substr(0, slash), name.substr(slash + 1))) {
      *owner = name;
      return &l->inertia;
    }
    fail(p, "no rigid body or link named '" + name + "'" + known(bodyNames(spec)));
  }
  Inertia* found = nullptr;
  int count = 0;
  for (MultibodySpec& mb : spec.multibodies) {
    for (LinkSpec& l : mb.links) {
      if (l.name != name) continue;
      found = &l.inertia;
      *owner = mb.name + "/" + l.name;
      ++count;
    }
  }
  if (count > 1) fail(p, "several multibodies have a link named '" + name + "'; write MULTIBODY/" + name);
  if (!found) fail(p, "no rigid body or link named '" + name + "'" + known(bodyNames(spec)));
  return found;
}

JointSpec* findJoint(WorldSpec& spec, const ParameterValue& p, const std::string& name) {
  const std::size_t slash = name.find('/');
  JointSpec* found = nullptr;
  int count = 0;
  for (MultibodySpec& mb : spec.multibodies) {
    for (LinkSpec& l : mb.links) {
      const bool match = slash == std::string::npos
                             ? l.joint.name == name
                             : mb.name == name.substr(0, slash) && l.joint.name == name.substr(slash + 1);
      if (!match) continue;
      found = &l.joint;
      ++count;
    }
  }
  if (count > 1) fail(p, "several multibodies have a joint named '" + name + "'; write MULTIBODY/" + name);
  if (!found) {
    std::vector<std::string> names;
    for (const MultibodySpec& mb : spec.multibodies) {
      for (const LinkSpec& l : mb.links) {
        if (l.joint.type != JointType::Weld) names.push_back(l.joint.name);
      }
    }
    fail(p, "no joint named '" + name + "'" + known(names));
  }
  return found;
}

void setJointField(JointSpec& joint, const ParameterValue& p, const std::string& field) {
  const int n = numDofs(joint.type);
  if (n == 0) fail(p, "the joint is a weld joint: it has no degrees of freedom");
  auto all = [n](VectorXd& values, double x) { values = VectorXd::Constant(n, x); };
  if (field == "damping") {
    all(joint.damping, nonNegative(p));
  } else if (field == "friction") {
    all(joint.coulombFriction, nonNegative(p));
  } else if (field == "stiffness") {
    all(joint.springStiffness, nonNegative(p));
  } else if (field == "armature") {
    all(joint.armature, nonNegative(p));
  } else if (field == "rest") {
    all(joint.restPositions, number(p));
  } else if (field == "lower") {
    all(joint.positionLowerLimits, number(p));
  } else if (field == "upper") {
    all(joint.positionUpperLimits, number(p));
  } else if (field == "effort") {
    all(joint.effortLimits, nonNegative(p));
  } else if (field == "velocity-limit") {
    all(joint.velocityLimits, nonNegative(p));
  } else {
    unknownField(p, field, "damping, friction, stiffness, armature, rest, lower, upper, effort, velocity-limit");
  }
}

void setActuatorField(ActuatorSpec& a, const ParameterValue& p, const std::string& field) {
  // A gain the actuator's type does not use would change nothing: say so.
  const bool servo = a.type == ActuatorType::PositionServo || a.type == ActuatorType::Pid;
  const bool usesGain = (field == "kp" && servo) || (field == "kd" && servo) ||
                        (field == "kv" && a.type == ActuatorType::VelocityServo) ||
                        (field == "ki" && a.type == ActuatorType::Pid);
  if ((field == "kp" || field == "kd" || field == "kv" || field == "ki") && !usesGain) {
    fail(p, "actuator " + a.name + " is a " + toString(a.type) + " actuator, which has no " + field +
                " (kp, kd: position and pid; kv: velocity; ki: pid)");
  }
  if (field == "kp") {
    a.kp = nonNegative(p);
  } else if (field == "kd") {
    a.kd = nonNegative(p);
  } else if (field == "kv") {
    a.kv = nonNegative(p);
  } else if (field == "ki") {
    a.ki = nonNegative(p);
  } else if (field == "gear") {
    a.gear = number(p);
    if (!(a.gear > 0.0)) fail(p, "the gear must be > 0");
  } else if (field == "ctrl-min") {
    a.controlMin = number(p);
  } else if (field == "ctrl-max") {
    a.controlMax = number(p);
  } else if (field == "force-min") {
    a.forceMin = number(p);
  } else if (field == "force-max") {
    a.forceMax = number(p);
  } else if (field == "control") {
    a.control = number(p);
  } else {
    unknownField(p, field, "kp, kd, kv, ki, gear, ctrl-min, ctrl-max, force-min, force-max, control");
  }
}

void setMaterialField(Material& m, const ParameterValue& p, const std::string& field) {
  if (field == "friction") {
    m.friction = nonNegative(p);
  } else if (field == "restitution") {
    m.restitution = nonNegative(p);
    if (m.restitution > 1.0) fail(p, "the restitution must be in [0, 1]");
  } else {
    unknownField(p, field, "friction, restitution");
  }
}

void setOption(WorldOptions& o, const ParameterValue& p, const std::string& field) {
  if (field == "time-step") {
    o.timeStep = number(p);
    if (o.timeStep < kMinTimeStep || o.timeStep > kMaxTimeStep) {
      fail(p, formatNumber(o.timeStep) + " is outside [" + formatNumber(kMinTimeStep) + ", " +
                  formatNumber(kMaxTimeStep) + "] s");
    }
  } else if (field == "gravity") {
    try {
      o.gravity = parseVector3(p.name, p.text);
    } catch (const CliError&) {
      fail(p, "write X,Y,Z (got '" + p.text + "')");
    }
  } else if (field == "gravity-x" || field == "gravity-y" || field == "gravity-z") {
    o.gravity[field.back() - 'x'] = number(p);
  } else if (field == "solver") {
    if (!isSolverMethod(p.text)) fail(p, "unknown solver '" + p.text + "' (" + solverMethodList() + ")");
    o.solver.method = p.text;
  } else if (field == "integrator") {
    const std::optional<Integrator> integrator = integratorFromName(p.text);
    if (!integrator) fail(p, "unknown integrator '" + p.text + "' (semi-implicit-euler or rk4)");
    o.integrator = *integrator;
  } else {
    unknownField(p, field, "time-step, gravity, gravity-x, gravity-y, gravity-z, solver, integrator");
  }
}

}  // namespace

void applyParameters(World& world, const std::vector<ParameterValue>& parameters) {
  bool design = false;
  for (const ParameterValue& p : parameters) design = design || !isCoordinateParameter(p.name);
  if (!design) return;
  WorldSpec spec = world.getSpec();
  for (const ParameterValue& p : parameters) {
    const std::string& n = p.name;
    if (isCoordinateParameter(n)) continue;
    if (n.rfind("options.", 0) == 0) {
      setOption(spec.options, p, n.substr(8));
    } else if (n.rfind("material.", 0) == 0) {
      Material check;  // the name and value are checked even without shapes
      setMaterialField(check, p, n.substr(9));
      for (ShapeSpec& s : spec.shapes) {
        if (s.collision) setMaterialField(s.material, p, n.substr(9));
      }
    } else if (n.rfind("body:", 0) == 0) {
      const auto [name, field] = objectAndField(p, 5);
      std::string owner;
      Inertia* inertia = findInertia(spec, p, name, &owner);
      if (field == "mass") {
        const double mass = nonNegative(p);
        if (inertia->mass > 0.0) inertia->rotational *= mass / inertia->mass;
        inertia->mass = mass;
      } else if (field == "inertia-scale") {
        inertia->rotational *= nonNegative(p);
      } else if (field == "friction" || field == "restitution") {
        int shapes = 0;
        for (ShapeSpec& s : spec.shapes) {
          if (!s.collision || s.owner != owner) continue;
          setMaterialField(s.material, p, field);
          ++shapes;
        }
        if (shapes == 0) fail(p, "'" + name + "' has no collision shape");
      } else {
        unknownField(p, field, "mass, inertia-scale, friction, restitution");
      }
    } else if (n.rfind("joint:", 0) == 0) {
      const auto [name, field] = objectAndField(p, 6);
      setJointField(*findJoint(spec, p, name), p, field);
    } else if (n.rfind("actuator:", 0) == 0) {
      const auto [name, field] = objectAndField(p, 9);
      ActuatorSpec* a = spec.findActuator(name);
      if (!a) {
        std::vector<std::string> names;
        for (const ActuatorSpec& x : spec.actuators) names.push_back(x.name);
        fail(p, "no actuator named '" + name + "'" + known(names));
      }
      setActuatorField(*a, p, field);
    } else if (n.rfind("shape:", 0) == 0) {
      const auto [name, field] = objectAndField(p, 6);
      ShapeSpec* s = spec.findShape(name);
      if (!s || !s->collision) {
        std::vector<std::string> names;
        for (const ShapeSpec& x : spec.shapes) {
          if (x.collision) names.push_back(x.name);
        }
        fail(p, "no collision shape named '" + name + "'" + known(names));
      }
      setMaterialField(s->material, p, field);
    } else {
      fail(p, "unknown parameter (" + std::string(parameterSyntax()) + ")");
    }
  }
  try {
    world.applySpec(spec);
  } catch (const Error& e) {
    throw CliError(std::string("the parameters make an invalid world: ") + e.what());
  }
}

}  // namespace articula::run

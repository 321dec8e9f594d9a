#include "world_setup.hpp"

#include <articula/io/state_columns.hpp>

#include <articula/articula.hpp>

#include <articula/file_io.hpp>
#include <articula/io/import.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <system_error>

namespace fs = std::filesystem;

namespace articula::run {

namespace {

const std::string kBuiltinPrefix = "builtin:";
const std::string kPackagePathKey = "package-path.";
const std::string kParamKey = "param.";

void removeCollisionShapes(World& world) {
  std::vector<Shape> shapes = world.getCollisionShapes(Frame::World());
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) {
      for (const Shape& s : link.getCollisionShapes()) shapes.push_back(s);
    }
  }
  for (const RigidBody& body : world.getRigidBodies()) {
    for (const Shape& s : body.getCollisionShapes()) shapes.push_back(s);
  }
  for (const Shape& s : shapes) world.remove(s);
}

// Applies the v: parameters (initial velocities).
void applyInitialVelocities(World& world, const std::vector<ParameterValue>& params) {
  std::optional<StateColumns> columns;
  VectorXd v;
  for (const ParameterValue& p : params) {
    if (p.name.rfind("v:", 0) != 0) continue;
    if (!columns) {
      columns.emplace(world);
      v = world.getVelocities();
    }
    const std::vector<std::string>& names = columns->velocityNames();
    const auto it = std::find(names.begin(), names.end(), p.name.substr(2));
    if (it == names.end()) {
      throw CliError("parameter " + p.name + ": no velocity coordinate named '" + p.name.substr(2) +
                     "' (the v: columns of the CSV)");
    }
    double x = 0.0;
    try {
      x = parseDouble(p.name, p.text);
    } catch (const CliError&) {
      throw CliError("parameter " + p.name + ": '" + p.text + "' is not a number");
    }
    v[it - names.begin()] = x;
  }
  if (columns) world.setVelocities(v);
}

// Applies --set, then re-assembles the closures with the set coordinates held.
void applyInitialPositions(World& world, const std::vector<std::pair<std::string, double>>& sets) {
  if (sets.empty()) return;
  const StateColumns columns(world);
  VectorXd q = world.getPositions();
  ClosureProjectionOptions projection;
  for (const auto& [name, value] : sets) {
    const StateOwner* owner = nullptr;
    int index = 0;
    try {
      index = columns.resolvePosition(name, &owner);
    } catch (const InvalidArgument& e) {
      throw CliError(std::string("--set: ") + e.what());
    }
    q[index] = value;
    if (owner->joint.empty()) {
      if (auto body = world.getRigidBody(owner->name)) projection.lockedRigidBodies.push_back(*body);
    } else if (auto mb = world.getMultibody(owner->multibody)) {
      if (auto joint = mb->getJoint(owner->joint)) projection.lockedJoints.push_back(*joint);
    }
  }
  world.setPositions(q);
  if (world.numLoopClosures() + world.numJointCouplers() == 0) return;
  const ClosureProjectionResult r = world.projectClosures(projection);
  if (!r.success) {
    char residual[32];
    std::snprintf(residual, sizeof residual, "%.3g", r.finalResidual);
    throw CliError(std::string("--set: the loop closures cannot be closed with the given positions held (residual ") +
                   residual + (r.message.empty() ? std::string() : "; " + r.message) + ")");
  }
}

void applyKeyframe(World& world, const std::string& name) {
  if (!world.getKeyframe(name)) {
    std::string known;
    for (const KeyframeSpec& k : world.getKeyframes()) known += (known.empty() ? "" : ", ") + k.name;
    throw CliError("--keyframe: the scene has no keyframe '" + name + "' (" +
                   (known.empty() ? std::string("it has none") : "it has " + known) + ")");
  }
  try {
    world.applyKeyframe(name);
  } catch (const Error& e) {
    throw CliError(std::string("--keyframe: ") + e.what());
  }
}

const char* rootName(io::RootAttachment root) {
  switch (root) {
    case io::RootAttachment::Fixed:
      return "fixed";
    case io::RootAttachment::Floating:
      return "floating";
    case io::RootAttachment::Default:
      break;
  }
  return "default";
}

[[noreturn]] void badMetadata(const std::string& key, const std::string& value, const std::string& expected) {
  throw CliError("the replay's metadata has " + key + " = '" + value + "'; expected " + expected);
}

}  // namespace

bool parseStartOption(ArgScanner& args, const std::string& option, WorldSetup& setup) {
  if (option == "--set") {
    const std::string s = args.value();
    const std::size_t eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0) usageError("--set expects JOINT=VALUE, got '" + s + "'");
    setup.sets.emplace_back(s.substr(0, eq), parseDouble("--set " + s.substr(0, eq), s.substr(eq + 1)));
    return true;
  }
  if (option == "--param") {
    const std::string s = args.value();
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) usageError("--param expects NAME=VALUE, got '" + s + "'");
    setup.params.push_back({s.substr(0, eq), s.substr(eq + 1)});
    return true;
  }
  if (option == "--keyframe") {
    setup.keyframe = args.value();
    if (setup.keyframe.empty()) usageError("--keyframe needs a keyframe name");
    return true;
  }
  return false;
}

std::string integratorName(Integrator integrator) {
  return integrator == Integrator::RungeKutta4 ? "rk4" : "semi-implicit-euler";
}

std::optional<Integrator> integratorFromName(const std::string& name) {
  if (name == "semi-implicit-euler" || name == "sie") return Integrator::SemiImplicitEuler;
  if (name == "rk4" || name == "runge-kutta-4") return Integrator::RungeKutta4;
  return std::nullopt;
}

bool isSolverMethod(const std::string& method) {
  return isConstraintSolverMethod(method);
}

std::string solverMethodList() {
  std::string list;
  for (const std::string& m : constraintSolverMethods()) list += (list.empty() ? "" : ", ") + m;
  return list;
}

io::ImportReport prepareWorld(World& world, const WorldSetup& setup, bool quiet, bool simulate) {
  io::ImportReport report = loadInput(world, setup.input, quiet);
  if (!quiet) printImportReport(report, setup.input.verbose);

  WorldOptions wo = world.getOptions();
  if (setup.dt) wo.timeStep = *setup.dt;
  if (setup.integrator) wo.integrator = *setup.integrator;
  if (!setup.solver.empty()) wo.solver.method = setup.solver;
  if (setup.gravity) wo.gravity = *setup.gravity;
  world.setOptions(wo);
  if (setup.threads != 1) world.setExecutor(makeThreadPoolExecutor(setup.threads));
  if (setup.noContacts) removeCollisionShapes(world);
  try {
    if (setup.hold) {
      const int added = io::addHoldingServos(world);
      if (!quiet) std::cerr << "--hold: " << added << " position servo(s) hold the initial pose\n";
    }
    if (!setup.controls.empty()) {
      for (const ScheduleSpec& s : readControlsCsv(setup.controls, world, setup.controlsHold)) {
        world.removeSchedule(s.name);
        world.addSchedule(s);
      }
    }
  } catch (const CliError&) {
    throw;
  } catch (const Error& e) {
    throw CliError(e.what());
  }
  // Design parameters after --hold and --controls (the servos --hold adds
  // can be swept too), before the keyframe and the initial coordinates.
  applyParameters(world, setup.params);
  if (!setup.keyframe.empty()) applyKeyframe(world, setup.keyframe);
  std::vector<std::pair<std::string, double>> sets = setup.sets;
  const StateColumns columns(world);
  for (const ParameterValue& p : setup.params) {
    if (p.name.rfind("q:", 0) != 0) continue;
    try {
      columns.resolvePosition(p.name);
    } catch (const InvalidArgument& e) {
      throw CliError("parameter " + p.name + ": " + e.what());
    }
    try {
      sets.emplace_back(p.name, parseDouble(p.name, p.text));
    } catch (const CliError&) {
      throw CliError("parameter " + p.name + ": '" + p.text + "' is not a number");
    }
  }
  applyInitialPositions(world, sets);
  applyInitialVelocities(world, setup.params);
  if (!simulate) return report;
  try {
    world.enterSimulationMode();
  } catch (const Error& e) {
    throw CliError(std::string("the scene cannot be simulated: ") + e.what());
  }
  return report;
}

void describeSetup(Recording& recording, const WorldSetup& setup, const World& world) {
  if (setup.input.file.empty()) {
    recording.setSceneReference(kBuiltinPrefix + setup.input.scene);
  } else {
    std::error_code ec;
    const fs::path absolute = fs::absolute(setup.input.file, ec);
    recording.setSceneReference(ec ? setup.input.file : absolute.lexically_normal().string());
  }
  recording.setMetadata("root", rootName(setup.input.import.root));
  recording.setMetadata("no-contacts", setup.noContacts ? "1" : "0");
  if (setup.hold) recording.setMetadata("hold", "1");
  if (!setup.controls.empty()) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(setup.controls, ec);
    recording.setMetadata("controls", ec ? setup.controls : absolute.lexically_normal().string());
    recording.setMetadata("controls-interpolation", setup.controlsHold ? "hold" : "linear");
  }
  if (setup.input.import.addGroundPlane) recording.setMetadata("ground", formatNumber(setup.input.import.groundHeight));
  const std::vector<fs::path>& packages = setup.input.import.packagePath;
  for (std::size_t k = 0; k < packages.size(); ++k) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(packages[k], ec);
    recording.setMetadata(kPackagePathKey + std::to_string(k),
                          ec ? packages[k].string() : absolute.lexically_normal().string());
  }
  const WorldOptions& wo = world.getOptions();
  int index = 0;
  for (const ParameterValue& p : setup.params) {
    // Coordinates are in the frames; the design parameters rebuild the world.
    if (!isCoordinateParameter(p.name))
      recording.setMetadata(kParamKey + std::to_string(index++), p.name + "=" + p.text);
  }
  recording.setMetadata("dt", formatNumber(wo.timeStep));
  recording.setMetadata("integrator", integratorName(wo.integrator));
  recording.setMetadata("solver", wo.solver.method);
  recording.setMetadata("gravity", formatNumber(wo.gravity.x()) + "," + formatNumber(wo.gravity.y()) + "," +
                                       formatNumber(wo.gravity.z()));
}

WorldSetup setupFromRecording(const Recording& recording, const std::string& scene,
                              const std::vector<fs::path>& packagePaths) {
  WorldSetup s;
  if (scene.empty()) {
    const std::string& reference = recording.sceneReference();
    if (reference.empty()) throw CliError("the replay names no scene; give one with --scene");
    if (reference.rfind(kBuiltinPrefix, 0) == 0) {
      s.input.scene = reference.substr(kBuiltinPrefix.size());
    } else {
      s.input.file = reference;
    }
  } else if (scene.rfind(kBuiltinPrefix, 0) == 0) {
    s.input.scene = scene.substr(kBuiltinPrefix.size());
  } else if (looksLikeFile(scene)) {
    s.input.file = scene;
  } else {
    s.input.scene = scene;
  }

  const std::map<std::string, std::string>& meta = recording.metadata();
  auto value = [&](const std::string& key) -> const std::string* {
    const auto it = meta.find(key);
    return it == meta.end() ? nullptr : &it->second;
  };
  if (const std::string* root = value("root")) {
    if (*root == "fixed") {
      s.input.import.root = io::RootAttachment::Fixed;
    } else if (*root == "floating") {
      s.input.import.root = io::RootAttachment::Floating;
    } else if (*root != "default") {
      badMetadata("root", *root, "default, fixed or floating");
    }
    s.input.rootGiven = s.input.import.root != io::RootAttachment::Default;
  }
  if (const std::string* ground = value("ground")) {
    try {
      s.input.import.groundHeight = parseDouble("ground", *ground);
    } catch (const CliError&) {
      badMetadata("ground", *ground, "a number");
    }
    s.input.import.addGroundPlane = true;
    s.input.groundGiven = true;
  }
  if (const std::string* noContacts = value("no-contacts")) {
    if (*noContacts != "0" && *noContacts != "1") badMetadata("no-contacts", *noContacts, "0 or 1");
    s.noContacts = *noContacts == "1";
  }
  if (const std::string* hold = value("hold")) {
    if (*hold != "0" && *hold != "1") badMetadata("hold", *hold, "0 or 1");
    s.hold = *hold == "1";
  }
  if (const std::string* controls = value("controls")) s.controls = *controls;
  if (const std::string* mode = value("controls-interpolation")) {
    if (*mode != "hold" && *mode != "linear") badMetadata("controls-interpolation", *mode, "hold or linear");
    s.controlsHold = *mode == "hold";
  }
  s.input.import.packagePath = packagePaths;
  for (std::size_t k = 0;; ++k) {
    const std::string* dir = value(kPackagePathKey + std::to_string(k));
    if (dir == nullptr) break;
    s.input.import.packagePath.emplace_back(*dir);
  }
  for (std::size_t k = 0;; ++k) {
    const std::string* param = value(kParamKey + std::to_string(k));
    if (param == nullptr) break;
    const std::size_t eq = param->find('=');
    if (eq == std::string::npos) badMetadata(kParamKey + std::to_string(k), *param, "NAME=VALUE");
    s.params.push_back({param->substr(0, eq), param->substr(eq + 1)});
  }
  if (const std::string* dt = value("dt")) {
    try {
      s.dt = parseDouble("dt", *dt);
    } catch (const CliError&) {
      badMetadata("dt", *dt, "a number");
    }
    if (*s.dt <= 0.0) badMetadata("dt", *dt, "a positive number");
  }
  if (const std::string* integrator = value("integrator")) {
    s.integrator = integratorFromName(*integrator);
    if (!s.integrator) badMetadata("integrator", *integrator, "semi-implicit-euler or rk4");
  }
  if (const std::string* solver = value("solver")) {
    if (!isSolverMethod(*solver)) {
      badMetadata("solver", *solver, "one of " + solverMethodList());
    }
    s.solver = *solver;
  }
  if (const std::string* gravity = value("gravity")) {
    try {
      s.gravity = parseVector3("gravity", *gravity);
    } catch (const CliError&) {
      badMetadata("gravity", *gravity, "X,Y,Z");
    }
  }
  return s;
}

std::vector<ScheduleSpec> readControlsCsv(const std::string& file, const World& world, bool hold) {
  std::string text;
  try {
    text = readInputFile(file, std::uint64_t{256} << 20, "a controls file");
  } catch (const FileAccessError& e) {
    throw CliError(std::string("--controls: ") + e.what());
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;
  std::size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string l = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.find_first_not_of(" \t") == std::string::npos || l[l.find_first_not_of(" \t")] == '#') continue;
    std::vector<std::string> fields;
    std::size_t s = 0;
    while (true) {
      const std::size_t comma = l.find(',', s);
      std::string f = l.substr(s, comma == std::string::npos ? std::string::npos : comma - s);
      const auto b = f.find_first_not_of(" \t");
      const auto e = f.find_last_not_of(" \t");
      fields.push_back(b == std::string::npos ? std::string() : f.substr(b, e - b + 1));
      if (comma == std::string::npos) break;
      s = comma + 1;
    }
    rows.push_back(std::move(fields));
    lines.push_back(line);
  }
  const auto fail = [&](int ln, const std::string& problem) -> void {
    throw CliError("--controls: " + file + ":" + std::to_string(ln) + ": " + problem);
  };
  if (rows.empty()) fail(1, "the file is empty; expected a header \"time,ACTUATOR,...\"");
  const std::vector<std::string>& header = rows.front();
  if (header.front() != "time" && header.front() != "t") {
    fail(lines.front(), "the first column must be 'time' (got '" + header.front() + "')");
  }
  if (header.size() < 2) fail(lines.front(), "no actuator columns after 'time'");
  std::vector<ScheduleSpec> schedules;
  for (std::size_t c = 1; c < header.size(); ++c) {
    std::string name = header[c];
    if (name.rfind("ctrl:", 0) == 0) name = name.substr(5);
    if (!world.hasActuator(name)) {
      std::string known;
      for (const Actuator& a : world.getActuators()) known += (known.empty() ? "" : ", ") + a.name();
      fail(lines.front(), "column '" + header[c] + "': no actuator '" + name +
                              "' (the world has: " + (known.empty() ? std::string("none; see --hold") : known) + ")");
    }
    ScheduleSpec s;
    s.name = "controls:" + name;
    s.actuator = name;
    s.interpolation = hold ? ScheduleSpec::Interpolation::Hold : ScheduleSpec::Interpolation::Linear;
    schedules.push_back(std::move(s));
  }
  double previous = -std::numeric_limits<double>::infinity();
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != header.size()) {
      fail(lines[r], "expected " + std::to_string(header.size()) + " fields, found " + std::to_string(rows[r].size()));
    }
    std::vector<double> values;
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      char* end = nullptr;
      const double x = std::strtod(rows[r][c].c_str(), &end);
      if (rows[r][c].empty() || *end != '\0' || !std::isfinite(x)) {
        fail(lines[r], "field " + std::to_string(c + 1) + " '" + rows[r][c] + "' is not a finite number");
      }
      values.push_back(x);
    }
    if (!(values[0] > previous))
      fail(lines[r], "times must increase (" + rows[r][0] + " after " + formatNumber(previous) + ")");
    previous = values[0];
    for (std::size_t c = 1; c < values.size(); ++c) schedules[c - 1].keyframes.emplace_back(values[0], values[c]);
  }
  if (rows.size() < 2) fail(lines.front(), "no rows of controls after the header");
  return schedules;
}

}  // namespace articula::run

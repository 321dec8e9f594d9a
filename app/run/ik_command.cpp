// `articula-run ik`: inverse kinematics from a file's initial state.
#include <articula/io/state_columns.hpp>
#include "cli.hpp"
#include "commands.hpp"
#include "world_setup.hpp"

#include <articula/error.hpp>
#include <articula/ik.hpp>
#include <articula/io/scene_file.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace articula::run {

namespace {

namespace fs = std::filesystem;

struct Target {
  std::string frame;
  Vector3d position = Vector3d::Zero();
  std::optional<Matrix3d> rotation;  // from roll, pitch, yaw
};

struct IkCommandOptions {
  WorldSetup setup;
  std::vector<Target> targets;
  std::vector<std::string> pins;
  std::vector<std::string> positionPins;  // --pin-position: the origin only
  bool posture = false;
  int restarts = 10;
  int maxIterations = 100;
  bool json = false;
  bool quiet = false;
  std::optional<double> positionTolerance, orientationTolerance;
  std::string out;
};

Target parseTarget(const std::string& text) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0)
    usageError("--target expects FRAME=X,Y,Z[,ROLL,PITCH,YAW], got '" + text + "'");
  Target t;
  t.frame = text.substr(0, eq);
  std::vector<double> values;
  std::stringstream list(text.substr(eq + 1));
  std::string item;
  while (std::getline(list, item, ',')) values.push_back(parseDouble("--target " + t.frame, item));
  if (values.size() != 3 && values.size() != 6) {
    usageError("--target " + t.frame + ": expected 3 numbers (X,Y,Z) or 6 (X,Y,Z,ROLL,PITCH,YAW), got " +
               std::to_string(values.size()));
  }
  t.position = Vector3d(values[0], values[1], values[2]);
  if (values.size() == 6) {
    t.rotation = (Eigen::AngleAxisd(values[5], Vector3d::UnitZ()) * Eigen::AngleAxisd(values[4], Vector3d::UnitY()) *
                  Eigen::AngleAxisd(values[3], Vector3d::UnitX()))
                     .toRotationMatrix();
  }
  return t;
}

IkCommandOptions parseIk(const std::vector<std::string>& argv) {
  IkCommandOptions o;
  InputOptions& input = o.setup.input;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--target") {
      o.targets.push_back(parseTarget(args.value()));
    } else if (a == "--pin") {
      o.pins.push_back(args.value());
      if (o.pins.back().empty()) usageError("--pin needs a frame name");
    } else if (a == "--pin-position") {
      o.positionPins.push_back(args.value());
      if (o.positionPins.back().empty()) usageError("--pin-position needs a frame name");
    } else if (a == "--posture") {
      args.noValue();
      o.posture = true;
    } else if (a == "--restarts") {
      const long n = parseLong(a, args.value());
      if (n < 0 || n > 10000) usageError("--restarts must be in [0, 10000]");
      o.restarts = static_cast<int>(n);
    } else if (a == "--max-iterations") {
      const long n = parseLong(a, args.value());
      if (n < 1 || n > 1000000) usageError("--max-iterations must be in [1, 1000000]");
      o.maxIterations = static_cast<int>(n);
    } else if (a == "--json") {
      args.noValue();
      o.json = true;
    } else if (a == "--quiet" || a == "-q") {
      args.noValue();
      o.quiet = true;
    } else if (a == "--tolerance") {
      const std::string text = args.value();
      const std::size_t comma = text.find(',');
      o.positionTolerance = parseDouble(a, text.substr(0, comma));
      o.orientationTolerance =
          comma == std::string::npos ? *o.positionTolerance : parseDouble(a, text.substr(comma + 1));
      if (!(*o.positionTolerance > 0.0) || !(*o.orientationTolerance > 0.0)) {
        usageError("--tolerance expects M[,RAD], both > 0");
      }
    } else if (a == "--out") {
      o.out = args.value();
      if (o.out.empty()) usageError("--out needs a file name");
    } else if (parseStartOption(args, a, o.setup)) {
    } else if (a == "--scene") {
      input.scene = args.value();
    } else if (parseInputOption(args, a, input)) {
    } else if (!a.empty() && a[0] != '-' && input.file.empty()) {
      input.file = a;
    } else if (!a.empty() && a[0] != '-') {
      usageError("ik takes one FILE (got '" + input.file + "' and '" + a + "')");
    } else {
      usageError("unknown option '" + a + "'");
    }
  }
  if (!input.file.empty() && !input.scene.empty()) usageError("give either FILE or --scene, not both");
  if (input.file.empty() && input.scene.empty())
    usageError("ik needs a FILE (.articula, .urdf, .sdf, .world or MJCF .xml)");
  if (o.targets.empty()) usageError("ik needs at least one --target FRAME=X,Y,Z[,ROLL,PITCH,YAW]");
  if (!o.out.empty()) {
    if (fs::path(o.out).extension() != ".articula") usageError("--out writes a scene: give a .articula file");
    checkOutputOption("--out", o.out);
    if (!input.file.empty() && sameFile(o.out, input.file))
      usageError(o.out + " is the input file; it would be overwritten");
  }
  return o;
}

// Levenshtein distance (for suggestions).
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string number(double x) {
  return formatNumber(x);
}

// Roll, pitch, yaw as in URDF (R = Rz(yaw)·Ry(pitch)·Rx(roll)), pitch in [−π/2, π/2].
Vector3d rollPitchYaw(const Matrix3d& R) {
  return {std::atan2(R(2, 1), R(2, 2)), std::atan2(-R(2, 0), std::hypot(R(0, 0), R(1, 0))),
          std::atan2(R(1, 0), R(0, 0))};
}

}  // namespace

// A link ("LINK" when unique, or "MULTIBODY/LINK"), rigid body or user frame.
Frame resolveFrame(const World& world, const std::string& name, const char* option) {
  const std::size_t slash = name.find('/');
  if (slash != std::string::npos) {
    if (auto mb = world.getMultibody(name.substr(0, slash))) {
      if (auto link = mb->getLink(name.substr(slash + 1))) return *link;
    }
    throw CliError(std::string(option) + ": no link '" + name + "'");
  }
  std::vector<Frame> found;
  std::vector<std::string> owners;
  for (const Multibody& mb : world.getMultibodies()) {
    if (auto link = mb.getLink(name)) {
      found.push_back(*link);
      owners.push_back(mb.name() + "/" + name);
    }
  }
  if (found.size() > 1) {
    std::string list;
    for (const auto& n : owners) list += (list.empty() ? "" : ", ") + n;
    throw CliError(std::string(option) + ": '" + name + "' names several links (" + list + "); write MULTIBODY/LINK");
  }
  if (found.size() == 1) return found.front();
  if (auto f = world.getFrame(name)) return *f;
  if (auto b = world.getRigidBody(name)) return *b;
  // A joint's name: its child link is meant.
  for (const Multibody& mb : world.getMultibodies()) {
    if (auto joint = mb.getJoint(name)) {
      throw CliError(std::string(option) + ": '" + name + "' is a joint; its child link is '" +
                     joint->getChildLink().name() + "'");
    }
  }
  // Names that differ a little (case, a letter or two) or contain each other.
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  const std::string wanted = lower(name);
  std::string hint;
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& l : mb.getLinks()) {
      const std::string full = l.name();
      const std::string leaf = lower(full.substr(full.find('/') + 1));
      const bool close = leaf.find(wanted) != std::string::npos || wanted.find(leaf) != std::string::npos ||
                         editDistance(leaf, wanted) <= 2;
      if (close) hint += (hint.empty() ? "" : ", ") + full;
    }
  }
  throw CliError(
      std::string(option) + ": no link, rigid body or frame named '" + name + "'" +
      (hint.empty() ? std::string(" ('articula-run inspect FILE' lists them)") : " (did you mean " + hint + "?)"));
}

int ikCommand(const std::vector<std::string>& argv) {
  const IkCommandOptions o = parseIk(argv);
  World world;
  prepareWorld(world, o.setup, o.json || o.quiet, /*simulate=*/false);

  IkOptions options;
  options.maxRestarts = o.restarts;
  options.maxIterations = o.maxIterations;
  if (o.positionTolerance) options.positionTolerance = *o.positionTolerance;
  if (o.orientationTolerance) options.orientationTolerance = *o.orientationTolerance;
  if (o.posture) options.postureIterations = 30;
  // A start outside the joint limits is moved inside them first: say which.
  if (!o.quiet && !o.json) {
    for (const Multibody& mb : world.getMultibodies()) {
      for (const Joint& j : mb.getJoints()) {
        if (j.numPositions() != j.numDofs()) continue;
        const JointSpec s = j.getSpec();
        for (int k = 0; k < j.numDofs() && k < s.positionLowerLimits.size(); ++k) {
          const double x = j.getPosition(k);
          if (x < s.positionLowerLimits[k] || x > s.positionUpperLimits[k]) {
            std::cerr << "articula-run: note: " << mb.name() << "/" << j.name() << " starts at " << number(x)
                      << ", outside its limits [" << number(s.positionLowerLimits[k]) << ", "
                      << number(s.positionUpperLimits[k]) << "]; the solve starts at the nearest limit\n";
          }
        }
      }
    }
  }
  InverseKinematics ik(world, options);
  std::vector<Frame> taskFrames;  // of the tasks in order (pins, then targets)
  for (const std::string& pin : o.pins) {
    const Frame f = resolveFrame(world, pin, "--pin");
    ik.pin(f, "pin " + pin);
    taskFrames.push_back(f);
  }
  for (const std::string& pin : o.positionPins) {
    const Frame f = resolveFrame(world, pin, "--pin-position");
    IkTaskOptions held;
    held.priority = 0;
    held.name = "pin " + pin;
    ik.addPositionTask(f, f.getWorldTransform().translation(), held);
    taskFrames.push_back(f);
  }
  for (const Target& t : o.targets) {
    const Frame f = resolveFrame(world, t.frame, "--target");
    taskFrames.push_back(f);
    IkTaskOptions to;
    to.name = t.frame;
    if (t.rotation) {
      Isometry3d X = Isometry3d::Identity();
      X.linear() = *t.rotation;
      X.translation() = t.position;
      ik.addPoseTask(f, X, to);
    } else {
      ik.addPositionTask(f, t.position, to);
    }
  }
  if (o.posture) ik.addPostureTask(world.getPositions());
  const IkResult& r = ik.solve();

  const StateColumns columns(world);
  const VectorXd q = world.getPositions();
  // Where each task's frame is now: x, y, z, roll, pitch, yaw (world).
  auto poseOf = [&](std::size_t task) {
    const Isometry3d X = taskFrames[task].getWorldTransform();
    const Vector3d rpy = rollPitchYaw(X.linear());
    std::array<double, 6> p{X.translation().x(), X.translation().y(), X.translation().z(), rpy[0], rpy[1], rpy[2]};
    return p;
  };
  if (o.json) {
    std::cout << "{\"converged\": " << (r.converged ? "true" : "false") << ", \"iterations\": " << r.iterations
              << ", \"restarts\": " << r.restarts << ", \"constraint_residual\": " << number(r.constraintResidual)
              << ",\n \"tasks\": [";
    for (std::size_t i = 0; i < r.tasks.size(); ++i) {
      const IkTaskResult& t = r.tasks[i];
      std::cout << (i == 0 ? "" : ",") << "\n  {\"name\": " << jsonString(t.name) << ", \"kind\": \""
                << toString(t.kind) << "\", \"position_error\": " << number(t.position)
                << ", \"orientation_error\": " << number(t.orientation);
      if (t.kind == IkTaskKind::Posture) std::cout << ", \"posture_error\": " << number(t.norm);
      std::cout << ", \"reached\": " << (t.reached ? "true" : "false");
      if (i < taskFrames.size()) {
        const auto p = poseOf(i);
        std::cout << ", \"at\": [";
        for (std::size_t k = 0; k < 6; ++k) std::cout << (k == 0 ? "" : ", ") << number(p[k]);
        std::cout << "]";
      }
      std::cout << "}";
    }
    std::cout << "],\n \"q\": {";
    for (int i = 0; i < q.size(); ++i) {
      std::cout << (i == 0 ? "" : ", ") << jsonString("q:" + columns.positionNames()[static_cast<std::size_t>(i)])
                << ": " << number(q[i]);
    }
    std::cout << "}";
    if (!r.converged) std::cout << ",\n \"message\": " << jsonString(r.message);
    std::cout << "}\n";
  } else {
    std::cout << (r.converged ? "converged" : "not converged: " + r.message) << " (" << r.iterations << " iterations, "
              << r.restarts << " restarts";
    if (!r.converged) {
      std::cout << "; tolerance " << number(options.positionTolerance) << " m, " << number(options.orientationTolerance)
                << " rad, --tolerance to change; the closest pose found follows";
    }
    std::cout << ")\n";
    for (std::size_t i = 0; i < r.tasks.size(); ++i) {
      const IkTaskResult& t = r.tasks[i];
      if (t.kind == IkTaskKind::Posture) continue;
      std::cout << "task " << t.name << ": position error " << number(t.position) << " m";
      if (t.kind == IkTaskKind::Pose || t.kind == IkTaskKind::Orientation) {
        std::cout << ", orientation error " << number(t.orientation) << " rad";
      }
      std::cout << (t.reached ? "" : "  (not reached)");
      if (i < taskFrames.size()) {
        const auto p = poseOf(i);
        std::cout << "; at " << number(p[0]) << "," << number(p[1]) << "," << number(p[2]) << " roll,pitch,yaw "
                  << number(p[3]) << "," << number(p[4]) << "," << number(p[5]);
      }
      std::cout << "\n";
    }
    if (world.numLoopClosures() + world.numJointCouplers() > 0) {
      std::cout << "largest closure/coupler residual " << number(r.constraintResidual) << "\n";
    }
    for (int i = 0; i < q.size(); ++i) {
      std::cout << "q:" << columns.positionNames()[static_cast<std::size_t>(i)] << " = " << number(q[i]) << "\n";
    }
  }
  if (!o.out.empty()) {
    try {
      io::saveScene(world, o.out);
    } catch (const Error& e) {
      throw CliError(std::string("--out: ") + e.what());
    }
    if (!o.json) std::cout << "wrote " << o.out << "\n";
  }
  std::cout << std::flush;
  return r.converged ? kExitOk : kExitNotConverged;
}

}  // namespace articula::run

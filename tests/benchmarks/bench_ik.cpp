// Inverse kinematics solve times (articula/ik.hpp, docs/ik.md), each solve
// timed on its own with InverseKinematics::solve(q0, q):
//
//   - TALOS (talos_reduced.urdf, floating base): both soles pinned
//     (InverseKinematics::pin), a pose task on gripper_left_base_link and a
//     posture task towards the initial configuration.
//       drag: each target 1–3 cm and 1–3° from the hand's pose at the
//             previous solution, which is also the start (a hand dragged
//             about; a step that would leave 10 cm or 15° from the initial
//             pose goes back towards it instead);
//       far:  targets 10–20 cm and 5–15° from the initial hand pose, each
//             solve from the initial configuration.
//   - UR5 (tool0) and Panda (panda_hand), fixed base: pose targets from
//     forward kinematics of uniformly random in-limit configurations, each
//     solve from the file's initial configuration, with up to 30 restarts
//     (the settings of tests/io/test_ik.cpp).
//   - Variants of the TALOS drag: without the posture task, and with
//     position and orientation tolerances of 1e-6 (m, rad) instead of 1e-10.
//
// Random numbers have fixed seeds. Reported per case: the median and 95th
// percentile time per solve, mean iterations (over all attempts) and
// restarts, and how many solves converged.
//
//   articula-bench-ik [--quick] [--json FILE]
#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include "robot_poses.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

const fs::path kModels = ARTICULA_MODELS_DIR;
const fs::path kRobots = kModels / "example-robot-data" / "robots";

io::ImportOptions importOptions(io::RootAttachment root) {
  return articula::test::robotImportOptions(root);
}

using articula::test::frameNamed;
using articula::test::randomConfiguration;

Vector3d randomUnit(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  for (;;) {
    const Vector3d v(n(rng), n(rng), n(rng));
    if (v.norm() > 1e-6) return v.normalized();
  }
}

double angleBetween(const Matrix3d& a, const Matrix3d& b) {
  return Eigen::AngleAxisd(a.transpose() * b).angle();
}

// What one case measured.
struct Case {
  std::string name;
  std::string robot;
  int dofs = 0;
  std::vector<double> ms;  // per solve
  long iterations = 0;
  long restarts = 0;
  int converged = 0;
  double median = 0.0, p95 = 0.0;

  Case(std::string name_, std::string robot_, int dofs_)
      : name(std::move(name_)), robot(std::move(robot_)), dofs(dofs_) {}
  void add(const IkResult& r, double seconds) {
    ms.push_back(1e3 * seconds);
    iterations += r.iterations;
    restarts += r.restarts;
    converged += r.converged ? 1 : 0;
  }
  void finish() {
    std::vector<double> s = ms;
    std::sort(s.begin(), s.end());
    const std::size_t n = s.size();
    median = n == 0 ? 0.0 : (n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]));
    p95 = n == 0 ? 0.0 : s[static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n))) - 1];
  }
  double meanIterations() const {
    return ms.empty() ? 0.0 : static_cast<double>(iterations) / static_cast<double>(ms.size());
  }
  double meanRestarts() const {
    return ms.empty() ? 0.0 : static_cast<double>(restarts) / static_cast<double>(ms.size());
  }
};

const IkResult& timedSolve(InverseKinematics& ik, const VectorXd& q0, VectorXd& q, double& seconds) {
  const auto t0 = Clock::now();
  const IkResult& r = ik.solve(q0, q);
  seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

// TALOS with both soles pinned: a dragged hand (from the last solution),
// then far targets (from the initial configuration). `label` names a
// variant; `posture` adds the posture task.
void talos(int dragSteps, int farTargets, const IkOptions& options, bool posture, const std::string& label,
           std::vector<Case>& out) {
  World world;
  io::importUrdf(world, kRobots / "talos_data" / "robots" / "talos_reduced.urdf",
                 importOptions(io::RootAttachment::Floating));
  const Frame hand = frameNamed(world, "gripper_left_base_link");
  const VectorXd qInit = world.getPositions();
  const Isometry3d handInit = hand.getWorldTransform();
  InverseKinematics ik(world, options);
  ik.pin(frameNamed(world, "left_sole_link"));
  ik.pin(frameNamed(world, "right_sole_link"));
  const int task = ik.addPoseTask(hand, handInit);
  if (posture) ik.addPostureTask(qInit);
  VectorXd q = qInit;
  double seconds = 0.0;
  ik.solve(qInit, q);  // set-up

  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Case drag("drag: 1-3 cm, 1-3 deg from the last solution" + label, "TALOS", world.numDofs());
  VectorXd q0 = qInit;
  Isometry3d current = handInit;
  for (int k = 0; k < dragSteps; ++k) {
    Isometry3d target = current;
    Vector3d d = randomUnit(rng) * (0.01 + 0.02 * u(rng));
    if ((target.translation() + d - handInit.translation()).norm() > 0.10)
      d = (handInit.translation() - target.translation()).normalized() * d.norm();
    target.translation() += d;
    const double angle = (1.0 + 2.0 * u(rng)) * std::numbers::pi / 180.0;
    Matrix3d R = Eigen::AngleAxisd(angle, randomUnit(rng)).toRotationMatrix() * current.linear();
    if (angleBetween(R, handInit.linear()) > 15.0 * std::numbers::pi / 180.0) {
      const Eigen::AngleAxisd back(handInit.linear() * current.linear().transpose());  // current → initial
      R = Eigen::AngleAxisd(std::min(angle, back.angle()), back.axis()).toRotationMatrix() * current.linear();
    }
    target.linear() = R;
    ik.setTarget(task, target);
    const IkResult& r = timedSolve(ik, q0, q, seconds);
    if (k >= 10) drag.add(r, seconds);  // the first ten warm up
    q0 = q;
    world.setPositions(q);
    current = hand.getWorldTransform();
  }
  out.push_back(drag);
  if (farTargets == 0) return;

  Case far("far: 10-20 cm, 5-15 deg from the initial pose" + label, "TALOS", world.numDofs());
  for (int k = 0; k < farTargets; ++k) {
    Isometry3d target = handInit;
    target.translation() += randomUnit(rng) * (0.10 + 0.10 * u(rng));
    target.linear() =
        Eigen::AngleAxisd((5.0 + 10.0 * u(rng)) * std::numbers::pi / 180.0, randomUnit(rng)).toRotationMatrix() *
        handInit.linear();
    ik.setTarget(task, target);
    const IkResult& r = timedSolve(ik, qInit, q, seconds);
    far.add(r, seconds);
  }
  out.push_back(far);
}

// A fixed-base arm: random reachable pose targets of `tip` from the initial configuration.
void arm(const std::string& robot, const fs::path& urdf, const std::string& tip, int targets, std::vector<Case>& out) {
  World world;
  io::importUrdf(world, urdf, importOptions(io::RootAttachment::Fixed));
  const Frame frame = frameNamed(world, tip);
  IkOptions opt;
  opt.maxRestarts = 30;
  InverseKinematics ik(world, opt);
  const int task = ik.addPoseTask(frame, frame.getWorldTransform());
  const VectorXd qInit = world.getPositions();
  VectorXd q = qInit;
  double seconds = 0.0;
  ik.solve(qInit, q);  // set-up
  std::mt19937_64 rng(7);
  Case c{"random in-limit targets, from the initial configuration", robot, world.numDofs()};
  for (int k = 0; k < targets; ++k) {
    world.setPositions(randomConfiguration(world, rng));
    const Isometry3d target = frame.getWorldTransform();
    ik.setTarget(task, target);
    const IkResult& r = timedSolve(ik, qInit, q, seconds);
    c.add(r, seconds);
  }
  out.push_back(c);
}

std::string machineDescription() {
  std::string cpu = "unknown CPU";
  std::ifstream info("/proc/cpuinfo");
  int cores = 0;
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      ++cores;
    }
  }
  std::ostringstream s;
  s << cpu << ", " << cores << " logical cores, GCC " << __VERSION__;
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string jsonPath;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--json" && i + 1 < argc) {
      jsonPath = argv[++i];
    } else {
      std::fprintf(stderr, "usage: articula-bench-ik [--quick] [--json FILE]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const int scale = quick ? 10 : 1;
  std::vector<Case> cases;
  try {
    talos(2010 / scale, 500 / scale, IkOptions{}, true, "", cases);
    arm("UR5", kRobots / "ur_description" / "urdf" / "ur5_robot.urdf", "tool0", 1000 / scale, cases);
    arm("Panda", kRobots / "panda_description" / "urdf" / "panda.urdf", "panda_hand", 1000 / scale, cases);
    // Variants of the drag: what the iterations go to.
    talos(2010 / scale, 0, IkOptions{}, false, ", no posture task", cases);
    IkOptions loose;
    loose.positionTolerance = 1e-6;
    loose.orientationTolerance = 1e-6;
    talos(2010 / scale, 0, loose, true, ", tolerances 1e-6", cases);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula-bench-ik: %s\n", e.what());
    return 2;
  }
  for (Case& c : cases) c.finish();

  std::printf("Machine: %s\n\n", machineDescription().c_str());
  std::printf("%-6s %4s  %-65s %6s %9s %9s %9s %9s %10s\n", "robot", "DoF", "case", "solves", "converged", "median ms",
              "p95 ms", "mean it.", "restarts");
  for (const Case& c : cases) {
    std::printf("%-6s %4d  %-65s %6zu %9d %9.3f %9.3f %9.1f %10.2f", c.robot.c_str(), c.dofs, c.name.c_str(),
                c.ms.size(), c.converged, c.median, c.p95, c.meanIterations(), c.meanRestarts());
    if (&c == &cases.front()) {
      std::printf("   target <= 0.5 ms: %s (median), %s (p95)", c.median <= 0.5 ? "met" : "missed",
                  c.p95 <= 0.5 ? "met" : "missed");
    }
    std::printf("\n");
  }

  if (!jsonPath.empty()) {
    std::ofstream f(jsonPath);
    f << "{\n  \"machine\": \"" << machineDescription() << "\",\n  \"quick\": " << (quick ? "true" : "false")
      << ",\n  \"target_ms\": 0.5,\n  \"cases\": [\n";
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      f << "    {\"robot\": \"" << c.robot << "\", \"case\": \"" << c.name << "\", \"dofs\": " << c.dofs
        << ", \"solves\": " << c.ms.size() << ", \"converged\": " << c.converged << ", \"median_ms\": " << c.median
        << ", \"p95_ms\": " << c.p95 << ", \"mean_iterations\": " << c.meanIterations()
        << ", \"mean_restarts\": " << c.meanRestarts() << "}" << (i + 1 < cases.size() ? "," : "") << "\n";
    }
    f << "  ]\n}\n";
    if (!f) {
      std::fprintf(stderr, "articula-bench-ik: cannot write %s\n", jsonPath.c_str());
      return 1;
    }
  }
  return 0;
}

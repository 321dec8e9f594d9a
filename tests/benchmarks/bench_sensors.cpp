// What sensors and force outputs cost per step: TALOS (fixed base, from its
// URDF) held by the 32 gravity-compensated servos its <transmission>s
// declare, with 20 sensors updated on every step — 2 IMUs, 4 force–torque
// sensors, 2 contact sensors, 10 joint encoders and 2 rangefinders aimed at
// a ground plane — against the same robot without them; and the same again
// with every joint's reaction wrench read after every step (a step
// observer), the force output of the whole robot.
//
//   articula-bench-sensors [STEPS]   (default 20000 steps, best of 9 interleaved runs)
//
// Collision shapes and joint limits of the robot are left out, as in
// articula-bench-actuators, so that the difference is the sensors' own
// cost; the ground plane stays for the rangefinders.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include "talos_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

using namespace articula;
using articula::bench::microsecondsPerStep;
using articula::bench::removeShapesAndLimits;
namespace fs = std::filesystem;

namespace {

// Twenty sensors on TALOS's links and joints.
int addSensors(World& world) {
  const Multibody mb = world.getMultibodies().front();
  const std::string m = mb.name() + "/";
  const auto add = [&](const std::string& name, SensorType type, const std::string& frame, const std::string& joint) {
    SensorSpec s;
    s.name = name;
    s.type = type;
    s.frame = frame.empty() ? std::string() : m + frame;
    s.joint = joint.empty() ? std::string() : m + joint;
    s.noiseStddev = 0.01;
    s.seed = world.numSensors() + 1;
    if (type == SensorType::Rangefinder) {
      s.pose = Isometry3d(Eigen::AngleAxisd(1.5707963267948966, Vector3d::UnitY()));  // +x down
      s.maxRange = 5.0;
    }
    world.addSensor(s);
  };
  add("imu_torso", SensorType::Imu, "torso_2_link", "");
  add("imu_head", SensorType::Imu, "head_2_link", "");
  add("ft_left_ankle", SensorType::ForceTorque, "", "leg_left_6_joint");
  add("ft_right_ankle", SensorType::ForceTorque, "", "leg_right_6_joint");
  add("ft_left_wrist", SensorType::ForceTorque, "", "arm_left_7_joint");
  add("ft_right_wrist", SensorType::ForceTorque, "", "arm_right_7_joint");
  add("contact_left_foot", SensorType::Contact, "leg_left_6_link", "");
  add("contact_right_foot", SensorType::Contact, "leg_right_6_link", "");
  int encoders = 0;
  for (const Joint& j : mb.getJoints()) {
    if (j.numDofs() != 1 || encoders == 10) continue;
    add("encoder_" + j.name(), SensorType::JointEncoder, "", j.name());
    ++encoders;
  }
  add("range_left", SensorType::Rangefinder, "leg_left_6_link", "");
  add("range_right", SensorType::Rangefinder, "leg_right_6_link", "");
  return static_cast<int>(world.numSensors());
}

}  // namespace

int main(int argc, char** argv) {
  const long steps = argc > 1 ? std::atol(argv[1]) : 20000;
  const fs::path talos = bench::talosFile();
  const io::ImportOptions options = bench::talosOptions();
  World plain;
  World sensed;
  World reacting;
  int count = 0;
  try {
    io::importUrdf(plain, talos, options);
    io::importUrdf(sensed, talos, options);
    io::importUrdf(reacting, talos, options);
    for (World* w : {&plain, &sensed, &reacting}) {
      removeShapesAndLimits(*w);
      w->addGroundPlane(-1.2);
    }
    count = addSensors(sensed);
    addSensors(reacting);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula-bench-sensors: %s\n", e.what());
    return 2;
  }
  std::vector<Joint> joints = reacting.getMultibodies().front().getJoints();
  Vector3d sink = Vector3d::Zero();
  reacting.addStepObserver([&joints, &sink](const World&) {
    for (const Joint& j : joints) sink += j.getReactionWrench(Frame::World()).tail<3>();
  });
  double without = std::numeric_limits<double>::infinity();
  double with = without;
  double withReactions = without;
  for (int r = 0; r < 9; ++r) {
    without = std::min(without, microsecondsPerStep(plain, steps));
    with = std::min(with, microsecondsPerStep(sensed, steps));
    withReactions = std::min(withReactions, microsecondsPerStep(reacting, steps));
  }
  // The readings are live: the rangefinders see the ground, the ankles carry the legs.
  const SensorReading range = sensed.getSensor("range_left")->getReading();
  const SensorReading ft = sensed.getSensor("ft_left_ankle")->getReading();
  if (!sink.allFinite()) return 1;
  for (World* w : {&plain, &sensed, &reacting}) {
    if (!w->getWarnings().empty()) std::fprintf(stderr, "warning: %s\n", w->getWarnings().back().c_str());
  }
  std::printf("TALOS, fixed base, %d DoF, %zu servos, %d sensors on every step, %ld steps (best of 9)\n",
              sensed.numDofs(), sensed.numActuators(), count, steps);
  std::printf("  without sensors     %8.2f us/step\n", without);
  std::printf("  with the sensors    %8.2f us/step  %+6.1f %%  (target <= 10 %%)\n", with,
              100.0 * (with / without - 1.0));
  std::printf("  and every joint's reaction read after every step %8.2f us/step  %+6.1f %%\n", withReactions,
              100.0 * (withReactions / without - 1.0));
  std::printf("  last readings: left rangefinder %.4f m, left ankle force |f| = %.3f N\n", range.values[0],
              ft.values.head<3>().norm());
  return 0;
}

// How import time, memory and step time grow with the number of objects.
//
//   articula-bench-scale                 the whole table (each case in its own process)
//   articula-bench-scale sdf N           import a generated SDF world of N one-link models, then 100 steps
//   articula-bench-scale boxes N [S]     N free boxes resting on a ground: µs per step over S steps (1000)
//
// Peak memory is the process's maximum resident set (getrusage), so every
// case runs in a fresh process.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

double peakResidentMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // kB on Linux
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// An SDF world of n one-link models (a 0.2 m box each, 0.5 m apart, 1 cm above a ground plane).
std::string sdfWorld(int n) {
  std::string s = "<?xml version=\"1.0\"?>\n<sdf version=\"1.7\">\n<world name=\"scale\">\n";
  s += "<model name=\"ground\"><static>true</static><link name=\"l\"><collision name=\"c\"><geometry><plane>"
       "<normal>0 0 1</normal><size>100 100</size></plane></geometry></collision></link></model>\n";
  const int row = static_cast<int>(std::ceil(std::sqrt(n)));
  for (int i = 0; i < n; ++i) {
    const double x = 0.5 * (i % row);
    const double y = 0.5 * (i / row);
    s += "<model name=\"m" + std::to_string(i) + "\"><pose>" + std::to_string(x) + " " + std::to_string(y) +
         " 0.11 0 0 0</pose><link name=\"link\"><inertial><mass>1</mass><inertia><ixx>0.0067</ixx>"
         "<iyy>0.0067</iyy><izz>0.0067</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>"
         "<collision name=\"c\"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>"
         "<visual name=\"v\"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual></link></model>\n";
  }
  return s + "</world>\n</sdf>\n";
}

int runSdf(int n) {
  char dir[] = "/tmp/articula-bench-scale-XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  const fs::path file = fs::path(dir) / "world.sdf";
  std::ofstream(file) << sdfWorld(n);
  const auto t0 = std::chrono::steady_clock::now();
  World world;
  io::ImportOptions options;
  options.useEnvironmentPaths = false;
  io::importFile(world, file, options);
  const double importTime = seconds(t0);
  const double importPeak = peakResidentMiB();
  const auto t1 = std::chrono::steady_clock::now();
  world.step(100);
  const double stepUs = seconds(t1) / 100 * 1e6;
  fs::remove_all(dir);
  std::printf("sdf %6d models   import %7.2f s   peak %8.1f MiB   %9.1f us/step (%zu bodies)\n", n, importTime,
              importPeak, stepUs, world.numMultibodies() + world.numRigidBodies());
  return 0;
}

int runBoxes(int n, int steps) {
  const auto t0 = std::chrono::steady_clock::now();
  World world;
  world.addGroundPlane();
  const int row = static_cast<int>(std::ceil(std::sqrt(n)));
  for (int i = 0; i < n; ++i) {
    RigidBodyOptions o;
    o.inertia = Inertia::box(1.0, Vector3d::Constant(0.2));
    o.pose.translation() << 0.5 * (i % row), 0.5 * (i / row), 0.0999;
    world.addRigidBody("box" + std::to_string(i), o)
        .addCollisionShape({.name = "", .geometry = Geometry::box(Vector3d::Constant(0.2)), .material = {}});
  }
  world.enterSimulationMode();
  world.step(10);  // contacts found, warm starts filled
  const double buildTime = seconds(t0);
  const auto t1 = std::chrono::steady_clock::now();
  world.step(static_cast<std::size_t>(steps));
  const double stepUs = seconds(t1) / steps * 1e6;
  std::printf("boxes %6d        build %7.2f s   peak %8.1f MiB   %9.1f us/step (%zu contacts)\n", n, buildTime,
              peakResidentMiB(), stepUs, world.getContacts().size());
  return 0;
}

int runChild(const char* self, const std::vector<std::string>& args) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(self)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(self, argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc >= 3 && std::string(argv[1]) == "sdf") return runSdf(std::atoi(argv[2]));
    if (argc >= 3 && std::string(argv[1]) == "boxes")
      return runBoxes(std::atoi(argv[2]), argc >= 4 ? std::atoi(argv[3]) : 1000);
    if (argc != 1) {
      std::cerr << "usage: articula-bench-scale [sdf N | boxes N [STEPS]]\n";
      return 2;
    }
    int failures = 0;
    for (const char* n : {"100", "1000", "5000"}) failures += runChild(argv[0], {"sdf", n}) != 0;
    for (const char* n : {"500", "2000"}) failures += runChild(argv[0], {"boxes", n}) != 0;
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "articula-bench-scale: " << e.what() << "\n";
    return 1;
  }
}

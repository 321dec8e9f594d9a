// Replay recording: what recording costs per step, how long restoring a
// random frame takes, and how much memory a minute of recording at 1 kHz
// takes.
//
// Overhead: two identical worlds step in alternating batches of 250 steps,
// one with a Recorder attached (default options: every step, byte
// differences, keyframe every 64 frames); the overhead is the ratio of the
// median batch times, and also the median cost of one capture measured on
// its own against the median step. Restore: 1000 random frames of a 10 s
// recording, restored into the world (layout check, decoding, state,
// contact manifolds), timed one by one. Memory: stored bytes after 60 s of
// simulated time at 1 kHz (`--quick`: 10 s, scaled to a minute).
//
//   articula-bench-replay [--quick] [MODELS_DIR]
#include "builtin_scenes.hpp"

#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace articula;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

struct Scene {
  std::string name;
  std::function<void(World&)> build;
};

void importRobot(World& w, const std::filesystem::path& file, io::RootAttachment root, bool ground) {
  io::ImportOptions o;
  o.root = root;
  o.addGroundPlane = ground;
  io::importUrdf(w, file.string(), o);
}

void overhead(const Scene& scene, int batches) {
  World plain;
  World recorded;
  scene.build(plain);
  scene.build(recorded);
  plain.enterSimulationMode();
  recorded.enterSimulationMode();
  plain.step(500);  // warm-up, and the same state in both
  recorded.step(500);
  Recorder recorder(recorded);
  constexpr int kBatch = 250;
  std::vector<double> a;
  std::vector<double> b;
  for (int k = 0; k < batches; ++k) {
    auto t0 = Clock::now();
    plain.step(kBatch);
    auto t1 = Clock::now();
    recorded.step(kBatch);
    auto t2 = Clock::now();
    a.push_back(seconds(t0, t1) / kBatch);
    b.push_back(seconds(t1, t2) / kBatch);
  }
  // One capture on its own, against one step on its own.
  Recording alone;
  std::vector<double> capture;
  std::vector<double> step;
  for (int k = 0; k < 2000; ++k) {
    auto t0 = Clock::now();
    plain.step();
    auto t1 = Clock::now();
    alone.append(plain);
    auto t2 = Clock::now();
    step.push_back(seconds(t0, t1));
    capture.push_back(seconds(t1, t2));
  }
  const RecordingStats s = recorder.recording().stats();
  const StateSpace space = plain.getStateSpace();
  std::printf("| %s | %d | %.2f | %.2f | %+.1f %% | %.3f | %.1f %% | %.0f | %.0f |\n", scene.name.c_str(),
              space.numVelocities(), 1e6 * median(a), 1e6 * median(b), 100.0 * (median(b) / median(a) - 1.0),
              1e6 * median(capture), 100.0 * median(capture) / median(step), s.rawBytesPerFrame(),
              s.storedBytesPerFrame());
}

void restoreLatency(const Scene& scene, int frames) {
  World world;
  scene.build(world);
  world.enterSimulationMode();
  Recorder recorder(world);
  world.step(static_cast<std::size_t>(frames));
  const Recording recording = recorder.recording();
  std::mt19937 rng(1);
  std::vector<double> t;
  for (int k = 0; k < 1000; ++k) {
    const std::size_t i = rng() % recording.size();
    auto t0 = Clock::now();
    recording.restore(world, i);
    auto t1 = Clock::now();
    t.push_back(seconds(t0, t1));
  }
  World fresh;
  scene.build(fresh);
  auto t0 = Clock::now();
  recording.restore(fresh, recording.size() / 2);
  auto t1 = Clock::now();
  std::printf("| %s | %zu | %.1f | %.1f | %.1f | %.1f |\n", scene.name.c_str(), recording.size(), 1e6 * median(t),
              1e6 * percentile(t, 0.99), 1e6 * *std::max_element(t.begin(), t.end()), 1e6 * seconds(t0, t1));
}

void memory(const Scene& scene, double simulated) {
  for (const bool delta : {true, false}) {
    World world;
    scene.build(world);
    WorldOptions o = world.getOptions();
    o.timeStep = 1e-3;
    world.setOptions(o);
    world.enterSimulationMode();
    RecordingOptions ro;
    ro.deltaEncoding = delta;
    ro.budgetBytes = std::size_t{1} << 34;
    Recorder recorder(world, ro);
    const auto steps = static_cast<std::size_t>(simulated * 1000.0);
    auto t0 = Clock::now();
    world.step(steps);
    auto t1 = Clock::now();
    const RecordingStats s = recorder.recording().stats();
    const double perMinute = static_cast<double>(s.storedBytes) * 60.0 / simulated;
    std::printf("| %s | %s | %.0f s | %zu | %.0f | %.0f | %.1f MiB | %.1f |\n", scene.name.c_str(),
                delta ? "differences" : "whole frames", simulated, s.frames, s.rawBytesPerFrame(),
                s.storedBytesPerFrame(), perMinute / (1024.0 * 1024.0), 1e6 * seconds(t0, t1) / double(steps));
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::filesystem::path models = ARTICULA_MODELS_DIR;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      models = argv[i];
    }
  }
  const std::filesystem::path talos = models / "example-robot-data" / "robots" / "talos_data" / "robots";
  const bool haveTalos = std::filesystem::exists(talos / "talos_reduced.urdf");
  std::vector<Scene> scenes = {
      {"30-link chain", [](World& w) { scenes::buildScene(w, "chain-30"); }},
      {"box stack (10 boxes)", [](World& w) { scenes::buildScene(w, "box-stack"); }},
  };
  if (haveTalos) {
    scenes.insert(scenes.begin() + 1, {"TALOS reduced, fixed base", [&](World& w) {
                                         importRobot(w, talos / "talos_reduced.urdf", io::RootAttachment::Fixed, false);
                                       }});
    scenes.push_back({"TALOS full, floating, on the ground", [&](World& w) {
                        importRobot(w, talos / "talos_full_v2.urdf", io::RootAttachment::Floating, true);
                      }});
  } else {
    std::printf("(TALOS rows skipped: %s not found)\n", talos.string().c_str());
  }

  std::printf("Recording overhead (dt = 1 ms; median of %d alternating batches of 250 steps)\n\n", quick ? 10 : 40);
  std::printf(
      "| scene | DoF | µs/step | µs/step recorded | overhead | capture µs | capture / step | raw B/frame | stored "
      "B/frame |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Scene& s : scenes) overhead(s, quick ? 10 : 40);

  std::printf("\nRestore latency of a random frame (1000 restores)\n\n");
  std::printf("| scene | frames | median µs | p99 µs | max µs | into a fresh world µs |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const Scene& s : scenes) restoreLatency(s, quick ? 2000 : 10000);

  std::printf("\nMemory per minute of recording at 1 kHz\n\n");
  std::printf(
      "| scene | frames stored as | simulated | frames | raw B/frame | stored B/frame | per minute | µs/step |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Scene& s : scenes) {
    if (s.name.rfind("TALOS", 0) == 0 || s.name == "box stack (10 boxes)") memory(s, quick ? 10.0 : 60.0);
  }
  return 0;
}

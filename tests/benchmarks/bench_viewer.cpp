// Viewer frame time on the snapshot path, as the application runs it: a
// simulation thread steps a world (dt = 1 ms) as fast as it can with a
// SnapshotPublisher attached (a step observer publishes a RenderSnapshot
// after every step); the main thread is the viewer and, every frame, pulls
// the newest snapshot into the SceneView (Viewport::pullSnapshot) and draws
// it offscreen (Viewport::renderFrame: scene, overlay, pixel readback).
//
// Scenes: 10, 100 and 1000 free bodies (boxes, spheres and capsules, each
// with a visual shape of its own colour and a collision shape) falling from
// a lattice onto a ground plane, stepped 150 times before the viewer starts
// so that the lowest layer touches the ground. After warm-up frames, frames
// are measured up to a frame count or a wall-clock budget, alternating
// between the default layers and the default layers plus the contacts,
// frames and centres-of-mass debug layers (both rows see the same
// simulation). Per frame: pull + apply time, render time, and the
// simulation steps made meanwhile (counted on its thread). Afterwards, with
// the simulation thread stopped, the cost of making one snapshot
// (fillRenderSnapshot) is timed on the same world against a step.
//
// Needs an X display (run under xvfb-run); without one it exits with 77.
//
//   articula-bench-viewer [--quick] [--size WxH] [--png FILE]
#include <articula/articula.hpp>
#include <articula/viewer/image.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/snapshot_publisher.hpp>
#include <articula/viewer/viewer_error.hpp>
#include <articula/viewer/viewport.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace articula;
using namespace articula::viewer;
using Clock = std::chrono::steady_clock;

constexpr double kTimeStep = 1e-3;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// A colour per body: hues a golden angle apart, fairly saturated.
Vector4d bodyColor(int i) {
  const double h = std::fmod(0.61803398875 * i, 1.0) * 6.0;
  const double s = 0.65;
  const double v = 0.9;
  const double f = h - std::floor(h);
  const double p = v * (1.0 - s);
  const double q = v * (1.0 - s * f);
  const double t = v * (1.0 - s * (1.0 - f));
  switch (static_cast<int>(h) % 6) {
    case 0:
      return {v, t, p, 1.0};
    case 1:
      return {q, v, p, 1.0};
    case 2:
      return {p, v, t, 1.0};
    case 3:
      return {p, q, v, 1.0};
    case 4:
      return {t, p, v, 1.0};
    default:
      return {v, p, q, 1.0};
  }
}

// n bodies on a k × k lattice of layers 0.45 m apart (k = ⌈∛n⌉), randomly
// turned and slightly shifted, the lowest layer just above the ground:
// boxes, spheres and capsules in turn.
void fallingBodies(World& w, int n) {
  w.addGroundPlane();
  const int k = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(n)) - 1e-9));
  const double spacing = 0.45;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> jitter(-0.04, 0.04);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < n; ++i) {
    const int x = i % k;
    const int y = (i / k) % k;
    const int z = i / (k * k);
    RigidBodyOptions o;
    Isometry3d X = Isometry3d::Identity();
    X.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    X.translation() = Vector3d(spacing * (x - 0.5 * (k - 1)) + jitter(rng), spacing * (y - 0.5 * (k - 1)) + jitter(rng),
                               0.2 + spacing * z);
    o.pose = X;
    o.angularVelocity = Vector3d(unit(rng), unit(rng), unit(rng));
    Geometry g;
    switch (i % 3) {
      case 0:
        g = Geometry::box(Vector3d(0.26, 0.2, 0.14));
        o.inertia = Inertia::box(1.0, g.size);
        break;
      case 1:
        g = Geometry::sphere(0.12);
        o.inertia = Inertia::sphere(1.0, g.radius);
        break;
      default:
        g = Geometry::capsule(0.07, 0.2);
        o.inertia = Inertia::cylinder(1.0, g.radius, g.length + 2.0 * g.radius);
        break;
    }
    RigidBody b = w.addRigidBody("body" + std::to_string(i), o);
    CollisionShapeOptions c;
    c.geometry = g;
    b.addCollisionShape(c);
    VisualShapeOptions v;
    v.geometry = g;
    v.color = bodyColor(i);
    b.addVisualShape(v);
  }
}

struct Options {
  bool quick = false;
  int width = 1280;
  int height = 720;
  std::string png;  // where to save a frame of the 1000-body scene (empty: nowhere)
  // Warm-up and measured frames per scene: up to `frames` frames or
  // `seconds` of wall-clock time, whichever comes first, and at least
  // `minFrames` (a frame of the 1000-body scene takes about a second).
  int warmupFrames = 30;
  double warmupSeconds = 2.0;
  int frames = 600;
  double seconds = 20.0;
  int minFrames = 10;
};

// One row of the frame table: the frames of one layer setting while the
// simulation runs.
struct FrameRow {
  int bodies = 0;
  bool debug = false;
  std::vector<double> pull;    // ms per frame
  std::vector<double> render;  // ms per frame
  std::vector<double> total;   // ms per frame
  double wall = 0.0;           // s, from each frame's start to the next one's
  std::uint64_t published = 0;
  std::uint64_t consumed = 0;
  int contacts = 0;
};

// One row of the scene table: building the scene and the producer's cost.
struct SceneRow {
  int bodies = 0;
  std::size_t shapes = 0;
  double prerollSeconds = 0.0;
  double buildMs = 0.0;
  double firstFrameMs = 0.0;
  double stepUs = 0.0;
  double snapshotUs = 0.0;
};

void setDebugLayers(SceneView& scene, bool on) {
  for (const Layer l : {Layer::Contacts, Layer::LinkFrames, Layer::CentersOfMass}) scene.setLayerVisible(l, on);
}

// Frames alternate between the default layers and the default layers plus
// contacts, frames and centres of mass, so that both rows see the same
// simulation (same bodies, contacts and competition for the cores). The
// steps made from one frame's start to the next are counted to that frame.
std::array<FrameRow, 2> measure(Viewport& viewport, SceneView& scene, SnapshotPublisher& publisher,
                                const std::atomic<std::uint64_t>& steps, const Options& opt) {
  const auto warm = Clock::now();
  for (int i = 0; i < opt.warmupFrames && (i < 2 || seconds(warm, Clock::now()) < opt.warmupSeconds); ++i) {
    setDebugLayers(scene, i % 2 == 1);
    viewport.pullSnapshot(publisher);
    viewport.renderFrame();
  }
  std::array<FrameRow, 2> rows;
  rows[1].debug = true;
  for (FrameRow& r : rows) {
    r.pull.reserve(static_cast<std::size_t>(opt.frames));
    r.render.reserve(static_cast<std::size_t>(opt.frames));
    r.total.reserve(static_cast<std::size_t>(opt.frames));
  }
  const auto start = Clock::now();
  auto t0 = start;
  std::uint64_t s0 = steps.load(std::memory_order_relaxed);
  for (int i = 0; i < opt.frames && (i < opt.minFrames || seconds(start, t0) < opt.seconds); ++i) {
    FrameRow& r = rows[static_cast<std::size_t>(i % 2)];
    setDebugLayers(scene, r.debug);
    if (viewport.pullSnapshot(publisher)) ++r.consumed;
    const auto t1 = Clock::now();
    viewport.renderFrame();
    const auto t2 = Clock::now();
    r.pull.push_back(1e3 * seconds(t0, t1));
    r.render.push_back(1e3 * seconds(t1, t2));
    r.total.push_back(1e3 * seconds(t0, t2));
    r.contacts = scene.appliedSnapshot().stats.numContacts;
    const auto next = Clock::now();
    const std::uint64_t s1 = steps.load(std::memory_order_relaxed);
    r.wall += seconds(t0, next);
    r.published += s1 - s0;  // one snapshot per step
    t0 = next;
    s0 = s1;
  }
  setDebugLayers(scene, false);
  return rows;
}

void printFrameRow(const FrameRow& r) {
  const std::uint64_t skipped = r.published > r.consumed ? r.published - r.consumed : 0;
  const auto frames = static_cast<double>(r.total.size());
  const double stepsPerSecond = static_cast<double>(r.published) / r.wall;
  std::printf("| %d | %s | %zu | %.2f | %.1f | %.1f | %.1f | %.2f | %.0f | %.3f | %llu | %llu | %llu | %d |\n",
              r.bodies, r.debug ? "+ contacts, frames, com" : "default", r.total.size(), median(r.pull),
              median(r.render), median(r.total), percentile(r.total, 0.95), frames / r.wall, stepsPerSecond,
              stepsPerSecond * kTimeStep, static_cast<unsigned long long>(r.published),
              static_cast<unsigned long long>(r.consumed), static_cast<unsigned long long>(skipped), r.contacts);
  std::fflush(stdout);
}

// One publisher serves every scene, as in the application (snapshot
// versions keep increasing, so the overlay takes the new scene's stats).
// Builds the scene, runs the simulation thread and measures frames with
// and without the debug layers, then times the producer's snapshot against
// a step on the same world.
SceneRow runScene(Viewport& viewport, SnapshotPublisher& publisher, int bodies, std::uint64_t version,
                  const Options& opt) {
  SceneRow row;
  row.bodies = bodies;
  WorldOptions wo;
  wo.timeStep = kTimeStep;
  World world(wo);
  fallingBodies(world, bodies);
  world.enterSimulationMode();
  // The lowest layer reaches the ground after ~0.15 s: start with contacts.
  const auto p0 = Clock::now();
  world.step(150);
  row.prerollSeconds = seconds(p0, Clock::now());

  const auto description = std::make_shared<SceneDescription>(describeScene(world, version));
  SceneView scene;
  const auto b0 = Clock::now();
  scene.setDescription(description);
  row.buildMs = 1e3 * seconds(b0, Clock::now());
  row.shapes = scene.shapeCount();
  publisher.setDescription(description);
  publisher.publish(world);
  viewport.setScene(&scene);
  viewport.pullSnapshot(publisher);
  viewport.camera().setPreset("iso");
  viewport.fitToScene();
  viewport.camera().zoom(-1.0);  // room for the pile to spread
  const auto f0 = Clock::now();
  viewport.renderFrame();  // compiles the drawables
  row.firstFrameMs = 1e3 * seconds(f0, Clock::now());

  publisher.attach(world);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> steps{0};
  std::thread simulation([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      world.step();  // publishes
      steps.fetch_add(1, std::memory_order_relaxed);
    }
  });
  for (FrameRow& r : measure(viewport, scene, publisher, steps, opt)) {
    r.bodies = bodies;
    printFrameRow(r);
  }
  if (!opt.png.empty() && bodies == 1000) {
    viewport.pullSnapshot(publisher);
    viewport.renderFrame();
    savePng(viewport.grab(), opt.png);
  }
  stop = true;
  simulation.join();
  publisher.detach();
  viewport.setScene(nullptr);

  // The producer's cost of a snapshot against a step, on the same world
  // (no observer attached): at least 10 pairs, at most ~0.6 s of them.
  RenderSnapshot snapshot;
  fillRenderSnapshot(world, *description, snapshot);  // sizes the arrays
  std::vector<double> step;
  std::vector<double> fill;
  const auto budget = Clock::now();
  for (int i = 0; i < 400 && (i < 10 || seconds(budget, Clock::now()) < 0.6); ++i) {
    const auto t0 = Clock::now();
    world.step();
    const auto t1 = Clock::now();
    fillRenderSnapshot(world, *description, snapshot);
    const auto t2 = Clock::now();
    step.push_back(1e6 * seconds(t0, t1));
    fill.push_back(1e6 * seconds(t1, t2));
  }
  row.stepUs = median(step);
  row.snapshotUs = median(fill);
  return row;
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

// The command line of the Xvfb process serving `display` (":99" or
// ":99.0"), or an empty string when the display is not an Xvfb server.
std::string xvfbCommandLine(const std::string& display) {
  if (display.empty() || display[0] != ':') return {};
  const std::string number = display.substr(0, display.find('.'));
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::vector<std::string> args;
    std::string arg;
    while (std::getline(in, arg, '\0')) args.push_back(arg);
    if (args.empty() || std::filesystem::path(args[0]).filename() != "Xvfb") continue;
    if (std::find(args.begin(), args.end(), number) == args.end()) continue;
    std::string joined;
    for (const std::string& a : args) joined += (joined.empty() ? "" : " ") + a;
    return joined;
  }
  return {};
}

int usage(const char* program) {
  std::fprintf(stderr, "usage: %s [--quick] [--size WxH] [--png FILE]\n", program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      opt.quick = true;
    } else if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%dx%d", &opt.width, &opt.height) != 2 || opt.width <= 0 || opt.height <= 0)
        return usage(argv[0]);
    } else if (std::strcmp(argv[i], "--png") == 0 && i + 1 < argc) {
      opt.png = argv[++i];
    } else {
      return usage(argv[0]);
    }
  }
  if (opt.quick) {
    opt.warmupFrames = 10;
    opt.warmupSeconds = 0.5;
    opt.frames = 120;
    opt.seconds = 4.0;
    opt.minFrames = 6;
  }
  const char* display = std::getenv("DISPLAY");
  if (display == nullptr || *display == '\0') {
    std::printf("No X display (DISPLAY is not set): this benchmark draws offscreen through GLX.\n");
    std::printf("Run it under Xvfb, e.g. xvfb-run -a -s \"-screen 0 1280x1024x24 -noreset\" %s\n", argv[0]);
    return 77;
  }
  std::unique_ptr<Viewport> viewport;
  try {
    viewport = Viewport::createOffscreen(opt.width, opt.height);
  } catch (const ViewerError& e) {
    std::printf("No OpenGL context: %s\n", e.what());
    return 77;
  }

  std::printf(
      "Viewer frames on the snapshot path: %dx%d offscreen, overlay on, pixels read back every frame, no vertical "
      "sync.\nA simulation thread steps the world (dt = 1 ms) as fast as it can and publishes a snapshot after every "
      "step;\nthe viewer pulls the newest one (pull + apply) and draws (render). Per scene: up to %d warm-up frames "
      "(%.1f s),\nthen up to %d measured frames (%.0f s, at least %d), alternating between the default layers and "
      "the default\nlayers plus the contacts, frames and centres-of-mass layers. Times are medians unless marked p95; "
      "steps/s,\nRTF, published, consumed and skipped are counted over each row's frames.\n\n",
      opt.width, opt.height, opt.warmupFrames, opt.warmupSeconds, opt.frames, opt.seconds, opt.minFrames);
  std::printf(
      "| bodies | debug layers | frames | pull + apply ms | render ms | frame ms | frame p95 ms | FPS | steps/s | RTF "
      "| "
      "published | consumed | skipped | contacts |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  std::vector<SceneRow> scenes;
  SnapshotPublisher publisher;
  std::uint64_t version = 0;
  for (const int n : {10, 100, 1000}) scenes.push_back(runScene(*viewport, publisher, n, ++version, opt));

  std::printf(
      "\nScenes and the producer's cost (step and snapshot timed one after the other on the same world, without the "
      "viewer)\n\n");
  std::printf(
      "| bodies | shapes | 150 steps before s | scene build ms | first frame ms | step µs | snapshot µs | snapshot / "
      "step |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const SceneRow& r : scenes) {
    std::printf("| %d | %zu | %.2f | %.1f | %.1f | %.1f | %.1f | %.2f %% |\n", r.bodies, r.shapes, r.prerollSeconds,
                r.buildMs, r.firstFrameMs, r.stepUs, r.snapshotUs, 100.0 * r.snapshotUs / r.stepUs);
  }

  const std::string xvfb = xvfbCommandLine(display);
  std::printf("\nMachine: %s, %u hardware threads; GL: %s (DISPLAY=%s)\n", cpuModel().c_str(),
              std::thread::hardware_concurrency(),
              xvfb.empty() ? "not an Xvfb display (renderer not queried)" : "Mesa llvmpipe (software), Xvfb", display);
  if (!xvfb.empty()) std::printf("X server: %s\n", xvfb.c_str());
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  std::printf("Command: %s\n", command.c_str());
  if (!opt.png.empty()) std::printf("Frame of the 1000-body scene saved to %s\n", opt.png.c_str());
  return 0;
}

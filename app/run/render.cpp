// articula-run render: draws a scene, or one frame of a replay, into a PNG
// without a window (an offscreen OpenGL context: needs an X display, e.g.
// xvfb-run).
#include "cli.hpp"
#include "commands.hpp"
#include "world_setup.hpp"

#include <articula/articula.hpp>

#ifdef ARTICULA_HAS_VIEWER
#include <articula/viewer/camera.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewport.hpp>
#endif

#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace articula::run {

#ifdef ARTICULA_HAS_VIEWER
namespace {

struct RenderOptions {
  WorldSetup setup;
  std::string replay;
  std::optional<std::uint64_t> frame;
  std::optional<long> steps;
  std::string out;
  int width = 1280;
  int height = 720;
  std::string camera = "iso";
  std::optional<std::uint32_t> layers;
  std::vector<std::string> show, hide;
  bool overlay = false;
  bool quiet = false;
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::string layerNames() {
  std::string names;
  for (const viewer::Layer l : viewer::allLayers()) names += (names.empty() ? "" : ", ") + viewer::layerName(l);
  return names;
}

viewer::Layer parseLayer(const std::string& option, const std::string& name) {
  const std::optional<viewer::Layer> l = viewer::layerFromName(name);
  if (!l) usageError(option + ": unknown layer '" + name + "' (" + layerNames() + ")");
  return *l;
}

RenderOptions parseRender(const std::vector<std::string>& argv) {
  RenderOptions o;
  InputOptions& input = o.setup.input;
  ArgScanner args(argv);
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--out" || a == "-o") {
      o.out = args.value();
    } else if (a == "--replay") {
      o.replay = args.value();
      if (o.replay.empty()) usageError("--replay needs a FILE.replay");
    } else if (a == "--frame") {
      const long k = parseLong(a, args.value());
      if (k < 0) usageError("--frame must be >= 0 (a step index)");
      o.frame = static_cast<std::uint64_t>(k);
    } else if (a == "--steps") {
      o.steps = parseLong(a, args.value());
      if (*o.steps < 0) usageError("--steps must be >= 0");
    } else if (a == "--size") {
      const std::string s = args.value();
      const std::size_t x = s.find_first_of("xX");
      if (x == std::string::npos) usageError("--size expects WxH in pixels, e.g. 1280x720; got '" + s + "'");
      const long w = parseLong(a, s.substr(0, x));
      const long h = parseLong(a, s.substr(x + 1));
      if (w < 16 || h < 16 || w > 8192 || h > 8192) usageError("--size: width and height must be 16 to 8192 pixels");
      o.width = static_cast<int>(w);
      o.height = static_cast<int>(h);
    } else if (a == "--camera") {
      o.camera = args.value();
    } else if (a == "--layers") {
      std::uint32_t mask = 0;
      for (const std::string& n : splitList(args.value())) mask |= static_cast<std::uint32_t>(parseLayer(a, n));
      o.layers = mask;
    } else if (a == "--show") {
      for (const std::string& n : splitList(args.value())) o.show.push_back(n);
    } else if (a == "--hide") {
      for (const std::string& n : splitList(args.value())) o.hide.push_back(n);
    } else if (a == "--overlay") {
      args.noValue();
      o.overlay = true;
    } else if (a == "--scene") {
      input.scene = args.value();
    } else if (a == "--quiet" || a == "-q") {
      args.noValue();
      o.quiet = true;
    } else if (parseInputOption(args, a, input)) {
    } else if (!a.empty() && a[0] != '-' && input.file.empty()) {
      input.file = a;
    } else if (!a.empty() && a[0] != '-') {
      usageError("render takes one FILE (got '" + input.file + "' and '" + a + "')");
    } else {
      usageError("unknown option '" + a + "' for render");
    }
  }
  if (o.out.empty()) usageError("render needs --out IMG.png");
  if (!input.file.empty() && !input.scene.empty()) usageError("give either FILE or --scene, not both");
  if (o.replay.empty() && input.file.empty() && input.scene.empty()) {
    usageError("render needs a FILE (.articula, .urdf, .sdf or .world), --scene NAME or --replay FILE.replay");
  }
  if (o.frame && o.replay.empty()) usageError("--frame needs --replay FILE.replay");
  if (o.steps && !o.replay.empty())
    usageError("--steps simulates a scene; with --replay choose the state with --frame");
  for (const std::string& n : o.show) parseLayer("--show", n);
  for (const std::string& n : o.hide) parseLayer("--hide", n);
  const fs::path dir = fs::path(o.out).parent_path();
  std::error_code ec;
  if (!dir.empty() && !fs::is_directory(dir, ec)) throw CliError("--out: '" + dir.string() + "' is not a directory");
  try {
    (void)viewer::parseCameraSpec(o.camera);
  } catch (const std::invalid_argument& e) {
    usageError(std::string("--camera: ") + e.what());
  }
  return o;
}

// The world of a replay frame: rebuilt from the recorded scene (or FILE)
// and restored to frame --frame K (default: the last recorded frame).
std::uint64_t loadReplayFrame(World& world, RenderOptions& o) {
  Recording recording;
  try {
    recording = Recording::load(o.replay);
  } catch (const ReplayFileError& e) {
    throw CliError(e.what());
  }
  if (recording.empty()) throw CliError(o.replay + " holds no frames");
  std::size_t index = recording.size() - 1;
  if (o.frame) {
    const std::optional<std::size_t> found = recording.findStep(*o.frame);
    if (!found) {
      throw CliError("--frame " + std::to_string(*o.frame) + ": step " + std::to_string(*o.frame) + " is not in " +
                     o.replay + " (recorded steps " + std::to_string(recording.frameInfo(0).step) + ".." +
                     std::to_string(recording.frameInfo(recording.size() - 1).step) + ", every " +
                     std::to_string(recording.options().every) + ")");
    }
    index = *found;
  }
  const std::string scene = !o.setup.input.file.empty() ? o.setup.input.file : o.setup.input.scene;
  const WorldSetup setup = setupFromRecording(recording, scene, o.setup.input.import.packagePath);
  prepareWorld(world, setup, o.quiet);
  try {
    recording.checkLayout(world);
  } catch (const LayoutIncompatible& e) {
    throw CliError("the replay does not fit the scene: " + std::string(e.what()));
  }
  recording.restore(world, index);
  return recording.frameInfo(index).step;
}

}  // namespace

int renderCommand(const std::vector<std::string>& argv) {
  RenderOptions o = parseRender(argv);
  World world;
  std::string what;
  if (!o.replay.empty()) {
    const std::uint64_t step = loadReplayFrame(world, o);
    what = o.replay + " step " + std::to_string(step);
  } else {
    prepareWorld(world, o.setup, o.quiet);
    if (o.steps && *o.steps > 0) world.step(static_cast<std::size_t>(*o.steps));
    what = (o.setup.input.file.empty() ? "built-in scene " + o.setup.input.scene : o.setup.input.file);
    if (o.steps) what += " after " + std::to_string(*o.steps) + " steps";
  }

  auto description = std::make_shared<viewer::SceneDescription>(viewer::describeScene(world));
  viewer::RenderSnapshot snapshot;
  viewer::fillRenderSnapshot(world, *description, snapshot);
  viewer::SceneView scene;
  scene.setDescription(description);
  scene.applySnapshot(snapshot);
  std::uint32_t layers = o.layers.value_or(viewer::kDefaultLayers);
  for (const std::string& n : o.show) layers |= static_cast<std::uint32_t>(*viewer::layerFromName(n));
  for (const std::string& n : o.hide) layers &= ~static_cast<std::uint32_t>(*viewer::layerFromName(n));
  scene.setLayers(layers);

  std::unique_ptr<viewer::Viewport> viewport;
  try {
    viewport = viewer::Viewport::createOffscreen(o.width, o.height);
  } catch (const viewer::ViewerError& e) {
    throw CliError(std::string("render: ") + e.what());
  }
  viewport->setScene(&scene);
  viewport->setOverlayEnabled(o.overlay);
  if (o.overlay) viewport->overlay().feed(snapshot);
  const viewer::CameraSpec spec = viewer::parseCameraSpec(o.camera);
  viewer::OrbitCamera& camera = viewport->camera();
  if (spec.hasEyeCenter) {
    camera.setView(spec.eye, spec.center);
  } else {
    if (!spec.preset.empty() && spec.preset != "fit") camera.setPreset(spec.preset);
    viewport->fitToScene();
  }
  viewport->renderFrame();
  // The overlay measures the frame rate over frames; a second frame gives it numbers.
  if (o.overlay) viewport->renderFrame();
  const viewer::Image image = viewport->grab();
  try {
    viewer::savePng(image, o.out);
  } catch (const viewer::ViewerError& e) {
    throw CliError(e.what());
  }
  if (!o.quiet) {
    std::cerr << "articula-run: rendered " << what << " to " << o.out << " (" << o.width << "x" << o.height << ")\n"
              << std::flush;
  }
  return kExitOk;
}

#else

int renderCommand(const std::vector<std::string>&) {
  throw CliError("render: this articula-run was built without the viewer (configure with ARTICULA_BUILD_VIEWER=ON)");
}

#endif

}  // namespace articula::run

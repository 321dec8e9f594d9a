// articula-run render: draws a scene, or one frame of a replay, into a PNG
// without a window (an offscreen OpenGL context: needs an X display, e.g.
// xvfb-run).
#include <articula/io/state_columns.hpp>
#include "cli.hpp"
#include "commands.hpp"
#include "world_setup.hpp"

#include <articula/articula.hpp>

#ifdef ARTICULA_HAS_VIEWER
#include <articula/viewer/camera.hpp>
#include <articula/viewer/overlay.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewport.hpp>
#endif

#include <algorithm>
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
  std::vector<std::string> plots;  ///< --plot: energy, kinetic, potential, residual, solve-residual, q:NAME, v:NAME
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
      if (*o.steps < 0 || *o.steps > 100000000L) usageError("--steps must be in [0, 100000000]");
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
    } else if (a == "--plot") {
      o.plots.push_back(args.value());
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
  checkOutputOption("--out", o.out);
  try {
    (void)viewer::parseCameraSpec(o.camera);
  } catch (const std::invalid_argument& e) {
    usageError(std::string("--camera: ") + e.what());
  }
  return o;
}

// A replay and the world it was recorded in: rebuilt from the recorded
// scene (or FILE) and checked against the recording's layout. `index` is
// the frame of --frame K (default: the last recorded frame).
struct LoadedReplay {
  Recording recording;
  std::size_t index = 0;
};

LoadedReplay loadReplay(World& world, const RenderOptions& o) {
  LoadedReplay r;
  try {
    r.recording = Recording::load(o.replay);
  } catch (const ReplayFileError& e) {
    throw CliError(e.what());
  }
  const Recording& recording = r.recording;
  if (recording.empty()) throw CliError(o.replay + " holds no frames");
  r.index = recording.size() - 1;
  if (o.frame) {
    const std::optional<std::size_t> found = recording.findStep(*o.frame);
    if (!found) {
      throw CliError("--frame " + std::to_string(*o.frame) + ": step " + std::to_string(*o.frame) + " is not in " +
                     o.replay + " (recorded steps " + std::to_string(recording.frameInfo(0).step) + ".." +
                     std::to_string(recording.frameInfo(recording.size() - 1).step) + ", every " +
                     std::to_string(recording.options().every) + ")");
    }
    r.index = *found;
  }
  const std::string scene = !o.setup.input.file.empty() ? o.setup.input.file : o.setup.input.scene;
  const WorldSetup setup = setupFromRecording(recording, scene, o.setup.input.import.packagePath);
  prepareWorld(world, setup, o.quiet);
  try {
    recording.checkLayout(world);
  } catch (const LayoutIncompatible& e) {
    throw CliError("the replay does not fit the scene: " + std::string(e.what()));
  }
  return r;
}

// The plot of a --plot name.
viewer::PlotSpec plotSpec(const std::string& name, const StateColumns& columns) {
  viewer::PlotSpec spec;
  spec.label = name;
  if (name == "energy") {
    spec.quantity = viewer::PlotQuantity::TotalEnergy;
  } else if (name == "kinetic") {
    spec.quantity = viewer::PlotQuantity::KineticEnergy;
  } else if (name == "potential") {
    spec.quantity = viewer::PlotQuantity::PotentialEnergy;
  } else if (name == "residual") {
    spec.quantity = viewer::PlotQuantity::ClosureResidual;
  } else if (name == "solve-residual") {
    spec.quantity = viewer::PlotQuantity::SolverResidual;
  } else if (name.rfind("q:", 0) == 0) {
    spec.quantity = viewer::PlotQuantity::Position;
    try {
      spec.index = columns.resolvePosition(name.substr(2));
    } catch (const InvalidArgument& e) {
      throw CliError("--plot " + name + ": " + e.what());
    }
  } else if (name.rfind("v:", 0) == 0) {
    spec.quantity = viewer::PlotQuantity::Velocity;
    const auto& names = columns.velocityNames();
    const auto it = std::find(names.begin(), names.end(), name.substr(2));
    if (it == names.end()) {
      throw CliError("--plot " + name + ": no velocity coordinate '" + name.substr(2) +
                     "' (names as in the CSV header of run --csv, e.g. v:" + (names.empty() ? "JOINT" : names[0]) +
                     ")");
    }
    spec.index = static_cast<int>(it - names.begin());
  } else {
    usageError("--plot: unknown quantity '" + name +
               "' (energy, kinetic, potential, residual, solve-residual, q:NAME or v:NAME)");
  }
  return spec;
}

// How many frames of history the plots show at most.
constexpr std::size_t kPlotHistory = 2000;

}  // namespace

int renderCommand(const std::vector<std::string>& argv) {
  RenderOptions o = parseRender(argv);
  World world;
  std::optional<LoadedReplay> replay;
  if (!o.replay.empty()) {
    replay = loadReplay(world, o);
  } else {
    prepareWorld(world, o.setup, o.quiet);
  }
  // The context first: without a display nothing is simulated in vain.
  std::unique_ptr<viewer::Viewport> viewport;
  try {
    viewport = viewer::Viewport::createOffscreen(o.width, o.height);
  } catch (const viewer::ViewerError& e) {
    throw CliError(std::string("render: ") + e.what());
  }
  auto description = std::make_shared<viewer::SceneDescription>(viewer::describeScene(world));
  viewer::Overlay& overlay = viewport->overlay();
  overlay.setDescription(description);
  const StateColumns columns(world);
  for (const std::string& name : o.plots) overlay.addPlot(plotSpec(name, columns));

  // The state to draw; with plots, the states before it feed them.
  viewer::RenderSnapshot snapshot;
  std::uint64_t version = 0;
  const auto feed = [&] {
    viewer::fillRenderSnapshot(world, *description, snapshot);
    snapshot.version = ++version;
    if (o.overlay) overlay.feed(snapshot);
  };
  std::string what;
  if (replay) {
    std::size_t first = replay->index;
    if (!o.plots.empty()) first = replay->index + 1 > kPlotHistory ? replay->index + 1 - kPlotHistory : 0;
    for (std::size_t i = first; i <= replay->index; ++i) {
      replay->recording.restore(world, i);
      if (!o.plots.empty() || i == replay->index) feed();
    }
    what = o.replay + " step " + std::to_string(replay->recording.frameInfo(replay->index).step);
  } else {
    const long steps = o.steps.value_or(0);
    if (o.plots.empty()) {
      if (steps > 0) world.step(static_cast<std::size_t>(steps));
    } else {
      for (long k = 0; k < steps; ++k) {
        if (steps - k <= static_cast<long>(kPlotHistory)) feed();
        world.step();
      }
    }
    feed();
    what = (o.setup.input.file.empty() ? "built-in scene " + o.setup.input.scene : o.setup.input.file);
    if (o.steps) what += " after " + std::to_string(*o.steps) + " steps";
  }

  viewer::SceneView scene;
  scene.setDescription(description);
  scene.applySnapshot(snapshot);
  std::uint32_t layers = o.layers.value_or(viewer::kDefaultLayers);
  for (const std::string& n : o.show) layers |= static_cast<std::uint32_t>(*viewer::layerFromName(n));
  for (const std::string& n : o.hide) layers &= ~static_cast<std::uint32_t>(*viewer::layerFromName(n));
  scene.setLayers(layers);

  viewport->setScene(&scene);
  viewport->setOverlayEnabled(o.overlay);
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

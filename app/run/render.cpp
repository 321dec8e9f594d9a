// articula-run render: draws a scene, or one frame of a replay, into a PNG
// without a window (an offscreen OpenGL context: needs an X display, e.g.
// xvfb-run).
#include <articula/io/state_columns.hpp>
#include "cli.hpp"
#include "commands.hpp"
#include "progress.hpp"
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

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <numbers>
#include <optional>
#include <sstream>
#include <stdexcept>

extern char** environ;

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
  // --video
  std::string video;
  std::string codec;  ///< h264 or vp9 (default: by the extension)
  double fps = 30.0;
  std::optional<double> from, to;
  double speed = 1.0;
  std::string follow;
  std::optional<double> duration;  ///< a FILE simulated for the video (default 5 s)
  bool progressLines = false;      ///< --progress: "frame K N" on stdout after each frame (for programs)
  double orbit = 0.0;              ///< --orbit: degrees per second of video about the camera's centre
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

// Whether --camera text could name a viewpoint (no eye:center numbers).
bool isViewpointName(const std::string& text) {
  return !text.empty() && text.find_first_of(":, \t") == std::string::npos;
}

// --camera text that is not a viewpoint of `world`, parsed as a view.
// @throws CliError naming the scene's viewpoints when it is neither.
viewer::CameraSpec cameraView(const std::string& text, const World& world) {
  try {
    return viewer::parseCameraSpec(text);
  } catch (const std::invalid_argument& e) {
    std::string names;
    for (const ViewpointSpec& v : world.getViewpoints()) names += (names.empty() ? "" : ", ") + v.name;
    throw CliError("--camera: '" + text + "' is neither a viewpoint of the scene (" +
                   (names.empty() ? std::string("it has none") : "it has " + names) + ") nor a view: " + e.what());
  }
}

// --camera VIEW on `viewport`: a viewpoint of the scene (by name; it wins
// over a preset of the same name), a preset, "fit", or eye:center. Presets
// and "fit" frame the scene.
void applyCamera(const std::string& text, const World& world, viewer::Viewport& viewport) {
  viewer::OrbitCamera& camera = viewport.camera();
  if (const std::optional<ViewpointSpec> v = world.getViewpoint(text)) {
    camera.setView(v->eye, v->center);
    camera.setFieldOfView(v->fovYDegrees);
    return;
  }
  const viewer::CameraSpec spec = cameraView(text, world);
  if (spec.hasEyeCenter) {
    camera.setView(spec.eye, spec.center);
  } else {
    if (!spec.preset.empty() && spec.preset != "fit") camera.setPreset(spec.preset);
    viewport.fitToScene();
  }
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
    } else if (a == "--video") {
      o.video = args.value();
    } else if (a == "--codec") {
      o.codec = args.value();
    } else if (a == "--fps") {
      o.fps = parseDouble(a, args.value());
      if (!(o.fps >= 1.0 && o.fps <= 240.0)) usageError("--fps must be in [1, 240]");
    } else if (a == "--from") {
      o.from = parseDouble(a, args.value());
    } else if (a == "--to") {
      o.to = parseDouble(a, args.value());
    } else if (a == "--speed") {
      o.speed = parseDouble(a, args.value());
      if (!(o.speed > 0.0 && o.speed <= 1000.0)) usageError("--speed must be in (0, 1000]");
    } else if (a == "--orbit") {
      o.orbit = parseDouble(a, args.value());
      if (!std::isfinite(o.orbit) || std::abs(o.orbit) > 3600.0) usageError("--orbit must be in [-3600, 3600] deg/s");
    } else if (a == "--progress") {
      args.noValue();
      o.progressLines = true;
    } else if (a == "--follow") {
      o.follow = args.value();
    } else if (a == "--duration") {
      o.duration = parseDouble(a, args.value());
      if (!(*o.duration > 0.0)) usageError("--duration must be positive");
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
  if (o.out.empty() && o.video.empty()) usageError("render needs --out IMG.png or --video OUT.mp4");
  if (!o.out.empty() && !o.video.empty()) usageError("give either --out IMG.png or --video OUT.mp4, not both");
  if (o.video.empty() && (o.from || o.to || !o.follow.empty() || o.duration || !o.codec.empty() || o.orbit != 0.0)) {
    usageError("--from, --to, --follow, --orbit, --duration and --codec go with --video");
  }
  if (!o.video.empty()) {
    std::string ext = fs::path(o.video).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (o.codec.empty()) {
      if (ext == ".mp4") o.codec = "h264";
      if (ext == ".webm") o.codec = "vp9";
    }
    if (o.codec.empty()) usageError("--video: unknown format '" + ext + "' (.mp4 for H.264, .webm for VP9)");
    if (o.codec != "h264" && o.codec != "vp9") usageError("--codec: unknown codec '" + o.codec + "' (h264 or vp9)");
    if ((o.codec == "h264" && ext != ".mp4") || (o.codec == "vp9" && ext != ".webm")) {
      usageError("--codec " + o.codec + " writes " + (o.codec == "h264" ? ".mp4" : ".webm") + " files, not '" + ext +
                 "'");
    }
    if (o.width % 2 != 0 || o.height % 2 != 0) usageError("--size: a video needs an even width and height");
    if (o.frame || o.steps || o.overlay) usageError("--frame, --steps and --overlay are for single images");
    if (o.from && o.to && !(*o.to > *o.from)) usageError("--to must be after --from");
    if (!o.replay.empty() && o.duration) usageError("--duration simulates a scene; a replay has its own");
    checkOutputOption("--video", o.video);
    o.out.clear();
  }
  if (!input.file.empty() && !input.scene.empty()) usageError("give either FILE or --scene, not both");
  if (o.replay.empty() && input.file.empty() && input.scene.empty()) {
    usageError(
        "render needs a FILE (.articula, .urdf, .sdf, .world or MJCF .xml), --scene NAME or --replay FILE.replay");
  }
  if (o.frame && o.replay.empty()) usageError("--frame needs --replay FILE.replay");
  if (o.steps && !o.replay.empty())
    usageError("--steps simulates a scene; with --replay choose the state with --frame");
  for (const std::string& n : o.show) parseLayer("--show", n);
  for (const std::string& n : o.hide) parseLayer("--hide", n);
  const fs::path dir = fs::path(o.video.empty() ? o.out : o.video).parent_path();
  std::error_code ec;
  const char* option = o.video.empty() ? "--out" : "--video";
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    throw CliError(std::string(option) + ": '" + dir.string() + "' is not a directory");
  }
  if (o.video.empty()) checkOutputOption("--out", o.out);
  try {
    (void)viewer::parseCameraSpec(o.camera);
  } catch (const std::invalid_argument& e) {
    // A plain name may be one of the scene's viewpoints (checked once it is read).
    if (!isViewpointName(o.camera)) usageError(std::string("--camera: ") + e.what());
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

// Raw RGBA frames piped into Debian's ffmpeg program, which encodes them
// (H.264 in MP4 or VP9 in WebM) into a temporary file beside the target;
// finish() waits for it and renames the file over the target. The project
// runs the program and links none of FFmpeg's libraries: its licence and
// the codecs' stay with the program.
class VideoEncoder {
 public:
  VideoEncoder(const std::string& target, const std::string& codec, int width, int height, double fps)
      : m_target(target), m_width(width), m_height(height) {
    const fs::path t(target);
    m_temp = (t.has_parent_path() ? t.parent_path() : fs::path(".")) /
             ("." + t.filename().string() + ".tmp-" + std::to_string(::getpid()));
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.10g", fps);
    std::vector<std::string> args = {"ffmpeg",     "-hide_banner", "-loglevel",
                                     "error",      "-nostdin",     "-y",
                                     "-f",         "rawvideo",     "-pix_fmt",
                                     "rgba",       "-s",           std::to_string(width) + "x" + std::to_string(height),
                                     "-framerate", rate,           "-i",
                                     "-",          "-an"};
    if (codec == "h264") {
      args.insert(args.end(), {"-c:v", "libx264", "-preset", "medium", "-crf", "18", "-pix_fmt", "yuv420p", "-movflags",
                               "+faststart", "-f", "mp4"});
    } else {
      args.insert(args.end(), {"-c:v", "libvpx-vp9", "-crf", "30", "-b:v", "0", "-row-mt", "1", "-pix_fmt", "yuv420p",
                               "-f", "webm"});
    }
    args.push_back(m_temp.string());
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw CliError(std::string("--video: cannot make a pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawnp(&m_pid, "ffmpeg", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    if (rc != 0) {
      ::close(fds[1]);
      throw CliError(rc == ENOENT ? std::string("--video: ffmpeg was not found on PATH (Debian: apt install ffmpeg)")
                                  : std::string("--video: cannot start ffmpeg: ") + std::strerror(rc));
    }
    m_pipe = fds[1];
  }
  ~VideoEncoder() {
    if (m_pipe >= 0) ::close(m_pipe);
    if (m_pid > 0) {
      int status = 0;
      ::waitpid(m_pid, &status, 0);
    }
    if (!m_done) {
      std::error_code ec;
      fs::remove(m_temp, ec);
    }
  }
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  void write(const viewer::Image& image) {
    if (image.width != m_width || image.height != m_height) throw CliError("--video: a frame has the wrong size");
    const std::uint8_t* data = image.rgba.data();
    std::size_t left = image.rgba.size();
    while (left > 0) {
      const ssize_t n = ::write(m_pipe, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw CliError("--video: ffmpeg stopped taking frames (" + std::string(std::strerror(errno)) + ")");
      data += n;
      left -= static_cast<std::size_t>(n);
    }
  }

  void finish() {
    ::close(m_pipe);
    m_pipe = -1;
    int status = 0;
    ::waitpid(m_pid, &status, 0);
    m_pid = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      throw CliError("--video: ffmpeg failed (exit status " +
                     std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "); " + m_target +
                     " was not written");
    }
    std::error_code ec;
    fs::rename(m_temp, m_target, ec);
    if (ec) throw CliError("--video: cannot put " + m_target + " in place: " + ec.message());
    m_done = true;
  }

 private:
  std::string m_target;
  fs::path m_temp;
  int m_width, m_height;
  pid_t m_pid = 0;
  int m_pipe = -1;
  bool m_done = false;
};

// render --video: frame k shows the state at T0 + k·speed/fps (a replay's
// recorded frame at or before that time, or the simulated world's), drawn
// with one camera (fitted to the first frame unless --camera gives one;
// --follow moves its centre with a body, the view direction kept).
int renderVideo(const RenderOptions& o, World& world, const std::optional<LoadedReplay>& replay,
                viewer::Viewport& viewport, const std::shared_ptr<viewer::SceneDescription>& description) {
  const double dt = world.getOptions().timeStep;
  double start = 0.0;
  double end = 0.0;
  if (replay) {
    const Recording& r = replay->recording;
    start = r.frameInfo(0).time;
    end = r.frameInfo(r.size() - 1).time;
  } else {
    start = world.getTime();
    end = start + o.duration.value_or(5.0);
  }
  const double t0 = o.from.value_or(start);
  const double t1 = o.to.value_or(end);
  if (t0 < start - 1e-9 || t0 >= end) {
    throw CliError("--from " + formatNumber(t0) + " is outside the " + (replay ? "recording" : "run") + " (" +
                   formatNumber(start) + " to " + formatNumber(end) + " s)");
  }
  const long frames = std::max(1L, std::lround((std::min(t1, end) - t0) * o.fps / o.speed));
  std::optional<Frame> followed;
  if (!o.follow.empty()) followed = resolveFrame(world, o.follow, "--follow");

  viewer::SceneView scene;
  scene.setDescription(description);
  std::uint32_t layers = o.layers.value_or(viewer::kDefaultLayers);
  for (const std::string& n : o.show) layers |= static_cast<std::uint32_t>(*viewer::layerFromName(n));
  for (const std::string& n : o.hide) layers &= ~static_cast<std::uint32_t>(*viewer::layerFromName(n));
  scene.setLayers(layers);
  viewport.setScene(&scene);
  viewport.setOverlayEnabled(false);

  VideoEncoder encoder(o.video, o.codec, o.width, o.height, o.fps);
  ProgressBar progress(!o.quiet && isatty(STDERR_FILENO) != 0, frames);
  viewer::RenderSnapshot snapshot;
  std::uint64_t version = 0;
  std::optional<std::size_t> shown;
  Vector3d center = Vector3d::Zero();
  Vector3d previous = Vector3d::Zero();
  // The followed centre trails the body with a time constant of 0.2 s of video: no jitter.
  const double smoothing = 1.0 - std::exp(-1.0 / (0.2 * o.fps));
  for (long k = 0; k < frames; ++k) {
    const double t = t0 + static_cast<double>(k) * o.speed / o.fps;
    if (replay) {
      // The last recorded frame at or before t (times increase with the index).
      const Recording& r = replay->recording;
      std::size_t index = shown.value_or(0);
      while (index + 1 < r.size() && r.frameInfo(index + 1).time <= t + 1e-9) ++index;
      if (shown != index) r.restore(world, index);
      shown = index;
    } else {
      while (world.getTime() + 0.5 * dt < t) {
        world.step();
        const StepDiagnostics& d = world.getStepDiagnostics();
        if (d.failed)
          throw CliError("the simulation diverged at t = " + formatNumber(world.getTime()) + " s: " + d.message);
      }
    }
    viewer::fillRenderSnapshot(world, *description, snapshot);
    snapshot.version = ++version;
    scene.applySnapshot(snapshot);
    viewer::OrbitCamera& camera = viewport.camera();
    if (k == 0) {
      applyCamera(o.camera, world, viewport);
      if (followed) center = previous = followed->getWorldTransform().translation();
    }
    if (o.orbit != 0.0 && k > 0) {
      // Around the centre, at a steady rate of video time; distance and elevation kept.
      camera.setOrbit(camera.center(), camera.distance(), camera.azimuth() + o.orbit * std::numbers::pi / 180.0 / o.fps,
                      camera.elevation());
    }
    if (followed) {
      // The centre moves with the body's own motion since the last frame and
      // closes the remaining gap gradually: no lag behind a steady motion,
      // no jerk from a sudden one.
      const Vector3d p = followed->getWorldTransform().translation();
      const Vector3d predicted = center + (p - previous);
      center = predicted + smoothing * (p - predicted);
      previous = p;
      camera.setCenter(center);
    }
    viewport.renderFrame();
    encoder.write(viewport.grab());
    progress.update(k + 1, t);
    if (o.progressLines) {
      std::printf("frame %ld %ld\n", k + 1, frames);
      std::fflush(stdout);
    }
  }
  progress.finish(frames, t0 + static_cast<double>(frames - 1) * o.speed / o.fps);
  encoder.finish();
  if (!o.quiet) {
    std::cerr << "articula-run: wrote " << frames << " frames (" << formatNumber(t0) << " to "
              << formatNumber(t0 + static_cast<double>(frames) * o.speed / o.fps) << " s of simulated time, "
              << formatNumber(static_cast<double>(frames) / o.fps) << " s of video at " << formatNumber(o.fps)
              << " fps, " << o.codec << ") to " << o.video << "\n"
              << std::flush;
  }
  return kExitOk;
}

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
  // A mistyped viewpoint fails before anything is simulated or encoded.
  if (!world.getViewpoint(o.camera)) (void)cameraView(o.camera, world);
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
  if (!o.video.empty()) return renderVideo(o, world, replay, *viewport, description);

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
  applyCamera(o.camera, world, *viewport);
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

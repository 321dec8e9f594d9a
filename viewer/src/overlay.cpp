#include <articula/viewer/overlay.hpp>

#include <articula/error.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <GL/glx.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace articula::viewer {

namespace {

constexpr int kNumKeys = static_cast<int>(OverlayKey::Z) + 1;
constexpr int kNumMouseButtons = 3;
/// Typed characters kept between two frames (more are dropped: nobody types
/// that fast, and a hidden overlay must not queue input forever).
constexpr std::size_t kMaxPendingCharacters = 64;
constexpr float kMargin = 10.0f;
constexpr float kPanelAlpha = 0.85f;
constexpr float kPlotWidth = 300.0f;
constexpr float kPlotHeight = 70.0f;

/// Makes an ImGui context current for a scope and restores the previous one
/// (ImGui's current context is a process global shared by every user).
class CurrentContext {
 public:
  explicit CurrentContext(ImGuiContext* context) : previous_(ImGui::GetCurrentContext()) {
    ImGui::SetCurrentContext(context);
  }
  ~CurrentContext() { ImGui::SetCurrentContext(previous_); }
  CurrentContext(const CurrentContext&) = delete;
  CurrentContext& operator=(const CurrentContext&) = delete;

 private:
  ImGuiContext* previous_;
};

const char* quantityName(PlotQuantity q) {
  switch (q) {
    case PlotQuantity::TotalEnergy:
      return "Total energy (J)";
    case PlotQuantity::KineticEnergy:
      return "Kinetic energy (J)";
    case PlotQuantity::PotentialEnergy:
      return "Potential energy (J)";
    case PlotQuantity::ClosureResidual:
      return "Max closure residual";
    case PlotQuantity::SolverResidual:
      return "Solve residual (log10 m/s)";
    case PlotQuantity::Position:
      return "q";
    case PlotQuantity::Velocity:
      return "v";
    case PlotQuantity::Sensor:
      return "sensor";
    case PlotQuantity::JointForce:
      return "joint force";
  }
  return "";
}

bool isCoordinate(PlotQuantity q) {
  return q == PlotQuantity::Position || q == PlotQuantity::Velocity || q == PlotQuantity::JointForce;
}

/// ImGui::PlotLines reads the ring through this getter: no copy per frame.
float plotValue(void* data, int idx) {
  const auto* buffer = static_cast<const PlotBuffer*>(data);
  return static_cast<float>(buffer->value(static_cast<std::size_t>(idx)));
}

}  // namespace

struct Overlay::Impl {
  struct Plot {
    int id = 0;
    PlotSpec spec;
    PlotBuffer buffer;
  };

  ImGuiContext* context = nullptr;

  // GL renderer state.
  bool glReady = false;
  bool glFailed = false;           ///< the renderer could not be set up: draw nothing
  GLXContext glContext = nullptr;  ///< the GLX context render() set up the renderer in (null: not GLX)

  std::shared_ptr<const SceneDescription> description;
  std::vector<std::unique_ptr<Plot>> plots;  ///< unique_ptr: plotData() references stay valid
  int nextPlotId = 1;

  // The latest fed snapshot's numbers.
  bool fedAny = false;
  std::uint64_t lastVersion = 0;
  std::uint64_t lastDescriptionVersion = 0;
  double simTime = 0.0;
  std::uint64_t step = 0;
  SimulationStats stats;

  // Input since the last frame. A press is remembered until the next frame
  // even if the release came first, so quick clicks are not lost.
  float mouseX = -1.0f;
  float mouseY = -1.0f;
  std::array<bool, kNumMouseButtons> mouseDown{};
  std::array<bool, kNumMouseButtons> mousePressed{};
  float wheel = 0.0f;
  std::array<bool, kNumKeys> keyDown{};
  std::array<bool, kNumKeys> keyPressed{};
  bool ctrl = false;
  bool shift = false;
  bool alt = false;
  std::vector<unsigned int> characters;

  bool visible = true;
  bool statsVisible = true;
  /// Right edge of the stats panel as last drawn (pixels); the usual width
  /// of the panel with the default font until then.
  double statsRight = static_cast<double>(kMargin) + 290.0;
  bool plotsVisible = true;
  bool wantMouse = false;
  bool wantKeyboard = false;

  /// Display width the plots window was last placed for: it sits at the
  /// top-right corner and is put back there when the width changes, so it
  /// does not end up off screen (0: not placed yet).
  int plotsPlacedWidth = 0;

  std::string scratch;

  Plot* findPlot(int id) const {
    for (const auto& p : plots) {
      if (p->id == id) return p.get();
    }
    return nullptr;
  }

  std::string labelOf(const PlotSpec& spec) const {
    if (!spec.label.empty()) return spec.label;
    if (spec.quantity == PlotQuantity::Sensor) {
      if (description) {
        for (const SensorDescription& s : description->sensors) {
          const int k = spec.index - s.offset;
          if (k >= 0 && k < static_cast<int>(s.valueNames.size())) {
            return s.name + ":" + s.valueNames[static_cast<std::size_t>(k)];
          }
        }
      }
      return "sensor[" + std::to_string(spec.index) + "]";
    }
    if (isCoordinate(spec.quantity)) {
      const bool position = spec.quantity == PlotQuantity::Position;
      const char* prefix = spec.quantity == PlotQuantity::JointForce ? "force " : "";
      if (description && spec.index >= 0) {
        const auto& names = position ? description->positionNames : description->velocityNames;
        const auto i = static_cast<std::size_t>(spec.index);
        if (i < names.size() && !names[i].empty()) return prefix + names[i];
      }
      return std::string(position                                    ? "q["
                         : spec.quantity == PlotQuantity::JointForce ? "force["
                                                                     : "v[") +
             std::to_string(spec.index) + "]";
    }
    return quantityName(spec.quantity);
  }

  void clearInput() {
    mousePressed.fill(false);
    keyPressed.fill(false);
    wheel = 0.0f;
    characters.clear();
  }

  void applyInput(ImGuiIO& io) {
    io.MousePos = ImVec2(mouseX, mouseY);
    for (int b = 0; b < kNumMouseButtons; ++b) {
      io.MouseDown[b] = mouseDown[static_cast<std::size_t>(b)] || mousePressed[static_cast<std::size_t>(b)];
    }
    io.MouseWheel += wheel;
    for (int k = 0; k < kNumKeys; ++k) {
      const auto i = static_cast<std::size_t>(k);
      io.KeysDown[k] = keyDown[i] || keyPressed[i];
    }
    io.KeyCtrl = ctrl;
    io.KeyShift = shift;
    io.KeyAlt = alt;
    for (unsigned int c : characters) io.AddInputCharacter(c);
    clearInput();
  }

  void drawStats(const ViewerStats& viewer);
  void drawPlots(int width);
};

namespace {

/// One "label   value" line of the stats panel with the values aligned.
void statRow(const char* label, const char* value) {
  ImGui::TextUnformatted(label);
  ImGui::SameLine(ImGui::GetFontSize() * 11.0f);
  ImGui::TextUnformatted(value);
}

}  // namespace

void Overlay::Impl::drawStats(const ViewerStats& viewer) {
  ImGui::SetNextWindowPos(ImVec2(kMargin, kMargin), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(kPanelAlpha);
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("Stats", nullptr, flags)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.1f FPS (%.2f ms)", viewer.framesPerSecond, viewer.frameMilliseconds);
    statRow("Viewer", buf);
    if (!fedAny) {
      ImGui::TextDisabled("No simulation data");
    } else {
      statRow("Mode", stats.simulationMode ? "simulation" : "design");
      std::snprintf(buf, sizeof buf, "%.4f s", simTime);
      statRow("Time", buf);
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(step));
      statRow("Step", buf);
      if (stats.realTimeFactor > 0.0) {
        std::snprintf(buf, sizeof buf, "%.2f", stats.realTimeFactor);
      } else {
        std::snprintf(buf, sizeof buf, "-");
      }
      statRow("Real-time factor", buf);
      std::snprintf(buf, sizeof buf, "%.0f", stats.stepsPerSecond);
      statRow("Steps/s", buf);

      ImGui::Separator();
      // "µs" as UTF-8 (U+00B5 is in the default font's Latin-1 range).
      ImGui::TextUnformatted("Step time (\xC2\xB5s)");
      const StepTimings& t = stats.timings;
      const std::pair<const char*, double> stages[] = {{"  control", t.control},       {"  kinematics", t.kinematics},
                                                       {"  collision", t.collision},   {"  dynamics", t.dynamics},
                                                       {"  solve", t.solve},           {"  integration", t.integration},
                                                       {"  projection", t.projection}, {"  total", t.total}};
      for (const auto& [name, seconds] : stages) {
        std::snprintf(buf, sizeof buf, "%9.1f", seconds * 1e6);
        statRow(name, buf);
      }

      ImGui::Separator();
      std::snprintf(buf, sizeof buf, "%d", stats.numContacts);
      statRow("Contacts", buf);
      std::snprintf(buf, sizeof buf, "%.6g J", stats.kineticEnergy);
      statRow("Kinetic energy", buf);
      std::snprintf(buf, sizeof buf, "%.6g J", stats.potentialEnergy);
      statRow("Potential energy", buf);
      std::snprintf(buf, sizeof buf, "%.6g J", stats.kineticEnergy + stats.potentialEnergy);
      statRow("Total energy", buf);
      std::snprintf(buf, sizeof buf, "%.3e", stats.maxClosureResidual);
      statRow("Closure residual", buf);
      std::snprintf(buf, sizeof buf, "%.2e m/s, %d it.%s", stats.solverResidual, stats.solverIterations,
                    stats.solverConverged ? "" : " NOT CONVERGED");
      statRow("Solve residual", buf);
    }
  }
  statsRight = static_cast<double>(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x);
  ImGui::End();
}

void Overlay::Impl::drawPlots(int width) {
  const bool resized = plotsPlacedWidth != 0 && width != plotsPlacedWidth;
  plotsPlacedWidth = width;
  ImGui::SetNextWindowPos(ImVec2(static_cast<float>(width) - kMargin, kMargin),
                          resized ? ImGuiCond_Always : ImGuiCond_FirstUseEver, ImVec2(1.0f, 0.0f));
  ImGui::SetNextWindowBgAlpha(kPanelAlpha);
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("Plots", nullptr, flags)) {
    char buf[128];
    for (const auto& plot : plots) {
      ImGui::PushID(plot->id);
      scratch = labelOf(plot->spec);
      ImGui::TextUnformatted(scratch.c_str());
      const PlotBuffer& b = plot->buffer;
      if (b.empty()) {
        ImGui::TextDisabled("no samples");
        ImGui::PlotLines("##plot", plotValue, const_cast<PlotBuffer*>(&b), 0, 0, nullptr, 0.0f, 1.0f,
                         ImVec2(kPlotWidth, kPlotHeight));
      } else {
        const double lo = b.minValue();
        const double hi = b.maxValue();
        std::snprintf(buf, sizeof buf, "%.6g   (min %.6g, max %.6g)", b.lastValue(), lo, hi);
        ImGui::TextUnformatted(buf);
        ImGui::PlotLines("##plot", plotValue, const_cast<PlotBuffer*>(&b), static_cast<int>(b.size()), 0, nullptr,
                         static_cast<float>(lo), static_cast<float>(hi), ImVec2(kPlotWidth, kPlotHeight));
      }
      ImGui::PopID();
    }
  }
  ImGui::End();
}

Overlay::Overlay() : impl_(std::make_unique<Impl>()) {
  impl_->characters.reserve(kMaxPendingCharacters);
  ImGuiContext* previous = ImGui::GetCurrentContext();
  impl_->context = ImGui::CreateContext();
  ImGui::SetCurrentContext(impl_->context);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.LogFilename = nullptr;
  // OverlayKey values are the indices into io.KeysDown.
  const std::pair<ImGuiKey_, OverlayKey> keys[] = {{ImGuiKey_Tab, OverlayKey::Tab},
                                                   {ImGuiKey_LeftArrow, OverlayKey::Left},
                                                   {ImGuiKey_RightArrow, OverlayKey::Right},
                                                   {ImGuiKey_UpArrow, OverlayKey::Up},
                                                   {ImGuiKey_DownArrow, OverlayKey::Down},
                                                   {ImGuiKey_PageUp, OverlayKey::PageUp},
                                                   {ImGuiKey_PageDown, OverlayKey::PageDown},
                                                   {ImGuiKey_Home, OverlayKey::Home},
                                                   {ImGuiKey_End, OverlayKey::End},
                                                   {ImGuiKey_Delete, OverlayKey::Delete},
                                                   {ImGuiKey_Backspace, OverlayKey::Backspace},
                                                   {ImGuiKey_Enter, OverlayKey::Enter},
                                                   {ImGuiKey_Escape, OverlayKey::Escape},
                                                   {ImGuiKey_Space, OverlayKey::Space},
                                                   {ImGuiKey_A, OverlayKey::A},
                                                   {ImGuiKey_C, OverlayKey::C},
                                                   {ImGuiKey_V, OverlayKey::V},
                                                   {ImGuiKey_X, OverlayKey::X},
                                                   {ImGuiKey_Y, OverlayKey::Y},
                                                   {ImGuiKey_Z, OverlayKey::Z}};
  for (const auto& [imguiKey, key] : keys) io.KeyMap[imguiKey] = static_cast<int>(key);
  ImGui::StyleColorsDark();
  ImGui::SetCurrentContext(previous);
}

Overlay::~Overlay() {
  if (!impl_ || !impl_->context) return;
  if (impl_->glReady) {
    CurrentContext scope(impl_->context);
    if (impl_->glContext != nullptr && glXGetCurrentContext() == impl_->glContext) {
      ImGui_ImplOpenGL3_Shutdown();
    } else {
      // The renderer's GL context is not current (maybe already gone):
      // no GL call is safe. Its objects go with their context; detaching
      // the renderer from the ImGui context leaves its small bookkeeping
      // block behind.
      ImGuiIO& io = ImGui::GetIO();
      io.BackendRendererUserData = nullptr;
      io.BackendRendererName = nullptr;
    }
  }
  ImGui::DestroyContext(impl_->context);
}

void Overlay::setDescription(std::shared_ptr<const SceneDescription> description) {
  impl_->description = std::move(description);
}

int Overlay::addPlot(const PlotSpec& spec) {
  auto plot = std::make_unique<Impl::Plot>();
  plot->id = impl_->nextPlotId++;
  plot->spec = spec;
  const int id = plot->id;
  impl_->plots.push_back(std::move(plot));
  return id;
}

void Overlay::removePlot(int id) {
  auto& plots = impl_->plots;
  plots.erase(std::remove_if(plots.begin(), plots.end(), [id](const auto& p) { return p->id == id; }), plots.end());
}

void Overlay::clearPlots() {
  impl_->plots.clear();
}

std::vector<PlotSpec> Overlay::plots() const {
  std::vector<PlotSpec> out;
  out.reserve(impl_->plots.size());
  for (const auto& p : impl_->plots) out.push_back(p->spec);
  return out;
}

std::vector<int> Overlay::plotIds() const {
  std::vector<int> out;
  out.reserve(impl_->plots.size());
  for (const auto& p : impl_->plots) out.push_back(p->id);
  return out;
}

std::string Overlay::plotLabel(int id) const {
  const Impl::Plot* p = impl_->findPlot(id);
  if (!p) throw InvalidArgument("Overlay::plotLabel: unknown plot id " + std::to_string(id));
  return impl_->labelOf(p->spec);
}

const PlotBuffer& Overlay::plotData(int id) const {
  const Impl::Plot* p = impl_->findPlot(id);
  if (!p) throw InvalidArgument("Overlay::plotData: unknown plot id " + std::to_string(id));
  return p->buffer;
}

void Overlay::resetFeed() {
  Impl& d = *impl_;
  d.fedAny = false;
  d.lastVersion = 0;
  d.lastDescriptionVersion = 0;
  d.simTime = 0.0;
  d.step = 0;
  d.stats = SimulationStats{};
  for (const auto& plot : d.plots) plot->buffer.clear();
}

bool Overlay::hasFeed() const {
  return impl_->fedAny;
}

double Overlay::statsPanelRight() const {
  return impl_->statsRight;
}

void Overlay::feed(const RenderSnapshot& snapshot) {
  Impl& d = *impl_;
  if (d.fedAny && snapshot.version <= d.lastVersion) return;
  const bool layoutChanged = d.fedAny && snapshot.descriptionVersion != d.lastDescriptionVersion;
  d.fedAny = true;
  d.lastVersion = snapshot.version;
  d.lastDescriptionVersion = snapshot.descriptionVersion;
  d.simTime = snapshot.time;
  d.step = snapshot.step;
  d.stats = snapshot.stats;

  for (const auto& plot : d.plots) {
    const PlotSpec& spec = plot->spec;
    double value = 0.0;
    switch (spec.quantity) {
      case PlotQuantity::TotalEnergy:
        value = snapshot.stats.kineticEnergy + snapshot.stats.potentialEnergy;
        break;
      case PlotQuantity::KineticEnergy:
        value = snapshot.stats.kineticEnergy;
        break;
      case PlotQuantity::PotentialEnergy:
        value = snapshot.stats.potentialEnergy;
        break;
      case PlotQuantity::ClosureResidual:
        value = snapshot.stats.maxClosureResidual;
        break;
      case PlotQuantity::SolverResidual:
        // Residuals span decades: plotted as log10, floored at 1e-16.
        value = std::log10(std::max(snapshot.stats.solverResidual, 1e-16));
        break;
      case PlotQuantity::Position:
      case PlotQuantity::Velocity: {
        if (layoutChanged) plot->buffer.clear();
        const auto& coords = spec.quantity == PlotQuantity::Position ? snapshot.positions : snapshot.velocities;
        if (spec.index < 0 || static_cast<std::size_t>(spec.index) >= coords.size()) continue;
        value = coords[static_cast<std::size_t>(spec.index)];
        break;
      }
      case PlotQuantity::Sensor:
      case PlotQuantity::JointForce: {
        if (layoutChanged) plot->buffer.clear();
        const auto& values = spec.quantity == PlotQuantity::Sensor ? snapshot.sensorValues : snapshot.jointForces;
        if (spec.index < 0 || static_cast<std::size_t>(spec.index) >= values.size()) continue;
        value = values[static_cast<std::size_t>(spec.index)];
        break;
      }
    }
    plot->buffer.push(snapshot.time, value);
  }
}

void Overlay::mouseMove(double x, double y) {
  impl_->mouseX = static_cast<float>(x);
  impl_->mouseY = static_cast<float>(y);
}

void Overlay::mouseButton(int button, bool pressed) {
  if (button < 0 || button >= kNumMouseButtons) return;
  const auto b = static_cast<std::size_t>(button);
  impl_->mouseDown[b] = pressed;
  if (pressed) impl_->mousePressed[b] = true;
}

void Overlay::mouseWheel(double steps) {
  impl_->wheel += static_cast<float>(steps);
}

void Overlay::key(OverlayKey key, bool pressed) {
  const int k = static_cast<int>(key);
  if (k < 0 || k >= kNumKeys) return;
  const auto i = static_cast<std::size_t>(k);
  impl_->keyDown[i] = pressed;
  if (pressed) impl_->keyPressed[i] = true;
}

void Overlay::modifiers(bool ctrl, bool shift, bool alt) {
  impl_->ctrl = ctrl;
  impl_->shift = shift;
  impl_->alt = alt;
}

void Overlay::text(unsigned int codepoint) {
  if (impl_->characters.size() < kMaxPendingCharacters) impl_->characters.push_back(codepoint);
}

bool Overlay::wantsMouse() const {
  return impl_->visible && impl_->wantMouse;
}
bool Overlay::wantsKeyboard() const {
  return impl_->visible && impl_->wantKeyboard;
}

void Overlay::setVisible(bool visible) {
  impl_->visible = visible;
  if (!visible) {
    impl_->wantMouse = false;
    impl_->wantKeyboard = false;
  }
}
bool Overlay::isVisible() const {
  return impl_->visible;
}
void Overlay::setStatsVisible(bool visible) {
  impl_->statsVisible = visible;
}
bool Overlay::isStatsVisible() const {
  return impl_->statsVisible;
}
void Overlay::setPlotsVisible(bool visible) {
  impl_->plotsVisible = visible;
}
bool Overlay::arePlotsVisible() const {
  return impl_->plotsVisible;
}

void Overlay::render(int width, int height, double deltaSeconds, const ViewerStats& viewerStats) {
  Impl& d = *impl_;
  if (!d.visible || width <= 0 || height <= 0 || d.glFailed) {
    // Input meant for a hidden overlay is dropped, not replayed later.
    d.clearInput();
    return;
  }
  CurrentContext scope(d.context);
  if (!d.glReady) {
    if (!ImGui_ImplOpenGL3_Init("#version 130")) {
      d.glFailed = true;
      return;
    }
    d.glReady = true;
    d.glContext = glXGetCurrentContext();
  }

  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
  io.DeltaTime = deltaSeconds > 0.0 ? static_cast<float>(deltaSeconds) : 1.0f / 60.0f;
  d.applyInput(io);

  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  if (d.statsVisible) d.drawStats(viewerStats);
  if (d.plotsVisible && !d.plots.empty()) d.drawPlots(width);
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

  d.wantMouse = io.WantCaptureMouse;
  d.wantKeyboard = io.WantCaptureKeyboard;
}

void Overlay::releaseGL() {
  Impl& d = *impl_;
  if (!d.glReady) return;
  CurrentContext scope(d.context);
  ImGui_ImplOpenGL3_Shutdown();
  d.glReady = false;
  d.glContext = nullptr;
}

}  // namespace articula::viewer

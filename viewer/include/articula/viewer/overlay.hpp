#pragma once
/// @file
/// Overlay: the viewer's immediate-mode panels drawn over the 3D scene — a
/// stats panel (viewer frame rate, simulated time, step rate, per-stage step
/// times, contacts, energies, closure residual, mode) and live plots of
/// chosen quantities. It keeps its own ImGui context and draws with
/// OpenGL; both stay behind this header, which includes neither.
///
/// Threading: every member runs on the thread that owns the GL context (the
/// viewer's GUI/render thread). Snapshots come from the simulation thread
/// through the snapshot hand-off; feed() only copies numbers out of one.

#include <articula/viewer/plot_buffer.hpp>

#include <memory>
#include <string>
#include <vector>

namespace articula::viewer {

struct RenderSnapshot;
struct SceneDescription;

/// Numbers the host window measures about itself.
struct ViewerStats {
  double framesPerSecond = 0;
  double frameMilliseconds = 0;
};

enum class PlotQuantity {
  TotalEnergy,
  KineticEnergy,
  PotentialEnergy,
  ClosureResidual,
  SolverResidual,  ///< the constraint solve's residual (m/s), log scale
  Position,
  Velocity,
  Sensor,      ///< value `index` of the sensor readings (RenderSnapshot::sensorValues)
  JointForce,  ///< the generalized force through DoF `index` (RenderSnapshot::jointForces)
};

/// One live plot.
struct PlotSpec {
  PlotQuantity quantity = PlotQuantity::TotalEnergy;
  int index = -1;  ///< coordinate index into q (Position) or v (Velocity); unused otherwise
  /// Shown above the plot. Empty: the description's position/velocity name
  /// (or "q[i]" / "v[i]" without one) or the quantity's name.
  std::string label;
};

/// Keys the overlay understands (text editing and navigation); printable
/// characters arrive separately through Overlay::text().
enum class OverlayKey {
  Tab,
  Left,
  Right,
  Up,
  Down,
  PageUp,
  PageDown,
  Home,
  End,
  Delete,
  Backspace,
  Enter,
  Escape,
  Space,
  A,
  C,
  V,
  X,
  Y,
  Z
};

class Overlay {
 public:
  /// Creates the overlay's own ImGui context (no GL needed; no imgui.ini is
  /// read or written). Visible, with the stats panel and plots shown.
  Overlay();
  /// Frees the ImGui context. GL objects are freed only if a GL context is
  /// current and is the one render() used; otherwise call releaseGL() first
  /// (with that context current) — without it they are left to die with
  /// their context. Never issues GL calls when render() never ran or
  /// releaseGL() already did.
  ~Overlay();
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  /// The description whose coordinate names label Position/Velocity plots
  /// (may be null).
  void setDescription(std::shared_ptr<const SceneDescription> description);

  // ---- plots ---------------------------------------------------------------
  /// Adds a plot; returns its id (> 0, never reused by this overlay).
  int addPlot(const PlotSpec& spec);
  /// Removes a plot; unknown ids are ignored.
  void removePlot(int id);
  void clearPlots();
  /// The plots' specs as given to addPlot, in the order they were added.
  std::vector<PlotSpec> plots() const;
  /// The ids of plots(), same order.
  std::vector<int> plotIds() const;
  /// The label a plot is shown with (the spec's label, or the derived one).
  /// @throws articula::InvalidArgument for an unknown id.
  std::string plotLabel(int id) const;
  /// The samples of a plot. The reference stays valid until the plot is
  /// removed. @throws articula::InvalidArgument for an unknown id.
  const PlotBuffer& plotData(int id) const;

  /// Takes the numbers of a snapshot whose version is newer than the last fed
  /// one (an equal or older version is ignored) and appends, at
  /// snapshot.time, each plotted quantity: total energy = kinetic +
  /// potential (snapshot.stats), closure residual = stats.maxClosureResidual,
  /// Position/Velocity = snapshot.positions[index] / velocities[index] (an
  /// index out of range appends nothing). When the snapshot follows another
  /// description version than the previous one, coordinate plots are cleared
  /// first (index i may now be another coordinate). A time earlier than a
  /// plot's newest sample clears that plot (see PlotBuffer::push). The
  /// latest fed snapshot supplies the stats panel.
  void feed(const RenderSnapshot& snapshot);
  /// Forgets the snapshots fed so far (their numbers and the plots' data),
  /// for a new source whose versions start again from 1.
  void resetFeed();
  /// Whether a snapshot was fed since construction or the last
  /// resetFeed(): the stats panel shows its numbers (else "No simulation
  /// data").
  bool hasFeed() const;
  /// Right edge of the stats panel (pixels from the viewport's left edge)
  /// as last drawn; before it was first drawn, its usual width with the
  /// default font. The camera's fit keeps the scene to the right of it.
  double statsPanelRight() const;

  // ---- input from the host window -------------------------------------------
  /// Pixel coordinates, origin top-left, y down (the size given to render()).
  void mouseMove(double x, double y);
  /// button: 0 left, 1 right, 2 middle; others are ignored. A press and a
  /// release arriving between two frames still count as a click.
  void mouseButton(int button, bool pressed);
  /// Vertical wheel steps (positive: away from the user).
  void mouseWheel(double steps);
  void key(OverlayKey key, bool pressed);
  void modifiers(bool ctrl, bool shift, bool alt);
  /// A typed character (Unicode code point).
  void text(unsigned int codepoint);
  /// Whether the last rendered frame wants the mouse / keyboard for itself
  /// (the pointer is over a panel, a panel is being dragged, a text field
  /// has focus): the host should then not use the event for the 3D view.
  /// False while the overlay is hidden.
  bool wantsMouse() const;
  bool wantsKeyboard() const;

  // ---- what is shown -------------------------------------------------------
  void setVisible(bool visible);
  bool isVisible() const;
  void setStatsVisible(bool visible);
  bool isStatsVisible() const;
  void setPlotsVisible(bool visible);
  bool arePlotsVisible() const;

  // ---- drawing -------------------------------------------------------------
  /// Draws one frame of the overlay into the currently bound framebuffer,
  /// width × height pixels, with the OpenGL 3 renderer (GLSL 130). The GL
  /// context must be current and a compatibility context; the renderer is
  /// set up on the first call. GL state is saved and restored around the
  /// drawing, so the 3D renderer's state stays valid. deltaSeconds is the
  /// time since the previous frame (≤ 0: 1/60 s). Hidden: draws nothing.
  void render(int width, int height, double deltaSeconds, const ViewerStats& viewerStats);
  /// Frees the overlay's GL objects (shader, buffers, font texture). Call
  /// with the same context current, before it is destroyed. The next
  /// render() sets them up again.
  void releaseGL();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace articula::viewer

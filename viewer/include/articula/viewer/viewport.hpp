#pragma once
/// @file
/// Viewport: draws a SceneView with a camera the user orbits, pans and
/// zooms, an ImGui overlay, picking and the transform gizmo. Either
/// offscreen (its own pbuffer context, rendering into an image: needs an X
/// display, e.g. under xvfb-run) or embedded in a host window that owns the
/// OpenGL context (a QOpenGLWidget: the context must be current when
/// renderFrame and grab are called; it must be a compatibility context).
/// OpenSceneGraph stays out of this header.

#include <articula/viewer/camera.hpp>
#include <articula/viewer/image.hpp>
#include <articula/viewer/overlay.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/snapshot_publisher.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace articula::viewer {

enum class MouseButton { Left, Middle, Right };

struct KeyModifiers {
  bool shift = false;
  bool ctrl = false;
  bool alt = false;
};

class Viewport {
 public:
  /// An offscreen viewport of width × height pixels (no multisampling:
  /// the FBO multisample path of this OpenSceneGraph build fails on
  /// Mesa). @throws ViewerError when no OpenGL context can be made (no X
  /// display: run under xvfb-run).
  static std::unique_ptr<Viewport> createOffscreen(int width, int height);
  /// A viewport drawing into the host's current context and framebuffer.
  /// Destroy it with the host's context current (QOpenGLWidget: call
  /// makeCurrent() in the widget's destructor), or the overlay's OpenGL
  /// objects are not freed.
  static std::unique_ptr<Viewport> createEmbedded(int width, int height);
  ~Viewport();
  Viewport(const Viewport&) = delete;
  Viewport& operator=(const Viewport&) = delete;

  /// The scene to draw (not owned; must outlive its use here).
  void setScene(SceneView* scene);
  SceneView* scene() const;

  void resize(int width, int height);
  int width() const;
  int height() const;

  /// Draws one frame: the scene, then the overlay. Embedded viewports draw
  /// into `defaultFramebuffer` (QOpenGLWidget::defaultFramebufferObject()).
  void renderFrame(unsigned int defaultFramebuffer = 0);
  /// The pixels of the last frame (embedded: read back from the host's
  /// framebuffer; its context must be current).
  Image grab();

  OrbitCamera& camera();
  const OrbitCamera& camera() const;
  /// Frames the scene's bounds, keeping the viewing direction; while the
  /// stats panel shows, in the part of the view to the right of it.
  void fitToScene();

  /// The ray through a pixel (origin top-left).
  Ray rayAt(double x, double y) const;
  /// What the pixel shows (shapes only).
  std::optional<PickResult> pickAt(double x, double y) const;

  // ---- input from the host window (pixels, origin top-left) --------------
  // Left drag orbits (or drags a gizmo handle), middle drag or shift + left
  // drag pans, right drag zooms, the wheel zooms; a left click (press and
  // release within a few pixels) picks. The overlay takes the input it
  // wants first.
  void mousePress(MouseButton button, double x, double y, KeyModifiers modifiers = {});
  void mouseMove(double x, double y, KeyModifiers modifiers = {});
  void mouseRelease(MouseButton button, double x, double y, KeyModifiers modifiers = {});
  void mouseWheel(double steps, double x, double y);
  void key(OverlayKey key, bool pressed, KeyModifiers modifiers = {});
  void text(unsigned int codepoint);
  /// Called after a click with what it picked (nullopt: empty space).
  void setOnPick(std::function<void(const std::optional<PickResult>&)> callback);
  /// Whether a gizmo handle is being dragged.
  bool isDraggingGizmo() const;

  Overlay& overlay();
  void setOverlayEnabled(bool enabled);
  bool isOverlayEnabled() const;

  /// Takes the newest snapshot of `publisher` (viewer thread) and applies
  /// it to the scene and the overlay's plots; returns whether one arrived.
  bool pullSnapshot(SnapshotPublisher& publisher);

  /// The viewer's own frame rate (frames drawn per wall-clock second over
  /// the last ~0.5 s) and the last frame's drawing time; independent of
  /// the simulation's real-time factor.
  double framesPerSecond() const;
  double lastFrameMilliseconds() const;

 private:
  struct Impl;
  explicit Viewport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m;
};

}  // namespace articula::viewer

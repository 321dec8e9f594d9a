#include <articula/viewer/viewport.hpp>

#include <articula/viewer/viewer_error.hpp>

#include <osg/Camera>
#include <osg/FrameBufferObject>
#include <osg/GL>
#include <osg/GraphicsContext>
#include <osg/Image>
#include <osgUtil/RenderStage>
#include <osgUtil/SceneView>
#include <osgViewer/Renderer>
#include <osgViewer/Viewer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace articula::viewer {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kClickPixels = 4.0;   // a press and release closer than this is a click
constexpr double kGizmoPixels = 90.0;  // gizmo handle length on screen
constexpr double kGizmoPickPixels = 7.0;
constexpr double kZoomPerPixel = 0.1;  // right-drag zoom steps per pixel

osg::Matrixd toOsgMatrix(const Eigen::Matrix4d& m) {
  // OpenSceneGraph uses row vectors: its matrix is the transpose.
  return osg::Matrixd(m(0, 0), m(1, 0), m(2, 0), m(3, 0), m(0, 1), m(1, 1), m(2, 1), m(3, 1), m(0, 2), m(1, 2), m(2, 2),
                      m(3, 2), m(0, 3), m(1, 3), m(2, 3), m(3, 3));
}

// Runs after the scene is drawn: the overlay, and the offscreen readback.
class FinalDraw : public osg::Camera::DrawCallback {
 public:
  explicit FinalDraw(std::function<void(osg::RenderInfo&)> draw) : m_draw(std::move(draw)) {}
  void operator()(osg::RenderInfo& info) const override { m_draw(info); }

 private:
  std::function<void(osg::RenderInfo&)> m_draw;
};

}  // namespace

struct Viewport::Impl {
  bool offscreen = false;
  int width = 0;
  int height = 0;
  osg::ref_ptr<osgViewer::Viewer> viewer;
  osg::ref_ptr<osg::GraphicsContext> context;
  osg::ref_ptr<osgViewer::GraphicsWindowEmbedded> embedded;
  osg::ref_ptr<osg::Image> image;
  SceneView* scene = nullptr;
  OrbitCamera camera;
  Overlay overlay;
  bool overlayEnabled = true;
  std::function<void(const std::optional<PickResult>&)> onPick;
  const SnapshotPublisher* lastPublisher = nullptr;

  // Mouse state.
  bool pressed[3] = {false, false, false};
  double pressX = 0.0, pressY = 0.0, lastX = 0.0, lastY = 0.0;
  bool dragged = false;
  bool gizmoDrag = false;
  bool overlayOwnsDrag = false;

  // Frame timing.
  Clock::time_point lastFrame{};
  bool hasLastFrame = false;
  Clock::time_point rateAnchor{};
  int framesSinceAnchor = 0;
  double fps = 0.0;
  double frameMs = 0.0;

  void setUpCamera() {
    osg::Camera* cam = viewer->getCamera();
    cam->setViewport(0, 0, width, height);
    cam->setComputeNearFarMode(osg::CullSettings::DO_NOT_COMPUTE_NEAR_FAR);
    cam->setClearMask(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    viewer->setLightingMode(osg::View::NO_LIGHT);
    cam->setFinalDrawCallback(new FinalDraw([this](osg::RenderInfo& info) { finishFrame(info); }));
  }

  // Offscreen: the camera draws into a framebuffer object of renderbuffers;
  // finishFrame() draws the overlay into it and reads the pixels back
  // (OpenSceneGraph's own image readback runs before the final-draw
  // callback, so it would miss the overlay).
  void attachImage() {
    osg::Camera* cam = viewer->getCamera();
    cam->detach(osg::Camera::COLOR_BUFFER);
    cam->detach(osg::Camera::DEPTH_BUFFER);
    image = new osg::Image;
    image->allocateImage(width, height, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    cam->setRenderTargetImplementation(osg::Camera::FRAME_BUFFER_OBJECT);
    cam->attach(osg::Camera::COLOR_BUFFER, GL_RGBA8);
    cam->attach(osg::Camera::DEPTH_BUFFER, GL_DEPTH_COMPONENT24);
  }

  void finishFrame(osg::RenderInfo& info) {
    if (!offscreen) {
      drawOverlay();
      return;
    }
    osg::State& state = *info.getState();
    auto* renderer = dynamic_cast<osgViewer::Renderer*>(viewer->getCamera()->getRenderer());
    osg::FrameBufferObject* fbo = nullptr;
    if (renderer && renderer->getSceneView(0) && renderer->getSceneView(0)->getRenderStage()) {
      fbo = renderer->getSceneView(0)->getRenderStage()->getFrameBufferObject();
    }
    if (fbo == nullptr) return;
    fbo->apply(state, osg::FrameBufferObject::READ_DRAW_FRAMEBUFFER);
    drawOverlay();
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    image->readPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE);
    state.get<osg::GLExtensions>()->glBindFramebuffer(GL_FRAMEBUFFER_EXT,
                                                      state.getGraphicsContext()->getDefaultFboId());
  }

  void drawOverlay() {
    if (!overlayEnabled) return;
    ViewerStats stats;
    stats.framesPerSecond = fps;
    stats.frameMilliseconds = frameMs;
    const double dt = fps > 0.0 ? 1.0 / fps : 1.0 / 60.0;
    overlay.render(width, height, dt, stats);
  }

  Eigen::AlignedBox3d viewBounds() const {
    Eigen::AlignedBox3d b = scene ? scene->bounds() : Eigen::AlignedBox3d();
    if (scene && scene->isLayerVisible(Layer::Grid)) {
      const double z = b.isEmpty() ? 0.0 : b.min().z();
      b.extend(Vector3d(-10, -10, std::min(z, 0.0)));
      b.extend(Vector3d(10, 10, std::min(z, 0.0)));
    }
    return b;
  }

  void updateCamera() {
    osg::Camera* cam = viewer->getCamera();
    const double aspect = height > 0 ? static_cast<double>(width) / height : 1.0;
    auto [zNear, zFar] = camera.nearFar(viewBounds());
    // The plane shapes reach 20 m from the origin.
    zFar = std::max(zFar, camera.distance() + 40.0);
    zNear = std::max(zNear, zFar * 1e-5);
    cam->setViewMatrix(toOsgMatrix(camera.viewMatrix()));
    cam->setProjectionMatrix(toOsgMatrix(camera.projectionMatrix(aspect, zNear, zFar)));
    if (scene) {
      const Vector4d bg = scene->background();
      cam->setClearColor(osg::Vec4(static_cast<float>(bg[0]), static_cast<float>(bg[1]), static_cast<float>(bg[2]),
                                   static_cast<float>(bg[3])));
      if (scene->isGizmoVisible()) {
        Gizmo& g = scene->gizmo();
        g.setSize(kGizmoPixels * camera.metresPerPixel(g.pose().translation(), height));
        scene->updateGizmo();
      }
    }
  }

  void tickTiming(Clock::time_point start, Clock::time_point end) {
    frameMs = 1e3 * std::chrono::duration<double>(end - start).count();
    if (framesSinceAnchor == 0 && !hasLastFrame) rateAnchor = start;
    hasLastFrame = true;
    lastFrame = end;
    ++framesSinceAnchor;
    const double window = std::chrono::duration<double>(end - rateAnchor).count();
    if (window >= 0.5) {
      fps = framesSinceAnchor / window;
      framesSinceAnchor = 0;
      rateAnchor = end;
    }
  }

  double gizmoPickRadius() const {
    if (!scene) return 0.0;
    return kGizmoPickPixels * camera.metresPerPixel(scene->gizmo().pose().translation(), height);
  }
};

Viewport::Viewport(std::unique_ptr<Impl> impl) : m(std::move(impl)) {}

Viewport::~Viewport() {
  if (m->viewer && m->offscreen && m->context && m->context->valid()) {
    // Free the overlay's GL objects while its context exists.
    m->context->makeCurrent();
    m->overlay.releaseGL();
    m->context->releaseContext();
  }
}

std::unique_ptr<Viewport> Viewport::createOffscreen(int width, int height) {
  if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
    throw ViewerError("image size " + std::to_string(width) + "x" + std::to_string(height) +
                      " is out of range (1 to 16384 pixels per side)");
  }
  const char* display = std::getenv("DISPLAY");
  if (display == nullptr || *display == '\0') {
    throw ViewerError(
        "cannot create an offscreen OpenGL context: DISPLAY is not set (no X display; run under "
        "xvfb-run, e.g. xvfb-run -a articula-run render ...)");
  }
  auto impl = std::make_unique<Impl>();
  impl->offscreen = true;
  impl->width = width;
  impl->height = height;
  osg::ref_ptr<osg::GraphicsContext::Traits> traits = new osg::GraphicsContext::Traits;
  traits->readDISPLAY();
  traits->setUndefinedScreenDetailsToDefaultScreen();
  traits->x = 0;
  traits->y = 0;
  traits->width = width;
  traits->height = height;
  traits->red = traits->green = traits->blue = traits->alpha = 8;
  traits->depth = 24;
  traits->pbuffer = true;
  traits->doubleBuffer = false;
  traits->windowDecoration = false;
  impl->context = osg::GraphicsContext::createGraphicsContext(traits.get());
  if (!impl->context || !impl->context->valid()) {
    throw ViewerError("cannot create an offscreen OpenGL context on display '" + traits->displayName() +
                      "' (no X display? run under xvfb-run)");
  }
  impl->viewer = new osgViewer::Viewer;
  impl->viewer->setThreadingModel(osgViewer::Viewer::SingleThreaded);
  impl->viewer->getCamera()->setGraphicsContext(impl->context.get());
  impl->setUpCamera();
  impl->attachImage();
  impl->viewer->setSceneData(new osg::Group);
  impl->viewer->realize();
  return std::unique_ptr<Viewport>(new Viewport(std::move(impl)));
}

std::unique_ptr<Viewport> Viewport::createEmbedded(int width, int height) {
  auto impl = std::make_unique<Impl>();
  impl->width = std::max(1, width);
  impl->height = std::max(1, height);
  impl->viewer = new osgViewer::Viewer;
  impl->viewer->setThreadingModel(osgViewer::Viewer::SingleThreaded);
  impl->embedded = impl->viewer->setUpViewerAsEmbeddedInWindow(0, 0, impl->width, impl->height);
  impl->setUpCamera();
  impl->viewer->setSceneData(new osg::Group);
  impl->viewer->realize();
  return std::unique_ptr<Viewport>(new Viewport(std::move(impl)));
}

void Viewport::setScene(SceneView* scene) {
  m->scene = scene;
  m->viewer->setSceneData(scene ? scene->root() : new osg::Group);
  if (scene) m->overlay.setDescription(scene->description());
}
SceneView* Viewport::scene() const {
  return m->scene;
}

void Viewport::resize(int width, int height) {
  width = std::max(1, width);
  height = std::max(1, height);
  if (width == m->width && height == m->height) return;
  m->width = width;
  m->height = height;
  if (m->embedded) {
    m->embedded->resized(0, 0, width, height);
    m->embedded->getEventQueue()->windowResize(0, 0, width, height);
  }
  m->viewer->getCamera()->setViewport(0, 0, width, height);
  if (m->offscreen) {
    m->attachImage();
    // The render stage caches its framebuffer: rebuild it for the new size.
    m->viewer->getCamera()->setRenderingCache(nullptr);
  }
}
int Viewport::width() const {
  return m->width;
}
int Viewport::height() const {
  return m->height;
}

void Viewport::renderFrame(unsigned int defaultFramebuffer) {
  const auto start = Clock::now();
  if (m->embedded) m->embedded->setDefaultFboId(defaultFramebuffer);
  if (m->scene) m->overlay.setDescription(m->scene->description());
  m->updateCamera();
  m->viewer->frame();
  m->tickTiming(start, Clock::now());
}

Image Viewport::grab() {
  Image out;
  out.width = m->width;
  out.height = m->height;
  out.rgba.resize(static_cast<std::size_t>(m->width) * static_cast<std::size_t>(m->height) * 4);
  const auto rowBytes = static_cast<std::size_t>(m->width) * 4;
  if (m->offscreen) {
    if (!m->image || m->image->s() != m->width || m->image->t() != m->height) return out;
    for (int y = 0; y < m->height; ++y) {
      std::memcpy(out.rgba.data() + static_cast<std::size_t>(y) * rowBytes, m->image->data(0, m->height - 1 - y),
                  rowBytes);
    }
    return out;
  }
  std::vector<std::uint8_t> flipped(out.rgba.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, m->width, m->height, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
  for (int y = 0; y < m->height; ++y) {
    std::memcpy(out.rgba.data() + static_cast<std::size_t>(y) * rowBytes,
                flipped.data() + static_cast<std::size_t>(m->height - 1 - y) * rowBytes, rowBytes);
  }
  return out;
}

OrbitCamera& Viewport::camera() {
  return m->camera;
}
const OrbitCamera& Viewport::camera() const {
  return m->camera;
}

void Viewport::fitToScene() {
  const Eigen::AlignedBox3d b = m->scene ? m->scene->bounds() : Eigen::AlignedBox3d();
  // The stats panel covers the top-left corner: the scene is framed in the
  // part of the view to the right of it (unless that part is too narrow).
  double covered = 0.0;
  if (m->overlayEnabled && m->overlay.isVisible() && m->overlay.isStatsVisible() && m->width > 0) {
    covered = m->overlay.statsPanelRight() / m->width;
    if (covered > 0.5) covered = 0.0;
  }
  m->camera.fit(b, m->height > 0 ? static_cast<double>(m->width) / m->height : 1.0, covered);
}

Ray Viewport::rayAt(double x, double y) const {
  return m->camera.rayThrough(x, y, m->width, m->height);
}

std::optional<PickResult> Viewport::pickAt(double x, double y) const {
  if (!m->scene) return std::nullopt;
  return m->scene->pick(rayAt(x, y));
}

void Viewport::mousePress(MouseButton button, double x, double y, KeyModifiers modifiers) {
  m->overlay.modifiers(modifiers.ctrl, modifiers.shift, modifiers.alt);
  m->overlay.mouseMove(x, y);
  const int b = static_cast<int>(button);
  const int imguiButton = button == MouseButton::Left ? 0 : (button == MouseButton::Right ? 1 : 2);
  m->overlay.mouseButton(imguiButton, true);
  m->pressed[b] = true;
  m->pressX = m->lastX = x;
  m->pressY = m->lastY = y;
  m->dragged = false;
  m->overlayOwnsDrag = m->overlayEnabled && m->overlay.wantsMouse();
  if (m->overlayOwnsDrag) return;
  if (button == MouseButton::Left && !modifiers.shift && m->scene && m->scene->isGizmoVisible()) {
    m->gizmoDrag = m->scene->gizmo().beginDrag(rayAt(x, y), m->gizmoPickRadius());
    if (m->gizmoDrag) m->scene->updateGizmo();
  }
}

void Viewport::mouseMove(double x, double y, KeyModifiers modifiers) {
  m->overlay.modifiers(modifiers.ctrl, modifiers.shift, modifiers.alt);
  m->overlay.mouseMove(x, y);
  const double dx = x - m->lastX;
  const double dy = y - m->lastY;
  m->lastX = x;
  m->lastY = y;
  const bool anyPressed = m->pressed[0] || m->pressed[1] || m->pressed[2];
  if (anyPressed && std::hypot(x - m->pressX, y - m->pressY) > kClickPixels) m->dragged = true;
  if (m->overlayOwnsDrag) return;
  if (m->gizmoDrag) {
    m->scene->gizmo().drag(rayAt(x, y));
    m->scene->updateGizmo();
    return;
  }
  if (!anyPressed) {
    if (m->scene && m->scene->isGizmoVisible() && !(m->overlayEnabled && m->overlay.wantsMouse())) {
      m->scene->gizmo().setHovered(m->scene->gizmo().hitTest(rayAt(x, y), m->gizmoPickRadius()));
      m->scene->updateGizmo();
    }
    return;
  }
  const bool left = m->pressed[static_cast<int>(MouseButton::Left)];
  const bool middle = m->pressed[static_cast<int>(MouseButton::Middle)];
  const bool right = m->pressed[static_cast<int>(MouseButton::Right)];
  if (middle || (left && modifiers.shift)) {
    m->camera.pan(dx, dy, m->height);
  } else if (left) {
    m->camera.orbit(dx, dy);
  } else if (right) {
    m->camera.zoom(-dy * kZoomPerPixel);
  }
}

void Viewport::mouseRelease(MouseButton button, double x, double y, KeyModifiers modifiers) {
  m->overlay.modifiers(modifiers.ctrl, modifiers.shift, modifiers.alt);
  m->overlay.mouseMove(x, y);
  const int imguiButton = button == MouseButton::Left ? 0 : (button == MouseButton::Right ? 1 : 2);
  m->overlay.mouseButton(imguiButton, false);
  m->pressed[static_cast<int>(button)] = false;
  if (m->overlayOwnsDrag) {
    m->overlayOwnsDrag = false;
    return;
  }
  if (m->gizmoDrag && button == MouseButton::Left) {
    m->scene->gizmo().endDrag();
    m->scene->updateGizmo();
    m->gizmoDrag = false;
    return;
  }
  if (button == MouseButton::Left && !m->dragged && m->onPick) m->onPick(pickAt(x, y));
}

void Viewport::mouseWheel(double steps, double x, double y) {
  m->overlay.mouseMove(x, y);
  if (m->overlayEnabled && m->overlay.wantsMouse()) {
    m->overlay.mouseWheel(steps);
    return;
  }
  m->camera.zoom(steps);
}

void Viewport::key(OverlayKey key, bool pressed, KeyModifiers modifiers) {
  m->overlay.modifiers(modifiers.ctrl, modifiers.shift, modifiers.alt);
  m->overlay.key(key, pressed);
}

void Viewport::text(unsigned int codepoint) {
  m->overlay.text(codepoint);
}

void Viewport::setOnPick(std::function<void(const std::optional<PickResult>&)> callback) {
  m->onPick = std::move(callback);
}
bool Viewport::isDraggingGizmo() const {
  return m->gizmoDrag;
}

Overlay& Viewport::overlay() {
  return m->overlay;
}
void Viewport::setOverlayEnabled(bool enabled) {
  m->overlayEnabled = enabled;
}
bool Viewport::isOverlayEnabled() const {
  return m->overlayEnabled;
}

bool Viewport::pullSnapshot(SnapshotPublisher& publisher) {
  // Versions are numbered per publisher: a new one starts the plots and
  // stats afresh.
  if (&publisher != m->lastPublisher) {
    m->overlay.resetFeed();
    m->lastPublisher = &publisher;
  }
  if (!publisher.acquire()) return false;
  const RenderSnapshot& s = publisher.latest();
  if (m->scene) m->scene->applySnapshot(s);
  m->overlay.feed(s);
  return true;
}

double Viewport::framesPerSecond() const {
  return m->fps;
}
double Viewport::lastFrameMilliseconds() const {
  return m->frameMs;
}

}  // namespace articula::viewer

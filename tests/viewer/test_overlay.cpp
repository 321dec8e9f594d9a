// The overlay drawn over an OpenSceneGraph frame in an offscreen context
// (pbuffer + a camera framebuffer object with an attached image) under Xvfb:
// the stats panel and the plots window appear where expected and nowhere
// else, a hidden overlay draws nothing, forwarded mouse input reaches ImGui,
// and the 3D scene is unaffected by the overlay's GL state changes.
//
// OpenSceneGraph 3.6 reads a camera's attached image inside the render stage
// and then unbinds the camera's framebuffer object, both before the
// final-draw callback runs. The callback therefore binds the camera's
// framebuffer object again, draws the overlay into it and reads the image
// itself, as an application capturing frames with the overlay would.
#include <articula/viewer/overlay.hpp>
#include <articula/viewer/render_snapshot.hpp>

#include <QtTest>

#include <osg/Camera>
#include <osg/FrameBufferObject>
#include <osg/GLExtensions>
#include <osg/Geode>
#include <osg/GraphicsContext>
#include <osg/Group>
#include <osg/Image>
#include <osg/Shape>
#include <osg/ShapeDrawable>
#include <osgDB/WriteFile>
#include <osgUtil/RenderStage>
#include <osgUtil/SceneView>
#include <osgViewer/Renderer>
#include <osgViewer/Viewer>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <memory>

using namespace articula;
using namespace articula::viewer;

namespace {

constexpr int kWidth = 800;
constexpr int kHeight = 600;
// A clear colour with exact 8-bit values, so "untouched" means "equal".
constexpr unsigned char kClear[4] = {32, 64, 96, 255};
// ImGui's window placement (Overlay: 10 px from the top-left corner for the
// stats panel, from the top-right corner for the plots window).
constexpr int kMargin = 10;

struct Box {
  int x0 = INT_MAX, y0 = INT_MAX, x1 = -1, y1 = -1;  // inclusive; y from the top
  bool empty() const { return x1 < 0; }
};

// What the final-draw callback uses; the test changes it between frames.
struct DrawTarget {
  Overlay* overlay = nullptr;
  osg::Image* image = nullptr;
  ViewerStats stats{60.0, 16.7};
  bool fboMissing = false;
};

class OverlayDrawCallback : public osg::Camera::DrawCallback {
 public:
  explicit OverlayDrawCallback(DrawTarget* target) : target_(target) {}

  void operator()(osg::RenderInfo& info) const override {
    osg::State& state = *info.getState();
    osg::Camera* camera = info.getCurrentCamera();
    auto* renderer = camera ? dynamic_cast<osgViewer::Renderer*>(camera->getRenderer()) : nullptr;
    osg::FrameBufferObject* fbo = nullptr;
    if (renderer && renderer->getSceneView(0) && renderer->getSceneView(0)->getRenderStage()) {
      fbo = renderer->getSceneView(0)->getRenderStage()->getFrameBufferObject();
    }
    if (!fbo) {
      target_->fboMissing = true;
      return;
    }
    fbo->apply(state, osg::FrameBufferObject::READ_DRAW_FRAMEBUFFER);
    if (target_->overlay) target_->overlay->render(kWidth, kHeight, 1.0 / 60.0, target_->stats);
    target_->image->readPixels(0, 0, kWidth, kHeight, GL_RGBA, GL_UNSIGNED_BYTE);
    state.get<osg::GLExtensions>()->glBindFramebuffer(GL_FRAMEBUFFER_EXT,
                                                      state.getGraphicsContext()->getDefaultFboId());
  }

 private:
  DrawTarget* target_;
};

RenderSnapshot makeSnapshot(std::uint64_t version) {
  RenderSnapshot s;
  const double t = 0.01 * static_cast<double>(version);
  s.version = version;
  s.descriptionVersion = 1;
  s.time = t;
  s.step = version;
  s.positions = {std::sin(3.0 * t), 0.5};
  s.velocities = {3.0 * std::cos(3.0 * t), 0.0};
  s.stats.kineticEnergy = 2.0 + std::sin(5.0 * t);
  s.stats.potentialEnergy = -1.0 - 0.1 * t;
  s.stats.maxClosureResidual = 1e-12;
  s.stats.numContacts = 4;
  s.stats.realTimeFactor = 1.0;
  s.stats.stepsPerSecond = 1000.0;
  s.stats.simulationMode = true;
  s.stats.timings.control = 1e-6;
  s.stats.timings.kinematics = 2e-6;
  s.stats.timings.collision = 5e-6;
  s.stats.timings.dynamics = 3e-6;
  s.stats.timings.solve = 8e-6;
  s.stats.timings.integration = 1e-6;
  s.stats.timings.projection = 0.5e-6;
  s.stats.timings.total = 20.5e-6;
  return s;
}

}  // namespace

class TestOverlay : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void cleanupTestCase();
  void init();
  void cleanup();

  void statsPanelDrawn();
  void hiddenDrawsNothing();
  void plotWindowAppears();
  void mouseInput();
  void sceneUnaffected();
  void destructionWithoutCurrentContext();

 private:
  void frames(int n);
  bool isClear(int x, int yTop) const;
  int countNonClear(int x0, int y0, int x1, int y1) const;  // half-open, y from the top
  Box nonClearBox(int x0, int y0, int x1, int y1) const;

  osg::ref_ptr<osg::GraphicsContext> gc_;
  osg::ref_ptr<osgViewer::Viewer> viewer_;
  osg::ref_ptr<osg::Image> image_;
  osg::ref_ptr<osg::Geode> sphere_;
  DrawTarget target_;
  std::unique_ptr<Overlay> overlay_;
};

void TestOverlay::initTestCase() {
  osg::ref_ptr<osg::GraphicsContext::Traits> traits = new osg::GraphicsContext::Traits;
  traits->readDISPLAY();
  traits->setUndefinedScreenDetailsToDefaultScreen();
  traits->x = 0;
  traits->y = 0;
  traits->width = kWidth;
  traits->height = kHeight;
  traits->red = traits->green = traits->blue = traits->alpha = 8;
  traits->depth = 24;
  traits->pbuffer = true;
  traits->doubleBuffer = false;
  traits->windowDecoration = false;
  gc_ = osg::GraphicsContext::createGraphicsContext(traits.get());
  const char* display = std::getenv("DISPLAY");
  const QString where = QString("on display '%1'").arg(display ? display : "(unset)");
  if (!gc_) QSKIP(qPrintable("cannot create an offscreen OpenGL context (pbuffer) " + where));

  image_ = new osg::Image;
  image_->allocateImage(kWidth, kHeight, 1, GL_RGBA, GL_UNSIGNED_BYTE);
  target_.image = image_.get();

  viewer_ = new osgViewer::Viewer;
  viewer_->setThreadingModel(osgViewer::ViewerBase::SingleThreaded);
  osg::Camera* camera = viewer_->getCamera();
  camera->setGraphicsContext(gc_.get());
  camera->setViewport(0, 0, kWidth, kHeight);
  camera->setProjectionMatrixAsPerspective(30.0, static_cast<double>(kWidth) / kHeight, 0.1, 100.0);
  camera->setViewMatrixAsLookAt(osg::Vec3d(0, -6, 0), osg::Vec3d(0, 0, 0), osg::Vec3d(0, 0, 1));
  camera->setClearColor(osg::Vec4(kClear[0] / 255.0f, kClear[1] / 255.0f, kClear[2] / 255.0f, 1.0f));
  camera->setClearMask(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  camera->setRenderTargetImplementation(osg::Camera::FRAME_BUFFER_OBJECT);
  camera->attach(osg::Camera::COLOR_BUFFER, image_.get());
  camera->setFinalDrawCallback(new OverlayDrawCallback(&target_));

  // A sphere in the middle of the view (hidden unless a test shows it), to
  // see that OpenSceneGraph still draws correctly next to the overlay.
  auto* drawable = new osg::ShapeDrawable(new osg::Sphere(osg::Vec3(0, 0, 0), 0.8f));
  drawable->setColor(osg::Vec4(0.9f, 0.5f, 0.1f, 1.0f));
  sphere_ = new osg::Geode;
  sphere_->addDrawable(drawable);
  sphere_->setNodeMask(0);
  osg::ref_ptr<osg::Group> root = new osg::Group;
  root->addChild(sphere_.get());
  viewer_->setSceneData(root.get());
  viewer_->realize();
  if (!gc_->isRealized()) {
    viewer_ = nullptr;
    gc_ = nullptr;
    QSKIP(qPrintable("cannot realize an offscreen OpenGL context (pbuffer) " + where));
  }
  QVERIFY(viewer_->isRealized());
}

void TestOverlay::cleanupTestCase() {
  viewer_ = nullptr;
  gc_ = nullptr;
}

void TestOverlay::init() {
  overlay_ = std::make_unique<Overlay>();
  target_.overlay = overlay_.get();
  sphere_->setNodeMask(0);
}

void TestOverlay::cleanup() {
  target_.overlay = nullptr;
  if (overlay_) {
    gc_->makeCurrent();
    overlay_->releaseGL();
    gc_->releaseContext();
    overlay_.reset();
  }
  QVERIFY(!target_.fboMissing);
}

void TestOverlay::frames(int n) {
  for (int i = 0; i < n; ++i) viewer_->frame();
}

bool TestOverlay::isClear(int x, int yTop) const {
  const unsigned char* p = image_->data(static_cast<unsigned int>(x), static_cast<unsigned int>(kHeight - 1 - yTop));
  return std::equal(p, p + 4, kClear);
}

int TestOverlay::countNonClear(int x0, int y0, int x1, int y1) const {
  int n = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) n += isClear(x, y) ? 0 : 1;
  }
  return n;
}

Box TestOverlay::nonClearBox(int x0, int y0, int x1, int y1) const {
  Box b;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      if (isClear(x, y)) continue;
      b.x0 = std::min(b.x0, x);
      b.y0 = std::min(b.y0, y);
      b.x1 = std::max(b.x1, x);
      b.y1 = std::max(b.y1, y);
    }
  }
  return b;
}

void TestOverlay::statsPanelDrawn() {
  overlay_->feed(makeSnapshot(1));
  // A new auto-sized ImGui window is measured in its first frame and drawn
  // from the second on.
  frames(3);

  // The panel is one rectangle at the top-left corner: every pixel of its
  // upper-left part is covered (window background, title bar, text).
  QCOMPARE(countNonClear(kMargin + 5, kMargin + 5, 200, 100), (200 - kMargin - 5) * (100 - kMargin - 5));
  const Box box = nonClearBox(0, 0, kWidth, kHeight);
  qInfo("stats panel covers x %d..%d, y %d..%d", box.x0, box.x1, box.y0, box.y1);
  QVERIFY(!box.empty());
  QVERIFY(std::abs(box.x0 - kMargin) <= 1);
  QVERIFY(std::abs(box.y0 - kMargin) <= 1);
  // Big enough for its ~25 lines, and far from the right and bottom edges.
  QVERIFY(box.x1 > 200 && box.x1 < kWidth / 2);
  QVERIFY(box.y1 > 300 && box.y1 < kHeight - 60);
  // Everything outside the panel is exactly the clear colour.
  QCOMPARE(countNonClear(0, 0, kWidth, kHeight), countNonClear(box.x0, box.y0, box.x1 + 1, box.y1 + 1));
  QCOMPARE(countNonClear(kWidth / 2, 0, kWidth, kHeight), 0);
  QCOMPARE(countNonClear(0, kHeight - 60, kWidth, kHeight), 0);

  // Without the stats panel (and no plots) nothing is drawn.
  overlay_->setStatsVisible(false);
  frames(1);
  QCOMPARE(countNonClear(0, 0, kWidth, kHeight), 0);
  overlay_->setStatsVisible(true);
  frames(1);
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));
}

void TestOverlay::hiddenDrawsNothing() {
  overlay_->feed(makeSnapshot(1));
  frames(3);
  QVERIFY(countNonClear(0, 0, kWidth, kHeight) > 10000);

  overlay_->addPlot({PlotQuantity::TotalEnergy, -1, ""});
  overlay_->setVisible(false);
  QVERIFY(!overlay_->isVisible());
  frames(2);
  QCOMPARE(countNonClear(0, 0, kWidth, kHeight), 0);

  overlay_->setVisible(true);
  frames(2);
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));
}

void TestOverlay::plotWindowAppears() {
  overlay_->feed(makeSnapshot(1));
  frames(3);
  // No plot yet: the right half is untouched.
  QCOMPARE(countNonClear(kWidth / 2, 0, kWidth, kHeight), 0);

  const int energy = overlay_->addPlot({PlotQuantity::TotalEnergy, -1, ""});
  const int q0 = overlay_->addPlot({PlotQuantity::Position, 0, ""});
  for (std::uint64_t v = 2; v <= 120; ++v) overlay_->feed(makeSnapshot(v));
  QCOMPARE(overlay_->plotData(energy).size(), std::size_t{119});
  QCOMPARE(overlay_->plotData(q0).size(), std::size_t{119});
  frames(3);
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  QVERIFY(osgDB::writeImageFile(*image_, dir.filePath("overlay_check.png").toStdString()));

  // The plots window hangs from the top-right corner.
  const Box box = nonClearBox(kWidth / 2, 0, kWidth, kHeight);
  qInfo("plots window covers x %d..%d, y %d..%d", box.x0, box.x1, box.y0, box.y1);
  QVERIFY(!box.empty());
  QVERIFY(std::abs(box.x1 - (kWidth - 1 - kMargin)) <= 1);
  QVERIFY(std::abs(box.y0 - kMargin) <= 1);
  QVERIFY(box.x1 - box.x0 > 250);  // the plot frames are 300 px wide
  QVERIFY(box.y1 - box.y0 > 150);  // two plots of 70 px plus labels
  QVERIFY(box.y1 < kHeight - 60);
  QCOMPARE(countNonClear(kWidth / 2, 0, kWidth, kHeight), countNonClear(box.x0, box.y0, box.x1 + 1, box.y1 + 1));
  QCOMPARE(countNonClear(box.x0 + 5, box.y0 + 5, box.x1 - 5, box.y0 + 60), (box.x1 - box.x0 - 10) * 55);
  QCOMPARE(countNonClear(0, kHeight - 60, kWidth, kHeight), 0);

  // Hiding the plots, or removing them, removes the window.
  overlay_->setPlotsVisible(false);
  frames(1);
  QCOMPARE(countNonClear(kWidth / 2, 0, kWidth, kHeight), 0);
  overlay_->setPlotsVisible(true);
  frames(2);
  QVERIFY(countNonClear(kWidth / 2, 0, kWidth, kHeight) > 10000);
  overlay_->removePlot(energy);
  overlay_->removePlot(q0);
  frames(1);
  QCOMPARE(countNonClear(kWidth / 2, 0, kWidth, kHeight), 0);
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));  // the stats panel stays
}

void TestOverlay::mouseInput() {
  overlay_->feed(makeSnapshot(1));
  frames(3);
  QVERIFY(!overlay_->wantsMouse());

  // Over the stats panel: ImGui wants the mouse.
  overlay_->mouseMove(kMargin + 40, kMargin + 40);
  frames(2);
  QVERIFY(overlay_->wantsMouse());
  QVERIFY(!overlay_->wantsKeyboard());
  overlay_->mouseWheel(-1.0);
  frames(1);
  QVERIFY(overlay_->wantsMouse());

  // Away from any window: the 3D view gets it.
  overlay_->mouseMove(kWidth / 2, kHeight - 20);
  frames(2);
  QVERIFY(!overlay_->wantsMouse());

  // Drag the panel by its title bar 200 px right and 150 px down.
  const int grabX = kMargin + 60;
  const int grabY = kMargin + 8;
  overlay_->mouseMove(grabX, grabY);
  frames(2);
  QVERIFY(overlay_->wantsMouse());
  overlay_->mouseButton(0, true);
  frames(1);
  for (int i = 1; i <= 10; ++i) {
    overlay_->mouseMove(grabX + 20 * i, grabY + 15 * i);
    frames(1);
    QVERIFY(overlay_->wantsMouse());
  }
  overlay_->mouseButton(0, false);
  frames(2);
  const Box box = nonClearBox(0, 0, kWidth, kHeight);
  qInfo("after the drag the stats panel covers x %d..%d, y %d..%d", box.x0, box.x1, box.y0, box.y1);
  QVERIFY(std::abs(box.x0 - (kMargin + 200)) <= 1);
  QVERIFY(std::abs(box.y0 - (kMargin + 150)) <= 1);
  QVERIFY(isClear(kMargin + 20, kMargin + 20));

  // A click (press and release between two frames) on the title bar's
  // collapse arrow folds the panel to its title bar.
  const int heightBefore = box.y1 - box.y0;
  overlay_->mouseMove(box.x0 + 9, box.y0 + 9);
  frames(2);
  overlay_->mouseButton(0, true);
  overlay_->mouseButton(0, false);
  frames(3);
  const Box collapsed = nonClearBox(0, 0, kWidth, kHeight);
  qInfo("collapsed: x %d..%d, y %d..%d", collapsed.x0, collapsed.x1, collapsed.y0, collapsed.y1);
  QVERIFY(collapsed.y1 - collapsed.y0 < 30);
  QVERIFY(heightBefore > 300);
}

void TestOverlay::sceneUnaffected() {
  sphere_->setNodeMask(~0u);
  overlay_->setVisible(false);
  frames(2);
  const std::vector<unsigned char> reference(image_->data(), image_->data() + image_->getTotalSizeInBytes());
  QVERIFY(!isClear(kWidth / 2, kHeight / 2));  // the sphere

  overlay_->setVisible(true);
  overlay_->feed(makeSnapshot(1));
  overlay_->addPlot({PlotQuantity::KineticEnergy, -1, ""});
  frames(4);
  // The overlay is there and the sphere (between the panels) is unchanged.
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));
  QVERIFY(!isClear(kWidth - kMargin - 20, kMargin + 20));
  for (int y = kHeight / 2 - 40; y <= kHeight / 2 + 40; y += 8) {
    for (int x = kWidth / 2 - 40; x <= kWidth / 2 + 40; x += 8) {
      const unsigned char* p = image_->data(static_cast<unsigned int>(x), static_cast<unsigned int>(kHeight - 1 - y));
      const std::size_t offset = static_cast<std::size_t>(p - image_->data());
      QVERIFY(std::equal(p, p + 4, reference.begin() + static_cast<std::ptrdiff_t>(offset)));
    }
  }

  // Hidden again: the frame is bit for bit the one before the overlay ever
  // drew, so OpenSceneGraph's GL state survived the overlay's frames.
  overlay_->setVisible(false);
  frames(1);
  QVERIFY(std::equal(reference.begin(), reference.end(), image_->data()));
}

void TestOverlay::destructionWithoutCurrentContext() {
  overlay_->feed(makeSnapshot(1));
  frames(3);
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));
  // No GL context is current after a frame: the destructor must not touch GL.
  gc_->releaseContext();
  target_.overlay = nullptr;
  overlay_.reset();

  // With the context current, the destructor frees the GL objects itself.
  auto other = std::make_unique<Overlay>();
  target_.overlay = other.get();
  frames(3);
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));
  target_.overlay = nullptr;
  gc_->makeCurrent();
  other.reset();
  gc_->releaseContext();

  // A fresh overlay after both still draws.
  overlay_ = std::make_unique<Overlay>();
  target_.overlay = overlay_.get();
  frames(3);
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));
  // releaseGL then render again: the renderer is set up anew.
  gc_->makeCurrent();
  overlay_->releaseGL();
  overlay_->releaseGL();  // twice: no-op
  gc_->releaseContext();
  frames(3);
  QVERIFY(!isClear(kMargin + 20, kMargin + 20));
}

QTEST_MAIN(TestOverlay)
#include "test_overlay.moc"

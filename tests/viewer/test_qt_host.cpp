// A Viewport embedded in a QOpenGLWidget the way a Qt window hosts it: the
// widget owns the OpenGL context and framebuffer, calls renderFrame() from
// paintGL() and forwards its mouse and wheel events in pixels. Checks what
// the widget shows against the camera's own projection, and that forwarded
// input orbits and zooms the camera, picks bodies, drags the gizmo and
// reaches the ImGui overlay first. Expected values are computed here from
// the camera's pose (rays, closest points), not taken from the viewport.
// Runs under Xvfb (the xcb platform: QOpenGLWidget needs it).
#include <articula/articula.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewport.hpp>

#include <QApplication>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLWidget>
#include <QWheelEvent>
#include <QtTest>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::viewer;

namespace {

constexpr int kWidth = 640;
constexpr int kHeight = 480;
constexpr double kPi = 3.14159265358979323846;
const Vector4d kBackground{0.15, 0.2, 0.25, 1.0};

// ---- the host widget --------------------------------------------------------

std::optional<MouseButton> toButton(Qt::MouseButton button) {
  switch (button) {
    case Qt::LeftButton:
      return MouseButton::Left;
    case Qt::MiddleButton:
      return MouseButton::Middle;
    case Qt::RightButton:
      return MouseButton::Right;
    default:
      return std::nullopt;
  }
}

KeyModifiers toModifiers(Qt::KeyboardModifiers m) {
  KeyModifiers k;
  k.shift = m.testFlag(Qt::ShiftModifier);
  k.ctrl = m.testFlag(Qt::ControlModifier);
  k.alt = m.testFlag(Qt::AltModifier);
  return k;
}

class HostWidget : public QOpenGLWidget {
 public:
  explicit HostWidget(SceneView* scene) : scene_(scene) { setMouseTracking(true); }
  ~HostWidget() override {
    if (!viewport_) return;
    // The overlay and the scene graph free their GL objects in this context.
    makeCurrent();
    viewport_.reset();
    doneCurrent();
  }
  HostWidget(const HostWidget&) = delete;
  HostWidget& operator=(const HostWidget&) = delete;

  Viewport* viewport() const { return viewport_.get(); }
  int framesPainted() const { return framesPainted_; }
  /// Widget (logical) pixels to the viewport's (device) pixels.
  double toDevice(double logical) const { return logical * devicePixelRatioF(); }
  int toDevicePixels(int logical) const { return static_cast<int>(std::lround(toDevice(logical))); }

 protected:
  void initializeGL() override {
    viewport_ = Viewport::createEmbedded(toDevicePixels(width()), toDevicePixels(height()));
    viewport_->setScene(scene_);
  }
  void resizeGL(int w, int h) override {
    if (viewport_) viewport_->resize(toDevicePixels(w), toDevicePixels(h));
  }
  void paintGL() override {
    if (!viewport_) return;
    viewport_->renderFrame(defaultFramebufferObject());
    ++framesPainted_;
  }

  void mousePressEvent(QMouseEvent* e) override {
    const std::optional<MouseButton> b = toButton(e->button());
    if (!viewport_ || !b) return QOpenGLWidget::mousePressEvent(e);
    viewport_->mousePress(*b, toDevice(e->position().x()), toDevice(e->position().y()), toModifiers(e->modifiers()));
    e->accept();
    update();
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (!viewport_) return QOpenGLWidget::mouseMoveEvent(e);
    viewport_->mouseMove(toDevice(e->position().x()), toDevice(e->position().y()), toModifiers(e->modifiers()));
    e->accept();
    update();
  }
  void mouseReleaseEvent(QMouseEvent* e) override {
    const std::optional<MouseButton> b = toButton(e->button());
    if (!viewport_ || !b) return QOpenGLWidget::mouseReleaseEvent(e);
    viewport_->mouseRelease(*b, toDevice(e->position().x()), toDevice(e->position().y()), toModifiers(e->modifiers()));
    e->accept();
    update();
  }
  void wheelEvent(QWheelEvent* e) override {
    if (!viewport_) return QOpenGLWidget::wheelEvent(e);
    // One notch of a wheel is 120 eighths of a degree: one zoom step.
    viewport_->mouseWheel(e->angleDelta().y() / 120.0, toDevice(e->position().x()), toDevice(e->position().y()));
    e->accept();
    update();
  }

 private:
  SceneView* scene_ = nullptr;
  std::unique_ptr<Viewport> viewport_;
  int framesPainted_ = 0;
};

// ---- the world ----------------------------------------------------------------

struct Body {
  std::string name;
  Isometry3d pose = Isometry3d::Identity();
  int channel = 0;      // the colour's strongest channel: 0 red, 1 green, 2 blue
  double radius = 0.0;  // of a sphere about the body origin enclosing its shape
  RigidBody handle;
};

Isometry3d placed(const Vector3d& position, double yaw) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = Eigen::AngleAxisd(yaw, Vector3d::UnitZ()).toRotationMatrix();
  X.translation() = position;
  return X;
}

// Three bodies across the default "iso" view (eye on the +x +y side), at
// different heights so that no two lie on one row or column of pixels: none
// hides another. The red box is turned about z so that its
// local x axis is not a world axis.
std::vector<Body> buildWorld(World& w) {
  const auto add = [&w](const std::string& name, const Geometry& g, const Isometry3d& pose, const Vector4d& color,
                        int channel, double radius) {
    RigidBodyOptions o;
    o.inertia = Inertia::sphere(1.0, radius);
    o.pose = pose;
    RigidBody b = w.addRigidBody(name, o);
    VisualShapeOptions v;
    v.name = name + "_visual";
    v.geometry = g;
    v.color = color;
    b.addVisualShape(v);
    return Body{name, pose, channel, radius, b};
  };
  std::vector<Body> bodies;
  bodies.push_back(add("red_box", Geometry::box({0.4, 0.4, 0.4}), placed({0.9, -0.9, 0.45}, 0.4), {0.85, 0.1, 0.1, 1.0},
                       0, std::sqrt(3.0) * 0.2));
  bodies.push_back(
      add("green_ball", Geometry::sphere(0.25), placed({-0.9, 0.9, -0.35}, 0.0), {0.1, 0.8, 0.15, 1.0}, 1, 0.25));
  bodies.push_back(add("blue_drum", Geometry::cylinder(0.2, 0.5), placed({0.0, 0.0, 0.0}, 0.0), {0.1, 0.2, 0.9, 1.0}, 2,
                       std::hypot(0.2, 0.25)));
  return bodies;
}

// Everything one test shows: the world, its scene and the window. The
// widget (and with it the viewport) goes first, before the scene it draws.
struct Host {
  World world;
  std::vector<Body> bodies;
  std::shared_ptr<SceneDescription> description;
  RenderSnapshot snapshot;
  SceneView scene;
  std::unique_ptr<HostWidget> widget;
};

// ---- independent geometry -------------------------------------------------------

// The ray through viewport pixel coordinates (x, y), built from the camera's
// pose and field of view alone.
Ray rayFromPose(const OrbitCamera& camera, double x, double y, int width, int height) {
  const CameraPose pose = camera.pose();
  const Vector3d forward = (pose.center - pose.eye).normalized();
  const Vector3d right = forward.cross(pose.up).normalized();
  const double tanY = std::tan(0.5 * camera.fieldOfView() * kPi / 180.0);
  const double tanX = tanY * width / height;
  const double sx = (2.0 * x / width - 1.0) * tanX;
  const double sy = (1.0 - 2.0 * y / height) * tanY;
  Ray r;
  r.origin = pose.eye;
  r.direction = (forward + sx * right + sy * pose.up).normalized();
  return r;
}

// Coordinate along the line origin + t·axis (axis unit) of its point
// closest to the ray's line.
double closestAxisParameter(const Vector3d& origin, const Vector3d& axis, const Ray& ray) {
  const Vector3d w0 = origin - ray.origin;
  const double b = axis.dot(ray.direction);
  return (b * ray.direction.dot(w0) - axis.dot(w0)) / (1.0 - b * b);
}

double distanceToRay(const Vector3d& p, const Ray& ray) {
  const Vector3d v = p - ray.origin;
  return (v - v.dot(ray.direction) * ray.direction).norm();
}

// ---- pixels -----------------------------------------------------------------------

int channelOf(QRgb p, int channel) {
  return channel == 0 ? qRed(p) : (channel == 1 ? qGreen(p) : qBlue(p));
}

// Whether a lit pixel shows a surface whose colour's strongest channel is
// `channel`: that channel exceeds both others clearly.
bool showsChannel(QRgb p, int channel) {
  const int c = channelOf(p, channel);
  return c >= channelOf(p, (channel + 1) % 3) + 40 && c >= channelOf(p, (channel + 2) % 3) + 40;
}

bool isBackground(QRgb p) {
  const auto near = [](int value, double want) {
    return std::abs(value - static_cast<int>(std::lround(255.0 * want))) <= 2;
  };
  return near(qRed(p), kBackground[0]) && near(qGreen(p), kBackground[1]) && near(qBlue(p), kBackground[2]);
}

QString rgb(QRgb p) {
  return QString("rgb(%1, %2, %3)").arg(qRed(p)).arg(qGreen(p)).arg(qBlue(p));
}

// Pixels differing by more than 8 in a channel, below row `fromRow` (the
// stats panel's numbers change from frame to frame above it).
int countChanged(const QImage& a, const QImage& b, int fromRow) {
  int n = 0;
  for (int y = fromRow; y < std::min(a.height(), b.height()); ++y) {
    for (int x = 0; x < std::min(a.width(), b.width()); ++x) {
      const QRgb p = a.pixel(x, y);
      const QRgb q = b.pixel(x, y);
      if (std::abs(qRed(p) - qRed(q)) > 8 || std::abs(qGreen(p) - qGreen(q)) > 8 || std::abs(qBlue(p) - qBlue(q)) > 8) {
        ++n;
      }
    }
  }
  return n;
}

double wrappedDifference(double a, double b) {
  return std::remainder(a - b, 2.0 * kPi);
}

}  // namespace

class TestQtHost : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<Host> host_;

  HostWidget& widget() { return *host_->widget; }
  Viewport& viewport() { return *host_->widget->viewport(); }
  OrbitCamera& camera() { return viewport().camera(); }

  // Draws a frame through the widget (grabFramebuffer() runs paintGL()) and
  // returns what the widget shows.
  QImage frame() {
    const int before = widget().framesPainted();
    QImage image = widget().grabFramebuffer();
    if (widget().framesPainted() == before) qWarning("grabFramebuffer() did not paint a new frame");
    return image;
  }

  // Where a world point lands, in viewport pixels and in widget pixels.
  std::optional<Vector2d> projectToViewport(const Vector3d& p) {
    return camera().project(p, viewport().width(), viewport().height());
  }
  QPoint toWidget(const Vector2d& devicePixels) {
    const double r = widget().devicePixelRatioF();
    return QPoint(static_cast<int>(std::lround(devicePixels.x() / r)),
                  static_cast<int>(std::lround(devicePixels.y() / r)));
  }
  Ray rayAtWidget(const QPoint& p) {
    return rayFromPose(camera(), widget().toDevice(p.x()), widget().toDevice(p.y()), viewport().width(),
                       viewport().height());
  }
  bool rayMissesEveryBody(const Ray& ray) {
    for (const Body& b : host_->bodies) {
      if (distanceToRay(b.pose.translation(), ray) <= b.radius) return false;
    }
    return true;
  }

  // A pointer move with no button held (as with mouse tracking).
  void hover(const QPoint& p) {
    QMouseEvent e(QEvent::MouseMove, QPointF(p), QPointF(widget().mapToGlobal(p)), Qt::NoButton, Qt::NoButton,
                  Qt::NoModifier);
    QApplication::sendEvent(&widget(), &e);
  }
  // A left-button drag from `from` by `delta` in `steps` moves.
  void leftDrag(const QPoint& from, const QPoint& delta, int steps) {
    QTest::mousePress(&widget(), Qt::LeftButton, Qt::NoModifier, from);
    for (int i = 1; i <= steps; ++i) QTest::mouseMove(&widget(), from + delta * i / steps);
    QTest::mouseRelease(&widget(), Qt::LeftButton, Qt::NoModifier, from + delta);
  }

  // Each body's colour where its origin projects, and the background in
  // the corners the overlay leaves free; empty when all agree.
  QString checkPixels(const QImage& image) {
    if (image.width() != viewport().width() || image.height() != viewport().height()) {
      return QString("grabbed %1x%2, viewport %3x%4")
          .arg(image.width())
          .arg(image.height())
          .arg(viewport().width())
          .arg(viewport().height());
    }
    for (const Body& b : host_->bodies) {
      const std::optional<Vector2d> p = projectToViewport(b.pose.translation());
      if (!p) return QString::fromStdString(b.name) + " is behind the camera";
      const int x = static_cast<int>(std::floor(p->x()));
      const int y = static_cast<int>(std::floor(p->y()));
      if (x < 0 || y < 0 || x >= image.width() || y >= image.height()) {
        return QString("%1 projects outside the image, at (%2, %3)").arg(QString::fromStdString(b.name)).arg(x).arg(y);
      }
      if (!showsChannel(image.pixel(x, y), b.channel)) {
        return QString("%1 projects to (%2, %3), which shows %4")
            .arg(QString::fromStdString(b.name))
            .arg(x)
            .arg(y)
            .arg(rgb(image.pixel(x, y)));
      }
    }
    const int w = image.width();
    const int h = image.height();
    for (const QPoint& c : {QPoint(2, h - 3), QPoint(w - 3, h - 3), QPoint(w - 3, 2)}) {
      const Ray ray = rayFromPose(camera(), c.x() + 0.5, c.y() + 0.5, w, h);
      if (!rayMissesEveryBody(ray)) return QString("a body lies behind corner (%1, %2)").arg(c.x()).arg(c.y());
      if (!isBackground(image.pixel(c))) {
        return QString("corner (%1, %2) shows %3, not the background").arg(c.x()).arg(c.y()).arg(rgb(image.pixel(c)));
      }
    }
    return {};
  }

 private slots:
  void init() {
    if (QGuiApplication::platformName() == QLatin1String("offscreen")) {
      QSKIP("QOpenGLWidget does not work on the offscreen platform (run under xvfb-run)");
    }
    {
      QOpenGLContext probe;
      if (!probe.create()) QSKIP("no OpenGL context (run under xvfb-run)");
    }
    host_ = std::make_unique<Host>();
    host_->bodies = buildWorld(host_->world);
    host_->world.enterSimulationMode();
    host_->description = std::make_shared<SceneDescription>(describeScene(host_->world));
    fillRenderSnapshot(host_->world, *host_->description, host_->snapshot);
    host_->scene.setDescription(host_->description);
    QVERIFY(host_->scene.applySnapshot(host_->snapshot));
    host_->scene.setBackground(kBackground);
    host_->scene.setLayerVisible(Layer::Grid, false);

    host_->widget = std::make_unique<HostWidget>(&host_->scene);
    host_->widget->setWindowTitle("Articula viewport");
    host_->widget->resize(kWidth, kHeight);
    host_->widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(host_->widget.get()));
    QTRY_VERIFY(host_->widget->viewport() != nullptr);
    // The fixed-function renderer draws nothing in a core profile context.
    QVERIFY(widget().context() != nullptr);
    QVERIFY2(widget().context()->format().profile() != QSurfaceFormat::CoreProfile,
             "the widget got a core profile context");
    QCOMPARE(viewport().width(), widget().toDevicePixels(kWidth));
    QCOMPARE(viewport().height(), widget().toDevicePixels(kHeight));
    camera().setPreset("iso");
    viewport().fitToScene();
    // Auto-sized overlay panels appear from their second frame on.
    frame();
    frame();
  }

  void cleanup() { host_.reset(); }

  // 1. The widget shows the scene where the camera projects it, over the
  //    background colour.
  void rendersTheScene() {
    QVERIFY(viewport().isOverlayEnabled());
    const int before = widget().framesPainted();
    const QImage image = frame();
    QVERIFY2(widget().framesPainted() > before, "grabFramebuffer() did not run paintGL()");
    // The grabbed picture saves as PNG.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(image.save(dir.filePath("qt_host_check.png")));
    const QString problem = checkPixels(image);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // The overlay's stats panel covers the top-left corner (its margin is
    // 10 px): there the background does not show through.
    int covered = 0;
    int total = 0;
    for (int y = widget().toDevicePixels(14); y < widget().toDevicePixels(50); ++y) {
      for (int x = widget().toDevicePixels(14); x < widget().toDevicePixels(120); ++x) {
        ++total;
        if (!isBackground(image.pixel(x, y))) ++covered;
      }
    }
    QVERIFY2(
        covered > total * 9 / 10,
        qPrintable(
            QString("only %1 of %2 pixels under the stats panel differ from the background").arg(covered).arg(total)));
  }

  // 2. A left drag orbits by kOrbitRadiansPerPixel per pixel; the wheel
  //    zooms by kZoomFactorPerStep per notch.
  void leftDragOrbitsAndWheelZooms() {
    int picks = 0;
    viewport().setOnPick([&picks](const std::optional<PickResult>&) { ++picks; });
    const double az0 = camera().azimuth();
    const double el0 = camera().elevation();
    const double d0 = camera().distance();
    const Vector3d c0 = camera().center();
    const QImage before = frame();

    const QPoint start(kWidth / 2, kHeight - 80);
    leftDrag(start, QPoint(60, 0), 6);
    const double k = OrbitCamera::kOrbitRadiansPerPixel;
    const double wantAz = az0 - k * widget().toDevice(60);
    QVERIFY2(
        std::abs(wrappedDifference(camera().azimuth(), wantAz)) < 1e-12,
        qPrintable(QString("azimuth %1, expected %2").arg(camera().azimuth(), 0, 'g', 17).arg(wantAz, 0, 'g', 17)));
    QVERIFY2(std::abs(camera().elevation() - el0) < 1e-12, "a horizontal drag changed the elevation");
    QCOMPARE(camera().distance(), d0);
    QVERIFY((camera().center() - c0).norm() < 1e-12);
    QCOMPARE(picks, 0);

    const QImage after = frame();
    const int changed = countChanged(before, after, 100);
    QVERIFY2(changed > 2000, qPrintable(QString("only %1 pixels changed after orbiting").arg(changed)));
    const QString problem = checkPixels(after);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    // Dragging down raises the eye.
    leftDrag(start, QPoint(0, 40), 4);
    const double wantEl = el0 + k * widget().toDevice(40);
    QVERIFY2(std::abs(camera().elevation() - wantEl) < 1e-12,
             qPrintable(QString("elevation %1, expected %2").arg(camera().elevation()).arg(wantEl)));
    QVERIFY(std::abs(wrappedDifference(camera().azimuth(), wantAz)) < 1e-12);

    // The wheel: one notch closer, then two notches away.
    const QPoint centre(kWidth / 2, kHeight / 2);
    const auto wheel = [this, &centre](int angle) {
      QWheelEvent e(QPointF(centre), QPointF(widget().mapToGlobal(centre)), QPoint(), QPoint(0, angle), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
      QApplication::sendEvent(&widget(), &e);
    };
    wheel(120);
    const double d1 = d0 * OrbitCamera::kZoomFactorPerStep;
    QVERIFY2(std::abs(camera().distance() - d1) < 1e-12 * d0,
             qPrintable(QString("distance %1 after one notch, expected %2").arg(camera().distance()).arg(d1)));
    wheel(-240);
    const double d2 = d1 / (OrbitCamera::kZoomFactorPerStep * OrbitCamera::kZoomFactorPerStep);
    QVERIFY2(std::abs(camera().distance() - d2) < 1e-12 * d0,
             qPrintable(QString("distance %1 after two notches back, expected %2").arg(camera().distance()).arg(d2)));
    QVERIFY(frame().width() == viewport().width());
  }

  // 3. A click picks the body under the cursor, and nothing in empty space.
  void clickPicksTheBodyUnderTheCursor() {
    std::vector<std::optional<PickResult>> picks;
    viewport().setOnPick([&picks](const std::optional<PickResult>& r) { picks.push_back(r); });
    for (const Body& b : host_->bodies) {
      const std::optional<Vector2d> p = projectToViewport(b.pose.translation());
      QVERIFY(p);
      const QPoint at = toWidget(*p);
      QVERIFY2(distanceToRay(b.pose.translation(), rayAtWidget(at)) < 0.5 * b.radius,
               "the click's ray misses the body's centre");
      const std::size_t n = picks.size();
      QTest::mouseClick(&widget(), Qt::LeftButton, Qt::NoModifier, at);
      QCOMPARE(picks.size(), n + 1);
      QVERIFY2(picks.back().has_value(), qPrintable("clicking " + QString::fromStdString(b.name) + " picked nothing"));
      QCOMPARE(picks.back()->bodyName, b.name);
      QCOMPARE(picks.back()->body, bodyId(b.handle));
      // The hit point lies on the ray through the clicked pixel.
      QVERIFY(distanceToRay(picks.back()->point, rayAtWidget(at)) < 1e-6);
    }

    // Between the red box and the blue drum, and a corner: no body there.
    const std::optional<Vector2d> gap =
        projectToViewport(0.5 * (host_->bodies[0].pose.translation() + host_->bodies[2].pose.translation()));
    QVERIFY(gap);
    for (const QPoint& at : {toWidget(*gap), QPoint(20, kHeight - 20)}) {
      QVERIFY2(rayMissesEveryBody(rayAtWidget(at)), "a body lies under the empty-space click");
      const std::size_t n = picks.size();
      QTest::mouseClick(&widget(), Qt::LeftButton, Qt::NoModifier, at);
      QCOMPARE(picks.size(), n + 1);
      if (picks.back()) {
        QFAIL(qPrintable(QString("empty space at (%1, %2) picked %3")
                             .arg(at.x())
                             .arg(at.y())
                             .arg(QString::fromStdString(picks.back()->bodyName))));
      }
    }
  }

  // 4. Dragging the gizmo's x arrow reports poses moved along that axis by
  //    the distance between the axis points closest to the press ray and to
  //    the final ray; the camera stays put.
  void gizmoDragMovesAlongItsAxis() {
    const Body& body = host_->bodies[0];
    Gizmo& gizmo = host_->scene.gizmo();
    gizmo.setMode(GizmoMode::Translate);
    gizmo.setPose(body.pose);
    host_->scene.setGizmoVisible(true);
    frame();  // sets the gizmo's size from the camera
    const double size = gizmo.size();
    const Vector3d origin = body.pose.translation();
    const Vector3d axis = body.pose.linear().col(0);
    QVERIFY((gizmo.axisDirection(GizmoAxis::X) - axis).norm() < 1e-12);

    const std::optional<Vector2d> pOrigin = projectToViewport(origin);
    const std::optional<Vector2d> pMiddle = projectToViewport(origin + 0.5 * size * axis);
    const std::optional<Vector2d> pTip = projectToViewport(origin + size * axis);
    QVERIFY(pOrigin && pMiddle && pTip);
    const Vector2d screenAxis = *pTip - *pOrigin;
    QVERIFY2(screenAxis.norm() > 40.0, qPrintable(QString("the x arrow is only %1 px long").arg(screenAxis.norm())));
    const Vector2d direction = screenAxis.normalized();

    std::vector<Isometry3d> poses;
    gizmo.setOnDesiredPose([&poses](const Isometry3d& X) { poses.push_back(X); });
    int picks = 0;
    viewport().setOnPick([&picks](const std::optional<PickResult>&) { ++picks; });
    const double az0 = camera().azimuth();
    const double el0 = camera().elevation();
    const double d0 = camera().distance();
    const Vector3d c0 = camera().center();
    const auto cameraUnchanged = [&] {
      return camera().azimuth() == az0 && camera().elevation() == el0 && camera().distance() == d0 &&
             camera().center() == c0;
    };

    const QPoint press = toWidget(*pMiddle);
    QVERIFY(!viewport().isDraggingGizmo());
    QTest::mousePress(&widget(), Qt::LeftButton, Qt::NoModifier, press);
    QVERIFY2(viewport().isDraggingGizmo(), "pressing on the x arrow did not start a gizmo drag");
    QCOMPARE(gizmo.activeAxis(), GizmoAxis::X);
    constexpr int kMoves = 8;
    constexpr double kStep = 6.0;  // pixels per move
    QPoint last = press;
    for (int i = 1; i <= kMoves; ++i) {
      last = toWidget(*pMiddle + (kStep * i) * direction);
      QTest::mouseMove(&widget(), last);
      QVERIFY2(viewport().isDraggingGizmo(), qPrintable(QString("not dragging after move %1").arg(i)));
      QVERIFY2(cameraUnchanged(), qPrintable(QString("the camera moved during the gizmo drag (move %1)").arg(i)));
    }
    QTest::mouseRelease(&widget(), Qt::LeftButton, Qt::NoModifier, last);
    QVERIFY2(!viewport().isDraggingGizmo(), "still dragging after the release");
    QVERIFY(!gizmo.isDragging());
    QVERIFY2(cameraUnchanged(), "the camera moved during the gizmo drag");
    QCOMPARE(picks, 0);
    QCOMPARE(static_cast<int>(poses.size()), kMoves);

    const double shift =
        closestAxisParameter(origin, axis, rayAtWidget(last)) - closestAxisParameter(origin, axis, rayAtWidget(press));
    QVERIFY2(shift > 0.05, qPrintable(QString("the drag should move the arrow forward, computed %1 m").arg(shift)));
    for (const Isometry3d& X : poses) {
      const Vector3d moved = X.translation() - origin;
      QVERIFY2(
          (moved - moved.dot(axis) * axis).norm() < 1e-9,
          qPrintable(
              QString("a desired pose moved off the x axis by %1 m").arg((moved - moved.dot(axis) * axis).norm())));
      QVERIFY2((X.linear() - body.pose.linear()).norm() < 1e-12, "a translate drag changed the rotation");
    }
    const double reported = (poses.back().translation() - origin).dot(axis);
    QVERIFY2(std::abs(reported - shift) < 1e-9,
             qPrintable(QString("moved %1 m along x, expected %2 m").arg(reported, 0, 'g', 17).arg(shift, 0, 'g', 17)));
    // The viewport's rays agree with the ones computed here.
    QVERIFY((viewport().rayAt(widget().toDevice(last.x()), widget().toDevice(last.y())).direction -
             rayAtWidget(last).direction)
                .norm() < 1e-12);
    // The gizmo is drawn in the widget; without it the scene is as before.
    const QImage withGizmo = frame();
    host_->scene.setGizmoVisible(false);
    const QImage withoutGizmo = frame();
    const int changed = countChanged(withGizmo, withoutGizmo, 100);
    QVERIFY2(changed > 200, qPrintable(QString("the gizmo covers only %1 pixels").arg(changed)));
    const QString problem = checkPixels(withoutGizmo);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  // 5. Over the stats panel the overlay takes the mouse: it says so after
  //    the next frame, and a drag starting there leaves the camera alone.
  void overlayTakesTheMouseOverItsPanel() {
    QVERIFY(viewport().isOverlayEnabled());
    QVERIFY(viewport().overlay().isStatsVisible());
    int picks = 0;
    viewport().setOnPick([&picks](const std::optional<PickResult>&) { ++picks; });
    const QPoint scene(kWidth / 2, kHeight - 80);
    const QPoint panel(60, 40);

    hover(scene);
    frame();
    QVERIFY2(!viewport().overlay().wantsMouse(), "the overlay wants the mouse over the 3D view");
    hover(panel);
    QVERIFY2(!viewport().overlay().wantsMouse(), "wantsMouse() changed before a frame was drawn");
    frame();
    QVERIFY2(viewport().overlay().wantsMouse(), "the overlay does not want the mouse over its stats panel");

    // A drag from the panel, a frame after each event as a host window
    // repaints after input: ImGui moves the panel, the camera stays.
    const double az0 = camera().azimuth();
    const double el0 = camera().elevation();
    const double d0 = camera().distance();
    const QPoint delta(100, 30);
    QTest::mousePress(&widget(), Qt::LeftButton, Qt::NoModifier, panel);
    frame();
    for (int i = 1; i <= 5; ++i) {
      QTest::mouseMove(&widget(), panel + delta * i / 5);
      frame();
    }
    QTest::mouseRelease(&widget(), Qt::LeftButton, Qt::NoModifier, panel + delta);
    frame();
    QCOMPARE(camera().azimuth(), az0);
    QCOMPARE(camera().elevation(), el0);
    QCOMPARE(camera().distance(), d0);
    QCOMPARE(picks, 0);
    QVERIFY(!viewport().isDraggingGizmo());

    // The panel followed the drag: its old top-left corner is now empty,
    // the dragged point is still on it.
    hover(QPoint(20, 20));
    frame();
    QVERIFY2(!viewport().overlay().wantsMouse(), "the panel did not move with the drag");
    hover(panel + delta);
    frame();
    QVERIFY2(viewport().overlay().wantsMouse(), "the panel is not under the pointer after the drag");

    // Back over the 3D view the same drag orbits.
    hover(scene);
    frame();
    QVERIFY(!viewport().overlay().wantsMouse());
    leftDrag(scene, QPoint(100, 0), 5);
    const double want = az0 - OrbitCamera::kOrbitRadiansPerPixel * widget().toDevice(100);
    QVERIFY2(std::abs(wrappedDifference(camera().azimuth(), want)) < 1e-12,
             qPrintable(QString("azimuth %1, expected %2").arg(camera().azimuth()).arg(want)));
  }

  // 6. Resizing the widget resizes the viewport, and the scene is drawn at
  //    the new size with the new aspect ratio.
  void resizeResizesTheViewport() {
    for (const QSize& size : {QSize(800, 500), QSize(420, 380)}) {
      widget().resize(size);
      QTRY_COMPARE(viewport().width(), widget().toDevicePixels(size.width()));
      QCOMPARE(viewport().height(), widget().toDevicePixels(size.height()));
      const QImage image = frame();
      QCOMPARE(image.size(), QSize(viewport().width(), viewport().height()));
      const QString problem = checkPixels(image);
      QVERIFY2(problem.isEmpty(),
               qPrintable(QString("at %1x%2: %3").arg(size.width()).arg(size.height()).arg(problem)));
    }
  }
};

QTEST_MAIN(TestQtHost)
#include "test_qt_host.moc"

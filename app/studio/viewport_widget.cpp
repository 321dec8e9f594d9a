#include "viewport_widget.hpp"

#include "document.hpp"
#include "simulation.hpp"

#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewport.hpp>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QTimer>
#include <QWheelEvent>

#include <Eigen/Geometry>

#include <cmath>
#include <optional>

namespace articula::studio {

using viewer::MouseButton;

struct ViewportWidget::Impl {
  viewer::SceneView scene;
  std::unique_ptr<viewer::Viewport> viewport;
  std::shared_ptr<viewer::SceneDescription> designDescription;
  viewer::RenderSnapshot designSnapshot;
  std::uint64_t descriptionVersion = 0;
  /// The object the gizmo moves (a rigid body or link), None when hidden.
  ObjectRef gizmoTarget;
  bool gizmoDragging = false;
  /// Simulation mode: the body pulled with Ctrl + left drag.
  ObjectRef pulled;
  Vector3d pulledLocalPoint = Vector3d::Zero();
  Vector3d pullPlanePoint = Vector3d::Zero();
  Vector3d pullPlaneNormal = Vector3d::UnitZ();
};

namespace {

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

viewer::KeyModifiers toModifiers(Qt::KeyboardModifiers m) {
  viewer::KeyModifiers k;
  k.shift = m.testFlag(Qt::ShiftModifier);
  k.ctrl = m.testFlag(Qt::ControlModifier);
  k.alt = m.testFlag(Qt::AltModifier);
  return k;
}

/// The body a description body name stands for.
ObjectRef refOfBodyName(const std::string& name) {
  if (name == "world") return {ObjectKind::World, "world"};
  if (name.find('/') != std::string::npos) return {ObjectKind::Link, name};
  return {ObjectKind::RigidBody, name};
}

/// Rotation vector (axis·angle) taking orientation R to Rd, world coordinates.
Vector3d rotationError(const Matrix3d& R, const Matrix3d& Rd) {
  const Eigen::AngleAxisd aa(Rd * R.transpose());
  return aa.axis() * aa.angle();
}

}  // namespace

ViewportWidget::ViewportWidget(Document* document, Simulation* simulation, QWidget* parent)
    : QOpenGLWidget(parent), m_document(document), m_simulation(simulation), m(std::make_unique<Impl>()) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(320, 240);
  connect(document, &Document::designChanged, this, &ViewportWidget::onDesignChanged);
  connect(document, &Document::designReset, this, [this] {
    // A new or opened design: the stats of an earlier simulation are not its.
    if (m->viewport && !m_simulationMode) m->viewport->overlay().resetFeed();
    onDesignChanged();
  });
  connect(document, &Document::positionsChanged, this, &ViewportWidget::onPositionsChanged);
  connect(document, &Document::selectionChanged, this, &ViewportWidget::onSelectionChanged);
  m->scene.gizmo().setOnDesiredPose([this](const Isometry3d& X) { onGizmoPose(X); });
  m_timer = new QTimer(this);
  m_timer->setInterval(16);
  connect(m_timer, &QTimer::timeout, this, [this] {
    if (m_simulationMode && m->viewport && m_simulation->isActive()) {
      if (m->viewport->pullSnapshot(m_simulation->publisher())) {
        update();
        emit snapshotShown();
      }
    }
  });
  describeDesign();
}

ViewportWidget::~ViewportWidget() {
  if (!m->viewport) return;
  // The overlay and the scene graph free their OpenGL objects in this context.
  makeCurrent();
  m->viewport.reset();
  doneCurrent();
}

viewer::Viewport* ViewportWidget::viewport() const {
  return m->viewport.get();
}
viewer::SceneView& ViewportWidget::scene() {
  return m->scene;
}

double ViewportWidget::toDevice(double logical) const {
  return logical * devicePixelRatioF();
}

void ViewportWidget::describeDesign() {
  const World& world = m_document->world();
  m->designDescription =
      std::make_shared<viewer::SceneDescription>(viewer::describeScene(world, ++m->descriptionVersion));
  if (!m_simulationMode) {
    m->scene.setDescription(m->designDescription);
    placeDesign();
  }
}

void ViewportWidget::placeDesign() {
  if (m_simulationMode || !m->designDescription) return;
  viewer::fillRenderSnapshot(m_document->world(), *m->designDescription, m->designSnapshot);
  m->designSnapshot.version = m->designSnapshot.version + 1;
  m->scene.applySnapshot(m->designSnapshot);
  placeGizmo();
  update();
}

void ViewportWidget::onDesignChanged() {
  // The document ended any positions drag (a structural edit came first):
  // the next gizmo motion starts a new one.
  m->gizmoDragging = false;
  describeDesign();
  onSelectionChanged();
  if (m_fitPending && m->viewport) {
    m->viewport->fitToScene();
    m_fitPending = false;
  }
}

void ViewportWidget::onPositionsChanged() {
  placeDesign();
}

void ViewportWidget::onSelectionChanged() {
  const World& world = m_document->world();
  std::vector<viewer::ObjectId> bodies;
  const auto& description = m_simulationMode ? m_simulation->description() : m->designDescription;
  ObjectRef target;
  for (const ObjectRef& ref : m_document->selection()) {
    const ObjectRef body = movingBodyOf(world, ref);
    if (body.isNone() || !description) continue;
    for (const viewer::BodyDescription& b : description->bodies) {
      if (b.name == body.name) bodies.push_back(b.id);
    }
    if (target.isNone() && (ref.kind == ObjectKind::RigidBody || ref.kind == ObjectKind::Link)) target = ref;
  }
  m->scene.setSelection(bodies);
  m->gizmoTarget = m_simulationMode ? ObjectRef{} : target;
  placeGizmo();
  update();
}

void ViewportWidget::placeGizmo() {
  const std::optional<Frame> frame = findFrame(m_document->world(), m->gizmoTarget);
  const bool visible = !m_simulationMode && frame.has_value() && !m->gizmoTarget.isNone();
  m->scene.setGizmoVisible(visible);
  if (!visible) return;
  if (!m->gizmoDragging) m->scene.gizmo().setPose(frame->getWorldTransform());
  m->scene.updateGizmo();
}

void ViewportWidget::setGizmoTranslate(bool translate) {
  m->scene.gizmo().setMode(translate ? viewer::GizmoMode::Translate : viewer::GizmoMode::Rotate);
  m->scene.updateGizmo();
  update();
}

void ViewportWidget::onGizmoPose(const Isometry3d& desired) {
  World& world = m_document->world();
  if (m_document->isLocked()) return;
  if (!m_document->isDraggingPositions()) m_document->beginPositionsDrag();
  m->gizmoDragging = true;
  const VectorXd q0 = world.getPositions();
  if (std::optional<RigidBody> body = findRigidBody(world, m->gizmoTarget)) {
    body->setPose(desired);
    const VectorXd q = world.getPositions();
    world.setPositions(q0);
    m_document->setPositionsLive(q, {m->gizmoTarget});
  } else if (const std::optional<Link> link = findLink(world, m->gizmoTarget)) {
    // The link's own joint coordinates: damped least squares on the
    // columns of its joint in the link's world Jacobian ([angular; linear]
    // at the link origin), a few iterations toward the desired pose.
    Joint joint = link->getParentJoint();
    const int nv = joint.numDofs();
    if (nv == 0) return;
    Multibody mb = link->getMultibody();
    if (joint.type() == JointType::Free) {
      const JointSpec spec = joint.getSpec();
      const Isometry3d X_parent =
          link->getParentLink() ? link->getParentLink()->getWorldTransform() : Isometry3d::Identity();
      const Isometry3d X_J = spec.parentOffset.inverse() * X_parent.inverse() * desired * spec.childOffset;
      const Eigen::Quaterniond quat(X_J.linear());
      VectorXd qj(7);
      qj << X_J.translation(), quat.x(), quat.y(), quat.z(), quat.w();
      joint.setPositions(qj);
    } else if (joint.numPositions() == nv) {
      // Damped least squares on the columns of this joint: in translate
      // mode the link's centre of mass follows the dragged displacement
      // (a revolute link's origin may sit on its axis and cannot move), in
      // rotate mode its orientation follows the dragged rotation.
      const bool translate = m->scene.gizmo().mode() == viewer::GizmoMode::Translate;
      const Vector3d com = link->getInertia().com;
      const Vector3d target = desired * com;
      const double lambda = 1e-3;
      for (int iteration = 0; iteration < 10; ++iteration) {
        const Isometry3d X = link->getWorldTransform();
        const Vector3d e = translate ? Vector3d(target - X * com) : rotationError(X.linear(), desired.linear());
        if (e.norm() < 1e-10) break;
        const Matrix6Xd J6 = mb.getJacobian(*link, com).middleCols(joint.velocityOffset(), nv);
        const Matrix3Xd J = translate ? Matrix3Xd(J6.bottomRows<3>()) : Matrix3Xd(J6.topRows<3>());
        const Matrix3d A = J * J.transpose() + lambda * lambda * Matrix3d::Identity();
        const VectorXd dq = J.transpose() * A.ldlt().solve(e);
        joint.setPositions(joint.getPositions() + dq);
      }
    } else {
      return;  // a ball joint is turned from the inspector
    }
    const VectorXd q = world.getPositions();
    world.setPositions(q0);
    m_document->setPositionsLive(q, {m->gizmoTarget});
  }
}

void ViewportWidget::setSimulationMode(bool simulation) {
  m_simulationMode = simulation;
  m->pulled = {};
  // The stats panel shows the running simulation's numbers only: a new
  // run starts them afresh, and design mode shows none.
  if (m->viewport) m->viewport->overlay().resetFeed();
  if (simulation) {
    m->scene.setDescription(std::const_pointer_cast<viewer::SceneDescription>(m_simulation->description()));
    m->gizmoTarget = {};
    m->scene.setGizmoVisible(false);
    // Draw the simulation's first snapshot at once: until then the scene
    // would show the new description with the design's poses.
    if (m->viewport) m->viewport->pullSnapshot(m_simulation->publisher());
    m_timer->start();
  } else {
    m_timer->stop();
    describeDesign();
  }
  onSelectionChanged();
  update();
}

void ViewportWidget::fitToScene() {
  if (m->viewport) {
    m->viewport->fitToScene();
    update();
  } else {
    m_fitPending = true;
  }
}

QImage ViewportWidget::grabView() {
  return grabFramebuffer();
}

void ViewportWidget::initializeGL() {
  m->viewport = viewer::Viewport::createEmbedded(static_cast<int>(std::lround(toDevice(width()))),
                                                 static_cast<int>(std::lround(toDevice(height()))));
  m->viewport->setScene(&m->scene);
  m->viewport->setOnPick([this](const std::optional<viewer::PickResult>& pick) {
    if (!pick) {
      emit objectPicked({});
      return;
    }
    const auto& description = m_simulationMode ? m_simulation->description() : m->designDescription;
    if (!description) return;
    for (const viewer::BodyDescription& b : description->bodies) {
      if (b.id != pick->body) continue;
      if (b.kind == viewer::BodyKind::World) {
        for (const viewer::ShapeDescription& s : description->shapes) {
          if (s.id == pick->shape) emit objectPicked({ObjectKind::Shape, s.name});
        }
      } else {
        emit objectPicked(refOfBodyName(b.name));
      }
      return;
    }
  });
  if (m_fitPending) {
    m->viewport->fitToScene();
    m_fitPending = false;
  }
}

void ViewportWidget::resizeGL(int w, int h) {
  if (m->viewport) {
    m->viewport->resize(static_cast<int>(std::lround(toDevice(w))), static_cast<int>(std::lround(toDevice(h))));
  }
}

void ViewportWidget::paintGL() {
  if (!m->viewport) return;
  m->viewport->renderFrame(defaultFramebufferObject());
  ++m_framesPainted;
}

void ViewportWidget::mousePressEvent(QMouseEvent* e) {
  const std::optional<MouseButton> b = toButton(e->button());
  if (!m->viewport || !b) return QOpenGLWidget::mousePressEvent(e);
  const double x = toDevice(e->position().x());
  const double y = toDevice(e->position().y());
  setFocus();
  if (m_simulationMode && *b == MouseButton::Left && e->modifiers().testFlag(Qt::ControlModifier)) {
    // Pull a body: a spring from the grabbed point to the cursor, which
    // moves in the plane through the grabbed point facing the camera.
    const std::optional<viewer::PickResult> pick = m->viewport->pickAt(x, y);
    const auto& description = m_simulation->description();
    if (pick && description) {
      for (const viewer::BodyDescription& body : description->bodies) {
        if (body.id != pick->body || body.kind == viewer::BodyKind::World) continue;
        const viewer::RenderSnapshot& shown = m->scene.appliedSnapshot();
        const std::size_t i = static_cast<std::size_t>(&body - description->bodies.data());
        if (i >= shown.bodyPoses.size()) break;
        m->pulled = refOfBodyName(body.name);
        m->pulledLocalPoint = shown.bodyPoses[i].inverse() * pick->point;
        m->pullPlanePoint = pick->point;
        const viewer::Ray ray = m->viewport->rayAt(x, y);
        m->pullPlaneNormal = -ray.direction;
        m_simulation->setDragSpring(m->pulled, m->pulledLocalPoint, pick->point);
        emit statusMessage(tr("Pulling %1").arg(QString::fromStdString(body.name)));
        break;
      }
    }
    e->accept();
    return;
  }
  m->viewport->mousePress(*b, x, y, toModifiers(e->modifiers()));
  e->accept();
  update();
}

void ViewportWidget::mouseMoveEvent(QMouseEvent* e) {
  if (!m->viewport) return QOpenGLWidget::mouseMoveEvent(e);
  const double x = toDevice(e->position().x());
  const double y = toDevice(e->position().y());
  if (!m->pulled.isNone()) {
    const viewer::Ray ray = m->viewport->rayAt(x, y);
    const double denom = ray.direction.dot(m->pullPlaneNormal);
    if (std::abs(denom) > 1e-9) {
      const double t = (m->pullPlanePoint - ray.origin).dot(m->pullPlaneNormal) / denom;
      if (t > 0) m_simulation->setDragSpring(m->pulled, m->pulledLocalPoint, ray.origin + t * ray.direction);
    }
    e->accept();
    return;
  }
  m->viewport->mouseMove(x, y, toModifiers(e->modifiers()));
  e->accept();
  update();
}

void ViewportWidget::mouseReleaseEvent(QMouseEvent* e) {
  const std::optional<MouseButton> b = toButton(e->button());
  if (!m->viewport || !b) return QOpenGLWidget::mouseReleaseEvent(e);
  if (!m->pulled.isNone() && *b == MouseButton::Left) {
    m_simulation->clearDragSpring();
    m->pulled = {};
    e->accept();
    return;
  }
  m->viewport->mouseRelease(*b, toDevice(e->position().x()), toDevice(e->position().y()), toModifiers(e->modifiers()));
  if (m->gizmoDragging && !m->viewport->isDraggingGizmo()) {
    m->gizmoDragging = false;
    m_document->endPositionsDrag(tr("Move %1").arg(QString::fromStdString(m->gizmoTarget.name)));
    placeGizmo();
  }
  e->accept();
  update();
}

void ViewportWidget::wheelEvent(QWheelEvent* e) {
  if (!m->viewport) return QOpenGLWidget::wheelEvent(e);
  // One notch of a wheel is 120 eighths of a degree: one zoom step.
  m->viewport->mouseWheel(e->angleDelta().y() / 120.0, toDevice(e->position().x()), toDevice(e->position().y()));
  e->accept();
  update();
}

void ViewportWidget::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_F && e->modifiers() == Qt::NoModifier) {
    fitToScene();
    e->accept();
    return;
  }
  QOpenGLWidget::keyPressEvent(e);
}

}  // namespace articula::studio

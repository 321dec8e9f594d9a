#include "viewport_widget.hpp"

#include "document.hpp"
#include "simulation.hpp"

#include <articula/ik.hpp>
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
  /// Whole-body inverse kinematics of the current link drag (set up when
  /// the drag starts): the dragged point or pose, the pins, a posture.
  std::unique_ptr<InverseKinematics> ik;
  int ikTask = -1;
  bool ikTranslate = true;
  Vector3d ikPoint = Vector3d::Zero();  ///< translate: the dragged point in the link frame (its centre of mass)
  VectorXd ikQ;                         ///< the last solution: the next solve starts there
  /// Simulation mode: a kinematic copy of the design, posed at the shown
  /// state, on which drags are solved; the solution becomes the targets of
  /// the position actuators (actuator name, its coordinate in q).
  std::unique_ptr<World> shadow;
  std::vector<std::pair<std::string, int>> servoCoordinates;
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
        if (!m->gizmoTarget.isNone() && !m->gizmoDragging) placeGizmo();
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
  m->ik.reset();
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
  // In simulation mode a link is dragged through its position servos.
  const bool servoDrag = target.kind == ObjectKind::Link && !m->servoCoordinates.empty();
  m->gizmoTarget = !m_simulationMode || servoDrag ? target : ObjectRef{};
  placeGizmo();
  update();
}

void ViewportWidget::placeGizmo() {
  std::optional<Frame> frame;
  if (!m_simulationMode) {
    frame = findFrame(m_document->world(), m->gizmoTarget);
  } else if (m->shadow && !m->gizmoTarget.isNone()) {
    // At the shown state (the gizmo stays where the drag put it meanwhile).
    if (const std::optional<VectorXd> shown = m_simulation->shownPositions();
        shown && shown->size() == m->shadow->numPositions()) {
      if (!m->gizmoDragging) m->shadow->setPositions(*shown);
      frame = findFrame(*m->shadow, m->gizmoTarget);
    }
  }
  const bool visible = frame.has_value() && !m->gizmoTarget.isNone();
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
  if (m_simulationMode) return onSimulationGizmoPose(desired);
  World& world = m_document->world();
  if (m_document->isLocked()) return;
  if (!m_document->isDraggingPositions()) m_document->beginPositionsDrag();
  const bool dragging = m->gizmoDragging;
  m->gizmoDragging = true;
  const VectorXd q0 = world.getPositions();
  if (std::optional<RigidBody> body = findRigidBody(world, m->gizmoTarget)) {
    body->setPose(desired);
    const VectorXd q = world.getPositions();
    world.setPositions(q0);
    m_document->setPositionsLive(q, {m->gizmoTarget});
  } else if (const std::optional<Link> link = findLink(world, m->gizmoTarget)) {
    if (!dragging || !m->ik) startIk(world, *link, q0);
    const IkResult& r = solveIk(desired);
    m_document->setPositionsLive(m->ikQ, {m->gizmoTarget});
    reportIk(r, m_document->maxClosureResidual());
  }
}

void ViewportWidget::startIk(World& world, const Link& link, const VectorXd& q0) {
  IkOptions options;
  options.maxIterations = 60;      // per mouse motion: the drag continues from where it got
  options.postureIterations = 10;  // the rest of the robot returns towards where the drag started
  m->ik = std::make_unique<InverseKinematics>(world, options);
  m->ikTranslate = m->scene.gizmo().mode() == viewer::GizmoMode::Translate;
  for (const ObjectRef& pin : m_document->pins()) {
    if (pin == m->gizmoTarget) continue;
    if (const std::optional<Frame> f = findFrame(world, pin)) m->ik->pin(*f, "pin " + pin.name);
  }
  IkTaskOptions task;
  task.name = m->gizmoTarget.name;
  if (m->ikTranslate) {
    // A revolute link's origin may sit on its axis: the centre of mass follows the drag.
    m->ikPoint = link.getInertia().com;
    task.offset = Isometry3d(Eigen::Translation3d(m->ikPoint));
    m->ikTask = m->ik->addPositionTask(link, link.getWorldTransform() * m->ikPoint, task);
  } else {
    m->ikTask = m->ik->addPoseTask(link, link.getWorldTransform(), task);
  }
  // The rest of the robot keeps its pose: the joints between the dragged
  // link and its root give way first (a light posture), every other joint
  // (a humanoid's legs, its other arm) is held a hundred times stiffer.
  std::vector<int> chain, others;
  std::vector<bool> onChain(static_cast<std::size_t>(world.numDofs()), false);
  for (std::optional<Link> l = link; l; l = l->getParentLink()) {
    const Joint j = l->getParentJoint();
    if (j.numPositions() != j.numDofs()) continue;
    for (int k = 0; k < j.numDofs(); ++k) onChain[static_cast<std::size_t>(j.velocityOffset() + k)] = true;
  }
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Joint& j : mb.getJoints()) {
      if (j.numPositions() != j.numDofs()) continue;
      for (int k = 0; k < j.numDofs(); ++k) {
        const int dof = j.velocityOffset() + k;
        (onChain[static_cast<std::size_t>(dof)] ? chain : others).push_back(dof);
      }
    }
  }
  IkTaskOptions posture;
  posture.priority = 2;
  if (!chain.empty()) m->ik->addPostureTask(q0, chain, posture);
  posture.weight = 100.0;
  if (!others.empty()) m->ik->addPostureTask(q0, others, posture);
  m->ikQ = q0;
}

const IkResult& ViewportWidget::solveIk(const Isometry3d& desired) {
  if (m->ikTranslate) {
    m->ik->setTargetPosition(m->ikTask, desired * m->ikPoint);
  } else {
    m->ik->setTarget(m->ikTask, desired);
  }
  return m->ik->solve(m->ikQ, m->ikQ);
}

void ViewportWidget::reportIk(const IkResult& r, double closureResidual) {
  QString text;
  for (const IkTaskResult& t : r.tasks) {
    if (t.name != m->gizmoTarget.name) continue;
    text = r.converged ? tr("IK: %1 follows (%2 iterations)").arg(QString::fromStdString(t.name)).arg(r.iterations)
                       : tr("IK: %1 cannot reach the target; closest pose, %2 mm away")
                             .arg(QString::fromStdString(t.name))
                             .arg(1000.0 * t.position, 0, 'f', 1);
  }
  if (!m_document->pins().empty()) text += tr(" · %1 pinned").arg(m_document->pins().size());
  if (closureResidual > 0.0) text += tr(" · closure residual %1").arg(closureResidual, 0, 'g', 2);
  emit statusMessage(text);
}

void ViewportWidget::startSimulationShadow() {
  m->shadow.reset();
  m->servoCoordinates.clear();
  try {
    m->shadow = std::make_unique<World>(m_document->world().getSpec());
  } catch (const std::exception&) {
    return;  // the simulation reports what is wrong with the design
  }
  for (const Actuator& a : m->shadow->getActuators()) {
    const ActuatorSpec spec = a.getSpec();
    if (spec.type != ActuatorType::PositionServo && spec.type != ActuatorType::Pid) continue;
    const std::size_t slash = spec.joint.find('/');
    if (slash == std::string::npos) continue;
    const std::optional<Multibody> mb = m->shadow->getMultibody(spec.joint.substr(0, slash));
    const std::optional<Joint> joint = mb ? mb->getJoint(spec.joint.substr(slash + 1)) : std::nullopt;
    if (!joint || joint->numPositions() != joint->numDofs()) continue;
    m->servoCoordinates.emplace_back(spec.name, joint->positionOffset() + spec.coordinate);
  }
}

// Simulation mode: the drag is solved on the shadow from the shown state,
// and the solution becomes the position actuators' targets.
void ViewportWidget::onSimulationGizmoPose(const Isometry3d& desired) {
  if (!m->shadow || m->servoCoordinates.empty()) return;
  const std::optional<Link> link = findLink(*m->shadow, m->gizmoTarget);
  if (!link) return;
  if (!m->gizmoDragging || !m->ik) {
    const std::optional<VectorXd> shown = m_simulation->shownPositions();
    if (!shown || shown->size() != m->shadow->numPositions()) return;
    m->shadow->setPositions(*shown);
    startIk(*m->shadow, *link, *shown);
  }
  m->gizmoDragging = true;
  const IkResult& r = solveIk(desired);
  for (const auto& [actuator, index] : m->servoCoordinates) m_simulation->setControl(actuator, m->ikQ[index]);
  reportIk(r, 0.0);
}

void ViewportWidget::setSimulationMode(bool simulation) {
  m_simulationMode = simulation;
  m->pulled = {};
  // The stats panel shows the running simulation's numbers only: a new
  // run starts them afresh, and design mode shows none.
  if (m->viewport) m->viewport->overlay().resetFeed();
  m->ik.reset();
  m->gizmoDragging = false;
  if (simulation) {
    m->scene.setDescription(std::const_pointer_cast<viewer::SceneDescription>(m_simulation->description()));
    m->gizmoTarget = {};
    m->scene.setGizmoVisible(false);
    startSimulationShadow();
    // Draw the simulation's first snapshot at once: until then the scene
    // would show the new description with the design's poses.
    if (m->viewport) m->viewport->pullSnapshot(m_simulation->publisher());
    m_timer->start();
  } else {
    m_timer->stop();
    m->shadow.reset();
    m->servoCoordinates.clear();
    describeDesign();
  }
  onSelectionChanged();
  update();
}

void ViewportWidget::fitToScene() {
  if (m->viewport) {
    // A viewpoint's field of view does not outlast it.
    m->viewport->camera().setFieldOfView(viewer::OrbitCamera().fieldOfView());
    m->viewport->fitToScene();
    update();
  } else {
    m_fitPending = true;
    m_viewPending.reset();
  }
}

void ViewportWidget::setView(const ViewpointSpec& view) {
  if (!m->viewport) {
    m_viewPending = view;
    m_fitPending = false;
    return;
  }
  viewer::OrbitCamera& camera = m->viewport->camera();
  camera.setView(view.eye, view.center);
  camera.setFieldOfView(view.fovYDegrees);
  update();
}

ViewpointSpec ViewportWidget::currentView(const std::string& name) const {
  if (!m->viewport && m_viewPending) {
    ViewpointSpec v = *m_viewPending;
    v.name = name;
    return v;
  }
  const viewer::OrbitCamera fresh;
  const viewer::OrbitCamera& camera = m->viewport ? m->viewport->camera() : fresh;
  const viewer::CameraPose pose = camera.pose();
  ViewpointSpec v;
  v.name = name;
  v.eye = pose.eye;
  v.center = pose.center;
  v.fovYDegrees = camera.fieldOfView();
  return v;
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
  if (m_viewPending) {
    const ViewpointSpec view = *m_viewPending;
    m_viewPending.reset();
    setView(view);
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
    m->ik.reset();
    if (!m_simulationMode) m_document->endPositionsDrag(tr("Move %1").arg(QString::fromStdString(m->gizmoTarget.name)));
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

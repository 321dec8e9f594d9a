#pragma once
/// @file
/// ViewportWidget: the 3D view in the centre of the main window. A
/// QOpenGLWidget hosting a viewer::Viewport (OpenSceneGraph scene, ImGui
/// overlay) in its context.
/// - Design mode: shows the document's world (described again after every
///   design change); a click selects, the gizmo moves the selected rigid
///   body or link (a link by its own joint coordinates; a closed loop
///   follows), one undo step per drag.
/// - Simulation mode: draws the newest snapshot the simulation thread
///   published, at the widget's frame rate; Ctrl + left drag on a body
///   pulls it with a spring.
/// The OpenSceneGraph and viewer headers stay out of this header.

#include "object_ref.hpp"

#include <QImage>
#include <QOpenGLWidget>

#include <memory>
#include <optional>

class QTimer;

namespace articula::viewer {
class Viewport;
class SceneView;
struct SceneDescription;
}  // namespace articula::viewer

namespace articula {
struct IkResult;
}

namespace articula::studio {

class Document;
class Simulation;

class ViewportWidget : public QOpenGLWidget {
  Q_OBJECT

 public:
  ViewportWidget(Document* document, Simulation* simulation, QWidget* parent = nullptr);
  ~ViewportWidget() override;
  ViewportWidget(const ViewportWidget&) = delete;
  ViewportWidget& operator=(const ViewportWidget&) = delete;

  /// Null until the widget's OpenGL context exists (first show).
  viewer::Viewport* viewport() const;
  viewer::SceneView& scene();
  /// Frames the whole scene.
  void fitToScene();
  /// Looks from `view.eye` at `view.center` with its field of view (applied
  /// when the OpenGL view exists, if it does not yet).
  void setView(const ViewpointSpec& view);
  /// The camera as a viewpoint named `name` (the pending or default view
  /// before the OpenGL view exists).
  ViewpointSpec currentView(const std::string& name) const;
  /// Translate (true) or rotate gizmo.
  void setGizmoTranslate(bool translate);
  /// Follows the simulation (true) or the document's design (false).
  void setSimulationMode(bool simulation);
  bool isSimulationMode() const { return m_simulationMode; }
  /// Renders now and returns the framebuffer (what the widget shows).
  QImage grabView();
  /// Paint calls so far.
  int framesPainted() const { return m_framesPainted; }

 signals:
  /// A body was clicked (None for empty space): the selection follows.
  void objectPicked(const articula::studio::ObjectRef& ref);
  /// Simulation mode: a newer snapshot was taken from the simulation and drawn.
  void snapshotShown();
  /// A message for the status bar.
  void statusMessage(const QString& text);

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;

 private:
  struct Impl;
  void onDesignChanged();
  void onPositionsChanged();
  void onSelectionChanged();
  void onGizmoPose(const Isometry3d& desired);
  void onSimulationGizmoPose(const Isometry3d& desired);
  // Whole-body inverse kinematics of a link drag (articula/ik.hpp).
  void startIk(World& world, const Link& link, const VectorXd& q0);
  const IkResult& solveIk(const Isometry3d& desired);
  void reportIk(const IkResult& result, double closureResidual);
  void startSimulationShadow();
  void describeDesign();
  void placeDesign();
  void placeGizmo();
  double toDevice(double logical) const;

  Document* m_document;
  Simulation* m_simulation;
  std::unique_ptr<Impl> m;
  QTimer* m_timer = nullptr;
  bool m_simulationMode = false;
  bool m_fitPending = true;
  std::optional<ViewpointSpec> m_viewPending;  ///< setView() before the OpenGL view existed
  int m_framesPainted = 0;
};

}  // namespace articula::studio

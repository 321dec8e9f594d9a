#pragma once
/// @file
/// Inspector: the property form of the selected object (Document::current()).
/// Every change goes through Document::edit() as one undoable step (steps
/// of one field merge); invalid values are refused with a message next to
/// the field and the design stays as it was. While the simulation runs (or
/// the document is locked) the design fields are read-only and a selected
/// link or joint gets effort and target sliders that drive the running
/// simulation; they show the drives last sent to it (Simulation::jointEffort,
/// jointTarget), a target otherwise starting from the simulated position
/// shown. Editors carry object names "field_<name>", their messages
/// "error_<name>", so that tests and scripts can find them.
///
/// The form follows Document::selectionChanged, designChanged, designReset
/// and positionsChanged, and Simulation::statusChanged. Document::setLocked
/// has no signal: call reload() after changing the lock on its own.

#include "object_ref.hpp"
#include "property_form.hpp"

#include <QString>
#include <QWidget>

#include <functional>
#include <string>

class QLabel;
class QScrollArea;

namespace articula::studio {

class Document;
class Simulation;

class Inspector : public QWidget {
  Q_OBJECT

 public:
  /// `simulation` may be null (no simulation controls then).
  Inspector(Document* document, Simulation* simulation, QWidget* parent = nullptr);
  ~Inspector() override;
  Inspector(const Inspector&) = delete;
  Inspector& operator=(const Inspector&) = delete;

  /// The object the form shows (None when nothing is selected).
  const ObjectRef& shownObject() const { return m_form.object(); }
  /// Whether design fields are read-only (simulation active or document locked).
  bool isReadOnly() const { return m_form.isReadOnly(); }

 public slots:
  /// Builds the form again from the document (after a lock change, ...).
  void reload();
  /// While simulating: shows the joint coordinates of the snapshot the
  /// viewport drew last (called when it draws a new one).
  void showSimulatedValues();

 private:
  void onSelectionChanged();
  void onDesignChanged();
  void onPositionsChanged();

  // Form construction. Each builder adds rows to m_form for the object it shows.
  void rebuild();
  std::string formSignature() const;
  void buildWorld();
  void buildRigidBody();
  void buildMultibody();
  void buildLink();
  void buildJoint();
  void buildShape();
  void buildLoopClosure();
  void buildCoupler();
  void buildActuator();
  void buildSchedule();
  void buildKeyframe();
  void buildFrame();
  void buildSimulationControls(const ObjectRef& jointRef);

  // Shared parts.
  void addNameField();
  void addInertiaFields(const ObjectRef& body);
  void addCoordinateFields(const ObjectRef& jointRef);
  /// Position (m) and roll/pitch/yaw (deg) fields named prefix + "pos_x", ... of the pose `read` gives.
  void addPoseFields(const QString& prefix, const std::function<Isometry3d(const World&)>& read,
                     const std::function<void(World&, const Isometry3d&)>& write, bool editable = true);
  void setJointCoordinate(const ObjectRef& jointRef, int index, double value);
  void computeInertia(const ObjectRef& body);

  Document* m_document = nullptr;
  Simulation* m_simulation = nullptr;  ///< may be null
  QScrollArea* m_scroll = nullptr;
  QWidget* m_page = nullptr;  ///< the current form (replaced by rebuild())
  QLabel* m_note = nullptr;   ///< remarks of the last inertia computation
  PropertyForm m_form;        ///< the fields of m_page and the object they show
  std::string m_signature;    ///< what the form's layout depends on (formSignature())
  bool m_simulationActive = false;
  double m_density = 1000.0;  ///< kg/m³ for "Compute from shapes" (not part of the design)
};

}  // namespace articula::studio

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

#include <QString>
#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QFormLayout;
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
  const ObjectRef& shownObject() const { return m_ref; }
  /// Whether design fields are read-only (simulation active or document locked).
  bool isReadOnly() const { return m_readOnly; }

 public slots:
  /// Builds the form again from the document (after a lock change, ...).
  void reload();
  /// While simulating: shows the joint coordinates of the snapshot the
  /// viewport drew last (called when it draws a new one).
  void showSimulatedValues();

 private:
  using Refresher = std::function<void()>;

  void onSelectionChanged();
  void onDesignChanged();
  void onPositionsChanged();

  // Form construction. Each builder adds rows to m_form for m_ref.
  void rebuild();
  void refreshValues();
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
  void addHeading(const QString& text);
  void addNameField();
  void addInertiaFields(const ObjectRef& body);
  void addCoordinateFields(const ObjectRef& jointRef);
  /// Position (m) and roll/pitch/yaw (deg) fields named prefix + "pos_x", ... of the pose `read` gives.
  void addPoseFields(const QString& prefix, const std::function<Isometry3d(const World&)>& read,
                     const std::function<void(World&, const Isometry3d&)>& write, bool editable = true);

  /// A numeric field: `read` gives the shown value, `validate` returns a
  /// message for a refused value (empty: fine), `write` applies it inside
  /// an edit.
  QWidget* addNumber(const QString& label, const QString& key, const std::function<double(const World&)>& read,
                     const std::function<QString(double)>& validate, const std::function<void(World&, double)>& write,
                     double step = 0.1, bool editable = true);
  /// A numeric field in a row shared with others (vector components).
  QWidget* makeNumber(const QString& key, const std::function<double(const World&)>& read,
                      const std::function<QString(double)>& validate, const std::function<void(World&, double)>& write,
                      double step, bool editable);
  /// An optional number (empty text = none), as for joint limits.
  QWidget* makeOptionalNumber(const QString& key, const std::function<std::optional<double>(const World&)>& read,
                              const std::function<QString(std::optional<double>)>& validate,
                              const std::function<void(World&, std::optional<double>)>& write);
  QWidget* addChoice(const QString& label, const QString& key, const QStringList& items,
                     const std::function<int(const World&)>& read, const std::function<void(World&, int)>& write);
  QWidget* addCheck(const QString& label, const QString& key, const std::function<bool(const World&)>& read,
                    const std::function<void(World&, bool)>& write);
  QLabel* addValueLabel(const QString& label, const QString& key, const std::function<QString(const World&)>& read);
  /// A row of editors (one per key) with their error labels below.
  void addRow(const QString& label, const std::vector<QWidget*>& editors, const QStringList& keys);
  QLabel* makeErrorLabel(const QString& key);

  void registerRefresher(const QString& key, const Refresher& refresher);
  /// Runs `op` as one undoable step for field `key` (merged with the
  /// previous step of the same field when `merge`); on refusal shows the
  /// message under the field and puts the shown value back.
  bool commit(const QString& key, const QString& label, const std::function<void(World&)>& op, bool merge = true);
  /// Shows the design's value in field `key` again.
  void restoreField(const QString& key);
  void showError(const QString& key, const QString& message);
  void clearErrors();
  QString mergeKey(const QString& key) const;
  void setJointCoordinate(const ObjectRef& jointRef, int index, double value);
  void computeInertia(const ObjectRef& body);

  Document* m_document = nullptr;
  Simulation* m_simulation = nullptr;  ///< may be null
  QScrollArea* m_scroll = nullptr;
  QWidget* m_page = nullptr;      ///< the current form (replaced by rebuild())
  QFormLayout* m_form = nullptr;  ///< layout of m_page
  QLabel* m_note = nullptr;       ///< remarks of the last inertia computation
  ObjectRef m_ref;                ///< the object shown
  std::string m_signature;        ///< what the form's layout depends on (formSignature())
  bool m_readOnly = false;
  bool m_simulationActive = false;
  int m_updating = 0;                   ///< > 0 while values are written into editors: their signals are ignored
  double m_density = 1000.0;            ///< kg/m³ for "Compute from shapes" (not part of the design)
  std::vector<Refresher> m_refreshers;  ///< re-read every shown value from the design
  std::map<QString, QLabel*> m_errors;  ///< error label per field key
  std::map<QString, Refresher> m_fieldRefreshers;  ///< per field key
};

}  // namespace articula::studio

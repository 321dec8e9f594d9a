// The property inspector (inspector.hpp): construction, updates and the
// fields that forms of several kinds share.
#include "inspector.hpp"

#include "document.hpp"
#include "edit_operations.hpp"
#include "inspector_parts.hpp"
#include "simulation.hpp"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QVBoxLayout>

#include <vector>

namespace articula::studio {

using namespace form;
using namespace inspector_parts;

// ===========================================================================
// Construction and updates

Inspector::Inspector(Document* document, Simulation* simulation, QWidget* parent)
    : QWidget(parent), m_document(document), m_simulation(simulation), m_form(document) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_scroll = new QScrollArea(this);
  m_scroll->setObjectName(QStringLiteral("inspector_scroll"));
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  layout->addWidget(m_scroll);

  connect(m_document, &Document::selectionChanged, this, &Inspector::onSelectionChanged);
  connect(m_document, &Document::designChanged, this, &Inspector::onDesignChanged);
  connect(m_document, &Document::designReset, this, &Inspector::onDesignChanged);
  connect(m_document, &Document::positionsChanged, this, &Inspector::onPositionsChanged);
  if (m_simulation != nullptr) {
    m_simulationActive = m_simulation->isActive();
    connect(m_simulation, &Simulation::statusChanged, this, [this](const SimulationStatus&) {
      const bool active = m_simulation->isActive();
      if (active == m_simulationActive) return;
      m_simulationActive = active;
      // Queued: the caller locks or unlocks the document right after
      // starting or stopping the simulation, and the form follows both.
      QMetaObject::invokeMethod(this, &Inspector::reload, Qt::QueuedConnection);
    });
  }
  rebuild();
}

Inspector::~Inspector() = default;

void Inspector::showSimulatedValues() {
  if (m_simulationActive) m_form.refreshValues();
}

void Inspector::reload() {
  if (m_simulation != nullptr) m_simulationActive = m_simulation->isActive();
  rebuild();
}

void Inspector::onSelectionChanged() {
  if (m_document->current() != m_form.object() || formSignature() != m_signature) {
    rebuild();
  } else {
    m_form.refreshValues();
  }
}

void Inspector::onDesignChanged() {
  const bool readOnly = m_document->isLocked() || m_simulationActive;
  if (m_document->current() != m_form.object() || readOnly != m_form.isReadOnly() || formSignature() != m_signature) {
    rebuild();
  } else {
    // Messages belong to the design they were given for.
    m_form.clearErrors();
    m_form.refreshValues();
  }
}

void Inspector::onPositionsChanged() {
  m_form.refreshValues();
}

std::string Inspector::formSignature() const {
  const ObjectRef ref = m_document->current();
  const World& w = m_document->world();
  std::string s = std::to_string(static_cast<int>(ref.kind)) + "|" + ref.name + "|";
  try {
    if (!exists(w, ref)) return s + "missing";
    switch (ref.kind) {
      case ObjectKind::Link:
      case ObjectKind::Joint: {
        const Joint j =
            ref.kind == ObjectKind::Link ? need(findLink(w, ref), ref).getParentJoint() : need(findJoint(w, ref), ref);
        s += j.name() + "|" + std::string(toString(j.type()));
        break;
      }
      case ObjectKind::Shape: {
        const Shape shape = need(findShape(w, ref), ref);
        s += std::string(toString(shape.getGeometry().type)) + (shape.isCollision() ? "|c" : "|v");
        break;
      }
      case ObjectKind::LoopClosure: {
        const LoopClosure c = need(findLoopClosure(w, ref), ref);
        s += std::string(toString(c.family())) + "|" +
             std::to_string(static_cast<int>(c.getRuntimePolicy().stabilization));
        break;
      }
      case ObjectKind::Frame:
        s += std::to_string(static_cast<int>(need(findFrame(w, ref), ref).kind()));
        break;
      case ObjectKind::Actuator:  // the type decides the fields
        s += toString(need(findActuator(w, ref), ref).getSpec().type);
        break;
      case ObjectKind::Schedule:  // the kind decides the fields
        s += std::to_string(static_cast<int>(findSchedule(w, ref).value_or(ScheduleSpec{}).kind));
        break;
      default:
        break;
    }
  } catch (const std::exception&) {
    s += "error";
  }
  return s;
}

void Inspector::rebuild() {
  m_note = nullptr;
  if (m_page != nullptr) {
    // The old form may be running one of its own signal handlers: delete it
    // later. Hiding it moves the focus away, and an editor that loses the
    // focus reports its value again; the guard makes its handler ignore that.
    const PropertyForm::Updating updating(m_form);
    QWidget* old = m_scroll->takeWidget();
    if (old != nullptr) {
      old->hide();
      old->deleteLater();
    }
  }
  m_page = new QWidget;
  m_page->setObjectName(QStringLiteral("inspector_page"));
  auto* layout = new QFormLayout(m_page);
  layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  const bool readOnly = m_document->isLocked() || m_simulationActive;
  const ObjectRef current = m_document->current();
  m_form.begin(layout, current, readOnly);
  m_signature = formSignature();

  const World& w = m_document->world();
  try {
    if (!exists(w, current)) {
      m_form.begin(layout, ObjectRef{}, readOnly);  // a form for no object
      auto* label = new QLabel(tr("Nothing selected."));
      label->setObjectName(QStringLiteral("inspector_empty"));
      layout->addRow(label);
    } else {
      switch (current.kind) {
        case ObjectKind::World:
          buildWorld();
          break;
        case ObjectKind::RigidBody:
          buildRigidBody();
          break;
        case ObjectKind::Multibody:
          buildMultibody();
          break;
        case ObjectKind::Link:
          buildLink();
          break;
        case ObjectKind::Joint:
          buildJoint();
          break;
        case ObjectKind::Shape:
          buildShape();
          break;
        case ObjectKind::LoopClosure:
          buildLoopClosure();
          break;
        case ObjectKind::Coupler:
          buildCoupler();
          break;
        case ObjectKind::Actuator:
          buildActuator();
          break;
        case ObjectKind::Schedule:
          buildSchedule();
          break;
        case ObjectKind::Keyframe:
          buildKeyframe();
          break;
        case ObjectKind::Frame:
          buildFrame();
          break;
        default:
          break;
      }
    }
  } catch (const std::exception& e) {
    auto* label = new QLabel(tr("Cannot show this object: %1").arg(QString::fromUtf8(e.what())));
    label->setWordWrap(true);
    layout->addRow(label);
  }
  m_scroll->setWidget(m_page);
  m_form.refreshValues();
}

// ===========================================================================
// Shared parts

void Inspector::addNameField() {
  auto* edit = new QLineEdit;
  edit->setObjectName(QStringLiteral("field_name"));
  edit->setEnabled(!m_form.isReadOnly());
  const ObjectRef ref = m_form.object();
  const auto leaf = [ref] {
    return ref.kind == ObjectKind::Link || ref.kind == ObjectKind::Joint ? splitPath(ref.name).second : ref.name;
  };
  m_form.registerRefresher(QStringLiteral("name"), [edit, leaf] { edit->setText(qs(leaf())); });
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, ref, leaf] {
    if (m_form.isUpdating()) return;
    const std::string name = edit->text().trimmed().toStdString();
    if (name == leaf()) return;
    if (name.empty()) {
      m_form.showError(QStringLiteral("name"), tr("A name must not be empty."));
      m_form.restoreField(QStringLiteral("name"));
      return;
    }
    ObjectRef renamed;
    const bool ok = m_form.commit(
        QStringLiteral("name"), tr("Rename %1 to %2").arg(qs(ref.name), qs(name)),
        [&renamed, ref, name](World& w) { renamed = ops::rename(w, ref, name); }, false);
    if (ok) m_document->setSelection({renamed});
  });
  m_form.addRow(tr("Name"), {edit}, {QStringLiteral("name")});
}

void Inspector::addPoseFields(const QString& prefix, const std::function<Isometry3d(const World&)>& read,
                              const std::function<void(World&, const Isometry3d&)>& write, bool editable) {
  std::vector<QWidget*> position;
  QStringList positionKeys;
  static const char* axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    const QString key = prefix + QStringLiteral("pos_") + QLatin1String(axes[i]);
    positionKeys << key;
    std::function<void(World&, double)> setter;
    if (editable && write) {
      setter = [read, write, i](World& w, double v) {
        Isometry3d X = read(w);
        X.translation()[i] = v;
        write(w, X);
      };
    }
    position.push_back(m_form.makeNumber(
        key, [read, i](const World& w) { return read(w).translation()[i]; }, finiteMessage, setter, 0.01, editable));
  }
  m_form.addRow(tr("Position (m)"), position, positionKeys);

  std::vector<QWidget*> rotation;
  QStringList rotationKeys;
  static const char* angles[] = {"roll", "pitch", "yaw"};
  for (int i = 0; i < 3; ++i) {
    const QString key = prefix + QLatin1String(angles[i]);
    rotationKeys << key;
    std::function<void(World&, double)> setter;
    if (editable && write) {
      setter = [read, write, i](World& w, double degrees) {
        Isometry3d X = read(w);
        Vector3d rpy = rollPitchYaw(X.linear());
        rpy[i] = degrees / kDegPerRad;
        X.linear() = rotationFromRollPitchYaw(rpy);
        write(w, X);
      };
    }
    rotation.push_back(m_form.makeNumber(
        key, [read, i](const World& w) { return rollPitchYaw(read(w).linear())[i] * kDegPerRad; }, finiteMessage,
        setter, 1.0, editable));
  }
  m_form.addRow(tr("Roll, pitch, yaw (deg)"), rotation, rotationKeys);
}

}  // namespace articula::studio

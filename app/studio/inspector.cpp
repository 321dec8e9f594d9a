// The property inspector (inspector.hpp).
#include "inspector.hpp"

#include "controls_panel.hpp"

#include "document.hpp"
#include "edit_operations.hpp"
#include "simulation.hpp"

#include <articula/error.hpp>
#include <articula/joint_types.hpp>

#include <QCheckBox>
#include <QColor>
#include <QColorDialog>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <string_view>

namespace articula::studio {

namespace {

constexpr double kDegPerRad = 180.0 / std::numbers::pi;
constexpr int kSliderSteps = 1000;

QLocale numberLocale() {
  QLocale c = QLocale::c();
  c.setNumberOptions(QLocale::OmitGroupSeparator | QLocale::RejectGroupSeparator);
  return c;
}

// Numbers are shown with 15 significant digits, the most that every
// decimal text keeps through a double and back.
constexpr int kShownDigits = 15;

QString formatNumber(double value) {
  return numberLocale().toString(value, 'g', kShownDigits);
}

// The value a field shows for `value`: reading the shown text gives it
// back exactly, so an editor that loses the focus without a change does not
// report a (rounded) new value.
double shownValue(double value) {
  return std::isfinite(value) ? numberLocale().toDouble(formatNumber(value)) : value;
}

QString qs(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

// Numbers are displayed rounded to 6 significant digits while they are not
// being edited; an editor shows all 15.
constexpr int kDisplayDigits = 6;

QString formatRounded(double value) {
  return numberLocale().toString(value, 'g', kDisplayDigits);
}

/// A spin box for any double: shows the value rounded to 6 significant
/// digits, all 15 while it has the focus (editing starts from the full
/// value), accepts exponents, and reports a value only when editing ends
/// or a step is taken. The rounded text stands for the exact value: it is
/// never read back as a new one.
class NumberBox : public QDoubleSpinBox {
 public:
  explicit NumberBox(QWidget* parent = nullptr) : QDoubleSpinBox(parent) {
    setLocale(numberLocale());
    setDecimals(17);
    setRange(-1e15, 1e15);
    setKeyboardTracking(false);
    setAccelerated(true);
    setMinimumWidth(70);
  }

  QString textFromValue(double value) const override { return hasFocus() ? formatNumber(value) : formatRounded(value); }
  double valueFromText(const QString& text) const override {
    const QString t = text.trimmed();
    if (!lineEdit()->isModified() && t == formatRounded(value())) return value();
    return numberLocale().toDouble(t);
  }
  QValidator::State validate(QString& input, int& /*pos*/) const override {
    const QString t = input.trimmed();
    bool ok = false;
    const double v = numberLocale().toDouble(t, &ok);
    if (ok) return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    static const QRegularExpression partial(QStringLiteral("^[+-]?[0-9]*\\.?[0-9]*([eE][+-]?[0-9]*)?$"));
    return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
  }
  void fixup(QString& /*input*/) const override {}

 protected:
  void focusInEvent(QFocusEvent* event) override {
    lineEdit()->setText(formatNumber(value()));
    lineEdit()->setModified(false);
    QDoubleSpinBox::focusInEvent(event);
  }
};

template <typename T>
T need(const std::optional<T>& value, const ObjectRef& ref) {
  if (!value) throw InvalidHandle(std::string(kindName(ref.kind)) + " '" + ref.name + "' no longer exists");
  return *value;
}

// ---- rotations -----------------------------------------------------------------

// R = Rz(yaw)·Ry(pitch)·Rx(roll); returns (roll, pitch, yaw) in radians.
Vector3d rollPitchYaw(const Matrix3d& R) {
  const double s = std::clamp(-R(2, 0), -1.0, 1.0);
  const double pitch = std::asin(s);
  if (std::abs(s) > 1.0 - 1e-12) {
    // Gimbal lock: only yaw − roll (or yaw + roll) is defined; put it all in yaw.
    return Vector3d(0.0, pitch, std::atan2(-R(0, 1), R(1, 1)));
  }
  return Vector3d(std::atan2(R(2, 1), R(2, 2)), pitch, std::atan2(R(1, 0), R(0, 0)));
}

Matrix3d rotationFromRollPitchYaw(const Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Vector3d::UnitX()))
      .toRotationMatrix();
}

// ---- joints --------------------------------------------------------------------

// Whether position coordinate `i` of a joint type is an angle.
bool isAngleCoordinate(JointType type, int i) {
  return jointTypeInfo(type).isAngle(i);
}

// Whether the joint's position coordinates are a vector (not a quaternion).
bool hasVectorCoordinates(JointType type) {
  return jointTypeInfo(type).vectorPositions();
}

// "θ (deg)", "x (m)", "qw": the table's name with the unit the field shows.
QString coordinateName(JointType type, int i) {
  const JointTypeInfo& info = jointTypeInfo(type);
  const std::string_view name = info.positionName[static_cast<std::size_t>(i)];
  const QString base = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
  if (info.isAngle(i)) return base + QStringLiteral(" (deg)");
  if (info.isLength(i)) return base + QStringLiteral(" (m)");
  return base;
}

bool hasAxis(JointType type) {
  return jointTypeInfo(type).numAxes >= 1;
}

bool hasAxis2(JointType type) {
  return jointTypeInfo(type).numAxes >= 2;
}

// ---- bodies --------------------------------------------------------------------

Inertia inertiaOf(const World& w, const ObjectRef& ref) {
  if (ref.kind == ObjectKind::RigidBody) return need(findRigidBody(w, ref), ref).getInertia();
  return need(findLink(w, ref), ref).getInertia();
}

void setInertiaOf(World& w, const ObjectRef& ref, const Inertia& inertia) {
  if (ref.kind == ObjectKind::RigidBody) {
    need(findRigidBody(w, ref), ref).setInertia(inertia);
  } else {
    need(findLink(w, ref), ref).setInertia(inertia);
  }
}

double largestClosureResidual(const World& w) {
  double worst = 0.0;
  for (const LoopClosure& c : w.getLoopClosures()) {
    if (c.isEnabled()) worst = std::max(worst, c.computeResidualNorm());
  }
  for (const JointCoupler& c : w.getJointCouplers()) {
    if (c.isEnabled()) worst = std::max(worst, std::abs(c.computeResidual().residual));
  }
  return worst;
}

bool hasProjectedConstraints(const World& w) {
  for (const LoopClosure& c : w.getLoopClosures()) {
    const auto p = c.getRuntimePolicy();
    if (p.enabled && p.kinematics == ClosureKinematicsPolicy::Project) return true;
  }
  for (const JointCoupler& c : w.getJointCouplers()) {
    const auto p = c.getRuntimePolicy();
    if (p.enabled && p.kinematics == ClosureKinematicsPolicy::Project) return true;
  }
  return false;
}

// ---- geometry ------------------------------------------------------------------

const std::vector<GeometryType>& primitiveTypes() {
  static const std::vector<GeometryType> types = {GeometryType::Box, GeometryType::Sphere, GeometryType::Capsule,
                                                  GeometryType::Cylinder, GeometryType::Ellipsoid};
  return types;
}

bool isPrimitive(GeometryType type) {
  const auto& types = primitiveTypes();
  return std::find(types.begin(), types.end(), type) != types.end();
}

Vector3d halfExtents(const Geometry& g) {
  switch (g.type) {
    case GeometryType::Box:
      return g.size / 2.0;
    case GeometryType::Sphere:
      return Vector3d::Constant(g.radius);
    case GeometryType::Cylinder:
      return Vector3d(g.radius, g.radius, g.length / 2.0);
    case GeometryType::Capsule:
      return Vector3d(g.radius, g.radius, g.length / 2.0 + g.radius);
    case GeometryType::Ellipsoid:
      return g.size;
    default:
      return Vector3d::Constant(0.1);
  }
}

// A geometry of `type` of about the same extent as `g`.
Geometry convertGeometry(const Geometry& g, GeometryType type) {
  const Vector3d h = halfExtents(g);
  const double radius = std::min(h.x(), h.y());
  switch (type) {
    case GeometryType::Box:
      return Geometry::box(2.0 * h);
    case GeometryType::Sphere:
      return Geometry::sphere(h.maxCoeff());
    case GeometryType::Cylinder:
      return Geometry::cylinder(radius, 2.0 * h.z());
    case GeometryType::Capsule:
      return Geometry::capsule(radius, std::max(2.0 * (h.z() - radius), radius));
    case GeometryType::Ellipsoid:
      return Geometry::ellipsoid(h);
    default:
      return g;
  }
}

QString positiveMessage(double v) {
  return std::isfinite(v) && v > 0.0 ? QString() : QObject::tr("Must be greater than zero.");
}

QString nonNegativeMessage(double v) {
  return std::isfinite(v) && v >= 0.0 ? QString() : QObject::tr("Must not be negative.");
}

QString finiteMessage(double v) {
  return std::isfinite(v) ? QString() : QObject::tr("Must be a finite number.");
}

QString unitIntervalMessage(double v) {
  return v >= 0.0 && v <= 1.0 ? QString() : QObject::tr("Must be between 0 and 1.");
}

// ---- drive sliders -------------------------------------------------------------

/// The slider position of `fraction` of its range (clamped to the range).
int sliderPosition(double fraction) {
  const double f = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.5;
  return static_cast<int>(std::lround(f * kSliderSteps));
}

}  // namespace

// ===========================================================================
// Construction and updates

Inspector::Inspector(Document* document, Simulation* simulation, QWidget* parent)
    : QWidget(parent), m_document(document), m_simulation(simulation) {
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
  if (m_simulationActive) refreshValues();
}

void Inspector::reload() {
  if (m_simulation != nullptr) m_simulationActive = m_simulation->isActive();
  rebuild();
}

void Inspector::onSelectionChanged() {
  if (m_document->current() != m_ref || formSignature() != m_signature) {
    rebuild();
  } else {
    refreshValues();
  }
}

void Inspector::onDesignChanged() {
  const bool readOnly = m_document->isLocked() || m_simulationActive;
  if (m_document->current() != m_ref || readOnly != m_readOnly || formSignature() != m_signature) {
    rebuild();
  } else {
    // Messages belong to the design they were given for.
    clearErrors();
    refreshValues();
  }
}

void Inspector::onPositionsChanged() {
  refreshValues();
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
  m_refreshers.clear();
  m_fieldRefreshers.clear();
  m_errors.clear();
  m_note = nullptr;
  if (m_page != nullptr) {
    // The old form may be running one of its own signal handlers: delete it
    // later. Hiding it moves the focus away, and an editor that loses the
    // focus reports its value again; the guard makes its handler ignore that.
    ++m_updating;
    QWidget* old = m_scroll->takeWidget();
    if (old != nullptr) {
      old->hide();
      old->deleteLater();
    }
    --m_updating;
  }
  m_page = new QWidget;
  m_page->setObjectName(QStringLiteral("inspector_page"));
  m_form = new QFormLayout(m_page);
  m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  m_readOnly = m_document->isLocked() || m_simulationActive;
  m_ref = m_document->current();
  m_signature = formSignature();

  const World& w = m_document->world();
  try {
    if (!exists(w, m_ref)) {
      m_ref = {};
      auto* label = new QLabel(tr("Nothing selected."));
      label->setObjectName(QStringLiteral("inspector_empty"));
      m_form->addRow(label);
    } else {
      switch (m_ref.kind) {
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
    m_form->addRow(label);
  }
  m_scroll->setWidget(m_page);
  refreshValues();
}

void Inspector::refreshValues() {
  ++m_updating;
  for (const Refresher& refresh : m_refreshers) {
    try {
      refresh();
    } catch (const std::exception&) {
      // The object went away; the next designChanged rebuilds the form.
    }
  }
  --m_updating;
}

// ===========================================================================
// Building blocks

QString Inspector::mergeKey(const QString& key) const {
  return QString::fromLatin1(kindName(m_ref.kind)) + QLatin1Char(':') + qs(m_ref.name) + QLatin1Char(':') + key;
}

QLabel* Inspector::makeErrorLabel(const QString& key) {
  auto* label = new QLabel;
  label->setObjectName(QStringLiteral("error_") + key);
  label->setStyleSheet(QStringLiteral("color: #d03030;"));
  label->setWordWrap(true);
  label->setVisible(false);
  m_errors[key] = label;
  return label;
}

void Inspector::showError(const QString& key, const QString& message) {
  const auto it = m_errors.find(key);
  if (it == m_errors.end()) return;
  it->second->setText(message);
  it->second->setVisible(true);
}

void Inspector::clearErrors() {
  for (auto& [key, label] : m_errors) {
    label->clear();
    label->setVisible(false);
  }
}

bool Inspector::commit(const QString& key, const QString& label, const std::function<void(World&)>& op, bool merge) {
  QString error;
  const bool ok = m_document->edit(label, op, &error, merge ? mergeKey(key) : QString());
  if (ok) {
    const auto it = m_errors.find(key);
    if (it != m_errors.end()) {
      it->second->clear();
      it->second->setVisible(false);
    }
    return true;
  }
  showError(key, error.isEmpty() ? tr("The change was refused.") : error);
  restoreField(key);
  return false;
}

void Inspector::restoreField(const QString& key) {
  const auto it = m_fieldRefreshers.find(key);
  if (it == m_fieldRefreshers.end()) return;
  ++m_updating;
  try {
    it->second();
  } catch (const std::exception&) {
  }
  --m_updating;
}

void Inspector::addHeading(const QString& text) {
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped()));
  label->setContentsMargins(0, 8, 0, 0);
  m_form->addRow(label);
}

void Inspector::addRow(const QString& label, const std::vector<QWidget*>& editors, const QStringList& keys) {
  auto* box = new QWidget;
  auto* column = new QVBoxLayout(box);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  for (QWidget* editor : editors) row->addWidget(editor, 1);
  column->addLayout(row);
  for (const QString& key : keys) column->addWidget(makeErrorLabel(key));
  m_form->addRow(label, box);
}

void Inspector::registerRefresher(const QString& key, const Refresher& refresher) {
  m_refreshers.push_back(refresher);
  if (!key.isEmpty()) m_fieldRefreshers[key] = refresher;
}

QWidget* Inspector::makeNumber(const QString& key, const std::function<double(const World&)>& read,
                               const std::function<QString(double)>& validate,
                               const std::function<void(World&, double)>& write, double step, bool editable) {
  auto* box = new NumberBox;
  box->setObjectName(QStringLiteral("field_") + key);
  box->setSingleStep(step);
  box->setEnabled(editable && !m_readOnly && write != nullptr);
  registerRefresher(key, [this, box, read] { box->setValue(shownValue(read(m_document->world()))); });
  if (write) {
    const ObjectRef ref = m_ref;
    connect(box, &QDoubleSpinBox::valueChanged, this, [this, key, validate, write, ref](double value) {
      if (m_updating > 0) return;
      if (validate) {
        const QString message = validate(value);
        if (!message.isEmpty()) {
          showError(key, message);
          restoreField(key);
          return;
        }
      }
      QString field = key;
      field.replace(QLatin1Char('_'), QLatin1Char(' '));
      commit(key, tr("Set %1 of %2").arg(field, qs(ref.name)), [write, value](World& w) { write(w, value); });
    });
  }
  return box;
}

QWidget* Inspector::addNumber(const QString& label, const QString& key, const std::function<double(const World&)>& read,
                              const std::function<QString(double)>& validate,
                              const std::function<void(World&, double)>& write, double step, bool editable) {
  QWidget* box = makeNumber(key, read, validate, write, step, editable);
  addRow(label, {box}, {key});
  return box;
}

QWidget* Inspector::makeOptionalNumber(const QString& key,
                                       const std::function<std::optional<double>(const World&)>& read,
                                       const std::function<QString(std::optional<double>)>& validate,
                                       const std::function<void(World&, std::optional<double>)>& write) {
  auto* edit = new QLineEdit;
  edit->setObjectName(QStringLiteral("field_") + key);
  edit->setPlaceholderText(tr("none"));
  edit->setEnabled(!m_readOnly);
  edit->setMinimumWidth(60);
  registerRefresher(key, [this, edit, read] {
    const std::optional<double> v = read(m_document->world());
    edit->setText(v ? formatNumber(*v) : QString());
  });
  const ObjectRef ref = m_ref;
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, key, read, validate, write, ref] {
    if (m_updating > 0) return;
    const QString text = edit->text().trimmed();
    std::optional<double> value;
    if (!text.isEmpty()) {
      bool ok = false;
      const double v = numberLocale().toDouble(text, &ok);
      if (!ok || std::isnan(v)) {
        showError(key, tr("'%1' is not a number (leave empty for none).").arg(text));
        restoreField(key);
        return;
      }
      value = v;
    }
    try {
      const std::optional<double> current = read(m_document->world());
      if (current == value || (current && value && formatNumber(*current) == formatNumber(*value))) return;
    } catch (const std::exception&) {
      return;
    }
    if (validate) {
      const QString message = validate(value);
      if (!message.isEmpty()) {
        showError(key, message);
        restoreField(key);
        return;
      }
    }
    QString field = key;
    field.replace(QLatin1Char('_'), QLatin1Char(' '));
    commit(key, tr("Set %1 of %2").arg(field, qs(ref.name)), [write, value](World& w) { write(w, value); });
  });
  return edit;
}

QWidget* Inspector::addChoice(const QString& label, const QString& key, const QStringList& items,
                              const std::function<int(const World&)>& read,
                              const std::function<void(World&, int)>& write) {
  auto* combo = new QComboBox;
  combo->setObjectName(QStringLiteral("field_") + key);
  combo->addItems(items);
  combo->setEnabled(!m_readOnly && write != nullptr);
  registerRefresher(key, [this, combo, read] { combo->setCurrentIndex(read(m_document->world())); });
  if (write) {
    const ObjectRef ref = m_ref;
    connect(combo, &QComboBox::currentIndexChanged, this, [this, key, label, write, ref](int index) {
      if (m_updating > 0 || index < 0) return;
      commit(
          key, tr("Set %1 of %2").arg(label.toLower(), qs(ref.name)), [write, index](World& w) { write(w, index); },
          false);
    });
  }
  addRow(label, {combo}, {key});
  return combo;
}

QWidget* Inspector::addCheck(const QString& label, const QString& key, const std::function<bool(const World&)>& read,
                             const std::function<void(World&, bool)>& write) {
  auto* check = new QCheckBox;
  check->setObjectName(QStringLiteral("field_") + key);
  check->setEnabled(!m_readOnly);
  registerRefresher(key, [this, check, read] { check->setChecked(read(m_document->world())); });
  const ObjectRef ref = m_ref;
  connect(check, &QCheckBox::toggled, this, [this, key, label, write, ref](bool on) {
    if (m_updating > 0) return;
    commit(
        key, tr("Set %1 of %2").arg(label.toLower(), qs(ref.name)), [write, on](World& w) { write(w, on); }, false);
  });
  addRow(label, {check}, {key});
  return check;
}

QLabel* Inspector::addValueLabel(const QString& label, const QString& key,
                                 const std::function<QString(const World&)>& read) {
  auto* value = new QLabel;
  value->setObjectName(QStringLiteral("value_") + key);
  value->setTextInteractionFlags(Qt::TextSelectableByMouse);
  value->setWordWrap(true);
  registerRefresher(QString(), [this, value, read] { value->setText(read(m_document->world())); });
  m_form->addRow(label, value);
  return value;
}

void Inspector::addNameField() {
  auto* edit = new QLineEdit;
  edit->setObjectName(QStringLiteral("field_name"));
  edit->setEnabled(!m_readOnly);
  const ObjectRef ref = m_ref;
  const auto leaf = [ref] {
    return ref.kind == ObjectKind::Link || ref.kind == ObjectKind::Joint ? splitPath(ref.name).second : ref.name;
  };
  registerRefresher(QStringLiteral("name"), [edit, leaf] { edit->setText(qs(leaf())); });
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, ref, leaf] {
    if (m_updating > 0) return;
    const std::string name = edit->text().trimmed().toStdString();
    if (name == leaf()) return;
    if (name.empty()) {
      showError(QStringLiteral("name"), tr("A name must not be empty."));
      restoreField(QStringLiteral("name"));
      return;
    }
    ObjectRef renamed;
    const bool ok = commit(
        QStringLiteral("name"), tr("Rename %1 to %2").arg(qs(ref.name), qs(name)),
        [&renamed, ref, name](World& w) { renamed = ops::rename(w, ref, name); }, false);
    if (ok) m_document->setSelection({renamed});
  });
  addRow(tr("Name"), {edit}, {QStringLiteral("name")});
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
    position.push_back(makeNumber(
        key, [read, i](const World& w) { return read(w).translation()[i]; }, finiteMessage, setter, 0.01, editable));
  }
  addRow(tr("Position (m)"), position, positionKeys);

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
    rotation.push_back(makeNumber(
        key, [read, i](const World& w) { return rollPitchYaw(read(w).linear())[i] * kDegPerRad; }, finiteMessage,
        setter, 1.0, editable));
  }
  addRow(tr("Roll, pitch, yaw (deg)"), rotation, rotationKeys);
}

void Inspector::addInertiaFields(const ObjectRef& body) {
  addHeading(tr("Inertia"));
  const bool rigid = body.kind == ObjectKind::RigidBody;
  addNumber(
      tr("Mass (kg)"), QStringLiteral("mass"), [body](const World& w) { return inertiaOf(w, body).mass; },
      [rigid](double v) {
        if (rigid) return std::isfinite(v) && v > 0.0 ? QString() : tr("The mass of a rigid body must be positive.");
        return std::isfinite(v) && v >= 0.0 ? QString() : tr("The mass must not be negative.");
      },
      [body](World& w, double v) {
        Inertia in = inertiaOf(w, body);
        in.mass = v;
        setInertiaOf(w, body, in);
      },
      0.1);

  std::vector<QWidget*> com;
  QStringList comKeys;
  static const char* axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    const QString key = QStringLiteral("com_") + QLatin1String(axes[i]);
    comKeys << key;
    com.push_back(makeNumber(
        key, [body, i](const World& w) { return inertiaOf(w, body).com[i]; }, finiteMessage,
        [body, i](World& w, double v) {
          Inertia in = inertiaOf(w, body);
          in.com[i] = v;
          setInertiaOf(w, body, in);
        },
        0.01, true));
  }
  addRow(tr("Centre of mass (m)"), com, comKeys);

  struct Entry {
    const char* key;
    int row, col;
  };
  static const Entry diagonal[] = {{"inertia_xx", 0, 0}, {"inertia_yy", 1, 1}, {"inertia_zz", 2, 2}};
  static const Entry offDiagonal[] = {{"inertia_xy", 0, 1}, {"inertia_xz", 0, 2}, {"inertia_yz", 1, 2}};
  for (const auto* entries : {diagonal, offDiagonal}) {
    std::vector<QWidget*> editors;
    QStringList keys;
    const bool isDiagonal = entries == diagonal;
    for (int k = 0; k < 3; ++k) {
      const Entry e = entries[k];
      const QString key = QLatin1String(e.key);
      keys << key;
      editors.push_back(makeNumber(
          key, [body, e](const World& w) { return inertiaOf(w, body).rotational(e.row, e.col); },
          isDiagonal ? std::function<QString(double)>(nonNegativeMessage)
                     : std::function<QString(double)>(finiteMessage),
          [body, e](World& w, double v) {
            Inertia in = inertiaOf(w, body);
            in.rotational(e.row, e.col) = v;
            in.rotational(e.col, e.row) = v;
            setInertiaOf(w, body, in);
          },
          1e-4, true));
    }
    addRow(isDiagonal ? tr("Ixx, Iyy, Izz (kg·m²)") : tr("Ixy, Ixz, Iyz (kg·m²)"), editors, keys);
  }

  // Compute from shapes: a density (not part of the design) and a button.
  auto* density = new NumberBox;
  density->setObjectName(QStringLiteral("field_density"));
  density->setSingleStep(100.0);
  density->setValue(m_density);
  density->setEnabled(!m_readOnly);
  connect(density, &QDoubleSpinBox::valueChanged, this, [this, density](double v) {
    if (m_updating > 0) return;
    if (!(std::isfinite(v) && v > 0.0)) {
      showError(QStringLiteral("density"), tr("The density must be positive."));
      ++m_updating;
      density->setValue(m_density);
      --m_updating;
      return;
    }
    m_density = v;
    const auto it = m_errors.find(QStringLiteral("density"));
    if (it != m_errors.end()) it->second->setVisible(false);
  });
  auto* button = new QPushButton(tr("Compute from shapes"));
  button->setObjectName(QStringLiteral("button_compute_inertia"));
  button->setEnabled(!m_readOnly);
  button->setToolTip(tr("Mass, centre of mass and rotational inertia of the body's shapes filled with this density"));
  connect(button, &QPushButton::clicked, this, [this, body] { computeInertia(body); });
  addRow(tr("Density (kg/m³)"), {density, button}, {QStringLiteral("density")});
  m_note = new QLabel;
  m_note->setObjectName(QStringLiteral("note_density"));
  m_note->setWordWrap(true);
  m_note->setVisible(false);
  m_form->addRow(m_note);
}

void Inspector::computeInertia(const ObjectRef& body) {
  std::vector<std::string> skipped;
  const double density = m_density;
  const bool ok = commit(
      QStringLiteral("density"), tr("Compute inertia of %1").arg(qs(body.name)),
      [&skipped, body, density](World& w) {
        skipped.clear();
        setInertiaOf(w, body, ops::inertiaFromShapes(w, body, density, &skipped));
      },
      false);
  if (ok && m_note != nullptr) {
    QStringList names;
    for (const std::string& s : skipped) names << qs(s);
    m_note->setText(names.isEmpty() ? QString() : tr("Mesh shapes left out: %1").arg(names.join(QStringLiteral(", "))));
    m_note->setVisible(!names.isEmpty());
  }
}

void Inspector::addCoordinateFields(const ObjectRef& jointRef) {
  const World& world = m_document->world();
  const Joint joint = need(findJoint(world, jointRef), jointRef);
  const JointType type = joint.type();
  const int nq = joint.numPositions();
  if (nq == 0) return;
  addHeading(m_simulationActive ? tr("Joint coordinates (simulated)")
             : m_readOnly       ? tr("Joint coordinates (design)")
                                : tr("Joint coordinates"));
  for (int i = 0; i < nq; ++i) {
    const QString key = QStringLiteral("q%1").arg(i);
    const bool angle = isAngleCoordinate(type, i);
    const double scale = angle ? kDegPerRad : 1.0;
    auto* box = new NumberBox;
    box->setObjectName(QStringLiteral("field_") + key);
    box->setSingleStep(angle ? 1.0 : 0.01);
    box->setEnabled(!m_readOnly);
    registerRefresher(key, [this, box, jointRef, i, scale] {
      // While simulating: the position in the snapshot the viewport drew.
      if (m_simulationActive && m_simulation != nullptr) {
        if (const std::optional<double> v = m_simulation->shownJointPosition(jointRef, i)) {
          box->setValue(shownValue(*v * scale));
          return;
        }
      }
      box->setValue(shownValue(need(findJoint(m_document->world(), jointRef), jointRef).getPositions()[i] * scale));
    });
    connect(box, &QDoubleSpinBox::valueChanged, this, [this, key, jointRef, i, scale](double value) {
      if (m_updating > 0) return;
      if (!std::isfinite(value)) {
        showError(key, tr("Must be a finite number."));
        restoreField(key);
        return;
      }
      setJointCoordinate(jointRef, i, value / scale);
    });
    addRow(coordinateName(type, i), {box}, {key});
  }
  if (world.numLoopClosures() > 0 || world.numJointCouplers() > 0) {
    addValueLabel(tr("Largest closure residual"), QStringLiteral("closure_residual"),
                  [](const World& w) { return formatRounded(largestClosureResidual(w)); });
  }
}

void Inspector::setJointCoordinate(const ObjectRef& jointRef, int index, double value) {
  const QString key = QStringLiteral("q%1").arg(index);
  World& w = m_document->world();
  VectorXd target;
  QString failure;
  try {
    Joint joint = need(findJoint(w, jointRef), jointRef);
    VectorXd qj = joint.getPositions();
    qj[index] = value;
    // Quaternion coordinates stay unit quaternions.
    const int quaternionStart = jointTypeInfo(joint.type()).quaternionStart;
    if (quaternionStart >= 0) {
      const double n = qj.segment<4>(quaternionStart).norm();
      if (!(n > 1e-12)) throw InvalidArgument("the orientation quaternion must not be zero");
      qj.segment<4>(quaternionStart) /= n;
    }
    // Work out where a closed chain goes with this coordinate held, then put
    // the world back: the change itself is one undoable positions step.
    const VectorXd q0 = w.getPositions();
    const VectorXd v0 = w.getVelocities();
    try {
      joint.setPositions(qj);
      if (hasProjectedConstraints(w)) {
        ClosureProjectionOptions options;
        options.lockedJoints = {joint};
        options.projectVelocities = false;
        const ClosureProjectionResult result = w.projectClosures(options);
        if (!result.success) {
          failure = tr("The closed chain cannot be assembled with this value (residual %1): %2")
                        .arg(formatRounded(result.finalResidual), qs(result.message));
        }
      }
      target = w.getPositions();
    } catch (...) {
      w.setPositions(q0);
      w.setVelocities(v0);
      throw;
    }
    w.setPositions(q0);
    w.setVelocities(v0);
  } catch (const std::exception& e) {
    failure = QString::fromUtf8(e.what());
  }
  if (!failure.isEmpty()) {
    showError(key, failure);
    restoreField(key);
    return;
  }
  if (m_document->isLocked()) {
    showError(key, tr("The design cannot be changed while the simulation runs."));
    restoreField(key);
    return;
  }
  m_document->setPositions(tr("Move joint %1").arg(qs(jointRef.name)), target, {jointRef},
                           QStringLiteral("positions:") + qs(jointRef.name) + QLatin1Char(':') + key);
  const auto it = m_errors.find(key);
  if (it != m_errors.end()) it->second->setVisible(false);
  refreshValues();
}

// ===========================================================================
// Forms

void Inspector::buildWorld() {
  addHeading(tr("World"));
  std::vector<QWidget*> gravity;
  QStringList keys;
  static const char* axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    const QString key = QStringLiteral("gravity_") + QLatin1String(axes[i]);
    keys << key;
    gravity.push_back(makeNumber(
        key, [i](const World& w) { return w.getOptions().gravity[i]; }, finiteMessage,
        [i](World& w, double v) {
          WorldOptions o = w.getOptions();
          o.gravity[i] = v;
          w.setOptions(o);
        },
        0.1, true));
  }
  addRow(tr("Gravity (m/s²)"), gravity, keys);
  addNumber(
      tr("Time step (s)"), QStringLiteral("time_step"), [](const World& w) { return w.getOptions().timeStep; },
      positiveMessage,
      [](World& w, double v) {
        WorldOptions o = w.getOptions();
        o.timeStep = v;
        w.setOptions(o);
      },
      1e-4);
  addChoice(
      tr("Integrator"), QStringLiteral("integrator"), {tr("Semi-implicit Euler"), tr("Runge–Kutta 4")},
      [](const World& w) { return w.getOptions().integrator == Integrator::RungeKutta4 ? 1 : 0; },
      [](World& w, int index) {
        WorldOptions o = w.getOptions();
        o.integrator = index == 1 ? Integrator::RungeKutta4 : Integrator::SemiImplicitEuler;
        w.setOptions(o);
      });
  addHeading(tr("Constraint solver"));
  QStringList methodNames;
  for (const std::string& m : constraintSolverMethods()) methodNames << QString::fromStdString(m);
  addChoice(
      tr("Method"), QStringLiteral("solver_method"), methodNames,
      [](const World& w) {
        const auto& all = constraintSolverMethods();
        const auto it = std::find(all.begin(), all.end(), w.getOptions().solver.method);
        return it == all.end() ? 0 : static_cast<int>(it - all.begin());
      },
      [](World& w, int index) {
        WorldOptions o = w.getOptions();
        o.solver.method = constraintSolverMethods().at(static_cast<std::size_t>(index));
        w.setOptions(o);
      });
  addNumber(
      tr("Iterations"), QStringLiteral("solver_iterations"),
      [](const World& w) { return static_cast<double>(w.getOptions().solver.maxIterations); },
      [](double v) {
        return v >= 1.0 && v <= 1e6 && v == std::floor(v) ? QString() : tr("Must be a whole number of at least 1.");
      },
      [](World& w, double v) {
        WorldOptions o = w.getOptions();
        o.solver.maxIterations = static_cast<int>(v);
        w.setOptions(o);
      },
      1.0);
}

void Inspector::buildRigidBody() {
  const ObjectRef ref = m_ref;
  addHeading(tr("Rigid body"));
  addNameField();
  addInertiaFields(ref);
  addHeading(tr("Pose"));
  addPoseFields(
      QString(), [ref](const World& w) { return need(findRigidBody(w, ref), ref).getPose(); },
      [ref](World& w, const Isometry3d& X) { need(findRigidBody(w, ref), ref).setPose(X); });
}

void Inspector::buildMultibody() {
  const ObjectRef ref = m_ref;
  addHeading(tr("Multibody"));
  addNameField();
  addCheck(
      tr("Self-collision"), QStringLiteral("self_collision"),
      [ref](const World& w) { return need(findMultibody(w, ref), ref).getSelfCollision(); },
      [ref](World& w, bool on) { need(findMultibody(w, ref), ref).setSelfCollision(on); });
  addValueLabel(tr("Links"), QStringLiteral("links"),
                [ref](const World& w) { return QString::number(need(findMultibody(w, ref), ref).numLinks()); });
  addValueLabel(tr("Degrees of freedom"), QStringLiteral("dofs"),
                [ref](const World& w) { return QString::number(need(findMultibody(w, ref), ref).numDofs()); });
}

void Inspector::buildLink() {
  const ObjectRef ref = m_ref;
  const World& world = m_document->world();
  const Link link = need(findLink(world, ref), ref);
  const ObjectRef jointRef = refOf(link.getParentJoint());
  addHeading(tr("Link"));
  addNameField();
  addValueLabel(tr("Joint"), QStringLiteral("joint"), [jointRef](const World& w) {
    const Joint j = need(findJoint(w, jointRef), jointRef);
    return QStringLiteral("%1 (%2)").arg(qs(j.name()), qs(toString(j.type())));
  });
  addInertiaFields(ref);
  addCoordinateFields(jointRef);
  // Held where it is while another link is dragged (an editing aid, not saved).
  auto* pin = new QCheckBox(tr("Pinned while dragging others"));
  pin->setObjectName(QStringLiteral("field_pinned"));
  pin->setChecked(m_document->isPinned(ref));
  connect(pin, &QCheckBox::toggled, this, [this, ref](bool on) { m_document->setPinned(ref, on); });
  m_form->addRow(pin);
  if (m_readOnly) buildSimulationControls(jointRef);
}

void Inspector::buildJoint() {
  const ObjectRef ref = m_ref;
  const World& world = m_document->world();
  const Joint joint = need(findJoint(world, ref), ref);
  const JointType type = joint.type();
  const int nv = joint.numDofs();
  addHeading(tr("Joint"));
  addNameField();

  QStringList typeNames;
  for (const JointTypeInfo& info : jointTypes()) typeNames << qs(info.name);
  addChoice(
      tr("Type"), QStringLiteral("type"), typeNames,
      [ref](const World& w) { return static_cast<int>(need(findJoint(w, ref), ref).type()); },
      [ref](World& w, int index) { ops::changeJointType(w, ref, static_cast<JointType>(index)); });

  // Changes one field of the joint's spec.
  const auto specWriter = [ref](const std::function<void(JointSpec&, double)>& change) {
    return [ref, change](World& w, double v) {
      Joint j = need(findJoint(w, ref), ref);
      JointSpec spec = j.getSpec();
      change(spec, v);
      j.setSpec(spec);
    };
  };
  static const char* axes[] = {"x", "y", "z"};
  for (int which = 0; which < 2; ++which) {
    if ((which == 0 && !hasAxis(type)) || (which == 1 && !hasAxis2(type))) continue;
    std::vector<QWidget*> editors;
    QStringList keys;
    for (int i = 0; i < 3; ++i) {
      const QString key = (which == 0 ? QStringLiteral("axis_") : QStringLiteral("axis2_")) + QLatin1String(axes[i]);
      keys << key;
      editors.push_back(makeNumber(
          key,
          [ref, which, i](const World& w) {
            const JointSpec s = need(findJoint(w, ref), ref).getSpec();
            return (which == 0 ? s.axis : s.axis2)[i];
          },
          [this, ref, which, i](double v) {
            if (!std::isfinite(v)) return tr("Must be a finite number.");
            JointSpec s = need(findJoint(m_document->world(), ref), ref).getSpec();
            Vector3d a = which == 0 ? s.axis : s.axis2;
            a[i] = v;
            return a.norm() > 1e-9 ? QString() : tr("An axis must not be zero.");
          },
          specWriter([which, i](JointSpec& s, double v) { (which == 0 ? s.axis : s.axis2)[i] = v; }), 0.1, true));
    }
    addRow(which == 0 ? tr("Axis") : tr("Second axis"), editors, keys);
  }
  if (type == JointType::Screw) {
    addNumber(
        tr("Pitch (m/rad)"), QStringLiteral("pitch"),
        [ref](const World& w) { return need(findJoint(w, ref), ref).getSpec().pitch; }, finiteMessage,
        specWriter([](JointSpec& s, double v) { s.pitch = v; }), 0.001);
  }

  // Per-DoF values; angles in degrees for rotational DoFs of vector joints.
  const bool vectorJoint = hasVectorCoordinates(type);
  struct PerDof {
    const char* key;
    QString label;
    VectorXd JointSpec::*field;
    double fallback;
    bool angular;  // shown in degrees for rotational DoFs
    bool vectorOnly;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<PerDof> rows = {
      {"lower", tr("Lower limit"), &JointSpec::positionLowerLimits, -inf, true, true},
      {"upper", tr("Upper limit"), &JointSpec::positionUpperLimits, inf, true, true},
      {"stiffness", tr("Spring stiffness"), &JointSpec::springStiffness, 0.0, false, true},
      {"rest", tr("Rest position"), &JointSpec::restPositions, 0.0, true, true},
      {"damping", tr("Damping"), &JointSpec::damping, 0.0, false, false},
  };
  if (nv > 0) addHeading(tr("Per degree of freedom"));
  for (const PerDof& row : rows) {
    if (nv == 0 || (row.vectorOnly && !vectorJoint)) continue;
    std::vector<QWidget*> editors;
    QStringList keys;
    for (int i = 0; i < nv; ++i) {
      const QString key = QStringLiteral("%1_%2").arg(QLatin1String(row.key)).arg(i);
      keys << key;
      const double scale = row.angular && isAngleCoordinate(type, i) ? kDegPerRad : 1.0;
      const auto field = row.field;
      const double fallback = row.fallback;
      const std::string which = row.key;
      editors.push_back(makeOptionalNumber(
          key,
          [ref, field, fallback, i, scale](const World& w) -> std::optional<double> {
            const JointSpec s = need(findJoint(w, ref), ref).getSpec();
            const VectorXd& values = s.*field;
            if (values.size() <= i || values[i] == fallback) return std::nullopt;
            return values[i] * scale;
          },
          [this, ref, which, i, scale](std::optional<double> v) -> QString {
            if (!v) return {};
            if ((which == "stiffness" || which == "damping") && !(*v >= 0.0 && std::isfinite(*v))) {
              return tr("Must not be negative.");
            }
            const JointSpec s = need(findJoint(m_document->world(), ref), ref).getSpec();
            if (which == "lower" && s.positionUpperLimits.size() > i && *v / scale > s.positionUpperLimits[i]) {
              return tr("The lower limit must not exceed the upper limit (%1).")
                  .arg(formatNumber(s.positionUpperLimits[i] * scale));
            }
            if (which == "upper" && s.positionLowerLimits.size() > i && *v / scale < s.positionLowerLimits[i]) {
              return tr("The upper limit must not be below the lower limit (%1).")
                  .arg(formatNumber(s.positionLowerLimits[i] * scale));
            }
            return {};
          },
          [ref, field, fallback, i, scale, nv](World& w, std::optional<double> v) {
            Joint j = need(findJoint(w, ref), ref);
            JointSpec s = j.getSpec();
            VectorXd& values = s.*field;
            if (values.size() != nv) values = VectorXd::Constant(nv, fallback);
            values[i] = v ? *v / scale : fallback;
            j.setSpec(s);
          }));
    }
    QString label = row.label;
    if (row.angular && vectorJoint) label += tr(" (deg / m)");
    addRow(label, editors, keys);
  }

  addHeading(tr("Parent offset"));
  addPoseFields(
      QStringLiteral("offset_"), [ref](const World& w) { return need(findJoint(w, ref), ref).getSpec().parentOffset; },
      [ref](World& w, const Isometry3d& X) {
        Joint j = need(findJoint(w, ref), ref);
        JointSpec s = j.getSpec();
        s.parentOffset = X;
        j.setSpec(s);
      });
  addCoordinateFields(ref);
  if (m_readOnly) buildSimulationControls(ref);
}

void Inspector::buildShape() {
  const ObjectRef ref = m_ref;
  const World& world = m_document->world();
  const Shape shape = need(findShape(world, ref), ref);
  const Geometry geometry = shape.getGeometry();
  addHeading(shape.isCollision() ? tr("Collision shape") : tr("Visual shape"));
  addNameField();
  addValueLabel(tr("Owner"), QStringLiteral("owner"), [ref](const World& w) {
    const Frame owner = need(findShape(w, ref), ref).getOwner();
    return owner.isWorld() ? QStringLiteral("world") : qs(owner.name());
  });

  addHeading(tr("Geometry"));
  const bool primitive = isPrimitive(geometry.type);
  QStringList typeNames;
  if (primitive) {
    for (GeometryType t : primitiveTypes()) typeNames << qs(toString(t));
  } else {
    typeNames << qs(toString(geometry.type));
  }
  QWidget* typeBox = addChoice(
      tr("Type"), QStringLiteral("geometry_type"), typeNames,
      [ref, primitive](const World& w) {
        if (!primitive) return 0;
        const auto& types = primitiveTypes();
        const GeometryType t = need(findShape(w, ref), ref).getGeometry().type;
        return static_cast<int>(std::find(types.begin(), types.end(), t) - types.begin());
      },
      [ref](World& w, int index) {
        const Geometry g = need(findShape(w, ref), ref).getGeometry();
        ops::setShapeGeometry(w, ref, convertGeometry(g, primitiveTypes().at(static_cast<std::size_t>(index))));
      });
  if (!primitive) typeBox->setEnabled(false);

  const auto geometryWriter = [ref](const std::function<void(Geometry&, double)>& change) {
    return [ref, change](World& w, double v) {
      Geometry g = need(findShape(w, ref), ref).getGeometry();
      change(g, v);
      ops::setShapeGeometry(w, ref, g);
    };
  };
  const auto readGeometry = [ref](const World& w) { return need(findShape(w, ref), ref).getGeometry(); };
  static const char* axes[] = {"x", "y", "z"};
  switch (geometry.type) {
    case GeometryType::Box:
    case GeometryType::Ellipsoid: {
      std::vector<QWidget*> editors;
      QStringList keys;
      for (int i = 0; i < 3; ++i) {
        const QString key = QStringLiteral("size_") + QLatin1String(axes[i]);
        keys << key;
        editors.push_back(makeNumber(
            key, [readGeometry, i](const World& w) { return readGeometry(w).size[i]; }, positiveMessage,
            geometryWriter([i](Geometry& g, double v) { g.size[i] = v; }), 0.01, true));
      }
      addRow(geometry.type == GeometryType::Box ? tr("Size (m)") : tr("Semi-axes (m)"), editors, keys);
      break;
    }
    case GeometryType::Sphere:
    case GeometryType::Capsule:
    case GeometryType::Cylinder:
      addNumber(
          tr("Radius (m)"), QStringLiteral("radius"), [readGeometry](const World& w) { return readGeometry(w).radius; },
          positiveMessage, geometryWriter([](Geometry& g, double v) { g.radius = v; }), 0.01);
      if (geometry.type != GeometryType::Sphere) {
        addNumber(
            tr("Length (m)"), QStringLiteral("length"),
            [readGeometry](const World& w) { return readGeometry(w).length; }, positiveMessage,
            geometryWriter([](Geometry& g, double v) { g.length = v; }), 0.01);
      }
      break;
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh:
      addValueLabel(tr("Mesh"), QStringLiteral("mesh"), [readGeometry](const World& w) {
        const Geometry g = readGeometry(w);
        const QString source = g.meshFile.empty() ? tr("built in code") : qs(g.meshFile);
        return tr("%1 vertices, %2 triangles (%3)")
            .arg(static_cast<qlonglong>(g.vertices.size()))
            .arg(static_cast<qlonglong>(g.triangles.size()))
            .arg(source);
      });
      break;
    case GeometryType::Plane:
      break;
  }

  addHeading(tr("Pose in owner"));
  addPoseFields(
      QString(), [ref](const World& w) { return need(findShape(w, ref), ref).getLocalPose(); },
      [ref](World& w, const Isometry3d& X) { need(findShape(w, ref), ref).setLocalPose(X); });

  if (shape.isCollision()) {
    addHeading(tr("Contact"));
    addNumber(
        tr("Friction"), QStringLiteral("friction"),
        [ref](const World& w) { return need(findShape(w, ref), ref).getMaterial().friction; }, nonNegativeMessage,
        [ref](World& w, double v) {
          Shape s = need(findShape(w, ref), ref);
          Material m = s.getMaterial();
          m.friction = v;
          s.setMaterial(m);
        },
        0.05);
    addNumber(
        tr("Restitution"), QStringLiteral("restitution"),
        [ref](const World& w) { return need(findShape(w, ref), ref).getMaterial().restitution; }, unitIntervalMessage,
        [ref](World& w, double v) {
          Shape s = need(findShape(w, ref), ref);
          Material m = s.getMaterial();
          m.restitution = v;
          s.setMaterial(m);
        },
        0.05);
    addCheck(
        tr("Collidable"), QStringLiteral("collidable"),
        [ref](const World& w) { return need(findShape(w, ref), ref).isCollidable(); },
        [ref](World& w, bool on) { need(findShape(w, ref), ref).setCollidable(on); });
  } else {
    addHeading(tr("Appearance"));
    std::vector<QWidget*> editors;
    QStringList keys;
    static const char* channels[] = {"r", "g", "b", "a"};
    for (int i = 0; i < 4; ++i) {
      const QString key = QStringLiteral("color_") + QLatin1String(channels[i]);
      keys << key;
      editors.push_back(makeNumber(
          key, [ref, i](const World& w) { return need(findShape(w, ref), ref).getColor()[i]; }, unitIntervalMessage,
          [ref, i](World& w, double v) {
            Shape s = need(findShape(w, ref), ref);
            Vector4d c = s.getColor();
            c[i] = v;
            s.setColor(c);
          },
          0.05, true));
    }
    auto* pick = new QPushButton(tr("Pick…"));
    pick->setObjectName(QStringLiteral("button_pick_color"));
    pick->setEnabled(!m_readOnly);
    connect(pick, &QPushButton::clicked, this, [this, ref] {
      Vector4d c;
      try {
        c = need(findShape(m_document->world(), ref), ref).getColor();
      } catch (const std::exception&) {
        return;
      }
      const QColor initial = QColor::fromRgbF(static_cast<float>(c[0]), static_cast<float>(c[1]),
                                              static_cast<float>(c[2]), static_cast<float>(c[3]));
      const QColor chosen = QColorDialog::getColor(initial, this, tr("Shape colour"), QColorDialog::ShowAlphaChannel);
      if (!chosen.isValid()) return;
      const Vector4d rgba(static_cast<double>(chosen.redF()), static_cast<double>(chosen.greenF()),
                          static_cast<double>(chosen.blueF()), static_cast<double>(chosen.alphaF()));
      commit(
          QStringLiteral("color_r"), tr("Set colour of %1").arg(qs(ref.name)),
          [ref, rgba](World& w) { need(findShape(w, ref), ref).setColor(rgba); }, false);
    });
    editors.push_back(pick);
    addRow(tr("Colour (RGBA)"), editors, keys);
  }
}

void Inspector::buildLoopClosure() {
  const ObjectRef ref = m_ref;
  const World& world = m_document->world();
  const LoopClosure closure = need(findLoopClosure(world, ref), ref);
  const LoopClosureFamily family = closure.family();
  addHeading(tr("Loop closure"));
  addNameField();
  const auto frameLabel = [](const Frame& f) { return f.isWorld() ? QStringLiteral("world") : qs(f.name()); };
  addValueLabel(tr("Frame A"), QStringLiteral("frame_a"), [ref, frameLabel](const World& w) {
    return frameLabel(need(findLoopClosure(w, ref), ref).getSpec().frameA);
  });
  addValueLabel(tr("Frame B"), QStringLiteral("frame_b"), [ref, frameLabel](const World& w) {
    return frameLabel(need(findLoopClosure(w, ref), ref).getSpec().frameB);
  });

  QStringList families;
  for (int f = 0; f <= static_cast<int>(LoopClosureFamily::Distance); ++f) {
    families << qs(toString(static_cast<LoopClosureFamily>(f)));
  }
  addChoice(
      tr("Family"), QStringLiteral("family"), families,
      [ref](const World& w) { return static_cast<int>(need(findLoopClosure(w, ref), ref).family()); },
      [ref](World& w, int index) {
        const LoopClosure c = need(findLoopClosure(w, ref), ref);
        const LoopClosureSpec s = c.getSpec();
        const auto to = static_cast<LoopClosureFamily>(index);
        double length = s.length;
        if (to == LoopClosureFamily::Distance && s.family != LoopClosureFamily::Distance) {
          length = (c.getEndpointB().translation() - c.getEndpointA().translation()).norm();
          if (!(length > 1e-9)) {
            throw InvalidArgument(
                "the endpoints coincide, so a distance closure would have length zero; "
                "move an offset first");
          }
        }
        ops::setLoopClosureGeometry(w, ref, to, s.offsetA, s.offsetB, length);
      });
  if (family == LoopClosureFamily::Distance) {
    addNumber(
        tr("Length (m)"), QStringLiteral("length"),
        [ref](const World& w) { return need(findLoopClosure(w, ref), ref).getSpec().length; }, positiveMessage,
        [ref](World& w, double v) {
          const LoopClosureSpec s = need(findLoopClosure(w, ref), ref).getSpec();
          ops::setLoopClosureGeometry(w, ref, s.family, s.offsetA, s.offsetB, v);
        },
        0.01);
  }
  for (int which = 0; which < 2; ++which) {
    addHeading(which == 0 ? tr("Offset A (in frame A)") : tr("Offset B (in frame B)"));
    addPoseFields(
        which == 0 ? QStringLiteral("offset_a_") : QStringLiteral("offset_b_"),
        [ref, which](const World& w) {
          const LoopClosureSpec s = need(findLoopClosure(w, ref), ref).getSpec();
          return which == 0 ? s.offsetA : s.offsetB;
        },
        [ref, which](World& w, const Isometry3d& X) {
          const LoopClosureSpec s = need(findLoopClosure(w, ref), ref).getSpec();
          ops::setLoopClosureGeometry(w, ref, s.family, which == 0 ? X : s.offsetA, which == 1 ? X : s.offsetB,
                                      s.length);
        });
  }

  addHeading(tr("Policy"));
  using Policy = LoopClosureRuntimePolicy;
  const auto readPolicy = [ref](const World& w) { return need(findLoopClosure(w, ref), ref).getRuntimePolicy(); };
  const auto setPolicy = [ref](World& w, const std::function<void(Policy&)>& change) {
    LoopClosure c = need(findLoopClosure(w, ref), ref);
    Policy p = c.getRuntimePolicy();
    change(p);
    c.setRuntimePolicy(p);
  };
  addCheck(
      tr("Enabled"), QStringLiteral("enabled"), [readPolicy](const World& w) { return readPolicy(w).enabled; },
      [setPolicy](World& w, bool on) { setPolicy(w, [on](Policy& p) { p.enabled = on; }); });
  addChoice(
      tr("Kinematics"), QStringLiteral("kinematics"), {QStringLiteral("project"), QStringLiteral("residual-only")},
      [readPolicy](const World& w) { return readPolicy(w).kinematics == ClosureKinematicsPolicy::Project ? 0 : 1; },
      [setPolicy](World& w, int index) {
        setPolicy(w, [index](Policy& p) {
          p.kinematics = index == 0 ? ClosureKinematicsPolicy::Project : ClosureKinematicsPolicy::ResidualOnly;
        });
      });
  addChoice(
      tr("Dynamics"), QStringLiteral("dynamics"), {QStringLiteral("solve"), QStringLiteral("off")},
      [readPolicy](const World& w) { return readPolicy(w).dynamics == ClosureDynamicsPolicy::Solve ? 0 : 1; },
      [setPolicy](World& w, int index) {
        setPolicy(w, [index](Policy& p) {
          p.dynamics = index == 0 ? ClosureDynamicsPolicy::Solve : ClosureDynamicsPolicy::Off;
        });
      });
  addChoice(
      tr("Stabilization"), QStringLiteral("stabilization"), {QStringLiteral("baumgarte"), QStringLiteral("compliance")},
      [readPolicy](const World& w) { return readPolicy(w).stabilization == ClosureStabilization::Compliance ? 1 : 0; },
      [setPolicy](World& w, int index) {
        setPolicy(w, [index](Policy& p) {
          p.stabilization = index == 1 ? ClosureStabilization::Compliance : ClosureStabilization::Baumgarte;
        });
      });
  if (closure.getRuntimePolicy().stabilization == ClosureStabilization::Baumgarte) {
    addNumber(
        tr("Error reduction"), QStringLiteral("error_reduction"),
        [readPolicy](const World& w) { return readPolicy(w).errorReduction; }, unitIntervalMessage,
        [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.errorReduction = v; }); }, 0.05);
  } else {
    addNumber(
        tr("Stiffness"), QStringLiteral("stiffness"), [readPolicy](const World& w) { return readPolicy(w).stiffness; },
        positiveMessage, [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.stiffness = v; }); },
        1000.0);
    addNumber(
        tr("Damping"), QStringLiteral("damping"), [readPolicy](const World& w) { return readPolicy(w).damping; },
        nonNegativeMessage, [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.damping = v; }); }, 10.0);
  }
  addNumber(
      tr("Tolerance"), QStringLiteral("tolerance"), [readPolicy](const World& w) { return readPolicy(w).tolerance; },
      positiveMessage, [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.tolerance = v; }); }, 1e-10);
  addValueLabel(tr("Residual norm"), QStringLiteral("residual"), [ref](const World& w) {
    return formatRounded(need(findLoopClosure(w, ref), ref).computeResidualNorm());
  });
}

void Inspector::buildCoupler() {
  const ObjectRef ref = m_ref;
  addHeading(tr("Joint coupler"));
  addNameField();
  const auto jointLabel = [](const Joint& j) { return qs(j.getMultibody().name() + "/" + j.name()); };
  addValueLabel(tr("Leader"), QStringLiteral("leader"), [ref, jointLabel](const World& w) {
    return jointLabel(need(findCoupler(w, ref), ref).getSpec().leader);
  });
  addValueLabel(tr("Follower"), QStringLiteral("follower"), [ref, jointLabel](const World& w) {
    return jointLabel(need(findCoupler(w, ref), ref).getSpec().follower);
  });
  addNumber(
      tr("Ratio"), QStringLiteral("ratio"),
      [ref](const World& w) { return need(findCoupler(w, ref), ref).getSpec().ratio; },
      [](double v) { return std::isfinite(v) && v != 0.0 ? QString() : tr("The ratio must be finite and not zero."); },
      [ref](World& w, double v) { ops::setCouplerRatio(w, ref, v, need(findCoupler(w, ref), ref).getSpec().offset); },
      0.1);
  addNumber(
      tr("Offset"), QStringLiteral("offset"),
      [ref](const World& w) { return need(findCoupler(w, ref), ref).getSpec().offset; }, finiteMessage,
      [ref](World& w, double v) { ops::setCouplerRatio(w, ref, need(findCoupler(w, ref), ref).getSpec().ratio, v); },
      0.01);
  addCheck(
      tr("Enabled"), QStringLiteral("enabled"),
      [ref](const World& w) { return need(findCoupler(w, ref), ref).isEnabled(); },
      [ref](World& w, bool on) { need(findCoupler(w, ref), ref).setEnabled(on); });
  addValueLabel(tr("Residual"), QStringLiteral("residual"), [ref](const World& w) {
    return formatRounded(need(findCoupler(w, ref), ref).computeResidual().residual);
  });
}

void Inspector::buildActuator() {
  const ObjectRef ref = m_ref;
  addHeading(tr("Actuator"));
  addNameField();
  addValueLabel(tr("Joint"), QStringLiteral("joint"), [ref](const World& w) {
    const ActuatorSpec s = need(findActuator(w, ref), ref).getSpec();
    return qs(s.joint) + (s.coordinate != 0 ? QStringLiteral(" (DoF %1)").arg(s.coordinate) : QString());
  });
  // Every edit replaces the spec in place (one undoable command per change).
  using Field = std::function<void(ActuatorSpec&)>;
  const auto change = [ref](World& w, const Field& f) {
    ActuatorSpec s = need(findActuator(w, ref), ref).getSpec();
    f(s);
    ops::setActuatorSpec(w, ref, s);
  };
  const auto spec = [ref](const World& w) { return need(findActuator(w, ref), ref).getSpec(); };
  static const std::vector<ActuatorType> kTypes{ActuatorType::Motor,         ActuatorType::PositionServo,
                                                ActuatorType::VelocityServo, ActuatorType::Pid,
                                                ActuatorType::DcMotor,       ActuatorType::Lock};
  QStringList typeNames;
  for (const ActuatorType t : kTypes) typeNames << QString::fromUtf8(toString(t));
  addChoice(
      tr("Type"), QStringLiteral("type"), typeNames,
      [spec](const World& w) {
        const auto it = std::find(kTypes.begin(), kTypes.end(), spec(w).type);
        return static_cast<int>(it - kTypes.begin());
      },
      [change](World& w, int index) {
        change(w, [index](ActuatorSpec& s) {
          s.type = kTypes[static_cast<std::size_t>(index)];
          if (s.type == ActuatorType::DcMotor && !(s.stallTorque > 0.0)) {
            s.stallTorque = 1.0;
            s.noLoadSpeed = 10.0;
          }
        });
      });
  const ActuatorType type = spec(m_document->world()).type;
  const auto nonNegative = [](std::optional<double> v) {
    return !v || (std::isfinite(*v) && *v >= 0.0) ? QString() : tr("Must be finite and not negative.");
  };
  const auto gain = [&](const QString& label, const QString& key, std::optional<double> ActuatorSpec::*field) {
    QWidget* editor = makeOptionalNumber(
        key, [spec, field](const World& w) { return spec(w).*field; }, nonNegative,
        [change, field](World& w, std::optional<double> v) {
          change(w, [v, field](ActuatorSpec& s) { s.*field = v; });
        });
    editor->setToolTip(tr("Empty: critically damped at 10 Hz for the joint's inertia"));
    addRow(label, {editor}, {key});
  };
  if (type == ActuatorType::PositionServo || type == ActuatorType::Pid) {
    gain(tr("kp"), QStringLiteral("kp"), &ActuatorSpec::kp);
    gain(tr("kd"), QStringLiteral("kd"), &ActuatorSpec::kd);
  }
  if (type == ActuatorType::VelocityServo) gain(tr("kv"), QStringLiteral("kv"), &ActuatorSpec::kv);
  const auto number = [&](const QString& label, const QString& key, double ActuatorSpec::*field,
                          const std::function<QString(double)>& validate, double step) {
    addNumber(
        label, key, [spec, field](const World& w) { return spec(w).*field; }, validate,
        [change, field](World& w, double v) { change(w, [v, field](ActuatorSpec& s) { s.*field = v; }); }, step);
  };
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0 ? QString() : tr("Must be positive."); };
  const auto finiteNonNegative = [](double v) {
    return std::isfinite(v) && v >= 0.0 ? QString() : tr("Must be finite and not negative.");
  };
  if (type == ActuatorType::Pid) {
    number(tr("ki"), QStringLiteral("ki"), &ActuatorSpec::ki, finiteNonNegative, 1.0);
    number(tr("Integral limit"), QStringLiteral("integral_limit"), &ActuatorSpec::integralLimit, positive, 0.1);
  }
  if (type == ActuatorType::DcMotor) {
    number(tr("Stall torque (N·m)"), QStringLiteral("stall"), &ActuatorSpec::stallTorque, positive, 0.1);
    number(tr("No-load speed (rad/s)"), QStringLiteral("no_load"), &ActuatorSpec::noLoadSpeed, positive, 1.0);
  }
  if (type == ActuatorType::Motor || type == ActuatorType::DcMotor) {
    number(tr("Gear"), QStringLiteral("gear"), &ActuatorSpec::gear, positive, 1.0);
  }
  const auto bound = [&](const QString& label, const QString& key, double ActuatorSpec::*field, bool upper) {
    QWidget* editor = makeOptionalNumber(
        key,
        [spec, field](const World& w) -> std::optional<double> {
          const double v = spec(w).*field;
          return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
        },
        [](std::optional<double> v) { return !v || std::isfinite(*v) ? QString() : tr("Must be finite."); },
        [change, field, upper](World& w, std::optional<double> v) {
          change(w, [v, field, upper](ActuatorSpec& s) {
            s.*field = v ? *v : (upper ? ActuatorSpec::kInf : -ActuatorSpec::kInf);
          });
        });
    editor->setToolTip(tr("Empty: no bound"));
    addRow(label, {editor}, {key});
  };
  if (type != ActuatorType::Lock) {
    bound(tr("Force min"), QStringLiteral("force_min"), &ActuatorSpec::forceMin, false);
    bound(tr("Force max"), QStringLiteral("force_max"), &ActuatorSpec::forceMax, true);
  }
  bound(tr("Control min"), QStringLiteral("control_min"), &ActuatorSpec::controlMin, false);
  bound(tr("Control max"), QStringLiteral("control_max"), &ActuatorSpec::controlMax, true);
  if (type == ActuatorType::PositionServo || type == ActuatorType::VelocityServo || type == ActuatorType::Pid) {
    addCheck(
        tr("Gravity compensation"), QStringLiteral("gravity_compensation"),
        [spec](const World& w) { return spec(w).gravityCompensation; },
        [change](World& w, bool on) { change(w, [on](ActuatorSpec& s) { s.gravityCompensation = on; }); });
  }
}

void Inspector::buildSchedule() {
  const ObjectRef ref = m_ref;
  addHeading(tr("Schedule"));
  const auto schedule = [ref](const World& w) {
    const auto s = findSchedule(w, ref);
    if (!s) throw InvalidArgument("no schedule '" + ref.name + "'");
    return *s;
  };
  // Every edit replaces the schedule in place (one undoable command per change).
  const auto change = [ref, schedule](World& w, const std::function<void(ScheduleSpec&)>& f) {
    ScheduleSpec s = schedule(w);
    f(s);
    w.setSchedule(ref.name, s);
  };
  addValueLabel(tr("Name"), QStringLiteral("name"), [ref](const World&) { return qs(ref.name); });
  addValueLabel(tr("Actuator"), QStringLiteral("actuator"),
                [schedule](const World& w) { return qs(schedule(w).actuator); });
  addChoice(
      tr("Kind"), QStringLiteral("kind"), {tr("keyframes"), tr("sine"), tr("step")},
      [schedule](const World& w) { return static_cast<int>(schedule(w).kind); },
      [change](World& w, int index) {
        change(w, [index](ScheduleSpec& s) {
          s.kind = static_cast<ScheduleSpec::Kind>(index);
          if (s.kind == ScheduleSpec::Kind::Keyframes && s.keyframes.empty()) s.keyframes = {{0.0, s.offset}};
        });
      });
  const ScheduleSpec current = schedule(m_document->world());
  const auto finite = [](double v) { return std::isfinite(v) ? QString() : tr("Must be finite."); };
  const auto number = [&](const QString& label, const QString& key, double ScheduleSpec::*field, double step) {
    addNumber(
        label, key, [schedule, field](const World& w) { return schedule(w).*field; }, finite,
        [change, field](World& w, double v) { change(w, [v, field](ScheduleSpec& s) { s.*field = v; }); }, step);
  };
  switch (current.kind) {
    case ScheduleSpec::Kind::Sine:
      number(tr("Amplitude"), QStringLiteral("amplitude"), &ScheduleSpec::amplitude, 0.05);
      number(tr("Frequency (Hz)"), QStringLiteral("frequency"), &ScheduleSpec::frequency, 0.1);
      number(tr("Phase (rad)"), QStringLiteral("phase"), &ScheduleSpec::phase, 0.1);
      number(tr("Offset"), QStringLiteral("offset"), &ScheduleSpec::offset, 0.05);
      break;
    case ScheduleSpec::Kind::Step:
      number(tr("Before"), QStringLiteral("offset"), &ScheduleSpec::offset, 0.05);
      number(tr("Jump"), QStringLiteral("amplitude"), &ScheduleSpec::amplitude, 0.05);
      number(tr("At time (s)"), QStringLiteral("step_time"), &ScheduleSpec::stepTime, 0.1);
      break;
    case ScheduleSpec::Kind::Keyframes: {
      addChoice(
          tr("Between keyframes"), QStringLiteral("interpolation"), {tr("linear"), tr("hold")},
          [schedule](const World& w) { return static_cast<int>(schedule(w).interpolation); },
          [change](World& w, int index) {
            change(w, [index](ScheduleSpec& s) { s.interpolation = static_cast<ScheduleSpec::Interpolation>(index); });
          });
      addCheck(
          tr("Loop"), QStringLiteral("loop"), [schedule](const World& w) { return schedule(w).loop; },
          [change](World& w, bool on) { change(w, [on](ScheduleSpec& s) { s.loop = on; }); });
      // Keyframes as text: "time value; time value; ...".
      auto* keys = new QLineEdit;
      keys->setObjectName(QStringLiteral("field_keyframes"));
      keys->setToolTip(tr("time value; time value; ... (times increasing)"));
      keys->setEnabled(!m_readOnly);
      const auto text = [schedule](const World& w) {
        QStringList parts;
        for (const auto& [t, v] : schedule(w).keyframes) parts << formatNumber(t) + QLatin1Char(' ') + formatNumber(v);
        return parts.join(QStringLiteral("; "));
      };
      registerRefresher(QStringLiteral("keyframes"), [this, keys, text] { keys->setText(text(m_document->world())); });
      connect(keys, &QLineEdit::editingFinished, this, [this, keys, change, text, ref] {
        if (m_updating > 0 || keys->text() == text(m_document->world())) return;
        std::vector<std::pair<double, double>> parsed;
        for (const QString& part : keys->text().split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
          const QStringList xy = part.simplified().split(QLatin1Char(' '));
          // A whole field that reads as a finite number.
          const auto parse = [](const QString& field, bool* ok) {
            const std::string digits = field.toStdString();
            char* end = nullptr;
            const double x = std::strtod(digits.c_str(), &end);
            *ok = !digits.empty() && *end == '\0' && std::isfinite(x);
            return x;
          };
          bool okT = false;
          bool okV = false;
          const double t = xy.size() == 2 ? parse(xy[0], &okT) : 0.0;
          const double v = xy.size() == 2 ? parse(xy[1], &okV) : 0.0;
          if (!okT || !okV) {
            showError(QStringLiteral("keyframes"), tr("Expected \"time value\" pairs separated by ';'."));
            restoreField(QStringLiteral("keyframes"));
            return;
          }
          parsed.emplace_back(t, v);
        }
        commit(QStringLiteral("keyframes"), tr("Set keyframes of %1").arg(qs(ref.name)),
               [change, parsed](World& w) { change(w, [parsed](ScheduleSpec& s) { s.keyframes = parsed; }); });
      });
      addRow(tr("Keyframes"), {keys}, {QStringLiteral("keyframes")});
      break;
    }
  }
}

void Inspector::buildKeyframe() {
  const ObjectRef ref = m_ref;
  addHeading(tr("Keyframe"));
  const auto keyframe = [ref](const World& w) {
    const auto k = findKeyframe(w, ref);
    if (!k) throw InvalidArgument("no keyframe '" + ref.name + "'");
    return *k;
  };
  addValueLabel(tr("Name"), QStringLiteral("name"), [ref](const World&) { return qs(ref.name); });
  addNumber(
      tr("Time (s)"), QStringLiteral("time"), [keyframe](const World& w) { return keyframe(w).time; },
      [](double v) { return std::isfinite(v) && v >= 0.0 ? QString() : tr("Must be finite and >= 0."); },
      [ref, keyframe](World& w, double v) {
        KeyframeSpec k = keyframe(w);
        k.time = v;
        w.setKeyframe(ref.name, k);
      },
      0.1);
  addValueLabel(tr("Holds"), QStringLiteral("holds"), [keyframe](const World& w) {
    const KeyframeSpec k = keyframe(w);
    QString text = tr("%1 positions").arg(k.q.size());
    if (k.v.size() > 0) text += tr(", velocities");
    if (k.controls.size() > 0) text += tr(", controls");
    return text;
  });
  auto* apply = new QPushButton(tr("Apply"));
  apply->setObjectName(QStringLiteral("button_apply_keyframe"));
  apply->setToolTip(tr("Pose the design as this keyframe (undoable)"));
  apply->setEnabled(!m_readOnly);
  connect(apply, &QPushButton::clicked, this, [this, ref] {
    const std::optional<KeyframeSpec> k = findKeyframe(m_document->world(), ref);
    if (!k) return;
    if (k->q.size() != m_document->world().numPositions()) {
      m_document->report(tr("Keyframe %1 holds %2 positions; the design now has %3 (it was edited since).")
                             .arg(qs(ref.name))
                             .arg(k->q.size())
                             .arg(m_document->world().numPositions()));
      return;
    }
    m_document->setPositions(tr("Apply keyframe %1").arg(qs(ref.name)), k->q);
  });
  auto* update = new QPushButton(tr("Update from Pose"));
  update->setObjectName(QStringLiteral("button_update_keyframe"));
  update->setToolTip(tr("Store the design's current pose in this keyframe"));
  update->setEnabled(!m_readOnly);
  connect(update, &QPushButton::clicked, this, [this, ref, keyframe] {
    QString error;
    if (!m_document->edit(
            tr("Update keyframe %1").arg(qs(ref.name)),
            [ref, keyframe](World& w) {
              const KeyframeSpec old = keyframe(w);
              w.setKeyframe(ref.name, w.captureKeyframe(ref.name, old.time, old.v.size() > 0, old.controls.size() > 0));
            },
            &error)) {
      m_document->report(error);
    }
  });
  m_form->addRow(apply);
  m_form->addRow(update);
}

void Inspector::buildFrame() {
  const ObjectRef ref = m_ref;
  const World& world = m_document->world();
  const Frame frame = need(findFrame(world, ref), ref);
  const bool isFree = frame.kind() == FrameKind::FreeFrame;
  addHeading(isFree ? tr("Free frame") : tr("Fixed frame"));
  addNameField();
  addValueLabel(tr("Parent"), QStringLiteral("parent"), [ref](const World& w) {
    const Frame parent = need(findFrame(w, ref), ref).getParentFrame();
    return parent.isWorld() ? QStringLiteral("world") : qs(parent.name());
  });
  addHeading(tr("Pose in parent"));
  if (isFree) {
    addPoseFields(
        QString(), [ref](const World& w) { return need(w.getFreeFrame(ref.name), ref).getRelativeTransform(); },
        [ref](World& w, const Isometry3d& X) { need(w.getFreeFrame(ref.name), ref).setRelativeTransform(X); });
  } else {
    addPoseFields(
        QString(), [ref](const World& w) { return need(w.getFixedFrame(ref.name), ref).getRelativeTransform(); }, {},
        false);
  }
}

void Inspector::buildSimulationControls(const ObjectRef& jointRef) {
  if (m_simulation == nullptr) return;
  const Joint joint = need(findJoint(m_document->world(), jointRef), jointRef);
  const JointSpec spec = joint.getSpec();
  const int nv = joint.numDofs();
  if (nv == 0) return;
  const bool vectorJoint = hasVectorCoordinates(spec.type);
  addHeading(tr("Drive (simulation)"));
  for (int dof = 0; dof < nv; ++dof) {
    const double limit =
        spec.effortLimits.size() > dof && std::isfinite(spec.effortLimits[dof]) && spec.effortLimits[dof] > 0.0
            ? spec.effortLimits[dof]
            : 10.0;
    // The sliders start from what the simulation was last sent: it keeps
    // applying that until told otherwise.
    const double sentEffort = m_simulation->jointEffort(jointRef, dof);
    auto* effort = new QSlider(Qt::Horizontal);
    effort->setObjectName(QStringLiteral("effort_%1").arg(dof));
    effort->setRange(0, kSliderSteps);
    effort->setValue(sliderPosition((sentEffort + limit) / (2.0 * limit)));
    auto* effortValue = new QLabel(formatNumber(sentEffort));
    effortValue->setObjectName(QStringLiteral("effort_value_%1").arg(dof));
    effortValue->setMinimumWidth(60);
    connect(effort, &QSlider::valueChanged, this, [this, jointRef, dof, limit, effortValue](int pos) {
      const double value = limit * (2.0 * static_cast<double>(pos) / kSliderSteps - 1.0);
      effortValue->setText(formatNumber(value));
      m_simulation->setJointEffort(jointRef, dof, value);
    });
    auto* effortRow = new QWidget;
    auto* effortLayout = new QHBoxLayout(effortRow);
    effortLayout->setContentsMargins(0, 0, 0, 0);
    effortLayout->addWidget(effort, 1);
    effortLayout->addWidget(effortValue);
    m_form->addRow(tr("Effort %1").arg(dof), effortRow);
  }
  // Targets go to the engine actuators of this joint (design mode adds them).
  bool any = false;
  for (const ActuatorSpec& a : m_simulation->actuators()) {
    if (a.joint != jointRef.name) continue;
    any = true;
    QWidget* slider = makeControlSlider(m_simulation, m_document->world(), a, this);
    m_form->addRow(tr("%1 (%2)").arg(qs(a.name), QString::fromUtf8(toString(a.type))), slider);
  }
  if (!any && vectorJoint) {
    auto* hint =
        new QLabel(tr("No actuator drives this joint: add a position servo in design mode "
                      "(Create ▸ Actuator) to drive it to a target."));
    hint->setObjectName(QStringLiteral("no_actuator_hint"));
    hint->setWordWrap(true);
    m_form->addRow(hint);
  }
}

}  // namespace articula::studio

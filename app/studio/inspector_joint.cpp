// The joint form of the inspector: the joint's spec, its coordinates and, while simulating, its drives.
#include "inspector.hpp"

#include "controls_panel.hpp"
#include "document.hpp"
#include "edit_operations.hpp"
#include "inspector_parts.hpp"
#include "simulation.hpp"

#include <articula/joint_types.hpp>

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

namespace articula::studio {

using namespace form;
using namespace inspector_parts;

namespace {

constexpr int kSliderSteps = 1000;

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

// ---- drive sliders -------------------------------------------------------------

/// The slider position of `fraction` of its range (clamped to the range).
int sliderPosition(double fraction) {
  const double f = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.5;
  return static_cast<int>(std::lround(f * kSliderSteps));
}

}  // namespace

void Inspector::buildJoint() {
  const ObjectRef ref = m_form.object();
  const World& world = m_document->world();
  const Joint joint = need(findJoint(world, ref), ref);
  const JointType type = joint.type();
  const int nv = joint.numDofs();
  m_form.addHeading(tr("Joint"));
  addNameField();

  QStringList typeNames;
  for (const JointTypeInfo& info : jointTypes()) typeNames << qs(info.name);
  m_form.addChoice(
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
      editors.push_back(m_form.makeNumber(
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
    m_form.addRow(which == 0 ? tr("Axis") : tr("Second axis"), editors, keys);
  }
  if (type == JointType::Screw) {
    m_form.addNumber(
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
  if (nv > 0) m_form.addHeading(tr("Per degree of freedom"));
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
      editors.push_back(m_form.makeOptionalNumber(
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
    m_form.addRow(label, editors, keys);
  }

  m_form.addHeading(tr("Parent offset"));
  addPoseFields(
      QStringLiteral("offset_"), [ref](const World& w) { return need(findJoint(w, ref), ref).getSpec().parentOffset; },
      [ref](World& w, const Isometry3d& X) {
        Joint j = need(findJoint(w, ref), ref);
        JointSpec s = j.getSpec();
        s.parentOffset = X;
        j.setSpec(s);
      });
  addCoordinateFields(ref);
  if (m_form.isReadOnly()) buildSimulationControls(ref);
}

void Inspector::addCoordinateFields(const ObjectRef& jointRef) {
  const World& world = m_document->world();
  const Joint joint = need(findJoint(world, jointRef), jointRef);
  const JointType type = joint.type();
  const int nq = joint.numPositions();
  if (nq == 0) return;
  m_form.addHeading(m_simulationActive    ? tr("Joint coordinates (simulated)")
                    : m_form.isReadOnly() ? tr("Joint coordinates (design)")
                                          : tr("Joint coordinates"));
  for (int i = 0; i < nq; ++i) {
    const QString key = QStringLiteral("q%1").arg(i);
    const bool angle = isAngleCoordinate(type, i);
    const double scale = angle ? kDegPerRad : 1.0;
    auto* box = newNumberBox();
    box->setObjectName(QStringLiteral("field_") + key);
    box->setSingleStep(angle ? 1.0 : 0.01);
    box->setEnabled(!m_form.isReadOnly());
    m_form.registerRefresher(key, [this, box, jointRef, i, scale] {
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
      if (m_form.isUpdating()) return;
      if (!std::isfinite(value)) {
        m_form.showError(key, tr("Must be a finite number."));
        m_form.restoreField(key);
        return;
      }
      setJointCoordinate(jointRef, i, value / scale);
    });
    m_form.addRow(coordinateName(type, i), {box}, {key});
  }
  if (world.numLoopClosures() > 0 || world.numJointCouplers() > 0) {
    m_form.addValueLabel(tr("Largest closure residual"), QStringLiteral("closure_residual"),
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
    m_form.showError(key, failure);
    m_form.restoreField(key);
    return;
  }
  if (m_document->isLocked()) {
    m_form.showError(key, tr("The design cannot be changed while the simulation runs."));
    m_form.restoreField(key);
    return;
  }
  m_document->setPositions(tr("Move joint %1").arg(qs(jointRef.name)), target, {jointRef},
                           QStringLiteral("positions:") + qs(jointRef.name) + QLatin1Char(':') + key);
  m_form.hideError(key);
  m_form.refreshValues();
}

void Inspector::buildSimulationControls(const ObjectRef& jointRef) {
  if (m_simulation == nullptr) return;
  const Joint joint = need(findJoint(m_document->world(), jointRef), jointRef);
  const JointSpec spec = joint.getSpec();
  const int nv = joint.numDofs();
  if (nv == 0) return;
  const bool vectorJoint = hasVectorCoordinates(spec.type);
  m_form.addHeading(tr("Drive (simulation)"));
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
    m_form.layout()->addRow(tr("Effort %1").arg(dof), effortRow);
  }
  // Targets go to the engine actuators of this joint (design mode adds them).
  bool any = false;
  for (const ActuatorSpec& a : m_simulation->actuators()) {
    if (a.joint != jointRef.name) continue;
    any = true;
    QWidget* slider = makeControlSlider(m_simulation, m_document->world(), a, this);
    m_form.layout()->addRow(tr("%1 (%2)").arg(qs(a.name), QString::fromUtf8(toString(a.type))), slider);
  }
  if (!any && vectorJoint) {
    auto* hint =
        new QLabel(tr("No actuator drives this joint: add a position servo in design mode "
                      "(Create ▸ Actuator) to drive it to a target."));
    hint->setObjectName(QStringLiteral("no_actuator_hint"));
    hint->setWordWrap(true);
    m_form.layout()->addRow(hint);
  }
}

}  // namespace articula::studio

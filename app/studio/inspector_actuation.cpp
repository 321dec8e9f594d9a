// The inspector forms of actuation: actuators, schedules and keyframes.
#include "inspector.hpp"

#include "document.hpp"
#include "edit_operations.hpp"
#include "inspector_parts.hpp"

#include <QFormLayout>
#include <QLineEdit>
#include <QPushButton>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace articula::studio {

using namespace form;
using namespace inspector_parts;

void Inspector::buildActuator() {
  const ObjectRef ref = m_form.object();
  m_form.addHeading(tr("Actuator"));
  addNameField();
  m_form.addValueLabel(tr("Joint"), QStringLiteral("joint"), [ref](const World& w) {
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
  m_form.addChoice(
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
    QWidget* editor = m_form.makeOptionalNumber(
        key, [spec, field](const World& w) { return spec(w).*field; }, nonNegative,
        [change, field](World& w, std::optional<double> v) {
          change(w, [v, field](ActuatorSpec& s) { s.*field = v; });
        });
    editor->setToolTip(tr("Empty: critically damped at 10 Hz for the joint's inertia"));
    m_form.addRow(label, {editor}, {key});
  };
  if (type == ActuatorType::PositionServo || type == ActuatorType::Pid) {
    gain(tr("kp"), QStringLiteral("kp"), &ActuatorSpec::kp);
    gain(tr("kd"), QStringLiteral("kd"), &ActuatorSpec::kd);
  }
  if (type == ActuatorType::VelocityServo) gain(tr("kv"), QStringLiteral("kv"), &ActuatorSpec::kv);
  const auto number = [&](const QString& label, const QString& key, double ActuatorSpec::*field,
                          const std::function<QString(double)>& validate, double step) {
    m_form.addNumber(
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
    QWidget* editor = m_form.makeOptionalNumber(
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
    m_form.addRow(label, {editor}, {key});
  };
  if (type != ActuatorType::Lock) {
    bound(tr("Force min"), QStringLiteral("force_min"), &ActuatorSpec::forceMin, false);
    bound(tr("Force max"), QStringLiteral("force_max"), &ActuatorSpec::forceMax, true);
  }
  bound(tr("Control min"), QStringLiteral("control_min"), &ActuatorSpec::controlMin, false);
  bound(tr("Control max"), QStringLiteral("control_max"), &ActuatorSpec::controlMax, true);
  if (type == ActuatorType::PositionServo || type == ActuatorType::VelocityServo || type == ActuatorType::Pid) {
    m_form.addCheck(
        tr("Gravity compensation"), QStringLiteral("gravity_compensation"),
        [spec](const World& w) { return spec(w).gravityCompensation; },
        [change](World& w, bool on) { change(w, [on](ActuatorSpec& s) { s.gravityCompensation = on; }); });
  }
}

void Inspector::buildSchedule() {
  const ObjectRef ref = m_form.object();
  m_form.addHeading(tr("Schedule"));
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
  m_form.addValueLabel(tr("Name"), QStringLiteral("name"), [ref](const World&) { return qs(ref.name); });
  m_form.addValueLabel(tr("Actuator"), QStringLiteral("actuator"),
                       [schedule](const World& w) { return qs(schedule(w).actuator); });
  m_form.addChoice(
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
    m_form.addNumber(
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
      m_form.addChoice(
          tr("Between keyframes"), QStringLiteral("interpolation"), {tr("linear"), tr("hold")},
          [schedule](const World& w) { return static_cast<int>(schedule(w).interpolation); },
          [change](World& w, int index) {
            change(w, [index](ScheduleSpec& s) { s.interpolation = static_cast<ScheduleSpec::Interpolation>(index); });
          });
      m_form.addCheck(
          tr("Loop"), QStringLiteral("loop"), [schedule](const World& w) { return schedule(w).loop; },
          [change](World& w, bool on) { change(w, [on](ScheduleSpec& s) { s.loop = on; }); });
      // Keyframes as text: "time value; time value; ...".
      auto* keys = new QLineEdit;
      keys->setObjectName(QStringLiteral("field_keyframes"));
      keys->setToolTip(tr("time value; time value; ... (times increasing)"));
      keys->setEnabled(!m_form.isReadOnly());
      const auto text = [schedule](const World& w) {
        QStringList parts;
        for (const auto& [t, v] : schedule(w).keyframes) parts << formatNumber(t) + QLatin1Char(' ') + formatNumber(v);
        return parts.join(QStringLiteral("; "));
      };
      m_form.registerRefresher(QStringLiteral("keyframes"),
                               [this, keys, text] { keys->setText(text(m_document->world())); });
      connect(keys, &QLineEdit::editingFinished, this, [this, keys, change, text, ref] {
        if (m_form.isUpdating() || keys->text() == text(m_document->world())) return;
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
            m_form.showError(QStringLiteral("keyframes"), tr("Expected \"time value\" pairs separated by ';'."));
            m_form.restoreField(QStringLiteral("keyframes"));
            return;
          }
          parsed.emplace_back(t, v);
        }
        m_form.commit(QStringLiteral("keyframes"), tr("Set keyframes of %1").arg(qs(ref.name)),
                      [change, parsed](World& w) { change(w, [parsed](ScheduleSpec& s) { s.keyframes = parsed; }); });
      });
      m_form.addRow(tr("Keyframes"), {keys}, {QStringLiteral("keyframes")});
      break;
    }
  }
}

void Inspector::buildKeyframe() {
  const ObjectRef ref = m_form.object();
  m_form.addHeading(tr("Keyframe"));
  const auto keyframe = [ref](const World& w) {
    const auto k = findKeyframe(w, ref);
    if (!k) throw InvalidArgument("no keyframe '" + ref.name + "'");
    return *k;
  };
  m_form.addValueLabel(tr("Name"), QStringLiteral("name"), [ref](const World&) { return qs(ref.name); });
  m_form.addNumber(
      tr("Time (s)"), QStringLiteral("time"), [keyframe](const World& w) { return keyframe(w).time; },
      [](double v) { return std::isfinite(v) && v >= 0.0 ? QString() : tr("Must be finite and >= 0."); },
      [ref, keyframe](World& w, double v) {
        KeyframeSpec k = keyframe(w);
        k.time = v;
        w.setKeyframe(ref.name, k);
      },
      0.1);
  m_form.addValueLabel(tr("Holds"), QStringLiteral("holds"), [keyframe](const World& w) {
    const KeyframeSpec k = keyframe(w);
    QString text = tr("%1 positions").arg(k.q.size());
    if (k.v.size() > 0) text += tr(", velocities");
    if (k.controls.size() > 0) text += tr(", controls");
    return text;
  });
  auto* apply = new QPushButton(tr("Apply"));
  apply->setObjectName(QStringLiteral("button_apply_keyframe"));
  apply->setToolTip(tr("Pose the design as this keyframe (undoable)"));
  apply->setEnabled(!m_form.isReadOnly());
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
  update->setEnabled(!m_form.isReadOnly());
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
  m_form.layout()->addRow(apply);
  m_form.layout()->addRow(update);
}

}  // namespace articula::studio

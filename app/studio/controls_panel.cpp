#include "controls_panel.hpp"

#include "simulation.hpp"

#include <articula/joint_types.hpp>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace articula::studio {

namespace {

constexpr int kSteps = 1000;

QString number(double v) {
  return QString::number(v, 'g', 4);
}

}  // namespace

std::pair<double, double> controlSliderRange(const World& design, const ActuatorSpec& a, double lo, double hi) {
  if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) return {lo, hi};
  double wideLo = -1.0;
  double wideHi = 1.0;
  std::optional<Joint> joint;
  if (const auto slash = a.joint.find('/'); slash != std::string::npos) {
    if (const auto mb = design.getMultibody(a.joint.substr(0, slash))) joint = mb->getJoint(a.joint.substr(slash + 1));
  }
  switch (a.type) {
    case ActuatorType::PositionServo:
    case ActuatorType::Pid: {
      const JointType t = joint ? joint->getSpec().type : JointType::Revolute;
      const bool translational = jointTypeInfo(t).isLength(a.coordinate);
      wideLo = translational ? -1.0 : -std::numbers::pi;
      wideHi = -wideLo;
      if (joint) {
        const JointSpec js = joint->getSpec();
        if (js.positionLowerLimits.size() > a.coordinate && std::isfinite(js.positionLowerLimits[a.coordinate]))
          wideLo = js.positionLowerLimits[a.coordinate];
        if (js.positionUpperLimits.size() > a.coordinate && std::isfinite(js.positionUpperLimits[a.coordinate]))
          wideHi = js.positionUpperLimits[a.coordinate];
      }
      break;
    }
    case ActuatorType::VelocityServo:
      wideHi = std::isfinite(a.velocityLimit) ? a.velocityLimit : 2.0 * std::numbers::pi;
      wideLo = -wideHi;
      break;
    case ActuatorType::Motor: {
      const double f = std::max(std::abs(a.forceMin), std::abs(a.forceMax));
      wideHi = std::isfinite(f) && f > 0.0 ? f / a.gear : 10.0;
      wideLo = -wideHi;
      break;
    }
    case ActuatorType::DcMotor:
    case ActuatorType::Lock:
      break;
  }
  if (!std::isfinite(lo)) lo = wideLo;
  if (!std::isfinite(hi)) hi = wideHi;
  if (!(hi > lo)) hi = lo + 1.0;
  return {lo, hi};
}

QWidget* makeControlSlider(Simulation* simulation, const World& design, const ActuatorSpec& a, QWidget* parent) {
  const auto range = simulation->controlRange(a.name).value_or(std::make_pair(a.controlMin, a.controlMax));
  const auto [lo, hi] = controlSliderRange(design, a, range.first, range.second);
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* slider = new QSlider(Qt::Horizontal, row);
  slider->setObjectName(QString::fromStdString("control_" + a.name));
  slider->setRange(0, kSteps);
  const double start = std::clamp(simulation->control(a.name).value_or(0.0), lo, hi);
  slider->setValue(static_cast<int>(std::lround((start - lo) / (hi - lo) * kSteps)));
  auto* value = new QLabel(number(start), row);
  value->setObjectName(QString::fromStdString("control_value_" + a.name));
  value->setMinimumWidth(60);
  const std::string name = a.name;
  const double low = lo;
  const double high = hi;
  QObject::connect(slider, &QSlider::valueChanged, row, [simulation, name, low, high, value](int pos) {
    const double u = low + (high - low) * static_cast<double>(pos) / kSteps;
    value->setText(number(u));
    simulation->setControl(name, u);
  });
  layout->addWidget(slider, 1);
  layout->addWidget(value);
  if (const std::string schedule = simulation->scheduleOf(a.name); !schedule.empty()) {
    // The schedule sets the control before every step: a slider would be overridden.
    slider->setEnabled(false);
    row->setToolTip(QObject::tr("Driven by the schedule '%1'").arg(QString::fromStdString(schedule)));
    value->setText(QObject::tr("schedule"));
  }
  return row;
}

// ---- plot ----

StepResponsePlot::StepResponsePlot(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("stepResponsePlot"));
  setMinimumHeight(140);
}

void StepResponsePlot::clear() {
  m_samples.clear();
  update();
}

void StepResponsePlot::add(double time, double target, double actual) {
  if (!m_samples.empty() && time < std::get<0>(m_samples.back())) m_samples.clear();  // reset or scrubbed back
  if (!m_samples.empty() && time == std::get<0>(m_samples.back())) return;
  m_samples.emplace_back(time, target, actual);
  while (!m_samples.empty() && std::get<0>(m_samples.back()) - std::get<0>(m_samples.front()) > m_window) {
    m_samples.pop_front();
  }
  update();
}

void StepResponsePlot::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), QColor(30, 32, 36));
  const QRectF area = QRectF(rect()).adjusted(58, 8, -8, -20);
  p.setPen(QColor(90, 90, 90));
  p.drawRect(area);
  if (m_samples.size() < 2) {
    p.setPen(QColor(170, 170, 170));
    p.drawText(area.adjusted(6, 0, -6, 0), Qt::AlignCenter | Qt::TextWordWrap,
               tr("Step or Sine: the target (orange) and the joint's position (blue) over time"));
    return;
  }
  double t0 = std::get<0>(m_samples.front());
  double t1 = std::get<0>(m_samples.back());
  if (t1 - t0 < m_window) t1 = t0 + m_window;
  double y0 = HUGE_VAL;
  double y1 = -HUGE_VAL;
  for (const auto& [t, target, actual] : m_samples) {
    for (const double y : {target, actual}) {
      if (!std::isfinite(y)) continue;
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
  }
  if (!(y1 > y0)) {
    y0 -= 0.5;
    y1 += 0.5;
  }
  const double pad = 0.1 * (y1 - y0);
  y0 -= pad;
  y1 += pad;
  const auto map = [&](double t, double y) {
    return QPointF(area.left() + (t - t0) / (t1 - t0) * area.width(),
                   area.bottom() - (y - y0) / (y1 - y0) * area.height());
  };
  for (int series = 0; series < 2; ++series) {
    QPainterPath path;
    bool first = true;
    for (const auto& s : m_samples) {
      const double y = series == 0 ? std::get<1>(s) : std::get<2>(s);
      if (!std::isfinite(y)) continue;
      const QPointF pt = map(std::get<0>(s), y);
      if (first)
        path.moveTo(pt);
      else
        path.lineTo(pt);
      first = false;
    }
    p.setPen(QPen(series == 0 ? QColor(240, 160, 40) : QColor(80, 160, 255), 2.0));
    p.drawPath(path);
  }
  p.setPen(QColor(170, 170, 170));
  p.drawText(QRectF(0, area.top() - 4, 54, 16), Qt::AlignRight, number(y1));
  p.drawText(QRectF(0, area.bottom() - 12, 54, 16), Qt::AlignRight, number(y0));
  p.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignLeft,
             QStringLiteral("t = %1 s").arg(t0, 0, 'f', 2));
  p.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignRight,
             QStringLiteral("%1 s").arg(t1, 0, 'f', 2));
}

// ---- panel ----

ControlsPanel::ControlsPanel(Simulation* simulation, std::function<const World&()> design, QWidget* parent)
    : QWidget(parent), m_simulation(simulation), m_design(std::move(design)) {
  auto* layout = new QVBoxLayout(this);
  m_empty = new QLabel(tr("Run the simulation to drive its actuators. Actuators are added in design mode "
                          "(Create ▸ Actuator, or from a URDF's transmissions)."),
                       this);
  m_empty->setObjectName(QStringLiteral("controlsEmpty"));
  m_empty->setWordWrap(true);
  layout->addWidget(m_empty);
  m_sliderBox = new QWidget(this);
  m_sliders = new QVBoxLayout(m_sliderBox);
  m_sliders->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setWidget(m_sliderBox);
  layout->addWidget(scroll, 1);
  m_hold = new QPushButton(tr("Hold current pose"), this);
  m_hold->setObjectName(QStringLiteral("holdPose"));
  m_hold->setToolTip(tr("Every position servo targets its joint's current position"));
  connect(m_hold, &QPushButton::clicked, this, [this] {
    m_simulation->holdCurrentPose();
    rebuild();
  });
  layout->addWidget(m_hold);

  auto* tool = new QGroupBox(tr("Step response"), this);
  auto* form = new QFormLayout(tool);
  m_actuator = new QComboBox(tool);
  m_actuator->setObjectName(QStringLiteral("responseActuator"));
  form->addRow(tr("Actuator"), m_actuator);
  m_amplitude = new QDoubleSpinBox(tool);
  m_amplitude->setObjectName(QStringLiteral("responseAmplitude"));
  m_amplitude->setRange(-100.0, 100.0);
  m_amplitude->setDecimals(3);
  m_amplitude->setSingleStep(0.05);
  m_amplitude->setValue(0.2);
  form->addRow(tr("Amplitude"), m_amplitude);
  m_frequency = new QDoubleSpinBox(tool);
  m_frequency->setObjectName(QStringLiteral("responseFrequency"));
  m_frequency->setRange(0.01, 50.0);
  m_frequency->setValue(1.0);
  m_frequency->setSuffix(tr(" Hz"));
  form->addRow(tr("Sine frequency"), m_frequency);
  auto* buttons = new QWidget(tool);
  auto* row = new QHBoxLayout(buttons);
  row->setContentsMargins(0, 0, 0, 0);
  m_step = new QPushButton(tr("Step"), buttons);
  m_step->setObjectName(QStringLiteral("responseStep"));
  m_sine = new QPushButton(tr("Sine"), buttons);
  m_sine->setObjectName(QStringLiteral("responseSine"));
  m_sine->setCheckable(true);
  row->addWidget(m_step);
  row->addWidget(m_sine);
  form->addRow(buttons);
  m_plot = new StepResponsePlot(tool);
  form->addRow(m_plot);
  layout->addWidget(tool);

  connect(m_actuator, &QComboBox::currentIndexChanged, this, [this] {
    m_plot->clear();
    m_sine->setChecked(false);
  });
  connect(m_step, &QPushButton::clicked, this, [this] {
    const ActuatorSpec* a = chosen();
    if (a == nullptr) return;
    m_sine->setChecked(false);
    m_simulation->setControl(a->name, m_simulation->control(a->name).value_or(0.0) + m_amplitude->value());
    rebuild();
  });
  connect(m_sine, &QPushButton::toggled, this, [this](bool on) {
    const ActuatorSpec* a = chosen();
    m_sineOn = on && a != nullptr;
    if (m_sineOn) {
      m_sineBase = m_simulation->control(a->name).value_or(0.0);
      m_sineStart = m_simulation->status().time;
    }
  });

  m_timer = new QTimer(this);
  m_timer->setInterval(30);
  connect(m_timer, &QTimer::timeout, this, &ControlsPanel::sample);
  connect(m_simulation, &Simulation::statusChanged, this, &ControlsPanel::onStatus);
  rebuild();
}

const ActuatorSpec* ControlsPanel::chosen() const {
  const std::string name = m_actuator->currentText().toStdString();
  for (const ActuatorSpec& a : m_simulation->actuators())
    if (a.name == name) return &a;
  return nullptr;
}

void ControlsPanel::onStatus(const SimulationStatus& status) {
  std::vector<std::string> names;
  if (status.active) {
    for (const ActuatorSpec& a : m_simulation->actuators()) names.push_back(a.name);
  }
  if (status.active != m_active || names != m_built) {
    rebuild();
    return;
  }
  if (!status.shownFrame) return;
  // A recorded frame is shown: the sliders show its controls (without sending them).
  for (const ActuatorSpec& a : m_simulation->actuators()) {
    auto* slider = m_sliderBox->findChild<QSlider*>(QString::fromStdString("control_" + a.name));
    auto* value = m_sliderBox->findChild<QLabel*>(QString::fromStdString("control_value_" + a.name));
    const std::optional<double> u = m_simulation->control(a.name);
    if (slider == nullptr || value == nullptr || !u || slider->isSliderDown() || !slider->isEnabled()) continue;
    const auto range = m_simulation->controlRange(a.name).value_or(std::make_pair(a.controlMin, a.controlMax));
    const auto [lo, hi] = controlSliderRange(m_design(), a, range.first, range.second);
    const QSignalBlocker block(slider);
    slider->setValue(
        static_cast<int>(std::lround((std::clamp(*u, lo, hi) - lo) / (hi - lo) * static_cast<double>(kSteps))));
    value->setText(number(*u));
  }
}

void ControlsPanel::rebuild() {
  m_active = m_simulation->isActive();
  m_built.clear();
  while (QLayoutItem* item = m_sliders->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  const QString current = m_actuator->currentText();
  m_actuator->blockSignals(true);
  m_actuator->clear();
  if (m_active) {
    for (const ActuatorSpec& a : m_simulation->actuators()) {
      m_built.push_back(a.name);
      auto* label = new QLabel(QStringLiteral("%1  <small>(%2 on %3)</small>")
                                   .arg(QString::fromStdString(a.name), QString::fromUtf8(toString(a.type)),
                                        QString::fromStdString(a.joint)),
                               m_sliderBox);
      m_sliders->addWidget(label);
      m_sliders->addWidget(makeControlSlider(m_simulation, m_design(), a, m_sliderBox));
      if (m_simulation->scheduleOf(a.name).empty()) m_actuator->addItem(QString::fromStdString(a.name));
    }
    m_sliders->addStretch(1);
  }
  const int keep = m_actuator->findText(current);
  if (keep >= 0) m_actuator->setCurrentIndex(keep);
  m_actuator->blockSignals(false);
  const bool any = m_active && !m_built.empty();
  m_empty->setVisible(!any);
  m_hold->setEnabled(any);
  m_step->setEnabled(any);
  m_sine->setEnabled(any);
  if (any) {
    m_timer->start();
  } else {
    m_timer->stop();
    m_sine->setChecked(false);
  }
}

void ControlsPanel::sample() {
  const ActuatorSpec* a = chosen();
  if (a == nullptr || !m_simulation->isActive()) return;
  const double t = m_simulation->status().time;
  if (m_sineOn) {
    const double u =
        m_sineBase + m_amplitude->value() * std::sin(2.0 * std::numbers::pi * m_frequency->value() * (t - m_sineStart));
    m_simulation->setControl(a->name, u);
  }
  const std::optional<double> actual = m_simulation->shownJointPosition({ObjectKind::Joint, a->joint}, a->coordinate);
  const double target = m_simulation->control(a->name).value_or(std::nan(""));
  m_plot->add(t, target, actual.value_or(std::nan("")));
}

}  // namespace articula::studio

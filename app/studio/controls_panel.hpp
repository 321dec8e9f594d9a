#pragma once
/// @file
/// The Controls dock (simulation mode): one slider per engine actuator
/// within its control range, "Hold current pose", and a step-response tool
/// that applies a step or a sine to one actuator and plots its target
/// against the joint's actual position while the simulation runs.

#include <articula/actuator.hpp>
#include <articula/world.hpp>

#include <QWidget>

#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTimer;
class QVBoxLayout;

namespace articula::studio {

class Simulation;
struct SimulationStatus;

/// The slider range shown for an actuator's control: the engine's control
/// range [lo, hi] where finite; an infinite end is replaced by the joint's
/// position limit (±π rad or ±1 m without one) for position targets,
/// ±(velocity limit or 2π) for velocity targets, ±(force limit / gear or
/// 10) for motors.
std::pair<double, double> controlSliderRange(const World& design, const ActuatorSpec& actuator, double lo, double hi);

/// A slider (object name "control_<actuator>") with its value label that
/// sends the actuator's control to `simulation` when moved; it starts at
/// the control the simulation holds.
QWidget* makeControlSlider(Simulation* simulation, const World& design, const ActuatorSpec& actuator,
                           QWidget* parent = nullptr);

/// Target (control) and actual position over simulated time.
class StepResponsePlot : public QWidget {
  Q_OBJECT
 public:
  explicit StepResponsePlot(QWidget* parent = nullptr);
  void clear();
  /// Adds a sample; keeps the last `window` seconds.
  void add(double time, double target, double actual);
  const std::deque<std::tuple<double, double, double>>& samples() const { return m_samples; }
  QSize sizeHint() const override { return {320, 160}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::deque<std::tuple<double, double, double>> m_samples;
  double m_window = 5.0;
};

class ControlsPanel : public QWidget {
  Q_OBJECT
 public:
  /// `design` gives the document's current world (joint limits for the
  /// slider ranges); the document replaces its world on open and import.
  ControlsPanel(Simulation* simulation, std::function<const World&()> design, QWidget* parent = nullptr);

  StepResponsePlot* plot() const { return m_plot; }

 private:
  void onStatus(const SimulationStatus& status);
  void rebuild();
  void sample();
  const ActuatorSpec* chosen() const;

  Simulation* m_simulation;
  std::function<const World&()> m_design;
  std::vector<std::string> m_built;  ///< actuator names the sliders were built for
  bool m_active = false;
  QVBoxLayout* m_sliders = nullptr;
  QWidget* m_sliderBox = nullptr;
  QLabel* m_empty = nullptr;
  QPushButton* m_hold = nullptr;
  QComboBox* m_actuator = nullptr;
  QDoubleSpinBox* m_amplitude = nullptr;
  QDoubleSpinBox* m_frequency = nullptr;
  QPushButton* m_step = nullptr;
  QPushButton* m_sine = nullptr;
  StepResponsePlot* m_plot = nullptr;
  QTimer* m_timer = nullptr;
  // The sine drive: base control and start time while on.
  bool m_sineOn = false;
  double m_sineBase = 0.0;
  double m_sineStart = 0.0;
};

}  // namespace articula::studio

#pragma once
/// @file
/// TimelineWidget: the content of the Timeline dock. A slider over the
/// recorded frames of the running simulation (moving it scrubs), the shown
/// frame and time, play-back at a chosen speed, pause, resuming the
/// simulation from the shown frame (a new branch), and requests to save or
/// load a replay (the main window handles the files).

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;

namespace articula::studio {

class Simulation;
struct SimulationStatus;

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineWidget(Simulation* simulation, QWidget* parent = nullptr);

  /// Play-back speed chosen in the speed box (× real time).
  double playBackSpeed() const;

 signals:
  void saveReplayRequested();
  void exportVideoRequested();
  void loadReplayRequested();

 private:
  void updateFromStatus(const SimulationStatus& status);
  void onSliderMoved(int value);
  void onPlayBack();
  void onSpeedChanged();

  Simulation* m_simulation;
  QSlider* m_slider = nullptr;
  QLabel* m_frameLabel = nullptr;
  QLabel* m_stateLabel = nullptr;
  QPushButton* m_playBack = nullptr;
  QComboBox* m_speed = nullptr;
  QPushButton* m_pause = nullptr;
  QPushButton* m_resume = nullptr;
  QPushButton* m_save = nullptr;
  QPushButton* m_video = nullptr;
  QPushButton* m_load = nullptr;
  /// Set while the widget moves its own slider (no scrubbing then).
  bool m_updating = false;
};

}  // namespace articula::studio

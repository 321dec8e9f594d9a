#include "timeline_widget.hpp"

#include "simulation.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace articula::studio {

namespace {

struct SpeedChoice {
  const char* label;
  double speed;
};

constexpr SpeedChoice kSpeeds[] = {{"0.25×", 0.25}, {"0.5×", 0.5}, {"1×", 1.0}, {"2×", 2.0}, {"4×", 4.0}};
constexpr int kDefaultSpeed = 2;

int toInt(std::size_t n) {
  return static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(std::numeric_limits<int>::max())));
}

}  // namespace

TimelineWidget::TimelineWidget(Simulation* simulation, QWidget* parent) : QWidget(parent), m_simulation(simulation) {
  setObjectName(QStringLiteral("timelineWidget"));

  m_slider = new QSlider(Qt::Horizontal, this);
  m_slider->setObjectName(QStringLiteral("timelineSlider"));
  m_slider->setRange(0, 0);
  m_slider->setSingleStep(1);
  m_slider->setPageStep(10);
  m_slider->setFocusPolicy(Qt::StrongFocus);
  m_slider->setToolTip(tr("Recorded frames: drag, or use the arrow, Page Up/Down, Home and End keys, to show one"));

  m_frameLabel = new QLabel(this);
  m_frameLabel->setObjectName(QStringLiteral("frameLabel"));
  m_stateLabel = new QLabel(this);
  m_stateLabel->setObjectName(QStringLiteral("timelineStateLabel"));

  m_playBack = new QPushButton(tr("Play back"), this);
  m_playBack->setObjectName(QStringLiteral("playBackButton"));
  m_playBack->setToolTip(tr("Play the recorded frames from the shown one"));
  m_speed = new QComboBox(this);
  m_speed->setObjectName(QStringLiteral("speedCombo"));
  m_speed->setToolTip(tr("Play-back speed (× real time)"));
  for (const SpeedChoice& c : kSpeeds) m_speed->addItem(QString::fromUtf8(c.label), c.speed);
  m_speed->setCurrentIndex(kDefaultSpeed);
  m_pause = new QPushButton(tr("Pause"), this);
  m_pause->setObjectName(QStringLiteral("pauseButton"));
  m_resume = new QPushButton(tr("Resume from here"), this);
  m_resume->setObjectName(QStringLiteral("resumeButton"));
  m_resume->setToolTip(tr("Simulate on from the shown frame; later frames are replaced"));
  m_save = new QPushButton(tr("Save replay…"), this);
  m_save->setObjectName(QStringLiteral("saveReplayButton"));
  m_video = new QPushButton(tr("Export video…"), this);
  m_video->setObjectName(QStringLiteral("exportVideoButton"));
  m_video->setToolTip(tr("Render the recorded frames into an MP4 or WebM video"));
  m_load = new QPushButton(tr("Load replay…"), this);
  m_load->setObjectName(QStringLiteral("loadReplayButton"));

  auto* labels = new QHBoxLayout;
  labels->addWidget(m_frameLabel, 1);
  labels->addWidget(m_stateLabel);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_playBack);
  buttons->addWidget(m_speed);
  buttons->addWidget(m_pause);
  buttons->addWidget(m_resume);
  buttons->addStretch(1);
  buttons->addWidget(m_video);
  buttons->addWidget(m_save);
  buttons->addWidget(m_load);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_slider);
  layout->addLayout(labels);
  layout->addLayout(buttons);

  connect(m_slider, &QSlider::valueChanged, this, &TimelineWidget::onSliderMoved);
  connect(m_playBack, &QPushButton::clicked, this, &TimelineWidget::onPlayBack);
  connect(m_speed, &QComboBox::currentIndexChanged, this, &TimelineWidget::onSpeedChanged);
  connect(m_pause, &QPushButton::clicked, this, [this] { m_simulation->pause(); });
  connect(m_resume, &QPushButton::clicked, this, [this] { m_simulation->resumeFromShown(); });
  connect(m_save, &QPushButton::clicked, this, &TimelineWidget::saveReplayRequested);
  connect(m_video, &QPushButton::clicked, this, &TimelineWidget::exportVideoRequested);
  connect(m_load, &QPushButton::clicked, this, &TimelineWidget::loadReplayRequested);
  connect(m_simulation, &Simulation::statusChanged, this, &TimelineWidget::updateFromStatus);

  updateFromStatus(m_simulation->status());
}

double TimelineWidget::playBackSpeed() const {
  const QVariant speed = m_speed->currentData();
  return speed.isValid() ? speed.toDouble() : 1.0;
}

void TimelineWidget::updateFromStatus(const SimulationStatus& status) {
  const bool active = status.active;
  const int frames = toInt(status.frames);
  const int last = std::max(0, frames - 1);
  const int shown = status.shownFrame ? std::min(toInt(*status.shownFrame), last) : last;

  m_updating = true;
  m_slider->setRange(0, last);
  m_slider->setPageStep(std::max(1, frames / 20));
  // While the user drags the handle, reports of earlier frames must not pull it back.
  if (!m_slider->isSliderDown()) m_slider->setValue(shown);
  m_updating = false;

  if (active) {
    m_frameLabel->setText(
        tr("frame %1 / %2 · t = %3 s").arg(shown).arg(last).arg(QString::number(status.time, 'f', 3)));
    if (status.playingBack) {
      m_stateLabel->setText(tr("playing back"));
    } else if (status.playing) {
      m_stateLabel->setText(tr("live"));
    } else if (status.shownFrame) {
      m_stateLabel->setText(tr("recorded frame"));
    } else {
      m_stateLabel->setText(tr("paused"));
    }
  } else {
    m_frameLabel->setText(tr("no simulation"));
    m_stateLabel->clear();
  }

  m_slider->setEnabled(active && frames > 0);
  m_playBack->setEnabled(active && frames > 1);
  m_speed->setEnabled(active);
  m_pause->setEnabled(active && status.playing);
  m_resume->setEnabled(active && !(status.playing && !status.playingBack));
  m_save->setEnabled(active && frames > 0);
  m_video->setEnabled(active && frames > 0);
  // A replay can be loaded whether or not a simulation runs (loading one starts it).
  m_load->setEnabled(true);
}

void TimelineWidget::onSliderMoved(int value) {
  if (m_updating || !m_simulation->isActive()) return;
  m_simulation->scrubTo(static_cast<std::size_t>(std::max(0, value)));
}

void TimelineWidget::onPlayBack() {
  m_simulation->playBack(playBackSpeed());
}

void TimelineWidget::onSpeedChanged() {
  if (m_simulation->isActive() && m_simulation->status().playingBack) m_simulation->playBack(playBackSpeed());
}

}  // namespace articula::studio

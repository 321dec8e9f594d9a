#pragma once
// A one-line progress bar on stderr: percent, elapsed time, ETA and
// real-time factor, redrawn at most ten times per second.

#include <chrono>

namespace articula::run {

class ProgressBar {
 public:
  /// Draws nothing unless `enabled`.
  ProgressBar(bool enabled, long totalSteps);
  /// After step `step` (1-based) at simulated time `simTime`.
  void update(long step, double simTime) {
    if (m_enabled) maybeDraw(step, simTime);
  }
  /// Draws the final state and ends the line.
  void finish(long step, double simTime);

 private:
  void maybeDraw(long step, double simTime);
  void draw(long step, double simTime, double elapsed);

  bool m_enabled = false;
  long m_total = 0;
  std::chrono::steady_clock::time_point m_start;
  std::chrono::steady_clock::time_point m_lastDraw;
};

}  // namespace articula::run

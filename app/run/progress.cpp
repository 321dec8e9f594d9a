#include "progress.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace articula::run {

namespace {

using Clock = std::chrono::steady_clock;

std::string duration(double seconds) {
  char buffer[32];
  if (seconds < 60.0) {
    std::snprintf(buffer, sizeof buffer, "%.1fs", seconds);
  } else {
    const long s = static_cast<long>(seconds + 0.5);
    if (s < 3600) {
      std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
    } else {
      std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
    }
  }
  return buffer;
}

}  // namespace

ProgressBar::ProgressBar(bool enabled, long totalSteps)
    : m_enabled(enabled && totalSteps > 0), m_total(totalSteps), m_start(Clock::now()), m_lastDraw(m_start) {}

void ProgressBar::maybeDraw(long step, double simTime) {
  const auto now = Clock::now();
  if (now - m_lastDraw < std::chrono::milliseconds(100)) return;
  m_lastDraw = now;
  draw(step, simTime, std::chrono::duration<double>(now - m_start).count());
}

void ProgressBar::finish(long step, double simTime) {
  if (!m_enabled) return;
  draw(step, simTime, std::chrono::duration<double>(Clock::now() - m_start).count());
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

void ProgressBar::draw(long step, double simTime, double elapsed) {
  constexpr int kWidth = 30;
  const double fraction = std::clamp(static_cast<double>(step) / static_cast<double>(m_total), 0.0, 1.0);
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '.');
  const std::string eta =
      step > 0 ? duration(elapsed * static_cast<double>(m_total - step) / static_cast<double>(step)) : std::string("?");
  const double rtf = elapsed > 0.0 ? simTime / elapsed : 0.0;
  std::fprintf(stderr, "\r[%s] %5.1f%%  elapsed %s  ETA %s  RTF %.3g   ", bar.c_str(), 100.0 * fraction,
               duration(elapsed).c_str(), eta.c_str(), rtf);
  std::fflush(stderr);
}

}  // namespace articula::run

#include "frame_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula::studio {

FrameTable::FrameTable(const WorldSpec& design) : m_world(std::make_unique<World>(design)) {
  m_world->enterSimulationMode();
  m_columns = std::make_unique<io::LogColumns>(*m_world, io::parseLogGroups("all"));
  m_names = m_columns->names();
  for (const io::LogBlock& b : m_columns->blocks()) {
    for (const char* name : {"force", "reaction", "jointforce", "limit", "friction", "contact", "diagnostics"}) {
      if (b.dataset == name) m_outputs.emplace_back(b.offset, b.size);
    }
    // Contact wrenches: fx, fy, fz, tx, ty, tz per body.
    if (b.dataset == "contact") {
      for (int c = b.offset; c < b.offset + b.size; c += 6) m_contactForces.push_back(c);
    }
  }
  if (!m_contactForces.empty()) {
    m_total = static_cast<int>(m_names.size());
    for (const char* c : {"fx", "fy", "fz"}) m_names.push_back(std::string("contact:total:") + c);
    m_outputs.emplace_back(m_total, 3);
  }
  m_width = m_names.size();
  m_startRow.assign(m_width, 0.0);
  m_columns->fill(*m_world, m_startRow.data());
  m_stepRow.assign(m_width, 0.0);
  m_stateColumns = static_cast<std::size_t>(1 + m_world->numPositions() + m_world->numDofs());  // t, q, v
}

int FrameTable::find(const std::string& name) const {
  const auto it = std::find(m_names.begin(), m_names.end(), name);
  return it == m_names.end() ? -1 : static_cast<int>(it - m_names.begin());
}

FrameTable::~FrameTable() = default;

void FrameTable::setStepOptions(double timeStep, const std::string& solverMethod) {
  WorldOptions options = m_world->getOptions();
  bool changed = false;
  if (timeStep > 0.0 && options.timeStep != timeStep) {
    options.timeStep = timeStep;
    changed = true;
  }
  if (!solverMethod.empty() && options.solver.method != solverMethod) {
    options.solver.method = solverMethod;
    changed = true;
  }
  if (changed) {
    m_world->setOptions(options);
    clear();
  }
}

void FrameTable::clear() {
  m_values.clear();
  m_steps.clear();
}

bool FrameTable::update(const Recording& recording, std::size_t keep, const Progress& progress) {
  const std::size_t n = recording.size();
  keep = std::min({keep, rows(), n});
  // Kept rows must still name the steps of their frames.
  std::size_t same = 0;
  while (same < keep && m_steps[same] == recording.frameInfo(same).step) ++same;
  m_values.resize(same * m_width);
  m_steps.resize(same);
  if (same == n) return true;
  recording.checkLayout(*m_world);
  m_values.reserve(n * m_width);
  m_steps.reserve(n);
  const std::size_t total = n - same;
  for (std::size_t i = same; i < n; ++i) {
    const RecordedFrameInfo info = recording.frameInfo(i);
    const bool follows = i > 0 && info.step == recording.frameInfo(i - 1).step + 1;
    bool stepped = false;
    if (follows) {
      // The step from the frame before, for its outputs...
      recording.restore(*m_world, i - 1);
      m_world->step();
      m_columns->fill(*m_world, m_stepRow.data());
    }
    // ...and the state as recorded.
    recording.restore(*m_world, i);
    m_values.resize((i + 1) * m_width);
    double* r = m_values.data() + i * m_width;
    m_columns->fill(*m_world, r);
    if (follows) {
      // The step reaches the recorded state unless something the frame
      // before does not hold acted on it (a drag, an effort sent between
      // the two frames); then its outputs are not the recorded step's.
      stepped = std::equal(r, r + m_stateColumns, m_stepRow.begin(),
                           [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); });
    }
    const bool start = !follows && info.step == 0;
    for (const auto& [offset, size] : m_outputs) {
      if (stepped) {
        std::copy(m_stepRow.begin() + offset, m_stepRow.begin() + offset + size, r + offset);
      } else if (start) {
        // The start: what a world that never stepped reports (as articula-run's first row).
        std::copy(m_startRow.begin() + offset, m_startRow.begin() + offset + size, r + offset);
      } else {
        std::fill(r + offset, r + offset + size, std::numeric_limits<double>::quiet_NaN());
      }
    }
    if (m_total >= 0 && (stepped || start)) {
      for (int k = 0; k < 3; ++k) {
        double sum = 0.0;
        for (int c : m_contactForces) sum += r[c + k];
        r[m_total + k] = sum;
      }
    }
    m_steps.push_back(info.step);
    if (progress && !progress(i - same + 1, total)) return false;
  }
  return true;
}

std::optional<std::size_t> FrameTable::rowAtOrBefore(double t) const {
  if (m_steps.empty()) return std::nullopt;
  std::size_t lo = 0, hi = rows();  // first row with time > t
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (time(mid) <= t) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? 0 : lo - 1;
}

}  // namespace articula::studio

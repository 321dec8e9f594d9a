#include <articula/viewer/plot_buffer.hpp>

#include <articula/error.hpp>

#include <cmath>

namespace articula::viewer {

PlotBuffer::PlotBuffer(std::size_t capacity) {
  if (capacity == 0) throw InvalidArgument("PlotBuffer: capacity must be at least 1");
  times_.assign(capacity, 0.0);
  values_.assign(capacity, 0.0);
}

void PlotBuffer::push(double t, double value) {
  if (size_ > 0 && t < lastTime()) clear();
  const std::size_t cap = times_.size();
  if (size_ < cap) {
    const std::size_t s = slot(size_);
    times_[s] = t;
    values_[s] = value;
    ++size_;
  } else {
    // Full: the oldest slot takes the new sample and the window moves on.
    times_[first_] = t;
    values_[first_] = value;
    first_ = first_ + 1 == cap ? 0 : first_ + 1;
  }
}

void PlotBuffer::clear() {
  first_ = 0;
  size_ = 0;
}

double PlotBuffer::minValue() const {
  bool any = false;
  double m = 0.0;
  for (std::size_t i = 0; i < size_; ++i) {
    const double v = value(i);
    if (std::isnan(v)) continue;
    if (!any || v < m) m = v;
    any = true;
  }
  return m;
}

double PlotBuffer::maxValue() const {
  bool any = false;
  double m = 0.0;
  for (std::size_t i = 0; i < size_; ++i) {
    const double v = value(i);
    if (std::isnan(v)) continue;
    if (!any || v > m) m = v;
    any = true;
  }
  return m;
}

void PlotBuffer::copyTo(std::vector<double>& times, std::vector<double>& values) const {
  times.resize(size_);
  values.resize(size_);
  for (std::size_t i = 0; i < size_; ++i) {
    times[i] = time(i);
    values[i] = value(i);
  }
}

}  // namespace articula::viewer

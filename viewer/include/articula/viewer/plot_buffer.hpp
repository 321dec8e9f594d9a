#pragma once
/// @file
/// PlotBuffer: a fixed-capacity scrolling window of (time, value) samples
/// for live plots. Storage is allocated once, at construction; pushing is
/// O(1) and never allocates. When the buffer is full the oldest sample is
/// dropped. Time going backwards (a world reset, a replay scrub) starts the
/// plot afresh: a sample older than the newest kept one clears the buffer
/// before it is stored. No rendering library here.

#include <cstddef>
#include <vector>

namespace articula::viewer {

class PlotBuffer {
 public:
  /// @throws articula::InvalidArgument if capacity is 0.
  explicit PlotBuffer(std::size_t capacity = 2000);

  /// Appends a sample. If `t` is earlier than the newest kept sample's time
  /// the buffer is cleared first (equal times are kept: a paused simulation
  /// may publish several snapshots at the same time). When full, the oldest
  /// sample is overwritten.
  void push(double t, double value);
  /// Drops every sample; the capacity (and storage) stays.
  void clear();

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return times_.size(); }
  bool empty() const { return size_ == 0; }

  /// Sample i in chronological order: i = 0 is the oldest kept sample,
  /// i = size() − 1 the newest. Precondition: i < size().
  double time(std::size_t i) const { return times_[slot(i)]; }
  double value(std::size_t i) const { return values_[slot(i)]; }
  /// The newest sample. Precondition: !empty().
  double lastTime() const { return time(size_ - 1); }
  double lastValue() const { return value(size_ - 1); }

  /// Smallest / largest kept value, ignoring NaNs; 0 when there is no
  /// (non-NaN) sample. O(size()).
  double minValue() const;
  double maxValue() const;

  /// Copies the kept samples, oldest first, into `times` and `values`
  /// (resized to size(); reusing their storage when it is large enough).
  void copyTo(std::vector<double>& times, std::vector<double>& values) const;

 private:
  std::size_t slot(std::size_t i) const {
    const std::size_t s = first_ + i;
    return s < times_.size() ? s : s - times_.size();
  }

  std::vector<double> times_;
  std::vector<double> values_;
  std::size_t first_ = 0;  ///< storage index of the oldest sample
  std::size_t size_ = 0;
};

}  // namespace articula::viewer

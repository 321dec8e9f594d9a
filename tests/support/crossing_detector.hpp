#pragma once
// Period measurement for the oscillation tests.

#include <cstddef>
#include <limits>
#include <vector>

namespace articula::test {

// Upward zero crossings of y(t), sampled every step together with its exact
// derivative ẏ, located with cubic Hermite interpolation (error O(h⁴)).
class CrossingDetector {
 public:
  void add(double t, double y, double yd) {
    if (m_has && m_y < 0.0 && y >= 0.0) {
      const double h = t - m_t;
      double lo = 0.0;
      double hi = 1.0;
      for (int it = 0; it < 80; ++it) {
        const double s = 0.5 * (lo + hi);
        (hermite(s, h, y, yd) < 0.0 ? lo : hi) = s;
      }
      m_crossings.push_back(m_t + 0.5 * (lo + hi) * h);
    }
    m_has = true;
    m_t = t;
    m_y = y;
    m_yd = yd;
  }
  std::size_t count() const { return m_crossings.size(); }
  const std::vector<double>& crossings() const { return m_crossings; }
  double meanPeriod() const {
    if (m_crossings.size() < 2) return std::numeric_limits<double>::quiet_NaN();
    return (m_crossings.back() - m_crossings.front()) / static_cast<double>(m_crossings.size() - 1);
  }

 private:
  double hermite(double s, double h, double y1, double yd1) const {
    const double s2 = s * s;
    const double s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * m_y + (s3 - 2 * s2 + s) * h * m_yd + (-2 * s3 + 3 * s2) * y1 + (s3 - s2) * h * yd1;
  }
  bool m_has = false;
  double m_t = 0.0, m_y = 0.0, m_yd = 0.0;
  std::vector<double> m_crossings;
};

}  // namespace articula::test

#pragma once
// Period measurement for the oscillation tests, and the exact period of a
// pendulum to compare with.

#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
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

// Arithmetic–geometric mean.
inline double agm(double a, double b) {
  for (int i = 0; i < 60 && std::abs(a - b) > 1e-16 * a; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return 0.5 * (a + b);
}

// Exact period of θ̈ = −ω0² sin θ with amplitude A:
// T = 4K(sin(A/2))/ω0 = (2π/ω0) / AGM(1, cos(A/2)).
inline double exactPendulumPeriod(double omega0, double amplitude) {
  return 2.0 * std::numbers::pi / omega0 / agm(1.0, std::cos(0.5 * amplitude));
}

}  // namespace articula::test

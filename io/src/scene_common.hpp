#pragma once
// Shared vocabulary of the scene writer and reader: number formatting that
// round-trips exactly, and the names of enumerations in the file.

#include <articula/io/scene_file.hpp>

#include <charconv>
#include <string>

namespace articula::io {

// The shortest text that parses back to the same double ("0.1", "9.81").
inline std::string formatNumber(double x) {
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, result.ptr);
}

template <class Vec>
std::string formatNumbers(const Vec& v) {
  std::string out;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (i > 0) out += ' ';
    out += formatNumber(v[i]);
  }
  return out;
}

// Row-major 3 × 3.
inline std::string formatRotation(const Matrix3d& R) {
  std::string out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out += (out.empty() ? "" : " ") + formatNumber(R(r, c));
  return out;
}

// The part of "multibody/link" after the slash.
inline std::string leafName(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

inline const char* integratorName(Integrator i) {
  return i == Integrator::RungeKutta4 ? "rk4" : "semi-implicit-euler";
}

inline const char* errorCorrectionName(ErrorCorrection e) {
  return e == ErrorCorrection::SplitImpulse ? "split-impulse" : "baumgarte";
}

inline const char* eulerOrderName(EulerOrder o) {
  switch (o) {
    case EulerOrder::XYZ:
      return "xyz";
    case EulerOrder::ZYX:
      return "zyx";
    case EulerOrder::ZYZ:
      return "zyz";
    case EulerOrder::XZY:
      return "xzy";
    case EulerOrder::YXZ:
      return "yxz";
    case EulerOrder::YZX:
      return "yzx";
    case EulerOrder::ZXY:
      return "zxy";
  }
  return "xyz";
}

}  // namespace articula::io

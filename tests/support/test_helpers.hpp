#pragma once
// Shared helpers for the engine tests: random trees, tolerances, comparisons.

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <random>
#include <sstream>
#include <string>

namespace articula::test {

/// Relative error ‖a − b‖ / max(1, ‖b‖).
template <typename A, typename B>
double relativeError(const A& a, const B& b) {
  const double denom = std::max(1.0, static_cast<double>(b.norm()));
  return static_cast<double>((a - b).norm()) / denom;
}

inline std::string describe(const Eigen::MatrixXd& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

}  // namespace articula::test

/// QVERIFY with the two values printed on failure.
#define ARTICULA_VERIFY_NEAR(actual, expected, tol)                                            \
  do {                                                                                          \
    const double articula_err_ = articula::test::relativeError((actual), (expected));           \
    if (!(articula_err_ <= (tol))) {                                                            \
      QFAIL(qPrintable(QString("relative error %1 > %2\nactual:\n%3\nexpected:\n%4")            \
                           .arg(articula_err_)                                                  \
                           .arg(tol)                                                            \
                           .arg(QString::fromStdString(articula::test::describe((actual))))     \
                           .arg(QString::fromStdString(articula::test::describe((expected)))))); \
    }                                                                                           \
  } while (false)

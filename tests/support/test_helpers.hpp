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

/// Pose with translation (x, y, z) (m) and identity rotation.
inline Isometry3d translation(double x, double y, double z) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(x, y, z);
  return X;
}

/// Pose rotating by `angle` (rad) about `axis` (normalised here), no translation.
inline Isometry3d rotation(double angle, const Vector3d& axis) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  return X;
}

inline std::string describe(const Eigen::MatrixXd& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

}  // namespace articula::test

// Fails the test when the statement throws.
#define EXPECT_NO_THROW(...)                                                                   \
  do {                                                                                         \
    try {                                                                                      \
      __VA_ARGS__;                                                                             \
    } catch (const std::exception& e_) {                                                       \
      QFAIL(qPrintable(QString("unexpected exception (%1) from: %2")                           \
                           .arg(QString::fromUtf8(e_.what()), QStringLiteral(#__VA_ARGS__)))); \
    }                                                                                          \
  } while (false)

/// QVERIFY with the two values printed on failure.
#define ARTICULA_VERIFY_NEAR(actual, expected, tol)                                              \
  do {                                                                                           \
    const double articula_err_ = articula::test::relativeError((actual), (expected));            \
    if (!(articula_err_ <= (tol))) {                                                             \
      QFAIL(qPrintable(QString("relative error %1 > %2\nactual:\n%3\nexpected:\n%4")             \
                           .arg(articula_err_)                                                   \
                           .arg(tol)                                                             \
                           .arg(QString::fromStdString(articula::test::describe((actual))))      \
                           .arg(QString::fromStdString(articula::test::describe((expected)))))); \
    }                                                                                            \
  } while (false)

/// ARTICULA_VERIFY_NEAR after checking that the shapes agree (a size
/// mismatch would otherwise be undefined behaviour in Eigen without
/// assertions). Both sides are evaluated into plain objects first.
#define VERIFY_NEAR(actual, expected, tol) \
  do {                                     \
    const auto va_ = (actual).eval();      \
    const auto vb_ = (expected).eval();    \
    QCOMPARE(va_.rows(), vb_.rows());      \
    QCOMPARE(va_.cols(), vb_.cols());      \
    ARTICULA_VERIFY_NEAR(va_, vb_, tol);   \
  } while (false)

/// Checks that the statement throws ExType with a non-empty message.
#define EXPECT_THROW_NONEMPTY(ExType, ...)                                                        \
  do {                                                                                            \
    bool caught_ = false;                                                                         \
    try {                                                                                         \
      __VA_ARGS__;                                                                                \
    } catch (const ExType& e_) {                                                                  \
      caught_ = true;                                                                             \
      QVERIFY2(std::string(e_.what()).size() > 0, "empty exception message from: " #__VA_ARGS__); \
    } catch (const std::exception& e_) {                                                          \
      QFAIL(qPrintable(QString("expected " #ExType ", got a different exception (%1) from: %2")   \
                           .arg(QString::fromUtf8(e_.what()), QStringLiteral(#__VA_ARGS__))));    \
    }                                                                                             \
    QVERIFY2(caught_, "expected " #ExType " from: " #__VA_ARGS__);                                \
  } while (false)

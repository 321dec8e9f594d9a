#pragma once
// Shared helpers for the engine tests: tolerances, comparisons, poses,
// failure-message formatting and checking macros.

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

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

/// Pose with rotation `R` and translation `p`.
inline Isometry3d pose(const Matrix3d& R, const Vector3d& p) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = R;
  X.translation() = p;
  return X;
}

/// Rotation by `a` (rad) about z, built from cos/sin directly (independent
/// of Eigen's AngleAxis).
inline Matrix3d rotZ(double a) {
  Matrix3d R;
  R << std::cos(a), -std::sin(a), 0.0,  //
      std::sin(a), std::cos(a), 0.0,    //
      0.0, 0.0, 1.0;
  return R;
}

inline std::string describe(const Eigen::MatrixXd& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

// ---- failure messages --------------------------------------------------------

inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// `x` with `digits` significant digits (17 round-trips every double).
inline QString num(double x, int digits = 17) {
  return QString::number(x, 'g', digits);
}

/// A vector or matrix on one line: Eigen's print of its transpose.
inline QString vec(const Eigen::MatrixXd& m) {
  return QString::fromStdString(describe(m.transpose()));
}

/// "(x, y, z)" with `digits` significant digits.
inline QString xyz(const Vector3d& v, int digits = 17) {
  return QString("(%1, %2, %3)").arg(num(v.x(), digits), num(v.y(), digits), num(v.z(), digits));
}

/// Last path component of a name ("mb/link" -> "link").
inline std::string leafName(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

/// Empty when `message` mentions every string of `needles`, else what is
/// missing (`from`: the statement that threw).
inline QString missingMention(const std::string& message, const std::vector<std::string>& needles, const char* from) {
  for (const std::string& needle : needles) {
    if (message.find(needle) == std::string::npos) {
      return QString("message '%1' does not mention '%2' (from: %3)")
          .arg(QString::fromStdString(message), QString::fromStdString(needle), QString::fromUtf8(from));
    }
  }
  return {};
}

}  // namespace articula::test

/// Fails the test with `message` (a QString) unless `cond` holds; the
/// message is only built on failure (cheap inside long loops).
#define ARTICULA_CHECK(cond, message)        \
  do {                                       \
    if (!(cond)) QFAIL(qPrintable(message)); \
  } while (false)

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

/// Checks that the statement throws ExType; `checkMessage` maps the
/// exception's message (a std::string) to a failure description, empty when
/// the message is acceptable.
#define ARTICULA_EXPECT_THROW(ExType, checkMessage, ...)                                        \
  do {                                                                                          \
    bool caught_ = false;                                                                       \
    try {                                                                                       \
      __VA_ARGS__;                                                                              \
    } catch (const ExType& e_) {                                                                \
      caught_ = true;                                                                           \
      const QString problem_ = (checkMessage)(std::string(e_.what()));                          \
      QVERIFY2(problem_.isEmpty(), qPrintable(problem_));                                       \
    } catch (const std::exception& e_) {                                                        \
      QFAIL(qPrintable(QString("expected " #ExType ", got a different exception (%1) from: %2") \
                           .arg(QString::fromUtf8(e_.what()), QStringLiteral(#__VA_ARGS__))));  \
    }                                                                                           \
    QVERIFY2(caught_, "expected " #ExType " from: " #__VA_ARGS__);                              \
  } while (false)

/// Checks that the statement throws ExType with a non-empty message.
#define EXPECT_THROW_NONEMPTY(ExType, ...)                                                                   \
  ARTICULA_EXPECT_THROW(                                                                                     \
      ExType,                                                                                                \
      [](const std::string& message_) {                                                                      \
        return message_.empty() ? QStringLiteral("empty exception message from: " #__VA_ARGS__) : QString(); \
      },                                                                                                     \
      __VA_ARGS__)

/// Checks that the statement throws ExType whose message mentions every
/// string of `needles` (a std::vector<std::string>).
#define EXPECT_THROW_NAMING(ExType, needles, ...)                                                                     \
  ARTICULA_EXPECT_THROW(                                                                                              \
      ExType,                                                                                                         \
      [&](const std::string& message_) { return articula::test::missingMention(message_, (needles), #__VA_ARGS__); }, \
      __VA_ARGS__)

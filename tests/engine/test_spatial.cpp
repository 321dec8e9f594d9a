// Spatial algebra: SO(3)/SE(3) exponential and logarithm, adjoint actions,
// cross-product duality and inertia transforms, against their definitions.
#include "spatial.hpp"
#include "test_helpers.hpp"

#include <QtTest/QtTest>

#include <random>

using namespace articula;
using namespace articula::detail;

namespace {

Matrix6d motionMatrix(const SE3& X) {
  Matrix6d M;
  for (int j = 0; j < 6; ++j) M.col(j) = X.actMotion(Vector6d::Unit(j));
  return M;
}

Matrix6d forceMatrix(const SE3& X) {
  Matrix6d M;
  for (int j = 0; j < 6; ++j) M.col(j) = X.actForce(Vector6d::Unit(j));
  return M;
}

SE3 randomPose(std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  const Vector3d w(N(rng), N(rng), N(rng));
  return {Eigen::AngleAxisd(w.norm(), w.normalized()).toRotationMatrix(), Vector3d(N(rng), N(rng), N(rng))};
}

// Matrix exponential by scaling and squaring of the Taylor series, as an
// independent reference for expSO3/expSE3.
Eigen::Matrix4d matrixExp(const Eigen::Matrix4d& A) {
  int s = 0;
  double n = A.norm();
  while (n > 0.1) {
    n /= 2.0;
    ++s;
  }
  const Eigen::Matrix4d B = A / std::pow(2.0, s);
  Eigen::Matrix4d term = Eigen::Matrix4d::Identity();
  Eigen::Matrix4d sum = Eigen::Matrix4d::Identity();
  for (int k = 1; k < 20; ++k) {
    term = term * B / k;
    sum += term;
  }
  for (int i = 0; i < s; ++i) sum = sum * sum;
  return sum;
}

}  // namespace

class TestSpatial : public QObject {
  Q_OBJECT

 private slots:
  void expMatchesMatrixExponential() {
    std::mt19937 rng(1);
    std::normal_distribution<double> N(0.0, 1.0);
    for (int i = 0; i < 50; ++i) {
      Vector6d V;
      for (int k = 0; k < 6; ++k) V[k] = N(rng) * (i < 10 ? 1e-7 : 1.0);
      Eigen::Matrix4d hat = Eigen::Matrix4d::Zero();
      hat.topLeftCorner<3, 3>() = skew(V.head<3>());
      hat.topRightCorner<3, 1>() = V.tail<3>();
      const Eigen::Matrix4d ref = matrixExp(hat);
      const SE3 X = expSE3(V);
      ARTICULA_VERIFY_NEAR(X.R, Matrix3d(ref.topLeftCorner<3, 3>()), 1e-12);
      ARTICULA_VERIFY_NEAR(X.p, Vector3d(ref.topRightCorner<3, 1>()), 1e-12);
      ARTICULA_VERIFY_NEAR(expSO3(V.head<3>()), Matrix3d(ref.topLeftCorner<3, 3>()), 1e-12);
    }
  }

  void logInvertsExp() {
    std::mt19937 rng(2);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    for (int i = 0; i < 100; ++i) {
      Vector6d V;
      for (int k = 0; k < 6; ++k) V[k] = U(rng);
      V.head<3>() *= 2.5 / std::max(1.0, V.head<3>().norm());  // |ω| < π: log is unique
      ARTICULA_VERIFY_NEAR(logSE3(expSE3(V)), V, 1e-10);
      ARTICULA_VERIFY_NEAR(logSO3(expSO3(V.head<3>())), Vector3d(V.head<3>()), 1e-10);
    }
  }

  void quaternionRoundTrip() {
    std::mt19937 rng(3);
    for (int i = 0; i < 50; ++i) {
      const SE3 X = randomPose(rng);
      double q[4];
      rotationToQuat(X.R, q);
      QVERIFY(q[3] >= 0.0);
      ARTICULA_VERIFY_NEAR(quatToRotation(q), X.R, 1e-12);
    }
  }

  void adjointActionsAreDualAndCompose() {
    std::mt19937 rng(4);
    for (int i = 0; i < 20; ++i) {
      const SE3 A = randomPose(rng);
      const SE3 B = randomPose(rng);
      // Force transform = inverse transpose of the motion transform (power is invariant).
      ARTICULA_VERIFY_NEAR(forceMatrix(A), Matrix6d(motionMatrix(A).inverse().transpose()), 1e-12);
      ARTICULA_VERIFY_NEAR(motionMatrix(A * B), Matrix6d(motionMatrix(A) * motionMatrix(B)), 1e-12);
      ARTICULA_VERIFY_NEAR(motionMatrix(A.inverse()), Matrix6d(motionMatrix(A).inverse()), 1e-12);
      Vector6d m = Vector6d::Random();
      ARTICULA_VERIFY_NEAR(A.invActMotion(A.actMotion(m)), m, 1e-12);
      ARTICULA_VERIFY_NEAR(A.invActForce(A.actForce(m)), m, 1e-12);
    }
  }

  void crossProductsAreDual() {
    // (v ×*) = −(v ×)ᵀ, so f·(v × m) = −(v ×* f)·m.
    std::mt19937 rng(5);
    std::normal_distribution<double> N(0.0, 1.0);
    for (int i = 0; i < 20; ++i) {
      Vector6d v, m, f;
      for (int k = 0; k < 6; ++k) v[k] = N(rng), m[k] = N(rng), f[k] = N(rng);
      QVERIFY(std::abs(f.dot(crossMotion(v, m)) + crossForce(v, f).dot(m)) < 1e-12);
      QVERIFY(crossMotion(v, v).norm() < 1e-15);
    }
  }

  void inertiaTransformMatchesDefinition() {
    std::mt19937 rng(6);
    std::uniform_real_distribution<double> U(0.1, 2.0);
    for (int i = 0; i < 20; ++i) {
      const SE3 X = randomPose(rng);
      const double m = U(rng);
      const Vector3d c(U(rng) - 1.0, U(rng) - 1.0, U(rng) - 1.0);
      const Vector3d d(U(rng), U(rng), U(rng));
      const Matrix3d Q = randomPose(rng).R;
      const Matrix3d Ic = Q * d.asDiagonal() * Q.transpose();
      const Matrix6d IB = spatialInertia(m, c, Ic);
      // I_A = X* I_B X⁻¹ (Featherstone eq. 2.66), and the parallel-axis form.
      const Matrix6d ref = forceMatrix(X) * IB * motionMatrix(X).inverse();
      ARTICULA_VERIFY_NEAR(transformInertia(X, IB), ref, 1e-12);
      ARTICULA_VERIFY_NEAR(transformInertia(X, IB), spatialInertia(m, X.transformPoint(c), X.R * Ic * X.R.transpose()),
                           1e-12);
      // An articulated inertia is not a rigid-body inertia; the transform must still be exact.
      Matrix6d G = Matrix6d::Random();
      const Matrix6d IA = IB + G * G.transpose();
      ARTICULA_VERIFY_NEAR(transformInertia(X, IA), Matrix6d(forceMatrix(X) * IA * motionMatrix(X).inverse()), 1e-12);
      // Kinetic energy is frame-independent.
      const Vector6d VB = Vector6d::Random();
      const Vector6d VA = X.actMotion(VB);
      QVERIFY(std::abs(VB.dot(IB * VB) - VA.dot(transformInertia(X, IB) * VA)) < 1e-10);
    }
  }
};

QTEST_APPLESS_MAIN(TestSpatial)
#include "test_spatial.moc"

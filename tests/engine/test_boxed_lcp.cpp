// The pivoting boxed-LCP solver against the complementarity conditions
// and against an independent projected Gauss–Seidel iteration, and its
// refusal of degenerate problems.
#include "constraint.hpp"
#include "test_helpers.hpp"

#include <QtTest/QtTest>

#include <limits>
#include <random>

using namespace articula;
using namespace articula::detail;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Problem {
  MatrixXd A;
  VectorXd b, lo, hi;
};

// SPD matrix with eigenvalues in [0.1, 10], random b, and bounds of every kind.
Problem randomProblem(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  MatrixXd G(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) G(i, j) = u(rng);
  const Eigen::HouseholderQR<MatrixXd> qr(G);
  const MatrixXd Q = qr.householderQ();
  VectorXd ev(n);
  for (int i = 0; i < n; ++i) ev[i] = 0.1 + 9.9 * (0.5 + 0.5 * u(rng));
  Problem p;
  p.A = Q * ev.asDiagonal() * Q.transpose();
  p.b = VectorXd::NullaryExpr(n, [&]() { return 3.0 * u(rng); });
  p.lo.resize(n);
  p.hi.resize(n);
  for (int i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0:  // unilateral (contact normal, limit)
        p.lo[i] = 0.0;
        p.hi[i] = kInf;
        break;
      case 1:  // box (friction with a fixed bound)
        p.lo[i] = -0.3;
        p.hi[i] = 0.3;
        break;
      case 2:  // bilateral
        p.lo[i] = -kInf;
        p.hi[i] = kInf;
        break;
      default:  // upper-limit style
        p.lo[i] = -kInf;
        p.hi[i] = 0.0;
        break;
    }
  }
  return p;
}

// Largest violation of lo ≤ λ ≤ hi and of complementarity with w = Aλ + b.
double complementarityError(const Problem& p, const VectorXd& lam, const VectorXd& lo, const VectorXd& hi) {
  const VectorXd w = p.A * lam + p.b;
  double err = 0.0;
  for (Eigen::Index i = 0; i < lam.size(); ++i) {
    err = std::max(err, std::max(lo[i] - lam[i], lam[i] - hi[i]));
    const bool atLo = lam[i] <= lo[i] + 1e-12;
    const bool atHi = lam[i] >= hi[i] - 1e-12;
    if (atLo && atHi) continue;
    if (atLo) {
      err = std::max(err, -w[i]);
    } else if (atHi) {
      err = std::max(err, w[i]);
    } else {
      err = std::max(err, std::abs(w[i]));
    }
  }
  return err;
}

// Plain projected Gauss–Seidel, many sweeps.
VectorXd referencePgs(const Problem& p, int sweeps) {
  const Eigen::Index n = p.b.size();
  VectorXd lam = VectorXd::Zero(n);
  for (int s = 0; s < sweeps; ++s) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const double w = p.A.row(i).dot(lam) + p.b[i];
      lam[i] = std::clamp(lam[i] - w / p.A(i, i), p.lo[i], p.hi[i]);
    }
  }
  return lam;
}

}  // namespace

class TestBoxedLcp : public QObject {
  Q_OBJECT

 private slots:
  void randomProblemsSatisfyComplementarity_data() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("size");
    for (int seed = 1; seed <= 8; ++seed) QTest::newRow(qPrintable(QString("seed %1").arg(seed))) << seed << 4 * seed;
  }

  void randomProblemsSatisfyComplementarity() {
    QFETCH(int, seed);
    QFETCH(int, size);
    std::mt19937 rng(static_cast<std::uint32_t>(seed));
    const Problem p = randomProblem(rng, size);
    IslandScratch ws;
    VectorXd lo = p.lo;
    VectorXd hi = p.hi;
    VectorXd lam;
    int pivots = 0;
    QVERIFY(solveBoxedLcpPivoting(p.A, p.b, lo, hi, nullptr, nullptr, lam, ws, pivots));
    QVERIFY(lam.allFinite());
    const double err = complementarityError(p, lam, lo, hi);
    QVERIFY2(err < 1e-9, qPrintable(QString("complementarity error %1").arg(err)));
    // The solution of an LCP with a positive definite matrix is unique:
    // an independent iterative method must find the same one.
    const VectorXd ref = referencePgs(p, 20000);
    QVERIFY2(complementarityError(p, ref, p.lo, p.hi) < 1e-9, "reference iteration did not converge");
    ARTICULA_VERIFY_NEAR(lam, ref, 1e-8);
  }

  void frictionBoundsFollowNormalImpulses() {
    // Three contacts (normal + two friction rows each) on one body: the
    // friction bounds are ±μ·λn of their normal row at the end.
    std::mt19937 rng(11);
    const int nc = 3;
    const int n = 3 * nc;
    Problem p = randomProblem(rng, n);
    std::vector<int> findex(static_cast<std::size_t>(n), -1);
    std::vector<double> mu(static_cast<std::size_t>(n), 0.0);
    for (int c = 0; c < nc; ++c) {
      p.lo[c] = 0.0;
      p.hi[c] = kInf;
      p.b[c] = -std::abs(p.b[c]) - 0.5;  // approaching: normals become active
      for (int k = 0; k < 2; ++k) {
        const int r = nc + 2 * c + k;
        findex[static_cast<std::size_t>(r)] = c;
        mu[static_cast<std::size_t>(r)] = 0.4;
        p.lo[r] = 0.0;
        p.hi[r] = 0.0;
      }
    }
    IslandScratch ws;
    VectorXd lo = p.lo;
    VectorXd hi = p.hi;
    VectorXd lam;
    int pivots = 0;
    QVERIFY(solveBoxedLcpPivoting(p.A, p.b, lo, hi, findex.data(), mu.data(), lam, ws, pivots));
    for (int r = nc; r < n; ++r) {
      const double bound = 0.4 * lam[findex[static_cast<std::size_t>(r)]];
      QVERIFY(lam[r] <= bound + 1e-12 && lam[r] >= -bound - 1e-12);
      QCOMPARE(hi[r], bound);
    }
    for (int c = 0; c < nc; ++c) QVERIFY(lam[c] >= 0.0);
  }

  void degenerateProblems() {
    // Two rows with the same Jacobian: A is singular.
    MatrixXd A(2, 2);
    A << 1.0, 1.0, 1.0, 1.0;
    VectorXd lo = VectorXd::Constant(2, -kInf);
    VectorXd hi = VectorXd::Constant(2, kInf);
    IslandScratch ws;
    VectorXd lam;
    int pivots = 0;
    // Consistent targets: solvable (the redundant row carries no impulse).
    VectorXd b(2);
    b << -1.0, -1.0;
    QVERIFY(solveBoxedLcpPivoting(A, b, lo, hi, nullptr, nullptr, lam, ws, pivots));
    QVERIFY((A * lam + b).cwiseAbs().maxCoeff() < 1e-12);
    // Contradicting targets: no solution; refused, not NaN.
    b << -1.0, -2.0;
    QVERIFY(!solveBoxedLcpPivoting(A, b, lo, hi, nullptr, nullptr, lam, ws, pivots));
  }

  void zeroBoundsKeepZeroImpulse() {
    MatrixXd A = MatrixXd::Identity(3, 3) * 2.0;
    VectorXd b(3);
    b << -1.0, 1.0, -2.0;
    VectorXd lo = VectorXd::Zero(3);
    VectorXd hi = VectorXd::Zero(3);
    hi[2] = kInf;
    IslandScratch ws;
    VectorXd lam;
    int pivots = 0;
    QVERIFY(solveBoxedLcpPivoting(A, b, lo, hi, nullptr, nullptr, lam, ws, pivots));
    QCOMPARE(lam[0], 0.0);
    QCOMPARE(lam[1], 0.0);
    QVERIFY(std::abs(lam[2] - 1.0) < 1e-14);
  }
};

QTEST_APPLESS_MAIN(TestBoxedLcp)
#include "test_boxed_lcp.moc"

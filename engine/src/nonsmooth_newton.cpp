// The non-smooth Newton method for one island's boxed complementarity
// problem (constraint.hpp).
//
// Every row's condition "lo ≤ λ ≤ hi complementary to w = A λ + b" is one
// equation φ(λ, w) = 0 built from the Fischer–Burmeister function
// ψ(a, b) = a + b − √(a² + b²), which is zero exactly when a ≥ 0, b ≥ 0 and
// ab = 0. For a box (Billups, "A homotopy-based algorithm for mixed
// complementarity problems", 2002):
//   φ = ψ(d(λ − lo), −ψ(d(hi − λ), −w)),
// reducing to ψ(d(λ − lo), w) for a one-sided row and to w for a bilateral
// one. d is the row's Delassus diagonal, so that every φ is a velocity.
// Friction bounds ±μλₙ are evaluated at the current normal impulses and
// held fixed within a linearization (the Newton loop re-linearizes).
//
// Each Newton step solves Da Δλ + Db A Δλ = −φ, with Da = ∂φ/∂λ ≥ 0 and
// Db = ∂φ/∂w ≥ 0 diagonal; divided by Db it is (A + C) Δλ = −φ/Db with
// C = Da/Db ≥ 0, symmetric positive semi-definite, which a conjugate
// residual iteration preconditioned by its diagonal solves without ever
// forming A: A x is J (M̃⁻¹ Jᵀ x), O(rows · tree DoFs) (delassusProduct).
// A backtracking line search on ½‖φ‖² makes the step.
#include "constraint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Relative accuracy of the inner solve (inexact Newton forcing term).
constexpr double kInnerTolerance = 1e-3;
constexpr int kMaxBacktracks = 30;
constexpr double kArmijo = 1e-4;
// Smallest Db used in the division: a row with Db below it is effectively
// pinned to the value Da Δλ = −φ gives.
constexpr double kMinDb = 1e-12;
// The iteration stops at this fraction of ConstraintSolverOptions::convergenceTolerance:
// stopping at a tenth of it left errors of a consistent sign that let two
// leaning slabs gain energy and fall within 3 s; Newton's fast final
// convergence makes the extra digits cost about one iteration.
constexpr double kTargetFraction = 1e-3;
// Projected Gauss–Seidel sweeps taken when the line search stalls, and how
// often per solve.
constexpr int kFallbackSweeps = 5;
constexpr int kMaxFallbacks = 10;
// Matrix-free products per solve, in units of maxIterations.
constexpr int kInnerBudget = 2;

void growTo(VectorXd& v, int n) {
  if (v.size() < n) v.resize(n);
}

// ψ and its partial derivatives.
double fischerBurmeister(double a, double b, double& da, double& db) {
  const double r = std::hypot(a, b);
  if (r < 1e-300) {
    da = db = 1.0 - 1.0 / std::sqrt(2.0);
    return 0.0;
  }
  da = 1.0 - a / r;
  db = 1.0 - b / r;
  return a + b - r;
}

struct RowEquation {
  double phi = 0.0;
  double da = 0.0;      // ∂φ/∂λ
  double db = 0.0;      // ∂φ/∂w
  double dWidth = 0.0;  // ∂φ/∂hi − ∂φ/∂lo: the change with a symmetric bound ±b, per unit of b
};

// φ of one row with bounds [lo, hi], scale d, at (λ, w).
RowEquation rowEquation(double lambda, double w, double lo, double hi, double d) {
  RowEquation e;
  double b = w;
  double dbLambda = 0.0;
  double dbW = 1.0;
  double dbHi = 0.0;
  if (hi < kInf) {
    double p1 = 0.0;
    double p2 = 0.0;
    b = -fischerBurmeister(d * (hi - lambda), -w, p1, p2);
    dbLambda = p1 * d;
    dbW = p2;
    dbHi = -p1 * d;
  }
  if (lo > -kInf) {
    double q1 = 0.0;
    double q2 = 0.0;
    e.phi = fischerBurmeister(d * (lambda - lo), b, q1, q2);
    e.da = q1 * d + q2 * dbLambda;
    e.db = q2 * dbW;
    e.dWidth = q2 * dbHi + q1 * d;  // ∂φ/∂hi = q2·∂b/∂hi, ∂φ/∂lo = −q1·d
  } else {
    e.phi = b;
    e.da = dbLambda;
    e.db = dbW;
  }
  return e;
}

// The island as the Newton iteration sees it: rows in island order, with
// inactive rows (no mobility, or not part of the position problem) pinned
// at zero impulse.
struct Island {
  ConstraintWorkspace& ws;
  IslandScratch& sc;
  const ConstraintSolverOptions& opt;
  int i0;
  int n;
  bool position;

  const ConstraintRow& row(int a) const {
    return ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
  }
  bool active(int a) const {
    const ConstraintRow& r = row(a);
    return r.diag > 0.0 && (!position || r.kind == RowKind::ContactNormal);
  }
  // Island index of a friction row's normal row (−1 when none).
  int normalOf(int a) const {
    const ConstraintRow& r = row(a);
    if (position || r.normalRow < 0) return -1;
    return ws.pos[static_cast<std::size_t>(r.normalRow)];
  }
  void bounds(int a, const double* lambda, double& lo, double& hi) const {
    const ConstraintRow& r = row(a);
    if (position) {
      lo = 0.0;
      hi = kInf;
      return;
    }
    const int nrm = normalOf(a);
    if (r.normalRow >= 0) {
      hi = nrm >= 0 ? r.mu * std::max(0.0, lambda[nrm]) : 0.0;
      lo = -hi;
      return;
    }
    lo = r.lo;
    hi = r.hi;
  }
  // Merit ½‖φ‖² at (λ, w) and the largest natural residual.
  double merit(const double* lambda, const double* w, double& natural) const {
    double sum = 0.0;
    natural = 0.0;
    for (int a = 0; a < n; ++a) {
      if (!active(a)) continue;
      double lo = 0.0;
      double hi = 0.0;
      bounds(a, lambda, lo, hi);
      const ConstraintRow& r = row(a);
      const double d = r.diag + rowSoftness(opt, r);
      const RowEquation e = rowEquation(lambda[a], w[a], lo, hi, d);
      sum += e.phi * e.phi;
      natural = std::max(natural, std::abs(lambda[a] - std::clamp(lambda[a] - w[a] / d, lo, hi)) * d);
    }
    return 0.5 * sum;
  }
  // y = (A + C) x on the active rows (inactive entries of y are zero),
  // plus, when `couple` is given, couple[f]·x[normal of f] for friction rows.
  void apply(const double* x, const double* c, const double* couple, double* y) const {
    delassusProduct(ws, sc, opt, i0, i0 + n, x, y);
    for (int a = 0; a < n; ++a) {
      if (!active(a)) {
        y[a] = 0.0;
        continue;
      }
      y[a] += c[a] * x[a];
      if (couple != nullptr && couple[a] != 0.0) y[a] += couple[a] * x[normalOf(a)];
    }
  }
};

// Preconditioned conjugate residual on (A + C) x = b from x = 0, the
// symmetric case (no friction row moving with its normal impulse).
// Returns the iterations.
// The iteration stops when the residual of the unscaled equations,
// Db ∘ (b − (A + C) x), is below kInnerTolerance of its start (the inexact
// Newton condition under which the step descends on ½‖φ‖²).
int conjugateResidual(const Island& isl, IslandScratch& sc, int limit, const double* c, const double* db,
                      const double* pre, const double* b, double* x) {
  const int n = isl.n;
  double* res = sc.nR.data();
  double* z = sc.nZ.data();
  double* p = sc.nP.data();
  double* mz = sc.nMz.data();
  double* mp = sc.nMp.data();
  double bNorm = 0.0;
  for (int a = 0; a < n; ++a) {
    x[a] = 0.0;
    res[a] = b[a];
    z[a] = pre[a] * res[a];
    p[a] = z[a];
    bNorm += db[a] * db[a] * res[a] * res[a];
  }
  isl.apply(z, c, nullptr, mz);
  for (int a = 0; a < n; ++a) mp[a] = mz[a];
  double zMz = 0.0;
  for (int a = 0; a < n; ++a) zMz += z[a] * mz[a];
  int k = 0;
  while (k < std::max(1, limit)) {
    ++k;
    double mpPmp = 0.0;
    for (int a = 0; a < n; ++a) mpPmp += mp[a] * pre[a] * mp[a];
    if (!(mpPmp > 0.0) || !(zMz > 0.0)) break;
    const double alpha = zMz / mpPmp;
    double rNorm = 0.0;
    for (int a = 0; a < n; ++a) {
      x[a] += alpha * p[a];
      res[a] -= alpha * mp[a];
      z[a] -= alpha * pre[a] * mp[a];
      rNorm += db[a] * db[a] * res[a] * res[a];
    }
    if (rNorm <= kInnerTolerance * kInnerTolerance * bNorm) break;
    isl.apply(z, c, nullptr, mz);
    double next = 0.0;
    for (int a = 0; a < n; ++a) next += z[a] * mz[a];
    const double beta = next / zMz;
    zMz = next;
    for (int a = 0; a < n; ++a) {
      p[a] = z[a] + beta * p[a];
      mp[a] = mz[a] + beta * mp[a];
    }
  }
  return k;
}

// GMRES with right diagonal preconditioning on the unscaled Newton
// equations Db ∘ ((A + C) x + coupling) = Db ∘ b from x = 0 (Saad,
// "Iterative Methods for Sparse Linear Systems", 6.5): the coupling of
// sliding friction rows to their normal impulses makes them unsymmetric.
// Returns the iterations.
int gmres(const Island& isl, IslandScratch& sc, int limit, const double* c, const double* couple, const double* db,
          const double* b, double* x) {
  const int n = isl.n;
  const int m = std::max(1, limit);
  if (sc.gV.rows() < n || sc.gV.cols() < m + 1) sc.gV.resize(std::max<Eigen::Index>(sc.gV.rows(), n), m + 1);
  if (sc.gH.rows() < m + 1 || sc.gH.cols() < m) sc.gH.resize(m + 1, m);
  growTo(sc.gG, 3 * (m + 1));
  double* u = sc.nZ.data();
  double* wv = sc.nMz.data();
  double* cs = sc.gG.data();
  double* sn = cs + (m + 1);
  double* g = sn + (m + 1);
  double* pre = sc.nP.data();  // 1 / diagonal of the unscaled matrix
  double beta = 0.0;
  for (int a = 0; a < n; ++a) {
    x[a] = 0.0;
    const ConstraintRow& r = isl.row(a);
    pre[a] = 1.0 / (db[a] * (r.diag + rowSoftness(isl.opt, r) + c[a]));
    beta += db[a] * db[a] * b[a] * b[a];
  }
  beta = std::sqrt(beta);
  if (!(beta > 0.0)) return 0;
  for (int a = 0; a < n; ++a) sc.gV(a, 0) = db[a] * b[a] / beta;
  for (int i = 0; i <= m; ++i) g[i] = 0.0;
  g[0] = beta;
  int k = 0;
  while (k < m) {
    const int j = k++;
    for (int a = 0; a < n; ++a) u[a] = pre[a] * sc.gV(a, j);
    isl.apply(u, c, couple, wv);
    for (int a = 0; a < n; ++a) wv[a] *= db[a];
    for (int i = 0; i <= j; ++i) {
      double h = 0.0;
      for (int a = 0; a < n; ++a) h += wv[a] * sc.gV(a, i);
      sc.gH(i, j) = h;
      for (int a = 0; a < n; ++a) wv[a] -= h * sc.gV(a, i);
    }
    double norm = 0.0;
    for (int a = 0; a < n; ++a) norm += wv[a] * wv[a];
    norm = std::sqrt(norm);
    sc.gH(j + 1, j) = norm;
    if (norm > 0.0)
      for (int a = 0; a < n; ++a) sc.gV(a, j + 1) = wv[a] / norm;
    for (int i = 0; i < j; ++i) {
      const double t = cs[i] * sc.gH(i, j) + sn[i] * sc.gH(i + 1, j);
      sc.gH(i + 1, j) = -sn[i] * sc.gH(i, j) + cs[i] * sc.gH(i + 1, j);
      sc.gH(i, j) = t;
    }
    const double r = std::hypot(sc.gH(j, j), sc.gH(j + 1, j));
    cs[j] = r > 0.0 ? sc.gH(j, j) / r : 1.0;
    sn[j] = r > 0.0 ? sc.gH(j + 1, j) / r : 0.0;
    sc.gH(j, j) = r;
    sc.gH(j + 1, j) = 0.0;
    g[j + 1] = -sn[j] * g[j];
    g[j] = cs[j] * g[j];
    if (std::abs(g[j + 1]) <= kInnerTolerance * beta || !(norm > 0.0)) break;
  }
  // y = H⁻¹ g (upper triangular), x = P⁻¹ V y.
  for (int i = k - 1; i >= 0; --i) {
    double s = g[i];
    for (int l = i + 1; l < k; ++l) s -= sc.gH(i, l) * g[l];
    g[i] = sc.gH(i, i) != 0.0 ? s / sc.gH(i, i) : 0.0;
  }
  for (int i = 0; i < k; ++i)
    for (int a = 0; a < n; ++a) x[a] += g[i] * sc.gV(a, i);
  for (int a = 0; a < n; ++a) x[a] *= pre[a];
  return k;
}

// λ from the rows and w = J v + softness·λ − target.
void loadIsland(const Island& isl, const ConstraintWorkspace& ws, const ConstraintSolverOptions& opt, bool position,
                const VectorXd& v, double* lambda, double* w) {
  for (int a = 0; a < isl.n; ++a) {
    const ConstraintRow& r = isl.row(a);
    lambda[a] = isl.active(a) ? (position ? r.lambdaPosition : r.lambda) : 0.0;
    double s = 0.0;
    for (int k = 0; k < r.nside; ++k) {
      const RowSide& sd = r.side[k];
      for (int i = 0; i < sd.n; ++i) s += ws.J[static_cast<std::size_t>(sd.offset + i)] * v[sd.vadr + i];
    }
    w[a] = s + rowSoftness(opt, r) * lambda[a] - (position ? r.rhsPosition : r.rhs);
  }
}

}  // namespace

IslandSolve nonsmoothNewtonIsland(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt,
                                  int i0, int i1, bool position, VectorXd& v) {
  const int n = i1 - i0;
  for (VectorXd* s : {&sc.nLambda, &sc.nW, &sc.nPhi, &sc.nC, &sc.nRhs, &sc.nDir, &sc.nADir, &sc.nPre, &sc.nR, &sc.nZ,
                      &sc.nP, &sc.nMz, &sc.nMp, &sc.nTrial, &sc.nLo, &sc.nDb}) {
    growTo(*s, 2 * n);
  }
  for (int a = 0; a < n; ++a) ws.pos[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])] = a;
  const Island isl{ws, sc, opt, i0, n, position};
  double* lambda = sc.nLambda.data();
  double* w = sc.nW.data();
  loadIsland(isl, ws, opt, position, v, lambda, w);
  int fallbacks = 0;

  IslandSolve out;
  double natural = 0.0;
  double theta = isl.merit(lambda, w, natural);
  const int maxIt = std::max(1, opt.maxIterations);
  const int budget = kInnerBudget * maxIt;
  double* c = sc.nC.data();
  double* rhs = sc.nRhs.data();
  double* dir = sc.nDir.data();
  double* aDir = sc.nADir.data();
  double* pre = sc.nPre.data();
  double* couple = sc.nLo.data();
  double* db = sc.nDb.data();
  double* trial = sc.nTrial.data();  // trial λ in [0, n), trial w in [n, 2n)
  // Aim below the tolerance, so that a warm-started step whose error sits
  // just under it still improves.
  const double target = kTargetFraction * opt.convergenceTolerance;
  while (natural > target && out.iterations < maxIt) {
    ++out.iterations;
    // Linearize. A friction row at its bound also moves with its normal
    // impulse (the bound ±μλₙ): couple[f] = μ ∂φ_f/∂b / Db_f.
    double rhsNorm = 0.0;
    bool coupled = false;
    for (int a = 0; a < n; ++a) {
      dir[a] = 0.0;
      couple[a] = 0.0;
      if (!isl.active(a)) {
        c[a] = rhs[a] = 0.0;
        pre[a] = db[a] = 1.0;
        continue;
      }
      double lo = 0.0;
      double hi = 0.0;
      isl.bounds(a, lambda, lo, hi);
      const ConstraintRow& r = isl.row(a);
      const double d = r.diag + rowSoftness(opt, r);
      const RowEquation e = rowEquation(lambda[a], w[a], lo, hi, d);
      db[a] = std::max(e.db, kMinDb);
      c[a] = e.da / db[a];
      rhs[a] = -e.phi / db[a];
      pre[a] = 1.0 / (d + c[a]);
      rhsNorm += e.phi * e.phi;
      const int nrm = isl.normalOf(a);
      if (nrm >= 0 && lambda[nrm] > 0.0 && isl.active(nrm)) {
        couple[a] = r.mu * e.dWidth / db[a];
        coupled = coupled || std::abs(couple[a]) > 1e-12 * (d + c[a]);
      }
    }
    if (rhsNorm > 0.0) {
      // Inner iterations: up to krylovIterations per Newton step, and
      // kInnerBudget × maxIterations per solve, so that an island Newton
      // cannot settle costs a bounded multiple of projected Gauss–Seidel.
      const int limit = std::min(opt.krylovIterations, budget - out.inner);
      if (limit <= 0) break;
      out.inner += coupled ? gmres(isl, sc, limit, c, couple, db, rhs, dir)
                           : conjugateResidual(isl, sc, limit, c, db, pre, rhs, dir);
    }
    // w moves by A Δλ along the direction (softness included).
    delassusProduct(ws, sc, opt, i0, i1, dir, aDir);
    // Backtracking line search on ½‖φ‖².
    double step = 1.0;
    double thetaTrial = theta;
    double naturalTrial = natural;
    bool accepted = false;
    for (int b = 0; b < kMaxBacktracks; ++b, step *= 0.5) {
      for (int a = 0; a < n; ++a) {
        trial[a] = lambda[a] + step * dir[a];
        trial[n + a] = w[a] + step * aDir[a];
      }
      thetaTrial = isl.merit(trial, trial + n, naturalTrial);
      if (thetaTrial <= (1.0 - 2.0 * kArmijo * step) * theta) {
        accepted = true;
        break;
      }
    }
    if (!accepted && !(thetaTrial < theta)) {
      // Stalled (a kink of φ, or an inexact direction): a few projected
      // Gauss–Seidel sweeps move the iterate off it, then Newton resumes.
      if (fallbacks++ >= kMaxFallbacks) break;
      for (int a = 0; a < n; ++a) {
        ConstraintRow& r = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
        (position ? r.lambdaPosition : r.lambda) = lambda[a];
      }
      out.inner += gaussSeidelSweeps(ws, sc, opt, i0, i1, position, v, kFallbackSweeps);
      for (int a = 0; a < n; ++a) ws.pos[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])] = a;
      loadIsland(isl, ws, opt, position, v, lambda, w);
      theta = isl.merit(lambda, w, natural);
      continue;
    }
    for (int a = 0; a < n; ++a) {
      const double delta = trial[a] - lambda[a];
      lambda[a] = trial[a];
      w[a] = trial[n + a];
      if (delta != 0.0) {
        const ConstraintRow& r = isl.row(a);
        for (int k = 0; k < r.nside; ++k) {
          const RowSide& sd = r.side[k];
          for (int i = 0; i < sd.n; ++i) v[sd.vadr + i] += delta * ws.MJ[static_cast<std::size_t>(sd.offset + i)];
        }
      }
    }
    theta = thetaTrial;
    natural = naturalTrial;
  }
  for (int a = 0; a < n; ++a) {
    ConstraintRow& r = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
    (position ? r.lambdaPosition : r.lambda) = lambda[a];
  }
  out.residual = natural;
  return out;
}

}  // namespace articula::detail

// Dantzig-style principal pivoting: an island's dense Delassus matrix and
// its boxed LCP (see constraint.hpp and docs/contacts.md).
#include "constraint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Fixed-bound re-solves for friction (see pivotingIsland).
constexpr int kFrictionPasses = 12;

}  // namespace

// Pivoting on rows order[i0, i1). Returns false on failure (λ untouched).
bool pivotingIsland(const Model& m, ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt,
                    int i0, int i1, bool position, VectorXd& v, int& pivots) {
  const int n = i1 - i0;
  if (sc.A.rows() < n) sc.A.resize(n, n);
  growScratch(sc.b, n);
  growScratch(sc.lo, n);
  growScratch(sc.hi, n);
  growScratch(sc.lam, n);
  growScratch(sc.lamPrevious, n);
  auto A = sc.A.topLeftCorner(n, n);
  auto bv = sc.b.head(n);
  auto lo = sc.lo.head(n);
  auto hi = sc.hi.head(n);
  sc.findex.assign(static_cast<std::size_t>(n), -1);
  sc.mu.assign(static_cast<std::size_t>(n), 0.0);
  for (int a = 0; a < n; ++a) ws.pos[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])] = a;
  for (int a = 0; a < n; ++a) {
    const auto& ra = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
    for (int c = a; c < n; ++c) {
      const auto& rc = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + c)])];
      const double x = delassus(m, ws, ra, rc);
      A(a, c) = x;
      A(c, a) = x;
    }
    A(a, a) += rowSoftness(opt, ra);
    const bool active = ra.diag > 0.0 && (!position || ra.kind == RowKind::ContactNormal);
    bv[a] = rowDot(ra, ws.J, v) - (position ? ra.rhsPosition : ra.rhs);
    if (!active) {
      lo[a] = 0.0;
      hi[a] = 0.0;
    } else if (position) {
      lo[a] = 0.0;
      hi[a] = kInf;
    } else if (ra.normalRow >= 0) {
      sc.findex[static_cast<std::size_t>(a)] = ws.pos[static_cast<std::size_t>(ra.normalRow)];
      sc.mu[static_cast<std::size_t>(a)] = ra.mu;
      lo[a] = 0.0;
      hi[a] = 0.0;
    } else {
      lo[a] = ra.lo;
      hi[a] = ra.hi;
    }
  }
  auto lam = sc.lam.head(n);
  if (!pivotBoxedLcp(A, bv, lo, hi, sc.findex.data(), sc.mu.data(), lam, sc, pivots)) return false;
  if (!lam.allFinite()) return false;
  // Friction bounds depend on the normal impulses, which change while the
  // friction rows are pivoted in. Re-solve with the bounds fixed at μ·λn of
  // the previous solution until the normal impulses settle (each solve is
  // an exact boxed LCP).
  const bool anyFriction = std::any_of(sc.findex.begin(), sc.findex.end(), [](int f) { return f >= 0; });
  if (anyFriction) {
    auto previous = sc.lamPrevious.head(n);
    for (int pass = 0; pass < kFrictionPasses; ++pass) {
      previous = lam;
      for (int a = 0; a < n; ++a) {
        const int f = sc.findex[static_cast<std::size_t>(a)];
        if (f < 0) continue;
        const double bound = sc.mu[static_cast<std::size_t>(a)] * std::max(0.0, previous[f]);
        lo[a] = -bound;
        hi[a] = bound;
      }
      int more = 0;
      if (!pivotBoxedLcp(A, bv, lo, hi, nullptr, nullptr, lam, sc, more)) return false;
      pivots += more;
      if (!lam.allFinite()) return false;
      double change = 0.0;
      double scale = 0.0;
      for (int a = 0; a < n; ++a) {
        if (sc.findex[static_cast<std::size_t>(a)] >= 0) continue;
        change = std::max(change, std::abs(lam[a] - previous[a]));
        scale = std::max(scale, std::abs(lam[a]));
      }
      if (change <= 1e-9 * scale) break;
    }
  }
  for (int a = 0; a < n; ++a) {
    auto& r = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
    (position ? r.lambdaPosition : r.lambda) = lam[a];
    if (lam[a] != 0.0) rowApply(ws, r, lam[a], v);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Dantzig-style principal pivoting for the boxed LCP. Rows are brought in
// one at a time; each is driven towards complementarity while the rows
// already processed keep theirs, with the clamped set C (w = 0) and the
// sets at the lower / upper bound changing at the breakpoints. A Cholesky
// factor of A_CC is kept up to date: a bordered row to add, Givens
// rotations to remove, O(|C|²) each.

bool solveBoxedLcpPivoting(const MatrixXd& A, const VectorXd& b, VectorXd& lo, VectorXd& hi, const int* findex,
                           const double* mu, VectorXd& lambda, IslandScratch& sc, int& pivots) {
  lambda.resize(b.size());
  return pivotBoxedLcp(A, b, lo, hi, findex, mu, lambda, sc, pivots);
}

bool pivotBoxedLcp(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const VectorXd>& b, Eigen::Ref<VectorXd> lo,
                   Eigen::Ref<VectorXd> hi, const int* findex, const double* mu, Eigen::Ref<VectorXd> lambda,
                   IslandScratch& sc, int& pivots) {
  enum : int { kUnprocessed = 0, kClamped = 1, kLower = 2, kUpper = 3 };
  const int n = static_cast<int>(b.size());
  lambda.setZero();
  // Scratch vectors grow and are used through views of length n, so that
  // islands of changing sizes do not reallocate.
  growScratch(sc.w, n);
  growScratch(sc.dlam, n);
  growScratch(sc.dw, n);
  growScratch(sc.x, n);
  growScratch(sc.col, n);
  auto w = sc.w.head(n);
  w = b;
  auto& status = sc.status;
  status.assign(static_cast<std::size_t>(n), kUnprocessed);
  auto& C = sc.clamped;  // clamped indices, in the order of the factor L
  C.clear();
  MatrixXd& Lfac = sc.Lfac;
  if (Lfac.rows() < n) Lfac.resize(n, n);
  auto dl = sc.dlam.head(n);
  auto dw = sc.dw.head(n);
  auto x = sc.x.head(n);
  auto col = sc.col.head(n);
  const int maxPivots = 20 * n + 100;
  const double scale = std::max(1.0, A.diagonal().cwiseAbs().maxCoeff());
  const double eps = 1e-13 * scale;

  // L: Cholesky factor of A_CC (rows in the order of C).
  MatrixXd& L = Lfac;
  auto solveClamped = [&](int c) {  // x = A_CC⁻¹ col
    x.head(c) = col.head(c);
    L.topLeftCorner(c, c).triangularView<Eigen::Lower>().solveInPlace(x.head(c));
    L.topLeftCorner(c, c).triangularView<Eigen::Lower>().transpose().solveInPlace(x.head(c));
  };
  auto addClamped = [&](int k) -> bool {
    const int c = static_cast<int>(C.size());
    for (int a = 0; a < c; ++a) col[a] = A(C[static_cast<std::size_t>(a)], k);
    x.head(c) = col.head(c);
    L.topLeftCorner(c, c).triangularView<Eigen::Lower>().solveInPlace(x.head(c));
    const double d2 = A(k, k) - x.head(c).squaredNorm();
    if (!(d2 > 1e-13 * std::abs(A(k, k))) || !std::isfinite(d2)) return false;
    L.row(c).head(c) = x.head(c).transpose();
    L(c, c) = std::sqrt(d2);
    C.push_back(k);
    status[static_cast<std::size_t>(k)] = kClamped;
    return true;
  };
  auto removeClamped = [&](int r) {
    const int c = static_cast<int>(C.size());
    // Drop row r, then restore the lower-triangular shape with Givens
    // rotations on column pairs (L Lᵀ is unchanged by them).
    for (int i = r; i < c - 1; ++i) L.row(i).head(c) = L.row(i + 1).head(c);
    for (int i = r; i < c - 1; ++i) {
      const double a = L(i, i);
      const double bb = L(i, i + 1);
      const double rr = std::hypot(a, bb);
      if (rr == 0.0) continue;
      const double cs = a / rr;
      const double sn = bb / rr;
      for (int k = i; k < c - 1; ++k) {
        const double xi = L(k, i);
        const double yi = L(k, i + 1);
        L(k, i) = cs * xi + sn * yi;
        L(k, i + 1) = -sn * xi + cs * yi;
      }
    }
    C.erase(C.begin() + r);
  };

  pivots = 0;
  for (int i = 0; i < n; ++i) {
    if (findex != nullptr && findex[i] >= 0) {
      const double bound = mu[i] * std::max(0.0, lambda[findex[i]]);
      lo[i] = -bound;
      hi[i] = bound;
    }
    w[i] = A.row(i).dot(lambda) + b[i];
    if (lo[i] == 0.0 && hi[i] == 0.0) {
      status[static_cast<std::size_t>(i)] = kLower;
      continue;
    }
    if (std::abs(w[i]) <= eps) {
      if (!addClamped(i)) status[static_cast<std::size_t>(i)] = kLower;
      continue;
    }
    if (w[i] > 0.0 && lo[i] == 0.0) {
      status[static_cast<std::size_t>(i)] = kLower;
      continue;
    }
    if (w[i] < 0.0 && hi[i] == 0.0) {
      status[static_cast<std::size_t>(i)] = kUpper;
      continue;
    }
    const double dir = w[i] > 0.0 ? -1.0 : 1.0;
    for (;;) {
      if (++pivots > maxPivots) return false;
      const int c = static_cast<int>(C.size());
      // Direction: Δλ_i = dir, Δλ_C = −A_CC⁻¹ A_Ci dir, others 0.
      for (int a = 0; a < c; ++a) col[a] = A(C[static_cast<std::size_t>(a)], i);
      solveClamped(c);
      dl.setZero();
      dl[i] = dir;
      for (int a = 0; a < c; ++a) dl[C[static_cast<std::size_t>(a)]] = -dir * x[a];
      dw.noalias() = A.col(i) * dir;
      for (int a = 0; a < c; ++a)
        dw.noalias() += A.col(C[static_cast<std::size_t>(a)]) * dl[C[static_cast<std::size_t>(a)]];
      if (!(dir * dw[i] > eps * 1e-3) || !std::isfinite(dw[i])) return false;  // A not positive on this direction
      // Largest step before a breakpoint.
      double step = -w[i] / dw[i];
      int event = 0;  // 0: i reaches w = 0; 1: i reaches a bound; 2: clamped k leaves; 3: bounded k enters C
      int who = i;
      const double bound = dir > 0.0 ? hi[i] : lo[i];
      if (std::isfinite(bound)) {
        const double t = (bound - lambda[i]) / dir;
        if (t < step) {
          step = t;
          event = 1;
        }
      }
      for (int a = 0; a < c; ++a) {
        const int k = C[static_cast<std::size_t>(a)];
        if (dl[k] < -eps * 1e-3 && std::isfinite(lo[k])) {
          const double t = (lo[k] - lambda[k]) / dl[k];
          if (t < step) {
            step = t;
            event = 2;
            who = a;
          }
        } else if (dl[k] > eps * 1e-3 && std::isfinite(hi[k])) {
          const double t = (hi[k] - lambda[k]) / dl[k];
          if (t < step) {
            step = t;
            event = 2;
            who = a;
          }
        }
      }
      for (int k = 0; k < i; ++k) {
        const int st = status[static_cast<std::size_t>(k)];
        if (st == kLower && dw[k] < -eps * 1e-3 && !(lo[k] == 0.0 && hi[k] == 0.0)) {
          const double t = -w[k] / dw[k];
          if (t < step) {
            step = t;
            event = 3;
            who = k;
          }
        } else if (st == kUpper && dw[k] > eps * 1e-3 && !(lo[k] == 0.0 && hi[k] == 0.0)) {
          const double t = -w[k] / dw[k];
          if (t < step) {
            step = t;
            event = 3;
            who = k;
          }
        }
      }
      step = std::max(step, 0.0);
      lambda.noalias() += step * dl;
      w.noalias() += step * dw;
      if (event == 0) {
        w[i] = 0.0;
        if (!addClamped(i)) return false;
        break;
      }
      if (event == 1) {
        lambda[i] = bound;
        status[static_cast<std::size_t>(i)] = dir > 0.0 ? kUpper : kLower;
        break;
      }
      if (event == 2) {
        const int k = C[static_cast<std::size_t>(who)];
        const bool toLower = dl[k] < 0.0;
        lambda[k] = toLower ? lo[k] : hi[k];
        removeClamped(who);
        status[static_cast<std::size_t>(k)] = toLower ? kLower : kUpper;
      } else {
        w[who] = 0.0;
        if (!addClamped(who)) return false;
      }
    }
  }
  // Friction bounds follow the final normal impulses.
  if (findex != nullptr) {
    for (int i = 0; i < n; ++i) {
      if (findex[i] < 0) continue;
      const double bound = mu[i] * std::max(0.0, lambda[findex[i]]);
      lo[i] = -bound;
      hi[i] = bound;
      lambda[i] = std::clamp(lambda[i], -bound, bound);
    }
  }
  return true;
}

}  // namespace articula::detail

// Constraint rows, islands, and the two boxed-LCP methods (see constraint.hpp).
#include "constraint.hpp"

#include "algorithms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace articula::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Islands with more rows than this are solved by projected Gauss–Seidel
// even when pivoting is selected (the dense Delassus matrix grows as m²).
constexpr int kMaxPivotingRows = 600;
// Fixed-bound re-solves for friction (see pivotingIsland).
constexpr int kFrictionPasses = 12;

// Grows a scratch vector (never shrinks it: no reallocation for smaller islands).
void growTo(VectorXd& v, int n) {
  if (v.size() < n) v.resize(n);
}

bool isPivoting(const ConstraintSolverOptions& opt) {
  return opt.method == "direct-pivoting";
}

double segmentDot(const double* a, const double* b, int n) {
  if (n == 6) return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

void segmentAxpy(double* y, double s, const double* x, int n) {
  if (n == 6) {
    for (int i = 0; i < 6; ++i) y[i] += s * x[i];
    return;
  }
  for (int i = 0; i < n; ++i) y[i] += s * x[i];
}

// J_r · v (buf = ws.J) over the row's trees.
double rowDot(const ConstraintRow& r, const std::vector<double>& buf, const VectorXd& v) {
  double s = 0.0;
  for (int k = 0; k < r.nside; ++k) {
    const RowSide& sd = r.side[k];
    s += segmentDot(buf.data() + sd.offset, v.data() + sd.vadr, sd.n);
  }
  return s;
}

// v += scale · M̃⁻¹ J_rᵀ.
void rowApply(const ConstraintWorkspace& ws, const ConstraintRow& r, double scale, VectorXd& v) {
  for (int k = 0; k < r.nside; ++k) {
    const RowSide& sd = r.side[k];
    segmentAxpy(v.data() + sd.vadr, scale, ws.MJ.data() + sd.offset, sd.n);
  }
}

// A_ij = J_i M̃⁻¹ J_jᵀ over the trees the two rows share.
double delassus(const Model& m, const ConstraintWorkspace& ws, const ConstraintRow& ri, const ConstraintRow& rj) {
  double s = 0.0;
  for (int a = 0; a < ri.nside; ++a) {
    for (int b = 0; b < rj.nside; ++b) {
      if (ri.side[a].owner != rj.side[b].owner) continue;
      const int n = m.owner_nv[static_cast<std::size_t>(ri.side[a].owner)];
      const double* J = ws.J.data() + ri.side[a].offset;
      const double* MJ = ws.MJ.data() + rj.side[b].offset;
      for (int i = 0; i < n; ++i) s += J[i] * MJ[i];
    }
  }
  return s;
}

}  // namespace

// Softness regularises redundant contact sets; joint rows stay hard;
// bilateral rows carry their own (compliance or a relative regularisation).
double rowSoftness(const ConstraintSolverOptions& opt, const ConstraintRow& r) {
  switch (r.kind) {
    case RowKind::ContactNormal:
    case RowKind::ContactFriction:
      return opt.constraintForceMixing * r.diag;
    case RowKind::Bilateral:
      return r.compliance >= 0.0 ? r.compliance : -r.compliance * r.diag;
    default:
      return 0.0;
  }
}

namespace {

double softness(const ConstraintSolverOptions& opt, const ConstraintRow& r) {
  return rowSoftness(opt, r);
}

int findRoot(std::vector<int>& parent, int i) {
  while (parent[static_cast<std::size_t>(i)] != i) {
    auto& p = parent[static_cast<std::size_t>(i)];
    p = parent[static_cast<std::size_t>(p)];
    i = p;
  }
  return i;
}

// Tangent basis of a contact normal: t1 is world x projected on the
// tangent plane (world y when the normal is nearly along x), t2 = n × t1.
void tangentBasis(const Vector3d& n, Vector3d& t1, Vector3d& t2) {
  const Vector3d ref = std::abs(n.x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitY();
  t1 = (ref - ref.dot(n) * n).normalized();
  t2 = n.cross(t1);
}

// J_side · v for a packed side (6 DoF, the common case, unrolled).
inline double packedDot(const double* J, const double* v, int n) {
  if (n == 6) return kern::dot6(kern::load6(J), kern::load6(v));
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += J[i] * v[i];
  return s;
}

inline void packedAxpy(double* v, double s, const double* MJ, int n) {
  if (n == 6) {
    const kern::v2d k = kern::splat(s);
    const kern::V6 m = kern::load6(MJ);
    kern::V6 x = kern::load6(v);
    x.a += k * m.a;
    x.b += k * m.b;
    x.c += k * m.c;
    kern::store6(v, x);
    return;
  }
  for (int i = 0; i < n; ++i) v[i] += s * MJ[i];
}

// The natural residual |λ − clamp(λ − w/d)|·d of packed rows at the
// velocities v (boxedResidual's measure, on the packed copy).
double packedResidual(const PackedRow* rows, int count, const double* vd) {
  double worst = 0.0;
  for (int k = 0; k < count; ++k) {
    const PackedRow& p = rows[k];
    double lo = p.lo;
    double hi = p.hi;
    if (p.normal >= 0) {
      hi = p.mu * std::max(0.0, rows[p.normal].lambda);
      lo = -hi;
    }
    double w = p.soft * p.lambda - p.target + packedDot(p.J[0], vd + p.vadr[0], p.n[0]);
    if (p.nside == 2) w += packedDot(p.J[1], vd + p.vadr[1], p.n[1]);
    worst = std::max(worst, std::abs(p.lambda - std::clamp(p.lambda - w / p.den, lo, hi)) * p.den);
  }
  return worst;
}

// Projected Gauss–Seidel over rows order[i0, i1). `position` solves the
// split-impulse problem (normal rows only, targets rhsPosition). The rows
// are first packed in sweep order (sc.packed) with everything an update
// reads; the impulses are written back at the end.
int projectedGaussSeidel(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt, int i0, int i1,
                         bool position, VectorXd& v, double& residual, int maxSweeps = -1, double tolerance = -1.0) {
  auto& packed = sc.packed;
  packed.clear();
  sc.normalSlots.clear();
  auto takesPart = [&](const ConstraintRow& r) {
    return r.diag > 0.0 && (!position || r.kind == RowKind::ContactNormal);
  };
  int count = 0;
  for (int k = i0; k < i1; ++k) {
    const int index = ws.order[static_cast<std::size_t>(k)];
    ws.pos[static_cast<std::size_t>(index)] = takesPart(ws.rows[static_cast<std::size_t>(index)]) ? count++ : -1;
  }
  for (int k = i0; k < i1; ++k) {
    const int index = ws.order[static_cast<std::size_t>(k)];
    const auto& r = ws.rows[static_cast<std::size_t>(index)];
    if (!takesPart(r)) continue;
    PackedRow p{};
    p.nside = r.nside;
    for (int s = 0; s < r.nside; ++s) {
      p.J[s] = ws.J.data() + r.side[s].offset;
      p.MJ[s] = ws.MJ.data() + r.side[s].offset;
      p.vadr[s] = r.side[s].vadr;
      p.n[s] = r.side[s].n;
    }
    p.row = index;
    p.soft = softness(opt, r);
    p.den = r.diag + p.soft;
    p.invDen = 1.0 / p.den;
    p.normal = -1;
    p.mu = r.mu;
    if (position) {
      p.lo = 0.0;
      p.hi = kInf;
      p.lambda = r.lambdaPosition;
      p.target = r.rhsPosition;
    } else {
      // Friction bounded by a dropped normal row stays at zero.
      p.normal = r.normalRow >= 0 ? ws.pos[static_cast<std::size_t>(r.normalRow)] : -1;
      p.lo = r.normalRow >= 0 ? 0.0 : r.lo;
      p.hi = r.normalRow >= 0 ? 0.0 : r.hi;
      p.lambda = r.lambda;
      p.target = r.rhs;
    }
    if (r.kind == RowKind::ContactNormal) sc.normalSlots.push_back(static_cast<int>(packed.size()));
    packed.push_back(p);
  }
  // Backward sweeps visit the contact normal rows back to front; the other
  // rows (friction, limits, ...) keep their order and their place after the
  // normals they depend on.
  sc.backward.resize(packed.size());
  for (int k = 0; k < count; ++k) sc.backward[static_cast<std::size_t>(k)] = k;
  const auto nn = sc.normalSlots.size();
  for (std::size_t k = 0; k < nn; ++k)
    sc.backward[static_cast<std::size_t>(sc.normalSlots[k])] = sc.normalSlots[nn - 1 - k];

  int it = 0;
  residual = 0.0;
  const int maxIt = std::max(1, maxSweeps > 0 ? maxSweeps : opt.maxIterations);
  const double stop = tolerance >= 0.0 ? tolerance : opt.tolerance;
  // A solve whose residual is a thousandth of the tolerance every step is
  // judged by is done, as the Newton methods stop: stopping at the
  // tolerance itself leaves errors of one sign that let two leaning slabs
  // gain energy and fall (engine_contact_solvers, card house). `tolerance`
  // = 0 (a fixed number of sweeps) turns this off.
  const double residualStop = tolerance >= 0.0 ? -1.0 : 1e-3 * opt.convergenceTolerance;
  double* vd = v.data();
  PackedRow* rows = packed.data();
  for (it = 1; it <= maxIt; ++it) {
    double maxDelta = 0.0;
    double maxChange = 0.0;  // largest |Δλ|·(A_rr + softness): the in-sweep residual, m/s
    // Odd sweeps run front to back, even ones take the contact normals back
    // to front, so that a stack passes its load both ways every two sweeps.
    const int* order = it % 2 == 0 ? sc.backward.data() : nullptr;
    for (int kk = 0; kk < count; ++kk) {
      PackedRow& p = rows[order != nullptr ? order[kk] : kk];
      double lo = p.lo;
      double hi = p.hi;
      if (p.normal >= 0) {
        hi = p.mu * rows[p.normal].lambda;
        lo = -hi;
      }
      double w = p.soft * p.lambda - p.target + packedDot(p.J[0], vd + p.vadr[0], p.n[0]);
      if (p.nside == 2) w += packedDot(p.J[1], vd + p.vadr[1], p.n[1]);
      const double next = std::clamp(p.lambda - w * p.invDen, lo, hi);
      const double delta = next - p.lambda;
      if (delta != 0.0) {
        packedAxpy(vd + p.vadr[0], delta, p.MJ[0], p.n[0]);
        if (p.nside == 2) packedAxpy(vd + p.vadr[1], delta, p.MJ[1], p.n[1]);
        p.lambda = next;
        maxDelta = std::max(maxDelta, std::abs(delta));
        maxChange = std::max(maxChange, std::abs(delta) * p.den);
      }
    }
    residual = maxDelta;
    if (maxDelta <= stop) break;
    // The in-sweep value is measured while the sweep moves the velocities;
    // the residual at the end of the sweep decides.
    if (maxChange <= residualStop && packedResidual(rows, count, vd) <= residualStop) break;
  }
  for (const PackedRow& p : packed) {
    auto& r = ws.rows[static_cast<std::size_t>(p.row)];
    (position ? r.lambdaPosition : r.lambda) = p.lambda;
  }
  return std::min(it, maxIt);
}

// Pivoting on rows order[i0, i1). Returns false on failure (λ untouched).
bool pivotingIsland(const Model& m, ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt,
                    int i0, int i1, bool position, VectorXd& v, int& pivots) {
  const int n = i1 - i0;
  if (sc.A.rows() < n) sc.A.resize(n, n);
  growTo(sc.b, n);
  growTo(sc.lo, n);
  growTo(sc.hi, n);
  growTo(sc.lam, n);
  growTo(sc.lamPrevious, n);
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
    A(a, a) += softness(opt, ra);
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

}  // namespace

// ---------------------------------------------------------------------------
// Shared by the methods: the residual every step reports, and the
// matrix-free Delassus product of the Newton methods.

int gaussSeidelSweeps(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt, int i0, int i1,
                      bool position, VectorXd& v, int sweeps) {
  double residual = 0.0;
  return projectedGaussSeidel(ws, sc, opt, i0, i1, position, v, residual, sweeps, 0.0);
}

double boxedResidual(const ConstraintWorkspace& ws, const ConstraintSolverOptions& opt, int i0, int i1, bool position,
                     const VectorXd& v) {
  double worst = 0.0;
  for (int k = i0; k < i1; ++k) {
    const ConstraintRow& r = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(k)])];
    if (!(r.diag > 0.0) || (position && r.kind != RowKind::ContactNormal)) continue;
    const double soft = softness(opt, r);
    const double lambda = position ? r.lambdaPosition : r.lambda;
    double lo = r.lo;
    double hi = r.hi;
    if (position) {
      lo = 0.0;
      hi = kInf;
    } else if (r.normalRow >= 0) {
      hi = r.mu * std::max(0.0, ws.rows[static_cast<std::size_t>(r.normalRow)].lambda);
      lo = -hi;
    }
    const double w = rowDot(r, ws.J, v) + soft * lambda - (position ? r.rhsPosition : r.rhs);
    // The natural (projection) residual |λ − clamp(λ − w/d)|·d in velocity units.
    const double d = r.diag + soft;
    const double e = std::abs(lambda - std::clamp(lambda - w / d, lo, hi)) * d;
    worst = std::max(worst, e);
  }
  return worst;
}

void delassusProduct(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt, int i0, int i1,
                     const double* x, double* y) {
  VectorXd& dv = sc.dvScratch;
  const int n = i1 - i0;
  for (int a = 0; a < n; ++a) {
    if (x[a] == 0.0) continue;
    rowApply(ws, ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])], x[a], dv);
  }
  for (int a = 0; a < n; ++a) {
    const ConstraintRow& r = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
    y[a] = rowDot(r, ws.J, dv) + softness(opt, r) * x[a];
  }
  for (int a = 0; a < n; ++a) {
    const ConstraintRow& r = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
    for (int k = 0; k < r.nside; ++k) dv.segment(r.side[k].vadr, r.side[k].n).setZero();
  }
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
  growTo(sc.w, n);
  growTo(sc.dlam, n);
  growTo(sc.dw, n);
  growTo(sc.x, n);
  growTo(sc.col, n);
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

// ---------------------------------------------------------------------------
// Row construction

RowBuilder::RowBuilder(const Model& m, const Data& d, ConstraintWorkspace& ws) : m_(m), d_(d), ws_(ws) {}

int RowBuilder::row(RowKind kind, int source) {
  ws_.rows.emplace_back();
  auto& r = ws_.rows.back();
  r.kind = kind;
  r.source = source;
  return static_cast<int>(ws_.rows.size()) - 1;
}

ConstraintRow& RowBuilder::at(int r) {
  return ws_.rows[static_cast<std::size_t>(r)];
}

double* RowBuilder::side(int r, int owner) {
  auto& R = ws_.rows[static_cast<std::size_t>(r)];
  for (int s = 0; s < R.nside; ++s)
    if (R.side[s].owner == owner) return ws_.J.data() + R.side[s].offset;
  const int nv = m_.owner_nv[static_cast<std::size_t>(owner)];
  const int offset = static_cast<int>(ws_.J.size());
  if (nv <= 8) {
    for (int k = 0; k < nv; ++k) ws_.J.push_back(0.0);  // cheaper than resize's fill-insert for a few entries
  } else {
    ws_.J.resize(ws_.J.size() + static_cast<std::size_t>(nv), 0.0);
  }
  R.side[R.nside].owner = owner;
  R.side[R.nside].offset = offset;
  R.side[R.nside].vadr = m_.owner_vadr[static_cast<std::size_t>(owner)];
  R.side[R.nside].n = nv;
  ++R.nside;
  return ws_.J.data() + offset;
}

void RowBuilder::pointTerm(int r, int body, const Vector3d& p, const Vector3d& dir, double sign) {
  if (body < 0 || !m_.body_movable[static_cast<std::size_t>(body)]) return;
  const auto bb = static_cast<std::size_t>(body);
  const int owner = m_.body_owner[bb];
  const int vadr0 = m_.owner_vadr[static_cast<std::size_t>(owner)];
  const Vector3d mom = (p - d_.Ow[bb]).cross(dir);
  double* J = side(r, owner);
  if (m_.body_parent[bb] < 0 && m_.jnt_nv[bb] == 6 && m_.owner_nv[static_cast<std::size_t>(owner)] == 6) {
    // A lone six-DoF body (rigid bodies, free one-link multibodies): one
    // side of six entries, the same sums as the general loop below.
    const int va = m_.jnt_vadr[bb];
    for (int k = 0; k < 6; ++k) {
      const double* s = d_.Sw.col(va + k).data();
      J[k] += sign *
              ((mom.x() * s[0] + mom.y() * s[1] + mom.z() * s[2]) + (dir.x() * s[3] + dir.y() * s[4] + dir.z() * s[5]));
    }
    return;
  }
  for (int b = body; b >= 0; b = m_.body_parent[static_cast<std::size_t>(b)]) {
    const auto bi = static_cast<std::size_t>(b);
    const int va = m_.jnt_vadr[bi];
    for (int k = 0; k < m_.jnt_nv[bi]; ++k) {
      const auto s = d_.Sw.col(va + k);
      J[va + k - vadr0] += sign * (mom.dot(s.head<3>()) + dir.dot(s.tail<3>()));
    }
  }
}

void RowBuilder::angularTerm(int r, int body, const Vector3d& axis, double sign) {
  if (body < 0 || !m_.body_movable[static_cast<std::size_t>(body)]) return;
  const auto bb = static_cast<std::size_t>(body);
  const int owner = m_.body_owner[bb];
  const int vadr0 = m_.owner_vadr[static_cast<std::size_t>(owner)];
  double* J = side(r, owner);
  for (int b = body; b >= 0; b = m_.body_parent[static_cast<std::size_t>(b)]) {
    const auto bi = static_cast<std::size_t>(b);
    const int va = m_.jnt_vadr[bi];
    for (int k = 0; k < m_.jnt_nv[bi]; ++k) J[va + k - vadr0] += sign * axis.dot(d_.Sw.col(va + k).head<3>());
  }
}

void RowBuilder::dofTerm(int r, int dof, double coefficient) {
  const int body = m_.dof_body[static_cast<std::size_t>(dof)];
  const int owner = m_.body_owner[static_cast<std::size_t>(body)];
  side(r, owner)[dof - m_.owner_vadr[static_cast<std::size_t>(owner)]] += coefficient;
}

void RowBuilder::drop(int r) {
  if (r + 1 != static_cast<int>(ws_.rows.size())) return;  // only the last row
  const auto& R = ws_.rows.back();
  if (R.nside > 0) ws_.J.resize(static_cast<std::size_t>(R.side[0].offset));
  ws_.rows.pop_back();
}

// ---------------------------------------------------------------------------

void buildStandardRows(const Model& m, const Data& d, const ConstraintSolverOptions& opt, double h, const VectorXd& q,
                       const VectorXd& vOld, const VectorXd& v, ConstraintWorkspace& ws) {
  ws.rows.clear();
  ws.J.clear();
  const auto np = ws.points.size();
  ws.pointNormalRow.assign(np, -1);
  ws.pointFirstFriction.assign(np, -1);
  ws.pointTangent1.resize(np);
  ws.pointTangent2.resize(np);
  RowBuilder B(m, d, ws);
  const bool split = opt.errorCorrection == ErrorCorrection::SplitImpulse;
  const int nFriction = frictionRowCount(opt);

  // Contact normals.
  for (std::size_t c = 0; c < np; ++c) {
    const ContactPoint& cp = ws.points[c];
    const auto sa = static_cast<std::size_t>(cp.shapeA);
    const auto sb = static_cast<std::size_t>(cp.shapeB);
    const int bA = m.shape_body[sa];
    const int bB = m.shape_body[sb];
    const bool movA = bA >= 0 && m.body_movable[static_cast<std::size_t>(bA)];
    const bool movB = bB >= 0 && m.body_movable[static_cast<std::size_t>(bB)];
    if (!movA && !movB) continue;
    const Vector3d p = 0.5 * (cp.pointA + cp.pointB);
    const Vector3d& n = cp.normal;
    const int r = B.row(RowKind::ContactNormal, static_cast<int>(c));
    B.pointTerm(r, bA, p, n, 1.0);
    B.pointTerm(r, bB, p, n, -1.0);
    auto& R = ws.rows[static_cast<std::size_t>(r)];
    if (R.nside == 0) {
      B.drop(r);
      continue;
    }
    const double restitution = std::max(m.shape_restitution[sa], m.shape_restitution[sb]);
    const double vnBefore = rowDot(R, ws.J, vOld);
    const double dist = cp.distance;
    const bool impact = restitution > 0.0 && -vnBefore > opt.restitutionThreshold;
    if (dist > 0.0 && impact) {
      // Let a bouncing body reach the surface; the impact is resolved on touch.
      B.drop(r);
      continue;
    }
    R.lo = 0.0;
    R.hi = kInf;
    if (dist > 0.0) {
      R.rhs = -dist / h;  // speculative: may close the gap, not more
    } else {
      const double correction =
          std::min(opt.maxCorrectionVelocity, opt.errorReduction * std::max(0.0, -dist - opt.allowedPenetration) / h);
      R.rhs = split ? 0.0 : correction;
      R.rhsPosition = split ? correction : 0.0;
    }
    if (impact) R.rhs = std::max(R.rhs, -restitution * vnBefore);
    ws.pointNormalRow[c] = r;
    tangentBasis(n, ws.pointTangent1[c], ws.pointTangent2[c]);
  }
  // Friction rows.
  for (std::size_t c = 0; c < np; ++c) {
    const int nr = ws.pointNormalRow[c];
    if (nr < 0) continue;
    const ContactPoint& cp = ws.points[c];
    const auto sa = static_cast<std::size_t>(cp.shapeA);
    const auto sb = static_cast<std::size_t>(cp.shapeB);
    const double mu = std::sqrt(m.shape_friction[sa] * m.shape_friction[sb]);
    if (!(mu > 0.0)) continue;
    const Vector3d p = 0.5 * (cp.pointA + cp.pointB);
    // N two-sided rows bounded by b each span a regular 2N-gon of friction
    // forces (a zonotope) whose inscribed radius is b·cot(π/2N); with
    // b = μλn·tan(π/2N) the polygon circumscribes the Coulomb circle
    // (N = 2: the box |f₁|, |f₂| ≤ μλn).
    const double rowMu = mu * std::tan(std::numbers::pi / (2.0 * nFriction));
    ws.pointFirstFriction[c] = static_cast<int>(ws.rows.size());
    for (int k = 0; k < nFriction; ++k) {
      const Vector3d t = frictionDirection(ws.pointTangent1[c], ws.pointTangent2[c], k, nFriction);
      const int r = B.row(RowKind::ContactFriction, static_cast<int>(c));
      B.pointTerm(r, m.shape_body[sa], p, t, 1.0);
      B.pointTerm(r, m.shape_body[sb], p, t, -1.0);
      auto& R = ws.rows[static_cast<std::size_t>(r)];
      R.normalRow = nr;
      R.mu = rowMu;
    }
  }
  // Joint position limits (vector joints), velocity limits, Coulomb friction.
  for (const int dof : m.limitDofs) {
    const auto body = static_cast<std::size_t>(m.dof_body[static_cast<std::size_t>(dof)]);
    const double qi = q[m.jnt_qadr[body] + (dof - m.jnt_vadr[body])];
    const double vs = v[dof];
    const double upper = m.dof_upperLimit[dof];
    const double lower = m.dof_lowerLimit[dof];
    if (std::isfinite(upper) && (qi + h * vs > upper || qi > upper)) {
      const double gap = upper - qi;
      const int r = B.row(RowKind::PositionLimit, dof);
      B.dofTerm(r, dof);
      auto& R = ws.rows[static_cast<std::size_t>(r)];
      R.lo = -kInf;
      R.hi = 0.0;
      R.rhs = gap >= 0.0 ? gap / h : opt.limitErrorReduction * gap / h;
    }
    if (std::isfinite(lower) && (qi + h * vs < lower || qi < lower)) {
      const double gap = lower - qi;
      const int r = B.row(RowKind::PositionLimit, dof);
      B.dofTerm(r, dof);
      auto& R = ws.rows[static_cast<std::size_t>(r)];
      R.lo = 0.0;
      R.hi = kInf;
      R.rhs = gap <= 0.0 ? gap / h : opt.limitErrorReduction * gap / h;
    }
  }
  for (const int dof : m.velocityLimitDofs) {
    const double vmax = m.dof_velocityLimit[dof];
    if (v[dof] > vmax) {
      const int r = B.row(RowKind::VelocityLimit, dof);
      B.dofTerm(r, dof);
      auto& R = ws.rows[static_cast<std::size_t>(r)];
      R.lo = -kInf;
      R.hi = 0.0;
      R.rhs = vmax;
    } else if (v[dof] < -vmax) {
      const int r = B.row(RowKind::VelocityLimit, dof);
      B.dofTerm(r, dof);
      auto& R = ws.rows[static_cast<std::size_t>(r)];
      R.lo = 0.0;
      R.hi = kInf;
      R.rhs = -vmax;
    }
  }
  for (const int dof : m.frictionDofs) {
    const int r = B.row(RowKind::JointFriction, dof);
    B.dofTerm(r, dof);
    auto& R = ws.rows[static_cast<std::size_t>(r)];
    R.hi = m.dof_coulombFriction[dof] * h;
    R.lo = -R.hi;
  }
}

namespace {

// One island's solve (both phases), for the sequential loop and for an
// executor's workers.
struct IslandTask {
  const Model& m;
  Data& d;
  const ConstraintSolverOptions& opt;
  VectorXd& v;
  ConstraintWorkspace& ws;
  bool anyPosition;
  bool pivoting;
  bool newton;
  bool convex;

  static void run(void* self, int index, int worker) { static_cast<IslandTask*>(self)->solve(index, worker); }

  void solve(int index, int worker) {
    const auto isl = static_cast<std::size_t>(ws.islandRoots[static_cast<std::size_t>(index)]);
    IslandScratch& sc = ws.scratch(worker);
    IslandOutcome& out = ws.islandOutcomes[static_cast<std::size_t>(index)];
    out = IslandOutcome{};
    const int i0 = ws.islandStart[isl];
    const int i1 = ws.islandStart[isl + 1];
    for (int phase = 0; phase < (anyPosition ? 2 : 1); ++phase) {
      const bool position = phase == 1;
      VectorXd& target = position ? ws.vPos : v;
      double residual = 0.0;
      if (newton || convex) {
        const IslandSolve s =
            newton ? nonsmoothNewtonIsland(ws, sc, opt, i0, i1, position, target)
                   : convexIsland(m, d, ws, sc, opt, i0, i1, position, position ? ws.vZero : ws.vStar, target);
        out.newton[phase] = s.iterations;
        out.inner += s.inner;
        out.residual = std::max(out.residual, s.residual);
        continue;
      }
      bool solved = false;
      const bool direct = pivoting || ws.islandBilateral[isl] != 0;
      if (direct && i1 - i0 <= kMaxPivotingRows) {
        int pivots = 0;
        solved = pivotingIsland(m, ws, sc, opt, i0, i1, position, target, pivots);
        out.pivots[phase] = pivots;
        if (!solved) out.fallback = out.degenerate = true;
      } else if (direct) {
        out.fallback = true;
        out.tooLarge = std::max(out.tooLarge, i1 - i0);
      }
      if (!solved) {
        const int it = projectedGaussSeidel(ws, sc, opt, i0, i1, position, target, residual);
        out.sweeps[phase] = it;
      }
      out.residual = std::max(out.residual, boxedResidual(ws, opt, i0, i1, position, target));
    }
  }
};

}  // namespace

ConstraintResult solveRows(const Model& m, Data& d, const ConstraintSolverOptions& opt, VectorXd& v,
                           ConstraintWorkspace& ws, Executor* executor) {
  ConstraintResult result;
  const auto np = ws.points.size();
  const int nFriction = frictionRowCount(opt);
  const int nrows = static_cast<int>(ws.rows.size());
  result.rows = nrows;
  ws.vPos.setZero(m.nv);
  if (nrows == 0) return result;

  // Responses M̃⁻¹ J_rᵀ and diagonals.
  ws.MJ.assign(ws.J.size(), 0.0);
  for (auto& R : ws.rows) {
    R.diag = 0.0;
    for (int s = 0; s < R.nside; ++s) {
      const auto o = static_cast<std::size_t>(R.side[s].owner);
      const int b0 = m.owner_bodyadr[o];
      articulatedImpulseResponse(m, d, b0, b0 + m.owner_nbody[o], m.owner_vadr[o], ws.J.data() + R.side[s].offset,
                                 ws.MJ.data() + R.side[s].offset);
    }
    R.diag = delassus(m, ws, R, R);
    if (!(R.diag > 1e-14) || !std::isfinite(R.diag)) R.diag = 0.0;  // immovable: the row is dropped
  }

  // Islands: trees connected by rows.
  const auto nowner = m.owner_kind.size();
  ws.ownerParent.resize(nowner);
  for (std::size_t o = 0; o < nowner; ++o) ws.ownerParent[o] = static_cast<int>(o);
  for (const auto& R : ws.rows) {
    if (R.nside == 2) {
      const int a = findRoot(ws.ownerParent, R.side[0].owner);
      const int c = findRoot(ws.ownerParent, R.side[1].owner);
      if (a != c) ws.ownerParent[static_cast<std::size_t>(std::max(a, c))] = std::min(a, c);
    }
  }
  ws.rowIsland.resize(static_cast<std::size_t>(nrows));
  ws.islandStart.assign(nowner + 1, 0);
  for (int r = 0; r < nrows; ++r) {
    const int isl = findRoot(ws.ownerParent, ws.rows[static_cast<std::size_t>(r)].side[0].owner);
    ws.rowIsland[static_cast<std::size_t>(r)] = isl;
    ++ws.islandStart[static_cast<std::size_t>(isl) + 1];
  }
  for (std::size_t o = 0; o < nowner; ++o) ws.islandStart[o + 1] += ws.islandStart[o];
  ws.order.resize(static_cast<std::size_t>(nrows));
  ws.pos.assign(static_cast<std::size_t>(nrows), 0);
  {
    auto& next = ws.islandCursor;
    next.assign(ws.islandStart.begin(), ws.islandStart.end() - 1);
    for (int r = 0; r < nrows; ++r) {
      const auto isl = static_cast<std::size_t>(ws.rowIsland[static_cast<std::size_t>(r)]);
      ws.order[static_cast<std::size_t>(next[isl]++)] = r;
    }
  }

  // Islands made of bilateral rows only (closures, couplers) are solved
  // directly by the two boxed-LCP methods: projected Gauss–Seidel converges
  // slowly on stiff coupled equality rows, and their Delassus block is small.
  // The Newton methods solve them like any other island.
  const bool pivoting = isPivoting(opt);
  const bool newton = opt.method == "nonsmooth-newton";
  const bool convex = opt.method == "convex";
  ws.islandBilateral.assign(nowner, newton || convex ? 0 : 1);
  for (int r = 0; r < nrows; ++r) {
    if (ws.rows[static_cast<std::size_t>(r)].kind != RowKind::Bilateral)
      ws.islandBilateral[static_cast<std::size_t>(ws.rowIsland[static_cast<std::size_t>(r)])] = 0;
  }
  // Warm start (every method but pivoting).
  for (int r = 0; r < nrows; ++r) {
    auto& R = ws.rows[static_cast<std::size_t>(r)];
    const bool direct = ws.islandBilateral[static_cast<std::size_t>(ws.rowIsland[static_cast<std::size_t>(r)])] != 0;
    R.lambda = (!pivoting && !direct && opt.warmStart && R.diag > 0.0) ? R.warm : 0.0;
    R.lambdaPosition = 0.0;
  }
  if (!pivoting && opt.warmStart) {
    for (std::size_t c = 0; c < np; ++c) {
      const int nr = ws.pointNormalRow[c];
      if (nr < 0 || ws.points[c].cache == nullptr) continue;
      double ln = 0.0;
      double f1 = 0.0;
      double f2 = 0.0;
      CollisionDetector::loadImpulse(ws.points[c].cache, ln, f1, f2);
      if (!std::isfinite(ln) || !std::isfinite(f1) || !std::isfinite(f2)) continue;
      auto& N = ws.rows[static_cast<std::size_t>(nr)];
      if (N.diag <= 0.0) continue;
      N.lambda = std::max(0.0, ln);
      const int f0 = ws.pointFirstFriction[c];
      if (f0 >= 0) {
        const Vector3d F = f1 * ws.pointTangent1[c] + f2 * ws.pointTangent2[c];
        for (int k = 0; k < nFriction; ++k) {
          auto& Fr = ws.rows[static_cast<std::size_t>(f0 + k)];
          if (Fr.diag <= 0.0) continue;
          const Vector3d t = frictionDirection(ws.pointTangent1[c], ws.pointTangent2[c], k, nFriction);
          const double bound = Fr.mu * N.lambda;
          Fr.lambda = std::clamp(2.0 / nFriction * t.dot(F), -bound, bound);
        }
      }
    }
    for (const auto& R : ws.rows)
      if (R.lambda != 0.0) rowApply(ws, R, R.lambda, v);
  }

  // Solve island by island: each island's rows touch only its own trees'
  // velocities and rows, so islands run at the same time on an executor's
  // workers, each with its own scratch. The outcome is reduced in island
  // order, so it does not depend on which worker solved which island.
  bool anyPosition = false;
  for (const auto& R : ws.rows) anyPosition = anyPosition || (R.rhsPosition > 0.0 && R.diag > 0.0);
  if (convex) {
    ws.ownerLocal.assign(nowner, -1);
    ws.minvOffset.resize(nowner);
    ws.blockOffset.resize(nowner);
  }
  if ((newton || convex) && anyPosition) ws.vZero.setZero(m.nv);
  ws.islandRoots.clear();
  ws.islandRoots.reserve(nowner);  // no step allocates for a new largest island count
  ws.islandOutcomes.reserve(nowner);
  for (std::size_t isl = 0; isl < nowner; ++isl) {
    if (ws.islandStart[isl] != ws.islandStart[isl + 1]) ws.islandRoots.push_back(static_cast<int>(isl));
  }
  const int nIslands = static_cast<int>(ws.islandRoots.size());
  ws.islandOutcomes.resize(static_cast<std::size_t>(nIslands));
  const int workers = executor != nullptr && nIslands > 1 ? std::max(1, executor->concurrency()) : 1;
  if (static_cast<int>(ws.workers.size()) < workers) ws.workers.resize(static_cast<std::size_t>(workers));
  if (newton || convex) {
    for (int k = 0; k < workers; ++k) {
      IslandScratch& sc = ws.scratch(k);
      growTo(sc.dvScratch, m.nv);
      sc.dvScratch.head(m.nv).setZero();
    }
  }
  IslandTask task{m, d, opt, v, ws, anyPosition, pivoting, newton, convex};
  if (workers > 1) {
    executor->parallelFor(nIslands, &IslandTask::run, &task);
  } else {
    for (int k = 0; k < nIslands; ++k) task.solve(k, 0);
  }
  result.islands = nIslands;
  for (const IslandOutcome& o : ws.islandOutcomes) {
    // Iterations: the most Newton iterations or sweeps an island took, plus
    // the pivots (in island and phase order, as the solves ran).
    for (int phase = 0; phase < 2; ++phase) {
      if (o.newton[phase] >= 0) result.iterations = std::max(result.iterations, o.newton[phase]);
      if (o.pivots[phase] >= 0) result.iterations += o.pivots[phase];
      if (o.sweeps[phase] >= 0) result.iterations = std::max(result.iterations, o.sweeps[phase]);
    }
    result.inner += o.inner;
    result.residual = std::max(result.residual, o.residual);
    result.fallback = result.fallback || o.fallback;
    result.degenerate = result.degenerate || o.degenerate;
    result.largestTooLarge = std::max(result.largestTooLarge, o.tooLarge);
  }
  return result;
}

}  // namespace articula::detail

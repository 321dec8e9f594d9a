// Constraint rows' products, the residual every step reports, islands,
// and the solve that dispatches each island to its method (see
// constraint.hpp). Row construction is in constraint_rows.cpp, projected
// Gauss–Seidel in projected_gauss_seidel.cpp, pivoting in
// boxed_lcp_pivoting.cpp, the Newton methods in nonsmooth_newton.cpp and
// convex_solver.cpp.
#include "constraint.hpp"

#include "algorithms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

}  // namespace

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

int findRoot(std::vector<int>& parent, int i) {
  while (parent[static_cast<std::size_t>(i)] != i) {
    auto& p = parent[static_cast<std::size_t>(i)];
    p = parent[static_cast<std::size_t>(p)];
    i = p;
  }
  return i;
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
    const double soft = rowSoftness(opt, r);
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
    y[a] = rowDot(r, ws.J, dv) + rowSoftness(opt, r) * x[a];
  }
  for (int a = 0; a < n; ++a) {
    const ConstraintRow& r = ws.rows[static_cast<std::size_t>(ws.order[static_cast<std::size_t>(i0 + a)])];
    for (int k = 0; k < r.nside; ++k) dv.segment(r.side[k].vadr, r.side[k].n).setZero();
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
      growScratch(sc.dvScratch, m.nv);
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

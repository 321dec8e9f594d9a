// Projected Gauss–Seidel on an island's rows (see constraint.hpp and
// docs/contacts.md, "Islands and methods").
#include "constraint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

// A packed row's bounds (friction rows: ±μ·λ of their normal row) and its
// velocity error w = J v − target + softness·λ at the velocities vd.
inline double packedError(const PackedRow& p, const PackedRow* rows, const double* vd, double& lo, double& hi) {
  lo = p.lo;
  hi = p.hi;
  if (p.normal >= 0) {
    hi = p.mu * rows[p.normal].lambda;  // ≥ 0: normal rows are bounded below by 0
    lo = -hi;
  }
  double w = p.soft * p.lambda - p.target + packedDot(p.J[0], vd + p.vadr[0], p.n[0]);
  if (p.nside == 2) w += packedDot(p.J[1], vd + p.vadr[1], p.n[1]);
  return w;
}

// The natural residual |λ − clamp(λ − w/d)|·d of packed rows at the
// velocities v (boxedResidual's measure, on the packed copy).
double packedResidual(const PackedRow* rows, int count, const double* vd) {
  double worst = 0.0;
  for (int k = 0; k < count; ++k) {
    const PackedRow& p = rows[k];
    double lo = 0.0;
    double hi = 0.0;
    const double w = packedError(p, rows, vd, lo, hi);
    worst = std::max(worst, std::abs(p.lambda - std::clamp(p.lambda - w / p.den, lo, hi)) * p.den);
  }
  return worst;
}

}  // namespace

// Projected Gauss–Seidel over rows order[i0, i1). `position` solves the
// split-impulse problem (normal rows only, targets rhsPosition). The rows
// are first packed in sweep order (sc.packed) with everything an update
// reads; the impulses are written back at the end.
int projectedGaussSeidel(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt, int i0, int i1,
                         bool position, VectorXd& v, double& residual, int maxSweeps, double tolerance) {
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
    p.soft = rowSoftness(opt, r);
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
      double lo = 0.0;
      double hi = 0.0;
      const double w = packedError(p, rows, vd, lo, hi);
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

}  // namespace articula::detail

// The convex method for one island (constraint.hpp), after Castro et al.,
// "An unconstrained convex formulation of compliant contact" (SAP), IEEE
// T-RO 2022.
//
// The island's velocities v minimise
//   ℓ(v) = ½ (v − v_f)ᵀ M̃ (v − v_f) + Σ_g ℓ_g(J_g v),
// v_f the velocities without the rows. A constraint group g is a contact
// (its normal row and two orthogonal friction rows, a circular Coulomb
// cone of coefficient μ) or a single row (limits, joint friction,
// closures, couplers, locks) with bounds [lo, hi]. With a diagonal
// regularisation R_g and the rows' velocity targets v̂_g,
//   y_g = −R_g⁻¹ (J_g v − v̂_g),  γ_g = P_g(y_g),  ℓ_g = γ_gᵀ R_g y_g − ½ γ_gᵀ R_g γ_g,
// where P_g projects onto the cone (in the R-norm) or clamps into [lo, hi],
// so that ∂ℓ_g/∂v_c = −γ_g: the impulses. R is the row's own softness plus
// a regularisation R_p (convexRegularization of the Delassus diagonal for
// contacts, 1e-3 of that for the other rows) whose pull is centred on the
// impulses the step starts from (warm start): y_g = −R⁻¹(J_g v − v̂_g −
// R_p γ_c). A resting contact, whose impulse repeats from step to step,
// thus carries no regularisation error (a heavy box on a light one does not
// sink), while each step remains one strictly convex problem. ℓ is strictly convex (M̃ is
// positive definite), so the minimiser is unique and Newton's method with
// an exact line search converges from any start. The Hessian
// H = M̃ + Σ J_gᵀ G_g J_g, G_g = −∂γ_g/∂v_c, is factored densely for islands
// of up to kDenseDofs DoFs and solved by conjugate gradients with a
// block-diagonal (per tree) preconditioner beyond.
//
// Convergence is measured in velocities: |M̃⁻¹ ∇ℓ|∞ is how far v is from
// v_f + M̃⁻¹ Jᵀ γ(v), the velocities the impulses produce.
#include "algorithms.hpp"
#include "constraint.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <limits>

namespace articula::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kDenseDofs = 480;
constexpr int kMaxLineSearch = 40;
// The iteration stops at this fraction of ConstraintSolverOptions::convergenceTolerance.
constexpr double kTargetFraction = 0.1;
// Rows other than contacts (limits, joint friction, closures, couplers,
// locks) act on single trees, where a stiff row costs the solve nothing:
// their regularisation is this fraction of the contacts'.
constexpr double kJointRowStiffening = 1e-3;
// Proximal passes per solve at most (each a convex problem, warm-started).
constexpr int kMaxProximalPasses = 1;

void growTo(VectorXd& v, int n) {
  if (v.size() < n) v.resize(n);
}

class ConvexIsland {
 public:
  ConvexIsland(const Model& m, Data& d, ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt,
               int i0, int i1, bool position)
      : m_(m), d_(d), ws_(ws), sc_(sc), opt_(opt), i0_(i0), n_(i1 - i0), position_(position) {}

  IslandSolve solve(const VectorXd& vFree, VectorXd& v);

 private:
  const ConstraintRow& row(int a) const {
    return ws_.rows[static_cast<std::size_t>(ws_.order[static_cast<std::size_t>(i0_ + a)])];
  }
  ConstraintRow& row(int a) { return ws_.rows[static_cast<std::size_t>(ws_.order[static_cast<std::size_t>(i0_ + a)])]; }
  bool active(int a) const {
    const ConstraintRow& r = row(a);
    return r.diag > 0.0 && (!position_ || r.kind == RowKind::ContactNormal);
  }
  void collectOwners();
  void computeMasses();
  void buildGroups();
  double rowVelocity(int a, const double* x) const;
  void addRowTranspose(int a, double s, double* g) const;
  // γ, G and the cost of every group at row velocities vc (island-indexed).
  double project(const double* vc, double* gamma, double* G) const;
  void blockTimes(const std::vector<double>& blocks, const double* x, double* y) const;
  void massTimes(const double* x, double* y) const { blockTimes(sc_.mass, x, y); }
  void massInverseTimes(const double* x, double* y) const { blockTimes(sc_.minv, x, y); }
  int solveDense(const double* G, const double* g, double* dx);
  int solveIterative(const double* G, const double* g, double* dx);
  void hessianTimes(const double* G, const double* x, double* y, double* vcScratch) const;
  // Calls add(side_i, side_j, G_ij) for every term J_iᵀ G_ij J_j of the
  // Hessian's constraint part: rows i, j of a group, and their tree sides.
  template <class Add>
  void forEachHessianTerm(const double* G, Add&& add) const;

  const Model& m_;
  Data& d_;
  ConstraintWorkspace& ws_;
  IslandScratch& sc_;
  const ConstraintSolverOptions& opt_;
  int i0_;
  int n_;
  bool position_;
  int N_ = 0;  // island DoFs
  int groups_ = 0;
};

void ConvexIsland::collectOwners() {
  auto& local = ws_.ownerLocal;
  auto& owners = sc_.islandOwners;
  owners.clear();
  N_ = 0;
  for (int a = 0; a < n_; ++a) {
    const ConstraintRow& r = row(a);
    for (int k = 0; k < r.nside; ++k) {
      const auto o = static_cast<std::size_t>(r.side[k].owner);
      if (local[o] >= 0) continue;
      local[o] = N_;
      N_ += r.side[k].n;
      owners.push_back(r.side[k].owner);
    }
  }
}

// Dense M̃⁻¹ of every tree from its articulated-body impulse responses
// (column k = M̃⁻¹ e_k), and M̃ by inverting it.
void ConvexIsland::computeMasses() {
  std::size_t total = 0;
  for (const int o : sc_.islandOwners) {
    const auto n = static_cast<std::size_t>(m_.owner_nv[static_cast<std::size_t>(o)]);
    ws_.minvOffset[static_cast<std::size_t>(o)] = static_cast<int>(total);
    total += n * n;
  }
  if (sc_.minv.size() < total) sc_.minv.resize(total);
  if (sc_.mass.size() < total) sc_.mass.resize(total);
  growTo(sc_.cDv, 2 * N_);
  for (const int o : sc_.islandOwners) {
    const auto oo = static_cast<std::size_t>(o);
    const int n = m_.owner_nv[oo];
    const int b0 = m_.owner_bodyadr[oo];
    double* minv = sc_.minv.data() + ws_.minvOffset[oo];
    double* unit = sc_.cDv.data();
    for (int i = 0; i < n; ++i) unit[i] = 0.0;
    for (int k = 0; k < n; ++k) {
      unit[k] = 1.0;
      articulatedImpulseResponse(m_, d_, b0, b0 + m_.owner_nbody[oo], m_.owner_vadr[oo], unit, minv + k * n);
      unit[k] = 0.0;
    }
    // Symmetrize (round-off), then M̃ = (M̃⁻¹)⁻¹ through a Cholesky factor
    // kept in scratch.
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const double s = 0.5 * (minv[i * n + j] + minv[j * n + i]);
        minv[i * n + j] = minv[j * n + i] = s;
      }
    }
    if (sc_.cFactor.rows() < n) sc_.cFactor.resize(n, n);
    auto F = sc_.cFactor.topLeftCorner(n, n);
    F = Eigen::Map<const MatrixXd>(minv, n, n);
    Eigen::LLT<Eigen::Ref<MatrixXd>> llt(F);
    Eigen::Map<MatrixXd> M(sc_.mass.data() + ws_.minvOffset[oo], n, n);
    M.setIdentity();
    llt.solveInPlace(M);
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const double s = 0.5 * (M(i, j) + M(j, i));
        M(i, j) = M(j, i) = s;
      }
    }
  }
}

void ConvexIsland::buildGroups() {
  auto& first = sc_.groupRow;
  auto& size = sc_.groupSize;
  first.clear();
  size.clear();
  for (int a = 0; a < n_; ++a) ws_.pos[static_cast<std::size_t>(ws_.order[static_cast<std::size_t>(i0_ + a)])] = a;
  for (int a = 0; a < n_; ++a) {
    if (!active(a)) continue;
    const ConstraintRow& r = row(a);
    if (r.kind == RowKind::ContactFriction) continue;  // part of its contact's group
    if (r.kind == RowKind::ContactNormal && !position_) {
      const int f0 = ws_.pointFirstFriction[static_cast<std::size_t>(r.source)];
      if (f0 >= 0) {
        // The two friction rows follow each other in the build order and in
        // the island.
        const int t = ws_.pos[static_cast<std::size_t>(f0)];
        first.push_back(a);
        size.push_back(3);
        first.push_back(t);  // stored as a pair: normal, first friction row
        size.push_back(0);
        continue;
      }
    }
    first.push_back(a);
    size.push_back(1);
  }
  groups_ = static_cast<int>(first.size());
}

double ConvexIsland::rowVelocity(int a, const double* x) const {
  const ConstraintRow& r = row(a);
  double s = 0.0;
  for (int k = 0; k < r.nside; ++k) {
    const RowSide& sd = r.side[k];
    const double* J = ws_.J.data() + sd.offset;
    const double* xs = x + ws_.ownerLocal[static_cast<std::size_t>(sd.owner)];
    for (int i = 0; i < sd.n; ++i) s += J[i] * xs[i];
  }
  return s;
}

void ConvexIsland::addRowTranspose(int a, double s, double* g) const {
  if (s == 0.0) return;
  const ConstraintRow& r = row(a);
  for (int k = 0; k < r.nside; ++k) {
    const RowSide& sd = r.side[k];
    const double* J = ws_.J.data() + sd.offset;
    double* gs = g + ws_.ownerLocal[static_cast<std::size_t>(sd.owner)];
    for (int i = 0; i < sd.n; ++i) gs[i] += s * J[i];
  }
}

// y = B x for the block-diagonal per-tree matrices stored in `blocks`
// (sc.mass: M̃, sc.minv: M̃⁻¹) at minvOffset.
void ConvexIsland::blockTimes(const std::vector<double>& blocks, const double* x, double* y) const {
  for (const int o : sc_.islandOwners) {
    const auto oo = static_cast<std::size_t>(o);
    const int n = m_.owner_nv[oo];
    const int at = ws_.ownerLocal[oo];
    Eigen::Map<const MatrixXd> B(blocks.data() + ws_.minvOffset[oo], n, n);
    Eigen::Map<VectorXd>(y + at, n).noalias() = B * Eigen::Map<const VectorXd>(x + at, n);
  }
}

double ConvexIsland::project(const double* vc, double* gamma, double* G) const {
  const auto& first = sc_.groupRow;
  const auto& size = sc_.groupSize;
  double cost = 0.0;
  const double eps = opt_.convexRegularization;
  // R = physical softness + proximal regularisation; the proximal part is
  // centred on the impulses `center_` (y = −R⁻¹ (v_c − v̂ − R_prox γ_c)).
  auto prox = [&](int a) {
    const ConstraintRow& r = row(a);
    const bool contact = r.kind == RowKind::ContactNormal || r.kind == RowKind::ContactFriction;
    return (contact ? eps : kJointRowStiffening * eps) * r.diag;
  };
  const double* center = sc_.cCenter.data();
  for (int k = 0; k < groups_; ++k) {
    const int a = first[static_cast<std::size_t>(k)];
    double* Gk = G + 9 * k;
    if (size[static_cast<std::size_t>(k)] == 0) continue;  // the second half of a contact's pair
    const ConstraintRow& r = row(a);
    const double vhat = position_ ? r.rhsPosition : r.rhs;
    if (size[static_cast<std::size_t>(k)] == 1) {
      const double Rp = prox(a);
      const double R = rowSoftness(opt_, r) + Rp;
      const double y = -(vc[a] - vhat - Rp * center[a]) / R;
      double lo = r.lo;
      double hi = r.hi;
      if (position_) {
        lo = 0.0;
        hi = kInf;
      }
      const double g = std::clamp(y, lo, hi);
      gamma[a] = g;
      Gk[0] = (g == y) ? 1.0 / R : 0.0;
      cost += R * (g * y - 0.5 * g * g);
      continue;
    }
    // A contact: normal row a, friction rows t and t + 1.
    const int t = first[static_cast<std::size_t>(k) + 1];
    const double Pn = prox(a);
    const double Pt = std::max(0.5 * (prox(t) + prox(t + 1)), Pn);
    const double Rn = rowSoftness(opt_, r) + Pn;
    const double Rt = 0.5 * (rowSoftness(opt_, row(t)) + rowSoftness(opt_, row(t + 1))) + Pt;
    const double mu = row(t).mu;
    const double yn = -(vc[a] - vhat - Pn * center[a]) / Rn;
    const double y1 = -(vc[t] - Pt * center[t]) / Rt;
    const double y2 = -(vc[t + 1] - Pt * center[t + 1]) / Rt;
    const double sn = std::sqrt(Rn);
    const double st = std::sqrt(Rt);
    // Projection in the R-norm = Euclidean projection of ỹ = R^½ y onto
    // the cone of coefficient μ̃ = μ √(Rt/Rn).
    const double mt = mu * st / sn;
    const double yn_ = sn * yn;
    const double y1_ = st * y1;
    const double y2_ = st * y2;
    const double s = std::hypot(y1_, y2_);
    for (int i = 0; i < 9; ++i) Gk[i] = 0.0;
    if (s <= mt * yn_) {  // sticking: γ = y
      gamma[a] = yn;
      gamma[t] = y1;
      gamma[t + 1] = y2;
      Gk[0] = 1.0 / Rn;
      Gk[4] = Gk[8] = 1.0 / Rt;
    } else if (mt * s <= -yn_) {  // separating
      gamma[a] = gamma[t] = gamma[t + 1] = 0.0;
    } else {  // sliding: on the cone's surface
      const double gn_ = (yn_ + mt * s) / (1.0 + mt * mt);
      const double u1 = y1_ / s;
      const double u2 = y2_ / s;
      gamma[a] = gn_ / sn;
      gamma[t] = mt * gn_ * u1 / st;
      gamma[t + 1] = mt * gn_ * u2 / st;
      // P' in the scaled coordinates, then G = R^-½ P' R^-½.
      const double c = 1.0 / (1.0 + mt * mt);
      const double k2 = mt * gn_ / s;
      double P[9];
      P[0] = c;
      P[1] = P[3] = c * mt * u1;
      P[2] = P[6] = c * mt * u2;
      P[4] = c * mt * mt * u1 * u1 + k2 * (1.0 - u1 * u1);
      P[8] = c * mt * mt * u2 * u2 + k2 * (1.0 - u2 * u2);
      P[5] = P[7] = c * mt * mt * u1 * u2 - k2 * u1 * u2;
      const double sc[3] = {1.0 / sn, 1.0 / st, 1.0 / st};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Gk[3 * i + j] = sc[i] * P[3 * i + j] * sc[j];
    }
    cost += Rn * (gamma[a] * yn - 0.5 * gamma[a] * gamma[a]) +
            Rt * (gamma[t] * y1 - 0.5 * gamma[t] * gamma[t] + gamma[t + 1] * y2 - 0.5 * gamma[t + 1] * gamma[t + 1]);
  }
  return cost;
}

// Rows of a group, in the order of its G.
inline int groupRows(const std::vector<int>& first, const std::vector<std::uint8_t>& size, int k, int* rows) {
  const auto kk = static_cast<std::size_t>(k);
  if (size[kk] == 1) {
    rows[0] = first[kk];
    return 1;
  }
  rows[0] = first[kk];
  rows[1] = first[kk + 1];
  rows[2] = first[kk + 1] + 1;
  return 3;
}

template <class Add>
void ConvexIsland::forEachHessianTerm(const double* G, Add&& add) const {
  for (int k = 0; k < groups_; ++k) {
    if (sc_.groupSize[static_cast<std::size_t>(k)] == 0) continue;
    int rows[3];
    const int q = groupRows(sc_.groupRow, sc_.groupSize, k, rows);
    const double* Gk = G + 9 * k;
    for (int i = 0; i < q; ++i) {
      const ConstraintRow& ri = row(rows[i]);
      for (int j = 0; j < q; ++j) {
        const double gij = Gk[3 * i + j];
        if (gij == 0.0) continue;
        const ConstraintRow& rj = row(rows[j]);
        for (int si = 0; si < ri.nside; ++si)
          for (int sj = 0; sj < rj.nside; ++sj) add(ri.side[si], rj.side[sj], gij);
      }
    }
  }
}

// dst(r, c) += g·a[r]·b[c] for a column-major block with leading dimension ld.
void addOuter(double* dst, Eigen::Index ld, const double* a, int na, const double* b, int nb, double g) {
  for (int c = 0; c < nb; ++c) {
    const double s = g * b[c];
    if (s == 0.0) continue;
    double* col = dst + c * ld;
    for (int r = 0; r < na; ++r) col[r] += a[r] * s;
  }
}

int ConvexIsland::solveDense(const double* G, const double* g, double* dx) {
  if (sc_.cH.rows() < N_) sc_.cH.resize(N_, N_);
  auto H = sc_.cH.topLeftCorner(N_, N_);
  H.setZero();
  for (const int o : sc_.islandOwners) {
    const auto oo = static_cast<std::size_t>(o);
    const int n = m_.owner_nv[oo];
    const int at = ws_.ownerLocal[oo];
    H.block(at, at, n, n) = Eigen::Map<const MatrixXd>(sc_.mass.data() + ws_.minvOffset[oo], n, n);
  }
  forEachHessianTerm(G, [&](const RowSide& a, const RowSide& b, double gab) {
    addOuter(&H(ws_.ownerLocal[static_cast<std::size_t>(a.owner)], ws_.ownerLocal[static_cast<std::size_t>(b.owner)]),
             sc_.cH.rows(), ws_.J.data() + a.offset, a.n, ws_.J.data() + b.offset, b.n, gab);
  });
  Eigen::LLT<Eigen::Ref<MatrixXd>> llt(H);
  if (llt.info() != Eigen::Success) return -1;
  Eigen::Map<VectorXd> x(dx, N_);
  x = -Eigen::Map<const VectorXd>(g, N_);
  llt.solveInPlace(x);
  return 1;
}

void ConvexIsland::hessianTimes(const double* G, const double* x, double* y, double* vcScratch) const {
  massTimes(x, y);
  const auto& first = sc_.groupRow;
  const auto& size = sc_.groupSize;
  for (int k = 0; k < groups_; ++k) {
    if (size[static_cast<std::size_t>(k)] == 0) continue;
    int rows[3];
    const int q = groupRows(first, size, k, rows);
    double jx[3];
    for (int i = 0; i < q; ++i) jx[i] = rowVelocity(rows[i], x);
    const double* Gk = G + 9 * k;
    for (int i = 0; i < q; ++i) {
      double s = 0.0;
      for (int j = 0; j < q; ++j) s += Gk[3 * i + j] * jx[j];
      vcScratch[rows[i]] = s;
      addRowTranspose(rows[i], s, y);
    }
  }
}

// Conjugate gradients on H Δv = −g, preconditioned by the per-tree
// diagonal blocks of H (their M̃ plus the rows touching only that tree's
// side), each applied through a Cholesky factor.
int ConvexIsland::solveIterative(const double* G, const double* g, double* dx) {
  // Per-tree blocks, one after another in islandOwners order.
  std::size_t total = 0;
  for (const int o : sc_.islandOwners) {
    const auto oo = static_cast<std::size_t>(o);
    const auto n = static_cast<std::size_t>(m_.owner_nv[oo]);
    ws_.blockOffset[oo] = static_cast<int>(total);
    total += n * n;
  }
  if (sc_.cBlocks.size() < total) sc_.cBlocks.resize(total);
  double* blocks = sc_.cBlocks.data();
  for (const int o : sc_.islandOwners) {
    const auto oo = static_cast<std::size_t>(o);
    const int n = m_.owner_nv[oo];
    Eigen::Map<MatrixXd>(blocks + ws_.blockOffset[oo], n, n) =
        Eigen::Map<const MatrixXd>(sc_.mass.data() + ws_.minvOffset[oo], n, n);
  }
  auto blockOf = [&](int owner) { return blocks + ws_.blockOffset[static_cast<std::size_t>(owner)]; };
  forEachHessianTerm(G, [&](const RowSide& a, const RowSide& b, double gab) {
    if (a.owner == b.owner)
      addOuter(blockOf(a.owner), a.n, ws_.J.data() + a.offset, a.n, ws_.J.data() + b.offset, b.n, gab);
  });
  for (const int o : sc_.islandOwners) {
    const int n = m_.owner_nv[static_cast<std::size_t>(o)];
    Eigen::Map<MatrixXd> B(blockOf(o), n, n);
    Eigen::LLT<Eigen::Ref<MatrixXd>> llt(B);  // factor in place
    if (llt.info() != Eigen::Success) return -1;
  }
  auto precondition = [&](const double* r, double* z) {
    for (const int o : sc_.islandOwners) {
      const auto oo = static_cast<std::size_t>(o);
      const int n = m_.owner_nv[oo];
      const int loc = ws_.ownerLocal[oo];
      Eigen::Map<MatrixXd> L(blockOf(o), n, n);
      Eigen::Map<VectorXd> zz(z + loc, n);
      zz = Eigen::Map<const VectorXd>(r + loc, n);
      L.triangularView<Eigen::Lower>().solveInPlace(zz);
      L.triangularView<Eigen::Lower>().transpose().solveInPlace(zz);
    }
  };
  growTo(sc_.nR, N_);
  growTo(sc_.nZ, N_);
  growTo(sc_.nP, N_);
  growTo(sc_.nMp, N_);
  growTo(sc_.nTrial, n_);
  double* r = sc_.nR.data();
  double* z = sc_.nZ.data();
  double* p = sc_.nP.data();
  double* hp = sc_.nMp.data();
  double bNorm = 0.0;
  for (int i = 0; i < N_; ++i) {
    dx[i] = 0.0;
    r[i] = -g[i];
    bNorm += r[i] * r[i];
  }
  precondition(r, z);
  double rz = 0.0;
  for (int i = 0; i < N_; ++i) {
    p[i] = z[i];
    rz += r[i] * z[i];
  }
  int it = 0;
  for (; it < std::max(1, opt_.krylovIterations); ++it) {
    hessianTimes(G, p, hp, sc_.nTrial.data());
    double php = 0.0;
    for (int i = 0; i < N_; ++i) php += p[i] * hp[i];
    if (!(php > 0.0)) break;
    const double alpha = rz / php;
    double rNorm = 0.0;
    for (int i = 0; i < N_; ++i) {
      dx[i] += alpha * p[i];
      r[i] -= alpha * hp[i];
      rNorm += r[i] * r[i];
    }
    if (rNorm <= 1e-8 * bNorm) {
      ++it;
      break;
    }
    precondition(r, z);
    double next = 0.0;
    for (int i = 0; i < N_; ++i) next += r[i] * z[i];
    const double beta = next / rz;
    rz = next;
    for (int i = 0; i < N_; ++i) p[i] = z[i] + beta * p[i];
  }
  return std::max(it, 1);
}

IslandSolve ConvexIsland::solve(const VectorXd& vFree, VectorXd& v) {
  IslandSolve out;
  collectOwners();
  computeMasses();
  buildGroups();
  // Island-local vectors: x (velocities), xf (free velocities), grad, dx,
  // M(x − xf), row velocities and their change, impulses, G.
  for (VectorXd* s : {&sc_.cvx, &sc_.cvStar, &sc_.cGrad, &sc_.cDv, &sc_.cR}) growTo(*s, 2 * N_);
  for (VectorXd* s : {&sc_.cVc, &sc_.cDvc, &sc_.cGamma, &sc_.cVhat, &sc_.cCenter}) growTo(*s, n_);
  growTo(sc_.cG, 9 * std::max(1, groups_));
  double* x = sc_.cvx.data();
  double* xf = sc_.cvStar.data();
  double* grad = sc_.cGrad.data();
  double* dx = sc_.cDv.data();
  double* mdx = sc_.cR.data();           // M dx in [0, N), M (x − xf) in [N, 2N)
  double* tmp = sc_.cvStar.data() + N_;  // scratch N
  double* vc = sc_.cVc.data();
  double* dvc = sc_.cDvc.data();
  double* gamma = sc_.cGamma.data();
  double* trialGamma = sc_.cVhat.data();
  double* G = sc_.cG.data();
  for (const int o : sc_.islandOwners) {
    const auto oo = static_cast<std::size_t>(o);
    const int n = m_.owner_nv[oo];
    const int at = ws_.ownerLocal[oo];
    const int va = m_.owner_vadr[oo];
    for (int i = 0; i < n; ++i) {
      x[at + i] = v[va + i];
      xf[at + i] = vFree[va + i];
    }
  }
  // Proximal centre: the impulses the rows start with (the warm start).
  double* center = sc_.cCenter.data();
  for (int a = 0; a < n_; ++a) {
    gamma[a] = 0.0;
    const ConstraintRow& r = row(a);
    center[a] = active(a) ? (position_ ? r.lambdaPosition : r.lambda) : 0.0;
  }

  const int maxIt = std::max(1, opt_.maxIterations);
  const bool dense = N_ <= kDenseDofs;
  const double target = kTargetFraction * opt_.convergenceTolerance;
  double residual = kInf;
  double proximal = kInf;
  for (int pass = 0; pass < kMaxProximalPasses; ++pass) {
    for (;;) {
      // Gradient ∇ℓ = M̃ (x − xf) − Jᵀ γ and the velocity residual |M̃⁻¹ ∇ℓ|∞.
      for (int a = 0; a < n_; ++a) vc[a] = rowVelocity(a, x);
      project(vc, gamma, G);
      for (int i = 0; i < N_; ++i) tmp[i] = x[i] - xf[i];
      massTimes(tmp, mdx + N_);
      for (int i = 0; i < N_; ++i) grad[i] = mdx[N_ + i];
      for (int k = 0; k < groups_; ++k) {
        if (sc_.groupSize[static_cast<std::size_t>(k)] == 0) continue;
        int rows[3];
        const int q = groupRows(sc_.groupRow, sc_.groupSize, k, rows);
        for (int i = 0; i < q; ++i) addRowTranspose(rows[i], -gamma[rows[i]], grad);
      }
      massInverseTimes(grad, tmp);
      residual = 0.0;
      for (int i = 0; i < N_; ++i) residual = std::max(residual, std::abs(tmp[i]));
      if (!(residual > target) || out.iterations >= maxIt) break;
      ++out.iterations;
      // Newton direction.
      const int inner = dense ? solveDense(G, grad, dx) : solveIterative(G, grad, dx);
      if (inner < 0) break;
      if (!dense) out.inner += inner;
      // Exact line search on ℓ(x + α dx): ℓ' = dxᵀ M (x − xf) + α dxᵀ M dx − Σ γ(α)·J dx.
      massTimes(dx, mdx);
      double a0 = 0.0;
      double a1 = 0.0;
      for (int i = 0; i < N_; ++i) {
        a0 += dx[i] * mdx[N_ + i];
        a1 += dx[i] * mdx[i];
      }
      for (int a = 0; a < n_; ++a) dvc[a] = rowVelocity(a, dx);
      auto derivatives = [&](double alpha, double& d2) {
        for (int a = 0; a < n_; ++a) trialGamma[a] = 0.0;
        // Row velocities at α, then γ and G there.
        double* vcAlpha = sc_.nTrial.data();
        for (int a = 0; a < n_; ++a) vcAlpha[a] = vc[a] + alpha * dvc[a];
        project(vcAlpha, trialGamma, G);
        double d1 = a0 + alpha * a1;
        d2 = a1;
        for (int k = 0; k < groups_; ++k) {
          if (sc_.groupSize[static_cast<std::size_t>(k)] == 0) continue;
          int rows[3];
          const int q = groupRows(sc_.groupRow, sc_.groupSize, k, rows);
          const double* Gk = G + 9 * k;
          for (int i = 0; i < q; ++i) {
            d1 -= trialGamma[rows[i]] * dvc[rows[i]];
            for (int j = 0; j < q; ++j) d2 += dvc[rows[i]] * Gk[3 * i + j] * dvc[rows[j]];
          }
        }
        return d1;
      };
      growTo(sc_.nTrial, n_);
      double d2 = 0.0;
      const double d0 = derivatives(0.0, d2);
      if (!(d0 < 0.0)) break;  // no descent left at round-off level
      double alpha = 1.0;
      double d1 = derivatives(1.0, d2);
      if (d1 > 0.0) {
        // Safeguarded Newton on ℓ'(α) = 0 in the bracket [lo, hi].
        double lo = 0.0;
        double hi = 1.0;
        alpha = 1.0;
        for (int k = 0; k < kMaxLineSearch; ++k) {
          double next = d2 > 0.0 ? alpha - d1 / d2 : 0.5 * (lo + hi);
          if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
          alpha = next;
          d1 = derivatives(alpha, d2);
          if (std::abs(d1) <= 1e-10 * std::abs(d0)) break;
          (d1 > 0.0 ? hi : lo) = alpha;
          if (hi - lo < 1e-12) break;
        }
      }
      for (int i = 0; i < N_; ++i) x[i] += alpha * dx[i];
    }
    // The proximal term's pull: R_prox |γ − γ_c|, a velocity. Re-centre on γ
    // until it is below the target: the limit solves the problem without the
    // regularisation (the physical softness alone).
    proximal = 0.0;
    for (int k = 0; k < groups_; ++k) {
      if (sc_.groupSize[static_cast<std::size_t>(k)] == 0) continue;
      int rows[3];
      const int q = groupRows(sc_.groupRow, sc_.groupSize, k, rows);
      for (int i = 0; i < q; ++i) {
        const int a = rows[i];
        const ConstraintRow& r = row(a);
        const bool contact = r.kind == RowKind::ContactNormal || r.kind == RowKind::ContactFriction;
        const double Rp =
            (contact ? opt_.convexRegularization : kJointRowStiffening * opt_.convexRegularization) * r.diag;
        proximal = std::max(proximal, Rp * std::abs(gamma[a] - center[a]));
      }
    }
    if (!(proximal > target) || out.iterations >= maxIt) break;
    for (int a = 0; a < n_; ++a) center[a] = gamma[a];
  }
  if (kMaxProximalPasses > 1) residual = std::max(residual, proximal);
  // The impulses γ(x) of the last evaluation and the velocities x: they
  // agree to the residual. (Rebuilding v from γ would amplify the round-off
  // of J x by 1/R on stiff rows.)
  for (int a = 0; a < n_; ++a) {
    ConstraintRow& r = row(a);
    (position_ ? r.lambdaPosition : r.lambda) = active(a) ? gamma[a] : 0.0;
  }
  for (const int o : sc_.islandOwners) {
    const auto oo = static_cast<std::size_t>(o);
    const int n = m_.owner_nv[oo];
    const int at = ws_.ownerLocal[oo];
    const int va = m_.owner_vadr[oo];
    for (int i = 0; i < n; ++i) v[va + i] = x[at + i];
  }
  for (const int o : sc_.islandOwners) ws_.ownerLocal[static_cast<std::size_t>(o)] = -1;
  out.residual = residual;
  return out;
}

}  // namespace

IslandSolve convexIsland(const Model& m, Data& d, ConstraintWorkspace& ws, IslandScratch& sc,
                         const ConstraintSolverOptions& opt, int i0, int i1, bool position, const VectorXd& vFree,
                         VectorXd& v) {
  ConvexIsland island(m, d, ws, sc, opt, i0, i1, position);
  return island.solve(vFree, v);
}

}  // namespace articula::detail

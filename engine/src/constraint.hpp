#pragma once
// The constraint stage: one velocity-level problem per step.
//
// Every constraint is a set of rows. A row r has a Jacobian J_r (1 × nv,
// stored per tree it touches: at most two "sides", each a dense segment
// over one tree's DoFs), impulse bounds [lo, hi] (friction rows: ±μ·λ of
// their normal row), and a target: with v⁺ = v* + M̃⁻¹ Jᵀ λ,
//   w_r = J_r v⁺ − rhs_r,   lo < λ_r < hi ⇒ w_r = 0,
//   λ_r = lo ⇒ w_r ≥ 0,     λ_r = hi ⇒ w_r ≤ 0      (boxed LCP).
// M̃ is the joint-space inertia of the semi-implicit step (armature and
// implicit spring/damper terms included). M̃⁻¹ J_rᵀ is computed per row
// with the articulated-body impulse response, O(n) per row and tree; no
// global mass matrix is formed. Rows are grouped into islands (trees
// connected by rows) and each island is solved by projected Gauss–Seidel
// or by Dantzig-style principal pivoting on its Delassus matrix
// A = J M̃⁻¹ Jᵀ.
//
// Loop closures and couplers add rows with RowBuilder between
// buildStandardRows() and solveRows(): point and angular terms on bodies,
// and joint-space terms, with their bounds and targets (bilateral rows
// have infinite bounds).

#include <articula/contact.hpp>
#include <articula/executor.hpp>
#include <articula/options.hpp>

#include "collision.hpp"
#include "model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

namespace articula::detail {

enum class RowKind : std::uint8_t {
  ContactNormal,
  ContactFriction,
  PositionLimit,
  VelocityLimit,
  JointFriction,
  Bilateral,  // equality rows (loop closures, couplers): bounds (−∞, ∞)
};

struct RowSide {
  int owner = -1;  // tree
  int offset = 0;  // start of this side's segments in ConstraintWorkspace::J / MJ (length n)
  int vadr = 0;    // the tree's first DoF
  int n = 0;       // the tree's DoF count
};

struct ConstraintRow {
  RowSide side[2];
  int nside = 0;
  double lo = 0.0;
  double hi = 0.0;
  int normalRow = -1;        // friction rows: the normal row bounding them
  double mu = 0.0;           // friction rows: coefficient
  double rhs = 0.0;          // velocity target
  double rhsPosition = 0.0;  // split-impulse target (normal rows)
  double lambda = 0.0;
  double lambdaPosition = 0.0;
  double diag = 0.0;  // A_rr (without softness)
  // Bilateral rows: softness added to A_rr (≥ 0: absolute, a compliance;
  // < 0: −value × A_rr, a relative regularisation), and the warm start.
  double compliance = 0.0;
  double warm = 0.0;
  RowKind kind = RowKind::ContactNormal;
  int source = -1;  // contact point index or DoF
};

// A row as one projected Gauss–Seidel update needs it, packed in sweep
// order so that a sweep reads memory front to back (constraint.cpp).
struct PackedRow {
  const double* J[2];   // the sides' Jacobian segments
  const double* MJ[2];  // and their responses M̃⁻¹ J_rᵀ
  int vadr[2];
  int n[2];
  int nside;
  int normal;     // friction rows: the packed index of their normal row, else −1
  int row;        // index in ConstraintWorkspace::rows
  double den;     // A_rr + softness
  double invDen;  // 1 / den
  double soft;    // softness
  double target;  // velocity (or split-impulse) target
  double lo, hi;  // bounds (friction rows: ±mu·λ_normal instead)
  double mu;
  double lambda;
};

// Scratch of one island's solve. Every field only grows, so a step in
// simulation mode does not allocate once the largest island was seen.
// Islands solved at the same time (Executor) each use their own.
struct IslandScratch {
  std::vector<PackedRow> packed;  // projected Gauss–Seidel: the island's rows in sweep order
  std::vector<int> backward;      // and the order of its backward sweeps (packed indices)
  std::vector<int> normalSlots;   // packed indices of contact normal rows
  // pivoting
  MatrixXd A, Lfac;
  VectorXd b, lo, hi, lam, lamPrevious, w, dlam, dw, x, col;
  std::vector<int> findex, status, clamped;
  std::vector<double> mu;
  // Newton methods (nonsmooth_newton.cpp, convex_solver.cpp)
  VectorXd nLambda, nW, nPhi, nC, nRhs, nDir, nADir, nPre, nR, nZ, nP, nMz, nMp, nTrial, nLo, nDb, gG;
  MatrixXd gV, gH;     // GMRES basis and Hessenberg matrix
  VectorXd dvScratch;  // one nv-sized velocity change (zero outside a product)
  // convex method: the island's trees, dense M̃⁻¹ and M̃, preconditioner
  std::vector<int> islandOwners;
  std::vector<double> minv, mass, cBlocks;
  MatrixXd cFactor;
  // convex: per constraint group its first island row and size (1, or 3
  // for a contact, stored as two entries: normal row / 3, then first friction row / 0)
  std::vector<int> groupRow;
  std::vector<std::uint8_t> groupSize;
  VectorXd cvx, cvStar, cDv, cGrad, cVc, cDvc, cGamma, cR, cVhat, cG,
      cCenter;  // convex: island-local vectors
  MatrixXd cH;
};

// Outcome of one island's solve, reduced over islands in island order.
struct IslandOutcome {
  // Per phase (velocity, split-impulse position): Newton iterations,
  // pivots, projected Gauss–Seidel sweeps; −1 when not run.
  int newton[2] = {-1, -1};
  int pivots[2] = {-1, -1};
  int sweeps[2] = {-1, -1};
  int inner = 0;
  double residual = 0.0;
  bool fallback = false;
  bool degenerate = false;
  int tooLarge = 0;
};

// Rows, islands and the scratch of the solve: scratch(0) serves the
// calling thread, scratch(k) an executor's worker k.
struct ConstraintWorkspace {
  std::vector<ContactPoint> points;
  std::vector<int> pointNormalRow;  // per point: its normal row, −1 if no row
  std::vector<int> pointFirstFriction;
  std::vector<Vector3d> pointTangent1;  // tangent basis per point
  std::vector<Vector3d> pointTangent2;
  std::vector<ConstraintRow> rows;
  std::vector<double> J, MJ;  // row segments
  std::vector<double> tau;    // scratch: one tree's generalized impulse
  // islands
  std::vector<int> ownerParent;
  std::vector<int> rowIsland;
  std::vector<int> order;                     // rows grouped by island, build order kept within an island
  std::vector<int> islandStart;               // islands' ranges in `order`
  std::vector<int> islandCursor;              // scratch while grouping
  std::vector<std::uint8_t> islandBilateral;  // per island root: only bilateral rows (solved directly)
  std::vector<int> islandRoots;               // the non-empty islands, in order
  std::vector<IslandOutcome> islandOutcomes;  // per entry of islandRoots
  std::vector<int> pos;                       // per row: its index in its island's solve
  VectorXd vPos;                              // split-impulse pseudo-velocity
  VectorXd vStar;                             // unconstrained velocities of the step
  VectorXd vZero;                             // the position problem's free velocity (zero), nv-sized
  // convex method: per tree (each tree is in one island)
  std::vector<int> ownerLocal;         // its first island DoF, −1 outside the island being solved
  std::vector<int> minvOffset;         // start of its dense M̃⁻¹ and M̃ in minv / mass
  std::vector<int> blockOffset;        // start of its preconditioner block in cBlocks
  std::vector<IslandScratch> workers;  // per worker, grown to the executor's concurrency
  IslandScratch& scratch(int worker) {
    assert(worker >= 0 && static_cast<std::size_t>(worker) < workers.size());
    return workers[static_cast<std::size_t>(worker)];
  }
};

// The outcome of one island's solve by a Newton method.
struct IslandSolve {
  int iterations = 0;  // Newton iterations
  int inner = 0;       // linear-solver iterations
  double residual = 0.0;
};

struct ConstraintResult {
  int rows = 0;
  int islands = 0;
  int iterations = 0;
  int inner = 0;
  double residual = 0.0;    // velocity error, largest over islands (StepDiagnostics::residual)
  bool fallback = false;    // some island was solved by PGS instead of pivoting
  bool degenerate = false;  // ... because pivoting failed on it
  int largestTooLarge = 0;  // ... because it had more rows than pivoting takes (largest such island)
};

// Friction rows per contact point, and the direction of row k of n: at
// angle πk/n in the tangent plane spanned by t1, t2.
// The convex method uses two orthogonal rows and a circular cone.
inline bool usesFrictionCone(const ConstraintSolverOptions& opt) {
  return opt.method == "convex";
}
inline int frictionRowCount(const ConstraintSolverOptions& opt) {
  return usesFrictionCone(opt) ? 2 : std::max(2, opt.frictionDirections / 2);
}
// cos and sin of π·k/n, tabulated for the usual n (the same values as
// computing them, without a libm call per row and step).
inline void frictionCosSin(int k, int n, double& c, double& s) {
  constexpr int kTabulated = 8;
  struct Table {
    double cs[kTabulated + 1][kTabulated][2];
  };
  static const Table table = [] {
    Table t{};
    for (int nn = 1; nn <= kTabulated; ++nn) {
      for (int kk = 0; kk < nn; ++kk) {
        const double phi = std::numbers::pi * kk / nn;
        t.cs[nn][kk][0] = std::cos(phi);
        t.cs[nn][kk][1] = std::sin(phi);
      }
    }
    return t;
  }();
  if (n >= 1 && n <= kTabulated && k >= 0 && k < n) {
    c = table.cs[n][k][0];
    s = table.cs[n][k][1];
    return;
  }
  const double phi = std::numbers::pi * k / n;
  c = std::cos(phi);
  s = std::sin(phi);
}
inline Vector3d frictionDirection(const Vector3d& t1, const Vector3d& t2, int k, int n) {
  double c = 0.0;
  double s = 0.0;
  frictionCosSin(k, n, c, s);
  return c * t1 + s * t2;
}

// Adds terms to constraint rows. Jacobians use the world-aligned motion
// subspaces and tree origins of the step's articulated-body pass.
class RowBuilder {
 public:
  RowBuilder(const Model& m, const Data& d, ConstraintWorkspace& ws);
  // A new row with no terms; set its bounds and targets through at().
  int row(RowKind kind, int source);
  ConstraintRow& at(int r);
  // J_r += sign · dirᵀ (velocity of the world point p moving with body).
  void pointTerm(int r, int body, const Vector3d& p, const Vector3d& dir, double sign);
  // J_r += sign · axisᵀ (angular velocity of body).
  void angularTerm(int r, int body, const Vector3d& axis, double sign);
  // J_r += coefficient · e_dof.
  void dofTerm(int r, int dof, double coefficient = 1.0);
  // Removes row r if it is the last one (e.g. when it has no terms).
  void drop(int r);

 private:
  double* side(int r, int owner);
  const Model& m_;
  const Data& d_;
  ConstraintWorkspace& ws_;
};

// Rows of contacts (ws.points), joint position and velocity limits and
// joint friction. `v` holds v* (used to activate limits).
void buildStandardRows(const Model& m, const Data& d, const ConstraintSolverOptions& opt, double h, const VectorXd& q,
                       const VectorXd& vOld, const VectorXd& v, ConstraintWorkspace& ws);
// Responses, islands and the solve of every row in ws.rows; `v` goes from
// v* to the constrained velocities; ws.vPos gets the split-impulse correction.
// With an executor, islands are solved on its workers (same results).
ConstraintResult solveRows(const Model& m, Data& d, const ConstraintSolverOptions& opt, VectorXd& v,
                           ConstraintWorkspace& ws, Executor* executor = nullptr);

// Softness (regularisation) a row's Delassus diagonal gets.
double rowSoftness(const ConstraintSolverOptions& opt, const ConstraintRow& r);

// The complementarity error of the boxed problem on rows order[i0, i1) at
// velocities v and the rows' impulses, as a velocity error (m/s or rad/s):
// |w| for a row strictly inside its bounds, the wrong-signed part of w at a
// bound, and diag·(bound violation) for an impulse outside its bounds.
double boxedResidual(const ConstraintWorkspace& ws, const ConstraintSolverOptions& opt, int i0, int i1, bool position,
                     const VectorXd& v);

// `sweeps` projected Gauss–Seidel sweeps over rows order[i0, i1), from the
// rows' impulses (already applied to v). Returns the sweeps made.
int gaussSeidelSweeps(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt, int i0, int i1,
                      bool position, VectorXd& v, int sweeps);

// Matrix-free Delassus product over rows order[i0, i1): y = (A + softness) x,
// with x and y indexed by position in the island. Uses sc.dvScratch.
void delassusProduct(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt, int i0, int i1,
                     const double* x, double* y);

// The non-smooth Newton method on rows order[i0, i1) (nonsmooth_newton.cpp):
// v holds the velocities with the rows' current impulses applied; on
// return it holds the solution's and the rows hold their impulses.
IslandSolve nonsmoothNewtonIsland(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt,
                                  int i0, int i1, bool position, VectorXd& v);

// The convex method on rows order[i0, i1) (convex_solver.cpp); `vFree` is
// the velocity the island has without its rows (v* or, for the position
// problem, zero). Same contract on v and the rows as above.
IslandSolve convexIsland(const Model& m, Data& d, ConstraintWorkspace& ws, IslandScratch& sc,
                         const ConstraintSolverOptions& opt, int i0, int i1, bool position, const VectorXd& vFree,
                         VectorXd& v);

// Boxed LCP by principal pivoting (exposed for tests): finds λ with
// lo ≤ λ ≤ hi and w = Aλ + b complementary; rows with findex[i] ≥ 0 get
// bounds ∓mu[i]·λ[findex[i]] (findex[i] < i). Returns false when the
// problem is degenerate (singular pivot, pivot limit).
bool solveBoxedLcpPivoting(const MatrixXd& A, const VectorXd& b, VectorXd& lo, VectorXd& hi, const int* findex,
                           const double* mu, VectorXd& lambda, IslandScratch& sc, int& pivots);
// The same on views (λ sized by the caller); scratch in sc only grows.
bool pivotBoxedLcp(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const VectorXd>& b, Eigen::Ref<VectorXd> lo,
                   Eigen::Ref<VectorXd> hi, const int* findex, const double* mu, Eigen::Ref<VectorXd> lambda,
                   IslandScratch& sc, int& pivots);

// ---- Shared by the constraint files: constraint.cpp (products of rows,
// islands, the solve), constraint_rows.cpp, projected_gauss_seidel.cpp and
// boxed_lcp_pivoting.cpp.

// Islands with more rows than this are solved by projected Gauss–Seidel
// even when pivoting is selected (the dense Delassus matrix grows as m²).
inline constexpr int kMaxPivotingRows = 600;

// Grows a scratch vector (never shrinks it: no reallocation for smaller islands).
inline void growScratch(VectorXd& v, int n) {
  if (v.size() < n) v.resize(n);
}

// J_r · v (buf = ws.J) over the row's trees.
double rowDot(const ConstraintRow& r, const std::vector<double>& buf, const VectorXd& v);
// v += scale · M̃⁻¹ J_rᵀ.
void rowApply(const ConstraintWorkspace& ws, const ConstraintRow& r, double scale, VectorXd& v);
// A_ij = J_i M̃⁻¹ J_jᵀ over the trees the two rows share.
double delassus(const Model& m, const ConstraintWorkspace& ws, const ConstraintRow& ri, const ConstraintRow& rj);

// Projected Gauss–Seidel over rows order[i0, i1) (`position`: the
// split-impulse problem of the normal rows). Returns the sweeps run;
// maxSweeps ≤ 0 and tolerance < 0 take the options' values.
int projectedGaussSeidel(ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt, int i0, int i1,
                         bool position, VectorXd& v, double& residual, int maxSweeps = -1, double tolerance = -1.0);
// Pivoting on rows order[i0, i1). Returns false on failure (λ untouched).
bool pivotingIsland(const Model& m, ConstraintWorkspace& ws, IslandScratch& sc, const ConstraintSolverOptions& opt,
                    int i0, int i1, bool position, VectorXd& v, int& pivots);

}  // namespace articula::detail

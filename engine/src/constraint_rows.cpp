// Constraint rows: the builder loop closures, couplers and actuator locks
// use, and the standard rows of a step (contacts, friction, joint limits,
// velocity limits, joint friction). See constraint.hpp.
#include "constraint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace articula::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Tangent basis of a contact normal: t1 is world x projected on the
// tangent plane (world y when the normal is nearly along x), t2 = n × t1.
void tangentBasis(const Vector3d& n, Vector3d& t1, Vector3d& t2) {
  const Vector3d ref = std::abs(n.x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitY();
  t1 = (ref - ref.dot(n) * n).normalized();
  t2 = n.cross(t1);
}

}  // namespace

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

}  // namespace articula::detail

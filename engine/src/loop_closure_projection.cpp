// Kinematic projection of loop closures: Levenberg–Marquardt on the stacked
// residual of every projected closure and coupler. See docs/loop-closures.md.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <algorithm>
#include <cmath>

namespace articula {
namespace detail {

namespace {

// J_row += sign · (Jacobian of dir·v(p) or dir·ω of `body`) from the world
// motion subspaces Sw (6 × local columns, [ω; v at the world origin]) of
// every DoF supporting the body.
void addJacobianTerm(const Model& m, int body, bool angular, const Vector3d& dir, const Vector3d& p, double sign,
                     const std::vector<int>& colOf, const MatrixXd& Sw, MatrixXd& J, int row) {
  if (body < 0) return;
  const Vector3d mom = p.cross(dir);
  for (int b = body; b >= 0; b = m.body_parent[static_cast<std::size_t>(b)]) {
    const auto bi = static_cast<std::size_t>(b);
    const int va = m.jnt_vadr[bi];
    for (int k = 0; k < m.jnt_nv[bi]; ++k) {
      const int col = colOf[static_cast<std::size_t>(va + k)];
      const auto s = Sw.col(col);
      const double value = angular ? dir.dot(s.head<3>()) : dir.dot(s.tail<3>()) + mom.dot(s.head<3>());
      J(row, col) += sign * value;
    }
  }
}

}  // namespace

ClosureProjectionResult WorldImpl::project(const ClosureProjectionOptions& opts, bool afterStep, bool onlyIfViolated) {
  ensureModel();
  ClosureProjectionResult result;
  result.success = true;
  auto included = [&](const LoopClosureRuntimePolicy& p) {
    return p.enabled && p.kinematics == ClosureKinematicsPolicy::Project && (!afterStep || p.projectAfterStep);
  };
  auto& P = projection;
  const auto nowner = model.owner_kind.size();
  auto ownerOfBody = [&](int body) { return body < 0 ? -1 : model.body_owner[static_cast<std::size_t>(body)]; };

  // Items (closures and couplers taking part) and the mechanisms they form:
  // trees connected by items, projected one at a time.
  P.items.clear();
  for (std::uint32_t s = 0; s < closures.size(); ++s) {
    const auto& c = closures[s];
    if (!c.alive || !included(c.policy)) continue;
    P.items.push_back({false, s, numResidualRows(c.family), ownerOfBody(anchorOf(c.frameA).body),
                       ownerOfBody(anchorOf(c.frameB).body)});
  }
  for (std::uint32_t s = 0; s < couplers.size(); ++s) {
    const auto& c = couplers[s];
    if (!c.alive || !included(c.policy)) continue;
    P.items.push_back({true, s, 1, ownerOfBody(linkBody[c.leader]), ownerOfBody(linkBody[c.follower])});
  }
  if (P.items.empty()) return result;
  P.ownerParent.resize(nowner);
  for (std::size_t o = 0; o < nowner; ++o) P.ownerParent[o] = static_cast<int>(o);
  auto find = [&](int o) {
    while (P.ownerParent[static_cast<std::size_t>(o)] != o) {
      auto& up = P.ownerParent[static_cast<std::size_t>(o)];
      up = P.ownerParent[static_cast<std::size_t>(up)];
      o = up;
    }
    return o;
  };
  for (const auto& it : P.items) {
    if (it.ownerA >= 0 && it.ownerB >= 0) {
      const int x = find(it.ownerA);
      const int y = find(it.ownerB);
      if (x != y) P.ownerParent[static_cast<std::size_t>(std::max(x, y))] = std::min(x, y);
    }
  }
  P.componentOfRoot.assign(nowner, -1);
  int ncomp = 0;
  for (auto& it : P.items) {
    const int root = find(it.ownerA >= 0 ? it.ownerA : it.ownerB);
    auto& c = P.componentOfRoot[static_cast<std::size_t>(root)];
    if (c < 0) c = ncomp++;
    it.component = c;
  }

  const int nv = model.nv;
  P.mask.setOnes(nv);
  for (const int body : P.lockedBodies) {
    const auto b = static_cast<std::size_t>(body);
    P.mask.segment(model.jnt_vadr[b], model.jnt_nv[b]).setZero();
  }
  auto limitOf = [&](int dof, bool upper) { return upper ? model.dof_upperLimit[dof] : model.dof_lowerLimit[dof]; };
  auto qIndex = [&](int dof) {
    const auto b = static_cast<std::size_t>(model.dof_body[static_cast<std::size_t>(dof)]);
    return model.jnt_qadr[b] + (dof - model.jnt_vadr[b]);
  };
  VectorXd& q = state.q;
  double initialSquared = 0.0;
  double finalSquared = 0.0;
  bool moved = false;
  // colOf is −1 everywhere between calls (each component resets its entries).
  if (P.colOf.size() != static_cast<std::size_t>(nv)) P.colOf.assign(static_cast<std::size_t>(nv), -1);
  // Trees grouped by component, in one pass (counting sort).
  P.componentStart.assign(static_cast<std::size_t>(ncomp) + 1, 0);
  P.ownerComponent.resize(nowner);
  for (std::size_t o = 0; o < nowner; ++o) {
    const int c = P.componentOfRoot[static_cast<std::size_t>(find(static_cast<int>(o)))];
    P.ownerComponent[o] = c;
    if (c >= 0) ++P.componentStart[static_cast<std::size_t>(c) + 1];
  }
  for (int c = 0; c < ncomp; ++c)
    P.componentStart[static_cast<std::size_t>(c) + 1] += P.componentStart[static_cast<std::size_t>(c)];
  P.grouped.resize(static_cast<std::size_t>(P.componentStart.back()));
  P.componentCursor.assign(P.componentStart.begin(), P.componentStart.end() - 1);
  for (std::size_t o = 0; o < nowner; ++o) {
    const int c = P.ownerComponent[o];
    if (c >= 0)
      P.grouped[static_cast<std::size_t>(P.componentCursor[static_cast<std::size_t>(c)]++)] = static_cast<int>(o);
  }

  if (static_cast<int>(P.scratch.size()) < ncomp) P.scratch.resize(static_cast<std::size_t>(ncomp));
  for (int comp = 0; comp < ncomp; ++comp) {
    // Per-mechanism matrices keep their sizes from step to step.
    auto& S = P.scratch[static_cast<std::size_t>(comp)];
    // The component's trees, coordinates (local columns) and rows.
    P.owners.assign(P.grouped.begin() + P.componentStart[static_cast<std::size_t>(comp)],
                    P.grouped.begin() + P.componentStart[static_cast<std::size_t>(comp) + 1]);
    P.columns.clear();
    for (const int o : P.owners) {
      const auto oo = static_cast<std::size_t>(o);
      for (int k = 0; k < model.owner_nv[oo]; ++k) {
        P.colOf[static_cast<std::size_t>(model.owner_vadr[oo] + k)] = static_cast<int>(P.columns.size());
        P.columns.push_back(model.owner_vadr[oo] + k);
      }
    }
    const int n = static_cast<int>(P.columns.size());
    int m = 0;
    double tolerance = opts.tolerance;
    int maxIterations = opts.maxIterations;
    bool first = true;
    for (const auto& it : P.items) {
      if (it.component != comp) continue;
      m += it.rows;
      if (afterStep || onlyIfViolated) {
        const auto& pol = it.coupler ? couplers[it.slot].policy : closures[it.slot].policy;
        tolerance = first ? pol.tolerance : std::min(tolerance, pol.tolerance);
        maxIterations = first ? pol.maxIterations : std::max(maxIterations, pol.maxIterations);
        first = false;
      }
    }
    result.rows += m;
    S.J.resize(m, n);
    S.r.resize(m);
    S.rTrial.resize(m);

    auto kinematics = [&](const VectorXd& qq) {
      for (const int o : P.owners) {
        const auto oo = static_cast<std::size_t>(o);
        forwardKinematicsPositions(model, qq, data, model.owner_bodyadr[oo],
                                   model.owner_bodyadr[oo] + model.owner_nbody[oo]);
      }
    };
    // Residual (and Jacobian over the local columns) at qq.
    // `runKinematics` false: the caches already hold qq's kinematics.
    auto evaluate = [&](const VectorXd& qq, VectorXd& r, bool jacobian, bool runKinematics = true) {
      if (runKinematics) kinematics(qq);
      if (jacobian) {
        S.J.setZero();
        // World motion subspaces of the mechanism's DoFs, once per Jacobian.
        S.Sw.resize(6, n);
        for (int k = 0; k < n; ++k) {
          const int dof = P.columns[static_cast<std::size_t>(k)];
          const auto bi = static_cast<std::size_t>(model.dof_body[static_cast<std::size_t>(dof)]);
          S.Sw.col(k) = data.X_WB[bi].actMotion(data.S.col(dof));
        }
      }
      int row = 0;
      for (const auto& it : P.items) {
        if (it.component != comp) continue;
        if (it.coupler) {
          const auto& c = couplers[it.slot];
          const auto bl = static_cast<std::size_t>(linkBody[c.leader]);
          const auto bf = static_cast<std::size_t>(linkBody[c.follower]);
          r[row] = qq[model.jnt_qadr[bf]] - c.ratio * qq[model.jnt_qadr[bl]] - c.offset;
          if (jacobian) {
            S.J(row, P.colOf[static_cast<std::size_t>(model.jnt_vadr[bf])]) += 1.0;
            S.J(row, P.colOf[static_cast<std::size_t>(model.jnt_vadr[bl])]) -= c.ratio;
          }
          ++row;
          continue;
        }
        const auto& c = closures[it.slot];
        std::array<ClosureRow, 6> rows;
        closureRows(c, rows.data());
        const Anchor a = anchorOf(c.frameA);
        const Anchor b = anchorOf(c.frameB);
        for (int i = 0; i < it.rows; ++i, ++row) {
          const ClosureRow& cr = rows[static_cast<std::size_t>(i)];
          r[row] = cr.residual;
          if (!jacobian) continue;
          addJacobianTerm(model, b.body, cr.angular, cr.dir, cr.pB, 1.0, P.colOf, S.Sw, S.J, row);
          addJacobianTerm(model, a.body, cr.angular, cr.dir, cr.pA, -1.0, P.colOf, S.Sw, S.J, row);
        }
      }
    };
    auto step = [&](const VectorXd& qq, const VectorXd& dq, VectorXd& out) {
      // out = qq ⊕ dq over the component's trees (dq over local columns).
      for (const int o : P.owners) {
        const auto oo = static_cast<std::size_t>(o);
        out.segment(model.owner_qadr[oo], model.owner_nq[oo]) = qq.segment(model.owner_qadr[oo], model.owner_nq[oo]);
        for (int i = model.owner_bodyadr[oo]; i < model.owner_bodyadr[oo] + model.owner_nbody[oo]; ++i) {
          const auto bi = static_cast<std::size_t>(i);
          if (model.jnt_nv[bi] == 0) continue;
          const int col = P.colOf[static_cast<std::size_t>(model.jnt_vadr[bi])];
          jointIntegrate(model.jnt_type[bi], qq.data() + model.jnt_qadr[bi], dq.data() + col, 1.0,
                         out.data() + model.jnt_qadr[bi]);
        }
      }
    };

    P.qStart = q;
    if (opts.respectLimits) {
      for (const int dof : model.limitDofs) {
        if (P.colOf[static_cast<std::size_t>(dof)] < 0 || P.mask[dof] == 0.0) continue;
        const int qi = qIndex(dof);
        q[qi] = std::clamp(q[qi], limitOf(dof, false), limitOf(dof, true));
      }
    }
    // The Jacobian only when the mechanism is projected at all.
    evaluate(q, S.r, !onlyIfViolated);
    double norm = S.r.norm();
    initialSquared += norm * norm;
    bool violated = !onlyIfViolated;
    if (onlyIfViolated) {
      // Only when some item exceeds its own tolerance.
      int row = 0;
      for (const auto& it : P.items) {
        if (it.component != comp) continue;
        const auto& pol = it.coupler ? couplers[it.slot].policy : closures[it.slot].policy;
        violated = violated || S.r.segment(row, it.rows).norm() > pol.tolerance;
        row += it.rows;
      }
    }
    if (!violated) {
      q = P.qStart;
      finalSquared += norm * norm;
    } else {
      if (onlyIfViolated) evaluate(q, S.r, true, false);
      moved = true;
      double mu = 0.0;
      int iterations = 0;
      bool stalled = false;
      P.qTrial = q;
      while (norm > tolerance && iterations < maxIterations && !stalled) {
        ++iterations;
        // Minimum-norm damped step dq = −Jᵀ(JJᵀ + μI)⁻¹ r. Coordinates that
        // would leave their limits are clamped at the limit (their columns
        // leave J, their fixed change moves to the right-hand side) and the
        // rest is solved again.
        S.dq.setZero(n);
        S.vFix.setZero(n);
        double scale = 1.0;
        for (int pass = 0; pass < 8; ++pass) {
          S.Jf = S.J;
          S.y = S.r;
          for (int k = 0; k < n; ++k) {
            if (P.mask[P.columns[static_cast<std::size_t>(k)]] == 0.0) S.Jf.col(k).setZero();
            if (S.vFix[k] == 0.0) continue;
            S.y.noalias() += S.J.col(k) * S.dq[k];
            S.Jf.col(k).setZero();
          }
          S.JJ.noalias() = S.Jf * S.Jf.transpose();
          scale = std::max(1.0, S.JJ.diagonal().maxCoeff());
          mu = std::max(mu, 1e-14 * scale);
          S.JJ.diagonal().array() += mu;
          S.llt.compute(S.JJ);
          S.z = S.llt.solve(S.y);
          for (int k = 0; k < n; ++k)
            if (S.vFix[k] == 0.0) S.dq[k] = -S.Jf.col(k).dot(S.z);
          bool clampedMore = false;
          if (opts.respectLimits) {
            for (const int dof : model.limitDofs) {
              const int k = P.colOf[static_cast<std::size_t>(dof)];
              if (k < 0 || P.mask[dof] == 0.0 || S.vFix[k] != 0.0) continue;
              const int qi = qIndex(dof);
              const double target = q[qi] + S.dq[k];
              const double lo = limitOf(dof, false);
              const double hi = limitOf(dof, true);
              if (target > hi || target < lo) {
                S.dq[k] = (target > hi ? hi : lo) - q[qi];
                S.vFix[k] = 1.0;
                clampedMore = true;
              }
            }
          }
          if (!clampedMore) break;
        }
        step(q, S.dq, P.qTrial);
        evaluate(P.qTrial, S.rTrial, false);
        const double trial = S.rTrial.norm();
        if (trial < norm) {
          for (const int o : P.owners) {
            const auto oo = static_cast<std::size_t>(o);
            q.segment(model.owner_qadr[oo], model.owner_nq[oo]) =
                P.qTrial.segment(model.owner_qadr[oo], model.owner_nq[oo]);
          }
          mu = std::max(0.1 * mu, 1e-14 * scale);
          // The caches hold the trial's kinematics; the Jacobian only when
          // another iteration (or the velocity projection) needs it.
          S.r = S.rTrial;
          norm = trial;
          if ((norm > tolerance && iterations < maxIterations) || opts.projectVelocities) evaluate(q, S.r, true, false);
        } else {
          // Rejected: r and J at q are unchanged; retry with more damping.
          mu = std::max(10.0 * mu, 1e-8 * scale);
          if (mu > 1e12 * scale) stalled = true;
        }
      }
      result.iterations = std::max(result.iterations, iterations);
      finalSquared += norm * norm;
      if (norm > tolerance && result.success) {
        result.success = false;
        result.message = stalled ? "the residual stopped decreasing at " + std::to_string(norm) +
                                       " (the closures cannot be satisfied from here with the free coordinates)"
                                 : "no convergence in " + std::to_string(maxIterations) + " iterations; residual " +
                                       std::to_string(norm) + " > tolerance " + std::to_string(tolerance);
      }
      if (opts.projectVelocities) {
        // v_F ← v_F − J_Fᵀ(J_F J_Fᵀ + εI)⁻¹ J v over the free coordinates F
        // (J at the final q; locked coordinates keep their velocities).
        S.Jf = S.J;
        S.vLocal.resize(n);
        for (int k = 0; k < n; ++k) {
          const int dof = P.columns[static_cast<std::size_t>(k)];
          S.vLocal[k] = state.v[dof];
          if (P.mask[dof] == 0.0) S.Jf.col(k).setZero();
        }
        S.JJ.noalias() = S.Jf * S.Jf.transpose();
        const double vscale = std::max(1.0, S.JJ.diagonal().maxCoeff());
        S.JJ.diagonal().array() += 1e-13 * vscale;
        S.llt.compute(S.JJ);
        S.y.noalias() = S.J * S.vLocal;
        S.z = S.llt.solve(S.y);
        S.vLocal.noalias() -= S.Jf.transpose() * S.z;
        for (int k = 0; k < n; ++k) state.v[P.columns[static_cast<std::size_t>(k)]] = S.vLocal[k];
        touchVelocities();
      }
    }
    for (const int dof : P.columns) P.colOf[static_cast<std::size_t>(dof)] = -1;
  }
  result.initialResidual = std::sqrt(initialSquared);
  result.finalResidual = std::sqrt(finalSquared);
  if (moved) touchPositions();
  fkPosAt = 0;  // the caches hold the last evaluated trees
  return result;
}

}  // namespace detail
}  // namespace articula

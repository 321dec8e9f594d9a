// Recursive Newton–Euler inverse dynamics, Featherstone (2008) Table 5.1,
// in body coordinates.
#include "algorithms.hpp"

namespace articula::detail {

using namespace kern;

[[gnu::flatten]] void recursiveNewtonEuler(const Model& m, const VectorXd& v, const VectorXd& vdot,
                                           const std::vector<Vector6d>* fext, bool withVelocity, bool withGravity,
                                           int b0, int b1, Data& d, VectorXd& tau) {
  Vector6d aGravity = Vector6d::Zero();
  if (withGravity) aGravity.tail<3>() = -m.gravity;
  for (int i = b0; i < b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const int p = m.body_parent[b];
    const double* aParent = p < 0 ? aGravity.data() : d.a[static_cast<std::size_t>(p)].data();
    const SE3& X = d.X_PB[b];
    double* ai = d.a[b].data();
    invActMotion(ldM3(X.R.data()), ld3(X.p.data()), aParent, ai);
    V6 a6 = load6(ai);
    if (nv > 0) {
      const double* Vb = d.V[b].data();
      const D3 w = ld3(Vb), vl = ld3(Vb + 3);
      D3 sw{0.0, 0.0, 0.0}, sl{0.0, 0.0, 0.0};  // S q̇
      for (int k = 0; k < nv; ++k) {
        const V6 s = load6(d.S.col(va + k).data());
        const v2d qdd = splat(vdot[va + k]);
        a6.a += s.a * qdd;
        a6.b += s.b * qdd;
        a6.c += s.c * qdd;
        if (withVelocity) {
          const double* sc = d.S.col(va + k).data();
          const double qd = v[va + k];
          sw = sw + qd * ld3(sc);
          sl = sl + qd * ld3(sc + 3);
        }
      }
      if (withVelocity) {
        // V × S q̇ + Ṡ q̇
        double c[6];
        st3(c, cross(w, sw));
        st3(c + 3, cross(w, sl) + cross(vl, sw));
        const V6 c6 = load6(c);
        const V6 cj = load6(d.cJ[b].data());
        a6.a += c6.a + cj.a;
        a6.b += c6.b + cj.b;
        a6.c += c6.c + cj.c;
      }
      store6(ai, a6);
    }
    const double* I = m.body_inertia[b].data();
    double* f = d.f[b].data();
    if (withVelocity) {
      V6 Ia, Iv;
      mul66x2(I, ai, d.V[b].data(), Ia, Iv);
      double iv[6], fv[6];
      store6(iv, Iv);
      const double* Vb = d.V[b].data();
      const D3 w = ld3(Vb), vl = ld3(Vb + 3);
      st3(fv, cross(w, ld3(iv)) + cross(vl, ld3(iv + 3)));
      st3(fv + 3, cross(w, ld3(iv + 3)));
      const V6 f6 = load6(fv);
      Ia.a += f6.a;
      Ia.b += f6.b;
      Ia.c += f6.c;
      store6(f, Ia);
    } else {
      store6(f, mul66(I, ai));
    }
    if (fext != nullptr) d.f[b] -= (*fext)[b];
  }
  for (int i = b1 - 1; i >= b0; --i) {
    const auto b = static_cast<std::size_t>(i);
    const int nv = m.jnt_nv[b];
    const int va = m.jnt_vadr[b];
    const double* f = d.f[b].data();
    const V6 f6 = load6(f);
    for (int k = 0; k < nv; ++k)
      tau[va + k] = dot6(load6(d.S.col(va + k).data()), f6) + m.dof_armature[va + k] * vdot[va + k];
    const int p = m.body_parent[b];
    if (p >= 0) {
      const SE3& X = d.X_PB[b];
      double fp[6];
      actForce(ldM3(X.R.data()), ld3(X.p.data()), f, fp);
      double* P = d.f[static_cast<std::size_t>(p)].data();
      const V6 fp6 = load6(fp);
      V6 P6 = load6(P);
      P6.a += fp6.a;
      P6.b += fp6.b;
      P6.c += fp6.c;
      store6(P, P6);
    }
  }
}

}  // namespace articula::detail

// Energy conservation, stability of implicit springs/damping, and the
// spring–mass period.
//
// Energy normalisation. The potential datum is arbitrary (the API puts zero
// height at the world origin), so |E(0)| can be made as large or as small as
// one likes by moving the pendulum; dividing by it would make the criterion
// depend on where the pivot happens to sit. The drifts below are therefore
// normalised by the datum-independent energy scale of the system,
//   S = M_total · |g| · L_total,
// which is the order of the range of the gravitational potential over all
// configurations (and of the kinetic energies reached).
//
// About semi-implicit Euler and "no secular growth": the scheme
// v ← v + h·M(q)⁻¹(τ − C(q,v)v − g(q)), q ← q + h·v is symplectic Euler only
// when M is constant. For a single revolute DoF (constant M), and for a chain
// oscillating in its linear regime around a stable equilibrium (M ≈ M(q*)),
// it is symplectic, so the energy error is an O(h) oscillation without
// drift. For large-amplitude chaotic motion of a chain, M(q) varies and an
// independent reference implementation of the same scheme shows a genuine
// O(h) secular drift (max |E − E0| ≈ 1.4e-3·S over the first 10 s but
// ≈ 2.4e-2·S over the last 10 s of 100 s for the chain below). The boundedness checks are
// therefore made where the theory guarantees them; the chaotic case only gets
// a loose sanity bound.

#include "crossing_detector.hpp"
#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

// Solid box about its centre (computed here, not with Inertia::box, so the
// test does not depend on that helper).
Matrix3d boxRotational(double m, const Vector3d& s) {
  return (m / 12.0 *
          Vector3d(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(), s.x() * s.x() + s.y() * s.y()))
      .asDiagonal();
}

// ---- the 5-link pendulum ------------------------------------------------
//
// Revolute joints about horizontal axes (Y, except joint 3 about X; joint 2's
// frame is yawed 0.3 rad about Z), each link hanging along −z from its joint,
// the next joint at parentOffset (0, 0, −L). COMs at 0.45·L along the link
// (plus a 2 cm offset along the joint axis for the first two links), boxes
// with rotated (non-diagonal) rotational inertia. q = 0 is the stable
// hanging equilibrium (every COM directly below every pivot).
constexpr int kLinks = 5;
constexpr double kMass[kLinks] = {1.0, 0.8, 1.2, 0.6, 0.9};
constexpr double kLength[kLinks] = {0.5, 0.4, 0.6, 0.35, 0.45};

Inertia chainLinkInertia(int i) {
  Inertia in;
  in.mass = kMass[i];
  in.com = Vector3d(0.0, i < 2 ? 0.02 : 0.0, -0.45 * kLength[i]);
  const Matrix3d Q = Eigen::AngleAxisd(0.2, Vector3d::UnitX()).toRotationMatrix();
  in.rotational = Q * boxRotational(kMass[i], Vector3d(0.06, 0.05, kLength[i])) * Q.transpose();
  return in;
}

struct Chain {
  Multibody mb;
  std::vector<Link> links;
};

Chain buildChain(World& world) {
  Chain c;
  c.mb = world.addMultibody("chain");
  for (int i = 0; i < kLinks; ++i) {
    LinkOptions lo;
    lo.name = "link" + std::to_string(i);
    lo.inertia = chainLinkInertia(i);
    JointSpec js = JointSpec::revolute(i == 3 ? Vector3d::UnitX() : Vector3d::UnitY());
    js.name = "joint" + std::to_string(i);
    Isometry3d po = Isometry3d::Identity();
    if (i > 0) po.translation() = Vector3d(0.0, 0.0, -kLength[i - 1]);
    if (i == 2) po.linear() = Eigen::AngleAxisd(0.3, Vector3d::UnitZ()).toRotationMatrix();
    js.parentOffset = po;
    c.links.push_back(i == 0 ? c.mb.addLink(lo, js) : c.mb.addLink(lo, c.links.back(), js));
  }
  return c;
}

VectorXd chainQ0(double scale) {
  VectorXd q(kLinks);
  q << 0.6, -0.4, 0.8, -0.3, 0.5;
  return scale * q;
}
VectorXd chainV0(double scale) {
  VectorXd v(kLinks);
  v << 0.5, -1.0, 0.8, 1.2, -0.6;
  return scale * v;
}

double chainEnergyScale(double g) {
  double m = 0.0;
  double l = 0.0;
  for (int i = 0; i < kLinks; ++i) {
    m += kMass[i];
    l += kLength[i];
  }
  return m * g * l;
}

// Potential energy at the equilibrium q = 0, from the geometry alone: every
// link hangs straight down, COM height −(Σ_{j<i} L_j) − 0.45·L_i.
double chainEquilibriumPotential(double g) {
  double V = 0.0;
  double depth = 0.0;
  for (int i = 0; i < kLinks; ++i) {
    V += kMass[i] * g * (-(depth + 0.45 * kLength[i]));
    depth += kLength[i];
  }
  return V;
}

// Energies recomputed from frame kinematics: Σ ½ m |v_c|² + ½ ωᵀ I_W ω and
// −Σ m g·c (a different code path from the engine's energy functions).
double frameKineticEnergy(const std::vector<Link>& links) {
  double T = 0.0;
  for (const Link& l : links) {
    const Inertia in = l.getInertia();
    const Matrix3d R = l.getWorldTransform().linear();
    const Vector3d w = l.getAngularVelocity();
    const Vector3d vc = l.getLinearVelocity(in.com);
    T += 0.5 * in.mass * vc.squaredNorm() + 0.5 * w.dot(R * in.rotational * R.transpose() * w);
  }
  return T;
}

double frameGravityPotential(const std::vector<Link>& links, const Vector3d& g) {
  double V = 0.0;
  for (const Link& l : links) V -= l.getInertia().mass * g.dot(l.getCOM());
  return V;
}

// ---- one stiff spring ---------------------------------------------------------
//
// A small link turning about the vertical axis (gravity does no work; its
// COM stays at the pivot height 0, so the gravity potential is 0), with a
// joint spring/damper. Joint inertia I = I_zz,c + m·d².
constexpr double kSmallMass = 0.1;
const Vector3d kSmallSize(0.1, 0.02, 0.02);
constexpr double kSmallComOffset = 0.05;
double smallLinkJointInertia() {
  return boxRotational(kSmallMass, kSmallSize)(2, 2) + kSmallMass * kSmallComOffset * kSmallComOffset;
}

Joint buildSpringLink(World& world, double k, double d, double rest, double armature = 0.0) {
  Multibody mb = world.addMultibody("spring");
  LinkOptions lo;
  lo.name = "rotor";
  lo.inertia.mass = kSmallMass;
  lo.inertia.com = Vector3d(kSmallComOffset, 0.0, 0.0);
  lo.inertia.rotational = boxRotational(kSmallMass, kSmallSize);
  JointSpec js = JointSpec::revolute(Vector3d::UnitZ());
  js.name = "hinge";
  js.springStiffness = VectorXd::Constant(1, k);
  js.damping = VectorXd::Constant(1, d);
  js.restPositions = VectorXd::Constant(1, rest);
  if (armature > 0.0) js.armature = VectorXd::Constant(1, armature);
  return mb.addLink(lo, js).getParentJoint();
}

}  // namespace

class TestEnergy : public QObject {
  Q_OBJECT

 private slots:
  void chainEnergyFunctionsMatchFrameKinematics();
  void rk4ConservesEnergyFiveLinkPendulum();
  void semiImplicitEulerBoundedSmallOscillationChain();
  void semiImplicitEulerBoundedLargeAmplitudeSingleDof();
  void semiImplicitEulerChaoticChainStaysSane();
  void stiffSpringSemiImplicitNeverGainsEnergy();
  void stiffSpringFollowsBackwardEulerRecurrence();
  void dampedStiffSpringDecaysMonotonically();
  void stiffChainWithGravityStaysBounded();
  void springMassPeriodRk4();
  void kineticEnergyIncludesArmature();
};

// Sanity of the energy functions themselves (otherwise a "conserved"
// energy could be conserved for the wrong reasons).
void TestEnergy::chainEnergyFunctionsMatchFrameKinematics() {
  World world;
  Chain c = buildChain(world);
  const Vector3d g = world.getOptions().gravity;
  for (double scale : {0.0, 1.0, 2.0}) {
    c.mb.setPositions(chainQ0(scale));
    c.mb.setVelocities(chainV0(scale));
    const double S = chainEnergyScale(g.norm());
    const double T = world.computeKineticEnergy();
    const double V = world.computePotentialEnergy();
    QVERIFY2(std::abs(T - frameKineticEnergy(c.links)) <= 1e-12 * S,
             qPrintable(QString("T = %1, from frames %2").arg(num(T), num(frameKineticEnergy(c.links)))));
    QVERIFY2(std::abs(V - frameGravityPotential(c.links, g)) <= 1e-12 * S,
             qPrintable(QString("V = %1, from frames %2").arg(num(V), num(frameGravityPotential(c.links, g)))));
    QVERIFY(std::abs(T - c.mb.computeKineticEnergy()) <= 1e-12 * S);
    QVERIFY(std::abs(V - c.mb.computePotentialEnergy()) <= 1e-12 * S);
    // ½ vᵀ M v.
    const VectorXd v = c.mb.getVelocities();
    QVERIFY(std::abs(T - 0.5 * v.dot(c.mb.getMassMatrix() * v)) <= 1e-12 * S);
  }
  // At q = 0 the potential is the geometric one (datum at the world origin).
  c.mb.setPositions(VectorXd::Zero(kLinks));
  QVERIFY2(std::abs(world.computePotentialEnergy() - chainEquilibriumPotential(g.norm())) <= 1e-12 * 100.0,
           qPrintable(QString("V(0) = %1, expected %2")
                          .arg(num(world.computePotentialEnergy()), num(chainEquilibriumPotential(g.norm())))));
}

// (a) RK4, h = 1e-4, 10 s of large-amplitude (chaotic) motion:
// max |E(t) − E(0)| / S ≤ 1e-6. (An independent implementation of the same
// scheme gives ≈ 2e-14.)
void TestEnergy::rk4ConservesEnergyFiveLinkPendulum() {
  WorldOptions opts;
  opts.timeStep = 1e-4;
  opts.integrator = Integrator::RungeKutta4;
  World world(opts);
  Chain c = buildChain(world);
  c.mb.setPositions(chainQ0(1.0));
  c.mb.setVelocities(chainV0(1.0));
  const double S = chainEnergyScale(opts.gravity.norm());
  const double E0 = totalEnergy(world);
  double maxDrift = 0.0;
  double minT = world.computeKineticEnergy();
  double maxT = minT;
  double maxAngle = 0.0;
  const int steps = 100000;
  for (int n = 1; n <= steps; ++n) {
    world.step();
    const double T = world.computeKineticEnergy();
    const double E = T + world.computePotentialEnergy();
    ARTICULA_CHECK(std::isfinite(E), QString("non-finite energy at step %1").arg(n));
    maxDrift = std::max(maxDrift, std::abs(E - E0));
    minT = std::min(minT, T);
    maxT = std::max(maxT, T);
    if (n % 100 == 0) maxAngle = std::max(maxAngle, c.mb.getPositions().cwiseAbs().maxCoeff());
  }
  QVERIFY(std::abs(world.getTime() - 10.0) < 1e-9);
  qInfo("RK4 5-link: E0 = %.12g J, S = %.6g J, max|E-E0|/S = %.3e, T in [%.4g, %.4g] J, max|q| = %.3g rad", E0, S,
        maxDrift / S, minT, maxT, maxAngle);
  // The motion is not trivial: energy is exchanged and joints swing far.
  QVERIFY(maxT - minT > 0.05 * S);
  QVERIFY(maxAngle > 0.8);
  QVERIFY2(maxDrift / S <= 1e-6, qPrintable(QString("relative energy drift %1").arg(num(maxDrift / S))));
}

// (b) Semi-implicit Euler, h = 1e-3, 100 s, the same chain oscillating around
// its equilibrium with 0.1× the initial state of (a) (linear regime, where
// the scheme is symplectic): the error does not grow (max over the last 10 s
// ≤ 2× the max over the first 10 s) and stays below 1 % of the oscillation
// energy E_osc = E0 − V(q*). Reference implementation: ratio ≈ 0.97,
// max |E − E0| ≈ 2e-3·E_osc.
void TestEnergy::semiImplicitEulerBoundedSmallOscillationChain() {
  WorldOptions opts;
  opts.timeStep = 1e-3;
  opts.integrator = Integrator::SemiImplicitEuler;
  World world(opts);
  Chain c = buildChain(world);
  c.mb.setPositions(chainQ0(0.1));
  c.mb.setVelocities(chainV0(0.1));
  const double E0 = totalEnergy(world);
  const double Eosc = E0 - chainEquilibriumPotential(opts.gravity.norm());
  QVERIFY(Eosc > 0.05);
  double first = 0.0;
  double last = 0.0;
  double all = 0.0;
  const int steps = 100000;
  for (int n = 1; n <= steps; ++n) {
    world.step();
    const double err = std::abs(totalEnergy(world) - E0);
    ARTICULA_CHECK(std::isfinite(err), QString("non-finite energy at step %1").arg(n));
    if (n <= 10000) first = std::max(first, err);
    if (n > steps - 10000) last = std::max(last, err);
    all = std::max(all, err);
  }
  qInfo("SIE small oscillation: E_osc = %.6g J, max|E-E0| first 10 s = %.3e, last 10 s = %.3e, all = %.3e", Eosc, first,
        last, all);
  QVERIFY(first > 0.0);  // an O(h) scheme: some error must be visible
  QVERIFY2(last <= 2.0 * first, qPrintable(QString("secular growth: first %1, last %2").arg(num(first), num(last))));
  QVERIFY2(all <= 1e-2 * Eosc,
           qPrintable(QString("max |E-E0| = %1 > 1e-2 * E_osc = %2").arg(num(all), num(1e-2 * Eosc))));
}

// (b') One revolute DoF at large amplitude (θ0 = 2.5 rad, strongly
// nonlinear): semi-implicit Euler is exactly symplectic Euler here, so the
// energy error is periodic. Modified-energy estimate:
// |E − E0| ≲ h·max|θ̇|·m g d (reference implementation: 0.37 of that).
void TestEnergy::semiImplicitEulerBoundedLargeAmplitudeSingleDof() {
  WorldOptions opts;
  opts.timeStep = 1e-3;
  World world(opts);
  const double m = 1.5;
  const double d = 0.4;
  const Vector3d size(0.05, 0.05, 1.0);
  Multibody mb = world.addMultibody("pendulum");
  LinkOptions lo;
  lo.name = "bar";
  lo.inertia.mass = m;
  lo.inertia.com = Vector3d(0.0, 0.0, -d);
  lo.inertia.rotational = boxRotational(m, size);
  mb.addLink(lo, JointSpec::revolute(Vector3d::UnitY()));
  const double theta0 = 2.5;
  mb.setPositions(VectorXd::Constant(1, theta0));
  const double g = opts.gravity.norm();
  const double Ip = boxRotational(m, size)(1, 1) + m * d * d;
  const double thetaDotMax = std::sqrt(2.0 * m * g * d * (1.0 - std::cos(theta0)) / Ip);
  const double E0 = totalEnergy(world);
  QVERIFY(std::abs(E0 - (-m * g * d * std::cos(theta0))) <= 1e-12);
  double first = 0.0;
  double last = 0.0;
  double all = 0.0;
  const int steps = 100000;
  for (int n = 1; n <= steps; ++n) {
    world.step();
    const double err = std::abs(totalEnergy(world) - E0);
    ARTICULA_CHECK(std::isfinite(err), QString("non-finite energy at step %1").arg(n));
    if (n <= 10000) first = std::max(first, err);
    if (n > steps - 10000) last = std::max(last, err);
    all = std::max(all, err);
  }
  const double bound = opts.timeStep * thetaDotMax * m * g * d;
  qInfo("SIE 1-DoF large amplitude: max|E-E0| first 10 s = %.4e, last 10 s = %.4e, bound h*wmax*mgd = %.4e", first,
        last, bound);
  QVERIFY(first > 0.0);
  QVERIFY2(last <= 1.2 * first, qPrintable(QString("secular growth: first %1, last %2").arg(num(first), num(last))));
  QVERIFY2(all <= bound, qPrintable(QString("max |E-E0| = %1 > %2").arg(num(all), num(bound))));
}

// (b'') The chaotic large-amplitude chain with semi-implicit Euler: no
// boundedness guarantee (see the file comment), but the first-order drift
// must stay modest and the state finite. Reference implementation:
// max |E − E0| ≈ 0.024·S over 100 s.
void TestEnergy::semiImplicitEulerChaoticChainStaysSane() {
  WorldOptions opts;
  opts.timeStep = 1e-3;
  World world(opts);
  Chain c = buildChain(world);
  c.mb.setPositions(chainQ0(1.0));
  c.mb.setVelocities(chainV0(1.0));
  const double S = chainEnergyScale(opts.gravity.norm());
  const double E0 = totalEnergy(world);
  double first = 0.0;
  double last = 0.0;
  double all = 0.0;
  const int steps = 100000;
  for (int n = 1; n <= steps; ++n) {
    world.step();
    const double err = std::abs(totalEnergy(world) - E0);
    ARTICULA_CHECK(std::isfinite(err), QString("non-finite energy at step %1").arg(n));
    if (n <= 10000) first = std::max(first, err);
    if (n > steps - 10000) last = std::max(last, err);
    all = std::max(all, err);
  }
  qInfo("SIE chaotic 5-link: max|E-E0|/S first 10 s = %.3e, last 10 s = %.3e, all = %.3e", first / S, last / S,
        all / S);
  QVERIFY2(first <= 0.01 * S, qPrintable(QString("first 10 s: %1 S").arg(num(first / S))));
  QVERIFY2(all <= 0.1 * S, qPrintable(QString("100 s: %1 S").arg(num(all / S))));
}

// (c) A joint spring so stiff that ω·h ≫ 2 (explicit symplectic Euler would
// explode): with implicit springs the energy never exceeds its initial
// value, for a range of stiffnesses. The initial state has both a spring
// deflection and a velocity.
void TestEnergy::stiffSpringSemiImplicitNeverGainsEnergy() {
  const double h = 1e-3;
  const double I = smallLinkJointInertia();
  for (double k : {1e2, 3e3, 1e6, 1e9}) {
    WorldOptions opts;
    opts.timeStep = h;
    World world(opts);
    const double rest = 0.05;
    Joint joint = buildSpringLink(world, k, 0.0, rest);
    joint.setPosition(0, rest + 0.1);
    joint.setVelocity(0, 2.0);
    const double omegaH = std::sqrt(k / I) * h;
    const double E0 = totalEnergy(world);
    const double E0expected = 0.5 * k * 0.01 + 0.5 * I * 4.0;
    QVERIFY2(std::abs(E0 - E0expected) <= 1e-12 * E0expected,
             qPrintable(QString("E0 = %1, expected ½kΔq² + ½Iθ̇² = %2").arg(num(E0), num(E0expected))));
    double maxE = E0;
    for (int n = 1; n <= 2000; ++n) {
      world.step();
      const double E = totalEnergy(world);
      ARTICULA_CHECK(
          std::isfinite(E) && E <= E0 * (1.0 + 1e-12),
          QString("k = %1 (ωh = %2): E = %3 > E0 = %4 at step %5").arg(num(k), num(omegaH), num(E), num(E0)).arg(n));
      maxE = std::max(maxE, E);
    }
    qInfo("stiff spring k = %g (omega*h = %.3g): E0 = %.6g, E(2 s) = %.3e", k, omegaH, E0, totalEnergy(world));
  }
}

// The documented scheme ("v ← v + h·v̇, then q ← q + h·v; springs and
// damping implicit") is, for one DoF with joint inertia I (+ armature a),
// backward Euler in the spring and damper forces:
//   (I + a + h·d + h²·k) θ̇' = (I + a) θ̇ − h·k (θ − θ_r),   θ' = θ + h θ̇'.
// In energy coordinates this map is a rotation scaled by 1/√(1 + h²k/(I+a))
// (without damping), i.e. unconditionally stable.
void TestEnergy::stiffSpringFollowsBackwardEulerRecurrence() {
  const double h = 1e-3;
  struct Case {
    double k, d, a;
  };
  for (const Case& cs : {Case{1e6, 0.0, 0.0}, Case{1e6, 0.05, 0.0}, Case{50.0, 0.002, 1e-4}, Case{0.0, 0.01, 0.0}}) {
    WorldOptions opts;
    opts.timeStep = h;
    World world(opts);
    const double rest = -0.2;
    Joint joint = buildSpringLink(world, cs.k, cs.d, rest, cs.a);
    double th = 0.3;
    double thd = -4.0;
    joint.setPosition(0, th);
    joint.setVelocity(0, thd);
    const double M = smallLinkJointInertia() + cs.a;
    for (int n = 1; n <= 300; ++n) {
      world.step();
      thd = (M * thd - h * cs.k * (th - rest)) / (M + h * cs.d + h * h * cs.k);
      th += h * thd;
      const double gotTh = joint.getPosition(0);
      const double gotThd = joint.getVelocity(0);
      ARTICULA_CHECK(std::abs(gotTh - th) <= 1e-10 * (1.0 + std::abs(th)) &&
                         std::abs(gotThd - thd) <= 1e-10 * (1.0 + std::abs(thd)),
                     QString("k = %1, d = %2, a = %3, step %4: (θ, θ̇) = (%5, %6), backward-Euler recurrence (%7, %8)")
                         .arg(num(cs.k), num(cs.d), num(cs.a))
                         .arg(n)
                         .arg(num(gotTh), num(gotThd), num(th), num(thd)));
    }
  }
}

// (c') With damping the energy decreases at every step (physical and
// numerical dissipation), for stiff and non-stiff springs.
void TestEnergy::dampedStiffSpringDecaysMonotonically() {
  const double h = 1e-3;
  for (double k : {1.0, 1e3, 1e6}) {
    for (double d : {1e-4, 1e-2, 1.0}) {
      WorldOptions opts;
      opts.timeStep = h;
      World world(opts);
      Joint joint = buildSpringLink(world, k, d, 0.1);
      joint.setPosition(0, -0.4);
      joint.setVelocity(0, 3.0);
      const double E0 = totalEnergy(world);
      double prev = E0;
      for (int n = 1; n <= 3000; ++n) {
        world.step();
        const double E = totalEnergy(world);
        ARTICULA_CHECK(std::isfinite(E) && E <= prev + 1e-13 * E0,
                       QString("k = %1, d = %2: energy rose from %3 to %4 at step %5")
                           .arg(num(k), num(d), num(prev), num(E))
                           .arg(n));
        prev = E;
      }
      QVERIFY2(prev < E0, qPrintable(QString("k = %1, d = %2: no dissipation").arg(num(k), num(d))));
    }
  }
  // Physical decay rate of a pure damper: θ̇(t) = θ̇0·exp(−d t / I); the
  // implicit scheme gives θ̇0·(1 + h d / I)^(−n), within h·t·(d/I)²/2 of it.
  WorldOptions opts;
  opts.timeStep = h;
  World world(opts);
  const double I = smallLinkJointInertia();
  const double d = 2.0 * I;  // decay rate 2 /s
  Joint joint = buildSpringLink(world, 0.0, d, 0.0);
  joint.setVelocity(0, 1.0);
  world.step(1000);
  const double expected = std::exp(-2.0);
  QVERIFY2(std::abs(joint.getVelocity(0) - expected) <= 0.6 * h * 1.0 * 4.0 * expected + 1e-12,
           qPrintable(QString("θ̇(1 s) = %1, exp(-2) = %2").arg(num(joint.getVelocity(0)), num(expected))));
}

// (c'') A 3-link chain about horizontal axes with very stiff springs
// (ω·h ≈ 10² … 10³), gravity and semi-implicit Euler: no blow-up, the
// energy stays below its initial value (up to the small work gravity can do
// while the springs are being dissipated), and the chain settles at the
// spring/gravity equilibrium (deflection ≈ gravity torque / k).
void TestEnergy::stiffChainWithGravityStaysBounded() {
  for (double d : {0.0, 0.05}) {
    WorldOptions opts;
    opts.timeStep = 1e-3;
    World world(opts);
    Multibody mb = world.addMultibody("stiff");
    Link parent;
    for (int i = 0; i < 3; ++i) {
      LinkOptions lo;
      lo.name = "l" + std::to_string(i);
      lo.inertia.mass = 0.2;
      lo.inertia.com = Vector3d(0.1, 0.0, -0.05);
      lo.inertia.rotational = boxRotational(0.2, Vector3d(0.2, 0.02, 0.02));
      JointSpec js = JointSpec::revolute(Vector3d::UnitY());
      if (i > 0) js.parentOffset = Isometry3d(Eigen::Translation3d(0.2, 0.0, 0.0));
      js.springStiffness = VectorXd::Constant(1, 1e6);
      js.damping = VectorXd::Constant(1, d);
      js.restPositions = VectorXd::Constant(1, 0.0);
      parent = i == 0 ? mb.addLink(lo, js) : mb.addLink(lo, parent, js);
    }
    VectorXd q0(3);
    q0 << 0.05, -0.03, 0.04;
    VectorXd v0(3);
    v0 << 1.0, -2.0, 3.0;
    mb.setPositions(q0);
    mb.setVelocities(v0);
    const double E0 = totalEnergy(world);
    QVERIFY(E0 > 1000.0);  // dominated by the springs (½·1e6·Σq² ≈ 2.5e3 J)
    for (int n = 1; n <= 2000; ++n) {
      world.step();
      const double E = totalEnergy(world);
      ARTICULA_CHECK(std::isfinite(E) && E <= E0 + 1e-9 * E0,
                     QString("d = %1: E = %2 > E0 = %3 at step %4").arg(num(d), num(E), num(E0)).arg(n));
    }
    // Static equilibrium: τ_spring = −k q balances gravity, q ≈ −k⁻¹·g(q) ≈ O(1e-6).
    const VectorXd q = mb.getPositions();
    QVERIFY2(q.cwiseAbs().maxCoeff() < 1e-4,
             qPrintable(QString("q = %1").arg(QString::fromStdString(test::describe(q.transpose())))));
    QVERIFY2(mb.getVelocities().cwiseAbs().maxCoeff() < 1e-3,
             qPrintable(QString("v = %1").arg(QString::fromStdString(test::describe(mb.getVelocities().transpose())))));
  }
}

// (d) Prismatic spring–mass without gravity, RK4: period 2π√((m + a)/k) to
// 1e-6 relative (RK4 phase error at ωh = 4.5e-4 is ~1e-14), rest position
// respected, energy ½(m+a)ẋ² + ½k(x − x_r)² conserved.
void TestEnergy::springMassPeriodRk4() {
  WorldOptions opts;
  opts.gravity = Vector3d::Zero();
  opts.timeStep = 1e-4;
  opts.integrator = Integrator::RungeKutta4;
  World world(opts);
  const double m = 2.0;
  const double a = 0.5;
  const double k = 50.0;
  const double rest = 0.3;
  Multibody mb = world.addMultibody("oscillator");
  LinkOptions lo;
  lo.name = "slider";
  lo.inertia.mass = m;
  lo.inertia.com = Vector3d(0.1, 0.2, -0.1);
  lo.inertia.rotational = boxRotational(m, Vector3d(0.3, 0.2, 0.1));
  JointSpec js = JointSpec::prismatic(Vector3d(1.0, 1.0, 0.0).normalized());
  js.parentOffset = Isometry3d(Eigen::Translation3d(0.5, -1.0, 2.0));
  js.springStiffness = VectorXd::Constant(1, k);
  js.restPositions = VectorXd::Constant(1, rest);
  js.armature = VectorXd::Constant(1, a);
  Joint joint = mb.addLink(lo, js).getParentJoint();
  const double x0 = rest + 0.2;
  const double v0 = 0.1;
  joint.setPosition(0, x0);
  joint.setVelocity(0, v0);
  const double E0 = totalEnergy(world);
  const double E0expected = 0.5 * (m + a) * v0 * v0 + 0.5 * k * (x0 - rest) * (x0 - rest);
  QVERIFY2(std::abs(mb.getMassMatrix()(0, 0) - (m + a)) <= 1e-12,
           qPrintable(QString("M = %1, expected m + a = %2").arg(num(mb.getMassMatrix()(0, 0)), num(m + a))));

  const double Texpected = 2.0 * std::numbers::pi * std::sqrt((m + a) / k);
  CrossingDetector det;
  det.add(0.0, x0 - rest, v0);
  double maxDev = 0.0;
  const int steps = static_cast<int>(std::ceil(6.2 * Texpected / opts.timeStep));
  for (int n = 1; n <= steps; ++n) {
    world.step();
    const double x = joint.getPosition(0);
    const double v = joint.getVelocity(0);
    det.add(world.getTime(), x - rest, v);
    maxDev = std::max(maxDev, std::abs(totalEnergy(world) - E0));
  }
  const double T = det.meanPeriod();
  qInfo("spring-mass: %d crossings, period %.12g s, expected %.12g s, rel err %.3e, max|E-E0|/E0 %.3e",
        static_cast<int>(det.crossings().size()), T, Texpected, std::abs(T - Texpected) / Texpected, maxDev / E0);
  QVERIFY(det.crossings().size() >= 5);
  QVERIFY2(std::abs(T - Texpected) <= 1e-6 * Texpected,
           qPrintable(QString("period %1, expected %2").arg(num(T), num(Texpected))));
  // The phase too: x(t) − x_r = A cos(ωt) + (v0/ω) sin(ωt).
  const double w = 2.0 * std::numbers::pi / Texpected;
  const double t = world.getTime();
  const double xExpected = rest + (x0 - rest) * std::cos(w * t) + v0 / w * std::sin(w * t);
  QVERIFY2(std::abs(joint.getPosition(0) - xExpected) <= 1e-8,
           qPrintable(QString("x(%1) = %2, expected %3").arg(num(t), num(joint.getPosition(0)), num(xExpected))));
  // Energy ½(m+a)ẋ² + ½k(x − x_r)² (the armature's kinetic energy included,
  // as in ½ vᵀ M v) is the conserved quantity.
  QVERIFY2(std::abs(E0 - E0expected) <= 1e-12 * E0expected,
           qPrintable(QString("E0 = %1, expected ½(m+a)ẋ² + ½k(x−x_r)² = %2").arg(num(E0), num(E0expected))));
  QVERIFY2(maxDev <= 1e-9 * E0, qPrintable(QString("max |E - E0| / E0 = %1").arg(num(maxDev / E0))));
}

// Kinetic energy is ½ vᵀ M v with the armature included in M (multibody.hpp:
// getMassMatrix "armature included", computeKineticEnergy "½ vᵀ M v");
// otherwise the energy of a system with armature is not conserved by the
// dynamics, which do include the armature.
void TestEnergy::kineticEnergyIncludesArmature() {
  World world;
  Multibody mb = world.addMultibody("geared");
  Link parent;
  for (int i = 0; i < 3; ++i) {
    LinkOptions lo;
    lo.name = "l" + std::to_string(i);
    lo.inertia = chainLinkInertia(i);
    JointSpec js = JointSpec::revolute(i == 1 ? Vector3d::UnitX() : Vector3d::UnitY());
    if (i > 0) js.parentOffset = Isometry3d(Eigen::Translation3d(0.0, 0.0, -kLength[i - 1]));
    js.armature = VectorXd::Constant(1, 0.05 * (i + 1));
    parent = i == 0 ? mb.addLink(lo, js) : mb.addLink(lo, parent, js);
  }
  VectorXd q(3);
  q << 0.3, -0.5, 0.8;
  VectorXd v(3);
  v << 1.0, -2.0, 0.5;
  mb.setPositions(q);
  mb.setVelocities(v);
  const double armatureEnergy = 0.5 * (0.05 * 1.0 * 1.0 + 0.10 * 4.0 + 0.15 * 0.25);
  const double bodies = frameKineticEnergy(mb.getLinks());
  const double vMv = 0.5 * v.dot(mb.getMassMatrix() * v);
  QVERIFY2(std::abs(vMv - (bodies + armatureEnergy)) <= 1e-12 * vMv,
           qPrintable(QString("½vᵀMv = %1, bodies + armature = %2").arg(num(vMv), num(bodies + armatureEnergy))));
  QVERIFY2(std::abs(mb.computeKineticEnergy() - vMv) <= 1e-12 * vMv,
           qPrintable(QString("Multibody::computeKineticEnergy = %1, ½vᵀMv = %2 (bodies only: %3)")
                          .arg(num(mb.computeKineticEnergy()), num(vMv), num(bodies))));
  QVERIFY2(std::abs(world.computeKineticEnergy() - vMv) <= 1e-12 * vMv,
           qPrintable(QString("World::computeKineticEnergy = %1, ½vᵀMv = %2 (bodies only: %3)")
                          .arg(num(world.computeKineticEnergy()), num(vMv), num(bodies))));
}

QTEST_APPLESS_MAIN(TestEnergy)
#include "test_energy.moc"

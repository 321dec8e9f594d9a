// Bitwise determinism of stepping: two independently built identical worlds
// produce identical q and v bit for bit, and restoring a saved WorldState
// replays the same trajectory bit for bit. Both integrators.

#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

constexpr int kSteps = 2000;
constexpr int kHalf = 1000;

VectorXd vec(std::initializer_list<double> values) {
  VectorXd v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double x : values) v[i++] = x;
  return v;
}

LinkOptions linkOptions(const std::string& name, double mass, const Vector3d& com, const Vector3d& principal) {
  LinkOptions o;
  o.name = name;
  o.inertia.mass = mass;
  o.inertia.com = com;
  o.inertia.rotational = principal.asDiagonal();
  return o;
}

/// Adds passive dynamics to a spec: spring (if allowed), damping, armature per DoF.
JointSpec withPassive(JointSpec spec, double stiffness, double damping, double armature) {
  const int nv = numDofs(spec.type);
  if (spec.type != JointType::Ball && spec.type != JointType::Free && nv > 0) {
    spec.springStiffness = VectorXd::Constant(nv, stiffness);
    spec.restPositions = VectorXd::LinSpaced(nv, 0.05, 0.15);
  }
  if (nv > 0) {
    spec.damping = VectorXd::Constant(nv, damping);
    spec.armature = VectorXd::Constant(nv, armature);
  }
  return spec;
}

/// Handles of one scene instance.
struct Scene {
  Multibody mb;
  std::vector<Link> links;
  std::vector<RigidBody> bodies;
};

/// A branched multibody with all ten joint types, plus two tumbling rigid bodies.
Scene buildScene(World& w) {
  Scene s;
  s.mb = w.addMultibody("robot");
  Multibody& mb = s.mb;
  const Vector3d I1(0.02, 0.025, 0.03), I2(0.01, 0.015, 0.012);
  Link torso = mb.addLink(linkOptions("torso", 3.0, Vector3d(0.01, 0.02, -0.01), Vector3d(0.1, 0.2, 0.15)),
                          JointSpec::free().named("root"));
  // Branch 1: revolute → prismatic → screw.
  Link r = mb.addLink(
      linkOptions("rev", 1.0, Vector3d(0.1, 0, 0), I1), torso,
      withPassive(JointSpec::revolute(Vector3d(0, 1, 0.2)).withParentOffset(translation(0.2, 0, 0)), 8.0, 0.05, 0.01)
          .named("j_rev"));
  Link p = mb.addLink(
      linkOptions("pri", 0.6, Vector3d(0, 0.05, 0), I2), r,
      withPassive(JointSpec::prismatic(Vector3d(1, 0, 0)).withParentOffset(translation(0.25, 0, 0)), 20.0, 0.5, 0.02)
          .named("j_pri"));
  Link sc = mb.addLink(
      linkOptions("scr", 0.4, Vector3d(0, 0, 0.05), I2), p,
      withPassive(JointSpec::screw(Vector3d(0, 0, 1), 0.02).withParentOffset(translation(0.1, 0, 0)), 3.0, 0.02, 0.005)
          .named("j_scr"));
  // Branch 2: universal → ball → euler.
  Link u = mb.addLink(
      linkOptions("uni", 0.8, Vector3d(0, 0, -0.1), I1), torso,
      withPassive(
          JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitY()).withParentOffset(translation(-0.2, 0.1, 0)), 6.0,
          0.04, 0.01)
          .named("j_uni"));
  Link b = mb.addLink(
      linkOptions("ball", 0.7, Vector3d(0.02, 0, -0.12), I1), u,
      withPassive(JointSpec::ball().withParentOffset(translation(0, 0, -0.2)), 0.0, 0.03, 0.0).named("j_ball"));
  Link e = mb.addLink(linkOptions("eul", 0.5, Vector3d(0, 0.03, -0.08), I2), b,
                      withPassive(JointSpec::euler(EulerOrder::ZYX)
                                      .withParentOffset(translation(0, 0, -0.25) * rotation(0.3, Vector3d::UnitX())),
                                  4.0, 0.02, 0.004)
                          .named("j_eul"));
  // Branch 3: planar → translational → weld.
  Link pl = mb.addLink(
      linkOptions("pla", 0.9, Vector3d(0.03, 0.03, 0), I1), torso,
      withPassive(JointSpec::planar().withParentOffset(translation(0, -0.2, 0.1)), 5.0, 0.1, 0.01).named("j_pla"));
  Link tr =
      mb.addLink(linkOptions("tra", 0.5, Vector3d(0, 0, 0.02), I2), pl,
                 withPassive(JointSpec::translational().withParentOffset(translation(0, -0.15, 0)), 15.0, 0.3, 0.01)
                     .named("j_tra"));
  Link wd = mb.addLink(linkOptions("weld", 0.3, Vector3d(0.05, 0, 0), I2), tr,
                       JointSpec::weld(translation(0.1, 0, 0) * rotation(0.5, Vector3d::UnitZ())).named("j_weld"));
  s.links = {torso, r, p, sc, u, b, e, pl, tr, wd};

  // Non-trivial initial state.
  const Eigen::Vector4d qt = Eigen::Vector4d(0.1, -0.2, 0.05, 0.97).normalized();
  torso.getParentJoint().setPositions(vec({0.0, 0.0, 1.0, qt[0], qt[1], qt[2], qt[3]}));
  torso.getParentJoint().setVelocities(vec({0.3, -0.5, 0.8, 0.2, 0.1, -0.3}));
  r.getParentJoint().setPositions(vec({0.4}));
  r.getParentJoint().setVelocities(vec({2.0}));
  p.getParentJoint().setPositions(vec({0.05}));
  sc.getParentJoint().setVelocities(vec({-3.0}));
  u.getParentJoint().setPositions(vec({0.3, -0.2}));
  u.getParentJoint().setVelocities(vec({1.0, 0.5}));
  const Eigen::Vector4d qb = Eigen::Vector4d(0.2, 0.1, -0.3, 0.9).normalized();
  b.getParentJoint().setPositions(vec({qb[0], qb[1], qb[2], qb[3]}));
  b.getParentJoint().setVelocities(vec({1.5, -2.0, 0.7}));
  e.getParentJoint().setPositions(vec({0.2, -0.4, 0.6}));
  e.getParentJoint().setVelocities(vec({0.5, 0.5, -1.0}));
  pl.getParentJoint().setPositions(vec({0.02, -0.03, 0.5}));
  pl.getParentJoint().setVelocities(vec({0.1, 0.0, -1.2}));
  tr.getParentJoint().setVelocities(vec({0.1, -0.1, 0.2}));
  // Persistent joint forces (not cleared by step()).
  VectorXd tau = VectorXd::Zero(mb.numDofs());
  for (Eigen::Index i = 0; i < tau.size(); ++i) tau[i] = 0.01 * std::sin(1.7 * static_cast<double>(i + 1));
  mb.setForces(tau);

  // Two asymmetric tumbling rigid bodies (chaotic free rotation).
  RigidBodyOptions o1;
  o1.inertia.mass = 1.3;
  o1.inertia.com = Vector3d(0.01, -0.02, 0.03);
  o1.inertia.rotational = Vector3d(0.05, 0.11, 0.13).asDiagonal();
  o1.pose = translation(1, 0, 2) * rotation(0.7, Vector3d(1, 2, 3));
  o1.linearVelocity = Vector3d(0.2, -0.1, 3.0);
  o1.angularVelocity = Vector3d(0.1, 7.0, 0.2);  // near the unstable intermediate axis
  RigidBodyOptions o2 = o1;
  o2.inertia.mass = 0.4;
  o2.inertia.rotational = Vector3d(0.002, 0.003, 0.0045).asDiagonal();
  o2.pose = translation(-1, 0.5, 0.3);
  o2.angularVelocity = Vector3d(-4.0, 0.3, 2.5);
  s.bodies = {w.addRigidBody("tumbler", o1), w.addRigidBody("pebble", o2)};
  return s;
}

/// External forces as a function of the step index only, re-applied before every step.
void applyExternalForces(Scene& s, int k) {
  const double t = 0.001 * static_cast<double>(k);
  s.links[0].addExternalForce(Vector3d(2.0 * std::sin(3.0 * t), 1.5 * std::cos(2.0 * t), 5.0),
                              Vector3d(0.05, 0.02, 0.0));
  s.links[3].addExternalTorque(Vector3d(0.0, 0.02 * std::cos(5.0 * t), 0.01));
  s.links[6].addExternalForce(Vector3d(0.0, 0.0, 1.0 + std::sin(t)), Vector3d(0.0, 0.0, -0.05), false, false);
  s.links[9].addExternalForce(Vector3d(0.3, 0.0, 0.0), Vector3d(0.1, 0.1, 1.0), true, true);
  s.bodies[0].addExternalForce(Vector3d(0.0, 0.5 * std::sin(7.0 * t), 12.0), Vector3d(0.02, 0.0, 0.01));
  s.bodies[1].addExternalTorque(Vector3d(0.001, 0.0, -0.002 * std::cos(t)), false);
}

void run(World& w, Scene& s, int fromStep, int toStep) {
  for (int k = fromStep; k < toStep; ++k) {
    applyExternalForces(s, k);
    w.step(1);
  }
}

bool bitEqual(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}

QString diffReport(const VectorXd& a, const VectorXd& b) {
  if (a.size() != b.size()) return QString("size %1 vs %2").arg(a.size()).arg(b.size());
  Eigen::Index firstDiff = -1;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) {
      firstDiff = i;
      break;
    }
  if (firstDiff < 0) return "identical";
  return QString("first difference at index %1: %2 vs %3; max |diff| %4")
      .arg(firstDiff)
      .arg(a[firstDiff], 0, 'g', 17)
      .arg(b[firstDiff], 0, 'g', 17)
      .arg((a - b).cwiseAbs().maxCoeff(), 0, 'g', 3);
}

WorldOptions optionsFor(Integrator integrator) {
  WorldOptions o;
  o.integrator = integrator;
  o.timeStep = 1e-3;
  return o;
}

}  // namespace

#define VERIFY_BITS(a, b, what)                                                            \
  do {                                                                                     \
    const VectorXd va_ = (a), vb_ = (b);                                                   \
    QVERIFY2(bitEqual(va_, vb_), qPrintable(QString(what) + ": " + diffReport(va_, vb_))); \
  } while (false)

class TestDeterminism : public QObject {
  Q_OBJECT

 private slots:
  void independentWorldsAreBitIdentical_data();
  void independentWorldsAreBitIdentical();
  void restoredStateReplaysBitIdentical_data();
  void restoredStateReplaysBitIdentical();
};

namespace {
void addIntegratorRows() {
  QTest::addColumn<int>("integrator");
  QTest::newRow("semi-implicit Euler") << static_cast<int>(Integrator::SemiImplicitEuler);
  QTest::newRow("Runge-Kutta 4") << static_cast<int>(Integrator::RungeKutta4);
}
}  // namespace

void TestDeterminism::independentWorldsAreBitIdentical_data() {
  addIntegratorRows();
}

void TestDeterminism::independentWorldsAreBitIdentical() {
  QFETCH(int, integrator);
  const WorldOptions opts = optionsFor(static_cast<Integrator>(integrator));
  World a(opts);
  World b(opts);
  Scene sa = buildScene(a);
  // Some unrelated allocations between the two builds, so the two worlds'
  // memory layouts differ.
  std::vector<std::vector<double>> noise(37, std::vector<double>(13, 1.0));
  Scene sb = buildScene(b);
  QVERIFY(!noise.empty());

  const VectorXd q0 = a.getPositions();
  QCOMPARE(a.numPositions(), b.numPositions());
  QCOMPARE(a.numDofs(), b.numDofs());
  QCOMPARE(a.numDofs(), 6 + 1 + 1 + 1 + 2 + 3 + 3 + 3 + 3 + 0 + 6 + 6);
  VERIFY_BITS(a.getPositions(), b.getPositions(), "initial q");
  VERIFY_BITS(a.getVelocities(), b.getVelocities(), "initial v");

  for (int chunk = 0; chunk < kSteps / 250; ++chunk) {
    run(a, sa, chunk * 250, (chunk + 1) * 250);
    run(b, sb, chunk * 250, (chunk + 1) * 250);
    const QString at = QString(" after %1 steps").arg((chunk + 1) * 250);
    VERIFY_BITS(a.getPositions(), b.getPositions(), "q" + at);
    VERIFY_BITS(a.getVelocities(), b.getVelocities(), "v" + at);
  }
  QCOMPARE(a.getFrameIndex(), std::uint64_t{kSteps});
  QCOMPARE(a.getTime(), b.getTime());
  VERIFY_BITS(a.getState().accelerations, b.getState().accelerations, "accelerations");

  // The scene really moved and stayed finite (otherwise equality is vacuous).
  const VectorXd q = a.getPositions();
  QVERIFY2(q.allFinite(), "non-finite positions");
  QVERIFY2(a.getVelocities().allFinite(), "non-finite velocities");
  QVERIFY((q - q0).cwiseAbs().maxCoeff() > 1e-3);
}

void TestDeterminism::restoredStateReplaysBitIdentical_data() {
  addIntegratorRows();
}

void TestDeterminism::restoredStateReplaysBitIdentical() {
  QFETCH(int, integrator);
  const WorldOptions opts = optionsFor(static_cast<Integrator>(integrator));
  World w(opts);
  Scene s = buildScene(w);
  w.enterSimulationMode();

  run(w, s, 0, kHalf);
  const WorldState saved = w.getState();
  QCOMPARE(saved.frameIndex, std::uint64_t{kHalf});

  run(w, s, kHalf, kSteps);
  const VectorXd qRef = w.getPositions(), vRef = w.getVelocities();
  const double tRef = w.getTime();
  QVERIFY(!bitEqual(qRef, saved.positions));

  w.setState(saved);
  VERIFY_BITS(w.getPositions(), saved.positions, "q after setState");
  VERIFY_BITS(w.getVelocities(), saved.velocities, "v after setState");
  QCOMPARE(w.getFrameIndex(), std::uint64_t{kHalf});

  run(w, s, kHalf, kSteps);
  VERIFY_BITS(w.getPositions(), qRef, "q after replay");
  VERIFY_BITS(w.getVelocities(), vRef, "v after replay");
  QCOMPARE(w.getTime(), tRef);
  QCOMPARE(w.getFrameIndex(), std::uint64_t{kSteps});

  // A saved state also transfers to an independently built world.
  World other(opts);
  Scene so = buildScene(other);
  other.enterSimulationMode();
  other.setState(saved);
  run(other, so, kHalf, kSteps);
  VERIFY_BITS(other.getPositions(), qRef, "q of another world from the saved state");
  VERIFY_BITS(other.getVelocities(), vRef, "v of another world from the saved state");
}

QTEST_APPLESS_MAIN(TestDeterminism)
#include "test_determinism.moc"

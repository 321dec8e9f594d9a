// Cross-checks of the multibody dynamics algorithms against each other, on
// deterministic random trees with every joint type:
//   articulated-body forward dynamics (ABA)  vs  M⁻¹(τ − C v − g) with M from CRBA;
//   recursive Newton–Euler inverse dynamics  vs  ABA (round trip, with external wrenches);
//   M symmetric positive definite, M⁻¹ M = I, M e_i = ID(e_i) − ID(0);
//   C v + g split, g = ID(0) at v = 0, C quadratic in v;
//   g(q)ᵀ v = dV/dt (finite differences of the potential energy);
//   external wrenches: generalized force Σ Jᵀ f, link wrench accumulation;
//   armature adds to the diagonal of M;
//   T = ½ vᵀ M v = Σ (½ m |v_c|² + ½ ωᵀ I ω) (+ rotor energy), momenta;
//   power balance dT/dt = vᵀ(τ − g) along the ABA trajectory;
//   a free body falls with COM acceleration g and rotates by Euler's equations;
//   a free-floating tree's momentum changes only by gravity.

#include "random_tree.hpp"
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

QString treeContext(int seed, int numLinks, JointType root, int trial) {
  return QString("seed %1, %2 links, root %3, trial %4").arg(seed).arg(numLinks).arg(jointTypeName(root)).arg(trial);
}

bool scalarNear(double actual, double expected, double tol) {
  return std::abs(actual - expected) <= tol * std::max(1.0, std::abs(expected));
}

QString scalarMessage(const QString& what, double actual, double expected) {
  return QString("%1: actual %2, expected %3 (difference %4)")
      .arg(what)
      .arg(actual, 0, 'g', 17)
      .arg(expected, 0, 'g', 17)
      .arg(actual - expected, 0, 'g', 3);
}

/// Random external forces and torques on about a third of the links, with
/// every combination of the force/offset coordinate flags. Returns the
/// generalized force Σ Jᵀ f they should produce (built from the world-frame
/// point Jacobians) and fills the expected accumulated link wrenches.
VectorXd applyRandomExternalWrenches(std::mt19937& rng, RandomTree& t, std::vector<Vector6d>& expectedLinkWrench) {
  const int nv = t.mb.numDofs();
  VectorXd generalized = VectorXd::Zero(nv);
  expectedLinkWrench.assign(t.links.size(), Vector6d::Zero());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    Link& link = t.links[i];
    link.clearExternalForces();
    if (uniform(rng, 0.0, 1.0) > 0.35 && i != 0) continue;
    const Isometry3d X_WL = link.getWorldTransform();
    const Matrix3d R_WL = X_WL.linear();
    const int nForces = uniformInt(rng, 1, 2);
    for (int k = 0; k < nForces; ++k) {
      const Vector3d f = randomVector(rng, -3.0, 3.0);
      const Vector3d offset = randomVector(rng, -0.5, 0.5);
      const bool forceInWorld = uniform(rng, 0.0, 1.0) < 0.5;
      const bool offsetInWorld = uniform(rng, 0.0, 1.0) < 0.5;
      link.addExternalForce(f, offset, forceInWorld, offsetInWorld);
      const Vector3d f_W = forceInWorld ? f : Vector3d(R_WL * f);
      const Vector3d r_L = offsetInWorld ? Vector3d(X_WL.inverse() * offset) : offset;
      generalized += link.getLinearJacobian(r_L).transpose() * f_W;
      const Vector3d f_L = R_WL.transpose() * f_W;
      expectedLinkWrench[i].head<3>() += r_L.cross(f_L);
      expectedLinkWrench[i].tail<3>() += f_L;
    }
    const Vector3d torque = randomVector(rng, -2.0, 2.0);
    const bool torqueInWorld = uniform(rng, 0.0, 1.0) < 0.5;
    link.addExternalTorque(torque, torqueInWorld);
    const Vector3d tau_W = torqueInWorld ? torque : Vector3d(R_WL * torque);
    generalized += link.getAngularJacobian().transpose() * tau_W;
    expectedLinkWrench[i].head<3>() += R_WL.transpose() * tau_W;
  }
  return generalized;
}

void clearExternalWrenches(RandomTree& t) {
  for (Link& link : t.links) link.clearExternalForces();
}

/// Random state: positions, velocities in [-1, 1].
void setRandomState(std::mt19937& rng, RandomTree& t, VectorXd& q, VectorXd& v) {
  q = randomPositions(rng, t.mb);
  v = randomVectorX(rng, t.mb.numDofs(), -1.0, 1.0);
  t.mb.setPositions(q);
  t.mb.setVelocities(v);
}

}  // namespace

class DynamicsConsistencyTest : public QObject {
  Q_OBJECT

 private:
  static void addTreeRows() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("numLinks");
    QTest::addColumn<int>("rootType");
    struct Row {
      int numLinks;
      std::vector<JointType> roots;
    };
    const std::vector<Row> rows = {
        {1,
         {JointType::Revolute, JointType::Prismatic, JointType::Screw, JointType::Universal, JointType::Ball,
          JointType::Euler, JointType::Planar, JointType::Translational, JointType::Free}},
        {2, {JointType::Free, JointType::Ball, JointType::Weld, JointType::Euler}},
        {5, {JointType::Free, JointType::Weld, JointType::Planar, JointType::Screw}},
        {10, {JointType::Free, JointType::Universal, JointType::Translational}},
        {25, {JointType::Free, JointType::Weld, JointType::Prismatic}},
        {50, {JointType::Free, JointType::Ball}},
    };
    int seed = 17;
    for (const Row& row : rows) {
      for (JointType root : row.roots) {
        seed += 31;
        const QByteArray name = QString("%1 links, %2 root").arg(row.numLinks).arg(jointTypeName(root)).toUtf8();
        QTest::newRow(name.constData()) << seed << row.numLinks << static_cast<int>(root);
      }
    }
  }

  static RandomTree fetchTree(bool armature = true) {
    QFETCH(int, seed);
    QFETCH(int, numLinks);
    QFETCH(int, rootType);
    TreeOptions opt;
    opt.numLinks = numLinks;
    opt.rootType = static_cast<JointType>(rootType);
    opt.armature = armature;
    return makeRandomTree(static_cast<std::uint32_t>(seed), opt);
  }

  static QString fetchContext(int trial) {
    QFETCH(int, seed);
    QFETCH(int, numLinks);
    QFETCH(int, rootType);
    return treeContext(seed, numLinks, static_cast<JointType>(rootType), trial);
  }

  static std::uint32_t fetchSeed() {
    QFETCH(int, seed);
    return static_cast<std::uint32_t>(seed);
  }

 private slots:
  // ---- layout ------------------------------------------------------------
  void stateLayoutFollowsJointOrder_data() { addTreeRows(); }
  void stateLayoutFollowsJointOrder() {
    RandomTree t = fetchTree();
    const std::vector<Joint> joints = t.mb.getJoints();
    const std::vector<Link> links = t.mb.getLinks();
    QCOMPARE(static_cast<int>(joints.size()), static_cast<int>(t.links.size()));
    QCOMPARE(static_cast<int>(links.size()), static_cast<int>(t.links.size()));
    int qo = 0;
    int vo = 0;
    for (std::size_t i = 0; i < joints.size(); ++i) {
      const Joint& j = joints[i];
      QVERIFY2(j.getChildLink() == links[i], "getJoints()[i] must be the parent joint of getLinks()[i]");
      QCOMPARE(j.numPositions(), expectedNumPositions(j.type()));
      QCOMPARE(j.numDofs(), expectedNumDofs(j.type()));
      QCOMPARE(j.positionOffset(), qo);
      QCOMPARE(j.velocityOffset(), vo);
      qo += j.numPositions();
      vo += j.numDofs();
      // Parents before children.
      if (const auto parent = links[i].getParentLink()) {
        bool parentEarlier = false;
        for (std::size_t k = 0; k < i; ++k) parentEarlier = parentEarlier || links[k] == *parent;
        QVERIFY2(parentEarlier, "tree order must list parents before children");
      }
    }
    QCOMPARE(t.mb.numPositions(), qo);
    QCOMPARE(t.mb.numDofs(), vo);
    // The specs went where they were asked to.
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      QCOMPARE(QString(jointTypeName(t.links[i].getParentJoint().type())), QString(jointTypeName(t.specs[i].type)));
      const std::optional<Link> parentLink = t.links[i].getParentLink();
      QCOMPARE(parentLink.has_value(), t.parents[i] >= 0);
      if (t.parents[i] >= 0) {
        QVERIFY2(*parentLink == t.links[static_cast<std::size_t>(t.parents[i])], "parent link of a link");
      }
      const Inertia I = t.links[i].getInertia();
      QVERIFY(std::abs(I.mass - t.inertias[i].mass) <= 1e-14);
      ARTICULA_VERIFY_NEAR(I.com, t.inertias[i].com, 1e-14);
      ARTICULA_VERIFY_NEAR(I.rotational, t.inertias[i].rotational, 1e-14);
    }
  }

  // ---- (a) ABA vs CRBA -----------------------------------------------------
  void forwardDynamicsMatchesMassMatrixSolve_data() { addTreeRows(); }
  void forwardDynamicsMatchesMassMatrixSolve() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 1000u);
    const int nv = t.mb.numDofs();
    for (int trial = 0; trial < 3; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      const VectorXd tau = randomVectorX(rng, nv, -2.0, 2.0);

      const VectorXd vdot = t.mb.computeForwardDynamics(tau);
      QCOMPARE(static_cast<int>(vdot.size()), nv);
      const MatrixXd M = t.mb.getMassMatrix();
      const VectorXd bias = t.mb.getCoriolisAndGravityForces();
      const VectorXd expected = M.ldlt().solve(tau - bias);
      const double tol = solveTolerance(M);
      ARTICULA_VERIFY_NEAR_MSG(vdot, expected, tol,
                               ctx + QString(" ABA vs CRBA solve (cond(M) = %1)").arg(conditionNumber(M)));
      ARTICULA_VERIFY_NEAR_MSG(M * vdot + bias, tau, tol, ctx + " residual M v̇ + b − τ");

      // Forward dynamics must not change the state.
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getPositions(), q, 1e-15, ctx + " positions changed by ABA");
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getVelocities(), v, 1e-15, ctx + " velocities changed by ABA");
    }
  }

  // ---- (b) RNEA ∘ ABA = identity, with external wrenches -------------------
  void inverseDynamicsInvertsForwardDynamics_data() { addTreeRows(); }
  void inverseDynamicsInvertsForwardDynamics() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 2000u);
    const int nv = t.mb.numDofs();
    for (int trial = 0; trial < 3; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      std::vector<Vector6d> wrenches;
      if (trial > 0)
        applyRandomExternalWrenches(rng, t, wrenches);
      else
        clearExternalWrenches(t);
      const VectorXd tau = randomVectorX(rng, nv, -2.0, 2.0);
      const VectorXd vdot = t.mb.computeForwardDynamics(tau);
      const VectorXd tauBack = t.mb.computeInverseDynamics(vdot);
      const double tol = solveTolerance(t.mb.getMassMatrix());
      ARTICULA_VERIFY_NEAR_MSG(tauBack, tau, tol, ctx + " ID(FD(τ)) vs τ");
      // And the other way round.
      const VectorXd vdot2 = randomVectorX(rng, nv, -2.0, 2.0);
      ARTICULA_VERIFY_NEAR_MSG(t.mb.computeForwardDynamics(t.mb.computeInverseDynamics(vdot2)), vdot2, tol,
                               ctx + " FD(ID(v̇)) vs v̇");
    }
    clearExternalWrenches(t);
  }

  // ---- external wrenches ----------------------------------------------------
  void externalWrenchesEnterAsJacobianTranspose_data() { addTreeRows(); }
  void externalWrenchesEnterAsJacobianTranspose() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 3000u);
    const int nv = t.mb.numDofs();
    for (int trial = 0; trial < 2; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      clearExternalWrenches(t);
      const VectorXd vdot = randomVectorX(rng, nv, -2.0, 2.0);
      const VectorXd tau = randomVectorX(rng, nv, -2.0, 2.0);
      const VectorXd idFree = t.mb.computeInverseDynamics(vdot);

      std::vector<Vector6d> expectedWrench;
      const VectorXd JtF = applyRandomExternalWrenches(rng, t, expectedWrench);
      for (std::size_t i = 0; i < t.links.size(); ++i) {
        ARTICULA_VERIFY_NEAR_MSG(t.links[i].getExternalWrench(), expectedWrench[i], 1e-12,
                                 ctx + QString(" accumulated wrench of link %1").arg(i));
      }
      // τ = M v̇ + C v + g − Σ Jᵀ f.
      ARTICULA_VERIFY_NEAR_MSG(t.mb.computeInverseDynamics(vdot), VectorXd(idFree - JtF), 1e-10,
                               ctx + " ID with wrenches − ID without = −Σ Jᵀ f");
      // ABA with wrenches = ABA without wrenches and τ + Σ Jᵀ f.
      const VectorXd withWrenches = t.mb.computeForwardDynamics(tau);
      clearExternalWrenches(t);
      for (std::size_t i = 0; i < t.links.size(); ++i) {
        QVERIFY2(t.links[i].getExternalWrench().norm() == 0.0, "clearExternalForces must zero the wrench");
      }
      const VectorXd expected = t.mb.computeForwardDynamics(VectorXd(tau + JtF));
      ARTICULA_VERIFY_NEAR_MSG(withWrenches, expected, solveTolerance(t.mb.getMassMatrix()),
                               ctx + " FD with wrenches vs FD(τ + Σ Jᵀ f)");
    }
  }

  // ---- (c) mass matrix --------------------------------------------------------
  void massMatrixIsSymmetricPositiveDefinite_data() { addTreeRows(); }
  void massMatrixIsSymmetricPositiveDefinite() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 4000u);
    const int nv = t.mb.numDofs();
    for (int trial = 0; trial < 2; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      clearExternalWrenches(t);
      const MatrixXd M = t.mb.getMassMatrix();
      QCOMPARE(static_cast<int>(M.rows()), nv);
      QCOMPARE(static_cast<int>(M.cols()), nv);
      QVERIFY2((M - M.transpose()).norm() <= 1e-13 * std::max(1.0, M.norm()), qPrintable(ctx + " M not symmetric"));
      Eigen::SelfAdjointEigenSolver<MatrixXd> es(M, Eigen::EigenvaluesOnly);
      QVERIFY2(es.eigenvalues().minCoeff() > 1e-9 * es.eigenvalues().maxCoeff(),
               qPrintable(ctx + QString(" M not positive definite: eigenvalues in [%1, %2]")
                                    .arg(es.eigenvalues().minCoeff())
                                    .arg(es.eigenvalues().maxCoeff())));
      const double tol = solveTolerance(M);
      const MatrixXd Minv = t.mb.getInverseMassMatrix();
      ARTICULA_VERIFY_NEAR_MSG(MatrixXd(Minv * M), MatrixXd::Identity(nv, nv), tol, ctx + " M⁻¹ M = I");
      ARTICULA_VERIFY_NEAR_MSG(MatrixXd(M * Minv), MatrixXd::Identity(nv, nv), tol, ctx + " M M⁻¹ = I");

      // CRBA vs RNEA: M e_i = ID(e_i) − ID(0), column by column.
      const VectorXd id0 = t.mb.computeInverseDynamics(VectorXd::Zero(nv));
      MatrixXd Mrnea(nv, nv);
      for (int i = 0; i < nv; ++i) {
        Mrnea.col(i) = t.mb.computeInverseDynamics(VectorXd::Unit(nv, i)) - id0;
      }
      ARTICULA_VERIFY_NEAR_MSG(M, Mrnea, 1e-10, ctx + " CRBA vs RNEA columns");
    }
  }

  // ---- (d) bias forces -----------------------------------------------------------
  void biasForcesAreConsistent_data() { addTreeRows(); }
  void biasForcesAreConsistent() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 5000u);
    const int nv = t.mb.numDofs();
    const Vector3d g0 = t.world->getOptions().gravity;
    QVERIFY2((g0 - Vector3d(0.0, 0.0, -9.81)).norm() == 0.0, "default gravity must be (0, 0, -9.81)");
    for (int trial = 0; trial < 2; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      clearExternalWrenches(t);
      const VectorXd C = t.mb.getCoriolisForces();
      const VectorXd g = t.mb.getGravityForces();
      const VectorXd Cg = t.mb.getCoriolisAndGravityForces();
      ARTICULA_VERIFY_NEAR_MSG(VectorXd(C + g), Cg, 1e-12, ctx + " C v + g vs getCoriolisAndGravityForces");
      ARTICULA_VERIFY_NEAR_MSG(t.mb.computeInverseDynamics(VectorXd::Zero(nv)), Cg, 1e-10,
                               ctx + " C v + g vs RNEA(v̇ = 0)");
      // C is quadratic in v.
      t.mb.setVelocities(2.0 * v);
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getCoriolisForces(), VectorXd(4.0 * C), 1e-10, ctx + " C(q, 2v) = 4 C(q, v)");
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getGravityForces(), g, 1e-12, ctx + " g independent of v");
      // g is RNEA with v = 0, v̇ = 0; C vanishes at v = 0.
      t.mb.setVelocities(VectorXd::Zero(nv));
      ARTICULA_VERIFY_NEAR_MSG(t.mb.computeInverseDynamics(VectorXd::Zero(nv)), g, 1e-10,
                               ctx + " g vs RNEA(v = 0, v̇ = 0)");
      QVERIFY2(t.mb.getCoriolisForces().norm() <= 1e-12, qPrintable(ctx + " C(q, 0) ≠ 0"));
      // g is linear in the gravity vector; without gravity only C remains.
      t.world->setGravity(Vector3d(1.0, -2.0, 3.0));
      const VectorXd g1 = t.mb.getGravityForces();
      t.world->setGravity(Vector3d(2.0, -4.0, 6.0));
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getGravityForces(), VectorXd(2.0 * g1), 1e-12, ctx + " g linear in gravity");
      t.world->setGravity(Vector3d::Zero());
      t.mb.setVelocities(v);
      QVERIFY2(t.mb.getGravityForces().norm() <= 1e-12, qPrintable(ctx + " g ≠ 0 without gravity"));
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getCoriolisAndGravityForces(), C, 1e-12, ctx + " C v + g without gravity");
      ARTICULA_VERIFY_NEAR_MSG(t.mb.computeInverseDynamics(VectorXd::Zero(nv)), C, 1e-10,
                               ctx + " RNEA without gravity = C v");
      t.world->setGravity(g0);
    }
  }

  // g(q)ᵀ v = d/dt V(q ⊕ t v): gravity forces are the gradient of the potential.
  void gravityForcesAreGradientOfPotential_data() { addTreeRows(); }
  void gravityForcesAreGradientOfPotential() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 6000u);
    const double h = 1e-6;
    for (int trial = 0; trial < 3; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      const double power = t.mb.getGravityForces().dot(v);
      t.mb.setPositions(integratePositions(t.mb, q, v, h));
      const double Vp = t.mb.computePotentialEnergy();
      t.mb.setPositions(integratePositions(t.mb, q, v, -h));
      const double Vm = t.mb.computePotentialEnergy();
      const double fd = (Vp - Vm) / (2.0 * h);
      QVERIFY2(scalarNear(power, fd, 1e-6), qPrintable(scalarMessage(ctx + " gᵀv vs dV/dt", power, fd)));
      // Potential energy from link COMs: V = −Σ m gᵀ c.
      t.mb.setPositions(q);
      double V = 0.0;
      for (std::size_t i = 0; i < t.links.size(); ++i) {
        V -= t.inertias[i].mass * t.world->getOptions().gravity.dot(t.links[i].getCOM());
      }
      QVERIFY2(scalarNear(t.mb.computePotentialEnergy(), V, 1e-12),
               qPrintable(scalarMessage(ctx + " potential energy", t.mb.computePotentialEnergy(), V)));
    }
  }

  // ---- (e) armature -----------------------------------------------------------------
  void armatureAddsToMassMatrixDiagonal_data() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("numLinks");
    QTest::addColumn<int>("rootType");
    QTest::newRow("11 links, free root") << 401 << 11 << static_cast<int>(JointType::Free);
    QTest::newRow("12 links, revolute root") << 402 << 12 << static_cast<int>(JointType::Revolute);
  }
  void armatureAddsToMassMatrixDiagonal() {
    RandomTree t = fetchTree(/*armature=*/false);
    std::mt19937 rng(fetchSeed() + 7000u);
    const VectorXd q = randomPositions(rng, t.mb);
    const VectorXd v = randomVectorX(rng, t.mb.numDofs(), -1.0, 1.0);
    const VectorXd tau = randomVectorX(rng, t.mb.numDofs(), -1.0, 1.0);
    t.mb.setPositions(q);
    t.mb.setVelocities(v);
    const MatrixXd M0 = t.mb.getMassMatrix();
    const VectorXd Cg0 = t.mb.getCoriolisAndGravityForces();
    const std::vector<Joint> joints = t.mb.getJoints();
    int tested1Dof = 0;
    for (const Joint& j0 : joints) {
      const int n = j0.numDofs();
      if (n == 0) continue;
      const QString ctx = fetchContext(0) +
                          QString(", %1 joint %2").arg(jointTypeName(j0.type())).arg(QString::fromStdString(j0.name()));
      if (n == 1) ++tested1Dof;
      const std::string name = j0.name();
      const VectorXd a = randomVectorX(rng, n, 0.05, 0.5);
      t.world->resetToDesignMode();
      Joint j = *t.mb.getJoint(name);
      const JointSpec original = j.getSpec();
      JointSpec withArmature = original;
      withArmature.armature = a;
      j.setSpec(withArmature);
      t.world->enterSimulationMode();
      t.mb.setPositions(q);
      t.mb.setVelocities(v);
      j = *t.mb.getJoint(name);
      const int o = j.velocityOffset();
      MatrixXd expected = M0;
      expected.diagonal().segment(o, n) += a;
      const MatrixXd M1 = t.mb.getMassMatrix();
      ARTICULA_VERIFY_NEAR_MSG(M1, expected, 1e-12, ctx + " M with armature = M + diag(a)");
      // Bias forces are unchanged; ABA sees the armature too.
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getCoriolisAndGravityForces(), Cg0, 1e-12, ctx + " bias with armature");
      ARTICULA_VERIFY_NEAR_MSG(t.mb.computeForwardDynamics(tau), VectorXd(M1.ldlt().solve(tau - Cg0)),
                               solveTolerance(M1), ctx + " ABA with armature");
      // Kinetic energy includes the rotor energy ½ a v².
      const double T1 = t.mb.computeKineticEnergy();
      const double expectedT = 0.5 * v.dot(M0 * v) + 0.5 * (a.array() * v.segment(o, n).array().square()).sum();
      QVERIFY2(scalarNear(T1, expectedT, 1e-12), qPrintable(scalarMessage(ctx + " kinetic energy", T1, expectedT)));

      t.world->resetToDesignMode();
      j.setSpec(original);
      t.world->enterSimulationMode();
      t.mb.setPositions(q);
      t.mb.setVelocities(v);
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getMassMatrix(), M0, 1e-12, ctx + " M after removing the armature");
    }
    QVERIFY2(tested1Dof >= 3, "the tree must contain the three 1-DoF joint types");
  }

  // ---- (f) kinetic energy and momenta --------------------------------------------------
  void kineticEnergyAndMomenta_data() { addTreeRows(); }
  void kineticEnergyAndMomenta() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 8000u);
    for (int trial = 0; trial < 3; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      const MatrixXd M = t.mb.getMassMatrix();
      const double T = t.mb.computeKineticEnergy();
      const double quad = 0.5 * v.dot(M * v);
      QVERIFY2(scalarNear(T, quad, 1e-12), qPrintable(scalarMessage(ctx + " T vs ½vᵀMv", T, quad)));
      QVERIFY2(scalarNear(t.world->computeKineticEnergy(), T, 1e-12),
               qPrintable(scalarMessage(ctx + " world T vs multibody T", t.world->computeKineticEnergy(), T)));

      // Independent: rigid-body energies from link velocities, plus rotor energies.
      const Vector3d P = randomVector(rng, -1.0, 1.0);
      double Tlinks = 0.0;
      double mass = 0.0;
      Vector3d momentum = Vector3d::Zero();
      Vector3d angular = Vector3d::Zero();
      Vector3d comSum = Vector3d::Zero();
      for (std::size_t i = 0; i < t.links.size(); ++i) {
        const Link& link = t.links[i];
        const Inertia& I = t.inertias[i];
        const Matrix3d R = link.getWorldTransform().linear();
        const Vector3d w = link.getAngularVelocity();
        const Vector3d vc = link.getLinearVelocity(I.com);
        const Matrix3d Iw = R * I.rotational * R.transpose();
        const Vector3d c = link.getCOM();
        ARTICULA_VERIFY_NEAR_MSG(c, Vector3d(link.getWorldTransform() * I.com), 1e-12, ctx + " link COM");
        Tlinks += 0.5 * I.mass * vc.squaredNorm() + 0.5 * w.dot(Iw * w);
        mass += I.mass;
        momentum += I.mass * vc;
        angular += (c - P).cross(I.mass * vc) + Iw * w;
        comSum += I.mass * c;
      }
      for (std::size_t i = 0; i < t.specs.size(); ++i) {
        if (t.specs[i].armature.size() == 0) continue;
        const Joint j = t.links[i].getParentJoint();
        Tlinks +=
            0.5 * (t.specs[i].armature.array() * v.segment(j.velocityOffset(), j.numDofs()).array().square()).sum();
      }
      QVERIFY2(scalarNear(T, Tlinks, 1e-10), qPrintable(scalarMessage(ctx + " T vs Σ link energies", T, Tlinks)));
      QVERIFY2(scalarNear(t.mb.getMass(), mass, 1e-14), qPrintable(scalarMessage(ctx + " mass", t.mb.getMass(), mass)));
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getCOM(), Vector3d(comSum / mass), 1e-12, ctx + " COM");
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getLinearMomentum(), momentum, 1e-10, ctx + " linear momentum");
      ARTICULA_VERIFY_NEAR_MSG(Vector3d(mass * t.mb.getCOMLinearVelocity()), momentum, 1e-10,
                               ctx + " m v_com vs momentum");
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getAngularMomentum(P), angular, 1e-10, ctx + " angular momentum about P");
    }
  }

  // dT/dt = vᵀ(τ − g) along the trajectory of ABA (Coriolis forces do no work).
  void powerBalanceAlongForwardDynamics_data() { addTreeRows(); }
  void powerBalanceAlongForwardDynamics() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 9000u);
    const double h = 1e-6;
    for (int trial = 0; trial < 3; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      clearExternalWrenches(t);
      const VectorXd tau = randomVectorX(rng, t.mb.numDofs(), -2.0, 2.0);
      const VectorXd vdot = t.mb.computeForwardDynamics(tau);
      const double power = v.dot(tau - t.mb.getGravityForces());
      t.mb.setPositions(integratePositions(t.mb, q, v, h));
      t.mb.setVelocities(v + h * vdot);
      const double Tp = t.mb.computeKineticEnergy();
      t.mb.setPositions(integratePositions(t.mb, q, v, -h));
      t.mb.setVelocities(v - h * vdot);
      const double Tm = t.mb.computeKineticEnergy();
      const double fd = (Tp - Tm) / (2.0 * h);
      QVERIFY2(scalarNear(fd, power, 1e-6), qPrintable(scalarMessage(ctx + " dT/dt vs vᵀ(τ − g)", fd, power)));
    }
  }

  // ---- (g) free-floating bodies -----------------------------------------------------
  void freeBodyFallsWithGravity() {
    std::mt19937 rng(1234u);
    for (int trial = 0; trial < 6; ++trial) {
      const QString ctx = QString("free body trial %1").arg(trial);
      World world;
      Multibody mb = world.addMultibody("body");
      LinkOptions lo;
      lo.name = "b";
      lo.inertia = randomInertia(rng);
      const Inertia I = lo.inertia;
      Link link = mb.addLink(lo, JointSpec::free());
      world.enterSimulationMode();
      QCOMPARE(mb.numPositions(), 7);
      QCOMPARE(mb.numDofs(), 6);
      const VectorXd q = randomPositions(rng, mb);
      VectorXd v = randomVectorX(rng, 6, -3.0, 3.0);
      mb.setPositions(q);
      mb.setVelocities(v);

      // Conventions: q → X_WB, body twist → world velocities.
      const Isometry3d X = link.getWorldTransform();
      ARTICULA_VERIFY_NEAR_MSG(X.matrix(), freeJointTransform(q.head<7>()).matrix(), 1e-14,
                               ctx + " freeJointTransform");
      const Quaterniond Qexp(q[6], q[3], q[4], q[5]);
      ARTICULA_VERIFY_NEAR_MSG(Matrix3d(X.linear()), Qexp.toRotationMatrix(), 1e-14, ctx + " rotation from xyzw");
      ARTICULA_VERIFY_NEAR_MSG(Vector3d(X.translation()), Vector3d(q.head<3>()), 1e-14, ctx + " translation");
      const Matrix3d R = X.linear();
      ARTICULA_VERIFY_NEAR_MSG(link.getAngularVelocity(), Vector3d(R * v.head<3>()), 1e-14, ctx + " ω_W = R ω_B");
      ARTICULA_VERIFY_NEAR_MSG(link.getLinearVelocity(), Vector3d(R * v.tail<3>()), 1e-14, ctx + " ṗ = R v_B");
      Vector6d Vw;
      Vw << link.getAngularVelocity(), link.getLinearVelocity();
      ARTICULA_VERIFY_NEAR_MSG(freeJointVelocityToWorld(X, v.head<6>()), Vw, 1e-14, ctx + " freeJointVelocityToWorld");

      // Analytic body-frame accelerations under gravity, an external force at
      // the COM (world coordinates) and an external torque (world coordinates).
      const Vector3d g = world.getOptions().gravity;
      const Vector3d F = trial % 2 == 0 ? Vector3d::Zero() : randomVector(rng, -5.0, 5.0);
      const Vector3d Tw = trial % 2 == 0 ? Vector3d::Zero() : randomVector(rng, -2.0, 2.0);
      link.clearExternalForces();
      if (trial % 2 == 1) {
        link.addExternalForce(F, I.com, /*forceInWorld=*/true, /*offsetInWorld=*/false);
        link.addExternalTorque(Tw, /*inWorld=*/true);
      }
      const Vector3d w = v.head<3>();
      const Vector3d vb = v.tail<3>();
      const Vector3d c = I.com;
      const Vector3d wdot = I.rotational.inverse() * (R.transpose() * Tw - w.cross(I.rotational * w));
      const Vector3d comAcc = g + F / I.mass;
      // c̈_W = R(v̇_B + ω×v_B + ω̇×c + ω×(ω×c)).
      const Vector3d vbdot = R.transpose() * comAcc - w.cross(vb) - wdot.cross(c) - w.cross(w.cross(c));
      Vector6d expectedVdot;
      expectedVdot << wdot, vbdot;
      const VectorXd vdot = mb.computeForwardDynamics(VectorXd::Zero(6));
      ARTICULA_VERIFY_NEAR_MSG(vdot, expectedVdot, 1e-10, ctx + " free-body v̇ vs Newton–Euler");
      mb.setAccelerations(vdot);
      ARTICULA_VERIFY_NEAR_MSG(link.getLinearAcceleration(I.com), comAcc, 1e-10, ctx + " COM acceleration = g + F/m");
      ARTICULA_VERIFY_NEAR_MSG(link.getAngularAcceleration(), Vector3d(R * wdot), 1e-10,
                               ctx + " angular acceleration (Euler's equations)");
      ARTICULA_VERIFY_NEAR_MSG(mb.computeInverseDynamics(vdot), VectorXd::Zero(6), 1e-10,
                               ctx + " RNEA of the free-fall acceleration is zero");
      link.clearExternalForces();
    }
  }

  // Free-floating tree, joint torques only inside: dP/dt = m g and
  // dL_O/dt = Σ c_i × m_i g (internal forces cancel).
  void freeFloatingTreeMomentumChangesOnlyByGravity_data() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("numLinks");
    QTest::addColumn<int>("rootType");
    QTest::newRow("2 links") << 501 << 2 << static_cast<int>(JointType::Free);
    QTest::newRow("11 links") << 502 << 11 << static_cast<int>(JointType::Free);
    QTest::newRow("25 links") << 503 << 25 << static_cast<int>(JointType::Free);
  }
  void freeFloatingTreeMomentumChangesOnlyByGravity() {
    RandomTree t = fetchTree(/*armature=*/false);
    std::mt19937 rng(fetchSeed() + 10000u);
    const Vector3d g = t.world->getOptions().gravity;
    const double h = 1e-6;
    for (int trial = 0; trial < 3; ++trial) {
      const QString ctx = fetchContext(trial);
      VectorXd q, v;
      setRandomState(rng, t, q, v);
      clearExternalWrenches(t);
      VectorXd tau = randomVectorX(rng, t.mb.numDofs(), -2.0, 2.0);
      const Joint root = t.links[0].getParentJoint();
      QCOMPARE(QString(jointTypeName(root.type())), QString("free"));
      tau.segment(root.velocityOffset(), 6).setZero();
      const VectorXd vdot = t.mb.computeForwardDynamics(tau);
      t.mb.setAccelerations(vdot);
      ARTICULA_VERIFY_NEAR_MSG(t.mb.getAccelerations(), vdot, 1e-15, ctx + " setAccelerations round trip");

      double mass = 0.0;
      Vector3d force = Vector3d::Zero();
      Vector3d gravityMoment = Vector3d::Zero();
      for (std::size_t i = 0; i < t.links.size(); ++i) {
        const double m = t.inertias[i].mass;
        mass += m;
        force += m * t.links[i].getLinearAcceleration(t.inertias[i].com);
        gravityMoment += t.links[i].getCOM().cross(m * g);
      }
      ARTICULA_VERIFY_NEAR_MSG(force, Vector3d(mass * g), 1e-9, ctx + " Σ m a_c = m g");

      t.mb.setPositions(integratePositions(t.mb, q, v, h));
      t.mb.setVelocities(v + h * vdot);
      const Vector3d Pp = t.mb.getLinearMomentum();
      const Vector3d Lp = t.mb.getAngularMomentum();
      t.mb.setPositions(integratePositions(t.mb, q, v, -h));
      t.mb.setVelocities(v - h * vdot);
      const Vector3d Pm = t.mb.getLinearMomentum();
      const Vector3d Lm = t.mb.getAngularMomentum();
      ARTICULA_VERIFY_NEAR_MSG(Vector3d((Pp - Pm) / (2.0 * h)), Vector3d(mass * g), 1e-6, ctx + " dP/dt = m g");
      ARTICULA_VERIFY_NEAR_MSG(Vector3d((Lp - Lm) / (2.0 * h)), gravityMoment, 1e-6, ctx + " dL/dt = Σ c × m g");
    }
  }
};

QTEST_APPLESS_MAIN(DynamicsConsistencyTest)
#include "test_dynamics_consistency.moc"

// Link Jacobians on deterministic random trees with every joint type, checked
// against frame velocities (J v), finite differences of point positions and
// orientations along q ⊕ εv, re-expression in other frames, the link-chain
// form, the time derivative (finite differences of J and J̇ v + J v̇ = point
// acceleration) and the COM Jacobian.

#include "random_tree.hpp"
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <random>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

/// World pose of the point `offset` of `link` and the link orientation.
struct PointPose {
  Vector3d p;
  Matrix3d R;
};

std::vector<PointPose> pointPoses(const RandomTree& t, const std::vector<Vector3d>& offsets) {
  std::vector<PointPose> out;
  out.reserve(t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const Isometry3d X = t.links[i].getWorldTransform();
    out.push_back({X * offsets[i], X.linear()});
  }
  return out;
}

/// Central-difference twist [ω_W; ṗ_W] between the poses at ±h.
Vector6d finiteDifferenceTwist(const PointPose& plus, const PointPose& minus, double h) {
  Vector6d V;
  V.head<3>() = logSO3(plus.R * minus.R.transpose()) / (2.0 * h);
  V.tail<3>() = (plus.p - minus.p) / (2.0 * h);
  return V;
}

std::vector<Vector3d> randomOffsets(std::mt19937& rng, std::size_t n) {
  std::vector<Vector3d> offsets;
  for (std::size_t i = 0; i < n; ++i) offsets.push_back(randomVector(rng, -0.5, 0.5));
  return offsets;
}

/// Creation indices of the ancestors of link i, root first, including i.
std::vector<int> chainOf(const RandomTree& t, int i) {
  std::vector<int> chain;
  for (int k = i; k >= 0; k = t.parents[static_cast<std::size_t>(k)]) chain.insert(chain.begin(), k);
  return chain;
}

}  // namespace

class JacobianTest : public QObject {
  Q_OBJECT

 private:
  static void addTreeRows() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("numLinks");
    QTest::addColumn<int>("rootType");
    const std::vector<std::pair<int, JointType>> rows = {
        {1, JointType::Free},          {1, JointType::Ball},      {1, JointType::Euler},     {1, JointType::Planar},
        {1, JointType::Screw},         {2, JointType::Universal}, {2, JointType::Free},      {5, JointType::Weld},
        {5, JointType::Translational}, {11, JointType::Free},     {11, JointType::Revolute}, {25, JointType::Free},
        {25, JointType::Prismatic},    {50, JointType::Free},
    };
    int seed = 7;
    for (const auto& [n, root] : rows) {
      seed += 13;
      const QByteArray name = QString("%1 links, %2 root").arg(n).arg(jointTypeName(root)).toUtf8();
      QTest::newRow(name.constData()) << seed << n << static_cast<int>(root);
    }
  }

  static RandomTree fetchTree() {
    QFETCH(int, seed);
    QFETCH(int, numLinks);
    QFETCH(int, rootType);
    TreeOptions opt;
    opt.numLinks = numLinks;
    opt.rootType = static_cast<JointType>(rootType);
    return makeRandomTree(static_cast<std::uint32_t>(seed), opt);
  }

  static std::uint32_t fetchSeed() {
    QFETCH(int, seed);
    return static_cast<std::uint32_t>(seed);
  }

  static QString context(std::size_t link, const QString& extra = {}) {
    QFETCH(int, seed);
    QFETCH(int, numLinks);
    QFETCH(int, rootType);
    return QString("seed %1, %2 links, root %3, link %4 %5")
        .arg(seed)
        .arg(numLinks)
        .arg(jointTypeName(static_cast<JointType>(rootType)))
        .arg(link)
        .arg(extra);
  }

 private slots:
  // J v = [ω_W; v_point,W] for the frame velocity queries.
  void jacobianTimesVelocityIsPointVelocity_data() { addTreeRows(); }
  void jacobianTimesVelocityIsPointVelocity() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 100u);
    const int nv = t.mb.numDofs();
    for (int trial = 0; trial < 3; ++trial) {
      const VectorXd q = randomPositions(rng, t.mb);
      const VectorXd v = randomVectorX(rng, nv, -2.0, 2.0);
      t.mb.setPositions(q);
      t.mb.setVelocities(v);
      const std::vector<Vector3d> offsets = randomOffsets(rng, t.links.size());
      for (std::size_t i = 0; i < t.links.size(); ++i) {
        const Link& link = t.links[i];
        const Matrix6Xd J = link.getJacobian(offsets[i]);
        QCOMPARE(static_cast<int>(J.cols()), nv);
        Vector6d V;
        V << link.getAngularVelocity(), link.getLinearVelocity(offsets[i]);
        ARTICULA_VERIFY_NEAR_MSG(Vector6d(J * v), V, 1e-10, context(i, "J v vs frame velocity"));
        // The same quantity through the other entry points.
        ARTICULA_VERIFY_NEAR_MSG(t.mb.getJacobian(link, offsets[i]), J, 1e-15, context(i, "Multibody::getJacobian"));
        ARTICULA_VERIFY_NEAR_MSG(link.getAngularJacobian(), Matrix3Xd(J.topRows<3>()), 1e-15,
                                 context(i, "getAngularJacobian"));
        ARTICULA_VERIFY_NEAR_MSG(link.getLinearJacobian(offsets[i]), Matrix3Xd(J.bottomRows<3>()), 1e-15,
                                 context(i, "getLinearJacobian"));
        // Moving the point: v_p = v_o + ω × r.
        const Matrix6Xd J0 = link.getJacobian();
        const Vector3d r_W = link.getWorldTransform().linear() * offsets[i];
        Matrix3Xd Jlin = J0.bottomRows<3>() - skew(r_W) * J0.topRows<3>();
        ARTICULA_VERIFY_NEAR_MSG(Matrix3Xd(J.bottomRows<3>()), Jlin, 1e-12, context(i, "point shift of J"));
      }
    }
  }

  // Every column of J against central differences of the point position and
  // the link orientation along q ⊕ ±h e_i; and J v along q ⊕ ±h v.
  void jacobianMatchesFiniteDifferences_data() { addTreeRows(); }
  void jacobianMatchesFiniteDifferences() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 200u);
    const int nv = t.mb.numDofs();
    const double h = 1e-6;
    const VectorXd q = randomPositions(rng, t.mb);
    const std::vector<Vector3d> offsets = randomOffsets(rng, t.links.size());
    t.mb.setPositions(q);
    std::vector<Matrix6Xd> J;
    for (std::size_t i = 0; i < t.links.size(); ++i) J.push_back(t.links[i].getJacobian(offsets[i]));
    std::vector<Matrix6Xd> Jfd(t.links.size(), Matrix6Xd::Zero(6, nv));
    for (int c = 0; c < nv; ++c) {
      const VectorXd e = VectorXd::Unit(nv, c);
      t.mb.setPositions(integratePositions(t.mb, q, e, h));
      const std::vector<PointPose> plus = pointPoses(t, offsets);
      t.mb.setPositions(integratePositions(t.mb, q, e, -h));
      const std::vector<PointPose> minus = pointPoses(t, offsets);
      for (std::size_t i = 0; i < t.links.size(); ++i) Jfd[i].col(c) = finiteDifferenceTwist(plus[i], minus[i], h);
    }
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      ARTICULA_VERIFY_NEAR_MSG(J[i], Jfd[i], 1e-6, context(i, "J vs column finite differences"));
    }
    // Along a random velocity (exercises the quaternion update with all components).
    const VectorXd v = randomVectorX(rng, nv, -1.0, 1.0);
    t.mb.setPositions(integratePositions(t.mb, q, v, h));
    const std::vector<PointPose> plus = pointPoses(t, offsets);
    t.mb.setPositions(integratePositions(t.mb, q, v, -h));
    const std::vector<PointPose> minus = pointPoses(t, offsets);
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      ARTICULA_VERIFY_NEAR_MSG(Vector6d(J[i] * v), finiteDifferenceTwist(plus[i], minus[i], h), 1e-6,
                               context(i, "J v vs finite differences along v"));
    }
  }

  // Rows in another frame C: J_C = blockdiag(R_CW, R_CW) J_W, and J_C v is
  // the velocity relative to the world expressed in C.
  void jacobianInOtherFrames_data() { addTreeRows(); }
  void jacobianInOtherFrames() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 300u);
    const int nv = t.mb.numDofs();
    const VectorXd q = randomPositions(rng, t.mb);
    const VectorXd v = randomVectorX(rng, nv, -2.0, 2.0);
    t.mb.setPositions(q);
    t.mb.setVelocities(v);
    const std::size_t other = t.links.size() - 1;
    const FixedFrame fixed = t.world->addFixedFrame("fixed", t.links[other], randomTransform(rng, 0.5));
    FreeFrame freeFrame = t.world->addFreeFrame("free", Frame::World(), randomTransform(rng, 1.0));
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      const Link& link = t.links[i];
      const Vector3d offset = randomVector(rng, -0.5, 0.5);
      const Matrix6Xd Jw = link.getJacobian(offset);
      const std::vector<std::pair<Frame, QString>> frames = {{link, "own link frame"},
                                                             {t.links[other], "another link"},
                                                             {fixed, "fixed frame on a link"},
                                                             {freeFrame, "free frame"},
                                                             {Frame::World(), "world"}};
      for (const auto& [C, name] : frames) {
        const Matrix3d R_CW = C.getWorldTransform().linear().transpose();
        const Matrix6Xd Jc = link.getJacobian(offset, C);
        ARTICULA_VERIFY_NEAR_MSG(Jc, Matrix6Xd(blockRotation(R_CW) * Jw), 1e-12, context(i, "J in " + name));
        ARTICULA_VERIFY_NEAR_MSG(t.mb.getJacobian(link, offset, C), Jc, 1e-15,
                                 context(i, "Multibody::getJacobian in " + name));
        Vector6d V;
        V << link.getAngularVelocity(Frame::World(), C), link.getLinearVelocity(offset, Frame::World(), C);
        ARTICULA_VERIFY_NEAR_MSG(Vector6d(Jc * v), V, 1e-10, context(i, "J v in " + name));
        ARTICULA_VERIFY_NEAR_MSG(link.getAngularJacobian(C), Matrix3Xd(Jc.topRows<3>()), 1e-15,
                                 context(i, "angular rows in " + name));
        ARTICULA_VERIFY_NEAR_MSG(link.getLinearJacobian(offset, C), Matrix3Xd(Jc.bottomRows<3>()), 1e-15,
                                 context(i, "linear rows in " + name));
      }
    }
  }

  // getDependentDofs = DoFs of the chain root..link, root first; the chain
  // Jacobian holds exactly those columns and the others are zero.
  void chainJacobianSelectsDependentDofs_data() { addTreeRows(); }
  void chainJacobianSelectsDependentDofs() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 400u);
    const int nv = t.mb.numDofs();
    t.mb.setPositions(randomPositions(rng, t.mb));
    const FixedFrame fixed = t.world->addFixedFrame("fixed", t.links[0], randomTransform(rng, 0.5));
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      std::vector<int> expected;
      for (int k : chainOf(t, static_cast<int>(i))) {
        const Joint j = t.links[static_cast<std::size_t>(k)].getParentJoint();
        for (int d = 0; d < j.numDofs(); ++d) expected.push_back(j.velocityOffset() + d);
      }
      const std::vector<int> deps = t.links[i].getDependentDofs();
      QVERIFY2(deps == expected, qPrintable(context(i, "getDependentDofs differs from the chain's DoFs")));

      const Vector3d offset = randomVector(rng, -0.5, 0.5);
      for (const Frame& C : {Frame::World(), Frame(t.links[i]), Frame(fixed)}) {
        const Matrix6Xd J = t.links[i].getJacobian(offset, C);
        const Matrix6Xd Jc = t.links[i].getChainJacobian(offset, C);
        QCOMPARE(static_cast<int>(Jc.cols()), static_cast<int>(deps.size()));
        std::vector<bool> dependent(static_cast<std::size_t>(nv), false);
        for (std::size_t k = 0; k < deps.size(); ++k) {
          dependent[static_cast<std::size_t>(deps[k])] = true;
          ARTICULA_VERIFY_NEAR_MSG(Vector6d(Jc.col(static_cast<Eigen::Index>(k))), Vector6d(J.col(deps[k])), 1e-15,
                                   context(i, QString("chain column %1").arg(k)));
        }
        for (int c = 0; c < nv; ++c) {
          if (!dependent[static_cast<std::size_t>(c)]) {
            QVERIFY2(J.col(c).norm() == 0.0, qPrintable(context(i, QString("column %1 must be zero").arg(c))));
          }
        }
      }
    }
  }

  // J̇ against central differences of J along q ⊕ ±h v, in the world, the
  // link's own frame and a frame fixed to another link (d/dt (R_CW J)).
  void jacobianTimeDerivativeMatchesFiniteDifferences_data() { addTreeRows(); }
  void jacobianTimeDerivativeMatchesFiniteDifferences() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 500u);
    const int nv = t.mb.numDofs();
    const double h = 1e-6;
    const FixedFrame fixed = t.world->addFixedFrame("fixed", t.links[t.links.size() / 2], randomTransform(rng, 0.5));
    for (int trial = 0; trial < 2; ++trial) {
      const VectorXd q = randomPositions(rng, t.mb);
      const VectorXd v = randomVectorX(rng, nv, -1.5, 1.5);
      const std::vector<Vector3d> offsets = randomOffsets(rng, t.links.size());
      for (int frameIndex = 0; frameIndex < 3; ++frameIndex) {
        auto frameOf = [&](std::size_t i) -> Frame {
          if (frameIndex == 0) return Frame::World();
          if (frameIndex == 1) return t.links[i];
          return fixed;
        };
        const QString frameName = frameIndex == 0 ? "world" : frameIndex == 1 ? "own link" : "fixed frame";
        t.mb.setPositions(q);
        t.mb.setVelocities(v);
        std::vector<Matrix6Xd> Jdot;
        for (std::size_t i = 0; i < t.links.size(); ++i) {
          Jdot.push_back(t.links[i].getJacobianTimeDerivative(offsets[i], frameOf(i)));
          ARTICULA_VERIFY_NEAR_MSG(t.mb.getJacobianTimeDerivative(t.links[i], offsets[i], frameOf(i)), Jdot.back(),
                                   1e-15, context(i, "Multibody::getJacobianTimeDerivative in " + frameName));
        }
        t.mb.setPositions(integratePositions(t.mb, q, v, h));
        std::vector<Matrix6Xd> Jp;
        for (std::size_t i = 0; i < t.links.size(); ++i) Jp.push_back(t.links[i].getJacobian(offsets[i], frameOf(i)));
        t.mb.setPositions(integratePositions(t.mb, q, v, -h));
        for (std::size_t i = 0; i < t.links.size(); ++i) {
          const Matrix6Xd Jm = t.links[i].getJacobian(offsets[i], frameOf(i));
          const Matrix6Xd fd = (Jp[i] - Jm) / (2.0 * h);
          ARTICULA_VERIFY_NEAR_MSG(Jdot[i], fd, 1e-6, context(i, "J̇ vs finite differences in " + frameName));
        }
      }
    }
  }

  // d/dt (J v) = J̇ v + J v̇ is the classical point acceleration and the
  // angular acceleration (world coordinates).
  void jacobianDerivativeGivesPointAcceleration_data() { addTreeRows(); }
  void jacobianDerivativeGivesPointAcceleration() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 600u);
    const int nv = t.mb.numDofs();
    for (int trial = 0; trial < 2; ++trial) {
      const VectorXd q = randomPositions(rng, t.mb);
      const VectorXd v = randomVectorX(rng, nv, -1.5, 1.5);
      const VectorXd vdot = randomVectorX(rng, nv, -2.0, 2.0);
      t.mb.setPositions(q);
      t.mb.setVelocities(v);
      t.mb.setAccelerations(vdot);
      for (std::size_t i = 0; i < t.links.size(); ++i) {
        const Vector3d offset = randomVector(rng, -0.5, 0.5);
        const Vector6d A = t.links[i].getJacobianTimeDerivative(offset) * v + t.links[i].getJacobian(offset) * vdot;
        Vector6d expected;
        expected << t.links[i].getAngularAcceleration(), t.links[i].getLinearAcceleration(offset);
        ARTICULA_VERIFY_NEAR_MSG(A, expected, 1e-10, context(i, "J̇ v + J v̇ vs frame acceleration"));
      }
    }
  }

  // COM: J_com v = v_com, J_com = Σ m_i J_i(c_i) / m, and J_com against
  // finite differences of getCOM.
  void comJacobian_data() { addTreeRows(); }
  void comJacobian() {
    RandomTree t = fetchTree();
    std::mt19937 rng(fetchSeed() + 700u);
    const int nv = t.mb.numDofs();
    const double h = 1e-6;
    const VectorXd q = randomPositions(rng, t.mb);
    const VectorXd v = randomVectorX(rng, nv, -2.0, 2.0);
    t.mb.setPositions(q);
    t.mb.setVelocities(v);
    const Matrix3Xd Jcom = t.mb.getCOMJacobian();
    QCOMPARE(static_cast<int>(Jcom.cols()), nv);
    ARTICULA_VERIFY_NEAR_MSG(Vector3d(Jcom * v), t.mb.getCOMLinearVelocity(), 1e-10, context(0, "J_com v vs v_com"));
    double mass = 0.0;
    Matrix3Xd weighted = Matrix3Xd::Zero(3, nv);
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      mass += t.inertias[i].mass;
      weighted += t.inertias[i].mass * t.links[i].getLinearJacobian(t.inertias[i].com);
    }
    ARTICULA_VERIFY_NEAR_MSG(Jcom, Matrix3Xd(weighted / mass), 1e-12, context(0, "J_com vs Σ m_i J_i(c_i)/m"));
    Matrix3Xd fd(3, nv);
    for (int c = 0; c < nv; ++c) {
      const VectorXd e = VectorXd::Unit(nv, c);
      t.mb.setPositions(integratePositions(t.mb, q, e, h));
      const Vector3d plus = t.mb.getCOM();
      t.mb.setPositions(integratePositions(t.mb, q, e, -h));
      fd.col(c) = (plus - t.mb.getCOM()) / (2.0 * h);
    }
    ARTICULA_VERIFY_NEAR_MSG(Jcom, fd, 1e-6, context(0, "J_com vs finite differences of the COM"));
  }
};

QTEST_APPLESS_MAIN(JacobianTest)
#include "test_jacobians.moc"

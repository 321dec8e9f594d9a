#pragma once
// Deterministic random multibody trees and state helpers for the dynamics,
// Jacobian and frame tests (tests/engine/test_dynamics_consistency.cpp,
// test_jacobians.cpp, test_frames.cpp).
//
// Conventions used here (docs/conventions.md, binding):
//   * spatial vectors are [angular; linear];
//   * joint packing: weld (0,0), revolute/prismatic/screw [θ], universal
//     [θ1, θ2], ball q = quaternion [x, y, z, w] with v = body angular
//     velocity, euler [α, β, γ] (rates), planar [x, y, θ], translational
//     [x, y, z], free q = [p; quaternion xyzw] with v = body twist [ω_B; v_B];
//   * q ⊕ εv: vector joints q + εv; ball Q ← Q·exp(εω); free
//     p ← p + ε R v_B, Q ← Q·exp(εω).

#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <Eigen/Dense>

#include <QString>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace articula::test {

inline constexpr double kPi = 3.14159265358979323846;

inline constexpr std::array<JointType, 10> kAllJointTypes = {
    JointType::Weld, JointType::Revolute, JointType::Prismatic, JointType::Screw,         JointType::Universal,
    JointType::Ball, JointType::Euler,    JointType::Planar,    JointType::Translational, JointType::Free};

inline constexpr std::array<EulerOrder, 7> kAllEulerOrders = {EulerOrder::XYZ, EulerOrder::ZYX, EulerOrder::ZYZ,
                                                              EulerOrder::XZY, EulerOrder::YXZ, EulerOrder::YZX,
                                                              EulerOrder::ZXY};

/// Expected (nq, nv) of each joint type, written down independently of the engine.
inline int expectedNumPositions(JointType t) {
  switch (t) {
    case JointType::Weld:
      return 0;
    case JointType::Revolute:
    case JointType::Prismatic:
    case JointType::Screw:
      return 1;
    case JointType::Universal:
      return 2;
    case JointType::Ball:
      return 4;
    case JointType::Euler:
    case JointType::Planar:
    case JointType::Translational:
      return 3;
    case JointType::Free:
      return 7;
  }
  return -1;
}

inline int expectedNumDofs(JointType t) {
  switch (t) {
    case JointType::Weld:
      return 0;
    case JointType::Revolute:
    case JointType::Prismatic:
    case JointType::Screw:
      return 1;
    case JointType::Universal:
      return 2;
    case JointType::Ball:
    case JointType::Euler:
    case JointType::Planar:
    case JointType::Translational:
      return 3;
    case JointType::Free:
      return 6;
  }
  return -1;
}

inline const char* jointTypeName(JointType t) {
  return toString(t).data();  // the names are string literals
}

// ---- random numbers ---------------------------------------------------------

inline double uniform(std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  return d(rng);
}

inline int uniformInt(std::mt19937& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  return d(rng);
}

inline Vector3d randomVector(std::mt19937& rng, double lo, double hi) {
  return Vector3d(uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi));
}

inline VectorXd randomVectorX(std::mt19937& rng, int n, double lo, double hi) {
  VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = uniform(rng, lo, hi);
  return x;
}

inline Vector3d randomUnitVector(std::mt19937& rng) {
  std::normal_distribution<double> d(0.0, 1.0);
  Vector3d x;
  do {
    x = Vector3d(d(rng), d(rng), d(rng));
  } while (x.norm() < 1e-3);
  return x.normalized();
}

/// Uniformly distributed unit quaternion (not Eigen's UnitRandom, which uses std::rand).
inline Quaterniond randomQuaternion(std::mt19937& rng) {
  std::normal_distribution<double> d(0.0, 1.0);
  Eigen::Vector4d x;
  do {
    x = Eigen::Vector4d(d(rng), d(rng), d(rng), d(rng));
  } while (x.norm() < 1e-3);
  x.normalize();
  return Quaterniond(x[3], x[0], x[1], x[2]);
}

inline Isometry3d randomTransform(std::mt19937& rng, double maxTranslation) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = randomQuaternion(rng).toRotationMatrix();
  X.translation() = randomVector(rng, -maxTranslation, maxTranslation);
  return X;
}

/// Two random orthonormal axes.
inline std::pair<Vector3d, Vector3d> randomOrthogonalAxes(std::mt19937& rng) {
  const Vector3d a = randomUnitVector(rng);
  Vector3d b;
  do {
    b = randomUnitVector(rng);
    b -= a * a.dot(b);
  } while (b.norm() < 0.1);
  return {a, b.normalized()};
}

/// Valid random mass properties: mass in [0.5, 2] kg, rotational inertia of a
/// solid box (so SPD and satisfying the triangle inequality) in a random
/// orientation, and a COM offset of at least 5 cm.
inline Inertia randomInertia(std::mt19937& rng) {
  Inertia I;
  I.mass = uniform(rng, 0.5, 2.0);
  const Vector3d s = randomVector(rng, 0.1, 0.6);
  const Vector3d principal(I.mass / 12.0 * (s.y() * s.y() + s.z() * s.z()),
                           I.mass / 12.0 * (s.x() * s.x() + s.z() * s.z()),
                           I.mass / 12.0 * (s.x() * s.x() + s.y() * s.y()));
  const Matrix3d R = randomQuaternion(rng).toRotationMatrix();
  I.rotational = R * principal.asDiagonal() * R.transpose();
  I.rotational = 0.5 * (I.rotational + I.rotational.transpose());
  do {
    I.com = randomVector(rng, -0.3, 0.3);
  } while (I.com.norm() < 0.05);
  return I;
}

// ---- rotations ----------------------------------------------------------------

inline Matrix3d expSO3(const Vector3d& w) {
  const double angle = w.norm();
  if (angle < 1e-300) return Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}

inline Quaterniond expQuaternion(const Vector3d& w) {
  const double angle = w.norm();
  if (angle < 1e-300) return Quaterniond::Identity();
  return Quaterniond(Eigen::AngleAxisd(angle, w / angle));
}

/// Rotation vector of R (angle < π).
inline Vector3d logSO3(const Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

inline Matrix3d skew(const Vector3d& w) {
  Matrix3d S;
  S << 0.0, -w.z(), w.y(), w.z(), 0.0, -w.x(), -w.y(), w.x(), 0.0;
  return S;
}

/// SE(3) exponential of a body twist V = [ω; v]: the pose after unit time of
/// a frame moving with constant body twist V from the identity.
inline Isometry3d expSE3(const Vector6d& V) {
  const Vector3d w = V.head<3>();
  const Vector3d v = V.tail<3>();
  const double th = w.norm();
  Matrix3d Vm = Matrix3d::Identity();
  if (th > 1e-8) {
    const Matrix3d W = skew(w);
    Vm += (1.0 - std::cos(th)) / (th * th) * W + (th - std::sin(th)) / (th * th * th) * W * W;
  } else {
    Vm += 0.5 * skew(w);
  }
  Isometry3d X = Isometry3d::Identity();
  X.linear() = expSO3(w);
  X.translation() = Vm * v;
  return X;
}

/// Blockdiag(R, R): rotates a [angular; linear] 6-vector or Jacobian.
inline Matrix6d blockRotation(const Matrix3d& R) {
  Matrix6d B = Matrix6d::Zero();
  B.topLeftCorner<3, 3>() = R;
  B.bottomRightCorner<3, 3>() = R;
  return B;
}

// ---- random trees -------------------------------------------------------------

struct TreeOptions {
  int numLinks = 5;
  JointType rootType = JointType::Free;
  bool armature = true;              ///< random armature on some joints
  bool identityFreeOffsets = false;  ///< identity parent/child offsets for free joints
};

/// A world owning one multibody built from random data. Indices below are
/// creation indices (the order of addLink calls).
struct RandomTree {
  std::unique_ptr<World> world;
  Multibody mb;
  std::vector<Link> links;        ///< creation order
  std::vector<int> parents;       ///< creation index of the parent link, -1 for the root
  std::vector<JointSpec> specs;   ///< the parent joint of each link
  std::vector<Inertia> inertias;  ///< mass properties given to each link
};

inline JointSpec randomJointSpec(std::mt19937& rng, JointType type, int& eulerCounter, const TreeOptions& opt) {
  JointSpec s;
  switch (type) {
    case JointType::Weld:
      s = JointSpec::weld();
      break;
    case JointType::Revolute:
      s = JointSpec::revolute(randomUnitVector(rng));
      break;
    case JointType::Prismatic:
      s = JointSpec::prismatic(randomUnitVector(rng));
      break;
    case JointType::Screw: {
      double pitch = uniform(rng, 0.05, 0.3);
      if (uniform(rng, 0.0, 1.0) < 0.5) pitch = -pitch;
      s = JointSpec::screw(randomUnitVector(rng), pitch);
      break;
    }
    case JointType::Universal: {
      const auto [a, b] = randomOrthogonalAxes(rng);
      s = JointSpec::universal(a, b);
      break;
    }
    case JointType::Ball:
      s = JointSpec::ball();
      break;
    case JointType::Euler:
      s = JointSpec::euler(kAllEulerOrders[static_cast<std::size_t>(eulerCounter % 7)]);
      ++eulerCounter;
      break;
    case JointType::Planar: {
      const auto [a, b] = randomOrthogonalAxes(rng);
      s = JointSpec::planar(a, b);
      break;
    }
    case JointType::Translational:
      s = JointSpec::translational();
      break;
    case JointType::Free:
      s = JointSpec::free();
      break;
  }
  if (!(type == JointType::Free && opt.identityFreeOffsets)) {
    s.parentOffset = randomTransform(rng, 0.4);
    s.childOffset = randomTransform(rng, 0.3);
  }
  if (opt.armature && expectedNumDofs(type) > 0 && uniform(rng, 0.0, 1.0) < 0.3) {
    s.armature = randomVectorX(rng, expectedNumDofs(type), 0.01, 0.2);
  }
  return s;
}

/// Random tree with `opt.numLinks` links. The root has `opt.rootType`; the
/// other joints cycle through a random permutation of all ten joint types (so
/// every type appears once there are ≥ 11 links), Euler joints cycle through
/// the axis orders. Enters simulation mode.
inline RandomTree makeRandomTree(std::uint32_t seed, const TreeOptions& opt) {
  std::mt19937 rng(seed);
  RandomTree t;
  t.world = std::make_unique<World>();
  t.mb = t.world->addMultibody("tree");
  int eulerCounter = static_cast<int>(seed % 7u);
  std::array<JointType, 10> perm = kAllJointTypes;
  std::shuffle(perm.begin(), perm.end(), rng);
  // The first non-root joint is never a weld, so every tree has DoFs.
  if (perm[0] == JointType::Weld) std::swap(perm[0], perm[1]);
  for (int i = 0; i < opt.numLinks; ++i) {
    LinkOptions lo;
    lo.name = "link" + std::to_string(i);
    lo.inertia = randomInertia(rng);
    t.inertias.push_back(lo.inertia);
    if (i == 0) {
      JointSpec s = randomJointSpec(rng, opt.rootType, eulerCounter, opt);
      s.name = "joint0";
      t.links.push_back(t.mb.addLink(lo, s));
      t.parents.push_back(-1);
      t.specs.push_back(s);
    } else {
      // Half of the links hang from the previous one (depth), the others from a random link.
      const int parent = uniform(rng, 0.0, 1.0) < 0.5 ? i - 1 : uniformInt(rng, 0, i - 1);
      const JointType type = perm[static_cast<std::size_t>((i - 1) % 10)];
      JointSpec s = randomJointSpec(rng, type, eulerCounter, opt);
      s.name = "joint" + std::to_string(i);
      t.links.push_back(t.mb.addLink(lo, t.links[static_cast<std::size_t>(parent)], s));
      t.parents.push_back(parent);
      t.specs.push_back(s);
    }
  }
  t.world->enterSimulationMode();
  return t;
}

// ---- random states and q ⊕ εv -------------------------------------------------

/// Random valid positions for every joint of `mb` (normalised quaternions,
/// Euler β away from the singular configurations of every axis order).
inline VectorXd randomPositions(std::mt19937& rng, const Multibody& mb) {
  VectorXd q = VectorXd::Zero(mb.numPositions());
  for (const Joint& j : mb.getJoints()) {
    const int o = j.positionOffset();
    switch (j.type()) {
      case JointType::Weld:
        break;
      case JointType::Revolute:
      case JointType::Screw:
        q[o] = uniform(rng, -kPi, kPi);
        break;
      case JointType::Prismatic:
        q[o] = uniform(rng, -0.5, 0.5);
        break;
      case JointType::Universal:
        q[o] = uniform(rng, -kPi, kPi);
        q[o + 1] = uniform(rng, -kPi, kPi);
        break;
      case JointType::Euler: {
        // β in ±[0.4, 1.2]: away from both sin β = 0 (proper Euler) and cos β = 0 (Tait–Bryan).
        const double beta = uniform(rng, 0.4, 1.2);
        q[o] = uniform(rng, -kPi, kPi);
        q[o + 1] = uniform(rng, 0.0, 1.0) < 0.5 ? beta : -beta;
        q[o + 2] = uniform(rng, -kPi, kPi);
        break;
      }
      case JointType::Planar:
        q[o] = uniform(rng, -0.5, 0.5);
        q[o + 1] = uniform(rng, -0.5, 0.5);
        q[o + 2] = uniform(rng, -kPi, kPi);
        break;
      case JointType::Translational:
        q.segment<3>(o) = randomVector(rng, -0.5, 0.5);
        break;
      case JointType::Ball: {
        const Quaterniond Q = randomQuaternion(rng);
        q.segment<4>(o) = Eigen::Vector4d(Q.x(), Q.y(), Q.z(), Q.w());
        break;
      }
      case JointType::Free: {
        const Quaterniond Q = randomQuaternion(rng);
        q.segment<3>(o) = randomVector(rng, -1.0, 1.0);
        q.segment<4>(o + 3) = Eigen::Vector4d(Q.x(), Q.y(), Q.z(), Q.w());
        break;
      }
    }
  }
  return q;
}

/// q ⊕ εv (see the file comment). Exact first derivative dq/dε at ε = 0 for
/// the documented velocity convention of every joint type.
inline VectorXd integratePositions(const Multibody& mb, const VectorXd& q, const VectorXd& v, double eps) {
  VectorXd out = q;
  for (const Joint& j : mb.getJoints()) {
    const int qo = j.positionOffset();
    const int vo = j.velocityOffset();
    const JointType type = j.type();
    if (type == JointType::Ball || type == JointType::Free) {
      const int qq = type == JointType::Ball ? qo : qo + 3;
      const Quaterniond Q(q[qq + 3], q[qq], q[qq + 1], q[qq + 2]);
      const Vector3d w = v.segment<3>(vo);
      if (type == JointType::Free) {
        out.segment<3>(qo) = q.segment<3>(qo) + eps * (Q.toRotationMatrix() * v.segment<3>(vo + 3));
      }
      const Quaterniond Qn = (Q * expQuaternion(eps * w)).normalized();
      out.segment<4>(qq) = Eigen::Vector4d(Qn.x(), Qn.y(), Qn.z(), Qn.w());
    } else {
      const int n = expectedNumDofs(type);
      out.segment(qo, n) = q.segment(qo, n) + eps * v.segment(vo, n);
    }
  }
  return out;
}

/// Relative tolerance for results that go through a solve with M: the
/// rounding error grows with the condition number of M.
inline double solveTolerance(const MatrixXd& M, double base = 1e-10) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(M, Eigen::EigenvaluesOnly);
  const double lo = es.eigenvalues().minCoeff();
  const double hi = es.eigenvalues().maxCoeff();
  const double cond = lo > 0.0 ? hi / lo : 1e300;
  return std::max(base, 1e-14 * cond);
}

inline double conditionNumber(const MatrixXd& M) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(M, Eigen::EigenvaluesOnly);
  return es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
}

}  // namespace articula::test

/// ARTICULA_VERIFY_NEAR with a context message (seed, link, ...).
#define ARTICULA_VERIFY_NEAR_MSG(actual, expected, tol, context)                                 \
  do {                                                                                           \
    const double articula_err_ = articula::test::relativeError((actual), (expected));            \
    if (!(articula_err_ <= (tol))) {                                                             \
      QFAIL(qPrintable(QString("%1: relative error %2 > %3\nactual:\n%4\nexpected:\n%5")         \
                           .arg(QString(context))                                                \
                           .arg(articula_err_)                                                   \
                           .arg(tol)                                                             \
                           .arg(QString::fromStdString(articula::test::describe((actual))))      \
                           .arg(QString::fromStdString(articula::test::describe((expected)))))); \
    }                                                                                            \
  } while (false)

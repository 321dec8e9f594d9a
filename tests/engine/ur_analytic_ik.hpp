#pragma once
// Closed-form kinematics of the Universal Robots UR5 (and the other 6R arms of the same geometry), used as a
// reference for the inverse-kinematics and frame tests.
//
// Conventions: standard Denavit–Hartenberg, T_i = Rz(theta_i)·Tz(d_i)·Tx(a_i)·Rx(alpha_i) with
//   alpha = {pi/2, 0, 0, pi/2, -pi/2, 0}, a = {0, a2, a3, 0, 0, 0}, d = {d1, 0, 0, d4, d5, d6}.
// urForward() returns the pose of DH frame 6 in DH frame 0. In the ROS ur_description URDF these frames are the
// links `base` (base_link rotated by pi about z) and `tool0`, and the URDF joint angles equal the DH thetas (no
// offsets); tests relying on this check it against the URDF chain.
//
// urInverse() returns every real solution (at most 8: shoulder left/right × wrist up/down × elbow up/down), each
// joint wrapped to (-pi, pi]; branches that coincide exactly are returned once. At the wrist singularity
// (sin q5 ≈ 0) only q4 + q6 is determined and q6 = 0 is chosen. Branches whose arccos argument leaves [-1, 1] by
// more than 1e-9 are dropped; smaller overshoots are clamped.

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include <array>
#include <cmath>
#include <vector>

namespace articula::test {

struct UrDh {
  double d1, a2, a3, d4, d5, d6;
};

constexpr UrDh kUr5{0.089159, -0.425, -0.39225, 0.10915, 0.09465, 0.0823};

namespace ur_detail {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kAcosSlack = 1e-9;
inline constexpr double kWristSingular = 1e-10;

// Wraps an angle to (-pi, pi].
inline double wrapAngle(double x) {
  double w = std::remainder(x, 2.0 * kPi);
  if (w <= -kPi) w += 2.0 * kPi;
  return w;
}

// arccos with tolerance: false when |c| exceeds 1 by more than kAcosSlack.
inline bool safeAcos(double c, double& out) {
  if (!std::isfinite(c) || std::abs(c) > 1.0 + kAcosSlack) return false;
  out = std::acos(std::fmax(-1.0, std::fmin(1.0, c)));
  return true;
}

// Standard DH link transform Rz(theta)·Tz(d)·Tx(a)·Rx(alpha).
inline Eigen::Isometry3d dhLink(double theta, double d, double a, double alpha) {
  const double ct = std::cos(theta), st = std::sin(theta);
  const double ca = std::cos(alpha), sa = std::sin(alpha);
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.linear() << ct, -st * ca, st * sa,  //
      st, ct * ca, -ct * sa,            //
      0.0, sa, ca;
  t.translation() << a * ct, a * st, d;
  return t;
}

}  // namespace ur_detail

// Pose of DH frame 6 in DH frame 0.
inline Eigen::Isometry3d urForward(const UrDh& p, const std::array<double, 6>& q) {
  using ur_detail::dhLink;
  constexpr double h = ur_detail::kPi / 2.0;
  return dhLink(q[0], p.d1, 0.0, h) * dhLink(q[1], 0.0, p.a2, 0.0) * dhLink(q[2], 0.0, p.a3, 0.0) *
         dhLink(q[3], p.d4, 0.0, h) * dhLink(q[4], p.d5, 0.0, -h) * dhLink(q[5], p.d6, 0.0, 0.0);
}

// All closed-form solutions q with urForward(p, q) == T06.
inline std::vector<std::array<double, 6>> urInverse(const UrDh& p, const Eigen::Isometry3d& T06) {
  using ur_detail::dhLink;
  using ur_detail::safeAcos;
  using ur_detail::wrapAngle;
  constexpr double h = ur_detail::kPi / 2.0;

  std::vector<std::array<double, 6>> sols;
  const Eigen::Matrix3d R = T06.linear();
  const Eigen::Vector3d p06 = T06.translation();

  // q1: the wrist centre o5 = o6 - d6·z6 lies at distance d4 from the plane spanned by the base z axis and the
  // arm, i.e. o5 · z1 = d4 with z1 = (sin q1, -cos q1, 0).
  const Eigen::Vector3d p05 = p06 - p.d6 * R.col(2);
  const double r = std::hypot(p05.x(), p05.y());
  double shoulder;
  if (!(r > 0.0) || !safeAcos(p.d4 / r, shoulder)) return sols;
  const double phi = std::atan2(p05.y(), p05.x());

  for (int i1 = 0; i1 < (shoulder > 0.0 ? 2 : 1); ++i1) {
    const double q1 = phi + h + (i1 == 0 ? shoulder : -shoulder);
    const double s1 = std::sin(q1), c1 = std::cos(q1);

    // q5, q6: z1 expressed in frame 6 is v = (sin q5 cos q6, -sin q5 sin q6, cos q5). The choice of q1 makes
    // v.z = (o6 · z1 - d4) / d6 automatically; atan2 keeps q5 accurate near the wrist singularity.
    const double vx = R(0, 0) * s1 - R(1, 0) * c1;
    const double vy = R(0, 1) * s1 - R(1, 1) * c1;
    const double vz = R(0, 2) * s1 - R(1, 2) * c1;
    const double wrist = std::atan2(std::hypot(vx, vy), vz);

    for (int i5 = 0; i5 < (wrist > 0.0 ? 2 : 1); ++i5) {
      const double q5 = i5 == 0 ? wrist : -wrist;
      const double s5 = std::sin(q5);
      double q6 = 0.0;
      if (std::abs(s5) > ur_detail::kWristSingular) {
        const double sg = s5 > 0.0 ? 1.0 : -1.0;
        q6 = std::atan2(-vy * sg, vx * sg);
      }

      // The remaining joints form a planar 3R chain about the parallel axes z1, z2, z3.
      const Eigen::Isometry3d T14 =
          dhLink(q1, p.d1, 0.0, h).inverse() * T06 * (dhLink(q5, p.d5, 0.0, -h) * dhLink(q6, p.d6, 0.0, 0.0)).inverse();
      const Eigen::Vector3d p13 = T14 * Eigen::Vector3d(0.0, -p.d4, 0.0);
      const double q234 = std::atan2(T14(1, 0), T14(0, 0));
      const double len2 = p13.x() * p13.x() + p13.y() * p13.y();

      double elbow;
      if (!safeAcos((len2 - p.a2 * p.a2 - p.a3 * p.a3) / (2.0 * p.a2 * p.a3), elbow)) continue;

      for (int i3 = 0; i3 < (elbow > 0.0 ? 2 : 1); ++i3) {
        const double q3 = i3 == 0 ? elbow : -elbow;
        const double q2 = std::atan2(p13.y(), p13.x()) - std::atan2(p.a3 * std::sin(q3), p.a2 + p.a3 * std::cos(q3));
        const double q4 = q234 - q2 - q3;
        sols.push_back({wrapAngle(q1), wrapAngle(q2), wrapAngle(q3), wrapAngle(q4), wrapAngle(q5), wrapAngle(q6)});
      }
    }
  }
  return sols;
}

// True when q (6 entries) equals one of sols joint by joint modulo 2*pi within tol.
inline bool urMatchesSolution(const std::vector<std::array<double, 6>>& sols, const Eigen::VectorXd& q, double tol) {
  if (q.size() != 6) return false;
  for (const auto& s : sols) {
    bool same = true;
    for (int j = 0; j < 6 && same; ++j) {
      same = std::abs(std::remainder(q[j] - s[j], 2.0 * ur_detail::kPi)) <= tol;
    }
    if (same) return true;
  }
  return false;
}

}  // namespace articula::test

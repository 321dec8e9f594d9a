#pragma once
// Test mechanisms of the class real closed-loop robots belong to (used by
// tests/engine/test_loop_closure_robustness.cpp, test_no_allocation.cpp and
// tests/benchmarks/bench_closures.cpp; depends on the engine only).
//
// Closed-loop biped on a floating base (24 DoF, four loops, 26 closure
// rows). The pelvis hangs on a free joint; each leg has
//   - a hip ball joint (damped) carrying the thigh (3 kg, 0.4 m),
//   - a knee revolute about the thigh's y axis carrying the shank (2 kg,
//     0.4 m), a leaf spring (stiffness and damping) at 0.4 rad of flexion,
//   - a polycentric knee: two struts (0.3 kg, 0.14 m each) on leaf-spring
//     revolutes from the front of the thigh, the second strut's end tied to
//     the shank by a Hinge closure (a Grashof crank-rocker four-bar),
//   - a slender rod (0.2 kg, 0.47 m) on a ball joint at the front of the
//     pelvis, its end tied to the shank below the knee by a Point closure.
//     The rod's inertia about its own axis is 1e-8 of its transverse
//     inertia (principal axes 1e-4 rad off the rod's line by default), so
//     its spin is a nearly inertia-free degree of freedom that no closure
//     row constrains.
// Every closure is satisfied exactly at the zero configuration of the
// joints (offsets computed from the geometry), with the pelvis at `origin`.
//
// Floating-base arm (12 DoF): a 6 kg base on a free joint carrying six
// revolutes (z, y, y, x, y, z) with links from 2.5 kg down to a 0.1 kg
// wrist (2e-5 kg·m²) and a slender 0.3 kg, 0.2 m tool rolling about its
// own axis, whose inertia about that axis is 1e-8 of the transverse one
// (principal axes 1e-4 rad off by default).

#include <articula/articula.hpp>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace articula::robots {

inline Isometry3d at(const Vector3d& p, const Matrix3d& R = Matrix3d::Identity()) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = R;
  X.translation() = p;
  return X;
}

/// Rotation about y by `a` (rad).
inline Matrix3d rotY(double a) {
  return Eigen::AngleAxisd(a, Vector3d::UnitY()).toRotationMatrix();
}

/// Rotation mapping −z onto the unit vector `d`.
inline Matrix3d downTo(const Vector3d& d) {
  return Eigen::Quaterniond::FromTwoVectors(-Vector3d::UnitZ(), d.normalized()).toRotationMatrix();
}

/// Bar of mass m and length L along −z of its frame (frame at the top end),
/// square section `width`.
inline Inertia bar(double m, double L, double width) {
  Inertia in = Inertia::box(m, Vector3d(width, width, L));
  in.com = Vector3d(0.0, 0.0, -0.5 * L);
  return in;
}

/// Slender rod along −z: transverse inertia m L²/12, spin inertia
/// `spinRatio` times that, principal axes turned by `tilt` (rad) about
/// (1, 1, 0)/√2 away from the rod's line (inertias rounded from CAD data
/// are off by that much).
inline Inertia slenderRod(double m, double L, double spinRatio, double tilt) {
  Inertia in;
  in.mass = m;
  in.com = Vector3d(0.0, 0.0, -0.5 * L);
  const double t = m * L * L / 12.0;
  const Matrix3d R = Eigen::AngleAxisd(tilt, Vector3d(1.0, 1.0, 0.0).normalized()).toRotationMatrix();
  in.rotational = R * Vector3d(t, t, spinRatio * t).asDiagonal() * R.transpose();
  return in;
}

inline LinkOptions linkNamed(const std::string& name, const Inertia& inertia) {
  LinkOptions o;
  o.name = name;
  o.inertia = inertia;
  return o;
}

inline JointSpec leafSpring(JointSpec j, double stiffness, double damping) {
  j.springStiffness = VectorXd::Constant(1, stiffness);
  j.damping = VectorXd::Constant(1, damping);
  return j;
}

/// Intersection of the circles |x − a| = ra and |x − b| = rb in the x–z
/// plane (y = 0), the one with the larger x.
inline Vector3d circleIntersection(const Vector3d& a, double ra, const Vector3d& b, double rb) {
  const Vector3d d = b - a;
  const double dist = d.norm();
  const double along = (ra * ra - rb * rb + dist * dist) / (2.0 * dist);
  const double off = std::sqrt(ra * ra - along * along);
  const Vector3d mid = a + along * d / dist;
  const Vector3d perp = Vector3d(-d.z(), 0.0, d.x()) / dist;  // in-plane normal
  const Vector3d p1 = mid + off * perp;
  const Vector3d p2 = mid - off * perp;
  return p1.x() > p2.x() ? p1 : p2;
}

struct BipedOptions {
  std::string name = "biped";
  Vector3d origin{0.0, 0.0, 1.0};  ///< pelvis position
  double rodSpinRatio = 1e-8;      ///< rod spin inertia / transverse inertia
  double rodInertiaTilt = 1e-4;    ///< rad between the rod's line and its smallest principal axis
  double kneeStiffness = 60.0;     ///< N·m/rad
  double kneeDamping = 0.5;        ///< N·m·s/rad
  double strutStiffness = 2.0;
  double strutDamping = 0.05;
  double hipDamping = 0.2;
  bool collisionShapes = false;  ///< feet spheres, shank and thigh capsules, pelvis box
};

struct Biped {
  Multibody mb;
  Link pelvis;
  std::vector<Link> thighs, shanks, rods;
  std::vector<LoopClosure> closures;
};

inline Biped buildBiped(World& world, const BipedOptions& o = {}) {
  constexpr double kThigh = 0.4;
  constexpr double kShank = 0.4;
  constexpr double kFlexion = 0.4;  // knee angle at q = 0 (rad)
  constexpr double kStrut = 0.14;
  Biped b;
  b.mb = world.addMultibody(o.name);
  b.pelvis = b.mb.addLink(linkNamed("pelvis", Inertia::box(8.0, Vector3d(0.2, 0.3, 0.1))), JointSpec::free());
  if (o.collisionShapes) {
    CollisionShapeOptions s;
    s.geometry = Geometry::box(Vector3d(0.2, 0.3, 0.1));
    b.pelvis.addCollisionShape(s);
  }
  // Hinge endpoints: z onto the y axis of the leg plane.
  const Matrix3d zToY = Eigen::AngleAxisd(-0.5 * std::numbers::pi, Vector3d::UnitX()).toRotationMatrix();
  for (const double side : {1.0, -1.0}) {
    const std::string sfx = side > 0.0 ? "_l" : "_r";
    const Vector3d hip(0.0, 0.1 * side, -0.05);
    JointSpec hipJoint = JointSpec::ball().withParentOffset(at(hip)).named("hip" + sfx);
    hipJoint.damping = VectorXd::Constant(3, o.hipDamping);
    Link thigh = b.mb.addLink(linkNamed("thigh" + sfx, bar(3.0, kThigh, 0.08)), b.pelvis, hipJoint);
    const Matrix3d flex = rotY(kFlexion);
    const Vector3d knee(0.0, 0.0, -kThigh);
    Link shank = b.mb.addLink(linkNamed("shank" + sfx, bar(2.0, kShank, 0.06)), thigh,
                              leafSpring(JointSpec::revolute(Vector3d::UnitY()).withParentOffset(at(knee, flex)),
                                         o.kneeStiffness, o.kneeDamping)
                                  .named("knee" + sfx));
    // Four-bar: strut pivot A on the thigh, shank point B, kink M.
    const Vector3d A(0.05, 0.0, -0.28);
    const Vector3d bLocal(0.05, 0.0, -0.1);
    const Vector3d B = knee + flex * bLocal;
    const Vector3d M = circleIntersection(A, kStrut, B, kStrut);
    const Matrix3d R1 = downTo(M - A);
    const Matrix3d R2 = downTo(B - M);
    const Link strut1 = b.mb.addLink(
        linkNamed("strut_a" + sfx, bar(0.3, kStrut, 0.02)), thigh,
        leafSpring(JointSpec::revolute(Vector3d::UnitY()).withParentOffset(at(A, R1)), o.strutStiffness, o.strutDamping)
            .named("strut_a" + sfx));
    const Link strut2 =
        b.mb.addLink(linkNamed("strut_b" + sfx, bar(0.3, kStrut, 0.02)), strut1,
                     leafSpring(JointSpec::revolute(Vector3d::UnitY())
                                    .withParentOffset(at(Vector3d(0.0, 0.0, -kStrut), R1.transpose() * R2)),
                                o.strutStiffness, o.strutDamping)
                         .named("strut_b" + sfx));
    LoopClosureSpec hinge;
    hinge.frameA = strut2;
    hinge.offsetA = at(Vector3d(0.0, 0.0, -kStrut), R2.transpose() * zToY);
    hinge.frameB = shank;
    hinge.offsetB = at(bLocal, zToY);
    hinge.family = LoopClosureFamily::Hinge;
    b.closures.push_back(world.addLoopClosure(o.name + "_knee" + sfx, hinge));
    // Rod from the front of the pelvis to the shank below the knee.
    const Vector3d P(0.1, 0.15 * side, -0.05);
    const Vector3d cLocal(0.05, 0.0, -0.05);
    const Vector3d C = hip + knee + flex * cLocal;
    const double rodLength = (C - P).norm();
    JointSpec rodJoint = JointSpec::ball().withParentOffset(at(P, downTo(C - P))).named("rod" + sfx);
    const Link rod = b.mb.addLink(linkNamed("rod" + sfx, slenderRod(0.2, rodLength, o.rodSpinRatio, o.rodInertiaTilt)),
                                  b.pelvis, rodJoint);
    LoopClosureSpec point;
    point.frameA = rod;
    point.offsetA = at(Vector3d(0.0, 0.0, -rodLength));
    point.frameB = shank;
    point.offsetB = at(cLocal);
    point.family = LoopClosureFamily::Point;
    b.closures.push_back(world.addLoopClosure(o.name + "_rod" + sfx, point));
    if (o.collisionShapes) {
      CollisionShapeOptions foot;
      foot.geometry = Geometry::sphere(0.04);
      foot.pose = at(Vector3d(0.0, 0.0, -kShank));
      shank.addCollisionShape(foot);
      CollisionShapeOptions kneeShape;
      kneeShape.geometry = Geometry::sphere(0.05);
      kneeShape.pose = at(Vector3d(0.0, 0.0, -kThigh));
      thigh.addCollisionShape(kneeShape);
    }
    b.thighs.push_back(thigh);
    b.shanks.push_back(shank);
    b.rods.push_back(rod);
  }
  // Joints start at their neutral configuration (identity quaternions).
  VectorXd root(7);
  root << o.origin.x(), o.origin.y(), o.origin.z(), 0.0, 0.0, 0.0, 1.0;
  b.pelvis.getParentJoint().setPositions(root);
  return b;
}

struct ArmOptions {
  std::string name = "arm";
  Vector3d origin{0.0, 0.0, 1.0};
  double jointDamping = 0.0;      ///< N·m·s/rad on the six revolutes
  double toolSpinRatio = 1e-8;    ///< tool's inertia about its roll axis / transverse
  double toolInertiaTilt = 1e-4;  ///< rad between the roll axis and the tool's smallest principal axis
  bool collisionShapes = false;
};

struct Arm {
  Multibody mb;
  Link base;
  std::vector<Link> links;
};

inline Arm buildFloatingArm(World& world, const ArmOptions& o = {}) {
  Arm a;
  a.mb = world.addMultibody(o.name);
  a.base = a.mb.addLink(linkNamed("base", Inertia::box(6.0, Vector3d(0.3, 0.3, 0.12))), JointSpec::free());
  struct Segment {
    const char* name;
    Vector3d axis;
    Vector3d offset;  // joint position in the parent frame
    double mass;
    double length;  // along +z of the link
    double width;
  };
  const Segment segs[] = {
      {"shoulder_yaw", Vector3d::UnitZ(), Vector3d(0, 0, 0.06), 2.5, 0.15, 0.1},
      {"shoulder_pitch", Vector3d::UnitY(), Vector3d(0, 0, 0.15), 2.0, 0.35, 0.08},
      {"elbow", Vector3d::UnitY(), Vector3d(0, 0, 0.35), 1.2, 0.3, 0.06},
      {"wrist_roll", Vector3d::UnitX(), Vector3d(0, 0, 0.3), 0.4, 0.08, 0.05},
      {"wrist_pitch", Vector3d::UnitY(), Vector3d(0, 0, 0.08), 0.1, 0.05, 0.02},
      {"tool_roll", Vector3d::UnitZ(), Vector3d(0, 0, 0.05), 0.3, 0.2, 0.0},  // slender tool
  };
  if (o.collisionShapes) {
    CollisionShapeOptions s;
    s.geometry = Geometry::box(Vector3d(0.3, 0.3, 0.12));
    a.base.addCollisionShape(s);
  }
  Link parent = a.base;
  for (const auto& s : segs) {
    Inertia in = Inertia::box(s.mass, Vector3d(s.width, s.width, s.length));
    if (s.width == 0.0) in = slenderRod(s.mass, s.length, o.toolSpinRatio, o.toolInertiaTilt);
    in.com = Vector3d(0.0, 0.0, 0.5 * s.length);
    JointSpec j = JointSpec::revolute(s.axis).withParentOffset(at(s.offset)).named(s.name);
    if (o.jointDamping > 0.0) j.damping = VectorXd::Constant(1, o.jointDamping);
    parent = a.mb.addLink(linkNamed(std::string(s.name) + "_link", in), parent, j);
    if (o.collisionShapes) {
      CollisionShapeOptions c;
      c.geometry = Geometry::sphere(0.5 * s.width + 0.02);
      c.pose = at(Vector3d(0.0, 0.0, s.length));
      parent.addCollisionShape(c);
    }
    a.links.push_back(parent);
  }
  VectorXd q = VectorXd::Zero(a.mb.numPositions());
  q.head<3>() = o.origin;
  q[6] = 1.0;
  q[7 + 1] = 0.6;   // shoulder pitch
  q[7 + 2] = -1.1;  // elbow
  q[7 + 4] = 0.5;   // wrist pitch
  a.mb.setPositions(q);
  return a;
}

}  // namespace articula::robots

#pragma once
// Scenes for the replay tests: a pile of bodies on the ground (contacts), a
// four-bar with a box falling on it (a loop closure and contacts), and two
// geared wheels (a coupler).
#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <string>

namespace articula::test {

inline CollisionShapeOptions shape(const Geometry& g, const Isometry3d& pose = Isometry3d::Identity()) {
  CollisionShapeOptions c;
  c.geometry = g;
  c.pose = pose;
  return c;
}

// Boxes, a sphere and a capsule dropped tilted onto the ground and each other.
inline void pile(World& w) {
  w.addGroundPlane();
  for (int i = 0; i < 6; ++i) {
    RigidBodyOptions o;
    o.inertia = Inertia::box(1.0, {0.3, 0.2, 0.1});
    o.pose = translation(0.05 * (i % 3), 0.04 * (i % 2), 0.12 + 0.18 * i) *
             rotation(0.3 * i, Vector3d(1, 2, 3).normalized());
    RigidBody b = w.addRigidBody("box" + std::to_string(i), o);
    b.addCollisionShape(shape(Geometry::box({0.3, 0.2, 0.1})));
  }
  RigidBodyOptions s;
  s.inertia = Inertia::sphere(0.5, 0.08);
  s.pose = translation(0.1, 0.0, 1.4);
  s.angularVelocity = Vector3d(0, 3, 0);
  w.addRigidBody("ball", s).addCollisionShape(shape(Geometry::sphere(0.08)));
  RigidBodyOptions k;
  k.inertia = Inertia::cylinder(0.5, 0.05, 0.3);
  k.pose = translation(-0.1, 0.05, 1.7) * rotation(1.0, Vector3d::UnitX());
  w.addRigidBody("capsule", k).addCollisionShape(shape(Geometry::capsule(0.05, 0.3)));
}

// A four-bar (crank, coupler, rocker; the rocker's tip pinned to the world)
// with a box falling on its coupler.
inline void fourBarWithBox(World& w) {
  w.addGroundPlane(-2.0);
  Multibody mb = w.addMultibody("fourbar");
  const auto rod = [](double m, double l) {
    Inertia in = Inertia::box(m, {l, 0.04, 0.04});
    in.com = Vector3d(0.5 * l, 0, 0);
    return in;
  };
  const JointSpec hinge = JointSpec::revolute(Vector3d::UnitY());
  const Link crank = mb.addLink({"crank", rod(0.5, 0.4)}, hinge.named("crank"));
  const Link coupler =
      mb.addLink({"coupler", rod(1.0, 1.0)}, crank, hinge.named("coupler").withParentOffset(translation(0.4, 0, 0)));
  const Link rocker =
      mb.addLink({"rocker", rod(0.8, 0.7)}, coupler, hinge.named("rocker").withParentOffset(translation(1.0, 0, 0)));
  w.addCollisionShape(coupler, shape(Geometry::box({1.0, 0.2, 0.04}), translation(0.5, 0, 0)));
  LoopClosureSpec spec;
  spec.frameA = Frame::World();
  spec.offsetA = translation(1.0, 0, 0);
  spec.frameB = rocker;
  spec.offsetB = translation(0.7, 0, 0);
  spec.family = LoopClosureFamily::Point;
  w.addLoopClosure("pin", spec);
  mb.setPositions(Vector3d(-1.2, 1.7, 1.9));
  ClosureProjectionOptions po;
  po.lockedJoints = {crank.getParentJoint()};
  w.projectClosures(po);
  RigidBodyOptions o;
  o.inertia = Inertia::box(0.3, {0.1, 0.1, 0.1});
  o.pose = translation(0.6, 0, 0.8);
  w.addRigidBody("box", o).addCollisionShape(shape(Geometry::box({0.1, 0.1, 0.1})));
}

// Two wheels geared 1 : −2 (a coupler), the leader driven by a spring.
inline void gears(World& w) {
  Multibody mb = w.addMultibody("gears");
  JointSpec a = JointSpec::revolute(Vector3d::UnitZ()).named("a");
  a.springStiffness = VectorXd::Constant(1, 5.0);
  a.restPositions = VectorXd::Constant(1, 1.0);
  const Link wa = mb.addLink({"wheel_a", Inertia::cylinder(1.0, 0.2, 0.05)}, a);
  const Link wb =
      mb.addLink({"wheel_b", Inertia::cylinder(0.5, 0.1, 0.05)}, wa,
                 JointSpec::revolute(Vector3d::UnitZ()).named("b").withParentOffset(translation(0.3, 0, 0)));
  w.addJointCoupler("mesh", JointCouplerSpec{wa.getParentJoint(), wb.getParentJoint(), -2.0, 0.0});
}

}  // namespace articula::test

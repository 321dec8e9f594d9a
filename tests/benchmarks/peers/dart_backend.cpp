// The DART 6.12 backend of the peer benchmark.
//
// Every Tree becomes one dart::dynamics::Skeleton, built body by body in the
// Scene's order, so a tree's DART degrees of freedom follow the neutral order
// (checked when the scene is built). The body frame is the joint frame: each
// joint's transform from the parent body is Body::jointPose and its transform
// from the child body is the identity, so a joint axis given in the body frame
// is the axis in DART's joint frame.
//
// Engine settings (all DART 6.12 defaults unless said otherwise):
//   - integration: World::step, i.e. semi-implicit Euler: velocities are
//     advanced from the articulated-body forward dynamics, constraint
//     impulses are applied to the new velocities, then positions are advanced
//     with the new velocities (a FreeJoint on SE(3) through the exponential
//     map);
//   - constraint solver: BoxedLcpConstraintSolver with a Dantzig boxed-LCP
//     primary solver and a PGS fallback; contacts: ERP 0.01, maximal error
//     reduction velocity 1e-3 m/s, CFM 1e-5, no error allowance, pyramid
//     friction with two tangent directions; joint (closure) constraints:
//     ERP 0.01, maximal error reduction velocity 10, CFM 1e-9;
//   - collision: DART's default detector, FCLCollisionDetector (FCL 0.7,
//     dynamic AABB tree broad phase), with the default
//     BodyNodeCollisionFilter (no collisions between a body and its parent).
//     Two changes from the defaults: (1) boxes and spheres are handed to FCL
//     as primitives instead of the 6.12 default of tessellated meshes: on the
//     mesh path, boxes resting face to face (the box stack) produce spurious
//     side contacts reported 0.2 m deep and the step is about four times
//     slower, while FCL's primitive box-box, sphere-box and sphere-sphere
//     tests give exact contact manifolds and depths; (2) the cap on contacts
//     per collision query is raised from 1000 to 100000, because a cap that
//     is reached silently drops contacts (the 500-box pile exceeds it);
//   - joints: no damping, spring, Coulomb friction or limit enforcement (DART
//     has no armature); position, velocity and force limits are infinite;
//     DART has no sleeping and no default velocity damping;
//   - contact-free and closed-chain scenes: no shapes are created and every
//     skeleton is unsubscribed from the solver's collision group, so the
//     collision query runs on an empty group; the constraint solver still
//     handles the closures;
//   - contact scenes: the ground is an immobile skeleton holding a welded
//     100 m x 100 m x 1 m box whose top face is the plane z = 0; every shape's
//     friction coefficient is Scene::friction (DART combines two with min)
//     and its restitution is 0. A tree of several bodies checks collisions
//     between its own bodies except parent and child.
//
// DART 6.12 as packaged keeps its assertions, which abort the process on the
// non-finite joint transforms of a diverging simulation; step() therefore
// throws std::runtime_error once a coordinate or velocity exceeds 1e8.
#include "peer.hpp"

#include <dart/collision/CollisionGroup.hpp>
#include <dart/collision/CollisionOption.hpp>
#include <dart/collision/CollisionResult.hpp>
#include <dart/collision/fcl/FCLCollisionDetector.hpp>
#include <dart/config.hpp>

#include <dart/constraint/BallJointConstraint.hpp>
#include <dart/constraint/ConstraintSolver.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/BoxShape.hpp>
#include <dart/dynamics/DegreeOfFreedom.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/Inertia.hpp>
#include <dart/dynamics/PrismaticJoint.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/ShapeNode.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/SphereShape.hpp>
#include <dart/dynamics/WeldJoint.hpp>
#include <dart/simulation/World.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace bench {
namespace {

namespace dd = dart::dynamics;

// A revolute or prismatic joint (JointT) from `parent` to a new body: the
// joint frame is at Body::jointPose in the parent and is the body frame.
template <typename JointT>
std::pair<dd::Joint*, dd::BodyNode*> addAxisJoint(dd::Skeleton& skeleton, dd::BodyNode* parent, const std::string& name,
                                                  const Body& b, const dd::BodyNode::Properties& bodyProps) {
  typename JointT::Properties jp;
  jp.mName = name;
  jp.mT_ParentBodyToJoint = b.jointPose;
  jp.mT_ChildBodyToJoint = Eigen::Isometry3d::Identity();
  jp.mAxis = b.axis;
  auto pair = skeleton.createJointAndBodyNodePair<JointT>(parent, jp, bodyProps);
  return {pair.first, pair.second};
}

// Large enough for every contact of the benchmark's scenes.
constexpr std::size_t kMaxContacts = 100000;

// A joint coordinate or velocity beyond this means the simulation diverged.
constexpr double kRunaway = 1e8;

// One tree: its skeleton and where its coordinates sit in the neutral vectors.
struct TreeSlot {
  dd::SkeletonPtr skeleton;
  dd::FreeJoint* freeRoot = nullptr;                           // the root's joint when it is free
  Eigen::Isometry3d rootPose = Eigen::Isometry3d::Identity();  // free root's jointPose
  Eigen::Index q = 0;                                          // first neutral position
  Eigen::Index v = 0;                                          // first neutral velocity
  Eigen::Index dofs = 0;                                       // DART degrees of freedom (= neutral velocities)
};

void clearJointExtras(dd::Joint* joint) {
  joint->setLimitEnforcement(false);
  for (std::size_t i = 0; i < joint->getNumDofs(); ++i) {
    joint->setDampingCoefficient(i, 0.0);
    joint->setSpringStiffness(i, 0.0);
    joint->setCoulombFriction(i, 0.0);
  }
}

void addGeom(dd::BodyNode* body, const Geom& geom, double friction) {
  dd::ShapePtr shape;
  if (geom.type == GeomType::Box)
    shape = std::make_shared<dd::BoxShape>(geom.size);
  else
    shape = std::make_shared<dd::SphereShape>(geom.size.x());
  auto* node = body->createShapeNodeWith<dd::CollisionAspect, dd::DynamicsAspect>(shape);
  node->setRelativeTransform(geom.pose);
  node->getDynamicsAspect()->setFrictionCoeff(friction);
  node->getDynamicsAspect()->setRestitutionCoeff(0.0);
}

class DartInstance final : public Instance {
 public:
  explicit DartInstance(const Scene& scene) : scene_(scene), world_(dart::simulation::World::create("bench")) {
    world_->setGravity(scene.gravity);
    world_->setTimeStep(scene.dt);
    const bool contact = scene.kind == SceneKind::Contact;
    if (contact) {
      // FCL with its exact primitive tests (see the top of the file). DART
      // warns on std::cerr that the primitive path was incomplete in FCL
      // 0.4; the warning is kept off the benchmark's output.
      auto fcl = std::dynamic_pointer_cast<dart::collision::FCLCollisionDetector>(
          world_->getConstraintSolver()->getCollisionDetector());
      if (!fcl) throw std::runtime_error("DART backend: the default collision detector is not FCL");
      std::streambuf* err = std::cerr.rdbuf(nullptr);
      fcl->setPrimitiveShapeType(dart::collision::FCLCollisionDetector::PRIMITIVE);
      std::cerr.rdbuf(err);
    }

    Eigen::Index q = 0;
    Eigen::Index v = 0;
    for (std::size_t t = 0; t < scene.trees.size(); ++t) {
      const Tree& tree = scene.trees[t];
      TreeSlot slot;
      slot.skeleton = dd::Skeleton::create("tree" + std::to_string(t) + "_" + tree.name);
      slot.q = q;
      slot.v = v;
      std::vector<dd::BodyNode*> bodies;
      bodies.reserve(tree.bodies.size());
      for (std::size_t i = 0; i < tree.bodies.size(); ++i) {
        const Body& b = tree.bodies[i];
        if (b.parent >= static_cast<int>(i)) throw std::runtime_error("DART backend: body parent out of order");
        dd::BodyNode* parent = b.parent < 0 ? nullptr : bodies[static_cast<std::size_t>(b.parent)];
        dd::BodyNode::Properties bodyProps;
        bodyProps.mName = "b" + std::to_string(i) + "_" + b.name;
        bodyProps.mInertia = dd::Inertia(b.mass, b.com, b.inertia);
        const std::string jointName = "j" + std::to_string(i) + "_" + b.name;
        dd::Joint* joint = nullptr;
        dd::BodyNode* body = nullptr;
        switch (b.joint) {
          case JointType::Revolute:
            std::tie(joint, body) = addAxisJoint<dd::RevoluteJoint>(*slot.skeleton, parent, jointName, b, bodyProps);
            break;
          case JointType::Prismatic:
            std::tie(joint, body) = addAxisJoint<dd::PrismaticJoint>(*slot.skeleton, parent, jointName, b, bodyProps);
            break;
          case JointType::Free: {
            if (i != 0 || b.parent != -1) throw std::runtime_error("DART backend: a free joint must be a tree's root");
            dd::FreeJoint::Properties jp;
            jp.mName = jointName;
            jp.mT_ParentBodyToJoint = b.jointPose;
            jp.mT_ChildBodyToJoint = Eigen::Isometry3d::Identity();
            auto pair = slot.skeleton->createJointAndBodyNodePair<dd::FreeJoint>(parent, jp, bodyProps);
            joint = pair.first;
            body = pair.second;
            slot.freeRoot = pair.first;
            slot.rootPose = b.jointPose;
            break;
          }
        }
        clearJointExtras(joint);
        // The neutral order must be DART's degree-of-freedom order.
        if (static_cast<Eigen::Index>(joint->getIndexInSkeleton(0)) != slot.dofs)
          throw std::runtime_error("DART backend: unexpected degree-of-freedom order");
        slot.dofs += static_cast<Eigen::Index>(joint->getNumDofs());
        if (b.joint != JointType::Free) jointDofs_.push_back(joint->getDof(0));
        for (std::size_t k = 0; k < joint->getNumDofs(); ++k) allDofs_.push_back(joint->getDof(k));
        if (contact)
          for (const Geom& g : b.geoms) addGeom(body, g, scene.friction);
        bodies.push_back(body);
      }
      if (contact && tree.bodies.size() > 1) {
        slot.skeleton->setSelfCollisionCheck(true);
        slot.skeleton->setAdjacentBodyCheck(false);
      }
      q += numPositionsOf(tree);
      v += slot.dofs;
      bodies_.push_back(std::move(bodies));
      trees_.push_back(slot);
      world_->addSkeleton(slot.skeleton);
    }
    if (q != scene.q0.size() || v != scene.v0.size())
      throw std::runtime_error("DART backend: q0/v0 sizes do not match the scene");

    auto* solver = world_->getConstraintSolver();
    if (contact) {
      auto ground = dd::Skeleton::create("ground");
      dd::WeldJoint::Properties jp;
      jp.mName = "ground_weld";
      Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
      X.translation() = Eigen::Vector3d(0.0, 0.0, -0.5);
      jp.mT_ParentBodyToJoint = X;
      dd::BodyNode::Properties bp;
      bp.mName = "ground";
      auto pair = ground->createJointAndBodyNodePair<dd::WeldJoint>(nullptr, jp, bp);
      addGeom(pair.second, Geom{GeomType::Box, Eigen::Vector3d(100.0, 100.0, 1.0), Eigen::Isometry3d::Identity()},
              scene.friction);
      ground->setMobile(false);
      world_->addSkeleton(ground);
      solver->getCollisionOption().maxNumContacts = kMaxContacts;
    } else {
      auto group = solver->getCollisionGroup();
      for (const TreeSlot& slot : trees_) group->unsubscribeFrom(slot.skeleton.get());
      group->removeAllShapeFrames();
    }

    if (scene.pd) {
      if (scene.pd->qref.size() != static_cast<Eigen::Index>(jointDofs_.size()))
        throw std::runtime_error("DART backend: PD reference size does not match the joints");
      pd_ = *scene.pd;
    }

    setState(scene.q0, scene.v0);

    // Closures take their anchor from the current (initial) state.
    for (const Closure& c : scene.closures) {
      dd::BodyNode* a = bodyAt(c.treeA, c.bodyA);
      const Eigen::Vector3d anchor = a->getWorldTransform() * c.pointA;
      std::shared_ptr<dart::constraint::BallJointConstraint> ball;
      if (c.treeB < 0)
        ball = std::make_shared<dart::constraint::BallJointConstraint>(a, anchor);
      else
        ball = std::make_shared<dart::constraint::BallJointConstraint>(a, bodyAt(c.treeB, c.bodyB), anchor);
      solver->addConstraint(ball);
    }
  }

  void step() override {
    if (diverged_) throw std::runtime_error("DART backend: stepping a diverged simulation");
    if (pd_) {
      const double kp = pd_->kp;
      const double kd = pd_->kd;
      const double* qref = pd_->qref.data();
      const std::size_t n = jointDofs_.size();
      for (std::size_t i = 0; i < n; ++i) {
        dd::DegreeOfFreedom* dof = jointDofs_[i];
        dof->setForce(kp * (qref[i] - dof->getPosition()) - kd * dof->getVelocity());
      }
    }
    // Joint forces are cleared by the step (resetCommand = true).
    world_->step();
    // A runaway state reaches non-finite joint transforms, which trip DART's
    // assertions (aborting the process) at the next kinematics update, so it
    // is reported here while it is still finite.
    for (const dd::DegreeOfFreedom* dof : allDofs_) {
      if (!(std::abs(dof->getPosition()) <= kRunaway && std::abs(dof->getVelocity()) <= kRunaway)) {
        diverged_ = true;
        throw std::runtime_error("DART backend: the simulation diverged (a coordinate or velocity beyond 1e8) at t = " +
                                 std::to_string(world_->getTime()) + " s");
      }
    }
  }

  void getState(Eigen::VectorXd& q, Eigen::VectorXd& v) const override {
    q.resize(scene_.numPositions());
    v.resize(scene_.numDofs());
    for (const TreeSlot& s : trees_) {
      Eigen::Index qi = s.q;
      Eigen::Index first = 0;
      if (s.freeRoot) {
        const Eigen::Vector6d& p = s.freeRoot->getPositionsStatic();
        const Eigen::Vector6d& w = s.freeRoot->getVelocitiesStatic();
        const Eigen::Isometry3d X = s.rootPose * dd::FreeJoint::convertToTransform(p);
        Eigen::Quaterniond r(X.linear());
        if (r.w() < 0.0) r.coeffs() = -r.coeffs();
        q.segment<3>(qi) = X.translation();
        q.segment<4>(qi + 3) << r.w(), r.x(), r.y(), r.z();
        // DART: angular then linear velocity of the body origin, body frame.
        const Eigen::Matrix3d R = X.linear();
        v.segment<3>(s.v) = R * w.tail<3>();
        v.segment<3>(s.v + 3) = R * w.head<3>();
        qi += 7;
        first = 6;
      }
      const std::size_t n = s.skeleton->getNumDofs();
      for (std::size_t k = static_cast<std::size_t>(first); k < n; ++k) {
        const dd::DegreeOfFreedom* dof = s.skeleton->getDof(k);
        q[qi + static_cast<Eigen::Index>(k) - first] = dof->getPosition();
        v[s.v + static_cast<Eigen::Index>(k)] = dof->getVelocity();
      }
    }
  }

  void setState(const Eigen::VectorXd& q, const Eigen::VectorXd& v) override {
    if (q.size() != scene_.numPositions() || v.size() != scene_.numDofs())
      throw std::runtime_error("DART backend: state sizes do not match the scene");
    if (!q.allFinite() || !v.allFinite()) throw std::runtime_error("DART backend: non-finite state");
    diverged_ = false;
    for (const TreeSlot& s : trees_) {
      Eigen::VectorXd pos(s.dofs);
      Eigen::VectorXd vel = v.segment(s.v, s.dofs);
      Eigen::Index first = 0;
      if (s.freeRoot) {
        Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
        X.translation() = q.segment<3>(s.q);
        const Eigen::Quaterniond r(q[s.q + 3], q[s.q + 4], q[s.q + 5], q[s.q + 6]);
        X.linear() = r.normalized().toRotationMatrix();
        pos.head<6>() = dd::FreeJoint::convertToPositions(s.rootPose.inverse() * X);
        const Eigen::Matrix3d Rt = X.linear().transpose();
        vel.head<3>() = Rt * v.segment<3>(s.v + 3);
        vel.segment<3>(3) = Rt * v.segment<3>(s.v);
        first = 6;
      }
      pos.tail(s.dofs - first) = q.segment(s.q + (first ? 7 : 0), s.dofs - first);
      s.skeleton->setPositions(pos);
      s.skeleton->setVelocities(vel);
    }
  }

  Eigen::VectorXd forwardDynamics(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                  const Eigen::VectorXd& tau) override {
    for (const TreeSlot& s : trees_)
      if (s.freeRoot) throw std::runtime_error("DART backend: forwardDynamics supports fixed-base trees only");
    if (tau.size() != scene_.numDofs()) throw std::runtime_error("DART backend: tau size does not match the scene");
    setState(q, v);
    Eigen::VectorXd a(scene_.numDofs());
    for (const TreeSlot& s : trees_) {
      s.skeleton->setForces(tau.segment(s.v, s.dofs));
      s.skeleton->computeForwardDynamics();
      a.segment(s.v, s.dofs) = s.skeleton->getAccelerations();
      s.skeleton->clearInternalForces();
    }
    return a;
  }

  double maxPenetration() const override {
    double deepest = 0.0;
    for (const auto& c : world_->getLastCollisionResult().getContacts())
      deepest = std::max(deepest, c.penetrationDepth);
    return deepest;
  }

 private:
  static Eigen::Index numPositionsOf(const Tree& tree) {
    Eigen::Index n = 0;
    for (const Body& b : tree.bodies) n += b.joint == JointType::Free ? 7 : 1;
    return n;
  }

  dd::BodyNode* bodyAt(int tree, int body) const {
    if (tree < 0 || tree >= static_cast<int>(bodies_.size()) || body < 0 ||
        body >= static_cast<int>(bodies_[static_cast<std::size_t>(tree)].size()))
      throw std::runtime_error("DART backend: closure refers to a missing body");
    return bodies_[static_cast<std::size_t>(tree)][static_cast<std::size_t>(body)];
  }

  Scene scene_;
  dart::simulation::WorldPtr world_;
  std::vector<TreeSlot> trees_;
  std::vector<std::vector<dd::BodyNode*>> bodies_;
  std::vector<dd::DegreeOfFreedom*> jointDofs_;  // 1-DoF joints in neutral order
  std::vector<const dd::DegreeOfFreedom*> allDofs_;
  bool diverged_ = false;
  std::optional<PdControl> pd_;
};

class DartBackend final : public Backend {
 public:
  std::string name() const override { return std::string("DART ") + DART_VERSION; }
  std::string key() const override { return "dart"; }
  bool supports(const Scene& scene, std::string& why) const override {
    for (const Tree& t : scene.trees)
      for (std::size_t i = 0; i < t.bodies.size(); ++i)
        if (t.bodies[i].joint == JointType::Free && i != 0) {
          why = "free joint below a tree's root";
          return false;
        }
    return true;
  }
  std::unique_ptr<Instance> create(const Scene& scene) const override { return std::make_unique<DartInstance>(scene); }
};

}  // namespace

std::unique_ptr<Backend> makeDartBackend() {
  return std::make_unique<DartBackend>();
}

}  // namespace bench

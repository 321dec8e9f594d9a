// Bullet backend of the peer benchmark: Bullet's Featherstone multibody
// (btMultiBody in a btMultiBodyDynamicsWorld), single precision.
//
// Model mapping:
//   - Every tree is one btMultiBody: a fixed base at the world origin when
//     bodies[0] has a revolute/prismatic joint (every body is then a link),
//     a floating base = bodies[0] when its joint is Free. Exception: in
//     contact scenes a tree made of a single free body with geometry is a
//     plain btRigidBody (Bullet's usual way for free boxes).
//   - Bullet's link frames sit at the link's centre of mass with the axes
//     of a diagonal inertia. Each body's inertia is diagonalised; the
//     rotation R_p (principal axes -> body axes) and the COM enter the joint
//     offsets, the zero-angle parent-to-child rotation and the joint axis.
//   - Silent defaults removed: multibody linear/angular damping 0 (default
//     0.04), coordinate velocity cap and applied-impulse cap raised to
//     BT_LARGE_FLOAT (defaults 100 and 1000), no sleeping, gyroscopic term
//     on; rigid bodies with zero damping and deactivation disabled.
//   - One step = stepSimulation(dt, 0): maxSubSteps 0 makes exactly one
//     internal step of dt. Velocities are updated first (articulated-body
//     algorithm, then the constraint impulses), positions are then advanced
//     with the new velocities: semi-implicit Euler.
//   - Contact-free scenes add no collision objects. Closed-chain scenes add
//     none either, except an empty-shape collider on each constrained link,
//     with collision group and mask 0 so the broadphase never pairs it:
//     Bullet solves a multibody constraint only inside the simulation island
//     of the constrained link's collider.
//   - Contact scenes: link colliders (btSphereShape / btBoxShape, inside a
//     btCompoundShape when a body has several geoms or an offset), ground =
//     static btStaticPlaneShape z = 0. Bullet multiplies the two friction
//     coefficients of a contact pair, so every collider (and the ground)
//     gets sqrt(Scene::friction), giving Scene::friction per contact;
//     restitution 0. Solver: btMultiBodyConstraintSolver (sequential
//     impulses / PGS) with the default btContactSolverInfo: 10 iterations,
//     erp 0.2, erp2 0.2, split impulse on (penetration threshold -0.04),
//     warm starting 0.85, SOLVER_USE_WARMSTARTING | SOLVER_SIMD |
//     SOLVER_USE_2_FRICTION_DIRECTIONS (the last one set by the multibody
//     world). Collision: btDbvtBroadphase, btCollisionDispatcher with
//     btDefaultCollisionConfiguration, default margins and contact
//     breaking threshold.
//   - Closures: btMultiBodyPoint2Point (three rows, Baumgarte erp 0.2 of
//     the solver info), world-attached when treeB == -1, impulse cap raised.
#include "peer.hpp"

#include <BulletCollision/CollisionShapes/btEmptyShape.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodyPoint2Point.h>
#include <btBulletDynamicsCommon.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {
namespace {

btScalar bt(double x) {
  return static_cast<btScalar>(x);
}
double dbl(btScalar x) {
  return static_cast<double>(x);
}

btVector3 toBt(const Eigen::Vector3d& v) {
  return btVector3(bt(v.x()), bt(v.y()), bt(v.z()));
}
Eigen::Vector3d fromBt(const btVector3& v) {
  return Eigen::Vector3d(dbl(v.x()), dbl(v.y()), dbl(v.z()));
}

btQuaternion toBt(const Eigen::Quaterniond& q) {
  return btQuaternion(bt(q.x()), bt(q.y()), bt(q.z()), bt(q.w()));
}
Eigen::Quaterniond fromBt(const btQuaternion& q) {
  return Eigen::Quaterniond(dbl(q.w()), dbl(q.x()), dbl(q.y()), dbl(q.z())).normalized();
}

btTransform toBt(const Eigen::Isometry3d& T) {
  return btTransform(toBt(Eigen::Quaterniond(T.linear()).normalized()), toBt(Eigen::Vector3d(T.translation())));
}

/// Bullet's frame of a body: origin at the COM, axes along the principal
/// axes of inertia. `rot` maps principal-frame vectors to body-frame ones.
struct PrincipalFrame {
  Eigen::Matrix3d rot = Eigen::Matrix3d::Identity();
  Eigen::Quaterniond quat = Eigen::Quaterniond::Identity();
  Eigen::Vector3d com = Eigen::Vector3d::Zero();
  Eigen::Vector3d moments = Eigen::Vector3d::Ones();
  /// The principal frame's pose in the body frame.
  Eigen::Isometry3d pose() const {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.linear() = rot;
    T.translation() = com;
    return T;
  }
};

PrincipalFrame principalFrame(const Body& body) {
  PrincipalFrame f;
  f.com = body.com;
  const Eigen::Matrix3d I = 0.5 * (body.inertia + body.inertia.transpose());
  const double scale = std::max(I.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  const double off = std::max({std::abs(I(0, 1)), std::abs(I(0, 2)), std::abs(I(1, 2))});
  if (off <= 1e-14 * scale) {
    f.moments = I.diagonal();
  } else {
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(I);
    f.rot = eig.eigenvectors();
    if (f.rot.determinant() < 0.0) f.rot.col(2) = -f.rot.col(2);
    f.moments = eig.eigenvalues();
  }
  f.quat = Eigen::Quaterniond(f.rot).normalized();
  return f;
}

/// One tree as built in Bullet.
struct TreeInfo {
  btMultiBody* mb = nullptr;  ///< set unless the tree is a rigid body
  btRigidBody* rb = nullptr;  ///< single free body in a contact scene
  bool freeRoot = false;
  bool hasColliders = false;
  int qOffset = 0;  ///< neutral position index of the tree's first coordinate
  int vOffset = 0;
  PrincipalFrame rootFrame;     ///< of bodies[0] (used when freeRoot)
  std::vector<int> linkOfBody;  ///< Bullet link index of every body (-1 = base)
};

/// A 1-DoF joint in neutral order.
struct JointRef {
  btMultiBody* mb = nullptr;
  int link = 0;
  int qIndex = 0;
  int vIndex = 0;
};

class BulletInstance final : public Instance {
 public:
  explicit BulletInstance(const Scene& scene) : dt_(bt(scene.dt)), gravity_(scene.gravity) {
    config_ = std::make_unique<btDefaultCollisionConfiguration>();
    dispatcher_ = std::make_unique<btCollisionDispatcher>(config_.get());
    broadphase_ = std::make_unique<btDbvtBroadphase>();
    solver_ = std::make_unique<btMultiBodyConstraintSolver>();
    world_ =
        std::make_unique<btMultiBodyDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(), config_.get());
    world_->setGravity(toBt(scene.gravity));

    const bool contact = scene.kind == SceneKind::Contact;
    const btScalar friction = bt(std::sqrt(std::max(scene.friction, 0.0)));

    if (contact) {
      groundShape_ = std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), btScalar(0));
      btRigidBody::btRigidBodyConstructionInfo info(btScalar(0), nullptr, groundShape_.get(), btVector3(0, 0, 0));
      info.m_friction = friction;
      info.m_restitution = btScalar(0);
      ground_ = std::make_unique<btRigidBody>(info);
      world_->addRigidBody(ground_.get());
    }

    // Trees.
    int qOff = 0;
    int vOff = 0;
    for (const Tree& tree : scene.trees) {
      if (tree.bodies.empty()) throw std::runtime_error("bullet: empty tree " + tree.name);
      for (std::size_t b = 1; b < tree.bodies.size(); ++b) {
        if (tree.bodies[b].joint == JointType::Free)
          throw std::runtime_error("bullet: free joint below the root in tree " + tree.name);
        // Several bodies may hang from the world in a fixed-base tree; below
        // a free root every other body hangs from a body.
        const int parent = tree.bodies[b].parent;
        const bool freeRoot = tree.bodies[0].joint == JointType::Free;
        if (parent >= static_cast<int>(b) || (parent < 0 && freeRoot))
          throw std::runtime_error("bullet: bad parent in tree " + tree.name);
      }
      TreeInfo info;
      info.freeRoot = tree.bodies[0].joint == JointType::Free;
      info.qOffset = qOff;
      info.vOffset = vOff;
      const int n = static_cast<int>(tree.bodies.size());
      std::vector<PrincipalFrame> frames(tree.bodies.size());
      for (int b = 0; b < n; ++b) frames[b] = principalFrame(tree.bodies[b]);
      info.rootFrame = frames[0];

      const bool asRigidBody = contact && info.freeRoot && n == 1 && !tree.bodies[0].geoms.empty();
      if (asRigidBody) {
        const Body& body = tree.bodies[0];
        btCollisionShape* shape = makeShape(body, frames[0]);
        btRigidBody::btRigidBodyConstructionInfo ci(bt(body.mass), nullptr, shape, toBt(frames[0].moments));
        ci.m_friction = friction;
        ci.m_restitution = btScalar(0);
        ci.m_linearDamping = btScalar(0);
        ci.m_angularDamping = btScalar(0);
        ci.m_linearSleepingThreshold = btScalar(0);
        ci.m_angularSleepingThreshold = btScalar(0);
        ci.m_additionalDamping = false;
        rigidBodies_.push_back(std::make_unique<btRigidBody>(ci));
        btRigidBody* rb = rigidBodies_.back().get();
        rb->setActivationState(DISABLE_DEACTIVATION);
        world_->addRigidBody(rb);
        info.rb = rb;
        info.linkOfBody = {-1};
        info.hasColliders = true;
      } else {
        const int nLinks = info.freeRoot ? n - 1 : n;
        info.linkOfBody.resize(tree.bodies.size());
        for (int b = 0; b < n; ++b) info.linkOfBody[b] = info.freeRoot ? b - 1 : b;
        const btScalar baseMass = info.freeRoot ? bt(tree.bodies[0].mass) : btScalar(1);
        const btVector3 baseInertia = info.freeRoot ? toBt(frames[0].moments) : btVector3(1, 1, 1);
        multiBodies_.push_back(std::make_unique<btMultiBody>(nLinks, baseMass, baseInertia, !info.freeRoot, false));
        btMultiBody* mb = multiBodies_.back().get();
        for (int b = info.freeRoot ? 1 : 0; b < n; ++b) {
          const Body& body = tree.bodies[b];
          const int link = info.linkOfBody[b];
          const int parentLink = body.parent < 0 ? -1 : info.linkOfBody[body.parent];
          // Parent's Bullet frame in the parent body frame; the fixed base
          // is the world frame itself.
          Eigen::Matrix3d Rpp = Eigen::Matrix3d::Identity();
          Eigen::Vector3d comP = Eigen::Vector3d::Zero();
          if (body.parent >= 0) {
            Rpp = frames[body.parent].rot;
            comP = frames[body.parent].com;
          }
          const PrincipalFrame& f = frames[b];
          const Eigen::Matrix3d JR = body.jointPose.linear();
          const Eigen::Vector3d Jt = body.jointPose.translation();
          // Parent frame -> this frame at q = 0, parent COM -> pivot (parent
          // frame), pivot -> this COM (this frame), axis in this frame.
          const Eigen::Matrix3d zeroRot = f.rot.transpose() * JR.transpose() * Rpp;
          const Eigen::Vector3d e = Rpp.transpose() * (Jt - comP);
          const Eigen::Vector3d d = f.rot.transpose() * f.com;
          const Eigen::Vector3d axis = f.rot.transpose() * body.axis.normalized();
          const btQuaternion zq = toBt(Eigen::Quaterniond(zeroRot).normalized());
          if (body.joint == JointType::Revolute) {
            mb->setupRevolute(link, bt(body.mass), toBt(f.moments), parentLink, zq, toBt(axis), toBt(e), toBt(d),
                              false);
          } else {
            mb->setupPrismatic(link, bt(body.mass), toBt(f.moments), parentLink, zq, toBt(axis), toBt(e), toBt(d),
                               false);
          }
        }
        mb->finalizeMultiDof();
        mb->setLinearDamping(btScalar(0));
        mb->setAngularDamping(btScalar(0));
        mb->setMaxCoordinateVelocity(BT_LARGE_FLOAT);
        mb->setMaxAppliedImpulse(BT_LARGE_FLOAT);
        mb->setCanSleep(false);
        mb->setUseGyroTerm(true);
        mb->setHasSelfCollision(true);
        if (!info.freeRoot) {
          mb->setBasePos(btVector3(0, 0, 0));
          mb->setWorldToBaseRot(btQuaternion(0, 0, 0, 1));
        }
        world_->addMultiBody(mb);
        info.mb = mb;

        if (contact) {
          for (int b = 0; b < n; ++b) {
            const Body& body = tree.bodies[b];
            if (body.geoms.empty()) continue;
            addCollider(mb, info.linkOfBody[b], makeShape(body, frames[b]), friction, btBroadphaseProxy::DefaultFilter,
                        btBroadphaseProxy::AllFilter);
            info.hasColliders = true;
          }
        }
      }
      for (int b = 0; b < n; ++b) {
        const Body& body = tree.bodies[b];
        if (body.joint == JointType::Free) {
          qOff += 7;
          vOff += 6;
        } else {
          joints_.push_back(JointRef{info.mb, info.linkOfBody[b], qOff, vOff});
          qOff += 1;
          vOff += 1;
        }
      }
      trees_.push_back(std::move(info));
    }
    nq_ = qOff;
    nv_ = vOff;

    // Closures.
    for (const Closure& c : scene.closures) {
      auto treeOf = [&](int t) -> TreeInfo& {
        if (t < 0 || t >= static_cast<int>(trees_.size())) throw std::runtime_error("bullet: bad closure tree");
        TreeInfo& ti = trees_[t];
        if (!ti.mb) throw std::runtime_error("bullet: closures on rigid bodies are not supported");
        return ti;
      };
      auto pivotOf = [&](int t, int b, const Eigen::Vector3d& p) {
        const Body& body = scene.trees[t].bodies.at(b);
        const PrincipalFrame f = principalFrame(body);
        return toBt(Eigen::Vector3d(f.rot.transpose() * (p - f.com)));
      };
      TreeInfo& ta = treeOf(c.treeA);
      const int linkA = ta.linkOfBody.at(c.bodyA);
      ensureIslandCollider(ta, linkA);
      const btVector3 pivotA = pivotOf(c.treeA, c.bodyA, c.pointA);
      std::unique_ptr<btMultiBodyPoint2Point> p2p;
      if (c.treeB < 0) {
        p2p = std::make_unique<btMultiBodyPoint2Point>(ta.mb, linkA, static_cast<btRigidBody*>(nullptr), pivotA,
                                                       toBt(c.pointB));
      } else {
        TreeInfo& tb = treeOf(c.treeB);
        const int linkB = tb.linkOfBody.at(c.bodyB);
        ensureIslandCollider(tb, linkB);
        p2p = std::make_unique<btMultiBodyPoint2Point>(ta.mb, linkA, tb.mb, linkB, pivotA,
                                                       pivotOf(c.treeB, c.bodyB, c.pointB));
      }
      p2p->setMaxAppliedImpulse(BT_LARGE_FLOAT);
      p2p->finalizeMultiDof();
      world_->addMultiBodyConstraint(p2p.get());
      constraints_.push_back(std::move(p2p));
    }

    if (scene.pd) {
      if (scene.pd->qref.size() != static_cast<Eigen::Index>(joints_.size()))
        throw std::runtime_error("bullet: PD reference size mismatch");
      hasPd_ = true;
      kp_ = scene.pd->kp;
      kd_ = scene.pd->kd;
      qref_.assign(scene.pd->qref.data(), scene.pd->qref.data() + scene.pd->qref.size());
    }

    setState(scene.q0, scene.v0);
  }

  ~BulletInstance() override {
    // The world removes its objects from the broadphase on destruction; it
    // must go first, while the objects, dispatcher and broadphase live.
    world_.reset();
  }

  void step() override {
    if (hasPd_) {
      const std::size_t n = joints_.size();
      for (std::size_t i = 0; i < n; ++i) {
        const JointRef& j = joints_[i];
        const double q = dbl(j.mb->getJointPos(j.link));
        const double v = dbl(j.mb->getJointVel(j.link));
        j.mb->addJointTorque(j.link, bt(kp_ * (qref_[i] - q) - kd_ * v));
      }
    }
    world_->stepSimulation(dt_, 0);
  }

  void getState(Eigen::VectorXd& q, Eigen::VectorXd& v) const override {
    q.resize(nq_);
    v.resize(nv_);
    for (const TreeInfo& t : trees_) {
      if (!t.freeRoot) continue;
      Eigen::Vector3d comW, vCom, omega;
      Eigen::Quaterniond qWL;
      if (t.rb) {
        const btTransform& T = t.rb->getCenterOfMassTransform();
        comW = fromBt(T.getOrigin());
        qWL = fromBt(T.getRotation());
        vCom = fromBt(t.rb->getLinearVelocity());
        omega = fromBt(t.rb->getAngularVelocity());
      } else {
        comW = fromBt(t.mb->getBasePos());
        qWL = fromBt(t.mb->getWorldToBaseRot().inverse());
        vCom = fromBt(t.mb->getBaseVel());
        omega = fromBt(t.mb->getBaseOmega());
      }
      // Body frame = principal frame composed with the inverse principal rotation.
      const Eigen::Quaterniond qWB = (qWL * t.rootFrame.quat.conjugate()).normalized();
      const Eigen::Vector3d comOffsetW = qWB * t.rootFrame.com;
      const Eigen::Vector3d origin = comW - comOffsetW;
      q.segment<3>(t.qOffset) = origin;
      q(t.qOffset + 3) = qWB.w();
      q(t.qOffset + 4) = qWB.x();
      q(t.qOffset + 5) = qWB.y();
      q(t.qOffset + 6) = qWB.z();
      v.segment<3>(t.vOffset) = vCom - omega.cross(comOffsetW);
      v.segment<3>(t.vOffset + 3) = omega;
    }
    for (const JointRef& j : joints_) {
      q(j.qIndex) = dbl(j.mb->getJointPos(j.link));
      v(j.vIndex) = dbl(j.mb->getJointVel(j.link));
    }
  }

  void setState(const Eigen::VectorXd& q, const Eigen::VectorXd& v) override {
    if (q.size() != nq_ || v.size() != nv_) throw std::runtime_error("bullet: state size mismatch");
    for (TreeInfo& t : trees_) {
      if (t.freeRoot) {
        const Eigen::Vector3d origin = q.segment<3>(t.qOffset);
        const Eigen::Quaterniond qWB =
            Eigen::Quaterniond(q(t.qOffset + 3), q(t.qOffset + 4), q(t.qOffset + 5), q(t.qOffset + 6)).normalized();
        const Eigen::Vector3d comOffsetW = qWB * t.rootFrame.com;
        const Eigen::Vector3d comW = origin + comOffsetW;
        const Eigen::Quaterniond qWL = (qWB * t.rootFrame.quat).normalized();
        const Eigen::Vector3d omega = v.segment<3>(t.vOffset + 3);
        const Eigen::Vector3d vCom = v.segment<3>(t.vOffset) + omega.cross(comOffsetW);
        if (t.rb) {
          const btTransform T(toBt(qWL), toBt(comW));
          t.rb->setCenterOfMassTransform(T);
          t.rb->setInterpolationWorldTransform(T);
          t.rb->setLinearVelocity(toBt(vCom));
          t.rb->setAngularVelocity(toBt(omega));
          t.rb->setInterpolationLinearVelocity(toBt(vCom));
          t.rb->setInterpolationAngularVelocity(toBt(omega));
          t.rb->clearForces();
        } else {
          t.mb->setBaseWorldTransform(btTransform(toBt(qWL), toBt(comW)));
          t.mb->setBaseVel(toBt(vCom));
          t.mb->setBaseOmega(toBt(omega));
        }
      }
    }
    for (const JointRef& j : joints_) {
      j.mb->setJointPos(j.link, bt(q(j.qIndex)));
      j.mb->setJointVel(j.link, bt(v(j.vIndex)));
    }
    for (TreeInfo& t : trees_) {
      if (!t.mb) continue;
      t.mb->clearForcesAndTorques();
      if (t.hasColliders) {
        const int n = t.mb->getNumLinks() + 1;
        worldToLocal_.resize(n);
        localOrigin_.resize(n);
        t.mb->forwardKinematics(worldToLocal_, localOrigin_);
        t.mb->updateCollisionObjectWorldTransforms(worldToLocal_, localOrigin_);
      }
    }
  }

  Eigen::VectorXd forwardDynamics(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                  const Eigen::VectorXd& tau) override {
    for (const TreeInfo& t : trees_) {
      if (!t.mb || t.freeRoot) throw std::runtime_error("bullet: forwardDynamics supports fixed-base trees only");
    }
    if (tau.size() != nv_) throw std::runtime_error("bullet: tau size mismatch");
    setState(q, v);
    const btVector3 g = toBt(gravity_);
    for (const TreeInfo& t : trees_) {
      btMultiBody* mb = t.mb;
      mb->clearForcesAndTorques();
      // Gravity as the world applies it in a step: m·g on every link's COM.
      for (int l = 0; l < mb->getNumLinks(); ++l) mb->addLinkForce(l, g * mb->getLinkMass(l));
    }
    for (const JointRef& j : joints_) j.mb->addJointTorque(j.link, bt(tau(j.vIndex)));
    Eigen::VectorXd a(nv_);
    for (const TreeInfo& t : trees_) {
      btMultiBody* mb = t.mb;
      // dt = 0: the accelerations are computed (into scratch_r from index
      // numDofs: 6 base entries, then the joint accelerations) but not
      // applied to the velocities.
      mb->computeAccelerationsArticulatedBodyAlgorithmMultiDof(btScalar(0), scratchR_, scratchV_, scratchM_, false,
                                                               false, false);
      const int base = mb->getNumDofs() + 6;
      for (int l = 0; l < mb->getNumLinks(); ++l) a(t.vOffset + l) = dbl(scratchR_[base + l]);
      mb->clearForcesAndTorques();
    }
    return a;
  }

  double maxPenetration() const override {
    double deepest = 0.0;
    const int nm = dispatcher_->getNumManifolds();
    for (int i = 0; i < nm; ++i) {
      const btPersistentManifold* m = dispatcher_->getManifoldByIndexInternal(i);
      const int nc = m->getNumContacts();
      for (int k = 0; k < nc; ++k) deepest = std::max(deepest, -dbl(m->getContactPoint(k).getDistance()));
    }
    return deepest;
  }

 private:
  btCollisionShape* makeShape(const Body& body, const PrincipalFrame& frame) {
    const Eigen::Isometry3d toPrincipal = frame.pose().inverse();
    auto primitive = [&](const Geom& g) -> btCollisionShape* {
      std::unique_ptr<btCollisionShape> s;
      if (g.type == GeomType::Sphere) {
        s = std::make_unique<btSphereShape>(bt(g.size.x()));
      } else {
        s = std::make_unique<btBoxShape>(toBt(Eigen::Vector3d(0.5 * g.size)));
      }
      shapes_.push_back(std::move(s));
      return shapes_.back().get();
    };
    if (body.geoms.size() == 1) {
      const Eigen::Isometry3d local = toPrincipal * body.geoms[0].pose;
      if ((local.matrix() - Eigen::Matrix4d::Identity()).cwiseAbs().maxCoeff() < 1e-12) return primitive(body.geoms[0]);
    }
    auto compound = std::make_unique<btCompoundShape>();
    for (const Geom& g : body.geoms)
      compound->addChildShape(toBt(Eigen::Isometry3d(toPrincipal * g.pose)), primitive(g));
    shapes_.push_back(std::move(compound));
    return shapes_.back().get();
  }

  void addCollider(btMultiBody* mb, int link, btCollisionShape* shape, btScalar friction, int group, int mask) {
    colliders_.push_back(std::make_unique<btMultiBodyLinkCollider>(mb, link));
    btMultiBodyLinkCollider* col = colliders_.back().get();
    col->setCollisionShape(shape);
    col->setFriction(friction);
    col->setRestitution(btScalar(0));
    col->setActivationState(DISABLE_DEACTIVATION);
    world_->addCollisionObject(col, group, mask);
    if (link < 0) {
      mb->setBaseCollider(col);
    } else {
      mb->getLink(link).m_collider = col;
    }
  }

  /// Bullet solves a multibody constraint only inside the simulation
  /// island of the collider of the constrained link (or base); islands are
  /// made of collision objects. A constrained link without a collider gets
  /// one that never pairs with anything (group and mask 0, empty shape).
  void ensureIslandCollider(TreeInfo& t, int link) {
    const btMultiBodyLinkCollider* existing = link < 0 ? t.mb->getBaseCollider() : t.mb->getLink(link).m_collider;
    if (existing) return;
    if (link < 0 && !t.freeRoot) throw std::runtime_error("bullet: closure on a fixed base");
    if (!islandShape_) islandShape_ = std::make_unique<btEmptyShape>();
    addCollider(t.mb, link, islandShape_.get(), btScalar(0), 0, 0);
    t.hasColliders = true;
  }

  btScalar dt_;
  Eigen::Vector3d gravity_;
  int nq_ = 0;
  int nv_ = 0;
  bool hasPd_ = false;
  double kp_ = 0.0;
  double kd_ = 0.0;
  std::vector<double> qref_;
  std::vector<TreeInfo> trees_;
  std::vector<JointRef> joints_;

  btAlignedObjectArray<btScalar> scratchR_;
  btAlignedObjectArray<btVector3> scratchV_;
  btAlignedObjectArray<btMatrix3x3> scratchM_;
  btAlignedObjectArray<btQuaternion> worldToLocal_;
  btAlignedObjectArray<btVector3> localOrigin_;

  // Declaration order matters: the world is declared last so that it is
  // destroyed first.
  std::unique_ptr<btDefaultCollisionConfiguration> config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  std::unique_ptr<btMultiBodyConstraintSolver> solver_;
  std::unique_ptr<btCollisionShape> groundShape_;
  std::unique_ptr<btCollisionShape> islandShape_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::unique_ptr<btRigidBody> ground_;
  std::vector<std::unique_ptr<btRigidBody>> rigidBodies_;
  std::vector<std::unique_ptr<btMultiBody>> multiBodies_;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders_;
  std::vector<std::unique_ptr<btMultiBodyPoint2Point>> constraints_;
  std::unique_ptr<btMultiBodyDynamicsWorld> world_;
};

class BulletBackend final : public Backend {
 public:
  std::string name() const override {
    const int v = btGetVersion();
    const int minor = v % 100;
    return "Bullet " + std::to_string(v / 100) + "." + (minor < 10 ? "0" : "") + std::to_string(minor) +
           " (Featherstone, float)";
  }
  std::string key() const override { return "bullet"; }
  bool supports(const Scene& scene, std::string& why) const override {
    for (const Tree& tree : scene.trees) {
      if (tree.bodies.empty()) {
        why = "empty tree";
        return false;
      }
      for (std::size_t b = 1; b < tree.bodies.size(); ++b) {
        if (tree.bodies[b].joint == JointType::Free) {
          why = "free joint below a tree's root";
          return false;
        }
      }
    }
    // In contact scenes a lone free body with geometry becomes a btRigidBody,
    // which this backend cannot attach a multibody point constraint to.
    for (const Closure& c : scene.closures) {
      for (int t : {c.treeA, c.treeB}) {
        if (t < 0 || t >= static_cast<int>(scene.trees.size())) continue;
        const Tree& tree = scene.trees[t];
        if (scene.kind == SceneKind::Contact && tree.bodies.size() == 1 && tree.bodies[0].joint == JointType::Free &&
            !tree.bodies[0].geoms.empty()) {
          why = "closure on a free rigid body in a contact scene";
          return false;
        }
      }
    }
    return true;
  }
  std::unique_ptr<Instance> create(const Scene& scene) const override {
    return std::make_unique<BulletInstance>(scene);
  }
};

}  // namespace

std::unique_ptr<Backend> makeBulletBackend() {
  return std::make_unique<BulletBackend>();
}

}  // namespace bench

// Articula as a backend of the peer benchmark: every tree is a Multibody
// (a single free box is a RigidBody), closures are Point loop closures,
// contacts use the default projected Gauss–Seidel solver, or another
// constraint solver method for the work–precision rows.
#include "peer.hpp"

#include <articula/articula.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace bench {

namespace {

using Eigen::Isometry3d;
using Eigen::Vector3d;
using Eigen::VectorXd;

bool isSingleFreeBody(const Tree& t) {
  return t.bodies.size() == 1 && t.bodies[0].joint == JointType::Free;
}

// Where one neutral joint lives in the world's q and v.
struct Slot {
  bool free = false;
  int neutralQ = 0;
  int neutralV = 0;
  int worldQ = 0;
  int worldV = 0;
};

class ArticulaInstance final : public Instance {
 public:
  /// `method`: a constraint solver method, or empty for the default one.
  explicit ArticulaInstance(const Scene& scene, bool peerLike = false, const std::string& method = {})
      : m_scene(scene) {
    articula::WorldOptions o;
    if (peerLike) o.solver.maxIterations = 10;
    if (!method.empty()) o.solver.method = method;
    o.timeStep = scene.dt;
    o.gravity = scene.gravity;
    o.integrator = articula::Integrator::SemiImplicitEuler;
    m_world.setOptions(o);
    const articula::Material material{scene.friction, 0.0};
    if (scene.kind == SceneKind::Contact) m_world.addGroundPlane(0.0, material);

    std::vector<std::vector<articula::Frame>> frames;
    for (const Tree& tree : scene.trees) {
      frames.emplace_back();
      auto addGeoms = [&](const articula::Frame& owner, const Body& b) {
        for (const Geom& g : b.geoms) {
          articula::CollisionShapeOptions c;
          c.geometry =
              g.type == GeomType::Sphere ? articula::Geometry::sphere(g.size.x()) : articula::Geometry::box(g.size);
          c.pose = g.pose;
          c.material = material;
          m_world.addCollisionShape(owner, c);
        }
      };
      if (isSingleFreeBody(tree)) {
        const Body& b = tree.bodies[0];
        articula::RigidBodyOptions ro;
        ro.inertia = articula::Inertia{b.mass, b.com, b.inertia};
        auto body = m_world.addRigidBody(tree.name, ro);
        addGeoms(body, b);
        frames.back().push_back(body);
        continue;
      }
      auto mb = m_world.addMultibody(tree.name);
      m_multibodies.push_back(mb);
      std::vector<articula::Link> links;
      // A multibody has one root link: several bodies on the world hang
      // from a root link welded to it.
      std::optional<articula::Link> base;
      if (std::count_if(tree.bodies.begin(), tree.bodies.end(), [](const Body& b) { return b.parent < 0; }) > 1)
        base = mb.addLink({tree.name + "_base", articula::Inertia{}}, articula::JointSpec::weld());
      for (const Body& b : tree.bodies) {
        articula::JointSpec js = b.joint == JointType::Free       ? articula::JointSpec::free()
                                 : b.joint == JointType::Revolute ? articula::JointSpec::revolute(b.axis)
                                                                  : articula::JointSpec::prismatic(b.axis);
        js = js.withParentOffset(b.jointPose).named(b.name + "_joint");
        const articula::LinkOptions lo{b.name, articula::Inertia{b.mass, b.com, b.inertia}};
        if (b.parent >= 0)
          links.push_back(mb.addLink(lo, links[static_cast<std::size_t>(b.parent)], js));
        else
          links.push_back(base ? mb.addLink(lo, *base, js) : mb.addLink(lo, js));
        addGeoms(links.back(), b);
        frames.back().push_back(links.back());
      }
    }
    for (std::size_t i = 0; i < scene.closures.size(); ++i) {
      const Closure& c = scene.closures[i];
      articula::LoopClosureSpec spec;
      spec.family = articula::LoopClosureFamily::Point;
      spec.frameA = frames[static_cast<std::size_t>(c.treeA)][static_cast<std::size_t>(c.bodyA)];
      spec.offsetA.translation() = c.pointA;
      spec.frameB = c.treeB < 0 ? articula::Frame::World()
                                : frames[static_cast<std::size_t>(c.treeB)][static_cast<std::size_t>(c.bodyB)];
      spec.offsetB.translation() = c.pointB;
      auto closure = m_world.addLoopClosure("closure_" + std::to_string(i), spec);
      if (peerLike) {
        articula::LoopClosureRuntimePolicy policy = closure.getRuntimePolicy();
        policy.projectAfterStep = false;
        closure.setRuntimePolicy(policy);
      }
    }

    // Neutral ↔ world coordinate map.
    const articula::StateSpace space = m_world.getStateSpace();
    int nq = 0;
    int nv = 0;
    for (const Tree& tree : scene.trees) {
      for (const Body& b : tree.bodies) {
        const auto seg =
            isSingleFreeBody(tree) ? space.segment(tree.name) : space.segment(tree.name, b.name + "_joint");
        if (!seg) throw std::runtime_error("articula: no state segment for " + tree.name + "/" + b.name);
        Slot s;
        s.free = b.joint == JointType::Free;
        s.neutralQ = nq;
        s.neutralV = nv;
        s.worldQ = seg->positionOffset;
        s.worldV = seg->velocityOffset;
        m_slots.push_back(s);
        nq += s.free ? 7 : 1;
        nv += s.free ? 6 : 1;
      }
    }
    m_q.resize(m_world.numPositions());
    m_v.resize(m_world.numDofs());
    setState(scene.q0, scene.v0);
    m_world.enterSimulationMode();
    for (const auto& mb : m_multibodies) m_tau.emplace_back(VectorXd::Zero(mb.numDofs()));
  }

  void step() override {
    if (m_scene.pd) applyPd(*m_scene.pd);
    m_world.step();
  }

  void getState(VectorXd& q, VectorXd& v) const override {
    m_world.getPositions(m_q);
    m_world.getVelocities(m_v);
    q.resize(m_scene.numPositions());
    v.resize(m_scene.numDofs());
    for (const Slot& s : m_slots) {
      if (!s.free) {
        q[s.neutralQ] = m_q[s.worldQ];
        v[s.neutralV] = m_v[s.worldV];
        continue;
      }
      const Eigen::Matrix<double, 7, 1> fq = m_q.segment<7>(s.worldQ);
      const Isometry3d X = articula::freeJointTransform(fq);
      q.segment<3>(s.neutralQ) = fq.head<3>();
      q.segment<4>(s.neutralQ + 3) << fq[6], fq[3], fq[4], fq[5];
      const articula::Vector6d w = articula::freeJointVelocityToWorld(X, m_v.segment<6>(s.worldV));
      v.segment<3>(s.neutralV) = w.tail<3>();
      v.segment<3>(s.neutralV + 3) = w.head<3>();
    }
  }

  void setState(const VectorXd& q, const VectorXd& v) override {
    m_world.getPositions(m_q);
    m_world.getVelocities(m_v);
    for (const Slot& s : m_slots) {
      if (!s.free) {
        m_q[s.worldQ] = q[s.neutralQ];
        m_v[s.worldV] = v[s.neutralV];
        continue;
      }
      Eigen::Matrix<double, 7, 1> fq;
      fq.head<3>() = q.segment<3>(s.neutralQ);
      fq.tail<4>() << q[s.neutralQ + 4], q[s.neutralQ + 5], q[s.neutralQ + 6], q[s.neutralQ + 3];
      m_q.segment<7>(s.worldQ) = fq;
      articula::Vector6d w;
      w << v.segment<3>(s.neutralV + 3), v.segment<3>(s.neutralV);
      m_v.segment<6>(s.worldV) = articula::freeJointVelocityFromWorld(articula::freeJointTransform(fq), w);
    }
    m_world.setPositions(m_q);
    m_world.setVelocities(m_v);
  }

  VectorXd forwardDynamics(const VectorXd& q, const VectorXd& v, const VectorXd& tau) override {
    setState(q, v);
    // Contact-free scenes: fixed-base trees of 1-DoF joints, one multibody
    // per tree, whose coordinates follow the neutral order.
    VectorXd vdot(tau.size());
    int offset = 0;
    for (const auto& mb : m_multibodies) {
      const int n = mb.numDofs();
      vdot.segment(offset, n) = mb.computeForwardDynamics(tau.segment(offset, n));
      offset += n;
    }
    return vdot;
  }

  double energy(const VectorXd& q, const VectorXd& v) {
    setState(q, v);
    return m_world.computeKineticEnergy() + m_world.computePotentialEnergy();
  }

  double closureError(const VectorXd& q) {
    setState(q, VectorXd::Zero(m_scene.numDofs()));
    double worst = 0.0;
    for (const auto& c : m_world.getLoopClosures()) worst = std::max(worst, c.computeResidualNorm());
    return worst;
  }

  double maxPenetration() const override {
    double deepest = 0.0;
    for (const auto& c : m_world.getContacts()) deepest = std::max(deepest, c.depth);
    return deepest;
  }

  std::optional<SolveReport> lastSolve() const override {
    const articula::StepDiagnostics& d = m_world.getStepDiagnostics();
    return SolveReport{d.residual, d.iterations, d.converged, d.failed};
  }

 private:
  void applyPd(const PdControl& pd) {
    m_world.getPositions(m_q);
    m_world.getVelocities(m_v);
    std::size_t slot = 0;
    std::size_t mbIndex = 0;
    int k = 0;
    for (const Tree& tree : m_scene.trees) {
      if (isSingleFreeBody(tree)) {
        ++slot;
        continue;
      }
      VectorXd& tau = m_tau[mbIndex];
      int local = 0;
      for (std::size_t b = 0; b < tree.bodies.size(); ++b) {
        const Slot& s = m_slots[slot++];
        if (s.free) {
          local += 6;
          continue;
        }
        tau[local++] = pd.kp * (pd.qref[k++] - m_q[s.worldQ]) - pd.kd * m_v[s.worldV];
      }
      m_multibodies[mbIndex++].setForces(tau);
    }
  }

  const Scene& m_scene;
  mutable articula::World m_world;
  std::vector<articula::Multibody> m_multibodies;
  std::vector<Slot> m_slots;
  std::vector<VectorXd> m_tau;
  mutable VectorXd m_q;
  mutable VectorXd m_v;
};

class ArticulaBackend final : public Backend {
 public:
  explicit ArticulaBackend(bool peerLike) : m_peerLike(peerLike) {}
  std::string name() const override { return m_peerLike ? "Articula, peer-like settings" : "Articula"; }
  std::string key() const override { return m_peerLike ? "articula-lite" : "articula"; }
  bool supports(const Scene& scene, std::string& why) const override {
    if (m_peerLike && scene.kind == SceneKind::ContactFree) {
      why = "no solver settings to change without contacts or closures";
      return false;
    }
    return true;
  }
  std::unique_ptr<Instance> create(const Scene& scene) const override {
    return std::make_unique<ArticulaInstance>(scene, m_peerLike);
  }

 private:
  bool m_peerLike = false;
};

class ArticulaMethodBackend final : public Backend {
 public:
  explicit ArticulaMethodBackend(std::string method) : m_method(std::move(method)) {}
  std::string name() const override { return "Articula, " + m_method; }
  std::string key() const override { return "articula (" + m_method + ")"; }
  bool supports(const Scene& scene, std::string& why) const override {
    if (scene.kind != SceneKind::Contact) {
      why = "solver methods are compared on contact scenes only";
      return false;
    }
    return true;
  }
  std::unique_ptr<Instance> create(const Scene& scene) const override {
    return std::make_unique<ArticulaInstance>(scene, false, m_method);
  }

 private:
  std::string m_method;
};

class ArticulaMeter final : public Meter {
 public:
  explicit ArticulaMeter(const Scene& scene) : m_instance(scene) {}
  double energy(const VectorXd& q, const VectorXd& v) override { return m_instance.energy(q, v); }
  double closureError(const VectorXd& q) override { return m_instance.closureError(q); }

 private:
  ArticulaInstance m_instance;
};

}  // namespace

std::unique_ptr<Meter> makeMeter(const Scene& scene) {
  return std::make_unique<ArticulaMeter>(scene);
}

std::vector<std::unique_ptr<Backend>> makePeerBackends() {
  std::vector<std::unique_ptr<Backend>> out;
#ifdef ARTICULA_BENCH_WITH_DART
  out.push_back(makeDartBackend());
#endif
#ifdef ARTICULA_BENCH_WITH_MUJOCO
  out.push_back(makeMujocoBackend());
#endif
#ifdef ARTICULA_BENCH_WITH_BULLET
  out.push_back(makeBulletBackend());
#endif
  return out;
}

std::unique_ptr<Backend> makeArticulaBackend(bool peerLike) {
  return std::make_unique<ArticulaBackend>(peerLike);
}

std::unique_ptr<Backend> makeArticulaMethodBackend(const std::string& method) {
  if (!articula::isConstraintSolverMethod(method)) {
    std::string known;
    for (const auto& m : articula::constraintSolverMethods()) known += (known.empty() ? "" : ", ") + m;
    throw std::invalid_argument("unknown solver method '" + method + "' (methods: " + known + ")");
  }
  return std::make_unique<ArticulaMethodBackend>(method);
}

std::vector<std::string> articulaSolverMethods() {
  return articula::constraintSolverMethods();
}

}  // namespace bench

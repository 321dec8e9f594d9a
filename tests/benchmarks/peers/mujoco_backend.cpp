// MuJoCo as a backend of the peer benchmark. The Scene is written out as
// MJCF text (bodies nested by parent, one hinge/slide/free joint per body at
// the body origin, explicit inertials), compiled from in-memory virtual
// files, and stepped with mj_step. Bodies are named t<tree>b<body>; the
// neutral coordinates are mapped to MuJoCo's (depth-first) ones by name.
//
// Settings in effect (MuJoCo 2.2.2 defaults unless noted):
//   - integrator Euler: velocities are updated first and the positions are
//     integrated with the new velocities (semi-implicit Euler); with zero
//     joint damping no implicit damping term is added;
//   - joints: armature 0, damping 0, stiffness 0, frictionloss 0, no limits;
//     geoms add no mass (inertiafromgeom="false"), every body carries the
//     Scene's mass, COM and inertia (diagonalized here, given as
//     quat + diaginertia);
//   - ContactFree: contact and constraint solver disabled (qacc = M⁻¹(τ − c));
//   - ClosedChain: contact disabled; each Closure is a <connect> equality
//     (soft, default solref 0.02 1, solimp 0.9 0.95 0.001), its second
//     anchor set to Closure::pointB after compilation;
//   - Contact: ground plane z = 0, condim 3, friction (Scene::friction,
//     0.005, 0.0001) on every geom (only the sliding coefficient acts with
//     condim 3), margin 0, default solref/solimp (soft contacts, critically
//     damped, no restitution), parent-child filtering disabled so every pair
//     of geoms on different bodies is tested; collision pipeline: the default
//     broadphase and MuJoCo's native primitive colliders (plane-box,
//     plane-sphere, box-box, sphere-box, sphere-sphere);
//   - constraint solver: Newton (primal), 100 iterations, tolerance 1e-8,
//     pyramidal friction cones, impratio 1, Jacobian "auto" (dense below 60
//     DoFs, sparse above), warm start on, no noslip iterations;
//   - MuJoCo 2.2 preallocates its contact and constraint buffers (nconmax,
//     njmax): 16 contacts per geom, capped by what fits in mjData (see
//     bufferSizes); contacts beyond them are dropped by MuJoCo with a
//     warning, reported on stderr.
#include "peer.hpp"

#include <mujoco/mujoco.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

namespace {

using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Quaterniond;
using Eigen::Vector3d;
using Eigen::VectorXd;

// Writes MJCF text; numbers are printed in their shortest exact form.
class Mjcf {
 public:
  Mjcf& operator<<(const char* s) {
    m_text += s;
    return *this;
  }
  Mjcf& operator<<(const std::string& s) {
    m_text += s;
    return *this;
  }
  Mjcf& operator<<(int i) {
    m_text += std::to_string(i);
    return *this;
  }
  Mjcf& operator<<(double x) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), x);
    m_text.append(buf, r.ptr);
    return *this;
  }
  Mjcf& operator<<(const Vector3d& v) { return *this << v.x() << " " << v.y() << " " << v.z(); }
  Mjcf& operator<<(const Quaterniond& q) { return *this << q.w() << " " << q.x() << " " << q.y() << " " << q.z(); }
  const std::string& text() const { return m_text; }

 private:
  std::string m_text;
};

std::string bodyName(std::size_t tree, std::size_t body) {
  return "t" + std::to_string(tree) + "b" + std::to_string(body);
}

// Principal axes of a symmetric inertia: a proper rotation R and moments d
// with I = R diag(d) Rᵀ.
void principalAxes(const Matrix3d& inertia, Quaterniond& rotation, Vector3d& moments) {
  const Eigen::SelfAdjointEigenSolver<Matrix3d> es(0.5 * (inertia + inertia.transpose()));
  Matrix3d R = es.eigenvectors();
  if (R.determinant() < 0.0) R.col(2) = -R.col(2);
  rotation = Quaterniond(R).normalized();
  moments = es.eigenvalues();
}

// MuJoCo 2.2's XML parser (tinyxml2) refuses elements nested more than 100
// deep, so a subtree that would start deeper than this many bodies is
// written to its own file and pulled in with <include>, which the loader
// parses separately and splices into the body.
constexpr int kBodiesPerFile = 60;

struct MjcfFiles {
  std::vector<std::string> names;
  std::vector<std::unique_ptr<Mjcf>> texts;
};

void writeBody(Mjcf& x, int depth, MjcfFiles& files, const Scene& scene, std::size_t t, std::size_t b,
               const std::vector<std::vector<std::size_t>>& children) {
  if (depth >= kBodiesPerFile) {
    files.names.push_back("articula_bench_part" + std::to_string(files.names.size()) + ".xml");
    files.texts.push_back(std::make_unique<Mjcf>());
    x << "<include file=\"" << files.names.back() << "\"/>";
    Mjcf& part = *files.texts.back();
    part << "<mujoco>";
    writeBody(part, 0, files, scene, t, b, children);
    part << "</mujoco>";
    return;
  }
  const Body& body = scene.trees[t].bodies[b];
  x << "<body name=\"" << bodyName(t, b) << "\" pos=\"" << Vector3d(body.jointPose.translation()) << "\" quat=\""
    << Quaterniond(body.jointPose.linear()).normalized() << "\">";
  switch (body.joint) {
    case JointType::Free:
      x << "<freejoint/>";
      break;
    case JointType::Revolute:
      x << "<joint type=\"hinge\" pos=\"0 0 0\" axis=\"" << body.axis << "\"/>";
      break;
    case JointType::Prismatic:
      x << "<joint type=\"slide\" pos=\"0 0 0\" axis=\"" << body.axis << "\"/>";
      break;
  }
  Quaterniond iq;
  Vector3d moments;
  principalAxes(body.inertia, iq, moments);
  x << "<inertial pos=\"" << body.com << "\" quat=\"" << iq << "\" mass=\"" << body.mass << "\" diaginertia=\""
    << moments << "\"/>";
  for (const Geom& g : body.geoms) {
    x << "<geom";
    if (g.type == GeomType::Sphere)
      x << " type=\"sphere\" size=\"" << g.size.x() << "\"";
    else
      x << " type=\"box\" size=\"" << Vector3d(0.5 * g.size) << "\"";
    x << " pos=\"" << Vector3d(g.pose.translation()) << "\" quat=\"" << Quaterniond(g.pose.linear()).normalized()
      << "\"/>";
  }
  for (const std::size_t c : children[b]) writeBody(x, depth + 1, files, scene, t, c, children);
  x << "</body>";
}

// Sizes of MuJoCo 2.2's preallocated contact and constraint buffers. The
// mjData buffer (which holds dense njmax × nv and njmax × njmax arrays) is
// addressed with an int, so njmax is capped to keep it below 2 GB.
void bufferSizes(const Scene& scene, double budget, int& nconmax, int& njmax) {
  int collidable = 0;
  for (const Tree& t : scene.trees)
    for (const Body& b : t.bodies) collidable += static_cast<int>(b.geoms.size());
  const int closureRows = 3 * static_cast<int>(scene.closures.size());
  if (scene.kind != SceneKind::Contact) {
    nconmax = 1;
    njmax = std::max(closureRows, 1);
    return;
  }
  const double nv = scene.numDofs();
  // Per row r the buffer holds efc_AR and its column indices (12 r bytes)
  // and efc_J, efc_JT and their column indices (24 nv bytes):
  // 12 r² + 24 nv r must stay under `budget` bytes.
  const double r = (-24.0 * nv + std::sqrt(576.0 * nv * nv + 48.0 * budget)) / 24.0;
  const int cap = static_cast<int>(r);
  // Pyramidal cones with condim 3: 4 rows per contact.
  const int wanted = 16 * collidable + 64;
  nconmax = std::min(wanted, (cap - closureRows) / 4);
  njmax = 4 * nconmax + closureRows;
}

void warningToStderr(const char* msg) {
  std::fprintf(stderr, "MuJoCo warning: %s\n", msg);
}

// The model as MJCF files, the first one being the main file.
MjcfFiles buildMjcf(const Scene& scene, double budget) {
  MjcfFiles files;
  files.names.push_back("articula_bench_scene.xml");
  files.texts.push_back(std::make_unique<Mjcf>());
  Mjcf& x = *files.texts.front();
  int nconmax = 0;
  int njmax = 0;
  bufferSizes(scene, budget, nconmax, njmax);
  x << "<mujoco model=\"articula_bench\">";
  x << "<compiler angle=\"radian\" inertiafromgeom=\"false\" autolimits=\"false\" balanceinertia=\"false\"/>";
  x << "<size njmax=\"" << njmax << "\" nconmax=\"" << nconmax << "\"/>";
  x << "<option timestep=\"" << scene.dt << "\" gravity=\"" << scene.gravity
    << "\" integrator=\"Euler\" solver=\"Newton\" cone=\"pyramidal\">";
  switch (scene.kind) {
    case SceneKind::ContactFree:
      x << "<flag contact=\"disable\" constraint=\"disable\"/>";
      break;
    case SceneKind::ClosedChain:
      x << "<flag contact=\"disable\"/>";
      break;
    case SceneKind::Contact:
      x << "<flag filterparent=\"disable\"/>";
      break;
  }
  x << "</option>";
  const bool collide = scene.kind == SceneKind::Contact;
  x << "<default><joint armature=\"0\" damping=\"0\" stiffness=\"0\" frictionloss=\"0\" limited=\"false\"/>"
    << "<geom contype=\"" << (collide ? 1 : 0) << "\" conaffinity=\"" << (collide ? 1 : 0)
    << "\" condim=\"3\" margin=\"0\" gap=\"0\" friction=\"" << scene.friction << " 0.005 0.0001\"/></default>";
  x << "<worldbody>";
  if (collide) x << "<geom name=\"ground\" type=\"plane\" size=\"0 0 1\" pos=\"0 0 0\"/>";
  for (std::size_t t = 0; t < scene.trees.size(); ++t) {
    const Tree& tree = scene.trees[t];
    std::vector<std::vector<std::size_t>> children(tree.bodies.size());
    std::vector<std::size_t> roots;
    for (std::size_t b = 0; b < tree.bodies.size(); ++b) {
      const int p = tree.bodies[b].parent;
      if (p < 0)
        roots.push_back(b);
      else
        children[static_cast<std::size_t>(p)].push_back(b);
    }
    for (const std::size_t r : roots) writeBody(x, 0, files, scene, t, r, children);
  }
  x << "</worldbody>";
  if (!scene.closures.empty()) {
    x << "<equality>";
    for (const Closure& c : scene.closures) {
      x << "<connect body1=\"" << bodyName(static_cast<std::size_t>(c.treeA), static_cast<std::size_t>(c.bodyA))
        << "\" body2=\""
        << (c.treeB < 0 ? std::string("world")
                        : bodyName(static_cast<std::size_t>(c.treeB), static_cast<std::size_t>(c.bodyB)))
        << "\" anchor=\"" << c.pointA << "\"/>";
    }
    x << "</equality>";
  }
  x << "</mujoco>";
  return files;
}

mjModel* compile(const MjcfFiles& files) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  for (std::size_t i = 0; i < files.names.size(); ++i) {
    const std::string& text = files.texts[i]->text();
    const char* name = files.names[i].c_str();
    if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(text.size())) != 0) {
      mj_deleteVFS(vfs.get());
      throw std::runtime_error("mujoco: cannot create the virtual model file " + files.names[i]);
    }
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name)], text.data(), text.size());
  }
  char error[1024] = "";
  mjModel* m = mj_loadXML(files.names.front().c_str(), vfs.get(), error, sizeof(error));
  mj_deleteVFS(vfs.get());
  if (!m) throw std::runtime_error(std::string("mujoco: model compilation failed: ") + error);
  return m;
}

class MujocoInstance final : public Instance {
 public:
  explicit MujocoInstance(const Scene& scene)
      : m_nq(scene.numPositions()), m_nv(scene.numDofs()), m_contactFree(scene.kind == SceneKind::ContactFree) {
    // The largest buffers that fit below the 2 GB int limit; the compiler
    // fails ("could not create mjData") if the estimate was too generous.
    double budget = 2.08e9;
    for (int attempt = 0;; ++attempt) {
      try {
        m_model = compile(buildMjcf(scene, budget));
        break;
      } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find("mjData") == std::string::npos || attempt == 3) throw;
        budget *= 0.85;
      }
    }
    m_data = mj_makeData(m_model);
    if (!m_data) {
      mj_deleteModel(m_model);
      throw std::runtime_error("mujoco: cannot allocate mjData");
    }
    // The second anchor of each <connect> was computed by the compiler at
    // qpos = 0; set it to the Scene's point in body B (or the world).
    for (std::size_t i = 0; i < scene.closures.size(); ++i) {
      mjtNum* data = m_model->eq_data + mjNEQDATA * i;
      const Vector3d& pb = scene.closures[i].pointB;
      data[3] = pb.x();
      data[4] = pb.y();
      data[5] = pb.z();
    }
    // Neutral ↔ MuJoCo coordinate map (MuJoCo orders bodies depth first).
    int nq = 0;
    int nv = 0;
    for (std::size_t t = 0; t < scene.trees.size(); ++t) {
      for (std::size_t b = 0; b < scene.trees[t].bodies.size(); ++b) {
        const int id = mj_name2id(m_model, mjOBJ_BODY, bodyName(t, b).c_str());
        if (id < 0 || m_model->body_jntnum[id] != 1) throw std::runtime_error("mujoco: body map failed");
        const int jnt = m_model->body_jntadr[id];
        if (scene.trees[t].bodies[b].joint == JointType::Free) {
          m_free.push_back({nq, nv, m_model->jnt_qposadr[jnt], m_model->jnt_dofadr[jnt]});
          nq += 7;
          nv += 6;
        } else {
          m_jointQ.push_back(nq);
          m_jointV.push_back(nv);
          m_mjQ.push_back(m_model->jnt_qposadr[jnt]);
          m_mjV.push_back(m_model->jnt_dofadr[jnt]);
          ++nq;
          ++nv;
        }
      }
    }
    if (scene.pd) {
      m_pd = true;
      m_kp = scene.pd->kp;
      m_kd = scene.pd->kd;
      m_qref.assign(scene.pd->qref.data(), scene.pd->qref.data() + scene.pd->qref.size());
      if (m_qref.size() != m_mjQ.size()) throw std::runtime_error("mujoco: PD reference size mismatch");
    }
    setState(scene.q0, scene.v0);
  }

  ~MujocoInstance() override {
    if (const int n = m_data->warning[mjWARN_CONTACTFULL].number + m_data->warning[mjWARN_CNSTRFULL].number; n > 0)
      std::fprintf(stderr,
                   "MuJoCo: the contact/constraint buffers (nconmax %d, njmax %d) overflowed in %d steps; "
                   "the contacts beyond them were dropped\n",
                   m_model->nconmax, m_model->njmax, n);
    mj_deleteData(m_data);
    mj_deleteModel(m_model);
  }
  MujocoInstance(const MujocoInstance&) = delete;
  MujocoInstance& operator=(const MujocoInstance&) = delete;

  void step() override {
    if (m_pd) {
      const mjtNum* qpos = m_data->qpos;
      const mjtNum* qvel = m_data->qvel;
      mjtNum* f = m_data->qfrc_applied;
      const std::size_t n = m_qref.size();
      for (std::size_t k = 0; k < n; ++k) {
        const int dv = m_mjV[k];
        f[dv] = m_kp * (m_qref[k] - qpos[m_mjQ[k]]) - m_kd * qvel[dv];
      }
    }
    mj_step(m_model, m_data);
  }

  void getState(VectorXd& q, VectorXd& v) const override {
    q.resize(m_nq);
    v.resize(m_nv);
    const mjtNum* qpos = m_data->qpos;
    const mjtNum* qvel = m_data->qvel;
    for (std::size_t k = 0; k < m_mjQ.size(); ++k) {
      q[m_jointQ[k]] = qpos[m_mjQ[k]];
      v[m_jointV[k]] = qvel[m_mjV[k]];
    }
    for (const FreeSlot& s : m_free) {
      for (int i = 0; i < 7; ++i) q[s.q + i] = qpos[s.mq + i];
      // MuJoCo: linear velocity of the body origin in world axes, angular
      // velocity in body axes.
      const Quaterniond r = Quaterniond(qpos[s.mq + 3], qpos[s.mq + 4], qpos[s.mq + 5], qpos[s.mq + 6]).normalized();
      v.segment<3>(s.v) = Vector3d(qvel[s.mv], qvel[s.mv + 1], qvel[s.mv + 2]);
      v.segment<3>(s.v + 3) = r * Vector3d(qvel[s.mv + 3], qvel[s.mv + 4], qvel[s.mv + 5]);
    }
  }

  void setState(const VectorXd& q, const VectorXd& v) override {
    if (q.size() != m_nq || v.size() != m_nv) throw std::runtime_error("mujoco: state size mismatch");
    mjtNum* qpos = m_data->qpos;
    mjtNum* qvel = m_data->qvel;
    for (std::size_t k = 0; k < m_mjQ.size(); ++k) {
      qpos[m_mjQ[k]] = q[m_jointQ[k]];
      qvel[m_mjV[k]] = v[m_jointV[k]];
    }
    for (const FreeSlot& s : m_free) {
      for (int i = 0; i < 7; ++i) qpos[s.mq + i] = q[s.q + i];
      const Quaterniond r = Quaterniond(q[s.q + 3], q[s.q + 4], q[s.q + 5], q[s.q + 6]).normalized();
      const Vector3d wBody = r.conjugate() * Vector3d(v.segment<3>(s.v + 3));
      for (int i = 0; i < 3; ++i) {
        qvel[s.mv + i] = v[s.v + i];
        qvel[s.mv + 3 + i] = wBody[i];
      }
    }
  }

  VectorXd forwardDynamics(const VectorXd& q, const VectorXd& v, const VectorXd& tau) override {
    if (tau.size() != m_nv) throw std::runtime_error("mujoco: tau size mismatch");
    setState(q, v);
    mjtNum* f = m_data->qfrc_applied;
    for (std::size_t k = 0; k < m_mjV.size(); ++k) f[m_mjV[k]] = tau[m_jointV[k]];
    for (const FreeSlot& s : m_free) {
      // A generalized force on the neutral free joint (force at the origin,
      // torque in world axes) maps to MuJoCo's (force in world axes, torque
      // in body axes).
      const Quaterniond r = Quaterniond(q[s.q + 3], q[s.q + 4], q[s.q + 5], q[s.q + 6]).normalized();
      const Vector3d tBody = r.conjugate() * Vector3d(tau.segment<3>(s.v + 3));
      for (int i = 0; i < 3; ++i) {
        f[s.mv + i] = tau[s.v + i];
        f[s.mv + 3 + i] = tBody[i];
      }
    }
    // Unconstrained dynamics: no contacts, closures or solver.
    const int saved = m_model->opt.disableflags;
    if (!m_contactFree) m_model->opt.disableflags = saved | mjDSBL_CONSTRAINT | mjDSBL_CONTACT;
    mj_forward(m_model, m_data);
    m_model->opt.disableflags = saved;
    VectorXd vdot(m_nv);
    const mjtNum* qacc = m_data->qacc;
    for (std::size_t k = 0; k < m_mjV.size(); ++k) vdot[m_jointV[k]] = qacc[m_mjV[k]];
    for (const FreeSlot& s : m_free) {
      // d/dt of the world angular velocity R ω_body is R ω̇_body.
      const Quaterniond r = Quaterniond(q[s.q + 3], q[s.q + 4], q[s.q + 5], q[s.q + 6]).normalized();
      vdot.segment<3>(s.v) = Vector3d(qacc[s.mv], qacc[s.mv + 1], qacc[s.mv + 2]);
      vdot.segment<3>(s.v + 3) = r * Vector3d(qacc[s.mv + 3], qacc[s.mv + 4], qacc[s.mv + 5]);
    }
    // The applied forces must not leak into the next step.
    mju_zero(m_data->qfrc_applied, m_model->nv);
    return vdot;
  }

  double maxPenetration() const override {
    double deepest = 0.0;
    for (int i = 0; i < m_data->ncon; ++i) deepest = std::max(deepest, -m_data->contact[i].dist);
    return deepest;
  }

  const mjModel* model() const { return m_model; }
  mjData* data() const { return m_data; }

 private:
  struct FreeSlot {
    int q;   // neutral position index
    int v;   // neutral velocity index
    int mq;  // MuJoCo qpos address
    int mv;  // MuJoCo dof address
  };

  mjModel* m_model = nullptr;
  mjData* m_data = nullptr;
  int m_nq = 0;
  int m_nv = 0;
  bool m_contactFree = false;
  // 1-DoF joints in neutral order: neutral q/v index and MuJoCo addresses.
  std::vector<int> m_jointQ;
  std::vector<int> m_jointV;
  std::vector<int> m_mjQ;
  std::vector<int> m_mjV;
  std::vector<FreeSlot> m_free;
  bool m_pd = false;
  double m_kp = 0.0;
  double m_kd = 0.0;
  std::vector<double> m_qref;
};

class MujocoBackend final : public Backend {
 public:
  MujocoBackend() { mju_user_warning = warningToStderr; }
  std::string name() const override { return std::string("MuJoCo ") + mj_versionString(); }
  std::string key() const override { return "mujoco"; }
  bool supports(const Scene& scene, std::string& why) const override {
    for (const Tree& t : scene.trees) {
      for (const Body& b : t.bodies) {
        if (b.joint == JointType::Free && b.parent >= 0) {
          why = "free joints are only supported on root bodies";
          return false;
        }
      }
    }
    return true;
  }
  std::unique_ptr<Instance> create(const Scene& scene) const override {
    return std::make_unique<MujocoInstance>(scene);
  }
};

}  // namespace

std::unique_ptr<Backend> makeMujocoBackend() {
  return std::make_unique<MujocoBackend>();
}

}  // namespace bench

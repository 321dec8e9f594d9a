// MJCF export checked by MuJoCo 2.2.2 itself (Debian libmujoco-dev): every
// built-in scene, every scenes/*.articula, every shared robot URDF (welded
// and floating) and random trees with every joint type are written with
// io::toMjcf and io::exportFile, loaded with mj_loadXML, and on random
// states MuJoCo's mass matrix, body poses and forward dynamics (contacts,
// constraints, passive forces and actuation off) are compared with
// Articula's Multibody::getMassMatrix, link frames and
// computeForwardDynamics (rigid bodies: Newton–Euler, written down here).
// The state is mapped joint by joint from the conventions
// (docs/conventions.md) and MuJoCo's (qpos: quaternions w first, free
// joints the world pose; qvel: free joints [linear velocity in the world;
// angular velocity in the body]), independently of the writer.
// Focused cases: loop closures and couplers as equality constraints whose
// residuals vanish at assembled states, actuators (gears, ranges, gains and
// the forces MuJoCo applies), sensors (types and site frames), keyframes.
#include <articula/articula.hpp>
#include <articula/io/export.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>

#include <mujoco/mujoco.h>

#include "builtin_scenes.hpp"
#include "closed_loop_robots.hpp"
#include "models.hpp"
#include "random_tree.hpp"

#include <QtTest/QtTest>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = fs::path(ARTICULA_SOURCE_DIR);
const fs::path kModels = articula::test::modelsPath();

// ---- MuJoCo handles -----------------------------------------------------------

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;

ModelPtr loadMjcf(const fs::path& file, QString& error) {
  char err[2000] = "";
  ModelPtr m(mj_loadXML(file.string().c_str(), nullptr, err, sizeof err));
  if (!m) error = QString("MuJoCo cannot load %1: %2").arg(QString::fromStdString(file.string()), err);
  return m;
}

void writeText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

// ---- rows ---------------------------------------------------------------------

std::vector<fs::path> sharedRobots() {
  std::vector<fs::path> out;
  if (!fs::is_directory(kModels)) return out;
  for (const auto& e : fs::recursive_directory_iterator(kModels)) {
    if (e.is_regular_file() && e.path().extension() == ".urdf") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Bodies MuJoCo refuses as they are: a massless link on a revolute, a
// slender rod on a ball whose spin inertia Articula raises, a massless
// welded flange and a point mass on a prismatic joint.
void buildDegenerateChain(World& world) {
  auto mb = world.addMultibody("odd");
  Inertia none;
  none.mass = 0.0;
  none.rotational.setZero();
  auto hub = mb.addLink(
      {"hub", none}, JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(test::translation(0, 0, 1)).named("spin"));
  auto rod = mb.addLink({"rod", robots::slenderRod(0.2, 0.5, 1e-8, 1e-4)}, hub,
                        JointSpec::ball().withParentOffset(test::translation(0.1, 0, 0)).named("swivel"));
  auto flange = mb.addLink({"flange", none}, rod, JointSpec::weld(test::translation(0, 0, -0.5)).named("bolt"));
  mb.addLink({"bead", Inertia::pointMass(0.3, Vector3d(0, 0.02, -0.1))}, flange,
             JointSpec::prismatic(Vector3d::UnitZ()).named("slide"));
  hub.getParentJoint().setPosition(0, 0.3);
}

// Builds the world a row names: "builtin:NAME", "scene:FILE", "robot:FILE",
// "floating:FILE" (free root on a ground) or "tree:SEED" (a random tree
// with every joint type, free root for odd seeds).
void build(World& world, const QString& row) {
  const std::string what = row.section(':', 1).toStdString();
  if (row.startsWith("builtin:")) {
    scenes::buildScene(world, what);
  } else if (row.startsWith("scene:")) {
    io::loadScene(world, kSource / "scenes" / what);
  } else if (row == "special:degenerate") {
    buildDegenerateChain(world);
  } else if (row.startsWith("tree:")) {
    const auto seed = static_cast<std::uint32_t>(std::stoul(what));
    test::TreeOptions o;
    o.numLinks = 14;
    o.rootType = seed % 2 == 1 ? JointType::Free : JointType::Revolute;
    test::RandomTree t = test::makeRandomTree(seed, o);
    // A random initial state, so that the reference configuration is not the neutral one.
    std::mt19937 rng(seed);
    t.mb.setPositions(test::randomPositions(rng, t.mb));
    t.mb.setVelocities(test::randomVectorX(rng, t.mb.numDofs(), -1, 1));
    // MuJoCo holds one armature per joint: a ball's DoFs share it here
    // (unequal ones are reported, armatureOfBallJoints). Free joints have
    // none: MuJoCo's linear free DoFs are world-frame velocities, whose
    // armature force differs from ours by a·(ω × v_B) (reported).
    WorldSpec spec = t.world->getSpec();
    for (MultibodySpec& mb : spec.multibodies) {
      for (LinkSpec& l : mb.links) {
        VectorXd& a = l.joint.armature;
        if (l.joint.type == JointType::Ball && a.size() > 0) a.setConstant(a[0]);
        if (l.joint.type == JointType::Free) a.resize(0);
      }
    }
    world.applySpec(spec, SpecStatePolicy::FromSpec);
  } else {
    io::ImportOptions o;
    o.useEnvironmentPaths = false;
    o.packagePath = {kModels, kModels / "example-robot-data" / "robots"};
    if (row.startsWith("floating:")) {
      o.root = io::RootAttachment::Floating;
      o.addGroundPlane = true;
    }
    io::importFile(world, what, o);
  }
}

// ---- the exported names (the writer's rule, mjcf_export.cpp) -------------------

struct Names {
  std::map<std::string, int> bodies, joints;

  explicit Names(const WorldSpec& spec) {
    bodies["world"] = 1;
    for (const RigidBodySpec& r : spec.rigidBodies) {
      ++bodies[r.name];
      ++joints[r.name];
    }
    for (const MultibodySpec& mb : spec.multibodies) {
      for (const LinkSpec& l : mb.links) {
        ++bodies[l.name];
        ++joints[l.joint.name];
      }
    }
  }
  std::string body(const std::string& mb, const std::string& link) const {
    return bodies.at(link) == 1 ? link : mb + "." + link;
  }
  std::string joint(const std::string& mb, const std::string& joint) const {
    return joints.at(joint) == 1 ? joint : mb + "." + joint;
  }
};

// ---- the state mapping -------------------------------------------------------------

// One joint of ours (or a rigid body) and the MuJoCo joints written for it.
struct Segment {
  std::optional<Joint> joint;
  std::optional<RigidBody> rigid;
  JointType type = JointType::Free;
  bool root = true;
  int body = -1;            // MuJoCo body id
  std::vector<int> joints;  // MuJoCo joint ids, in body order
  int v = 0;                // offset in our velocity vector (layout order)
  int nv = 0;
};

struct Layout {
  std::vector<Segment> segments;
  std::vector<Multibody> multibodies;
  std::vector<int> multibodyV;  // offset of each multibody's velocities
  int nv = 0;
};

std::vector<Vector3d> expectedAxes(const JointSpec& js, bool root, std::vector<int>& types) {
  const Vector3d a1 = js.axis.normalized();
  const Vector3d a2 = js.axis2.normalized();
  const Vector3d X = Vector3d::UnitX(), Y = Vector3d::UnitY(), Z = Vector3d::UnitZ();
  switch (js.type) {
    case JointType::Weld:
      types = {};
      return {};
    case JointType::Revolute:
      types = {mjJNT_HINGE};
      return {a1};
    case JointType::Prismatic:
      types = {mjJNT_SLIDE};
      return {a1};
    case JointType::Screw:
      types = {mjJNT_HINGE, mjJNT_SLIDE};
      return {a1, a1};
    case JointType::Universal:
      types = {mjJNT_HINGE, mjJNT_HINGE};
      return {a1, a2};
    case JointType::Ball:
      types = {mjJNT_BALL};
      return {Z};
    case JointType::Euler: {
      types = {mjJNT_HINGE, mjJNT_HINGE, mjJNT_HINGE};
      switch (js.eulerOrder) {
        case EulerOrder::XYZ:
          return {X, Y, Z};
        case EulerOrder::ZYX:
          return {Z, Y, X};
        case EulerOrder::ZYZ:
          return {Z, Y, Z};
        case EulerOrder::XZY:
          return {X, Z, Y};
        case EulerOrder::YXZ:
          return {Y, X, Z};
        case EulerOrder::YZX:
          return {Y, Z, X};
        case EulerOrder::ZXY:
          return {Z, X, Y};
      }
      return {};
    }
    case JointType::Planar:
      types = {mjJNT_SLIDE, mjJNT_SLIDE, mjJNT_HINGE};
      return {a1, a2, a1.cross(a2).normalized()};
    case JointType::Translational:
      types = {mjJNT_SLIDE, mjJNT_SLIDE, mjJNT_SLIDE};
      return {X, Y, Z};
    case JointType::Free:
      if (root) {
        types = {mjJNT_FREE};
        return {Z};
      }
      types = {mjJNT_SLIDE, mjJNT_SLIDE, mjJNT_SLIDE, mjJNT_BALL};
      return {X, Y, Z, Z};
  }
  return {};
}

// Matches our joints with MuJoCo's bodies and joints by name and structure.
bool buildLayout(const World& world, const mjModel* m, Layout& out, QString& error) {
  const WorldSpec spec = world.getSpec();
  const Names names(spec);
  for (const RigidBody& r : world.getRigidBodies()) {
    Segment s;
    s.rigid = r;
    s.body = mj_name2id(m, mjOBJ_BODY, r.name().c_str());
    if (s.body < 0 || m->body_jntnum[s.body] != 1 || m->jnt_type[m->body_jntadr[s.body]] != mjJNT_FREE) {
      error = QString("rigid body '%1' is not a MuJoCo body with a free joint").arg(QString::fromStdString(r.name()));
      return false;
    }
    s.joints = {m->body_jntadr[s.body]};
    s.v = out.nv;
    s.nv = 6;
    out.nv += 6;
    out.segments.push_back(s);
  }
  for (const Multibody& mb : world.getMultibodies()) {
    out.multibodies.push_back(mb);
    out.multibodyV.push_back(out.nv);
    for (const Joint& j : mb.getJoints()) {
      Segment s;
      s.joint = j;
      s.type = j.type();
      s.root = !j.getParentLink().has_value();
      const std::string bodyName = names.body(mb.name(), j.getChildLink().name().substr(mb.name().size() + 1));
      s.body = mj_name2id(m, mjOBJ_BODY, bodyName.c_str());
      if (s.body < 0) {
        error = QString("no MuJoCo body '%1'").arg(QString::fromStdString(bodyName));
        return false;
      }
      std::vector<int> types;
      const std::vector<Vector3d> axes = expectedAxes(j.getSpec(), s.root, types);
      const int n = m->body_jntnum[s.body];
      const std::string base = names.joint(mb.name(), j.name());
      if (n != static_cast<int>(types.size())) {
        error = QString("body '%1' has %2 joints for a %3 joint")
                    .arg(QString::fromStdString(bodyName))
                    .arg(n)
                    .arg(test::jointTypeName(s.type));
        return false;
      }
      for (int k = 0; k < n; ++k) {
        const int id = m->body_jntadr[s.body] + k;
        const std::string expectedName = n == 1 ? base : base + ":" + std::to_string(k);
        const char* name = mj_id2name(m, mjOBJ_JOINT, id);
        if (name == nullptr || expectedName != name || m->jnt_type[id] != types[static_cast<std::size_t>(k)]) {
          error = QString("joint %1 of body '%2' is '%3' of type %4, expected '%5' of type %6")
                      .arg(k)
                      .arg(QString::fromStdString(bodyName))
                      .arg(name == nullptr ? "" : name)
                      .arg(m->jnt_type[id])
                      .arg(QString::fromStdString(expectedName))
                      .arg(types[static_cast<std::size_t>(k)]);
          return false;
        }
        const Vector3d axis(m->jnt_axis[3 * id], m->jnt_axis[3 * id + 1], m->jnt_axis[3 * id + 2]);
        if (m->jnt_type[id] != mjJNT_BALL && m->jnt_type[id] != mjJNT_FREE &&
            (axis - axes[static_cast<std::size_t>(k)]).norm() > 1e-12) {
          error = QString("joint '%1' has the axis %2 %3 %4").arg(name).arg(axis.x()).arg(axis.y()).arg(axis.z());
          return false;
        }
        s.joints.push_back(id);
      }
      s.v = out.nv;
      s.nv = j.numDofs();
      out.nv += s.nv;
      out.segments.push_back(s);
    }
  }
  if (m->nbody != 1 + static_cast<int>(out.segments.size())) {
    error = QString("MuJoCo has %1 bodies for %2 bodies and links").arg(m->nbody - 1).arg(out.segments.size());
    return false;
  }
  return true;
}

Matrix3d quatRotation(const double* xyzw) {
  return Quaterniond(xyzw[3], xyzw[0], xyzw[1], xyzw[2]).normalized().toRotationMatrix();
}

// The joint frame (child side) of a link in the world: our exported body frame.
Isometry3d jointFrameWorld(const Joint& j) {
  return j.getChildLink().getWorldTransform() * j.getSpec().childOffset;
}

Isometry3d segmentFrameWorld(const Segment& s) {
  return s.rigid ? s.rigid->getPose() : jointFrameWorld(*s.joint);
}

// The linear map qvel = T v (and the offset c of qacc = T v̇ + c), from our
// velocities (layout order) to MuJoCo's, at the current Articula state.
void velocityMap(const Layout& L, const mjModel* m, MatrixXd& T, VectorXd& c, const VectorXd& v) {
  T.setZero(m->nv, L.nv);
  c.setZero(m->nv);
  for (const Segment& s : L.segments) {
    const auto dof = [&](int k) { return m->jnt_dofadr[s.joints[static_cast<std::size_t>(k)]]; };
    const auto freeBlock = [&](int linear, int angular, const Matrix3d& R) {
      const Vector3d w = v.segment<3>(s.v);
      const Vector3d u = v.segment<3>(s.v + 3);
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) T(linear + i, s.v + 3 + k) = R(i, k);
        T(angular + i, s.v + i) = 1.0;
      }
      c.segment<3>(linear) = R * w.cross(u);
    };
    if (s.rigid || (s.type == JointType::Free && s.root)) {
      freeBlock(dof(0), dof(0) + 3, segmentFrameWorld(s).linear());
      continue;
    }
    switch (s.type) {
      case JointType::Weld:
        break;
      case JointType::Screw:
        T(dof(0), s.v) = 1.0;
        T(dof(1), s.v) = s.joint->getSpec().pitch;
        break;
      case JointType::Ball:
        for (int i = 0; i < 3; ++i) T(dof(0) + i, s.v + i) = 1.0;
        break;
      case JointType::Free: {
        // Below the root: slides along the parent joint frame's axes, then a ball.
        const VectorXd q = s.joint->getPositions();
        const Matrix3d R = quatRotation(q.data() + 3);
        const Vector3d w = v.segment<3>(s.v);
        const Vector3d u = v.segment<3>(s.v + 3);
        for (int i = 0; i < 3; ++i) {
          for (int k = 0; k < 3; ++k) T(dof(i), s.v + 3 + k) = R(i, k);
          T(dof(3) + i, s.v + i) = 1.0;
          c[dof(i)] = (R * w.cross(u))[i];
        }
        break;
      }
      default:
        for (int k = 0; k < s.nv; ++k) T(dof(k), s.v + k) = 1.0;
        break;
    }
  }
}

// MuJoCo's qpos from the Articula state.
void setQpos(const Layout& L, const mjModel* m, mjData* d) {
  for (const Segment& s : L.segments) {
    const auto adr = [&](int k) { return m->jnt_qposadr[s.joints[static_cast<std::size_t>(k)]]; };
    if (s.rigid || (s.type == JointType::Free && s.root)) {
      const Isometry3d X = segmentFrameWorld(s);
      const Quaterniond Q(X.linear());
      double* q = d->qpos + adr(0);
      q[0] = X.translation().x();
      q[1] = X.translation().y();
      q[2] = X.translation().z();
      q[3] = Q.w();
      q[4] = Q.x();
      q[5] = Q.y();
      q[6] = Q.z();
      continue;
    }
    const VectorXd q = s.joint->getPositions();
    switch (s.type) {
      case JointType::Weld:
        break;
      case JointType::Screw:
        d->qpos[adr(0)] = q[0];
        d->qpos[adr(1)] = s.joint->getSpec().pitch * q[0];
        break;
      case JointType::Ball:
        d->qpos[adr(0)] = q[3];
        for (int i = 0; i < 3; ++i) d->qpos[adr(0) + 1 + i] = q[i];
        break;
      case JointType::Free:
        for (int i = 0; i < 3; ++i) d->qpos[adr(i)] = q[i];
        d->qpos[adr(3)] = q[6];
        for (int i = 0; i < 3; ++i) d->qpos[adr(3) + 1 + i] = q[3 + i];
        break;
      default:
        for (int k = 0; k < s.joint->numPositions(); ++k) d->qpos[adr(k)] = q[k];
        break;
    }
  }
}

VectorXd ourVelocities(const Layout& L) {
  VectorXd v(L.nv);
  for (const Segment& s : L.segments) {
    if (s.rigid) {
      const Matrix3d R = s.rigid->getPose().linear();
      v.segment<3>(s.v) = R.transpose() * s.rigid->getAngularVelocityWorld();
      v.segment<3>(s.v + 3) = R.transpose() * s.rigid->getLinearVelocityWorld();
    } else if (s.nv > 0) {
      v.segment(s.v, s.nv) = s.joint->getVelocities();
    }
  }
  return v;
}

// Principal moments below 1e-4 of the largest raised, as Articula's dynamics
// does (docs/loop-closures.md, "Nearly inertia-free rotations").
Matrix3d conditioned(const Matrix3d& Ic) {
  Eigen::SelfAdjointEigenSolver<Matrix3d> es(0.5 * (Ic + Ic.transpose()));
  Vector3d l = es.eigenvalues();
  if (l[2] > 0.0 && l[0] < 1e-4 * l[2]) l = l.cwiseMax(1e-4 * l[2]);
  return es.eigenvectors() * l.asDiagonal() * es.eigenvectors().transpose();
}

// Spatial inertia about the body origin, body coordinates, [angular; linear].
Matrix6d spatialInertia(const Inertia& in) {
  const Matrix3d C = test::skew(in.com);
  Matrix6d I;
  I.topLeftCorner<3, 3>() = conditioned(in.rotational) - in.mass * C * C;
  I.topRightCorner<3, 3>() = in.mass * C;
  I.bottomLeftCorner<3, 3>() = -in.mass * C;
  I.bottomRightCorner<3, 3>() = in.mass * Matrix3d::Identity();
  return I;
}

// Newton–Euler in body coordinates: I a + v ×* (I v) = τ + gravity wrench,
// a = d/dt [ω_B; v_B] (the free joint's acceleration).
Vector6d rigidBodyAcceleration(const RigidBody& b, const Vector3d& gravity, const Vector6d& v, const Vector6d& tau) {
  const Inertia in = b.getInertia();
  const Matrix6d I = spatialInertia(in);
  const Vector3d gB = b.getPose().linear().transpose() * gravity;
  Vector6d Fg;
  Fg << in.com.cross(in.mass * gB), in.mass * gB;
  const Vector6d h = I * v;
  Vector6d bias;
  bias << v.head<3>().cross(h.head<3>()) + v.tail<3>().cross(h.tail<3>()), v.head<3>().cross(h.tail<3>());
  return I.ldlt().solve(tau + Fg - bias);
}

// Random coordinates for every joint within its limits, random velocities.
void randomState(World& world, std::mt19937& rng) {
  for (RigidBody& r : world.getRigidBodies()) {
    r.setPose(test::randomTransform(rng, 1.0));
    r.setVelocityWorld(test::randomVector(rng, -1, 1), test::randomVector(rng, -1, 1));
  }
  for (Multibody& mb : world.getMultibodies()) {
    for (Joint& j : mb.getJoints()) {
      const JointSpec js = j.getSpec();
      VectorXd q = VectorXd::Zero(j.numPositions());
      const auto limited = [&](int k, double lo, double hi) {
        const double a = k < js.positionLowerLimits.size() ? std::max(lo, js.positionLowerLimits[k]) : lo;
        const double b = k < js.positionUpperLimits.size() ? std::min(hi, js.positionUpperLimits[k]) : hi;
        return a <= b ? test::uniform(rng, a, b) : 0.5 * (a + b);
      };
      switch (j.type()) {
        case JointType::Weld:
          break;
        case JointType::Ball: {
          const Quaterniond Q = test::randomQuaternion(rng);
          q << Q.x(), Q.y(), Q.z(), Q.w();
          break;
        }
        case JointType::Free: {
          const Quaterniond Q = test::randomQuaternion(rng);
          q << test::randomVector(rng, -1, 1), Q.x(), Q.y(), Q.z(), Q.w();
          break;
        }
        case JointType::Prismatic:
        case JointType::Translational:
          for (int k = 0; k < q.size(); ++k) q[k] = limited(k, -0.5, 0.5);
          break;
        case JointType::Planar:
          q << limited(0, -0.5, 0.5), limited(1, -0.5, 0.5), limited(2, -test::kPi, test::kPi);
          break;
        case JointType::Euler: {
          const double beta = test::uniform(rng, 0.4, 1.2);  // away from the singular configurations
          q << limited(0, -test::kPi, test::kPi), test::uniform(rng, 0, 1) < 0.5 ? beta : -beta,
              limited(2, -test::kPi, test::kPi);
          break;
        }
        default:
          for (int k = 0; k < q.size(); ++k) q[k] = limited(k, -test::kPi, test::kPi);
          break;
      }
      j.setPositions(q);
      j.setVelocities(test::randomVectorX(rng, j.numDofs(), -1, 1));
    }
  }
}

double maxAbs(const VectorXd& x) {
  return x.size() == 0 ? 0.0 : x.cwiseAbs().maxCoeff();
}

struct Comparison {
  double acceleration = 0.0;  // max |Δv̇| / max(1, |v̇|∞)
  double massMatrix = 0.0;    // max |ΔM| / max|M|
  double pose = 0.0;          // max |Δp| (m), |ΔR|
  std::string detail;         // the accelerations of the worst state, when they differ
};

// One random state: MuJoCo and Articula side by side.
bool compareDynamics(World& world, const Layout& L, const mjModel* m, mjData* d, std::mt19937& rng, Comparison& out,
                     QString& error) {
  randomState(world, rng);
  const VectorXd v = ourVelocities(L);
  const VectorXd tau = test::randomVectorX(rng, L.nv, -1, 1);
  MatrixXd T;
  VectorXd c;
  velocityMap(L, m, T, c, v);
  mj_resetData(m, d);
  setQpos(L, m, d);
  Eigen::Map<VectorXd>(d->qvel, m->nv) = T * v;
  // The generalized force whose power is τ·v: Tᵀ f = τ.
  const MatrixXd TtT = T.transpose() * T;
  Eigen::Map<VectorXd>(d->qfrc_applied, m->nv) = T * TtT.ldlt().solve(tau);
  mj_forward(m, d);
  MatrixXd Mmj(m->nv, m->nv);
  mj_fullM(m, Mmj.data(), d->qM);  // symmetric: row or column major alike
  const VectorXd qacc = Eigen::Map<const VectorXd>(d->qacc, m->nv);
  // qacc = T v̇ + c; with T not square (a screw's extra DoF) the projection
  // (TᵀMT)⁻¹ TᵀM (qacc − c) is the dynamics with that DoF tied.
  const MatrixXd Mours = T.transpose() * Mmj * T;
  const VectorXd vdotMj = Mours.ldlt().solve(T.transpose() * (Mmj * (qacc - c)));

  VectorXd vdot = VectorXd::Zero(L.nv);
  MatrixXd M = MatrixXd::Zero(L.nv, L.nv);
  const Vector3d g = world.getOptions().gravity;
  for (const Segment& s : L.segments) {
    if (!s.rigid) continue;
    vdot.segment<6>(s.v) = rigidBodyAcceleration(*s.rigid, g, v.segment<6>(s.v), tau.segment<6>(s.v));
    M.block<6, 6>(s.v, s.v) = spatialInertia(s.rigid->getInertia());
  }
  for (std::size_t i = 0; i < L.multibodies.size(); ++i) {
    const Multibody& mb = L.multibodies[i];
    const int o = L.multibodyV[i];
    const int n = mb.numDofs();
    if (n == 0) continue;
    vdot.segment(o, n) = mb.computeForwardDynamics(tau.segment(o, n));
    M.block(o, o, n, n) = mb.getMassMatrix();
  }
  const double aScale = std::max(1.0, maxAbs(vdot));
  const double aError = maxAbs(vdotMj - vdot) / aScale;
  if (aError > out.acceleration && aError > 1e-8) {
    // Which joints differ, ours / MuJoCo's mapped back (for the failure message).
    std::ostringstream os;
    for (const Segment& sg : L.segments) {
      os << "\n  " << (sg.rigid ? sg.rigid->name() : sg.joint->name()) << " (" << test::jointTypeName(sg.type) << "):";
      for (int k = 0; k < sg.nv; ++k) os << " " << vdot[sg.v + k] << " / " << vdotMj[sg.v + k];
    }
    out.detail = os.str();
  }
  out.acceleration = std::max(out.acceleration, aError);
  const double mScale = M.size() > 0 ? std::max(1e-300, M.cwiseAbs().maxCoeff()) : 1.0;
  out.massMatrix = std::max(out.massMatrix, M.size() > 0 ? (Mours - M).cwiseAbs().maxCoeff() / mScale : 0.0);
  for (const Segment& s : L.segments) {
    const Isometry3d X = segmentFrameWorld(s);
    const Vector3d p(d->xpos[3 * s.body], d->xpos[3 * s.body + 1], d->xpos[3 * s.body + 2]);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->xmat + 9 * s.body);
    out.pose = std::max({out.pose, (p - X.translation()).norm(), (Matrix3d(R) - X.linear()).norm()});
  }
  if (!vdot.allFinite() || !vdotMj.allFinite()) {
    error = "non-finite accelerations";
    return false;
  }
  return true;
}

// The efc rows of the equality constraints (MuJoCo 2.2.2: mjCNSTR_EQUALITY).
double equalityResidual(const mjModel* m, mjData* d, int& rows) {
  mj_forward(m, d);
  double worst = 0.0;
  rows = 0;
  for (int i = 0; i < d->nefc; ++i) {
    if (d->efc_type[i] != mjCNSTR_EQUALITY) continue;
    ++rows;
    worst = std::max(worst, std::abs(d->efc_pos[i]));
  }
  return worst;
}

bool reportHas(const std::vector<io::ExportEntry>& entries, const std::string& object) {
  return std::any_of(entries.begin(), entries.end(), [&](const io::ExportEntry& e) { return e.object == object; });
}

Isometry3d offset(const Vector3d& p, double angle, const Vector3d& axis) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  X.translation() = p;
  return X;
}

// A crank (revolute), a connecting rod (revolute) and a piston (prismatic,
// its own multibody) tied by a Point closure; a cap (rigid body) welded to
// the piston by a Rigid closure with offsets on both sides; a wheel
// (revolute, own multibody) following the crank through a coupler.
void buildClosedMechanism(World& world) {
  const double r = 0.1;
  const double l = 0.35;
  auto mech = world.addMultibody("mech");
  Inertia bar = Inertia::box(0.5, Vector3d(r, 0.02, 0.02));
  bar.com = Vector3d(0.5 * r, 0, 0);
  auto crank = mech.addLink(
      {"crank", bar},
      JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(0, 0, 1)).named("crank_joint"));
  Inertia rodIn = Inertia::box(0.3, Vector3d(l, 0.02, 0.02));
  rodIn.com = Vector3d(0.5 * l, 0, 0);
  auto rod = mech.addLink(
      {"rod", rodIn}, crank,
      JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(r, 0, 0)).named("rod_joint"));
  auto slider = world.addMultibody("slider");
  JointSpec slide = JointSpec::prismatic(Vector3d::UnitX()).withParentOffset(test::translation(0, 0, 1)).named("slide");
  slide.childOffset = offset(Vector3d(0.01, 0.02, -0.03), 0.3, Vector3d(1, 2, 3));
  auto piston = slider.addLink({"piston", Inertia::box(1.0, Vector3d(0.06, 0.06, 0.06))}, slide);
  auto wheelTree = world.addMultibody("wheel");
  auto wheel = wheelTree.addLink({"disc", Inertia::cylinder(2.0, 0.2, 0.02)},
                                 JointSpec::revolute(Vector3d::UnitZ())
                                     .withParentOffset(offset(Vector3d(0.5, 0.5, 1), 0.4, Vector3d(1, 0, 0)))
                                     .named("axle"));
  RigidBodyOptions capOptions;
  capOptions.inertia = Inertia::box(0.2, Vector3d(0.05, 0.1, 0.02));
  auto cap = world.addRigidBody("cap", capOptions);

  LoopClosureSpec pin;
  pin.frameA = rod;
  pin.offsetA = test::translation(l, 0, 0);
  pin.frameB = piston;
  pin.offsetB = slide.childOffset;  // the piston's joint frame origin
  pin.offsetB.linear().setIdentity();
  pin.family = LoopClosureFamily::Point;
  world.addLoopClosure("wrist_pin", pin);
  LoopClosureSpec weld;
  weld.frameA = piston;
  weld.offsetA = offset(Vector3d(0.0, 0.05, 0.04), 0.7, Vector3d(0, 1, 1));
  weld.frameB = cap;
  weld.offsetB = offset(Vector3d(0.02, -0.01, 0.03), -0.5, Vector3d(1, 0, 1));
  weld.family = LoopClosureFamily::Rigid;
  world.addLoopClosure("cap_weld", weld);
  JointCouplerSpec gear;
  gear.leader = crank.getParentJoint();
  gear.follower = wheel.getParentJoint();
  gear.ratio = -0.5;
  gear.offset = 0.2;
  world.addJointCoupler("gear", gear);

  crank.getParentJoint().setPosition(0, 0.5);
  piston.getParentJoint().setPosition(0, 0.4);
  ClosureProjectionOptions po;
  po.lockedJoints = {crank.getParentJoint()};
  const ClosureProjectionResult result = world.projectClosures(po);
  if (!result.success) throw TopologyError("the test mechanism did not assemble: " + result.message);
}

// An arm with every exported actuator and sensor type, and two that are not.
void buildActuatedArm(World& world) {
  auto arm = world.addMultibody("arm");
  auto upper = arm.addLink(
      {"upper", Inertia::box(2.0, Vector3d(0.4, 0.05, 0.05))},
      JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(0, 0, 1)).named("shoulder"));
  CollisionShapeOptions box;
  box.name = "upper_box";
  box.geometry = Geometry::box(Vector3d(0.4, 0.05, 0.05));
  box.pose = test::translation(0.2, 0, 0);
  upper.addCollisionShape(box);
  auto fore = arm.addLink(
      {"fore", Inertia::box(1.0, Vector3d(0.3, 0.04, 0.04))}, upper,
      JointSpec::prismatic(Vector3d::UnitX()).withParentOffset(test::translation(0.4, 0, 0)).named("elbow"));
  auto hand = arm.addLink({"hand", Inertia::sphere(0.5, 0.05)}, fore,
                          JointSpec::ball().withParentOffset(test::translation(0.3, 0, 0)).named("wrist"));
  arm.addLink({"tool", Inertia::box(0.2, Vector3d(0.1, 0.02, 0.02))}, hand,
              JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitY())
                  .withParentOffset(test::translation(0.05, 0, 0))
                  .named("tool_joint"));
  ActuatorSpec motor;
  motor.name = "motor";
  motor.joint = "arm/shoulder";
  motor.gear = 2.0;
  motor.controlMin = -1.0;
  motor.controlMax = 1.0;
  motor.forceMin = -3.0;
  motor.forceMax = 1.5;
  world.addActuator(motor);
  ActuatorSpec pos;
  pos.name = "position";
  pos.joint = "arm/elbow";
  pos.type = ActuatorType::PositionServo;
  pos.kp = 100.0;
  pos.kd = 0.0;
  world.addActuator(pos);
  ActuatorSpec pd;
  pd.name = "pd";
  pd.joint = "arm/shoulder";
  pd.type = ActuatorType::PositionServo;
  pd.kp = 40.0;
  pd.kd = 3.0;
  pd.forceMin = -20.0;
  pd.forceMax = 20.0;
  world.addActuator(pd);
  ActuatorSpec vel;
  vel.name = "velocity";
  vel.joint = "arm/wrist";
  vel.coordinate = 1;
  vel.type = ActuatorType::VelocityServo;
  vel.kv = 3.0;
  world.addActuator(vel);
  ActuatorSpec dc;
  dc.name = "dc";
  dc.joint = "arm/tool_joint";
  dc.coordinate = 0;
  dc.type = ActuatorType::DcMotor;
  dc.gear = 5.0;
  dc.stallTorque = 0.4;
  dc.noLoadSpeed = 30.0;
  dc.controlMin = -1.0;
  dc.controlMax = 1.0;
  dc.forceMin = -1.5;
  dc.forceMax = 1.5;
  world.addActuator(dc);
  ActuatorSpec pid;
  pid.name = "pid";
  pid.joint = "arm/tool_joint";
  pid.coordinate = 1;
  pid.type = ActuatorType::Pid;
  pid.kp = 10.0;
  pid.kd = 1.0;
  pid.ki = 0.5;
  world.addActuator(pid);
  ActuatorSpec lock;
  lock.name = "lock";
  lock.joint = "arm/elbow";
  lock.type = ActuatorType::Lock;
  world.addActuator(lock);
  ActuatorSpec hold;  // default gains: critically damped at 10 Hz (docs/actuators.md)
  hold.name = "hold";
  hold.joint = "arm/shoulder";
  hold.type = ActuatorType::PositionServo;
  world.addActuator(hold);
  upper.getParentJoint().setPosition(0, 0.2);
  fore.getParentJoint().setPosition(0, 0.05);

  SensorSpec imu;
  imu.name = "imu";
  imu.type = SensorType::Imu;
  imu.frame = "arm/fore";
  imu.pose = offset(Vector3d(0.1, 0.01, 0.02), 0.4, Vector3d(1, 1, 0));
  world.addSensor(imu);
  SensorSpec ft;
  ft.name = "ft";
  ft.type = SensorType::ForceTorque;
  ft.joint = "arm/elbow";
  ft.pose = offset(Vector3d(0.0, 0.02, 0.0), 0.3, Vector3d(0, 0, 1));
  world.addSensor(ft);
  SensorSpec touch;
  touch.name = "touch";
  touch.type = SensorType::Contact;
  touch.frame = "arm/upper";
  world.addSensor(touch);
  SensorSpec enc;
  enc.name = "tool_encoder";
  enc.type = SensorType::JointEncoder;
  enc.joint = "arm/tool_joint";
  world.addSensor(enc);
  SensorSpec ball;
  ball.name = "wrist_encoder";
  ball.type = SensorType::JointEncoder;
  ball.joint = "arm/wrist";
  world.addSensor(ball);
  SensorSpec range;
  range.name = "range";
  range.type = SensorType::Rangefinder;
  range.frame = "arm/upper";
  range.pose = offset(Vector3d(0.4, 0, 0), 0.6, Vector3d(0, 1, 1));
  range.maxRange = 5.0;
  world.addSensor(range);
  ViewpointSpec view;
  view.name = "side";
  view.eye = Vector3d(0.5, -2.0, 1.5);
  view.center = Vector3d(0.3, 0.0, 1.0);
  view.fovYDegrees = 35.0;
  world.setViewpoint(view);
}

// Overlapping spheres on every body, above a ground they all touch: a
// multibody without self-collision, one with, two rigid bodies, explicit
// settings both ways and a loop closure, whose endpoint bodies do not collide.
void buildOverlappingBodies(World& world) {
  world.addGroundPlane();
  const auto sphere = [](auto body, const std::string& name) {
    CollisionShapeOptions o;
    o.name = name;
    o.geometry = Geometry::sphere(0.3);
    body.addCollisionShape(o);
  };
  std::vector<Link> links;
  for (const char* name : {"a", "b"}) {
    auto mb = world.addMultibody(name);
    mb.setSelfCollision(std::string(name) == "b");
    Link parent;
    for (int i = 0; i < 3; ++i) {
      const std::string link = std::string(name) + std::to_string(i);
      const JointSpec js = JointSpec::revolute(Vector3d::UnitZ())
                               .withParentOffset(i == 0 ? test::translation(0, name[0] == 'a' ? 0.0 : 0.05, 0.2)
                                                        : test::translation(0.04, 0, 0))
                               .named(link + "_joint");
      parent = i == 0 ? mb.addLink({link, Inertia::sphere(1.0, 0.3)}, js)
                      : mb.addLink({link, Inertia::sphere(1.0, 0.3)}, parent, js);
      sphere(parent, link + "_sphere");
      links.push_back(parent);
    }
  }
  // A weld in the self-colliding multibody: MuJoCo merges b3 into b1.
  auto b = *world.getMultibody("b");
  auto b3 = b.addLink({"b3", Inertia::sphere(1.0, 0.3)}, links[4], JointSpec::weld(test::translation(0, 0.03, 0)));
  sphere(b3, "b3_sphere");
  auto b4 = b.addLink({"b4", Inertia::sphere(1.0, 0.3)}, b3,
                      JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(test::translation(0, 0.03, 0)));
  sphere(b4, "b4_sphere");
  std::vector<RigidBody> rigid;
  for (int i = 0; i < 2; ++i) {
    RigidBodyOptions o;
    o.inertia = Inertia::sphere(1.0, 0.3);
    o.pose = test::translation(0.05 * i, 0.1, 0.2);
    rigid.push_back(world.addRigidBody("r" + std::to_string(i), o));
    sphere(rigid.back(), "r" + std::to_string(i) + "_sphere");
  }
  world.setCollisionEnabled(rigid[0], Frame::World(), false);
  world.setCollisionEnabled(links[0], links[2], true);  // same multibody, no self-collision
  world.setCollisionEnabled(links[3], links[4], true);  // parent and child
  world.setCollisionEnabled(links[1], links[4], false);
  LoopClosureSpec tie;
  tie.frameA = rigid[1];
  tie.frameB = links[5];
  tie.family = LoopClosureFamily::Point;
  tie.offsetA = test::translation(0.0, -0.1, 0.0);
  tie.offsetB = test::translation(-0.1, 0.0, 0.0);
  world.addLoopClosure("tie", tie);
}

}  // namespace

class TestMjcfExport : public QObject {
  Q_OBJECT

 private slots:
  void sharedModelsArePresent() {
    ARTICULA_REQUIRE_MODEL(kModels / "example-robot-data");
    QVERIFY2(sharedRobots().size() >= 15,
             qPrintable("expected the example-robot-data URDFs under " + QString::fromStdString(kModels.string())));
  }

  void mujocoAgrees_data() {
    QTest::addColumn<QString>("row");
    for (const auto& s : scenes::builtinScenes()) {
      const std::string name = s.name == "chain-N" ? "chain-25" : s.name;
      QTest::addRow("builtin %s", name.c_str()) << ("builtin:" + QString::fromStdString(name));
    }
    for (const auto& e : fs::directory_iterator(kSource / "scenes")) {
      if (e.path().extension() != ".articula") continue;
      const std::string name = e.path().filename().string();
      QTest::addRow("scene %s", name.c_str()) << ("scene:" + QString::fromStdString(name));
    }
    for (const fs::path& p : sharedRobots()) {
      const std::string name = p.filename().string();
      QTest::addRow("robot %s", name.c_str()) << ("robot:" + QString::fromStdString(p.string()));
      QTest::addRow("floating %s", name.c_str()) << ("floating:" + QString::fromStdString(p.string()));
    }
    for (int seed : {1, 2, 3, 4, 5, 6})
      QTest::addRow("every joint type, seed %d", seed) << QString("tree:%1").arg(seed);
    QTest::addRow("massless, point-mass and slender links") << QString("special:degenerate");
  }

  void mujocoAgrees() {
    QFETCH(QString, row);
    if (row.startsWith("robot:") || row.startsWith("floating:")) ARTICULA_REQUIRE_MODEL(row.section(':', 1));
    World world;
    try {
      build(world, row);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("could not build the world: %1").arg(e.what())));
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // ARTICULA_TEST_VERBOSE=1: keep the written files and print the report.
    const bool verbose = qEnvironmentVariableIsSet("ARTICULA_TEST_VERBOSE");
    if (verbose) dir.setAutoRemove(false);
    const fs::path folder = dir.path().toStdString();
    const WorldSpec spec = world.getSpec();
    io::ExportReport report;
    io::ExportOptions options;
    options.meshBase = folder;
    const std::string text = io::toMjcf(spec, report, options);
    QCOMPARE(QString::fromStdString(report.format), QString("mjcf"));
    writeText(folder / "model.xml", text);
    QString error;
    const ModelPtr m = loadMjcf(folder / "model.xml", error);
    QVERIFY2(m, qPrintable(error));
    // The same world through exportFile: the same model.
    const io::ExportReport fileReport = io::exportFile(world, folder / "exported.xml");
    QCOMPARE(fileReport.notExported.size(), report.notExported.size());
    const ModelPtr m2 = loadMjcf(folder / "exported.xml", error);
    QVERIFY2(m2, qPrintable(error));
    QCOMPARE(m2->nq, m->nq);
    QCOMPARE(m2->nv, m->nv);
    QCOMPARE(m2->nbody, m->nbody);
    QCOMPARE(m2->ngeom, m->ngeom);
    // Without a mesh base, mesh files are referred to by absolute paths: the
    // file loads from any folder.
    io::ExportReport absoluteReport;
    fs::create_directories(folder / "elsewhere");
    writeText(folder / "elsewhere" / "absolute.xml", io::toMjcf(spec, absoluteReport));
    const ModelPtr m3 = loadMjcf(folder / "elsewhere" / "absolute.xml", error);
    QVERIFY2(m3, qPrintable(error));
    QCOMPARE(m3->nmesh, m->nmesh);

    Layout layout;
    QVERIFY2(buildLayout(world, m.get(), layout, error), qPrintable(error));
    m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT | mjDSBL_PASSIVE | mjDSBL_ACTUATION;
    const DataPtr d(mj_makeData(m.get()));

    // The first keyframe is the initial state: MuJoCo's body poses there are our frames.
    QVERIFY(m->nkey >= 1);
    QCOMPARE(QString(mj_id2name(m.get(), mjOBJ_KEY, 0)), QString("initial"));
    mj_resetDataKeyframe(m.get(), d.get(), 0);
    mj_kinematics(m.get(), d.get());
    for (const Segment& s : layout.segments) {
      const Isometry3d X = segmentFrameWorld(s);
      const Vector3d p(d->xpos[3 * s.body], d->xpos[3 * s.body + 1], d->xpos[3 * s.body + 2]);
      QVERIFY2((p - X.translation()).norm() <= 1e-9 * (1.0 + X.translation().norm()),
               qPrintable(QString("initial pose of body %1 differs by %2 m")
                              .arg(mj_id2name(m.get(), mjOBJ_BODY, s.body))
                              .arg((p - X.translation()).norm())));
    }

    std::mt19937 rng(static_cast<std::uint32_t>(qHash(row)));
    Comparison worst;
    for (int k = 0; k < 5; ++k) {
      QVERIFY2(compareDynamics(world, layout, m.get(), d.get(), rng, worst, error), qPrintable(error));
    }
    if (verbose) qInfo("%s\n%s", folder.c_str(), report.toText().c_str());
    qInfo("%s: nv %d (MuJoCo %d), |Δv̇|/|v̇| %.3g, |ΔM|/|M| %.3g, |Δpose| %.3g; %s", qPrintable(row), layout.nv, m->nv,
          worst.acceleration, worst.massMatrix, worst.pose, report.summary().c_str());
    QVERIFY2(worst.pose <= 1e-9, qPrintable(QString("body poses differ by %1").arg(worst.pose)));
    QVERIFY2(worst.massMatrix <= 1e-10, qPrintable(QString("mass matrices differ by %1").arg(worst.massMatrix)));
    QVERIFY2(worst.acceleration <= 1e-8, qPrintable(QString("accelerations differ by %1 (ours / MuJoCo's):%2")
                                                        .arg(worst.acceleration)
                                                        .arg(QString::fromStdString(worst.detail))));
  }

  // A mechanism closed by a Point and a Rigid closure with a coupler: the
  // equality constraints are there and hold wherever the mechanism is assembled.
  void closuresAreEqualities_data() {
    QTest::addColumn<QString>("row");
    QTest::addRow("point, rigid and coupler") << "mechanism";
    QTest::addRow("builtin slider-crank") << "builtin:slider-crank";
    QTest::addRow("builtin four-bar (hinge)") << "builtin:four-bar";
    QTest::addRow("builtin gear-pair") << "builtin:gear-pair";
  }

  void closuresAreEqualities() {
    QFETCH(QString, row);
    World world;
    if (row == "mechanism") {
      buildClosedMechanism(world);
    } else {
      build(world, row);
    }
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "closures.xml";
    io::ExportReport report = io::exportFile(world, file);
    QString error;
    const ModelPtr m = loadMjcf(file, error);
    QVERIFY2(m, qPrintable(error));
    int connects = 0;
    int welds = 0;
    int joints = 0;
    for (int i = 0; i < m->neq; ++i) {
      if (m->eq_type[i] == mjEQ_CONNECT) ++connects;
      if (m->eq_type[i] == mjEQ_WELD) ++welds;
      if (m->eq_type[i] == mjEQ_JOINT) ++joints;
    }
    int expectedConnects = 0;
    int expectedWelds = 0;
    for (const LoopClosure& c : world.getLoopClosures()) {
      if (c.family() == LoopClosureFamily::Point) expectedConnects += 1;
      if (c.family() == LoopClosureFamily::Hinge) expectedConnects += 2;
      if (c.family() == LoopClosureFamily::Rigid) expectedWelds += 1;
    }
    QCOMPARE(connects, expectedConnects);
    QCOMPARE(welds, expectedWelds);
    QCOMPARE(joints, static_cast<int>(world.numJointCouplers()));
    QCOMPARE(m->neq, connects + welds + joints);
    QVERIFY(m->neq > 0);
    const DataPtr d(mj_makeData(m.get()));
    Layout layout;
    QVERIFY2(buildLayout(world, m.get(), layout, error), qPrintable(error));
    // At the initial (assembled) state, zero velocities, constraints enabled.
    mj_resetDataKeyframe(m.get(), d.get(), 0);
    mju_zero(d->qvel, m->nv);
    int rows = 0;
    double residual = equalityResidual(m.get(), d.get(), rows);
    QCOMPARE(rows, 3 * connects + 6 * welds + joints);
    QVERIFY2(residual <= 1e-9, qPrintable(QString("equality residual %1 at the initial state").arg(residual)));
    // Elsewhere: move the first joint, assemble again, map the state over.
    std::vector<Joint> all;
    for (const Multibody& mb : world.getMultibodies()) {
      for (const Joint& j : mb.getJoints()) all.push_back(j);
    }
    Joint first = all.front();
    for (const double angle : {1.3, -2.0}) {
      first.setPosition(0, angle);
      ClosureProjectionOptions po;
      po.lockedJoints = {first};
      const ClosureProjectionResult result = world.projectClosures(po);
      QVERIFY2(result.success, result.message.c_str());
      mj_resetData(m.get(), d.get());
      setQpos(layout, m.get(), d.get());
      residual = equalityResidual(m.get(), d.get(), rows);
      QVERIFY2(residual <= 1e-9, qPrintable(QString("equality residual %1 at crank %2").arg(residual).arg(angle)));
      // An open loop is seen: the check can fail.
      first.setPosition(0, angle + 0.1);
      setQpos(layout, m.get(), d.get());
      QVERIFY(equalityResidual(m.get(), d.get(), rows) > 1e-4);
    }
  }

  // MuJoCo holds damping, armature and friction per joint: a ball whose
  // DoFs differ is reported, and the joint keeps none of it.
  void armatureOfBallJoints() {
    World world;
    auto mb = world.addMultibody("top");
    JointSpec ball = JointSpec::ball().named("pivot");
    ball.armature = Eigen::Vector3d(0.1, 0.2, 0.3);
    ball.damping = Eigen::Vector3d(0.5, 0.5, 0.5);
    mb.addLink({"disc", Inertia::cylinder(1.0, 0.1, 0.02)}, ball);
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "ball.xml";
    const io::ExportReport report = io::exportFile(world, file);
    QVERIFY(reportHas(report.notExported, "joint 'top/pivot'"));
    QString error;
    const ModelPtr m = loadMjcf(file, error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->dof_armature[0], 0.0);
    for (int k = 0; k < 3; ++k) QCOMPARE(m->dof_damping[k], 0.5);
  }

  // Closures MuJoCo 2.2.2's equalities cannot hold are reported, not written.
  void unsupportedClosures() {
    World world;
    auto mb = world.addMultibody("chain");
    auto l0 = mb.addLink({"l0", Inertia::box(1.0, Vector3d(0.1, 0.1, 0.1))},
                         JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(0, 0, 1)));
    auto l1 = mb.addLink({"l1", Inertia::box(1.0, Vector3d(0.1, 0.1, 0.1))}, l0,
                         JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(0.3, 0, 0)));
    const std::pair<const char*, LoopClosureFamily> closures[] = {{"slider", LoopClosureFamily::Slider},
                                                                  {"universal", LoopClosureFamily::Universal},
                                                                  {"distance", LoopClosureFamily::Distance}};
    for (const auto& [name, family] : closures) {
      LoopClosureSpec c;
      c.frameA = Frame::World();
      c.offsetA = test::translation(0.6, 0, 1);
      c.frameB = l1;
      c.offsetB = test::translation(0.3, 0, 0);
      c.family = family;
      c.length = 0.1;
      world.addLoopClosure(name, c);
    }
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "open.xml";
    const io::ExportReport report = io::exportFile(world, file);
    for (const auto& [name, family] : closures) {
      QVERIFY2(reportHas(report.notExported, std::string("closure '") + name + "'"), name);
    }
    QString error;
    const ModelPtr m = loadMjcf(file, error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->neq, 0);
  }

  void actuatorsAndSensors() {
    World world;
    buildActuatedArm(world);
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "arm.xml";
    const io::ExportReport report = io::exportFile(world, file);
    QString error;
    const ModelPtr m = loadMjcf(file, error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(reportHas(report.notExported, "actuator 'pid'"));
    QVERIFY(reportHas(report.notExported, "actuator 'lock'"));
    QCOMPARE(m->nu, 6);
    const auto actuator = [&](const char* name) {
      const int id = mj_name2id(m.get(), mjOBJ_ACTUATOR, name);
      if (id < 0) QTest::qFail(qPrintable(QString("no actuator '%1'").arg(name)), __FILE__, __LINE__);
      return id;
    };
    const auto jointOf = [&](int a) { return QString(mj_id2name(m.get(), mjOBJ_JOINT, m->actuator_trnid[2 * a])); };
    const int motor = actuator("motor");
    const int pos = actuator("position");
    const int pd = actuator("pd");
    const int vel = actuator("velocity");
    const int dc = actuator("dc");
    const int hold = actuator("hold");
    QVERIFY(motor >= 0 && pos >= 0 && pd >= 0 && vel >= 0 && dc >= 0 && hold >= 0);
    // The default gains Articula resolves at the initial configuration: M_ii ω², 2 M_ii ω.
    const double w = 2.0 * test::kPi * 10.0;
    const double Mii = world.getMultibody("arm")->getMassMatrix()(0, 0);
    const double kpHold = Mii * w * w;
    const double kdHold = 2.0 * Mii * w;
    QVERIFY(std::abs(m->actuator_gainprm[mjNGAIN * hold] - kpHold) <= 1e-12 * kpHold);
    QVERIFY(std::abs(m->actuator_biasprm[mjNBIAS * hold + 2] + kdHold) <= 1e-12 * kdHold);
    // The initial controls: position targets hold the initial coordinates.
    QCOMPARE(m->key_ctrl[pos], 0.05);
    QCOMPARE(m->key_ctrl[pd], 0.2);
    QCOMPARE(m->key_ctrl[hold], 0.2);
    QCOMPARE(m->key_ctrl[motor], 0.0);
    for (int a : {motor, pos, pd, vel, dc}) QCOMPARE(m->actuator_trntype[a], static_cast<int>(mjTRN_JOINT));
    QCOMPARE(jointOf(motor), QString("shoulder"));
    QCOMPARE(jointOf(pos), QString("elbow"));
    QCOMPARE(jointOf(vel), QString("wrist"));
    QCOMPARE(jointOf(dc), QString("tool_joint:0"));
    QCOMPARE(m->actuator_gear[6 * motor], 2.0);
    QCOMPARE(m->actuator_ctrllimited[motor], 1);
    QCOMPARE(m->actuator_ctrlrange[2 * motor], -1.0);
    QCOMPARE(m->actuator_ctrlrange[2 * motor + 1], 1.0);
    QCOMPARE(m->actuator_forcelimited[motor], 1);
    QCOMPARE(m->actuator_forcerange[2 * motor], -1.5);  // −3 N·m at the joint through gear 2
    QCOMPARE(m->actuator_forcerange[2 * motor + 1], 0.75);
    QCOMPARE(m->actuator_gear[6 * vel], 0.0);  // the ball's second coordinate
    QCOMPARE(m->actuator_gear[6 * vel + 1], 1.0);
    QCOMPARE(m->actuator_gear[6 * dc], 5.0);
    QCOMPARE(m->actuator_gainprm[mjNGAIN * pos], 100.0);
    QCOMPARE(m->actuator_biasprm[mjNBIAS * pos + 1], -100.0);
    QCOMPARE(m->actuator_biasprm[mjNBIAS * pd + 1], -40.0);
    QCOMPARE(m->actuator_biasprm[mjNBIAS * pd + 2], -3.0);
    QCOMPARE(m->actuator_biasprm[mjNBIAS * vel + 2], -3.0);

    // The forces MuJoCo applies are the actuator laws of articula/actuator.hpp.
    Layout layout;
    QVERIFY2(buildLayout(world, m.get(), layout, error), qPrintable(error));
    const DataPtr d(mj_makeData(m.get()));
    m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT | mjDSBL_PASSIVE;
    std::mt19937 rng(7);
    for (int trial = 0; trial < 5; ++trial) {
      randomState(world, rng);
      const VectorXd v = ourVelocities(layout);
      MatrixXd T;
      VectorXd c;
      velocityMap(layout, m.get(), T, c, v);
      mj_resetData(m.get(), d.get());
      setQpos(layout, m.get(), d.get());
      Eigen::Map<VectorXd>(d->qvel, m->nv) = T * v;
      const VectorXd u = test::randomVectorX(rng, m->nu, -1.5, 1.5);
      Eigen::Map<VectorXd>(d->ctrl, m->nu) = u;
      mj_forward(m.get(), d.get());
      const Multibody arm = *world.getMultibody("arm");
      const double qs = arm.getJoint("shoulder")->getPosition(0);
      const double vs = arm.getJoint("shoulder")->getVelocity(0);
      const double qe = arm.getJoint("elbow")->getPosition(0);
      const double vw = arm.getJoint("wrist")->getVelocity(1);
      const double vt = arm.getJoint("tool_joint")->getVelocity(0);
      const auto clampU = [](double x, double lo, double hi) { return std::min(hi, std::max(lo, x)); };
      const double expected[] = {
          clampU(2.0 * clampU(u[motor], -1, 1), -3.0, 1.5),
          100.0 * (u[pos] - qe),
          clampU(40.0 * (u[pd] - qs) - 3.0 * vs, -20.0, 20.0),
          3.0 * (u[vel] - vw),
          clampU(5.0 * 0.4 * (clampU(u[dc], -1, 1) - 5.0 * vt / 30.0), -1.5, 1.5),
          kpHold * (u[hold] - qs) - kdHold * vs,
      };
      const int ids[] = {motor, pos, pd, vel, dc, hold};
      for (int k = 0; k < 6; ++k) {
        const int a = ids[k];
        const double gear = a == vel ? 1.0 : m->actuator_gear[6 * a];
        const double applied = gear * d->actuator_force[a];
        QVERIFY2(std::abs(applied - expected[k]) <= 1e-12 * (1.0 + std::abs(expected[k])),
                 qPrintable(QString("actuator %1: MuJoCo applies %2, expected %3")
                                .arg(mj_id2name(m.get(), mjOBJ_ACTUATOR, a))
                                .arg(applied)
                                .arg(expected[k])));
      }
    }

    // Sensors: types, and the site frames are the sensor frames.
    const std::vector<int> types = {mjSENS_ACCELEROMETER, mjSENS_GYRO,     mjSENS_FORCE,      mjSENS_TORQUE,
                                    mjSENS_TOUCH,         mjSENS_JOINTPOS, mjSENS_JOINTPOS,   mjSENS_JOINTVEL,
                                    mjSENS_JOINTVEL,      mjSENS_BALLQUAT, mjSENS_BALLANGVEL, mjSENS_RANGEFINDER};
    QCOMPARE(m->nsensor, static_cast<int>(types.size()));
    for (int i = 0; i < m->nsensor; ++i) QCOMPARE(m->sensor_type[i], types[static_cast<std::size_t>(i)]);
    mj_kinematics(m.get(), d.get());
    const auto site = [&](const char* name) {
      const int id = mj_name2id(m.get(), mjOBJ_SITE, name);
      Isometry3d X = Isometry3d::Identity();
      if (id < 0) return X;
      X.translation() = Vector3d(d->site_xpos[3 * id], d->site_xpos[3 * id + 1], d->site_xpos[3 * id + 2]);
      X.linear() = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->site_xmat + 9 * id);
      return X;
    };
    const Multibody arm = *world.getMultibody("arm");
    const Isometry3d imu = arm.getLink("fore")->getWorldTransform() * world.getSensor("imu")->getSpec().pose;
    QVERIFY((site("imu").matrix() - imu.matrix()).norm() < 1e-12);
    const Isometry3d ft = jointFrameWorld(*arm.getJoint("elbow")) * world.getSensor("ft")->getSpec().pose;
    QVERIFY((site("ft").matrix() - ft.matrix()).norm() < 1e-12);
    const Isometry3d range = arm.getLink("upper")->getWorldTransform() * world.getSensor("range")->getSpec().pose;
    QVERIFY((site("range").translation() - range.translation()).norm() < 1e-12);
    QVERIFY((site("range").linear().col(2) - range.linear().col(0)).norm() < 1e-12);  // MuJoCo looks along +z
    QCOMPARE(m->sensor_cutoff[m->nsensor - 1], 5.0);

    // The viewpoint: a fixed camera at the eye looking along its −z at the centre.
    QCOMPARE(m->ncam, 1);
    QCOMPARE(m->cam_fovy[0], 35.0);
    const Vector3d eye(d->cam_xpos[0], d->cam_xpos[1], d->cam_xpos[2]);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> camera(d->cam_xmat);
    QVERIFY((eye - Vector3d(0.5, -2.0, 1.5)).norm() < 1e-12);
    const Vector3d look = (Vector3d(0.3, 0.0, 1.0) - eye).normalized();
    QVERIFY((-camera.col(2) - look).norm() < 1e-12);
    QVERIFY(camera.col(1).z() > 0.0);  // up is up
  }

  // Which bodies collide: MuJoCo's contacts between overlapping spheres are
  // the pairs Articula's filtering rules let collide.
  void collisionFiltering() {
    World world;
    buildOverlappingBodies(world);
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "contacts.xml";
    io::exportFile(world, file);
    QString error;
    const ModelPtr m = loadMjcf(file, error);
    QVERIFY2(m, qPrintable(error));
    Layout layout;
    QVERIFY2(buildLayout(world, m.get(), layout, error), qPrintable(error));
    std::map<int, std::string> frameOfBody{{0, "world"}};
    for (const Segment& s : layout.segments) {
      frameOfBody[s.body] = s.rigid ? s.rigid->name() : s.joint->getChildLink().name();
    }
    const auto key = [](std::string a, std::string b) {
      if (b < a) std::swap(a, b);
      return a + " | " + b;
    };
    std::set<std::string> ours;
    for (const Contact& c : world.checkCollisions()) ours.insert(key(c.frameA.name(), c.frameB.name()));
    const DataPtr d(mj_makeData(m.get()));
    mj_resetDataKeyframe(m.get(), d.get(), 0);
    mj_forward(m.get(), d.get());
    std::set<std::string> theirs;
    for (int i = 0; i < d->ncon; ++i) {
      theirs.insert(key(frameOfBody.at(m->geom_bodyid[d->contact[i].geom1]),
                        frameOfBody.at(m->geom_bodyid[d->contact[i].geom2])));
    }
    const auto text = [](const std::set<std::string>& pairs) {
      QStringList out;
      for (const std::string& p : pairs) out << QString::fromStdString(p);
      return out.join(", ");
    };
    QVERIFY(ours.size() >= 10);  // the scene overlaps as intended
    QVERIFY2(ours == theirs, qPrintable("Articula: " + text(ours) + "\nMuJoCo:   " + text(theirs)));
  }

  // Keyframes: MuJoCo's key k + 1 is our keyframe k, the same poses.
  void keyframes() {
    World world;
    io::loadScene(world, kSource / "scenes" / "keyframe_arm.articula");
    QVERIFY(!world.getKeyframes().empty());
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "keys.xml";
    io::exportFile(world, file);
    QString error;
    const ModelPtr m = loadMjcf(file, error);
    QVERIFY2(m, qPrintable(error));
    const std::vector<KeyframeSpec> keys = world.getKeyframes();
    QCOMPARE(m->nkey, static_cast<int>(keys.size()) + 1);
    Layout layout;
    QVERIFY2(buildLayout(world, m.get(), layout, error), qPrintable(error));
    const DataPtr d(mj_makeData(m.get()));
    for (std::size_t k = 0; k < keys.size(); ++k) {
      QCOMPARE(QString(mj_id2name(m.get(), mjOBJ_KEY, static_cast<int>(k) + 1)), QString::fromStdString(keys[k].name));
      QCOMPARE(m->key_time[k + 1], keys[k].time);
      world.applyKeyframe(keys[k].name);
      mj_resetDataKeyframe(m.get(), d.get(), static_cast<int>(k) + 1);
      mj_kinematics(m.get(), d.get());
      for (const Segment& s : layout.segments) {
        const Vector3d p(d->xpos[3 * s.body], d->xpos[3 * s.body + 1], d->xpos[3 * s.body + 2]);
        QVERIFY((p - segmentFrameWorld(s).translation()).norm() < 1e-12);
      }
      if (keys[k].controls.size() == m->nu) {
        for (int a = 0; a < m->nu; ++a) QCOMPARE(m->key_ctrl[(k + 1) * m->nu + a], keys[k].controls[a]);
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestMjcfExport)
#include "test_mjcf_export.moc"

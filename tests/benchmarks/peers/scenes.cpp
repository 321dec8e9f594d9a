#include "scenes.hpp"

#include <urdf_model/model.h>
#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>

namespace bench {

int Scene::numPositions() const {
  int n = 0;
  for (const auto& t : trees)
    for (const auto& b : t.bodies) n += b.joint == JointType::Free ? 7 : 1;
  return n;
}

int Scene::numDofs() const {
  int n = 0;
  for (const auto& t : trees)
    for (const auto& b : t.bodies) n += b.joint == JointType::Free ? 6 : 1;
  return n;
}

int Scene::numJointDofs() const {
  int n = 0;
  for (const auto& t : trees)
    for (const auto& b : t.bodies) n += b.joint == JointType::Free ? 0 : 1;
  return n;
}

namespace {

using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Vector3d;

Isometry3d translation(double x, double y, double z) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(x, y, z);
  return X;
}

Matrix3d boxInertia(double mass, const Vector3d& size) {
  const Vector3d s2 = size.cwiseProduct(size);
  return (mass / 12.0 * Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y())).asDiagonal();
}

Isometry3d toIsometry(const urdf::Pose& p) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(p.position.x, p.position.y, p.position.z);
  double w = 0.0;
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;
  p.rotation.getQuaternion(x, y, z, w);
  X.linear() = Eigen::Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  return X;
}

// Adds a rigid mass (mass, com and inertia about the com, all in frame F)
// placed at X_BF into body b.
void lump(Body& b, double mass, const Vector3d& comF, const Matrix3d& inertiaF, const Isometry3d& X_BF) {
  if (mass <= 0.0) return;
  const Vector3d c = X_BF * comF;
  const Matrix3d I = X_BF.linear() * inertiaF * X_BF.linear().transpose();
  const double total = b.mass + mass;
  const Vector3d newCom = (b.mass * b.com + mass * c) / total;
  auto shift = [](double m, const Vector3d& d) {
    return m * (d.squaredNorm() * Matrix3d::Identity() - d * d.transpose());
  };
  b.inertia = b.inertia + shift(b.mass, b.com - newCom) + I + shift(mass, c - newCom);
  b.mass = total;
  b.com = newCom;
}

struct UrdfTree {
  Tree tree;
  // Every URDF link: the body it was merged into and its pose there.
  std::map<std::string, std::pair<int, Isometry3d>> linkFrames;
};

// Reads a URDF into a tree: fixed joints are merged into their parent,
// revolute/continuous/prismatic joints become bodies.
UrdfTree readUrdf(const std::string& path, bool floatingBase, bool weldPrismatic = false) {
  if (!std::filesystem::exists(path)) throw std::runtime_error(path + ": file not found");
  const urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(path);
  if (!model) throw std::runtime_error(path + ": not a valid URDF");
  UrdfTree out;
  out.tree.name = model->getName();
  const urdf::LinkConstSharedPtr root = model->getRoot();

  auto addLinkMass = [](Body& b, const urdf::Link& link, const Isometry3d& X_BL) {
    if (!link.inertial) return;
    const auto& in = *link.inertial;
    Matrix3d I;
    I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    const Isometry3d X_LI = toIsometry(in.origin);
    lump(b, in.mass, X_LI.translation(), X_LI.linear() * I * X_LI.linear().transpose(), X_BL);
  };

  // body = -1: the link is welded to the world at X_BL (world frame).
  std::function<void(const urdf::Link&, int, const Isometry3d&)> visit = [&](const urdf::Link& link, int body,
                                                                             const Isometry3d& X_BL) {
    out.linkFrames[link.name] = {body, X_BL};
    if (body >= 0) addLinkMass(out.tree.bodies[static_cast<std::size_t>(body)], link, X_BL);
    for (const auto& childLink : link.child_links) {
      const urdf::JointConstSharedPtr joint = childLink->parent_joint;
      const Isometry3d X_LJ = toIsometry(joint->parent_to_joint_origin_transform);
      const bool welded = weldPrismatic && joint->type == urdf::Joint::PRISMATIC;
      switch (welded ? urdf::Joint::FIXED : joint->type) {
        case urdf::Joint::FIXED:
          visit(*childLink, body, X_BL * X_LJ);
          break;
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS:
        case urdf::Joint::PRISMATIC: {
          Body b;
          b.name = childLink->name;
          b.parent = body;
          b.joint = joint->type == urdf::Joint::PRISMATIC ? JointType::Prismatic : JointType::Revolute;
          b.jointPose = X_BL * X_LJ;
          b.axis = Vector3d(joint->axis.x, joint->axis.y, joint->axis.z).normalized();
          b.mass = 0.0;
          b.com.setZero();
          b.inertia.setZero();
          out.tree.bodies.push_back(b);
          visit(*childLink, static_cast<int>(out.tree.bodies.size()) - 1, Isometry3d::Identity());
          break;
        }
        default:
          throw std::runtime_error(path + ": joint '" + joint->name + "' has a type the benchmark does not model");
      }
    }
  };
  if (floatingBase) {
    Body base;
    base.name = root->name;
    base.parent = -1;
    base.joint = JointType::Free;
    base.mass = 0.0;
    base.com.setZero();
    base.inertia.setZero();
    out.tree.bodies.push_back(base);
    visit(*root, 0, Isometry3d::Identity());
  } else {
    visit(*root, -1, Isometry3d::Identity());
  }
  for (const auto& b : out.tree.bodies) {
    if (b.mass <= 0.0 || b.inertia.diagonal().minCoeff() <= 0.0)
      throw std::runtime_error(path + ": moving link '" + b.name + "' has no mass or inertia");
  }
  return out;
}

// Poses of every body of a tree at positions q (1-DoF joints in order;
// a free root is placed at X_root).
std::vector<Isometry3d> bodyPoses(const Tree& tree, const Eigen::VectorXd& jointQ, const Isometry3d& X_root) {
  std::vector<Isometry3d> X(tree.bodies.size());
  int k = 0;
  for (std::size_t i = 0; i < tree.bodies.size(); ++i) {
    const Body& b = tree.bodies[i];
    if (b.joint == JointType::Free) {
      X[i] = X_root;
      continue;
    }
    const double q = jointQ[k++];
    Isometry3d J = Isometry3d::Identity();
    if (b.joint == JointType::Revolute)
      J.linear() = Eigen::AngleAxisd(q, b.axis).toRotationMatrix();
    else
      J.translation() = q * b.axis;
    const Isometry3d parent = b.parent < 0 ? Isometry3d::Identity() : X[static_cast<std::size_t>(b.parent)];
    X[i] = parent * b.jointPose * J;
  }
  return X;
}

}  // namespace

std::string modelsDirectory() {
  if (const char* env = std::getenv("ARTICULA_MODELS_DIR")) return env;
  return ARTICULA_MODELS_DIR;
}

Scene makeSerialChain(int links) {
  Scene s;
  s.name = "chain-";
  s.name += std::to_string(links);
  s.kind = SceneKind::ContactFree;
  Tree t;
  t.name = "chain";
  for (int i = 0; i < links; ++i) {
    Body b;
    b.name = "l" + std::to_string(i);
    b.parent = i - 1;
    b.joint = JointType::Revolute;
    b.jointPose = translation(0, 0, i == 0 ? 0.0 : -0.1);
    b.axis = i % 3 == 2 ? Vector3d::UnitX() : Vector3d::UnitY();
    b.mass = 1.0;
    b.com = Vector3d(0, 0, -0.05);
    b.inertia = boxInertia(1.0, Vector3d(0.03, 0.03, 0.1));
    t.bodies.push_back(b);
  }
  s.trees.push_back(t);
  s.q0.resize(links);
  for (int i = 0; i < links; ++i) s.q0[i] = 0.1 * std::sin(1.0 + i);
  s.v0 = Eigen::VectorXd::Zero(links);
  return s;
}

Scene makeFixedBaseRobot(const std::string& name, const std::string& urdfPath) {
  Scene s;
  s.name = name;
  s.kind = SceneKind::ContactFree;
  s.trees.push_back(readUrdf(urdfPath, false, true).tree);
  const int n = s.numDofs();
  s.q0.resize(n);
  for (int i = 0; i < n; ++i) s.q0[i] = 0.1 * std::sin(1.0 + i);
  s.v0 = Eigen::VectorXd::Zero(n);
  return s;
}

namespace {

// A cube of side `size` (m) and `mass` (kg) on a free joint.
Tree freeBox(const std::string& name, double size, double mass = 1.0) {
  Tree t;
  t.name = name;
  Body b;
  b.name = name;
  b.joint = JointType::Free;
  b.mass = mass;
  b.inertia = boxInertia(mass, Vector3d::Constant(size));
  b.geoms.push_back(Geom{GeomType::Box, Vector3d::Constant(size), Isometry3d::Identity()});
  t.bodies.push_back(b);
  return t;
}

void appendFree(Scene& s, const Isometry3d& X) {
  const auto n = s.q0.size();
  s.q0.conservativeResize(n + 7);
  s.v0.conservativeResize(s.v0.size() + 6);
  const Eigen::Quaterniond r(X.linear());
  s.q0.segment<3>(n) = X.translation();
  s.q0.segment<4>(n + 3) << r.w(), r.x(), r.y(), r.z();
  s.v0.tail<6>().setZero();
}

}  // namespace

Scene makeBoxStack(int count) {
  Scene s;
  s.name = "box-stack-" + std::to_string(count);
  s.kind = SceneKind::Contact;
  for (int i = 0; i < count; ++i) {
    s.trees.push_back(freeBox("box" + std::to_string(i), 0.2));
    appendFree(s, translation(0, 0, 0.1 + 0.2 * i));
  }
  return s;
}

Scene makeMassRatioStack(double ratio) {
  if (!(ratio > 0.0))
    throw std::invalid_argument("makeMassRatioStack: the mass ratio must be positive (got " + std::to_string(ratio) +
                                ")");
  std::ostringstream name;
  name << "mass-ratio-" << ratio;
  Scene s;
  s.name = name.str();
  s.kind = SceneKind::Contact;
  s.trees.push_back(freeBox("light", 0.2, 1.0));
  appendFree(s, translation(0, 0, 0.1));
  s.trees.push_back(freeBox("heavy", 0.2, ratio));
  appendFree(s, translation(0, 0, 0.3));
  return s;
}

Scene makeBoxPile(int count) {
  Scene s;
  s.name = "box-pile-" + std::to_string(count);
  s.kind = SceneKind::Contact;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(-0.02, 0.02);
  std::normal_distribution<double> normal;
  // A lattice 10 × 10 per layer, 0.36 m apart: more than a 0.2 m cube's
  // diagonal (0.346 m), so no two boxes overlap whatever their orientation.
  for (int k = 0; k < count; ++k) {
    const int x = k % 10;
    const int y = (k / 10) % 10;
    const int z = k / 100;
    Eigen::Quaterniond r(normal(rng), normal(rng), normal(rng), normal(rng));
    Isometry3d X = Isometry3d::Identity();
    X.linear() = r.normalized().toRotationMatrix();
    X.translation() = Vector3d(0.36 * (x - 4.5) + jitter(rng), 0.36 * (y - 4.5) + jitter(rng), 0.2 + 0.36 * z);
    s.trees.push_back(freeBox("box" + std::to_string(k), 0.2));
    appendFree(s, X);
  }
  return s;
}

Scene makeQuadruped(const std::string& urdfPath) {
  Scene s;
  s.name = "quadruped";
  s.kind = SceneKind::Contact;
  UrdfTree robot = readUrdf(urdfPath, true);
  const double radius = 0.016;
  std::vector<std::pair<int, Vector3d>> feet;
  for (const char* leg : {"FL", "FR", "HL", "HR"}) {
    const auto it = robot.linkFrames.find(std::string(leg) + "_FOOT");
    if (it == robot.linkFrames.end()) throw std::runtime_error(urdfPath + ": no link " + leg + "_FOOT");
    const auto& [body, X] = it->second;
    Isometry3d pose = Isometry3d::Identity();
    pose.translation() = X.translation();
    robot.tree.bodies[static_cast<std::size_t>(body)].geoms.push_back(
        Geom{GeomType::Sphere, Vector3d(radius, 0, 0), pose});
    feet.emplace_back(body, X.translation());
  }
  s.trees.push_back(robot.tree);
  const int nj = s.numJointDofs();
  if (nj != 12) throw std::runtime_error(urdfPath + ": expected 12 leg joints, found " + std::to_string(nj));
  // Knees bent inwards (front legs forward, hind legs backward), legs under the hips.
  PdControl pd;
  pd.qref.resize(12);
  pd.qref << 0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6;
  pd.kp = 6.0;
  pd.kd = 0.03;
  s.pd = pd;
  // Trunk height that puts the lowest foot sphere on the ground.
  const auto X = bodyPoses(s.trees[0], pd.qref, Isometry3d::Identity());
  double lowest = 0.0;
  for (const auto& [body, p] : feet) lowest = std::min(lowest, (X[static_cast<std::size_t>(body)] * p).z());
  s.q0 = Eigen::VectorXd::Zero(19);
  s.q0[2] = radius - lowest;
  s.q0[3] = 1.0;  // quaternion w
  s.q0.tail<12>() = pd.qref;
  s.v0 = Eigen::VectorXd::Zero(18);
  return s;
}

Scene makeFourBars(int count) {
  Scene s;
  s.name = count == 1 ? "four-bar" : "four-bars-" + std::to_string(count);
  s.kind = SceneKind::ClosedChain;
  const double a = 0.1;   // crank
  const double b = 0.35;  // coupler
  const double c = 0.3;   // rocker
  const double d = 0.4;   // ground pivots apart along x
  auto bar = [](const std::string& name, int parent, const Isometry3d& X, double mass, double length) {
    Body body;
    body.name = name;
    body.parent = parent;
    body.joint = JointType::Revolute;
    body.jointPose = X;
    body.axis = Vector3d::UnitY();
    body.mass = mass;
    body.com = Vector3d(0.5 * length, 0, 0);
    body.inertia = boxInertia(mass, Vector3d(length, 0.02, 0.02));
    return body;
  };
  // The assembled angles for a crank at 1 rad (angles φ in the x–z plane,
  // counter-clockwise from x; a joint angle about +y is −Δφ).
  const double phi2 = 1.0;
  const Eigen::Vector2d A(a * std::cos(phi2), a * std::sin(phi2));
  const Eigen::Vector2d O4(d, 0.0);
  const Eigen::Vector2d f = A - O4;
  const double gamma = std::acos((c * c + f.squaredNorm() - b * b) / (2.0 * c * f.norm()));
  const double phi4 = std::atan2(f.y(), f.x()) + gamma;
  const Eigen::Vector2d B = O4 + c * Eigen::Vector2d(std::cos(phi4), std::sin(phi4));
  const double phi3 = std::atan2(B.y() - A.y(), B.x() - A.x());
  const double rockerChain = phi4 + std::numbers::pi;
  const Eigen::Vector3d q(-phi2, -(phi3 - phi2), -(rockerChain - phi3));
  s.q0.resize(3 * count);
  s.v0 = Eigen::VectorXd::Zero(3 * count);
  for (int i = 0; i < count; ++i) {
    const Vector3d origin(0, 0.3 * i, 1.0);
    Tree t;
    t.name = "four_bar_" + std::to_string(i);
    t.bodies.push_back(bar("crank", -1, translation(origin.x(), origin.y(), origin.z()), 0.5, a));
    t.bodies.push_back(bar("coupler", 0, translation(a, 0, 0), 1.0, b));
    t.bodies.push_back(bar("rocker", 1, translation(b, 0, 0), 0.8, c));
    s.trees.push_back(t);
    Closure pin;
    pin.treeA = i;
    pin.bodyA = 2;
    pin.pointA = Vector3d(c, 0, 0);
    pin.treeB = -1;
    pin.bodyB = -1;
    pin.pointB = origin + Vector3d(d, 0, 0);
    s.closures.push_back(pin);
    s.q0.segment<3>(3 * i) = q;
  }
  return s;
}

}  // namespace bench

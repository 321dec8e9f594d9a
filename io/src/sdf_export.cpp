// SDF 1.9 writer (export.hpp): one <world> holding every multibody and rigid
// body as a <model>, in the form sdf_import.cpp reads back.
//
// - Link frames are the Articula link frames. Links are posed in the world
//   (the model frame is the world frame) at the file configuration: every
//   joint at zero, free roots at their initial pose, which is what SDF's
//   link poses mean. Each joint's pose is its frame in the child link (the
//   joint's childOffset), so sdf_import recovers both offsets.
// - A Free root has no joint: the model floats and sdf_import gives the
//   root a free joint with the link's pose as coordinates. A root joined to
//   the world by any other joint gets an SDF joint whose parent is "world".
// - Initial joint positions go to the world's <state> (the <angle>s of one-
//   and two-axis joints, which sdf_import applies before assembling loops).
// - Loop closures become joints marked must_be_loop_joint. SDF defines a
//   joint frame once, shared by both links at the file configuration, so a
//   closure is written only when its two endpoint frames meet there (up to
//   the motion the closure leaves free); the joint is placed at endpoint A.
// - Couplers become SDF 1.11 <mimic> elements in the follower's <axis>
//   (sdformat 12 keeps the unknown element; sdf_import reads it).
// - Bodies joined by a closure or coupler must be links of one model: their
//   multibodies and rigid bodies are written as one model (sdf_import makes
//   one multibody per tree of it) unless their names clash.
// - World shapes go in one static model.
#include "export_common.hpp"

#include <tinyxml2.h>

#include <Eigen/Geometry>

#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>
#include <optional>
#include <set>

namespace articula::io {

namespace {

using detail::anyFinite;
using detail::exportNumber;
using detail::exportNumbers;
using detail::freeJointPose;
using detail::inQuotes;
using detail::isIdentity;
using detail::neutralPositions;
using detail::perDof;
using tinyxml2::XMLElement;

constexpr double kInf = std::numeric_limits<double>::infinity();
/// How far apart a closure's endpoints may be at the file configuration
/// (m, rad) and still be written as one SDF joint frame.
constexpr double kClosedTolerance = 1e-9;

bool anyNonZero(const VectorXd& v) {
  return v.size() > 0 && !v.isZero(0.0);
}

/// "x y z roll pitch yaw".
std::string poseText(const Isometry3d& X) {
  return exportNumbers(Vector3d(X.translation())) + " " + exportNumbers(detail::rollPitchYaw(X.linear()));
}

bool customPolicy(const LoopClosureRuntimePolicy& p) {
  const LoopClosureRuntimePolicy d;
  return p.enabled != d.enabled || p.kinematics != d.kinematics || p.dynamics != d.dynamics ||
         p.stabilization != d.stabilization || p.errorReduction != d.errorReduction || p.stiffness != d.stiffness ||
         p.damping != d.damping || p.projectAfterStep != d.projectAfterStep || p.tolerance != d.tolerance ||
         p.maxIterations != d.maxIterations;
}

/// Whether the closure's residual (loop_closure.hpp) vanishes for endpoint
/// poses A and B.
bool closureSatisfied(LoopClosureFamily family, const Isometry3d& A, const Isometry3d& B) {
  const Vector3d d = B.translation() - A.translation();
  const Matrix3d RA = A.linear();
  const Matrix3d RB = B.linear();
  const double angle = Eigen::AngleAxisd(RA.transpose() * RB).angle();
  switch (family) {
    case LoopClosureFamily::Rigid:
      return angle < kClosedTolerance && d.norm() < kClosedTolerance;
    case LoopClosureFamily::Point:
      return d.norm() < kClosedTolerance;
    case LoopClosureFamily::Hinge:
      return std::abs(RA.col(0).dot(RB.col(2))) < kClosedTolerance &&
             std::abs(RA.col(1).dot(RB.col(2))) < kClosedTolerance && d.norm() < kClosedTolerance;
    case LoopClosureFamily::Slider:
      return angle < kClosedTolerance && std::abs(RA.col(0).dot(d)) < kClosedTolerance &&
             std::abs(RA.col(1).dot(d)) < kClosedTolerance;
    case LoopClosureFamily::Universal:
      return std::abs(RA.col(0).dot(RB.col(1))) < kClosedTolerance && d.norm() < kClosedTolerance;
    case LoopClosureFamily::Distance:
      return false;
  }
  return false;
}

/// A body of the exported world: an owner (multibody or rigid body) and,
/// for a multibody, one of its links; or the world (owner −1).
struct Body {
  int owner = -1;
  int link = -1;
  bool operator<(const Body& o) const { return owner != o.owner ? owner < o.owner : link < o.link; }
  bool operator==(const Body& o) const { return owner == o.owner && link == o.link; }
  bool isWorld() const { return owner < 0; }
};

/// A closure as an SDF joint.
struct ClosureJoint {
  const ClosureSpec* closure = nullptr;
  std::string type;
  Body parent, child;
  Isometry3d X_WJ = Isometry3d::Identity();  ///< joint frame at the file configuration
  Vector3d axis = Vector3d::UnitZ();         ///< joint frame
  Vector3d axis2 = Vector3d::UnitY();        ///< joint frame (universal)
};

struct Mimic {
  const CouplerSpec* coupler = nullptr;
  int owner = -1;        ///< the follower's multibody
  int leaderOwner = -1;  ///< the leader's multibody
  const LinkSpec* leader = nullptr;
  const LinkSpec* follower = nullptr;
};

class SdfWriter {
 public:
  SdfWriter(const WorldSpec& spec, ExportReport& report, const ExportOptions& options)
      : m_spec(spec), m_report(report), m_options(options) {}

  std::string run() {
    if (m_report.format.empty()) m_report.format = toString(ExportFormat::Sdf);
    m_numMultibodies = static_cast<int>(m_spec.multibodies.size());
    m_numOwners = m_numMultibodies + static_cast<int>(m_spec.rigidBodies.size());
    computeFilePoses();
    planClosures();
    planMimics();
    planModels();
    reportScopedNames();
    placeSensors();

    m_doc.InsertEndChild(m_doc.NewDeclaration());
    XMLElement* sdf = m_doc.NewElement("sdf");
    sdf->SetAttribute("version", "1.9");
    m_doc.InsertEndChild(sdf);
    XMLElement* world = child(sdf, "world");
    const std::string worldName = "articula";
    world->SetAttribute("name", worldName.c_str());
    text(world, "gravity", exportNumbers(m_spec.options.gravity));
    XMLElement* physics = child(world, "physics");
    physics->SetAttribute("name", "default");
    physics->SetAttribute("type", "ode");
    text(physics, "max_step_size", exportNumber(m_spec.options.timeStep));
    text(physics, "real_time_factor", "1");
    writeStaticModel(world);
    for (const std::vector<int>& group : m_groups) writeModel(world, group);
    writeState(world, worldName);
    reportTheRest();
    tinyxml2::XMLPrinter printer;
    m_doc.Print(&printer);
    return printer.CStr();
  }

 private:
  // ---- small helpers -----------------------------------------------------------

  static XMLElement* child(XMLElement* parent, const char* name) {
    XMLElement* e = parent->GetDocument()->NewElement(name);
    parent->InsertEndChild(e);
    return e;
  }
  static XMLElement* text(XMLElement* parent, const char* name, const std::string& value) {
    XMLElement* e = child(parent, name);
    e->SetText(value.c_str());
    return e;
  }
  void notExported(const std::string& object, const std::string& message) {
    detail::notExported(m_report, object, message);
  }
  void converted(const std::string& object, const std::string& message) {
    detail::converted(m_report, object, message);
  }

  bool isRigidBody(int owner) const { return owner >= m_numMultibodies; }
  const MultibodySpec& multibody(int owner) const { return m_spec.multibodies[static_cast<std::size_t>(owner)]; }
  const RigidBodySpec& rigidBody(int owner) const {
    return m_spec.rigidBodies[static_cast<std::size_t>(owner - m_numMultibodies)];
  }
  std::string ownerName(int owner) const { return isRigidBody(owner) ? rigidBody(owner).name : multibody(owner).name; }

  /// The SDF link name of a body ("world" for the world).
  std::string linkName(const Body& b) const {
    if (b.isWorld()) return "world";
    if (isRigidBody(b.owner)) return rigidBody(b.owner).name;
    return multibody(b.owner).links[static_cast<std::size_t>(b.link)].name;
  }

  /// The frame name's body and its pose in the body's frame (a link's own
  /// frame, not the exported joint frame), or nothing for a free user frame.
  std::optional<std::pair<Body, Isometry3d>> bodyOf(const std::string& name) const {
    const detail::ExportedFrame f = detail::resolveExportFrame(m_spec, name);
    switch (f.kind) {
      case detail::ExportedFrame::Kind::World:
        return std::make_pair(Body{}, f.pose);
      case detail::ExportedFrame::Kind::RigidBody: {
        const auto index = static_cast<int>(f.rigidBody - m_spec.rigidBodies.data());
        return std::make_pair(Body{m_numMultibodies + index, -1}, f.pose);
      }
      case detail::ExportedFrame::Kind::Link: {
        const auto owner = static_cast<int>(f.multibody - m_spec.multibodies.data());
        const auto link = static_cast<int>(f.link - f.multibody->links.data());
        // f.pose is in the exported (joint) frame: X_LF = X_LE · X_EF.
        return std::make_pair(Body{owner, link}, detail::exportedFromLink(*f.link).inverse() * f.pose);
      }
      case detail::ExportedFrame::Kind::None:
        break;
    }
    return std::nullopt;
  }

  Isometry3d filePose(const Body& b) const {
    if (b.isWorld()) return Isometry3d::Identity();
    return m_filePose.at(b);
  }

  // ---- the file configuration --------------------------------------------------

  /// X_WL of every body with every joint at zero and free roots at their
  /// initial pose (links are listed parents first).
  void computeFilePoses() {
    for (int o = 0; o < m_numMultibodies; ++o) {
      const MultibodySpec& mb = multibody(o);
      std::map<std::string, Isometry3d> byName;
      for (std::size_t i = 0; i < mb.links.size(); ++i) {
        const LinkSpec& l = mb.links[i];
        const Isometry3d X_WP = l.parent.empty() ? Isometry3d::Identity() : byName.at(l.parent);
        const Isometry3d X_J =
            l.parent.empty() && l.joint.type == JointType::Free ? freeJointPose(l.q) : Isometry3d::Identity();
        const Isometry3d X_WL = X_WP * l.joint.parentOffset * X_J * l.joint.childOffset.inverse();
        byName[l.name] = X_WL;
        m_filePose[Body{o, static_cast<int>(i)}] = X_WL;
      }
    }
    for (int o = m_numMultibodies; o < m_numOwners; ++o) m_filePose[Body{o, -1}] = rigidBody(o).pose();
  }

  // ---- closures and couplers ---------------------------------------------------

  void planClosures() {
    for (const ClosureSpec& c : m_spec.loopClosures) {
      const std::string object = "closure " + inQuotes(c.name);
      const auto a = bodyOf(c.frameA);
      const auto b = bodyOf(c.frameB);
      if (!a || !b) {
        notExported(object, "an endpoint is a free user frame, which SDF cannot attach a joint to");
        continue;
      }
      static const std::map<LoopClosureFamily, const char*> types{{LoopClosureFamily::Rigid, "fixed"},
                                                                  {LoopClosureFamily::Point, "ball"},
                                                                  {LoopClosureFamily::Hinge, "revolute"},
                                                                  {LoopClosureFamily::Slider, "prismatic"},
                                                                  {LoopClosureFamily::Universal, "universal"}};
      const auto type = types.find(c.family);
      if (type == types.end()) {
        notExported(object, "a " + std::string(toString(c.family)) +
                                " closure: SDF has no joint that keeps a distance (export to MJCF to keep it)");
        continue;
      }
      const Isometry3d A = filePose(a->first) * a->second * c.offsetA;
      const Isometry3d B = filePose(b->first) * b->second * c.offsetB;
      if (!closureSatisfied(c.family, A, B)) {
        notExported(object,
                    "its endpoints do not meet at the file configuration (every joint at zero), and an SDF "
                    "joint has one frame shared by both links there; export to URDF or MJCF to keep it");
        continue;
      }
      ClosureJoint j;
      j.closure = &c;
      j.type = type->second;
      // The child of an SDF joint must be a link: a closure to the world is
      // written from the world.
      const bool swap = b->first.isWorld();
      j.parent = swap ? b->first : a->first;
      j.child = swap ? a->first : b->first;
      const Isometry3d& P = swap ? B : A;  // the endpoint on the SDF parent
      const Isometry3d& C = swap ? A : B;
      j.X_WJ = P;
      if (c.family == LoopClosureFamily::Universal) {
        // sdf_import's universal closure turns x of its endpoints along the
        // first axis and y along the second: x of endpoint A and y of B.
        if (swap) {
          // The world side stands for B: turn its y onto x.
          j.X_WJ.linear() = P.linear() * Eigen::AngleAxisd(0.5 * std::numbers::pi, Vector3d::UnitZ()).matrix();
        }
        j.axis = Vector3d::UnitX();
        j.axis2 = j.X_WJ.linear().transpose() * (swap ? C.linear().col(0) : C.linear().col(1));
      }
      m_closures.push_back(j);
      if (customPolicy(c.policy)) notExported(object, "its runtime policy is not exported: SDF has none");
    }
  }

  /// The link of "multibody/joint" when it is a one-DoF joint written as an
  /// SDF joint with an axis.
  std::pair<int, const LinkSpec*> sdfOneDofJoint(const std::string& joint) const {
    const auto [mb, link] = detail::findJointOwner(m_spec, joint);
    if (mb == nullptr) return {-1, nullptr};
    const JointType t = link->joint.type;
    if (t != JointType::Revolute && t != JointType::Prismatic && !(t == JointType::Screw && link->joint.pitch != 0.0)) {
      return {-1, nullptr};
    }
    return {static_cast<int>(mb - m_spec.multibodies.data()), link};
  }

  void planMimics() {
    for (const CouplerSpec& c : m_spec.jointCouplers) {
      const std::string object = "coupler " + inQuotes(c.name);
      const auto [leaderOwner, leader] = sdfOneDofJoint(c.leader);
      const auto [followerOwner, follower] = sdfOneDofJoint(c.follower);
      if (leader == nullptr || follower == nullptr) {
        notExported(object, "it couples a joint that is not a revolute, prismatic or screw joint of the file");
        continue;
      }
      m_mimics.push_back(Mimic{&c, followerOwner, leaderOwner, leader, follower});
      if (customPolicy(c.policy)) notExported(object, "its runtime policy is not exported: SDF has none");
    }
  }

  // ---- models --------------------------------------------------------------------

  /// Names one SDF model holds in its single namespace: links and the
  /// joints written for its owners.
  void addNames(int owner, std::multiset<std::string>& names) const {
    if (isRigidBody(owner)) {
      names.insert(rigidBody(owner).name);
      return;
    }
    for (const LinkSpec& l : multibody(owner).links) {
      names.insert(l.name);
      if (!(l.joint.type == JointType::Free)) names.insert(l.joint.name);
    }
  }

  static int find(std::vector<int>& parent, int i) {
    while (parent[static_cast<std::size_t>(i)] != i) i = parent[static_cast<std::size_t>(i)];
    return i;
  }

  /// Groups the owners that closures and couplers join into one model each;
  /// a group whose names clash is split again and its joining closures and
  /// couplers are reported.
  void planModels() {
    std::vector<int> parent(static_cast<std::size_t>(m_numOwners));
    std::iota(parent.begin(), parent.end(), 0);
    auto join = [&](int a, int b) {
      if (a < 0 || b < 0) return;
      parent[static_cast<std::size_t>(find(parent, a))] = find(parent, b);
    };
    for (const ClosureJoint& j : m_closures) join(j.parent.owner, j.child.owner);
    for (const Mimic& m : m_mimics) join(m.owner, m.leaderOwner);
    std::map<int, std::vector<int>> groups;  // root → members in owner order
    for (int o = 0; o < m_numOwners; ++o) groups[find(parent, o)].push_back(o);
    std::set<int> split;  // owners of groups that could not be merged
    for (const auto& [root, members] : groups) {
      if (members.size() < 2) continue;
      std::multiset<std::string> names;
      for (const int o : members) addNames(o, names);
      for (const ClosureJoint& j : m_closures) {
        if (find(parent, j.child.owner) == root) names.insert(j.closure->name);
      }
      bool clash = false;
      for (const std::string& n : names) clash = clash || names.count(n) > 1;
      if (!clash) continue;
      split.insert(members.begin(), members.end());
    }
    // Closures and couplers across models that could not be merged.
    std::vector<ClosureJoint> closures;
    for (const ClosureJoint& j : m_closures) {
      const bool across = !j.parent.isWorld() && j.parent.owner != j.child.owner;
      if (across && split.count(j.child.owner) != 0) {
        notExported("closure " + inQuotes(j.closure->name),
                    "it joins " + inQuotes(ownerName(j.parent.owner)) + " and " + inQuotes(ownerName(j.child.owner)) +
                        ", which cannot be one SDF model: their link and joint names clash");
        continue;
      }
      closures.push_back(j);
    }
    m_closures = closures;
    std::vector<Mimic> mimics;
    for (const Mimic& m : m_mimics) {
      if (m.owner != m.leaderOwner && split.count(m.owner) != 0) {
        notExported("coupler " + inQuotes(m.coupler->name),
                    "it couples joints of " + inQuotes(ownerName(m.leaderOwner)) + " and " +
                        inQuotes(ownerName(m.owner)) +
                        ", which cannot be one SDF model: their link and joint names clash");
        continue;
      }
      mimics.push_back(m);
    }
    m_mimics = mimics;
    // Models: multibodies in order, then rigid bodies, each group at its
    // first member.
    std::set<int> done;
    for (int o = 0; o < m_numOwners; ++o) {
      if (done.count(o) != 0) continue;
      std::vector<int> group{o};
      if (split.count(o) == 0) group = groups[find(parent, o)];
      done.insert(group.begin(), group.end());
      for (std::size_t k = 0; k < group.size(); ++k) m_modelOf[group[k]] = ownerName(group.front());
      m_groups.push_back(group);
      if (group.size() > 1) {
        for (std::size_t k = 1; k < group.size(); ++k) {
          const int member = group[k];
          const std::string root = isRigidBody(member) ? rigidBody(member).name : multibody(member).links.front().name;
          converted((isRigidBody(member) ? "rigid body " : "multibody ") + inQuotes(ownerName(member)),
                    "written in the model " + inQuotes(ownerName(group.front())) +
                        " with the bodies it is joined to by closures or couplers, it reads back as the multibody " +
                        inQuotes(ownerName(group.front()) + "::" + root));
        }
      }
    }
  }

  /// sdf_import names closures and couplers after their model ("model::joint").
  void reportScopedNames() {
    for (const ClosureJoint& j : m_closures) {
      const std::string& model = m_modelOf.at(j.child.owner);
      converted("closure " + inQuotes(j.closure->name),
                "written as the loop joint " + inQuotes(j.closure->name) + " (must_be_loop_joint) of model " +
                    inQuotes(model) + ", which reads back as the closure " + inQuotes(model + "::" + j.closure->name));
    }
    for (const Mimic& m : m_mimics) {
      const std::string& model = m_modelOf.at(m.owner);
      converted("coupler " + inQuotes(m.coupler->name),
                "written as <mimic> in the axis of joint " + inQuotes(m.follower->joint.name) +
                    ", which reads back as the coupler " + inQuotes(model + "::" + m.follower->joint.name));
    }
  }

  // ---- sensors -----------------------------------------------------------------

  void placeSensors() {
    for (const SensorSpec& s : m_spec.sensors) {
      const std::string object = "sensor " + inQuotes(s.name);
      std::string readBack;  // sdf_import's name for it
      if (s.type == SensorType::JointEncoder) {
        notExported(object, "SDF has no joint encoder sensor");
        continue;
      }
      if (s.type == SensorType::ForceTorque) {
        const auto [mb, link] = detail::findJointOwner(m_spec, s.joint);
        if (mb == nullptr || !writesJoint(*link)) {
          notExported(object, "its joint is not written as an SDF joint");
          continue;
        }
        const int owner = static_cast<int>(mb - m_spec.multibodies.data());
        m_jointSensors[{owner, link->joint.name}].push_back(&s);
        readBack = m_modelOf.at(owner) + "::" + link->joint.name + "::" + s.name;
      } else {
        const auto body = bodyOf(s.frame);
        if (!body || body->first.isWorld()) {
          notExported(object, "it is attached to the world (or a free frame); SDF sensors are on links");
          continue;
        }
        m_linkSensors[body->first].emplace_back(&s, body->second);
        readBack = m_modelOf.at(body->first.owner) + "::" + linkName(body->first) + "::" + s.name;
      }
      converted(object, "reads back as " + inQuotes(readBack) +
                            (s.noiseStddev > 0.0 ? ", with a noise seed made from that name" : ""));
    }
  }

  /// Whether a link's parent joint is written as an SDF joint.
  static bool writesJoint(const LinkSpec& l) { return l.joint.type != JointType::Free; }

  // ---- writing models --------------------------------------------------------------

  void writeStaticModel(XMLElement* world) {
    std::vector<const ShapeSpec*> shapes;
    for (const ShapeSpec& s : m_spec.shapes) {
      if (s.owner == "world") shapes.push_back(&s);
    }
    if (shapes.empty()) return;
    std::set<std::string> taken;
    for (int o = 0; o < m_numOwners; ++o) taken.insert(ownerName(o));
    std::string name = "world_shapes";
    while (taken.count(name) != 0) name += "_";
    XMLElement* model = child(world, "model");
    model->SetAttribute("name", name.c_str());
    text(model, "static", "true");
    XMLElement* link = child(model, "link");
    link->SetAttribute("name", "static");
    for (const ShapeSpec* s : shapes) writeShape(link, *s, false);
  }

  void writeModel(XMLElement* world, const std::vector<int>& group) {
    XMLElement* model = child(world, "model");
    model->SetAttribute("name", ownerName(group.front()).c_str());
    bool selfCollide = false;
    for (const int o : group) selfCollide = selfCollide || (!isRigidBody(o) && multibody(o).selfCollision);
    for (const int o : group) {
      if (!isRigidBody(o) && multibody(o).selfCollision != selfCollide) {
        notExported("multibody " + inQuotes(multibody(o).name),
                    "its self-collision setting is not exported: the SDF model it shares has another one");
      }
    }
    if (selfCollide) text(model, "self_collide", "true");
    for (const int o : group) {
      if (isRigidBody(o)) {
        const std::string& name = rigidBody(o).name;
        writeLink(model, Body{o, -1}, name, rigidBody(o).inertia, name);
        if (group.size() == 1) {
          converted("rigid body " + inQuotes(name),
                    "written as a floating one-link model; it reads back as the "
                    "multibody " +
                        inQuotes(name) + " with the free joint " + inQuotes(name + "_free") +
                        " (SDF has no free bodies)");
        }
        continue;
      }
      const MultibodySpec& mb = multibody(o);
      for (std::size_t i = 0; i < mb.links.size(); ++i) {
        writeLink(model, Body{o, static_cast<int>(i)}, mb.links[i].name, mb.links[i].inertia,
                  mb.name + "/" + mb.links[i].name);
      }
      for (const LinkSpec& l : mb.links) writeJoint(model, o, l);
    }
    for (const ClosureJoint& j : m_closures) {
      if (m_modelOf.at(j.child.owner) == ownerName(group.front())) writeClosureJoint(model, j);
    }
  }

  void writeLink(XMLElement* model, const Body& body, const std::string& name, const Inertia& in,
                 const std::string& owner) {
    XMLElement* link = child(model, "link");
    link->SetAttribute("name", name.c_str());
    text(link, "pose", poseText(filePose(body)));
    // SDF's defaults are 1 kg and unit moments: a massless link says so.
    XMLElement* inertial = child(link, "inertial");
    text(inertial, "pose", exportNumbers(in.com) + " 0 0 0");
    text(inertial, "mass", exportNumber(in.mass));
    XMLElement* moments = child(inertial, "inertia");
    const Matrix3d I = 0.5 * (in.rotational + in.rotational.transpose());
    text(moments, "ixx", exportNumber(I(0, 0)));
    text(moments, "ixy", exportNumber(I(0, 1)));
    text(moments, "ixz", exportNumber(I(0, 2)));
    text(moments, "iyy", exportNumber(I(1, 1)));
    text(moments, "iyz", exportNumber(I(1, 2)));
    text(moments, "izz", exportNumber(I(2, 2)));
    for (const ShapeSpec& s : m_spec.shapes) {
      if (s.owner == owner) writeShape(link, s, true);
    }
    const auto sensors = m_linkSensors.find(body);
    if (sensors != m_linkSensors.end()) {
      for (const auto& [sensor, pose] : sensors->second) writeLinkSensor(link, *sensor, pose);
    }
  }

  /// SDF names are scoped with "::": a shape name keeps its last part.
  static std::string elementName(const std::string& name) {
    const std::size_t scope = name.rfind("::");
    return scope == std::string::npos ? name : name.substr(scope + 2);
  }

  void writeShape(XMLElement* link, const ShapeSpec& shape, bool moving) {
    const std::string object = "shape " + inQuotes(shape.name);
    const Geometry& g = shape.geometry;
    XMLElement* e = m_doc.NewElement(shape.collision ? "collision" : "visual");
    e->SetAttribute("name", elementName(shape.name).c_str());
    text(e, "pose", poseText(shape.pose));
    XMLElement* geometry = child(e, "geometry");
    switch (g.type) {
      case GeometryType::Box:
        text(child(geometry, "box"), "size", exportNumbers(g.size));
        break;
      case GeometryType::Sphere:
        text(child(geometry, "sphere"), "radius", exportNumber(g.radius));
        break;
      case GeometryType::Cylinder:
      case GeometryType::Capsule: {
        XMLElement* c = child(geometry, g.type == GeometryType::Capsule ? "capsule" : "cylinder");
        text(c, "radius", exportNumber(g.radius));
        text(c, "length", exportNumber(g.length));
        break;
      }
      case GeometryType::Ellipsoid:
        text(child(geometry, "ellipsoid"), "radii", exportNumbers(g.size));
        break;
      case GeometryType::Plane:
        if (!shape.collision) {
          m_doc.DeleteNode(e);
          notExported(object, "a plane visual: sdf_import draws no planes");
          return;
        }
        text(child(geometry, "plane"), "normal", "0 0 1");
        break;
      case GeometryType::ConvexMesh:
      case GeometryType::TriangleMesh: {
        if (g.meshFile.empty()) {
          m_doc.DeleteNode(e);
          notExported(object, "a mesh given by its vertices, not read from a file: SDF refers to mesh files only");
          return;
        }
        XMLElement* m = child(geometry, "mesh");
        text(m, "uri", detail::meshReference(g, m_options));
        if (g.meshScale != Vector3d::Ones()) text(m, "scale", exportNumbers(g.meshScale));
        // sdf_import makes the convex hull of moving collision meshes and
        // keeps every triangle of the others.
        const GeometryType readBack = shape.collision && moving ? GeometryType::ConvexMesh : GeometryType::TriangleMesh;
        if (g.type != readBack) {
          converted(object, "written as its mesh file '" + g.meshFile + "', which reads back as a " +
                                std::string(toString(readBack)) + " (it is a " + std::string(toString(g.type)) + ")");
        }
        break;
      }
    }
    if (shape.collision) {
      XMLElement* surface = child(e, "surface");
      text(child(child(surface, "friction"), "ode"), "mu", exportNumber(shape.material.friction));
      text(child(surface, "bounce"), "restitution_coefficient", exportNumber(shape.material.restitution));
      if (!shape.collidable) {
        notExported(object, "written as a collision; that it takes no part in contacts is not exported");
      }
    } else {
      XMLElement* material = child(e, "material");
      text(material, "diffuse", exportNumbers(VectorXd(shape.color)));
      text(material, "ambient", exportNumbers(VectorXd(shape.color)));
    }
    link->InsertEndChild(e);
  }

  void writeJoint(XMLElement* model, int owner, const LinkSpec& l) {
    const MultibodySpec& mb = multibody(owner);
    const JointSpec& j = l.joint;
    const std::string object = "joint " + inQuotes(mb.name + "/" + j.name);
    if (j.type == JointType::Free) {
      if (!l.parent.empty()) {
        notExported(object, "SDF has no free joint between links: link " + inQuotes(l.name) +
                                " is written unattached and reads back as a floating body of its own");
      } else {
        converted(object, "SDF has no free joint: the model floats, and its root joint reads back as '" + l.name +
                              "_free'" +
                              (isIdentity(j.parentOffset) && isIdentity(j.childOffset)
                                   ? std::string()
                                   : std::string(", with coordinates relative to the world (its offsets are folded "
                                                 "into the link's pose)")));
      }
      if (anyNonZero(j.damping) || anyNonZero(j.coulombFriction) || anyNonZero(j.armature)) {
        notExported(object, "damping, friction and armature of a free joint are not exported: SDF has no free joint");
      }
      return;
    }
    std::string type;
    switch (j.type) {
      case JointType::Weld:
        type = "fixed";
        break;
      case JointType::Revolute:
        type = "revolute";
        break;
      case JointType::Prismatic:
        type = "prismatic";
        break;
      case JointType::Screw:
        type = j.pitch != 0.0 ? "screw" : "revolute";
        if (j.pitch == 0.0) converted(object, "a screw joint of pitch 0, written as a revolute joint");
        break;
      case JointType::Universal:
        type = "universal";
        break;
      case JointType::Ball:
        type = "ball";
        break;
      case JointType::Euler:
      case JointType::Planar:
      case JointType::Translational:
      case JointType::Free:
        notExported(object, "SDF has no " + std::string(toString(j.type)) +
                                " joint; written as a fixed joint, which removes its degrees of freedom");
        type = "fixed";
        break;
    }
    XMLElement* e = child(model, "joint");
    e->SetAttribute("name", j.name.c_str());
    e->SetAttribute("type", type.c_str());
    text(e, "parent", l.parent.empty() ? "world" : l.parent);
    text(e, "child", l.name);
    // The joint frame in the child link (SDF's default frame for it).
    if (!isIdentity(j.childOffset)) text(e, "pose", poseText(j.childOffset));
    if (type == "screw") text(e, "thread_pitch", exportNumber(-1.0 / j.pitch));  // Gazebo's rad/m, left-handed
    const int axes = type == "revolute" || type == "prismatic" || type == "screw" ? 1 : type == "universal" ? 2 : 0;
    for (int k = 0; k < axes; ++k) {
      XMLElement* axis = child(e, k == 0 ? "axis" : "axis2");
      text(axis, "xyz", exportNumbers(Vector3d((k == 0 ? j.axis : j.axis2).normalized())));
      writeLimits(axis, j, k);
      writeDynamics(axis, j, k);
      if (k == 0) writeMimic(axis, owner, l);
    }
    if (axes == 0 && j.type != JointType::Weld && type != "fixed") {
      if (anyNonZero(j.damping) || anyNonZero(j.coulombFriction) || anyNonZero(j.springStiffness) ||
          anyFinite(j.positionLowerLimits) || anyFinite(j.positionUpperLimits) || anyFinite(j.velocityLimits) ||
          anyFinite(j.effortLimits)) {
        notExported(object, "limits, damping, friction and springs of a " + std::string(toString(j.type)) +
                                " joint are not exported: SDF has them per axis, and a " + type + " joint has none");
      }
    }
    if (anyNonZero(j.armature)) notExported(object, "armature not exported: SDF has no element for it");
    const auto sensors = m_jointSensors.find({owner, j.name});
    if (sensors != m_jointSensors.end()) {
      for (const SensorSpec* s : sensors->second) writeForceTorque(e, *s);
    }
  }

  static void writeLimits(XMLElement* axis, const JointSpec& j, int k) {
    const double lower = perDof(j.positionLowerLimits, k, -kInf);
    const double upper = perDof(j.positionUpperLimits, k, kInf);
    const double effort = perDof(j.effortLimits, k, kInf);
    const double velocity = perDof(j.velocityLimits, k, kInf);
    // Absent values are SDF's defaults, which sdf_import reads as no limit.
    if (!std::isfinite(lower) && !std::isfinite(upper) && !std::isfinite(effort) && !std::isfinite(velocity)) return;
    XMLElement* limit = child(axis, "limit");
    if (std::isfinite(lower)) text(limit, "lower", exportNumber(lower));
    if (std::isfinite(upper)) text(limit, "upper", exportNumber(upper));
    if (std::isfinite(effort)) text(limit, "effort", exportNumber(effort));
    if (std::isfinite(velocity)) text(limit, "velocity", exportNumber(velocity));
  }

  static void writeDynamics(XMLElement* axis, const JointSpec& j, int k) {
    const double damping = perDof(j.damping, k, 0.0);
    const double friction = perDof(j.coulombFriction, k, 0.0);
    const double stiffness = perDof(j.springStiffness, k, 0.0);
    const double rest = perDof(j.restPositions, k, 0.0);
    if (damping == 0.0 && friction == 0.0 && stiffness == 0.0 && rest == 0.0) return;
    XMLElement* dynamics = child(axis, "dynamics");
    if (damping != 0.0) text(dynamics, "damping", exportNumber(damping));
    if (friction != 0.0) text(dynamics, "friction", exportNumber(friction));
    if (rest != 0.0) text(dynamics, "spring_reference", exportNumber(rest));
    if (stiffness != 0.0) text(dynamics, "spring_stiffness", exportNumber(stiffness));
  }

  void writeMimic(XMLElement* axis, int owner, const LinkSpec& l) {
    for (const Mimic& m : m_mimics) {
      if (m.owner != owner || m.follower != &l) continue;
      XMLElement* mimic = child(axis, "mimic");
      mimic->SetAttribute("joint", m.leader->joint.name.c_str());
      text(mimic, "multiplier", exportNumber(m.coupler->ratio));
      text(mimic, "offset", exportNumber(m.coupler->offset));
    }
  }

  void writeClosureJoint(XMLElement* model, const ClosureJoint& j) {
    XMLElement* e = child(model, "joint");
    e->SetAttribute("name", j.closure->name.c_str());
    e->SetAttribute("type", j.type.c_str());
    text(e, "parent", linkName(j.parent));
    text(e, "child", linkName(j.child));
    text(e, "pose", poseText(filePose(j.child).inverse() * j.X_WJ));
    if (j.type == "revolute" || j.type == "prismatic" || j.type == "universal") {
      text(child(e, "axis"), "xyz", exportNumbers(j.axis));
    }
    if (j.type == "universal") text(child(e, "axis2"), "xyz", exportNumbers(j.axis2));
    text(child(child(e, "physics"), "simbody"), "must_be_loop_joint", "true");
  }

  // ---- sensors ---------------------------------------------------------------

  /// <noise type="..."> (IMU and force-torque axes) or, with `typeElement`,
  /// <noise><type>...</type> (lidar).
  static void writeNoise(XMLElement* parent, double stddev, double bias, bool typeElement = false) {
    XMLElement* noise = child(parent, "noise");
    const char* type = stddev == 0.0 && bias == 0.0 ? "none" : "gaussian";
    if (typeElement) {
      text(noise, "type", type);
    } else {
      noise->SetAttribute("type", type);
    }
    if (std::string(type) == "none") return;
    text(noise, "mean", exportNumber(bias));
    text(noise, "stddev", exportNumber(stddev));
  }

  static void writeSensorHeader(XMLElement* e, const SensorSpec& s) {
    e->SetAttribute("name", s.name.c_str());
    text(e, "always_on", "true");
    text(e, "update_rate", exportNumber(s.rate));
  }

  void writeLinkSensor(XMLElement* link, const SensorSpec& s, const Isometry3d& X_LF) {
    XMLElement* e = child(link, "sensor");
    const char* type = s.type == SensorType::Imu ? "imu" : s.type == SensorType::Contact ? "contact" : "lidar";
    e->SetAttribute("type", type);
    writeSensorHeader(e, s);
    text(e, "pose", poseText(X_LF * s.pose));
    if (s.type == SensorType::Imu) {
      XMLElement* imu = child(e, "imu");
      for (const char* quantity : {"angular_velocity", "linear_acceleration"}) {
        XMLElement* q = child(imu, quantity);
        for (const char* axis : {"x", "y", "z"}) writeNoise(child(q, axis), s.noiseStddev, s.noiseBias);
      }
    } else if (s.type == SensorType::Contact) {
      // SDF names the collision the sensor watches; the engine's contact
      // sensor watches the whole body: its first collision is named.
      XMLElement* contact = child(e, "contact");
      for (const XMLElement* c = link->FirstChildElement("collision"); c != nullptr;
           c = c->NextSiblingElement("collision")) {
        text(contact, "collision", c->Attribute("name"));
        break;
      }
    } else {
      // One ray along the sensor's x axis.
      XMLElement* lidar = child(e, "lidar");
      XMLElement* horizontal = child(child(lidar, "scan"), "horizontal");
      text(horizontal, "samples", "1");
      text(horizontal, "resolution", "1");
      text(horizontal, "min_angle", "0");
      text(horizontal, "max_angle", "0");
      XMLElement* range = child(lidar, "range");
      text(range, "min", exportNumber(s.minRange));
      text(range, "max", exportNumber(s.maxRange));
      writeNoise(lidar, s.noiseStddev, s.noiseBias, true);
    }
  }

  static void writeForceTorque(XMLElement* joint, const SensorSpec& s) {
    XMLElement* e = child(joint, "sensor");
    e->SetAttribute("type", "force_torque");
    writeSensorHeader(e, s);
    // In the joint frame (SDF's default for joint sensors).
    text(e, "pose", poseText(s.pose));
    XMLElement* ft = child(e, "force_torque");
    text(ft, "frame", "sensor");
    text(ft, "measure_direction", s.childOnParent ? "child_to_parent" : "parent_to_child");
    for (const char* quantity : {"force", "torque"}) {
      XMLElement* q = child(ft, quantity);
      for (const char* axis : {"x", "y", "z"}) writeNoise(child(q, axis), s.noiseStddev, s.noiseBias);
    }
  }

  // ---- initial state -----------------------------------------------------------

  void writeState(XMLElement* world, const std::string& worldName) {
    XMLElement* state = m_doc.NewElement("state");
    state->SetAttribute("world_name", worldName.c_str());
    std::map<std::string, XMLElement*> models;
    for (int o = 0; o < m_numOwners; ++o) {
      std::vector<std::string> lost;
      if (isRigidBody(o)) {
        if (!rigidBody(o).velocity.isZero(0.0)) lost.emplace_back("velocity");
        if (!rigidBody(o).force.isZero(0.0)) lost.emplace_back("applied force");
      } else {
        bool positions = false;
        bool velocities = false;
        bool forces = false;
        for (const LinkSpec& l : multibody(o).links) {
          const JointType t = l.joint.type;
          const bool neutral = l.q.size() == 0 || l.q == neutralPositions(t);
          const bool angles = t == JointType::Revolute || t == JointType::Prismatic || t == JointType::Screw ||
                              t == JointType::Universal;
          const bool rootPose = l.parent.empty() && t == JointType::Free;
          if (!neutral && angles) {
            // <model><joint><angle axis="k">.
            XMLElement*& model = models[m_modelOf.at(o)];
            if (model == nullptr) {
              model = child(state, "model");
              model->SetAttribute("name", m_modelOf.at(o).c_str());
            }
            XMLElement* joint = child(model, "joint");
            joint->SetAttribute("name", l.joint.name.c_str());
            for (Eigen::Index k = 0; k < l.q.size(); ++k) {
              XMLElement* angle = text(joint, "angle", exportNumber(l.q[k]));
              angle->SetAttribute("axis", static_cast<int>(k));
            }
          } else if (!neutral && !rootPose) {
            positions = true;
          }
          if (anyNonZero(l.v)) velocities = true;
          if (anyNonZero(l.tau)) forces = true;
        }
        if (positions) lost.emplace_back("positions of joints without angles (ball, free, ...)");
        if (velocities) lost.emplace_back("velocities");
        if (forces) lost.emplace_back("applied joint forces");
      }
      if (lost.empty()) continue;
      std::string list;
      for (std::size_t i = 0; i < lost.size(); ++i) list += (i == 0 ? "" : ", ") + lost[i];
      notExported("initial state of " + inQuotes(ownerName(o)),
                  "initial " + list + " not exported: SDF's <state> holds joint angles (and poses) only");
    }
    if (state->FirstChildElement() != nullptr) {
      world->InsertEndChild(state);
    } else {
      m_doc.DeleteNode(state);
    }
  }

  // ---- the rest ----------------------------------------------------------------------

  void reportTheRest() {
    for (const FrameSpec& f : m_spec.frames) {
      notExported("frame " + inQuotes(f.name), "user frames are not exported: sdf_import reads no <frame>s");
    }
    for (const CollisionSettingSpec& c : m_spec.collisionSettings) {
      notExported("collision setting " + inQuotes(c.a) + " / " + inQuotes(c.b), "SDF has no collision filtering");
    }
    for (const ActuatorSpec& a : m_spec.actuators) {
      notExported("actuator " + inQuotes(a.name), "SDF has no actuators (export to URDF or MJCF to keep it)");
    }
    for (const ScheduleSpec& s : m_spec.schedules) {
      notExported("schedule " + inQuotes(s.name), "SDF has no control schedules");
    }
    for (const KeyframeSpec& k : m_spec.keyframes) notExported("keyframe " + inQuotes(k.name), "SDF has no keyframes");
    for (const ViewpointSpec& v : m_spec.viewpoints) {
      notExported("viewpoint " + inQuotes(v.name), "sdf_import reads no camera views");
    }
    // Gravity and the time step are written; the rest has no SDF element.
    WorldSpec a;
    a.options = m_spec.options;
    a.options.gravity = WorldOptions{}.gravity;
    a.options.timeStep = WorldOptions{}.timeStep;
    if (a != WorldSpec{}) {
      notExported("world options",
                  "the integrator, solver and divergence settings are not exported (gravity and "
                  "the time step are): SDF has no element for them");
    }
  }

  const WorldSpec& m_spec;
  ExportReport& m_report;
  const ExportOptions& m_options;
  tinyxml2::XMLDocument m_doc;
  int m_numMultibodies = 0;
  int m_numOwners = 0;
  std::map<Body, Isometry3d> m_filePose;   ///< X_WL at the file configuration
  std::vector<ClosureJoint> m_closures;    ///< closures written as loop joints
  std::vector<Mimic> m_mimics;             ///< couplers written as <mimic>
  std::vector<std::vector<int>> m_groups;  ///< owners per model
  std::map<int, std::string> m_modelOf;    ///< owner → model name
  std::map<Body, std::vector<std::pair<const SensorSpec*, Isometry3d>>> m_linkSensors;  ///< with X_LF
  std::map<std::pair<int, std::string>, std::vector<const SensorSpec*>> m_jointSensors;
};

}  // namespace

std::string toSdf(const WorldSpec& spec, ExportReport& report, const ExportOptions& options) {
  SdfWriter writer(spec, report, options);
  return writer.run();
}

}  // namespace articula::io

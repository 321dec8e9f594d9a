#pragma once
// compareExported: whether a world read back from an exported file (URDF,
// SDF, MJCF, ...) is the world that was exported, judged by what physics
// sees rather than by names or frames, which formats change.
//
// Objects are matched by name: a multibody by the names of its links (its own
// name when several have the same links; formats rename multibodies), links
// by name, joints through their child links (formats rename implicit root
// joints), a rigid body by name to a rigid body or to a one-link multibody of
// that link name (SDF and URDF have no free bodies), closures by name (or a
// name ending in "::" + name: SDF scopes names by model), couplers by their
// follower joint. Then, for several random configurations (every joint
// within its limits, unit quaternions) set in both worlds alike, it compares
// every link's mass, world COM and world-frame rotational inertia R I Rᵀ,
// the world pose of every joint frame, each multibody's mass matrix (rows
// and columns matched by joint, armature taken out and compared as a joint
// property), rigid-body poses and mass properties, the closures' families
// and the world poses of their endpoints (up to the motion each family
// leaves free, which a format may place differently), and the couplers.
// Optionally: joint properties (type, world axes, limits, damping, friction,
// springs, armature), shapes (kind, geometry, world pose, colour, material),
// the initial state, gravity and the time step.
//
// Nothing is skipped unless the caller says so: `onlyFirstMultibody` (URDF
// holds one robot) and the skip sets, which skipNotExported() fills from an
// export report's object names ("multibody 'm'", "rigid body 'b'", "shape
// 's'", "closure 'c'", "coupler 'c'", "joint 'm/j'", "initial state of 'o'",
// "world options").
//
// The worlds' states are restored before returning.
#include <articula/articula.hpp>
#include <articula/io/export.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace articula::test {

struct ExportCompareOptions {
  double tolerance = 1e-9;  ///< m, rad, and relative for masses, inertias and mass matrices
  /// Colours: urdfdom and sdformat keep them as floats (about 1e-7 relative).
  double colorTolerance = 1e-6;
  int configurations = 4;  ///< random configurations compared
  std::uint32_t seed = 20240601;
  /// The reimported world holds the first multibody only (URDF): the other
  /// multibodies are not looked for (rigid bodies and shapes are, unless
  /// skipped).
  bool onlyFirstMultibody = false;
  bool compareJointProperties = true;
  bool compareShapes = true;
  bool compareMaterials = true;  ///< friction, restitution and the collidable flag of collision shapes
  bool compareInitialState = false;
  bool compareWorldOptions = false;  ///< gravity and time step
  /// Original names not looked for in the reimported world.
  std::set<std::string> skipMultibodies, skipRigidBodies, skipShapes, skipClosures, skipCouplers;
  std::set<std::string> skipJointProperties;  ///< "multibody/joint": properties not compared
  std::set<std::string> skipInitialState;     ///< multibody or rigid body names
  bool skipWorldOptions = false;

  /// Skips every object `report` lists as not exported (see the file comment
  /// for the object names it understands).
  ExportCompareOptions& skipNotExported(const io::ExportReport& report) {
    for (const io::ExportEntry& e : report.notExported) skipObject(e.object);
    return *this;
  }
  /// Skips one object named as in an export report.
  ExportCompareOptions& skipObject(const std::string& object) {
    if (object == "world options") {
      skipWorldOptions = true;
      return *this;
    }
    const std::size_t open = object.find('\'');
    const std::size_t close = object.rfind('\'');
    if (open == std::string::npos || close <= open) return *this;
    const std::string kind = object.substr(0, open);
    const std::string name = object.substr(open + 1, close - open - 1);
    if (kind == "multibody ") skipMultibodies.insert(name);
    if (kind == "rigid body ") skipRigidBodies.insert(name);
    if (kind == "shape ") skipShapes.insert(name);
    if (kind == "closure ") skipClosures.insert(name);
    if (kind == "coupler ") skipCouplers.insert(name);
    if (kind == "joint ") skipJointProperties.insert(name);
    if (kind == "initial state of ") skipInitialState.insert(name);
    return *this;
  }
};

namespace export_compare_detail {

inline std::string q(const std::string& s) {
  return "'" + s + "'";
}

inline std::string fmt(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

inline std::string fmt(const MatrixXd& m) {
  std::ostringstream os;
  os.precision(12);
  os << "[";
  for (Eigen::Index i = 0; i < m.size(); ++i) os << (i ? " " : "") << m(i);
  os << "]";
  return os.str();
}

/// A link's name without its "multibody/" prefix.
inline std::string localName(const std::string& name) {
  const std::size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

inline double perDof(const VectorXd& v, int i, double fallback) {
  return v.size() > i ? v[i] : fallback;
}

inline bool sameValue(double a, double b, double tol) {
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= tol * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

/// The link, rigid body or world frame a frame is fixed on.
inline Frame bodyOf(Frame f) {
  while (f.kind() == FrameKind::FreeFrame || f.kind() == FrameKind::FixedFrame) f = f.getParentFrame();
  return f;
}

/// One original body (link or rigid body) and its counterpart.
struct BodyPair {
  Frame a, b;
  std::string name;  ///< the original's name, for messages
};

class Comparison {
 public:
  Comparison(World& a, World& b, const ExportCompareOptions& o) : m_a(a), m_b(b), m_o(o), m_random(o.seed) {}

  std::string run() {
    const VectorXd qa = m_a.getPositions(), va = m_a.getVelocities();
    const VectorXd qb = m_b.getPositions(), vb = m_b.getVelocities();
    match();
    if (m_o.compareWorldOptions && !m_o.skipWorldOptions) compareWorldOptions();
    if (m_o.compareInitialState) compareInitialState();
    for (int k = 0; k < m_o.configurations && m_diffs.size() < kMaxDiffs; ++k) {
      setRandomConfiguration();
      if (k == 0 && m_o.compareJointProperties) compareJointProperties();
      const std::string at = " (configuration " + std::to_string(k) + ")";
      compareBodies(at);
      compareMassMatrices(at);
      compareClosures(at);
    }
    compareCouplers();
    if (m_o.compareShapes) compareShapes();
    m_a.setPositions(qa);
    m_a.setVelocities(va);
    m_b.setPositions(qb);
    m_b.setVelocities(vb);
    std::string out;
    for (const std::string& d : m_diffs) out += d + "\n";
    return out;
  }

 private:
  static constexpr std::size_t kMaxDiffs = 40;

  void diff(const std::string& d) {
    if (m_diffs.size() < kMaxDiffs) m_diffs.push_back(d);
  }

  // ---- matching --------------------------------------------------------------

  struct MultibodyPair {
    Multibody a, b;
    std::vector<std::pair<Link, Link>> links;  ///< in the original's tree order
  };
  struct RigidPair {
    RigidBody a;
    std::optional<RigidBody> b;  ///< a rigid body ...
    std::optional<Link> link;    ///< ... or the root link of a one-link multibody
  };

  static std::set<std::string> linkNames(const Multibody& mb) {
    std::set<std::string> names;
    for (const Link& l : mb.getLinks()) names.insert(localName(l.name()));
    return names;
  }

  void match() {
    std::vector<Multibody> candidates = m_b.getMultibodies();
    std::vector<bool> used(candidates.size(), false);
    std::vector<Multibody> originals = m_a.getMultibodies();
    if (m_o.onlyFirstMultibody && originals.size() > 1) originals.resize(1);
    for (const Multibody& mb : originals) {
      if (m_o.skipMultibodies.count(mb.name()) != 0) continue;
      const std::set<std::string> names = linkNames(mb);
      int found = -1;
      int count = 0;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (used[i] || linkNames(candidates[i]) != names) continue;
        ++count;
        if (found < 0 || candidates[i].name() == mb.name()) found = static_cast<int>(i);
      }
      const bool byName = found >= 0 && candidates[static_cast<std::size_t>(found)].name() == mb.name();
      if (found < 0 || (count > 1 && !byName)) {
        diff("multibody " + q(mb.name()) + ": " +
             (found < 0 ? "no multibody of the reimported world has its links"
                        : "several multibodies of the reimported world have its links, none its name"));
        continue;
      }
      used[static_cast<std::size_t>(found)] = true;
      MultibodyPair p{mb, candidates[static_cast<std::size_t>(found)], {}};
      for (const Link& la : mb.getLinks()) {
        const std::optional<Link> lb = p.b.getLink(localName(la.name()));
        p.links.emplace_back(la, *lb);
        m_bodies.push_back(BodyPair{la, *lb, la.name()});
      }
      m_multibodies.push_back(p);
    }
    {
      for (const RigidBody& r : m_a.getRigidBodies()) {
        if (m_o.skipRigidBodies.count(r.name()) != 0) continue;
        RigidPair p{r, m_b.getRigidBody(r.name()), std::nullopt};
        if (!p.b) {
          // A one-link multibody with a free root named after the body.
          int found = -1;
          for (std::size_t i = 0; i < candidates.size(); ++i) {
            if (used[i] || linkNames(candidates[i]) != std::set<std::string>{r.name()}) continue;
            if (found < 0 || candidates[i].name() == r.name()) found = static_cast<int>(i);
          }
          if (found < 0) {
            diff("rigid body " + q(r.name()) + ": neither a rigid body nor a one-link multibody of that name");
            continue;
          }
          used[static_cast<std::size_t>(found)] = true;
          p.link = candidates[static_cast<std::size_t>(found)].getRootLink();
          if (p.link->getParentJoint().type() != JointType::Free) {
            diff("rigid body " + q(r.name()) + ": read back as a link on a " +
                 std::string(toString(p.link->getParentJoint().type())) + " joint, not a free one");
            continue;
          }
        }
        m_rigid.push_back(p);
        m_bodies.push_back(BodyPair{r, p.b ? Frame(*p.b) : Frame(*p.link), r.name()});
      }
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (!used[i]) diff("the reimported world has a multibody " + q(candidates[i].name()) + " the original has not");
    }
    for (const RigidBody& r : m_b.getRigidBodies()) {
      const bool matched = std::any_of(m_rigid.begin(), m_rigid.end(),
                                       [&](const RigidPair& p) { return p.b && p.b->name() == r.name(); });
      if (!matched) diff("the reimported world has a rigid body " + q(r.name()) + " the original has not");
    }
  }

  /// The reimported counterpart of an original body frame, if matched.
  std::optional<Frame> counterpart(const Frame& a) const {
    if (a.isWorld()) return Frame::World();
    for (const BodyPair& p : m_bodies) {
      if (p.a == a) return p.b;
    }
    return std::nullopt;
  }

  std::optional<Joint> counterpart(const Joint& a) const {
    for (const MultibodyPair& p : m_multibodies) {
      for (const auto& [la, lb] : p.links) {
        if (la.getParentJoint() == a) return lb.getParentJoint();
      }
    }
    return std::nullopt;
  }

  // ---- configurations ----------------------------------------------------------

  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(m_random); }

  Eigen::Quaterniond randomRotation() {
    std::normal_distribution<double> n;
    Eigen::Quaterniond r(n(m_random), n(m_random), n(m_random), n(m_random));
    return r.normalized();
  }

  /// Random coordinates of a joint, within its limits.
  VectorXd randomPositions(const JointSpec& s) {
    VectorXd q(numPositions(s.type));
    if (s.type == JointType::Ball || s.type == JointType::Free) {
      const Eigen::Quaterniond r = randomRotation();
      const Eigen::Index o = s.type == JointType::Free ? 3 : 0;
      if (s.type == JointType::Free) q.head<3>() = Vector3d(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
      q[o] = r.x();
      q[o + 1] = r.y();
      q[o + 2] = r.z();
      q[o + 3] = r.w();
      return q;
    }
    for (Eigen::Index i = 0; i < q.size(); ++i) {
      const bool linear = s.type == JointType::Prismatic || s.type == JointType::Translational ||
                          (s.type == JointType::Planar && i < 2);
      const double span = linear ? 0.5 : std::numbers::pi;
      double lo = perDof(s.positionLowerLimits, static_cast<int>(i), -std::numeric_limits<double>::infinity());
      double hi = perDof(s.positionUpperLimits, static_cast<int>(i), std::numeric_limits<double>::infinity());
      if (!std::isfinite(lo) && !std::isfinite(hi)) {
        lo = -span;
        hi = span;
      } else if (!std::isfinite(lo)) {
        lo = hi - span;
      } else if (!std::isfinite(hi)) {
        hi = lo + span;
      }
      q[i] = lo < hi ? uniform(lo, hi) : lo;
    }
    return q;
  }

  static VectorXd freeCoordinates(const Isometry3d& X) {
    VectorXd q(7);
    const Eigen::Quaterniond r(X.linear());
    q << X.translation(), r.x(), r.y(), r.z(), r.w();
    return q;
  }

  void setRandomConfiguration() {
    for (MultibodyPair& p : m_multibodies) {
      for (auto& [la, lb] : p.links) {
        Joint ja = la.getParentJoint();
        Joint jb = lb.getParentJoint();
        const VectorXd qj = randomPositions(ja.getSpec());
        ja.setPositions(qj);
        if (jb.numPositions() == ja.numPositions()) jb.setPositions(qj);
      }
    }
    for (RigidPair& p : m_rigid) {
      Isometry3d X = Isometry3d::Identity();
      X.linear() = randomRotation().toRotationMatrix();
      X.translation() = Vector3d(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
      p.a.setPose(X);
      if (p.b) {
        p.b->setPose(X);
      } else {
        p.link->getParentJoint().setPositions(freeCoordinates(X));
      }
    }
  }

  // ---- bodies ------------------------------------------------------------------

  void compareInertia(const std::string& what, const Inertia& ia, const Isometry3d& Xa, const Inertia& ib,
                      const Isometry3d& Xb, const std::string& at) {
    const double tol = m_o.tolerance;
    if (!sameValue(ia.mass, ib.mass, tol)) diff(what + ": mass " + fmt(ia.mass) + " vs " + fmt(ib.mass));
    const Vector3d ca = Xa * ia.com;
    const Vector3d cb = Xb * ib.com;
    if ((ca - cb).norm() > tol) diff(what + ": world COM " + fmt(ca) + " vs " + fmt(cb) + at);
    const Matrix3d Ia = Xa.linear() * ia.rotational * Xa.linear().transpose();
    const Matrix3d Ib = Xb.linear() * ib.rotational * Xb.linear().transpose();
    if ((Ia - Ib).norm() > tol * std::max(1.0, Ia.norm())) {
      diff(what + ": world rotational inertia " + fmt(Ia) + " vs " + fmt(Ib) + at);
    }
  }

  void comparePose(const std::string& what, const Isometry3d& Xa, const Isometry3d& Xb, const std::string& at) {
    if ((Xa.translation() - Xb.translation()).norm() > m_o.tolerance ||
        (Xa.linear() - Xb.linear()).norm() > m_o.tolerance) {
      diff(what + ": world pose " + fmt(Xa.matrix()) + " vs " + fmt(Xb.matrix()) + at);
    }
  }

  void compareBodies(const std::string& at) {
    for (const MultibodyPair& p : m_multibodies) {
      for (const auto& [la, lb] : p.links) {
        const std::string what = "link " + q(la.name());
        compareInertia(what, la.getInertia(), la.getWorldTransform(), lb.getInertia(), lb.getWorldTransform(), at);
        const Joint ja = la.getParentJoint();
        const Joint jb = lb.getParentJoint();
        if (ja.type() != jb.type()) {
          diff("joint " + q(p.a.name() + "/" + ja.name()) + ": a " + std::string(toString(ja.type())) +
               " joint, read back as a " + std::string(toString(jb.type())) + " joint");
          continue;
        }
        // The joint frame on the child side: X_WL · childOffset.
        comparePose("joint frame of " + q(p.a.name() + "/" + ja.name()),
                    la.getWorldTransform() * ja.getSpec().childOffset,
                    lb.getWorldTransform() * jb.getSpec().childOffset, at);
      }
    }
    for (const RigidPair& p : m_rigid) {
      const std::string what = "rigid body " + q(p.a.name());
      const Frame b = p.b ? Frame(*p.b) : Frame(*p.link);
      const Inertia ib = p.b ? p.b->getInertia() : p.link->getInertia();
      compareInertia(what, p.a.getInertia(), p.a.getWorldTransform(), ib, b.getWorldTransform(), at);
      comparePose(what, p.a.getWorldTransform(), b.getWorldTransform(), at);
    }
  }

  /// M(q) without the armature on its diagonal.
  static MatrixXd inertiaMatrix(const Multibody& mb) {
    MatrixXd M = mb.getMassMatrix();
    for (const Joint& j : mb.getJoints()) {
      const JointSpec s = j.getSpec();
      for (int k = 0; k < j.numDofs(); ++k) {
        const int i = j.velocityOffset() + k;
        M(i, i) -= perDof(s.armature, k, 0.0);
      }
    }
    return M;
  }

  void compareMassMatrices(const std::string& at) {
    for (const MultibodyPair& p : m_multibodies) {
      if (p.a.numDofs() != p.b.numDofs()) {
        diff("multibody " + q(p.a.name()) + ": " + std::to_string(p.a.numDofs()) + " DoFs, read back with " +
             std::to_string(p.b.numDofs()));
        continue;
      }
      std::vector<int> rows(static_cast<std::size_t>(p.a.numDofs()), -1);  // original row → reimported row
      for (const auto& [la, lb] : p.links) {
        const Joint ja = la.getParentJoint();
        const Joint jb = lb.getParentJoint();
        if (ja.numDofs() != jb.numDofs()) continue;  // reported by compareBodies
        for (int k = 0; k < ja.numDofs(); ++k)
          rows[static_cast<std::size_t>(ja.velocityOffset() + k)] = jb.velocityOffset() + k;
      }
      if (std::find(rows.begin(), rows.end(), -1) != rows.end()) continue;
      const MatrixXd Ma = inertiaMatrix(p.a);
      const MatrixXd Mb = inertiaMatrix(p.b);
      MatrixXd Mp(Ma.rows(), Ma.cols());
      for (Eigen::Index i = 0; i < Ma.rows(); ++i) {
        for (Eigen::Index j = 0; j < Ma.cols(); ++j) {
          Mp(i, j) = Mb(rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(j)]);
        }
      }
      const double err = (Ma - Mp).norm();
      if (err > m_o.tolerance * std::max(1.0, Ma.norm())) {
        diff("multibody " + q(p.a.name()) + ": mass matrices differ by " + fmt(err) + " (norm " + fmt(Ma.norm()) + ")" +
             at);
      }
    }
  }

  // ---- closures and couplers ---------------------------------------------------------

  std::optional<LoopClosure> reimportedClosure(const std::string& name) const {
    if (auto c = m_b.getLoopClosure(name)) return c;
    for (const LoopClosure& c : m_b.getLoopClosures()) {
      const std::string n = c.name();
      const std::string suffix = "::" + name;
      if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) return c;
    }
    return std::nullopt;
  }

  /// The direction an endpoint constrains (Universal: x of A, y of B).
  static Vector3d universalAxis(const Isometry3d& X, bool isA) { return X.linear().col(isA ? 0 : 1); }

  static bool sameDirection(const Vector3d& a, const Vector3d& b, double tol) {
    return std::min((a - b).norm(), (a + b).norm()) <= tol;
  }

  /// Compares an original endpoint with the reimported one on the same
  /// body, in what the family constrains.
  void compareEndpoint(const std::string& what, LoopClosureFamily family, const Isometry3d& Xa, bool aIsA,
                       const Isometry3d& Xb, bool bIsA, const std::string& at) {
    const double tol = m_o.tolerance;
    Vector3d d = Xa.translation() - Xb.translation();
    if (family == LoopClosureFamily::Slider) {
      // Translation along z is free.
      const Vector3d z = Xa.linear().col(2);
      d -= d.dot(z) * z;
    }
    bool same = d.norm() <= tol;
    switch (family) {
      case LoopClosureFamily::Rigid:
      case LoopClosureFamily::Slider:
        same = same && (Xa.linear() - Xb.linear()).norm() <= tol;
        break;
      case LoopClosureFamily::Hinge:
        same = same && sameDirection(Xa.linear().col(2), Xb.linear().col(2), tol);
        break;
      case LoopClosureFamily::Universal:
        same = same && sameDirection(universalAxis(Xa, aIsA), universalAxis(Xb, bIsA), tol);
        break;
      case LoopClosureFamily::Point:
      case LoopClosureFamily::Distance:
        break;
    }
    if (!same) diff(what + ": world pose " + fmt(Xa.matrix()) + " vs " + fmt(Xb.matrix()) + at);
  }

  void compareClosures(const std::string& at) {
    for (const LoopClosure& ca : m_a.getLoopClosures()) {
      if (m_o.skipClosures.count(ca.name()) != 0) continue;
      const std::string what = "closure " + q(ca.name());
      const std::optional<LoopClosure> cb = reimportedClosure(ca.name());
      if (!cb) {
        diff(what + ": not in the reimported world");
        continue;
      }
      if (ca.family() != cb->family()) {
        diff(what + ": a " + std::string(toString(ca.family())) + " closure, read back as a " +
             std::string(toString(cb->family())));
        continue;
      }
      const LoopClosureSpec sa = ca.getSpec();
      const LoopClosureSpec sb = cb->getSpec();
      if (ca.family() == LoopClosureFamily::Distance && !sameValue(sa.length, sb.length, m_o.tolerance)) {
        diff(what + ": length " + fmt(sa.length) + " vs " + fmt(sb.length));
      }
      const std::optional<Frame> bodyA = counterpart(bodyOf(sa.frameA));
      const std::optional<Frame> bodyB = counterpart(bodyOf(sa.frameB));
      if (!bodyA || !bodyB) {
        diff(what + ": joins a body that is not compared");
        continue;
      }
      const Frame reA = bodyOf(sb.frameA);
      const Frame reB = bodyOf(sb.frameB);
      bool swapped = false;
      if (reA == *bodyA && reB == *bodyB) {
        swapped = false;
      } else if (reA == *bodyB && reB == *bodyA) {
        swapped = true;
      } else {
        diff(what + ": read back between other bodies (" + reA.name() + ", " + reB.name() + ")");
        continue;
      }
      const Isometry3d A = ca.getEndpointA();
      const Isometry3d B = ca.getEndpointB();
      const Isometry3d A2 = cb->getEndpointA();
      const Isometry3d B2 = cb->getEndpointB();
      compareEndpoint(what + " endpoint A", ca.family(), A, true, swapped ? B2 : A2, !swapped, at);
      compareEndpoint(what + " endpoint B", ca.family(), B, false, swapped ? A2 : B2, swapped, at);
    }
  }

  void compareCouplers() {
    for (const JointCoupler& ca : m_a.getJointCouplers()) {
      if (m_o.skipCouplers.count(ca.name()) != 0) continue;
      const std::string what = "coupler " + q(ca.name());
      const JointCouplerSpec sa = ca.getSpec();
      const std::optional<Joint> follower = counterpart(sa.follower);
      const std::optional<Joint> leader = counterpart(sa.leader);
      if (!follower || !leader) {
        diff(what + ": couples a joint that is not compared");
        continue;
      }
      bool found = false;
      for (const JointCoupler& cb : m_b.getJointCouplers()) {
        const JointCouplerSpec sb = cb.getSpec();
        if (!(sb.follower == *follower)) continue;
        found = true;
        if (!(sb.leader == *leader)) diff(what + ": read back with another leader joint (" + sb.leader.name() + ")");
        if (!sameValue(sa.ratio, sb.ratio, m_o.tolerance) || !sameValue(sa.offset, sb.offset, m_o.tolerance)) {
          diff(what + ": ratio " + fmt(sa.ratio) + ", offset " + fmt(sa.offset) + " read back as " + fmt(sb.ratio) +
               ", " + fmt(sb.offset));
        }
      }
      if (!found) diff(what + ": no coupler of the reimported world drives its follower joint");
    }
  }

  // ---- joint properties ----------------------------------------------------------------

  void compareJointProperties() {
    const double tol = m_o.tolerance;
    for (const MultibodyPair& p : m_multibodies) {
      for (const auto& [la, lb] : p.links) {
        const Joint ja = la.getParentJoint();
        const Joint jb = lb.getParentJoint();
        const std::string path = p.a.name() + "/" + ja.name();
        if (m_o.skipJointProperties.count(path) != 0 || ja.type() != jb.type()) continue;
        const std::string what = "joint " + q(path);
        const JointSpec sa = ja.getSpec();
        const JointSpec sb = jb.getSpec();
        // Axes in the world (the joint frames are compared on their own).
        const Matrix3d Ra = (la.getWorldTransform() * sa.childOffset).linear();
        const Matrix3d Rb = (lb.getWorldTransform() * sb.childOffset).linear();
        const bool oneAxis =
            sa.type == JointType::Revolute || sa.type == JointType::Prismatic || sa.type == JointType::Screw;
        const bool twoAxes = sa.type == JointType::Universal || sa.type == JointType::Planar;
        if ((oneAxis || twoAxes) && (Ra * sa.axis.normalized() - Rb * sb.axis.normalized()).norm() > tol) {
          diff(what + ": axis " + fmt(Ra * sa.axis.normalized()) + " vs " + fmt(Rb * sb.axis.normalized()));
        }
        if (twoAxes && (Ra * sa.axis2.normalized() - Rb * sb.axis2.normalized()).norm() > tol) {
          diff(what + ": second axis " + fmt(Ra * sa.axis2.normalized()) + " vs " + fmt(Rb * sb.axis2.normalized()));
        }
        if (sa.type == JointType::Screw && !sameValue(sa.pitch, sb.pitch, tol)) {
          diff(what + ": pitch " + fmt(sa.pitch) + " vs " + fmt(sb.pitch));
        }
        const double inf = std::numeric_limits<double>::infinity();
        struct Field {
          const char* name;
          const VectorXd* a;
          const VectorXd* b;
          double fallback;
        };
        const Field fields[] = {
            {"lower limit", &sa.positionLowerLimits, &sb.positionLowerLimits, -inf},
            {"upper limit", &sa.positionUpperLimits, &sb.positionUpperLimits, inf},
            {"velocity limit", &sa.velocityLimits, &sb.velocityLimits, inf},
            {"effort limit", &sa.effortLimits, &sb.effortLimits, inf},
            {"damping", &sa.damping, &sb.damping, 0.0},
            {"friction", &sa.coulombFriction, &sb.coulombFriction, 0.0},
            {"spring stiffness", &sa.springStiffness, &sb.springStiffness, 0.0},
            {"armature", &sa.armature, &sb.armature, 0.0},
        };
        for (const Field& f : fields) {
          for (int k = 0; k < ja.numDofs(); ++k) {
            const double x = perDof(*f.a, k, f.fallback);
            const double y = perDof(*f.b, k, f.fallback);
            if (!sameValue(x, y, tol)) diff(what + ": " + f.name + " " + fmt(x) + " vs " + fmt(y));
          }
        }
        for (int k = 0; k < ja.numDofs(); ++k) {
          // The rest position matters with a spring only.
          if (perDof(sa.springStiffness, k, 0.0) == 0.0) continue;
          const double x = perDof(sa.restPositions, k, 0.0);
          const double y = perDof(sb.restPositions, k, 0.0);
          if (!sameValue(x, y, tol)) diff(what + ": spring rest position " + fmt(x) + " vs " + fmt(y));
        }
      }
    }
  }

  // ---- initial state, world options ---------------------------------------------------

  static bool samePositions(JointType type, const VectorXd& a, const VectorXd& b, double tol) {
    if (a.size() != b.size()) return false;
    if (type != JointType::Ball && type != JointType::Free) return (a - b).norm() <= tol;
    const Eigen::Index o = type == JointType::Free ? 3 : 0;
    if (o > 0 && (a.head<3>() - b.head<3>()).norm() > tol) return false;
    const Eigen::Vector4d qa = a.segment<4>(o);
    const Eigen::Vector4d qb = b.segment<4>(o);
    return std::min((qa - qb).norm(), (qa + qb).norm()) <= tol;  // q and −q are one rotation
  }

  void compareInitialState() {
    const double tol = m_o.tolerance;
    for (const MultibodyPair& p : m_multibodies) {
      if (m_o.skipInitialState.count(p.a.name()) != 0) continue;
      for (const auto& [la, lb] : p.links) {
        const Joint ja = la.getParentJoint();
        const Joint jb = lb.getParentJoint();
        if (ja.type() != jb.type()) continue;
        const std::string what = "joint " + q(p.a.name() + "/" + ja.name());
        if (!samePositions(ja.type(), ja.getPositions(), jb.getPositions(), tol)) {
          diff(what + ": initial positions " + fmt(ja.getPositions()) + " vs " + fmt(jb.getPositions()));
        }
        if ((ja.getVelocities() - jb.getVelocities()).norm() > tol) {
          diff(what + ": initial velocities " + fmt(ja.getVelocities()) + " vs " + fmt(jb.getVelocities()));
        }
      }
    }
    for (const RigidPair& p : m_rigid) {
      if (m_o.skipInitialState.count(p.a.name()) != 0) continue;
      const std::string what = "rigid body " + q(p.a.name());
      const Frame b = p.b ? Frame(*p.b) : Frame(*p.link);
      comparePose(what + " (initial)", p.a.getWorldTransform(), b.getWorldTransform(), "");
      if ((p.a.getLinearVelocity() - b.getLinearVelocity()).norm() > tol ||
          (p.a.getAngularVelocity() - b.getAngularVelocity()).norm() > tol) {
        diff(what + ": initial velocity differs");
      }
    }
  }

  void compareWorldOptions() {
    const WorldOptions& a = m_a.getOptions();
    const WorldOptions& b = m_b.getOptions();
    if ((a.gravity - b.gravity).norm() > m_o.tolerance) diff("gravity " + fmt(a.gravity) + " vs " + fmt(b.gravity));
    if (!sameValue(a.timeStep, b.timeStep, m_o.tolerance)) {
      diff("time step " + fmt(a.timeStep) + " vs " + fmt(b.timeStep));
    }
  }

  // ---- shapes ------------------------------------------------------------------

  static std::string canonical(const std::string& file) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(file, ec);
    return ec ? file : p.string();
  }

  bool sameGeometry(const Geometry& a, const Geometry& b) const {
    const double tol = m_o.tolerance;
    if (a.type != b.type) return false;
    switch (a.type) {
      case GeometryType::Box:
      case GeometryType::Ellipsoid:
        return (a.size - b.size).norm() <= tol;
      case GeometryType::Sphere:
        return std::abs(a.radius - b.radius) <= tol;
      case GeometryType::Capsule:
      case GeometryType::Cylinder:
        return std::abs(a.radius - b.radius) <= tol && std::abs(a.length - b.length) <= tol;
      case GeometryType::Plane:
        return true;
      case GeometryType::ConvexMesh:
      case GeometryType::TriangleMesh:
        if (!a.meshFile.empty() || !b.meshFile.empty()) {
          return canonical(a.meshFile) == canonical(b.meshFile) && (a.meshScale - b.meshScale).norm() <= tol;
        }
        return a.vertices.size() == b.vertices.size() && a.triangles == b.triangles;
    }
    return false;
  }

  bool sameShape(const Shape& a, const Shape& b) const {
    const double tol = m_o.tolerance;
    if (a.isCollision() != b.isCollision() || !sameGeometry(a.getGeometry(), b.getGeometry())) return false;
    const Isometry3d Xa = a.getWorldTransform();
    const Isometry3d Xb = b.getWorldTransform();
    if (a.getGeometry().type == GeometryType::Plane) {
      // A plane is its normal and height: turning it about its normal, or
      // moving it within itself, changes nothing.
      const Vector3d na = Xa.linear().col(2);
      const Vector3d nb = Xb.linear().col(2);
      if ((na - nb).norm() > tol || std::abs(na.dot(Xa.translation() - Xb.translation())) > tol) return false;
    } else if ((Xa.translation() - Xb.translation()).norm() > tol || (Xa.linear() - Xb.linear()).norm() > tol) {
      return false;
    }
    if (!a.isCollision()) return (a.getColor() - b.getColor()).norm() <= m_o.colorTolerance;
    if (!m_o.compareMaterials) return true;
    return std::abs(a.getMaterial().friction - b.getMaterial().friction) <= tol &&
           std::abs(a.getMaterial().restitution - b.getMaterial().restitution) <= tol &&
           a.isCollidable() == b.isCollidable();
  }

  static std::vector<Shape> shapesOf(const World& w, const Frame& f) {
    std::vector<Shape> out = w.getCollisionShapes(f);
    const std::vector<Shape> visuals = w.getVisualShapes(f);
    out.insert(out.end(), visuals.begin(), visuals.end());
    return out;
  }

  void compareShapesOf(const std::string& what, const Frame& a, const Frame& b) {
    std::vector<Shape> others = shapesOf(m_b, b);
    std::vector<bool> used(others.size(), false);
    for (const Shape& s : shapesOf(m_a, a)) {
      if (m_o.skipShapes.count(s.name()) != 0) continue;
      bool found = false;
      for (std::size_t i = 0; i < others.size() && !found; ++i) {
        if (!used[i] && sameShape(s, others[i])) found = used[i] = true;
      }
      if (!found) {
        diff("shape " + q(s.name()) + " of " + what + " (" + std::string(toString(s.getGeometry().type)) +
             (s.isCollision() ? ", collision" : ", visual") + "): no such shape in the reimported world");
      }
    }
    for (std::size_t i = 0; i < others.size(); ++i) {
      // A skipped shape may come back in another form (a converted mesh): not an extra one.
      if (!used[i] && m_o.skipShapes.count(others[i].name()) == 0) {
        diff("the reimported " + what + " has a shape " + q(others[i].name()) + " the original has not");
      }
    }
  }

  void compareShapes() {
    for (const BodyPair& p : m_bodies) compareShapesOf(q(p.name), p.a, p.b);
    compareShapesOf("world", Frame::World(), Frame::World());
  }

  World& m_a;
  World& m_b;
  const ExportCompareOptions& m_o;
  std::mt19937 m_random;
  std::vector<std::string> m_diffs;
  std::vector<MultibodyPair> m_multibodies;
  std::vector<RigidPair> m_rigid;
  std::vector<BodyPair> m_bodies;
};

}  // namespace export_compare_detail

/// Compares `original` with `reimported` (see the file comment); returns an
/// empty string when they agree, else one line per difference (at most 40).
/// Both worlds must be in design mode; their states are restored.
inline std::string compareExported(World& original, World& reimported, const ExportCompareOptions& options = {}) {
  export_compare_detail::Comparison c(original, reimported, options);
  return c.run();
}

/// The same with the default options and another tolerance.
inline std::string compareExported(World& original, World& reimported, double tolerance) {
  ExportCompareOptions o;
  o.tolerance = tolerance;
  return compareExported(original, reimported, o);
}

}  // namespace articula::test

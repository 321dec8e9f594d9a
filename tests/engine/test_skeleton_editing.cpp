// Skeleton editing in design mode: removing subtrees, moving them within and
// across multibodies, splitting them into new multibodies, copying them,
// and changing joint types — with the invariants each edit must keep
// (tree order, DoF bookkeeping, preserved transforms and coordinates).

#include "test_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

#define VERIFY_EMPTY(errorString)           \
  do {                                      \
    const QString e_ = (errorString);       \
    QVERIFY2(e_.isEmpty(), qPrintable(e_)); \
  } while (false)

namespace {

std::string leaf(const Link& l) {
  return leafName(l.name());
}

/// `name` is `base` followed by a numeric suffix (optionally after one separator).
bool hasNumericSuffix(const std::string& nameIn, const std::string& base) {
  const std::string name = leafName(nameIn);
  if (name.size() <= base.size() || name.compare(0, base.size(), base) != 0) return false;
  std::string rest = name.substr(base.size());
  if (!rest.empty() && (rest[0] == '_' || rest[0] == '-' || rest[0] == '.')) rest.erase(0, 1);
  return !rest.empty() &&
         std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

LinkOptions linkOptions(const std::string& name, double mass = 1.0) {
  LinkOptions o;
  o.name = name;
  o.inertia.mass = mass;
  o.inertia.com = Vector3d(0.05, 0.02, -0.01);
  o.inertia.rotational = Vector3d(0.02, 0.03, 0.04).asDiagonal();
  return o;
}

bool bitEqual(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}

QString vecString(const VectorXd& v) {
  return QString::fromStdString(test::describe(v.transpose()));
}

/// base (free root)
///  ├─ a1 (revolute z)
///  │   └─ a2 (ball)
///  │        └─ a3 (prismatic)
///  └─ b1 (universal)
///       └─ b2 (revolute y)
/// nq = 7+1+4+1+2+1 = 16, nv = 6+1+3+1+2+1 = 14.
struct Tree {
  Multibody mb;
  Link base, a1, a2, a3, b1, b2;
  std::vector<Link> all() const { return {base, a1, a2, a3, b1, b2}; }
};

Tree buildTree(World& w, const std::string& name = "robot") {
  Tree t;
  t.mb = w.addMultibody(name);
  t.base = t.mb.addLink(linkOptions("base", 3.0), JointSpec::free().named("root_joint"));
  t.a1 = t.mb.addLink(linkOptions("a1"), t.base,
                      JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(0.3, 0, 0)).named("j_a1"));
  t.a2 = t.mb.addLink(linkOptions("a2"), t.a1,
                      JointSpec::ball()
                          .withParentOffset(translation(0.2, 0.1, 0) * rotation(0.3, Vector3d::UnitX()))
                          .withChildOffset(translation(-0.05, 0, 0.02))
                          .named("j_a2"));
  t.a3 = t.mb.addLink(linkOptions("a3", 0.5), t.a2,
                      JointSpec::prismatic(Vector3d(1, 1, 0).normalized())
                          .withParentOffset(translation(0, 0, 0.25) * rotation(-0.4, Vector3d::UnitY()))
                          .named("j_a3"));
  t.b1 = t.mb.addLink(linkOptions("b1"), t.base,
                      JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitY())
                          .withParentOffset(translation(-0.3, 0, 0))
                          .named("j_b1"));
  t.b2 = t.mb.addLink(linkOptions("b2", 0.7), t.b1,
                      JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, -0.4)).named("j_b2"));
  return t;
}

VectorXd vec(std::initializer_list<double> values) {
  VectorXd v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double x : values) v[i++] = x;
  return v;
}

void setCoordinates(Tree& t) {
  const Eigen::Vector4d qb = Eigen::Vector4d(0.1, 0.2, 0.3, 0.9).normalized();
  t.base.getParentJoint().setPositions(vec({0.1, -0.2, 0.5, qb[0], qb[1], qb[2], qb[3]}));
  t.base.getParentJoint().setVelocities(vec({0.1, 0.2, -0.3, 0.5, -0.1, 0.2}));
  t.a1.getParentJoint().setPositions(vec({0.4}));
  t.a1.getParentJoint().setVelocities(vec({0.7}));
  const Eigen::Vector4d qa = Eigen::Vector4d(0.3, -0.1, 0.2, 0.92).normalized();
  t.a2.getParentJoint().setPositions(vec({qa[0], qa[1], qa[2], qa[3]}));
  t.a2.getParentJoint().setVelocities(vec({0.3, -0.2, 0.5}));
  t.a3.getParentJoint().setPositions(vec({0.15}));
  t.a3.getParentJoint().setVelocities(vec({-0.4}));
  t.b1.getParentJoint().setPositions(vec({0.2, -0.3}));
  t.b1.getParentJoint().setVelocities(vec({0.1, 0.2}));
  t.b2.getParentJoint().setPositions(vec({-0.7}));
  t.b2.getParentJoint().setVelocities(vec({0.9}));
}

/// Checks tree order (parents before children), joint/link correspondence,
/// offsets as running sums, counts and unique names. Returns "" when fine.
QString treeInvariantError(const Multibody& mb) {
  const std::vector<Link> links = mb.getLinks();
  const std::vector<Joint> joints = mb.getJoints();
  const QString where = qs(mb.name()) + ": ";
  if (links.size() != mb.numLinks()) return where + "getLinks().size() != numLinks()";
  if (joints.size() != links.size()) return where + "getJoints().size() != getLinks().size()";
  if (links.empty()) return {};
  const auto root = mb.getRootLink();
  if (!root || !(*root == links[0])) return where + "first link is not the root";
  int qOffset = 0, vOffset = 0;
  std::vector<std::string> linkNames, jointNames;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (!(joints[i].getChildLink() == links[i]))
      return where + QString("joint %1 is not the parent joint of link %1").arg(i);
    if (!(links[i].getParentJoint() == joints[i])) return where + QString("link %1 parent joint mismatch").arg(i);
    if (!(links[i].getMultibody() == mb)) return where + QString("link %1 reports another multibody").arg(i);
    const auto parent = links[i].getParentLink();
    if (i == 0) {
      if (parent) return where + "root has a parent link";
    } else {
      if (!parent) return where + QString("link %1 has no parent").arg(i);
      const auto it = std::find(links.begin(), links.begin() + static_cast<std::ptrdiff_t>(i), *parent);
      if (it == links.begin() + static_cast<std::ptrdiff_t>(i))
        return where + QString("parent of link %1 does not precede it").arg(qs(leaf(links[i])));
      const auto siblings = parent->getChildLinks();
      if (std::find(siblings.begin(), siblings.end(), links[i]) == siblings.end())
        return where + QString("link %1 missing from its parent's children").arg(qs(leaf(links[i])));
    }
    if (joints[i].positionOffset() != qOffset)
      return where + QString("position offset of joint %1").arg(qs(joints[i].name()));
    if (joints[i].velocityOffset() != vOffset)
      return where + QString("velocity offset of joint %1").arg(qs(joints[i].name()));
    if (joints[i].numPositions() != numPositions(joints[i].type())) return where + "numPositions vs type";
    if (joints[i].numDofs() != numDofs(joints[i].type())) return where + "numDofs vs type";
    if (joints[i].getPositions().size() != joints[i].numPositions()) return where + "joint position size";
    qOffset += joints[i].numPositions();
    vOffset += joints[i].numDofs();
    linkNames.push_back(leaf(links[i]));
    jointNames.push_back(joints[i].name());
    if (!mb.hasLink(linkNames.back()) || !(*mb.getLink(linkNames.back()) == links[i]))
      return where + QString("getLink(%1) does not find the link").arg(qs(linkNames.back()));
    if (!mb.hasJoint(jointNames.back()) || !(*mb.getJoint(jointNames.back()) == joints[i]))
      return where + QString("getJoint(%1) does not find the joint").arg(qs(jointNames.back()));
  }
  if (qOffset != mb.numPositions()) return where + "numPositions() != sum of joint nq";
  if (vOffset != mb.numDofs()) return where + "numDofs() != sum of joint nv";
  if (mb.getPositions().size() != qOffset || mb.getVelocities().size() != vOffset) return where + "state vector sizes";
  std::sort(linkNames.begin(), linkNames.end());
  std::sort(jointNames.begin(), jointNames.end());
  if (std::adjacent_find(linkNames.begin(), linkNames.end()) != linkNames.end()) return where + "duplicate link names";
  if (std::adjacent_find(jointNames.begin(), jointNames.end()) != jointNames.end())
    return where + "duplicate joint names";
  return {};
}

/// Joint coordinates (q, v, τ) by joint handle.
struct JointState {
  Joint joint;
  VectorXd q, v, tau;
};

std::vector<JointState> captureJoints(const std::vector<Joint>& joints) {
  std::vector<JointState> out;
  for (const Joint& j : joints) out.push_back({j, j.getPositions(), j.getVelocities(), j.getForces()});
  return out;
}

QString jointStateError(const std::vector<JointState>& saved) {
  for (const JointState& s : saved) {
    if (!s.joint.isValid()) return "joint handle became invalid";
    if (!bitEqual(s.joint.getPositions(), s.q))
      return qs(s.joint.name()) + ": q changed from " + vecString(s.q) + " to " + vecString(s.joint.getPositions());
    if (!bitEqual(s.joint.getVelocities(), s.v))
      return qs(s.joint.name()) + ": v changed from " + vecString(s.v) + " to " + vecString(s.joint.getVelocities());
    if (!bitEqual(s.joint.getForces(), s.tau))
      return qs(s.joint.name()) + ": tau changed from " + vecString(s.tau) + " to " + vecString(s.joint.getForces());
  }
  return {};
}

}  // namespace

class TestSkeletonEditing : public QObject {
  Q_OBJECT

 private slots:
  void treeBuildsAsExpected();
  void removeSubtree();
  void removeRootEmptiesMultibody();
  void moveToWithinMultibody();
  void moveToAcrossMultibodies();
  void moveToRejectsCycles();
  void moveToWithNewJoint();
  void splitPreservesWorldPose_data();
  void splitPreservesWorldPose();
  void splitRejectsTakenName();
  void copyToSameParent();
  void copyToOtherParentAndMultibody();
  void copyAsMultibody();
  void setSpecChangesType();
  void untouchedStateSurvivesEdits();
};

void TestSkeletonEditing::treeBuildsAsExpected() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  QCOMPARE(t.mb.numLinks(), std::size_t{6});
  QCOMPARE(t.mb.numDofs(), 14);
  QCOMPARE(t.mb.numPositions(), 16);
  QCOMPARE(w.numDofs(), 14);
  VERIFY_EMPTY(treeInvariantError(t.mb));
  // Sanity of the fixture: a2 in a1 follows X_PC = parentOffset · X_J(q) · childOffset⁻¹.
  const Eigen::Vector4d qa = t.a2.getParentJoint().getPositions();
  const Quaterniond quat(qa[3], qa[0], qa[1], qa[2]);
  Isometry3d XJ = Isometry3d::Identity();
  XJ.linear() = quat.toRotationMatrix();
  const Isometry3d expected =
      translation(0.2, 0.1, 0) * rotation(0.3, Vector3d::UnitX()) * XJ * translation(-0.05, 0, 0.02).inverse();
  VERIFY_NEAR(t.a2.getTransform(t.a1).matrix(), expected.matrix(), 1e-12);
  VERIFY_NEAR(t.a2.getParentJoint().getRelativeTransform().matrix(), expected.matrix(), 1e-12);
}

void TestSkeletonEditing::removeSubtree() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  const Joint ja2 = t.a2.getParentJoint(), ja3 = t.a3.getParentJoint();
  const auto kept =
      captureJoints({t.base.getParentJoint(), t.a1.getParentJoint(), t.b1.getParentJoint(), t.b2.getParentJoint()});
  std::map<std::string, Isometry3d> poses;
  for (const Link& l : {t.base, t.a1, t.b1, t.b2}) poses[leaf(l)] = l.getWorldTransform();

  t.a2.remove();

  QCOMPARE(t.mb.numLinks(), std::size_t{4});
  QCOMPARE(t.mb.numDofs(), 14 - 3 - 1);
  QCOMPARE(t.mb.numPositions(), 16 - 4 - 1);
  QCOMPARE(w.numDofs(), 10);
  QCOMPARE(w.numPositions(), 11);
  QVERIFY(!t.a2.isValid());
  QVERIFY(!t.a3.isValid());
  QVERIFY(!ja2.isValid());
  QVERIFY(!ja3.isValid());
  QVERIFY(t.a1.isValid() && t.b2.isValid() && t.base.isValid());
  QVERIFY(!t.mb.hasLink("a2"));
  QVERIFY(!t.mb.hasLink("a3"));
  QVERIFY(!t.mb.hasJoint("j_a2"));
  QVERIFY(!t.mb.hasJoint("j_a3"));
  QVERIFY(!w.getFrame("robot/a3").has_value());
  QVERIFY(t.a1.getChildLinks().empty());
  EXPECT_THROW_NONEMPTY(InvalidHandle, t.a3.getWorldTransform());
  EXPECT_THROW_NONEMPTY(InvalidHandle, ja2.getPositions());
  VERIFY_EMPTY(treeInvariantError(t.mb));
  VERIFY_EMPTY(jointStateError(kept));
  for (const Link& l : {t.base, t.a1, t.b1, t.b2})
    VERIFY_NEAR(l.getWorldTransform().matrix(), poses[leaf(l)].matrix(), 1e-12);

  // Names of removed links are free again.
  Link again = t.mb.addLink(linkOptions("a2"), t.a1, JointSpec::prismatic(Vector3d::UnitZ()).named("j_a2"));
  QVERIFY(again.isValid());
  QVERIFY(!t.a2.isValid());
  QCOMPARE(t.mb.numDofs(), 11);
  VERIFY_EMPTY(treeInvariantError(t.mb));
}

void TestSkeletonEditing::removeRootEmptiesMultibody() {
  World w;
  Tree t = buildTree(w);
  Tree other = buildTree(w, "other");
  t.base.remove();
  QVERIFY(t.mb.isValid());
  QCOMPARE(t.mb.numLinks(), std::size_t{0});
  QCOMPARE(t.mb.numDofs(), 0);
  for (const Link& l : t.all()) QVERIFY(!l.isValid());
  QVERIFY(!t.mb.getRootLink().has_value());
  QCOMPARE(w.numDofs(), 14);  // only "other" left
  for (const Link& l : other.all()) QVERIFY(l.isValid());
  // A multibody without a root does not validate.
  EXPECT_THROW_NONEMPTY(TopologyError, w.validateTopology());
}

void TestSkeletonEditing::moveToWithinMultibody() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  Joint ja2 = t.a2.getParentJoint();
  const Isometry3d X_a1_a2 = t.a2.getTransform(t.a1);
  const Isometry3d X_a2_a3 = t.a3.getTransform(t.a2);
  const auto allJoints = captureJoints(t.mb.getJoints());

  t.a2.moveTo(t.b1);

  // Handles stay valid; the joint and its coordinates are kept.
  for (const Link& l : t.all()) QVERIFY(l.isValid());
  QVERIFY(ja2.isValid());
  QVERIFY(t.a2.getParentJoint() == ja2);
  QCOMPARE(qs(ja2.name()), QString("j_a2"));
  QCOMPARE(qs(leaf(t.a2)), QString("a2"));
  QCOMPARE(static_cast<int>(ja2.type()), static_cast<int>(JointType::Ball));
  VERIFY_EMPTY(jointStateError(allJoints));
  // New structure.
  QVERIFY(*t.a2.getParentLink() == t.b1);
  QVERIFY(*t.a3.getParentLink() == t.a2);
  QVERIFY(t.a1.getChildLinks().empty());
  QCOMPARE(t.b1.getChildLinks().size(), std::size_t{2});
  QCOMPARE(t.mb.numLinks(), std::size_t{6});
  QCOMPARE(t.mb.numDofs(), 14);
  QCOMPARE(t.mb.numPositions(), 16);
  VERIFY_EMPTY(treeInvariantError(t.mb));
  // Relative transforms are kept; world transforms follow the new parent.
  VERIFY_NEAR(t.a2.getTransform(t.b1).matrix(), X_a1_a2.matrix(), 1e-12);
  VERIFY_NEAR(t.a3.getTransform(t.a2).matrix(), X_a2_a3.matrix(), 1e-12);
  VERIFY_NEAR(t.a2.getWorldTransform().matrix(), (t.b1.getWorldTransform() * X_a1_a2).matrix(), 1e-12);
  VERIFY_NEAR(t.a3.getWorldTransform().matrix(), (t.b1.getWorldTransform() * X_a1_a2 * X_a2_a3).matrix(), 1e-12);
  // The multibody-level vectors follow the new tree order.
  const VectorXd q = t.mb.getPositions();
  QVERIFY(bitEqual(q.segment(ja2.positionOffset(), 4), ja2.getPositions()));
}

void TestSkeletonEditing::moveToAcrossMultibodies() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  Multibody other = w.addMultibody("other");
  Link oRoot = other.addLink(linkOptions("o_base"), JointSpec::weld(translation(2, 0, 0)).named("o_weld"));
  // Clashing link and joint names in the target.
  Link oClash = other.addLink(linkOptions("a3"), oRoot, JointSpec::revolute(Vector3d::UnitZ()).named("j_a2"));
  QCOMPARE(w.numDofs(), 14 + 1);

  Joint ja2 = t.a2.getParentJoint(), ja3 = t.a3.getParentJoint();
  const Isometry3d X_a1_a2 = t.a2.getTransform(t.a1);
  const Isometry3d X_a2_a3 = t.a3.getTransform(t.a2);
  const auto moved = captureJoints({ja2, ja3});
  const auto stay = captureJoints({t.base.getParentJoint(), t.a1.getParentJoint(), t.b1.getParentJoint(),
                                   t.b2.getParentJoint(), oClash.getParentJoint()});

  t.a2.moveTo(oClash);

  QVERIFY(t.a2.isValid() && t.a3.isValid() && ja2.isValid() && ja3.isValid());
  QVERIFY(t.a2.getMultibody() == other);
  QVERIFY(t.a3.getMultibody() == other);
  QVERIFY(*t.a2.getParentLink() == oClash);
  QCOMPARE(t.mb.numLinks(), std::size_t{4});
  QCOMPARE(other.numLinks(), std::size_t{4});
  QCOMPARE(t.mb.numDofs(), 14 - 4);
  QCOMPARE(other.numDofs(), 1 + 4);
  QCOMPARE(t.mb.numDofs() + other.numDofs(), 15);
  QCOMPARE(w.numDofs(), 15);
  QCOMPARE(t.mb.numPositions() + other.numPositions(), 16 + 1);
  QVERIFY(!t.mb.hasLink("a2"));
  QVERIFY(!t.mb.hasLink("a3"));
  QVERIFY(!t.mb.hasJoint("j_a2"));

  // Names: a2 does not clash; a3 and j_a2 do and get a numeric suffix.
  QCOMPARE(qs(leaf(t.a2)), QString("a2"));
  QVERIFY2(hasNumericSuffix(t.a3.name(), "a3"), t.a3.name().c_str());
  QVERIFY2(hasNumericSuffix(ja2.name(), "j_a2"), ja2.name().c_str());
  QCOMPARE(qs(ja3.name()), QString("j_a3"));
  QVERIFY(*other.getLink("a3") == oClash);
  QVERIFY(*other.getJoint("j_a2") == oClash.getParentJoint());
  QVERIFY(*other.getLink(leaf(t.a3)) == t.a3);
  QVERIFY(*other.getJoint(ja2.name()) == ja2);

  VERIFY_EMPTY(jointStateError(moved));
  VERIFY_EMPTY(jointStateError(stay));
  VERIFY_EMPTY(treeInvariantError(t.mb));
  VERIFY_EMPTY(treeInvariantError(other));
  VERIFY_NEAR(t.a2.getTransform(oClash).matrix(), X_a1_a2.matrix(), 1e-12);
  VERIFY_NEAR(t.a3.getTransform(t.a2).matrix(), X_a2_a3.matrix(), 1e-12);
  VERIFY_NEAR(t.a2.getWorldTransform().matrix(), (oClash.getWorldTransform() * X_a1_a2).matrix(), 1e-12);

  // The world state space agrees.
  const StateSpace ss = w.getStateSpace();
  QCOMPARE(ss.numVelocities(), 15);
  QVERIFY(ss.segment("other", ja2.name()).has_value());
  QVERIFY(!ss.segment("robot", "j_a2").has_value());
  const auto seg = ss.segment("other", "j_a3");
  QVERIFY(seg.has_value());
  QCOMPARE(w.getPositions()[seg->positionOffset], ja3.getPosition(0));

  // Move back into the original multibody.
  t.a2.moveTo(t.a1);
  QVERIFY(t.a2.getMultibody() == t.mb);
  QCOMPARE(t.mb.numDofs(), 14);
  QCOMPARE(other.numDofs(), 1);
  VERIFY_EMPTY(jointStateError(moved));
  VERIFY_EMPTY(treeInvariantError(t.mb));
  VERIFY_EMPTY(treeInvariantError(other));
  VERIFY_NEAR(t.a2.getTransform(t.a1).matrix(), X_a1_a2.matrix(), 1e-12);
}

void TestSkeletonEditing::moveToRejectsCycles() {
  World w;
  Tree t = buildTree(w);
  EXPECT_THROW_NONEMPTY(TopologyError, t.a1.moveTo(t.a3));  // under its own descendant
  EXPECT_THROW_NONEMPTY(TopologyError, t.a1.moveTo(t.a1));  // under itself
  QVERIFY(*t.a1.getParentLink() == t.base);
  QVERIFY(*t.a3.getParentLink() == t.a2);
  QCOMPARE(t.mb.numLinks(), std::size_t{6});
  QCOMPARE(t.mb.numDofs(), 14);
  VERIFY_EMPTY(treeInvariantError(t.mb));
}

void TestSkeletonEditing::moveToWithNewJoint() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  const Isometry3d X_a2_a3 = t.a3.getTransform(t.a2);
  const auto a3State = captureJoints({t.a3.getParentJoint()});

  t.a2.moveTo(t.b2, JointSpec::revolute(Vector3d::UnitX()).withParentOffset(translation(0, 0, -0.2)).named("new_j"));

  QVERIFY(*t.a2.getParentLink() == t.b2);
  QCOMPARE(static_cast<int>(t.a2.getParentJoint().type()), static_cast<int>(JointType::Revolute));
  QCOMPARE(t.a2.getParentJoint().numDofs(), 1);
  QVERIFY(t.mb.hasJoint("new_j"));
  QCOMPARE(t.mb.numDofs(), 14 - 3 + 1);
  QCOMPARE(t.mb.numPositions(), 16 - 4 + 1);
  QCOMPARE(w.numDofs(), 12);
  VERIFY_EMPTY(treeInvariantError(t.mb));
  VERIFY_EMPTY(jointStateError(a3State));
  VERIFY_NEAR(t.a3.getTransform(t.a2).matrix(), X_a2_a3.matrix(), 1e-12);
  // X_PC = parentOffset · R_x(θ), whatever θ the new joint has.
  const double theta = t.a2.getParentJoint().getPosition(0);
  VERIFY_NEAR(t.a2.getTransform(t.b2).matrix(), (translation(0, 0, -0.2) * rotation(theta, Vector3d::UnitX())).matrix(),
              1e-12);
}

void TestSkeletonEditing::splitPreservesWorldPose_data() {
  QTest::addColumn<QString>("linkName");
  QTest::addColumn<int>("oldNv");
  QTest::addColumn<int>("oldNq");
  QTest::addColumn<QStringList>("subtree");
  QTest::newRow("ball a2") << "a2" << 3 << 4 << QStringList{"a2", "a3"};
  QTest::newRow("revolute a1") << "a1" << 1 << 1 << QStringList{"a1", "a2", "a3"};
  QTest::newRow("universal b1") << "b1" << 2 << 2 << QStringList{"b1", "b2"};
  QTest::newRow("prismatic leaf a3") << "a3" << 1 << 1 << QStringList{"a3"};
}

void TestSkeletonEditing::splitPreservesWorldPose() {
  QFETCH(QString, linkName);
  QFETCH(int, oldNv);
  QFETCH(int, oldNq);
  QFETCH(QStringList, subtree);

  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  Link link = *t.mb.getLink(linkName.toStdString());
  QCOMPARE(link.getParentJoint().numDofs(), oldNv);
  QCOMPARE(link.getParentJoint().numPositions(), oldNq);

  struct Motion {
    Isometry3d X;
    Vector3d omega, vel;
  };
  std::map<std::string, Motion> before;
  for (const Link& l : t.all())
    before[leaf(l)] = {l.getWorldTransform(), l.getAngularVelocity(), l.getLinearVelocity()};
  const int nvWorld = w.numDofs(), nqWorld = w.numPositions();
  std::vector<Joint> untouched;
  for (const Link& l : t.all())
    if (!subtree.contains(qs(leaf(l)))) untouched.push_back(l.getParentJoint());
  // Subtree joints below the split link keep their coordinates (looked up by child link name).
  struct Saved {
    std::string child;
    VectorXd q, v;
  };
  std::vector<Saved> movedState;
  for (const Link& l : t.all())
    if (subtree.contains(qs(leaf(l))) && qs(leaf(l)) != linkName)
      movedState.push_back({leaf(l), l.getParentJoint().getPositions(), l.getParentJoint().getVelocities()});
  const auto untouchedState = captureJoints(untouched);

  Multibody s = link.split("split_mb", JointSpec::free());

  QVERIFY(s.isValid());
  QCOMPARE(qs(s.name()), QString("split_mb"));
  QVERIFY(w.hasMultibody("split_mb"));
  QCOMPARE(w.numMultibodies(), std::size_t{2});
  QCOMPARE(w.numDofs(), nvWorld + 6 - oldNv);
  QCOMPARE(w.numPositions(), nqWorld + 7 - oldNq);
  QCOMPARE(s.numLinks(), static_cast<std::size_t>(subtree.size()));
  QCOMPARE(t.mb.numLinks(), std::size_t{6} - static_cast<std::size_t>(subtree.size()));
  QCOMPARE(t.mb.numDofs() + s.numDofs(), w.numDofs());
  const auto root = s.getRootLink();
  QVERIFY(root.has_value());
  QCOMPARE(qs(leaf(*root)), linkName);
  QCOMPARE(static_cast<int>(root->getParentJoint().type()), static_cast<int>(JointType::Free));
  VERIFY_EMPTY(treeInvariantError(t.mb));
  VERIFY_EMPTY(treeInvariantError(s));
  VERIFY_EMPTY(jointStateError(untouchedState));

  for (const QString& n : subtree) {
    const auto l = s.getLink(n.toStdString());
    QVERIFY2(l.has_value(), qPrintable(n));
    QVERIFY2(!t.mb.hasLink(n.toStdString()), qPrintable(n));
    const Motion& m = before[n.toStdString()];
    VERIFY_NEAR(l->getWorldTransform().matrix(), m.X.matrix(), 1e-12);
    VERIFY_NEAR(l->getAngularVelocity(), m.omega, 1e-10);
    VERIFY_NEAR(l->getLinearVelocity(), m.vel, 1e-10);
  }
  for (const Saved& m : movedState) {
    const auto l = s.getLink(m.child);
    QVERIFY2(l.has_value(), m.child.c_str());
    QVERIFY2(bitEqual(l->getParentJoint().getPositions(), m.q), m.child.c_str());
    QVERIFY2(bitEqual(l->getParentJoint().getVelocities(), m.v), m.child.c_str());
  }
  for (const Link& l : t.all()) {
    const std::string n = leaf(l);
    if (subtree.contains(qs(n))) continue;
    VERIFY_NEAR(t.mb.getLink(n)->getWorldTransform().matrix(), before[n].X.matrix(), 1e-12);
  }
}

void TestSkeletonEditing::splitRejectsTakenName() {
  World w;
  Tree t = buildTree(w);
  w.addRigidBody("rb");
  EXPECT_THROW_NONEMPTY(TopologyError, t.a2.split("robot"));
  EXPECT_THROW_NONEMPTY(TopologyError, t.a2.split("rb"));
  QCOMPARE(w.numMultibodies(), std::size_t{1});
  QCOMPARE(t.mb.numLinks(), std::size_t{6});
  QVERIFY(t.a2.getMultibody() == t.mb);
  VERIFY_EMPTY(treeInvariantError(t.mb));
}

void TestSkeletonEditing::copyToSameParent() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  const auto original = captureJoints(t.mb.getJoints());
  const VectorXd qa2 = t.a2.getParentJoint().getPositions();
  const Isometry3d X_a2 = t.a2.getWorldTransform(), X_a3 = t.a3.getWorldTransform();

  const Link copy = t.a2.copyTo(t.a1);

  QVERIFY(copy.isValid());
  QVERIFY(copy != t.a2);
  QVERIFY(copy.getMultibody() == t.mb);
  QVERIFY(*copy.getParentLink() == t.a1);
  QCOMPARE(t.mb.numLinks(), std::size_t{8});
  QCOMPARE(t.mb.numDofs(), 14 + 3 + 1);
  QCOMPARE(t.mb.numPositions(), 16 + 4 + 1);
  QCOMPARE(w.numDofs(), 18);
  // Names clash within the multibody → suffixed copies.
  QVERIFY2(hasNumericSuffix(copy.name(), "a2"), copy.name().c_str());
  QVERIFY2(copy.getParentJoint().name() != "j_a2", copy.getParentJoint().name().c_str());
  const auto children = copy.getChildLinks();
  QCOMPARE(children.size(), std::size_t{1});
  const Link copyChild = children[0];
  QVERIFY2(hasNumericSuffix(copyChild.name(), "a3"), copyChild.name().c_str());
  // Same joint types and coordinates, so the same world transforms.
  QCOMPARE(static_cast<int>(copy.getParentJoint().type()), static_cast<int>(JointType::Ball));
  QVERIFY(bitEqual(copy.getParentJoint().getPositions(), t.a2.getParentJoint().getPositions()));
  QVERIFY(bitEqual(copyChild.getParentJoint().getPositions(), t.a3.getParentJoint().getPositions()));
  QVERIFY(bitEqual(copy.getParentJoint().getVelocities(), t.a2.getParentJoint().getVelocities()));
  VERIFY_NEAR(copy.getWorldTransform().matrix(), X_a2.matrix(), 1e-12);
  VERIFY_NEAR(copyChild.getWorldTransform().matrix(), X_a3.matrix(), 1e-12);
  VERIFY_NEAR(copy.getInertia().com, t.a2.getInertia().com, 0.0);
  QCOMPARE(copy.getInertia().mass, t.a2.getInertia().mass);
  // Originals untouched.
  VERIFY_EMPTY(jointStateError(original));
  QVERIFY(*t.a2.getParentLink() == t.a1);
  QCOMPARE(t.a2.getChildLinks().size(), std::size_t{1});
  QVERIFY(t.a2.getChildLinks()[0] == t.a3);
  QCOMPARE(qs(leaf(t.a2)), QString("a2"));
  QCOMPARE(t.a1.getChildLinks().size(), std::size_t{2});
  VERIFY_NEAR(t.a2.getWorldTransform().matrix(), X_a2.matrix(), 1e-15);
  VERIFY_EMPTY(treeInvariantError(t.mb));

  // The copy is independent: changing it leaves the original alone.
  copy.getParentJoint().setPositions(vec({0, 0, 0, 1}));
  QVERIFY(bitEqual(t.a2.getParentJoint().getPositions(), qa2));
}

void TestSkeletonEditing::copyToOtherParentAndMultibody() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  const Isometry3d X_a1_a2 = t.a2.getTransform(t.a1);
  const Isometry3d X_a2_a3 = t.a3.getTransform(t.a2);
  const auto original = captureJoints(t.mb.getJoints());

  // Under a different parent: same relative transforms.
  const Link copy = t.a2.copyTo(t.b2);
  QVERIFY(*copy.getParentLink() == t.b2);
  QCOMPARE(copy.getChildLinks().size(), std::size_t{1});
  VERIFY_NEAR(copy.getTransform(t.b2).matrix(), X_a1_a2.matrix(), 1e-12);
  VERIFY_NEAR(copy.getChildLinks()[0].getTransform(copy).matrix(), X_a2_a3.matrix(), 1e-12);
  QCOMPARE(t.mb.numDofs(), 18);
  VERIFY_EMPTY(jointStateError(original));
  VERIFY_EMPTY(treeInvariantError(t.mb));

  // Into another multibody whose parent link sits exactly where a1 is: same world transforms.
  Multibody other = w.addMultibody("other");
  Link oRoot = other.addLink(linkOptions("o_root"), JointSpec::weld(t.a1.getWorldTransform()).named("o_weld"));
  VERIFY_NEAR(oRoot.getWorldTransform().matrix(), t.a1.getWorldTransform().matrix(), 1e-12);
  const Link copy2 = t.a2.copyTo(oRoot);
  QVERIFY(copy2.getMultibody() == other);
  QCOMPARE(qs(leaf(copy2)), QString("a2"));  // no clash in "other"
  QCOMPARE(other.numLinks(), std::size_t{3});
  QCOMPARE(other.numDofs(), 4);
  QCOMPARE(t.mb.numDofs(), 18);
  QCOMPARE(w.numDofs(), 22);
  VERIFY_NEAR(copy2.getWorldTransform().matrix(), t.a2.getWorldTransform().matrix(), 1e-12);
  VERIFY_NEAR(other.getLink("a3")->getWorldTransform().matrix(), t.a3.getWorldTransform().matrix(), 1e-12);
  VERIFY_EMPTY(jointStateError(original));
  VERIFY_EMPTY(treeInvariantError(other));
  QVERIFY(t.a2.getMultibody() == t.mb);
}

void TestSkeletonEditing::copyAsMultibody() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  const auto original = captureJoints(t.mb.getJoints());
  const Isometry3d X_a2 = t.a2.getWorldTransform(), X_a3 = t.a3.getWorldTransform();
  const Isometry3d X_a2_a3 = t.a3.getTransform(t.a2);

  const Multibody c = t.a2.copyAsMultibody("copy_mb", JointSpec::free());
  QVERIFY(c.isValid());
  QCOMPARE(qs(c.name()), QString("copy_mb"));
  QCOMPARE(c.numLinks(), std::size_t{2});
  QCOMPARE(c.numDofs(), 6 + 1);
  QCOMPARE(c.numPositions(), 7 + 1);
  QCOMPARE(w.numDofs(), 14 + 7);
  const Link root = *c.getRootLink();
  QCOMPARE(qs(leaf(root)), QString("a2"));
  QCOMPARE(static_cast<int>(root.getParentJoint().type()), static_cast<int>(JointType::Free));
  VERIFY_NEAR(root.getWorldTransform().matrix(), X_a2.matrix(), 1e-12);
  VERIFY_NEAR(c.getLink("a3")->getWorldTransform().matrix(), X_a3.matrix(), 1e-12);
  VERIFY_EMPTY(treeInvariantError(c));
  // Original untouched.
  QCOMPARE(t.mb.numLinks(), std::size_t{6});
  QCOMPARE(t.mb.numDofs(), 14);
  VERIFY_EMPTY(jointStateError(original));
  QVERIFY(t.a2.getMultibody() == t.mb);
  VERIFY_NEAR(t.a2.getWorldTransform().matrix(), X_a2.matrix(), 1e-15);

  // A welded copy sits at the weld's offset with the same internal transforms.
  const Isometry3d X_weld = translation(5, 0, 1) * rotation(0.8, Vector3d(1, 0, 1));
  const Multibody c2 = t.a2.copyAsMultibody("welded_copy", JointSpec::weld(X_weld));
  QCOMPARE(c2.numDofs(), 1);
  const Link root2 = *c2.getRootLink();
  VERIFY_NEAR(root2.getWorldTransform().matrix(), X_weld.matrix(), 1e-12);
  VERIFY_NEAR(c2.getLink("a3")->getTransform(root2).matrix(), X_a2_a3.matrix(), 1e-12);
  EXPECT_THROW_NONEMPTY(TopologyError, t.a2.copyAsMultibody("copy_mb"));
  QCOMPARE(w.numMultibodies(), std::size_t{3});
}

void TestSkeletonEditing::setSpecChangesType() {
  World w;
  Tree t = buildTree(w);
  setCoordinates(t);
  Joint ja1 = t.a1.getParentJoint();
  const auto others = captureJoints({t.base.getParentJoint(), t.a2.getParentJoint(), t.a3.getParentJoint(),
                                     t.b1.getParentJoint(), t.b2.getParentJoint()});

  // Revolute → ball: +2 DoFs, +3 coordinates, neutral quaternion.
  ja1.setSpec(JointSpec::ball().withParentOffset(translation(0.3, 0, 0)).named("j_a1"));
  QVERIFY(ja1.isValid());
  QCOMPARE(static_cast<int>(ja1.type()), static_cast<int>(JointType::Ball));
  QCOMPARE(static_cast<int>(ja1.getSpec().type), static_cast<int>(JointType::Ball));
  QCOMPARE(ja1.numDofs(), 3);
  QCOMPARE(ja1.numPositions(), 4);
  QCOMPARE(t.mb.numDofs(), 16);
  QCOMPARE(t.mb.numPositions(), 19);
  QCOMPARE(w.numDofs(), 16);
  VERIFY_NEAR(ja1.getPositions(), Eigen::Vector4d(0, 0, 0, 1), 0.0);
  VERIFY_NEAR(ja1.getVelocities(), Vector3d::Zero().eval(), 0.0);
  VERIFY_EMPTY(jointStateError(others));
  VERIFY_EMPTY(treeInvariantError(t.mb));
  VERIFY_NEAR(t.a1.getWorldTransform().matrix(), (t.base.getWorldTransform() * translation(0.3, 0, 0)).matrix(), 1e-12);

  // Ball → weld: no DoFs.
  ja1.setSpec(JointSpec::weld(translation(0.3, 0, 0)).named("j_a1"));
  QCOMPARE(ja1.numDofs(), 0);
  QCOMPARE(t.mb.numDofs(), 13);
  QCOMPARE(t.mb.numPositions(), 15);
  VERIFY_EMPTY(jointStateError(others));
  VERIFY_EMPTY(treeInvariantError(t.mb));

  // Prismatic → translational: +2 DoFs, zero coordinates.
  Joint ja3 = t.a3.getParentJoint();
  ja3.setSpec(JointSpec::translational().named("j_a3"));
  QCOMPARE(ja3.numDofs(), 3);
  QCOMPARE(t.mb.numDofs(), 15);
  VERIFY_NEAR(ja3.getPositions(), Vector3d::Zero().eval(), 0.0);
  VERIFY_EMPTY(treeInvariantError(t.mb));

  // Same type with a new axis: the coordinate is kept.
  Joint jb2 = t.b2.getParentJoint();
  const double theta = jb2.getPosition(0);
  QCOMPARE(theta, -0.7);
  jb2.setSpec(JointSpec::revolute(Vector3d::UnitX()).withParentOffset(translation(0, 0, -0.4)).named("j_b2"));
  QCOMPARE(jb2.getPosition(0), theta);
  QCOMPARE(t.mb.numDofs(), 15);
  VERIFY_NEAR(t.b2.getTransform(t.b1).matrix(), (translation(0, 0, -0.4) * rotation(theta, Vector3d::UnitX())).matrix(),
              1e-12);
  QCOMPARE(w.getStateSpace().numVelocities(), 15);
}

void TestSkeletonEditing::untouchedStateSurvivesEdits() {
  World w;
  RigidBodyOptions o;
  o.inertia.mass = 2.0;
  o.pose = translation(1, 2, 3) * rotation(0.4, Vector3d(1, 1, 1));
  o.linearVelocity = Vector3d(0.1, 0.2, 0.3);
  o.angularVelocity = Vector3d(-0.3, 0.2, 0.1);
  RigidBody rb = w.addRigidBody("rb", o);
  Tree t = buildTree(w);
  setCoordinates(t);
  t.b2.getParentJoint().setForces(vec({0.42}));
  t.b1.getParentJoint().setForces(vec({-0.1, 0.2}));
  const auto kept = captureJoints({t.base.getParentJoint(), t.b1.getParentJoint(), t.b2.getParentJoint()});
  const auto rbSeg0 = w.getStateSpace().segment("rb");
  const VectorXd rbQ = w.getPositions().segment(rbSeg0->positionOffset, 7);
  const VectorXd rbV = w.getVelocities().segment(rbSeg0->velocityOffset, 6);

  auto check = [&]() -> QString {
    QString e = jointStateError(kept);
    if (!e.isEmpty()) return e;
    const auto seg = w.getStateSpace().segment("rb");
    if (!seg) return "rigid body segment missing";
    if (!bitEqual(w.getPositions().segment(seg->positionOffset, 7), rbQ)) return "rigid body q changed";
    if (!bitEqual(w.getVelocities().segment(seg->velocityOffset, 6), rbV)) return "rigid body v changed";
    if (!rb.isValid()) return "rigid body handle invalid";
    return treeInvariantError(t.mb);
  };

  std::vector<std::pair<const char*, std::function<void()>>> edits = {
      {"remove a3", [&] { t.a3.remove(); }},
      {"add link under a1", [&] { t.mb.addLink(linkOptions("n1"), t.a1, JointSpec::euler().named("j_n1")); }},
      {"add link under a2", [&] { t.mb.addLink(linkOptions("n2"), t.a2, JointSpec::planar().named("j_n2")); }},
      {"move a2 under base", [&] { t.a2.moveTo(t.base); }},
      {"copy a2 under a1", [&] { t.a2.copyTo(t.a1); }},
      {"add multibody",
       [&] {
         Multibody extra = w.addMultibody("extra");
         extra.addLink(linkOptions("e"), JointSpec::ball());
       }},
      {"add rigid body", [&] { w.addRigidBody("rb2"); }},
      {"setSpec a1",
       [&] {
         t.a1.getParentJoint().setSpec(JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitZ()).named("j_a1"));
       }},
      {"split a2", [&] { t.a2.split("split_a2"); }},
      {"copy a1 as multibody", [&] { t.a1.copyAsMultibody("copy_a1"); }},
      {"remove multibody", [&] { w.remove(*w.getMultibody("extra")); }},
      {"remove rigid body", [&] { w.remove(*w.getRigidBody("rb2")); }},
      {"remove a1", [&] { t.a1.remove(); }},
  };
  for (const auto& [label, edit] : edits) {
    try {
      edit();
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("%1 threw: %2").arg(label, e.what())));
    }
    const QString err = check();
    QVERIFY2(err.isEmpty(), qPrintable(QString("after '%1': %2").arg(label, err)));
  }
  // And the coordinates are the ones the simulation starts from.
  w.enterSimulationMode();
  w.reset();
  VERIFY_EMPTY(check());
}

QTEST_APPLESS_MAIN(TestSkeletonEditing)
#include "test_skeleton_editing.moc"

// Loop closures and joint couplers: the World facade (add / get / has / num /
// list / remove, names, lifecycle, clear), topology validation and its error
// messages, endpoints on every kind of frame, the residual definitions of
// every family, the serialization hooks (spec, runtime policy), the DoF
// counts and constraint-row metadata, removal cascades and collision
// filtering between closed bodies.
//
// Residuals are recomputed in the test from the definitions in
// articula/loop_closure.hpp (rotation logs through Eigen::AngleAxisd), both
// from the reported endpoint poses and from the frames' world transforms
// times the offsets; endpoint positions in the simple scenes are derived by
// hand (planar rotations written out with cos/sin).

#include "test_helpers.hpp"
#include "world_helpers.hpp"

#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-12;

constexpr std::array<LoopClosureFamily, 6> kFamilies = {LoopClosureFamily::Rigid,     LoopClosureFamily::Point,
                                                        LoopClosureFamily::Hinge,     LoopClosureFamily::Slider,
                                                        LoopClosureFamily::Universal, LoopClosureFamily::Distance};

/// The names an error about `frames` must mention (the leaf of each frame name).
std::vector<std::string> namesOf(std::initializer_list<Frame> frames) {
  std::vector<std::string> out;
  for (const Frame& f : frames) out.push_back(leafName(f.name()));
  return out;
}

Matrix3d rotX(double a) {
  Matrix3d R;
  R << 1.0, 0.0, 0.0,                  //
      0.0, std::cos(a), -std::sin(a),  //
      0.0, std::sin(a), std::cos(a);
  return R;
}

LoopClosureSpec spec(const Frame& a, const Frame& b, LoopClosureFamily family,
                     const Isometry3d& offsetA = Isometry3d::Identity(),
                     const Isometry3d& offsetB = Isometry3d::Identity(), double length = 0.0) {
  LoopClosureSpec s;
  s.frameA = a;
  s.frameB = b;
  s.family = family;
  s.offsetA = offsetA;
  s.offsetB = offsetB;
  s.length = length;
  return s;
}

JointCouplerSpec couplerSpec(const Joint& leader, const Joint& follower, double ratio = 1.0, double offset = 0.0) {
  JointCouplerSpec s;
  s.leader = leader;
  s.follower = follower;
  s.ratio = ratio;
  s.offset = offset;
  return s;
}

std::string str(const Eigen::MatrixXd& m) {
  std::ostringstream os;
  os << m.transpose();
  return os.str();
}

double uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

Vector4d randomUnitQuaternionCoeffs(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vector4d q(n(rng), n(rng), n(rng), n(rng));
  return q.normalized();
}

Matrix3d randomRotation(std::mt19937& rng) {
  const Vector4d c = randomUnitQuaternionCoeffs(rng);
  return Quaterniond(c[3], c[0], c[1], c[2]).toRotationMatrix();
}

Isometry3d randomPose(std::mt19937& rng, double maxTranslation) {
  return pose(randomRotation(rng),
              Vector3d(uniform(rng, -maxTranslation, maxTranslation), uniform(rng, -maxTranslation, maxTranslation),
                       uniform(rng, -maxTranslation, maxTranslation)));
}

/// Random coordinates for every joint of `mb` (unit quaternions for ball and free joints).
void randomizeMultibody(const Multibody& mb, std::mt19937& rng) {
  for (Joint j : mb.getJoints()) {
    VectorXd q(j.numPositions());
    switch (j.type()) {
      case JointType::Ball:
        q = randomUnitQuaternionCoeffs(rng);
        break;
      case JointType::Free:
        q.head<3>() = Vector3d(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
        q.tail<4>() = randomUnitQuaternionCoeffs(rng);
        break;
      default:
        for (Eigen::Index i = 0; i < q.size(); ++i) q[i] = uniform(rng, -2.0, 2.0);
        break;
    }
    j.setPositions(q);
  }
}

/// Rotation vector of R (rad), from Eigen's angle-axis conversion.
Vector3d logRotation(const Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

double relativeAngle(const Isometry3d& A, const Isometry3d& B) {
  return Eigen::AngleAxisd(Matrix3d(A.linear().transpose() * B.linear())).angle();
}

/// The residual of `family` between world endpoint poses A and B, from the
/// definitions in articula/loop_closure.hpp.
VectorXd expectedResidual(LoopClosureFamily family, const Isometry3d& A, const Isometry3d& B, double length) {
  const Matrix3d RA = A.linear();
  const Matrix3d RB = B.linear();
  const Vector3d d = B.translation() - A.translation();
  const Vector3d xA = RA.col(0), yA = RA.col(1);
  const Vector3d yB = RB.col(1), zB = RB.col(2);
  const Vector3d theta = RA * logRotation(RA.transpose() * RB);
  VectorXd r;
  switch (family) {
    case LoopClosureFamily::Rigid:
      r.resize(6);
      r << theta, d;
      break;
    case LoopClosureFamily::Point:
      r = d;
      break;
    case LoopClosureFamily::Hinge:
      r.resize(5);
      r << xA.dot(zB), yA.dot(zB), d;
      break;
    case LoopClosureFamily::Slider:
      r.resize(5);
      r << theta, xA.dot(d), yA.dot(d);
      break;
    case LoopClosureFamily::Universal:
      r.resize(4);
      r << xA.dot(yB), d;
      break;
    case LoopClosureFamily::Distance:
      r.resize(1);
      r << d.norm() - length;
      break;
  }
  return r;
}

/// Empty when |actual − expected|∞ ≤ tol (and sizes agree), else a description.
std::string compareVectors(const VectorXd& actual, const VectorXd& expected, double tol) {
  if (actual.size() != expected.size()) {
    return "size " + std::to_string(actual.size()) + " != expected " + std::to_string(expected.size()) +
           "\nactual:   " + str(actual) + "\nexpected: " + str(expected);
  }
  const double err = (actual - expected).cwiseAbs().maxCoeff();
  if (!(err <= tol)) {
    std::ostringstream os;
    os << "max error " << err << " > " << tol << "\nactual:   " << actual.transpose()
       << "\nexpected: " << expected.transpose();
    return os.str();
  }
  return {};
}

std::string comparePoses(const Isometry3d& actual, const Isometry3d& expected, double tol) {
  const double err = (actual.matrix() - expected.matrix()).cwiseAbs().maxCoeff();
  if (!(err <= tol)) {
    std::ostringstream os;
    os << "pose error " << err << " > " << tol << "\nactual:\n"
       << actual.matrix() << "\nexpected:\n"
       << expected.matrix();
    return os.str();
  }
  return {};
}

/// A scene with every kind of frame: two multibodies (revolute, ball and
/// prismatic joints; a free root and a revolute), two rigid bodies and a
/// user frame fixed on a link.
struct Scene {
  Multibody arm1;
  Multibody arm2;
  Link aBase, aMid, aTip, bRoot, bEnd;
  RigidBody rb1, rb2;
  FixedFrame marker;
};

Scene makeScene(World& w) {
  Scene s;
  s.arm1 = w.addMultibody("arm1");
  s.aBase = s.arm1.addLink(linkOptions("a_base"),
                           JointSpec::revolute(Vector3d(0.3, -0.4, 1.0))
                               .withParentOffset(translation(0.2, 0.1, 0.5) * rotation(0.3, Vector3d::UnitX()))
                               .named("a_base_joint"));
  s.aMid = s.arm1.addLink(linkOptions("a_mid"), s.aBase,
                          JointSpec::ball().withParentOffset(translation(0.6, 0.0, 0.0)).named("a_mid_joint"));
  s.aTip = s.arm1.addLink(linkOptions("a_tip"), s.aMid,
                          JointSpec::prismatic(Vector3d::UnitX())
                              .withParentOffset(translation(0.0, 0.4, 0.0) * rotation(0.5, Vector3d::UnitZ()))
                              .withChildOffset(translation(0.1, 0.0, 0.0))
                              .named("a_tip_joint"));
  s.arm2 = w.addMultibody("arm2");
  s.bRoot = s.arm2.addLink(linkOptions("b_root"), JointSpec::free().named("b_root_joint"));
  s.bEnd = s.arm2.addLink(
      linkOptions("b_end"), s.bRoot,
      JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0.5, 0.0, 0.0)).named("b_end_joint"));
  s.rb1 = w.addRigidBody("rb1", bodyOptions(translation(1.0, 0.0, 0.0)));
  s.rb2 = w.addRigidBody("rb2", bodyOptions(translation(0.0, 1.0, 0.0)));
  s.marker = w.addFixedFrame("marker", s.aTip, translation(0.05, -0.1, 0.2) * rotation(0.8, Vector3d(1, 1, 0)));
  return s;
}

/// Planar chain for DoF and removal tests: crank → coupler → rocker, revolute about z.
struct FourBar {
  Multibody mb;
  Link crank, coupler, rocker;
  Joint crankJoint, couplerJoint, rockerJoint;
};

FourBar makeFourBar(World& w, const std::string& name = "fourbar") {
  FourBar f;
  f.mb = w.addMultibody(name);
  f.crank = f.mb.addLink(linkOptions("crank"), JointSpec::revolute(Vector3d::UnitZ()).named("crank_joint"));
  f.coupler = f.mb.addLink(
      linkOptions("coupler"), f.crank,
      JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(0.3, 0, 0)).named("coupler_joint"));
  f.rocker = f.mb.addLink(
      linkOptions("rocker"), f.coupler,
      JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(1.0, 0, 0)).named("rocker_joint"));
  f.crankJoint = f.crank.getParentJoint();
  f.couplerJoint = f.coupler.getParentJoint();
  f.rockerJoint = f.rocker.getParentJoint();
  return f;
}

/// Two 1-DoF multibody joints in a multibody of their own.
struct Gears {
  Multibody mb;
  Link g1, g2;
  Joint j1, j2;
};

Gears makeGears(World& w, const std::string& name = "gears") {
  Gears g;
  g.mb = w.addMultibody(name);
  g.g1 = g.mb.addLink(linkOptions("g1"), JointSpec::revolute(Vector3d::UnitZ()).named("g1_joint"));
  g.g2 =
      g.mb.addLink(linkOptions("g2"), g.g1,
                   JointSpec::prismatic(Vector3d::UnitX()).withParentOffset(translation(0, 0.5, 0)).named("g2_joint"));
  g.j1 = g.g1.getParentJoint();
  g.j2 = g.g2.getParentJoint();
  return g;
}

CollisionShapeOptions boxShape(const std::string& name, double side = 1.0) {
  CollisionShapeOptions o;
  o.name = name;
  o.geometry = Geometry::box(Vector3d::Constant(side));
  return o;
}

}  // namespace

class TestLoopClosureTopology : public QObject {
  Q_OBJECT

 private slots:
  void familyNamesAndRowCounts();
  void facadeAddGetHasListRemove();
  void autogeneratedAndTakenNames();
  void removedClosureHandleIsInvalid();
  void simulationModeRejectsTopologyEdits();
  void clearInvalidatesClosuresAndCouplers();
  void validationSameBody();
  void validationCrossWorld();
  void validationBothFixedToWorld();
  void validationUnknownFamily();
  void validationBadLengthAndOffsets();
  void validationStaleFrames();
  void endpointsOnAnyFrameKinds();
  void residualDefinitionsAllFamilies();
  void specRoundTrip();
  void runtimePolicyRoundTripAndValidation();
  void dofCountsAndConstraintBlocks();
  void removingBodiesRemovesAttachedClosures();
  void collisionFilteringBetweenClosedBodies();
  void closureSuppressesContactsInStep();
  void jointCouplerFacade();
  void jointCouplerValidation();
  void jointCouplerResidual();
  void residualFlagsBeforeAnyStep();
};

// ---------------------------------------------------------------------------
// Family metadata
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::familyNamesAndRowCounts() {
  const std::array<int, 6> rows = {6, 3, 5, 5, 4, 1};
  const std::array<const char*, 6> names = {"rigid", "point", "hinge", "slider", "universal", "distance"};
  for (std::size_t i = 0; i < kFamilies.size(); ++i) {
    const LoopClosureFamily f = kFamilies[i];
    QCOMPARE(numResidualRows(f), rows[i]);
    QCOMPARE(std::string(toString(f)), std::string(names[i]));
    const std::optional<LoopClosureFamily> back = loopClosureFamilyFromString(toString(f));
    QVERIFY2(back.has_value(), names[i]);
    QVERIFY2(*back == f, names[i]);
  }
  QVERIFY(!loopClosureFamilyFromString("bogus").has_value());
  QVERIFY(!loopClosureFamilyFromString("").has_value());

  // numRows() of a closure of every family.
  World w;
  RigidBody a = w.addRigidBody("a", bodyOptions());
  RigidBody b = w.addRigidBody("b", bodyOptions(translation(1, 0, 0)));
  for (std::size_t i = 0; i < kFamilies.size(); ++i) {
    const LoopClosureFamily f = kFamilies[i];
    const double length = f == LoopClosureFamily::Distance ? 1.0 : 0.0;
    LoopClosure c = w.addLoopClosure(std::string("c_") + names[i],
                                     spec(a, b, f, Isometry3d::Identity(), Isometry3d::Identity(), length));
    QCOMPARE(c.numRows(), rows[i]);
    QVERIFY(c.family() == f);
    QCOMPARE(c.computeResidual().residual.size(), static_cast<Eigen::Index>(rows[i]));
  }
}

// ---------------------------------------------------------------------------
// Facade
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::facadeAddGetHasListRemove() {
  World w;
  Scene s = makeScene(w);
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  QVERIFY(w.getLoopClosures().empty());
  QVERIFY(!w.hasLoopClosure("c1"));
  QVERIFY(!w.getLoopClosure("c1").has_value());

  LoopClosure c1 = w.addLoopClosure("c1", spec(Frame::World(), s.aTip, LoopClosureFamily::Point));
  LoopClosure c2 = w.addLoopClosure("c2", spec(s.rb1, s.rb2, LoopClosureFamily::Hinge));
  LoopClosure c3 = w.addLoopClosure(
      "c3", spec(s.aMid, s.bEnd, LoopClosureFamily::Distance, Isometry3d::Identity(), Isometry3d::Identity(), 0.7));
  QVERIFY(c1.isValid() && c2.isValid() && c3.isValid());
  QCOMPARE(c1.name(), std::string("c1"));
  QCOMPARE(c2.name(), std::string("c2"));
  QCOMPARE(c3.name(), std::string("c3"));
  QCOMPARE(w.numLoopClosures(), std::size_t{3});
  QVERIFY(w.hasLoopClosure("c1") && w.hasLoopClosure("c2") && w.hasLoopClosure("c3"));
  QVERIFY(!w.hasLoopClosure("c4"));
  QVERIFY(!w.getLoopClosure("c4").has_value());
  const auto g2 = w.getLoopClosure("c2");
  QVERIFY(g2.has_value());
  QVERIFY(*g2 == c2);
  QVERIFY(!(*g2 == c1));

  // Creation order.
  std::vector<LoopClosure> all = w.getLoopClosures();
  QCOMPARE(all.size(), std::size_t{3});
  QVERIFY(all[0] == c1 && all[1] == c2 && all[2] == c3);

  w.remove(c2);
  QVERIFY(!c2.isValid());
  QVERIFY(c1.isValid() && c3.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{2});
  QVERIFY(!w.hasLoopClosure("c2"));
  QVERIFY(!w.getLoopClosure("c2").has_value());
  all = w.getLoopClosures();
  QCOMPARE(all.size(), std::size_t{2});
  QVERIFY(all[0] == c1 && all[1] == c3);

  // The name is free again; the new handle is valid, the old one stays invalid.
  LoopClosure c2b = w.addLoopClosure("c2", spec(s.rb2, s.rb1, LoopClosureFamily::Rigid));
  QVERIFY(c2b.isValid());
  QVERIFY(!c2.isValid());
  QVERIFY(!(c2b == c2));
  QVERIFY(c2b.family() == LoopClosureFamily::Rigid);
  all = w.getLoopClosures();
  QCOMPARE(all.size(), std::size_t{3});
  QVERIFY(all[0] == c1 && all[1] == c3 && all[2] == c2b);
  const auto g2b = w.getLoopClosure("c2");
  QVERIFY(g2b.has_value() && *g2b == c2b);

  // The bodies themselves are untouched by closure removal.
  QVERIFY(s.rb1.isValid() && s.rb2.isValid() && s.aTip.isValid());
  QCOMPARE(w.numRigidBodies(), std::size_t{2});
}

void TestLoopClosureTopology::autogeneratedAndTakenNames() {
  World w;
  RigidBody a = w.addRigidBody("a", bodyOptions());
  RigidBody b = w.addRigidBody("b", bodyOptions(translation(1, 0, 0)));
  LoopClosure c0 = w.addLoopClosure("", spec(a, b, LoopClosureFamily::Point));
  LoopClosure c1 = w.addLoopClosure("", spec(a, b, LoopClosureFamily::Hinge));
  QCOMPARE(c0.name(), std::string("loop_closure"));
  QCOMPARE(c1.name(), std::string("loop_closure_1"));
  QVERIFY(w.hasLoopClosure("loop_closure") && w.hasLoopClosure("loop_closure_1"));

  // Taken names (explicit and autogenerated) are rejected and nothing is added.
  EXPECT_THROW_NAMING(TopologyError, std::vector<std::string>{"loop_closure"},
                      w.addLoopClosure("loop_closure", spec(a, b, LoopClosureFamily::Rigid)));
  LoopClosure named = w.addLoopClosure("mine", spec(a, b, LoopClosureFamily::Rigid));
  EXPECT_THROW_NAMING(TopologyError, std::vector<std::string>{"mine"},
                      w.addLoopClosure("mine", spec(b, a, LoopClosureFamily::Point)));
  QCOMPARE(w.numLoopClosures(), std::size_t{3});
  QVERIFY(named.family() == LoopClosureFamily::Rigid);  // the failed add did not replace it
  QVERIFY(w.getLoopClosure("mine").has_value() && *w.getLoopClosure("mine") == named);
}

void TestLoopClosureTopology::removedClosureHandleIsInvalid() {
  World w;
  RigidBody a = w.addRigidBody("a", bodyOptions());
  RigidBody b = w.addRigidBody("b", bodyOptions(translation(1, 0, 0)));
  LoopClosure c = w.addLoopClosure("c", spec(a, b, LoopClosureFamily::Point));
  QVERIFY(c.isValid());
  EXPECT_NO_THROW(c.computeResidual());
  w.remove(c);
  QVERIFY(!c.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.family());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.numRows());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.getSpec());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.getRuntimePolicy());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.setRuntimePolicy(LoopClosureRuntimePolicy{}));
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.setEnabled(false));
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.isEnabled());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.computeResidual());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.getEndpointA());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.getEndpointB());

  // Default-constructed handles are invalid and throw too.
  LoopClosure none;
  QVERIFY(!none.isValid());
  EXPECT_THROW_NONEMPTY(InvalidHandle, none.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, none.computeResidual());
  JointCoupler noneCoupler;
  QVERIFY(!noneCoupler.isValid());
  EXPECT_THROW_NONEMPTY(InvalidHandle, noneCoupler.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, noneCoupler.computeResidual());
}

void TestLoopClosureTopology::simulationModeRejectsTopologyEdits() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  RigidBody a = w.addRigidBody("a", bodyOptions(translation(0, 0, 2)));
  LoopClosure c = w.addLoopClosure(
      "c", spec(a, f.crank, LoopClosureFamily::Distance, Isometry3d::Identity(), Isometry3d::Identity(), 2.0));
  JointCoupler k = w.addJointCoupler("k", couplerSpec(g.j1, g.j2, 0.5));
  w.enterSimulationMode();
  QVERIFY(w.isSimulationMode());

  EXPECT_THROW_NONEMPTY(LifecycleError,
                        w.addLoopClosure("c2", spec(Frame::World(), f.rocker, LoopClosureFamily::Hinge)));
  QCOMPARE(w.numLoopClosures(), std::size_t{1});
  QVERIFY(!w.hasLoopClosure("c2"));
  EXPECT_THROW_NONEMPTY(LifecycleError, w.remove(c));
  QVERIFY(c.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{1});
  EXPECT_THROW_NONEMPTY(LifecycleError, w.addJointCoupler("k2", couplerSpec(f.crankJoint, f.rockerJoint)));
  QCOMPARE(w.numJointCouplers(), std::size_t{1});
  EXPECT_THROW_NONEMPTY(LifecycleError, w.remove(k));
  QVERIFY(k.isValid());
  QCOMPARE(w.numJointCouplers(), std::size_t{1});

  // Back in design mode, edits work again.
  w.resetToDesignMode();
  LoopClosure c2 = w.addLoopClosure("c2", spec(Frame::World(), f.rocker, LoopClosureFamily::Hinge));
  QVERIFY(c2.isValid());
  w.remove(c);
  QVERIFY(!c.isValid());
  w.remove(k);
  QVERIFY(!k.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{1});
  QCOMPARE(w.numJointCouplers(), std::size_t{0});
}

void TestLoopClosureTopology::clearInvalidatesClosuresAndCouplers() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  LoopClosure c = w.addLoopClosure("c", spec(Frame::World(), f.rocker, LoopClosureFamily::Hinge));
  JointCoupler k = w.addJointCoupler("k", couplerSpec(g.j1, g.j2, 2.0));
  w.enterSimulationMode();
  w.clear();
  QVERIFY(!w.isSimulationMode());
  QVERIFY(!c.isValid());
  QVERIFY(!k.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  QCOMPARE(w.numJointCouplers(), std::size_t{0});
  QVERIFY(w.getLoopClosures().empty());
  QVERIFY(w.getJointCouplers().empty());
  QVERIFY(!w.hasLoopClosure("c"));
  QVERIFY(!w.hasJointCoupler("k"));
  QCOMPARE(w.getStateSpace().constraintBlocks().size(), std::size_t{0});
  QCOMPARE(w.getStateSpace().numConstraintRows(), 0);
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.computeResidual());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.name());
  EXPECT_THROW_NONEMPTY(InvalidHandle, k.computeResidual());
  EXPECT_THROW_NONEMPTY(InvalidHandle, k.getSpec());

  // Reusing the names gives new handles; the old ones stay invalid.
  FourBar f2 = makeFourBar(w);
  Gears g2 = makeGears(w);
  LoopClosure cNew = w.addLoopClosure("c", spec(Frame::World(), f2.rocker, LoopClosureFamily::Hinge));
  JointCoupler kNew = w.addJointCoupler("k", couplerSpec(g2.j1, g2.j2, 2.0));
  QVERIFY(cNew.isValid() && kNew.isValid());
  QVERIFY(!c.isValid());
  QVERIFY(!k.isValid());
  EXPECT_THROW_NONEMPTY(InvalidHandle, c.computeResidual());
}

// ---------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::validationSameBody() {
  World w;
  FourBar f = makeFourBar(w, "mech");
  RigidBody rb = w.addRigidBody("lonely_body", bodyOptions());
  FixedFrame onCrank = w.addFixedFrame("crank_marker", f.crank, translation(0.1, 0.2, 0));
  FixedFrame onCrank2 = w.addFixedFrame("crank_marker_two", f.crank, rotation(0.4, Vector3d::UnitY()));
  FixedFrame onBody = w.addFixedFrame("body_marker", rb, translation(0, 0, 0.3));

  // A link and a user frame fixed on that same link.
  EXPECT_THROW_NAMING(TopologyError, namesOf({f.crank, onCrank}),
                      w.addLoopClosure("x", spec(f.crank, onCrank, LoopClosureFamily::Point)));
  EXPECT_THROW_NAMING(TopologyError, namesOf({onCrank, f.crank}),
                      w.addLoopClosure("x", spec(onCrank, f.crank, LoopClosureFamily::Rigid)));
  // Two user frames on one link.
  EXPECT_THROW_NAMING(TopologyError, namesOf({onCrank, onCrank2}),
                      w.addLoopClosure("x", spec(onCrank, onCrank2, LoopClosureFamily::Hinge)));
  // A link with itself.
  EXPECT_THROW_NAMING(TopologyError, namesOf({f.rocker}),
                      w.addLoopClosure("x", spec(f.rocker, f.rocker, LoopClosureFamily::Point, translation(1, 0, 0),
                                                 Isometry3d::Identity())));
  // A rigid body with itself (different offsets do not help), and with a frame fixed on it.
  EXPECT_THROW_NAMING(TopologyError, namesOf({rb}),
                      w.addLoopClosure("x", spec(rb, rb, LoopClosureFamily::Distance, translation(1, 0, 0),
                                                 Isometry3d::Identity(), 0.5)));
  EXPECT_THROW_NAMING(TopologyError, namesOf({onBody, rb}),
                      w.addLoopClosure("x", spec(onBody, rb, LoopClosureFamily::Universal)));
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  QVERIFY(!w.hasLoopClosure("x"));

  // Different links of one multibody are different bodies: allowed.
  LoopClosure ok = w.addLoopClosure("x", spec(onCrank, f.rocker, LoopClosureFamily::Point));
  QVERIFY(ok.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{1});
}

void TestLoopClosureTopology::validationCrossWorld() {
  World a;
  World b;
  RigidBody inA = a.addRigidBody("body_in_a", bodyOptions());
  FourBar fb = makeFourBar(b, "other_mech");
  RigidBody inB = b.addRigidBody("body_in_b", bodyOptions());
  FixedFrame markB = b.addFixedFrame("marker_in_b", inB, translation(0, 0, 1));

  EXPECT_THROW_NAMING(TopologyError, namesOf({inA, inB}),
                      a.addLoopClosure("x", spec(inA, inB, LoopClosureFamily::Point)));
  EXPECT_THROW_NAMING(TopologyError, namesOf({fb.rocker, inA}),
                      a.addLoopClosure("x", spec(fb.rocker, inA, LoopClosureFamily::Hinge)));
  EXPECT_THROW_NAMING(TopologyError, namesOf({markB}),
                      a.addLoopClosure("x", spec(Frame::World(), markB, LoopClosureFamily::Rigid)));
  QCOMPARE(a.numLoopClosures(), std::size_t{0});
  QCOMPARE(b.numLoopClosures(), std::size_t{0});

  // A coupler between joints of two worlds.
  World c;
  Gears gc = makeGears(c, "gears_c");
  bool threw = false;
  try {
    a.addJointCoupler("k", couplerSpec(gc.j1, fb.crankJoint));
  } catch (const TopologyError&) {
    threw = true;
  } catch (const InvalidHandle&) {
    threw = true;
  }
  QVERIFY2(threw, "a coupler between joints of other worlds was accepted");
  QCOMPARE(a.numJointCouplers(), std::size_t{0});
}

void TestLoopClosureTopology::validationBothFixedToWorld() {
  World w;
  FixedFrame ground = w.addFixedFrame("ground_marker", Frame::World(), translation(1, 2, 3));
  FixedFrame ground2 = w.addFixedFrame("ground_marker_two", ground, rotation(0.3, Vector3d::UnitZ()));
  EXPECT_THROW_NAMING(TopologyError, namesOf({Frame::World(), ground}),
                      w.addLoopClosure("x", spec(Frame::World(), ground, LoopClosureFamily::Rigid)));
  EXPECT_THROW_NAMING(TopologyError, namesOf({ground, Frame::World()}),
                      w.addLoopClosure("x", spec(ground, Frame::World(), LoopClosureFamily::Point)));
  EXPECT_THROW_NAMING(TopologyError, namesOf({ground, ground2}),
                      w.addLoopClosure("x", spec(ground, ground2, LoopClosureFamily::Hinge)));
  // The world frame with itself.
  EXPECT_THROW_NAMING(TopologyError, namesOf({Frame::World()}),
                      w.addLoopClosure("x", spec(Frame::World(), Frame::World(), LoopClosureFamily::Point,
                                                 translation(1, 0, 0), Isometry3d::Identity())));
  QCOMPARE(w.numLoopClosures(), std::size_t{0});

  // One end on the ground, the other on a moving body: fine.
  RigidBody rb = w.addRigidBody("rb", bodyOptions());
  LoopClosure ok = w.addLoopClosure("x", spec(ground2, rb, LoopClosureFamily::Point));
  QVERIFY(ok.isValid());
}

void TestLoopClosureTopology::validationUnknownFamily() {
  World w;
  RigidBody a = w.addRigidBody("family_body_a", bodyOptions());
  RigidBody b = w.addRigidBody("family_body_b", bodyOptions(translation(1, 0, 0)));
  const auto bogus = static_cast<LoopClosureFamily>(42);
  EXPECT_THROW_NAMING(TopologyError, namesOf({a, b}), w.addLoopClosure("x", spec(a, b, bogus)));
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  QVERIFY(!w.hasLoopClosure("x"));
}

void TestLoopClosureTopology::validationBadLengthAndOffsets() {
  World w;
  RigidBody a = w.addRigidBody("a", bodyOptions());
  RigidBody b = w.addRigidBody("b", bodyOptions(translation(1, 0, 0)));
  const Isometry3d I = Isometry3d::Identity();
  for (double length : {0.0, -1.0, -1e-9, kNaN, kInf}) {
    EXPECT_THROW_NONEMPTY(InvalidArgument,
                          w.addLoopClosure("x", spec(a, b, LoopClosureFamily::Distance, I, I, length)));
  }
  QCOMPARE(w.numLoopClosures(), std::size_t{0});

  Isometry3d scaled = translation(0.1, 0.2, 0.3);
  scaled.linear() *= 1.5;
  Isometry3d reflected = Isometry3d::Identity();
  reflected.linear() = Vector3d(1, 1, -1).asDiagonal();
  Isometry3d sheared = Isometry3d::Identity();
  sheared.linear()(0, 1) = 0.4;
  for (const Isometry3d& bad : {scaled, reflected, sheared}) {
    EXPECT_THROW_NONEMPTY(InvalidArgument, w.addLoopClosure("x", spec(a, b, LoopClosureFamily::Rigid, bad, I)));
    EXPECT_THROW_NONEMPTY(InvalidArgument, w.addLoopClosure("x", spec(a, b, LoopClosureFamily::Point, I, bad)));
    EXPECT_THROW_NONEMPTY(InvalidArgument, w.addLoopClosure("x", spec(a, b, LoopClosureFamily::Distance, bad, I, 1.0)));
  }
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  QVERIFY(!w.hasLoopClosure("x"));

  // Valid values are accepted: a positive length, the length ignored for other families.
  EXPECT_NO_THROW(w.addLoopClosure("d", spec(a, b, LoopClosureFamily::Distance, I, I, 1e-3)));
  EXPECT_NO_THROW(w.addLoopClosure("p", spec(a, b, LoopClosureFamily::Point, rotation(2.0, Vector3d(1, 2, 3)), I)));
  QCOMPARE(w.numLoopClosures(), std::size_t{2});
}

void TestLoopClosureTopology::validationStaleFrames() {
  World w;
  RigidBody keep = w.addRigidBody("keep", bodyOptions());
  RigidBody gone = w.addRigidBody("gone", bodyOptions(translation(1, 0, 0)));
  FourBar f = makeFourBar(w);
  FixedFrame goneFrame = w.addFixedFrame("gone_frame", keep, translation(0, 1, 0));
  Link goneLink = f.rocker;
  w.remove(gone);
  goneLink.remove();
  w.remove(goneFrame);
  QVERIFY(!gone.isValid() && !goneLink.isValid() && !goneFrame.isValid());

  EXPECT_THROW_NONEMPTY(InvalidHandle, w.addLoopClosure("x", spec(keep, gone, LoopClosureFamily::Point)));
  EXPECT_THROW_NONEMPTY(InvalidHandle, w.addLoopClosure("x", spec(gone, keep, LoopClosureFamily::Point)));
  EXPECT_THROW_NONEMPTY(InvalidHandle, w.addLoopClosure("x", spec(Frame::World(), goneLink, LoopClosureFamily::Hinge)));
  EXPECT_THROW_NONEMPTY(InvalidHandle, w.addLoopClosure("x", spec(goneFrame, f.crank, LoopClosureFamily::Rigid)));
  QCOMPARE(w.numLoopClosures(), std::size_t{0});

  // A stale joint in a coupler.
  Gears g = makeGears(w);
  const Joint staleJoint = g.j2;
  g.g2.remove();
  QVERIFY(!staleJoint.isValid());
  EXPECT_THROW_NONEMPTY(InvalidHandle, w.addJointCoupler("k", couplerSpec(g.j1, staleJoint)));
  EXPECT_THROW_NONEMPTY(InvalidHandle, w.addJointCoupler("k", couplerSpec(staleJoint, g.j1)));
  QCOMPARE(w.numJointCouplers(), std::size_t{0});
}

// ---------------------------------------------------------------------------
// Endpoints on any frame kinds (positions derived by hand)
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::endpointsOnAnyFrameKinds() {
  World w;
  // Multibody m1: one link, revolute about z at (1, 0, 0).
  Multibody m1 = w.addMultibody("m1");
  Link l1 = m1.addLink(linkOptions("l1"),
                       JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(1, 0, 0)).named("j1"));
  // Multibody m2: one link, revolute about x at (0, 0, 2).
  Multibody m2 = w.addMultibody("m2");
  Link l2 = m2.addLink(linkOptions("l2"),
                       JointSpec::revolute(Vector3d::UnitX()).withParentOffset(translation(0, 0, 2)).named("j2"));
  RigidBody r1 = w.addRigidBody("r1", bodyOptions());
  RigidBody r2 = w.addRigidBody("r2", bodyOptions());
  FixedFrame mk = w.addFixedFrame("mk", l1, translation(0, 0.25, 0));

  const double q1 = 0.7, q2 = -0.4;
  l1.getParentJoint().setPosition(0, q1);
  l2.getParentJoint().setPosition(0, q2);
  const Matrix3d R1 = rotX(0.9);
  const Vector3d p1(2, 3, 4);
  r1.setPose(pose(R1, p1));
  const Matrix3d R2 = rotZ(-1.2);
  const Vector3d p2(-1, 0.5, 0);
  r2.setPose(pose(R2, p2));

  const Vector3d oL1(0.5, 0, 0);    // offset on l1
  const Vector3d oL2(0, 0.3, 0);    // offset on l2
  const Vector3d oR1(0, 1, 0);      // offset on r1
  const Vector3d oR2(0.2, 0, 0.1);  // offset on r2
  const Vector3d oW(0, 0, 2);       // offset on the world

  // Hand-derived world points.
  const Vector3d l1Point = Vector3d(1, 0, 0) + rotZ(q1) * oL1;
  const Vector3d l2Point = Vector3d(0, 0, 2) + rotX(q2) * oL2;
  const Vector3d r1Point = p1 + R1 * oR1;
  const Vector3d r2Point = p2 + R2 * oR2;
  const Vector3d mkPoint = Vector3d(1, 0, 0) + rotZ(q1) * Vector3d(0, 0.25, 0);
  const Vector3d wPoint = oW;

  struct Case {
    const char* name;
    Frame a, b;
    Vector3d offA, offB;
    Vector3d pA, pB;
  };
  const std::vector<Case> cases = {
      {"world-link", Frame::World(), l1, oW, oL1, wPoint, l1Point},
      {"link-rigid", l1, r1, oL1, oR1, l1Point, r1Point},
      {"rigid-rigid", r1, r2, oR1, oR2, r1Point, r2Point},
      {"link-link", l1, l2, oL1, oL2, l1Point, l2Point},
      {"userframe-world", mk, Frame::World(), Vector3d::Zero(), oW, mkPoint, wPoint},
  };
  for (const Case& c : cases) {
    Isometry3d offA = Isometry3d::Identity(), offB = Isometry3d::Identity();
    offA.translation() = c.offA;
    offB.translation() = c.offB;
    LoopClosure lc;
    EXPECT_NO_THROW(lc = w.addLoopClosure(c.name, spec(c.a, c.b, LoopClosureFamily::Point, offA, offB)));
    QVERIFY2(lc.isValid(), c.name);
    QVERIFY2(lc.getSpec().frameA == c.a && lc.getSpec().frameB == c.b, c.name);
    const std::string eA = compareVectors(lc.getEndpointA().translation(), c.pA, kTol);
    QVERIFY2(eA.empty(), qPrintable(QString("%1 endpoint A: %2").arg(c.name, qs(eA))));
    const std::string eB = compareVectors(lc.getEndpointB().translation(), c.pB, kTol);
    QVERIFY2(eB.empty(), qPrintable(QString("%1 endpoint B: %2").arg(c.name, qs(eB))));
    const std::string eR = compareVectors(lc.computeResidual().residual, c.pB - c.pA, kTol);
    QVERIFY2(eR.empty(), qPrintable(QString("%1 residual: %2").arg(c.name, qs(eR))));
  }
  QCOMPARE(w.numLoopClosures(), cases.size());
  // The frames keep their DoFs: nothing was merged or welded.
  QCOMPARE(w.numDofs(), 1 + 1 + 6 + 6);
}

// ---------------------------------------------------------------------------
// Residual definitions
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::residualDefinitionsAllFamilies() {
  std::mt19937 rng(20240611u);
  constexpr int kWorlds = 3;
  constexpr int kConfigs = 4;
  int rotationChecks = 0;
  for (int trial = 0; trial < kWorlds; ++trial) {
    World w;
    Scene s = makeScene(w);
    const std::vector<std::pair<Frame, Frame>> pairs = {
        {Frame::World(), s.aTip}, {s.aMid, s.rb1}, {s.rb1, s.rb2}, {s.aTip, s.bEnd}, {s.marker, Frame::World()}};
    struct Entry {
      LoopClosure closure;
      LoopClosureSpec spec;
    };
    std::vector<Entry> entries;
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      for (LoopClosureFamily f : kFamilies) {
        const LoopClosureSpec sp = spec(pairs[p].first, pairs[p].second, f, randomPose(rng, 0.5), randomPose(rng, 0.5),
                                        f == LoopClosureFamily::Distance ? uniform(rng, 0.1, 2.0) : 0.0);
        const std::string name = "pair" + std::to_string(p) + "_" + std::string(toString(f));
        LoopClosure c = w.addLoopClosure(name, sp);
        // Keep the positions where the test puts them.
        LoopClosureRuntimePolicy pol = c.getRuntimePolicy();
        pol.kinematics = ClosureKinematicsPolicy::ResidualOnly;
        c.setRuntimePolicy(pol);
        entries.push_back({c, sp});
      }
    }

    for (int cfg = 0; cfg < kConfigs; ++cfg) {
      randomizeMultibody(s.arm1, rng);
      randomizeMultibody(s.arm2, rng);
      s.rb1.setPose(randomPose(rng, 1.5));
      s.rb2.setPose(randomPose(rng, 1.5));

      for (const Entry& e : entries) {
        const LoopClosure& c = e.closure;
        const LoopClosureSpec& sp = e.spec;
        const QString where = QString("world %1 config %2 closure %3").arg(trial).arg(cfg).arg(qs(c.name()));
        const LoopClosureResidual res = c.computeResidual();

        // Endpoints from the frames' world transforms.
        const Isometry3d A = sp.frameA.getWorldTransform() * sp.offsetA;
        const Isometry3d B = sp.frameB.getWorldTransform() * sp.offsetB;
        const Isometry3d EA = c.getEndpointA();
        const Isometry3d EB = c.getEndpointB();
        const std::string ea = comparePoses(EA, A, kTol);
        QVERIFY2(ea.empty(), qPrintable(where + " endpoint A: " + qs(ea)));
        const std::string eb = comparePoses(EB, B, kTol);
        QVERIFY2(eb.empty(), qPrintable(where + " endpoint B: " + qs(eb)));

        const bool rotationRows = sp.family == LoopClosureFamily::Rigid || sp.family == LoopClosureFamily::Slider;
        if (rotationRows) {
          // The log is ambiguous at π; random poses essentially never get there.
          const double angle = relativeAngle(A, B);
          if (std::abs(angle - kPi) < 1e-6) continue;
          ++rotationChecks;
        }

        QCOMPARE(res.residual.size(), static_cast<Eigen::Index>(numResidualRows(sp.family)));
        QCOMPARE(c.numRows(), numResidualRows(sp.family));
        const VectorXd fromEndpoints = expectedResidual(sp.family, EA, EB, sp.length);
        const VectorXd fromFrames = expectedResidual(sp.family, A, B, sp.length);
        const std::string r1 = compareVectors(res.residual, fromEndpoints, kTol);
        QVERIFY2(r1.empty(), qPrintable(where + " residual vs endpoints: " + qs(r1)));
        const std::string r2 = compareVectors(res.residual, fromFrames, kTol);
        QVERIFY2(r2.empty(), qPrintable(where + " residual vs frame transforms: " + qs(r2)));
        QVERIFY2(std::abs(res.norm - res.residual.norm()) <= kTol,
                 qPrintable(where + QString(" norm %1 vs |residual| %2").arg(res.norm).arg(res.residual.norm())));
      }
    }
  }
  QVERIFY2(rotationChecks >= kWorlds * kConfigs * 5 * 2 - 2,
           qPrintable(QString("rotation checks %1").arg(rotationChecks)));
}

// ---------------------------------------------------------------------------
// Serialization hooks
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::specRoundTrip() {
  World w;
  Scene s = makeScene(w);
  std::mt19937 rng(77u);
  struct Given {
    LoopClosure c;
    LoopClosureSpec sp;
  };
  std::vector<Given> given;
  const std::vector<std::pair<Frame, Frame>> pairs = {
      {Frame::World(), s.aTip},   {s.aMid, s.rb1}, {s.rb1, s.rb2}, {s.aTip, s.bEnd},
      {s.marker, Frame::World()}, {s.rb2, s.aBase}};
  for (std::size_t i = 0; i < kFamilies.size(); ++i) {
    const LoopClosureFamily f = kFamilies[i];
    const LoopClosureSpec sp = spec(pairs[i].first, pairs[i].second, f, randomPose(rng, 0.7), randomPose(rng, 0.7),
                                    f == LoopClosureFamily::Distance ? 1.375 : 0.0);
    given.push_back({w.addLoopClosure("", sp), sp});
  }
  for (const Given& g : given) {
    const LoopClosureSpec got = g.c.getSpec();
    const QString where = qs(g.c.name());
    QVERIFY2(got.frameA == g.sp.frameA, qPrintable(where));
    QVERIFY2(got.frameB == g.sp.frameB, qPrintable(where));
    QVERIFY2(got.family == g.sp.family, qPrintable(where));
    QVERIFY2(g.c.family() == g.sp.family, qPrintable(where));
    const std::string ea = comparePoses(got.offsetA, g.sp.offsetA, 1e-15);
    QVERIFY2(ea.empty(), qPrintable(where + " offsetA: " + qs(ea)));
    const std::string eb = comparePoses(got.offsetB, g.sp.offsetB, 1e-15);
    QVERIFY2(eb.empty(), qPrintable(where + " offsetB: " + qs(eb)));
    if (g.sp.family == LoopClosureFamily::Distance) QCOMPARE(got.length, 1.375);
    // The frames in the spec are usable handles.
    QVERIFY(got.frameA.isValid() && got.frameB.isValid());
    QCOMPARE(got.frameA.name(), g.sp.frameA.name());
  }
}

void TestLoopClosureTopology::runtimePolicyRoundTripAndValidation() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  LoopClosure c = w.addLoopClosure(
      "c", spec(Frame::World(), f.rocker, LoopClosureFamily::Hinge, translation(1.0, 0.2, 0), translation(0.5, 0, 0)));
  JointCoupler k = w.addJointCoupler("k", couplerSpec(g.j1, g.j2, 0.25, 0.1));

  // Defaults from the header.
  const LoopClosureRuntimePolicy d = c.getRuntimePolicy();
  QVERIFY(d.enabled);
  QVERIFY(d.kinematics == ClosureKinematicsPolicy::Project);
  QVERIFY(d.dynamics == ClosureDynamicsPolicy::Solve);
  QVERIFY(d.stabilization == ClosureStabilization::Baumgarte);
  QCOMPARE(d.errorReduction, 0.2);
  QVERIFY(d.projectAfterStep);
  QCOMPARE(d.tolerance, 1e-10);
  QCOMPARE(d.maxIterations, 50);
  QVERIFY(c.isEnabled());
  QVERIFY(k.isEnabled());

  LoopClosureRuntimePolicy p;
  p.enabled = false;
  p.kinematics = ClosureKinematicsPolicy::ResidualOnly;
  p.dynamics = ClosureDynamicsPolicy::Off;
  p.stabilization = ClosureStabilization::Compliance;
  p.errorReduction = 0.65;
  p.stiffness = 1234.5;
  p.damping = 6.75;
  p.projectAfterStep = false;
  p.tolerance = 3e-7;
  p.maxIterations = 17;
  auto samePolicy = [](const LoopClosureRuntimePolicy& x, const LoopClosureRuntimePolicy& y) {
    return x.enabled == y.enabled && x.kinematics == y.kinematics && x.dynamics == y.dynamics &&
           x.stabilization == y.stabilization && x.errorReduction == y.errorReduction && x.stiffness == y.stiffness &&
           x.damping == y.damping && x.projectAfterStep == y.projectAfterStep && x.tolerance == y.tolerance &&
           x.maxIterations == y.maxIterations;
  };
  c.setRuntimePolicy(p);
  QVERIFY(samePolicy(c.getRuntimePolicy(), p));
  QVERIFY(!c.isEnabled());
  c.setEnabled(true);
  QVERIFY(c.isEnabled());
  QVERIFY(c.getRuntimePolicy().enabled);
  QCOMPARE(c.getRuntimePolicy().maxIterations, 17);  // setEnabled changes nothing else
  QCOMPARE(c.getRuntimePolicy().stiffness, 1234.5);
  k.setRuntimePolicy(p);
  QVERIFY(samePolicy(k.getRuntimePolicy(), p));
  QVERIFY(!k.isEnabled());
  k.setEnabled(true);
  QVERIFY(k.isEnabled());

  // Boundary values that are valid.
  LoopClosureRuntimePolicy edge;
  edge.errorReduction = 0.0;
  edge.damping = 0.0;
  edge.maxIterations = 1;
  EXPECT_NO_THROW(c.setRuntimePolicy(edge));
  edge.errorReduction = 1.0;
  EXPECT_NO_THROW(c.setRuntimePolicy(edge));
  QVERIFY(samePolicy(c.getRuntimePolicy(), edge));

  // Invalid fields are rejected and the policy is unchanged.
  const LoopClosureRuntimePolicy before = c.getRuntimePolicy();
  std::vector<std::pair<const char*, LoopClosureRuntimePolicy>> bad;
  auto add = [&](const char* what, auto mutate) {
    LoopClosureRuntimePolicy q;
    mutate(q);
    bad.emplace_back(what, q);
  };
  add("errorReduction -0.1", [](LoopClosureRuntimePolicy& q) { q.errorReduction = -0.1; });
  add("errorReduction 1.5", [](LoopClosureRuntimePolicy& q) { q.errorReduction = 1.5; });
  add("errorReduction NaN", [](LoopClosureRuntimePolicy& q) { q.errorReduction = kNaN; });
  add("stiffness 0", [](LoopClosureRuntimePolicy& q) { q.stiffness = 0.0; });
  add("stiffness -1", [](LoopClosureRuntimePolicy& q) { q.stiffness = -1.0; });
  add("stiffness NaN", [](LoopClosureRuntimePolicy& q) { q.stiffness = kNaN; });
  add("damping -1", [](LoopClosureRuntimePolicy& q) { q.damping = -1.0; });
  add("damping NaN", [](LoopClosureRuntimePolicy& q) { q.damping = kNaN; });
  add("tolerance 0", [](LoopClosureRuntimePolicy& q) { q.tolerance = 0.0; });
  add("tolerance -1e-9", [](LoopClosureRuntimePolicy& q) { q.tolerance = -1e-9; });
  add("tolerance NaN", [](LoopClosureRuntimePolicy& q) { q.tolerance = kNaN; });
  add("maxIterations 0", [](LoopClosureRuntimePolicy& q) { q.maxIterations = 0; });
  add("maxIterations -3", [](LoopClosureRuntimePolicy& q) { q.maxIterations = -3; });
  // Empty when `target` rejects `q` with InvalidArgument, else what it did instead.
  const auto rejection = [](auto& target, const LoopClosureRuntimePolicy& q) -> QString {
    try {
      target.setRuntimePolicy(q);
    } catch (const InvalidArgument&) {
      return {};
    } catch (const std::exception& e) {
      return QString("expected InvalidArgument, got %1").arg(QString::fromUtf8(e.what()));
    }
    return QStringLiteral("accepted");
  };
  for (const auto& [what, q] : bad) {
    const QString closureProblem = rejection(c, q);
    QVERIFY2(closureProblem.isEmpty(), qPrintable(QString("%1: %2").arg(what, closureProblem)));
    QVERIFY2(samePolicy(c.getRuntimePolicy(), before), what);
    const QString couplerProblem = rejection(k, q);
    QVERIFY2(couplerProblem.isEmpty(), qPrintable(QString("coupler %1: %2").arg(what, couplerProblem)));
  }

  // The policy may change in simulation mode.
  w.enterSimulationMode();
  LoopClosureRuntimePolicy sim;
  sim.dynamics = ClosureDynamicsPolicy::Off;
  sim.errorReduction = 0.4;
  EXPECT_NO_THROW(c.setRuntimePolicy(sim));
  QVERIFY(samePolicy(c.getRuntimePolicy(), sim));
  EXPECT_NO_THROW(c.setEnabled(false));
  QVERIFY(!c.isEnabled());
  EXPECT_NO_THROW(k.setRuntimePolicy(sim));
  QVERIFY(samePolicy(k.getRuntimePolicy(), sim));
  QVERIFY(w.isSimulationMode());
}

// ---------------------------------------------------------------------------
// DoF counts and constraint rows
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::dofCountsAndConstraintBlocks() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  RigidBody weight = w.addRigidBody("weight", bodyOptions(translation(0, 0, -1)));
  const int mbDofs = f.mb.numDofs();
  const int mbPositions = f.mb.numPositions();
  const int worldDofs = w.numDofs();
  const int worldPositions = w.numPositions();
  QCOMPARE(mbDofs, 3);
  QCOMPARE(worldDofs, 3 + 2 + 6);
  QCOMPARE(worldPositions, 3 + 2 + 7);
  QCOMPARE(w.getStateSpace().numConstraintRows(), 0);
  QVERIFY(w.getStateSpace().constraintBlocks().empty());

  // Hinge first, then a coupler, then a distance: blocks list closures first, then couplers.
  LoopClosure hinge = w.addLoopClosure("rocker_pin", spec(Frame::World(), f.rocker, LoopClosureFamily::Hinge,
                                                          translation(1.2, 0.3, 0), translation(0.6, 0, 0)));
  JointCoupler gear = w.addJointCoupler("gear", couplerSpec(g.j1, g.j2, -0.5));
  LoopClosure rope = w.addLoopClosure(
      "rope", spec(weight, f.crank, LoopClosureFamily::Distance, Isometry3d::Identity(), translation(0.3, 0, 0), 1.1));
  QVERIFY(hinge.isValid() && gear.isValid() && rope.isValid());

  QCOMPARE(f.mb.numDofs(), mbDofs);
  QCOMPARE(f.mb.numPositions(), mbPositions);
  QCOMPARE(g.mb.numDofs(), 2);
  QCOMPARE(w.numDofs(), worldDofs);
  QCOMPARE(w.numPositions(), worldPositions);
  const StateSpace ss = w.getStateSpace();
  QCOMPARE(ss.numVelocities(), worldDofs);
  QCOMPARE(ss.numPositions(), worldPositions);
  QCOMPARE(w.getPositions().size(), static_cast<Eigen::Index>(worldPositions));
  QCOMPARE(w.getVelocities().size(), static_cast<Eigen::Index>(worldDofs));

  const std::vector<ConstraintBlock>& blocks = ss.constraintBlocks();
  QCOMPARE(blocks.size(), std::size_t{3});
  struct Expected {
    const char* name;
    const char* kind;
    const char* family;
    int rowOffset;
    int numRows;
  };
  const std::array<Expected, 3> expected = {Expected{"rocker_pin", "loop_closure", "hinge", 0, 5},
                                            Expected{"rope", "loop_closure", "distance", 5, 1},
                                            Expected{"gear", "joint_coupler", "coupler", 6, 1}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    QCOMPARE(blocks[i].name, std::string(expected[i].name));
    QCOMPARE(blocks[i].kind, std::string(expected[i].kind));
    QCOMPARE(blocks[i].family, std::string(expected[i].family));
    QCOMPARE(blocks[i].rowOffset, expected[i].rowOffset);
    QCOMPARE(blocks[i].numRows, expected[i].numRows);
  }
  QCOMPARE(ss.numConstraintRows(), 7);

  // The StateSpace is a value object; a new one follows the removal.
  w.remove(hinge);
  QCOMPARE(ss.constraintBlocks().size(), std::size_t{3});
  QCOMPARE(ss.numConstraintRows(), 7);
  const StateSpace ss2 = w.getStateSpace();
  QCOMPARE(ss2.constraintBlocks().size(), std::size_t{2});
  QCOMPARE(ss2.constraintBlocks()[0].name, std::string("rope"));
  QCOMPARE(ss2.constraintBlocks()[0].rowOffset, 0);
  QCOMPARE(ss2.constraintBlocks()[0].numRows, 1);
  QCOMPARE(ss2.constraintBlocks()[1].name, std::string("gear"));
  QCOMPARE(ss2.constraintBlocks()[1].rowOffset, 1);
  QCOMPARE(ss2.numConstraintRows(), 2);
  QCOMPARE(w.numDofs(), worldDofs);
  // Segments are unaffected by the closures.
  QCOMPARE(ss2.segments().size(), ss.segments().size());
}

// ---------------------------------------------------------------------------
// Removal cascades
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::removingBodiesRemovesAttachedClosures() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  RigidBody rbA = w.addRigidBody("rbA", bodyOptions(translation(0, 0, 1)));
  RigidBody rbB = w.addRigidBody("rbB", bodyOptions(translation(0, 1, 1)));
  FixedFrame rockerMarker = w.addFixedFrame("rocker_marker", f.rocker, translation(0.5, 0, 0));

  LoopClosure cRockerWorld = w.addLoopClosure("rocker_world", spec(Frame::World(), f.rocker, LoopClosureFamily::Hinge));
  LoopClosure cMarker = w.addLoopClosure("marker_rbB", spec(rockerMarker, rbB, LoopClosureFamily::Point));
  LoopClosure cCrankRb = w.addLoopClosure("crank_rbA", spec(f.crank, rbA, LoopClosureFamily::Distance,
                                                            Isometry3d::Identity(), Isometry3d::Identity(), 0.5));
  LoopClosure cRbRb = w.addLoopClosure("rbA_rbB", spec(rbA, rbB, LoopClosureFamily::Point));
  JointCoupler kCrankRocker = w.addJointCoupler("crank_rocker", couplerSpec(f.crankJoint, f.rockerJoint, 1.0));
  JointCoupler kRockerLeads = w.addJointCoupler("rocker_leads", couplerSpec(f.rockerJoint, g.j1, 2.0));
  JointCoupler kGear = w.addJointCoupler("gear", couplerSpec(g.j1, g.j2, 0.5));
  QCOMPARE(w.numLoopClosures(), std::size_t{4});
  QCOMPARE(w.numJointCouplers(), std::size_t{3});

  // Removing the middle link removes its subtree (coupler, rocker, the marker on the rocker):
  // the closures on the rocker and its marker and the couplers of the rocker's joint go.
  f.coupler.remove();
  QVERIFY(!f.rocker.isValid());
  QVERIFY(!cRockerWorld.isValid());
  QVERIFY(!cMarker.isValid());
  QVERIFY(!kCrankRocker.isValid());
  QVERIFY(!kRockerLeads.isValid());
  QVERIFY(cCrankRb.isValid() && cRbRb.isValid() && kGear.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{2});
  QCOMPARE(w.numJointCouplers(), std::size_t{1});
  QVERIFY(!w.hasLoopClosure("rocker_world") && !w.hasLoopClosure("marker_rbB"));
  QVERIFY(!w.hasJointCoupler("crank_rocker") && !w.hasJointCoupler("rocker_leads"));
  EXPECT_THROW_NONEMPTY(InvalidHandle, cRockerWorld.computeResidual());
  EXPECT_THROW_NONEMPTY(InvalidHandle, kCrankRocker.computeResidual());
  {
    const std::vector<LoopClosure> left = w.getLoopClosures();
    QCOMPARE(left.size(), std::size_t{2});
    QVERIFY(left[0] == cCrankRb && left[1] == cRbRb);
    const std::vector<JointCoupler> leftK = w.getJointCouplers();
    QCOMPARE(leftK.size(), std::size_t{1});
    QVERIFY(leftK[0] == kGear);
    EXPECT_NO_THROW(cCrankRb.computeResidual());
    const StateSpace ss = w.getStateSpace();
    QCOMPARE(ss.constraintBlocks().size(), std::size_t{3});
    QCOMPARE(ss.numConstraintRows(), 1 + 3 + 1);
  }
  // g1 no longer follows anything: it may follow again.
  JointCoupler again;
  EXPECT_NO_THROW(again = w.addJointCoupler("g1_follows_crank", couplerSpec(f.crankJoint, g.j1, 1.0)));
  QVERIFY(again.isValid());

  // Removing a rigid body removes the closures attached to it.
  w.remove(rbA);
  QVERIFY(!cCrankRb.isValid());
  QVERIFY(!cRbRb.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  QVERIFY(kGear.isValid() && again.isValid());

  // Removing a user frame removes the closures attached to it.
  FixedFrame onB = w.addFixedFrame("on_b", rbB, translation(0, 0, 0.2));
  LoopClosure cFrame = w.addLoopClosure("on_b_world", spec(onB, Frame::World(), LoopClosureFamily::Point));
  LoopClosure cCrankB = w.addLoopClosure("crank_rbB", spec(f.crank, rbB, LoopClosureFamily::Point));
  w.remove(onB);
  QVERIFY(!cFrame.isValid());
  QVERIFY(cCrankB.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{1});

  // Removing a multibody removes the closures on its links and the couplers of its joints.
  w.remove(g.mb);
  QVERIFY(!kGear.isValid());
  QVERIFY(!again.isValid());
  QCOMPARE(w.numJointCouplers(), std::size_t{0});
  QVERIFY(cCrankB.isValid());
  w.remove(f.mb);
  QVERIFY(!cCrankB.isValid());
  QCOMPARE(w.numLoopClosures(), std::size_t{0});
  QVERIFY(rbB.isValid());
  QCOMPARE(w.getStateSpace().numConstraintRows(), 0);
}

// ---------------------------------------------------------------------------
// Collision filtering
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::collisionFilteringBetweenClosedBodies() {
  World w;
  RigidBody a = w.addRigidBody("a", bodyOptions());
  RigidBody b = w.addRigidBody("b", bodyOptions(translation(0.5, 0, 0)));
  RigidBody c = w.addRigidBody("c", bodyOptions(translation(0, 0.5, 0)));
  a.addCollisionShape(boxShape("box_a"));
  b.addCollisionShape(boxShape("box_b"));
  c.addCollisionShape(boxShape("box_c"));
  FixedFrame onC = w.addFixedFrame("on_c", c, translation(0, 0, 0.3));

  QVERIFY(w.isCollisionEnabled(a, b));
  QVERIFY(w.isCollisionEnabled(a, c));
  QVERIFY(w.isCollisionEnabled(b, c));

  LoopClosure ab = w.addLoopClosure("ab", spec(a, b, LoopClosureFamily::Point));
  QVERIFY(!w.isCollisionEnabled(a, b));
  QVERIFY(!w.isCollisionEnabled(b, a));
  QVERIFY(w.isCollisionEnabled(a, c));  // other pairs keep the default
  QVERIFY(w.isCollisionEnabled(b, c));

  // An explicit setting wins over the closure's filter; clearing it returns to the filtered default.
  w.setCollisionEnabled(a, b, true);
  QVERIFY(w.isCollisionEnabled(a, b));
  w.clearCollisionSetting(a, b);
  QVERIFY(!w.isCollisionEnabled(a, b));

  // Removing the closure restores the default rule.
  w.remove(ab);
  QVERIFY(w.isCollisionEnabled(a, b));

  // The filter applies to the bodies of the endpoints, also through a user frame.
  LoopClosure bc = w.addLoopClosure("bc", spec(b, onC, LoopClosureFamily::Hinge));
  QVERIFY(!w.isCollisionEnabled(b, c));
  QVERIFY(w.isCollisionEnabled(a, c));
  QVERIFY(w.isCollisionEnabled(a, b));
  w.remove(bc);
  QVERIFY(w.isCollisionEnabled(b, c));

  // A link and a rigid body of different trees.
  Multibody mb = w.addMultibody("mb");
  Link l =
      mb.addLink(linkOptions("l"), JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(0.2, 0.2, 0)));
  l.addCollisionShape(boxShape("box_l"));
  QVERIFY(w.isCollisionEnabled(l, a));
  LoopClosure la = w.addLoopClosure(
      "la", spec(l, a, LoopClosureFamily::Distance, Isometry3d::Identity(), Isometry3d::Identity(), 0.3));
  QVERIFY(!w.isCollisionEnabled(l, a));
  QVERIFY(w.isCollisionEnabled(l, b));
  // An explicit "disabled" setting survives the closure's removal.
  w.setCollisionEnabled(l, a, false);
  w.remove(la);
  QVERIFY(!w.isCollisionEnabled(l, a));
  w.clearCollisionSetting(l, a);
  QVERIFY(w.isCollisionEnabled(l, a));
}

void TestLoopClosureTopology::closureSuppressesContactsInStep() {
  // Two overlapping boxes, no gravity: without a closure the step reports
  // contacts between them; with a satisfied weld between them it does not.
  auto build = [](World& w, bool closed) {
    w.setGravity(Vector3d::Zero());
    RigidBody a = w.addRigidBody("a", bodyOptions());
    RigidBody b = w.addRigidBody("b", bodyOptions(translation(0.5, 0, 0)));
    a.addCollisionShape(boxShape("box_a"));
    b.addCollisionShape(boxShape("box_b"));
    if (closed) w.addLoopClosure("weld", spec(a, b, LoopClosureFamily::Rigid, translation(0.5, 0, 0)));
  };
  World open;
  build(open, false);
  open.step();
  QVERIFY2(!open.getContacts().empty(), "control: overlapping boxes produced no contacts");
  World closed;
  build(closed, true);
  const double initial = closed.getLoopClosures().front().computeResidual().norm;
  QVERIFY2(initial <= 1e-14, qPrintable(QString("initial weld residual %1").arg(initial)));
  closed.step();
  QVERIFY2(closed.getContacts().empty(),
           qPrintable(QString("%1 contacts between bodies joined by a closure").arg(closed.getContacts().size())));
}

// ---------------------------------------------------------------------------
// Joint couplers
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::jointCouplerFacade() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  QCOMPARE(w.numJointCouplers(), std::size_t{0});
  QVERIFY(!w.hasJointCoupler("k1"));
  QVERIFY(!w.getJointCoupler("k1").has_value());

  JointCoupler k1 = w.addJointCoupler("k1", couplerSpec(f.crankJoint, f.couplerJoint, 2.0, 0.1));
  // Across two multibodies.
  JointCoupler k2 = w.addJointCoupler("k2", couplerSpec(f.rockerJoint, g.j2, -0.75, 0.3));
  JointCoupler k3 = w.addJointCoupler("k3", couplerSpec(g.j2, g.j1, 4.0));  // a leader may follow another joint
  QVERIFY(k1.isValid() && k2.isValid() && k3.isValid());
  QCOMPARE(k1.name(), std::string("k1"));
  QCOMPARE(w.numJointCouplers(), std::size_t{3});
  QVERIFY(w.hasJointCoupler("k2"));
  const auto got = w.getJointCoupler("k2");
  QVERIFY(got.has_value() && *got == k2);
  QVERIFY(!w.getJointCoupler("nope").has_value());
  std::vector<JointCoupler> all = w.getJointCouplers();
  QCOMPARE(all.size(), std::size_t{3});
  QVERIFY(all[0] == k1 && all[1] == k2 && all[2] == k3);

  const JointCouplerSpec s2 = k2.getSpec();
  QVERIFY(s2.leader == f.rockerJoint);
  QVERIFY(s2.follower == g.j2);
  QCOMPARE(s2.ratio, -0.75);
  QCOMPARE(s2.offset, 0.3);

  // Taken name.
  EXPECT_THROW_NAMING(TopologyError, std::vector<std::string>{"k1"},
                      w.addJointCoupler("k1", couplerSpec(f.crankJoint, f.rockerJoint)));
  QCOMPARE(w.numJointCouplers(), std::size_t{3});

  // Removal.
  w.remove(k2);
  QVERIFY(!k2.isValid());
  EXPECT_THROW_NONEMPTY(InvalidHandle, k2.getSpec());
  EXPECT_THROW_NONEMPTY(InvalidHandle, k2.computeResidual());
  EXPECT_THROW_NONEMPTY(InvalidHandle, k2.name());
  QCOMPARE(w.numJointCouplers(), std::size_t{2});
  QVERIFY(!w.hasJointCoupler("k2"));
  all = w.getJointCouplers();
  QCOMPARE(all.size(), std::size_t{2});
  QVERIFY(all[0] == k1 && all[1] == k3);
  // The follower of the removed coupler is free to follow again.
  JointCoupler k4 = w.addJointCoupler("k4", couplerSpec(f.crankJoint, g.j2, 1.5));
  QVERIFY(k4.isValid());
  // Couplers add no DoFs.
  QCOMPARE(w.numDofs(), 3 + 2);
  QCOMPARE(f.mb.numDofs(), 3);
}

void TestLoopClosureTopology::jointCouplerValidation() {
  World w;
  Multibody mb = w.addMultibody("mixed");
  Link root = mb.addLink(linkOptions("root"), JointSpec::free().named("free_joint"));
  Link ballLink = mb.addLink(linkOptions("ball_link"), root,
                             JointSpec::ball().withParentOffset(translation(0.5, 0, 0)).named("ball_joint"));
  Link uniLink = mb.addLink(linkOptions("uni_link"), ballLink,
                            JointSpec::universal(Vector3d::UnitX(), Vector3d::UnitY())
                                .withParentOffset(translation(0.5, 0, 0))
                                .named("uni_joint"));
  Link weldLink =
      mb.addLink(linkOptions("weld_link"), uniLink, JointSpec::weld(translation(0.5, 0, 0)).named("weld_joint"));
  Link planarLink = mb.addLink(linkOptions("planar_link"), weldLink, JointSpec::planar().named("planar_joint"));
  Link revLink =
      mb.addLink(linkOptions("rev_link"), planarLink, JointSpec::revolute(Vector3d::UnitZ()).named("rev_joint"));
  Link prisLink =
      mb.addLink(linkOptions("pris_link"), revLink, JointSpec::prismatic(Vector3d::UnitX()).named("pris_joint"));
  Link screwLink =
      mb.addLink(linkOptions("screw_link"), prisLink, JointSpec::screw(Vector3d::UnitZ(), 0.01).named("screw_joint"));
  const Joint freeJ = root.getParentJoint();
  const Joint ballJ = ballLink.getParentJoint();
  const Joint uniJ = uniLink.getParentJoint();
  const Joint weldJ = weldLink.getParentJoint();
  const Joint planarJ = planarLink.getParentJoint();
  const Joint revJ = revLink.getParentJoint();
  const Joint prisJ = prisLink.getParentJoint();
  const Joint screwJ = screwLink.getParentJoint();

  using Names = std::vector<std::string>;
  EXPECT_THROW_NAMING(TopologyError, Names{"ball_joint"}, w.addJointCoupler("x", couplerSpec(revJ, ballJ)));
  EXPECT_THROW_NAMING(TopologyError, Names{"ball_joint"}, w.addJointCoupler("x", couplerSpec(ballJ, revJ)));
  EXPECT_THROW_NAMING(TopologyError, Names{"free_joint"}, w.addJointCoupler("x", couplerSpec(freeJ, prisJ)));
  EXPECT_THROW_NAMING(TopologyError, Names{"uni_joint"}, w.addJointCoupler("x", couplerSpec(revJ, uniJ)));
  EXPECT_THROW_NAMING(TopologyError, Names{"weld_joint"}, w.addJointCoupler("x", couplerSpec(weldJ, revJ)));
  EXPECT_THROW_NAMING(TopologyError, Names{"planar_joint"}, w.addJointCoupler("x", couplerSpec(prisJ, planarJ)));
  // Leader == follower.
  EXPECT_THROW_NAMING(TopologyError, Names{"rev_joint"}, w.addJointCoupler("x", couplerSpec(revJ, revJ, 2.0)));
  QCOMPARE(w.numJointCouplers(), std::size_t{0});

  // Bad ratios.
  for (double ratio : {0.0, kNaN, kInf, -kInf}) {
    EXPECT_THROW_NONEMPTY(InvalidArgument, w.addJointCoupler("x", couplerSpec(revJ, prisJ, ratio)));
  }
  QCOMPARE(w.numJointCouplers(), std::size_t{0});

  // Revolute, prismatic and screw joints are 1-DoF: accepted.
  JointCoupler k = w.addJointCoupler("k", couplerSpec(revJ, prisJ, -3.0, 0.2));
  QVERIFY(k.isValid());
  // A follower that already follows a joint.
  EXPECT_THROW_NAMING(TopologyError, Names{"pris_joint"}, w.addJointCoupler("x", couplerSpec(screwJ, prisJ, 1.0)));
  QCOMPARE(w.numJointCouplers(), std::size_t{1});
  JointCoupler k2 = w.addJointCoupler("k2", couplerSpec(prisJ, screwJ, 0.5));
  QVERIFY(k2.isValid());
  QCOMPARE(w.numJointCouplers(), std::size_t{2});
}

void TestLoopClosureTopology::jointCouplerResidual() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  Multibody sm = w.addMultibody("screwy");
  Link sl = sm.addLink(linkOptions("s"), JointSpec::screw(Vector3d::UnitZ(), 0.02).named("screw_joint"));
  const Joint screwJ = sl.getParentJoint();

  struct Case {
    JointCoupler k;
    Joint leader, follower;
    double ratio, offset;
  };
  std::vector<Case> cases;
  auto add = [&](const std::string& name, const Joint& l, const Joint& fl, double ratio, double offset) {
    cases.push_back({w.addJointCoupler(name, couplerSpec(l, fl, ratio, offset)), l, fl, ratio, offset});
  };
  add("same_tree", f.crankJoint, f.rockerJoint, 2.5, -0.3);       // revolute → revolute
  add("across_trees_prismatic", f.crankJoint, g.j2, -0.4, 0.05);  // revolute → prismatic, two trees
  add("screw_leads", screwJ, g.j1, 0.125, 1.0);                   // screw → revolute
  add("prismatic_leads", g.j2, screwJ, 3.0, 0.0);                 // prismatic → screw
  for (Case& c : cases) {
    LoopClosureRuntimePolicy p = c.k.getRuntimePolicy();
    p.kinematics = ClosureKinematicsPolicy::ResidualOnly;
    c.k.setRuntimePolicy(p);
  }

  std::mt19937 rng(99u);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<std::pair<Joint, double>> set;
    for (const Joint& j : {f.crankJoint, f.couplerJoint, f.rockerJoint, g.j1, g.j2, screwJ}) {
      const double q = uniform(rng, -2.0, 2.0);
      Joint jj = j;
      jj.setPosition(0, q);
      set.emplace_back(j, q);
    }
    auto valueOf = [&](const Joint& j) {
      for (const auto& [jj, q] : set)
        if (jj == j) return q;
      return kNaN;
    };
    for (const Case& c : cases) {
      const double ql = valueOf(c.leader), qf = valueOf(c.follower);
      const double expected = qf - c.ratio * ql - c.offset;
      const JointCouplerResidual r = c.k.computeResidual();
      QVERIFY2(std::abs(r.residual - expected) <= kTol,
               qPrintable(QString("%1 trial %2: residual %3, expected q_f − ratio·q_l − offset = %4 − %5·%6 − %7 = %8")
                              .arg(qs(c.k.name()))
                              .arg(trial)
                              .arg(r.residual, 0, 'g', 17)
                              .arg(qf)
                              .arg(c.ratio)
                              .arg(ql)
                              .arg(c.offset)
                              .arg(expected, 0, 'g', 17)));
      // The positions were not moved by the query.
      QCOMPARE(c.follower.getPosition(0), qf);
      QCOMPARE(c.leader.getPosition(0), ql);
    }
  }
  // A satisfied coupling has zero residual.
  f.crankJoint.setPosition(0, 0.4);
  Joint rj = f.rockerJoint;
  rj.setPosition(0, 2.5 * 0.4 - 0.3);
  QVERIFY(std::abs(cases[0].k.computeResidual().residual) <= 1e-15);
}

// ---------------------------------------------------------------------------
// Residual flags
// ---------------------------------------------------------------------------

void TestLoopClosureTopology::residualFlagsBeforeAnyStep() {
  World w;
  FourBar f = makeFourBar(w);
  Gears g = makeGears(w);
  f.crankJoint.setPosition(0, 0.3);
  f.couplerJoint.setPosition(0, -0.8);
  f.rockerJoint.setPosition(0, 1.1);
  const Isometry3d offA = translation(1.1, 0.4, 0.05);
  const Isometry3d offB = translation(0.6, 0, 0) * rotation(0.2, Vector3d::UnitX());
  LoopClosure c = w.addLoopClosure("c", spec(Frame::World(), f.rocker, LoopClosureFamily::Hinge, offA, offB));
  JointCoupler k = w.addJointCoupler("k", couplerSpec(g.j1, g.j2, 0.5, 0.25));
  Joint j1 = g.j1, j2 = g.j2;
  j1.setPosition(0, 0.6);
  j2.setPosition(0, -0.1);

  const VectorXd expected = expectedResidual(LoopClosureFamily::Hinge, offA, f.rocker.getWorldTransform() * offB, 0.0);
  const double expectedK = -0.1 - 0.5 * 0.6 - 0.25;
  QVERIFY2(expected.norm() > 0.1, "the configuration should violate the closure");

  LoopClosureResidual r = c.computeResidual();
  QVERIFY(r.enabled);
  QVERIFY(r.active);
  QVERIFY(!r.forceAvailable);
  QVERIFY2(r.impulse.isZero(0.0) && r.wrench.isZero(0.0),
           qPrintable("impulse " + qs(str(r.impulse)) + " wrench " + qs(str(r.wrench))));
  QVERIFY2(compareVectors(r.residual, expected, kTol).empty(),
           qPrintable(qs(compareVectors(r.residual, expected, kTol))));
  JointCouplerResidual rk = k.computeResidual();
  QVERIFY(rk.enabled);
  QVERIFY(rk.active);
  QVERIFY(!rk.forceAvailable);
  QCOMPARE(rk.impulse, 0.0);
  QCOMPARE(rk.force, 0.0);
  QVERIFY(std::abs(rk.residual - expectedK) <= kTol);

  // Also in simulation mode before the first step.
  w.enterSimulationMode();
  r = c.computeResidual();
  QVERIFY(!r.forceAvailable);
  QVERIFY(r.enabled && r.active);

  // Disabled: not enabled, not active, the residual still computed.
  LoopClosureRuntimePolicy p = c.getRuntimePolicy();
  p.enabled = false;
  c.setRuntimePolicy(p);
  r = c.computeResidual();
  QVERIFY(!r.enabled);
  QVERIFY(!r.active);
  QVERIFY(!r.forceAvailable);
  QVERIFY2(compareVectors(r.residual, expected, kTol).empty(),
           qPrintable(qs(compareVectors(r.residual, expected, kTol))));
  QVERIFY(std::abs(r.norm - expected.norm()) <= kTol);
  k.setEnabled(false);
  rk = k.computeResidual();
  QVERIFY(!rk.enabled);
  QVERIFY(!rk.active);
  QVERIFY(std::abs(rk.residual - expectedK) <= kTol);

  // Enabled but neither projected nor solved: not active.
  p.enabled = true;
  p.kinematics = ClosureKinematicsPolicy::ResidualOnly;
  p.dynamics = ClosureDynamicsPolicy::Off;
  c.setRuntimePolicy(p);
  r = c.computeResidual();
  QVERIFY(r.enabled);
  QVERIFY(!r.active);
  // Solved only, or projected only: active.
  p.dynamics = ClosureDynamicsPolicy::Solve;
  c.setRuntimePolicy(p);
  QVERIFY(c.computeResidual().active);
  p.kinematics = ClosureKinematicsPolicy::Project;
  p.dynamics = ClosureDynamicsPolicy::Off;
  c.setRuntimePolicy(p);
  QVERIFY(c.computeResidual().active);
}

QTEST_APPLESS_MAIN(TestLoopClosureTopology)
#include "test_loop_closure_topology.moc"

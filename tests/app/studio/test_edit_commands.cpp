// The studio's design edits (edit_operations.hpp) through Document::edit:
// each changes the design as expected, and undo / redo give back the exact
// scene text before and after. Mass properties of primitives are checked
// against closed forms and numerical integration.
#include "document.hpp"
#include "edit_operations.hpp"

#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/world.hpp>

#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

using namespace articula;
using namespace articula::studio;

namespace {

constexpr double kPi = std::numbers::pi;

#define CHECK_NEAR(actual, expected, tol)                                                  \
  QVERIFY2(std::abs(static_cast<double>(actual) - static_cast<double>(expected)) <= (tol), \
           qPrintable(QStringLiteral("%1 = %2, expected %3 (tolerance %4)")                \
                          .arg(QStringLiteral(#actual))                                    \
                          .arg(static_cast<double>(actual), 0, 'g', 17)                    \
                          .arg(static_cast<double>(expected), 0, 'g', 17)                  \
                          .arg(static_cast<double>(tol))))

#define CHECK_MATRIX_NEAR(actual, expected, tol)                                 \
  QVERIFY2(((actual) - (expected)).cwiseAbs().maxCoeff() <= (tol),               \
           qPrintable(QStringLiteral("%1 differs from the expected value by %2") \
                          .arg(QStringLiteral(#actual))                          \
                          .arg(((actual) - (expected)).cwiseAbs().maxCoeff(), 0, 'g', 6)))

Isometry3d translation(double x, double y, double z) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(x, y, z);
  return X;
}

Isometry3d pose(double x, double y, double z, const Vector3d& axis, double angle) {
  Isometry3d X = translation(x, y, z);
  X.linear() = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  return X;
}

std::string fourBarFile() {
  return std::string(ARTICULA_SOURCE_DIR) + "/scenes/four_bar.articula";
}

// A design with every kind of object: a rigid body with a material, a
// four-link arm with a coupler, user frames (one parented to another), an
// explicit collision setting and a distance closure, at a configuration
// where the closure and the coupler hold.
std::string builtSceneText() {
  World w;
  w.addGroundPlane();
  RigidBodyOptions bodyOptions;
  bodyOptions.inertia = Inertia::box(2.0, Vector3d(0.2, 0.3, 0.4));
  bodyOptions.pose = pose(0.5, 0.0, 1.0, Vector3d::UnitZ(), 0.3);
  RigidBody box = w.addRigidBody("box", bodyOptions);
  CollisionShapeOptions boxCollision;
  boxCollision.name = "box_collision";
  boxCollision.geometry = Geometry::box(Vector3d(0.2, 0.3, 0.4));
  boxCollision.material.friction = 0.5;
  boxCollision.material.restitution = 0.3;
  w.addCollisionShape(box, boxCollision);
  VisualShapeOptions boxVisual;
  boxVisual.name = "box_visual";
  boxVisual.geometry = Geometry::box(Vector3d(0.2, 0.3, 0.4));
  boxVisual.color = Vector4d(0.1, 0.2, 0.3, 1.0);
  w.addVisualShape(box, boxVisual);

  Multibody arm = w.addMultibody("arm");
  LinkOptions lo;
  lo.name = "base";
  lo.inertia = Inertia::cylinder(3.0, 0.1, 0.2);
  Link base = arm.addLink(
      lo, JointSpec::revolute(Vector3d::UnitZ()).withParentOffset(translation(0, 0, 0.5)).named("base_joint"));
  lo.name = "upper";
  lo.inertia = Inertia::box(1.0, Vector3d(0.05, 0.05, 0.4));
  Link upper = arm.addLink(
      lo, base, JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 0.2)).named("shoulder"));
  lo.name = "lower";
  lo.inertia = Inertia::box(0.8, Vector3d(0.04, 0.04, 0.3));
  Link lower = arm.addLink(
      lo, upper, JointSpec::revolute(Vector3d::UnitY()).withParentOffset(translation(0, 0, 0.4)).named("elbow"));
  lo.name = "slider";
  lo.inertia = Inertia::box(0.2, Vector3d(0.02, 0.02, 0.1));
  arm.addLink(lo, lower,
              JointSpec::prismatic(Vector3d::UnitZ()).withParentOffset(translation(0, 0, 0.3)).named("extend"));
  for (const Link& link : arm.getLinks()) {
    VisualShapeOptions v;
    v.name = link.name().substr(4) + "_visual";
    v.geometry = Geometry::box(Vector3d(0.05, 0.05, 0.2));
    v.pose = translation(0, 0, 0.1);
    link.world()->addVisualShape(link, v);
  }
  CollisionShapeOptions upperCollision;
  upperCollision.name = "upper_collision";
  upperCollision.geometry = Geometry::capsule(0.03, 0.3);
  upperCollision.pose = translation(0, 0, 0.2);
  w.addCollisionShape(upper, upperCollision);

  VectorXd q(4);
  q << 0.3, 0.2, -0.2, 0.05;
  arm.setPositions(q);

  w.addFreeFrame("marker", upper, translation(0.1, 0, 0));
  FixedFrame tool = w.addFixedFrame("tool", lower, translation(0, 0, 0.3));
  w.addFixedFrame("tool_tip", tool, translation(0, 0, 0.05));
  w.setCollisionEnabled(box, lower, false);

  LoopClosureSpec tether;
  tether.frameA = box;
  tether.frameB = lower;
  tether.family = LoopClosureFamily::Distance;
  tether.length = (lower.getWorldTransform().translation() - box.getWorldTransform().translation()).norm();
  w.addLoopClosure("tether", tether);

  JointCouplerSpec mimic;
  mimic.leader = *arm.getJoint("shoulder");
  mimic.follower = *arm.getJoint("elbow");
  mimic.ratio = -1.0;
  mimic.offset = 0.0;
  w.addJointCoupler("mimic", mimic);
  return io::sceneToString(w);
}

void loadScene(Document& document, const QString& scene) {
  if (scene == QLatin1String("four_bar")) {
    document.open(fourBarFile());
  } else {
    document.restoreText(builtSceneText());
    document.undoStack()->clear();
  }
}

std::unique_ptr<World> worldFromText(const std::string& text, const std::filesystem::path& base) {
  auto w = std::make_unique<World>();
  io::loadSceneFromString(*w, text, "<test>", base);
  return w;
}

// Index of a joint's first coordinate in the world's q.
int positionIndex(const World& w, const std::string& multibody, const std::string& joint) {
  const auto segment = w.getStateSpace().segment(multibody, joint);
  if (!segment) throw InvalidArgument("no joint " + multibody + "/" + joint);
  return segment->positionOffset;
}

// Reports where two texts first differ.
QByteArray firstDifference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const auto excerpt = [i](const std::string& s) {
    const std::size_t start = i > 40 ? i - 40 : 0;
    return QByteArray::fromStdString(s.substr(start, 120));
  };
  return "texts differ at byte " + QByteArray::number(static_cast<qulonglong>(i)) + ":\n  " + excerpt(a) + "\n  " +
         excerpt(b);
}

#define CHECK_TEXT(actual, expected) QVERIFY2((actual) == (expected), firstDifference(actual, expected).constData())

Link linkNamed(const World& w, const std::string& path) {
  auto link = findLink(w, ObjectRef{ObjectKind::Link, path});
  if (!link) throw InvalidArgument("no link " + path);
  return *link;
}

Joint jointNamed(const World& w, const std::string& path) {
  auto joint = findJoint(w, ObjectRef{ObjectKind::Joint, path});
  if (!joint) throw InvalidArgument("no joint " + path);
  return *joint;
}

std::vector<std::string> shapeNames(const std::vector<Shape>& shapes) {
  std::vector<std::string> names;
  for (const Shape& s : shapes) names.push_back(s.name());
  return names;
}

// Mass properties of a solid whose cross-section at height z is an ellipse
// of semi-axes semiAxes(z), by the midpoint rule over n slices: each slice
// is a thin elliptic disc (Ixx = dm (b²/4 + z²), Iyy = dm (a²/4 + z²),
// Izz = dm (a² + b²)/4).
Inertia integrateSlices(const std::function<std::pair<double, double>(double)>& semiAxes, double zMin, double zMax,
                        double density, int n) {
  Inertia in;
  in.mass = 0.0;
  in.com.setZero();
  in.rotational.setZero();
  const double h = (zMax - zMin) / n;
  for (int k = 0; k < n; ++k) {
    const double z = zMin + (k + 0.5) * h;
    const auto [a, b] = semiAxes(z);
    const double dm = density * kPi * a * b * h;
    in.mass += dm;
    in.rotational(0, 0) += dm * (b * b / 4.0 + z * z);
    in.rotational(1, 1) += dm * (a * a / 4.0 + z * z);
    in.rotational(2, 2) += dm * (a * a + b * b) / 4.0;
  }
  return in;
}

// One operation of the data-driven tests: the scene it starts from, the
// edit, and what the design must look like afterwards (given the design
// before, loaded independently).
struct Case {
  QString scene;
  std::function<void(World&)> op;
  std::function<void(const World& before, const World& after)> check;
};

ObjectRef ref(ObjectKind kind, const std::string& name) {
  return ObjectRef{kind, name};
}

const std::vector<std::pair<std::string, Case>>& cases() {
  static const std::vector<std::pair<std::string, Case>> all = [] {
    std::vector<std::pair<std::string, Case>> c;
    const QString fourBar = QStringLiteral("four_bar");
    const QString built = QStringLiteral("built");

    // ---- creation --------------------------------------------------------------
    c.push_back({"createRigidBody",
                 {built,
                  [](World& w) {
                    ops::BodyShape s;
                    s.geometry = Geometry::sphere(0.1);
                    s.color = Vector4d(1.0, 0.0, 0.0, 1.0);
                    s.density = 500.0;
                    ops::createRigidBody(w, "ball", s, translation(1, 2, 3));
                  },
                  [](const World& before, const World& after) {
                    QVERIFY(!before.hasRigidBody("ball"));
                    const auto ball = after.getRigidBody("ball");
                    QVERIFY(ball.has_value());
                    const double m = 500.0 * 4.0 / 3.0 * kPi * 1e-3;
                    CHECK_NEAR(ball->getMass(), m, 1e-12);
                    CHECK_MATRIX_NEAR(ball->getInertia().rotational, Matrix3d::Identity() * 0.4 * m * 0.01, 1e-15);
                    CHECK_MATRIX_NEAR(ball->getPose().translation(), Vector3d(1, 2, 3), 0.0);
                    const auto collision = ball->getCollisionShapes();
                    const auto visual = ball->getVisualShapes();
                    QCOMPARE(collision.size(), std::size_t(1));
                    QCOMPARE(visual.size(), std::size_t(1));
                    QVERIFY(collision[0].getGeometry().type == GeometryType::Sphere);
                    QCOMPARE(collision[0].getGeometry().radius, 0.1);
                    QCOMPARE(visual[0].getColor(), Vector4d(1.0, 0.0, 0.0, 1.0));
                  }}});
    c.push_back({"createRigidBody_autoName",
                 {built, [](World& w) { ops::createRigidBody(w, "", ops::BodyShape{}, Isometry3d::Identity()); },
                  [](const World& before, const World& after) {
                    QCOMPARE(after.numRigidBodies(), before.numRigidBodies() + 1);
                    QVERIFY(after.hasRigidBody("body"));
                    // Default shape: a 0.2 m cube of 1000 kg/m³.
                    CHECK_NEAR(after.getRigidBody("body")->getMass(), 8.0, 1e-12);
                  }}});
    c.push_back({"createMultibody",
                 {built,
                  [](World& w) {
                    ops::BodyShape s;
                    s.geometry = Geometry::box(Vector3d(0.2, 0.1, 0.1));
                    ops::createMultibody(w, "cart", JointType::Prismatic, s, translation(0, 1, 0.5));
                  },
                  [](const World&, const World& after) {
                    const auto cart = after.getMultibody("cart");
                    QVERIFY(cart.has_value());
                    QCOMPARE(cart->numLinks(), std::size_t(1));
                    const Link root = *cart->getRootLink();
                    QVERIFY(root.getParentJoint().type() == JointType::Prismatic);
                    CHECK_NEAR(root.getInertia().mass, 2.0, 1e-12);
                    CHECK_MATRIX_NEAR(root.getWorldTransform().translation(), Vector3d(0, 1, 0.5), 1e-15);
                    QCOMPARE(root.getCollisionShapes().size(), std::size_t(1));
                  }}});
    c.push_back({"addLink",
                 {fourBar,
                  [](World& w) {
                    ops::BodyShape s;
                    s.geometry = Geometry::sphere(0.02);
                    ops::addLink(w, ref(ObjectKind::Link, "four_bar/rocker"), "tip", JointType::Revolute,
                                 translation(0.3, 0, 0), s);
                  },
                  [](const World& before, const World& after) {
                    QCOMPARE(after.getMultibody("four_bar")->numLinks(),
                             before.getMultibody("four_bar")->numLinks() + 1);
                    const Link tip = linkNamed(after, "four_bar/tip");
                    QCOMPARE(tip.getParentLink()->name(), std::string("four_bar/rocker"));
                    const JointSpec spec = tip.getParentJoint().getSpec();
                    QVERIFY(spec.type == JointType::Revolute);
                    CHECK_MATRIX_NEAR(spec.axis, Vector3d::UnitZ(), 0.0);
                    CHECK_MATRIX_NEAR(spec.parentOffset.translation(), Vector3d(0.3, 0, 0), 0.0);
                    // The tip sits 0.3 m along the rocker's x axis.
                    const Isometry3d X_WR = linkNamed(after, "four_bar/rocker").getWorldTransform();
                    CHECK_MATRIX_NEAR(tip.getWorldTransform().translation(), X_WR * Vector3d(0.3, 0, 0), 1e-12);
                    CHECK_NEAR(tip.getInertia().mass, 1000.0 * 4.0 / 3.0 * kPi * 8e-6, 1e-12);
                  }}});
    c.push_back({"addLoopClosure_rigid",
                 {built,
                  [](World& w) {
                    ops::addLoopClosure(w, "weld", ref(ObjectKind::RigidBody, "box"),
                                        ref(ObjectKind::Link, "arm/lower"), LoopClosureFamily::Rigid);
                  },
                  [](const World& before, const World& after) {
                    const auto weld = after.getLoopClosure("weld");
                    QVERIFY(weld.has_value());
                    QVERIFY(weld->family() == LoopClosureFamily::Rigid);
                    const LoopClosureSpec spec = weld->getSpec();
                    QCOMPARE(spec.frameA.name(), std::string("box"));
                    QCOMPARE(spec.frameB.name(), std::string("arm/lower"));
                    // Both endpoints sit where the lower arm is.
                    const Isometry3d X_WL = linkNamed(before, "arm/lower").getWorldTransform();
                    CHECK_MATRIX_NEAR(weld->getEndpointA().matrix(), X_WL.matrix(), 1e-12);
                    CHECK_MATRIX_NEAR(weld->getEndpointB().matrix(), X_WL.matrix(), 1e-12);
                    QVERIFY(weld->computeResidualNorm() < 1e-12);
                  }}});
    c.push_back({"addLoopClosure_distance",
                 {fourBar,
                  [](World& w) {
                    ops::addLoopClosure(w, "", ref(ObjectKind::World, "world"),
                                        ref(ObjectKind::Link, "four_bar/coupler"), LoopClosureFamily::Distance);
                  },
                  [](const World& before, const World& after) {
                    QCOMPARE(after.numLoopClosures(), before.numLoopClosures() + 1);
                    const LoopClosure added = after.getLoopClosures().back();
                    QVERIFY(added.family() == LoopClosureFamily::Distance);
                    // The coupler's origin is the crank's end: 0.1 m from the
                    // crank pivot at (0, 0, 1) at crank angle q.
                    const double q = jointNamed(before, "four_bar/crank_joint").getPosition(0);
                    const Vector3d p(0.1 * std::cos(q), 0.0, 1.0 - 0.1 * std::sin(q));
                    CHECK_NEAR(added.getSpec().length, p.norm(), 1e-12);
                    QVERIFY(added.computeResidualNorm() < 1e-12);
                  }}});
    c.push_back({"addCoupler",
                 {built,
                  [](World& w) {
                    ops::addCoupler(w, "drive", ref(ObjectKind::Joint, "arm/base_joint"),
                                    ref(ObjectKind::Joint, "arm/extend"), 0.5, 0.01);
                  },
                  [](const World&, const World& after) {
                    const auto drive = after.getJointCoupler("drive");
                    QVERIFY(drive.has_value());
                    const JointCouplerSpec spec = drive->getSpec();
                    QCOMPARE(spec.ratio, 0.5);
                    QCOMPARE(spec.offset, 0.01);
                    QCOMPARE(spec.leader.name(), std::string("base_joint"));
                    QCOMPARE(spec.follower.name(), std::string("extend"));
                    // Satisfied at once: extend = 0.5·0.3 + 0.01.
                    CHECK_NEAR(jointNamed(after, "arm/extend").getPosition(0), 0.16, 1e-15);
                  }}});
    c.push_back({"addUserFrame_fixed",
                 {built,
                  [](World& w) {
                    ops::addUserFrame(w, "probe", ref(ObjectKind::Link, "arm/upper"),
                                      pose(0.1, 0.2, 0.3, Vector3d::UnitZ(), 0.5), true);
                  },
                  [](const World&, const World& after) {
                    const auto probe = after.getFixedFrame("probe");
                    QVERIFY(probe.has_value());
                    QCOMPARE(probe->getParentFrame().name(), std::string("arm/upper"));
                    const Isometry3d X = pose(0.1, 0.2, 0.3, Vector3d::UnitZ(), 0.5);
                    CHECK_MATRIX_NEAR(probe->getRelativeTransform().matrix(), X.matrix(), 0.0);
                    const Isometry3d X_WU = linkNamed(after, "arm/upper").getWorldTransform();
                    CHECK_MATRIX_NEAR(probe->getWorldTransform().matrix(), (X_WU * X).matrix(), 1e-12);
                  }}});
    c.push_back(
        {"addUserFrame_free",
         {built,
          [](World& w) { ops::addUserFrame(w, "", ref(ObjectKind::World, "world"), translation(0, 0, 2), false); },
          [](const World&, const World& after) {
            const auto frame = after.getFreeFrame("frame");
            QVERIFY(frame.has_value());
            QVERIFY(frame->getParentFrame().isWorld());
            CHECK_MATRIX_NEAR(frame->getWorldTransform().translation(), Vector3d(0, 0, 2), 0.0);
          }}});

    // ---- removal -----------------------------------------------------------------
    c.push_back({"remove_rigidBody",
                 {built, [](World& w) { ops::remove(w, ref(ObjectKind::RigidBody, "box")); },
                  [](const World&, const World& after) {
                    QVERIFY(!after.hasRigidBody("box"));
                    QVERIFY(!after.getShape("box_collision").has_value());
                    QVERIFY(!after.getShape("box_visual").has_value());
                    QVERIFY(!after.hasLoopClosure("tether"));
                    QVERIFY(after.getCollisionSettings().empty());
                  }}});
    c.push_back({"remove_multibody",
                 {fourBar, [](World& w) { ops::remove(w, ref(ObjectKind::Multibody, "four_bar")); },
                  [](const World&, const World& after) {
                    QCOMPARE(after.numMultibodies(), std::size_t(0));
                    QCOMPARE(after.numLoopClosures(), std::size_t(0));
                    QCOMPARE(after.numShapes(), std::size_t(0));
                  }}});
    c.push_back({"remove_link",
                 {built, [](World& w) { ops::remove(w, ref(ObjectKind::Link, "arm/lower")); },
                  [](const World&, const World& after) {
                    const Multibody arm = *after.getMultibody("arm");
                    QCOMPARE(arm.numLinks(), std::size_t(2));
                    QVERIFY(arm.hasLink("upper"));
                    QVERIFY(!arm.hasLink("slider"));
                    QVERIFY(!after.hasFrame("tool"));
                    QVERIFY(!after.hasFrame("tool_tip"));
                    QVERIFY(after.hasFrame("marker"));
                    QVERIFY(!after.hasLoopClosure("tether"));
                    QVERIFY(!after.hasJointCoupler("mimic"));
                    QVERIFY(!after.getShape("lower_visual").has_value());
                  }}});
    c.push_back({"remove_rootLink",
                 {fourBar, [](World& w) { ops::remove(w, ref(ObjectKind::Link, "four_bar/crank")); },
                  [](const World&, const World& after) {
                    QVERIFY(!after.hasMultibody("four_bar"));
                    QCOMPARE(after.numLoopClosures(), std::size_t(0));
                  }}});
    c.push_back({"remove_joint",
                 {built, [](World& w) { ops::remove(w, ref(ObjectKind::Joint, "arm/extend")); },
                  [](const World&, const World& after) {
                    const Multibody arm = *after.getMultibody("arm");
                    QCOMPARE(arm.numLinks(), std::size_t(3));
                    QVERIFY(!arm.hasLink("slider"));
                    QVERIFY(after.hasJointCoupler("mimic"));
                  }}});
    c.push_back({"remove_shape",
                 {fourBar, [](World& w) { ops::remove(w, ref(ObjectKind::Shape, "visual_1")); },
                  [](const World& before, const World& after) {
                    QCOMPARE(after.numShapes(), before.numShapes() - 1);
                    QVERIFY(!after.getShape("visual_1").has_value());
                    QVERIFY(after.getShape("visual_2").has_value());
                  }}});
    c.push_back({"remove_loopClosure",
                 {fourBar, [](World& w) { ops::remove(w, ref(ObjectKind::LoopClosure, "four_bar_pin")); },
                  [](const World&, const World& after) { QCOMPARE(after.numLoopClosures(), std::size_t(0)); }}});
    c.push_back({"remove_coupler",
                 {built, [](World& w) { ops::remove(w, ref(ObjectKind::Coupler, "mimic")); },
                  [](const World&, const World& after) {
                    QCOMPARE(after.numJointCouplers(), std::size_t(0));
                    QCOMPARE(after.getMultibody("arm")->numLinks(), std::size_t(4));
                  }}});
    c.push_back({"remove_frame",
                 {built, [](World& w) { ops::remove(w, ref(ObjectKind::Frame, "tool")); },
                  [](const World&, const World& after) {
                    QVERIFY(!after.hasFrame("tool"));
                    QVERIFY(!after.hasFrame("tool_tip"));
                    QCOMPARE(after.numFrames(), std::size_t(1));
                  }}});

    // ---- copies and moves ------------------------------------------------------------
    c.push_back({"duplicate_rigidBody",
                 {built, [](World& w) { ops::duplicate(w, ref(ObjectKind::RigidBody, "box"), Vector3d(0.25, 0, 0)); },
                  [](const World& before, const World& after) {
                    const auto copy = after.getRigidBody("box_1");
                    QVERIFY(copy.has_value());
                    const RigidBody original = *before.getRigidBody("box");
                    Isometry3d expected = original.getPose();
                    expected.translation() += Vector3d(0.25, 0, 0);
                    CHECK_MATRIX_NEAR(copy->getPose().matrix(), expected.matrix(), 1e-15);
                    QCOMPARE(copy->getInertia().mass, original.getInertia().mass);
                    QCOMPARE(copy->getInertia().rotational, original.getInertia().rotational);
                    QCOMPARE(shapeNames(copy->getCollisionShapes()), std::vector<std::string>{"box_collision_1"});
                    QCOMPARE(shapeNames(copy->getVisualShapes()), std::vector<std::string>{"box_visual_1"});
                    QCOMPARE(copy->getCollisionShapes()[0].getMaterial().restitution, 0.3);
                  }}});
    c.push_back({"duplicate_link",
                 {built, [](World& w) { ops::duplicate(w, ref(ObjectKind::Link, "arm/lower")); },
                  [](const World& before, const World& after) {
                    const Multibody arm = *after.getMultibody("arm");
                    QCOMPARE(arm.numLinks(), std::size_t(6));
                    const Link copy = linkNamed(after, "arm/lower_1");
                    QCOMPARE(copy.getParentLink()->name(), std::string("arm/upper"));
                    QCOMPARE(copy.getChildLinks().size(), std::size_t(1));
                    // Same joint coordinates, so the same place.
                    CHECK_MATRIX_NEAR(copy.getWorldTransform().matrix(),
                                      linkNamed(before, "arm/lower").getWorldTransform().matrix(), 1e-12);
                  }}});
    c.push_back(
        {"duplicate_multibody",
         {fourBar, [](World& w) { ops::duplicate(w, ref(ObjectKind::Multibody, "four_bar"), Vector3d(0, 0.5, 0)); },
          [](const World& before, const World& after) {
            const auto copy = after.getMultibody("four_bar_1");
            QVERIFY(copy.has_value());
            QCOMPARE(copy->numLinks(), std::size_t(3));
            for (const char* name : {"crank", "coupler", "rocker"}) {
              Isometry3d expected = linkNamed(before, std::string("four_bar/") + name).getWorldTransform();
              expected.translation() += Vector3d(0, 0.5, 0);
              CHECK_MATRIX_NEAR(linkNamed(after, std::string("four_bar_1/") + name).getWorldTransform().matrix(),
                                expected.matrix(), 1e-12);
            }
          }}});
    c.push_back({"duplicate_shape",
                 {fourBar, [](World& w) { ops::duplicate(w, ref(ObjectKind::Shape, "visual")); },
                  [](const World& before, const World& after) {
                    const auto copy = after.getShape("visual_3");
                    QVERIFY(copy.has_value());
                    const Shape original = *before.getShape("visual");
                    QCOMPARE(copy->getOwner().name(), std::string("four_bar/crank"));
                    QCOMPARE(copy->getGeometry().size, original.getGeometry().size);
                    QCOMPARE(copy->getColor(), original.getColor());
                    CHECK_MATRIX_NEAR(copy->getLocalPose().matrix(), original.getLocalPose().matrix(), 0.0);
                  }}});
    c.push_back({"duplicate_frame",
                 {built, [](World& w) { ops::duplicate(w, ref(ObjectKind::Frame, "marker")); },
                  [](const World&, const World& after) {
                    const auto copy = after.getFreeFrame("marker_1");
                    QVERIFY(copy.has_value());
                    QCOMPARE(copy->getParentFrame().name(), std::string("arm/upper"));
                    CHECK_MATRIX_NEAR(copy->getRelativeTransform().matrix(), translation(0.1, 0, 0).matrix(), 0.0);
                  }}});
    c.push_back(
        {"reparent",
         {built,
          [](World& w) { ops::reparent(w, ref(ObjectKind::Link, "arm/slider"), ref(ObjectKind::Link, "arm/upper")); },
          [](const World& before, const World& after) {
            const Link slider = linkNamed(after, "arm/slider");
            QCOMPARE(slider.getParentLink()->name(), std::string("arm/upper"));
            QCOMPARE(linkNamed(after, "arm/lower").getChildLinks().size(), std::size_t(0));
            // The joint is kept, now relative to the upper arm.
            const JointSpec spec = slider.getParentJoint().getSpec();
            QCOMPARE(spec.name, std::string("extend"));
            QVERIFY(spec.type == JointType::Prismatic);
            const double q = jointNamed(before, "arm/extend").getPosition(0);
            const Isometry3d X_WU = linkNamed(after, "arm/upper").getWorldTransform();
            CHECK_MATRIX_NEAR(slider.getWorldTransform().translation(), X_WU * Vector3d(0, 0, 0.3 + q), 1e-12);
          }}});
    c.push_back({"changeJointType",
                 {fourBar,
                  [](World& w) {
                    ops::changeJointType(w, ref(ObjectKind::Joint, "four_bar/crank_joint"), JointType::Prismatic);
                  },
                  [](const World&, const World& after) {
                    const Joint j = jointNamed(after, "four_bar/crank_joint");
                    QVERIFY(j.type() == JointType::Prismatic);
                    const JointSpec spec = j.getSpec();
                    CHECK_MATRIX_NEAR(spec.axis, Vector3d::UnitY(), 0.0);
                    CHECK_MATRIX_NEAR(spec.parentOffset.translation(), Vector3d(0, 0, 1), 0.0);
                  }}});
    c.push_back(
        {"changeJointType_ball",
         {built, [](World& w) { ops::changeJointType(w, ref(ObjectKind::Joint, "arm/base_joint"), JointType::Ball); },
          [](const World& before, const World& after) {
            const Joint j = jointNamed(after, "arm/base_joint");
            QVERIFY(j.type() == JointType::Ball);
            QCOMPARE(j.numPositions(), 4);
            QCOMPARE(j.numDofs(), 3);
            CHECK_MATRIX_NEAR(j.getSpec().parentOffset.matrix(),
                              jointNamed(before, "arm/base_joint").getSpec().parentOffset.matrix(), 0.0);
          }}});

    // ---- renames -----------------------------------------------------------------------
    c.push_back({"rename_rigidBody",
                 {built, [](World& w) { ops::rename(w, ref(ObjectKind::RigidBody, "box"), "crate"); },
                  [](const World&, const World& after) {
                    QVERIFY(!after.hasRigidBody("box"));
                    QVERIFY(after.hasRigidBody("crate"));
                    QCOMPARE(after.getShape("box_collision")->getOwner().name(), std::string("crate"));
                    QCOMPARE(after.getLoopClosure("tether")->getSpec().frameA.name(), std::string("crate"));
                    const auto settings = after.getCollisionSettings();
                    QCOMPARE(settings.size(), std::size_t(1));
                    QVERIFY(settings[0].a.name() == "crate" || settings[0].b.name() == "crate");
                    QVERIFY(!settings[0].enabled);
                  }}});
    c.push_back({"rename_multibody",
                 {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::Multibody, "four_bar"), "linkage"); },
                  [](const World& before, const World& after) {
                    QVERIFY(after.hasMultibody("linkage"));
                    QVERIFY(!after.hasMultibody("four_bar"));
                    QCOMPARE(after.getLoopClosure("four_bar_pin")->getSpec().frameB.name(),
                             std::string("linkage/rocker"));
                    QCOMPARE(after.getShape("visual")->getOwner().name(), std::string("linkage/crank"));
                    QCOMPARE(after.getPositions(), before.getPositions());
                  }}});
    c.push_back({"rename_link",
                 {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::Link, "four_bar/rocker"), "output"); },
                  [](const World&, const World& after) {
                    const Link output = linkNamed(after, "four_bar/output");
                    QCOMPARE(output.getParentLink()->name(), std::string("four_bar/coupler"));
                    QCOMPARE(after.getLoopClosure("four_bar_pin")->getSpec().frameB.name(),
                             std::string("four_bar/output"));
                    QCOMPARE(after.getShape("visual_2")->getOwner().name(), std::string("four_bar/output"));
                  }}});
    c.push_back({"rename_link_parent",
                 {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::Link, "four_bar/coupler"), "bar"); },
                  [](const World&, const World& after) {
                    QCOMPARE(linkNamed(after, "four_bar/rocker").getParentLink()->name(), std::string("four_bar/bar"));
                    QCOMPARE(after.getShape("visual_1")->getOwner().name(), std::string("four_bar/bar"));
                  }}});
    c.push_back({"rename_joint",
                 {built, [](World& w) { ops::rename(w, ref(ObjectKind::Joint, "arm/shoulder"), "hip"); },
                  [](const World&, const World& after) {
                    QVERIFY(after.getMultibody("arm")->hasJoint("hip"));
                    QVERIFY(!after.getMultibody("arm")->hasJoint("shoulder"));
                    QCOMPARE(after.getJointCoupler("mimic")->getSpec().leader.name(), std::string("hip"));
                    QCOMPARE(linkNamed(after, "arm/upper").getParentJoint().name(), std::string("hip"));
                  }}});
    c.push_back({"rename_shape",
                 {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::Shape, "visual_1"), "coupler_bar"); },
                  [](const World&, const World& after) {
                    QVERIFY(!after.getShape("visual_1").has_value());
                    QCOMPARE(after.getShape("coupler_bar")->getOwner().name(), std::string("four_bar/coupler"));
                  }}});
    c.push_back({"rename_loopClosure",
                 {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::LoopClosure, "four_bar_pin"), "pin"); },
                  [](const World&, const World& after) {
                    QVERIFY(after.hasLoopClosure("pin"));
                    QVERIFY(!after.hasLoopClosure("four_bar_pin"));
                  }}});
    c.push_back({"rename_coupler",
                 {built, [](World& w) { ops::rename(w, ref(ObjectKind::Coupler, "mimic"), "gear"); },
                  [](const World&, const World& after) {
                    QVERIFY(after.hasJointCoupler("gear"));
                    QCOMPARE(after.getJointCoupler("gear")->getSpec().ratio, -1.0);
                  }}});
    c.push_back({"rename_frame",
                 {built, [](World& w) { ops::rename(w, ref(ObjectKind::Frame, "tool"), "flange"); },
                  [](const World&, const World& after) {
                    QVERIFY(after.getFixedFrame("flange").has_value());
                    QCOMPARE(after.getFixedFrame("tool_tip")->getParentFrame().name(), std::string("flange"));
                  }}});

    // ---- replacements ----------------------------------------------------------------------
    c.push_back({"setShapeGeometry_visual",
                 {fourBar,
                  [](World& w) {
                    ops::setShapeGeometry(w, ref(ObjectKind::Shape, "visual_1"), Geometry::cylinder(0.01, 0.35));
                  },
                  [](const World& before, const World& after) {
                    const Shape s = *after.getShape("visual_1");
                    QVERIFY(s.getGeometry().type == GeometryType::Cylinder);
                    QCOMPARE(s.getGeometry().radius, 0.01);
                    QCOMPARE(s.getGeometry().length, 0.35);
                    const Shape original = *before.getShape("visual_1");
                    QCOMPARE(s.getColor(), original.getColor());
                    CHECK_MATRIX_NEAR(s.getLocalPose().matrix(), original.getLocalPose().matrix(), 0.0);
                    QCOMPARE(s.getOwner().name(), std::string("four_bar/coupler"));
                  }}});
    c.push_back(
        {"setShapeGeometry_collision",
         {built,
          [](World& w) { ops::setShapeGeometry(w, ref(ObjectKind::Shape, "box_collision"), Geometry::sphere(0.2)); },
          [](const World& before, const World& after) {
            const Shape s = *after.getShape("box_collision");
            QVERIFY(s.getGeometry().type == GeometryType::Sphere);
            QCOMPARE(s.getMaterial().friction, 0.5);
            QCOMPARE(s.getMaterial().restitution, 0.3);
            QVERIFY(s.isCollidable());
            // The owner's shapes keep their order.
            const RigidBody box = *after.getRigidBody("box");
            QCOMPARE(shapeNames(box.getCollisionShapes()),
                     shapeNames(before.getRigidBody("box")->getCollisionShapes()));
          }}});
    c.push_back({"setLoopClosureGeometry",
                 {fourBar,
                  [](World& w) {
                    ops::setLoopClosureGeometry(w, ref(ObjectKind::LoopClosure, "four_bar_pin"),
                                                LoopClosureFamily::Point, translation(0.4, 0, 1),
                                                translation(0.3, 0, 0), 0.0);
                  },
                  [](const World& before, const World& after) {
                    const LoopClosure c2 = *after.getLoopClosure("four_bar_pin");
                    QVERIFY(c2.family() == LoopClosureFamily::Point);
                    const LoopClosureSpec spec = c2.getSpec();
                    CHECK_MATRIX_NEAR(spec.offsetA.matrix(), translation(0.4, 0, 1).matrix(), 0.0);
                    CHECK_MATRIX_NEAR(spec.offsetB.matrix(), translation(0.3, 0, 0).matrix(), 0.0);
                    QVERIFY(spec.frameA.isWorld());
                    QCOMPARE(spec.frameB.name(), std::string("four_bar/rocker"));
                    const auto p0 = before.getLoopClosure("four_bar_pin")->getRuntimePolicy();
                    const auto p1 = c2.getRuntimePolicy();
                    QVERIFY(p0.enabled == p1.enabled && p0.kinematics == p1.kinematics && p0.tolerance == p1.tolerance);
                    // The pin's origins coincide: the point closure holds.
                    QVERIFY(c2.computeResidualNorm() < 1e-9);
                  }}});
    c.push_back({"setLoopClosureGeometry_distance",
                 {built,
                  [](World& w) {
                    ops::setLoopClosureGeometry(w, ref(ObjectKind::LoopClosure, "tether"), LoopClosureFamily::Distance,
                                                Isometry3d::Identity(), Isometry3d::Identity(), 0.8);
                  },
                  [](const World&, const World& after) {
                    const LoopClosure c2 = *after.getLoopClosure("tether");
                    QCOMPARE(c2.getSpec().length, 0.8);
                    QCOMPARE(c2.getSpec().frameA.name(), std::string("box"));
                  }}});
    c.push_back({"setCouplerRatio",
                 {built, [](World& w) { ops::setCouplerRatio(w, ref(ObjectKind::Coupler, "mimic"), -2.0, 0.1); },
                  [](const World&, const World& after) {
                    const JointCouplerSpec spec = after.getJointCoupler("mimic")->getSpec();
                    QCOMPARE(spec.ratio, -2.0);
                    QCOMPARE(spec.offset, 0.1);
                    QCOMPARE(spec.leader.name(), std::string("shoulder"));
                    QCOMPARE(spec.follower.name(), std::string("elbow"));
                    CHECK_NEAR(jointNamed(after, "arm/elbow").getPosition(0), -2.0 * 0.2 + 0.1, 1e-15);
                  }}});
    c.push_back({"inertiaFromShapes",
                 {fourBar,
                  [](World& w) {
                    const ObjectRef crank = ref(ObjectKind::Link, "four_bar/crank");
                    linkNamed(w, "four_bar/crank").setInertia(ops::inertiaFromShapes(w, crank, 2700.0));
                  },
                  [](const World&, const World& after) {
                    // The crank's only shape: a 0.1 × 0.02 × 0.02 box centred at x = 0.05.
                    const double m = 2700.0 * 0.1 * 0.02 * 0.02;
                    const Inertia expected = Inertia::box(m, Vector3d(0.1, 0.02, 0.02));
                    const Inertia in = linkNamed(after, "four_bar/crank").getInertia();
                    CHECK_NEAR(in.mass, m, 1e-15);
                    CHECK_MATRIX_NEAR(in.com, Vector3d(0.05, 0, 0), 1e-15);
                    CHECK_MATRIX_NEAR(in.rotational, expected.rotational, 1e-15);
                  }}});
    return c;
  }();
  return all;
}

// Edits that must be refused.
struct FailingCase {
  QString scene;
  std::function<void(World&)> op;
};

const std::vector<std::pair<std::string, FailingCase>>& failingCases() {
  static const std::vector<std::pair<std::string, FailingCase>> all = [] {
    std::vector<std::pair<std::string, FailingCase>> c;
    const QString fourBar = QStringLiteral("four_bar");
    const QString built = QStringLiteral("built");
    c.push_back({"rename_taken",
                 {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::Link, "four_bar/coupler"), "crank"); }}});
    c.push_back({"rename_takenWorldName",
                 {built, [](World& w) { ops::rename(w, ref(ObjectKind::RigidBody, "box"), "marker"); }}});
    c.push_back(
        {"rename_empty", {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::Multibody, "four_bar"), ""); }}});
    c.push_back({"rename_slash", {fourBar, [](World& w) { ops::rename(w, ref(ObjectKind::Shape, "visual"), "a/b"); }}});
    c.push_back({"coupler_self", {built, [](World& w) {
                                    ops::addCoupler(w, "", ref(ObjectKind::Joint, "arm/shoulder"),
                                                    ref(ObjectKind::Joint, "arm/shoulder"), 1.0, 0.0);
                                  }}});
    c.push_back(
        {"changeJointType_coupled",
         {built, [](World& w) { ops::changeJointType(w, ref(ObjectKind::Joint, "arm/shoulder"), JointType::Ball); }}});
    c.push_back({"setShapeGeometry_negative", {fourBar, [](World& w) {
                                                 ops::setShapeGeometry(w, ref(ObjectKind::Shape, "visual_1"),
                                                                       Geometry::sphere(-1.0));
                                               }}});
    c.push_back({"distance_zero", {built, [](World& w) {
                                     ops::addLoopClosure(w, "", ref(ObjectKind::Link, "arm/upper"),
                                                         ref(ObjectKind::Link, "arm/upper"),
                                                         LoopClosureFamily::Distance);
                                   }}});
    c.push_back({"remove_world", {fourBar, [](World& w) { ops::remove(w, ref(ObjectKind::World, "world")); }}});
    c.push_back({"reparent_cycle", {built, [](World& w) {
                                      ops::reparent(w, ref(ObjectKind::Link, "arm/upper"),
                                                    ref(ObjectKind::Link, "arm/slider"));
                                    }}});
    return c;
  }();
  return all;
}

}  // namespace

class TestEditCommands : public QObject {
  Q_OBJECT

 private slots:
  void operations_data() {
    QTest::addColumn<QString>("name");
    for (const auto& [name, c] : cases()) QTest::newRow(name.c_str()) << QString::fromStdString(name);
  }

  // Edit, compare with the expectation, then undo / redo / undo byte for byte.
  void operations() {
    QFETCH(QString, name);
    const auto it = std::find_if(cases().begin(), cases().end(),
                                 [&](const auto& entry) { return entry.first == name.toStdString(); });
    QVERIFY(it != cases().end());
    const Case& c = it->second;
    Document document;
    loadScene(document, c.scene);
    const std::string before = document.sceneText();
    const int steps = document.undoStack()->count();
    QSignalSpy changed(&document, &Document::designChanged);

    QString error;
    QVERIFY2(document.edit(name, c.op, &error), qPrintable(error));
    QVERIFY(error.isEmpty());
    const std::string after = document.sceneText();
    QVERIFY(after != before);
    QCOMPARE(document.undoStack()->count(), steps + 1);
    QCOMPARE(changed.count(), 1);

    const auto beforeWorld = worldFromText(before, document.baseDirectory());
    c.check(*beforeWorld, document.world());
    if (QTest::currentTestFailed()) return;
    // The design that was saved reads back to the same design.
    const auto afterWorld = worldFromText(after, document.baseDirectory());
    CHECK_TEXT(io::sceneToString(*afterWorld, document.baseDirectory()), after);

    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
    document.undoStack()->redo();
    CHECK_TEXT(document.sceneText(), after);
    c.check(*beforeWorld, document.world());
    if (QTest::currentTestFailed()) return;
    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
  }

  void refusedEdits_data() {
    QTest::addColumn<QString>("name");
    for (const auto& [name, c] : failingCases()) QTest::newRow(name.c_str()) << QString::fromStdString(name);
  }

  // A refused edit reports why and leaves the design and the undo stack alone.
  void refusedEdits() {
    QFETCH(QString, name);
    const auto it = std::find_if(failingCases().begin(), failingCases().end(),
                                 [&](const auto& entry) { return entry.first == name.toStdString(); });
    QVERIFY(it != failingCases().end());
    Document document;
    loadScene(document, it->second.scene);
    // One edit first, so that the stack is not empty and its index is telling.
    QVERIFY(document.edit(QStringLiteral("gravity"), [](World& w) { w.setGravity(Vector3d(0, 0, -9.8)); }));
    const std::string before = document.sceneText();
    const int steps = document.undoStack()->count();
    const int index = document.undoStack()->index();
    QString error;
    QVERIFY(!document.edit(name, it->second.op, &error));
    QVERIFY2(!error.isEmpty(), "a refused edit says why");
    CHECK_TEXT(document.sceneText(), before);
    QCOMPARE(document.undoStack()->count(), steps);
    QCOMPARE(document.undoStack()->index(), index);
  }

  void renameTakenNameMessage() {
    Document document;
    loadScene(document, QStringLiteral("four_bar"));
    QString error;
    QVERIFY(!document.edit(
        QStringLiteral("rename"), [](World& w) { ops::rename(w, ref(ObjectKind::Link, "four_bar/coupler"), "crank"); },
        &error));
    QVERIFY2(error.contains(QStringLiteral("crank")), qPrintable(error));
    QVERIFY(findLink(document.world(), ref(ObjectKind::Link, "four_bar/coupler")).has_value());
  }

  // Replacing a geometry, closure or coupler by one the engine refuses
  // leaves the world as it was, even without a Document around it.
  void refusedReplacementsRollBack() {
    World w;
    io::loadSceneFromString(w, builtSceneText());
    const std::string before = io::sceneToString(w);
    QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                             ops::setShapeGeometry(w, ref(ObjectKind::Shape, "box_collision"), Geometry::sphere(-1.0)));
    CHECK_TEXT(io::sceneToString(w), before);
    QVERIFY_THROWS_EXCEPTION(
        Error, ops::setLoopClosureGeometry(w, ref(ObjectKind::LoopClosure, "tether"), LoopClosureFamily::Distance,
                                           Isometry3d::Identity(), Isometry3d::Identity(), -1.0));
    CHECK_TEXT(io::sceneToString(w), before);
    QVERIFY_THROWS_EXCEPTION(Error, ops::setCouplerRatio(w, ref(ObjectKind::Coupler, "mimic"), 0.0, 0.0));
    CHECK_TEXT(io::sceneToString(w), before);
  }

  void renameReturnsNewReference() {
    World w;
    io::loadSceneFromString(w, builtSceneText());
    QCOMPARE(ops::rename(w, ref(ObjectKind::Link, "arm/upper"), "humerus"), ref(ObjectKind::Link, "arm/humerus"));
    QCOMPARE(ops::rename(w, ref(ObjectKind::Multibody, "arm"), "robot"), ref(ObjectKind::Multibody, "robot"));
    // References of everything that hung off the old names follow.
    QCOMPARE(w.getFreeFrame("marker")->getParentFrame().name(), std::string("robot/humerus"));
    QCOMPARE(w.getShape("upper_collision")->getOwner().name(), std::string("robot/humerus"));
    QCOMPARE(w.getJointCoupler("mimic")->getSpec().leader.getMultibody().name(), std::string("robot"));
  }

  void mergedEditsAreOneStep() {
    Document document;
    loadScene(document, QStringLiteral("four_bar"));
    const std::string before = document.sceneText();
    const int steps = document.undoStack()->count();
    const QString key = QStringLiteral("four_bar/crank:mass");
    const auto setMass = [](double m) {
      return [m](World& w) {
        Link crank = linkNamed(w, "four_bar/crank");
        Inertia in = crank.getInertia();
        in.mass = m;
        crank.setInertia(in);
      };
    };
    QVERIFY(document.edit(QStringLiteral("mass"), setMass(0.6), nullptr, key));
    QVERIFY(document.edit(QStringLiteral("mass"), setMass(0.7), nullptr, key));
    QCOMPARE(document.undoStack()->count(), steps + 1);
    QCOMPARE(linkNamed(document.world(), "four_bar/crank").getInertia().mass, 0.7);
    const std::string after = document.sceneText();
    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
    document.undoStack()->redo();
    CHECK_TEXT(document.sceneText(), after);
    // Another key starts a new step.
    QVERIFY(document.edit(QStringLiteral("mass"), setMass(0.8), nullptr, QStringLiteral("other")));
    QCOMPARE(document.undoStack()->count(), steps + 2);
  }

  // ---- positions ----------------------------------------------------------------

  void setPositionsFollowsClosure() {
    Document document;
    loadScene(document, QStringLiteral("four_bar"));
    const std::string before = document.sceneText();
    const VectorXd q0 = document.world().getPositions();
    VectorXd q = q0;
    q[positionIndex(document.world(), "four_bar", "crank_joint")] = -0.5;
    const int steps = document.undoStack()->count();
    document.setPositions(QStringLiteral("crank"), q, {ref(ObjectKind::Joint, "four_bar/crank_joint")});
    QCOMPARE(document.undoStack()->count(), steps + 1);
    const World& w = document.world();
    QCOMPARE(jointNamed(w, "four_bar/crank_joint").getPosition(0), -0.5);
    QVERIFY(w.getLoopClosure("four_bar_pin")->computeResidualNorm() < 1e-8);
    QVERIFY(std::abs(jointNamed(w, "four_bar/coupler_joint").getPosition(0) -
                     q0[positionIndex(w, "four_bar", "coupler_joint")]) > 1e-3);
    QVERIFY(std::abs(jointNamed(w, "four_bar/rocker_joint").getPosition(0) -
                     q0[positionIndex(w, "four_bar", "rocker_joint")]) > 1e-3);
    const std::string after = document.sceneText();
    QVERIFY(after != before);
    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
    document.undoStack()->redo();
    CHECK_TEXT(document.sceneText(), after);
    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
  }

  void setPositionsMerge() {
    Document document;
    loadScene(document, QStringLiteral("built"));
    const std::string before = document.sceneText();
    const int steps = document.undoStack()->count();
    VectorXd q = document.world().getPositions();
    const int offset = positionIndex(document.world(), "arm", "extend");
    q[offset] = 0.1;
    document.setPositions(QStringLiteral("extend"), q, {}, QStringLiteral("arm/extend:q0"));
    q[offset] = 0.12;
    document.setPositions(QStringLiteral("extend"), q, {}, QStringLiteral("arm/extend:q0"));
    QCOMPARE(document.undoStack()->count(), steps + 1);
    QCOMPARE(jointNamed(document.world(), "arm/extend").getPosition(0), 0.12);
    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
  }

  void positionsDragIsOneStep() {
    Document document;
    loadScene(document, QStringLiteral("four_bar"));
    const std::string before = document.sceneText();
    const int steps = document.undoStack()->count();
    QSignalSpy moved(&document, &Document::positionsChanged);
    const ObjectRef crank = ref(ObjectKind::Joint, "four_bar/crank_joint");
    document.beginPositionsDrag();
    QVERIFY(document.isDraggingPositions());
    VectorXd q = document.world().getPositions();
    const int crankIndex = positionIndex(document.world(), "four_bar", "crank_joint");
    for (double angle : {-0.9, -0.8, -0.7}) {
      q[crankIndex] = angle;
      document.setPositionsLive(q, {crank});
      QVERIFY(document.world().getLoopClosure("four_bar_pin")->computeResidualNorm() < 1e-8);
      q = document.world().getPositions();
    }
    QCOMPARE(moved.count(), 3);
    document.endPositionsDrag(QStringLiteral("drag crank"));
    QVERIFY(!document.isDraggingPositions());
    QCOMPARE(document.undoStack()->count(), steps + 1);
    QCOMPARE(jointNamed(document.world(), "four_bar/crank_joint").getPosition(0), -0.7);
    const std::string after = document.sceneText();
    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
    document.undoStack()->redo();
    CHECK_TEXT(document.sceneText(), after);
    document.undoStack()->undo();
    CHECK_TEXT(document.sceneText(), before);
    // A drag that does not move anything pushes nothing.
    document.beginPositionsDrag();
    document.endPositionsDrag(QStringLiteral("nothing"));
    QCOMPARE(document.undoStack()->count(), steps + 1);
  }

  // ---- mass properties ----------------------------------------------------------

  void uniqueNames() {
    const std::vector<std::string> taken = {"body", "body_1", "body_3"};
    const auto isTaken = [&](const std::string& s) { return std::find(taken.begin(), taken.end(), s) != taken.end(); };
    QCOMPARE(ops::uniqueName("body", isTaken), std::string("body_2"));
    QCOMPARE(ops::uniqueName("link", isTaken), std::string("link"));
  }

  void boxInertia() {
    const Inertia in = ops::primitiveInertia(Geometry::box(Vector3d(0.1, 0.2, 0.3)), 1000.0);
    const double m = 6.0;
    CHECK_NEAR(in.mass, m, 1e-12);
    CHECK_MATRIX_NEAR(in.com, Vector3d::Zero(), 0.0);
    const Matrix3d expected =
        Vector3d(m * (0.04 + 0.09) / 12.0, m * (0.01 + 0.09) / 12.0, m * (0.01 + 0.04) / 12.0).asDiagonal();
    CHECK_MATRIX_NEAR(in.rotational, expected, 1e-15);
    CHECK_MATRIX_NEAR(in.rotational, Inertia::box(m, Vector3d(0.1, 0.2, 0.3)).rotational, 1e-15);
  }

  void sphereInertia() {
    const double r = 0.2;
    const Inertia in = ops::primitiveInertia(Geometry::sphere(r), 500.0);
    const double m = 500.0 * 4.0 / 3.0 * kPi * r * r * r;
    CHECK_NEAR(in.mass, m, 1e-12);
    CHECK_MATRIX_NEAR(in.rotational, Matrix3d::Identity() * (2.0 / 5.0 * m * r * r), 1e-15);
    CHECK_MATRIX_NEAR(in.rotational, Inertia::sphere(m, r).rotational, 1e-15);
  }

  void cylinderInertia() {
    const double r = 0.1;
    const double l = 0.6;
    const Inertia in = ops::primitiveInertia(Geometry::cylinder(r, l), 800.0);
    const double m = 800.0 * kPi * r * r * l;
    CHECK_NEAR(in.mass, m, 1e-12);
    CHECK_MATRIX_NEAR(in.rotational, Inertia::cylinder(m, r, l).rotational, 1e-14);
    const Inertia numeric = integrateSlices([r](double) { return std::make_pair(r, r); }, -l / 2, l / 2, 800.0, 20000);
    CHECK_MATRIX_NEAR(in.rotational, numeric.rotational, 1e-7 * in.rotational.norm());
  }

  void capsuleInertia() {
    const double r = 0.1;
    const double l = 0.4;
    const double density = 1200.0;
    const Inertia in = ops::primitiveInertia(Geometry::capsule(r, l), density);
    const double m = density * (kPi * r * r * l + 4.0 / 3.0 * kPi * r * r * r);
    CHECK_NEAR(in.mass, m, 1e-12);
    // Slices: radius r along the cylinder, √(r² − (|z| − l/2)²) over the caps.
    const auto radius = [r, l](double z) {
      const double d = std::abs(z) - l / 2;
      const double rho = d <= 0.0 ? r : std::sqrt(std::max(0.0, r * r - d * d));
      return std::make_pair(rho, rho);
    };
    const Inertia numeric = integrateSlices(radius, -l / 2 - r, l / 2 + r, density, 400000);
    CHECK_NEAR(numeric.mass, m, 1e-6 * m);
    CHECK_MATRIX_NEAR(in.rotational, numeric.rotational, 1e-6 * in.rotational.norm());

    // A long capsule is a cylinder with the sphere's mass split between its
    // ends: Ixx → I_cylinder + m_sphere (l/2)² as l/r grows.
    const double longL = 50.0;
    const Inertia capsule = ops::primitiveInertia(Geometry::capsule(r, longL), density);
    const Inertia cylinder = ops::primitiveInertia(Geometry::cylinder(r, longL), density);
    const Inertia sphere = ops::primitiveInertia(Geometry::sphere(r), density);
    CHECK_NEAR(capsule.mass, cylinder.mass + sphere.mass, 1e-9 * capsule.mass);
    const double limit = cylinder.rotational(0, 0) + sphere.mass * longL * longL / 4.0;
    CHECK_NEAR(capsule.rotational(0, 0), limit, 2e-3 * limit);
    // About the axis the parts simply add (to round-off: the mass is split by volume).
    CHECK_NEAR(capsule.rotational(2, 2), cylinder.rotational(2, 2) + sphere.rotational(2, 2),
               1e-14 * capsule.rotational(2, 2));
  }

  void ellipsoidInertia() {
    // A round ellipsoid is a sphere.
    const Inertia round = ops::primitiveInertia(Geometry::ellipsoid(Vector3d::Constant(0.3)), 700.0);
    const Inertia sphere = ops::primitiveInertia(Geometry::sphere(0.3), 700.0);
    CHECK_NEAR(round.mass, sphere.mass, 1e-12);
    CHECK_MATRIX_NEAR(round.rotational, sphere.rotational, 1e-14);
    // Semi-axes a, b, c: numerical integration over z.
    const double a = 0.1;
    const double b = 0.2;
    const double c = 0.3;
    const Inertia in = ops::primitiveInertia(Geometry::ellipsoid(Vector3d(a, b, c)), 700.0);
    CHECK_NEAR(in.mass, 700.0 * 4.0 / 3.0 * kPi * a * b * c, 1e-12);
    const auto axes = [a, b, c](double z) {
      const double s = std::sqrt(std::max(0.0, 1.0 - z * z / (c * c)));
      return std::make_pair(a * s, b * s);
    };
    const Inertia numeric = integrateSlices(axes, -c, c, 700.0, 400000);
    CHECK_MATRIX_NEAR(in.rotational, numeric.rotational, 1e-6 * in.rotational.norm());
  }

  void nonPrimitivesAreRefused() {
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, ops::primitiveInertia(Geometry::plane(), 1000.0));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, ops::primitiveInertia(Geometry::box(Vector3d(1, 0, 1)), 1000.0));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, ops::primitiveInertia(Geometry::sphere(1.0), -1.0));
  }

  // Two boxes side by side (one turned by 90°) have the mass properties of
  // one box of their combined extent.
  void parallelAxisCombination() {
    World w;
    RigidBodyOptions options;
    RigidBody body = w.addRigidBody("pair", options);
    CollisionShapeOptions left;
    left.geometry = Geometry::box(Vector3d(0.2, 0.1, 0.1));
    left.pose = translation(0.3, 0.2, 0.0);
    w.addCollisionShape(body, left);
    CollisionShapeOptions right;
    right.geometry = Geometry::box(Vector3d(0.1, 0.2, 0.1));  // turned about z: 0.2 along x
    right.pose = pose(0.5, 0.2, 0.0, Vector3d::UnitZ(), kPi / 2);
    w.addCollisionShape(body, right);
    VisualShapeOptions ignored;  // visual shapes do not count when there are collision shapes
    ignored.geometry = Geometry::sphere(1.0);
    w.addVisualShape(body, ignored);

    const Inertia in = ops::inertiaFromShapes(w, ref(ObjectKind::RigidBody, "pair"), 1000.0);
    const Inertia one = ops::primitiveInertia(Geometry::box(Vector3d(0.4, 0.1, 0.1)), 1000.0);
    CHECK_NEAR(in.mass, one.mass, 1e-12);
    CHECK_MATRIX_NEAR(in.com, Vector3d(0.4, 0.2, 0.0), 1e-15);
    CHECK_MATRIX_NEAR(in.rotational, one.rotational, 1e-15);

    // Meshes are left out and named.
    CollisionShapeOptions mesh;
    mesh.name = "hull";
    mesh.geometry = Geometry::convexMesh({Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(0, 1, 0), Vector3d(0, 0, 1)});
    w.addCollisionShape(body, mesh);
    std::vector<std::string> skipped;
    const Inertia again = ops::inertiaFromShapes(w, ref(ObjectKind::RigidBody, "pair"), 1000.0, &skipped);
    QCOMPARE(skipped, std::vector<std::string>{"hull"});
    CHECK_NEAR(again.mass, one.mass, 1e-12);
  }

  void visualShapesWhenNoCollisionShapes() {
    World w;
    io::loadSceneFromString(w, builtSceneText());
    // The lower arm has only a visual box 0.05 × 0.05 × 0.2 at z = 0.1.
    const Inertia in = ops::inertiaFromShapes(w, ref(ObjectKind::Link, "arm/lower"), 1000.0);
    const double m = 1000.0 * 0.05 * 0.05 * 0.2;
    CHECK_NEAR(in.mass, m, 1e-12);
    CHECK_MATRIX_NEAR(in.com, Vector3d(0, 0, 0.1), 1e-15);
    CHECK_MATRIX_NEAR(in.rotational, Inertia::box(m, Vector3d(0.05, 0.05, 0.2)).rotational, 1e-15);
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, ops::inertiaFromShapes(w, ref(ObjectKind::Frame, "marker"), 1000.0));
  }

  // An edit that changes the world and then fails is taken back whole.
  void failingEditIsRolledBack() {
    Document document;
    document.open(std::filesystem::path(ARTICULA_SOURCE_DIR) / "scenes" / "four_bar.articula");
    const std::string before = document.sceneText();
    const int steps = document.undoStack()->count();
    QString error;
    const bool ok = document.edit(
        QStringLiteral("half done"),
        [](World& w) {
          w.addRigidBody("stray");
          w.remove(*w.getLoopClosure("four_bar_pin"));
          throw InvalidArgument("failed after two changes");
        },
        &error);
    QVERIFY(!ok);
    QCOMPARE(error, QString("failed after two changes"));
    QCOMPARE(document.sceneText(), before);
    QCOMPARE(document.undoStack()->count(), steps);
    QVERIFY(!document.world().hasRigidBody("stray"));
    QVERIFY(document.world().hasLoopClosure("four_bar_pin"));
  }

  // Undo after Save As into another folder: the mesh files the design
  // refers to are still found (undo keeps absolute paths).
  void undoAfterSavingElsewhere() {
    QTemporaryDir from;
    QTemporaryDir to;
    const std::filesystem::path source = std::filesystem::path(ARTICULA_SOURCE_DIR) / "tests" / "data" / "sdf";
    std::filesystem::copy(source, from.path().toStdString(), std::filesystem::copy_options::recursive);
    Document document;
    io::ImportOptions options;  // the SDF world includes model://sdf_test_crate from models/
    options.packagePath = {std::filesystem::path(from.path().toStdString()) / "models"};
    document.open(std::filesystem::path(from.path().toStdString()) / "world.sdf", options);
    std::size_t meshes = 0;
    for (const RigidBody& b : document.world().getRigidBodies()) {
      for (const Shape& sh : b.getCollisionShapes()) meshes += sh.getGeometry().meshFile.empty() ? 0 : 1;
    }
    for (const Multibody& m : document.world().getMultibodies()) {
      for (const Link& l : m.getLinks()) {
        for (const Shape& sh : l.getCollisionShapes()) meshes += sh.getGeometry().meshFile.empty() ? 0 : 1;
      }
    }
    QVERIFY2(meshes > 0, "the SDF world has no mesh shapes");
    const std::string original = document.sceneText();
    QVERIFY(document.edit(QStringLiteral("add"), [](World& w) {
      ops::createRigidBody(w, "added", ops::BodyShape{}, Isometry3d::Identity());
    }));
    const std::filesystem::path saved = std::filesystem::path(to.path().toStdString()) / "moved.articula";
    document.save(saved);
    QStringList messages;
    connect(&document, &Document::message, this, [&messages](const QString& m) { messages << m; });
    document.undoStack()->undo();
    QVERIFY2(messages.isEmpty(), qPrintable(messages.join("; ")));
    QVERIFY(!document.world().hasRigidBody("added"));
    // The same design as opened, now written relative to the new folder.
    World reread;
    io::loadSceneFromString(reread, original, "<original>", from.path().toStdString());
    QCOMPARE(document.sceneText(), io::sceneToString(reread, saved.parent_path()));
    document.undoStack()->redo();
    QVERIFY(messages.isEmpty());
    QVERIFY(document.world().hasRigidBody("added"));
  }

  // A design that cannot be rebuilt (a mesh file removed since) is reported
  // by undo, not thrown out of it; the design stays as it was.
  // Undo keeps the design as values (a WorldSpec, meshes included), so it
  // does not depend on files: mesh files deleted after the edit do not stop
  // undo and redo.
  void undoDoesNotNeedTheMeshFiles() {
    QTemporaryDir from;
    const std::filesystem::path source = std::filesystem::path(ARTICULA_SOURCE_DIR) / "tests" / "data" / "sdf";
    std::filesystem::copy(source, from.path().toStdString(), std::filesystem::copy_options::recursive);
    Document document;
    io::ImportOptions options;  // the SDF world includes model://sdf_test_crate from models/
    options.packagePath = {std::filesystem::path(from.path().toStdString()) / "models"};
    document.open(std::filesystem::path(from.path().toStdString()) / "world.sdf", options);
    const WorldSpec opened = document.designSpec();
    QVERIFY(document.edit(QStringLiteral("add"), [](World& w) {
      ops::createRigidBody(w, "added", ops::BodyShape{}, Isometry3d::Identity());
    }));
    const WorldSpec edited = document.designSpec();
    std::filesystem::remove_all(std::filesystem::path(from.path().toStdString()) / "meshes");
    QStringList messages;
    connect(&document, &Document::message, this, [&messages](const QString& m) { messages << m; });
    document.undoStack()->undo();
    QVERIFY2(messages.isEmpty(), qPrintable(messages.join('\n')));
    QVERIFY(!document.world().hasRigidBody("added"));
    QVERIFY(document.designSpec() == opened);
    document.undoStack()->redo();
    QVERIFY(document.world().hasRigidBody("added"));
    QVERIFY(document.designSpec() == edited);
  }

  // An edit made while a positions drag is held (a shortcut during a gizmo
  // drag) ends the drag first, as its own step; both undo exactly, and the
  // release afterwards records nothing more.
  void editDuringADragEndsTheDragFirst() {
    Document document;
    document.open(std::filesystem::path(ARTICULA_SOURCE_DIR) / "scenes" / "four_bar.articula");
    const std::string original = document.sceneText();
    document.beginPositionsDrag();
    VectorXd q = document.world().getPositions();
    q[0] += 0.2;
    document.setPositionsLive(q, {{ObjectKind::Link, "four_bar/crank"}});
    const std::string dragged = document.sceneText();
    QVERIFY(dragged != original);
    QVERIFY(document.edit(QStringLiteral("add"), [](World& w) {
      ops::createRigidBody(w, "added", ops::BodyShape{}, Isometry3d::Identity());
    }));
    QVERIFY(!document.isDraggingPositions());
    document.endPositionsDrag(QStringLiteral("release"));
    QCOMPARE(document.undoStack()->count(), 2);
    document.undoStack()->undo();
    QCOMPARE(document.sceneText(), dragged);
    document.undoStack()->undo();
    QCOMPARE(document.sceneText(), original);
  }

  // Insert Model: a second copy of the built scene goes in 2 m along x.
  // Taken names get suffixes; the copy's links sit where the original's
  // are, moved by the offset; its closure and coupler name the copy's
  // frames and joints and hold as the original's do; its mass matrix is the
  // original's (the same mechanism). One undo step takes it out again.
  void insertModelCopiesTheModel() {
    Document document;
    document.restoreText(builtSceneText());
    const WorldSpec before = document.designSpec();
    World source;
    io::loadSceneFromString(source, builtSceneText(), "<built>");
    const Isometry3d X = translation(2.0, 0.0, 0.0);
    std::vector<ObjectRef> created;
    QString error;
    QVERIFY2(document.edit(
                 "insert", [&](World& w) { created = ops::insertWorld(w, source, X); }, &error),
             qPrintable(error));
    World& w = document.world();
    QCOMPARE(created.size(), std::size_t(2));
    QCOMPARE(created[0], (ObjectRef{ObjectKind::RigidBody, "box_1"}));
    QCOMPARE(created[1], (ObjectRef{ObjectKind::Multibody, "arm_1"}));
    QCOMPARE(w.numRigidBodies(), std::size_t(2));
    QCOMPARE(w.numMultibodies(), std::size_t(2));
    const Multibody arm = *w.getMultibody("arm");
    const Multibody copy = *w.getMultibody("arm_1");
    QCOMPARE(copy.numLinks(), arm.numLinks());
    for (const Link& link : arm.getLinks()) {
      const Link other = *copy.getLink(splitPath(link.name()).second);
      CHECK_MATRIX_NEAR(other.getWorldTransform().matrix(), (X * link.getWorldTransform()).matrix(), 1e-12);
      QCOMPARE(other.getParentJoint().name(), link.getParentJoint().name());
      QCOMPARE(w.getVisualShapes(other).size(), w.getVisualShapes(link).size());
      QCOMPARE(w.getCollisionShapes(other).size(), w.getCollisionShapes(link).size());
    }
    CHECK_MATRIX_NEAR(copy.getMassMatrix(), arm.getMassMatrix(), 1e-12);
    CHECK_MATRIX_NEAR(w.getRigidBody("box_1")->getPose().matrix(), (X * w.getRigidBody("box")->getPose()).matrix(),
                      1e-12);
    // The ground (a shape of the world) is not copied.
    QCOMPARE(w.getCollisionShapes(Frame::World()).size(), std::size_t(1));
    const LoopClosure tether = *w.getLoopClosure("tether_1");
    QCOMPARE(refOfFrame(tether.getSpec().frameA), (ObjectRef{ObjectKind::RigidBody, "box_1"}));
    QCOMPARE(refOfFrame(tether.getSpec().frameB), (ObjectRef{ObjectKind::Link, "arm_1/lower"}));
    CHECK_NEAR(tether.computeResidualNorm(), w.getLoopClosure("tether")->computeResidualNorm(), 1e-12);
    const JointCoupler mimic = *w.getJointCoupler("mimic_1");
    QCOMPARE(refOf(mimic.getSpec().leader), (ObjectRef{ObjectKind::Joint, "arm_1/shoulder"}));
    QCOMPARE(refOf(mimic.getSpec().follower), (ObjectRef{ObjectKind::Joint, "arm_1/elbow"}));
    QCOMPARE(mimic.getSpec().ratio, -1.0);
    CHECK_NEAR(mimic.computeResidual().residual, 0.0, 1e-12);

    const WorldSpec after = document.designSpec();
    document.undoStack()->undo();
    QVERIFY(document.designSpec() == before);
    document.undoStack()->redo();
    QVERIFY(document.designSpec() == after);
  }

  // Create ▸ Ground Plane is one undoable edit; a second one gets its own name.
  void groundPlaneIsAnEdit() {
    Document document;
    document.newDesign();
    const WorldSpec before = document.designSpec();
    const auto addGround = [](World& w) {
      w.addGroundPlane(0.0, Material{},
                       ops::uniqueName("ground", [&](const std::string& n) { return w.getShape(n).has_value(); }));
    };
    QVERIFY(document.edit("ground", addGround));
    QVERIFY(document.world().getShape("ground_1"));
    document.undoStack()->undo();
    QVERIFY(document.designSpec() == before);
  }

  // Bounds of a turned box: |R|·half about its centre.
  void shapeBounds() {
    World w;
    RigidBodyOptions o;
    o.pose = pose(1.0, 2.0, 3.0, Vector3d::UnitZ(), kPi / 4);
    const RigidBody body = w.addRigidBody("b", o);
    CollisionShapeOptions c;
    c.geometry = Geometry::box(Vector3d(0.2, 0.2, 0.4));
    const Shape shape = w.addCollisionShape(body, c);
    const Eigen::AlignedBox3d box = ops::worldBounds(shape);
    const double h = 0.1 * std::sqrt(2.0);
    CHECK_MATRIX_NEAR(box.min(), Vector3d(1.0 - h, 2.0 - h, 2.8), 1e-12);
    CHECK_MATRIX_NEAR(box.max(), Vector3d(1.0 + h, 2.0 + h, 3.2), 1e-12);
    QVERIFY(ops::worldBounds(w.addGroundPlane()).isEmpty());
  }

  // A new body goes where it overlaps nothing: the preferred spot when it
  // is free, else the nearest free one; five boxes in a row never overlap.
  void newBodiesDoNotOverlap() {
    World w;
    w.addGroundPlane();
    const Vector3d half(0.1, 0.1, 0.1);
    const Vector3d preferred(0.0, 0.0, 0.5);
    QCOMPARE(ops::freeSpot(w, half, preferred), preferred);
    ops::BodyShape shape;
    shape.geometry = Geometry::box(2.0 * half);
    for (int i = 0; i < 5; ++i) {
      const Vector3d at = ops::freeSpot(w, half, preferred);
      QCOMPARE(at.z(), preferred.z());
      ops::createRigidBody(w, "", shape, translation(at.x(), at.y(), at.z()));
    }
    const std::vector<RigidBody> bodies = w.getRigidBodies();
    QCOMPARE(bodies.size(), std::size_t(5));
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      for (std::size_t j = i + 1; j < bodies.size(); ++j) {
        const Eigen::AlignedBox3d a = ops::worldBounds(w.getCollisionShapes(bodies[i]).front());
        const Eigen::AlignedBox3d b = ops::worldBounds(w.getCollisionShapes(bodies[j]).front());
        QVERIFY2(!a.intersects(b), qPrintable(QString("bodies %1 and %2 overlap").arg(i).arg(j)));
      }
    }
    // The first one took the preferred spot; the next is one step away.
    CHECK_MATRIX_NEAR(bodies[0].getPose().translation(), preferred, 1e-12);
    CHECK_NEAR((bodies[1].getPose().translation() - preferred).norm(), 2.0 * (0.1 + 0.05), 1e-12);
  }
};

QTEST_MAIN(TestEditCommands)
#include "test_edit_commands.moc"

// The property inspector: its fields change the design through undoable
// edits, refuse invalid values with a message next to the field, move a
// closed chain through a joint coordinate, and turn read-only (with drive
// sliders that drive the running simulation and show the drives last sent)
// while the design is locked.
#include "document.hpp"
#include "edit_operations.hpp"
#include "inspector.hpp"
#include "simulation.hpp"

#include <articula/io/scene_file.hpp>
#include <articula/recording.hpp>
#include <articula/world.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QUndoStack>
#include <QtTest/QtTest>

#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <string>

using namespace articula;
using namespace articula::studio;

namespace {

constexpr double kPi = std::numbers::pi;

std::string sceneFile(const char* name) {
  return std::string(ARTICULA_SOURCE_DIR) + "/scenes/" + name;
}

ObjectRef ref(ObjectKind kind, const std::string& name) {
  return ObjectRef{kind, name};
}

Joint jointNamed(const World& w, const std::string& path) {
  auto joint = findJoint(w, ref(ObjectKind::Joint, path));
  if (!joint) throw InvalidArgument("no joint " + path);
  return *joint;
}

}  // namespace

class TestInspector : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<Document> m_document;
  std::unique_ptr<Simulation> m_simulation;
  std::unique_ptr<Inspector> m_inspector;

  Document& document() { return *m_document; }
  Inspector& inspector() { return *m_inspector; }

  template <typename T>
  T* field(const char* name) {
    T* widget = m_inspector->findChild<T*>(QString::fromLatin1(name));
    if (widget == nullptr) qWarning("no widget named %s", name);
    return widget;
  }

  QLabel* errorLabel(const char* fieldName) {
    return m_inspector->findChild<QLabel*>(QStringLiteral("error_") + QLatin1String(fieldName));
  }

  void select(const ObjectRef& r) { m_document->setSelection({r}); }

  // Starts the simulation from the design and locks the design, as the
  // main window does; the form turns read-only.
  void startSimulation() {
    m_simulation->start(m_document->sceneText(), m_document->baseDirectory());
    m_document->setLocked(true);
    QTRY_VERIFY(m_inspector->isReadOnly());
  }

  struct DofIndex {
    Eigen::Index position = 0;
    Eigen::Index velocity = 0;
  };

  // Where the crank's coordinate sits in the simulation world's q and v
  // (a world loaded from the same scene text).
  DofIndex crankDof() const {
    World world;
    io::loadSceneFromString(world, m_document->sceneText(), "<design>", m_document->baseDirectory());
    const std::optional<StateSegment> segment = world.getStateSpace().segment("four_bar", "crank_joint");
    if (!segment) throw InvalidArgument("no crank joint");
    return {segment->positionOffset, segment->velocityOffset};
  }

  // The generalized force on DoF `index` in the last recorded frame.
  double appliedForce(Eigen::Index index) const {
    const Recording recording = m_simulation->recordingCopy();
    return recording.snapshot(recording.size() - 1).state.forces[index];
  }

  // Types into a line edit and presses Return (editingFinished).
  static void typeInto(QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->selectAll();
    edit->setText(text);
    QTest::keyClick(edit, Qt::Key_Return);
  }

  // The four-bar plus a rigid box of 0.2 × 0.3 × 0.4 m, with an empty undo stack.
  void openFourBarWithBox() {
    m_document->open(sceneFile("four_bar.articula"));
    QVERIFY(m_document->edit(QStringLiteral("box"), [](World& w) {
      ops::BodyShape s;
      s.geometry = Geometry::box(Vector3d(0.2, 0.3, 0.4));
      ops::createRigidBody(w, "crate", s, Isometry3d::Identity());
    }));
    m_document->undoStack()->clear();
  }

 private slots:
  void init() {
    m_document = std::make_unique<Document>();
    m_simulation = std::make_unique<Simulation>();
    m_inspector = std::make_unique<Inspector>(m_document.get(), m_simulation.get());
    m_inspector->resize(400, 800);
    m_inspector->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_inspector.get()));
    openFourBarWithBox();
  }

  void cleanup() {
    m_inspector.reset();
    m_simulation.reset();
    m_document.reset();
  }

  void nothingSelected() {
    select(ObjectRef{});
    QVERIFY(inspector().findChild<QLabel*>(QStringLiteral("inspector_empty")) != nullptr);
    QVERIFY(inspector().findChild<QLineEdit*>(QStringLiteral("field_name")) == nullptr);
  }

  void massFieldIsOneMergedStep() {
    select(ref(ObjectKind::RigidBody, "crate"));
    QCOMPARE(inspector().shownObject(), ref(ObjectKind::RigidBody, "crate"));
    auto* mass = field<QDoubleSpinBox>("field_mass");
    QVERIFY(mass != nullptr);
    const double original = document().world().getRigidBody("crate")->getMass();
    QCOMPARE(mass->value(), original);
    const std::string before = document().sceneText();
    mass->setValue(5.0);
    QCOMPARE(document().world().getRigidBody("crate")->getMass(), 5.0);
    QCOMPARE(document().undoStack()->count(), 1);
    // A second step of the same field merges into the same undo step.
    mass = field<QDoubleSpinBox>("field_mass");
    mass->setValue(6.0);
    QCOMPARE(document().world().getRigidBody("crate")->getMass(), 6.0);
    QCOMPARE(document().undoStack()->count(), 1);
    // Undo puts the design back and the field follows.
    document().undoStack()->undo();
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(field<QDoubleSpinBox>("field_mass")->value(), original);
  }

  void negativeMassIsRefused() {
    select(ref(ObjectKind::RigidBody, "crate"));
    auto* mass = field<QDoubleSpinBox>("field_mass");
    QVERIFY(mass != nullptr);
    QLabel* error = errorLabel("mass");
    QVERIFY(error != nullptr);
    QVERIFY(error->isHidden());
    const std::string before = document().sceneText();
    const double original = mass->value();
    mass->setValue(-1.0);
    QVERIFY(!error->isHidden());
    QVERIFY(!error->text().isEmpty());
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(document().undoStack()->count(), 0);
    QCOMPARE(mass->value(), original);
    // A valid value afterwards is taken and clears the message.
    mass->setValue(3.0);
    QCOMPARE(document().world().getRigidBody("crate")->getMass(), 3.0);
    QVERIFY(errorLabel("mass")->isHidden());
  }

  void engineRefusalIsShown() {
    // A diagonal entry that breaks the triangle inequality passes the local
    // check (not negative) and is refused by the engine.
    select(ref(ObjectKind::RigidBody, "crate"));
    auto* ixx = field<QDoubleSpinBox>("field_inertia_xx");
    QVERIFY(ixx != nullptr);
    const std::string before = document().sceneText();
    const double original = ixx->value();
    ixx->setValue(1000.0);
    QLabel* error = errorLabel("inertia_xx");
    QVERIFY(error != nullptr);
    QVERIFY(!error->isHidden());
    QVERIFY2(error->text().contains(QStringLiteral("triangle")), qPrintable(error->text()));
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(document().undoStack()->count(), 0);
    QCOMPARE(field<QDoubleSpinBox>("field_inertia_xx")->value(), original);
  }

  void renameFollowsSelection() {
    select(ref(ObjectKind::Link, "four_bar/rocker"));
    auto* name = field<QLineEdit>("field_name");
    QVERIFY(name != nullptr);
    QCOMPARE(name->text(), QStringLiteral("rocker"));
    typeInto(name, QStringLiteral("output"));
    const World& w = document().world();
    QVERIFY(findLink(w, ref(ObjectKind::Link, "four_bar/output")).has_value());
    QCOMPARE(w.getLoopClosure("four_bar_pin")->getSpec().frameB.name(), std::string("four_bar/output"));
    QCOMPARE(document().undoStack()->count(), 1);
    QCOMPARE(document().current(), ref(ObjectKind::Link, "four_bar/output"));
    QCOMPARE(field<QLineEdit>("field_name")->text(), QStringLiteral("output"));
    QVERIFY(errorLabel("name")->isHidden());
  }

  void takenNameIsRefused() {
    select(ref(ObjectKind::Link, "four_bar/rocker"));
    auto* name = field<QLineEdit>("field_name");
    QVERIFY(name != nullptr);
    const std::string before = document().sceneText();
    typeInto(name, QStringLiteral("crank"));
    QLabel* error = errorLabel("name");
    QVERIFY(error != nullptr);
    QVERIFY(!error->isHidden());
    QVERIFY2(error->text().contains(QStringLiteral("crank")), qPrintable(error->text()));
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(document().undoStack()->count(), 0);
    QCOMPARE(field<QLineEdit>("field_name")->text(), QStringLiteral("rocker"));
  }

  // The crank's coordinate field moves the crank; the loop follows.
  void crankCoordinateMovesTheLoop() {
    select(ref(ObjectKind::Link, "four_bar/crank"));
    auto* q0 = field<QDoubleSpinBox>("field_q0");
    QVERIFY(q0 != nullptr);
    const World& w = document().world();
    const double crank0 = jointNamed(w, "four_bar/crank_joint").getPosition(0);
    const double coupler0 = jointNamed(w, "four_bar/coupler_joint").getPosition(0);
    const double rocker0 = jointNamed(w, "four_bar/rocker_joint").getPosition(0);
    QVERIFY(std::abs(q0->value() - crank0 * 180.0 / kPi) < 1e-9);  // shown in degrees
    const std::string before = document().sceneText();
    q0->setValue(-30.0);
    QVERIFY(std::abs(jointNamed(w, "four_bar/crank_joint").getPosition(0) - (-30.0 * kPi / 180.0)) < 1e-12);
    QVERIFY(w.getLoopClosure("four_bar_pin")->computeResidualNorm() < 1e-8);
    QVERIFY(std::abs(jointNamed(w, "four_bar/coupler_joint").getPosition(0) - coupler0) > 1e-3);
    QVERIFY(std::abs(jointNamed(w, "four_bar/rocker_joint").getPosition(0) - rocker0) > 1e-3);
    QCOMPARE(document().undoStack()->count(), 1);
    // The shown residual is the closure's.
    auto* residual = inspector().findChild<QLabel*>(QStringLiteral("value_closure_residual"));
    QVERIFY(residual != nullptr);
    bool ok = false;
    QVERIFY(residual->text().toDouble(&ok) < 1e-8);
    QVERIFY(ok);
    // Steps of the same field merge.
    field<QDoubleSpinBox>("field_q0")->setValue(-25.0);
    QCOMPARE(document().undoStack()->count(), 1);
    QVERIFY(w.getLoopClosure("four_bar_pin")->computeResidualNorm() < 1e-8);
    document().undoStack()->undo();
    QCOMPARE(document().sceneText(), before);
    QVERIFY(std::abs(field<QDoubleSpinBox>("field_q0")->value() - crank0 * 180.0 / kPi) < 1e-9);
  }

  void computeInertiaFromShapes() {
    select(ref(ObjectKind::RigidBody, "crate"));
    auto* density = field<QDoubleSpinBox>("field_density");
    auto* button = field<QPushButton>("button_compute_inertia");
    QVERIFY(density != nullptr && button != nullptr);
    density->setValue(500.0);
    button->click();
    const Inertia in = document().world().getRigidBody("crate")->getInertia();
    const double m = 500.0 * 0.2 * 0.3 * 0.4;
    QVERIFY(std::abs(in.mass - m) < 1e-12);
    const Matrix3d expected =
        Vector3d(m * (0.09 + 0.16) / 12.0, m * (0.04 + 0.16) / 12.0, m * (0.04 + 0.09) / 12.0).asDiagonal();
    QVERIFY((in.rotational - expected).cwiseAbs().maxCoeff() < 1e-14);
    QVERIFY(in.com.isZero(0.0));
    QCOMPARE(document().undoStack()->count(), 1);
    QVERIFY(std::abs(field<QDoubleSpinBox>("field_mass")->value() - m) < 1e-12);
  }

  void rigidBodyPose() {
    select(ref(ObjectKind::RigidBody, "crate"));
    field<QDoubleSpinBox>("field_pos_z")->setValue(0.75);
    field<QDoubleSpinBox>("field_yaw")->setValue(90.0);
    const Isometry3d X = document().world().getRigidBody("crate")->getPose();
    QCOMPARE(X.translation().z(), 0.75);
    QVERIFY((X.linear() - Eigen::AngleAxisd(kPi / 2, Vector3d::UnitZ()).toRotationMatrix()).norm() < 1e-12);
    QCOMPARE(document().undoStack()->count(), 2);
  }

  void jointTypeAndLimits() {
    select(ref(ObjectKind::Joint, "four_bar/crank_joint"));
    auto* lower = field<QLineEdit>("field_lower_0");
    QVERIFY(lower != nullptr);
    QVERIFY(lower->text().isEmpty());  // no limit
    typeInto(lower, QStringLiteral("-90"));
    QVERIFY(std::abs(jointNamed(document().world(), "four_bar/crank_joint").getSpec().positionLowerLimits[0] +
                     kPi / 2) < 1e-12);
    QCOMPARE(document().undoStack()->count(), 1);
    // An upper limit below the lower one is refused.
    const std::string before = document().sceneText();
    typeInto(field<QLineEdit>("field_upper_0"), QStringLiteral("-100"));
    QVERIFY(!errorLabel("upper_0")->isHidden());
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(document().undoStack()->count(), 1);
    QVERIFY(field<QLineEdit>("field_upper_0")->text().isEmpty());
    // Negative damping is refused, positive taken.
    typeInto(field<QLineEdit>("field_damping_0"), QStringLiteral("-1"));
    QVERIFY(!errorLabel("damping_0")->isHidden());
    QCOMPARE(document().sceneText(), before);
    typeInto(field<QLineEdit>("field_damping_0"), QStringLiteral("0.5"));
    QCOMPARE(jointNamed(document().world(), "four_bar/crank_joint").getSpec().damping[0], 0.5);
    QCOMPARE(document().undoStack()->count(), 2);

    // Another type: the form is rebuilt for it.
    auto* type = field<QComboBox>("field_type");
    QVERIFY(type != nullptr);
    QCOMPARE(type->currentText(), QStringLiteral("revolute"));
    type->setCurrentIndex(static_cast<int>(JointType::Prismatic));
    const Joint crank = jointNamed(document().world(), "four_bar/crank_joint");
    QVERIFY(crank.type() == JointType::Prismatic);
    QCOMPARE(crank.getSpec().axis, Vector3d(0, 1, 0));
    QCOMPARE(document().undoStack()->count(), 3);
    QCOMPARE(field<QComboBox>("field_type")->currentText(), QStringLiteral("prismatic"));
  }

  void jointAxisAndOffset() {
    select(ref(ObjectKind::Joint, "four_bar/crank_joint"));
    field<QDoubleSpinBox>("field_offset_pos_z")->setValue(1.5);
    QCOMPARE(jointNamed(document().world(), "four_bar/crank_joint").getSpec().parentOffset.translation().z(), 1.5);
    const std::string before = document().sceneText();
    // Zeroing the only non-zero axis component would leave no axis.
    field<QDoubleSpinBox>("field_axis_y")->setValue(0.0);
    QVERIFY(!errorLabel("axis_y")->isHidden());
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(field<QDoubleSpinBox>("field_axis_y")->value(), 1.0);
  }

  void shapeGeometryAndColour() {
    select(ref(ObjectKind::Shape, "visual_1"));
    auto* sizeX = field<QDoubleSpinBox>("field_size_x");
    QVERIFY(sizeX != nullptr);
    QCOMPARE(sizeX->value(), 0.35);
    sizeX->setValue(0.5);
    const Shape shape = *document().world().getShape("visual_1");
    QCOMPARE(shape.getGeometry().size, Vector3d(0.5, 0.02, 0.02));
    QCOMPARE(shape.getOwner().name(), std::string("four_bar/coupler"));
    QCOMPARE(document().undoStack()->count(), 1);
    const std::string before = document().sceneText();
    field<QDoubleSpinBox>("field_size_y")->setValue(0.0);
    QVERIFY(!errorLabel("size_y")->isHidden());
    QCOMPARE(document().sceneText(), before);
    field<QDoubleSpinBox>("field_color_g")->setValue(0.9);
    QCOMPARE(document().world().getShape("visual_1")->getColor()[1], 0.9);
    // Another geometry type.
    auto* type = field<QComboBox>("field_geometry_type");
    QVERIFY(type != nullptr);
    type->setCurrentIndex(type->findText(QStringLiteral("sphere")));
    QVERIFY(document().world().getShape("visual_1")->getGeometry().type == GeometryType::Sphere);
    QVERIFY(field<QDoubleSpinBox>("field_radius") != nullptr);
    QCOMPARE(document().undoStack()->count(), 3);
  }

  void collisionShapeMaterial() {
    const auto crate = document().world().getRigidBody("crate");
    QVERIFY(crate.has_value());
    const std::string shapeName = crate->getCollisionShapes().front().name();
    select(ref(ObjectKind::Shape, shapeName));
    field<QDoubleSpinBox>("field_friction")->setValue(0.25);
    QCOMPARE(document().world().getShape(shapeName)->getMaterial().friction, 0.25);
    const std::string before = document().sceneText();
    field<QDoubleSpinBox>("field_restitution")->setValue(1.5);
    QVERIFY(!errorLabel("restitution")->isHidden());
    QCOMPARE(document().sceneText(), before);
    field<QCheckBox>("field_collidable")->setChecked(false);
    QVERIFY(!document().world().getShape(shapeName)->isCollidable());
    QCOMPARE(document().undoStack()->count(), 2);
  }

  void loopClosurePolicy() {
    select(ref(ObjectKind::LoopClosure, "four_bar_pin"));
    auto* residual = inspector().findChild<QLabel*>(QStringLiteral("value_residual"));
    QVERIFY(residual != nullptr);
    field<QComboBox>("field_kinematics")->setCurrentIndex(1);
    LoopClosureRuntimePolicy p = document().world().getLoopClosure("four_bar_pin")->getRuntimePolicy();
    QVERIFY(p.kinematics == ClosureKinematicsPolicy::ResidualOnly);
    field<QCheckBox>("field_enabled")->setChecked(false);
    p = document().world().getLoopClosure("four_bar_pin")->getRuntimePolicy();
    QVERIFY(!p.enabled);
    QCOMPARE(document().undoStack()->count(), 2);
    field<QComboBox>("field_family")->setCurrentIndex(static_cast<int>(LoopClosureFamily::Point));
    QVERIFY(document().world().getLoopClosure("four_bar_pin")->family() == LoopClosureFamily::Point);
    QVERIFY(!document().world().getLoopClosure("four_bar_pin")->getRuntimePolicy().enabled);
    // The pin's endpoints coincide: a distance closure of length zero is refused.
    const std::string before = document().sceneText();
    field<QComboBox>("field_family")->setCurrentIndex(static_cast<int>(LoopClosureFamily::Distance));
    QVERIFY(!errorLabel("family")->isHidden());
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(field<QComboBox>("field_family")->currentIndex(), static_cast<int>(LoopClosureFamily::Point));
  }

  void worldOptions() {
    select(ref(ObjectKind::World, "world"));
    field<QDoubleSpinBox>("field_time_step")->setValue(0.002);
    QCOMPARE(document().world().getOptions().timeStep, 0.002);
    const std::string before = document().sceneText();
    field<QDoubleSpinBox>("field_time_step")->setValue(0.0);
    QVERIFY(!errorLabel("time_step")->isHidden());
    QCOMPARE(document().sceneText(), before);
    field<QDoubleSpinBox>("field_gravity_z")->setValue(-1.62);
    QCOMPARE(document().world().getOptions().gravity.z(), -1.62);
    field<QComboBox>("field_solver_method")->setCurrentIndex(1);
    QCOMPARE(document().world().getOptions().solver.method, std::string("direct-pivoting"));
    QCOMPARE(document().undoStack()->count(), 3);
  }

  void couplerRatio() {
    document().open(sceneFile("gear_pair.articula"));
    select(ref(ObjectKind::Coupler, "mesh"));
    field<QDoubleSpinBox>("field_ratio")->setValue(-2.0);
    QCOMPARE(document().world().getJointCoupler("mesh")->getSpec().ratio, -2.0);
    QCOMPARE(document().undoStack()->count(), 1);
    const std::string before = document().sceneText();
    field<QDoubleSpinBox>("field_ratio")->setValue(0.0);
    QVERIFY(!errorLabel("ratio")->isHidden());
    QCOMPARE(document().sceneText(), before);
  }

  void userFramePose() {
    QVERIFY(document().edit(QStringLiteral("frame"), [](World& w) {
      ops::addUserFrame(w, "marker", ref(ObjectKind::Link, "four_bar/rocker"), Isometry3d::Identity(), false);
    }));
    select(ref(ObjectKind::Frame, "marker"));
    field<QDoubleSpinBox>("field_pos_x")->setValue(0.5);
    QCOMPARE(document().world().getFreeFrame("marker")->getRelativeTransform().translation().x(), 0.5);
    QCOMPARE(document().undoStack()->count(), 2);
  }

  // Numbers are shown rounded to 6 significant digits; a field with the
  // focus shows all of them (editing starts from the full value); leaving
  // a field untouched changes nothing; a typed value is taken in full.
  void numbersAreRoundedForDisplay() {
    const double x = 0.123456789012345;
    QVERIFY(document().edit(QStringLiteral("frame"), [x](World& w) {
      Isometry3d X = Isometry3d::Identity();
      X.translation().x() = x;
      ops::addUserFrame(w, "marker", ref(ObjectKind::World, "world"), X, false);
    }));
    select(ref(ObjectKind::Frame, "marker"));
    auto* box = field<QDoubleSpinBox>("field_pos_x");
    QVERIFY(box != nullptr);
    QCOMPARE(box->text(), QStringLiteral("0.123457"));
    QCOMPARE(box->value(), x);
    inspector().window()->show();
    inspector().window()->activateWindow();
    box->setFocus();
    QTRY_VERIFY(box->hasFocus());
    QCOMPARE(box->text(), QStringLiteral("0.123456789012345"));
    auto* other = field<QDoubleSpinBox>("field_pos_y");
    other->setFocus();
    QTRY_VERIFY(!box->hasFocus());
    QCOMPARE(box->text(), QStringLiteral("0.123457"));
    QCOMPARE(document().world().getFreeFrame("marker")->getRelativeTransform().translation().x(), x);
    QCOMPARE(document().undoStack()->count(), 1);
    // Typed digits are kept in full.
    box = field<QDoubleSpinBox>("field_pos_x");
    box->setFocus();
    QTRY_VERIFY(box->hasFocus());
    QLineEdit* line = box->findChild<QLineEdit*>();
    QVERIFY(line != nullptr);
    line->selectAll();
    QTest::keyClicks(line, QStringLiteral("0.98765432101"));
    QTest::keyClick(line, Qt::Key_Return);
    QCOMPARE(document().world().getFreeFrame("marker")->getRelativeTransform().translation().x(), 0.98765432101);
    QCOMPARE(document().undoStack()->count(), 2);
  }

  void multibodySelfCollision() {
    select(ref(ObjectKind::Multibody, "four_bar"));
    field<QCheckBox>("field_self_collision")->setChecked(true);
    QVERIFY(document().world().getMultibody("four_bar")->getSelfCollision());
    QCOMPARE(document().undoStack()->count(), 1);
  }

  void lockedIsReadOnlyWithDrives() {
    select(ref(ObjectKind::Link, "four_bar/crank"));
    QVERIFY(field<QDoubleSpinBox>("field_mass")->isEnabled());
    QVERIFY(inspector().findChild<QSlider*>(QStringLiteral("effort_0")) == nullptr);
    document().setLocked(true);
    inspector().reload();
    QVERIFY(inspector().isReadOnly());
    QVERIFY(!field<QDoubleSpinBox>("field_mass")->isEnabled());
    QVERIFY(!field<QLineEdit>("field_name")->isEnabled());
    QVERIFY(!field<QDoubleSpinBox>("field_q0")->isEnabled());
    auto* effort = inspector().findChild<QSlider*>(QStringLiteral("effort_0"));
    QVERIFY(effort != nullptr);
    // The crank has no actuator: the drive section says how to add one.
    QVERIFY(inspector().findChild<QLabel*>(QStringLiteral("no_actuator_hint")) != nullptr);
    // No simulation has been sent a drive: the sliders show none.
    QCOMPARE(effort->value(), (effort->minimum() + effort->maximum()) / 2);
    QCOMPARE(field<QLabel>("effort_value_0")->text(), QStringLiteral("0"));
    document().setLocked(false);
    inspector().reload();
    QVERIFY(field<QDoubleSpinBox>("field_mass")->isEnabled());
  }

  // Leaving a field without changing it changes nothing: the shown text
  // reads back to the shown value.
  void unchangedFieldsPushNothing() {
    // Values that have no short decimal form.
    QVERIFY(document().edit(QStringLiteral("angles"), [](World& w) {
      Joint crank = jointNamed(w, "four_bar/crank_joint");
      JointSpec spec = crank.getSpec();
      spec.positionLowerLimits = VectorXd::Constant(1, -kPi / 3);
      spec.damping = VectorXd::Constant(1, 1.0 / 3.0);
      crank.setSpec(spec);
      w.getRigidBody("crate")->setPose(Isometry3d(Eigen::AngleAxisd(0.1, Vector3d(1, 2, 3).normalized())));
    }));
    document().undoStack()->clear();
    const std::string before = document().sceneText();
    const std::vector<ObjectRef> objects = {
        ref(ObjectKind::World, "world"),         ref(ObjectKind::RigidBody, "crate"),
        ref(ObjectKind::Link, "four_bar/crank"), ref(ObjectKind::Joint, "four_bar/crank_joint"),
        ref(ObjectKind::Shape, "visual_1"),      ref(ObjectKind::LoopClosure, "four_bar_pin"),
        ref(ObjectKind::Multibody, "four_bar")};
    int editors = 0;
    for (const ObjectRef& object : objects) {
      select(object);
      for (QDoubleSpinBox* box : inspector().findChildren<QDoubleSpinBox*>()) {
        if (!box->objectName().startsWith(QStringLiteral("field_"))) continue;
        box->interpretText();
        ++editors;
      }
      for (QLineEdit* edit : inspector().findChildren<QLineEdit*>()) {
        if (!edit->objectName().startsWith(QStringLiteral("field_"))) continue;
        emit edit->editingFinished();
        ++editors;
      }
      QVERIFY2(document().sceneText() == before, qPrintable(QString::fromStdString(object.name)));
    }
    QVERIFY(editors > 50);
    QCOMPARE(document().undoStack()->count(), 0);
  }

  // Starting the simulation (and locking the design, as the main window
  // does) makes the form read-only; stopping it makes it editable again.
  void followsTheSimulation() {
    select(ref(ObjectKind::Joint, "four_bar/crank_joint"));
    QVERIFY(!inspector().isReadOnly());
    startSimulation();
    QVERIFY(!field<QComboBox>("field_type")->isEnabled());
    auto* effort = field<QSlider>("effort_0");
    QVERIFY(effort != nullptr);
    effort->setValue(effort->minimum());
    m_simulation->step(10);
    m_simulation->waitIdle();
    QCOMPARE(appliedForce(crankDof().velocity), -10.0);  // no effort limit: the slider spans ±10 N·m
    m_simulation->stop();
    document().setLocked(false);
    QTRY_VERIFY(!inspector().isReadOnly());
    QVERIFY(field<QComboBox>("field_type")->isEnabled());
    QVERIFY(inspector().findChild<QSlider*>(QStringLiteral("effort_0")) == nullptr);
    QCOMPARE(document().undoStack()->count(), 0);

    // A new simulation starts without drives, and so do its sliders.
    startSimulation();
    effort = field<QSlider>("effort_0");
    QVERIFY(effort != nullptr);
    QCOMPARE(effort->value(), (effort->minimum() + effort->maximum()) / 2);
  }

  // The effort slider applies its value (N·m for a revolute joint) as the
  // joint's generalized force; the design does not change.
  void effortSliderDrivesTheSimulation() {
    startSimulation();
    select(ref(ObjectKind::Link, "four_bar/crank"));
    auto* effort = field<QSlider>("effort_0");
    QVERIFY(effort != nullptr);
    const std::string before = document().sceneText();
    // A quarter of the way along ±10 N·m.
    effort->setValue(250);
    QCOMPARE(field<QLabel>("effort_value_0")->text(), QStringLiteral("-5"));
    QCOMPARE(m_simulation->jointEffort(ref(ObjectKind::Joint, "four_bar/crank_joint"), 0), -5.0);
    m_simulation->step(20);
    m_simulation->waitIdle();
    const Recording recording = m_simulation->recordingCopy();
    QCOMPARE(recording.size(), std::size_t{21});
    const Eigen::Index crank = crankDof().velocity;
    for (std::size_t i = 1; i < recording.size(); ++i) {
      const VectorXd forces = recording.snapshot(i).state.forces;
      QCOMPARE(forces[crank], -5.0);
      // Only the crank is driven.
      QCOMPARE(forces.cwiseAbs().sum(), 5.0);
    }
    QCOMPARE(document().sceneText(), before);
    QCOMPARE(document().undoStack()->count(), 0);

    // Back to the middle: the effort is removed.
    effort->setValue(500);
    m_simulation->step(1);
    m_simulation->waitIdle();
    const Recording after = m_simulation->recordingCopy();
    QCOMPARE(after.snapshot(after.size() - 1).state.forces[crank], 0.0);
  }

  // A position servo on the crank (design mode, one undoable edit).
  void addCrankServo() {
    QVERIFY(m_document->edit(QStringLiteral("servo"), [](World& w) {
      ops::addActuator(w, {ObjectKind::Joint, "four_bar/crank_joint"}, ActuatorType::PositionServo);
    }));
  }

  // The joint's drive section holds a slider for each engine actuator of the
  // joint: moving it sends the control and the servo takes the joint there.
  void actuatorSliderDrivesTheJoint() {
    addCrankServo();
    startSimulation();
    select(ref(ObjectKind::Joint, "four_bar/crank_joint"));
    QVERIFY(inspector().findChild<QLabel*>(QStringLiteral("no_actuator_hint")) == nullptr);
    auto* slider = field<QSlider>("control_crank_joint_position");
    QVERIFY(slider != nullptr);
    // No limits on the crank: the slider spans ±π rad; 400 of 1000 is −0.2π.
    slider->setValue(400);
    const double radians = -kPi + 2.0 * kPi * 400.0 / 1000.0;
    const std::optional<double> sent = m_simulation->control("crank_joint_position");
    QVERIFY(sent.has_value());
    QVERIFY(std::abs(*sent - radians) < 1e-12);
    const Eigen::Index crank = crankDof().position;
    const double q0 = jointNamed(document().world(), "four_bar/crank_joint").getPosition(0);
    QVERIFY(std::abs(q0 - radians) > 0.3);
    m_simulation->step(3000);
    m_simulation->waitIdle();
    const Recording recording = m_simulation->recordingCopy();
    const RuntimeSnapshot last = recording.snapshot(recording.size() - 1);
    const double q = last.state.positions[crank];
    // Gravity-compensated: the crank settles on its target (the loop's
    // other links are not driven, so only closely).
    QVERIFY2(std::abs(q - radians) < 0.02,
             qPrintable(QStringLiteral("q = %1 rad, target %2 rad").arg(q, 0, 'g', 12).arg(radians, 0, 'g', 12)));
    QVERIFY(std::abs(last.state.velocities[crankDof().velocity]) < 0.05);
    const double qHalf = recording.snapshot(150).state.positions[crank];
    QVERIFY(std::abs(qHalf - radians) < std::abs(q0 - radians));
    // The design is untouched by driving.
    QCOMPARE(document().undoStack()->count(), 1);
  }

  // Without an actuator the drive section says how to get one.
  void jointWithoutActuatorShowsAHint() {
    startSimulation();
    select(ref(ObjectKind::Joint, "four_bar/crank_joint"));
    QVERIFY(inspector().findChild<QLabel*>(QStringLiteral("no_actuator_hint")) != nullptr);
    QVERIFY(inspector().findChild<QSlider*>(QStringLiteral("effort_0")) != nullptr);
  }

  // A form built again shows the drives last sent, which the simulation
  // still applies.
  void rebuiltFormShowsTheDrivesSent() {
    addCrankServo();
    startSimulation();
    select(ref(ObjectKind::Link, "four_bar/crank"));
    field<QSlider>("effort_0")->setValue(250);
    field<QSlider>("control_crank_joint_position")->setValue(400);
    const auto checkDrives = [this] {
      auto* effort = field<QSlider>("effort_0");
      auto* control = field<QSlider>("control_crank_joint_position");
      QVERIFY(effort != nullptr && control != nullptr);
      QCOMPARE(effort->value(), 250);
      QCOMPARE(field<QLabel>("effort_value_0")->text(), QStringLiteral("-5"));
      QCOMPARE(control->value(), 400);
    };
    select(ref(ObjectKind::RigidBody, "crate"));
    QVERIFY(inspector().findChild<QSlider*>(QStringLiteral("effort_0")) == nullptr);
    select(ref(ObjectKind::Link, "four_bar/crank"));
    checkDrives();
    if (QTest::currentTestFailed()) return;
    select(ref(ObjectKind::Joint, "four_bar/crank_joint"));
    checkDrives();
    if (QTest::currentTestFailed()) return;
    const ObjectRef crank = ref(ObjectKind::Joint, "four_bar/crank_joint");
    QCOMPARE(m_simulation->jointEffort(crank, 0), -5.0);
    QVERIFY(std::abs(m_simulation->control("crank_joint_position").value_or(0.0) - (-kPi + 2.0 * kPi * 0.4)) < 1e-12);
    // Another joint has no actuator.
    select(ref(ObjectKind::Link, "four_bar/rocker"));
    QCOMPARE(field<QSlider>("effort_0")->value(), 500);
    QVERIFY(inspector().findChild<QSlider*>(QStringLiteral("control_crank_joint_position")) == nullptr);
  }

  // Actuator gains and type are edited in design mode, each edit undoable.
  void actuatorEditsAreUndoable() {
    addCrankServo();
    m_document->undoStack()->clear();
    const ObjectRef servo = ref(ObjectKind::Actuator, "crank_joint_position");
    select(servo);
    QCOMPARE(inspector().shownObject(), servo);
    const auto spec = [this] { return document().world().getActuator("crank_joint_position")->getSpec(); };
    QVERIFY(!spec().kp.has_value());
    typeInto(field<QLineEdit>("field_kp"), QStringLiteral("250"));
    QCOMPARE(spec().kp, std::optional<double>(250.0));
    typeInto(field<QLineEdit>("field_force_max"), QStringLiteral("12"));
    QCOMPARE(spec().forceMax, 12.0);
    typeInto(field<QLineEdit>("field_kp"), QStringLiteral("-1"));  // refused
    QCOMPARE(spec().kp, std::optional<double>(250.0));
    auto* type = field<QComboBox>("field_type");
    QVERIFY(type != nullptr);
    type->setCurrentIndex(type->findText(QStringLiteral("pid")));
    QVERIFY(spec().type == ActuatorType::Pid);
    // The form now has the PID's fields.
    QTRY_VERIFY(inspector().findChild<QWidget*>(QStringLiteral("field_ki")) != nullptr);
    QCOMPARE(document().undoStack()->count(), 3);
    document().undoStack()->undo();
    QVERIFY(spec().type == ActuatorType::PositionServo);
    document().undoStack()->undo();
    QVERIFY(std::isinf(spec().forceMax));
    document().undoStack()->undo();
    QVERIFY(!spec().kp.has_value());
    document().undoStack()->redo();
    QCOMPARE(spec().kp, std::optional<double>(250.0));
  }

  // Schedules are created on an actuator and edited in place, undoably.
  void scheduleEditsAreUndoable() {
    addCrankServo();
    QVERIFY(m_document->edit(QStringLiteral("schedule"), [](World& w) {
      ops::addSchedule(w, {ObjectKind::Actuator, "crank_joint_position"});
    }));
    m_document->undoStack()->clear();
    const ObjectRef ref{ObjectKind::Schedule, "crank_joint_position_schedule"};
    select(ref);
    QCOMPARE(inspector().shownObject(), ref);
    const auto schedule = [this] { return document().world().getSchedules().front(); };
    QVERIFY(schedule().kind == ScheduleSpec::Kind::Sine);
    auto* amplitude = field<QDoubleSpinBox>("field_amplitude");
    QVERIFY(amplitude != nullptr);
    amplitude->setValue(0.5);
    QTest::keyClick(amplitude, Qt::Key_Return);
    QCOMPARE(schedule().amplitude, 0.5);
    auto* kind = field<QComboBox>("field_kind");
    kind->setCurrentIndex(0);  // keyframes
    QVERIFY(schedule().kind == ScheduleSpec::Kind::Keyframes);
    typeInto(field<QLineEdit>("field_keyframes"), QStringLiteral("0 0.1; 1 -0.2; 2 0.3"));
    QCOMPARE(schedule().keyframes.size(), std::size_t{3});
    QCOMPARE(schedule().keyframes[1], std::make_pair(1.0, -0.2));
    typeInto(field<QLineEdit>("field_keyframes"), QStringLiteral("1 0; 0 1"));  // times must increase: refused
    QCOMPARE(schedule().keyframes.size(), std::size_t{3});
    const int edits = document().undoStack()->count();
    QVERIFY(edits >= 3);
    for (int k = 0; k < edits; ++k) document().undoStack()->undo();
    QVERIFY(schedule().kind == ScheduleSpec::Kind::Sine);
    QCOMPARE(schedule().amplitude, 0.2);
  }
};

QTEST_MAIN(TestInspector)
#include "test_inspector.moc"

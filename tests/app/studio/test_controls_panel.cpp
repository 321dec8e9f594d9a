// The Controls dock: a slider per engine actuator drives its joint; "Hold
// current pose" retargets the servos; the step-response tool applies a step
// and plots target against actual position.
#include "controls_panel.hpp"
#include "simulation.hpp"

#include <articula/io/scene_file.hpp>
#include <articula/world.hpp>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QtTest/QtTest>

#include <cmath>
#include <numbers>

using namespace articula;
using namespace articula::studio;

namespace {

// A pendulum on a hinge about y with a gravity-compensated position servo
// (default gains) and a velocity servo on a wheel.
void buildDesign(World& w) {
  Multibody mb = w.addMultibody("pendulum");
  LinkOptions link;
  link.name = "arm";
  link.inertia.mass = 1.0;
  link.inertia.com = Vector3d(0.4, 0, 0);
  link.inertia.rotational = Vector3d(0.01, 0.01, 0.01).asDiagonal();
  JointSpec hinge = JointSpec::revolute(Vector3d::UnitY());
  hinge.name = "hinge";
  hinge.positionLowerLimits = VectorXd::Constant(1, -1.0);
  hinge.positionUpperLimits = VectorXd::Constant(1, 1.0);
  mb.addLink(link, hinge);
  ActuatorSpec servo;
  servo.name = "servo";
  servo.joint = "pendulum/hinge";
  servo.type = ActuatorType::PositionServo;
  servo.gravityCompensation = true;
  w.addActuator(servo);
}

}  // namespace

class TestControlsPanel : public QObject {
  Q_OBJECT

 private slots:
  void sliderDrivesTheJointAndStepIsPlotted() {
    World design;
    buildDesign(design);
    Simulation sim;
    ControlsPanel panel(&sim, [&design]() -> const World& { return design; });
    panel.resize(400, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("controlsEmpty"))->isVisible());
    sim.start(design.getSpec());
    QTRY_VERIFY(panel.findChild<QSlider*>(QStringLiteral("control_servo")) != nullptr);
    QVERIFY(!panel.findChild<QLabel*>(QStringLiteral("controlsEmpty"))->isVisible());
    auto* slider = panel.findChild<QSlider*>(QStringLiteral("control_servo"));
    // The joint's limits [−1, 1] rad give the slider's range; it starts at
    // the initial position, the servo's default target.
    QCOMPARE(slider->value(), 500);
    slider->setValue(800);  // 0.6 rad
    QVERIFY(std::abs(sim.control("servo").value_or(0.0) - 0.6) < 1e-12);
    sim.step(1500);
    sim.waitIdle();
    sim.publisher().acquire();
    const double q = sim.publisher().latest().positions[0];
    QVERIFY2(std::abs(q - 0.6) < 1e-4, qPrintable(QStringLiteral("q = %1").arg(q)));

    // Hold current pose: the target becomes where the joint is.
    slider->setValue(200);  // −0.6 rad
    sim.step(30);           // on its way
    sim.waitIdle();
    sim.publisher().acquire();
    const double moving = sim.publisher().latest().positions[0];
    panel.findChild<QPushButton*>(QStringLiteral("holdPose"))->click();
    sim.waitIdle();
    QVERIFY(std::abs(sim.control("servo").value_or(99.0) - moving) < 1e-12);

    // Step response: +0.3 rad on the servo, then the plot gets samples of
    // the target and of the joint moving towards it.
    auto* amplitude = panel.findChild<QDoubleSpinBox*>(QStringLiteral("responseAmplitude"));
    amplitude->setValue(0.3);
    const double before = sim.control("servo").value_or(0.0);
    panel.findChild<QPushButton*>(QStringLiteral("responseStep"))->click();
    QVERIFY(std::abs(sim.control("servo").value_or(0.0) - (before + 0.3)) < 1e-12);
    sim.play();
    QTRY_VERIFY_WITH_TIMEOUT(panel.plot()->samples().size() > 10, 5000);
    sim.pause();
    sim.waitIdle();
    const auto& samples = panel.plot()->samples();
    QVERIFY(std::abs(std::get<1>(samples.back()) - (before + 0.3)) < 1e-12);
    QVERIFY(std::isfinite(std::get<2>(samples.back())));
    QImage image(panel.plot()->size(), QImage::Format_RGB32);
    panel.plot()->render(&image);
    // Both curves are drawn: orange and blue pixels exist.
    int orange = 0;
    int blue = 0;
    for (int y = 0; y < image.height(); ++y) {
      for (int x = 0; x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        orange += c.red() > 200 && c.green() > 120 && c.green() < 200 && c.blue() < 80 ? 1 : 0;
        blue += c.blue() > 200 && c.red() < 120 ? 1 : 0;
      }
    }
    QVERIFY2(orange > 20 && blue > 20, qPrintable(QStringLiteral("orange %1, blue %2").arg(orange).arg(blue)));
    sim.stop();
  }
};

QTEST_MAIN(TestControlsPanel)
#include "test_controls_panel.moc"

// The transform gizmo: hit tests of arrows and rings, translate drags that
// follow the closest point of the axis to the mouse ray, rotate drags by the
// angle swept in the plane of the ring, snapping, degenerate rays, and the
// desired-pose callback.
//
// References are computed here independently: closest points by solving the
// 2×2 normal equations of the two lines, rotations by Rodrigues' formula,
// and rays built to pass through known points.

#include "test_helpers.hpp"

#include <articula/viewer/camera.hpp>
#include <articula/viewer/gizmo.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <vector>

using namespace articula;
using namespace articula::test;
using namespace articula::viewer;

namespace {

constexpr double kPi = 3.14159265358979323846;

/// The ray from `from` through `target`.
Ray rayThrough(const Vector3d& from, const Vector3d& target) {
  return Ray{from, (target - from).normalized()};
}

/// Rotation by `angle` about the unit `axis`: R = I + sin·K + (1 − cos)·K².
Matrix3d rodrigues(const Vector3d& axis, double angle) {
  Matrix3d K;
  K << 0.0, -axis.z(), axis.y(),  //
      axis.z(), 0.0, -axis.x(),   //
      -axis.y(), axis.x(), 0.0;
  return Matrix3d::Identity() + std::sin(angle) * K + (1.0 - std::cos(angle)) * K * K;
}

/// Axis coordinate s of the point o + s·a closest to the line p + t·d, from
/// the normal equations of min |o + s·a − p − t·d|² over (s, t).
double closestOnAxis(const Vector3d& o, const Vector3d& a, const Vector3d& p, const Vector3d& d) {
  Eigen::Matrix2d N;
  N << a.dot(a), -a.dot(d),  //
      -a.dot(d), d.dot(d);
  const Eigen::Vector2d rhs(a.dot(p - o), -d.dot(p - o));
  return N.fullPivLu().solve(rhs)(0);
}

/// A rotated, translated pose.
Isometry3d tiltedPose() {
  return pose(rodrigues(Vector3d(1.0, -2.0, 0.5).normalized(), 0.9), Vector3d(0.4, -1.2, 2.0));
}

const char* axisName(GizmoAxis a) {
  switch (a) {
    case GizmoAxis::X:
      return "X";
    case GizmoAxis::Y:
      return "Y";
    case GizmoAxis::Z:
      return "Z";
    case GizmoAxis::None:
      break;
  }
  return "None";
}

QString axisMismatch(GizmoAxis actual, GizmoAxis expected, const QString& where) {
  return QString("%1: hit %2, expected %3").arg(where, axisName(actual), axisName(expected));
}

}  // namespace

class GizmoTest : public QObject {
  Q_OBJECT

 private slots:
  void axisDirections() {
    Gizmo g;
    const Isometry3d X = tiltedPose();
    g.setPose(X);
    QVERIFY(g.localAxes());
    VERIFY_NEAR(g.axisDirection(GizmoAxis::X), Vector3d(X.linear().col(0)), 1e-15);
    VERIFY_NEAR(g.axisDirection(GizmoAxis::Y), Vector3d(X.linear().col(1)), 1e-15);
    VERIFY_NEAR(g.axisDirection(GizmoAxis::Z), Vector3d(X.linear().col(2)), 1e-15);
    VERIFY_NEAR(g.axisDirection(GizmoAxis::None), Vector3d::Zero(), 0.0);
    g.setLocalAxes(false);
    VERIFY_NEAR(g.axisDirection(GizmoAxis::X), Vector3d::UnitX(), 0.0);
    VERIFY_NEAR(g.axisDirection(GizmoAxis::Z), Vector3d::UnitZ(), 0.0);
  }

  void translateHitTest() {
    for (const bool local : {true, false}) {
      Gizmo g;
      g.setPose(tiltedPose());
      g.setLocalAxes(local);
      g.setSize(0.5);
      const Vector3d o = g.pose().translation();
      const double pick = 0.02;
      const std::vector<Vector3d> viewDirections = {Vector3d(1.0, 2.0, 3.0).normalized(),
                                                    Vector3d(-2.0, 0.5, 1.0).normalized()};
      for (const Vector3d& view : viewDirections) {
        for (const GizmoAxis axis : {GizmoAxis::X, GizmoAxis::Y, GizmoAxis::Z}) {
          const Vector3d a = g.axisDirection(axis);
          // On the shaft, and just beside it (within the pick radius).
          const Vector3d target = o + 0.7 * g.size() * a;
          const Vector3d side = a.cross(view).normalized();
          for (const Vector3d& aim : {target, Vector3d(target + 0.8 * pick * side)}) {
            const GizmoAxis hit = g.hitTest(rayThrough(aim + 5.0 * view, aim), pick);
            ARTICULA_CHECK(hit == axis, axisMismatch(hit, axis, QString("local %1").arg(local)));
          }
          // Beside the shaft beyond the pick radius, and past the tip.
          const Vector3d off = target + 2.0 * pick * side;
          QVERIFY(g.hitTest(rayThrough(off + 5.0 * view, off), pick) == GizmoAxis::None);
          const Vector3d past = o + 1.3 * g.size() * a;
          QVERIFY(g.hitTest(rayThrough(past + 5.0 * view, past), pick) == GizmoAxis::None);
          // Pointing away from the arrow: only the part in front of the eye counts.
          QVERIFY(g.hitTest(Ray{target + 5.0 * view, view}, pick) == GizmoAxis::None);
        }
        // Between the arrows.
        const Vector3d between = o + 0.5 * g.size() * (g.axisDirection(GizmoAxis::X) + g.axisDirection(GizmoAxis::Y));
        QVERIFY(g.hitTest(rayThrough(between + 5.0 * view, between), pick) == GizmoAxis::None);
      }
    }
  }

  void rotateHitTest() {
    Gizmo g;
    g.setPose(tiltedPose());
    g.setMode(GizmoMode::Rotate);
    g.setSize(0.8);
    const Vector3d o = g.pose().translation();
    const double pick = 0.03;
    const Vector3d view = Vector3d(0.3, -1.0, 2.0).normalized();
    for (const GizmoAxis axis : {GizmoAxis::X, GizmoAxis::Y, GizmoAxis::Z}) {
      // A ring point half-way between the other two axes (away from the
      // other rings, which cross this one on those axes).
      const int i = static_cast<int>(axis) - 1;
      const Vector3d u = g.pose().linear().col((i + 1) % 3);
      const Vector3d v = g.pose().linear().col((i + 2) % 3);
      const Vector3d onRing = o + g.size() * (u + v).normalized();
      GizmoAxis hit = g.hitTest(rayThrough(onRing + 4.0 * view, onRing), pick);
      ARTICULA_CHECK(hit == axis, axisMismatch(hit, axis, "on the ring"));
      // Just outside and inside the ring, within the pick radius.
      for (const double r : {g.size() + 0.7 * pick, g.size() - 0.7 * pick}) {
        const Vector3d p = o + r * (u + v).normalized();
        hit = g.hitTest(rayThrough(p + 4.0 * view, p), pick);
        ARTICULA_CHECK(hit == axis, axisMismatch(hit, axis, "beside the ring"));
      }
      // At half the radius the ray passes nowhere near any ring.
      const Vector3d inside = o + 0.5 * g.size() * (u + v).normalized();
      QVERIFY(g.hitTest(rayThrough(inside + 4.0 * view, inside), pick) == GizmoAxis::None);
    }
    // The ring seen edge-on (the ray in its plane) is still hit where it is.
    const Vector3d y = g.axisDirection(GizmoAxis::Y);
    const Vector3d z = g.axisDirection(GizmoAxis::Z);
    const Vector3d rim = o + g.size() * (y + z).normalized();
    const Vector3d inPlane = (y - z).normalized();
    QVERIFY(g.hitTest(Ray{rim + 3.0 * inPlane, -inPlane}, pick) == GizmoAxis::X);
  }

  void translateDragFromSideView() {
    // World x handle at the origin seen from −y: the cursor moving
    // over the point (2.3, 0, 0) moves the object by 1.8 from where the drag
    // began at (0.5, 0, 0), only along x.
    OrbitCamera cam;
    cam.setPreset("right");
    cam.setView(Vector3d(0.7, -6.0, 0.3), Vector3d(0.7, 0.0, 0.3));
    const int w = 800;
    const int h = 600;
    Gizmo g;
    Isometry3d start = Isometry3d::Identity();
    start.translation() = Vector3d::Zero();
    g.setPose(start);
    const double pick = 5.0 * cam.metresPerPixel(Vector3d::Zero(), h);
    const Vector2d from = *cam.project(Vector3d(0.5, 0.0, 0.0), w, h);
    QVERIFY(g.beginDrag(cam.rayThrough(from.x(), from.y(), w, h), pick));
    QVERIFY(g.isDragging());
    QVERIFY(g.activeAxis() == GizmoAxis::X);
    const Vector2d to = *cam.project(Vector3d(2.3, 0.0, 0.0), w, h);
    const std::optional<Isometry3d> moved = g.drag(cam.rayThrough(to.x(), to.y(), w, h));
    QVERIFY(moved.has_value());
    VERIFY_NEAR(moved->translation(), Vector3d(1.8, 0.0, 0.0), 1e-9);
    VERIFY_NEAR(moved->linear(), Matrix3d::Identity(), 0.0);
    // A cursor off the axis (above it) still moves only along x, to the
    // point of the axis closest to the ray.
    const Vector2d above = *cam.project(Vector3d(-1.1, 0.0, 0.9), w, h);
    const Ray aboveRay = cam.rayThrough(above.x(), above.y(), w, h);
    const std::optional<Isometry3d> moved2 = g.drag(aboveRay);
    QVERIFY(moved2.has_value());
    const double s = closestOnAxis(Vector3d::Zero(), Vector3d::UnitX(), aboveRay.origin, aboveRay.direction);
    VERIFY_NEAR(moved2->translation(), Vector3d(s - 0.5, 0.0, 0.0), 1e-9);
    g.endDrag();
    QVERIFY(!g.isDragging());
    QVERIFY(g.activeAxis() == GizmoAxis::None);
    QVERIFY(!g.drag(cam.rayThrough(to.x(), to.y(), w, h)).has_value());
  }

  void translateDragLocalAxes() {
    const Isometry3d start = tiltedPose();
    for (const bool local : {true, false}) {
      for (const GizmoAxis axis : {GizmoAxis::X, GizmoAxis::Y, GizmoAxis::Z}) {
        Gizmo g;
        g.setPose(start);
        g.setLocalAxes(local);
        g.setSize(0.6);
        const Vector3d o = start.translation();
        const Vector3d a = g.axisDirection(axis);
        const Vector3d eye = o + Vector3d(2.0, -3.0, 1.5);
        // Begin on the arrow at 0.4 of its length.
        QVERIFY(g.beginDrag(rayThrough(eye, o + 0.4 * g.size() * a), 0.01));
        QVERIFY(g.activeAxis() == axis);
        // Any later ray: the expected axis coordinate from the normal equations.
        for (const Vector3d& target :
             {Vector3d(o + Vector3d(0.9, 0.3, -0.4)), Vector3d(o + Vector3d(-1.0, 2.0, 0.2)), Vector3d(o + 1.7 * a)}) {
          const Ray ray = rayThrough(eye, target);
          const double s = closestOnAxis(o, a, ray.origin, ray.direction);
          const std::optional<Isometry3d> moved = g.drag(ray);
          QVERIFY(moved.has_value());
          VERIFY_NEAR(moved->translation(), Vector3d(o + (s - 0.4 * g.size()) * a), 1e-9);
          VERIFY_NEAR(moved->linear(), start.linear(), 0.0);
          // Only along the axis.
          ARTICULA_CHECK((moved->translation() - o).cross(a).norm() < 1e-9, xyz(moved->translation()));
        }
      }
    }
  }

  void rotateDragByKnownAngle() {
    const Isometry3d start = tiltedPose();
    for (const bool local : {true, false}) {
      for (const GizmoAxis axis : {GizmoAxis::X, GizmoAxis::Y, GizmoAxis::Z}) {
        for (const double angle : {0.6, -1.1, 2.5, -3.0}) {
          Gizmo g;
          g.setPose(start);
          g.setMode(GizmoMode::Rotate);
          g.setLocalAxes(local);
          g.setSize(0.7);
          const Vector3d o = start.translation();
          const Vector3d a = g.axisDirection(axis);
          // In-plane basis: the start point half-way between the other two
          // handle axes (away from the other rings).
          const int i = static_cast<int>(axis) - 1;
          const Vector3d u = (g.axisDirection(static_cast<GizmoAxis>((i + 1) % 3 + 1)) +
                              g.axisDirection(static_cast<GizmoAxis>((i + 2) % 3 + 1)))
                                 .normalized();
          const Vector3d v = a.cross(u);
          const Vector3d eye = o + 3.0 * a + 0.5 * u - 0.8 * v;  // on the side the axis points to
          QVERIFY(g.beginDrag(rayThrough(eye, o + g.size() * u), 0.01));
          QVERIFY(g.activeAxis() == axis);
          // The cursor over a point of the plane at `angle` from the start
          // (right-handed about the axis), at another radius.
          const Vector3d q = o + 1.9 * (std::cos(angle) * u + std::sin(angle) * v);
          const std::optional<Isometry3d> turned = g.drag(rayThrough(eye, q));
          QVERIFY(turned.has_value());
          VERIFY_NEAR(turned->linear(), Matrix3d(rodrigues(a, angle) * start.linear()), 1e-12);
          VERIFY_NEAR(turned->translation(), o, 0.0);
          // The start direction is carried onto the current one.
          VERIFY_NEAR(Vector3d(turned->linear() * start.linear().transpose() * u), Vector3d((q - o).normalized()),
                      1e-12);

          // Seen from the other side of the plane the same points give the
          // same rotation (the sign follows the axis, not the viewer).
          Gizmo h;
          h.setPose(start);
          h.setMode(GizmoMode::Rotate);
          h.setLocalAxes(local);
          h.setSize(0.7);
          const Vector3d eye2 = o - 3.0 * a + 0.4 * u + 0.3 * v;
          QVERIFY(h.beginDrag(rayThrough(eye2, o + h.size() * u), 0.01));
          const std::optional<Isometry3d> turned2 = h.drag(rayThrough(eye2, q));
          QVERIFY(turned2.has_value());
          VERIFY_NEAR(turned2->linear(), turned->linear(), 1e-12);
        }
      }
    }
  }

  void snapping() {
    Gizmo g;
    g.setTranslationSnap(0.25);
    QCOMPARE(g.translationSnap(), 0.25);
    const Vector3d eye(0.0, -5.0, 0.0);
    QVERIFY(g.beginDrag(rayThrough(eye, Vector3d(0.5, 0.0, 0.0)), 0.01));
    // Moved by 1.8 → 1.75, by 1.9 → 2.0, by −0.1 → 0.
    for (const auto& [x, snapped] : {std::pair{2.3, 1.75}, std::pair{2.4, 2.0}, std::pair{0.4, 0.0}}) {
      const std::optional<Isometry3d> moved = g.drag(rayThrough(eye, Vector3d(x, 0.0, 0.0)));
      QVERIFY(moved.has_value());
      VERIFY_NEAR(moved->translation(), Vector3d(snapped, 0.0, 0.0), 1e-12);
    }
    g.endDrag();

    // 15° steps: a sweep of 34.4° (0.6 rad) snaps to 30°, −0.2 rad to −15°.
    // The drag starts on the z ring at 45° from x (away from the other rings).
    g.setMode(GizmoMode::Rotate);
    g.setRotationSnap(15.0 * kPi / 180.0);
    const Vector3d eyeAbove(0.3, 0.2, 4.0);
    const auto inXY = [](double radius, double angle) {
      return Vector3d(radius * std::cos(kPi / 4.0 + angle), radius * std::sin(kPi / 4.0 + angle), 0.0);
    };
    QVERIFY(g.beginDrag(rayThrough(eyeAbove, inXY(1.0, 0.0)), 0.01));
    QVERIFY(g.activeAxis() == GizmoAxis::Z);
    for (const auto& [angle, snapped] : {std::pair{0.6, 30.0}, std::pair{-0.2, -15.0}}) {
      const std::optional<Isometry3d> turned = g.drag(rayThrough(eyeAbove, inXY(2.0, angle)));
      QVERIFY(turned.has_value());
      VERIFY_NEAR(turned->linear(), rodrigues(Vector3d::UnitZ(), snapped * kPi / 180.0), 1e-12);
    }
    // Snapping off again.
    g.setRotationSnap(0.0);
    const std::optional<Isometry3d> free = g.drag(rayThrough(eyeAbove, inXY(0.5, 0.6)));
    QVERIFY(free.has_value());
    VERIFY_NEAR(free->linear(), rodrigues(Vector3d::UnitZ(), 0.6), 1e-12);
  }

  void parallelRayGivesNothing() {
    int calls = 0;
    Gizmo g;
    g.setOnDesiredPose([&](const Isometry3d&) { ++calls; });
    QVERIFY(g.beginDrag(rayThrough(Vector3d(0.0, -5.0, 0.0), Vector3d(0.5, 0.0, 0.0)), 0.01));
    // Along the x axis: no closest point.
    QVERIFY(!g.drag(Ray{Vector3d(-3.0, 1.0, 0.5), Vector3d::UnitX()}).has_value());
    QVERIFY(!g.drag(Ray{Vector3d(-3.0, 1.0, 0.5), -Vector3d::UnitX()}).has_value());
    QCOMPARE(calls, 0);
    QVERIFY(g.isDragging());  // the drag goes on
    QVERIFY(g.drag(rayThrough(Vector3d(0.0, -5.0, 0.0), Vector3d(0.7, 0.0, 0.0))).has_value());
    QCOMPARE(calls, 1);
    g.endDrag();

    g.setMode(GizmoMode::Rotate);
    QVERIFY(g.beginDrag(rayThrough(Vector3d(0.3, 0.2, 4.0), Vector3d(std::sqrt(0.5), std::sqrt(0.5), 0.0)), 0.01));
    QVERIFY(g.activeAxis() == GizmoAxis::Z);
    // In the plane of the z ring: no intersection.
    QVERIFY(!g.drag(Ray{Vector3d(0.0, -4.0, 0.0), Vector3d(0.6, 0.8, 0.0)}).has_value());
    // The plane behind the ray.
    QVERIFY(!g.drag(Ray{Vector3d(0.0, 0.0, 4.0), Vector3d(0.0, 0.6, 0.8)}).has_value());
    QCOMPARE(calls, 1);

    // A miss starts nothing.
    g.endDrag();
    QVERIFY(!g.beginDrag(rayThrough(Vector3d(0.0, 0.0, 4.0), Vector3d(0.3, 0.3, 0.0)), 0.01));
    QVERIFY(!g.isDragging());
  }

  void callbackReceivesDragPose() {
    Gizmo g;
    g.setPose(tiltedPose());
    std::vector<Isometry3d> received;
    g.setOnDesiredPose([&](const Isometry3d& X) { received.push_back(X); });
    const Vector3d o = g.pose().translation();
    const Vector3d a = g.axisDirection(GizmoAxis::Y);
    const Vector3d eye = o + Vector3d(3.0, 1.0, 2.0);
    QVERIFY(g.beginDrag(rayThrough(eye, o + 0.5 * a), 0.01));
    QVERIFY(received.empty());
    const std::optional<Isometry3d> moved = g.drag(rayThrough(eye, o + Vector3d(0.2, 0.9, -0.3)));
    QVERIFY(moved.has_value());
    QCOMPARE(received.size(), std::size_t{1});
    VERIFY_NEAR(received.front().matrix(), moved->matrix(), 0.0);
    // The gizmo itself does not move: the owner applies the pose.
    VERIFY_NEAR(g.pose().matrix(), tiltedPose().matrix(), 0.0);
    // Moving the gizmo during the drag (the owner applying the pose) keeps
    // the drag relative to where it began.
    g.setPose(*moved);
    const std::optional<Isometry3d> again = g.drag(rayThrough(eye, o + Vector3d(0.2, 0.9, -0.3)));
    VERIFY_NEAR(again->matrix(), moved->matrix(), 1e-15);
  }

  void hoverAndSettings() {
    Gizmo g;
    QVERIFY(g.hovered() == GizmoAxis::None);
    g.setHovered(GizmoAxis::Y);
    QVERIFY(g.hovered() == GizmoAxis::Y);
    QVERIFY(g.mode() == GizmoMode::Translate);
    g.setSize(2.5);
    QCOMPARE(g.size(), 2.5);
    g.setSize(-1.0);  // ignored
    QCOMPARE(g.size(), 2.5);
    g.setTranslationSnap(-3.0);
    QCOMPARE(g.translationSnap(), 0.0);
  }
};

QTEST_APPLESS_MAIN(GizmoTest)
#include "test_gizmo.moc"

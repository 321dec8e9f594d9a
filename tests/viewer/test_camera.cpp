// The orbit camera: rays and projection agree with each other and with the
// OpenGL view and projection matrices, fit() frames every corner of a box,
// the mouse navigation keeps what it promises (orbit: centre and distance;
// pan: the point under the cursor; zoom: the distance factor), presets look
// where documented, and "--camera" text parses or is rejected with a message.
//
// The reference for every check is geometry built independently in the test:
// points along rays, the pinhole model written out from the camera's basis,
// and corners of boxes.

#include "test_helpers.hpp"

#include <articula/viewer/camera.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <string>
#include <vector>

using namespace articula;
using namespace articula::test;
using namespace articula::viewer;

namespace {

constexpr double kPi = 3.14159265358979323846;

double deg(double d) {
  return d * kPi / 180.0;
}

/// Cameras looking from assorted directions, distances and fields of view.
std::vector<OrbitCamera> assortedCameras() {
  std::vector<OrbitCamera> cams;
  OrbitCamera c;
  cams.push_back(c);  // default iso
  c.setView(Vector3d(3.0, -4.0, 2.0), Vector3d(0.5, 0.25, -0.3));
  cams.push_back(c);
  c.setFieldOfView(70.0);
  c.setView(Vector3d(-10.0, 2.0, -6.0), Vector3d(1.0, 1.0, 1.0));
  cams.push_back(c);
  c.setFieldOfView(20.0);
  c.setPreset("top");
  cams.push_back(c);
  c.setFieldOfView(45.0);
  c.setOrbit(Vector3d(100.0, -50.0, 3.0), 0.02, deg(-170.0), deg(-80.0));
  cams.push_back(c);
  return cams;
}

struct Viewport {
  int width;
  int height;
};

const std::vector<Viewport> kViewports = {{800, 600}, {640, 480}, {300, 900}, {1, 1}, {1921, 1079}};

std::vector<Eigen::AlignedBox3d> assortedBoxes() {
  return {
      Eigen::AlignedBox3d(Vector3d(-1.0, -1.0, -1.0), Vector3d(1.0, 1.0, 1.0)),
      Eigen::AlignedBox3d(Vector3d(2.0, 3.0, 0.0), Vector3d(2.5, 10.0, 0.2)),        // long and flat
      Eigen::AlignedBox3d(Vector3d(-50.0, -50.0, -0.1), Vector3d(50.0, 50.0, 0.0)),  // ground-like slab
      Eigen::AlignedBox3d(Vector3d(0.001, 0.002, 0.003), Vector3d(0.004, 0.005, 0.009)),
      Eigen::AlignedBox3d(Vector3d(-3.0, 0.0, 0.0), Vector3d(-3.0, 4.0, 2.0)),  // flat in x
  };
}

Vector3d corner(const Eigen::AlignedBox3d& box, int i) {
  return box.corner(static_cast<Eigen::AlignedBox3d::CornerType>(i));
}

/// Pixel coordinates through P·V written out with homogeneous coordinates.
std::optional<Vector2d> projectWithMatrices(const OrbitCamera& cam, const Vector3d& p, int w, int h) {
  const Eigen::Vector4d clip =
      cam.projectionMatrix(double(w) / h, 0.1, 100.0) * cam.viewMatrix() * Eigen::Vector4d(p.x(), p.y(), p.z(), 1.0);
  if (clip.w() <= 0.0) return std::nullopt;
  const double ndcX = clip.x() / clip.w();
  const double ndcY = clip.y() / clip.w();
  return Vector2d((ndcX + 1.0) * 0.5 * w, (1.0 - ndcY) * 0.5 * h);
}

QString describeCamera(const OrbitCamera& c) {
  return QString("camera center %1 distance %2 az %3° el %4° fov %5°")
      .arg(xyz(c.center(), 6), num(c.distance(), 6), num(c.azimuth() * 180.0 / kPi, 6),
           num(c.elevation() * 180.0 / kPi, 6), num(c.fieldOfView(), 6));
}

}  // namespace

class CameraTest : public QObject {
  Q_OBJECT

 private slots:
  void setViewDerivesOrbit() {
    OrbitCamera cam;
    const Vector3d center(1.0, 2.0, 3.0);
    const Vector3d eye = center + Vector3d(-2.0, 2.0, 1.0);
    cam.setView(eye, center);
    ARTICULA_CHECK(std::abs(cam.distance() - 3.0) < 1e-12, num(cam.distance()));
    ARTICULA_CHECK(std::abs(cam.azimuth() - deg(135.0)) < 1e-12, num(cam.azimuth()));
    ARTICULA_CHECK(std::abs(cam.elevation() - std::asin(1.0 / 3.0)) < 1e-12, num(cam.elevation()));
    const CameraPose p = cam.pose();
    VERIFY_NEAR(p.eye, eye, 1e-12);
    VERIFY_NEAR(p.center, center, 1e-12);
    // The screen's up is a unit vector perpendicular to the viewing direction
    // with a positive z component (z up in the world).
    ARTICULA_CHECK(std::abs(p.up.norm() - 1.0) < 1e-12, xyz(p.up));
    ARTICULA_CHECK(std::abs(p.up.dot(center - eye)) < 1e-12, xyz(p.up));
    ARTICULA_CHECK(p.up.z() > 0.0, xyz(p.up));

    // Straight above: the elevation is clamped to 89°, the distance kept.
    cam.setView(center + Vector3d(0.0, 0.0, 7.0), center);
    ARTICULA_CHECK(std::abs(cam.elevation() - deg(89.0)) < 1e-12, num(cam.elevation()));
    ARTICULA_CHECK(std::abs(cam.distance() - 7.0) < 1e-12, num(cam.distance()));
    cam.setView(center + Vector3d(0.0, 0.0, -7.0), center);
    ARTICULA_CHECK(std::abs(cam.elevation() + deg(89.0)) < 1e-12, num(cam.elevation()));
  }

  void rayProjectRoundTrip() {
    for (const OrbitCamera& cam : assortedCameras()) {
      for (const Viewport& vp : kViewports) {
        const std::vector<Vector2d> pixels = {
            {0.5, 0.5},       {vp.width - 0.5, vp.height - 0.5},    {0.5 * vp.width, 0.5 * vp.height},
            {0.0, vp.height}, {0.137 * vp.width, 0.71 * vp.height}, {-20.0, 1.3 * vp.height},  // outside the viewport
        };
        for (const Vector2d& px : pixels) {
          const Ray ray = cam.rayThrough(px.x(), px.y(), vp.width, vp.height);
          ARTICULA_CHECK(std::abs(ray.direction.norm() - 1.0) < 1e-12, xyz(ray.direction));
          VERIFY_NEAR(ray.origin, cam.pose().eye, 1e-12);
          for (const double t : {0.01, 1.0, 37.0}) {
            const std::optional<Vector2d> back = cam.project(ray.origin + t * ray.direction, vp.width, vp.height);
            ARTICULA_CHECK(back.has_value(), describeCamera(cam));
            ARTICULA_CHECK(
                (*back - px).norm() < 1e-7 * std::max(1.0, px.norm()),
                QString("%1: pixel (%2, %3) came back as (%4, %5) at t = %6")
                    .arg(describeCamera(cam), num(px.x()), num(px.y()), num(back->x()), num(back->y()), num(t)));
          }
        }
        // A point behind the eye has no pixel.
        const Ray ray = cam.rayThrough(0.3 * vp.width, 0.6 * vp.height, vp.width, vp.height);
        QVERIFY(!cam.project(ray.origin - 2.0 * ray.direction, vp.width, vp.height).has_value());
      }
    }
  }

  void centreProjectsToMiddle() {
    for (const OrbitCamera& cam : assortedCameras()) {
      for (const Viewport& vp : kViewports) {
        const std::optional<Vector2d> px = cam.project(cam.center(), vp.width, vp.height);
        QVERIFY(px.has_value());
        VERIFY_NEAR(*px, Vector2d(0.5 * vp.width, 0.5 * vp.height), 1e-9);
        // And the ray through the middle points at the centre.
        const Ray ray = cam.rayThrough(0.5 * vp.width, 0.5 * vp.height, vp.width, vp.height);
        VERIFY_NEAR(ray.direction, (cam.center() - cam.pose().eye).normalized(), 1e-12);
      }
    }
  }

  void pinholeModel() {
    // Pixel coordinates from the camera basis written out: a point at
    // (right, up, depth) r, u, z from the eye lands at
    //   x = w/2 + (r/z)/tan(fov/2) · h/2,  y = h/2 − (u/z)/tan(fov/2) · h/2.
    for (const OrbitCamera& cam : assortedCameras()) {
      const CameraPose p = cam.pose();
      const Vector3d f = (p.center - p.eye).normalized();
      const Vector3d r = f.cross(p.up);
      const double t = std::tan(deg(cam.fieldOfView()) / 2.0);
      const int w = 640;
      const int h = 480;
      for (const Vector3d& offset : {Vector3d(0.3, -0.2, 1.1), Vector3d(-2.0, 1.0, 0.5), Vector3d(0.0, 0.0, 3.0)}) {
        const Vector3d q = p.eye + cam.distance() * (offset.x() * r + offset.y() * p.up + offset.z() * f);
        const Vector2d expected(w / 2.0 + offset.x() / offset.z() / t * h / 2.0,
                                h / 2.0 - offset.y() / offset.z() / t * h / 2.0);
        const std::optional<Vector2d> px = cam.project(q, w, h);
        QVERIFY(px.has_value());
        VERIFY_NEAR(*px, expected, 1e-9);
      }
      // The screen's right is horizontal (z up stays up on the screen).
      ARTICULA_CHECK(std::abs(r.z()) < 1e-12, xyz(r));
    }
  }

  void matricesAgreeWithProject() {
    for (const OrbitCamera& cam : assortedCameras()) {
      const Matrix4d V = cam.viewMatrix();
      // The view matrix is rigid, maps the eye to the origin and the centre
      // onto −z at the orbit distance, and the screen's up onto +y.
      VERIFY_NEAR(Matrix3d(V.topLeftCorner<3, 3>() * V.topLeftCorner<3, 3>().transpose()), Matrix3d::Identity(), 1e-12);
      ARTICULA_CHECK(std::abs(V.topLeftCorner<3, 3>().determinant() - 1.0) < 1e-12, describeCamera(cam));
      const CameraPose p = cam.pose();
      VERIFY_NEAR(Vector3d((V * p.eye.homogeneous()).head<3>()), Vector3d::Zero(), 1e-9);
      VERIFY_NEAR(Vector3d((V * p.center.homogeneous()).head<3>()), Vector3d(0.0, 0.0, -cam.distance()), 1e-9);
      VERIFY_NEAR(Vector3d(V.topLeftCorner<3, 3>() * p.up), Vector3d::UnitY(), 1e-12);

      for (const Viewport& vp : {Viewport{800, 600}, Viewport{300, 900}}) {
        for (const Vector2d& px : {Vector2d(10.0, 20.0), Vector2d(400.0, 250.0), Vector2d(290.0, 5.0)}) {
          const Ray ray = cam.rayThrough(px.x(), px.y(), vp.width, vp.height);
          const Vector3d q = ray.origin + 1.7 * cam.distance() * ray.direction;
          const std::optional<Vector2d> a = cam.project(q, vp.width, vp.height);
          const std::optional<Vector2d> b = projectWithMatrices(cam, q, vp.width, vp.height);
          QVERIFY(a.has_value() && b.has_value());
          VERIFY_NEAR(*a, *b, 1e-9);
        }
      }

      // Depth: the near plane maps to −1, the far plane to +1.
      const Matrix4d P = cam.projectionMatrix(1.5, 0.25, 40.0);
      for (const auto& [z, ndc] : {std::pair{-0.25, -1.0}, std::pair{-40.0, 1.0}}) {
        const Eigen::Vector4d clip = P * Eigen::Vector4d(0.1, -0.05, z, 1.0);
        ARTICULA_CHECK(std::abs(clip.z() / clip.w() - ndc) < 1e-12, num(clip.z() / clip.w()));
      }
    }
  }

  void fitShowsEveryCorner() {
    for (OrbitCamera cam : assortedCameras()) {
      for (const Eigen::AlignedBox3d& box : assortedBoxes()) {
        for (const Viewport& vp : {Viewport{800, 600}, Viewport{300, 900}, Viewport{1000, 100}}) {
          const Vector3d direction = (cam.center() - cam.pose().eye).normalized();
          cam.fit(box, double(vp.width) / vp.height);
          VERIFY_NEAR(cam.center(), box.center(), 1e-12);
          VERIFY_NEAR(Vector3d((cam.center() - cam.pose().eye).normalized()), direction, 1e-12);
          // Every corner inside; the outermost one near the edge (in
          // normalised coordinates −1…1 across the viewport).
          double outermost = 0.0;
          for (int i = 0; i < 8; ++i) {
            const std::optional<Vector2d> px = cam.project(corner(box, i), vp.width, vp.height);
            ARTICULA_CHECK(px.has_value(), describeCamera(cam));
            const double nx = 2.0 * px->x() / vp.width - 1.0;
            const double ny = 2.0 * px->y() / vp.height - 1.0;
            ARTICULA_CHECK(std::abs(nx) <= 1.0 && std::abs(ny) <= 1.0,
                           QString("%1: corner %2 at pixel (%3, %4) outside %5 × %6")
                               .arg(describeCamera(cam))
                               .arg(i)
                               .arg(num(px->x()), num(px->y()))
                               .arg(vp.width)
                               .arg(vp.height));
            outermost = std::max({outermost, std::abs(nx), std::abs(ny)});
          }
          // The tightest corner sits exactly on the documented margin.
          ARTICULA_CHECK(
              outermost > 0.8 && outermost < 0.99 && std::abs(outermost - OrbitCamera::kFitFill) < 1e-9,
              QString("%1: outermost corner at %2 of the half viewport").arg(describeCamera(cam), num(outermost)));
        }
      }
    }
  }

  // With the left 30 % of the width covered (an overlay panel), every
  // corner lies in the rest of the width and the tightest one sits on the
  // margin of that part; the box centre appears in its middle; the
  // viewing direction is kept.
  void fitBesideACoveredLeftPart() {
    const double covered = 0.3;
    for (OrbitCamera cam : assortedCameras()) {
      for (const Eigen::AlignedBox3d& box : assortedBoxes()) {
        for (const Viewport& vp : {Viewport{800, 600}, Viewport{300, 900}, Viewport{1000, 100}}) {
          const Vector3d direction = (cam.center() - cam.pose().eye).normalized();
          cam.fit(box, double(vp.width) / vp.height, covered);
          VERIFY_NEAR(Vector3d((cam.center() - cam.pose().eye).normalized()), direction, 1e-12);
          const std::optional<Vector2d> mid = cam.project(box.center(), vp.width, vp.height);
          ARTICULA_CHECK(mid.has_value(), describeCamera(cam));
          ARTICULA_CHECK(std::abs(mid->x() - 0.5 * (1.0 + covered) * vp.width) < 1e-6 * vp.width,
                         QString("%1: box centre at x = %2").arg(describeCamera(cam), num(mid->x())));
          // Normalised across the free part: −1 at its left edge, +1 at the right.
          double outermost = 0.0;
          for (int i = 0; i < 8; ++i) {
            const std::optional<Vector2d> px = cam.project(corner(box, i), vp.width, vp.height);
            ARTICULA_CHECK(px.has_value(), describeCamera(cam));
            const double left = covered * vp.width;
            const double nx = 2.0 * (px->x() - left) / (vp.width - left) - 1.0;
            const double ny = 2.0 * px->y() / vp.height - 1.0;
            ARTICULA_CHECK(std::abs(nx) <= 1.0 && std::abs(ny) <= 1.0,
                           QString("%1: corner %2 at pixel (%3, %4) outside the free part of %5 × %6")
                               .arg(describeCamera(cam))
                               .arg(i)
                               .arg(num(px->x()), num(px->y()))
                               .arg(vp.width)
                               .arg(vp.height));
            outermost = std::max({outermost, std::abs(nx), std::abs(ny)});
          }
          ARTICULA_CHECK(std::abs(outermost - OrbitCamera::kFitFill) < 1e-9,
                         QString("%1: outermost corner at %2").arg(describeCamera(cam), num(outermost)));
        }
      }
    }
  }

  void fitEmptyBoxFramesUnitCube() {
    OrbitCamera a;
    OrbitCamera b;
    a.fit(Eigen::AlignedBox3d(), 4.0 / 3.0);  // default-constructed: empty
    b.fit(Eigen::AlignedBox3d(Vector3d::Constant(-0.5), Vector3d::Constant(0.5)), 4.0 / 3.0);
    VERIFY_NEAR(a.center(), Vector3d::Zero(), 0.0);
    ARTICULA_CHECK(std::abs(a.distance() - b.distance()) < 1e-12, num(a.distance()) + " vs " + num(b.distance()));
  }

  void orbitKeepsCentreAndDistance() {
    OrbitCamera cam;
    cam.setView(Vector3d(4.0, -3.0, 2.0), Vector3d(0.5, 0.5, 0.5));
    const Vector3d center = cam.center();
    const double distance = cam.distance();
    const double az = cam.azimuth();
    const double el = cam.elevation();
    cam.orbit(40.0, -25.0);
    VERIFY_NEAR(cam.center(), center, 0.0);
    ARTICULA_CHECK(std::abs(cam.distance() - distance) < 1e-12, num(cam.distance()));
    VERIFY_NEAR(Vector3d(cam.pose().eye - center), Vector3d((cam.pose().eye - center).normalized() * distance), 1e-12);
    // Fixed radians per pixel, drag right = azimuth down, drag down = elevation up.
    ARTICULA_CHECK(std::abs(cam.azimuth() - (az - 40.0 * OrbitCamera::kOrbitRadiansPerPixel)) < 1e-12,
                   num(cam.azimuth()));
    ARTICULA_CHECK(std::abs(cam.elevation() - (el - 25.0 * OrbitCamera::kOrbitRadiansPerPixel)) < 1e-12,
                   num(cam.elevation()));

    // The scene follows the cursor: a point between the eye and the centre
    // (on the scene's near side) moves with the drag.
    const int w = 800;
    const int h = 600;
    const Vector3d front = 0.5 * (cam.pose().eye + cam.center());
    OrbitCamera right = cam;
    right.orbit(15.0, 0.0);
    ARTICULA_CHECK(right.project(front, w, h)->x() > w / 2.0 + 1.0, num(right.project(front, w, h)->x()));
    OrbitCamera down = cam;
    down.orbit(0.0, 15.0);
    ARTICULA_CHECK(down.project(front, w, h)->y() > h / 2.0 + 1.0, num(down.project(front, w, h)->y()));

    // The elevation stops at 89°, the azimuth wraps.
    cam.orbit(1e5, 1e6);
    ARTICULA_CHECK(std::abs(cam.elevation() - deg(89.0)) < 1e-12, num(cam.elevation()));
    ARTICULA_CHECK(cam.azimuth() > -kPi && cam.azimuth() <= kPi, num(cam.azimuth()));
    ARTICULA_CHECK(std::abs(cam.distance() - distance) < 1e-12, num(cam.distance()));
  }

  void panFollowsCursor() {
    for (OrbitCamera cam : assortedCameras()) {
      for (const Viewport& vp : {Viewport{800, 600}, Viewport{300, 900}}) {
        const Vector2d cursor(0.3 * vp.width, 0.8 * vp.height);
        const Vector2d delta(37.0, -12.5);
        // The point at the centre's depth under the cursor.
        const CameraPose p = cam.pose();
        const Vector3d f = (p.center - p.eye).normalized();
        const Ray ray = cam.rayThrough(cursor.x(), cursor.y(), vp.width, vp.height);
        const Vector3d grabbed = ray.origin + cam.distance() / ray.direction.dot(f) * ray.direction;
        const Vector3d oldCenter = cam.center();
        const double distance = cam.distance();

        OrbitCamera panned = cam;
        panned.pan(delta.x(), delta.y(), vp.height);
        const std::optional<Vector2d> now = panned.project(grabbed, vp.width, vp.height);
        QVERIFY(now.has_value());
        VERIFY_NEAR(*now, Vector2d(cursor + delta), 1e-9);
        const std::optional<Vector2d> centreNow = panned.project(oldCenter, vp.width, vp.height);
        VERIFY_NEAR(*centreNow, Vector2d(Vector2d(0.5 * vp.width, 0.5 * vp.height) + delta), 1e-9);
        // Panning translates the camera: direction and distance stay.
        ARTICULA_CHECK(std::abs(panned.distance() - distance) < 1e-12, num(panned.distance()));
        VERIFY_NEAR(Vector3d((panned.center() - panned.pose().eye).normalized()), f, 1e-12);
        ARTICULA_CHECK(std::abs((panned.center() - oldCenter).dot(f)) < 1e-9 * std::max(1.0, distance),
                       xyz(panned.center()));
      }
    }
  }

  void zoomFactor() {
    OrbitCamera cam;
    cam.setView(Vector3d(0.0, -10.0, 0.0), Vector3d::Zero());
    cam.zoom(1.0);
    ARTICULA_CHECK(std::abs(cam.distance() - 8.5) < 1e-12, num(cam.distance()));
    cam.zoom(-1.0);
    ARTICULA_CHECK(std::abs(cam.distance() - 10.0) < 1e-12, num(cam.distance()));
    cam.zoom(2.5);
    ARTICULA_CHECK(std::abs(cam.distance() - 10.0 * std::pow(0.85, 2.5)) < 1e-12, num(cam.distance()));
    VERIFY_NEAR(cam.center(), Vector3d::Zero(), 0.0);
    ARTICULA_CHECK(std::abs(cam.azimuth() + kPi / 2.0) < 1e-12, num(cam.azimuth()));
    cam.zoom(1000.0);
    ARTICULA_CHECK(cam.distance() == 1e-3, num(cam.distance()));
    cam.zoom(-1000.0);
    ARTICULA_CHECK(cam.distance() == 1e6, num(cam.distance()));
  }

  void presets() {
    struct Expected {
      const char* name;
      Vector3d eyeDirection;  ///< from the centre, unit
      Vector3d screenRight;
    };
    const double c30 = std::cos(deg(30.0));
    const std::vector<Expected> expected = {
        {"iso", Vector3d(c30 / std::sqrt(2.0), c30 / std::sqrt(2.0), 0.5), Vector3d(-1.0, 1.0, 0.0).normalized()},
        {"front", Vector3d::UnitX(), Vector3d::UnitY()},
        {"back", -Vector3d::UnitX(), -Vector3d::UnitY()},
        {"left", Vector3d::UnitY(), -Vector3d::UnitX()},
        {"right", -Vector3d::UnitY(), Vector3d::UnitX()},
    };
    OrbitCamera cam;
    cam.setView(Vector3d(2.0, 3.0, 4.0), Vector3d(1.0, -1.0, 0.5));
    const Vector3d center = cam.center();
    const double distance = cam.distance();
    for (const Expected& e : expected) {
      cam.setPreset(e.name);
      const CameraPose p = cam.pose();
      VERIFY_NEAR(p.center, center, 0.0);
      ARTICULA_CHECK(std::abs(cam.distance() - distance) < 1e-12, QString(e.name));
      VERIFY_NEAR(Vector3d((p.eye - p.center) / distance), e.eyeDirection, 1e-12);
      VERIFY_NEAR(Vector3d((p.center - p.eye).normalized().cross(p.up)), e.screenRight, 1e-12);
    }
    // Top: looking down to within the 89° limit, +x right and +y up.
    cam.setPreset("top");
    const CameraPose p = cam.pose();
    const Vector3d f = (p.center - p.eye).normalized();
    ARTICULA_CHECK(f.dot(-Vector3d::UnitZ()) >= std::cos(deg(1.0)) - 1e-12, xyz(f));
    VERIFY_NEAR(Vector3d(f.cross(p.up)), Vector3d::UnitX(), 1e-12);
    ARTICULA_CHECK(p.up.dot(Vector3d::UnitY()) > 0.999, xyz(p.up));
    QCOMPARE(OrbitCamera::presetNames().size(), std::size_t{6});

    EXPECT_THROW_NAMING(std::invalid_argument,
                        (std::vector<std::string>{"isometric", "iso", "front", "back", "left", "right", "top"}),
                        cam.setPreset("isometric"));
  }

  void nearFarEnclosesBox() {
    for (OrbitCamera cam : assortedCameras()) {
      for (const Eigen::AlignedBox3d& box : assortedBoxes()) {
        // From outside the box (fitted) and from a wider distance.
        for (const double scale : {1.0, 3.0}) {
          cam.fit(box, 1.0);
          cam.setDistance(cam.distance() * scale);
          const auto [zNear, zFar] = cam.nearFar(box);
          ARTICULA_CHECK(zNear > 0.0 && zNear < zFar, num(zNear) + " " + num(zFar));
          const Matrix4d V = cam.viewMatrix();
          for (int i = 0; i < 8; ++i) {
            const double depth = -(V * corner(box, i).homogeneous()).z();
            ARTICULA_CHECK(depth >= zNear && depth <= zFar,
                           QString("%1: corner depth %2 outside [%3, %4]")
                               .arg(describeCamera(cam), num(depth), num(zNear), num(zFar)));
          }
        }
      }
    }
    // The eye inside the box: near stays positive and far encloses the box.
    OrbitCamera cam;
    cam.setView(Vector3d(0.1, 0.2, 0.3), Vector3d(1.0, 0.0, 0.0));
    const Eigen::AlignedBox3d box(Vector3d::Constant(-5.0), Vector3d::Constant(5.0));
    const auto [zNear, zFar] = cam.nearFar(box);
    ARTICULA_CHECK(zNear > 0.0 && zNear < 1e-3 * zFar, num(zNear) + " " + num(zFar));
    for (int i = 0; i < 8; ++i) {
      QVERIFY(-(cam.viewMatrix() * corner(box, i).homogeneous()).z() <= zFar);
    }
  }

  void parseCameraSpecForms() {
    for (const std::string& name : OrbitCamera::presetNames()) {
      const CameraSpec spec = parseCameraSpec(name);
      QCOMPARE(spec.preset, name);
      QVERIFY(!spec.hasEyeCenter);
    }
    const CameraSpec fit = parseCameraSpec("  fit ");
    QCOMPARE(fit.preset, std::string("fit"));
    QVERIFY(!fit.hasEyeCenter);

    const CameraSpec view = parseCameraSpec("3,-4.5,2e0:0, 0.25 ,+1");
    QVERIFY(view.hasEyeCenter);
    QVERIFY(view.preset.empty());
    VERIFY_NEAR(view.eye, Vector3d(3.0, -4.5, 2.0), 0.0);
    VERIFY_NEAR(view.center, Vector3d(0.0, 0.25, 1.0), 0.0);

    const std::vector<std::string> expectedForms = {"fit", "iso", "EX,EY,EZ:CX,CY,CZ"};
    for (const char* bad : {"", "   ", "isometric", "Iso", "1,2:0,0,0", "1,2,3:0,0", "1,2,3,4:0,0,0", "a,b,c:0,0,0",
                            "1,,3:0,0,0", "1,2,3:0,0,0:1,1,1", "nan,0,0:0,0,0", "1e999,0,0:0,0,0", "1,2,3:1,2,3",
                            "1,2,3", "1 2 3:0,0,0", "1,2,3x:0,0,0"}) {
      EXPECT_THROW_NAMING(std::invalid_argument, expectedForms, parseCameraSpec(bad));
    }
    // The message says which part is wrong.
    EXPECT_THROW_NAMING(std::invalid_argument, (std::vector<std::string>{"centre", "three"}),
                        parseCameraSpec("1,2,3:0,0"));
    EXPECT_THROW_NAMING(std::invalid_argument, (std::vector<std::string>{"eye", "'b'"}),
                        parseCameraSpec("1,b,3:0,0,0"));
  }

  void metresPerPixelMatchesRays() {
    OrbitCamera cam;
    cam.setView(Vector3d(1.0, -6.0, 2.0), Vector3d(0.0, 0.0, 0.5));
    const int w = 640;
    const int h = 480;
    // Two rays one pixel apart vertically through the middle meet the
    // centre's depth plane about metresPerPixel apart.
    const CameraPose p = cam.pose();
    const Vector3d f = (p.center - p.eye).normalized();
    const auto atCentreDepth = [&](double y) {
      const Ray r = cam.rayThrough(w / 2.0, y, w, h);
      return Vector3d(r.origin + cam.distance() / r.direction.dot(f) * r.direction);
    };
    const double spacing = (atCentreDepth(h / 2.0 + 0.5) - atCentreDepth(h / 2.0 - 0.5)).norm();
    ARTICULA_CHECK(std::abs(cam.metresPerPixel(cam.center(), h) - spacing) < 1e-6 * spacing,
                   num(cam.metresPerPixel(cam.center(), h)) + " vs " + num(spacing));
  }
};

QTEST_APPLESS_MAIN(CameraTest)
#include "test_camera.moc"

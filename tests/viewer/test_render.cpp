// Offscreen rendering checked pixel by pixel against a CPU ray caster (the
// scene's own picking, which intersects the shapes without OpenGL): where a
// ray hits a shape the pixel has that shape's colour, where it hits nothing
// the pixel is the background. Debug layers change the pixels when shown.
// Runs under Xvfb.
#include "models.hpp"
#include "replay_scenes.hpp"
#include "test_helpers.hpp"

#include <articula/io/import.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewport.hpp>

#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

using namespace articula;
using namespace articula::test;
using namespace articula::viewer;
namespace fs = std::filesystem;

namespace {

constexpr int kWidth = 480;
constexpr int kHeight = 360;
const Vector4d kBackground{0.2, 0.25, 0.3, 1.0};
const fs::path kModels = articula::test::modelsPath() / "example-robot-data" / "robots";

// A world drawn offscreen: description, snapshot, scene and viewport.
struct Rendered {
  std::shared_ptr<SceneDescription> description;
  RenderSnapshot snapshot;
  SceneView scene;
  std::unique_ptr<Viewport> viewport;

  explicit Rendered(const World& world, int w = kWidth, int h = kHeight) {
    description = std::make_shared<SceneDescription>(describeScene(world));
    fillRenderSnapshot(world, *description, snapshot);
    scene.setDescription(description);
    scene.applySnapshot(snapshot);
    scene.setBackground(kBackground);
    viewport = Viewport::createOffscreen(w, h);
    viewport->setScene(&scene);
    viewport->setOverlayEnabled(false);
  }
  Image draw() {
    viewport->renderFrame();
    return viewport->grab();
  }
};

Rgba backgroundPixel() {
  const auto c = [](double v) { return static_cast<std::uint8_t>(std::lround(255.0 * v)); };
  return Rgba{c(kBackground[0]), c(kBackground[1]), c(kBackground[2]), 255};
}

bool isBackground(const Rgba& p) {
  const Rgba b = backgroundPixel();
  return std::abs(p.r - b.r) <= 1 && std::abs(p.g - b.g) <= 1 && std::abs(p.b - b.b) <= 1;
}

// Whether a lit pixel shows a surface of colour `c`: for a coloured surface
// the strongest channel is the colour's, for a grey one the channels stay
// close together.
bool showsColour(const Rgba& p, const Vector4d& c) {
  const double spread = c.head<3>().maxCoeff() - c.head<3>().minCoeff();
  const int channels[3] = {p.r, p.g, p.b};
  if (spread < 0.15) return *std::max_element(channels, channels + 3) - *std::min_element(channels, channels + 3) <= 60;
  Eigen::Index want = 0;
  c.head<3>().maxCoeff(&want);
  return std::max_element(channels, channels + 3) - channels == want;
}

struct Agreement {
  int checked = 0;
  int hits = 0;
  int wrongBackground = 0;  // pick hit nothing, pixel is not the background
  int missingShape = 0;     // pick hit a shape, pixel is the background
  int wrongColour = 0;
  QString firstProblem;
};

// Compares every `stride`-th pixel with the CPU ray cast, skipping pixels
// next to a silhouette (a neighbour's ray hits another shape or nothing).
Agreement compareWithRayCast(Rendered& r, const Image& image, int stride) {
  Agreement a;
  std::map<ObjectId, Vector4d> colours;
  for (const ShapeDescription& s : r.description->shapes) colours[s.id] = s.color;
  const auto hitAt = [&](double x, double y) -> ObjectId {
    const std::optional<PickResult> hit = r.viewport->pickAt(x, y);
    return hit ? hit->shape : 0;
  };
  for (int y = 2; y < image.height - 2; y += stride) {
    for (int x = 2; x < image.width - 2; x += stride) {
      const double cx = x + 0.5;
      const double cy = y + 0.5;
      const ObjectId hit = hitAt(cx, cy);
      bool edge = false;
      for (const auto& [dx, dy] : {std::pair{-2, 0}, {2, 0}, {0, -2}, {0, 2}}) {
        if (hitAt(cx + dx, cy + dy) != hit) edge = true;
      }
      if (edge) continue;
      ++a.checked;
      const Rgba p = image.at(x, y);
      const QString where = QString("pixel (%1, %2) rgb %3 %4 %5").arg(x).arg(y).arg(p.r).arg(p.g).arg(p.b);
      if (hit == 0) {
        if (!isBackground(p)) {
          ++a.wrongBackground;
          if (a.firstProblem.isEmpty()) a.firstProblem = where + ": no shape there, yet not the background";
        }
        continue;
      }
      ++a.hits;
      if (isBackground(p)) {
        ++a.missingShape;
        if (a.firstProblem.isEmpty()) a.firstProblem = where + ": a shape there, yet the background";
      } else if (!showsColour(p, colours[hit])) {
        ++a.wrongColour;
        if (a.firstProblem.isEmpty()) a.firstProblem = where + ": not the shape's colour";
      }
    }
  }
  return a;
}

void requireDisplay() {
  if (qgetenv("DISPLAY").isEmpty()) QSKIP("no X display (this test runs under xvfb-run)");
}

}  // namespace

class TestRender : public QObject {
  Q_OBJECT
 private slots:
  void fourBarMatchesRayCast() {
    requireDisplay();
    World w;
    io::importFile(w, fs::path(ARTICULA_SOURCE_DIR) / "scenes" / "four_bar.articula");
    w.enterSimulationMode();
    Rendered r(w);
    r.scene.setLayerVisible(Layer::Grid, false);
    r.scene.setLayerVisible(Layer::Closures, false);
    r.viewport->camera().setPreset("right");
    r.viewport->fitToScene();
    const Image image = r.draw();
    savePng(image, "viewer_render_four_bar.png");
    const Agreement a = compareWithRayCast(r, image, 3);
    qInfo("four-bar: %d pixels checked, %d on shapes; %d wrong background, %d missing, %d wrong colour", a.checked,
          a.hits, a.wrongBackground, a.missingShape, a.wrongColour);
    QVERIFY2(a.hits > 500, "the four-bar covers too little of the image");
    QVERIFY2(a.wrongBackground == 0 && a.missingShape == 0 && a.wrongColour == 0, qPrintable(a.firstProblem));
    // Each link's own colour is present: the crank red, the coupler blue, the rocker green.
    int red = 0, blue = 0, green = 0;
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        const Rgba p = image.at(x, y);
        if (p.r > p.g + 40 && p.r > p.b + 40) ++red;
        if (p.b > p.r + 40 && p.b > p.g + 10) ++blue;
        if (p.g > p.r + 40 && p.g > p.b + 40) ++green;
      }
    }
    QVERIFY2(red > 100 && blue > 100 && green > 100,
             qPrintable(QString("red %1 blue %2 green %3").arg(red).arg(blue).arg(green)));
  }

  void meshPartsDrawInTheirColours() {
    requireDisplay();
    // Three unit squares side by side along x, facing +z: the first is a red
    // part, the second no part (the shape's green), the third a blue part.
    std::vector<Vector3d> vertices;
    std::vector<std::array<int, 3>> triangles;
    for (int k = 0; k < 3; ++k) {
      const int b = static_cast<int>(vertices.size());
      const double x = k;
      vertices.insert(vertices.end(), {{x, 0, 0}, {x + 1, 0, 0}, {x + 1, 1, 0}, {x, 1, 0}});
      triangles.push_back({b, b + 1, b + 2});
      triangles.push_back({b, b + 2, b + 3});
    }
    Geometry g = Geometry::triangleMesh(vertices, triangles);
    const Vector4d red(0.9, 0.1, 0.1, 1), green(0.1, 0.8, 0.1, 1), blue(0.1, 0.1, 0.9, 1);
    g.parts = {MeshPart{0, 2, red}, MeshPart{4, 2, blue}};
    World w;
    VisualShapeOptions o;
    o.name = "strip";
    o.geometry = g;
    o.color = green;
    w.addVisualShape(Frame::World(), o);
    w.enterSimulationMode();
    Rendered r(w);
    r.scene.setLayerVisible(Layer::Grid, false);
    r.viewport->camera().setPreset("top");
    r.viewport->fitToScene();
    const Image image = r.draw();
    savePng(image, "viewer_render_mesh_parts.png");
    // The colour a pixel should show follows from where its ray hits the strip.
    int checked = 0, wrong = 0;
    std::array<int, 3> seen{0, 0, 0};
    QString first;
    for (int y = 2; y < image.height - 2; y += 3) {
      for (int x = 2; x < image.width - 2; x += 3) {
        const std::optional<PickResult> hit = r.viewport->pickAt(x + 0.5, y + 0.5);
        if (!hit) continue;
        const double px = hit->point.x();
        if (std::abs(px - std::round(px)) < 0.05) continue;  // a border between squares
        const int square = std::clamp(static_cast<int>(std::floor(px)), 0, 2);
        const Vector4d& want = square == 0 ? red : square == 1 ? green : blue;
        ++checked;
        const Rgba p = image.at(x, y);
        if (showsColour(p, want)) {
          ++seen[static_cast<std::size_t>(square)];
        } else {
          ++wrong;
          if (first.isEmpty()) {
            first = QString("pixel (%1, %2) rgb %3 %4 %5 over square %6")
                        .arg(x)
                        .arg(y)
                        .arg(p.r)
                        .arg(p.g)
                        .arg(p.b)
                        .arg(square);
          }
        }
      }
    }
    qInfo("mesh parts: %d pixels checked, red %d green %d blue %d, wrong %d", checked, seen[0], seen[1], seen[2],
          wrong);
    QVERIFY2(seen[0] > 100 && seen[1] > 100 && seen[2] > 100, "each square should cover part of the image");
    QVERIFY2(wrong == 0, qPrintable(first));
  }

  void robotUrdfMatchesRayCast() {
    requireDisplay();
    const fs::path urdf = kModels / "ur_description" / "urdf" / "ur5_robot.urdf";
    ARTICULA_REQUIRE_MODEL(urdf);
    World w;
    io::ImportOptions options;
    options.packagePath = {kModels};
    io::importFile(w, urdf, options);
    // A pose that spreads the arm out.
    VectorXd q = w.getPositions();
    for (Eigen::Index i = 0; i < q.size(); ++i) q[i] = 0.4 * static_cast<double>(i % 3) - 0.5;
    w.setPositions(q);
    w.enterSimulationMode();
    Rendered r(w);
    r.scene.setLayerVisible(Layer::Grid, false);
    r.viewport->camera().setPreset("iso");
    r.viewport->fitToScene();
    const Image image = r.draw();
    savePng(image, "viewer_render_ur5.png");
    const Agreement a = compareWithRayCast(r, image, 3);
    qInfo("UR5: %d pixels checked, %d on shapes; %d wrong background, %d missing, %d wrong colour", a.checked, a.hits,
          a.wrongBackground, a.missingShape, a.wrongColour);
    QVERIFY2(a.hits > 500, "the robot covers too little of the image");
    // Mesh silhouettes are finer than the edge test's 2-pixel reach in a
    // few places: allow 0.5 % disagreement.
    const int wrong = a.wrongBackground + a.missingShape + a.wrongColour;
    QVERIFY2(wrong <= a.checked / 200,
             qPrintable(QString("%1 disagreements; first: %2").arg(wrong).arg(a.firstProblem)));
  }

  void eachLayerChangesThePixels() {
    requireDisplay();
    World w;
    fourBarWithBox(w);
    w.enterSimulationMode();
    // Let the box land on the coupler: contacts.
    for (int i = 0; i < 2000 && w.getContacts().empty(); ++i) w.step();
    QVERIFY(!w.getContacts().empty());
    Rendered r(w);
    // With the joints' reactions, for the joint-force layer.
    fillRenderSnapshot(w, *r.description, r.snapshot, true);
    QVERIFY(r.scene.applySnapshot(r.snapshot));
    r.viewport->camera().setPreset("right");
    r.viewport->fitToScene();
    r.scene.setSelection({bodyId(*w.getRigidBody("box"))});
    const std::uint32_t none = 0;
    for (const Layer layer : allLayers()) {
      // The layer alone (with visuals for the selection, which outlines
      // shapes, and for shadows, which fall on the ground plane).
      const std::uint32_t base =
          layer == Layer::Selection || layer == Layer::Shadows ? static_cast<std::uint32_t>(Layer::Visuals) : none;
      r.scene.setLayers(base);
      const Image without = r.draw();
      r.scene.setLayers(base | static_cast<std::uint32_t>(layer));
      const Image with = r.draw();
      const std::size_t changed = with.countDifferent(without, 8);
      qInfo("layer %s: %zu pixels change", layerName(layer).c_str(), changed);
      QVERIFY2(changed >= 20, qPrintable(QString("showing layer '%1' changed %2 pixels")
                                             .arg(QString::fromStdString(layerName(layer)))
                                             .arg(changed)));
      if (layer == Layer::Contacts) savePng(with, "viewer_render_contacts.png");
      if (layer == Layer::JointForces) savePng(with, "viewer_render_joint_forces.png");
    }
    r.scene.setLayers(kDefaultLayers | static_cast<std::uint32_t>(Layer::Contacts) |
                      static_cast<std::uint32_t>(Layer::LinkFrames) | static_cast<std::uint32_t>(Layer::JointAxes) |
                      static_cast<std::uint32_t>(Layer::CentersOfMass));
    savePng(r.draw(), "viewer_render_layers.png");
  }

  void closureLineColourFollowsResidual() {
    requireDisplay();
    World w;
    fourBarWithBox(w);
    Rendered r(w);
    r.scene.setLayers(static_cast<std::uint32_t>(Layer::Closures));
    r.viewport->camera().setPreset("right");
    r.viewport->fitToScene();
    // Closed: the endpoints coincide, drawn green.
    const auto countHue = [](const Image& im, bool redHue) {
      int n = 0;
      for (int y = 0; y < im.height; ++y) {
        for (int x = 0; x < im.width; ++x) {
          const Rgba p = im.at(x, y);
          if (redHue ? (p.r > 200 && p.g < 120) : (p.g > 180 && p.r < 80)) ++n;
        }
      }
      return n;
    };
    const Image closed = r.draw();
    QVERIFY(countHue(closed, false) > 10);
    QCOMPARE(countHue(closed, true), 0);
    // Open it by 5 cm: a red line between the endpoints.
    Multibody mb = *w.getMultibody("fourbar");
    VectorXd q = mb.getPositions();
    q[1] += 0.2;
    mb.setPositions(q);
    fillRenderSnapshot(w, *r.description, r.snapshot);
    QVERIFY(r.snapshot.closures[0].residual > 0.01);
    r.scene.applySnapshot(r.snapshot);
    const Image open = r.draw();
    QVERIFY(countHue(open, true) > 20);
  }

  void pickingFindsBodyAndSurfacePoint() {
    requireDisplay();
    World w;
    RigidBodyOptions o;
    o.pose = translation(0.3, -0.2, 0.5) * rotation(0.4, Vector3d(0, 0, 1));
    RigidBody box = w.addRigidBody("crate", o);
    VisualShapeOptions v;
    v.name = "crate_look";
    v.geometry = Geometry::box({0.4, 0.3, 0.2});
    v.color = {0.9, 0.6, 0.1, 1};
    w.addVisualShape(box, v);
    Rendered r(w);
    r.viewport->camera().setPreset("iso");
    r.viewport->fitToScene();
    const std::optional<Vector2d> px = r.viewport->camera().project(box.getPose().translation(), kWidth, kHeight);
    QVERIFY(px);
    const std::optional<PickResult> hit = r.viewport->pickAt(px->x(), px->y());
    QVERIFY(hit);
    QCOMPARE(hit->bodyName, std::string("crate"));
    QCOMPARE(hit->shapeName, std::string("crate_look"));
    QCOMPARE(hit->body, bodyId(box));
    // The point is on the box surface: in box coordinates one coordinate is
    // at ±half size and the others within.
    const Vector3d local = box.getPose().inverse() * hit->point;
    const Vector3d half(0.2, 0.15, 0.1);
    const Vector3d slack = (local.cwiseAbs() - half);
    QVERIFY2(slack.maxCoeff() < 1e-4 && slack.maxCoeff() > -1e-4, "the picked point is not on the box surface");
    // Analytic ray-box intersection (slab method) gives the same point.
    const Ray ray = r.viewport->rayAt(px->x(), px->y());
    const Isometry3d Xinv = box.getPose().inverse();
    const Vector3d o2 = Xinv * ray.origin;
    const Vector3d d2 = Xinv.linear() * ray.direction;
    double tmin = -1e9, tmax = 1e9;
    for (int k = 0; k < 3; ++k) {
      const double t1 = (-half[k] - o2[k]) / d2[k];
      const double t2 = (half[k] - o2[k]) / d2[k];
      tmin = std::max(tmin, std::min(t1, t2));
      tmax = std::min(tmax, std::max(t1, t2));
    }
    QVERIFY(tmin <= tmax);
    QVERIFY2((ray.origin + tmin * ray.direction - hit->point).norm() < 1e-4,
             "picked point differs from the slab method");
    // A corner of the image shows nothing.
    QVERIFY(!r.viewport->pickAt(1, 1));
    // The rendered pixel there is the box's orange.
    const Image image = r.draw();
    const Rgba p = image.at(static_cast<int>(px->x()), static_cast<int>(px->y()));
    QVERIFY(p.r > p.g && p.g > p.b);
  }

  void reconcileKeepsDrawablesAcrossEdits() {
    requireDisplay();
    World w;
    pile(w);
    Rendered r(w);
    // Every pile body stands in with its collision shape: one visual
    // drawable each (collision drawables wait for their layer).
    const std::uint64_t built = r.scene.shapesBuilt();
    QCOMPARE(built, static_cast<std::uint64_t>(r.description->shapes.size()));
    const Eigen::AlignedBox3d boundsBefore = r.scene.bounds();
    // A visual shape added to the ball: the new shape is built, and the
    // ball's collision shape, which stood in for its missing visuals,
    // becomes a plain collision shape (no visual drawable; its collision
    // drawable waits for the layer); everything else is kept.
    w.addVisualShape(*w.getRigidBody("ball"),
                     VisualShapeOptions{"dot", Geometry::sphere(0.01), translation(0, 0, 0.08), {1, 0, 0, 1}});
    const ReconcilePlan plan = r.scene.setDescription(std::make_shared<SceneDescription>(describeScene(w, 2)));
    QCOMPARE(plan.added.size(), std::size_t{1});
    QCOMPARE(plan.rebuilt.size(), std::size_t{1});
    QCOMPARE(r.scene.description()->shapes[plan.rebuilt[0]].id,
             shapeId(w.getCollisionShapes(*w.getRigidBody("ball")).at(0)));
    QCOMPARE(plan.unchanged.size(), r.scene.description()->shapes.size() - 2);
    QCOMPARE(r.scene.shapesBuilt(), built + 1);
    // No snapshot of the new design yet: bodies stay where the last
    // snapshot put them (the new dot lies inside the ball's bounds).
    QVERIFY(r.scene.bounds().isApprox(boundsBefore, 1e-12));
    // Recolouring one shape rebuilds that shape only.
    w.getShape("dot")->setColor({0, 0, 1, 1});
    r.scene.setDescription(std::make_shared<SceneDescription>(describeScene(w, 3)));
    QCOMPARE(r.scene.shapesBuilt(), built + 2);
    // Removing a body builds nothing.
    w.remove(*w.getRigidBody("box2"));
    r.scene.setDescription(std::make_shared<SceneDescription>(describeScene(w, 4)));
    QCOMPARE(r.scene.shapesBuilt(), built + 2);
    QCOMPARE(r.scene.shapeCount(), r.scene.description()->shapes.size());
    // Showing the collision layer builds each collision shape once.
    std::uint64_t collisionShapes = 0;
    for (const ShapeDescription& s : r.scene.description()->shapes) collisionShapes += s.collision ? 1 : 0;
    r.scene.setLayerVisible(Layer::Collision, true);
    QCOMPARE(r.scene.shapesBuilt(), built + 2 + collisionShapes);
    r.scene.setLayerVisible(Layer::Collision, false);
    r.scene.setLayerVisible(Layer::Collision, true);
    QCOMPARE(r.scene.shapesBuilt(), built + 2 + collisionShapes);
    // A snapshot of an older description is refused.
    QVERIFY(!r.scene.applySnapshot(r.snapshot));
  }

  void overlayDrawsOverTheScene() {
    requireDisplay();
    World w;
    fourBarWithBox(w);
    w.enterSimulationMode();
    w.step(10);
    Rendered r(w);
    r.viewport->fitToScene();
    const Image plain = r.draw();
    r.viewport->setOverlayEnabled(true);
    r.viewport->overlay().feed(r.snapshot);
    r.draw();
    const Image withOverlay = r.draw();
    savePng(withOverlay, "viewer_render_overlay.png");
    QVERIFY(withOverlay.countDifferent(plain, 8) > 1000);
  }
};

QTEST_MAIN(TestRender)
#include "test_render.moc"

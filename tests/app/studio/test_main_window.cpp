// The studio's main window driven as a user drives it (app/studio): a
// scripted session on the four-bar (simulate 1000 steps, scrub to frame 200,
// resume, leave) checked against the recording and a headless run; opening
// a URDF robot through File ▸ Open (import report, rendered pixels); replay
// files of another layout refused; a dropped file opened; screenshots of
// the whole window in design and simulation mode; crash recovery. Runs
// under Xvfb (QOpenGLWidget needs the xcb platform).
#include "document.hpp"
#include "edit_operations.hpp"
#include "import_dialog.hpp"
#include "import_report_view.hpp"
#include "inspector.hpp"
#include "main_window.hpp"
#include "models.hpp"
#include "plot_panel.hpp"
#include "preferences.hpp"
#include "scene_tree_model.hpp"
#include "simulation.hpp"
#include "viewport_widget.hpp"

#include <run_tool.hpp>

#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/recording.hpp>
#include <articula/viewer/debug_layers.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewport.hpp>

#include <QAction>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QSlider>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numbers>
#include <optional>
#include <sstream>

using namespace articula;
using namespace articula::studio;
namespace fs = std::filesystem;

namespace {

const fs::path kScenes = fs::path(ARTICULA_SOURCE_DIR) / "scenes";
const fs::path kModels = articula::test::modelsPath() / "example-robot-data" / "robots";

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Where the screenshots go: $ARTICULA_SCREENSHOT_DIR, else the working folder.
QString screenshotPath(const QString& name) {
  const QString dir = qEnvironmentVariable("ARTICULA_SCREENSHOT_DIR", QDir::currentPath());
  QDir().mkpath(dir);
  return dir + "/" + name;
}

int countDifferent(const QImage& a, const QImage& b, QRect* box = nullptr) {
  int n = 0;
  QRect r;
  for (int y = 0; y < std::min(a.height(), b.height()); ++y) {
    for (int x = 0; x < std::min(a.width(), b.width()); ++x) {
      const QColor p = a.pixelColor(x, y);
      const QColor q = b.pixelColor(x, y);
      if (std::abs(p.red() - q.red()) + std::abs(p.green() - q.green()) + std::abs(p.blue() - q.blue()) > 30) {
        ++n;
        r = r.united(QRect(x, y, 1, 1));
      }
    }
  }
  if (box) *box = r;
  return n;
}

// Presses on an arrow of the viewport's gizmo (its `axis`, or the one that
// looks longest on screen), moves `steps` times by `pixels` along it and
// releases. Returns false when the press did not catch the arrow.
bool dragGizmoArrow(ViewportWidget* view, std::optional<viewer::GizmoAxis> axis, double pixels, int steps) {
  viewer::SceneView& scene = view->scene();
  const Isometry3d X = scene.gizmo().pose();
  const double size = scene.gizmo().size();
  const viewer::OrbitCamera& camera = view->viewport()->camera();
  const int w = view->viewport()->width();
  const int h = view->viewport()->height();
  std::optional<Eigen::Vector2d> a, b;
  double longest = -1.0;
  for (const viewer::GizmoAxis id : {viewer::GizmoAxis::X, viewer::GizmoAxis::Y, viewer::GizmoAxis::Z}) {
    if (axis && id != *axis) continue;
    const Vector3d direction = scene.gizmo().axisDirection(id);
    const auto p = camera.project(X.translation() + 0.6 * size * direction, w, h);
    const auto q = camera.project(X.translation() + 1.0 * size * direction, w, h);
    if (p && q && (*q - *p).norm() > longest) {
      longest = (*q - *p).norm();
      a = p;
      b = q;
    }
  }
  if (!a || !b) return false;
  const double ratio = view->devicePixelRatioF();
  const Eigen::Vector2d dir = (*b - *a).normalized();
  const auto widgetPoint = [ratio](const Eigen::Vector2d& p) {
    return QPoint(static_cast<int>(std::lround(p.x() / ratio)), static_cast<int>(std::lround(p.y() / ratio)));
  };
  QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, widgetPoint(*a));
  if (!view->viewport()->isDraggingGizmo()) return false;
  QPoint last;
  for (int i = 1; i <= steps; ++i) {
    last = widgetPoint(*a + pixels * i * dir);
    QTest::mouseMove(view, last);
  }
  QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, last);
  return true;
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // Settings and data folders of the test user, not the real one.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ArticulaTest");
    QCoreApplication::setApplicationName("StudioTest");
    QVERIFY(recoveryDir_.isValid());
  }

  void init() {
    asked_.clear();
    errors_.clear();
    chosenFile_.clear();
    importAsked_.clear();
    importAnswer_ = ImportChoices{};
    importAnswer_->addGroundPlane = false;
    openWindow();
  }

  void cleanup() {
    if (window_) {
      window_->document()->undoStack()->setClean();
      window_->close();
      window_.reset();
    }
  }

  // The scripted session of the issue, every number checked against the
  // recording or a headless run of the same scene.
  void scriptedSimulationSession() {
    const fs::path scene = kScenes / "four_bar.articula";
    QVERIFY(window_->openFile(QString::fromStdString(scene.string())));
    Document* doc = window_->document();
    const std::string design = doc->sceneText();
    QCOMPARE(design, readFile(scene));  // the file as it is, nothing lost

    QAction* simulate = window_->findChild<QAction*>("actionSimulate");
    QVERIFY(simulate);
    simulate->trigger();
    QVERIFY(window_->isSimulating());
    QVERIFY(doc->isLocked());
    Simulation* sim = window_->simulation();
    doc->setSelection({{ObjectKind::Joint, "four_bar/crank_joint"}});
    sim->step(1000);
    sim->waitIdle();
    QTRY_COMPARE(window_->viewportWidget()->scene().appliedSnapshot().step, std::uint64_t(1000));
    QCOMPARE(sim->status().frames, std::size_t(1001));

    // Scrub with the timeline's slider to frame 200: the viewer shows the
    // recorded state.
    auto* slider = window_->findChild<QSlider*>("timelineSlider");
    QVERIFY(slider);
    QTRY_COMPARE(slider->maximum(), 1000);
    slider->setValue(200);
    sim->waitIdle();
    QTRY_COMPARE(window_->viewportWidget()->scene().appliedSnapshot().step, std::uint64_t(200));
    const viewer::RenderSnapshot& shown = window_->viewportWidget()->scene().appliedSnapshot();
    const Recording recording = sim->recordingCopy();
    const RuntimeSnapshot frame200 = recording.snapshot(200);
    QCOMPARE(shown.positions.size(), std::size_t(frame200.state.positions.size()));
    for (std::size_t i = 0; i < shown.positions.size(); ++i) {
      QCOMPARE(shown.positions[i], frame200.state.positions[static_cast<Eigen::Index>(i)]);
      QCOMPARE(shown.velocities[i], frame200.state.velocities[static_cast<Eigen::Index>(i)]);
    }
    QCOMPARE(shown.time, frame200.state.time);
    QCOMPARE(slider->value(), 200);
    // The inspector (its form built at frame 0) shows the crank's angle of
    // the frame drawn (in degrees).
    auto* q0 = window_->inspector()->findChild<QDoubleSpinBox*>("field_q0");
    QVERIFY(q0);
    QTRY_VERIFY2(std::abs(q0->value() - frame200.state.positions[0] * 180.0 / std::numbers::pi) < 1e-9,
                 qPrintable(QString("%1 deg shown").arg(q0->value())));
    // Resume from the shown frame for 100 steps: a new branch.
    sim->step(100);
    sim->waitIdle();
    QTRY_COMPARE(window_->viewportWidget()->scene().appliedSnapshot().step, std::uint64_t(300));
    QCOMPARE(sim->status().frames, std::size_t(301));

    // The same scene run headless for 300 steps ends in the same state, bit for bit.
    World headless;
    io::loadScene(headless, scene);
    headless.step(300);
    const VectorXd q = headless.getPositions();
    const viewer::RenderSnapshot& after = window_->viewportWidget()->scene().appliedSnapshot();
    QCOMPARE(after.positions.size(), std::size_t(q.size()));
    for (std::size_t i = 0; i < after.positions.size(); ++i) {
      QCOMPARE(after.positions[i], q[static_cast<Eigen::Index>(i)]);
    }
    QCOMPARE(after.time, headless.getTime());

    // Leaving returns to the design exactly as it was.
    simulate->trigger();
    QVERIFY(!window_->isSimulating());
    QVERIFY(!doc->isLocked());
    QCOMPARE(doc->sceneText(), design);
    QVERIFY(!doc->isModified());
  }

  // File ▸ Open on a URDF robot: the import report appears and the robot
  // is drawn (the visuals layer changes the pixels where the robot is).
  // Opening a scene with actuators replaces the document's world; the
  // Controls dock then drives the simulation of the new one: its slider
  // moves the joint.
  void controlsDockDrivesTheOpenedScene() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "servo_arm.articula").string())));
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    QVERIFY(window_->document()->edit(QStringLiteral("servo"), [](World& w) {
      ops::addActuator(w, {ObjectKind::Joint, "four_bar/crank_joint"}, ActuatorType::PositionServo);
    }));
    window_->findChild<QAction*>("actionSimulate")->trigger();
    QVERIFY(window_->isSimulating());
    auto* slider = window_->findChild<QSlider*>("control_crank_joint_position");
    QVERIFY(slider != nullptr);
    slider->setValue(600);  // 0.2π rad (no limits: ±π)
    Simulation* sim = window_->simulation();
    sim->step(3000);
    sim->waitIdle();
    const Recording recording = sim->recordingCopy();
    const double q = recording.snapshot(recording.size() - 1).state.positions[0];
    // From −1 rad to near the target; the loop's links hang on the crank and
    // their weight reaches it through the closure, which its gravity
    // compensation (of its own tree) does not cover: it sags a little.
    QVERIFY2(std::abs(q - 0.2 * std::numbers::pi) < 0.1, qPrintable(QString("crank at %1 rad").arg(q)));
    window_->findChild<QAction*>("actionSimulate")->trigger();
    QVERIFY(!window_->isSimulating());
  }

  void openUrdfThroughFileAction() {
    const fs::path urdf = kModels / "ur_description" / "urdf" / "ur5_robot.urdf";
    ARTICULA_REQUIRE_MODEL(urdf);
    chosenFile_ = QString::fromStdString(urdf.string());
    QAction* open = window_->findChild<QAction*>("actionOpen");
    QVERIFY(open);
    open->trigger();
    QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join("; ")));
    QVERIFY(window_->document()->world().numMultibodies() == 1);
    // The import dialog was asked, for the file's absolute path.
    QCOMPARE(importAsked_.size(), std::size_t(1));
    QCOMPARE(importAsked_.front().first, QString::fromStdString(fs::absolute(urdf).lexically_normal().string()));
    QVERIFY(window_->importReportDialog());
    // The report window comes up only when something needs attention.
    QCOMPARE(window_->importReportDialog()->isVisible(), reportNeedsAttention(*window_->document()->importReport()));
    auto* report = window_->importReportDialog()->findChild<QPlainTextEdit*>("importReportText");
    QVERIFY(report);
    QVERIFY2(report->toPlainText().contains("ur5_robot.urdf"), qPrintable(report->toPlainText()));
    QVERIFY(window_->messagesText().contains("ur5_robot.urdf"));

    ViewportWidget* view = window_->viewportWidget();
    view->scene().setLayerVisible(viewer::Layer::Shadows, false);
    // The stats panel (its frame rate changes from frame to frame) is left
    // out of the comparison; it was drawn when the robot was framed.
    view->viewport()->setOverlayEnabled(false);
    const QImage with = view->grabView();
    view->scene().setLayerVisible(viewer::Layer::Visuals, false);
    const QImage without = view->grabView();
    view->scene().setLayerVisible(viewer::Layer::Visuals, true);
    view->viewport()->setOverlayEnabled(true);
    QRect box;
    const int robotPixels = countDifferent(with, without, &box);
    with.save(screenshotPath("studio_ur5_viewport.png"));
    QVERIFY2(robotPixels > 2000, qPrintable(QString("the robot covers %1 pixels").arg(robotPixels)));
    // Fitted: the robot is in the view, away from its edges, and fills a good part of it.
    QVERIFY2(box.width() > with.width() / 8 && box.height() > with.height() / 4,
             qPrintable(QString("robot box %1×%2").arg(box.width()).arg(box.height())));
    QVERIFY(box.left() > 0 && box.top() > 0 && box.right() < with.width() - 1 && box.bottom() < with.height() - 1);
    // Framed beside the stats panel, not under it.
    const double panelRight = view->viewport()->overlay().statsPanelRight() / view->devicePixelRatioF();
    QVERIFY2(box.left() > panelRight,
             qPrintable(QString("robot from x = %1, panel to x = %2").arg(box.left()).arg(panelRight)));
  }

  // The import dialog: its choices reach the importer and are remembered
  // for the file (offered again next time); Cancel changes nothing; a
  // window told not to ask uses the stored choices silently.
  void importDialogChoicesAreUsedAndRemembered() {
    QTemporaryDir dir;
    const QString urdf = dir.path() + "/arm.urdf";
    writeArm(urdf, false);
    ImportChoices floating;
    floating.root = io::RootAttachment::Floating;
    floating.addGroundPlane = true;
    floating.groundHeight = -0.5;
    floating.placeOnGround = false;
    floating.packagePath = {dir.path()};
    importAnswer_ = floating;
    QVERIFY(window_->openFile(urdf));
    QCOMPARE(importAsked_.size(), std::size_t(1));
    QCOMPARE(importAsked_[0].first, urdf);
    QVERIFY(importAsked_[0].second.root == io::RootAttachment::Default);  // nothing stored yet
    const io::ImportOptions& used = window_->document()->importOptions();
    QVERIFY(used.root == io::RootAttachment::Floating);
    QVERIFY(used.addGroundPlane);
    QCOMPARE(used.groundHeight, -0.5);
    QVERIFY(!used.placeOnGround);
    QCOMPARE(used.packagePath, std::vector<fs::path>{fs::path(dir.path().toStdString())});
    // A floating base: the root joint is free; the ground is there.
    const Multibody arm = window_->document()->world().getMultibodies().front();
    QVERIFY(arm.getRootLink()->getParentJoint().type() == JointType::Free);
    QVERIFY(!window_->document()->world().getCollisionShapes(Frame::World()).empty());

    // Opened again: the dialog starts from the remembered choices.
    QVERIFY(window_->openFile(urdf));
    QCOMPARE(importAsked_.size(), std::size_t(2));
    QCOMPARE(importAsked_[1].second, floating);

    // Cancel: the design stays.
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    QCOMPARE(importAsked_.size(), std::size_t(2));  // native scenes are not asked about
    const std::string design = window_->document()->sceneText();
    importAnswer_.reset();
    QVERIFY(!window_->openFile(urdf));
    QCOMPARE(window_->document()->sceneText(), design);

    // A window that does not ask (--screenshot) uses what is stored.
    MainWindowOptions options;
    options.recoveryDirectory = recoveryDir_.path();
    stubDialogs(options.dialogs);
    options.askImportChoices = false;
    MainWindow quiet(options);
    QVERIFY(quiet.openFile(urdf));
    QCOMPARE(importAsked_.size(), std::size_t(3));
    QVERIFY(quiet.document()->importOptions().root == io::RootAttachment::Floating);
    QCOMPARE(quiet.document()->importOptions().groundHeight, -0.5);
  }

  // The report window appears for couplers (a <mimic>), not for ignored
  // elements alone; its tree holds the groups, collapsed.
  void reportWindowOnlyWhenNeeded() {
    QTemporaryDir dir;
    const QString plain = dir.path() + "/plain.urdf";
    writeArm(plain, false, "<gazebo reference='base'><material>Gazebo/Grey</material></gazebo>");
    QVERIFY(window_->openFile(plain));
    QVERIFY(!window_->document()->importReport()->ignored.empty());
    QVERIFY(!window_->importReportDialog() || !window_->importReportDialog()->isVisible());
    const QString mimic = dir.path() + "/mimic.urdf";
    writeArm(mimic, true);
    QVERIFY(window_->openFile(mimic));
    QCOMPARE(window_->document()->importReport()->couplers.size(), std::size_t(1));
    QVERIFY(window_->importReportDialog());
    QTRY_VERIFY(window_->importReportDialog()->isVisible());
    auto* tree = window_->importReportDialog()->findChild<QTreeWidget*>("importReportTree");
    QVERIFY(tree);
    QCOMPARE(tree->topLevelItem(0)->text(0), QString("1 coupler"));
    QVERIFY(!tree->topLevelItem(0)->isExpanded());
    QTest::qWait(100);
    QVERIFY(window_->importReportDialog()->grab().save(screenshotPath("studio_import_report.png")));
    window_->importReportDialog()->hide();
  }

  // Reload from Disk reads the edited file again with the same choices and
  // leaves the camera where it was.
  void reloadFromDiskKeepsTheChoices() {
    QTemporaryDir dir;
    const QString urdf = dir.path() + "/arm.urdf";
    writeArm(urdf, false);
    ImportChoices floating;
    floating.root = io::RootAttachment::Floating;
    floating.addGroundPlane = false;
    importAnswer_ = floating;
    QVERIFY(window_->openFile(urdf));
    QCOMPARE(window_->document()->world().getMultibodies().front().numLinks(), std::size_t(2));
    viewer::OrbitCamera& camera = window_->viewportWidget()->viewport()->camera();
    camera.orbit(40, 10);
    const Vector3d eye = camera.pose().eye;
    writeArm(urdf, true);  // the author adds a link
    QAction* reload = window_->findChild<QAction*>("actionReload");
    QVERIFY(reload && reload->isEnabled());
    reload->trigger();
    QCOMPARE(importAsked_.size(), std::size_t(1));  // not asked again
    const Multibody arm = window_->document()->world().getMultibodies().front();
    QCOMPARE(arm.numLinks(), std::size_t(3));
    QVERIFY(arm.getRootLink()->getParentJoint().type() == JointType::Free);
    QVERIFY((camera.pose().eye - eye).norm() < 1e-12);
    QVERIFY(window_->messagesText().contains("Reloaded"));
  }

  // Insert Model adds a file's model at the chosen place as one undo step;
  // Create ▸ Ground Plane likewise.
  void insertModelAndGroundPlane() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    World& before = window_->document()->world();
    const std::size_t multibodies = before.numMultibodies();
    const std::string design = window_->document()->sceneText();
    const Isometry3d X_crank = before.getMultibodies().front().getRootLink()->getWorldTransform();
    QVERIFY(window_->insertModel(QString::fromStdString((kScenes / "four_bar.articula").string()),
                                 Vector3d(0.0, 1.5, 0.0)));
    World& w = window_->document()->world();
    QCOMPARE(w.numMultibodies(), 2 * multibodies);
    const Multibody copy = w.getMultibodies().back();
    const Isometry3d X = copy.getRootLink()->getWorldTransform();
    QVERIFY((X.translation() - X_crank.translation() - Vector3d(0.0, 1.5, 0.0)).norm() < 1e-12);
    QCOMPARE(window_->document()->selection().size(), multibodies);
    window_->findChild<QAction*>("actionUndo")->trigger();
    QCOMPARE(window_->document()->sceneText(), design);

    const std::size_t shapes = window_->document()->world().getCollisionShapes(Frame::World()).size();
    window_->findChild<QAction*>("actionCreateGroundPlane")->trigger();
    QCOMPARE(window_->document()->world().getCollisionShapes(Frame::World()).size(), shapes + 1);
    window_->findChild<QAction*>("actionUndo")->trigger();
    QCOMPARE(window_->document()->sceneText(), design);
  }

  // F, W and E work while the scene tree has the focus (its type-ahead does
  // not take them); a text field still types the letter.
  void viewShortcutsWorkAnywhere() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    QTreeView* tree = window_->sceneTree();
    tree->setFocus();
    QTRY_VERIFY(tree->hasFocus());
    QTest::keyClick(tree, Qt::Key_E);
    QVERIFY(window_->findChild<QAction*>("actionRotate")->isChecked());
    QTest::keyClick(tree, Qt::Key_W);
    QVERIFY(window_->findChild<QAction*>("actionTranslate")->isChecked());
    viewer::OrbitCamera& camera = window_->viewportWidget()->viewport()->camera();
    camera.setDistance(100.0);
    QTest::keyClick(tree, Qt::Key_F);
    QVERIFY2(camera.distance() < 50.0, qPrintable(QString::number(camera.distance())));

    auto* edit = new QLineEdit(window_.get());
    edit->show();
    edit->setFocus();
    QTRY_VERIFY(edit->hasFocus());
    QTest::keyClick(edit, Qt::Key_E);
    QCOMPARE(edit->text(), QString("e"));
    QVERIFY(window_->findChild<QAction*>("actionTranslate")->isChecked());
    delete edit;
  }

  // The stats panel shows a simulation's numbers while it runs only: not
  // in design mode after leaving it, not after New or Open.
  void statsOverlayForgetsAFinishedSimulation() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    viewer::Overlay& overlay = window_->viewportWidget()->viewport()->overlay();
    QVERIFY(!overlay.hasFeed());
    QVERIFY(window_->enterSimulation());
    window_->simulation()->step(100);
    window_->simulation()->waitIdle();
    QTRY_VERIFY(overlay.hasFeed());
    window_->leaveSimulation();
    QVERIFY(!overlay.hasFeed());
    QVERIFY(window_->enterSimulation());
    window_->simulation()->step(10);
    window_->simulation()->waitIdle();
    QTRY_VERIFY(overlay.hasFeed());
    window_->findChild<QAction*>("actionSimulate")->trigger();  // leave
    QVERIFY(!window_->isSimulating());
    window_->findChild<QAction*>("actionNew")->trigger();
    QVERIFY(!overlay.hasFeed());
  }

  // File > Export Run to HDF5 writes the recorded frames; h5dump reads them back.
  void exportRunToHdf5() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    QAction* action = window_->findChild<QAction*>("actionExportHdf5");
    QVERIFY(action && !action->isEnabled());
    QTemporaryDir dir;
    const QString path = dir.filePath("run.h5");
    QVERIFY(!window_->exportRunToHdf5(path));  // design mode: nothing to export
    QVERIFY(window_->enterSimulation());
    QVERIFY(action->isEnabled());
    window_->simulation()->step(150);
    window_->simulation()->waitIdle();
    const std::size_t frames = window_->simulation()->recordingCopy().size();
    QVERIFY(frames >= 100);
    QVERIFY(window_->exportRunToHdf5(path));
    auto dump = [&](const QString& dataset) {
      QProcess p;
      p.start("h5dump", {"-d", dataset, "-m", "%.17g", "-y", "-w", "0", path});
      if (!p.waitForFinished() || p.exitCode() != 0) return std::vector<double>{};
      const QString out = QString::fromUtf8(p.readAllStandardOutput());
      const qsizetype start = out.indexOf("DATA {") + 6;
      std::vector<double> values;
      for (const QString& x :
           out.mid(start, out.indexOf('}', start) - start).split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts)) {
        values.push_back(x.toDouble());
      }
      return values;
    };
    const std::vector<double> t = dump("/t");
    QCOMPARE(t.size(), frames);
    QCOMPARE(t.front(), 0.0);
    // The same run headless gives the same numbers, bit for bit.
    QCOMPARE(frames, std::size_t{151});
    QProcess run;
    run.start(ARTICULA_RUN_EXE, {"run", QString::fromStdString((kScenes / "four_bar.articula").string()), "--steps",
                                 "150", "--csv", dir.filePath("run.csv"), "--log", "all", "--quiet"});
    QVERIFY(run.waitForFinished() && run.exitCode() == 0);
    QFile csv(dir.filePath("run.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(static_cast<std::size_t>(lines.size()), frames + 1);
    const std::vector<double> q = dump("/q");
    QCOMPARE(q.size(), frames * 3);
    for (std::size_t row = 0; row < frames; ++row) {
      const QStringList fields = lines[static_cast<qsizetype>(row) + 1].split(',');
      QCOMPARE(t[row], fields[0].toDouble());
      for (std::size_t k = 0; k < 3; ++k) QCOMPARE(q[3 * row + k], fields[static_cast<qsizetype>(k) + 1].toDouble());
    }
    // The step outputs too: the joint reactions of every frame (3 joints × 6).
    const QStringList header = lines[0].split(',');
    const qsizetype first = header.indexOf(QString("reaction:four_bar/crank_joint:fx"));
    QVERIFY(first > 0);
    const std::vector<double> reactions = dump("/reaction");
    QCOMPARE(reactions.size(), frames * 18);
    double largest = 0.0;
    for (std::size_t row = 0; row < frames; ++row) {
      const QStringList fields = lines[static_cast<qsizetype>(row) + 1].split(',');
      for (std::size_t k = 0; k < 18; ++k) {
        const double expected = fields[first + static_cast<qsizetype>(k)].toDouble();
        QCOMPARE(reactions[18 * row + k], expected);
        largest = std::max(largest, std::abs(expected));
      }
    }
    QVERIFY(largest > 1.0);  // the crank carries the linkage's weight
    QCOMPARE(dump("/residual").size(), frames * window_->document()->world().numLoopClosures());
    QVERIFY(window_->messagesText().contains("recorded frames to"));
    window_->leaveSimulation();
  }

  // Right-click > Plot in the scene tree adds the object's quantities to
  // the Plots dock; clicking the plot scrubs the timeline.
  void plotFromTheSceneTree() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "servo_arm.articula").string())));
    auto* dock = window_->findChild<QDockWidget*>("plotsDock");
    QVERIFY(dock);
    QVERIFY(window_->findChild<QAction*>("actionPlotPanel"));
    const ObjectRef joint{ObjectKind::Joint, "arm/elbow"};
    {
      QMenu menu;
      window_->fillTreeContextMenu(&menu, joint);  // design mode: nothing to plot yet
      auto* plot = menu.findChild<QMenu*>("menuPlotObject");
      QVERIFY(plot && !plot->isEnabled());
    }
    QVERIFY(window_->enterSimulation());
    window_->simulation()->step(500);
    window_->simulation()->waitIdle();
    PlotPanel* panel = window_->plotPanel();
    QTRY_VERIFY(!panel->availableColumns().isEmpty());
    QMenu menu;
    window_->fillTreeContextMenu(&menu, joint);
    auto* plot = menu.findChild<QMenu*>("menuPlotObject");
    QVERIFY(plot && plot->isEnabled());
    QAction* q = nullptr;
    for (QAction* a : plot->findChildren<QAction*>()) {
      if (a->text() == "q:elbow") q = a;
    }
    QVERIFY(q);
    q->trigger();
    QCOMPARE(panel->series(), QStringList{"q:elbow"});
    QVERIFY(dock->isVisible());
    QTRY_COMPARE(panel->points("q:elbow").size(), std::size_t(501));
    // A click at t = 0.25 s shows the frame recorded then.
    PlotCanvas* canvas = panel->canvas();
    QTRY_VERIFY(canvas->width() > 100);
    const int x = static_cast<int>(std::lround(canvas->xOfTime(0.25)));
    QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(x, canvas->height() / 2));
    window_->simulation()->waitIdle();
    QTRY_VERIFY(window_->simulation()->status().shownFrame.has_value());
    const std::size_t shown = *window_->simulation()->status().shownFrame;
    QCOMPARE(shown, static_cast<std::size_t>(std::lround(canvas->timeOfX(x) / 0.001)));
    window_->leaveSimulation();
    QVERIFY(panel->availableColumns().isEmpty());
    dock->hide();
  }

  // View > Viewpoints: Save Current View keeps the camera in the design (one
  // undo step), choosing one moves the camera there, the file keeps them and
  // a scene opens in its first one.
  void viewpointsAreSavedAndOpenedWith() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    viewer::Viewport* vp = window_->viewportWidget()->viewport();
    QVERIFY(vp);
    vp->camera().setView(Vector3d(0.3, -2.5, 1.1), Vector3d(0.05, 0.0, 0.15));
    vp->camera().setFieldOfView(35.0);
    const viewer::CameraPose saved = vp->camera().pose();
    auto* menu = window_->findChild<QMenu*>("menuViewpoints");
    QVERIFY(menu);
    emit menu->aboutToShow();
    QAction* save = menu->findChild<QAction*>("actionSaveViewpoint");
    QVERIFY(save && save->isEnabled());
    textAnswer_ = QString("front_left");
    save->trigger();
    QCOMPARE(asked_.back(), QString("view_1"));  // the suggested name
    const auto view = window_->document()->world().getViewpoint("front_left");
    QVERIFY(view);
    QVERIFY((view->eye - saved.eye).norm() < 1e-12);
    QVERIFY((view->center - saved.center).norm() < 1e-12);
    QCOMPARE(view->fovYDegrees, 35.0);
    QCOMPARE(window_->document()->undoStack()->undoText(), QString("Save viewpoint front_left"));
    window_->document()->undoStack()->undo();
    QVERIFY(!window_->document()->world().getViewpoint("front_left"));
    window_->document()->undoStack()->redo();
    QVERIFY(window_->document()->world().getViewpoint("front_left"));

    // Elsewhere, then back through the menu.
    window_->findChild<QAction*>("actionFit")->trigger();
    vp->camera().setFieldOfView(45.0);
    QVERIFY((vp->camera().pose().eye - saved.eye).norm() > 1e-3);
    emit menu->aboutToShow();
    QAction* go = menu->findChild<QAction*>("actionViewpoint_front_left");
    QVERIFY(go);
    go->trigger();
    QVERIFY((vp->camera().pose().eye - saved.eye).norm() < 1e-9);
    QCOMPARE(vp->camera().fieldOfView(), 35.0);

    // The file keeps it; opening the file shows it.
    QTemporaryDir dir;
    const QString path = dir.filePath("views.articula");
    QVERIFY(window_->saveTo(path));
    window_->findChild<QAction*>("actionFit")->trigger();
    QVERIFY(window_->openFile(path));
    vp = window_->viewportWidget()->viewport();
    QVERIFY((vp->camera().pose().eye - saved.eye).norm() < 1e-9);
    // Deleting is one undo step too.
    QVERIFY(window_->deleteViewpoint("front_left"));
    QVERIFY(window_->document()->world().getViewpoints().empty());
    window_->document()->undoStack()->undo();
    QCOMPARE(window_->document()->world().getViewpoints().size(), std::size_t{1});
    // Not while simulating; going there still works.
    QVERIFY(window_->enterSimulation());
    QVERIFY(!window_->saveViewpoint("another"));
    QVERIFY(window_->goToViewpoint("front_left"));
    window_->leaveSimulation();
  }

  // Export Video on the timeline renders the recorded frames through articula-run.
  // File > Export As writes URDF, SDF and MJCF by extension; each reads
  // back into a world with the same joints, and what a format cannot hold
  // is reported, not dropped silently.
  void exportAsEveryFormat() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    QVERIFY(window_->findChild<QAction*>("actionExportAs") != nullptr);
    const World& design = window_->document()->world();
    QTemporaryDir dir;
    for (const char* name : {"four_bar.urdf", "four_bar.sdf", "four_bar.xml"}) {
      const QString path = dir.filePath(name);
      QVERIFY2(window_->exportAs(path), name);
      QVERIFY(QFileInfo::exists(path));
      World back;
      io::ImportOptions o;
      o.useEnvironmentPaths = false;
      io::importFile(back, path.toStdString(), o);
      QCOMPARE(back.numDofs(), design.numDofs());
      // Every closure comes back (MJCF writes a hinge as two connects), or
      // the report says why it could not be written; what comes back holds.
      std::size_t reported = 0;
      for (const io::ExportEntry& e : window_->lastExportReport().notExported) {
        reported += e.object.rfind("closure", 0) == 0 ? 1 : 0;
      }
      QVERIFY2(back.numLoopClosures() + reported >= design.numLoopClosures(), name);
      for (const LoopClosure& c : back.getLoopClosures()) QVERIFY2(c.computeResidualNorm() < 1e-6, name);
      QVERIFY(window_->messagesText().contains("Exported " + path));
    }
    // An extension no writer has is refused with a message, and nothing is written.
    chosenFile_ = dir.filePath("four_bar.dae");
    window_->findChild<QAction*>("actionExportAs")->trigger();
    QCOMPARE(errors_.size(), 1);
    QVERIFY(errors_.front().contains(".urdf"));
    QVERIFY(!QFileInfo::exists(dir.filePath("four_bar.dae")));
  }

  void exportVideo() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    QVERIFY(window_->enterSimulation());
    window_->simulation()->step(1000);
    window_->simulation()->waitIdle();
    QTemporaryDir dir;
    const QString path = dir.filePath("four_bar.mp4");
    qputenv("ARTICULA_RUN", ARTICULA_RUN_EXE);
    MainWindow::VideoOptions o;
    o.width = 320;
    o.height = 240;
    o.fps = 20;
    o.follow = "four_bar/coupler";
    QVERIFY(window_->exportVideo(path, o));
    QProcess probe;
    probe.start("ffprobe", {"-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                            "stream=nb_read_frames,width,height", "-of", "csv=p=0", path});
    QVERIFY(probe.waitForFinished() && probe.exitCode() == 0);
    // 1 s of recording at 20 frames per second.
    QCOMPARE(QString::fromUtf8(probe.readAllStandardOutput()).trimmed(), QString("320,240,20"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"four_bar.mp4"});
    QVERIFY(window_->messagesText().contains("Exported the video"));
    o.follow = "nosuch";
    QVERIFY(!window_->exportVideo(dir.filePath("bad.mp4"), o));
    QVERIFY(window_->messagesText().contains("--follow: no link 'nosuch'") ||
            window_->messagesText().contains("nosuch"));
    window_->leaveSimulation();
  }

  // View > Save Screenshot writes the 3D view as a PNG of the view's size.
  void saveScreenshot() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    QAction* action = window_->findChild<QAction*>("actionScreenshot");
    QVERIFY(action && action->shortcut() == QKeySequence("F12"));
    QTemporaryDir dir;
    const QString path = dir.filePath("view.png");
    QVERIFY(window_->saveScreenshot(path));
    QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), window_->viewportWidget()->grabView().size());
    // Not blank: besides the background colour (a corner's), a fair share of other pixels.
    const QRgb background = image.pixel(0, 0);
    int other = 0, all = 0;
    for (int y = 0; y < image.height(); y += 4) {
      for (int x = 0; x < image.width(); x += 4, ++all) other += image.pixel(x, y) != background ? 1 : 0;
    }
    QVERIFY2(other > all / 50, qPrintable(QString("%1 of %2 pixels differ from the background").arg(other).arg(all)));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"view.png"});
    QVERIFY(!window_->saveScreenshot(dir.filePath("missing/view.png")));
  }

  // Without a display the studio says so in one line and exits 2.
  void noDisplayIsOneLine() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    const test::RunResult run = test::runProgram(ARTICULA_STUDIO_EXE, {}, env);
    QVERIFY(!run.crashed);
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    QVERIFY2(run.err.contains("xvfb-run") && run.err.contains("DISPLAY"), qPrintable(run.err));
  }

  // A picture of the import dialog (for the documentation and a look).
  void importDialogPicture() {
    ImportChoices choices;
    choices.packagePath = {QString::fromStdString((kModels / "..").lexically_normal().string())};
    ImportDialog dialog(QString::fromStdString((kModels / "ur_description" / "urdf" / "ur5_robot.urdf").string()),
                        choices, window_.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QImage image = dialog.grab().toImage();
    QVERIFY(image.save(screenshotPath("studio_import_dialog.png")));
    // Not a blank window: the text and fields give many colours.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2) {
      for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
    }
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
  }

  // A replay of another scene's layout is refused with the layout message;
  // nothing changes. One of the same scene is loaded and shown.
  void replayOfAnotherLayoutIsRefused() {
    QTemporaryDir dir;
    const fs::path otherReplay = fs::path(dir.path().toStdString()) / "box_stack.replay";
    {
      World w;
      io::loadScene(w, kScenes / "box_stack.articula");
      Recorder recorder(w);
      w.step(20);
      recorder.recording().save(otherReplay);
    }
    const fs::path ownReplay = fs::path(dir.path().toStdString()) / "four_bar.replay";
    {
      World w;
      io::loadScene(w, kScenes / "four_bar.articula");
      Recorder recorder(w);
      w.step(50);
      recorder.recording().save(ownReplay);
    }
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    const std::string design = window_->document()->sceneText();
    QVERIFY(!window_->loadReplay(QString::fromStdString(otherReplay.string())));
    QCOMPARE(errors_.size(), 1);
    QVERIFY2(errors_.front().contains("layout", Qt::CaseInsensitive), qPrintable(errors_.front()));
    QVERIFY(!window_->isSimulating());
    QCOMPARE(window_->document()->sceneText(), design);

    QVERIFY(window_->openFile(QString::fromStdString(ownReplay.string())));
    QVERIFY(window_->isSimulating());
    window_->simulation()->waitIdle();
    QCOMPARE(window_->simulation()->status().frames, std::size_t(51));
    window_->leaveSimulation();
    QCOMPARE(window_->document()->sceneText(), design);
  }

  // A file dropped on the window is opened.
  void droppedFileIsOpened() {
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(QString::fromStdString((kScenes / "slider_crank.articula").string()))});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &drop);
    QCOMPARE(window_->document()->displayName(), QString("slider_crank.articula"));
    delete mime;
  }

  // Closing with unsaved changes asks; Cancel keeps the window and the design.
  void unsavedChangesAreAskedAbout() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    window_->findChild<QAction*>("actionCreateBody_box")->trigger();
    QVERIFY(window_->document()->isModified());
    QVERIFY(window_->document()->world().numRigidBodies() == 1);
    answer_ = QMessageBox::Cancel;
    QVERIFY(!window_->close());
    QCOMPARE(asked_.size(), 1);
    QVERIFY(window_->isVisible());
    QVERIFY(!window_->openFile(QString::fromStdString((kScenes / "box_stack.articula").string())));
    QCOMPARE(window_->document()->world().numRigidBodies(), std::size_t(1));
    // Undo through the Edit menu's action takes the body away again.
    window_->findChild<QAction*>("actionUndo")->trigger();
    QCOMPARE(window_->document()->world().numRigidBodies(), std::size_t(0));
    answer_ = QMessageBox::Discard;
  }

  // Dragging the gizmo of a link turns that link's joint; the closed loop
  // follows (the other joints move, the closure stays closed), and the drag
  // is one undo step that puts back the design exactly.
  void gizmoDragMovesALinkAndTheLoopFollows() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    Document* doc = window_->document();
    const std::string design = doc->sceneText();
    const ObjectRef crankRef{ObjectKind::Link, "four_bar/crank"};
    doc->setSelection({crankRef});
    ViewportWidget* view = window_->viewportWidget();
    view->grabView();  // the gizmo takes its size from the camera when drawn
    viewer::SceneView& scene = view->scene();
    QVERIFY(scene.isGizmoVisible());
    const Link crank = *findLink(doc->world(), crankRef);
    const Isometry3d X = crank.getWorldTransform();
    QVERIFY(scene.gizmo().pose().isApprox(X, 1e-12));
    // The z arrow is tangent to the circle the crank's centre of mass
    // moves on (rotation about y): dragging along it turns the crank.
    const int undoBefore = doc->undoStack()->count();
    const double q0 = crank.getParentJoint().getPosition(0);
    const VectorXd allBefore = doc->world().getPositions();
    QVERIFY2(dragGizmoArrow(view, viewer::GizmoAxis::Z, 8.0, 6), "the press did not catch the gizmo's z arrow");
    const double q1 = findLink(doc->world(), crankRef)->getParentJoint().getPosition(0);
    QVERIFY2(std::abs(q1 - q0) > 0.02, qPrintable(QString("the crank turned by %1 rad").arg(q1 - q0)));
    // The rest of the loop moved with it and the loop is closed.
    const VectorXd allAfter = doc->world().getPositions();
    QVERIFY(std::abs(allAfter[1] - allBefore[1]) > 1e-3);
    QVERIFY(std::abs(allAfter[2] - allBefore[2]) > 1e-3);
    QVERIFY2(doc->maxClosureResidual() < 1e-8, qPrintable(QString::number(doc->maxClosureResidual())));
    QCOMPARE(doc->undoStack()->count(), undoBefore + 1);
    QVERIFY(doc->isModified());
    window_->findChild<QAction*>("actionUndo")->trigger();
    QCOMPARE(doc->sceneText(), design);
    window_->findChild<QAction*>("actionRedo")->trigger();
    QCOMPARE(findLink(doc->world(), crankRef)->getParentJoint().getPosition(0), q1);
  }

  // Whole-body inverse kinematics: dragging TALOS's left gripper with both
  // soles pinned moves the arm and the torso, keeps the feet where they
  // were, respects the joint limits and is one undo step.
  void ikDragWithPinnedFeet() {
    const fs::path urdf = kModels / "talos_data" / "robots" / "talos_reduced.urdf";
    ARTICULA_REQUIRE_MODEL(urdf);
    importAnswer_->root = io::RootAttachment::Floating;
    QVERIFY(window_->openFile(QString::fromStdString(urdf.string())));
    Document* doc = window_->document();
    const ObjectRef hand{ObjectKind::Link, "talos/gripper_left_base_link"};
    const ObjectRef leftSole{ObjectKind::Link, "talos/left_sole_link"};
    const ObjectRef rightSole{ObjectKind::Link, "talos/right_sole_link"};
    QVERIFY(findLink(doc->world(), hand) && findLink(doc->world(), leftSole) && findLink(doc->world(), rightSole));
    doc->setSelection({leftSole, rightSole});
    window_->findChild<QAction*>("actionPinSelected")->trigger();
    QVERIFY(doc->isPinned(leftSole) && doc->isPinned(rightSole));
    const Isometry3d leftAt = findLink(doc->world(), leftSole)->getWorldTransform();
    const Isometry3d rightAt = findLink(doc->world(), rightSole)->getWorldTransform();
    doc->setSelection({hand});
    ViewportWidget* view = window_->viewportWidget();
    view->grabView();
    viewer::SceneView& scene = view->scene();
    QVERIFY(scene.isGizmoVisible());
    const Isometry3d X = findLink(doc->world(), hand)->getWorldTransform();
    const int undoBefore = doc->undoStack()->count();
    const VectorXd before = doc->world().getPositions();
    QVERIFY2(dragGizmoArrow(view, std::nullopt, 6.0, 6), "the press did not catch a gizmo arrow");
    const World& world = doc->world();
    const double moved = (findLink(world, hand)->getWorldTransform().translation() - X.translation()).norm();
    QVERIFY2(moved > 0.01, qPrintable(QString("the hand moved %1 m").arg(moved)));
    const double feet = std::max((findLink(world, leftSole)->getWorldTransform().matrix() - leftAt.matrix()).norm(),
                                 (findLink(world, rightSole)->getWorldTransform().matrix() - rightAt.matrix()).norm());
    QVERIFY2(feet <= 1e-9, qPrintable(QString("the feet moved %1").arg(feet)));
    // The arm and the torso moved, not one joint.
    const Multibody mb = *world.getMultibody("talos");
    auto change = [&](const std::string& joint) {
      const Joint j = *mb.getJoint(joint);
      return std::abs(world.getPositions()[j.positionOffset()] - before[j.positionOffset()]);
    };
    double arm = 0.0;
    for (int k = 1; k <= 7; ++k) arm += change("arm_left_" + std::to_string(k) + "_joint") > 1e-6 ? 1 : 0;
    QVERIFY2(arm >= 3, qPrintable(QString("%1 arm joints moved").arg(arm)));
    QVERIFY2(change("torso_1_joint") > 1e-6 || change("torso_2_joint") > 1e-6, "the torso did not move");
    for (const Joint& j : mb.getJoints()) {
      const JointSpec s = j.getSpec();
      for (int k = 0; k < s.positionLowerLimits.size(); ++k) {
        const double x = world.getPositions()[j.positionOffset() + k];
        QVERIFY2(x >= s.positionLowerLimits[k] && x <= s.positionUpperLimits[k], j.name().c_str());
      }
    }
    QCOMPARE(doc->undoStack()->count(), undoBefore + 1);
    window_->findChild<QAction*>("actionUndo")->trigger();
    QCOMPARE(doc->world().getPositions(), before);
  }

  // In simulation mode a link drag solves the same inverse kinematics and
  // sets the position servos' targets: the simulated arm follows.
  void simulationDragSetsServoTargets() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "keyframe_arm.articula").string())));
    Document* doc = window_->document();
    QVERIFY(doc->edit("no schedules", [](World& w) {
      for (const ScheduleSpec& s : w.getSchedules()) w.removeSchedule(s.name);
    }));
    window_->findChild<QAction*>("actionSimulate")->trigger();
    QVERIFY(window_->isSimulating());
    Simulation* sim = window_->simulation();
    sim->step(10);
    sim->waitIdle();
    const ObjectRef fore{ObjectKind::Link, "arm/fore"};
    doc->setSelection({fore});
    ViewportWidget* view = window_->viewportWidget();
    QTRY_VERIFY(view->scene().isGizmoVisible());
    view->grabView();
    const double shoulder0 = *sim->control("shoulder_servo");
    const double elbow0 = *sim->control("elbow_servo");
    QVERIFY2(dragGizmoArrow(view, viewer::GizmoAxis::Z, 8.0, 6), "the press did not catch the gizmo's z arrow");
    const double shoulder1 = *sim->control("shoulder_servo");
    const double elbow1 = *sim->control("elbow_servo");
    QVERIFY2(std::abs(shoulder1 - shoulder0) + std::abs(elbow1 - elbow0) > 0.02,
             qPrintable(QString("targets %1 %2 -> %3 %4").arg(shoulder0).arg(elbow0).arg(shoulder1).arg(elbow1)));
    // The simulated arm goes there.
    const std::uint64_t from = view->scene().appliedSnapshot().step;
    sim->step(1500);
    sim->waitIdle();
    QTRY_VERIFY(view->scene().appliedSnapshot().step >= from + 1500);
    const double shoulder = *sim->shownJointPosition({ObjectKind::Joint, "arm/shoulder"}, 0);
    const double elbow = *sim->shownJointPosition({ObjectKind::Joint, "arm/elbow"}, 0);
    QVERIFY2(std::abs(shoulder - shoulder1) < 0.02 && std::abs(elbow - elbow1) < 0.02,
             qPrintable(QString("at %1 %2, targets %3 %4").arg(shoulder).arg(elbow).arg(shoulder1).arg(elbow1)));
    window_->findChild<QAction*>("actionSimulate")->trigger();
    QVERIFY(!window_->isSimulating());
  }

  // Keyframes in the studio: capture, apply (undoable), and a keyframe
  // sequence becomes the servos' schedules.
  void keyframesCaptureApplyAndSchedule() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "keyframe_arm.articula").string())));
    Document* doc = window_->document();
    QCOMPARE(doc->world().getKeyframes().size(), std::size_t(3));
    // The strip lists them in time order.
    auto* strip = window_->findChild<QToolBar*>("keyframeStrip");
    QVERIFY(strip);
    QAction* reach = strip->findChild<QAction*>("keyframe_reach");
    QVERIFY(reach == nullptr || reach->isEnabled());
    bool found = false;
    for (QAction* a : strip->actions()) {
      if (a->objectName() == "keyframe_reach") {
        a->trigger();
        found = true;
      }
    }
    QVERIFY(found);
    QCOMPARE(doc->world().getPositions(), (VectorXd(2) << 0.8, -0.6).finished());
    window_->findChild<QAction*>("actionUndo")->trigger();
    QCOMPARE(doc->world().getPositions(), (VectorXd(2) << 0.0, 0.0).finished());
    // Capture the current pose: a fourth keyframe, one second after the last.
    VectorXd q(2);
    q << 0.3, 0.4;
    doc->setPositions("pose", q);
    window_->findChild<QAction*>("actionCaptureKeyframe")->trigger();
    const std::vector<KeyframeSpec> keys = doc->world().getKeyframes();
    QCOMPARE(keys.size(), std::size_t(4));
    QCOMPARE(keys.back().q, q);
    QCOMPARE(keys.back().time, 3.0);
    QCOMPARE(doc->current(), (ObjectRef{ObjectKind::Keyframe, keys.back().name}));
    // Schedules from all four: each servo's schedule ends at the new pose.
    window_->findChild<QAction*>("actionKeyframeSchedules")->trigger();
    QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join("; ")));
    for (const ScheduleSpec& s : doc->world().getSchedules()) {
      QCOMPARE(s.keyframes.size(), std::size_t(4));
      QCOMPARE(s.keyframes.back().first, 3.0);
    }
    // Undo takes the capture's schedules back in one step.
    window_->findChild<QAction*>("actionUndo")->trigger();
    QCOMPARE(doc->world().getSchedules().front().keyframes.size(), std::size_t(3));
  }

  // Export for headless run writes the design as it is and names the
  // articula-run command, which runs it; the opened file is in Open Recent.
  void exportForHeadlessRunAndRecentFiles() {
    const QString scene = QString::fromStdString((kScenes / "slider_crank.articula").string());
    QVERIFY(window_->openFile(scene));
    auto* recent = window_->findChild<QMenu*>("recentMenu");
    QVERIFY(recent);
    QVERIFY(!recent->actions().isEmpty());
    QCOMPARE(recent->actions().front()->data().toString(), QFileInfo(scene).absoluteFilePath());
    QTemporaryDir dir;
    const QString out = dir.path() + "/exported.articula";
    QVERIFY(window_->exportForHeadlessRun(out));
    QCOMPARE(readFile(out.toStdString()), window_->document()->sceneText());
    QVERIFY(window_->messagesText().contains("articula-run run \"" + out + "\""));
    QVERIFY(!window_->document()->isModified());
    QCOMPARE(window_->document()->displayName(), QString("slider_crank.articula"));
    const test::RunResult run = test::runProgram(ARTICULA_RUN_EXE, {"run", out, "--steps", "50", "--quiet"});
    QVERIFY2(run.exitCode == 0 && !run.crashed, qPrintable(run.err));
  }

  // The executable the README launches opens the default scene and draws it.
  void studioExecutableOpensTheDefaultScene() {
    QTemporaryDir dir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CONFIG_HOME", dir.path() + "/config");
    env.insert("XDG_DATA_HOME", dir.path() + "/data");
    const QString png = dir.path() + "/studio.png";
    const test::RunResult run = test::runProgram(ARTICULA_STUDIO_EXE, {"--screenshot", png}, env);
    QVERIFY2(run.exitCode == 0 && !run.crashed, qPrintable(run.err));
    QImage image(png);
    QVERIFY(!image.isNull());
    // The four-bar's three link colours (scenes/four_bar.articula: crank
    // red, coupler blue, rocker green) are in the viewport's part of the
    // window (between the docks; the status bar's green mode label is below).
    int red = 0, blue = 0, green = 0;
    for (int y = image.height() / 10; y < image.height() * 78 / 100; ++y) {
      for (int x = image.width() / 5; x < image.width() * 72 / 100; ++x) {
        const QColor c = image.pixelColor(x, y);
        if (c.red() > 90 && c.red() > 2 * c.green() && c.red() > 2 * c.blue()) ++red;
        if (c.blue() > 120 && c.blue() > 1.4 * c.red() && c.blue() > 1.2 * c.green()) ++blue;
        if (c.green() > 50 && c.green() > 1.5 * c.red() && c.green() > 1.5 * c.blue()) ++green;
      }
    }
    QVERIFY2(red > 50 && blue > 200 && green > 200,
             qPrintable(QString("red %1 blue %2 green %3").arg(red).arg(blue).arg(green)));
  }

  // --screenshot with a file that cannot be opened never waits for a
  // dialog: the error goes to stderr and the exit code is 2.
  void screenshotOfABadFileExitsWithTwo_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("malformed") << "<articula version=\"1\"><options"
                               << "malformed XML";
    QTest::newRow("misspelt attribute") << "<articula version=\"1\"><options gravity=\"0 0 -9.81\" time_step=\"0.001\" "
                                           "integrator=\"rk4\" stifness=\"1\"/></articula>"
                                        << "unknown attribute 'stifness'";
    QTest::newRow("FIFO") << QString() << "is a FIFO, not a file";
  }

  void screenshotOfABadFileExitsWithTwo() {
    QFETCH(QString, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CONFIG_HOME", dir.path() + "/config");
    env.insert("XDG_DATA_HOME", dir.path() + "/data");
    const QString bad = dir.path() + "/bad.articula";
    if (content.isEmpty()) {
      QVERIFY(::mkfifo(bad.toLocal8Bit().constData(), 0644) == 0);
    } else {
      QFile f(bad);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(content.toUtf8());
    }
    const QString png = dir.path() + "/shot.png";
    QElapsedTimer clock;
    clock.start();
    const test::RunResult run = test::runProgram(ARTICULA_STUDIO_EXE, {bad, "--screenshot", png}, env);
    QVERIFY2(!run.crashed, qPrintable(run.err));
    QVERIFY2(clock.elapsed() < 60000, "the studio waited");
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(expected), qPrintable(run.err));
    QVERIFY(!QFileInfo::exists(png));
  }

  // While simulating, Ctrl + left drag on a body pulls it toward the
  // cursor with a spring; releasing lets go.
  void ctrlDragPullsABody() {
    window_->findChild<QAction*>("actionNew")->trigger();
    Document* doc = window_->document();
    QVERIFY(doc->edit("no gravity", [](World& w) { w.setGravity(Vector3d::Zero()); }));
    window_->findChild<QAction*>("actionCreateBody_box")->trigger();
    QCOMPARE(doc->world().numRigidBodies(), std::size_t(1));
    ViewportWidget* view = window_->viewportWidget();
    view->fitToScene();
    QVERIFY(window_->enterSimulation());
    Simulation* sim = window_->simulation();
    sim->waitIdle();
    // The simulation's first snapshot is drawn as soon as it starts.
    QVERIFY(view->scene().appliedSnapshot().stats.simulationMode);
    view->grabView();
    const auto& description = *sim->description();
    std::size_t body = 0;
    while (body < description.bodies.size() && description.bodies[body].name != "body") ++body;
    QVERIFY(body < description.bodies.size());
    const Isometry3d X0 = view->scene().appliedSnapshot().bodyPoses[body];
    viewer::Viewport& vp = *view->viewport();
    const std::optional<Eigen::Vector2d> p = vp.camera().project(X0.translation(), vp.width(), vp.height());
    QVERIFY(p);
    // The grabbed point, and the target 120 pixels to the right in the
    // plane through it facing the camera (computed here from the rays).
    const std::optional<viewer::PickResult> hit = vp.pickAt(p->x(), p->y());
    QVERIFY(hit && hit->bodyName == "body");
    const Vector3d local = X0.inverse() * hit->point;
    const double ratio = view->devicePixelRatioF();
    const viewer::Ray r0 = vp.rayAt(p->x(), p->y());
    const viewer::Ray r1 = vp.rayAt(p->x() + 120.0 * ratio, p->y());
    const Vector3d n = -r0.direction;
    const Vector3d target = r1.origin + ((hit->point - r1.origin).dot(n) / r1.direction.dot(n)) * r1.direction;
    const double reach = (target - hit->point).norm();
    QVERIFY2(reach > 0.05, qPrintable(QString::number(reach)));

    const QPoint press(static_cast<int>(std::lround(p->x() / ratio)), static_cast<int>(std::lround(p->y() / ratio)));
    QTest::mousePress(view, Qt::LeftButton, Qt::ControlModifier, press);
    QVERIFY2(window_->statusBar()->currentMessage().startsWith("Pulling"),
             qPrintable("no body under the cursor: " + window_->statusBar()->currentMessage()));
    QTest::mouseMove(view, press + QPoint(120, 0));
    sim->step(1000);
    sim->waitIdle();
    QTRY_COMPARE(view->scene().appliedSnapshot().step, std::uint64_t(1000));
    QTest::mouseRelease(view, Qt::LeftButton, Qt::ControlModifier, press + QPoint(120, 0));
    // After 1 s on a critically damped spring (ω ≈ 14 rad/s) the grabbed
    // point has all but reached the target.
    const Vector3d grabbed = view->scene().appliedSnapshot().bodyPoses[body] * local;
    QVERIFY2(
        (grabbed - target).norm() < 0.1 * reach,
        qPrintable(QString("%1 m from the target, %2 m away at the start").arg((grabbed - target).norm()).arg(reach)));
    // Released: no force any more, the momentum stays what it is.
    sim->step(100);
    sim->waitIdle();
    const Recording rec = sim->recordingCopy();
    const VectorXd v1 = rec.snapshot(rec.size() - 1).state.velocities;
    const VectorXd v0 = rec.snapshot(rec.size() - 50).state.velocities;
    QVERIFY2((v1.head<3>() - v0.head<3>()).norm() < 1e-9 + 1e-9 * v0.norm(),
             qPrintable(QString::number((v1 - v0).norm())));
    window_->leaveSimulation();
  }

  // Edit ▸ Check Interference outlines the bodies that overlap and lists
  // the pairs; with the live option a drag that makes two bodies overlap
  // outlines them too.
  void interferenceCheckOutlinesAndListsPairs() {
    World w;
    const auto box = [&w](const std::string& name, double x) {
      RigidBodyOptions o;
      o.inertia = Inertia::box(1.0, Vector3d::Constant(0.2));
      o.pose = Isometry3d(Eigen::Translation3d(x, 0, 0.5));
      RigidBody b = w.addRigidBody(name, o);
      CollisionShapeOptions s;
      s.name = name;
      s.geometry = Geometry::box(Vector3d::Constant(0.2));
      b.addCollisionShape(s);
    };
    box("a", 0.0);
    box("b", 0.18);  // 2 cm into a
    box("c", 1.0);
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "overlap.articula";
    io::saveScene(w, file);
    QVERIFY(window_->openFile(QString::fromStdString(file.string())));
    window_->findChild<QAction*>("actionCheckInterference")->trigger();
    auto* dialog = window_->findChild<QDialog*>("interferenceDialog");
    QVERIFY(dialog);
    auto* list = dialog->findChild<QListWidget*>("interferenceList");
    QVERIFY(list);
    QCOMPARE(list->count(), 1);
    const QString pair = list->item(0)->text();
    QVERIFY2(pair.contains("a") && pair.contains("b") && pair.contains("20.00 mm"), qPrintable(pair));
    ViewportWidget* view = window_->viewportWidget();
    QCOMPARE(view->scene().interference().size(), std::size_t(2));
    dialog->close();

    // Live: drag c onto a (the document's drag path, as the gizmo drives it).
    window_->findChild<QAction*>("actionLiveInterference")->setChecked(true);
    Document* doc = window_->document();
    VectorXd q = doc->world().getPositions();
    const int cx = doc->world().getStateSpace().segment("c")->positionOffset;
    doc->beginPositionsDrag();
    q[cx] = 0.1;
    doc->setPositionsLive(q);
    QCOMPARE(view->scene().interference().size(), std::size_t(3));
    q[cx] = 3.0;
    doc->setPositionsLive(q);
    doc->endPositionsDrag("move c");
    QCOMPARE(view->scene().interference().size(), std::size_t(2));
    // Simulation mode clears the outlines.
    QVERIFY(window_->enterSimulation());
    QVERIFY(view->scene().interference().empty());
    window_->leaveSimulation();
  }

  // The joint-forces layer and the plots of sensors and joint forces.
  void jointForcesLayerAndSensorPlots() {
    World w;
    io::loadScene(w, kScenes / "servo_arm.articula");
    w.resetToDesignMode();
    const std::string joint = w.getMultibodies().front().getJoints()[1].name();
    SensorSpec imu;
    imu.name = "imu";
    imu.type = SensorType::Imu;
    imu.frame = w.getMultibodies().front().getLinks().back().name();  // "multibody/link"
    w.addSensor(imu);
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "arm_with_imu.articula";
    io::saveScene(w, file);
    QVERIFY(window_->openFile(QString::fromStdString(file.string())));
    QAction* layer = window_->findChild<QAction*>("actionLayer_joint-forces");
    QVERIFY(layer);
    layer->setChecked(true);
    QVERIFY(window_->enterSimulation());
    Simulation* sim = window_->simulation();
    QVERIFY(sim->publisher().jointForces());
    sim->step(200);
    sim->waitIdle();
    ViewportWidget* view = window_->viewportWidget();
    QTRY_COMPARE(view->scene().appliedSnapshot().step, std::uint64_t(200));
    const viewer::RenderSnapshot& s = view->scene().appliedSnapshot();
    // The arm's joints carry its weight: the root joint's force is the
    // weight of everything it holds (the arm is nearly at rest, held by servos).
    double largest = 0.0;
    for (const viewer::JointMark& j : s.joints) largest = std::max(largest, j.force.norm());
    QVERIFY2(largest > 1.0, qPrintable(QString::number(largest)));
    QCOMPARE(s.sensorValues.size(), std::size_t(6));
    QVERIFY2(std::abs(s.sensorValues[0]) + std::abs(s.sensorValues[1]) + std::abs(s.sensorValues[2]) > 5.0,
             "the IMU reads about g");
    // View ▸ Plots ▸ Sensors lists the IMU's values; picking one adds a plot.
    auto* menu = window_->findChild<QMenu*>("menuSensorPlots");
    QVERIFY(menu);
    QMetaObject::invokeMethod(menu, "aboutToShow");
    QAction* az = window_->findChild<QAction*>("actionPlotSensor_imu:az");
    QVERIFY(az);
    az->trigger();
    auto* forces = window_->findChild<QMenu*>("menuJointForcePlots");
    QMetaObject::invokeMethod(forces, "aboutToShow");
    QVERIFY(forces->actions().size() >= 1 && forces->actions().front()->isEnabled());
    (void)joint;
    window_->leaveSimulation();
    layer->setChecked(false);
  }

  // Whole-window screenshots in design and in simulation mode.
  void screenshots() {
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    window_->document()->setSelection({{ObjectKind::Link, "four_bar/coupler"}});
    QTest::qWait(200);
    const QImage design = window_->grab().toImage();
    QVERIFY(design.save(screenshotPath("studio_design_mode.png")));
    window_->findChild<QAction*>("actionSimulate")->trigger();
    QVERIFY(window_->isSimulating());
    window_->simulation()->step(1500);
    window_->simulation()->waitIdle();
    QTRY_COMPARE(window_->viewportWidget()->scene().appliedSnapshot().step, std::uint64_t(1500));
    QTest::qWait(200);
    const QImage simulation = window_->grab().toImage();
    QVERIFY(simulation.save(screenshotPath("studio_simulation_mode.png")));
    // The linkage moved between the two: the viewports differ.
    QVERIFY(countDifferent(design, simulation) > 500);
    window_->leaveSimulation();
  }

  // The dock layout and the preferences persist from one window to the next.
  void layoutAndPreferencesPersist() {
    auto* history = window_->findChild<QDockWidget*>("historyDock");
    QVERIFY(history && history->isVisible());
    history->hide();
    Preferences prefs = Preferences::load();
    const double budget = prefs.recordingBudgetMiB;
    prefs.recordingBudgetMiB = 64.0;
    prefs.save();
    QVERIFY(window_->close());
    window_.reset();

    openWindow();
    if (QTest::currentTestFailed()) return;
    QVERIFY(!window_->findChild<QDockWidget*>("historyDock")->isVisible());
    QCOMPARE(Preferences::load().recordingBudgetMiB, 64.0);
    // The simulation records within the budget of the preferences.
    QVERIFY(window_->openFile(QString::fromStdString((kScenes / "four_bar.articula").string())));
    QVERIFY(window_->enterSimulation());
    QCOMPARE(window_->simulation()->recordingCopy().options().budgetBytes, std::size_t(64) << 20);
    window_->leaveSimulation();
    window_->findChild<QDockWidget*>("historyDock")->show();
    prefs.recordingBudgetMiB = budget;
    prefs.save();
  }

  // A recovery file left by a session that did not close is offered to the
  // next window, and accepting it restores the design (unsaved, belonging
  // to the file it was edited from).
  void crashRecovery() {
    const fs::path scene = kScenes / "four_bar.articula";
    QVERIFY(window_->openFile(QString::fromStdString(scene.string())));
    window_->findChild<QAction*>("actionCreateBody_sphere")->trigger();
    const std::string edited = window_->document()->sceneText();
    QVERIFY(edited != readFile(scene));
    window_->autosaveNow();
    QVERIFY(QFileInfo::exists(window_->recoveryFile()));
    // The window goes away without closing (as in a crash).
    window_.reset();

    openWindow();
    if (QTest::currentTestFailed()) return;
    answer_ = QMessageBox::Yes;
    asked_.clear();
    QVERIFY(window_->offerRecovery());
    QCOMPARE(asked_.size(), 1);
    QVERIFY2(asked_.front().contains("recover", Qt::CaseInsensitive), qPrintable(asked_.front()));
    QCOMPARE(window_->document()->sceneText(), edited);
    QVERIFY(window_->document()->isModified());
    QCOMPARE(window_->document()->filePath(), scene);
    QCOMPARE(window_->document()->world().numRigidBodies(), std::size_t(1));
    // A normal close removes the recovery file: nothing is offered next time.
    answer_ = QMessageBox::Discard;
    QVERIFY(window_->close());
    QVERIFY(!QFileInfo::exists(window_->recoveryFile()));
  }

  // Each window autosaves to its own recovery file: a second window does
  // not overwrite the first's, and a start after both were lost offers
  // each of them.
  void recoveryIsPerWindow() {
    for (const QString& left : QDir(recoveryDir_.path()).entryList({"recovery*"}, QDir::Files)) {
      QFile::remove(recoveryDir_.filePath(left));
    }
    const fs::path scene = kScenes / "four_bar.articula";
    QVERIFY(window_->openFile(QString::fromStdString(scene.string())));
    window_->findChild<QAction*>("actionCreateBody_sphere")->trigger();
    const std::string first = window_->document()->sceneText();
    window_->autosaveNow();

    MainWindowOptions options;
    options.recoveryDirectory = recoveryDir_.path();
    stubDialogs(options.dialogs);
    auto second = std::make_unique<MainWindow>(options);
    second->findChild<QAction*>("actionNew")->trigger();
    second->findChild<QAction*>("actionCreateBody_box")->trigger();
    second->findChild<QAction*>("actionCreateBody_box")->trigger();
    const std::string secondText = second->document()->sceneText();
    second->autosaveNow();
    QVERIFY(second->recoveryFile() != window_->recoveryFile());
    QVERIFY(QFileInfo::exists(window_->recoveryFile()));
    QVERIFY(QFileInfo::exists(second->recoveryFile()));
    // A running window's file is not offered to another window.
    asked_.clear();
    answer_ = QMessageBox::No;
    {
      MainWindow third(options);
      QVERIFY(!third.offerRecovery());
      QCOMPARE(asked_.size(), 0);
    }
    // Both windows go away without closing (as in a crash).
    second.reset();
    window_.reset();

    // The next start offers both; declining the first deletes it and
    // offers the next, which is recovered.
    openWindow();
    if (QTest::currentTestFailed()) return;
    asked_.clear();
    int question = 0;
    window_->dialogs().ask = [this, &question](QWidget*, const QString&, const QString& text,
                                               QMessageBox::StandardButtons) {
      asked_.push_back(text);
      return ++question == 1 ? QMessageBox::No : QMessageBox::Yes;
    };
    const bool recovered = window_->offerRecovery();
    stubDialogs(window_->dialogs());
    QVERIFY(recovered);
    QCOMPARE(asked_.size(), 2);
    QVERIFY2(asked_.front().contains("1 of 2"), qPrintable(asked_.front()));
    const std::string text = window_->document()->sceneText();
    QVERIFY(text == first || text == secondText);
    // Nothing is left to offer but this window's own autosave.
    QCOMPARE(QDir(recoveryDir_.path()).entryList({"recovery*.articula"}, QDir::Files).size(), 1);
    answer_ = QMessageBox::Discard;
    QVERIFY(window_->close());
    QCOMPARE(QDir(recoveryDir_.path()).entryList({"recovery*.articula"}, QDir::Files).size(), 0);
  }

 private:
  /// A new window with the test's recovery folder and dialogs, shown.
  void openWindow() {
    MainWindowOptions options;
    options.recoveryDirectory = recoveryDir_.path();
    stubDialogs(options.dialogs);
    window_ = std::make_unique<MainWindow>(options);
    window_->resize(1280, 860);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QTRY_VERIFY(window_->viewportWidget()->viewport() != nullptr);
  }

  /// A two-link URDF arm (a third link, coupled by a <mimic>, when
  /// `third`), with `extra` XML inside <robot>.
  static void writeArm(const QString& path, bool third, const QString& extra = {}) {
    QString xml = R"(<?xml version="1.0"?>
<robot name="arm">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><cylinder radius="0.03" length="0.4"/></geometry></visual>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/>
  </joint>
)";
    if (third) {
      xml += R"(  <link name="lower">
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="lower"/><origin xyz="0 0 0.4"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/>
    <mimic joint="shoulder" multiplier="-1"/>
  </joint>
)";
    }
    xml += extra + "\n</robot>\n";
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(xml.toUtf8());
  }

  std::optional<QString> textAnswer_;

  void stubDialogs(StudioDialogs& d) {
    d.openFile = [this](QWidget*, const QString&, const QString&) { return chosenFile_; };
    d.saveFile = [this](QWidget*, const QString&, const QString&, const QString&) { return chosenFile_; };
    d.ask = [this](QWidget*, const QString&, const QString& text, QMessageBox::StandardButtons) {
      asked_.push_back(text);
      return answer_;
    };
    d.error = [this](QWidget*, const QString& title, const QString& text) { errors_.push_back(title + ": " + text); };
    d.askText = [this](QWidget*, const QString&, const QString&, const QString& suggested) -> std::optional<QString> {
      asked_.push_back(suggested);
      return textAnswer_;
    };
    d.importChoices = [this](QWidget*, const QString& file, ImportChoices& choices) {
      importAsked_.push_back({file, choices});
      if (!importAnswer_) return false;
      choices = *importAnswer_;
      return true;
    };
  }

  QTemporaryDir recoveryDir_;
  std::unique_ptr<MainWindow> window_;
  QString chosenFile_;
  QStringList asked_;
  QStringList errors_;
  QMessageBox::StandardButton answer_ = QMessageBox::Discard;
  /// The import dialog's calls (file, choices shown) and its answer
  /// (nullopt: Cancel).
  std::vector<std::pair<QString, ImportChoices>> importAsked_;
  std::optional<ImportChoices> importAnswer_;
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"

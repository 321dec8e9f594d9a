// The studio's import choices (app/studio/import_dialog.hpp): remembered per
// file, turned into io::ImportOptions, edited in the dialog; the import
// report grouped by kind (import_report_view.hpp); and the check for a
// display before Qt starts (display_check.hpp). No OpenGL.
#include "display_check.hpp"
#include "import_dialog.hpp"
#include "import_report_view.hpp"
#include "preferences.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QPushButton>
#include <QStandardPaths>
#include <QtTest/QtTest>

using namespace articula;
using namespace articula::studio;

namespace {

io::ReportEntry entry(int line, const std::string& message) {
  return io::ReportEntry{"robot.urdf", line, message};
}

}  // namespace

class ImportDialogTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ArticulaTest");
    QCoreApplication::setApplicationName("ImportDialogTest");
    QSettings().clear();
  }

  // Without stored choices: the defaults, with the given package folders.
  // Stored choices come back for that file only (the key is the absolute
  // path, slashes and all).
  void choicesAreRememberedPerFile() {
    const QString a = "/models/robots/a/robot.urdf";
    const QString b = "/models/robots/b/robot.urdf";
    const ImportChoices defaults = ImportChoices::load(a, {"/opt/pkgs"});
    QVERIFY(defaults.root == io::RootAttachment::Default);
    QVERIFY(defaults.addGroundPlane);
    QCOMPARE(defaults.groundHeight, 0.0);
    QVERIFY(defaults.placeOnGround);
    QCOMPARE(defaults.packagePath, QStringList{"/opt/pkgs"});
    QVERIFY(!ImportChoices::isStored(a));

    ImportChoices chosen;
    chosen.root = io::RootAttachment::Floating;
    chosen.addGroundPlane = true;
    chosen.groundHeight = -0.25;
    chosen.placeOnGround = false;
    chosen.packagePath = {"/work/models", "/home/me/ws/src"};
    chosen.save(a);
    QVERIFY(ImportChoices::isStored(a));
    QVERIFY(!ImportChoices::isStored(b));
    QCOMPARE(ImportChoices::load(a, {"/other"}), chosen);
    QCOMPARE(ImportChoices::load(b, {"/other"}).packagePath, QStringList{"/other"});
    QVERIFY(ImportChoices::load(b, {}).root == io::RootAttachment::Default);

    ImportChoices fixed = chosen;
    fixed.root = io::RootAttachment::Fixed;
    fixed.addGroundPlane = false;
    fixed.save(b);
    QCOMPARE(ImportChoices::load(b, {}), fixed);
    QCOMPARE(ImportChoices::load(a, {}), chosen);
  }

  void choicesBecomeImportOptions() {
    ImportChoices c;
    c.root = io::RootAttachment::Fixed;
    c.addGroundPlane = true;
    c.groundHeight = 1.5;
    c.placeOnGround = false;
    c.packagePath = {"/a", "/b/c"};
    const io::ImportOptions o = c.toOptions();
    QVERIFY(o.root == io::RootAttachment::Fixed);
    QVERIFY(o.addGroundPlane);
    QCOMPARE(o.groundHeight, 1.5);
    QVERIFY(!o.placeOnGround);
    QCOMPARE(o.packagePath.size(), std::size_t(2));
    QCOMPARE(o.packagePath[1], std::filesystem::path("/b/c"));
    QVERIFY(o.useEnvironmentPaths);
  }

  void robotFilesGetTheDialog() {
    QVERIFY(needsImportChoices("/x/robot.urdf"));
    QVERIFY(needsImportChoices("/x/ROBOT.URDF"));
    QVERIFY(needsImportChoices("/x/model.sdf"));
    QVERIFY(needsImportChoices("/x/empty.world"));
    QVERIFY(!needsImportChoices("/x/four_bar.articula"));
    QVERIFY(!needsImportChoices("/x/run.replay"));
  }

  // The dialog shows the choices it was given and returns what was changed.
  void dialogEditsTheChoices() {
    ImportChoices given;
    given.root = io::RootAttachment::Fixed;
    given.addGroundPlane = false;
    given.groundHeight = 0.5;
    given.packagePath = {"/one", "/two"};
    ImportDialog dialog("/x/robot.urdf", given);
    QCOMPARE(dialog.choices(), given);
    auto* root = dialog.findChild<QComboBox*>("rootAttachment");
    auto* ground = dialog.findChild<QCheckBox*>("addGroundPlane");
    auto* height = dialog.findChild<QDoubleSpinBox*>("groundHeight");
    auto* place = dialog.findChild<QCheckBox*>("placeOnGround");
    auto* list = dialog.findChild<QListWidget*>("packagePathList");
    auto* remove = dialog.findChild<QPushButton*>("removePackageFolder");
    QVERIFY(root && ground && height && place && list && remove);
    QCOMPARE(root->count(), 3);
    QCOMPARE(root->currentText(), QString("Fixed to the world"));
    // Without a ground the height and setting down do not apply; a fixed
    // base is not set down either.
    QVERIFY(!height->isEnabled());
    QVERIFY(!place->isEnabled());
    ground->setChecked(true);
    QVERIFY(height->isEnabled());
    QVERIFY(!place->isEnabled());
    root->setCurrentIndex(root->findText("Floating (free joint)"));
    QVERIFY(place->isEnabled());
    height->setValue(-0.75);
    place->setChecked(false);
    dialog.addPackageFolder("/three");
    dialog.addPackageFolder("/one");  // already listed
    QVERIFY(!remove->isEnabled());
    list->item(0)->setSelected(true);
    QVERIFY(remove->isEnabled());
    remove->click();

    const ImportChoices got = dialog.choices();
    QVERIFY(got.root == io::RootAttachment::Floating);
    QVERIFY(got.addGroundPlane);
    QCOMPARE(got.groundHeight, -0.75);
    QVERIFY(!got.placeOnGround);
    QCOMPARE(got.packagePath, (QStringList{"/two", "/three"}));
  }

  // The preferences keep a package folder list (the dialog's default).
  void preferencesKeepThePackagePath() {
    Preferences p = Preferences::load();
    QVERIFY(p.packagePath.isEmpty());
    p.packagePath = {"/opt/robot-models"};
    p.save();
    QCOMPARE(Preferences::load().packagePath, QStringList{"/opt/robot-models"});
    PreferencesDialog dialog(Preferences::load());
    auto* list = dialog.findChild<QListWidget*>("packagePathList");
    QVERIFY(list);
    QCOMPARE(list->count(), 1);
    QCOMPARE(dialog.preferences().packagePath, QStringList{"/opt/robot-models"});
    p.packagePath.clear();
    p.save();
  }

  // Names and numbers are blanked so that the same finding about other
  // objects is one kind; a leading element is the kind.
  void entryKinds() {
    QCOMPARE(reportEntryKind("<gazebo reference='base_link'> not imported (no equivalent in the engine)"),
             QString("<gazebo>"));
    QCOMPARE(reportEntryKind("<transmission> 'tran1' not imported (no equivalent in the engine)"),
             QString("<transmission>"));
    QCOMPARE(reportEntryKind("<safety_controller> of joint 'j1' not imported"), QString("<safety_controller>"));
    const QString a = reportEntryKind("joint 'shoulder': velocity limit 3.15 read as no limit");
    const QString b = reportEntryKind("joint 'elbow': velocity limit 0 read as no limit");
    QCOMPARE(a, b);
    QCOMPARE(a, QString("joint '…': velocity limit N read as no limit"));
    QVERIFY(reportEntryKind("joint 'elbow': effort limit 0 read as no limit") != a);
  }

  // 138 ignored elements of 3 kinds, as the example: one group,
  // three kinds, counts per kind; nothing there needs attention until a
  // warning, a cut or a coupler is added.
  void reportIsGroupedByKind() {
    io::ImportReport report;
    report.file = "robot.urdf";
    report.format = "urdf";
    for (int i = 0; i < 100; ++i) {
      report.ignored.push_back(entry(10 + i, "<gazebo reference='link" + std::to_string(i) + "'> not imported"));
    }
    for (int i = 0; i < 30; ++i) {
      report.ignored.push_back(entry(200 + i, "<transmission> 'tr" + std::to_string(i) + "' not imported"));
    }
    for (int i = 0; i < 8; ++i) {
      report.ignored.push_back(entry(
          300 + i, "joint 'j" + std::to_string(i) + "': velocity limit " + std::to_string(i) + " read as no limit"));
    }
    QVERIFY(!reportNeedsAttention(report));
    std::vector<ReportGroup> groups = groupReport(report);
    QCOMPARE(groups.size(), std::size_t(1));
    QCOMPARE(groups[0].title, QString("138 ignored elements of 3 kinds"));
    QCOMPARE(groups[0].kinds.size(), std::size_t(3));
    QCOMPARE(groups[0].kinds[0].kind, QString("<gazebo>"));
    QCOMPARE(groups[0].kinds[0].lines.size(), std::size_t(100));
    QCOMPARE(groups[0].kinds[1].lines.size(), std::size_t(30));
    QCOMPARE(groups[0].kinds[2].lines.size(), std::size_t(8));
    QVERIFY(groups[0].kinds[0].lines[3].startsWith("robot.urdf:13: <gazebo"));

    report.warnings.push_back(entry(5, "link 'tool0' has zero mass and moves"));
    QVERIFY(reportNeedsAttention(report));
    report.warnings.clear();
    report.couplers.push_back(io::CouplerMade{"finger_mimic", "finger1", "finger2", -1.0, 0.0, "", 40});
    QVERIFY(reportNeedsAttention(report));
    groups = groupReport(report);
    QCOMPARE(groups.size(), std::size_t(2));
    QCOMPARE(groups[0].kind, QString("couplers"));
    QCOMPARE(groups[0].title, QString("1 coupler"));
    QVERIFY2(groups[0].lines[0].contains("robot.urdf:40") && groups[0].lines[0].contains("finger2"),
             qPrintable(groups[0].lines[0]));

    // The view: one collapsed item per group, kinds under it.
    ImportReportView view;
    view.setReport(report);
    QCOMPARE(view.topLevelItemCount(), 2);
    QTreeWidgetItem* ignored = view.topLevelItem(1);
    QCOMPARE(ignored->text(0), QString("138 ignored elements of 3 kinds"));
    QVERIFY(!ignored->isExpanded());
    QCOMPARE(ignored->childCount(), 3);
    QCOMPARE(ignored->child(0)->text(0), QString("100 × <gazebo>"));
    QCOMPARE(ignored->child(0)->childCount(), 100);
  }

  // Without DISPLAY or WAYLAND_DISPLAY and without a chosen platform the
  // studio cannot start: one line says so; any of them is enough.
  void displayIsChecked() {
    QProcessEnvironment none;
    none.insert("HOME", "/root");
    const QString problem = displayProblem({}, none);
    QVERIFY(!problem.isEmpty());
    QVERIFY(!problem.contains('\n'));
    QVERIFY2(problem.contains("xvfb-run") && problem.contains("DISPLAY"), qPrintable(problem));
    for (const char* variable : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) {
      QProcessEnvironment env = none;
      env.insert(variable, "x");
      QVERIFY2(displayProblem({}, env).isEmpty(), variable);
    }
    QVERIFY(displayProblem({"-platform", "offscreen", "scene.articula"}, none).isEmpty());
    QVERIFY(!displayProblem({"scene.articula", "--screenshot", "out.png"}, none).isEmpty());
  }
};

QTEST_MAIN(ImportDialogTest)
#include "test_import_dialog.moc"

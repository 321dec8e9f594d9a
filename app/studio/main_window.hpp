#pragma once
/// @file
/// MainWindow: the studio's window. The 3D viewport in the centre; docks
/// for the scene tree, the inspector, the timeline (replay), the messages
/// and the undo history; menus, a toolbar and a status bar showing the
/// mode, the simulated time and the real-time factor. Layout, recent
/// files and preferences persist in QSettings. Design edits go through the
/// Document's undo stack; simulating runs a copy of the design on its own
/// thread (Simulation), so leaving the simulation returns to the design
/// exactly as it was. The design is autosaved to a recovery file and
/// offered back after a crash.

#include <articula/io/export.hpp>

#include "import_dialog.hpp"
#include "object_ref.hpp"
#include "recovery.hpp"

#include <QMainWindow>
#include <QMessageBox>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QActionGroup;
class QComboBox;
class QDialog;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QTimer;
class QTreeView;

namespace articula::studio {

class ControlsPanel;
class Document;
class ImportReportView;
class Inspector;
class PlotPanel;
class SceneTreeModel;
class Simulation;
class TimelineWidget;
class ViewportWidget;
struct SimulationStatus;

/// The dialogs the window asks through; tests replace them.
struct StudioDialogs {
  /// Open-file chooser: returns the chosen file or an empty string.
  std::function<QString(QWidget* parent, const QString& caption, const QString& filter)> openFile;
  /// Save-file chooser, starting from `suggested`.
  std::function<QString(QWidget* parent, const QString& caption, const QString& filter, const QString& suggested)>
      saveFile;
  /// A question with the given buttons; returns the button chosen.
  std::function<QMessageBox::StandardButton(QWidget* parent, const QString& title, const QString& text,
                                            QMessageBox::StandardButtons buttons)>
      ask;
  /// A line of text (a name): returns it, or nullopt when the user cancels.
  std::function<std::optional<QString>(QWidget* parent, const QString& title, const QString& label,
                                       const QString& suggested)>
      askText;
  /// An error the user must see.
  std::function<void(QWidget* parent, const QString& title, const QString& text)> error;
  /// The import dialog for `file` (absolute path), starting from `choices`
  /// and writing the answer back to them; false when the user cancels.
  std::function<bool(QWidget* parent, const QString& file, ImportChoices& choices)> importChoices;

  /// Qt's file dialogs and message boxes.
  static StudioDialogs standard();
};

struct MainWindowOptions {
  /// Folder of the recovery file; empty: the application data folder.
  QString recoveryDirectory;
  StudioDialogs dialogs = StudioDialogs::standard();
  /// Ask for the import choices when a URDF or SDF file is opened; false
  /// (--screenshot, scripted runs): the choices stored for the file, else
  /// the defaults, are used without asking.
  bool askImportChoices = true;
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(const MainWindowOptions& options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;
  MainWindow(const MainWindow&) = delete;
  MainWindow& operator=(const MainWindow&) = delete;

  Document* document() const { return m_document; }
  Simulation* simulation() const { return m_simulation; }
  ViewportWidget* viewportWidget() const { return m_viewport; }
  QTreeView* sceneTree() const { return m_tree; }
  SceneTreeModel* sceneTreeModel() const { return m_model; }
  Inspector* inspector() const { return m_inspector; }
  TimelineWidget* timeline() const { return m_timeline; }
  PlotPanel* plotPanel() const { return m_plots; }
  /// The scene tree's right-click menu for `ref` (its Plot submenu lists
  /// the object's quantities of the run while simulating).
  void fillTreeContextMenu(QMenu* menu, const ObjectRef& ref);
  /// Shows and raises the Plots dock.
  void showPlotPanel();
  /// Everything shown in the Messages dock.
  QString messagesText() const;
  /// The import report window of the last import (null before any).
  QDialog* importReportDialog() const { return m_reportDialog; }
  StudioDialogs& dialogs() { return m_dialogs; }

  // ---- files ---------------------------------------------------------------
  /// Opens a scene, robot or replay file (asks about unsaved changes first).
  /// Errors are shown and change nothing. Returns success.
  bool openFile(const QString& path);
  /// Reads the design's source file again with the options it was
  /// imported with (asks first when the design has unsaved changes); the
  /// camera stays where it is. Returns success.
  bool reloadFromDisk();
  /// Imports `path` (asking for the import choices as Open does) and adds
  /// its bodies, multibodies, closures and couplers to the design as one
  /// undoable step, the model moved by `offset` (m, world). Names that are
  /// taken get a numeric suffix. Returns success.
  bool insertModel(const QString& path, const Vector3d& offset);
  bool saveTo(const QString& path);
  /// Writes the design for articula-run and reports the command to run it.
  bool exportForHeadlessRun(const QString& path);
  /// Writes the design as URDF, SDF, MJCF or .articula, by the extension of `path`.
  bool exportAs(const QString& path);
  /// The report of the last exportAs().
  const io::ExportReport& lastExportReport() const { return m_lastExportReport; }
  /// Asks about unsaved changes: false when the user cancels.
  bool maybeSave();

  // ---- simulation ------------------------------------------------------------
  bool enterSimulation();
  void leaveSimulation();
  bool isSimulating() const;
  /// Loads a replay into the simulation of the open scene; a replay of
  /// another layout is refused with the LayoutIncompatible message and
  /// nothing changes.
  bool loadReplay(const QString& path);
  bool saveReplay(const QString& path);
  /// Writes the recorded frames of the run as an HDF5 run log (every column
  /// group, as articula-run --hdf5 --log all); a progress dialog can cancel.
  bool exportRunToHdf5(const QString& path);
  /// What Export Video writes (articula-run render --video's options).
  struct VideoOptions {
    int width = 1280, height = 720;
    double fps = 30.0;
    double speed = 1.0;
    double from = 0.0, to = 0.0;  ///< simulated time span; to <= from: to the end
    QString follow;               ///< a link or body, or empty
  };
  /// Renders the recorded frames into OUT.mp4 / OUT.webm through articula-run
  /// render --video (the design and the recording go to temporary files),
  /// with a progress dialog that can cancel.
  bool exportVideo(const QString& path, const VideoOptions& options);
  void exportVideoWithDialog();
  /// Saves the 3D view as a PNG (View > Save Screenshot, F12).
  bool saveScreenshot(const QString& path);

  // ---- viewpoints (View > Viewpoints) ----------------------------------------------
  /// Saves the 3D view's camera as viewpoint `name` of the design (one undo
  /// step; replaces a viewpoint of that name). Design mode only.
  bool saveViewpoint(const QString& name);
  /// Moves the camera to a viewpoint of the design (either mode).
  bool goToViewpoint(const QString& name);
  /// Removes a viewpoint (one undo step). Design mode only.
  bool deleteViewpoint(const QString& name);

  // ---- recovery ------------------------------------------------------------------
  /// The recovery file the design is autosaved to.
  QString recoveryFile() const;
  /// Writes the recovery file now (when the design has unsaved changes).
  void autosaveNow();
  /// When a recovery file from an earlier run exists, asks whether to
  /// restore it; restores it when the answer is yes. Returns whether it did.
  bool offerRecovery();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createDocks();
  void createActions();
  void createMenus();
  void createToolBar();
  void createStatusBar();
  // Keyframes and pins (whole-body posing).
  void createKeyframeMenu();
  void fillViewpointMenu(QMenu* menu);
  void rebuildKeyframeStrip();
  void captureKeyframe();
  void applyKeyframe(const QString& name);
  void makeKeyframeSchedules();
  void togglePinSelected();
  /// Design mode: the colliding bodies at the current configuration
  /// (World::checkCollisions) outlined in red; `showList` also lists the
  /// pairs in a dialog. Returns the number of colliding pairs.
  int checkInterference(bool showList);
  /// Shows `factor` in the toolbar's real-time box (and so targets it).
  void selectRealTimeFactor(double factor);
  void updateTitle();
  void updateActions();
  void updateRecentMenu();
  void addRecentFile(const QString& path);
  void appendMessage(const QString& text);
  /// Fills the import report window; shows it when `show` (and the report
  /// needs attention).
  void showImportReport(const io::ImportReport& report, bool show);
  /// The import options for `path`: the import dialog for URDF and SDF
  /// (unless told not to ask), the preferences' package folders for all.
  /// False when the user cancels.
  bool importOptionsFor(const QString& path, io::ImportOptions& options);
  bool openWithOptions(const QString& path, const io::ImportOptions& options, bool reload);
  void insertModelWithDialog();
  void createGroundPlane();
  void onSimulationStatus(const SimulationStatus& status);
  void onTreeSelectionChanged();
  void onDocumentSelectionChanged();
  void onPicked(const ObjectRef& ref);
  void onDesignAboutToReset();
  bool editWithMessage(const QString& label, const std::function<void(World&)>& op);
  void createRigidBody(GeometryType type);
  void createLink(JointType type);
  void createLoopClosure(LoopClosureFamily family);
  void createCoupler();
  void createActuator(ActuatorType type);
  void createFrame();
  void deleteSelection();
  void duplicateSelection();
  void newDesign();
  void openWithDialog();
  bool save();
  bool saveAs();
  void exportWithDialog();
  void exportAsWithDialog();
  void showPreferences();
  void removeRecoveryFile();

  StudioDialogs m_dialogs;
  QString m_recoveryDirectory;
  bool m_askImportChoices = true;
  std::unique_ptr<RecoverySlot> m_recovery;  ///< this window's recovery file
  Document* m_document = nullptr;
  Simulation* m_simulation = nullptr;
  ViewportWidget* m_viewport = nullptr;
  QTreeView* m_tree = nullptr;
  SceneTreeModel* m_model = nullptr;
  Inspector* m_inspector = nullptr;
  ControlsPanel* m_controls = nullptr;
  TimelineWidget* m_timeline = nullptr;
  PlotPanel* m_plots = nullptr;
  QPlainTextEdit* m_messages = nullptr;
  QDialog* m_reportDialog = nullptr;
  QPlainTextEdit* m_reportText = nullptr;
  ImportReportView* m_reportView = nullptr;
  QLabel* m_reportSummary = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QLabel* m_modeLabel = nullptr;
  QLabel* m_timeLabel = nullptr;
  QLabel* m_rtfLabel = nullptr;
  QLabel* m_residualLabel = nullptr;
  QComboBox* m_rtfBox = nullptr;
  QToolBar* m_keyframeBar = nullptr;
  QAction* m_pinAction = nullptr;
  QAction* m_interferenceAction = nullptr;
  int m_jointForcePlots = 0;  ///< joint-force plots added (snapshots then carry joint forces)
  QAction* m_liveInterferenceAction = nullptr;
  QAction* m_captureAction = nullptr;
  QAction* m_keyframeSchedulesAction = nullptr;
  QMenu* m_applyKeyframeMenu = nullptr;
  QTimer* m_autosaveTimer = nullptr;
  bool m_syncingSelection = false;
  bool m_freshTree = false;
  std::vector<ObjectRef> m_expanded;

  QAction* m_newAction = nullptr;
  QAction* m_openAction = nullptr;
  QAction* m_reloadAction = nullptr;
  QAction* m_insertAction = nullptr;
  QAction* m_saveAction = nullptr;
  QAction* m_saveAsAction = nullptr;
  QAction* m_exportAction = nullptr;
  QAction* m_exportHdf5Action = nullptr;
  QAction* m_exportAsAction = nullptr;
  io::ExportReport m_lastExportReport;
  QAction* m_quitAction = nullptr;
  QAction* m_undoAction = nullptr;
  QAction* m_redoAction = nullptr;
  QAction* m_deleteAction = nullptr;
  QAction* m_duplicateAction = nullptr;
  QAction* m_renameAction = nullptr;
  QAction* m_preferencesAction = nullptr;
  QAction* m_simulateAction = nullptr;
  QAction* m_playAction = nullptr;
  QAction* m_pauseAction = nullptr;
  QAction* m_stepAction = nullptr;
  QAction* m_resetAction = nullptr;
  QAction* m_fitAction = nullptr;
  QAction* m_translateAction = nullptr;
  QAction* m_rotateAction = nullptr;
  QAction* m_overlayAction = nullptr;
  QList<QAction*> m_createActions;
};

}  // namespace articula::studio

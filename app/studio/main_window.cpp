#include "main_window.hpp"

#include "controls_panel.hpp"
#include "document.hpp"
#include "edit_operations.hpp"
#include "frame_table.hpp"
#include "import_dialog.hpp"
#include "import_report_view.hpp"
#include "inspector.hpp"
#include "plot_panel.hpp"
#include "preferences.hpp"
#include "scene_tree_model.hpp"
#include "simulation.hpp"
#include "timeline_widget.hpp"
#include "viewport_widget.hpp"

#include <articula/io/run_log.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/viewer/debug_layers.hpp>
#include <articula/viewer/overlay.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewport.hpp>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>
#include <QUndoView>
#include <QVBoxLayout>

#include <algorithm>
#include <csignal>
#include <exception>
#include <filesystem>
#include <optional>
#include <set>

#include <unistd.h>

namespace articula::studio {

namespace {

constexpr int kMaxRecentFiles = 8;
const char* const kOpenFilter =
    "Scenes and robots (*.articula *.urdf *.sdf *.world *.xml *.mjcf *.replay);;Articula scenes (*.articula);;"
    "URDF (*.urdf);;SDF (*.sdf *.world);;MJCF (*.xml *.mjcf);;Replays (*.replay);;All files (*)";
const char* const kExportFilter =
    "URDF (*.urdf);;SDF 1.9 (*.sdf);;MJCF, MuJoCo XML (*.xml);;Articula scenes (*.articula)";

std::filesystem::path toPath(const QString& s) {
  return std::filesystem::path(s.toStdString());
}
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// Half extents of a primitive's axis-aligned box in its own frame.
Vector3d halfExtents(const Geometry& g) {
  switch (g.type) {
    case GeometryType::Box:
      return 0.5 * g.size;
    case GeometryType::Ellipsoid:
      return g.size;
    case GeometryType::Sphere:
      return Vector3d::Constant(g.radius);
    case GeometryType::Cylinder:
      return Vector3d(g.radius, g.radius, 0.5 * g.length);
    case GeometryType::Capsule:
      return Vector3d(g.radius, g.radius, 0.5 * g.length + g.radius);
    default:
      return Vector3d::Constant(0.1);
  }
}

/// Asks for a position (m, world), starting from `suggested`.
std::optional<Vector3d> askPosition(QWidget* parent, const QString& title, const Vector3d& suggested) {
  QDialog dialog(parent);
  dialog.setObjectName("positionDialog");
  dialog.setWindowTitle(title);
  auto* form = new QFormLayout(&dialog);
  form->addRow(new QLabel(QObject::tr("Where the model's origin goes (world, m):"), &dialog));
  QDoubleSpinBox* boxes[3];
  const char* names[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    boxes[i] = new QDoubleSpinBox(&dialog);
    boxes[i]->setRange(-1e4, 1e4);
    boxes[i]->setDecimals(3);
    boxes[i]->setSingleStep(0.1);
    boxes[i]->setSuffix(" m");
    boxes[i]->setValue(suggested[i]);
    form->addRow(QString::fromLatin1(names[i]), boxes[i]);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return Vector3d(boxes[0]->value(), boxes[1]->value(), boxes[2]->value());
}

bool isKnownFile(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  return suffix == "articula" || suffix == "urdf" || suffix == "sdf" || suffix == "world" || suffix == "xml" ||
         suffix == "mjcf" || suffix == "replay";
}

}  // namespace

StudioDialogs StudioDialogs::standard() {
  StudioDialogs d;
  d.openFile = [](QWidget* parent, const QString& caption, const QString& filter) {
    return QFileDialog::getOpenFileName(parent, caption, QString(), filter);
  };
  d.saveFile = [](QWidget* parent, const QString& caption, const QString& filter, const QString& suggested) {
    return QFileDialog::getSaveFileName(parent, caption, suggested, filter);
  };
  d.ask = [](QWidget* parent, const QString& title, const QString& text, QMessageBox::StandardButtons buttons) {
    return QMessageBox::question(parent, title, text, buttons);
  };
  d.askText = [](QWidget* parent, const QString& title, const QString& label,
                 const QString& suggested) -> std::optional<QString> {
    bool ok = false;
    const QString text = QInputDialog::getText(parent, title, label, QLineEdit::Normal, suggested, &ok);
    if (!ok) return std::nullopt;
    return text;
  };
  d.error = [](QWidget* parent, const QString& title, const QString& text) {
    QMessageBox::warning(parent, title, text);
  };
  d.importChoices = [](QWidget* parent, const QString& file, ImportChoices& choices) {
    ImportDialog dialog(file, choices, parent);
    if (dialog.exec() != QDialog::Accepted) return false;
    choices = dialog.choices();
    return true;
  };
  return d;
}

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent),
      m_dialogs(options.dialogs),
      m_recoveryDirectory(options.recoveryDirectory),
      m_askImportChoices(options.askImportChoices) {
  setObjectName("mainWindow");
  if (m_recoveryDirectory.isEmpty()) {
    m_recoveryDirectory = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery";
  }
  m_recovery = std::make_unique<RecoverySlot>(m_recoveryDirectory);
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  m_document = new Document(this);
  m_simulation = new Simulation(this);
  m_viewport = new ViewportWidget(m_document, m_simulation, this);
  m_viewport->setObjectName("viewport");
  setCentralWidget(m_viewport);

  createDocks();
  createActions();
  createMenus();
  createToolBar();
  createStatusBar();

  connect(m_document, &Document::fileStateChanged, this, &MainWindow::updateTitle);
  connect(m_document, &Document::message, this, &MainWindow::appendMessage);
  connect(m_document, &Document::selectionChanged, this, &MainWindow::onDocumentSelectionChanged);
  connect(m_document, &Document::designChanged, this, &MainWindow::updateActions);
  connect(m_document, &Document::lockedChanged, m_inspector, &Inspector::reload);
  connect(m_document, &Document::designReset, this, &MainWindow::updateActions);
  connect(m_document, &Document::pinsChanged, m_inspector, &Inspector::reload);
  connect(m_document, &Document::positionsChanged, this, [this] {
    m_residualLabel->setText(tr("closure residual %1").arg(m_document->maxClosureResidual(), 0, 'g', 3));
    if (m_liveInterferenceAction->isChecked()) checkInterference(false);
  });
  connect(m_document, &Document::designChanged, this, [this] {
    if (m_liveInterferenceAction->isChecked()) checkInterference(false);
  });
  connect(m_viewport, &ViewportWidget::objectPicked, this, &MainWindow::onPicked);
  connect(m_viewport, &ViewportWidget::snapshotShown, m_inspector, &Inspector::showSimulatedValues);
  connect(m_viewport, &ViewportWidget::statusMessage, this,
          [this](const QString& t) { statusBar()->showMessage(t, 3000); });
  connect(m_simulation, &Simulation::statusChanged, this, &MainWindow::onSimulationStatus);
  connect(m_simulation, &Simulation::message, this, &MainWindow::appendMessage);
  connect(m_simulation, &Simulation::diverged, this, [this](const QString& text) {
    appendMessage(tr("Simulation stopped: %1").arg(text));
    statusBar()->showMessage(tr("Simulation paused: %1").arg(text));
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Simulation paused"),
                                tr("%1\n\nThe last good frame is shown.").arg(text), QMessageBox::Ok, this);
    box->setObjectName("divergenceMessage");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
  });
  connect(m_timeline, &TimelineWidget::saveReplayRequested, this, [this] {
    const QString path = m_dialogs.saveFile(this, tr("Save Replay"), tr("Replays (*.replay)"),
                                            QFileInfo(m_document->displayName()).completeBaseName() + ".replay");
    if (!path.isEmpty()) saveReplay(path);
  });
  connect(m_timeline, &TimelineWidget::exportVideoRequested, this, &MainWindow::exportVideoWithDialog);
  connect(m_timeline, &TimelineWidget::loadReplayRequested, this, [this] {
    const QString path = m_dialogs.openFile(this, tr("Load Replay"), tr("Replays (*.replay)"));
    if (!path.isEmpty()) loadReplay(path);
  });

  m_autosaveTimer = new QTimer(this);
  connect(m_autosaveTimer, &QTimer::timeout, this, &MainWindow::autosaveNow);
  const Preferences prefs = Preferences::load();
  if (prefs.autosaveSeconds > 0) m_autosaveTimer->start(prefs.autosaveSeconds * 1000);

  QSettings settings;
  resize(1400, 900);
  // First start: room for the inspector's fields, a short timeline.
  resizeDocks({findChild<QDockWidget*>("sceneDock"), findChild<QDockWidget*>("inspectorDock")}, {260, 360},
              Qt::Horizontal);
  resizeDocks({findChild<QDockWidget*>("timelineDock")}, {130}, Qt::Vertical);
  resizeDocks({findChild<QDockWidget*>("sceneDock"), findChild<QDockWidget*>("historyDock")}, {420, 160}, Qt::Vertical);
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  updateRecentMenu();
  updateTitle();
  updateActions();
}

MainWindow::~MainWindow() {
  // The document and its undo stack are destroyed after this window's own
  // parts: they must not call back into it while they go.
  m_document->undoStack()->disconnect(this);
  m_document->disconnect(this);
  m_simulation->disconnect(this);
  m_simulation->stop();
}

// ---- construction -----------------------------------------------------------------

void MainWindow::createDocks() {
  m_model = new SceneTreeModel(m_document, this);
  m_tree = new QTreeView(this);
  m_tree->setObjectName("sceneTree");
  m_tree->setModel(m_model);
  m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_tree->setDragEnabled(true);
  m_tree->setAcceptDrops(true);
  m_tree->setDropIndicatorShown(true);
  m_tree->setDragDropMode(QAbstractItemView::DragDrop);
  m_tree->setDefaultDropAction(Qt::MoveAction);
  m_tree->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
  m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_tree->header()->setStretchLastSection(false);
  connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MainWindow::onTreeSelectionChanged);
  connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, &MainWindow::onDesignAboutToReset);
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
    // Expansion and selection survive the rebuild (items are named by ref);
    // a newly opened design starts expanded to its links.
    if (m_expanded.empty() || m_freshTree) {
      m_freshTree = false;
      m_tree->expandToDepth(2);
    } else {
      for (const ObjectRef& ref : m_expanded) m_tree->expand(m_model->indexOf(ref));
    }
    onDocumentSelectionChanged();
  });
  connect(m_model, &SceneTreeModel::editRefused, this, [this](const QString& message) {
    appendMessage(message);
    statusBar()->showMessage(message, 5000);
  });
  m_tree->expandToDepth(1);

  auto* sceneDock = new QDockWidget(tr("Scene"), this);
  sceneDock->setObjectName("sceneDock");
  sceneDock->setWidget(m_tree);
  addDockWidget(Qt::LeftDockWidgetArea, sceneDock);

  m_inspector = new Inspector(m_document, m_simulation, this);
  m_inspector->setObjectName("inspector");
  auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
  inspectorDock->setObjectName("inspectorDock");
  inspectorDock->setWidget(m_inspector);
  m_inspector->setMinimumWidth(360);  // labels and fields side by side
  addDockWidget(Qt::RightDockWidgetArea, inspectorDock);

  m_timeline = new TimelineWidget(m_simulation, this);
  m_timeline->setObjectName("timeline");
  auto* timelineDock = new QDockWidget(tr("Timeline"), this);
  timelineDock->setObjectName("timelineDock");
  timelineDock->setWidget(m_timeline);
  // The timeline is one row of controls: it does not take the viewport's height.
  m_timeline->setMaximumHeight(m_timeline->sizeHint().height());
  addDockWidget(Qt::BottomDockWidgetArea, timelineDock);

  m_messages = new QPlainTextEdit(this);
  m_messages->setObjectName("messages");
  m_messages->setReadOnly(true);
  m_messages->setMaximumBlockCount(5000);
  auto* messagesDock = new QDockWidget(tr("Messages"), this);
  messagesDock->setObjectName("messagesDock");
  messagesDock->setWidget(m_messages);
  addDockWidget(Qt::BottomDockWidgetArea, messagesDock);

  auto* history = new QUndoView(m_document->undoStack(), this);
  history->setObjectName("undoHistory");
  history->setEmptyLabel(tr("<opened>"));
  auto* historyDock = new QDockWidget(tr("History"), this);
  historyDock->setObjectName("historyDock");
  historyDock->setWidget(history);
  addDockWidget(Qt::LeftDockWidgetArea, historyDock);
  tabifyDockWidget(timelineDock, messagesDock);
  timelineDock->raise();

  m_controls = new ControlsPanel(
      m_simulation, [this]() -> const World& { return m_document->world(); }, this);
  m_controls->setObjectName("controls");
  auto* controlsDock = new QDockWidget(tr("Controls"), this);
  controlsDock->setObjectName("controlsDock");
  controlsDock->setWidget(m_controls);
  addDockWidget(Qt::RightDockWidgetArea, controlsDock);
  tabifyDockWidget(inspectorDock, controlsDock);
  inspectorDock->raise();

  m_plots = new PlotPanel(m_document, m_simulation, this);
  m_plots->setObjectName("plotPanel");
  auto* plotsDock = new QDockWidget(tr("Plots"), this);
  plotsDock->setObjectName("plotsDock");
  plotsDock->setWidget(m_plots);
  addDockWidget(Qt::BottomDockWidgetArea, plotsDock, Qt::Vertical);  // below the timeline, full width
  plotsDock->hide();  // shown by View > Plots > Plot Panel or the scene tree's Plot menu
  connect(m_plots, &PlotPanel::frameRequested, m_simulation,
          [this](std::size_t index) { m_simulation->scrubTo(index); });
  connect(m_plots, &PlotPanel::message, this, &MainWindow::appendMessage);

  // Right-click in the scene tree: Plot the object's quantities of the run.
  m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    const ObjectRef ref = m_model->refAt(m_tree->indexAt(at));
    if (ref.isNone() || ref.kind == ObjectKind::Group) return;
    QMenu menu(this);
    menu.setObjectName("sceneTreeContextMenu");
    fillTreeContextMenu(&menu, ref);
    if (!menu.isEmpty()) menu.exec(m_tree->viewport()->mapToGlobal(at));
  });
}

void MainWindow::fillTreeContextMenu(QMenu* menu, const ObjectRef& ref) {
  QMenu* plot = menu->addMenu(tr("&Plot"));
  plot->setObjectName("menuPlotObject");
  const QStringList columns = m_plots->columnsFor(ref);
  if (!isSimulating()) {
    plot->setEnabled(false);
    plot->setTitle(tr("&Plot (while simulating)"));
    return;
  }
  if (columns.isEmpty()) {
    plot->setEnabled(false);
    return;
  }
  m_plots->fillColumnMenu(plot, columns);
  // Adding from here shows the panel.
  for (QAction* a : plot->findChildren<QAction*>()) {
    connect(a, &QAction::triggered, this, [this] { showPlotPanel(); });
  }
}

void MainWindow::showPlotPanel() {
  auto* dock = findChild<QDockWidget*>("plotsDock");
  if (!dock->isVisible()) {
    dock->show();
    // Room for the axes and a few series, taken from the viewport.
    if (!dock->isFloating() && dock->height() < 240) resizeDocks({dock}, {280}, Qt::Vertical);
  }
  dock->raise();
}

void MainWindow::createActions() {
  const auto make = [this](const QString& text, const char* name, const QKeySequence& key = {}) {
    auto* a = new QAction(text, this);
    a->setObjectName(QString::fromLatin1(name));
    if (!key.isEmpty()) a->setShortcut(key);
    return a;
  };
  m_newAction = make(tr("&New"), "actionNew", QKeySequence::New);
  connect(m_newAction, &QAction::triggered, this, &MainWindow::newDesign);
  m_openAction = make(tr("&Open…"), "actionOpen", QKeySequence::Open);
  connect(m_openAction, &QAction::triggered, this, &MainWindow::openWithDialog);
  m_reloadAction = make(tr("Re&load from Disk"), "actionReload", QKeySequence(tr("Ctrl+Shift+R")));
  m_reloadAction->setToolTip(tr("Read the file again (after editing it elsewhere), with the same import choices"));
  connect(m_reloadAction, &QAction::triggered, this, &MainWindow::reloadFromDisk);
  m_insertAction = make(tr("&Insert Model…"), "actionInsertModel", QKeySequence(tr("Ctrl+Shift+I")));
  m_insertAction->setToolTip(tr("Add the model of a URDF, SDF or scene file to this design"));
  connect(m_insertAction, &QAction::triggered, this, &MainWindow::insertModelWithDialog);
  m_saveAction = make(tr("&Save"), "actionSave", QKeySequence::Save);
  connect(m_saveAction, &QAction::triggered, this, &MainWindow::save);
  m_saveAsAction = make(tr("Save &As…"), "actionSaveAs", QKeySequence::SaveAs);
  connect(m_saveAsAction, &QAction::triggered, this, &MainWindow::saveAs);
  m_exportAction = make(tr("&Export for Headless Run…"), "actionExport", QKeySequence(tr("Ctrl+E")));
  connect(m_exportAction, &QAction::triggered, this, &MainWindow::exportWithDialog);
  m_exportAsAction = make(tr("Export &As URDF, SDF or MJCF…"), "actionExportAs");
  m_exportAsAction->setToolTip(
      tr("Write the design as URDF, SDF or MJCF (by the file's extension), with a report of "
         "what the format cannot hold"));
  connect(m_exportAsAction, &QAction::triggered, this, &MainWindow::exportAsWithDialog);
  m_exportHdf5Action = make(tr("Export Run to &HDF5…"), "actionExportHdf5");
  m_exportHdf5Action->setToolTip(
      tr("Write the recorded frames of this run as an HDF5 run log (as articula-run --hdf5)"));
  connect(m_exportHdf5Action, &QAction::triggered, this, [this] {
    const QString path = m_dialogs.saveFile(this, tr("Export Run to HDF5"), tr("HDF5 run logs (*.h5)"),
                                            QFileInfo(m_document->displayName()).completeBaseName() + "-run.h5");
    if (!path.isEmpty()) exportRunToHdf5(path.endsWith(".h5") ? path : path + ".h5");
  });
  m_quitAction = make(tr("&Quit"), "actionQuit", QKeySequence::Quit);
  connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

  // Undo and redo change the design: not while the simulation runs (its
  // copy of the design must stay the design the user returns to).
  QUndoStack* stack = m_document->undoStack();
  m_undoAction = make(tr("&Undo"), "actionUndo", QKeySequence::Undo);
  connect(m_undoAction, &QAction::triggered, this, [this, stack] {
    if (!m_document->isLocked()) stack->undo();
  });
  m_redoAction = make(tr("&Redo"), "actionRedo", QKeySequence::Redo);
  m_redoAction->setShortcuts({QKeySequence::Redo, QKeySequence(tr("Ctrl+Y"))});
  connect(m_redoAction, &QAction::triggered, this, [this, stack] {
    if (!m_document->isLocked()) stack->redo();
  });
  connect(stack, &QUndoStack::indexChanged, this, &MainWindow::updateActions);
  connect(stack, &QUndoStack::undoTextChanged, this, &MainWindow::updateActions);
  connect(stack, &QUndoStack::redoTextChanged, this, &MainWindow::updateActions);
  m_deleteAction = make(tr("&Delete"), "actionDelete", QKeySequence::Delete);
  connect(m_deleteAction, &QAction::triggered, this, &MainWindow::deleteSelection);
  m_duplicateAction = make(tr("D&uplicate"), "actionDuplicate", QKeySequence(tr("Ctrl+D")));
  connect(m_duplicateAction, &QAction::triggered, this, &MainWindow::duplicateSelection);
  m_renameAction = make(tr("&Rename"), "actionRename", QKeySequence(Qt::Key_F2));
  connect(m_renameAction, &QAction::triggered, this, [this] {
    const QModelIndex i = m_tree->currentIndex();
    if (i.isValid()) m_tree->edit(i.siblingAtColumn(0));
  });
  m_preferencesAction = make(tr("&Preferences…"), "actionPreferences", QKeySequence::Preferences);
  connect(m_preferencesAction, &QAction::triggered, this, &MainWindow::showPreferences);

  m_simulateAction = make(tr("&Simulate"), "actionSimulate", QKeySequence(tr("Ctrl+R")));
  m_simulateAction->setCheckable(true);
  m_simulateAction->setToolTip(tr("Enter or leave simulation mode (the design is kept as it is)"));
  connect(m_simulateAction, &QAction::triggered, this, [this](bool on) {
    if (on) {
      if (!enterSimulation()) m_simulateAction->setChecked(false);
    } else {
      leaveSimulation();
    }
  });
  m_playAction = make(tr("&Play"), "actionPlay", QKeySequence(Qt::Key_Space));
  connect(m_playAction, &QAction::triggered, this, [this] {
    if (m_simulation->status().playing) {
      m_simulation->pause();
    } else if (m_simulation->status().shownFrame &&
               *m_simulation->status().shownFrame + 1 < m_simulation->status().frames) {
      m_simulation->resumeFromShown();
    } else {
      m_simulation->play();
    }
  });
  m_pauseAction = make(tr("P&ause"), "actionPause");
  connect(m_pauseAction, &QAction::triggered, m_simulation, &Simulation::pause);
  m_stepAction = make(tr("S&tep"), "actionStep", QKeySequence(tr("Ctrl+.")));
  connect(m_stepAction, &QAction::triggered, this, [this] { m_simulation->step(1); });
  m_resetAction = make(tr("R&eset"), "actionReset", QKeySequence(tr("Ctrl+Backspace")));
  connect(m_resetAction, &QAction::triggered, m_simulation, &Simulation::reset);

  // F, W and E act wherever the focus is in the window (the scene tree's
  // type-ahead does not take them; text fields still get their letters,
  // since an editor that takes a key overrides the window's shortcut).
  m_fitAction = make(tr("&Fit to Scene"), "actionFit", QKeySequence(Qt::Key_F));
  connect(m_fitAction, &QAction::triggered, m_viewport, &ViewportWidget::fitToScene);
  auto* gizmoGroup = new QActionGroup(this);
  m_translateAction = make(tr("&Translate Gizmo"), "actionTranslate", QKeySequence(tr("W")));
  m_rotateAction = make(tr("R&otate Gizmo"), "actionRotate", QKeySequence(tr("E")));
  for (QAction* a : {m_translateAction, m_rotateAction}) {
    a->setCheckable(true);
    gizmoGroup->addAction(a);
  }
  m_translateAction->setChecked(true);
  connect(m_translateAction, &QAction::triggered, this, [this] { m_viewport->setGizmoTranslate(true); });
  connect(m_rotateAction, &QAction::triggered, this, [this] { m_viewport->setGizmoTranslate(false); });
  m_overlayAction = make(tr("&Statistics Overlay"), "actionOverlay", QKeySequence(tr("Ctrl+I")));
  m_overlayAction->setCheckable(true);
  m_overlayAction->setChecked(true);
  connect(m_overlayAction, &QAction::toggled, this, [this](bool on) {
    if (m_viewport->viewport()) m_viewport->viewport()->setOverlayEnabled(on);
    m_viewport->update();
  });
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(m_newAction);
  file->addAction(m_openAction);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  m_recentMenu->setObjectName("recentMenu");
  file->addAction(m_reloadAction);
  file->addAction(m_insertAction);
  file->addSeparator();
  file->addAction(m_saveAction);
  file->addAction(m_saveAsAction);
  file->addAction(m_exportAction);
  file->addAction(m_exportAsAction);
  file->addAction(m_exportHdf5Action);
  file->addSeparator();
  file->addAction(m_quitAction);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(m_undoAction);
  edit->addAction(m_redoAction);
  edit->addSeparator();
  edit->addAction(m_renameAction);
  edit->addAction(m_duplicateAction);
  edit->addAction(m_deleteAction);
  edit->addSeparator();
  m_pinAction = edit->addAction(tr("&Pin Selected While Dragging"));
  m_pinAction->setObjectName("actionPinSelected");
  m_pinAction->setShortcut(QKeySequence(tr("Ctrl+Shift+P")));
  m_pinAction->setToolTip(tr("Hold the selected links where they are while another link is dragged (toggle)"));
  connect(m_pinAction, &QAction::triggered, this, &MainWindow::togglePinSelected);
  m_interferenceAction = edit->addAction(tr("Check &Interference"));
  m_interferenceAction->setObjectName("actionCheckInterference");
  m_interferenceAction->setShortcut(QKeySequence(tr("Ctrl+Shift+I")));
  m_interferenceAction->setToolTip(tr("Outline the bodies that touch or overlap and list the pairs (design mode)"));
  connect(m_interferenceAction, &QAction::triggered, this, [this] { checkInterference(true); });
  m_liveInterferenceAction = edit->addAction(tr("Check Interference While &Dragging"));
  m_liveInterferenceAction->setObjectName("actionLiveInterference");
  m_liveInterferenceAction->setCheckable(true);
  connect(m_liveInterferenceAction, &QAction::toggled, this, [this](bool on) {
    if (on) {
      checkInterference(false);
    } else {
      m_viewport->scene().setInterference({});
      m_viewport->update();
    }
  });
  edit->addSeparator();
  edit->addAction(m_preferencesAction);

  QMenu* create = menuBar()->addMenu(tr("&Create"));
  QMenu* body = create->addMenu(tr("&Rigid Body"));
  for (GeometryType type : {GeometryType::Box, GeometryType::Sphere, GeometryType::Cylinder, GeometryType::Capsule}) {
    const QString name = qs(std::string(toString(type)));
    QAction* a = body->addAction(name.left(1).toUpper() + name.mid(1));
    a->setObjectName("actionCreateBody_" + name);
    connect(a, &QAction::triggered, this, [this, type] { createRigidBody(type); });
    m_createActions.push_back(a);
  }
  QAction* multibody = create->addAction(tr("&Multibody"));
  multibody->setObjectName("actionCreateMultibody");
  connect(multibody, &QAction::triggered, this, [this] {
    ops::BodyShape shape;
    shape.geometry = Geometry::box(Vector3d(0.1, 0.1, 0.1));
    shape.color = Vector4d(0.3, 0.5, 0.85, 1.0);
    Isometry3d pose = Isometry3d::Identity();
    pose.translation() = ops::freeSpot(m_document->world(), halfExtents(shape.geometry), Vector3d(0.0, 0.0, 1.0));
    ObjectRef created;
    if (editWithMessage(tr("Create multibody"),
                        [&](World& w) { created = ops::createMultibody(w, "", JointType::Weld, shape, pose); })) {
      m_document->setSelection({created});
    }
  });
  m_createActions.push_back(multibody);
  QMenu* link = create->addMenu(tr("&Link Under Selected"));
  for (JointType type : {JointType::Revolute, JointType::Prismatic, JointType::Universal, JointType::Ball,
                         JointType::Weld, JointType::Screw, JointType::Planar, JointType::Free}) {
    const QString name = qs(std::string(toString(type)));
    QAction* a = link->addAction(name.left(1).toUpper() + name.mid(1));
    a->setObjectName("actionCreateLink_" + name);
    connect(a, &QAction::triggered, this, [this, type] { createLink(type); });
    m_createActions.push_back(a);
  }
  QMenu* closure = create->addMenu(tr("Loop &Closure Between Selected"));
  for (LoopClosureFamily family :
       {LoopClosureFamily::Rigid, LoopClosureFamily::Point, LoopClosureFamily::Hinge, LoopClosureFamily::Slider,
        LoopClosureFamily::Universal, LoopClosureFamily::Distance}) {
    const QString name = qs(std::string(toString(family)));
    QAction* a = closure->addAction(name.left(1).toUpper() + name.mid(1));
    a->setObjectName("actionCreateClosure_" + name);
    connect(a, &QAction::triggered, this, [this, family] { createLoopClosure(family); });
    m_createActions.push_back(a);
  }
  QAction* coupler = create->addAction(tr("C&oupler Between Selected Joints"));
  coupler->setObjectName("actionCreateCoupler");
  connect(coupler, &QAction::triggered, this, &MainWindow::createCoupler);
  m_createActions.push_back(coupler);
  QMenu* actuator = create->addMenu(tr("&Actuator on Selected Joint"));
  for (const ActuatorType type : {ActuatorType::PositionServo, ActuatorType::VelocityServo, ActuatorType::Pid,
                                  ActuatorType::Motor, ActuatorType::DcMotor, ActuatorType::Lock}) {
    const QString name = QString::fromUtf8(toString(type));
    QAction* a = actuator->addAction(name.left(1).toUpper() + name.mid(1).replace('_', ' '));
    a->setObjectName("actionCreateActuator_" + name);
    connect(a, &QAction::triggered, this, [this, type] { createActuator(type); });
    m_createActions.push_back(a);
  }
  QAction* schedule = create->addAction(tr("&Schedule on Selected Actuator"));
  schedule->setObjectName("actionCreateSchedule");
  connect(schedule, &QAction::triggered, this, [this] {
    const ObjectRef selected = m_document->current();
    if (selected.kind != ObjectKind::Actuator) {
      m_dialogs.error(this, tr("Create schedule"), tr("Select an actuator to schedule."));
      return;
    }
    ObjectRef created;
    if (editWithMessage(tr("Create schedule"), [&](World& w) { created = ops::addSchedule(w, selected); })) {
      m_document->setSelection({created});
    }
  });
  m_createActions.push_back(schedule);
  QAction* frame = create->addAction(tr("&Frame on Selected"));
  frame->setObjectName("actionCreateFrame");
  connect(frame, &QAction::triggered, this, &MainWindow::createFrame);
  m_createActions.push_back(frame);
  create->addSeparator();
  QAction* ground = create->addAction(tr("&Ground Plane"));
  ground->setObjectName("actionCreateGroundPlane");
  connect(ground, &QAction::triggered, this, &MainWindow::createGroundPlane);
  m_createActions.push_back(ground);

  createKeyframeMenu();

  QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
  sim->addAction(m_simulateAction);
  sim->addSeparator();
  sim->addAction(m_playAction);
  sim->addAction(m_pauseAction);
  sim->addAction(m_stepAction);
  sim->addAction(m_resetAction);
  sim->addSeparator();
  QAction* timeStep = sim->addAction(tr("&Time Step…"));
  timeStep->setObjectName("actionTimeStep");
  connect(timeStep, &QAction::triggered, this, [this] {
    const double current = isSimulating() ? m_simulation->status().timeStep : m_document->world().getOptions().timeStep;
    bool ok = false;
    const double h = QInputDialog::getDouble(this, tr("Time Step"), tr("Time step (s):"), current, 1e-6, 0.1, 6, &ok,
                                             Qt::WindowFlags(), 1e-4);
    if (!ok) return;
    if (isSimulating()) {
      m_simulation->setTimeStep(h);
    } else {
      editWithMessage(tr("Set time step"), [h](World& w) { w.setTimeStep(h); });
    }
  });
  QMenu* solver = sim->addMenu(tr("Constraint &Solver"));
  auto* solverGroup = new QActionGroup(this);
  for (const std::string& method : constraintSolverMethods()) {
    QAction* a = solver->addAction(QString::fromStdString(method));
    a->setCheckable(true);
    a->setObjectName(QStringLiteral("actionSolver_") + QString::fromStdString(method));
    solverGroup->addAction(a);
    connect(a, &QAction::triggered, this, [this, method] {
      if (isSimulating()) {
        m_simulation->setSolverMethod(method);
      } else {
        editWithMessage(tr("Set solver"), [method](World& w) {
          WorldOptions o = w.getOptions();
          o.solver.method = method;
          w.setOptions(o);
        });
      }
    });
  }
  connect(sim, &QMenu::aboutToShow, this, [this, solverGroup] {
    const std::string current =
        isSimulating() ? m_simulation->status().solverMethod : m_document->world().getOptions().solver.method;
    for (QAction* a : solverGroup->actions()) a->setChecked(a->text().toStdString() == current);
  });

  m_viewMenu = menuBar()->addMenu(tr("&View"));
  m_viewMenu->addAction(m_fitAction);
  QAction* screenshot = m_viewMenu->addAction(tr("Save &Screenshot…"));
  screenshot->setObjectName("actionScreenshot");
  screenshot->setShortcut(QKeySequence(tr("F12")));
  screenshot->setToolTip(tr("Save the 3D view as a PNG image"));
  connect(screenshot, &QAction::triggered, this, [this] {
    const QString name = QFileInfo(m_document->displayName()).completeBaseName() + "-" +
                         QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss") + ".png";
    const QString path = m_dialogs.saveFile(this, tr("Save Screenshot"), tr("PNG images (*.png)"), name);
    if (!path.isEmpty()) saveScreenshot(path.endsWith(".png", Qt::CaseInsensitive) ? path : path + ".png");
  });
  QMenu* viewpoints = m_viewMenu->addMenu(tr("View&points"));
  viewpoints->setObjectName("menuViewpoints");
  connect(viewpoints, &QMenu::aboutToShow, this, [this, viewpoints] { fillViewpointMenu(viewpoints); });
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(m_translateAction);
  m_viewMenu->addAction(m_rotateAction);
  m_viewMenu->addAction(m_overlayAction);
  QMenu* layers = m_viewMenu->addMenu(tr("&Layers"));
  for (viewer::Layer layer : viewer::allLayers()) {
    QAction* a = layers->addAction(qs(viewer::layerName(layer)));
    a->setObjectName(qs("actionLayer_" + viewer::layerName(layer)));
    a->setCheckable(true);
    a->setChecked(m_viewport->scene().isLayerVisible(layer));
    connect(a, &QAction::toggled, this, [this, layer](bool on) {
      m_viewport->scene().setLayerVisible(layer, on);
      // Joint reactions cost a pass per step: snapshots carry them only
      // while something shows them.
      if (layer == viewer::Layer::JointForces) m_simulation->publisher().setJointForces(on || m_jointForcePlots > 0);
      m_viewport->update();
    });
  }
  QMenu* plots = m_viewMenu->addMenu(tr("&Plots"));
  QAction* panel = plots->addAction(tr("Plot &Panel"));
  panel->setObjectName("actionPlotPanel");
  panel->setToolTip(tr("Plot any quantity of the run in a dock: series, zoom, CSV, PNG and SVG"));
  connect(panel, &QAction::triggered, this, &MainWindow::showPlotPanel);
  plots->addSeparator();
  const auto addPlot = [this, plots](const QString& text, viewer::PlotQuantity quantity) {
    QAction* a = plots->addAction(text);
    a->setCheckable(true);
    connect(a, &QAction::toggled, this, [this, a, quantity](bool on) {
      viewer::Viewport* vp = m_viewport->viewport();
      if (!vp) return;
      const int id = a->property("plotId").toInt();
      if (on) {
        viewer::PlotSpec spec;
        spec.quantity = quantity;
        a->setProperty("plotId", vp->overlay().addPlot(spec));
      } else {
        vp->overlay().removePlot(id);
      }
      m_viewport->update();
    });
  };
  addPlot(tr("Total energy"), viewer::PlotQuantity::TotalEnergy);
  addPlot(tr("Kinetic energy"), viewer::PlotQuantity::KineticEnergy);
  addPlot(tr("Closure residual"), viewer::PlotQuantity::ClosureResidual);
  addPlot(tr("Solve residual"), viewer::PlotQuantity::SolverResidual);
  // Sensors and joint forces: the scene's own, listed when the menu opens.
  QMenu* sensorPlots = plots->addMenu(tr("&Sensors"));
  sensorPlots->setObjectName("menuSensorPlots");
  QMenu* forcePlots = plots->addMenu(tr("&Joint Forces"));
  forcePlots->setObjectName("menuJointForcePlots");
  const auto fill = [this](QMenu* menu, bool sensors) {
    menu->clear();
    const std::shared_ptr<const viewer::SceneDescription> d = m_viewport->scene().description();
    std::vector<std::pair<QString, int>> items;
    if (d && sensors) {
      for (const viewer::SensorDescription& s : d->sensors) {
        for (std::size_t k = 0; k < s.valueNames.size(); ++k) {
          items.emplace_back(qs(s.name + ":" + s.valueNames[k]), s.offset + static_cast<int>(k));
        }
      }
    } else if (d) {
      for (const viewer::JointDescription& j : d->joints) {
        if (j.numDofs == 1 && j.velocityOffset >= 0) items.emplace_back(qs(j.name), j.velocityOffset);
      }
    }
    if (items.empty()) menu->addAction(sensors ? tr("(no sensors)") : tr("(no 1-DoF joints)"))->setEnabled(false);
    for (const auto& [text, index] : items) {
      QAction* a = menu->addAction(text);
      a->setObjectName(qs(std::string(sensors ? "actionPlotSensor_" : "actionPlotJointForce_")) + text);
      connect(a, &QAction::triggered, this, [this, sensors, index = index] {
        viewer::Viewport* vp = m_viewport->viewport();
        if (!vp) return;
        viewer::PlotSpec spec;
        spec.quantity = sensors ? viewer::PlotQuantity::Sensor : viewer::PlotQuantity::JointForce;
        spec.index = index;
        vp->overlay().addPlot(spec);
        if (!sensors) {
          ++m_jointForcePlots;
          m_simulation->publisher().setJointForces(true);
        }
        if (!m_overlayAction->isChecked()) m_overlayAction->setChecked(true);
        m_viewport->update();
      });
    }
  };
  connect(sensorPlots, &QMenu::aboutToShow, this, [fill, sensorPlots] { fill(sensorPlots, true); });
  connect(forcePlots, &QMenu::aboutToShow, this, [fill, forcePlots] { fill(forcePlots, false); });
  m_viewMenu->addSeparator();
  for (QDockWidget* dock : findChildren<QDockWidget*>()) m_viewMenu->addAction(dock->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* about = help->addAction(tr("&About Articula Studio"));
  connect(about, &QAction::triggered, this, [this] {
    QMessageBox::about(this, tr("About Articula Studio"),
                       tr("Articula Studio — design, simulate and replay articulated mechanisms.\n\n"
                          "Viewport: left drag orbits, middle or Shift + left drag pans, right drag or the wheel "
                          "zooms, a click selects, F frames the scene, W / E switch the gizmo. While simulating, "
                          "Ctrl + left drag pulls a body."));
  });
}

void MainWindow::createToolBar() {
  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName("mainToolBar");
  bar->addAction(m_newAction);
  bar->addAction(m_openAction);
  bar->addAction(m_saveAction);
  bar->addSeparator();
  bar->addAction(m_undoAction);
  bar->addAction(m_redoAction);
  bar->addSeparator();
  bar->addAction(m_translateAction);
  bar->addAction(m_rotateAction);
  bar->addSeparator();
  bar->addAction(m_simulateAction);
  bar->addAction(m_playAction);
  bar->addAction(m_stepAction);
  bar->addAction(m_resetAction);
  m_rtfBox = new QComboBox(this);
  m_rtfBox->setObjectName("targetRtf");
  m_rtfBox->setToolTip(tr("Target real-time factor"));
  for (double f : {0.1, 0.25, 0.5, 1.0, 2.0, 4.0}) m_rtfBox->addItem(QStringLiteral("%1×").arg(f), f);
  m_rtfBox->addItem(tr("as fast as possible"), 0.0);
  selectRealTimeFactor(Preferences::load().targetRealTimeFactor);
  connect(m_rtfBox, &QComboBox::currentIndexChanged, this,
          [this] { m_simulation->setTargetRealTimeFactor(m_rtfBox->currentData().toDouble()); });
  bar->addWidget(new QLabel(tr(" Real time: "), this));
  bar->addWidget(m_rtfBox);

  // The keyframe strip: capture, and one button per keyframe (in time order) that applies it.
  m_keyframeBar = new QToolBar(tr("Keyframes"), this);
  m_keyframeBar->setObjectName("keyframeStrip");
  addToolBarBreak();
  addToolBar(m_keyframeBar);
  rebuildKeyframeStrip();
}

void MainWindow::createKeyframeMenu() {
  QMenu* menu = menuBar()->addMenu(tr("&Keyframes"));
  m_captureAction = menu->addAction(tr("&Capture Pose"));
  m_captureAction->setObjectName("actionCaptureKeyframe");
  m_captureAction->setShortcut(QKeySequence(tr("Ctrl+K")));
  m_captureAction->setToolTip(tr("Store the design's pose as a new keyframe, 1 s after the last one"));
  connect(m_captureAction, &QAction::triggered, this, &MainWindow::captureKeyframe);
  m_applyKeyframeMenu = menu->addMenu(tr("&Apply Keyframe"));
  m_applyKeyframeMenu->setObjectName("applyKeyframeMenu");
  connect(m_applyKeyframeMenu, &QMenu::aboutToShow, this, [this] {
    m_applyKeyframeMenu->clear();
    std::vector<KeyframeSpec> keys = m_document->world().getKeyframes();
    std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
    for (const KeyframeSpec& k : keys) {
      const QString name = QString::fromStdString(k.name);
      QAction* a = m_applyKeyframeMenu->addAction(tr("%1 (t = %2 s)").arg(name).arg(k.time));
      a->setEnabled(!isSimulating());
      connect(a, &QAction::triggered, this, [this, name] { applyKeyframe(name); });
    }
    if (keys.empty()) m_applyKeyframeMenu->addAction(tr("(no keyframes)"))->setEnabled(false);
  });
  m_keyframeSchedulesAction = menu->addAction(tr("&Schedules from Keyframes"));
  m_keyframeSchedulesAction->setObjectName("actionKeyframeSchedules");
  m_keyframeSchedulesAction->setToolTip(
      tr("Drive every position servo through the keyframes in time order (one schedule per servo)"));
  connect(m_keyframeSchedulesAction, &QAction::triggered, this, &MainWindow::makeKeyframeSchedules);
  m_createActions.push_back(m_captureAction);
  m_createActions.push_back(m_keyframeSchedulesAction);
}

void MainWindow::rebuildKeyframeStrip() {
  if (m_keyframeBar == nullptr) return;
  m_keyframeBar->clear();
  m_keyframeBar->addWidget(new QLabel(tr(" Keyframes: "), m_keyframeBar));
  m_keyframeBar->addAction(m_captureAction);
  std::vector<KeyframeSpec> keys = m_document->world().getKeyframes();
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  for (const KeyframeSpec& k : keys) {
    const QString name = QString::fromStdString(k.name);
    QAction* a = m_keyframeBar->addAction(tr("%1 · %2 s").arg(name).arg(k.time));
    a->setObjectName("keyframe_" + name);
    a->setToolTip(tr("Apply keyframe %1").arg(name));
    a->setEnabled(!isSimulating());
    connect(a, &QAction::triggered, this, [this, name] { applyKeyframe(name); });
  }
  if (!keys.empty()) m_keyframeBar->addAction(m_keyframeSchedulesAction);
}

void MainWindow::captureKeyframe() {
  const World& w = m_document->world();
  double time = 0.0;
  std::set<std::string> taken;
  for (const KeyframeSpec& k : w.getKeyframes()) {
    time = std::max(time, k.time + 1.0);
    taken.insert(k.name);
  }
  std::string name;
  for (int i = 1; name.empty() || taken.count(name) != 0; ++i) name = "pose_" + std::to_string(i);
  if (editWithMessage(tr("Capture keyframe %1").arg(QString::fromStdString(name)),
                      [&](World& world) { world.addKeyframe(world.captureKeyframe(name, time)); })) {
    m_document->setSelection({{ObjectKind::Keyframe, name}});
  }
}

void MainWindow::applyKeyframe(const QString& name) {
  if (isSimulating()) return;
  const std::optional<KeyframeSpec> k = m_document->world().getKeyframe(name.toStdString());
  if (!k) return;
  if (k->q.size() != m_document->world().numPositions()) {
    m_dialogs.error(this, tr("Apply keyframe"),
                    tr("Keyframe %1 holds %2 positions; the design now has %3 (it was edited since the keyframe "
                       "was captured).")
                        .arg(name)
                        .arg(k->q.size())
                        .arg(m_document->world().numPositions()));
    return;
  }
  m_document->setPositions(tr("Apply keyframe %1").arg(name), k->q);
  statusBar()->showMessage(tr("Keyframe %1 applied").arg(name), 3000);
}

void MainWindow::makeKeyframeSchedules() {
  std::vector<KeyframeSpec> keys = m_document->world().getKeyframes();
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  std::vector<std::string> names;
  for (const KeyframeSpec& k : keys) names.push_back(k.name);
  if (names.empty()) {
    m_dialogs.error(this, tr("Schedules from keyframes"), tr("Capture keyframes first (Keyframes ▸ Capture Pose)."));
    return;
  }
  int made = 0;
  if (!editWithMessage(tr("Schedules from keyframes"), [&](World& w) {
        const std::vector<ScheduleSpec> schedules = w.makeKeyframeSchedules(names);
        if (schedules.empty()) {
          throw InvalidArgument(
              "no position servo to drive: add position servos to the joints first (Create ▸ Actuator on "
              "Selected Joint ▸ Position)");
        }
        for (const ScheduleSpec& s : schedules) {
          w.removeSchedule(s.name);
          w.addSchedule(s);
        }
        made = static_cast<int>(schedules.size());
      })) {
    return;
  }
  appendMessage(tr("%1 position servo(s) follow the %2 keyframes (schedules keyframes_*)").arg(made).arg(names.size()));
}

void MainWindow::togglePinSelected() {
  std::vector<ObjectRef> targets;
  for (const ObjectRef& r : m_document->selection()) {
    if (r.kind == ObjectKind::Link || r.kind == ObjectKind::RigidBody) targets.push_back(r);
  }
  if (targets.empty()) {
    statusBar()->showMessage(tr("Select links to pin"), 3000);
    return;
  }
  const bool pin = !m_document->isPinned(targets.front());
  for (const ObjectRef& r : targets) m_document->setPinned(r, pin);
  QStringList names;
  for (const ObjectRef& r : m_document->pins()) names << QString::fromStdString(r.name);
  statusBar()->showMessage(names.isEmpty() ? tr("Nothing pinned") : tr("Pinned: %1").arg(names.join(", ")), 5000);
}

void MainWindow::selectRealTimeFactor(double factor) {
  int index = m_rtfBox->findData(factor);
  if (index < 0) {
    // A value of the preferences that is not one of the presets.
    m_rtfBox->insertItem(0, QStringLiteral("%1×").arg(factor), factor);
    index = 0;
  }
  m_rtfBox->setCurrentIndex(index);
}

void MainWindow::createStatusBar() {
  m_modeLabel = new QLabel(this);
  m_modeLabel->setObjectName("modeLabel");
  m_timeLabel = new QLabel(this);
  m_timeLabel->setObjectName("timeLabel");
  m_rtfLabel = new QLabel(this);
  m_rtfLabel->setObjectName("rtfLabel");
  m_residualLabel = new QLabel(this);
  m_residualLabel->setObjectName("residualLabel");
  statusBar()->addPermanentWidget(m_residualLabel);
  statusBar()->addPermanentWidget(m_timeLabel);
  statusBar()->addPermanentWidget(m_rtfLabel);
  statusBar()->addPermanentWidget(m_modeLabel);
}

// ---- state shown ---------------------------------------------------------------------

void MainWindow::updateTitle() {
  setWindowTitle(QStringLiteral("%1[*] — Articula Studio").arg(m_document->displayName()));
  setWindowModified(m_document->isModified());
}

void MainWindow::updateActions() {
  const bool sim = isSimulating();
  m_modeLabel->setText(sim ? tr(" SIMULATION ") : tr(" DESIGN "));
  m_modeLabel->setStyleSheet(sim ? "QLabel { background: #c0392b; color: white; font-weight: bold; }"
                                 : "QLabel { background: #2e7d32; color: white; font-weight: bold; }");
  for (QAction* a : m_createActions) a->setEnabled(!sim);
  rebuildKeyframeStrip();
  for (QAction* a : {m_deleteAction, m_duplicateAction, m_renameAction, m_newAction, m_openAction, m_insertAction}) {
    a->setEnabled(!sim);
  }
  m_reloadAction->setEnabled(!sim && !m_document->sourcePath().empty());
  QUndoStack* stack = m_document->undoStack();
  m_undoAction->setEnabled(!sim && stack->canUndo());
  m_redoAction->setEnabled(!sim && stack->canRedo());
  m_undoAction->setText(stack->canUndo() ? tr("&Undo %1").arg(stack->undoText()) : tr("&Undo"));
  m_redoAction->setText(stack->canRedo() ? tr("&Redo %1").arg(stack->redoText()) : tr("&Redo"));
  if (QWidget* history = findChild<QWidget*>("undoHistory")) history->setEnabled(!sim);
  for (QAction* a : {m_playAction, m_pauseAction, m_stepAction, m_resetAction, m_exportHdf5Action}) a->setEnabled(sim);
  m_simulateAction->setChecked(sim);
  if (!sim) {
    m_timeLabel->clear();
    m_rtfLabel->clear();
    m_residualLabel->setText(m_document->world().numLoopClosures() > 0
                                 ? tr("closure residual %1").arg(m_document->maxClosureResidual(), 0, 'g', 3)
                                 : QString());
  }
}

void MainWindow::appendMessage(const QString& text) {
  m_messages->appendPlainText(QDateTime::currentDateTime().toString("HH:mm:ss  ") + text);
}

QString MainWindow::messagesText() const {
  return m_messages->toPlainText();
}

void MainWindow::showImportReport(const io::ImportReport& report, bool show) {
  if (!m_reportDialog) {
    m_reportDialog = new QDialog(this);
    m_reportDialog->setObjectName("importReportDialog");
    m_reportDialog->setWindowTitle(tr("Import report"));
    m_reportDialog->resize(720, 400);
    auto* layout = new QVBoxLayout(m_reportDialog);
    m_reportSummary = new QLabel(m_reportDialog);
    m_reportSummary->setObjectName("importReportSummary");
    m_reportSummary->setWordWrap(true);
    m_reportSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_reportSummary);
    m_reportView = new ImportReportView(m_reportDialog);
    m_reportView->setObjectName("importReportTree");
    layout->addWidget(m_reportView, 1);
    // The same findings as plain text (to copy), hidden until asked for.
    m_reportText = new QPlainTextEdit(m_reportDialog);
    m_reportText->setObjectName("importReportText");
    m_reportText->setReadOnly(true);
    m_reportText->setVisible(false);
    layout->addWidget(m_reportText, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, m_reportDialog);
    QPushButton* asText = buttons->addButton(tr("As Text"), QDialogButtonBox::ActionRole);
    asText->setObjectName("importReportAsText");
    asText->setCheckable(true);
    connect(asText, &QPushButton::toggled, this, [this](bool on) {
      m_reportText->setVisible(on);
      m_reportView->setVisible(!on);
    });
    connect(buttons, &QDialogButtonBox::rejected, m_reportDialog, &QDialog::hide);
    layout->addWidget(buttons);
  }
  m_reportSummary->setText(
      tr("%1 (%2): %3 mesh(es) loaded").arg(qs(report.file), qs(report.format)).arg(report.numMeshesLoaded));
  m_reportView->setReport(report);
  m_reportText->setPlainText(qs(report.toText()));
  if (show && reportNeedsAttention(report)) {
    m_reportDialog->show();
    m_reportDialog->raise();
  } else if (report.format != "articula" && !reportNeedsAttention(report) && m_reportDialog->isVisible()) {
    // The report of an earlier file is not left standing over this one.
    m_reportDialog->hide();
  }
}

void MainWindow::onSimulationStatus(const SimulationStatus& status) {
  if (!status.active) return;
  m_timeLabel->setText(tr("t = %1 s  step %2").arg(status.time, 0, 'f', 3).arg(status.step));
  const QString target =
      status.targetRealTimeFactor > 0 ? QStringLiteral("%1×").arg(status.targetRealTimeFactor) : tr("max");
  m_rtfLabel->setText(tr("RTF %1 (target %2)").arg(status.realTimeFactor, 0, 'f', 2).arg(target));
  m_residualLabel->setText(
      status.maxClosureResidual > 0 ? tr("closure residual %1").arg(status.maxClosureResidual, 0, 'g', 3) : QString());
  m_playAction->setText(status.playing ? tr("&Pause") : tr("&Play"));
}

// ---- selection ---------------------------------------------------------------------------

void MainWindow::onDesignAboutToReset() {
  m_expanded.clear();
  std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
    for (int r = 0; r < m_model->rowCount(parent); ++r) {
      const QModelIndex i = m_model->index(r, 0, parent);
      if (m_tree->isExpanded(i)) m_expanded.push_back(m_model->refAt(i));
      walk(i);
    }
  };
  walk({});
}

void MainWindow::onTreeSelectionChanged() {
  if (m_syncingSelection) return;
  std::vector<ObjectRef> refs;
  for (const QModelIndex& i : m_tree->selectionModel()->selectedRows()) {
    const ObjectRef r = m_model->refAt(i);
    if (!r.isNone() && r.kind != ObjectKind::Group) refs.push_back(r);
  }
  m_syncingSelection = true;
  m_document->setSelection(refs);
  m_syncingSelection = false;
}

void MainWindow::onDocumentSelectionChanged() {
  if (m_syncingSelection) return;
  m_syncingSelection = true;
  QItemSelection selection;
  for (const ObjectRef& ref : m_document->selection()) {
    const QModelIndex i = m_model->indexOf(ref);
    if (!i.isValid()) continue;
    selection.select(i, i.siblingAtColumn(1));
    for (QModelIndex p = i.parent(); p.isValid(); p = p.parent()) m_tree->expand(p);
  }
  m_tree->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
  if (!selection.isEmpty()) {
    m_tree->selectionModel()->setCurrentIndex(selection.indexes().front(), QItemSelectionModel::NoUpdate);
    m_tree->scrollTo(selection.indexes().front());
  }
  m_syncingSelection = false;
}

void MainWindow::onPicked(const ObjectRef& ref) {
  if (ref.isNone()) {
    m_document->setSelection({});
  } else {
    m_document->setSelection({ref});
  }
}

// ---- editing -------------------------------------------------------------------------------

bool MainWindow::editWithMessage(const QString& label, const std::function<void(World&)>& op) {
  QString error;
  if (m_document->edit(label, op, &error)) return true;
  appendMessage(tr("%1 refused: %2").arg(label, error));
  m_dialogs.error(this, label, error);
  return false;
}

void MainWindow::createRigidBody(GeometryType type) {
  ops::BodyShape shape;
  switch (type) {
    case GeometryType::Sphere:
      shape.geometry = Geometry::sphere(0.1);
      shape.color = Vector4d(0.3, 0.7, 0.3, 1.0);
      break;
    case GeometryType::Cylinder:
      shape.geometry = Geometry::cylinder(0.08, 0.2);
      shape.color = Vector4d(0.3, 0.5, 0.85, 1.0);
      break;
    case GeometryType::Capsule:
      shape.geometry = Geometry::capsule(0.06, 0.15);
      shape.color = Vector4d(0.85, 0.65, 0.2, 1.0);
      break;
    default:
      shape.geometry = Geometry::box(Vector3d(0.2, 0.2, 0.2));
      shape.color = Vector4d(0.85, 0.3, 0.2, 1.0);
      break;
  }
  // Above the origin, or the nearest spot where it overlaps nothing.
  const Vector3d half = halfExtents(shape.geometry);
  Isometry3d pose = Isometry3d::Identity();
  pose.translation() = ops::freeSpot(m_document->world(), half, Vector3d(0.0, 0.0, 0.5));
  ObjectRef created;
  if (editWithMessage(tr("Create %1 body").arg(qs(std::string(toString(type)))),
                      [&](World& w) { created = ops::createRigidBody(w, "", shape, pose); })) {
    m_document->setSelection({created});
  }
}

void MainWindow::createGroundPlane() {
  ObjectRef created;
  if (editWithMessage(tr("Create ground plane"), [&](World& w) {
        const std::string name =
            ops::uniqueName("ground", [&](const std::string& n) { return w.getShape(n).has_value(); });
        created = refOf(w.addGroundPlane(0.0, Material{}, name));
      })) {
    m_document->setSelection({created});
  }
}

void MainWindow::createLink(JointType type) {
  const ObjectRef parent = movingBodyOf(m_document->world(), m_document->current());
  if (parent.kind != ObjectKind::Link) {
    m_dialogs.error(this, tr("Create link"), tr("Select a link first: the new link hangs from it."));
    return;
  }
  ops::BodyShape shape;
  shape.geometry = Geometry::box(Vector3d(0.3, 0.04, 0.04));
  shape.color = Vector4d(0.7, 0.7, 0.75, 1.0);
  Isometry3d offset = Isometry3d::Identity();
  offset.translation() = Vector3d(0.3, 0.0, 0.0);
  ObjectRef created;
  if (editWithMessage(tr("Create %1 link").arg(qs(std::string(toString(type)))),
                      [&](World& w) { created = ops::addLink(w, parent, "", type, offset, shape); })) {
    m_document->setSelection({created});
  }
}

void MainWindow::createLoopClosure(LoopClosureFamily family) {
  std::vector<ObjectRef> frames;
  for (const ObjectRef& r : m_document->selection()) {
    if (findFrame(m_document->world(), r)) frames.push_back(r);
  }
  if (frames.size() != 2) {
    m_dialogs.error(this, tr("Create loop closure"),
                    tr("Select exactly two frames (links, rigid bodies, user frames or the world) to close a loop."));
    return;
  }
  ObjectRef created;
  if (editWithMessage(tr("Create %1 closure").arg(qs(std::string(toString(family)))),
                      [&](World& w) { created = ops::addLoopClosure(w, "", frames[0], frames[1], family); })) {
    m_document->setSelection({created});
  }
}

void MainWindow::createCoupler() {
  std::vector<ObjectRef> joints;
  for (const ObjectRef& r : m_document->selection()) {
    if (r.kind == ObjectKind::Joint) joints.push_back(r);
  }
  if (joints.size() != 2) {
    m_dialogs.error(this, tr("Create coupler"), tr("Select two joints: the first leads, the second follows."));
    return;
  }
  ObjectRef created;
  if (editWithMessage(tr("Create coupler"),
                      [&](World& w) { created = ops::addCoupler(w, "", joints[0], joints[1], 1.0, 0.0); })) {
    m_document->setSelection({created});
  }
}

void MainWindow::createActuator(ActuatorType type) {
  ObjectRef joint = m_document->current();
  if (const auto link = findLink(m_document->world(), joint))
    joint = refOf(link->getParentJoint());  // its parent joint
  if (joint.kind != ObjectKind::Joint || !findJoint(m_document->world(), joint)) {
    m_dialogs.error(this, tr("Create actuator"), tr("Select a joint (or its child link) to drive."));
    return;
  }
  ObjectRef created;
  if (editWithMessage(tr("Create %1 actuator").arg(QString::fromUtf8(toString(type))),
                      [&](World& w) { created = ops::addActuator(w, joint, type); })) {
    m_document->setSelection({created});
  }
}

void MainWindow::createFrame() {
  ObjectRef parent = m_document->current();
  if (!findFrame(m_document->world(), parent)) parent = {ObjectKind::World, "world"};
  ObjectRef created;
  if (editWithMessage(tr("Create frame"),
                      [&](World& w) { created = ops::addUserFrame(w, "", parent, Isometry3d::Identity(), false); })) {
    m_document->setSelection({created});
  }
}

void MainWindow::deleteSelection() {
  std::vector<ObjectRef> refs;
  for (const ObjectRef& r : m_document->selection()) {
    if (r.kind != ObjectKind::World && r.kind != ObjectKind::Joint) refs.push_back(r);
  }
  if (refs.empty()) return;
  const QString label =
      refs.size() == 1 ? tr("Delete %1").arg(qs(refs.front().name)) : tr("Delete %1 objects").arg(refs.size());
  editWithMessage(label, [refs](World& w) {
    for (const ObjectRef& r : refs) {
      if (exists(w, r)) ops::remove(w, r);  // a link may have gone with its parent
    }
  });
}

void MainWindow::duplicateSelection() {
  const ObjectRef ref = m_document->current();
  if (ref.isNone() || ref.kind == ObjectKind::World || ref.kind == ObjectKind::Joint) return;
  ObjectRef created;
  if (editWithMessage(tr("Duplicate %1").arg(qs(ref.name)), [&](World& w) { created = ops::duplicate(w, ref); })) {
    m_document->setSelection({created});
  }
}

// ---- files -------------------------------------------------------------------------------------

bool MainWindow::maybeSave() {
  if (!m_document->isModified()) return true;
  const QMessageBox::StandardButton answer = m_dialogs.ask(
      this, tr("Unsaved changes"), tr("%1 has unsaved changes. Save them?").arg(m_document->displayName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::newDesign() {
  if (!maybeSave()) return;
  if (isSimulating()) leaveSimulation();
  m_freshTree = true;
  m_document->newDesign();
  m_viewport->fitToScene();
  appendMessage(tr("New design"));
}

void MainWindow::openWithDialog() {
  const QString path = m_dialogs.openFile(this, tr("Open"), QString::fromLatin1(kOpenFilter));
  if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path) {
  if (QFileInfo(path).suffix().toLower() == "replay") return loadReplay(path);
  if (!maybeSave()) return false;
  io::ImportOptions options;
  if (!importOptionsFor(path, options)) return false;
  return openWithOptions(path, options, false);
}

bool MainWindow::importOptionsFor(const QString& path, io::ImportOptions& options) {
  const Preferences preferences = Preferences::load();
  if (!needsImportChoices(path)) {
    options = io::ImportOptions{};
    for (const QString& folder : preferences.packagePath) options.packagePath.emplace_back(toPath(folder));
    return true;
  }
  const QString file = QFileInfo(path).absoluteFilePath();
  ImportChoices choices = ImportChoices::load(file, preferences.packagePath);
  if (m_askImportChoices && m_dialogs.importChoices) {
    if (!m_dialogs.importChoices(this, file, choices)) {
      statusBar()->showMessage(tr("Import of %1 cancelled").arg(QFileInfo(path).fileName()), 5000);
      return false;
    }
    choices.save(file);
  }
  options = choices.toOptions();
  return true;
}

bool MainWindow::openWithOptions(const QString& path, const io::ImportOptions& options, bool reload) {
  if (isSimulating()) leaveSimulation();
  QApplication::setOverrideCursor(Qt::WaitCursor);
  statusBar()->showMessage(reload ? tr("Reloading %1…").arg(path) : tr("Opening %1…").arg(path));
  try {
    m_freshTree = !reload;
    const io::ImportReport report = m_document->open(toPath(path), options);
    QApplication::restoreOverrideCursor();
    const QString text = qs(report.toText());
    appendMessage(reload ? tr("Reloaded %1").arg(path) : tr("Opened %1").arg(path));
    if (!text.trimmed().isEmpty()) appendMessage(text.trimmed());
    showImportReport(report, report.format != "articula");
    addRecentFile(QFileInfo(path).absoluteFilePath());
    if (!reload) {
      // A scene opens in the first view its author saved, else framed whole.
      const std::vector<ViewpointSpec> views = m_document->world().getViewpoints();
      if (views.empty()) {
        m_viewport->fitToScene();
      } else {
        m_viewport->setView(views.front());
      }
    }
    updateActions();
    statusBar()->showMessage(
        (reload ? tr("Reloaded %1") : tr("Opened %1")).arg(QFileInfo(path).fileName()) +
            (report.ignored.empty() || reportNeedsAttention(report)
                 ? QString()
                 : tr(" (%n element(s) not imported: see Messages)", nullptr, static_cast<int>(report.ignored.size()))),
        5000);
    return true;
  } catch (const std::exception& e) {
    m_freshTree = false;
    QApplication::restoreOverrideCursor();
    statusBar()->clearMessage();
    appendMessage(tr("Could not open %1: %2").arg(path, QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Could not open"), QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::insertModelWithDialog() {
  const QString path = m_dialogs.openFile(this, tr("Insert Model"), QString::fromLatin1(kOpenFilter));
  if (path.isEmpty()) return;
  const std::optional<Vector3d> at =
      askPosition(this, tr("Insert %1").arg(QFileInfo(path).fileName()),
                  ops::freeSpot(m_document->world(), Vector3d(0.5, 0.5, 0.0), Vector3d::Zero(), 0.0));
  if (at) insertModel(path, *at);
}

bool MainWindow::insertModel(const QString& path, const Vector3d& offset) {
  if (isSimulating()) return false;
  io::ImportOptions options;
  if (!importOptionsFor(path, options)) return false;
  World model;
  io::ImportReport report;
  try {
    report = io::importFile(model, toPath(path), options);
  } catch (const std::exception& e) {
    appendMessage(tr("Could not insert %1: %2").arg(path, QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Could not insert"), QString::fromUtf8(e.what()));
    return false;
  }
  Isometry3d X = Isometry3d::Identity();
  X.translation() = offset;
  std::vector<ObjectRef> created;
  if (!editWithMessage(tr("Insert %1").arg(QFileInfo(path).fileName()),
                       [&](World& w) { created = ops::insertWorld(w, model, X); })) {
    return false;
  }
  m_document->setSelection(created);
  appendMessage(tr("Inserted %1").arg(path));
  const QString text = qs(report.toText()).trimmed();
  if (!text.isEmpty()) appendMessage(text);
  showImportReport(report, report.format != "articula");
  return true;
}

bool MainWindow::reloadFromDisk() {
  const std::filesystem::path source = m_document->sourcePath();
  if (source.empty()) {
    statusBar()->showMessage(tr("The design was not read from a file: nothing to reload"), 5000);
    return false;
  }
  if (m_document->isModified()) {
    const QMessageBox::StandardButton answer =
        m_dialogs.ask(this, tr("Reload from disk"),
                      tr("Reloading %1 discards the unsaved changes made here. Reload?").arg(qs(source.string())),
                      QMessageBox::Discard | QMessageBox::Cancel);
    if (answer != QMessageBox::Discard) return false;
  }
  return openWithOptions(qs(source.string()), m_document->importOptions(), true);
}

bool MainWindow::save() {
  if (m_document->filePath().empty()) return saveAs();
  return saveTo(qs(m_document->filePath().string()));
}

bool MainWindow::saveAs() {
  QString suggested = m_document->filePath().empty()
                          ? QFileInfo(m_document->displayName()).completeBaseName() + ".articula"
                          : qs(m_document->filePath().string());
  const QString path = m_dialogs.saveFile(this, tr("Save As"), tr("Articula scenes (*.articula)"), suggested);
  if (path.isEmpty()) return false;
  return saveTo(path.endsWith(".articula") ? path : path + ".articula");
}

bool MainWindow::saveTo(const QString& path) {
  try {
    m_document->save(toPath(path));
    addRecentFile(QFileInfo(path).absoluteFilePath());
    removeRecoveryFile();
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    appendMessage(tr("Saved %1").arg(path));
    return true;
  } catch (const std::exception& e) {
    appendMessage(tr("Could not save %1: %2").arg(path, QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Could not save"), QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::exportWithDialog() {
  const QString path = m_dialogs.saveFile(this, tr("Export for Headless Run"), tr("Articula scenes (*.articula)"),
                                          QFileInfo(m_document->displayName()).completeBaseName() + "-run.articula");
  if (!path.isEmpty()) exportForHeadlessRun(path.endsWith(".articula") ? path : path + ".articula");
}

void MainWindow::exportAsWithDialog() {
  const QString path = m_dialogs.saveFile(this, tr("Export As"), tr(kExportFilter),
                                          QFileInfo(m_document->displayName()).completeBaseName() + ".urdf");
  if (path.isEmpty()) return;
  if (!io::exportFormatForPath(toPath(path))) {
    m_dialogs.error(this, tr("Could not export"),
                    tr("The format is chosen by the file's extension: give %1 the extension .urdf, .sdf, .xml (MJCF) "
                       "or .articula.")
                        .arg(QFileInfo(path).fileName()));
    return;
  }
  exportAs(path);
}

bool MainWindow::exportAs(const QString& path) {
  io::ExportReport report;
  try {
    report = io::exportFile(m_document->world(), toPath(path));
  } catch (const std::exception& e) {
    appendMessage(tr("Could not export %1: %2").arg(path, QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Could not export"), QString::fromUtf8(e.what()));
    return false;
  }
  m_lastExportReport = report;
  const QString format = QString::fromLatin1(io::toString(*io::exportFormatForPath(toPath(path)))).toUpper();
  appendMessage(tr("Exported %1 as %2 (%3)").arg(path, format, qs(report.summary())));
  const QString details = qs(report.toText()).trimmed();
  if (!details.isEmpty()) appendMessage(details);
  auto* box = new QMessageBox(
      report.notExported.empty() ? QMessageBox::Information : QMessageBox::Warning, tr("Exported"),
      report.notExported.empty() && report.converted.empty()
          ? tr("The design was written to %1 as %2.").arg(path, format)
          : tr("The design was written to %1 as %2. %3 cannot hold all of it:").arg(path, format, format),
      QMessageBox::Ok, this);
  box->setObjectName("exportAsMessage");
  if (!details.isEmpty()) box->setDetailedText(details);
  box->setInformativeText(qs(report.summary()));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setModal(false);
  box->show();
  return true;
}

bool MainWindow::exportForHeadlessRun(const QString& path) {
  try {
    m_document->writeCopy(toPath(path));
  } catch (const std::exception& e) {
    appendMessage(tr("Could not export %1: %2").arg(path, QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Could not export"), QString::fromUtf8(e.what()));
    return false;
  }
  const QString command = QStringLiteral("articula-run run \"%1\"").arg(QFileInfo(path).absoluteFilePath());
  appendMessage(tr("Exported %1. Run it without a window with:\n    %2").arg(path, command));
  auto* box = new QMessageBox(QMessageBox::Information, tr("Exported"),
                              tr("The scene was written to %1.\n\nRun it headless with:\n%2").arg(path, command),
                              QMessageBox::Ok, this);
  box->setObjectName("exportMessage");
  box->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setModal(false);
  box->show();
  return true;
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList files = settings.value("recentFiles").toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue("recentFiles", files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  m_recentMenu->clear();
  const QStringList files = QSettings().value("recentFiles").toStringList();
  for (int i = 0; i < files.size(); ++i) {
    QAction* a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
    a->setToolTip(files[i]);
    a->setData(files[i]);
    connect(a, &QAction::triggered, this, [this, path = files[i]] { openFile(path); });
  }
  if (files.isEmpty()) m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!event->mimeData()->hasUrls()) return;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile() && isKnownFile(url.toLocalFile())) {
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile() && isKnownFile(url.toLocalFile())) {
      event->acceptProposedAction();
      openFile(url.toLocalFile());
      return;
    }
  }
}

void MainWindow::showPreferences() {
  PreferencesDialog dialog(Preferences::load(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  const Preferences p = dialog.preferences();
  p.save();
  selectRealTimeFactor(p.targetRealTimeFactor);
  if (p.autosaveSeconds > 0) {
    m_autosaveTimer->start(p.autosaveSeconds * 1000);
  } else {
    m_autosaveTimer->stop();
  }
}

// ---- simulation -----------------------------------------------------------------------------------

bool MainWindow::isSimulating() const {
  return m_simulation->isActive();
}

bool MainWindow::enterSimulation() {
  if (isSimulating()) return true;
  RecordingOptions recording;
  if (m_document->sceneRecording()) recording = m_document->sceneRecording()->options;
  recording.budgetBytes = static_cast<std::size_t>(Preferences::load().recordingBudgetMiB * 1024.0 * 1024.0);
  try {
    m_simulation->start(m_document->designSpec(), recording);
  } catch (const std::exception& e) {
    appendMessage(tr("Cannot simulate: %1").arg(QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Cannot simulate"), QString::fromUtf8(e.what()));
    updateActions();
    return false;
  }
  m_simulation->setTargetRealTimeFactor(m_rtfBox->currentData().toDouble());
  m_document->setLocked(true);
  m_viewport->scene().setInterference({});  // a design-mode check
  m_viewport->setSimulationMode(true);
  appendMessage(tr("Simulation mode: the design is kept as it is; Leave Simulation returns to it."));
  updateActions();
  return true;
}

void MainWindow::leaveSimulation() {
  if (!isSimulating()) return;
  m_simulation->stop();
  m_document->setLocked(false);
  m_viewport->setSimulationMode(false);
  appendMessage(tr("Design mode"));
  updateActions();
}

bool MainWindow::loadReplay(const QString& path) {
  // Simulation::start builds the world and checks the replay's layout
  // before it replaces a running simulation: a refused replay changes nothing.
  const auto refuse = [this, &path](const std::exception& e) {
    appendMessage(tr("Replay %1 not loaded: %2").arg(path, QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Replay not loaded"), QString::fromUtf8(e.what()));
    return false;
  };
  try {
    Recording recording = Recording::load(toPath(path));
    const RecordingOptions options = recording.options();
    m_simulation->start(m_document->designSpec(), options, std::move(recording));
  } catch (const std::exception& e) {
    return refuse(e);
  }
  m_document->setLocked(true);
  m_viewport->scene().setInterference({});  // a design-mode check
  m_viewport->setSimulationMode(true);
  appendMessage(tr("Loaded replay %1 (%2 frames)").arg(path).arg(m_simulation->status().frames));
  addRecentFile(QFileInfo(path).absoluteFilePath());
  updateActions();
  return true;
}

bool MainWindow::saveReplay(const QString& path) {
  if (!isSimulating()) return false;
  try {
    m_simulation->saveRecording(toPath(path), m_document->filePath().string());
  } catch (const std::exception& e) {
    appendMessage(tr("Could not save replay %1: %2").arg(path, QString::fromUtf8(e.what())));
    m_dialogs.error(this, tr("Could not save replay"), QString::fromUtf8(e.what()));
    return false;
  }
  appendMessage(tr("Saved replay %1").arg(path));
  return true;
}

void MainWindow::exportVideoWithDialog() {
  if (!isSimulating()) return;
  const Recording recording = m_simulation->recordingCopy();
  if (recording.size() == 0) return;
  const double end = recording.frameInfo(recording.size() - 1).time;
  QDialog dialog(this);
  dialog.setObjectName("exportVideoDialog");
  dialog.setWindowTitle(tr("Export Video"));
  auto* form = new QFormLayout;
  auto* width = new QSpinBox;
  width->setRange(16, 7680);
  width->setSingleStep(2);
  width->setValue(1280);
  auto* height = new QSpinBox;
  height->setRange(16, 4320);
  height->setSingleStep(2);
  height->setValue(720);
  auto* fps = new QDoubleSpinBox;
  fps->setRange(1, 240);
  fps->setValue(30);
  auto* speed = new QDoubleSpinBox;
  speed->setRange(0.01, 1000);
  speed->setDecimals(2);
  speed->setValue(1);
  speed->setSuffix(tr(" × real time"));
  auto* from = new QDoubleSpinBox;
  from->setRange(0, end);
  from->setDecimals(3);
  from->setSuffix(" s");
  auto* to = new QDoubleSpinBox;
  to->setRange(0, end);
  to->setDecimals(3);
  to->setValue(end);
  to->setSuffix(" s");
  auto* follow = new QComboBox;
  follow->addItem(tr("(fixed camera)"));
  for (const RigidBody& b : m_document->world().getRigidBodies()) follow->addItem(qs(b.name()));
  for (const Multibody& mb : m_document->world().getMultibodies()) {
    for (const Link& l : mb.getLinks()) follow->addItem(qs(mb.name() + "/" + l.name()));
  }
  form->addRow(tr("Width"), width);
  form->addRow(tr("Height"), height);
  form->addRow(tr("Frames per second"), fps);
  form->addRow(tr("Speed"), speed);
  form->addRow(tr("From"), from);
  form->addRow(tr("To"), to);
  form->addRow(tr("Camera follows"), follow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(&dialog);
  layout->addLayout(form);
  layout->addWidget(buttons);
  if (dialog.exec() != QDialog::Accepted) return;
  const QString path = m_dialogs.saveFile(this, tr("Export Video"), tr("H.264 video (*.mp4);;VP9 video (*.webm)"),
                                          QFileInfo(m_document->displayName()).completeBaseName() + ".mp4");
  if (path.isEmpty()) return;
  VideoOptions o;
  o.width = width->value() & ~1;
  o.height = height->value() & ~1;
  o.fps = fps->value();
  o.speed = speed->value();
  o.from = from->value();
  o.to = to->value();
  o.follow = follow->currentIndex() > 0 ? follow->currentText() : QString();
  exportVideo(path.endsWith(".mp4") || path.endsWith(".webm") ? path : path + ".mp4", o);
}

bool MainWindow::exportVideo(const QString& path, const VideoOptions& options) {
  if (!isSimulating()) return false;
  auto fail = [&](const QString& problem) {
    appendMessage(tr("Could not export the video %1: %2").arg(path, problem));
    m_dialogs.error(this, tr("Could not export the video"), problem);
    return false;
  };
  // articula-run: $ARTICULA_RUN, beside this program (installed), in the build tree, or on PATH.
  const QString dir = QCoreApplication::applicationDirPath();
  QString tool = QStringLiteral("articula-run");
  for (const QString& c : {qEnvironmentVariable("ARTICULA_RUN"), dir + "/articula-run", dir + "/../run/articula-run"}) {
    if (QFileInfo(c).isExecutable()) {
      tool = QFileInfo(c).absoluteFilePath();
      break;
    }
  }
  QTemporaryDir temp;
  if (!temp.isValid()) return fail(tr("no temporary folder"));
  const QString scene = temp.filePath("design.articula");
  const QString replay = temp.filePath("run.replay");
  try {
    m_document->writeCopy(toPath(scene));
    m_simulation->saveRecording(toPath(replay), scene.toStdString());
  } catch (const std::exception& e) {
    return fail(QString::fromUtf8(e.what()));
  }
  QStringList args = {"render",     scene,
                      "--replay",   replay,
                      "--video",    path,
                      "--size",     QString("%1x%2").arg(options.width).arg(options.height),
                      "--fps",      QString::number(options.fps, 'g', 10),
                      "--speed",    QString::number(options.speed, 'g', 10),
                      "--from",     QString::number(options.from, 'g', 17),
                      "--progress", "--quiet"};
  if (options.to > options.from) args << "--to" << QString::number(options.to, 'g', 17);
  if (!options.follow.isEmpty()) args << "--follow" << options.follow;
  QProcess process;
  process.setProgram(tool);
  process.setArguments(args);
  QProgressDialog progress(tr("Rendering %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 0, this);
  progress.setObjectName("exportVideoProgress");
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  connect(&process, &QProcess::readyReadStandardOutput, &progress, [&] {
    while (process.canReadLine()) {
      const QStringList parts = QString::fromUtf8(process.readLine()).split(' ', Qt::SkipEmptyParts);
      if (parts.size() == 3 && parts[0] == "frame") {
        progress.setMaximum(parts[2].toInt());
        progress.setValue(parts[1].toInt());
      }
    }
  });
  process.start();
  if (!process.waitForStarted()) return fail(tr("cannot start %1").arg(tool));
  const qint64 pid = process.processId();
  QEventLoop loop;
  connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
  connect(&progress, &QProgressDialog::canceled, &loop, &QEventLoop::quit);
  if (process.state() != QProcess::NotRunning) loop.exec();
  if (process.state() != QProcess::NotRunning) {
    process.kill();
    process.waitForFinished();
    // The renderer's temporary file, which its killed process could not remove.
    const QFileInfo target(path);
    QFile::remove(target.dir().filePath("." + target.fileName() + ".tmp-" + QString::number(pid)));
    appendMessage(tr("Video export to %1 cancelled; nothing was written").arg(path));
    return false;
  }
  if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
    const QString errors = QString::fromUtf8(process.readAllStandardError()).trimmed();
    return fail(errors.isEmpty() ? tr("articula-run exited with code %1").arg(process.exitCode()) : errors);
  }
  appendMessage(
      tr("Exported the video %1 (%2×%3, %4 fps)").arg(path).arg(options.width).arg(options.height).arg(options.fps));
  return true;
}

bool MainWindow::saveScreenshot(const QString& path) {
  const QImage image = m_viewport->grabView();
  // A temporary file beside the target, renamed over it once written.
  const QString temp = path + ".tmp-" + QString::number(QCoreApplication::applicationPid());
  if (image.isNull() || !image.save(temp, "PNG") || (QFile::exists(path) && !QFile::remove(path)) ||
      !QFile::rename(temp, path)) {
    QFile::remove(temp);
    appendMessage(tr("Could not save the screenshot %1").arg(path));
    m_dialogs.error(this, tr("Could not save the screenshot"), tr("%1 could not be written.").arg(path));
    return false;
  }
  appendMessage(tr("Saved a screenshot of the view (%1×%2) to %3").arg(image.width()).arg(image.height()).arg(path));
  return true;
}

bool MainWindow::exportRunToHdf5(const QString& path) {
  if (!isSimulating()) return false;
  auto fail = [&](const QString& problem) {
    appendMessage(tr("Could not export the run to %1: %2").arg(path, problem));
    m_dialogs.error(this, tr("Could not export the run"), problem);
    return false;
  };
  const Recording recording = m_simulation->recordingCopy();
  if (recording.size() == 0) return fail(tr("nothing is recorded yet"));
  QProgressDialog progress(tr("Exporting %1 frames to %2…").arg(recording.size()).arg(QFileInfo(path).fileName()),
                           tr("Cancel"), 0, static_cast<int>(recording.size()), this);
  progress.setObjectName("exportHdf5Progress");
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(400);
  try {
    // The frames are restored into a world of the same design, one by one.
    FrameTable table(m_document->designSpec());
    const SimulationStatus& status = m_simulation->status();
    table.setStepOptions(status.timeStep, status.solverMethod);
    const bool done = table.update(recording, 0, [&](std::size_t i, std::size_t) {
      if (i % 64 == 0) progress.setValue(static_cast<int>(i));
      return !progress.wasCanceled();
    });
    if (!done) {
      appendMessage(tr("Export to %1 cancelled; nothing was written").arg(path));
      return false;
    }
    io::RunLogInfo info;
    info.scenePath = m_document->filePath().empty()
                         ? m_document->displayName().toStdString()
                         : std::filesystem::absolute(m_document->filePath()).lexically_normal().string();
    info.commandLine = "articula-studio: File > Export Run to HDF5";
    info.options = io::optionsJson(table.world().getOptions());
    io::Hdf5Log log(toPath(path), table.columns(), info);
    for (std::size_t i = 0; i < table.rows(); ++i) log.append(table.row(i));
    log.setAttribute("source", "the recorded frames of a run in the studio");
    log.commit();
  } catch (const std::exception& e) {
    return fail(QString::fromUtf8(e.what()));
  }
  progress.setValue(static_cast<int>(recording.size()));
  appendMessage(tr("Exported %1 recorded frames to %2").arg(recording.size()).arg(path));
  return true;
}

// ---- viewpoints ----------------------------------------------------------------------------------

void MainWindow::fillViewpointMenu(QMenu* menu) {
  qDeleteAll(menu->findChildren<QMenu*>(Qt::FindDirectChildrenOnly));  // clear() keeps submenus
  menu->clear();
  const std::vector<ViewpointSpec> views = m_document->world().getViewpoints();
  QAction* save = menu->addAction(tr("&Save Current View…"));
  save->setObjectName("actionSaveViewpoint");
  save->setToolTip(tr("Keep this camera in the scene (articula-run render --camera NAME uses it too)"));
  save->setEnabled(!isSimulating());
  connect(save, &QAction::triggered, this, [this] {
    std::string suggested;
    for (int i = 1; suggested.empty() || m_document->world().getViewpoint(suggested); ++i) {
      suggested = "view_" + std::to_string(i);
    }
    const std::optional<QString> name =
        m_dialogs.askText(this, tr("Save Viewpoint"), tr("Name of the viewpoint:"), qs(suggested));
    if (name && !name->trimmed().isEmpty()) saveViewpoint(name->trimmed());
  });
  if (views.empty()) {
    menu->addAction(tr("(the scene has no viewpoints)"))->setEnabled(false);
    return;
  }
  menu->addSeparator();
  for (const ViewpointSpec& v : views) {
    QAction* a = menu->addAction(qs(v.name));
    a->setObjectName(qs("actionViewpoint_" + v.name));
    connect(a, &QAction::triggered, this, [this, name = qs(v.name)] { goToViewpoint(name); });
  }
  menu->addSeparator();
  QMenu* remove = menu->addMenu(tr("&Delete"));
  remove->setObjectName("menuDeleteViewpoint");
  remove->setEnabled(!isSimulating());
  for (const ViewpointSpec& v : views) {
    connect(remove->addAction(qs(v.name)), &QAction::triggered, this,
            [this, name = qs(v.name)] { deleteViewpoint(name); });
  }
}

bool MainWindow::saveViewpoint(const QString& name) {
  if (isSimulating()) return false;
  const ViewpointSpec view = m_viewport->currentView(name.toStdString());
  if (!editWithMessage(tr("Save viewpoint %1").arg(name), [&](World& w) { w.setViewpoint(view); })) return false;
  statusBar()->showMessage(tr("Viewpoint %1 saved").arg(name), 3000);
  return true;
}

bool MainWindow::goToViewpoint(const QString& name) {
  const std::optional<ViewpointSpec> view = m_document->world().getViewpoint(name.toStdString());
  if (!view) return false;
  m_viewport->setView(*view);
  statusBar()->showMessage(tr("Viewpoint %1").arg(name), 3000);
  return true;
}

bool MainWindow::deleteViewpoint(const QString& name) {
  if (isSimulating() || !m_document->world().getViewpoint(name.toStdString())) return false;
  return editWithMessage(tr("Delete viewpoint %1").arg(name), [&](World& w) { w.removeViewpoint(name.toStdString()); });
}

// ---- recovery ---------------------------------------------------------------------------------------

QString MainWindow::recoveryFile() const {
  return m_recovery->file();
}

void MainWindow::autosaveNow() {
  if (!m_document->isModified()) return;
  QDir().mkpath(m_recoveryDirectory);
  try {
    m_document->writeCopy(toPath(recoveryFile()));
  } catch (const std::exception& e) {
    appendMessage(tr("Autosave failed: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  if (!m_recovery->writeSidecar(qs(m_document->filePath().string()), qs(m_document->sourcePath().string()))) {
    appendMessage(tr("Autosave: could not write %1.json").arg(recoveryFile()));
  }
}

void MainWindow::removeRecoveryFile() {
  m_recovery->remove();
}

bool MainWindow::offerRecovery() {
  // Every orphaned recovery file is offered, newest first, until one is
  // recovered into this window; a declined one is deleted, and those not
  // yet asked about stay for the next start.
  const std::vector<OrphanedRecovery> orphans = RecoverySlot::orphans(m_recoveryDirectory);
  for (std::size_t k = 0; k < orphans.size(); ++k) {
    const OrphanedRecovery& orphan = orphans[k];
    const QMessageBox::StandardButton answer = m_dialogs.ask(
        this, tr("Recover unsaved work"),
        tr("Articula Studio did not close normally. A design autosaved at %1%2 can be recovered%3.\n\nRecover it?")
            .arg(orphan.time.isEmpty() ? tr("an unknown time") : orphan.time,
                 orphan.original.isEmpty() ? QString() : tr(" (from %1)").arg(orphan.original),
                 orphans.size() > 1 ? tr(" (%1 of %2)").arg(k + 1).arg(orphans.size()) : QString()),
        QMessageBox::Yes | QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      RecoverySlot::removeOrphan(orphan.file);
      continue;
    }
    try {
      m_document->open(toPath(orphan.file));
      m_document->markRecovered(toPath(orphan.original));
    } catch (const std::exception& e) {
      appendMessage(tr("Could not recover: %1").arg(QString::fromUtf8(e.what())));
      m_dialogs.error(this, tr("Could not recover"), QString::fromUtf8(e.what()));
      return false;
    }
    RecoverySlot::removeOrphan(orphan.file);
    autosaveNow();
    m_viewport->fitToScene();
    appendMessage(tr("Recovered the autosaved design%1; save it to keep it.")
                      .arg(orphan.original.isEmpty() ? QString() : tr(" of %1").arg(orphan.original)));
    if (k + 1 < orphans.size()) {
      appendMessage(tr("%n more autosaved design(s) will be offered at the next start.", nullptr,
                       static_cast<int>(orphans.size() - k - 1)));
    }
    return true;
  }
  return false;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  m_simulation->stop();
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  removeRecoveryFile();
  event->accept();
}

int MainWindow::checkInterference(bool showList) {
  if (isSimulating()) {
    statusBar()->showMessage(tr("The interference check works on the design: stop the simulation first"), 4000);
    return 0;
  }
  const World& world = m_document->world();
  std::vector<Contact> contacts;
  try {
    contacts = world.checkCollisions();
  } catch (const std::exception& e) {
    appendMessage(tr("Interference check failed: %1").arg(QString::fromUtf8(e.what())));
    return 0;
  }
  // Pairs of bodies, with their deepest point.
  struct Pair {
    std::string a, b;
    double depth = 0.0;
    int points = 0;
  };
  std::vector<Pair> pairs;
  std::set<viewer::ObjectId> bodies;
  for (const Contact& c : contacts) {
    const std::string a = c.frameA.isWorld() ? std::string("world") : c.frameA.name();
    const std::string b = c.frameB.isWorld() ? std::string("world") : c.frameB.name();
    if (!c.frameA.isWorld()) bodies.insert(viewer::bodyId(c.frameA));
    if (!c.frameB.isWorld()) bodies.insert(viewer::bodyId(c.frameB));
    auto it = std::find_if(pairs.begin(), pairs.end(), [&](const Pair& p) { return p.a == a && p.b == b; });
    if (it == pairs.end()) {
      pairs.push_back({a, b, c.depth, 1});
    } else {
      it->depth = std::max(it->depth, c.depth);
      ++it->points;
    }
  }
  m_viewport->scene().setInterference(std::vector<viewer::ObjectId>(bodies.begin(), bodies.end()));
  m_viewport->update();
  const auto count = [](std::size_t n, const QString& one, const QString& many) {
    return QString::number(n) + " " + (n == 1 ? one : many);
  };
  const QString pairsText = count(pairs.size(), tr("pair"), tr("pairs"));
  statusBar()->showMessage(
      pairs.empty() ? tr("No interference") : tr("Interference: %1 touch or overlap").arg(pairsText), 4000);
  if (showList) {
    auto* dialog = new QDialog(this);
    dialog->setObjectName("interferenceDialog");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Interference"));
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(new QLabel(pairs.empty() ? tr("No two bodies touch or overlap.")
                                               : tr("%1 of bodies touch or overlap (outlined in red):").arg(pairsText),
                                 dialog));
    auto* list = new QListWidget(dialog);
    list->setObjectName("interferenceList");
    for (const Pair& p : pairs) {
      list->addItem(tr("%1 ↔ %2: overlap %3 mm (%4)")
                        .arg(qs(p.a), qs(p.b))
                        .arg(1000.0 * std::max(0.0, p.depth), 0, 'f', 2)
                        .arg(count(static_cast<std::size_t>(p.points), tr("point"), tr("points"))));
    }
    list->setVisible(!pairs.empty());
    layout->addWidget(list);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(520, 320);
    dialog->show();
  }
  return static_cast<int>(pairs.size());
}

}  // namespace articula::studio

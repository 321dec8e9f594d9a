#pragma once
/// @file
/// Document: the design being edited — a World in design mode, the file it
/// came from, its import report and its undo stack. Every change to the
/// design goes through edit() (or a positions drag) and becomes one
/// QUndoCommand; undo and redo put back the exact design (the serialized
/// scene text before and after). Lives on the GUI thread; the running
/// simulation works on its own copy of the design (simulation.hpp), so
/// running never changes the design.

#include "object_ref.hpp"

#include <articula/io/import.hpp>
#include <articula/world.hpp>

#include <QObject>
#include <QString>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QUndoStack;

namespace articula::studio {

class Document : public QObject {
  Q_OBJECT

 public:
  explicit Document(QObject* parent = nullptr);
  ~Document() override;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  World& world() { return *m_world; }
  const World& world() const { return *m_world; }
  QUndoStack* undoStack() const { return m_undo; }

  // ---- files ---------------------------------------------------------------
  /// The file the design was opened from or saved to (a `.articula` file;
  /// empty for a new design or one imported from URDF/SDF until saved).
  const std::filesystem::path& filePath() const { return m_filePath; }
  /// The file the design was read from (any format; empty for a new design).
  const std::filesystem::path& sourcePath() const { return m_sourcePath; }
  /// File name for titles ("untitled" for a new design).
  QString displayName() const;
  /// Unsaved changes since the last open or save.
  bool isModified() const;
  /// An empty design with a ground plane.
  void newDesign();
  /// Replaces the design by a file's (`.articula`, `.urdf`, `.sdf`,
  /// `.world`), clears the undo stack and returns the import report. On
  /// failure throws (io::ImportError, articula::Error) and the current
  /// design is untouched.
  io::ImportReport open(const std::filesystem::path& file, const io::ImportOptions& options = {});
  /// Writes the design as a native scene and makes `file` the document's file.
  /// @throws io::ImportError when the file cannot be written.
  void save(const std::filesystem::path& file);
  /// After opening a recovery file: the design belongs to `original` (the
  /// file it was being edited from; empty for a new design) and counts as
  /// unsaved.
  void markRecovered(const std::filesystem::path& original);
  /// Writes the design as a native scene without changing the document's
  /// file (export, autosave).
  void writeCopy(const std::filesystem::path& file) const;
  /// The options the design was imported with (defaults for a new design).
  const io::ImportOptions& importOptions() const { return m_importOptions; }
  /// The report of the last open (empty for a new design).
  const std::optional<io::ImportReport>& importReport() const { return m_report; }
  /// The `<recording>` section of the scene, if it had one.
  const std::optional<io::SceneRecording>& sceneRecording() const { return m_recording; }

  // ---- the design as text ------------------------------------------------------
  /// The serialized design (io::sceneToString, mesh paths relative to the
  /// document's folder when it has one, absolute otherwise).
  std::string sceneText() const;
  /// Folder that relative paths in sceneText() resolve against.
  std::filesystem::path baseDirectory() const;
  /// The design as the undo commands keep it (World::getSpec).
  WorldSpec designSpec() const;
  /// Rebuilds the world from a spec (undo/redo). Emits designReset().
  /// @throws Error for a spec that builds no world (the world is then unchanged).
  void restoreSpec(const WorldSpec& spec);
  /// Rebuilds the world from scene text (tests, recovery).
  /// @throws io::ImportError for text that does not load (the world is
  ///         then unchanged).
  void restoreText(const std::string& text);
  /// Shows `text` in the Messages dock (message()).
  void report(const QString& text);

  // ---- editing -----------------------------------------------------------------
  /// Applies `op` to the world as one undoable step named `label` (a gizmo
  /// drag still in progress is ended first, as its own step). When `op`
  /// throws, the design is put back as it was, nothing is pushed, false is
  /// returned and `error` (if given) receives the message. A non-empty
  /// `mergeKey` merges the step into the previous one when that has the
  /// same key (continuous edits of one field or drag).
  bool edit(const QString& label, const std::function<void(World&)>& op, QString* error = nullptr,
            const QString& mergeKey = {});

  /// Continuous position edits (gizmo drags): beginPositionsDrag() records
  /// q, setPositionsLive() writes q (emits positionsChanged), and
  /// endPositionsDrag() pushes one undoable step from the recorded q to the
  /// current one (nothing when unchanged).
  /// After q is written, loop closures and couplers with kinematics =
  /// Project are satisfied again by moving the other coordinates
  /// (World::projectClosures), holding the joints of the `hold` links or
  /// joints and the `hold` rigid bodies: the loop follows the dragged part.
  void beginPositionsDrag();
  bool isDraggingPositions() const { return m_dragStart.has_value(); }
  void setPositionsLive(const VectorXd& q, const std::vector<ObjectRef>& hold = {});
  void endPositionsDrag(const QString& label);
  /// Writes q as one undoable step (numeric joint-position fields), then
  /// projects closures as above; `mergeKey` as for edit().
  void setPositions(const QString& label, const VectorXd& q, const std::vector<ObjectRef>& hold = {},
                    const QString& mergeKey = {});
  /// The largest residual norm of the enabled loop closures (0 without any).
  double maxClosureResidual() const;

  /// Editing is refused (edit() returns false) while locked: the simulation runs.
  void setLocked(bool locked);
  bool isLocked() const { return m_locked; }

  // ---- selection -----------------------------------------------------------------
  const std::vector<ObjectRef>& selection() const { return m_selection; }
  /// The first selected object, or None.
  ObjectRef current() const { return m_selection.empty() ? ObjectRef{} : m_selection.front(); }
  void setSelection(const std::vector<ObjectRef>& selection);

  // ---- pins ------------------------------------------------------------------------
  /// Links and rigid bodies held where they are while another link is
  /// dragged (whole-body inverse kinematics). An editing aid, not part of
  /// the scene: cleared when a design is opened or made.
  const std::vector<ObjectRef>& pins() const { return m_pins; }
  bool isPinned(const ObjectRef& ref) const;
  void setPinned(const ObjectRef& ref, bool pinned);

  // ---- notifications used by the commands -------------------------------------
  /// Emits the change signals after a command changed the world.
  void notifyDesignChanged();
  void notifyPositionsChanged();

 signals:
  /// The world was rebuilt (open, new, undo/redo of a structural edit):
  /// every handle is invalid; re-read everything.
  void designReset();
  /// The design changed in place (an edit); handles of removed objects are invalid.
  void designChanged();
  /// Only joint or body positions changed.
  void positionsChanged();
  void selectionChanged();
  /// Editing was locked or unlocked (setLocked).
  void lockedChanged(bool locked);
  /// File path, title or modified state changed.
  void fileStateChanged();
  /// A message for the Messages dock.
  void message(const QString& text);
  /// The pinned objects changed.
  void pinsChanged();

 private:
  void dropStaleSelection();
  /// Makes `world` the design (new or opened): clears the undo stack and the selection.
  void adopt(std::unique_ptr<World> world, const std::filesystem::path& source,
             const std::optional<io::ImportReport>& report);
  void writePositions(const VectorXd& q, const std::vector<ObjectRef>& hold);

  std::unique_ptr<World> m_world;
  QUndoStack* m_undo = nullptr;
  std::filesystem::path m_filePath;
  std::filesystem::path m_sourcePath;
  std::optional<io::ImportReport> m_report;
  io::ImportOptions m_importOptions;
  std::optional<io::SceneRecording> m_recording;
  std::optional<VectorXd> m_dragStart;
  std::vector<ObjectRef> m_selection;
  std::vector<ObjectRef> m_pins;
  bool m_locked = false;
};

}  // namespace articula::studio

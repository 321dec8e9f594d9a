#pragma once
/// @file
/// Simulation: runs a copy of the design on its own thread (ARCHITECTURE.md,
/// "Viewer and app"). start() builds a World from the design's scene text;
/// from then on only the simulation thread touches that World. The GUI
/// sends commands through a queue (play, pause, step, scrub, forces, ...);
/// the thread publishes a render snapshot after every step or restore
/// (viewer::SnapshotPublisher, lock-free) and reports its status to the GUI
/// thread through queued signals. Every step is recorded (engine Recorder)
/// within a memory budget; scrubbing restores a recorded frame, and stepping
/// from it starts a new branch. When the state stops being finite or the
/// step throws, the thread restores the last good frame, pauses and says why.

#include "object_ref.hpp"

#include <articula/recording.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/snapshot_publisher.hpp>

#include <QObject>
#include <QString>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace articula::studio {

/// What the simulation thread reports after each batch of work.
struct SimulationStatus {
  bool active = false;                    ///< a simulation world exists (simulation mode)
  bool playing = false;                   ///< stepping continuously (live or playing back)
  bool playingBack = false;               ///< playing recorded frames rather than simulating
  double time = 0.0;                      ///< simulated time of the shown state (s)
  std::uint64_t step = 0;                 ///< frame index of the shown state
  std::size_t frames = 0;                 ///< recorded frames kept
  std::optional<std::size_t> shownFrame;  ///< the recorded frame shown (scrubbing), none when live
  double realTimeFactor = 0.0;            ///< measured
  double targetRealTimeFactor = 1.0;      ///< 0: as fast as possible
  double timeStep = 0.0;
  std::string solverMethod;
  std::size_t recordingBytes = 0;
  std::size_t droppedFrames = 0;
  /// Which simulation this is: a new number for every start().
  std::uint64_t generation = 0;
  /// Grows whenever recorded frames are replaced rather than appended to
  /// (reset, a new branch from a shown frame, a change of solver method):
  /// frames read at the same value (and droppedFrames) are still recorded.
  std::uint64_t history = 0;
  double maxClosureResidual = 0.0;
  /// The controls of the shown state (actuator order): after scrubbing, the
  /// ones recorded in that frame, which a resumed run continues with.
  std::vector<double> controls;
};

class Simulation : public QObject {
  Q_OBJECT

 public:
  explicit Simulation(QObject* parent = nullptr);
  /// Stops the thread.
  ~Simulation() override;
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Builds the simulation world from scene text (relative paths against
  /// `baseDirectory`), enters simulation mode and starts the thread, paused
  /// at t = 0 with frame 0 recorded. With `replay`, its frames become the
  /// recording (the layout is checked first) and frame 0 of it is shown.
  /// @throws io::ImportError, articula::Error (TopologyError, ...) or
  ///         LayoutIncompatible; nothing is started then.
  void start(const std::string& sceneText, const std::filesystem::path& baseDirectory,
             const RecordingOptions& recording = {}, std::optional<Recording> replay = std::nullopt);
  /// As above, from a copy of the design's spec (what the studio runs).
  void start(const WorldSpec& design, const RecordingOptions& recording = {},
             std::optional<Recording> replay = std::nullopt);
  /// Ends the simulation and its thread; the simulation world is discarded.
  /// The efforts and targets sent are forgotten (as by start()).
  void stop();
  bool isActive() const;

  /// The publisher the viewport pulls snapshots from, and the description
  /// of the simulation world it follows (valid while active).
  viewer::SnapshotPublisher& publisher() { return *m_publisher; }
  std::shared_ptr<const viewer::SceneDescription> description() const;

  // ---- commands (queued; they return at once) --------------------------------
  /// Simulates continuously from the current state (the shown frame after
  /// scrubbing: a new branch, as resumeFromShown), paced to the target
  /// real-time factor.
  void play();
  void pause();
  /// Pauses, then advances `steps` steps (recorded).
  void step(std::size_t steps = 1);
  /// Pauses and shows recorded frame 0 again, discarding the frames after
  /// it: the state the run started from (t = 0), or the first frame of a
  /// replay given to start(). When frame 0 cannot be restored (the layout
  /// changed), the world's initial state is shown and recorded instead.
  void reset();
  /// Simulated seconds per wall-clock second while playing; 0 = as fast as possible.
  void setTargetRealTimeFactor(double factor);
  void setTimeStep(double seconds);
  /// One of constraintSolverMethods().
  void setSolverMethod(const std::string& method);

  /// A spring from a point of a body (link or rigid body; `localPoint` in
  /// its frame) to a world point, applied before every step until
  /// clearDragSpring(): force = stiffness·(target − p) − damping·ṗ, with
  /// stiffness scaled by the body's mass (N/m per kg).
  void setDragSpring(const ObjectRef& body, const Vector3d& localPoint, const Vector3d& target,
                     double stiffnessPerKg = 200.0);
  void clearDragSpring();
  /// Applied generalized force on a joint DoF (persists; 0 removes it).
  void setJointEffort(const ObjectRef& joint, int dof, double effort);
  /// The control of an engine actuator of the design (clamped to its
  /// control range by the engine); changes are part of the recorded frames.
  void setControl(const std::string& actuator, double value);
  /// Every position servo and PID targets its joint's current position.
  void holdCurrentPose();

  // ---- drives sent (GUI thread) -------------------------------------------------
  /// The effort last sent for a joint DoF by setJointEffort() since start()
  /// (0 when none). Values the simulation refuses (a joint or DoF it does
  /// not have, a non-finite effort) are not kept.
  double jointEffort(const ObjectRef& joint, int dof) const;
  /// The control last sent to an actuator by setControl() since start()
  /// (clamped to its range), else the control the simulation started with;
  /// nullopt for an unknown actuator.
  std::optional<double> control(const std::string& actuator) const;
  /// The actuators of the running simulation (their specs, control order).
  const std::vector<ActuatorSpec>& actuators() const { return m_actuators; }
  /// The schedule that sets an actuator's control before every step (it
  /// overrides controls sent), or empty.
  std::string scheduleOf(const std::string& actuator) const;
  /// An actuator's control range as the engine applies it (its spec's,
  /// narrowed to [−1, 1] for DC motors and [0, 1] for locks); nullopt for an
  /// unknown actuator.
  std::optional<std::pair<double, double>> controlRange(const std::string& actuator) const;
  /// Position coordinate `dof` of a joint in the snapshot last acquired
  /// from publisher() (by the viewport); nullopt when no snapshot of this
  /// simulation has been acquired or the joint has no such coordinate.
  std::optional<double> shownJointPosition(const ObjectRef& joint, int dof) const;
  /// Every position coordinate of the shown state (none before the first snapshot).
  std::optional<VectorXd> shownPositions() const;

  // ---- replay --------------------------------------------------------------------
  /// Pauses and shows recorded frame `index` (the world is restored to it).
  void scrubTo(std::size_t index);
  /// Plays the recorded frames from the shown one at `speed` × real time.
  void playBack(double speed = 1.0);
  /// Continues simulating from the shown frame: later frames are replaced
  /// by the new branch (kept as a branch when the recording options say so).
  void resumeFromShown();
  /// A copy of the recording (waits for the thread).
  Recording recordingCopy() const;
  /// Saves the recording (waits for the thread). @throws ReplayFileError.
  void saveRecording(const std::filesystem::path& file, const std::string& sceneReference) const;

  /// Blocks until every queued command has been carried out and, when not
  /// playing, the resulting snapshot has been published (tests, saving).
  void waitIdle() const;
  /// The last status reported (GUI thread).
  const SimulationStatus& status() const { return m_status; }

 signals:
  void statusChanged(const articula::studio::SimulationStatus& status);
  /// The state diverged or a step failed: the simulation paused at the last good frame.
  void diverged(const QString& message);
  /// Something to show in the Messages dock (warnings from the engine, ...).
  void message(const QString& text);

 private:
  struct Worker;
  void onStatus(const SimulationStatus& status);
  /// Ends the thread and discards the simulation world (no signals).
  void stopWorker();

  /// A joint's segment of the simulation world's q and v.
  struct JointSegment {
    int positionOffset = 0;
    int numPositions = 0;
    int numDofs = 0;
  };
  /// The segment of `joint` (a Joint reference) when it has DoF `dof`.
  const JointSegment* jointSegment(const ObjectRef& joint, int dof) const;

  std::unique_ptr<viewer::SnapshotPublisher> m_publisher;
  std::unique_ptr<Worker> m_worker;
  SimulationStatus m_status;
  /// Numbers the simulations started; reports of an ended one are ignored.
  std::uint64_t m_generation = 0;
  /// Segments of the simulation world's joints by name ("multibody/joint").
  std::map<std::string, JointSegment> m_jointSegments;
  /// Efforts and targets sent, by (joint name, DoF).
  std::map<std::pair<std::string, int>, double> m_sentEfforts;
  /// Controls sent or taken at start, by actuator name.
  std::map<std::string, double> m_controls;
  std::vector<ActuatorSpec> m_actuators;
  std::map<std::string, std::string> m_schedules;                    ///< actuator → the (last) schedule driving it
  std::map<std::string, std::pair<double, double>> m_controlRanges;  ///< from the engine's ControlSpace
  /// Version of the first snapshot of the running simulation.
  std::uint64_t m_firstSnapshotVersion = 0;
};

}  // namespace articula::studio

Q_DECLARE_METATYPE(articula::studio::SimulationStatus)

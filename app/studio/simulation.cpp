#include "simulation.hpp"

#include <articula/error.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/world.hpp>

#include <QCoreApplication>
#include <QEvent>
#include <QMetaObject>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <numbers>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

namespace articula::studio {

namespace {

using Clock = std::chrono::steady_clock;

/// Longest stretch of stepping or playing back between two looks at the command queue.
constexpr auto kMaxBatch = std::chrono::milliseconds(20);
/// Status reports while running: at most ~30 per second.
constexpr auto kStatusInterval = std::chrono::milliseconds(33);
/// Engine warnings are collected at most twice per second ...
constexpr auto kWarningInterval = std::chrono::milliseconds(500);
/// ... and at most this many distinct ones are forwarded each time.
constexpr std::size_t kMaxWarningsPerPoll = 2;
/// Window of the measured real-time factor (wall-clock seconds).
constexpr double kRateWindow = 0.5;
/// Live play that falls further behind its target than this (wall-clock
/// seconds) gives up the excess instead of catching up later.
constexpr double kMaxLag = 0.1;
/// Shortest wait between two restored frames while playing back.
constexpr auto kMinPlaybackInterval = std::chrono::milliseconds(8);

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

Clock::duration toDuration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string format(double value) {
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

QString toQString(const std::string& text) {
  return QString::fromStdString(text);
}

}  // namespace

// ---------------------------------------------------------------------------
// The simulation thread and everything it owns.

struct Simulation::Worker {
  enum class Mode { Paused, Live, PlayBack };

  /// A spring from a body point to a world point.
  struct DragSpring {
    ObjectRef ref;
    std::optional<Link> link;
    std::optional<RigidBody> body;
    Frame frame;
    double mass = 1.0;
    Vector3d localPoint = Vector3d::Zero();
    Vector3d target = Vector3d::Zero();
    double stiffnessPerKg = 200.0;
  };

  /// Efforts of one joint's DoFs (servos are engine actuators).
  struct JointControl {
    ObjectRef ref;
    Joint joint;
    VectorXd effort;
    VectorXd tau;
    bool idle() const { return effort.isZero(0.0); }
  };

  Simulation* owner = nullptr;
  std::uint64_t generation = 0;
  viewer::SnapshotPublisher* publisher = nullptr;
  std::unique_ptr<World> world;
  std::unique_ptr<Recorder> recorder;
  std::uint64_t observerId = 0;
  bool observing = false;

  // ---- the queue (shared with the GUI thread) ---------------------------------
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::function<void()>> queue;
  bool quit = false;
  std::atomic<bool> commandsWaiting{false};
  std::atomic<bool> quitRequested{false};
  std::thread thread;

  // ---- owned by the simulation thread once it runs ---------------------------
  Mode mode = Mode::Paused;
  double targetFactor = 1.0;
  std::optional<std::size_t> shownFrame;
  std::uint64_t history = 0;  ///< SimulationStatus::history
  /// A frame with later ones was restored: the next step replaces them.
  bool branchPending = false;
  // Live pacing: simulated time `anchorTime` at wall-clock `anchorWall`.
  Clock::time_point anchorWall{};
  double anchorTime = 0.0;
  // Measured real-time factor.
  Clock::time_point rateWall{};
  double rateTime = 0.0;
  double measuredFactor = 0.0;
  Clock::time_point nextStatus{};
  Clock::time_point nextWarningPoll{};
  // Playing back: recorded time `playbackTime` at wall-clock `playbackWall`.
  double playbackSpeed = 1.0;
  std::size_t playbackIndex = 0;
  Clock::time_point playbackWall{};
  double playbackTime = 0.0;
  // Divergence checks (preallocated: the step observer allocates nothing).
  VectorXd q;
  VectorXd v;
  bool nonFinite = false;
  std::string failure;  ///< the engine's account of a failed step
  std::vector<std::string> positionNames;
  std::vector<std::string> velocityNames;
  std::vector<LoopClosure> closures;
  // Controls.
  std::optional<DragSpring> drag;
  std::vector<JointControl> joints;
  std::string reportedStopReason;

  // ---- set-up (GUI thread, before the thread starts) --------------------------
  void prepare(const RecordingOptions& options, std::optional<Recording> replay) {
    World& w = *world;
    q.resize(w.numPositions());
    v.resize(w.numDofs());
    const StateSpace space = w.getStateSpace();
    positionNames = space.positionNames();
    velocityNames = space.velocityNames();
    closures = w.getLoopClosures();
    // Added before the recorder's observer: a state that is not finite is
    // neither published nor recorded.
    observerId = w.addStepObserver([this](const World& stepped) { afterStep(stepped); });
    observing = true;
    recorder = std::make_unique<Recorder>(w, options);
    if (replay) {
      if (replay->timeStep() > 0.0 && replay->timeStep() != w.getOptions().timeStep) {
        w.setTimeStep(replay->timeStep());
      }
      recorder->recording() = std::move(*replay);
      if (!recorder->recording().empty()) {
        recorder->restore(0);
        shownFrame = 0;
        branchPending = recorder->recording().size() > 1;
      }
    }
  }

  void release() {
    recorder.reset();
    if (world && observing) world->removeStepObserver(observerId);
    observing = false;
    world.reset();
  }

  // ---- queue ------------------------------------------------------------------
  void post(std::function<void()> command) {
    {
      std::lock_guard lock(mutex);
      queue.push_back(std::move(command));
      commandsWaiting.store(true);
    }
    wake.notify_one();
  }

  void requestQuit() {
    {
      std::lock_guard lock(mutex);
      quit = true;
    }
    quitRequested.store(true);
    wake.notify_one();
  }

  void run() {
    postStatus();
    std::unique_lock lock(mutex);
    while (!quit) {
      if (!queue.empty()) {
        std::function<void()> command = std::move(queue.front());
        queue.pop_front();
        const bool lastOne = queue.empty();
        commandsWaiting.store(!lastOne);
        lock.unlock();
        execute(command);
        if (lastOne) {
          pollWarnings(true);
          postStatus();
        }
        lock.lock();
        continue;
      }
      if (mode == Mode::Paused) {
        wake.wait(lock, [this] { return quit || !queue.empty(); });
        continue;
      }
      lock.unlock();
      const std::optional<Clock::time_point> until = mode == Mode::Live ? liveBatch() : playbackBatch();
      const Clock::time_point now = Clock::now();
      if (now >= nextStatus) postStatus();
      pollWarnings(false);
      lock.lock();
      if (until && mode != Mode::Paused) {
        wake.wait_until(lock, *until, [this] { return quit || !queue.empty(); });
      }
    }
  }

  void execute(const std::function<void()>& command) {
    try {
      command();
    } catch (const std::exception& e) {
      postMessage(std::string("Simulation: ") + e.what());
    }
  }

  // ---- reports to the GUI thread ------------------------------------------------
  SimulationStatus makeStatus() const {
    SimulationStatus s;
    s.active = true;
    s.playing = mode != Mode::Paused;
    s.playingBack = mode == Mode::PlayBack;
    s.time = world->getTime();
    s.step = world->getFrameIndex();
    const RecordingStats stats = recorder->recording().stats();
    s.frames = stats.frames;
    s.recordingBytes = stats.storedBytes;
    s.droppedFrames = stats.droppedFrames;
    s.generation = generation;
    s.history = history;
    s.shownFrame = shownFrame;
    s.realTimeFactor = mode == Mode::Paused ? 0.0 : measuredFactor;
    s.targetRealTimeFactor = targetFactor;
    const WorldOptions& options = world->getOptions();
    s.timeStep = options.timeStep;
    s.solverMethod = options.solver.method;
    double residual = 0.0;
    for (const LoopClosure& c : closures) {
      if (c.isEnabled()) residual = std::max(residual, c.computeResidualNorm());
    }
    s.maxClosureResidual = residual;
    const VectorXd u = world->getControls();
    s.controls.assign(u.data(), u.data() + u.size());
    return s;
  }

  void postStatus() {
    const SimulationStatus s = makeStatus();
    Simulation* o = owner;
    const std::uint64_t g = generation;
    QMetaObject::invokeMethod(
        o,
        [o, s, g] {
          if (o->m_generation == g) o->onStatus(s);
        },
        Qt::QueuedConnection);
    nextStatus = Clock::now() + kStatusInterval;
  }

  void postMessage(const std::string& text) {
    Simulation* o = owner;
    const QString message = toQString(text);
    QMetaObject::invokeMethod(
        o, [o, message] { emit o->message(message); }, Qt::QueuedConnection);
  }

  void postDiverged(const std::string& text) {
    Simulation* o = owner;
    const std::uint64_t g = generation;
    const QString message = toQString(text);
    QMetaObject::invokeMethod(
        o,
        [o, message, g] {
          if (o->m_generation == g) emit o->diverged(message);
        },
        Qt::QueuedConnection);
  }

  /// Forwards the engine's new warnings (distinct ones, with counts) and a
  /// recording that stopped; at most every kWarningInterval unless `now`.
  void pollWarnings(bool now) {
    const Clock::time_point t = Clock::now();
    if (!now && t < nextWarningPoll) return;
    nextWarningPoll = t + kWarningInterval;
    const std::vector<std::string> warnings = world->getWarnings();
    if (!warnings.empty()) {
      world->clearWarnings();
      std::vector<std::pair<std::string, std::size_t>> distinct;
      for (const std::string& w : warnings) {
        auto it = std::find_if(distinct.begin(), distinct.end(), [&](const auto& d) { return d.first == w; });
        if (it == distinct.end()) {
          distinct.emplace_back(w, 1);
        } else {
          ++it->second;
        }
      }
      for (std::size_t i = 0; i < distinct.size() && i < kMaxWarningsPerPoll; ++i) {
        std::string text = "Simulation warning: " + distinct[i].first;
        if (distinct[i].second > 1) text += " (" + std::to_string(distinct[i].second) + " times)";
        postMessage(text);
      }
      if (distinct.size() > kMaxWarningsPerPoll) {
        postMessage("Simulation: " + std::to_string(distinct.size() - kMaxWarningsPerPoll) + " more warnings");
      }
    }
    const std::string& reason = recorder->stopReason();
    if (!reason.empty() && reason != reportedStopReason) {
      reportedStopReason = reason;
      postMessage("Recording stopped: " + reason);
    }
  }

  // ---- stepping -------------------------------------------------------------------
  /// Step observer: checks that the state is finite, then publishes it.
  void afterStep(const World& w) {
    w.getPositions(q);
    w.getVelocities(v);
    const StepDiagnostics& diagnostics = w.getStepDiagnostics();
    if (diagnostics.failed || !q.allFinite() || !v.allFinite()) {
      // The engine keeps the previous state when a step produces
      // non-finite values (diagnostics.failed); either way the step is
      // rejected: not published, not recorded.
      nonFinite = true;
      failure = diagnostics.failed ? diagnostics.message : std::string();
      recorder->setPaused(true);
      return;
    }
    publisher->publish(w);
  }

  std::string describeNonFinite() const {
    if (!failure.empty()) return failure;
    for (Eigen::Index i = 0; i < q.size(); ++i) {
      if (!std::isfinite(q[i])) {
        const auto k = static_cast<std::size_t>(i);
        return "position " + (k < positionNames.size() ? "'" + positionNames[k] + "'" : std::to_string(i)) +
               " became " + format(q[i]);
      }
    }
    for (Eigen::Index i = 0; i < v.size(); ++i) {
      if (!std::isfinite(v[i])) {
        const auto k = static_cast<std::size_t>(i);
        return "velocity " + (k < velocityNames.size() ? "'" + velocityNames[k] + "'" : std::to_string(i)) +
               " became " + format(v[i]);
      }
    }
    return "the state became non-finite";
  }

  /// Applies the drag spring and the joint efforts for the next step.
  void applyControls() {
    if (drag) {
      const Vector3d p = drag->frame.getWorldTransform() * drag->localPoint;
      const Vector3d pdot = drag->frame.getLinearVelocity(drag->localPoint);
      // Stiffness per kilogram of the body; damping critical for the body's
      // own mass on that spring (2·sqrt(k·m)).
      const double k = drag->mass * drag->stiffnessPerKg;
      const double c = 2.0 * std::sqrt(k * drag->mass);
      const Vector3d force = k * (drag->target - p) - c * pdot;
      if (drag->link) {
        drag->link->addExternalForce(force, drag->localPoint, true, false);
      } else if (drag->body) {
        drag->body->addExternalForce(force, drag->localPoint, true, false);
      }
    }
    for (JointControl& j : joints) {
      j.tau = j.effort;
      j.joint.setForces(j.tau);
    }
  }

  /// One step with the controls; on a non-finite state or a failing step
  /// the last good frame is restored and the simulation pauses. Returns
  /// whether the step succeeded.
  bool doStep() {
    if (branchPending) {
      ++history;
      branchPending = false;
    }
    const double t0 = world->getTime();
    const std::uint64_t s0 = world->getFrameIndex();
    nonFinite = false;
    failure.clear();
    try {
      applyControls();
      world->step(1);
    } catch (const std::exception& e) {
      recover("The step from t = " + format(t0) + " s (step " + std::to_string(s0) + ") failed: " + e.what());
      return false;
    }
    if (nonFinite) {
      recover("The simulation diverged in the step from t = " + format(t0) + " s (step " + std::to_string(s0) +
              "): " + describeNonFinite());
      return false;
    }
    return true;
  }

  /// Restores the last recorded frame (the world's reset state when there
  /// is none that fits), pauses and reports `what`.
  void recover(const std::string& what) {
    recorder->setPaused(false);
    mode = Mode::Paused;
    shownFrame.reset();
    std::string restored;
    const Recording& rec = recorder->recording();
    bool done = false;
    if (!rec.empty()) {
      try {
        recorder->restore(rec.size() - 1);
        branchPending = false;
        restored = "restored the last good frame (step " + std::to_string(world->getFrameIndex()) +
                   ", t = " + format(world->getTime()) + " s)";
        done = true;
      } catch (const std::exception&) {
        done = false;
      }
    }
    if (!done) {
      world->reset();
      restored = "returned to the initial state";
    }
    publisher->publish(*world);
    postDiverged(what + "; " + restored + " and paused.");
    postStatus();
  }

  void anchorPacing() {
    const Clock::time_point now = Clock::now();
    anchorWall = now;
    anchorTime = world->getTime();
    rateWall = now;
    rateTime = anchorTime;
    measuredFactor = 0.0;
  }

  void updateRate() {
    const Clock::time_point now = Clock::now();
    const double wall = seconds(now - rateWall);
    if (wall >= kRateWindow) {
      measuredFactor = std::abs(world->getTime() - rateTime) / wall;
      rateWall = now;
      rateTime = world->getTime();
    }
  }

  /// Live play: steps for up to kMaxBatch, paced to the target factor.
  /// Returns when to go on (nullopt: at once).
  std::optional<Clock::time_point> liveBatch() {
    const Clock::time_point start = Clock::now();
    std::optional<Clock::time_point> until;
    while (mode == Mode::Live && !commandsWaiting.load() && !quitRequested.load()) {
      const Clock::time_point now = Clock::now();
      if (now - start >= kMaxBatch) break;
      if (targetFactor > 0.0) {
        const double h = world->getOptions().timeStep;
        const double t = world->getTime();
        const double due = anchorTime + targetFactor * seconds(now - anchorWall);
        if (due - t > targetFactor * kMaxLag) {
          anchorWall = now - toDuration(kMaxLag);
          anchorTime = t;
        }
        if (t + h > due) {
          until = anchorWall + toDuration((t + h - anchorTime) / targetFactor);
          break;
        }
      }
      if (!doStep()) return std::nullopt;
    }
    updateRate();
    return until;
  }

  /// Playing back: shows the recorded frame due at `playbackSpeed` × real
  /// time; pauses after the last one.
  std::optional<Clock::time_point> playbackBatch() {
    const Recording& rec = recorder->recording();
    if (rec.empty()) {
      mode = Mode::Paused;
      return std::nullopt;
    }
    const std::size_t last = rec.size() - 1;
    const Clock::time_point now = Clock::now();
    const double target = playbackTime + playbackSpeed * seconds(now - playbackWall);
    std::size_t j = std::min(playbackIndex, last);
    while (j < last && rec.frameInfo(j + 1).time <= target) ++j;
    if (j != playbackIndex || shownFrame != j) {
      try {
        recorder->restore(j);
      } catch (const std::exception& e) {
        mode = Mode::Paused;
        measuredFactor = 0.0;
        publisher->publish(*world);
        postMessage("Simulation: play-back stopped, frame " + std::to_string(j) + " could not be shown: " + e.what());
        postStatus();
        return std::nullopt;
      }
      branchPending = j < last;
      publisher->publish(*world);
      playbackIndex = j;
      shownFrame = j;
    }
    updateRate();
    if (j >= last) {
      mode = Mode::Paused;
      postStatus();
      return std::nullopt;
    }
    const double next = rec.frameInfo(j + 1).time;
    const Clock::time_point due = playbackWall + toDuration((next - playbackTime) / playbackSpeed);
    return std::max(due, now + kMinPlaybackInterval);
  }

  // ---- commands (simulation thread) --------------------------------------------
  void play() {
    mode = Mode::Live;
    shownFrame.reset();
    anchorPacing();
  }

  void pause() {
    mode = Mode::Paused;
    measuredFactor = 0.0;
  }

  void step(std::size_t steps) {
    mode = Mode::Paused;
    shownFrame.reset();
    measuredFactor = 0.0;
    for (std::size_t i = 0; i < steps; ++i) {
      if (quitRequested.load()) break;
      if (!doStep()) break;
      const Clock::time_point now = Clock::now();
      if (now >= nextStatus) postStatus();
      if (now >= nextWarningPoll) pollWarnings(false);
    }
  }

  /// Shows recorded frame 0 and discards the later frames; the world's
  /// initial state, recorded anew, when frame 0 cannot be restored.
  void reset() {
    mode = Mode::Paused;
    shownFrame.reset();
    ++history;
    branchPending = false;
    measuredFactor = 0.0;
    recorder->setPaused(false);
    Recording& rec = recorder->recording();
    bool restored = false;
    if (!rec.empty()) {
      try {
        recorder->restore(0);
        rec.truncateAfter(0);
        restored = true;
      } catch (const std::exception& e) {
        postMessage(std::string("Simulation: the first recorded frame could not be restored (") + e.what() +
                    "); returned to the initial state");
      }
    }
    if (!restored) {
      world->reset();
      rec.clear();
      recorder->capture();
    }
    publisher->publish(*world);
  }

  void setTargetFactor(double factor) {
    if (!std::isfinite(factor) || factor < 0.0) {
      throw InvalidArgument("the real-time factor must be finite and ≥ 0 (got " + format(factor) + ")");
    }
    targetFactor = factor;
    anchorPacing();
  }

  void setTimeStep(double h) {
    world->setTimeStep(h);
    anchorPacing();
  }

  void setSolverMethod(const std::string& method) {
    if (!isConstraintSolverMethod(method)) throw InvalidArgument("unknown solver method '" + method + "'");
    WorldOptions options = world->getOptions();
    if (options.solver.method == method) return;
    options.solver.method = method;
    world->setOptions(options);
    // The solver method is part of the recording's layout: earlier frames
    // cannot be restored into the world any more, so recording starts over
    // from the current state.
    const Recording& old = recorder->recording();
    Recording fresh(old.options());
    fresh.setSceneReference(old.sceneReference());
    for (const auto& [key, value] : old.metadata()) fresh.setMetadata(key, value);
    recorder->recording() = std::move(fresh);
    recorder->capture();
    ++history;
    branchPending = false;
    shownFrame.reset();
    postMessage("Solver method set to " + method + "; the recording starts again at t = " + format(world->getTime()) +
                " s");
  }

  void setDragSpring(const ObjectRef& ref, const Vector3d& localPoint, const Vector3d& target, double stiffness) {
    if (!localPoint.allFinite() || !target.allFinite() || !std::isfinite(stiffness) || stiffness < 0.0) {
      throw InvalidArgument("drag spring: the point, target and stiffness must be finite (stiffness ≥ 0)");
    }
    if (!drag || drag->ref != ref) {
      const ObjectRef bodyRef =
          ref.kind == ObjectKind::Link || ref.kind == ObjectKind::RigidBody ? ref : movingBodyOf(*world, ref);
      DragSpring spring;
      spring.ref = ref;
      if (bodyRef.kind == ObjectKind::RigidBody) {
        spring.body = findRigidBody(*world, bodyRef);
        if (spring.body) {
          spring.frame = *spring.body;
          spring.mass = spring.body->getMass();
        }
      } else if (bodyRef.kind == ObjectKind::Link) {
        spring.link = findLink(*world, bodyRef);
        if (spring.link) {
          spring.frame = *spring.link;
          spring.mass = spring.link->getInertia().mass;
        }
      }
      if (!spring.link && !spring.body) {
        throw InvalidArgument("drag spring: '" + ref.name + "' is not a moving body of the simulation");
      }
      if (!(spring.mass > 0.0)) spring.mass = 1.0;
      drag = std::move(spring);
    }
    drag->localPoint = localPoint;
    drag->target = target;
    drag->stiffnessPerKg = stiffness;
  }

  JointControl& control(const ObjectRef& ref, int dof) {
    auto it = std::find_if(joints.begin(), joints.end(), [&](const JointControl& j) { return j.ref == ref; });
    const std::optional<Joint> joint = it != joints.end() ? std::optional<Joint>(it->joint) : findJoint(*world, ref);
    if (!joint) throw InvalidArgument("no joint '" + ref.name + "' in the simulation");
    if (dof < 0 || dof >= joint->numDofs()) {
      throw InvalidArgument("joint '" + ref.name + "' has no DoF " + std::to_string(dof) + " (it has " +
                            std::to_string(joint->numDofs()) + ")");
    }
    if (it == joints.end()) {
      JointControl c;
      c.ref = ref;
      c.joint = *joint;
      c.effort = VectorXd::Zero(joint->numDofs());
      c.tau = c.effort;
      joints.push_back(std::move(c));
      it = joints.end() - 1;
    }
    return *it;
  }

  /// Drops controls that no longer do anything, zeroing their forces once.
  void pruneControls() {
    for (auto it = joints.begin(); it != joints.end();) {
      if (it->idle()) {
        it->joint.setForces(VectorXd::Zero(it->joint.numDofs()));
        it = joints.erase(it);
      } else {
        ++it;
      }
    }
  }

  void setJointEffort(const ObjectRef& ref, int dof, double effort) {
    if (!std::isfinite(effort)) throw InvalidArgument("joint effort must be finite");
    JointControl& c = control(ref, dof);
    c.effort[dof] = effort;
    pruneControls();
  }

  void setControl(const std::string& name, double value) {
    const std::optional<Actuator> a = world->getActuator(name);
    if (!a) throw InvalidArgument("no actuator '" + name + "' in the simulation");
    world->setControl(*a, value);
  }

  void scrubTo(std::size_t index) {
    mode = Mode::Paused;
    measuredFactor = 0.0;
    const Recording& rec = recorder->recording();
    if (rec.empty()) return;
    index = std::min(index, rec.size() - 1);
    recorder->restore(index);
    branchPending = index + 1 < rec.size();
    publisher->publish(*world);
    shownFrame = index;
  }

  void playBack(double speed) {
    if (!std::isfinite(speed) || speed <= 0.0) {
      throw InvalidArgument("play-back speed must be positive (got " + format(speed) + ")");
    }
    const Recording& rec = recorder->recording();
    if (rec.empty()) return;
    const std::size_t last = rec.size() - 1;
    std::size_t start = shownFrame && *shownFrame < last ? *shownFrame : 0;
    if (shownFrame != start) {
      recorder->restore(start);
      branchPending = start + 1 < rec.size();
      publisher->publish(*world);
    }
    shownFrame = start;
    playbackIndex = start;
    playbackSpeed = speed;
    playbackWall = Clock::now();
    playbackTime = rec.frameInfo(start).time;
    mode = Mode::PlayBack;
    rateWall = playbackWall;
    rateTime = world->getTime();
    measuredFactor = 0.0;
  }
};

// ---------------------------------------------------------------------------

Simulation::Simulation(QObject* parent) : QObject(parent), m_publisher(std::make_unique<viewer::SnapshotPublisher>()) {
  qRegisterMetaType<articula::studio::SimulationStatus>();
}

Simulation::~Simulation() {
  stopWorker();
}

void Simulation::start(const std::string& sceneText, const std::filesystem::path& baseDirectory,
                       const RecordingOptions& recording, std::optional<Recording> replay) {
  World scratch;
  io::loadSceneFromString(scratch, sceneText, "<design>", baseDirectory);
  start(scratch.getSpec(), recording, std::move(replay));
}

void Simulation::start(const WorldSpec& design, const RecordingOptions& recording, std::optional<Recording> replay) {
  auto worker = std::make_unique<Worker>();
  worker->owner = this;
  worker->publisher = m_publisher.get();
  worker->world = std::make_unique<World>(design);
  World& world = *worker->world;
  world.enterSimulationMode();
  auto description = std::make_shared<const viewer::SceneDescription>(viewer::describeScene(world));
  if (replay) replay->checkLayout(world);
  worker->prepare(recording, std::move(replay));

  std::map<std::string, JointSegment> segments;
  const StateSpace space = world.getStateSpace();
  for (const StateSegment& s : space.segments()) {
    if (!s.joint.empty()) segments[s.owner + "/" + s.joint] = {s.positionOffset, s.numPositions, s.numDofs};
  }

  // Everything that can fail has succeeded: replace the running simulation.
  stopWorker();
  worker->generation = ++m_generation;
  m_jointSegments = std::move(segments);
  m_actuators.clear();
  m_controls.clear();
  for (const Actuator& a : world.getActuators()) {
    m_actuators.push_back(a.getSpec());
    m_controls[a.name()] = a.getControl();
  }
  m_schedules.clear();
  for (const ScheduleSpec& s : world.getSchedules()) m_schedules[s.actuator] = s.name;
  m_controlRanges.clear();
  const ControlSpace controlSpace = world.getControlSpace();
  for (std::size_t i = 0; i < controlSpace.names.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    m_controlRanges[controlSpace.names[i]] = {controlSpace.lower[k], controlSpace.upper[k]};
  }
  m_publisher->setDescription(std::move(description));
  m_publisher->publish(world);
  m_firstSnapshotVersion = m_publisher->publishedCount();
  const Clock::time_point now = Clock::now();
  worker->nextWarningPoll = now;
  worker->anchorPacing();
  m_status = worker->makeStatus();
  m_worker = std::move(worker);
  Worker* w = m_worker.get();
  m_worker->thread = std::thread([w] { w->run(); });
  emit statusChanged(m_status);
}

void Simulation::stopWorker() {
  if (!m_worker) return;
  m_worker->requestQuit();
  if (m_worker->thread.joinable()) m_worker->thread.join();
  m_publisher->detach();
  m_worker->release();
  m_worker.reset();
  ++m_generation;
  m_jointSegments.clear();
  m_sentEfforts.clear();
  m_controls.clear();
  m_actuators.clear();
  m_schedules.clear();
  m_controlRanges.clear();
}

void Simulation::stop() {
  if (!m_worker) return;
  stopWorker();
  m_status = SimulationStatus{};
  emit statusChanged(m_status);
}

bool Simulation::isActive() const {
  return m_worker != nullptr;
}

std::shared_ptr<const viewer::SceneDescription> Simulation::description() const {
  return m_worker ? m_publisher->description() : nullptr;
}

void Simulation::play() {
  if (m_worker) m_worker->post([w = m_worker.get()] { w->play(); });
}

void Simulation::pause() {
  if (m_worker) m_worker->post([w = m_worker.get()] { w->pause(); });
}

void Simulation::step(std::size_t steps) {
  if (m_worker) m_worker->post([w = m_worker.get(), steps] { w->step(steps); });
}

void Simulation::reset() {
  if (m_worker) m_worker->post([w = m_worker.get()] { w->reset(); });
}

void Simulation::setTargetRealTimeFactor(double factor) {
  if (m_worker) m_worker->post([w = m_worker.get(), factor] { w->setTargetFactor(factor); });
}

void Simulation::setTimeStep(double seconds) {
  if (m_worker) m_worker->post([w = m_worker.get(), seconds] { w->setTimeStep(seconds); });
}

void Simulation::setSolverMethod(const std::string& method) {
  if (m_worker) m_worker->post([w = m_worker.get(), method] { w->setSolverMethod(method); });
}

void Simulation::setDragSpring(const ObjectRef& body, const Vector3d& localPoint, const Vector3d& target,
                               double stiffnessPerKg) {
  if (m_worker) {
    m_worker->post([w = m_worker.get(), body, localPoint, target, stiffnessPerKg] {
      w->setDragSpring(body, localPoint, target, stiffnessPerKg);
    });
  }
}

void Simulation::clearDragSpring() {
  if (m_worker) m_worker->post([w = m_worker.get()] { w->drag.reset(); });
}

void Simulation::setJointEffort(const ObjectRef& joint, int dof, double effort) {
  if (!m_worker) return;
  m_worker->post([w = m_worker.get(), joint, dof, effort] { w->setJointEffort(joint, dof, effort); });
  // The worker refuses the same values; what it takes is kept here.
  if (jointSegment(joint, dof) == nullptr || !std::isfinite(effort)) return;
  const auto key = std::make_pair(joint.name, dof);
  if (effort == 0.0) {
    m_sentEfforts.erase(key);
  } else {
    m_sentEfforts[key] = effort;
  }
}

void Simulation::setControl(const std::string& actuator, double value) {
  if (!m_worker) return;
  m_worker->post([w = m_worker.get(), actuator, value] { w->setControl(actuator, value); });
  const std::optional<std::pair<double, double>> range = controlRange(actuator);
  if (!range || !std::isfinite(value)) return;
  m_controls[actuator] = std::clamp(value, range->first, range->second);
}

void Simulation::holdCurrentPose() {
  if (!m_worker) return;
  m_worker->post([w = m_worker.get()] { w->world->holdCurrentPose(); });
  // The targets become the shown positions.
  for (const ActuatorSpec& a : m_actuators) {
    if (a.type != ActuatorType::PositionServo && a.type != ActuatorType::Pid) continue;
    if (const auto q = shownJointPosition({ObjectKind::Joint, a.joint}, a.coordinate)) m_controls[a.name] = *q;
  }
}

const Simulation::JointSegment* Simulation::jointSegment(const ObjectRef& joint, int dof) const {
  if (joint.kind != ObjectKind::Joint) return nullptr;
  const auto it = m_jointSegments.find(joint.name);
  if (it == m_jointSegments.end() || dof < 0 || dof >= it->second.numDofs) return nullptr;
  return &it->second;
}

double Simulation::jointEffort(const ObjectRef& joint, int dof) const {
  const auto it = m_sentEfforts.find(std::make_pair(joint.name, dof));
  return joint.kind == ObjectKind::Joint && it != m_sentEfforts.end() ? it->second : 0.0;
}

std::optional<std::pair<double, double>> Simulation::controlRange(const std::string& actuator) const {
  const auto it = m_controlRanges.find(actuator);
  if (it == m_controlRanges.end()) return std::nullopt;
  return it->second;
}

std::string Simulation::scheduleOf(const std::string& actuator) const {
  const auto it = m_schedules.find(actuator);
  return it == m_schedules.end() ? std::string() : it->second;
}

std::optional<double> Simulation::control(const std::string& actuator) const {
  const auto it = m_controls.find(actuator);
  if (it == m_controls.end()) return std::nullopt;
  return it->second;
}

std::optional<double> Simulation::shownJointPosition(const ObjectRef& joint, int dof) const {
  if (!m_worker) return std::nullopt;
  const JointSegment* segment = jointSegment(joint, dof);
  if (segment == nullptr || dof >= segment->numPositions) return std::nullopt;
  // The consumer side of the publisher belongs to this (the GUI) thread.
  const viewer::RenderSnapshot& snapshot = m_publisher->latest();
  if (snapshot.version == 0 || snapshot.version < m_firstSnapshotVersion) return std::nullopt;
  const auto index = static_cast<std::size_t>(segment->positionOffset + dof);
  if (index >= snapshot.positions.size()) return std::nullopt;
  return snapshot.positions[index];
}

std::optional<VectorXd> Simulation::shownPositions() const {
  if (!m_worker) return std::nullopt;
  const viewer::RenderSnapshot& snapshot = m_publisher->latest();
  if (snapshot.version == 0 || snapshot.version < m_firstSnapshotVersion) return std::nullopt;
  return Eigen::Map<const VectorXd>(snapshot.positions.data(), static_cast<Eigen::Index>(snapshot.positions.size()));
}

void Simulation::scrubTo(std::size_t index) {
  if (m_worker) m_worker->post([w = m_worker.get(), index] { w->scrubTo(index); });
}

void Simulation::playBack(double speed) {
  if (m_worker) m_worker->post([w = m_worker.get(), speed] { w->playBack(speed); });
}

void Simulation::resumeFromShown() {
  if (m_worker) m_worker->post([w = m_worker.get()] { w->play(); });
}

Recording Simulation::recordingCopy() const {
  if (!m_worker) throw LifecycleError("no simulation is running");
  // The promise is shared with the command so that it outlives both sides.
  auto result = std::make_shared<std::promise<Recording>>();
  std::future<Recording> future = result->get_future();
  m_worker->post([w = m_worker.get(), result] {
    try {
      result->set_value(w->recorder->recording());
    } catch (...) {
      result->set_exception(std::current_exception());
    }
  });
  return future.get();
}

void Simulation::saveRecording(const std::filesystem::path& file, const std::string& sceneReference) const {
  if (!m_worker) throw LifecycleError("no simulation is running");
  auto result = std::make_shared<std::promise<void>>();
  std::future<void> future = result->get_future();
  m_worker->post([w = m_worker.get(), result, file, sceneReference] {
    try {
      Recording& recording = w->recorder->recording();
      recording.setSceneReference(sceneReference);
      recording.save(file);
      result->set_value();
    } catch (...) {
      result->set_exception(std::current_exception());
    }
  });
  future.get();
}

void Simulation::waitIdle() const {
  if (!m_worker) return;
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> future = done->get_future();
  m_worker->post([w = m_worker.get(), done] {
    w->postStatus();
    done->set_value();
  });
  future.get();
  // Deliver what the thread reported up to now (statuses, divergence,
  // messages), so that status() is current when this returns.
  if (QThread::currentThread() == thread()) {
    QCoreApplication::sendPostedEvents(const_cast<Simulation*>(this), QEvent::MetaCall);
  }
}

void Simulation::onStatus(const SimulationStatus& status) {
  m_status = status;
  // A recorded frame shown (scrubbing, playing back) brings its controls;
  // live, the GUI's own last sends are newer than any report.
  if (status.shownFrame && status.controls.size() == m_actuators.size()) {
    for (std::size_t i = 0; i < m_actuators.size(); ++i) m_controls[m_actuators[i].name] = status.controls[i];
  }
  emit statusChanged(m_status);
}

}  // namespace articula::studio

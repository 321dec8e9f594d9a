// Recording and replay (Recorder, Recording) and inverse kinematics.
#include "common.hpp"

namespace articula::python {

namespace {

VectorXd controlsOf(const RuntimeSnapshot& s) {
  VectorXd u(static_cast<Eigen::Index>(s.actuators.size()));
  for (std::size_t k = 0; k < s.actuators.size(); ++k) u[static_cast<Eigen::Index>(k)] = s.actuators[k].control;
  return u;
}

// One row per frame of a per-frame quantity (frames × its size).
template <class Get>
Eigen::MatrixXd allFrames(const Recording& r, Get get) {
  Eigen::MatrixXd out;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const VectorXd row = get(r.snapshot(i));
    if (i == 0) out.resize(static_cast<Eigen::Index>(r.size()), row.size());
    out.row(static_cast<Eigen::Index>(i)) = row.transpose();
  }
  return out;
}

}  // namespace

void bindRecording(py::module_& m) {
  py::enum_<RecordingOverflow>(m, "RecordingOverflow")
      .value("DROP_OLDEST", RecordingOverflow::DropOldest)
      .value("THIN_TO_KEYFRAMES", RecordingOverflow::ThinToKeyframes);
  py::class_<RecordingOptions>(m, "RecordingOptions")
      .def(py::init<>())
      .def_readwrite("every", &RecordingOptions::every)
      .def_readwrite("budget_bytes", &RecordingOptions::budgetBytes)
      .def_readwrite("overflow", &RecordingOptions::overflow)
      .def_readwrite("delta_encoding", &RecordingOptions::deltaEncoding)
      .def_readwrite("keyframe_interval", &RecordingOptions::keyframeInterval)
      .def_readwrite("keep_branches", &RecordingOptions::keepBranches);
  py::class_<RecordedFrameInfo>(m, "RecordedFrameInfo")
      .def_readonly("step", &RecordedFrameInfo::step)
      .def_readonly("time", &RecordedFrameInfo::time)
      .def_readonly("keyframe", &RecordedFrameInfo::keyframe)
      .def_readonly("stored_bytes", &RecordedFrameInfo::storedBytes)
      .def_readonly("raw_bytes", &RecordedFrameInfo::rawBytes);
  py::class_<RecordingStats>(m, "RecordingStats")
      .def_readonly("frames", &RecordingStats::frames)
      .def_readonly("stored_bytes", &RecordingStats::storedBytes)
      .def_readonly("raw_bytes", &RecordingStats::rawBytes)
      .def_readonly("dropped_frames", &RecordingStats::droppedFrames);

  py::class_<Recording>(m, "Recording",
                        "Recorded frames of a world: exact runtime states, restorable bit for bit, saved as a "
                        "replay file.")
      .def(py::init<const RecordingOptions&>(), py::arg("options") = RecordingOptions{})
      .def("options", &Recording::options, py::return_value_policy::copy)
      .def("set_options", &Recording::setOptions, py::arg("options"))
      .def("has_layout", &Recording::hasLayout)
      .def("time_step", &Recording::timeStep)
      .def("scene_reference", &Recording::sceneReference)
      .def("set_scene_reference", &Recording::setSceneReference, py::arg("reference"))
      .def("metadata", &Recording::metadata)
      .def("set_metadata", &Recording::setMetadata, py::arg("key"), py::arg("value"))
      .def("size", &Recording::size)
      .def("__len__", &Recording::size)
      .def("empty", &Recording::empty)
      .def("frame_info", &Recording::frameInfo, py::arg("index"))
      .def("find_step", &Recording::findStep, py::arg("step"))
      .def("find_at_or_before", &Recording::findAtOrBefore, py::arg("step"))
      .def("stats", &Recording::stats)
      .def("append", &Recording::append, py::arg("world"))
      .def("truncate_after", &Recording::truncateAfter, py::arg("index"))
      .def("clear", &Recording::clear)
      .def("snapshot", &Recording::snapshot, py::arg("index"))
      .def("restore", &Recording::restore, py::arg("world"), py::arg("index"),
           "Puts the world into the state of frame `index` (bit for bit).")
      .def("check_layout", &Recording::checkLayout, py::arg("world"))
      .def("save", &Recording::save, py::arg("file"), "Writes a replay file (atomically).")
      .def_static("load", &Recording::load, py::arg("file"))
      .def("to_bytes",
           [](const Recording& r) {
             const std::vector<unsigned char> b = r.toBytes();
             return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
           })
      .def_static(
          "from_bytes",
          [](const py::bytes& data, const std::string& sourceName) {
            const std::string s = data;
            return Recording::fromBytes(std::vector<unsigned char>(s.begin(), s.end()), sourceName);
          },
          py::arg("data"), py::arg("source_name") = std::string("<bytes>"))
      // whole recordings as arrays (one row per frame)
      .def(
          "steps",
          [](const Recording& r) {
            Eigen::Matrix<std::uint64_t, Eigen::Dynamic, 1> out(static_cast<Eigen::Index>(r.size()));
            for (std::size_t i = 0; i < r.size(); ++i) out[static_cast<Eigen::Index>(i)] = r.frameInfo(i).step;
            return out;
          },
          "The step index of every frame.")
      .def(
          "times",
          [](const Recording& r) {
            VectorXd out(static_cast<Eigen::Index>(r.size()));
            for (std::size_t i = 0; i < r.size(); ++i) out[static_cast<Eigen::Index>(i)] = r.frameInfo(i).time;
            return out;
          },
          "The time of every frame (s).")
      .def(
          "positions",
          [](const Recording& r) { return allFrames(r, [](const RuntimeSnapshot& s) { return s.state.positions; }); },
          "q of every frame: frames x nq.")
      .def(
          "velocities",
          [](const Recording& r) { return allFrames(r, [](const RuntimeSnapshot& s) { return s.state.velocities; }); },
          "v of every frame: frames x nv.")
      .def(
          "controls", [](const Recording& r) { return allFrames(r, controlsOf); }, "The controls of every frame.");

  py::class_<Recorder>(m, "Recorder",
                       "Records a world after every step (every options.every steps) into a Recording; "
                       "restore(i) rewinds, and stepping from there starts a branch.")
      .def(py::init<World&, const RecordingOptions&>(), py::arg("world"), py::arg("options") = RecordingOptions{},
           py::keep_alive<1, 2>())
      .def(
          "world", [](py::object self) { return worldObject(&self.cast<const Recorder&>().world()); },
          "The world recorded.")
      .def(
          "recording", [](Recorder& r) -> Recording& { return r.recording(); },
          py::return_value_policy::reference_internal)
      .def("capture", &Recorder::capture)
      .def("set_paused", &Recorder::setPaused, py::arg("paused"))
      .def("is_paused", &Recorder::isPaused)
      .def("stop_reason", &Recorder::stopReason)
      .def("restore", &Recorder::restore, py::arg("index"))
      .def("branches", &Recorder::branches, py::return_value_policy::copy);

  py::class_<InverseKinematics>(m, "InverseKinematics",
                                "Prioritized inverse kinematics on a world's coordinates (closures and couplers "
                                "held).")
      .def(py::init<World&, const IkOptions&>(), py::arg("world"), py::arg("options") = IkOptions{},
           py::keep_alive<1, 2>())
      .def("get_options", &InverseKinematics::getOptions, py::return_value_policy::copy)
      .def("set_options", &InverseKinematics::setOptions, py::arg("options"))
      .def("add_pose_task", &InverseKinematics::addPoseTask, py::arg("frame"), py::arg("target"),
           py::arg("options") = IkTaskOptions{})
      .def("add_position_task", &InverseKinematics::addPositionTask, py::arg("frame"), py::arg("target"),
           py::arg("options") = IkTaskOptions{})
      .def("add_orientation_task", &InverseKinematics::addOrientationTask, py::arg("frame"), py::arg("target"),
           py::arg("options") = IkTaskOptions{})
      .def("add_center_of_mass_task", &InverseKinematics::addCenterOfMassTask, py::arg("target"),
           py::arg("multibody") = std::nullopt, py::arg("options") = IkTaskOptions{})
      .def("add_posture_task", &InverseKinematics::addPostureTask, py::arg("target"),
           py::arg("dofs") = std::vector<int>{}, py::arg("options") = IkTaskOptions{})
      .def("pin", &InverseKinematics::pin, py::arg("frame"), py::arg("name") = std::string())
      .def("set_target", &InverseKinematics::setTarget, py::arg("task"), py::arg("target"))
      .def("set_target_position", &InverseKinematics::setTargetPosition, py::arg("task"), py::arg("target"))
      .def("set_target_orientation", &InverseKinematics::setTargetOrientation, py::arg("task"), py::arg("target"))
      .def("set_posture_target", &InverseKinematics::setPostureTarget, py::arg("task"), py::arg("target"))
      .def("get_target", &InverseKinematics::getTarget, py::arg("task"))
      .def("set_weight", &InverseKinematics::setWeight, py::arg("task"), py::arg("weight"))
      .def("set_priority", &InverseKinematics::setPriority, py::arg("task"), py::arg("priority"))
      .def("set_enabled", &InverseKinematics::setEnabled, py::arg("task"), py::arg("enabled"))
      .def("is_enabled", &InverseKinematics::isEnabled, py::arg("task"))
      .def("remove_task", &InverseKinematics::removeTask, py::arg("task"))
      .def("clear_tasks", &InverseKinematics::clearTasks)
      .def("get_tasks", &InverseKinematics::getTasks)
      .def("get_kind", &InverseKinematics::getKind, py::arg("task"))
      .def("get_name", &InverseKinematics::getName, py::arg("task"))
      .def("set_locked", &InverseKinematics::setLocked, py::arg("joint"), py::arg("locked") = true)
      .def("is_locked", &InverseKinematics::isLocked, py::arg("joint"))
      .def("solve", py::overload_cast<>(&InverseKinematics::solve), py::return_value_policy::copy,
           "Solves from the world's current coordinates and writes the result into the world.")
      .def(
          "solve",
          [](InverseKinematics& ik, const VectorXd& q0) {
            VectorXd q;
            IkResult r = ik.solve(q0, q);
            return py::make_tuple(r, q);
          },
          py::arg("q0"), "Solves from q0 without touching the world; returns (result, q).");
}

}  // namespace articula::python

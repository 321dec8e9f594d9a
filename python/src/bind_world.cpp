// World: lifecycle, objects, state, stepping (GIL released), controller
// and step-observer callbacks.
#include "common.hpp"

#include <memory>

namespace articula::python {

namespace {

// A Python error raised inside a callback that step() called: kept until
// step() returns, then raised from it. Later callbacks of the same step(n)
// are skipped. One per thread (a World is used by one thread at a time).
thread_local std::shared_ptr<py::error_already_set> tPendingError;
thread_local std::exception_ptr tPendingCppError;

bool errorPending() {
  return tPendingError || tPendingCppError;
}

void raisePendingError() {
  if (tPendingCppError) {
    std::exception_ptr e = tPendingCppError;
    tPendingCppError = nullptr;
    std::rethrow_exception(e);
  }
  if (!tPendingError) return;
  std::shared_ptr<py::error_already_set> e = std::move(tPendingError);
  tPendingError.reset();
  throw py::error_already_set(*e);
}

py::array_t<double> copyToArray(std::span<const double> values) {
  return py::array_t<double>(static_cast<py::ssize_t>(values.size()), values.data());
}

// The controls a Python controller wrote or returned, into `controls`.
void takeControls(const py::handle& result, const py::array_t<double>& written, std::span<double> controls) {
  const py::handle source = result.is_none() ? py::handle(written) : result;
  const auto u = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(source);
  if (!u || static_cast<std::size_t>(u.size()) != controls.size()) {
    throw InvalidArgument("the controller returned " + (u ? std::to_string(u.size()) : std::string("no array of")) +
                          " controls; the world has " + std::to_string(controls.size()) + " actuators");
  }
  const double* data = u.data();
  for (std::size_t i = 0; i < controls.size(); ++i) controls[i] = data[i];
}

void stepReleasingGil(World& world, std::size_t n) {
  tPendingError.reset();
  tPendingCppError = nullptr;
  {
    py::gil_scoped_release release;
    world.step(n);
  }
  raisePendingError();
}

}  // namespace

void bindWorld(py::module_& m) {
  py::class_<Executor, std::shared_ptr<Executor>>(
      m, "Executor",
      "Where the independent parts of a step run (the constraint islands); results are bit-identical\n"
      "with any executor. Articula's own is make_thread_pool_executor.")
      .def_property_readonly("concurrency", &Executor::concurrency, "How many tasks may run at once.");
  m.def("make_thread_pool_executor", &makeThreadPoolExecutor, py::arg("threads") = 0,
        "A pool of threads - 1 threads plus the stepping thread (0: one per hardware thread).");
  py::class_<World> world(m, "World",
                          "A world: bodies, multibodies, frames, shapes, closures, actuators and sensors, the time,\n"
                          "and the stepping. It starts in design mode (topology may change); the first step()\n"
                          "or enter_simulation_mode() freezes the topology. One thread at a time.");
  world.def(py::init<const WorldOptions&>(), py::arg("options") = WorldOptions{})
      .def(py::init<const WorldSpec&>(), py::arg("spec"), "A world built from a spec, in design mode.")
      // options
      .def("get_options", &World::getOptions, py::return_value_policy::copy)
      .def("set_options", &World::setOptions, py::arg("options"))
      .def_property(
          "options", [](const World& w) { return w.getOptions(); }, &World::setOptions,
          "A copy of the options; assign a changed copy back to apply it.")
      .def("set_gravity", &World::setGravity, py::arg("gravity"))
      .def("set_time_step", &World::setTimeStep, py::arg("time_step"))
      .def("set_executor", &World::setExecutor, py::arg("executor").none(true),
           "Solve the step's islands on this executor (None: on the stepping thread). Same results.")
      .def("get_executor", &World::getExecutor)
      // spec
      .def("get_spec", &World::getSpec, "The design as values, with the current coordinates.")
      .def("apply_spec", &World::applySpec, py::arg("spec"), py::arg("state") = SpecStatePolicy::KeepByName,
           "Replaces the design (design mode); handles of the old design become invalid.")
      // rigid bodies
      .def(
          "add_rigid_body",
          [](py::object self, const std::string& name, const RigidBodyOptions& o) {
            return tied(self.cast<World&>().addRigidBody(name, o), self);
          },
          py::arg("name") = std::string(), py::arg("options") = RigidBodyOptions{})
      .def(
          "get_rigid_body",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getRigidBody(n), self); },
          py::arg("name"))
      .def("has_rigid_body", &World::hasRigidBody, py::arg("name"))
      .def("num_rigid_bodies", &World::numRigidBodies)
      .def("get_rigid_bodies",
           [](py::object self) { return tiedList(self.cast<const World&>().getRigidBodies(), self); })
      // multibodies
      .def(
          "add_multibody",
          [](py::object self, const std::string& name) { return tied(self.cast<World&>().addMultibody(name), self); },
          py::arg("name"))
      .def(
          "get_multibody",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getMultibody(n), self); },
          py::arg("name"))
      .def("has_multibody", &World::hasMultibody, py::arg("name"))
      .def("num_multibodies", &World::numMultibodies)
      .def("get_multibodies",
           [](py::object self) { return tiedList(self.cast<const World&>().getMultibodies(), self); })
      // frames
      .def(
          "add_free_frame",
          [](py::object self, const std::string& name, const Frame& parent, const Isometry3d& X) {
            return tied(self.cast<World&>().addFreeFrame(name, parent, X), self);
          },
          py::arg("name"), py::arg("parent") = Frame::World(), py::arg("transform") = Isometry3d::Identity())
      .def(
          "add_fixed_frame",
          [](py::object self, const std::string& name, const Frame& parent, const Isometry3d& X) {
            return tied(self.cast<World&>().addFixedFrame(name, parent, X), self);
          },
          py::arg("name"), py::arg("parent"), py::arg("transform"))
      .def(
          "get_frame",
          [](py::object self, const std::string& n) -> py::object {
            const std::optional<Frame> f = self.cast<const World&>().getFrame(n);
            return f ? frameObject(*f, self) : py::none();
          },
          py::arg("name"), "Any named frame: a user frame, a rigid body or 'multibody/link' (as its own class).")
      .def(
          "get_free_frame",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getFreeFrame(n), self); },
          py::arg("name"))
      .def(
          "get_fixed_frame",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getFixedFrame(n), self); },
          py::arg("name"))
      .def("has_frame", &World::hasFrame, py::arg("name"))
      .def("num_frames", &World::numFrames)
      .def("get_frames",
           [](py::object self) {
             py::list out;
             for (const Frame& f : self.cast<const World&>().getFrames()) out.append(frameObject(f, self));
             return out;
           })
      // shapes and collision
      .def(
          "add_collision_shape",
          [](py::object self, const Frame& owner, const CollisionShapeOptions& o) {
            return tied(self.cast<World&>().addCollisionShape(owner, o), self);
          },
          py::arg("owner"), py::arg("options"))
      .def(
          "add_visual_shape",
          [](py::object self, const Frame& owner, const VisualShapeOptions& o) {
            return tied(self.cast<World&>().addVisualShape(owner, o), self);
          },
          py::arg("owner"), py::arg("options"))
      .def(
          "add_ground_plane",
          [](py::object self, double height, const Material& material, const std::string& name) {
            return tied(self.cast<World&>().addGroundPlane(height, material, name), self);
          },
          py::arg("height") = 0.0, py::arg("material") = Material{}, py::arg("name") = std::string("ground"))
      .def(
          "get_shape",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getShape(n), self); },
          py::arg("name"))
      .def("num_shapes", &World::numShapes)
      .def(
          "get_collision_shapes",
          [](py::object self, const Frame& owner) {
            return tiedList(self.cast<const World&>().getCollisionShapes(owner), self);
          },
          py::arg("owner"))
      .def(
          "get_visual_shapes",
          [](py::object self, const Frame& owner) {
            return tiedList(self.cast<const World&>().getVisualShapes(owner), self);
          },
          py::arg("owner"))
      .def("set_collision_enabled", &World::setCollisionEnabled, py::arg("a"), py::arg("b"), py::arg("enabled"))
      .def("clear_collision_setting", &World::clearCollisionSetting, py::arg("a"), py::arg("b"))
      .def("is_collision_enabled", &World::isCollisionEnabled, py::arg("a"), py::arg("b"))
      // queries
      .def(
          "check_collisions",
          [](py::object self, double margin) {
            return tiedList(self.cast<const World&>().checkCollisions(margin), self);
          },
          py::arg("margin") = 0.0, "Contact points at the current configuration; does not step.")
      .def(
          "compute_distance",
          [](py::object self, const Shape& a, const Shape& b) {
            return tied(self.cast<const World&>().computeDistance(a, b), self);
          },
          py::arg("a"), py::arg("b"))
      .def(
          "compute_distance",
          [](py::object self, const Frame& a, const Frame& b) {
            return tied(self.cast<const World&>().computeDistance(a, b), self);
          },
          py::arg("a"), py::arg("b"), "Signed distance between the closest collision shapes of two bodies.")
      .def(
          "raycast",
          [](py::object self, const Vector3d& origin, const Vector3d& direction, double maxDistance) {
            return tied(self.cast<const World&>().raycast(origin, direction, maxDistance), self);
          },
          py::arg("origin"), py::arg("direction"), py::arg("max_distance") = std::numeric_limits<double>::infinity(),
          "The first collision shape the ray enters, or None.")
      .def(
          "raycast_all",
          [](py::object self, const Vector3d& origin, const Vector3d& direction, double maxDistance) {
            return tiedList(self.cast<const World&>().raycastAll(origin, direction, maxDistance), self);
          },
          py::arg("origin"), py::arg("direction"), py::arg("max_distance") = std::numeric_limits<double>::infinity())
      .def("get_contact_wrench", &World::getContactWrench, py::arg("body"),
           "Total contact wrench [torque about the body origin; force] of the last step, world coordinates.")
      .def("get_contacts",
           [](py::object self) {
             py::list out;
             for (const Contact& c : self.cast<const World&>().getContacts()) out.append(tied(c, self));
             return out;
           })
      .def("get_step_diagnostics", &World::getStepDiagnostics, py::return_value_policy::copy)
      .def("get_warnings", &World::getWarnings)
      .def("clear_warnings", &World::clearWarnings)
      // removal (most specific overloads first)
      .def("remove", py::overload_cast<const RigidBody&>(&World::remove), py::arg("body"))
      .def("remove", py::overload_cast<const Multibody&>(&World::remove), py::arg("multibody"))
      .def("remove", py::overload_cast<const Shape&>(&World::remove), py::arg("shape"))
      .def("remove", py::overload_cast<const LoopClosure&>(&World::remove), py::arg("closure"))
      .def("remove", py::overload_cast<const JointCoupler&>(&World::remove), py::arg("coupler"))
      .def("remove", py::overload_cast<const Actuator&>(&World::remove), py::arg("actuator"))
      .def("remove", py::overload_cast<const Sensor&>(&World::remove), py::arg("sensor"))
      .def("remove", py::overload_cast<const Frame&>(&World::remove), py::arg("user_frame"))
      // closures and couplers
      .def(
          "add_loop_closure",
          [](py::object self, const std::string& name, const LoopClosureSpec& spec) {
            return tied(self.cast<World&>().addLoopClosure(name, spec), self);
          },
          py::arg("name"), py::arg("spec"))
      .def(
          "get_loop_closure",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getLoopClosure(n), self); },
          py::arg("name"))
      .def("has_loop_closure", &World::hasLoopClosure, py::arg("name"))
      .def("num_loop_closures", &World::numLoopClosures)
      .def("get_loop_closures",
           [](py::object self) { return tiedList(self.cast<const World&>().getLoopClosures(), self); })
      .def(
          "add_joint_coupler",
          [](py::object self, const std::string& name, const JointCouplerSpec& spec) {
            return tied(self.cast<World&>().addJointCoupler(name, spec), self);
          },
          py::arg("name"), py::arg("spec"))
      .def(
          "get_joint_coupler",
          [](py::object self, const std::string& n) {
            return tied(self.cast<const World&>().getJointCoupler(n), self);
          },
          py::arg("name"))
      .def("has_joint_coupler", &World::hasJointCoupler, py::arg("name"))
      .def("num_joint_couplers", &World::numJointCouplers)
      .def("get_joint_couplers",
           [](py::object self) { return tiedList(self.cast<const World&>().getJointCouplers(), self); })
      .def("project_closures", &World::projectClosures, py::arg("options") = ClosureProjectionOptions{})
      // actuators, controls, schedules, keyframes
      .def(
          "add_actuator",
          [](py::object self, const ActuatorSpec& spec) { return tied(self.cast<World&>().addActuator(spec), self); },
          py::arg("spec"))
      .def(
          "get_actuator",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getActuator(n), self); },
          py::arg("name"))
      .def("has_actuator", &World::hasActuator, py::arg("name"))
      .def("num_actuators", &World::numActuators)
      .def("get_actuators", [](py::object self) { return tiedList(self.cast<const World&>().getActuators(), self); })
      .def("set_control", &World::setControl, py::arg("actuator"), py::arg("value"))
      .def(
          "set_control",
          [](World& w, const std::string& name, double value) {
            const std::optional<Actuator> a = w.getActuator(name);
            if (!a) throw TopologyError("set_control: no actuator named '" + name + "'");
            w.setControl(*a, value);
          },
          py::arg("actuator"), py::arg("value"))
      .def("get_control", &World::getControl, py::arg("actuator"))
      .def("get_controls", &World::getControls)
      .def("set_controls", &World::setControls, py::arg("u"))
      .def("get_control_space", &World::getControlSpace)
      .def("get_actuator_forces", &World::getActuatorForces)
      .def("hold_current_pose", &World::holdCurrentPose)
      .def("add_schedule", &World::addSchedule, py::arg("schedule"))
      .def("get_schedules", &World::getSchedules)
      .def("remove_schedule", &World::removeSchedule, py::arg("name"))
      .def("set_schedule", &World::setSchedule, py::arg("name"), py::arg("schedule"))
      .def("add_keyframe", &World::addKeyframe, py::arg("keyframe"))
      .def("capture_keyframe", &World::captureKeyframe, py::arg("name"), py::arg("time") = 0.0,
           py::arg("velocities") = false, py::arg("controls") = false)
      .def("get_keyframes", &World::getKeyframes)
      .def("get_keyframe", &World::getKeyframe, py::arg("name"))
      .def("set_keyframe", &World::setKeyframe, py::arg("name"), py::arg("keyframe"))
      .def("remove_keyframe", &World::removeKeyframe, py::arg("name"))
      .def("apply_keyframe", &World::applyKeyframe, py::arg("name"))
      .def("make_keyframe_schedules", &World::makeKeyframeSchedules, py::arg("names"),
           py::arg("prefix") = std::string("keyframes_"), py::arg("loop") = false)
      // sensors
      .def(
          "add_sensor",
          [](py::object self, const SensorSpec& spec) { return tied(self.cast<World&>().addSensor(spec), self); },
          py::arg("spec"))
      .def(
          "get_sensor",
          [](py::object self, const std::string& n) { return tied(self.cast<const World&>().getSensor(n), self); },
          py::arg("name"))
      .def("num_sensors", &World::numSensors)
      .def("get_sensors", [](py::object self) { return tiedList(self.cast<const World&>().getSensors(), self); })
      // the Python controller: the slow path (the GIL is taken for every call)
      .def(
          "set_controller",
          [](World& w, py::object fn) {
            if (fn.is_none()) {
              w.setController({});
              return;
            }
            if (!PyCallable_Check(fn.ptr())) throw py::type_error("set_controller expects a callable or None");
            auto function = std::make_shared<py::object>(std::move(fn));
            w.setController([function](const ControllerInput& input, std::span<double> controls) {
              py::gil_scoped_acquire gil;
              if (errorPending()) return;
              try {
                py::array_t<double> u = copyToArray(controls);
                py::object result = (*function)(input.time, copyToArray(input.q), copyToArray(input.v), u);
                takeControls(result, u, controls);
              } catch (py::error_already_set& e) {
                tPendingError = std::make_shared<py::error_already_set>(std::move(e));
              } catch (...) {
                tPendingCppError = std::current_exception();
              }
            });
          },
          py::arg("controller"),
          "fn(t, q, v, controls) called before every step: write the controls in place or return them "
          "(None removes the controller). Runs Python for every step: the slow path.")
      // lifecycle
      .def("is_simulation_mode", &World::isSimulationMode)
      .def("validate_topology", &World::validateTopology)
      .def("enter_simulation_mode", &World::enterSimulationMode)
      .def("step", &stepReleasingGil, py::arg("n") = 1,
           "Advances n steps (the GIL is released while stepping; Python callbacks take it back).")
      .def(
          "add_step_observer",
          [](World& w, py::object fn) {
            if (!PyCallable_Check(fn.ptr())) throw py::type_error("add_step_observer expects a callable");
            auto function = std::make_shared<py::object>(std::move(fn));
            return w.addStepObserver([function](const World& stepped) {
              py::gil_scoped_acquire gil;
              if (errorPending()) return;
              try {
                (*function)(worldObject(&stepped));
              } catch (py::error_already_set& e) {
                tPendingError = std::make_shared<py::error_already_set>(std::move(e));
              } catch (...) {
                tPendingCppError = std::current_exception();
              }
            });
          },
          py::arg("observer"), "fn(world) called after every step; returns an id for remove_step_observer.")
      .def("remove_step_observer", &World::removeStepObserver, py::arg("id"))
      .def("reset", &World::reset)
      .def("reset_to_design_mode", &World::resetToDesignMode)
      .def("clear", &World::clear, "Removes everything; every handle becomes invalid.")
      .def("sync", &World::sync, py::arg("stage") = WorldSyncStage::Kinematics)
      .def("get_time", &World::getTime)
      .def("get_frame_index", &World::getFrameIndex)
      .def("get_last_step_timings", &World::getLastStepTimings, py::return_value_policy::copy)
      // state
      .def("num_positions", &World::numPositions)
      .def("num_dofs", &World::numDofs)
      .def("get_state_space", &World::getStateSpace)
      .def("get_positions", py::overload_cast<>(&World::getPositions, py::const_))
      .def(
          "get_positions", [](const World& w, Eigen::Ref<VectorXd> out) { w.getPositions(out); }, py::arg("out"),
          "Writes into `out` (float64, contiguous, the right size) without allocating.")
      .def("set_positions", &World::setPositions, py::arg("q"))
      .def("get_velocities", py::overload_cast<>(&World::getVelocities, py::const_))
      .def(
          "get_velocities", [](const World& w, Eigen::Ref<VectorXd> out) { w.getVelocities(out); }, py::arg("out"),
          "Writes into `out` (float64, contiguous, the right size) without allocating.")
      .def("set_velocities", &World::setVelocities, py::arg("v"))
      .def("get_state", &World::getState)
      .def("set_state", &World::setState, py::arg("state"))
      .def("capture_runtime_state", &World::captureRuntimeState)
      .def("restore_runtime_state", &World::restoreRuntimeState, py::arg("snapshot"))
      .def("compute_kinetic_energy", &World::computeKineticEnergy)
      .def("compute_potential_energy", &World::computePotentialEnergy)
      .def("is_locked", &World::isLocked);
}

}  // namespace articula::python

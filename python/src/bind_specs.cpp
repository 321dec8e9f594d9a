// WorldSpec: the editable description of a world, as plain values.
#include "common.hpp"

namespace articula::python {

namespace {

// Quaternions cross as [w, x, y, z].
Vector4d quaternionToArray(const Quaterniond& q) {
  return {q.w(), q.x(), q.y(), q.z()};
}
Quaterniond arrayToQuaternion(const Vector4d& a) {
  return Quaterniond(a[0], a[1], a[2], a[3]);
}

}  // namespace

void bindSpecs(py::module_& m) {
  // The classes first, then their lists, then the members: every signature
  // then names Python types.
  py::class_<ShapeSpec> shapeSpec(m, "ShapeSpec",
                                  "A collision or visual shape of a named owner ('world', a body or a link).");
  py::class_<RigidBodySpec> rigidBodySpec(m, "RigidBodySpec", "A free rigid body with its state.");
  py::class_<LinkSpec> linkSpec(m, "LinkSpec",
                                "A link, the joint to its parent link (or the world), and its coordinates.");
  py::class_<MultibodySpec> multibodySpec(m, "MultibodySpec", "A tree of links.");
  py::class_<FrameSpec> frameSpec(m, "FrameSpec", "A user frame (free or fixed) on a named parent.");
  py::class_<ClosureSpec> closureSpec(m, "ClosureSpec", "A loop closure between two named frames.");
  py::class_<CouplerSpec> couplerSpec(m, "CouplerSpec", "A joint coupler q_follower = ratio * q_leader + offset.");
  py::class_<CollisionSettingSpec> collisionSettingSpec(m, "CollisionSettingSpec");
  py::bind_vector<std::vector<RigidBodySpec>>(m, "RigidBodySpecList");
  py::bind_vector<std::vector<MultibodySpec>>(m, "MultibodySpecList");
  py::bind_vector<std::vector<LinkSpec>>(m, "LinkSpecList");
  py::bind_vector<std::vector<FrameSpec>>(m, "FrameSpecList");
  py::bind_vector<std::vector<ShapeSpec>>(m, "ShapeSpecList");
  py::bind_vector<std::vector<ClosureSpec>>(m, "ClosureSpecList");
  py::bind_vector<std::vector<CouplerSpec>>(m, "CouplerSpecList");
  py::bind_vector<std::vector<CollisionSettingSpec>>(m, "CollisionSettingSpecList");
  py::bind_vector<std::vector<ActuatorSpec>>(m, "ActuatorSpecList");
  py::bind_vector<std::vector<ScheduleSpec>>(m, "ScheduleSpecList");
  py::bind_vector<std::vector<KeyframeSpec>>(m, "KeyframeSpecList");
  py::bind_vector<std::vector<SensorSpec>>(m, "SensorSpecList");

  shapeSpec.def(py::init<>())
      .def_readwrite("name", &ShapeSpec::name)
      .def_readwrite("owner", &ShapeSpec::owner)
      .def_readwrite("collision", &ShapeSpec::collision)
      .def_readwrite("geometry", &ShapeSpec::geometry)
      .def_readwrite("pose", &ShapeSpec::pose)
      .def_readwrite("material", &ShapeSpec::material)
      .def_readwrite("collidable", &ShapeSpec::collidable)
      .def_readwrite("color", &ShapeSpec::color);
  rigidBodySpec.def(py::init<>())
      .def_readwrite("name", &RigidBodySpec::name)
      .def_readwrite("inertia", &RigidBodySpec::inertia)
      .def_readwrite("position", &RigidBodySpec::position)
      .def_property(
          "orientation", [](const RigidBodySpec& s) { return quaternionToArray(s.orientation); },
          [](RigidBodySpec& s, const Vector4d& q) { s.orientation = arrayToQuaternion(q); }, "[w, x, y, z]")
      .def_readwrite("velocity", &RigidBodySpec::velocity)
      .def_readwrite("force", &RigidBodySpec::force)
      .def_property("pose", &RigidBodySpec::pose, &RigidBodySpec::setPose, "X_WB, a 4x4 transform")
      .def("set_velocity_world", &RigidBodySpec::setVelocityWorld, py::arg("linear"), py::arg("angular"));
  linkSpec.def(py::init<>())
      .def_readwrite("name", &LinkSpec::name)
      .def_readwrite("parent", &LinkSpec::parent)
      .def_readwrite("inertia", &LinkSpec::inertia)
      .def_readwrite("joint", &LinkSpec::joint)
      .def_readwrite("q", &LinkSpec::q)
      .def_readwrite("v", &LinkSpec::v)
      .def_readwrite("tau", &LinkSpec::tau);
  multibodySpec.def(py::init<>())
      .def_readwrite("name", &MultibodySpec::name)
      .def_readwrite("self_collision", &MultibodySpec::selfCollision)
      .def_readwrite("links", &MultibodySpec::links);
  frameSpec.def(py::init<>())
      .def_readwrite("name", &FrameSpec::name)
      .def_readwrite("is_free", &FrameSpec::isFree)
      .def_readwrite("parent", &FrameSpec::parent)
      .def_readwrite("pose", &FrameSpec::pose)
      .def_readwrite("velocity", &FrameSpec::velocity)
      .def_readwrite("acceleration", &FrameSpec::acceleration);
  closureSpec.def(py::init<>())
      .def_readwrite("name", &ClosureSpec::name)
      .def_readwrite("frame_a", &ClosureSpec::frameA)
      .def_readwrite("frame_b", &ClosureSpec::frameB)
      .def_readwrite("family", &ClosureSpec::family)
      .def_readwrite("offset_a", &ClosureSpec::offsetA)
      .def_readwrite("offset_b", &ClosureSpec::offsetB)
      .def_readwrite("length", &ClosureSpec::length)
      .def_readwrite("policy", &ClosureSpec::policy);
  couplerSpec.def(py::init<>())
      .def_readwrite("name", &CouplerSpec::name)
      .def_readwrite("leader", &CouplerSpec::leader)
      .def_readwrite("follower", &CouplerSpec::follower)
      .def_readwrite("ratio", &CouplerSpec::ratio)
      .def_readwrite("offset", &CouplerSpec::offset)
      .def_readwrite("policy", &CouplerSpec::policy);
  collisionSettingSpec.def(py::init<>())
      .def_readwrite("a", &CollisionSettingSpec::a)
      .def_readwrite("b", &CollisionSettingSpec::b)
      .def_readwrite("enabled", &CollisionSettingSpec::enabled);

  // Finders return references into the spec (None when absent).
  const auto ref = py::return_value_policy::reference_internal;
  py::class_<WorldSpec>(m, "WorldSpec",
                        "The editable description of a world: plain values, objects named, not indexed.\n"
                        "World(spec) builds it; World.get_spec() gives it back; World.apply_spec(spec) "
                        "rebuilds a world in design mode.")
      .def(py::init<>())
      .def(py::init<const WorldSpec&>(), py::arg("other"), "A copy.")
      .def_readwrite("options", &WorldSpec::options)
      .def_readwrite("rigid_bodies", &WorldSpec::rigidBodies)
      .def_readwrite("multibodies", &WorldSpec::multibodies)
      .def_readwrite("frames", &WorldSpec::frames)
      .def_readwrite("shapes", &WorldSpec::shapes)
      .def_readwrite("loop_closures", &WorldSpec::loopClosures)
      .def_readwrite("joint_couplers", &WorldSpec::jointCouplers)
      .def_readwrite("collision_settings", &WorldSpec::collisionSettings)
      .def_readwrite("actuators", &WorldSpec::actuators)
      .def_readwrite("schedules", &WorldSpec::schedules)
      .def_readwrite("keyframes", &WorldSpec::keyframes)
      .def_readwrite("sensors", &WorldSpec::sensors)
      .def_readwrite("owner_order", &WorldSpec::ownerOrder)
      .def("find_rigid_body", &WorldSpec::findRigidBody, py::arg("name"), ref)
      .def("find_multibody", &WorldSpec::findMultibody, py::arg("name"), ref)
      .def("find_link", &WorldSpec::findLink, py::arg("multibody"), py::arg("link"), ref)
      .def("find_frame", &WorldSpec::findFrame, py::arg("name"), ref)
      .def("find_shape", &WorldSpec::findShape, py::arg("name"), ref)
      .def("find_loop_closure", &WorldSpec::findLoopClosure, py::arg("name"), ref)
      .def("find_joint_coupler", &WorldSpec::findJointCoupler, py::arg("name"), ref)
      .def("find_actuator", &WorldSpec::findActuator, py::arg("name"), ref)
      .def("find_schedule", &WorldSpec::findSchedule, py::arg("name"), ref)
      .def("find_keyframe", &WorldSpec::findKeyframe, py::arg("name"), ref)
      .def("find_sensor", &WorldSpec::findSensor, py::arg("name"), ref)
      .def("append", &WorldSpec::append, py::arg("other"), "Adds the objects of another spec.")
      .def("__eq__", [](const WorldSpec& a, const WorldSpec& b) { return a == b; })
      .def("__copy__", [](const WorldSpec& s) { return WorldSpec(s); })
      .def(
          "__deepcopy__", [](const WorldSpec& s, py::dict) { return WorldSpec(s); }, py::arg("memo"));
}

}  // namespace articula::python

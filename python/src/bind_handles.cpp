// Handles: Frame and its kinds, Multibody, Joint, Shape, LoopClosure,
// JointCoupler, Actuator, Sensor, and the values that carry handles.
#include "common.hpp"

#include <cstdint>
#include <functional>

namespace articula::python {

namespace {

// __eq__, __ne__, __hash__ and __repr__ of a handle class; `hash` keys a
// handle by what identifies it.
template <class H, class Class, class Hash>
void handleDunders(Class& c, const char* kind, Hash hash) {
  c.def("__eq__", [](const H& a, py::object b) { return py::isinstance<H>(b) && a == b.template cast<const H&>(); })
      .def("__ne__",
           [](const H& a, py::object b) { return !(py::isinstance<H>(b) && a == b.template cast<const H&>()); })
      .def("__hash__", hash)
      .def("__repr__", [kind](const H& h) {
        if (!h.isValid()) return std::string(kind) + "(<invalid>)";
        return std::string(kind) + "('" + h.name() + "')";
      });
}

// Handles with an index and a generation.
template <class H, class Class>
void handleDunders(Class& c, const char* kind) {
  handleDunders<H>(c, kind, [](const H& h) {
    return std::hash<std::uint64_t>{}((std::uint64_t{h.index()} << 32) ^ h.generation()) ^
           std::hash<const void*>{}(static_cast<const void*>(&typeid(H)));
  });
}

// Handles keyed by their index, or by their name.
template <class H>
std::size_t indexHash(const H& h) {
  return std::hash<std::uint32_t>{}(h.index());
}
template <class H>
std::size_t nameHash(const H& h) {
  return std::hash<std::string>{}(h.isValid() ? h.name() : std::string());
}

}  // namespace

void bindHandles(py::module_& m) {
  // ---- Frame ----------------------------------------------------------------
  py::class_<Frame> frame(m, "Frame",
                          "A handle to a frame: the world frame, a link, a rigid body or a user frame.\n"
                          "Handles keep their World alive; after the object is removed (or World.clear()) "
                          "every call raises InvalidHandle.");
  frame.def_static("world", &Frame::World, "The inertial world frame.")
      .def("is_valid", &Frame::isValid)
      .def("is_world", &Frame::isWorld)
      .def("kind", &Frame::kind)
      .def_property("name", &Frame::name, &Frame::setName, "'multibody/link' for links")
      .def("set_name", &Frame::setName, py::arg("name"))
      .def("get_parent_frame",
           [](py::object self) { return frameObject(self.cast<const Frame&>().getParentFrame(), self); })
      .def("get_transform", py::overload_cast<const Frame&>(&Frame::getTransform, py::const_),
           py::arg("relative_to") = Frame::World(), "The 4x4 pose of this frame in `relative_to`.")
      .def("get_transform", py::overload_cast<const Frame&, const Frame&>(&Frame::getTransform, py::const_),
           py::arg("relative_to"), py::arg("in_coordinates_of"))
      .def("get_world_transform", &Frame::getWorldTransform)
      .def("get_spatial_velocity", py::overload_cast<>(&Frame::getSpatialVelocity, py::const_),
           "[angular; linear] in this frame's coordinates (body velocity).")
      .def("get_spatial_velocity",
           py::overload_cast<const Frame&, const Frame&>(&Frame::getSpatialVelocity, py::const_),
           py::arg("relative_to"), py::arg("in_coordinates_of"))
      .def("get_linear_velocity", py::overload_cast<const Frame&, const Frame&>(&Frame::getLinearVelocity, py::const_),
           py::arg("relative_to") = Frame::World(), py::arg("in_coordinates_of") = Frame::World())
      .def("get_linear_velocity",
           py::overload_cast<const Vector3d&, const Frame&, const Frame&>(&Frame::getLinearVelocity, py::const_),
           py::arg("offset"), py::arg("relative_to") = Frame::World(), py::arg("in_coordinates_of") = Frame::World())
      .def("get_angular_velocity", &Frame::getAngularVelocity, py::arg("relative_to") = Frame::World(),
           py::arg("in_coordinates_of") = Frame::World())
      .def("get_spatial_acceleration", &Frame::getSpatialAcceleration)
      .def("get_linear_acceleration",
           py::overload_cast<const Frame&, const Frame&>(&Frame::getLinearAcceleration, py::const_),
           py::arg("relative_to") = Frame::World(), py::arg("in_coordinates_of") = Frame::World())
      .def("get_linear_acceleration",
           py::overload_cast<const Vector3d&, const Frame&, const Frame&>(&Frame::getLinearAcceleration, py::const_),
           py::arg("offset"), py::arg("relative_to") = Frame::World(), py::arg("in_coordinates_of") = Frame::World())
      .def("get_angular_acceleration", &Frame::getAngularAcceleration, py::arg("relative_to") = Frame::World(),
           py::arg("in_coordinates_of") = Frame::World());
  frame
      .def("__eq__",
           [](const Frame& a, py::object b) { return py::isinstance<Frame>(b) && a == b.cast<const Frame&>(); })
      .def("__ne__",
           [](const Frame& a, py::object b) { return !(py::isinstance<Frame>(b) && a == b.cast<const Frame&>()); })
      .def("__hash__",
           [](const Frame& f) {
             return std::hash<std::uint64_t>{}((std::uint64_t{f.index()} << 32) ^ f.generation()) ^
                    static_cast<std::size_t>(f.kind());
           })
      .def("__repr__", [](py::object self) {
        const Frame& f = self.cast<const Frame&>();
        const std::string kind = py::type::of(self).attr("__name__").cast<std::string>();
        if (f.isWorld()) return std::string("Frame(world)");
        if (!f.isValid()) return kind + "(<invalid>)";
        return kind + "('" + f.name() + "')";
      });

  py::class_<FreeFrame, Frame>(m, "FreeFrame", "A user frame whose relative transform and velocity are set freely.")
      .def("get_relative_transform", &FreeFrame::getRelativeTransform)
      .def("set_relative_transform", &FreeFrame::setRelativeTransform, py::arg("transform"))
      .def("set_transform", &FreeFrame::setTransform, py::arg("transform"), py::arg("relative_to") = Frame::World())
      .def("set_relative_spatial_velocity", &FreeFrame::setRelativeSpatialVelocity, py::arg("velocity"))
      .def("get_relative_spatial_velocity", &FreeFrame::getRelativeSpatialVelocity)
      .def("set_relative_spatial_acceleration", &FreeFrame::setRelativeSpatialAcceleration, py::arg("acceleration"))
      .def("get_relative_spatial_acceleration", &FreeFrame::getRelativeSpatialAcceleration);
  py::class_<FixedFrame, Frame>(m, "FixedFrame", "A user frame rigidly attached to its parent.")
      .def("get_relative_transform", &FixedFrame::getRelativeTransform);

  // ---- Shape ----------------------------------------------------------------
  py::class_<Shape> shape(m, "Shape", "A collision or visual shape attached to a link, rigid body or the world.");
  shape.def("is_valid", &Shape::isValid)
      .def_property("name", &Shape::name, &Shape::setName)
      .def("set_name", &Shape::setName, py::arg("name"))
      .def("is_collision", &Shape::isCollision)
      .def("get_owner", [](py::object self) { return frameObject(self.cast<const Shape&>().getOwner(), self); })
      .def("get_geometry", &Shape::getGeometry, py::return_value_policy::copy)
      .def("set_geometry", &Shape::setGeometry, py::arg("geometry"))
      .def("get_local_pose", &Shape::getLocalPose)
      .def("set_local_pose", &Shape::setLocalPose, py::arg("pose"))
      .def("get_world_transform", &Shape::getWorldTransform)
      .def("get_material", &Shape::getMaterial)
      .def("set_material", &Shape::setMaterial, py::arg("material"))
      .def("is_collidable", &Shape::isCollidable)
      .def("set_collidable", &Shape::setCollidable, py::arg("collidable"))
      .def("get_color", &Shape::getColor)
      .def("set_color", &Shape::setColor, py::arg("rgba"));
  handleDunders<Shape>(shape, "Shape");

  // ---- RigidBody ------------------------------------------------------------
  py::class_<RigidBody, Frame>(m, "RigidBody", "A free-floating rigid body (six DoF, no joints).")
      .def("get_inertia", &RigidBody::getInertia)
      .def("set_inertia", &RigidBody::setInertia, py::arg("inertia"))
      .def("get_mass", &RigidBody::getMass)
      .def("get_pose", &RigidBody::getPose)
      .def("set_pose", &RigidBody::setPose, py::arg("pose"))
      .def("get_linear_velocity_world", &RigidBody::getLinearVelocityWorld)
      .def("get_angular_velocity_world", &RigidBody::getAngularVelocityWorld)
      .def("set_velocity_world", &RigidBody::setVelocityWorld, py::arg("linear"), py::arg("angular"))
      .def(
          "add_collision_shape",
          [](py::object self, const CollisionShapeOptions& o) {
            return tied(self.cast<RigidBody&>().addCollisionShape(o), self);
          },
          py::arg("options"))
      .def(
          "add_visual_shape",
          [](py::object self, const VisualShapeOptions& o) {
            return tied(self.cast<RigidBody&>().addVisualShape(o), self);
          },
          py::arg("options"))
      .def("get_collision_shapes",
           [](py::object self) { return tiedList(self.cast<const RigidBody&>().getCollisionShapes(), self); })
      .def("get_visual_shapes",
           [](py::object self) { return tiedList(self.cast<const RigidBody&>().getVisualShapes(), self); })
      .def("add_external_force", &RigidBody::addExternalForce, py::arg("force"), py::arg("offset") = Vector3d::Zero(),
           py::arg("force_in_world") = true, py::arg("offset_in_world") = false)
      .def("add_external_torque", &RigidBody::addExternalTorque, py::arg("torque"), py::arg("in_world") = true)
      .def("clear_external_forces", &RigidBody::clearExternalForces)
      .def("compute_kinetic_energy", &RigidBody::computeKineticEnergy)
      .def("get_linear_momentum", &RigidBody::getLinearMomentum)
      .def("get_angular_momentum", &RigidBody::getAngularMomentum, py::arg("point") = Vector3d::Zero());

  // ---- Multibody, Link, Joint ---------------------------------------------
  py::class_<Multibody> multibody(m, "Multibody", "A tree of links joined by joints (generalized coordinates).");
  py::class_<Link, Frame> link(m, "Link", "A link of a multibody; also a Frame.");
  py::class_<Joint> joint(m, "Joint", "The joint between a link and its parent (named after the joint).");

  multibody.def("is_valid", &Multibody::isValid)
      .def_property("name", &Multibody::name, &Multibody::setName)
      .def("set_name", &Multibody::setName, py::arg("name"))
      .def(
          "add_link",
          [](py::object self, const LinkOptions& o, const JointSpec& j) {
            return tied(self.cast<Multibody&>().addLink(o, j), self);
          },
          py::arg("options"), py::arg("root_joint") = JointSpec::free(), "Adds the root link.")
      .def(
          "add_link",
          [](py::object self, const LinkOptions& o, const Link& parent, const JointSpec& j) {
            return tied(self.cast<Multibody&>().addLink(o, parent, j), self);
          },
          py::arg("options"), py::arg("parent"), py::arg("joint"), "Adds a child link of `parent`.")
      .def("set_self_collision", &Multibody::setSelfCollision, py::arg("enabled"))
      .def("get_self_collision", &Multibody::getSelfCollision)
      .def("num_links", &Multibody::numLinks)
      .def("num_joints", &Multibody::numJoints)
      .def("num_dofs", &Multibody::numDofs)
      .def("num_positions", &Multibody::numPositions)
      .def("get_root_link", [](py::object self) { return tied(self.cast<const Multibody&>().getRootLink(), self); })
      .def(
          "get_link",
          [](py::object self, const std::string& n) { return tied(self.cast<const Multibody&>().getLink(n), self); },
          py::arg("name"))
      .def("has_link", &Multibody::hasLink, py::arg("name"))
      .def(
          "get_joint",
          [](py::object self, const std::string& n) { return tied(self.cast<const Multibody&>().getJoint(n), self); },
          py::arg("name"))
      .def("has_joint", &Multibody::hasJoint, py::arg("name"))
      .def("get_links", [](py::object self) { return tiedList(self.cast<const Multibody&>().getLinks(), self); })
      .def("get_joints", [](py::object self) { return tiedList(self.cast<const Multibody&>().getJoints(), self); })
      .def("get_positions", &Multibody::getPositions)
      .def("set_positions", &Multibody::setPositions, py::arg("q"))
      .def("get_velocities", &Multibody::getVelocities)
      .def("set_velocities", &Multibody::setVelocities, py::arg("v"))
      .def("get_accelerations", &Multibody::getAccelerations)
      .def("set_accelerations", &Multibody::setAccelerations, py::arg("vdot"))
      .def("get_forces", &Multibody::getForces)
      .def("set_forces", &Multibody::setForces, py::arg("tau"))
      .def("get_mass_matrix", &Multibody::getMassMatrix, "M(q), nv x nv.")
      .def("get_inverse_mass_matrix", &Multibody::getInverseMassMatrix)
      .def("get_coriolis_forces", &Multibody::getCoriolisForces)
      .def("get_gravity_forces", &Multibody::getGravityForces)
      .def("get_coriolis_and_gravity_forces", &Multibody::getCoriolisAndGravityForces)
      .def("compute_inverse_dynamics", &Multibody::computeInverseDynamics, py::arg("vdot"),
           "tau = M(q) vdot + C(q, v) v + g(q) (RNEA).")
      .def("compute_forward_dynamics", &Multibody::computeForwardDynamics, py::arg("tau"), "vdot for tau (ABA).")
      .def("get_mass", &Multibody::getMass)
      .def("get_com", &Multibody::getCOM)
      .def("get_com_linear_velocity", &Multibody::getCOMLinearVelocity)
      .def("get_com_jacobian", &Multibody::getCOMJacobian)
      .def("compute_kinetic_energy", &Multibody::computeKineticEnergy)
      .def("compute_potential_energy", &Multibody::computePotentialEnergy)
      .def("get_linear_momentum", &Multibody::getLinearMomentum)
      .def("get_angular_momentum", &Multibody::getAngularMomentum, py::arg("point") = Vector3d::Zero())
      .def("get_jacobian", &Multibody::getJacobian, py::arg("link"), py::arg("offset") = Vector3d::Zero(),
           py::arg("in_coordinates_of") = Frame::World(), "6 x nv, rows [angular; linear].")
      .def("get_jacobian_time_derivative", &Multibody::getJacobianTimeDerivative, py::arg("link"),
           py::arg("offset") = Vector3d::Zero(), py::arg("in_coordinates_of") = Frame::World());
  handleDunders<Multibody>(multibody, "Multibody");

  link.def("get_multibody", [](py::object self) { return tied(self.cast<const Link&>().getMultibody(), self); })
      .def("get_parent_joint", [](py::object self) { return tied(self.cast<const Link&>().getParentJoint(), self); })
      .def("get_parent_link", [](py::object self) { return tied(self.cast<const Link&>().getParentLink(), self); })
      .def("get_child_links", [](py::object self) { return tiedList(self.cast<const Link&>().getChildLinks(), self); })
      .def("get_inertia", &Link::getInertia)
      .def("set_inertia", &Link::setInertia, py::arg("inertia"))
      .def("get_com", &Link::getCOM)
      .def(
          "add_collision_shape",
          [](py::object self, const CollisionShapeOptions& o) {
            return tied(self.cast<Link&>().addCollisionShape(o), self);
          },
          py::arg("options"))
      .def(
          "add_visual_shape",
          [](py::object self, const VisualShapeOptions& o) { return tied(self.cast<Link&>().addVisualShape(o), self); },
          py::arg("options"))
      .def("get_collision_shapes",
           [](py::object self) { return tiedList(self.cast<const Link&>().getCollisionShapes(), self); })
      .def("get_visual_shapes",
           [](py::object self) { return tiedList(self.cast<const Link&>().getVisualShapes(), self); })
      .def("add_external_force", &Link::addExternalForce, py::arg("force"), py::arg("offset") = Vector3d::Zero(),
           py::arg("force_in_world") = true, py::arg("offset_in_world") = false)
      .def("add_external_torque", &Link::addExternalTorque, py::arg("torque"), py::arg("in_world") = true)
      .def("clear_external_forces", &Link::clearExternalForces)
      .def("get_external_wrench", &Link::getExternalWrench)
      .def("get_dependent_dofs", &Link::getDependentDofs)
      .def("get_jacobian", &Link::getJacobian, py::arg("offset") = Vector3d::Zero(),
           py::arg("in_coordinates_of") = Frame::World(), "6 x nv of the multibody, rows [angular; linear].")
      .def("get_chain_jacobian", &Link::getChainJacobian, py::arg("offset") = Vector3d::Zero(),
           py::arg("in_coordinates_of") = Frame::World())
      .def("get_jacobian_time_derivative", &Link::getJacobianTimeDerivative, py::arg("offset") = Vector3d::Zero(),
           py::arg("in_coordinates_of") = Frame::World())
      .def("get_angular_jacobian", &Link::getAngularJacobian, py::arg("in_coordinates_of") = Frame::World())
      .def("get_linear_jacobian", &Link::getLinearJacobian, py::arg("offset") = Vector3d::Zero(),
           py::arg("in_coordinates_of") = Frame::World())
      .def("remove", &Link::remove, "Removes the link and its subtree (design mode).")
      .def("move_to", py::overload_cast<const Link&>(&Link::moveTo), py::arg("new_parent"))
      .def("move_to", py::overload_cast<const Link&, const JointSpec&>(&Link::moveTo), py::arg("new_parent"),
           py::arg("joint"))
      .def(
          "split",
          [](py::object self, const std::string& name, const JointSpec& j) {
            return tied(self.cast<Link&>().split(name, j), self);
          },
          py::arg("name"), py::arg("root_joint") = JointSpec::free())
      .def(
          "copy_to",
          [](py::object self, const Link& parent) { return tied(self.cast<const Link&>().copyTo(parent), self); },
          py::arg("new_parent"))
      .def(
          "copy_as_multibody",
          [](py::object self, const std::string& name, const JointSpec& j) {
            return tied(self.cast<const Link&>().copyAsMultibody(name, j), self);
          },
          py::arg("name"), py::arg("root_joint") = JointSpec::free());

  joint.def("is_valid", &Joint::isValid)
      .def_property("name", &Joint::name, &Joint::setName)
      .def("set_name", &Joint::setName, py::arg("name"))
      .def("type", &Joint::type)
      .def("num_dofs", &Joint::numDofs)
      .def("num_positions", &Joint::numPositions)
      .def("get_spec", &Joint::getSpec)
      .def("set_spec", &Joint::setSpec, py::arg("spec"))
      .def("get_child_link", [](py::object self) { return tied(self.cast<const Joint&>().getChildLink(), self); })
      .def("get_parent_link", [](py::object self) { return tied(self.cast<const Joint&>().getParentLink(), self); })
      .def("get_multibody", [](py::object self) { return tied(self.cast<const Joint&>().getMultibody(), self); })
      .def("position_offset", &Joint::positionOffset)
      .def("velocity_offset", &Joint::velocityOffset)
      .def("get_positions", &Joint::getPositions)
      .def("set_positions", &Joint::setPositions, py::arg("q"))
      .def("get_position", &Joint::getPosition, py::arg("dof") = 0)
      .def("set_position", &Joint::setPosition, py::arg("dof"), py::arg("value"))
      .def("get_velocities", &Joint::getVelocities)
      .def("set_velocities", &Joint::setVelocities, py::arg("v"))
      .def("get_velocity", &Joint::getVelocity, py::arg("dof") = 0)
      .def("set_velocity", &Joint::setVelocity, py::arg("dof"), py::arg("value"))
      .def("get_accelerations", &Joint::getAccelerations)
      .def("get_forces", &Joint::getForces)
      .def("set_forces", &Joint::setForces, py::arg("tau"))
      .def("get_relative_transform", &Joint::getRelativeTransform)
      .def("get_reaction", py::overload_cast<>(&Joint::getReaction, py::const_),
           "The last step's reaction, wrenches in the child link's joint frame.")
      .def("get_reaction", py::overload_cast<const Frame&>(&Joint::getReaction, py::const_), py::arg("coordinates"))
      .def("get_reaction_wrench", &Joint::getReactionWrench, py::arg("coordinates"));
  handleDunders<Joint>(joint, "Joint", &nameHash<Joint>);
  // ---- closures and couplers ------------------------------------------------
  py::class_<LoopClosureSpec>(m, "LoopClosureSpec", "A loop closure between two frames (World.add_loop_closure).")
      .def(py::init<>())
      .def(py::init([](const Frame& a, const Frame& b, LoopClosureFamily family) {
             LoopClosureSpec s;
             s.frameA = a;
             s.frameB = b;
             s.family = family;
             return s;
           }),
           py::arg("frame_a"), py::arg("frame_b"), py::arg("family") = LoopClosureFamily::Rigid, py::keep_alive<1, 2>(),
           py::keep_alive<1, 3>())
      .def_property(
          "frame_a", [](py::object self) { return frameObject(self.cast<const LoopClosureSpec&>().frameA, self); },
          [](LoopClosureSpec& s, const Frame& f) { s.frameA = f; })
      .def_property(
          "frame_b", [](py::object self) { return frameObject(self.cast<const LoopClosureSpec&>().frameB, self); },
          [](LoopClosureSpec& s, const Frame& f) { s.frameB = f; })
      .def_readwrite("family", &LoopClosureSpec::family)
      .def_readwrite("offset_a", &LoopClosureSpec::offsetA)
      .def_readwrite("offset_b", &LoopClosureSpec::offsetB)
      .def_readwrite("length", &LoopClosureSpec::length);
  py::class_<LoopClosure> closure(m, "LoopClosure", "A constraint closing a kinematic loop between two frames.");
  closure.def("is_valid", &LoopClosure::isValid)
      .def_property("name", &LoopClosure::name, &LoopClosure::setName)
      .def("set_name", &LoopClosure::setName, py::arg("name"))
      .def("family", &LoopClosure::family)
      .def("num_rows", &LoopClosure::numRows)
      .def("get_spec", [](py::object self) { return tied(self.cast<const LoopClosure&>().getSpec(), self); })
      .def("set_spec", &LoopClosure::setSpec, py::arg("spec"))
      .def("get_runtime_policy", &LoopClosure::getRuntimePolicy)
      .def("set_runtime_policy", &LoopClosure::setRuntimePolicy, py::arg("policy"))
      .def("set_enabled", &LoopClosure::setEnabled, py::arg("enabled"))
      .def("is_enabled", &LoopClosure::isEnabled)
      .def("compute_residual", &LoopClosure::computeResidual)
      .def("compute_residual_norm", &LoopClosure::computeResidualNorm)
      .def("get_endpoint_a", &LoopClosure::getEndpointA)
      .def("get_endpoint_b", &LoopClosure::getEndpointB);
  handleDunders<LoopClosure>(closure, "LoopClosure", &indexHash<LoopClosure>);

  py::class_<JointCouplerSpec>(m, "JointCouplerSpec", "q_follower = ratio * q_leader + offset.")
      .def(py::init<>())
      .def(py::init([](const Joint& leader, const Joint& follower, double ratio, double offset) {
             return JointCouplerSpec{leader, follower, ratio, offset};
           }),
           py::arg("leader"), py::arg("follower"), py::arg("ratio") = 1.0, py::arg("offset") = 0.0,
           py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
      .def_property(
          "leader", [](py::object self) { return tied(self.cast<const JointCouplerSpec&>().leader, self); },
          [](JointCouplerSpec& s, const Joint& j) { s.leader = j; })
      .def_property(
          "follower", [](py::object self) { return tied(self.cast<const JointCouplerSpec&>().follower, self); },
          [](JointCouplerSpec& s, const Joint& j) { s.follower = j; })
      .def_readwrite("ratio", &JointCouplerSpec::ratio)
      .def_readwrite("offset", &JointCouplerSpec::offset);
  py::class_<JointCoupler> coupler(m, "JointCoupler", "A constraint coupling two 1-DoF joints.");
  coupler.def("is_valid", &JointCoupler::isValid)
      .def_property("name", &JointCoupler::name, &JointCoupler::setName)
      .def("set_name", &JointCoupler::setName, py::arg("name"))
      .def("get_spec", [](py::object self) { return tied(self.cast<const JointCoupler&>().getSpec(), self); })
      .def("set_spec", &JointCoupler::setSpec, py::arg("spec"))
      .def("get_runtime_policy", &JointCoupler::getRuntimePolicy)
      .def("set_runtime_policy", &JointCoupler::setRuntimePolicy, py::arg("policy"))
      .def("set_enabled", &JointCoupler::setEnabled, py::arg("enabled"))
      .def("is_enabled", &JointCoupler::isEnabled)
      .def("compute_residual", &JointCoupler::computeResidual);
  handleDunders<JointCoupler>(coupler, "JointCoupler", &indexHash<JointCoupler>);
  py::class_<ClosureProjectionOptions>(m, "ClosureProjectionOptions")
      .def(py::init<>())
      .def_readwrite("locked_joints", &ClosureProjectionOptions::lockedJoints)
      .def_readwrite("locked_rigid_bodies", &ClosureProjectionOptions::lockedRigidBodies)
      .def_readwrite("tolerance", &ClosureProjectionOptions::tolerance)
      .def_readwrite("max_iterations", &ClosureProjectionOptions::maxIterations)
      .def_readwrite("respect_limits", &ClosureProjectionOptions::respectLimits)
      .def_readwrite("project_velocities", &ClosureProjectionOptions::projectVelocities);

  // ---- actuators and sensors ----------------------------------------------
  py::class_<Actuator> actuator(m, "Actuator", "A motor, servo, PID or lock on one joint coordinate.");
  actuator.def("is_valid", &Actuator::isValid)
      .def_property("name", &Actuator::name, &Actuator::setName)
      .def("set_name", &Actuator::setName, py::arg("name"))
      .def("get_spec", &Actuator::getSpec)
      .def("set_spec", &Actuator::setSpec, py::arg("spec"))
      .def("set_control", &Actuator::setControl, py::arg("value"))
      .def("get_control", &Actuator::getControl)
      .def("get_force", &Actuator::getForce, "The generalized force applied in the last step (N m or N).");
  handleDunders<Actuator>(actuator, "Actuator", &indexHash<Actuator>);
  py::class_<Sensor> sensor(m, "Sensor", "A sensor: IMU, force-torque, contact, joint encoder or rangefinder.");
  sensor.def("is_valid", &Sensor::isValid)
      .def_property_readonly("name", &Sensor::name)
      .def("type", &Sensor::type)
      .def("get_spec", &Sensor::getSpec)
      .def("num_values", &Sensor::numValues)
      .def("value_names", &Sensor::valueNames)
      .def("get_reading", py::overload_cast<>(&Sensor::getReading, py::const_));
  handleDunders<Sensor>(sensor, "Sensor", &nameHash<Sensor>);

  // ---- values that carry handles ------------------------------------------
  py::class_<Contact>(m, "Contact", "A contact point of the last step (or of World.check_collisions).")
      .def_property_readonly("frame_a",
                             [](py::object self) { return frameObject(self.cast<const Contact&>().frameA, self); })
      .def_property_readonly("frame_b",
                             [](py::object self) { return frameObject(self.cast<const Contact&>().frameB, self); })
      .def_property_readonly("shape_a", [](py::object self) { return tied(self.cast<const Contact&>().shapeA, self); })
      .def_property_readonly("shape_b", [](py::object self) { return tied(self.cast<const Contact&>().shapeB, self); })
      .def_readonly("point", &Contact::point)
      .def_readonly("normal", &Contact::normal)
      .def_readonly("depth", &Contact::depth)
      .def_readonly("normal_impulse", &Contact::normalImpulse)
      .def_readonly("friction_impulse", &Contact::frictionImpulse)
      .def_readonly("age", &Contact::age);
  py::class_<DistanceResult>(m, "DistanceResult", "Signed distance and witness points of two shapes.")
      .def_readonly("distance", &DistanceResult::distance)
      .def_readonly("point_a", &DistanceResult::pointA)
      .def_readonly("point_b", &DistanceResult::pointB)
      .def_readonly("normal", &DistanceResult::normal)
      .def_property_readonly("shape_a",
                             [](py::object self) { return tied(self.cast<const DistanceResult&>().shapeA, self); })
      .def_property_readonly("shape_b",
                             [](py::object self) { return tied(self.cast<const DistanceResult&>().shapeB, self); });
  py::class_<RaycastHit>(m, "RaycastHit", "Where a ray enters a collision shape.")
      .def_property_readonly("shape", [](py::object self) { return tied(self.cast<const RaycastHit&>().shape, self); })
      .def_property_readonly("body",
                             [](py::object self) { return frameObject(self.cast<const RaycastHit&>().body, self); })
      .def_readonly("point", &RaycastHit::point)
      .def_readonly("normal", &RaycastHit::normal)
      .def_readonly("distance", &RaycastHit::distance);
  py::class_<IkTaskOptions>(m, "IkTaskOptions")
      .def(py::init<>())
      .def_readwrite("name", &IkTaskOptions::name)
      .def_readwrite("priority", &IkTaskOptions::priority)
      .def_readwrite("weight", &IkTaskOptions::weight)
      .def_readwrite("offset", &IkTaskOptions::offset)
      .def_property(
          "target_frame",
          [](py::object self) { return frameObject(self.cast<const IkTaskOptions&>().targetFrame, self); },
          [](IkTaskOptions& o, const Frame& f) { o.targetFrame = f; })
      .def_readwrite("position_weight", &IkTaskOptions::positionWeight)
      .def_readwrite("orientation_weight", &IkTaskOptions::orientationWeight);
}

}  // namespace articula::python

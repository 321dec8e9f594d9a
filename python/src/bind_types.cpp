// Value types: enums, options, inertia, geometry, joint specs, results.
#include "common.hpp"

#include <articula/joint_types.hpp>

#include <sstream>

namespace articula::python {

namespace {

// (N, 3) arrays for mesh vertices and triangles.
Eigen::MatrixX3d verticesToArray(const std::vector<Vector3d>& vertices) {
  Eigen::MatrixX3d out(static_cast<Eigen::Index>(vertices.size()), 3);
  for (std::size_t i = 0; i < vertices.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = vertices[i].transpose();
  return out;
}

std::vector<Vector3d> arrayToVertices(const Eigen::MatrixX3d& a) {
  std::vector<Vector3d> out(static_cast<std::size_t>(a.rows()));
  for (Eigen::Index i = 0; i < a.rows(); ++i) out[static_cast<std::size_t>(i)] = a.row(i).transpose();
  return out;
}

Eigen::MatrixX3i trianglesToArray(const std::vector<std::array<int, 3>>& triangles) {
  Eigen::MatrixX3i out(static_cast<Eigen::Index>(triangles.size()), 3);
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    for (int k = 0; k < 3; ++k) out(static_cast<Eigen::Index>(i), k) = triangles[i][static_cast<std::size_t>(k)];
  }
  return out;
}

std::vector<std::array<int, 3>> arrayToTriangles(const Eigen::MatrixX3i& a) {
  std::vector<std::array<int, 3>> out(static_cast<std::size_t>(a.rows()));
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (int k = 0; k < 3; ++k) out[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] = a(i, k);
  }
  return out;
}

}  // namespace

void bindTypes(py::module_& m) {
  // ---- enums ----------------------------------------------------------------
  py::enum_<Integrator>(m, "Integrator", "Time integration of a step.")
      .value("SEMI_IMPLICIT_EULER", Integrator::SemiImplicitEuler)
      .value("RUNGE_KUTTA_4", Integrator::RungeKutta4);
  py::enum_<ErrorCorrection>(m, "ErrorCorrection", "How contact penetration is corrected.")
      .value("BAUMGARTE", ErrorCorrection::Baumgarte)
      .value("SPLIT_IMPULSE", ErrorCorrection::SplitImpulse);
  py::enum_<JointType>(m, "JointType")
      .value("WELD", JointType::Weld)
      .value("REVOLUTE", JointType::Revolute)
      .value("PRISMATIC", JointType::Prismatic)
      .value("SCREW", JointType::Screw)
      .value("UNIVERSAL", JointType::Universal)
      .value("BALL", JointType::Ball)
      .value("EULER", JointType::Euler)
      .value("PLANAR", JointType::Planar)
      .value("TRANSLATIONAL", JointType::Translational)
      .value("FREE", JointType::Free);
  py::enum_<EulerOrder>(m, "EulerOrder")
      .value("XYZ", EulerOrder::XYZ)
      .value("ZYX", EulerOrder::ZYX)
      .value("ZYZ", EulerOrder::ZYZ)
      .value("XZY", EulerOrder::XZY)
      .value("YXZ", EulerOrder::YXZ)
      .value("YZX", EulerOrder::YZX)
      .value("ZXY", EulerOrder::ZXY);
  py::enum_<GeometryType>(m, "GeometryType")
      .value("BOX", GeometryType::Box)
      .value("SPHERE", GeometryType::Sphere)
      .value("CAPSULE", GeometryType::Capsule)
      .value("CYLINDER", GeometryType::Cylinder)
      .value("ELLIPSOID", GeometryType::Ellipsoid)
      .value("PLANE", GeometryType::Plane)
      .value("CONVEX_MESH", GeometryType::ConvexMesh)
      .value("TRIANGLE_MESH", GeometryType::TriangleMesh);
  py::enum_<FrameKind>(m, "FrameKind")
      .value("NONE", FrameKind::None)
      .value("WORLD", FrameKind::World)
      .value("LINK", FrameKind::Link)
      .value("RIGID_BODY", FrameKind::RigidBody)
      .value("FREE_FRAME", FrameKind::FreeFrame)
      .value("FIXED_FRAME", FrameKind::FixedFrame);
  py::enum_<LoopClosureFamily>(m, "LoopClosureFamily")
      .value("RIGID", LoopClosureFamily::Rigid)
      .value("POINT", LoopClosureFamily::Point)
      .value("HINGE", LoopClosureFamily::Hinge)
      .value("SLIDER", LoopClosureFamily::Slider)
      .value("UNIVERSAL", LoopClosureFamily::Universal)
      .value("DISTANCE", LoopClosureFamily::Distance);
  py::enum_<ClosureKinematicsPolicy>(m, "ClosureKinematicsPolicy")
      .value("RESIDUAL_ONLY", ClosureKinematicsPolicy::ResidualOnly)
      .value("PROJECT", ClosureKinematicsPolicy::Project);
  py::enum_<ClosureDynamicsPolicy>(m, "ClosureDynamicsPolicy")
      .value("OFF", ClosureDynamicsPolicy::Off)
      .value("SOLVE", ClosureDynamicsPolicy::Solve);
  py::enum_<ClosureStabilization>(m, "ClosureStabilization")
      .value("BAUMGARTE", ClosureStabilization::Baumgarte)
      .value("COMPLIANCE", ClosureStabilization::Compliance);
  py::enum_<ActuatorType>(m, "ActuatorType")
      .value("MOTOR", ActuatorType::Motor)
      .value("POSITION_SERVO", ActuatorType::PositionServo)
      .value("VELOCITY_SERVO", ActuatorType::VelocityServo)
      .value("PID", ActuatorType::Pid)
      .value("DC_MOTOR", ActuatorType::DcMotor)
      .value("LOCK", ActuatorType::Lock);
  py::enum_<SensorType>(m, "SensorType")
      .value("IMU", SensorType::Imu)
      .value("FORCE_TORQUE", SensorType::ForceTorque)
      .value("CONTACT", SensorType::Contact)
      .value("JOINT_ENCODER", SensorType::JointEncoder)
      .value("RANGEFINDER", SensorType::Rangefinder);
  py::enum_<IkTaskKind>(m, "IkTaskKind")
      .value("POSE", IkTaskKind::Pose)
      .value("POSITION", IkTaskKind::Position)
      .value("ORIENTATION", IkTaskKind::Orientation)
      .value("CENTER_OF_MASS", IkTaskKind::CenterOfMass)
      .value("POSTURE", IkTaskKind::Posture);
  py::enum_<SpecStatePolicy>(m, "SpecStatePolicy")
      .value("KEEP_BY_NAME", SpecStatePolicy::KeepByName)
      .value("FROM_SPEC", SpecStatePolicy::FromSpec);
  py::enum_<WorldSyncStage>(m, "WorldSyncStage").value("KINEMATICS", WorldSyncStage::Kinematics);

  m.def("constraint_solver_methods", &constraintSolverMethods,
        "The solver.method names: projected-gauss-seidel, pivoting, newton, convex, ...");

  // ---- options --------------------------------------------------------------
  py::class_<ConstraintSolverOptions>(m, "ConstraintSolverOptions", "The constraint (contact and joint) solver.")
      .def(py::init<>())
      .def_readwrite("method", &ConstraintSolverOptions::method)
      .def_readwrite("max_iterations", &ConstraintSolverOptions::maxIterations)
      .def_readwrite("tolerance", &ConstraintSolverOptions::tolerance)
      .def_readwrite("warm_start", &ConstraintSolverOptions::warmStart)
      .def_readwrite("friction_directions", &ConstraintSolverOptions::frictionDirections)
      .def_readwrite("restitution_threshold", &ConstraintSolverOptions::restitutionThreshold)
      .def_readwrite("error_correction", &ConstraintSolverOptions::errorCorrection)
      .def_readwrite("error_reduction", &ConstraintSolverOptions::errorReduction)
      .def_readwrite("allowed_penetration", &ConstraintSolverOptions::allowedPenetration)
      .def_readwrite("max_correction_velocity", &ConstraintSolverOptions::maxCorrectionVelocity)
      .def_readwrite("constraint_force_mixing", &ConstraintSolverOptions::constraintForceMixing)
      .def_readwrite("limit_error_reduction", &ConstraintSolverOptions::limitErrorReduction)
      .def_readwrite("convergence_tolerance", &ConstraintSolverOptions::convergenceTolerance)
      .def_readwrite("krylov_iterations", &ConstraintSolverOptions::krylovIterations)
      .def_readwrite("convex_regularization", &ConstraintSolverOptions::convexRegularization);
  py::class_<DivergenceOptions>(m, "DivergenceOptions", "When a step counts as diverged.")
      .def(py::init<>())
      .def_readwrite("max_speed", &DivergenceOptions::maxSpeed)
      .def_readwrite("energy_gain_fraction", &DivergenceOptions::energyGainFraction)
      .def_readwrite("energy_floor", &DivergenceOptions::energyFloor);
  py::class_<WorldOptions>(m, "WorldOptions", "Gravity, time step, integrator and solver of a world.")
      .def(py::init<>())
      .def_readwrite("gravity", &WorldOptions::gravity)
      .def_readwrite("time_step", &WorldOptions::timeStep)
      .def_readwrite("integrator", &WorldOptions::integrator)
      .def_readwrite("solver", &WorldOptions::solver)
      .def_readwrite("divergence", &WorldOptions::divergence);

  py::class_<Inertia>(m, "Inertia", "Mass (kg), centre of mass and rotational inertia about it (body frame).")
      .def(py::init<>())
      .def(py::init([](double mass, const Vector3d& com, const Matrix3d& rotational) {
             return Inertia{mass, com, rotational};
           }),
           py::arg("mass"), py::arg("com") = Vector3d::Zero(), py::arg("rotational") = Matrix3d::Identity())
      .def_readwrite("mass", &Inertia::mass)
      .def_readwrite("com", &Inertia::com)
      .def_readwrite("rotational", &Inertia::rotational)
      .def_static("box", &Inertia::box, py::arg("mass"), py::arg("size"))
      .def_static("sphere", &Inertia::sphere, py::arg("mass"), py::arg("radius"))
      .def_static("cylinder", &Inertia::cylinder, py::arg("mass"), py::arg("radius"), py::arg("length"))
      .def_static("point_mass", &Inertia::pointMass, py::arg("mass"), py::arg("com"))
      .def("__repr__", [](const Inertia& i) {
        std::ostringstream s;
        s << "Inertia(mass=" << i.mass << ", com=[" << i.com.transpose() << "])";
        return s.str();
      });
  py::class_<RigidBodyOptions>(m, "RigidBodyOptions")
      .def(py::init<>())
      .def(py::init([](const Inertia& inertia, const Isometry3d& pose) {
             return RigidBodyOptions{inertia, pose, {}, {}};
           }),
           py::arg("inertia"), py::arg("pose") = Isometry3d::Identity())
      .def_readwrite("inertia", &RigidBodyOptions::inertia)
      .def_readwrite("pose", &RigidBodyOptions::pose)
      .def_readwrite("linear_velocity", &RigidBodyOptions::linearVelocity)
      .def_readwrite("angular_velocity", &RigidBodyOptions::angularVelocity);
  py::class_<LinkOptions>(m, "LinkOptions")
      .def(py::init<>())
      .def(py::init([](const std::string& name, const Inertia& inertia) {
             return LinkOptions{name, inertia};
           }),
           py::arg("name"), py::arg("inertia") = Inertia{})
      .def_readwrite("name", &LinkOptions::name)
      .def_readwrite("inertia", &LinkOptions::inertia);

  // ---- geometry and materials ------------------------------------------------
  py::class_<MeshPart>(m, "MeshPart", "A run of triangles of a triangle mesh drawn in its own colour.")
      .def(py::init([](int firstTriangle, int triangleCount, const Vector4d& color) {
             return MeshPart{firstTriangle, triangleCount, color};
           }),
           py::arg("first_triangle") = 0, py::arg("triangle_count") = 0,
           py::arg("color") = Vector4d(0.7, 0.7, 0.7, 1.0))
      .def_readwrite("first_triangle", &MeshPart::firstTriangle)
      .def_readwrite("triangle_count", &MeshPart::triangleCount)
      .def_readwrite("color", &MeshPart::color)
      .def("__eq__", [](const MeshPart& a, const MeshPart& b) { return a == b; })
      .def("__repr__", [](const MeshPart& p) {
        std::ostringstream os;
        os << "MeshPart(first_triangle=" << p.firstTriangle << ", triangle_count=" << p.triangleCount << ")";
        return os.str();
      });
  py::class_<Geometry>(m, "Geometry", "Shape geometry; build it with the static constructors.")
      .def(py::init<>())
      .def_readwrite("type", &Geometry::type)
      .def_readwrite("size", &Geometry::size)
      .def_readwrite("radius", &Geometry::radius)
      .def_readwrite("length", &Geometry::length)
      .def_property(
          "vertices", [](const Geometry& g) { return verticesToArray(g.vertices); },
          [](Geometry& g, const Eigen::MatrixX3d& a) { g.vertices = arrayToVertices(a); }, "(N, 3) mesh vertices")
      .def_property(
          "triangles", [](const Geometry& g) { return trianglesToArray(g.triangles); },
          [](Geometry& g, const Eigen::MatrixX3i& a) { g.triangles = arrayToTriangles(a); },
          "(M, 3) vertex indices of a triangle mesh")
      .def_readwrite("mesh_file", &Geometry::meshFile)
      .def_readwrite("mesh_scale", &Geometry::meshScale)
      .def_property(
          "parts", [](const Geometry& g) { return g.parts; },
          [](Geometry& g, std::vector<MeshPart> parts) { g.parts = std::move(parts); },
          "coloured runs of triangles of a triangle mesh (a copy; assign a new list to change them)")
      .def_static("box", &Geometry::box, py::arg("size"))
      .def_static("sphere", &Geometry::sphere, py::arg("radius"))
      .def_static("capsule", &Geometry::capsule, py::arg("radius"), py::arg("length"))
      .def_static("cylinder", &Geometry::cylinder, py::arg("radius"), py::arg("length"))
      .def_static("ellipsoid", &Geometry::ellipsoid, py::arg("semi_axes"))
      .def_static("plane", &Geometry::plane)
      .def_static(
          "convex_mesh", [](const Eigen::MatrixX3d& v) { return Geometry::convexMesh(arrayToVertices(v)); },
          py::arg("vertices"))
      .def_static(
          "triangle_mesh",
          [](const Eigen::MatrixX3d& v, const Eigen::MatrixX3i& t) {
            return Geometry::triangleMesh(arrayToVertices(v), arrayToTriangles(t));
          },
          py::arg("vertices"), py::arg("triangles"))
      .def("__repr__", [](const Geometry& g) { return "Geometry(" + std::string(toString(g.type)) + ")"; });
  py::class_<Material>(m, "Material", "Contact material: Coulomb friction and restitution.")
      .def(py::init<>())
      .def(py::init([](double friction, double restitution) {
             return Material{friction, restitution};
           }),
           py::arg("friction"), py::arg("restitution") = 0.0)
      .def_readwrite("friction", &Material::friction)
      .def_readwrite("restitution", &Material::restitution);
  py::class_<CollisionShapeOptions>(m, "CollisionShapeOptions")
      .def(py::init<>())
      .def(py::init(
               [](const Geometry& geometry, const Isometry3d& pose, const Material& material, const std::string& name) {
                 CollisionShapeOptions o;
                 o.geometry = geometry;
                 o.pose = pose;
                 o.material = material;
                 o.name = name;
                 return o;
               }),
           py::arg("geometry"), py::arg("pose") = Isometry3d::Identity(), py::arg("material") = Material{},
           py::arg("name") = std::string())
      .def_readwrite("name", &CollisionShapeOptions::name)
      .def_readwrite("geometry", &CollisionShapeOptions::geometry)
      .def_readwrite("pose", &CollisionShapeOptions::pose)
      .def_readwrite("material", &CollisionShapeOptions::material)
      .def_readwrite("collidable", &CollisionShapeOptions::collidable);
  py::class_<VisualShapeOptions>(m, "VisualShapeOptions")
      .def(py::init<>())
      .def(py::init(
               [](const Geometry& geometry, const Isometry3d& pose, const Vector4d& color, const std::string& name) {
                 VisualShapeOptions o;
                 o.geometry = geometry;
                 o.pose = pose;
                 o.color = color;
                 o.name = name;
                 return o;
               }),
           py::arg("geometry"), py::arg("pose") = Isometry3d::Identity(),
           py::arg("color") = Vector4d(0.7, 0.7, 0.7, 1.0), py::arg("name") = std::string())
      .def_readwrite("name", &VisualShapeOptions::name)
      .def_readwrite("geometry", &VisualShapeOptions::geometry)
      .def_readwrite("pose", &VisualShapeOptions::pose)
      .def_readwrite("color", &VisualShapeOptions::color);

  // ---- joints -----------------------------------------------------------------
  m.def("num_positions", py::overload_cast<JointType>(&numPositions), py::arg("type"),
        "Position coordinates of a joint type.");
  m.def("num_dofs", py::overload_cast<JointType>(&numDofs), py::arg("type"), "Velocity coordinates of a joint type.");
  m.def(
      "joint_type_info",
      [](JointType type) {
        const JointTypeInfo& info = jointTypeInfo(type);
        py::dict d;
        d["name"] = std::string(info.name);
        d["num_positions"] = info.numPositions;
        d["num_dofs"] = info.numDofs;
        d["num_axes"] = info.numAxes;
        d["quaternion_start"] = info.quaternionStart;
        d["constant_motion_subspace"] = info.constantMotionSubspace;
        py::list kinds;
        py::list names;
        for (int i = 0; i < info.numPositions; ++i) {
          const auto k = info.positionKind[static_cast<std::size_t>(i)];
          kinds.append(k == CoordinateKind::Angle ? "angle" : k == CoordinateKind::Length ? "length" : "quaternion");
          names.append(std::string(info.positionName[static_cast<std::size_t>(i)]));
        }
        d["position_kinds"] = kinds;
        d["position_names"] = names;
        py::list angular;
        py::list dofNames;
        for (int k = 0; k < info.numDofs; ++k) {
          angular.append(info.angularDof[static_cast<std::size_t>(k)]);
          dofNames.append(std::string(info.dofName[static_cast<std::size_t>(k)]));
        }
        d["angular_dofs"] = angular;
        d["dof_names"] = dofNames;
        return d;
      },
      py::arg("type"),
      "Facts of a joint type (the table the engine, viewer and studio read): coordinate counts, spec axes, "
      "what each coordinate is and its name.");
  py::class_<JointSpec>(m, "JointSpec", "A joint: type, axes, offsets, limits, springs, damping, friction.")
      .def(py::init<>())
      .def_readwrite("name", &JointSpec::name)
      .def_readwrite("type", &JointSpec::type)
      .def_readwrite("axis", &JointSpec::axis)
      .def_readwrite("axis2", &JointSpec::axis2)
      .def_readwrite("euler_order", &JointSpec::eulerOrder)
      .def_readwrite("pitch", &JointSpec::pitch)
      .def_readwrite("parent_offset", &JointSpec::parentOffset)
      .def_readwrite("child_offset", &JointSpec::childOffset)
      .def_readwrite("position_lower_limits", &JointSpec::positionLowerLimits)
      .def_readwrite("position_upper_limits", &JointSpec::positionUpperLimits)
      .def_readwrite("velocity_limits", &JointSpec::velocityLimits)
      .def_readwrite("effort_limits", &JointSpec::effortLimits)
      .def_readwrite("rest_positions", &JointSpec::restPositions)
      .def_readwrite("spring_stiffness", &JointSpec::springStiffness)
      .def_readwrite("damping", &JointSpec::damping)
      .def_readwrite("armature", &JointSpec::armature)
      .def_readwrite("coulomb_friction", &JointSpec::coulombFriction)
      .def_static("weld", &JointSpec::weld, py::arg("parent_offset") = Isometry3d::Identity())
      .def_static("revolute", &JointSpec::revolute, py::arg("axis"))
      .def_static("prismatic", &JointSpec::prismatic, py::arg("axis"))
      .def_static("screw", &JointSpec::screw, py::arg("axis"), py::arg("pitch"))
      .def_static("universal", &JointSpec::universal, py::arg("axis1"), py::arg("axis2"))
      .def_static("ball", &JointSpec::ball)
      .def_static("euler", &JointSpec::euler, py::arg("order") = EulerOrder::XYZ)
      .def_static("planar", &JointSpec::planar, py::arg("axis1") = Vector3d::UnitX(),
                  py::arg("axis2") = Vector3d::UnitY())
      .def_static("translational", &JointSpec::translational)
      .def_static("free", &JointSpec::free)
      .def("with_parent_offset", &JointSpec::withParentOffset, py::arg("transform"))
      .def("with_child_offset", &JointSpec::withChildOffset, py::arg("transform"))
      .def("named", &JointSpec::named, py::arg("name"))
      .def("__repr__", [](const JointSpec& j) {
        return "JointSpec(" + std::string(toString(j.type)) + (j.name.empty() ? "" : ", name='" + j.name + "'") + ")";
      });
  py::class_<JointReaction>(m, "JointReaction",
                            "What a joint transmitted in the last step: wrenches [torque; force] at the joint "
                            "frame and the generalized forces by cause.")
      .def_readonly("time", &JointReaction::time)
      .def_readonly("wrench", &JointReaction::wrench)
      .def_readonly("free_wrench", &JointReaction::freeWrench)
      .def_readonly("constraint_wrench", &JointReaction::constraintWrench)
      .def_readonly("total", &JointReaction::total)
      .def_readonly("applied", &JointReaction::applied)
      .def_readonly("actuator", &JointReaction::actuator)
      .def_readonly("spring", &JointReaction::spring)
      .def_readonly("damper", &JointReaction::damper)
      .def_readonly("friction", &JointReaction::friction)
      .def_readonly("limit", &JointReaction::limit)
      .def_readonly("coupler", &JointReaction::coupler)
      .def_readonly("inertia", &JointReaction::inertia);

  // ---- state and diagnostics -----------------------------------------------
  py::class_<StepTimings>(m, "StepTimings", "Wall-clock seconds spent in the stages of the last step.")
      .def_readonly("control", &StepTimings::control)
      .def_readonly("kinematics", &StepTimings::kinematics)
      .def_readonly("collision", &StepTimings::collision)
      .def_readonly("dynamics", &StepTimings::dynamics)
      .def_readonly("solve", &StepTimings::solve)
      .def_readonly("integration", &StepTimings::integration)
      .def_readonly("projection", &StepTimings::projection)
      .def_readonly("total", &StepTimings::total);
  py::class_<StepDiagnostics>(m, "StepDiagnostics", "What the constraint stage did in the last step.")
      .def_readonly("num_contacts", &StepDiagnostics::numContacts)
      .def_readonly("num_rows", &StepDiagnostics::numRows)
      .def_readonly("num_islands", &StepDiagnostics::numIslands)
      .def_readonly("iterations", &StepDiagnostics::iterations)
      .def_readonly("inner_iterations", &StepDiagnostics::innerIterations)
      .def_readonly("residual", &StepDiagnostics::residual)
      .def_readonly("converged", &StepDiagnostics::converged)
      .def_readonly("fallback", &StepDiagnostics::fallback)
      .def_readonly("implicit_velocity_products", &StepDiagnostics::implicitVelocityProducts)
      .def_readonly("failed", &StepDiagnostics::failed)
      .def_readonly("message", &StepDiagnostics::message);
  py::class_<StateSegment>(m, "StateSegment", "Where one joint's or body's coordinates sit in q and v.")
      .def_readonly("owner", &StateSegment::owner)
      .def_readonly("joint", &StateSegment::joint)
      .def_readonly("type", &StateSegment::type)
      .def_readonly("position_offset", &StateSegment::positionOffset)
      .def_readonly("num_positions", &StateSegment::numPositions)
      .def_readonly("velocity_offset", &StateSegment::velocityOffset)
      .def_readonly("num_dofs", &StateSegment::numDofs);
  py::class_<ConstraintBlock>(m, "ConstraintBlock")
      .def_readonly("name", &ConstraintBlock::name)
      .def_readonly("kind", &ConstraintBlock::kind)
      .def_readonly("family", &ConstraintBlock::family)
      .def_readonly("row_offset", &ConstraintBlock::rowOffset)
      .def_readonly("num_rows", &ConstraintBlock::numRows);
  py::class_<StateSpace>(m, "StateSpace", "The layout of q and v: segments and coordinate names.")
      .def("num_positions", &StateSpace::numPositions)
      .def("num_velocities", &StateSpace::numVelocities)
      .def("segments", &StateSpace::segments)
      .def("position_names", &StateSpace::positionNames)
      .def("velocity_names", &StateSpace::velocityNames)
      .def("position_index", &StateSpace::positionIndex, py::arg("name"))
      .def("velocity_index", &StateSpace::velocityIndex, py::arg("name"))
      .def("segment", &StateSpace::segment, py::arg("owner"), py::arg("joint") = std::string())
      .def("constraint_blocks", &StateSpace::constraintBlocks)
      .def("num_constraint_rows", &StateSpace::numConstraintRows);
  py::class_<WorldState>(m, "WorldState", "A copy of the world's mutable state.")
      .def(py::init<>())
      .def_readwrite("time", &WorldState::time)
      .def_readwrite("frame_index", &WorldState::frameIndex)
      .def_readwrite("positions", &WorldState::positions)
      .def_readwrite("velocities", &WorldState::velocities)
      .def_readwrite("accelerations", &WorldState::accelerations)
      .def_readwrite("forces", &WorldState::forces)
      .def_readwrite("external_wrenches", &WorldState::externalWrenches);
  py::class_<RuntimeSnapshot>(m, "RuntimeSnapshot",
                              "Everything mutable that decides the next step (World.capture_runtime_state).")
      .def(py::init<>())
      .def_readwrite("state", &RuntimeSnapshot::state)
      .def_readonly("simulation_mode", &RuntimeSnapshot::simulationMode);

  // ---- closures ---------------------------------------------------------------
  py::class_<LoopClosureRuntimePolicy>(m, "LoopClosureRuntimePolicy",
                                       "How a closure or coupler is enforced while simulating.")
      .def(py::init<>())
      .def_readwrite("enabled", &LoopClosureRuntimePolicy::enabled)
      .def_readwrite("kinematics", &LoopClosureRuntimePolicy::kinematics)
      .def_readwrite("dynamics", &LoopClosureRuntimePolicy::dynamics)
      .def_readwrite("stabilization", &LoopClosureRuntimePolicy::stabilization)
      .def_readwrite("error_reduction", &LoopClosureRuntimePolicy::errorReduction)
      .def_readwrite("stiffness", &LoopClosureRuntimePolicy::stiffness)
      .def_readwrite("damping", &LoopClosureRuntimePolicy::damping)
      .def_readwrite("project_after_step", &LoopClosureRuntimePolicy::projectAfterStep)
      .def_readwrite("tolerance", &LoopClosureRuntimePolicy::tolerance)
      .def_readwrite("max_iterations", &LoopClosureRuntimePolicy::maxIterations);
  py::class_<LoopClosureResidual>(m, "LoopClosureResidual")
      .def_readonly("residual", &LoopClosureResidual::residual)
      .def_readonly("norm", &LoopClosureResidual::norm)
      .def_readonly("enabled", &LoopClosureResidual::enabled)
      .def_readonly("active", &LoopClosureResidual::active)
      .def_readonly("force_available", &LoopClosureResidual::forceAvailable)
      .def_readonly("impulse", &LoopClosureResidual::impulse)
      .def_readonly("wrench", &LoopClosureResidual::wrench);
  py::class_<JointCouplerResidual>(m, "JointCouplerResidual")
      .def_readonly("residual", &JointCouplerResidual::residual)
      .def_readonly("enabled", &JointCouplerResidual::enabled)
      .def_readonly("active", &JointCouplerResidual::active)
      .def_readonly("force_available", &JointCouplerResidual::forceAvailable)
      .def_readonly("impulse", &JointCouplerResidual::impulse)
      .def_readonly("force", &JointCouplerResidual::force);
  py::class_<ClosureProjectionResult>(m, "ClosureProjectionResult")
      .def_readonly("success", &ClosureProjectionResult::success)
      .def_readonly("iterations", &ClosureProjectionResult::iterations)
      .def_readonly("rows", &ClosureProjectionResult::rows)
      .def_readonly("initial_residual", &ClosureProjectionResult::initialResidual)
      .def_readonly("final_residual", &ClosureProjectionResult::finalResidual)
      .def_readonly("message", &ClosureProjectionResult::message);

  // ---- actuators, schedules, keyframes, sensors ------------------------------
  py::class_<ActuatorSpec>(m, "ActuatorSpec", "An actuator on one coordinate of a joint ('multibody/joint').")
      .def(py::init<>())
      .def(py::init([](const std::string& joint, ActuatorType type, const std::string& name) {
             ActuatorSpec s;
             s.joint = joint;
             s.type = type;
             s.name = name;
             return s;
           }),
           py::arg("joint"), py::arg("type") = ActuatorType::Motor, py::arg("name") = std::string())
      .def_readwrite("name", &ActuatorSpec::name)
      .def_readwrite("joint", &ActuatorSpec::joint)
      .def_readwrite("coordinate", &ActuatorSpec::coordinate)
      .def_readwrite("type", &ActuatorSpec::type)
      .def_readwrite("gear", &ActuatorSpec::gear)
      .def_readwrite("control_min", &ActuatorSpec::controlMin)
      .def_readwrite("control_max", &ActuatorSpec::controlMax)
      .def_readwrite("force_min", &ActuatorSpec::forceMin)
      .def_readwrite("force_max", &ActuatorSpec::forceMax)
      .def_readwrite("kp", &ActuatorSpec::kp)
      .def_readwrite("kd", &ActuatorSpec::kd)
      .def_readwrite("kv", &ActuatorSpec::kv)
      .def_readwrite("ki", &ActuatorSpec::ki)
      .def_readwrite("integral_limit", &ActuatorSpec::integralLimit)
      .def_readwrite("stall_torque", &ActuatorSpec::stallTorque)
      .def_readwrite("no_load_speed", &ActuatorSpec::noLoadSpeed)
      .def_readwrite("velocity_limit", &ActuatorSpec::velocityLimit)
      .def_readwrite("gravity_compensation", &ActuatorSpec::gravityCompensation)
      .def_readwrite("control", &ActuatorSpec::control)
      .def("__repr__", [](const ActuatorSpec& s) {
        return std::string("ActuatorSpec(") + toString(s.type) + ", joint='" + s.joint + "')";
      });
  py::class_<ScheduleSpec> schedule(m, "ScheduleSpec", "Keyframes or a generator driving one actuator's control.");
  py::enum_<ScheduleSpec::Kind>(schedule, "Kind")
      .value("KEYFRAMES", ScheduleSpec::Kind::Keyframes)
      .value("SINE", ScheduleSpec::Kind::Sine)
      .value("STEP", ScheduleSpec::Kind::Step);
  py::enum_<ScheduleSpec::Interpolation>(schedule, "Interpolation")
      .value("LINEAR", ScheduleSpec::Interpolation::Linear)
      .value("HOLD", ScheduleSpec::Interpolation::Hold);
  schedule.def(py::init<>())
      .def_readwrite("name", &ScheduleSpec::name)
      .def_readwrite("actuator", &ScheduleSpec::actuator)
      .def_readwrite("kind", &ScheduleSpec::kind)
      .def_readwrite("keyframes", &ScheduleSpec::keyframes)
      .def_readwrite("interpolation", &ScheduleSpec::interpolation)
      .def_readwrite("loop", &ScheduleSpec::loop)
      .def_readwrite("amplitude", &ScheduleSpec::amplitude)
      .def_readwrite("frequency", &ScheduleSpec::frequency)
      .def_readwrite("phase", &ScheduleSpec::phase)
      .def_readwrite("offset", &ScheduleSpec::offset)
      .def_readwrite("step_time", &ScheduleSpec::stepTime)
      .def("evaluate", &ScheduleSpec::evaluate, py::arg("t"));
  py::class_<ControlSpace>(m, "ControlSpace", "Names and ranges of the controls, in actuator order.")
      .def_readonly("names", &ControlSpace::names)
      .def_readonly("lower", &ControlSpace::lower)
      .def_readonly("upper", &ControlSpace::upper);
  py::class_<KeyframeSpec>(m, "KeyframeSpec", "A named pose: q, and optionally v and the controls.")
      .def(py::init<>())
      .def(py::init([](const std::string& name, const VectorXd& q, double time) {
             KeyframeSpec k;
             k.name = name;
             k.q = q;
             k.time = time;
             return k;
           }),
           py::arg("name"), py::arg("q"), py::arg("time") = 0.0)
      .def_readwrite("name", &KeyframeSpec::name)
      .def_readwrite("time", &KeyframeSpec::time)
      .def_readwrite("q", &KeyframeSpec::q)
      .def_readwrite("v", &KeyframeSpec::v)
      .def_readwrite("controls", &KeyframeSpec::controls);
  py::class_<SensorSpec>(m, "SensorSpec", "A sensor: type, what it is attached to, rate and noise.")
      .def(py::init<>())
      .def(py::init([](const std::string& name, SensorType type, const std::string& frame, const std::string& joint) {
             SensorSpec s;
             s.name = name;
             s.type = type;
             s.frame = frame;
             s.joint = joint;
             return s;
           }),
           py::arg("name"), py::arg("type"), py::arg("frame") = std::string(), py::arg("joint") = std::string())
      .def_readwrite("name", &SensorSpec::name)
      .def_readwrite("type", &SensorSpec::type)
      .def_readwrite("frame", &SensorSpec::frame)
      .def_readwrite("joint", &SensorSpec::joint)
      .def_readwrite("pose", &SensorSpec::pose)
      .def_readwrite("rate", &SensorSpec::rate)
      .def_readwrite("noise_stddev", &SensorSpec::noiseStddev)
      .def_readwrite("noise_bias", &SensorSpec::noiseBias)
      .def_readwrite("seed", &SensorSpec::seed)
      .def_readwrite("child_on_parent", &SensorSpec::childOnParent)
      .def_readwrite("min_range", &SensorSpec::minRange)
      .def_readwrite("max_range", &SensorSpec::maxRange)
      .def("__eq__", [](const SensorSpec& a, const SensorSpec& b) { return a == b; });
  py::class_<SensorReading>(m, "SensorReading", "A sensor's latest values and the time they were taken.")
      .def_readonly("time", &SensorReading::time)
      .def_readonly("valid", &SensorReading::valid)
      .def_readonly("values", &SensorReading::values);

  // ---- inverse kinematics (value types) --------------------------------------
  py::class_<IkOptions>(m, "IkOptions")
      .def(py::init<>())
      .def_readwrite("max_iterations", &IkOptions::maxIterations)
      .def_readwrite("position_tolerance", &IkOptions::positionTolerance)
      .def_readwrite("orientation_tolerance", &IkOptions::orientationTolerance)
      .def_readwrite("constraint_tolerance", &IkOptions::constraintTolerance)
      .def_readwrite("max_step", &IkOptions::maxStep)
      .def_readwrite("damping", &IkOptions::damping)
      .def_readwrite("singular_damping", &IkOptions::singularDamping)
      .def_readwrite("singular_threshold", &IkOptions::singularThreshold)
      .def_readwrite("max_restarts", &IkOptions::maxRestarts)
      .def_readwrite("posture_iterations", &IkOptions::postureIterations)
      .def_readwrite("seed", &IkOptions::seed);
  py::class_<IkTaskResult>(m, "IkTaskResult")
      .def_readonly("name", &IkTaskResult::name)
      .def_readonly("kind", &IkTaskResult::kind)
      .def_readonly("priority", &IkTaskResult::priority)
      .def_readonly("position", &IkTaskResult::position)
      .def_readonly("orientation", &IkTaskResult::orientation)
      .def_readonly("norm", &IkTaskResult::norm)
      .def_readonly("reached", &IkTaskResult::reached);
  py::class_<IkResult>(m, "IkResult")
      .def_readonly("converged", &IkResult::converged)
      .def_readonly("iterations", &IkResult::iterations)
      .def_readonly("restarts", &IkResult::restarts)
      .def_readonly("constraint_residual", &IkResult::constraintResidual)
      .def_readonly("tasks", &IkResult::tasks)
      .def_readonly("message", &IkResult::message)
      .def("__bool__", [](const IkResult& r) { return r.converged; });
}

}  // namespace articula::python

"""The value types of the bindings: options, specs, results, reports, each checked
against what the engine computes or the file says."""
import math
import subprocess
import sys

import numpy as np
import pytest

import articula
from conftest import SOURCE_DIR, robot, scene

DATA = SOURCE_DIR / "tests" / "data"


def test_solver_and_divergence_options_reach_the_world():
    options = articula.WorldOptions()
    solver = articula.ConstraintSolverOptions()
    solver.method = "pivoting" if "pivoting" in articula.constraint_solver_methods() else solver.method
    solver.error_correction = articula.ErrorCorrection.SPLIT_IMPULSE
    solver.max_iterations = 17
    options.solver = solver
    divergence = articula.DivergenceOptions()
    divergence.max_speed = 123.0
    options.divergence = divergence
    world = articula.World(options)
    got = world.get_options()
    assert got.solver.max_iterations == 17
    assert got.solver.error_correction == articula.ErrorCorrection.SPLIT_IMPULSE
    assert got.divergence.max_speed == 123.0


def test_state_space_segments_and_constraint_blocks():
    world = articula.io.load(scene("four_bar.articula"))
    space = world.get_state_space()
    assert isinstance(space, articula.StateSpace)
    segments = space.segments()
    assert all(isinstance(s, articula.StateSegment) for s in segments)
    assert [(s.joint, s.position_offset, s.num_positions) for s in segments] == [
        ("crank_joint", 0, 1), ("coupler_joint", 1, 1), ("rocker_joint", 2, 1)]
    assert space.position_index("four_bar/rocker_joint/q0") == 2
    assert space.velocity_index("nope") is None
    blocks = space.constraint_blocks()
    assert isinstance(blocks[0], articula.ConstraintBlock)
    assert (blocks[0].name, blocks[0].num_rows) == ("four_bar_pin", world.get_loop_closure("four_bar_pin").num_rows())
    assert space.num_constraint_rows() == 5


def test_spec_structs_describe_the_loaded_mechanisms():
    spec = articula.io.load(scene("four_bar.articula")).get_spec()
    mb = spec.multibodies[0]
    assert isinstance(mb, articula.MultibodySpec) and isinstance(mb.links[0], articula.LinkSpec)
    assert [l.name for l in mb.links] == ["crank", "coupler", "rocker"]
    assert mb.links[1].parent == "crank" and mb.links[0].q[0] == -1.0
    closure = spec.loop_closures[0]
    assert isinstance(closure, articula.ClosureSpec) and closure.frame_b == "four_bar/rocker"
    assert closure.family == articula.LoopClosureFamily.HINGE
    gear = articula.io.load(scene("gear_pair.articula")).get_spec()
    coupler = gear.joint_couplers[0]
    assert isinstance(coupler, articula.CouplerSpec) and coupler.ratio == -0.5
    setting = articula.CollisionSettingSpec()
    setting.a, setting.b, setting.enabled = "a", "b", False
    assert not setting.enabled
    frame = articula.FrameSpec()
    frame.name, frame.parent, frame.is_free = "marker", "four_bar/crank", False
    spec.frames.append(frame)
    world = articula.World(spec)
    assert isinstance(world.get_frame("marker"), articula.FixedFrame)


def test_apply_spec_state_policies():
    world = articula.io.load(scene("servo_arm.articula"))
    world.step(300)
    moved = world.get_positions()
    spec = world.get_spec()
    spec.multibodies[0].links[0].q = np.array([0.25])
    world.reset_to_design_mode()
    world.apply_spec(spec, articula.SpecStatePolicy.KEEP_BY_NAME)
    assert np.array_equal(world.get_positions(), moved)  # names persist: coordinates kept
    world.apply_spec(spec, articula.SpecStatePolicy.FROM_SPEC)
    assert world.get_positions()[0] == 0.25


def test_user_frames_follow_their_parents():
    world = articula.io.load(scene("four_bar.articula"))
    crank = world.get_multibody("four_bar").get_link("crank")
    offset = articula.transform(translation=[0.1, 0.0, 0.0])
    tip = world.add_fixed_frame("tip", crank, offset)
    assert isinstance(tip, articula.FixedFrame) and tip.kind() == articula.FrameKind.FIXED_FRAME
    assert tip.get_world_transform() == pytest.approx(crank.get_world_transform() @ offset)
    target = world.add_free_frame("target")
    assert isinstance(target, articula.FreeFrame) and target.kind() == articula.FrameKind.FREE_FRAME
    target.set_relative_transform(articula.transform(articula.rotation_about([0, 0, 1], 0.3), [1, 2, 3]))
    assert target.get_world_transform()[:3, 3] == pytest.approx([1, 2, 3])
    target.set_relative_spatial_velocity(np.array([0, 0, 1.0, 0.5, 0, 0]))
    assert target.get_angular_velocity() == pytest.approx([0, 0, 1.0])
    assert world.get_frame("tip") == tip and world.num_frames() == 2
    world.remove(target)
    assert not target.is_valid()


def test_closure_added_from_python_holds_and_projects():
    world = articula.World()
    chain = world.add_multibody("chain")
    rod = articula.Inertia.cylinder(1.0, 0.02, 1.0)
    rod.com = [0.0, 0.0, -0.5]
    down = articula.transform(translation=[0, 0, -1.0])
    a = chain.add_link(articula.LinkOptions("a", rod), articula.JointSpec.revolute([0, 1, 0]))
    m = chain.add_link(articula.LinkOptions("m", rod), a, articula.JointSpec.revolute([0, 1, 0]).with_parent_offset(down))
    b = chain.add_link(articula.LinkOptions("b", rod), m, articula.JointSpec.revolute([0, 1, 0]).with_parent_offset(down))
    a.get_parent_joint().set_position(0, 0.6)
    m.get_parent_joint().set_position(0, -1.2)
    b.get_parent_joint().set_position(0, 0.9)
    tip = (b.get_world_transform() @ [0, 0, -1.0, 1.0])[:3]
    anchor = world.add_fixed_frame("anchor", articula.Frame.world(), articula.transform(translation=tip))
    spec = articula.LoopClosureSpec(anchor, b, articula.LoopClosureFamily.POINT)
    spec.offset_b = down
    closure = world.add_loop_closure("pin", spec)
    assert isinstance(closure.get_spec(), articula.LoopClosureSpec)
    residual = closure.compute_residual()
    assert isinstance(residual, articula.LoopClosureResidual) and residual.norm < 1e-12

    a.get_parent_joint().set_position(0, 0.5)  # break the loop, then project it shut, crank held
    options = articula.ClosureProjectionOptions()
    options.locked_joints = [a.get_parent_joint()]
    result = world.project_closures(options)
    assert isinstance(result, articula.ClosureProjectionResult) and result.success, result.message
    assert result.final_residual < 1e-10 < result.initial_residual
    assert a.get_parent_joint().get_position() == 0.5

    policy = closure.get_runtime_policy()
    assert isinstance(policy, articula.LoopClosureRuntimePolicy)
    assert policy.kinematics == articula.ClosureKinematicsPolicy.PROJECT
    assert policy.dynamics == articula.ClosureDynamicsPolicy.SOLVE
    policy.stabilization = articula.ClosureStabilization.COMPLIANCE
    closure.set_runtime_policy(policy)
    world.step(200)
    assert closure.compute_residual_norm() < 1e-3


def test_coupler_spec_and_residual():
    world = articula.io.load(scene("gear_pair.articula"))
    pinion = world.get_multibody("pinion").get_joint("axle")
    gear = world.get_multibody("gear").get_joint("axle")
    coupler = world.get_joint_coupler("mesh")
    world.reset_to_design_mode()
    coupler.set_spec(articula.JointCouplerSpec(pinion, gear, -0.25, 0.1))
    assert world.project_closures().success  # assemble the new ratio, then keep it while stepping
    spec = coupler.get_spec()
    assert isinstance(spec, articula.JointCouplerSpec) and (spec.ratio, spec.offset) == (-0.25, 0.1)
    world.step(100)
    r = coupler.compute_residual()
    assert isinstance(r, articula.JointCouplerResidual)
    assert gear.get_position() == pytest.approx(-0.25 * pinion.get_position() + 0.1, abs=1e-8)


def test_joint_reaction_of_a_hanging_bar_carries_its_weight():
    world = articula.World()
    bar = world.add_multibody("bar")
    inertia = articula.Inertia.cylinder(3.0, 0.02, 1.0)
    inertia.com = [0.0, 0.0, -0.5]
    link = bar.add_link(articula.LinkOptions("rod", inertia), articula.JointSpec.revolute([0, 1, 0]))
    world.step(1)
    reaction = link.get_parent_joint().get_reaction(articula.Frame.world())
    assert isinstance(reaction, articula.JointReaction)
    # hanging at rest: the joint pushes up with m g, no torque about the free axis
    assert reaction.wrench[5] == pytest.approx(3.0 * 9.81, rel=1e-9)
    assert reaction.total[0] == pytest.approx(0.0, abs=1e-9)


def test_keyframes_and_schedules():
    world = articula.io.load(scene("keyframe_arm.articula"))
    frames = world.get_keyframes()
    assert all(isinstance(k, articula.KeyframeSpec) for k in frames)
    assert [k.name for k in frames] == ["home", "reach", "fold"]
    world.apply_keyframe("reach")
    assert world.get_positions() == pytest.approx([0.8, -0.6])
    world.add_keyframe(articula.KeyframeSpec("mine", np.array([0.1, 0.2]), 3.0))
    assert world.get_keyframe("mine").q == pytest.approx([0.1, 0.2])
    sine = articula.ScheduleSpec()
    sine.name, sine.actuator = "wave", "shoulder_servo"
    sine.kind = articula.ScheduleSpec.Kind.SINE
    sine.amplitude, sine.frequency, sine.phase, sine.offset = 0.5, 2.0, 0.1, 0.2
    for t in (0.0, 0.3, 1.7):
        assert sine.evaluate(t) == pytest.approx(0.2 + 0.5 * math.sin(2 * math.pi * 2.0 * t + 0.1), rel=1e-12)
    space = world.get_control_space()
    assert isinstance(space, articula.ControlSpace) and len(space.names) == 2


def test_step_diagnostics_timings_state_and_sync():
    world = articula.io.load(scene("box_stack.articula"))
    world.step(20)
    diagnostics = world.get_step_diagnostics()
    assert isinstance(diagnostics, articula.StepDiagnostics) and diagnostics.num_contacts > 0
    timings = world.get_last_step_timings()
    assert isinstance(timings, articula.StepTimings) and timings.total > 0.0
    stages = [timings.control, timings.kinematics, timings.collision, timings.dynamics, timings.solve,
              timings.integration, timings.projection]
    assert timings.collision > 0.0 and timings.solve > 0.0 and timings.projection == 0.0
    assert sum(stages) <= timings.total
    state = world.get_state()
    assert isinstance(state, articula.WorldState) and state.frame_index == 20
    world.step(20)
    world.set_state(state)
    assert np.array_equal(world.get_positions(), state.positions)
    world.sync(articula.WorldSyncStage.KINEMATICS)
    snapshot = world.capture_runtime_state()
    assert isinstance(snapshot, articula.RuntimeSnapshot) and snapshot.simulation_mode


def test_queries_return_typed_results():
    world = articula.io.load(scene("box_stack.articula"))
    hit = world.raycast([0.0, 0.0, 5.0], [0.0, 0.0, -1.0])
    assert isinstance(hit, articula.RaycastHit)
    d = world.compute_distance(world.get_rigid_body("box0").get_collision_shapes()[0],
                               world.get_rigid_body("box1").get_collision_shapes()[0])
    assert isinstance(d, articula.DistanceResult)
    assert d.distance == pytest.approx(np.linalg.norm(d.point_b - d.point_a), abs=1e-9)


def test_visual_shapes_and_euler_joints():
    world = articula.World()
    mb = world.add_multibody("gimbal")
    link = mb.add_link(articula.LinkOptions("body", articula.Inertia.sphere(1.0, 0.1)),
                       articula.JointSpec.euler(articula.EulerOrder.ZYX))
    assert mb.num_positions() == 3 and link.get_parent_joint().get_spec().euler_order == articula.EulerOrder.ZYX
    shape = link.add_visual_shape(articula.VisualShapeOptions(articula.Geometry.sphere(0.1), color=[1, 0, 0, 1]))
    assert not shape.is_collision() and shape.get_color() == pytest.approx([1, 0, 0, 1])


def test_sensor_readings_are_typed():
    world = articula.World()
    world.add_rigid_body("ball", articula.RigidBodyOptions(articula.Inertia.sphere(1.0, 0.1)))
    sensor = world.add_sensor(articula.SensorSpec("imu", articula.SensorType.IMU, frame="ball"))
    world.step(2)
    assert isinstance(sensor.get_reading(), articula.SensorReading)
    world.reset_to_design_mode()
    with pytest.raises(articula.TopologyError):
        world.add_sensor(articula.SensorSpec("imu", articula.SensorType.IMU, frame="ball"))


def test_recording_options_stats_and_frame_info():
    world = articula.io.load(scene("four_bar.articula"))
    options = articula.RecordingOptions()
    options.every = 10
    options.overflow = articula.RecordingOverflow.THIN_TO_KEYFRAMES
    recorder = articula.Recorder(world, options)
    world.step(100)
    recording = recorder.recording()
    assert len(recording) == 11
    info = recording.frame_info(3)
    assert isinstance(info, articula.RecordedFrameInfo) and info.step == 30
    stats = recording.stats()
    assert isinstance(stats, articula.RecordingStats) and stats.frames == 11
    assert recording.options().overflow == articula.RecordingOverflow.THIN_TO_KEYFRAMES


def test_inverse_kinematics_options_and_results():
    urdf = robot("ur_description/urdf/ur5_robot.urdf")
    world = articula.io.load(urdf, package_paths=[urdf.parents[3]])
    world.set_positions(np.array([0.0, -1.2, 1.6, -1.9, -1.57, 0.0]))
    tool = next(l for mb in world.get_multibodies() for l in mb.get_links() if l.name.endswith("/tool0"))
    options = articula.IkOptions()
    options.max_iterations = 200
    ik = articula.InverseKinematics(world, options)
    task_options = articula.IkTaskOptions()
    task_options.name = "reach"
    target = tool.get_world_transform()[:3, 3] + [0.03, 0.02, -0.04]
    ik.add_position_task(tool, target, task_options)
    q0 = world.get_positions()
    result, q = ik.solve(q0)
    assert isinstance(result, articula.IkResult) and result.converged
    assert isinstance(result.tasks[0], articula.IkTaskResult) and result.tasks[0].name == "reach"
    assert np.array_equal(world.get_positions(), q0)  # solve(q0) leaves the world alone
    world.set_positions(q)
    assert tool.get_world_transform()[:3, 3] == pytest.approx(target, abs=1e-8)


def test_import_reports_name_what_was_made():
    world, report = articula.io.load_with_report(DATA / "urdf" / "four_bar_loop_joint.urdf")
    cut = report.cuts[0]
    assert isinstance(cut, articula.io.LoopCut) and cut.line > 0
    assert world.get_loop_closure(cut.closure) is not None
    world, report = articula.io.load_with_report(DATA / "urdf" / "gripper_mimic.urdf")
    made = report.couplers[0]
    assert isinstance(made, articula.io.CouplerMade) and made.ratio == -1.0
    world, report = articula.io.load_with_report(DATA / "sdf" / "sensors.sdf")
    assert all(isinstance(s, articula.io.SensorMade) for s in report.sensors)
    assert {s.sensor for s in report.sensors} == {s.name for s in world.get_sensors()}
    entry = report.ignored[0]
    assert isinstance(entry, articula.io.ReportEntry) and entry.line > 0 and "camera" in entry.message
    urdf = robot("ur_description/urdf/ur5_robot.urdf")
    world, report = articula.io.load_with_report(urdf, package_paths=[urdf.parents[3]])
    assert all(isinstance(a, articula.io.ActuatorMade) for a in report.actuators)
    assert [a.actuator for a in report.actuators] == [a.name for a in world.get_actuators()]


def test_holding_servos_and_urdf_text():
    text = """<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="10"/></joint>
</robot>"""
    world = articula.io.load_urdf_string(text, "inline.urdf")
    world.get_multibody("r").get_joint("hinge").set_position(0, 0.4)
    assert articula.io.add_holding_servos(world) == 1
    world.step(2000)
    # a gravity-compensated servo holds the pose it was given
    assert world.get_positions()[0] == pytest.approx(0.4, abs=1e-3)
    with pytest.raises(articula.io.ImportError, match="inline.urdf"):
        articula.io.load_urdf_string("<robot name='r'><link name='a'></robot>", "inline.urdf")
    assert articula.io.SCENE_FORMAT_VERSION >= 3


def test_error_hierarchy():
    assert issubclass(articula.FileAccessError, articula.Error) and issubclass(articula.FileAccessError, OSError)
    assert issubclass(articula.ViewerError, articula.Error)
    assert issubclass(articula.io.ImportError, articula.Error)
    for name in ("InvalidHandle", "TopologyError", "LifecycleError", "InvalidArgument", "LayoutIncompatible",
                 "ReplayFileError"):
        assert issubclass(getattr(articula, name), articula.Error)


def test_rendering_without_a_display_raises_viewer_error():
    code = ("import articula\n"
            "w = articula.io.load(%r)\n"
            "try:\n    articula.render(w)\nexcept articula.ViewerError as e:\n    print('ViewerError:', e)\n"
            "articula.release_render_context()\n" % str(scene("four_bar.articula")))
    env = {k: v for k, v in __import__("os").environ.items() if k != "DISPLAY"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ViewerError:" in out.stdout and "xvfb-run" in out.stdout


def test_mesh_parts_colour_runs_of_triangles():
    world = articula.World()
    body = world.add_rigid_body("tile", articula.RigidBodyOptions(articula.Inertia.sphere(1.0, 0.1)))
    vertices = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=float)
    geometry = articula.Geometry.triangle_mesh(vertices, np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int32))
    geometry.parts = [articula.MeshPart(1, 1, [0, 0, 1, 1])]
    shape = body.add_visual_shape(articula.VisualShapeOptions(geometry, color=[1, 0, 0, 1]))
    parts = shape.get_geometry().parts
    assert len(parts) == 1 and parts[0] == articula.MeshPart(1, 1, [0, 0, 1, 1])
    assert parts[0].first_triangle == 1 and parts[0].triangle_count == 1
    assert parts[0].color == pytest.approx([0, 0, 1, 1])
    geometry.parts = [articula.MeshPart(1, 2, [0, 0, 1, 1])]  # past the last triangle
    with pytest.raises(articula.InvalidArgument, match="part 0 covers triangles 1..2"):
        body.add_visual_shape(articula.VisualShapeOptions(geometry))


def test_joint_type_info_agrees_with_built_joints():
    """The joint-type table, read from Python, matches joints the engine builds."""
    for name in ["WELD", "REVOLUTE", "PRISMATIC", "SCREW", "UNIVERSAL", "BALL", "EULER", "PLANAR",
                 "TRANSLATIONAL", "FREE"]:
        jt = getattr(articula.JointType, name)
        info = articula.joint_type_info(jt)
        assert info["name"] == name.lower()
        assert info["num_positions"] == articula.num_positions(jt)
        assert info["num_dofs"] == articula.num_dofs(jt)
        assert len(info["position_kinds"]) == info["num_positions"]
        assert len(info["position_names"]) == info["num_positions"]
        assert len(info["angular_dofs"]) == info["num_dofs"]
        assert len(info["dof_names"]) == info["num_dofs"]
        quaternion = [k == "quaternion" for k in info["position_kinds"]]
        if info["quaternion_start"] >= 0:
            s = info["quaternion_start"]
            assert quaternion[s:s + 4] == [True] * 4 and sum(quaternion) == 4
        else:
            assert not any(quaternion)
    planar = articula.joint_type_info(articula.JointType.PLANAR)
    assert planar["position_kinds"] == ["length", "length", "angle"]
    assert planar["angular_dofs"] == [False, False, True]
    assert planar["num_axes"] == 2 and not planar["constant_motion_subspace"]
    free = articula.joint_type_info(articula.JointType.FREE)
    assert free["angular_dofs"] == [True, True, True, False, False, False]

"""Handles from Python: frames, links, joints, shapes, closures, couplers, actuators,
sensors, contacts, queries and IK, each cross-checked against the physics."""
import math

import numpy as np
import pytest

import articula
from conftest import robot, scene


def test_frames_links_and_joints_of_a_loaded_mechanism():
    world = articula.io.load(scene("four_bar.articula"))
    mb = world.get_multibody("four_bar")
    assert isinstance(mb, articula.Multibody) and mb.name == "four_bar"
    links = mb.get_links()
    assert [l.name for l in links] == ["four_bar/crank", "four_bar/coupler", "four_bar/rocker"]
    crank = mb.get_link("crank")
    assert isinstance(crank, articula.Link) and isinstance(crank, articula.Frame)
    frame = world.get_frame("four_bar/crank")
    assert isinstance(frame, articula.Link) and frame == crank and hash(frame) == hash(crank)
    joint = crank.get_parent_joint()
    assert joint.name == "crank_joint" and joint.type() == articula.JointType.REVOLUTE
    assert joint.get_child_link() == crank and joint.get_parent_link() is None
    assert mb.get_link("coupler").get_parent_link() == crank
    assert crank.get_child_links() == [mb.get_link("coupler")]
    X = crank.get_world_transform()
    assert X.shape == (4, 4) and np.allclose(X[3], [0, 0, 0, 1])
    assert np.allclose(X[:3, :3] @ X[:3, :3].T, np.eye(3))
    assert crank.get_transform(articula.Frame.world()) == pytest.approx(X)
    assert repr(crank) == "Link('four_bar/crank')"
    assert mb.get_link("nope") is None


def test_loop_closure_handle_reports_its_residual():
    world = articula.io.load(scene("four_bar.articula"))
    closure = world.get_loop_closure("four_bar_pin")
    assert closure.family() == articula.LoopClosureFamily.HINGE
    assert closure.num_rows() == 5
    assert closure.compute_residual_norm() < 1e-9
    spec = closure.get_spec()
    assert spec.frame_a.is_world() and isinstance(spec.frame_b, articula.Link)
    world.step(500)
    r = closure.compute_residual()
    assert r.norm < 1e-8 and r.force_available
    policy = closure.get_runtime_policy()
    policy.enabled = False
    closure.set_runtime_policy(policy)
    assert not closure.is_enabled()


def test_joint_coupler_holds_its_ratio():
    world = articula.io.load(scene("gear_pair.articula"))
    coupler = world.get_joint_coupler("mesh")
    spec = coupler.get_spec()
    assert spec.ratio == -0.5 and spec.leader.name == "axle"
    world.step(300)
    leader = world.get_multibody("pinion").get_joint("axle").get_position()
    follower = world.get_multibody("gear").get_joint("axle").get_position()
    assert follower == pytest.approx(-0.5 * leader, abs=1e-8)
    assert abs(coupler.compute_residual().residual) < 1e-8


def test_actuators_controls_and_forces():
    world = articula.io.load(scene("servo_arm.articula"))
    names = [a.name for a in world.get_actuators()]
    assert names == ["shoulder_servo", "elbow_pid"]
    space = world.get_control_space()
    assert space.names == names and space.lower[0] == -1.5
    world.set_control("shoulder_servo", 99.0)
    assert world.get_control(world.get_actuator("shoulder_servo")) == 1.5  # clamped to the range
    world.remove_schedule("shoulder_wave")
    world.remove_schedule("elbow_moves")
    world.hold_current_pose()
    world.step(200)
    forces = world.get_actuator_forces()
    assert forces.shape == (2,)
    # the servo forces equal the joints' reported actuator forces
    shoulder = world.get_multibody("arm").get_joint("shoulder")
    assert shoulder.get_reaction().actuator[0] == pytest.approx(forces[0], rel=1e-12, abs=1e-12)
    with pytest.raises(articula.TopologyError, match="nope"):
        world.set_control("nope", 1.0)


def test_contacts_carry_the_weight_of_a_box_stack():
    world = articula.io.load(scene("box_stack.articula"))
    world.step(400)
    contacts = world.get_contacts()
    assert contacts and isinstance(contacts[0], articula.Contact)
    ground = [c for c in contacts if c.frame_a.is_world() or c.frame_b.is_world()]
    assert ground
    mass = sum(b.get_mass() for b in world.get_rigid_bodies())
    bottom = world.get_rigid_body("box0")
    wrench = world.get_contact_wrench(bottom)
    # the stack rests: the bottom box's contact forces carry its weight (through the ground and the box above)
    upper = sum(world.get_rigid_body(f"box{k}").get_mass() for k in range(1, 10))
    assert wrench[5] == pytest.approx(9.81 * (mass - upper), rel=1e-3)
    assert world.get_step_diagnostics().num_contacts == len(contacts)


def test_queries_raycast_distance_and_interference():
    world = articula.io.load(scene("box_stack.articula"))
    hit = world.raycast([0.0, 0.0, 5.0], [0.0, 0.0, -1.0])
    assert hit is not None and isinstance(hit.body, articula.RigidBody)
    assert hit.body.name == "box9"
    top = world.get_rigid_body("box9").get_pose()[2, 3]
    assert hit.distance == pytest.approx(5.0 - (top + 0.1), abs=1e-9)
    assert len(world.raycast_all([0.0, 0.0, 5.0], [0.0, 0.0, -1.0])) == 11  # ten boxes and the ground
    d = world.compute_distance(world.get_rigid_body("box0"), world.get_rigid_body("box2"))
    assert d.distance == pytest.approx(0.2, abs=1e-6)
    assert isinstance(world.check_collisions(margin=0.01), list)
    with pytest.raises(articula.InvalidArgument):
        world.raycast([0, 0, 0], [0, 0, 0])


def test_sensors_measure_what_the_frames_say():
    world = articula.World()
    world.add_rigid_body("ball", articula.RigidBodyOptions(articula.Inertia.sphere(1.0, 0.1)))
    imu = world.add_sensor(articula.SensorSpec("imu", articula.SensorType.IMU, frame="ball"))
    assert imu.num_values() == len(imu.value_names())
    world.step(10)
    reading = imu.get_reading()
    assert reading.valid and reading.time <= world.get_time()
    names = imu.value_names()
    # free fall: the accelerometer reads zero specific force
    acc = [reading.values[i] for i, n in enumerate(names) if "acc" in n]
    assert np.allclose(acc, 0.0, atol=1e-9)
    assert world.get_sensors() == [imu]


def test_rigid_body_shapes_and_removal():
    world = articula.World()
    body = world.add_rigid_body("box", articula.RigidBodyOptions(articula.Inertia.box(2.0, [0.2, 0.2, 0.2])))
    shape = body.add_collision_shape(articula.CollisionShapeOptions(articula.Geometry.box([0.2, 0.2, 0.2]),
                                                                    material=articula.Material(0.5)))
    assert shape.is_collision() and shape.get_owner() == body
    assert shape.get_geometry().type == articula.GeometryType.BOX
    assert shape.get_material().friction == 0.5
    mesh = articula.Geometry.convex_mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]]))
    assert mesh.vertices.shape == (4, 3)
    world.remove(shape)
    assert not shape.is_valid()
    with pytest.raises(articula.InvalidHandle):
        shape.get_geometry()
    world.remove(body)
    with pytest.raises(articula.InvalidHandle) as info:
        body.get_pose()
    assert isinstance(info.value, LookupError)


def test_inverse_kinematics_reaches_a_target_on_a_real_arm():
    urdf = robot("ur_description/urdf/ur5_robot.urdf")
    world = articula.io.load(urdf, package_paths=[urdf.parents[3]])
    tool = world.get_frame(next(f"{mb.name}/{l.name.split('/')[-1]}" for mb in world.get_multibodies()
                                for l in mb.get_links() if l.name.endswith("tool0")))
    start = tool.get_world_transform()[:3, 3]
    target = start + np.array([0.05, -0.05, 0.08])
    ik = articula.InverseKinematics(world)
    task = ik.add_position_task(tool, target)
    result = ik.solve()
    assert result.converged, result.message
    assert tool.get_world_transform()[:3, 3] == pytest.approx(target, abs=1e-8)
    assert ik.get_kind(task) == articula.IkTaskKind.POSITION

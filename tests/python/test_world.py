"""World from Python: lifecycle, errors, dynamics cross-checks, controller, observers, GIL."""
import math
import threading
import time

import numpy as np
import pytest

import articula


def pendulum(length=1.0, mass=2.0, q0=0.3, integrator=articula.Integrator.RUNGE_KUTTA_4, dt=1e-3):
    """A point mass on a massless rod, hinged about y at the origin, hanging along -z."""
    options = articula.WorldOptions()
    options.time_step = dt
    options.integrator = integrator
    world = articula.World(options)
    mb = world.add_multibody("pendulum")
    link = mb.add_link(articula.LinkOptions("bob", articula.Inertia.point_mass(mass, [0.0, 0.0, -length])),
                       articula.JointSpec.revolute([0.0, 1.0, 0.0]).named("hinge"))
    link.get_parent_joint().set_position(0, q0)
    return world, mb, link


def test_lifecycle_modes_and_reset():
    world, mb, link = pendulum()
    assert not world.is_simulation_mode()
    assert world.num_positions() == 1 and world.num_dofs() == 1
    world.step()
    assert world.is_simulation_mode()
    assert world.get_frame_index() == 1
    assert world.get_time() == pytest.approx(1e-3)
    world.step(9)
    assert world.get_frame_index() == 10
    world.reset()
    assert world.get_time() == 0.0
    assert world.get_positions()[0] == 0.3
    world.reset_to_design_mode()
    assert not world.is_simulation_mode()
    world.step(0)
    assert world.get_frame_index() == 0


def test_errors_are_typed_and_keep_messages():
    world, mb, link = pendulum()
    with pytest.raises(articula.InvalidArgument, match="time step") as info:
        world.set_time_step(-1.0)
    assert isinstance(info.value, articula.Error) and isinstance(info.value, ValueError)
    with pytest.raises(articula.TopologyError, match="pendulum"):
        world.add_multibody("pendulum")
    world.enter_simulation_mode()
    with pytest.raises(articula.LifecycleError):
        world.add_multibody("another")
    with pytest.raises(articula.InvalidArgument):
        world.set_positions(np.zeros(3))
    with pytest.raises(TypeError):
        world.step("ten")
    assert issubclass(articula.Error, RuntimeError)


def test_positions_are_numpy_and_out_arrays_are_filled_in_place():
    world, mb, link = pendulum(q0=0.25)
    q = world.get_positions()
    assert isinstance(q, np.ndarray) and q.dtype == np.float64 and q.shape == (1,)
    out = np.empty(1)
    world.get_positions(out)
    assert out[0] == 0.25
    with pytest.raises(TypeError):
        world.get_positions(np.empty(1, dtype=np.float32))  # no silent copy into a temporary
    world.set_positions(np.array([0.5]))
    assert world.get_positions()[0] == 0.5


def test_pendulum_energy_and_small_angle_period():
    world, mb, link = pendulum(q0=0.01, dt=1e-3)
    e0 = world.compute_kinetic_energy() + world.compute_potential_energy()
    crossings = []
    previous = world.get_positions()[0]
    for _ in range(5000):
        world.step()
        q = world.get_positions()[0]
        if previous < 0.0 <= q or previous > 0.0 >= q:
            crossings.append(world.get_time())
        previous = q
    e1 = world.compute_kinetic_energy() + world.compute_potential_energy()
    assert abs(e1 - e0) < 1e-9 * abs(e0) + 1e-12
    period = 2.0 * (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    assert period == pytest.approx(2.0 * math.pi * math.sqrt(1.0 / 9.81), rel=2e-3)


def test_dynamics_terms_agree_with_each_other_and_with_finite_differences():
    world, mb, link = pendulum(q0=0.7)
    mb.set_velocities(np.array([0.4]))
    M = mb.get_mass_matrix()
    assert M.shape == (1, 1)
    assert M[0, 0] == pytest.approx(2.0 * 1.0**2)  # m l^2
    vdot = np.array([1.3])
    tau = mb.compute_inverse_dynamics(vdot)
    assert tau == pytest.approx(M @ vdot + mb.get_coriolis_and_gravity_forces(), rel=1e-12, abs=1e-12)
    assert mb.compute_forward_dynamics(tau) == pytest.approx(vdot, rel=1e-10)
    assert np.allclose(mb.get_inverse_mass_matrix() @ M, np.eye(1))
    # gravity torque of a pendulum at angle q: -m g l sin(q)
    assert mb.get_gravity_forces()[0] == pytest.approx(2.0 * 9.81 * math.sin(0.7), rel=1e-12)

    J = link.get_jacobian([0.0, 0.0, -1.0])
    assert J.shape == (6, 1)
    h = 1e-6
    p0 = (link.get_world_transform() @ np.array([0.0, 0.0, -1.0, 1.0]))[:3]
    mb.set_positions(np.array([0.7 + h]))
    p1 = (link.get_world_transform() @ np.array([0.0, 0.0, -1.0, 1.0]))[:3]
    assert J[3:, 0] == pytest.approx((p1 - p0) / h, abs=1e-5)
    assert J[:3, 0] == pytest.approx([0.0, 1.0, 0.0])


def test_python_controller_equals_the_same_controls_set_directly():
    def build():
        world, mb, link = pendulum(q0=0.2, integrator=articula.Integrator.SEMI_IMPLICIT_EULER)
        spec = articula.ActuatorSpec("pendulum/hinge", articula.ActuatorType.MOTOR, "motor")
        world.add_actuator(spec)
        return world

    calls = []

    def controller(t, q, v, controls):
        calls.append(t)
        controls[0] = 0.5 * math.sin(10.0 * t)

    a = build()
    a.set_controller(controller)
    a.step(200)
    b = build()
    for _ in range(200):
        b.set_controls(np.array([0.5 * math.sin(10.0 * b.get_time())]))
        b.step()
    assert len(calls) == 200
    assert np.array_equal(a.get_positions(), b.get_positions())
    assert np.array_equal(a.get_velocities(), b.get_velocities())

    # returning the controls works as well as writing them
    c = build()
    c.set_controller(lambda t, q, v, u: np.array([0.5 * math.sin(10.0 * t)]))
    c.step(200)
    assert np.array_equal(c.get_positions(), a.get_positions())


def test_controller_errors_surface_from_step():
    world, mb, link = pendulum()
    world.add_actuator(articula.ActuatorSpec("pendulum/hinge", articula.ActuatorType.MOTOR, "motor"))
    calls = []

    def failing(t, q, v, u):
        calls.append(t)
        raise KeyError("from the controller")

    world.set_controller(failing)
    with pytest.raises(KeyError, match="from the controller"):
        world.step(10)
    assert len(calls) == 1  # later calls of the same step(10) were skipped
    world.set_controller(lambda t, q, v, u: np.zeros(3))
    with pytest.raises(articula.Error, match="3 controls"):
        world.step()
    world.set_controller(None)
    world.step()
    with pytest.raises(TypeError):
        world.set_controller(42)


def test_step_observers_see_every_step():
    world, mb, link = pendulum()
    seen = []
    ident = world.add_step_observer(lambda w: seen.append((w.get_frame_index(), w.get_positions()[0])))
    world.step(5)
    assert [s[0] for s in seen] == [1, 2, 3, 4, 5]
    world.remove_step_observer(ident)
    world.step(2)
    assert len(seen) == 5


def test_step_releases_the_gil():
    world, mb, link = pendulum(dt=1e-4)
    world.step()
    start = time.perf_counter()
    world.step(20000)
    single = time.perf_counter() - start
    steps = max(20000, int(20000 * 0.3 / max(single, 1e-6)))  # about 0.3 s of stepping

    counter = 0
    worker = threading.Thread(target=world.step, args=(steps,))
    worker.start()
    while worker.is_alive():
        counter += 1
    worker.join()
    # With the GIL held for the whole step(n) this loop could not run meanwhile.
    assert counter > 1000


def test_options_property_round_trip():
    world, mb, link = pendulum()
    options = world.options
    options.gravity = [0.0, 0.0, -1.62]
    options.solver.method = "convex"
    world.options = options
    assert world.get_options().gravity[2] == -1.62
    assert world.get_options().solver.method == "convex"
    assert "convex" in articula.constraint_solver_methods()


def test_thread_pool_executor_steps_bit_identically():
    """Boxes falling on the ground apart from each other: one island each."""
    def run(executor):
        world = articula.World()
        world.add_ground_plane()
        for i in range(6):
            body = world.add_rigid_body(f"box{i}", articula.RigidBodyOptions(articula.Inertia.box(1.0, [0.2] * 3)))
            body.add_collision_shape(articula.CollisionShapeOptions(articula.Geometry.box([0.2] * 3)))
            pose = np.eye(4)
            pose[:3, 3] = [0.5 * i, 0.0, 0.3 + 0.05 * i]
            pose[:3, :3] = [[math.cos(0.2 * i), -math.sin(0.2 * i), 0], [math.sin(0.2 * i), math.cos(0.2 * i), 0],
                            [0, 0, 1]]
            body.set_pose(pose)
        world.set_executor(executor)
        assert world.get_executor() is executor or (executor is None and world.get_executor() is None)
        islands = 0
        for _ in range(400):
            world.step()
            islands = max(islands, world.get_step_diagnostics().num_islands)
        return world.get_positions(), world.get_velocities(), islands

    pool = articula.make_thread_pool_executor(2)
    assert isinstance(pool, articula.Executor) and pool.concurrency == 2
    q0, v0, islands = run(None)
    q2, v2, _ = run(pool)
    assert islands == 6
    assert np.array_equal(q0, q2) and np.array_equal(v0, v2)
    with pytest.raises(articula.InvalidArgument):
        articula.make_thread_pool_executor(-1)

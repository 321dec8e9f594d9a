"""A URDF arm held in its pose by position servos, then moved; its joint torques plotted.

    python3 servo_robot_torques.py [URDF] [--package-path DIR] [--out torques.png]

Without URDF, the UR5 of example-robot-data under $ARTICULA_MODELS_DIR.
"""
import argparse
import os
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import articula  # noqa: E402


def default_robot():
    models = pathlib.Path(os.environ.get("ARTICULA_MODELS_DIR", "../shared/models"))
    urdf = models / "example-robot-data" / "robots" / "ur_description" / "urdf" / "ur5_robot.urdf"
    return urdf, urdf.parents[3]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("urdf", nargs="?")
    parser.add_argument("--package-path", action="append", default=[])
    parser.add_argument("--out", default="servo_torques.png")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    if args.urdf:
        urdf, packages = pathlib.Path(args.urdf), [pathlib.Path(p) for p in args.package_path]
    else:
        urdf, package = default_robot()
        packages = [package]

    world = articula.io.load(urdf, package_paths=packages)
    # Motors the file declares (transmissions) become gravity-compensated
    # position servos; joints without one get one.
    converted = 0
    for actuator in world.get_actuators():
        spec = actuator.get_spec()
        if spec.type == articula.ActuatorType.MOTOR:
            spec.type = articula.ActuatorType.POSITION_SERVO
            spec.gravity_compensation = True
            spec.control_min, spec.control_max = -np.inf, np.inf  # targets in rad, not N m
            actuator.set_spec(spec)
            converted += 1
    added = articula.io.add_holding_servos(world)
    world.hold_current_pose()
    actuators = world.get_actuators()
    servos = sum(a.get_spec().type == articula.ActuatorType.POSITION_SERVO for a in actuators)
    print(f"{urdf.name}: {world.num_dofs()} DoF, {servos} position servos "
          f"({converted} converted from the file's motors, {added} added)")

    # Hold the pose for half the time, then move the first two joints by 0.5 rad.
    targets = world.get_controls()
    steps = int(args.seconds / world.get_options().time_step)
    t, torques = [], []
    for k in range(steps):
        if k == steps // 2:
            moved = targets.copy()
            moved[:2] += 0.5
            world.set_controls(moved)
        world.step()
        t.append(world.get_time())
        torques.append(world.get_actuator_forces())
    torques = np.array(torques)
    print("torques at the end (N m): " + ", ".join(f"{a.name}={f:.2f}" for a, f in zip(actuators, torques[-1])))

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, a in enumerate(actuators):
        ax.plot(t, torques[:, i], label=a.name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("servo torque (N m)")
    ax.set_title(f"{urdf.name}: holding, then moving two joints")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

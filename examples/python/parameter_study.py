"""A parameter study with multiprocessing: servo gains against tracking error.

Each worker loads the scene, sets the shoulder servo's gains and runs; results
come back as plain numbers. World objects stay inside their process.

    python3 parameter_study.py [--processes N]
"""
import argparse
import itertools
import multiprocessing
import os
import pathlib

import numpy as np

import articula

SCENE = pathlib.Path(os.environ.get("ARTICULA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2])) \
    / "scenes" / "servo_arm.articula"


def run(params):
    kp, kd = params
    world = articula.io.load(SCENE)
    servo = world.get_actuator("shoulder_servo")
    spec = servo.get_spec()
    spec.kp, spec.kd = kp, kd
    servo.set_spec(spec)
    joint = world.get_multibody("arm").get_joint("shoulder")
    errors = []
    for _ in range(3000):
        world.step()
        errors.append(world.get_control(servo) - joint.get_position())
    return kp, kd, float(np.sqrt(np.mean(np.square(errors))))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    grid = list(itertools.product([20.0, 80.0, 320.0], [1.0, 4.0]))
    with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
        results = pool.map(run, grid)
    print(f"{'kp':>8} {'kd':>6} {'rms error (rad)':>16}")
    for kp, kd, rms in results:
        print(f"{kp:8.0f} {kd:6.1f} {rms:16.5f}")
    best = min(results, key=lambda r: r[2])
    print(f"best: kp={best[0]:g}, kd={best[1]:g}")
    # stiffer servos track better
    by_kp = {kp: min(r[2] for r in results if r[0] == kp) for kp, _ in grid}
    if not by_kp[320.0] < by_kp[20.0]:
        raise SystemExit("a stiffer servo should track the schedule better")


if __name__ == "__main__":
    main()

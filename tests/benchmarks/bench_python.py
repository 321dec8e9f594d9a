"""Overhead of the Python bindings: the same calls from Python and from C++, one run.

    PYTHONPATH=build/ci/python python3 tests/benchmarks/bench_python.py [--quick]

Figures: per-call overhead of world.step() (target: at most 1 us), of
world.step(n), and the cost of get_positions() on TALOS (32 joints) with and
without a preallocated array. docs/performance.md keeps the measured table.
"""
import argparse
import os
import pathlib
import sys
import time

import numpy as np

import articula
from articula import _articula as ext


def pendulum():
    world = articula.World()
    arm = world.add_multibody("pendulum")
    arm.add_link(articula.LinkOptions("bob", articula.Inertia.point_mass(1.0, [0.0, 0.0, -1.0])),
                 articula.JointSpec.revolute([0.0, 1.0, 0.0]))
    world.step()
    return world


def talos():
    models = pathlib.Path(os.environ.get("ARTICULA_MODELS_DIR", pathlib.Path(__file__).resolve().parents[3]
                                         / "shared" / "models"))
    urdf = models / "example-robot-data" / "robots" / "talos_data" / "robots" / "talos_reduced.urdf"
    if not urdf.exists():
        sys.exit(f"{urdf} is missing (ARTICULA_MODELS_DIR)")
    world = articula.io.load(urdf, package_paths=[models], root=articula.io.RootAttachment.FIXED,
                             use_environment_paths=False)
    world.step()
    return world


def interleaved(repeats, *fns):
    """Best time of each function over `repeats` rounds that run each once, in turn."""
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            best[k] = min(best[k], fn())
    return best


def python_steps(world, n):
    step = world.step
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    return time.perf_counter() - t0


def python_step_n(world, n):
    t0 = time.perf_counter()
    world.step(n)
    return time.perf_counter() - t0


def python_get_positions(world, n, out=None):
    get = world.get_positions
    t0 = time.perf_counter()
    if out is None:
        for _ in range(n):
            get()
    else:
        for _ in range(n):
            get(out)
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    args = parser.parse_args()
    n = 20000 if args.quick else 200000
    repeats = 3 if args.quick else 7

    rows = []
    world = pendulum()
    cpp, py_loop, py_n = (t / n for t in interleaved(repeats, lambda: ext._time_steps(world, n),
                                                     lambda: python_steps(world, n),
                                                     lambda: python_step_n(world, n)))
    rows.append(("pendulum: world.step() per call", py_loop, cpp))
    rows.append(("pendulum: world.step(n) per step", py_n, cpp))

    robot = talos()
    m = n // 10
    out = np.empty(robot.num_positions())
    cpp_q, py_q, py_q_out = (t / m for t in interleaved(repeats, lambda: ext._time_get_positions(robot, m)[0],
                                                        lambda: python_get_positions(robot, m),
                                                        lambda: python_get_positions(robot, m, out)))
    rows.append((f"TALOS ({robot.num_positions()} q): get_positions()", py_q, cpp_q))
    rows.append((f"TALOS ({robot.num_positions()} q): get_positions(out)", py_q_out, cpp_q))
    cpp_talos, py_talos = (t / 200 for t in interleaved(repeats, lambda: ext._time_steps(robot, 200),
                                                        lambda: python_steps(robot, 200)))
    rows.append(("TALOS: world.step() per call", py_talos, cpp_talos))

    print(f"{'call':<42} {'Python us':>10} {'C++ us':>10} {'overhead us':>12} {'ratio':>7}")
    for name, py, c in rows:
        print(f"{name:<42} {py * 1e6:10.3f} {c * 1e6:10.3f} {(py - c) * 1e6:12.3f} {py / c:7.2f}")
    overhead = (py_loop - cpp) * 1e6
    print(f"world.step() overhead per call: {overhead:.3f} us (target <= 1 us): "
          f"{'met' if overhead <= 1.0 else 'MISSED'}")


if __name__ == "__main__":
    main()

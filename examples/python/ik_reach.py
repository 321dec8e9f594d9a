"""Inverse kinematics: an arm's tool reaches a sequence of targets.

    python3 ik_reach.py [URDF --package-path DIR --tool FRAME]
"""
import argparse
import os
import pathlib

import numpy as np

import articula


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("urdf", nargs="?")
    parser.add_argument("--package-path", action="append", default=[])
    parser.add_argument("--tool", default="tool0", help="the link that reaches (name of a link)")
    args = parser.parse_args()
    if args.urdf:
        urdf, packages = pathlib.Path(args.urdf), args.package_path
    else:
        models = pathlib.Path(os.environ.get("ARTICULA_MODELS_DIR", "../shared/models"))
        urdf = models / "example-robot-data" / "robots" / "ur_description" / "urdf" / "ur5_robot.urdf"
        packages = [urdf.parents[3]]

    world = articula.io.load(urdf, package_paths=packages)
    tool = next(link for mb in world.get_multibodies() for link in mb.get_links()
                if link.name.split("/")[-1] == args.tool)
    if world.num_positions() == 6 and args.tool == "tool0":
        world.set_positions(np.array([0.0, -1.2, 1.6, -1.9, -1.57, 0.0]))  # elbow up, away from singularities
    home = tool.get_world_transform()
    ik = articula.InverseKinematics(world)
    task = ik.add_pose_task(tool, home)

    worst = 0.0
    for k, offset in enumerate(([0.1, 0.0, 0.0], [0.0, 0.1, 0.05], [-0.05, -0.1, 0.1], [0.0, 0.0, -0.1])):
        target = home.copy()
        target[:3, 3] += offset
        target[:3, :3] = articula.rotation_about([0, 0, 1], 0.3 * k) @ home[:3, :3]
        ik.set_target(task, target)
        result = ik.solve()
        reached = tool.get_world_transform()
        error = np.linalg.norm(reached[:3, 3] - target[:3, 3])
        worst = max(worst, error)
        print(f"target {k}: converged={result.converged} in {result.iterations} iterations, "
              f"position error {error:.2e} m, q = {np.array2string(world.get_positions(), precision=3)}")
        if not result.converged:
            raise SystemExit(f"target {k} not reached: {result.message}")
    print(f"worst position error {worst:.2e} m")


if __name__ == "__main__":
    main()

"""Record a run, go back to a frame, and branch: the replayed steps are bit-identical,
a changed control makes a different future.

    python3 record_restore_branch.py [SCENE] [--out run.replay]
"""
import argparse
import os
import pathlib

import numpy as np

import articula


def main():
    source = pathlib.Path(os.environ.get("ARTICULA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scene", nargs="?", default=str(source / "scenes" / "servo_arm.articula"))
    parser.add_argument("--out", default="run.replay")
    args = parser.parse_args()

    world = articula.io.load(args.scene)
    recorder = articula.Recorder(world)
    world.step(1000)
    q_first = world.get_positions()
    recording = recorder.recording()
    print(f"recorded {len(recording)} frames, {recording.stats().stored_bytes} bytes")

    # Back to step 500, then the same 500 steps again: bit for bit the same end.
    recorder.restore(500)
    world.step(500)
    same = np.array_equal(world.get_positions(), q_first)
    print(f"restore(500) + 500 steps reproduces the end bit for bit: {same}")

    # Back again, and a branch where a Python controller overrides the schedules
    # (a controller runs after them, before every step).
    recorder.restore(500)

    def hold_shoulder_low(t, q, v, controls):
        controls[0] = -1.0

    world.set_controller(hold_shoulder_low)
    world.step(500)
    print(f"the branch ends {np.linalg.norm(world.get_positions() - q_first):.3f} rad away")

    recorder.recording().save(args.out)
    again = articula.Recording.load(args.out)
    print(f"saved {args.out}: {len(again)} frames")
    if not same:
        raise SystemExit("the restored run did not reproduce the recording")


if __name__ == "__main__":
    main()

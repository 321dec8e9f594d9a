"""Render frames of a recorded run offscreen into NumPy images and save them as PNG.
Needs an X display (xvfb-run python3 render_replay_frame.py).

    python3 render_replay_frame.py [SCENE] [--out frames.png]
"""
import argparse
import os
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import articula  # noqa: E402


def main():
    source = pathlib.Path(os.environ.get("ARTICULA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scene", nargs="?", default=str(source / "scenes" / "box_stack.articula"))
    parser.add_argument("--out", default="frames.png")
    args = parser.parse_args()

    world = articula.io.load(args.scene)
    recorder = articula.Recorder(world)
    world.step(1000)
    recording = recorder.recording()
    picks = np.linspace(0, len(recording) - 1, 3).astype(int)
    images = [articula.render(recording, int(i), world, size=(480, 360)) for i in picks]
    strip = np.concatenate(images, axis=1)
    plt.imsave(args.out, strip)
    print(f"wrote {args.out}: frames {', '.join(str(recording.frame_info(int(i)).step) for i in picks)} "
          f"({strip.shape[1]}x{strip.shape[0]})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Reads a sweep's results (summary.h5 and one run's log) and prints, for
each parameter combination, its status and metrics; with --plot, draws the
first metric against the first parameter, one line per value of the second.

    python3 examples/sweeps/read_results.py examples/sweeps/arm_gains.sweep [--plot out.png]
"""
import argparse
import pathlib

import h5py
import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path, help="the sweep's output folder")
    parser.add_argument("--plot", type=pathlib.Path, help="write a plot to this PNG")
    args = parser.parse_args()
    with h5py.File(args.folder / "summary.h5", "r") as f:
        parameters = [str(n) for n in f["parameters"].attrs["columns"]]
        metrics = [str(n) for n in f["metrics"].attrs["columns"]]
        values = f["parameters"][...]
        results = f["metrics"][...]
        status = f["status"][...].astype(str)
        runs = f["run"][...]
    print("  ".join(["run", "status"] + parameters + metrics))
    for i, run in enumerate(runs):
        cells = [str(run), status[i]] + [f"{x:g}" for x in values[i]] + [f"{x:.6g}" for x in results[i]]
        print("  ".join(cells))
    # One run's trajectory, from its own log.
    with h5py.File(args.folder / "runs" / f"{runs[0]:05d}.h5", "r") as f:
        q = f["q"]
        print(f"run {runs[0]}: {f['t'].shape[0]} rows, {q.shape[1]} coordinates "
              f"({', '.join(str(c) for c in q.attrs['columns'])}), status {f.attrs['status']}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        second = np.unique(values[:, 1]) if values.shape[1] > 1 else [None]
        for v in second:
            rows = np.ones(len(runs), bool) if v is None else values[:, 1] == v
            label = None if v is None else f"{parameters[1]} = {v:g}"
            ax.plot(values[rows, 0], results[rows, 0], "o-", label=label)
        ax.set_xlabel(parameters[0])
        ax.set_ylabel(metrics[0])
        if second[0] is not None:
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Throughput of articula-run sweep: the same runs as a local sweep with
--jobs 1 and --jobs N (default: the cores), and one by one as separate
`articula-run run` commands (what a shell loop does). Prints the wall times
and the ratios; docs/performance.md ("Sweeps") records the figures.

    tests/benchmarks/bench_sweep.py [--runs 8] [--duration 2] [--quick] [--tool build/ci/app/run/articula-run]
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default=os.environ.get("ARTICULA_RUN", str(SOURCE / "build/ci/app/run/articula-run")))
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds per run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--quick", action="store_true", help="a short smoke run (CTest)")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.duration = 4, 0.2
    scene = SOURCE / "scenes" / "box_stack.articula"
    dampings = [f"{0.1 * k:g}" for k in range(args.runs)]
    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    try:
        sweep = folder / "sweep.yaml"
        sweep.write_text(f"scene: {scene}\nduration: {args.duration}\nparameters:\n"
                         f"  material.friction: [{', '.join(dampings)}]\n"
                         "metrics: [final:q:box3:2, energy-drift]\n")

        def timed(argv):
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
            return time.perf_counter() - t0

        # One by one, as a shell loop would run them (each writes its HDF5 log too).
        t0 = time.perf_counter()
        for k, d in enumerate(dampings):
            subprocess.run([args.tool, "run", str(scene), "--duration", str(args.duration), "--param",
                            f"material.friction={d}", "--hdf5", str(folder / f"one-{k}.h5"), "--quiet"],
                           check=True, stdout=subprocess.DEVNULL)
        one_by_one = time.perf_counter() - t0
        serial = timed([args.tool, "sweep", str(sweep), "--out", str(folder / "serial"), "--jobs", "1", "--quiet"])
        parallel = timed([args.tool, "sweep", str(sweep), "--out", str(folder / "parallel"), "--jobs",
                          str(args.jobs), "--quiet"])
        same = (folder / "serial" / "summary.csv").read_bytes() == (folder / "parallel" / "summary.csv").read_bytes()
        print(f"{args.runs} runs of {scene.name}, {args.duration:g} s each, {os.cpu_count()} cores")
        print(f"  one by one (articula-run run in a loop): {one_by_one:8.3f} s")
        print(f"  sweep --jobs 1:                           {serial:8.3f} s  ({one_by_one / serial:.2f}x one by one)")
        print(f"  sweep --jobs {args.jobs}:                           {parallel:8.3f} s  "
              f"({one_by_one / parallel:.2f}x one by one, {serial / parallel:.2f}x --jobs 1)")
        print(f"  summaries of --jobs 1 and --jobs {args.jobs} identical: {same}")
        if not same:
            raise SystemExit("the summaries differ")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

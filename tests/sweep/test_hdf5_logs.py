"""HDF5 run logs (articula-run run --hdf5): the same numbers as the CSV of the
same run, read back with h5py and with h5dump; attributes; chunking and
compression; atomic output."""
import csv
import hashlib
import json
import subprocess

import h5py
import numpy as np
import pytest

from conftest import run, same, scene


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    return header, [[float(x) for x in r] for r in rows[1:]]


def h5_columns(f):
    """column name -> 1-D array, from every dataset of a log."""
    columns = {}
    for name, ds in f.items():
        data = ds[...]
        names = [str(n) for n in ds.attrs["columns"]]
        if data.ndim == 1:
            columns[names[0]] = data
        else:
            for k, n in enumerate(names):
                columns[n] = data[:, k]
    return columns


@pytest.mark.parametrize("name,log", [("servo_arm.articula", None), ("box_stack.articula", "all"),
                                      ("four_bar.articula", "residuals,reactions,joint-forces")])
def test_log_equals_csv_bit_for_bit(run_tool, tmp_path, name, log):
    extra = ["--log", log] if log else []
    run(run_tool, "run", scene(name), "--duration", "0.25", "--every", "3", "--csv", tmp_path / "a.csv",
        "--hdf5", tmp_path / "a.h5", "--quiet", *extra)
    header, rows = read_csv(tmp_path / "a.csv")
    with h5py.File(tmp_path / "a.h5", "r") as f:
        columns = h5_columns(f)
        assert [str(n) for n in f.attrs["columns"]][: len(header)] == header
    assert len(rows) == 250 // 3 + 1
    for k, name_ in enumerate(header):
        logged = columns[name_]
        assert len(logged) == len(rows)
        for i, row in enumerate(rows):
            assert same(float(logged[i]), row[k]), f"{name_} row {i}: {logged[i]!r} != {row[k]!r}"
    # The log adds energies and the step diagnostics.
    for extra_column in ("energy:kinetic", "energy:potential", "energy:total", "diagnostics:contacts",
                         "diagnostics:iterations", "diagnostics:residual", "diagnostics:converged"):
        assert extra_column in columns
    np.testing.assert_array_equal(columns["energy:total"], columns["energy:kinetic"] + columns["energy:potential"])


def test_h5dump_reads_the_same_numbers(run_tool, tmp_path):
    run(run_tool, "run", scene("servo_arm.articula"), "--duration", "0.1", "--csv", tmp_path / "a.csv",
        "--hdf5", tmp_path / "a.h5", "--quiet")
    header, rows = read_csv(tmp_path / "a.csv")
    for dataset, prefix in (("q", "q:"), ("ctrl", "ctrl:"), ("force", "force:")):
        out = subprocess.run(["h5dump", "-d", "/" + dataset, "-m", "%.17g", "-y", "-w", "0", str(tmp_path / "a.h5")],
                             capture_output=True, text=True, check=True).stdout
        start = out.index("DATA {") + len("DATA {")
        body = out[start: out.index("}", start)]
        values = [float(x) for x in body.replace(",", " ").split()]
        names = [n for n in header if n.startswith(prefix)]
        assert names, dataset
        expected = [row[header.index(n)] for row in rows for n in names]
        assert len(values) == len(expected)
        assert all(same(a, b) for a, b in zip(values, expected))
    # The column names are in the dump too.
    out = subprocess.run(["h5dump", "-a", "/q/columns", str(tmp_path / "a.h5")], capture_output=True, text=True,
                         check=True).stdout
    assert '"q:shoulder"' in out and '"q:elbow"' in out


def test_attributes_name_the_run(run_tool, tmp_path):
    path = scene("servo_arm.articula")
    run(run_tool, "run", path, "--duration", "0.05", "--dt", "0.0005", "--hdf5", tmp_path / "a.h5", "--quiet")
    with h5py.File(tmp_path / "a.h5", "r") as f:
        attrs = dict(f.attrs)
        assert attrs["scene_path"] == str(path.resolve())
        assert attrs["scene_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert attrs["engine_version"].count(".") == 2
        assert "--dt 0.0005" in attrs["command_line"] and attrs["command_line"].startswith("articula-run run ")
        options = json.loads(attrs["options"])
        assert options["time_step"] == 0.0005
        assert options["integrator"] == "semi-implicit-euler"
        assert options["gravity"] == [0, 0, -9.81]
        assert attrs["status"] == "ok" and attrs["steps"] == "100"
        assert f["t"].shape == (101,)
        assert f["t"][-1] == pytest.approx(0.05, abs=1e-15)
        q = f["q"]
        assert q.chunks is not None and q.compression == "gzip" and q.shuffle
        assert q.maxshape == (None, 2)


def test_builtin_scene_and_every(run_tool, tmp_path):
    run(run_tool, "run", "--scene", "double-pendulum", "--steps", "1000", "--every", "7", "--hdf5",
        tmp_path / "a.h5", "--quiet")
    with h5py.File(tmp_path / "a.h5", "r") as f:
        assert f.attrs["scene_path"] == "builtin:double-pendulum"
        assert f.attrs["scene_sha256"] == ""
        assert f["t"].shape == (1000 // 7 + 1,)
        np.testing.assert_allclose(np.diff(f["t"][...]), 0.007, rtol=1e-9)


def test_output_is_atomic(run_tool, tmp_path):
    target = tmp_path / "a.h5"
    target.write_bytes(b"previous")
    # A run that fails before its first step leaves the previous file.
    run(run_tool, "run", scene("servo_arm.articula"), "--hdf5", target, "--set", "nosuch=1", "--quiet", expect=2)
    assert target.read_bytes() == b"previous"
    run(run_tool, "run", scene("servo_arm.articula"), "--duration", "0.01", "--hdf5", target, "--quiet")
    with h5py.File(target, "r") as f:
        assert f["t"].shape == (11,)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.h5"]  # no temporary file left


def test_diverged_run_logs_its_last_good_state(run_tool, tmp_path):
    p = run(run_tool, "run", "--scene", "double-pendulum", "--dt", "0.5", "--steps", "5", "--csv", tmp_path / "a.csv",
            "--hdf5", tmp_path / "a.h5", "--quiet", expect=3)
    assert "diverged=1" in p.stdout
    header, rows = read_csv(tmp_path / "a.csv")
    with h5py.File(tmp_path / "a.h5", "r") as f:
        assert f.attrs["status"].startswith("diverged at step 1")
        assert f["q"].shape[0] == len(rows)
        np.testing.assert_array_equal(f["q"][-1], rows[-1][1:3])


def test_log_needs_an_output_and_refuses_a_clash(run_tool, tmp_path):
    p = run(run_tool, "run", "--scene", "double-pendulum", "--log", "all", expect=2)
    assert "--csv OUT.csv or --hdf5 OUT.h5" in p.stderr
    p = run(run_tool, "run", "--scene", "double-pendulum", "--csv", tmp_path / "a", "--hdf5", tmp_path / "a", expect=2)
    assert "--csv and --hdf5 name the same file" in p.stderr


def test_killed_run_leaves_the_previous_file(run_tool, tmp_path):
    import signal
    import time
    target = tmp_path / "a.h5"
    target.write_bytes(b"previous")
    p = subprocess.Popen([run_tool, "run", scene("servo_arm.articula"), "--duration", "100000", "--hdf5", str(target),
                          "--quiet"])
    time.sleep(1.0)
    assert p.poll() is None, "the run ended before it was killed"
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert target.read_bytes() == b"previous"

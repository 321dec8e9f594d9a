"""articula.io from Python, and a Python-stepped run against articula-run's CSV, bit for bit."""
import csv
import subprocess

import numpy as np
import pytest

import articula
from conftest import robot, scene


def python_trajectory(world, steps):
    """Rows t, q..., v... as articula-run run --csv writes them (the initial state first)."""
    world.enter_simulation_mode()
    rows = [np.concatenate(([world.get_time()], world.get_positions(), world.get_velocities()))]
    for _ in range(steps):
        world.step()
        rows.append(np.concatenate(([world.get_time()], world.get_positions(), world.get_velocities())))
    return np.array(rows)


def runner_trajectory(run_tool, tmp_path, path, steps, extra=()):
    out = tmp_path / "run.csv"
    subprocess.run([run_tool, "run", str(path), "--steps", str(steps), "--csv", str(out), "--quiet", *extra],
                   check=True)
    with open(out, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        keep = [i for i, name in enumerate(header) if name == "t" or name.startswith(("q:", "v:"))]
        # float() of the shortest round-trip text gives the double back exactly
        return np.array([[float(row[i]) for i in keep] for row in reader]), [header[i] for i in keep]


@pytest.mark.parametrize("name", ["four_bar.articula", "servo_arm.articula", "box_stack.articula"])
def test_shipped_scene_matches_the_runner_bit_for_bit(run_tool, tmp_path, name):
    expected, header = runner_trajectory(run_tool, tmp_path, scene(name), 400)
    got = python_trajectory(articula.io.load(scene(name)), 400)
    assert got.shape == expected.shape
    assert np.array_equal(got, expected), np.max(np.abs(got - expected))
    world = articula.io.load(scene(name))
    assert len(header) == 1 + world.num_positions() + world.num_dofs()


def test_shared_robot_matches_the_runner_bit_for_bit(run_tool, tmp_path):
    urdf = robot("ur_description/urdf/ur5_robot.urdf")
    packages = urdf.parents[3]
    expected, _ = runner_trajectory(run_tool, tmp_path, urdf, 300, ["--package-path", str(packages)])
    got = python_trajectory(articula.io.load(urdf, package_paths=[packages]), 300)
    assert np.array_equal(got, expected)


def test_load_with_report_and_options():
    urdf = robot("ur_description/urdf/ur5_robot.urdf")
    world, report = articula.io.load_with_report(urdf, package_paths=[urdf.parents[3]],
                                                 root=articula.io.RootAttachment.FLOATING, add_ground_plane=True)
    assert isinstance(report, articula.io.ImportReport) and report.format == "urdf"
    assert report.num_meshes_loaded > 0
    assert isinstance(report.summary(), str) and report.to_json().startswith("{")
    assert world.num_dofs() == 6 + 6
    assert world.get_shape("ground") is not None


def test_import_errors_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="r">\n  <link name="a">\n    <inertial><mass value="-1"/></inertial>\n'
                   '  </link>\n</robot>\n')
    with pytest.raises(articula.io.ImportError) as info:
        articula.io.load(bad)
    assert "bad.urdf" in str(info.value)
    assert isinstance(info.value, articula.Error)
    with pytest.raises(articula.Error, match="no-such-file"):
        articula.io.load(tmp_path / "no-such-file.urdf")


def test_save_and_load_scene_round_trip(tmp_path):
    world = articula.io.load(scene("servo_arm.articula"))
    out = tmp_path / "copy.articula"
    articula.io.save_scene(world, out)
    assert out.read_text() == articula.io.scene_to_string(world)
    again = articula.io.load(out)
    assert again.get_spec() == world.get_spec()
    text = articula.io.scene_to_string(world)
    assert articula.io.load_scene_string(text).get_spec() == world.get_spec()

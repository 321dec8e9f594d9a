"""The Python examples run (examples/python), as a user would run them."""
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR, robot

EXAMPLES = SOURCE_DIR / "examples" / "python"


def run(script, tmp_path, *args):
    result = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=tmp_path, capture_output=True,
                            text=True, timeout=600, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_pendulum_energy(tmp_path):
    out = run("pendulum_energy.py", tmp_path, "--seconds", "2")
    assert (tmp_path / "pendulum_energy.png").stat().st_size > 10000
    assert "RUNGE_KUTTA_4" in out


def test_servo_robot_torques(tmp_path):
    robot("ur_description/urdf/ur5_robot.urdf")
    out = run("servo_robot_torques.py", tmp_path, "--seconds", "1")
    assert "6 position servos" in out
    assert (tmp_path / "servo_torques.png").exists()


def test_ik_reach(tmp_path):
    robot("ur_description/urdf/ur5_robot.urdf")
    out = run("ik_reach.py", tmp_path)
    assert out.count("converged=True") == 4


def test_record_restore_branch(tmp_path):
    out = run("record_restore_branch.py", tmp_path)
    assert "bit for bit: True" in out
    assert (tmp_path / "run.replay").exists()


def test_render_replay_frame(tmp_path):
    out = run("render_replay_frame.py", tmp_path)
    assert (tmp_path / "frames.png").stat().st_size > 10000, out


def test_parameter_study(tmp_path):
    out = run("parameter_study.py", tmp_path)
    assert "best:" in out

"""Shared fixtures of the run-log and sweep tests (CTest: tests/sweep)."""
import math
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("ARTICULA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def scene(name):
    """A shipped scene (scenes/NAME)."""
    return SOURCE_DIR / "scenes" / name


@pytest.fixture
def run_tool():
    """articula-run of the same build."""
    path = os.environ.get("ARTICULA_RUN")
    if not path or not os.path.exists(path):
        pytest.fail("ARTICULA_RUN does not name the articula-run of this build")
    return path


def run(tool, *args, expect=0, cwd=None):
    """Runs articula-run; checks its exit code; returns the completed process."""
    p = subprocess.run([tool, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert p.returncode == expect, f"exit {p.returncode}, expected {expect}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def same(a, b):
    """Bit-for-bit equality of two floats (NaN equals NaN)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)

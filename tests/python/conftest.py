"""Shared fixtures of the articula pytest suite (run by CTest: tests/python)."""
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("ARTICULA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
MODELS_DIR = pathlib.Path(os.environ.get("ARTICULA_MODELS_DIR", SOURCE_DIR.parent / "shared" / "models"))
ROBOTS = MODELS_DIR / "example-robot-data" / "robots"


def scene(name):
    """A shipped scene (scenes/NAME)."""
    return SOURCE_DIR / "scenes" / name


def robot(relative):
    """A file of the real-robot models; missing models fail under CI=true and skip otherwise."""
    path = ROBOTS / relative
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing (ARTICULA_MODELS_DIR)")
        pytest.skip(f"{path} is missing (ARTICULA_MODELS_DIR)")
    return path


@pytest.fixture
def run_tool():
    """articula-run of the same build."""
    path = os.environ.get("ARTICULA_RUN")
    if not path or not os.path.exists(path):
        pytest.fail("ARTICULA_RUN does not name the articula-run of this build")
    return path

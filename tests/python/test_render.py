"""articula.render: offscreen images as NumPy arrays (runs under Xvfb)."""
import numpy as np
import pytest

import articula
from conftest import scene


def test_render_a_world_to_an_rgba_array():
    world = articula.io.load(scene("four_bar.articula"))
    image = articula.render(world, size=(320, 240))
    assert image.shape == (240, 320, 4) and image.dtype == np.uint8
    assert np.all(image[:, :, 3] == 255)
    colours = np.unique(image.reshape(-1, 4), axis=0)
    assert len(colours) > 8  # links, grid and background, not an empty frame
    # the crank is drawn in its colour (0.85, 0.3, 0.2)
    red = (image[:, :, 0] > 170) & (image[:, :, 1] < 120) & (image[:, :, 2] < 100)
    assert red.sum() > 20


def test_layers_and_cameras_change_the_picture():
    world = articula.io.load(scene("box_stack.articula"))
    iso = articula.render(world, size=(200, 150))
    top = articula.render(world, size=(200, 150), camera="top")
    assert not np.array_equal(iso, top)
    no_grid = articula.render(world, size=(200, 150), hide=["grid"])
    assert not np.array_equal(iso, no_grid)
    explicit = articula.render(world, size=(200, 150), camera="3,3,2:0,0,0.5")
    assert explicit.shape == (150, 200, 4)
    with pytest.raises(articula.InvalidArgument, match="unknown layer 'bogus'"):
        articula.render(world, layers=["bogus"])
    with pytest.raises(articula.InvalidArgument, match="camera"):
        articula.render(world, camera="nowhere")
    with pytest.raises(articula.InvalidArgument, match="pixels"):
        articula.render(world, size=(4, 4))


def test_render_a_recorded_frame():
    world = articula.io.load(scene("servo_arm.articula"))
    recorder = articula.Recorder(world)
    world.step(1500)
    recording = recorder.recording()
    first = articula.render(recording, 0, world, size=(240, 180), camera="front")
    assert world.get_frame_index() == 0
    last = articula.render(recording, len(recording) - 1, world, size=(240, 180), camera="front")
    assert world.get_frame_index() == 1500
    assert not np.array_equal(first, last)  # the arm moved
    again = articula.render(recording, 0, world, size=(240, 180), camera="front")
    assert np.array_equal(first, again)

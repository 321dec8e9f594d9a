"""Recorder and Recording from Python: restore, branch, arrays, replay files."""
import numpy as np
import pytest

import articula
from conftest import scene


def test_restore_and_branch_reproduce_the_run_bit_for_bit():
    world = articula.io.load(scene("box_stack.articula"))
    recorder = articula.Recorder(world)
    world.step(200)
    recording = recorder.recording()
    assert len(recording) == 201  # the state entering simulation mode, then every step
    q_end = world.get_positions()
    recorder.restore(100)
    assert world.get_frame_index() == 100
    world.step(100)  # a branch from frame 100 recomputes the same steps
    assert np.array_equal(world.get_positions(), q_end)
    assert len(recorder.recording()) == 201


def test_frames_as_arrays():
    world = articula.io.load(scene("servo_arm.articula"))
    recorder = articula.Recorder(world)
    q_seen = []
    world.add_step_observer(lambda w: q_seen.append(w.get_positions()))
    world.step(50)
    recording = recorder.recording()
    Q = recording.positions()
    assert Q.shape == (51, world.num_positions())
    assert np.array_equal(Q[1:], np.array(q_seen))
    assert recording.velocities().shape == (51, world.num_dofs())
    assert recording.controls().shape == (51, world.num_actuators())
    assert np.array_equal(recording.times(), [recording.frame_info(i).time for i in range(51)])
    assert list(recording.steps()) == list(range(51))


def test_replay_file_round_trip_restores_into_a_new_world(tmp_path):
    world = articula.io.load(scene("four_bar.articula"))
    recorder = articula.Recorder(world)
    world.step(120)
    path = tmp_path / "run.replay"
    recorder.recording().save(path)
    loaded = articula.Recording.load(path)
    assert len(loaded) == 121
    other = articula.io.load(scene("four_bar.articula"))
    loaded.restore(other, 60)
    other.step(60)
    assert np.array_equal(other.get_positions(), world.get_positions())
    data = loaded.to_bytes()
    assert len(articula.Recording.from_bytes(data)) == 121
    with pytest.raises(articula.ReplayFileError, match="broken"):
        articula.Recording.from_bytes(b"not a replay", "broken")
    with pytest.raises(articula.LayoutIncompatible):
        loaded.restore(articula.io.load(scene("servo_arm.articula")), 0)


def test_runtime_snapshots_restore_exactly():
    world = articula.io.load(scene("gear_pair.articula"))
    world.step(30)
    snapshot = world.capture_runtime_state()
    world.step(30)
    q = world.get_positions()
    world.restore_runtime_state(snapshot)
    world.step(30)
    assert np.array_equal(world.get_positions(), q)

"""articula.io.Hdf5Logger: a step observer writing an HDF5 run log, read back with h5py."""
import h5py
import numpy as np
import pytest

import articula
from conftest import scene


def test_logger_records_every_kth_step(tmp_path):
    world = articula.io.load(scene("servo_arm.articula"))
    world.enter_simulation_mode()
    qs, ts = [world.get_positions()], [world.get_time()]
    path = tmp_path / "run.h5"
    with articula.io.Hdf5Logger(world, path, every=4, chunk_rows=8) as log:
        for k in range(1, 101):
            world.step()
            if k % 4 == 0:
                qs.append(world.get_positions())
                ts.append(world.get_time())
        assert log.rows == 26
        assert not path.exists()  # in place only once closed
        columns = log.columns
    assert columns[:3] == ["t", "q:shoulder", "q:elbow"]
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["t"][...], ts)
        np.testing.assert_array_equal(f["q"][...], np.array(qs))
        assert [str(c) for c in f["ctrl"].attrs["columns"]] == ["ctrl:shoulder_servo", "ctrl:elbow_pid"]
        e = f["energy"][...]
        assert e.shape == (26, 3)
        assert e[-1, 0] == pytest.approx(world.compute_kinetic_energy(), rel=1e-12)


def test_logger_discarded_on_error_leaves_nothing(tmp_path):
    world = articula.io.load(scene("servo_arm.articula"))
    world.enter_simulation_mode()
    path = tmp_path / "run.h5"
    with pytest.raises(RuntimeError):
        with articula.io.Hdf5Logger(world, path) as log:
            world.step(10)
            raise RuntimeError("stop")
    del log
    import gc
    gc.collect()
    world.step(5)  # detached: the world steps on without it
    assert list(tmp_path.iterdir()) == []


def test_bad_groups_and_paths(tmp_path):
    world = articula.io.load(scene("servo_arm.articula"))
    with pytest.raises(articula.InvalidArgument, match="unknown group 'colour'"):
        articula.io.Hdf5Logger(world, tmp_path / "a.h5", groups="colour")
    with pytest.raises(articula.FileAccessError):
        articula.io.Hdf5Logger(world, tmp_path / "missing" / "a.h5")

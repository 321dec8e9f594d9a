"""Handles keep their world alive; stale handles raise; many small calls do not leak."""
import gc
import os
import weakref

import numpy as np
import pytest

import articula
from conftest import scene


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_handles_keep_the_world_alive():
    world = articula.io.load(scene("four_bar.articula"))
    ref = weakref.ref(world)
    link = world.get_multibody("four_bar").get_link("rocker")
    joints = world.get_multibody("four_bar").get_joints()
    del world
    gc.collect()
    assert ref() is not None  # held by the link
    assert link.get_world_transform().shape == (4, 4)
    assert joints[0].get_position() == pytest.approx(-1.0)
    del link, joints
    gc.collect()
    assert ref() is None  # and freed with the last handle


def test_values_holding_handles_keep_the_world_alive():
    world = articula.io.load(scene("box_stack.articula"))
    world.step(50)
    contacts = world.get_contacts()
    hit = world.raycast([0, 0, 5], [0, 0, -1])
    ref = weakref.ref(world)
    del world
    gc.collect()
    assert ref() is not None
    assert contacts[0].frame_a.is_valid() or contacts[0].frame_a.is_world()
    assert hit.body.name == "box9"


def test_cleared_or_removed_objects_raise_instead_of_crashing():
    world = articula.io.load(scene("servo_arm.articula"))
    link = world.get_multibody("arm").get_links()[-1]
    joint = link.get_parent_joint()
    actuator = world.get_actuators()[0]
    world.clear()
    for call in (link.get_world_transform, joint.get_position, actuator.get_control, link.get_jacobian):
        with pytest.raises(articula.InvalidHandle):
            call()
    assert not link.is_valid()
    assert repr(link) == "Link(<invalid>)"


def test_a_million_small_calls_do_not_leak():
    world = articula.io.load(scene("four_bar.articula"))
    link = world.get_multibody("four_bar").get_link("rocker")
    out = np.empty(world.num_positions())

    def burst(n):
        for _ in range(n):
            world.get_time()
            world.get_positions(out)
            link.is_valid()
            world.get_frame("four_bar/crank")

    burst(20000)
    gc.collect()
    before = rss_bytes()
    for _ in range(10):
        burst(25000)  # 10 x 25 000 x 4 = 10^6 calls
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 2 << 20, f"RSS grew by {grown} bytes over 10^6 calls"

"""Articula: articulated rigid-body dynamics with first-class loop closures.

The C++ facade in snake_case::

    import articula
    world = articula.io.load("robot.urdf", package_paths=["/opt/robots"])
    world.step(1000)                 # the GIL is released while stepping
    q = world.get_positions()        # a NumPy array

Transforms are 4x4 NumPy arrays, spatial vectors [angular; linear]. Handles
(RigidBody, Link, Joint, ...) keep their World alive; after their object is
removed, or World.clear(), they raise InvalidHandle. Errors are the C++
exception classes under the same names, all deriving from articula.Error.
See docs/python.md.
"""

from ._articula import *  # noqa: F401,F403
from ._articula import __version__  # noqa: F401
from . import io  # noqa: F401

import numpy as _np


def transform(rotation=None, translation=None):
    """A 4x4 homogeneous transform from a 3x3 rotation and a translation."""
    t = _np.eye(4)
    if rotation is not None:
        t[:3, :3] = _np.asarray(rotation, dtype=float)
    if translation is not None:
        t[:3, 3] = _np.asarray(translation, dtype=float)
    return t


def rotation_about(axis, angle):
    """The 3x3 rotation by `angle` radians about `axis` (Rodrigues)."""
    a = _np.asarray(axis, dtype=float)
    a = a / _np.linalg.norm(a)
    k = _np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return _np.eye(3) + _np.sin(angle) * k + (1.0 - _np.cos(angle)) * (k @ k)

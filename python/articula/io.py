"""Reading and writing files: URDF, SDF and Articula scenes.

    world = articula.io.load("robot.urdf", package_paths=["/opt/robots"])
    world, report = articula.io.load_with_report("world.sdf", add_ground_plane=True)
    articula.io.save_scene(world, "robot.articula")

Errors in a file raise articula.io.ImportError naming the file, the line and
what was expected (it derives from articula.Error, not from the built-in
ImportError).
"""

from ._articula import io as _io

globals().update({name: getattr(_io, name) for name in dir(_io) if not name.startswith("__")})
__all__ = [name for name in dir(_io) if not name.startswith("_")]
del _io

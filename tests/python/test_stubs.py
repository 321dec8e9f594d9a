"""The type stubs next to the built module parse and cover the API."""
import ast
import pathlib

import articula


def stub(name):
    path = pathlib.Path(articula.__file__).parent / name
    assert path.exists(), f"{path} was not generated"
    return ast.parse(path.read_text(), str(path))


def classes(tree):
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def methods(node):
    return {n.name for n in node.body if isinstance(n, ast.FunctionDef)}


def test_core_stub_covers_the_bound_classes():
    tree = stub("_articula.pyi")
    found = classes(tree)
    for name in ("World", "Frame", "Link", "Joint", "Multibody", "RigidBody", "Shape", "LoopClosure",
                 "JointCoupler", "Actuator", "Sensor", "WorldSpec", "Recording", "Recorder", "InverseKinematics",
                 "Error", "InvalidHandle", "JointType"):
        assert name in found, name
    assert {"step", "get_positions", "set_controller", "add_step_observer"} <= methods(found["World"])
    assert [b.id for b in found["Link"].bases] == ["Frame"]
    step = next(n for n in found["World"].body if isinstance(n, ast.FunctionDef) and n.name == "step")
    assert [a.arg for a in step.args.args] == ["self", "n"]
    assert ast.get_docstring(step)
    # every public name of the module has a stub
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    missing = [n for n in dir(articula._articula) if not n.startswith("_") and n not in names and n != "io"]
    assert not missing, missing


def test_io_stub():
    tree = stub("io.pyi")
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"load", "load_with_report", "save_scene", "import_file"} <= functions
    assert "ImportReport" in classes(tree)

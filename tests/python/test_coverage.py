"""Every class and function the module binds is exercised by some test of this suite."""
import inspect
import pathlib

import articula
from articula import _articula

HERE = pathlib.Path(__file__).parent


def test_every_bound_name_is_used_by_a_test():
    text = "\n".join(p.read_text() for p in HERE.glob("test_*.py") if p.name != "test_coverage.py")
    missing = []
    for module, prefix in ((_articula, "articula."), (_articula.io, "articula.io.")):
        for name in dir(module):
            if name.startswith("_") or name == "io":
                continue
            value = getattr(module, name)
            if inspect.isclass(value) and name.endswith("List"):
                continue  # the spec lists, exercised through WorldSpec
            if name not in text:
                missing.append(prefix + name)
    assert not missing, "bound but never used in tests/python: " + ", ".join(missing)

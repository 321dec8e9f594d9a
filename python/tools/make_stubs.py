"""Writes type stubs (_articula.pyi, io.pyi) for the built articula module.

    PYTHONPATH=build/ci/python python3 make_stubs.py build/ci/python/articula

The signatures come from the module itself (pybind11 puts them on the first
lines of every docstring); the docstrings are kept. Editors then complete
and type-check articula code.
"""
import inspect
import os
import re
import sys

import articula._articula as ext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpp_docs  # noqa: E402

# The C++ comments, for members the bindings give no docstring of their own.
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPP_DOCS = cpp_docs.load([os.path.join(SOURCE, d) for d in ("engine/include/articula", "io/include/articula/io",
                                                             "viewer/include/articula/viewer")])

HEADER = '"""Type stubs of articula._articula (generated from the built module)."""\n' \
         "from __future__ import annotations\n\nimport os\nimport typing\nfrom typing import Any, Callable, Dict, " \
         "Iterable, Iterator, List, Optional, Sequence, Tuple, Union, overload\n\nimport numpy\n"


def drop_brackets(text, word):
    """word[...] (brackets nested) becomes word."""
    out = ""
    i = 0
    while True:
        j = text.find(word + "[", i)
        if j < 0:
            return out + text[i:]
        out += text[i:j] + word
        depth = 0
        k = j + len(word)
        while k < len(text):
            depth += {"[": 1, "]": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                break
        i = k


def clean_type(text):
    text = drop_brackets(text, "numpy.ndarray")
    text = text.replace("articula._articula.io.", "").replace("articula._articula.", "")
    text = text.replace("numpy.float64", "float")
    # C++ types pybind11 could not name
    while re.search(r"<[^<>]*>", text):
        text = re.sub(r"<[^<>]*>", "", text)
    text = re.sub(r"[A-Za-z_][\w]*(::[A-Za-z_][\w]*)+ *", "Any", text)
    return text


def clean_signature(sig):
    # Defaults printed as reprs of objects become "...".
    sig = re.sub(r"=\s*<[^<>]*>", "= ...", sig)
    sig = re.sub(r"= [A-Za-z_][\w.]*\([^()]*\)", "= ...", sig)
    sig = re.sub(r"=\s*array\(\[[^\]]*\]\)", "= ...", sig)
    sig = re.sub(r"=\s*\[[^\]]*\]", "= ...", sig)
    sig = re.sub(r"=\s*\([^()]*\)", "= ...", sig)
    sig = re.sub(r"=\s*(inf|nan)\b", "= ...", sig)
    sig = re.sub(r"=\s*[A-Z][A-Za-z_]*\.[A-Z_][A-Z_0-9]*", "= ...", sig)
    return clean_type(sig)


def signatures(obj, name):
    """(signature, doc) pairs of a pybind11 function, one per overload."""
    doc = obj.__doc__ or ""
    lines = doc.strip().splitlines()
    out = []
    if lines and lines[0].startswith(name + "(") and not (len(lines) > 1 and lines[1] == "Overloaded function."):
        out.append((lines[0], "\n".join(lines[1:]).strip()))
        return out
    # Overloaded: "1. name(...) -> T" blocks.
    current = None
    for line in lines:
        m = re.match(r"^\d+\. (" + re.escape(name) + r"\(.*)$", line)
        if m:
            if current:
                out.append((current[0], "\n".join(current[1]).strip()))
            current = (m.group(1), [])
        elif current is not None:
            current[1].append(line)
    if current:
        out.append((current[0], "\n".join(current[1]).strip()))
    return out


def docstring(text, indent):
    text = text.replace("\\", "\\\\").replace('"""', "'''").strip()
    if text.startswith('"'):
        text = " " + text
    if text.endswith('"'):
        text = text + " "
    return indent + '    """' + text + '"""\n' + indent + "    ...\n"


def emit_function(name, obj, indent, is_method, owner=None):
    sigs = signatures(obj, name)
    cpp = CPP_DOCS.get((owner, name)) if owner else None
    if cpp and sigs and not any(doc for _, doc in sigs):
        sigs[0] = (sigs[0][0], cpp)
    text = ""
    if not sigs:
        if name == "__init__":
            return ""  # no constructor from Python
        args = "self, *args, **kwargs" if is_method else "*args, **kwargs"
        return f"{indent}def {name}({args}) -> Any: ...\n"
    for sig, doc in sigs:
        sig = clean_signature(sig)
        m = re.match(r"^(\w+)\((.*)\)( -> (.*))?$", sig)
        if not m:
            continue
        params = m.group(2)
        ret = m.group(4) or "None"
        if is_method:
            params = re.sub(r"^self(: [^,]*)?", "self", params)
        if len(sigs) > 1:
            text += f"{indent}@overload\n"
        if not is_method and indent:
            text += f"{indent}@staticmethod\n"
        text += f"{indent}def {name}({params}) -> {ret}:"
        if doc:
            text += "\n" + docstring(doc, indent)
        else:
            text += " ...\n"
    return text


def emit_class(name, cls):
    bases = [b.__name__ for b in cls.__bases__ if b.__name__ not in ("pybind11_object", "object")]
    exc = issubclass(cls, BaseException)
    base_text = ", ".join(bases) if bases else ("Exception" if exc else "")
    text = f"class {name}({base_text}):\n" if base_text else f"class {name}:\n"
    if cls.__doc__ and not exc:
        text += '    """' + cls.__doc__.strip().replace('"""', "'''") + '"""\n'
    body = ""
    members = cls.__dict__
    if "__members__" in members:  # pybind11 enum
        for value in cls.__members__:
            body += f"    {value}: {name}\n"
        body += f"    def __init__(self, value: int) -> None: ...\n    def __int__(self) -> int: ...\n" \
                f"    @property\n    def name(self) -> str: ...\n    @property\n    def value(self) -> int: ...\n"
        return text + body + "\n"
    for attr, value in members.items():
        if inspect.isclass(value) and not attr.startswith("_"):  # nested enum (ScheduleSpec.Kind)
            body += "".join("    " + line + "\n" for line in emit_class(attr, value).splitlines() if line)
            continue
        if attr.startswith("__") and attr not in ("__init__", "__len__", "__eq__", "__bool__", "__getitem__",
                                                    "__setitem__", "__iter__", "__contains__", "__str__"):
            continue
        if isinstance(value, property):
            getter_doc = (value.fget.__doc__ or "") if value.fget else ""
            m = re.search(r"-> ([^\n]*)", getter_doc)
            typ = clean_type(m.group(1)) if m else "Any"
            own = value.__doc__ if value.__doc__ and "->" not in value.__doc__ else None
            cpp = own or CPP_DOCS.get((name, attr))
            if cpp:
                body += f"    @property\n    def {attr}(self) -> {typ}:\n" + docstring(cpp, "    ")
            else:
                body += f"    @property\n    def {attr}(self) -> {typ}: ...\n"
            if value.fset is not None:
                body += f"    @{attr}.setter\n    def {attr}(self, value: {typ}) -> None: ...\n"
        elif isinstance(value, staticmethod) or type(value).__name__ == "builtin_function_or_method":
            body += emit_function(attr, getattr(cls, attr), "    ", False)
        elif type(value).__name__ in ("instancemethod", "function") or callable(value):
            func = getattr(cls, attr)
            if inspect.isclass(func):
                continue
            body += emit_function(attr, func, "    ", True)
    if not body:
        body = "    ...\n"
    return text + body + "\n"


def emit_module(module, skip=()):
    text = HEADER
    classes = []
    functions = []
    for name in sorted(dir(module)):
        if name.startswith("__") or name in skip:
            continue
        value = getattr(module, name)
        if inspect.isclass(value):
            classes.append((name, value))
        elif callable(value):
            functions.append((name, value))
        elif isinstance(value, (int, float, str)):
            text += f"{name}: {type(value).__name__}\n"
    # Bases before subclasses.
    ordered = []
    pending = dict(classes)
    while pending:
        for name, cls in list(pending.items()):
            if not any(b.__name__ in pending and b.__name__ != name for b in cls.__bases__):
                ordered.append((name, cls))
                del pending[name]
    text += "\n"
    for name, cls in ordered:
        text += emit_class(name, cls)
    for name, fn in functions:
        text += emit_function(name, fn, "", False)
    return text


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_stubs.py PACKAGE_DIR")
    out_dir = sys.argv[1]
    core = emit_module(ext, skip=("io",)) + "\nfrom . import io as io\n"
    io_text = emit_module(ext.io)
    io_text = io_text.replace("import numpy\n", "import numpy\n\nfrom ._articula import *\n", 1)
    for name, text in (("_articula.pyi", core), ("io.pyi", io_text)):
        path = os.path.join(out_dir, name)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)


if __name__ == "__main__":
    main()

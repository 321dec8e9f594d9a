"""The /// comments of the public C++ headers, keyed by (class, Python name).

    cpp_docs.load(["engine/include/articula", "io/include/articula/io"])
    -> {("World", "get_positions"): "...", ("WorldOptions", "time_step"): "...", ...}

A comment block before a member declaration documents it; a trailing ///<
documents a field. Names become snake_case as the bindings spell them.
"""
import pathlib
import re

CLASS = re.compile(r"^(?:class|struct)\s+(\w+)\b[^;]*$")
MEMBER = re.compile(r"^\s+(?:static\s+|virtual\s+|explicit\s+|inline\s+|constexpr\s+)*[\w:<>,\s&*]*?[\s&*](\w+)\s*\(")
FIELD = re.compile(r"^\s+[\w:<>,\s]+?\s(\w+)(?:\s*=[^;]*|\{[^;]*\})?;\s*///<\s*(.*)$")


def snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower().replace("c_o_m", "com")


def parse(path, docs):
    current = None
    block = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        m = CLASS.match(line)
        if m and not stripped.endswith(";"):
            current = m.group(1)
            block = []
            continue
        if line.startswith("};"):
            current = None
            block = []
            continue
        if stripped.startswith("///") and not stripped.startswith("///<"):
            block.append(stripped[3:].strip())
            continue
        if current is None:
            block = []
            continue
        f = FIELD.match(line)
        if f:
            docs.setdefault((current, snake(f.group(1))), f.group(2).strip())
            block = []
            continue
        m = MEMBER.match(line)
        if m and block:
            text = "\n".join(block).strip()
            text = text.replace("@throws", "Raises")
            docs.setdefault((current, snake(m.group(1))), text)
        if stripped:
            block = []
    return docs


def load(folders):
    docs = {}
    for folder in folders:
        for header in sorted(pathlib.Path(folder).glob("*.hpp")):
            parse(header, docs)
    return docs


if __name__ == "__main__":
    import sys
    found = load(sys.argv[1:])
    for key in sorted(found)[:40]:
        print(key, "->", found[key].splitlines()[0])
    print(len(found), "documented members")

"""Prints the site directory this interpreter reads packages from under PREFIX.

    python3 site_dir.py PREFIX

An existing or user site directory on sys.path under PREFIX when there is one
(Debian: /usr/local/lib/python3.X/dist-packages for /usr/local, the user site
for ~/.local); otherwise the platform library folder of the posix_prefix
scheme (PREFIX/lib/python3.X/site-packages), for a PYTHONPATH to name.
"""
import os
import site
import sys
import sysconfig


def site_dir(prefix: str) -> str:
    prefix = os.path.abspath(prefix)
    candidates = list(sys.path) + [site.getusersitepackages()]
    for path in candidates:
        if not path:
            continue
        path = os.path.abspath(path)
        if path.startswith(prefix + os.sep) and os.path.basename(path) in ("dist-packages", "site-packages"):
            return path
    return sysconfig.get_path("platlib", "posix_prefix", vars={"base": prefix, "platbase": prefix})


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: site_dir.py PREFIX")
    print(site_dir(sys.argv[1]))

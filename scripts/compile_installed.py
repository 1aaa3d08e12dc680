"""Byte-compile what `pip install --no-compile` installed for a requirement, on every core.

`make install` installs memprobe with every extra without pip's own byte-compiling, which compiles the installed
distributions' modules one by one (74 s of a 158 s install on 2 cores, some 15,700 files), then runs this: the same
files, those of the requirement's distributions and of everything they require (markers and extras evaluated here),
compiled as pip compiles them (``compileall.compile_file``, the interpreter's default invalidation mode) in one process
per core. Nothing outside those distributions is touched (a system-wide install's other packages stay as they are).

    python scripts/compile_installed.py "memprobe[test,hf,mcp,torchtitan,remat]"
"""

from __future__ import annotations

import compileall
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from importlib import metadata

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # an install whose extras bring no packaging: pip's own copy
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name


def closure(requirement: str) -> list[metadata.Distribution]:
    """The installed distributions ``requirement`` needs, itself included, each once."""
    dists: dict[str, metadata.Distribution] = {}
    visited: set[tuple[str, frozenset[str]]] = set()
    todo = [Requirement(requirement)]
    while todo:
        req = todo.pop()
        key = (canonicalize_name(req.name), frozenset(req.extras))
        if key in visited:
            continue
        visited.add(key)
        try:
            dists[key[0]] = dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            continue  # not installed: a requirement whose marker pip found false here
        for line in dist.requires or []:
            sub = Requirement(line)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in req.extras or {""}):
                todo.append(sub)
    return list(dists.values())


def sources(dists: list[metadata.Distribution]) -> list[str]:
    """Their installed Python modules (an editable install's own sources are not in its record)."""
    files = {str(d.locate_file(f)) for d in dists for f in d.files or [] if f.suffix == ".py"}
    return sorted(f for f in files if os.path.isfile(f))


def _compile(path: str) -> bool:
    return bool(compileall.compile_file(path, quiet=2))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    files = sources(closure(argv[0]))
    with ProcessPoolExecutor(os.cpu_count() or 1) as pool:
        compiled = list(pool.map(_compile, files, chunksize=64))
    # a module that does not compile (a template, a file for another Python) is left as pip leaves it
    print(f"byte-compiled {sum(compiled)} of {len(files)} modules of {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

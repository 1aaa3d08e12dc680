"""Python source parsed into a syntax tree one thread at a time.

CPython 3.11 (3.11.7 here) counts the depth of its AST constructor in state shared by the interpreter's threads, so
two threads in ``ast.parse`` at once can fail with "SystemError: AST constructor recursion depth mismatch"
(python/cpython#106905). memprobe parses from threads: probes that run at once (two CPU slots, a diff's sides) are
each finished in a thread of its own, which parses its output code; an A/A of two such probes failed with exit 70 that
way once in a make check (1 test of 1,212).
Every parse of memprobe's goes through :func:`parse` (a test holds to it).
"""

from __future__ import annotations

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, never beside another thread's parse of memprobe's."""
    with _ONE_AT_A_TIME:
        return ast.parse(source)

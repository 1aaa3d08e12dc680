"""Source frames of a recorded stack: which are the user's model and which a library's, named for people.

Pure string work (no torch, no pydantic): a probe's process names its model's code files with it too.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

# a line number of at most 18 ASCII digits (within 64 bits): a longer one is no frame's (int() refuses 100,000 digits)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>[0-9]{1,18}), in (?P<func>\S+)\s*$')
# a frame in these is the libraries' code, not the user's model (memprobe's own wrappers around the model's calls,
# torch_remat's regions under --ac remat and their names, included; memprobe's runner, which steps the optimizer in
# its own runs, stays the user's code of a memprobe run)
_LIBRARY_PARTS = (
    "/site-packages/",
    "/dist-packages/",
    "/torch/",
    "/torchao/",
    "/torchtitan/",
    "/torch_remat/",
    "/memprobe/capture/remat_names.py",
    "/memprobe/checkpointing/",
    "/lib/python3",
)


@dataclass
class Frame:
    """One frame of a Python stack: its file, line, function and (when the stack shows it) its code."""

    file: str
    line: int
    func: str
    code: str | None = None


def parse_stack(trace: str | None) -> list[Frame]:
    """The frames of an FX node's ``stack_trace``, outermost first."""
    frames: list[Frame] = []
    for line in (trace or "").splitlines():
        m = _FRAME.match(line)
        if m:
            frames.append(Frame(m["file"], int(m["line"]), m["func"]))
        elif frames and frames[-1].code is None and line.strip() and not set(line.strip()) <= set("^~ "):
            frames[-1].code = line.strip()
    return frames


def is_library(path: str) -> bool:
    return any(part in path for part in _LIBRARY_PARTS)


def short_path(path: str) -> str:
    """A library file from its package (``torchao/float8/float8_utils.py``,
    ``transformers/models/llama/modeling_llama.py``); a user's file relative to the working directory when it is
    under it."""
    for root in ("/site-packages/", "/dist-packages/"):
        i = path.rfind(root)
        if i >= 0:
            return path[i + len(root) :]
    for pkg in ("torchao/", "torchtitan/", "torch/"):
        i = path.rfind("/" + pkg)
        if i >= 0 and is_library(path):
            return path[i + 1 :]
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def frame_text(f: Frame, with_code: bool) -> str:
    """``repros/ffn.py:32  return self.w2(...)`` (with its code), or ``torchao/float8/...:264 in forward``."""
    where = f"{short_path(f.file)}:{f.line}"
    return f"{where}  {f.code}" if with_code and f.code else f"{where} in {f.func}"

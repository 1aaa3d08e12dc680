"""What a directory memprobe wrote holds: a run (report.json), a diff, an explain or a bisect result."""

from __future__ import annotations

from pathlib import Path

from ..errors import RunDirError
from .rundir import load_report
from .validate import load_bisect, load_diff, load_explain

_RESULTS = (("diff", "diff.json", load_diff), ("explain", "explain.json", load_explain), ("bisect", "bisect.json", load_bisect))


def load_recorded(path: Path, kinds: tuple[str, ...] = ("run", "diff", "explain", "bisect")) -> tuple[str, dict]:
    """``(kind, data)`` of the directory at ``path``, checked as it is read; RunDirError if it holds none of ``kinds``."""
    path = Path(path)
    if "run" in kinds and ((path / "report.json").is_file() or not path.is_dir()):
        return "run", load_report(path)
    for kind, name, load in _RESULTS:
        if kind in kinds and (path / name).is_file():
            return kind, load(path / name)
    names = " or ".join("report.json" if k == "run" else f"{k}.json" for k in kinds)
    raise RunDirError(f"{path} holds no {names}")

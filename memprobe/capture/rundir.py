"""The run directory: the unit of record every analysing command reads.

Layout::

    report.json            schema_version, status, config, versions, saved_tensors, findings, memory, ...
    graphs/g0.forward.txt  the partitioned graph, readable
    graphs/g0.forward.json its nodes (target op, shape, dtype, bytes, SAC tag, stack)
    output_code/g0.forward.py   Inductor's output code for it

Every file is written atomically (temp file + rename), so a run that dies leaves
complete files or none; report.json carries ``status`` (running, complete, failed).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from ..errors import RunDirError

MARKER = ".memprobe"  # in every directory memprobe creates, so --force knows it may replace it


def default_run_dir(label: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("memprobe-runs") / f"{stamp}-{label}"


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; the file should read like any other
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_json(path: Path, obj) -> None:
    atomic_write_text(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


MARKER_TEXT = "written by memprobe; `--force` may replace this directory\n"
# what memprobe writes in a directory it owns (run, diff, bisect, explain, gate and sweep directories)
_OWN_FILES = frozenset(
    ("report.json", "diff.json", "explain.json", "bisect.json", "sweep.json", "snapshot.pickle", "report.html", MARKER)
)
_OWN_DIRS = frozenset(("graphs", "output_code"))


def _foreign(path: Path) -> str | None:
    """The first entry of ``path`` that memprobe did not write, or None when all of it is memprobe's.
    Subdirectories are memprobe's when they carry its marker (sides, trials, ranks, gate probes) or are
    the graph and output-code folders of a run."""
    if path.is_symlink() or not (path / MARKER).is_file() or (path / MARKER).read_text(errors="replace") != MARKER_TEXT:
        return str(path)
    for entry in path.iterdir():
        if entry.is_symlink():
            return str(entry)
        if entry.is_dir():
            if entry.name in _OWN_DIRS:
                odd = next((str(x) for x in entry.iterdir() if x.is_symlink() or not x.is_file()), None)
                if odd:
                    return odd
                continue
            inner = _foreign(entry)
            if inner:
                return inner
        elif entry.name not in _OWN_FILES and not (entry.name.startswith(".") and entry.name.endswith(".tmp")):
            return str(entry)
    return None


def check_out_dir(path: Path, force: bool) -> None:
    """Whether a run may be written to ``path``: refused (one line) unless it is absent or empty, or
    ``force`` and everything in it is memprobe's own. Checks only; nothing is touched."""
    path = Path(path)
    if path.is_symlink():
        raise RunDirError(f"{path} is a symbolic link; memprobe writes only into a directory itself: give its real path")
    if path.exists() and not path.is_dir():
        raise RunDirError(f"{path} exists and is not a directory")
    if path.is_dir() and any(path.iterdir()):
        if not force:
            raise RunDirError(
                f"run directory {path} already exists and is not empty; pass --force to replace it or choose another --out"
            )
        foreign = _foreign(path)
        if foreign == str(path):
            raise RunDirError(
                f"{path} is not a memprobe run directory (it has no memprobe marker); refusing to delete it even with --force"
            )
        if foreign:
            raise RunDirError(f"{path} holds {foreign}, which memprobe did not write; refusing to delete it even with --force")


def prepare_run_dir(path: Path, force: bool) -> Path:
    """Create ``path`` for a new run (see :func:`check_out_dir`); with ``force`` an earlier memprobe
    directory there is removed first. The directory gets memprobe's marker."""
    path = Path(path)
    check_out_dir(path, force)
    if path.is_dir() and any(path.iterdir()):
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)
    (path / MARKER).write_text(MARKER_TEXT)
    return path


class RunDir:
    def __init__(self, path: Path):
        self.path = Path(path)

    def write_report(self, report: dict) -> Path:
        p = self.path / "report.json"
        atomic_write_json(p, report)
        return p

    def write_graph(self, graph_id: str, readable: str, nodes: list[dict], output_code: str | None) -> dict:
        """Write one partitioned graph's files; returns their paths relative to the run dir."""
        files = {
            "graph_text": f"graphs/{graph_id}.txt",
            "graph_json": f"graphs/{graph_id}.json",
        }
        atomic_write_text(self.path / files["graph_text"], readable)
        atomic_write_json(self.path / files["graph_json"], {"graph_id": graph_id, "nodes": nodes})
        if output_code is not None:
            files["output_code"] = f"output_code/{graph_id}.py"
            atomic_write_text(self.path / files["output_code"], output_code)
        return files

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
from datetime import datetime, timezone
from pathlib import Path

from ..errors import RunDirError


MARKER = ".memprobe"  # in every directory memprobe creates, so --force knows it may replace it


def default_run_dir(label: str) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
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


def prepare_run_dir(path: Path, force: bool) -> Path:
    """Create ``path`` for a new run. A non-empty directory is refused unless ``force``,
    and even then only a memprobe run directory (one with report.json) is cleared."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise RunDirError(f"{path} exists and is not a directory")
    if path.is_dir() and any(path.iterdir()):
        if not force:
            raise RunDirError(f"run directory {path} already exists and is not empty; pass --force to replace it or choose another --out")
        if not ((path / "report.json").is_file() or (path / MARKER).is_file()):
            raise RunDirError(f"{path} is not a memprobe run directory (no report.json); refusing to delete it even with --force")
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)
    (path / MARKER).write_text("written by memprobe; `--force` may replace this directory\n")
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

    def write_json(self, rel: str, obj) -> None:
        atomic_write_json(self.path / rel, obj)

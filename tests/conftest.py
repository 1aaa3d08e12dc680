"""Shared fixtures: each probe configuration is run once per session through the installed CLI.

The runs are real: they build the FFN repro, compile it with Inductor (C++ on the
CPU), train, and write a run directory. Inductor's cache (under
TORCHINDUCTOR_CACHE_DIR, default /tmp/torchinductor_$USER) makes repeated
sessions faster; nothing here depends on it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MEMPROBE = shutil.which("memprobe") or f"{sys.executable} -m memprobe"


def run_cli(*args: str, timeout: float = 600, cwd: Path | None = None) -> subprocess.CompletedProcess:
    cmd = MEMPROBE.split() + [str(a) for a in args]
    # tables as wide as a log (memprobe's default when not on a terminal), whatever the terminal running pytest says
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


# what a run records that is an address of its process (a storage's data pointer, the identity of a tensor a block
# was given): it differs from process to process; everything else in a saved table must not
ADDRESS_FIELDS = ("runtime_storage_id", "input_id")


def saved_table(report: dict) -> list[dict]:
    """A report's saved table without its addresses: what two runs of one configuration must agree on."""
    return [{k: v for k, v in r.items() if k not in ADDRESS_FIELDS} for r in report["saved_tensors"]]


class Run:
    def __init__(self, path: Path, proc: subprocess.CompletedProcess):
        self.path = path
        self.proc = proc
        self.report = json.loads((path / "report.json").read_text())


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """Lazily run (once) and cache probe configurations by their CLI flags."""
    cache: dict[tuple, Run] = {}
    base = tmp_path_factory.mktemp("runs")

    def get(*flags: str) -> Run:
        if flags not in cache:
            out = base / f"run{len(cache)}"
            proc = run_cli("run", *flags, "--out", out, "--quiet")
            assert proc.returncode == 0, f"memprobe run {' '.join(flags)} failed:\n{proc.stderr[-3000:]}"
            cache[flags] = Run(out, proc)
        return cache[flags]

    return get


LEGACY_ROWWISE = ("--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01", "--layers", "2")
TODAY_ROWWISE = ("--recipe", "rowwise", "--ac-policy", "torchtitan", "--layers", "2")
# the smallest probe that still compiles real graphs: for tests of behaviour, not of figures
TINY = ("--dim", "64", "--hidden", "128", "--seq", "32", "--layers", "1", "--device", "cpu")

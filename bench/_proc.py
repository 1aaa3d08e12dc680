"""Run a command as a child process and measure it: wall time, CPU time (user + system: what a machine shared with
other work changes least) and peak RSS (os.wait4)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def measure(cmd: list[str], env: dict | None = None, cwd: str | None = None) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({code}):\n{err[-2000:]}")
    return {"seconds": wall, "cpu_seconds": usage.ru_utime + usage.ru_stime, "peak_rss_bytes": usage.ru_maxrss * 1024}


def checkout_env(root: Path, cache: Path, **extra: str) -> dict[str, str]:
    """The environment of a memprobe command run from checkout ``root`` (on PYTHONPATH) with its own caches under
    ``cache`` (Inductor's and memprobe's), plus ``extra``."""
    return {
        **os.environ,
        "PYTHONPATH": str(root),
        "TORCHINDUCTOR_CACHE_DIR": str(cache / "inductor"),
        "MEMPROBE_CACHE_DIR": str(cache / "memprobe"),
        **extra,
    }


def alternate(roots: dict[str, Path], timed: Callable[[Path, Path], T], repeats: int) -> dict[str, list[T]]:
    """Two checkouts back to back: each one's caches (a fresh temporary directory) filled by one untimed
    ``timed(root, cache)`` first, then ``repeats`` timed calls alternated a, b, a, b, ... so that the load of a shared
    machine falls on both alike. Their results by checkout; the caches removed afterwards."""
    caches = {k: Path(tempfile.mkdtemp(prefix=f"memprobe-ab-cache-{k}-")) for k in roots}
    try:
        for k, root in roots.items():
            timed(root, caches[k])  # fill this checkout's caches (untimed)
        results: dict[str, list[T]] = {k: [] for k in roots}
        for _ in range(repeats):
            for k, root in roots.items():
                results[k].append(timed(root, caches[k]))
        return results
    finally:
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)

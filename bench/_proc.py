"""Run a command as a child process and measure it: wall time and peak RSS (os.wait4)."""

from __future__ import annotations

import os
import subprocess
import time


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
    return {"seconds": wall, "peak_rss_bytes": usage.ru_maxrss * 1024}

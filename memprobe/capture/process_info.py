"""Who measured a run: the process a probe ran in, recorded in its report.json."""

from __future__ import annotations

import json
import os
import socket
import sys

from .. import settings
from ..rundir import records as R

# how a probe's process knows which of its variables were given for this probe (recorded in report.json)
SIDE_ENV_VAR = settings.SIDE_ENV.name
# the command the user typed, recorded as the report's "command" by a probe's process
COMMAND_VAR = settings.COMMAND.name
# how many probes the GPU a probe was given may hold at once (more than 1: it shared the GPU)
GPU_PROBES_VAR = settings.GPU_PROBES.name
# how many compile workers a probe's Inductor may start (probes compiling at once share the cores): set in the probe
# after its imports, not through TORCHINDUCTOR_COMPILE_THREADS, which Inductor reads at import (a probe forked from
# a server that imported it would get the server's value, so the server refuses to fork one that sets it)
COMPILE_THREADS_VAR = settings.COMPILE_THREADS.name


def apply_compile_threads() -> None:
    """Inductor's compile workers for this probe, where its parent shared the cores (before anything compiles)."""
    value = os.environ.get(COMPILE_THREADS_VAR, "")
    if value.isdigit() and int(value) > 0:
        import torch._inductor.config

        torch._inductor.config.compile_threads = int(value)


def process_record() -> R.ProcessRecord:
    """Who measured a run: recorded in report.json by the process that ran the probe."""
    try:
        names = json.loads(os.environ.get(SIDE_ENV_VAR) or "[]")
    except ValueError:
        names = []
    if not isinstance(names, list):
        names = []
    return R.ProcessRecord(
        pid=os.getpid(),
        host=socket.gethostname(),
        python=sys.executable,
        command=list(sys.argv),
        env={n: os.environ.get(n) for n in names if isinstance(n, str)},
        gpus=os.environ.get("CUDA_VISIBLE_DEVICES"),
        gpu_probes_at_once=_gpu_probes(),
        forked_from=_forked_from[0],
        fork_server=_forked_from[1],
    )


def _gpu_probes() -> int | None:
    value = os.environ.get(GPU_PROBES_VAR, "")
    return int(value) if value.isdigit() else None


def user_command() -> list[str]:
    """The command the user typed: the orchestrating parent's, when this process is a child."""
    try:
        cmd = json.loads(os.environ.get(COMMAND_VAR) or "null")
    except ValueError:
        cmd = None
    return cmd if isinstance(cmd, list) else list(sys.argv)


def process_age_s() -> float | None:
    """Seconds since this process started (Linux: from /proc), or None where that cannot be read."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        start = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat: start time in clock ticks after boot
    except (OSError, ValueError, IndexError):
        return None
    return max(0.0, uptime - start)


_waited = [0.0]


def note_wait(seconds: float) -> None:
    """Time this process spent held by its parent before running its probe (not part of its startup)."""
    _waited[0] += seconds


def waited_s() -> float:
    return _waited[0]


_forked_from: list = [None, None]


def note_forked_from(pid: int, server: str | None = None) -> None:
    """This process is a fork of memprobe's fork server ``pid`` (torch imported, nothing compiled or allocated
    there), ``server`` saying which (``memprobe serve``, ``memprobe mcp``, the verb's): recorded in its report."""
    _forked_from[0], _forked_from[1] = pid, server

"""The process of a user's own training script (``memprobe run -- python train.py``): the user's command, with
memprobe's hooks first on its path (memprobe/capture/script_boot: its ``sitecustomize`` installs them before the
script's first import) and the job in the environment (:data:`memprobe.capture.script.SPEC_VAR`).

The command runs as the user wrote it: its ``python`` is the one on PATH, unless a side of a diff names another
(``--b-python VENV/bin/python``), which then runs it (``torchrun`` as that interpreter's ``-m torch.distributed.run``).
memprobe need not be installed there: its own code comes on the path, as for a probe (:func:`memprobe.orchestrate.process.probe_code_path`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..config import ProbeConfig
from ..targets.script import LAUNCHERS, PYTHONS

BOOT = Path(__file__).resolve().parents[1] / "capture" / "script_boot"


def script_command(cfg: ProbeConfig, python: str | None) -> list[str]:
    """The command to start: the user's, its interpreter the side's where the side names one."""
    words = list(cfg.target.command)
    if python is None:
        return words
    first = Path(words[0]).name
    if first in PYTHONS:
        return [python, *words[1:]]
    if first in LAUNCHERS:
        return [python, "-m", "torch.distributed.run", *words[1:]]
    return words


def script_env(cfg: ProbeConfig, out: Path, env: dict[str, str], code_path: str, *, verbose: bool) -> dict[str, str]:
    """The environment of the script's process: memprobe's hooks and its code (``code_path``:
    :func:`.process.probe_code_path`) first on its path, and the job."""
    from ..capture.script import SPEC_VAR

    spec = {"config": cfg.to_dict(), "out": str(out), "verbose": verbose, "ranks": cfg.target.launcher() is not None}
    path = os.pathsep.join(p for p in (str(BOOT), code_path, env.get("PYTHONPATH")) if p)
    return {**env, "PYTHONPATH": path, SPEC_VAR: json.dumps(spec)}

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
from ..errors import MemprobeError
from ..targets.script import LAUNCHERS, PYTHONS
from ..vocab import RunStatus

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


def script_env(cfg: ProbeConfig, out: Path, env: dict[str, str], code_path: str, *, verbose: bool, token: str) -> dict[str, str]:
    """The environment of the script's process: memprobe's hooks and its code (``code_path``:
    :func:`.process.probe_code_path`) first on its path, and the job, with the ``token`` its hooks say the run's end
    with (they take the job out of the process's environment before the script's first import)."""
    from ..capture.script import SPEC_VAR

    spec = {
        "config": cfg.to_dict(),
        "out": str(out),
        "verbose": verbose,
        "ranks": cfg.target.launcher() is not None,
        "token": token,
    }
    path = os.pathsep.join(p for p in (str(BOOT), code_path, env.get("PYTHONPATH")) if p)
    return {**env, "PYTHONPATH": path, SPEC_VAR: json.dumps(spec)}


def script_ended(out: Path, cfg: ProbeConfig, ends: set[str], last_line: str) -> MemprobeError | None:
    """How a script's run ended, as its run directory and the ends its hooks said (``ends``: the folders whose
    measured step they said recorded, with the run's token) tell it; None when they agree. A command whose hooks never
    went in (``python -I``, ``env -i``, a ``PYTHONPATH`` of its own, no Python at all) recorded nothing: its run is
    recorded failed here (exit 3; it was exit 2, "not a memprobe run directory"). A report that says complete where
    the hooks said no end was written by the script itself (its ``os._exit(0)`` after): failed, never complete."""
    from ..errors import RunFailed
    from .finish import mark_ended

    folders = [p.parent for p in sorted(out.glob("rank*/report.json"))] or [out]
    if not any((f / "report.json").is_file() for f in folders):
        why = (
            "the command ended without importing torch as far as memprobe saw: its hooks never went into the command's "
            "process (python -I, env -i or a PYTHONPATH of its own drops them; a command that is no Python has none)"
        )
        _record_unmeasured(out, cfg, why)
        said = f" (its last line on stderr: {last_line[:200]!r})" if last_line else ""
        return RunFailed(f"{why}{said}; partial report in {out}")
    forged = [f for f in folders if ("" if f == out else f.name) not in ends]
    why = "the report said complete, but memprobe's hooks did not record the run's end: the script wrote it"
    if any(mark_ended(f, RunStatus.FAILED, why, was=RunStatus.COMPLETE) for f in forged):
        return RunFailed(f"{why} (its measured step was never recorded); see {out}")
    return None


def _record_unmeasured(out: Path, cfg: ProbeConfig, why: str) -> None:
    """The run directory of a command memprobe's hooks never went into: its report, status failed, saying why."""
    from ..capture.record import RunRecord
    from ..rundir.write import RunDir

    record = RunRecord(cfg, RunDir(out), analysis_only=False)
    record.ended(RunStatus.FAILED, why)
    record.close()

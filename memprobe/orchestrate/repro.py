"""``memprobe repro``'s work: read a run or a diff directory (checked as it is read), make the diff's configurations
smaller first where asked (:mod:`.minimize`), write the standalone script (:mod:`memprobe.report.repro` renders it),
and, where asked, run it with this interpreter to see that it reproduces the recorded figures.

A run directory may come from anyone: the script references a run's ``--model`` file by the path the run named and
never runs it here; a run's ``--hf-config`` is read (to write it into the script) only when the user names it;
``--check`` and ``--minimize`` run the model, so they need the model named too (:func:`memprobe.config.recorded_to_run`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..analysis.recorded import diff_sides, load_recorded, same_interpreter
from ..config import recorded_to_run
from ..errors import ConfigError, MemprobeError, RunFailed
from ..report.repro import diff_script, diff_together, expected, run_script
from ..rundir import schema as S
from ..rundir.write import atomic_write_text
from .options import RunOptions
from .process import Progress


def _trusted(report: S.Report, named: dict, where: str, runs: bool) -> None:
    """The run's model may be written into the script (a ``--model`` file by its path; a ``--hf-config`` only when the
    user names it: it is read) and, when ``runs``, run here (only when the user names it)."""
    cfg = report.config.probe()
    if not runs:
        named = {**named, "model": cfg.model}  # written as a path the user runs, never run here
    recorded_to_run(cfg, named, f"{where}/report.json")


def _this_interpreter(report: S.Report, where: str, flag: str, instead: str) -> None:
    """``--check`` and ``--minimize`` run with this interpreter (and no settings of a side's own): only for a run
    recorded so; the recorded interpreter is never started on the file's word."""
    recorded = report.process.python if report.process else None
    if not same_interpreter(recorded) or (report.process is not None and report.process.env):
        torch = report.versions.torch if report.versions else None
        raise ConfigError(
            f"{where} was recorded with {recorded} (torch {torch or '?'}) or settings of its own, not with this "
            f"interpreter ({sys.executable}) alone: {flag} runs with this one; {instead}"
        )


def _recorded(path: Path, named: dict, *, minimize: bool, check: bool, script: Path):
    """``(kind, record, reports)`` of the run or diff at ``path``, checked for what is asked of it: its model named
    where it is read or run, its interpreter this one where it runs."""
    kind, record = load_recorded(path, kinds=("run", "diff"))
    if kind == "run" and minimize:
        raise ConfigError("--minimize makes a diff's configurations smaller: give a diff directory (memprobe diff A B)")
    reports = {"run": record} if kind == "run" else diff_sides(path, record)
    for key, report in reports.items():
        where = str(path) if key == "run" else f"{path}/{key}"
        _trusted(report, named, where, runs=minimize or check)
        if check:
            _this_interpreter(report, where, "--check", f"run `{_python(report)} {script} --check` yourself instead")
        if minimize:
            _this_interpreter(report, where, "--minimize", "minimize a diff of configurations recorded here")
    if check and kind == "diff" and not diff_together(record.change, reports):
        raise ConfigError(
            f"{path}: the sides ran with different software: --check runs one interpreter; run the script under each "
            "side's interpreter yourself (its header says how)"
        )
    return kind, record, reports


def make_repro(
    path: Path, script: Path, run: RunOptions, *, named: dict, minimize: bool = False, check: bool = False
) -> S.ReproResult:
    """Write the repro script of the run or diff at ``path`` into ``script``; ``minimize`` its diff first (its runs
    under ``run.out``); ``check`` that it reproduces the recorded figures with this interpreter."""
    progress = run.progress
    kind, record, reports = _recorded(Path(path), named, minimize=minimize, check=check, script=script)
    minimized = None
    if minimize:
        from .minimize import minimize_diff

        record, reports, minimized = minimize_diff(path, record, reports, run)
    source = Path(minimized.run) if minimized else Path(path)
    if kind == "run":
        text = run_script(record, str(path), script.name)
    else:
        text = diff_script(record, reports, str(source), script.name, minimized=minimized)
    atomic_write_text(script, text)
    progress(f"wrote {script}")
    return S.ReproResult(
        script=str(script),
        source=str(source),
        sides={key: S.ReproFigures(**expected(r, str(source))) for key, r in reports.items()},
        together=kind == "run" or diff_together(record.change, reports),
        minimized=minimized,
        check=run_check(script, progress) if check else None,
    )


def _python(report: S.Report) -> str:
    return (report.process.python if report.process else None) or "python"


def run_check(script: Path, progress: Progress) -> str:
    """Run ``python SCRIPT --check`` with this interpreter, from this directory (where a model file's relative path
    was recorded): its output; MemprobeError (exit 1) when it does not reproduce, RunFailed when it fails."""
    progress(f"running {Path(sys.executable).name} {script} --check")
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    said = proc.stdout.strip()
    if proc.returncode == 1 and "does not reproduce" in said:
        first = next(line for line in said.splitlines() if "does not reproduce" in line)
        raise MemprobeError(f"{script} ran but does not reproduce the recorded figures: {first}")
    if proc.returncode:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RunFailed(f"{script} failed (exit {proc.returncode}): {last[:500]}")
    return said

"""``memprobe diff``'s work: run the sides that are configurations (each in its own process), load the
sides that are run directories, and diff the two reports."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..config import ProbeConfig
from ..errors import ConfigError
from ..rundir.write import atomic_write_json
from .options import RunOptions
from .placement import Placement
from .process import ProbeJob, Progress, SideEnv, check_environments, cuda_placement, run_jobs

if TYPE_CHECKING:
    from ..rundir import schema as S

# what a diff reads once its sides have run: imported while they run (run_jobs' ``meanwhile``), not before they start
AFTER_THE_SIDES = ("memprobe.analysis.diff", "memprobe.analysis.verdict")

Side = Path | ProbeConfig  # a run directory to load, or a configuration to run


def diff_placement(to_run: dict[str, ProbeConfig], envs: dict[str, SideEnv], parallel: bool) -> Placement:
    """How the sides that run are scheduled. On CUDA they run at once whenever they can: one GPU each when
    two are visible, both on one GPU when they fit in its free memory (placement.py has the rule), else one
    after the other; ``parallel`` insists on at once. On the CPU they run at once (one core each) only
    when ``parallel``."""
    configs = list(to_run.values())
    if len(configs) < 2:
        return Placement(1, None, "one side runs")
    if parallel and any(c.nproc > 1 for c in configs):
        raise ConfigError("--parallel runs one probe per GPU (or core); a side with --nproc uses several itself")
    placement = cuda_placement([(k, c, envs.get(k, SideEnv())) for k, c in to_run.items()], want=len(configs))
    if placement is None:  # the CPU
        if parallel:
            return Placement(len(configs), None, "at once, one process each on the CPU cores")
        return Placement(1, None, "one after the other on the CPU")
    if parallel and placement.slots < len(configs):
        raise ConfigError(f"--parallel: the sides cannot run at once on CUDA ({placement.why})")
    if placement.slots < len(configs):
        placement.why = f"one after the other: {placement.why}"
    return placement


def run_diff(
    sides: dict[str, Side],
    envs: dict[str, SideEnv],
    run: RunOptions,
    *,
    label: str,
    parallel: bool = False,
    analysis_only: bool = False,
) -> tuple[S.DiffResult, Path | None]:
    """Diff B against A; returns the result and the directory its diff.json was written to (None if nothing ran). The
    sides are placed by :func:`diff_placement` (``run``'s slots are not used)."""
    progress = run.progress
    to_run = {k: v for k, v in sides.items() if isinstance(v, ProbeConfig)}
    _check_side_envs(envs, to_run)
    jobs = [ProbeJob(key, cfg, Path(key), envs.get(key, SideEnv()), analysis_only=analysis_only) for key, cfg in to_run.items()]
    check_environments(jobs, progress)  # before anything is written: a side that cannot run says so first
    placement = diff_placement(to_run, envs, parallel)
    out = run.directory(label) if to_run or run.out is not None else None
    if len(to_run) > 1:
        progress(f"sides {' and '.join(k.upper() for k in to_run)}: {placement.why}")
    jobs = [ProbeJob(key, cfg, out / key, envs.get(key, SideEnv()), analysis_only=analysis_only) for key, cfg in to_run.items()]
    ran = run_jobs(
        jobs, progress=progress, verbose=run.verbose, slots=placement.slots, gpus=placement.gpus, meanwhile=AFTER_THE_SIDES
    )
    schedule = placement if len(to_run) > 1 else None
    return _diffed(sides, _side_reports(sides, ran, progress), out, schedule), out


def _diffed(sides: dict[str, Side], reports: dict[str, S.Report], out: Path | None, schedule: Placement | None) -> S.DiffResult:
    """B's report diffed against A's, each side's source named, with its verdict and how the sides ran (``schedule``:
    where both ran), written to ``out``/diff.json where the diff has a directory."""
    from ..analysis.diff import diff_reports
    from ..analysis.verdict import diff_verdict
    from ..rundir import schema
    from ..rundir.load import dump

    result = diff_reports(reports["a"], reports["b"])
    result.a.source = _source(sides["a"], out, "a")
    result.b.source = _source(sides["b"], out, "b")
    result.verdict = diff_verdict(result, frozenset(k for k, side in sides.items() if isinstance(side, Path)))
    if schedule is not None:
        result.schedule = schema.Schedule(at_once=schedule.slots > 1, **schedule.to_dict())
    if out is not None:
        atomic_write_json(out / "diff.json", dump(result))
    return result


def _check_side_envs(envs: dict[str, SideEnv], to_run: dict[str, ProbeConfig]) -> None:
    """A side's --env/--python is for a side that runs: a ConfigError for one given to a run directory."""
    for key, env in envs.items():
        if not env.empty and key not in to_run:
            raise ConfigError(f"--{key}-env/--{key}-python apply to a side that runs; side {key.upper()} is a run directory")


def _side_reports(sides: dict[str, Side], ran: dict[str, S.Report], progress: Progress) -> dict[str, S.Report]:
    """Each side's report: loaded from its run directory, or what its run gave."""
    from ..rundir.load import load_report

    reports: dict[str, S.Report] = {}
    for key, side in sides.items():
        if isinstance(side, Path):
            reports[key] = load_report(side)
            progress(f"[{key}] loaded {side}")
        else:
            reports[key] = ran[key]
    return reports


def _source(side: Side, out: Path | None, key: str) -> str:
    """Where a side's report was read: its run directory, or the one its run wrote under ``out``."""
    return str(side) if isinstance(side, Path) else str(out / key)

"""``memprobe diff``'s work: run the sides that are configurations (each in its own process), load the
sides that are run directories, and diff the two reports."""

from __future__ import annotations

from pathlib import Path

from ..analysis.diff import diff_reports
from ..analysis.rundir import load_report
from ..analysis.verdict import diff_verdict
from ..capture.rundir import atomic_write_json, default_run_dir, prepare_run_dir
from ..config import ProbeConfig
from ..errors import ConfigError
from .process import ProbeJob, Progress, SideEnv, check_environments, gpus_for, run_jobs

Side = Path | ProbeConfig  # a run directory to load, or a configuration to run


def parallel_slots(configs: list[ProbeConfig], parallel: bool) -> tuple[int, list[str] | None]:
    """How many probes may run at once, and on which GPUs: ``(1, None)`` unless ``parallel``."""
    if not parallel or len(configs) < 2:
        return 1, None
    if any(c.nproc > 1 for c in configs):
        raise ConfigError("--parallel runs one probe per GPU (or core); a side with --nproc uses several itself")
    gpus = gpus_for(configs)
    if gpus is not None:
        if len(gpus) < 2:
            raise ConfigError(f"--parallel on CUDA runs each side on a GPU of its own: 2 are needed, {len(gpus)} visible")
        return len(configs), gpus
    return len(configs), None


def run_diff(
    sides: dict[str, Side],
    envs: dict[str, SideEnv],
    *,
    out: Path | None,
    force: bool,
    label: str,
    parallel: bool = False,
    analysis_only: bool = False,
    progress: Progress,
    verbose: bool = False,
) -> tuple[dict, Path | None]:
    """Diff B against A; returns the result and the directory it was written to (None if nothing ran)."""
    to_run = {k: v for k, v in sides.items() if isinstance(v, ProbeConfig)}
    for key, env in envs.items():
        if not env.empty and key not in to_run:
            raise ConfigError(f"--{key}-env/--{key}-python apply to a side that runs; side {key.upper()} is a run directory")
    slots, gpus = parallel_slots(list(to_run.values()), parallel)
    jobs = [ProbeJob(key, cfg, Path(key), envs.get(key, SideEnv()), analysis_only=analysis_only) for key, cfg in to_run.items()]
    check_environments(jobs, progress)  # before anything is written: a side that cannot run says so first
    if to_run or out is not None:
        out = out if out is not None else default_run_dir(label)
        prepare_run_dir(out, force)
    if slots > 1:
        where = f"GPUs {', '.join(gpus)}" if gpus else "the CPU cores"
        progress(f"running {', '.join(k.upper() for k in to_run)} side by side, one process each, on {where}")
    jobs = [ProbeJob(key, cfg, out / key, envs.get(key, SideEnv()), analysis_only=analysis_only) for key, cfg in to_run.items()]
    ran = run_jobs(jobs, progress=progress, verbose=verbose, slots=slots, gpus=gpus)
    reports = {}
    for key, side in sides.items():
        if isinstance(side, Path):
            reports[key] = load_report(side)
            progress(f"[{key}] loaded {side}")
        else:
            reports[key] = ran[key]
    result = diff_reports(reports["a"], reports["b"])
    for key, side in sides.items():
        result[key]["source"] = str(side) if isinstance(side, Path) else str(out / key)
    result["verdict"] = diff_verdict(result)
    if out is not None:
        atomic_write_json(out / "diff.json", result)
    return result, out

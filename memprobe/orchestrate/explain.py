"""``memprobe explain``'s work: the base run, then one run per save-list op with that op recomputed,
each probe in its own process; the ranking itself is :func:`memprobe.analysis.explain.explain_runs`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..analysis.explain import candidate_ops, explain_runs
from ..analysis.saved import graph_pairs
from ..analysis.verdict import explain_verdict
from ..config import ProbeConfig, recorded_to_run
from ..errors import ConfigError
from ..rundir import schema as S
from ..rundir.load import dump, load_report
from ..rundir.write import atomic_write_json, default_run_dir, prepare_run_dir
from ..vocab import AcMode, RunMode
from .process import ProbeJob, Progress, run_jobs


def check_explainable(cfg: ProbeConfig) -> None:
    if cfg.ac != AcMode.OP:
        raise ConfigError("explain edits a per-op SAC policy: the configuration needs --ac op")


def run_explain(
    *,
    cfg: ProbeConfig | None,
    run_dir: Path | None,
    out: Path | None,
    force: bool,
    full: bool,
    progress: Progress,
    verbose: bool = False,
    slots: int = 1,
    gpus: list[str] | None = None,
    named: dict | None = None,
    how=None,
) -> tuple[S.ExplainResult, Path]:
    """Explain a finished run (``run_dir``) or a configuration (``cfg``, run first); writes explain.json and returns
    its record with the directory it was written to. A finished run's model is run again only when ``named`` (the
    user's ``model`` / ``hf_config``) names the same one (:func:`~memprobe.config.recorded_to_run`; ``how``: how the
    user passes it, in the refusal)."""
    analysis_only = not full
    if run_dir is not None:  # every argument is checked before --out is touched
        base = load_report(run_dir)
        cfg = recorded_to_run(base.config.probe(), named or {}, str(Path(run_dir) / "report.json"), how)
        graph_pairs(run_dir, base)  # its graphs read and checked now, not after the edited runs
    check_explainable(cfg)
    out = out or default_run_dir("explain")
    prepare_run_dir(out, force)
    if run_dir is None:
        base_dir = out / "base"
        base = run_jobs([ProbeJob("base", cfg, base_dir, analysis_only=analysis_only)], progress=progress, verbose=verbose)[
            "base"
        ]
    else:
        base_dir = Path(run_dir)
    jobs = [
        ProbeJob(
            op,
            replace(cfg, recompute_ops=cfg.recompute_ops + (op,)),
            out / f"recompute-{op.replace('.', '-')}",
            analysis_only=analysis_only,
        )
        for op in candidate_ops(base)
    ]
    reports = run_jobs(jobs, progress=progress, verbose=verbose, slots=slots, gpus=gpus)
    mode = RunMode.ANALYSIS_ONLY if analysis_only else RunMode.FULL
    result = explain_runs(base, base_dir, {job.label: (reports[job.label], job.out) for job in jobs}, mode)
    result.verdict = explain_verdict(result)
    atomic_write_json(out / "explain.json", dump(result))
    return result, out

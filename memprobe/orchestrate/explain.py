"""``memprobe explain``'s work: the base run, then one run per candidate edit (under per-op SAC, each save-list op
recomputed; otherwise the ways to checkpoint the blocks), each probe in its own process; the ranking itself is
:func:`memprobe.analysis.explain.explain_runs`."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

from ..analysis.decisions import RECOMPUTE_ALL
from ..analysis.explain import EditSpec, candidate_ops, candidate_regions, explain_runs
from ..analysis.saved import graph_pairs
from ..analysis.verdict import explain_verdict, other_interpreter
from ..checkpointing import Facts
from ..config import ProbeConfig, recorded_to_run
from ..errors import ConfigError
from ..rundir import schema as S
from ..rundir.load import dump, load_report
from ..rundir.write import atomic_write_json
from ..vocab import FindingKind, RunMode
from .options import RunOptions
from .process import ProbeJob, interpreter_side, recorded_side, run_jobs


def check_explainable(cfg: ProbeConfig) -> None:
    if not cfg.target.takes_sac_policy:
        raise ConfigError(
            "explain edits the SAC policy memprobe applies; a script's checkpointing is its own code: edit it, "
            "`memprobe run -- ...` each version and `memprobe diff` the two run directories"
        )
    why = cfg.mode.unexplainable(cfg)
    if why:
        raise ConfigError(why)


def _facts(base: S.Report) -> Facts:
    """What the edits of a run depend on: the save-list ops that saved something; whether regions the model
    checkpoints itself lost some ops' tags (its checkpoint-saves-more finding's fix is a per-op policy)."""
    lost = base.config.probe().mode.own_regions_judged and any(
        f.kind == FindingKind.CHECKPOINT_SAVES_MORE and f.flag == RECOMPUTE_ALL for f in base.findings or []
    )
    return Facts(saved_ops=tuple(candidate_ops(base)), lost_tags=lost, saved_regions=tuple(candidate_regions(base)))


def candidate_edits(base: S.Report, cfg: ProbeConfig) -> list[EditSpec]:
    """The edits explain tries, as ``cfg``'s checkpointing mode gives them (:meth:`memprobe.checkpointing.Mode.edits`):
    under per-op SAC, each save-list op that saved something, recomputed; without checkpointing, each way to
    checkpoint the blocks (and a per-op policy around the model's own regions where they lost some ops' tags); under
    --ac full, a per-op policy that tags every op for recompute."""
    return [
        EditSpec(flag=e.flag, edit=e.edit, config=replace(cfg, **e.changes), directory=e.directory, op=e.op)
        for e in cfg.mode.edits(cfg, _facts(base))
    ]


def _next_command(base: S.Report, edits: list[EditSpec], result: S.ExplainResult) -> str | None:
    """The ``memprobe run`` of the top edit, as it would be run (with the base's interpreter where it was recorded
    with another)."""
    top = next((e for e in edits if result.edits and e.flag == result.edits[0].flag), None)
    if top is None:
        return None
    recorded = other_interpreter(base)
    words = " ".join(shlex.quote(w) for w in [*top.config.to_flags(), *(["--python", recorded] if recorded else [])])
    return f"memprobe run {words}   # does it free what it should?"


def run_explain(
    cfg: ProbeConfig | None,
    run_dir: Path | None,
    run: RunOptions,
    *,
    full: bool = False,
    named: dict | None = None,
    how=None,
) -> tuple[S.ExplainResult, Path]:
    """Explain a finished run (``run_dir``) or a configuration (``cfg``, run first); writes explain.json and returns
    its record with the directory it was written to. A finished run's model is run again only when ``named`` (the
    user's ``model`` / ``hf_config``) names the same one (:func:`~memprobe.config.recorded_to_run`; ``how``: how the
    user passes it, in the refusal). The edits are checked with the interpreter the run was recorded with
    (``run.python``, ``--python``: the user names it; :func:`~memprobe.orchestrate.process.recorded_side`), or
    ``run.python`` for a configuration."""
    analysis_only = not full
    side = interpreter_side(run.python)
    if run_dir is not None:  # every argument is checked before --out is touched
        base = load_report(run_dir)
        cfg = recorded_to_run(base.config.probe(), named or {}, str(Path(run_dir) / "report.json"), how)
        side = recorded_side(base, run.python, str(run_dir))
        graph_pairs(run_dir, base)  # its graphs read and checked now, not after the edited runs
    check_explainable(cfg)
    out = run.directory("explain")
    if run_dir is None:
        base_dir = out / "base"
        base_job = ProbeJob("base", cfg, base_dir, side=side, analysis_only=analysis_only)
        base = run_jobs([base_job], progress=run.progress, verbose=run.verbose)["base"]
    else:
        base_dir = Path(run_dir)
    edits = candidate_edits(base, cfg)
    jobs = [ProbeJob(e.flag, e.config, out / e.directory, side=side, analysis_only=analysis_only) for e in edits]
    reports = run_jobs(jobs, **run.schedule())
    mode = RunMode.ANALYSIS_ONLY if analysis_only else RunMode.FULL
    result = explain_runs(base, base_dir, {e: (reports[e.flag], job.out) for e, job in zip(edits, jobs)}, mode)
    result.verdict = explain_verdict(result)
    result.verdict.next_command = result.verdict.next_command or _next_command(base, edits, result)
    atomic_write_json(out / "explain.json", dump(result))
    return result, out

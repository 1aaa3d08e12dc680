"""``memprobe explain``'s work: the base run, then one run per candidate edit (under per-op SAC, each save-list op
recomputed; otherwise the ways to checkpoint the blocks), each probe in its own process; the ranking itself is
:func:`memprobe.analysis.explain.explain_runs`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..analysis.decisions import RECOMPUTE_ALL
from ..analysis.explain import EditSpec, candidate_ops, explain_runs
from ..analysis.saved import graph_pairs
from ..analysis.verdict import explain_verdict, recomputing_all
from ..config import ProbeConfig, recorded_to_run
from ..errors import ConfigError
from ..policies import flag_op
from ..rundir import schema as S
from ..rundir.load import dump, load_report
from ..rundir.write import atomic_write_json, default_run_dir, prepare_run_dir
from ..vocab import AcMode, FindingKind, RunMode
from .process import ProbeJob, Progress, interpreter_side, recorded_side, run_jobs


def check_explainable(cfg: ProbeConfig) -> None:
    if cfg.target.runs_itself:
        raise ConfigError(
            "explain edits the SAC policy memprobe applies; a script's checkpointing is its own code: edit it, "
            "`memprobe run -- ...` each version and `memprobe diff` the two run directories"
        )
    if cfg.ac == AcMode.MEMORY_BUDGET:
        raise ConfigError(
            "explain edits a per-op SAC policy or the AC mode; for --ac memory-budget, `memprobe sweep` probes the budgets "
            "and ranks what each saves"
        )


def _lost_tags(base: S.Report, cfg: ProbeConfig) -> list[EditSpec]:
    """Where the model checkpoints its own blocks and a region's tag did not reach some of their ops (the base's
    checkpoint-saves-more finding says so, by its flag): a per-op policy that tags every op it runs, around them."""
    if base.config.probe().ac != AcMode.NONE:
        return []
    if not any(f.kind == FindingKind.CHECKPOINT_SAVES_MORE and f.flag == RECOMPUTE_ALL for f in base.findings or []):
        return []
    return [_recompute_all(cfg, "around the model's own checkpointing")]


def _recompute_all(cfg: ProbeConfig, where: str) -> EditSpec:
    """A per-op SAC policy that tags every op it runs for recompute (``where``: in place of what, or around it)."""
    return EditSpec(
        flag=RECOMPUTE_ALL,
        edit=f"a per-op SAC policy that tags every op it runs for recompute, {where}",
        config=recomputing_all(cfg),
        directory="ac-op-recompute-all",
    )


def candidate_edits(base: S.Report, cfg: ProbeConfig) -> list[EditSpec]:
    """The edits explain tries: under per-op SAC, each save-list op that saved something, recomputed; without
    checkpointing, each way to checkpoint the blocks (whole; per-op with the configuration's policy; the partitioner's
    memory budget); under --ac full, a per-op policy that tags every op for recompute (it reaches ops a region's
    tagging does not, such as those inside an autograd.Function on some torch releases)."""
    if cfg.ac == AcMode.OP:
        return [
            EditSpec(
                flag=f"--recompute-op {flag_op(op)}",
                edit=f"remove {flag_op(op)} from the SAC save list",
                config=replace(cfg, recompute_ops=cfg.recompute_ops + (op,)),
                directory=f"recompute-{op.replace('.', '-')}",
                op=op,
            )
            for op in candidate_ops(base)
        ]
    if cfg.ac == AcMode.NONE:
        return _lost_tags(base, cfg) + [
            EditSpec(
                flag="--ac full", edit="checkpoint every block whole", config=replace(cfg, ac=AcMode.FULL), directory="ac-full"
            ),
            EditSpec(
                flag=f"--ac op --ac-policy {cfg.ac_policy}",
                edit=f"per-op SAC with the {cfg.ac_policy} policy",
                config=replace(cfg, ac=AcMode.OP),
                directory=f"ac-op-{cfg.ac_policy}",
            ),
            EditSpec(
                flag=f"--ac memory-budget --memory-budget {cfg.memory_budget:g}",
                edit=f"the partitioner's activation memory budget at {cfg.memory_budget:g}",
                config=replace(cfg, ac=AcMode.MEMORY_BUDGET),
                directory="ac-memory-budget",
            ),
        ]
    return [_recompute_all(cfg, "in place of the whole-block checkpoint")]


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
    python: str | None = None,
) -> tuple[S.ExplainResult, Path]:
    """Explain a finished run (``run_dir``) or a configuration (``cfg``, run first); writes explain.json and returns
    its record with the directory it was written to. A finished run's model is run again only when ``named`` (the
    user's ``model`` / ``hf_config``) names the same one (:func:`~memprobe.config.recorded_to_run`; ``how``: how the
    user passes it, in the refusal). The edits are checked with the interpreter the run was recorded with (``python``,
    ``--python``: the user names it; :func:`~memprobe.orchestrate.process.recorded_side`), or ``python`` for a
    configuration."""
    analysis_only = not full
    side = interpreter_side(python)
    if run_dir is not None:  # every argument is checked before --out is touched
        base = load_report(run_dir)
        cfg = recorded_to_run(base.config.probe(), named or {}, str(Path(run_dir) / "report.json"), how)
        side = recorded_side(base, python, str(run_dir))
        graph_pairs(run_dir, base)  # its graphs read and checked now, not after the edited runs
    check_explainable(cfg)
    out = out or default_run_dir("explain")
    prepare_run_dir(out, force)
    if run_dir is None:
        base_dir = out / "base"
        base_job = ProbeJob("base", cfg, base_dir, side=side, analysis_only=analysis_only)
        base = run_jobs([base_job], progress=progress, verbose=verbose)["base"]
    else:
        base_dir = Path(run_dir)
    edits = candidate_edits(base, cfg)
    jobs = [ProbeJob(e.flag, e.config, out / e.directory, side=side, analysis_only=analysis_only) for e in edits]
    reports = run_jobs(jobs, progress=progress, verbose=verbose, slots=slots, gpus=gpus)
    mode = RunMode.ANALYSIS_ONLY if analysis_only else RunMode.FULL
    result = explain_runs(base, base_dir, {e: (reports[e.flag], job.out) for e, job in zip(edits, jobs)}, mode)
    result.verdict = explain_verdict(result)
    atomic_write_json(out / "explain.json", dump(result))
    return result, out

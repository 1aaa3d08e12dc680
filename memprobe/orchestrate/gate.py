"""``memprobe gate`` and ``memprobe budget``: the probes of a budget, each in its own process, checked
against their limits (:mod:`memprobe.budget` holds the file format and the evaluation)."""

from __future__ import annotations

from pathlib import Path

from ..analysis.rundir import load_report
from ..budget import Budget, BudgetError, baseline_entry, evaluate, explain_breach, load_baseline
from ..capture.rundir import atomic_write_json, default_run_dir, prepare_run_dir
from ..config import ProbeConfig
from ..errors import MemprobeError
from ..vocab import Verdict
from .process import ProbeJob, Progress, run_jobs


class ProbeFailed(MemprobeError):
    """A probe gave no verdict (its run failed, or never ran): the gate fails (exit 2), naming it."""

    exit_code = 2


def match_finished(entries: tuple[str, ...], budget: Budget, wanted: dict) -> dict[str, Path]:
    """``--from [NAME=]RUN_DIR``: which probe each finished run stands for."""
    out: dict[str, Path] = {}
    for entry in entries:
        name, _, path = entry.rpartition("=") if "=" in entry and not Path(entry).exists() else ("", "", entry)
        report = load_report(path)
        if name:
            if name not in budget.probes:
                raise BudgetError(f"{budget.path}: no probe {name!r} (probes: {', '.join(budget.probes)})")
        else:
            cfg = ProbeConfig.from_dict(report["config"]).validated()
            names = [n for n, p in wanted.items() if p.config == cfg]
            if not names:
                raise BudgetError(f"{budget.path}: run {path} matches no probe's configuration; name it: --from NAME={path}")
            name = names[0]
        out[name] = Path(path)
    return out


def run_gate(
    budget: Budget,
    wanted: dict,
    finished: dict[str, Path],
    *,
    baseline_path: Path,
    update_baseline: bool,
    out: Path | None,
    force: bool,
    progress: Progress,
    verbose: bool = False,
    slots: int = 1,
    gpus: list[str] | None = None,
) -> dict:
    """Run (or load) each wanted probe and evaluate its limits; the gate's result as data."""
    baseline = load_baseline(baseline_path)
    to_run = [n for n in wanted if n not in finished]
    if to_run:
        out = out or default_run_dir("gate")
        prepare_run_dir(out, force)
    jobs = [ProbeJob(name, wanted[name].config, out / name) for name in to_run]
    ran = run_jobs(jobs, progress=progress, verbose=verbose, slots=slots, gpus=gpus, keep_going=True)
    reports: dict[str, dict] = {}
    for name in wanted:
        if name in finished:
            reports[name] = load_report(finished[name])
            progress(f"[{name}] loaded {finished[name]}")
            continue
        res = ran.get(name)
        if isinstance(res, MemprobeError):
            raise ProbeFailed(f"probe {name!r} gave no verdict: {res}")
        reports[name] = res
    for name in wanted:  # a probe without a complete report never passes
        status = (reports.get(name) or {}).get("status")
        if status != "complete":
            raise ProbeFailed(f"probe {name!r} gave no verdict: its run is {status or 'missing'}, not complete")

    verdicts, explanations = [], {}
    for name, report in reports.items():
        entry = baseline["probes"].get(name)
        vs = evaluate(wanted[name], report, entry)
        if not vs:
            raise ProbeFailed(f"probe {name!r} gave no verdict: it has no limits")
        verdicts += vs
        if any(v["verdict"] == Verdict.FAIL for v in vs):
            explanations[name] = explain_breach(report, entry)
    counts = {str(k): sum(v["verdict"] == k for v in verdicts) for k in Verdict}
    result = {
        "budget": str(budget.path),
        "baseline": str(baseline_path),
        "verdicts": verdicts,
        "explanations": explanations,
        "counts": counts,
        "runs": {n: str(finished.get(n) or out / n) for n in reports},
    }
    if update_baseline:
        for name, report in reports.items():
            baseline["probes"][name] = baseline_entry(report)
        atomic_write_json(baseline_path, baseline)
        result["baseline_updated"] = True
    return result


def run_budget_probe(cfg: ProbeConfig, *, out: Path, progress: Progress, verbose: bool = False) -> dict:
    """The one run ``memprobe budget`` writes a budget from (in its own process)."""
    return run_jobs([ProbeJob("budget", cfg, out)], progress=progress, verbose=verbose)["budget"]

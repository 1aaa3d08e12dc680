"""``memprobe sweep``: the partitioner's activation memory budget (``--ac budget``, torchtitan's MemoryBudgetAC)
swept over values, each probe in its own process: saved bytes and the measured peak against the budget."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..capture.rundir import atomic_write_json, default_run_dir, prepare_run_dir
from ..config import ProbeConfig
from ..errors import ConfigError
from .process import ProbeJob, Progress, run_jobs


def parse_budgets(text: str) -> list[float]:
    """``0,0.25,0.5,0.75,1`` -> budgets, each in [0, 1], sorted and distinct."""
    try:
        values = sorted({float(v) for v in text.split(",") if v.strip()})
    except ValueError:
        raise ConfigError(f"--budgets {text!r}: expected numbers between 0 and 1, separated by commas") from None
    if not values or any(not 0 <= v <= 1 for v in values):
        raise ConfigError(f"--budgets {text!r}: expected numbers between 0 and 1, separated by commas")
    return values


def _point(budget: float, report: dict, run: Path) -> dict:
    phases = (report.get("memory") or {}).get("phases") or {}
    peaks = [p["peak_bytes"] for p in phases.values()]
    return {
        "budget": budget,
        "run": str(run),
        "saved_bytes": (report.get("saved_totals") or {}).get("graph_bytes"),
        "step_peak_bytes": max(peaks) if peaks else None,
        "forward_end_bytes": (phases.get("forward") or {}).get("end_bytes"),
        "source": (report.get("memory") or {}).get("source"),
    }


def inversions(points: list[dict], key: str) -> list[dict]:
    """Pairs where less budget gave more bytes (``key``): the partitioner's budget is not monotonic there."""
    out = []
    for i, lo in enumerate(points):
        for hi in points[i + 1 :]:
            if lo[key] is not None and hi[key] is not None and lo[key] > hi[key]:
                out.append(
                    {
                        "metric": key,
                        "lower_budget": lo["budget"],
                        "higher_budget": hi["budget"],
                        "lower_budget_bytes": lo[key],
                        "higher_budget_bytes": hi[key],
                        "excess_bytes": lo[key] - hi[key],
                    }
                )
    return out


def run_sweep(
    cfg: ProbeConfig,
    budgets: list[float],
    *,
    out: Path | None,
    force: bool,
    progress: Progress,
    verbose: bool = False,
    slots: int = 1,
    gpus: list[str] | None = None,
) -> tuple[dict, Path]:
    if not cfg.compile:
        raise ConfigError("the memory budget is the compiler partitioner's: the sweep needs --compile")
    out = out or default_run_dir("sweep")
    prepare_run_dir(out, force)
    jobs = [
        ProbeJob(f"budget {b:g}", replace(cfg, ac="budget", memory_budget=b).validated(), out / f"budget-{b:g}") for b in budgets
    ]
    reports = run_jobs(jobs, progress=progress, verbose=verbose, slots=slots, gpus=gpus)
    points = [_point(b, reports[job.label], job.out) for b, job in zip(budgets, jobs)]
    flagged = inversions(points, "step_peak_bytes") + inversions(points, "saved_bytes")
    result = {
        "sweep_schema_version": 1,
        "config": cfg.to_dict(),
        "summary": cfg.summary(),
        "points": points,
        "inversions": flagged,
        "note": "budget 0: the partitioner recomputes what it can; 1: its runtime-optimal partition "
        "(torch._functorch.config.activation_memory_budget, torchtitan's MemoryBudgetAC)",
    }
    atomic_write_json(out / "sweep.json", result)
    return result, out

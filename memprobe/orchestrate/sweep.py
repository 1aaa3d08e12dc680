"""``memprobe sweep``: the partitioner's activation memory budget (``--ac memory-budget``, torchtitan's MemoryBudgetAC)
swept over values, each probe in its own process: saved bytes and the measured peak against the budget."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..config import ProbeConfig
from ..errors import ConfigError
from ..fields import shown
from ..rundir import schema as S
from ..rundir.load import dump
from ..rundir.write import atomic_write_json
from ..units import decimal
from ..vocab import AcMode, Phase
from .options import RunOptions
from .process import ProbeJob, interpreter_side, run_jobs


def parse_budgets(text: str) -> list[float]:
    """``0,0.25,0.5,0.75,1`` -> budgets, each in [0, 1], sorted and distinct."""
    bad = ConfigError(f"--budgets {shown(text)}: expected numbers between 0 and 1, separated by commas")
    try:
        values = sorted({decimal(v) for v in text.split(",") if v.strip()})
    except ValueError:
        raise bad from None
    if not values or any(not 0 <= v <= 1 for v in values):
        raise bad
    return values


def _point(budget: float, report: S.Report, run: Path) -> S.SweepPoint:
    memory = report.memory
    phases = (memory.phases if memory else None) or {}
    peaks = [p.peak_bytes for p in phases.values()]
    forward = phases.get(Phase.FORWARD)
    return S.SweepPoint(
        budget=budget,
        run=str(run),
        saved_bytes=report.saved_totals.graph_bytes if report.saved_totals else None,
        step_peak_bytes=max(peaks) if peaks else None,
        forward_end_bytes=forward.end_bytes if forward else None,
        source=memory.source if memory else None,
    )


def inversions(points: list[S.SweepPoint], key: str) -> list[S.Inversion]:
    """Pairs where less budget gave more bytes (``key``): the partitioner's budget is not monotonic there."""
    out = []
    for i, lo in enumerate(points):
        for hi in points[i + 1 :]:
            low, high = getattr(lo, key), getattr(hi, key)
            if low is not None and high is not None and low > high:
                out.append(
                    S.Inversion(
                        metric=key,
                        lower_budget=lo.budget,
                        higher_budget=hi.budget,
                        lower_budget_bytes=low,
                        higher_budget_bytes=high,
                        excess_bytes=low - high,
                    )
                )
    return out


def run_sweep(cfg: ProbeConfig, budgets: list[float], run: RunOptions) -> tuple[S.SweepResult, Path]:
    """Sweep ``budgets`` (each probe with ``run.python``, ``--python``: another interpreter): writes sweep.json and
    returns its record with its directory."""
    if not cfg.compile:
        raise ConfigError("the memory budget is the compiler partitioner's: the sweep needs --compile")
    side = interpreter_side(run.python)
    out = run.directory("sweep")
    jobs = [
        ProbeJob(f"budget {b:g}", replace(cfg, ac=AcMode.MEMORY_BUDGET, memory_budget=b), out / f"budget-{b:g}", side=side)
        for b in budgets
    ]
    reports = run_jobs(jobs, **run.schedule())
    points = [_point(b, reports[job.label], job.out) for b, job in zip(budgets, jobs)]
    flagged = inversions(points, "step_peak_bytes") + inversions(points, "saved_bytes")
    result = S.SweepResult(
        sweep_schema_version=1,
        config=S.Config.model_validate(cfg.to_dict()),
        summary=cfg.summary(),
        points=points,
        inversions=flagged,
        note="budget 0: the partitioner recomputes what it can; 1: its runtime-optimal partition "
        "(torch._functorch.config.activation_memory_budget, torchtitan's MemoryBudgetAC)",
    )
    atomic_write_json(out / "sweep.json", dump(result))
    return result, out

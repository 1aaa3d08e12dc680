"""The gate's figures of one run: each metric a limit may bound (bytes; None where the run lacks it)."""

from __future__ import annotations

from ..analysis.diff import step_saved_bytes
from ..rundir import schema as S
from ..vocab import Phase, SavedKind


def figures(report: S.Report) -> dict[str, int | None]:
    """The gate's metrics for one run report (bytes; None when the run lacks the figure)."""
    graphs = [g.peak_bytes for g in report.graph_memory or [] if g.peak_bytes is not None]
    phases = (report.memory.phases if report.memory else None) or {}
    out: dict[str, int | None] = {
        "saved_bytes": step_saved_bytes(report),
        "weight_derived_saved_bytes": _weight_derived_bytes(report),
        "graph_peak_bytes": max(graphs) if graphs else None,
    }
    for phase in Phase:
        out[f"{phase}_peak_bytes"] = phases[phase].peak_bytes if phase in phases else None
    out["forward_end_bytes"] = phases[Phase.FORWARD].end_bytes if Phase.FORWARD in phases else None
    peaks = [p.peak_bytes for p in phases.values()]
    out["step_peak_bytes"] = max(peaks) if peaks else None
    return out


def _weight_derived_bytes(report: S.Report) -> int | None:
    """What a run saves that is derived from weights: 0 when it saved nothing; None without a saved table."""
    rows = report.saved_tensors
    if rows:
        return sum(r.bytes for r in rows if r.kind == SavedKind.WEIGHT_DERIVED)
    return 0 if report.saved_totals else None

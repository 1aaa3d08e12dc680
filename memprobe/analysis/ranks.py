"""The run directory of a multi-rank probe: each rank's ``rank<R>/`` merged into the top-level report.

Rank 0's graphs and table; the memory figures as the max over the ranks of this node; a
per-rank table with the skew. Pure: it reads the ranks' reports, already analysed.
"""

from __future__ import annotations

from ..errors import RunFailed
from ..rundir import schema as S
from ..vocab import RunStatus

# a rank's figures in the per-rank table, besides its phases' peaks
_PHASE_PEAKS = ("forward_peak_bytes", "backward_peak_bytes", "optimizer_peak_bytes")
_FIGURES = (*_PHASE_PEAKS, "peak_reserved_bytes")


def _rank_row(rank: int, rep: S.Report) -> S.RankRow:
    pers = rep.memory.persistent if rep.memory else None
    totals = rep.saved_totals
    step = rep.timings_s.measured_step if rep.timings_s else None
    return S.RankRow(
        rank=rank,
        status=rep.status,
        run_dir=f"rank{rank}",
        parameters_bytes=pers.parameters_bytes if pers else None,
        optimizer_state_bytes=pers.optimizer_state_bytes if pers else None,
        saved_graph_bytes=totals.graph_bytes if totals else None,
        saved_runtime_bytes=totals.runtime_bytes if totals else None,
        **_rank_peaks(rep),
        **({"measured_step_s": step} if step is not None else {}),
    )


def _rank_peaks(rep: S.Report) -> dict[str, int]:
    """A rank's peaks in the per-rank table: each phase's allocated peak and the highest reserved one."""
    phases = (rep.memory.phases if rep.memory else None) or {}
    peaks = {f"{name}_peak_bytes": p.peak_bytes for name, p in phases.items() if p.peak_bytes is not None}
    reserved = [p.peak_reserved_bytes for p in phases.values() if p.peak_reserved_bytes is not None]
    if reserved:
        peaks["peak_reserved_bytes"] = max(reserved)
    return {k: v for k, v in peaks.items() if k in _FIGURES}


def _largest_and_slowest(rows: list[S.RankRow]) -> tuple[int | None, int | None]:
    """The rank whose step peaked highest (allocated, over its phases) and the one whose measured step took longest."""

    def peak(r: S.RankRow) -> int | None:
        values = [getattr(r, k) for k in _PHASE_PEAKS if isinstance(getattr(r, k), int)]
        return max(values) if values else None

    peaked = [(peak(r), r.rank) for r in rows if peak(r) is not None]
    timed = [(r.measured_step_s, r.rank) for r in rows if r.measured_step_s is not None]
    return (max(peaked)[1] if peaked else None), (max(timed)[1] if timed else None)


def _status(ranks: dict[int, S.Report], nproc: int) -> RunStatus:
    statuses = [rep.status for rep in ranks.values()]
    if all(s == RunStatus.COMPLETE for s in statuses) and len(ranks) == nproc:
        return RunStatus.COMPLETE
    if RunStatus.OOM in statuses:
        return RunStatus.OOM
    return RunStatus.INTERRUPTED if RunStatus.INTERRUPTED in statuses else RunStatus.FAILED


def merge_ranks(ranks: dict[int, S.Report], nproc: int, where: str) -> S.Report:
    """The top-level report of a multi-rank run from its ranks' reports (by rank); RunFailed without rank 0's."""
    if 0 not in ranks:
        raise RunFailed(f"rank 0 wrote no report in {where}/rank0; run with --verbose to see the ranks' output")
    merged = ranks[0].model_copy(deep=True)
    _point_into_rank0(merged)
    rows = [_rank_row(rank, rep) for rank, rep in sorted(ranks.items())]
    maximum, skew = _max_and_skew(rows)
    _phases_at_their_max(merged, ranks)  # the headline: every phase figure is the max over the ranks
    merged.status = _status(ranks, nproc)
    if merged.status != RunStatus.COMPLETE:
        merged.error = _ranks_error(ranks, nproc)
    first = ranks[0].distributed
    largest, slowest = _largest_and_slowest(rows)
    merged.distributed = S.Distributed(
        world_size=first.world_size if first else None,
        nproc_per_node=nproc,
        backend=first.backend if first else None,
        launcher="torchrun (torch.distributed.run)",
        ranks=rows,
        max_bytes=maximum,
        skew_bytes=skew,
        headline="memory phase figures are the max over this node's ranks; graphs, output code and the "
        "saved table are rank 0's (per-rank run dirs under rank<R>/)",
        largest_rank=largest,
        slowest_rank=slowest,
    )
    return merged


def _point_into_rank0(merged: S.Report) -> None:
    """Rank 0's report made the top level's: the files it names (graphs, the snapshot) are under rank0/."""
    for g in merged.graphs:
        g.files = S.GraphFiles(**{k: f"rank0/{getattr(g.files, k)}" for k in g.files.model_fields_set})
    snap = merged.memory.snapshot if merged.memory else None
    if snap and snap.file:
        snap.file = f"rank0/{snap.file}"


def _max_and_skew(rows: list[S.RankRow]) -> tuple[dict[str, int], dict[str, int]]:
    """Each byte figure of the per-rank table (those rank 0's row has): its max over the ranks, and max - min."""
    keys = [k for k in S.RankRow.model_fields if k.endswith("_bytes") and k in rows[0].model_fields_set]
    maximum, skew = {}, {}
    for k in keys:
        values = [getattr(r, k) for r in rows if isinstance(getattr(r, k), int)]
        if values:
            maximum[k] = max(values)
            skew[k] = max(values) - min(values)
    return maximum, skew


def _phases_at_their_max(merged: S.Report, ranks: dict[int, S.Report]) -> None:
    """Each byte figure of each phase of the merged report set to its max over the ranks that measured it."""
    for name, phase in ((merged.memory.phases if merged.memory else None) or {}).items():
        for fig in [k for k in S.PhaseMemory.model_fields if k.endswith("_bytes") and k in phase.model_fields_set]:
            values = [v for v in (_phase_figure(rep, name, fig) for rep in ranks.values()) if isinstance(v, int)]
            if values:
                setattr(phase, fig, max(values))


def _phase_figure(rep: S.Report, phase: str, fig: str):
    """One rank's figure ``fig`` of its phase ``phase`` (None where it measured none)."""
    if not (rep.memory and rep.memory.phases):
        return None
    return getattr(rep.memory.phases.get(phase), fig, None)


def _ranks_error(ranks: dict[int, S.Report], nproc: int) -> str | None:
    """Why a multi-rank run did not complete: each rank's error, and the ranks that wrote no report."""
    errors = [f"rank {r}: {rep.error}" for r, rep in sorted(ranks.items()) if rep.error]
    missing = sorted(set(range(nproc)) - set(ranks))
    if missing:
        errors.append(f"no report from rank(s) {', '.join(map(str, missing))}")
    return "; ".join(errors) or None

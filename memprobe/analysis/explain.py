"""Rank SAC policy edits (one save-list op moved to recompute each) by bytes freed per added FLOP.

Pure: it reads the base run's and each edited run's reports and graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config import ProbeConfig
from ..rundir import schema as S
from ..vocab import CheckpointDecision, DiffStatus, Reason, RunMode, SaveCause
from .diff import GROWTH, diff_reports
from .recompute import recompute_cost
from .saved import graph_pairs, label


def _summary(report: S.Report, run_dir: Path) -> tuple[int | None, S.RecomputeCost]:
    """A run's saved bytes (derived) and what it recomputes in backward."""
    saved = report.saved_totals.graph_bytes if report.saved_totals else None
    return saved, recompute_cost(graph_pairs(run_dir, report), report.invocations)


def candidate_ops(report: S.Report) -> list[str]:
    """Save-list ops that really saved something in this run."""
    used = {op for op, d in (report.policy_decisions or {}).items() if d.get(CheckpointDecision.MUST_SAVE)}
    named = {r.policy_op for r in report.saved_tensors if r.policy_op}
    return [op for op in (report.policy.save_ops if report.policy else None) or [] if op in used or op in named]


def candidate_regions(report: S.Report) -> list[str]:
    """The torch_remat regions (names in their block) whose recompute=False tag kept something in this run, the one
    that kept the most bytes first."""
    kept: dict[str, int] = {}
    for r in report.saved_tensors:
        if r.cause is not None and r.cause.kind == SaveCause.REGION_TAG and r.cause.region:
            kept[r.cause.region] = kept.get(r.cause.region, 0) + r.bytes
    return sorted(kept, key=lambda name: (-kept[name], name))


def _edit_item(it: S.DiffItem) -> S.EditItem:
    return S.EditItem(
        expr=it.expr,
        user=it.user,
        count=it.count,
        kind=it.kind,
        bytes_a=it.bytes_a,
        bytes_b=it.bytes_b,
        delta_bytes=it.delta_bytes,
        label=label(it),
    )


def _partitioner_item(r: S.SavedRow) -> S.PartitionerItem:
    fate = (
        f"saved by the partitioner: {r.cause.text}"
        if r.cause is not None and r.cause.kind != SaveCause.UNRECORDED
        else (
            f"saved by the min-cut partitioner: recomputing {r.op} in backward would cost more than keeping it; "
            f"it changes if its inputs are saved instead (--save-op on their producer) or if the value itself "
            f"is made MUST_SAVE/recomputable by the policy (--save-op aten.{r.op})"
        )
    )
    return S.PartitionerItem(expr=r.expr, user=r.user, block=r.block, bytes=r.bytes, op=r.op, fate=fate, label=label(r))


@dataclass(frozen=True)
class EditSpec:
    """One edit explain tries: its flag, the edit in words, the configuration it makes, the directory of its run, and
    the save-list op it recomputes (for a policy edit)."""

    flag: str
    edit: str
    config: ProbeConfig
    directory: str
    op: str | None = None


def explain_runs(
    base: S.Report, base_dir: Path, variants: dict[EditSpec, tuple[S.Report, Path]], mode: RunMode = RunMode.FULL
) -> S.ExplainResult:
    """Rank edits (a save-list op moved to recompute, another AC mode) by bytes saved per added FLOP; ``mode``: how the
    edited runs ran."""
    base_saved, base_cost = _summary(base, base_dir)
    edits = []
    for spec, (report, run_dir) in variants.items():
        saved_bytes, cost = _summary(report, run_dir)
        saved = (base_saved or 0) - (saved_bytes or 0)
        flops = cost.flops - base_cost.flops
        d = diff_reports(base, report)
        edits.append(
            S.Edit(
                op=spec.op,
                edit=spec.edit,
                flag=spec.flag,
                bytes_saved=saved,
                recompute_flops_added=flops,
                recompute_bytes_added=cost.bytes_moved - base_cost.bytes_moved,
                bytes_saved_per_flop=saved / max(flops, 1),
                freed=[_edit_item(it) for it in d.items if it.status in (DiffStatus.ONLY_A, DiffStatus.SHRUNK)],
                added=[_edit_item(it) for it in d.items if it.status in GROWTH],
                run=str(run_dir),
            )
        )
    edits.sort(key=lambda e: (-(e.bytes_saved > 0), -e.bytes_saved_per_flop, -e.bytes_saved))
    partitioner = [_partitioner_item(r) for r in base.saved_tensors if r.reason_kind == Reason.PARTITIONER]
    return S.ExplainResult(
        base=S.ExplainBase(
            config=S.Config.model_validate(base.config.probe().to_dict()),
            saved_bytes=base_saved,
            recompute=base_cost,
            run=str(base_dir),
        ),
        edits=edits,
        partitioner_items=partitioner,
        mode=mode,
    )

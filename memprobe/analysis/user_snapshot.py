"""A CUDA memory snapshot taken elsewhere, read alone: the record of what is alive at the peak of its history, by
category and by the innermost frame of the user's own code, and what one snapshot holds at its peak that another does
not.

Every block is named from its allocation stack alone (:data:`SCOPE` says so wherever the figures are shown): the
user's script recorded the history, memprobe recorded nothing of that run. The snapshot is read into plain figures by
:mod:`memprobe.analysis.snapshot_read` (which says how blocks are named), in a forked process where a verb reads it;
this module makes the record of them. A diff reads one snapshot, keeps its figures and lets its data go before it
reads the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..rundir import schema as S
from ..units import fmt_bytes, fmt_delta
from ..vocab import AttributionSource, DiffStatus
from .peaks import summarize_alive, within_bounds
from .snapshot import Snapshot
from .snapshot_read import Read, Series, read_loaded, read_snapshot

SCOPE = (
    "from the allocator's history alone: categories and frames come from the allocation stacks; no phases, no "
    "compiled graphs, no saved-for-backward table (`memprobe run` records those)"
)
TOP = 50  # groups a record keeps (the console shows fewer; --wide all of these)
WHERE = "the snapshot's allocator history"


# -- one snapshot -----------------------------------------------------------------------------------------------


@dataclass
class Analysed:
    """A snapshot read: its record, every group alive at its peak (``(category, frame) -> [bytes, blocks]``, which a
    diff compares whole) and, when asked for, its timeline."""

    summary: S.SnapshotSummary
    groups: dict[tuple[str, str], list[int]]
    timeline: S.Timeline | None = None


def analyse_snapshot(path: str | Path, *, with_timeline: bool = False, top: int = TOP) -> Analysed:
    """Read the snapshot at ``path`` (a file the user named: a symbolic link is followed) here and say what is alive
    at the peak of its history; SnapshotError (exit 2) in one line when it is not one memprobe reads. (The verbs
    read it in a forked process: :func:`~memprobe.analysis.snapshot_read.read_snapshot`, then :func:`analysed`.)"""
    return analysed(read_snapshot(path, with_timeline=with_timeline), path, top=top)


def analyse_loaded(snap: Snapshot, path: str | Path, *, with_timeline: bool = False, top: int = TOP) -> Analysed:
    """:func:`analyse_snapshot` of a snapshot already loaded from ``path``."""
    return analysed(read_loaded(snap, with_timeline=with_timeline), path, top=top)


def analysed(read: Read, path: str | Path, *, top: int = TOP) -> Analysed:
    """The record of a snapshot read from ``path``: its summary, its groups, its timeline (when it was read with
    one)."""
    timeline = _timeline(read.timeline) if read.timeline is not None else None
    return Analysed(_summary(Path(path), read, top), read.groups, timeline)


def _summary(path: Path, read: Read, top: int) -> S.SnapshotSummary:
    history, groups = read.history, read.groups
    ranked = sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0]))
    alive = summarize_alive(((c, f, g[0], g[2]) for (c, f), g in ranked), history.peak_index, WHERE, top)
    user = sum(g[0] for (_c, f), g in groups.items() if not f.startswith("("))
    summary = S.SnapshotSummary(
        kind="snapshot",
        file=str(path),
        file_bytes=read.file_bytes,
        scope=SCOPE,
        device=read.device,
        devices=read.devices,
        events=read.events,
        start_bytes=within_bounds(history.start, "the level where the history starts", WHERE),
        peak_bytes=within_bounds(history.peak, "the peak", WHERE),
        peak_event=history.peak_index,
        peak_t_us=read.peak_t_us,
        end_bytes=within_bounds(history.end, "the level where the history ends", WHERE),
        reserved_bytes=within_bounds(read.reserved_bytes, "the segments' reserved bytes", WHERE),
        named_fraction=alive.named_fraction,
        user_code_fraction=user / alive.alive_bytes if alive.alive_bytes else None,
        by_category_bytes=alive.by_category_bytes,
        groups=len(groups),
        top_items=[it.model_copy(update={"blocks": groups[(it.category, it.item)][1]}) for it in alive.top_items],
        verdict=S.Verdict(text=""),
    )
    return summary.model_copy(update={"verdict": snapshot_verdict(summary)})


def snapshot_verdict(s: S.SnapshotSummary) -> S.Verdict:
    """The answer first: the peak, and the largest group alive there."""
    at = f"event {s.peak_event + 1} of {s.events}" if s.peak_event >= 0 else "where the history starts"
    head = f"The peak is {fmt_bytes(s.peak_bytes)} allocated ({at})"
    if not s.top_items:
        return S.Verdict(text=head + ": nothing is alive there.", bytes=s.peak_bytes)
    top = s.top_items[0]
    share = f" ({top.bytes / s.peak_bytes:.0%})" if s.peak_bytes else ""
    text = f"{head}: the largest part, {fmt_bytes(top.bytes)}{share}, is {top.category} from {top.item}."
    return S.Verdict(text=text, bytes=s.peak_bytes, total_bytes=top.bytes)


def snapshot_summary(path: str | Path) -> S.SnapshotSummary:
    """`memprobe show SNAPSHOT.pickle`'s record."""
    return analyse_snapshot(path).summary


def _timeline(series: Series) -> S.Timeline:
    """The record of a history's timeline (the HTML page's chart and the trace)."""
    return S.Timeline(
        source=AttributionSource.CUDA_SNAPSHOT,
        baseline="absolute bytes allocated on the device, over the whole recorded history",
        phases=[],
        regions=[],
        ops=[],
        total=series.total,
        categories=series.categories,
        peak=S.TimelinePeak(t_us=series.peak_t_us, bytes=series.peak_bytes),
        events=series.events,
    )


# -- two snapshots ----------------------------------------------------------------------------------------------------


def _delta(a: int | None, b: int | None) -> S.Delta:
    return S.Delta(a=a, b=b, delta=b - a if a is not None and b is not None else None)


def _status(bytes_a: int, bytes_b: int) -> DiffStatus:
    if not bytes_a:
        return DiffStatus.ONLY_B
    if not bytes_b:
        return DiffStatus.ONLY_A
    return DiffStatus.GROWN if bytes_b > bytes_a else DiffStatus.SHRUNK


def compare(a: Analysed, b: Analysed, *, top: int = TOP) -> S.SnapshotDiff:
    """Two snapshots read, compared: their figures side by side, the groups that differ ranked (B's excess first)."""
    sa, sb = a.summary, b.summary
    items, unchanged = [], 0
    for key in sorted(set(a.groups) | set(b.groups)):
        ga, gb = a.groups.get(key, (0, 0)), b.groups.get(key, (0, 0))
        if ga[0] == gb[0]:
            unchanged += 1
            continue
        items.append(
            S.SnapshotDiffItem(
                status=_status(ga[0], gb[0]),
                category=key[0],
                frame=key[1],
                bytes_a=ga[0],
                bytes_b=gb[0],
                delta_bytes=gb[0] - ga[0],
                blocks_a=ga[1],
                blocks_b=gb[1],
            )
        )
    items.sort(key=lambda it: (-it.delta_bytes, it.category, it.frame))
    ranked = [it for it in items if it.delta_bytes > 0][:top] + [it for it in reversed(items) if it.delta_bytes < 0][:top]
    categories = sorted(set(sa.by_category_bytes) | set(sb.by_category_bytes))
    result = S.SnapshotDiff(
        kind="snapshot-diff",
        a=sa,
        b=sb,
        scope=SCOPE,
        peak_bytes=_delta(sa.peak_bytes, sb.peak_bytes),
        start_bytes=_delta(sa.start_bytes, sb.start_bytes),
        end_bytes=_delta(sa.end_bytes, sb.end_bytes),
        reserved_bytes=_delta(sa.reserved_bytes, sb.reserved_bytes),
        by_category={c: _delta(sa.by_category_bytes.get(c, 0), sb.by_category_bytes.get(c, 0)) for c in categories},
        items=ranked,
        differences=len(items),
        unchanged=unchanged,
        verdict=S.Verdict(text=""),
    )
    return result.model_copy(update={"verdict": snapshot_diff_verdict(result)})


def snapshot_diff_verdict(d: S.SnapshotDiff) -> S.Verdict:
    """The answer first: how the peaks differ, and the group whose bytes differ most in the peak's direction."""
    pk = d.peak_bytes
    if not d.items:
        return S.Verdict(
            text=f"The peaks are {fmt_bytes(pk.a)} and {fmt_bytes(pk.b)}; nothing alive at them differs.",
            bytes=0,
            total_bytes=pk.delta,
        )
    grew = (pk.delta or 0) >= 0
    lead = next((it for it in d.items if (it.delta_bytes > 0) == grew), d.items[0])
    where = {DiffStatus.ONLY_B: "alive at B's peak only", DiffStatus.ONLY_A: "alive at A's peak only"}.get(
        lead.status, f"{fmt_bytes(lead.bytes_a)} -> {fmt_bytes(lead.bytes_b)}"
    )
    head = (
        f"B's peak is {fmt_bytes(abs(pk.delta))} {'higher' if pk.delta > 0 else 'lower'} than A's"
        f" ({fmt_bytes(pk.a)} -> {fmt_bytes(pk.b)})"
        if pk.delta
        else f"The peaks are the same ({fmt_bytes(pk.a)})"
    )
    text = f"{head}: {fmt_delta(lead.delta_bytes)} of {lead.category} from {lead.frame} ({where})."
    return S.Verdict(text=text, bytes=lead.delta_bytes, total_bytes=pk.delta)

"""Summaries of what is alive at a moment, shared by the CUDA and CPU attributions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import RunDirError
from ..rundir import schema as S
from ..rundir.read import MAX_INT
from ..vocab import AttributionSource, Category, Phase


def within_bounds(nbytes: int, what: str, where: str) -> int:
    """``nbytes`` of memory a recording says were alive at once, refused beyond the 2**63 bytes a record holds (no
    allocator records more: the recording ``where`` is damaged or crafted)."""
    if not -MAX_INT <= nbytes <= MAX_INT:
        raise RunDirError(f"{where}: {what} comes to {nbytes} bytes, beyond what any allocator records; refused")
    return nbytes


@dataclass
class Alive:
    """What is alive at one moment: by category, the largest items, the saved-for-backward items."""

    event_index: int
    alive_bytes: int
    named_fraction: float | None  # the share in a named category (anything but ``other``)
    by_category_bytes: dict[Category, int]
    top_items: list[S.AliveItem]
    saved_for_backward: list[S.AliveItem]

    where: str  # the recording it was read from, for an error

    def at_peak(self, peak_bytes: int) -> S.AttributionPhase:
        """This moment as a phase's peak."""
        return S.AttributionPhase(
            peak_bytes=within_bounds(peak_bytes, "a phase's peak", self.where),
            event_index=self.event_index,
            alive_bytes=self.alive_bytes,
            named_fraction=self.named_fraction,
            by_category_bytes=self.by_category_bytes,
            top_items=self.top_items,
            saved_for_backward=self.saved_for_backward,
        )

    def at_end(self) -> S.AliveAtEnd:
        """This moment as a phase's end (the end of forward: what the step holds for backward)."""
        return S.AliveAtEnd(
            event_index=self.event_index,
            alive_bytes=self.alive_bytes,
            by_category_bytes=self.by_category_bytes,
            top_items=self.top_items,
        )


def summarize_alive(named: Iterable[tuple[str, str, int, str | None]], event_index: int, where: str, top: int = 15) -> Alive:
    """``named``: (category, item, bytes, evidence) per allocation alive right after event ``event_index`` of the
    recording ``where``.

    Returns the bytes by category, the largest items, the saved-for-backward items, and the
    fraction of bytes in a named category (anything but ``other``).
    """
    by_cat: dict[str, int] = defaultdict(int)
    items: dict[tuple, dict] = {}
    for category, item, nbytes, evidence in named:
        by_cat[category] += nbytes
        it = items.setdefault((category, item), {"category": category, "item": item, "bytes": 0, "blocks": 0})
        if evidence is not None:
            it["evidence"] = evidence
        it["bytes"] += nbytes
        it["blocks"] += 1
    # every size is at least 0, so no item or category holds more than the total
    total = within_bounds(sum(by_cat.values()), "what is alive at one moment", where)
    alive = [S.AliveItem(**it) for it in items.values()]
    return Alive(
        where=where,
        event_index=event_index,
        alive_bytes=total,
        named_fraction=(total - by_cat.get(Category.OTHER, 0)) / total if total else None,
        by_category_bytes=dict(sorted(by_cat.items(), key=lambda kv: -kv[1])),
        top_items=sorted(alive, key=lambda d: -d.bytes)[:top],
        saved_for_backward=sorted(
            (v for v in alive if v.category == Category.SAVED_FOR_BACKWARD), key=lambda d: (-d.bytes, d.item)
        ),
    )


@dataclass(frozen=True)
class StepFigures:
    """What a source says of the step beside what is alive at its peak: its events, its peak and the phase it falls
    in, each phase's attribution, what was measured and what inferred; ``start_bytes`` (what was allocated when the
    trace starts) and ``baseline`` (what the figures count from) where the source has them."""

    events: int
    peak_bytes: int
    peak_phase: Phase | None
    phases: dict[Phase, S.AttributionPhase]
    measured: list[str]
    inferred: list[str]
    start_bytes: int | None = None
    baseline: str | None = None


def step_attribution(source: AttributionSource, step: Alive, figures: StepFigures) -> S.Attribution:
    """The step's attribution: what is alive at its peak (``step``), and at each phase's peak (``figures.phases``)."""
    extra = {}  # the fields only one source has: set where it has them (a record holds what it was given)
    if figures.start_bytes is not None:
        extra["start_bytes"] = within_bounds(figures.start_bytes, "what was allocated when the trace starts", step.where)
    if figures.baseline is not None:
        extra["baseline"] = figures.baseline
    return S.Attribution(
        source=source,
        events=figures.events,
        peak_bytes=within_bounds(figures.peak_bytes, "the step's peak", step.where),
        peak_phase=figures.peak_phase,
        alive_bytes=step.alive_bytes,
        named_fraction=step.named_fraction,
        by_category_bytes=step.by_category_bytes,
        top_items=step.top_items,
        saved_for_backward=step.saved_for_backward,
        alive_at_peak_bytes=step.alive_bytes,
        phases=figures.phases,
        measured=figures.measured,
        inferred=figures.inferred,
        **extra,
    )

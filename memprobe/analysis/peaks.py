"""Summaries of what is alive at a moment, shared by the CUDA and CPU attributions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..rundir import schema as S
from ..vocab import Category


@dataclass
class Alive:
    """What is alive at one moment: by category, the largest items, the saved-for-backward items."""

    event_index: int
    alive_bytes: int
    named_fraction: float | None  # the share in a named category (anything but ``other``)
    by_category_bytes: dict[Category, int]
    top_items: list[S.AliveItem]
    saved_for_backward: list[S.AliveItem]

    def at_peak(self, peak_bytes: int) -> S.AttributionPhase:
        """This moment as a phase's peak."""
        return S.AttributionPhase(
            peak_bytes=peak_bytes,
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


def summarize_alive(named: Iterable[tuple[str, str, int, str | None]], event_index: int, top: int = 15) -> Alive:
    """``named``: (category, item, bytes, evidence) per allocation alive right after event ``event_index``.

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
    total = sum(by_cat.values())
    alive = [S.AliveItem(**it) for it in items.values()]
    return Alive(
        event_index=event_index,
        alive_bytes=total,
        named_fraction=(total - by_cat.get(Category.OTHER, 0)) / total if total else None,
        by_category_bytes=dict(sorted(by_cat.items(), key=lambda kv: -kv[1])),
        top_items=sorted(alive, key=lambda d: -d.bytes)[:top],
        saved_for_backward=sorted(
            (v for v in alive if v.category == Category.SAVED_FOR_BACKWARD), key=lambda d: (-d.bytes, d.item)
        ),
    )

"""Summaries of what is alive at a moment, shared by the CUDA and CPU attributions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ..vocab import Category


def summarize_alive(named: Iterable[tuple[str, str, int, str | None]], top: int = 15) -> dict:
    """``named``: (category, item, bytes, evidence) per live allocation.

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
    return {
        "alive_bytes": total,
        "named_fraction": (total - by_cat.get(Category.OTHER, 0)) / total if total else None,
        "by_category_bytes": dict(sorted(by_cat.items(), key=lambda kv: -kv[1])),
        "top_items": sorted(items.values(), key=lambda d: -d["bytes"])[:top],
        "saved_for_backward": sorted(
            (v for v in items.values() if v["category"] == Category.SAVED_FOR_BACKWARD), key=lambda d: (-d["bytes"], d["item"])
        ),
    }

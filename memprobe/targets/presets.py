"""Dimensions of published models (no torch import: the command line reads them to fill flags).

``layers`` is the full model's depth, which a probe does not build: it runs a few blocks at these dimensions and
`memprobe estimate` extrapolates to the full depth.
"""

PRESETS: dict[str, dict[str, int]] = {
    "debug": {"dim": 256, "hidden": 768, "heads": 8, "kv_heads": 2, "layers": 2},
    "llama3-8b": {"dim": 4096, "hidden": 14336, "heads": 32, "kv_heads": 8, "layers": 32},
    "llama3-70b": {"dim": 8192, "hidden": 28672, "heads": 64, "kv_heads": 8, "layers": 80},
}


def preset_names() -> tuple[str, ...]:
    return tuple(PRESETS)


def preset_depth(name: str | None) -> int | None:
    """The full model's depth of a preset (None: no preset), for `memprobe estimate`."""
    return PRESETS[name]["layers"] if name else None

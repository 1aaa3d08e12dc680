"""Byte figures: data keeps integers of bytes; these render them for people. And a number as a person writes one on
the command line, read within bounds."""

from __future__ import annotations

import math
import re

# ASCII digits, a sign, a point and an exponent, each bounded: ``float`` also reads other scripts' digits ("١٢"),
# underscores, ``nan`` and ``inf``, and a text of any length
_DECIMAL = re.compile(r"[+-]?[0-9]{1,30}(?:\.[0-9]{1,30})?(?:[eE][+-]?[0-9]{1,3})?", re.ASCII)


def decimal(text: str) -> float:
    """A finite number written in ASCII digits (``1800``, ``0.5``, ``1e3``); ValueError naming a bounded prefix of
    the text otherwise (``nan``, ``1e400``, digits of another script, 5,000 digits)."""
    stripped = text.strip() if isinstance(text, str) else ""
    value = float(stripped) if _DECIMAL.fullmatch(stripped) else math.nan
    if not math.isfinite(value):
        shown = repr(text[:40] + ("…" if len(text) > 40 else "")) if isinstance(text, str) else repr(type(text).__name__)
        raise ValueError(f"not a finite number in ASCII digits: {shown}")
    return value


def fmt_bytes(n: int | float | None) -> str:
    """``2097152`` -> ``2.00 MiB`` (binary units; ``n/a`` for None)."""
    if n is None:
        return "n/a"
    sign = "-" if n < 0 else ""
    n = abs(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{sign}{n:.0f} {unit}" if unit == "B" else f"{sign}{n:.2f} {unit}"
        n /= 1024
    return f"{sign}{n:.2f} TiB"


def fmt_delta(n: int | None) -> str:
    """A change in bytes, signed: ``+2.00 MiB``, ``-512 B``, ``0 B``."""
    if n is None:
        return "n/a"
    return ("+" if n > 0 else "") + fmt_bytes(n)


def fmt_flops(n: int) -> str:
    """``5770000`` -> ``5.77 MFLOP`` (an estimate's unit: floating-point operations)."""
    for unit, div in (("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6), ("kFLOP", 1e3)):
        if abs(n) >= div:
            return f"{n / div:.2f} {unit}"
    return f"{n} FLOP"

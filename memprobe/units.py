"""Byte figures: data keeps integers of bytes; these render them for people."""

from __future__ import annotations


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

"""Minimal repros memprobe can build (``memprobe run --repro NAME``)."""

from __future__ import annotations

import importlib

REPRO_NAMES = ("ffn", "transformer")


def get_repro(name: str):
    """The repro's module (``build_model`` is its entry point); imports torch."""
    if name not in REPRO_NAMES:
        raise ValueError(f"unknown repro {name!r}")
    return importlib.import_module(f"repros.{name}")

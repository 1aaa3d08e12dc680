"""Activation checkpointing modes (``--ac``): one module per mode, each a :class:`~.base.Mode` registered in
:data:`MODES`. A configuration's ``mode`` is the one its ``ac`` names; every layer that does something per mode asks
the mode (its checks, summary and needs; the probe's apply step; the edits explain tries; the findings whose rule is
about it) instead of comparing ``ac`` with a word; a mode declares the flags only it reads (its ``fields``) and its
phrase in ``--ac``'s help. Adding a mode is its module, a line here and its word in :class:`memprobe.vocab.AcMode`
(the vocabulary, defined once); a mode built on another project's code adds that project's row to
:data:`memprobe.compat.LIBRARIES` and its integration."""

from __future__ import annotations

from ..errors import ConfigError
from .base import RECOMPUTE_ALL_POLICY, Edit, Facts, Mode
from .full import WholeBlocks
from .memory_budget import MemoryBudget
from .none import NoCheckpointing
from .op import PerOp
from .remat import RegionRemat

MODES: dict[str, Mode] = {m.name: m for m in (NoCheckpointing(), WholeBlocks(), PerOp(), MemoryBudget(), RegionRemat())}

__all__ = ["MODES", "RECOMPUTE_ALL_POLICY", "Edit", "Facts", "Mode", "mode_of"]


def mode_of(name: str) -> Mode:
    """The mode ``--ac NAME`` names, or ConfigError naming the words it takes."""
    mode = MODES.get(name) if isinstance(name, str) else None
    if mode is None:
        raise ConfigError(f"unknown --ac {name!r}; choose one of: {', '.join(MODES)}", field="ac")
    return mode

"""What a probe builds: the model families, registered in one table.

A family is one module here holding one :class:`~memprobe.targets.base.Target` subclass: its fields (declared once,
with their flags and help), its checks, its summary line, what it needs installed, its parameter count where its
fields say, and ``build(device, seed, recipe)``. Register it in :data:`FAMILIES`; the probe configuration's flags
(:class:`memprobe.config.ProbeConfig`), the report schema's config, the ``--repro`` vocabulary and the docs follow
from this table.

A family with a ``selector`` (``--model``, ``--hf-config``) is chosen when that field is given; the others are chosen
by ``--repro NAME``.
"""

from __future__ import annotations

from dataclasses import Field, fields

from ..errors import ConfigError
from ..fields import declared
from .base import BuiltModel, Target
from .ffn import FFN
from .huggingface import HuggingFace
from .model import UserModel
from .moe import MoE
from .script import Script
from .torchtitan import Torchtitan
from .transformer import Transformer

# the families, in the order --repro lists them and the flags are merged
FAMILIES: tuple[type[Target], ...] = (FFN, Transformer, MoE, Torchtitan, UserModel, HuggingFace, Script)

# the families --repro names (the default first), and the fields that select the others
REPROS: tuple[str, ...] = tuple(f.name for f in FAMILIES if f.selector is None)
SELECTORS: dict[str, type[Target]] = {f.selector: f for f in FAMILIES if f.selector is not None}

__all__ = ["FAMILIES", "REPROS", "SELECTORS", "BuiltModel", "Target", "family_fields", "selected", "target_of"]


def family_fields() -> list[Field]:
    """Every family's fields, each once, merged in order: a field new to a family goes before the next of that
    family's fields already placed (so a family's fields keep their order), or last. A field several families take is
    one declaration (:mod:`memprobe.targets.base`), so its flag and help are the same for each."""
    merged: list[Field] = []
    by_name: dict[str, Field] = {}
    for family in FAMILIES:
        own = [f for f, _ in declared(family)]
        for i, f in enumerate(own):
            if f.name in by_name:
                continue
            later = next((by_name[g.name] for g in own[i + 1 :] if g.name in by_name), None)
            merged.insert(merged.index(later) if later is not None else len(merged), f)
            by_name[f.name] = f
    return merged


def selected(values) -> type[Target]:
    """The family a configuration selects (``values``: anything with the fields as attributes): the one whose
    selector field is given, or the repro ``repro`` names; ConfigError when two selectors are given."""
    chosen = [family for name, family in SELECTORS.items() if getattr(values, name)]  # given: not None, not empty
    if len(chosen) > 1:
        flags = " and ".join(f"--{f.selector.replace('_', '-')}" for f in chosen)
        raise ConfigError(f"{flags} both name the model to probe: give one", field=chosen[-1].selector)
    if chosen:
        return chosen[0]
    name = values.repro
    family = next((f for f in FAMILIES if f.selector is None and f.name == name), None)
    if family is None:
        raise ConfigError(f"unknown --repro {name!r}; choose one of: {', '.join(REPROS)}", field="repro")
    return family


def target_of(values) -> Target:
    """The selected family holding its fields' values (checked: ConfigError naming the field)."""
    family = selected(values)
    target = family(**{f.name: getattr(values, f.name) for f in fields(family)})
    target.check()
    return target

"""What every model family is: a typed object holding its own configuration fields, that checks them, says in a
line what it builds, names what it needs installed, counts its parameters where its fields say, and builds the model
with an example batch.

A family is one module of :mod:`memprobe.targets` with one :class:`Target` subclass (a frozen dataclass whose fields
are declared with :func:`memprobe.fields.option`), registered in :data:`memprobe.targets.FAMILIES`. The probe
configuration (:class:`memprobe.config.ProbeConfig`) gets every family's fields as flags; ``cfg.target`` is the
family the configuration selects, holding its fields' values.

Standard library only at import (torch, transformers and torchtitan are imported by :meth:`Target.build`): the
command line, the schema and a probe's process in another interpreter import every family.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import ClassVar

from ..errors import ConfigError
from ..fields import option
from ..vocab import EnvNeed


@dataclass
class BuiltModel:
    """What a family builds: the model in fp32 on the probe's device, the positional arguments of ``model(*batch)``,
    the attribute path of its block container (``layers``: names in the report are prefixed with it), whether its
    linears are float8 already (torchtitan's own converter), what memprobe changed in it (said in the run's
    header), and the linears a float8 recipe leaves in bf16 by their FQN (torchtitan's ``filter_fqns``)."""

    model: object  # nn.Module
    batch: tuple
    blocks_attr: str
    float8_done: bool = False
    notes: list[str] = field(default_factory=list)
    float8_skip: tuple[str, ...] = ()

    @property
    def blocks(self):
        return attribute(self.model, self.blocks_attr)


class Target:
    """A model family (subclasses are frozen dataclasses of its fields).

    ``name``: its word (``--repro NAME`` for a family :attr:`selector` does not select); ``selector``: the field
    whose value selects the family (``model``, ``hf_config``), or None for a family ``--repro`` names."""

    name: ClassVar[str]
    about: ClassVar[str]  # in a few words, for --help
    selector: ClassVar[str | None] = None
    # the family runs itself (a user's script): memprobe applies no stack, and its flags do not apply
    runs_itself: ClassVar[bool] = False
    # the configuration fields that apply to the family (what a run of it records); None: every field
    applies: ClassVar[tuple[str, ...] | None] = None

    def check(self) -> None:
        """ConfigError (naming its field) when the fields do not fit together. Called at construction."""

    def summary(self) -> str:
        """One line a person reads: what is built (``ffn dim=512 hidden=2048 layers=2 batch=2 seq=256``)."""
        raise NotImplementedError

    @classmethod
    def named_by(cls) -> str:
        """The flag that chooses it: ``--repro ffn``, ``--model``."""
        return f"--{cls.selector.replace('_', '-')}" if cls.selector else f"--repro {cls.name}"

    def users_code(self) -> str | None:
        """What of the user's it runs, in words (``a command to run, 'python train.py'``), or None for a repro of
        memprobe's own: a file that names code runs it only when the user named that file (the gate's budget)."""
        return None

    def short_name(self) -> str:
        """A name for files and budget probes (``ffn``; a user's model: its file's name)."""
        return self.name

    def needs(self) -> frozenset[EnvNeed]:
        """What building it needs of the interpreter, besides torch."""
        return frozenset()

    def tokens(self) -> int | None:
        """The tokens of its batch (batch x seq), where its fields say."""
        batch, seq = getattr(self, "batch", None), getattr(self, "seq", None)
        return batch * seq if batch is not None and seq is not None else None

    def float8_dims(self, align: int) -> list[str]:
        """The dimensions a float8 recipe needs to be multiples of ``align`` (16 for torch._scaled_mm) that are not,
        as flags (``--dim=100``); a family whose dimensions are its own (a user's model, a Hugging Face config) names
        none: the linears a recipe cannot run stay in bf16 and the run's float8 coverage says which."""
        return []

    def parameter_count(self) -> int | None:
        """The parameters of what it builds, where its fields say (None: known only once built)."""
        return None

    def activations_per_token(self) -> int | None:
        """An upper bound on the values one block keeps per token in forward (placement's bound on a probe's
        memory before it first ran; None: not known)."""
        return None

    def outside_per_token(self) -> int:
        """The values per token the model computes outside its blocks that can outweigh a block's (its logits: the
        vocabulary), for placement's bound on a probe's memory."""
        return 0

    def full_depth(self) -> int | None:
        """The depth of the full model its fields describe (a preset's), for `memprobe estimate`."""
        return None

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        """The model on ``device`` in fp32, weights drawn from ``seed``; ``recipe``: the float8 recipe the probe
        trains with (a family whose own converter applies it says so in :attr:`BuiltModel.float8_done`)."""
        raise NotImplementedError


def attribute(obj, path: str):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def block_container(model, attr: str | None) -> str:
    """The attribute path of the block container: ``attr`` if given (checked), else the first
    ModuleList/ModuleDict in ``named_modules()`` order."""
    import torch.nn as nn

    containers = (nn.ModuleList, nn.ModuleDict, nn.Sequential)
    if attr:
        try:
            obj = attribute(model, attr)
        except AttributeError:
            raise ConfigError(f"--blocks {attr!r}: the model has no attribute {attr}") from None
        if not isinstance(obj, containers) or not len(obj):
            raise ConfigError(f"--blocks {attr!r} is a {type(obj).__name__}, not a non-empty ModuleList/ModuleDict/Sequential")
        return attr
    for name, module in model.named_modules():
        if name and isinstance(module, (nn.ModuleList, nn.ModuleDict)) and len(module):
            return name
    raise ConfigError("the model has no nn.ModuleList or nn.ModuleDict of blocks; name the container with --blocks ATTR")


def accepts_device(factory) -> bool:
    try:
        return bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        return True


# the fields several families share, one declaration each (a family lists the ones it takes, in its own order)
def blocks_field():
    return option(
        None,
        "Attribute path of the block container that gets SAC/compile/FSDP (default: the first nn.ModuleList or nn.ModuleDict).",
        metavar="ATTR",
    )


def layers_field():
    return option(2, "Number of blocks.")


def batch_field():
    return option(2, "Batch size.")


def seq_field():
    return option(256, "Sequence length.")


def check_at_least_one(target, names: tuple[str, ...]) -> None:
    for name in names:
        if getattr(target, name) < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1 (got {getattr(target, name)})", field=name)


def token_batch(vocab: int, batch: int, seq: int, device, seed: int):
    """A batch of token ids drawn from ``vocab``: the same for a seed on every device."""
    import torch

    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    return torch.randint(0, vocab, (batch, seq), generator=g).to(device)


def embedding_batch(batch: int, seq: int, dim: int, device, seed: int):
    """A batch of embeddings (batch, seq, dim) in fp32: the same for a seed on every device."""
    import torch

    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    return torch.randn(batch, seq, dim, generator=g, dtype=torch.float32).to(device)

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

import ast
import importlib.util
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ..errors import ConfigError
from ..fields import option
from ..syntax import parse
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


@dataclass(frozen=True)
class ModelSource:
    """What a family builds, as Python source that builds it without memprobe (``memprobe repro`` writes it into a
    standalone script): ``about`` (what the script's header calls it), ``build`` (the lines of ``build(device)``: they
    assign ``model``, in fp32 on ``device``, and ``batch``, the positional arguments of ``model(*batch)``), the
    ``imports`` and module-level ``definitions`` those lines use (the model's classes, or the loader of the user's
    file), the libraries besides torch it imports (``transformers``), the linears float8 leaves in bf16 by FQN, and
    the files of the user's it runs (said in the header: the user's own code, referenced by path)."""

    about: str
    build: tuple[str, ...]
    imports: tuple[str, ...] = ()
    definitions: str = ""
    libraries: tuple[str, ...] = ()
    float8_skip: tuple[str, ...] = ()
    runs_files: tuple[str, ...] = ()


class Target:
    """A model family (subclasses are frozen dataclasses of its fields).

    ``name``: its word (``--repro NAME`` for a family :attr:`selector` does not select); ``selector``: the field
    whose value selects the family (``model``, ``hf_config``), or None for a family ``--repro`` names."""

    name: ClassVar[str]
    about: ClassVar[str]  # in a few words, for --help
    selector: ClassVar[str | None] = None
    # the configuration fields that apply to the family (what a run of it records); None: every field
    applies: ClassVar[tuple[str, ...] | None] = None

    def check(self) -> None:
        """ConfigError (naming its field) when the fields do not fit together. Called at construction."""

    def check_files(self) -> None:
        """ConfigError when a file the user named (``--model x.py:build``, ``--hf-config``, the script) is missing or
        not of its kind: cheap, without torch, before anything is made; called on a configuration the user gives
        (``config_from_values``), never on one a run directory recorded (its files may be gone, and it is read)."""

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

    # How a probe of it runs and what is said of it. A family is built by memprobe, which applies its stack and runs
    # it in a probe process of memprobe's own; a user's script (script.py) answers each of these the other way.

    def run_dir_name(self, recipe: str) -> str:
        """What a run directory of it is named after when the user names none (``runs/<this>-<time>``): its
        recipe (``bf16``); a script: its name (:meth:`short_name`)."""
        return recipe

    def budget_probe_name(self, recipe: str) -> str:
        """The name of a budget probe of it when the user names none: its :meth:`short_name` and recipe
        (``ffn-rowwise``); a script: its name alone (no recipe applies to it)."""
        return f"{file_word(self.short_name())}-{recipe}"

    @property
    def takes_stack(self) -> bool:
        """memprobe applies its training stack (the float8 recipe, AC, torch.compile, FSDP) to what it builds: the
        stack's flags are in its summary, the recipe is checked against its dimensions, and a probe needs what they
        need installed. A script brings its own stack (and what it imports)."""
        return True

    @property
    def states_recipe(self) -> bool:
        """Its recipe is written out even at the default (the flags that rebuild a configuration, a budget's probe):
        what it ran stays what it ran if the default changes. A script's recipe is not its own: left out."""
        return True

    @property
    def takes_sac_policy(self) -> bool:
        """memprobe's per-op SAC policy (``--ac-policy``, ``--save-op``, ``--recompute-op``) is what checkpoints it:
        a run records the policy, and explain edits it. A script's checkpointing is its own code."""
        return True

    @property
    def fixed_by_flags(self) -> bool:
        """A fix of what it saves is a change of memprobe's flags (``--recompute-op``, a per-op policy), a run
        memprobe can make to check it; a script's fixes are edits to its own code, the user's to make."""
        return True

    @property
    def code_owner(self) -> str:
        """Whose code it runs, in words, for a fix to say where to edit: ``the model's code``; ``your script``."""
        return "the model's code"

    @property
    def starts_own_interpreter(self) -> bool:
        """A probe of it is a process that starts its own interpreter (the user's command, memprobe's hooks first):
        never forked from a running memprobe nor run in memprobe's process, never started ahead of its turn and
        held (it trains at once), and what it prints is its own. False: memprobe's probe process runs it."""
        return False

    @property
    def makes_own_process_group(self) -> bool:
        """It makes its own process group (a command under torchrun): memprobe fakes no world for it, and its run
        directory may hold a folder per rank though memprobe started one process."""
        return False

    @property
    def reproduces_itself(self) -> bool:
        """A run of it is reproduced by running it again without memprobe (a user's script): ``memprobe repro``
        writes no standalone script of it."""
        return False

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

    def source(self, seed: int) -> ModelSource:
        """What :meth:`build` builds from ``seed``, as source a standalone script runs without memprobe; ConfigError
        for a family that has none."""
        raise ConfigError(f"memprobe repro writes no standalone script of a {self.named_by()} run")

    def shrinkable(self) -> tuple[tuple[str, int], ...]:
        """The size fields a minimal repro may make smaller, in the order to try them (depth, batch, sequence, then
        widths), each with the multiple its smallest value is taken in: 1, or 0 for a width a float8 recipe needs a
        multiple of its own for (16 for torch._scaled_mm)."""
        return ()


def file_word(name: str) -> str:
    """``name`` as a word for a file or a budget probe: letters, digits, ``-`` and ``_``, the rest ``-`` (``model``
    for none)."""
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name) or "model"


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


def repro_code(module: str, names: tuple[str, ...] | None = None) -> tuple[tuple[str, ...], str]:
    """The code of ``repros/<module>.py`` a standalone script can hold: its import lines, and its definitions (all of
    them, or those ``names``) without its docstring; what it imports from a sibling repro (``from .ffn import
    FeedForward``) comes first. Read as text: nothing is imported."""
    text = Path(importlib.util.find_spec(f"repros.{module}").origin).read_text()
    lines = text.splitlines()
    imports: list[str] = []
    parts: list[str] = []
    for node in parse(text).body:
        if isinstance(node, ast.ImportFrom) and node.level:  # a sibling repro's definitions
            more, code = repro_code(node.module, tuple(a.name for a in node.names))
            imports += [i for i in more if i not in imports]
            parts.append(code)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if getattr(node, "module", None) != "__future__":
                imports.append(ast.get_source_segment(text, node))
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.Assign)) and (names is None or _defines(node, names)):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            parts.append("\n".join(lines[start - 1 : node.end_lineno]))
    return tuple(imports), "\n\n\n".join(parts)


def _defines(node: ast.stmt, names: tuple[str, ...]) -> bool:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
        return node.name in names
    return any(getattr(t, "id", None) in names for t in node.targets)


def literal(value, indent: int = 0) -> str:
    """JSON data as a Python literal a person reads: a dict or list one item a line when it is long, strings in
    double quotes."""
    import json

    if isinstance(value, bool) or value is None:
        return repr(value)
    if not isinstance(value, (dict, list)):
        return json.dumps(value)
    flat = json.dumps(value)
    if len(flat) + indent <= 100 and "true" not in flat and "false" not in flat and "null" not in flat:
        return flat
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(str(k))}: {literal(v, indent + 4)}," for k, v in value.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{literal(v, indent + 4)}," for v in value]
    return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"


def embedding_batch_source(batch: int, seq: int, dim: int, seed: int) -> tuple[str, ...]:
    """:func:`embedding_batch` as the lines of a standalone script."""
    return (
        f'g = torch.Generator(device="cpu").manual_seed({seed + 1})',
        f"batch = (torch.randn({batch}, {seq}, {dim}, generator=g, dtype=torch.float32).to(device),)",
    )


def token_batch_source(vocab: int, batch: int, seq: int, seed: int) -> tuple[str, ...]:
    """:func:`token_batch` as the lines of a standalone script."""
    return (
        f'g = torch.Generator(device="cpu").manual_seed({seed + 1})',
        f"batch = (torch.randint(0, {vocab}, ({batch}, {seq}), generator=g).to(device),)",
    )


def embedding_batch(batch: int, seq: int, dim: int, device, seed: int):
    """A batch of embeddings (batch, seq, dim) in fp32: the same for a seed on every device."""
    import torch

    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    return torch.randn(batch, seq, dim, generator=g, dtype=torch.float32).to(device)

"""The probe configuration: what to build and how to run it, validated once, when it is made.

:class:`ProbeConfig` is a frozen dataclass whose fields are the flags of `memprobe run`: its own (the recipe, the
checkpointing, the run's settings) and every model family's (:mod:`memprobe.targets`), each declared once with
:func:`memprobe.fields.option`. Making one checks every field's kind, canonicalises its words (``fp8`` is
``rowwise``, op names ``aten.abs.default``) and checks that the fields fit together, or raises ConfigError naming
the field: a configuration that exists is valid, and nothing downstream checks it again. ``cfg.target`` is the
family it builds, holding that family's fields.

Standard library only at import: a probe's process in another interpreter makes one from the JSON it is given.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import asdict, field, fields, make_dataclass
from functools import cached_property

from . import targets
from .checkpointing import MODES, Mode, mode_of
from .compat.torchao import RECIPES as FLOAT8_RECIPES
from .errors import ConfigError
from .fields import Kind, checked, declared, flag_of, option
from .policies import effective_policy, flag_op, get_policy, normalize_op_name
from .vocab import AcMode, DeviceChoice, EnvNeed, Recipe

# each flag's words are its vocabulary's (memprobe/vocab.py, memprobe/targets), as plain strings: what --help and
# the files show
RECIPES = tuple(r.value for r in Recipe)
RECIPE_ALIASES = {"fp8": Recipe.ROWWISE.value}
AC_MODES = tuple(m.value for m in AcMode)
AC_ALIASES = {"budget": AcMode.MEMORY_BUDGET.value}  # its earlier name: "budget" alone is the gate's budget file
REPROS = targets.REPROS
DEVICES = tuple(d.value for d in DeviceChoice)


@contextmanager
def _field_of(name: str):
    """A ConfigError raised in the block names the configuration field it is about."""
    try:
        yield
    except ConfigError as e:
        if e.field is None:
            e.field = name
        raise


def canonical_ac(name):
    """``--ac budget`` is ``--ac memory-budget`` (its earlier name; recorded runs and budget files may hold it)."""
    return AC_ALIASES.get(name, name) if isinstance(name, str) else name


def canonical_recipe(name: str) -> str:
    name = RECIPE_ALIASES.get(name, name)
    if name not in RECIPES:
        choices = ", ".join(list(RECIPES) + list(RECIPE_ALIASES))
        raise ConfigError(f"unknown recipe {name!r}; choose one of: {choices}")
    return name


def _policy_names() -> tuple[str, ...]:
    from .policies import POLICIES

    return tuple(POLICIES)


def _ac_help() -> str:
    abouts = [m.about or m.name for m in MODES.values()]
    return f"Activation checkpointing per block: {', '.join(abouts[:-1])}, or {abouts[-1]}."


def _repro_help() -> str:
    named = ", ".join(f"{f.name} ({f.about})" for f in targets.FAMILIES if f.selector is None)
    return f"What to build: {named}."


# the configuration's own fields: what to build besides the family's fields, then how to run it
_WHAT = [
    (
        "recipe",
        str,
        option(
            Recipe.ROWWISE.value,
            "Linear layers: bf16, or torchao float8 training with this scaling recipe (fp8 = rowwise).",
            choices=RECIPES + tuple(RECIPE_ALIASES),
        ),
    ),
    ("repro", str, option(REPROS[0], _repro_help(), choices=REPROS)),
]
_HOW = [
    ("seed", int, option(0, "Seed for weights and the batch.")),
    (
        "ac",
        str,
        option(
            AcMode.OP.value,
            _ac_help(),
            choices=AC_MODES + tuple(AC_ALIASES),
        ),
    ),
    (
        "memory_budget",
        float,
        option(
            0.5,
            "With --ac memory-budget: the partitioner's activation_memory_budget, from 0 (recompute "
            "what it can) to 1 (its runtime-optimal partition).",
        ),
    ),
    ("ac_policy", str, option("torchtitan", "Per-op SAC policy by name (see `memprobe policies`).", choices=_policy_names)),
    (
        "save_ops",
        tuple[str, ...],
        option(
            (),
            "Add OP to the policy's save list (repeatable; aten.abs or torch.ops.aten.abs.default).",
            flag="--save-op",
            metavar="OP",
        ),
    ),
    (
        "recompute_ops",
        tuple[str, ...],
        option((), "Remove OP from the save list: recompute it in backward (repeatable).", flag="--recompute-op", metavar="OP"),
    ),
]
# then the fields each AC mode declares (memprobe.checkpointing: --save-region, --recompute-region), then the rest
_RUN = [
    ("compile", bool, option(True, "torch.compile each block.")),
    (
        "fsdp",
        bool,
        option(True, "FSDP2 per block and at the root (bf16 params, fp32 reduce). Without it the model is cast to bf16."),
    ),
    ("reshard_after_forward", bool, option(True, "FSDP2 frees unsharded parameters after forward.")),
    ("device", str, option(DeviceChoice.AUTO.value, "auto = cuda when a GPU is present, else cpu.", choices=DEVICES)),
    # the first step compiles (and creates the optimizer state), the last one is measured
    ("steps", int, option(2, "Training steps: the first compiles (and creates the optimizer state), the last is measured.")),
    ("lr", float, option(1e-4, "AdamW learning rate.")),
    (
        "nproc",
        int,
        option(
            1,
            "Ranks on this node, launched through torchrun; FSDP shards over all of them "
            "(gloo on CPU, NCCL on CUDA, one GPU per rank).",
        ),
    ),
    (
        "fake_world",
        int,
        option(
            0,
            "Run rank 0 of a world of N ranks in this one process: FSDP2 shards over PyTorch's fake process group, so "
            "sharded parameters, gradients, optimizer state and all-gather/reduce-scatter buffers have rank 0's sizes; "
            "the collectives move no data (NCCL's own buffers and overlap timing are not measured). 0: off.",
            metavar="N",
        ),
    ),
]


class _Configuration:
    """The behaviour of :class:`ProbeConfig` (its fields are made from the declarations above and the families')."""

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, checked(f, getattr(self, f.name)))
        with _field_of("recipe"):
            object.__setattr__(self, "recipe", canonical_recipe(self.recipe))
        object.__setattr__(self, "ac", canonical_ac(self.ac))
        target = self.target  # the family's own checks
        self._check_given_for(type(target))
        self._check_run()
        self._check_float8(target)
        self._check_policy()

    @property
    def mode(self) -> Mode:
        """The activation checkpointing mode ``ac`` names (:mod:`memprobe.checkpointing`)."""
        return mode_of(self.ac)

    @cached_property
    def target(self) -> targets.Target:
        """The model family this configuration builds, holding its fields."""
        return targets.target_of(self)

    def _check_given_for(self, family) -> None:
        """An optional field of another family (``--flavor``, ``--preset``) is not given to this one."""
        own = {f.name for f in fields(family)}
        for f in targets.family_fields():
            if f.name not in own and f.default is None and getattr(self, f.name) is not None and f.name not in targets.SELECTORS:
                takers = [g.named_by() for g in targets.FAMILIES if f.name in {x.name for x in fields(g)}]
                raise ConfigError(f"{flag_of(f)} applies to {' or '.join(takers)}", field=f.name)

    def _check_run(self) -> None:
        if self.nproc < 1:
            raise ConfigError(f"--nproc must be at least 1 (got {self.nproc})", field="nproc")
        self._check_fake_world()
        if self.steps < 2:
            raise ConfigError(
                f"--steps must be at least 2: the first step compiles, later ones are measured (got {self.steps})", field="steps"
            )
        self.mode.check(self)
        if self.device not in DEVICES:
            raise ConfigError(f"unknown --device {self.device!r}; choose one of: {', '.join(DEVICES)}", field="device")
        if self.lr <= 0:
            raise ConfigError(f"--lr must be positive (got {self.lr})", field="lr")

    def _check_fake_world(self) -> None:
        """A fake world is rank 0 of N ranks in one process, sharded by FSDP2: it takes neither real ranks nor a
        model without FSDP, nor a script (which makes its own process group)."""
        n = self.fake_world
        if n == 0:
            return
        why = None
        if n < 2:
            why = f"--fake-world must be 0 (off) or at least 2 ranks (got {n})"
        elif self.nproc > 1:
            why = f"--fake-world {n} runs rank 0 of {n} in one process; --nproc {self.nproc} runs real ranks: give one"
        elif not self.fsdp:
            why = f"--fake-world {n} shards through FSDP2 over the fake ranks; --no-fsdp shards nothing"
        elif self.target.makes_own_process_group:
            why = "--fake-world applies to what memprobe builds; a script after -- makes its own process group"
        if why:
            raise ConfigError(why, field="fake_world")

    def _check_float8(self, target) -> None:
        """A float8 recipe needs dimensions its kernels run: multiples of 16 for torch._scaled_mm, of 128 for the
        blockwise recipe, of 32 for MX (of the dimensions the family declares, and of the tokens it feeds)."""
        if self.recipe == Recipe.BF16 or target.selector == "model" or not target.takes_stack:
            return
        align = FLOAT8_RECIPES[self.recipe].align
        bad = target.float8_dims(align)
        tokens = target.tokens()
        if tokens is not None and tokens % 16:
            bad.append(f"--batch x --seq={tokens}")
        if bad:
            raise ConfigError(
                f"float8 recipe {self.recipe!r} needs multiples of {align} for its float8 matmuls: {', '.join(bad)}",
                field="recipe",
            )

    def _check_policy(self) -> None:
        """The policy exists, and the ops saved and recomputed on top of it, normalized."""
        with _field_of("ac_policy"):
            get_policy(self.ac_policy)
        with _field_of("save_ops"):
            object.__setattr__(self, "save_ops", tuple(normalize_op_name(o) for o in self.save_ops))
        with _field_of("recompute_ops"):
            object.__setattr__(self, "recompute_ops", tuple(normalize_op_name(o) for o in self.recompute_ops))
        with _field_of("save_ops"):
            effective_policy(self.ac_policy, self.save_ops, self.recompute_ops)

    def policy(self):
        return effective_policy(self.ac_policy, self.save_ops, self.recompute_ops)

    def needs(self) -> frozenset[EnvNeed]:
        """What a probe of this configuration needs of its interpreter."""
        out = {EnvNeed.TORCH} | set(self.target.needs())
        if not self.target.takes_stack:  # the script brings what it imports
            return frozenset(out)
        if self.recipe != Recipe.BF16:
            out.add(EnvNeed.FLOAT8)
        return frozenset(out | self.mode.needs(self))

    def to_dict(self) -> dict:
        d = asdict(self)
        for fld, o in declared(type(self)):
            if o.kind in (Kind.OPS, Kind.WORDS):  # tuples here, lists in JSON
                d[fld.name] = list(d[fld.name])
        return d

    def recorded(self) -> dict:
        """What a run records of its configuration: the fields that apply to its family (a script: its command and
        --steps, none of the stack's defaults), every field for the others. Read back, the rest take their
        defaults."""
        d = self.to_dict()
        applies = self.target.applies
        return d if applies is None else {k: v for k, v in d.items() if k in applies}

    @classmethod
    def from_dict(cls, d: dict):
        """A configuration from its fields by name (the flags, an MCP call's ``config``, a budget file's probe, a
        recorded run's): a ``preset`` fills each dimension not given (absent or None), the rest take their defaults."""
        from .targets.presets import PRESETS

        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ConfigError(f"unknown configuration key(s): {', '.join(unknown)}", field=unknown[0])
        values = dict(d)
        preset = PRESETS.get(values.get("preset") or "", {}) if isinstance(values.get("preset"), str) else {}
        for f, o in declared(cls):
            if o.preset and values.get(f.name) is None:
                if f.name in preset:
                    values[f.name] = preset[f.name]
                else:
                    values.pop(f.name, None)  # the field's own default
        return cls(**values)

    def to_flags(self) -> list[str]:
        """The `memprobe run` flags that rebuild this configuration (defaults left out)."""
        flags: list[str] = []
        after: list[str] = []
        for f, o in declared(type(self)):
            value, default = getattr(self, f.name), f.default
            flag = flag_of(f)
            if o.after_dashes:
                after = ["--", *value] if value else []
            elif isinstance(value, tuple):  # ops as --save-op takes them; patterns as they are
                word = flag_op if f.name in ("save_ops", "recompute_ops") else str
                flags += [x for item in value for x in (flag, word(item))]
            elif isinstance(value, bool):
                if value != default:
                    flags.append(flag if value else "--no-" + flag[2:])
            elif value is None:
                continue
            elif (f.name == "recipe" and self.target.states_recipe) or value != default:
                flags += [flag, str(value)]
        return flags + after

    def fake_world_line(self) -> str | None:
        """What a fake world's figures are, in one line (None: the world is not faked)."""
        if not self.fake_world:
            return None
        return f"rank 0 of {self.fake_world}, collectives faked: NCCL buffers and overlap timing not measured"

    def summary(self) -> str:
        """One line a person can read: what was built (or what ran: a script)."""
        if not self.target.takes_stack:
            return "  ".join(
                [self.target.summary(), f"steps={self.steps}"] + ([f"x{self.nproc} ranks"] if self.nproc > 1 else [])
            )
        parts = [self.recipe, self.target.summary(), f"ac={self.mode.summary(self)}"]
        if self.save_ops:
            parts.append("+save " + ",".join(self.save_ops))
        if self.recompute_ops:
            parts.append("+recompute " + ",".join(self.recompute_ops))
        for f in fields(self):  # the repeatable flags an AC mode declares (--save-region), as given
            if f.name in _MODE_FIELDS and getattr(self, f.name):
                parts.append(f"+{flag_of(f).removeprefix('--')} " + ",".join(getattr(self, f.name)))
        parts.append("compile" if self.compile else "eager")
        parts.append(("fsdp" + ("" if self.reshard_after_forward else "(no-reshard)")) if self.fsdp else "no-fsdp")
        if self.nproc > 1:
            parts.append(f"x{self.nproc} ranks")
        if self.fake_world:
            parts.append(f"rank 0 of {self.fake_world} (fake world)")
        return "  ".join(parts)


_MODE_DECLARED = [declared for mode in MODES.values() for declared in mode.fields]
_MODE_FIELDS = frozenset(name for name, _, _ in _MODE_DECLARED)


def _declarations() -> list[tuple[str, object, object]]:
    family = [(f.name, f.type, field(default=f.default, metadata=f.metadata)) for f in targets.family_fields()]
    return _WHAT + family + _HOW + _MODE_DECLARED + _RUN


ProbeConfig = make_dataclass("ProbeConfig", _declarations(), bases=(_Configuration,), frozen=True)
ProbeConfig.__module__ = __name__
ProbeConfig.__doc__ = """What a probe builds and how it runs it: one field per `memprobe run` flag (:mod:`memprobe.fields`
declares them; the model families' fields come from :mod:`memprobe.targets`). Made = validated (ConfigError naming the
field otherwise); ``dataclasses.replace`` makes and validates a new one."""


def config_from_values(values: dict):
    """A configuration from field values as a user gives them (the flags, an MCP call's ``config``, a budget
    file's probe: ``{"recipe": "rowwise", "dim": 64}``; a ``preset`` fills the dimensions not given: see
    ``from_dict``); each op is checked against the installed torch, named as the user wrote it."""
    from .policies import resolve_ops

    cfg = ProbeConfig.from_dict(values)
    resolve_ops(dict(values))  # named as the user wrote them
    check_before_torch(cfg)
    return cfg


# the device nodes a GPU driver makes (NVIDIA's; AMD's ROCm; WSL's): none of them, no GPU torch could use here
GPU_DEVICE_NODES = ("/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd", "/dev/dxg")


def check_before_torch(cfg) -> None:
    """What a user named that can be checked without importing torch (seconds) or making a run directory: the files
    (``--model``, ``--hf-config``, the script), and ``--device cuda`` on a machine with no GPU driver's device."""
    import os

    cfg.target.check_files()
    if cfg.device == DeviceChoice.CUDA and not any(os.path.exists(node) for node in GPU_DEVICE_NODES):
        raise ConfigError(
            "--device cuda: no CUDA device is available (this machine has no GPU driver's device, no /dev/nvidia0); "
            "use --device cpu",
            field="device",
        )


# the fields of a configuration that name code to run (``--model``) or a file to build from (``--hf-config``)
NAMES_CODE = ("model", "hf_config")


def _same_code(name: str, recorded: str, named: str) -> bool:
    """Whether the user's ``named`` is the recorded model: the same words, or the same file (and factory)."""
    from pathlib import Path

    if recorded == named:
        return True
    (where_r, _, fn_r), (where_n, _, fn_n) = (recorded, "", ""), (named, "", "")
    if name == "model":
        (where_r, _, fn_r), (where_n, _, fn_n) = recorded.rpartition(":"), named.rpartition(":")
        if not (where_r.endswith(".py") or "/" in where_r):
            return False  # a module spec: only its own words name it
    try:
        return fn_r == fn_n and Path(where_r).resolve() == Path(where_n).resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a loop of links: no file both name
        return False


def recorded_to_run(recorded: ProbeConfig, named: dict, where: str, how=None) -> ProbeConfig:
    """A recorded configuration (a run directory's: anyone may have written it) as one to run again: its model
    (``model``, ``hf_config``) only when the user names the same one in ``named`` (the flags, or an MCP call's
    ``config``); ConfigError otherwise, saying what to pass. ``how(name, value)``: how the user passes it (default:
    the flag, ``--model 'x.py:build'``). A recorded configuration never names code to run by itself."""
    import shlex

    how = how or (lambda name, value: f"--{name.replace('_', '-')} {shlex.quote(value)}")
    if recorded.command:  # a user's script: never run again from what a file says
        raise ConfigError(
            f"{where}: config.command names a command to run, {shlex.join(recorded.command)[:200]!r}; memprobe never "
            "runs a recorded run's command: run it yourself (memprobe run -- COMMAND) and diff the run directories",
            field="command",
        )
    for name in NAMES_CODE:
        value = getattr(recorded, name)
        if value is None:
            continue
        given = named.get(name)
        if not isinstance(given, str) or not _same_code(name, value, given):
            what = "code to run" if name == "model" else "a model configuration to build"
            theirs = f" (you named {given!r})" if isinstance(given, str) else ""
            raise ConfigError(
                f"{where}: config.{name} names {what}, {value!r}{theirs}; memprobe runs a recorded run's model only when "
                f"you name it yourself: pass {how(name, value)} if you trust it",
                field=name,
            )
    return recorded

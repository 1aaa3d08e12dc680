"""The probe configuration: what to build and how to run it."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields, replace

from .errors import ConfigError
from .policies import effective_policy, get_policy, normalize_op_name
from .vocab import AcMode, DeviceChoice, Recipe, Repro

# each flag's words are its vocabulary's (memprobe/vocab.py), as plain strings: what --help and the files show
RECIPES = tuple(r.value for r in Recipe)
RECIPE_ALIASES = {"fp8": Recipe.ROWWISE.value}
AC_MODES = tuple(m.value for m in AcMode)
AC_ALIASES = {"budget": AcMode.MEMORY_BUDGET.value}  # its earlier name: "budget" alone is the gate's budget file
REPROS = tuple(r.value for r in Repro)
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


def _presets() -> dict:
    from repros.presets import PRESETS

    return PRESETS


def canonical_ac(name):
    """``--ac budget`` is ``--ac memory-budget`` (its earlier name; recorded runs and budget files may hold it)."""
    return AC_ALIASES.get(name, name) if isinstance(name, str) else name


def canonical_recipe(name: str) -> str:
    name = RECIPE_ALIASES.get(name, name)
    if name not in RECIPES:
        choices = ", ".join(list(RECIPES) + list(RECIPE_ALIASES))
        raise ConfigError(f"unknown recipe {name!r}; choose one of: {choices}")
    return name


def _field(default, help: str, **cli):
    """A configuration field with its flag's documentation: declared once, read by the CLI
    (:mod:`memprobe.cli.options`), the repros' standalone entry points and the docs.

    ``cli`` keys: ``choices`` (a tuple, or a callable returning one), ``metavar``, ``flag``
    (when the flag is not ``--<name>``), ``multiple`` (repeatable), ``preset`` (a dimension a
    ``--preset`` may set: the flag's own default is None so that explicit flags win).
    """
    return field(default=default, metadata={"help": help, **cli})


def _policy_names() -> tuple[str, ...]:
    from .policies import POLICIES

    return tuple(POLICIES)


@dataclass(frozen=True)
class ProbeConfig:
    recipe: str = _field(
        Recipe.ROWWISE.value,
        "Linear layers: bf16, or torchao float8 training with this scaling recipe (fp8 = rowwise).",
        choices=RECIPES + tuple(RECIPE_ALIASES),
    )
    repro: str = _field(
        Repro.FFN.value,
        "What to build: ffn (SwiGLU FFN blocks), transformer (Llama-3-style blocks), or torchtitan "
        "(torchtitan's own Llama 3 at --flavor, its first --layers blocks; needs torchtitan).",
        choices=REPROS,
    )
    flavor: str | None = _field(
        None,
        "With --repro torchtitan: the Llama 3 flavor of torchtitan's config registry "
        "(debugmodel, 1B, 3B, 8B, 70B, 405B; default debugmodel).",
        metavar="FLAVOR",
    )
    # the user's own model instead of a repro: MODULE_OR_FILE:FACTORY (docs/models.md)
    model: str | None = _field(
        None,
        "Probe your own model instead of a repro: FACTORY(device) returns (model, batch); "
        "see docs/models.md. The dimension flags do not apply.",
        metavar="MODULE_OR_FILE:FACTORY",
    )
    # a Hugging Face causal LM from its config.json alone (memprobe/integrations/huggingface.py)
    hf_config: str | None = _field(
        None,
        "Probe a Hugging Face transformers causal LM built from this config.json (a file, or a directory "
        "holding one; no weights, no hub access) with its first --layers decoder blocks, --batch x --seq token ids; "
        "its KV cache is turned off. Needs transformers (pip install 'memprobe[hf]'); see docs/models.md.",
        metavar="CONFIG_JSON",
    )
    blocks: str | None = _field(
        None,
        "Attribute path of the block container that gets SAC/compile/FSDP (default: the first nn.ModuleList or nn.ModuleDict).",
        metavar="ATTR",
    )
    # the named dimensions dim/hidden/heads/kv_heads came from (informational)
    preset: str | None = _field(
        None,
        "Dimensions of a published model (dim, hidden, heads, kv-heads); explicit flags win. "
        "Layers stay as given: estimate the full depth with `memprobe estimate`.",
        choices=lambda: tuple(_presets()),
    )
    dim: int = _field(512, "Model dimension.", preset=True)
    hidden: int = _field(2048, "FFN hidden dimension.", preset=True)
    heads: int = _field(8, "Attention heads (transformer).", preset=True)
    kv_heads: int = _field(2, "Key/value heads (transformer, grouped-query).", preset=True)
    layers: int = _field(2, "Number of blocks.")
    batch: int = _field(2, "Batch size.")
    seq: int = _field(256, "Sequence length.")
    seed: int = _field(0, "Seed for weights and the batch.")
    ac: str = _field(
        AcMode.OP.value,
        "Activation checkpointing per block: none, full, op (per-op SAC, --ac-policy), or memory-budget (the "
        "compiler partitioner's activation memory budget, --memory-budget; torchtitan's MemoryBudgetAC; "
        "budget is accepted for it).",
        choices=AC_MODES + tuple(AC_ALIASES),
    )
    memory_budget: float = _field(
        0.5,
        "With --ac memory-budget: the partitioner's activation_memory_budget, from 0 (recompute "
        "what it can) to 1 (its runtime-optimal partition).",
    )
    ac_policy: str = _field("torchtitan", "Per-op SAC policy by name (see `memprobe policies`).", choices=_policy_names)
    save_ops: tuple[str, ...] = _field(
        (),
        "Add OP to the policy's save list (repeatable; aten.abs or torch.ops.aten.abs.default).",
        flag="--save-op",
        multiple=True,
        metavar="OP",
    )
    recompute_ops: tuple[str, ...] = _field(
        (),
        "Remove OP from the save list: recompute it in backward (repeatable).",
        flag="--recompute-op",
        multiple=True,
        metavar="OP",
    )
    compile: bool = _field(True, "torch.compile each block.")
    fsdp: bool = _field(True, "FSDP2 per block and at the root (bf16 params, fp32 reduce). Without it the model is cast to bf16.")
    reshard_after_forward: bool = _field(True, "FSDP2 frees unsharded parameters after forward.")
    device: str = _field(DeviceChoice.AUTO.value, "auto = cuda when a GPU is present, else cpu.", choices=DEVICES)
    # the first step compiles (and creates the optimizer state), the last one is measured
    steps: int = _field(2, "Training steps: the first compiles (and creates the optimizer state), the last is measured.")
    lr: float = _field(1e-4, "AdamW learning rate.")
    nproc: int = _field(
        1,
        "Ranks on this node, launched through torchrun; FSDP shards over all of them "
        "(gloo on CPU, NCCL on CUDA, one GPU per rank).",
    )

    def _check_types(self) -> None:
        """Each field holds its declared type (a budget file or a report may hold anything)."""
        import math

        for f in fields(self):
            value, default = getattr(self, f.name), f.default
            flag = "--" + f.name.replace("_", "-")
            if isinstance(default, bool):
                ok = isinstance(value, bool)
                want = "true or false"
            elif isinstance(default, int):
                ok = isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**31
                want = "a whole number"
            elif isinstance(default, float):
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                want = "a finite number"
            elif isinstance(default, tuple):
                ok = isinstance(value, tuple) and all(isinstance(v, str) and len(v) < 200 for v in value)
                want = "a list of op names"
            else:  # str, or None for optional strings
                ok = (value is None and default is None) or (isinstance(value, str) and len(value) < 4096)
                want = "a string"
            if not ok:
                raise ConfigError(f"{flag} (config key {f.name!r}) must be {want}, got {str(value)[:60]!r}", field=f.name)

    def validated(self) -> ProbeConfig:
        """A normalized copy (canonical recipe and op names), or ConfigError naming the first field that is wrong."""
        self._check_types()
        with _field_of("recipe"):
            recipe = canonical_recipe(self.recipe)
        self._check_sizes()
        self._check_model()
        if self.steps < 2:
            raise ConfigError(
                f"--steps must be at least 2: the first step compiles, later ones are measured (got {self.steps})", field="steps"
            )
        self._check_float8(recipe)
        ac = canonical_ac(self.ac)
        if ac not in AC_MODES:
            raise ConfigError(f"unknown --ac {self.ac!r}; choose one of: {', '.join(AC_MODES)}", field="ac")
        if self.device not in DEVICES:
            raise ConfigError(f"unknown --device {self.device!r}; choose one of: {', '.join(DEVICES)}", field="device")
        save_ops, recompute_ops = self._policy_ops()
        self._check_budget(ac)
        self._check_flavor()
        if self.lr <= 0:
            raise ConfigError(f"--lr must be positive (got {self.lr})", field="lr")
        return replace(self, recipe=recipe, ac=ac, save_ops=save_ops, recompute_ops=recompute_ops)

    def _check_sizes(self) -> None:
        for name in ("dim", "hidden", "heads", "kv_heads", "layers", "batch", "seq", "nproc"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1 (got {getattr(self, name)})", field=name)
        if self.repro not in REPROS:
            raise ConfigError(f"unknown --repro {self.repro!r}; choose one of: {', '.join(REPROS)}", field="repro")
        if self.preset is not None and self.preset not in _presets():
            raise ConfigError(f"unknown --preset {self.preset!r}; choose one of: {', '.join(_presets())}", field="preset")

    def _check_model(self) -> None:
        """What is built: a user's model, a Hugging Face config, or a repro whose dimensions fit together."""
        if self.model is not None and ":" not in self.model:
            raise ConfigError(f"--model {self.model!r}: expected MODULE_OR_FILE:FACTORY, e.g. mymodels.py:build", field="model")
        if self.model is not None and self.hf_config is not None:
            raise ConfigError("--model and --hf-config both name the model to probe: give one", field="hf_config")
        if self.hf_config is not None and not self.hf_config.strip():
            raise ConfigError("--hf-config needs the path of a config.json (or of a directory holding one)", field="hf_config")
        if self.model is None and self.hf_config is None and self.repro == Repro.TRANSFORMER:
            if self.dim % self.heads or self.heads % self.kv_heads:
                raise ConfigError(
                    f"--dim {self.dim} must be a multiple of --heads {self.heads}, and --heads of --kv-heads {self.kv_heads}",
                    field="heads",
                )

    def _check_float8(self, recipe: str) -> None:
        """A float8 recipe needs dimensions torch._scaled_mm runs: multiples of 16."""
        if recipe == Recipe.BF16 or self.model is not None:
            return
        # torchtitan's and Hugging Face models define their own dimensions (linears that torch._scaled_mm cannot
        # run stay in bf16; the run's float8 coverage says which)
        own_dims = self.repro != Repro.TORCHTITAN and self.hf_config is None
        bad = [f"--{n}={getattr(self, n)}" for n in ("dim", "hidden") if own_dims and getattr(self, n) % 16]
        if self.repro == Repro.TRANSFORMER and own_dims and (self.dim // self.heads * self.kv_heads) % 16:
            bad.append(f"kv width (dim/heads x kv-heads)={self.dim // self.heads * self.kv_heads}")
        tokens = self.batch * self.seq
        if tokens % 16:
            bad.append(f"--batch x --seq={tokens}")
        if bad:
            raise ConfigError(
                f"float8 recipe {recipe!r} needs multiples of 16 for torch._scaled_mm: {', '.join(bad)}", field="recipe"
            )

    def _policy_ops(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The policy exists, and the ops saved and recomputed on top of it, normalized."""
        with _field_of("ac_policy"):
            get_policy(self.ac_policy)
        with _field_of("save_ops"):
            save_ops = tuple(normalize_op_name(o) for o in self.save_ops)
        with _field_of("recompute_ops"):
            recompute_ops = tuple(normalize_op_name(o) for o in self.recompute_ops)
        with _field_of("save_ops"):
            effective_policy(self.ac_policy, save_ops, recompute_ops)
        return save_ops, recompute_ops

    def _check_budget(self, ac: str) -> None:
        if ac != AcMode.MEMORY_BUDGET:
            return
        if not 0 <= self.memory_budget <= 1:
            raise ConfigError(f"--memory-budget must be between 0 and 1 (got {self.memory_budget})", field="memory_budget")
        if not self.compile:
            raise ConfigError("--ac memory-budget is the compiler partitioner's: it needs --compile", field="ac")

    def _check_flavor(self) -> None:
        if self.repro == Repro.TORCHTITAN and self.model is None and self.hf_config is None:
            from .integrations.torchtitan import FLAVORS

            if (self.flavor or "debugmodel") not in FLAVORS:
                raise ConfigError(
                    f"unknown --flavor {self.flavor!r}; torchtitan's Llama 3 flavors: {', '.join(FLAVORS)}", field="flavor"
                )
        elif self.flavor is not None:
            raise ConfigError("--flavor applies to --repro torchtitan", field="flavor")

    def policy(self):
        return effective_policy(self.ac_policy, self.save_ops, self.recompute_ops)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["save_ops"] = list(self.save_ops)
        d["recompute_ops"] = list(self.recompute_ops)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ProbeConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ConfigError(f"unknown configuration key(s): {', '.join(unknown)}", field=unknown[0])
        d = dict(d)
        if "ac" in d:
            d["ac"] = canonical_ac(d["ac"])
        for k in ("save_ops", "recompute_ops"):
            if k in d:
                if not isinstance(d[k], (list, tuple)):
                    raise ConfigError(f"config key {k!r} must be a list of op names, got {str(d[k])[:60]!r}", field=k)
                d[k] = tuple(d[k])
        return cls(**d)

    def to_flags(self) -> list[str]:
        """The `memprobe run` flags that rebuild this configuration (defaults left out)."""
        default = ProbeConfig()
        flags: list[str] = []
        for f in fields(self):
            value, dflt = getattr(self, f.name), getattr(default, f.name)
            name = "--" + f.name.replace("_", "-")
            if f.name in ("save_ops", "recompute_ops"):
                for op in value:
                    flags += [name[:-1], op]
            elif isinstance(value, bool):
                if value != dflt:
                    flags.append(name if value else "--no-" + name[2:])
            elif value is None:
                continue
            elif f.name == "recipe" or value != dflt:
                flags += [name, str(value)]
        return flags

    def summary(self) -> str:
        """One line a person can read: what was built."""
        if self.model:
            what = f"model={self.model}" + (f" blocks={self.blocks}" if self.blocks else "")
        elif self.hf_config:
            what = f"hf={self.hf_config} layers={self.layers} batch={self.batch} seq={self.seq}"
        elif self.repro == Repro.TORCHTITAN:
            what = f"torchtitan llama3 {self.flavor or 'debugmodel'} layers={self.layers} batch={self.batch} seq={self.seq}"
        else:
            what = (
                f"{self.repro}"
                + (f"({self.preset})" if self.preset else "")
                + f" dim={self.dim} hidden={self.hidden}"
                + (f" heads={self.heads}/{self.kv_heads}" if self.repro == Repro.TRANSFORMER else "")
                + f" layers={self.layers} batch={self.batch} seq={self.seq}"
            )
        parts = [
            self.recipe,
            what,
            f"ac={self.ac}"
            + (
                f"/{self.ac_policy}"
                if self.ac == AcMode.OP
                else f"/{self.memory_budget:g}"
                if self.ac == AcMode.MEMORY_BUDGET
                else ""
            ),
        ]
        if self.save_ops:
            parts.append("+save " + ",".join(self.save_ops))
        if self.recompute_ops:
            parts.append("+recompute " + ",".join(self.recompute_ops))
        parts.append("compile" if self.compile else "eager")
        parts.append(("fsdp" + ("" if self.reshard_after_forward else "(no-reshard)")) if self.fsdp else "no-fsdp")
        if self.nproc > 1:
            parts.append(f"x{self.nproc} ranks")
        return "  ".join(parts)


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

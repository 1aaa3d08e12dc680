"""The probe configuration: what to build and how to run it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace

from .errors import ConfigError
from .policies import effective_policy, get_policy, normalize_op_name

RECIPES = ("bf16", "tensorwise", "rowwise", "rowwise_with_gw_hp")
RECIPE_ALIASES = {"fp8": "rowwise"}
AC_MODES = ("none", "full", "op")
REPROS = ("ffn", "transformer")
DEVICES = ("auto", "cpu", "cuda")


def canonical_recipe(name: str) -> str:
    name = RECIPE_ALIASES.get(name, name)
    if name not in RECIPES:
        choices = ", ".join(list(RECIPES) + list(RECIPE_ALIASES))
        raise ConfigError(f"unknown recipe {name!r}; choose one of: {choices}")
    return name


@dataclass(frozen=True)
class ProbeConfig:
    recipe: str = "rowwise"
    repro: str = "ffn"
    # the user's own model instead of a repro: MODULE_OR_FILE:FACTORY (docs/models.md)
    model: str | None = None
    blocks: str | None = None  # attribute path of the block container (default: found)
    preset: str | None = None  # the named dimensions dim/hidden/heads/kv_heads came from (informational)
    dim: int = 512
    hidden: int = 2048
    heads: int = 8
    kv_heads: int = 2
    layers: int = 2
    batch: int = 2
    seq: int = 256
    seed: int = 0
    ac: str = "op"
    ac_policy: str = "torchtitan"
    save_ops: tuple[str, ...] = field(default=())
    recompute_ops: tuple[str, ...] = field(default=())
    compile: bool = True
    fsdp: bool = True
    reshard_after_forward: bool = True
    device: str = "auto"
    steps: int = 2  # the first compiles (and creates the optimizer state), the second is measured
    lr: float = 1e-4
    nproc: int = 1  # ranks on this node (torchrun); FSDP shards over all ranks

    def validated(self) -> "ProbeConfig":
        """A normalized copy (canonical recipe and op names), or ConfigError."""
        recipe = canonical_recipe(self.recipe)
        for name in ("dim", "hidden", "heads", "kv_heads", "layers", "batch", "seq", "nproc"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1 (got {getattr(self, name)})")
        if self.repro not in REPROS:
            raise ConfigError(f"unknown --repro {self.repro!r}; choose one of: {', '.join(REPROS)}")
        if self.preset is not None:
            from repros.presets import PRESETS

            if self.preset not in PRESETS:
                raise ConfigError(f"unknown --preset {self.preset!r}; choose one of: {', '.join(PRESETS)}")
        if self.model is not None and ":" not in self.model:
            raise ConfigError(f"--model {self.model!r}: expected MODULE_OR_FILE:FACTORY, e.g. mymodels.py:build")
        if self.model is None and self.repro == "transformer":
            if self.dim % self.heads or self.heads % self.kv_heads:
                raise ConfigError(
                    f"--dim {self.dim} must be a multiple of --heads {self.heads}, and --heads of --kv-heads {self.kv_heads}"
                )
        if self.steps < 2:
            raise ConfigError(f"--steps must be at least 2: the first step compiles, later ones are measured (got {self.steps})")
        if recipe != "bf16" and self.model is None:
            bad = [f"--{n}={getattr(self, n)}" for n in ("dim", "hidden") if getattr(self, n) % 16]
            if self.repro == "transformer" and (self.dim // self.heads * self.kv_heads) % 16:
                bad.append(f"kv width (dim/heads x kv-heads)={self.dim // self.heads * self.kv_heads}")
            tokens = self.batch * self.seq
            if tokens % 16:
                bad.append(f"--batch x --seq={tokens}")
            if bad:
                raise ConfigError(
                    f"float8 recipe {recipe!r} needs multiples of 16 for torch._scaled_mm: {', '.join(bad)}"
                )
        if self.ac not in AC_MODES:
            raise ConfigError(f"unknown --ac {self.ac!r}; choose one of: {', '.join(AC_MODES)}")
        if self.device not in DEVICES:
            raise ConfigError(f"unknown --device {self.device!r}; choose one of: {', '.join(DEVICES)}")
        get_policy(self.ac_policy)
        save_ops = tuple(normalize_op_name(o) for o in self.save_ops)
        recompute_ops = tuple(normalize_op_name(o) for o in self.recompute_ops)
        effective_policy(self.ac_policy, save_ops, recompute_ops)
        if self.lr <= 0:
            raise ConfigError(f"--lr must be positive (got {self.lr})")
        return replace(self, recipe=recipe, save_ops=save_ops, recompute_ops=recompute_ops)

    def policy(self):
        return effective_policy(self.ac_policy, self.save_ops, self.recompute_ops)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["save_ops"] = list(self.save_ops)
        d["recompute_ops"] = list(self.recompute_ops)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "ProbeConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ConfigError(f"unknown configuration key(s): {', '.join(unknown)}")
        d = dict(d)
        for k in ("save_ops", "recompute_ops"):
            if k in d:
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
        else:
            what = (f"{self.repro}" + (f"({self.preset})" if self.preset else "")
                    + f" dim={self.dim} hidden={self.hidden}"
                    + (f" heads={self.heads}/{self.kv_heads}" if self.repro == "transformer" else "")
                    + f" layers={self.layers} batch={self.batch} seq={self.seq}")
        parts = [
            self.recipe,
            what,
            f"ac={self.ac}" + (f"/{self.ac_policy}" if self.ac == "op" else ""),
        ]
        if self.save_ops:
            parts.append("+save " + ",".join(self.save_ops))
        if self.recompute_ops:
            parts.append("+recompute " + ",".join(self.recompute_ops))
        parts.append("compile" if self.compile else "eager")
        parts.append(
            ("fsdp" + ("" if self.reshard_after_forward else "(no-reshard)")) if self.fsdp else "no-fsdp"
        )
        if self.nproc > 1:
            parts.append(f"x{self.nproc} ranks")
        return "  ".join(parts)


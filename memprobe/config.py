"""The probe configuration: what to build and how to run it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace

from .errors import ConfigError
from .policies import effective_policy, get_policy, normalize_op_name

RECIPES = ("bf16", "tensorwise", "rowwise", "rowwise_with_gw_hp")
RECIPE_ALIASES = {"fp8": "rowwise"}
AC_MODES = ("none", "full", "op")
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
    dim: int = 512
    hidden: int = 2048
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
    steps: int = 3
    lr: float = 1e-4

    def validated(self) -> "ProbeConfig":
        """A normalized copy (canonical recipe and op names), or ConfigError."""
        recipe = canonical_recipe(self.recipe)
        for name in ("dim", "hidden", "layers", "batch", "seq"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name} must be at least 1 (got {getattr(self, name)})")
        if self.steps < 2:
            raise ConfigError(f"--steps must be at least 2: the first step compiles, later ones are measured (got {self.steps})")
        if recipe != "bf16":
            bad = [f"--{n}={getattr(self, n)}" for n in ("dim", "hidden") if getattr(self, n) % 16]
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
            elif f.name == "recipe" or value != dflt:
                flags += [name, str(value)]
        return flags

    def summary(self) -> str:
        """One line a person can read: what was built."""
        parts = [
            self.recipe,
            f"dim={self.dim} hidden={self.hidden} layers={self.layers} batch={self.batch} seq={self.seq}",
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
        return "  ".join(parts)


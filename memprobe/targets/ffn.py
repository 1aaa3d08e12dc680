"""``--repro ffn`` (the default): a stack of Llama SwiGLU FFN blocks (repros/ffn.py), the smallest model that shows
what float8 and per-op SAC save for backward."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..fields import option
from .base import (
    BuiltModel,
    ModelSource,
    Target,
    batch_field,
    blocks_field,
    check_at_least_one,
    embedding_batch,
    embedding_batch_source,
    layers_field,
    repro_code,
    seq_field,
)
from .presets import PRESETS, preset_depth, preset_names


def swiglu_parameters(dim: int, hidden: int) -> int:
    return 3 * dim * hidden


def swiglu_activations(dim: int, hidden: int) -> int:
    return 3 * dim + 4 * hidden  # its input, output and residual; four hidden-sized values


def unaligned(target, names: tuple[str, ...], align: int) -> list[str]:
    """The fields among ``names`` that are no multiple of ``align``, as flags (``--dim=100``)."""
    return [f"--{n}={getattr(target, n)}" for n in names if getattr(target, n) % align]


def check_preset(name: str | None) -> None:
    if name is not None and name not in PRESETS:
        raise ConfigError(f"unknown --preset {name!r}; choose one of: {', '.join(PRESETS)}", field="preset")


# the sizes a minimal repro may make smaller: depth, batch and sequence, then the widths (float8 aligned)
SHRINKABLE = (("layers", 1), ("batch", 1), ("seq", 1), ("dim", 0), ("hidden", 0))


def preset_field():
    return option(
        None,
        "Dimensions of a published model (dim, hidden, heads, kv-heads); explicit flags win. "
        "Layers stay as given: estimate the full depth with `memprobe estimate`.",
        choices=preset_names,
    )


def dim_field():
    return option(512, "Model dimension.", preset=True)


def hidden_field():
    return option(2048, "FFN hidden dimension.", preset=True)


@dataclass(frozen=True)
class FFN(Target):
    """SwiGLU FFN blocks (``layers.N.ffn.{w1,w2,w3}``), fed a batch of embeddings."""

    name = "ffn"
    about = "SwiGLU FFN blocks"

    preset: str | None = preset_field()
    dim: int = dim_field()
    hidden: int = hidden_field()
    layers: int = layers_field()
    batch: int = batch_field()
    seq: int = seq_field()
    blocks: str | None = blocks_field()

    def check(self) -> None:
        check_preset(self.preset)
        check_at_least_one(self, ("dim", "hidden", "layers", "batch", "seq"))

    def dims(self) -> str:
        return f"dim={self.dim} hidden={self.hidden}"

    def summary(self) -> str:
        preset = f"({self.preset})" if self.preset else ""
        return f"{self.name}{preset} {self.dims()} layers={self.layers} batch={self.batch} seq={self.seq}"

    def float8_dims(self, align: int) -> list[str]:
        return unaligned(self, ("dim", "hidden"), align)

    def parameter_count(self) -> int:
        return self.layers * swiglu_parameters(self.dim, self.hidden)

    def activations_per_token(self) -> int:
        return swiglu_activations(self.dim, self.hidden)

    def full_depth(self) -> int | None:
        return preset_depth(self.preset)

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        from repros import ffn

        model = ffn.build_model(self.dim, self.hidden, self.layers, seed=seed, device=device)
        return BuiltModel(model, (embedding_batch(self.batch, self.seq, self.dim, device, seed),), self.blocks or "layers")

    def source(self, seed: int) -> ModelSource:
        imports, code = repro_code("ffn")
        build = (f"model = build_model({self.dim}, {self.hidden}, {self.layers}, seed={seed}, device=device)",)
        return ModelSource(
            about=f"SwiGLU FFN blocks ({self.dims()} layers={self.layers} batch={self.batch} seq={self.seq})",
            build=build + embedding_batch_source(self.batch, self.seq, self.dim, seed),
            imports=imports,
            definitions=code,
        )

    def shrinkable(self) -> tuple[tuple[str, int], ...]:
        return SHRINKABLE

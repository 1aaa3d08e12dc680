"""``--repro moe``: mixture-of-experts blocks (repros/moe.py): a router and SwiGLU experts whose weights are 3-D,
run by grouped GEMMs (``torch._grouped_mm``), as torchtitan's MoE and transformers' Mixtral run them."""

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
from .ffn import SHRINKABLE, check_preset, dim_field, hidden_field, preset_field, unaligned
from .presets import preset_depth


@dataclass(frozen=True)
class MoE(Target):
    """Mixture-of-experts blocks (``layers.N.moe.router``, ``layers.N.moe.experts.{gate_up_proj,down_proj}``), fed a
    batch of embeddings."""

    name = "moe"
    about = "mixture-of-experts blocks: a router and grouped experts"

    preset: str | None = preset_field()
    dim: int = dim_field()
    hidden: int = hidden_field()
    experts: int = option(8, "With --repro moe: experts per block.")
    top_k: int = option(2, "With --repro moe: experts each token is routed to.")
    layers: int = layers_field()
    batch: int = batch_field()
    seq: int = seq_field()
    blocks: str | None = blocks_field()

    def check(self) -> None:
        check_preset(self.preset)
        check_at_least_one(self, ("dim", "hidden", "experts", "top_k", "layers", "batch", "seq"))
        if self.top_k > self.experts:
            raise ConfigError(f"--top-k {self.top_k} is more than --experts {self.experts}", field="top_k")

    def summary(self) -> str:
        preset = f"({self.preset})" if self.preset else ""
        experts = f"experts={self.experts} top_k={self.top_k}"
        return f"{self.name}{preset} dim={self.dim} hidden={self.hidden} {experts} layers={self.layers} batch={self.batch} seq={self.seq}"

    def float8_dims(self, align: int) -> list[str]:
        return unaligned(self, ("dim", "hidden"), align)

    def parameter_count(self) -> int:
        return self.layers * (self.experts * 3 * self.dim * self.hidden + self.experts * self.dim)

    def activations_per_token(self) -> int:
        # each token's top_k copies through the experts (its input, four hidden-sized values, its output), the scores
        return self.top_k * (2 * self.dim + 4 * self.hidden) + 2 * self.dim + 2 * self.experts

    def full_depth(self) -> int | None:
        return preset_depth(self.preset)

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        from repros import moe

        model = moe.build_model(
            self.dim, self.hidden, self.layers, experts=self.experts, top_k=self.top_k, seed=seed, device=device
        )
        return BuiltModel(model, (embedding_batch(self.batch, self.seq, self.dim, device, seed),), self.blocks or "layers")

    def source(self, seed: int) -> ModelSource:
        imports, code = repro_code("moe")
        experts = f"experts={self.experts}, top_k={self.top_k}"
        build = (f"model = build_model({self.dim}, {self.hidden}, {self.layers}, {experts}, seed={seed}, device=device)",)
        return ModelSource(
            about=f"mixture-of-experts blocks ({self.summary().partition(' ')[2]})",
            build=build + embedding_batch_source(self.batch, self.seq, self.dim, seed),
            imports=imports,
            definitions=code,
        )

    def shrinkable(self) -> tuple[tuple[str, int], ...]:
        return SHRINKABLE

"""``--repro transformer``: Llama-3-style blocks (repros/transformer.py): RMSNorm, grouped-query attention through
SDPA with rotary embeddings, and the SwiGLU FFN, named like torchtitan's Llama 3."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..fields import option
from .base import BuiltModel, Target, batch_field, blocks_field, check_at_least_one, embedding_batch, layers_field, seq_field
from .ffn import check_preset, dim_field, hidden_field, preset_field, swiglu_activations, swiglu_parameters, unaligned
from .presets import preset_depth


@dataclass(frozen=True)
class Transformer(Target):
    """Llama-3-style transformer blocks (``layers.N.attention.wq``, ``layers.N.feed_forward.w1``), then the final
    norm, fed a batch of embeddings."""

    name = "transformer"
    about = "Llama-3-style transformer blocks"

    preset: str | None = preset_field()
    dim: int = dim_field()
    hidden: int = hidden_field()
    heads: int = option(8, "Attention heads (transformer).", preset=True)
    kv_heads: int = option(2, "Key/value heads (transformer, grouped-query).", preset=True)
    layers: int = layers_field()
    batch: int = batch_field()
    seq: int = seq_field()
    blocks: str | None = blocks_field()

    def check(self) -> None:
        check_preset(self.preset)
        check_at_least_one(self, ("dim", "hidden", "heads", "kv_heads", "layers", "batch", "seq"))
        if self.dim % self.heads or self.heads % self.kv_heads:
            raise ConfigError(
                f"--dim {self.dim} must be a multiple of --heads {self.heads}, and --heads of --kv-heads {self.kv_heads}",
                field="heads",
            )

    def kv_width(self) -> int:
        return self.dim // self.heads * self.kv_heads

    def summary(self) -> str:
        preset = f"({self.preset})" if self.preset else ""
        dims = f"dim={self.dim} hidden={self.hidden} heads={self.heads}/{self.kv_heads}"
        return f"{self.name}{preset} {dims} layers={self.layers} batch={self.batch} seq={self.seq}"

    def float8_dims(self, align: int) -> list[str]:
        bad = unaligned(self, ("dim", "hidden"), align)
        if self.kv_width() % align:
            bad.append(f"kv width (dim/heads x kv-heads)={self.kv_width()}")
        return bad

    def parameter_count(self) -> int:
        attention = 2 * self.dim * self.dim + 2 * self.dim * self.kv_width()
        block = attention + swiglu_parameters(self.dim, self.hidden) + 2 * self.dim  # and two norms
        return self.layers * block + self.dim  # and the final norm

    def activations_per_token(self) -> int:
        # norms in fp32, q/k/v/o, rotary's fp32 copies (fused attention: no seq x seq)
        return swiglu_activations(self.dim, self.hidden) + 8 * self.dim + 4 * self.kv_width()

    def full_depth(self) -> int | None:
        return preset_depth(self.preset)

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        from repros import transformer

        model = transformer.build_model(
            self.dim, self.hidden, self.layers, heads=self.heads, kv_heads=self.kv_heads, seed=seed, device=device
        )
        return BuiltModel(model, (embedding_batch(self.batch, self.seq, self.dim, device, seed),), self.blocks or "layers")

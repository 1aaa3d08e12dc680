"""``--repro transformer``: Llama-3-style blocks (repros/transformer.py): RMSNorm, grouped-query attention through
SDPA with rotary embeddings, and the SwiGLU FFN, named like torchtitan's Llama 3; with ``--vocab``, its token
embedding, output projection and logits too."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..fields import Kind, option
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
    token_batch,
    token_batch_source,
)
from .ffn import (
    SHRINKABLE,
    check_preset,
    dim_field,
    hidden_field,
    preset_field,
    swiglu_activations,
    swiglu_parameters,
    unaligned,
)
from .presets import preset_depth


@dataclass(frozen=True)
class Transformer(Target):
    """Llama-3-style transformer blocks (``layers.N.attention.wq``, ``layers.N.feed_forward.w1``), then the final
    norm, fed a batch of embeddings; with ``--vocab``, torchtitan's whole Llama 3 (``tok_embeddings``, the blocks,
    ``norm``, ``output``) fed token ids, its output projection left in bf16 as torchtitan's float8 configurations
    leave it (``filter_fqns = ["output"]``)."""

    name = "transformer"
    about = "Llama-3-style transformer blocks"

    preset: str | None = preset_field()
    dim: int = dim_field()
    hidden: int = hidden_field()
    heads: int = option(8, "Attention heads (transformer).", preset=True)
    kv_heads: int = option(2, "Key/value heads (transformer, grouped-query).", preset=True)
    vocab: int | None = option(
        None,
        "With --repro transformer: a vocabulary of V tokens: a token embedding before the blocks and an output "
        "projection to the logits after them (bf16: torchtitan's float8 leaves it out), fed token ids (Llama 3: "
        "128256; not part of --preset). Not given: no embedding or output, fed embeddings.",
        kind=Kind.WHOLE,
        metavar="V",
    )
    layers: int = layers_field()
    batch: int = batch_field()
    seq: int = seq_field()
    blocks: str | None = blocks_field()

    def check(self) -> None:
        check_preset(self.preset)
        check_at_least_one(self, ("dim", "hidden", "heads", "kv_heads", "layers", "batch", "seq"))
        if self.vocab is not None and self.vocab < 1:
            raise ConfigError(f"--vocab must be at least 1 (got {self.vocab})", field="vocab")
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
        if self.vocab:
            dims += f" vocab={self.vocab}"
        return f"{self.name}{preset} {dims} layers={self.layers} batch={self.batch} seq={self.seq}"

    def float8_dims(self, align: int) -> list[str]:
        bad = unaligned(self, ("dim", "hidden"), align)
        if self.kv_width() % align:
            bad.append(f"kv width (dim/heads x kv-heads)={self.kv_width()}")
        return bad

    def parameter_count(self) -> int:
        attention = 2 * self.dim * self.dim + 2 * self.dim * self.kv_width()
        block = attention + swiglu_parameters(self.dim, self.hidden) + 2 * self.dim  # and two norms
        return self.layers * block + self.dim + 2 * (self.vocab or 0) * self.dim  # the final norm, embedding, output

    def activations_per_token(self) -> int:
        # norms in fp32, q/k/v/o, rotary's fp32 copies (fused attention: no seq x seq)
        return swiglu_activations(self.dim, self.hidden) + 8 * self.dim + 4 * self.kv_width()

    def outside_per_token(self) -> int:
        return self.vocab or 0  # the logits

    def full_depth(self) -> int | None:
        return preset_depth(self.preset)

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        from repros import transformer

        model = transformer.build_model(
            self.dim,
            self.hidden,
            self.layers,
            heads=self.heads,
            kv_heads=self.kv_heads,
            vocab=self.vocab or 0,
            seed=seed,
            device=device,
        )
        if not self.vocab:
            return BuiltModel(model, (embedding_batch(self.batch, self.seq, self.dim, device, seed),), self.blocks or "layers")
        batch = (token_batch(self.vocab, self.batch, self.seq, device, seed),)
        return BuiltModel(model, batch, self.blocks or "layers", float8_skip=("output",))

    def source(self, seed: int) -> ModelSource:
        imports, code = repro_code("transformer")
        heads = f"heads={self.heads}, kv_heads={self.kv_heads}, vocab={self.vocab or 0}"
        build = (f"model = build_model({self.dim}, {self.hidden}, {self.layers}, {heads}, seed={seed}, device=device)",)
        if self.vocab:
            batch = token_batch_source(self.vocab, self.batch, self.seq, seed)
        else:
            batch = embedding_batch_source(self.batch, self.seq, self.dim, seed)
        return ModelSource(
            about=f"Llama-3-style transformer blocks ({self.summary().partition(' ')[2]})",
            build=build + batch,
            imports=imports,
            definitions=code,
            float8_skip=("output",) if self.vocab else (),
        )

    def shrinkable(self) -> tuple[tuple[str, int], ...]:
        return SHRINKABLE

"""``--hf-config CONFIG_JSON``: a Hugging Face transformers causal LM built from its ``config.json`` alone (no
weights, no hub access, no remote code) by memprobe/integrations/huggingface.py, fed token ids."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..fields import option, shown
from ..vocab import EnvNeed
from .base import (
    BuiltModel,
    ModelSource,
    Target,
    batch_field,
    block_container,
    blocks_field,
    check_at_least_one,
    layers_field,
    literal,
    seq_field,
    token_batch_source,
)


@dataclass(frozen=True)
class HuggingFace(Target):
    """A transformers causal LM with its first ``--layers`` decoder blocks, its KV cache turned off."""

    name = "hf"
    about = "a transformers causal LM from its config.json, --hf-config"
    selector = "hf_config"

    hf_config: str | None = option(
        None,
        "Probe a Hugging Face transformers causal LM built from this config.json (a file, or a directory "
        "holding one; no weights, no hub access) with its first --layers decoder blocks, --batch x --seq token ids; "
        "its KV cache is turned off. Needs transformers (pip install 'memprobe[hf]'); see docs/models.md.",
        metavar="CONFIG_JSON",
    )
    attn_implementation: str | None = option(
        None,
        "With --hf-config: transformers' attention implementation (sdpa, eager, flex_attention, ...); default sdpa "
        "where the model supports it, else eager (the run says so).",
        metavar="IMPL",
    )
    layers: int = layers_field()
    batch: int = batch_field()
    seq: int = seq_field()
    blocks: str | None = blocks_field()

    def check(self) -> None:
        if self.attn_implementation is not None and not self.attn_implementation.strip():
            raise ConfigError(
                "--attn-implementation needs a name (sdpa, eager, flex_attention, ...)", field="attn_implementation"
            )
        if not self.hf_config.strip():
            raise ConfigError("--hf-config needs the path of a config.json (or of a directory holding one)", field="hf_config")
        check_at_least_one(self, ("layers", "batch", "seq"))

    def check_files(self) -> None:
        from ..integrations.huggingface import read_config

        read_config(self.hf_config)  # the file, its size and its JSON: what a typo gets wrong

    def users_code(self) -> str | None:
        return f"a model configuration to build, {shown(self.hf_config, 200)}"

    def summary(self) -> str:
        attention = f" attn={self.attn_implementation}" if self.attn_implementation else ""
        return f"hf={self.hf_config}{attention} layers={self.layers} batch={self.batch} seq={self.seq}"

    def short_name(self) -> str:
        path = Path(self.hf_config)
        stem = path.stem if self.hf_config.endswith(".json") or "/" in self.hf_config else self.hf_config.rsplit(".", 1)[-1]
        return path.parent.name if stem == "config" else stem  # a model directory's config.json: the directory's name

    def needs(self) -> frozenset[EnvNeed]:
        return frozenset({EnvNeed.TRANSFORMERS})

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        from ..integrations.huggingface import build_causal_lm, decoder_blocks

        model, batch, notes = build_causal_lm(
            self.hf_config, self.layers, device, self.batch, self.seq, seed, attention=self.attn_implementation
        )
        return BuiltModel(model, batch, block_container(model, self.blocks or decoder_blocks(model)), notes=notes)

    def source(self, seed: int) -> ModelSource:
        """The config.json, as edited to build the model (its depth, no KV cache), written into the script: reading it
        runs nothing of it."""
        from ..integrations.huggingface import script_plan

        doc, attention, vocab = script_plan(self.hf_config, self.layers, self.seq, self.attn_implementation)
        definitions = (
            f"# the model's config.json as it was built from it ({self.layers} decoder block(s), no KV cache)\n"
            f"CONFIG = {literal(doc)}"
        )
        build = (
            "config = AutoConfig.for_model(**CONFIG)",
            f"torch.manual_seed({seed})",
            "with torch.device(device):",
            "    model = AutoModelForCausalLM.from_config(",
            f'        config, dtype=torch.float32, attn_implementation="{attention}", trust_remote_code=False',
            "    )",
            "model.train()",
        )
        return ModelSource(
            about=f"a transformers {doc['model_type']} causal LM ({self.summary()})",
            build=build + token_batch_source(vocab, self.batch, self.seq, seed),
            imports=("from transformers import AutoConfig, AutoModelForCausalLM",),
            definitions=definitions,
            libraries=("transformers",),
        )

    def shrinkable(self) -> tuple[tuple[str, int], ...]:
        return (("layers", 1), ("batch", 1), ("seq", 1))

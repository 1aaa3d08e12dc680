"""``--repro torchtitan``: torchtitan's own Llama 3 (its model args at ``--flavor``, its first ``--layers`` blocks),
built by memprobe/integrations/torchtitan.py, fed token ids."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..fields import option
from ..integrations.torchtitan import FLAVORS
from ..vocab import EnvNeed
from .base import BuiltModel, Target, batch_field, blocks_field, check_at_least_one, layers_field, seq_field

DEFAULT_FLAVOR = "debugmodel"


@dataclass(frozen=True)
class Torchtitan(Target):
    """torchtitan's Llama 3 (``layers.N.attention.wq``, ``layers.N.feed_forward.w1``), its embedding and output
    projection included; needs torchtitan (``pip install 'memprobe[torchtitan]'``)."""

    name = "torchtitan"
    about = "torchtitan's own Llama 3 at --flavor, its first --layers blocks; needs torchtitan"

    flavor: str | None = option(
        None,
        "With --repro torchtitan: the Llama 3 flavor of torchtitan's config registry "
        f"(debugmodel, 1B, 3B, 8B, 70B, 405B; default {DEFAULT_FLAVOR}).",
        metavar="FLAVOR",
    )
    layers: int = layers_field()
    batch: int = batch_field()
    seq: int = seq_field()
    blocks: str | None = blocks_field()

    def check(self) -> None:
        check_at_least_one(self, ("layers", "batch", "seq"))
        if (self.flavor or DEFAULT_FLAVOR) not in FLAVORS:
            raise ConfigError(
                f"unknown --flavor {self.flavor!r}; torchtitan's Llama 3 flavors: {', '.join(FLAVORS)}", field="flavor"
            )

    def summary(self) -> str:
        return f"torchtitan llama3 {self.flavor or DEFAULT_FLAVOR} layers={self.layers} batch={self.batch} seq={self.seq}"

    def needs(self) -> frozenset[EnvNeed]:
        return frozenset({EnvNeed.TORCHTITAN_LLAMA3})

    def build(self, device, seed: int, recipe: str) -> BuiltModel:
        from ..integrations.torchtitan import build_llama3

        model, batch, float8_done = build_llama3(
            self.flavor or DEFAULT_FLAVOR, self.layers, recipe, device, self.batch, self.seq, seed
        )
        return BuiltModel(model, batch, self.blocks or "layers", float8_done)

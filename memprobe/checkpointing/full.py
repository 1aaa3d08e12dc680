"""``--ac full``: each block checkpointed whole (torch's checkpoint_wrapper, everything inside recomputed)."""

from __future__ import annotations

from ..vocab import AcMode
from .base import Edit, Facts, Mode, recompute_all


class WholeBlocks(Mode):
    name = AcMode.FULL.value
    regions = True
    whole_regions = True
    script_step = "full"

    def apply(self, blocks, target, cfg, decisions: dict) -> None:
        wrap_blocks(blocks, context_fn=None)

    def edits(self, cfg, facts: Facts) -> list[Edit]:
        return [recompute_all("in place of the whole-block checkpoint")]

    def script_words(self, cfg) -> str:
        return "full activation checkpointing per block"


def wrap_blocks(blocks, context_fn) -> None:
    """Each child of ``blocks`` in torch's checkpoint_wrapper (non-reentrant, no RNG state preserved: torchtitan's
    setting), with ``context_fn`` (a per-op SAC policy's) when given."""
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

    kwargs = {"context_fn": context_fn} if context_fn is not None else {}
    for name, block in list(blocks.named_children()):
        blocks.register_module(name, checkpoint_wrapper(block, preserve_rng_state=False, **kwargs))

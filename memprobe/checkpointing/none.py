"""``--ac none``: memprobe checkpoints nothing; regions the model or script checkpoints itself are judged as whole
regions are."""

from __future__ import annotations

from ..vocab import AcMode
from .base import Edit, Facts, Mode, recompute_all


class NoCheckpointing(Mode):
    name = AcMode.NONE.value
    own_regions_judged = True

    def edits(self, cfg, facts: Facts) -> list[Edit]:
        """Each way to checkpoint the blocks (whole; per-op with the configuration's policy; the partitioner's memory
        budget); and, where the model's own regions lost some ops' tags, a per-op policy around them."""
        around = [recompute_all("around the model's own checkpointing")] if facts.lost_tags else []
        return around + [
            Edit(flag="--ac full", edit="checkpoint every block whole", changes={"ac": AcMode.FULL.value}, directory="ac-full"),
            Edit(
                flag=f"--ac op --ac-policy {cfg.ac_policy}",
                edit=f"per-op SAC with the {cfg.ac_policy} policy",
                changes={"ac": AcMode.OP.value},
                directory=f"ac-op-{cfg.ac_policy}",
            ),
            Edit(
                flag=f"--ac memory-budget --memory-budget {cfg.memory_budget:g}",
                edit=f"the partitioner's activation memory budget at {cfg.memory_budget:g}",
                changes={"ac": AcMode.MEMORY_BUDGET.value},
                directory="ac-memory-budget",
            ),
        ]

"""``--ac memory-budget``: the compiler partitioner's activation memory budget (torchtitan's MemoryBudgetAC): 0
recomputes what it can, 1 is the runtime-optimal partition."""

from __future__ import annotations

from ..errors import ConfigError
from ..vocab import AcMode
from .base import Mode


class MemoryBudget(Mode):
    name = AcMode.MEMORY_BUDGET.value
    about = (
        "memory-budget (the compiler partitioner's activation memory budget, --memory-budget; torchtitan's "
        "MemoryBudgetAC; budget is accepted for it)"
    )
    needs_compile = True
    script_step = "budget"

    def check(self, cfg) -> None:
        if not 0 <= cfg.memory_budget <= 1:
            raise ConfigError(f"--memory-budget must be between 0 and 1 (got {cfg.memory_budget})", field="memory_budget")
        if not cfg.compile:
            raise ConfigError("--ac memory-budget is the compiler partitioner's: it needs --compile", field="ac")

    def summary(self, cfg) -> str:
        return f"{self.name}/{cfg.memory_budget:g}"

    def apply(self, blocks, target, cfg, decisions: dict) -> None:
        """Process-wide: a probe is a process of its own."""
        import torch._functorch.config

        torch._functorch.config.activation_memory_budget = cfg.memory_budget

    def script_words(self, cfg) -> str:
        return f"the partitioner's activation memory budget {cfg.memory_budget:g}"

    def script_settings(self, cfg) -> dict:
        return {"memory_budget": cfg.memory_budget}

    def unexplainable(self, cfg) -> str | None:
        return (
            "explain edits a per-op SAC policy or the AC mode; for --ac memory-budget, `memprobe sweep` probes the budgets "
            "and ranks what each saves"
        )

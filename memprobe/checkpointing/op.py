"""``--ac op``: per-op selective activation checkpointing with a policy (``--ac-policy``, ``--save-op``,
``--recompute-op``): memprobe's own context_fn, or torchtitan's SelectiveAC as installed."""

from __future__ import annotations

from ..vocab import AcMode, EnvNeed
from .base import Edit, Facts, Mode
from .full import wrap_blocks


class PerOp(Mode):
    name = AcMode.OP.value
    about = "op (per-op SAC, --ac-policy)"
    regions = True
    policy = True
    script_step = "op"

    def summary(self, cfg) -> str:
        return f"{self.name}/{cfg.ac_policy}"

    def needs(self, cfg) -> set:
        from ..policies import INSTALLED

        return {EnvNeed.TORCHTITAN_SAC} if cfg.ac_policy == INSTALLED else set()

    def apply(self, blocks, target, cfg, decisions: dict) -> None:
        """torchtitan's own SelectiveAC (``--ac-policy torchtitan-installed``), else memprobe's policy (its decisions
        counted in ``decisions``)."""
        from ..policies import INSTALLED, cpu_attention_ops, make_context_fn, resolve_op

        if cfg.ac_policy == INSTALLED:
            from ..integrations.torchtitan import apply_selective_ac

            add = frozenset(resolve_op(o) for o in cfg.save_ops)
            drop = frozenset(resolve_op(o) for o in cfg.recompute_ops)
            apply_selective_ac(blocks, add, drop, base_fqn=target.blocks_attr, parity=cpu_attention_ops())
            return
        wrap_blocks(blocks, context_fn=make_context_fn(cfg.policy(), decisions))

    def script_words(self, cfg) -> str:
        from ..policies import get_policy

        return f"per-op SAC [{get_policy(cfg.ac_policy).description}]"

    def unscriptable(self, cfg) -> str | None:
        from ..policies import INSTALLED

        if cfg.ac_policy != INSTALLED:
            return None
        return (
            f"checkpointed with the installed torchtitan's own SelectiveAC (--ac-policy {INSTALLED}); a repro writes "
            "memprobe's per-op policies out: record the run with --ac-policy torchtitan (or another named policy)"
        )

    def edits(self, cfg, facts: Facts) -> list[Edit]:
        """Each save-list op that saved something, recomputed."""
        from ..policies import flag_op

        return [
            Edit(
                flag=f"--recompute-op {flag_op(op)}",
                edit=f"remove {flag_op(op)} from the SAC save list",
                changes={"recompute_ops": cfg.recompute_ops + (op,)},
                directory=f"recompute-{op.replace('.', '-')}",
                op=op,
            )
            for op in facts.saved_ops
        ]

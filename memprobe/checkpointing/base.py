"""What an activation checkpointing mode is: the one place every layer asks about it (its checks and summary, the
apply step a probe runs, the edits explain tries, the findings whose rule is about it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Edit:
    """One edit explain tries: its flag, the edit in words, the configuration fields it changes, the directory of its
    run, and the save-list op it recomputes (a policy edit)."""

    flag: str
    edit: str
    changes: dict[str, Any]
    directory: str
    op: str | None = None


@dataclass(frozen=True)
class Facts:
    """What explain knows of the run whose edits it tries: the save-list ops that saved something, and whether a
    region's tag did not reach some ops of a region the model checkpoints itself (a checkpoint-saves-more finding
    whose fix is a per-op policy), and the torch_remat regions that kept something (their names in the block)."""

    saved_ops: tuple[str, ...] = ()
    lost_tags: bool = False
    saved_regions: tuple[str, ...] = ()


RECOMPUTE_ALL_POLICY = "recompute-all"


class Mode:
    """An activation checkpointing mode (``--ac NAME``). A mode declares, as attributes read by the layers that need
    them:

    - ``regions``: memprobe wraps each block in a checkpointed region (``full``, ``op``);
    - ``whole_regions``: those regions ask for everything inside them to be recomputed (``full``): a value they
      save beyond their inputs is the checkpoint-saves-more finding's;
    - ``policy``: its regions follow the per-op SAC policy (``--ac-policy``, ``--save-op``, ``--recompute-op``): the
      run records it and its decisions, and a value a region's tag did not reach is unrecomputable-saved's;
    - ``own_regions_judged``: memprobe applies no checkpointing, and regions the model or script checkpoints itself
      are judged as whole regions are (``none``);
    - ``needs_compile``: it is the compiler's (``memory-budget``);
    - ``script_step``: the part of a standalone repro script's stack it takes (``memprobe repro``:
      :mod:`memprobe.report.repro_code` writes ``full``, ``op`` and ``budget``; None: nothing);
    - ``about``: the mode in ``--ac``'s help (its name, and in parentheses the flags it reads);
    - ``fields``: the configuration fields only this mode reads (``--save-region``), declared as the configuration's
      own are (name, type, :func:`memprobe.fields.option`): :mod:`memprobe.config` adds them after the per-op SAC
      flags, so a mode and its flags are one module.
    """

    name: str = ""
    about: str = ""
    fields: tuple[tuple[str, object, object], ...] = ()
    regions: bool = False
    whole_regions: bool = False
    policy: bool = False
    own_regions_judged: bool = False
    needs_compile: bool = False
    script_step: str | None = None

    def check(self, cfg) -> None:
        """ConfigError where ``cfg``'s fields do not fit this mode."""

    def summary(self, cfg) -> str:
        """The header's ``ac=`` word: ``op/torchtitan``, ``memory-budget/0.5``."""
        return self.name

    def needs(self, cfg) -> set:
        """What this mode needs of the probe's interpreter (``memprobe.vocab.EnvNeed``)."""
        return set()

    def unrunnable(self, cfg) -> str | None:
        """Why this interpreter's libraries cannot run the mode as ``cfg`` asks, checked in the probe before anything is
        built (None: they can)."""
        return None

    def apply(self, blocks, target, cfg, decisions: dict) -> None:
        """The probe's apply step on the model's blocks (after float8, before compile and FSDP2)."""

    def eager_regions(self, cfg) -> bool:
        """Whether its regions run eagerly (not compiled): their saved tensors go through checkpoint's own hooks, so
        the autograd graph cannot be read after forward without consuming them."""
        return self.regions and not cfg.compile

    def unexplainable(self, cfg) -> str | None:
        """Why explain has no edits for this mode (None: it has)."""
        return None

    def edits(self, cfg, facts: Facts) -> list[Edit]:
        """The edits explain tries on a run of this mode."""
        return []

    def script_words(self, cfg) -> str | None:
        """What a standalone repro script's header says of it (None: nothing: no checkpointing)."""
        return None

    def script_settings(self, cfg) -> dict:
        """The settings of its ``script_step`` a standalone repro script writes out (a per-op policy's are the run's
        recorded policy, written by the script's renderer)."""
        return {}

    def unscriptable(self, cfg) -> str | None:
        """Why a standalone repro script cannot write it (None: it can)."""
        return None


def recompute_all(where: str) -> Edit:
    """A per-op SAC policy that tags every op it runs for recompute (``where``: in place of what, or around it): it
    reaches ops a region's tagging does not, such as those inside an autograd.Function on some torch releases."""
    return Edit(
        flag=f"--ac op --ac-policy {RECOMPUTE_ALL_POLICY}",
        edit=f"a per-op SAC policy that tags every op it runs for recompute, {where}",
        changes={"ac": "op", "ac_policy": RECOMPUTE_ALL_POLICY, "save_ops": (), "recompute_ops": ()},
        directory="ac-op-recompute-all",
    )

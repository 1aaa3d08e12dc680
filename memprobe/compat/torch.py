"""The torch APIs a probe uses, checked by what the installed torch has.

A probe needs, of torch:

- FSDP2: ``torch.distributed.fsdp.fully_shard`` and ``MixedPrecisionPolicy`` (public since torch 2.6;
  before, under ``torch.distributed._composable.fsdp``);
- per-op SAC: ``torch.utils.checkpoint.create_selective_checkpoint_contexts`` and ``CheckpointPolicy``;
- the compile hooks memprobe reads: ``torch._inductor.compile_fx.compile_fx(..., inner_compile=...)``
  and ``compile_fx_inner``, and AOTAutograd's ``enable_autograd_cache`` switch (the partitioned graphs
  are captured, not loaded from that cache).

:func:`why_unavailable` says in one line which of them this torch lacks. Where torch changed an API
memprobe reads, the adapter for each generation is here (Dynamo's ``Source.name``, a method in older
torch, is read where the graphs are captured: :mod:`memprobe.capture.compile_hooks`).
"""

from __future__ import annotations

import importlib

from ..vocab import Recipe

# the first torch release a probe runs with (2.6 has every API above, but its FSDP2 cannot run on the CPU, where
# memprobe is tested): measured by the compatibility matrix, docs/compat-matrix.md
FIRST_SUPPORTED = "2.7"
INSTALL = f"install torch>={FIRST_SUPPORTED} in that environment"


def _has(module: str, *names: str) -> str | None:
    """None if ``module`` imports and has every one of ``names``; else the first thing missing."""
    try:
        mod = importlib.import_module(module)
    except Exception as e:  # a torch built without distributed, a broken install
        return f"{module} does not import ({type(e).__name__}: {e})"
    for name in names:
        if not hasattr(mod, name):
            return f"{module}.{name}"
    return None


def _autograd_cache_switch() -> str | None:
    import torch._functorch.config as functorch_config

    return None if hasattr(functorch_config, "enable_autograd_cache") else "torch._functorch.config.enable_autograd_cache"


def _inner_compile_hook() -> str | None:
    import inspect

    missing = _has("torch._inductor.compile_fx", "compile_fx", "compile_fx_inner")
    if missing:
        return missing
    from torch._inductor.compile_fx import compile_fx

    if "inner_compile" not in inspect.signature(compile_fx).parameters:
        return "torch._inductor.compile_fx.compile_fx(inner_compile=...)"
    return None


CHECKS = (
    ("FSDP2", lambda: _has("torch.distributed.fsdp", "fully_shard", "MixedPrecisionPolicy")),
    ("per-op SAC", lambda: _has("torch.utils.checkpoint", "create_selective_checkpoint_contexts", "CheckpointPolicy")),
    ("the Inductor compile hook memprobe captures graphs with", _inner_compile_hook),
    ("the AOTAutograd cache switch", _autograd_cache_switch),
)


def why_unavailable() -> str | None:
    """None when this torch has every API a probe uses; else one line: the feature, the version, what to do."""
    try:
        import torch
    except ImportError as e:
        return f"torch does not import ({e}): install torch>={FIRST_SUPPORTED} there"
    if not torch.distributed.is_available():
        return f"torch {torch.__version__} was built without torch.distributed (FSDP2 needs it): {INSTALL}"
    for feature, check in CHECKS:
        missing = check()
        if missing:
            return f"torch {torch.__version__} has no {feature} ({missing} is missing): {INSTALL}"
    return None


def why_no_cpu_float8(recipe: str) -> str | None:
    """None when this torch's CPU ``_scaled_mm`` computes with the scaling ``recipe`` uses (one scale per tensor
    for tensorwise, one per row and column for the rowwise recipes); else one line saying what to do. Asked of
    torch with a 16x32 product (torch 2.9.1's CPU kernel, for one, refuses row-wise scales)."""
    if recipe == Recipe.BF16:
        return None
    from .torchao import why_not_on

    if why := why_not_on(recipe, None, "the CPU"):
        return why
    import torch

    rowwise = recipe in (Recipe.ROWWISE, Recipe.ROWWISE_WITH_GW_HP)
    a = torch.ones(16, 32).to(torch.float8_e4m3fn)
    b = torch.ones(16, 32).to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants its second operand
    scale_a, scale_b = (torch.ones(16, 1), torch.ones(1, 16)) if rowwise else (torch.tensor(1.0), torch.tensor(1.0))
    try:
        torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
    except Exception as e:
        scaling = "row-wise" if rowwise else "per-tensor"
        return (
            f"float8 recipe {recipe!r} on the CPU: torch {torch.__version__}'s CPU _scaled_mm has no {scaling} scaling "
            f"({type(e).__name__}); run it on a GPU (--device cuda), use a torch whose CPU kernel has it "
            f"({'2.12.1' if rowwise else '2.8.0'} has)" + (", or --recipe tensorwise" if rowwise else "")
        )
    return None


def why_no_cpu_fsdp() -> str | None:
    """None when FSDP2 can run on the CPU with this torch (its ``fully_shard`` records events on the CPU stream,
    which torch 2.6's ``torch.cpu.Stream`` cannot do); else one line saying what to do."""
    import torch

    if hasattr(torch.cpu, "Stream") and hasattr(torch.cpu.Stream, "record_event"):
        return None
    return (
        f"FSDP2 on the CPU: torch {torch.__version__}'s CPU stream has no record_event, which fully_shard uses; "
        "run on a GPU (--device cuda), without FSDP (--no-fsdp), or with a newer torch (2.7.1 has it)"
    )


def why_no_fake_world() -> str | None:
    """None when this torch has the fake process group ``--fake-world`` shards over (the ``fake`` backend, registered
    by ``torch.testing._internal.distributed.fake_pg``); else one line."""
    import torch

    missing = _has("torch.testing._internal.distributed.fake_pg", "FakeStore")
    if missing is None:
        return None
    return f"--fake-world: torch {torch.__version__} has no fake process group ({missing}); run real ranks with --nproc N"

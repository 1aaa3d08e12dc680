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

# the first torch release with every API above (checked by running the compatibility matrix, docs/compat-matrix.md)
FIRST_SUPPORTED = "2.6"
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

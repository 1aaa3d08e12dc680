"""The names of torch_remat's regions, carried onto the compiled graph's nodes.

Under ``torch.compile`` torch_remat (0.2) turns a region's choice into tags the partitioner reads: a
``remat.checkpoint`` traces as ``torch.utils.checkpoint`` (the ``tag_activation_checkpoint`` higher-order op, its ops
``PREFER_RECOMPUTE``), a ``recompute=False`` ``remat.region`` routes its body through the ``dynamo_bypassing_wrapper``
higher-order op, which tags the nodes it adds ``MUST_SAVE``. Neither puts the region's name on a node. While a probe
records, each ``remat.region`` and ``remat.checkpoint`` call that Dynamo traces runs inside
``torch.fx.traceback.annotate`` with the region's name and choice, which torch copies into every node's
``meta["custom"]`` through AOTAutograd's trace (:data:`REGION`, :data:`RECOMPUTE`, :data:`CHECKPOINT`). Eagerly the
call runs as torch_remat's own, the same names held while it runs (:func:`running`): what the eager pack hook reads to
put each saved tensor in its region (:mod:`.saved_outside`). The probe installs it as torch_remat is imported, before
the model's or script's code binds its names (``from torch_remat import region`` included).
"""

from __future__ import annotations

import contextvars
import functools

REGION = "memprobe.remat_region"
RECOMPUTE = "memprobe.remat_recompute"
CHECKPOINT = "memprobe.remat_checkpoint"
_NAMED = "_memprobe_named"

# the names of the eager calls running now (innermost last merged in): a checkpoint's, then a region's in it
_RUNNING: contextvars.ContextVar[dict | None] = contextvars.ContextVar("memprobe_remat_running", default=None)


def running() -> dict | None:
    """The torch_remat names the running eager code is inside (:data:`CHECKPOINT`, :data:`REGION`, :data:`RECOMPUTE`),
    or None outside any. A region inside a ``recompute=False`` region keeps the outer one's names: torch_remat runs it
    inert, its saves the outer region's."""
    return _RUNNING.get()


def _inside(annotation: dict) -> dict:
    outer = _RUNNING.get() or {}
    if outer.get(RECOMPUTE) is False:
        return outer
    return {**outer, **annotation}


def name_regions(remat) -> None:
    """Wrap the ``region`` and ``checkpoint`` of torch_remat (module ``remat``, and its ``_api`` where they live) so
    that a traced call annotates its nodes. Idempotent."""
    import sys

    api = sys.modules.get("torch_remat._api")
    for holder in (remat, api):
        if holder is None:
            continue
        if hasattr(holder, "region") and not getattr(holder.region, _NAMED, False):
            holder.region = _named_region(holder.region)
        if hasattr(holder, "checkpoint") and not getattr(holder.checkpoint, _NAMED, False):
            holder.checkpoint = _named_checkpoint(holder.checkpoint)


def _annotated(call, annotation: dict):
    """``call``, run inside ``annotate(annotation)`` while Dynamo traces it; eagerly, with ``annotation`` in
    :func:`running`."""

    @functools.wraps(call)
    def run(*args, **kwargs):
        import torch

        if not torch.compiler.is_compiling():
            token = _RUNNING.set(_inside(annotation))
            try:
                return call(*args, **kwargs)
            finally:
                _RUNNING.reset(token)
        import torch.fx.traceback as fx_traceback

        with fx_traceback.annotate(annotation):
            return call(*args, **kwargs)

    return run


def _named_region(region):
    @functools.wraps(region)
    def named(function, name, *, recompute):
        return _annotated(region(function, name, recompute=recompute), {REGION: str(name), RECOMPUTE: bool(recompute)})

    setattr(named, _NAMED, True)
    return named


def _named_checkpoint(checkpoint):
    @functools.wraps(checkpoint)
    def named(*, region_name=None, **kwargs):
        decorate = checkpoint(region_name=region_name, **kwargs)

        def named_decorate(function):
            wrapped = decorate(function)
            return _annotated(wrapped, {CHECKPOINT: region_name}) if region_name is not None else wrapped

        return named_decorate

    setattr(named, _NAMED, True)
    return named


def when_imported() -> None:
    """:func:`name_regions` as soon as torch_remat is imported (at once if it is already)."""
    from .imports import when_imported as after

    after("torch_remat", name_regions)

"""What autograd saves for backward outside the compiled graphs, measured in the measured step's forward: the
embedding's token ids, the final norm's input, the output projection's input and the logits the loss keeps, eager
blocks (``--no-compile``), and any module a compiled block does not hold.

A ``saved_tensors_hooks`` pack hook sees every tensor an autograd node saves while forward and the loss run; forward
hooks on the model's modules keep which one is running. What is saved while a compiled graph runs is that graph's (its
own figures, graph-derived and at run time, say it): left out here. What a compiled block saves while none of its
graphs runs is not: a block Dynamo graph-broke on, in whole or in part, runs that code eagerly, and what it saves
there is counted by the block. Each storage is counted once, by the
innermost module that saved it first, among those still saved when the loss is computed (a node autograd dropped
before then, with what it saved, is no memory backward holds); a tensor subclass (float8) by the tensors it holds; a
parameter apart (it is alive anyway; a storage of the model's parameters is one, whatever view of it is saved).
Eager activation checkpointing saves through hooks of its own, which take the place of these inside its regions: there
only what the region's boundary keeps is seen (the run says so). torch_remat, eager, hands the hooks active at its
checkpoint's entry what its ``recompute=False`` regions keep, and says where each is saved
(``current_saved_tensor_info``): those storages are counted by region as well (:func:`_place`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from contextlib import ExitStack, contextmanager

from ..rundir import records as R

# the name of what runs outside any module of the model: the stand-in loss
OUTSIDE_MODULES = "(loss)"


class SavedOutside:
    """Counts the storages autograd saves while no compiled block runs, by module."""

    def __init__(self, model, compiled: list, graph_running: Callable[[], bool] | None = None):
        """``model``: the root module; ``compiled``: the modules torch.compile runs (the blocks; none when eager);
        ``graph_running``: whether a compiled graph is running now (the capture's; None: none ever runs)."""
        self.model, self.compiled = model, compiled
        self.graph_running = graph_running or (lambda: False)
        self.running: list[str] = []
        self.packed: list[tuple[weakref.ref, str, tuple | None]] = []  # each tensor saved, its module, its region
        self.by_module: dict[str, list] = {}  # module -> [bytes, storages, their addresses]
        self.by_region: dict[tuple, list] = {}  # (checkpoint, region, recompute) -> [bytes, storages]
        self.remat = None  # torch_remat, where it runs eagerly: it says where each tensor is saved
        self.eager_checkpoints = False  # a torch_remat checkpoint ran eagerly: its nodes' saves are not to be unpacked
        self.views: list[R.SavedView] = []  # saved views that keep a larger storage alive
        self.parameters_bytes = 0

    def _named_modules(self):
        """(name, module) for each module whose forward the hooks follow: every module of an eager model; of a compiled
        one, those outside its blocks and the blocks themselves (inside a compiled block the hooks would run in Dynamo's
        trace, not here)."""
        from ..names import class_name, user_name

        inside = {id(m) for b in self.compiled for m in b.modules() if id(m) != id(b)}
        for name, module in self.model.named_modules():
            if id(module) not in inside:
                yield user_name(name) or class_name(module), module

    def _pack(self, tensor):
        if not self.graph_running():
            module, place = self.running[-1] if self.running else OUTSIDE_MODULES, _place(self.remat)
            self.eager_checkpoints = self.eager_checkpoints or place is not None
            self.packed.append((weakref.ref(tensor), module, place))
        return tensor

    def _count(self) -> None:
        """Each storage still saved, once, by the module that saved it first; parameters apart."""
        seen: set[int] = set()
        parameters = _parameter_storages(self.model) if self.remat is not None else set()
        for ref, module, place in self.packed:
            tensor = ref()
            if tensor is None:  # its autograd node was dropped before the loss: nothing backward holds
                continue
            base = tensor._base if tensor._base is not None else tensor  # a linear saves its weight's transpose
            parameter = base.is_leaf and base.requires_grad  # a parameter (FSDP2's unsharded one too)
            for key, nbytes in storages_of(tensor):
                if key in seen:
                    continue
                seen.add(key)
                if parameter or key in parameters:  # torch_remat hands a hook a detached view of a weight
                    self.parameters_bytes += nbytes
                    continue
                entry = self.by_module.setdefault(module, [0, 0, []])
                entry[0] += nbytes
                entry[1] += 1
                entry[2].append(key)
                if place is not None:
                    counted = self.by_region.setdefault(place, [0, 0])
                    counted[0] += nbytes
                    counted[1] += 1
                self._view(tensor, module, nbytes)
        self.packed.clear()

    def _view(self, tensor, module: str, storage_bytes: int) -> None:
        """A plain tensor whose storage is larger than its own elements: a view that keeps its base alive."""
        if getattr(type(tensor), "__tensor_flatten__", None) is not None:
            return
        own = tensor.numel() * tensor.element_size()
        if own < storage_bytes:
            shape, dtype = list(tensor.shape), str(tensor.dtype).replace("torch.", "")
            self.views.append(R.SavedView(module=module, shape=shape, dtype=dtype, bytes=own, storage_bytes=storage_bytes))

    @contextmanager
    def counting(self):
        """Counts while the block runs (the measured forward and the loss)."""
        import torch

        with ExitStack() as stack:
            for name, module in self._named_modules():
                stack.callback(module.register_forward_pre_hook(self._enter(name)).remove)
                stack.callback(module.register_forward_hook(self._leave, always_call=True).remove)
            stack.enter_context(self._hooks(torch))
            yield self
        self._count()  # while the loss holds the graph: what is still saved is what backward will read

    def _hooks(self, torch):
        """The pack hook's context: through torch_remat where it runs eagerly (nothing compiled), which then says where
        each tensor is saved and keeps the region a deferred save was made in (``capture_context``); else torch's."""
        import sys

        from .remat_names import running

        remat = sys.modules.get("torch_remat")
        if self.compiled or not callable(getattr(remat, "current_saved_tensor_info", None)):
            return torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)
        self.remat = remat
        return remat.saved_tensors_hooks(self._pack, lambda t: t, capture_context=running)

    def _enter(self, name: str):
        def hook(_module, _args):
            self.running.append(name)

        return hook

    def _leave(self, _module, _args, _out):
        if self.running:
            self.running.pop()

    def record(self, *, checkpointed_eager: bool) -> R.SavedOutside:
        modules = [
            R.SavedByModule(module=name, bytes=b, storages=n, addresses=sorted(addresses))
            for name, (b, n, addresses) in sorted(self.by_module.items(), key=lambda kv: (-kv[1][0], kv[0]))
        ]
        out = R.SavedOutside(
            total_bytes=sum(m.bytes for m in modules),
            parameters_bytes=self.parameters_bytes,
            modules=modules,
            partial=checkpointed_eager,
        )
        if self.views:
            out.views = sorted(self.views, key=lambda v: (-v.storage_bytes, v.module))
        if self.by_region:
            out.regions = [
                R.SavedByRegion(checkpoint=c, region=r, recompute=rc, bytes=b, storages=n)
                for (c, r, rc), (b, n) in self.by_region.items()
            ]
        return out


def _parameter_storages(model) -> set[int]:
    """The addresses of the model's parameters' storages: torch_remat hands a pack hook a detached tensor, which a
    saved view of a weight (a linear's transposed weight) no longer says it is a view of."""
    out = set()
    for p in model.parameters():
        try:
            out.update(key for key, _ in storages_of(p))
        except (AttributeError, RuntimeError):  # a parameter whose storage is not one to read (a sharded one's mesh)
            continue
    return out


def _place(remat) -> tuple | None:
    """Where torch_remat says the tensor its pack hook is handed now is saved: (checkpoint, region, recompute) for a
    region's save (its ops' saved tensors, its output kept for the recompute), (checkpoint, None, None) for a
    checkpoint's own input; None outside torch_remat's checkpoints, or without torch_remat."""
    if remat is None:
        return None
    from .remat_names import CHECKPOINT, RECOMPUTE, REGION, running

    try:
        info = remat.current_saved_tensor_info()
    except RuntimeError:  # a pack torch_remat did not make: none of its regions'
        return None
    if info.kind == getattr(remat.SavedTensorKind, "CHECKPOINT_INPUT", None):
        return ((running() or {}).get(CHECKPOINT), None, None)
    where = info.context
    if not isinstance(where, dict) or REGION not in where:
        return None
    return (where.get(CHECKPOINT), where[REGION], where.get(RECOMPUTE))


def storages_of(tensor, depth: int = 0):
    """(address, bytes) of each storage a tensor holds: its own, or a traceable subclass's inner tensors' (float8's
    data and scales)."""
    flatten = getattr(type(tensor), "__tensor_flatten__", None)
    if flatten is not None and depth < 4:
        names, _ = tensor.__tensor_flatten__()
        for name in names:
            yield from storages_of(getattr(tensor, name), depth + 1)
        return
    storage = tensor.untyped_storage()
    if storage.nbytes():
        yield storage.data_ptr(), storage.nbytes()

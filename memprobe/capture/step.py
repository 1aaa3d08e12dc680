"""The training steps of a probe and what they record: the first step compiles (its graphs, and what the
compile caches gave it), the last is measured (its phases, and each compiled call of its forward with the
tensors its autograd node saved)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

from ..rundir import records as R
from ..vocab import CacheState, Phase


@dataclass
class Training:
    """What is alive while the probe trains (the CUDA meter's tensor registry reads it when the step starts)."""

    model: object = None
    blocks: object = None
    optimizer: object = None
    batch: tuple | None = None
    outside: object = None  # what autograd saved outside the compiled graphs in the latest recorded forward
    gradients: int | None = None  # the bytes of the gradients the latest optimizer step was given


def runtime_saved(grad_fn) -> list[R.RuntimeSaved] | None:
    """Shape, dtype and storage size of each tensor a CompiledFunction node saved."""
    import torch

    if grad_fn is None:
        return None
    out = []
    for t in grad_fn.saved_tensors:
        if not isinstance(t, torch.Tensor):
            continue
        st = t.untyped_storage()
        out.append(
            R.RuntimeSaved(
                shape=list(t.shape),
                dtype=str(t.dtype).replace("torch.", ""),
                storage_bytes=int(st.nbytes()),
                storage_id=int(st.data_ptr()) if st.nbytes() else None,
            )
        )
    return out


def invocation_record(inv) -> R.Invocation:
    """One compiled call of the forward (:class:`~.compile_hooks.Invocation`) as report.json records it."""
    out = R.Invocation(dynamo_graph=inv.dynamo_graph, block=inv.block, runtime_saved=runtime_saved(inv.grad_fn))
    if inv.measured is not None:
        out.measured = inv.measured
    if inv.input_ids is not None:
        out.input_ids = inv.input_ids
    return out


def train_step(
    state: Training,
    capture,
    meter,
    *,
    record: bool,
    inspectable: bool,
    enter: Callable[[str], None],
    forwarded: Callable[[list[R.Invocation]], None],
) -> int | None:
    """One training step of ``state``'s model, optimizer and batch: forward (its compiled calls recorded when
    ``record``), backward, the optimizer's step. ``meter`` (or None) measures each phase; ``enter(phase)`` is told
    each phase as it begins; ``forwarded`` is given the calls the forward recorded as soon as it ends (a failure later
    in the step keeps them); ``state.outside`` (a :class:`~memprobe.capture.saved_outside.SavedOutside`, or None)
    counts what autograd saves outside the compiled graphs while forward and the loss run. Returns the bytes the autograd graph held for backward when
    ``inspectable`` and ``outside`` saw no torch_remat checkpoint run eagerly (eager checkpointed regions would be
    consumed by inspecting them), else None."""
    from .stack import loss_fn, saved_tensor_bytes

    model, optimizer, batch, outside = state.model, state.optimizer, state.batch, state.outside

    def phase(name: Phase):
        enter(name)
        return meter.phase(name) if meter is not None else nullcontext()

    capture.invocations.clear()
    capture.recording = record
    with phase(Phase.FORWARD), outside.counting() if outside is not None else nullcontext():
        out = model(*batch)
        loss = loss_fn(out)
    capture.recording = False
    invocations = [invocation_record(inv) for inv in capture.invocations]
    capture.invocations.clear()  # drop the autograd references before backward
    if invocations:  # the latest recorded forward
        forwarded(invocations)
    inspectable = inspectable and not (outside is not None and outside.eager_checkpoints)  # a model's own, eager
    runtime_total = saved_tensor_bytes(loss) if record and inspectable else None
    with phase(Phase.BACKWARD):
        loss.backward()
    with phase(Phase.OPTIMIZER):
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    del out, loss
    return runtime_total


def inspectable(cfg) -> bool:
    """Whether the autograd graph after forward can be read: compiled, or without activation checkpointing."""
    return not cfg.mode.eager_regions(cfg)


def graph_entries(capture, run_dir) -> list[R.GraphEntry]:
    """Each partitioned graph the first step compiled, its files written into the run directory."""
    entries = []
    for dyn in capture.dynamo_graphs:
        for g in dyn.aot:
            files = run_dir.write_graph(R.GraphFile(graph_id=g.graph_id, nodes=g.nodes), g.readable, g.output_code)
            entries.append(
                R.GraphEntry(
                    graph_id=g.graph_id,
                    dynamo_graph=g.dynamo_graph,
                    kind=g.kind,
                    nodes=len(g.nodes),
                    files=files,
                    output_code_loaded_from=g.output_code_path,
                    inputs=dyn.inputs,
                )
            )
    return entries


def compile_cache(capture, before: R.CompileCache, *, analysis_only: bool) -> tuple[R.CompileCache, str]:
    """What the compile caches gave the first step (``before``: torch's counters before it,
    :func:`~.caches.cache_counters`): the report's record, and how it went in words."""
    from .caches import cache_counters, inductor_cache_dir, lookups_since

    capture.find_loaded_paths()
    written = capture.save_records()
    now = cache_counters()
    fx_graph = lookups_since(before.fx_graph, now.fx_graph)
    graphs = len(capture.dynamo_graphs)
    from_records = sum(1 for d in capture.dynamo_graphs if any(g.from_record for g in d.aot))
    state, how = _cache_state(graphs, from_records, fx_graph, analysis_only)
    record = R.CompileCache(
        dir=str(inductor_cache_dir()),
        state=state,
        aot_autograd=lookups_since(before.aot_autograd, now.aot_autograd),
        fx_graph=fx_graph,
        graphs_from_records=from_records,
        records_written=written,
    )
    return record, how


def _cache_state(graphs: int, from_records: int, fx: R.CacheLookups, analysis_only: bool) -> tuple[CacheState, str]:
    traced = "traced" if analysis_only else "traced and compiled"
    if graphs and from_records == graphs:
        return CacheState.WARM, f"all {graphs} graph(s) from the cache, none traced"
    if not analysis_only and fx.hit and not fx.miss:
        return CacheState.WARM, f"the kernels of all {graphs} graph(s) from the cache, {graphs - from_records} traced again"
    if not fx.hit and not from_records:
        how = f"{graphs} graph(s) {traced}"
        if analysis_only:  # why a second analysis-only run is no faster, where a warm full run would be
            how += "; analysis-only generates no kernels, so it leaves no cache entry: a full run of this configuration fills the cache for both kinds of run"
        return CacheState.COLD, how
    return CacheState.PARTLY_WARM, f"{from_records} of {graphs} graph(s) from the cache, the others {traced}"

"""Capture the partitioned graphs and Inductor output code through torch.compile's own hooks.

:class:`GraphCapture` is a torch.compile backend that wraps Inductor: it calls
``compile_fx`` with an ``inner_compile`` that records every partitioned graph
(forward, backward, inference) before handing it to Inductor, and keeps the
output code Inductor generated for it. It also wraps the compiled callable of
each Dynamo graph so every call is recorded with the block that made it and the
autograd node it created (whose ``saved_tensors`` are what backward will use).
No log is scraped.
"""

from __future__ import annotations

import functools
import operator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch

# the user's names of modules and graph inputs, where torch.compile, checkpointing and FSDP add levels to them
from ..names import module_path, source_to_fqn
from ..rundir import records as R
from ..vocab import SourceFnKind
from .partition import FunctionIndex, PartitionRecorder


def _plain_int(x) -> int | str:
    """A concrete size as an int; a symbolic one (dynamic shapes) as its expression (no guard is added)."""
    if isinstance(x, torch.SymInt):
        hint = _hint(x)
        return str(x) if x.node.expr.free_symbols else hint if hint is not None else str(x)
    return int(x)


def _hint(x) -> int | None:
    """The value a size had for the traced example (a symbolic size's hint), without guarding on it."""
    if isinstance(x, torch.SymInt):
        hint = getattr(x.node, "hint", None)
        return int(hint) if hint is not None else None
    return int(x)


def _value_of(node: R.Node, val: Any) -> None:
    """A node's value as its record holds it: shape, dtype and bytes (a tensor's, a scalar's type)."""
    if isinstance(val, torch.Tensor):
        node.shape = [_plain_int(d) for d in val.shape]
        node.dtype = str(val.dtype).replace("torch.", "")
        numel = _hint(val.numel())
        # a symbolic size: the bytes of the traced example (what this run allocated), marked symbolic
        node.bytes = numel * val.element_size() if numel is not None else 0
        span = _span_bytes(val)
        if span is not None and span < node.bytes:  # a broadcast view: its storage is its base's
            node.storage_bytes = span
        if any(isinstance(d, str) for d in node.shape):
            node.symbolic = True
        return
    node.shape = None
    node.dtype = type(val).__name__ if isinstance(val, (int, float, bool, torch.SymInt)) else None
    node.bytes = 0


def _span_bytes(val) -> int | None:
    """The bytes a tensor's memory spans from its first element to its last (its strides over its sizes): fewer than
    its elements' bytes where a stride is 0 (an expanded, broadcast view). None when a size or stride is symbolic."""
    sizes = [_hint(d) for d in val.shape]
    try:
        strides = [_hint(s) for s in val.stride()]
    except RuntimeError:  # a sparse or otherwise strideless tensor
        return None
    if None in sizes or None in strides or len(sizes) != len(strides):
        return None
    if 0 in sizes:
        return 0
    return (1 + sum((n - 1) * s for n, s in zip(sizes, strides, strict=True))) * val.element_size()


def _target_name(node: torch.fx.Node) -> str:
    t = node.target
    if isinstance(t, str):
        return t
    return str(t) if isinstance(t, torch._ops.OpOverload) else getattr(t, "__name__", str(t))


def _user_meta(node: R.Node, meta: dict) -> None:
    """What the user wrote that made a node: the innermost module (``nn_module_stack``), the Python call
    (``source_fn_stack``: a function such as ``silu`` or a module class such as ``Linear``)."""
    # the innermost module of the model (a global the traced code calls, such as a function a library made a module
    # of, is no module of the model: the module calling it names the node)
    stack = [(path, module_path(str(path)), cls) for path, cls in (meta.get("nn_module_stack") or {}).values()]
    modules = [(name, cls) for _, name, cls in stack if name is not None]
    if modules:
        node.module, cls = modules[-1]
        node.module_type = getattr(cls, "__name__", str(cls))
    if meta.get("partitioner_tag") == "is_backward":
        node.backward_work = True  # the joint graph's backward part (in a forward graph: hoisted there to be saved)
    fns = meta.get("source_fn_stack") or []
    if fns:
        name, target = fns[-1]
        node.source_fn = str(name)
        node.source_fn_kind = SourceFnKind.MODULE if isinstance(target, type) else SourceFnKind.FUNCTION


def _hops(meta: dict) -> list[str]:
    """The higher-order ops a node was traced inside, outermost first (``tag_activation_checkpoint``: a checkpointed
    region; ``autograd.function``: a custom autograd.Function): every entry of its ``source_fn_stack`` but its own."""
    return [str(name) for name, _ in (meta.get("source_fn_stack") or [])[:-1]]


def serialize_graph(gm: torch.fx.GraphModule, partition: dict | None = None, functions=None) -> list[R.Node]:
    """Every node as its record: name, op, target, inputs, shape, dtype, bytes, SAC tag, stack; the higher-order ops
    it was traced inside (and the autograd.Function, named by ``functions``, a :class:`~.partition.FunctionIndex`);
    what the partitioner decided about it (``partition``: by node name, from :class:`~.partition.PartitionRecorder`)."""
    return [_node(n, partition or {}, functions) for n in gm.graph.nodes]


def _from_node(meta: dict) -> str | None:
    """The name of the Dynamo graph's node a node was traced from (the first of its provenance), as Inductor's output
    code names a kernel's source nodes."""
    chain = meta.get("from_node") or []
    return getattr(chain[0], "name", None) if chain else None


_CALLS = ("call_function", "call_method", "call_module", "get_attr")  # the opcodes that name a target


def _node(n: torch.fx.Node, partition: dict[str, R.NodePartition], functions) -> R.Node:
    recompute = n.meta.get("recompute")
    original = n.meta.get("original_aten")
    node = R.Node(
        name=n.name,
        op=n.op,
        target=_target_name(n) if n.op in _CALLS else None,
        inputs=[a.name for a in n.all_input_nodes],
        recompute=recompute.name if recompute is not None else None,
        original_aten=str(original) if original is not None else None,
        stack_trace=n.meta.get("stack_trace"),
        from_node=_from_node(n.meta),
    )
    _value_of(node, n.meta.get("val"))
    _user_meta(node, n.meta)
    _traced_inside(node, _hops(n.meta), functions)
    _remat_region(node, n.meta.get("custom"))
    if n.name in partition and n.op in ("placeholder", "call_function"):
        node.partition = partition[n.name]
    if n.op == "call_function" and n.target is operator.getitem and isinstance(n.args[1], int):
        node.index = n.args[1]  # which output of a multi-output op (attention's output or its logsumexp)
    if n.op == "output":
        outs = n.args[0] if isinstance(n.args[0], (tuple, list)) else (n.args[0],)
        node.outputs = [a.name if isinstance(a, torch.fx.Node) else None for a in outs]
    return node


def _remat_region(node: R.Node, custom) -> None:
    """The torch_remat region and checkpoint a node was traced in, from the annotation the probe puts on their calls
    (:mod:`.remat_names`)."""
    if not isinstance(custom, dict):
        return
    from .remat_names import CHECKPOINT, RECOMPUTE, REGION

    if isinstance(custom.get(REGION), str):
        node.remat_region = custom[REGION]
        node.remat_recompute = bool(custom.get(RECOMPUTE))
    if isinstance(custom.get(CHECKPOINT), str):
        node.remat_checkpoint = custom[CHECKPOINT]


def _traced_inside(node: R.Node, hops: list[str], functions) -> None:
    """The higher-order ops a node was traced inside, and the autograd.Function among them (by its forward's place in
    the node's stack)."""
    if not hops:
        return
    from ..analysis.frames import parse_stack

    node.hops = hops
    if "autograd.function" in hops and functions is not None:
        function = functions.function_of(parse_stack(node.stack_trace))
        if function:
            node.autograd_function = function


@dataclass
class AotGraph:
    """One partitioned graph handed to Inductor."""

    graph_id: str  # e.g. "g0.forward"
    dynamo_graph: int
    kind: str  # forward | backward | inference
    nodes: list[R.Node]
    readable: str
    output_code: str | None
    output_code_path: str | None = None  # where Inductor loaded it from (frames in CUDA snapshots point here)
    from_record: bool = False  # an AOTAutograd cache hit: the graph as recorded when it was compiled


@dataclass
class Invocation:
    """One call of a compiled Dynamo graph during a forward pass."""

    dynamo_graph: int
    block: str | None
    grad_fn: Any = None
    measured: R.CallMeasurement | None = None  # allocator figures across the call (bench mode, CUDA only)
    input_ids: list | None = None  # per graph input, the storage it was given (one tensor passed to several calls)


@dataclass
class DynamoGraph:
    index: int
    inputs: list[R.GraphInput]
    aot: list[AotGraph] = field(default_factory=list)
    record_key: str | None = None  # the name of its record in the compile cache (None: not recorded)
    decisions: dict = field(default_factory=dict)  # what the SAC policy decided while this graph was traced
    partition: dict = field(default_factory=dict)  # what the partitioner decided about its joint graph's nodes


class GraphCapture:
    """A torch.compile backend that records what Inductor compiles and who calls it."""

    def __init__(self, measure_calls: bool = False, codegen: bool = True, records=None, decisions: dict | None = None) -> None:
        # measure_calls: bracket each forward call with allocator statistics (CUDA). It resets the
        # peak statistic, so per-phase peaks are not valid in that mode: benchmarks only.
        self.measure_calls = measure_calls
        self.codegen = codegen
        self.dynamo_graphs: list[DynamoGraph] = []
        self.invocations: list[Invocation] = []
        self.recording = False
        self.current_block: str | None = None
        self.graphs_running = 0  # compiled graphs running now (what autograd saves then is theirs)
        # records (caches.GraphRecords): keep AOTAutograd's cache on, and the graphs of its hits from
        # memprobe's records; without them (or without a way to learn the cache's key) it stays off
        self.records = records if records is not None and _aot_key_hook() is not None else None
        self.decisions = decisions  # the SAC policy's decisions dict (replayed from a record on a hit)
        self.partitioner = PartitionRecorder()
        self._functions: FunctionIndex | None = None

    def cache_config(self):
        """AOTAutograd's cache, on while the graphs of its hits can be recorded."""
        import torch._functorch.config as functorch_config

        return functorch_config.patch(enable_autograd_cache=self.records is not None)

    # -- the backend -------------------------------------------------------------------------
    def __call__(self, gm: torch.fx.GraphModule, example_inputs, compile_fx=None):
        """Compile a Dynamo graph with Inductor, recording its partitioned graphs; ``compile_fx`` (default: Inductor's
        own) is how: a user's script's compile carries the options the script gave torch.compile."""
        from torch._inductor.compile_fx import compile_fx_inner

        index = len(self.dynamo_graphs)
        dyn = DynamoGraph(index, [_graph_input(n) for n in gm.graph.nodes if n.op == "placeholder"])
        self.dynamo_graphs.append(dyn)

        def inner_compile(aot_gm, aot_inputs, **kwargs):
            if kwargs.get("is_backward"):
                kind = "backward"
            elif kwargs.get("is_inference"):
                kind = "inference"
            else:
                kind = "forward"
            if kind != "backward":  # the partition that made this forward (and its backward, compiled later)
                dyn.partition = self.partitioner.take()
            # record the graph as the partitioner made it: Inductor's post-grad passes rewrite it in place
            # when it compiles (not when its FX cache hits), so serialize before handing it over
            nodes = serialize_graph(aot_gm, dyn.partition, self._function_index())
            readable = aot_gm.print_readable(print_output=False, include_stride=False, include_device=True)
            if self.codegen:
                compiled = compile_fx_inner(aot_gm, aot_inputs, **kwargs)
            else:
                # analysis only: the graph is traced, decomposed and partitioned exactly as for
                # Inductor, then run as it is (no kernels generated)
                from torch._functorch.aot_autograd import make_boxed_func

                compiled = make_boxed_func(aot_gm.forward)
            dyn.aot.append(
                AotGraph(
                    graph_id=f"g{index}.{kind}",
                    dynamo_graph=index,
                    kind=kind,
                    nodes=nodes,
                    readable=readable,
                    output_code=getattr(compiled, "source_code", None),
                    output_code_path=_loaded_path(compiled),
                )
            )
            return compiled

        compiled_fn = self._compile(gm, example_inputs, inner_compile, dyn, compile_fx)

        def run(*args):
            self.graphs_running += 1
            try:
                return recorded(*args) if self.recording else compiled_fn(*args)
            finally:
                self.graphs_running -= 1

        def recorded(*args):
            measured = None
            if self.measure_calls:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated()
            with torch.profiler.record_function(f"memprobe::call g{index}"):
                out = compiled_fn(*args)
            if self.measure_calls:
                torch.cuda.synchronize()
                measured = R.CallMeasurement(
                    allocated_before_bytes=before,
                    peak_increase_bytes=torch.cuda.max_memory_allocated() - before,
                    end_increase_bytes=torch.cuda.memory_allocated() - before,
                )
            grad_fn = _compiled_grad_fn(out)
            _annotate_backward(grad_fn, f"memprobe::call g{index}.backward {len(self.invocations)}")
            self.invocations.append(Invocation(index, self.current_block, grad_fn, measured, _storage_ids(args)))
            return out

        return run

    def _function_index(self) -> FunctionIndex:
        """Where the autograd.Functions' forwards are (made once a graph needs it: the model's classes exist)."""
        if self._functions is None:
            self._functions = FunctionIndex()
        return self._functions

    def _compile(self, gm, example_inputs, inner_compile, dyn: DynamoGraph, compile_fx=None):
        """compile_fx with AOTAutograd's cache: a miss hands the graphs to ``inner_compile``; a hit hands
        none, and they come from memprobe's record of that compile (or, without one, a compile with
        the cache off)."""
        from .caches import record_key

        if compile_fx is None:
            from torch._inductor.compile_fx import compile_fx

        if self.records is None:
            with _decisions_of(self.decisions, dyn), self.partitioner.recording():
                return compile_fx(gm, example_inputs, inner_compile=inner_compile)
        from .function_keys import admitted, keyed_functions

        keys: list[str] = []
        admit = keyed_functions(gm)  # torchao's float8 Functions, keyed by torchao's source: the graph can be cached
        with _aot_keys(keys), admitted(admit), _decisions_of(self.decisions, dyn), self.partitioner.recording():
            compiled_fn = compile_fx(gm, example_inputs, inner_compile=inner_compile)
        dyn.record_key = record_key(keys[-1], gm, _serializer_hash()) if keys else None
        if dyn.aot:  # a miss (or a bypass): the graphs went through inner_compile
            return compiled_fn
        record = self.records.load(dyn.record_key) if dyn.record_key else None
        if record is not None:
            self._replay(dyn, record)
            return compiled_fn
        import torch._functorch.config as functorch_config

        with (
            functorch_config.patch(enable_autograd_cache=False),
            admitted(admit),  # the same configuration as the first compile: its kernels' keys are the same
            _decisions_of(self.decisions, dyn),
            self.partitioner.recording(),
        ):
            return compile_fx(gm, example_inputs, inner_compile=inner_compile)

    def _replay(self, dyn: DynamoGraph, record: R.CompileRecord) -> None:
        for g in record.graphs:
            dyn.aot.append(
                AotGraph(
                    graph_id=f"g{dyn.index}.{g.kind}",
                    dynamo_graph=dyn.index,
                    kind=g.kind,
                    nodes=g.nodes,
                    readable=g.readable,
                    output_code=g.output_code if self.codegen else None,
                    from_record=True,
                )
            )
        dyn.decisions = record.decisions or {}
        if self.decisions is not None:
            _add_decisions(self.decisions, dyn.decisions)

    def save_records(self) -> int:
        """Record each graph compiled in this process (after the step that compiled its backward); the
        number written. Analysis-only runs write none: they generate no output code to record."""
        if self.records is None or not self.codegen:
            return 0
        written = 0
        for dyn in self.dynamo_graphs:
            if not _recordable(dyn):
                continue
            graphs = [
                R.RecordedGraph(kind=g.kind, nodes=g.nodes, readable=g.readable, output_code=g.output_code) for g in dyn.aot
            ]
            self.records.store(dyn.record_key, graphs, dyn.decisions)
            written += 1
        return written

    def find_loaded_paths(self) -> None:
        """The file each recorded graph's output code was loaded from in this process: the module of
        Inductor's code cache whose text is that output code (frames in CUDA snapshots name it)."""
        wanted = [g for dyn in self.dynamo_graphs for g in dyn.aot if g.output_code and not g.output_code_path]
        if not wanted:
            return
        from pathlib import Path

        from torch._inductor.codecache import PyCodeCache

        files = {getattr(m, "__file__", None) for m in [*PyCodeCache.modules, *PyCodeCache.modules_no_attr.values()]}
        texts = {}
        for f in files:
            try:
                texts.setdefault(Path(f).read_text(), f)
            except (OSError, TypeError, UnicodeDecodeError):
                continue
        for g in wanted:
            g.output_code_path = texts.get(g.output_code)

    def graph_running(self) -> bool:
        """Whether a compiled graph is running now."""
        return self.graphs_running > 0

    # -- block tracking ----------------------------------------------------------------------
    def track_blocks(self, blocks: dict[str, torch.nn.Module]) -> list:
        """Forward hooks that tell the capture which block is running."""
        handles = []
        for fqn, module in blocks.items():

            def pre(_mod, _args, fqn=fqn):
                self.current_block = fqn

            def post(_mod, _args, _out):
                self.current_block = None

            handles.append(module.register_forward_pre_hook(pre))
            handles.append(module.register_forward_hook(post))
        return handles


def _graph_input(n: torch.fx.Node) -> R.GraphInput:
    """A placeholder of a Dynamo graph: what Dynamo's source says it is (a parameter, a buffer or an input)."""
    grapharg = n.meta.get("grapharg")
    source = grapharg.source.name if grapharg is not None and getattr(grapharg, "source", None) is not None else n.name
    if callable(source):  # older torch: Source.name() is a method
        source = source()
    kind, fqn = source_to_fqn(str(source))
    entry = R.GraphInput(placeholder=n.name, source=str(source), kind=kind, fqn=fqn)
    example = n.meta.get("example_value")
    if isinstance(example, torch.Tensor):
        entry.requires_grad = bool(example.requires_grad)
    return entry


def _recordable(dyn: DynamoGraph) -> bool:
    """Whether a Dynamo graph's compile can be recorded: it has a key, a forward and its backward (or an inference
    graph), each compiled here with its output code."""
    complete = sorted(g.kind for g in dyn.aot) in (["backward", "forward"], ["inference"])
    return dyn.record_key is not None and complete and not any(g.from_record or g.output_code is None for g in dyn.aot)


@functools.cache
def _serializer_hash() -> str:
    """This file's contents and the partitioner recorder's: a record written by other serializing code is not this
    one's."""
    import hashlib
    from pathlib import Path

    from . import partition

    return hashlib.sha256(Path(__file__).read_bytes() + Path(partition.__file__).read_bytes()).hexdigest()


def _aot_key_hook():
    """The module whose ``autograd_cache_key`` AOTAutograd's cache lookup calls, or None on a torch without
    it, or without SAC policies in its keys (``cache_hash`` of a region's ``context_fn``): memprobe then
    leaves that cache off, since it could not name the record of a hit, or a hit could be another policy's."""
    try:
        from torch._functorch._aot_autograd import autograd_cache
    except ImportError:
        return None
    keyed = callable(getattr(autograd_cache, "autograd_cache_key", None))
    keys_policies = callable(getattr(autograd_cache, "_collect_context_fn_hashes", None))
    return autograd_cache if keyed and keys_policies else None


@contextmanager
def _aot_keys(keys: list[str]):
    """Collect the keys AOTAutograd's cache computes for the graphs compiled inside (its own key, so a
    record is named exactly as the cache entry it describes)."""
    module = _aot_key_hook()
    original = module.autograd_cache_key

    def seen(*args, **kwargs):
        result = original(*args, **kwargs)
        keys.append(str(result[0]))
        return result

    module.autograd_cache_key = seen
    try:
        yield
    finally:
        module.autograd_cache_key = original


@contextmanager
def _decisions_of(decisions: dict | None, dyn: DynamoGraph):
    """What the SAC policy decided while one graph was traced (its forward is traced inside compile_fx)."""
    if decisions is None:
        yield
        return
    before = {op: dict(d) for op, d in decisions.items()}
    try:
        yield
    finally:
        for op, d in decisions.items():
            for name, n in d.items():
                delta = n - before.get(op, {}).get(name, 0)
                if delta:
                    per_op = dyn.decisions.setdefault(op, {})
                    per_op[name] = per_op.get(name, 0) + delta


def _add_decisions(into: dict, more: dict) -> None:
    for op, d in more.items():
        per_op = into.setdefault(op, {})
        for name, n in d.items():
            per_op[name] = per_op.get(name, 0) + n


def _loaded_path(compiled) -> str | None:
    """The file Inductor's compiled module was loaded from: frames of its allocations in a
    CUDA snapshot name this path. None if it cannot be told."""
    runner = getattr(compiled, "compiled_fn_runner", None)
    call = getattr(type(runner), "call", None) if runner is not None else None
    if call is not None and hasattr(call, "__code__"):
        return call.__code__.co_filename
    # otherwise look for the module's call() behind Inductor's wrappers (closures)
    stack, seen = [getattr(compiled, "current_callable", None)], set()
    while stack:
        fn = stack.pop()
        fn = getattr(fn, "__func__", fn)
        if fn is None or id(fn) in seen or len(seen) > 50:
            continue
        seen.add(id(fn))
        code = getattr(fn, "__code__", None)
        if code is not None and fn.__name__ == "call" and "torch/_inductor" not in code.co_filename:
            return code.co_filename
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                stack.append(cell.cell_contents)
            except ValueError:
                pass
        stack.append(getattr(fn, "__wrapped__", None))
    return None


def _storage_ids(args) -> list[int | None]:
    """For each tensor argument of a call, an id of the storage it views (its address); None for other arguments."""
    ids: list[int | None] = []
    for a in args:
        try:
            st = a.untyped_storage() if isinstance(a, torch.Tensor) and not a.is_meta else None
            ids.append(int(st.data_ptr()) if st is not None and st.nbytes() else None)
        except (RuntimeError, NotImplementedError):  # a tensor subclass without a storage of its own
            ids.append(None)
    return ids


def _annotate_backward(grad_fn, name: str) -> None:
    """Bracket the backward of one compiled call (its CompiledFunction node's run) with a profiler range ``name``, as
    a forward call is: what the compiled backward allocates is then told from the rest of backward."""
    if grad_fn is None:
        return
    ranges: list = []

    def enter(_grad_outputs):
        ranges.append(torch.autograd.profiler.record_function(name))
        ranges[-1].__enter__()

    def leave(_grad_inputs, _grad_outputs):
        if ranges:
            ranges.pop().__exit__(None, None, None)

    grad_fn.register_prehook(enter)
    grad_fn.register_hook(leave)


def _compiled_grad_fn(out):
    """The CompiledFunction autograd node behind a compiled graph's outputs (None for inference)."""
    tensors = [out] if isinstance(out, torch.Tensor) else [t for t in (out or ()) if isinstance(t, torch.Tensor)]
    for t in tensors:
        node, depth = t.grad_fn, 0
        while node is not None and depth < 4:
            if "CompiledFunction" in type(node).__name__:
                return node
            nexts = [fn for fn, _ in node.next_functions if fn is not None]
            node = nexts[0] if nexts else None
            depth += 1
    return None

"""Inductor output code: parse the Python wrapper's ``call()`` and simulate its memory.

The wrapper is plain Python (for C++ kernels on the CPU and Triton on CUDA alike):
graph inputs unpacked from ``args``, buffers allocated with ``empty_strided_*``,
reused (``bufA = bufB; del bufB  # reuse``) or reinterpreted
(``reinterpret_tensor(bufB, ...)``), kernels launched, ``del`` statements, and a
returned tuple: the forward graph's user outputs followed by the values saved for
backward, in the FX graph's output order.

:func:`simulate` walks those statements and keeps the bytes of each live storage
(graph inputs are counted apart: they belong to the caller). A statement it does
not understand is reported in ``unrecognized``, never guessed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import RunDirError
from ..rundir import schema as S
from ..rundir.read import inside, read_text
from ..syntax import parse
from ..vocab import GraphKind, LiveRole, NodeOp, ReturnRole
from .saved import GraphPair, Provenance, saved_outputs

DTYPE_BYTES = {
    "float64": 8,
    "double": 8,
    "int64": 8,
    "long": 8,
    "complex64": 8,
    "uint64": 8,
    "float32": 4,
    "float": 4,
    "int32": 4,
    "int": 4,
    "uint32": 4,
    "bfloat16": 2,
    "float16": 2,
    "half": 2,
    "int16": 2,
    "uint16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "float8_e4m3fnuz": 1,
    "float8_e5m2fnuz": 1,
    "float8_e8m0fnu": 1,
    "complex128": 16,
}
_ALLOC_FUNCS = re.compile(r"^empty_strided(_\w+)?$")
_IGNORED_CALLS = {"get_raw_stream", "set_device", "_DeviceGuard", "assert_alignment", "check_dtype", "synchronize"}
_SOURCE_NODES = re.compile(r"#\s*Topologically Sorted Source Nodes:\s*\[([^\]]*)\]")


class OutputCodeError(ValueError):
    """The text is not Inductor output code memprobe can read."""


@dataclass
class Storage:
    sid: int
    nbytes: int
    allocated_by: str  # the name it was allocated as
    line: int
    is_input: bool = False


@dataclass
class Simulation:
    """What :func:`simulate` found walking ``call()``."""

    graph_inputs: list[str]
    returned: list[str | None]
    curve: list[tuple[int, int]] = field(default_factory=list)  # (line, live bytes)
    allocations: list[tuple[int, str, int]] = field(default_factory=list)  # (line, storage, bytes)
    peak_bytes: int = 0
    peak_line: int | None = None
    live_at_peak: list[S.LiveBuffer] = field(default_factory=list)
    returned_storages: list[S.ReturnedStorage | None] = field(default_factory=list)
    unrecognized: list[S.Unrecognized] = field(default_factory=list)
    kernels: list[S.Kernel] = field(default_factory=list)


def _find_call(tree: ast.Module) -> ast.FunctionDef:
    candidates = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "call"]
    if not candidates:
        raise OutputCodeError("no call() function: not Inductor output code")
    return candidates[0]


def _flat_statements(body: list[ast.stmt]):
    for stmt in body:
        if isinstance(stmt, ast.With):
            yield from _flat_statements(stmt.body)
        else:
            yield stmt


def _call_name(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def _literal_ints(node: ast.AST) -> list[int] | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    if isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value):
        return list(value)
    return None


def _dtype_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def storage_bytes(shape: list[int], stride: list[int], itemsize: int) -> int:
    """Bytes spanned by a strided tensor: (1 + sum((size - 1) * stride)) * itemsize, 0 if empty."""
    if any(s == 0 for s in shape):
        return 0
    span = 1 + sum((s - 1) * st for s, st in zip(shape, stride))
    return span * itemsize


def _names_in(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


class _Simulator:
    """The state of one walk of ``call()``: which storage each name refers to, and what was found so far. Each
    kind of statement has its handler; a handler returns False for a statement it does not take."""

    def __init__(self, source: str):
        self.lines = source.splitlines()
        self.refs: dict[str, Storage] = {}  # name -> the storage it refers to
        self.next_sid = 0
        self.sim = Simulation(graph_inputs=[], returned=[])
        self.pending_shapes: dict[str, tuple[list[int], list[int]]] = {}
        self.done = False

    def record(self, line: int) -> None:
        live = sum(s.nbytes for s in _live_storages(self.refs) if not s.is_input)
        self.sim.curve.append((line, live))
        if live > self.sim.peak_bytes:
            self.sim.peak_bytes, self.sim.peak_line = live, line
            self.sim.live_at_peak = _live_list(self.refs)

    def new_storage(self, name: str, nbytes: int, line: int, is_input: bool = False) -> Storage:
        st = Storage(self.next_sid, nbytes, name, line, is_input)
        self.next_sid += 1
        self.refs[name] = st
        return st

    def unrecognized(self, line: int, why: str) -> None:
        self.sim.unrecognized.append(S.Unrecognized(line=line, text=self.lines[line - 1].strip(), why=why))

    def kernel(self, line: int, call: ast.Call) -> str:
        label = _kernel_label(call)
        used = [n for n in _names_in(call) if n in self.refs]
        self.sim.kernels.append(S.Kernel(line=line, kernel=label, buffers=used, source_nodes=self.source_nodes_before(line)))
        return label

    def source_nodes_before(self, lineno: int) -> list[str]:
        # the comment Inductor writes right before a kernel call (skipping stream lines)
        for i in range(lineno - 2, max(lineno - 5, -1), -1):
            m = _SOURCE_NODES.search(self.lines[i])
            if m:
                return [s.strip() for s in m.group(1).split(",") if s.strip()]
            if "get_raw_stream" not in self.lines[i] and self.lines[i].strip():
                break
        return []

    def statement(self, stmt: ast.stmt) -> None:
        handlers = (self.unpack_args, self.clear, self.returns, self.delete, self.call, self.assign)
        if not any(handler(stmt) for handler in handlers):
            self.unrecognized(stmt.lineno, "statement not understood")

    def unpack_args(self, stmt: ast.stmt) -> bool:
        """``a, b, c = args``: the graph inputs, counted apart (they belong to the caller)."""
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id == "args"):
            return False
        target = stmt.targets[0]
        elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if not all(isinstance(e, ast.Name) for e in elts):
            self.unrecognized(stmt.lineno, "graph inputs unpacked into non-names")
            return True
        self.sim.graph_inputs = [e.id for e in elts]
        for n in self.sim.graph_inputs:
            self.new_storage(n, 0, stmt.lineno, is_input=True)
        return True

    def clear(self, stmt: ast.stmt) -> bool:
        return isinstance(stmt, ast.Expr) and _call_name(stmt.value) == "clear"

    def returns(self, stmt: ast.stmt) -> bool:
        if not isinstance(stmt, ast.Return):
            return False
        value = stmt.value
        elts = value.elts if isinstance(value, ast.Tuple) else ([value] if value is not None else [])
        self.sim.returned = [e.id if isinstance(e, ast.Name) else None for e in elts]
        for name in self.sim.returned:
            st = self.refs.get(name) if name else None
            self.sim.returned_storages.append(
                None
                if st is None
                else S.ReturnedStorage(
                    name=name, storage=st.allocated_by, bytes=0 if st.is_input else st.nbytes, is_input=st.is_input
                )
            )
        self.done = True
        return True

    def delete(self, stmt: ast.stmt) -> bool:
        if not isinstance(stmt, ast.Delete):
            return False
        for t in stmt.targets:
            if isinstance(t, ast.Name):
                self.refs.pop(t.id, None)
        self.record(stmt.lineno)
        return True

    def call(self, stmt: ast.stmt) -> bool:
        """A call statement: a shape assertion, a call that allocates nothing, or a kernel launch (a triton
        ``.run(...)``, a C++ kernel, or an extern kernel writing ``out=``)."""
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return False
        name = _call_name(stmt.value)
        if name == "assert_size_stride":
            args = stmt.value.args
            if len(args) >= 3 and isinstance(args[0], ast.Name):
                shape, stride = _literal_ints(args[1]), _literal_ints(args[2])
                if shape is not None and stride is not None:
                    self.pending_shapes[args[0].id] = (shape, stride)
        elif name not in _IGNORED_CALLS:
            self.kernel(stmt.lineno, stmt.value)
            self.record(stmt.lineno)
        return True

    def assign(self, stmt: ast.stmt) -> bool:
        """``name = ...``: an allocation, a new name for a storage (reuse, reinterpretation, one output of a
        multi-output op), or a fallback op that allocates its own output."""
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return False
        target, value, line = stmt.targets[0].id, stmt.value, stmt.lineno
        cname = _call_name(value)
        if cname and _ALLOC_FUNCS.match(cname):
            return self.allocate(target, value, line)
        alias = _renamed(value, self.refs)
        if alias is not None:
            self.refs[target] = self.refs[alias]  # reuse: the same storage under a new name
            return True
        if cname in _IGNORED_CALLS or target.startswith("stream"):
            return True
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in self.refs:
            # bufN = buf5[0] (an output of a multi-output fallback): shares its producer's allocation
            self.refs[target] = self.refs[value.value.id]
            return True
        if cname is None:
            return False
        # a fallback op that allocates its own output: size known only from a later assert
        self.unrecognized(line, "output allocated inside a fallback kernel; size not in the wrapper")
        self.kernel(line, value)
        self.new_storage(target, 0, line)
        return True

    def allocate(self, target: str, value: ast.Call, line: int) -> bool:
        args = value.args
        shape = _literal_ints(args[0]) if len(args) > 0 else None
        stride = _literal_ints(args[1]) if len(args) > 1 else None
        dtype = _dtype_name(args[2]) if len(args) > 2 else None
        if shape is None or stride is None or dtype not in DTYPE_BYTES:
            self.unrecognized(line, "allocation with symbolic or unknown size/dtype")
            return True
        nbytes = storage_bytes(shape, stride, DTYPE_BYTES[dtype])
        self.new_storage(target, nbytes, line)
        self.sim.allocations.append((line, target, nbytes))
        self.record(line)
        return True


def _renamed(value: ast.AST, refs: dict[str, Storage]) -> str | None:
    """The name whose storage ``value`` is under a new name: ``bufB`` (reuse) or ``reinterpret_tensor(bufB, ...)``."""
    if isinstance(value, ast.Name) and value.id in refs:
        return value.id
    if _call_name(value) == "reinterpret_tensor" and value.args and isinstance(value.args[0], ast.Name):
        return value.args[0].id if value.args[0].id in refs else None
    return None


def simulate(source: str) -> Simulation:
    """Walk ``call()`` and track live bytes statement by statement."""
    try:
        tree = parse(source)
    except SyntaxError as e:
        raise OutputCodeError(f"output code does not parse as Python: {e.msg} (line {e.lineno})") from None
    walk = _Simulator(source)
    for stmt in _flat_statements(_find_call(tree).body):
        walk.statement(stmt)
        if walk.done:
            break
    return walk.sim


def _kernel_label(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Attribute):
        base = f.value
        if f.attr == "run" and isinstance(base, ast.Name):
            return base.id
        if isinstance(base, ast.Name):
            return f"{base.id}.{f.attr}"
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ast.unparse(f)


def _live_storages(refs: dict[str, Storage]) -> list[Storage]:
    seen, out = set(), []
    for st in refs.values():
        if st.sid not in seen:
            seen.add(st.sid)
            out.append(st)
    return out


def _live_list(refs: dict[str, Storage]) -> list[S.LiveBuffer]:
    names: dict[int, list[str]] = {}
    for name, st in refs.items():
        names.setdefault(st.sid, []).append(name)
    live = [st for st in _live_storages(refs) if not st.is_input]
    return [
        S.LiveBuffer(storage=st.allocated_by, names=names[st.sid], bytes=st.nbytes)
        for st in sorted(live, key=lambda st: -st.nbytes)
    ]


def graph_memory(
    source: str, fx_outputs: list[str | None], n_saved: int | None, *, graph_id: str, kind: GraphKind
) -> S.GraphMemory:
    """Simulate one forward/backward graph and split what it returns.

    ``fx_outputs``: the FX graph's output node names, in order (the wrapper returns them
    positionally); ``n_saved``: how many trailing outputs are saved for backward (None
    when unknown, e.g. a backward graph).
    """
    sim = simulate(source)
    returned = sim.returned_storages
    common = {
        "graph_id": graph_id,
        "kind": kind,
        "graph_inputs": sim.graph_inputs,
        "peak_bytes": sim.peak_bytes,
        "peak_line": sim.peak_line,
        "live_at_peak": sim.live_at_peak,
        "returned_storages": returned,
        "unrecognized": sim.unrecognized,
        "kernels": sim.kernels,
        "allocations": sim.allocations,
        "curve": sim.curve,
    }
    if len(returned) != len(fx_outputs):
        return S.GraphMemory(
            **common,
            returned_match=False,
            returned=[S.ReturnedValue(buffer=r.name if r else None, fx_node=None, bytes=r.bytes if r else 0) for r in returned],
            output_bytes=None,
            saved_bytes=None,
        )
    split = len(returned) - (n_saved or 0) if n_saved is not None else len(returned)
    rows = [_returned_value(i, r, fx, split) for i, (r, fx) in enumerate(zip(returned, fx_outputs))]
    out_bytes = _distinct_bytes(returned, rows, ReturnRole.OUTPUT)
    saved_bytes = _distinct_bytes(returned, rows, ReturnRole.SAVED)
    return S.GraphMemory(
        **common,
        returned_match=True,
        returned=rows,
        output_bytes=out_bytes,
        saved_bytes=saved_bytes if n_saved is not None else None,
    )


def _returned_value(i: int, r, fx: str | None, split: int) -> S.ReturnedValue:
    """The ``i``-th value a graph returns (``r``: its storage as simulated, None when not recognized): an output
    before ``split``, saved for backward from there."""
    return S.ReturnedValue(
        position=i,
        role=ReturnRole.OUTPUT if i < split else ReturnRole.SAVED,
        fx_node=fx,
        buffer=r.name if r else None,
        storage=r.storage if r else None,
        is_input=bool(r and r.is_input),
        bytes=r.bytes if r else 0,
    )


def _distinct_bytes(returned: list, rows: list[S.ReturnedValue], role: ReturnRole) -> int:
    """The bytes of the storages returned in ``role``, each storage once; the graph's inputs returned as they are
    apart."""
    seen, total = set(), 0
    for r, row in zip(returned, rows):
        if r is None or r.is_input or row.role != role or r.storage in seen:
            continue
        seen.add(r.storage)
        total += r.bytes
    return total


def _written_by(kernels: list[S.Kernel], name: str) -> S.Kernel | None:
    return next((k for k in kernels if name in k.buffers), None)


def simulate_run(run_dir, report: S.Report, pairs: dict[int, GraphPair]) -> list[S.GraphMemory]:
    """Per recorded graph: the simulated live-bytes curve, its peak and what is live there,
    and the returned bytes split into outputs and saved-for-backward (with their FX nodes
    and op chains). Graphs without output code are skipped."""
    run_dir = Path(run_dir)
    results = []
    for g in report.graphs:
        pair = pairs.get(g.dynamo_graph)
        doc = None if pair is None else pair.forward if g.kind == GraphKind.FORWARD else pair.backward
        if g.files.output_code is None or doc is None:
            continue
        fx_outputs = next(n for n in doc.nodes if n.op == NodeOp.OUTPUT).outputs or []
        saved = saved_outputs(pair) if g.kind == GraphKind.FORWARD else None
        try:
            path = inside(run_dir, g.files.output_code, f"{run_dir / 'report.json'}: graphs ({g.graph_id}) files.output_code")
            source = read_text(path, kind="output code")
            mem = graph_memory(source, fx_outputs, len(saved) if saved is not None else None, graph_id=g.graph_id, kind=g.kind)
        except (RunDirError, OutputCodeError) as e:
            results.append(S.GraphMemory(graph_id=g.graph_id, kind=g.kind, error=str(e)))
            continue
        _name_returned(mem, pair, g.kind)
        _name_live(mem)
        results.append(mem)
    return results


def _name_returned(mem: S.GraphMemory, pair: GraphPair, kind: GraphKind) -> None:
    """Each returned value's op chain: a forward's from its graph; a backward's outputs are the gradients of the
    forward's inputs, in order."""
    prov = Provenance(pair) if kind == GraphKind.FORWARD else None
    for row in mem.returned:
        if prov is not None and row.fx_node:
            row.expr = prov.expr(row.fx_node, None)
        elif kind == GraphKind.BACKWARD and row.position is not None and row.position < len(pair.inputs) and row.fx_node:
            row.expr = f"grad({pair.inputs[row.position].fqn})"


def _name_live(mem: S.GraphMemory) -> None:
    """What each buffer alive at the peak becomes: a returned value (saved, output), or a temporary named by the
    kernel that wrote it."""
    returned_by_storage = {r.storage: r for r in mem.returned if r.storage}
    for live in mem.live_at_peak:
        ret = returned_by_storage.get(live.storage)
        if ret is not None:
            live.fx_node = ret.fx_node
            live.role = LiveRole(ret.role)
            live.expr = ret.expr
        else:
            k = _written_by(mem.kernels, live.storage)
            live.role = LiveRole.TEMPORARY
            live.written_by = k.kernel if k else None
            live.source_nodes = k.source_nodes if k else []

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

from ..errors import RunDirError
from .validate import inside, read_text

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
    graph_inputs: list[str]
    returned: list[str | None]
    curve: list[list[int]] = field(default_factory=list)  # [[line, live bytes], ...]
    events: list[dict] = field(default_factory=list)
    peak_bytes: int = 0
    peak_line: int | None = None
    live_at_peak: list[dict] = field(default_factory=list)
    returned_storages: list[dict | None] = field(default_factory=list)
    unrecognized: list[dict] = field(default_factory=list)
    kernels: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "graph_inputs": self.graph_inputs,
            "returned": self.returned,
            "peak_bytes": self.peak_bytes,
            "peak_line": self.peak_line,
            "live_at_peak": self.live_at_peak,
            "returned_storages": self.returned_storages,
            "unrecognized": self.unrecognized,
            "kernels": self.kernels,
            "allocations": [[e["line"], e["name"], e["bytes"]] for e in self.events if e["kind"] == "alloc"],
            "curve": self.curve,
        }


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


def simulate(source: str) -> Simulation:
    """Walk ``call()`` and track live bytes statement by statement."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise OutputCodeError(f"output code does not parse as Python: {e.msg} (line {e.lineno})") from None
    fn = _find_call(tree)
    lines = source.splitlines()
    refs: dict[str, Storage] = {}  # name -> storage it refers to
    storages: dict[int, Storage] = {}
    next_sid = 0
    live = 0
    sim = Simulation(graph_inputs=[], returned=[])

    def record(line: int) -> None:
        nonlocal live
        live = sum(s.nbytes for s in _live_storages(refs) if not s.is_input)
        sim.curve.append([line, live])
        if live > sim.peak_bytes:
            sim.peak_bytes, sim.peak_line = live, line
            sim.live_at_peak = _live_list(refs)

    def new_storage(name: str, nbytes: int, line: int, is_input: bool = False) -> Storage:
        nonlocal next_sid
        st = Storage(next_sid, nbytes, name, line, is_input)
        storages[next_sid] = st
        next_sid += 1
        refs[name] = st
        return st

    def source_nodes_before(lineno: int) -> list[str]:
        # the comment Inductor writes right before a kernel call (skipping stream lines)
        for i in range(lineno - 2, max(lineno - 5, -1), -1):
            m = _SOURCE_NODES.search(lines[i])
            if m:
                return [s.strip() for s in m.group(1).split(",") if s.strip()]
            if "get_raw_stream" not in lines[i] and lines[i].strip():
                break
        return []

    pending_shapes: dict[str, tuple[list[int], list[int]]] = {}
    for stmt in _flat_statements(fn.body):
        line = stmt.lineno
        text = lines[line - 1].strip()
        # a, b, c = args
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id == "args":
            target = stmt.targets[0]
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            if not all(isinstance(e, ast.Name) for e in elts):
                sim.unrecognized.append({"line": line, "text": text, "why": "graph inputs unpacked into non-names"})
                continue
            names = [e.id for e in elts]
            sim.graph_inputs = names
            for n in names:
                new_storage(n, 0, line, is_input=True)
            continue
        if isinstance(stmt, ast.Expr) and _call_name(stmt.value) == "clear":
            continue
        if isinstance(stmt, ast.Return):
            value = stmt.value
            elts = value.elts if isinstance(value, ast.Tuple) else ([value] if value is not None else [])
            sim.returned = [e.id if isinstance(e, ast.Name) else None for e in elts]
            for name in sim.returned:
                st = refs.get(name) if name else None
                sim.returned_storages.append(
                    None
                    if st is None
                    else {
                        "name": name,
                        "storage": st.allocated_by,
                        "bytes": 0 if st.is_input else st.nbytes,
                        "is_input": st.is_input,
                    }
                )
            break
        if isinstance(stmt, ast.Delete):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    refs.pop(t.id, None)
            record(line)
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            name = _call_name(stmt.value)
            if name == "assert_size_stride":
                args = stmt.value.args
                if len(args) >= 3 and isinstance(args[0], ast.Name):
                    shape, stride = _literal_ints(args[1]), _literal_ints(args[2])
                    if shape is not None and stride is not None:
                        pending_shapes[args[0].id] = (shape, stride)
                continue
            if name in _IGNORED_CALLS:
                continue
            # a kernel launch: triton .run(...), a cpp kernel, or an extern kernel writing out=
            used = [n for n in _names_in(stmt.value) if n in refs]
            kernel = _kernel_label(stmt.value)
            sim.kernels.append({"line": line, "kernel": kernel, "buffers": used, "source_nodes": source_nodes_before(line)})
            sim.events.append({"line": line, "kind": "kernel", "name": kernel})
            record(line)
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            value = stmt.value
            cname = _call_name(value)
            if cname and _ALLOC_FUNCS.match(cname):
                args = value.args
                shape = _literal_ints(args[0]) if len(args) > 0 else None
                stride = _literal_ints(args[1]) if len(args) > 1 else None
                dtype = _dtype_name(args[2]) if len(args) > 2 else None
                if shape is None or stride is None or dtype not in DTYPE_BYTES:
                    sim.unrecognized.append({"line": line, "text": text, "why": "allocation with symbolic or unknown size/dtype"})
                    continue
                nbytes = storage_bytes(shape, stride, DTYPE_BYTES[dtype])
                new_storage(target, nbytes, line)
                sim.events.append({"line": line, "kind": "alloc", "name": target, "bytes": nbytes})
                record(line)
                continue
            if isinstance(value, ast.Name) and value.id in refs:
                refs[target] = refs[value.id]  # reuse: same storage under a new name
                continue
            if cname == "reinterpret_tensor" and value.args and isinstance(value.args[0], ast.Name) and value.args[0].id in refs:
                refs[target] = refs[value.args[0].id]
                continue
            if cname in _IGNORED_CALLS or target.startswith("stream"):
                continue
            if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in refs:
                # bufN = buf5[0] (an output of a multi-output fallback): shares its producer's allocation
                refs[target] = refs[value.value.id]
                continue
            if cname is not None:
                # a fallback op that allocates its own output: size known only from a later assert
                sim.unrecognized.append(
                    {"line": line, "text": text, "why": "output allocated inside a fallback kernel; size not in the wrapper"}
                )
                kernel = _kernel_label(value)
                sim.kernels.append(
                    {
                        "line": line,
                        "kernel": kernel,
                        "buffers": [n for n in _names_in(value) if n in refs],
                        "source_nodes": source_nodes_before(line),
                    }
                )
                new_storage(target, 0, line)
                continue
        sim.unrecognized.append({"line": line, "text": text, "why": "statement not understood"})
    return sim


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


def _live_list(refs: dict[str, Storage]) -> list[dict]:
    names: dict[int, list[str]] = {}
    for name, st in refs.items():
        names.setdefault(st.sid, []).append(name)
    return sorted(
        (
            {"storage": st.allocated_by, "names": names[st.sid], "bytes": st.nbytes}
            for st in _live_storages(refs)
            if not st.is_input
        ),
        key=lambda d: -d["bytes"],
    )


def graph_memory(source: str, fx_outputs: list[str | None], n_saved: int | None) -> dict:
    """Simulate one forward/backward graph and split what it returns.

    ``fx_outputs``: the FX graph's output node names, in order (the wrapper returns them
    positionally); ``n_saved``: how many trailing outputs are saved for backward (None
    when unknown, e.g. a backward graph).
    """
    sim = simulate(source)
    result = sim.to_dict()
    returned = sim.returned_storages
    if len(returned) != len(fx_outputs):
        result["returned_match"] = False
        result["returned"] = [
            {"buffer": r["name"] if r else None, "fx_node": None, "bytes": r["bytes"] if r else 0} for r in returned
        ]
        result["output_bytes"] = result["saved_bytes"] = None
        return result
    result["returned_match"] = True
    split = len(returned) - (n_saved or 0) if n_saved is not None else len(returned)
    rows, seen_out, seen_saved = [], set(), set()
    out_bytes = saved_bytes = 0
    for i, (r, fx) in enumerate(zip(returned, fx_outputs)):
        role = "output" if i < split else "saved"
        row = {
            "position": i,
            "role": role,
            "fx_node": fx,
            "buffer": r["name"] if r else None,
            "storage": r["storage"] if r else None,
            "is_input": bool(r and r["is_input"]),
            "bytes": r["bytes"] if r else 0,
        }
        rows.append(row)
        if r is None or r["is_input"]:
            continue
        if role == "output" and r["storage"] not in seen_out:
            seen_out.add(r["storage"])
            out_bytes += r["bytes"]
        elif role == "saved" and r["storage"] not in seen_saved:
            seen_saved.add(r["storage"])
            saved_bytes += r["bytes"]
    result["returned"] = rows
    result["output_bytes"] = out_bytes
    result["saved_bytes"] = saved_bytes if n_saved is not None else None
    return result


def _written_by(sim_kernels: list[dict], name: str) -> dict | None:
    for k in sim_kernels:
        if name in k["buffers"]:
            return k
    return None


def simulate_run(run_dir, report: dict, pairs: dict) -> list[dict]:
    """Per recorded graph: the simulated live-bytes curve, its peak and what is live there,
    and the returned bytes split into outputs and saved-for-backward (with their FX nodes
    and op chains). Graphs without output code are skipped."""
    from pathlib import Path

    from .saved import Provenance, saved_outputs

    run_dir = Path(run_dir)
    results = []
    for g in report.get("graphs") or []:
        rel = g["files"].get("output_code")
        pair = pairs.get(g["dynamo_graph"])
        if rel is None or pair is None:
            continue
        doc = pair.forward if g["kind"] == "forward" else pair.backward
        if doc is None:
            continue
        fx_outputs = next(n for n in doc["nodes"] if n["op"] == "output")["outputs"]
        saved = saved_outputs(pair) if g["kind"] == "forward" else None
        try:
            path = inside(run_dir, rel, f"{run_dir / 'report.json'}: graphs ({g['graph_id']}) files.output_code")
            source = read_text(path, kind="output code")
            mem = graph_memory(source, fx_outputs, len(saved) if saved is not None else None)
        except (RunDirError, OutputCodeError) as e:
            results.append({"graph_id": g["graph_id"], "kind": g["kind"], "error": str(e)})
            continue
        prov = Provenance(pair) if g["kind"] == "forward" else None
        for row in mem["returned"]:
            if prov is not None and row.get("fx_node"):
                row["expr"] = prov.expr(row["fx_node"], None)
            elif g["kind"] == "backward" and row["position"] < len(pair.inputs) and row.get("fx_node"):
                # backward graph outputs are the gradients of the forward inputs, in order
                row["expr"] = f"grad({pair.inputs[row['position']]['fqn']})"
        returned_by_storage = {r["storage"]: r for r in mem["returned"] if r.get("storage")}
        for live in mem["live_at_peak"]:
            ret = returned_by_storage.get(live["storage"])
            if ret is not None:
                live["fx_node"] = ret["fx_node"]
                live["role"] = ret["role"]
                live["expr"] = ret.get("expr")
            else:
                k = _written_by(mem["kernels"], live["storage"])
                live["role"] = "temporary"
                live["written_by"] = k["kernel"] if k else None
                live["source_nodes"] = k["source_nodes"] if k else []
        results.append({"graph_id": g["graph_id"], "kind": g["kind"], **mem})
    return results

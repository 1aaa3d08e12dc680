"""Every file memprobe reads may come from someone else: check it on load, into the shape the code relies on.

A run directory, a diff, an explain or bisect result, a baseline: each JSON file is parsed
with bounds (nesting depth, number size, no NaN or infinities, valid Unicode), then checked
against a declared shape (:data:`REPORT`, :data:`GRAPH`, :data:`DIFF`, ...), field by field,
including the nested fields the analysis reads. A file that does not fit is a
:class:`~memprobe.errors.RunDirError` (exit 2) naming the file and the field's path in one
line, e.g. ``run/report.json: saved_tensors[3].bytes: expected a non-negative integer, got
-1``. Fields the code does not read may hold anything JSON allows; unknown ones are ignored.

Paths recorded in a file (``files.graph_json``, ``memory.snapshot.file``) are resolved by
:func:`inside` and refused unless they stay inside the directory that holds the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import RunDirError
from ..vocab import DiffStatus, Float8Skip, InputKind, RunStatus

MAX_INT = 2**63  # bytes, counts and addresses fit in 64 bits
MAX_STR = 10_000_000


class Invalid(Exception):
    """A value that does not fit its shape; ``path`` says where."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path or '(top level)'}: {message}")
        self.path = path


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- shapes ---------------------------------------------------------------------------------------
# A shape is a callable (value, path) -> value that raises Invalid.

Shape = Callable[[Any, str], Any]


def Int(lo: int = 0, hi: int = MAX_INT) -> Shape:
    def check(v, path):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            what = "a non-negative integer" if lo == 0 else "an integer"
            raise Invalid(path, f"expected {what}" + (f" up to {hi}" if hi != MAX_INT else "") + f", got {_show(v)}")
        return v

    return check


SIGNED = Int(-MAX_INT, MAX_INT)
COUNT = Int()


def Num(lo: float = -math.inf) -> Shape:
    def check(v, path):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < lo:
            raise Invalid(path, f"expected a finite number{' >= 0' if lo == 0 else ''}, got {_show(v)}")
        return v

    return check


def Str(max_len: int = MAX_STR) -> Shape:
    def check(v, path):
        if not isinstance(v, str):
            raise Invalid(path, f"expected a string, got {_show(v)}")
        if len(v) > max_len:
            raise Invalid(path, f"a string of {len(v)} characters (at most {max_len})")
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise Invalid(path, "a string that is not valid Unicode (a lone surrogate)") from None
        return v

    return check


STR = Str()
NAME = Str(10_000)


def Bool(v, path):
    if not isinstance(v, bool):
        raise Invalid(path, f"expected true or false, got {_show(v)}")
    return v


def Enum(*choices: str) -> Shape:
    def check(v, path):
        if v not in choices:
            raise Invalid(path, f"expected one of {', '.join(choices)}, got {_show(v)}")
        return v

    return check


def Opt(shape: Shape) -> Shape:
    def check(v, path):
        return None if v is None else shape(v, path)

    return check


def ListOf(shape: Shape) -> Shape:
    def check(v, path):
        if not isinstance(v, list):
            raise Invalid(path, f"expected a list, got {_show(v)}")
        for i, x in enumerate(v):
            shape(x, f"{path}[{i}]")
        return v

    return check


def Tuple(*shapes: Shape, at_least: int | None = None) -> Shape:
    """A list of fixed length (at least ``at_least`` when given; extra items are not read)."""
    need = len(shapes) if at_least is None else at_least

    def check(v, path):
        if not isinstance(v, list) or len(v) < need or (at_least is None and len(v) != need):
            raise Invalid(path, f"expected a list of {need} items, got {_show(v)}")
        for i, (x, shape) in enumerate(zip(v, shapes)):
            shape(x, f"{path}[{i}]")
        return v

    return check


def MapOf(value: Shape, key: Shape = NAME) -> Shape:
    def check(v, path):
        if not isinstance(v, dict):
            raise Invalid(path, f"expected an object, got {_show(v)}")
        for k, x in v.items():
            key(k, f"{path}.{k}")
            value(x, f"{path}.{k}")
        return v

    return check


def Obj(required: dict[str, Shape] | None = None, optional: dict[str, Shape] | None = None) -> Shape:
    required, optional = required or {}, optional or {}

    def check(v, path):
        if not isinstance(v, dict):
            raise Invalid(path, f"expected an object, got {_show(v)}")
        for k, shape in required.items():
            if k not in v:
                raise Invalid(f"{path}.{k}" if path else k, "missing")
            shape(v[k], f"{path}.{k}" if path else k)
        for k, shape in optional.items():
            if k in v:
                shape(v[k], f"{path}.{k}" if path else k)
        return v

    return check


def Any_(v, path):
    return v


def Either(*shapes: Shape) -> Shape:
    def check(v, path):
        errors = []
        for shape in shapes:
            try:
                return shape(v, path)
            except Invalid as e:
                errors.append(str(e))
        raise Invalid(path, f"matches none of its forms ({errors[0].split(': ', 1)[-1]})")

    return check


# -- the files ------------------------------------------------------------------------------------

DIM = Either(Int(), Str(1000))  # a size, or a symbolic one (dynamic shapes) as its expression
SHAPE_ = Opt(ListOf(DIM))
STATUS = Enum(*RunStatus)
CATEGORY_BYTES = MapOf(SIGNED)

GRAPH_ENTRY = Obj(
    {
        "graph_id": NAME,
        "dynamo_graph": Int(0, 10**6),
        "kind": Enum("forward", "backward", "inference"),
        "files": MapOf(Str(4096)),
        "inputs": ListOf(Obj({"placeholder": NAME, "kind": Enum(*InputKind), "fqn": NAME}, {"source": STR})),
    },
    {"nodes": COUNT, "output_code_loaded_from": Opt(STR)},
)
RUNTIME_SAVED = Obj({"storage_bytes": COUNT}, {"shape": SHAPE_, "dtype": Opt(NAME), "storage_id": Opt(COUNT)})
INVOCATION = Obj(
    {"dynamo_graph": Int(0, 10**6), "block": Opt(NAME)},
    {"runtime_saved": Opt(ListOf(RUNTIME_SAVED)), "measured": Opt(MapOf(SIGNED)), "input_ids": ListOf(Opt(COUNT))},
)
USER = Obj(
    {"op": NAME, "label": STR},
    {
        "module": Opt(STR),
        "piece": Opt(NAME),
        "source": Opt(STR),
        "library": Opt(STR),
        "of": ListOf(STR),
        "backward_work": Bool,
        "from_ops": ListOf(NAME),
    },
)
SAVED_ROW = Obj(
    {
        "graph": NAME,
        "name": NAME,
        "bytes": COUNT,
        "expr": STR,
        "op": NAME,
        "kind": NAME,
        "reason_kind": NAME,
        "reason": STR,
        "roots": ListOf(STR),
        "block": Opt(NAME),
        "shape": SHAPE_,
        "dtype": Opt(NAME),
        "policy_op": Opt(NAME),
        "runtime_storage_bytes": Opt(COUNT),
        "runtime_storage_id": Opt(COUNT),
    },
    {
        "call": COUNT,
        "root": NAME,
        "recompute_tag": Opt(NAME),
        "root_dtypes": ListOf(NAME),
        "user": Opt(USER),
        "value_id": NAME,
        "input_id": Opt(COUNT),
    },
)
FINDING_ITEM = Obj(
    {"label": STR, "bytes": COUNT},
    {"expr": STR, "count": COUNT, "bytes_each": COUNT, "dtype": Opt(NAME), "shape": SHAPE_, "module": Opt(STR)},
)
FINDING = Obj(
    {"kind": NAME, "bytes": SIGNED, "message": STR},
    {
        "hint": Opt(STR),
        "detail": Opt(STR),
        "expr": Opt(STR),
        "label": Opt(STR),
        "count": Opt(COUNT),
        "bytes_each": Opt(COUNT),
        "policy_op": Opt(NAME),
        "items": ListOf(FINDING_ITEM),
        "what": Opt(STR),
        "summary": Opt(STR),
        "fix": Opt(STR),
        "flag": Opt(STR),
    },
)
# the answer first (memprobe.analysis.verdict): the sentence, and the figures and fix it is made of
VERDICT = Obj(
    {"text": STR},
    {
        "bytes": Opt(SIGNED),
        "total_bytes": Opt(SIGNED),
        "finding": Opt(NAME),
        "fix": Opt(STR),
        "flag": Opt(STR),
    },
)
TOTALS = Obj(
    {"graph_bytes": COUNT},
    {
        "runtime_bytes": Opt(COUNT),
        "agree": Opt(Bool),
        "parameter_graph_bytes": COUNT,
        "parameter_runtime_bytes": Opt(COUNT),
        "by_kind_bytes": MapOf(COUNT),
    },
)
PHASE = Obj(
    {"start_bytes": SIGNED, "peak_bytes": SIGNED, "end_bytes": SIGNED},
    {
        "peak_active_bytes": SIGNED,
        "start_reserved_bytes": SIGNED,
        "peak_reserved_bytes": SIGNED,
        "end_reserved_bytes": SIGNED,
        "events": COUNT,
    },
)
EVENTS = Obj(
    {"rows": ListOf(Tuple(Num(), SIGNED, SIGNED, SIGNED))},
    {
        "columns": ListOf(NAME),
        "annotations": ListOf(Tuple(STR, Num(), Num())),
        "ops": ListOf(Tuple(STR, Num(), Num())),
        "phase_windows_us": MapOf(Tuple(Num(), Num())),
    },
)
MEMORY = Obj(
    {},
    {
        "source": Opt(NAME),
        "baseline": STR,
        "phases": MapOf(PHASE),
        "events": Opt(EVENTS),
        "persistent": Opt(MapOf(Opt(COUNT))),
        "autograd_saved_bytes": Opt(COUNT),
        "process_peak_reserved_bytes": Opt(COUNT),
        "saved_for_backward_bytes": Opt(MapOf(Opt(COUNT))),
        "partial": Bool,
        "snapshot": Opt(
            Obj(
                {},
                {
                    "file": Opt(Str(4096)),
                    "phase_markers": ListOf(Tuple(NAME, NAME)),
                    "tensor_registry": Opt(MapOf(Obj({"category": NAME, "name": STR, "bytes": COUNT}))),
                },
            )
        ),
    },
)
ITEM = Obj({"category": NAME, "item": STR, "bytes": SIGNED}, {"blocks": COUNT, "evidence": Opt(STR)})
AT_END = Obj({"by_category_bytes": CATEGORY_BYTES}, {"event_index": SIGNED, "alive_bytes": SIGNED, "top_items": ListOf(ITEM)})
ATTRIBUTION_PHASE = Obj(
    {"by_category_bytes": CATEGORY_BYTES},
    {
        "peak_bytes": SIGNED,
        "alive_bytes": SIGNED,
        "named_fraction": Opt(Num(0)),
        "top_items": ListOf(ITEM),
        "saved_for_backward": ListOf(ITEM),
        "event_index": SIGNED,
        "at_end": AT_END,
    },
)
ATTRIBUTION = Obj(
    {"source": NAME},
    {
        "peak_bytes": SIGNED,
        "peak_phase": Opt(NAME),
        "alive_bytes": SIGNED,
        "named_fraction": Opt(Num(0)),
        "by_category_bytes": CATEGORY_BYTES,
        "top_items": ListOf(ITEM),
        "saved_for_backward": ListOf(ITEM),
        "phases": MapOf(ATTRIBUTION_PHASE),
        "measured": ListOf(STR),
        "inferred": ListOf(STR),
    },
)
LIVE = Obj(
    {"bytes": SIGNED},
    {
        "storage": Opt(NAME),
        "names": ListOf(NAME),
        "role": Opt(NAME),
        "fx_node": Opt(NAME),
        "expr": Opt(STR),
        "written_by": Opt(STR),
        "source_nodes": ListOf(NAME),
    },
)
GRAPH_MEMORY = Obj(
    {"graph_id": NAME},
    {
        "kind": NAME,
        "graph_inputs": ListOf(NAME),
        "peak_bytes": SIGNED,
        "peak_line": Opt(COUNT),
        "live_at_peak": ListOf(LIVE),
        "output_bytes": Opt(SIGNED),
        "saved_bytes": Opt(SIGNED),
        "returned_match": Opt(Bool),
        "returned": ListOf(
            Obj(
                {"role": Opt(NAME), "fx_node": Opt(NAME), "storage": Opt(NAME)},
                {"buffer": Opt(NAME), "is_input": Opt(Bool), "bytes": Opt(SIGNED), "expr": Opt(STR), "position": COUNT},
            )
        ),
        "unrecognized": ListOf(Any_),
        "kernels": ListOf(Obj({"line": COUNT, "kernel": STR}, {"buffers": ListOf(NAME), "source_nodes": ListOf(NAME)})),
        "allocations": ListOf(Tuple(COUNT, NAME, SIGNED)),
        "curve": ListOf(Tuple(COUNT, SIGNED)),
    },
)
POLICY = Obj(
    {"name": NAME, "default": NAME, "save_ops": ListOf(NAME)}, {"recompute_ops": ListOf(NAME), "mm_every_second_recomputed": Bool}
)
PROCESS = Obj(
    {},
    {
        "pid": COUNT,
        "host": Opt(NAME),
        "python": Opt(STR),
        "command": ListOf(STR),
        "env": MapOf(Opt(STR)),
        "gpus": Opt(NAME),
        "gpu_probes_at_once": Opt(COUNT),
    },
)
DISTRIBUTED = Obj(
    {},
    {
        "world_size": Opt(Int(1, 10**7)),
        "rank": COUNT,
        "backend": Opt(NAME),
        "nproc_per_node": COUNT,
        "ranks": ListOf(MapOf(Any_)),
        "max_bytes": MapOf(SIGNED),
        "skew_bytes": MapOf(SIGNED),
        "headline": STR,
        "launcher": STR,
    },
)
MODEL = Obj(
    {},
    {
        "blocks_attr": NAME,
        "blocks": COUNT,
        "block_parameters": MapOf(COUNT),
        "other_parameters": COUNT,
        "block_arguments": ListOf(NAME),
        "code_files": ListOf(STR),
    },
)
FLOAT8_LINEAR = Obj(
    {"fqn": NAME, "in_blocks": Bool, "converted": Bool, "parameters": COUNT},
    {"type": NAME, "weight_shape": ListOf(COUNT), "skipped": Opt(Enum(*Float8Skip))},
)
FLOAT8 = Obj(
    {"linears": ListOf(FLOAT8_LINEAR), "block_linear_parameters": COUNT, "block_converted_parameters": COUNT},
    {"recipe": NAME, "converter": NAME},
)

COMPILE_CACHE = Obj(
    {},
    {
        "dir": Opt(STR),
        "state": Enum("cold", "warm", "partly warm"),
        "aot_autograd": MapOf(COUNT),
        "fx_graph": MapOf(COUNT),
        "graphs_from_records": COUNT,
        "records_written": COUNT,
    },
)

REPORT = Obj(
    {
        "status": STATUS,
        "config": MapOf(Any_),
        "device": Obj({"type": Opt(Enum("cpu", "cuda"))}),
        "versions": MapOf(Opt(STR)),
        "graphs": ListOf(GRAPH_ENTRY),
        "invocations": ListOf(INVOCATION),
        "saved_tensors": ListOf(SAVED_ROW),
        "findings": ListOf(FINDING),
    },
    {
        "tool": MapOf(Opt(STR)),
        "created_utc": Opt(STR),
        "finished_utc": Opt(STR),
        "command": ListOf(STR),
        "process": Opt(PROCESS),
        "mode": Enum("full", "analysis-only"),
        "policy": Opt(POLICY),
        "policy_decisions": Opt(MapOf(MapOf(COUNT))),
        "saved_totals": Opt(TOTALS),
        "memory": Opt(MEMORY),
        "graph_memory": Opt(ListOf(GRAPH_MEMORY)),
        "attribution": Opt(ATTRIBUTION),
        "timings_s": MapOf(Num(0)),
        "compile_cache": Opt(COMPILE_CACHE),
        "model": Opt(MODEL),
        "float8": Opt(FLOAT8),
        "notes": ListOf(STR),
        "distributed": Opt(DISTRIBUTED),
        "error": Opt(STR),
        "analysis_error": Opt(STR),
        "checks": ListOf(Obj({"kind": NAME, "title": STR})),
        "verdict": Opt(VERDICT),
    },
)

NODE = Obj(
    {
        "name": NAME,
        "op": Enum("placeholder", "call_function", "call_method", "call_module", "get_attr", "output"),
        "inputs": ListOf(NAME),
    },
    {
        "target": Opt(STR),
        "shape": SHAPE_,
        "dtype": Opt(NAME),
        "bytes": COUNT,
        "recompute": Opt(NAME),
        "original_aten": Opt(STR),
        "stack_trace": Opt(STR),
        "outputs": ListOf(Opt(NAME)),
        "symbolic": Bool,
        "module": Opt(STR),
        "module_type": Opt(NAME),
        "source_fn": Opt(NAME),
        "source_fn_kind": Opt(Enum("module", "function")),
        "index": Int(-(10**6), 10**6),
        "backward_work": Bool,
    },
)
GRAPH = Obj({"nodes": ListOf(NODE)}, {"graph_id": NAME})
# memprobe's record of one compile, beside AOTAutograd's cache entry (memprobe.capture.caches)
RECORD = Obj(
    {
        "key": NAME,
        "graphs": ListOf(
            Obj(
                {"kind": Enum("forward", "backward", "inference"), "nodes": ListOf(NODE), "readable": STR},
                {"output_code": Opt(STR)},
            )
        ),
        "decisions": MapOf(MapOf(COUNT)),
    },
    {"format": Int(1, 1)},
)

_SIDE = Obj(
    {"config": MapOf(Any_)},
    {
        "summary": STR,
        "device": Opt(NAME),
        "versions": Opt(MapOf(Opt(STR))),
        "status": Opt(NAME),
        "source": Opt(STR),
        "process": Opt(PROCESS),
        "env": MapOf(Opt(STR)),
    },
)
_AB = Obj({"a": Opt(SIGNED), "b": Opt(SIGNED), "delta": Opt(SIGNED)})
DIFF_ITEM = Obj(
    {
        "status": Enum(*DiffStatus),
        "expr": STR,
        "count": COUNT,
        "bytes_a": COUNT,
        "bytes_b": COUNT,
        "delta_bytes": SIGNED,
        "kind": NAME,
        "reason_kind": NAME,
    },
    {
        "shape": SHAPE_,
        "dtype": Opt(NAME),
        "reason": Opt(STR),
        "policy_op": Opt(NAME),
        "blocks": ListOf(NAME),
        "hint": Opt(STR),
        "user": Opt(USER),
        "label": Opt(STR),
        "roots": ListOf(STR),
    },
)
DIFF = Obj(
    {
        "a": _SIDE,
        "b": _SIDE,
        "items": ListOf(DIFF_ITEM),
        "totals": Obj(
            {"saved_bytes": _AB}, {"saved_runtime_bytes": _AB, "parameter_saved_bytes": _AB, "items_delta_bytes": SIGNED}
        ),
        "differences": COUNT,
        "unchanged_items": COUNT,
    },
    {
        "diff_schema_version": Int(1, 1),
        "versions_differ": MapOf(Obj({}, {"a": Opt(STR), "b": Opt(STR)})),
        "schedule": Opt(
            Obj(
                {},
                {
                    "at_once": Bool,
                    "slots": COUNT,
                    "gpus": Opt(ListOf(NAME)),
                    "shared_gpu": Bool,
                    "why": STR,
                    "needs_bytes": MapOf(Opt(COUNT)),
                    "needs_basis": MapOf(STR),
                    "free_bytes": MapOf(Opt(COUNT)),
                },
            )
        ),
        "phases": Opt(
            Obj(
                {},
                {
                    "comparable": Bool,
                    "why": STR,
                    "source": Opt(NAME),
                    "baseline": Opt(STR),
                    "phases": MapOf(MapOf(_AB)),
                    "history_dependent": ListOf(NAME),
                },
            )
        ),
        "graphs": ListOf(Obj({"graph_id": NAME, "peak_bytes": _AB, "saved_bytes": _AB})),
        "alive_at_peak": Opt(Obj({}, {"source": NAME, "phases": MapOf(MapOf(_AB)), "at_end": MapOf(MapOf(_AB))})),
        "verdict": Opt(VERDICT),
    },
)
_EDIT_ITEM = Obj(
    {"expr": STR}, {"user": Opt(USER), "count": COUNT, "kind": NAME, "bytes_a": COUNT, "bytes_b": COUNT, "delta_bytes": SIGNED}
)
EXPLAIN = Obj(
    {
        "base": Obj(
            {"config": MapOf(Any_), "saved_bytes": Opt(SIGNED), "recompute": Obj({"flops": SIGNED, "bytes_moved": SIGNED})},
            {"run": STR},
        ),
        "edits": ListOf(
            Obj(
                {"op": NAME, "bytes_saved": SIGNED},
                {
                    "edit": STR,
                    "flag": STR,
                    "recompute_flops_added": SIGNED,
                    "recompute_bytes_added": SIGNED,
                    "bytes_saved_per_flop": Num(),
                    "freed": ListOf(_EDIT_ITEM),
                    "added": ListOf(_EDIT_ITEM),
                    "run": STR,
                },
            )
        ),
        "partitioner_items": ListOf(Obj({"expr": STR}, {"block": Opt(NAME), "bytes": COUNT, "op": NAME, "fate": STR})),
    },
    {"mode": Enum("full", "analysis-only"), "verdict": Opt(VERDICT)},
)
BISECT = Obj(
    {
        "trials": ListOf(
            Obj(
                {"removed": STR, "delta_bytes": Opt(SIGNED), "exceeds": Opt(Bool), "held_a": Opt(SIGNED), "held_b": Opt(SIGNED)},
                {"pass": NAME, "a": STR, "b": STR, "runs": ListOf(STR), "modes": ListOf(Opt(NAME)), "error": Opt(STR)},
            )
        ),
        "conclusion": STR,
        "threshold_bytes": COUNT,
    },
    {
        "metric": STR,
        "necessary": ListOf(STR),
        "unnecessary": ListOf(STR),
        "not_applicable": ListOf(STR),
        "untested": ListOf(STR),
        "minimal": Obj({}, {"a": STR, "b": STR, "a_flags": ListOf(STR), "b_flags": ListOf(STR)}),
        "envs": MapOf(Any_),
        "min_delta": STR,
        "given_delta_bytes": SIGNED,
    },
)
_BASELINE_REPORT = Obj(
    {"config": MapOf(Any_)},
    {
        "device": Opt(Obj({"type": Enum("cpu", "cuda")})),
        "versions": Opt(MapOf(Opt(STR))),
        "status": Opt(NAME),
        "saved_tensors": Opt(ListOf(SAVED_ROW)),
        "saved_totals": Opt(TOTALS),
        "graph_memory": Opt(
            ListOf(Obj({"graph_id": NAME}, {"kind": Opt(NAME), "peak_bytes": Opt(SIGNED), "saved_bytes": Opt(SIGNED)}))
        ),
        "memory": Opt(Obj({}, {"source": Opt(NAME), "baseline": Opt(STR), "phases": Opt(MapOf(PHASE))})),
        "attribution": Opt(Obj({}, {"source": Opt(NAME), "phases": MapOf(Obj({"by_category_bytes": CATEGORY_BYTES}))})),
    },
)
BASELINE = Obj(
    {
        "memprobe_baseline": Int(1, 1),
        "probes": MapOf(
            Obj(
                {},
                {
                    "figures": MapOf(Opt(SIGNED)),
                    "versions": MapOf(Opt(STR)),
                    "device": Opt(NAME),
                    "created_utc": Opt(STR),
                    "report": Opt(_BASELINE_REPORT),
                },
            )
        ),
    },
)


# -- loading --------------------------------------------------------------------------------------


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number memprobe accepts")


def parse_json(text: str, where: str):
    """JSON with bounds: no NaN/Infinity, integers of at most 4300 digits (Python's limit), nesting within
    Python's recursion limit (a deeper file is refused, not a crash)."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError; so is an integer too long
        why = "nested too deep" if isinstance(e, RecursionError) else " ".join(str(e).split())[:200]
        raise RunDirError(f"{where} is not valid JSON ({why})") from None


def read_text(path: Path, where: str | None = None) -> str:
    where = where or str(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise RunDirError(f"{where}: cannot read it ({e.strerror or e})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RunDirError(f"{where} is not UTF-8 text (byte {e.start})") from None


def check(value, shape: Shape, where: str):
    try:
        return shape(value, "")
    except Invalid as e:
        raise RunDirError(f"{where}: {e}") from None


def load_json(path: Path, shape: Shape, where: str | None = None):
    """A JSON file of a known kind, parsed with bounds and checked against ``shape``."""
    where = where or str(path)
    return check(parse_json(read_text(path, where), where), shape, where)


def load_diff(path: Path) -> dict:
    return load_json(path, DIFF)


def load_explain(path: Path) -> dict:
    return load_json(path, EXPLAIN)


def load_bisect(path: Path) -> dict:
    return load_json(path, BISECT)


def inside(root: Path, rel, where: str) -> Path:
    """``root / rel`` if it stays inside ``root`` (symbolic links resolved); RunDirError otherwise."""
    if not isinstance(rel, str) or not rel or "\0" in rel:
        raise RunDirError(f"{where}: not a file name: {_show(rel)}")
    base = root.resolve()
    path = (root / rel).resolve()
    if Path(rel).is_absolute() or (path != base and base not in path.parents):
        raise RunDirError(f"{where}: {rel!r} is outside the run directory; memprobe reads only files inside it")
    return path

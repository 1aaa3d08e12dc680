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

import errno
import json
import math
import os
import stat
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
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return f"an integer of {_digits(value)} digits"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    text = json.dumps(value, ensure_ascii=True, default=str) if not isinstance(value, str) else repr(value[:40])
    return text if len(text) <= 40 else text[:37] + "..."


def _digits(n: int) -> int:
    return int(abs(n).bit_length() * 0.30103) + 1  # str() of a long integer is refused past 4,300 digits


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
        # an integer is compared as an integer: one beyond float range is out of range, not an OverflowError
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
            raise Invalid(path, f"expected a finite number{' >= 0' if lo == 0 else ''}, got {_show(v)}")
        if isinstance(v, int) and abs(v) > MAX_INT:
            raise Invalid(path, f"a number out of range ({_digits(v)} digits)")
        if v < lo:
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


def Config(v, path):
    """A recorded probe configuration: what `memprobe run` would accept (the renderers build a ProbeConfig
    from it to name it)."""
    from ..config import ProbeConfig
    from ..errors import ConfigError

    if not isinstance(v, dict):
        raise Invalid(path, f"expected an object, got {_show(v)}")
    try:
        ProbeConfig.from_dict(v).validated()
    except ConfigError as e:
        raise Invalid(path, str(e)) from None
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


def All(*shapes: Shape) -> Shape:
    """A value that fits every one of ``shapes``."""

    def check(v, path):
        for shape in shapes:
            shape(v, path)
        return v

    return check


def When(key: str, then: Shape, otherwise: Shape) -> Shape:
    """An object checked against ``then`` when its ``key`` is true (say, ``comparable``), else ``otherwise``."""

    def check(v, path):
        return (then if isinstance(v, dict) and v.get(key) is True else otherwise)(v, path)

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
        "config": Config,
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
    {"config": Config, "summary": STR},
    {
        "device": Opt(NAME),
        "versions": Opt(MapOf(Opt(STR))),
        "status": Opt(NAME),
        "source": Opt(STR),
        "process": Opt(PROCESS),
        "env": MapOf(Opt(STR)),
    },
)
_AB = Obj({"a": Opt(SIGNED), "b": Opt(SIGNED), "delta": Opt(SIGNED)})
_PHASES_NOT_COMPARED = Obj(
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
# compared: the renderers read the source and each phase's peaks
_COMPARED_PHASES = Obj(
    {"comparable": Bool, "source": Opt(NAME), "phases": MapOf(All(MapOf(_AB), Obj({"peak_bytes": _AB})))},
    {"why": STR, "baseline": Opt(STR), "history_dependent": ListOf(NAME)},
)
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
        "phases": Opt(When("comparable", _COMPARED_PHASES, _PHASES_NOT_COMPARED)),
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
            {"config": Config, "saved_bytes": Opt(SIGNED), "recompute": Obj({"flops": SIGNED, "bytes_moved": SIGNED})},
            {"run": STR},
        ),
        "edits": ListOf(
            Obj(
                {
                    "op": NAME,
                    "bytes_saved": SIGNED,
                    "edit": STR,
                    "flag": STR,
                    "recompute_flops_added": SIGNED,
                    "recompute_bytes_added": Opt(SIGNED),
                },
                {
                    "bytes_saved_per_flop": Num(),
                    "freed": ListOf(_EDIT_ITEM),
                    "added": ListOf(_EDIT_ITEM),
                    "run": STR,
                },
            )
        ),
        "partitioner_items": ListOf(Obj({"expr": STR}, {"block": Opt(NAME), "bytes": COUNT, "op": NAME, "fate": STR})),
        "mode": Enum("full", "analysis-only"),
    },
    {"verdict": Opt(VERDICT)},
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
        "minimal": Obj({"a": STR, "b": STR}, {"a_flags": ListOf(STR), "b_flags": ListOf(STR)}),
    },
    {
        "metric": STR,
        "necessary": ListOf(STR),
        "unnecessary": ListOf(STR),
        "not_applicable": ListOf(STR),
        "untested": ListOf(STR),
        "envs": MapOf(Any_),
        "min_delta": STR,
        "given_delta_bytes": SIGNED,
    },
)
SWEEP = Obj(
    {
        "config": Config,
        "points": ListOf(
            Obj(
                {"budget": Num(0)},
                {
                    "run": STR,
                    "saved_bytes": Opt(COUNT),
                    "step_peak_bytes": Opt(SIGNED),
                    "forward_end_bytes": Opt(SIGNED),
                    "source": Opt(NAME),
                },
            )
        ),
    },
    {
        "sweep_schema_version": Int(1, 1),
        "summary": STR,
        "inversions": ListOf(
            Obj(
                {
                    "metric": Enum("step_peak_bytes", "saved_bytes"),
                    "lower_budget": Num(0),
                    "higher_budget": Num(0),
                    "lower_budget_bytes": SIGNED,
                    "higher_budget_bytes": SIGNED,
                    "excess_bytes": SIGNED,
                }
            )
        ),
        "note": STR,
    },
)
_BASELINE_REPORT = Obj(
    {"config": Config},
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
    Python's recursion limit (a deeper file is refused, not a crash); then every number in range
    (:func:`check_numbers`), naming the first that is not."""
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError; so is an integer too long
        why = "nested too deep" if isinstance(e, RecursionError) else " ".join(str(e).split())[:200]
        raise RunDirError(f"{where} is not valid JSON ({why})") from None
    check_numbers(doc, where)
    return doc


def check_numbers(doc, where: str) -> None:
    """Every number in ``doc`` is one memprobe can compute with: an integer within +-2**63, a finite float
    (``1e309`` parses as infinity). RunDirError naming the first field that is not."""
    bad = out_of_range(doc)
    if bad is not None:
        raise RunDirError(f"{where}: {bad[0] or '(top level)'}: {bad[1]}")


def out_of_range(doc, *, floats: bool = True) -> tuple[str, str] | None:
    """``(field path, why)`` of the first number in ``doc`` out of range (an integer beyond +-2**63; with
    ``floats``, a float that is not finite), or None. Iterative: a deeply nested document is no crash."""
    stack = [(doc, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
        elif floats and isinstance(value, float) and not math.isfinite(value):
            return path, f"a number out of range ({value})"
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            return path, f"an integer out of range ({_digits(value)} digits; at most 2**63)"
    return None


# The most memprobe reads of each kind of file: a larger one is refused before it is read (the largest
# seen: a report.json of ~40 MB with the CPU profiler's events, a snapshot of ~0.7 GB).
MiB = 2**20
FILE_LIMITS = {
    "report": 512 * MiB,
    "graph": 256 * MiB,
    "output code": 64 * MiB,
    "result": 256 * MiB,  # diff.json, explain.json, bisect.json, sweep.json
    "baseline": 256 * MiB,
    "budget": 1 * MiB,
    "snapshot": 4096 * MiB,
}


def read_bytes(path: Path, where: str | None = None, *, kind: str, follow: bool = False) -> bytes:
    """The bytes of a regular file, at most ``FILE_LIMITS[kind]`` of them, or RunDirError in one line. The
    file is opened without blocking (a FIFO or a device is refused, never waited on) and, unless
    ``follow`` (a path the user named), not through a symbolic link."""
    where = where or str(path)
    limit = FILE_LIMITS[kind]
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP and not follow:
            raise RunDirError(f"{where} is a symbolic link; memprobe reads only the files themselves") from None
        raise RunDirError(f"{where}: cannot read it ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, socket or device)"
            raise RunDirError(f"{where} is {what}; memprobe reads only regular files")
        if st.st_size > limit:
            raise RunDirError(f"{where} is {st.st_size} bytes; memprobe reads at most {limit} for a {kind} file")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 24, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise RunDirError(
                    f"{where} grew past {limit} bytes while being read; memprobe reads at most that for a {kind} file"
                )
        return b"".join(chunks)
    except OSError as e:
        raise RunDirError(f"{where}: cannot read it ({e.strerror or e})") from None
    finally:
        os.close(fd)


def kind_of(path: Path) -> str:
    """What is at ``path``, without following a last symbolic link and without raising: "missing", "file",
    "dir", "link", "other" (a FIFO, socket or device), or "unreadable" (a directory above it denies access)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except NotADirectoryError:
        return "missing"
    except OSError:
        return "unreadable"
    if stat.S_ISLNK(mode):
        return "link"
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def check_directory(path: Path, what: str = "run directory") -> Path:
    """``path`` if it is a directory memprobe may list; RunDirError saying what it is instead. The path the
    user named may be a symbolic link to a directory."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise RunDirError(f"{what} {path} does not exist") from None
    except OSError as e:
        raise RunDirError(f"{what} {path}: cannot read it ({e.strerror or e})") from None
    if not stat.S_ISDIR(mode):
        raise RunDirError(f"{path} is not a directory" + (f" (a {what} is)" if what != "directory" else ""))
    if not os.access(path, os.R_OK | os.X_OK):
        raise RunDirError(f"{what} {path}: cannot read it (Permission denied)")
    return path


def read_text(path: Path, where: str | None = None, *, kind: str = "result", follow: bool = False) -> str:
    """A UTF-8 text file read by :func:`read_bytes`."""
    where = where or str(path)
    data = read_bytes(path, where, kind=kind, follow=follow)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RunDirError(f"{where} is not UTF-8 text (byte {e.start})") from None


def check(value, shape: Shape, where: str):
    try:
        return shape(value, "")
    except Invalid as e:
        raise RunDirError(f"{where}: {e}") from None


def load_json(path: Path, shape: Shape, where: str | None = None, *, kind: str = "result", follow: bool = False):
    """A JSON file of a known kind, parsed with bounds and checked against ``shape``."""
    where = where or str(path)
    return check(parse_json(read_text(path, where, kind=kind, follow=follow), where), shape, where)


def load_diff(path: Path) -> dict:
    return load_json(path, DIFF)


def load_explain(path: Path) -> dict:
    return load_json(path, EXPLAIN)


def load_bisect(path: Path) -> dict:
    return load_json(path, BISECT)


def load_sweep(path: Path) -> dict:
    return load_json(path, SWEEP)


def check_config(config: dict, where: str):
    """A recorded configuration as memprobe would run it; RunDirError naming the file and the bad key."""
    from ..config import ProbeConfig
    from ..errors import ConfigError

    try:
        return ProbeConfig.from_dict(config).validated()
    except ConfigError as e:
        raise RunDirError(f"{where}: {e}") from None


def inside(root: Path, rel, where: str) -> Path:
    """``root / rel`` if it stays inside ``root`` (symbolic links resolved); RunDirError otherwise."""
    if not isinstance(rel, str) or not rel or "\0" in rel:
        raise RunDirError(f"{where}: not a file name: {_show(rel)}")
    base = root.resolve()
    path = (root / rel).resolve()
    if Path(rel).is_absolute() or (path != base and base not in path.parents):
        raise RunDirError(f"{where}: {rel!r} is outside the run directory; memprobe reads only files inside it")
    return path

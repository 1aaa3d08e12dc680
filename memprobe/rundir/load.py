"""Read memprobe's files into typed records, and write records back as plain JSON data.

Every file is read with bounds and paths in it are resolved inside its directory by :mod:`.read`
(:func:`~.read.read_text`, :func:`~.read.parse_json`, :func:`~.read.inside`), then validated against its record
type (:mod:`.schema`), and what one part of a file says about another is checked (graph ids unique, rows naming
recorded graphs, nodes naming nodes). A file that does not fit is one line, :class:`~memprobe.errors.RunDirError`
(exit 2), naming the file and the field::

    run/report.json: saved_tensors[3].bytes: expected a non-negative integer, got -1
"""

from __future__ import annotations

import functools
import json
import operator
import os
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from annotated_types import Ge, Le, MaxLen
from pydantic import BaseModel, RootModel, ValidationError

from .. import SCHEMA_VERSION
from ..errors import InternalError, RunDirError
from .read import MAX_INT, check_directory, check_work, inside, kind_of, parse_json, read_text
from .schema import (
    Baseline,
    BisectResult,
    CompileRecord,
    DiffResult,
    ExplainResult,
    GpuPeaks,
    GraphEntry,
    GraphFile,
    Node,
    Record,
    Report,
    SweepResult,
    Timeline,
)

R = TypeVar("R", bound=Record)


# -- records <-> JSON data --------------------------------------------------------------------------------


def dump(record: Record) -> dict:
    """The record as JSON data (enums as their strings, tuples as lists), exactly the fields it was given:
    a file loaded and dumped again is the same file."""
    return record.model_dump(mode="json", by_alias=True, exclude_unset=True)


def as_record(model: type[R], data: Any, where: str) -> R:
    """``data`` (parsed JSON) as a ``model``, or RunDirError: ``where: field.path: what is wrong``."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise RunDirError(f"{where}: {describe_error(model, e)}") from None


def checked(model: type[R], data: Any, what: str) -> dict:
    """What memprobe is about to write, checked against its schema and returned as JSON data. A writer whose
    output does not fit its own schema is memprobe's bug: InternalError (exit 70)."""
    try:
        return dump(model.model_validate(data))
    except ValidationError as e:
        raise InternalError(f"memprobe wrote a {what} that does not fit its schema: {describe_error(model, e)}") from None


# -- loading ----------------------------------------------------------------------------------------------


def load_file(path: str | Path, model: type[R], where: str | None = None, *, kind: str = "result", follow: bool = False) -> R:
    """A JSON file of a known kind (``kind``: its size limit, :data:`~.read.FILE_LIMITS`): bounded parsing, then its
    record type. Not through a symbolic link unless ``follow`` (a path the user named)."""
    path = Path(path)
    where = where or str(path)
    return as_record(model, parse_json(read_text(path, where, kind=kind, follow=follow), where), where)


def run_dirs_inside(folder: Path, limit: int = 1000) -> list[str]:
    """The names of the folders directly inside ``folder`` (not links) that hold a report.json, sorted (a gate's, a
    diff's or a bisect's directory holds its runs so); only the first ``limit`` entries of ``folder`` are looked at."""
    names = []
    try:
        with os.scandir(folder) as entries:
            for _, entry in zip(range(limit), entries, strict=False):
                if entry.is_dir(follow_symlinks=False) and kind_of(Path(entry.path) / "report.json") == "file":
                    names.append(entry.name)
    except OSError:
        return []
    return sorted(names)


def runs_inside(folder: Path) -> str | None:
    """The hint ``name one of them: FOLDER/A, FOLDER/B, ...`` for the runs inside ``folder``
    (:func:`run_dirs_inside`), or None when it holds none."""
    names = run_dirs_inside(folder)
    if not names:
        return None
    return "name one of them: " + ", ".join(str(folder / n) for n in names[:3]) + (", ..." if len(names) > 3 else "")


def load_report(run_dir: str | Path) -> Report:
    """report.json of a run directory, typed, or RunDirError naming what is wrong. The configuration it records
    must be one memprobe can run, and its parts must agree (graph ids unique, rows naming recorded graphs)."""
    run_dir = check_directory(Path(run_dir))
    path = run_dir / "report.json"
    if kind_of(path) == "missing":
        inner = runs_inside(run_dir)
        if inner:
            raise RunDirError(f"{run_dir} holds runs, not one run (no report.json): {inner}")
        raise RunDirError(f"{run_dir} is not a memprobe run directory (no report.json)")
    where = str(path)
    data = parse_json(read_text(path, where, kind="report"), where)
    if not isinstance(data, dict) or "schema_version" not in data:
        raise RunDirError(f"{path} has no schema_version; not a memprobe report")
    version = data["schema_version"]
    if version != SCHEMA_VERSION or isinstance(version, bool):
        shown = _show(version)
        raise RunDirError(
            f"{path} has schema_version {shown if len(shown) <= 20 else shown[:17] + '...'}; "
            f"this memprobe reads version {SCHEMA_VERSION}"
        )
    _check_events(data, where)
    report = as_record(Report, data, where)
    _check_references(report, where)
    return report


def _check_events(data: dict, where: str) -> None:
    """The profiler's events, regions and ops a report holds are within the per-file bound (:func:`~.read.check_work`),
    counted before they are validated or analysed."""
    memory = data.get("memory")
    events = memory.get("events") if isinstance(memory, dict) else None
    if isinstance(events, dict):
        count = sum(len(v) for k, v in events.items() if k in ("rows", "annotations", "ops") and isinstance(v, list))
        check_work(where, "events", count, "memory events, regions and ops (memory.events)")


def _check_references(report: Report, where: str) -> None:
    """What one part of the report says about another holds: the analysis relies on it."""
    ids: set[str] = set()
    for i, g in enumerate(report.graphs):
        if g.graph_id in ids:
            raise RunDirError(f"{where}: graphs[{i}].graph_id: {g.graph_id!r} appears twice")
        ids.add(g.graph_id)
        if g.files.graph_json is None:
            raise RunDirError(f"{where}: graphs[{i}].files.graph_json: missing")
    for i, row in enumerate(report.saved_tensors):
        if ids and row.graph not in ids:
            raise RunDirError(f"{where}: saved_tensors[{i}].graph: {row.graph!r} is not a recorded graph")


def load_graph(run_dir: str | Path, entry: GraphEntry) -> GraphFile:
    """The nodes of a graph a report lists, from a file inside the run directory; every node a node names exists."""
    run_dir = Path(run_dir)
    field = f"{run_dir / 'report.json'}: graphs ({entry.graph_id}) files.graph_json"
    path = inside(run_dir, entry.files.graph_json, field)
    graph = load_file(path, GraphFile, kind="graph")
    check_node_references(graph.nodes, str(path))
    return graph


def check_node_references(nodes: list[Node], where: str) -> None:
    """Every input and output a node names is a node of the graph; RunDirError naming the first that is not."""
    names = {n.name for n in nodes}
    for i, n in enumerate(nodes):
        missing = [x for x in [*n.inputs, *(o for o in n.outputs or [] if o is not None)] if x not in names]
        if missing:
            raise RunDirError(f"{where}: nodes[{i}] ({n.name}) refers to no such node {missing[0]!r}")


def run_file(run_dir: str | Path, rel: str | None, field: str) -> Path:
    """A file a report names (output code, snapshot), resolved inside its run directory, or RunDirError."""
    run_dir = Path(run_dir)
    return inside(run_dir, rel, f"{run_dir / 'report.json'}: {field}")


def load_diff(path: str | Path) -> DiffResult:
    return load_file(path, DiffResult)


def load_explain(path: str | Path) -> ExplainResult:
    return load_file(path, ExplainResult)


def load_bisect(path: str | Path) -> BisectResult:
    return load_file(path, BisectResult)


def load_sweep(path: str | Path) -> SweepResult:
    return load_file(path, SweepResult)


TIMELINE_FILE = "timeline.json"  # a run's memory timeline, stored beside its report.json when the run is finished


def load_stored_timeline(run_dir: str | Path) -> Timeline | None:
    """The memory timeline a run stored in its directory (timeline.json); None where it stored none."""
    path = Path(run_dir) / TIMELINE_FILE
    return None if kind_of(path) == "missing" else load_file(path, Timeline)


def load_baseline(path: str | Path) -> Baseline:
    """A stored baseline: a regular file, not through a link (memprobe writes it; one from a pull request may
    point anywhere)."""
    path = Path(path)
    return load_file(path, Baseline, f"{path} (baseline)", kind="baseline")


def load_compile_record(path: str | Path, key: str) -> CompileRecord | None:
    """memprobe's record of a compile, or None when there is none or it does not fit (the graph is compiled again):
    its key is ``key``, it is a forward and its backward or one inference graph, and every node it names exists."""
    path = Path(path)
    if kind_of(path) == "missing":
        return None
    try:
        record = load_file(path, CompileRecord, kind="compile record")
        for i, graph in enumerate(record.graphs):
            check_node_references(graph.nodes, f"{path}: graphs[{i}]")
    except RunDirError:
        return None
    if sorted(g.kind for g in record.graphs) not in (["backward", "forward"], ["inference"]):
        return None
    return record if record.key == key else None


def load_gpu_peaks(path: str | Path) -> GpuPeaks | None:
    """The GPU peaks memprobe recorded on this machine: empty when there is no file, None when there is one that
    does not fit (it is left as it is)."""
    path = Path(path)
    if kind_of(path) == "missing":
        return GpuPeaks(memprobe_peaks=1, peaks={})
    try:
        return load_file(path, GpuPeaks, kind="peaks")
    except RunDirError:
        return None


# -- pydantic's errors as one line ------------------------------------------------------------------------


def _show(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def describe_error(model: type[BaseModel], error: ValidationError) -> str:
    """The first error of a validation as ``field.path: what is wrong`` (``(top level)`` for the file itself)."""
    first = error.errors(include_url=False)[0]
    loc = first["loc"]
    if first["type"] == "missing" and loc and isinstance(loc[-1], int):  # a list of fixed length, too short
        loc = loc[:-1]
    path, tp = _walk(field_type(model.model_fields["root"]) if issubclass(model, RootModel) else model, loc)
    message = _message(first, tp)
    suffix = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{path or '(top level)'}: {message}{suffix}"


def field_type(field) -> Any:
    """A record field's full type: its annotation with the constraints pydantic keeps apart (``field.metadata``)."""
    return typing.Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation


def unwrap(tp: Any) -> tuple[Any, list, bool]:
    """(the bare type, the constraints annotated on it, whether null is allowed)."""
    meta: list = []
    nullable = False
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            meta.extend(tp.__metadata__)
            tp = tp.__origin__
        elif origin in (typing.Union, types.UnionType) and type(None) in typing.get_args(tp):
            nullable = True
            rest = [a for a in typing.get_args(tp) if a is not type(None)]
            tp = functools.reduce(operator.or_, rest)
        else:
            return tp, meta, nullable


def key_text(key: Any) -> str:
    """An object's key in a field's path: ``.forward``, or ``["aten.mm.default"]`` when it holds a dot, a bracket, a
    quote, a space or a character that does not print (a path stays one line, whatever a file's keys are)."""
    key = str(key)
    if key and key.isprintable() and not any(c in key for c in " .[]'\"") and len(key) <= 80:
        return f".{key}"
    text = json.dumps(key if len(key) <= 60 else key[:57] + "...", ensure_ascii=True)
    return f"[{text}]"


def _tag(tp: Any) -> str | None:
    from pydantic import Tag

    return next((m.tag for m in unwrap(tp)[1] if isinstance(m, Tag)), None)


def _walk(model: type[BaseModel], loc: tuple) -> tuple[str, Any]:
    """Follow an error's location through the record types: (the field's path as memprobe writes it, its type)."""
    path, tp = "", model
    items = list(loc)
    while items:
        bare = unwrap(tp)[0]
        item = items.pop(0)
        path, tp, ended = _step(bare, item)(bare, item, items, path, tp)
        if ended:
            return path, tp
    return path, tp


def _step(bare: Any, item: Any):
    """How :func:`_walk` goes one step into a value of type ``bare`` (its ``item``): a function of (bare, item, the
    items left, the path so far, the type so far) that returns (the path, the type, whether the walk ends there)."""
    origin = typing.get_origin(bare)
    if isinstance(bare, type) and issubclass(bare, BaseModel):
        return _into_record
    if origin in (list, tuple) and isinstance(item, int):
        return _into_sequence
    if origin is dict:
        return _into_dict
    if origin in (typing.Union, types.UnionType):
        return _into_union
    return _into_other


def _into_record(bare: Any, item: Any, items: list, path: str, tp: Any) -> tuple[str, Any, bool]:
    field = next((f for n, f in bare.model_fields.items() if item in (n, f.alias)), None)
    if field is None:  # a field the record does not declare: a key of the file, shown as such
        return (path + key_text(item) if path else key_text(item).removeprefix(".")), None, True
    return (f"{path}.{item}" if path else str(item)), field_type(field), False


def _into_sequence(bare: Any, item: int, items: list, path: str, tp: Any) -> tuple[str, Any, bool]:
    origin, args = typing.get_origin(bare), typing.get_args(bare)
    homogeneous = origin is list or (len(args) == 2 and args[1] is Ellipsis)
    return path + f"[{item}]", args[0] if homogeneous else args[min(item, len(args) - 1)], False


def _into_dict(bare: Any, item: Any, items: list, path: str, tp: Any) -> tuple[str, Any, bool]:
    key_type, value_type = typing.get_args(bare)
    path += key_text(item) if path else key_text(item).removeprefix(".")  # a top-level key: one line too
    if items and items[0] == "[key]":
        items.pop(0)
        return path, key_type, False
    return path, value_type, False


def _into_union(bare: Any, item: Any, items: list, path: str, tp: Any) -> tuple[str, Any, bool]:
    """A tagged union: the tag names the form that failed."""
    return path, next((a for a in typing.get_args(bare) if _tag(a) == item), tp), False


def _into_other(bare: Any, item: Any, items: list, path: str, tp: Any) -> tuple[str, Any, bool]:
    return path + (f"[{item}]" if isinstance(item, int) else f".{item}"), tp, False


def bounds(meta: list) -> tuple[float | None, float | None, int | None]:
    """A type's constraints: (least value, greatest value, longest length), None where it has none."""
    lo = next((m.ge for m in meta if isinstance(m, Ge)), None)
    hi = next((m.le for m in meta if isinstance(m, Le)), None)
    return lo, hi, next((m.max_length for m in meta if isinstance(m, MaxLen)), None)


def _int_wanted(meta: list) -> str:
    lo, hi, _ = bounds(meta)
    if lo is not None and lo == hi:
        return f"expected {lo}"
    what = "a non-negative integer" if lo == 0 else "an integer"
    if lo not in (None, 0, -MAX_INT):
        what += f" from {lo}"
    return f"expected {what}" + (f" up to {hi}" if hi not in (None, MAX_INT) else "")


def _number_wanted(meta: list) -> str:
    lo, hi, _ = bounds(meta)
    within = f" from {lo:g} to {hi:g}" if lo is not None and hi is not None else f" >= {lo:g}" if lo is not None else ""
    return f"expected a finite number{within}"


def _choices(bare: Any) -> str:
    if isinstance(bare, type) and issubclass(bare, Enum):
        return ", ".join(str(m.value) for m in bare)
    return ", ".join(str(a) for a in typing.get_args(bare))


def _message(error: dict, tp: Any) -> str:
    kind = error["type"]
    got = f"got {_show(error.get('input'))}"
    bare, meta, _ = unwrap(tp)
    if kind in ("config", "path"):  # a recorded configuration `memprobe run` would refuse, a path no file has
        return error["msg"]
    if kind == "extra_forbidden":
        return "not a field of this file (written by another version of memprobe?)"
    if kind in ("missing", "too_short", "too_long") and typing.get_origin(bare) is tuple:
        return f"expected a list of {len(typing.get_args(bare))} items, {got}"
    if kind == "missing":
        return "missing"
    return _scalar_message(error, bare, meta, got) or _shape_message(kind, bare, got) or _pydantic_message(error, got)


def _scalar_message(error: dict, bare: Any, meta: list, got: str) -> str | None:
    """What a number, a string or a boolean should have been; None for another type."""
    kind = error["type"]
    if bare is int or kind.startswith("int_"):
        return f"{_int_wanted(meta)}, {got}"
    if bare is float:
        return f"{_number_wanted(meta)}, {got}"
    if kind == "string_too_long":
        limit = bounds(meta)[2] or error.get("ctx", {}).get("max_length")
        return f"a string of {len(error.get('input'))} characters (at most {limit})"
    if kind == "string_unicode":
        return "a string that is not valid Unicode (a lone surrogate)"
    if bare is str or kind == "string_type":
        return f"expected a string, {got}"
    if bare is bool or kind == "bool_type":
        return f"expected true or false, {got}"
    return None


def _shape_message(kind: str, bare: Any, got: str) -> str | None:
    """What a choice, an object, a list or a tagged union should have been; None for another kind of error."""
    if kind in ("enum", "literal_error"):
        return f"expected one of {_choices(bare)}, {got}"
    if kind in ("model_type", "model_attributes_type", "dict_type", "dataclass_type"):
        return f"expected an object, {got}"
    if kind in ("list_type", "tuple_type"):
        return f"expected a list, {got}"
    if kind.startswith("union_tag"):
        forms = [_form(a) for a in typing.get_args(bare)]
        return f"matches none of its forms ({' or '.join(forms)}), {got}"
    return None


def _pydantic_message(error: dict, got: str) -> str:
    """pydantic's own message, for an error memprobe words no better."""
    return f"{error['msg'][:1].lower()}{error['msg'][1:]}, {got}"


def _form(tp: Any) -> str:
    bare, meta, _ = unwrap(tp)
    if bare is int:
        return _int_wanted(meta).removeprefix("expected ")
    return "a string" if bare is str else getattr(bare, "__name__", str(bare))

"""The typed run-directory schema (memprobe/rundir/): every file memprobe writes fits its record, round-trips
unchanged, and a file that does not fit is refused in one line naming the field.

The strategies are derived from the records themselves (:func:`strategy`), not listed per field: a field
added to a record is generated, round-tripped and mutated here without a line of this file changing.
"""

from __future__ import annotations

import ast
import json
import math
import shutil
import subprocess
import sys
import types
import typing
from enum import Enum
from pathlib import Path

import pytest
from conftest import AA_BISECT, TINY, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, RootModel

from memprobe.errors import InternalError, RunDirError
from memprobe.rundir import as_record, checked, dump, load_file, load_graph, load_report
from memprobe.rundir import schema as S
from memprobe.rundir.load import bounds, field_type, unwrap
from memprobe.rundir.read import parse_json
from memprobe.vocab import SavedKind

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
RECORDS = sorted(  # every record of the schema: a file's, a part of one, or what a verb prints (PolicyTable: one value)
    (
        v
        for v in vars(S).values()
        if isinstance(v, type)
        and issubclass(v, (S.Record, RootModel))
        and v.__module__ == S.__name__
        and v is not S.Record
        # not pydantic's own parametrisation of a generic (PolicyTable's base), which pydantic 2.14 puts in the module
        and not v.__pydantic_generic_metadata__["origin"]
    ),
    key=lambda r: r.__name__,
)


# -- strategies from the records -------------------------------------------------------------------------


def _configs() -> st.SearchStrategy:
    """Recorded configurations: ones `memprobe run` would run (the record checks that), each field there or not."""
    from memprobe.config import ProbeConfig

    full = [ProbeConfig(recipe=recipe, ac=ac).to_dict() for recipe in ("bf16", "rowwise") for ac in ("none", "op", "budget")]
    return st.sampled_from(full).flatmap(
        lambda cfg: st.sets(st.sampled_from(sorted(cfg))).map(lambda keep: {k: v for k, v in cfg.items() if k in keep})
    )


def strategy(tp) -> st.SearchStrategy:
    """JSON data of type ``tp``: what a writer may put in the file."""
    bare, meta, nullable = unwrap(tp)
    origin = typing.get_origin(bare)
    lo, hi, size = bounds(meta)
    if bare is S.Config:
        out = _configs()
    elif bare is int:
        out = st.integers(min_value=lo, max_value=hi)
    elif bare is float:  # a number, as a float or an integer
        out = st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False) | st.integers(
            min_value=math.ceil(lo) if lo is not None else -(10**6), max_value=math.floor(hi) if hi is not None else 10**6
        )
    elif bare is str and any(type(m).__name__ == "AfterValidator" for m in meta):  # a path: no NUL byte in it
        out = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=min(size or 20, 20))
    elif bare is str:
        out = st.text(max_size=min(size or 20, 20))
    elif bare is bool:
        out = st.booleans()
    elif isinstance(bare, type) and issubclass(bare, Enum):
        out = st.sampled_from([m.value for m in bare])
    elif isinstance(bare, type) and issubclass(bare, RootModel):  # the document is one value
        out = strategy(field_type(bare.model_fields["root"]))
    elif isinstance(bare, type) and issubclass(bare, BaseModel):
        required = {f.alias or n: strategy(field_type(f)) for n, f in bare.model_fields.items() if f.is_required()}
        optional = {f.alias or n: strategy(field_type(f)) for n, f in bare.model_fields.items() if not f.is_required()}
        out = st.fixed_dictionaries(required, optional=optional)
    elif origin is list:
        out = st.lists(strategy(typing.get_args(bare)[0]), max_size=3)
    elif origin is tuple:
        out = st.tuples(*(strategy(a) for a in typing.get_args(bare))).map(list)
    elif origin is dict:
        key, value = typing.get_args(bare)
        out = st.dictionaries(strategy(key), strategy(value), max_size=3)
    elif origin is typing.Literal:
        out = st.sampled_from(typing.get_args(bare))
    elif origin in (typing.Union, types.UnionType):
        out = st.one_of(*(strategy(a) for a in typing.get_args(bare)))
    else:
        raise AssertionError(f"no strategy for {bare!r}")
    return (st.none() | out) if nullable else out


def leaves(tp, data, keys=(), path=""):
    """(keys into ``data``, the path an error names, the leaf's bare type, its constraints) for each scalar."""
    bare, meta, _ = unwrap(tp)
    origin = typing.get_origin(bare)
    if data is None:
        return
    if isinstance(bare, type) and issubclass(bare, RootModel):
        yield from leaves(field_type(bare.model_fields["root"]), data, keys, path)
    elif isinstance(bare, type) and issubclass(bare, BaseModel):
        for name, f in bare.model_fields.items():
            key = f.alias or name
            if key in data:
                yield from leaves(field_type(f), data[key], (*keys, key), f"{path}.{key}" if path else key)
    elif origin in (list, tuple):
        args = typing.get_args(bare)
        for i, x in enumerate(data):
            yield from leaves(args[0] if origin is list else args[i], x, (*keys, i), f"{path}[{i}]")
    elif origin is dict:
        for k, x in data.items():
            odd = not k or not k.isprintable() or any(c in k for c in " .[]'\"")
            shown = f".{k}" if k.isalnum() else f"[{json.dumps(k)}]" if odd and len(k) <= 60 else None
            if shown is not None:  # (other keys: written as they are, or shortened)
                yield from leaves(typing.get_args(bare)[1], x, (*keys, k), path + shown if path else shown.removeprefix("."))
    elif bare in (int, float, str, bool):
        yield keys, path, bare, meta


def _set(data, keys, value):
    for k in keys[:-1]:
        data = data[k]
    data[keys[-1]] = value


def _roundtrip(model, data):
    text = json.dumps(data)
    record = as_record(model, parse_json(text, "x.json"), "x.json")
    again = dump(record)
    assert again == data
    assert json.loads(json.dumps(again)) == data
    assert as_record(model, again, "x.json") == record  # A/A: the same file read twice is the same record


# -- round trips ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", RECORDS, ids=lambda m: m.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_record_round_trips_through_json(model, data):
    _roundtrip(model, data.draw(strategy(model)))


def test_every_file_kind_has_a_record_and_every_record_is_in_a_file():
    from memprobe.rundir.mirror import reachable_records

    reachable = reachable_records(model for model, _writer in [*S.FILES.values(), *S.OUTPUTS.values()])
    assert reachable == set(RECORDS)  # no record that no file or printed result uses
    assert {name for name in S.FILES} >= {"report.json", "diff.json", "explain.json", "bisect.json", "sweep.json"}


def test_every_field_is_documented():
    for model in RECORDS:
        assert model.__doc__, model
        for name, f in model.model_fields.items():
            assert f.description, f"{model.__name__}.{name} has no description"


# -- strictness, in one line ----------------------------------------------------------------------------


def _report_data() -> dict:
    return json.loads((DATA / "cuda" / "rowwise-legacy" / "report.json").read_text())


@pytest.mark.parametrize(
    "keys, value, message",
    [
        (("saved_tensors", 3, "bytes"), -1, "saved_tensors[3].bytes: expected a non-negative integer, got -1"),
        (("saved_tensors", 3, "bytes"), True, "saved_tensors[3].bytes: expected a non-negative integer, got true"),
        (("saved_tensors", 3, "bytes"), 2**63 + 1, "saved_tensors[3].bytes: expected a non-negative integer, got 9223372036854775809"),
        (("saved_tensors", 3, "shape"), [2, 1.5], "saved_tensors[3].shape[1]: matches none of its forms (a non-negative integer or a string), got 1.5"),
        (("saved_tensors", 3, "kind"), "odd", f"saved_tensors[3].kind: expected one of {', '.join(SavedKind)}, got 'odd'"),
        (("saved_tensors", 3, "cost"), 1, "saved_tensors[3].cost: not a field of this file"),
        (("saved_tensors", 3, "a\nb"), 1, 'saved_tensors[3]["a\\nb"]: not a field of this file'),
        (("memory", "phases", "forward", "peak_bytes"), 1.0, "memory.phases.forward.peak_bytes: expected an integer, got 1.0"),
        (("memory", "phases", "forward", "peak_bytes"), math.nan, "memory.phases.forward.peak_bytes: expected an integer, got NaN"),
        (("timings_s", "total"), math.inf, "timings_s.total: expected a finite number >= 0, got Infinity"),
        (("timings_s", "total"), False, "timings_s.total: expected a finite number >= 0, got false"),
        (("graph_memory", 0, "curve", 0), [1], "graph_memory[0].curve[0]: expected a list of 2 items, got [1]"),
        (("graphs", 0, "files", "graph_json"), "g" * 5000, "graphs[0].files.graph_json: a string of 5000 characters (at most 4096)"),
        (("findings", 0, "message"), "\udcff", "findings[0].message: a string that is not valid Unicode (a lone surrogate)"),
        (("attribution", "by_category_bytes", "mystery"), 1, "attribution.by_category_bytes.mystery: expected one of saved-for-backward,"),
        (("status",), None, "status: expected one of running, complete, failed, interrupted, oom, got null"),
        (("config", "steps"), 2**40, "config.steps: expected an integer from -2147483647 up to 2147483647, got 1099511627776"),
        (("invocations",), {}, "invocations: expected a list, got {}"),
        (("device",), [], "device: expected an object, got []"),
    ],
)  # fmt: skip
def test_a_report_that_does_not_fit_is_one_line_naming_the_field(keys, value, message):
    data = _report_data()
    _set(data, keys, value)
    with pytest.raises(RunDirError) as e:
        as_record(S.Report, data, "X/report.json")
    text = str(e.value)
    assert "\n" not in text and e.value.exit_code == 2
    assert text.startswith(f"X/report.json: {message}"), text


def test_a_missing_field_and_a_top_level_that_is_not_an_object():
    data = _report_data()
    del data["saved_tensors"][2]["name"]
    with pytest.raises(RunDirError, match=r"^X: saved_tensors\[2\]\.name: missing$"):
        as_record(S.Report, data, "X")
    with pytest.raises(RunDirError, match=r"^X: \(top level\): expected an object, got \[\]$"):
        as_record(S.Report, [], "X")


@pytest.mark.parametrize("model", RECORDS, ids=lambda m: m.__name__)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_scalar_refuses_what_is_not_its_type(model, data):
    """Any integer field refuses true and a number beyond its bound, any number NaN and true, any string a lone
    surrogate: refused by name, in one line."""
    doc = data.draw(strategy(model))
    targets = list(leaves(model, doc))
    if not targets:
        return
    keys, path, bare, meta = data.draw(st.sampled_from(targets))
    lo, hi, size = bounds(meta)
    wrong = {
        int: [True, 1.5, (hi or 0) + 1, (lo or 0) - 1 if lo is not None else None],
        float: [math.nan, True, "1"],
        str: ["\ud800", 3],
        bool: [0, "true"],
    }[bare]
    value = data.draw(st.sampled_from([w for w in wrong if w is not None]))
    _set(doc, keys, value)
    with pytest.raises(RunDirError) as e:
        as_record(model, doc, "F")
    assert str(e.value).startswith(f"F: {path or '(top level)'}: "), (str(e.value), path)
    assert "\n" not in str(e.value)


def test_nan_in_the_text_is_refused_before_the_schema(tmp_path):
    text = (DATA / "cuda" / "bisect-h200.json").read_text().replace('"threshold_bytes": 1048576', '"threshold_bytes": NaN')
    (tmp_path / "bisect.json").write_text(text)
    with pytest.raises(RunDirError, match=r"bisect.json is not valid JSON \(NaN is not a number memprobe accepts\)"):
        load_file(tmp_path / "bisect.json", S.BisectResult)


def test_what_memprobe_writes_is_checked_as_its_bug():
    good = json.loads((DATA / "cuda" / "bisect-h200.json").read_text())
    assert checked(S.BisectResult, good, "bisect.json") == good
    good["trials"][0]["exceeds"] = "yes"
    with pytest.raises(InternalError, match=r"memprobe wrote a bisect.json that does not fit its schema: trials\[0\]\.exceeds"):
        checked(S.BisectResult, good, "bisect.json")


# -- the loader's checks beyond the records --------------------------------------------------------------


def _copy_run(tmp_path: Path) -> Path:
    import shutil

    dst = tmp_path / "run"
    shutil.copytree(DATA / "cuda" / "rowwise-legacy", dst)
    return dst


def _edit(run: Path, edit) -> None:
    data = json.loads((run / "report.json").read_text())
    edit(data)
    (run / "report.json").write_text(json.dumps(data))


def test_the_loader_refuses_other_versions_bad_configs_and_dangling_references(tmp_path):
    run = _copy_run(tmp_path)
    _edit(run, lambda d: d.update(schema_version=2))
    with pytest.raises(RunDirError, match="has schema_version 2; this memprobe reads version 1"):
        load_report(run)
    _edit(run, lambda d: d.update(schema_version=1) or d["config"].update(dim=250))  # float8 needs multiples of 16
    with pytest.raises(RunDirError, match=r"report.json: config: float8 recipe 'rowwise' needs multiples of 16"):
        load_report(run)
    _edit(run, lambda d: d["config"].update(dim=256) or d["graphs"].append(dict(d["graphs"][0])))
    with pytest.raises(RunDirError, match=r"graphs\[4\]\.graph_id: 'g0.forward' appears twice"):
        load_report(run)
    _edit(run, lambda d: d["graphs"].pop() and d["saved_tensors"][0].update(graph="g9.forward"))
    with pytest.raises(RunDirError, match=r"saved_tensors\[0\]\.graph: 'g9.forward' is not a recorded graph"):
        load_report(run)


def test_a_graph_file_outside_the_run_directory_is_refused(tmp_path):
    run = _copy_run(tmp_path)
    (tmp_path / "elsewhere.json").write_text(json.dumps({"nodes": []}))
    _edit(run, lambda d: d["graphs"][0]["files"].update(graph_json="../elsewhere.json"))
    report = load_report(run)
    with pytest.raises(RunDirError, match="is outside the run directory"):
        load_graph(run, report.graphs[0])


def test_a_node_naming_no_node_is_refused(tmp_path):
    run = _copy_run(tmp_path)
    path = run / "graphs" / "g0.forward.json"
    doc = json.loads(path.read_text())
    doc["nodes"][3]["inputs"] = ["nowhere"]
    path.write_text(json.dumps(doc))
    with pytest.raises(RunDirError, match=r"nodes\[3\] \(.*\) refers to no such node 'nowhere'"):
        load_graph(run, load_report(run).graphs[0])


# -- every file memprobe wrote fits, and round-trips unchanged -------------------------------------------


def _file_model(path: Path):
    if path.parent.name == "graphs" and path.suffix == ".json":
        return S.GraphFile
    return next((model for name, (model, _) in S.FILES.items() if name == path.name), None)


# committed run directories that keep their report.json alone (tests/data/README.md): the diff page's two sides
GRAPHS_DROPPED = {DATA / "cpu" / "diff-tiny" / "a", DATA / "cpu" / "diff-tiny" / "b"}


def _check_every_file_under(root: Path) -> int:
    """Every JSON file memprobe wrote under ``root`` loads as its record and dumps back to the same data; returns
    how many there were."""
    seen = 0
    for path in sorted(root.rglob("*.json")):
        model = _file_model(path)
        if model is None:
            continue
        expected = json.loads(path.read_text())
        record = load_report(path.parent) if model is S.Report else load_file(path, model)
        assert dump(record) == expected, path
        if model is S.Report and path.parent not in GRAPHS_DROPPED:
            for entry in record.graphs:
                assert dump(load_graph(path.parent, entry)) == json.loads((path.parent / entry.files.graph_json).read_text())
        seen += 1
    return seen


def test_every_committed_file_fits_its_record():
    # three CUDA runs (a report and four graphs each), two CPU runs of one graph (two files each), the two sides of a
    # version diff (a report and four graphs each), a diff of two CPU runs (its diff.json and each side's report), a
    # model's own checkpointing on torch 2.11 (a report and four graphs)
    assert _check_every_file_under(DATA) == 39
    bisect = DATA / "cuda" / "bisect-h200.json"
    assert dump(load_file(bisect, S.BisectResult)) == json.loads(bisect.read_text())
    baseline = ROOT / "memprobe-baseline.json"
    assert dump(load_file(baseline, S.Baseline)) == json.loads(baseline.read_text())


@pytest.fixture(scope="module")
def written(tmp_path_factory, runs, made):
    """What this memprobe writes, at the smallest dimensions that still compile real graphs: a run, an explain of
    it, a sweep of two memory budgets, a diff of the sweep's two runs, an A/A bisect (the run and the bisect are the
    session's, made once for every file that reads them, and copied here)."""
    root = tmp_path_factory.mktemp("written")
    shutil.copytree(runs(*TINY).path, root / "run")
    shutil.copytree(made(*AA_BISECT).path, root / "bisect")
    steps = [
        ("explain", root / "run", "--out", root / "explain"),
        ("sweep", "--recipe", "bf16", *TINY, "--budgets", "0,1", "--out", root / "sweep"),
        ("diff", root / "sweep" / "budget-0", root / "sweep" / "budget-1", "--out", root / "diff"),
    ]
    for args in steps:
        proc = run_cli(*args, "-q")
        assert proc.returncode == 0, (args[0], proc.stderr[-3000:])
    return root


@pytest.mark.e2e
def test_every_file_a_fresh_run_writes_fits_its_record(written):
    kinds = {p.name for p in written.rglob("*.json")}
    assert {"report.json", "diff.json", "explain.json", "bisect.json", "sweep.json"} <= kinds
    # the run, the explain's edited run, two sweep points, two bisect runs: each a report and its graphs
    assert _check_every_file_under(written) >= 6 + 4 * 2


@pytest.mark.e2e
def test_a_fresh_report_uses_the_vocabularies(written):
    report = load_report(written / "run")
    assert report.status == "complete" and report.mode == "full" and report.device.type == "cpu"
    assert {g.kind for g in report.graphs} == {"forward", "backward"}
    assert set(report.memory.phases) == {"forward", "backward", "optimizer"}
    assert all(isinstance(row.kind, Enum) for row in report.saved_tensors)


# -- the schema's own house ------------------------------------------------------------------------------


def test_the_committed_schema_document_is_the_generated_one():
    from memprobe.rundir.docs import render

    committed = (ROOT / "docs" / "report-schema.md").read_text()
    assert committed == render(), "docs/report-schema.md is stale: python -m memprobe.rundir.docs > docs/report-schema.md"


def test_the_committed_mirror_is_the_generated_one():
    from memprobe.rundir.mirror import render

    committed = (ROOT / "memprobe" / "rundir" / "records.py").read_text()
    assert committed == render(), (
        "memprobe/rundir/records.py is stale: python -m memprobe.rundir.mirror > memprobe/rundir/records.py"
    )


def test_the_mirror_imports_the_standard_library_and_memprobes_own_modules_only():
    """A probe's process may run in an interpreter with torch and not memprobe's dependencies: importing the mirror
    (the vocabularies it names: memprobe.vocab's and the model families' registry) loads nothing else."""
    code = (
        "import sys; before = set(sys.modules); import memprobe.rundir.records; "
        "print(sorted({m.split('.')[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names) - {'memprobe'}))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", (proc.stdout, proc.stderr[-2000:])


def _mirrored() -> list:
    from memprobe.rundir.mirror import mirrored

    return mirrored()


@pytest.mark.parametrize("model", _mirrored(), ids=lambda m: m.__name__)
def test_each_mirrored_record_has_its_records_fields(model):
    from dataclasses import MISSING, fields

    from memprobe.rundir import records as R

    mirror = getattr(R, model.__name__)
    assert [f.name for f in fields(mirror)] == list(model.model_fields)
    required = {f.name for f in fields(mirror) if f.default is MISSING}
    assert required == {n for n, f in model.model_fields.items() if f.is_required()}


@pytest.mark.parametrize("model", _mirrored(), ids=lambda m: m.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_each_mirrored_record_round_trips_as_the_schema_dumps_it(model, data):
    """What a probe builds from JSON data (``from_data``) and writes again (``to_data``) is that data, field for field
    and in the order the schema's own dump gives; it fits the schema as it is written."""
    from memprobe.rundir import records as R
    from memprobe.rundir.write import record_data

    written = data.draw(strategy(model))
    record = R.from_data(getattr(R, model.__name__), written)
    again = record_data(record)
    assert again == written
    assert _key_order(again) == _key_order(dump(model.model_validate(written)))


def _key_order(data) -> list:
    """Every object's keys, in order, depth first."""
    if isinstance(data, dict):
        return [list(data), *(_key_order(v) for v in data.values())]
    return [_key_order(v) for v in data] if isinstance(data, list) else []


def test_a_record_a_probe_writes_that_does_not_fit_fails_where_it_is_written():
    from memprobe.rundir import records as R
    from memprobe.rundir.write import record_data

    graph = R.GraphFile(graph_id="g0.forward", nodes=[R.Node(name="mm", op="call_function", inputs=[])])
    assert record_data(graph) == {"graph_id": "g0.forward", "nodes": [{"name": "mm", "op": "call_function", "inputs": []}]}
    graph.nodes[0].bytes = -1
    with pytest.raises(InternalError, match=r"memprobe wrote a GraphFile that does not fit its schema: nodes\[0\]\.bytes"):
        record_data(graph)
    with pytest.raises(TypeError, match="inputs"):
        R.Node(name="mm", op="call_function")  # a required field: at construction
    node = R.Node(name="mm", op="call_function", inputs=[], shape=None)
    assert R.to_data(node) == {"name": "mm", "op": "call_function", "inputs": [], "shape": None}  # given null: written


def test_importing_the_schema_imports_no_torch():
    code = "import sys, memprobe.rundir, memprobe.rundir.schema, memprobe.rundir.docs; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"


def test_the_configuration_record_is_probe_config_and_its_vocabularies_are_configs():
    from dataclasses import fields

    from memprobe import config
    from memprobe.vocab import AcMode, DeviceChoice, Recipe

    assert list(S.Config.model_fields) == [f.name for f in fields(config.ProbeConfig)]
    assert tuple(Recipe) == config.RECIPES and tuple(AcMode) == config.AC_MODES
    assert tuple(DeviceChoice) == config.DEVICES
    with pytest.raises(ValueError, match="unknown --repro 'nothing'"):  # the registry's words, checked as made
        S.Config.model_validate({"repro": "nothing"})


def test_the_phases_are_the_meters():
    """The meters measure the vocabulary's phases, and the training step names them by it: no phase is spelled out in
    capture/ (memory.py and step.py import torch: their source is read)."""
    from memprobe.vocab import Phase, PhaseEdge

    tree = ast.parse((ROOT / "memprobe" / "capture" / "memory.py").read_text())
    phases = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PHASES" for t in node.targets)
    )
    assert ast.unparse(phases) == "tuple(Phase)"
    words = {str(p) for p in Phase} | {str(e) for e in PhaseEdge}
    for name in ("memory.py", "step.py", "runner.py"):
        source = ast.parse((ROOT / "memprobe" / "capture" / name).read_text())
        spelled = [n.value for n in ast.walk(source) if isinstance(n, ast.Constant) and n.value in words]
        assert not spelled, (name, spelled)


def _optional(node: ast.Try) -> bool:
    """A ``try`` whose handler catches ImportError: what it imports is used when it is there, done without when not."""
    names = {"ImportError", "ModuleNotFoundError"}
    return any(
        isinstance(h.type, ast.Name)
        and h.type.id in names
        or isinstance(h.type, ast.Tuple)
        and any(isinstance(e, ast.Name) and e.id in names for e in h.type.elts)
        for h in node.handlers
    )


def _imports(tree: ast.AST, package: str) -> set[str]:
    """The modules a module imports wherever it imports them (in a function too), optional imports apart."""
    out: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Try) and _optional(node):
            stack.extend(node.handlers + node.orelse + node.finalbody)
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
        stack.extend(ast.iter_child_nodes(node))
    return out


# dict literals in capture/ whose keys happen to be a record's fields and that are no record: the fork server's
# answers on its socket ({"pid": N}, {"status": {...}}), and target.describe() (report.json's `model`, made a ModelShape
# by the runner with from_data; target.py is another change's to rewrite)
_NOT_RECORDS = {("forkserver.py", ("pid",)), ("forkserver.py", ("status",))}


def test_capture_builds_records_never_report_dicts():
    """A probe writes what it built as a record of the mirror (rundir/records.py), so a key the schema does not
    declare fails where it is written: no dict literal in capture/ has only a record's fields as its keys."""
    from dataclasses import fields

    from memprobe.rundir import records as R

    declared = [
        {f.name for f in fields(r)}
        for r in vars(R).values()
        if isinstance(r, type) and issubclass(r, R.Record) and r is not R.Record
    ]
    found = set()
    for path in sorted((ROOT / "memprobe" / "capture").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) for k in node.keys):
                keys = tuple(sorted(str(k.value) for k in node.keys))
                if any(set(keys) <= names for names in declared):
                    found.add((path.name, keys))
    assert found <= _NOT_RECORDS, sorted(found - _NOT_RECORDS)


def test_a_probes_process_needs_no_pydantic():
    """A probe's process may run in another environment, with torch but not memprobe's other dependencies: nothing it
    imports (at the top or inside a function) needs the schema or pydantic, and it analyses nothing: it records, and
    the process that reads its run directory validates and analyses it. (Its compile records are read with the schema
    when pydantic is there: an optional import.)"""
    modules = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
        for p in (ROOT / "memprobe").rglob("*.py")
    }
    seen: set[str] = set()
    todo = ["memprobe.capture.child", "memprobe.capture.rank_main"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = modules[name]
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = _imports(ast.parse(path.read_text()), package)
        needs_schema = [
            m for m in found if m == "pydantic" or m.startswith(("pydantic.", "memprobe.rundir.schema", "memprobe.rundir.load"))
        ]
        assert not needs_schema, (name, needs_schema)
        todo += [m for m in found if m in modules]
    assert "memprobe.capture.runner" in seen and "memprobe.rundir.read" in seen  # the closure is the real one
    analysing = sorted(m for m in seen if m.startswith("memprobe.analysis.") and m != "memprobe.analysis.frames")
    assert not analysing, analysing

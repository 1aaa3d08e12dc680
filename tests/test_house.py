"""The house: thin verbs, no import circle, one vocabulary, errors through one door, flags declared once, and the
bugs the code review found (each test here failed before its fix)."""

from __future__ import annotations

import ast
import json
from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import AA_BISECT, TINY, invoke

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "memprobe"


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = p
    return out


def _imports(name: str, path: Path, mods: dict) -> list[tuple[str, list[str]]]:
    """(module imported, names taken) for every import in the file, nested ones included."""
    out = []
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".")
                base = parts[: len(parts) - node.level + (1 if is_pkg else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.append((sub if sub in mods else target, [alias.name]))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
    return out


def test_no_import_circle_between_modules():
    mods = _modules()
    graph = {m: {t for t, _ in _imports(m, p, mods) if t in mods and t != m} for m, p in mods.items()}
    state: dict[str, int] = {}

    def visit(m, path):
        state[m] = 1
        for n in graph[m]:
            if state.get(n) == 1:
                raise AssertionError("import circle: " + " -> ".join(path + [n]))
            if n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])


def test_no_module_reaches_into_another_modules_private_names():
    mods = _modules()
    private = [
        (m, t, names)
        for m, p in mods.items()
        for t, names in _imports(m, p, mods)
        if t in mods and t != m and any(n.startswith("_") and not n.startswith("__") for n in names)
    ]
    assert not private, private


def _verb_functions(tree: ast.Module):
    """The functions of a cli module that are commands (decorated with ``click.command``)."""
    for f in tree.body:
        if isinstance(f, ast.FunctionDef) and any("command" in ast.unparse(d) for d in f.decorator_list):
            yield f


def test_verbs_read_at_a_glance():
    """A verb parses, calls one function of the orchestration or analysis, renders: no verb holds the work, and no
    module of the command line is longer than a screenful or two."""
    from memprobe.cli.main import cli

    verbs = 0
    for path in (PKG / "cli").glob("*.py"):
        assert len(path.read_text().splitlines()) <= 160, path.name
        for f in _verb_functions(ast.parse(path.read_text())):
            verbs += 1
            body = f.body[1:] if ast.get_docstring(f) else f.body
            statements = sum(1 for b in body for node in ast.walk(b) if isinstance(node, ast.stmt))
            assert statements <= 20, (path.name, f.name, statements)
    assert verbs == len(cli.commands)  # every verb was looked at


def test_one_module_per_verb():
    """Each verb is the command of its own module, named after it: cli/gate.py holds `memprobe gate` only."""
    from memprobe.cli.main import cli

    for name, command in cli.commands.items():
        assert command.callback.__module__ == f"memprobe.cli.{name}", (name, command.callback.__module__)
    for path in (PKG / "cli").glob("*.py"):
        assert len(list(_verb_functions(ast.parse(path.read_text())))) <= 1, path.name


# layer -> the layers it must not import (nested imports too): arrows point down only
_ABOVE = ("memprobe.cli", "memprobe.mcp", "memprobe.orchestrate", "memprobe.verbs")
_LAYERS = ("memprobe.analysis", "memprobe.capture", "memprobe.report") + _ABOVE
NOT_IMPORTED_BY = {
    "memprobe.analysis": _ABOVE,
    "memprobe.capture": _ABOVE + ("memprobe.report",),
    "memprobe.report": _ABOVE,
    # the run directory's records, reads and atomic writes: below every layer that writes or reads one
    "memprobe.rundir": _LAYERS,
    # the helpers every layer shares sit below all of them
    **{m: _LAYERS for m in ("memprobe.progress", "memprobe.text", "memprobe.units", "memprobe.errors", "memprobe.vocab")},
}


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_imports_point_down_only():
    mods = _modules()
    wrong = set()
    for m, p in mods.items():
        for layer, banned in NOT_IMPORTED_BY.items():
            if _in(m, layer):
                wrong |= {(m, t) for t, _ in _imports(m, p, mods) if any(_in(t, b) for b in banned)}
        if _in(m, "memprobe.report"):  # report renders what was recorded: it runs nothing
            wrong |= {(m, t) for t, _ in _imports(m, p, mods) if _in(t, "memprobe.capture")}
    assert not wrong, sorted(wrong)


def test_the_vocabulary_is_defined_once():
    from memprobe.vocab import Category, DiffStatus, FindingKind, SavedKind, Verdict

    source = "\n".join(p.read_text() for p in PKG.rglob("*.py") if p.name != "vocab.py")
    for enum in (SavedKind, Category, FindingKind, DiffStatus, Verdict):
        for member in enum:
            if member.value in ("other", "parameter", "buffer", "activation", "PASS", "FAIL", "SKIP"):
                continue  # also ordinary words in messages
            assert f'"{member.value}"' not in source, f"{enum.__name__}.{member.name} spelled out"


def test_every_flag_is_declared_once_and_documented():
    """ProbeConfig's fields are the flags of `memprobe run` (with their help), of the repros' standalone
    entry points, and docs/cli.md (the CLI reference) lists them."""
    from memprobe.config import ProbeConfig
    from repros.common import standalone_args

    help_text = invoke("run", "--help").stdout
    reference = (ROOT / "docs" / "cli.md").read_text()
    standalone = standalone_args("x").format_help()
    for f in fields(ProbeConfig):
        flag = f.metadata.get("flag", "--" + f.name.replace("_", "-"))
        assert flag in help_text and flag in reference, flag
        if f.name in ("recipe", "dim", "hidden", "layers", "batch", "seq", "steps", "ac", "ac_policy"):
            assert flag in standalone and f"[default: {f.default}]" in " ".join(standalone.split()), flag


def test_an_explicit_steps_3_is_kept_by_bisect(made):
    """bisect used to change --steps 3 (the old default) to 2."""
    bisect = made(*AA_BISECT)
    assert "--steps" in AA_BISECT and AA_BISECT[AA_BISECT.index("--steps") + 1] == "3"
    assert json.loads((bisect.path / "run0" / "report.json").read_text())["config"]["steps"] == 3


def test_errors_carry_their_exit_code_from_construction():
    from memprobe.errors import Interrupted, RunFailed

    assert Interrupted("x", exit_code=143).exit_code == 143 and Interrupted("y").exit_code == 130
    assert RunFailed("z").exit_code == 3 and Interrupted.exit_code == 130


def test_debug_is_the_groups_and_a_quoted_value_is_not_it(tmp_path):
    missing = tmp_path / "missing"
    for args in (["--debug", "show", missing], ["show", missing, "--debug"]):
        proc = invoke(*args)
        assert proc.returncode == 1 or "Traceback" in proc.stderr, proc.stderr  # the traceback, not one line
    proc = invoke("diff", "bf16", "bf16", "--a", "--debug", "--out", tmp_path / "x")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_a_models_own_traceback_is_kept_as_the_cause(tmp_path):
    model = tmp_path / "broken.py"
    model.write_text("def helper():\n    return 1 / 0\n\nVALUE = helper()\n")
    proc = invoke(
        "--debug", "run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", tmp_path / "r", "-q"
    )
    assert proc.returncode != 0 and "ZeroDivisionError" in proc.stderr and f'"{model}", line 2' in proc.stderr


@pytest.mark.e2e
def test_an_analysis_bug_after_a_good_step_is_an_internal_error(tmp_path, monkeypatch):
    from memprobe.analysis import run as analysis
    from memprobe.cli.main import cli

    def broken(*a, **k):
        raise KeyError("simulated bug in the simulator")

    monkeypatch.setattr(analysis, "simulate_run", broken)
    out = tmp_path / "r"
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "--recipe",
            "bf16",
            *TINY,
            "--out",
            str(out),
            "-q",
        ],
    )
    assert result.exit_code == 70, result.output
    assert "internal error" in result.output and "analysing the recorded run failed" in result.output
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "failed" and "simulated bug" in report["error"]


def test_explain_says_what_to_run_instead_for_a_memory_budget_before_running_anything(tmp_path):
    proc = invoke("explain", "--ac", "memory-budget", "--out", tmp_path / "e")
    assert proc.returncode == 2 and "`memprobe sweep` probes the budgets" in proc.stderr and not (tmp_path / "e").exists()
    assert proc.stderr.count("\n") == 1


def test_budget_names_a_user_model_after_its_file():
    from memprobe.cli.budget import default_probe_name
    from memprobe.config import ProbeConfig

    assert default_probe_name(ProbeConfig(model="tests/models/mixer.py:build", recipe="rowwise")) == "mixer-rowwise"
    assert default_probe_name(ProbeConfig(repro="transformer", recipe="bf16")) == "transformer-bf16"


def test_symbolic_sizes_neither_crash_nor_count_as_zero():
    import torch

    from memprobe.analysis.saved import classify, numel
    from memprobe.capture.compile_hooks import GraphCapture
    from memprobe.rundir import schema as S

    assert numel(["s0", 3]) is None and numel([2, 3]) == 6 and numel([]) == 1
    node = S.Node(name="mm", op="call_function", inputs=[], shape=["s0", 3])
    assert classify(node, {"parameter"}) == "weight-derived"
    capture = GraphCapture(codegen=False)
    fn = torch.compile(lambda x, w: (x @ w).relu().sum(), backend=capture, dynamic=True)
    x, w = torch.randn(8, 4), torch.randn(4, 4, requires_grad=True)
    fn(x, w).backward()
    mm = next(n for g in capture.dynamo_graphs for a in g.aot for n in a.nodes if n.name == "mm")
    assert mm.symbolic and any(isinstance(d, str) for d in mm.shape) and mm.bytes == 8 * 4 * 4


def test_the_snapshot_cache_lives_apart_from_the_data_and_knows_what_it_searched_for():
    import pickle

    from memprobe.analysis.snapshot import Snapshot, _markers, replay

    data = pickle.loads((ROOT / "tests" / "data" / "cuda" / "bf16-legacy" / "snapshot.pickle").read_bytes())
    plain = {"segments": data["segments"], "device_traces": data["device_traces"]}
    replay(plain)
    assert set(plain) == {"segments", "device_traces"}  # the caller's dict is not written into
    snap = Snapshot(plain)
    few = _markers(snap, None, expected=2)
    every = _markers(snap, None)
    assert len(few) == 2 and len(every) >= len(few)  # not the partial search's answer


@pytest.mark.e2e
def test_the_saved_table_exports_to_csv_through_pandas(runs, tmp_path):
    from conftest import LEGACY_ROWWISE

    run = runs(*LEGACY_ROWWISE)
    csv = tmp_path / "saved.csv"
    assert invoke("show", run.path, "--csv", csv).returncode == 0
    import pandas as pd

    frame = pd.read_csv(csv)
    assert len(frame) == len(run.report["saved_tensors"]) and frame["bytes"].sum() == sum(
        r["bytes"] for r in run.report["saved_tensors"]
    )
    assert set(frame["kind"]) >= {"weight-derived", "activation", "parameter"}

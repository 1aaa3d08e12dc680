"""The house: thin verbs, no import circle, one vocabulary, errors through one door, flags declared once, and the
bugs the code review found (each test here failed before its fix)."""

from __future__ import annotations

import ast
import dataclasses
import json
import sys
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
    mods = _all_modules()
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
    assert verbs == len(cli.list_commands(None))  # every verb was looked at


def test_one_module_per_verb():
    """Each verb is the command of its own module, named after it: cli/gate.py holds `memprobe gate` only."""
    from memprobe.cli.main import cli

    for name in cli.list_commands(None):
        command = cli.get_command(None, name)
        assert command.callback.__module__ == f"memprobe.cli.{name}", (name, command.callback.__module__)
    for path in (PKG / "cli").glob("*.py"):
        assert len(list(_verb_functions(ast.parse(path.read_text())))) <= 1, path.name


# the layers, bottom first: a module imports modules of its own layer and of the layers below, never above (nested
# imports too). A package named here holds its modules unless one of them is named in another layer.
LAYERS = (
    ("repros",),  # the models: plain PyTorch
    ("memprobe", "memprobe.errors", "memprobe.vocab", "memprobe.units", "memprobe.text", "memprobe.settings", "memprobe.names"),
    ("memprobe.progress", "memprobe.fields", "memprobe.rundir.read"),
    ("memprobe.integrations",),  # adapters to other projects' code
    ("memprobe.compat", "memprobe.policies"),
    ("memprobe.targets", "memprobe.checkpointing"),  # what to build: the model families; how to checkpoint: the modes
    ("memprobe.config",),
    ("memprobe.rundir",),  # the records (schema, its stdlib mirror, load, write, docs)
    ("memprobe.analysis",),
    ("memprobe.budget",),
    ("memprobe.capture", "memprobe.report"),
    ("memprobe.orchestrate",),
    ("memprobe.verbs",),
    ("memprobe.mcp",),
    ("memprobe.cli", "memprobe.__main__"),
)
# within a layer: these never import each other (capture runs models and renders nothing; report runs nothing)
APART = (("memprobe.capture", "memprobe.report"), ("memprobe.report", "memprobe.capture"))


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layer_of(module: str) -> int:
    """The layer of a module: that of the longest name in LAYERS that holds it."""
    best = max((len(name), i) for i, names in enumerate(LAYERS) for name in names if _in(module, name))
    return best[1]


def _all_modules() -> dict[str, Path]:
    out = _modules()
    for p in (ROOT / "repros").rglob("*.py"):
        out[".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")] = p
    return out


def test_every_module_has_a_layer():
    assert all(layer_of(m) is not None for m in _all_modules())


def test_imports_point_down_only():
    mods = _all_modules()
    wrong = set()
    for m, p in mods.items():
        for t, _ in _imports(m, p, mods):
            if t in mods and (layer_of(t) > layer_of(m) or any(_in(m, x) and _in(t, y) for x, y in APART)):
                wrong.add((m, t))
    assert not wrong, sorted(wrong)


def test_the_repros_import_nothing_of_memprobe():
    mods = _all_modules()
    for m, p in mods.items():
        if _in(m, "repros"):
            assert not [t for t, _ in _imports(m, p, mods) if _in(t, "memprobe")], m


# what a reporter may take from analysis/: loaders only, which hand it a finished record (analysis finishes a record
# when its run is finished, and one recorded before a field existed when it is loaded: never the reporter)
REPORT_TAKES_FROM_ANALYSIS = {
    # a run, diff, explain, bisect or sweep directory read, its record finished (a record older than a field gets it)
    ("memprobe.analysis.recorded", "load_recorded"),
    # a run directory's memory timeline as the run stored it (timeline.json; computed for a run recorded before it)
    ("memprobe.analysis.recorded", "load_timeline"),
    # a diff side's stored timeline, read from the side's run directory wherever the diff may read it
    ("memprobe.analysis.recorded", "side_timeline"),
}


def test_reporters_import_from_analysis_only_what_reads_the_record():
    """Analysis finishes the record; reporters only render it: no module of report/ imports a function of analysis/
    that computes (a verdict, a grouping, a label, a line of a diff, a timeline), only the loaders that hand it the
    finished record."""
    mods = _modules()
    taken = [
        (m, t, n)
        for m, p in mods.items()
        if _in(m, "memprobe.report")
        for t, names in _imports(m, p, mods)
        if _in(t, "memprobe.analysis")
        for n in names or [""]
        if (t, n) not in REPORT_TAKES_FROM_ANALYSIS
    ]
    assert not taken, sorted(taken)


# a function's cyclomatic complexity as radon counts it (each boolean operator a branch, which ruff's C901 does not
# count): at most this, in every function of memprobe/ and repros/ (ruff's C901 keeps the same limit)
MAX_COMPLEXITY = 15


def _too_complex() -> list[str]:
    """``file:line function (complexity)`` for each function (method, class) of memprobe/ and repros/ over
    MAX_COMPLEXITY."""
    from radon.complexity import cc_visit

    out = []
    for path in sorted([*PKG.rglob("*.py"), *(ROOT / "repros").rglob("*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        for block in cc_visit(path.read_text()):
            if block.complexity > MAX_COMPLEXITY:
                out.append(f"{rel}:{block.lineno} {block.fullname} ({block.complexity})")
    return out


def test_no_function_is_too_complex():
    """radon's cyclomatic complexity, boolean operators counted: a function over the limit is split into named
    steps (helpers, tables instead of if-chains, early returns)."""
    over = _too_complex()
    assert not over, "over radon's complexity limit:\n" + "\n".join(over)


# the verbs' own functions take one parameter per option of their command or tool, by design
_VERB_LAYERS = ("cli", "mcp")
MAX_PARAMETERS = 7


def _parameters(f: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = f.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs] + [p.arg for p in (a.vararg, a.kwarg) if p]
    return [n for n in names if n not in ("self", "cls")]


def test_no_function_below_the_verbs_takes_eight_parameters():
    """A function outside cli/ and mcp/ takes at most MAX_PARAMETERS (self and cls not counted): options that travel
    together are one typed object (orchestrate's RunOptions, the findings' Evidence), not a keyword list repeated."""
    over = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.relative_to(PKG).parts[0] in _VERB_LAYERS:
            continue
        for f in ast.walk(ast.parse(path.read_text())):
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(_parameters(f)) > MAX_PARAMETERS:
                over.append(f"{rel}:{f.lineno} {f.name} ({len(_parameters(f))})")
    assert not over, f"more than {MAX_PARAMETERS} parameters:\n" + "\n".join(over)


def test_the_vocabulary_is_defined_once():
    from memprobe.vocab import Category, DiffStatus, FindingKind, SavedKind, Verdict

    source = "\n".join(p.read_text() for p in PKG.rglob("*.py") if p.name != "vocab.py")
    for enum in (SavedKind, Category, FindingKind, DiffStatus, Verdict):
        for member in enum:
            if member.value in ("other", "parameter", "buffer", "activation", "PASS", "FAIL", "SKIP"):
                continue  # also ordinary words in messages
            assert f'"{member.value}"' not in source, f"{enum.__name__}.{member.name} spelled out"


def test_every_flag_is_declared_once_and_documented():
    """ProbeConfig's fields are the flags of `memprobe run` (with their help), of the bare training
    (python -m memprobe.capture.bare) and of the MCP tools' config, and docs/cli.md (the CLI reference) lists them."""
    from memprobe.capture.bare import parser
    from memprobe.config import ProbeConfig
    from memprobe.fields import declared, flag_of

    help_text = invoke("run", "--help").stdout
    reference = (ROOT / "docs" / "cli.md").read_text()
    bare = " ".join(parser().format_help().split())
    for f, o in declared(ProbeConfig):
        if o.after_dashes:  # the words after --, not a flag
            assert "-- python train.py" in help_text and "-- python train.py" in reference and "--command" not in bare
            continue
        flag = flag_of(f)
        assert flag in help_text and flag in reference and flag in bare, flag
        assert " ".join(o.help.split()[:4]) in bare, flag


# how code outside memprobe/targets would ask which family a configuration is by its fields
FAMILY_DISPATCH = (
    ".repro ==",
    ".repro !=",
    ".model is None",
    ".model is not None",
    ".hf_config is",
    "if cfg.model",
    "if cfg.hf_config",
)


def test_a_model_family_is_one_registered_module():
    """Each family of memprobe/targets/ is a module holding one Target registered in FAMILIES; its fields are
    ProbeConfig's (the flags), the --repro vocabulary is the registry's, and no module outside targets/ asks which
    family a configuration is by its fields."""
    from dataclasses import fields as dataclass_fields

    from memprobe import targets
    from memprobe.config import ProbeConfig

    config_fields = {f.name for f in dataclass_fields(ProbeConfig)}
    for family in targets.FAMILIES:
        assert family.__module__.startswith("memprobe.targets.") and family.__doc__ and family.about
        assert {f.name for f in dataclass_fields(family)} <= config_fields, family
    assert list(targets.REPROS) == [f.name for f in targets.FAMILIES if f.selector is None]
    dispatch = []
    for p in PKG.rglob("*.py"):
        if _in(".".join(p.relative_to(ROOT).with_suffix("").parts), "memprobe.targets"):
            continue
        text = p.read_text()
        dispatch += [(p.name, needle) for needle in FAMILY_DISPATCH if needle in text]
    assert not dispatch, dispatch


def test_a_checkpointing_mode_is_one_registered_module_and_the_only_place_that_asks():
    """Each --ac mode is a module of memprobe/checkpointing/ holding one Mode registered in MODES, one per word of the
    AcMode vocabulary; no module outside checkpointing/ compares a configuration's ``ac`` (or a mode word) to decide
    what to do: it asks the mode."""
    from memprobe.checkpointing import MODES
    from memprobe.vocab import AcMode

    assert list(MODES) == [m.value for m in AcMode]
    for mode in MODES.values():
        assert type(mode).__module__.startswith("memprobe.checkpointing.") and type(mode).__doc__ is None or mode.name
    asking = []
    for p in PKG.rglob("*.py"):
        module = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        if _in(module, "memprobe.checkpointing") or module == "memprobe.vocab":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                named = [o for o in operands if isinstance(o, ast.Attribute) and (o.attr == "ac" or _is_mode_word(o))]
                if named:
                    asking.append(f"{module}:{node.lineno}")
    assert not asking, asking


def test_a_modes_flags_are_declared_in_its_module():
    """The configuration fields only one AC mode reads (remat's --save-region, --recompute-region) are declared by
    that mode (``Mode.fields``), and no module of memprobe outside it names them (the generated mirror of the record,
    rundir/records.py, apart): adding a mode with flags of its own is its module and its registration."""
    from memprobe.checkpointing import MODES
    from memprobe.config import ProbeConfig

    owned = {name: type(mode).__module__ for mode in MODES.values() for name, _, _ in mode.fields}
    assert owned and set(owned) <= {f.name for f in dataclasses.fields(ProbeConfig)}
    naming = []
    for p in PKG.rglob("*.py"):
        module = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(p.read_text())):
            name = node.attr if isinstance(node, ast.Attribute) else node.value if isinstance(node, ast.Constant) else None
            if name in owned and module not in (owned[name], "memprobe.rundir.records"):
                naming.append(f"{module}:{node.lineno} {name}")
    assert not naming, naming


def test_only_the_targets_ask_whether_a_target_runs_itself():
    """A user's script is an execution mode of memprobe/targets/ (script.py), not a capability flag the other layers
    test: a run directory's name, the recipe stated, a probe's own interpreter, whose code a fix edits, ... are each
    a question the target answers. No module outside targets/ reads an attribute ``runs_itself`` (nor through
    getattr)."""
    asking = []
    for p in PKG.rglob("*.py"):
        module = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        if _in(module, "memprobe.targets"):
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            read = isinstance(node, ast.Attribute) and node.attr == "runs_itself"
            got = (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) in ("getattr", "hasattr")
                and any(isinstance(a, ast.Constant) and a.value == "runs_itself" for a in node.args)
            )
            if read or got:
                asking.append(f"{module}:{node.lineno}")
    assert not asking, asking


def _is_mode_word(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "AcMode"


def test_every_environment_variable_is_a_declared_setting_and_the_users_are_documented():
    """memprobe/settings.py declares each MEMPROBE_ variable memprobe reads; no other module spells one as a value of
    its own (a docstring may name one), and docs/cli.md lists each one a user sets."""
    import re

    from memprobe.settings import SETTINGS

    declared = {s.name for s in SETTINGS}
    spelled = []
    for p in PKG.rglob("*.py"):
        if p.name == "settings.py" and p.parent == PKG:
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"MEMPROBE_[A-Z_]+", node.value):
                spelled.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.value}")
    assert not spelled, spelled
    mentioned = set(re.findall(r"MEMPROBE_[A-Z_]+", "".join(p.read_text() for p in PKG.rglob("*.py"))))
    assert mentioned <= declared, mentioned - declared
    cli_md = (ROOT / "docs" / "cli.md").read_text()
    assert all(f"`{s.name}`" in cli_md for s in SETTINGS if s.by_user)


def test_an_explicit_steps_3_is_kept_by_bisect(made):
    """bisect used to change --steps 3 (the old default) to 2."""
    bisect = made(*AA_BISECT)
    assert "--steps" in AA_BISECT and AA_BISECT[AA_BISECT.index("--steps") + 1] == "3"
    assert json.loads((bisect.path / "run0" / "report.json").read_text())["config"]["steps"] == 3


def test_memprobe_parses_python_one_thread_at_a_time(monkeypatch):
    """Every ast.parse of memprobe's goes through memprobe.syntax.parse, under its lock: CPython 3.11 shares the AST
    constructor's depth among threads, and two probes finished at once in two threads each parsing its output code
    raised "SystemError: AST constructor recursion depth mismatch" (exit 70)."""
    from memprobe import syntax
    from memprobe.analysis.output_code import simulate
    from memprobe.targets.base import repro_code

    calls = [str(p.relative_to(ROOT)) for p in (ROOT / "memprobe").rglob("*.py") if "ast.parse(" in p.read_text()]
    assert calls == ["memprobe/syntax.py"], calls
    held = []
    parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: held.append(syntax._ONE_AT_A_TIME.locked()) or parse(*a, **k))
    simulate("def call(args):\n    buf0 = empty_strided_cpu((4, 4), (4, 1), torch.float32)\n    return (buf0,)\n")
    repro_code("ffn")
    assert held == [True, True]


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


@pytest.mark.parametrize(
    "where",
    [
        pytest.param((), id="in-this-process"),
        # a probe process of its own, as a fork of `memprobe serve` is: it sends its traceback to the command
        pytest.param(("--python", sys.executable), id="in-a-probe-process", marks=pytest.mark.e2e),
    ],
)
def test_a_models_own_traceback_is_kept_as_the_cause(tmp_path, where):
    model = tmp_path / "broken.py"
    model.write_text("def helper():\n    return 1 / 0\n\nVALUE = helper()\n")
    args = ("run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", tmp_path / "r", "-q")
    proc = invoke("--debug", *args, *where)
    assert proc.returncode == 2 and "ZeroDivisionError" in proc.stderr and f'"{model}", line 2' in proc.stderr, proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1].startswith("memprobe: error: ")  # the one line, last


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

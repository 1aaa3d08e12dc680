"""`memprobe repro`: a run or a diff as one standalone script with torch alone (memprobe/report/repro.py).

Each script is run by an interpreter that has torch, torchao and transformers and nothing of memprobe's (a virtualenv
made as tests/test_versions.py makes them), from a directory of its own, and held to the run it was written from: the
bytes autograd saves for backward in the measured step, which the script counts with a saved_tensors_hooks pack hook of
its own, equal to the byte to what the run recorded as the compiled graphs' saved values at run time plus what it saw
saved outside them (``saved_totals.runtime_bytes`` + ``saved_outside.total_bytes``). The three models: the rowwise
repro, a user's --model whose linears compute through a custom autograd.Function (tests/models/quantlinear.py), and a
Hugging Face Llama built from its config.json. Then: --check fails once a setting of the script is changed; a script
run twice prints the same figures; the scripts pass ruff; a diff whose sides ran with different interpreters runs one
side per interpreter; --minimize makes the bf16-vs-rowwise diff smaller and keeps its abs() difference. The fast tests:
what a hostile run directory can put into a script (text only), and what repro refuses.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TINY, invoke, once_per_session, python_over_this_environment, run_cli
from test_versions import lean_python

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "cpu"
QUANT = str(ROOT / "tests" / "models" / "quantlinear.py") + ":build"
LLAMA = str(ROOT / "tests" / "models" / "hf" / "llama.json")

# name: (the run's flags, what `memprobe repro` is told besides the run directory)
CASES = {
    "rowwise-repro": ((*TINY, "--ac-policy", "torchtitan-2025-01"), ()),
    "user-model-autograd-function": (("--model", QUANT, "--recipe", "bf16", "--ac", "full", "--device", "cpu"), ()),
    "hf-config-llama": (
        ("--hf-config", LLAMA, "--recipe", "bf16", "--layers", "1", "--seq", "32", "--device", "cpu"),
        ("--hf-config", LLAMA),
    ),
}
SAVED = re.compile(r"saved for backward: ([\d,]+) bytes")


def recorded_bytes(report: dict) -> int:
    """What the run saw saved for backward in its measured step: the compiled graphs' at run time, and outside them."""
    return report["saved_totals"]["runtime_bytes"] + report["saved_outside"]["total_bytes"]


def printed_bytes(stdout: str) -> list[int]:
    return [int(m.replace(",", "")) for m in SAVED.findall(stdout)]


@pytest.fixture(scope="session")
def bare_python(shared_dir) -> Path:
    """An interpreter with torch, torchao and transformers (and what they require) and nothing of memprobe's."""
    root = shared_dir / "repro-python"
    done = shared_dir / "repro-python.made"

    def make() -> None:
        shutil.rmtree(root, ignore_errors=True)
        python = lean_python(root, ("torch", "torchao", "transformers"))
        code = "import importlib.util, torch, torchao.float8, transformers; print(importlib.util.find_spec('memprobe'))"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        found = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd=root, check=True)
        assert found.stdout.strip() == "None", found.stdout
        done.touch()

    once_per_session(done, make)
    return root / "bin" / "python"


def run_script(python: Path, script: Path, *args: str) -> subprocess.CompletedProcess:
    """``python SCRIPT ARGS`` from the script's own directory, without this checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(python), str(script), *args], capture_output=True, text=True, env=env, cwd=script.parent)


def write_script(run_dir: Path, script: Path, *extra: str) -> str:
    proc = invoke("repro", run_dir, "-o", script, *extra)
    assert proc.returncode == 0, proc.stderr
    return script.read_text()


@pytest.fixture(scope="module")
def written(runs, bare_python, tmp_path_factory):
    """Each case's run, its script, and what the script printed with --check in the bare interpreter: made once."""
    out = {}

    def get(case: str):
        if case not in out:
            flags, extra = CASES[case]
            run = runs(*flags)
            script = tmp_path_factory.mktemp(case) / "repro.py"
            write_script(run.path, script, *extra)
            out[case] = (run, script, run_script(bare_python, script, "--check"))
        return out[case]

    return get


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_the_script_prints_the_recorded_saved_bytes_in_an_interpreter_without_memprobe(written, case):
    run, script, proc = written(case)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert printed_bytes(proc.stdout) == [recorded_bytes(run.report)], proc.stdout
    assert "reproduces the recorded figures" in proc.stdout  # --check passed
    text = script.read_text()
    assert "memprobe" not in text.split('"""', 2)[2]  # memprobe's name only in the header a maintainer reads first
    if case == "user-model-autograd-function":  # the user's file by its path, not copied
        assert "QuantLinearFunction" not in text and json.dumps(QUANT.rpartition(":")[0]) in text


@pytest.mark.e2e
@pytest.mark.slow
def test_check_fails_once_one_setting_of_the_script_is_changed(written, bare_python):
    run, script, _ = written("rowwise-repro")
    edited = script.with_name("edited.py")
    text = script.read_text()
    assert text.count('"float8": "rowwise",') == 1
    edited.write_text(text.replace('"float8": "rowwise",', '"float8": None,'))  # --recipe bf16
    proc = run_script(bare_python, edited, "--check")
    assert proc.returncode == 1, proc.stdout + proc.stderr[-2000:]
    assert (
        f"does not reproduce: saved_bytes is {printed_bytes(proc.stdout)[0]:,}, recorded {recorded_bytes(run.report):,}"
        in proc.stdout
    )


@pytest.mark.e2e
@pytest.mark.slow
def test_a_runs_script_run_twice_prints_the_same_figures(written, bare_python):
    _, script, first = written("rowwise-repro")
    again = run_script(bare_python, script)
    assert again.returncode == 0, again.stderr[-2000:]
    figures = [line for line in first.stdout.splitlines() if "bytes" in line]
    assert figures and figures == [line for line in again.stdout.splitlines() if "bytes" in line]


@pytest.mark.e2e
@pytest.mark.slow
def test_the_scripts_pass_ruff_check(written):
    scripts = [written(case)[1] for case in CASES]
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    proc = subprocess.run([ruff, "check", "--isolated", *map(str, scripts)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.e2e
@pytest.mark.slow
def test_a_diff_of_two_interpreters_runs_one_side_under_each(tmp_path, bare_python):
    """A diff of a user model whose side B ran with another interpreter: the script runs one side per interpreter,
    each printing its side's recorded bytes (B: the interpreter B ran with; A: one without memprobe)."""
    other = python_over_this_environment(tmp_path / "other")
    out = tmp_path / "d"
    flags = ("--model", QUANT, "--ac", "full", "--device", "cpu")
    proc = run_cli("diff", "bf16", "bf16", *flags, "--b-python", other, "--out", out, "-q", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    script = tmp_path / "repro.py"
    text = write_script(out, script)
    assert f"B: {other} repro.py --side b --check" in text
    for side, python in (("a", bare_python), ("b", other)):
        recorded = recorded_bytes(json.loads((out / side / "report.json").read_text()))
        ran = run_script(python, script, "--side", side, "--check")
        assert ran.returncode == 0, ran.stdout + ran.stderr[-3000:]
        assert printed_bytes(ran.stdout) == [recorded] and f"{side.upper()}: reproduces" in ran.stdout
    lint = subprocess.run([shutil.which("ruff") or "ruff", "check", "--isolated", str(script)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout


@pytest.mark.e2e
@pytest.mark.slow
def test_minimize_keeps_the_abs_difference_of_bf16_against_rowwise_in_a_smaller_configuration(made, tmp_path):
    legacy = ("--ac-policy", "torchtitan-2025-01")
    # two layers, already as narrow and short as float8 lets batch and sequence be: the search still removes a layer
    # and FSDP and halves both widths, and keeps what the difference needs
    two_layers = ("--dim", "32", "--hidden", "64", "--seq", "16", "--batch", "1", "--layers", "2", "--device", "cpu")
    diff = made("diff", "bf16", "rowwise", *two_layers, *legacy)
    script = tmp_path / "repro.py"
    proc = run_cli("repro", diff.path, "--minimize", "--check", "-o", script, "--out", tmp_path / "m", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout)
    m = r["minimized"]
    assert m["difference"].startswith("abs(")  # the first item of the diff: abs() of an FFN weight
    assert m["minimal_parameters"] < m["given_parameters"] and "layers=1" in m["minimal"]["b"]
    assert "dim=16" in m["minimal"]["b"] and m["minimal"]["b"].startswith("rowwise")
    kept = {s["tried"] for s in m["steps"] if s["kept"]}
    assert "without aten.abs in the SAC save list" not in kept and "without op-level SAC" not in kept
    assert r["sides"]["b"]["saved_bytes"] > r["sides"]["a"]["saved_bytes"]
    assert "B: reproduces" in r["check"] or "reproduces the recorded figures" in r["check"]
    assert "Made smaller first" in script.read_text()


# -- what a run directory can put into a script, and what repro refuses (fast: no model runs) ------------------------


def _run_dir(tmp_path: Path, **changes) -> Path:
    """The committed tiny rowwise run, with what it saved outside the compiled graphs recorded and ``changes`` made."""
    run = tmp_path / "run"
    shutil.copytree(DATA / "tiny-rowwise", run)
    report = json.loads((run / "report.json").read_text())
    report["saved_outside"] = {"total_bytes": 16384, "parameters_bytes": 0, "modules": [], "partial": False}
    for key, value in changes.items():
        if key == "config":
            report["config"].update(value)
        else:
            report[key] = value
    (run / "report.json").write_text(json.dumps(report))
    return run


def test_a_recorded_string_reaches_the_script_only_as_text(tmp_path):
    hostile = '"""\nimport os\nos.system("touch pwned")\n"""'
    run = _run_dir(tmp_path, command=["memprobe", "run", hostile], config={"model": 'evil\n"""x.py:build', "repro": "ffn"})
    text = write_script(run, tmp_path / "repro.py")
    tree = ast.parse(text)
    calls = {getattr(n.func, "attr", None) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert "system" not in calls and not (tmp_path / "pwned").exists()
    header = ast.get_docstring(tree, clean=False)
    assert '"""\\nimport os\\nos.system("touch pwned")' in header  # shown in the header, its newlines as \n
    model_file = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "MODEL_FILE")
    assert ast.literal_eval(model_file.value) == 'evil\n"""x.py'  # the path as a string literal, nothing more


@pytest.mark.parametrize(
    "changes, extra, words",
    [
        ({}, ("--minimize",), "--minimize makes a diff's configurations smaller: give a diff directory"),
        ({"config": {"hf_config": "x.json"}}, (), "config.hf_config names a model configuration to build, 'x.json'"),
        ({"config": {"nproc": 2}}, (), "ran 2 ranks; a standalone script runs one process"),
        ({"mode": "analysis-only"}, (), "measured nothing at run time (analysis-only)"),
        ({"config": {"model": "x.py:build"}}, ("--check",), "config.model names code to run, 'x.py:build'"),
    ],
    ids=["minimize-a-run", "hf-config-not-named", "ranks", "analysis-only", "check-a-model-not-named"],
)
def test_what_repro_refuses_is_one_line_before_anything_is_written(tmp_path, changes, extra, words):
    run = _run_dir(tmp_path, **changes)
    proc = invoke("repro", run, "-o", tmp_path / "repro.py", *extra)
    assert proc.returncode == 2 and words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not (tmp_path / "repro.py").exists()


def test_a_run_that_recorded_nothing_outside_the_graphs_is_refused(tmp_path):
    proc = invoke("repro", DATA / "tiny-rowwise", "-o", tmp_path / "repro.py")
    assert proc.returncode == 2 and "recorded no measured saved-for-backward figure" in proc.stderr, proc.stderr


def test_an_existing_script_is_not_overwritten_without_force(tmp_path):
    run = _run_dir(tmp_path)
    (tmp_path / "repro.py").write_text("mine\n")
    proc = invoke("repro", run, "-o", tmp_path / "repro.py")
    assert proc.returncode == 2 and "exists; pass --force" in proc.stderr
    assert (tmp_path / "repro.py").read_text() == "mine\n"
    assert invoke("repro", run, "-o", tmp_path / "repro.py", "--force").returncode == 0

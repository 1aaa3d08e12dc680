"""The memory-budget gate: budget parsing, verdicts, exit codes, reports, the project's own gate, and a gate that
fails closed (a limit it cannot check, or a gate that checked nothing, fails)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner
from conftest import LEGACY_ROWWISE, TINY, TODAY_ROWWISE, invoke, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from memprobe.budget import BudgetError, load_budget, parse_relative, parse_size
from memprobe.units import fmt_delta

ROOT = Path(__file__).resolve().parent.parent
ROWWISE = ROOT / "tests" / "data" / "cuda" / "rowwise-legacy"


def test_sizes():
    assert parse_size("24 MiB") == 24 * 2**20
    assert parse_size("1.5 GiB") == 3 * 2**29
    assert parse_size("512 KB") == 512_000
    assert parse_size(1048576) == 1048576
    assert parse_size("0") == 0
    for bad in ("24 MB/s", "-1", "lots", "1.5", True, -5, 2.5):
        with pytest.raises(ValueError):
            parse_size(bad)
    assert parse_relative("+5%") == pytest.approx(0.05)
    with pytest.raises(ValueError):
        parse_relative("5 MiB")


BUDGET = """\
[probes.p]
recipe = "rowwise"
ac_policy = "torchtitan"

[probes.p.limits]
saved_bytes = "24 MiB"
weight_derived_saved_bytes = 0

[probes.p.limits.cuda]
forward_peak_bytes = "6 GiB"
"""


@pytest.mark.parametrize(
    "edit, line, needle",
    [
        (('saved_bytes = "24 MiB"', 'saved_bites = "24 MiB"'), 6, "unknown metric 'saved_bites'"),
        (('"24 MiB"', '"24 MiBs"'), 6, "unknown unit 'MiBs'"),
        (('recipe = "rowwise"', 'recipe = "fp4"'), 2, "unknown recipe 'fp4'"),
        (('ac_policy = "torchtitan"', 'ac_polcy = "torchtitan"'), 3, "unknown configuration key(s): ac_polcy"),
        (("weight_derived_saved_bytes = 0", "weight_derived_saved_bytes = = 0"), 7, "TOML syntax error"),
        (("forward_peak_bytes", "saved_bytes"), 10, "derived from the graphs"),
        (("[probes.p.limits.cuda]", "[probes.p.limits.tpu]"), 9, "unknown limits section 'tpu'"),
    ],
)
def test_invalid_budgets_name_file_and_line(tmp_path, edit, line, needle):
    path = tmp_path / "memprobe.toml"
    path.write_text(BUDGET.replace(*edit))
    with pytest.raises(BudgetError) as e:
        load_budget(path)
    assert needle in str(e.value)
    assert f"{path}:{line}" in str(e.value) or f"line {line}" in str(e.value)
    # and through the CLI: one line, exit 2
    proc = invoke("gate", "--budget", path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and str(path) in proc.stderr


def test_unknown_probe_and_missing_file(tmp_path):
    path = tmp_path / "memprobe.toml"
    path.write_text(BUDGET)
    proc = invoke("gate", "--budget", path, "--probe", "nope")
    assert proc.returncode == 2 and "no probe 'nope'" in proc.stderr and str(path) in proc.stderr
    proc = invoke("gate", "--budget", tmp_path / "missing.toml")
    assert proc.returncode == 2 and "no such budget file" in proc.stderr


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_budget_parser_never_crashes(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("b") / "memprobe.toml"
    path.write_text(text)
    try:
        budget = load_budget(path)
    except BudgetError as e:
        assert str(path) in str(e)
    else:
        assert budget.probes


def _budget_for(tmp_path: Path, policy: str) -> Path:
    """The project's committed budget, with the probe's policy replaced."""
    text = (ROOT / "memprobe.toml").read_text()
    assert "ac_policy" not in text or 'ac_policy = "torchtitan"' in text
    text = text.replace("[probes.ffn-rowwise]\n", f'[probes.ffn-rowwise]\nac_policy = "{policy}"\n')
    path = tmp_path / "memprobe.toml"
    path.write_text(text)
    shutil.copy(ROOT / "memprobe-baseline.json", tmp_path / "memprobe-baseline.json")
    return path


@pytest.mark.e2e
def test_gate_fails_on_the_legacy_policy_naming_the_abs_items(runs, tmp_path, monkeypatch):
    legacy = runs(*LEGACY_ROWWISE)
    budget = _budget_for(tmp_path, "torchtitan-2025-01")
    junit = tmp_path / "gate.xml"
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    proc = invoke("gate", "--budget", budget, "--from", legacy.path, "--junit", junit)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "FAIL" in out and "weight_derived_saved_bytes" in out
    flat = "".join(out.split())  # the console wraps long lines wherever the width falls: compared without spaces
    assert (
        "abs(permute(layers.*.ffn.w" in flat and "--recompute-opaten.abs" in flat
    )  # the fix, by its op (aten.abs or its overload)
    # the breach is explained against the baseline where it was recorded with this torch (+11.00 MiB with 2.13)
    base = json.loads((ROOT / "memprobe-baseline.json").read_text())["probes"]["ffn-rowwise"]
    if base["versions"]["torch"] == legacy.report["versions"]["torch"]:
        step = legacy.report["saved_totals"]["graph_bytes"] + legacy.report["saved_outside"]["total_bytes"]
        delta = step - base["figures"]["saved_bytes"]  # the gate's saved_bytes counts what is saved outside the graphs
        assert f"Against the baseline it saves {fmt_delta(delta)}" in out
    xml = ET.parse(junit).getroot()
    failures = [c for c in xml.iter("testcase") if c.find("failure") is not None]
    assert any(c.get("name") == "weight_derived_saved_bytes" for c in failures)
    assert "abs(permute(layers.*.ffn.w" in failures[0].find("failure").text
    md = summary.read_text()
    assert md.startswith("### memprobe gate: ❌ FAIL") and "| ffn-rowwise | `weight_derived_saved_bytes` |" in md


@pytest.mark.e2e
def test_gate_passes_on_todays_policy_and_flags_foreign_baselines(runs, tmp_path):
    today = runs(*TODAY_ROWWISE)
    budget = _budget_for(tmp_path, "torchtitan")
    proc = invoke("gate", "--budget", budget, "--from", today.path, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    verdicts = {(v["device"], v["kind"], v["metric"]): v["verdict"] for v in result["verdicts"]}
    assert verdicts[(None, "absolute", "weight_derived_saved_bytes")] == "PASS"
    # the committed baseline was recorded with torch 2.13: on another torch it is flagged, not compared (below)
    base = json.loads((tmp_path / "memprobe-baseline.json").read_text())["probes"]["ffn-rowwise"]
    same_torch = base["versions"]["torch"] == today.report["versions"]["torch"]
    assert verdicts[(None, "relative", "saved_bytes")] == ("PASS" if same_torch else "SKIP")
    assert all(v["headroom"] >= 0 for v in result["verdicts"] if v["verdict"] == "PASS")
    # a baseline from another torch version is flagged, not compared
    base = json.loads((tmp_path / "memprobe-baseline.json").read_text())
    base["probes"]["ffn-rowwise"]["versions"]["torch"] = "2.11.0+cu130"
    (tmp_path / "memprobe-baseline.json").write_text(json.dumps(base))
    result = json.loads(invoke("gate", "--budget", budget, "--from", today.path, "--json").stdout)
    rel = next(v for v in result["verdicts"] if v["kind"] == "relative")
    assert rel["verdict"] == "SKIP" and "torch 2.11.0+cu130" in rel["notice"]


@pytest.mark.e2e
def test_cuda_limits_skip_on_cpu_and_update_baseline(runs, tmp_path):
    today = runs(*TODAY_ROWWISE)
    path = tmp_path / "memprobe.toml"
    path.write_text(BUDGET + '\n[probes.p.limits.baseline]\nsaved_bytes = "+5%"\n')
    proc = invoke("gate", "--budget", path, "--from", f"p={today.path}", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    cuda = next(v for v in result["verdicts"] if v["device"] == "cuda")
    assert cuda["verdict"] == "SKIP" and "this run was on cpu" in cuda["notice"]
    rel = next(v for v in result["verdicts"] if v["kind"] == "relative")
    assert rel["verdict"] == "SKIP" and "no baseline" in rel["notice"]
    proc = invoke("gate", "--budget", path, "--from", f"p={today.path}", "--update-baseline", "-q")
    assert proc.returncode == 0
    base = json.loads((tmp_path / "memprobe-baseline.json").read_text())
    entry = base["probes"]["p"]
    assert entry["device"] == "cpu" and entry["versions"]["torch"] == today.report["versions"]["torch"]
    step = today.report["saved_totals"]["graph_bytes"] + today.report["saved_outside"]["total_bytes"]
    assert entry["figures"]["saved_bytes"] == step
    # the same run again: nothing new to store, said so, and the file's bytes as they were
    written = (tmp_path / "memprobe-baseline.json").read_bytes()
    again = invoke("gate", "--budget", path, "--from", f"p={today.path}", "--update-baseline", "--json")
    assert json.loads(again.stdout)["baseline_updated"] is False
    assert (tmp_path / "memprobe-baseline.json").read_bytes() == written
    said = invoke("gate", "--budget", path, "--from", f"p={today.path}", "--update-baseline")
    assert "baseline unchanged:" in said.stdout and "baseline updated" not in said.stdout
    result = json.loads(invoke("gate", "--budget", path, "--from", f"p={today.path}", "--json").stdout)
    rel = next(v for v in result["verdicts"] if v["kind"] == "relative")
    assert rel["verdict"] == "PASS" and rel["headroom"] == int(rel["baseline"] * 0.05)


@pytest.mark.e2e
def test_starter_budget_is_written_and_passes(tmp_path):
    budget = tmp_path / "memprobe.toml"
    proc = run_cli("budget", "--recipe", "bf16", *TINY, "--budget", budget, "-q")
    assert proc.returncode == 0, proc.stderr
    parsed = load_budget(budget)
    probe = parsed.probes["ffn-bf16"]
    assert probe.config.layers == 1 and probe.config.recipe == "bf16"
    metrics = {(lim.device, lim.metric) for lim in probe.limits}
    assert {(None, "saved_bytes"), (None, "weight_derived_saved_bytes"), ("cpu", "forward_peak_bytes")} <= metrics
    assert (tmp_path / "memprobe-baseline.json").exists()
    proc = run_cli("budget", "--recipe", "bf16", "--budget", budget)
    assert proc.returncode == 2 and "exists" in proc.stderr
    proc = run_cli("gate", "--budget", budget, "--out", tmp_path / "runs", "-q")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout


def test_the_project_gates_itself():
    """CI runs `memprobe gate` on this committed budget (.ci/run: `make check`, whose last step is the gate)."""
    budget = load_budget(ROOT / "memprobe.toml")
    assert "ffn-rowwise" in budget.probes
    limits = {(lim.device, lim.metric): lim for lim in budget.probes["ffn-rowwise"].limits}
    assert limits[(None, "weight_derived_saved_bytes")].value == 0
    assert "make check" in (ROOT / ".ci" / "run").read_text().splitlines()
    assert "memprobe gate --budget memprobe.toml" in (ROOT / "Makefile").read_text()


@pytest.mark.e2e
def test_breach_without_a_baseline_names_the_largest_saved_values(runs, tmp_path):
    legacy = runs(*LEGACY_ROWWISE)
    budget = _budget_for(tmp_path, "torchtitan-2025-01")
    (tmp_path / "memprobe-baseline.json").unlink()
    proc = invoke("gate", "--budget", budget, "--from", legacy.path, "--json")
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    why = result["explanations"]["ffn-rowwise"]
    assert why["headline"].startswith("No comparable baseline")
    assert any("abs(permute(layers.*.ffn.w" in line for line in why["lines"])
    rel = next(v for v in result["verdicts"] if v["kind"] == "relative")
    assert rel["verdict"] == "SKIP" and "no baseline" in rel["notice"]


# -- the gate fails closed: a limit it cannot check, or a gate that checked nothing, fails -----------------------------


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


def _invoke(*args) -> tuple[int, str, str]:
    """A verb in this process, through the CLI's one door: exit code, stdout, stderr."""
    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _error_line(code: int, out: str, err: str, want: int = 2) -> str:
    assert code == want, (code, out[-500:], err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


CUDA_BUDGET = """\
[probes.p]
recipe = "rowwise"
dim = 256
hidden = 768
seq = 128
ac_policy = "torchtitan-2025-01"
device = "cuda"
steps = 3

[probes.p.limits]
saved_bytes = "1 GiB"
weight_derived_saved_bytes = "1 GiB"
graph_peak_bytes = "1 GiB"

[probes.p.limits.cuda]
forward_peak_bytes = "1 GiB"
"""


def test_a_complete_run_without_its_figures_fails_the_gate(tmp_path):
    run = _copy(ROWWISE, tmp_path / "run")

    def strip(r):
        r.update(saved_totals=None, memory=None, graph_memory=None, saved_tensors=[], attribution=None, findings=[])

    _edit(run / "report.json", strip)
    budget = tmp_path / "memprobe.toml"
    budget.write_text(CUDA_BUDGET)
    code, out, err = _invoke("gate", "--budget", budget, "--from", f"p={run}", "--json", "--junit", tmp_path / "g.xml")
    assert code == 1, (out, err)
    verdicts = {v["metric"]: v for v in json.loads(out)["verdicts"]}
    assert {v["verdict"] for v in verdicts.values()} == {"FAIL"}
    assert "the run has no saved_bytes figure" in verdicts["saved_bytes"]["notice"]
    failures = ET.parse(tmp_path / "g.xml").getroot().iter("failure")
    assert any("the run has no forward_peak_bytes figure" in f.get("message") for f in failures)
    # unless the budget says a limit is optional: then it is skipped, and says why ...
    budget.write_text(
        CUDA_BUDGET.replace(
            "[probes.p.limits]\n",
            '[probes.p.limits]\noptional = ["saved_bytes", "weight_derived_saved_bytes", "graph_peak_bytes",'
            ' "cuda.forward_peak_bytes"]\n',
        )
    )
    # ... but a gate whose every limit was skipped checked nothing: it fails (it used to pass)
    code, out, err = _invoke("gate", "--budget", budget, "--from", f"p={run}", "--json")
    assert code == 1, (out, err)
    notices = [v["notice"] for v in json.loads(out)["verdicts"] if v["verdict"] == "FAIL"]
    assert len(notices) == 4 and all("(optional); no limit of probe 'p' was checked" in n for n in notices), notices
    # the names a user copies under `optional` are printed whole in the table, however narrow the terminal
    from conftest import invoke

    table = invoke("gate", "--budget", budget, "--from", f"p={run}", env={"COLUMNS": "60"}).stdout
    metrics = [f"{v['device']}.{v['metric']}" if v["device"] else v["metric"] for v in json.loads(out)["verdicts"]]
    assert all(f" {m} " in table for m in metrics) and " FAIL " in table, table


def test_optional_names_a_limit_of_its_probe(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(CUDA_BUDGET.replace("[probes.p.limits]\n", '[probes.p.limits]\noptional = ["cpu.forward_peak_bytes"]\n'))
    err = _error_line(*_invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}"))
    assert "'cpu.forward_peak_bytes', which is no limit of probe 'p'" in err and f"{budget}:11" in err


GATE_BUDGET = """\
[probes.p]
recipe = "rowwise"
dim = 256
hidden = 768
seq = 128
ac_policy = "torchtitan-2025-01"
device = "cuda"
steps = 3

[probes.p.limits.cpu]
forward_peak_bytes = "1 GiB"
"""


def test_a_gate_that_checked_no_limit_fails(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_BUDGET)  # its one limit is for the CPU; the run was on CUDA: skipped
    proc = invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}", "--json")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["counts"] == {"PASS": 0, "FAIL": 1, "SKIP": 0}
    (only,) = result["verdicts"]
    assert "this run was on cuda" in only["notice"] and "no limit of probe 'p' was checked" in only["notice"]
    # with one limit checked, the skipped one stays skipped and the gate passes
    budget.write_text(GATE_BUDGET + '\n[probes.p.limits.cuda]\nforward_peak_bytes = "1 GiB"\n')
    proc = invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["counts"] == {"PASS": 1, "FAIL": 0, "SKIP": 1}


def test_gate_from_a_run_of_another_configuration_is_refused(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_BUDGET.replace('recipe = "rowwise"', 'recipe = "bf16"'))
    err = _one_line(invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}", "--out", tmp_path / "g"))
    assert f"--from p={ROWWISE}: the run's configuration differs from that of probe 'p' in recipe" in err
    assert "recipe: probe 'bf16', run 'rowwise'" in err and not (tmp_path / "g").exists()


def test_gate_from_an_earlier_gates_directory_uses_the_run_of_each_probe(tmp_path):
    """An earlier gate's --out (a CI artifact, say): each run in it stands for the probe its folder is named after,
    checked against that probe's configuration like a named --from."""
    earlier = tmp_path / "earlier-gate"
    shutil.copytree(ROWWISE, earlier / "p")
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_BUDGET + '\n[probes.p.limits.cuda]\nforward_peak_bytes = "1 GiB"\n')
    proc = invoke("gate", "--budget", budget, "--from", earlier, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["counts"] == {"PASS": 1, "FAIL": 0, "SKIP": 1}
    budget.write_text(GATE_BUDGET.replace('recipe = "rowwise"', 'recipe = "bf16"'))
    err = _one_line(invoke("gate", "--budget", budget, "--from", earlier))
    assert f"--from {earlier / 'p'}: the run's configuration differs from that of probe 'p' in recipe" in err

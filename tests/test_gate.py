"""The memory-budget gate: budget parsing, verdicts, exit codes, reports, and the project's own gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from conftest import LEGACY_ROWWISE, TINY, TODAY_ROWWISE, invoke, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from memprobe.budget import BudgetError, load_budget, parse_relative, parse_size
from memprobe.units import fmt_delta

ROOT = Path(__file__).resolve().parent.parent


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
        delta = legacy.report["saved_totals"]["graph_bytes"] - base["figures"]["saved_bytes"]
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
    assert entry["figures"]["saved_bytes"] == today.report["saved_totals"]["graph_bytes"]
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

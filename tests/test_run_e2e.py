"""End-to-end: `memprobe run` on the CPU finds the aten.abs regression, and only where it exists."""

from __future__ import annotations

import json

import pytest
from conftest import LEGACY_BF16, LEGACY_ROWWISE, TINY, TINY_BF16_JSON, TODAY_ROWWISE, invoke, run_cli

pytestmark = pytest.mark.e2e

DIM, HIDDEN = 512, 2048  # the CLI defaults the runs below use


def weight_derived(report):
    return [r for r in report["saved_tensors"] if r["kind"] == "weight-derived"]


def test_legacy_policy_ranks_abs_of_ffn_weights_first(runs):
    run = runs(*LEGACY_ROWWISE)
    report = run.report
    assert report["status"] == "complete"
    wd = weight_derived(report)
    assert wd, "the legacy policy must save weight-derived values"
    # every weight-derived value is abs() of one FFN weight, saved because the policy says MUST_SAVE for aten.abs
    for r in wd:
        assert r["expr"].startswith("abs("), r["expr"]
        assert len(r["roots"]) == 1 and r["roots"][0].split(".")[-2] in ("w1", "w2", "w3"), r["roots"]
        assert r["policy_op"] == "aten.abs.default" and r["reason_kind"] == "policy"
        # bf16 copy of a [hidden, dim] or [dim, hidden] weight
        assert r["dtype"] == "bfloat16"
        assert r["bytes"] == DIM * HIDDEN * 2
        assert r["runtime_storage_bytes"] == r["bytes"]
    # both blocks are affected
    assert {r["block"] for r in wd} == {"layers.0", "layers.1"}
    # findings: the abs items come first, with their bytes, and their sum is the weight-derived total
    findings = report["findings"]
    top = [f for f in findings if f["kind"] == "weight-derived-saved"]
    assert findings[0]["kind"] == "weight-derived-saved" and findings[0]["expr"].startswith("abs(permute(layers.*.ffn.w")
    assert sum(f["bytes"] for f in top) == sum(r["bytes"] for r in wd)
    assert all(f["bytes"] == f["count"] * DIM * HIDDEN * 2 for f in top)
    # the console names them too, by the names the findings give them, and says the fix
    assert all(it["label"] in run.proc.stdout for f in top for it in f["items"])
    assert "--recompute-op aten.abs" in run.proc.stdout


def test_graph_and_runtime_saved_totals_agree(runs):
    for flags in (LEGACY_ROWWISE, TODAY_ROWWISE):
        totals = runs(*flags).report["saved_totals"]
        assert totals["runtime_bytes"] is not None
        assert totals["graph_bytes"] == totals["runtime_bytes"] > 0
        assert totals["agree"] is True
        # FSDP freed the unsharded parameters after forward: saving them cost nothing at run time
        assert totals["parameter_graph_bytes"] > 0 and totals["parameter_runtime_bytes"] == 0


@pytest.mark.parametrize(
    "flags",
    [
        TODAY_ROWWISE,
        LEGACY_BF16,
        # read for its saved table only, and run by no other test: analysis-only
        ("--recipe", "tensorwise", "--ac-policy", "torchtitan-2025-01", "--layers", "2", "--analysis-only"),
    ],
    ids=["rowwise-torchtitan", "bf16-legacy", "tensorwise-legacy"],
)
def test_no_weight_derived_saved_elsewhere(runs, flags):
    report = runs(*flags).report
    assert report["status"] == "complete"
    assert report["saved_tensors"], "the table must not be empty"
    assert weight_derived(report) == []
    assert not [f for f in report["findings"] if f["kind"] == "weight-derived-saved"]
    assert report["saved_totals"]["agree"] is True


def test_forward_phase_memory_shows_the_abs_bytes(runs):
    legacy, today = runs(*LEGACY_ROWWISE).report, runs(*TODAY_ROWWISE).report
    abs_bytes = sum(r["bytes"] for r in legacy["saved_tensors"] if r["op"] == "abs")
    assert abs_bytes > 0
    fl, ft = legacy["memory"]["phases"]["forward"], today["memory"]["phases"]["forward"]
    assert legacy["memory"]["source"] == "cpu-profiler"
    assert fl["end_bytes"] - ft["end_bytes"] >= abs_bytes
    assert fl["peak_bytes"] - ft["peak_bytes"] >= abs_bytes
    # the measured end-of-forward level holds at least what the graphs say is saved
    assert fl["end_bytes"] >= legacy["saved_totals"]["runtime_bytes"]


def test_recompute_op_removes_the_finding(runs):
    report = runs(*LEGACY_ROWWISE, "--recompute-op", "aten.abs", "--analysis-only").report  # its saved table is read
    assert report["policy"]["save_ops"] and "aten.abs.default" not in report["policy"]["save_ops"]
    assert weight_derived(report) == []


def test_run_directory_layout(runs):
    run = runs(*LEGACY_ROWWISE)
    report = run.report
    assert report["schema_version"] == 1
    assert report["versions"]["torch"] and report["versions"]["torchao"]
    kinds = {g["kind"] for g in report["graphs"]}
    assert {"forward", "backward"} <= kinds
    for g in report["graphs"]:
        for rel in g["files"].values():
            assert (run.path / rel).is_file(), rel
        code = (run.path / g["files"]["output_code"]).read_text()
        assert "def call(" in code and "cpp_fused" in code  # Inductor's C++ kernels on the CPU
        text = (run.path / g["files"]["graph_text"]).read_text()
        assert "class GraphModule" in text
    nodes = json.loads((run.path / "graphs/g0.forward.json").read_text())["nodes"]
    abs_nodes = [n for n in nodes if n["target"] == "aten.abs.default"]
    assert abs_nodes and all(n["recompute"] == "MUST_SAVE" for n in abs_nodes)
    assert all({"shape", "dtype", "bytes", "stack_trace"} <= set(n) for n in nodes)


def test_json_flag_prints_the_report(runs):
    run = runs(*TINY_BF16_JSON)
    printed = json.loads(run.proc.stdout)
    on_disk = json.loads((run.path / "report.json").read_text())
    assert printed == on_disk
    assert printed["status"] == "complete"


def test_eager_run_measures_without_graphs(tmp_path):
    # eager with per-op SAC: trains (inspecting the checkpointed region would break backward)
    proc = run_cli("run", "--recipe", "bf16", *TINY, "--no-compile", "--out", tmp_path / "e", "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "e" / "report.json").read_text())
    assert report["graphs"] == [] and report["saved_tensors"] == []
    assert report["memory"]["autograd_saved_bytes"] is None
    assert report["memory"]["phases"]["forward"]["end_bytes"] > 0
    assert "run with --compile" in proc.stdout
    # eager without AC: the autograd graph is inspected
    proc = run_cli("run", "--recipe", "bf16", *TINY, "--no-compile", "--ac", "none", "--out", tmp_path / "n", "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "n" / "report.json").read_text())
    assert report["memory"]["autograd_saved_bytes"] > 0


def test_existing_run_dir_is_refused_then_forced(runs, tmp_path):
    run = runs(*TODAY_ROWWISE)
    before = (run.path / "report.json").read_text()
    proc = invoke("run", "--out", run.path, "--layers", "1")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "already exists" in proc.stderr
    assert (run.path / "report.json").read_text() == before
    # a directory memprobe did not write is never deleted, even with --force
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    proc = invoke("run", "--out", other, "--force")
    assert proc.returncode == 2 and "not a memprobe run directory" in proc.stderr
    assert (other / "notes.txt").read_text() == "keep me"


def test_cpu_attribution_names_the_abs_items_at_the_forward_peak(runs):
    report = runs(*LEGACY_ROWWISE).report
    att = report["attribution"]
    assert att["source"] == "cpu-profiler"
    assert set(att["phases"]) == {"forward", "backward", "optimizer"}
    for phase in att["phases"].values():
        assert phase["named_fraction"] >= 0.95
        # the replayed peak is the profiler's own running total at that moment
        assert phase["alive_bytes"] == phase["peak_bytes"]
    fw = att["phases"]["forward"]
    assert fw["peak_bytes"] == report["memory"]["phases"]["forward"]["peak_bytes"]
    saved = {it["item"]: it["bytes"] for it in fw["saved_for_backward"]}
    weight_abs = {k: v for k, v in saved.items() if k.startswith("abs(permute(layers.")}
    # every weight-derived row of the saved table is alive at the forward peak, with its bytes
    rows = {r["expr"]: r["bytes"] for r in report["saved_tensors"] if r["kind"] == "weight-derived"}
    assert weight_abs == rows
    # and the graph-derived simulator agrees with the table per graph
    for g in report["graph_memory"]:
        if g["kind"] == "forward":
            assert g["unrecognized"] == [] and g["saved_bytes"] > 0

"""End-to-end: analysis-only runs, `memprobe explain` and `memprobe bisect` on the CPU."""

from __future__ import annotations

import json

import pytest
from conftest import LEGACY_ROWWISE, TINY, ffn_weights_saved_as_abs, run_cli, saved_table

pytestmark = pytest.mark.e2e


def _table(report: dict) -> list[dict]:
    return saved_table(report)


def test_analysis_only_saved_table_equals_the_full_runs(runs):
    full = runs(*LEGACY_ROWWISE)
    fast = runs(*LEGACY_ROWWISE, "--analysis-only")
    assert fast.report["mode"] == "analysis-only" and full.report["mode"] == "full"
    assert _table(fast.report) == _table(full.report)
    assert fast.report["saved_totals"] == full.report["saved_totals"]
    assert not (fast.path / "output_code").exists() and fast.report["graph_memory"] == []
    assert "analysis-only" in fast.proc.stdout


@pytest.mark.slow
def test_explain_ranks_removing_abs_first(tmp_path):
    # the tiny probe's dims with two layers: abs() of the FFN weights is still what frees most per recomputed FLOP
    tiny = ("--dim", "64", "--hidden", "128", "--seq", "32", "--device", "cpu")
    proc = run_cli(
        "explain", "--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01", *tiny, "--out", tmp_path / "e", "--json", "-q"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = json.loads(proc.stdout)
    top = r["edits"][0]
    assert top["op"] == "aten.abs.default" and top["flag"] == "--recompute-op aten.abs"
    assert top["edit"] == "remove aten.abs from the SAC save list"  # the op as the flag spells it
    base = json.loads((tmp_path / "e" / "base" / "report.json").read_text())
    abs_bytes = sum(row["bytes"] for row in base["saved_tensors"] if row["op"] == "abs")
    assert top["bytes_saved"] == abs_bytes > 0
    # recomputing abs costs elementwise work only; every other candidate frees less per added FLOP
    assert 0 < top["recompute_flops_added"] < 10 * abs_bytes
    assert all(e["bytes_saved_per_flop"] <= top["bytes_saved_per_flop"] for e in r["edits"])
    # every abs() of an FFN weight the base run saves is freed (which of w1, w2, w3 the list saves is the installed
    # torch's partitioner's choice: torch 2.15 no longer saves w2's)
    weights = ffn_weights_saved_as_abs(base["saved_tensors"])
    assert {it["expr"] for it in top["freed"]} >= {f"abs(permute(layers.*.ffn.{w}.weight))" for w in weights}


@pytest.mark.slow
def test_bisect_finds_what_the_regression_needs(tmp_path):
    # the tiny probe (one layer, FSDP and torch.compile as given) still shows the regression: B holds 40.25 KiB more
    # than A after forward, mostly abs() of the [128, 64] FFN weights in bf16, while each trial without abs, op-level
    # SAC or rowwise scaling is left with under 1 KiB (measured: 256 B, -19.9 KiB, 14 B). With one layer, "more than
    # one layer" is not applicable: four probes fewer, and that path tested too.
    proc = run_cli(
        "bisect",
        "bf16",
        "fp8",
        "--ac-policy",
        "torchtitan-2025-01",
        *TINY,
        "--min-delta",
        "16 KiB",
        "--out",
        tmp_path / "b",
        "--json",
        "-q",
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = json.loads(proc.stdout)
    assert r["trials"][0]["exceeds"]
    assert set(r["necessary"]) == {"aten.abs in the SAC save list", "op-level SAC", "rowwise scaling"}
    assert "FSDP" in r["unnecessary"] and r["not_applicable"] == ["more than one layer"]
    singles = {t["removed"]: t for t in r["trials"] if t["pass"] == "single"}
    assert not singles["rowwise scaling"]["exceeds"] and singles["FSDP"]["exceeds"]
    assert "aten.abs in the SAC save list" in r["conclusion"] and "rowwise scaling" in r["conclusion"]
    # compiled configurations ran analysis-only, eager ones in full
    modes = {tuple(t["modes"]) for t in r["trials"]}
    assert ("analysis-only", "analysis-only") in modes

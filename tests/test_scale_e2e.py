"""Beyond the toy (issue 7), end to end on the CPU: several ranks through torchrun (gloo),
a user model through --model, the transformer repro, and the full-model estimate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import LEGACY_ROWWISE, invoke, run_cli  # LEGACY_ROWWISE: the one-process run other tests already made

ROOT = Path(__file__).resolve().parents[1]
MODEL = ("--model", str(ROOT / "tests" / "models" / "mixer.py") + ":build", "--ac-policy", "torchtitan-2025-01")


def _items(report: dict) -> list[tuple]:
    return sorted((r["graph"], r["expr"], r["kind"], r["bytes"], tuple(r["shape"] or ())) for r in report["saved_tensors"])


@pytest.mark.e2e
@pytest.mark.slow
def test_two_ranks_shard_the_parameters_and_save_the_same_items(runs):
    one, two = runs(*LEGACY_ROWWISE), runs(*LEGACY_ROWWISE, "--nproc", "2")
    dist = two.report["distributed"]
    assert dist["world_size"] == 2 and dist["backend"] == "gloo" and [r["rank"] for r in dist["ranks"]] == [0, 1]
    full = one.report["memory"]["persistent"]["parameters_bytes"]
    assert full == 2 * 3 * 512 * 2048 * 4  # 2 blocks x w1, w2, w3 in fp32
    for rank in dist["ranks"]:
        assert rank["status"] == "complete"
        assert rank["parameters_bytes"] * 2 == full  # FSDP shards every weight over the two ranks
        # AdamW's two moments are sharded too (its scalar step counters are not)
        assert abs(rank["optimizer_state_bytes"] * 2 - one.report["memory"]["persistent"]["optimizer_state_bytes"]) < 1024
        assert rank["saved_graph_bytes"] == one.report["saved_totals"]["graph_bytes"]
    # what is saved for backward is computed from unsharded weights: the same items, the same sizes
    assert _items(two.report) == _items(one.report)
    assert any(i[1].startswith("abs(permute(layers.") and i[2] == "weight-derived" for i in _items(two.report))
    # the merged run dir reads back like any other (graphs are rank 0's)
    for rank in (0, 1):
        assert (two.path / f"rank{rank}" / "report.json").is_file()
    proc = invoke("show", two.path)
    assert proc.returncode == 0 and "Per rank (2 ranks, gloo" in proc.stdout, proc.stderr[-2000:]
    assert dist["max_bytes"]["forward_peak_bytes"] == two.report["memory"]["phases"]["forward"]["peak_bytes"]
    # the largest and the slowest rank are named, from each rank's own figures
    peaks = {
        r["rank"]: max(r[k] for k in ("forward_peak_bytes", "backward_peak_bytes", "optimizer_peak_bytes")) for r in dist["ranks"]
    }
    steps = {r["rank"]: r["measured_step_s"] for r in dist["ranks"]}
    assert peaks[dist["largest_rank"]] == max(peaks.values()) and steps[dist["slowest_rank"]] == max(steps.values())
    assert f"largest rank: {dist['largest_rank']}; slowest rank: {dist['slowest_rank']}" in proc.stdout


@pytest.mark.e2e
def test_a_user_model_is_run_diffed_and_gated(runs, tmp_path):
    rowwise = runs("--recipe", "rowwise", *MODEL, "--analysis-only")  # its saved table is what is read
    rep = rowwise.report
    assert rep["model"]["blocks_attr"] == "blocks" and rep["model"]["blocks"] == 2 and rep["model"]["other_parameters"] > 0
    weight = {r["expr"] for r in rep["saved_tensors"] if r["kind"] == "weight-derived"}
    assert "abs(permute(blocks.0.channel_mlp.0.weight))" in weight
    assert not any("head" in e or "stem" in e for e in weight)  # outside the blocks: no SAC there
    assert rep["saved_totals"]["agree"]

    # diff: a bf16 side run now, the rowwise side read from its run directory
    out = tmp_path / "diff"
    proc = run_cli("diff", "bf16", rowwise.path, *MODEL, "--analysis-only", "--out", out, "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    d = json.loads(proc.stdout)
    only_b = [it["expr"] for it in d["items"] if it["status"] == "only_b" and it["kind"] == "weight-derived"]
    assert "abs(permute(blocks.*.channel_mlp.0.weight))" in only_b

    # gate: a budget that forbids weight-derived saved values fails, naming them
    budget = tmp_path / "memprobe.toml"
    budget.write_text(
        f'[probes.mixer]\nmodel = "{ROOT / "tests" / "models" / "mixer.py"}:build"\nrecipe = "rowwise"\n'
        f'ac_policy = "torchtitan-2025-01"\n\n[probes.mixer.limits]\nweight_derived_saved_bytes = 0\n'
    )
    proc = invoke("gate", "--budget", budget, "--from", rowwise.path, "--json")
    assert proc.returncode == 1, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert [v["verdict"] for v in result["verdicts"]] == ["FAIL"]
    assert any("blocks.*.channel_mlp" in line for line in result["explanations"]["mixer"]["lines"])


@pytest.mark.e2e
def test_the_transformer_repro_saves_abs_of_attention_and_ffn_weights(runs):
    # its saved table is what is read (test_analysis_only_saved_table_equals_the_full_runs holds it to a full run's)
    run = runs(
        "--repro", "transformer", "--preset", "debug", "--seq", "64", "--ac-policy", "torchtitan-2025-01", "--analysis-only"
    )
    cfg = run.report["config"]
    assert cfg["heads"] == 8 and cfg["kv_heads"] == 2
    # abs() of the weights, a bf16 copy of each whole weight: which of them the 2025-01 list keeps is the installed
    # torch's partitioner's choice (torch 2.13: wq, wk, wv, wo, w2, w3), so the test holds each one it finds to its
    # size (wk and wv a quarter of wq: grouped-query attention with 2 of 8 heads) and asks for both kinds
    dim, kv_dim = cfg["dim"], cfg["dim"] // cfg["heads"] * cfg["kv_heads"]
    numel = {"attention.wq": dim * dim, "attention.wk": dim * kv_dim, "attention.wv": dim * kv_dim, "attention.wo": dim * dim}
    weight = {
        m.group(1): r["bytes"]
        for r in run.report["saved_tensors"]
        if r["kind"] == "weight-derived" and (m := re.fullmatch(r"abs\(permute\(layers\.1\.(\w+\.w\w+)\.weight\)\)", r["expr"]))
    }
    assert weight.keys() & numel.keys() and {w for w in weight if w.startswith("feed_forward.")}, weight
    assert all(weight[w] == numel[w] * 2 for w in weight.keys() & numel.keys()), weight
    ffn = {weight[w] for w in weight if w.startswith("feed_forward.")}
    assert len(ffn) == 1 and ffn.pop() % (dim * 2) == 0  # w1, w2 and w3 hold dim x hidden each
    # in the user's terms: a module's result is named by its module (the RMSNorm's last mul is attention_norm), and
    # the float8 cast that Dynamo shares between wq, wk and wv reads as what each linear was given (the policy
    # saves every second matmul: wq's and wv's)
    labels = {r["user"]["label"] for r in run.report["saved_tensors"] if r["block"] == "layers.1"}
    assert {"abs(layers.1.attention_norm)", "abs(layers.1.ffn_norm)"} <= labels
    for w in ("wq", "wv"):
        assert f"_scaled_mm(t(layers.1.attention.{w}.weight), layers.1.attention_norm)" in labels, w


@pytest.mark.e2e
def test_the_estimate_scales_a_measured_run_to_a_target(runs):
    run = runs(*LEGACY_ROWWISE)  # a full run: the estimate starts from measured figures
    # the estimate at the probe's own configuration is shown next to what was measured (a repro without a preset
    # has no full depth to take: the target's is given)
    refused = invoke("estimate", run.path, "--json")
    assert refused.returncode == 2 and "--layers is required" in refused.stderr
    proc = invoke("estimate", run.path, "--layers", "2", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    same = json.loads(proc.stdout)
    assert same["target"]["layers"] == 2  # the probe's own depth
    assert same["components"]["probe"] == same["components"]["target"]
    proc = invoke("estimate", run.path, "--layers", "32", "--world", "8", "--json")
    est = json.loads(proc.stdout)
    probe, target = est["components"]["probe"], est["components"]["target"]
    # weight-derived values scale with depth only (the first block's graph differs: it counts once, a later block
    # 31 times); sharded state with depth / ranks
    per_block = {
        b: sum(r["bytes"] for r in run.report["saved_tensors"] if r["kind"] == "weight-derived" and r["block"] == b)
        for b in ("layers.0", "layers.1")
    }
    assert per_block["layers.0"] > 0 and per_block["layers.1"] > 0
    assert target["saved_weight_derived_bytes"] == per_block["layers.0"] + 31 * per_block["layers.1"]
    assert probe["saved_weight_derived_bytes"] == per_block["layers.0"] + per_block["layers.1"]
    assert target["sharded_parameters_bytes"] < probe["sharded_parameters_bytes"] * 16 / 8 * 1.01
    assert est["totals"]["target_estimated"]["peak_bytes"] > est["totals"]["probe_estimated"]["peak_bytes"]
    assert "estimate" in invoke("estimate", run.path, "--layers", "32", "--world", "8").stdout.lower()


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--model", "nope"), "expected MODULE_OR_FILE:FACTORY"),
        (("--model", "tests/models/missing.py:build"), "no such file"),
        (("--model", "tests/models/mixer.py:nothing"), "has no callable nothing"),
        (("--model", "tests/models/mixer.py:model_only"), "must return (model, batch)"),
        (("--model", "tests/models/mixer.py:build", "--blocks", "head"), "not a non-empty ModuleList"),
        (("--repro", "transformer", "--heads", "7"), "multiple of --heads"),
    ],
)
def test_bad_model_arguments_are_one_line_errors(tmp_path, args, needle):
    proc = invoke("run", *args, "--out", tmp_path / "r", "-q", cwd=ROOT)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert not (tmp_path / "r").exists()  # a refused configuration leaves no run directory

"""Causes on real compiled CPU runs: what the installed torch's partitioner decided about each saved value, what each
backward recomputes, the two sides' decisions in a diff, the findings that read them, and that the printed next
commands run."""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import TINY, run_cli

pytestmark = pytest.mark.e2e

QUANTLINEAR = ("--model", "tests/models/quantlinear.py:build", "--recipe", "bf16", "--no-fsdp", "--device", "cpu")
TINY2 = [a for a in TINY if a not in ("--layers", "1")] + ["--layers", "2"]
# a diff whose sides differ in one policy, the 2025-01 list saving aten.abs
FLIP_ABS = ("diff", "rowwise", "rowwise", *TINY2, "--a", "--ac-policy torchtitan", "--b", "--ac-policy torchtitan-2025-01")
FLIP_ABS += ("--analysis-only", "--json")


def test_an_autograd_function_without_checkpointing_is_named_with_the_partitioners_rule(runs):
    """Without checkpointing, what the Function saves for its backward is kept by the min cut: recomputing it needs an
    op the partitioner may not recompute. Each value is named by the Function, its module and the user's line, and its
    blocker by the installed torch's own rule, as the graph file recorded it."""
    run = runs(*QUANTLINEAR, "--ac", "none")
    rows = run.report["saved_tensors"]
    assert rows and all(r["cause"]["text"] for r in rows)  # every saved value carries its cause
    inside = [r for r in rows if r["cause"].get("function") == "QuantLinearFunction"]
    assert inside, [(r["expr"], r["cause"]["kind"]) for r in rows]
    for r in inside:
        cause = r["cause"]
        assert not cause.get("checkpointed") and cause.get("tag") is None and "outside any checkpointed region" in cause["text"]
        assert r["user"]["label"].endswith("· inside QuantLinearFunction")
        assert r["user"]["source"].startswith("tests/models/quantlinear.py:")
    blocked = [r for r in inside if r["cause"]["kind"] == "min-cut" and r["cause"].get("blocked_by")]
    assert blocked, [r["cause"] for r in inside]
    graph = json.loads((run.path / "graphs" / f"{blocked[0]['graph']}.json").read_text())
    nodes = {n["name"]: n for n in graph["nodes"]}
    for b in blocked[0]["cause"]["blocked_by"]:  # each blocker is a node the partitioner banned, with its rule
        assert nodes[b["name"]]["partition"]["banned"] is True and nodes[b["name"]]["partition"].get("rule") == b["rule"]
        assert b["rule"] in blocked[0]["cause"]["text"]
    function_nodes = [n for n in graph["nodes"] if n.get("autograd_function") == "QuantLinearFunction"]
    assert function_nodes and all(n["hops"] == ["autograd.function"] for n in function_nodes)


def test_a_checkpointed_block_recomputes_the_functions_ops_on_this_torch(runs):
    """torch 2.12 and newer tag the ops inside an autograd.Function with the region's tag: under --ac full the blocks
    save their inputs only, and report.json lists the Function's ops as recomputed in backward, tagged."""
    report = runs(*QUANTLINEAR, "--ac", "full").report
    causes = {r["cause"]["kind"] for r in report["saved_tensors"]}
    assert causes == {"input"}, causes
    recomputed = [v for v in report["recomputed"] if v.get("function") == "QuantLinearFunction"]
    assert {v["op"] for v in recomputed} >= {"abs", "amax", "round", "mm"}
    assert all(v["tag"] == "PREFER_RECOMPUTE" and v["checkpointed"] and v["copied"] for v in recomputed)
    assert not [f for f in report["findings"] if f["kind"] == "checkpoint-saves-more"]


def test_a_diff_that_flips_one_ops_tag_names_the_op_the_flag_and_both_decisions(made):
    run = made(*FLIP_ABS)
    d = json.loads(run.proc.stdout)
    assert d["change"]["kind"] == "configuration"
    assert d["change"]["flags"] == ["--ac-policy torchtitan -> torchtitan-2025-01"]
    grown = [it for it in d["items"] if it["status"] == "only_b" and it["kind"] == "weight-derived"]
    assert grown
    for it in grown:
        assert it["a_decision"]["fate"] == "recomputed" and it["a_decision"]["tag"] == "PREFER_RECOMPUTE", it["a_decision"]
        b = it["b_decision"]
        assert b["fate"] == "saved" and b["cause"]["kind"] == "policy-tag" and b["cause"]["policy_op"] == "aten.abs.default"
    v = d["verdict"]
    assert "abs()" in v["text"] and "--ac-policy torchtitan -> torchtitan-2025-01" in v["text"]
    assert "A recomputes it in backward (tagged PREFER_RECOMPUTE" in v["text"]
    assert v["flag"] == "--recompute-op aten.abs"
    assert v["next_command"].startswith("memprobe diff rowwise rowwise ") and "--recompute-op aten.abs" in v["next_command"]


def test_the_diffs_next_command_runs_and_removes_what_it_fixes(made, tmp_path):
    run = made(*FLIP_ABS)
    command = shlex.split(json.loads(run.proc.stdout)["verdict"]["next_command"])
    assert command[:2] == ["memprobe", "diff"]
    proc = run_cli(*command[1:], "--analysis-only", "--out", tmp_path / "next", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    again = json.loads(proc.stdout)
    assert not [it for it in again["items"] if it["status"] == "only_b" and it["kind"] == "weight-derived"]


def test_blocks_that_save_differently_say_why(runs):
    """The first block's input requires no grad, so its backward computes no gradient for it and its graph saves no
    abs() of w1's transpose, which the second block's does: an uneven-blocks finding that says so."""
    report = runs("--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01", *TINY2, "--analysis-only").report
    uneven = [f for f in report["findings"] if f["kind"] == "uneven-blocks"]
    assert uneven, [f["kind"] for f in report["findings"]]
    f = uneven[0]
    assert "layers.1" in f["summary"] and "not by layers.0" in f["summary"]
    assert "input requires no grad" in f["summary"]
    assert f["fix"].startswith("none needed: layers.0 computes no gradient for its input")
    forward = {g["graph_id"]: g for g in report["graphs"] if g["kind"] == "forward"}
    grads = {gid: [i.get("requires_grad") for i in g["inputs"] if i["kind"] == "input"] for gid, g in forward.items()}
    assert sorted(grads.values()) == [[False], [True]], grads


def test_explain_ranks_ac_modes_for_a_run_without_checkpointing(tmp_path):
    proc = run_cli("explain", "--recipe", "bf16", *TINY, "--ac", "none", "--out", tmp_path / "e", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout)
    flags = {e["flag"] for e in r["edits"]}
    assert flags == {"--ac full", "--ac op --ac-policy torchtitan", "--ac memory-budget --memory-budget 0.5"}
    full = next(e for e in r["edits"] if e["flag"] == "--ac full")
    assert full["bytes_saved"] > 0 and full["op"] is None
    assert r["verdict"]["flag"] in flags


def test_the_next_command_of_the_recorded_torch_2_11_run_runs_here(tmp_path):
    """The verdict of the committed torch 2.11 run (tests/data/cpu/quantlinear-torch2.11) prints a `memprobe run` with
    a per-op policy that recomputes every op: as printed, it runs, and it saves nothing of the Function."""
    from pathlib import Path

    from memprobe.analysis.run import analyse
    from memprobe.rundir.load import load_report

    recorded = Path(__file__).parent / "data" / "cpu" / "quantlinear-torch2.11"
    command = analyse(load_report(recorded), recorded).verdict.next_command
    words = shlex.split(command.split("   #")[0])
    assert words[:2] == ["memprobe", "run"]
    proc = run_cli(*words[1:], "--out", tmp_path / "next", "--json", "-q", cwd=Path(__file__).parent.parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["config"]["ac_policy"] == "recompute-all"
    assert not [r for r in report["saved_tensors"] if (r.get("cause") or {}).get("function") == "QuantLinearFunction"]

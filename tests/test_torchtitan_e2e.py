"""torchtitan's own code, probed: its installed SAC policy, its Llama 3, and its other AC mode (the memory budget).

CI installs torchtitan (the lightest set that imports, README); elsewhere these tests skip unless
MEMPROBE_REQUIRE_TORCHTITAN=1 says it must be there.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import TINY, invoke, run_cli

ROOT = Path(__file__).resolve().parent.parent
TINY_FFN = ("--dim", "64", "--hidden", "128", "--seq", "32", "--layers", "2", "--device", "cpu")


@pytest.fixture(scope="module", autouse=True)
def torchtitan_installed():
    from memprobe.integrations.torchtitan import why_unavailable

    why = why_unavailable("llama3")
    if why:
        if os.environ.get("MEMPROBE_REQUIRE_TORCHTITAN") == "1":
            pytest.fail(f"torchtitan is required here (MEMPROBE_REQUIRE_TORCHTITAN=1): {why}")
        pytest.skip(why)


def test_the_installed_policy_is_torchtitans_own_list():
    from torch._functorch.partitioners import get_default_op_list
    from torchtitan.distributed.activation_checkpoint import SelectiveAC

    proc = invoke("policies", "--json")
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(proc.stdout)["torchtitan-installed"]
    assert entry["available"] and entry["torchtitan"]
    ops = set(entry["save_ops"])
    # in this process, exactly what torchtitan's own SelectiveAC says (some ops are registered only once a module
    # that defines them is imported, so another process may resolve a few fewer)
    from memprobe.integrations.torchtitan import installed_save_ops

    theirs = {
        str(op) if "." in str(op) else f"higher_order.{op.__name__}" for op in SelectiveAC(SelectiveAC.Config()).get_save_ops()
    }
    assert set(installed_save_ops()) == theirs and ops <= theirs
    # it follows the installed torch: its compute-intensive ops are in it
    assert {f"{op.default}" for op in get_default_op_list().compute_intensive_ops} <= ops
    assert "aten.abs.default" not in ops and "aten.linear.default" in ops


@pytest.mark.e2e
def test_the_installed_policy_drives_a_run_and_the_abs_regression_appears_only_with_abs(tmp_path):
    results = {}
    for label, extra in (("as installed", ()), ("+abs", ("--save-op", "aten.abs"))):
        out = tmp_path / label.replace(" ", "-")
        proc = run_cli(
            "run",
            "--recipe",
            "rowwise",
            "--ac-policy",
            "torchtitan-installed",
            *extra,
            *TINY_FFN,
            "--analysis-only",
            "--out",
            out,
            "-q",
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        results[label] = json.loads((out / "report.json").read_text())
    base, edited = results["as installed"], results["+abs"]
    assert base["policy"]["name"] == "torchtitan-installed" and base["versions"]["torchtitan"]
    assert not [r for r in base["saved_tensors"] if r["kind"] == "weight-derived"]
    regression = [r for r in edited["saved_tensors"] if r["kind"] == "weight-derived"]
    assert regression and {r["op"] for r in regression} == {"abs"}
    assert {f["kind"] for f in edited["findings"]} >= {"weight-derived-saved"}


@pytest.mark.e2e
def test_torchtitans_llama3_debug_model_runs_and_names_torchtitans_modules(tmp_path):
    out = tmp_path / "tt"
    proc = run_cli(
        "run",
        "--repro",
        "torchtitan",
        "--flavor",
        "debugmodel",
        "--recipe",
        "bf16",
        "--layers",
        "1",
        "--seq",
        "32",
        "--device",
        "cpu",
        "--analysis-only",  # the saved table is what is read
        "--out",
        out,
        "-q",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads((out / "report.json").read_text())
    assert r["status"] == "complete" and r["config"]["repro"] == "torchtitan"
    names = " ".join(root for row in r["saved_tensors"] for root in row["roots"])
    assert "layers.0.feed_forward.w1.weight" in names and "layers.0.attention." in names
    assert r["saved_totals"]["graph_bytes"] > 0


@pytest.mark.e2e
def test_a_memory_budget_sweep_plots_saved_bytes_and_peak(tmp_path):
    from test_reports import _console_errors, _render_in_browser

    html = tmp_path / "sweep.html"
    proc = run_cli(
        "sweep",
        "--recipe",
        "bf16",
        *TINY,  # the sweep test_rundir_schema makes too (8 KiB saved at budget 0, 56 KiB at 1): one compile for both
        "--budgets",
        "0,1",
        "--out",
        tmp_path / "s",
        "--html",
        html,
        "--json",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout)
    low, high = r["points"]
    assert (low["budget"], high["budget"]) == (0, 1)
    assert low["saved_bytes"] < high["saved_bytes"]  # budget 0 recomputes what it can
    # each memory budget its own probe, recorded as --ac memory-budget with that memory budget
    reports = [json.loads((Path(p["run"]) / "report.json").read_text()) for p in r["points"]]
    assert [(x["config"]["ac"], x["config"]["memory_budget"]) for x in reports] == [
        ("memory-budget", 0.0),
        ("memory-budget", 1.0),
    ]
    assert reports[0]["process"]["pid"] != reports[1]["process"]["pid"]
    dom, log = _render_in_browser(html, tmp_path / "sweep.png")
    assert 'data-rendered="1"' in re.search(r"<body[^>]*>", dom).group(0)
    assert not _console_errors(log), _console_errors(log)


def test_a_torch_too_old_for_torchtitan_is_named_as_such(monkeypatch):
    # what the H200's torch 2.11 said to torchtitan 0.3.0: installing torchtitan again would not help
    import importlib

    import torch

    from memprobe.integrations import torchtitan as integration

    def too_old(name):
        raise ImportError(
            "cannot import name 'DataParallelMeshDims' from 'torch.distributed.fsdp'", name="torch.distributed.fsdp"
        )

    monkeypatch.setattr(importlib, "import_module", too_old)
    why = integration.why_unavailable("llama3")
    assert "DataParallelMeshDims" in why and f"newer torch than {torch.__version__}" in why
    assert "pip install" not in why


@pytest.mark.e2e
def test_two_modules_of_equal_shapes_are_two_rows_and_equal_figures_agree(tmp_path):
    """Issue 21: torchtitan's wqkv and feed_forward.w1 make _scaled_mm outputs of one shape ([tokens, 768]); they
    are two rows, each of one module. Token positions, given to every block, are one value: the graphs' total and
    the run time's agree."""
    from memprobe.analysis.saved import group_rows, layer_pattern
    from memprobe.rundir import schema as S

    out = tmp_path / "tt"
    proc = run_cli(
        "run",
        "--repro",
        "torchtitan",
        "--recipe",
        "rowwise",
        "--ac-policy",
        "torchtitan-installed",
        "--save-op",
        "aten.abs",
        "--layers",
        "2",
        "--seq",
        "64",
        "--device",
        "cpu",
        "--analysis-only",
        "--out",
        out,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads((out / "report.json").read_text())
    rows = r["saved_tensors"]
    for g in group_rows([S.SavedRow.model_validate(x) for x in rows]):
        members = [x for x in rows if x["value_id"] == g.value_id and x["kind"] == g.kind]
        assert len({layer_pattern(x["user"].get("module") or "") for x in members}) == 1, g.expr
        assert g.count == 2 or g.shared, g.expr  # one value per block: never two modules' in a row
    matmuls = {x["user"]["module"] for x in rows if x["op"] == "_scaled_mm" and x["shape"] == [128, 768]}
    assert matmuls >= {"layers.0.attention.qkv_linear.wqkv", "layers.0.feed_forward.w1"}
    totals = r["saved_totals"]
    assert totals["agree"] and totals["graph_bytes"] == totals["runtime_bytes"]
    assert "DISAGREE" not in proc.stdout and "(agree)" in proc.stdout
    # named as what they are: the rotary cache a buffer, the positions the block's argument of that name
    kinds = {x["expr"]: x["kind"] for x in rows if x["block"] == "layers.0" and x["op"] == "input"}
    assert kinds["layers.0.attention.rope.cache"] == "buffer"
    assert kinds["layers.0.input.positions"] == "activation"
    positions = [x for x in rows if x["expr"].endswith(".input.positions")]
    assert len(positions) == 2 and len({x["input_id"] for x in positions}) == 1

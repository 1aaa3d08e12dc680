"""Findings beyond weight-derived saves, each on a real compiled run on the CPU, and saved values named in the
user's own terms (the op they wrote, the module, the line of their model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TODAY_ROWWISE, run_cli

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent


def _run(tmp_path: Path, *flags: str) -> dict:
    out = tmp_path / "r"
    proc = run_cli("run", *flags, "--device", "cpu", "--out", out, "-q", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "report.json").read_text()) | {"_stdout": proc.stdout}


def _findings(report: dict, kind: str) -> list[dict]:
    return [f for f in report["findings"] if f["kind"] == kind]


def test_saving_silu_names_silu_and_its_line_and_costs_more_than_its_output(tmp_path):
    r = _run(
        tmp_path,
        "--recipe",
        "rowwise",
        "--save-op",
        "aten.silu",
        "--dim",
        "256",
        "--hidden",
        "1024",
        "--layers",
        "2",
        "--batch",
        "2",
        "--seq",
        "64",
        "--analysis-only",  # the saved table and its findings, as a full run's (test_investigate_e2e)
    )
    silu = [row for row in r["saved_tensors"] if row["op"] == "silu"]
    assert silu and all(row["user"]["op"] == "silu" for row in silu)
    # the top saved values (largest first, parameters apart) read in the user's terms
    top = sorted((row for row in r["saved_tensors"] if row["kind"] != "parameter"), key=lambda row: -row["bytes"])[:2]
    for row in top:
        assert row["user"]["label"].startswith("silu(layers.") and ".ffn.w1" in row["user"]["label"]
        assert row["user"]["source"].startswith("repros/ffn.py:32") and "F.silu(self.w1(x))" in row["user"]["source"]
    assert "silu(layers.*.ffn.w1)" in r["_stdout"] and "repros/ffn.py:32" in r["_stdout"]
    # finding 1: the save-list entry keeps more than silu's own output
    (f,) = _findings(r, "save-op-costs-more")
    own = sum(row["bytes"] for row in silu if not row["user"].get("piece"))
    pieces = sum(row["bytes"] for row in silu if row["user"].get("piece"))
    assert own == 2 * 2 * 64 * 1024 * 2  # bf16 output of silu, 2 blocks
    assert f["bytes"] == pieces > 0 and f["policy_op"] == "aten.silu.default"
    assert "--recompute-op aten.silu " in f["hint"] and "aten.silu.default" not in f["message"] + f["hint"]


def test_a_model_that_upcasts_its_weights_saves_wide_weight_copies(tmp_path):
    r = _run(tmp_path, "--model", "tests/models/upcast.py:build", "--recipe", "bf16", "--ac", "none")
    wide = [row for row in r["saved_tensors"] if row["kind"] == "weight-derived" and row["dtype"] == "float32"]
    assert wide and all(row["root_dtypes"] == ["bfloat16"] for row in wide)
    found = _findings(r, "wide-weight-copy")
    assert found and sum(f["bytes"] for f in found) == sum(row["bytes"] for row in wide)
    assert all("float32 copy of bfloat16 parameters" in f["message"] for f in found)
    # read as the user wrote it: self.weight.float(), transposed for backward; x.float() reshaped inside F.linear
    labels = {row["user"]["label"] for row in r["saved_tensors"] if row["block"] == "blocks.0"}
    assert "t(float(blocks.0.down.weight)) · backward work done in forward" in labels
    assert "view(float(relu(blocks.0.up))) · inside linear" in labels


def test_parameters_left_unsharded_after_forward_are_a_finding_with_the_measured_bytes(tmp_path):
    dim, hidden, layers = 128, 256, 2
    r = _run(
        tmp_path,
        "--recipe",
        "bf16",
        "--no-reshard-after-forward",
        "--dim",
        str(dim),
        "--hidden",
        str(hidden),
        "--layers",
        str(layers),
        "--seq",
        "32",
    )
    measured = r["attribution"]["phases"]["forward"]["at_end"]["by_category_bytes"]["fsdp-unsharded-parameter"]
    assert measured == layers * 3 * dim * hidden * 2  # every block's three bf16 weights
    (f,) = _findings(r, "unsharded-after-forward")
    assert f["bytes"] == measured and "--reshard-after-forward" in f["hint"]


def test_a_run_without_findings_says_which_checks_ran(runs):
    today = runs(*TODAY_ROWWISE)
    assert today.report["findings"] == [] and len(today.report["checks"]) >= 6
    assert "No findings. Checks run:" in today.proc.stdout and "float32 activations" in today.proc.stdout

"""The backward's transient peak, named, on a real compiled CPU run of pytorch/pytorch#193193's pattern
(tests/models/twopass_ckpt.py: two checkpointed passes over shared blocks): forward saves little more than each
call's input, while each call's compiled backward recomputes its block. memprobe names the compiled backward's buffers
alive at backward's measured peak (their ops and the user's lines, recomputed or not), raises
``backward-transient-peak``, and its figures add up to the measured peak within the run's stated tolerance."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.e2e

TWO_PASS = ("--model", "tests/models/twopass_ckpt.py:build", "--recipe", "bf16", "--ac", "none", "--no-fsdp")
TWO_PASS += ("--device", "cpu")
# the same step on both sides: an A/A
A_A = ("diff", "bf16", "bf16", "--model", "tests/models/twopass_ckpt.py:build", "--ac", "none", "--no-fsdp")
A_A += ("--device", "cpu")


def test_backward_peak_names_the_compiled_backwards_buffers_and_they_add_up(runs):
    report = runs(*TWO_PASS).report
    bp = report["attribution"]["backward_peak"]
    assert bp["peak_bytes"] == report["memory"]["phases"]["backward"]["peak_bytes"]
    total = bp["transient_bytes"] + bp["gradient_bytes"] + bp["other_bytes"]
    assert abs(total - bp["peak_bytes"]) <= bp["tolerance_bytes"], bp
    assert bp["transient_bytes"] == bp["recomputed_bytes"] + bp["temporary_bytes"]
    buffers = bp["buffers"]
    temporary = [b for b in buffers if b["role"] == "temporary"]
    assert sum(b["bytes"] for b in temporary) == bp["transient_bytes"]
    assert sum(b["bytes"] for b in temporary if b["recomputed"]) == bp["recomputed_bytes"] > 0
    graphs = {g["graph_id"] for g in report["graphs"] if g["kind"] == "backward"}
    recomputed = {(r["graph"], r["name"]) for r in report["recomputed"]}
    for b in temporary:
        assert b["graph"] in graphs and b["storage"].startswith("buf") and b["ops"] and b["lines"], b
        assert b["block"] == report["invocations"][b["call"]]["block"]
        assert b["recomputed"] == any((b["graph"], n) in recomputed for n in b["nodes"])
        assert all(line.startswith("tests/models/twopass_ckpt.py:") for line in b["lines"]), b["lines"]
    # the up and gate projections the backward recomputes (line 25), by their matmuls
    assert any(b["recomputed"] and "mm" in b["ops"] and any(":25 " in x for x in b["lines"]) for b in temporary)
    # the matched buffers are among what the attribution calls Inductor's temporaries at that peak
    assert bp["transient_bytes"] <= report["attribution"]["phases"]["backward"]["by_category_bytes"]["inductor-temporary"]
    # what forward saved is far less than backward's peak: the symptom of #193193
    assert report["saved_totals"]["graph_bytes"] * 4 < bp["peak_bytes"]


def test_backward_transient_peak_finding_carries_the_measured_figures(runs):
    report = runs(*TWO_PASS).report
    bp = report["attribution"]["backward_peak"]
    found = [f for f in report["findings"] if f["kind"] == "backward-transient-peak"]
    assert len(found) == 1, [f["kind"] for f in report["findings"]]
    f = found[0]
    assert f["bytes"] == bp["transient_bytes"] > bp["peak_bytes"] / 2
    assert sum(it["bytes"] for it in f["items"]) == bp["transient_bytes"]
    top = max((b for b in bp["buffers"] if b["role"] == "temporary"), key=lambda b: b["bytes"])
    assert top["storage"] in f["message"] and top["graph"] in f["message"]
    assert "backward-transient-peak" in {c["kind"] for c in report["checks"]}


def test_a_diff_of_the_two_pass_step_with_itself_names_the_same_buffers_and_differs_in_nothing(made):
    """An A/A: both sides measure the same backward peak and name the same buffers with the same bytes; the diff
    says nothing changed, its backward peak delta 0."""
    run = made(*A_A)
    d = json.loads((run.path / "diff.json").read_text())
    assert d["change"]["kind"] == "none"
    assert d["phases"]["phases"]["backward"]["peak_bytes"]["delta"] == 0
    sides = [json.loads((run.path / s / "report.json").read_text()) for s in "ab"]
    a, b = (r["attribution"]["backward_peak"] for r in sides)
    assert a == b and a["transient_bytes"] > 0
    assert [[f["bytes"] for f in r["findings"] if f["kind"] == "backward-transient-peak"] for r in sides] == [
        [a["transient_bytes"]]
    ] * 2

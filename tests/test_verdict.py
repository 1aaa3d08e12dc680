"""The answer first (issue 25): verdicts derived from the data, findings grouped by kind and cause, one
screen of compact rows at 100 and at 80 columns, and one name per saved value in the table, the
finding, the diff item, the Markdown and the HTML.

The end-to-end tests render real CPU runs of the default repro (`memprobe run --recipe rowwise
--ac-policy torchtitan-2025-01`, and the same with bf16) through report/console/run.py and report/console/diff.py with rich consoles of
each width: the runs are made once per session (conftest.runs), not once per width.
"""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from conftest import LEGACY_BF16, LEGACY_ROWWISE, ffn_weights_saved_as_abs
from rich.console import Console

from memprobe.analysis.diff import diff_reports
from memprobe.analysis.evidence import Evidence
from memprobe.analysis.findings import find, names_phrase
from memprobe.analysis.saved import group_rows, label
from memprobe.analysis.verdict import diff_verdict, run_verdict, verdict_of
from memprobe.report.console.diff import print_diff
from memprobe.report.console.run import print_run
from memprobe.report.console.shared import TOP_ROWS
from memprobe.rundir import schema as S
from memprobe.rundir.load import dump, load_report

DATA = Path(__file__).parent / "data" / "cuda"
DIM, HIDDEN = 512, 2048  # the default repro's dimensions


def _render(view, data, width: int, **kw) -> list[str]:
    con = Console(width=width, file=io.StringIO(), record=True, highlight=False, soft_wrap=False)
    view(data, Path("/tmp/run"), con, **kw)
    return con.export_text().splitlines()


def _no_cut_word(lines: list[str], names: list[str]) -> None:
    """Each name is printed whole, or as a prefix that ends in an ellipsis: never cut mid-word silently."""
    text = "\n".join(lines)
    for name in names:
        if name in text:
            continue
        cut = [k for k in range(len(name) - 1, 5, -1) if name[:k] + "…" in text]
        assert cut, f"{name!r} is neither whole nor cut with an ellipsis in:\n{text}"


def _wd_ground_truth(report: dict) -> int:
    """The weight-derived bytes from the graph rows themselves: each an abs() of a [dim, hidden] bf16 weight."""
    rows = [r for r in report["saved_tensors"] if r["kind"] == "weight-derived"]
    assert rows and all(sorted(r["shape"]) == [DIM, HIDDEN] and r["dtype"] == "bfloat16" for r in rows)
    return len(rows) * DIM * HIDDEN * 2


def _abs_weights(report: dict) -> str:
    """The FFN weights whose abs() the run saves, said as the verdict says them (``layers.*.ffn.{w1,w2,w3}.weight``):
    which of w1, w2, w3 the 2025-01 list saves is the installed torch's partitioner's choice (torch 2.15 no longer
    saves w2's), and at least two are saved."""
    return names_phrase([f"layers.*.ffn.{w}.weight" for w in ffn_weights_saved_as_abs(report["saved_tensors"])])


# -- pure: names, grouping, verdicts over recorded data ------------------------------------------------


def test_names_are_said_once():
    assert names_phrase(["layers.*.ffn.w2.weight", "layers.*.ffn.w1.weight", "layers.*.ffn.w3.weight"]) == (
        "layers.*.ffn.{w1,w2,w3}.weight"
    )
    assert names_phrase(["a.weight"]) == "a.weight"
    assert names_phrase(["x.weight", "y.bias"]) == "x.weight, y.bias"  # nothing in common: listed


def test_one_finding_per_kind_and_cause_with_its_values_listed():
    r = load_report(DATA / "rowwise-legacy")
    findings = find(Evidence(r.saved_tensors, r.saved_totals, r.config.probe(), policy=r.policy))
    (f,) = [f for f in findings if f.kind == "weight-derived-saved"]  # three weights, one cause: one finding
    wd = [row for row in r.saved_tensors if row.kind == "weight-derived"]
    assert f.bytes == sum(row.bytes for row in wd) and f.count == len(wd) == 5
    assert [it.label for it in f.items] == [label(g) for g in group_rows(wd)]
    assert f.what == "abs() of layers.*.ffn.{w1,w2,w3}.weight" and f.flag == "--recompute-op aten.abs"
    assert f.message.count("--recompute-op") == 0 and f.hint.count("--recompute-op") == 1


def test_verdicts_are_derived_from_the_data():
    r = load_report(DATA / "rowwise-legacy")
    r.findings = find(Evidence(r.saved_tensors, r.saved_totals, r.config.probe(), policy=r.policy))
    v = run_verdict(r)
    wd = sum(row.bytes for row in r.saved_tensors if row.kind == "weight-derived")
    assert v.bytes == wd and v.total_bytes == r.saved_totals.graph_bytes == 3278848
    assert v.text.startswith("1.88 MiB of the 3.13 MiB saved for backward per step are abs() of layers.*.ffn.")
    assert v.flag == "--recompute-op aten.abs" and v.text.endswith("fix: recompute it (--recompute-op aten.abs).")
    # without findings: the largest value, named, with its share
    r.findings = []
    v = run_verdict(r)
    top = group_rows([row for row in r.saved_tensors if row.kind != "parameter"])[0]
    assert v.text.startswith("No finding") and label(top) in v.text and v.bytes == top.bytes
    # a report recorded before verdicts gets one computed; a recorded one is used as it is
    data = json.loads((DATA / "rowwise-legacy" / "report.json").read_text())
    assert verdict_of(S.Report.model_validate({**data, "verdict": {"text": "recorded"}})).text == "recorded"
    assert (
        verdict_of(S.Report.model_validate({k: v for k, v in data.items() if k != "verdict"})).text
        == run_verdict(load_report(DATA / "rowwise-legacy")).text
    )


def test_an_a_a_diff_has_a_verdict_of_no_difference():
    r = load_report(DATA / "rowwise-legacy")
    v = diff_verdict(diff_reports(r, r))
    assert v.bytes == 0 and v.text.startswith("No difference: A and B save the same 3.13 MiB")


# -- the default repro, rendered at 100 and 80 columns -------------------------------------------------------


@pytest.mark.e2e
def test_run_fits_one_screen_with_the_verdict_first(runs):
    report = runs(*LEGACY_ROWWISE).report
    v = report["verdict"]
    truth = _wd_ground_truth(report)
    assert v["bytes"] == truth and v["total_bytes"] == report["saved_totals"]["graph_bytes"]
    assert v["flag"] == "--recompute-op aten.abs"
    labels = [label(g) for g in group_rows(load_report(runs(*LEGACY_ROWWISE).path).saved_tensors)[:TOP_ROWS]]
    for width in (100, 80):
        lines = _render(print_run, S.Report.model_validate(report), width)
        # the `next:` command stays one line, whatever the width: copied, it runs
        assert all(len(line) <= width for line in lines if not line.startswith("next: "))
        head = " ".join(" ".join(lines[:5]).split())
        assert "verdict:" in head and f"abs() of {_abs_weights(report)}" in head
        assert f"{truth / 2**20:.2f} MiB" in head and "--recompute-op aten.abs" in head
        _no_cut_word(lines, labels)
        if width == 100:
            assert len(lines) <= 40, "\n".join(lines)
    wide = _render(print_run, S.Report.model_validate(report), 300, wide=True)
    assert any("abs(permute(layers.*.ffn.w" in line for line in wide)  # the op chain, under --wide
    assert any("torchao/float8" in line for line in wide)  # the library frame, under --wide


@pytest.mark.e2e
def test_diff_bf16_fp8_fits_one_screen_with_the_verdict_first(runs):
    a, b = runs(*LEGACY_BF16).report, runs(*LEGACY_ROWWISE).report
    typed_a, typed_b = load_report(runs(*LEGACY_BF16).path), load_report(runs(*LEGACY_ROWWISE).path)
    record = diff_reports(typed_a, typed_b)
    record.verdict = diff_verdict(record)
    d = dump(record)
    truth = _wd_ground_truth(b)
    assert d["verdict"]["bytes"] == truth  # abs() of the weights: B only
    assert d["verdict"]["total_bytes"] == b["saved_totals"]["graph_bytes"] - a["saved_totals"]["graph_bytes"]
    for width in (100, 80):
        lines = _render(print_diff, record, width)
        # the `next:` command stays one line, whatever the width: copied, it runs
        assert all(len(line) <= width for line in lines if not line.startswith("next: "))
        head = " ".join(" ".join(lines[:5]).split())
        assert f"abs() of {_abs_weights(b)}" in head and f"{truth / 2**20:.2f} MiB" in head
        if width == 100:
            assert len(lines) <= 40 and "--recompute-op aten.abs" in head, "\n".join(lines)
        _no_cut_word(lines, [label(it) for it in record.items[:TOP_ROWS]])
    # A/A: the same run on both sides shows exactly zero
    same = diff_reports(typed_b, typed_b)
    assert same.differences == 0 and same.totals.saved_bytes.delta == 0 and diff_verdict(same).bytes == 0


@pytest.mark.e2e
def test_one_value_has_one_name_everywhere(runs, tmp_path):
    from memprobe.report.html import render_diff, render_run
    from memprobe.report.markdown import diff_markdown

    rw = runs(*LEGACY_ROWWISE)
    report = rw.report
    finding = report["findings"][0]
    name = finding["items"][0]["label"]
    assert name == finding["label"] and re.fullmatch(r"abs\(t\(layers\.\*\.ffn\.w[123]\.weight\)\)", name)
    # the table
    table = [g for g in group_rows(load_report(rw.path).saved_tensors) if label(g) == name]
    assert len(table) == 1 and any(name in line for line in _render(print_run, S.Report.model_validate(report), 160))
    # the finding's message names it the same way, never by its op chain
    assert name in finding["message"] and table[0].expr not in finding["message"]
    # the diff item, its Markdown and both HTML pages
    from memprobe.analysis.view import finished

    # finished as a diff's record is before anything renders it (its verdict; reporters only render)
    record = finished("diff", diff_reports(load_report(runs(*LEGACY_BF16).path), load_report(rw.path)))
    d = dump(record)
    (item,) = [it for it in d["items"] if it["expr"] == table[0].expr]
    assert item["label"] == name
    assert f"`{name}`" in diff_markdown(record)
    assert html.escape(name) in render_diff(record, None, None)
    assert f"<code>{html.escape(name)}</code>" in render_run(S.Report.model_validate(report), rw.path, None)

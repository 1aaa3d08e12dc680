"""Reports people look at (issue 8): self-contained HTML checked in headless Chromium,
PR Markdown against committed snapshots, and the Chrome trace format.

Inputs are the committed H200 run directories (tests/data/cuda, see the README there), so
nothing is compiled here. Chromium is the Debian package `chromium` that .ci/run installs;
where it is missing the browser tests skip, unless MEMPROBE_REQUIRE_BROWSER=1 (set by .ci/run).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import TINY, invoke, run_cli
from markupsafe import escape

from memprobe.analysis.verdict import verdict_of
from memprobe.rundir import schema as S
from memprobe.rundir.load import dump

DATA = Path(__file__).parent / "data" / "cuda"
SNAPSHOTS = Path(__file__).parent / "snapshots"
BF16, ROWWISE = DATA / "bf16-legacy", DATA / "rowwise-legacy"
TINY_ROWWISE = Path(__file__).parent / "data" / "cpu" / "tiny-rowwise"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _browser():
    if CHROMIUM is None:
        if os.environ.get("MEMPROBE_REQUIRE_BROWSER") == "1":
            pytest.fail("chromium is required here (MEMPROBE_REQUIRE_BROWSER=1) but not installed")
        pytest.skip("chromium not installed (apt-get install chromium); .ci/run installs it")
    return CHROMIUM


def _render_in_browser(html: Path, shot: Path) -> tuple[str, str]:
    """The DOM after the page's script ran, and Chromium's log (console messages included)."""
    common = [
        _browser(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=10000",
        "--window-size=1400,2400",
    ]
    dom = subprocess.run(common + ["--dump-dom", html.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    snap = subprocess.run(common + [f"--screenshot={shot}", html.as_uri()], capture_output=True, text=True, timeout=120)
    assert snap.returncode == 0 and shot.is_file() and shot.stat().st_size > 10_000, snap.stderr[-2000:]
    return dom.stdout, dom.stderr + snap.stderr


def _console_errors(log: str) -> list[str]:
    """The page logs nothing of its own: any console message (an uncaught error, a blocked
    network load reported by the Content-Security-Policy) is a failure."""
    return [ln for ln in log.splitlines() if ":CONSOLE" in ln or "Refused to" in ln]


def _assert_offline(page: str) -> None:
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # nothing that would fetch: no external src/href, stylesheet link, CSS url()/@import, or fetch API
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "fetch(" not in page and "XMLHttpRequest" not in page


@pytest.fixture(scope="module")
def fixture_diff(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports") / "diff"
    proc = invoke("diff", BF16, ROWWISE, "--out", out, "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
def test_run_html_draws_offline_in_chromium(tmp_path):
    html = tmp_path / "run.html"
    proc = invoke("report", ROWWISE, "-o", html)
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = html.read_text()
    _assert_offline(page)
    # the saved table links the abs items to their output-code lines, which are embedded
    links = re.findall(r'href="#(code-g\d\.forward-L\d+)">', page)
    assert links and all(f'id="{a}"' in page for a in links)
    assert "abs(permute(layers.1.ffn.w2.weight))" in page
    # the verdict first, the same sentence the run records
    verdict = verdict_of(S.Report.model_validate(json.loads(invoke("show", ROWWISE, "--json").stdout)))
    assert page.index('id="verdict"') < page.index('id="findings"') and escape(verdict.text) in page
    dom, log = _render_in_browser(html, tmp_path / "run.png")
    # one chart over time and one per compiled graph (4), each with its drawn series
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-rendered="5"' in body and "data-errors" not in body, body
    assert dom.count('class="series"') >= 5 and 'class="band"' in dom and 'class="mark"' in dom
    # the timeline stacked by category: one filled area each, saved-for-backward among them
    categories = set(json.loads(re.search(r'id="memprobe-data">(.*?)</script>', page).group(1))["timeline"]["categories"])
    assert set(re.findall(r'class="area" data-name="([^"]+)"', dom)) == categories and "saved-for-backward" in categories
    assert dom.count('class="kernel"') >= 4  # the kernel calls along each graph's x-axis
    assert "saved-for-backward" in dom and "forward" in dom
    assert not _console_errors(log), _console_errors(log)


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
def test_the_page_of_a_run_that_compiled_nothing_draws_its_timeline_offline_in_chromium(tmp_path):
    """A step that compiled nothing (an eager script): its page has no compiled-graph sections, and its script, which
    drew into the graphs' section unconditionally, draws the timeline without an error."""
    run = tmp_path / "eager"
    shutil.copytree(TINY_ROWWISE, run)
    recorded = json.loads((run / "report.json").read_text())
    for derived in ("view", "verdict"):
        recorded.pop(derived, None)
    recorded.update(saved_tensors=[], graphs=[], graph_memory=[], invocations=[], findings=[], checks=[])
    recorded["saved_outside"] = {
        "total_bytes": 4096,
        "parameters_bytes": 0,
        "modules": [{"module": f"layers.{i}.ffn", "bytes": 2048, "storages": 1} for i in range(2)],
    }
    (run / "report.json").write_text(json.dumps(recorded))
    html = tmp_path / "eager.html"
    proc = invoke("report", run, "-o", html)
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = html.read_text()
    assert 'id="graphs"' not in page and "<code>layers.*.ffn</code>" in page
    dom, log = _render_in_browser(html, tmp_path / "eager.png")
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-rendered="1"' in body and "data-errors" not in body, body
    assert not _console_errors(log), _console_errors(log)


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
def test_diff_html_draws_both_runs_on_one_axis(tmp_path):
    html = tmp_path / "diff.html"
    # the page of a diff just computed reads its sides where they are (`memprobe report DIFF_DIR` only inside it)
    proc = invoke("diff", BF16, ROWWISE, "--html", html, "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = html.read_text()
    _assert_offline(page)
    assert page.index("abs(permute(layers.*.ffn.w2.weight))") < page.index("reciprocal(view(exp2")  # ranked
    # the verdict first: the same sentence as diff.json's
    verdict = json.loads(invoke("diff", BF16, ROWWISE, "--json", "-q").stdout)["verdict"]["text"]
    assert page.index('id="verdict"') < page.index('id="timeline"') and escape(verdict) in page
    dom, log = _render_in_browser(html, tmp_path / "diff.png")
    body = re.search(r"<body[^>]*>", dom).group(0)
    # one axis for both totals, then each run stacked by category on a shared scale
    assert 'data-rendered="3"' in body and "data-errors" not in body, body
    assert 'data-name="A total allocated"' in dom and 'data-name="B total allocated"' in dom
    assert dom.count('class="area" data-name="saved-for-backward"') == 2
    assert not _console_errors(log), _console_errors(log)


DIFF_TINY = Path(__file__).parent / "data" / "cpu" / "diff-tiny"  # a committed diff directory (tests/data/README.md)

# what the page lays out, read in the browser: each phase band's box (the diff page's charts), each text of a chart
# outside its chart or its band, each table cell whose text is cut, each table wider than its section, and the y ticks
LAYOUT = r"""(() => {
 const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
 const out = (a, o) => a.l < o.l - 0.5 || a.r > o.r + 0.5 || a.t < o.t - 0.5 || a.b > o.b + 0.5;
 const charts = Array.from(document.querySelectorAll('svg.chart'));
 return {
  page: {width: innerWidth, scroll: document.documentElement.scrollWidth},
  bands: Array.from(document.querySelectorAll('svg.chart rect.band')).map(b =>
   ({chart: b.closest('[id]').id, side: b.dataset.side, phase: b.dataset.phase, ...box(b)})),
  labels: Array.from(document.querySelectorAll('svg.chart text.band-label')).map(t => t.textContent),
  outside_chart: charts.flatMap(svg => Array.from(svg.querySelectorAll('text'))
   .filter(t => out(box(t), box(svg)) || box(svg).r > innerWidth).map(t => t.textContent)),
  outside_band: Array.from(document.querySelectorAll('svg.chart text.band-label')).filter(t => out(box(t), box(
   t.parentNode.querySelector(`rect.band[data-side="${t.dataset.side}"][data-phase="${t.dataset.phase}"]`))))
   .map(t => t.textContent),
  cut_cells: Array.from(document.querySelectorAll('td, th')).filter(c => c.scrollWidth > c.clientWidth + 1)
   .map(c => c.textContent.slice(0, 60)),
  wide_tables: Array.from(document.querySelectorAll('table')).filter(t => out(box(t), box(t.closest('section'))))
   .map(t => t.closest('section').querySelector('h2').textContent),
  yticks: charts.map(svg => Array.from(svg.querySelectorAll('text.ytick')).map(t => t.textContent)),
 };
})()"""

_UNIT = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


def _tick_bytes(label: str) -> float:
    number, unit = label.split(" ")
    return float(number) * _UNIT[unit]


def _assert_round_ticks(charts: list[list[str]]) -> None:
    """Each chart's byte axis: 0, then even steps of whole bytes (256 KiB, 20 MiB, never 13.32 MiB)."""
    for ticks in charts:
        values = [_tick_bytes(t) for t in ticks]
        steps = {round(b - a) for a, b in zip(values, values[1:])}
        assert values[0] == 0 and len(steps) == 1 and all(v == int(v) for v in values), ticks


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
@pytest.mark.parametrize("width", [1000, 2000])
def test_diff_page_aligns_the_sides_by_phase_and_clips_nothing(tmp_path, width):
    """The page of a committed diff directory, at 1,000 and 2,000 px: each side's forward, backward and optimizer
    start and end at the same x on every chart, each band says its side, no label leaves its chart or its band, no
    table cell or table is cut, and the byte axis ticks at round values."""
    from browser import Page

    html = tmp_path / "diff.html"
    proc = invoke("report", DIFF_TINY, "-o", html)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with Page(_browser(), width) as page:
        page.open(html)
        page.screenshot(tmp_path / f"diff-{width}.png")
        got = page.evaluate(LAYOUT)
        assert not page.log, page.log
    assert got["page"]["scroll"] <= got["page"]["width"], got["page"]
    bands = got["bands"]
    # the chart of both totals has a row of bands per side; each side's stacked chart its own; all on one x per phase
    assert {(b["chart"], b["side"]) for b in bands} == {
        ("timeline", "A"),
        ("timeline", "B"),
        ("timeline-a", "A"),
        ("timeline-b", "B"),
    }
    for phase in ("forward", "backward", "optimizer"):
        spans = {(round(b["l"], 1), round(b["r"], 1)) for b in bands if b["phase"] == phase}
        assert len(spans) == 1 and len([b for b in bands if b["phase"] == phase]) == 4, (phase, spans)
    forward, backward, optimizer = (next(b for b in bands if b["phase"] == p) for p in ("forward", "backward", "optimizer"))
    assert forward["r"] <= backward["l"] + 0.5 and backward["r"] <= optimizer["l"] + 0.5
    assert all(label.split(" ")[0] in ("A", "B") for label in got["labels"]) and len(got["labels"]) == len(bands)
    assert not got["outside_chart"] and not got["outside_band"], (got["outside_chart"], got["outside_band"])
    assert not got["cut_cells"] and not got["wide_tables"], (got["cut_cells"], got["wide_tables"])
    _assert_round_ticks(got["yticks"])


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
@pytest.mark.parametrize("width", [1000, 1400, 2000])
def test_run_page_cuts_no_column_and_no_label(tmp_path, width):
    """The run page at 1,000 to 2,000 px (the issue's 1,400 among them): the saved table's columns (the output
    code's too) inside their section, and the last x label and the last phase's band label inside the chart."""
    from browser import Page

    html = tmp_path / "run.html"
    assert invoke("report", TINY_ROWWISE, "-o", html).returncode == 0
    with Page(_browser(), width) as page:
        page.open(html)
        got = page.evaluate(LAYOUT)
        assert not page.log, page.log
    assert got["page"]["scroll"] <= got["page"]["width"]
    assert not got["cut_cells"] and not got["wide_tables"], (got["cut_cells"], got["wide_tables"])
    assert not got["outside_chart"] and not got["outside_band"], (got["outside_chart"], got["outside_band"])
    assert "optimizer" in got["labels"] or "opt" in got["labels"]
    _assert_round_ticks(got["yticks"])


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
def test_snapshot_html_draws_its_history_offline_in_chromium(tmp_path):
    """A snapshot taken elsewhere (issue 39): its whole history stacked by category, what is alive at its peak."""
    html = tmp_path / "snapshot.html"
    proc = invoke("report", ROWWISE / "snapshot.pickle", "-o", html)
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = html.read_text()
    _assert_offline(page)
    assert page.index('id="verdict"') < page.index('id="scope"') < page.index('id="timeline"') < page.index('id="frames"')
    assert "/work/main/repros/ffn.py:35 in forward" in page
    dom, log = _render_in_browser(html, tmp_path / "snapshot.png")
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-rendered="1"' in body and "data-errors" not in body, body
    categories = set(json.loads(re.search(r'id="memprobe-data">(.*?)</script>', page).group(1))["timeline"]["categories"])
    assert set(re.findall(r'class="area" data-name="([^"]+)"', dom)) == categories and "optimizer-state" in categories
    # the axis is the history's events in order: its steps and peak are not squeezed to the right of a long quiet start
    assert "the history's moments in order, one step each" in dom
    assert not _console_errors(log), _console_errors(log)


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
def test_snapshot_diff_html_draws_both_histories_on_one_axis(tmp_path):
    html = tmp_path / "diff.html"
    proc = invoke("diff", BF16 / "snapshot.pickle", ROWWISE / "snapshot.pickle", "--html", html, "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = html.read_text()
    _assert_offline(page)
    dom, log = _render_in_browser(html, tmp_path / "diff.png")
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-rendered="3"' in body and "data-errors" not in body, body
    assert 'data-name="A total allocated"' in dom and 'data-name="B total allocated"' in dom
    assert "grown in B" not in page and "grown" in page  # the status, as the HTML diff writes it
    assert not _console_errors(log), _console_errors(log)


def test_report_refuses_to_overwrite_and_names_bad_input(tmp_path):
    html = tmp_path / "x.html"
    html.write_text("mine")
    proc = invoke("report", ROWWISE, "-o", html)
    assert proc.returncode == 2 and "exists; pass --force" in proc.stderr and html.read_text() == "mine"
    proc = invoke("report", tmp_path, "-o", tmp_path / "y.html")
    assert proc.returncode == 2 and "holds no report.json or diff.json" in proc.stderr


def test_trace_is_valid_chrome_trace_json(tmp_path):
    trace = tmp_path / "trace.json"
    proc = invoke("report", ROWWISE, "-o", tmp_path / "r.html", "--trace", trace)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(trace.read_text())
    events = doc["traceEvents"]
    assert isinstance(events, list) and events
    for e in events:
        assert e["ph"] in {"X", "C", "M"} and isinstance(e["pid"], int) and isinstance(e["name"], str)
        if e["ph"] != "M":
            assert isinstance(e["ts"], (int, float))
        if e["ph"] == "X":
            assert e["dur"] >= 0 and isinstance(e["tid"], int)
        if e["ph"] == "C":
            assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values())
    phases = [e["name"] for e in events if e["ph"] == "X" and e.get("cat") == "phase"]
    assert phases == ["forward", "backward", "optimizer"]
    counters = {e["name"] for e in events if e["ph"] == "C"}
    assert "allocated bytes" in counters and "allocated: saved-for-backward" in counters
    # the counter's peak is the allocator's replayed peak: what the allocator measured on the H200, to the byte
    rep = json.loads((ROWWISE / "report.json").read_text())
    peak = max(e["args"]["total"] for e in events if e["name"] == "allocated bytes")
    measured = max(p["peak_bytes"] for p in rep["memory"]["phases"].values())
    assert peak == doc["otherData"]["memprobe"]["peak"]["bytes"] == measured


def _page_timeline(page: Path) -> dict:
    return json.loads(re.search(r'id="memprobe-data">(.*?)</script>', page.read_text()).group(1))["timeline"]


def test_the_run_page_draws_the_timeline_its_run_stored_and_never_opens_the_snapshot(tmp_path):
    """A run's timeline is computed once, when the run is finished, and stored in its directory (timeline.json):
    `memprobe report` draws and traces it as stored, so its snapshot gone, or garbage in its place, changes nothing."""
    from memprobe.orchestrate.finish import finish_run
    from memprobe.rundir.load import load_report, load_stored_timeline

    run = tmp_path / "rowwise"
    shutil.copytree(ROWWISE, run)
    assert invoke("report", run, "-o", tmp_path / "recorded.html").returncode == 0  # finished before timelines were stored
    finish_run(run, load_report(run).config.probe())  # what memprobe does when a probe's run ends
    stored = load_stored_timeline(run)
    assert stored is not None and stored.source == "cuda-snapshot"
    for snapshot in (b"not a pickle", None):
        if snapshot is None:
            (run / "snapshot.pickle").unlink()
        else:
            (run / "snapshot.pickle").write_bytes(snapshot)
        page, trace = tmp_path / "page.html", tmp_path / "trace.json"
        proc = invoke("report", run, "-o", page, "--trace", trace, "--force")
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert _page_timeline(page) == _page_timeline(tmp_path / "recorded.html") == dump(stored)
        assert json.loads(trace.read_text())["otherData"]["memprobe"]["peak"] == dump(stored.peak)


def test_a_run_page_shows_what_was_saved_outside_the_graphs_each_layers_copy_one_row(tmp_path):
    """An eager script's step saves everything outside compiled graphs: its page showed an empty compiled-graph table
    and none of it. The page lists saved_outside by module, each layer's copy of a module one row with its count and
    their bytes' sum, and leaves out the compiled graphs' sections where the run has none."""
    from memprobe.analysis.view import finish_report
    from memprobe.report.html import render_run
    from memprobe.rundir.load import load_report

    report = load_report(TINY_ROWWISE)
    modules = [
        S.SavedByModule(module=m, bytes=b, storages=1)
        for m, b in [("h.0.mlp", 3 << 20), ("h.1.mlp", 3 << 20), ("(loss)", 1 << 20)]
    ]
    report.saved_outside = S.SavedOutside(total_bytes=7 << 20, parameters_bytes=0, modules=modules)
    report.view = None
    page = render_run(finish_report(report), TINY_ROWWISE, None)
    section = page[page.index('<section id="saved-outside">') :]
    section = section[: section.index("</section>")]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", section))
    assert re.search(r"h\.\*\.mlp 2 6\.00 MiB 86% .*\(loss\) 1 1\.00 MiB 14%", text), text
    assert "h.0.mlp" not in text and "7.00 MiB saved for backward outside the compiled graphs" in text
    assert '<section id="saved">' in page and 'id="graphs"' in page  # a compiled run keeps its graphs' sections
    # a step that compiled nothing: no empty compiled-graph sections
    report.saved_tensors, report.graphs, report.graph_memory = [], [], []
    eager = render_run(finish_report(report), TINY_ROWWISE, None)
    assert '<section id="saved">' not in eager and 'id="graphs"' not in eager and '<section id="saved-outside">' in eager


def test_a_runs_finish_reads_its_snapshot_once(tmp_path, monkeypatch):
    """Finishing a CUDA run reads its snapshot for the attribution and for the timeline: one load serves both (a large
    snapshot's load is most of the finish), and the timeline it stores is the one a fresh load computes."""
    from memprobe.analysis import snapshot as snapshots
    from memprobe.analysis.timeline import timeline
    from memprobe.orchestrate.finish import finish_run
    from memprobe.rundir.load import load_report, load_stored_timeline

    run = tmp_path / "rowwise"
    shutil.copytree(ROWWISE, run)
    loads, load = [], snapshots._load_snapshot
    monkeypatch.setattr(snapshots, "_load_snapshot", lambda *a, **k: loads.append(a[0]) or load(*a, **k))
    finish_run(run, load_report(run).config.probe())
    assert loads == [run / "snapshot.pickle"]
    assert dump(load_stored_timeline(run)) == dump(timeline(load_report(run), run))
    assert len(loads) == 2  # outside a finish, each read loads the file


def test_diff_markdown_matches_the_snapshot():
    proc = invoke("diff", BF16, ROWWISE, "--markdown")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == (SNAPSHOTS / "diff-bf16-vs-rowwise.md").read_text()


GATE_ROWWISE = (  # a budget file the recorded rowwise run breaches
    '[probes.ffn-rowwise]\nrecipe = "rowwise"\ndim = 256\nhidden = 768\nseq = 128\nac_policy = "torchtitan-2025-01"\n'
    'device = "cuda"\nsteps = 3\n\n[probes.ffn-rowwise.limits]\nsaved_bytes = "2 MiB"\nweight_derived_saved_bytes = 0\n\n'
    '[probes.ffn-rowwise.limits.cuda]\nforward_peak_bytes = "128 MiB"\n'
)


def test_gate_markdown_matches_the_snapshot(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_ROWWISE)
    proc = invoke("gate", "--budget", budget, "--from", ROWWISE, "--markdown")
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert proc.stdout.replace(str(budget), "BUDGET") == (SNAPSHOTS / "gate-rowwise.md").read_text()
    html = tmp_path / "gate.html"
    assert invoke("gate", "--budget", budget, "--from", ROWWISE, "--html", html, "-q").returncode == 1
    _assert_offline(html.read_text())
    assert "FAIL" in html.read_text()


def _prose(data) -> list[str]:
    """The sentences of a JSON document: its strings of more than one word."""
    if isinstance(data, dict):
        return [x for v in data.values() for x in _prose(v)]
    if isinstance(data, list):
        return [x for v in data for x in _prose(v)]
    return [data] if isinstance(data, str) and " " in data else []


GATE_TINY = (  # a budget file the committed rowwise side of diff-tiny breaches; a limit per kind of name
    '[probes.ffn-rowwise]\nrecipe = "rowwise"\ndim = 64\nhidden = 128\nseq = 32\nlayers = 1\n'
    'ac_policy = "torchtitan-2025-01"\ndevice = "cpu"\n\n[probes.ffn-rowwise.limits]\nsaved_bytes = "32 KiB"\n'
    'weight_derived_saved_bytes = 0\n\n[probes.ffn-rowwise.limits.cpu]\nforward_peak_bytes = "1 MiB"\n\n'
    '[probes.ffn-rowwise.limits.baseline]\nsaved_bytes = "+5%"\n'
)
LIMIT_NAMES = ["saved_bytes", "weight_derived_saved_bytes", "cpu.forward_peak_bytes", "baseline.saved_bytes"]


def test_a_fix_and_a_limit_have_one_spelling_in_every_output(tmp_path):
    """One run (the rowwise side of the committed diff-tiny) and one gate over it: the fix names the op as the flag
    takes it (`aten.abs`, never `aten.abs.default`) in the console's verdict and findings, report.json, diff.json,
    and the gate's console, JSON, Markdown, JUnit and HTML; each limit has the console's name in all of them, and
    no two rows of the gate's page share one."""
    from xml.etree import ElementTree as ET

    run = DIFF_TINY / "b"
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_TINY)
    gate = ("gate", "--budget", budget, "--from", run, "--baseline", tmp_path / "none.json")
    files = {"junit": tmp_path / "g.xml", "html": tmp_path / "g.html"}
    outputs = {
        "console (run)": invoke("show", run).stdout,
        "report.json": (run / "report.json").read_text(),
        "diff.json": (DIFF_TINY / "diff.json").read_text(),
        "console (diff)": invoke("show", DIFF_TINY).stdout,
        "console (gate)": invoke(*gate).stdout,
        "gate --json": invoke(*gate, "--json", "-q").stdout,
        "gate --markdown": invoke(*gate, "--markdown", "-q").stdout,
    }
    assert invoke(*gate, "--junit", files["junit"], "--html", files["html"], "-q").returncode == 1
    outputs |= {name: path.read_text() for name, path in files.items()}
    verdicts = json.loads(outputs["gate --json"])["verdicts"]
    for name in ("report.json", "diff.json", "gate --json"):  # what a person reads of them (an op's data keeps its overload)
        outputs[name] = "\n".join(_prose(json.loads(outputs[name])))
    for name, text in outputs.items():
        assert "--recompute-op aten.abs" in text.replace("\n", " ") and "aten.abs.default" not in text, name
    # the limits: the same names in the console, the JSON, Markdown, JUnit and HTML; never the bare figure's name
    assert [v["name"] for v in verdicts] == LIMIT_NAMES
    for name in LIMIT_NAMES:
        assert f" {name} " in outputs["console (gate)"] and f"`{name}`" in outputs["gate --markdown"]
    junit_names = [case.get("name") for case in ET.fromstring(outputs["junit"]).iter("testcase")]
    assert junit_names == LIMIT_NAMES
    invoke(*gate, "--csv", tmp_path / "g.csv", "-q")
    assert [row["name"] for row in csv.DictReader((tmp_path / "g.csv").open())] == LIMIT_NAMES

    # the gate page's metric column (the second cell of each row): no two rows named alike
    assert re.findall(r"<tr[^>]*><td[^>]*>[^<]*</td><td[^>]*><code>([^<]*)</code>", outputs["html"]) == LIMIT_NAMES


_RIGHT = {"#", "bytes", "share", "x", "A", "B", "delta"}  # the compact tables' figures, right-aligned


def _table(text: str, title: str) -> list[dict[str, str]]:
    """A compact console table under its title: a dict per row, keyed by the header's words (a left-aligned cell
    starts where its header does; a figure's ends where its header does)."""
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith(title))
    header = lines[k + 1]
    words = [(m.group(), m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", header)]
    cuts = [0] + [start if w not in _RIGHT else prev_end for (w, start, _), (_, _, prev_end) in zip(words[1:], words)]
    rows = []
    for line in lines[k + 2 :]:
        if not re.match(r"^\s*(\d+|only in|grown in|shrunk in) ", line):
            break
        bounds = [*cuts, max(len(line), len(header)) + 1]
        rows.append({w: line[a:b].strip() for (w, _, _), a, b in zip(words, bounds, bounds[1:])})
    return rows


@pytest.mark.parametrize("columns", ["80", "40", "100"])
def test_at_80_columns_a_cut_keeps_the_op_and_the_file_and_next_is_one_line(columns):
    """`COLUMNS=80 memprobe show` of a committed run and a committed diff: no cell's ellipsis hides a value's op or
    the file and line that made it, "why" keeps its cause's words, and the `next:` command is one line, unwrapped,
    whatever the width (a terminal may wrap it on screen; the text has no newline in it)."""
    cases = [(TINY_ROWWISE, "Saved for backward, per step"), (DIFF_TINY, "What B keeps alive")]
    for recorded, title in cases:
        shown = invoke("show", recorded, env={"COLUMNS": columns}).stdout
        verdict = json.loads(invoke("show", recorded, "--json").stdout)["verdict"]
        assert f"\nnext: {verdict['next_command']}\n" in shown, shown[-600:]  # one line, whole
        if columns == "40":
            continue  # too narrow for the table: only the next line is asked of it
        assert max(len(line) for line in shown.splitlines() if not line.startswith("next: ")) <= int(columns)
        rows = _table(shown, title)
        assert rows and all("where" in row for row in rows), shown  # each was made in the user's code
        for row in rows:
            name, where, why = row["saved value"], row.get("where", ""), row["why"]
            if "(" in name or name.endswith("…"):
                assert re.match(r"^[A-Za-z_][\w.]*\(", name), row  # the op and its parenthesis survive
            assert not where or re.fullmatch(r"(…/|/)?([\w.-]+/)*[\w.-]+\.py:\d+", where), row
            assert not why.endswith("…") and why in {
                "MUST_SAVE",
                "policy MUST_SAVE",
                "aten.abs",
                "policy aten.abs",
                "parameter",
                "parameter input",
                "input",
                "graph input",
            }, row


# snapshot file -> the verb's arguments and exit code: each console view of the recorded runs (console.txt
# snapshots were written by the code before report/console.py was split by verb, and match it byte for byte)
CONSOLE_VIEWS = {
    "console-run-rowwise.txt": (["show", "rowwise-legacy"], 0),
    "console-run-rowwise-wide.txt": (["show", "rowwise-legacy", "--wide"], 0),
    "console-diff-bf16-vs-rowwise.txt": (["diff", "bf16-legacy", "rowwise-legacy", "-q"], 0),
    "console-diff-bf16-vs-rowwise-wide.txt": (["diff", "bf16-legacy", "rowwise-legacy", "-q", "--wide"], 0),
    "console-bisect-h200.txt": (["show", "bisect"], 0),
    "console-gate-rowwise.txt": (["gate", "--budget", "memprobe.toml", "--from", "rowwise-legacy", "-q"], 1),
}


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """The recorded runs, a bisect and a budget file, under short relative names (the output names them)."""
    for name in ("bf16-legacy", "rowwise-legacy"):
        shutil.copytree(DATA / name, tmp_path / name)
    (tmp_path / "bisect").mkdir()
    shutil.copy(DATA / "bisect-h200.json", tmp_path / "bisect" / "bisect.json")
    (tmp_path / "memprobe.toml").write_text(GATE_ROWWISE)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("snapshot", sorted(CONSOLE_VIEWS))
def test_console_views_match_their_snapshots(recorded, snapshot):
    """The console of run, diff, bisect and gate at 100 columns, byte for byte, through the CLI in this process."""
    from click.testing import CliRunner

    from memprobe.cli.main import cli

    args, code = CONSOLE_VIEWS[snapshot]
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "100"})
    assert result.exit_code == code, result.output[-2000:]
    assert result.stdout == (SNAPSHOTS / snapshot).read_text()


@pytest.mark.e2e
def test_run_writes_html_and_trace_next_to_its_run_directory(tmp_path):
    html, trace = tmp_path / "run.html", tmp_path / "trace.json"
    proc = run_cli(
        "run",
        "--recipe",
        "bf16",
        *TINY,
        "--out",
        tmp_path / "r",
        "--html",
        html,
        "--trace",
        trace,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"html report: {html}" in proc.stdout and f"trace: {trace}" in proc.stdout
    _assert_offline(html.read_text())
    events = json.loads(trace.read_text())["traceEvents"]
    # CPU: the profiler's regions and outermost aten ops are on their tracks
    assert any(e.get("cat") == "op" for e in events) and any(e.get("cat") == "region" for e in events)
    proc = invoke("run", "--analysis-only", "--out", tmp_path / "a", "--trace", tmp_path / "t2.json")
    assert proc.returncode == 2 and "--trace needs a measured step" in proc.stderr

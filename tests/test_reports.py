"""Reports people look at (issue 8): self-contained HTML checked in headless Chromium,
PR Markdown against committed snapshots, and the Chrome trace format.

Inputs are the committed H200 run directories (tests/data/cuda, see the README there), so
nothing is compiled here. Chromium is the Debian package `chromium` that .ci/run installs;
where it is missing the browser tests skip, unless MEMPROBE_REQUIRE_BROWSER=1 (set by .ci/run).
"""

from __future__ import annotations

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

DATA = Path(__file__).parent / "data" / "cuda"
SNAPSHOTS = Path(__file__).parent / "snapshots"
BF16, ROWWISE = DATA / "bf16-legacy", DATA / "rowwise-legacy"
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
    assert "ms from the first event of the recorded history" in dom
    assert not _console_errors(log), _console_errors(log)


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
    # the counter's peak is the allocator's replayed peak (what the attribution reports)
    rep = json.loads((ROWWISE / "report.json").read_text())
    peak = max(e["args"]["total"] for e in events if e["name"] == "allocated bytes")
    assert peak == doc["otherData"]["memprobe"]["peak"]["bytes"] == rep["attribution"]["peak_bytes"]


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

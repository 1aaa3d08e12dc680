"""A run directory, a diff or a budget file from someone else: memprobe treats every file it reads as untrusted.

Each test here failed before its fix: --force deleting what memprobe did not write, a probe that
never ran passing the gate, overwrites, script injection in the HTML page, files outside the run
directory embedded in a report, hostile snapshots exhausting memory or time, exit 70 on bad input,
terminal injection, the model's prints in --json output, signals during the model's import.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import pickle
import re
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from conftest import TINY, invoke, run_cli, start_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
CUDA = Path(__file__).parent / "data" / "cuda"
ROWWISE = CUDA / "rowwise-legacy"
BF16 = CUDA / "bf16-legacy"


def _copy_run(tmp_path: Path, name: str = "run") -> Path:
    dst = tmp_path / name
    shutil.copytree(ROWWISE, dst)
    return dst


def _edit_report(run: Path, edit) -> None:
    report = json.loads((run / "report.json").read_text())
    edit(report)
    (run / "report.json").write_text(json.dumps(report))


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr


# -- 1. --force deletes only what memprobe wrote -----------------------------------------------------


def test_force_never_deletes_a_directory_memprobe_did_not_write(tmp_path):
    victim = tmp_path / "P"
    (victim / "src").mkdir(parents=True)
    (victim / "src" / "a.py").write_text("precious = 1\n")
    (victim / "report.json").write_text("{}")  # a report.json is no proof of ownership
    err = _one_line(invoke("explain", tmp_path / "nonexistent", "--out", victim, "--force"))
    assert "does not exist" in err  # the arguments are checked before --out is touched
    err = _one_line(invoke("run", "--analysis-only", *TINY, "--out", victim, "--force"))
    assert "not a memprobe run directory" in err
    assert (victim / "src" / "a.py").read_text() == "precious = 1\n" and not (victim / ".memprobe").exists()
    # memprobe's own marker, but a file someone added since: still refused
    (victim / "report.json").unlink()
    shutil.rmtree(victim / "src")
    (victim / ".memprobe").write_text("written by memprobe; `--force` may replace this directory\n")
    (victim / "notes.txt").write_text("mine")
    err = _one_line(invoke("run", "--analysis-only", *TINY, "--out", victim, "--force"))
    assert "notes.txt" in err and (victim / "notes.txt").read_text() == "mine"


def test_a_symlinked_out_is_refused_in_one_line(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    err = _one_line(invoke("run", "--analysis-only", *TINY, "--out", link, "--force"))
    assert "symbolic link" in err and not any(real.iterdir())


@pytest.mark.e2e
def test_force_replaces_what_memprobe_wrote(tmp_path):
    out = tmp_path / "r"
    assert run_cli("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", out, "-q").returncode == 0
    assert invoke("report", out).returncode == 0  # writes report.html into it: memprobe's too
    proc = run_cli("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", out, "--force", "-q")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.e2e
def test_force_replaces_a_sweep_memprobe_wrote(tmp_path):
    # sweep.json is memprobe's own file: --force used to refuse the directory as someone else's
    out = tmp_path / "s"
    args = ("sweep", "--budgets", "1", *TINY, "--recipe", "bf16", "--out", out, "-q")
    assert run_cli(*args).returncode == 0
    proc = run_cli(*args, "--force")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "sweep.json").read_text())["points"][0]["budget"] == 1


# -- 2. the gate never passes a probe that did not run ------------------------------------------------

EXITING_MODEL = """
import sys
import torch.nn as nn
sys.exit(0)  # a module-level argparse does the same
"""
EXITING_FACTORY = """
import sys
def build(device):
    sys.exit(0)
"""


@pytest.mark.e2e
@pytest.mark.parametrize("source", [EXITING_MODEL, EXITING_FACTORY], ids=["at-import", "in-factory"])
def test_a_model_that_exits_is_a_failure_never_a_pass(tmp_path, source):
    model = tmp_path / "exiting.py"
    model.write_text(source)
    err = _one_line(
        run_cli("run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", tmp_path / "r", "-q")
    )
    assert "sys.exit(0)" in err
    assert not (tmp_path / "r").exists()  # refused (exit 2): no run directory is left, nothing said complete
    budget = tmp_path / "memprobe.toml"
    budget.write_text(
        f'[probes.exiting]\nrecipe = "bf16"\nmodel = "{model}:build"\ndevice = "cpu"\n\n'
        '[probes.exiting.limits]\nsaved_bytes = "1 GiB"\n'
    )
    proc = run_cli("gate", "--budget", budget, "--out", tmp_path / "g", "--junit", tmp_path / "gate.xml", "-q")
    err = _one_line(proc)
    assert "probe 'exiting' gave no verdict" in err and "sys.exit(0)" in err


# -- 3. no overwrite without --force -------------------------------------------------------------------


def test_gate_outputs_are_not_overwritten(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(
        '[probes.p]\nrecipe = "rowwise"\ndim = 256\nhidden = 768\nseq = 128\nac_policy = "torchtitan-2025-01"\n'
        'device = "cuda"\nsteps = 3\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n'
    )
    for flag in ("--junit", "--html"):
        existing = tmp_path / f"existing{flag}"
        existing.write_text("keep")
        err = _one_line(invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}", flag, existing))
        assert "exists; pass --force" in err and existing.read_text() == "keep"


@pytest.mark.e2e
def test_budget_keeps_the_other_probes_baselines(tmp_path):
    baseline = tmp_path / "memprobe-baseline.json"
    baseline.write_text(json.dumps({"memprobe_baseline": 1, "probes": {"other": {"figures": {"saved_bytes": 1}}}}))
    budget = tmp_path / "memprobe.toml"
    args = ("budget", "--recipe", "bf16", *TINY, "--name", "tiny", "--budget", budget, "-q")
    assert run_cli(*args).returncode == 0
    probes = json.loads(baseline.read_text())["probes"]
    assert set(probes) == {"other", "tiny"}
    budget.unlink()
    err = _one_line(run_cli(*args))  # this probe's entry exists: --force to replace it
    assert "already holds a baseline for probe 'tiny'" in err


# -- 4. the HTML page escapes every recorded string; its CSP forbids inline code ------------------------

PAYLOAD = "\"'><img src=x onerror=\"document.body.setAttribute('data-pwned','1')\"><script>document.body.setAttribute('data-pwned','2')</script>"


@pytest.mark.e2e  # drives a headless Chromium, a program of its own
def test_recorded_strings_cannot_inject_script_into_the_html(tmp_path):
    from test_reports import _browser, _console_errors, _render_in_browser

    run = _copy_run(tmp_path)

    def inject(r):
        r["saved_tensors"][0]["expr"] = PAYLOAD
        r["saved_tensors"][0]["reason"] = PAYLOAD
        r["findings"][0]["message"] = PAYLOAD
        r["config"]["blocks"] = None
        r["versions"]["device_name"] = PAYLOAD

    _edit_report(run, inject)
    html = tmp_path / "run.html"
    proc = invoke("report", run, "-o", html)
    assert proc.returncode == 0, proc.stderr
    page = html.read_text()
    assert "<img src=x" not in page and "<script>document" not in page and 'onerror="' not in page
    assert "&lt;img src=x" in page  # shown as text
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "unsafe-inline" not in csp and "script-src 'sha256-" in csp
    _browser()
    dom, log = _render_in_browser(html, tmp_path / "run.png")
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert "data-pwned" not in body and 'data-rendered="5"' in body, body
    assert not _console_errors(log), _console_errors(log)


def test_a_diff_file_with_markup_in_its_numbers_is_refused(tmp_path):
    out = tmp_path / "d"
    assert invoke("diff", CUDA / "bf16-legacy", ROWWISE, "--out", out, "-q").returncode == 0
    d = json.loads((out / "diff.json").read_text())
    d["items"][0]["count"] = "<img src=x onerror=alert(1)>"
    (out / "diff.json").write_text(json.dumps(d))
    err = _one_line(invoke("report", out, "-o", tmp_path / "d.html"))
    assert "items[0].count" in err and not (tmp_path / "d.html").exists()


# -- 5. no file outside the run directory -------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("output_code", "/etc/passwd"),
        ("output_code", "../../../../../../etc/passwd"),
        ("graph_json", "/etc/hostname"),
        ("snapshot", "/etc/hostname"),
        ("snapshot", "../elsewhere.pickle"),
    ],
)
def test_files_named_outside_the_run_directory_are_refused(tmp_path, field, value):
    run = _copy_run(tmp_path)

    def point(r):
        if field == "snapshot":
            r["memory"]["snapshot"]["file"] = value
        else:
            r["graphs"][0]["files"][field] = value

    _edit_report(run, point)
    verb = ("explain", run, "--out", tmp_path / "e") if field == "graph_json" else ("report", run, "-o", tmp_path / "x.html")
    err = _one_line(invoke(*verb))
    assert "outside the run directory" in err and not (tmp_path / "x.html").exists()


def test_a_symlink_inside_the_run_directory_is_not_followed_out(tmp_path):
    run = _copy_run(tmp_path)
    code = run / "output_code" / "g0.forward.py"
    code.unlink()
    code.symlink_to("/etc/passwd")
    err = _one_line(invoke("report", run, "-o", tmp_path / "x.html"))
    assert "outside the run directory" in err


def test_a_recorded_diff_reads_its_sides_only_inside_its_directory(tmp_path, monkeypatch):
    # a diff.json names each side's run directory; one from someone else may name any directory on this machine
    from memprobe.analysis import recorded
    from memprobe.report import pages

    inside = tmp_path / "d" / "a"
    shutil.copytree(CUDA / "bf16-legacy", inside)
    out = tmp_path / "d"
    proc = invoke("diff", inside, ROWWISE, "--out", tmp_path / "made", "-q")
    assert proc.returncode == 0, proc.stderr
    d = json.loads((tmp_path / "made" / "diff.json").read_text())
    d["a"]["source"], d["b"]["source"] = str(inside), str(ROWWISE.resolve())  # b: outside the diff directory
    (out / "diff.json").write_text(json.dumps(d))
    read = []
    real = recorded.load_timeline  # a side's run directory is read for its stored timeline alone
    monkeypatch.setattr(recorded, "load_timeline", lambda p, report=None: read.append(Path(p).resolve()) or real(p, report))
    pages.write_html(out, tmp_path / "d.html")
    assert read == [inside.resolve()] and (tmp_path / "d.html").is_file()


# -- 6. hostile snapshots stay within a bound proportional to the file ----------------------------------


def memo_bomb(path: Path) -> Path:
    """9 bytes of pickle whose LONG_BINPUT asks for a memo of 2**28 entries (an unbounded load took 2.1 GB)."""
    path.write_bytes(b"\x80\x04N" + b"r" + (2**28).to_bytes(4, "little") + b".")
    return path


def test_a_tiny_pickle_with_a_huge_memo_index_is_refused_before_it_is_loaded(tmp_path):
    # what the refusal saves in memory is measured by bench/hostile_snapshots.py, not asserted here
    from memprobe.analysis.snapshot import SnapshotError, load_snapshot

    with pytest.raises(SnapshotError, match="needs more memory to load than a file of 9 bytes"):
        load_snapshot(memo_bomb(tmp_path / "memo.pickle"))


def _nested_frame_snapshot(depth: int = 40) -> dict:
    x: list = ["f"]
    for _ in range(depth):
        x = [x, x]  # shared: a few bytes pickled, 2**depth items as text
    frame = {"filename": "model.py", "line": 1, "name": x}
    return {
        "segments": [],
        "device_traces": [
            [
                {"action": "alloc", "addr": 1, "size": 1024, "frames": [frame]},
                {"action": "alloc", "addr": 2, "size": 2048, "frames": [{"filename": x, "line": x, "name": "f"}]},
            ]
        ],
    }


def test_a_snapshot_of_shared_nested_lists_is_analysed_without_expanding_them(tmp_path):
    """2**40 items as text: expanded, the analysis would never end. In a process of its own, so that a regression
    fails (the timeout is a hang guard, far above any load's slowdown) instead of hanging the suite; how long it
    takes is measured by bench/hostile_snapshots.py."""
    run = _copy_run(tmp_path)
    (run / "snapshot.pickle").write_bytes(pickle.dumps(_nested_frame_snapshot()))
    assert (run / "snapshot.pickle").stat().st_size < 2000
    proc = run_cli("report", run, "-o", tmp_path / "x.html", timeout=600)
    assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr and proc.returncode != 70, proc.stderr


_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.text(max_size=8), st.binary(max_size=4)
)
_hostile = st.recursive(
    _leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=25,
)
_frame = st.one_of(_hostile, st.fixed_dictionaries({"filename": _hostile, "line": _hostile, "name": _hostile}))
_event = st.one_of(
    _hostile,
    st.fixed_dictionaries(
        {
            "action": st.sampled_from(["alloc", "free_requested", "free_completed"]),
            "addr": st.integers(-2, 2**64),
            "size": st.one_of(st.integers(-(2**40), 2**40), _hostile),
        },
        optional={"frames": st.one_of(_hostile, st.lists(_frame, max_size=3))},
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_event, max_size=20), st.lists(_hostile, max_size=3))
def test_hostile_snapshot_shapes_never_crash_the_analysis(events, segments):
    from memprobe.analysis.snapshot import Snapshot, SnapshotError, attribute_peak, replay
    from memprobe.analysis.timeline import _cuda_timeline  # noqa: F401 (imported: the path report takes)
    from memprobe.rundir import schema as S

    snap = Snapshot({"segments": segments, "device_traces": [events]})
    try:
        replay(snap)
        meta = S.Memory.model_construct(snapshot=S.SnapshotMeta.model_construct(phase_markers=[]))
        attribute_peak(snap, S.Report.model_construct(graphs=[], invocations=[], memory=meta))
    except SnapshotError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_event, max_size=20), st.lists(_hostile, max_size=3), st.lists(st.one_of(_hostile, st.just([])), max_size=2))
def test_hostile_snapshot_shapes_never_crash_the_analysis_of_a_snapshot_alone(events, segments, traces):
    """The same shapes read as a snapshot taken elsewhere (`memprobe show/report/diff SNAPSHOT.pickle`): its summary,
    its timeline and its diff against itself, or a one-line refusal."""
    from memprobe.analysis.snapshot import Snapshot, SnapshotError
    from memprobe.analysis.user_snapshot import analyse_loaded, compare
    from memprobe.errors import RunDirError

    snap = Snapshot({"segments": segments, "device_traces": [events, *traces]}, file_bytes=1)
    try:
        read = analyse_loaded(snap, "s.pickle", with_timeline=True)
    except (SnapshotError, RunDirError):
        return
    assert sum(read.summary.by_category_bytes.values()) == read.summary.peak_bytes
    # the timeline's replay finds the peak where the summary's own replay does
    alone = analyse_loaded(Snapshot({"segments": segments, "device_traces": [events, *traces]}, file_bytes=1), "s.pickle")
    assert alone.summary == read.summary and read.timeline.peak.bytes == read.summary.peak_bytes
    diff = compare(read, read)
    assert diff.items == [] and diff.peak_bytes.delta == 0


# -- 7. every file kind, fuzzed: exit 2 (or a result), never 70, never a hang ------------------------------------
#
# Each example changes one file memprobe reads: a field of it set to a hostile value (an integer beyond 64 bits
# or float range, a float, a wrong type, null, a deep or wide value, hostile text), a raw JSON literal (NaN,
# Infinity, 1e309, 5,000 digits, 100,000 brackets), the field deleted, or the file itself replaced (a FIFO, a
# link out of the directory, a directory, an empty file, bytes that are not UTF-8, half of it). Then one of the
# functions a verb runs on that file, in this process, and the CLI's own exception door (memprobe.cli.main.outcome)
# says the exit code. The seed is fixed (derandomize): the same examples every run. MEMPROBE_FUZZ_EXAMPLES sets
# how many per file kind (make check runs 2,000 in the suite's session; the suite alone runs a few).

FUZZ_EXAMPLES = int(os.environ.get("MEMPROBE_FUZZ_EXAMPLES", "20"))
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
SENTINEL = "sentinel-outside-0b7d"
HOSTILE_TEXT = [
    "",
    "x" * 100_000,
    "\udcff",
    "[/]",
    "\x1b]52;c;cHduZWQ=\x07",
    "\u202e\u200b\u2028",
    "` | <img src=x onerror=alert(1)>",
    "=1+1",
    "../../../../etc/passwd",
    "/etc/passwd",
    "g0.forward",
    "forward",
    "complete",
    'File "m.py", line ' + "9" * 100_000 + ", in forward",  # a stack frame's line of any length
]
_number = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**63, 2**63 + 1, -(2**63) - 1, 2**64, 10**400, -(10**400), 0, -1]),
    st.integers(1, 100_000).map(lambda digits: 10**digits - 1),  # any length: a snapshot frame's line of 100,000 digits
    st.floats(allow_nan=False, allow_infinity=False),
)
_scalar = st.one_of(st.none(), st.booleans(), _number, st.text(max_size=8), st.sampled_from(HOSTILE_TEXT))
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)
LITERALS = ["NaN", "Infinity", "-Infinity", "1e309", "-1e309", "9" * 5000, "[" * 100_000 + "]" * 100_000]
FILE_CHANGES = ["fifo", "link-out", "link-in", "directory", "empty", "not-utf8", "half"]
KEYS = ["../esc", "a b", "é", "", "\x1b[2J", "x" * 300, "__proto__", "0"]
# a change: ("set", value) | ("literal", raw JSON) | ("delete", None) | ("rename", the field's new name)
# | ("file", what the file becomes) | ("repeat", n): the value n more times in its list (in an object: a list of n of
# it); a pickle holds the one object n times, as a crafted snapshot shares a frame list or an event among millions
_change = st.one_of(
    st.tuples(st.just("set"), _value),
    st.tuples(st.just("set"), _value),
    st.tuples(st.just("literal"), st.sampled_from(LITERALS)),
    st.tuples(st.just("delete"), st.none()),
    st.tuples(st.just("rename"), st.sampled_from(KEYS)),
    st.tuples(st.just("file"), st.sampled_from(FILE_CHANGES)),
    st.tuples(st.just("repeat"), st.sampled_from([2, 10, 100, 1000, 10_000, 100_000, 3_000_000])),
)


def _change_in(doc, path, change):
    """``doc`` with a set, delete or rename at ``path`` (a literal is set as a placeholder to replace)."""
    how, value = change
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    if how == "delete" or (how == "rename" and isinstance(parent, dict)):
        moved = parent.pop(key)
        if how == "rename":
            parent[value] = moved
    elif how == "repeat":
        if isinstance(parent, list):
            parent[key + 1 : key + 1] = [parent[key]] * value
        else:
            parent[key] = [parent[key]] * value
    elif how != "rename":
        parent[key] = "@@LITERAL@@" if how == "literal" else value
    return doc


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:3]):
            yield from _paths(v, prefix + (i,))


def _changed_json(doc, path, change) -> bytes:
    """The JSON text of ``doc`` with ``change`` made at ``path``."""
    how, value = change
    if not path:
        return json.dumps(value if how == "set" else None).encode("utf-8", "surrogatepass")
    text = json.dumps(_change_in(doc, path, change))
    return (text.replace('"@@LITERAL@@"', value) if how == "literal" else text).encode("utf-8", "surrogatepass")


def _replace_file(target: Path, what: str, pristine: bytes, outside: Path) -> None:
    """``target`` made into something other than the file it was."""
    target.unlink()
    if what == "fifo":
        os.mkfifo(target)
    elif what == "link-out":
        target.symlink_to(outside)
    elif what == "link-in":
        (target.parent / f".{target.name}.real").write_bytes(pristine)
        target.symlink_to(target.parent / f".{target.name}.real")
    elif what == "directory":
        target.mkdir()
    else:
        target.write_bytes({"empty": b"", "not-utf8": b"\xff\xfe" + pristine, "half": pristine[: len(pristine) // 2]}[what])


def _restore(target: Path, pristine: bytes) -> None:
    if target.is_symlink() or target.is_file() or target.exists() and not target.is_dir():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    target.write_bytes(pristine)
    real = target.parent / f".{target.name}.real"
    if real.exists():
        real.unlink()


def _exit_code(work) -> tuple[int, str]:
    """Run ``work`` as a verb would; the exit code and the line the CLI's door gives for how it ended (a
    traceback when it is an internal error). A read that blocks is the harness's to stop (pytest-timeout's session
    bound, pyproject.toml): no time limit here, where a loaded machine would make a slow read look like a hang."""
    import traceback

    from memprobe.cli.main import outcome

    try:
        work()
    except BaseException as e:  # noqa: BLE001 (the door decides, as in the CLI)
        code, line = outcome(e)
        return code, (traceback.format_exc() if code == 70 else line)
    return 0, ""


@contextlib.contextmanager
def _any_digits():
    """While a hostile file is written: integers of any length as text (Python refuses more than 4,300 digits; the
    reader under test meets them with its own bounds)."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def _console():
    import io

    from rich.console import Console

    return Console(file=io.StringIO(), width=160, highlight=False)


class FuzzKind:
    """One kind of file: where it is, its pristine bytes, the paths into it, and what verbs do with it."""

    max_repeat = 1000  # copies of a value in a JSON or TOML file (each is written out: a file of some MB at most)

    def __init__(self, name: str, root: Path, target: Path, doc, renderers: dict):
        self.name, self.root, self.target, self.doc, self.renderers = name, root, target, doc, renderers
        self.pristine = target.read_bytes()
        self.paths = list(_paths(doc))

    def run(self, path, change, renderer: str) -> tuple[int, str]:
        try:
            how, value = change
            if how == "repeat":
                change = (how, min(value, self.max_repeat))
            if how == "file":
                _replace_file(self.target, value, self.pristine, self.root.parent / "outside" / "report.json")
            else:
                with _any_digits():
                    self.target.write_bytes(self.encode(self.fresh(), path, change))
            return _exit_code(lambda: self.renderers[renderer](self.root))
        finally:
            _restore(self.target, self.pristine)

    def fresh(self):
        """A copy of the document to change."""
        return json.loads(json.dumps(self.doc))

    def encode(self, doc, path, change) -> bytes:
        return _changed_json(doc, path, change)


def _strict_json(obj) -> None:
    json.dumps(obj, allow_nan=False)


def _report_renderers() -> dict:
    from memprobe.analysis.estimate import estimate
    from memprobe.analysis.explain import explain_runs
    from memprobe.analysis.recorded import load_recorded
    from memprobe.analysis.recorded import load_run as load_data
    from memprobe.analysis.saved import graph_pairs
    from memprobe.report.console.diff import print_diff
    from memprobe.report.console.estimate import print_estimate
    from memprobe.report.console.run import print_run
    from memprobe.report.markdown import diff_markdown
    from memprobe.report.pages import write_html, write_trace
    from memprobe.report.tables import export
    from memprobe.rundir.load import dump, load_report

    def show(d):
        kind, data = load_recorded(d)
        _strict_json(dump(data))
        print_run(data, d, console=_console())

    def diff(d):
        from memprobe.analysis.diff import diff_reports
        from memprobe.analysis.view import finished

        # finished as the diff verb's record is before it is rendered (its verdict: reporters only render)
        result = finished("diff", diff_reports(load_report(BF16), load_report(d)))
        _strict_json(dump(result))
        diff_markdown(result)
        print_diff(result, None, console=_console())

    def explain(d):
        report = load_report(d)
        explain_runs(report, d, {})
        graph_pairs(d, report)

    def est(d):
        report = load_data(d)
        result = estimate(report, layers=4, world=2)
        print_estimate(result, report, console=_console())

    return {
        "show": show,
        "csv": lambda d: export("run", load_data(d), d.parent / "t.csv", None),
        "html": lambda d: write_html(d, d.parent / "x.html"),
        "trace": lambda d: write_trace(d, d.parent / "t.json"),
        "diff": diff,
        "explain": explain,
        "estimate": est,
    }


def _snapshot_renderers(report) -> dict:
    """What `memprobe report` does with a run's snapshot: its timeline (chart and trace) and the attribution."""
    from memprobe.analysis.snapshot import attribute_peak, load_snapshot
    from memprobe.analysis.timeline import timeline
    from memprobe.report.trace import chrome_trace
    from memprobe.rundir.load import dump

    def trace(d):
        tl = timeline(report, d)
        _strict_json(chrome_trace(report, tl) if tl else None)

    def attribution(d):
        _strict_json(dump(attribute_peak(load_snapshot(d / "snapshot.pickle"), report)))

    return {"trace": trace, "attribution": attribution, **_snapshot_alone_renderers()}


def _snapshot_alone_renderers() -> dict:
    """What `memprobe show`, `report` and `diff` do with a snapshot file named on the command line (taken elsewhere,
    read alone): its summary, its page and trace, and its diff against a committed snapshot."""
    from memprobe.analysis.user_snapshot import analyse_snapshot, compare
    from memprobe.report.console.snapshot import print_snapshot, print_snapshot_diff
    from memprobe.report.html import render_snapshot_diff
    from memprobe.report.markdown import snapshot_diff_markdown
    from memprobe.report.pages import write_snapshot_pages
    from memprobe.rundir.load import dump

    def alone(d):
        read = analyse_snapshot(d / "snapshot.pickle")
        _strict_json(dump(read.summary))
        print_snapshot(read.summary, console=_console(), wide=True)

    def alone_page(d):
        read = analyse_snapshot(d / "snapshot.pickle", with_timeline=True)
        write_snapshot_pages(read.summary, read.timeline, d.parent / "s.html", d.parent / "s.json")
        _strict_json(json.loads((d.parent / "s.json").read_text()))

    def alone_diff(d):
        b = analyse_snapshot(d / "snapshot.pickle", with_timeline=True)
        result = compare(analyse_snapshot(BF16 / "snapshot.pickle", with_timeline=True), b)
        _strict_json(dump(result))
        print_snapshot_diff(result, console=_console(), wide=True)
        snapshot_diff_markdown(result)
        render_snapshot_diff(result, None, b.timeline)

    return {"alone": alone, "alone-page": alone_page, "alone-diff": alone_diff}


def _recorded_renderers(kind: str) -> dict:
    from memprobe.analysis.recorded import load_recorded
    from memprobe.report.console.bisect import print_bisect
    from memprobe.report.console.diff import print_diff
    from memprobe.report.console.explain import print_explain
    from memprobe.report.console.sweep import print_sweep
    from memprobe.report.markdown import bisect_markdown, diff_markdown, explain_markdown
    from memprobe.report.pages import write_html
    from memprobe.report.tables import export
    from memprobe.rundir.load import dump

    views = {
        "diff": print_diff,
        "explain": print_explain,
        "bisect": print_bisect,
        "sweep": print_sweep,
    }
    markdown = {"diff": diff_markdown, "explain": explain_markdown, "bisect": bisect_markdown}

    def show(d):
        found, data = load_recorded(d)
        _strict_json(dump(data))
        views[found](data, d, console=_console())

    out = {"show": show}
    if kind in markdown:
        out["markdown"] = lambda d: markdown[kind](load_recorded(d)[1])
    if kind == "diff":
        out["csv"] = lambda d: export("diff", load_recorded(d)[1], d.parent / "t.csv", None)
        out["html"] = lambda d: write_html(d, d.parent / "x.html")
    return out


def _gate_renderers(budget_path: Path, baseline_path: Path) -> dict:
    from memprobe.budget import load_budget
    from memprobe.orchestrate.gate import run_gate
    from memprobe.orchestrate.options import RunOptions
    from memprobe.report.console.gate import print_gate
    from memprobe.report.junit import gate_junit
    from memprobe.report.markdown import gate_markdown
    from memprobe.rundir.load import dump

    def gate(render):
        def work(_d):
            budget = load_budget(budget_path)
            result = run_gate(
                budget, budget.probes, {name: ROWWISE for name in budget.probes}, RunOptions(), baseline_path=baseline_path
            )
            _strict_json(dump(result))
            render(result)

        return work

    from xml.etree import ElementTree as ET

    return {
        "console": gate(lambda r: print_gate(r, _console())),
        "markdown": gate(gate_markdown),
        "junit": gate(lambda r: ET.fromstring(gate_junit(r))),
    }


def _toml(doc: dict) -> str:
    """A budget document as TOML (None leaves a key out); hostile values stay what they are."""
    from memprobe.budget import toml_key

    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return "nan" if v != v else ("inf" if v == float("inf") else "-inf" if v == float("-inf") else repr(v))
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=True)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v if x is not None) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{toml_key(k) if k else '_'} = {value(x)}" for k, x in v.items() if x is not None) + "}"
        raise TypeError(type(v))

    lines: list[str] = []

    def table(prefix: tuple, d: dict) -> None:
        if prefix:
            lines.append("[" + ".".join(toml_key(p) if p else '""' for p in prefix) + "]")
        lines.extend(
            f"{toml_key(k) if k else chr(34) * 2} = {value(v)}" for k, v in d.items() if v is not None and not isinstance(v, dict)
        )
        for k, v in d.items():
            if isinstance(v, dict):
                table(prefix + (k,), v)

    table((), doc)
    return "\n".join(lines) + "\n"


class BudgetKind(FuzzKind):
    def encode(self, doc, path, change) -> bytes:
        how, value = change
        if not path:
            if how == "set" and isinstance(value, dict):
                return _toml(value).encode("utf-8", "surrogatepass")
            return b"" if how != "set" else str(value).encode("utf-8", "surrogatepass")
        text = _toml(_change_in(doc, path, change))
        if how == "literal":
            text = text.replace('"@@LITERAL@@"', {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(value, value))
        return text.encode("utf-8", "surrogatepass")


class SnapshotKind(FuzzKind):
    max_repeat = 3_000_000  # one object held millions of times: a few MB pickled

    def fresh(self):
        return pickle.loads(self.pristine)

    def encode(self, doc, path, change) -> bytes:
        how, value = change
        if how == "literal":  # a pickle cut short, or with a byte changed
            data = bytearray(self.pristine)
            k = len(value) % len(data)
            return bytes(data[:k]) if value.startswith("9") else bytes(data[:k]) + b"\x00" + bytes(data[k + 1 :])
        if not path:
            return pickle.dumps(value if how == "set" else None)
        return pickle.dumps(_change_in(doc, path, change))


# a fork server as memprobe's without torch: its one program does nothing (a fuzzed request may name any argv or cwd)
_NOOP_SERVER = """
import sys
import memprobe.capture.forkserver as fs


class Noop:
    __file__ = __file__

    @staticmethod
    def main(argv):
        return 0


sys.exit(fs.serve(sys.argv[1], preload=lambda: None, programs={"probe": Noop}))
"""


class RequestKind(FuzzKind):
    """A request to the fork server (its one line, and the file descriptors that come with it), fuzzed as a file is:
    each example is sent to a live server of memprobe's (without torch), whose answer must be one (a refusal, exit
    2, or the child's pid, exit 0), and which must go on serving; ``parse`` is the parser alone, in this process.
    A "file" change is one to the bytes or the descriptors sent: none, one, four, a NUL inside, not UTF-8, half."""

    def __init__(self, root: Path):
        from memprobe.orchestrate.forkserver import server_env, start_server

        root.mkdir(parents=True)
        (root / "noop_server.py").write_text(_NOOP_SERVER)
        self.server = start_server(dict(os.environ), server=[sys.executable, str(root / "noop_server.py")])
        assert self.server is not None
        atexit.register(self.server.close)
        doc = {"program": "probe", "argv": ["--job", "{}"], "env": server_env(dict(os.environ)), "cwd": str(root)}
        doc |= {"python": sys.executable, "prefix": sys.prefix}
        self.name, self.root, self.doc, self.paths = "fork server request", root, doc, list(_paths(doc))
        self.renderers = {"server": self._served, "parse": self._parsed}

    def run(self, path, change, renderer: str) -> tuple[int, str]:
        how, value = change
        fds = 3
        if how != "file":
            with _any_digits():
                line = _changed_json(self.fresh(), path, (how, min(value, self.max_repeat)) if how == "repeat" else change)
        else:
            line = json.dumps(self.doc).encode()
            fds = {"fifo": 0, "link-out": 1, "link-in": 4}.get(value, 3)
            line = {"directory": line[:20] + b"\x00" + line[20:], "empty": b"", "not-utf8": b"\xff\xfe" + line}.get(value, line)
            line = line[: len(line) // 2] if value == "half" else line
        return _exit_code(lambda: self.renderers[renderer]((line.replace(b"\n", b" ") + b"\n", fds)))

    def _parsed(self, request) -> None:
        from memprobe.capture.forkserver import parse_request
        from memprobe.errors import ConfigError

        try:
            parse_request(request[0], request[1])
        except ValueError as e:
            raise ConfigError(f"refused: {e}") from None

    def _served(self, request) -> None:
        import socket

        from memprobe.errors import ConfigError

        line, fds = request
        null = [os.open(os.devnull, os.O_RDWR) for _ in range(fds)]
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(20)  # a hang guard only: the server answers at once
                conn.connect(self.server.path)
                try:
                    conn.sendall(line[socket.send_fds(conn, [line], null) :])
                except (BrokenPipeError, ConnectionResetError):  # closed on a request that was none: answered still
                    pass
                reader = conn.makefile("rb")
                try:
                    answer = json.loads(reader.readline() or b'{"refused": "closed unanswered"}')
                    if "pid" in answer:
                        answer = json.loads(reader.readline() or b"{}")  # its child's end is told too
                        assert isinstance(answer.get("exit"), int), answer
                except ConnectionResetError:
                    answer = {"refused": "closed unanswered"}
        finally:
            for fd in null:
                os.close(fd)
        assert self.server.proc.poll() is None and Path(self.server.path).exists(), "the fork server ended"
        if "refused" in answer:
            raise ConfigError(f"refused: {answer['refused']}")
        assert "exit" in answer, answer


class McpKind(FuzzKind):
    """The MCP tools' arguments, fuzzed as a file is: each example calls a tool of memprobe's MCP server (built in this
    process, no stdio) with one argument changed as a field of a file is (any JSON type, a hostile value, deleted,
    renamed: an argument the tool does not take) from a call it takes; the answer must be a result, or one line with
    its exit code, 2, never an internal error (an argument's type is strict: "yes" is no flag). No probe runs: a call
    that would start one is refused by a stand-in (exit 2) once its arguments are taken."""

    def __init__(self, root: Path, budget: Path):
        from memprobe.mcp.server import build_server

        root.mkdir(parents=True)
        self.server = build_server()
        config = {"recipe": "bf16", "device": "cpu", "dim": 64, "save_ops": ["aten.abs"]}
        doc = {
            "run": {"config": config, "out": str(root / "run"), "force": False, "analysis_only": True},
            "diff": {"a": str(BF16), "b": str(ROWWISE), "out": str(root / "diff"), "force": True},
            "explain": {"run_dir": str(BF16), "out": str(root / "explain"), "full": False},
            "show": {"path": str(BF16)},
            "gate": {"budget": str(budget), "probes": ["p"], "from_runs": [f"p={ROWWISE}"], "out": str(root / "gate")},
            "policies": {},
        }
        self.name, self.root, self.doc, self.paths = "MCP arguments", root, doc, [p for p in _paths(doc) if p]
        self.renderers = {"call": self._call}
        for tool in ("policies", "run"):  # what a first call imports (seconds), imported here: no example pays for it
            _exit_code(lambda tool=tool: self._call((tool, doc[tool])))

    def run(self, path, change, renderer: str) -> tuple[int, str]:
        how, value = change
        if how == "file":  # the call's arguments themselves: none, or not an object
            change = ("set", {"fifo": None, "link-out": [], "link-in": "args", "directory": 1}.get(value, {}))
        if how == "repeat":
            change = (how, min(value, self.max_repeat))
        doc = _change_in(self.fresh(), path, change) if len(path) > 1 else {**self.doc, path[0]: change[1]}
        return _exit_code(lambda: self._call((path[0], doc.get(path[0]))))

    def _call(self, call) -> None:
        import asyncio

        from mcp.server.mcpserver.exceptions import ToolError

        import memprobe.orchestrate.process as process
        from memprobe.errors import ConfigError, InternalError

        class NoProbe:
            def __init__(self, *_a, **_kw):
                raise ConfigError("the fuzz runs no probe")

        tool, arguments = call
        with pytest.MonkeyPatch.context() as m, contextlib.chdir(self.root):
            m.setattr(process, "ChildProbe", NoProbe)
            try:
                asyncio.run(self.server.call_tool(tool, arguments))
            except ToolError as e:
                said = str(e)
                code = re.search(r"memprobe: (internal )?error \(exit (\d+)\): ", said)
                assert code is not None and "\n" not in said and len(said) < 2500, said[:3000]
                raise (InternalError if code[1] else ConfigError)(said[code.end() :], exit_code=int(code[2])) from None

    def fresh(self):
        return json.loads(json.dumps(self.doc))


# an explain.json as `memprobe explain` writes it (tests/test_bad_files.py uses it too)
EXPLAIN_SAMPLE = {
    "base": {
        "config": {"recipe": "rowwise", "ac_policy": "torchtitan-2025-01"},
        "saved_bytes": 1,
        "run": "r",
        "recompute": {"flops": 1, "bytes_moved": 1},
    },
    "edits": [
        {
            "op": "aten.abs.default",
            "bytes_saved": 5,
            "edit": "e",
            "flag": "--recompute-op aten.abs.default",
            "recompute_flops_added": 1,
            "recompute_bytes_added": 2,
            "bytes_saved_per_flop": 5.0,
            "freed": [{"expr": "x", "count": 2, "user": {"op": "abs", "label": "abs(w)"}}],
            "added": [],
        }
    ],
    "partitioner_items": [{"expr": "y", "bytes": 3, "op": "mm", "fate": "z", "block": "layers.0"}],
    "mode": "full",
}


@pytest.fixture(scope="module")
def fuzz_kinds(tmp_path_factory):
    """Every kind of file memprobe reads, each in a directory of its own, and what verbs do with it."""
    from memprobe.analysis.snapshot import load_snapshot
    from memprobe.budget import baseline_entry
    from memprobe.rundir.load import dump, load_report

    root = tmp_path_factory.mktemp("fuzz")
    outside = shutil.copytree(BF16, root / "outside")
    (outside / "report.json").write_text((outside / "report.json").read_text().replace("layers.0", SENTINEL))
    kinds = {}
    run = shutil.copytree(BF16, root / "report" / "run")
    kinds["report.json"] = FuzzKind(
        "report.json", run, run / "report.json", json.loads((run / "report.json").read_text()), _report_renderers()
    )
    run = shutil.copytree(BF16, root / "graph" / "run")
    graph = run / "graphs" / "g0.forward.json"
    kinds["graphs/*.json"] = FuzzKind(
        "graphs/*.json",
        run,
        graph,
        json.loads(graph.read_text()),
        {k: v for k, v in _report_renderers().items() if k == "explain"},  # the verb that reads the graphs
    )
    d = root / "diff" / "d"
    d.mkdir(parents=True)
    from memprobe.analysis.diff import diff_reports

    diff = dump(diff_reports(load_report(BF16), load_report(ROWWISE)))
    diff["a"]["source"], diff["b"]["source"] = str(BF16), str(ROWWISE)
    (d / "diff.json").write_text(json.dumps(diff))
    kinds["diff.json"] = FuzzKind("diff.json", d, d / "diff.json", diff, _recorded_renderers("diff"))
    samples = {
        "explain": EXPLAIN_SAMPLE,
        "bisect": json.loads((CUDA / "bisect-h200.json").read_text()),
        "sweep": {
            "sweep_schema_version": 1,
            "config": {"recipe": "bf16", "ac": "budget", "memory_budget": 0.5},
            "summary": "bf16",
            "points": [
                {
                    "budget": 0.0,
                    "run": "b0",
                    "saved_bytes": 10,
                    "step_peak_bytes": 20,
                    "forward_end_bytes": 5,
                    "source": "cpu-profiler",
                },
                {
                    "budget": 1.0,
                    "run": "b1",
                    "saved_bytes": 12,
                    "step_peak_bytes": 18,
                    "forward_end_bytes": 6,
                    "source": "cpu-profiler",
                },
            ],
            "inversions": [
                {
                    "metric": "step_peak_bytes",
                    "lower_budget": 0.0,
                    "higher_budget": 1.0,
                    "lower_budget_bytes": 20,
                    "higher_budget_bytes": 18,
                    "excess_bytes": 2,
                }
            ],
            "note": "n",
        },
    }
    for kind, sample in samples.items():
        d = root / kind / "d"
        d.mkdir(parents=True)
        (d / f"{kind}.json").write_text(json.dumps(sample))
        kinds[f"{kind}.json"] = FuzzKind(f"{kind}.json", d, d / f"{kind}.json", sample, _recorded_renderers(kind))
    # the gate's files: the budget and the baseline beside it
    g = root / "gate"
    g.mkdir()
    budget_doc = {
        "probes": {
            "p": {
                "recipe": "rowwise",
                "dim": 256,
                "hidden": 768,
                "seq": 128,
                "ac_policy": "torchtitan-2025-01",
                "device": "cuda",
                "steps": 3,
                "limits": {
                    "saved_bytes": "2 MiB",
                    "weight_derived_saved_bytes": 0,
                    "graph_peak_bytes": "1 GiB",
                    "cuda": {"forward_peak_bytes": "128 MiB"},
                    "baseline": {"saved_bytes": "+5%"},
                },
            }
        }
    }
    (g / "memprobe.toml").write_text(_toml(budget_doc))
    baseline = {"memprobe_baseline": 1, "probes": {"p": dump(baseline_entry(load_report(BF16)))}}
    (g / "memprobe-baseline.json").write_text(json.dumps(baseline))
    renderers = _gate_renderers(g / "memprobe.toml", g / "memprobe-baseline.json")
    kinds["baseline"] = FuzzKind("baseline", g, g / "memprobe-baseline.json", baseline, renderers)
    kinds["budget TOML"] = BudgetKind("budget TOML", g, g / "memprobe.toml", budget_doc, renderers)
    # the CUDA allocator snapshot
    run = shutil.copytree(BF16, root / "snapshot" / "run")
    snap = dict(load_snapshot(run / "snapshot.pickle"))
    snap["device_traces"] = [t[:40] for t in snap["device_traces"]] + [[]]  # the paths go 3 deep per list anyway
    shared = snap["device_traces"][0][0]["frames"]  # one frame list many events hold, as torch writes a traceback's
    for ev in snap["device_traces"][0][:30:3]:
        ev["frames"] = shared  # a change to it (through the first event's path) reaches every event that holds it
    (run / "snapshot.pickle").write_bytes(pickle.dumps(snap))
    kinds["snapshot"] = SnapshotKind("snapshot", run, run / "snapshot.pickle", snap, _snapshot_renderers(load_report(run)))
    kinds["fork server request"] = RequestKind(root / "request")
    kinds["MCP arguments"] = McpKind(root / "mcp", g / "memprobe.toml")
    return kinds


SNAPSHOT_VERBS = ("trace", "attribution", "alone", "alone-page", "alone-diff")
FUZZ_KINDS = [
    "report.json",
    "graphs/*.json",
    "diff.json",
    "explain.json",
    "bisect.json",
    "sweep.json",
    "baseline",
    "budget TOML",
    "snapshot",
    "fork server request",
    "MCP arguments",
]


# at make check's count each kind is among the session's longest tests: scheduled first, with the other slow ones
FUZZ_MARKS = [pytest.mark.slow] if FUZZ_EXAMPLES > 200 else []


@pytest.mark.parametrize("kind", [pytest.param(kind, marks=FUZZ_MARKS) for kind in FUZZ_KINDS])
def test_no_input_makes_an_internal_error(fuzz_kinds, kind):
    target = fuzz_kinds[kind]

    @FUZZ
    @given(st.data())
    def one_file(data):
        path = data.draw(st.sampled_from(target.paths), label="path")
        change = data.draw(_change, label="change")
        renderer = data.draw(st.sampled_from(sorted(target.renderers)), label="verb")
        code, said = target.run(path, change, renderer)
        assert code in (0, 1, 2), f"{kind} {path} {change!r:.300} {renderer}: exit {code}\n{said[-3000:]}"
        # a path the user names may be a link; an MCP argument's "file" change is a value (McpKind.run), no file
        if change == ("file", "link-out") and kind not in ("budget TOML", "MCP arguments"):
            assert code == 2, (kind, renderer, said)
        if code == 2:
            assert said.count("\n") == 0 and said.startswith("memprobe: error: "), said
        assert SENTINEL not in said

    one_file()


@pytest.mark.parametrize(
    "kind, path, change, renderer, code",
    [
        # found by the fuzz at 10,000 examples (both were exit 70): one block of a pre-existing segment sized just
        # under 2**63 makes what is alive at the peak more than a record holds (refused in one line) ...
        ("snapshot", ("segments", 1, "blocks", 0, "size"), ("set", 9_223_372_036_771_807_233), "attribution", 2),
        # ... and one block of 2**63 + 1 bytes is no size a record holds: that block is not read, as any other
        # block without a size (the rest is attributed)
        ("snapshot", ("segments", 1, "blocks", 0, "size"), ("set", 9_223_372_036_854_775_809), "attribution", 0),
        # found at 2,000 (exit 70): a report.json still valid without its `tool`, diffed: the diff rendered unfinished
        ("report.json", ("tool",), ("delete", None), "diff", 0),
    ],
)
def test_what_the_fuzz_found_stays_fixed(fuzz_kinds, kind, path, change, renderer, code):
    got, said = fuzz_kinds[kind].run(path, change, renderer)
    assert got == code, (got, said)
    if code == 2:
        assert said.count("\n") == 0 and said.startswith("memprobe: error: ") and "beyond what any allocator" in said


@pytest.mark.parametrize(
    "kind, path, change, renderer, code, said",
    [
        # one event three million times: more events than memprobe works through for one file
        ("snapshot", ("device_traces", 0, 0), ("repeat", 3_000_000), "attribution", 2, "allocator events and blocks"),
        # a frame three million times in the list ten events share: 30 million frames at their uses, read once
        ("snapshot", ("device_traces", 0, 0, "frames", 0), ("repeat", 3_000_000), "trace", 0, ""),
        # the same, named on the command line (`memprobe show`, `report`, `diff` of a snapshot taken elsewhere)
        ("snapshot", ("device_traces", 0, 0), ("repeat", 3_000_000), "alone", 2, "allocator events and blocks"),
        ("snapshot", ("device_traces", 0, 0), ("repeat", 3_000_000), "alone-diff", 2, "allocator events and blocks"),
        ("snapshot", ("device_traces", 0, 0, "frames", 0), ("repeat", 3_000_000), "alone-page", 0, ""),
        ("fork server request", ("argv", 0), ("literal", "[" * 100_000 + "]" * 100_000), "server", 2, "nested too deep"),
        ("fork server request", ("argv", 0), ("literal", "[" * 100_000 + "]" * 100_000), "parse", 2, "nested too deep"),
        ("fork server request", ("env",), ("repeat", 1000), "server", 2, "env must be a dict"),
        ("fork server request", (), ("file", "link-in"), "parse", 2, "expected 3 file descriptors, got 4"),
        ("fork server request", (), ("file", "link-in"), "server", 2, "refused"),
        ("fork server request", ("cwd",), ("set", "/"), "server", 0, ""),  # a request: the child is forked, and ends
    ],
)
def test_the_fuzz_reaches_shared_frame_lists_and_the_fork_servers_requests(fuzz_kinds, kind, path, change, renderer, code, said):
    got, line = fuzz_kinds[kind].run(path, change, renderer)
    assert got == code and said in line, (got, line)


# a stack frame's line of 100,000 digits (Python prints no integer of more than 4,300): `show`, `report` and `diff` of a
# snapshot, `report` of a run directory, and a graph's stack trace read by `explain`, each exit 70 before
FRAME_LINE = 10**100_000 - 1


def _every_frame_line(snapshot: dict) -> dict:
    """``snapshot`` with the line of every stack frame in it 100,000 digits long."""
    for events in [*snapshot["device_traces"], *[s.get("blocks", []) for s in snapshot["segments"]]]:
        for ev in events:
            for frame in ev.get("frames") or []:
                frame["line"] = FRAME_LINE
    return snapshot


@pytest.mark.parametrize("renderer", SNAPSHOT_VERBS)
def test_a_frame_line_of_any_length_is_never_an_internal_error(fuzz_kinds, renderer):
    target = fuzz_kinds["snapshot"]
    try:
        target.target.write_bytes(pickle.dumps(_every_frame_line(target.fresh())))
        code, said = _exit_code(lambda: target.renderers[renderer](target.root))
    finally:
        _restore(target.target, target.pristine)
    assert code == 0, said


def test_a_stack_traces_frame_line_of_any_length_is_no_frame():
    """A graph's stack trace (graphs/*.json) whose line holds 100,000 digits, or digits of another script: that line is
    no frame's (int() of it raised); a frame's line of ASCII digits within 64 bits is read."""
    from memprobe.analysis.frames import parse_stack

    trace = (
        'File "a.py", line ' + "9" * 100_000 + ", in f\n    x = 1\n"
        'File "b.py", line \u0661\u0662, in g\n    y = 2\n'
        'File "c.py", line 42, in h\n    return z\n'
    )
    assert [(f.file, f.line, f.code) for f in parse_stack(trace)] == [("c.py", 42, "return z")]


# -- 8. terminal injection ---------------------------------------------------------------------------------


def test_recorded_text_prints_literally(tmp_path):
    run = _copy_run(tmp_path, "exp[old]")

    def inject(r):
        r["findings"][0]["message"] = "closing [/] tag [bold]not bold[/bold] and \x1b]52;c;cHduZWQ=\x07 an OSC 52 copy"
        r["saved_tensors"][0]["expr"] = "abs([red]w[/red])"

    _edit_report(run, inject)
    proc = invoke("show", run, env={"COLUMNS": "400"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "closing [/] tag [bold]not bold[/bold]" in out and "\x1b]52" not in out and "\\x1b]52" in out
    assert "exp[old]" in out and "abs([red]w[/red])" in out


# -- 9. --json stays valid JSON when the model prints ----------------------------------------------------------

PRINTING_MODEL = """
import torch
import torch.nn as nn
print("hello from the model's import")

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(32, 32)
    def forward(self, x):
        print("hello from forward")
        return x + self.lin(x)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block()])
    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x

def build(device):
    print("hello from the factory")
    return Net(), torch.randn(2, 16, 32)
"""


@pytest.mark.e2e
def test_json_output_is_json_even_when_the_model_prints(tmp_path):
    model = tmp_path / "printing.py"
    model.write_text(PRINTING_MODEL)
    proc = run_cli(
        "run",
        "--model",
        f"{model}:build",
        "--recipe",
        "bf16",
        "--device",
        "cpu",
        "--no-compile",
        "--out",
        tmp_path / "r",
        "--json",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["status"] == "complete" and "hello from forward" in proc.stderr


# -- 10. a signal during the model's import is an interruption -------------------------------------------------

SLOW_IMPORT = """
import os, time
open(os.environ["MEMPROBE_TEST_READY"], "w").close()  # the import has begun: the test signals now
time.sleep(60)
def build(device):
    raise RuntimeError("never reached")
"""


@pytest.mark.e2e
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_the_model_import_is_an_interruption(tmp_path, sig, code):
    model = tmp_path / "slow.py"
    model.write_text(SLOW_IMPORT)
    out, ready = tmp_path / "r", tmp_path / "ready"
    args = ("run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", out, "-q")
    proc = start_cli(*args, env={"MEMPROBE_TEST_READY": str(ready)})
    while not ready.exists() and proc.poll() is None:  # no clock: whatever the load, the signal lands in the import
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=600)  # a hang guard only: it ends at once
    assert proc.returncode == code, err
    assert err.count("\n") == 1 and "interrupt" in err.lower() or "terminated" in err, err
    assert json.loads((out / "report.json").read_text())["status"] == "interrupted"


# -- 11. validation gaps -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, needle",
    [
        (["run", "--save-op", "aten.abs.overloads"], "not an op overload"),
        (["run", "--save-op", "aten.abs.op"], "not an op overload"),
        (["run", "--recompute-op", "aten.abs.__class__"], "not an overload name"),
        (["estimate", str(ROWWISE), "--world", "0"], "'--world': 0 is not in the range"),
        (["estimate", str(ROWWISE), "--batch", "-2"], "'--batch': -2 is not in the range"),
        (["budget", "--headroom", "nan%"], "--headroom takes a percentage"),
        (["budget", "--headroom", "1e999%"], "--headroom takes a percentage"),
        (["diff", "bf16", "bf16", "--a", "--layers '3"], "No closing quotation"),
        (["diff", "bf16", "bf16", "--a", "--help"], "see `memprobe run --help`"),
    ],
)
def test_more_bad_values_exit_2_with_one_line(tmp_path, args, needle):
    err = _one_line(invoke(*args, cwd=tmp_path))
    assert needle in err, err


@pytest.mark.parametrize(
    "line, needle, lineno",
    [
        ('save_ops = ["aten.abs.overloads"]', "not an op overload", 3),
        ("layers = 2.5", "config key 'layers': expected an integer, got 2.5", 3),
        ("lr = nan", "config key 'lr': expected a finite number, got nan", 3),
        # a 64-bit integer beyond a dimension's range is named by that range (it was "expected an integer")
        ("dim = 9223372036854775807", "'dim': expected an integer from -2147483647 to 2147483647 (within 32 bits)", 3),
        # an empty command used to run the default repro in its place
        ("command = []", "command = [] names nothing to probe", 3),
        ('model = ""', 'model = "" names nothing to probe', 3),
    ],
)
def test_budget_values_are_checked_as_run_would_check_them(tmp_path, line, needle, lineno):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(f'[probes.p]\nrecipe = "rowwise"\n{line}\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n')
    err = _one_line(invoke("gate", "--budget", budget))
    assert needle in err and f"{budget}:{lineno}" in err, err


# -- 12. numbers read within bounds, strict arguments, errors that echo a bounded prefix -----------------------------


@pytest.mark.parametrize(
    "args, needle",
    [
        # NaN and infinity (1e400) were taken as a server's idle time
        (["serve", "--idle-exit", "nan"], "'--idle-exit': a number of seconds from 0.1 to 31536000 (a year), not 'nan'"),
        (["serve", "--idle-exit", "1e400"], "a number of seconds from 0.1 to 31536000 (a year), not '1e400'"),
        (["serve", "--idle-exit", "\u0661\u0662"], "a number of seconds from 0.1"),
        (["budget", "--headroom", "\u0661\u0660%"], "--headroom takes a percentage from 0% to 1000%"),
        (["sweep", "--budgets", "0,\u0660.5"], "--budgets '0,\u0660.5': expected numbers between 0 and 1"),
        (["budget", "--headroom", "9" * 100_000 + "%"], "--headroom takes a percentage from 0% to 1000%, like 10% (got '999"),
    ],
    ids=["idle-nan", "idle-inf", "idle-arabic-digits", "headroom-arabic-digits", "budgets-arabic-digits", "headroom-long"],
)
def test_numbers_are_ascii_digits_within_their_range(tmp_path, args, needle):
    err = _one_line(invoke(*args, cwd=tmp_path))
    assert needle in err and len(err) < 300, err


@pytest.mark.parametrize(
    "limit, needle",
    [
        ('"\u0661 MiB"', "not a size: '\u0661 MiB'"),  # float() reads digits of other scripts: a budget does not
        ('"+\u0665%"', "a baseline limit is a percentage like"),
        ("9223372036854775809", "an integer out of range (19 digits; at most 2**63)"),
    ],
    ids=["size-arabic-digits", "relative-arabic-digits", "size-past-64-bits"],
)
def test_a_budget_size_is_ascii_digits_within_64_bits(tmp_path, limit, needle):
    budget = tmp_path / "memprobe.toml"
    section = "[probes.p.limits.baseline]" if "%" in limit else "[probes.p.limits]"
    budget.write_text(f'[probes.p]\nrecipe = "rowwise"\n\n{section}\nsaved_bytes = {limit}\n')
    err = _one_line(invoke("gate", "--budget", budget))
    assert needle in err and f"{budget}:5" in err, err


@pytest.mark.parametrize("verb", [["run", "--analysis-only", *TINY], ["diff", str(BF16), str(ROWWISE)], ["gate"]])
def test_an_out_the_system_cannot_make_is_bad_input(tmp_path, verb):
    """``--out /proc/self/x``: no directory can be made there; it was exit 70 (FileNotFoundError)."""
    budget = tmp_path / "memprobe.toml"
    budget.write_text('[probes.p]\nrecipe = "bf16"\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n')
    err = _one_line(invoke(*verb, "--out", "/proc/self/x", cwd=tmp_path))
    assert "cannot make the directory /proc/self/x (No such file or directory)" in err, err


def test_ten_thousand_from_runs_read_each_run_once(tmp_path, monkeypatch):
    """10,000 ``--from`` entries naming one run (as given, and spelt 5,000 ways) read it once (they took 49 s, one read
    each); a second run for the same probe is refused."""
    import memprobe.orchestrate.gate as gate

    reads = []
    real = gate.load_report
    monkeypatch.setattr(gate, "load_report", lambda path: reads.append(path) or real(path))
    budget = tmp_path / "memprobe.toml"
    budget.write_text(
        '[probes.p]\nrecipe = "rowwise"\ndim = 256\nhidden = 768\nseq = 128\nac_policy = "torchtitan-2025-01"\n'
        'device = "cuda"\nsteps = 3\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n'
    )
    spelt = [str(ROWWISE)] * 5000 + [f"{ROWWISE}{'/.' * i}" for i in range(5000)]
    args = [x for entry in spelt for x in ("--from", entry)]
    proc = invoke("gate", "--budget", budget, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    assert len(reads) == 2  # matched once, then gated once
    copy = shutil.copytree(ROWWISE, tmp_path / "copy")
    err = _one_line(invoke("gate", "--budget", budget, "--from", ROWWISE, "--from", copy))
    assert f"--from '{copy}': probe 'p' has a run already, '{ROWWISE}'; give one run per probe" in err, err

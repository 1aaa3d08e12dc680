"""A run directory, a diff or a budget file from someone else: memprobe treats every file it reads as untrusted.

Each test here failed before its fix: --force deleting what memprobe did not write, a probe that
never ran passing the gate, overwrites, script injection in the HTML page, files outside the run
directory embedded in a report, hostile snapshots exhausting memory or time, exit 70 on bad input,
terminal injection, the model's prints in --json output, signals during the model's import.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import MEMPROBE, TINY, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
CUDA = Path(__file__).parent / "data" / "cuda"
ROWWISE = CUDA / "rowwise-legacy"


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
    err = _one_line(run_cli("explain", tmp_path / "nonexistent", "--out", victim, "--force"))
    assert "does not exist" in err  # the arguments are checked before --out is touched
    err = _one_line(run_cli("run", "--analysis-only", *TINY, "--out", victim, "--force"))
    assert "not a memprobe run directory" in err
    assert (victim / "src" / "a.py").read_text() == "precious = 1\n" and not (victim / ".memprobe").exists()
    # memprobe's own marker, but a file someone added since: still refused
    (victim / "report.json").unlink()
    shutil.rmtree(victim / "src")
    (victim / ".memprobe").write_text("written by memprobe; `--force` may replace this directory\n")
    (victim / "notes.txt").write_text("mine")
    err = _one_line(run_cli("run", "--analysis-only", *TINY, "--out", victim, "--force"))
    assert "notes.txt" in err and (victim / "notes.txt").read_text() == "mine"


def test_a_symlinked_out_is_refused_in_one_line(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    err = _one_line(run_cli("run", "--analysis-only", *TINY, "--out", link, "--force"))
    assert "symbolic link" in err and not any(real.iterdir())


@pytest.mark.e2e
def test_force_replaces_what_memprobe_wrote(tmp_path):
    out = tmp_path / "r"
    assert run_cli("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", out, "-q").returncode == 0
    assert run_cli("report", out).returncode == 0  # writes report.html into it: memprobe's too
    proc = run_cli("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", out, "--force", "-q")
    assert proc.returncode == 0, proc.stderr


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


@pytest.mark.parametrize("source", [EXITING_MODEL, EXITING_FACTORY], ids=["at-import", "in-factory"])
def test_a_model_that_exits_is_a_failure_never_a_pass(tmp_path, source):
    model = tmp_path / "exiting.py"
    model.write_text(source)
    err = _one_line(
        run_cli("run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", tmp_path / "r", "-q")
    )
    assert "sys.exit(0)" in err
    assert json.loads((tmp_path / "r" / "report.json").read_text())["status"] == "failed"
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
        err = _one_line(run_cli("gate", "--budget", budget, "--from", f"p={ROWWISE}", flag, existing))
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
    proc = run_cli("report", run, "-o", html)
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
    assert run_cli("diff", CUDA / "bf16-legacy", ROWWISE, "--out", out, "-q").returncode == 0
    d = json.loads((out / "diff.json").read_text())
    d["items"][0]["count"] = "<img src=x onerror=alert(1)>"
    (out / "diff.json").write_text(json.dumps(d))
    err = _one_line(run_cli("report", out, "-o", tmp_path / "d.html"))
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
    err = _one_line(run_cli(*verb))
    assert "outside the run directory" in err and not (tmp_path / "x.html").exists()


def test_a_symlink_inside_the_run_directory_is_not_followed_out(tmp_path):
    run = _copy_run(tmp_path)
    code = run / "output_code" / "g0.forward.py"
    code.unlink()
    code.symlink_to("/etc/passwd")
    err = _one_line(run_cli("report", run, "-o", tmp_path / "x.html"))
    assert "outside the run directory" in err


def test_a_recorded_diff_reads_its_sides_only_inside_its_directory(tmp_path, monkeypatch):
    # a diff.json names each side's run directory; one from someone else may name any directory on this machine
    from memprobe.report import pages

    inside = tmp_path / "d" / "a"
    shutil.copytree(CUDA / "bf16-legacy", inside)
    out = tmp_path / "d"
    proc = run_cli("diff", inside, ROWWISE, "--out", tmp_path / "made", "-q")
    assert proc.returncode == 0, proc.stderr
    d = json.loads((tmp_path / "made" / "diff.json").read_text())
    d["a"]["source"], d["b"]["source"] = str(inside), str(ROWWISE.resolve())  # b: outside the diff directory
    (out / "diff.json").write_text(json.dumps(d))
    read = []
    real = pages.load_report
    monkeypatch.setattr(pages, "load_report", lambda p: read.append(Path(p).resolve()) or real(p))
    pages.write_html(out, tmp_path / "d.html")
    assert read == [inside.resolve()] and (tmp_path / "d.html").is_file()


# -- 6. hostile snapshots stay within a bound proportional to the file ----------------------------------


def _child(code: str, timeout: float = 60) -> tuple[int, int, str]:
    """Run ``code`` in a fresh Python: its exit code, the integer it prints, and its stderr."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    return proc.returncode, int(proc.stdout.strip() or 0), proc.stderr


def test_a_tiny_pickle_with_a_huge_memo_index_is_refused_cheaply(tmp_path):
    path = tmp_path / "memo.pickle"
    path.write_bytes(b"\x80\x04N" + b"r" + (2**28).to_bytes(4, "little") + b".")  # 9 bytes: LONG_BINPUT 2**28
    code = (
        f"import resource\nfrom memprobe.analysis.snapshot import load_snapshot, SnapshotError\n"
        f"before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"try:\n    load_snapshot({str(path)!r})\nexcept SnapshotError as e:\n    import sys; print(e, file=sys.stderr)\n"
        f"print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)"
    )
    rc, grown, err = _child(code)
    assert rc == 0 and "needs more memory to load than a file of 9 bytes" in err, err
    assert grown < 300 * 2**20, grown  # the unbounded load took 2.1 GB


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


def test_a_snapshot_of_shared_nested_lists_is_analysed_quickly(tmp_path):
    run = _copy_run(tmp_path)
    (run / "snapshot.pickle").write_bytes(pickle.dumps(_nested_frame_snapshot()))
    assert (run / "snapshot.pickle").stat().st_size < 2000
    start = time.time()
    proc = run_cli("report", run, "-o", tmp_path / "x.html", timeout=120)
    assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr and proc.returncode != 70, proc.stderr
    assert time.time() - start < 60


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

    snap = Snapshot({"segments": segments, "device_traces": [events]})
    try:
        replay(snap)
        attribute_peak(snap, {"graphs": [], "invocations": [], "memory": {"snapshot": {"phase_markers": []}}})
    except SnapshotError:
        pass


# -- 7. every file kind, fuzzed field by field: exit 2, never 70, never a traceback ------------------------

HOSTILE_VALUES = [
    None,
    True,
    -1,
    0,
    1e30,
    10**30,
    "x" * 100_000,
    "",
    "\udcff",
    [],
    {},
    [[[[[]]]]],
    "[/]",
    "NaN-literal",
    "deep",
    "digits",
    "DELETE",
]


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:3]):
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _dump_hostile(doc, path, value) -> str:
    """The JSON text with ``value`` at ``path`` (special markers become NaN, a 5,000-digit integer, deep nesting)."""
    if value == "DELETE":  # the field is missing
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        del parent[path[-1]]
        return json.dumps(doc)
    marker = (
        {"NaN-literal": "NaN", "deep": "[" * 100_000 + "]" * 100_000, "digits": "9" * 5000}.get(value)
        if isinstance(value, str)
        else None
    )
    if marker is None:
        _set(doc, path, value)
        return json.dumps(doc)
    _set(doc, path, "@@HOSTILE@@")
    return json.dumps(doc).replace('"@@HOSTILE@@"', marker)


def _invoke(args) -> tuple[int, str]:
    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    out = root / "d"
    assert run_cli("diff", CUDA / "bf16-legacy", ROWWISE, "--out", out, "-q").returncode == 0
    return root


REPORT_PATHS = list(_paths(json.loads((ROWWISE / "report.json").read_text())))[1:]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(REPORT_PATHS), st.sampled_from(HOSTILE_VALUES), st.sampled_from(["show", "report", "diff", "estimate"]))
def test_report_json_fuzz_never_exits_70(fuzz_root, path, value, verb):
    run = fuzz_root / "run"
    if not run.exists():
        shutil.copytree(ROWWISE, run)
    doc = json.loads((ROWWISE / "report.json").read_text())
    (run / "report.json").write_text(_dump_hostile(doc, path, value), errors="surrogatepass")
    args = {
        "show": ["show", run],
        "report": ["report", run, "-o", fuzz_root / "o.html", "--force"],
        "diff": ["diff", ROWWISE, run, "--json"],
        "estimate": ["estimate", run, "--layers", "4", "--world", "2"],
    }[verb]
    code, output = _invoke(args)
    assert code in (0, 1, 2), (path, value, verb, code, output[-600:])
    assert "Traceback" not in output and "internal error" not in output, output[-600:]


@pytest.mark.parametrize("kind", ["diff", "explain", "bisect", "baseline"])
def test_every_other_file_kind_is_validated(fuzz_root, tmp_path, kind):
    import random

    from memprobe.analysis.validate import BISECT, DIFF, EXPLAIN  # noqa: F401 (the shapes under test)

    samples = {
        "diff": json.loads((fuzz_root / "d" / "diff.json").read_text()),
        "explain": {
            "base": {"config": {}, "saved_bytes": 1, "run": "r", "recompute": {"flops": 1, "bytes_moved": 1}},
            "edits": [
                {"op": "aten.abs.default", "bytes_saved": 5, "edit": "e", "flag": "f", "freed": [{"expr": "x"}], "added": []}
            ],
            "partitioner_items": [{"expr": "y", "bytes": 3, "op": "mm", "fate": "z"}],
            "mode": "full",
        },
        "bisect": {
            "trials": [{"removed": "x", "delta_bytes": 1, "exceeds": True, "held_a": 1, "held_b": 2, "modes": ["full"]}],
            "conclusion": "c",
            "threshold_bytes": 1,
            "minimal": {"a": "a", "b": "b"},
        },
        "baseline": {
            "memprobe_baseline": 1,
            "probes": {"p": {"figures": {"saved_bytes": 1}, "versions": {"torch": "x"}, "device": "cpu"}},
        },
    }
    sample = samples[kind]
    paths = list(_paths(sample))[1:]
    rng = random.Random(kind)
    d = tmp_path / "x"
    d.mkdir()
    budget = tmp_path / "memprobe.toml"
    budget.write_text(
        '[probes.p]\nrecipe = "rowwise"\ndim = 256\nhidden = 768\nseq = 128\nac_policy = "torchtitan-2025-01"\n'
        'device = "cuda"\nsteps = 3\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n\n[probes.p.limits.baseline]\n'
        'saved_bytes = "+5%"\n'
    )
    for _ in range(60):
        doc = json.loads(json.dumps(sample))
        text = _dump_hostile(doc, rng.choice(paths), rng.choice(HOSTILE_VALUES))
        if kind == "baseline":
            (tmp_path / "memprobe-baseline.json").write_text(text, errors="surrogatepass")
            code, output = _invoke(["gate", "--budget", budget, "--from", f"p={ROWWISE}", "--json"])
        else:
            (d / f"{kind}.json").write_text(text, errors="surrogatepass")
            code, output = _invoke(["show", d])
        assert code in (0, 1, 2) and "Traceback" not in output and "internal error" not in output, (kind, output[-600:])


# -- 8. terminal injection ---------------------------------------------------------------------------------


def test_recorded_text_prints_literally(tmp_path):
    run = _copy_run(tmp_path, "exp[old]")

    def inject(r):
        r["findings"][0]["message"] = "closing [/] tag [bold]not bold[/bold] and \x1b]52;c;cHduZWQ=\x07 an OSC 52 copy"
        r["saved_tensors"][0]["expr"] = "abs([red]w[/red])"

    _edit_report(run, inject)
    proc = subprocess.run(
        MEMPROBE.split() + ["show", str(run)], capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "400"}
    )
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
import time
time.sleep(60)
def build(device):
    raise RuntimeError("never reached")
"""


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_the_model_import_is_an_interruption(tmp_path, sig, code):
    model = tmp_path / "slow.py"
    model.write_text(SLOW_IMPORT)
    out = tmp_path / "r"
    proc = subprocess.Popen(
        MEMPROBE.split() + ["run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline:  # the import has begun once the device is known
        try:
            if json.loads((out / "report.json").read_text())["device"]["type"]:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
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
    err = _one_line(run_cli(*args, cwd=tmp_path))
    assert needle in err, err


@pytest.mark.parametrize(
    "line, needle, lineno",
    [
        ('save_ops = ["aten.abs.overloads"]', "not an op overload", 3),
        ("layers = 2.5", "must be a whole number", 3),
        ("lr = nan", "must be a finite number", 3),
    ],
)
def test_budget_values_are_checked_as_run_would_check_them(tmp_path, line, needle, lineno):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(f'[probes.p]\nrecipe = "rowwise"\n{line}\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n')
    err = _one_line(run_cli("gate", "--budget", budget))
    assert needle in err and f"{budget}:{lineno}" in err, err

"""Hostile files are read within bounds: a FIFO is refused, never waited on; a file over its kind's size is refused
before it is read; what is huge but allowed renders truncated and says so; and within its size each file has a budget
of work (allocator events, stack frames, JSON values), refused in one line naming the bound and how to raise it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import invoke, run_cli
from test_gate import CUDA_BUDGET

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


def _invoke(*args) -> tuple[int, str, str]:
    """A verb in this process, through the CLI's one door: exit code, stdout, stderr."""
    from memprobe.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _error_line(code: int, out: str, err: str, want: int = 2) -> str:
    assert code == want, (code, out[-500:], err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


def _fifo(path: Path) -> Path:
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    return path


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


# -- nothing is waited on, nothing is read whole before its size is known ----------------------------------------------


def _within(args: list, seconds: float = 120) -> subprocess.CompletedProcess:
    """A CLI process that must end by itself (a hang is a failure, not a wait)."""
    try:
        return run_cli(*args, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"memprobe {' '.join(map(str, args))} hung (a FIFO read blocking?)")


@pytest.mark.parametrize("fifo_at", ["graphs/g0.forward.json", "report.json", "budget", "baseline", "snapshot.pickle"])
def test_a_fifo_is_refused_never_waited_on(tmp_path, fifo_at):
    run = _copy(ROWWISE, tmp_path / "X")
    budget = tmp_path / "memprobe.toml"
    budget.write_text(CUDA_BUDGET)
    if fifo_at == "budget":
        args = ["gate", "--budget", _fifo(budget), "--from", f"p={run}"]
    elif fifo_at == "baseline":
        args = ["gate", "--budget", budget, "--from", f"p={run}", "--baseline", _fifo(tmp_path / "base.json")]
    elif fifo_at == "snapshot.pickle":
        args = ["report", run, "-o", tmp_path / "x.html"]
        _fifo(run / fifo_at)
    else:
        args = ["explain", run, "--out", tmp_path / "e"] if fifo_at.startswith("graphs") else ["show", run]
        _fifo(run / fifo_at)
    proc = _within(args)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "not a regular file" in proc.stderr and "measured no memory events" not in proc.stderr
    assert not (tmp_path / "e").exists()  # checked before --out was touched


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    from memprobe.rundir.read import FILE_LIMITS

    run = _copy(ROWWISE, tmp_path / "X")
    with open(run / "report.json", "r+b") as f:  # sparse: 1 GiB on paper, nothing on disk
        f.truncate(2**30)
    err = _error_line(*_invoke("show", run))
    assert f"is {2**30} bytes; memprobe reads at most {FILE_LIMITS['report']} for a report file" in err


def test_output_code_of_millions_of_lines_renders_bounded_and_says_so(tmp_path):
    from memprobe.report.html import MAX_CODE_LINES

    run = _copy(ROWWISE, tmp_path / "X")
    (run / "output_code" / "g0.forward.py").write_text("\n" * 5_000_000)
    code, out, err = _invoke("report", run, "-o", tmp_path / "x.html")
    assert code == 0, err
    page = (tmp_path / "x.html").read_text()
    assert f"truncated: {5_000_000 - MAX_CODE_LINES} more lines" in page
    assert len(page) < 40 * 2**20  # the unbounded page was 298 MB


def test_a_ten_million_character_label_is_shown_truncated(tmp_path):
    run = _copy(BF16, tmp_path / "X")
    # a finding's kind is a word of the vocabulary (the schema refuses others); its message may be anything
    finding = {"kind": "accounting-mismatch", "bytes": 0, "message": "m" * 10_000_000}
    _edit(run / "report.json", lambda r: r["findings"].append(finding))
    code, out, err = _invoke("show", run)
    assert code == 0, err
    assert "truncated: 9998000 more characters" in out and "m" * 2001 not in out


# -- a budget of work per file: events, frames and JSON values ---------------------------------------------------------


def _snapshot_of(tmp_path: Path, events: list, segments: list | None = None) -> Path:
    """A copy of a CUDA run whose snapshot.pickle holds ``events`` (shared objects stay shared in the pickle)."""
    import pickle

    run = _copy(BF16, tmp_path / "X")
    (run / "snapshot.pickle").write_bytes(pickle.dumps({"segments": segments or [], "device_traces": [events]}))
    return run


@pytest.mark.parametrize("hostile", ["one-frame-list-for-every-event", "one-event-millions-of-times"])
def test_a_snapshot_whose_shared_parts_multiply_is_refused_naming_the_bound(tmp_path, hostile):
    if hostile == "one-frame-list-for-every-event":  # 9 MB: 200,000 frames, every event's stack (100 s and more, before)
        frames = [{"filename": f"model{i % 7}.py", "line": i, "name": "forward"} for i in range(200_000)]
        events = [{"action": "alloc", "addr": 512 * i, "size": 512, "frames": frames} for i in range(200_000)]
        bound, var = "stack frames (a frame list shared among events counted at each use)", "MEMPROBE_MAX_FRAMES"
    else:  # 15 MB: one event three million times (115 s, before)
        event = {"action": "alloc", "addr": 4096, "size": 512, "frames": [{"filename": "m.py", "line": 1, "name": "f"}]}
        events = [event] * 3_000_000
        bound, var = "allocator events and blocks", "MEMPROBE_MAX_EVENTS"
    run = _snapshot_of(tmp_path, events)
    assert (run / "snapshot.pickle").stat().st_size < 20 * 2**20
    # in a process of its own: a regression fails at the hang guard, not after minutes of the suite's time
    err = _one_line(run_cli("report", run, "-o", tmp_path / "x.html", "--trace", tmp_path / "t.json", timeout=300))
    assert f"{bound}, more than memprobe works through for one file" in err and f"set {var}=" in err, err


def test_a_snapshot_within_the_bounds_is_read_once_per_shared_stack(tmp_path, monkeypatch):
    """Within the bounds, a stack shared by every event is worked out once (its meaning is the same for every use):
    the report is written, with the events named as the rest of the suite names them."""
    from memprobe.analysis import snapshot

    frames = [{"filename": f"/lib/torch/nn/x{i}.py", "line": i, "name": "forward"} for i in range(2_000)]
    events = []
    for i in range(20_000):
        events += [{"action": "alloc", "addr": 512 * (i + 1), "size": 4096, "frames": frames}]
        events += [{"action": "free_completed", "addr": 512 * (i + 1), "size": 4096, "frames": frames}] * (i % 2)
    run = _snapshot_of(tmp_path, events)
    walked = []
    real = snapshot._frames
    monkeypatch.setattr(snapshot, "_frames", lambda ev: walked.append(1) or real(ev))
    proc = invoke("report", run, "-o", tmp_path / "x.html", "--trace", tmp_path / "t.json")
    assert proc.returncode == 0, proc.stderr
    assert len(walked) < 10  # once per stack and derivation, not once per event (40 million frames walked, before)
    trace = json.loads((tmp_path / "t.json").read_text())
    assert trace["traceEvents"]


def _cpu_run(tmp_path: Path, edit) -> Path:
    run = _copy(Path(__file__).parent / "data" / "cpu" / "tiny-rowwise", tmp_path / "X")
    _edit(run / "report.json", lambda r: edit(r["memory"]["events"]))
    return run


def test_a_report_of_many_regions_and_events_is_worked_through_in_one_sweep(tmp_path, monkeypatch):
    """50,000 regions over 50,000 events, 5 MB: every event used to be checked against every region (a scan of all
    regions per event, 2.5 billion steps); now the regions are swept once for all events, and each event is named by
    its innermost region as the scan named it."""
    from memprobe.analysis import cpu_attribution
    from memprobe.analysis.timeline import timeline
    from memprobe.rundir.load import load_report

    def many(ev):
        t = ev["rows"][0][0]
        ev["rows"] = [[t + i, 512 if i % 2 == 0 else -512, 512, 4096 + 512 * (i // 2)] for i in range(50_000)]
        ev["annotations"] = [[f"FSDP::pre_forward ({i})", t + i, t + i + 0.5] for i in range(50_000)]

    run = _cpu_run(tmp_path, many)
    sweeps = []
    real = cpu_attribution._innermost

    def counted(*args):
        sweeps.append(1)
        assert len(sweeps) <= 4, "the regions are scanned again for every event"
        return real(*args)

    monkeypatch.setattr(cpu_attribution, "_innermost", counted)
    proc = invoke("report", run, "-o", tmp_path / "x.html", "--trace", tmp_path / "t.json")
    assert proc.returncode == 0, proc.stderr
    assert len(sweeps) == 2  # once for the page's timeline, once for the trace's
    assert set(timeline(load_report(run), run).categories) == {"fsdp-unsharded-parameter"}  # named by its region


def test_graph_calls_that_span_the_events_again_and_again_are_refused(tmp_path):
    def overlapping(ev):
        t = ev["rows"][0][0]
        ev["rows"] = [[t + i, 512, 512 * (i + 1), 4096 + 512 * i] for i in range(20_000)]
        ev["annotations"] = [["memprobe::call g0", t - 1, t + 30_000]] * 5_000  # 100 million events spanned

    run = _cpu_run(tmp_path, overlapping)
    err = _one_line(invoke("report", run, "-o", tmp_path / "x.html"))
    assert "memory events spanned by the graph calls" in err and "set MEMPROBE_MAX_EVENTS=" in err, err


@pytest.mark.parametrize(
    "var, needle",
    [
        ("MEMPROBE_MAX_WORK", "JSON values, more than memprobe works through for one file (at most 1000;"),
        ("MEMPROBE_MAX_EVENTS", "memory events, regions and ops (memory.events), more than memprobe works through"),
    ],
)
def test_a_report_over_a_bound_is_refused_naming_it_and_how_to_raise_it(tmp_path, monkeypatch, var, needle):
    run = _copy(Path(__file__).parent / "data" / "cpu" / "tiny-rowwise", tmp_path / "X")
    monkeypatch.setenv(var, "1000" if var == "MEMPROBE_MAX_WORK" else "100")  # a smaller bound, for a small file
    for verb in (["show", run], ["report", run, "-o", tmp_path / "x.html"], ["diff", run, run]):
        err = _one_line(invoke(*verb))
        assert needle in err and f"set {var}=" in err, err
    monkeypatch.setenv(var, "lots")
    assert "a bound of memprobe's work is a positive integer" in _one_line(invoke("show", run))
    monkeypatch.delenv(var)
    assert invoke("show", run).returncode == 0  # the default bound: a real run is far within it

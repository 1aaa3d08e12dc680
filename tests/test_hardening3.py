"""Hardening III (issue 24): nothing of the user's deleted, nothing outside read, nothing hangs, the gate fails
closed, never exit 70 on input, every output format escaped for itself.

Each test is a repro from the adversarial pass and failed before its fix. Verbs that only read run from the
committed H200 run directories (tests/data/cuda) in this process, through the CLI's one exception door;
what needs a process of its own (signals, os._exit, atexit, two writers at once) runs one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner
from conftest import TINY, invoke, run_cli, start_cli
from test_untrusted import EXPLAIN_SAMPLE

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"
SENTINEL = "sentinel_outside_value_7f3a"  # a label that exists only in a run directory outside the one read


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


def _one_line(code: int, out: str, err: str, want: int = 2) -> str:
    assert code == want, (code, out[-500:], err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


def _sentinel_run(where: Path) -> Path:
    """A run directory outside the one under test, with a label nobody else has."""
    run = _copy(BF16, where)
    _edit(run / "report.json", lambda r: r["saved_tensors"][0].update(expr=SENTINEL))
    return run


def _fifo(path: Path) -> Path:
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    return path


# -- data loss: --force removes exactly what memprobe recorded writing -------------------------------------


@pytest.mark.parametrize("where", ["graphs/thesis.tex", "output_code/notes.py", ".thesis.tex.tmp", "graphs/.draft.abcd1234.tmp"])
def test_force_keeps_a_users_file_inside_a_copied_run(tmp_path, where):
    run = _copy(ROWWISE, tmp_path / "X")  # an older run directory: its marker has no manifest
    (run / where).write_text("the user's")
    err = _one_line(*_invoke("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", run, "--force", "-q"))
    assert where.split("/")[-1] in err and "refusing to delete it" in err
    assert (run / where).read_text() == "the user's" and (run / "report.json").is_file()


@pytest.mark.e2e
def test_force_replaces_an_older_run_directory_of_memprobes_own(tmp_path):
    run = _copy(ROWWISE, tmp_path / "X")  # a marker without a manifest, and only the names memprobe writes
    (run / "graphs" / ".g0.forward.json.ab12cd34.tmp").write_text("a write that died")
    code, out, err = _invoke("run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", run, "--force", "-q")
    assert code == 0, err
    assert not (run / "snapshot.pickle").exists() and not list(run.rglob("*.tmp"))
    listed = set((run / ".memprobe").read_text().splitlines()[2:])
    assert listed == {str(p.relative_to(run)) for p in run.rglob("*") if p.is_file() and p.name != ".memprobe"}


def test_force_removes_exactly_the_manifest(tmp_path):
    from memprobe.errors import RunDirError
    from memprobe.rundir.write import MARKER, atomic_write_json, atomic_write_text, prepare_run_dir

    out = tmp_path / "G"
    prepare_run_dir(out, force=False)
    atomic_write_json(out / "report.json", {"status": "complete"})
    atomic_write_text(out / "graphs" / "g0.forward.txt", "graph")
    prepare_run_dir(out / "probe", force=False)  # a probe's run directory of its own, as the gate makes
    atomic_write_json(out / "probe" / "report.json", {})
    manifest = (out / MARKER).read_text().splitlines()
    assert manifest[2:] == ["report.json", "graphs/g0.forward.txt", "probe/"]
    (out / "graphs" / "g1.forward.txt").write_text("named like memprobe's, but not written by it")
    with pytest.raises(RunDirError, match="g1.forward.txt, which memprobe did not write"):
        prepare_run_dir(out, force=True)
    assert sorted(p.name for p in out.rglob("*")) == [".memprobe", ".memprobe", "g0.forward.txt", "g1.forward.txt"] + [
        "graphs",
        "probe",
        "report.json",
        "report.json",
    ]
    (out / "graphs" / "g1.forward.txt").unlink()
    (out / "graphs" / ".g0.forward.txt.x1y2z3w4.tmp").write_text("a write that died")
    prepare_run_dir(out, force=True)
    assert [p.name for p in out.iterdir()] == [MARKER]  # all of it memprobe's: all of it removed, the marker reset
    assert (out / MARKER).read_text().splitlines()[2:] == []


def test_a_marker_naming_files_elsewhere_is_no_marker(tmp_path):
    from memprobe.rundir.write import MANIFEST_HEADER, MARKER, MARKER_TEXT

    victim = tmp_path / "home" / "thesis.tex"
    victim.parent.mkdir()
    victim.write_text("years of work")
    out = tmp_path / "X"
    out.mkdir()
    (out / MARKER).write_text(MARKER_TEXT + MANIFEST_HEADER + "../home/thesis.tex\n")
    (out / "report.json").write_text("{}")
    err = _one_line(*_invoke("run", "--analysis-only", *TINY, "--out", out, "--force", "-q"))
    assert "not a memprobe run directory" in err and victim.read_text() == "years of work"


@pytest.mark.e2e
def test_two_writers_of_one_directory_give_one_winner_and_one_exit_2(tmp_path):
    out = tmp_path / "X"
    args = ["run", "--analysis-only", *TINY, "--recipe", "bf16", "--out", out, "--force", "-q"]
    with ThreadPoolExecutor(2) as pool:  # two memprobe processes at once
        results = [(p.returncode, p.stderr) for p in pool.map(lambda _: run_cli(*args), range(2))]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    loser = next(err for code, err in results if code == 2)
    assert loser.count("\n") == 1 and "being written by another memprobe process" in loser
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "complete"
    # the winner's run, whole: every file it names is there, and the manifest lists every file there is
    assert all((out / g["files"]["graph_json"]).is_file() for g in report["graphs"])
    listed = set((out / ".memprobe").read_text().splitlines()[2:])
    present = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.name != ".memprobe"}
    assert present == listed


# -- nothing outside is read -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["report.json", "diff.json"])
def test_a_top_level_file_linked_elsewhere_is_refused(tmp_path, name):
    elsewhere = _sentinel_run(tmp_path / "elsewhere")
    d = tmp_path / "X"
    d.mkdir()
    if name == "diff.json":
        assert invoke("diff", BF16, ROWWISE, "--out", tmp_path / "made", "-q").returncode == 0
        shutil.copy(tmp_path / "made" / "diff.json", elsewhere / "diff.json")
    (d / name).symlink_to(elsewhere / name)
    code, out, err = _invoke("show", d)
    err = _one_line(code, out, err)
    assert "symbolic link" in err and SENTINEL not in out
    (d / name).unlink()
    (d / name).symlink_to("/etc/passwd")
    code, out, err = _invoke("show", d, "--json")
    assert "symbolic link" in _one_line(code, out, err) and "root:" not in out + err


@pytest.mark.parametrize("how", ["absolute", "relative", "linked"])
def test_a_recorded_diff_never_reads_a_side_outside_its_directory(tmp_path, how, monkeypatch):
    _sentinel_run(tmp_path / "outside")
    assert invoke("diff", BF16, ROWWISE, "--out", tmp_path / "made", "-q").returncode == 0
    d = tmp_path / "d"
    d.mkdir()
    doc = json.loads((tmp_path / "made" / "diff.json").read_text())
    if how == "linked":
        (d / "a").symlink_to(tmp_path / "outside")
        doc["a"]["source"] = str(d / "a")
    else:
        doc["a"]["source"] = str(tmp_path / "outside") if how == "absolute" else "../outside"
    (d / "diff.json").write_text(json.dumps(doc))
    monkeypatch.chdir(d)  # a relative source is not resolved against the working directory either
    code, out, err = _invoke("report", d, "-o", tmp_path / "d.html")
    assert code == 0, err
    assert SENTINEL not in (tmp_path / "d.html").read_text()


def test_a_probe_name_is_never_a_path(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text('[probes."../esc"]\nrecipe = "bf16"\n\n[probes."../esc".limits]\nsaved_bytes = "1 GiB"\n')
    err = _one_line(*_invoke("gate", "--budget", budget, "--out", tmp_path / "G", "-q"))
    assert "'../esc'" in err and "one word" in err and f"{budget}:1" in err
    assert not (tmp_path / "esc").exists() and not (tmp_path / "G").exists()
    err = _one_line(*_invoke("budget", "--name", "../esc", "--budget", tmp_path / "b.toml", *TINY))
    assert "a probe name is one word" in err


# -- the gate fails closed ------------------------------------------------------------------------------------

BUDGET = """\
[probes.p]
recipe = "rowwise"
dim = 256
hidden = 768
seq = 128
ac_policy = "torchtitan-2025-01"
device = "cuda"
steps = 3

[probes.p.limits]
saved_bytes = "1 GiB"
weight_derived_saved_bytes = "1 GiB"
graph_peak_bytes = "1 GiB"

[probes.p.limits.cuda]
forward_peak_bytes = "1 GiB"
"""


def test_a_complete_run_without_its_figures_fails_the_gate(tmp_path):
    run = _copy(ROWWISE, tmp_path / "run")

    def strip(r):
        r.update(saved_totals=None, memory=None, graph_memory=None, saved_tensors=[], attribution=None, findings=[])

    _edit(run / "report.json", strip)
    budget = tmp_path / "memprobe.toml"
    budget.write_text(BUDGET)
    code, out, err = _invoke("gate", "--budget", budget, "--from", f"p={run}", "--json", "--junit", tmp_path / "g.xml")
    assert code == 1, (out, err)
    verdicts = {v["metric"]: v for v in json.loads(out)["verdicts"]}
    assert {v["verdict"] for v in verdicts.values()} == {"FAIL"}
    assert "the run has no saved_bytes figure" in verdicts["saved_bytes"]["notice"]
    failures = ET.parse(tmp_path / "g.xml").getroot().iter("failure")
    assert any("the run has no forward_peak_bytes figure" in f.get("message") for f in failures)
    # unless the budget says a limit is optional: then it is skipped, and says why ...
    budget.write_text(
        BUDGET.replace(
            "[probes.p.limits]\n",
            '[probes.p.limits]\noptional = ["saved_bytes", "weight_derived_saved_bytes", "graph_peak_bytes",'
            ' "cuda.forward_peak_bytes"]\n',
        )
    )
    # ... but a gate whose every limit was skipped checked nothing: it fails (Hardening IV: it passed)
    code, out, err = _invoke("gate", "--budget", budget, "--from", f"p={run}", "--json")
    assert code == 1, (out, err)
    notices = [v["notice"] for v in json.loads(out)["verdicts"] if v["verdict"] == "FAIL"]
    assert len(notices) == 4 and all("(optional); no limit of probe 'p' was checked" in n for n in notices), notices


def test_optional_names_a_limit_of_its_probe(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(BUDGET.replace("[probes.p.limits]\n", '[probes.p.limits]\noptional = ["cpu.forward_peak_bytes"]\n'))
    err = _one_line(*_invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}"))
    assert "'cpu.forward_peak_bytes', which is no limit of probe 'p'" in err and f"{budget}:11" in err


# -- nothing hangs, nothing unbounded ------------------------------------------------------------------------------


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
    budget.write_text(BUDGET)
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
    err = _one_line(*_invoke("show", run))
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


# -- never exit 70 on input ----------------------------------------------------------------------------------------

HUGE = "9" * 400


@pytest.mark.parametrize(
    "kind, field",
    [
        ("report", "saved_tensors[0].bytes"),
        ("report", "config.lr"),
        ("report", "timings_s.total"),
        ("report", "memory.phases.forward.peak_bytes"),
        ("report", "extra_unread_field"),
        ("diff", "totals.saved_bytes.delta"),
        ("explain", "edits[0].bytes_saved_per_flop"),
        ("bisect", "threshold_bytes"),
    ],
)
def test_an_integer_beyond_float_range_names_its_field(tmp_path, kind, field):
    d = _copy(BF16, tmp_path / "X") if kind == "report" else tmp_path / "X"
    name = "report.json" if kind == "report" else f"{kind}.json"
    if kind != "report":
        d.mkdir()
        (d / name).write_text(json.dumps(_SAMPLES[kind]))
    doc = json.loads((d / name).read_text())
    _put(doc, field, "@@HUGE@@")
    (d / name).write_text(json.dumps(doc).replace('"@@HUGE@@"', HUGE))
    err = _one_line(*_invoke("show", d))
    assert f"{field}: " in err and ("out of range" in err or "400 digits" in err), err


def test_an_infinity_literal_never_reaches_json_output(tmp_path):
    run = _copy(BF16, tmp_path / "X")
    (run / "report.json").write_text((run / "report.json").read_text()[:-1].rstrip().rstrip("}") + ', "x": 1e309}')
    code, out, err = _invoke("show", run, "--json")
    assert "x: a number out of range (inf)" in _one_line(code, out, err) and "Infinity" not in out


@pytest.mark.parametrize(
    "text, needle",
    [
        (f"saved_bytes = {HUGE}\n", "probes.p.limits.saved_bytes: an integer out of range"),
        (f'saved_bytes = "{HUGE} MiB"\n', "a size of at most 2**63 bytes"),
        ('saved_bytes = "1 MiB"\n\n[probes.p.limits.baseline]\nsaved_bytes = "+' + HUGE + '%"\n', "at most +100000%"),
        ("saved_bytes = " + "[" * 900 + "]" * 900 + "\n", "nested too deep"),
    ],
)
def test_budget_numbers_and_nesting_out_of_range_exit_2(tmp_path, text, needle):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(f'[probes.p]\nrecipe = "bf16"\n\n[probes.p.limits]\n{text}')
    err = _one_line(*_invoke("gate", "--budget", budget, "--from", f"p={BF16}"))
    assert needle in err and str(budget) in err, err


def test_an_out_of_range_integer_in_a_budget_configuration_names_its_line(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(f'[probes.p]\nrecipe = "bf16"\nlr = {HUGE}\n\n[probes.p.limits]\nsaved_bytes = 1\n')
    err = _one_line(*_invoke("gate", "--budget", budget))
    assert f"{budget}:3: probes.p.lr: an integer out of range" in err


def test_min_delta_beyond_float_range_exit_2(tmp_path):
    err = _one_line(*_invoke("bisect", "bf16", "rowwise", "--min-delta", HUGE, "--out", tmp_path / "b"))
    assert "--min-delta" in err and not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    "edit, verb, needle",
    [
        (lambda d: d["a"].pop("summary"), ["show"], "a.summary: missing"),
        (lambda d: d["phases"].pop("phases"), ["show"], "phases.phases: missing"),
        (lambda d: d["phases"].pop("phases"), ["show", "--csv", "{tmp}/t.csv"], "phases.phases: missing"),
    ],
)
def test_a_diff_without_what_its_renderers_read_exit_2(tmp_path, edit, verb, needle):
    d = tmp_path / "d"
    assert invoke("diff", BF16, ROWWISE, "--out", d, "-q").returncode == 0
    _edit(d / "diff.json", edit)
    err = _one_line(*_invoke(*[v.format(tmp=tmp_path) for v in verb], d))
    assert needle in err and not (tmp_path / "t.csv").exists()


@pytest.mark.parametrize("key, value", [("recipe", 5), ("nproc", "x"), ("lr", [1])])
def test_an_explain_result_with_a_bad_configuration_names_the_file(tmp_path, key, value):
    d = tmp_path / "e"
    d.mkdir()
    doc = json.loads(json.dumps(_SAMPLES["explain"]))
    doc["base"]["config"][key] = value
    (d / "explain.json").write_text(json.dumps(doc))
    err = _one_line(*_invoke("show", d))
    # the field's path (a value of the wrong type is the schema's to name, as in every other record)
    assert f"{d / 'explain.json'}: base.config.{key}: " in err


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s["device_traces"][0][0].update(time_us="soon"),
        lambda s: s["device_traces"][0][0].update(time_us=[1]),
        lambda s: s["device_traces"][0][0].update(time_us=10**400),
        lambda s: s["segments"][0].update(blocks=7),
        lambda s: s["device_traces"][0][1].update(size=2**70),
    ],
)
def test_snapshot_fields_of_the_wrong_type_are_ignored_not_a_crash(tmp_path, edit):
    from memprobe.analysis.snapshot import load_snapshot

    run = _copy(BF16, tmp_path / "X")
    snap = dict(load_snapshot(run / "snapshot.pickle"))
    edit(snap)
    import pickle

    (run / "snapshot.pickle").write_bytes(pickle.dumps(snap))
    code, out, err = _invoke("report", run, "-o", tmp_path / "x.html", "--trace", tmp_path / "t.json")
    assert code == 0, err
    json.loads((tmp_path / "t.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the trace"))


def test_a_directory_memprobe_may_not_read_is_exit_2(tmp_path, monkeypatch):
    # as root no permission bit stops a read, so the refusal the system would give is simulated
    from memprobe.rundir import read

    run = _copy(BF16, tmp_path / "X")
    real = read.os.stat

    def denied(path, *a, **k):
        if Path(path) == run:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(read.os, "stat", denied)
    err = _one_line(*_invoke("show", run))
    assert f"directory {run}: cannot read it (Permission denied)" in err
    from memprobe.cli.main import outcome

    assert outcome(PermissionError(13, "Permission denied", "/x")) == (2, "memprobe: error: cannot access /x: permission denied")


def test_an_interpreter_that_prints_binary_is_exit_2(tmp_path):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nprintf '\\377\\376\\200 not utf-8\\n' >&2\nprintf '\\377\\n'\nexit 1\n")
    python.chmod(0o755)
    err = _one_line(*_invoke("diff", "bf16", "bf16", "--a-python", python, *TINY, "--out", tmp_path / "d"))
    assert err.startswith("memprobe: error: [a]") and str(python) in err and "cannot run memprobe's environment check" in err
    assert "nothing was run" in err


@pytest.mark.parametrize("verb, code", [(["show", "MISSING"], 2), (["policies", "--json"], 0)])
def test_debug_keeps_the_exit_code_and_adds_the_traceback(tmp_path, verb, code):
    args = [str(tmp_path / "missing") if v == "MISSING" else v for v in verb]
    proc = invoke("--debug", *args)
    assert proc.returncode == code, proc.stderr
    if code:
        assert "Traceback" in proc.stderr and proc.stderr.rstrip().splitlines()[-1].startswith("memprobe: error: ")


def test_debug_keeps_exit_70_for_a_bug(monkeypatch):
    from memprobe.analysis import recorded

    def bug(*a, **k):
        raise KeyError("a simulated bug")

    monkeypatch.setattr(recorded, "load_recorded", bug)
    code, out, err = _invoke("--debug", "show", BF16)
    assert code == 70 and "Traceback" in err and "internal error: KeyError: 'a simulated bug'" in err, (code, err)


# -- the user's code cannot choose memprobe's exit code ----------------------------------------------------------------

MODELS = """
import atexit, os, sys, time
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.lin = nn.Linear(32, 32)
        self.mode = mode

    def forward(self, x):
        if self.mode == "sys-exit":
            sys.exit(0)
        if self.mode == "base-exception":
            raise Escape("out of the model")
        if self.mode == "swallow-ctrl-c":
            ready = os.environ["MEMPROBE_TEST_READY"]
            open(ready, "w").close()
            while not os.path.exists(ready + ".sent"):  # until the test has sent its signal: no clock
                try:
                    time.sleep(0.05)
                except KeyboardInterrupt:  # a library that swallows Ctrl-C
                    pass
        return x + self.lin(x)


class Escape(BaseException):
    pass


class Net(nn.Module):
    def __init__(self, mode=None):
        super().__init__()
        self.blocks = nn.ModuleList([Block(mode)])

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def build(device):
    mode = os.environ["MEMPROBE_TEST_MODE"]
    if mode == "os-exit":
        os._exit(0)
    if mode == "atexit":
        atexit.register(lambda: print("printed at exit by the model"))
    return Net(mode), torch.randn(2, 16, 32)
"""


def _model_run(
    tmp_path: Path, mode: str, *extra, wait_ready: int | None = None, source: str = MODELS
) -> tuple[subprocess.CompletedProcess, Path]:
    """`memprobe run` of the model ``source`` (MEMPROBE_TEST_MODE=``mode``); ``wait_ready``: the signal to send once it
    says it is ready (it touches MEMPROBE_TEST_READY, and waits for that path + ".sent")."""
    model = tmp_path / "models.py"
    model.write_text(source)
    out = tmp_path / "r"
    ready = tmp_path / "ready"
    env = {"MEMPROBE_TEST_MODE": mode, "MEMPROBE_TEST_READY": str(ready)}
    args = ["run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", str(out), *extra]
    if wait_ready is None:
        return run_cli(*args, env=env), out
    proc = start_cli(*args, env=env)
    while not ready.exists() and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(wait_ready)
    (tmp_path / "ready.sent").touch()
    stdout, stderr = proc.communicate(timeout=600)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), out


@pytest.mark.e2e
@pytest.mark.parametrize(
    "mode, code, needle",
    [
        ("os-exit", 2, "the factory called os._exit(0)"),
        ("sys-exit", 3, "the model called sys.exit(0) during forward"),
        ("base-exception", 3, "the model raised Escape: out of the model during forward"),
    ],
)
def test_the_models_exit_is_a_failure_with_the_run_marked(tmp_path, mode, code, needle):
    proc, out = _model_run(tmp_path, mode, "--no-compile", "--json", "-q")
    assert proc.returncode == code and proc.stdout == "", (proc.returncode, proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert json.loads((out / "report.json").read_text())["status"] == "failed"


@pytest.mark.e2e
def test_a_ctrl_c_the_model_swallowed_still_interrupts(tmp_path):
    proc, out = _model_run(tmp_path, "swallow-ctrl-c", "--no-compile", "-q", wait_ready=signal.SIGINT)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and "interrupted (Ctrl-C)" in proc.stderr
    assert json.loads((out / "report.json").read_text())["status"] == "interrupted"


@pytest.mark.e2e
def test_sigterm_during_compilation_is_an_interruption(tmp_path):
    out = tmp_path / "r"
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")}  # cold: the compile takes seconds
    proc = start_cli("run", *TINY, "--recipe", "bf16", "--out", out, env=env)
    for line in proc.stderr:
        if "(compiling)" in line:
            break
    time.sleep(2.0)
    proc.send_signal(signal.SIGTERM)
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 143, err
    assert "terminated (SIGTERM)" in err and "BackendCompilerFailed" not in err and "run failed" not in err
    assert json.loads((out / "report.json").read_text())["status"] == "interrupted"


@pytest.mark.e2e
def test_the_models_atexit_print_never_follows_the_json(tmp_path):
    proc, out = _model_run(tmp_path, "atexit", "--no-compile", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["status"] == "complete"  # the whole of stdout is the document
    # memprobe run leaves without the interpreter's teardown (cli/main.py _leave): the model's atexit handler does not
    # run at all, so it cannot print after the document either
    assert "printed at exit by the model" not in proc.stdout


# -- every output format escaped for itself ---------------------------------------------------------------------------

HOSTILE = [
    "w` <img src=x onerror=alert(1)> `",
    "[c](javascript:alert(1))",
    "<script>alert(2)</script>",
    "cell | break\nnew row | x",
    "\x1b]52;c;cHduZWQ=\x07 osc52",
    "\u202eevil\u200b\u2028",
    '=HYPERLINK("http://x")',
    "@SUM(1)",
    "+1",
    "-1+1",
    "\t=1",
    "ctrl \x01\x0b\x0c\x1f chars",
]


def _hostile_run(tmp_path: Path, every: bool = False) -> Path:
    """ROWWISE with hostile text in its saved values' labels, modules and op chains (``every``: all of it in
    each, else one string each in turn) and in a finding."""
    run = _copy(ROWWISE, tmp_path / "hostile")

    def inject(r):
        for i, row in enumerate(r["saved_tensors"]):
            text = " ".join(HOSTILE) if every else HOSTILE[i % len(HOSTILE)]
            row["user"] = {**(row.get("user") or {"op": "x"}), "label": text, "module": text}
        r["findings"][0]["message"] = " ".join(HOSTILE)

    _edit(run / "report.json", inject)
    return run


def _rendered_html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


def _assert_inert_markdown(markdown: str) -> None:
    """Rendered by a real Markdown renderer: no element of the labels' comes out live, no terminal control
    or invisible character is left raw, and every table row keeps its header's cells."""
    page = _rendered_html(markdown)
    for live in ("<img", "<script", "<a ", 'javascript:alert(1)"'):
        assert live not in page, (live, page)
    for ch in ("\x1b", "\x07", "\u202e", "\u200b", "\u2028"):
        assert ch not in markdown, repr(ch)
    for table in page.split("<table>")[1:]:
        head = len(re.findall(r"<th[ >]", table.split("</thead>")[0]))
        for row in table.split("<tbody>")[-1].split("</tbody>")[0].split("<tr>")[1:]:
            assert row.count("<td") == head, row


def test_diff_markdown_of_hostile_labels_is_inert(tmp_path):
    code, out, err = _invoke("diff", BF16, _hostile_run(tmp_path, every=True), "--markdown")
    assert code == 0, err
    _assert_inert_markdown(out)
    assert "\\u202e" in out and "\\x1b" in out  # shown, not executed


def test_gate_markdown_and_junit_of_hostile_labels_are_inert(tmp_path, monkeypatch):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(BUDGET.replace('weight_derived_saved_bytes = "1 GiB"', "weight_derived_saved_bytes = 0"))
    summary = tmp_path / "summary.md"
    junit = tmp_path / "g.xml"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    hostile = _hostile_run(tmp_path, every=True)
    proc = invoke("gate", "--budget", budget, "--from", f"p={hostile}", "--junit", junit, "--markdown")
    assert proc.returncode == 1, proc.stderr
    _assert_inert_markdown(proc.stdout)
    _assert_inert_markdown(summary.read_text())
    root = ET.parse(junit).getroot()  # well formed, whatever the labels held
    text = "".join(f.text or "" for f in root.iter("failure"))
    assert "\\x01" in text and "<script>alert(2)</script>" in text  # shown as text, escaped by the XML itself


def test_csv_cells_never_start_a_formula(tmp_path):
    table = tmp_path / "t.csv"
    code, out, err = _invoke("show", _hostile_run(tmp_path), "--csv", table)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    cells = [v for row in rows for v in row.values() if v]
    assert all(not c.startswith(("=", "+", "-", "@", "\t", "\r")) for c in cells), [c for c in cells if c[:1] in "=+-@\t\r"]
    assert '\'=HYPERLINK("http://x")' in cells and "'-1+1" in cells
    assert [int(row["bytes"]) for row in rows] == sorted(
        (int(row["bytes"]) for row in rows), reverse=True
    )  # numbers stay numbers


def test_the_terminal_shows_bidi_and_zero_width_characters(tmp_path):
    proc = invoke("show", _hostile_run(tmp_path))
    assert proc.returncode == 0, proc.stderr
    for ch in ("\u202e", "\u200b", "\u2028", "\x1b", "\x07"):
        assert ch not in proc.stdout
    assert "\\u202eevil\\u200b\\u2028" in proc.stdout.replace("\n", "").replace(" ", "")


# -- messages that say what is wrong ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["file", "devnull"])
def test_a_file_given_as_a_run_directory_is_called_what_it_is(tmp_path, what):
    path = Path("/dev/null") if what == "devnull" else tmp_path / "a.txt"
    if what == "file":
        path.write_text("x")
    err = _one_line(*_invoke("show", path))
    assert f"{path} is not a directory" in err and "does not exist" not in err


# -- shared samples ------------------------------------------------------------------------------------------------------------

_SAMPLES = {
    "explain": EXPLAIN_SAMPLE,
    "bisect": {
        "trials": [{"removed": "x", "delta_bytes": 1, "exceeds": True, "held_a": 1, "held_b": 2, "modes": ["full"]}],
        "conclusion": "c",
        "threshold_bytes": 1,
        "minimal": {"a": "a", "b": "b"},
    },
    "diff": {
        "a": {"config": {}, "summary": "a"},
        "b": {"config": {}, "summary": "b"},
        "items": [],
        "totals": {"saved_bytes": {"a": 1, "b": 2, "delta": 1}},
        "differences": 0,
        "unchanged_items": 0,
    },
}


def _put(doc, field: str, value) -> None:
    """Set ``doc`` at a dotted path with [i] indices (created when it is the last key)."""
    parts = [p for p in re.split(r"\.|\[(\d+)\]", field) if p]
    for p in parts[:-1]:
        doc = doc[int(p)] if p.isdigit() else doc[p]
    last = parts[-1]
    doc[int(last) if last.isdigit() else last] = value

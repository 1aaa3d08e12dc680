"""Hardening IV (issue 36): opening someone else's run directory never runs their code; the fork server trusts only its
own user; no small file costs minutes; CSV cells stay cells; the model cannot end or replace the run.

Each test is a case of the adversarial pass and failed before its fix (the issue's numbers in the section titles).
Verbs that only read run in this process, through the CLI's one exception door; what needs a process of its own
(signals, os.execv, threads, the fork server's peers) runs one.
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
import sys
import time
from pathlib import Path

import pytest
from conftest import TINY, invoke, mcp_session, run_cli
from test_hardening3 import _model_run

DATA = Path(__file__).parent / "data" / "cuda"
ROWWISE, BF16 = DATA / "rowwise-legacy", DATA / "bf16-legacy"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


def _mcp(calls):
    """``calls(session)`` in an MCP SDK client session with `memprobe mcp` over stdio; what it returns."""
    pytest.importorskip("mcp", reason="the MCP SDK is the optional extra memprobe[mcp]")
    return mcp_session(calls)


def _tool_error(result) -> str:
    """A tool's error, as its one line."""
    assert result.is_error, result.content
    text = result.content[0].text
    assert len(text.splitlines()) == 1 and "pydantic" not in text and "Traceback" not in text, text
    return text


# -- 1. a recorded configuration never names code to run ------------------------------------------------------------

EVIL = """
import os
open(os.environ.get("MEMPROBE_TEST_EVIL", "EVIL_RAN"), "w").write("ran")
def build(device):
    raise SystemExit("never")
"""


def _evil_run(tmp_path: Path, field: str, value: str) -> Path:
    """tmp_path/cases/x/run: a copied run directory whose configuration names ``value`` (beside it cases/x/evil.py, a
    package cases.x, and a config.json)."""
    x = tmp_path / "cases" / "x"
    x.mkdir(parents=True)
    for d in (tmp_path / "cases", x):
        (d / "__init__.py").write_text("")
    (x / "evil.py").write_text(EVIL)
    (x / "config.json").write_text(json.dumps({"model_type": "llama", "num_hidden_layers": 1}))
    run = _copy(BF16, x / "run")
    _edit(run / "report.json", lambda r: r["config"].update({field: value}))
    return run


# (field, the recorded value, the directory the verb runs in, relative to tmp_path): a file path, a relative path
# (from the directory beside it, and from above), a module spec, a Hugging Face config
SPELLINGS = [
    ("model", "{tmp}/cases/x/evil.py:build", "."),
    ("model", "evil.py:build", "cases/x"),
    ("model", "cases/x/evil.py:build", "."),
    ("model", "cases.x.evil:build", "."),
    ("hf_config", "cases/x/config.json", "."),
]


@pytest.mark.parametrize("field, value, cwd", SPELLINGS, ids=["file", "relative", "relative-above", "module", "hf-config"])
def test_explain_of_a_run_directory_never_runs_the_code_it_names(tmp_path, monkeypatch, field, value, cwd):
    value = value.format(tmp=tmp_path)
    run = _evil_run(tmp_path, field, value)
    evil = tmp_path / "EVIL_RAN"
    monkeypatch.setenv("MEMPROBE_TEST_EVIL", str(evil))
    where = tmp_path / cwd
    err = _one_line(invoke("explain", os.path.relpath(run, where), "--out", tmp_path / "e", "-q", cwd=where))
    flag = "--" + field.replace("_", "-")
    assert f"config.{field} names" in err and f"pass {flag} {value}" in err, err
    assert not evil.exists() and not (tmp_path / "e").exists()  # nothing ran, --out untouched
    # another model named on the command line is no permission either
    err = _one_line(invoke("explain", run, "--out", tmp_path / "e", flag, "other.py:build", "-q", cwd=where))
    assert "you named 'other.py:build'" in err and not evil.exists()


def test_naming_the_recorded_model_lets_explain_run_it(tmp_path):
    from memprobe.config import recorded_to_run
    from memprobe.rundir.load import load_report

    run = _evil_run(tmp_path, "model", "cases/x/evil.py:build")
    recorded = load_report(run).config.probe()
    where = str(run / "report.json")
    with pytest.MonkeyPatch.context() as m:
        m.chdir(tmp_path)
        for named in ("cases/x/evil.py:build", "./cases/x/evil.py:build", f"{tmp_path}/cases/x/evil.py:build"):
            assert recorded_to_run(recorded, {"model": named}, where) is recorded  # the same file and factory
        for named in ("cases/x/evil.py:other", "cases.x.evil:build", None):
            with pytest.raises(Exception, match="names code to run"):
                recorded_to_run(recorded, {"model": named}, where)


@pytest.mark.e2e
def test_explain_runs_the_recorded_model_when_the_user_names_it(tmp_path):
    run = _evil_run(tmp_path, "model", "cases/x/evil.py:build")
    _edit(run / "report.json", lambda r: r["config"].update(device="cpu"))
    evil = tmp_path / "EVIL_RAN"
    env = {"MEMPROBE_TEST_EVIL": str(evil)}
    args = ("explain", run, "--model", "./cases/x/evil.py:build", "--out", tmp_path / "e", "-q")
    err = _one_line(run_cli(*args, cwd=tmp_path, env=env))  # named: its probes import it (and its factory exits)
    assert "cases/x/evil.py:build" in err and "the factory called sys.exit('never')" in err, err
    assert evil.read_text() == "ran"


def test_bisect_and_gate_never_run_a_recorded_model(tmp_path, monkeypatch):
    run = _evil_run(tmp_path, "model", "cases/x/evil.py:build")
    evil = tmp_path / "EVIL_RAN"
    monkeypatch.setenv("MEMPROBE_TEST_EVIL", str(evil))
    err = _one_line(invoke("bisect", run, "bf16", "--out", tmp_path / "b", cwd=tmp_path))
    assert "not run directories" in err
    budget = tmp_path / "memprobe.toml"
    budget.write_text('[probes.p]\nrecipe = "bf16"\ndevice = "cpu"\n\n[probes.p.limits]\nsaved_bytes = "1 GiB"\n')
    for entry in (str(run), f"p={run}"):  # matched by configuration, or named: the run's model is no probe's
        err = _one_line(invoke("gate", "--budget", budget, "--from", entry, "--out", tmp_path / "g", cwd=tmp_path))
        assert "matches no probe's configuration" in err or "differs from that of probe 'p' in" in err, err
    assert not evil.exists() and not (tmp_path / "b").exists() and not (tmp_path / "g").exists()


def test_mcp_explain_of_a_run_directory_never_runs_the_code_it_names(tmp_path, monkeypatch):
    run = _evil_run(tmp_path, "model", f"{tmp_path}/cases/x/evil.py:build")
    evil = tmp_path / "EVIL_RAN"
    monkeypatch.setenv("MEMPROBE_TEST_EVIL", str(evil))

    async def calls(session):
        return await session.call_tool("explain", {"run_dir": str(run), "out": str(tmp_path / "e")})

    err = _tool_error(_mcp(calls))
    assert "exit 2" in err and f'pass config {{"model": "{tmp_path}/cases/x/evil.py:build"}}' in err, err
    assert not evil.exists() and not (tmp_path / "e").exists()


# -- 4. CSV: a cell stays a cell ---------------------------------------------------------------------------------------

CSV_HOSTILE = ["mm(x)\r=cmd|'/C calc'!A0", "a\n+SUM(1)", "b\r\n-2", 'q"uote', "com,ma", "\r\r@x", "plain"]


def test_csv_quotes_every_line_break_and_neutralises_formulas_after_one(tmp_path):
    run = _copy(ROWWISE, tmp_path / "X")

    def inject(r):
        for i, row in enumerate(r["saved_tensors"]):
            row["user"] = {"op": "x", "label": "x", **(row.get("user") or {}), "module": CSV_HOSTILE[i % len(CSV_HOSTILE)]}

    _edit(run / "report.json", inject)
    table = tmp_path / "t.csv"
    proc = invoke("show", run, "--csv", table)
    assert proc.returncode == 0, proc.stderr
    raw = table.read_bytes().decode()
    # a reader that starts a row at any CR or LF never sees one start with a formula ...
    assert not [piece for piece in re.split(r"\r\n|\r|\n", raw) if piece[:1] in ("=", "+", "-", "@")]
    # ... and a CSV reader reads every cell whole: as many rows as saved values, each label inert but its own
    rows = list(csv.DictReader(io.StringIO(raw, newline="")))
    assert len(rows) == len(json.loads((run / "report.json").read_text())["saved_tensors"])
    cells = {v for row in rows for v in row.values()}
    assert {"mm(x)\r'=cmd|'/C calc'!A0", "a\n'+SUM(1)", "b\r\n'-2", 'q"uote', "com,ma", "'\r'\r'@x"} <= cells
    for cell in ("mm(x)\r'=cmd", "a\n'+SUM(1)", 'q""uote', "com,ma"):
        assert f'"{cell}' in raw, cell  # quoted in the file itself


# -- 5. the model cannot end, replace or deafen the run ----------------------------------------------------------------

ESCAPES = """
import os, signal, sys, threading, time
import torch
import torch.nn as nn

MODE = os.environ["MEMPROBE_TEST_MODE"]
if MODE == "execv-at-import":
    os.execv("/bin/true", ["true"])
if MODE == "ignore-signals":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(32, 32)

    def forward(self, x):
        if MODE == "execv-in-forward":
            os.execv("/bin/true", ["true"])
        if MODE == "exit-in-thread":
            t = threading.Thread(target=os._exit, args=(0,), name="quitter")
            t.start()
            t.join()
        if MODE == "ignore-signals":
            ready = os.environ["MEMPROBE_TEST_READY"]
            open(ready, "w").close()
            while not os.path.exists(ready + ".sent"):  # until the test has signalled: no clock
                time.sleep(0.05)
            time.sleep(0.5)  # the signal is handled while this sleeps (it was ignored, the run went on to exit 0)
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
    return Net(), torch.randn(2, 16, 32)
"""


def _escape_run(tmp_path: Path, mode: str, signum: int | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    extra = ("--no-compile", "-q") if signum is not None else ("--no-compile", "--json", "-q")
    proc, out = _model_run(tmp_path, mode, *extra, wait_ready=signum, source=ESCAPES)
    return proc, json.loads((out / "report.json").read_text())


@pytest.mark.e2e
@pytest.mark.parametrize(
    "mode, code, needle",
    [
        ("execv-at-import", 2, "models.py called os.execv('/bin/true'); a model module must not exit or replace"),
        ("execv-in-forward", 3, "the model called os.execv('/bin/true') during forward"),
        ("exit-in-thread", 3, "the model called os._exit(0) in its thread 'quitter' during forward"),
    ],
)
def test_a_model_that_replaces_or_ends_the_process_is_a_failed_run(tmp_path, mode, code, needle):
    proc, report = _escape_run(tmp_path, mode)
    assert proc.returncode == code and proc.stdout == "", (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert needle in _one_line(proc, code)
    assert report["status"] == "failed"


@pytest.mark.e2e
@pytest.mark.parametrize(
    "signum, code, said", [(signal.SIGINT, 130, "interrupted (Ctrl-C)"), (signal.SIGTERM, 143, "terminated")]
)
def test_signals_a_model_ignores_at_import_still_stop_the_run(tmp_path, signum, code, said):
    proc, report = _escape_run(tmp_path, "ignore-signals", signum)
    assert said in _one_line(proc, code) and report["status"] == "interrupted"


# -- 6. exit 2 for bad input, never 70 ------------------------------------------------------------------------------------


def test_a_nul_byte_in_a_diffs_side_is_bad_input(tmp_path):
    d = tmp_path / "d"
    assert invoke("diff", BF16, ROWWISE, "--out", d, "-q").returncode == 0
    _edit(d / "diff.json", lambda doc: doc["a"].update(source="a\u0000b"))
    err = _one_line(invoke("report", d, "-o", tmp_path / "d.html"))
    assert "a.source: a path cannot hold a NUL byte" in err


@pytest.mark.parametrize("verb", [["explain", "{run}", "--out", "{tmp}/e"], ["report", "{run}", "-o", "{tmp}/x.html"]])
def test_a_symbolic_link_loop_in_a_run_directory_is_bad_input(tmp_path, verb):
    run = _copy(BF16, tmp_path / "X")
    shutil.rmtree(run / "graphs")
    (run / "graphs").symlink_to("graphs")  # ln -s graphs X/graphs
    (run / "memory").symlink_to("memory")
    _edit(run / "report.json", lambda r: r["memory"]["snapshot"].update(file="memory/snapshot.pickle"))
    proc = invoke(*[v.format(run=run, tmp=tmp_path) for v in verb])
    assert "a loop of symbolic links" in _one_line(proc), proc.stderr


def test_mcp_paths_and_argument_types_are_one_line_errors(tmp_path):
    async def calls(session):
        return [
            await session.call_tool("run", {"out": "a\u0000b", "config": {"device": "cpu"}}),
            await session.call_tool("show", {"path": "x\u0000y"}),
            await session.call_tool("run", {"force": "maybe"}),
            await session.call_tool("gate", {"probes": "p"}),
            await session.call_tool("show", {}),
            await session.call_tool("run", {"config": {"dim": "wide"}}),
        ]

    nul_out, nul_path, force, probes, missing, dim = (_tool_error(r) for r in _mcp(calls))
    assert "exit 2" in nul_out and "out: a path cannot hold a NUL byte" in nul_out
    assert "path: a path cannot hold a NUL byte" in nul_path
    assert "argument 'force' takes true or false, got 'maybe'" in force, force
    assert "argument 'probes' takes a list of strings or null, got 'p'" in probes, probes
    assert "argument 'path' is required" in missing, missing
    assert "exit 2" in dim and "config key 'dim': expected an integer, got 'wide'" in dim, dim


# -- 8. the gate fails when it checked nothing, or was given another configuration's run ------------------------------

GATE_BUDGET = """\
[probes.p]
recipe = "rowwise"
dim = 256
hidden = 768
seq = 128
ac_policy = "torchtitan-2025-01"
device = "cuda"
steps = 3

[probes.p.limits.cpu]
forward_peak_bytes = "1 GiB"
"""


def test_a_gate_that_checked_no_limit_fails(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_BUDGET)  # its one limit is for the CPU; the run was on CUDA: skipped
    proc = invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}", "--json")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout)
    assert result["counts"] == {"PASS": 0, "FAIL": 1, "SKIP": 0}
    (only,) = result["verdicts"]
    assert "this run was on cuda" in only["notice"] and "no limit of probe 'p' was checked" in only["notice"]
    # with one limit checked, the skipped one stays skipped and the gate passes
    budget.write_text(GATE_BUDGET + '\n[probes.p.limits.cuda]\nforward_peak_bytes = "1 GiB"\n')
    proc = invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["counts"] == {"PASS": 1, "FAIL": 0, "SKIP": 1}


def test_gate_from_a_run_of_another_configuration_is_refused(tmp_path):
    budget = tmp_path / "memprobe.toml"
    budget.write_text(GATE_BUDGET.replace('recipe = "rowwise"', 'recipe = "bf16"'))
    err = _one_line(invoke("gate", "--budget", budget, "--from", f"p={ROWWISE}", "--out", tmp_path / "g"))
    assert f"--from p={ROWWISE}: the run's configuration differs from that of probe 'p' in recipe" in err
    assert "recipe: probe 'bf16', run 'rowwise'" in err and not (tmp_path / "g").exists()


# -- 9. a file that is no model is bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flag, value, needle",
    [
        ("--model", "/etc/passwd:build", "/etc/passwd is not a Python file"),
        ("--hf-config", "/etc/passwd", "--hf-config /etc/passwd is not valid JSON"),
    ],
)
def test_a_system_file_as_the_model_is_bad_input(tmp_path, flag, value, needle):
    err = _one_line(invoke("run", flag, value, "--recipe", "bf16", "--device", "cpu", "--out", tmp_path / "r", "-q"))
    assert needle in err, err


# -- 2. and 7. the fork server trusts only its own user, and no client holds up the others ----------------------------

needs_pidfd = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the fork server needs os.pidfd_open (Linux)")
NOBODY = 65534  # a second uid every Linux has (nobody): no user need be made
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason=f"running a process as a second uid ({NOBODY}) needs root; this test runs as uid {os.geteuid()}"
)

# a fork server as memprobe's, without torch: its one program writes the file its argv names (and sleeps, if asked)
CHEAP_SERVER = """
import os, sys, time
import memprobe.capture.forkserver as fs

fs.REQUEST_DEADLINE_S = float(sys.argv[1])


class Program:
    __file__ = __file__

    @staticmethod
    def main(argv):
        open(argv[0], "w").close()
        time.sleep(float(argv[1]) if len(argv) > 1 else 0)
        return 0


sys.exit(fs.serve(sys.argv[2], preload=lambda: None, programs={"probe": Program}))
"""

# another user's fork server: it records every byte it is sent and answers with a pid of its choosing (init's)
OTHERS_SERVER = """
import os, socket, sys
path, record, how = sys.argv[1:4]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
if how == "their-directory":  # a directory the other user made (as a recreated /tmp/memprobe-forkserver-XXXX is)
    os.setgid(65534); os.setuid(65534)
    os.mkdir(os.path.dirname(path), 0o700)
    sock.bind(path)
else:  # this user's own directory and socket, but the process listening on it is the other user's
    sock.bind(path)
    os.setgid(65534); os.setuid(65534)
sock.listen(8)
print("ready", flush=True)
got = 0
while True:
    conn, _ = sock.accept()
    conn.settimeout(5)
    try:
        while chunk := conn.recv(65536):
            got += len(chunk)
            if b"\\n" in chunk:
                break
    except OSError:
        pass
    with open(record, "w") as f:
        f.write(str(got))
    try:
        conn.sendall(b'{"pid": 1}\\n')
    except OSError:
        pass
    conn.close()
"""


def _cheap_server(tmp_path: Path, deadline: float = 10.0):
    from memprobe.orchestrate.forkserver import start_server

    script = tmp_path / "cheap_server.py"
    script.write_text(CHEAP_SERVER)
    server = start_server(dict(os.environ), server=[sys.executable, str(script), str(deadline)])
    assert server is not None
    return server


def _request(server, argv: list[str]):
    """``argv`` for the cheap server's program, asked as memprobe asks (its std streams: /dev/null)."""
    from memprobe.orchestrate.forkserver import server_env

    null = os.open(os.devnull, os.O_RDWR)
    try:
        return server.spawn(argv, server_env(dict(os.environ)), sys.executable, null, null, null)
    finally:
        os.close(null)


def _raw(server, data: bytes, fds: tuple = (0, 1, 2)):
    import socket

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(server.path)
    if data:
        socket.send_fds(conn, [data], list(fds))
    return conn


def _answer(conn) -> dict:
    conn.settimeout(120)  # a hang guard only
    return json.loads(conn.makefile("rb").readline() or b"{}")


@needs_pidfd
@needs_root
@pytest.mark.parametrize("how", ["their-directory", "their-process"])
def test_a_fork_server_of_another_uid_is_sent_nothing(tmp_path, how):
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="memprobe-test-"))  # in /tmp, which the other uid can enter
    try:
        base.chmod(0o1777)  # as /tmp is
        sock_dir = base / "memprobe-forkserver-x"
        if how == "their-process":
            sock_dir.mkdir(mode=0o700)
        (tmp_path / "others.py").write_text(OTHERS_SERVER)
        record = base / "received"
        other = subprocess.Popen(
            [sys.executable, tmp_path / "others.py", sock_dir / "socket", record, how], stdout=subprocess.PIPE, text=True
        )
        try:
            assert other.stdout.readline().strip() == "ready"
            env = {"MEMPROBE_FORKSERVER": str(sock_dir / "socket"), "CI_SECRET_TOKEN": "s3cr3t"}
            args = ("diff", "bf16", "bf16", *TINY, "--no-compile", "--out", tmp_path / "d", "-q")
            err = _one_line(run_cli(*args, env=env, fresh=True, timeout=300))  # a hang guard only
            want = f"belongs to uid {NOBODY}" if how == "their-directory" else f"is a process of uid {NOBODY}"
            assert want in err and "MEMPROBE_FORKSERVER=off" in err, err
            assert not record.exists() or record.read_text() == "0"  # not one byte: no environment, no descriptors
        finally:
            other.kill()
            other.wait()
        os.kill(1, 0)  # init, whose pid the other server named, was never waited on or signalled (it is there)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@needs_pidfd
@needs_root
def test_the_fork_server_reads_nothing_from_another_uid(tmp_path):
    server = _cheap_server(tmp_path)
    try:
        directory = Path(server.path).parent
        directory.chmod(0o755)  # as if someone opened it up: the peer check still stands
        Path(server.path).chmod(0o777)
        Path(tmp_path).chmod(0o755)
        marker = tmp_path / "ran-for-nobody"
        probe = (
            "import json, os, socket, sys\n"
            "os.setgid(65534); os.setuid(65534)\n"
            "c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(sys.argv[1])\n"
            "req = {'program': 'probe', 'argv': [sys.argv[2]], 'env': {}, 'cwd': '/', 'python': sys.executable,"
            " 'prefix': sys.prefix}\n"
            "try:\n"
            "    socket.send_fds(c, [json.dumps(req).encode() + b'\\n'], [0, 1, 2])\n"
            "    c.settimeout(60)\n"
            "    print(repr(c.recv(4096)))\n"
            "except (BrokenPipeError, ConnectionResetError):\n"
            "    print(repr(b''))\n"
        )
        proc = subprocess.run([sys.executable, "-c", probe, server.path, marker], capture_output=True, text=True, timeout=120)
        assert proc.stdout.strip() == "b''", (proc.stdout, proc.stderr)  # closed unread: no answer at all
        assert not marker.exists()
        directory.chmod(0o700)  # (memprobe itself would not ask a server there)
        mine = tmp_path / "ran-for-me"
        forked = _request(server, [str(mine)])  # its own user is served as before
        assert not isinstance(forked, str) and forked.wait(timeout=120) == 0 and mine.exists()
    finally:
        server.close()


@needs_pidfd
def test_the_fork_server_refuses_a_directory_others_may_enter(tmp_path):
    script = tmp_path / "cheap_server.py"
    script.write_text(CHEAP_SERVER)
    (tmp_path / "open").mkdir(mode=0o755)
    (tmp_path / "open").chmod(0o755)
    proc = subprocess.run([sys.executable, script, "10", tmp_path / "open" / "socket"], capture_output=True, text=True)
    assert proc.returncode == 2 and "has mode 755: others may enter it" in proc.stderr and "refusing to serve" in proc.stderr
    assert not (tmp_path / "open" / "socket").exists()


LIAR = """
import json, os, socket, sys
path, victim, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind(path)
sock.listen(8)
print("ready", flush=True)
while True:
    conn, _ = sock.accept()
    conn.makefile("rb").readline()
    fds = [os.pidfd_open(victim)] if how == "its-pidfd" else []
    socket.send_fds(conn, [json.dumps({"pid": victim}).encode() + b"\\n"], fds)
"""


@needs_pidfd
@pytest.mark.parametrize("how", ["a-pid", "its-pidfd"])
def test_a_process_the_fork_server_did_not_fork_is_never_signalled(tmp_path, how):
    from memprobe.orchestrate.forkserver import ForkServer

    victim = subprocess.Popen(["sleep", "600"])  # a process of this user's that no fork server started
    sock_dir = tmp_path / "srv"
    sock_dir.mkdir(mode=0o700)
    (tmp_path / "liar.py").write_text(LIAR)
    liar = subprocess.Popen(
        [sys.executable, tmp_path / "liar.py", sock_dir / "socket", str(victim.pid), how], stdout=subprocess.PIPE
    )
    try:
        assert liar.stdout.readline().strip() == b"ready"
        answer = _request(ForkServer(str(sock_dir / "socket")), ["x"])
        assert answer == "the fork server gave no process of its own", answer  # nothing to signal or wait for
        assert victim.poll() is None
    finally:
        for p in (liar, victim):
            p.kill()
            p.wait()


@needs_pidfd
def test_no_request_ends_or_stalls_the_fork_server(tmp_path):
    server = _cheap_server(tmp_path, deadline=2.0)
    try:
        # 400 KB of nested brackets used to end the server (RecursionError), its socket removed
        deep = _raw(server, b"[" * 400_000 + b"\n")
        assert "nested too deep" in _answer(deep)["refused"]
        silent = _raw(server, b"")  # a client that sends nothing
        trickle = _raw(server, b"{", ())  # and one that sends a byte now and then
        first = tmp_path / "first"
        forked = _request(server, [str(first)])  # answered while both are still connected and unanswered
        assert not isinstance(forked, str) and forked.wait(timeout=120) == 0 and first.exists()
        for conn in (silent, trickle):
            conn.setblocking(False)
            with pytest.raises(BlockingIOError):  # not answered yet: they held no one up
                conn.recv(1)
            conn.setblocking(True)
        trickle.settimeout(0.2)
        refused = b""
        while not refused:  # a byte at a time keeps nothing open past the deadline
            try:
                trickle.send(b" ")
                refused = trickle.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                break
        assert b"no whole request within 2 s" in refused, refused
        assert "no whole request within 2 s" in _answer(silent)["refused"]
        assert Path(server.path).exists() and server.proc.poll() is None  # still serving
        second = tmp_path / "second"
        assert _request(server, [str(second)]).wait(timeout=120) == 0 and second.exists()
    finally:
        server.close()


@needs_pidfd
def test_a_server_directory_a_killed_verb_left_is_cleaned(tmp_path, request):
    from memprobe.orchestrate.forkserver import clean_stale_dirs

    script = tmp_path / "cheap_server.py"
    script.write_text(CHEAP_SERVER)
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="mp-", dir="/tmp"))  # short: a socket's path holds at most 107 bytes
    request.addfinalizer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    verb = (  # a verb with a server of its own, killed with SIGKILL: its server ends (its stdin closes), the directory stays
        "import os, sys\n"
        "from memprobe.orchestrate.forkserver import start_server\n"
        "s = start_server(server=[sys.executable, sys.argv[1], '10'])\n"
        "print(s.workdir, flush=True)\n"
        "sys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", verb, script],
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    workdir = Path(proc.stdout.readline().strip())
    assert workdir.parent == tmp and workdir.is_dir() and clean_stale_dirs(str(tmp)) == []  # alive: kept
    proc.kill()
    proc.wait()
    removed: list[str] = []
    for _ in range(6000):  # until its server has noticed and ended (a hang guard: 10 min)
        removed = clean_stale_dirs(str(tmp))
        if removed:
            break
        time.sleep(0.1)
    assert removed == [str(workdir)] and not workdir.exists()
    # an older memprobe's directory (no lock file) once older than a server's start may take; never another user's
    old = tmp / "memprobe-forkserver-old"
    old.mkdir(mode=0o700)
    young = tmp / "memprobe-forkserver-young"
    young.mkdir(mode=0o700)
    theirs = tmp / "memprobe-forkserver-theirs"
    theirs.mkdir(mode=0o700)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    if os.geteuid() == 0:
        os.chown(theirs, NOBODY, NOBODY)
    os.utime(theirs, (time.time() - 3600, time.time() - 3600))
    assert clean_stale_dirs(str(tmp)) == [str(old)] and young.is_dir() and theirs.is_dir() == (os.geteuid() == 0)


# -- 3. no small file costs minutes: a per-file budget of events, frames and work ------------------------------------


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

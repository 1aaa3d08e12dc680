"""CPU probes as forks of a process that imported torch once (memprobe.capture.forkserver): a forked probe measures
exactly what a fresh interpreter measures, a probe whose environment torch reads at import gets a fresh interpreter,
a verb's own server ends with the verb, and a server that answers badly or goes away is an error, never a hang. The
server and its clients trust only their own user (another uid's server is sent nothing and never names a process to
signal; another uid's connection is closed unread), and no request ends or stalls the server."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import conftest
import pytest
from conftest import MEMPROBE, TINY, run_cli

from memprobe.analysis.diff import diff_reports
from memprobe.analysis.recorded import load_run
from memprobe.capture.caches import compile_cache_env
from memprobe.capture.forkserver import env_difference
from memprobe.orchestrate.forkserver import SERVER_VAR, fork_probe, start_server
from memprobe.orchestrate.process import ProbeJob, run_jobs
from memprobe.rundir.load import dump

needs_pidfd = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the fork server needs os.pidfd_open (Linux)")


def test_the_suite_names_its_fork_server_or_off():
    """Every session names MEMPROBE_FORKSERVER: its own server, or ``off`` where it has none (``make fast``; a server
    that could not start), or what the user gave pytest. Left unset, a command the tests start would find and fork
    from a developer's own running `memprobe serve` in the same cache directory, and its figures be that server's."""
    assert os.environ.get(SERVER_VAR) is not None


def test_only_what_torch_cannot_have_read_at_import_may_differ():
    ours = {"OMP_NUM_THREADS": "2", "TORCHINDUCTOR_CACHE_DIR": "/a", "PWD": "/x", "HOME": "/root"}
    theirs = {**ours, "CUDA_VISIBLE_DEVICES": "0", "PWD": "/y", "MEMPROBE_COMMAND": "[]", "PYTEST_CURRENT_TEST": "t"}
    assert env_difference(ours, theirs) == []  # read when used, or by no library
    theirs.update(OMP_NUM_THREADS="1", TORCHINDUCTOR_CACHE_DIR="/b", PYTHONPATH="/p")
    theirs.pop("HOME")
    assert env_difference(ours, theirs) == ["HOME", "OMP_NUM_THREADS", "PYTHONPATH", "TORCHINDUCTOR_CACHE_DIR"]


def test_the_server_hashes_the_installed_sources_before_its_probes_fork(monkeypatch):
    """What a server of probes computes before it serves includes the hashes of torch's and Triton's sources that
    Inductor's cache keys use: a fork then looks them up instead of reading those packages' files again."""
    from torch._inductor import codecache
    from torch._inductor.runtime import triton_compat

    from memprobe.capture.forkserver import preload_probes

    for key in (codecache.torch_key, codecache.triton_key):
        key.clear()  # as in a process that has not compiled yet
    preload_probes()  # what the server does before it serves

    def hashed_again(*args, **kwargs):
        raise AssertionError("a source hash was computed again")

    monkeypatch.setattr(codecache, "build_code_hash", hashed_again)  # what torch_key() reads torch's files with
    monkeypatch.setattr(triton_compat, "triton_key", hashed_again)  # what triton_key() reads Triton's files with
    assert codecache.torch_key()
    assert (codecache.triton_key() is not None) == triton_compat.HAS_TRITON  # CI installs Triton ([torchtitan])


@needs_pidfd
def test_a_forked_probe_measures_exactly_what_memprobe_run_does(tmp_path, runs, monkeypatch):
    """A/A: `memprobe run` of the tiny probe in a fresh interpreter (its probe in the CLI's own process), the same
    command forked from the test session's server of commands (how the suite runs its commands: the session's
    `runs`), and the configuration as a probe forked from a fork server (the session's, or this process's own): zero
    difference in every saved value, every measured phase and every category alive at each peak."""
    if os.environ.get(SERVER_VAR) == "off":
        monkeypatch.delenv(SERVER_VAR)
    proc = run_cli("run", *TINY, "--out", tmp_path / "fresh", "--quiet", fresh=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    fresh = load_run(tmp_path / "fresh")
    forked_command = load_run(runs(*TINY).path)
    forked = run_jobs([ProbeJob("forked", fresh.config.probe(), tmp_path / "forked")], progress=lambda msg: None)["forked"]
    assert forked.process.forked_from is not None and fresh.process.forked_from is None
    assert (forked_command.process.forked_from is not None) == (conftest._CLI_SERVER is not None)
    for other in (forked_command, forked):
        assert other.saved_tensors and other.memory.phases
        d = dump(diff_reports(fresh, other))
        assert d["differences"] == 0 and d["totals"]["saved_bytes"]["delta"] == 0
        assert d["phases"]["comparable"] and set(d["phases"]["phases"]) == {"forward", "backward", "optimizer"}
        for figures in d["phases"]["phases"].values():
            assert all(f["delta"] == 0 for f in figures.values()), figures
        for key in ("phases", "at_end"):
            assert all(v["delta"] == 0 for cats in d["alive_at_peak"][key].values() for v in cats.values())


@needs_pidfd
@pytest.mark.e2e
@pytest.mark.slow
def test_a_verb_forks_from_a_server_of_its_own_and_a_setting_read_at_import_gets_a_fresh_interpreter(tmp_path):
    """Without MEMPROBE_FORKSERVER a diff starts its own server: side A is forked from it, and the server ends with
    the verb; side B sets OMP_NUM_THREADS, which torch reads at import, so it runs in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if k not in (SERVER_VAR, "COLUMNS", "LINES")}
    threads = os.environ.get("OMP_NUM_THREADS") or str(os.cpu_count())
    out = tmp_path / "d"
    cmd = ["diff", "bf16", "bf16", *TINY, "--no-compile", "--b-env", f"OMP_NUM_THREADS={threads}", "--out", str(out), "-q"]
    proc = subprocess.run(MEMPROBE.split() + cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    a, b = (json.loads((out / side / "report.json").read_text())["process"] for side in "ab")
    assert a["forked_from"] is not None and b["forked_from"] is None and b["env"] == {"OMP_NUM_THREADS": threads}
    with pytest.raises(ProcessLookupError):  # the verb's own server: it ended with the verb
        os.kill(a["forked_from"], 0)
    assert json.loads((out / "diff.json").read_text())["differences"] == 0


@needs_pidfd
@pytest.mark.e2e
def test_a_bad_request_is_refused_and_a_server_gone_is_a_failed_probe(tmp_path, monkeypatch):
    server = start_server()
    env = {**os.environ, **compile_cache_env(), "PYTHONUNBUFFERED": "1"}  # what a verb gives its probes
    assert server is not None
    try:
        for data, fds in ((b"run this\n", []), (b"[]\n", [0, 1, 2])):  # no descriptors, not JSON; not an object
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(server.path)
                socket.send_fds(conn, [data], fds)
                assert "refused" in json.loads(conn.makefile("rb").readline())
        # a program memprobe's server does not run (the test suite's server runs its commands too)
        refused = server.spawn(["run"], env, sys.executable, (0, 1, 2), program="memprobe")
        assert refused == "this fork server runs no program 'memprobe' (only probe)", refused
        monkeypatch.setenv(SERVER_VAR, server.path)
        bad = fork_probe(["--no-such-flag"], env, hold=False, verbose=False)
        assert bad is not None and bad.wait(timeout=60) == 2  # the child's usage error, told by the server
        spec = {"config": {"recipe": "bf16", "device": "cpu"}, "out": str(tmp_path / "r"), "hold": True}
        held = fork_probe(["--job", json.dumps(spec)], env, hold=True, verbose=False)
        assert held is not None
        assert held.stderr.readline().strip() == "memprobe: ready"
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        held.stdin.close()  # the held probe's turn never comes: it ends
        assert held.wait(timeout=60) == 3 and "its fork server ended before it did" in held.lost
    finally:
        server.close()
    assert not Path(server.path).exists()


def test_a_refusal_sent_while_the_request_is_still_going_is_heard(tmp_path):
    """A server that refuses and closes before it read the whole request (one that did not arrive in time) breaks
    the client's send: the client reads what the server said before it closed instead of "did not answer"."""
    import threading

    from memprobe.orchestrate.forkserver import ForkServer

    sock_dir = tmp_path / "s"
    sock_dir.mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(sock_dir / "socket"))
    listener.listen()

    def refuse_early():
        conn, _ = listener.accept()
        conn.recv(16)
        conn.sendall(b'{"refused": "a bad request (no whole request within 10 s)"}\n')
        conn.close()

    threading.Thread(target=refuse_early, daemon=True).start()
    try:  # an environment larger than a socket's buffer: the send is still going when the server closes
        said = ForkServer(str(sock_dir / "socket")).spawn(["run"], {"BIG": "x" * 8_000_000}, sys.executable, (0, 1, 2))
    finally:
        listener.close()
    assert said == "a bad request (no whole request within 10 s)"


def test_a_verb_starts_no_server_of_its_own_for_a_cuda_probe(monkeypatch, tmp_path):
    """A verb's own server never forks a CUDA probe: asking for one starts none (on the H200 the wait for its imports
    was a minute of every CUDA diff), and a CPU probe of the same verb still gets one."""
    from memprobe.orchestrate import forkserver

    started = []
    monkeypatch.delenv(forkserver.SERVER_VAR, raising=False)
    monkeypatch.setenv("MEMPROBE_CACHE_DIR", str(tmp_path))  # no memprobe serve there
    monkeypatch.setattr(forkserver, "_OWN", forkserver._Own())
    monkeypatch.setattr(forkserver, "start_server", lambda kind: started.append(kind))
    assert forkserver.server(cuda=True) is None and started == []
    assert forkserver.server(cuda=False) is None and started == ["verb"]


@pytest.mark.e2e  # starts interpreters of its own that import torch
def test_probes_at_once_on_a_gpu_share_the_compile_workers_and_still_fork():
    """Two probes compiling at once on one GPU get their share of Inductor's compile workers through memprobe's own
    variable, applied after the imports: TORCHINDUCTOR_COMPILE_THREADS, read at import, would make the server
    refuse to fork them (it did on the H200)."""
    from memprobe.capture.forkserver import env_difference
    from memprobe.capture.process_info import COMPILE_THREADS_VAR

    assert env_difference({"A": "1"}, {"A": "1", COMPILE_THREADS_VAR: "8"}) == []
    assert env_difference({}, {"TORCHINDUCTOR_COMPILE_THREADS": "8"}) == ["TORCHINDUCTOR_COMPILE_THREADS"]
    # in a process of its own: Inductor's configuration is this process's too (a compile after a change here failed)
    program = (
        "import torch._inductor.config as c; from memprobe.capture.process_info import apply_compile_threads; "
        "before = c.compile_threads; apply_compile_threads(); print(before, c.compile_threads)"
    )
    env = {**os.environ, COMPILE_THREADS_VAR: "3"}
    env.pop("TORCHINDUCTOR_COMPILE_THREADS", None)
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and proc.stdout.split()[-1] == "3", proc.stderr[-2000:]


STUB_DRIVER = r"""
extern "C" {
static int initialised = 0;
int cuInit(unsigned int flags) { initialised = 1; return 0; }
int cuCtxGetCurrent(void **context) { *context = 0; return initialised ? 0 : 3; }  /* 3: NOT_INITIALIZED */
}
"""

ASK_STUB = """
import ctypes, sys, threading
from memprobe.capture.forkserver import cuda_state
print(cuda_state()["cuda_driver_loaded"], cuda_state()["cuda_driver_started"])
driver = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
print(cuda_state()["cuda_driver_loaded"], cuda_state()["cuda_driver_started"])
named = threading.Event()
def nvml_like():  # NVML's threads, which torch's fork-safe availability check starts, are named cuda... too
    ctypes.CDLL(None).prctl(15, b"cuda-EvtHandlr", 0, 0, 0)  # PR_SET_NAME: this thread's comm
    named.set()
    threading.Event().wait(30)
threading.Thread(target=nvml_like, daemon=True).start()
named.wait(30)
print(cuda_state()["cuda_driver_loaded"], cuda_state()["cuda_driver_started"])
driver.cuInit(0)
print(cuda_state()["cuda_driver_loaded"], cuda_state()["cuda_driver_started"])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the mapped libraries are read from /proc")
def test_a_started_cuda_driver_is_told_by_the_driver_not_by_its_library_or_threads(tmp_path):
    """A server forks CUDA probes until cuInit ran in it: the driver library mapped (torch 2.11's CUDA build maps it at
    import) and threads named ``cuda...`` (NVML's: torch 2.11's Inductor asks NVML at import when the server sets
    PYTORCH_NVML_BASED_CUDA_CHECK; on the H200 a fork of that process used CUDA) are not; cuInit is, asked of the
    driver itself (cuCtxGetCurrent). A stub libcuda.so stands in for the driver on a machine without one."""
    source, library = tmp_path / "stub.cpp", tmp_path / "libcuda.so.1"
    source.write_text(STUB_DRIVER)
    subprocess.run(["g++", "-shared", "-fPIC", "-o", library, source], check=True)
    proc = subprocess.run([sys.executable, "-c", ASK_STUB, library], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # (loaded, started): none; the library mapped; a thread named cuda...; then cuInit
    assert proc.stdout.split("\n")[:4] == ["False False", "True False", "True False", "True True"]


@pytest.mark.parametrize("users", [None, "0"], ids=["unset", "set-by-the-user"])
def test_a_servers_imports_on_a_gpu_machine_ask_nvml_and_leave_its_environment_as_it_was(monkeypatch, users):
    """torch 2.11's Inductor asks ``torch.cuda.is_available()`` at import, whose default answer runs cuInit: on a GPU
    machine the server imports with torch's fork-safe check (NVML) and puts the variable back after, so its forks and
    the requests it compares environments with see the environment it started with."""
    from memprobe.capture import child, forkserver

    name, seen = "PYTORCH_NVML_BASED_CUDA_CHECK", []
    if users is None:
        monkeypatch.delenv(name, raising=False)
    else:
        monkeypatch.setenv(name, users)
    monkeypatch.setattr(forkserver.glob, "glob", lambda pattern: ["/dev/nvidia0"] if "nvidia" in pattern else [])
    monkeypatch.setattr(child, "import_what_probes_use", lambda: seen.append(os.environ.get(name)))
    monkeypatch.setattr(child, "ask_the_cpu_toolchain", lambda: seen.append("asked the CPU toolchain"))
    monkeypatch.setattr(child, "ask_the_source_hashes", lambda: seen.append(os.environ.get(name)))
    forkserver.preload_probes()
    assert seen == ["1", "1"] and os.environ.get(name) == users


def test_the_server_is_started_by_memprobe_only():
    proc = subprocess.run([sys.executable, "-m", "memprobe.capture.forkserver"], capture_output=True, text=True)
    assert proc.returncode == 2 and "started by memprobe" in proc.stderr


# -- the fork server trusts only its own user, and no client holds up the others ---------------------------------------


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


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
        return server.spawn(argv, server_env(dict(os.environ)), sys.executable, (null, null, null))
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
@pytest.mark.parametrize("how", ["their-directory", "their-process", "their-serve"])
def test_a_fork_server_of_another_uid_is_sent_nothing(tmp_path, how):
    """their-serve: another uid's process listens where this user's `memprobe serve` would (under memprobe's cache
    directory), and the verb finds it there unasked."""
    import tempfile

    from memprobe.orchestrate.forkserver import serve_socket

    base = Path(tempfile.mkdtemp(prefix="memprobe-test-"))  # in /tmp, which the other uid can enter
    try:
        base.chmod(0o1777)  # as /tmp is
        sock_dir = base / "memprobe-forkserver-x"
        if how == "their-serve":
            sock_dir = serve_socket({"MEMPROBE_CACHE_DIR": str(base / "cache")}).parent
            sock_dir.parent.mkdir()
        if how != "their-directory":
            sock_dir.mkdir(mode=0o700)
        (tmp_path / "others.py").write_text(OTHERS_SERVER)
        record = base / "received"
        other = subprocess.Popen(
            [sys.executable, tmp_path / "others.py", sock_dir / "socket", record, how.replace("serve", "process")],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert other.stdout.readline().strip() == "ready"
            env = {"MEMPROBE_FORKSERVER": str(sock_dir / "socket"), "CI_SECRET_TOKEN": "s3cr3t"}
            if how == "their-serve":
                env.update(MEMPROBE_FORKSERVER="", MEMPROBE_CACHE_DIR=str(base / "cache"))
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


# -- memprobe serve: the user's resident server --------------------------------------------------------------------------


def _serve_env(tmp: Path) -> dict[str, str]:
    """A verb's environment that finds this test's ``memprobe serve`` (its cache directory) and no other server."""
    return {"MEMPROBE_CACHE_DIR": str(tmp / "cache"), SERVER_VAR: ""}


def _short_tmp(request) -> Path:
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="mp-", dir="/tmp"))  # short: a socket's path holds at most 107 bytes
    request.addfinalizer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    return tmp


@needs_pidfd
@pytest.mark.e2e
def test_a_probe_forked_from_memprobe_serve_measures_exactly_what_a_fresh_interpreter_does(tmp_path, request):
    """A/A, for a bf16 and a rowwise probe: `memprobe run` in a fresh interpreter, and the same `memprobe run` while
    `memprobe serve` runs (the CLI finds it under memprobe's cache directory and forks its probe from it: torch,
    Dynamo, Inductor and torchao imported there, bf16 probes included): zero difference in every saved value, every
    measured phase and every category alive at each peak; the run's header names the server. `--status` says it
    never initialised CUDA; `--stop` ends it."""
    tmp = _short_tmp(request)
    env = _serve_env(tmp)
    started = run_cli("serve", "--idle-exit", "600", env=env, fresh=True)
    assert started.returncode == 0 and "memprobe serve started: pid" in started.stdout, started.stderr[-2000:]
    recipes, said = ("bf16", "rowwise"), []
    try:
        for recipe in recipes:
            args = ("run", "--recipe", recipe, *TINY)
            fresh = run_cli(*args, "--out", tmp_path / recipe / "fresh", "-q", env={**env, SERVER_VAR: "off"}, fresh=True)
            assert fresh.returncode == 0, fresh.stderr[-2000:]
            forked = run_cli(*args, "--out", tmp_path / recipe / "forked", env=env, fresh=True)
            assert forked.returncode == 0, forked.stderr[-2000:]
            said.append(forked.stdout)
        status = json.loads(run_cli("serve", "--status", env=env, fresh=True).stdout)
    finally:
        stopped = run_cli("serve", "--stop", env=env, fresh=True)
    for stdout in said:  # each run's header names the server
        assert f"probe forked from memprobe serve (pid {status['pid']})" in stdout, stdout[:2000]
    assert status["kind"] == "serve" and status["probes_forked"] == len(recipes) and status["probes_running"] == 0
    assert status["cuda_initialized"] is False and status["cuda_driver_started"] is False
    for recipe in recipes:
        a, b = load_run(tmp_path / recipe / "fresh"), load_run(tmp_path / recipe / "forked")
        assert a.process.forked_from is None
        assert (b.process.forked_from, b.process.fork_server) == (status["pid"], "memprobe serve")
        d = dump(diff_reports(a, b))
        assert a.saved_tensors and d["differences"] == 0 and d["totals"]["saved_bytes"]["delta"] == 0, recipe
        assert d["phases"]["comparable"] and set(d["phases"]["phases"]) == {"forward", "backward", "optimizer"}
        for figures in d["phases"]["phases"].values():
            assert all(f["delta"] == 0 for f in figures.values()), (recipe, figures)
        for key in ("phases", "at_end"):
            assert all(v["delta"] == 0 for cats in d["alive_at_peak"][key].values() for v in cats.values()), recipe
    # --stop: the server's socket is gone, and the server with it
    assert stopped.returncode == 0 and stopped.stdout.strip() == f"memprobe serve stopped: pid {status['pid']}"
    assert json.loads(run_cli("serve", "--status", env=env, fresh=True).stdout) is None
    for _ in range(6000):  # a hang guard only
        try:
            os.kill(status["pid"], 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("memprobe serve did not end")


@needs_pidfd
@pytest.mark.e2e
def test_the_first_command_starts_memprobe_serve_and_the_next_forks_from_it(tmp_path, request):
    """Served by default: with no server running, the first memprobe command (here under MEMPROBE_FORKSERVER=serve, as
    a command typed in a terminal is) starts this user's `memprobe serve` and says so in one line; its probe and the
    next command's (a diff: both sides) fork from that server, which outlives the first command; nothing is started
    again. Then `memprobe serve --stop` ends it."""
    tmp = _short_tmp(request)
    env = {**_serve_env(tmp), SERVER_VAR: "serve"}
    args = ("--recipe", "bf16", *TINY, "--no-compile")
    try:
        first = run_cli("run", *args, "--out", tmp_path / "r", "-q", env=env, fresh=True)
        assert first.returncode == 0, first.stderr[-2000:]
        second = run_cli("diff", "bf16", "bf16", *args[2:], "--out", tmp_path / "d", "-q", env=env, fresh=True)
        assert second.returncode == 0, second.stderr[-2000:]
        status = json.loads(run_cli("serve", "--status", env=env, fresh=True).stdout)
    finally:
        run_cli("serve", "--stop", env=env, fresh=True)
    started = [line for line in first.stderr.splitlines() if "memprobe serve" in line]
    assert started == [
        f"memprobe: started memprobe serve (pid {status['pid']}) for your later commands: they fork their probes from "
        "it, torch imported once; it ends after 15 min idle or with `memprobe serve --stop` (MEMPROBE_FORKSERVER=off "
        "starts none)"
    ], first.stderr[-2000:]
    assert "memprobe serve" not in second.stderr
    assert status["idle_exit_s"] == 900 and status["probes_forked"] == 3
    forked = [load_run(p).process for p in (tmp_path / "r", tmp_path / "d" / "a", tmp_path / "d" / "b")]
    assert {(p.forked_from, p.fork_server) for p in forked} == {(status["pid"], "memprobe serve")}
    assert json.loads((tmp_path / "d" / "diff.json").read_text())["differences"] == 0


@pytest.mark.parametrize(
    "setting, terminal, kind, serves",
    [
        (None, True, "verb", True),
        (None, False, "verb", False),
        ("serve", False, "verb", True),
        ("off", True, "verb", False),
        ("/some/socket", True, "verb", False),
        (None, True, "mcp", False),
    ],
    ids=["a-terminal", "pipes-only", "asked-for", "off", "a-named-server", "the-mcp-server"],
)
def test_memprobe_serve_is_started_by_default_in_a_terminal_or_when_asked(monkeypatch, setting, terminal, kind, serves):
    """A verb starts `memprobe serve` when its output reaches a terminal (a user's shell) or MEMPROBE_FORKSERVER=serve
    asks for it; never under `off` or a named server, in the MCP server (a resident server of its own), or where its
    output goes only to pipes and files (CI, a test, a script: nothing outlives them)."""
    from memprobe.orchestrate import forkserver, resident

    class Stream:
        def isatty(self):
            return terminal

    if setting is None:
        monkeypatch.delenv(SERVER_VAR, raising=False)
    else:
        monkeypatch.setenv(SERVER_VAR, setting)
    monkeypatch.setattr(forkserver, "_OWN", forkserver._Own(kind=kind))
    monkeypatch.setattr(sys, "stderr", Stream())
    monkeypatch.setattr(sys, "stdout", Stream())
    assert resident.serves_by_default() is serves


def test_a_cuda_probe_leaves_the_server_it_starts_to_the_next_command(monkeypatch, tmp_path, capsys):
    """Served by default, a verb's CUDA probe does not wait for the server's imports (it starts as a fresh interpreter,
    its imports hidden behind the probe before it): the server is started in the background, once, and said; a CPU
    probe of a verb that started none waits for it and forks from it."""
    from memprobe.orchestrate import forkserver, resident

    launched, waited = [], []
    monkeypatch.setenv(SERVER_VAR, "serve")
    monkeypatch.setenv("MEMPROBE_CACHE_DIR", str(tmp_path))  # no memprobe serve there
    monkeypatch.setattr(forkserver, "_OWN", forkserver._Own())
    monkeypatch.setattr(resident, "launch", lambda idle: launched.append(idle) or 4242)
    monkeypatch.setattr(resident, "start", lambda idle: waited.append(idle) or ({"pid": 4343}, True))
    assert resident.serve_by_default(wait=False) is None and resident.serve_by_default(wait=False) is None
    assert launched == [900.0] and waited == []
    assert capsys.readouterr().err.count("memprobe: started memprobe serve (pid 4242)") == 1
    monkeypatch.setattr(forkserver, "_OWN", forkserver._Own())
    assert resident.serve_by_default(wait=True) is None and waited == [900.0]  # (the stand-in started none to fork from)
    assert "memprobe: started memprobe serve (pid 4343)" in capsys.readouterr().err


# memprobe's resident server without torch: its one program writes the file its argv names; its watched installation is
# the file argv[3] names (a change to it is an installation changed)
CHEAP_RESIDENT = """
import os, sys, time
import memprobe.capture.forkserver as fs

fs.STAMP_EVERY_S = 600.0  # the request that comes first finds the change
fs.watched_files = lambda: [sys.argv[3]]


class Program:
    __file__ = __file__

    @staticmethod
    def main(argv):
        open(argv[0], "w").close()
        while len(argv) > 1 and not os.path.exists(argv[1]):  # a probe that runs until the test lets it end: no clock
            time.sleep(0.05)
        return 0


sys.exit(fs.serve(sys.argv[2], preload=lambda: None, programs={"probe": Program}, resident=fs.Resident("serve", float(sys.argv[1]))))
"""


def _cheap_resident(tmp: Path, idle: float) -> tuple[subprocess.Popen, Path, Path]:
    """A resident server as ``memprobe serve`` starts one (its directory under the cache directory, no lifeline)."""
    from memprobe.orchestrate.forkserver import serve_socket, server_env

    script, watched = tmp / "cheap_resident.py", tmp / "installed"
    script.write_text(CHEAP_RESIDENT)
    watched.write_text("1")
    path = serve_socket({"MEMPROBE_CACHE_DIR": str(tmp / "cache")})
    path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, script, str(idle), path, watched],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        env=server_env(dict(os.environ)),
    )
    assert proc.stdout.readline().startswith("memprobe: ready")
    return proc, path, watched


@needs_pidfd
def test_memprobe_serve_ends_when_idle_when_its_installation_changes_and_when_asked(tmp_path, request, monkeypatch):
    """A resident server ends by itself after its idle time with no probe and no request, and when its installation
    changed (the request that finds it is refused, a verb then starts a fresh interpreter); --stop ends it. Each time
    its socket goes first (no verb finds it), and the process ends. It forks CPU probes, and CUDA probes where nothing in
    it started the CUDA driver; a verb's own server forks no CUDA probe."""
    from memprobe.orchestrate.forkserver import ForkServer, running_server, server_env

    tmp = _short_tmp(request)
    monkeypatch.setenv("MEMPROBE_CACHE_DIR", str(tmp / "cache"))
    monkeypatch.delenv(SERVER_VAR, raising=False)

    def ended(proc) -> None:
        assert proc.wait(timeout=120) == 0  # a hang guard only
        assert running_server() is None

    proc, path, watched = _cheap_resident(tmp, idle=0.5)  # idle: it ends
    ended(proc)
    proc, path, watched = _cheap_resident(tmp, idle=600)
    found = running_server()
    assert found is not None and found.forks_cuda and found.ask("status")["status"]["kind"] == "serve"
    for cuda in (False, True):
        mark = tmp / f"ran-{cuda}"
        forked = found.spawn([str(mark)], server_env(dict(os.environ)), sys.executable, (0, 1, 2), cuda=cuda)
        assert not isinstance(forked, str) and forked.wait(timeout=120) == 0 and mark.exists(), forked
    watched.write_text("2")  # installed again
    refused = found.spawn([str(tmp / "never")], server_env(dict(os.environ)), sys.executable, (0, 1, 2))
    assert isinstance(refused, str) and not (tmp / "never").exists(), refused  # refused (or closed): never forked
    ended(proc)
    proc, path, watched = _cheap_resident(tmp, idle=600)
    assert running_server().ask("stop")["stopping"] == proc.pid
    ended(proc)
    verb = _cheap_server(tmp_path)  # a verb's own: CPU probes only
    try:
        assert not ForkServer(verb.path).forks_cuda  # a verb never asks it for a CUDA probe; asked, it refuses
        refused = ForkServer(verb.path).spawn(
            [str(tmp / "never")], server_env(dict(os.environ)), sys.executable, (0, 1, 2), cuda=True
        )
        assert isinstance(refused, str) and not (tmp / "never").exists(), refused
    finally:
        verb.close()


@needs_pidfd
def test_serve_stop_returns_once_the_next_server_may_start(request, monkeypatch):
    """`memprobe serve --stop; memprobe serve` was refused ("another server holds" the directory): the stopping server
    held its directory's lock until its last probe ended. It lets it go when it stops listening, and --stop returns
    once it has: the next server takes the directory at once, while the stopping one still waits for its probe."""
    from memprobe.orchestrate import resident
    from memprobe.orchestrate.forkserver import running_server, server_env

    tmp = _short_tmp(request)
    monkeypatch.setenv("MEMPROBE_CACHE_DIR", str(tmp / "cache"))
    monkeypatch.delenv(SERVER_VAR, raising=False)
    old, _, _ = _cheap_resident(tmp, idle=600)
    request.addfinalizer(lambda: old.poll() is None and old.kill())  # ended by the test, or on its failure
    go = tmp / "go"
    probe = running_server().spawn([str(tmp / "ran"), str(go)], server_env(dict(os.environ)), sys.executable, (0, 1, 2))
    assert not isinstance(probe, str), probe
    try:
        assert resident.stop()["stopping"] == old.pid
        assert old.poll() is None  # waiting for its probe
        new, _, _ = _cheap_resident(tmp, idle=600)  # it says it is ready: it took the directory
        request.addfinalizer(lambda: new.poll() is None and new.kill())
        assert resident.status()["pid"] == new.pid and resident.stop()["stopping"] == new.pid
    finally:
        go.touch()
    assert probe.wait(timeout=120) == 0 and old.wait(timeout=120) == 0 and new.wait(timeout=120) == 0  # hang guards


@needs_pidfd
def test_serve_status_says_a_stopped_or_busy_server_is_so(request, monkeypatch):
    """`serve --status` printed null for a live server that answered nothing: one stopped (SIGSTOP), or one whose 64
    places for connections waiting were taken. It says which, within a bounded wait; and a probe no longer waits 60 s
    on a stopped server before it gets a fresh interpreter."""
    from memprobe.orchestrate import resident
    from memprobe.orchestrate.forkserver import running_server, server_env

    tmp = _short_tmp(request)
    monkeypatch.setenv("MEMPROBE_CACHE_DIR", str(tmp / "cache"))
    monkeypatch.delenv(SERVER_VAR, raising=False)
    proc, path, _ = _cheap_resident(tmp, idle=600)
    request.addfinalizer(lambda: proc.poll() is None and proc.kill())  # ended by the test, or on its failure
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        said = conftest.invoke("serve", "--status")
        assert said.returncode == 0, said.stderr
        stopped = json.loads(said.stdout)
        assert (stopped["state"], stopped["pid"]) == ("stopped", proc.pid) and "is stopped" in stopped["why"], stopped
        refused = running_server().spawn([str(tmp / "never")], server_env(dict(os.environ)), sys.executable, (0, 1, 2))
        assert isinstance(refused, str) and "is stopped" in refused, refused
        err = conftest.invoke("serve", "--stop")
        assert err.returncode == 2 and f"memprobe serve (pid {proc.pid}) was not stopped: its process" in err.stderr
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    idle = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(64)]
    try:
        for conn in idle:  # each sends nothing: the server holds its place until its request's deadline
            conn.connect(str(path))
        busy = resident.status(wait_s=1.0)
        assert (busy["state"], busy["pid"]) == ("busy", proc.pid), busy
    finally:
        for conn in idle:
            conn.close()
    assert resident.status()["state"] == "serving"
    assert resident.stop()["stopping"] == proc.pid and proc.wait(timeout=120) == 0  # a hang guard only


@needs_pidfd
def test_a_memprobe_serve_directory_others_may_enter_is_refused(tmp_path, request):
    """A `memprobe serve` directory that is not the user's alone (its mode opened, or a socket in it that is not the
    user's) is refused in one line, exit 2, by every verb that would use it, before anything is sent."""
    tmp = _short_tmp(request)
    env = _serve_env(tmp)
    from memprobe.orchestrate.forkserver import serve_socket

    path = serve_socket(env)
    path.parent.mkdir(parents=True, mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    try:
        path.parent.chmod(0o755)
        for args in (("serve", "--status"), ("run", "--recipe", "bf16", *TINY, "--no-compile", "--out", tmp_path / "r")):
            err = _one_line(run_cli(*args, env=env, fresh=True, timeout=300))
            assert "has mode 755: others may enter it" in err and "MEMPROBE_FORKSERVER=off" in err, err
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # no one connected: nothing was sent
        assert not (tmp_path / "r").exists()
    finally:
        listener.close()

"""Start CPU probes as forks of a process that imported torch once (:mod:`memprobe.capture.forkserver`).

Every probe of this process that runs on the CPU in this interpreter asks one fork server for its process:
the server this process started the first time it needed one (it lives as long as this process: a verb, or
the MCP server across its calls), or the one named by ``MEMPROBE_FORKSERVER`` (a socket path: a test
session or a CI job shares one across the memprobe commands it runs; ``off``: every probe starts a fresh
interpreter). The server refuses a probe that needs a fresh interpreter (another Python, or an environment
variable that torch reads at import), and the probe then gets one; so does every probe when no server can
be started. What comes back stands in for a :class:`subprocess.Popen` (:class:`ForkedProcess`).

On CUDA each probe stays a fresh interpreter: a GPU machine has the cores to hide a probe's imports behind
the probe before it (the held child of :mod:`.process`), and a fork is only safe for CUDA while the forking
process never started the driver.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ..capture.caches import compile_cache_env
from ..capture.forkserver import PROBE_PROGRAM, READY_LINE
from ..config import ProbeConfig
from ..vocab import DeviceChoice
from .placement import query_gpus

SERVER_VAR = "MEMPROBE_FORKSERVER"  # a fork server's socket, or "off"
_START_TIMEOUT_S = 300  # for its imports, on a loaded machine


def runs_on_cpu(cfg: ProbeConfig, gpu: str | None) -> bool:
    """Whether a probe surely runs on the CPU: asked for it, or ``auto`` where no GPU is visible."""
    if cfg.device == DeviceChoice.CPU:
        return True
    return cfg.device == DeviceChoice.AUTO and gpu is None and not _gpus_visible()


@functools.cache
def _gpus_visible() -> bool:
    return bool(query_gpus())


class ForkServer:
    """A running fork server: its socket, and its process when this process started it."""

    def __init__(self, path: str, proc: subprocess.Popen | None = None, workdir: str | None = None):
        self.path, self.proc, self.workdir = path, proc, workdir

    def wait_ready(self, timeout: float = _START_TIMEOUT_S) -> bool:
        """Whether the server this process started says it is ready (its imports done) within ``timeout`` seconds;
        if it does not, it is ended and its directory removed."""
        ready: list[bytes] = []
        reader = threading.Thread(target=lambda: ready.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if ready and ready[0].startswith(READY_LINE.encode()):
            return True
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)
        return False

    def spawn(
        self,
        argv: list[str],
        env: dict[str, str],
        python: str,
        stdin: int,
        stdout: int,
        stderr: int,
        cwd=None,
        program: str = PROBE_PROGRAM,
    ):
        """A process of ``program`` (a probe) forked with these file descriptors as its stdin, stdout and stderr (the
        caller closes its copies), in ``cwd`` (default: this process's), or the reason it was refused (a string)."""
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.settimeout(60)
            conn.connect(self.path)
            request = {
                "program": program,
                "argv": argv,
                "env": env,
                "cwd": str(cwd or os.getcwd()),
                "python": python,
                "prefix": sys.prefix,
            }
            data = json.dumps(request).encode() + b"\n"
            socket.send_fds(conn, [data], [stdin, stdout, stderr])
            reader = conn.makefile("rb")
            answer = json.loads(reader.readline() or b"{}")
        except (OSError, ValueError) as e:
            conn.close()
            return f"the fork server at {self.path} did not answer ({type(e).__name__}: {e})"
        if not isinstance(answer.get("pid"), int):
            conn.close()
            return str(answer.get("refused") or "the fork server gave no process")
        conn.settimeout(None)
        return ForkedProcess(answer["pid"], conn, reader)

    def close(self) -> None:
        """End a server this process started (its running children end by themselves)."""
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


def server_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` as a fork server started with it has it: memprobe's compile cache named (unless ``env`` names one) and
    unbuffered output. A request whose environment is this too differs from the server's in nothing."""
    return {**env, **compile_cache_env(env), "PYTHONUNBUFFERED": "1"}


def start_server(env: dict[str, str] | None = None, server: list[str] | None = None, *, wait: bool = True) -> ForkServer | None:
    """A fork server of this interpreter, started now and ready (its imports done), or None when it cannot be.
    ``server``: its command line but the socket (default: memprobe's probe server, ``-m memprobe.capture.forkserver``;
    the test suite's server, tests/cli_forkserver.py, runs its ``memprobe`` commands too). ``wait=False``: returned
    as soon as it is started, before its imports are done (:meth:`ForkServer.wait_ready`)."""
    if not hasattr(os, "pidfd_open"):
        return None
    env = server_env(os.environ if env is None else env)
    workdir = tempfile.mkdtemp(prefix="memprobe-forkserver-")  # mode 0700: only this user can connect
    path = str(Path(workdir) / "socket")
    try:
        proc = subprocess.Popen(
            [*(server or [sys.executable, "-m", "memprobe.capture.forkserver"]), path],
            stdin=subprocess.PIPE,  # its lifeline: it ends when this process does
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        shutil.rmtree(workdir, ignore_errors=True)
        return None
    started = ForkServer(path, proc, workdir)
    return started if not wait or started.wait_ready() else None


def fork_probe(argv: list[str], env: dict[str, str], *, hold: bool, verbose: bool) -> ForkedProcess | None:
    """``python -m memprobe.capture.child ARGV`` with ``env``, as a fork of this process's fork server, its pipes
    as :class:`~.process.ChildProbe` reads them (stdin to release a held probe, stderr for its protocol lines);
    None when it needs a fresh interpreter (said with ``verbose``)."""
    srv = server()
    if srv is None:
        return None
    stdin, stdin_w = os.pipe() if hold else (os.open(os.devnull, os.O_RDONLY), None)
    # the model's own prints never reach our stdout (it may carry --json)
    stdout = os.dup(sys.stderr.fileno()) if verbose else os.open(os.devnull, os.O_WRONLY)
    stderr_r, stderr = os.pipe()
    try:
        proc = srv.spawn(argv, env, sys.executable, stdin, stdout, stderr)
    finally:
        for fd in (stdin, stdout, stderr):
            os.close(fd)
    if isinstance(proc, str):
        for fd in (stderr_r, stdin_w):
            if fd is not None:
                os.close(fd)
        if verbose:
            sys.stderr.write(f"memprobe: this probe starts a fresh interpreter: {proc}\n")
        return None
    proc.stdin = open(stdin_w, "w", buffering=1, errors="replace") if hold else None
    proc.stderr = open(stderr_r, errors="replace")
    return proc


_lock = threading.Lock()
_ours: list[ForkServer | None] = []  # the server this process started, once it tried


def server() -> ForkServer | None:
    """The fork server this process's CPU probes ask first (see the module's docstring), or None."""
    named = os.environ.get(SERVER_VAR, "")
    if named == "off":
        return None
    if named:
        return ForkServer(named)
    with _lock:
        if not _ours:
            _ours.append(start_server())
            if _ours[0] is not None:
                atexit.register(_ours[0].close)
        return _ours[0]


class ForkedProcess:
    """A forked probe's process, as much of :class:`subprocess.Popen` as :mod:`.process` uses: its end is told by
    the server that forked it (this process is not its parent)."""

    def __init__(self, pid: int, conn: socket.socket, reader):
        self.pid = pid
        self.returncode: int | None = None
        self.lost: str | None = None  # why its exit code is unknown: its server ended first
        self.stdin = self.stdout = self.stderr = None  # the caller's ends of its pipes
        self._conn, self._reader = conn, reader
        self._ended = threading.Event()
        threading.Thread(target=self._await_end, name=f"memprobe-forked-{pid}", daemon=True).start()

    def _await_end(self) -> None:
        try:
            answer = json.loads(self._reader.readline() or b"{}")
        except (OSError, ValueError):
            answer = {}
        code = answer.get("exit")
        if not isinstance(code, int):
            self.lost = "its fork server ended before it did: its exit code is unknown"
            while _alive(self.pid):
                self._ended.wait(0.1)
            code = 3  # a failed run (its message says why)
        self.returncode = code
        self._conn.close()
        self._ended.set()

    def poll(self) -> int | None:
        return self.returncode if self._ended.is_set() else None

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(f"forked probe {self.pid}", timeout)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if not self._ended.is_set():
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # there, and another user's
        pass
    return True

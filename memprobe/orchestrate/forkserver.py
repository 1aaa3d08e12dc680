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

Trust: a probe's request carries this process's whole environment and its stdio, so it goes only to a server of this
user's. Before anything is sent, the server's directory must be one only this user can enter (owned by it, mode 700,
no link) and the peer on the socket must be this user's process (``SO_PEERCRED``), or the verb stops in one line
(exit 2): nothing is sent. What this process signals and waits for is the pidfd the server passes with its answer
(a process the kernel names, not a pid the server states), checked to be a child of that server's process (the
kernel's pid of the peer) and of this user; a pid reused meanwhile can never be signalled. Each verb that starts a
server first removes the server directories a killed memprobe left (:func:`clean_stale_dirs`).
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import glob
import json
import os
import re
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .. import settings
from ..capture.caches import compile_cache_env, memprobe_cache_dir
from ..capture.forkserver import (
    LOCK_NAME,
    PROBE_PROGRAM,
    READY_LINE,
    code_stamp,
    hold_lock,
    peer_credentials,
    private_dir_problem,
)
from ..config import ProbeConfig
from ..errors import ConfigError
from ..vocab import DeviceChoice
from .placement import query_gpus
from .procfs import state_of

SERVER_VAR = settings.FORKSERVER.name  # a fork server's socket, or "off"
# CUDA probes fork from a resident server (``memprobe serve``, the MCP server's own), whose imports never start the
# CUDA driver: each forked probe initialises CUDA as a fresh interpreter would. The A/A of forked probes on one GPU
# (scripts/device_time_to_answer.sh) is what allows it; False: every CUDA probe a fresh interpreter, as before.
FORK_CUDA_PROBES = True
SOCKET_PATH_MAX = 107  # bytes of a Unix socket's path (Linux's sun_path, less its NUL)
START_TIMEOUT_S = 300  # for its imports, on a loaded machine
ANSWER_WAIT_S = 60.0  # for a running server's answer (on a loaded machine), unless its process is found stopped
_DIR_PREFIX = "memprobe-forkserver-"
_MAX_ANSWER = 65536  # bytes of one line a server answers


def runs_on_cpu(cfg: ProbeConfig, gpu: str | None) -> bool:
    """Whether a probe surely runs on the CPU: asked for it, or ``auto`` where no GPU is visible."""
    if cfg.device == DeviceChoice.CPU:
        return True
    return cfg.device == DeviceChoice.AUTO and gpu is None and not _gpus_visible()


@functools.cache
def _gpus_visible() -> bool:
    return bool(query_gpus())


class ForkServer:
    """A running fork server: its socket, and its process (and its directory's lock) when this process started it;
    ``kind``: ``verb`` (a verb's own, or the one MEMPROBE_FORKSERVER names: CPU probes), ``mcp`` or ``serve`` (resident:
    CPU and CUDA probes)."""

    def __init__(
        self,
        path: str,
        proc: subprocess.Popen | None = None,
        workdir: str | None = None,
        lock: int | None = None,
        kind: str = "verb",
    ):
        self.path, self.proc, self.workdir, self.lock, self.kind = path, proc, workdir, lock, kind
        self.pid: int | None = None  # its process, as the kernel names the peer of the last connection

    @property
    def forks_cuda(self) -> bool:
        return self.kind != "verb" and FORK_CUDA_PROBES

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> bool:
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
        self._release()
        return False

    def _release(self) -> None:
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None

    def connect(self, timeout: float = ANSWER_WAIT_S) -> tuple[socket.socket, int]:
        """A connection to the server and the kernel's pid of its process (kept as ``pid``), once it is known to be this
        user's own (its directory, then its peer): ConfigError, with nothing sent, otherwise; OSError when it does not
        answer within ``timeout`` seconds (a stopped server's queue of connections full)."""
        check_server_dir(self.path)
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.settimeout(timeout)
            conn.connect(self.path)
            server_pid, uid = peer_credentials(conn)
            self.pid = server_pid
        except BaseException:
            conn.close()
            raise
        if uid != os.geteuid():
            conn.close()
            raise ConfigError(
                f"the fork server at {self.path} is a process of uid {uid}, not of this user (uid {os.geteuid()}): "
                f"memprobe sends a probe's environment to its own user's server only (set {SERVER_VAR}=off)"
            )
        return conn, server_pid

    def ask(self, program: str, wait_s: float = ANSWER_WAIT_S) -> dict:
        """A request about the server itself (its status; a resident one's stop), with /dev/null for its descriptors:
        the server's answer, waited for at most ``wait_s`` seconds (:func:`awaited`). ConfigError as :meth:`connect`;
        OSError, ValueError or EOFError when it gives none."""
        conn, server_pid = self.connect(wait_s)
        null = os.open(os.devnull, os.O_RDWR)
        try:
            request = {"program": program, "argv": [], "env": {}, "cwd": "/", "python": sys.executable, "prefix": sys.prefix}
            socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [null, null, null])
            return awaited(Answers(conn), server_pid, wait_s)
        finally:
            os.close(null)
            conn.close()

    def spawn(
        self,
        argv: list[str],
        env: dict[str, str],
        python: str,
        stdio: tuple[int, int, int],
        cwd=None,
        program: str = PROBE_PROGRAM,
        cuda: bool = False,
    ):
        """A process of ``program`` (a probe) forked with these file descriptors (``stdio``) as its stdin, stdout and
        stderr (the caller closes its copies), in ``cwd`` (default: this process's), or the reason it was refused (a
        string).
        ConfigError, with nothing sent, when the server is not this user's own (its directory, or its peer)."""
        if not os.path.lexists(os.path.dirname(self.path)):
            return f"the fork server at {self.path} is gone"
        try:
            conn, server_pid = self.connect()
        except OSError as e:
            return f"the fork server at {self.path} did not answer ({type(e).__name__}: {e})"
        try:
            request = {
                "program": program,
                "argv": argv,
                "env": env,
                "cwd": str(cwd or os.getcwd()),
                "python": python,
                "prefix": sys.prefix,
                "code": code_stamp() if program == PROBE_PROGRAM else None,
                "cuda": cuda,
            }
            data = json.dumps(request).encode() + b"\n"
            unsent = _send_request(conn, data, list(stdio), self.path)
            if unsent is not None:
                conn.close()
                return unsent
            answers = Answers(conn)
            answer = awaited(answers, server_pid, ANSWER_WAIT_S)
        except (OSError, ValueError, EOFError) as e:
            conn.close()
            return f"the fork server at {self.path} did not answer ({type(e).__name__}: {e})"
        except BaseException:
            conn.close()
            raise
        pid = answer.get("pid")
        pidfd = answers.fds.pop(0) if answers.fds else None
        answers.close_fds()
        if not isinstance(pid, int) or isinstance(pid, bool) or pidfd is None or not child_of(pidfd, pid, server_pid):
            conn.close()
            if pidfd is not None:
                os.close(pidfd)
            refused = answer.get("refused")
            return str(refused)[:500] if refused else "the fork server gave no process of its own"
        conn.settimeout(None)
        return ForkedProcess(pid, conn, answers, pidfd)

    def close(self) -> None:
        """End a server this process started (its running children end by themselves)."""
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._release()


def server_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` as a fork server started with it has it: memprobe's compile cache named (unless ``env`` names one) and
    unbuffered output. A request whose environment is this too differs from the server's in nothing."""
    return {**env, **compile_cache_env(env), "PYTHONUNBUFFERED": "1"}


def start_server(
    env: dict[str, str] | None = None, server: list[str] | None = None, *, wait: bool = True, kind: str = "verb"
) -> ForkServer | None:
    """A fork server of this interpreter, started now and ready (its imports done), or None when it cannot be.
    ``server``: its command line but the socket (default: memprobe's probe server, ``-m memprobe.capture.forkserver``;
    the test suite's server, tests/cli_forkserver.py, runs its ``memprobe`` commands too). ``wait=False``: returned
    as soon as it is started, before its imports are done (:meth:`ForkServer.wait_ready`). ``kind="mcp"``: the MCP
    server's own, resident for its lifetime (it imports torchao too, and forks CUDA probes)."""
    if not hasattr(os, "pidfd_open"):
        return None
    env = server_env(os.environ if env is None else env)
    clean_stale_dirs()
    made = private_workdir()
    if made is None:
        return None
    workdir, lock = made
    path = str(Path(workdir) / "socket")
    try:
        proc = subprocess.Popen(
            [*(server or [sys.executable, "-m", "memprobe.capture.forkserver", "--kind", kind]), path],
            stdin=subprocess.PIPE,  # its lifeline: it ends when this process does
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        ForkServer(path, None, workdir, lock)._release()
        return None
    started = ForkServer(path, proc, workdir, lock, kind=kind)
    return started if not wait or started.wait_ready() else None


def private_workdir() -> tuple[str, int] | None:
    """A new directory for a server's socket, mode 700, checked to be this user's own before use, with a shared lock
    held on its lock file (the file descriptor); None when the temporary directory gives none."""
    for _ in range(3):
        workdir = tempfile.mkdtemp(prefix=_DIR_PREFIX)
        if private_dir_problem(workdir) is not None:  # TMPDIR on a file system that ignores modes, say
            shutil.rmtree(workdir, ignore_errors=True)
            return None
        try:
            lock = hold_lock(workdir, create=True)
        except OSError:  # removed meanwhile by a memprobe that found it before it was locked: make another
            continue
        try:
            if os.path.samestat(os.fstat(lock), os.lstat(os.path.join(workdir, LOCK_NAME))):
                return workdir, lock
        except OSError:
            pass
        os.close(lock)
    return None


def check_server_dir(path: str) -> None:
    """The socket ``path`` of a fork server is in a directory only this user can enter, and is a socket of this
    user's: ConfigError (nothing is sent to it) otherwise."""
    directory = os.path.dirname(os.path.abspath(path))
    problem = private_dir_problem(directory)
    if problem is None:
        try:
            st = os.lstat(path)
        except OSError:
            return  # not there (yet): connecting says so
        if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.geteuid():
            problem = f"holds {os.path.basename(path)}, which is not a socket of this user's"
    if problem is not None:
        raise ConfigError(
            f"the fork server's directory {directory} {problem}: memprobe uses a fork server only in a directory of its "
            f"own user's that no one else can enter (set {SERVER_VAR}=off, or unset it)"
        )


def clean_stale_dirs(tmp: str | None = None) -> list[str]:
    """Remove the fork servers' directories this user's memprobes left behind (a verb killed with SIGKILL cannot
    remove its own): those no live memprobe holds the lock of and whose socket no process listens on (an older
    memprobe's, without a lock file, once older than a server's start may take). Another user's, a link, or one
    others may enter is never touched. Returns the directories removed."""
    removed = []
    listening = _listening_sockets()
    if listening is None:  # not Linux: nothing to tell a live server's directory by
        return removed
    for workdir in glob.glob(os.path.join(tmp or tempfile.gettempdir(), _DIR_PREFIX + "*")):
        if private_dir_problem(workdir) is not None or os.path.join(workdir, "socket") in listening:
            continue
        try:
            lock = os.open(os.path.join(workdir, LOCK_NAME), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:  # an older memprobe's, or one being made this moment
            try:
                old = time.time() - os.lstat(workdir).st_mtime > START_TIMEOUT_S
            except OSError:  # removed meanwhile
                continue
            if old:
                shutil.rmtree(workdir, ignore_errors=True)
                removed.append(workdir)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            shutil.rmtree(workdir, ignore_errors=True)  # while locked: a starter waiting for it then makes another
            removed.append(workdir)
        except OSError:  # held: its memprobe or its server lives
            pass
        finally:
            os.close(lock)
    return removed


def _listening_sockets() -> set[str] | None:
    """The paths of the Unix sockets bound now (Linux's /proc/net/unix), or None where that cannot be read."""
    try:
        with open("/proc/net/unix") as f:
            return {fields[7] for fields in (line.split(None, 7) for line in f.read().splitlines()[1:]) if len(fields) == 8}
    except OSError:
        return None


def _send_request(conn: socket.socket, data: bytes, fds: list[int], path: str) -> str | None:
    """Send a request line, the descriptors with its first bytes and the rest however large the environment (one send
    may take part of it): None once sent; else why not, what the server said before it closed the connection (it
    may refuse before it read it all) or that it did not answer."""
    try:
        sent = socket.send_fds(conn, [data], fds)
        conn.sendall(data[sent:])
    except (BrokenPipeError, ConnectionResetError) as e:
        return _refusal_before_closing(conn) or f"the fork server at {path} did not answer ({type(e).__name__}: {e})"
    return None


def _refusal_before_closing(conn: socket.socket) -> str | None:
    """What a server that closed a connection while the request was still being sent answered before it did (its
    refusal, e.g. a request that did not arrive whole in time), or None."""
    try:
        conn.settimeout(1)
        refused = Answers(conn).next().get("refused")
    except (OSError, ValueError, EOFError):
        return None
    return refused if isinstance(refused, str) else None


class ServerStopped(OSError):
    """The server's process is stopped (SIGSTOP, a debugger): it answers only once continued."""


def awaited(answers: Answers, server_pid: int, wait_s: float) -> dict:
    """The server's next answer on its connection, waited for at most ``wait_s`` seconds, and no longer once its
    process is found stopped (a stopped server added 60 s to every probe, and to ``serve --status``): ServerStopped
    then, TimeoutError when the time is up."""
    deadline = time.monotonic() + wait_s
    while True:
        answers.conn.settimeout(max(0.01, min(1.0, deadline - time.monotonic())))
        try:
            return answers.next()
        except TimeoutError:
            if state_of(server_pid) in ("T", "t"):
                raise ServerStopped(f"its process {server_pid} is stopped (SIGSTOP or a debugger): it answers nothing") from None
            if time.monotonic() >= deadline:
                raise


class Answers:
    """A fork server's answers on one connection: JSON objects, one per line of at most 64 KiB; a file descriptor
    passed along (the first answer's pidfd) is kept in ``fds``."""

    def __init__(self, conn: socket.socket):
        self.conn, self.buffer, self.fds = conn, b"", []

    def next(self) -> dict:
        while b"\n" not in self.buffer:
            if len(self.buffer) > _MAX_ANSWER:
                raise ValueError(f"an answer longer than {_MAX_ANSWER} bytes")
            data, fds, _, _ = socket.recv_fds(self.conn, _MAX_ANSWER, 1)
            self.fds += fds
            if not data:
                raise EOFError("the connection ended")
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        answer = json.loads(line)
        if not isinstance(answer, dict):
            raise ValueError("an answer is a JSON object")
        return answer

    def close_fds(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []


_PID_LINE = re.compile(r"^Pid:\s*(-?\d+)$", re.M)


def child_of(pidfd: int, pid: int, server: int) -> bool:
    """Whether ``pidfd`` is the process ``pid``, a child of the process ``server`` that runs as this user, as the
    kernel says (/proc); or a process that has ended already (a pidfd of it signals nothing)."""

    def pid_of() -> int | None:
        try:
            with open(f"/proc/self/fdinfo/{pidfd}") as f:
                m = _PID_LINE.search(f.read())
        except OSError:
            return None
        return int(m[1]) if m else None  # no Pid line: not a pidfd

    first = pid_of()
    if first == -1:
        return True
    if first != pid:
        return False
    try:
        with open(f"/proc/{pid}/status") as f:
            status = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        parent, uid = int(status["PPid"]), int(status["Uid"].split()[0])
    except (OSError, KeyError, ValueError, IndexError):
        return pid_of() == -1  # ended while it was read
    again = pid_of()  # still the same process: what /proc said was about it (a pid is not reused before it is reaped)
    return again == -1 or (again == pid and parent == server and uid == os.geteuid())


def fork_probe(argv: list[str], env: dict[str, str], *, hold: bool, verbose: bool, cuda: bool = False) -> ForkedProcess | None:
    """``python -m memprobe.capture.child ARGV`` with ``env``, as a fork of this process's fork server, its pipes
    as :class:`~.process.ChildProbe` reads them (stdin to release a held probe, stderr for its protocol lines);
    None when it needs a fresh interpreter (said with ``verbose``). ``cuda``: a probe that may run on CUDA, which only
    a resident server forks (``memprobe serve``, the MCP server's own)."""
    srv = server(cuda=cuda)
    if srv is None:
        return None
    stdin, stdin_w = os.pipe() if hold else (os.open(os.devnull, os.O_RDONLY), None)
    # the model's own prints never reach our stdout (it may carry --json)
    stdout = os.dup(sys.stderr.fileno()) if verbose else os.open(os.devnull, os.O_WRONLY)
    stderr_r, stderr = os.pipe()
    try:
        proc = srv.spawn(argv, env, sys.executable, (stdin, stdout, stderr), cuda=cuda)
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


@dataclass
class _Own:
    """The fork server this process starts for its own probes, once: a verb's (CPU probes), or a resident one in the
    MCP server (:func:`keep_resident`); ``served``: whether this process started this user's ``memprobe serve`` by
    default (:func:`.resident.serve_by_default`)."""

    kind: str = "verb"
    tried: bool = False
    server: ForkServer | None = None
    served: bool = False


_lock = threading.Lock()
_OWN = _Own()


def keep_resident() -> None:
    """This process (the MCP server) lives long: the fork server it starts for itself is resident, of the kind that
    imports torchao too and forks CUDA probes (unless a ``memprobe serve`` runs: that one is used)."""
    _OWN.kind = "mcp"


def server(cuda: bool = False) -> ForkServer | None:
    """The fork server this process's probes ask first (see the module's docstring), or None: the one
    ``MEMPROBE_FORKSERVER`` names (CPU probes), else a running ``memprobe serve`` (:func:`running_server`), else
    this process's own (started the first time; a verb's forks CPU probes only). ``cuda``: for a probe that may run on
    CUDA (None unless the server forks those). A verb starts ``memprobe serve`` by default before it asks
    (:func:`.resident.serve_by_default`)."""
    named = os.environ.get(SERVER_VAR, "")
    if named == "off":
        return None
    if named and named != SERVE_BY_DEFAULT:
        return None if cuda else ForkServer(named)
    found = running_server()
    if found is not None:
        return found if found.forks_cuda or not cuda else None
    if cuda and _OWN.kind == "verb":
        return None  # a verb's own server never forks a CUDA probe: starting one would only delay it by its imports
    with _lock:
        if not _OWN.tried:
            _OWN.tried = True
            _OWN.server = start_server(kind=_OWN.kind)
            if _OWN.server is not None:
                atexit.register(_OWN.server.close)
        own = _OWN.server
    return own if own is None or own.forks_cuda or not cuda else None


SERVE_BY_DEFAULT = "serve"  # MEMPROBE_FORKSERVER's value that starts memprobe serve by default outside a terminal too


def serve_socket(environ=None) -> Path:
    """Where this user's ``memprobe serve`` listens: ``<memprobe's cache directory>/serve-<uid>/socket``."""
    return memprobe_cache_dir(environ) / f"serve-{os.geteuid()}" / "socket"


def running_server(environ=None) -> ForkServer | None:
    """This user's ``memprobe serve``, when one listens at :func:`serve_socket` (None: none does). ConfigError when
    its directory is not one only this user can enter, or its socket is not this user's: nothing is sent to it."""
    path = serve_socket(environ)
    if not os.path.lexists(path):
        return None
    check_server_dir(str(path))
    listening = _listening_sockets()
    if listening is not None and str(path) not in listening:
        return None  # a socket a killed server left: no one answers there
    return ForkServer(str(path), kind="serve")


class ForkedProcess:
    """A forked probe's process, as much of :class:`subprocess.Popen` as :mod:`.process` uses: its end is told by
    the server that forked it (this process is not its parent); it is signalled through its pidfd only."""

    def __init__(self, pid: int, conn: socket.socket, answers: Answers, pidfd: int):
        self.pid = pid
        self.returncode: int | None = None
        self.lost: str | None = None  # why its exit code is unknown: its server ended first
        self.stdin = self.stdout = self.stderr = None  # the caller's ends of its pipes
        self._conn, self._answers, self._pidfd = conn, answers, pidfd
        self._lock = threading.Lock()
        self._ended = threading.Event()
        threading.Thread(target=self._await_end, name=f"memprobe-forked-{pid}", daemon=True).start()

    def _await_end(self) -> None:
        try:
            answer = self._answers.next()
        except (OSError, ValueError, EOFError):
            answer = {}
        self._answers.close_fds()
        code = answer.get("exit")
        if not isinstance(code, int) or isinstance(code, bool):
            self.lost = "its fork server ended before it did: its exit code is unknown"
            select.select([self._pidfd], [], [])  # readable once the process has ended
            code = 3  # a failed run (its message says why)
        self.returncode = code
        self._conn.close()
        with self._lock:
            self._ended.set()
            os.close(self._pidfd)

    def poll(self) -> int | None:
        return self.returncode if self._ended.is_set() else None

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(f"forked probe {self.pid}", timeout)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        with self._lock:
            if not self._ended.is_set():
                try:
                    signal.pidfd_send_signal(self._pidfd, signum)
                except ProcessLookupError:
                    pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

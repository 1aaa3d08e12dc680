"""``memprobe serve``: the user's resident fork server, started, asked and stopped.

A verb's own fork server (:mod:`.forkserver`) pays torch's imports once per verb; the resident server pays them once
for every verb and every MCP call of this user until it ends: a process that imported torch, Dynamo, Inductor and
torchao (:mod:`memprobe.capture.forkserver`, kind ``serve``), listening at ``<memprobe's cache
directory>/serve-<uid>/socket`` (:func:`~.forkserver.serve_socket`), trusted as a verb's own server is (its directory
this user's alone, mode 700; its peer this user's process). Every verb of this user finds it there and forks its
probes from it, on the CPU and on CUDA (the server never starts the CUDA driver; each probe does, as a fresh
interpreter would). It ends when asked (:func:`stop`), after its idle time, or when memprobe's, torch's, torchao's or
Triton's installation changed. Started detached (a session of its own), it outlives the command that started it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from ..capture.forkserver import IDLE_EXIT_S, LOCK_NAME, READY_LINE, STATUS_PROGRAM, STOP_PROGRAM, private_dir_problem
from ..errors import ConfigError, RunFailed
from ..rundir.write import locked
from . import forkserver
from .forkserver import (
    SERVE_BY_DEFAULT,
    SOCKET_PATH_MAX,
    START_TIMEOUT_S,
    ForkServer,
    ServerStopped,
    running_server,
    serve_socket,
    server_env,
)
from .procfs import state_of

LOG_NAME = "log"  # the server's own lines (why it ended), beside its socket
STATUS_WAIT_S = 5.0  # for a running server's answer to --status or --stop (it answers at once unless busy or stopped)


def status(wait_s: float = STATUS_WAIT_S) -> dict | None:
    """The running server's own account (pid, kind, uptime, idle time, probes, whether it touched CUDA; ``state``
    ``serving``), or None when none runs. A server that listens and gives no answer within ``wait_s`` seconds is said
    as such: ``{"pid": N, "state": "stopped" | "busy", "why": ...}`` (stopped: its process is, by SIGSTOP or a debugger;
    busy: it closed the connection or let it wait; both said ``null`` before). ConfigError when its directory or
    process is not this user's."""
    found, answer, why = _ask_running(STATUS_PROGRAM, wait_s)
    if found is None:
        return None
    if answer is not None and isinstance(answer.get("status"), dict):
        return {**answer["status"], "state": "serving"}
    stopped = found.pid is not None and state_of(found.pid) in ("T", "t")
    return {"pid": found.pid, "state": "stopped" if stopped else "busy", "why": why or "it gave no status"}


def _ask_running(program: str, wait_s: float):
    """``(server, its answer to program, why there is none)`` of the running server, asked again until ``wait_s``
    seconds have passed (a server with 64 connections waiting closes another at once); ``(None, None, None)`` when none
    runs. ConfigError when its directory or process is not this user's."""
    found = running_server()
    if found is None:
        return None, None, None
    deadline, why = time.monotonic() + wait_s, None
    while True:
        try:
            return found, found.ask(program, max(0.1, deadline - time.monotonic())), None
        except ServerStopped as e:
            return found, None, str(e)
        except (OSError, ValueError, EOFError) as e:
            why = f"it did not answer within {wait_s:g} s ({type(e).__name__}: {e})"
        if time.monotonic() >= deadline:
            return found, None, why
        time.sleep(0.2)


def start(idle_exit_s: float = IDLE_EXIT_S) -> tuple[dict, bool]:
    """The server's status, and whether this call started it (False: one was running). ConfigError when its
    directory cannot be this user's alone or its path is too long for a socket; RunFailed when it did not start."""
    running = status()
    if running is not None:
        return running, False
    path = _socket_path()
    proc = _spawn(str(path), idle_exit_s)
    if not _ready(proc):
        running = status()  # another memprobe serve started one meanwhile: that one serves
        if running is not None:
            return running, False
        raise RunFailed(f"memprobe serve did not start: {_last_line(path.parent / LOG_NAME)}")
    return status() or {"pid": proc.pid}, True


def launch(idle_exit_s: float) -> int:
    """Start the server and return at once, its imports still running (a verb whose probes start as fresh
    interpreters leaves it to the commands after it): its pid. A second server started meanwhile by another command
    finds the first one's lock and ends; the one that serves says so in its log. ConfigError as :func:`start`."""
    return _spawn(str(_socket_path()), idle_exit_s, ready_to=subprocess.DEVNULL).pid


def _socket_path() -> Path:
    """The server's socket path, its directory made this user's alone (mode 700). ConfigError when it cannot be, or
    when the path is too long for a socket."""
    path = serve_socket()
    if len(os.fsencode(str(path))) > SOCKET_PATH_MAX:
        raise ConfigError(
            f"memprobe serve's socket {path} is longer than a Unix socket's path may be ({SOCKET_PATH_MAX} bytes): set "
            "MEMPROBE_CACHE_DIR to a shorter directory"
        )
    directory = path.parent
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        directory.mkdir(mode=0o700)
    except FileExistsError:
        pass
    problem = private_dir_problem(str(directory))
    if problem is not None:
        raise ConfigError(f"memprobe serve's directory {directory} {problem}: remove it, and memprobe makes it again")
    return path


def _spawn(path: str, idle_exit_s: float, ready_to=subprocess.PIPE) -> subprocess.Popen:
    """The server's process, in a session of its own (no terminal's signals reach it), its stderr in its log, its
    ready line to ``ready_to`` (a pipe :func:`_ready` reads, or nowhere)."""
    log = os.open(os.path.join(os.path.dirname(path), LOG_NAME), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "memprobe.capture.forkserver", "--kind", "serve", "--idle-exit", repr(idle_exit_s), path],
            stdin=subprocess.DEVNULL,
            stdout=ready_to,
            stderr=log,
            env=server_env(os.environ),
            start_new_session=True,
        )
    finally:
        os.close(log)


def _ready(proc: subprocess.Popen) -> bool:
    """Whether the server said it is ready (its imports done) before it ended or the start's time ran out."""
    line: list[bytes] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(START_TIMEOUT_S)
    proc.stdout.close()
    if line and line[0].startswith(READY_LINE.encode()):
        return True
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    return False


def _last_line(path) -> str:
    try:
        lines = [x for x in path.read_text(errors="replace").splitlines() if x.strip()]
    except OSError:
        lines = []
    return lines[-1][:300] if lines else "it said nothing (run it again with --debug)"


def stop(timeout: float = 60.0) -> dict | None:
    """Ask the running server to end: its answer (its pid, the probes still running, which it waits for), once its
    socket is gone and its directory's lock released (``memprobe serve`` may start the next at once; the stopping
    one, done listening, waits for its probes); None when none runs. ConfigError when its directory or process is not
    this user's, or when it gives no answer (stopped, or busy past ``STATUS_WAIT_S``)."""
    found, answer, why = _ask_running(STOP_PROGRAM, STATUS_WAIT_S)
    if found is None:
        return None
    if answer is None:
        raise ConfigError(f"memprobe serve (pid {found.pid}) was not stopped: {why}; `memprobe serve --status` says more")
    deadline = time.monotonic() + timeout
    while (os.path.lexists(found.path) or locked(Path(found.path).parent / LOCK_NAME)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return answer


AUTO_IDLE_EXIT_S = 900.0  # a memprobe serve a verb started by default ends after this long idle


def serves_by_default() -> bool:
    """Whether a verb starts this user's ``memprobe serve`` when none runs: a command typed in a terminal (its stderr
    or stdout one), or any command under ``MEMPROBE_FORKSERVER=serve``; never a verb of the MCP server (it has its
    own), nor one whose output goes only to pipes and files (a CI job, a test, a script: no server outlives them)."""
    named = os.environ.get(forkserver.SERVER_VAR, "")
    if named == SERVE_BY_DEFAULT:
        return True
    if named or forkserver._OWN.kind != "verb":
        return False
    return any(_is_terminal(stream) for stream in (sys.stderr, sys.stdout))


def _is_terminal(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def serve_by_default(*, wait: bool) -> ForkServer | None:
    """This user's ``memprobe serve``, started by this verb once when none runs and :func:`serves_by_default`: the
    second memprobe command forks its probes from it, torch imported there already. ``wait``: until its imports are
    done, then the server (for CPU probes, which would otherwise wait for a server of the verb's own); else started in
    the background for the commands after this one, and None (a CUDA probe starts as a fresh interpreter, its imports
    hidden behind the probe before it). Said in one line on stderr; None when it cannot start (the verb goes on as
    without it)."""
    with forkserver._lock:
        if forkserver._OWN.served or not serves_by_default():
            return None
        forkserver._OWN.served = True
    try:
        if running_server() is not None:  # one serves already (the forks ask it themselves): none started again
            return None
        if wait:
            status, started = start(AUTO_IDLE_EXIT_S)
            pid, found = status.get("pid"), running_server()
        else:
            pid, found, started = launch(AUTO_IDLE_EXIT_S), None, True
    except (ConfigError, RunFailed, OSError) as e:
        sys.stderr.write(f"memprobe: memprobe serve was not started ({e}); this command goes on without it\n")
        return None
    if started:  # (else another command started it a moment before)
        sys.stderr.write(
            f"memprobe: started memprobe serve (pid {pid}) for your later commands: they fork their probes from it, "
            f"torch imported once; it ends after {AUTO_IDLE_EXIT_S / 60:g} min idle or with `memprobe serve --stop` "
            "(MEMPROBE_FORKSERVER=off starts none)\n"
        )
    return found

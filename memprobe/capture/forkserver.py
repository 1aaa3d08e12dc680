"""A fork server for probe processes: torch imported once, each probe a fresh fork of that process.

A probe's process spends 3 to 5 CPU-seconds importing torch, Dynamo, Inductor and FSDP before it builds
anything, 1.3 more when its first CPU kernel asks which vector instructions the C++ toolchain can use, and 0.7
more when its first cache lookup hashes torch's and Triton's installed sources; a verb that runs many probes
(``bisect``, ``sweep``, ``explain``, ``diff``), or a session that runs many verbs (the MCP server, a test suite),
pays it for every probe. This process pays it once (:func:`preload_probes`) and then forks one child per
probe: the child is a process of its own (its allocator, Dynamo's caches, its compiled code and its figures are
its own, as for a fresh interpreter), because nothing of a probe's was compiled, allocated, seeded or initialised
on a device here before the fork: this process only imports, asks the toolchain, hashes sources, and serves. It stays
single-threaded (the threads a library starts at import are fork-safe: OpenBLAS's).

Started by :mod:`memprobe.orchestrate.forkserver` as ``python -m memprobe.capture.forkserver SOCKET``
(a Unix socket in a directory only its user can enter); not meant to be run by hand. It says
``memprobe: ready PID`` on stdout once its imports are done, and ends when its stdin closes (the process
that started it has ended). Each connection asks for one probe: a JSON line (the ``program`` to run,
:data:`PROBE_PROGRAM` for :func:`memprobe.capture.child.main`; its ``argv``; the probe's full environment, its
working directory, its interpreter and ``sys.prefix``), with the probe's stdin, stdout and stderr passed as file
descriptors.
The answer is ``{"pid": N}`` and, when that child ends, ``{"exit": RC}`` (as ``subprocess`` reports it:
negative for a signal); or ``{"refused": WHY}`` when the probe needs a fresh interpreter:

- a program this server does not run (memprobe's runs only probes);
- another interpreter or environment (``sys.prefix``) than this one;
- an environment variable that differs from this process's, unless it is one nothing imported here has
  read (:data:`READ_AFTER_IMPORT`): torch and its libraries read many variables once, at import
  (``OMP_NUM_THREADS``, ``TORCHINDUCTOR_*`` settings, ``PYTORCH_*``), and a fork would run with this
  process's values.

The child applies its environment, working directory, ``sys.argv`` and ``sys.executable`` as a fresh
interpreter would have them, restores the default signal handlers, and runs the probe exactly as
``python -m memprobe.capture.child`` does; its report records the server it was forked from
(``process.forked_from``). Only CPU probes come here (:mod:`memprobe.orchestrate.forkserver`): on
CUDA each probe stays a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
import warnings

READY_LINE = "memprobe: ready"  # then this process's pid
PROBE_PROGRAM = "probe"  # what a request names to run a probe (memprobe.capture.child)

# variables a probe may set differently from this process: nothing imported here reads them. Inductor sets
# _TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR each time it loads a kernel library (a process that compiled passes it on
# to the processes it starts); the CUDA driver reads its devices when it starts (never here); memprobe's own are
# read when a probe runs; the rest is the bookkeeping of shells, terminals, pyenv and pytest, which no library reads.
# Not TORCHINDUCTOR_CACHE_DIR: Dynamo's package cache takes its directory from it at import.
READ_AFTER_IMPORT = frozenset(
    {
        "_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR",
        "CUDA_VISIBLE_DEVICES",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "_",
        "TERM",
        "COLORTERM",
        "COLUMNS",
        "LINES",
    }
)
READ_AFTER_IMPORT_PREFIXES = ("MEMPROBE_", "PYTEST_", "PYENV_")
_MAX_REQUEST = 16 * 2**20  # bytes of one request line (a probe's job and its environment)


def env_difference(ours: dict[str, str], theirs: dict[str, str]) -> list[str]:
    """The variables that differ between two environments and that a fork would get wrong: those read at import."""
    names = {k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k)}
    return sorted(n for n in names if n not in READ_AFTER_IMPORT and not n.startswith(READ_AFTER_IMPORT_PREFIXES))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m memprobe.capture.forkserver SOCKET (started by memprobe, not by hand)", file=sys.stderr)
        return 2
    from . import child

    return serve(argv[0], preload=preload_probes, programs={PROBE_PROGRAM: child})


def preload_probes() -> None:
    """What a server of probes does before it serves: import what probes use, ask the CPU toolchain, hash the
    installed sources that Inductor's cache keys include."""
    from . import child

    child.import_what_probes_use()
    child.ask_the_cpu_toolchain()
    child.ask_the_source_hashes()


def serve(path: str, *, preload, programs: dict) -> int:
    """Import (``preload()``), then listen on the socket ``path`` and, for each request, fork the ``main(argv) ->
    int`` of the module that ``programs`` maps the request's program to, until stdin closes. memprobe's server runs
    probes only (:data:`PROBE_PROGRAM`: :mod:`.child`); the test suite's server runs its ``memprobe`` commands too
    (tests/cli_forkserver.py)."""
    if not hasattr(os, "pidfd_open"):
        print("this platform has no pidfd_open: probes start as fresh interpreters", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the probes; this process ends with its stdin
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    before = dict(os.environ)
    with warnings.catch_warnings():  # a probe's own process decides what it shows (--verbose)
        warnings.simplefilter("ignore")
        preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stdout.write(f"{READY_LINE} {os.getpid()}\n")
    sys.stdout.flush()
    try:
        _Server(listener, before, programs).serve()
    finally:
        os.unlink(path)  # the socket it made; its directory is the starter's
    return 0


class _Server:
    """One thread: accept a request, fork its child, report each child's end to whoever asked for it."""

    def __init__(self, listener: socket.socket, env: dict[str, str], programs: dict):
        self.listener, self.programs = listener, programs
        self.env = env  # as this process started, before its imports: what a fresh interpreter's would be compared to
        # what the imports set (a fresh interpreter's imports would set it too, from the same starting values)
        self.set_by_imports = {k: v for k, v in os.environ.items() if env.get(k) != v}
        self.cwd = os.getcwd()
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        self.selector.register(0, selectors.EVENT_READ, "lifeline")
        self.children: dict[int, tuple[socket.socket, int]] = {}  # pid -> (its connection, its pidfd)

    def serve(self) -> None:
        while True:
            for key, _ in self.selector.select():
                if key.data == "lifeline":
                    if not os.read(0, 4096):
                        return  # the process that started this one has ended; the children run on
                elif key.data == "accept":
                    conn, _ = self.listener.accept()
                    self._serve_one(conn)
                else:
                    self._ended(key.data)

    def _serve_one(self, conn: socket.socket) -> None:
        fds: list[int] = []
        try:
            conn.settimeout(30)
            request, fds = _read_request(conn)
            conn.settimeout(None)
            why = self._refusal(request)
            if why is not None:
                _answer(conn, {"refused": why})
                conn.close()
                return
            pid = os.fork()
            if pid == 0:
                self._become_probe(conn, request, fds)  # never returns
            pidfd = os.pidfd_open(pid)
            self.children[pid] = (conn, pidfd)
            self.selector.register(pidfd, selectors.EVENT_READ, pid)
            _answer(conn, {"pid": pid})
        except (OSError, ValueError) as e:  # a request that is not one: the asker falls back to a fresh interpreter
            try:
                _answer(conn, {"refused": f"a bad request ({type(e).__name__}: {e})"})
            except OSError:
                pass
            conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    def _refusal(self, request: dict) -> str | None:
        if request["program"] not in self.programs:
            return f"this fork server runs no program {request['program']!r} (only {', '.join(sorted(self.programs))})"
        if os.path.realpath(request["python"]) != os.path.realpath(sys.executable) or request["prefix"] != sys.prefix:
            return f"another interpreter than the fork server's ({sys.executable})"
        differ = env_difference(self.env, request["env"])
        if differ:
            return "its environment sets what torch reads at import: " + ", ".join(differ[:5])
        return None

    def _become_probe(self, conn: socket.socket, request: dict, fds: list[int]) -> None:
        """In the child: the process a fresh interpreter running the program would be (``python -m
        memprobe.capture.child ARGV`` for a probe), then the program."""
        code = 70
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            self.selector.close()
            self.listener.close()
            conn.close()
            for other, pidfd in self.children.values():
                other.close()
                os.close(pidfd)
            for target, fd in enumerate(fds):  # the probe's stdin, stdout and stderr
                os.dup2(fd, target)
            for fd in fds:
                if fd > 2:
                    os.close(fd)
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            for name, value in self.set_by_imports.items():
                if request["env"].get(name) == self.env.get(name):
                    os.environ[name] = value
            from .process_info import note_forked_from

            if sys.path and sys.path[0] == self.cwd:  # `python -m` puts its working directory first
                sys.path[0] = request["cwd"]
            program = self.programs[request["program"]]
            sys.argv = [program.__file__, *request["argv"]]
            sys.executable = request["python"]
            note_forked_from(os.getppid())
            code = program.main(request["argv"])
        except BaseException:  # noqa: BLE001 - nothing may return into the server's loop
            code = 70
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:  # noqa: BLE001
                    pass
            os._exit(code)

    def _ended(self, pid: int) -> None:
        conn, pidfd = self.children.pop(pid)
        self.selector.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        try:
            _answer(conn, {"exit": os.waitstatus_to_exitcode(status)})
        except OSError:
            pass  # whoever asked has gone
        conn.close()


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 65536, 3)
    try:
        return _parse_request(conn, data, fds), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _parse_request(conn: socket.socket, data: bytes, fds: list[int]) -> dict:
    while not data.endswith(b"\n"):
        if len(data) > _MAX_REQUEST:
            raise ValueError("request too long")
        more = conn.recv(65536)
        if not more:
            raise ValueError("the request ended early")
        data += more
    if len(fds) != 3:
        raise ValueError(f"expected 3 file descriptors, got {len(fds)}")
    request = json.loads(data)
    if not isinstance(request, dict):
        raise ValueError("a request is a JSON object")
    for key, kind in (("program", str), ("argv", list), ("env", dict), ("cwd", str), ("python", str), ("prefix", str)):
        if not isinstance(request.get(key), kind):
            raise ValueError(f"{key} must be a {kind.__name__}")
    if not all(isinstance(a, str) for a in request["argv"]) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in request["env"].items()
    ):
        raise ValueError("argv and env must hold strings")
    return request


def _answer(conn: socket.socket, message: dict) -> None:
    conn.sendall(json.dumps(message).encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())

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
(a Unix socket in a directory only its user can enter: checked, :func:`private_dir_problem`, before it binds); not
meant to be run by hand. It says ``memprobe: ready PID`` on stdout once its imports are done, and ends when its stdin
closes (the process that started it has ended); while it lives it holds a shared lock on the directory's ``lock``
file, so that a later memprobe knows the directory is not stale. Each connection asks for one probe: a JSON line
(the ``program`` to run, :data:`PROBE_PROGRAM` for :func:`memprobe.capture.child.main`; its ``argv``; the probe's
full environment, its working directory, its interpreter and ``sys.prefix``), with the probe's stdin, stdout and
stderr passed as file descriptors.
The answer is ``{"pid": N}`` with the child's pidfd passed along (so that the asker signals and waits for exactly
the process the kernel says this server forked) and, when that child ends, ``{"exit": RC}`` (as ``subprocess``
reports it: negative for a signal); or ``{"refused": WHY}`` when the probe needs a fresh interpreter:

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

Whom it serves: only its own user. A connection whose peer (``SO_PEERCRED``, the kernel's record) is another uid is
closed unread. A request is at most 16 MiB, nested no deeper than the JSON parser's recursion limit and then of its
one shape (two deep), and it must arrive whole within :data:`REQUEST_DEADLINE_S` of the connection: the server reads
every connection without blocking, so a client that sends nothing, or a byte at a time, holds no one else up, and
nothing a client sends ends the server.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import glob
import json
import os
import selectors
import signal
import socket
import stat
import struct
import sys
import time
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
# a terminal session's bookkeeping (ssh, tmux, screen, editors' terminals, the display): read by no library at import;
# a resident server (``memprobe serve``) started in one shell serves the user's other shells too
READ_AFTER_IMPORT_PREFIXES = (
    "MEMPROBE_",
    "PYTEST_",
    "PYENV_",
    "SSH_",
    "TMUX",
    "STY",
    "WINDOW",
    "TERM_",
    "ITERM_",
    "VSCODE_",
    "KITTY_",
    "XDG_SESSION_",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "LS_COLORS",
    "GPG_TTY",
    "PS1",
    "PS2",
)
_MAX_REQUEST = 16 * 2**20  # bytes of one request line (a probe's job and its environment)
REQUEST_DEADLINE_S = 10.0  # from a connection to the end of its request line (a memprobe sends it at once)
_MAX_PENDING = 64  # connections whose request is still being read: more are closed at once
LOCK_NAME = "lock"  # the file in a server's directory that its starter and the server hold a lock on while they live
STOP_PROGRAM = "stop"  # what a request names to end a resident server (``memprobe serve --stop``)
STATUS_PROGRAM = "status"  # what a request names to ask a server what it is
# the kinds of server: a verb's own (CPU probes; it ends with the verb), the MCP server's own (it ends with it), and the
# user's resident one (``memprobe serve``: it ends when asked, when idle, or when the installation changes). The last
# two import torchao too and fork CUDA probes (they never start the CUDA driver themselves).
KINDS = {"verb": "the verb's fork server", "mcp": "memprobe mcp", "serve": "memprobe serve"}
IDLE_EXIT_S = 1800.0  # a resident server with no probe running and no request for this long ends
STAMP_EVERY_S = 30.0  # how often an idle resident server checks that its installation is unchanged


def private_dir_problem(path: str) -> str | None:
    """Why the directory ``path`` is not one that only this user can enter (None: it is): a directory itself (not a
    symbolic link), owned by this user, with no permission for its group or others."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if st.st_uid != os.geteuid():
        return f"belongs to uid {st.st_uid}, not to this user (uid {os.geteuid()})"
    if st.st_mode & 0o077:
        return f"has mode {stat.S_IMODE(st.st_mode):o}: others may enter it (memprobe makes it 700)"
    return None


def peer_credentials(sock: socket.socket) -> tuple[int, int]:
    """``(pid, uid)`` of the process at the other end of a connected Unix socket, as the kernel recorded them when it
    connected or listened (``SO_PEERCRED``): nothing the peer says about itself."""
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return pid, uid


def hold_lock(directory: str, *, create: bool) -> int | None:
    """A shared lock on ``directory``'s lock file (created with ``create``): the file descriptor that holds it, or
    None when there is no such file. Whoever holds one keeps the directory from being cleaned as stale."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_CREAT | os.O_EXCL if create else 0)
    try:
        fd = os.open(os.path.join(directory, LOCK_NAME), flags, 0o600)
    except FileNotFoundError:
        return None
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def env_difference(ours: dict[str, str], theirs: dict[str, str]) -> list[str]:
    """The variables that differ between two environments and that a fork would get wrong: those read at import."""
    names = {k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k)}
    return sorted(n for n in names if n not in READ_AFTER_IMPORT and not n.startswith(READ_AFTER_IMPORT_PREFIXES))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    kind, idle = "verb", None
    while len(argv) > 2 and argv[0] in ("--kind", "--idle-exit"):
        if argv[0] == "--kind" and argv[1] in KINDS:
            kind = argv[1]
        elif argv[0] == "--idle-exit":
            idle = float(argv[1])
        argv = argv[2:]
    if len(argv) != 1:
        print("usage: python -m memprobe.capture.forkserver SOCKET (started by memprobe, not by hand)", file=sys.stderr)
        return 2
    from . import child

    resident = None if kind == "verb" else Resident(kind, idle if kind == "serve" else None)
    return serve(
        argv[0],
        preload=functools.partial(preload_probes, torchao=resident is not None),
        programs={PROBE_PROGRAM: child},
        resident=resident,
    )


def preload_probes(torchao: bool = False) -> None:
    """What a server of probes does before it serves: import what probes use, ask the CPU toolchain, hash the
    installed sources that Inductor's cache keys include; ``torchao``: import torchao's float8 training and hash its
    sources too (a resident server's: its float8 probes import nothing then). Nothing here starts the CUDA driver:
    on a GPU machine it all runs with ``PYTORCH_NVML_BASED_CUDA_CHECK=1`` (:func:`_no_cuinit`)."""
    gpu_machine = bool(glob.glob("/dev/nvidia[0-9]*"))
    with _no_cuinit() if gpu_machine else contextlib.nullcontext():
        _preload(torchao, gpu_machine)


def _preload(torchao: bool, gpu_machine: bool) -> None:
    from . import child

    child.import_what_probes_use()
    if not gpu_machine:
        # on a GPU machine the probes run on CUDA, and asking took over 40 s on the H200's (a CPU probe asks itself)
        child.ask_the_cpu_toolchain()
    child.ask_the_source_hashes()
    if torchao:
        try:
            import torchao.float8  # noqa: F401

            from .function_keys import torchao_key

            torchao_key()
        except ImportError:  # no torchao: float8 probes say so in their own words
            pass


@contextlib.contextmanager
def _no_cuinit():
    """``torch.cuda.is_available()`` answered from NVML meanwhile, as torch documents for a process that will fork:
    importing Inductor asks it (torch 2.11 on the H200), and its default answer calls ``cuInit``, which starts the
    driver's threads and leaves every fork of this process unable to use CUDA. The variable is put back after, so
    the server's environment, which its forks inherit and requests are compared with, is the one it started with."""
    name = "PYTORCH_NVML_BASED_CUDA_CHECK"
    before = os.environ.get(name)
    os.environ[name] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def serve(path: str, *, preload, programs: dict, resident: Resident | None = None) -> int:
    """Import (``preload()``), then listen on the socket ``path`` and, for each request, fork the ``main(argv) ->
    int`` of the module that ``programs`` maps the request's program to, until stdin closes (``resident``: until it
    is asked to stop, is idle, or its installation changed; see :class:`Resident`). memprobe's server runs probes only
    (:data:`PROBE_PROGRAM`: :mod:`.child`); the test suite's server runs its ``memprobe`` commands too
    (tests/cli_forkserver.py)."""
    if not hasattr(os, "pidfd_open"):
        print("this platform has no pidfd_open: probes start as fresh interpreters", file=sys.stderr)
        return 2
    directory = os.path.dirname(os.path.abspath(path))
    problem = private_dir_problem(directory)
    if problem is not None:  # a directory others may enter: anyone there could connect, or put their own socket
        print(f"the fork server's directory {directory} {problem}: refusing to serve", file=sys.stderr)
        return 2
    if resident is not None and resident.kind == "serve":
        lock = resident.take_directory(directory, path)
        if lock is None:
            print(f"memprobe serve: another server holds {directory}: refusing to serve", file=sys.stderr)
            return 2
    else:
        lock = hold_lock(directory, create=False)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the probes; this process ends with its stdin
    signal.signal(signal.SIGTERM, signal.SIG_IGN if resident is None or resident.kind != "serve" else signal.SIG_DFL)
    before = dict(os.environ)
    with warnings.catch_warnings():  # a probe's own process decides what it shows (--verbose)
        warnings.simplefilter("ignore")
        preload()
    if resident is not None:
        resident.ready()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.setblocking(False)
    sys.stdout.write(f"{READY_LINE} {os.getpid()}\n")
    sys.stdout.flush()
    try:
        _Server(listener, before, programs, lock, resident=resident).serve()
    finally:
        try:
            os.unlink(path)  # the socket it made; its directory is the starter's
        except FileNotFoundError:  # removed with its directory meanwhile, or when it stopped listening
            pass
    return 0


class Resident:
    """What makes a server resident (``memprobe serve``, or the MCP server's own): its kind, when it ends by itself,
    and what it may fork. ``memprobe serve``'s holds its directory's lock alone, has no lifeline (it ends when asked,
    after :data:`IDLE_EXIT_S` with no probe and no request, or when memprobe's, torch's, torchao's or Triton's
    installation changed: :func:`installation_stamp`, checked at each request and every :data:`STAMP_EVERY_S`), and
    answers a stop request. Both fork CUDA probes as long as nothing in this process started the CUDA driver
    (:func:`cuda_state`, after the imports)."""

    def __init__(self, kind: str, idle_exit_s: float | None = None):
        self.kind, self.idle_exit_s = kind, idle_exit_s
        self.lifeline = kind != "serve"
        self.started = time.time()
        self.code = self.stamp = None
        self.watched: list[str] = []
        self.cuda: dict = {}
        self.forked = 0

    def take_directory(self, directory: str, path: str) -> int | None:
        """The lock of ``directory``, held by this process alone (None: another server holds it); a socket a killed
        server left is removed."""
        try:
            fd = os.open(os.path.join(directory, LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        if os.path.lexists(path):
            os.unlink(path)
        return fd

    def ready(self) -> None:
        """After the imports: what this process was started from, and whether it touched CUDA."""
        self.watched = watched_files()
        self.code, self.stamp = code_stamp(), installation_stamp(self.watched)
        self.cuda = cuda_state()
        self.checked = time.monotonic()

    def changed(self) -> str | None:
        """Why this server must end: its installation changed since it started (None: it did not)."""
        self.checked = time.monotonic()
        if installation_stamp(self.watched) != self.stamp:
            return "memprobe's, torch's, torchao's or Triton's installation changed since it started"
        return None

    def status(self, children: int) -> dict:
        return {
            "pid": os.getpid(),
            "kind": self.kind,
            "name": KINDS[self.kind],
            "uptime_s": round(time.time() - self.started, 1),
            "idle_exit_s": self.idle_exit_s,
            "probes_running": children,
            "probes_forked": self.forked,
            "python": sys.executable,
            "code": self.code,
            **self.cuda,
        }


def cuda_state() -> dict:
    """Whether this process initialised CUDA (torch's lazy init) or started the CUDA driver (``cuInit``, which torch's
    default ``torch.cuda.is_available()`` calls, and torch 2.11's Inductor at import): a fork of a process that did
    cannot use CUDA. Started is the driver's own answer: ``cuCtxGetCurrent`` returns CUDA_ERROR_NOT_INITIALIZED (3)
    until ``cuInit`` ran, and asking initialises nothing (its threads are no sign: NVML's, which torch's fork-safe
    availability check starts, are named ``cuda...`` too; on the H200 a fork of such a process used CUDA). Also
    whether the driver's library is only mapped (``libcuda``: torch 2.11's CUDA 13 builds map it at ``import
    torch``), which starts nothing and leaves a fork able to."""
    torch = sys.modules.get("torch")
    initialized = bool(torch is not None and torch.cuda.is_initialized())
    try:
        with open("/proc/self/maps") as f:
            libraries = sorted({line.split()[-1] for line in f if "libcuda.so" in line})
        started = bool(libraries) and _driver_initialised(libraries[0])
    except (OSError, AttributeError):  # unreadable, or a library without the driver's entry point: unknown
        libraries, started = None, None
    loaded = None if libraries is None else bool(libraries)
    return {"cuda_initialized": initialized, "cuda_driver_started": started, "cuda_driver_loaded": loaded}


def _driver_initialised(library: str) -> bool:
    """Whether ``cuInit`` ran in this process, asked of the driver library it already mapped: cuCtxGetCurrent returns
    3 (CUDA_ERROR_NOT_INITIALIZED) before it, 0 after (with or without a current context)."""
    import ctypes

    context = ctypes.c_void_p()
    return ctypes.CDLL(library).cuCtxGetCurrent(ctypes.byref(context)) != 3


def _package_dir(name: str) -> str | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return os.path.dirname(spec.origin) if spec is not None and spec.origin else None


def code_stamp() -> str:
    """memprobe's code as this process would run it: where its ``memprobe`` and ``repros`` packages are, and each of
    their Python files' size and modification time (stat only: a few ms). A resident server forks probes of its own
    memprobe only: a verb of another checkout, or after an edit, gets a fresh interpreter."""
    import hashlib

    h = hashlib.sha256()
    for name in ("memprobe", "repros"):
        root = _package_dir(name)
        h.update(f"{name}={root}\0".encode())
        for directory, dirs, files in os.walk(root or "/nonexistent"):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    st = os.stat(os.path.join(directory, f))
                    h.update(f"{os.path.relpath(os.path.join(directory, f), root)} {st.st_size} {st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def watched_files() -> list[str]:
    """The files whose change means torch, torchao or Triton was installed again or edited: each package's
    ``__init__.py`` and ``version.py`` and its distribution's RECORD (a new version is a new dist-info directory)."""
    from importlib import metadata

    paths = []
    for name in ("torch", "torchao", "triton"):
        root = _package_dir(name)
        if root is not None:
            paths += [os.path.join(root, "__init__.py"), os.path.join(root, "version.py")]
        try:
            dist_path = getattr(metadata.distribution(name), "_path", None)
        except metadata.PackageNotFoundError:
            dist_path = None
        if dist_path is not None:
            paths.append(os.path.join(str(dist_path), "RECORD"))
    return paths


def installation_stamp(watched: list[str]) -> tuple:
    """memprobe's code (:func:`code_stamp`) and each watched file's identity (inode, size, times; None: absent)."""

    def identity(path: str):
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    return (code_stamp(), *(identity(p) for p in watched))


class _Pending:
    """A connection whose request is being read: what arrived so far, and by when the rest must."""

    def __init__(self, conn: socket.socket):
        self.conn = conn
        self.data = bytearray()
        self.fds: list[int] = []
        self.deadline = time.monotonic() + REQUEST_DEADLINE_S

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        self.conn.close()


class _Server:
    """One thread: read requests from every connection at once without blocking, fork each request's child, report
    each child's end to whoever asked for it."""

    def __init__(
        self,
        listener: socket.socket,
        env: dict[str, str],
        programs: dict,
        lock: int | None = None,
        *,
        resident: Resident | None = None,
    ):
        self.listener, self.programs, self.lock, self.resident = listener, programs, lock, resident
        self.path = listener.getsockname()
        self.env = env  # as this process started, before its imports: what a fresh interpreter's would be compared to
        # what the imports set (a fresh interpreter's imports would set it too, from the same starting values)
        self.set_by_imports = {k: v for k, v in os.environ.items() if env.get(k) != v}
        self.cwd = os.getcwd()
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        if resident is None or resident.lifeline:
            self.selector.register(0, selectors.EVENT_READ, "lifeline")
        self.pending: dict[int, _Pending] = {}  # a connection's fileno -> its request so far
        self.children: dict[int, tuple[socket.socket, int]] = {}  # pid -> (its connection, its pidfd)
        self.last_active = time.monotonic()

    def serve(self) -> None:
        while self.listener is not None or self.children:  # a server that stopped listening waits for its probes
            for key, _ in self.selector.select(self._timeout()):
                if key.data == "lifeline":
                    if not os.read(0, 4096):
                        return  # the process that started this one has ended; the children run on
                elif key.data == "accept":
                    self._accept()
                elif isinstance(key.data, _Pending):
                    if key.data.conn.fileno() in self.pending:  # not dropped earlier in this round
                        self._read(key.data)
                else:
                    self._ended(key.data)
            now = time.monotonic()
            for p in [p for p in self.pending.values() if p.deadline <= now]:
                self._drop(p, f"no whole request within {REQUEST_DEADLINE_S:g} s")
            self._end_by_itself(now)

    def _timeout(self) -> float | None:
        """Until the next thing to do: a request's deadline, or a resident server's next look at its installation and
        at how long it has been idle."""
        deadlines = [p.deadline for p in self.pending.values()]
        r = self.resident
        if r is not None and r.idle_exit_s is not None and self.listener is not None:
            deadlines += [r.checked + STAMP_EVERY_S, self.last_active + r.idle_exit_s]
        return None if not deadlines else max(0.0, min(deadlines) - time.monotonic())

    def _end_by_itself(self, now: float) -> None:
        """A resident server (``memprobe serve``) stops listening once it has been idle for its idle time or its
        installation changed."""
        r = self.resident
        if r is None or r.idle_exit_s is None or self.listener is None:
            return
        busy = self.children or self.pending
        if not busy and now - self.last_active >= r.idle_exit_s:
            self._stop_listening(f"idle for {r.idle_exit_s:g} s")
        elif now - r.checked >= STAMP_EVERY_S:
            why = r.changed()
            if why is not None:
                self._stop_listening(why)

    def _stop_listening(self, why: str) -> None:
        """No more requests: the socket is removed (a verb then finds no server); the probes running end as they
        would, their ends told to who asked for them, then this process ends."""
        print(f"{KINDS[self.resident.kind] if self.resident else 'fork server'} {os.getpid()} ends: {why}", file=sys.stderr)
        self.selector.unregister(self.listener)
        self.listener.close()
        self.listener = None
        for p in list(self.pending.values()):
            self._drop(p, "the server is ending")
        try:
            os.unlink(self.path)
        except OSError:
            pass
        if self.resident is not None and self.resident.kind == "serve" and self.lock is not None:
            # its directory is free for the next `memprobe serve` now, while this one waits for its probes (`serve
            # --stop; serve` was refused: "another server holds" it until the last probe ended)
            os.close(self.lock)
            self.lock = None

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:  # gone before it was accepted, or out of file descriptors: the asker falls back
            return
        try:
            _, uid = peer_credentials(conn)
        except OSError:
            uid = -1
        if uid != os.geteuid() or len(self.pending) >= _MAX_PENDING:
            conn.close()  # another user's process reads nothing of this server's, and learns nothing
            return
        conn.setblocking(False)
        self.last_active = time.monotonic()
        pending = _Pending(conn)
        self.pending[conn.fileno()] = pending
        self.selector.register(conn, selectors.EVENT_READ, pending)

    def _read(self, p: _Pending) -> None:
        try:
            data, fds, flags, _ = socket.recv_fds(p.conn, 65536, 3)
        except BlockingIOError:
            return
        except OSError as e:
            self._drop(p, f"{type(e).__name__}: {e}")
            return
        p.fds += fds
        p.data += data
        if not data:
            self._drop(p, "the request ended early")
        elif len(p.fds) > 3 or flags & socket.MSG_CTRUNC:  # more than fit: the kernel closed the rest
            self._drop(p, f"expected 3 file descriptors, got {'more' if flags & socket.MSG_CTRUNC else len(p.fds)}")
        elif len(p.data) > _MAX_REQUEST and b"\n" not in data:
            self._drop(p, f"a request of more than {_MAX_REQUEST} bytes")
        elif b"\n" in data:
            self._unpend(p)
            line = bytes(p.data[: p.data.index(b"\n") + 1])
            fds, p.fds = p.fds, []
            self._serve_one(p.conn, line, fds)

    def _unpend(self, p: _Pending) -> None:
        self.selector.unregister(p.conn)
        del self.pending[p.conn.fileno()]

    def _drop(self, p: _Pending, why: str) -> None:
        """A connection whose request never came whole: refused (if it still listens) and closed."""
        self._unpend(p)
        try:
            p.conn.send(json.dumps({"refused": f"a bad request ({why})"}).encode() + b"\n")
        except OSError:
            pass
        p.close()

    def _serve_one(self, conn: socket.socket, line: bytes, fds: list[int]) -> None:
        try:
            conn.setblocking(True)
            conn.settimeout(5)  # an answer is a line: only a client that stopped reading could hold it up
            request = parse_request(line, len(fds))
            if self._control(conn, request):
                return
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
            if self.resident is not None:
                self.resident.forked += 1
            socket.send_fds(conn, [json.dumps({"pid": pid}).encode() + b"\n"], [pidfd])
        except Exception as e:  # a request that is not one: the asker falls back to a fresh interpreter
            try:
                _answer(conn, {"refused": f"a bad request ({type(e).__name__}: {e})"})
            except OSError:
                pass
            if not any(c is conn for c, _ in self.children.values()):
                conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    def _control(self, conn: socket.socket, request: dict) -> bool:
        """Answer a request that asks about the server (status) or asks a resident one to stop; False for any other."""
        program = request["program"]
        if program == STATUS_PROGRAM:
            r = self.resident
            status = r.status(len(self.children)) if r is not None else {"pid": os.getpid(), "kind": "verb", **cuda_state()}
            _answer(conn, {"status": status})
        elif program == STOP_PROGRAM and self.resident is not None and self.resident.kind == "serve":
            _answer(conn, {"stopping": os.getpid(), "probes_running": len(self.children)})
            self._stop_listening("asked to stop (memprobe serve --stop)")
        else:
            return False
        conn.close()
        return True

    def _refusal(self, request: dict) -> str | None:
        r = self.resident
        if r is not None and r.idle_exit_s is not None:
            why = r.changed()
            if why is not None:
                self._stop_listening(why)
                return f"{why}: the server ends"
        if request.get("code") is not None and r is not None and request["code"] != r.code:
            return "another memprobe (another checkout, or its files changed) than the server's"
        if request.get("cuda") and (
            r is None or r.cuda.get("cuda_initialized") or r.cuda.get("cuda_driver_started") is not False
        ):
            return "a CUDA probe, and this server forks CPU probes only (or its imports started the CUDA driver)"
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
            self._close_the_servers(conn)
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
            note_forked_from(os.getppid(), KINDS[self.resident.kind if self.resident is not None else "verb"])
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

    def _close_the_servers(self, conn: socket.socket) -> None:
        """In the child: close what is the server's (its sockets, its other children's pidfds, its directory's lock)."""
        self.selector.close()
        if self.listener is not None:
            self.listener.close()
        conn.close()
        for other, pidfd in self.children.values():
            other.close()
            os.close(pidfd)
        for p in self.pending.values():
            p.close()
        if self.lock is not None:  # the directory's lock is the server's, not its probes'
            os.close(self.lock)

    def _ended(self, pid: int) -> None:
        self.last_active = time.monotonic()
        conn, pidfd = self.children.pop(pid)
        self.selector.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        try:
            _answer(conn, {"exit": os.waitstatus_to_exitcode(status)})
        except OSError:
            pass  # whoever asked has gone
        conn.close()


def parse_request(line: bytes, fds: int) -> dict:
    """A request line (with ``fds`` file descriptors passed along), checked: ValueError saying what it is not. Bounded:
    at most 16 MiB, nested within the JSON parser's recursion limit, then of the one shape a request has."""
    if len(line) > _MAX_REQUEST + 1:
        raise ValueError(f"a request of more than {_MAX_REQUEST} bytes")
    if fds != 3:
        raise ValueError(f"expected 3 file descriptors, got {fds}")
    try:
        request = json.loads(line)
    except RecursionError:
        raise ValueError("nested too deep") from None
    if not isinstance(request, dict):
        raise ValueError("a request is a JSON object")
    _check_request_shape(request)
    _check_request_strings(request)
    return request


# a request's fields and their types
_REQUEST_FIELDS = (("program", str), ("argv", list), ("env", dict), ("cwd", str), ("python", str), ("prefix", str))


# the fields a request may hold besides: the asker's memprobe (:func:`code_stamp`), whether the probe runs on CUDA
_OPTIONAL_FIELDS = (("code", str), ("cuda", bool))


def _check_request_shape(request: dict) -> None:
    """Each field of a request has its type, and argv and env hold strings: ValueError otherwise."""
    for key, kind in _REQUEST_FIELDS:
        if not isinstance(request.get(key), kind):
            raise ValueError(f"{key} must be a {kind.__name__}")
    for key, kind in _OPTIONAL_FIELDS:
        if key in request and request[key] is not None and not isinstance(request[key], kind):
            raise ValueError(f"{key} must be a {kind.__name__}")
    strings = all(isinstance(a, str) for a in request["argv"])
    if not strings or not all(isinstance(k, str) and isinstance(v, str) for k, v in request["env"].items()):
        raise ValueError("argv and env must hold strings")


def _check_request_strings(request: dict) -> None:
    """No string of a request holds a NUL byte, and each variable's name is a name: ValueError otherwise."""
    strings = [request[k] for k in ("program", "cwd", "python", "prefix")] + request["argv"]
    strings += [k + v for k, v in request["env"].items()]
    if any("\0" in t for t in strings) or any(not k or "=" in k for k in request["env"]):
        raise ValueError("a string of the request holds a NUL byte, or a variable's name is empty or holds an =")


def _answer(conn: socket.socket, message: dict) -> None:
    conn.sendall(json.dumps(message).encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())

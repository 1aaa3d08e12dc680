"""Shared fixtures, the CLI two ways, and the two lanes of the suite.

Two lanes, chosen by the ``e2e`` marker (the Makefile's ``make fast`` and ``make e2e``; ``make test``, what
``make check`` runs, is both in one session):

- the fast lane (``-m "not e2e"``): no model is compiled or run. Verbs are called in this process through
  click's CliRunner (:func:`invoke`) for error paths and argument handling, the analysis runs over the committed
  run directories in tests/data/, and the fuzz runs at its default count.
- the end-to-end lane (``-m e2e``): real runs through the installed CLI, in processes of their own
  (:func:`run_cli`: forks of the session's server, which imported torch once, tests/cli_forkserver.py): they build
  the repro, compile it with Inductor (C++ on the CPU), train, and write a run directory. A test that asks for
  :func:`runs` is end-to-end by that alone (marked here); any other test that runs a model carries the marker
  itself, and so does one whose subject is a program of its own that takes seconds to start: an interpreter that
  imports torch (a script as its user runs it, one without memprobe (``lean``, marked here), another Python) or a
  headless Chromium drawing a page. The fast lane, the developer's loop, leaves them out. The ``slow`` ones run first.

Each probe configuration that several tests read is run once per session (:func:`runs`), shared by the
pytest-xdist workers of that session. Compiled code goes to memprobe's compile cache (named for the session:
:func:`pytest_configure`), which makes repeated sessions faster; nothing here depends on it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest
from cli_forkserver import COMMAND_PROGRAM
from filelock import FileLock  # torch's own dependency

# the console script of this interpreter's environment (a virtualenv's own, whatever PATH says), else the module
_SCRIPT = Path(sys.executable).parent / "memprobe"
MEMPROBE = str(_SCRIPT) if _SCRIPT.is_file() else f"{sys.executable} -m memprobe"


def _log_env() -> dict[str, str]:
    # tables as wide as a log (memprobe's default when not on a terminal), whatever the terminal running pytest says
    return {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}


def run_cli(
    *args, timeout: float = 600, cwd: Path | None = None, env: dict[str, str] | None = None, fresh: bool = False
) -> subprocess.CompletedProcess:
    """``memprobe ARGS`` in a process of its own (what a user runs), to its end: for verbs that run a model. The
    process is what :func:`start_cli` starts."""
    proc = start_cli(*args, cwd=cwd, env=env, fresh=fresh)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def run_cli_signalled(*args, ready: Path, signum: int, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``memprobe ARGS`` (:func:`start_cli`), sent ``signum`` once the code it runs says it is ready (it makes the file
    ``ready``, then waits for ``ready`` + ".sent", which this makes once the signal is sent: no clock), to its end."""
    proc = start_cli(*args, env=env)
    while not ready.exists() and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signum)
    ready.with_name(ready.name + ".sent").touch()
    stdout, stderr = proc.communicate(timeout=600)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def start_cli(*args, cwd: Path | None = None, env: dict[str, str] | None = None, fresh: bool = False):
    """``memprobe ARGS`` started in a process of its own, its stdout and stderr text pipes (a Popen, or as much of
    one as the tests use); ``env``: variables set for it. The process is a fork of the session's server of memprobe
    commands (tests/cli_forkserver.py: torch imported once per session), unless ``fresh`` or the server refuses it
    (an environment that torch reads at import): then a fresh interpreter."""
    argv = [str(a) for a in args]
    env = {**_log_env(), **(env or {})}
    forked = None if fresh or _CLI_SERVER is None else _ForkedCommand.start(argv, env, cwd)
    return forked or subprocess.Popen(
        MEMPROBE.split() + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env
    )


class _ForkedCommand:
    """A ``memprobe`` command forked from the session's fork server: its pid, signals, wait and
    communicate as :class:`subprocess.Popen` has them, its stdout and stderr text pipes."""

    def __init__(self, proc, argv: list[str], stdout_fd: int, stderr_fd: int):
        self._proc, self.args, self.pid = proc, ["memprobe", *argv], proc.pid
        self.stdout = open(stdout_fd, encoding="utf-8", errors="replace")
        self.stderr = open(stderr_fd, encoding="utf-8", errors="replace")
        self._texts: dict[str, str] = {}
        self._readers: list[threading.Thread] = []

    @classmethod
    def start(cls, argv: list[str], env: dict[str, str], cwd: Path | None):
        """The command forked, or None if the server refuses it."""
        from memprobe.orchestrate.forkserver import server_env

        env = server_env(env)  # what the server's own environment adds
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        stdin = os.open(os.devnull, os.O_RDONLY)
        try:
            proc = _CLI_SERVER.spawn(argv, env, sys.executable, (stdin, out_w, err_w), cwd=cwd, program=COMMAND_PROGRAM)
        finally:
            for fd in (stdin, out_w, err_w):
                os.close(fd)
        if isinstance(proc, str):
            os.close(out_r)
            os.close(err_r)
            return None
        return cls(proc, argv, out_r, err_r)

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def poll(self) -> int | None:
        return self._proc.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self._proc.wait(timeout)

    def send_signal(self, signum: int) -> None:
        self._proc.send_signal(signum)

    def kill(self) -> None:
        self._proc.kill()

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        if not self._readers:

            def drain(name: str, f) -> None:
                with f:
                    self._texts[name] = f.read()

            self._readers = [
                threading.Thread(target=drain, args=(n, getattr(self, n)), daemon=True) for n in ("stdout", "stderr")
            ]
            for r in self._readers:
                r.start()
        self._proc.wait(timeout)
        for r in self._readers:
            r.join()
        return self._texts["stdout"], self._texts["stderr"]


def invoke(*args, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``memprobe ARGS`` in this process through click's CliRunner and the CLI's one door (its exit codes and
    one-line errors): for verbs that run no model. ``env`` is set for the call (COLUMNS and LINES are unset
    unless given, as :func:`run_cli` unsets them). Returns what :func:`run_cli` returns."""
    from click.testing import CliRunner

    from memprobe.cli.main import cli

    argv = [str(a) for a in args]
    runner = CliRunner(env={"COLUMNS": None, "LINES": None, **(env or {})})
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        result = runner.invoke(cli, argv, catch_exceptions=False)
    return subprocess.CompletedProcess(["memprobe", *argv], result.exit_code, result.stdout, result.stderr)


def mcp_session(calls):
    """Start `memprobe mcp`, run ``calls(session)`` in an MCP SDK client session over stdio, return what it returns."""
    import shutil

    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    cmd = MEMPROBE.split()
    params = StdioServerParameters(command=shutil.which(cmd[0]) or cmd[0], args=[*cmd[1:], "mcp"], env=dict(os.environ))

    async def main():
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await calls(session)

    return anyio.run(main)


def _share_files(src: Path, dst: Path) -> None:
    """Every file of ``src`` that ``dst`` lacks, linked there (copied across file systems) under a temporary name,
    then renamed: a reader of ``dst`` sees a whole file or none."""
    for folder, _, files in os.walk(src):
        there = dst / Path(folder).relative_to(src)
        for name in files:
            if name.endswith((".lock", ".tmp")) or (there / name).exists():
                continue
            there.mkdir(parents=True, exist_ok=True)
            tmp = there / f".{name}.{os.getpid()}.tmp"
            try:
                os.link(Path(folder) / name, tmp)
            except OSError:  # another file system
                shutil.copy2(Path(folder) / name, tmp)
            os.replace(tmp, there / name)


def _kernel_folders(cache: Path) -> list[Path]:
    """The folders of Inductor's compiled C++ kernels in compile cache ``cache`` (named by two characters of a hash)."""
    return [p for p in cache.iterdir() if len(p.name) == 2 and p.is_dir() and not p.is_symlink()] if cache.is_dir() else []


@pytest.fixture
def cold_graph_cache(tmp_path):
    """A compile cache (for TORCHINDUCTOR_CACHE_DIR) cold for every graph (no AOTAutograd entry, no FX graph of
    Inductor's, no record of memprobe's) that holds the C++ kernels of the session's cache, linked: a cold run there
    traces, partitions and generates code as on an empty cache, and g++ runs only for a kernel not compiled before
    (the same source and command line give the same binary). Afterwards the kernels compiled there join the session's
    cache. Inductor replaces a cached file by renaming it, never writes into one: the links change neither cache."""
    session, path = Path(os.environ["TORCHINDUCTOR_CACHE_DIR"]), tmp_path / "inductor"
    path.mkdir()
    for kernels in _kernel_folders(session):
        _share_files(kernels, path / kernels.name)
    yield path
    for kernels in _kernel_folders(path):
        _share_files(kernels, session / kernels.name)


def script_truth(script: Path, tmp_path: Path, *args: str) -> int:
    """What a test script counts autograd saving in its second step's forward, without memprobe (its ``--truth``)."""
    truth = tmp_path / "truth.json"
    subprocess.run([sys.executable, str(script), "--steps", "2", *args, "--truth", str(truth)], check=True, capture_output=True)
    return json.loads(truth.read_text())["saved_bytes"]


def python_over_this_environment(root: Path) -> Path:
    """A virtualenv (its own interpreter path, no pip) that sees this environment's packages, whether this is a
    virtualenv or a system-wide install: another Python for --a-python/--b-python that has torch."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(root), "platbase": str(root)}))
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "this-environment.pth").write_text("".join(f"{p}\n" for p in sorted(ours)))
    return root / "bin" / "python"


# what a run records that is an address of its process (a storage's data pointer, the identity of a tensor a block
# was given): it differs from process to process; everything else in a saved table must not
ADDRESS_FIELDS = ("runtime_storage_id", "input_id")


def saved_table(report: dict) -> list[dict]:
    """A report's saved table without its addresses: what two runs of one configuration must agree on."""
    return [{k: v for k, v in r.items() if k not in ADDRESS_FIELDS} for r in report["saved_tensors"]]


class Run:
    """What one ``memprobe VERB ... --out PATH`` wrote (``path``) and printed (``proc``)."""

    def __init__(self, path: Path, proc: subprocess.CompletedProcess):
        self.path = path
        self.proc = proc

    @functools.cached_property
    def report(self) -> dict:
        return json.loads((self.path / "report.json").read_text())


def pytest_collection_modifyitems(config, items):
    for item in items:
        if {"runs", "made", "lean"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
    # the slowest first: a lane on two workers then ends on short tests, not on one worker's long one
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


_CLI_SERVER = None  # the session's fork server (tests/cli_forkserver.py), as this process reaches it, if it runs models
_STARTED = None  # that server, in the process that started it: pytest-xdist's controller, or the one process
_READY_VAR = "MEMPROBE_TEST_SERVER_READY"  # the file that says the session's server is ready (its imports done)
_OFF_BY_SESSION = None  # "off", where the session said so itself (no server of its own)


def pytest_configure(config):
    """Before any worker starts: memprobe's compile cache named (TORCHINDUCTOR_CACHE_DIR) for every process of the
    session, and the session's fork server started (not awaited: its imports run while the workers start), by the
    process that outlives the workers. Named, the cache stays the same after something in a worker compiles
    (Inductor then sets the variable to its own default, which every command started later would inherit: another
    cache, cold on a fresh machine, and an environment the server refuses). A user's own cache is kept; so is a
    user's MEMPROBE_FORKSERVER (``off``: every probe and command a fresh interpreter). No server for a session
    whose ``-m`` leaves out the end-to-end lane (``make fast``), nor where it could not start: there the variable
    says ``off``, so that no command of the session forks from a developer's own running `memprobe serve` (which
    a command finds in the same cache directory): the suite runs as on a machine where none runs."""
    global _STARTED, _OFF_BY_SESSION
    from memprobe.capture.caches import compile_cache_env
    from memprobe.orchestrate.forkserver import SERVER_VAR, start_server

    os.environ.update(compile_cache_env())
    if os.environ.get("PYTEST_XDIST_WORKER") or SERVER_VAR in os.environ:
        return
    server = None
    if _may_select_e2e(config):
        server = start_server(_log_env(), server=[sys.executable, str(Path(__file__).parent / "cli_forkserver.py")], wait=False)
    if server is None:
        os.environ[SERVER_VAR] = _OFF_BY_SESSION = "off"
        return
    ready = Path(server.workdir) / "ready"
    os.environ.update({SERVER_VAR: server.path, _READY_VAR: str(ready)})
    threading.Thread(target=lambda: server.wait_ready() and ready.touch(), daemon=True).start()
    _STARTED = server


def pytest_unconfigure(config):
    global _STARTED, _OFF_BY_SESSION
    from memprobe.orchestrate.forkserver import SERVER_VAR

    if _OFF_BY_SESSION is not None:
        os.environ.pop(SERVER_VAR, None)
        _OFF_BY_SESSION = None
    if _STARTED is not None:
        for name in (SERVER_VAR, _READY_VAR):
            os.environ.pop(name, None)
        _STARTED.close()
        _STARTED = None


def _may_select_e2e(config) -> bool:
    """Whether the session's ``-m`` expression admits a test marked ``e2e`` (whatever its other markers are)."""
    from itertools import combinations

    from _pytest.mark.expression import Expression

    text = config.getoption("markexpr")
    if not text:
        return True
    expr = Expression.compile(text)
    others = sorted(set(re.findall(r"[A-Za-z_]\w*", text)) - {"and", "or", "not", "e2e"})
    return any(
        expr.evaluate(lambda name, on=on, **_: name == "e2e" or name in on)
        for n in range(len(others) + 1)
        for on in map(set, combinations(others, n))
    )


@pytest.fixture(scope="session", autouse=True)
def one_fork_server_per_session(request):
    """The CPU probes and the memprobe commands (:func:`run_cli`) of a session that runs models fork from one server,
    started by :func:`pytest_configure` (MEMPROBE_FORKSERVER, inherited by every memprobe the tests start): torch is
    imported once per session, not once per probe or command. A worker waits here until that server is ready; if
    it could not start, every probe and command is a fresh interpreter. A test that needs a fresh interpreter says
    so (``run_cli(..., fresh=True)``, or an environment of its own)."""
    global _CLI_SERVER
    from memprobe.orchestrate.forkserver import SERVER_VAR, ForkServer

    path = os.environ.get(SERVER_VAR, "off")
    if path == "off" or not any(item.get_closest_marker("e2e") for item in request.session.items):
        yield
        return
    ready = os.environ.get(_READY_VAR)
    if ready is not None:  # the session's own server: wait for its imports (it removes its directory if it fails)
        while not Path(ready).exists() and Path(ready).parent.is_dir():
            time.sleep(0.05)
        if not Path(ready).exists():
            os.environ.pop(SERVER_VAR)
            yield
            return
    _CLI_SERVER = ForkServer(path)
    try:
        yield
    finally:
        _CLI_SERVER = None


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory) -> Path:
    """A directory of the session that all its pytest-xdist workers see (what one makes, under a FileLock, the
    others use)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_session(done: Path, make) -> None:
    """``make()``, which writes the file ``done`` last, once per session: by whichever pytest-xdist worker asks first
    (the others wait for it, then find ``done``)."""
    with FileLock(f"{done}.lock"):
        if not done.is_file():
            make()


@pytest.fixture(scope="session")
def made(shared_dir):
    """``made(VERB, *ARGS)``: ``memprobe VERB ARGS --out DIR --quiet`` run once per session (whichever pytest-xdist
    worker asks first; the others wait for it and read what it wrote), cached by its arguments. Tests read what it
    wrote and never change it: a test that edits a run copies it first."""
    shared = shared_dir / "shared-runs"
    shared.mkdir(exist_ok=True)

    def get(verb: str, *args) -> Run:
        args = tuple(str(a) for a in args)
        key = hashlib.sha256(json.dumps([verb, *args]).encode()).hexdigest()[:16]
        out, record = shared / f"{verb}-{key}", shared / f"{verb}-{key}.proc.json"

        def make() -> None:
            cut = args.index("--") if "--" in args else len(args)  # a command after --: memprobe's flags before it
            proc = run_cli(verb, *args[:cut], "--out", out, "--quiet", *args[cut:])
            assert proc.returncode == 0, f"memprobe {verb} {' '.join(args)} failed:\n{proc.stderr[-3000:]}"
            record.write_text(json.dumps({"args": proc.args, "stdout": proc.stdout, "stderr": proc.stderr}))

        once_per_session(record, make)
        done = json.loads(record.read_text())
        return Run(out, subprocess.CompletedProcess(done["args"], 0, done["stdout"], done["stderr"]))

    return get


@pytest.fixture(scope="session")
def runs(made):
    """``runs(*FLAGS)``: ``memprobe run FLAGS`` once per session (:func:`made`)."""
    return lambda *flags: made("run", *flags)


LEGACY_ROWWISE = ("--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01", "--layers", "2")
TODAY_ROWWISE = ("--recipe", "rowwise", "--ac-policy", "torchtitan", "--layers", "2")
LEGACY_BF16 = ("--recipe", "bf16", *LEGACY_ROWWISE[2:])  # the same step in bf16
# the smallest probe that still compiles real graphs: for tests of behaviour, not of figures
TINY = ("--dim", "64", "--hidden", "128", "--seq", "32", "--layers", "1", "--device", "cpu")
# the tiny probe in bf16, its report printed (--json): a run several files read (``runs(*TINY_BF16_JSON)``)
TINY_BF16_JSON = ("--recipe", "bf16", *TINY, "--json")
# abs() of an FFN weight of the repro, by its op chain with the layer made `*` (as a diff item names it): which of
# w1, w2, w3 the 2025-01 list saves is the installed torch's partitioner's choice (torch 2.15 no longer saves w2's)
FFN_WEIGHT_ABS = re.compile(r"abs\(permute\(layers\.\*\.ffn\.(w[123])\.weight\)\)")


def ffn_weights_saved_as_abs(rows: list[dict]) -> set[str]:
    """The FFN weights (``w1``, ``w2``, ``w3``) whose abs() a run of the repro saves, from its saved table: every
    weight-derived row is one of them, and at least two are saved."""
    from memprobe.analysis.saved import layer_pattern

    chains = [layer_pattern(r["expr"]) for r in rows if r["kind"] == "weight-derived"]
    assert chains and all(FFN_WEIGHT_ABS.fullmatch(c) for c in chains), chains
    weights = {FFN_WEIGHT_ABS.fullmatch(c)[1] for c in chains}
    assert len(weights) >= 2, weights
    return weights


# an A/A bisect of the tiny probe (each side in its own process; an explicit --steps 3): what several files read
AA_BISECT = ("bisect", "bf16", "bf16", *TINY, "--steps", "3", "--min-delta", "1 TiB", "--json")

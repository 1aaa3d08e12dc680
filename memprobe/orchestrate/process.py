"""One probe, one process: run probes as child processes and read the run directories they write.

Two probes in one process share the allocator, Dynamo's caches and compiled code, Inductor's
in-memory caches, the RNG and process-wide torch settings, and their figures lie (side A's
parameters were still allocated while side B was measured). So every probe a verb needs (a
side of ``diff``, a trial of ``bisect``, a run of ``explain``, a probe of ``gate`` or
``budget``) runs in a fresh ``python -m memprobe.capture.child`` process; the verb's own
process only orchestrates: it streams the children's progress, turns a child's failure
(its exit code, or the signal that killed it) into that probe's one-line error, and reads
the run directories they wrote. It never imports torch for that.

A probe may carry its own environment: extra variables (an Inductor or allocator setting)
and another Python interpreter (another torch, torchao or torchtitan), see :class:`SideEnv`.

Scheduling (:func:`run_jobs`): one probe at a time by default; the next probe's process
starts and imports while the current one runs, and is released when it ends, so import time
is hidden without two probes ever running together. ``slots`` > 1 runs probes at once: on CUDA
from a pool that holds each GPU once per probe it may run at once (one GPU each on a machine with
several; several on one GPU when they fit: :mod:`memprobe.orchestrate.placement`), or one core
each on the CPU.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..capture.guard import on_signals
from ..capture.process_info import COMMAND_VAR, COMPILE_THREADS_VAR, GPU_PROBES_VAR, SIDE_ENV_VAR
from ..capture.protocol import END, ERROR, EXIT, INTERNAL, PROGRESS, READY, TRACEBACK
from ..config import ProbeConfig
from ..errors import (
    DEBUG,
    EXIT_CODES,
    ConfigError,
    InternalError,
    Interrupted,
    MemprobeError,
    OutOfMemory,
    RunDirError,
    RunFailed,
)
from ..progress import tail, waiting
from ..rundir.write import MARKER
from ..vocab import DeviceChoice, Recipe, RunStatus
from .forkserver import fork_probe, runs_on_cpu, server_env
from .placement import PeakRecords, Placement, peak_key, place, probe_need, query_gpus, recorded_peak
from .procfs import pipe_holders
from .resident import serve_by_default
from .script import script_command, script_ended, script_env

if TYPE_CHECKING:  # the record's types: imported once the probes run (finish.py, run_jobs' ``meanwhile``)
    from ..rundir import schema as S

Progress = Callable[[str], None]

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# how long the rest of a script's output is read once its own process has ended (what it left running may hold it)
STOP_READING_S = 5.0
# the characters of a script's last printed line said on the progress line
TAIL_CHARS = 160
STOPPED = "memprobe was interrupted (Ctrl-C or SIGTERM) and stopped the probe's process"


@dataclass(frozen=True)
class SideEnv:
    """What a probe's process runs with besides its configuration."""

    env: tuple[tuple[str, str], ...] = ()  # NAME=VALUE settings, in the order given
    python: str | None = None  # another interpreter (its own torch/torchao/torchtitan), or None for ours

    @property
    def empty(self) -> bool:
        return not self.env and self.python is None

    def to_dict(self) -> dict:
        return {"env": dict(self.env), "python": self.python}

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in self.env]
        if self.python:
            parts.append(f"python {self.python}")
        return " ".join(parts)


def parse_env(entries: tuple[str, ...] | list[str], flag: str) -> tuple[tuple[str, str], ...]:
    """``NAME=VALUE`` entries of ``--a-env``/``--b-env`` (repeatable); ConfigError on a malformed one."""
    out: dict[str, str] = {}
    for entry in entries:
        name, sep, value = entry.partition("=")
        if not sep or not _ENV_NAME.match(name):
            raise ConfigError(
                f"{flag} {entry!r}: expected NAME=VALUE with NAME made of letters, digits and _"
                " (e.g. PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)"
            )
        if "\0" in value:
            raise ConfigError(f"{flag} {name}: a value cannot hold a NUL character")
        out[name] = value
    return tuple(out.items())


def side_env(env_entries, python: str | None, label: str) -> SideEnv:
    """The environment of one side from its flags. The interpreter must exist here; what it can run is
    asked of it before any probe runs (:func:`check_environments`)."""
    env = parse_env(env_entries or (), f"--{label}-env")
    if python is not None:
        _check_interpreter(python, f"--{label}-python")
    return SideEnv(env, python)


def _check_interpreter(python: str, flag: str) -> None:
    path = Path(python)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise ConfigError(f"{flag} {python}: no such executable (give the path of a Python interpreter)")


def interpreter_side(python: str | None) -> SideEnv:
    """A verb's ``--python``: the interpreter its probes run with (None: this one). It must exist here; what it can
    run is asked of it before any probe runs. Kept as an absolute path, as that interpreter records itself."""
    if python is None:
        return SideEnv()
    _check_interpreter(python, "--python")
    return SideEnv((), os.path.abspath(python))


def recorded_side(report: S.Report, python: str | None, source: str) -> SideEnv:
    """The interpreter that checks edits of a recorded run: ``--python`` when given; this one when the run was recorded
    with it; else ConfigError, one line naming the interpreter the run was recorded with and its torch. A run directory
    may come from anyone: the interpreter it names runs only when the user names it."""
    from ..analysis.recorded import same_interpreter

    if python is not None:
        return interpreter_side(python)
    recorded = report.process.python if report.process else None
    if same_interpreter(recorded):
        return SideEnv()
    torch = report.versions.torch if report.versions else None
    at = f"{recorded} (torch {torch})" if torch else str(recorded)
    if Path(recorded).is_file():
        use = f"pass --python {recorded} to check them there"
    else:
        use = f"that interpreter is gone: pass --python PATH of one with torch {torch or 'as recorded'} to check them there"
    raise ConfigError(
        f"{source} was recorded with {at}, not with this interpreter ({sys.executable}): its edits are checked with the "
        f"torch that ran it; {use}, or --python {sys.executable} to check them with this one's"
    )


def probe_code_path() -> str:
    """A directory to put first on another interpreter's ``PYTHONPATH`` so that it imports this memprobe's own
    ``memprobe`` and ``repros`` (it needs no memprobe installed; the probe imports only the standard library,
    torch, and torchao/torchtitan where it uses them). A source checkout is given as it is, so that source lines
    in the reports name its real files; an installed memprobe (whose directory holds every other package of its
    environment, another torch among them) through a directory of links to those two packages alone, kept in the
    user's cache under a name fixed by their location."""
    import importlib.util

    package = Path(__file__).resolve().parents[1]
    root = package.parent
    if (root / "pyproject.toml").is_file() and (root / "repros" / "__init__.py").is_file():
        return str(root)
    repros = importlib.util.find_spec("repros")
    if repros is None or repros.origin is None:
        raise InternalError(f"memprobe's repros package cannot be found next to {package}")
    targets = {"memprobe": package, "repros": Path(repros.origin).resolve().parent}
    return str(linked_packages(targets, Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memprobe"))


def linked_packages(targets: dict[str, Path], cache: Path) -> Path:
    """A directory under ``cache`` holding one link per package (``{name: its directory}``) and nothing else,
    named by their locations: made once (atomically), found again by later runs."""
    import hashlib

    key = hashlib.sha1("\0".join(f"{n}={t}" for n, t in sorted(targets.items())).encode()).hexdigest()[:16]
    where = cache / "probe-code" / key
    if not all((where / name).resolve() == target for name, target in targets.items()):
        where.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=where.parent))
        for name, target in targets.items():
            (staging / name).symlink_to(target, target_is_directory=True)
        try:
            staging.rename(where)
        except OSError:  # made meanwhile by another memprobe: that one is the same
            shutil.rmtree(staging, ignore_errors=True)
    return where


def probe_process(python: str, module: str, args: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The command and environment that run ``python -m module args`` with this memprobe's code. This interpreter
    imports it as the orchestrating process did; another one finds it first on its path (``-P``: not the working
    directory's, which may hold another memprobe)."""
    if python == sys.executable:
        return [python, "-m", module, *args], env
    path = os.pathsep.join(p for p in (probe_code_path(), env.get("PYTHONPATH")) if p)
    return [python, "-P", "-m", module, *args], {**env, "PYTHONPATH": path}


def check_environments(jobs: list[ProbeJob], progress: Progress | None = None) -> None:
    """Ask each interpreter the probes run in whether it can run them, all before any probe runs: one short
    process per other interpreter (at once), which reports its versions and what it lacks (torch's APIs,
    torchao's float8 recipes, the CPU kernel's float8 scaling, torchtitan's SAC or Llama 3); this interpreter
    is asked what is installed, without importing it. A ConfigError names every side that cannot run, in one line.

    Skipped when every probe runs in this interpreter and needs the same: the first probe is then the check
    (nothing has run before it fails)."""

    groups = _by_interpreter(jobs)
    if len(groups) == 1 and all(j.side.python is None for j in jobs) and len({j.cfg.needs() for j in jobs}) == 1:
        return
    specs = {key: _env_spec(group) for key, group in groups.items()}
    groups = {key: group for key, group in groups.items() if (key, specs[key]) not in _checked}
    waiting(progress, "the probes' interpreters, asked what they can run")  # a process per other one, at once: seconds
    answers = _ask_environments(groups, specs)
    problems = []
    for key, group in groups.items():
        problem = _environment_problem(key[0], group, answers.get(key, "its environment check did not finish"), progress)
        if problem is not None:
            problems.append(problem)
    if problems:
        raise ConfigError(" | ".join(problems) + " (nothing was run)")
    _checked.update((key, specs[key]) for key in groups)


def _by_interpreter(jobs: list[ProbeJob]) -> dict[tuple, list[ProbeJob]]:
    """The probes by the interpreter and settings they run with: (its path, the side's environment variables)."""
    groups: dict[tuple, list[ProbeJob]] = {}
    for job in jobs:
        groups.setdefault((job.side.python or sys.executable, job.side.env), []).append(job)
    return groups


def _ask_environments(groups: dict[tuple, list[ProbeJob]], specs: dict[tuple, str]) -> dict[tuple, dict | str]:
    """Each interpreter's answer (by its key), all asked at once; a key is missing where the check did not finish."""
    answers: dict[tuple, dict | str] = {}

    def ask(key: tuple) -> None:
        answers[key] = _ask_environment(key, specs[key])

    threads = [threading.Thread(target=ask, args=(key,), daemon=True) for key in groups]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def _environment_problem(python: str, group: list[ProbeJob], answer: dict | str, progress: Progress | None) -> str | None:
    """Why the probes of ``group`` cannot run in ``python``, given its answer (None when they can: another
    interpreter's versions are then said through ``progress``)."""
    labels = ", ".join(j.label for j in group[:3]) + (", ..." if len(group) > 3 else "")
    if isinstance(answer, str):
        return f"[{labels}] {python} {answer}"
    if answer["unavailable"]:
        return f"[{labels}] {python}: " + "; ".join(answer["unavailable"].values())
    if progress is not None and python != sys.executable:
        v = answer["versions"]
        found = ", ".join(f"{k} {v[k]}" for k in ("torch", "torchao", "torchtitan") if v.get(k))
        progress(f"[{labels}] {python}: Python {answer['python']}, {found}")
    return None


def _env_spec(group: list[ProbeJob]) -> str:
    """What the probes of one interpreter need of it, as the environment check's argument (JSON)."""

    def float8(keep) -> list[str]:
        return sorted({j.cfg.recipe for j in group if keep(j)} - {Recipe.BF16})

    return json.dumps(
        {
            "needs": sorted(str(n) for n in set().union(*(j.cfg.needs() for j in group))),
            "recipes": float8(lambda j: True),
            "cpu_recipes": float8(lambda j: j.cfg.device != DeviceChoice.CUDA),
            "auto_recipes": float8(lambda j: j.cfg.device == DeviceChoice.AUTO),
            "cpu_fsdp": any(j.cfg.fsdp and j.cfg.device != DeviceChoice.CUDA for j in group),
            "cpu_fsdp_auto_only": not any(j.cfg.fsdp and j.cfg.device == DeviceChoice.CPU for j in group),
        }
    )


# a side's variables that change neither what its interpreter imports nor the devices it sees: the thread pools of
# OpenMP and the BLAS libraries, Inductor's, Dynamo's and torch's logging settings, the caching allocator's
# configuration. This interpreter with only these set is asked as itself, without a process of its own.
IMPORT_NEUTRAL_PREFIXES = (
    "OMP_",
    "KMP_",
    "GOMP_",
    "MKL_",
    "OPENBLAS_",
    "TORCHINDUCTOR_",
    "TORCHDYNAMO_",
    "TORCH_LOGS",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
)


def _ask_environment(key: tuple, spec: str) -> dict | str:
    """An interpreter's answer (its versions and what it lacks), or why it gave none, in words."""
    python, side_env_vars = key
    if python == sys.executable and all(name.startswith(IMPORT_NEUTRAL_PREFIXES) for name, _ in side_env_vars):
        # this interpreter: what is installed, without a process (the probe checks the APIs itself, first thing)
        from ..compat import not_installed

        return {"unavailable": not_installed(json.loads(spec)["needs"]), "versions": {}, "python": None}
    cmd, env = probe_process(python, "memprobe.compat.envcheck", [spec], {**os.environ, **dict(side_env_vars)})
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot run it ({type(e).__name__}: {e})"
    if proc.returncode != 0:
        if "-P" in proc.stderr and "nknown option" in proc.stderr:
            return "is older than Python 3.11: memprobe's probe code needs Python 3.11 or newer there"
        return f"cannot run memprobe's environment check ({_last_line(proc.stderr)})"
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"its environment check said nothing readable ({_last_line(proc.stdout + proc.stderr)})"


_checked: set[tuple] = set()  # (interpreter and settings, what was asked of it) found able, in this process


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def cuda_placement(probes: list[tuple[str, ProbeConfig, SideEnv]], want: int | None) -> Placement | None:
    """Where ``probes`` (label, configuration, side) run on CUDA, up to ``want`` at once (None: one per visible
    GPU); None when none of them runs on CUDA (``cuda``, or ``auto`` with a GPU visible)."""
    configs = [c for _, c, _ in probes]
    if not any(c.device in (DeviceChoice.CUDA, DeviceChoice.AUTO) for c in configs):
        return None
    gpus = query_gpus()
    if not gpus:
        if any(c.device == DeviceChoice.CUDA for c in configs):
            return Placement(1, None, "no GPU visible")  # the probe says so in its own words
        return None
    if any(c.nproc > 1 for c in configs):
        return Placement(1, None, "a probe of several ranks takes the GPUs itself")
    peaks = PeakRecords()
    needs = [probe_need(label, c, dict(side.env), side.python, peaks) for label, c, side in probes]
    return place(needs, want or len(gpus), gpus)


def slots_for(configs: list[ProbeConfig], jobs: int | None) -> tuple[int, list[str] | None]:
    """Probes at once, and their GPUs: one per visible GPU on CUDA (or ``jobs``, several on a GPU when they fit),
    else ``jobs`` (default 1)."""
    if jobs is not None and jobs < 1:
        raise ConfigError(f"--jobs must be at least 1 (got {jobs})")
    if any(c.nproc > 1 for c in configs):
        return 1, None  # a probe of several ranks takes the GPUs (or cores) itself
    placement = cuda_placement([(f"probe {i}", c, SideEnv()) for i, c in enumerate(configs)], want=jobs)
    if placement is not None:
        return placement.slots, placement.gpus
    return jobs or 1, None


@dataclass
class ProbeJob:
    """One probe to run in a fresh process."""

    label: str  # how progress and errors name it: "a", "b", "base", "trial 3 A", a gate probe's name
    cfg: ProbeConfig
    out: Path
    side: SideEnv = field(default_factory=SideEnv)
    analysis_only: bool = False
    measure: bool | None = None  # None: measure unless analysis-only


@dataclass(frozen=True)
class Seat:
    """Where a probe's process runs, and its share of the machine beside the probes running with it."""

    gpu: str | None = None  # its GPU (CUDA_VISIBLE_DEVICES); None: the CPU, or the GPUs the probe finds
    gpu_probes: int = 1  # the probes that may run on that GPU at once
    threads: int | None = None  # probes side by side on the CPU: its OpenMP threads (None: as it finds them)
    compile_threads: int | None = None  # probes compiling at once on GPUs: its Inductor compile workers

    def env(self) -> dict[str, str]:
        """The settings that give the probe its seat."""
        env = {}
        if self.gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = self.gpu
            env[GPU_PROBES_VAR] = str(self.gpu_probes)
        if self.compile_threads is not None and "TORCHINDUCTOR_COMPILE_THREADS" not in os.environ:
            env[COMPILE_THREADS_VAR] = str(self.compile_threads)  # probes compiling at once share the cores
        if self.threads is not None:
            # probes side by side on the CPU: one OpenMP team each would oversubscribe the cores,
            # and no pool of compile workers (the processes are the parallelism)
            env["OMP_NUM_THREADS"] = str(self.threads)
            env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        return env


class ChildProbe:
    """A probe's process: started (held until released, or at once), streamed, waited for."""

    def __init__(
        self,
        job: ProbeJob,
        *,
        progress: Progress,
        verbose: bool,
        hold: bool,
        seat: Seat = Seat(),
        lock: threading.Lock | None = None,
    ):
        gpu = seat.gpu
        self.job = job
        self.progress = progress
        self.verbose = verbose
        self.errors: list[tuple[str, str]] = []  # (kind, message): "error" | "internal"
        self.last_line = ""  # the last line it wrote that is not memprobe's
        self.ready = threading.Event()
        self.said_exit: int | None = None  # the exit code the probe said, its run directory complete
        self._told = threading.Event()  # it said its exit code, its stderr ended or its process did
        self.stopped_reading = False
        self.stopping = False  # memprobe stops it (interrupted itself)
        self._lock = lock or threading.Lock()
        python = job.side.python or sys.executable
        # a script's hooks say its run's end with it, a probe its exit code: what the script or model prints cannot
        self.token = secrets.token_hex(16)
        spec = {
            "config": job.cfg.to_dict(),
            "out": str(job.out),
            "analysis_only": job.analysis_only,
            "measure": job.measure,
            "verbose": verbose,
            "debug": DEBUG.on,  # the user's --debug: the probe sends its error's traceback
            "hold": hold,
            "token": self.token,  # said with its exit code (protocol.EXIT)
        }
        env = {
            **server_env(os.environ),  # as a fork server has it, started from this environment
            COMMAND_VAR: json.dumps(sys.argv),
            SIDE_ENV_VAR: json.dumps([k for k, _ in job.side.env]),
            **seat.env(),
        }
        env.update(dict(job.side.env))  # the side's own settings win
        self.gpu = gpu
        self.script = job.cfg.target.starts_own_interpreter
        self.ends: set[str] = set()  # where they said it (a rank's folder, or "")
        if self.script:  # the user's own script, its hooks first on its path
            cmd = script_command(job.cfg, job.side.python)
            env = script_env(job.cfg, job.out, env, probe_code_path(), verbose=verbose, token=self.token)
            forked = None
        else:
            args = ["--job", json.dumps(spec)]
            cmd, env = probe_process(python, "memprobe.capture.child", args, env)
            # a probe of this interpreter: a fork of the fork server when it takes it (orchestrate/forkserver.py; a
            # probe that may run on CUDA, only from a resident server)
            cuda = not runs_on_cpu(job.cfg, gpu)
            forked = None
            if job.side.python is None:
                serve_by_default(wait=not cuda)  # this user's memprobe serve, started once when none runs
                forked = fork_probe(args, env, hold=hold, verbose=verbose, cuda=cuda)
        try:
            self.proc = forked or subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE if hold else subprocess.DEVNULL,
                # the model's own prints never reach our stdout (it may carry --json); a script's are read, its last
                # line said on the progress line
                stdout=sys.stderr if verbose else _stdout_of(self.script),
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",  # another interpreter may print anything, bytes that are not UTF-8 too
                bufsize=1,
                env=env,
            )
        except OSError as e:
            raise ConfigError(f"[{job.label}] cannot start {python}: {e}") from None
        self._start_readers()

    def _start_readers(self) -> None:
        """A thread reading its stderr (memprobe's protocol), and one reading a script's stdout when it is piped."""
        label = self.job.label
        self._reader = threading.Thread(target=self._read, name=f"memprobe-{label}", daemon=True)
        self._reader.start()
        # its end is heard too where its stderr stays open (a process a script left running holds it)
        threading.Thread(target=self._await_process, name=f"memprobe-{label}-end", daemon=True).start()
        self._printed = None  # a script's stdout, read for its last line
        if self.script and not self.verbose:
            self._printed = threading.Thread(target=self._read_printed, name=f"memprobe-{label}-out", daemon=True)
            self._printed.start()

    def _read_printed(self) -> None:
        """What the script prints (its steps, its loss): the last line on the progress line, nothing kept."""
        for line in self.proc.stdout:
            if not self.stopped_reading and line.strip():
                with self._lock:
                    tail(self.progress, line.strip()[:TAIL_CHARS])

    def _read(self) -> None:
        try:
            self._read_lines()
        finally:
            self._told.set()

    def _await_process(self) -> None:
        self.proc.wait()
        self._told.set()

    def _read_lines(self) -> None:
        for line in self.proc.stderr:
            if self.stopped_reading:  # what a process the script left running says is not the script's
                continue
            line = line.rstrip("\n")
            if self._said_exit(line):
                continue
            if line == READY:
                self.ready.set()
            elif line.startswith(PROGRESS):
                with self._lock:
                    self.progress(f"[{self.job.label}] {line[len(PROGRESS) :]}")
            elif line.startswith(ERROR):
                self.errors.append(("error", line[len(ERROR) :]))
            elif line.startswith(INTERNAL):
                self.errors.append(("internal", line[len(INTERNAL) :]))
            elif line.startswith(TRACEBACK):
                with self._lock:
                    sys.stderr.write(f"[{self.job.label}] {line[len(TRACEBACK) :]}\n")
            elif line.startswith(END):
                token, _, where = line[len(END) :].partition(" ")
                if token == self.token:
                    self.ends.add(where)
            elif self.verbose:
                with self._lock:
                    sys.stderr.write(line + "\n")
            elif line.strip():
                self.last_line = line.strip()  # a script's own last words, for its failure's line
                if self.script:  # its logging, its progress bar: said as what it printed last
                    with self._lock:
                        tail(self.progress, self.last_line[:TAIL_CHARS])
        self.ready.set()

    def release(self) -> None:
        """Let a held child run."""
        if self.proc.stdin is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.write("go\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass

    def wait(self) -> S.Report:
        """The child's report, analysed here once it has ended (:func:`~.finish.finish_run`: what it recorded is
        finished whatever became of it), or the error that ended it (one line, with its exit code)."""
        from .finish import finish_run, mark_ended

        rc = self._exit_code()
        with self._lock:
            waiting(self.progress, f"[{self.job.label}] its run directory, read and analysed")
        if getattr(self.proc, "lost", None):
            self.errors.append(("error", self.proc.lost))
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        error = None if rc == 0 else self._error(rc)
        if self.script:
            error = script_ended(self.job.out, self.job.cfg, self.ends, self.last_line) or error
        try:
            report = finish_run(self.job.out, self.job.cfg)
        except InternalError as e:
            raise InternalError(f"[{self.job.label}] {e}") from None
        except MemprobeError:
            if error is None:
                raise
            raise error from None  # the child said why it recorded nothing readable
        if self.script:
            error = self._script_oom(error, report)
        if report.status == RunStatus.RUNNING:  # no end recorded: not the probe's own exit, whatever its code
            why = "the probe process exited without recording the run's end: something in it ended or replaced the process"
            mark_ended(self.job.out, RunStatus.FAILED, why)  # in its report too, not only in the error's line
            error = error or RunFailed(f"[{self.job.label}] {why} (os._exit, an exec); see {self.job.out}")
        if error is not None:
            raise error
        if report.status != RunStatus.COMPLETE:
            raise RunFailed(f"[{self.job.label}] the probe ended with status {str(report.status)!r}; see {self.job.out}")
        _record_peak(self.job, report)
        return report

    def _said_exit(self, line: str) -> bool:
        """Whether ``line`` is the probe's exit code said with its token (a verb's probe, never a user's script):
        what it says after it, while its process ends, is not the probe's."""
        if self.script or not line.startswith(EXIT):
            return False
        token, _, code = line[len(EXIT) :].partition(" ")
        if token != self.token or not code.lstrip("-").isdigit():
            return False
        self.said_exit, self.stopped_reading = int(code), True
        self._told.set()
        return True

    def _exit_code(self) -> int:
        """The probe's exit code, as soon as it says it (its run directory complete: its process's own end, a CUDA
        context's teardown, is not waited for; :meth:`ended` waits for it), else once its process has ended."""
        self._told.wait()  # it said its exit code, its stderr ended, or its process did
        if self.said_exit is not None and self.proc.poll() is None:
            return self.said_exit
        rc = self.proc.wait()
        self._stop_reading()
        return rc

    def ended(self) -> None:
        """Wait for the process itself to be gone (its GPU memory given back), once its exit code is known."""
        self.proc.wait()

    def _script_oom(self, error: MemprobeError | None, report: S.Report) -> MemprobeError | None:
        """A script's failure that its run recorded as out of memory: exit 4 (the script's own exit code is Python's
        1), in the line its hooks said (where, and the error's first sentences)."""
        if not isinstance(error, RunFailed) or report.status != RunStatus.OOM:
            return error
        return OutOfMemory(f"[{self.job.label}] {self.errors[-1][1]}" if self.errors else str(error))

    def _error(self, rc: int) -> MemprobeError:
        """What ended the child with ``rc``: the error it said, the signal that killed it, or its exit code."""
        from .finish import mark_ended, mark_killed

        label = self.job.label
        kind, message = self.errors[-1] if self.errors else (None, None)
        if kind == "internal":
            return InternalError(
                f"[{label}] internal error in the probe process: {message} (run again with --debug for the traceback)"
            )
        if message is not None and self.script and self.last_line and self.last_line not in message:
            message += f" (its last line on stderr: {self.last_line[:200]!r}; --verbose shows its output)"
        if message is not None:
            cls = EXIT_CODES.get(rc, RunFailed)
            return cls(f"[{label}] {message}", exit_code=rc if rc in EXIT_CODES else None)
        if rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else f"signal {-rc}"
            if self.stopping:  # memprobe itself stopped it (it was interrupted): marked so, not as killed
                mark_ended(self.job.out, RunStatus.INTERRUPTED, STOPPED)
            else:
                mark_killed(self.job.out, name)
            if -rc in (signal.SIGINT, signal.SIGTERM):
                return Interrupted(
                    f"[{label}] the probe process was stopped by {name}; what it recorded is in {self.job.out}",
                    exit_code=128 - rc,
                )
            oom = " (the kernel's out-of-memory killer sends it)" if -rc == signal.SIGKILL else ""
            return RunFailed(f"[{label}] the probe process was killed by {name}{oom}; partial run directory {self.job.out}")
        return RunFailed(f"[{label}] the probe process exited with {rc} without saying why; run with --verbose to see its output")

    def stop(self) -> None:
        """Ask the child to stop (SIGTERM: a probe marks its run interrupted), then make sure it is gone; a run it could
        not mark (a script, which Python's own SIGTERM ends at once) is marked interrupted here."""
        from .finish import mark_ended

        self.stopping = True
        if self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=5)
        mark_ended(self.job.out, RunStatus.INTERRUPTED, STOPPED)

    def _stop_reading(self) -> None:
        """Once the child has ended, the rest of its output: to its end, or a script's for a few seconds only (a
        process the script started and left running holds its stderr open: a helper such as tensorboard, a worker
        stuck in a lock; memprobe used to wait for each), naming the processes it left running."""
        self._reader.join(timeout=STOP_READING_S if self.script else None)
        if self._printed is not None:
            self._printed.join(timeout=STOP_READING_S)
        if not self._reader.is_alive() and not (self._printed is not None and self._printed.is_alive()):
            return
        self.stopped_reading = True
        pipes = [self.proc.stderr] + ([self.proc.stdout] if self._printed is not None else [])
        left = list(dict.fromkeys(p for pipe in pipes for p in pipe_holders(pipe.fileno())))
        if left:
            with self._lock:
                self.progress(
                    f"[{self.job.label}] the script left {len(left)} process(es) running that hold its output, "
                    f"which memprobe reads no more: {', '.join(left[:5])}" + (", ..." if len(left) > 5 else "")
                )


def _stdout_of(script: bool) -> int:
    """Where a probe's stdout goes (without --verbose): a script's to memprobe, which says its last line; a model's
    nowhere."""
    return subprocess.PIPE if script else subprocess.DEVNULL


def _record_peak(job: ProbeJob, report: S.Report) -> None:
    """A finished CUDA probe's peak, kept for the next time its configuration needs a place on a GPU."""
    peak = recorded_peak(report)
    if peak is not None:
        key = peak_key(job.cfg, dict(job.side.env), job.side.python)
        PeakRecords().put(key, peak, report.versions.device_name)


def run_jobs(
    jobs: list[ProbeJob],
    *,
    progress: Progress,
    verbose: bool = False,
    slots: int = 1,
    gpus: Sequence[str] | None = None,
    keep_going: bool = False,
    meanwhile: Sequence[str] = (),
) -> dict[str, S.Report | MemprobeError]:
    """Run each job in its own process; return ``{label: report}`` in job order.

    ``slots`` probes run at once (each on its own GPU from ``gpus`` when given, or with
    ``cpu_count // slots`` threads on the CPU); with one slot the next probe's process is
    started and held while the current one runs. Each probe's run directory is analysed as
    its process ends (while the next one runs). On the first failure the others are
    stopped and the failure is raised, unless ``keep_going`` (then the error stands in
    the result in place of the report).

    What finishes a run directory (finish.py: the analyses, the record's schema), and the modules named in
    ``meanwhile`` (what the verb reads after), are imported once the first probes are started, while they run: a
    served probe starts without waiting for them.
    """
    if not jobs:
        return {}
    labels = [j.label for j in jobs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"job labels must be unique: {labels}")
    for job in jobs:  # a fresh directory: none, or one a verb prepared for it (its marker only)
        if job.out.exists() and any(e.name != MARKER for e in job.out.iterdir()):
            raise RunDirError(f"{job.out} is not empty: a probe writes a fresh run directory")
    check_environments(jobs, progress)
    schedule = _Schedule(
        jobs, progress=progress, verbose=verbose, slots=slots, gpus=gpus, meanwhile=(f"{__package__}.finish", *meanwhile)
    )

    def terminated(signum, frame):
        raise Interrupted("terminated (SIGTERM); what the probes recorded is in their run directories", exit_code=128 + signum)

    try:
        with on_signals(terminated, signal.SIGTERM):  # SIGTERM to the orchestrator stops its probes and exits 143
            schedule.run(keep_going)
    except BaseException as e:
        schedule.stop_all()
        if isinstance(e, KeyboardInterrupt):
            raise Interrupted("interrupted; what the probes recorded is in their run directories") from None
        raise
    return {label: schedule.results[label] for label in labels}


class _Schedule:
    """The probes of one verb, started, held, released and waited for (see :func:`run_jobs`)."""

    def __init__(
        self,
        jobs: list[ProbeJob],
        *,
        progress: Progress,
        verbose: bool,
        slots: int,
        gpus: Sequence[str] | None,
        meanwhile: Sequence[str] = (),
    ):
        self.pending = list(jobs)
        self.progress, self.verbose, self.gpus = progress, verbose, gpus
        self.lock = threading.Lock()
        self.results: dict[str, S.Report | MemprobeError] = {}
        self.running: dict[str, ChildProbe] = {}
        self.held: ChildProbe | None = None
        self.free_gpus = list(gpus or [])  # a GPU appears once per probe it may hold at once
        self.slots = max(1, min(slots, len(jobs), len(self.free_gpus) if gpus else slots))
        share = max(1, (os.cpu_count() or 1) // self.slots)
        self.threads = share if self.slots > 1 and not gpus else None
        self.compile_threads = share if self.slots > 1 and gpus else None
        self.done = threading.Condition()
        self.finished: list[str] = []
        self.meanwhile = meanwhile  # modules imported once the first probes are started (then none)

    def run(self, keep_going: bool) -> None:
        while self.pending or self.running or self.held:
            self._fill()
            for name in self.meanwhile:
                importlib.import_module(name)
            self.meanwhile = ()
            with self.done:
                while not self.finished:
                    self.done.wait(0.5)
                label = self.finished.pop(0)
            child = self.running.pop(label)
            if child.gpu is not None:
                if self.pending or self.held:  # the next probe on its GPU starts once its memory is given back
                    child.ended()
                self.free_gpus.append(child.gpu)
            if isinstance(self.results[label], MemprobeError) and not keep_going:
                raise self.results[label]

    def _fill(self) -> None:
        """Start (or release the held) probes while slots are free; with one slot, hold the next one."""
        while len(self.running) < self.slots and (self.pending or self.held):
            if self.held is not None:
                child, self.held = self.held, None
                if child.gpu is not None:
                    self.free_gpus.remove(child.gpu)  # its GPU is free now: nothing runs (one slot)
                self._starting(child.job)
                child.release()
            else:
                job = self.pending.pop(0)
                self._starting(job)
                child = self._start(job, hold=False)
            self.running[child.job.label] = child
            threading.Thread(target=self._wait_for, args=(child,), daemon=True).start()
        # imports while the current probe runs; never a user's script, which cannot be held: started, it trains at
        # once (a script diff's sides ran side by side while the diff said "one after the other")
        if self.slots == 1 and self.held is None and self.pending and not self.pending[0].cfg.target.starts_own_interpreter:
            self.held = self._start(self.pending.pop(0), hold=True)

    def _starting(self, job: ProbeJob) -> None:
        """Said before a probe starts: until it speaks (its imports, a fork server's start), its start is what is
        waited on."""
        with self.lock:
            waiting(self.progress, f"[{job.label}] the probe process to start")

    def _start(self, job: ProbeJob, hold: bool) -> ChildProbe:
        # a held probe (one slot) imports beside the running one and is given the first GPU, which it takes
        # from the pool when it is released; it touches no GPU before
        gpus = self.gpus
        gpu = (gpus[0] if hold else self.free_gpus.pop(0)) if gpus else None
        seat = Seat(gpu, (gpus or []).count(gpu), self.threads, self.compile_threads)
        return ChildProbe(job, progress=self.progress, verbose=self.verbose, hold=hold, seat=seat, lock=self.lock)

    def _wait_for(self, child: ChildProbe) -> None:
        try:
            res: S.Report | MemprobeError = child.wait()
        except MemprobeError as e:
            res = e
        except Exception as e:  # reading the child's run directory failed: our bug, said as such
            res = InternalError(f"[{child.job.label}] reading its run directory: {type(e).__name__}: {e}")
        with self.done:
            self.results[child.job.label] = res
            self.finished.append(child.job.label)
            self.done.notify()

    def stop_all(self) -> None:
        for child in list(self.running.values()) + ([self.held] if self.held else []):
            child.stop()


def run_one(job: ProbeJob, *, progress: Progress, verbose: bool = False) -> S.Report | MemprobeError:
    """One probe in its own process; its report, or its error."""
    return run_jobs([job], progress=progress, verbose=verbose)[job.label]

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
is hidden without two probes ever running together. ``slots`` > 1 runs probes at once: one
GPU each (``CUDA_VISIBLE_DEVICES``) on a machine with several, or one core each on the CPU.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..capture.child import ERROR, INTERNAL, PROGRESS, READY
from ..capture.process_info import COMMAND_VAR, SIDE_ENV_VAR
from ..config import ProbeConfig
from ..errors import EXIT_CODES, ConfigError, InternalError, Interrupted, MemprobeError, RunDirError, RunFailed

Progress = Callable[[str], None]

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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
    """The environment of one side from its flags, checked (the interpreter is asked for memprobe)."""
    env = parse_env(env_entries or (), f"--{label}-env")
    if python is not None:
        check_interpreter(python, f"--{label}-python", dict(env))
    return SideEnv(env, python)


def _source_hint() -> str:
    """How to install this memprobe into another environment."""
    from .. import __version__

    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file():
        return f"-m pip install -e {root}"
    return f"-m pip install memprobe=={__version__}"


def check_interpreter(python: str, flag: str, env: dict[str, str] | None = None) -> dict:
    """Ask ``python`` which memprobe it has; ConfigError (one line) if none, or one that cannot read our runs."""
    from .. import SCHEMA_VERSION

    path = Path(python)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise ConfigError(f"{flag} {python}: no such executable (give the path of a Python interpreter)")
    # imported as the probe process will import them (the working directory first on sys.path, as with -m)
    code = (
        "import json, memprobe, platform; import torch; "
        "print(json.dumps([memprobe.__version__, memprobe.SCHEMA_VERSION, platform.python_version(), torch.__version__]))"
    )
    try:
        proc = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, errors="replace", timeout=120, env={**os.environ, **(env or {})}
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ConfigError(f"{flag} {python}: cannot run it ({type(e).__name__}: {e})") from None
    if proc.returncode != 0:
        if "No module named 'memprobe'" in proc.stderr:
            raise ConfigError(f"{flag} {python} has no memprobe: install it there with `{python} {_source_hint()}`")
        if "No module named 'torch'" in proc.stderr:
            raise ConfigError(
                f"{flag} {python} has no torch: install torch there, then memprobe with `{python} {_source_hint()}`"
            )
        raise ConfigError(
            f"{flag} {python} cannot import memprobe and torch ({_last_line(proc.stderr)}): "
            f"install memprobe there with `{python} {_source_hint()}`"
        )
    try:
        version, schema, py, torch_version = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError, TypeError):
        raise ConfigError(f"{flag} {python}: its memprobe did not say its version") from None
    if schema != SCHEMA_VERSION:
        raise ConfigError(
            f"{flag} {python} has memprobe {version}, which writes report schema {schema}; this one reads "
            f"{SCHEMA_VERSION}: install this memprobe there with `{python} {_source_hint()}`"
        )
    return {"memprobe": version, "python": py, "torch": torch_version}


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def visible_gpus() -> list[str]:
    """The GPUs a child may be given (CUDA_VISIBLE_DEVICES entries, or nvidia-smi's indices), without torch."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        ids = [d.strip() for d in listed.split(",") if d.strip()]
        out = []
        for d in ids:
            if d.startswith("-"):  # CUDA stops at the first invalid entry
                break
            out.append(d)
        return out
    try:
        proc = subprocess.run(
            ["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"], capture_output=True, text=True, timeout=20
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [ln.strip() for ln in proc.stdout.splitlines() if ln.strip().isdigit()] if proc.returncode == 0 else []


def gpus_for(configs: list[ProbeConfig]) -> list[str] | None:
    """The visible GPUs when any of these probes runs on CUDA (``cuda``, or ``auto`` with a GPU visible), else
    None (they run on the CPU). The GPUs are looked up once, however many probes ask."""
    if not any(c.device in ("cuda", "auto") for c in configs):
        return None
    gpus = visible_gpus()
    return gpus if gpus or any(c.device == "cuda" for c in configs) else None


def slots_for(configs: list[ProbeConfig], jobs: int | None) -> tuple[int, list[str] | None]:
    """Probes at once, and their GPUs: one per visible GPU on CUDA (at most ``jobs``), else ``jobs`` (default 1)."""
    if jobs is not None and jobs < 1:
        raise ConfigError(f"--jobs must be at least 1 (got {jobs})")
    if any(c.nproc > 1 for c in configs):
        return 1, None  # a probe of several ranks takes the GPUs (or cores) itself
    gpus = gpus_for(configs)
    if gpus is not None:
        return max(1, min(jobs or len(gpus), len(gpus))), (gpus or None)
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


class ChildProbe:
    """A probe's process: started (held until released, or at once), streamed, waited for."""

    def __init__(
        self,
        job: ProbeJob,
        *,
        progress: Progress,
        verbose: bool,
        hold: bool,
        gpu: str | None = None,
        threads: int | None = None,
        lock: threading.Lock | None = None,
    ):
        self.job = job
        self.progress = progress
        self.verbose = verbose
        self.errors: list[tuple[str, str]] = []  # (kind, message): "error" | "internal"
        self.ready = threading.Event()
        self._lock = lock or threading.Lock()
        python = job.side.python or sys.executable
        spec = {
            "config": job.cfg.to_dict(),
            "out": str(job.out),
            "analysis_only": job.analysis_only,
            "measure": job.measure,
            "verbose": verbose,
            "hold": hold,
        }
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            COMMAND_VAR: json.dumps(sys.argv),
            SIDE_ENV_VAR: json.dumps([k for k, _ in job.side.env]),
        }
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        if threads is not None:
            # probes side by side on the CPU: one OpenMP team each would oversubscribe the cores,
            # and no pool of compile workers (the processes are the parallelism)
            env["OMP_NUM_THREADS"] = str(threads)
            env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        env.update(dict(job.side.env))  # the side's own settings win
        self.gpu = gpu
        try:
            self.proc = subprocess.Popen(
                [python, "-m", "memprobe.capture.child", "--job", json.dumps(spec)],
                stdin=subprocess.PIPE if hold else subprocess.DEVNULL,
                # the model's own prints never reach our stdout (it may carry --json)
                stdout=sys.stderr if verbose else subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",  # another interpreter may print anything, bytes that are not UTF-8 too
                bufsize=1,
                env=env,
            )
        except OSError as e:
            raise ConfigError(f"[{job.label}] cannot start {python}: {e}") from None
        self._reader = threading.Thread(target=self._read, name=f"memprobe-{job.label}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            line = line.rstrip("\n")
            if line == READY:
                self.ready.set()
            elif line.startswith(PROGRESS):
                with self._lock:
                    self.progress(f"[{self.job.label}] {line[len(PROGRESS) :]}")
            elif line.startswith(ERROR):
                self.errors.append(("error", line[len(ERROR) :]))
            elif line.startswith(INTERNAL):
                self.errors.append(("internal", line[len(INTERNAL) :]))
            elif self.verbose:
                with self._lock:
                    sys.stderr.write(line + "\n")
        self.ready.set()

    def release(self) -> None:
        """Let a held child run."""
        if self.proc.stdin is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.write("go\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass

    def wait(self) -> dict:
        """The child's report, or the error that ended it (one line, with its exit code)."""
        from ..analysis.rundir import load_report

        rc = self.proc.wait()
        self._reader.join()
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        label = self.job.label
        if rc == 0:
            report = load_report(self.job.out)
            if report.get("status") != "complete":
                raise RunFailed(f"[{label}] the probe ended with status {report.get('status')!r}; see {self.job.out}")
            return report
        kind, message = self.errors[-1] if self.errors else (None, None)
        if kind == "internal":
            raise InternalError(
                f"[{label}] internal error in the probe process: {message} (run again with --debug --verbose for the traceback)"
            )
        if message is not None:
            cls = EXIT_CODES.get(rc, RunFailed)
            raise cls(f"[{label}] {message}", exit_code=rc if rc in EXIT_CODES else None)
        if rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else f"signal {-rc}"
            self._mark_killed(name)
            if -rc in (signal.SIGINT, signal.SIGTERM):
                raise Interrupted(
                    f"[{label}] the probe process was stopped by {name}; what it recorded is in {self.job.out}",
                    exit_code=128 - rc,
                )
            oom = " (the kernel's out-of-memory killer sends it)" if -rc == signal.SIGKILL else ""
            raise RunFailed(f"[{label}] the probe process was killed by {name}{oom}; partial run directory {self.job.out}")
        raise RunFailed(f"[{label}] the probe process exited with {rc} without saying why; run with --verbose to see its output")

    def _mark_killed(self, how: str) -> None:
        """A child killed by a signal could not mark its report: say so in it (status failed)."""
        from ..capture.rundir import atomic_write_json

        path = self.job.out / "report.json"
        try:
            report = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        if isinstance(report, dict) and report.get("status") == "running":
            report["status"] = "failed"
            report["error"] = f"the probe process was killed by {how}"
            atomic_write_json(path, report)

    def stop(self) -> None:
        """Ask the child to stop (SIGTERM: it marks its run interrupted), then make sure it is gone."""
        if self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=5)


def run_jobs(
    jobs: list[ProbeJob],
    *,
    progress: Progress,
    verbose: bool = False,
    slots: int = 1,
    gpus: list[str] | None = None,
    keep_going: bool = False,
) -> dict[str, dict | MemprobeError]:
    """Run each job in its own process; return ``{label: report}`` in job order.

    ``slots`` probes run at once (each on its own GPU from ``gpus`` when given, or with
    ``cpu_count // slots`` threads on the CPU); with one slot the next probe's process is
    started and held while the current one runs. On the first failure the others are
    stopped and the failure is raised, unless ``keep_going`` (then the error stands in
    the result in place of the report).
    """
    if not jobs:
        return {}
    labels = [j.label for j in jobs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"job labels must be unique: {labels}")
    for job in jobs:
        if job.out.exists() and any(job.out.iterdir()):
            raise RunDirError(f"{job.out} is not empty: a probe writes a fresh run directory")
    lock = threading.Lock()
    results: dict[str, dict | MemprobeError] = {}
    pending = list(jobs)
    running: dict[str, ChildProbe] = {}
    held: ChildProbe | None = None
    free_gpus = list(gpus or [])
    slots = max(1, min(slots, len(jobs), len(free_gpus) if gpus else slots))
    threads = max(1, (os.cpu_count() or 1) // slots) if slots > 1 and not gpus else None
    done = threading.Condition()
    finished: list[str] = []

    def waiter(child: ChildProbe) -> None:
        try:
            res: dict | MemprobeError = child.wait()
        except MemprobeError as e:
            res = e
        except Exception as e:  # reading the child's run directory failed: our bug, said as such
            res = InternalError(f"[{child.job.label}] reading its run directory: {type(e).__name__}: {e}")
        with done:
            results[child.job.label] = res
            finished.append(child.job.label)
            done.notify()

    def start(job: ProbeJob, hold: bool) -> ChildProbe:
        gpu = free_gpus.pop(0) if gpus else None
        return ChildProbe(job, progress=progress, verbose=verbose, hold=hold, gpu=gpu, threads=threads, lock=lock)

    previous = _raise_on_sigterm()
    try:
        while pending or running or held:
            while len(running) < slots and (pending or held):
                if held is not None:
                    child, held = held, None
                    child.release()
                else:
                    child = start(pending.pop(0), hold=False)
                running[child.job.label] = child
                threading.Thread(target=waiter, args=(child,), daemon=True).start()
            if slots == 1 and held is None and pending:
                held = start(pending.pop(0), hold=True)  # imports while the current probe runs
            with done:
                while not finished:
                    done.wait(0.5)
                label = finished.pop(0)
            child = running.pop(label)
            if child.gpu is not None:
                free_gpus.append(child.gpu)
            if isinstance(results[label], MemprobeError) and not keep_going:
                raise results[label]
    except BaseException as e:
        for child in list(running.values()) + ([held] if held else []):
            child.stop()
        if isinstance(e, KeyboardInterrupt):
            raise Interrupted("interrupted; what the probes recorded is in their run directories") from None
        raise
    finally:
        _restore(previous)
    return {label: results[label] for label in labels}


def _raise_on_sigterm():
    """SIGTERM to the orchestrator stops its probes (each marks its run interrupted) and exits 143."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum, frame):
        raise Interrupted("terminated (SIGTERM); what the probes recorded is in their run directories", exit_code=128 + signum)

    return signal.signal(signal.SIGTERM, handler)


def _restore(previous) -> None:
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def run_one(job: ProbeJob, *, progress: Progress, verbose: bool = False) -> dict:
    """One probe in its own process; its report, or its error."""
    return run_jobs([job], progress=progress, verbose=verbose)[job.label]

"""A run that runs out of memory or is stopped, and a model that tries to end, replace or deafen the process: the
documented exit code (a failure, or an interruption: 130 for Ctrl-C, 143 for SIGTERM), a one-line cause, and a run
directory marked as the run ended, never complete."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from conftest import TINY, run_cli, run_cli_signalled, start_cli


def _error_line(code: int, out: str, err: str, want: int = 2) -> str:
    assert code == want, (code, out[-500:], err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


def _one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return proc.stderr


TORCH_CPP_LOG = re.compile(r"^(ERROR|WARNING|INFO):\d{4}-\d\d-\d\d [\d:.]+ \d+:\d+ \S+:\d+\] ")


# -- out of memory, signals --------------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_out_of_memory_writes_a_partial_report(tmp_path, monkeypatch):
    """An OOM injected into the measured step's forward: exit 4, one line, a report marked oom."""

    import memprobe.capture.stack as common
    from memprobe.cli.main import cli

    calls = {"n": 0}
    real = common.loss_fn

    def failing_loss(out):
        calls["n"] += 1
        if calls["n"] == 3:  # steps 1 and 2 pass; the measured step 3 runs out of memory
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB (injected by the test)")
        return real(out)

    monkeypatch.setattr(common, "loss_fn", failing_loss)
    out = tmp_path / "oom"
    result = CliRunner().invoke(
        cli, ["run", "--recipe", "rowwise", "--ac-policy", "torchtitan-2025-01", "--steps", "3", "--out", str(out), "-q"]
    )
    assert result.exit_code == 4, (result.exit_code, result.output)
    # memprobe's one line; a CUDA build of torch on a machine without a GPU logs its own line from C++ first
    # ("ERROR:<date> <time> <pid>:<tid> DeviceProperties.cpp:56] gpuGetDeviceCount failed ...")
    err = "".join(line for line in result.stderr.splitlines(keepends=True) if not TORCH_CPP_LOG.match(line))
    assert err.count("\n") == 1 and "out of memory during forward" in err and str(out) in err
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "oom" and report["oom"] == {"phase": "forward", "step": 2}
    assert "OutOfMemoryError" in report["error"]
    # what was recorded before the failure is kept: graphs, output code, the simulated graph memory
    assert report["graphs"] and all((out / g["files"]["output_code"]).is_file() for g in report["graphs"])
    assert report["graph_memory"] and report["memory"]["partial"] is True
    # and the saved table of the last complete forward (step 2), with its findings
    assert report["saved_tensors"] and any(f["kind"] == "weight-derived-saved" for f in report["findings"])


@pytest.mark.e2e
def test_sigterm_leaves_a_consistent_run_dir(tmp_path):
    out = tmp_path / "term"
    # the tiny probe for many steps: long enough to be stopped mid-training once its graphs are recorded
    proc = start_cli("run", "--recipe", "bf16", *TINY, "--steps", "5000", "--out", out, "-q")
    deadline = time.time() + 300
    while time.time() < deadline:  # wait until the graphs are recorded, then stop it mid-training
        try:
            if json.loads((out / "report.json").read_text()).get("graphs"):
                break
        except (OSError, json.JSONDecodeError):
            pass
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err.count("\n") == 1 and "terminated (SIGTERM)" in err
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "interrupted" and report["finished_utc"]
    assert not list(out.rglob("*.tmp")), "no half-written files"


# -- the model's code cannot choose memprobe's exit code ---------------------------------------------------------------


MODELS = """
import atexit, os, sys, time
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.lin = nn.Linear(32, 32)
        self.mode = mode

    def forward(self, x):
        if self.mode == "sys-exit":
            sys.exit(0)
        if self.mode == "base-exception":
            raise Escape("out of the model")
        if self.mode == "swallow-ctrl-c":
            ready = os.environ["MEMPROBE_TEST_READY"]
            open(ready, "w").close()
            while not os.path.exists(ready + ".sent"):  # until the test has sent its signal: no clock
                try:
                    time.sleep(0.05)
                except KeyboardInterrupt:  # a library that swallows Ctrl-C
                    pass
        return x + self.lin(x)


class Escape(BaseException):
    pass


class Net(nn.Module):
    def __init__(self, mode=None):
        super().__init__()
        self.blocks = nn.ModuleList([Block(mode)])

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def build(device):
    mode = os.environ["MEMPROBE_TEST_MODE"]
    if mode == "os-exit":
        os._exit(0)
    if mode == "atexit":
        atexit.register(lambda: print("printed at exit by the model"))
    return Net(mode), torch.randn(2, 16, 32)
"""


def _model_run(
    tmp_path: Path, mode: str, *extra, wait_ready: int | None = None, source: str = MODELS
) -> tuple[subprocess.CompletedProcess, Path]:
    """`memprobe run` of the model ``source`` (MEMPROBE_TEST_MODE=``mode``); ``wait_ready``: the signal to send once it
    says it is ready (it touches MEMPROBE_TEST_READY, and waits for that path + ".sent")."""
    model = tmp_path / "models.py"
    model.write_text(source)
    out = tmp_path / "r"
    ready = tmp_path / "ready"
    env = {"MEMPROBE_TEST_MODE": mode, "MEMPROBE_TEST_READY": str(ready)}
    args = ["run", "--model", f"{model}:build", "--recipe", "bf16", "--device", "cpu", "--out", str(out), *extra]
    if wait_ready is None:
        return run_cli(*args, env=env), out
    return run_cli_signalled(*args, ready=ready, signum=wait_ready, env=env), out


@pytest.mark.e2e
@pytest.mark.parametrize(
    "mode, code, needle",
    [
        ("os-exit", 2, "the factory called os._exit(0)"),
        ("sys-exit", 3, "the model called sys.exit(0) during forward"),
        ("base-exception", 3, "the model raised Escape: out of the model during forward"),
    ],
)
def test_the_models_exit_is_a_failure_with_the_run_marked(tmp_path, mode, code, needle):
    proc, out = _model_run(tmp_path, mode, "--no-compile", "--json", "-q")
    assert proc.returncode == code and proc.stdout == "", (proc.returncode, proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    if code == 2:  # the model refused before it ran: no run directory is left (docs/errors.md)
        assert not out.exists()
    else:
        assert json.loads((out / "report.json").read_text())["status"] == "failed"


@pytest.mark.e2e
def test_a_ctrl_c_the_model_swallowed_still_interrupts(tmp_path):
    proc, out = _model_run(tmp_path, "swallow-ctrl-c", "--no-compile", "-q", wait_ready=signal.SIGINT)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and "interrupted (Ctrl-C)" in proc.stderr
    assert json.loads((out / "report.json").read_text())["status"] == "interrupted"


@pytest.mark.e2e
def test_sigterm_during_compilation_is_an_interruption(tmp_path):
    out = tmp_path / "r"
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")}  # cold: the compile takes seconds
    proc = start_cli("run", *TINY, "--recipe", "bf16", "--out", out, env=env)
    for line in proc.stderr:
        if "(compiling)" in line:
            break
    time.sleep(2.0)
    proc.send_signal(signal.SIGTERM)
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 143, err
    assert "terminated (SIGTERM)" in err and "BackendCompilerFailed" not in err and "run failed" not in err
    assert json.loads((out / "report.json").read_text())["status"] == "interrupted"


@pytest.mark.e2e
def test_the_models_atexit_print_never_follows_the_json(tmp_path):
    proc, out = _model_run(tmp_path, "atexit", "--no-compile", "--json", "-q")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["status"] == "complete"  # the whole of stdout is the document
    # memprobe run leaves without the interpreter's teardown (cli/main.py _leave): the model's atexit handler does not
    # run at all, so it cannot print after the document either
    assert "printed at exit by the model" not in proc.stdout


# -- the model cannot end, replace or deafen the run -------------------------------------------------------------------


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
        if MODE == "fork-worker-raises" and not os.path.exists(os.environ["MEMPROBE_TEST_READY"]):
            open(os.environ["MEMPROBE_TEST_READY"], "w").close()  # once: the first step's forward
            probe = os.getpid()
            if os.fork() == 0:  # a worker that raises instead of calling os._exit, once the probe has ended
                while os.getppid() == probe:
                    time.sleep(0.05)
                raise ValueError("the worker failed")
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


def _escape_run(tmp_path: Path, mode: str, signum: int | None = None) -> tuple[subprocess.CompletedProcess, dict | None]:
    """The run and its report.json (None where it left no run directory: a configuration refused, exit 2)."""
    extra = ("--no-compile", "-q") if signum is not None else ("--no-compile", "--json", "-q")
    proc, out = _model_run(tmp_path, mode, *extra, wait_ready=signum, source=ESCAPES)
    return proc, json.loads((out / "report.json").read_text()) if out.exists() else None


@pytest.mark.e2e
def test_a_worker_the_model_forks_records_nothing(tmp_path):
    """A forward that forks a worker which raises (instead of calling os._exit) after the probe has ended: the run is
    complete, and stays so; the worker's failure is said on stderr, never recorded (it rewrote report.json to failed
    and printed "the run failed" after memprobe had exited 0)."""
    proc, report = _escape_run(tmp_path, "fork-worker-raises")  # its output read to the end: the worker's too
    assert proc.returncode == 0 and json.loads(proc.stdout)["status"] == "complete", proc.stderr[-2000:]
    assert report["status"] == "complete" and "error" not in report
    assert "raised ValueError: the worker failed; it is not the probe: nothing of it is recorded" in proc.stderr
    assert "the run failed" not in proc.stderr and "memprobe: error" not in proc.stderr, proc.stderr


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
    assert report is None if code == 2 else report["status"] == "failed"  # refused at import: no run directory left


@pytest.mark.e2e
@pytest.mark.parametrize(
    "signum, code, said", [(signal.SIGINT, 130, "interrupted (Ctrl-C)"), (signal.SIGTERM, 143, "terminated")]
)
def test_signals_a_model_ignores_at_import_still_stop_the_run(tmp_path, signum, code, said):
    proc, report = _escape_run(tmp_path, "ignore-signals", signum)
    assert said in _one_line(proc, code) and report["status"] == "interrupted"

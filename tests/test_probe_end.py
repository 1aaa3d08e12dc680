"""A probe's end as its parent hears it: the exit code the probe says once its run directory is complete
(capture/protocol.EXIT) is its result, while its process is still ending (a CUDA context torn down at exit); a GPU
is given to the next probe only once the process that held it is gone."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from memprobe.orchestrate import process
from memprobe.rundir.load import load_report

TINY_RUN = Path(__file__).parent / "data" / "cpu" / "tiny-rowwise"

# A probe process that records a complete run (the committed tiny one), prints an exit line without its job's token (as
# a model might), says its exit code with it, then takes its time to end: up to a minute, or until the test stops it.
SLOW_TO_END = r"""
import os, shutil, sys, time
out, pids, token, said = sys.argv[1:5]
shutil.copytree(sys.argv[5], out, dirs_exist_ok=True)
with open(pids, "a") as f:
    f.write(f"{os.path.basename(out)} {os.getpid()}\n")
sys.stderr.write(f"memprobe: exit: {said}\n")  # what a model may print: not the probe's
sys.stderr.write(f"memprobe: exit: {token} 0\n")
sys.stderr.flush()
time.sleep(60)
sys.stderr.write("a warning while it ends\n")
"""

SPOOF = "0123456789abcdef0123456789abcdef 3"  # an exit line of another token


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.fixture
def slow_to_end(tmp_path, monkeypatch):
    """Probe processes that end a minute after saying their exit code; their pids, by their labels."""
    pids = tmp_path / "pids"
    pids.touch()

    def command(python, module, args, env):
        job = json.loads(args[1])
        return [sys.executable, "-c", SLOW_TO_END, job["out"], str(pids), job["token"], SPOOF, str(TINY_RUN)], env

    monkeypatch.setattr(process, "probe_process", command)

    def started() -> dict[str, int]:
        return {label: int(pid) for label, pid in (line.split() for line in pids.read_text().splitlines())}

    yield started
    for pid in started().values():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _jobs(tmp_path: Path, *labels: str) -> list[process.ProbeJob]:
    cfg = load_report(TINY_RUN).config.probe()
    side = process.SideEnv(python=sys.executable)  # a process of its own, not a fork: its command is the fake's
    return [process.ProbeJob(label, cfg, tmp_path / label, side) for label in labels]


def test_a_probe_that_said_its_exit_code_is_answered_before_its_process_ends(tmp_path, slow_to_end):
    reports = process.run_jobs(_jobs(tmp_path, "a"), progress=lambda msg: None)
    assert reports["a"].status == "complete"
    assert _alive(slow_to_end()["a"])  # the report came while the process was still ending


def test_a_gpu_goes_to_the_next_probe_only_once_the_last_ones_process_is_gone(tmp_path, slow_to_end, monkeypatch):
    """One slot on "GPU 0": the second probe's process is started (held) beside the first, and let run only once the
    first's process has ended (its GPU memory given back), not when it said its exit code."""
    first_gone = []
    real_ended = process.ChildProbe.ended

    def ended(self):
        os.kill(self.proc.pid, signal.SIGKILL)  # end it now rather than in a minute
        real_ended(self)
        first_gone.append(not _alive(self.proc.pid))

    monkeypatch.setattr(process.ChildProbe, "ended", ended)
    reports = process.run_jobs(_jobs(tmp_path, "p0", "p1"), progress=lambda msg: None, slots=1, gpus=["0"])
    assert [r.status for r in reports.values()] == ["complete", "complete"]
    assert first_gone == [True]  # waited for once: before p1 ran, never for the last probe
    assert _alive(slow_to_end()["p1"])

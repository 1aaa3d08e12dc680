"""CPU probes as forks of a process that imported torch once (memprobe.capture.forkserver): a forked probe measures
exactly what a fresh interpreter measures, a probe whose environment torch reads at import gets a fresh interpreter,
a verb's own server ends with the verb, and a server that answers badly or goes away is an error, never a hang."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import conftest
import pytest
from conftest import MEMPROBE, TINY, run_cli

from memprobe.analysis.diff import diff_reports
from memprobe.analysis.recorded import load_run
from memprobe.capture.caches import compile_cache_env
from memprobe.capture.forkserver import env_difference
from memprobe.orchestrate.forkserver import SERVER_VAR, fork_probe, start_server
from memprobe.orchestrate.process import ProbeJob, run_jobs
from memprobe.rundir.load import dump

needs_pidfd = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the fork server needs os.pidfd_open (Linux)")


def test_only_what_torch_cannot_have_read_at_import_may_differ():
    ours = {"OMP_NUM_THREADS": "2", "TORCHINDUCTOR_CACHE_DIR": "/a", "PWD": "/x", "HOME": "/root"}
    theirs = {**ours, "CUDA_VISIBLE_DEVICES": "0", "PWD": "/y", "MEMPROBE_COMMAND": "[]", "PYTEST_CURRENT_TEST": "t"}
    assert env_difference(ours, theirs) == []  # read when used, or by no library
    theirs.update(OMP_NUM_THREADS="1", TORCHINDUCTOR_CACHE_DIR="/b", PYTHONPATH="/p")
    theirs.pop("HOME")
    assert env_difference(ours, theirs) == ["HOME", "OMP_NUM_THREADS", "PYTHONPATH", "TORCHINDUCTOR_CACHE_DIR"]


def test_the_server_hashes_the_installed_sources_before_its_probes_fork(monkeypatch):
    """What a server of probes computes before it serves includes the hashes of torch's and Triton's sources that
    Inductor's cache keys use: a fork then looks them up instead of reading those packages' files again."""
    from torch._inductor import codecache
    from torch._inductor.runtime import triton_compat

    from memprobe.capture.forkserver import preload_probes

    for key in (codecache.torch_key, codecache.triton_key):
        key.clear()  # as in a process that has not compiled yet
    preload_probes()  # what the server does before it serves

    def hashed_again(*args, **kwargs):
        raise AssertionError("a source hash was computed again")

    monkeypatch.setattr(codecache, "build_code_hash", hashed_again)  # what torch_key() reads torch's files with
    monkeypatch.setattr(triton_compat, "triton_key", hashed_again)  # what triton_key() reads Triton's files with
    assert codecache.torch_key()
    assert (codecache.triton_key() is not None) == triton_compat.HAS_TRITON  # CI installs Triton ([torchtitan])


@needs_pidfd
def test_a_forked_probe_measures_exactly_what_memprobe_run_does(tmp_path, runs, monkeypatch):
    """A/A: `memprobe run` of the tiny probe in a fresh interpreter (its probe in the CLI's own process), the same
    command forked from the test session's server of commands (how the suite runs its commands: the session's
    `runs`), and the configuration as a probe forked from a fork server (the session's, or this process's own): zero
    difference in every saved value, every measured phase and every category alive at each peak."""
    if os.environ.get(SERVER_VAR) == "off":
        monkeypatch.delenv(SERVER_VAR)
    proc = run_cli("run", *TINY, "--out", tmp_path / "fresh", "--quiet", fresh=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    fresh = load_run(tmp_path / "fresh")
    forked_command = load_run(runs(*TINY).path)
    forked = run_jobs([ProbeJob("forked", fresh.config.probe(), tmp_path / "forked")], progress=lambda msg: None)["forked"]
    assert forked.process.forked_from is not None and fresh.process.forked_from is None
    assert (forked_command.process.forked_from is not None) == (conftest._CLI_SERVER is not None)
    for other in (forked_command, forked):
        assert other.saved_tensors and other.memory.phases
        d = dump(diff_reports(fresh, other))
        assert d["differences"] == 0 and d["totals"]["saved_bytes"]["delta"] == 0
        assert d["phases"]["comparable"] and set(d["phases"]["phases"]) == {"forward", "backward", "optimizer"}
        for figures in d["phases"]["phases"].values():
            assert all(f["delta"] == 0 for f in figures.values()), figures
        for key in ("phases", "at_end"):
            assert all(v["delta"] == 0 for cats in d["alive_at_peak"][key].values() for v in cats.values())


@needs_pidfd
@pytest.mark.e2e
@pytest.mark.slow
def test_a_verb_forks_from_a_server_of_its_own_and_a_setting_read_at_import_gets_a_fresh_interpreter(tmp_path):
    """Without MEMPROBE_FORKSERVER a diff starts its own server: side A is forked from it, and the server ends with
    the verb; side B sets OMP_NUM_THREADS, which torch reads at import, so it runs in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if k not in (SERVER_VAR, "COLUMNS", "LINES")}
    threads = os.environ.get("OMP_NUM_THREADS") or str(os.cpu_count())
    out = tmp_path / "d"
    cmd = ["diff", "bf16", "bf16", *TINY, "--no-compile", "--b-env", f"OMP_NUM_THREADS={threads}", "--out", str(out), "-q"]
    proc = subprocess.run(MEMPROBE.split() + cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    a, b = (json.loads((out / side / "report.json").read_text())["process"] for side in "ab")
    assert a["forked_from"] is not None and b["forked_from"] is None and b["env"] == {"OMP_NUM_THREADS": threads}
    with pytest.raises(ProcessLookupError):  # the verb's own server: it ended with the verb
        os.kill(a["forked_from"], 0)
    assert json.loads((out / "diff.json").read_text())["differences"] == 0


@needs_pidfd
@pytest.mark.e2e
def test_a_bad_request_is_refused_and_a_server_gone_is_a_failed_probe(tmp_path, monkeypatch):
    server = start_server()
    env = {**os.environ, **compile_cache_env(), "PYTHONUNBUFFERED": "1"}  # what a verb gives its probes
    assert server is not None
    try:
        for data, fds in ((b"run this\n", []), (b"[]\n", [0, 1, 2])):  # no descriptors, not JSON; not an object
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(server.path)
                socket.send_fds(conn, [data], fds)
                assert "refused" in json.loads(conn.makefile("rb").readline())
        # a program memprobe's server does not run (the test suite's server runs its commands too)
        refused = server.spawn(["run"], env, sys.executable, 0, 1, 2, program="memprobe")
        assert refused == "this fork server runs no program 'memprobe' (only probe)", refused
        monkeypatch.setenv(SERVER_VAR, server.path)
        bad = fork_probe(["--no-such-flag"], env, hold=False, verbose=False)
        assert bad is not None and bad.wait(timeout=60) == 2  # the child's usage error, told by the server
        spec = {"config": {"recipe": "bf16", "device": "cpu"}, "out": str(tmp_path / "r"), "hold": True}
        held = fork_probe(["--job", json.dumps(spec)], env, hold=True, verbose=False)
        assert held is not None
        assert held.stderr.readline().strip() == "memprobe: ready"
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        held.stdin.close()  # the held probe's turn never comes: it ends
        assert held.wait(timeout=60) == 3 and "its fork server ended before it did" in held.lost
    finally:
        server.close()
    assert not Path(server.path).exists()


def test_the_server_is_started_by_memprobe_only():
    proc = subprocess.run([sys.executable, "-m", "memprobe.capture.forkserver"], capture_output=True, text=True)
    assert proc.returncode == 2 and "started by memprobe" in proc.stderr

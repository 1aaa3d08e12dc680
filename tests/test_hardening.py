"""Bad input, out-of-memory, interrupts: a clear error, the documented exit code, nothing lost."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest
import torch
from conftest import MEMPROBE, TINY, invoke, start_cli

from memprobe.errors import ConfigError

TORCH_CPP_LOG = re.compile(r"^(ERROR|WARNING|INFO):\d{4}-\d\d-\d\d [\d:.]+ \d+:\d+ \S+:\d+\] ")


def test_float8_on_an_old_gpu_is_refused(monkeypatch):
    from memprobe.capture import build

    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (8, 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA A100-SXM4-80GB")
    with pytest.raises(
        ConfigError, match=r"compute capability 8.9 or newer; NVIDIA A100-SXM4-80GB is 8.0: use --recipe bf16 or --device cpu"
    ):
        build.check_float8_support("rowwise", torch.device("cuda", 0))
    build.check_float8_support("bf16", torch.device("cuda", 0))  # bf16 runs anywhere


@pytest.mark.parametrize(
    "files, needle",
    [
        ({"torchao/__init__.py": "raise ImportError('simulated: no torchao here')\n"}, "needs torchao>=0.9 with torchao.float8"),
        (
            {
                "torchao/__init__.py": "__version__ = '0.5.0'\n",
                "torchao/float8/__init__.py": "Float8LinearConfig = convert_to_float8_training = None\n",
            },
            "torchao 0.5.0 has no float8 recipe lookup",
        ),
    ],
    ids=["missing", "too-old"],
)
def test_torchao_missing_or_too_old(tmp_path, files, needle):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        MEMPROBE.split() + ["run", "--recipe", "rowwise", "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and "Traceback" not in proc.stderr


def test_corrupt_and_empty_run_dirs(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "report.json").write_text('{"schema_version": 1, "config": ')
    proc = invoke("diff", bad, bad)
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr and proc.stderr.count("\n") == 1
    missing = tmp_path / "missing"
    proc = invoke("gate", "--budget", tmp_path / "none.toml", "--from", missing)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


@pytest.mark.e2e
def test_out_of_memory_writes_a_partial_report(tmp_path, monkeypatch):
    """An OOM injected into the measured step's forward: exit 4, one line, a report marked oom."""
    from click.testing import CliRunner

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

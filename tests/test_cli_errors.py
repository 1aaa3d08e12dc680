"""Bad input: one line on stderr, exit 2, no traceback, nothing run."""

from __future__ import annotations

import pytest
from conftest import invoke


@pytest.mark.parametrize(
    "args, needle",
    [
        (["run", "--recipe", "fp4"], "'fp4' is not one of"),
        (["run", "--ac-policy", "nope"], "'nope' is not one of"),
        (["run", "--save-op", "aten.no_such_op"], "unknown op 'aten.no_such_op'"),
        (["run", "--recompute-op", "not an op!"], "invalid op name"),
        (["run", "--dim", "500"], "multiples of 16"),
        (["run", "--recipe", "tensorwise", "--batch", "1", "--seq", "15"], "multiples of 16"),
        (["run", "--layers", "0"], "--layers must be at least 1"),
        (["run", "--steps", "1"], "--steps must be at least 2"),
        (["run", "--save-op", "aten.abs", "--recompute-op", "aten.abs"], "both saved and recomputed"),
        (["run", "--no-such-flag"], "No such option"),
    ],
)
def test_bad_values_exit_2_with_one_line(args, needle, tmp_path):
    proc = invoke(*args, "--out", tmp_path / "never")
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("memprobe: error: ")
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "never").exists()


def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    proc = invoke("run", "--device", "cuda", "--out", tmp_path / "c")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no CUDA device" in proc.stderr


def test_help_documents_every_flag():
    proc = invoke("run", "--help")
    assert proc.returncode == 0
    for flag in (
        "--recipe",
        "--dim",
        "--hidden",
        "--layers",
        "--batch",
        "--seq",
        "--seed",
        "--ac ",
        "--ac-policy",
        "--save-op",
        "--recompute-op",
        "--compile / --no-compile",
        "--fsdp / --no-fsdp",
        "--reshard-after-forward / --no-reshard-after-forward",
        "--device",
        "--steps",
        "--out",
        "--force",
        "--json",
        "--quiet",
        "--verbose",
        "--debug",
    ):
        assert flag in proc.stdout, flag


def test_policies_lists_every_policy_with_its_ops():
    proc = invoke("policies", "--json")
    assert proc.returncode == 0
    import json

    pol = json.loads(proc.stdout)
    assert set(pol) == {"torchtitan", "torchtitan-2025-01", "torchtitan-installed", "save-all", "recompute-all"}
    assert "aten.abs.default" in pol["torchtitan-2025-01"]["save_ops"]
    assert "aten.abs.default" not in pol["torchtitan"]["save_ops"]
    assert "aten.max.default" in pol["torchtitan"]["save_ops"]
    text = invoke("policies").stdout
    assert "torchtitan-2025-01" in text and "aten.abs.default" in text

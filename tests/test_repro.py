"""repros/ffn.py runs on its own (no memprobe capture), as a user would minimise by hand."""

from __future__ import annotations

import subprocess
import sys

import pytest

import repros.common as common
import repros.ffn as ffn


def test_builders_compose_in_torchtitan_order():
    import torch

    model = ffn.build_model(32, 64, 3, seed=1)
    assert [n for n, _ in model.named_parameters()] == [
        f"layers.{i}.ffn.{w}.weight" for i in range(3) for w in ("w1", "w2", "w3")
    ]
    common.apply_float8(model, "rowwise")
    from torchao.float8.float8_linear import Float8Linear

    assert all(isinstance(block.ffn.w1, Float8Linear) for block in model.layers.values())
    common.apply_ac(model.layers, "full")
    assert all(type(b).__name__ == "CheckpointWrapper" for b in model.layers.values())
    x = torch.randn(2, 16, 32)
    assert model(x).shape == x.shape


@pytest.mark.e2e
def test_standalone_eager_run_reports_saved_bytes():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "repros.ffn",
            "--recipe",
            "bf16",
            "--no-compile",
            "--no-fsdp",
            "--layers",
            "1",
            "--dim",
            "64",
            "--hidden",
            "128",
            "--seq",
            "32",
            "--steps",
            "2",
            "--device",
            "cpu",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("step ")]
    assert len(lines) == 2 and all("saved for backward" in line for line in lines)

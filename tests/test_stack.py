"""The training stack a probe applies (memprobe/capture/stack.py) in torchtitan's order, the repros as plain PyTorch
models, and the same training without memprobe's recording (python -m memprobe.capture.bare)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import repros.ffn as ffn
from memprobe.capture import stack

ROOT = Path(__file__).resolve().parent.parent


def test_builders_compose_in_torchtitan_order():
    import torch
    from torchao.float8.float8_linear import Float8Linear

    model = ffn.build_model(32, 64, 3, seed=1)
    assert [n for n, _ in model.named_parameters()] == [
        f"layers.{i}.ffn.{w}.weight" for i in range(3) for w in ("w1", "w2", "w3")
    ]
    assert stack.apply_float8(model, "rowwise", "cpu") == []
    assert all(isinstance(block.ffn.w1, Float8Linear) for block in model.layers.values())
    stack.apply_ac(model.layers, "full")
    assert all(type(b).__name__ == "CheckpointWrapper" for b in model.layers.values())
    x = torch.randn(2, 16, 32)
    assert model(x).shape == x.shape


def test_a_vocabulary_builds_torchtitans_llama3_whole_with_its_output_left_in_bf16():
    """`--repro transformer --vocab V`: the token embedding, the blocks, the final norm and the output projection
    named as torchtitan names them, fed token ids; its parameters as the family counts them; the float8 recipe
    converts every linear of the blocks and leaves `output` in bf16 (torchtitan's filter_fqns)."""
    import torch
    from torchao.float8.float8_linear import Float8Linear

    from memprobe.config import ProbeConfig

    cfg = ProbeConfig(repro="transformer", dim=64, hidden=128, heads=4, kv_heads=2, vocab=1024, seq=32, layers=2)
    built = cfg.target.build("cpu", 0, "rowwise")
    names = [n for n, _ in built.model.named_parameters()]
    assert names[0] == "tok_embeddings.weight" and names[-2:] == ["norm.weight", "output.weight"]
    assert sum(p.numel() for p in built.model.parameters()) == cfg.target.parameter_count()
    (tokens,) = built.batch
    assert tokens.dtype == torch.int64 and tokens.shape == (2, 32) and int(tokens.max()) < 1024
    assert built.float8_skip == ("output",)
    stack.apply_float8(built.model, "rowwise", "cpu", skip=built.float8_skip)
    assert type(built.model.output) is torch.nn.Linear
    assert all(
        isinstance(b.feed_forward.w1, Float8Linear) and isinstance(b.attention.wq, Float8Linear) for b in built.blocks.values()
    )
    assert built.model(tokens).shape == (2, 32, 1024)  # the logits


def test_the_repros_import_nothing_but_torch():
    for path in (ROOT / "repros").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if not node.level else []
            assert all(n.split(".")[0] in ("torch", "math", "__future__") for n in names), (path.name, names)


@pytest.mark.e2e
def test_the_bare_run_trains_without_recording_and_reports_saved_bytes():
    flags = ["--recipe", "bf16", "--no-compile", "--no-fsdp", "--ac", "none", "--layers", "1", "--dim", "64", "--hidden", "128"]
    proc = subprocess.run(
        [sys.executable, "-m", "memprobe.capture.bare", *flags, "--seq", "32", "--steps", "2", "--device", "cpu"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("step ")]
    assert len(lines) == 2 and all("saved for backward" in line and "MiB" in line for line in lines)


def test_the_bare_run_refuses_a_bad_configuration_in_one_line():
    proc = subprocess.run(
        [sys.executable, "-m", "memprobe.capture.bare", "--recipe", "rowwise", "--dim", "100"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "multiples of 16" in proc.stderr, proc.stderr

"""--repro moe (memprobe/targets/moe.py, repros/moe.py): a mixture of experts whose experts are 3-D weights run by
grouped GEMMs, as a model family registered in memprobe/targets; its float8 coverage counts the experts."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

from memprobe.config import ProbeConfig
from memprobe.errors import ConfigError

DIMS = ("--repro", "moe", "--dim", "64", "--hidden", "128", "--experts", "4", "--seq", "32", "--layers", "2")


def test_the_family_counts_its_parameters_as_the_model_it_builds_has():
    import repros.moe as moe

    cfg = ProbeConfig(repro="moe", dim=64, hidden=128, experts=4, top_k=2, layers=2)
    model = moe.build_model(64, 128, 2, experts=4, top_k=2)
    assert cfg.target.parameter_count() == sum(p.numel() for p in model.parameters())
    assert cfg.summary().split("  ")[1] == "moe dim=64 hidden=128 experts=4 top_k=2 layers=2 batch=2 seq=256"
    with pytest.raises(ConfigError, match="--top-k 5 is more than --experts 4"):
        ProbeConfig(repro="moe", experts=4, top_k=5)
    assert not hasattr(ProbeConfig(repro="ffn").target, "experts")  # the family's own field


@pytest.mark.e2e
def test_a_mixture_of_experts_run_counts_its_experts_and_names_its_router(tmp_path):
    """The experts' two 3-D weights and the router's raw weight count in the float8 coverage (their parameters, read
    off the model repros/moe.py builds), so the coverage finding fires on the CPU, where the experts stay bf16 (said
    in a note); the router's saved matmul is named by its module and line."""
    import repros.moe as moe

    proc = run_cli(
        "run",
        *DIMS,
        "--recipe",
        "rowwise",
        "--ac-policy",
        "torchtitan-2025-01",
        "--device",
        "cpu",
        "--analysis-only",
        "--out",
        tmp_path / "r",
        "--json",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    model = moe.build_model(64, 128, 2, experts=4)
    weights = [p for n, p in model.named_parameters() if p.dim() in (2, 3)]
    f8 = report["float8"]
    assert f8["block_linear_parameters"] == sum(p.numel() for p in weights) and f8["block_converted_parameters"] == 0
    assert {x["skipped"] for x in f8["linears"]} == {"grouped-experts", "not-linear"}
    assert report["findings"][0]["kind"] == "float8-coverage"
    assert any("the experts (layers.*.moe.experts) stay bf16" in n for n in report["notes"])
    router = [r for r in report["saved_tensors"] if r["user"]["module"] == f"{r['block']}.moe.router"]
    assert router and all(r["user"]["source"].startswith("repros/moe.py:") for r in router)
    assert report["saved_totals"]["agree"]


def test_a_transformers_experts_module_gets_its_tokens_in_blocks_of_16():
    """Float8 experts of a transformers MoE: every expert's token group a multiple of 16, each token's top-k experts
    distinct, the layer's output shape unchanged (torchao's grouped GEMM needs the groups padded; transformers does
    not pad them)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock

    from memprobe.capture.stack import ROUTE_BLOCK, _route_in_blocks

    config = transformers.MixtralConfig(hidden_size=32, intermediate_size=64, num_local_experts=4, num_experts_per_tok=2)
    block = MixtralSparseMoeBlock(config)
    assert _route_in_blocks(block.experts)
    seen = {}
    block.experts.register_forward_pre_hook(
        lambda _m, args, kwargs: seen.update(index=kwargs.get("top_k_index", args[1] if len(args) > 1 else None)),
        with_kwargs=True,
    )
    out = block(torch.randn(2, 48, 32))
    groups = torch.bincount(seen["index"].flatten(), minlength=4)
    assert out.shape == (2, 48, 32) and groups.sum() == 2 * 48 * 2
    assert all(int(g) % ROUTE_BLOCK == 0 for g in groups) and (seen["index"][:, 0] != seen["index"][:, 1]).all()

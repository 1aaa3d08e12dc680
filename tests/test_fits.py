"""Whether a probe's model can train here at all (memprobe/capture/fits.py): its parameters' bytes as they will train,
counted on the model its family builds on the meta device before anything real is built (on the built model where
the meta device cannot build it), against what is free; the refusal says what it needs and how many blocks fit."""

from __future__ import annotations

import pytest
import torch
from conftest import run_cli

from memprobe.capture import fits
from memprobe.capture.fits import (
    STATE_COPIES,
    ModelBytes,
    Plan,
    check_built,
    check_planned,
    model_bytes,
    planned_bytes,
    shard_numel,
    too_big,
    training_bytes,
)
from memprobe.config import ProbeConfig
from memprobe.errors import ConfigError

CPU = torch.device("cpu")


class Tower(torch.nn.Module):
    """An embedding and an output projection (the rest) around a stack of blocks, float32."""

    def __init__(self, blocks: int, dim: int = 64, vocab: int = 1000):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.layers = torch.nn.ModuleList(torch.nn.Linear(dim, dim, bias=False) for _ in range(blocks))
        self.out = torch.nn.Linear(dim, vocab, bias=False)


def test_a_models_bytes_are_its_parameters_its_blocks_and_its_largest():
    model = Tower(blocks=4)
    sizes = model_bytes(model, model.layers)
    assert sizes == ModelBytes(
        parameters=4 * (2 * 1000 * 64 + 4 * 64 * 64), blocks=4 * 4 * 64 * 64, block_count=4, largest=4 * 1000 * 64
    )


def test_a_model_built_on_the_meta_device_is_counted_as_it_will_train():
    with torch.device("meta"):
        model = Tower(blocks=4)
    real = Tower(blocks=4)
    whole = model_bytes(real, real.layers)
    # without FSDP the model is cast to bf16; it is built whole in fp32 either way
    assert planned_bytes(model, model.layers, None) == Plan(
        trained=ModelBytes(whole.parameters // 2, whole.blocks // 2, 4, whole.largest // 2), built=whole
    )
    # FSDP2 over one rank keeps the fp32 parameters whole; over 3, rank 0 holds the first of dim 0's chunks
    assert planned_bytes(model, model.layers, (0, 1)).trained == whole
    thirds = [planned_bytes(model, model.layers, (rank, 3)).trained for rank in range(3)]
    assert thirds[0].parameters == 4 * (2 * 334 * 64 + 4 * 22 * 64) and thirds[0].largest == 4 * 334 * 64
    assert sum(t.parameters for t in thirds) == whole.parameters


@pytest.mark.parametrize("rows, world", [(10, 4), (2, 4), (7, 1), (0, 3), (12, 5)])
def test_a_shard_is_the_chunk_fsdp2_gives_each_rank(rows, world):
    chunks = list(torch.chunk(torch.empty(rows, 3, device="meta"), world, dim=0)) if rows else []
    chunks += [torch.empty(0, 3, device="meta")] * (world - len(chunks))  # FSDP2 gives the last ranks empty ones
    assert [shard_numel((rows, 3), rank, world) for rank in range(world)] == [c.numel() for c in chunks]


def test_a_model_that_fits_is_let_through_at_the_byte():
    sizes = model_bytes(Tower(blocks=4), Tower(blocks=4).layers)
    need = training_bytes(sizes)
    assert need == (1 + STATE_COPIES) * sizes.parameters + sizes.largest  # and the update's temporary of the largest
    assert too_big(Plan(sizes, built=sizes), need, has_layers=True) is None
    assert too_big(Plan(sizes, built=sizes), need - 1, has_layers=True) is not None


def test_a_model_too_big_is_refused_with_the_blocks_that_fit():
    model = Tower(blocks=8)
    sizes = model_bytes(model, model.layers)
    per_block, rest, largest = 4 * 64 * 64, 4 * 2 * 1000 * 64, 4 * 1000 * 64
    # room for training the rest and exactly 3 blocks, and for the update's temporary of the largest parameter
    free = (1 + STATE_COPIES) * (rest + 3 * per_block) + largest
    why = too_big(Plan(sizes), free, has_layers=True)
    assert why is not None and why.endswith("--layers 3 would fit at the least (a smaller flavor too)"), why
    assert "training them needs" in why and "AdamW's two moments and its update's temporary" in why
    assert too_big(Plan(sizes), free + (1 + STATE_COPIES) * per_block, has_layers=True).endswith(
        "--layers 4 would fit at the least (a smaller flavor too)"
    )
    # too little for the rest of the model alone, and a family without --layers
    assert "even one block does not fit" in too_big(Plan(sizes), 0, has_layers=True)
    assert too_big(Plan(sizes), 0, has_layers=False).endswith(": build a smaller model")


def test_a_model_too_big_to_build_whole_is_refused_though_its_shard_would_train():
    """Rank 0 of 64 trains 1/64 of the parameters, but the model is built whole in fp32 before FSDP shards it."""
    with torch.device("meta"):
        model = Tower(blocks=8)
    plan = planned_bytes(model, model.layers, (0, 64))
    built = plan.built
    free = built.rest + 5 * built.blocks // 8  # the whole rest and 5 blocks
    assert training_bytes(plan.trained) < free
    why = too_big(plan, free, has_layers=True)
    assert why.startswith("the model is built whole in fp32 before FSDP shards it: its parameters take"), why
    assert why.endswith("--layers 5 would fit at the least (a smaller flavor too)"), why


def test_the_check_counts_the_family_s_model_before_it_is_built(monkeypatch):
    """The default repro (2 blocks of 12 MiB in fp32, no FSDP: 6 MiB each in bf16) against 40 MiB free: refused,
    counted on the meta device; nothing is built."""
    monkeypatch.setattr(fits, "available_bytes", lambda device: 40 * 2**20)
    with pytest.raises(ConfigError) as refused:
        check_planned(ProbeConfig(fsdp=False), CPU)
    assert str(refused.value) == (
        "this probe cannot train on this cpu: the model's parameters take 12.00 MiB here, and training them needs "
        "38.00 MiB more for their gradients, AdamW's two moments and its update's temporary (50.00 MiB in all, "
        "activations on top), but 40.00 MiB is free; --layers 1 would fit at the least (a smaller flavor too)"
    )
    monkeypatch.setattr(fits, "available_bytes", lambda device: 50 * 2**20)
    assert check_planned(ProbeConfig(fsdp=False), CPU) is True  # at the byte


def test_ranks_on_one_host_share_its_memory(monkeypatch):
    monkeypatch.setattr(fits, "available_bytes", lambda device: 96 * 2**20)
    for name, value in {"TORCHELASTIC_RUN_ID": "x", "RANK": "1", "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2"}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=r"but 48\.00 MiB is free for this rank of the 2 on this host; --layers 1"):
        check_planned(ProbeConfig(nproc=2), CPU)  # rank 1's half: 12 MiB in fp32, 50 MiB to train it


MODEL = """
import os
import torch


def build(device):
    with open(os.environ["FITS_LOG"], "a") as log:
        log.write(device.type + "\\n")
    if os.environ["FITS_MODE"] == "huge" and device.type != "meta":
        raise RuntimeError("built for real")  # never: 4 PiB of weights
    if os.environ["FITS_MODE"] == "no-meta":
        torch.ones(1).sum().item()  # under the meta device, a value it cannot read
    width = 2**25 if os.environ["FITS_MODE"] == "huge" else 8
    return torch.nn.Sequential(torch.nn.ModuleList([torch.nn.Linear(width, width, bias=False)])), torch.randn(2, width)
"""


def _factory(tmp_path, monkeypatch, mode: str) -> tuple[str, object]:
    (tmp_path / "model.py").write_text(MODEL)
    log = tmp_path / "log"
    monkeypatch.setenv("FITS_LOG", str(log))
    monkeypatch.setenv("FITS_MODE", mode)
    return f"{tmp_path / 'model.py'}:build", log


def test_a_model_the_meta_device_cannot_build_is_counted_once_built(tmp_path, monkeypatch):
    spec, log = _factory(tmp_path, monkeypatch, "no-meta")
    cfg = ProbeConfig(model=spec)
    assert check_planned(cfg, CPU) is False and log.read_text() == "meta\n"  # said nothing: the build runs it again
    model = torch.nn.Sequential(torch.nn.ModuleList([torch.nn.Linear(8, 8, bias=False)]))
    check_built(cfg, model, model[0], CPU)
    monkeypatch.setattr(fits, "available_bytes", lambda device: 0)  # its parameters (256 B) are taken already
    with pytest.raises(ConfigError, match=r"the model's parameters take 256 B here, .* but 256 B is free: build a smaller"):
        check_built(cfg, model, model[0], CPU)


@pytest.mark.e2e
def test_a_probe_too_big_is_refused_before_its_model_is_built(tmp_path, monkeypatch):
    """`memprobe run` of a model of 4 PiB: its factory is called on the meta device only, and the run is refused."""
    spec, log = _factory(tmp_path, monkeypatch, "huge")
    out = tmp_path / "r"
    proc = run_cli("run", "--model", spec, "--device", "cpu", "--out", out, env={"FITS_LOG": str(log), "FITS_MODE": "huge"})
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "this probe cannot train on this cpu: the model's parameters take 4096.00 TiB here" in proc.stderr, proc.stderr
    assert proc.stderr.rstrip().endswith(": build a smaller model"), proc.stderr
    assert log.read_text() == "meta\n"  # built on the meta device alone: never for real
    assert not out.exists()  # a refused configuration leaves no run directory

"""Whether a built model can train here at all (memprobe/capture/fits.py): its parameters' bytes, counted on real
modules, against what is left; the refusal says what it needs and how many blocks fit."""

from __future__ import annotations

import torch

from memprobe.capture.fits import STATE_COPIES, ModelBytes, model_bytes, too_big


class Tower(torch.nn.Module):
    """An embedding and an output projection (the rest) around a stack of blocks, float32."""

    def __init__(self, blocks: int, dim: int = 64, vocab: int = 1000):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.layers = torch.nn.ModuleList(torch.nn.Linear(dim, dim, bias=False) for _ in range(blocks))
        self.out = torch.nn.Linear(dim, vocab, bias=False)


def test_a_models_bytes_are_its_parameters_and_its_blocks():
    model = Tower(blocks=4)
    sizes = model_bytes(model, model.layers)
    assert sizes == ModelBytes(parameters=4 * (2 * 1000 * 64 + 4 * 64 * 64), blocks=4 * 4 * 64 * 64, block_count=4)


def test_a_model_that_fits_is_let_through_at_the_byte():
    sizes = model_bytes(Tower(blocks=4), Tower(blocks=4).layers)
    assert too_big(sizes, STATE_COPIES * sizes.parameters, has_layers=True) is None
    assert too_big(sizes, STATE_COPIES * sizes.parameters - 1, has_layers=True) is not None


def test_a_model_too_big_is_refused_with_the_blocks_that_fit():
    model = Tower(blocks=8)
    sizes = model_bytes(model, model.layers)
    per_block, rest = 4 * 64 * 64, 4 * 2 * 1000 * 64
    # room for training the rest and exactly 3 blocks: what is left, plus what the parameters hold now
    room = (1 + STATE_COPIES) * (rest + 3 * per_block) - sizes.parameters
    why = too_big(sizes, room, has_layers=True)
    assert why is not None and why.endswith("--layers 3 would fit at the least (a smaller flavor too)"), why
    assert too_big(sizes, (1 + STATE_COPIES) * (rest + 4 * per_block) - sizes.parameters, has_layers=True).endswith(
        "--layers 4 would fit at the least (a smaller flavor too)"
    )
    # too little for the rest of the model alone, and a family without --layers
    assert "even one block does not fit" in too_big(sizes, 0, has_layers=True)
    assert too_big(sizes, 0, has_layers=False).endswith(": build a smaller model")

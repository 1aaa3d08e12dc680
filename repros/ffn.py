"""The minimal repro: a stack of Llama SwiGLU FFN blocks (``layers.N.ffn.{w1,w2,w3}``, named like torchtitan's).

It is the smallest model that shows the regression memprobe was born from: under torchao's float8 rowwise scaling,
the per-op SAC list of torchtitan's early 2025 releases kept ``aten.abs`` as MUST_SAVE, so the compiled forward
saved ``abs()`` of every unsharded FFN weight for backward (Llama-3-8B: 47.77 GiB -> 58.55 GiB at the peak).
Two blocks of three linears are enough to see it; memprobe names each saved value by its module and by the
line below that computes it.

memprobe builds it for ``--repro ffn`` (the default) and trains it the torchtitan way (float8 -> SAC -> per-block
torch.compile -> FSDP2); ``python -m memprobe.capture.bare --recipe rowwise --ac-policy torchtitan-2025-01`` trains
it the same way without memprobe's recording. Plain PyTorch: it imports nothing but torch. Recorded runs name the
line of ``FeedForward.forward`` (``repros/ffn.py:32``): keep it there.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    """Llama's SwiGLU FFN: ``w2(silu(w1 x) * w3 x)``."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class FFNBlock(nn.Module):
    """A residual block around the FFN (a transformer block without attention)."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.ffn = FeedForward(dim, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.ffn(x)


class FFNStack(nn.Module):
    """``layers`` FFN blocks in a ModuleDict named like torchtitan's (``layers.0``, ...)."""

    def __init__(self, dim: int, hidden: int, layers: int):
        super().__init__()
        self.layers = nn.ModuleDict({str(i): FFNBlock(dim, hidden) for i in range(layers)})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.layers.values():
            x = block(x)
        return x


def build_model(dim: int, hidden: int, layers: int, *, seed: int = 0, device: str | torch.device = "cpu", **_) -> FFNStack:
    """The FFN stack in fp32 on ``device`` (keyword arguments of other repros are ignored)."""
    torch.manual_seed(seed)
    with torch.device(device):
        model = FFNStack(dim, hidden, layers)
    for p in model.parameters():
        nn.init.normal_(p, std=dim**-0.5)
    return model

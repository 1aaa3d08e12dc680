"""The minimal repro: a stack of Llama SwiGLU FFN blocks, trained the torchtitan way.

The builders in :mod:`repros.common` are applied in torchtitan's order: float8
conversion -> activation checkpointing -> per-block torch.compile -> FSDP2 per
block and at the root. memprobe glues them together with its own compile backend
and SAC policy; this file also runs on its own::

    python -m repros.ffn --recipe rowwise --ac-policy torchtitan-2025-01 --layers 2

and prints the loss and the bytes the autograd graph holds for backward.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import common


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


def main(argv: list[str] | None = None) -> None:
    args = common.standalone_args(__doc__).parse_args(argv)
    device = common.indexed_device(args.device)
    common.train_standalone(build_model(args.dim, args.hidden, args.layers, device=device), args, args.dim, device)


if __name__ == "__main__":
    main()

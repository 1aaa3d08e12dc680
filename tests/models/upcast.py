"""A test model whose linear layers compute in float32: each call upcasts its (bf16, under FSDP) weight with
.float(). Without activation checkpointing the partitioner saves those float32 weight copies for backward.
Probed with ``memprobe run --model tests/models/upcast.py:build --recipe bf16 --ac none``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class UpcastLinear(nn.Linear):
    """A linear layer that computes in float32: its bf16 weight is upcast on every call."""

    def forward(self, x):
        return F.linear(x.float(), self.weight.float()).to(x.dtype)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = UpcastLinear(dim, 4 * dim, bias=False)
        self.down = UpcastLinear(4 * dim, dim, bias=False)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(x)))


class Net(nn.Module):
    def __init__(self, dim=64, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def build(device):
    return Net(), torch.randn(2, 32, 64)

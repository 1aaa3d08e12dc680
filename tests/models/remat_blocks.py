"""A test model that does its own region rematerialization with torch_remat (the pattern of torchtitan's remat): each
block a ``remat.checkpoint(region_name="blockN")`` that recomputes by default, its up-projection a
``remat.region(self.up, "ffn.up", recompute=False)`` kept for backward. Probed with ``memprobe run --model
tests/models/remat_blocks.py:build --recipe bf16 --ac none --no-fsdp``: the model's own regions.

``build_plain``: the same blocks without torch_remat, for ``--ac remat --save-region ffn.up`` (memprobe's regions).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_remat as remat


class FFN(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim, bias=False)
        self.down = nn.Linear(4 * dim, dim, bias=False)


class Block(nn.Module):
    def __init__(self, dim, name, own_regions):
        super().__init__()
        self.ffn = FFN(dim)
        self.name, self.own_regions = name, own_regions

    def forward(self, x):
        if not self.own_regions:
            return self.body(x)
        return remat.checkpoint(region_name=self.name)(self.body)(x)

    def body(self, x):
        up = remat.region(self.ffn.up, "ffn.up", recompute=False) if self.own_regions else self.ffn.up
        return x + self.ffn.down(F.silu(up(x)))


class Net(nn.Module):
    def __init__(self, dim=64, depth=2, own_regions=True):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, f"block{i}", own_regions) for i in range(depth))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def build(device):
    return Net(), torch.randn(2, 32, 64)


def build_plain(device):
    return Net(own_regions=False), torch.randn(2, 32, 64)

"""A test model that does its own region rematerialization with torch_remat (the pattern of torchtitan's remat): each
block a ``remat.checkpoint(region_name="blockN")`` that recomputes by default, its up-projection a
``remat.region(self.up, "ffn.up", recompute=False)`` kept for backward (eagerly, its output kept for the recompute of
the bare code after it: ``remat.recompute_needs_tensor``), each block's hidden width its own (4, then 3 times the
model's) so that each region keeps bytes of its own. Probed with ``memprobe run --model
tests/models/remat_blocks.py:build --recipe bf16 --ac none --no-fsdp``: the model's own regions.

``build_plain``: the same blocks without torch_remat, for ``--ac remat --save-region ffn.up`` (memprobe's regions).
``Net(prefix="blocks.")`` is what ``--ac remat`` makes of those: its checkpoints named as memprobe names them
(tests/scripts/remat_saved_report.py, torch_remat's own report of either).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_remat as remat


class FFN(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)


class Block(nn.Module):
    def __init__(self, dim, hidden, name, own_regions):
        super().__init__()
        self.ffn = FFN(dim, hidden)
        self.name, self.own_regions = name, own_regions

    def forward(self, x):
        if not self.own_regions:
            return self.body(x)
        return remat.checkpoint(region_name=self.name)(self.body)(x)

    def body(self, x):
        if not self.own_regions:
            return x + self.ffn.down(F.silu(self.ffn.up(x)))
        h = remat.region(self.ffn.up, "ffn.up", recompute=False)(x)
        remat.recompute_needs_tensor(h)  # its consumer is bare (compiled: nothing)
        return x + self.ffn.down(F.silu(h))


class Net(nn.Module):
    def __init__(self, dim=64, depth=2, own_regions=True, prefix="block"):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, (4 - i) * dim, f"{prefix}{i}", own_regions) for i in range(depth))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def build(device):
    return Net(), torch.randn(2, 32, 64)


def build_plain(device):
    return Net(own_regions=False), torch.randn(2, 32, 64)

"""A test model with the pattern of pytorch/pytorch#193193: two checkpointed passes over the same (shared) blocks,
compiled. Each block checkpoints itself (``torch.utils.checkpoint``), so forward keeps little more than each call's
input, and each call's compiled backward recomputes the block's forward: what that backward holds at its peak is its
own working set (recomputed values and Inductor's temporaries), not what forward saved. Probed with ``memprobe run
--model tests/models/twopass_ckpt.py:build --recipe bf16 --ac none --no-fsdp --device cpu``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, hidden, bias=False)
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return checkpoint(self.body, x, use_reentrant=False)

    def body(self, x):
        h = F.silu(self.gate(x)) * self.up(x)
        return x + self.down(h)


class Net(nn.Module):
    def __init__(self, dim=32, hidden=256, depth=2, passes=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, hidden) for _ in range(depth))
        self.passes = passes

    def forward(self, x):
        for _ in range(self.passes):  # the same blocks, a second time
            for b in self.blocks:
                x = b(x)
        return x


def build(device):
    return Net(), torch.randn(4, 128, 32)

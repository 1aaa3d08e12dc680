"""A small GPT's attention: one fused q/k/v projection (``c_attn``) split in three, each piece viewed into heads and
transposed, then scaled_dot_product_attention. Probed with ``memprobe run --model tests/models/fused_qkv.py:build``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))


class Net(nn.Module):
    def __init__(self, depth: int = 2):
        super().__init__()
        self.layers = nn.ModuleList(Attention() for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return x


def build(device):
    return Net().to(device), torch.randn(2, 16, 64, device=device)

"""A test model unlike the FFN repro: an MLP-Mixer (token mixing across the sequence, then
channel mixing, LayerNorm, GELU, biases), with a stem and a head outside its blocks,
which live in ``self.blocks`` (an nn.ModuleList). Probed with
``memprobe run --model tests/models/mixer.py:build``.
"""

import torch
import torch.nn as nn


class MixerBlock(nn.Module):
    def __init__(self, tokens: int, channels: int):
        super().__init__()
        self.token_norm = nn.LayerNorm(channels)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, 2 * tokens), nn.GELU(), nn.Linear(2 * tokens, tokens))
        self.channel_norm = nn.LayerNorm(channels)
        self.channel_mlp = nn.Sequential(nn.Linear(channels, 4 * channels), nn.GELU(), nn.Linear(4 * channels, channels))

    def forward(self, x):
        # contiguous: torchao rowwise float8 cannot scale a transposed (strided) input
        x = x + self.token_mlp(self.token_norm(x).transpose(1, 2).contiguous()).transpose(1, 2)
        return x + self.channel_mlp(self.channel_norm(x))


class Mixer(nn.Module):
    def __init__(self, inputs: int = 48, tokens: int = 64, channels: int = 128, depth: int = 2, classes: int = 10):
        super().__init__()
        self.stem = nn.Linear(inputs, channels)
        self.blocks = nn.ModuleList(MixerBlock(tokens, channels) for _ in range(depth))
        self.norm = nn.LayerNorm(channels)
        self.head = nn.Linear(channels, classes)  # 10 classes: not a multiple of 16, so float8 leaves it alone

    def forward(self, patches):
        x = self.stem(patches)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x).mean(dim=1))


def build(device):
    """memprobe's --model contract: (model, batch) on ``device``."""
    model = Mixer()
    batch = torch.randn(4, 64, 48, device=device)
    return model, batch


def model_only(device):
    """Breaks the contract (no batch): the test of memprobe's error message uses it."""
    return Mixer()

"""A test model whose linear layers compute through a custom torch.autograd.Function that fake-quantizes the weight
(per-row int8 scale, rounded and clamped) before the matmul: the pattern of weight-only quantized and LoRA-style
linears. Under --ac full each block is checkpointed whole; whether the ops inside the Function carry the region's
recompute tag depends on the torch release (torch 2.11 leaves them untagged, and its partitioner then saves the
matmul's output: tests/data/cpu/quantlinear-*). Probed with ``memprobe run --model tests/models/quantlinear.py:build
--recipe bf16 --ac full --no-fsdp``.

``build_checkpointed``: the same blocks, each checkpointed by the model itself (a ``CheckpointLayer`` of its own around
``torch.utils.checkpoint.checkpoint``), probed with ``--ac none``: the user's own checkpointing.
"""

import torch
import torch.nn as nn
import torch.utils.checkpoint


class QuantLinearFunction(torch.autograd.Function):
    """y = x @ fake_quant(W)^T; the backward uses the full-precision weight (a straight-through estimator)."""

    @staticmethod
    def forward(ctx, x, weight):
        scale = weight.abs().amax(dim=1, keepdim=True) / 127.0
        q = torch.round(weight / scale).clamp(-127, 127)
        w = (q * scale).to(x.dtype)
        ctx.save_for_backward(x, weight)
        return x @ w.t()

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        return grad @ weight.to(grad.dtype), (grad.flatten(0, -2).t() @ x.flatten(0, -2)).to(weight.dtype)


class QuantLinear(nn.Linear):
    def forward(self, x):
        return QuantLinearFunction.apply(x, self.weight)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = QuantLinear(dim, 4 * dim, bias=False)
        self.down = QuantLinear(4 * dim, dim, bias=False)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(x)))


class CheckpointLayer(nn.Module):
    """The model's own activation checkpointing: its wrapped block recomputed in backward."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(self.inner, x, use_reentrant=False)


class Net(nn.Module):
    def __init__(self, dim=64, depth=2, checkpointed=False):
        super().__init__()
        self.blocks = nn.ModuleList((CheckpointLayer(Block(dim)) if checkpointed else Block(dim)) for _ in range(depth))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def build(device):
    return Net(), torch.randn(2, 32, 64)


def build_checkpointed(device):
    return Net(checkpointed=True), torch.randn(2, 32, 64)

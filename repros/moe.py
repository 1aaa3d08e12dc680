"""A mixture-of-experts repro: blocks of a router and grouped SwiGLU experts, the way torchtitan's MoE and
transformers' Mixtral run them.

Each block's experts are two 3-D weights (``experts.gate_up_proj [E, 2H, D]``, ``experts.down_proj [E, D, H]``) run
by one grouped GEMM each (``torch._grouped_mm``), over the tokens sorted by the expert they were routed to; the router
is a raw ``[E, D]`` weight applied with ``F.linear``, its top-k softmax scores weighting the experts' outputs. Module
names follow Mixtral's (``layers.N.moe.router``, ``layers.N.moe.experts``). Plain PyTorch: it imports nothing but
torch.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Router(nn.Module):
    """Top-k routing: each token's k best experts and their softmax weights."""

    def __init__(self, dim: int, experts: int, top_k: int):
        super().__init__()
        self.top_k = top_k
        self.weight = nn.Parameter(torch.empty(experts, dim))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scores = F.softmax(F.linear(x, self.weight).float(), dim=-1)
        weights, experts = torch.topk(scores, self.top_k, dim=-1)
        return (weights / weights.sum(-1, keepdim=True)).to(x.dtype), experts


class GroupedExperts(nn.Module):
    """SwiGLU experts whose weights are 3-D, run by grouped GEMMs over tokens sorted by expert."""

    def __init__(self, dim: int, hidden: int, experts: int):
        super().__init__()
        self.experts = experts
        self.gate_up_proj = nn.Parameter(torch.empty(experts, 2 * hidden, dim))
        self.down_proj = nn.Parameter(torch.empty(experts, dim, hidden))

    def forward(self, x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        gate, up = torch._grouped_mm(x, self.gate_up_proj.transpose(-2, -1), offs=offsets).chunk(2, dim=-1)
        return torch._grouped_mm(F.silu(gate) * up, self.down_proj.transpose(-2, -1), offs=offsets)


class MoE(nn.Module):
    def __init__(self, dim: int, hidden: int, experts: int, top_k: int):
        super().__init__()
        self.router = Router(dim, experts, top_k)
        self.experts = GroupedExperts(dim, hidden, experts)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = x.reshape(-1, x.shape[-1])
        weights, chosen = self.router(tokens)
        top_k = chosen.shape[-1]
        # the token-expert pairs sorted by expert; the offsets end each expert's group (histc: a static shape)
        order_by_expert, order = torch.sort(chosen.reshape(-1))
        counts = torch.histc(order_by_expert.float(), bins=self.experts.experts, min=0, max=self.experts.experts - 1)
        offsets = torch.cumsum(counts, dim=0, dtype=torch.int32)
        out = self.experts(tokens[order // top_k], offsets) * weights.reshape(-1)[order].unsqueeze(-1)
        combined = torch.zeros_like(tokens).index_add(0, order // top_k, out.to(tokens.dtype))
        return combined.reshape(x.shape)


class MoEBlock(nn.Module):
    """A residual block around the mixture of experts (a transformer block without attention)."""

    def __init__(self, dim: int, hidden: int, experts: int, top_k: int):
        super().__init__()
        self.moe = MoE(dim, hidden, experts, top_k)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.moe(x)


class MoEStack(nn.Module):
    """``layers`` MoE blocks in a ModuleDict named like torchtitan's (``layers.0``, ...)."""

    def __init__(self, dim: int, hidden: int, layers: int, experts: int, top_k: int):
        super().__init__()
        self.layers = nn.ModuleDict({str(i): MoEBlock(dim, hidden, experts, top_k) for i in range(layers)})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.layers.values():
            x = block(x)
        return x


def build_model(dim: int, hidden: int, layers: int, *, experts: int = 8, top_k: int = 2, seed: int = 0, device="cpu") -> MoEStack:
    """The MoE stack in fp32 on ``device``."""
    torch.manual_seed(seed)
    with torch.device(device):
        model = MoEStack(dim, hidden, layers, experts, top_k)
    for p in model.parameters():
        nn.init.normal_(p, std=1 / math.sqrt(p.shape[-1]))
    return model

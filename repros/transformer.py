"""A Llama-3-style transformer block repro: RMSNorm, grouped-query attention through SDPA with rotary embeddings, and
the SwiGLU FFN.

Module names follow torchtitan's Llama 3 (``layers.0.attention.wq``, ``layers.0.feed_forward.w1``,
``attention_norm``, ``ffn_norm``). Without a vocabulary the input is a batch of embeddings (no token embedding or
output projection: they are not repeated per block); with one (``vocab``) it is torchtitan's whole model: token ids
through ``tok_embeddings``, the blocks, ``norm`` and the ``output`` projection to the logits. memprobe builds it for
``--repro transformer``. Plain PyTorch: it imports nothing but torch.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .ffn import FeedForward


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


def rotary(x: torch.Tensor, theta: float = 500000.0) -> torch.Tensor:
    """Rotary position embedding on (batch, seq, heads, head_dim), real-valued."""
    seq, head_dim = x.shape[1], x.shape[-1]
    freqs = 1.0 / theta ** (torch.arange(0, head_dim, 2, device=x.device, dtype=torch.float32) / head_dim)
    angles = torch.outer(torch.arange(seq, device=x.device, dtype=torch.float32), freqs)
    cos, sin = angles.cos()[None, :, None, :], angles.sin()[None, :, None, :]
    x1, x2 = x.float()[..., 0::2], x.float()[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2).type_as(x)


class Attention(nn.Module):
    """Grouped-query attention: ``heads`` query heads share ``kv_heads`` key/value heads."""

    def __init__(self, dim: int, heads: int, kv_heads: int):
        super().__init__()
        if dim % heads or heads % kv_heads:
            raise ValueError(f"dim {dim} must divide into {heads} heads, and heads into {kv_heads} kv heads")
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.wq = nn.Linear(dim, heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(heads * self.head_dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q = rotary(self.wq(x).view(b, s, self.heads, self.head_dim))
        k = rotary(self.wk(x).view(b, s, self.kv_heads, self.head_dim))
        v = self.wv(x).view(b, s, self.kv_heads, self.head_dim)
        rep = self.heads // self.kv_heads
        # torchtitan's repeat_kv: expand the shared heads instead of copying them per query head
        k = k[:, :, :, None, :].expand(b, s, self.kv_heads, rep, self.head_dim).reshape(b, s, self.heads, self.head_dim)
        v = v[:, :, :, None, :].expand(b, s, self.kv_heads, rep, self.head_dim).reshape(b, s, self.heads, self.head_dim)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.wo(out.transpose(1, 2).reshape(b, s, -1))


class TransformerBlock(nn.Module):
    def __init__(self, dim: int, hidden: int, heads: int, kv_heads: int):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, heads, kv_heads)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = FeedForward(dim, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    """``layers`` blocks in a ModuleDict named like torchtitan's, then the final norm; with ``vocab``, the token
    embedding before them and the output projection to the logits after."""

    def __init__(self, dim: int, hidden: int, layers: int, heads: int, kv_heads: int, vocab: int = 0):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim) if vocab else None
        self.layers = nn.ModuleDict({str(i): TransformerBlock(dim, hidden, heads, kv_heads) for i in range(layers)})
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False) if vocab else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.tok_embeddings is not None:
            x = self.tok_embeddings(x)
        for block in self.layers.values():
            x = block(x)
        x = self.norm(x)
        return self.output(x) if self.output is not None else x


def build_model(
    dim: int,
    hidden: int,
    layers: int,
    *,
    heads: int = 8,
    kv_heads: int = 2,
    vocab: int = 0,
    seed: int = 0,
    device: str | torch.device = "cpu",
    **_,
) -> Transformer:
    torch.manual_seed(seed)
    with torch.device(device):
        model = Transformer(dim, hidden, layers, heads, kv_heads, vocab)
    for p in model.parameters():
        if p.dim() == 2:
            nn.init.normal_(p, std=1 / math.sqrt(p.shape[1]))
    return model

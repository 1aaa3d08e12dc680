"""A small GPT trained the way a popular single-file GPT repository trains one on a GPU, unmodified for memprobe: the
whole model under `torch.compile`, the forward (loss included) under bf16 autocast, a GradScaler that bf16 leaves
disabled, AdamW with `fused=True`, TF32 matmuls, pinned host batches copied without blocking, an evaluation under
`torch.no_grad()` in eval mode at the first iteration (a second compiled graph), and its loss printed each
iteration. It knows nothing of memprobe (no import of it).

    python scripts/fused_adamw_train.py --steps 5
    memprobe run --steps 2 -- python scripts/fused_adamw_train.py --steps 5

With --truth FILE it also writes, without memprobe, every byte autograd saves in its last iteration's forward (a
saved_tensors_hooks pack hook of its own, which sees what the compiled graph saves too), the parameters' own storages
left out: what memprobe's saved table plus what it counts saved outside the compiled graphs must equal
(scripts/device_people.sh compares them).
"""

from __future__ import annotations

import argparse
import json
import math
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.c_attn = nn.Linear(dim, 3 * dim, bias=False)
        self.c_proj = nn.Linear(dim, dim, bias=False)
        self.heads = heads

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))


class MLP(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.c_fc = nn.Linear(dim, 4 * dim, bias=False)
        self.c_proj = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(dim), CausalSelfAttention(dim, heads)
        self.ln_2, self.mlp = nn.LayerNorm(dim), MLP(dim)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, seq: int, dim: int, heads: int, layers: int):
        super().__init__()
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(vocab, dim),
                wpe=nn.Embedding(seq, dim),
                h=nn.ModuleList(Block(dim, heads) for _ in range(layers)),
                ln_f=nn.LayerNorm(dim),
            )
        )
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # tied, as the repository ties them
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02 / (math.sqrt(2 * layers) if name.endswith("c_proj.weight") else 1))

    def forward(self, idx, targets):
        t = self.transformer
        x = t.wte(idx) + t.wpe(torch.arange(idx.shape[1], device=idx.device))
        for block in t.h:
            x = block(x)
        logits = self.lm_head(t.ln_f(x))
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=50304)
    ap.add_argument("--truth", default=None, help="write the last iteration's saved bytes, counted without memprobe")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device: this script trains the way a GPU run does (fused AdamW, bf16 autocast)")
    torch.manual_seed(1337)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    device = "cuda"
    ctx = torch.autocast(device_type="cuda", dtype=torch.bfloat16)
    model = GPT(a.vocab, a.seq, a.dim, a.heads, a.layers).to(device)
    scaler = torch.amp.GradScaler("cuda", enabled=False)  # float16 only, as the repository has it
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=6e-4, betas=(0.9, 0.95), fused=True)
    model = torch.compile(model)

    def batch():
        x = torch.randint(0, a.vocab, (a.batch, a.seq))
        y = torch.randint(0, a.vocab, (a.batch, a.seq))
        return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        x, y = batch()
        with ctx:
            _, loss = model(x, y)
        model.train()
        return loss.item()

    packed = []
    for it in range(a.steps):
        if it == 0:
            print(f"iter {it}: val loss {estimate_loss():.4f}", flush=True)
        x, y = batch()
        last = a.truth and it == a.steps - 1
        hooks = torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t)
        with hooks if last else nullcontext(), ctx:
            _, loss = model(x, y)
        if last:
            params = {p.untyped_storage().data_ptr() for p in model.parameters()}
            held = {}
            for t in packed:
                st = t.untyped_storage()
                if st.nbytes() and st.data_ptr() not in params:
                    held[st.data_ptr()] = st.nbytes()
            with open(a.truth, "w") as f:
                json.dump({"saved_bytes": sum(held.values()), "tensors": len(packed)}, f)
            packed.clear()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        print(f"iter {it}: loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()

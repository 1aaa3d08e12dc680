"""A training script written the way a plain PyTorch user writes one, unmodified for memprobe: a small transformer-ish
model whose blocks are checkpointed (torch.utils.checkpoint) and compiled one by one, AdamW, a loop over synthetic
batches. Run with `python tests/scripts/plain_loop.py [--no-checkpoint] [--steps N] [--truth FILE]`.

With --truth FILE it also writes, without memprobe, what autograd saves in its last step's forward outside the
compiled blocks and what the compiled blocks save (a saved_tensors_hooks pack hook of its own): the ground truth
memprobe's figures are held to.
"""

import argparse
import json
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, dim, use_checkpoint):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.use_checkpoint = use_checkpoint

    def inner(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))

    def forward(self, x):
        if self.use_checkpoint:
            return checkpoint(self.inner, x, use_reentrant=False)
        return self.inner(x)


class Net(nn.Module):
    def __init__(self, vocab=128, dim=64, depth=2, use_checkpoint=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, use_checkpoint) for _ in range(depth))
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--no-checkpoint", action="store_true")
    ap.add_argument("--truth", default=None)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = Net(use_checkpoint=not args.no_checkpoint)
    for block in model.blocks:
        block.compile()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    packed = []  # what autograd saves in the last step, as the script counts it itself
    for step in range(args.steps):
        tokens = torch.randint(0, 128, (4, 32))
        targets = torch.randint(0, 128, (4, 32))
        last = step == args.steps - 1 and args.truth
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t) if last else nullcontext():
            logits = model(tokens)
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        if last:
            params = {p.untyped_storage().data_ptr() for p in model.parameters()}
            seen = {}
            for t in packed:
                st = t.untyped_storage()
                if st.nbytes() and st.data_ptr() not in params:
                    seen[st.data_ptr()] = st.nbytes()
            with open(args.truth, "w") as f:
                json.dump({"saved_bytes": sum(seen.values())}, f)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()

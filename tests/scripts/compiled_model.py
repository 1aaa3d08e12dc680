"""A training script that compiles its whole model, the way a plain PyTorch user writes one, unmodified for
memprobe: `model = torch.compile(Net())` (a small GPT's shape: 2 blocks, a token and a position embedding, GELU
MLPs), AdamW, a plain loop that prints its loss each step. Run with `python tests/scripts/compiled_model.py [--steps N] [--eager] [--depth N] [--truth FILE]`.

With --truth FILE it also writes, without memprobe, every byte autograd saves in its last step's forward (a
saved_tensors_hooks pack hook of its own, which sees what the compiled graph saves too), parameters left out: the
ground truth memprobe's saved table plus what it counts saved outside the compiled graph are held to.
"""

import argparse
import json
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


class Net(nn.Module):
    """A small GPT's shape: its modules in one ModuleDict, the output projection tied to the token embedding."""

    def __init__(self, vocab=128, seq=32, dim=64, depth=2):
        super().__init__()
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(vocab, dim),
                wpe=nn.Embedding(seq, dim),
                h=nn.ModuleList(Block(dim) for _ in range(depth)),
                ln_f=nn.LayerNorm(dim),
            )
        )

    def forward(self, tokens):
        t = self.transformer
        x = t.wte(tokens) + t.wpe(torch.arange(tokens.shape[1], device=tokens.device))
        for block in t.h:
            x = block(x)
        return F.linear(t.ln_f(x), t.wte.weight)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--truth", default=None)
    ap.add_argument("--eager", action="store_true", help="the same model uncompiled")
    ap.add_argument("--depth", type=int, default=2, help="blocks")
    args = ap.parse_args()
    torch.manual_seed(0)
    model = Net(depth=args.depth) if args.eager else torch.compile(Net(depth=args.depth))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    packed = []  # what autograd saves in the last step, as the script counts it itself
    for step in range(args.steps):
        tokens = torch.randint(0, 128, (4, 32))
        targets = torch.randint(0, 128, (4, 32))
        last = step == args.steps - 1 and args.truth
        hooks = torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t)
        with hooks if last else nullcontext():
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

"""A plain training loop whose blocks each checkpoint their body and are compiled one by one, without fullgraph (as
`torch.compile(block)` is usually written). With --side-effect the second block's checkpointed body counts its calls
on an object outside it: Dynamo refuses that inside a checkpoint, graph-breaks, and runs the region eagerly. Run with
`python tests/scripts/eager_checkpoint.py [--side-effect] [--steps N] [--truth FILE]`.

With --truth FILE it also writes, without memprobe, what autograd saves in its last step's forward (a
saved_tensors_hooks pack hook of its own, each storage once, parameters apart): the ground truth memprobe's figures,
compiled graphs and outside them, are held to.
"""

import argparse
import json
from contextlib import nullcontext

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Calls:
    count = 0


CALLS = Calls()


class Body(nn.Module):
    def __init__(self, dim: int, counts: bool):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.counts = counts

    def forward(self, h):
        if self.counts:
            CALLS.count += 1  # a side effect on an object outside the checkpointed region
        return self.down(torch.relu(self.up(h)))


class Block(nn.Module):
    def __init__(self, dim: int, counts: bool):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.body = Body(dim, counts)

    def forward(self, x):
        return x + checkpoint(self.body, self.norm(x), use_reentrant=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side-effect", action="store_true")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--truth", default=None)
    args = ap.parse_args()
    torch.manual_seed(0)
    dim = 64
    blocks = nn.ModuleList(torch.compile(Block(dim, counts=args.side_effect and i == 1)) for i in range(2))
    model = nn.ModuleDict({"blocks": blocks, "head": nn.Linear(dim, dim)})
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(8, 32, dim)
    packed = []  # what autograd saves in the last step, as the script counts it itself
    for step in range(args.steps):
        last = step == args.steps - 1 and args.truth
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t) if last else nullcontext():
            h = x
            for block in blocks:
                h = block(h)
            loss = model["head"](h).pow(2).mean()
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

"""A plain training script that runs out of GPU memory, unmodified for memprobe: a stack of Linear + ReLU layers
trained with AdamW whose batch grows at one iteration until the forward's activations no longer fit the card (the
allocator raises torch.OutOfMemoryError partway through the forward). It knows nothing of memprobe.

    python scripts/cuda_oom_train.py --oom-at 2 --truth held.json
    memprobe run --steps 2 -- python scripts/cuda_oom_train.py --oom-at 2 --truth held.json

--truth FILE: at the error, the bytes autograd had saved in that iteration's forward (a saved_tensors_hooks pack hook
of its own, parameters left out), written before the error goes on: what memprobe's OOM report must hold.
"""

from __future__ import annotations

import argparse
import json
from contextlib import nullcontext

import torch
import torch.nn as nn


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--dim", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--oom-batch", type=int, default=655360, help="the batch at --oom-at: 20 GiB per fp32 activation")
    ap.add_argument("--oom-at", type=int, default=2, help="the iteration (from 1) whose batch does not fit")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--truth", default=None)
    a = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(*(m for _ in range(a.layers) for m in (nn.Linear(a.dim, a.dim), nn.ReLU()))).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    for it in range(1, a.steps + 1):
        rows = a.oom_batch if it == a.oom_at else a.batch
        x = torch.randn(rows, a.dim, device="cuda")
        held: dict[int, int] = {}

        def pack(t, held=held):
            st = t.untyped_storage()
            if st.data_ptr() not in params:
                held[st.data_ptr()] = st.nbytes()
            return t

        try:  # the count's hook only with --truth: a pack hook of the script's own hides memprobe's (docs/scripts.md)
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t) if a.truth else nullcontext():
                loss = model(x).float().pow(2).mean()
        except torch.OutOfMemoryError:
            if a.truth:
                with open(a.truth, "w") as f:
                    json.dump({"saved_bytes": sum(held.values()), "iteration": it}, f)
            raise
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print(f"iter {it}: loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()

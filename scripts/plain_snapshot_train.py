"""A plain PyTorch training script that records a CUDA memory snapshot, as users take them: it knows nothing of
memprobe (no import of it). scripts/device_snapshots.sh runs it twice with one setting changed, then `memprobe diff`
and `memprobe show` read the two files.

A stack of MLP blocks (LayerNorm, Linear, GELU, Linear; residual), optionally each under activation checkpointing,
trained a few steps with AdamW on random data; the allocator's history (with Python and C++ stacks) is recorded from
before the model is built, dumped after the last step.

    python scripts/plain_snapshot_train.py --batch 8 --checkpoint --out batch8.pickle
    python scripts/plain_snapshot_train.py --device cpu --steps 1     # no CUDA: trains, records nothing (a dry run)
"""

from __future__ import annotations

import argparse
import sys

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class Model(nn.Module):
    def __init__(self, dim: int, layers: int, use_checkpoint: bool):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(layers))
        self.use_checkpoint = use_checkpoint

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.use_checkpoint else block(x)
        return x


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--checkpoint", action="store_true", help="each block under activation checkpointing")
    ap.add_argument("--max-entries", type=int, default=1_000_000, help="the allocator history's ring buffer")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--out", default="snapshot.pickle", help="where the snapshot goes")
    return ap.parse_args(argv)


def train(a: argparse.Namespace) -> float:
    device = torch.device(a.device)
    torch.manual_seed(0)
    model = Model(a.dim, a.layers, a.checkpoint).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss = torch.zeros(())
    for _ in range(a.steps):
        x = torch.randn(a.batch, a.seq, a.dim, device=device)
        loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return float(loss.detach())


def main(argv: list[str] | None = None) -> int:
    a = parse(argv)
    record = a.device == "cuda"
    if record and not torch.cuda.is_available():
        print("no CUDA device: pass --device cpu for a dry run (nothing is recorded)", file=sys.stderr)
        return 2
    if record:
        torch.cuda.memory._record_memory_history(max_entries=a.max_entries)
    loss = train(a)
    if record:
        torch.cuda.synchronize()
        torch.cuda.memory._dump_snapshot(a.out)
        torch.cuda.memory._record_memory_history(enabled=None)
        peak = torch.cuda.max_memory_allocated()
        print(f"loss {loss:.4f}; peak allocated {peak} B (torch.cuda.max_memory_allocated); wrote {a.out}")
    else:
        print(f"loss {loss:.4f}; {a.device}: trained without recording (a snapshot needs CUDA)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

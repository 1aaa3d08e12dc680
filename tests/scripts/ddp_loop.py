"""A training script for several ranks, written the way a DistributedDataParallel user writes one, unmodified for
memprobe: run with `torchrun --nproc-per-node 2 tests/scripts/ddp_loop.py` (gloo on the CPU)."""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel


def main():
    dist.init_process_group("gloo")
    torch.manual_seed(dist.get_rank())
    model = DistributedDataParallel(nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(5):
        x = torch.randn(8, 64)
        loss = F.mse_loss(model(x), x)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""The minimal repro: a stack of Llama SwiGLU FFN blocks, trained the torchtitan way.

Each builder below is small and does one thing, in torchtitan's order:
float8 conversion -> activation checkpointing -> per-block torch.compile ->
FSDP2 per block and at the root. memprobe glues them together with its own
compile backend and SAC policy; this file also runs on its own::

    python -m repros.ffn --recipe rowwise --ac-policy torchtitan-2025-01 --layers 2

and prints the loss and the bytes the autograd graph holds for backward.
"""

from __future__ import annotations

import argparse
import socket
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    """Llama's SwiGLU FFN: ``w2(silu(w1 x) * w3 x)``."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class FFNBlock(nn.Module):
    """A residual block around the FFN (a transformer block without attention)."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.ffn = FeedForward(dim, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.ffn(x)


class FFNStack(nn.Module):
    """``layers`` FFN blocks in a ModuleDict named like torchtitan's (``layers.0``, ...)."""

    def __init__(self, dim: int, hidden: int, layers: int):
        super().__init__()
        self.layers = nn.ModuleDict({str(i): FFNBlock(dim, hidden) for i in range(layers)})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.layers.values():
            x = block(x)
        return x


def build_model(dim: int, hidden: int, layers: int, *, seed: int = 0, device: str | torch.device = "cpu") -> FFNStack:
    torch.manual_seed(seed)
    with torch.device(device):
        model = FFNStack(dim, hidden, layers)
    for p in model.parameters():
        nn.init.normal_(p, std=dim**-0.5)
    return model


def apply_float8(model: nn.Module, recipe: str) -> None:
    """torchao float8 training on every Linear (``recipe``: tensorwise, rowwise, rowwise_with_gw_hp)."""
    if recipe == "bf16":
        return
    from torchao.float8 import Float8LinearConfig, convert_to_float8_training

    convert_to_float8_training(model, config=Float8LinearConfig.from_recipe_name(recipe))


def apply_ac(model: FFNStack, mode: str, context_fn: Callable | None = None) -> None:
    """Activation checkpointing per block: ``none``, ``full``, or ``op`` (per-op SAC via ``context_fn``)."""
    if mode == "none":
        return
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper

    for name, block in list(model.layers.named_children()):
        if mode == "full":
            wrapped = checkpoint_wrapper(block, preserve_rng_state=False)
        elif mode == "op":
            if context_fn is None:
                raise ValueError("per-op SAC needs a context_fn")
            wrapped = checkpoint_wrapper(block, context_fn=context_fn, preserve_rng_state=False)
        else:
            raise ValueError(f"unknown AC mode {mode!r}")
        model.layers.register_module(name, wrapped)


def apply_compile(model: FFNStack, backend: Callable | str = "inductor") -> None:
    """torch.compile each block, as torchtitan does."""
    for name, block in list(model.layers.named_children()):
        model.layers.register_module(name, torch.compile(block, backend=backend, fullgraph=True))


def apply_fsdp(model: FFNStack, *, reshard_after_forward: bool = True) -> None:
    """FSDP2 per block and at the root, bf16 params, fp32 reductions (torchtitan's defaults)."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.layers.values():
        fully_shard(block, mp_policy=mp, reshard_after_forward=reshard_after_forward)
    fully_shard(model, mp_policy=mp)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def init_single_process_group(device: torch.device) -> bool:
    """World size 1 in this process (gloo on CPU, nccl on CUDA). True if this call created it."""
    import torch.distributed as dist

    if dist.is_initialized():
        return False
    # an explicit address, not MASTER_ADDR/MASTER_PORT: those may belong to a launcher around us
    backend = "nccl" if device.type == "cuda" else "gloo"
    kwargs = {"device_id": device} if device.type == "cuda" else {}
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1, **kwargs)
    return True


def make_batch(batch: int, seq: int, dim: int, *, device, dtype=torch.float32, seed: int = 0) -> torch.Tensor:
    g = torch.Generator(device="cpu").manual_seed(seed + 1)
    return torch.randn(batch, seq, dim, generator=g, dtype=dtype).to(device)


def loss_fn(out: torch.Tensor) -> torch.Tensor:
    return out.float().pow(2).mean()


def saved_tensor_bytes(root: torch.Tensor) -> int:
    """Bytes of the distinct storages the autograd graph behind ``root`` holds for backward.

    Do not call it on a graph with eager (uncompiled) checkpointed regions: unpacking their
    saved tensors consumes them, and backward then fails.
    """
    seen_nodes, seen_storages, total = set(), set(), 0
    stack = [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        tensors = []
        if hasattr(node, "saved_tensors"):
            try:
                tensors.extend(t for t in node.saved_tensors if isinstance(t, torch.Tensor))
            except RuntimeError:
                pass
        for attr in dir(node):
            if attr.startswith("_saved_"):
                val = getattr(node, attr, None)
                if isinstance(val, torch.Tensor):
                    tensors.append(val)
        for t in tensors:
            st = t.untyped_storage()
            key = (st.data_ptr(), st.nbytes())
            if st.nbytes() and key not in seen_storages:
                seen_storages.add(key)
                total += st.nbytes()
        stack.extend(fn for fn, _ in node.next_functions)
    return total


def main(argv: list[str] | None = None) -> None:
    from memprobe.policies import POLICIES, effective_policy, make_context_fn

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recipe", default="rowwise", choices=["bf16", "tensorwise", "rowwise", "rowwise_with_gw_hp"])
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--ac", default="op", choices=["none", "full", "op"])
    ap.add_argument("--ac-policy", default="torchtitan", choices=list(POLICIES))
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--no-fsdp", action="store_true")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args(argv)

    device = torch.device(args.device)
    model = build_model(args.dim, args.hidden, args.layers, device=device)
    apply_float8(model, args.recipe)
    apply_ac(model, args.ac, make_context_fn(effective_policy(args.ac_policy)))
    if not args.no_compile:
        apply_compile(model)
    if args.no_fsdp:
        model.to(torch.bfloat16)
    else:
        init_single_process_group(device)
        apply_fsdp(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = make_batch(args.batch, args.seq, args.dim, device=device, dtype=torch.bfloat16 if args.no_fsdp else torch.float32)
    for step in range(args.steps):
        out = model(x)
        loss = loss_fn(out)
        # eager checkpointed regions cannot be inspected without consuming what they saved
        saved = saved_tensor_bytes(loss) if (not args.no_compile or args.ac == "none") else None
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        held = f"{saved / 2**20:.2f} MiB" if saved is not None else "not inspected (eager checkpointing)"
        print(f"step {step}: loss {loss.item():.4f}  saved for backward {held}")


if __name__ == "__main__":
    main()

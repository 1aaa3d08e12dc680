"""Whether the built model can train on this machine at all: its parameters, their gradients and AdamW's two moments
(each the size of the parameter, this rank's shard under FSDP) against the memory the machine has left, checked once
the model is built and before its first step. A lower bound (activations, the compiler's and the allocator's own
memory come on top): a probe it refuses could not have run; one it lets through may still run out of memory, which
the run then records (status ``oom``, exit 4).

The 8B-dims torchtitan Llama on a 24 GiB CPU machine used 19 GB while still compiling its first step and was stopped
by the user's watchdog; this says in one line what it needs and how many blocks would fit, before that."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..units import fmt_bytes
from ..vocab import DeviceType

# what training keeps beside each parameter with memprobe's AdamW: its gradient and the optimizer's two moments
STATE_COPIES = 3


@dataclass(frozen=True)
class ModelBytes:
    """The bytes of a built model's parameters on this rank: all of them, and those of its blocks."""

    parameters: int
    blocks: int
    block_count: int


def model_bytes(model, blocks) -> ModelBytes:
    """This rank's bytes of ``model``'s parameters and of ``blocks``' (a DTensor's local shard, not its global size)."""

    def local(params) -> int:
        total = 0
        for p in params:
            t = p.to_local() if hasattr(p, "to_local") else p
            total += t.numel() * t.element_size()
        return total

    count = len(list(blocks.children())) if blocks is not None else 0
    block_bytes = local(blocks.parameters()) if blocks is not None else 0
    return ModelBytes(parameters=local(model.parameters()), blocks=block_bytes, block_count=count)


def available_bytes(device) -> int | None:
    """The memory left on ``device``: the GPU's free memory as its driver says; on the CPU the kernel's MemAvailable
    (what can be allocated without swapping). None where neither can be read."""
    if device.type == DeviceType.CUDA:
        import torch

        return torch.cuda.mem_get_info(device)[0]
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def too_big(sizes: ModelBytes, available: int, *, has_layers: bool) -> str | None:
    """Why ``sizes`` cannot train in ``available`` more bytes (its parameters already allocated), with the blocks that
    would fit; None when the parameters' gradients and AdamW's moments fit."""
    needed = STATE_COPIES * sizes.parameters
    if needed <= available:
        return None
    head = (
        f"the model's parameters take {fmt_bytes(sizes.parameters)} here, and training them needs "
        f"{fmt_bytes(needed)} more for their gradients and AdamW's two moments (activations on top), but "
        f"{fmt_bytes(available)} is left"
    )
    if not has_layers or sizes.block_count == 0 or sizes.blocks == 0:
        return head + ": build a smaller model"
    per_block = sizes.blocks / sizes.block_count
    rest = sizes.parameters - sizes.blocks  # the embedding, the output projection, the final norm
    # (1 + STATE_COPIES) x (rest + n x per_block) within what is left plus what the parameters hold now
    fit = int(((available + sizes.parameters) / (1 + STATE_COPIES) - rest) // per_block)
    if fit >= 1:
        return head + f"; --layers {min(fit, sizes.block_count - 1)} would fit at the least (a smaller flavor too)"
    return head + f"; even one block does not fit: the rest of the model alone takes {fmt_bytes(rest)} (a smaller flavor)"


def check_fits(model, blocks, device, *, has_layers: bool) -> None:
    """ConfigError (exit 2) when the built model cannot train here at all (:func:`too_big`)."""
    available = available_bytes(device)
    if available is None:
        return
    why = too_big(model_bytes(model, blocks), available, has_layers=has_layers)
    if why is not None:
        raise ConfigError(f"this probe cannot train on this {device.type}: {why}")

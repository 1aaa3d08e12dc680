"""Whether a probe's model can train on this machine at all, said before anything real is built: its parameters,
their gradients, AdamW's two moments (each the size of the parameter as it trains: this rank's fp32 shard under FSDP,
bf16 without it) and the temporary of its update (:func:`training_bytes`), and the whole model in fp32 as it is built
(all of it at once, before FSDP shards it or it is cast), against the memory the device has free (the GPU's free
memory; on the CPU the kernel's MemAvailable, shared by the ranks torchrun started on this host). A lower bound
(activations, the compiler's and the allocator's own memory come on top): a probe it refuses could not have run; one
it lets through may still run out of memory, which the run then records (status ``oom``, exit 4).

The parameters are counted on the model its family builds on the ``meta`` device (shapes and dtypes: no memory, no
initialisation; milliseconds), before the real build (:func:`check_planned`). The README's ``--repro torchtitan
--flavor 8B --layers 2`` on a 24 GiB CPU machine used 19 GB while still compiling its first step and was stopped by
the user's watchdog; counted once built, it was refused 98 s in, having built 12.5 GiB of real weights; counted on
the meta device, 6 s in, before any. A model the meta device cannot build (a factory of the user's that reads its
tensors' values) is counted once built instead, before its first step (:func:`check_built`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from math import prod

from ..errors import ConfigError, Interrupted
from ..units import fmt_bytes
from ..vocab import DeviceType

# what training keeps beside each parameter with memprobe's AdamW: its gradient and the optimizer's two moments
STATE_COPIES = 3


@dataclass(frozen=True)
class ModelBytes:
    """The bytes of a model's parameters: all of them, those of its blocks, and its largest parameter's."""

    parameters: int
    blocks: int
    block_count: int
    largest: int = 0

    @property
    def rest(self) -> int:
        """What is outside the blocks: the embedding, the output projection, the final norm."""
        return self.parameters - self.blocks

    def blocks_within(self, room: float) -> int | None:
        """How many blocks fit in ``room`` bytes beside the rest (None: no blocks to count)."""
        if self.block_count == 0 or self.blocks == 0:
            return None
        return int((room - self.rest) // (self.blocks / self.block_count))


@dataclass(frozen=True)
class Plan:
    """A probe's parameters here: as they train on this rank (``trained``), and as its family builds them (``built``:
    the whole model in fp32, before FSDP shards it or it is cast to bf16; None once it is built)."""

    trained: ModelBytes
    built: ModelBytes | None = None


def _sizes(model, blocks, bytes_of) -> ModelBytes:
    count = len(list(blocks.children())) if blocks is not None else 0
    block_bytes = sum(bytes_of(p) for p in blocks.parameters()) if blocks is not None else 0
    each = [bytes_of(p) for p in model.parameters()]
    return ModelBytes(parameters=sum(each), blocks=block_bytes, block_count=count, largest=max(each, default=0))


def model_bytes(model, blocks) -> ModelBytes:
    """This rank's bytes of a built ``model``'s parameters and of ``blocks``' (a DTensor's local shard, not its global
    size)."""

    def local(p) -> int:
        t = p.to_local() if hasattr(p, "to_local") else p
        return t.numel() * t.element_size()

    return _sizes(model, blocks, local)


def shard_numel(shape, rank: int, world: int) -> int:
    """The elements of ``rank``'s FSDP2 shard of a parameter of ``shape``: dim 0 cut into ``world`` chunks as
    ``torch.chunk`` cuts it (the last ranks' may be short or empty)."""
    if not shape:
        return 1
    rows = shape[0]
    chunk = -(-rows // world)
    return max(0, min(chunk, rows - rank * chunk)) * prod(shape[1:])


def planned_bytes(model, blocks, shard: tuple[int, int] | None) -> Plan:
    """A model built in fp32 (on the meta device: nothing allocated) as it will train on this rank: each parameter's
    FSDP2 shard (``shard``: this rank and the world's size), or without FSDP the model cast to bf16; and as built."""

    def trained(p) -> int:
        if shard is None:
            return p.numel() * (2 if p.is_floating_point() else p.element_size())
        return shard_numel(tuple(p.shape), *shard) * p.element_size()

    def whole(p) -> int:
        return p.numel() * p.element_size()

    return Plan(trained=_sizes(model, blocks, trained), built=_sizes(model, blocks, whole))


def available_bytes(device) -> int | None:
    """The memory left on ``device``: the GPU's free memory as its driver says; on the CPU the kernel's MemAvailable
    (what can be allocated without swapping). None where neither can be read."""
    if device.type == DeviceType.CUDA:
        import torch

        return torch.cuda.mem_get_info(device)[0]
    return host_available_bytes()


def host_available_bytes() -> int | None:
    """The host's memory that can be allocated without swapping: the kernel's MemAvailable (/proc/meminfo); None
    where it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def training_bytes(trained: ModelBytes) -> int:
    """What training takes at the optimizer step: the parameters, their gradients, AdamW's two moments, and the
    denominator of its update (``sqrt`` of the second moment), which it makes one parameter at a time at the least
    (its foreach implementation, torch's default on CUDA, makes every parameter's at once): the largest counts."""
    return (1 + STATE_COPIES) * trained.parameters + trained.largest


def too_big(plan: Plan, free: int, *, has_layers: bool, sharing: str = "") -> str | None:
    """Why ``plan`` cannot train in ``free`` bytes (its parameters not yet allocated), with the blocks that would fit;
    None when training fits (:func:`training_bytes`), and so does the model as it is built. ``sharing``: what
    ``free`` is a share of, said after it."""
    trained = plan.trained
    training = training_bytes(trained)
    building = plan.built.parameters if plan.built is not None else 0
    if max(training, building) <= free:
        return None
    room = f"{fmt_bytes(free)} is free{sharing}"
    if training >= building:
        head = (
            f"the model's parameters take {fmt_bytes(trained.parameters)} here, and training them needs "
            f"{fmt_bytes(training - trained.parameters)} more for their gradients, AdamW's two moments and its "
            f"update's temporary ({fmt_bytes(training)} in all, activations on top), but {room}"
        )
    else:
        head = (
            f"the model is built whole in fp32 before FSDP shards it: its parameters take {fmt_bytes(building)} at "
            f"once ({fmt_bytes(trained.parameters)} on this rank once sharded), but {room}"
        )
    return head + _what_fits(plan, free, has_layers)


def _what_fits(plan: Plan, free: int, has_layers: bool) -> str:
    """The advice after a refusal: the --layers that fit in ``free``, while training and while building."""
    trained = plan.trained
    limits = [(trained, (free - trained.largest) / (1 + STATE_COPIES))]
    limits += [(plan.built, free)] if plan.built is not None else []
    fits = [(sizes.blocks_within(room), sizes) for sizes, room in limits]
    if not has_layers or any(fit is None for fit, _ in fits):
        return ": build a smaller model"
    fit, sizes = min(fits, key=lambda f: f[0])
    if fit >= 1:
        return f"; --layers {min(fit, trained.block_count - 1)} would fit at the least (a smaller flavor too)"
    return f"; even one block does not fit: the rest of the model alone takes {fmt_bytes(sizes.rest)} (a smaller flavor)"


def _room(device) -> tuple[int, int] | None:
    """The memory free for this rank, and how many ranks share the device's: on the CPU, those torchrun started on
    this host (each builds and trains at once in the same memory); None where it cannot be read."""
    from .launch import launched_by_torchrun

    free = available_bytes(device)
    if free is None:
        return None
    ranks = 1
    if device.type != DeviceType.CUDA and launched_by_torchrun():
        ranks = max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
    return free // ranks, ranks


def _refuse(plan: Plan, room: tuple[int, int], device, cfg) -> None:
    free, ranks = room
    sharing = f" for this rank of the {ranks} on this host" if ranks > 1 else ""
    why = too_big(plan, free, has_layers=getattr(cfg.target, "layers", None) is not None, sharing=sharing)
    if why is not None:
        raise ConfigError(f"this probe cannot train on this {device.type}: {why}")


def _meta_plan(cfg) -> Plan | None:
    """``cfg``'s model as its family builds it on the meta device, counted as it will train here; None where it
    cannot be built there."""
    import torch

    from .build import fsdp_shard

    try:
        target = cfg.target.build(torch.device("meta"), cfg.seed, cfg.recipe)
        return planned_bytes(target.model, target.blocks, fsdp_shard(cfg))
    except (Interrupted, KeyboardInterrupt):
        raise
    except Exception:
        # a model the meta device cannot build: a factory of the user's that reads its tensors' values (`.item()`, a
        # shape computed from data, a lazy module), or calls an operator meta tensors lack. Nothing is said of it
        # here: the real build runs it again, and says what is wrong with it if anything is; check_built counts it.
        return None


def check_planned(cfg, device) -> bool:
    """ConfigError (exit 2) when ``cfg``'s model cannot train on ``device`` at all (:func:`too_big`), counted on the
    model its family builds on the meta device, before anything real is built. False when the family could not build
    it there: then :func:`check_built` counts it once built."""
    plan = _meta_plan(cfg)
    if plan is None:
        return False
    room = _room(device)  # once the family's imports are done
    if room is not None:  # else nothing to hold it against, now or once built
        _refuse(plan, room, device, cfg)
    return True


def check_built(cfg, model, blocks, device) -> None:
    """:func:`check_planned` for a model the meta device could not build, counted once built (this rank's shards, as
    they train; their memory is taken already, so it is added to what is left)."""
    room = _room(device)
    if room is None:
        return
    sizes = model_bytes(model, blocks)
    _refuse(Plan(trained=sizes), (room[0] + sizes.parameters, room[1]), device, cfg)

"""What a probe builds and how, in torchtitan's order: the model its family builds (:mod:`memprobe.targets`), then
float8 -> activation checkpointing -> per-block torch.compile -> FSDP2 (or a bf16 cast without it). Each step has one
place here; the steps themselves are :mod:`memprobe.capture.stack`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from ..config import ProbeConfig
from ..errors import ConfigError
from ..rundir import records as R
from ..targets import BuiltModel
from ..vocab import DeviceChoice, DeviceType, Recipe
from . import stack


def resolve_device(requested: str):
    import torch

    if requested == DeviceChoice.AUTO:
        requested = DeviceType.CUDA if torch.cuda.is_available() else DeviceType.CPU
    if requested == DeviceType.CUDA:
        if not torch.cuda.is_available():
            raise ConfigError(
                "--device cuda: no CUDA device is available (this torch build or machine has none); use --device cpu"
            )
        if "LOCAL_RANK" in os.environ:  # one GPU per rank under torchrun
            return torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def check_float8_support(recipe: str, device) -> None:
    import torch

    if recipe == Recipe.BF16:
        return
    if device.type == DeviceType.CPU:
        from ..compat.torch import why_no_cpu_float8

        why = why_no_cpu_float8(recipe)
        if why:
            raise ConfigError(why)
        return
    if device.type != DeviceType.CUDA:
        return
    from ..compat.torchao import why_not_on

    why = why_not_on(recipe, torch.cuda.get_device_capability(device), torch.cuda.get_device_name(device))
    if why:
        raise ConfigError(why)


def check_runnable(cfg: ProbeConfig, device) -> None:
    """What this process's torch, torchao and device can run of ``cfg``: ConfigError, before anything is built."""
    from ..compat import torch as torch_compat
    from ..compat.torchao import require as require_float8

    if why := torch_compat.why_unavailable():  # an API a probe uses
        raise ConfigError(why)
    check_float8_support(cfg.recipe, device)
    require_float8(cfg.recipe)
    if cfg.fsdp and device.type == DeviceType.CPU and (why := torch_compat.why_no_cpu_fsdp()):
        raise ConfigError(why)
    if cfg.fake_world and (why := torch_compat.why_no_fake_world()):
        raise ConfigError(why)
    if why := cfg.mode.unrunnable(cfg):
        raise ConfigError(why)


def start_compile_workers() -> None:
    """Start Inductor's pool of compile worker processes now, while the model is built and traced: it takes
    seconds to start. torch's own ``inductor`` backend starts it when Dynamo first calls it; memprobe's
    backend calls ``compile_fx`` itself, so without this the pool would start at the first kernel, and the
    kernels before it were ready would compile one by one in this process."""
    try:
        from torch._inductor.async_compile import maybe_warm_pool
    except ImportError:  # a torch without it: the pool starts at the first kernel
        return
    maybe_warm_pool()


@dataclass
class Built:
    """The probe's model as it trains: what its family built, its blocks, the batch (cast as the model runs it),
    whether building created the default process group (to destroy when the probe ends), and report.json's
    ``model`` (described as built, before float8, AC and compile wrapped its blocks: their signatures name graph
    inputs)."""

    target: BuiltModel
    model: object  # nn.Module
    blocks: object  # the block container
    batch: tuple
    created_process_group: bool
    described: R.ModelShape


def float8_step(model, target: BuiltModel, cfg: ProbeConfig, device) -> None:
    """torchao float8 training on the eligible linears and grouped experts (a model built with float8 linears already
    is left); what stays bf16 and why is said in the run's notes."""
    if not target.float8_done:
        target.notes += stack.apply_float8(model, cfg.recipe, device, skip=target.float8_skip)


def ac_step(blocks, target: BuiltModel, cfg: ProbeConfig, decisions: dict) -> None:
    """Activation checkpointing per block, as its mode applies it (:mod:`memprobe.checkpointing`; a per-op policy's
    decisions counted in ``decisions``)."""
    cfg.mode.apply(blocks, target, cfg, decisions)


def compile_step(blocks, cfg: ProbeConfig, backend: Callable) -> None:
    """torch.compile each block with memprobe's recording backend."""
    if cfg.compile:
        stack.apply_compile(blocks, backend=backend)


def fsdp_step(model, blocks, cfg: ProbeConfig, device) -> bool:
    """FSDP2 per block and at the root (its process group made when there is none: rank 0 of a fake world of
    ``--fake-world`` ranks where asked), or the model cast to bf16; True when it created the default process group."""
    from .launch import launched_by_torchrun

    created = stack.init_process_group(device, cfg.fake_world) if cfg.fsdp or launched_by_torchrun() else False
    if cfg.fsdp:
        stack.apply_fsdp(model, blocks, reshard_after_forward=cfg.reshard_after_forward)
    else:
        import torch

        model.to(torch.bfloat16)
    return created


def fsdp_shard(cfg: ProbeConfig) -> tuple[int, int] | None:
    """The rank and world size :func:`fsdp_step` shards the parameters over, None without FSDP (the model is cast to
    bf16): the group that exists, rank 0 of a fake world, this rank of torchrun's, or the one rank of the group it
    makes. Known before the group is made (:mod:`.fits` reads it before the build)."""
    from .launch import launched_by_torchrun

    if not cfg.fsdp:
        return None
    import torch.distributed as dist

    if dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    if cfg.fake_world:
        return 0, cfg.fake_world
    if launched_by_torchrun():
        return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    return 0, 1


def build(cfg: ProbeConfig, device, backend: Callable, decisions: dict) -> Built:
    """What ``cfg``'s family builds on ``device``, with the steps applied in torchtitan's order."""
    import torch

    from .model import cast_batch, describe

    target = cfg.target.build(device, cfg.seed, cfg.recipe)
    described = describe(target)
    model, blocks = target.model, target.blocks
    float8_step(model, target, cfg, device)
    ac_step(blocks, target, cfg, decisions)
    compile_step(blocks, cfg, backend)
    created = fsdp_step(model, blocks, cfg, device)
    batch = target.batch if cfg.fsdp else cast_batch(target.batch, torch.bfloat16)
    return Built(target, model, blocks, batch, created, described)

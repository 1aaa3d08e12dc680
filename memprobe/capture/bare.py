"""The training a probe does, without memprobe's recording: the configuration's model built by its family, the same
stack (float8 -> SAC -> per-block torch.compile with Inductor -> FSDP2), AdamW, ``--steps`` steps, printing the loss
and the bytes the autograd graph holds for backward per step. It is what memprobe's overhead is measured against
(bench/overhead.py) and what a user runs to see the training alone::

    python -m memprobe.capture.bare --recipe rowwise --ac-policy torchtitan-2025-01 --layers 2

It takes the flags of `memprobe run` that say what to build and how to train it (the same declarations).
"""

from __future__ import annotations

import argparse
import sys

from ..config import ProbeConfig, config_from_values
from ..errors import MemprobeError
from ..fields import KINDS, Kind, declared, flag_of


def parser() -> argparse.ArgumentParser:
    """The flags of every configuration field but a script's command, from their declarations (:mod:`memprobe.fields`)."""
    ap = argparse.ArgumentParser(
        prog="python -m memprobe.capture.bare", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for f, o in declared(ProbeConfig):
        if o.after_dashes:  # a user's script trains itself: `memprobe run -- COMMAND`
            continue
        help_text = f"{o.help} [default: {f.default}]"
        if o.kind == Kind.FLAG:
            ap.add_argument(flag_of(f), dest=f.name, action=argparse.BooleanOptionalAction, default=f.default, help=help_text)
        elif o.kind == Kind.OPS:
            ap.add_argument(flag_of(f), dest=f.name, action="append", default=[], metavar=o.metavar, help=help_text)
        else:
            words, parse = o.words(), KINDS[o.kind].parse
            default = None if o.preset else f.default
            ap.add_argument(
                flag_of(f), dest=f.name, type=parse, default=default, choices=words, metavar=o.metavar, help=help_text
            )
    return ap


def train(cfg: ProbeConfig) -> None:
    import torch

    from .build import build, resolve_device
    from .stack import loss_fn, saved_tensor_bytes

    device = resolve_device(cfg.device)
    built = build(cfg, device, "inductor", {})
    optimizer = torch.optim.AdamW(built.model.parameters(), lr=cfg.lr)
    # eager checkpointed regions cannot be inspected without consuming what they saved
    inspectable = not cfg.mode.eager_regions(cfg)
    for step in range(cfg.steps):
        loss = loss_fn(built.model(*built.batch))
        saved = saved_tensor_bytes(loss) if inspectable else None
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        held = f"{saved / 2**20:.2f} MiB" if saved is not None else "not inspected (eager checkpointing)"
        print(f"step {step}: loss {loss.item():.4f}  saved for backward {held}", flush=True)
    if built.created_process_group:
        torch.distributed.destroy_process_group()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        cfg = config_from_values(vars(args))
        train(cfg)
    except MemprobeError as e:
        print(f"memprobe.capture.bare: error: {e}", file=sys.stderr)
        return e.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())

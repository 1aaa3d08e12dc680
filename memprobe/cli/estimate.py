"""``memprobe estimate RUN_DIR``: full-model memory at a target depth and FSDP world size."""

from __future__ import annotations

from pathlib import Path

import click

from .options import debug_option
from .output import emit


@click.command(short_help="Estimate full-model memory from a probe of a few blocks.")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--layers",
    type=click.IntRange(min=1, max=10**6),
    default=None,
    help="Target number of blocks (default: the preset's full depth).",
)
@click.option(
    "--world", type=click.IntRange(min=1, max=10**6), default=None, help="Target FSDP world size (ranks).  [default: the probe's]"
)
@click.option("--batch", type=click.IntRange(min=1, max=10**6), default=None, help="Target batch size (default: the probe's).")
@click.option("--seq", type=click.IntRange(min=1, max=10**6), default=None, help="Target sequence length (default: the probe's).")
@click.option("--json", "as_json", is_flag=True, help="Print the estimate as JSON.")
@debug_option
def estimate(run_dir: Path, layers, world, batch, seq, as_json: bool) -> None:
    """Scale what a probe of k blocks measured to L blocks on W ranks.

    Every component is scaled by the rule that governs it: sharded parameters, gradients
    and optimizer state with blocks/W; weight-derived saved values with blocks only (they
    are computed from unsharded weights); saved activations with blocks x tokens. The
    result is labelled an estimate and shown next to what the probe measured.

    \b
    Example (probe 2 Llama-3-8B blocks, estimate 32 on 8 GPUs):
      memprobe run --repro transformer --preset llama3-8b --batch 1 --seq 8192 \\
                   --out probe8b
      memprobe estimate probe8b --layers 32 --world 8
    """
    from ..analysis.estimate import estimate as make_estimate
    from ..analysis.recorded import load_run
    from ..errors import ConfigError
    from ..report.console.estimate import print_estimate

    report = load_run(run_dir)
    layers = layers or report.config.probe().target.full_depth()
    if layers is None:
        raise ConfigError("--layers is required (the run has no --preset to take the full depth from)")
    world = world or (report.distributed.world_size if report.distributed else None) or 1
    result = make_estimate(report, layers=layers, world=world, batch=batch, seq=seq)
    emit(result, as_json=as_json, console=lambda: print_estimate(result, report))

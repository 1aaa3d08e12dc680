"""``memprobe repro RUN_OR_DIFF_DIR -o repro.py``: a standalone script that reproduces a run, or both sides of a diff,
with torch alone."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import NAMES_CODE, ProbeConfig
from ..fields import declared
from .options import config_options
from .output import refuse_existing
from .probes import ProbeOptions, force_help, json_help, out_help, probe_options

# of the configuration's flags, only the model a recorded run may read or run is the user's to name
RECORDED = tuple(f.name for f, o in declared(ProbeConfig) if f.name not in NAMES_CODE and not o.after_dashes)


@click.command(short_help="Write a standalone script that reproduces a run or a diff with torch alone.")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), default=Path("repro.py"), show_default=True, help="The script to write."
)
@click.option(
    "--check",
    is_flag=True,
    help="Then run the script with this interpreter (python SCRIPT --check): exit 1 unless it reproduces the recorded figures.",
)
@click.option(
    "--minimize",
    is_flag=True,
    help="First make a diff's configurations as small as its difference lets them be (probes each step; runs go in --out).",
)
@config_options(leave_out=RECORDED, because="repro takes the configuration RUN_OR_DIFF_DIR recorded")
@probe_options(
    out=out_help("repro"), force=force_help(" and an existing --output file"), json=json_help("its record"), jobs=False
)
def repro(path, output, check, minimize, probes: ProbeOptions, **kw) -> None:
    """Write one Python file that reproduces PATH, a run directory or a diff directory, with torch alone.

    The script rebuilds the recorded configuration (the model at its recorded sizes, the float8
    recipe, the activation checkpointing and its SAC save list, torch.compile per block, FSDP2 on
    one process or a fake process group), trains the recorded steps, and measures what autograd
    saves for backward in the last one (saved_tensors_hooks: each storage once, parameters apart)
    and, on CUDA, the step's peak. It prints them; with --check it exits 1 unless they are the
    figures it embeds from the run. A diff's script runs both sides and asserts B - A, or, when the
    sides ran with different software, one side per interpreter (--side a|b).

    A --model file is written into the script by the path the run named: your code, run when you
    run the script. A --hf-config is read to write it in only when you name it (--hf-config PATH);
    --check and --minimize run the model, so they need it named too.

    \b
    Examples:
      memprobe repro memprobe-runs/20261129T150000Z-rowwise -o repro.py --check
      memprobe repro memprobe-runs/20261129T151000Z-diff --minimize -o repro.py
    """
    from ..orchestrate.repro import make_repro
    from ..report.console.repro import print_repro

    refuse_existing(output, force=probes.force)
    named = {name: kw[name] for name in NAMES_CODE}
    result = probes.run_probes(make_repro, path, output, named=named, minimize=minimize, check=check)
    probes.emit(result, console=lambda: print_repro(result))

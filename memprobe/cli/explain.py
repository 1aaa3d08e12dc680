"""``memprobe explain``: which edit (of the SAC policy, or of the checkpointing mode) frees the most memory for the
least recompute."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import NAMES_CODE
from .options import config_options, config_values, given_config_flags
from .output import wide_option
from .probes import ProbeOptions, force_help, json_help, out_help, probe_options


@click.command(short_help="Rank SAC policy or checkpointing edits by memory freed per added recompute.")
@click.argument("run_dir", required=False, type=click.Path(path_type=Path))
@config_options
@click.option(
    "--full", is_flag=True, help="Generate kernels for every run (default: analysis-only, the same saved table, faster)."
)
@wide_option
@probe_options(
    out=out_help("explain"), force=force_help(), json=json_help("explain.json"), markdown="Print Markdown.", python=True
)
def explain(run_dir, full, wide, probes: ProbeOptions, **kw) -> None:
    """Try each edit that could save less for backward, re-partition, and rank the edits.

    Under per-op SAC (--ac op) the edits are the ops the policy saves, each moved to recompute;
    without checkpointing (--ac none), the ways to checkpoint the blocks (--ac full, --ac op with
    the policy, the partitioner's memory budget); under --ac full, a per-op policy that tags
    every op it runs for recompute (it reaches ops a region's tag may not, such as those inside
    an autograd.Function on torch 2.11). For --ac memory-budget it says to use `memprobe sweep`.

    Reports, per candidate edit, the bytes it frees per step, the recompute it adds in
    backward (FLOPs and bytes moved, estimated from the graphs' shapes) and the ratio, and
    prints the concrete edit. Saved values the partitioner chose on its own are listed with
    what would change their fate. RUN_DIR takes a finished run as the base; otherwise the
    configuration flags say what to run. A finished run of a --model or --hf-config model is
    run again only when the same --model / --hf-config is given: a run directory never names
    code to run by itself. Every run is a probe in a fresh process, with the interpreter
    RUN_DIR was recorded with: a run recorded with another one (another torch) is refused
    in one line naming it until --python names it (or names this one).

    \b
    Example:
      memprobe explain --recipe rowwise --ac-policy torchtitan-2025-01
    """
    from ..orchestrate.explain import run_explain
    from ..report.console.explain import print_explain
    from ..report.markdown import explain_markdown
    from ..verbs import explain_base

    given = ", ".join(given_config_flags(kw, keep=NAMES_CODE))
    cfg, named = explain_base(run_dir, config_values(kw), given, f"RUN_DIR {run_dir}")
    result, out = probes.run_probes(run_explain, cfg, run_dir, configs=[cfg] if cfg else [], full=full, named=named)
    probes.emit(result, markdown=explain_markdown, console=lambda: print_explain(result, out, wide=wide))

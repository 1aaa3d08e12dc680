"""``memprobe sweep``: saved bytes and measured peak against the partitioner's activation memory budget."""

from __future__ import annotations

from pathlib import Path

import click

from ..vocab import AcMode
from .options import config_from_options, config_options
from .output import refuse_existing
from .probes import ProbeOptions, force_help, json_help, out_help, probe_options


@click.command(short_help="Sweep the partitioner's memory budget (--ac memory-budget): saved bytes and peaks.")
@config_options(leave_out=("ac", "memory_budget"), because="the sweep probes --ac memory-budget at each of --memory-budgets")
@click.option(
    "--memory-budgets",
    "--budgets",
    "budgets",
    default="0,0.25,0.5,0.75,1",
    show_default=True,
    metavar="B1,B2,...",
    help="The activation memory budgets to probe, from 0 (recompute what it can) to 1 (runtime-optimal).",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a self-contained HTML page with the plot of bytes against memory budget.",
)
@probe_options(out=out_help("sweep"), force=force_help(", and the --html file"), json=json_help("sweep.json"), python=True)
def sweep(budgets, html_path, probes: ProbeOptions, **kw) -> None:
    """Probe one configuration at several activation memory budgets (torchtitan's MemoryBudgetAC: the
    compiler partitioner trades recompute for memory) and show, per memory budget, the bytes saved for
    backward and the measured step peak. Each memory budget is a probe in a fresh process. A point where
    less memory budget gives a higher peak (or more saved bytes) is flagged: pytorch#197838 reports one.

    \b
    Example:
      memprobe sweep --recipe bf16 --memory-budgets 0,0.1,0.25,0.5,1 \\
                     --html sweep.html
    """
    from ..orchestrate.sweep import parse_budgets, run_sweep
    from ..report.console.sweep import print_sweep
    from ..report.pages import write_sweep_html

    values = parse_budgets(budgets)
    cfg = config_from_options({**kw, "ac": AcMode.MEMORY_BUDGET})
    refuse_existing(html_path, force=probes.force)
    result, out = probes.run_probes(run_sweep, cfg, values, configs=[cfg])
    probes.emit(result, console=lambda: print_sweep(result, out))
    if html_path is not None:
        write_sweep_html(result, html_path)
        probes.say(f"html report: {html_path}")

"""``memprobe sweep``: saved bytes and measured peak against the partitioner's activation memory budget."""

from __future__ import annotations

from pathlib import Path

import click

from .options import config_from_options, config_options, emit, output_options, probes_options, refuse_existing


@click.command(short_help="Sweep the partitioner's memory budget (--ac budget): saved bytes and peak per budget.")
@config_options
@click.option(
    "--budgets",
    default="0,0.25,0.5,0.75,1",
    show_default=True,
    metavar="B1,B2,...",
    help="The activation memory budgets to probe, from 0 (recompute what it can) to 1 (runtime-optimal).",
)
@probes_options("sweep", force_also=", and the --html file")
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a self-contained HTML page with the plot of bytes against budget.",
)
@output_options
def sweep(budgets, jobs, out, force, html_path, as_json, quiet, verbose, **kw) -> None:
    """Probe one configuration at several activation memory budgets (torchtitan's MemoryBudgetAC: the
    compiler partitioner trades recompute for memory) and show, per budget, the bytes saved for
    backward and the measured step peak. Each budget is a probe in a fresh process. A point where
    less budget gives a higher peak (or more saved bytes) is flagged: pytorch#197838 reports one.

    \b
    Example:
      memprobe sweep --recipe bf16 --budgets 0,0.1,0.25,0.5,1 --html sweep.html
    """
    from ..orchestrate.process import slots_for
    from ..orchestrate.sweep import parse_budgets, run_sweep
    from ..report import console as render

    values = parse_budgets(budgets)
    cfg = config_from_options({**kw, "ac": "budget"})
    refuse_existing(html_path, force=force)
    slots, gpus = slots_for([cfg], jobs)
    with render.progress_printer(enabled=not quiet and not as_json) as progress:
        result, out = run_sweep(cfg, values, out=out, force=force, progress=progress, verbose=verbose, slots=slots, gpus=gpus)
    emit(result, as_json=as_json, console=lambda: render.print_sweep(result, out))
    if html_path is not None:
        from ..capture.rundir import atomic_write_text
        from ..report.html import render_sweep

        atomic_write_text(html_path, render_sweep(result))
        if not as_json:
            click.echo(f"html report: {html_path}")

"""``memprobe explain``: which SAC policy edit frees the most memory for the least recompute."""

from __future__ import annotations

from pathlib import Path

import click

from .options import config_from_options, config_options, emit, output_options, probes_options, wide_option


@click.command(short_help="Rank SAC policy edits by memory freed per added recompute.")
@click.argument("run_dir", required=False, type=click.Path(path_type=Path))
@config_options
@click.option(
    "--full", is_flag=True, help="Generate kernels for every run (default: analysis-only, the same saved table, faster)."
)
@probes_options("explain")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown.")
@wide_option
@output_options
def explain(run_dir, full, jobs, out, force, as_markdown, wide, as_json, quiet, verbose, **kw) -> None:
    """For each op the SAC policy saves, re-partition with it recomputed and rank the edits.

    \b
    Reports, per candidate edit, the bytes it frees per step, the recompute it adds in
    backward (FLOPs and bytes moved, estimated from the graphs' shapes) and the ratio, and
    prints the concrete edit. Saved values the partitioner chose on its own are listed with
    what would change their fate. RUN_DIR takes a finished run as the base; otherwise the
    configuration flags say what to run. Every run is a probe in a fresh process.

    \b
    Example:
      memprobe explain --recipe rowwise --ac-policy torchtitan-2025-01
    """
    from ..orchestrate.explain import run_explain
    from ..orchestrate.process import slots_for
    from ..report import console as render
    from ..report.markdown import explain_markdown

    cfg = None if run_dir is not None else config_from_options(kw)
    slots, gpus = slots_for([cfg] if cfg else [], jobs)
    with render.progress_printer(enabled=not quiet and not (as_json or as_markdown)) as progress:
        result, out = run_explain(
            cfg=cfg, run_dir=run_dir, out=out, force=force, full=full, progress=progress, verbose=verbose, slots=slots, gpus=gpus
        )
    emit(
        result,
        as_json=as_json,
        as_markdown=as_markdown,
        markdown=explain_markdown,
        console=lambda: render.print_explain(result, out, wide=wide),
    )

"""``memprobe report``: a self-contained HTML page (and a Perfetto trace) of a run or a diff."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import RunDirError
from .options import debug_option
from .output import refuse_existing


@click.command(short_help="Write a self-contained HTML report (and a Perfetto trace) of a run or diff.")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(path_type=Path),
    default=None,
    help="HTML file to write (default PATH/report.html).",
)
@click.option(
    "--trace",
    "trace_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a Chrome/Perfetto trace JSON of the measured step (run directories).",
)
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@debug_option
def report(path: Path, output: Path | None, trace_path: Path | None, force: bool) -> None:
    """Render PATH (a run directory, or a directory written by `memprobe diff`) as one HTML file.

    The page works offline from disk: no CDN, no network fetch (its Content-Security-Policy
    forbids any). It shows the configuration and versions, per-phase peaks, memory over the
    measured step by category with phase bands, each compiled graph's simulated live bytes
    along its output code, the saved-for-backward table (sortable) linked to the embedded
    output code, and the findings; for a diff, both runs on one axis and the ranked difference.
    --trace writes the step as a Chrome trace (open it in ui.perfetto.dev or chrome://tracing).

    \b
    Examples:
      memprobe report memprobe-runs/20261129T150000Z-rowwise -o rowwise.html
      memprobe report memprobe-runs/20261129T150000Z-diff-bf16-vs-fp8 -o diff.html
      memprobe report RUN_DIR --trace step.json
    """
    from ..report.pages import write_html, write_trace

    if not path.is_dir():
        raise RunDirError(f"{path} is not a directory")
    output = output or path / "report.html"
    refuse_existing(output, trace_path, force=force)
    write_html(path, output)
    click.echo(f"wrote {output}")
    if trace_path is not None:
        write_trace(path, trace_path)
        click.echo(f"wrote {trace_path}")

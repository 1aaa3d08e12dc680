"""``memprobe report``: a self-contained HTML page (and a Perfetto trace) of a run or a diff."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import RunDirError
from .options import debug_option
from .output import refuse_existing
from .snapshots import names_snapshot, report_snapshot


@click.command(short_help="Write a self-contained HTML report (and a Perfetto trace) of a run, diff or snapshot.")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(path_type=Path),
    default=None,
    help="HTML file to write (default PATH/report.html; for a snapshot, beside it: SNAPSHOT.html).",
)
@click.option(
    "--trace",
    "trace_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write a Chrome/Perfetto trace JSON of the measured step (run directories; a snapshot's whole history).",
)
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@debug_option
def report(path: Path, output: Path | None, trace_path: Path | None, force: bool) -> None:
    """Render PATH (a run directory, a directory written by `memprobe diff`, or a CUDA memory snapshot taken
    elsewhere: a file) as one HTML file.

    The page works offline from disk: no CDN, no network fetch (its Content-Security-Policy
    forbids any). It shows the configuration and versions, per-phase peaks, memory over the
    measured step by category with phase bands, each compiled graph's simulated live bytes
    along its output code, the saved-for-backward table (sortable) linked to the embedded
    output code, and the findings; for a diff, both runs on one axis and the ranked difference.
    A snapshot's page: its whole history stacked by category (named from the allocation stacks alone), and what is
    alive at its peak by category and by the innermost frame of your code.
    --trace writes the step as a Chrome trace (open it in ui.perfetto.dev or chrome://tracing).

    \b
    Examples:
      memprobe report memprobe-runs/20261129T150000Z-rowwise -o rowwise.html
      memprobe report memprobe-runs/20261129T150000Z-diff-bf16-vs-fp8 -o diff.html
      memprobe report RUN_DIR --trace step.json
      memprobe report snapshot.pickle -o snapshot.html
    """
    if names_snapshot(path):
        return report_snapshot(path, output, trace_path, force)
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

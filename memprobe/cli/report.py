"""``memprobe report``: a self-contained HTML page (and a Perfetto trace) of a run or a diff."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import RunDirError


def write_html(path: Path, out: Path) -> Path:
    """Render the run or diff directory ``path`` into ``out`` (one HTML file); returns ``out``."""
    from ..analysis.rundir import load_report
    from ..analysis.timeline import timeline
    from ..capture.rundir import atomic_write_text
    from ..report.html import render_run

    if (path / "report.json").is_file():
        report = load_report(path)
        page = render_run(report, path, timeline(report, path))
    elif (path / "diff.json").is_file():
        try:
            result = json.loads((path / "diff.json").read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise RunDirError(f"{path / 'diff.json'} is not valid JSON ({e})") from None
        page = diff_html(result, path)
    else:
        raise RunDirError(f"{path} holds no report.json or diff.json")
    atomic_write_text(out, page)
    return out


def diff_html(result: dict, diff_dir: Path | None = None) -> str:
    """The HTML page of a diff result; each side's timeline is read from its run directory."""
    from ..analysis.rundir import load_report
    from ..analysis.timeline import timeline
    from ..report.html import render_diff

    sides = []
    for key in ("a", "b"):
        source = (result.get(key) or {}).get("source")
        src = Path(source) if source else (diff_dir / key if diff_dir else None)
        try:
            rep = load_report(src) if src else None
            sides.append(timeline(rep, src) if rep else None)
        except RunDirError:
            sides.append(None)  # a side's run directory moved away: the diff table still renders
    return render_diff(result, *sides)


def write_trace(path: Path, out: Path) -> Path:
    from ..analysis.rundir import load_report
    from ..analysis.timeline import timeline
    from ..capture.rundir import atomic_write_json
    from ..report.trace import chrome_trace

    report = load_report(path)
    tl = timeline(report, path)
    if tl is None:
        raise RunDirError(f"{path}: the run measured no memory events (analysis-only?); nothing to trace")
    atomic_write_json(out, chrome_trace(report, tl))
    return out


@click.command(short_help="Write a self-contained HTML report (and a Perfetto trace) of a run or diff.")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("-o", "--output", "output", type=click.Path(path_type=Path), default=None,
              help="HTML file to write (default PATH/report.html).")
@click.option("--trace", "trace_path", type=click.Path(path_type=Path), default=None,
              help="Also write a Chrome/Perfetto trace JSON of the measured step (run directories).")
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
def report(path: Path, output: Path | None, trace_path: Path | None, force: bool, debug: bool) -> None:
    """Render PATH (a run directory, or a directory written by `memprobe diff`) as one HTML file.

    \b
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
    if not path.is_dir():
        raise RunDirError(f"{path} is not a directory")
    output = output or path / "report.html"
    from .run import refuse_existing

    refuse_existing(output, trace_path, force=force)
    write_html(path, output)
    click.echo(f"wrote {output}")
    if trace_path is not None:
        write_trace(path, trace_path)
        click.echo(f"wrote {trace_path}")

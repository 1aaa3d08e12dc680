"""``memprobe show DIR``: render a recorded run, diff, explain or bisect again, without re-running."""

from __future__ import annotations

from pathlib import Path

import click

from .options import debug_option, emit



@click.command(short_help="Render a recorded run (or diff/explain/bisect directory) again.")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the recorded JSON instead.")
@debug_option
def show(path: Path, as_json: bool) -> None:
    """Render PATH again: a run directory (report.json), or a directory written by
    `memprobe diff` (diff.json), `memprobe explain` (explain.json) or `memprobe bisect` (bisect.json)."""
    from ..analysis.rundir import load_report
    from ..errors import RunDirError
    from ..report import console as render

    if (path / "report.json").is_file() or not path.is_dir():
        report = load_report(path)
        emit(report, as_json=as_json, console=lambda: render.print_run(report, path))
        return
    from ..analysis.validate import load_bisect, load_diff, load_explain

    views = {"diff.json": (load_diff, render.print_diff), "explain.json": (load_explain, render.print_explain),
             "bisect.json": (load_bisect, render.print_bisect)}
    for name, (load, view) in views.items():
        if (path / name).is_file():
            result = load(path / name)
            emit(result, as_json=as_json, console=lambda: view(result, path))
            return
    raise RunDirError(f"{path} holds no report.json, diff.json, explain.json or bisect.json")

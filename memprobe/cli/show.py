"""``memprobe show DIR``: render a recorded run, diff, explain or bisect again, without re-running."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .run import emit


@click.command(short_help="Render a recorded run (or diff/explain/bisect directory) again.")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the recorded JSON instead.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
def show(path: Path, as_json: bool, debug: bool) -> None:
    """Render PATH again: a run directory (report.json), or a directory written by
    `memprobe diff` (diff.json), `memprobe explain` (explain.json) or `memprobe bisect` (bisect.json)."""
    from ..analysis.rundir import load_report
    from ..errors import RunDirError
    from ..report import console as render

    if (path / "report.json").is_file() or not path.is_dir():
        report = load_report(path)
        emit(report, as_json=as_json, console=lambda: render.print_run(report, path))
        return
    views = {"diff.json": render.print_diff, "explain.json": render.print_explain, "bisect.json": render.print_bisect}
    for name, view in views.items():
        if (path / name).is_file():
            try:
                result = json.loads((path / name).read_text())
            except (OSError, json.JSONDecodeError) as e:
                raise RunDirError(f"{path / name} is not valid JSON ({e})") from None
            emit(result, as_json=as_json, console=lambda: view(result, path))
            return
    raise RunDirError(f"{path} holds no report.json, diff.json, explain.json or bisect.json")

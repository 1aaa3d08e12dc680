"""``memprobe show DIR``: render a recorded run, diff, explain, bisect or sweep again, without re-running."""

from __future__ import annotations

from pathlib import Path

import click

from .options import debug_option
from .output import emit, refuse_existing, table_options, wide_option
from .snapshots import names_snapshot, show_snapshot


@click.command(short_help="Render a recorded run (or diff/explain/bisect/sweep directory) again, or read a snapshot.")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the recorded JSON instead.")
@click.option("--force", is_flag=True, help="Overwrite existing --csv/--parquet files.")
@table_options
@wide_option
@debug_option
def show(path: Path, as_json: bool, force: bool, csv_path: Path | None, parquet_path: Path | None, wide: bool) -> None:
    """Render PATH again: a run directory (report.json), or a directory written by
    `memprobe diff` (diff.json), `memprobe explain` (explain.json), `memprobe bisect` (bisect.json) or
    `memprobe sweep` (sweep.json). A file is read as a CUDA memory snapshot taken elsewhere
    (torch.cuda.memory._dump_snapshot): what is alive at the peak of its history, by category and by the
    innermost frame of your code.
    Every file is checked as it is read: a directory or a snapshot may come from anyone.

    \b
    Examples:
      memprobe show memprobe-runs/20261129T150000Z-rowwise
      memprobe show snapshot.pickle --json
    """
    refuse_existing(csv_path, parquet_path, force=force)
    if names_snapshot(path):
        return show_snapshot(path, as_json=as_json, csv_path=csv_path, parquet_path=parquet_path, wide=wide)
    from ..analysis.recorded import load_recorded
    from ..report.console.bisect import print_bisect
    from ..report.console.diff import print_diff
    from ..report.console.explain import print_explain
    from ..report.console.run import print_run
    from ..report.console.sweep import print_sweep
    from ..report.tables import export

    kind, data = load_recorded(path)
    wide_views = {"run": print_run, "diff": print_diff, "explain": print_explain}
    views = {"bisect": print_bisect, "sweep": print_sweep}
    if kind in wide_views:
        emit(data, as_json=as_json, console=lambda: wide_views[kind](data, path, wide=wide))
    else:
        emit(data, as_json=as_json, console=lambda: views[kind](data, path))
    if kind in ("run", "diff"):
        export(kind, data, csv_path, parquet_path)

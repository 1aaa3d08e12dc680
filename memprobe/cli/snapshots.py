"""The forms of ``show``, ``report`` and ``diff`` for CUDA memory snapshots taken elsewhere
(``torch.cuda.memory._dump_snapshot`` in any script): memprobe reads the files named, runs nothing, and writes only
the files asked for. A path that is there and is no directory is read as a snapshot
(:func:`~memprobe.rundir.read.is_snapshot_file`)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ConfigError, RunDirError
from ..rundir.read import is_snapshot_file
from .options import refuse_config_flags
from .output import emit, refuse_existing

__all__ = ["diff_snapshot_files", "is_snapshot_file", "names_snapshot", "report_snapshot", "show_snapshot"]


class _Reading:
    """A snapshot being read in a forked process (:class:`~memprobe.forked.Forked`) while this one imports what makes
    its record and renders it; the process that loaded the snapshot's millions of objects leaves without freeing them
    one by one, and this one never holds them."""

    def __init__(self, path: Path, *, with_timeline: bool = False):
        from ..analysis.snapshot_read import read_snapshot
        from ..forked import CAN_FORK, Forked

        # held by the forked reader, which leaves without freeing; read here (no fork), freed before the next is read
        self.path, self.work = path, Forked(read_snapshot, path, with_timeline=with_timeline, hold=CAN_FORK)

    def result(self):
        """The snapshot's record (:class:`~memprobe.analysis.user_snapshot.Analysed`), once it is read."""
        from ..analysis.user_snapshot import analysed

        return analysed(self.work.result(), self.path)


def names_snapshot(path: Path) -> bool:
    """Whether ``path`` is a snapshot file (:func:`is_snapshot_file`); a regular file that is none is refused here,
    saying what it is not (False otherwise: a directory, or what the directory's reader refuses)."""
    if is_snapshot_file(path):
        return True
    try:
        regular = path.is_file()
    except (OSError, ValueError):  # the directory's reader says why it cannot be read
        regular = False
    if regular:
        raise RunDirError(
            f"{path} is not a directory, nor a CUDA memory snapshot (a pickle of protocol 2 or later, as "
            "torch.cuda.memory._dump_snapshot writes)"
        )
    return False


def show_snapshot(path: Path, *, as_json: bool, csv_path: Path | None, parquet_path: Path | None, wide: bool) -> None:
    """``memprobe show SNAPSHOT.pickle``: what is alive at its peak, by category and by the user's frames."""
    reading = _Reading(path)
    from ..report.console.snapshot import print_snapshot
    from ..report.tables import export

    summary = reading.result().summary
    emit(summary, as_json=as_json, console=lambda: print_snapshot(summary, wide=wide))
    export("snapshot", summary, csv_path, parquet_path)


def report_snapshot(path: Path, output: Path | None, trace_path: Path | None, force: bool) -> None:
    """``memprobe report SNAPSHOT.pickle``: its HTML page (default: beside it, SNAPSHOT.html) and, asked for, its trace."""
    output = output or path.with_suffix(".html")
    if output.resolve() == path.resolve() or (trace_path is not None and trace_path.resolve() == path.resolve()):
        raise ConfigError(f"{path}: the page or trace would replace the snapshot itself; name another file (-o, --trace)")
    refuse_existing(output, trace_path, force=force)
    reading = _Reading(path, with_timeline=True)
    from ..report import html
    from ..report.pages import write_snapshot_pages

    html.prepare("snapshot.html.j2")  # while the snapshot is read

    read = reading.result()
    write_snapshot_pages(read.summary, read.timeline, output, trace_path)
    click.echo(f"wrote {output}")
    if trace_path is not None:
        click.echo(f"wrote {trace_path}")


def _refuse_run_options(a: str, b: str, given: dict[str, bool], shared: dict) -> None:
    """A diff of two snapshots runs nothing and writes no run directory: the options of sides that run are refused."""
    if is_snapshot_file(a) != is_snapshot_file(b):
        snap, other = (a, b) if is_snapshot_file(a) else (b, a)
        raise ConfigError(f"{snap} is a snapshot file and {other} is not: a diff compares two snapshots (A.pickle B.pickle)")
    refuse_config_flags(shared, "they configure a side that runs; A and B are snapshots, read as they are")
    named = [flag for flag, on in given.items() if on]
    if named:
        raise ConfigError(f"{', '.join(named)}: for sides that run; A and B are snapshots, read as they are (nothing runs)")


def diff_snapshot_files(a: str, b: str, *, given: dict[str, bool], shared: dict, probes, outputs: dict, wide: bool) -> None:
    """``memprobe diff A.pickle B.pickle``: what B holds at its peak that A does not, ranked by bytes. ``given``: the
    options of sides that run, by flag, and whether each was given; ``outputs``: the --html, --csv, --parquet paths."""
    from ..analysis.user_snapshot import compare
    from ..report.console.snapshot import print_snapshot_diff
    from ..report.html import prepare
    from ..report.markdown import snapshot_diff_markdown
    from ..report.pages import write_snapshot_diff_html
    from ..report.tables import export

    _refuse_run_options(a, b, given, shared)
    html = outputs.get("html")
    refuse_existing(html, outputs.get("csv"), outputs.get("parquet"), force=probes.force)
    # one after the other: A's reading has ended, its data let go, before B's begins
    reading = _Reading(a, with_timeline=html is not None)
    if html is not None:
        prepare("snapshot_diff.html.j2")  # while A is read
    first = reading.result()
    second = _Reading(b, with_timeline=html is not None).result()
    result = compare(first, second)
    probes.emit(result, markdown=snapshot_diff_markdown, console=lambda: print_snapshot_diff(result, wide=wide))
    export("snapshot-diff", result, outputs.get("csv"), outputs.get("parquet"))
    if html is not None:
        write_snapshot_diff_html(result, (first.timeline, second.timeline), html)
        probes.say(f"html report: {html}")

"""What a verb writes, declared once: the console view or a document on stdout (``--json``, ``--markdown``), the
detail (``--wide``), the table as a file (``--csv``, ``--parquet``), and never over a file without ``--force``."""

from __future__ import annotations

import json
from pathlib import Path

import click


def _parquet_engine(_ctx, _param, value):
    if value is not None:  # (the tables' module, and the record's schema with it, only for a verb that writes one)
        from ..report.tables import check_engine

        check_engine(value)
    return value


def wide_option(f):
    """--wide: the console view with op chains, library frames and graph detail (the default is one screen)."""
    return click.option(
        "--wide",
        is_flag=True,
        help="Show the detail: op chains, library frames, every saved value, graphs and categories (default: one screen).",
    )(f)


def table_options(f):
    """--csv / --parquet: the verb's table (saved values, diff items, gate verdicts) for pandas and friends."""
    for opt in reversed(
        [
            click.option(
                "--csv",
                "csv_path",
                type=click.Path(path_type=Path),
                default=None,
                help="Also write the table (saved values / differences / verdicts) as CSV here.",
            ),
            click.option(
                "--parquet",
                "parquet_path",
                type=click.Path(path_type=Path),
                default=None,
                callback=_parquet_engine,
                help="Also write the table as Parquet here (needs pyarrow).",
            ),
        ]
    ):
        f = opt(f)
    return f


def emit(result, *, as_json: bool, as_markdown: bool = False, markdown=None, console=None) -> None:
    """Print a verb's result (a record of the schema): JSON for machines, Markdown for a pull request, or the rich
    console view."""
    if as_json:
        from pydantic import BaseModel

        from ..rundir.load import dump

        data = dump(result) if isinstance(result, BaseModel) else result
        click.echo(json.dumps(data, indent=1, allow_nan=False))  # strict JSON: no NaN, no Infinity
    elif as_markdown and markdown is not None:
        click.echo(markdown(result))
    elif console is not None:
        console()


def refuse_existing(*paths: Path | None, force: bool, ours=None) -> None:
    """Output files named on the command line are not overwritten without --force (checked before running), except one
    that ``ours(path)`` says memprobe wrote (the gate's JUnit XML: a CI job that runs again replaces its own file)."""
    from ..errors import RunDirError

    for p in paths:
        if p is None:
            continue
        if p.is_symlink():
            raise RunDirError(f"{p} is a symbolic link; memprobe does not write through links: name the file itself")
        if p.exists() and not force and not (ours is not None and ours(p)):
            mine = "" if ours is None else " (memprobe did not write it)"
            raise RunDirError(f"{p} exists; pass --force to overwrite it{mine}")
        if p.exists() and not p.is_file():
            raise RunDirError(f"{p} exists and is not a file; memprobe overwrites only files, even with --force")

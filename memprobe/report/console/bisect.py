"""``memprobe bisect`` on the console: every configuration tried with its delta, then the minimal one."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes, fmt_delta
from ...vocab import BisectPass
from .shared import make_console


def print_bisect(r: S.BisectResult, out_dir: Path, console: Console | None = None) -> None:
    con = console or make_console()
    t = Table(
        title=f"Configurations tried (metric: {markup(r.metric)}; threshold {fmt_bytes(r.threshold_bytes)}"
        + (f" = {markup(r.min_delta)} of the gap as given" if (r.min_delta or "").endswith("%") else "")
        + ")",
        title_justify="left",
    )
    for col, just in (
        ("#", "right"),
        ("feature removed", "left"),
        ("held A", "right"),
        ("held B", "right"),
        ("B - A", "right"),
        ("", "left"),
        ("runs", "left"),
    ):
        t.add_column(col, justify=just)
    for i, row in enumerate(r.trials):
        t.add_row(
            str(i),
            markup(row.removed),
            fmt_bytes(row.held_a),
            fmt_bytes(row.held_b),
            fmt_delta(row.delta_bytes),
            _outcome(row, first=i == 0),
            markup("/".join(str(m) for m in row.modes or [])),
        )
    con.print(t)
    for row in r.trials:
        if row.error:
            con.print(f"[yellow]{markup(row.removed)}:[/] {markup(row.error)}")
    if r.not_applicable:
        con.print(f"[dim]not applicable here: {markup(', '.join(r.not_applicable))}[/]")
    con.print(f"minimal configuration:\n  A  {markup(r.minimal.a)}\n  B  {markup(r.minimal.b)}")
    con.print(f"[bold]{markup(r.conclusion)}[/]")
    con.print(f"\nwritten: {markup(out_dir)}/bisect.json")


def _outcome(row: S.Trial, *, first: bool) -> str:
    """What a trial showed: whether B still exceeds A without the feature (the first trial: as given)."""
    if row.exceeds is None:
        return "[yellow]could not run[/]"
    if first:
        return "[red]exceeds[/]" if row.exceeds else "[green]below[/]"
    if row.exceeds:
        return "[red]still exceeds[/]"
    return "[green]below: needed[/]" if row.pass_ == BisectPass.SINGLE else "[green]below[/]"

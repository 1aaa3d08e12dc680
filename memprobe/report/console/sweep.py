"""``memprobe sweep`` on the console: saved bytes and measured peak per memory budget of the partitioner."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes
from .shared import make_console


def print_sweep(r: S.SweepResult, out_dir: Path, console: Console | None = None) -> None:
    con = console or make_console()
    con.print(f"[bold]memprobe sweep[/]  {markup(r.summary)}")
    t = Table(
        title="Activation memory budget (the compiler partitioner's): saved for backward and measured peak", title_justify="left"
    )
    for col in ("memory budget", "saved for backward", "held after forward", "step peak"):
        t.add_column(col, justify="right")
    flagged = {(i.lower_budget, i.metric) for i in r.inversions or []}
    for p in r.points:
        mark = " [red]↑[/]" if (p.budget, "step_peak_bytes") in flagged else ""
        t.add_row(f"{p.budget:g}", fmt_bytes(p.saved_bytes), fmt_bytes(p.forward_end_bytes), fmt_bytes(p.step_peak_bytes) + mark)
    con.print(t)
    for i in r.inversions or []:
        what = "step peak" if i.metric == "step_peak_bytes" else "saved bytes"
        con.print(
            f"[bold red]not monotonic:[/] memory budget {i.lower_budget:g} gives a {what} {fmt_bytes(i.excess_bytes)} "
            f"higher than memory budget {i.higher_budget:g} ({fmt_bytes(i.lower_budget_bytes)} vs "
            f"{fmt_bytes(i.higher_budget_bytes)})"
        )
    if not r.inversions:
        con.print("[green]monotonic:[/] less memory budget never gave a higher peak or more saved bytes here.")
    con.print(f"[dim]{markup(r.note)}[/]\nwritten: {markup(out_dir)}/sweep.json")

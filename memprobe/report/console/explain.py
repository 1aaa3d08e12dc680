"""``memprobe explain`` on the console: the edits (policy, AC mode) ranked by bytes freed per added FLOP of recompute."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes, fmt_flops
from .shared import compact_table, make_console, print_verdict


def _freed(e: S.Edit) -> str:
    """The first values an edit frees, by their one name."""
    return "; ".join(f"{it.label} x{it.count}" for it in (e.freed or [])[:3])


def print_explain(r: S.ExplainResult, out_dir: Path, console: Console | None = None, *, wide: bool = False) -> None:
    con = console or make_console()
    b = r.base
    con.print(f"[bold]memprobe explain[/]  {markup(b.config.probe().summary())}  [dim]({markup(r.mode)})[/]")
    print_verdict(con, r.verdict)  # finished when it was made, or loaded (analysis.view)
    con.print(
        f"base: saves {fmt_bytes(b.saved_bytes)} for backward per step; recomputes "
        f"{fmt_flops(b.recompute.flops)} ({fmt_bytes(b.recompute.bytes_moved)} moved) in backward"
    )
    if not r.edits:
        con.print("[yellow]no op of the save list saved anything: there is no policy edit to suggest[/]")
    elif wide:
        t = Table(title="Edits, best first (bytes freed per added FLOP of recompute)", title_justify="left")
        for col, just in (
            ("#", "right"),
            ("edit", "left"),
            ("frees / step", "right"),
            ("+recompute (est.)", "right"),
            ("+bytes moved (est.)", "right"),
            ("what it frees", "left"),
        ):
            t.add_column(col, justify=just, overflow="fold")
        for i, e in enumerate(r.edits, 1):
            t.add_row(
                str(i),
                f"{markup(e.edit)}\n[cyan]{markup(e.flag)}[/]",
                fmt_bytes(e.bytes_saved),
                fmt_flops(e.recompute_flops_added or 0),
                fmt_bytes(e.recompute_bytes_added),
                markup(_freed(e)),
            )
        con.print(t)
    else:
        compact_table(
            con,
            "Edits, best first (bytes freed per added FLOP of recompute)",
            [
                ("#", "right", 0),
                ("edit", "left", 0),
                ("frees / step", "right", 0),
                ("+recompute (est.)", "right", 0),
                ("what it frees", "left", 1),
            ],
            [
                ([str(i), e.flag or "", fmt_bytes(e.bytes_saved), fmt_flops(e.recompute_flops_added or 0), _freed(e)], None)
                for i, e in enumerate(r.edits, 1)
            ],
        )
    if r.partitioner_items:
        con.print(
            f"\n{len(r.partitioner_items)} saved value(s) chosen by the partitioner, not the policy" + (":" if wide else ".")
        )
        for it in r.partitioner_items[:5] if wide else []:
            con.print(f"  {fmt_bytes(it.bytes)} {markup(it.label)} [dim]({markup(it.block)})[/]: {markup(it.fate)}")
    con.print(f"\nwritten: {markup(out_dir)}/explain.json")

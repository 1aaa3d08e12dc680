"""``memprobe repro`` on the console: the script written, the figures it checks itself against and how to run it; what
``--minimize`` made smaller; what ``--check`` printed."""

from __future__ import annotations

from rich.console import Console

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes
from .shared import make_console


def print_repro(r: S.ReproResult, console: Console | None = None) -> None:
    con = console or make_console()
    if r.minimized is not None:
        _print_minimized(con, r.minimized)
    what = "the run" if set(r.sides) == {"run"} else "both sides of the diff"
    con.print(f"[bold]wrote {markup(r.script)}[/]: {what} in {markup(r.source)}, with torch alone")
    for key, f in r.sides.items():
        side = "" if key == "run" else f"{key.upper()}: "
        peak = f"; peak {fmt_bytes(f.peak_bytes)}" if f.peak_bytes is not None else ""
        con.print(f"  {side}saved for backward {f.saved_bytes:,} B ({fmt_bytes(f.saved_bytes)}){peak}")
    if r.together:
        con.print(f"run it: python {markup(r.script)} --check")
    else:
        con.print(f"run it under each side's interpreter: python {markup(r.script)} --side a|b --check (its header says which)")
    if r.check is not None:
        con.print("[bold]--check:[/] " + "; ".join(markup(line) for line in r.check.splitlines()))


def _print_minimized(con: Console, m: S.ReproMinimized) -> None:
    con.print(f"minimized, keeping {markup(m.difference)} differing:")
    for step in m.steps:
        outcome = "[yellow]could not run[/]" if step.kept is None else "kept" if step.kept else "[dim]needed[/]"
        con.print(f"  {markup(step.tried)}: {outcome}")
    con.print(f"  as recorded  A {markup(m.given.a)}\n               B {markup(m.given.b)}")
    con.print(f"  minimal      A {markup(m.minimal.a)}\n               B {markup(m.minimal.b)}")
    sizes = []
    if m.given_parameters is not None and m.minimal_parameters is not None:
        sizes.append(f"parameters {m.given_parameters:,} -> {m.minimal_parameters:,}")
    if m.given_seconds is not None and m.minimal_seconds is not None:
        sizes.append(f"run time {m.given_seconds:.1f} s -> {m.minimal_seconds:.1f} s (both sides, compile included)")
    if m.given_step_seconds is not None and m.minimal_step_seconds is not None:
        sizes.append(f"measured steps {m.given_step_seconds:.3f} s -> {m.minimal_step_seconds:.3f} s")
    if sizes:
        con.print("  " + "; ".join(sizes))
    con.print(f"  the minimal runs: {markup(m.run)}")

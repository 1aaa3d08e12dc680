"""``memprobe gate`` on the console: the gate's verdict, a row per limit, the skipped and failed limits' notices, and
each breach explained."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes
from ...vocab import Verdict
from ..words import headroom_text, limit_metric, limit_text
from .shared import make_console, print_verdict

_STYLE = {Verdict.PASS: "green", Verdict.FAIL: "bold red", Verdict.SKIP: "yellow"}


def print_gate_result(result: S.GateResult, console: Console | None = None) -> None:
    """The gate's verdict, then its limits: the table and what caused each breach."""
    con = console or make_console()
    print_verdict(con, result.verdict)
    print_gate(result, con)


def print_gate(result: S.GateResult, console: Console) -> None:
    """The verdicts, one row per limit, then the skipped and failed limits' notices and each breach explained."""
    t = Table(title=f"memprobe gate: {markup(result.budget)}", title_justify="left")
    # a probe's and a metric's names are what a user copies into the budget file (`optional`): never cut
    names = {
        "probe": max((len(v.probe) for v in result.verdicts), default=0),
        "metric": max((len(limit_metric(v)) for v in result.verdicts), default=0),
        "verdict": 0,
    }
    for col, just in (
        ("probe", "left"),
        ("metric", "left"),
        ("measured", "right"),
        ("limit", "right"),
        ("headroom", "right"),
        ("verdict", "left"),
    ):
        if col in names:
            t.add_column(col, justify=just, no_wrap=True, min_width=max(names[col], len(col)))
        else:
            t.add_column(col, justify=just, overflow="fold")
    for v in result.verdicts:
        t.add_row(
            markup(v.probe),
            markup(limit_metric(v)),
            fmt_bytes(v.measured),
            markup(limit_text(v)),
            headroom_text(v),
            f"[{_STYLE[v.verdict]}]{v.verdict}[/]",
        )
    console.print(t)
    _print_notices(result, console)
    for name, why in result.explanations.items():
        console.print(f"\n[bold red]{markup(name)} breached its budget.[/] {markup(why.headline)}")
        for line in why.lines:
            console.print(f"  - {markup(line)}")
    n = result.counts
    verdict = "[bold red]FAIL[/]" if n.get(Verdict.FAIL) else "[green]PASS[/]"
    console.print(
        f"\n{verdict}: {n.get(Verdict.PASS, 0)} passed, {n.get(Verdict.FAIL, 0)} failed, {n.get(Verdict.SKIP, 0)} skipped"
    )
    if result.baseline_updated:
        console.print(f"baseline updated: {markup(result.baseline)}")
    elif result.baseline_updated is False:
        console.print(f"baseline unchanged: {markup(result.baseline)} (the runs measured what it holds)")


def _print_notices(result: S.GateResult, console: Console) -> None:
    """Why each skipped limit was skipped, and why a failed one failed without a figure to check."""
    for v in result.verdicts:
        if v.verdict == Verdict.SKIP:
            console.print(f"[yellow]skip[/] {markup(v.probe)} {markup(limit_metric(v))}: {markup(v.notice)}")
        elif v.verdict == Verdict.FAIL and v.notice:
            console.print(f"[bold red]fail[/] {markup(v.probe)} {markup(limit_metric(v))}: {markup(v.notice)}")

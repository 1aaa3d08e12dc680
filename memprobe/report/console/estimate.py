"""``memprobe estimate`` on the console: per rank, component by component, the target column an estimate."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes
from .shared import make_console


def print_estimate(result: S.Estimate, report: S.Report, console: Console | None = None) -> None:
    """``result``: :func:`memprobe.analysis.estimate.estimate` of ``report``."""
    con = console or make_console()
    p, t = result.probe, result.target
    con.print(f"[bold]memprobe estimate[/]  from {markup(report.config.probe().summary())}")
    con.print(
        f"[dim]probe: {p.layers} blocks, {p.world} rank(s), {p.tokens} tokens  ->  "
        f"target: {t.layers} blocks, {t.world} rank(s), {t.tokens} tokens (batch {t.batch} x seq {t.seq})[/]"
    )
    tab = Table(title="Per rank, component by component (target column is an ESTIMATE)", title_justify="left")
    tab.add_column("component")
    tab.add_column("probe", justify="right")
    tab.add_column("target (estimate)", justify="right")
    tab.add_column("scales", style="dim", overflow="fold")
    for key in type(result.scaling).model_fields:
        tab.add_row(
            key.removesuffix("_bytes").replace("_", " "),
            fmt_bytes(getattr(result.components.probe, key)),
            fmt_bytes(getattr(result.components.target, key)),
            markup(getattr(result.scaling, key)),
        )
    con.print(tab)
    tot = result.totals
    tab = Table(title="Totals per rank", title_justify="left")
    tab.add_column("")
    tab.add_column("probe, measured", justify="right")
    tab.add_column("probe, estimated", justify="right")
    tab.add_column("target, estimated", justify="right")
    for key, what in (("forward_end_bytes", "held at the end of forward"), ("peak_bytes", "step peak")):
        tab.add_row(
            what,
            fmt_bytes(getattr(tot.probe_measured, key)),
            fmt_bytes(getattr(tot.probe_estimated, key)),
            f"[bold]{fmt_bytes(getattr(tot.target_estimated, key))}[/]",
        )
    con.print(tab)
    for note in result.notes:
        con.print(f"[dim]- {markup(note)}[/]")

"""``memprobe diff`` (and ``memprobe show DIFF_DIR``) on the console: the verdict first, one line per differing
value; ``--wide`` adds op chains, hints, measured phases, graphs and categories."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes, fmt_delta
from ...vocab import GROWTH, Phase, SavedKind
from ..words import (
    STATUS_LABEL,
    decision_brief,
    schedule_line,
    side_environment,
    source_forms,
    versions_line,
    why_saved_forms,
)
from .shared import TOP_ROWS, Column, compact_table, make_console, name_cell, path_cell, print_next, print_verdict, saved_value

_TITLE = "What B keeps alive that A does not (ranked by bytes)"


def print_diff(d: S.DiffResult, out_dir: Path | None, console: Console | None = None, *, wide: bool = False) -> None:
    """The verdict first, then one line per differing value; ``wide``: op chains, hints, graphs, categories."""
    con = console or make_console()
    _print_sides(con, d)
    _print_items(con, d, wide)
    _print_phases(con, d.phases, wide)
    if wide:
        _print_graphs(con, d.graphs or [])
    _print_alive(con, d.alive_at_peak, wide)
    if out_dir is not None:
        con.print(
            f"\nwritten: [bold]{markup(out_dir)}/diff.json[/]"
            + ("  (runs in a/ and b/)" if (out_dir / "a").exists() else "")
            + ("" if wide else "; --wide for detail")
        )
    print_next(con, d.verdict)


def _print_sides(con: Console, d: S.DiffResult) -> None:
    con.print("[bold]memprobe diff[/]")
    print_verdict(con, d.verdict)
    for key, side in (("a", d.a), ("b", d.b)):
        con.print(
            f"  {key.upper()}  {markup(side.summary)}  [dim]({markup(side.source)})[/]\n"
            f"     [dim]{markup(side_environment(side))}[/]"
        )
        if faked := side.config.probe().fake_world_line():
            con.print(f"     [yellow]fake world:[/] {markup(faked)}")
    if versions_line(d):
        con.print(f"  [yellow]{markup(versions_line(d))}[/]")
    if schedule_line(d):
        con.print(f"  [dim]{markup(schedule_line(d))}[/]")


def _print_items(con: Console, d: S.DiffResult, wide: bool) -> None:
    s = d.totals.saved_bytes
    outside = d.saved_outside.total if d.saved_outside is not None else None
    apart = (
        f"; outside them (measured): {fmt_bytes(outside.a)} -> {fmt_bytes(outside.b)} ([bold]{fmt_delta(outside.delta)}[/])"
        if outside is not None and outside.delta
        else ""
    )
    if d.differences == 0:
        con.print(
            f"[green]No difference[/] in the compiled graphs' saved-for-backward values ({d.unchanged_items} matched, "
            f"{fmt_bytes(s.a)} each side){apart}."
        )
        return
    step = d.totals.step_saved_bytes
    if apart and step is not None and step.delta is not None:  # the step's total first: what the verdict compares
        con.print(
            f"saved for backward per step: {fmt_bytes(step.a)} -> {fmt_bytes(step.b)} ([bold]{fmt_delta(step.delta)}[/]); "
            f"in the compiled graphs {fmt_bytes(s.a)} -> {fmt_bytes(s.b)} ({fmt_delta(s.delta)}){apart}; "
            f"{d.differences} difference(s), {d.unchanged_items} unchanged"
        )
    else:
        con.print(
            f"saved for backward per step: {fmt_bytes(s.a)} -> {fmt_bytes(s.b)} "
            f"([bold]{fmt_delta(s.delta)}[/]); {d.differences} difference(s), {d.unchanged_items} unchanged"
        )
    if wide:
        _print_items_wide(con, d.items)
        return
    items = d.items[:TOP_ROWS]
    _print_items_compact(con, items)
    if len(d.items) > len(items):
        con.print(f"[dim]… {len(d.items) - len(items)} more in diff.json (items); --wide shows all[/]")


def _grew_from_weights(it: S.DiffItem) -> bool:
    return it.kind == SavedKind.WEIGHT_DERIVED and it.delta_bytes > 0


def _print_items_wide(con: Console, items: list[S.DiffItem]) -> None:
    tab = Table(title=_TITLE, title_justify="left")
    for col, just in (
        ("status", "left"),
        ("saved value (what made it; op chain)", "left"),
        ("x", "right"),
        ("A", "right"),
        ("B", "right"),
        ("delta", "right"),
        ("kind", "left"),
        ("where", "left"),
        ("A decided", "left"),
        ("B decided", "left"),
    ):
        tab.add_column(col, justify=just, overflow="fold")
    for it in items:
        tab.add_row(
            STATUS_LABEL[it.status],
            saved_value(it),
            str(it.count),
            fmt_bytes(it.bytes_a),
            fmt_bytes(it.bytes_b),
            fmt_delta(it.delta_bytes),
            markup(it.kind),
            markup((it.user.source if it.user else None) or ""),
            markup(decision_brief(it.a_decision)),
            markup(decision_brief(it.b_decision)),
            style="bold red" if _grew_from_weights(it) else None,
        )
    con.print(tab)
    for it in items[:3]:
        said = [f"{k}: {d.text}" for k, d in (("A", it.a_decision), ("B", it.b_decision)) if d is not None]
        if said:
            con.print(f"[dim]{markup(it.label)}[/] {markup('; '.join(said))}")
    for h in list(dict.fromkeys(it.hint for it in items if it.status in GROWTH))[:3]:
        if h:
            con.print(f"[cyan]hint:[/] {markup(h)}")


def _print_items_compact(con: Console, items: list[S.DiffItem]) -> None:
    """One line per item, as the run's saved table: the name, where it was made (only when some item was made in
    the user's code) and why, by priority; A and B are left out before the name would be cut short (the delta and
    the line above say them)."""
    where = any(source_forms(it) for it in items)
    columns = [
        Column("status"),
        Column("saved value", prio=3, comfort=32),
        Column("x", "right"),
        Column("A", "right", optional=True),
        Column("B", "right", optional=True),
        Column("delta", "right"),
        *([Column("where", prio=2, comfort=18)] if where else []),
        Column("why", prio=1, comfort=16),
    ]
    rows = []
    for it in items:
        cells = [
            STATUS_LABEL[it.status],
            name_cell(it.label),
            str(it.count),
            fmt_bytes(it.bytes_a),
            fmt_bytes(it.bytes_b),
        ]
        cells += [fmt_delta(it.delta_bytes), *([path_cell(source_forms(it))] if where else []), why_saved_forms(it)]
        rows.append((cells, "bold red" if _grew_from_weights(it) else None))
    compact_table(con, _TITLE + "; red: weight-derived", columns, rows)


def _print_phases(con: Console, ph: S.PhaseDeltas | S.PhasesNotCompared | None, wide: bool) -> None:
    if not ph:
        return
    if not ph.comparable:
        con.print(f"[yellow]measured phases not compared:[/] {markup(ph.why)}")
        return
    if not wide:
        deltas = " · ".join(
            f"{markup(n)} {fmt_delta(f.peak_bytes.delta if f.peak_bytes else None)}" for n, f in ph.phases.items()
        )
        con.print(f"measured peaks, B - A ({markup(ph.source)}): {deltas}")
        return
    tab = Table(title=f"Measured phases ({markup(ph.source)})", title_justify="left")
    for col in ("phase", "peak A", "peak B", "delta", "end A", "end B", "delta"):
        tab.add_column(col, justify="left" if col == "phase" else "right")
    for name, f in ph.phases.items():
        tab.add_row(markup(name), *_a_b_delta(f.peak_bytes), *_a_b_delta(f.end_bytes))
    con.print(tab)
    reserved = {n: f.peak_reserved_bytes.delta for n, f in ph.phases.items() if f.peak_reserved_bytes is not None}
    if reserved:
        con.print(
            "[dim]peak reserved (B - A): "
            + "; ".join(f"{markup(n)} {fmt_delta(v)}" for n, v in reserved.items())
            + ". Reserved bytes also depend on each process's allocator history (what compiling and autotuning"
            " the first step left in partly used segments): a cold and a warm Inductor cache can differ.[/]"
        )


def _a_b_delta(figure: S.Delta | None) -> tuple[str, str, str]:
    """One figure's three cells: A, B and B - A."""
    if figure is None:
        return fmt_bytes(None), fmt_bytes(None), fmt_delta(None)
    return fmt_bytes(figure.a), fmt_bytes(figure.b), fmt_delta(figure.delta)


def _print_graphs(con: Console, graphs: list[S.GraphDelta]) -> None:
    if not graphs:
        return
    tab = Table(title="Compiled graphs (simulated)", title_justify="left")
    for col in ("graph", "peak A", "peak B", "delta", "saved A", "saved B", "delta"):
        tab.add_column(col, justify="left" if col == "graph" else "right")
    for g in graphs:
        tab.add_row(markup(g.graph_id), *_a_b_delta(g.peak_bytes), *_a_b_delta(g.saved_bytes))
    con.print(tab)


def _print_alive(con: Console, alive: S.AliveDeltas | None, wide: bool) -> None:
    """What changed by category at the forward peak (and, under ``wide``, at the end of forward)."""
    for where, cats in (
        ("the forward peak", ((alive.phases if alive else None) or {}).get(Phase.FORWARD)),
        ("the end of forward", ((alive.at_end if alive else None) or {}).get(Phase.FORWARD)),
    ):
        changed = {c: v for c, v in (cats or {}).items() if v.delta}
        if changed:
            ranked = sorted(changed.items(), key=lambda kv: -abs(kv[1].delta))
            con.print(
                ("[dim]" if wide else "")
                + f"alive at {where}, by category (B - A): "
                + "; ".join(f"{markup(c)} {fmt_delta(v.delta)}" for c, v in (ranked if wide else ranked[:3]))
                + ("[/]" if wide else "")
            )
        if not wide:
            break

"""``memprobe run`` (and ``memprobe show RUN_DIR``) on the console: the verdict first, one line per saved value;
``--wide`` adds op chains, library frames, graphs and categories."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ...rundir import schema as S
from ...rundir.load import dump
from ...text import markup
from ...units import fmt_bytes
from ...vocab import MODULE_STATE, RunMode, RunStatus, SavedKind
from ..words import forked_line, saved_view_text, source_forms, why_saved_forms, why_saved_wide
from .shared import (
    TOP_ROWS,
    Column,
    compact_table,
    make_console,
    name_cell,
    path_cell,
    print_next,
    print_verdict,
    saved_value,
)


def _where(g: S.SavedGroup) -> str:
    user = g.user
    if user is None:
        return ""
    lines = [markup(x) for x in (user.source, user.module) if x]
    if user.library:
        lines.append(f"[dim]{markup(user.library)}[/]")
    return "\n".join(lines)


def _share(n: int, total: int) -> str:
    return f"{100 * n / total:.0f}%" if total else "-"


def _print_ranks(con: Console, report: S.Report) -> None:
    dist = report.distributed
    rows = (dist.ranks if dist else None) or []
    if len(rows) < 2:
        return
    figures = [k for k in dump(rows[0]) if k.endswith("_bytes")]  # the figures the first rank recorded, in order
    t = Table(
        title=f"Per rank ({dist.world_size} ranks, {dist.backend}; measured in each rank's process)",
        title_justify="left",
    )
    t.add_column("rank", justify="right")
    for k in figures:
        t.add_column(k.removesuffix("_bytes").replace("_", " "), justify="right")
    for r in rows:
        t.add_row(str(r.rank), *(fmt_bytes(getattr(r, k)) for k in figures))
    t.add_row("[bold]max[/]", *(fmt_bytes(dist.max_bytes.get(k)) for k in figures))
    t.add_row("[dim]skew[/]", *(fmt_bytes(dist.skew_bytes.get(k)) for k in figures))
    con.print(t)
    named = _named_ranks(dist, rows)
    if named:
        con.print("; ".join(named))
    con.print(f"[dim]{markup(dist.headline)}[/]")


def _named_ranks(dist: S.Distributed, rows: list[S.RankRow]) -> list[str]:
    """The largest rank and the slowest (with its measured step's time), where the merge named them."""
    named = []
    if dist.largest_rank is not None:
        named.append(f"largest rank: {dist.largest_rank}")
    if dist.slowest_rank is not None:
        slowest = next((r for r in rows if r.rank == dist.slowest_rank), None)
        took = f" ({slowest.measured_step_s:.2f} s measured step)" if slowest and slowest.measured_step_s is not None else ""
        named.append(f"slowest rank: {dist.slowest_rank}{took}")
    return named


def _print_saved_wide(con: Console, groups: list[S.SavedGroup], total: int) -> None:
    t = Table(title="Saved for backward, per step (from the compiled graphs)", title_justify="left", show_lines=False)
    t.add_column("#", justify="right", style="dim")
    t.add_column("bytes", justify="right")
    t.add_column("share", justify="right")
    t.add_column("x", justify="right")
    t.add_column("kind")
    t.add_column("saved value (what made it; op chain)", overflow="fold")
    t.add_column("where (your model; the library)", overflow="fold")
    t.add_column("why", overflow="fold")
    for i, g in enumerate(groups, 1):
        style = "bold red" if g.kind == SavedKind.WEIGHT_DERIVED else None
        t.add_row(
            str(i),
            fmt_bytes(g.bytes),
            _share(g.bytes, total) if g.kind not in MODULE_STATE else "-",
            _count(g),
            markup(g.kind),
            saved_value(g),
            _where(g),
            markup(why_saved_wide(g)),
            style=style,
        )
    con.print(t)


def _count(g: S.SavedGroup) -> str:
    """How many blocks saved the value; one tensor that several blocks were given is said so (counted once)."""
    return str(g.count) + (" (one tensor)" if g.shared else "")


def _print_saved_compact(con: Console, groups: list[S.SavedGroup], total: int) -> None:
    """One line per group: its figures whole, then its name, where it was made (only when some group was made in
    the user's code) and why it was kept, which give up width in that order of priority (why first), each keeping
    what carries it (the op, ``file.py:line``, the cause)."""
    where = any(source_forms(g) for g in groups)
    rows = [
        (
            [
                str(i),
                fmt_bytes(g.bytes),
                _share(g.bytes, total) if g.kind not in MODULE_STATE else "-",
                _count(g),
                name_cell(g.label),
                *([path_cell(source_forms(g))] if where else []),
                why_saved_forms(g),
            ],
            "bold red" if g.kind == SavedKind.WEIGHT_DERIVED else None,
        )
        for i, g in enumerate(groups, 1)
    ]
    columns = [Column("#", "right"), Column("bytes", "right"), Column("share", "right"), Column("x", "right")]
    columns += [Column("saved value", prio=3, comfort=32), *([Column("where", prio=2, comfort=18)] if where else [])]
    compact_table(
        con,
        "Saved for backward, per step (from the compiled graphs; red: weight-derived)",
        [*columns, Column("why", prio=1, comfort=16)],
        rows,
    )


def _print_findings(con: Console, report: S.Report, wide: bool) -> None:
    findings = report.findings or []
    if not findings:
        if report.saved_tensors:
            ran = "; ".join(c.title for c in report.checks or [])
            con.print(f"[green]No findings.[/] Checks run: {markup(ran or 'weight-derived values saved for backward')}.")
        return
    con.print("[bold]Findings[/] (largest first)")
    for i, f in enumerate(findings, 1):
        _print_finding(con, i, f, wide)
    if wide:
        for detail in dict.fromkeys(f.detail for f in findings if f.detail):
            con.print(f"[dim]{markup(detail)}[/]")


def _print_finding(con: Console, i: int, f: S.Finding, wide: bool) -> None:
    """A finding in one line (its bytes, the values named once, its kind and fix), or its message and hint."""
    if wide or not f.what:
        con.print(f"[bold red]{i}.[/] {markup(f.message)}")
        if f.hint:
            con.print(f"   [cyan]fix:[/] {markup(f.hint)}")
        return
    fix = f"; [cyan]fix:[/] {markup(f.fix)}" if f.fix else ""
    con.print(f"[bold red]{i}.[/] {fmt_bytes(f.bytes)} {markup(f.what)} [dim]({markup(f.kind)})[/]{fix}")


def _print_memory(con: Console, report: S.Report, wide: bool) -> None:
    mem = report.memory
    if not (mem and mem.phases):
        return
    if not wide:
        peaks = " · ".join(f"{markup(n)} {fmt_bytes(p.peak_bytes)}" for n, p in mem.phases.items())
        con.print(f"measured peaks ({markup(mem.source)}): {peaks}")
        return
    t = Table(title=f"Measured step memory ({markup(mem.source)})", title_justify="left")
    t.add_column("phase")
    for col in ("start", "peak", "end"):
        t.add_column(col, justify="right")
    extra = next(iter(mem.phases.values())).peak_reserved_bytes is not None
    if extra:
        t.add_column("peak reserved", justify="right")
    for name, p in mem.phases.items():
        cells = [markup(name), fmt_bytes(p.start_bytes), fmt_bytes(p.peak_bytes), fmt_bytes(p.end_bytes)]
        if extra:
            cells.append(fmt_bytes(p.peak_reserved_bytes))
        t.add_row(*cells)
    con.print(t)
    pers = mem.persistent
    con.print(
        f"[dim]figures: {markup(mem.baseline)}; persistent state: parameters"
        f" {fmt_bytes(pers.parameters_bytes if pers else None)},"
        f" optimizer {fmt_bytes(pers.optimizer_state_bytes if pers else None)}; autograd graph holds"
        f" {fmt_bytes(mem.autograd_saved_bytes)} after forward (all saved tensors, eager ones included)[/]"
    )


def print_run(report: S.Report, run_dir: Path, console: Console | None = None, *, wide: bool = False) -> None:
    """The verdict first, then one line per saved value; ``wide``: op chains, library frames and graph detail."""
    con = console or make_console()
    _print_header(con, report)
    _print_notes(con, report)
    _print_compile_coverage(con, report)
    _print_float8_coverage(con, report)
    _print_saved(con, report, wide)
    con.print()
    _print_findings(con, report, wide)
    _print_memory(con, report, wide)
    _print_ranks(con, report)
    if wide:
        _print_graph_memory(con, report)
    _print_attribution(con, report, wide)
    _print_run_dir(con, Path(run_dir), wide)
    if report.verdict is not None:
        print_next(con, report.verdict)


def _print_header(con: Console, report: S.Report) -> None:
    """What ran, the verdict, where and with what it ran, and how (analysis-only)."""
    v = report.versions
    con.print(f"[bold]memprobe run[/]  {markup(report.config.probe().summary())}")
    if report.verdict is not None:
        print_verdict(con, report.verdict)
    con.print(
        f"[dim]{markup(report.device.type)} ({markup(v.device_name)})  torch {markup(v.torch)}  "
        f"torchao {markup(v.torchao)}  status {markup(report.status)}[/]"
    )
    if report.process is not None and report.process.forked_from is not None:
        con.print(f"[dim]probe {markup(forked_line(report.process))}[/]")
    process = report.process
    if process is not None and process.other_interpreter and process.python is not None:
        con.print(f"interpreter: {markup(process.python)} (another than the memprobe that started it)")
    dist = report.distributed
    if dist is not None and dist.faked:
        con.print(f"[yellow]fake world:[/] {markup(dist.headline)}")
    if report.mode == RunMode.ANALYSIS_ONLY:
        con.print(
            "[yellow]analysis-only:[/] graphs traced and partitioned as for Inductor, run uncompiled; the saved"
            " table is the full run's, measured peaks include temporaries the kernels would not make"
        )


def _print_saved(con: Console, report: S.Report, wide: bool) -> None:
    """The saved table, one group a line (all of them under ``wide``), and its totals; or why there is none."""
    rows = report.saved_tensors or []
    totals = report.saved_totals
    if not rows:
        if report.status == RunStatus.COMPLETE and report.config.command and not report.graphs:
            con.print("[yellow]nothing was compiled[/] (the script compiled no graph that ran in the measured step)")
        elif report.status == RunStatus.COMPLETE:
            con.print(
                "[yellow]no compiled graph saved anything for backward[/]"
                + (" (run with --compile to see the saved table)" if not report.config.probe().compile else "")
            )
        _print_saved_outside(con, report)
        return
    groups = report.view.saved_groups if report.view else []
    con.print()
    shown = groups if wide else groups[:TOP_ROWS]
    (_print_saved_wide if wide else _print_saved_compact)(con, shown, totals.graph_bytes if totals else 0)
    if len(groups) > len(shown):
        con.print(f"[dim]… {len(groups) - len(shown)} more groups in report.json (saved_tensors); --wide shows all[/]")
    _print_totals(con, totals)
    _print_saved_outside(con, report)


# modules of the saved-outside line shown by name before the rest is counted
SAVED_OUTSIDE_SHOWN = 4


def _print_saved_outside(con: Console, report: S.Report) -> None:
    """What autograd saved outside the compiled graphs (measured at run time), by module, each layer's copy of a module
    one entry with its count: the embedding's ids, the logits the loss keeps, eager blocks (a compiled one that ran
    eagerly with the reason Dynamo gave)."""
    outside = report.saved_outside
    if outside is None or not (outside.total_bytes or outside.parameters_bytes):
        return
    groups = (report.view.saved_outside_groups if report.view else None) or []

    def named_group(g: S.SavedModuleGroup) -> str:
        count = f" x{g.count}" if g.count > 1 else ""
        return f"{markup(g.module)}{count} {fmt_bytes(g.bytes)}" + (f" ({markup(g.eager_reason)})" if g.eager_reason else "")

    named = [named_group(g) for g in groups[:SAVED_OUTSIDE_SHOWN]]
    if len(groups) > SAVED_OUTSIDE_SHOWN:
        named.append(f"{len(groups) - SAVED_OUTSIDE_SHOWN} more in report.json (saved_outside)")
    partial = " (eager checkpointing: only its regions' boundaries seen)" if outside.partial else ""
    con.print(
        f"saved outside the compiled graphs: [bold]{fmt_bytes(outside.total_bytes)}[/] held at run time{partial}"
        + (f": {', '.join(named)}" if named else "")
        + f"; parameters {fmt_bytes(outside.parameters_bytes)} apart"
    )
    views = outside.views or []
    if views:
        shown = [markup(saved_view_text(v)) for v in views[:SAVED_OUTSIDE_SHOWN]]
        more = f", {len(views) - SAVED_OUTSIDE_SHOWN} more in report.json" if len(views) > SAVED_OUTSIDE_SHOWN else ""
        con.print(f"saved views that pin a larger storage: {'; '.join(shown)}{more}")


def _print_run_dir(con: Console, run_dir: Path, wide: bool) -> None:
    """Where the run is, and what it holds."""
    parts = ["report.json"] + [p for p in ("graphs/", "output_code/") if (run_dir / p.rstrip("/")).is_dir()]
    if (run_dir / "snapshot.pickle").is_file():
        parts.append("snapshot.pickle for pytorch.org/memory_viz")
    con.print(f"\nrun directory: [bold]{markup(run_dir)}[/]  ({', '.join(parts)})" + ("" if wide else "; --wide for detail"))


def _print_totals(con: Console, totals: S.SavedTotals | None) -> None:
    """The saved table's totals, derived and measured, and whether they agree."""
    agree = totals.agree if totals else None
    check = "[green]agree[/]" if agree else "[red]DISAGREE[/]" if agree is False else "[yellow]not measured[/]"
    graph_bytes, runtime_bytes = (totals.graph_bytes, totals.runtime_bytes) if totals else (None, None)
    graph, runtime = fmt_bytes(graph_bytes), fmt_bytes(runtime_bytes)
    if agree is False and graph == runtime:  # two figures that differ never read the same
        graph, runtime = f"{graph_bytes:,} B", f"{runtime_bytes:,} B"
    con.print(
        f"saved for backward: [bold]{graph}[/] derived from the graphs,"
        f" {runtime} held at run time ({check});"
        f" parameters saved as graph inputs: {fmt_bytes(totals.parameter_graph_bytes if totals else None)}"
        f" ({fmt_bytes(totals.parameter_runtime_bytes if totals else None)} held at run time)"
    )


def _print_notes(con: Console, report: S.Report) -> None:
    """What memprobe changed in the model, and where this device's figures can differ from another's: once each."""
    for note in dict.fromkeys(report.notes or []):
        con.print(f"[yellow]note:[/] {markup(note)}")


def _print_compile_coverage(con: Console, report: S.Report) -> None:
    """What torch.compile did not compile, in one line, when anything (report.compile_coverage)."""
    line = report.view.compile_coverage if report.view else None
    if line:
        con.print(f"[red]{markup(line)}[/]")


def _print_float8_coverage(con: Console, report: S.Report) -> None:
    """Which linears the float8 recipe converted, and which it left in bf16 and why (report.float8)."""
    f8 = report.float8
    if not f8:
        return
    line = _float8_converted(f8)
    skipped = report.view.float8_skipped if report.view else None
    if skipped:
        line += f"; left in bf16: {markup(skipped)}"
    con.print(line if skipped else f"[dim]{line}[/]")


def _float8_converted(f8: S.Float8Coverage) -> str:
    """How many linears of the blocks (and experts' weights) the recipe converted, their share of the parameters, and
    which outside the blocks."""
    linears = f8.linears or []
    total, converted = f8.block_linear_parameters or 0, f8.block_converted_parameters or 0
    share = f"{100 * converted / total:.0f}%" if total else "-"
    inside = [x for x in linears if x.in_blocks]
    outside = [x.fqn for x in linears if not x.in_blocks and x.converted]
    line = (
        f"float8 {markup(f8.recipe)} ({markup(f8.converter)}): converted"
        f" {sum(x.converted for x in inside)} of {len(inside)} {_weights_word(inside)} in the blocks ({share} of their"
        " parameters)"
    )
    if outside:
        line += f", and {markup(', '.join(outside[:3]))}{' …' if len(outside) > 3 else ''} outside them"
    return line


def _weights_word(weights: list[S.Float8Linear]) -> str:
    """What float8 coverage counts: linears, or, with a mixture of experts' 3-D weights among them, weights."""
    return "weights (linears and experts)" if any(len(x.weight_shape or ()) == 3 for x in weights) else "linears"


def _print_graph_memory(con: Console, report: S.Report) -> None:
    graphs = report.graph_memory or []
    if not graphs:
        return
    t = Table(title="Compiled graphs (simulated from the output code, graph inputs apart)", title_justify="left")
    for col, just in (
        ("graph", "left"),
        ("peak", "right"),
        ("returned: outputs", "right"),
        ("saved", "right"),
        ("largest live at peak", "left"),
        ("not understood", "right"),
    ):
        t.add_column(col, justify=just, overflow="fold")
    for g in graphs:
        if g.error is not None or g.peak_bytes is None:
            t.add_row(markup(g.graph_id), "-", "-", "-", markup(g.error or "not simulated"), "-")
            continue
        live = g.live_at_peak or []
        top = live[0] if live else None
        top_text = f"{top.storage} {fmt_bytes(top.bytes)} {top.expr or top.written_by or ''}" if top else ""
        t.add_row(
            markup(g.graph_id),
            fmt_bytes(g.peak_bytes),
            fmt_bytes(g.output_bytes),
            fmt_bytes(g.saved_bytes) if g.saved_bytes is not None else "-",
            markup(top_text),
            str(len(g.unrecognized or [])),
        )
    con.print(t)


def _print_attribution(con: Console, report: S.Report, wide: bool = True) -> None:
    att = report.attribution
    if not att:
        return
    if not wide:
        _print_alive_at_peak(con, att)
        return
    _print_alive_table(con, att)
    saved = report.view.saved_alive if report.view else []
    if saved:
        alive = [f"{fmt_bytes(g.bytes)} {g.label}" + (f" x{g.count}" if g.count > 1 else "") for g in saved[:6]]
        con.print("[dim]saved for backward, alive at the forward peak:[/] " + markup("; ".join(alive)))
    if att.inferred:
        con.print(f"[dim]measured: {markup('; '.join(att.measured or []))}. inferred: {markup('; '.join(att.inferred))}.[/]")


def _print_alive_at_peak(con: Console, att: S.Attribution) -> None:
    """One line: the largest categories alive at the step's peak."""
    peak = att.peak_phase
    at_peak = (att.phases or {}).get(peak)
    cats = (at_peak.by_category_bytes if at_peak else None) or att.by_category_bytes or {}
    top = sorted(((c, b) for c, b in cats.items() if b > 0), key=lambda kv: -kv[1])[:4]
    if not top:
        return
    at = fmt_bytes(at_peak.peak_bytes if at_peak and at_peak.peak_bytes is not None else att.peak_bytes)
    con.print(
        f"alive at the step peak ({markup(peak or '?')}, {at}): " + ", ".join(f"{markup(c)} {fmt_bytes(b)}" for c, b in top)
    )


def _print_alive_table(con: Console, att: S.Attribution) -> None:
    """What is alive at each phase's peak, by category."""
    phases = att.phases or {}
    t = Table(
        title=f"Alive at the peaks ({markup(att.source)}; the step peaks in {markup(att.peak_phase or '?')})",
        title_justify="left",
    )
    t.add_column("category")
    for name, ph in phases.items():
        t.add_column(f"{markup(name)} peak\n{fmt_bytes(ph.peak_bytes)}", justify="right")
    for cat in dict.fromkeys(c for ph in phases.values() for c in ph.by_category_bytes):
        t.add_row(
            markup(cat),
            *(fmt_bytes(ph.by_category_bytes.get(cat, 0)) if ph.by_category_bytes.get(cat) else "" for ph in phases.values()),
        )
    con.print(t)

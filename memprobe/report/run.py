"""``memprobe run`` (and ``memprobe show RUN_DIR``) on the console: the verdict first, one line per saved value;
``--wide`` adds op chains, library frames, graphs and categories."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..analysis.findings import flag_op
from ..analysis.plain import group_rows, label, value_names, verdict_of
from ..analysis.saved import layer_pattern
from ..text import markup
from ..units import fmt_bytes
from ..vocab import SavedKind
from .console import TOP_ROWS, compact_table, make_console, print_verdict, saved_value, why_saved, why_saved_wide


def _source_line(g: dict) -> str:
    """``repros/ffn.py:32``: the user's file (its last two path parts) and line; the code itself under --wide."""
    where = ((g.get("user") or {}).get("source") or "").split("  ", 1)[0]
    parts = where.split("/")
    return "…/" + "/".join(parts[-2:]) if len(parts) > 2 else where


def _why_short(g: dict) -> str:
    return "parameter input" if g["kind"] == SavedKind.PARAMETER else why_saved(g)


def _where(g: dict) -> str:
    user = g.get("user") or {}
    lines = [markup(x) for x in (user.get("source"), user.get("module")) if x]
    if user.get("library"):
        lines.append(f"[dim]{markup(user['library'])}[/]")
    return "\n".join(lines)


def _share(n: int, total: int) -> str:
    return f"{100 * n / total:.0f}%" if total else "-"


def _print_ranks(con: Console, report: dict) -> None:
    dist = report.get("distributed") or {}
    rows = dist.get("ranks") or []
    if len(rows) < 2:
        return
    figures = [k for k in rows[0] if k.endswith("_bytes")]
    t = Table(
        title=f"Per rank ({dist.get('world_size')} ranks, {dist.get('backend')}; measured in each rank's process)",
        title_justify="left",
    )
    t.add_column("rank", justify="right")
    for k in figures:
        t.add_column(k.removesuffix("_bytes").replace("_", " "), justify="right")
    for r in rows:
        t.add_row(str(r["rank"]), *(fmt_bytes(r.get(k)) for k in figures))
    t.add_row("[bold]max[/]", *(fmt_bytes(dist["max_bytes"].get(k)) for k in figures))
    t.add_row("[dim]skew[/]", *(fmt_bytes(dist["skew_bytes"].get(k)) for k in figures))
    con.print(t)
    con.print(f"[dim]{markup(dist.get('headline'))}[/]")


def _print_saved_wide(con: Console, groups: list[dict], total: int) -> None:
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
        style = "bold red" if g["kind"] == SavedKind.WEIGHT_DERIVED else None
        t.add_row(
            str(i),
            fmt_bytes(g["bytes"]),
            _share(g["bytes"], total) if g["kind"] != SavedKind.PARAMETER else "-",
            _count(g),
            markup(g["kind"]),
            saved_value(g),
            _where(g),
            markup(why_saved_wide(g)),
            style=style,
        )
    con.print(t)


def _count(g: dict) -> str:
    """How many blocks saved the value; one tensor that several blocks were given is said so (counted once)."""
    return str(g["count"]) + (" (one tensor)" if g.get("shared") else "")


def _print_saved_compact(con: Console, groups: list[dict], total: int) -> None:
    rows = [
        (
            [
                str(i),
                fmt_bytes(g["bytes"]),
                _share(g["bytes"], total) if g["kind"] != SavedKind.PARAMETER else "-",
                _count(g),
                label(g),
                _source_line(g),
                _why_short(g),
            ],
            "bold red" if g["kind"] == SavedKind.WEIGHT_DERIVED else None,
        )
        for i, g in enumerate(groups, 1)
    ]
    compact_table(
        con,
        "Saved for backward, per step (from the compiled graphs; red: weight-derived)",
        [
            ("#", "right", 0),
            ("bytes", "right", 0),
            ("share", "right", 0),
            ("x", "right", 0),
            ("saved value", "left", 2),
            ("where", "left", 1),
            ("why", "left", 1),
        ],
        rows,
    )


def _print_findings(con: Console, report: dict, wide: bool) -> None:
    findings = report.get("findings") or []
    rows = report.get("saved_tensors") or []
    if findings:
        con.print("[bold]Findings[/] (largest first)")
        for i, f in enumerate(findings, 1):
            if wide or not f.get("what"):
                con.print(f"[bold red]{i}.[/] {markup(f['message'])}")
                if f.get("hint"):
                    con.print(f"   [cyan]fix:[/] {markup(f['hint'])}")
            else:
                fix = f"; [cyan]fix:[/] {markup(f['fix'])}" if f.get("fix") else ""
                con.print(f"[bold red]{i}.[/] {fmt_bytes(f['bytes'])} {markup(f['what'])} [dim]({markup(f['kind'])})[/]{fix}")
        if wide:
            for detail in dict.fromkeys(f["detail"] for f in findings if f.get("detail")):
                con.print(f"[dim]{markup(detail)}[/]")
    elif rows:
        ran = "; ".join(c["title"] for c in report.get("checks") or [])
        con.print(f"[green]No findings.[/] Checks run: {markup(ran or 'weight-derived values saved for backward')}.")


def _print_memory(con: Console, report: dict, wide: bool) -> None:
    mem = report.get("memory")
    if not (mem and mem.get("phases")):
        return
    if not wide:
        peaks = " · ".join(f"{markup(n)} {fmt_bytes(p['peak_bytes'])}" for n, p in mem["phases"].items())
        con.print(f"measured peaks ({markup(mem.get('source'))}): {peaks}")
        return
    t = Table(title=f"Measured step memory ({markup(mem.get('source'))})", title_justify="left")
    t.add_column("phase")
    for col in ("start", "peak", "end"):
        t.add_column(col, justify="right")
    extra = "peak_reserved_bytes" in next(iter(mem["phases"].values()))
    if extra:
        t.add_column("peak reserved", justify="right")
    for name, p in mem["phases"].items():
        cells = [markup(name), fmt_bytes(p.get("start_bytes")), fmt_bytes(p["peak_bytes"]), fmt_bytes(p.get("end_bytes"))]
        if extra:
            cells.append(fmt_bytes(p.get("peak_reserved_bytes")))
        t.add_row(*cells)
    con.print(t)
    pers = mem.get("persistent") or {}
    con.print(
        f"[dim]figures: {markup(mem.get('baseline'))}; persistent state: parameters {fmt_bytes(pers.get('parameters_bytes'))},"
        f" optimizer {fmt_bytes(pers.get('optimizer_state_bytes'))}; autograd graph holds"
        f" {fmt_bytes(mem.get('autograd_saved_bytes'))} after forward (all saved tensors, eager ones included)[/]"
    )


def print_run(report: dict, run_dir: Path, console: Console | None = None, *, wide: bool = False) -> None:
    """The verdict first, then one line per saved value; ``wide``: op chains, library frames and graph detail."""
    con = console or make_console()
    cfg = report["config"]
    from ..config import ProbeConfig

    v = report["versions"]
    con.print(f"[bold]memprobe run[/]  {markup(ProbeConfig.from_dict(cfg).summary())}")
    print_verdict(con, verdict_of("run", report))
    con.print(
        f"[dim]{markup(report['device']['type'])} ({markup(v.get('device_name'))})  torch {markup(v.get('torch'))}  "
        f"torchao {markup(v.get('torchao'))}  status {markup(report['status'])}[/]"
    )
    if report.get("mode") == "analysis-only":
        con.print(
            "[yellow]analysis-only:[/] graphs traced and partitioned as for Inductor, run uncompiled; the saved"
            " table is the full run's, measured peaks include temporaries the kernels would not make"
        )
    _print_notes(con, report)
    _print_float8_coverage(con, report)
    rows = report.get("saved_tensors") or []
    totals = report.get("saved_totals") or {}
    if rows:
        groups = group_rows(rows)
        total = totals.get("graph_bytes", 0)
        con.print()
        shown = groups if wide else groups[:TOP_ROWS]
        (_print_saved_wide if wide else _print_saved_compact)(con, shown, total)
        if len(groups) > len(shown):
            con.print(f"[dim]… {len(groups) - len(shown)} more groups in report.json (saved_tensors); --wide shows all[/]")
        agree = totals.get("agree")
        check = "[green]agree[/]" if agree else "[red]DISAGREE[/]" if agree is False else "[yellow]not measured[/]"
        graph, runtime = fmt_bytes(totals.get("graph_bytes")), fmt_bytes(totals.get("runtime_bytes"))
        if agree is False and graph == runtime:  # two figures that differ never read the same
            graph, runtime = f"{totals['graph_bytes']:,} B", f"{totals['runtime_bytes']:,} B"
        con.print(
            f"saved for backward: [bold]{graph}[/] derived from the graphs,"
            f" {runtime} held at run time ({check});"
            f" parameters saved as graph inputs: {fmt_bytes(totals.get('parameter_graph_bytes'))}"
            f" ({fmt_bytes(totals.get('parameter_runtime_bytes'))} held at run time)"
        )
    elif report["status"] == "complete":
        con.print(
            "[yellow]no compiled graph saved anything for backward[/]"
            + (" (run with --compile to see the saved table)" if not cfg["compile"] else "")
        )
    con.print()
    _print_findings(con, report, wide)
    _print_memory(con, report, wide)
    _print_ranks(con, report)
    if wide:
        _print_graph_memory(con, report)
    _print_attribution(con, report, wide)
    parts = ["report.json"] + [p for p in ("graphs/", "output_code/") if (Path(run_dir) / p.rstrip("/")).is_dir()]
    if (Path(run_dir) / "snapshot.pickle").is_file():
        parts.append("snapshot.pickle for pytorch.org/memory_viz")
    con.print(f"\nrun directory: [bold]{markup(run_dir)}[/]  ({', '.join(parts)})" + ("" if wide else "; --wide for detail"))
    hint = _next_command(report)
    if hint:
        con.print(f"next: [cyan]{markup(hint)}[/]")


def _print_notes(con: Console, report: dict) -> None:
    """What memprobe changed in the model, and where this device's figures can differ from another's: once each."""
    for note in dict.fromkeys(report.get("notes") or []):
        con.print(f"[yellow]note:[/] {markup(note)}")


def _print_float8_coverage(con: Console, report: dict) -> None:
    """Which linears the float8 recipe converted, and which it left in bf16 and why (report.float8)."""
    from ..analysis.plain import skipped_text

    f8 = report.get("float8")
    if not f8:
        return
    linears = f8.get("linears") or []
    total, converted = f8.get("block_linear_parameters") or 0, f8.get("block_converted_parameters") or 0
    share = f"{100 * converted / total:.0f}%" if total else "-"
    inside = [x for x in linears if x["in_blocks"]]
    outside = [x["fqn"] for x in linears if not x["in_blocks"] and x["converted"]]
    line = (
        f"float8 {markup(f8.get('recipe'))} ({markup(f8.get('converter'))}): converted"
        f" {sum(x['converted'] for x in inside)} of {len(inside)} linears in the blocks ({share} of their parameters)"
    )
    if outside:
        line += f", and {markup(', '.join(outside[:3]))}{' …' if len(outside) > 3 else ''} outside them"
    skipped = skipped_text(f8)
    if skipped:
        line += f"; left in bf16: {markup(skipped)}"
    con.print(line if skipped else f"[dim]{line}[/]")


def _print_graph_memory(con: Console, report: dict) -> None:
    graphs = report.get("graph_memory") or []
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
        if "error" in g or "peak_bytes" not in g:
            t.add_row(markup(g["graph_id"]), "-", "-", "-", markup(g.get("error") or "not simulated"), "-")
            continue
        live = g.get("live_at_peak") or []
        top = live[0] if live else None
        top_text = (
            f"{top.get('storage')} {fmt_bytes(top['bytes'])} {top.get('expr') or top.get('written_by') or ''}" if top else ""
        )
        t.add_row(
            markup(g["graph_id"]),
            fmt_bytes(g["peak_bytes"]),
            fmt_bytes(g.get("output_bytes")),
            fmt_bytes(g.get("saved_bytes")) if g.get("saved_bytes") is not None else "-",
            markup(top_text),
            str(len(g.get("unrecognized") or [])),
        )
    con.print(t)


def _names_by_expr(report: dict) -> dict[str, str]:
    """A saved value's op chain (as the attribution names it) -> its one name."""
    return {r["expr"]: value_names(r)[0] for r in report.get("saved_tensors") or []}


def _print_attribution(con: Console, report: dict, wide: bool = True) -> None:
    att = report.get("attribution")
    if not att:
        return
    phases = att.get("phases") or {}
    if not wide:
        peak = att.get("peak_phase")
        cats = (phases.get(peak) or {}).get("by_category_bytes") or att.get("by_category_bytes") or {}
        top = sorted(((c, b) for c, b in cats.items() if b > 0), key=lambda kv: -kv[1])[:4]
        if top:
            at = fmt_bytes((phases.get(peak) or {}).get("peak_bytes", att.get("peak_bytes")))
            con.print(
                f"alive at the step peak ({markup(peak or '?')}, {at}): "
                + ", ".join(f"{markup(c)} {fmt_bytes(b)}" for c, b in top)
            )
        return
    t = Table(
        title=f"Alive at the peaks ({markup(att['source'])}; the step peaks in {markup(att.get('peak_phase') or '?')})",
        title_justify="left",
    )
    t.add_column("category")
    for name, ph in phases.items():
        t.add_column(f"{markup(name)} peak\n{fmt_bytes(ph.get('peak_bytes'))}", justify="right")
    cats = list(dict.fromkeys(c for ph in phases.values() for c in ph["by_category_bytes"]))
    for cat in cats:
        t.add_row(
            markup(cat),
            *(
                fmt_bytes(ph["by_category_bytes"].get(cat, 0)) if ph["by_category_bytes"].get(cat) else ""
                for ph in phases.values()
            ),
        )
    con.print(t)
    fw = phases.get("forward") or {}
    saved = fw.get("saved_for_backward") or []
    if saved:
        names = _names_by_expr(report)
        grouped: dict[str, list[int]] = {}
        for it in saved:
            grouped.setdefault(layer_pattern(names.get(it["item"], it["item"])), []).append(it["bytes"])
        lines = [
            f"{fmt_bytes(sum(b))} {k}" + (f" x{len(b)}" if len(b) > 1 else "")
            for k, b in sorted(grouped.items(), key=lambda kv: -sum(kv[1]))
        ]
        con.print("[dim]saved for backward, alive at the forward peak:[/] " + markup("; ".join(lines[:6])))
    if att.get("inferred"):
        con.print(
            f"[dim]measured: {markup('; '.join(att.get('measured') or []))}. inferred: {markup('; '.join(att['inferred']))}.[/]"
        )


def _next_command(report: dict) -> str | None:
    from ..config import ProbeConfig

    cfg = ProbeConfig.from_dict(report["config"])
    ops = sorted({flag_op(f["policy_op"]) for f in report.get("findings") or [] if f.get("policy_op")})
    if ops:
        # an op the user added with --save-op is dropped from it; one of the named policy's is recomputed
        saved = {flag_op(o): o for o in cfg.save_ops}
        edited = replace(
            cfg,
            save_ops=tuple(o for o in cfg.save_ops if flag_op(o) not in ops),
            recompute_ops=cfg.recompute_ops
            + tuple(o for o in ops if o not in {flag_op(x) for x in cfg.recompute_ops} and o not in saved),
        )
        return "memprobe run " + " ".join(edited.to_flags()) + "   # does recomputing it remove the finding?"
    if cfg.recipe != "bf16":
        return "memprobe run " + " ".join(replace(cfg, recipe="bf16").to_flags()) + "   # compare with bf16"
    return None

"""Rich console rendering of run reports (the data model stays in report.json)."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..analysis.diff import GROWTH
from ..analysis.findings import flag_op
from ..analysis.plain import group_rows, label, value_names, verdict_of
from ..analysis.saved import layer_pattern
from ..units import fmt_bytes, fmt_delta, fmt_flops
from ..vocab import Reason, SavedKind
from .text import markup, plain

TOP_ROWS = 12


def make_console(stderr: bool = False) -> Console:
    con = Console(stderr=stderr, highlight=False, soft_wrap=False)
    if not con.is_terminal and "COLUMNS" not in os.environ:
        con.width = 160  # logs and CI: wide enough for op chains
    return con


class progress_printer:
    """Progress on stderr while a probe compiles and steps.

    On a terminal: a spinner with the current stage and its running time, and a line with the
    duration of each finished stage. Elsewhere (logs, CI): one plain line per stage with the
    elapsed time. ``enabled=False`` (--quiet, --json) prints nothing. Use it as a context manager: the
    spinner stops however the work ends.
    """

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.console = make_console(stderr=True)
        self.live = enabled and self.console.is_terminal
        self._stage: tuple[str, float] | None = None
        self._status = None

    def _finish_stage(self) -> None:
        if self._stage is not None:
            msg, started = self._stage
            self.console.print(f"[green]✓[/] {markup(msg)} [dim]({time.perf_counter() - started:.1f}s)[/]")
            self._stage = None

    def __call__(self, msg: str) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.live:
            print(f"{now - self.t0:6.1f}s {plain(msg)}", file=sys.stderr, flush=True)
            return
        self._finish_stage()
        self._stage = (msg, now)
        if self._status is None:
            self._status = self.console.status(markup(msg), spinner="dots")
            self._status.start()
        else:
            self._status.update(markup(msg))

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self.live:
            self._finish_stage()

    def __enter__(self) -> progress_printer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_WHY = {Reason.POLICY: "policy MUST_SAVE", Reason.PARTITIONER: "partitioner", Reason.GRAPH_INPUT: "graph input"}


# -- compact rows: one line per value, cut with an ellipsis, never mid-word without one -------------------------------


def compact_table(con: Console, title: str | None, columns: list[tuple[str, str, int]], rows: list[tuple[list, str | None]]):
    """A table of one line per row that fits the console's width: ``columns`` are ``(header, "left"|"right",
    weight)``; columns of weight > 0 (names, places) give up width, the one widest for its weight first, and a
    cell that does not fit ends with ``…``. Cells are recorded text (printed literally)."""
    from rich.cells import cell_len

    gap = 2
    texts = [[plain(c) for c in cells] for cells, _ in rows]
    natural = [max([cell_len(h)] + [cell_len(r[i]) for r in texts]) for i, (h, _j, _w) in enumerate(columns)]
    widths = list(natural)
    avail = con.width - gap * (len(columns) - 1)
    floor = [min(n, max(cell_len(h), 8)) if w else n for n, (h, _j, w) in zip(natural, columns)]
    while sum(widths) > avail:
        flex = [i for i, (_h, _j, w) in enumerate(columns) if w and widths[i] > floor[i]]
        if not flex:
            break
        widest = max(flex, key=lambda i: widths[i] / columns[i][2])
        widths[widest] -= 1

    def line(cells: list[str], style: str | None) -> Text:
        out = Text(style=style or "")
        for i, (cell, (_h, just, _f)) in enumerate(zip(cells, columns)):
            t = Text(cell)
            if cell_len(cell) > widths[i]:
                t.truncate(widths[i], overflow="ellipsis")
            t.align(just, widths[i])
            out.append_text(t)
            if i < len(columns) - 1:
                out.append(" " * gap)
        out.rstrip()
        return out

    if title:
        con.print(Text(title, style="bold"), no_wrap=True, overflow="ellipsis")
    con.print(line([h for h, _j, _f in columns], "dim underline"), no_wrap=True, overflow="ellipsis", crop=True)
    for cells, (_c, style) in zip(texts, rows):
        con.print(line(cells, style), no_wrap=True, overflow="ellipsis", crop=True)


def print_verdict(con: Console, verdict: dict) -> None:
    """The answer, first: bold, wrapped at word boundaries."""
    con.print(Text.assemble(("verdict: ", "bold cyan"), (plain(verdict["text"]), "bold")))


def _source_line(g: dict) -> str:
    """``repros/ffn.py:32``: the user's file (its last two path parts) and line; the code itself under --wide."""
    where = ((g.get("user") or {}).get("source") or "").split("  ", 1)[0]
    parts = where.split("/")
    return "…/" + "/".join(parts[-2:]) if len(parts) > 2 else where


def _why_short(g: dict) -> str:
    if g["kind"] == SavedKind.PARAMETER:
        return "parameter input"
    if g["reason_kind"] == Reason.POLICY:
        return "policy " + (flag_op(g["policy_op"]) if g.get("policy_op") else "MUST_SAVE")
    return _WHY.get(g["reason_kind"], g["reason_kind"])


def _saved_value(g: dict) -> str:
    """The user's terms on the first line (``silu(layers.*.ffn.w1)``); the op chain below, dimmed."""
    name, chain = value_names(g)
    return markup(name) if chain is None else f"{markup(name)}\n[dim]{markup(chain)}[/]"


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
        why = _WHY.get(g["reason_kind"], g["reason_kind"]) + (f" {g['policy_op']}" if g["policy_op"] else "")
        t.add_row(
            str(i),
            fmt_bytes(g["bytes"]),
            _share(g["bytes"], total) if g["kind"] != SavedKind.PARAMETER else "-",
            _count(g),
            markup(g["kind"]),
            _saved_value(g),
            _where(g),
            markup(why),
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


def _diff_why(it: dict) -> str:
    if it["reason_kind"] == Reason.POLICY:
        return "policy " + (flag_op(it["policy_op"]) if it.get("policy_op") else "MUST_SAVE")
    return _WHY.get(it["reason_kind"], it["reason_kind"])


def print_diff(d: dict, out_dir: Path | None, console: Console | None = None, *, wide: bool = False) -> None:
    """The verdict first, then one line per differing value; ``wide``: op chains, hints, graphs, categories."""
    from .markdown import STATUS_LABEL

    con = console or make_console()
    from ..analysis.plain import schedule_line, side_environment, versions_line

    con.print("[bold]memprobe diff[/]")
    print_verdict(con, verdict_of("diff", d))
    for key in ("a", "b"):
        side = d[key]
        con.print(
            f"  {key.upper()}  {markup(side['summary'])}  [dim]({markup(side.get('source'))})[/]\n"
            f"     [dim]{markup(side_environment(side))}[/]"
        )
    if versions_line(d):
        con.print(f"  [yellow]{markup(versions_line(d))}[/]")
    if schedule_line(d):
        con.print(f"  [dim]{markup(schedule_line(d))}[/]")
    t = d["totals"]
    s = t["saved_bytes"]
    if d["differences"] == 0:
        con.print(
            f"[green]No difference[/] in saved-for-backward values ({d['unchanged_items']} matched, "
            f"{fmt_bytes(s['a'])} each side)."
        )
    else:
        con.print(
            f"saved for backward per step: {fmt_bytes(s['a'])} -> {fmt_bytes(s['b'])} "
            f"([bold]{fmt_delta(s['delta'])}[/]); {d['differences']} difference(s), {d['unchanged_items']} unchanged"
        )
        items = d["items"] if wide else d["items"][:TOP_ROWS]
        title = "What B keeps alive that A does not (ranked by bytes)"
        if wide:
            tab = Table(title=title, title_justify="left")
            for col, just in (
                ("status", "left"),
                ("saved value (what made it; op chain)", "left"),
                ("x", "right"),
                ("A", "right"),
                ("B", "right"),
                ("delta", "right"),
                ("kind", "left"),
                ("why", "left"),
            ):
                tab.add_column(col, justify=just, overflow="fold")
            for it in items:
                style = "bold red" if it["kind"] == SavedKind.WEIGHT_DERIVED and it["delta_bytes"] > 0 else None
                why = _WHY.get(it["reason_kind"], it["reason_kind"]) + (f" {it['policy_op']}" if it.get("policy_op") else "")
                tab.add_row(
                    STATUS_LABEL[it["status"]],
                    _saved_value(it),
                    str(it["count"]),
                    fmt_bytes(it["bytes_a"]),
                    fmt_bytes(it["bytes_b"]),
                    fmt_delta(it["delta_bytes"]),
                    markup(it["kind"]),
                    markup(why),
                    style=style,
                )
            con.print(tab)
            for h in list(dict.fromkeys(it.get("hint") for it in items if it["status"] in GROWTH))[:3]:
                if h:
                    con.print(f"[cyan]hint:[/] {markup(h)}")
        else:
            compact_table(
                con,
                title + "; red: weight-derived",
                [
                    ("status", "left", 0),
                    ("saved value", "left", 2),
                    ("x", "right", 0),
                    ("A", "right", 0),
                    ("B", "right", 0),
                    ("delta", "right", 0),
                    ("why", "left", 1),
                ],
                [
                    (
                        [
                            STATUS_LABEL[it["status"]],
                            label(it),
                            str(it["count"]),
                            fmt_bytes(it["bytes_a"]),
                            fmt_bytes(it["bytes_b"]),
                            fmt_delta(it["delta_bytes"]),
                            _diff_why(it),
                        ],
                        "bold red" if it["kind"] == SavedKind.WEIGHT_DERIVED and it["delta_bytes"] > 0 else None,
                    )
                    for it in items
                ],
            )
            if len(d["items"]) > len(items):
                con.print(f"[dim]… {len(d['items']) - len(items)} more in diff.json (items); --wide shows all[/]")
    ph = d.get("phases")
    if ph and ph.get("comparable") and not wide:
        deltas = " · ".join(f"{markup(n)} {fmt_delta((f.get('peak_bytes') or {}).get('delta'))}" for n, f in ph["phases"].items())
        con.print(f"measured peaks, B - A ({markup(ph.get('source'))}): {deltas}")
    elif ph and ph.get("comparable"):
        tab = Table(title=f"Measured phases ({markup(ph.get('source'))})", title_justify="left")
        for col in ("phase", "peak A", "peak B", "delta", "end A", "end B", "delta"):
            tab.add_column(col, justify="left" if col == "phase" else "right")
        for name, f in ph["phases"].items():
            pk, end = f.get("peak_bytes") or {}, f.get("end_bytes") or {}
            tab.add_row(
                markup(name),
                fmt_bytes(pk.get("a")),
                fmt_bytes(pk.get("b")),
                fmt_delta(pk.get("delta")),
                fmt_bytes(end.get("a")),
                fmt_bytes(end.get("b")),
                fmt_delta(end.get("delta")),
            )
        con.print(tab)
        reserved = {n: f["peak_reserved_bytes"].get("delta") for n, f in ph["phases"].items() if "peak_reserved_bytes" in f}
        if reserved:
            con.print(
                "[dim]peak reserved (B - A): "
                + "; ".join(f"{markup(n)} {fmt_delta(v)}" for n, v in reserved.items())
                + ". Reserved bytes also depend on each process's allocator history (what compiling and autotuning"
                " the first step left in partly used segments): a cold and a warm Inductor cache can differ.[/]"
            )
    elif ph:
        con.print(f"[yellow]measured phases not compared:[/] {markup(ph.get('why'))}")
    graphs = d.get("graphs") or []
    if graphs and wide:
        tab = Table(title="Compiled graphs (simulated)", title_justify="left")
        for col in ("graph", "peak A", "peak B", "delta", "saved A", "saved B", "delta"):
            tab.add_column(col, justify="left" if col == "graph" else "right")
        for g in graphs:
            p, sv = g.get("peak_bytes") or {}, g.get("saved_bytes") or {}
            tab.add_row(
                markup(g["graph_id"]),
                fmt_bytes(p.get("a")),
                fmt_bytes(p.get("b")),
                fmt_delta(p.get("delta")),
                fmt_bytes(sv.get("a")),
                fmt_bytes(sv.get("b")),
                fmt_delta(sv.get("delta")),
            )
        con.print(tab)
    alive = d.get("alive_at_peak") or {}
    for where, cats in (
        ("the forward peak", (alive.get("phases") or {}).get("forward")),
        ("the end of forward", (alive.get("at_end") or {}).get("forward")),
    ):
        changed = {c: v for c, v in (cats or {}).items() if v["delta"]}
        if changed:
            ranked = sorted(changed.items(), key=lambda kv: -abs(kv[1]["delta"]))
            con.print(
                ("[dim]" if wide else "")
                + f"alive at {where}, by category (B - A): "
                + "; ".join(f"{markup(c)} {fmt_delta(v['delta'])}" for c, v in (ranked if wide else ranked[:3]))
                + ("[/]" if wide else "")
            )
        if not wide:
            break
    if out_dir is not None:
        con.print(
            f"\nwritten: [bold]{markup(out_dir)}/diff.json[/]"
            + ("  (runs in a/ and b/)" if (out_dir / "a").exists() else "")
            + ("" if wide else "; --wide for detail")
        )


def print_gate_verdict_first(result: dict, print_table, console: Console | None = None) -> None:
    """A gate's verdict, then its limits (``print_table``: the gate's own table and breach explanations)."""
    con = console or make_console()
    print_verdict(con, verdict_of("gate", result))
    print_table(result, con)


def print_explain(r: dict, out_dir: Path, console: Console | None = None, *, wide: bool = False) -> None:
    con = console or make_console()
    b = r["base"]
    from ..config import ProbeConfig

    con.print(
        f"[bold]memprobe explain[/]  {markup(ProbeConfig.from_dict(b['config']).summary())}  [dim]({markup(r.get('mode'))})[/]"
    )
    print_verdict(con, verdict_of("explain", r))
    con.print(
        f"base: saves {fmt_bytes(b['saved_bytes'])} for backward per step; recomputes "
        f"{fmt_flops(b['recompute']['flops'])} ({fmt_bytes(b['recompute']['bytes_moved'])} moved) in backward"
    )
    if not r["edits"]:
        con.print("[yellow]no op of the save list saved anything: there is no policy edit to suggest[/]")
    elif wide:
        t = Table(title="Policy edits, best first (bytes freed per added FLOP of recompute)", title_justify="left")
        for col, just in (
            ("#", "right"),
            ("edit", "left"),
            ("frees / step", "right"),
            ("+recompute (est.)", "right"),
            ("+bytes moved (est.)", "right"),
            ("what it frees", "left"),
        ):
            t.add_column(col, justify=just, overflow="fold")
        for i, e in enumerate(r["edits"], 1):
            freed = "; ".join(f"{label(it)} x{it.get('count')}" for it in (e.get("freed") or [])[:3])
            t.add_row(
                str(i),
                f"{markup(e.get('edit'))}\n[cyan]{markup(e.get('flag'))}[/]",
                fmt_bytes(e["bytes_saved"]),
                fmt_flops(e.get("recompute_flops_added") or 0),
                fmt_bytes(e.get("recompute_bytes_added")),
                markup(freed),
            )
        con.print(t)
    else:
        compact_table(
            con,
            "Policy edits, best first (bytes freed per added FLOP of recompute)",
            [
                ("#", "right", 0),
                ("edit", "left", 0),
                ("frees / step", "right", 0),
                ("+recompute (est.)", "right", 0),
                ("what it frees", "left", 1),
            ],
            [
                (
                    [
                        str(i),
                        e.get("flag") or "",
                        fmt_bytes(e["bytes_saved"]),
                        fmt_flops(e.get("recompute_flops_added") or 0),
                        "; ".join(f"{label(it)} x{it.get('count')}" for it in (e.get("freed") or [])[:3]),
                    ],
                    None,
                )
                for i, e in enumerate(r["edits"], 1)
            ],
        )
    if r["partitioner_items"]:
        con.print(
            f"\n{len(r['partitioner_items'])} saved value(s) chosen by the partitioner, not the policy" + (":" if wide else ".")
        )
        for it in r["partitioner_items"][:5] if wide else []:
            con.print(
                f"  {fmt_bytes(it.get('bytes'))} {markup(label(it))} [dim]({markup(it.get('block'))})[/]: {markup(it.get('fate'))}"
            )
    con.print(f"\nwritten: {markup(out_dir)}/explain.json")


def print_bisect(r: dict, out_dir: Path, console: Console | None = None) -> None:
    con = console or make_console()
    t = Table(
        title=f"Configurations tried (metric: {markup(r.get('metric'))}; threshold {fmt_bytes(r['threshold_bytes'])}"
        + (f" = {markup(r['min_delta'])} of the gap as given" if str(r.get("min_delta", "")).endswith("%") else "")
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
    for i, row in enumerate(r["trials"]):
        if row["exceeds"] is None:
            verdict = "[yellow]could not run[/]"
        elif i == 0:
            verdict = "[red]exceeds[/]" if row["exceeds"] else "[green]below[/]"
        else:
            verdict = (
                "[red]still exceeds[/]"
                if row["exceeds"]
                else ("[green]below: needed[/]" if row.get("pass") == "single" else "[green]below[/]")
            )
        t.add_row(
            str(i),
            markup(row["removed"]),
            fmt_bytes(row["held_a"]),
            fmt_bytes(row["held_b"]),
            fmt_delta(row["delta_bytes"]),
            verdict,
            markup("/".join(str(m) for m in row.get("modes") or [])),
        )
    con.print(t)
    for row in r["trials"]:
        if row.get("error"):
            con.print(f"[yellow]{markup(row['removed'])}:[/] {markup(row['error'])}")
    if r.get("not_applicable"):
        con.print(f"[dim]not applicable here: {markup(', '.join(r['not_applicable']))}[/]")
    minimal = r.get("minimal") or {}
    con.print(f"minimal configuration:\n  A  {markup(minimal.get('a'))}\n  B  {markup(minimal.get('b'))}")
    con.print(f"[bold]{markup(r['conclusion'])}[/]")
    con.print(f"\nwritten: {markup(out_dir)}/bisect.json")


def print_policies(policies: dict) -> None:
    con = make_console()
    t = Table(title="Per-op SAC policies (--ac-policy)", title_justify="left", show_lines=True)
    t.add_column("name", style="bold")
    t.add_column("MUST_SAVE ops")
    t.add_column("notes", overflow="fold")
    for name, p in policies.items():
        if p.get("available") is False:
            ops = f"unavailable: {p['unavailable_because']}"
        else:
            ops = "\n".join(p["save_ops"]) if p["save_ops"] else ("every op" if p["default"] == "save" else "none")
        source = p["source"] + (f" (torchtitan {p['torchtitan']})" if p.get("torchtitan") else "")
        t.add_row(name, markup(ops, lines=True), markup(p["description"] + (f"\nsource: {source}" if source else ""), lines=True))
    con.print(t)
    con.print("Edit one for a run: --save-op aten.abs / --recompute-op aten.abs (repeatable).")


def print_estimate(result: dict, report: dict, console: Console | None = None) -> None:
    from ..config import ProbeConfig

    con = console or make_console()
    p, t = result["probe"], result["target"]
    con.print(f"[bold]memprobe estimate[/]  from {markup(ProbeConfig.from_dict(report['config']).summary())}")
    con.print(
        f"[dim]probe: {p['layers']} blocks, {p['world']} rank(s), {p['tokens']} tokens  ->  "
        f"target: {t['layers']} blocks, {t['world']} rank(s), {t['tokens']} tokens (batch {t['batch']} x seq {t['seq']})[/]"
    )
    tab = Table(title="Per rank, component by component (target column is an ESTIMATE)", title_justify="left")
    tab.add_column("component")
    tab.add_column("probe", justify="right")
    tab.add_column("target (estimate)", justify="right")
    tab.add_column("scales", style="dim", overflow="fold")
    for key, rule in result["scaling"].items():
        tab.add_row(
            key.removesuffix("_bytes").replace("_", " "),
            fmt_bytes(result["components"]["probe"][key]),
            fmt_bytes(result["components"]["target"][key]),
            markup(rule),
        )
    con.print(tab)
    tot = result["totals"]
    tab = Table(title="Totals per rank", title_justify="left")
    tab.add_column("")
    tab.add_column("probe, measured", justify="right")
    tab.add_column("probe, estimated", justify="right")
    tab.add_column("target, estimated", justify="right")
    for key, what in (("forward_end_bytes", "held at the end of forward"), ("peak_bytes", "step peak")):
        tab.add_row(
            what,
            fmt_bytes(tot["probe_measured"][key]),
            fmt_bytes(tot["probe_estimated"][key]),
            f"[bold]{fmt_bytes(tot['target_estimated'][key])}[/]",
        )
    con.print(tab)
    for note in result["notes"]:
        con.print(f"[dim]- {markup(note)}[/]")


def print_sweep(r: dict, out_dir: Path, console: Console | None = None) -> None:
    con = console or make_console()
    con.print(f"[bold]memprobe sweep[/]  {markup(r.get('summary'))}")
    t = Table(
        title="Activation memory budget (the compiler partitioner's): saved for backward and measured peak", title_justify="left"
    )
    for col in ("budget", "saved for backward", "held after forward", "step peak"):
        t.add_column(col, justify="right")
    flagged = {(i["lower_budget"], i["metric"]) for i in r.get("inversions") or []}
    for p in r["points"]:
        mark = " [red]↑[/]" if (p["budget"], "step_peak_bytes") in flagged else ""
        t.add_row(
            f"{p['budget']:g}",
            fmt_bytes(p.get("saved_bytes")),
            fmt_bytes(p.get("forward_end_bytes")),
            fmt_bytes(p.get("step_peak_bytes")) + mark,
        )
    con.print(t)
    for i in r.get("inversions") or []:
        what = "step peak" if i["metric"] == "step_peak_bytes" else "saved bytes"
        con.print(
            f"[bold red]not monotonic:[/] budget {i['lower_budget']:g} gives a {what} {fmt_bytes(i['excess_bytes'])} "
            f"higher than budget {i['higher_budget']:g} ({fmt_bytes(i['lower_budget_bytes'])} vs "
            f"{fmt_bytes(i['higher_budget_bytes'])})"
        )
    if not r.get("inversions"):
        con.print("[green]monotonic:[/] less budget never gave a higher peak or more saved bytes here.")
    con.print(f"[dim]{markup(r.get('note'))}[/]\nwritten: {markup(out_dir)}/sweep.json")

"""One self-contained HTML file for a run, a diff or a gate: works offline from disk.

The page is rendered from templates (``templates/*.html.j2``) by Jinja2 with autoescaping on,
so every recorded value is escaped by construction: a run directory may come from anyone. The
styles and the script (``assets/``) are inlined and allowed by their SHA-256 in the page's
Content-Security-Policy; nothing else may run or load (no inline handler, no network). The
charts are SVG drawn by that script from the embedded JSON (the same figures as report.json),
so the file is also readable as data.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

from ..names import value_names
from ..rundir import schema as S
from ..rundir.load import dump, run_file
from ..rundir.read import read_text
from ..text import truncate
from ..units import fmt_bytes, fmt_delta
from ..vocab import ReturnRole, SavedKind, Verdict
from .words import (
    STATUS_LABEL,
    headroom_text,
    limit_metric,
    limit_text,
    saved_view_text,
    schedule_line,
    side_environment,
    versions_line,
)


@lru_cache(maxsize=1)
def _env():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    templates = resources.files("memprobe.report") / "templates"
    env = Environment(
        loader=FileSystemLoader(str(templates)),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )
    env.filters["bytes"] = fmt_bytes
    return env


# the templates every page is made of besides its own: the page it extends and the macros it imports
_PAGE_PARTS = ("page.html.j2", "macros.html.j2")


def prepare(template: str) -> None:
    """The templates of a page (``template``, and :data:`_PAGE_PARTS`) compiled and its assets read, before its
    figures are known: done while a snapshot is read in another process, they are off the wait for the page."""
    env = _env()
    for name in (template, *_PAGE_PARTS):
        env.get_template(name)
    for asset in ("report.css", "report.js"):
        _asset(asset)


@cache
def _asset(name: str) -> str:
    return (resources.files("memprobe.report") / "assets" / name).read_text()


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def csp(css: str, js: str) -> str:
    """No network, no inline handlers: only this page's own style sheet and script, by hash."""
    return (
        f"default-src 'none'; style-src '{_sha256(css)}'; script-src '{_sha256(js)}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _json_for_script(data) -> str:
    # inside <script type="application/json">: nothing may close the element or open a comment
    # strict JSON (no NaN or Infinity: the page's JSON.parse would fail on them)
    return (
        json.dumps(data, separators=(",", ":"), allow_nan=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )


MAX_CODE_LINES = 20_000  # of one output-code file in the page (a real one has a few thousand)
MAX_CODE_LINE = 500  # characters of one line


def _code_lines(path: Path, marks: dict[int, str]) -> list[dict]:
    """An output-code file's lines for the page, bounded: at most MAX_CODE_LINES lines of at most
    MAX_CODE_LINE characters, a cut line or file marked as truncated (a file of millions of empty lines
    would otherwise make a page of hundreds of MB)."""
    text = read_text(path, kind="output code")
    parts = text.split("\n", MAX_CODE_LINES)  # numbered as Python numbers them (the analysis's line numbers)
    rest = parts.pop() if len(parts) > MAX_CODE_LINES else ""
    if not rest and parts and parts[-1] == "":
        parts.pop()  # after the newline that ends the file
    lines = [{"n": n, "text": truncate(t.rstrip("\r"), MAX_CODE_LINE), "cls": marks.get(n)} for n, t in enumerate(parts, 1)]
    if rest:
        more = rest.count("\n") + (0 if rest.endswith("\n") else 1)
        lines.append({"n": len(parts) + 1, "text": f"… (truncated: {more} more line{'s' if more > 1 else ''})", "cls": "hl"})
    return lines


def _page(template: str, title: str, subtitle: list[str], data: dict, verdict: S.Verdict | None = None, **context) -> str:
    from markupsafe import Markup

    css, js = _asset("report.css"), _asset("report.js")
    return (
        _env()
        .get_template(template)
        .render(
            title=title,
            subtitle=subtitle,
            csp=Markup(csp(css, js)),
            css=Markup(css),
            js=Markup(js),
            data_json=Markup(_json_for_script(data)),
            verdict=verdict,
            **context,
        )
    )


def _h(label: str, num: bool = False, wide: bool = False) -> dict:
    """A column's header: ``num`` right-aligned figures; ``wide`` a column of long names that keeps a readable width
    (its code wraps inside it)."""
    return {"label": label, "num": num, "wide": wide}


def _c(text, sort=None, *, code: bool = False, href: str | None = None, detail: str | None = None) -> dict:
    """A table cell: its text (escaped by the template), an optional numeric sort value, link or detail line."""
    return {"text": "" if text is None else str(text), "sort": sort, "code": code, "href": href, "detail": detail}


def _b(n) -> dict:
    return _c(fmt_bytes(n), n if isinstance(n, int) else -1)


def _d(n) -> dict:
    return _c(fmt_delta(n) if isinstance(n, int) else "n/a", n if isinstance(n, int) else 0)


def _saved_lines(graph: S.GraphMemory) -> dict[str, int]:
    """fx node name -> output-code line that allocated it (saved values only)."""
    line_of_storage = {storage: line for line, storage, _ in graph.allocations or []}
    out = {}
    for r in graph.returned or []:
        if r.role == ReturnRole.SAVED and not r.is_input and r.storage in line_of_storage:
            out[r.fx_node] = line_of_storage[r.storage]
    return out


def _phases_table(mem: S.Memory | None) -> dict | None:
    """The measured phases' table, with what the figures are relative to and the persistent state."""
    if not (mem and mem.phases):
        return None
    pers = mem.persistent
    return {
        "headers": [_h("phase"), _h("start", True), _h("peak", True), _h("end", True)],
        "rows": [{"cells": [_c(name), _b(p.start_bytes), _b(p.peak_bytes), _b(p.end_bytes)]} for name, p in mem.phases.items()],
        "note": f"{mem.baseline or ''}; parameters {fmt_bytes(pers.parameters_bytes if pers else None)}, optimizer state "
        f"{fmt_bytes(pers.optimizer_state_bytes if pers else None)} (source: {mem.source})",
    }


def _saved_row(r: S.SavedRow, line: int | None) -> dict:
    """One saved value's row; ``line``: the output-code line that allocated it (a link to it), if known."""
    where = _c(f"{r.graph}:{line}", href=f"code-{r.graph}-L{line}") if line else _c(r.graph)
    name, chain = value_names(r)
    return {
        "cls": "weight" if r.kind == SavedKind.WEIGHT_DERIVED else "",
        "cells": [
            _c(r.block or "-"),
            _c(name, code=True, detail=chain),
            _c(r.kind),
            _b(r.bytes),
            _c(f"{r.dtype} {r.shape}"),
            _c(r.reason),
            _c((r.user.source if r.user else None) or "", code=True),
            where,
        ],
    }


def render_run(report: S.Report, run_dir: str | Path, timeline: S.Timeline | None) -> str:
    run_dir = Path(run_dir)
    v = report.versions
    created = report.created_utc if "created_utc" in report.model_fields_set else ""  # a recorded null shows as None
    subtitle = [
        f"{report.config.probe().summary()} | {report.device.type} ({v.device_name}) | torch {v.torch} "
        f"| torchao {v.torchao} | status {report.status} | {created}"
    ]
    graphs = {g.graph_id: g for g in report.graph_memory or []}
    saved_line = {gid: _saved_lines(g) for gid, g in graphs.items()}
    checks = report.checks or []
    no_findings = (
        "No finding. Checks run: " + ", ".join(c.title for c in checks) + "."
        if checks
        else "No weight-derived value is saved for backward."
    )
    data = {
        "kind": "run",
        "timeline": dump(timeline) if timeline is not None else None,
        "graph_memory": [_graph_data(g, saved_line[gid]) for gid, g in graphs.items()],
    }
    return _page(
        "run.html.j2",
        f"memprobe run — {run_dir.name}",
        subtitle,
        data,
        verdict=report.verdict,
        findings=report.findings or [],
        no_findings=no_findings,
        phases=_phases_table(report.memory),
        saved=_saved_table(report, saved_line) if report.saved_tensors or report.graphs else None,
        saved_outside=_saved_outside_table(report),
        has_graphs=bool(graphs),
        code=_code(report, run_dir, graphs, saved_line),
        config=_config_table(report),
    )


def _saved_table(report: S.Report, saved_line: dict[str, dict[str, int]]) -> dict:
    """The saved-for-backward table, largest first (weight-derived values first among equals), linked to the
    output-code lines that allocate its values."""
    totals = report.saved_totals
    rows = [
        _saved_row(r, saved_line.get(r.graph, {}).get(r.name))
        for r in sorted(report.saved_tensors or [], key=lambda r: (-r.bytes, r.kind != SavedKind.WEIGHT_DERIVED))
    ]
    return {
        "headers": [
            _h("block"),
            _h("saved value", wide=True),
            _h("kind"),
            _h("bytes", True),
            _h("dtype / shape"),
            _h("why"),
            _h("source line"),
            _h("output code"),
        ],
        "rows": rows,
        "note": f"{fmt_bytes(totals.graph_bytes if totals else None)} derived from the graphs, "
        f"{fmt_bytes(totals.runtime_bytes if totals else None)} held at run time; parameters saved as graph inputs "
        f"{fmt_bytes(totals.parameter_graph_bytes if totals else None)}.",
    }


def _saved_outside_table(report: S.Report) -> dict | None:
    """What autograd saved outside the compiled graphs (measured at run time), by module, each layer's copy of a
    module one row with its count; None where nothing was."""
    outside, groups = report.saved_outside, (report.view.saved_outside_groups if report.view else None) or []
    if outside is None or not groups:
        return None
    total = outside.total_bytes
    rows = [
        {
            "cells": [
                _c(g.module, code=True),
                _c(g.count, g.count),
                _c(fmt_bytes(g.bytes), g.bytes),
                _c(f"{100 * g.bytes / total:.0f}%" if total else "", g.bytes),
                _c(g.eager_reason or ""),
            ]
        }
        for g in groups
    ]
    views = [saved_view_text(v) for v in outside.views or []]
    return {
        "headers": [_h("module", wide=True), _h("x", True), _h("bytes", True), _h("share", True), _h("why it ran eagerly")],
        "rows": rows,
        "note": f"{fmt_bytes(total)} saved for backward outside the compiled graphs (eager modules, the embedding's ids, "
        f"the logits the loss keeps), measured at run time by a saved_tensors_hooks pack hook; parameters "
        f"{fmt_bytes(outside.parameters_bytes)} apart."
        + (f" Saved views that pin a larger storage: {'; '.join(views)}." if views else ""),
    }


def _config_table(report: S.Report) -> dict:
    """The configuration and the versions, a row per key."""
    recorded = {**dump(report.config), **{f"version.{k}": x for k, x in dump(report.versions).items()}}
    return {
        "headers": [_h("key"), _h("value")],
        "rows": [{"cells": [_c(k), _c(json.dumps(val), code=True)]} for k, val in recorded.items()],
    }


def _graph_data(g: S.GraphMemory, saved_line: dict[str, int]) -> dict:
    """A graph's simulated figures for the page's chart (JSON data), with the lines that allocate saved values."""
    exprs = {r.fx_node: r.expr or r.fx_node for r in g.returned or [] if r.role == ReturnRole.SAVED}
    sizes = {ln: b for ln, _s, b in g.allocations or []}
    saved_lines = [
        {"line": line, "expr": exprs.get(node, node), "bytes": sizes.get(line, 0)} for node, line in saved_line.items()
    ]
    data = dump(g)
    return {k: data.get(k) for k in ("graph_id", "peak_bytes", "peak_line", "saved_bytes", "curve", "kernels")} | {
        "saved_lines": saved_lines
    }


def _code(report: S.Report, run_dir: Path, graphs: dict[str, S.GraphMemory], saved_line: dict[str, dict[str, int]]) -> list:
    """Each graph's output code (a file inside the run directory), its saved values' lines and its peak marked."""
    code = []
    for entry in report.graphs or []:
        rel = entry.files.output_code
        path = run_file(run_dir, rel, f"graphs ({entry.graph_id}) files.output_code") if rel else None
        if path is None or not path.is_file():
            continue
        gid = entry.graph_id
        marks = {line: "saved" for line in saved_line.get(gid, {}).values()}
        peak = graphs[gid].peak_line if gid in graphs else None
        if peak and peak not in marks:
            marks[peak] = "hl"
        code.append({"graph_id": gid, "file": rel, "open": bool(marks), "lines": _code_lines(path, marks)})
    return code


def _diff_row(it: S.DiffItem) -> dict:
    name, chain = it.label, value_names(it)[1]
    return {
        "cls": "weight" if it.kind == SavedKind.WEIGHT_DERIVED and (it.delta_bytes or 0) > 0 else "",
        "cells": [
            _c(STATUS_LABEL[it.status]),
            _c(name, code=True, detail=chain),
            _c(it.count, it.count),
            _b(it.bytes_a),
            _b(it.bytes_b),
            _d(it.delta_bytes),
            _c(it.kind or ""),
            _c(it.hint or ""),
        ],
    }


def _diff_phase_row(name: str, p: S.ComparedPhase | S.PhaseDelta) -> dict:
    pk, end = p.peak_bytes, p.end_bytes
    return {
        "cells": [
            _c(name),
            _b(pk.a if pk else None),
            _b(pk.b if pk else None),
            _d(pk.delta if pk else None),
            _b(end.a if end else None),
            _b(end.b if end else None),
            _d(end.delta if end else None),
        ]
    }


def render_diff(result: S.DiffResult, timeline_a: S.Timeline | None, timeline_b: S.Timeline | None) -> str:
    subtitle = [f"{k.upper()}: {side.summary} — {side_environment(side)}" for k, side in (("a", result.a), ("b", result.b))] + [
        line for line in (versions_line(result), schedule_line(result)) if line
    ]
    sb = result.totals.saved_bytes
    rows = [_diff_row(it) for it in result.items or []]
    items = {
        "headers": [
            _h("status"),
            _h("saved value", wide=True),
            _h("x", True),
            _h("A", True),
            _h("B", True),
            _h("delta", True),
            _h("kind"),
            _h("hint"),
        ],
        "rows": rows,
    }
    phases = None
    if result.phases and result.phases.phases:
        prow = [_diff_phase_row(name, p) for name, p in result.phases.phases.items()]
        phases = {
            "headers": [
                _h("phase"),
                _h("peak A", True),
                _h("peak B", True),
                _h("delta", True),
                _h("end A", True),
                _h("end B", True),
                _h("delta", True),
            ],
            "rows": prow,
        }
    data = {
        "kind": "diff",
        "timeline_a": dump(timeline_a) if timeline_a is not None else None,
        "timeline_b": dump(timeline_b) if timeline_b is not None else None,
    }
    return _page(
        "diff.html.j2",
        "memprobe diff",
        subtitle,
        data,
        verdict=result.verdict,
        saved_a=fmt_bytes(sb.a),
        saved_b=fmt_bytes(sb.b),
        saved_delta=fmt_delta(sb.delta) if isinstance(sb.delta, int) else "n/a",
        items=items,
        phases=phases,
    )


def render_gate(result: S.GateResult) -> str:
    """The gate's page: a row per limit, and each breach explained."""
    verdicts = result.verdicts
    failed = sum(1 for v in verdicts if v.verdict == Verdict.FAIL)
    rows = [
        {
            "cls": "weight" if v.verdict == Verdict.FAIL else "",
            "cells": [
                _c(v.probe),
                _c(limit_metric(v), code=True),
                _b(v.measured),
                _c(limit_text(v), v.limit),
                _c(headroom_text(v), v.headroom),
                _c(v.verdict),
                _c(v.notice or ""),
            ],
        }
        for v in verdicts
    ]
    table = {
        "headers": [
            _h("probe"),
            _h("metric"),
            _h("measured", True),
            _h("limit", True),
            _h("headroom", True),
            _h("verdict"),
            _h("notice"),
        ],
        "rows": rows,
    }
    explanations = [{"probe": probe, "headline": why.headline, "lines": why.lines} for probe, why in result.explanations.items()]
    return _page(
        "gate.html.j2",
        "memprobe gate: " + (Verdict.FAIL if failed else Verdict.PASS),
        [f"{len(verdicts)} limits, {failed} breached"],
        {"kind": "gate"},
        verdict=result.verdict,
        verdicts=table,
        explanations=explanations,
    )


def render_sweep(result: S.SweepResult) -> str:
    points = {
        "headers": [
            _h("memory budget", True),
            _h("saved for backward", True),
            _h("held after forward", True),
            _h("step peak", True),
        ],
        "rows": [
            {"cells": [_c(f"{p.budget:g}", p.budget), _b(p.saved_bytes), _b(p.forward_end_bytes), _b(p.step_peak_bytes)]}
            for p in result.points or []
        ],
    }
    inversions = [
        f"memory budget {i.lower_budget:g} gives {fmt_bytes(i.excess_bytes)} more ({i.metric}) than memory budget "
        f"{i.higher_budget:g}"
        for i in result.inversions or []
    ]
    data = {"kind": "sweep", "points": [dump(p) for p in result.points or []]}
    return _page(
        "sweep.html.j2",
        "memprobe sweep",
        [result.summary],
        data,
        points=points,
        inversions=inversions,
        note=result.note or "",
    )


_SNAPSHOT_AXIS = "the history's moments in order, one step each (events at one moment share it; a quiet stretch takes no room)"


def _snapshot_categories(s: S.SnapshotSummary) -> dict:
    return {
        "headers": [_h("category"), _h("bytes", True), _h("share", True)],
        "rows": [
            {"cells": [_c(c), _b(n), _c(f"{n / s.peak_bytes:.0%}" if s.peak_bytes else "")]}
            for c, n in s.by_category_bytes.items()
        ],
    }


def render_snapshot(s: S.SnapshotSummary, timeline: S.Timeline | None) -> str:
    """The page of a snapshot taken elsewhere: the verdict, what a snapshot alone says, its history stacked by category,
    what is alive at its peak by category and by the user's frames."""
    frames = {
        "headers": [_h("bytes", True), _h("blocks", True), _h("category"), _h("your code (innermost frame)"), _h("named by")],
        "rows": [
            {"cells": [_b(it.bytes), _c(it.blocks, it.blocks), _c(it.category), _c(it.item, code=True), _c(it.evidence or "")]}
            for it in s.top_items
        ],
        "note": f"{s.groups} groups alive at the peak; the {len(s.top_items)} largest shown. A frame in parentheses is a "
        "library's: no frame of the stack is the user's code.",
    }
    facts = [
        ("file", f"{s.file} ({fmt_bytes(s.file_bytes)})"),
        ("device", f"{s.device} ({s.devices} with a history)"),
        ("events", str(s.events)),
        ("allocated at the start, peak, end", f"{fmt_bytes(s.start_bytes)}, {fmt_bytes(s.peak_bytes)}, {fmt_bytes(s.end_bytes)}"),
        (
            "the peak",
            f"after event {s.peak_event + 1}" + (f", {s.peak_t_us / 1000:.1f} ms in" if s.peak_t_us is not None else ""),
        ),
        ("reserved when taken", fmt_bytes(s.reserved_bytes)),
    ]
    data = {"kind": "snapshot", "timeline": dump(timeline) if timeline is not None else None, "xlabel": _SNAPSHOT_AXIS}
    return _page(
        "snapshot.html.j2",
        f"memprobe snapshot — {Path(s.file).name}",
        [f"{s.file} | {s.events} allocator events | peak {fmt_bytes(s.peak_bytes)}"],
        data,
        verdict=s.verdict,
        scope=s.scope,
        categories=_snapshot_categories(s),
        frames=frames,
        facts={"headers": [_h("what"), _h("figure")], "rows": [{"cells": [_c(k), _c(v)]} for k, v in facts]},
    )


def render_snapshot_diff(d: S.SnapshotDiff, timeline_a: S.Timeline | None, timeline_b: S.Timeline | None) -> str:
    """The page of two snapshots: both histories on one axis, each stacked by category, the peaks by category, and
    the groups that differ, ranked."""
    figures = [
        ("peak", d.peak_bytes),
        ("at the start", d.start_bytes),
        ("at the end", d.end_bytes),
        ("reserved", d.reserved_bytes),
    ]
    figures += list(d.by_category.items())
    categories = {
        "headers": [_h(""), _h("A", True), _h("B", True), _h("B - A", True)],
        "rows": [{"cells": [_c(name), _b(x.a), _b(x.b), _d(x.delta)]} for name, x in figures],
    }
    items = {
        "headers": [
            _h("status"),
            _h("A", True),
            _h("B", True),
            _h("delta", True),
            _h("category"),
            _h("your code (innermost frame)"),
        ],
        "rows": [
            {
                "cells": [
                    _c(it.status.replace("_", " ")),
                    _b(it.bytes_a),
                    _b(it.bytes_b),
                    _d(it.delta_bytes),
                    _c(it.category),
                    _c(it.frame, code=True),
                ]
            }
            for it in d.items
        ],
        "note": f"{d.differences} groups differ, {d.unchanged} are the same on both sides.",
    }
    data = {
        "kind": "snapshot-diff",
        "timeline_a": dump(timeline_a) if timeline_a is not None else None,
        "timeline_b": dump(timeline_b) if timeline_b is not None else None,
        "xlabel": "ms from the first event of each recorded history",
    }
    return _page(
        "snapshot_diff.html.j2",
        "memprobe diff of two snapshots",
        [f"A: {d.a.file}", f"B: {d.b.file}"],
        data,
        verdict=d.verdict,
        scope=d.scope,
        categories=categories,
        items=items,
    )

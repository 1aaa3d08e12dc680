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

from ..analysis.plain import label, value_names, verdict_of
from ..rundir.load import run_file
from ..rundir.read import read_text
from ..text import truncate
from ..units import fmt_bytes, fmt_delta
from ..vocab import SavedKind, Verdict


@lru_cache(maxsize=1)
def _env():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    templates = resources.files("memprobe.report") / "templates"
    return Environment(
        loader=FileSystemLoader(str(templates)),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )


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


def _page(template: str, title: str, subtitle: list[str], data: dict, verdict: dict | None = None, **context) -> str:
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


def _h(label: str, num: bool = False) -> dict:
    return {"label": label, "num": num}


def _c(text, sort=None, *, code: bool = False, href: str | None = None, detail: str | None = None) -> dict:
    """A table cell: its text (escaped by the template), an optional numeric sort value, link or detail line."""
    return {"text": "" if text is None else str(text), "sort": sort, "code": code, "href": href, "detail": detail}


def _b(n) -> dict:
    return _c(fmt_bytes(n), n if isinstance(n, int) else -1)


def _d(n) -> dict:
    return _c(fmt_delta(n) if isinstance(n, int) else "n/a", n if isinstance(n, int) else 0)


def _saved_lines(graph: dict) -> dict[str, int]:
    """fx node name -> output-code line that allocated it (saved values only)."""
    line_of_storage = {storage: line for line, storage, _ in graph.get("allocations") or []}
    out = {}
    for r in graph.get("returned") or []:
        if r.get("role") == "saved" and not r.get("is_input") and r.get("storage") in line_of_storage:
            out[r["fx_node"]] = line_of_storage[r["storage"]]
    return out


def render_run(report: dict, run_dir: str | Path, timeline: dict | None) -> str:
    from ..config import ProbeConfig

    run_dir = Path(run_dir)
    cfg = ProbeConfig.from_dict(report["config"])
    v = report["versions"]
    subtitle = [
        f"{cfg.summary()} | {report['device']['type']} ({v.get('device_name')}) | torch {v.get('torch')} "
        f"| torchao {v.get('torchao')} | status {report['status']} | {report.get('created_utc', '')}"
    ]

    mem = report.get("memory") or {}
    phases = None
    if mem.get("phases"):
        pers = mem.get("persistent") or {}
        phases = {
            "headers": [_h("phase"), _h("start", True), _h("peak", True), _h("end", True)],
            "rows": [
                {"cells": [_c(name), _b(p.get("start_bytes")), _b(p.get("peak_bytes")), _b(p.get("end_bytes"))]}
                for name, p in mem["phases"].items()
            ],
            "note": f"{mem.get('baseline') or ''}; parameters {fmt_bytes(pers.get('parameters_bytes'))}, optimizer state "
            f"{fmt_bytes(pers.get('optimizer_state_bytes'))} (source: {mem.get('source')})",
        }

    graphs = {g["graph_id"]: g for g in report.get("graph_memory") or []}
    saved_line = {gid: _saved_lines(g) for gid, g in graphs.items()}
    rows = []
    totals = report.get("saved_totals") or {}
    for r in sorted(report.get("saved_tensors") or [], key=lambda r: (-r["bytes"], r["kind"] != SavedKind.WEIGHT_DERIVED)):
        line = saved_line.get(r["graph"], {}).get(r["name"])
        where = _c(f"{r['graph']}:{line}", href=f"code-{r['graph']}-L{line}") if line else _c(r["graph"])
        user = r.get("user") or {}
        name, chain = value_names(r)
        value = _c(name, code=True, detail=chain)
        rows.append(
            {
                "cls": "weight" if r["kind"] == SavedKind.WEIGHT_DERIVED else "",
                "cells": [
                    _c(r.get("block") or "-"),
                    value,
                    _c(r["kind"]),
                    _b(r["bytes"]),
                    _c(f"{r.get('dtype')} {r.get('shape')}"),
                    _c(r["reason"]),
                    _c(user.get("source") or ""),
                    where,
                ],
            }
        )
    saved = {
        "headers": [
            _h("block"),
            _h("saved value"),
            _h("kind"),
            _h("bytes", True),
            _h("dtype / shape"),
            _h("why"),
            _h("source line"),
            _h("output code"),
        ],
        "rows": rows,
        "note": f"{fmt_bytes(totals.get('graph_bytes'))} derived from the graphs, {fmt_bytes(totals.get('runtime_bytes'))} "
        f"held at run time; parameters saved as graph inputs {fmt_bytes(totals.get('parameter_graph_bytes'))}.",
    }

    graph_data = []
    for gid, g in graphs.items():
        exprs = {r["fx_node"]: r.get("expr") or r["fx_node"] for r in g.get("returned") or [] if r.get("role") == "saved"}
        sizes = {ln: b for ln, _s, b in g.get("allocations") or []}
        saved_lines = [
            {"line": line, "expr": exprs.get(node, node), "bytes": sizes.get(line, 0)} for node, line in saved_line[gid].items()
        ]
        graph_data.append(
            {k: g.get(k) for k in ("graph_id", "peak_bytes", "peak_line", "saved_bytes", "curve", "kernels")}
            | {"saved_lines": saved_lines}
        )

    code = []
    for entry in report.get("graphs") or []:
        rel = (entry.get("files") or {}).get("output_code")
        path = run_file(run_dir, rel, f"graphs ({entry['graph_id']}) files.output_code") if rel else None
        if path is None or not path.is_file():
            continue
        gid = entry["graph_id"]
        marks = {line: "saved" for line in saved_line.get(gid, {}).values()}
        peak = (graphs.get(gid) or {}).get("peak_line")
        if peak and peak not in marks:
            marks[peak] = "hl"
        code.append({"graph_id": gid, "file": rel, "open": bool(marks), "lines": _code_lines(path, marks)})

    config = {
        "headers": [_h("key"), _h("value")],
        "rows": [
            {"cells": [_c(k), _c(json.dumps(val), code=True)]}
            for k, val in {**report["config"], **{f"version.{k}": x for k, x in v.items()}}.items()
        ],
    }
    checks = report.get("checks") or []
    no_findings = (
        "No finding. Checks run: " + ", ".join(c.get("title", c.get("kind", "")) for c in checks) + "."
        if checks
        else "No weight-derived value is saved for backward."
    )
    data = {"kind": "run", "timeline": timeline, "graph_memory": graph_data}
    findings = [
        {**f, "items": [{**it, "bytes_text": fmt_bytes(it.get("bytes"))} for it in f.get("items") or []]}
        for f in report.get("findings") or []
    ]
    return _page(
        "run.html.j2",
        f"memprobe run — {run_dir.name}",
        subtitle,
        data,
        verdict=verdict_of("run", report),
        findings=findings,
        no_findings=no_findings,
        phases=phases,
        saved=saved,
        code=code,
        config=config,
    )


def render_diff(result: dict, timeline_a: dict | None, timeline_b: dict | None) -> str:
    from ..analysis.plain import schedule_line, side_environment, versions_line

    subtitle = [
        f"{k.upper()}: {(result.get(k) or {}).get('summary', '')} — {side_environment(result.get(k) or {})}" for k in ("a", "b")
    ] + [line for line in (versions_line(result), schedule_line(result)) if line]
    t = result.get("totals") or {}
    sb = t.get("saved_bytes") or {}
    rows = []
    for it in result.get("items") or []:
        name, chain = label(it), value_names(it)[1]
        rows.append(
            {
                "cls": "weight" if it.get("kind") == SavedKind.WEIGHT_DERIVED and (it.get("delta_bytes") or 0) > 0 else "",
                "cells": [
                    _c(it["status"].replace("_", " ")),
                    _c(name, code=True, detail=chain),
                    _c(it.get("count", ""), it.get("count")),
                    _b(it.get("bytes_a")),
                    _b(it.get("bytes_b")),
                    _d(it.get("delta_bytes")),
                    _c(it.get("kind") or ""),
                    _c(it.get("hint") or ""),
                ],
            }
        )
    items = {
        "headers": [
            _h("status"),
            _h("saved value"),
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
    if (result.get("phases") or {}).get("phases"):
        prow = []
        for name, p in result["phases"]["phases"].items():
            pk, end = p.get("peak_bytes") or {}, p.get("end_bytes") or {}
            prow.append(
                {
                    "cells": [
                        _c(name),
                        _b(pk.get("a")),
                        _b(pk.get("b")),
                        _d(pk.get("delta")),
                        _b(end.get("a")),
                        _b(end.get("b")),
                        _d(end.get("delta")),
                    ]
                }
            )
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
    data = {"kind": "diff", "timeline_a": timeline_a, "timeline_b": timeline_b}
    return _page(
        "diff.html.j2",
        "memprobe diff",
        subtitle,
        data,
        verdict=verdict_of("diff", result),
        saved_a=fmt_bytes(sb.get("a")),
        saved_b=fmt_bytes(sb.get("b")),
        saved_delta=fmt_delta(sb.get("delta")) if isinstance(sb.get("delta"), int) else "n/a",
        items=items,
        phases=phases,
    )


def render_gate(result: dict) -> str:
    verdicts = result.get("verdicts") or []
    failed = sum(1 for v in verdicts if v.get("verdict") == Verdict.FAIL)
    rows = [
        {
            "cls": "weight" if v.get("verdict") == Verdict.FAIL else "",
            "cells": [
                _c(v.get("probe")),
                _c(v.get("metric")),
                _c(v.get("kind", "")),
                _b(v.get("measured")),
                _c(v.get("limit_text") or v.get("limit") or ""),
                _c(v.get("verdict")),
                _c(v.get("notice") or ""),
            ],
        }
        for v in verdicts
    ]
    table = {
        "headers": [_h("probe"), _h("metric"), _h("kind"), _h("measured", True), _h("limit"), _h("verdict"), _h("notice")],
        "rows": rows,
    }
    explanations = [
        {"probe": probe, "headline": why.get("headline", ""), "lines": why.get("lines") or []}
        for probe, why in (result.get("explanations") or {}).items()
    ]
    return _page(
        "gate.html.j2",
        "memprobe gate: " + (Verdict.FAIL if failed else Verdict.PASS),
        [f"{len(verdicts)} limits, {failed} breached"],
        {"kind": "gate"},
        verdict=verdict_of("gate", result),
        verdicts=table,
        explanations=explanations,
    )


def render_sweep(result: dict) -> str:
    points = {
        "headers": [
            _h("memory budget", True),
            _h("saved for backward", True),
            _h("held after forward", True),
            _h("step peak", True),
        ],
        "rows": [
            {
                "cells": [
                    _c(f"{p['budget']:g}", p["budget"]),
                    _b(p.get("saved_bytes")),
                    _b(p.get("forward_end_bytes")),
                    _b(p.get("step_peak_bytes")),
                ]
            }
            for p in result.get("points") or []
        ],
    }
    inversions = [
        f"memory budget {i['lower_budget']:g} gives {fmt_bytes(i['excess_bytes'])} more ({i['metric']}) than memory budget "
        f"{i['higher_budget']:g}"
        for i in result.get("inversions") or []
    ]
    data = {"kind": "sweep", "points": result.get("points") or []}
    return _page(
        "sweep.html.j2",
        "memprobe sweep",
        [result.get("summary", "")],
        data,
        points=points,
        inversions=inversions,
        note=result.get("note", ""),
    )

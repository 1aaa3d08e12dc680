"""Renderers for gate verdicts: console, Markdown (for $GITHUB_STEP_SUMMARY), JUnit XML, from the gate's result
(:class:`~memprobe.rundir.schema.GateResult`, :func:`memprobe.orchestrate.gate.run_gate`)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from rich.console import Console
from rich.table import Table

from ..budget import limit_name
from ..rundir import schema as S
from ..text import markup, md_code, md_text, xml_text
from ..units import fmt_bytes
from ..vocab import LimitKind, Verdict
from .console import make_console, print_verdict

_STYLE = {Verdict.PASS: "green", Verdict.FAIL: "bold red", Verdict.SKIP: "yellow"}


def _limit_text(v: S.LimitVerdict) -> str:
    if v.limit is None:
        return v.limit_text or "-"
    if v.kind == LimitKind.RELATIVE:
        return f"{fmt_bytes(v.limit)} (baseline {v.limit_text})"
    return fmt_bytes(v.limit)


def _headroom(v: S.LimitVerdict) -> str:
    h = v.headroom
    return "" if h is None else ("+" if h >= 0 else "") + fmt_bytes(h)


def _metric(v: S.LimitVerdict) -> str:
    return limit_name(v.metric, v.kind, v.device)


def print_gate_result(result: S.GateResult, console: Console | None = None) -> None:
    """The gate's verdict, then its limits: the table and what caused each breach."""
    con = console or make_console()
    print_verdict(con, result.verdict)
    print_gate(result, con)


def print_gate(result: S.GateResult, console: Console) -> None:
    """The verdicts, one row per limit, then the skipped and failed limits' notices and each breach explained."""
    t = Table(title=f"memprobe gate: {markup(result.budget)}", title_justify="left")
    for col, just in (
        ("probe", "left"),
        ("metric", "left"),
        ("measured", "right"),
        ("limit", "right"),
        ("headroom", "right"),
        ("verdict", "left"),
    ):
        t.add_column(col, justify=just)
    for v in result.verdicts:
        t.add_row(
            markup(v.probe),
            markup(_metric(v)),
            fmt_bytes(v.measured),
            markup(_limit_text(v)),
            _headroom(v),
            f"[{_STYLE[v.verdict]}]{v.verdict}[/]",
        )
    console.print(t)
    for v in result.verdicts:
        if v.verdict == Verdict.SKIP:
            console.print(f"[yellow]skip[/] {markup(v.probe)} {markup(_metric(v))}: {markup(v.notice)}")
        elif v.verdict == Verdict.FAIL and v.notice:
            console.print(f"[bold red]fail[/] {markup(v.probe)} {markup(_metric(v))}: {markup(v.notice)}")
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


def _code_spans(line: str, exprs: list[str]) -> str:
    """A Markdown line with the saved values it names set as code, the rest as inert text."""
    for expr in sorted(exprs, key=len, reverse=True):
        if expr and expr in line:
            before, _, after = line.partition(expr)
            return md_text(before, line_start=True) + md_code(expr) + md_text(after)
    return md_text(line, line_start=True)


def gate_markdown(result: S.GateResult) -> str:
    n = result.counts
    passed, failed, skipped = n.get(Verdict.PASS, 0), n.get(Verdict.FAIL, 0), n.get(Verdict.SKIP, 0)
    lines = [
        f"### memprobe gate: {'❌ FAIL' if failed else '✅ PASS'}",
        "",
        f"**Verdict:** {md_text(result.verdict.text)}",
        "",
        f"{passed} passed, {failed} failed, {skipped} skipped ({md_code(result.budget)})",
        "",
        "| probe | metric | measured | limit | headroom | verdict |",
        "|---|---|---:|---:|---:|---|",
    ]
    for v in result.verdicts:
        lines.append(
            f"| {md_text(v.probe)} | {md_code(_metric(v), cell=True)} | {fmt_bytes(v.measured)} |"
            f" {md_text(_limit_text(v))} | {_headroom(v)} | {v.verdict} |"
        )
    for name, why in result.explanations.items():
        lines += ["", f"**{md_text(name)}** breached its budget. {md_text(why.headline)}", ""]
        lines += [f"- {_code_spans(line, why.exprs)}" for line in why.lines]
    for v in result.verdicts:  # a limit that failed for want of its figure says so
        if v.verdict == Verdict.FAIL and v.notice:
            lines += ["", f"- {md_text(v.probe, line_start=True)} {md_code(_metric(v))} failed: {md_text(v.notice)}"]
    skips = [v for v in result.verdicts if v.verdict == Verdict.SKIP]
    if skips:
        lines += ["", "<details><summary>skipped</summary>", ""]
        lines += [f"- {md_text(v.probe, line_start=True)} {md_code(_metric(v))}: {md_text(v.notice)}" for v in skips]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def gate_junit(result: S.GateResult) -> str:
    """The verdicts as JUnit XML: a test suite per probe, a test case per limit; every recorded string made
    text XML 1.0 can hold (:func:`~memprobe.text.xml_text`), so the document is always well formed."""
    suites = ET.Element("testsuites", name="memprobe gate")
    by_probe: dict[str, list[S.LimitVerdict]] = {}
    for v in result.verdicts:
        by_probe.setdefault(v.probe, []).append(v)
    for probe, verdicts in by_probe.items():
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=xml_text(probe),
            tests=str(len(verdicts)),
            failures=str(sum(v.verdict == Verdict.FAIL for v in verdicts)),
            skipped=str(sum(v.verdict == Verdict.SKIP for v in verdicts)),
        )
        for v in verdicts:
            case = ET.SubElement(suite, "testcase", classname=xml_text(f"memprobe.{probe}"), name=xml_text(_metric(v)))
            if v.verdict == Verdict.FAIL:
                why = result.explanations.get(probe)
                msg = v.notice if v.measured is None or v.limit is None else None
                msg = msg or f"{fmt_bytes(v.measured)} > {_limit_text(v)}"
                fail = ET.SubElement(case, "failure", message=xml_text(msg))
                fail.text = xml_text("\n".join([why.headline, *why.lines] if why else [""]))
            elif v.verdict == Verdict.SKIP:
                ET.SubElement(case, "skipped", message=xml_text(v.notice))
    return ET.tostring(suites, encoding="unicode")


def write_gate_outputs(
    result: S.GateResult, *, junit=None, html=None, csv=None, parquet=None, step_summary: str | None = None
) -> None:
    """The files a gate was asked for: JUnit XML, the HTML page, the verdicts as a table, and the Markdown summary
    appended to ``$GITHUB_STEP_SUMMARY``."""
    from ..rundir.write import atomic_write_text
    from .html import render_gate
    from .tables import export

    if junit is not None:
        atomic_write_text(junit, gate_junit(result))
    if html is not None:
        atomic_write_text(html, render_gate(result))
    export("gate", result, csv, parquet)
    if step_summary:
        with open(step_summary, "a") as f:
            f.write(gate_markdown(result))

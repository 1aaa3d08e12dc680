"""Markdown for pull-request comments and CI summaries: a diff's, an explain's and a bisect's (compact tables, the
top items, the verdict), and a gate's (``$GITHUB_STEP_SUMMARY``). Every recorded string is made inert Markdown
(:func:`memprobe.text.md_text`, :func:`memprobe.text.md_code`)."""

from __future__ import annotations

from ..rundir import schema as S
from ..text import md_code, md_text
from ..units import fmt_bytes, fmt_delta, fmt_flops
from ..vocab import Verdict
from .words import (
    STATUS_LABEL,
    headroom_text,
    limit_metric,
    limit_text,
    schedule_line,
    side_environment,
    source_line,
    versions_line,
    why_saved,
)

TOP = 10


def _cell(text) -> str:
    """Recorded text in a table cell or a line: inert (memprobe.text.md_text)."""
    return md_text(text)


def _line(text) -> str:
    """Recorded text that begins a line or a list item: inert there too."""
    return md_text(text, line_start=True)


def _code(text) -> str:
    """Recorded text as code, in a table cell or a line: a span it cannot close (memprobe.text.md_code)."""
    return md_code(text, cell=True)


def _value(it: S.DiffItem) -> str:
    """A saved value by its one name (``silu(layers.*.ffn.w1)``), as the console and the HTML name it: a code span
    it cannot close."""
    return _code(it.label)


def _verdict(result: S.DiffResult | S.ExplainResult) -> list[str]:
    """The answer first: the verdict's sentence, as the console and the HTML print it."""
    return [f"**Verdict:** {_cell(result.verdict.text)}", ""]


def diff_markdown(d: S.DiffResult) -> str:
    saved = d.totals.saved_bytes
    lines = [
        "### memprobe diff",
        "",
        *_verdict(d),
        f"**A** {_code(d.a.summary)}  ",
        f"<sub>{_cell(side_environment(d.a))}</sub>  ",
        f"**B** {_code(d.b.summary)}  ",
        f"<sub>{_cell(side_environment(d.b))}</sub>",
        "",
    ]
    if versions_line(d):
        lines += [f"**{_cell(versions_line(d))}**", ""]
    if schedule_line(d):
        lines += [f"<sub>{_cell(schedule_line(d))}</sub>", ""]
    if d.differences == 0:
        lines.append(f"No difference in saved-for-backward values ({d.unchanged_items} matched).")
    else:
        lines.append(
            f"B saves **{fmt_delta(saved.delta)}** for backward per step"
            f" ({fmt_bytes(saved.a)} -> {fmt_bytes(saved.b)}); {d.differences} difference(s)."
        )
    lines.append("")
    if d.items:
        lines += ["| | saved value | x | A | B | delta | where | why |", "|---|---|---:|---:|---:|---:|---|---|"]
        for it in d.items[:TOP]:
            where = _code(source_line(it)) if source_line(it) else ""
            lines.append(
                f"| {STATUS_LABEL[it.status]} | {_value(it)} | {it.count} | {fmt_bytes(it.bytes_a)}"
                f" | {fmt_bytes(it.bytes_b)} | {fmt_delta(it.delta_bytes)} | {where} | {_cell(why_saved(it))} |"
            )
        if len(d.items) > TOP:
            lines.append(f"\n_{len(d.items) - TOP} more in diff.json._")
        lines.append("")
    ph = d.phases
    if ph and ph.comparable:
        lines += [f"Measured peaks ({_cell(ph.source)}):", "", "| phase | A | B | delta |", "|---|---:|---:|---:|"]
        for name, figs in ph.phases.items():
            p = figs.peak_bytes
            lines.append(f"| {_cell(name)} | {fmt_bytes(p.a)} | {fmt_bytes(p.b)} | {fmt_delta(p.delta)} |")
        lines.append("")
    return "\n".join(lines)


def explain_markdown(r: S.ExplainResult) -> str:
    b = r.base
    lines = [
        "### memprobe explain",
        "",
        *_verdict(r),
        f"Base saves {fmt_bytes(b.saved_bytes)} for backward per step "
        f"and recomputes {fmt_flops(b.recompute.flops)} in backward ({_cell(r.mode)}).",
        "",
        "| rank | edit | frees per step | recompute added (est.) | bytes moved added (est.) |",
        "|---:|---|---:|---:|---:|",
    ]
    for i, e in enumerate(r.edits, 1):
        lines.append(
            f"| {i} | {_code(e.flag)} ({_cell(e.edit)}) | {fmt_bytes(e.bytes_saved)} | "
            f"{fmt_flops(e.recompute_flops_added)} | {fmt_bytes(e.recompute_bytes_added)} |"
        )
    if r.partitioner_items:
        lines += ["", f"{len(r.partitioner_items)} saved value(s) were chosen by the partitioner, not the policy."]
    return "\n".join(lines) + "\n"


def bisect_markdown(r: S.BisectResult) -> str:
    lines = [
        "### memprobe bisect",
        "",
        _line(r.conclusion),
        "",
        "| removed | held A | held B | B - A | still exceeds |",
        "|---|---:|---:|---:|---|",
    ]
    for t in r.trials:
        exceeds = "could not run" if t.exceeds is None else ("yes" if t.exceeds else "no")
        lines.append(
            f"| {_cell(t.removed)} | {fmt_bytes(t.held_a)} | {fmt_bytes(t.held_b)} | {fmt_delta(t.delta_bytes)} | {exceeds} |"
        )
    lines += ["", f"Minimal: A {_code(r.minimal.a)}, B {_code(r.minimal.b)}"]
    return "\n".join(lines) + "\n"


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
            f"| {md_text(v.probe)} | {md_code(limit_metric(v), cell=True)} | {fmt_bytes(v.measured)} |"
            f" {md_text(limit_text(v))} | {headroom_text(v)} | {v.verdict} |"
        )
    for name, why in result.explanations.items():
        lines += ["", f"**{md_text(name)}** breached its budget. {md_text(why.headline)}", ""]
        lines += [f"- {_code_spans(line, why.exprs)}" for line in why.lines]
    lines += _gate_notices(result)
    return "\n".join(lines) + "\n"


def _gate_notices(result: S.GateResult) -> list[str]:
    """A limit that failed for want of its figure says so; the skipped limits, folded."""
    lines = []
    for v in result.verdicts:
        if v.verdict == Verdict.FAIL and v.notice:
            lines += ["", f"- {md_text(v.probe, line_start=True)} {md_code(limit_metric(v))} failed: {md_text(v.notice)}"]
    skips = [v for v in result.verdicts if v.verdict == Verdict.SKIP]
    if skips:
        lines += ["", "<details><summary>skipped</summary>", ""]
        lines += [f"- {md_text(v.probe, line_start=True)} {md_code(limit_metric(v))}: {md_text(v.notice)}" for v in skips]
        lines += ["", "</details>"]
    return lines


def snapshot_diff_markdown(d: S.SnapshotDiff) -> str:
    """Two snapshots taken elsewhere, compared: the verdict, the peaks by category, the groups that differ."""
    lines = [
        "### memprobe diff (two snapshots)",
        "",
        f"**Verdict:** {_cell(d.verdict.text)}",
        "",
        f"**A** {_code(d.a.file)}  ",
        f"**B** {_code(d.b.file)}",
        "",
        f"<sub>known: {_cell(d.scope)}</sub>",
        "",
        "| | A | B | B - A |",
        "|---|---:|---:|---:|",
    ]
    figures = [("peak", d.peak_bytes), *d.by_category.items()]
    lines += [f"| {_cell(name)} | {fmt_bytes(x.a)} | {fmt_bytes(x.b)} | {fmt_delta(x.delta)} |" for name, x in figures]
    lines.append("")
    if not d.items:
        return "\n".join([*lines, f"Nothing alive at the peaks differs ({d.unchanged} groups).", ""])
    lines += ["| | A | B | delta | category | your code |", "|---|---:|---:|---:|---|---|"]
    lines += [
        f"| {STATUS_LABEL[it.status]} | {fmt_bytes(it.bytes_a)} | {fmt_bytes(it.bytes_b)} | {fmt_delta(it.delta_bytes)}"
        f" | {_cell(it.category)} | {_code(it.frame)} |"
        for it in d.items[:TOP]
    ]
    if d.differences > TOP:
        lines.append(f"\n_{d.differences - TOP} more differ (`--json`)._")
    return "\n".join([*lines, ""])

"""The answer first: one or two sentences per result (a run, a diff, an explain, a gate), in the user's terms.

Each verdict says what dominates, by how much, why and the fix, with every figure taken from the
result it sums up (a run's findings and saved totals, a diff's ranked items, an explain's edits, a
gate's limits). It is a record (:class:`~memprobe.rundir.schema.Verdict`: the text, its figures, the finding, the fix and its flag),
stored in report.json / diff.json / explain.json / the gate's JSON as ``verdict``, so the console,
Markdown, HTML and MCP carry the same sentence. Pure functions: no file is read here.
"""

from __future__ import annotations

from collections import defaultdict

from ..rundir import schema as S
from ..units import fmt_bytes, fmt_flops
from ..vocab import DiffStatus, FindingKind, Reason, RunStatus, SavedKind, Verdict
from .findings import find, flag_op, label, names_phrase

_GROWTH = (DiffStatus.ONLY_B, DiffStatus.GROWN)
# the kinds whose findings are grouped by cause (a recorded run with one of them ungrouped is re-derived)
_GROUPED = (FindingKind.WEIGHT_DERIVED_SAVED, FindingKind.WIDE_WEIGHT_COPY, FindingKind.FLOAT32_ACTIVATION)


def _verdict(
    text: str,
    *,
    bytes_: int | None = None,
    total: int | None = None,
    finding: str | None = None,
    fix: str | None = None,
    flag: str | None = None,
) -> S.Verdict:
    return S.Verdict(text=S.clip(text), bytes=bytes_, total_bytes=total, finding=finding, fix=fix, flag=flag)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _why(reason_kind: str, policy_op: str | None, whose: str = "the") -> str:
    if reason_kind == Reason.POLICY and policy_op:
        return f"kept by {flag_op(policy_op)} in {whose} save list"
    if reason_kind == Reason.POLICY:
        return f"tagged MUST_SAVE by {whose} SAC policy"
    if reason_kind == Reason.GRAPH_INPUT:
        return "read by backward as a graph input"
    return f"kept by {whose} min-cut partitioner"


def run_verdict(report: S.Report) -> S.Verdict:
    """What a run's step saves for backward, and the first thing to fix."""
    status = report.status
    if status and status != RunStatus.COMPLETE:
        why = report.error or report.analysis_error or "see report.json"
        return _verdict(f"The run is {status}, not complete: {why}. What it recorded is in its run directory.")
    totals = report.saved_totals
    saved = totals.graph_bytes if totals else None
    findings = report.findings
    if any(f.kind in _GROUPED and f.items is None for f in findings) and report.saved_tensors:
        # recorded before findings were grouped by cause: today's rules, over the recorded rows
        findings = find(
            report.saved_tensors,
            totals or S.SavedTotals(graph_bytes=0),
            report.config.probe(),
            policy=report.policy,
            attribution=report.attribution,
        )
    if findings:
        return _finding_verdict(findings, saved)
    rows = [r for r in report.saved_tensors if r.kind != SavedKind.PARAMETER]
    if not rows:
        compiled = report.config.compile if report.config.compile is not None else True
        return _verdict(
            "No compiled graph saved anything for backward"
            + ("." if compiled else ": run with --compile to see what the compiled step saves.")
        )
    from .saved import group_rows

    top = group_rows(rows)[0]
    checks = len(report.checks or [])
    share = f", {100 * top.bytes / saved:.0f}%" if saved else ""
    return _verdict(
        f"No finding{f' in {checks} checks' if checks else ''}: {fmt_bytes(saved)} saved for backward per step; "
        f"the largest is {label(top)} ({fmt_bytes(top.bytes)}{share}, x{top.count}), "
        f"{_why(top.reason_kind, top.policy_op)}.",
        bytes_=top.bytes,
        total=saved,
    )


def _finding_verdict(findings: list[S.Finding], saved: int | None) -> S.Verdict:
    top = findings[0]
    text = top.summary or top.message
    if top.fix:
        text = f"{text.rstrip('.')}; fix: {top.fix}"
    text = _sentence(text)
    rest = findings[1:]
    if rest:
        kinds = ", ".join(dict.fromkeys(f.kind for f in rest))
        text += f" {len(rest)} more finding{'s' if len(rest) > 1 else ''} below ({kinds})."
    return _verdict(text, bytes_=top.bytes, total=saved, finding=top.kind, fix=top.fix, flag=top.flag)


def _cause(item: S.DiffItem) -> tuple:
    """A diff item's cause: its kind, the op that made it (its user-level call; its name when none was recorded), and
    why it was kept (the reason and the save-list op)."""
    op = item.user.op if item.user else None
    return (item.kind, op or label(item), item.reason_kind, item.policy_op)


def _diff_what(op: str, items: list[S.DiffItem]) -> str:
    if len(items) == 1:
        return label(items[0])
    roots = [r for it in items for r in it.roots or []]
    modules = [m for it in items if (m := (it.user.module if it.user else None))]
    where = names_phrase(roots) if roots else names_phrase(modules)
    return f"{op}() of {where}" if where else f"{op}() ({len(items)} values)"


def diff_verdict(d: S.DiffResult) -> S.Verdict:
    """What B keeps alive for backward that A does not, the cause that weighs most, and its fix."""
    s = d.totals.saved_bytes
    a, b, delta = s.a, s.b, s.delta
    if not d.differences:
        return _verdict(
            f"No difference: A and B save the same {fmt_bytes(b)} for backward per step ({d.unchanged_items} values matched).",
            bytes_=0,
            total=b,
        )
    grown = [it for it in d.items if it.status in _GROWTH and it.delta_bytes > 0]
    if delta is not None and delta != 0:
        head = f"B saves {fmt_bytes(abs(delta))} {'more' if delta > 0 else 'less'} for backward per step than A ({fmt_bytes(a)} -> {fmt_bytes(b)})"
    else:
        head = f"B and A save the same {fmt_bytes(b)} for backward per step, in other values"
    if not grown:
        return _verdict(_sentence(f"{head}; nothing B saves is new or larger"), bytes_=delta, total=b)
    by_cause: dict[tuple, list[S.DiffItem]] = defaultdict(list)
    for it in grown:
        by_cause[_cause(it)].append(it)
    cause, items = max(by_cause.items(), key=lambda kv: sum(it.delta_bytes for it in kv[1]))
    _kind, op, reason_kind, policy_op = cause
    grew = sum(it.delta_bytes for it in items)
    what = _diff_what(op, items)
    where = "only in B" if all(it.status == DiffStatus.ONLY_B for it in items) else "larger in B"
    count = sum(it.count for it in items)
    if reason_kind == Reason.POLICY and policy_op:
        flag = f"--recompute-op {flag_op(policy_op)}"
        fix = f"recompute it in B ({flag})"
    else:
        flag = None
        fix = "compare what B's policy saves and recomputes with A's (`memprobe explain` ranks the edits)"
    why = _why(reason_kind, policy_op, "B's")
    text = (
        f"{head}: {fmt_bytes(grew)} of it {'are' if count > 1 else 'is'} {what} ({count} value{'s' if count > 1 else ''}, "
        f"{where}), {why}; fix: {fix}."
    )
    return _verdict(text, bytes_=grew, total=delta, fix=fix, flag=flag)


def explain_verdict(r: S.ExplainResult) -> S.Verdict:
    """The policy edit that frees the most for the least recompute, with what it frees."""
    saved = r.base.saved_bytes
    edits = [e for e in r.edits if e.bytes_saved > 0]
    if not edits:
        return _verdict(
            f"No single save-list op, recomputed, frees memory here ({len(r.edits)} tried); {fmt_bytes(saved)} saved for backward per step."
            + (f" {len(r.partitioner_items)} saved values were chosen by the partitioner." if r.partitioner_items else ""),
            total=saved,
        )
    top = edits[0]
    names = [label(it) for it in top.freed or []]
    what = "" if not names else f" ({names[0]})" if len(names) == 1 else f" ({names[0]} and {len(names) - 1} more)"
    flag = top.flag or f"--recompute-op {flag_op(top.op)}"
    flops = top.recompute_flops_added or 0
    of = f" of the {fmt_bytes(saved)}" if saved else ""
    text = (
        f"Recomputing {flag_op(top.op)} frees {fmt_bytes(top.bytes_saved)}{of} saved for backward per step"
        f"{what} for {fmt_flops(abs(flops))} {'more' if flops >= 0 else 'less'} recompute in backward (estimated); "
        f"fix: {flag}."
    )
    return _verdict(text, bytes_=top.bytes_saved, total=saved, fix=f"recompute it ({flag})", flag=flag)


def verdict_of(result: S.Report | S.DiffResult | S.ExplainResult) -> S.Verdict:
    """A result's verdict: the recorded one, or computed now for a result recorded before verdicts were."""
    if result.verdict is not None:
        return result.verdict
    if isinstance(result, S.Report):
        return run_verdict(result)
    if isinstance(result, S.DiffResult):
        return diff_verdict(result)
    return explain_verdict(result)


def gate_verdict(result: dict, run_verdicts: dict[str, S.Verdict] | None = None) -> S.Verdict:
    """PASS or FAIL with the limits breached, and for a breach, the breaching probe's own verdict. ``result``: the
    gate's result (its ``verdicts`` per limit and their ``counts``)."""
    verdicts = result.get("verdicts") or []
    failed = [v for v in verdicts if v.get("verdict") == Verdict.FAIL]
    n = result.get("counts") or {}
    if not failed:
        return _verdict(
            f"PASS: {n.get('PASS', 0)} limit{'s' if n.get('PASS', 0) != 1 else ''} pass"
            + (f", {n['SKIP']} skipped." if n.get("SKIP") else ".")
        )
    breaches = "; ".join(
        f"{v['probe']} {v['metric']} {fmt_bytes(v.get('measured'))} > {fmt_bytes(v.get('limit'))}" for v in failed[:3]
    )
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    text = f"FAIL: {len(failed)} limit{'s' if len(failed) > 1 else ''} breached ({breaches}{more})."
    first = (run_verdicts or {}).get(failed[0]["probe"])
    if first is None:
        return _verdict(text)
    return _verdict(
        f"{text} {failed[0]['probe']}: {first.text}",
        bytes_=first.bytes,
        total=first.total_bytes,
        finding=first.finding,
        fix=first.fix,
        flag=first.flag,
    )

"""The answer first: one or two sentences per result (a run, a diff, an explain, a gate), in the user's terms.

Each verdict says what dominates, by how much, why and the fix, with every figure taken from the
result it sums up (a run's findings and saved totals, a diff's ranked items, an explain's edits, a
gate's limits). It is data (``{"text", "bytes", "total_bytes", "finding", "fix", "flag"}``),
stored in report.json / diff.json / explain.json / the gate's JSON as ``verdict``, so the console,
Markdown, HTML and MCP carry the same sentence. Pure functions: no file is read here.
"""

from __future__ import annotations

from collections import defaultdict

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
) -> dict:
    return {"text": text, "bytes": bytes_, "total_bytes": total, "finding": finding, "fix": fix, "flag": flag}


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


def run_verdict(report: dict) -> dict:
    """What a run's step saves for backward, and the first thing to fix."""
    status = report.get("status")
    if status and status != RunStatus.COMPLETE:
        why = report.get("error") or report.get("analysis_error") or "see report.json"
        return _verdict(f"The run is {status}, not complete: {why}. What it recorded is in its run directory.")
    totals = report.get("saved_totals") or {}
    saved = totals.get("graph_bytes")
    findings = report.get("findings") or []
    if any(f.get("kind") in _GROUPED and "items" not in f for f in findings) and report.get("saved_tensors"):
        # recorded before findings were grouped by cause: today's rules, over the recorded rows
        findings = find(
            report["saved_tensors"],
            totals,
            report.get("config") or {},
            policy=report.get("policy"),
            attribution=report.get("attribution"),
        )
    if findings:
        top = findings[0]
        text = top.get("summary") or top["message"]
        if top.get("fix"):
            text = f"{text.rstrip('.')}; fix: {top['fix']}"
        text = _sentence(text)
        rest = findings[1:]
        if rest:
            kinds = ", ".join(dict.fromkeys(f["kind"] for f in rest))
            text += f" {len(rest)} more finding{'s' if len(rest) > 1 else ''} below ({kinds})."
        return _verdict(text, bytes_=top["bytes"], total=saved, finding=top["kind"], fix=top.get("fix"), flag=top.get("flag"))
    rows = [r for r in report.get("saved_tensors") or [] if r["kind"] != SavedKind.PARAMETER]
    if not rows:
        compiled = (report.get("config") or {}).get("compile", True)
        return _verdict(
            "No compiled graph saved anything for backward"
            + ("." if compiled else ": run with --compile to see what the compiled step saves.")
        )
    from .saved import group_rows

    top = group_rows(rows)[0]
    checks = len(report.get("checks") or [])
    share = f", {100 * top['bytes'] / saved:.0f}%" if saved else ""
    return _verdict(
        f"No finding{f' in {checks} checks' if checks else ''}: {fmt_bytes(saved)} saved for backward per step; "
        f"the largest is {label(top)} ({fmt_bytes(top['bytes'])}{share}, x{top['count']}), "
        f"{_why(top['reason_kind'], top['policy_op'])}.",
        bytes_=top["bytes"],
        total=saved,
    )


def _cause(item: dict) -> tuple:
    """A diff item's cause: its kind, the op that made it (its user-level call; its name when none was recorded), and
    why it was kept (the reason and the save-list op)."""
    op = (item.get("user") or {}).get("op")
    return (item["kind"], op or label(item), item["reason_kind"], item.get("policy_op"))


def _diff_what(op: str, items: list[dict]) -> str:
    if len(items) == 1:
        return label(items[0])
    roots = [r for it in items for r in it.get("roots") or []]
    modules = [m for it in items if (m := (it.get("user") or {}).get("module"))]
    where = names_phrase(roots) if roots else names_phrase(modules)
    return f"{op}() of {where}" if where else f"{op}() ({len(items)} values)"


def diff_verdict(d: dict) -> dict:
    """What B keeps alive for backward that A does not, the cause that weighs most, and its fix."""
    s = (d.get("totals") or {}).get("saved_bytes") or {}
    a, b, delta = s.get("a"), s.get("b"), s.get("delta")
    if not d.get("differences"):
        return _verdict(
            f"No difference: A and B save the same {fmt_bytes(b)} for backward per step "
            f"({d.get('unchanged_items', 0)} values matched).",
            bytes_=0,
            total=b,
        )
    grown = [it for it in d.get("items") or [] if it["status"] in _GROWTH and it["delta_bytes"] > 0]
    if delta is not None and delta != 0:
        head = f"B saves {fmt_bytes(abs(delta))} {'more' if delta > 0 else 'less'} for backward per step than A ({fmt_bytes(a)} -> {fmt_bytes(b)})"
    else:
        head = f"B and A save the same {fmt_bytes(b)} for backward per step, in other values"
    if not grown:
        return _verdict(_sentence(f"{head}; nothing B saves is new or larger"), bytes_=delta, total=b)
    by_cause: dict[tuple, list[dict]] = defaultdict(list)
    for it in grown:
        by_cause[_cause(it)].append(it)
    cause, items = max(by_cause.items(), key=lambda kv: sum(it["delta_bytes"] for it in kv[1]))
    _kind, op, reason_kind, policy_op = cause
    grew = sum(it["delta_bytes"] for it in items)
    what = _diff_what(op, items)
    where = "only in B" if all(it["status"] == DiffStatus.ONLY_B for it in items) else "larger in B"
    count = sum(it["count"] for it in items)
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


def explain_verdict(r: dict) -> dict:
    """The policy edit that frees the most for the least recompute, with what it frees."""
    base = r.get("base") or {}
    saved = base.get("saved_bytes")
    edits = [e for e in r.get("edits") or [] if e.get("bytes_saved", 0) > 0]
    if not edits:
        n = len(r.get("edits") or [])
        return _verdict(
            f"No single save-list op, recomputed, frees memory here ({n} tried); {fmt_bytes(saved)} saved for backward per step."
            + (
                f" {len(r['partitioner_items'])} saved values were chosen by the partitioner."
                if r.get("partitioner_items")
                else ""
            ),
            total=saved,
        )
    top = edits[0]
    freed = top.get("freed") or []
    names = [label(it) for it in freed]
    what = "" if not names else f" ({names[0]})" if len(names) == 1 else f" ({names[0]} and {len(names) - 1} more)"
    flag = top.get("flag") or f"--recompute-op {flag_op(top['op'])}"
    flops = top.get("recompute_flops_added") or 0
    of = f" of the {fmt_bytes(saved)}" if saved else ""
    text = (
        f"Recomputing {flag_op(top['op'])} frees {fmt_bytes(top['bytes_saved'])}{of} saved for backward per step"
        f"{what} for {fmt_flops(abs(flops))} {'more' if flops >= 0 else 'less'} recompute in backward (estimated); "
        f"fix: {flag}."
    )
    return _verdict(text, bytes_=top["bytes_saved"], total=saved, fix=f"recompute it ({flag})", flag=flag)


def gate_verdict(result: dict, run_verdicts: dict[str, dict] | None = None) -> dict:
    """PASS or FAIL with the limits breached, and for a breach, the breaching probe's own verdict."""
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
    if first:
        text += f" {failed[0]['probe']}: {first['text']}"
    return _verdict(
        text,
        bytes_=(first or {}).get("bytes"),
        total=(first or {}).get("total_bytes"),
        finding=(first or {}).get("finding"),
        fix=(first or {}).get("fix"),
        flag=(first or {}).get("flag"),
    )


def verdict_of(kind: str, data: dict) -> dict:
    """A result's verdict: the recorded one, or computed now for a result recorded before verdicts were."""
    v = data.get("verdict")
    if isinstance(v, dict) and isinstance(v.get("text"), str):
        return v
    compute = {"run": run_verdict, "diff": diff_verdict, "explain": explain_verdict, "gate": gate_verdict}[kind]
    return compute(data)

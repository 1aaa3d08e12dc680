"""Why a probe breached its budget, in the user's terms: the diff against its stored baseline when comparable, else its
largest saved values and findings."""

from __future__ import annotations

from ..analysis.diff import diff_reports
from ..analysis.saved import MODULE_STATE, group_rows, value_names
from ..rundir import schema as S
from ..units import fmt_bytes
from ..vocab import DiffStatus
from .baseline import baseline_mismatch


def _names(item) -> list[str]:
    """A saved value's names: the user's terms (``silu(layers.*.ffn.w1)``) and the op chain when it differs."""
    return [n for n in value_names(item) if n]


def _named(item) -> str:
    names = _names(item)
    return names[0] if len(names) == 1 else f"{names[0]} [{names[1]}]"


def explain_breach(report: S.Report, entry: S.BaselineProbe | None) -> S.BreachExplanation:
    """Why a probe breached its budget: the diff against its stored baseline when it is comparable,
    else the largest saved values and findings. ``exprs`` are the saved values named in ``lines``
    (a renderer sets them as code)."""
    if entry is not None and entry.report and baseline_mismatch(entry, report) is None:
        return _against_baseline(report, entry.report)
    findings = report.findings[:3]
    lines = [f.message + (f" Fix: {f.fix}." if f.fix else "") for f in findings]  # the fix as the verdict says it
    exprs = [f.expr for f in findings if f.expr]
    for g in group_rows([r for r in report.saved_tensors if r.kind not in MODULE_STATE])[:5]:
        lines.append(f"{_named(g)} x{g.count}: {fmt_bytes(g.bytes)} ({g.kind}; {g.reason})")
        exprs += _names(g)
    return S.BreachExplanation(
        headline="No comparable baseline; the largest saved-for-backward values and findings:",
        lines=lines,
        exprs=list(dict.fromkeys(exprs)),
    )


# how a value that grew against the baseline is said to have grown
_GREW = {DiffStatus.ONLY_B: "new", DiffStatus.GROWN: DiffStatus.GROWN.value}


def _against_baseline(report: S.Report, baseline: S.BaselineReport) -> S.BreachExplanation:
    """A breach explained by the diff against the stored baseline's report: the values that are new or grew."""
    d = diff_reports(baseline, report)
    delta = (d.totals.step_saved_bytes or d.totals.saved_bytes).delta  # the gate's saved_bytes: outside counted
    items = [it for it in d.items if it.status in _GREW][:5]
    sign = "+" if (delta or 0) >= 0 else ""
    return S.BreachExplanation(
        headline=f"Against the baseline it saves {sign}{fmt_bytes(delta)} for backward per step:",
        lines=[_grown_line(it) for it in items]
        or ["no saved value grew; the breach is in measured memory outside the saved values"],
        exprs=[x for it in items for x in _names(it)],
    )


def _grown_line(it: S.DiffItem) -> str:
    """One value that is new or grew against the baseline: its name, how much, why, and the hint (for this run)."""
    hint = (it.hint or "").replace("B's", "this run's").replace(" in B ", " here ")
    sign = "+" if it.delta_bytes > 0 else ""
    return f"{_named(it)} x{it.count}: {sign}{fmt_bytes(it.delta_bytes)} ({_GREW[it.status]}; {it.reason}). Hint: {hint}"

"""The answer first: one or two sentences per result (a run, a diff, an explain, a gate), in the user's terms.

Each verdict says what dominates, by how much, why and the fix, with every figure taken from the
result it sums up (a run's findings and saved totals, a diff's ranked items, an explain's edits, a
gate's limits). It is a record (:class:`~memprobe.rundir.schema.Verdict`: the text, its figures, the finding, the fix and its flag),
stored in report.json / diff.json / explain.json / the gate's JSON as ``verdict``, so the console,
Markdown, HTML and MCP carry the same sentence. Pure functions: no file is read here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from ..checkpointing.base import recompute_all
from ..config import ProbeConfig
from ..errors import oom_headline
from ..names import limit_name
from ..policies import flag_op
from ..rundir import schema as S
from ..units import fmt_bytes, fmt_flops
from ..vocab import ChangeKind, DiffStatus, Fate, FindingKind, Reason, RunStatus, SaveCause, Verdict
from .coverage import where as break_where
from .decisions import RECOMPUTE_ALL
from .diff import step_saved_bytes
from .evidence import Evidence
from .findings import SAVED_VALUE_KINDS, find, names_phrase
from .saved import MODULE_STATE, label, module_groups

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
    next_command: str | None = None,
) -> S.Verdict:
    return S.Verdict(
        text=S.clip(text), bytes=bytes_, total_bytes=total, finding=finding, fix=fix, flag=flag, next_command=next_command
    )


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


# how a run that is not complete ended, as a sentence says it
_ENDED = {
    RunStatus.RUNNING: "is still running or was killed without a word",
    RunStatus.FAILED: "failed",
    RunStatus.INTERRUPTED: "was interrupted",
    RunStatus.OOM: "ran out of device memory",
}


def _incomplete_verdict(report: S.Report) -> S.Verdict:
    """A run that did not complete: how it ended, why, and (out of memory) what its step held then."""
    status = report.status
    why = report.error or report.analysis_error or "see report.json"
    if status == RunStatus.OOM and report.error:  # torch's advice after what was asked for: in report.json
        why = oom_headline(report.error)
    ended = f"The run {_ENDED.get(status, f'ended {status}')}, not complete: {why}."
    held = _held_when_it_stopped(report) if status == RunStatus.OOM else ""
    return _verdict(f"{ended}{held} What it recorded is in its run directory.")


def _bytes_each(size: int, count: int) -> str:
    """``144.00 MiB, x6``: what a group of ``count`` modules (one per layer) saved; one module: its bytes."""
    return f"{fmt_bytes(size)}, x{count}" if count > 1 else fmt_bytes(size)


def _held_when_it_stopped(report: S.Report) -> str:
    """What the step had saved for backward when it ran out of memory (its compiled graphs' values and what autograd
    saved outside them, as far as the measured step got), and the largest of it; nothing when it stopped before."""
    held = step_saved_bytes(report)
    if not held:
        return ""
    outside = module_groups(report.saved_outside.modules) if report.saved_outside else []
    largest = [(sum(m.bytes for m in ms), len(ms), name if name.startswith("(") else f"module {name}") for name, ms in outside]
    largest += [(r.bytes, 1, label(r)) for r in report.saved_tensors if r.kind not in MODULE_STATE]
    size, count, name = max(largest, key=lambda t: t[0], default=(0, 1, ""))
    most = f", the most by {name} ({_bytes_each(size, count)})" if size else ""
    return f" When it stopped, the step had saved {fmt_bytes(held)} for backward{most}."


def run_verdict(report: S.Report) -> S.Verdict:
    """What a run's step saves for backward, and the first thing to fix."""
    status = report.status
    if status and status != RunStatus.COMPLETE:
        return _incomplete_verdict(report)
    totals = report.saved_totals
    saved = totals.graph_bytes if totals else None
    findings = [f for f in _current_findings(report) if not f.by_design]  # a library's design is no verdict
    step = step_saved_bytes(report) or 0
    leading = [f for f in findings if weighs(f, step)]
    if leading:
        return _finding_verdict(leading, saved, report)
    verdict = _no_finding_verdict(report, saved)
    if findings:  # each too small to lead: named here, listed in the findings
        kinds = ", ".join(dict.fromkeys(f.kind for f in findings))
        small = f"{len(findings)} smaller finding{'s' if len(findings) > 1 else ''}"
        head = verdict.text.replace("No finding", f"No finding of {LEAD_SHARE:.0%} of the step's saved bytes", 1)
        text = f"{head} {small} ({kinds})."
        verdict = verdict.model_copy(update={"text": S.clip(text)})
    return verdict


# a finding leads the verdict when its bytes are at least this share of what the step saves for backward (in the
# compiled graphs and outside them): a 16 KiB gather of a 2.26 MiB step is listed, not headlined (docs/findings.md)
LEAD_SHARE = 0.05


def weighs(finding: S.Finding, step: int) -> bool:
    """Whether a finding may lead the verdict: one about saved values when its bytes are LEAD_SHARE of the step's
    saved bytes at least (any, in a step that saves nothing: there is nothing to weigh it against); one of another
    kind (the figures disagree, float8 or compile coverage, what the attribution measured) always."""
    return finding.kind not in SAVED_VALUE_KINDS or step <= 0 or abs(finding.bytes) >= LEAD_SHARE * step


def _current_findings(report: S.Report) -> list[S.Finding]:
    """A run's findings; for a run recorded before findings were grouped by cause, today's rules over its rows."""
    findings = report.findings
    ungrouped = any(f.kind in _GROUPED and f.items is None for f in findings)
    if not (ungrouped and report.saved_tensors):
        return findings
    totals = report.saved_totals or S.SavedTotals(graph_bytes=0)
    return find(
        Evidence(report.saved_tensors, totals, report.config.probe(), policy=report.policy, attribution=report.attribution)
    )


def _outside_only_verdict(report: S.Report, outside: S.SavedOutside) -> S.Verdict:
    """A step whose saved values were all saved outside compiled graphs (eager code): the most, by module, each
    layer's copy of a module as one."""
    name, members = module_groups(outside.modules)[0]
    size = sum(m.bytes for m in members)
    saved = fmt_bytes(outside.total_bytes)
    head = (
        f"No compiled graph saved anything for backward; outside them autograd saved {saved}"
        if report.graphs
        else f"Nothing was compiled; autograd saved {saved} for backward"
    )
    return _verdict(
        f"{head} per step (measured), the most by {name} ({_bytes_each(size, len(members))}).",
        bytes_=size,
        total=outside.total_bytes,
    )


def _no_finding_verdict(report: S.Report, saved: int | None) -> S.Verdict:
    """A run without a finding: what it saves, and the largest of it."""
    rows = [r for r in report.saved_tensors if r.kind not in MODULE_STATE]  # shares against a total that holds them
    outside = report.saved_outside
    if not rows and outside is not None and outside.modules:  # eager code saved it: named by module
        return _outside_only_verdict(report, outside)
    if not rows:
        compiled = report.config.compile if report.config.compile is not None else True
        return _verdict(
            "No compiled graph saved anything for backward"
            + ("." if compiled else ": run with --compile to see what the compiled step saves.")
        )
    from .saved import group_rows

    top = group_rows(rows)[0]
    checks = len(report.checks or [])
    apart = outside.total_bytes if outside is not None else 0
    step = (saved or 0) + apart
    share = f", {100 * top.bytes / step:.0f}%" if step else ""
    where = f" ({fmt_bytes(saved)} in the compiled graphs, {fmt_bytes(apart)} outside them)" if apart else ""
    return _verdict(
        f"No finding{f' in {checks} checks' if checks else ''}: {fmt_bytes(step)} saved for backward per step{where}; "
        f"the largest is {label(top)} ({fmt_bytes(top.bytes)}{share}, x{top.count}), {_group_why(top)}.",
        bytes_=top.bytes,
        total=step,
        next_command=run_next_command(report.config.probe(), [], report),
    )


def _group_why(top) -> str:
    """Why a group of saved values is saved: its recorded cause, else the reason its table row gives."""
    if top.cause and top.cause.kind != SaveCause.UNRECORDED:
        return f"saved because {top.cause.text}"
    return _why(top.reason_kind, top.policy_op)


def _finding_verdict(findings: list[S.Finding], saved: int | None, report: S.Report) -> S.Verdict:
    cfg = report.config.probe()
    top = findings[0]
    text = top.summary or top.message
    if top.fix:
        text = f"{text.rstrip('.')}; fix: {top.fix}"
    text = _sentence(text)
    rest = findings[1:]
    if rest:
        kinds = ", ".join(dict.fromkeys(f.kind for f in rest))
        text += f" {len(rest)} more finding{'s' if len(rest) > 1 else ''} ({kinds})."
    return _verdict(
        text,
        bytes_=top.bytes,
        total=saved,
        finding=top.kind,
        fix=top.fix,
        flag=top.flag,
        next_command=run_next_command(cfg, findings, report),
    )


def recomputing(cfg: ProbeConfig, ops) -> ProbeConfig:
    """``cfg`` with ``ops`` (``aten.abs``) recomputed: an op the user added with --save-op is dropped from it; one of
    the named policy's is moved to --recompute-op."""
    ops = {flag_op(o) for o in ops}
    saved = {flag_op(o) for o in cfg.save_ops}
    already = {flag_op(o) for o in cfg.recompute_ops}
    return replace(
        cfg,
        save_ops=tuple(o for o in cfg.save_ops if flag_op(o) not in ops),
        recompute_ops=cfg.recompute_ops + tuple(sorted(o for o in ops if o not in already and o not in saved)),
    )


def recomputing_all(cfg: ProbeConfig) -> ProbeConfig:
    """``cfg`` checkpointed by a per-op policy that tags every op it runs for recompute (``RECOMPUTE_ALL``)."""
    return replace(cfg, **recompute_all("").changes)


def run_next_command(cfg: ProbeConfig, findings: list[S.Finding], report: S.Report | None = None) -> str | None:
    """The ``memprobe run`` that checks a run's fix: its save-list ops recomputed; the top finding's other edit (a
    per-op policy that recomputes every op); else, for a float8 run, the same run in bf16 to compare with. None for a
    user's script: its edits are in its own code. ``report``: the run's; one recorded with another interpreter than
    memprobe's has its fix checked there (``--python``)."""
    import shlex

    if not cfg.target.fixed_by_flags:
        return None
    recorded = other_interpreter(report) if report is not None else None
    where = f" --python {shlex.quote(recorded)}" if recorded else ""
    ops = sorted({flag_op(f.policy_op) for f in findings if f.policy_op})
    if ops:
        edited, why = recomputing(cfg, ops), "does recomputing it remove the finding?"
    elif findings and findings[0].flag == RECOMPUTE_ALL:
        edited, why = recomputing_all(cfg), "does a per-op policy recompute it?"
    elif cfg.recipe != "bf16":
        edited, why = replace(cfg, recipe="bf16"), "compare with bf16"
    else:
        return None
    return "memprobe run " + " ".join(edited.to_flags()) + where + f"   # {why}"


def _cause(item: S.DiffItem) -> tuple:
    """A diff item's cause: its kind, the op that made it (its user-level call; its name when none was recorded), the
    autograd.Function it is inside, and why the side that keeps it keeps it (the rule and the save-list op)."""
    op = item.user.op if item.user else None
    kept = item.b_decision if item.status in _GROWTH else item.a_decision
    cause = kept.cause if kept else None
    rule = (cause.kind, cause.rule, cause.tag, cause.checkpointed) if cause else None
    function = cause.function if cause else None
    return (item.kind, op or label(item), function, item.reason_kind, item.policy_op, rule)


def _diff_what(op: str, items: list[S.DiffItem]) -> str:
    """The values a verdict names, in the user's terms: one by its name; several by their op and, inside an
    autograd.Function, the function and modules; otherwise the parameters or modules they come from."""
    first = items[0]
    function = _function_of(first)
    modules = names_phrase([m for it in items if (m := (it.user.module if it.user else None))])
    source = _source(first)
    if function:
        where = ", ".join(x for x in (modules, source) if x)
        return f"{op}() inside autograd.Function {function}" + (f" ({where})" if where else "")
    if len(items) == 1:
        return label(first) + (f" ({source})" if source else "")
    roots = [r for it in items for r in it.roots or []]
    where = names_phrase(roots) if roots else modules
    return f"{op}() of {where}" if where else f"{op}() ({len(items)} values)"


def _function_of(item: S.DiffItem) -> str | None:
    return next((d.function for d in (item.b_decision, item.a_decision) if d and d.function), None)


def _source(item: S.DiffItem) -> str | None:
    """The user's line that made the value (``qlin.py:13``)."""
    src = item.user.source if item.user else None
    return src.split("  ", 1)[0] if src else None


_ONLY = {DiffStatus.ONLY_B: "only in B", DiffStatus.ONLY_A: "only in A"}


def _side_words(side: str, decision: S.Decision) -> str:
    """What one side did with the value, as a clause: ``A recomputes it in backward (tagged PREFER_RECOMPUTE ...)``."""
    if decision.fate == Fate.SAVED:
        why = decision.cause.text if decision.cause else decision.text.removeprefix("saved: ")
        return f"{side} saves it: {why}"
    if decision.fate == Fate.RECOMPUTED:
        return f"{side} {decision.text.replace('recomputed in backward', 'recomputes it in backward', 1)}"
    return f"{side} neither saves nor recomputes it"


def diff_verdict(d: S.DiffResult, loaded: frozenset[str] = frozenset()) -> S.Verdict:
    """What B keeps alive for backward that A does not (or the other way round), what each side decided about it,
    what differs between the sides (their versions, their configuration), and the fix; then what a side's own run
    found that the comparison must not hide (a float8 recipe that converted next to nothing). ``loaded``: the sides
    read from run directories (``{"a"}``), named by their directory in a ``next:`` command."""
    verdict = _diff_verdict(d, loaded)
    text = verdict.text + _outside_sentence(d.saved_outside)
    caveats = [_sentence(f.summary or f.message) for f in d.findings or []]
    if caveats:
        text += f" But {' '.join(caveats)}"
    return verdict if text == verdict.text else verdict.model_copy(update={"text": S.clip(text)})


# modules a verdict names of what differs outside the compiled graphs
OUTSIDE_NAMED = 3


def _outside_sentence(outside: S.SavedOutsideDelta | None) -> str:
    """What B saves outside the compiled graphs that A does not (measured at run time), by module, as a sentence with
    its leading space; empty when it is the same."""
    if outside is None or not outside.total.delta:
        return ""
    delta = outside.total.delta
    by = ", ".join(f"{name} {_signed(d.delta)}" for name, d in list(outside.modules.items())[:OUTSIDE_NAMED])
    more = "more" if delta > 0 else "less"
    return (
        f" Outside the compiled graphs (measured at run time) B saves {fmt_bytes(abs(delta))} {more} than A "
        f"({fmt_bytes(outside.total.a)} -> {fmt_bytes(outside.total.b)})" + (f": {by}." if by else ".")
    )


def _signed(n: int) -> str:
    return ("+" if n > 0 else "-") + fmt_bytes(abs(n))


def _diff_verdict(d: S.DiffResult, loaded: frozenset[str]) -> S.Verdict:
    s = d.totals.saved_bytes
    step = d.totals.step_saved_bytes  # the compiled graphs' and what is saved outside them: the step's real bytes
    covered = _coverage_sentence(d.compile_coverage)
    if not d.differences:
        return _same_graphs_verdict(d, covered)
    head = _diff_head(step, s)
    moved = _moved_outside(d, head)
    if moved is not None:
        return moved
    b, delta = s.b, s.delta
    grown = [it for it in d.items if it.status in _GROWTH and it.delta_bytes > 0]
    items_of = grown or [it for it in d.items if it.status not in _GROWTH and it.delta_bytes < 0]
    if not items_of:  # the differences are in other figures than the values' bytes
        return _verdict(_sentence(f"{head}; nothing B saves is new or larger") + covered, bytes_=delta, total=b)
    deeper = _deeper_verdict(d, head, items_of, grown=bool(grown))
    if deeper is not None:
        return deeper
    items = _largest_cause(items_of)
    moved = sum(abs(it.delta_bytes) for it in items)
    cause, configured = _change_sentences(d.change)
    text = _diff_moved(head, items, moved, grown=bool(grown), eager=_eager_blocks(d.compile_coverage)) + covered + cause
    if not grown:
        return _verdict(text + configured, bytes_=delta, total=b)
    fix, flag, edited = _diff_fix(d, items[0])
    next_command = diff_command(d, edited, loaded) if edited is not None else None
    text += f" Fix: {fix}." + configured
    return _verdict(text, bytes_=moved, total=delta, fix=fix, flag=flag, next_command=next_command)


def _deeper_verdict(d: S.DiffResult, head: str, items: list[S.DiffItem], *, grown: bool) -> S.Verdict | None:
    """A diff whose change is values of blocks one side has and the other does not (a model one block deeper): the
    blocks named, with their values; no fix (the configuration's change is the cause). None when some of the change
    is elsewhere."""
    if not all(it.added_blocks for it in items):
        return None
    blocks = sorted({blk for it in items for blk in it.added_blocks})
    moved = sum(it.delta_bytes for it in items)
    step, s = d.totals.step_saved_bytes, d.totals.saved_bytes
    total = step.delta if step is not None and step.delta is not None else s.delta
    has, lacks = ("B", "A") if grown else ("A", "B")
    largest = max(items, key=lambda it: abs(it.delta_bytes))
    values = sum(it.count for it in items)
    which = (
        f"the block {has} has and {lacks} does not"
        if len(blocks) == 1
        else f"the {len(blocks)} blocks {has} has and {lacks} does not"
    )
    text = (
        f"{head}: {'all of it' if moved == total else f'{fmt_bytes(abs(moved))} of it'} saved by {', '.join(blocks)}, "
        f"{which}: {values} values, the largest {largest.label} ({fmt_bytes(abs(largest.delta_bytes))})."
    )
    cause, configured = _change_sentences(d.change)
    return _verdict(text + _coverage_sentence(d.compile_coverage) + cause + configured, bytes_=moved, total=total)


def _moved_outside(d: S.DiffResult, head: str) -> S.Verdict | None:
    """A diff where what one side's compiled graphs save the other saves outside them (a compiled script against its
    eager run, a block one side compiles): the values are the same values, moved, and the step's change is what is
    left (the verdict named A's graph values "only in A", "B neither saves nor recomputes it", while B saved them
    eagerly). None when the change outside the graphs does not offset the graphs' change."""
    s, step = d.totals.saved_bytes, d.totals.step_saved_bytes
    outside = d.saved_outside.total if d.saved_outside is not None else None
    if step is None or step.delta is None or outside is None or not s.delta or not outside.delta:
        return None
    if (s.delta > 0) == (outside.delta > 0) or abs(step.delta) >= abs(s.delta):
        return None
    inside, eager = ("A", "B") if s.delta < 0 else ("B", "A")
    rest = f"the step's change is {_signed(step.delta)}" if step.delta else "the step saves the same bytes"
    text = (
        f"{head}: {fmt_bytes(abs(s.delta))} {inside} saves in its compiled graphs, {eager} saves outside compiled "
        f"graphs ({fmt_bytes(abs(outside.delta))} more there, measured); {rest}."
    )
    cause, configured = _change_sentences(d.change)
    text += _coverage_sentence(d.compile_coverage) + cause + configured
    return _verdict(text, bytes_=step.delta, total=step.b)


def _same_graphs_verdict(d: S.DiffResult, covered: str) -> S.Verdict:
    """A diff whose compiled graphs save the same values: the difference, if any, is what autograd saves outside them
    (measured: eager modules, a region one side ran eagerly); else none, in the step's bytes."""
    step = d.totals.step_saved_bytes
    outside = d.saved_outside.total if d.saved_outside is not None else None
    if outside is not None and outside.delta:
        cause, configured = _change_sentences(d.change)
        head = _diff_head(step, d.totals.saved_bytes)
        text = _sentence(f"{head}, all of it outside the compiled graphs") + covered + cause + configured
        return _verdict(text, bytes_=outside.delta, total=step.b if step is not None else None)
    total = step.b if step is not None else d.totals.saved_bytes.b
    apart = f"; {fmt_bytes(outside.b)} of it outside the compiled graphs, the same on both sides" if outside and outside.b else ""
    return _verdict(
        f"No difference: A and B save the same {fmt_bytes(total)} for backward per step ({d.unchanged_items} values "
        f"matched{apart}).",
        bytes_=0,
        total=total,
    )


def _coverage_sentence(coverage: S.CoverageDelta | None) -> str:
    """Where one side's torch.compile ran a checkpointed region (or other code) eagerly that the other side's compiled,
    named as the cause of the bytes that moved out of the compiled graphs (with its leading space; empty: the same)."""
    if coverage is None:
        return ""
    parts = []
    for side, other, breaks in (("B", "A", coverage.only_b), ("A", "B", coverage.only_a)):
        regions = [g for g in breaks if g.checkpointed] or breaks
        if not regions:
            continue
        first = regions[0]
        what = "checkpointed region" if first.checkpointed else "code"
        who = f"{first.module}'s" if first.module else "a"
        many = f" (and {len(regions) - 1} more)" if len(regions) > 1 else ""
        parts.append(
            f"{side}'s torch.compile ran {who} {what} eagerly{many}, which {other}'s compiled: Dynamo refused "
            f"`{first.reason}` at {break_where(first)}, so what it saves is outside {side}'s compiled graphs"
        )
    return " " + " ".join(_sentence(p) for p in parts) if parts else ""


def _change_sentences(change: S.Change | None) -> tuple[str, str]:
    """What differs between the sides, as two additions to a diff's verdict (each with its leading space, or empty):
    a version change named as the cause (it goes before the fix that names versions), and a configuration change
    (it goes last)."""
    said = (change.text[:1].upper() + change.text[1:]) if change is not None else ""
    cause = configured = ""
    if change is not None and change.kind == ChangeKind.VERSIONS:
        cause = f" {_sentence(said + ': the version change is the cause' if said else 'The version change is the cause')}"
    if said and change.kind in (ChangeKind.CONFIGURATION, ChangeKind.BOTH):
        configured = f" {_sentence(said)}"
    return cause, configured


def _diff_head(step: S.Delta | None, s: S.Delta) -> str:
    """How the sides' saved bytes compare: the verdict's first clause. ``step``: the step's bytes in all (the compiled
    graphs' and what is saved outside them) where both sides recorded both; else the compiled graphs' (``s``)."""
    total = step if step is not None and step.delta is not None else s
    if total.delta is not None and total.delta != 0:
        more = "more" if total.delta > 0 else "less"
        return (
            f"B saves {fmt_bytes(abs(total.delta))} {more} for backward per step than A "
            f"({fmt_bytes(total.a)} -> {fmt_bytes(total.b)})"
        )
    return f"B and A save the same {fmt_bytes(total.b)} for backward per step, in other values"


def _largest_cause(items: list[S.DiffItem]) -> list[S.DiffItem]:
    """The items of the cause that moved the most bytes (the first such cause on a tie)."""
    by_cause: dict[tuple, list[S.DiffItem]] = defaultdict(list)
    for it in items:
        by_cause[_cause(it)].append(it)
    _, largest = max(by_cause.items(), key=lambda kv: sum(abs(it.delta_bytes) for it in kv[1]))
    return largest


def _eager_words(side: str, item: S.DiffItem, eager: dict[str, set[str]]) -> str | None:
    """What a side did with a value its compiled graphs lack because its torch.compile ran those blocks eagerly."""
    decision = item.b_decision if side == "B" else item.a_decision
    blocks = set(item.blocks or [])
    if decision is None or decision.fate != Fate.ABSENT or not blocks or not blocks <= eager.get(side, set()):
        return None
    return f"{side} runs {', '.join(sorted(blocks))} eagerly: none of its compiled graphs holds the value"


def _eager_blocks(coverage: S.CoverageDelta | None) -> dict[str, set[str]]:
    """The modules each side alone graph-broke on, by side (``A``, ``B``)."""
    if coverage is None:
        return {}
    return {"B": {g.module for g in coverage.only_b if g.module}, "A": {g.module for g in coverage.only_a if g.module}}


def _diff_moved(head: str, items: list[S.DiffItem], moved: int, *, grown: bool, eager: dict[str, set[str]]) -> str:
    """The verdict's first sentence and what each side decided: what moved, how many values, where they are
    (``eager``: the blocks each side alone ran eagerly)."""
    first = items[0]
    count = sum(it.count for it in items)
    larger = "larger in B" if grown else "larger in A"
    same_status = all(it.status == first.status for it in items)
    where = _ONLY.get(first.status, larger) if same_status else larger
    what = _diff_what(_cause(first)[1], items)
    sides = (("A", first.a_decision), ("B", first.b_decision))
    decided = "; ".join(_eager_words(k, first, eager) or _side_words(k, x) for k, x in sides if x is not None)
    nothing_grew = "" if grown else "nothing B saves is new or larger; "
    plural = count > 1
    return (
        f"{head}: {nothing_grew}{fmt_bytes(moved)} of it {'are' if plural else 'is'} {what} "
        f"({count} value{'s' if plural else ''}, {where})." + (f" {_sentence(decided)}" if decided else "")
    )


def _diff_fix(d: S.DiffResult, item: S.DiffItem) -> tuple[str, str | None, ProbeConfig | None]:
    """(the fix in words, its flag, B's configuration with the fix applied) for what B keeps that A does not: the
    save-list op recomputed; the other side's versions when only versions differ; a per-op policy that tags each op as
    it runs when the value's op was untagged inside a checkpointed region; otherwise where to look."""
    fix, flag, edited = _b_edit(d.b.config.probe(), item)
    fixes = [fix] if fix else []
    if d.change and d.change.kind == ChangeKind.VERSIONS:
        v = d.versions_differ or {}
        versions = ", ".join(f"{k} {p.a}" for k, p in v.items() if p.a)
        fixes.insert(0, f"side A's versions ({versions}), which do not save it")
    if not fixes:
        fixes.append("compare what B's policy saves and recomputes with A's (the graphs' recompute tags)")
    return "; or ".join(fixes), flag, edited


def _b_edit(b: ProbeConfig, item: S.DiffItem) -> tuple[str | None, str | None, ProbeConfig | None]:
    """(the edit of B's configuration in words, its flag, B so edited) that stops B keeping ``item``, when there is
    one: its save-list op recomputed (or the --save-op B added dropped), or a per-op policy that tags every op it runs
    when the op was untagged inside a region that B checkpoints whole, or that B's model checkpoints itself (none for a
    user's script: its own code)."""
    if not b.target.fixed_by_flags:
        return None, None, None
    cause = item.b_decision.cause if item.b_decision else None
    if item.reason_kind == Reason.POLICY and item.policy_op:
        op = flag_op(item.policy_op)
        flag = f"--recompute-op {op}"
        added = op in {flag_op(o) for o in b.save_ops}
        fix = f"in B, drop --save-op {op}" if added else f"recompute it in B ({flag})"
        return fix, flag, recomputing(b, [item.policy_op])
    if cause is not None and cause.tag is None and cause.checkpointed and (b.mode.whole_regions or b.mode.own_regions_judged):
        fix = f"in B, a per-op policy that tags every op it runs for recompute ({RECOMPUTE_ALL})"
        return fix, RECOMPUTE_ALL, recomputing_all(b)
    return None, None, None


def diff_command(d: S.DiffResult, b_fixed: ProbeConfig, loaded: frozenset[str] = frozenset()) -> str:
    """The ``memprobe diff`` that runs B again as ``b_fixed`` (its configuration with the fix applied): A as it was
    given (its run directory when it was read from one; otherwise run again too, the flags both sides share once and
    each side's own in ``--a``/``--b``), and each side's interpreter when they ran in two."""
    import shlex

    a_word = d.a.source if "a" in loaded and d.a.source else d.a.config.recipe
    fa = [] if "a" in loaded else _side_flags(d.a.config.probe())
    words = ["memprobe", "diff", a_word, b_fixed.recipe, *_flag_words(fa, _side_flags(b_fixed)), *_python_words(d, loaded)]
    return " ".join(shlex.quote(w) for w in words)


def _flag_words(fa: list[tuple[str, ...]], fb: list[tuple[str, ...]]) -> list[str]:
    """The flags of a diff's two sides as words: those both share once, then each side's own in ``--a``/``--b``
    (``fa`` empty: A is a run directory, every flag of B's is given once)."""
    shared = [f for f in fa if f in fb] if fa else fb
    words = [w for f in shared for w in f]
    for side, flags in (("--a", fa), ("--b", fb)):
        own = [w for f in flags if f not in shared for w in f]
        if own:
            words += [side, " ".join(own)]
    return words


def _python_words(d: S.DiffResult, loaded: frozenset[str]) -> list[str]:
    """Each side's own interpreter (``--a-python PATH``) when the sides ran in two, for the sides that run again."""
    pythons = {key: side.process.python if side.process else None for key, side in (("a", d.a), ("b", d.b))}
    if pythons["a"] == pythons["b"]:
        return []
    return [w for key, python in pythons.items() if python and key not in loaded for w in (f"--{key}-python", python)]


def _side_flags(cfg: ProbeConfig) -> list[tuple[str, ...]]:
    """A configuration as flags, each with its value (the recipe apart: it is a side's positional word)."""
    flags = cfg.to_flags()
    out: list[tuple[str, ...]] = []
    i = 0
    while i < len(flags):
        if i + 1 < len(flags) and not flags[i + 1].startswith("--"):
            out.append((flags[i], flags[i + 1]))
            i += 2
        else:
            out.append((flags[i],))
            i += 1
    return [f for f in out if f[0] != "--recipe"]


def explain_verdict(r: S.ExplainResult) -> S.Verdict:
    """The edit that frees the most for the least recompute, with what it frees."""
    saved = r.base.saved_bytes
    edits = [e for e in r.edits if e.bytes_saved > 0]
    if not edits:
        return _no_edit_verdict(r)
    top = edits[0]
    flag = top.flag or f"--recompute-op {flag_op(top.op)}"
    flops = top.recompute_flops_added or 0
    of = f" of the {fmt_bytes(saved)}" if saved else ""
    doing = f"Recomputing {flag_op(top.op)}" if top.op else f"{top.edit[0].upper()}{top.edit[1:]} ({flag})"
    text = (
        f"{doing} frees {fmt_bytes(top.bytes_saved)}{of} saved for backward per step"
        f"{_freed_words(top)} for {fmt_flops(abs(flops))} {'more' if flops >= 0 else 'less'} recompute in backward "
        f"(estimated); fix: {flag}."
    )
    fix = f"recompute it ({flag})" if top.op else f"{top.edit} ({flag})"
    return _verdict(text, bytes_=top.bytes_saved, total=saved, fix=fix, flag=flag)


def _no_edit_verdict(r: S.ExplainResult) -> S.Verdict:
    """An explain none of whose edits frees memory: how many were tried, and what the partitioner chose."""
    saved = r.base.saved_bytes
    tried = "save-list op, recomputed," if all(e.op for e in r.edits) else "edit"
    return _verdict(
        f"No single {tried} frees memory here ({len(r.edits)} tried); {fmt_bytes(saved)} saved for backward per step."
        + (f" {len(r.partitioner_items)} saved values were chosen by the partitioner." if r.partitioner_items else ""),
        total=saved,
    )


def _freed_words(edit: S.Edit) -> str:
    """What an edit frees, by name: `` (the first)`` or `` (the first and N more)``; empty when it names none."""
    names = [label(it) for it in edit.freed or []]
    if not names:
        return ""
    return f" ({names[0]})" if len(names) == 1 else f" ({names[0]} and {len(names) - 1} more)"


def verdict_of(result: S.Report | S.DiffResult | S.ExplainResult) -> S.Verdict:
    """A result's verdict: the recorded one, or computed now for a result recorded before verdicts were."""
    if result.verdict is not None:
        return result.verdict
    if isinstance(result, S.Report):
        return run_verdict(result)
    if isinstance(result, S.DiffResult):
        return diff_verdict(result)
    return explain_verdict(result)


def gate_verdict(
    verdicts: list[S.LimitVerdict], counts: dict[Verdict, int], run_verdicts: dict[str, S.Verdict] | None = None
) -> S.Verdict:
    """PASS or FAIL with the limits breached, and for a breach, the breaching probe's own verdict: from the gate's
    ``verdicts`` per limit and their ``counts``."""
    failed = [v for v in verdicts if v.verdict == Verdict.FAIL]
    passed, skipped = counts.get(Verdict.PASS, 0), counts.get(Verdict.SKIP, 0)
    if not failed:
        return _verdict(f"PASS: {passed} limit{'s' if passed != 1 else ''} pass" + (f", {skipped} skipped." if skipped else "."))
    breaches = "; ".join(
        f"{v.probe} {limit_name(v.metric, v.kind, v.device)} {fmt_bytes(v.measured)} > {fmt_bytes(v.limit)}" for v in failed[:3]
    )
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    text = f"FAIL: {len(failed)} limit{'s' if len(failed) > 1 else ''} breached ({breaches}{more})."
    first = (run_verdicts or {}).get(failed[0].probe)
    if first is None:
        return _verdict(text)
    return _verdict(
        f"{text} {failed[0].probe}: {first.text}",
        bytes_=first.bytes,
        total=first.total_bytes,
        finding=first.finding,
        fix=first.fix,
        flag=first.flag,
    )


def other_interpreter(report: S.Report) -> str | None:
    """The interpreter a run was recorded with, when the memprobe that started it recorded it as another than its own
    (a side of a version diff, a run made with ``--python``): what its ``next:`` commands run with."""
    process = report.process
    return process.python if process is not None and process.other_interpreter else None

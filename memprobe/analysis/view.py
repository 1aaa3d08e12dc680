"""A record finished for its readers: what the reporters show of it that is derived from the rest, so that report/
renders and computes nothing.

A run's :class:`~memprobe.rundir.schema.RunView` (its saved table grouped across layers, the saved values alive at
the forward peak by name, the lines of its compile and float8 coverage) and its verdict with the command that checks
its fix, derived when the run is finished (:func:`memprobe.analysis.run.analyse`); a diff's and an explain's items
named, and their verdicts. A record written before one of these existed gets it when it is loaded
(:func:`finished`, called by :func:`memprobe.analysis.recorded.load_recorded`). Pure: nothing is read or written.
"""

from __future__ import annotations

from ..names import value_names
from ..rundir import schema as S
from ..vocab import Phase, RunStatus
from .coverage import coverage_line, eager_reason
from .findings import skipped_text
from .saved import group_key, group_rows, label, layer_pattern, module_groups
from .verdict import run_next_command, verdict_of


def _group(g) -> S.SavedGroup:
    return S.SavedGroup(
        label=label(g),
        expr=g.expr,
        kind=g.kind,
        count=g.count,
        bytes=g.bytes,
        bytes_each=g.bytes_each,
        shared=g.shared,
        shape=g.shape,
        dtype=g.dtype,
        reason_kind=g.reason_kind,
        reason=g.reason,
        policy_op=g.policy_op,
        user=g.user,
        cause=g.cause,
        blocks=g.blocks,
    )


def _row_groups(rows: list[S.SavedRow]) -> list[int]:
    """Each row's value whatever its layer (its structural identity, dtype and shape), numbered as first met."""
    groups: dict[str, int] = {}
    return [groups.setdefault(group_key(r) + "|" + str(r.dtype) + str(r.shape), len(groups)) for r in rows]


def _saved_alive(report: S.Report) -> list[S.AliveGroup]:
    """The saved values alive at the forward peak, grouped across layers by their one name, largest first."""
    att = report.attribution
    fw = (att.phases or {}).get(Phase.FORWARD) if att else None
    names = {r.expr: value_names(r)[0] for r in report.saved_tensors or []}
    grouped: dict[str, list[int]] = {}
    for it in (fw.saved_for_backward if fw else None) or []:
        grouped.setdefault(layer_pattern(names.get(it.item, it.item)), []).append(it.bytes)
    ranked = sorted(grouped.items(), key=lambda kv: -sum(kv[1]))
    return [S.AliveGroup(label=k, bytes=sum(b), count=len(b)) for k, b in ranked]


def _eager_reasons(report: S.Report) -> dict[str, str]:
    outside = report.saved_outside
    reasons = {m.module: eager_reason(report.compile_coverage, m.module) for m in (outside.modules if outside else [])}
    return {module: why for module, why in reasons.items() if why}


def _saved_outside_groups(report: S.Report, reasons: dict[str, str]) -> list[S.SavedModuleGroup] | None:
    """What modules saved outside the compiled graphs, each layer's copy of a module as one row, largest first."""
    outside = report.saved_outside
    if outside is None or not outside.modules:
        return None
    return [
        S.SavedModuleGroup(
            module=name,
            bytes=sum(m.bytes for m in members),
            count=len(members),
            eager_reason=next((reasons[m.module] for m in members if m.module in reasons), None),
        )
        for name, members in module_groups(outside.modules)
    ]


def run_view(report: S.Report) -> S.RunView:
    """What the reporters show of ``report`` that is derived from its records."""
    rows = report.saved_tensors or []
    reasons = _eager_reasons(report)
    return S.RunView(
        saved_groups=[_group(g) for g in group_rows(rows)],
        saved_row_groups=_row_groups(rows),
        saved_alive=_saved_alive(report),
        compile_coverage=coverage_line(report.compile_coverage),
        eager_reasons=reasons,
        saved_outside_groups=_saved_outside_groups(report, reasons),
        float8_skipped=(skipped_text(report.float8) or None) if report.float8 else None,
    )


def finish_report(report: S.Report) -> S.Report:
    """``report`` with its verdict (the recorded one, else derived now), the command that checks a complete run's fix
    where its verdict holds none, and its view (changed in place and returned)."""
    verdict = verdict_of(report)
    if verdict.next_command is None and report.status == RunStatus.COMPLETE:
        command = run_next_command(report.config.probe(), report.findings or [], report)
        if command is not None:
            verdict = verdict.model_copy(update={"next_command": command})
    report.verdict = verdict
    report.view = run_view(report)
    return report


def _labelled(items) -> None:
    for it in items or []:
        if it.label is None:
            it.label = label(it)


def _view_lacks_groups(report: S.Report) -> bool:
    """A view written before `saved_outside_groups` existed, for a run that saved something outside its graphs."""
    return report.view.saved_outside_groups is None and bool(report.saved_outside and report.saved_outside.modules)


def finished(kind: str, record: S.Record) -> S.Record:
    """A record as loaded, finished for its readers where it was written before a field existed: a run's verdict and
    view, a diff's and an explain's verdict and their items' names (changed in place and returned)."""
    if kind == "run" and (record.view is None or _view_lacks_groups(record)):
        finish_report(record)
    elif kind == "diff":
        record.verdict = verdict_of(record)
        _labelled(record.items)
    elif kind == "explain":
        record.verdict = verdict_of(record)
        for edit in record.edits or []:
            _labelled(edit.freed)
        _labelled(record.partitioner_items)
    return record

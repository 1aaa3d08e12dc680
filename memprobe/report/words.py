"""What every format says the same way, as plain text: a diff status's label, why a value was saved (a recorded
cause in brief), where it was made, what a side of a diff decided, a diff's header lines (each side's environment,
the versions that differ, how the sides were scheduled), a gate limit's name, its limit and headroom. The console, Markdown, HTML and JUnit
reporters each escape these words for their own format."""

from __future__ import annotations

import re

from ..names import limit_name
from ..policies import flag_op
from ..rundir import schema as S
from ..units import fmt_bytes
from ..vocab import DiffStatus, Fate, LimitKind, Reason, SaveCause, SavedKind

STATUS_LABEL = {
    DiffStatus.ONLY_B: "only in B",
    DiffStatus.GROWN: "grown in B",
    DiffStatus.ONLY_A: "only in A",
    DiffStatus.SHRUNK: "shrunk in B",
}
WHY = {Reason.POLICY: "policy MUST_SAVE", Reason.PARTITIONER: "partitioner", Reason.GRAPH_INPUT: "graph input"}


def _cause(it) -> S.Cause | None:
    """The recorded cause of a saved value: a group's, or for a diff item the cause on the side that keeps it more."""
    if hasattr(it, "b_decision"):
        kept = it.b_decision if it.delta_bytes > 0 else it.a_decision
        return kept.cause if kept else None
    return getattr(it, "cause", None)


def cause_brief(cause: S.Cause | None) -> str | None:
    """A cause in a few words, for a table's "why" column (None: no cause recorded)."""
    if cause is None:
        return None
    lost = "untagged · " if cause.tag is None and cause.checkpointed else ""
    kind = cause.kind
    if kind == SaveCause.POLICY_TAG:
        return "policy " + (flag_op(cause.policy_op) if cause.policy_op else "MUST_SAVE")
    if kind == SaveCause.REGION_TAG:
        return f"region {cause.region}"
    if kind == SaveCause.PASS_TAG:
        return f"pass {cause.rule}"
    if kind == SaveCause.NOT_RECOMPUTABLE:
        return f"{lost}{cause.rule or 'not recomputable'}"
    if kind == SaveCause.MIN_CUT:
        blocker = cause.blocked_by[0] if cause.blocked_by else None
        return f"{lost}min cut" + (f": {blocker.op} banned" if blocker else "")
    if kind == SaveCause.MEMORY_BUDGET:
        return f"{lost}memory budget"
    if kind == SaveCause.UNRECORDED:
        return "partitioner"
    return str(kind)


def why_saved(it) -> str:
    """Why a value is saved (a group of saved values, a diff item), short: its recorded cause (the policy op that made
    it MUST_SAVE, the partitioner's rule), or who chose it in a run recorded without causes."""
    brief = cause_brief(_cause(it))
    if brief and it.reason_kind != Reason.GRAPH_INPUT:
        return brief
    if it.reason_kind == Reason.POLICY:
        return "policy " + (flag_op(it.policy_op) if it.policy_op else "MUST_SAVE")
    return WHY.get(it.reason_kind, it.reason_kind)


# the words of a short "why" a narrow table may drop, in turn, keeping those that carry the cause
_DROPPED = (
    (re.compile(r": \S+ banned$"), ""),  # min cut: aten.mm banned -> min cut
    (re.compile(r"^policy (?=\S+$)"), ""),  # policy aten.abs -> aten.abs; policy MUST_SAVE -> MUST_SAVE
    (re.compile(r"^(parameter) input$|^graph (input)$"), r"\1\2"),  # parameter input -> parameter
)


def why_saved_forms(it) -> tuple[str, ...]:
    """Why a value is saved, from :func:`why_saved`'s words down to the fewest that still carry the cause (the op of
    the save list, MUST_SAVE, the partitioner's reason), for a narrow table; a parameter saved as a graph input is
    said so."""
    forms = ["parameter input" if it.kind == SavedKind.PARAMETER else why_saved(it)]
    for pattern, repl in _DROPPED:
        shorter = pattern.sub(repl, forms[-1])
        if shorter and shorter != forms[-1]:
            forms.append(shorter)
    return tuple(forms)


def why_saved_wide(it) -> str:
    """Why a value is saved in words (the wide tables): its recorded cause, or who chose it and the policy op."""
    cause = _cause(it)
    if cause is not None:
        return cause.text
    return WHY.get(it.reason_kind, it.reason_kind) + (f" {flag_op(it.policy_op)}" if it.policy_op else "")


def decision_brief(decision: S.Decision | None) -> str:
    """What one side of a diff did with a value, in a few words: ``saved · policy aten.abs``, ``recomputed ·
    PREFER_RECOMPUTE``, ``neither``; empty when the side recorded nothing of it."""
    if decision is None:
        return ""
    if decision.fate == Fate.SAVED:
        brief = cause_brief(decision.cause)
        return "saved" + (f" · {brief}" if brief else "")
    if decision.fate == Fate.RECOMPUTED:
        return "recomputed · " + (decision.tag or ("untagged in region" if decision.checkpointed else "untagged"))
    return "neither"


def _source_path(it) -> str:
    """``repros/ffn.py:32``: the file (as recorded) and line of the user's code that made a value."""
    return ((it.user.source if it.user else None) or "").split("  ", 1)[0]


def source_line(it) -> str:
    """``repros/ffn.py:32``: the user's file (its last two path parts) and line that made a value (a group of saved
    values, a diff item); the code itself under --wide."""
    parts = _source_path(it).split("/")
    return "…/" + "/".join(parts[-2:]) if len(parts) > 2 else "/".join(parts)


def source_forms(it) -> tuple[str, ...]:
    """Where the user's code made a value, from its path as recorded down to ``ffn.py:32``, a directory fewer each
    (``…/repros/ffn.py:32``): a narrow table shortens a path from the left, keeping its file and line. Empty when
    the value was made in no code of the user's."""
    parts = _source_path(it).split("/")
    if parts == [""]:
        return ()
    first = 2 if parts[0] == "" else 1  # an absolute path's first directory is its second part
    shorter = ["…/" + "/".join(parts[k:]) for k in range(first, len(parts) - 1)]
    return tuple(dict.fromkeys(["/".join(parts), *shorter, parts[-1]]))


def limit_metric(v: S.LimitVerdict) -> str:
    """A gate limit by its name in the budget file (``cuda.forward_peak_bytes``, ``baseline.saved_bytes``)."""
    return limit_name(v.metric, v.kind, v.device)


def limit_text(v: S.LimitVerdict) -> str:
    """A gate limit in bytes (a relative one with the baseline's share it scales), or as the budget file gives it."""
    if v.limit is None:
        return v.limit_text or "-"
    if v.kind == LimitKind.RELATIVE:
        return f"{fmt_bytes(v.limit)} (baseline {v.limit_text})"
    return fmt_bytes(v.limit)


def headroom_text(v: S.LimitVerdict) -> str:
    """What is left below a gate limit (``+1.50 MiB``), or what it was exceeded by (``-512 B``); empty when unknown."""
    h = v.headroom
    return "" if h is None else ("+" if h >= 0 else "") + fmt_bytes(h)


# -- a diff's header: each side's environment, the versions that differ, how the sides were scheduled ---------------
def versions_line(result: S.DiffResult) -> str | None:
    """One line for a diff's header when the sides ran with different versions (None when they did not):
    ``versions differ: torch 2.13.0+cpu -> 2.15.0; torchao 0.18.0 -> 0.17.0``."""
    changes = result.versions_differ or {}
    if not changes:
        return None
    return "versions differ: " + "; ".join(f"{k} {v.a or 'none'} -> {v.b or 'none'}" for k, v in changes.items())


def side_environment(side: S.DiffSide) -> str:
    """One line: the versions a side ran with, its process and its own settings (``--a-env``)."""
    v = side.versions
    parts = [
        f"{k} {getattr(v, k)}"
        for k in ("torch", "torchao", "torchtitan", "transformers", "triton", "python")
        if v and getattr(v, k)
    ]
    if v and v.device_name:
        parts.append(str(v.device_name))
    proc = side.process
    if proc and proc.pid is not None:
        parts.append(f"pid {proc.pid} on {proc.host}" + (f", {forked_line(proc)}" if proc.forked_from is not None else ""))
    parts += [f"{k}={val}" for k, val in (side.env or {}).items()]
    return " · ".join(str(p) for p in parts)


def forked_line(proc: S.ProcessRecord) -> str:
    """Where a probe's process came from: forked from which fork server (its pid), or a fresh interpreter."""
    if proc.forked_from is None:
        return "a fresh interpreter"
    return f"forked from {proc.fork_server or 'a fork server'} (pid {proc.forked_from})"


def schedule_line(d: S.DiffResult) -> str | None:
    """One line: how the two sides that ran were scheduled (at once, on which GPUs, sharing one or not)."""
    sched = d.schedule
    if not sched:
        return None
    if not sched.at_once:  # the schedule's reason says "one after the other" itself: said once
        why = sched.why.removeprefix("one after the other").lstrip(":").strip()
        return f"sides ran one after the other ({why})" if why else "sides ran one after the other"
    gpus = sched.gpus
    if not gpus:
        return "sides ran at once, one process each on the CPU cores"
    if sched.shared_gpu:
        where = ", ".join(dict.fromkeys(gpus))
        return (
            f"sides ran at once sharing GPU {where} (each in its own process: its own allocator statistics; "
            "the GPU's memory shared)"
        )
    return f"sides ran at once, one GPU each ({', '.join(gpus)})"


def saved_view_text(v: S.SavedView) -> str:
    """A saved view that pins a larger storage, as every reporter says it: ``embed int64[8, 32] holds 16.00 KiB for its
    2.00 KiB`` (the module's name as it is: a console reporter escapes it)."""
    return f"{v.module} {v.dtype}{list(v.shape)} holds {fmt_bytes(v.storage_bytes)} for its {fmt_bytes(v.bytes)}"

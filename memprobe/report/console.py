"""What every verb's console view shares: the console, the verdict line, one-line tables, and how a saved value and
the decision that kept it are named. Each verb's view is a module of its own (run, diff, explain, bisect, sweep,
estimate, policies, gate)."""

from __future__ import annotations

import os

from rich.console import Console
from rich.text import Text

from ..analysis.causes import cause_brief
from ..analysis.saved import value_names
from ..policies import flag_op
from ..rundir import schema as S
from ..text import markup, plain
from ..vocab import Fate, Reason

TOP_ROWS = 12


def make_console() -> Console:
    """The console a verb's view prints to (stdout): 160 columns when it is no terminal, unless $COLUMNS says."""
    con = Console(highlight=False, soft_wrap=False)
    if not con.is_terminal and "COLUMNS" not in os.environ:
        con.width = 160  # logs and CI: wide enough for op chains
    return con


WHY = {Reason.POLICY: "policy MUST_SAVE", Reason.PARTITIONER: "partitioner", Reason.GRAPH_INPUT: "graph input"}


# -- compact rows: one line per value, cut with an ellipsis, never mid-word without one -------------------------------


def compact_table(con: Console, title: str | None, columns: list[tuple[str, str, int]], rows: list[tuple[list, str | None]]):
    """A table of one line per row that fits the console's width: ``columns`` are ``(header, "left"|"right",
    weight)``; columns of weight > 0 (names, places) give up width, the one widest for its weight first, and a
    cell that does not fit ends with ``…``. Cells are recorded text (printed literally)."""
    from rich.cells import cell_len

    gap = 2
    texts = [[plain(c) for c in cells] for cells, _ in rows]
    natural = [max([cell_len(h)] + [cell_len(r[i]) for r in texts]) for i, (h, _j, _w) in enumerate(columns)]
    widths = list(natural)
    avail = con.width - gap * (len(columns) - 1)
    floor = [min(n, max(cell_len(h), 8)) if w else n for n, (h, _j, w) in zip(natural, columns)]
    while sum(widths) > avail:
        flex = [i for i, (_h, _j, w) in enumerate(columns) if w and widths[i] > floor[i]]
        if not flex:
            break
        widest = max(flex, key=lambda i: widths[i] / columns[i][2])
        widths[widest] -= 1

    def line(cells: list[str], style: str | None) -> Text:
        out = Text(style=style or "")
        for i, (cell, (_h, just, _f)) in enumerate(zip(cells, columns)):
            t = Text(cell)
            if cell_len(cell) > widths[i]:
                t.truncate(widths[i], overflow="ellipsis")
            t.align(just, widths[i])
            out.append_text(t)
            if i < len(columns) - 1:
                out.append(" " * gap)
        out.rstrip()
        return out

    if title:
        con.print(Text(title, style="bold"), no_wrap=True, overflow="ellipsis")
    con.print(line([h for h, _j, _f in columns], "dim underline"), no_wrap=True, overflow="ellipsis", crop=True)
    for cells, (_c, style) in zip(texts, rows):
        con.print(line(cells, style), no_wrap=True, overflow="ellipsis", crop=True)


def print_verdict(con: Console, verdict: S.Verdict) -> None:
    """The answer, first: bold, wrapped at word boundaries."""
    con.print(Text.assemble(("verdict: ", "bold cyan"), (plain(verdict.text), "bold")))


def print_next(con: Console, verdict: S.Verdict) -> None:
    """The command that checks the verdict's fix, on a line of its own and never wrapped (copied, it runs)."""
    if verdict.next_command:
        con.print(f"next: [cyan]{markup(verdict.next_command)}[/]", soft_wrap=True)


def saved_value(g) -> str:
    """The user's terms on the first line (``silu(layers.*.ffn.w1)``); the op chain below, dimmed."""
    name, chain = value_names(g)
    return markup(name) if chain is None else f"{markup(name)}\n[dim]{markup(chain)}[/]"


def _cause(it) -> S.Cause | None:
    """The recorded cause of a saved value: a group's, or for a diff item the cause on the side that keeps it more."""
    if hasattr(it, "b_decision"):
        kept = it.b_decision if it.delta_bytes > 0 else it.a_decision
        return kept.cause if kept else None
    return getattr(it, "cause", None)


def why_saved(it) -> str:
    """Why a value is saved (a group of saved values, a diff item), short: its recorded cause (the policy op that made
    it MUST_SAVE, the partitioner's rule), or who chose it in a run recorded without causes."""
    brief = cause_brief(_cause(it))
    if brief and it.reason_kind != Reason.GRAPH_INPUT:
        return brief
    if it.reason_kind == Reason.POLICY:
        return "policy " + (flag_op(it.policy_op) if it.policy_op else "MUST_SAVE")
    return WHY.get(it.reason_kind, it.reason_kind)


def why_saved_wide(it) -> str:
    """Why a value is saved in words (the wide tables): its recorded cause, or who chose it and the policy op."""
    cause = _cause(it)
    if cause is not None:
        return cause.text
    return WHY.get(it.reason_kind, it.reason_kind) + (f" {it.policy_op}" if it.policy_op else "")


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


def source_line(it) -> str:
    """``repros/ffn.py:32``: the user's file (its last two path parts) and line that made a value (a group of saved
    values, a diff item); the code itself under --wide."""
    where = ((it.user.source if it.user else None) or "").split("  ", 1)[0]
    parts = where.split("/")
    return "…/" + "/".join(parts[-2:]) if len(parts) > 2 else where

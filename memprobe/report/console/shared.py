"""What every console view shares: the console, the verdict line, one-line tables, and a saved value's names (rich
markup). Each verb's view is a module of its own (run, diff, explain, bisect, sweep, estimate, policies, gate); the
words every format shares are :mod:`memprobe.report.words`."""

from __future__ import annotations

import os

from rich.console import Console
from rich.text import Text

from ...analysis.saved import value_names
from ...rundir import schema as S
from ...text import markup, plain

TOP_ROWS = 12


def make_console() -> Console:
    """The console a verb's view prints to (stdout): 160 columns when it is no terminal, unless $COLUMNS says."""
    con = Console(highlight=False, soft_wrap=False)
    if not con.is_terminal and "COLUMNS" not in os.environ:
        con.width = 160  # logs and CI: wide enough for op chains
    return con


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

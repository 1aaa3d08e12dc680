"""What every console view shares: the console, the verdict line, one-line tables, and a saved value's names (rich
markup). Each verb's view is a module of its own (run, diff, explain, bisect, sweep, estimate, policies, gate); the
words every format shares are :mod:`memprobe.report.words`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from ...names import value_names
from ...rundir import schema as S
from ...text import markup, plain

TOP_ROWS = 12


def make_console() -> Console:
    """The console a verb's view prints to (stdout): 160 columns when it is no terminal, unless $COLUMNS says."""
    con = Console(highlight=False, soft_wrap=False)
    if not con.is_terminal and "COLUMNS" not in os.environ:
        con.width = 160  # logs and CI: wide enough for op chains
    return con


# -- compact rows: one line per value that fits the console, each cell cut to the words that carry it ------------------


class Column(NamedTuple):
    """A column of a compact table. ``prio``: 0 keeps its content's width (figures); above 0 it gives up width, the
    lowest first (the names a person looks for have the highest), first down to ``comfort`` (what reads well), then
    to what its cells must keep. ``optional``: left out when the columns of the highest priority would otherwise get
    less than their comfort."""

    header: str
    just: str = "left"
    prio: int = 0
    optional: bool = False
    comfort: int = 0


@dataclass(frozen=True)
class Cell:
    """A cell's text in the forms it may take, longest first (``policy aten.abs``, ``aten.abs``). One that fits is
    printed whole; else the last is cut: at its end (``keep``: the leading characters, such as an op's name, that
    a cut leaves), or from its left (``left``: a path keeps its file and line)."""

    forms: tuple[str, ...]
    keep: int | None = None
    left: bool = False

    @property
    def floor(self) -> int:
        """The narrowest width that cuts nothing it must keep."""
        last = cell_len(self.forms[-1])
        if self.left or len(self.forms) > 1:  # a path's file and line; the fewest words that carry it
            return last
        return min(last, self.keep + 1 if self.keep is not None else 8)

    def fit(self, width: int) -> str:
        """The longest form no wider than ``width``, or the last one cut to it with an ellipsis."""
        for form in self.forms:
            if cell_len(form) <= width:
                return form
        last = self.forms[-1]
        if width < 2:
            return "…"[:width]
        if self.left:
            tail = last
            while cell_len(tail) > width - 1:
                tail = tail[1:]
            return "…" + tail
        t = Text(last)
        t.truncate(width, overflow="ellipsis")
        return t.plain


def cell(text: str | Cell | tuple[str, ...]) -> Cell:
    """A table cell from recorded text (a string), its forms (a tuple), or a cell."""
    if isinstance(text, Cell):
        return text
    return Cell(tuple(text)) if isinstance(text, tuple) else Cell((text,))


def name_cell(name: str) -> Cell:
    """A saved value's one name (``abs(t(layers.*.ffn.w2.weight))``): a cut keeps its op (``abs(…``), or up to 24
    characters of a name that is no call."""
    op = name.split("(", 1)[0] if "(" in name else None
    return Cell((name,), keep=len(op) + 1 if op else min(len(name), 24))


def path_cell(forms: tuple[str, ...]) -> Cell:
    """Where a value was made, from its path as recorded down to ``file.py:line``, cut from the left."""
    return Cell(forms or ("",), left=True)


GAP = 2  # spaces between columns


def _natural(cells: list[Cell]) -> int:
    return max(cell_len(c.forms[0]) for c in cells)


def _shrink_to(widths: list[int], limits: list[int], prios: list[int], over: int) -> int:
    """Columns above their ``limits`` give up width, ``over`` characters in all at most: the one with most to spare
    for its priority first (a name of priority 3 keeps three times the spare width a "why" of priority 1 does).
    Returns what is still over."""
    while over > 0:
        spare = [i for i, p in enumerate(prios) if p and widths[i] > limits[i]]
        if not spare:
            break
        i = max(spare, key=lambda i: ((widths[i] - limits[i]) / prios[i], -prios[i]))
        widths[i] -= 1
        over -= 1
    return over


def _shrink(widths: list[int], floors: list[int], comforts: list[int], prios: list[int], avail: int) -> None:
    """The widths that fit ``avail``: the columns that give up width do so down to what reads well (their comfort,
    the most to spare for its priority first), then one after the other, the lowest priority first, down to their
    floors (what a cut must keep), then below them."""
    over = _shrink_to(widths, [max(f, c) for f, c in zip(floors, comforts)], prios, sum(widths) - avail)
    for limits in (floors, [1] * len(widths)):
        for prio in sorted({p for p in prios if p}):
            for i in (i for i, p in enumerate(prios) if p == prio):
                cut = max(0, min(over, widths[i] - limits[i]))
                widths[i] -= cut
                over -= cut


def _wider(cells: list[Cell], width: int) -> int | None:
    """The next width at which a cell of the column shows more (a character more of a cut one, or a longer form of
    its words), or None when every cell shows its longest form."""
    wider = []
    for c in cells:
        shown = c.fit(width)
        if shown == c.forms[0]:
            continue
        longer = [cell_len(f) for f in c.forms if cell_len(f) > cell_len(shown)]
        wider.append(width + 1 if shown not in c.forms else min(longer))
    return min(wider) if wider else None


def _give_back(widths: list[int], columns: list[list[Cell]], prios: list[int], avail: int) -> None:
    """Each column narrowed to what its cells show; the width that frees goes back, the highest priority first, to
    the columns that would show more with it."""
    while True:
        widths[:] = [max(cell_len(c.fit(w)) for c in cells) for w, cells in zip(widths, columns)]
        pool = avail - sum(widths)
        grows = [(i, _wider(columns[i], widths[i])) for i in sorted(range(len(widths)), key=lambda i: -prios[i]) if prios[i]]
        grow = next(((i, w) for i, w in grows if w is not None and w - widths[i] <= pool), None)
        if grow is None:
            return
        widths[grow[0]] = grow[1]


def _widths(columns: list[Column], cells: list[list[Cell]], width: int) -> list[int]:
    """The widths of ``columns`` (all shown) that fit ``width``."""
    avail = width - GAP * (len(columns) - 1)
    prios = [c.prio for c in columns]
    natural = [_natural(col) for col in cells]
    floors = [max(c.floor for c in col) if prio else n for col, prio, n in zip(cells, prios, natural)]
    widths = list(natural)
    _shrink(widths, floors, [c.comfort for c in columns], prios, avail)
    _give_back(widths, cells, prios, avail)
    return widths


def fit_columns(columns: list[Column], cells: list[list[Cell]], width: int) -> tuple[list[int], list[int]]:
    """(the columns shown, their widths) for ``cells`` (a list per column, its header first) in ``width``: the
    optional columns are left out, all of them, when the columns of the highest priority would get less than their
    comfort with them."""
    shown = list(range(len(columns)))
    widths = _widths(columns, cells, width)
    top = max(c.prio for c in columns)
    cramped = any(c.prio == top and w < min(c.comfort, _natural(col)) for c, col, w in zip(columns, cells, widths))
    if cramped and any(c.optional for c in columns):
        shown = [i for i, c in enumerate(columns) if not c.optional]
        widths = _widths([columns[i] for i in shown], [cells[i] for i in shown], width)
    return shown, widths


def compact_table(
    con: Console,
    title: str | None,
    columns: list[Column | tuple],
    rows: list[tuple[list, str | None]],
) -> None:
    """A table of one line per row that fits the console's width: ``columns`` are :class:`Column` (or its fields
    as a tuple), ``rows`` each a list of cells (recorded text, printed literally: a string, a tuple of its forms
    or a :class:`Cell`) and a style. Columns give up width by priority, each cell takes the longest form that fits,
    and one cut ends with ``…`` (a path's begins with it) without cutting what it must keep."""
    columns = [c if isinstance(c, Column) else Column(*c) for c in columns]
    grid = [[cell(c.header)] + [cell(r[i]) for r, _ in rows] for i, c in enumerate(columns)]
    grid = [[Cell(tuple(plain(f) for f in c.forms), c.keep, c.left) for c in col] for col in grid]
    shown, widths = fit_columns(columns, grid, con.width)

    def line(k: int, style: str | None) -> Text:
        out = Text(style=style or "")
        for n, (i, w) in enumerate(zip(shown, widths)):
            t = Text(grid[i][k].fit(w))
            t.align(columns[i].just, w)
            out.append_text(t)
            if n < len(shown) - 1:
                out.append(" " * GAP)
        out.rstrip()
        return out

    if title:
        con.print(Text(title, style="bold"), no_wrap=True, overflow="ellipsis")
    con.print(line(0, "dim underline"), no_wrap=True, overflow="ellipsis", crop=True)
    for k, (_cells, style) in enumerate(rows, 1):
        con.print(line(k, style), no_wrap=True, overflow="ellipsis", crop=True)


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

"""``memprobe show SNAPSHOT.pickle`` and ``memprobe diff A.pickle B.pickle`` on the console: a snapshot taken
elsewhere, read alone. The verdict first, what a snapshot alone says and does not (one line), the peak by category,
then by the innermost frame of the user's code; ``--wide`` every group the record keeps."""

from __future__ import annotations

from rich.console import Console

from ...rundir import schema as S
from ...text import markup
from ...units import fmt_bytes, fmt_delta
from ..words import STATUS_LABEL
from .shared import TOP_ROWS, Cell, compact_table, make_console, print_verdict


def _scope(con: Console, scope: str) -> None:
    con.print(f"[dim]known: {markup(scope)}[/]")


def print_snapshot(s: S.SnapshotSummary, console: Console | None = None, *, wide: bool = False) -> None:
    """One snapshot: its peak, by category and by the user's frames."""
    con = console or make_console()
    con.print(f"[bold]memprobe snapshot[/]  {markup(s.file)}  [dim]({fmt_bytes(s.file_bytes)})[/]")
    print_verdict(con, s.verdict)
    _scope(con, s.scope)
    devices = f"device {s.device}" + (f" (the longest of {s.devices} histories)" if s.devices > 1 else "")
    when = f", {s.peak_t_us / 1000:.1f} ms in" if s.peak_t_us is not None else ""
    con.print(
        f"{devices}: {s.events} events; allocated {fmt_bytes(s.start_bytes)} at the start, "
        f"[bold]{fmt_bytes(s.peak_bytes)}[/] at the peak (event {s.peak_event + 1}{when}), {fmt_bytes(s.end_bytes)} "
        f"at the end; {fmt_bytes(s.reserved_bytes)} reserved"
    )
    rows = [([c, fmt_bytes(b), _share(b, s.peak_bytes)], None) for c, b in s.by_category_bytes.items()]
    compact_table(
        con, "\nalive at the peak, by category", [("category", "left", 1), ("bytes", "right", 0), ("", "right", 0)], rows
    )
    items = s.top_items if wide else s.top_items[:TOP_ROWS]
    columns = [("bytes", "right", 0), ("blocks", "right", 0), ("category", "left", 1), ("your code (innermost frame)", "left", 3)]
    compact_table(
        con,
        "\nby your code",
        columns,
        [([fmt_bytes(it.bytes), str(it.blocks), it.category, _frame_cell(it.item)], None) for it in items],
    )
    if len(s.top_items) > len(items):
        con.print(f"[dim]… {len(s.top_items) - len(items)} more in --json (top_items); --wide shows them[/]")
    if s.groups > len(s.top_items):
        con.print(f"[dim]… and {s.groups - len(s.top_items)} smaller groups, not listed[/]")


def _frame_cell(frame: str) -> Cell:
    """A frame (``/path/to/train.py:42 in forward``) cut, where it must be, from its left: its file, line and function
    are what a user looks up."""
    short = frame[frame.rfind("/") + 1 :]  # its file's name, line and function
    if frame.startswith("(") and not short.startswith("("):  # a library's frame, in parentheses
        short = "(" + short
    return Cell((frame, short) if short != frame else (frame,), left=True)


def _share(n: int, total: int) -> str:
    return f"{n / total:.0%}" if total else ""


def print_snapshot_diff(d: S.SnapshotDiff, console: Console | None = None, *, wide: bool = False) -> None:
    """Two snapshots: the peaks side by side, by category, and the groups that differ (B's excess first)."""
    con = console or make_console()
    con.print("[bold]memprobe diff[/] (two snapshots)")
    print_verdict(con, d.verdict)
    _scope(con, d.scope)
    for key, side in (("A", d.a), ("B", d.b)):
        con.print(
            f"  {key}  {markup(side.file)}  [dim]peak {fmt_bytes(side.peak_bytes)} at event {side.peak_event + 1} of {side.events}[/]"
        )
    figures = [
        ("peak", d.peak_bytes),
        ("at the start", d.start_bytes),
        ("at the end", d.end_bytes),
        ("reserved", d.reserved_bytes),
    ]
    rows = [([name, fmt_bytes(x.a), fmt_bytes(x.b), fmt_delta(x.delta)], None) for name, x in figures]
    rows += [
        ([c, fmt_bytes(x.a), fmt_bytes(x.b), fmt_delta(x.delta)], "bold" if x.delta else None) for c, x in d.by_category.items()
    ]
    columns = [("", "left", 1), ("A", "right", 0), ("B", "right", 0), ("B - A", "right", 0)]
    compact_table(con, "\nallocated, and alive at the peaks by category", columns, rows)
    if not d.items:
        con.print(f"\n[green]Nothing alive at the peaks differs[/] ({d.unchanged} groups, the same on both sides).")
        return
    items = d.items if wide else d.items[:TOP_ROWS]
    columns = [
        ("", "left", 0),
        ("A", "right", 0),
        ("B", "right", 0),
        ("B - A", "right", 0),
        ("category", "left", 1),
        ("your code", "left", 3),
    ]
    rows = [
        (
            [
                STATUS_LABEL[it.status],
                fmt_bytes(it.bytes_a),
                fmt_bytes(it.bytes_b),
                fmt_delta(it.delta_bytes),
                it.category,
                _frame_cell(it.frame),
            ],
            None,
        )
        for it in items
    ]
    compact_table(con, f"\nwhat B holds at its peak that A does not (ranked by bytes; {d.differences} differ)", columns, rows)
    if len(d.items) > len(items):
        con.print(f"[dim]… {len(d.items) - len(items)} more in --json (items); --wide shows them[/]")

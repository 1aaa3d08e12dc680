"""``memprobe policies`` on the console: the named per-op SAC policies and their save lists."""

from __future__ import annotations

from rich.table import Table

from ...rundir import schema as S
from ...text import markup
from ...vocab import PolicyDefault
from .shared import make_console


def print_policies(policies: S.PolicyTable) -> None:
    con = make_console()
    t = Table(title="Per-op SAC policies (--ac-policy)", title_justify="left", show_lines=True)
    t.add_column("name", style="bold")
    t.add_column("MUST_SAVE ops")
    t.add_column("notes", overflow="fold")
    for name, p in policies.root.items():
        if p.available is False:
            ops = f"unavailable: {p.unavailable_because}"
        else:
            ops = "\n".join(p.save_ops) if p.save_ops else ("every op" if p.default == PolicyDefault.SAVE else "none")
        source = p.source + (f" (torchtitan {p.torchtitan})" if p.torchtitan else "")
        t.add_row(name, markup(ops, lines=True), markup(p.description + (f"\nsource: {source}" if source else ""), lines=True))
    con.print(t)
    con.print("Edit one for a run: --save-op aten.abs / --recompute-op aten.abs (repeatable).")

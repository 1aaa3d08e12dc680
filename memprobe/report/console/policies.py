"""``memprobe policies`` on the console: the named per-op SAC policies and their save lists."""

from __future__ import annotations

from ...rundir import schema as S
from ...text import markup
from ...vocab import PolicyDefault
from .shared import make_console


def print_policies(policies: S.PolicyTable) -> None:
    """Each policy as a block: its name and notes (wrapped), then its save list one op a line, never cut (the names a
    user copies into --save-op, --recompute-op and --ac-policy: a table cut them at 80 columns)."""
    con = make_console()
    con.print("[bold]Per-op SAC policies (--ac-policy)[/]")
    for name, p in policies.root.items():
        source = p.source + (f" (torchtitan {p.torchtitan})" if p.torchtitan else "")
        con.print()
        con.print(f"[bold]{markup(name)}[/]  {markup(p.description)}", soft_wrap=False)
        if source:
            con.print(f"  source: {markup(source)}")
        if p.available is False:
            con.print(f"  unavailable: {markup(p.unavailable_because)}")
            continue
        ops = p.save_ops or ["every op" if p.default == PolicyDefault.SAVE else "none"]
        for i, op in enumerate(ops):
            con.print(f"  {'MUST_SAVE: ' if i == 0 else ' ' * 11}{markup(op)}", soft_wrap=True)
    con.print("Edit one for a run: --save-op aten.abs / --recompute-op aten.abs (repeatable).")

"""``memprobe policies``: the named per-op SAC policies and their ops."""

from __future__ import annotations

import click

from .options import debug_option, emit


def policy_table() -> dict:
    """Every policy with its save list; the installed torchtitan's resolved now (or why it cannot be)."""
    from ..integrations.torchtitan import installed_api, installed_save_ops, torchtitan_version, why_unavailable
    from ..policies import INSTALLED, POLICIES

    out = {}
    for name, p in POLICIES.items():
        entry = {
            "description": p.description,
            "default": p.default,
            "save_ops": list(p.save_ops),
            "mm_every_second_recomputed": p.mm_every_second_recomputed,
            "source": p.source,
        }
        if name == INSTALLED:
            why = why_unavailable()
            entry.update(
                available=why is None,
                unavailable_because=why,
                torchtitan=torchtitan_version(),
                # which of torchtitan's SAC APIs it was read through (SelectiveAC: 0.3; _apply_op_sac: 0.2)
                torchtitan_api=installed_api() if why is None else None,
                save_ops=list(installed_save_ops()) if why is None else [],
            )
        out[name] = entry
    return out


@click.command(short_help="List the named per-op SAC policies and their ops.")
@click.option("--json", "as_json", is_flag=True, help="Print the policies as JSON.")
@debug_option
def policies(as_json: bool) -> None:
    """List the per-op SAC policies `--ac-policy` accepts, with their save lists.

    `torchtitan-installed` is read from the installed torchtitan (its own SelectiveAC), resolved
    against the installed torch; without torchtitan it says what to install. Edit a policy for
    one run with --save-op OP / --recompute-op OP.
    """
    from ..report.console import print_policies

    table = policy_table()
    emit(table, as_json=as_json, console=lambda: print_policies(table))

"""``memprobe policies``: the named per-op SAC policies and their ops."""

from __future__ import annotations

import click

from ..verbs import policy_table
from .options import debug_option
from .output import emit


@click.command(short_help="List the named per-op SAC policies and their ops.")
@click.option("--json", "as_json", is_flag=True, help="Print the policies as JSON.")
@debug_option
def policies(as_json: bool) -> None:
    """List the per-op SAC policies `--ac-policy` accepts, with their save lists.

    `torchtitan-installed` is read from the installed torchtitan (its own SelectiveAC), resolved
    against the installed torch; without torchtitan it says what to install. Edit a policy for
    one run with --save-op OP / --recompute-op OP.
    """
    from ..report.console.policies import print_policies

    table = policy_table()
    emit(table, as_json=as_json, console=lambda: print_policies(table))

"""``memprobe policies``: the named per-op SAC policies and their ops."""

from __future__ import annotations

import json

import click

from ..policies import POLICIES


@click.command(short_help="List the named per-op SAC policies and their ops.")
@click.option("--json", "as_json", is_flag=True, help="Print the policies as JSON.")
def policies(as_json: bool) -> None:
    """List the per-op SAC policies `--ac-policy` accepts, with their save lists.

    Edit a policy for one run with --save-op OP / --recompute-op OP.
    """
    if as_json:
        click.echo(json.dumps({name: {
            "description": p.description, "default": p.default, "save_ops": list(p.save_ops),
            "mm_every_second_recomputed": p.mm_every_second_recomputed, "source": p.source,
        } for name, p in POLICIES.items()}, indent=1))
        return
    from ..report.console import print_policies

    print_policies(POLICIES)

"""``memprobe serve``: keep torch imported in a server of this user's, and fork later verbs' probes from it."""

from __future__ import annotations

import json

import click

from ..capture.forkserver import IDLE_EXIT_S
from .options import debug_option


def _said(status: dict, started: bool) -> str:
    """The server in one line: who it is, and how it ends."""
    idle = status.get("idle_exit_s")
    how = "started" if started else "already running"
    return (
        f"memprobe serve {how}: pid {status.get('pid')}; memprobe's verbs and MCP calls of this user fork their probes "
        f"from it (CPU and CUDA); it ends after {idle:g} s idle, when memprobe's or torch's installation changes, or "
        "with `memprobe serve --stop`"
    )


@click.command(short_help="Keep torch imported in a server; later verbs fork their probes from it.")
@click.option("--stop", is_flag=True, help="End the running server (it waits for the probes it runs).")
@click.option("--status", "show_status", is_flag=True, help="Print the running server's status as JSON (null: none).")
@click.option(
    "--idle-exit",
    type=click.FloatRange(min=0.1),
    default=IDLE_EXIT_S,
    show_default=True,
    metavar="SECONDS",
    help="End the server after this long with no probe and no request.",
)
@debug_option
def serve(stop: bool, show_status: bool, idle_exit: float) -> None:
    """Start this user's resident server: a process that imported torch, Dynamo, Inductor and torchao once, from
    which every later memprobe verb (and `memprobe mcp`) forks its probes, each a process of its own as before, on
    the CPU and on CUDA (the server never starts the CUDA driver). It returns once the server is ready; the server
    runs on in the background, at a path of this user's under memprobe's cache directory, and ends after
    --idle-exit seconds without a probe, when memprobe's, torch's, torchao's or Triton's installation changes, or
    with --stop. A run says in its header that its probe was forked from it. MEMPROBE_FORKSERVER=off ignores it.

    \b
    Examples:
      memprobe serve
      memprobe diff bf16 fp8 --ac-policy torchtitan-2025-01
      memprobe serve --stop
    """
    from ..orchestrate import resident

    if show_status:
        click.echo(json.dumps(resident.status()))
    elif stop:
        answer = resident.stop()
        click.echo("memprobe serve: none running" if answer is None else f"memprobe serve stopped: pid {answer.get('stopping')}")
    else:
        click.echo(_said(*resident.start(idle_exit)))

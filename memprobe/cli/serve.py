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
    if status.get("state") != "serving":  # it listens and answers nothing: a verb's probe gets a fresh interpreter
        return (
            f"memprobe serve {how}, but {status.get('state')}: pid {status.get('pid')} ({status.get('why')}); verbs "
            "start their probes as fresh interpreters until it answers"
        )
    return (
        f"memprobe serve {how}: pid {status.get('pid')}; memprobe's verbs and MCP calls of this user fork their probes "
        f"from it (CPU and CUDA); it ends after {idle:g} s idle, when memprobe's or torch's installation changes, or "
        "with `memprobe serve --stop`"
    )


IDLE_MIN_S, IDLE_MAX_S = 0.1, 365 * 86400.0  # a server's idle time: a tenth of a second to a year


def _seconds(_ctx, _param, text: str) -> float:
    """``--idle-exit``: a finite number of seconds within its range (``nan``, ``1e400`` and ``inf`` are none)."""
    from ..fields import shown
    from ..units import decimal

    try:
        value = decimal(text)
    except ValueError:
        value = -1.0
    if not IDLE_MIN_S <= value <= IDLE_MAX_S:
        raise click.BadParameter(f"a number of seconds from {IDLE_MIN_S:g} to {IDLE_MAX_S:.0f} (a year), not {shown(text)}")
    return value


@click.command(short_help="Keep torch imported in a server; later verbs fork their probes from it.")
@click.option(
    "--stop",
    is_flag=True,
    help="End the running server; returns once a new one may start (the old one waits for the probes it runs).",
)
@click.option(
    "--status",
    "show_status",
    is_flag=True,
    help="Print the running server's status as JSON (null: none; state serving, or busy or stopped when it listens and "
    "answers nothing within 5 s).",
)
@click.option(
    "--idle-exit",
    callback=_seconds,
    default=str(IDLE_EXIT_S),
    show_default=True,
    metavar="SECONDS",
    help=f"End the server after this long with no probe and no request ({IDLE_MIN_S:g} s to {IDLE_MAX_S:.0f} s, a year).",
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

"""The ``memprobe`` command: one module per verb, errors through one door (:class:`MemprobeGroup`).

Exit codes (memprobe.errors has them with their error classes): 0 success (gate: every limit
passes); 1 gate: a limit is breached; 2 bad input (flags, config, run directory, budget file);
3 the probe itself failed (partial results were written); 4 out of memory (partial report and,
on CUDA, the snapshot up to the failure); 70 an internal error of memprobe; 130 interrupted
(143 on SIGTERM).
"""

from __future__ import annotations

import sys

import click

from .. import __version__
from ..errors import InternalError, MemprobeError
from ..report.text import plain
from .options import DEBUG


def _one_line(text: str) -> str:
    return plain(" ".join(str(text).split()))


class MemprobeGroup(click.Group):
    """Click group that turns every error into one line on stderr (``--debug`` shows tracebacks)."""

    def main(self, args=None, prog_name=None, **extra):  # noqa: D401
        args = list(sys.argv[1:] if args is None else args)
        DEBUG.on = False
        try:
            return super().main(args=args, prog_name=prog_name or "memprobe", standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(f"memprobe: error: {_one_line(e.format_message())}", err=True)
            sys.exit(e.exit_code)
        except click.exceptions.Abort:
            click.echo("memprobe: interrupted", err=True)
            sys.exit(130)
        except InternalError as e:  # reported by a probe process: a bug of ours
            if DEBUG.on:
                raise
            click.echo(f"memprobe: internal error: {_one_line(e)}", err=True)
            sys.exit(e.exit_code)
        except MemprobeError as e:
            if DEBUG.on:
                raise
            click.echo(f"memprobe: error: {_one_line(e)}", err=True)
            sys.exit(e.exit_code)
        except KeyboardInterrupt:
            click.echo("memprobe: interrupted", err=True)
            sys.exit(130)
        except Exception as e:  # a bug in memprobe: one line unless asked for the traceback
            if DEBUG.on:
                raise
            first = (str(e).splitlines() or [""])[0]
            click.echo(
                f"memprobe: internal error: {type(e).__name__}: {_one_line(first)} (run again with --debug for the traceback)",
                err=True,
            )
            sys.exit(70)


def _group_debug(ctx: click.Context, _param, value: bool) -> None:
    if value:
        DEBUG.on = True


@click.group(cls=MemprobeGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="memprobe")
@click.option(
    "--debug", is_flag=True, expose_value=False, is_eager=True, callback=_group_debug, help="Show Python tracebacks on errors."
)
def cli() -> None:
    """Find out why a PyTorch training step uses more memory than it should.

    \b
    Start here:
      memprobe run --recipe rowwise --ac-policy torchtitan-2025-01
    builds the minimal FFN repro (FSDP2 + torch.compile + per-op SAC + float8), trains a few
    steps, and reports which saved-for-backward buffers hold the memory, traced to their op
    chain, parameter and SAC decision. `memprobe policies` lists the SAC policies.
    """


def _register() -> None:
    from . import bisect, diff, estimate, explain, gate, mcp, policies, report, run, show, sweep

    cli.add_command(run.run)
    cli.add_command(diff.diff)
    cli.add_command(explain.explain)
    cli.add_command(bisect.bisect)
    cli.add_command(estimate.estimate)
    cli.add_command(sweep.sweep)
    cli.add_command(gate.gate)
    cli.add_command(gate.budget)
    cli.add_command(policies.policies)
    cli.add_command(show.show)
    cli.add_command(report.report)
    cli.add_command(mcp.mcp)


_register()


def main() -> None:
    try:
        cli.main()
    except SystemExit as e:
        _leave(e.code)
        raise
    _leave(0)


def _leave(code) -> None:
    """A verb that ran a model in this process (``memprobe run``) leaves without the interpreter's teardown:
    with torch and compiled code loaded it takes seconds (3.7 s measured on a 2-core CPU after one
    compile), on the critical path of every run. Its files are written and closed, its output flushed;
    Inductor's compile workers notice their parent is gone and end themselves. Other verbs exit normally."""
    if "torch" not in sys.modules:
        return
    import os

    status = code if isinstance(code, int) else (0 if code is None else 1)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): nothing more can be said on it
            pass
    os._exit(status)

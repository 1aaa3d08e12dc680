"""The ``memprobe`` command: one module per verb, errors through one door (:class:`MemprobeGroup`).

Exit codes (docs/errors.md has the table; memprobe.errors has them with their error classes): 0
success (gate: every limit passes); 1 gate: a limit is breached; 2 bad input (flags, config, run
directory, budget or any file read); 3 the probe itself failed (partial results were written); 4 out
of memory; 70 an internal error of memprobe (a bug); 130 interrupted (143 on SIGTERM). ``--debug``
prints the traceback as well, and exits with the same code.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from .. import __version__
from ..errors import DEBUG, InternalError, exit_of
from ..text import plain


def _one_line(text: str) -> str:
    return plain(" ".join(str(text).split()))


def outcome(exc: BaseException) -> tuple[int, str]:
    """The exit code and the one line on stderr for an exception that ended a verb: the CLI's one door,
    also what the fuzz tests call in-process."""
    if isinstance(exc, click.exceptions.Exit):
        return exc.exit_code, ""
    if isinstance(exc, click.ClickException):
        return exc.exit_code, f"memprobe: error: {_one_line(exc.format_message())}"
    if isinstance(exc, (click.exceptions.Abort, KeyboardInterrupt)):
        return 130, "memprobe: interrupted"
    code, message = exit_of(exc)
    if isinstance(exc, InternalError):  # reported by a probe process: a bug of ours
        return code, f"memprobe: internal error: {_one_line(message)}"
    if code != 70:
        return code, f"memprobe: error: {_one_line(message)}"
    return 70, f"memprobe: internal error: {_one_line(message)}" + (
        "" if DEBUG.on else " (run again with --debug for the traceback)"
    )


# the verbs: each the command of its own module, named after it (cli/gate.py holds `memprobe gate`)
VERBS = ("bisect", "budget", "diff", "estimate", "explain", "gate", "mcp", "policies", "report", "repro", "run")
VERBS += ("serve", "show", "sweep")


class MemprobeGroup(click.Group):
    """Click group that turns every error into one line on stderr and its exit code (``--debug`` adds the
    traceback, and keeps the code). A verb's module is imported when its command is asked for (a lazy group): a verb
    pays for its own imports only (``show`` of a snapshot file imports no probe machinery: a third of its time)."""

    def list_commands(self, ctx) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx, name: str) -> click.Command | None:
        return getattr(importlib.import_module(f"{__package__}.{name}"), name) if name in VERBS else None

    def main(self, args=None, prog_name=None, **extra):  # noqa: D401
        args = list(sys.argv[1:] if args is None else args)
        DEBUG.on = False
        try:
            result = super().main(args=args, prog_name=prog_name or "memprobe", standalone_mode=False, **extra)
        except SystemExit as e:  # a verb's own exit (the gate's 1 on a breach)
            code, line = e.code, ""
        except BaseException as e:
            code, line = outcome(e)
            if DEBUG.on and code not in (0, 130) and not isinstance(e, click.ClickException):
                import traceback

                traceback.print_exception(e)
        else:
            code, line = None, ""
        finally:
            _release_locks()
        if line:
            click.echo(line, err=True)
        _after_output()
        if code is not None:
            sys.exit(code)
        return result


def _release_locks() -> None:
    """The directories this verb wrote: free for the next memprobe (none where the writer was never imported)."""
    if (write := sys.modules.get(f"{__package__.rpartition('.')[0]}.rundir.write")) is not None:
        write.release_locks()


def _after_output() -> None:
    """The verb's output is complete: whatever the user's code prints later (an ``atexit`` handler of the
    model's) goes to stderr, never after a --json document on stdout."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        return
    if sys.stdout is not sys.__stdout__ or sys.__stdout__ is None:  # under a test runner: its stream
        return
    try:
        if sys.stdout.fileno() == 1 and sys.stderr is not None:
            os.dup2(sys.stderr.fileno(), 1)
    except (OSError, ValueError, AttributeError):
        pass


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
    Inductor's compile workers notice their parent is gone and end themselves. Other verbs exit normally (a snapshot
    file is read in a forked process, which leaves without freeing what it read: cli/snapshots.py)."""
    if "torch" not in sys.modules:
        return
    status = code if isinstance(code, int) else (0 if code is None else 1)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): nothing more can be said on it
            pass
    os._exit(status)

"""The user's own command after ``--`` (``memprobe run -- python train.py --lr 3e-4``): the verbs that take one, and
the configuration it runs with."""

from __future__ import annotations

import click

from ..config import ProbeConfig, config_from_values
from .options import config_from_options, refuse_config_flags

# the configuration flags that apply to a user's script: the rest configure the stack memprobe builds
SCRIPT_FLAGS = ("steps",)


class CommandAfterDashes(click.Command):
    """A verb that takes the user's own command after ``--``: the words after the first ``--`` are the command,
    whatever they look like; the words before it are the verb's."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            args, ctx.meta["memprobe.command"] = args[:cut], tuple(args[cut + 1 :])
        return super().parse_args(ctx, args)


def command_after_dashes() -> tuple[str, ...]:
    """The command the user gave after ``--`` (empty: none)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get("memprobe.command", ()) if ctx is not None else ()


def script_config(kw: dict, command: tuple[str, ...]) -> ProbeConfig:
    """The configuration that runs ``command``: a stack flag beside it is refused, --steps applies."""
    refuse_config_flags(
        kw,
        "configures the stack memprobe builds; a script after -- builds its own (only --steps applies to it)",
        keep=SCRIPT_FLAGS,
    )
    return config_from_values({**{k: v for k, v in kw.items() if k in SCRIPT_FLAGS}, "command": command})


def config_from_options_or_command(kw: dict) -> ProbeConfig:
    """The configuration of a verb that takes a command after ``--``: the command's when one was given, else the
    flags'."""
    command = command_after_dashes()
    return script_config(kw, command) if command else config_from_options(kw)


def two_sides(verb: str, a: str | None, b: str | None, each: str) -> tuple[str, str]:
    """A and B of a two-sided verb, or one line (exit 2) naming the side missing, before either side is read."""
    if a is None or b is None:
        missing = "A and B" if a is None else "B"
        raise click.UsageError(f"memprobe {verb} compares two sides; {missing} missing: give two sides, A and B ({each}")
    return a, b

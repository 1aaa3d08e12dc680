"""One side of a diff or a bisect: its own `memprobe run` flags (``--a '...'``), environment and interpreter."""

from __future__ import annotations

import functools
import shlex
from dataclasses import dataclass, fields
from pathlib import Path

import click

from ..config import ProbeConfig
from ..errors import ConfigError
from ..verbs import diff_side
from .command import script_config
from .options import config_from_options, config_options, refuse_config_flags

# the configuration fields a side names itself: its recipe is the A or B argument, never a flag
SIDE_NAMED = ("recipe",)
SIDE_NAMED_BECAUSE = "each side's recipe is its own argument, A or B (memprobe diff bf16 rowwise)"


@dataclass(frozen=True)
class SideOptions:
    """What each side alone runs with: its own `memprobe run` flags, environment variables and Python."""

    a_flags: str | None
    b_flags: str | None
    a_env: tuple[str, ...]
    b_env: tuple[str, ...]
    a_python: str | None
    b_python: str | None

    def resolve(self, a: str, b: str, shared: dict) -> dict:
        """Side A and side B: each a run directory (Path) or a validated configuration with its own flags; the shared
        configuration flags are refused when neither side runs (nothing would use them)."""
        sides = {"a": resolve_side("a", a, self.a_flags, shared), "b": resolve_side("b", b, self.b_flags, shared)}
        if all(isinstance(side, Path) for side in sides.values()):
            refuse_config_flags(shared, "they configure a side that runs; A and B are run directories, read as recorded")
        return sides

    def resolve_script(self, a: str | None, b: str | None, shared: dict, command: tuple[str, ...]) -> dict:
        """Both sides run the user's script (``memprobe diff -- COMMAND``): the same configuration, the sides told
        apart by their environments and interpreters (--a-env/--b-env, --a-python/--b-python)."""
        if a is not None or b is not None:
            raise ConfigError(
                "with a command after --, both sides run it: name no A or B (the sides differ by --a-env/--b-env "
                "and --a-python/--b-python; to compare two commands, `memprobe run` each and diff the run directories)"
            )
        if self.a_flags or self.b_flags:
            raise ConfigError("--a/--b flags configure a memprobe-built side; a script is configured by its own arguments")
        cfg = script_config(shared, command)
        return {"a": cfg, "b": cfg}

    def given(self) -> bool:
        """Whether any of one side's own options was given (flags, environment, interpreter)."""
        return any((self.a_flags, self.b_flags, self.a_env, self.b_env, self.a_python, self.b_python))

    def envs(self) -> dict:
        """Each side's environment and interpreter, checked before any side runs."""
        from ..orchestrate.process import side_env

        return {"a": side_env(self.a_env, self.a_python, "a"), "b": side_env(self.b_env, self.b_python, "b")}


def side_options(f):
    """--a/--b flags, environments and interpreters, handed to the verb as one ``sides``: :class:`SideOptions`."""

    @functools.wraps(f)
    def verb(*args, **kw):
        return f(*args, sides=SideOptions(**{k: kw.pop(k) for k in _FIELDS}), **kw)

    for opt in reversed(
        [
            click.option(
                "--a",
                "a_flags",
                metavar="FLAGS",
                default=None,
                help="Extra `memprobe run` flags for side A only, quoted: --a '--ac-policy torchtitan'.",
            ),
            click.option(
                "--b",
                "b_flags",
                metavar="FLAGS",
                default=None,
                help="Extra `memprobe run` flags for side B only, quoted: --b '--save-op aten.abs'.",
            ),
            click.option(
                "--a-env",
                "a_env",
                multiple=True,
                metavar="NAME=VALUE",
                help="An environment variable for side A's processes only (repeatable): an Inductor or "
                "allocator setting, e.g. PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
            ),
            click.option(
                "--b-env",
                "b_env",
                multiple=True,
                metavar="NAME=VALUE",
                help="An environment variable for side B's processes only (repeatable).",
            ),
            click.option(
                "--a-python",
                "a_python",
                default=None,
                metavar="PATH",
                help="Run side A with another Python (another torch, torchao or torchtitan): it needs torch (torchao, torchtitan where used), not memprobe; it is checked before any side runs.",
            ),
            click.option("--b-python", "b_python", default=None, metavar="PATH", help="Run side B with another Python."),
        ]
    ):
        verb = opt(verb)
    return verb


_FIELDS = [f.name for f in fields(SideOptions)]


def _side_parser() -> click.Command:
    """The configuration flags of `memprobe run`, alone: what ``--a '...'`` / ``--b '...'`` may hold."""

    @click.command("run", add_help_option=False)
    @config_options(leave_out=SIDE_NAMED, because=SIDE_NAMED_BECAUSE)
    def parse(**_kw) -> None:
        """Parse one side's configuration flags."""

    return parse


def side_config(label: str, base: ProbeConfig, extra: str | None) -> ProbeConfig:
    """``base`` with one side's extra ``memprobe run`` flags (``--a '...'``) applied."""
    if not extra:
        return base
    try:
        args = shlex.split(extra)
    except ValueError as e:
        raise ConfigError(f"--{label} {extra!r}: {e}") from None
    if {"-h", "--help"} & set(args):
        raise ConfigError(f"--{label} takes `memprobe run` flags for side {label.upper()}; see `memprobe run --help`")
    flags = base.to_flags()
    del flags[flags.index("--recipe") : flags.index("--recipe") + 2]  # the side's own, kept as it is
    try:
        ctx = _side_parser().make_context("run", flags + args, resilient_parsing=False)
    except click.ClickException as e:
        raise ConfigError(f"--{label} {extra!r}: {e.format_message()}") from None
    return config_from_options({**ctx.params, "recipe": base.recipe})


def resolve_side(label: str, value: str, extra: str | None, shared: dict):
    """A run directory (Path) or a validated config for a recipe side."""
    if extra and Path(value).is_dir():
        raise ConfigError(f"--{label} flags apply to a recipe side; {value} is a run directory")
    side = diff_side(label, value, shared)
    return side if isinstance(side, Path) else side_config(label, side, extra)

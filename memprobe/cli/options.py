"""The flags verbs share, declared once: the probe configuration's come from :class:`ProbeConfig`'s fields."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import ProbeConfig, config_from_values
from ..fields import Kind, Option, declared, default_of, flag_of


def _option(f, o: Option):
    """The click option of one configuration field, from its declaration."""
    default = default_of(f)
    kwargs: dict = {"help": o.help}
    if o.kind == Kind.FLAG:
        name = f.name.replace("_", "-")
        return click.option(f"--{name}/--no-{name}", f.name, default=default, show_default=True, **kwargs)
    if o.kind == Kind.OPS:
        return click.option(flag_of(f), f.name, multiple=True, metavar=o.metavar, **kwargs)
    words = o.words()
    if words:
        kwargs["type"] = click.Choice(list(words))
    elif o.kind in (Kind.WHOLE, Kind.NUMBER):
        kwargs["type"] = int if o.kind == Kind.WHOLE else float
    if o.metavar:
        kwargs["metavar"] = o.metavar
    if o.preset:  # None: a --preset may set it; an explicit flag wins over the preset
        kwargs.update(default=None, help=f"{o.help}  [default: {default}, or the preset's]")
    else:
        kwargs.update(default=default, show_default=default is not None)
    return click.option(flag_of(f), f.name, **kwargs)


def config_options(f):
    """The probe configuration flags (every verb that runs a probe), one per :class:`ProbeConfig` field."""
    for fld, o in reversed(declared(ProbeConfig)):
        f = _option(fld, o)(f)
    return f


def config_from_options(kw: dict) -> ProbeConfig:
    """A validated config from the flags; unknown ops are caught here, before anything runs."""
    return config_from_values({fld.name: kw[fld.name] for fld, _ in declared(ProbeConfig) if fld.name in kw})


class _Debug:
    """Whether ``--debug`` was given (on the group or after a verb): tracebacks instead of one line."""

    on = False


DEBUG = _Debug()


def _set_debug(_ctx: click.Context, _param, value: bool) -> None:
    if value:
        DEBUG.on = True


def debug_option(f):
    """``--debug`` after a verb (as after ``memprobe``): the group shows the traceback of an error."""
    return click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help="Show Python tracebacks on errors (same as `memprobe --debug VERB`).",
    )(f)


def log_options(f):
    """--quiet, --verbose and --debug: how much a verb says while it works, and about an error."""
    f = click.option("--verbose", is_flag=True, help="Let torch/torchao warnings and logs through.")(debug_option(f))
    return click.option("--quiet", "-q", is_flag=True, help="No progress lines.")(f)


def budget_file_option(help: str):
    """``--budget FILE``: the budget file (default memprobe.toml) that `memprobe gate` checks and `memprobe budget`
    writes; not the partitioner's memory budget (``--memory-budget``)."""
    return click.option(
        "--budget", "budget_path", type=click.Path(path_type=Path), default=Path("memprobe.toml"), show_default=True, help=help
    )

"""The flags verbs share, declared once: the probe configuration's come from :class:`ProbeConfig`'s fields."""

from __future__ import annotations

from dataclasses import MISSING, fields
from pathlib import Path

import click

from ..config import ProbeConfig


def _choices(meta) -> tuple[str, ...] | None:
    c = meta.get("choices")
    return tuple(c()) if callable(c) else c


def config_options(f):
    """The probe configuration flags (every verb that runs a probe), one per :class:`ProbeConfig` field."""
    options = []
    for fld in fields(ProbeConfig):
        meta = fld.metadata
        if "help" not in meta:
            continue
        name = fld.name.replace("_", "-")
        default = fld.default if fld.default is not MISSING else None
        kwargs: dict = {"help": meta["help"]}
        if isinstance(default, bool):
            decl = [f"--{name}/--no-{name}"]
            kwargs.update(default=default, show_default=True)
        elif meta.get("multiple"):
            decl = [meta.get("flag", f"--{name}"), fld.name]
            kwargs.update(multiple=True, metavar=meta.get("metavar"))
        else:
            decl = [meta.get("flag", f"--{name}"), fld.name]
            choices = _choices(meta)
            kind = type(default) if default is not None else str
            if choices:
                kwargs["type"] = click.Choice(list(choices))
            elif kind in (int, float):
                kwargs["type"] = kind
            if meta.get("metavar"):
                kwargs["metavar"] = meta["metavar"]
            if meta.get("preset"):
                # None: a --preset may set it; an explicit flag wins over the preset
                kwargs.update(default=None, help=f"{meta['help']}  [default: {default}, or the preset's]")
            else:
                kwargs.update(default=default, show_default=default is not None)
        options.append(click.option(*decl, **kwargs))
    for opt in reversed(options):
        f = opt(f)
    return f


def config_from_options(kw: dict) -> ProbeConfig:
    """A validated config from the flags; unknown ops are caught here, before anything runs."""
    from ..verbs import config_from_values

    return config_from_values({fld.name: kw[fld.name] for fld in fields(ProbeConfig) if fld.name in kw})


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

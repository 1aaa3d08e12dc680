"""The flags verbs share, declared once: the probe configuration's come from :class:`ProbeConfig`'s fields."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from ..errors import DEBUG, ConfigError
from ..fields import Kind, Option, declared, default_of, flag_of

if TYPE_CHECKING:
    from ..config import ProbeConfig

# a choice flag whose words, as click shows them ([a|b|c]), would take more than this: NAME, the words in its help
_CHOICES_SHOWN = 50


def _choice(kwargs: dict, o: Option, words: tuple[str, ...]) -> None:
    """A flag that takes one of ``words``: click's [a|b|c] when short, else NAME with the words in the help (a help
    line wraps; the flag's own column does not)."""
    kwargs["type"] = click.Choice(list(words))
    if len("|".join(words)) > _CHOICES_SHOWN:
        kwargs["metavar"] = o.metavar or "NAME"
        kwargs["help"] = f"{o.help} One of: {', '.join(words)}."


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
        _choice(kwargs, o, words)
    elif o.kind in (Kind.WHOLE, Kind.NUMBER):
        kwargs["type"] = int if o.kind == Kind.WHOLE else float
    if o.metavar:
        kwargs["metavar"] = o.metavar
    if o.preset:  # None: a --preset may set it; an explicit flag wins over the preset
        kwargs.update(default=None, help=f"{kwargs['help']}  [default: {default}, or the preset's]")
    else:
        kwargs.update(default=default, show_default=default is not None)
    return click.option(flag_of(f), f.name, **kwargs)


def flag_default(f, o: Option):
    """What a configuration flag holds when it is not given (None for a dimension a --preset may set)."""
    if o.preset:
        return None
    return () if o.kind == Kind.OPS else default_of(f)


def _refused(f, because: str):
    """A flag the verb does not offer (not in its help), refused in one line saying why when given anyway."""

    def refuse(_ctx, _param, value) -> None:
        if value is not None:
            raise click.UsageError(f"{flag_of(f)}: {because}")

    return click.option(flag_of(f), f"not_{f.name}", hidden=True, expose_value=False, default=None, callback=refuse)


def _configuration() -> list[tuple]:
    from ..config import ProbeConfig  # by the verbs that take its flags only (not `show`, `report`)

    return declared(ProbeConfig)


def config_options(f=None, *, leave_out: tuple[str, ...] = (), because: str = ""):
    """The probe configuration flags (every verb that runs a probe), one per :class:`ProbeConfig` field; as
    ``@config_options``, or ``@config_options(leave_out=(...), because=...)`` for a verb that sets those fields itself
    (a diff's sides name their recipes): a flag a verb would ignore is not offered, and given it is refused."""
    unknown = set(leave_out) - {fld.name for fld, _ in _configuration()}
    if unknown or (leave_out and not because):
        raise ValueError(f"leave out configuration fields that exist, saying why: {sorted(unknown)}")

    def decorate(f):
        for fld, o in reversed(_configuration()):
            if o.after_dashes:  # a command, after `--` (CommandAfterDashes)
                continue
            f = _refused(fld, because)(f) if fld.name in leave_out else _option(fld, o)(f)
        return f

    return decorate if f is None else decorate(f)


def _given(name: str, value, default) -> bool:
    """Whether the user gave configuration flag ``name`` (on the command line or in the environment), or, outside a
    command, whether it holds other than its default."""
    ctx = click.get_current_context(silent=True)
    source = ctx.get_parameter_source(name) if ctx is not None else None
    if source is None:
        return value != default
    return source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def given_config_flags(kw: dict, keep: tuple[str, ...] = ()) -> list[str]:
    """The configuration flags the user gave (``keep``: fields not to count)."""
    return [
        flag_of(fld)
        for fld, o in _configuration()
        if fld.name in kw and fld.name not in keep and _given(fld.name, kw[fld.name], flag_default(fld, o))
    ]


def refuse_config_flags(kw: dict, why: str, keep: tuple[str, ...] = ()) -> None:
    """ConfigError when a configuration flag was given that the verb would not use here (``why``: because)."""
    given = given_config_flags(kw, keep)
    if given:
        raise ConfigError(f"{', '.join(given)}: {why}")


def config_values(kw: dict) -> dict:
    """The configuration's fields among a verb's flags, as :func:`~memprobe.config.config_from_values` takes them."""
    return {fld.name: kw[fld.name] for fld, _ in _configuration() if fld.name in kw}


def config_from_options(kw: dict) -> ProbeConfig:
    """A validated config from the flags; unknown ops are caught here, before anything runs."""
    from ..config import config_from_values

    return config_from_values(config_values(kw))


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

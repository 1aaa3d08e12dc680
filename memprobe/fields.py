"""A configuration field, declared once: its default, its flag, its help and the kind of value it takes.

The probe configuration's own fields (:mod:`memprobe.config`) and each model family's (:mod:`memprobe.targets`) are
declared with :func:`option`. Everything that reads a configuration field reads its :class:`Option`: the type
check of a constructed configuration, the command line's flags (:mod:`memprobe.cli.options`), the schema's types
(:mod:`memprobe.rundir.schema`), the MCP tools' argument schema and the docs. Nothing picks behaviour from a
default's Python type anywhere else.

Standard library only: a probe's process (another interpreter, without memprobe's dependencies) reads it too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from enum import StrEnum

from .errors import ConfigError
from .rundir.read import digits

MAX_WHOLE = 2**31  # a whole number of a configuration (a dimension, a count of steps): within 32 bits
MAX_TEXT = 4096  # a string of a configuration (a path, a spec)
MAX_OP = 200  # an op name


class Kind(StrEnum):
    """The kind of value a configuration field takes."""

    FLAG = "flag"  # true or false: --name / --no-name
    WHOLE = "whole"  # an integer
    NUMBER = "number"  # a finite number (an integer is one too)
    TEXT = "text"  # a string (None where the default is None: not given)
    OPS = "ops"  # a list of op names (a repeatable flag)
    WORDS = "words"  # a command line: a list of strings, given after ``--``


MAX_WORDS = 1000  # the arguments of a command line


@dataclass(frozen=True)
class Option:
    """How a configuration field is given and checked. ``choices``: the words it takes (a tuple, or a callable
    returning one, read when needed); ``flag``: its flag when not ``--<name>``; ``preset``: a dimension a
    ``--preset`` may set (its flag's own default is None, so that an explicit flag wins); ``metavar``: the
    placeholder its help shows."""

    help: str
    kind: Kind
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] | None = None
    flag: str | None = None
    metavar: str | None = None
    preset: bool = False
    after_dashes: bool = False  # given after ``--`` on the command line (a command), not as a flag

    def words(self) -> tuple[str, ...] | None:
        return self.choices() if callable(self.choices) else self.choices

    def expected(self, value=None) -> str:
        """What the field takes, in words; for an integer out of its range (``value``), that range."""
        if self.kind == Kind.WHOLE and isinstance(value, int) and not isinstance(value, bool):
            return f"an integer from {-(MAX_WHOLE - 1)} to {MAX_WHOLE - 1} (within 32 bits)"
        return KINDS[self.kind].expected

    def holds(self, value, optional: bool) -> bool:
        """Whether ``value`` is of this field's kind (None only where the field is optional)."""
        if value is None:
            return optional
        if self.kind == Kind.FLAG:
            return isinstance(value, bool)
        return not isinstance(value, bool) and KINDS[self.kind].holds(value)  # a bool is no number


def _command_words(value) -> bool:
    """A command line: fewer than MAX_WORDS strings, each shorter than MAX_TEXT, with no NUL byte."""
    return (
        isinstance(value, (list, tuple))
        and len(value) < MAX_WORDS
        and all(isinstance(v, str) and len(v) < MAX_TEXT and "\0" not in v for v in value)
    )


@dataclass(frozen=True)
class KindRule:
    """What a kind of field takes: in words, as a check of a value, and as a command-line argument's type (argparse's
    ``type``, for the bare probe's parser: a repeated or boolean flag parses itself). The typed record's and the MCP
    tools' types are :data:`memprobe.rundir.schema.CONFIG_KINDS` (pydantic's, which a probe's interpreter may lack)."""

    expected: str
    holds: Callable[[object], bool]
    parse: Callable[[str], object] = str


KINDS = {
    Kind.FLAG: KindRule("true or false", lambda value: isinstance(value, bool)),
    Kind.WHOLE: KindRule("an integer", lambda value: isinstance(value, int) and abs(value) < MAX_WHOLE, int),
    Kind.NUMBER: KindRule("a finite number", lambda value: isinstance(value, (int, float)) and math.isfinite(value), float),
    Kind.TEXT: KindRule("a string", lambda value: isinstance(value, str) and len(value) < MAX_TEXT),
    Kind.OPS: KindRule(
        "a list of op names",
        lambda value: isinstance(value, (list, tuple)) and all(isinstance(v, str) and len(v) < MAX_OP for v in value),
    ),
    Kind.WORDS: KindRule("a list of strings (a command and its arguments)", _command_words),
}


def kind_of(default) -> Kind:
    """The kind a field's default declares (a field whose default is None is a text)."""
    if isinstance(default, bool):
        return Kind.FLAG
    if isinstance(default, int):
        return Kind.WHOLE
    if isinstance(default, float):
        return Kind.NUMBER
    if isinstance(default, tuple):
        return Kind.OPS
    return Kind.TEXT


def option(default, help: str, kind: Kind | None = None, **how) -> Field:
    """A configuration field with its default and its :class:`Option` (``how``: its keyword arguments; ``kind``: when
    the default's type does not say it, a command line's words)."""
    return field(default=default, metadata={"option": Option(help=help, kind=kind or kind_of(default), **how)})


def option_of(f: Field) -> Option | None:
    return f.metadata.get("option")


def declared(cls) -> list[tuple[Field, Option]]:
    """The configuration fields of the dataclass ``cls``, with their options, in declaration order."""
    return [(f, o) for f in fields(cls) if (o := option_of(f)) is not None]


def flag_of(f: Field) -> str:
    o = option_of(f)
    return (o.flag if o and o.flag else None) or "--" + f.name.replace("_", "-")


def default_of(f: Field):
    return None if f.default is MISSING else f.default


def shown(value, limit: int = 60) -> str:
    """A value as an error echoes it: a bounded prefix of its repr, an integer too long to print by its digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"an integer of {digits(value)} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # a list holding such an integer; a list nested past the recursion limit
        return f"a {type(value).__name__} too long or too deep to print"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def checked(f: Field, value):
    """``value`` for the field ``f`` as the configuration holds it (a list of ops as a tuple), or ConfigError
    naming the field and what it takes."""
    o = option_of(f)
    if o is None:
        return value
    if not o.holds(value, optional=default_of(f) is None):
        raise ConfigError(f"config key {f.name!r}: expected {o.expected(value)}, got {shown(value)}", field=f.name)
    if o.kind in (Kind.OPS, Kind.WORDS):
        return tuple(value)
    if o.kind == Kind.NUMBER:
        return float(value)
    return value

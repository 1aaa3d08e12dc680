"""Untrusted text for a terminal: recorded strings (op chains, messages, paths) may come from anyone.

:func:`plain` makes control characters visible (an escape sequence such as OSC 52 would
otherwise reach the terminal) and replaces what cannot be encoded (lone surrogates);
:func:`markup` also escapes rich's markup (``[/]`` in a message would crash the renderer,
``exp[old]`` would print as ``exp``). Every recorded string the console prints passes
through one of them.
"""

from __future__ import annotations

import re

from rich.markup import escape as _escape_markup

# C0 and C1 control characters and DEL, but not the tab (a newline becomes a visible \\n)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def _visible(m: re.Match) -> str:
    return f"\\x{ord(m.group(0)):02x}"


def plain(value, *, lines: bool = False) -> str:
    """``value`` as text that prints literally: control characters shown as ``\\x1b``, lone surrogates as ?;
    newlines too, unless ``lines`` (text that may span lines, in a table cell)."""
    text = value if isinstance(value, str) else str(value)
    text = text.encode("utf-8", "replace").decode("utf-8")
    if lines:
        return "\n".join(_CONTROL.sub(_visible, part) for part in text.split("\n"))
    return _CONTROL.sub(_visible, text.replace("\n", "\\n"))


def markup(value, *, lines: bool = False) -> str:
    """``value`` safe to embed in a rich markup string: :func:`plain`, then markup escaped."""
    return _escape_markup(plain(value, lines=lines))

"""Keys and values as TOML writes them: what ``memprobe budget`` writes into a budget file, and how a budget error
quotes a value."""

from __future__ import annotations

import re

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else toml_value(key)


def toml_value(value) -> str:
    """A TOML value for a string, bool, int, finite float or list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"TOML has no value for {value!r} here")
        return repr(value)
    if isinstance(value, str):
        out = []
        for ch in value:
            if ch in '\\"':
                out.append("\\" + ch)
            elif ch < " " or ch == "\x7f":
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")

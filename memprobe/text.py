"""Untrusted text, escaped for each output format: recorded strings (op chains, labels, messages, paths,
probe names) may come from anyone.

One escaper per format, and every recorded string a renderer writes passes through the one of its format:

- the terminal: :func:`plain` shows control characters (an escape sequence such as OSC 52 would otherwise
  reach the terminal) and the invisible ones (bidi overrides such as U+202E, zero-width spaces, line
  separators) as ``\\x1b`` / ``\\u202e``, replaces what cannot be encoded (lone surrogates), and bounds the
  length; :func:`markup` also escapes rich's markup (``[/]`` would crash the renderer, ``exp[old]`` would
  print as ``exp``);
- Markdown: :func:`md_text` (every ASCII punctuation backslash-escaped: no HTML, link, emphasis or table
  cell boundary can form), :func:`md_code` (a code span whose fence is longer than any run of backticks
  inside it, so it cannot be closed early);
- CSV: :func:`csv_field` (a cell a spreadsheet would read as a formula, starting with ``= + - @``, a tab or
  a carriage return, at its start or after a line or record break inside it, gets a leading apostrophe there; a cell
  holding a break, a delimiter, a quote or an ``=`` is quoted);
- JUnit XML: :func:`xml_text` (the characters XML 1.0 cannot hold shown as ``\\x01``; ElementTree escapes
  the rest);
- Python source: :func:`py_text` (a line of a comment or a docstring that stays one: newlines and control
  characters shown as in :func:`plain`, backslashes doubled, no run of three quotes).

Every escaper bounds the text to ``limit`` characters with a visible "truncated" mark.
"""

from __future__ import annotations

import re

MAX_TEXT = 2000  # characters of one recorded string in the terminal or a Markdown document

# C0 and C1 control characters and DEL, but not the tab (a newline becomes a visible \\n)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# characters that change how the text around them reads without showing themselves: the Arabic letter
# mark, zero-width spaces and joiners, directional marks, embeddings, overrides and isolates, line and
# paragraph separators, invisible operators, the byte order mark, interlinear annotation marks
_INVISIBLE = re.compile("[\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")
_BOTH = re.compile(_CONTROL.pattern[:-1] + _INVISIBLE.pattern[1:])


def _visible(m: re.Match) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def truncate(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, with a mark saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (truncated: {len(text) - limit} more characters)"


def _shown(value, limit: int) -> str:
    text = value if isinstance(value, str) else str(value)
    return truncate(text, limit).encode("utf-8", "replace").decode("utf-8")


def plain(value, *, lines: bool = False, limit: int = MAX_TEXT) -> str:
    """``value`` as terminal text that prints literally: control and invisible characters shown as ``\\x1b``
    / ``\\u202e``, lone surrogates as ?, at most ``limit`` characters; newlines shown too, unless ``lines``
    (text that may span lines, in a table cell)."""
    text = _shown(value, limit)
    if lines:
        return "\n".join(_BOTH.sub(_visible, part) for part in text.split("\n"))
    return _BOTH.sub(_visible, text.replace("\n", "\\n"))


def markup(value, *, lines: bool = False, limit: int = MAX_TEXT) -> str:
    """``value`` safe to embed in a rich markup string: :func:`plain`, then markup escaped."""
    from rich.markup import escape  # (rich: imported by the verbs that render, not before a snapshot is read)

    return escape(plain(value, lines=lines, limit=limit))


# what can start markup inside a line, and only that (the Markdown source stays readable: ``MUST_SAVE``,
# ``aten.abs.default``, ``bfloat16[768, 256]``, ``2.00 MiB`` unchanged): code spans, emphasis (``*``
# anywhere; ``_`` where it could close one, i.e. not before a letter or digit), strikethrough, table
# cells, HTML and autolinks, math, mentions, images, entities, and the ``]`` of an inline link, a
# reference or a definition
_MD_SPECIAL = re.compile(r"[\\`*~|<$@]|_(?![^\W_])|!(?=\[)|&(?=[#A-Za-z])|\](?=[(\[:])")
# what can start a block where the text starts a line (a list item's content too): a list, a heading, a
# quote, a setext underline, a task-list box, a thematic break, an ordered list
_MD_BLOCK_START = re.compile(r"^(\s*)([-+=>#\[]|\d+[.)])")


def md_text(value, *, line_start: bool = False, limit: int = MAX_TEXT) -> str:
    """``value`` as inline Markdown that renders as exactly its text, on one line: every character that can
    start markup there backslash-escaped (CommonMark allows it for any ASCII punctuation), so no HTML,
    link, image, emphasis, code span or table cell boundary can form in it; ``line_start``: it begins a
    line or a list item, where a list, heading or quote marker is escaped too. Control and invisible
    characters are shown as in :func:`plain`."""
    text = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), plain(value, limit=limit))
    if line_start:
        text = _MD_BLOCK_START.sub(lambda m: m.group(1) + "".join(c if c.isdigit() else "\\" + c for c in m.group(2)), text)
    return text


def md_code(value, *, cell: bool = False, limit: int = MAX_TEXT) -> str:
    """``value`` as a Markdown code span that cannot be closed early: its fence is one backtick longer than
    the longest run of backticks inside. ``cell``: it stands in a table cell, where a pipe would end the
    cell even inside a code span (GFM), so pipes are escaped."""
    text = plain(value, limit=limit)
    if cell:
        text = text.replace("|", "\\|")
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    if not text.strip(" ") or text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")):
        text = f" {text} "  # CommonMark strips one space on each side
    return f"{fence}{text}{fence}"


# what ends a line or a record for some reader of a CSV file (Python's str.splitlines among them): CR, LF, VT, FF,
# the file, group and record separators, NEL, and the line and paragraph separators
CSV_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# where a spreadsheet (or a reader that splits a cell's lines) may start a formula: the cell's start, or after any
# line or record break inside it (a bare CR too), before ``= + - @``, a tab or a carriage return
_FORMULA_START = re.compile(f"(?:^|(?<=[{CSV_BREAKS}]))(?=[=+\\-@\\t\\r])")
# a cell holding any of these is quoted: the delimiter, the quote, a tab, a formula's ``=``, any break
_CSV_QUOTED = re.compile(f'[,"\\t={CSV_BREAKS}]')


def csv_cell(value):
    """A CSV cell a spreadsheet will not run: wherever a formula could start (the cell's start, or after any line or
    record break inside it) before ``= + - @``, a tab or a carriage return, a leading apostrophe (OWASP's advice for
    CSV injection); anything else is unchanged."""
    if isinstance(value, str):
        return _FORMULA_START.sub("'", value)
    return value


def csv_field(value) -> str:
    """One field of a CSV record as written: a number as it is; nothing for a missing value; text made inert
    (:func:`csv_cell`) and quoted (its quotes doubled) when it holds the delimiter, a quote, a tab, an ``=``, any line
    or record break, or was made inert: no reader, splitting lines however it does, starts a record or a formula
    inside it."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, (bool, int, float)):
        return str(value)
    text = value if isinstance(value, str) else str(value)
    inert = csv_cell(text)
    if inert != text or _CSV_QUOTED.search(inert):
        return '"' + inert.replace('"', '""') + '"'
    return inert


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(value) -> str:
    """``value`` as text XML 1.0 can hold (ElementTree escapes ``< & "`` itself): the control characters
    it forbids, lone surrogates and U+FFFE/U+FFFF shown as ``\\x01``."""
    text = value if isinstance(value, str) else str(value)
    return _NOT_XML.sub(_visible, text)


def py_text(value, *, limit: int = MAX_TEXT) -> str:
    """``value`` as one line of a Python comment or docstring that cannot end it or become code: :func:`plain` (a
    newline shown as ``\\n``, control and invisible characters escaped), every backslash doubled (a docstring reads
    them as escapes), and a quote that would begin a run of three escaped."""
    text = plain(value, limit=limit).replace("\\", "\\\\")
    return re.sub(r'"(?="")', r'\\"', text)

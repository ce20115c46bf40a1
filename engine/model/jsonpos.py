"""Find the line where a value sits in JSON text, given its path.

Used only to report an error, so it walks the text once, lazily: values off
the path are skipped with the C JSON scanner (`raw_decode`), which keeps it
fast on large files.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]

_DECODER = json.JSONDecoder()
_WS = " \t\n\r"


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def offset_of(text: str, path: Sequence[str | int]) -> int:
    """Character offset of the value at `path` (or of its deepest existing parent)."""
    i = _skip_ws(text, 0)
    for step in path:
        if i >= len(text):
            break
        ch = text[i]
        if ch == "{" and isinstance(step, str):
            found = _find_key(text, i, step)
        elif ch == "[" and isinstance(step, int):
            found = _find_index(text, i, step)
        else:
            found = None
        if found is None:
            break
        i = found
    return i


def line_of(text: str, path: Sequence[str | int]) -> int:
    """1-based line of the value at `path` (or of its deepest existing parent)."""
    return text.count("\n", 0, offset_of(text, path)) + 1


def _find_key(text: str, i: int, key: str) -> int | None:
    i = _skip_ws(text, i + 1)
    while i < len(text) and text[i] == '"':
        name, i = scanstring(text, i + 1)
        i = _skip_ws(text, i)
        if i >= len(text) or text[i] != ":":
            return None
        i = _skip_ws(text, i + 1)
        if name == key:
            return i
        after = _past_value(text, i)
        if after is None:
            return None
        i = after
    return None


def _find_index(text: str, i: int, index: int) -> int | None:
    i = _skip_ws(text, i + 1)
    n = 0
    while i < len(text) and text[i] != "]":
        if n == index:
            return i
        after = _past_value(text, i)
        if after is None:
            return None
        i, n = after, n + 1
    return None


def _past_value(text: str, i: int) -> int | None:
    """Where the next member starts after the value at `i` (and its comma); None where the value is
    malformed, or a number Python refuses to read."""
    try:
        _, i = _DECODER.raw_decode(text, i)
    except ValueError:
        return None
    i = _skip_ws(text, i)
    if i < len(text) and text[i] == ",":
        i = _skip_ws(text, i + 1)
    return i

"""Spark's text patterns in Python: a LIKE pattern as a regular expression, a compiled RLIKE pattern, and a
Java replacement string (`regexp_replace`) as literal pieces and group numbers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from engine.sql.errors import SqlRuntimeError, UnsupportedSql


@lru_cache(maxsize=256)
def compiled_regex(pattern: str) -> re.Pattern[str]:
    """A compiled RLIKE or regexp_replace pattern; one that does not compile (from a column, say) fails the
    run in one line. Java's `\\w`, `\\d`, `\\s`, `\\b` and `(?i)` are ASCII's unless a pattern asks otherwise, and
    Python's Unicode's: compiled ASCII, `été` is no `^\\w+$` on either side."""
    try:
        return re.compile(pattern, re.ASCII)
    except re.error as exc:
        shown = pattern if len(pattern) <= 60 else f"{pattern[:57]}..."
        raise UnsupportedSql(f"invalid regular expression {shown!r}: {exc}") from None


def like_regex(pattern: str) -> str:
    """A LIKE pattern as a regex: `%` any text, `_` one character, a backslash escapes the next one."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
        i += 1
    return "".join(out)


def java_replacement(text: str, groups: int, names: Mapping[str, int]) -> list[str | int]:
    """A Java replacement string as literal pieces and group numbers; what Java's `appendReplacement` refuses
    (a `$` naming no group, a last backslash) is Spark's INVALID_REGEXP_REPLACE, an error of the row."""
    pieces: list[str | int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            if i + 1 == len(text):  # Java: "character to be escaped is missing"
                raise SqlRuntimeError("regexp_replace: the replacement ends in a backslash that quotes nothing")
            pieces.append(text[i + 1])
            i += 2
        elif char == "$" and text[i + 1:i + 2] == "{" and "}" in text[i + 2:]:
            name = text[i + 2:text.index("}", i + 2)]
            if name not in names:
                raise SqlRuntimeError(f"regexp_replace: no group named {name!r}")
            pieces.append(names[name])
            i += len(name) + 3
        elif char == "$" and text[i + 1:i + 2].isdigit():
            number, i = int(text[i + 1]), i + 2
            while i < len(text) and text[i].isdigit() and number * 10 + int(text[i]) <= groups:
                number, i = number * 10 + int(text[i]), i + 1
            if number > groups:
                raise SqlRuntimeError(f"regexp_replace: no group {number}")
            pieces.append(number)
        elif char == "$":
            raise SqlRuntimeError("regexp_replace: a $ in the replacement names no group")
        else:
            pieces.append(char)
            i += 1
    return pieces

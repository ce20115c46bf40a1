"""The JSON values of a `.json` file one after another, each with the line it starts on.

A Debezium capture saved as `.json` holds one event, a JSON array of events, or events printed one after
another the way Debezium's documentation prints them (objects over many lines, `{"schema":..., "payload":...}`
or the bare payload). Read a line at a time, such a file was one "not JSON" reject per line. Here
`json.JSONDecoder.raw_decode` reads successive values over the file's text; a top-level array gives its
elements. Each value comes back as its own text (bytes), so that both engines decode it as they decode a
line (`debezium.decode_event`): this module only finds where values start and end.

Text that is not JSON is one piece (a reject where it is decoded): from where it starts up to the next
line that starts, at its first character, with `{` or `[` (where a printed event starts), from which
reading goes on. A file that is not UTF-8 is read with its bad bytes kept as they are: the value holding
them is rejected for them, as a line would be.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Generator, Iterator

_DECODER = json.JSONDecoder()
_BLANK = re.compile(r"[ \t\r\n\f\v]*")
_NEXT_START = re.compile(r"\n(?=[\[{])")
"""Where reading resumes after text that is not JSON: a line whose first character opens a value."""


def json_values(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number from 1 where the value starts, the value's bytes) for each JSON value of `data`, the
    elements of a top-level array one by one; text that does not parse is one piece (see the module).

    The numbers go up from value to value: a value that starts on the line of the one before it (an array
    printed on one line) takes the next number. Both engines order a transaction's events without
    `total_order` by (file, line) and name an event without a transaction id by them: each must be its own.
    """
    last = 0
    for line, value in _pieces(data):
        last = max(line, last + 1)
        yield last, value


def _pieces(data: bytes) -> Iterator[tuple[int, bytes]]:
    text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8", "surrogateescape")
    lines = _LineCounter(text)
    pos = _skip(text, 0)
    while pos < len(text):
        pos = yield from (_array(text, pos, lines) if text[pos] == "[" else _value(text, pos, lines))
        pos = _skip(text, pos)


def _value(text: str, pos: int, lines: _LineCounter) -> Generator[tuple[int, bytes], None, int]:
    """The value at `pos` (or the text that is not one); where reading goes on after it."""
    try:
        end = _DECODER.raw_decode(text, pos)[1]
    except (ValueError, RecursionError):  # not JSON, an integer of more than 4,300 digits, nested too deep
        end = _resume(text, pos)
    yield lines.at(pos), _bytes(text[pos:end])
    return end


def _array(text: str, pos: int, lines: _LineCounter) -> Generator[tuple[int, bytes], None, int]:
    """The elements of the top-level array at `pos`, one by one; where reading goes on after it. Text in it
    that does not parse is one piece up to where reading resumes (`_resume`); an array the file ends in
    is one more piece, its `[` (at the line it opens on)."""
    opened, pos = pos, _skip(text, pos + 1)
    if text.startswith("]", pos):
        return pos + 1
    while pos < len(text):
        try:
            end = _DECODER.raw_decode(text, pos)[1]
        except (ValueError, RecursionError):
            end = _resume(text, pos)
            yield lines.at(pos), _bytes(text[pos:end])
            return end
        yield lines.at(pos), _bytes(text[pos:end])
        pos = _skip(text, end)
        if text.startswith("]", pos):
            return pos + 1
        if pos == len(text):
            break
        if not text.startswith(",", pos):
            end = _resume(text, pos)
            yield lines.at(pos), _bytes(text[pos:end])  # what stands where a comma or `]` should be
            return end
        pos = _skip(text, pos + 1)
    yield lines.at(opened), _bytes(text[opened])
    return pos


def _resume(text: str, pos: int) -> int:
    """Where reading goes on after text at `pos` that is not JSON: the next line that starts with `{` or
    `[`, else the end."""
    found = _NEXT_START.search(text, pos)
    return found.start() + 1 if found is not None else len(text)


def _bytes(value: str) -> bytes:
    """A piece of the text as the file's bytes (blanks after it dropped: a reject shows the piece)."""
    return value.rstrip(" \t\r\n\f\v").encode("utf-8", "surrogateescape")


def _skip(text: str, pos: int) -> int:
    match = _BLANK.match(text, pos)
    assert match is not None  # matches the empty string
    return match.end()


class _LineCounter:
    """Line numbers of positions in one text, asked in increasing order (counted once, as reading goes)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:  # never expected: reading only goes forward
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line

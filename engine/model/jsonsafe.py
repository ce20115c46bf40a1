"""Strict, bounded JSON reading for input files (models, schedules).

Python's `json` accepts what no other JSON reader does (`NaN`, `Infinity`,
`1e400` read as infinity, lone UTF-16 surrogates such as `"\\ud800"`), fails
on integers of more than 4,300 digits with a bare `ValueError`, and recurses
once per nesting level. `load_json` measures the nesting first (a fast scan
of the text, no recursion), refuses those values, and says where each
problem is as a path of keys and indexes; callers turn that into
`file:line field: message`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from engine.limits import MAX_INT_DIGITS, MAX_JSON_DEPTH

Path = tuple[str | int, ...]

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\[\]|\{\}")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]', re.S)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_RAW_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonLimitError(ValueError):
    """JSON that parses but that Mapwright refuses, with the path of the offending value."""

    def __init__(self, message: str, path: Path = ()) -> None:
        super().__init__(message)
        self.message, self.path = message, path


@dataclass(frozen=True)
class Opened:
    """An array or object open at some point of the text: its bracket, offset, and the step to its child."""

    kind: str
    offset: int
    step: str | int | None = None


class TooDeep(JsonLimitError):
    """Arrays and objects nested deeper than the limit. `opened` are the containers open where the
    limit is passed, outermost first; the last is the one that passes it."""

    def __init__(self, opened: tuple[Opened, ...], limit: int) -> None:
        path = tuple(o.step for o in opened[:-1] if o.step is not None)
        super().__init__(f"arrays and objects are nested more than {limit} deep", path)
        self.opened, self.limit = opened, limit

    @property
    def offset(self) -> int:
        return self.opened[-1].offset if self.opened else 0


class _BadNumber:
    """Stands in for a number the file may not hold, until its path is known."""

    def __init__(self, text: str, why: str) -> None:
        self.text, self.why = text, why


def nested_deeper_than(text: str, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` deep in JSON text. No recursion: strings are
    dropped, then each pass removes the innermost bracket pairs (a model takes about 7 passes)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(limit):
        shorter = _PAIR.sub("", brackets)
        if shorter == brackets:  # empty, or unbalanced (malformed JSON, which the parser reports)
            return False
        brackets = shorter
    return _PAIR.search(brackets) is not None


def opened_at_depth(text: str, limit: int) -> tuple[Opened, ...]:
    """The containers open where the nesting first passes `limit` (empty if it never does)."""
    stack: list[Opened] = []
    last_string = ""
    for match in _TOKEN.finditer(text):
        token = match.group()
        char = token[0]
        if char in "[{":
            stack.append(Opened(char, match.start(), 0 if char == "[" else None))
            if len(stack) > limit:
                return tuple(stack)
        elif char in "]}":
            if stack:
                stack.pop()
        elif char == ",":
            if stack and stack[-1].kind == "[" and isinstance(stack[-1].step, int):
                stack[-1] = Opened("[", stack[-1].offset, stack[-1].step + 1)
        elif char == ":":
            if stack and stack[-1].kind == "{":
                stack[-1] = Opened("{", stack[-1].offset, _key(last_string))
        else:
            last_string = token
    return ()


def _key(token: str) -> str:
    try:
        key = json.loads(token)
    except ValueError:
        return token.strip('"')
    return key if isinstance(key, str) else token


def load_json(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON text within the limits; raises `json.JSONDecodeError` or `JsonLimitError`."""
    if nested_deeper_than(text, max_depth):
        opened = opened_at_depth(text, max_depth)
        if opened:
            raise TooDeep(opened, max_depth)
    bad: list[_BadNumber] = []

    def refuse(number: str, why: str) -> _BadNumber:
        bad.append(_BadNumber(number, why))
        return bad[-1]

    def parse_int(s: str) -> Any:
        digits = len(s.lstrip("-"))
        if digits > MAX_INT_DIGITS:
            return refuse(s, f"an integer of {digits} digits is out of range (at most {MAX_INT_DIGITS})")
        return int(s)

    def parse_float(s: str) -> Any:
        value = float(s)
        return value if math.isfinite(value) else refuse(s, f"{_clip(s)} is out of range for a number")

    def parse_constant(s: str) -> Any:
        return refuse(s, f"{s} is not a number JSON allows")

    duplicated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicated
        out = dict(items)
        if len(out) == len(items):
            return out
        duplicated = True
        return _Duplicated(out, _first_repeated([k for k, _ in items]))

    try:
        data = json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant,
                          object_pairs_hook=pairs)
    except RecursionError:  # not reached when the scan above is right; kept so a miss is still one line
        raise TooDeep((), max_depth) from None
    if bad or duplicated or _SURROGATE_ESCAPE.search(text) or _RAW_SURROGATE.search(text):
        problem = first_unusable(data)
        if problem is not None:
            raise JsonLimitError(problem[1], problem[0])
    return data


def _first_repeated(keys: list[str]) -> str:
    """The first key of an object's that an earlier one already named."""
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    raise ValueError("no key is repeated")


class _Duplicated(dict[str, Any]):
    """An object that names a key twice (`twice`): the data is ambiguous, and is refused where it is."""

    def __init__(self, items: dict[str, Any], twice: str) -> None:
        super().__init__(items)
        self.twice = twice


def first_unusable(data: Any) -> tuple[Path, str] | None:
    """The first value, in document order, that no file can hold: a stand-in for a refused number, a
    string (value or key) with a lone surrogate, or an object naming a key twice. Iterative, so any depth
    is safe."""
    stack: list[tuple[Path, Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _BadNumber):
            return path, node.why
        if isinstance(node, str):
            why = unencodable(node)
            if why:
                return path, why
        elif isinstance(node, dict):
            if isinstance(node, _Duplicated):
                return (*path, node.twice), (f"the key {node.twice!r} is given twice in one object (JSON's readers "
                                             "keep one of them, silently; say it once)")
            for key in node:
                why = unencodable(key)
                if why:
                    return path, f"a key {why}"
            stack.extend(reversed([((*path, k), v) for k, v in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(node)]))
    return None


def unencodable(text: str) -> str | None:
    """Why `text` cannot be written as UTF-8 (a lone surrogate), or None when it can."""
    match = _RAW_SURROGATE.search(text)
    if match is None:
        return None
    return (f"cannot be encoded: it holds a lone UTF-16 surrogate \\u{ord(match.group()):04x} "
            f"at character {match.start() + 1} (names and values must be valid Unicode text)")


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."

"""Regular expressions that can backtrack exponentially (MP006): `(a+)+`, `(a*)*`, `(a|a)*`, `(\\d|\\w)+`.

Java's matcher, which Spark's RLIKE and regexp_* use, and Python's, which the reference uses, both try every
way a pattern can match before they give up on a row: a repeated group whose body can match one text in
several ways (a repetition inside it, or two alternatives that start alike) takes time exponential in the
length of a row that almost matches, and one such row stalls a run's task for hours. The check is the one
safe-regex and its kin make, a warning and not a proof: a repetition without an upper bound whose body
holds another repetition (star height above one), or whose alternatives can begin with the same character.
What cannot backtrack is not reported: a possessive quantifier (`a++`), an atomic group (`(?>...)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.sql.patterns import java_regex

REGEX_FUNCTIONS = (exp.RegexpLike, exp.RegexpILike, exp.RegexpExtract, exp.RegexpExtractAll, exp.RegexpReplace,
                   exp.RegexpSplit, exp.RegexpCount, exp.RegexpInstr, exp.RegexpSubstr, exp.RegexpFullMatch)
"""sqlglot's nodes of Spark's regular-expression functions; the pattern is each one's `expression`."""

_SAMPLES = [chr(c) for c in range(128)] + ["\u00e9", "\u00a0", "\u0301", "\u2028", "\u20ac", "\U0001d400"]
"""The characters whose sets are compared: ASCII and a few of every other kind a class may hold or not."""
_ANY = frozenset(range(len(_SAMPLES)))
_QUANTIFIER = re.compile(r"[*+?]|\{(\d+)(,(\d*))?\}")


@dataclass
class _Node:
    """A piece of a pattern: `atom` (one character of a set), `seq`, `alt`, `group`, `repeat` or `empty`
    (an anchor, a lookaround, a flag), with the span of the pattern it was read from."""

    kind: str
    start: int
    end: int = 0
    items: list[_Node] = field(default_factory=list)
    text: str = ""
    low: int = 1
    high: int | None = 1
    backtracks: bool = True  # False: a possessive quantifier, an atomic group


def pattern_literals(sql: str) -> list[str]:
    """The literal patterns of the regular-expression functions in a Spark SQL snippet ([] if it does not
    parse: MP003 and MP004 say so)."""
    try:
        tree = sqlglot.parse_one(sql, read="spark")
    except (SqlglotError, RecursionError):
        return []
    if tree is None:
        return []
    return [node.expression.this for node in tree.find_all(*REGEX_FUNCTIONS)
            if isinstance(node.expression, exp.Literal) and node.expression.is_string]


@lru_cache(maxsize=1024)
def backtracking_risk(pattern: str) -> str | None:
    """Why the Java regular expression `pattern` may backtrack exponentially (the part to rewrite, and how),
    or None. A pattern that does not compile is MP003's or MP004's, not reported here."""
    try:
        tree = _parse(pattern)
    except (ValueError, IndexError):
        return None
    for node in _walk(tree):
        if node.kind != "repeat" or node.high is not None or not node.backtracks:
            continue
        shown = pattern[node.start:node.end]
        inner = next((n for n in _walk(node.items[0], atomic_stops=True) if n is not node.items[0]
                      and n.kind == "repeat" and (n.high is None or n.high > 1) and n.backtracks
                      and not _can_be_empty(n.items[0])), None)
        if inner is not None:
            return (f"{_cut(shown)!r} repeats a group that repeats {_cut(pattern[inner.start:inner.end])!r} itself "
                    "(nested quantifiers)")
        alternatives = _alternatives(node.items[0])
        for i, first in enumerate(alternatives):
            for second in alternatives[i + 1:]:
                if _first(first) & _first(second):
                    return (f"{_cut(shown)!r} repeats alternatives that can begin with the same character "
                            f"({_cut(pattern[first.start:first.end])!r}, {_cut(pattern[second.start:second.end])!r})")
    return None


def _cut(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _walk(node: _Node, atomic_stops: bool = False) -> list[_Node]:
    """`node` and every node under it (not under an atomic group or a possessive repeat, with `atomic_stops`)."""
    out, stack = [], [node]
    while stack:
        item = stack.pop()
        out.append(item)
        if atomic_stops and not item.backtracks:
            continue
        stack.extend(reversed(item.items))
    return out


def _alternatives(node: _Node) -> list[_Node]:
    while node.kind in ("group", "seq") and len(node.items) == 1 and node.backtracks:
        node = node.items[0]
    return node.items if node.kind == "alt" else []


def _can_be_empty(node: _Node) -> bool:
    if node.kind == "atom":
        return False
    if node.kind == "empty":
        return True
    if node.kind == "repeat":
        return node.low == 0 or _can_be_empty(node.items[0])
    if node.kind == "alt":
        return any(_can_be_empty(n) for n in node.items)
    return all(_can_be_empty(n) for n in node.items)  # seq, group


def _first(node: _Node) -> frozenset[int]:
    """The sample characters a match of `node` can begin with."""
    if node.kind == "atom":
        return _matches(node.text)
    if node.kind == "empty":
        return frozenset()
    if node.kind in ("repeat", "group"):
        return _first(node.items[0])
    if node.kind == "alt":
        return frozenset().union(*(_first(n) for n in node.items))
    found: frozenset[int] = frozenset()
    for item in node.items:  # seq
        found |= _first(item)
        if not _can_be_empty(item):
            break
    return found


@lru_cache(maxsize=4096)
def _matches(atom: str) -> frozenset[int]:
    """The samples one character of `atom` (a literal, `.`, a class, an escape) matches; all of them when it
    is something the check does not read (a back reference)."""
    try:
        compiled = re.compile(java_regex(atom), re.ASCII | re.DOTALL)
    except (re.error, ValueError):
        return _ANY
    return frozenset(i for i, sample in enumerate(_SAMPLES) if compiled.fullmatch(sample))


def _parse(pattern: str) -> _Node:
    """`pattern` as a tree of `_Node`s (Java's syntax; what it does not read raises ValueError)."""
    root = _Node("group", 0)
    stack = [(root, [_Node("seq", 0)])]  # open groups, each with its alternatives so far
    i = 0
    while i < len(pattern):
        group, alternatives = stack[-1]
        seq, char = alternatives[-1], pattern[i]
        if char == "(":
            i = _open_group(pattern, i, stack, seq)
        elif char == ")":
            if len(stack) == 1:
                raise ValueError("unbalanced")
            _close_group(group, alternatives, i + 1, paren=True)
            stack.pop()
            i += 1
        elif char == "|":
            seq.end = i
            alternatives.append(_Node("seq", i + 1))
            i += 1
        elif _QUANTIFIER.match(pattern, i) and seq.items and seq.items[-1].kind != "empty":
            i = _quantify(pattern, i, seq)
        else:
            i = _atom(pattern, i, seq)
    if len(stack) != 1:
        raise ValueError("unbalanced")
    _close_group(root, stack[0][1], len(pattern), paren=False)
    return root


def _open_group(pattern: str, i: int, stack: list[tuple[_Node, list[_Node]]], seq: _Node) -> int:
    flags = re.compile(r"\(\?[a-zA-Z-]*\)").match(pattern, i)
    if flags:  # (?i): no group
        seq.items.append(_Node("empty", i, flags.end()))
        return flags.end()
    opener = re.compile(r"\((\?(<[a-zA-Z][a-zA-Z0-9]*>|[a-zA-Z-]*:|[=!>]|<[=!]))?").match(pattern, i)
    assert opener is not None
    kind = opener.group(1) or ""
    node = _Node("empty" if kind in ("?=", "?!", "?<=", "?<!") else "group", i, backtracks=kind != "?>")
    seq.items.append(node)
    stack.append((node, [_Node("seq", opener.end())]))
    return opener.end()


def _close_group(group: _Node, alternatives: list[_Node], end: int, paren: bool) -> None:
    alternatives[-1].end = end - 1 if paren else end
    body = alternatives[0] if len(alternatives) == 1 else _Node("alt", alternatives[0].start, alternatives[-1].end,
                                                                alternatives)
    group.items, group.end = [body], end


def _quantify(pattern: str, i: int, seq: _Node) -> int:
    match = _QUANTIFIER.match(pattern, i)
    assert match is not None
    token = match.group(0)
    low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}.get(token, (0, 0))
    if token.startswith("{"):
        low = int(match.group(1))
        high = low if match.group(2) is None else (int(match.group(3)) if match.group(3) else None)
    end = match.end()
    possessive = pattern[end:end + 1] == "+"
    if pattern[end:end + 1] in ("+", "?"):
        end += 1
    target = seq.items.pop()
    seq.items.append(_Node("repeat", target.start, end, [target], low=low, high=high, backtracks=not possessive))
    return end


def _atom(pattern: str, i: int, seq: _Node) -> int:
    char = pattern[i]
    if char in "^$":
        seq.items.append(_Node("empty", i, i + 1))
        return i + 1
    if char == "[":
        end = _class_end(pattern, i)
    elif char == "\\":
        code = pattern[i + 1]
        if code == "Q":  # quoted text: each character an atom
            close = pattern.find("\\E", i + 2)
            close = len(pattern) if close < 0 else close
            for j in range(i + 2, close):
                seq.items.append(_Node("atom", j, j + 1, text=re.escape(pattern[j])))
            return min(close + 2, len(pattern))
        if code in "bBAzZG":
            seq.items.append(_Node("empty", i, i + 2))
            return i + 2
        braced = re.compile(r"\\([pPxN]\{[^}]*\}|[pP][A-Za-z]|0[0-7]{1,3}|c.|k<[^>]*>|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|"
                            r"[1-9][0-9]*|.)", re.DOTALL).match(pattern, i)
        assert braced is not None
        end = braced.end()
        if code in "123456789k":  # a back reference: any text
            seq.items.append(_Node("atom", i, end, text="."))
            return end
    else:
        end = i + 1
    seq.items.append(_Node("atom", i, end, text=pattern[i:end]))
    return end


def _class_end(pattern: str, i: int) -> int:
    """The index after the class opening at `i` (nested classes, escapes and a first `]` included)."""
    depth, j = 0, i
    while j < len(pattern):
        char = pattern[j]
        if char == "\\":
            j += 2
            continue
        if char == "[":
            depth += 1
            j += 1
            if pattern[j:j + 1] == "^":
                j += 1
            if pattern[j:j + 1] == "]":
                j += 1
            continue
        if char == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise ValueError("unterminated class")

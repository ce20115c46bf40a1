"""Text in the reference evaluator: matching (LIKE, ILIKE, RLIKE, regexp_replace), concatenation, case,
substrings, search, padding and trimming, with Spark's semantics for each (`scalars` computes the newer
functions' values, `patterns` translates Java's regular expressions)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from engine.sql import casts, scalars
from engine.sql.errors import SqlRuntimeError
from engine.sql.folding import reads_a_column
from engine.sql.operands import Handler, RowEvaluator, operands, text_of, written
from engine.sql.patterns import compiled_regex, java_matches, java_replacement, like_regex


def _like(case_insensitive: bool) -> Handler:
    """LIKE and ILIKE; sqlglot reads `NOT LIKE` as a LIKE with `negate` set, not as a NOT around it."""
    def run(ev: RowEvaluator, node: exp.Binary) -> bool | None:
        pair = operands(ev, node)
        if pair is None:
            return None
        value, pattern = pair
        text, pattern = text_of(value), str(pattern)
        if case_insensitive:  # Spark's ILIKE is LIKE of both sides lowered (`ſ` is no `s`, `ı` no `I`)
            text, pattern = text.lower(), pattern.lower()
        matches = re.fullmatch(like_regex(pattern), text, re.S) is not None
        return not matches if node.args.get("negate") else matches
    return run


def _rlike(ev: RowEvaluator, node: exp.RegexpLike) -> bool | None:
    pair = operands(ev, node)
    if pair is None:
        return None
    value, pattern = pair
    text = text_of(value)
    return compiled_regex(str(pattern), text=text).search(text) is not None


def _regexp_replace(ev: RowEvaluator, node: exp.RegexpReplace) -> Any:
    """`regexp_replace(text, pattern, replacement[, position])`: every match from `position` (1 by
    default) on is replaced; `$1` and `${name}` in the replacement are groups, a backslash quotes the
    next character (Java's rules, which Spark follows)."""
    text, pattern = ev.eval(node.this), ev.eval(node.expression)
    replacement = ev.eval(node.args["replacement"]) if node.args.get("replacement") is not None else ""
    position = ev.eval(node.args["position"]) if node.args.get("position") is not None else 1
    if text is None or pattern is None or replacement is None or position is None:
        return None
    if int(position) < 1:
        raise SqlRuntimeError(f"regexp_replace position {position} is not positive")
    value, begin = text_of(text), int(position) - 1
    if begin and begin >= len(value):  # Spark searches from the first position even in empty text
        return value
    region = value[begin:]  # Spark's matcher: the region from begin on, whose `$` still sees a `\r` before it
    regex = compiled_regex(str(pattern), begin > 0 and value[begin - 1] == "\r", text=region)
    matches = java_matches(regex, region)
    if not matches:  # Java reads the replacement at a match only: no match, no error
        return value
    pieces = java_replacement(text_of(replacement), regex.groups, regex.groupindex)
    out, done = [value[:begin]], 0
    for match in matches:
        out.append(region[done:match.start()])
        out.extend(p if isinstance(p, str) else (match.group(p) or "") for p in pieces)
        done = match.end()
    out.append(region[done:])
    return "".join(out)


def _concat(ev: RowEvaluator, node: exp.Expression) -> Any:
    """NULL at the first NULL part, whose followers are then never evaluated: Spark's generated code stops
    there (`s || cast(t as bigint)` is NULL where `s` is, whatever `t`). Its interpreted path evaluates every
    part and fails on such a `t`; a run whose Spark fails on a row is computed again by the reference, so a
    run gives this value either way."""
    parts = []
    for child in node.expressions:
        value = ev.eval(child)
        if value is None:
            return None
        parts.append(value)
    return "".join(text_of(p) for p in parts)


def _dpipe(ev: RowEvaluator, node: exp.DPipe) -> Any:
    a = ev.eval(node.this)
    if a is None:  # as `_concat`: the right side is never evaluated
        return None
    b = ev.eval(node.expression)
    return None if b is None else text_of(a) + text_of(b)


def _concat_ws(ev: RowEvaluator, node: exp.ConcatWs) -> Any:
    values = ev.args(node)
    if not values or values[0] is None:
        return None
    return text_of(values[0]).join(text_of(v) for v in values[1:] if v is not None)


def _case_conversion(ev: RowEvaluator, node: exp.Func, convert: Callable[[str], str]) -> Any:
    """upper/lower of the innermost operand of a chain of them, as Spark's optimizer simplifies it
    (SimplifyCaseConversionExpressions: `lower(upper(x))` is `lower(x)`, which differs for 'ß'). A chain
    that reads no column is a constant, folded whole first (ConstantFolding): every step applies."""
    inner = node.this
    if not reads_a_column(node):
        value = ev.eval(inner)
        return None if value is None else convert(text_of(value))
    while isinstance(inner, (exp.Upper, exp.Lower, exp.Paren)):
        inner = inner.this
    value = ev.eval(inner)
    return None if value is None else convert(text_of(value))


def _text_fn(fn: Callable[[str], Any]) -> Handler:
    def run(ev: RowEvaluator, node: exp.Func) -> Any:
        value = ev.eval(node.this)
        return None if value is None else fn(text_of(value))
    return run


def _substring(ev: RowEvaluator, node: exp.Substring) -> Any:
    value = ev.eval(node.this)
    if value is None:
        return None
    start = ev.eval(node.args["start"]) if node.args.get("start") is not None else 1
    length = ev.eval(node.args["length"]) if node.args.get("length") is not None else None
    if value is None or start is None or (node.args.get("length") is not None and length is None):
        return None
    return spark_substring(text_of(value), int(start), None if length is None else int(length))


def spark_substring(text: str, pos: int, length: int | None) -> str:
    """Spark's `substring(text, pos, length)`: positions count from 1, 0 counts as 1, a negative one
    from the end; the window is cut to the text, so `substring('abc', -5, 3)` is 'a'."""
    begin = pos - 1 if pos > 0 else len(text) + pos if pos < 0 else 0
    end = len(text) if length is None else begin + length
    begin = max(begin, 0)
    return text[begin:end] if begin < end else ""


def _text_test(test: Callable[[str, str], bool]) -> Handler:
    """`startswith`, `endswith`, `contains`: NULL when either is; numbers are read as their text."""
    def run(ev: RowEvaluator, node: exp.Binary) -> Any:
        pair = operands(ev, node)
        return None if pair is None else test(text_of(pair[0]), text_of(pair[1]))
    return run


def _str_position(ev: RowEvaluator, node: exp.StrPosition) -> Any:
    """`instr(s, sub)` (Spark is given INSTR: `s` first, a NULL one leaves `sub` unevaluated) and
    `locate(sub, s[, pos])`, `position(sub IN s)` (LOCATE: the position first, a NULL one is 0; then `sub`,
    then `s`)."""
    if written(node) == "instr":
        value = ev.eval(node.this)
        if value is None:
            return None
        sub = ev.eval(node.args["substr"])
        return None if sub is None else scalars.locate(text_of(sub), text_of(value), 1)
    given = node.args.get("position")
    position = ev.eval(given) if given is not None else 1
    if position is None:
        return 0
    sub = ev.eval(node.args["substr"])
    if sub is None:
        return None
    value = ev.eval(node.this)
    if value is None:
        return None
    return scalars.locate(text_of(sub), text_of(value), int(casts.cast_to(position, "INT")))


def _pad(ev: RowEvaluator, node: exp.Pad) -> Any:
    """`lpad`/`rpad(s, length[, pad])`, the pad a space by default; NULL when any is."""
    fill_node = node.args.get("fill_pattern")
    values = [ev.eval(node.this), ev.eval(node.expression), ev.eval(fill_node) if fill_node is not None else " "]
    if any(v is None for v in values):
        return None
    text, length, fill = values
    return scalars.pad(text_of(text), int(casts.cast_to(length, "INT")), text_of(fill), bool(node.args.get("is_left")))


def _trim(ev: RowEvaluator, node: exp.Trim) -> Any:
    """`trim`, `ltrim`, `rtrim`: spaces only (not tabs), as Spark's."""
    value = ev.eval(node.this)
    if value is None:
        return None
    text, side = text_of(value), node.args.get("position")
    return text.lstrip(" ") if side == "LEADING" else text.rstrip(" ") if side == "TRAILING" else text.strip(" ")


def _replace(ev: RowEvaluator, node: exp.Replace) -> Any:
    """`replace(s, search[, replacement])`, the replacement '' by default; NULL when any is."""
    given = node.args.get("replacement")
    values = [ev.eval(node.this), ev.eval(node.expression), ev.eval(given) if given is not None else ""]
    if any(v is None for v in values):
        return None
    return scalars.replace(*(text_of(v) for v in values))


def _left(ev: RowEvaluator, node: exp.Left) -> Any:
    """`left(s, n)`: Spark's `substring(s, 1, n)`."""
    pair = operands(ev, node)
    return None if pair is None else spark_substring(text_of(pair[0]), 1, int(casts.cast_to(pair[1], "INT")))


def _right(ev: RowEvaluator, node: exp.Right) -> Any:
    """`right(s, n)`: Spark's `if(isnull(s), NULL, if(n <= 0, '', substring(s, -n)))`."""
    pair = operands(ev, node)
    if pair is None:
        return None
    length = int(casts.cast_to(pair[1], "INT"))
    return "" if length <= 0 else spark_substring(text_of(pair[0]), -length, None)


HANDLERS: dict[type[exp.Expr], Handler] = {
    exp.Like: _like(False),
    exp.ILike: _like(True),
    exp.RegexpLike: _rlike,
    exp.RegexpReplace: _regexp_replace,
    exp.Concat: _concat,
    exp.DPipe: _dpipe,
    exp.ConcatWs: _concat_ws,
    exp.Upper: lambda ev, n: _case_conversion(ev, n, str.upper),
    exp.Lower: lambda ev, n: _case_conversion(ev, n, str.lower),
    exp.Trim: _trim,
    exp.Length: _text_fn(len),
    exp.Substring: _substring,
    exp.StartsWith: _text_test(str.startswith),
    exp.EndsWith: _text_test(str.endswith),
    exp.Contains: _text_test(lambda text, part: part in text),
    exp.StrPosition: _str_position,
    exp.Pad: _pad,
    exp.Replace: _replace,
    exp.Left: _left,
    exp.Right: _right,
    exp.Reverse: _text_fn(lambda text: text[::-1]),
    exp.Initcap: _text_fn(scalars.initcap),
}

"""A small evaluator of Spark SQL scalar expressions over one row, on sqlglot's syntax tree.

Used for `where` clauses and `expression` methods in the pure-Python
reference. It follows SQL's three-valued logic (NULL propagates; `AND`/`OR`
know that `FALSE AND NULL` is FALSE), which sqlglot's own Python executor
does not (it evaluates `NULL <> 'x'` as true). Nothing is passed to `eval`.
Expressions outside the supported subset raise `UnsupportedSql`, so a run
fails loudly instead of guessing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.limits import MAX_SQL_DEPTH
from engine.model.types import SqlType, TypeError_, parse_type
from engine.run.values import cast_value, compare, parse_timestamp, to_text
from engine.sql import limit_problem, tree_depth


class UnsupportedSql(ValueError):
    """An expression that does not parse, or uses a construct the reference does not evaluate."""


@lru_cache(maxsize=4096)
def parse_sql(text: str) -> exp.Expression:
    """Parse one Spark SQL scalar expression; raises `UnsupportedSql`.

    The text is measured before sqlglot sees it and the tree after, within the limits loading
    enforces (`engine.sql`), so neither the parser nor `Evaluator.eval` recurse past the stack.
    """
    problem = limit_problem(text)
    if problem:
        raise UnsupportedSql(f"{_clip(text)} {problem}")
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except SqlglotError as exc:
        raise UnsupportedSql(f"does not parse: {_clip(text)}: {str(exc).splitlines()[0]}") from None
    except RecursionError:  # not reached within the limits above; kept so a miss still fails in one line
        raise UnsupportedSql(f"{_clip(text)} is nested too deeply to read") from None
    if not isinstance(tree, exp.Expression):
        raise UnsupportedSql("empty expression")
    depth = tree_depth(tree)
    if depth > MAX_SQL_DEPTH:
        raise UnsupportedSql(f"{_clip(text)} is nested too deeply: {depth} levels once parsed "
                             f"(at most {MAX_SQL_DEPTH})")
    return tree


def _clip(text: str) -> str:
    return repr(text if len(text) <= 60 else f"{text[:57]}...")


def evaluate_sql(text: str, row: Mapping[str, Any], now: datetime | None = None) -> Any:
    """The value of `text` on `row` (column name -> value; a missing column is NULL)."""
    return Evaluator(row, now).eval(parse_sql(text))


def predicate_holds(text: str, row: Mapping[str, Any], now: datetime | None = None) -> bool:
    """A `where` clause on a row: only TRUE holds; FALSE and NULL do not."""
    return evaluate_sql(text, row, now) is True


def _column(row: Mapping[str, Any], name: str) -> Any:
    """A column's value; identifiers are case-insensitive, a column the row lacks is NULL."""
    if name in row:
        return row[name]
    return next((v for k, v in row.items() if k.lower() == name.lower()), None)


class Evaluator:
    """Evaluates one tree against one row."""

    def __init__(self, row: Mapping[str, Any], now: datetime | None = None) -> None:
        self.row, self.now = row, now

    def eval(self, node: exp.Expression) -> Any:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise UnsupportedSql(f"the reference does not evaluate {node.key.upper()}: {node.sql('spark')}")
        return handler(self, node)

    def args(self, node: exp.Expression) -> list[Any]:
        return [self.eval(e) for e in node.expressions]


def _literal(ev: Evaluator, node: exp.Literal) -> Any:
    if node.is_string:
        return node.this
    text = node.this
    try:
        return int(text) if re.fullmatch(r"[+-]?\d+", text) else Decimal(text)
    except InvalidOperation:
        return float(text)


def _compare_op(test: Callable[[int], bool]) -> Callable[[Evaluator, exp.Binary], bool | None]:
    def run(ev: Evaluator, node: exp.Binary) -> bool | None:
        order = _order(ev.eval(node.this), ev.eval(node.expression))
        return None if order is None else test(order)
    return run


def _order(a: Any, b: Any) -> int | None:
    """SQL comparison with Spark's implicit casts: text meets number or timestamp by parsing the text."""
    if a is None or b is None:
        return None
    a, b = _coerce_pair(a, b)
    return compare(a, b)


def _coerce_pair(a: Any, b: Any) -> tuple[Any, Any]:
    for x, y, swap in ((a, b, False), (b, a, True)):
        if isinstance(x, str) and not isinstance(y, str):
            converted: Any = None
            try:
                if isinstance(y, datetime):
                    converted = parse_timestamp(x)
                elif isinstance(y, bool):
                    converted = x.strip().lower() == "true" if x.strip().lower() in ("true", "false") else None
                elif isinstance(y, (int, float, Decimal)):
                    converted = Decimal(x.strip())
            except (ValueError, InvalidOperation):
                converted = None
            if converted is None:
                return a, b
            return (y, converted) if swap else (converted, y)
    return a, b


def _kleene(stop: bool) -> Callable[[Evaluator, exp.Binary], bool | None]:
    """AND (stop=False) and OR (stop=True) in three-valued logic: `stop` on either side decides."""
    def run(ev: Evaluator, node: exp.Binary) -> bool | None:
        left = ev.eval(node.this)
        if left is not stop:
            right = ev.eval(node.expression)
            if right is not stop:
                return None if left is None or right is None else not stop
        decided: bool = stop
        return decided
    return run


def _not(ev: Evaluator, node: exp.Not) -> bool | None:
    value = ev.eval(node.this)
    return None if value is None else not value


def _is(ev: Evaluator, node: exp.Is) -> bool:
    value = ev.eval(node.this)
    target = node.expression
    if isinstance(target, exp.Null):
        return value is None
    if isinstance(target, exp.Boolean):
        return value is target.this
    raise UnsupportedSql(f"IS {target.sql('spark')}")


def _in(ev: Evaluator, node: exp.In) -> bool | None:
    if node.args.get("query") is not None:
        raise UnsupportedSql("IN with a subquery")
    value = ev.eval(node.this)
    if value is None:
        return None
    saw_null = False
    for item in node.expressions:
        order = _order(value, ev.eval(item))
        if order == 0:
            return True
        saw_null = saw_null or order is None
    return None if saw_null else False


def _between(ev: Evaluator, node: exp.Between) -> bool | None:
    value = ev.eval(node.this)
    low, high = _order(value, ev.eval(node.args["low"])), _order(value, ev.eval(node.args["high"]))
    if low is not None and low < 0 or high is not None and high > 0:
        return False
    return None if low is None or high is None else True


def _like(case_insensitive: bool) -> Callable[[Evaluator, exp.Binary], bool | None]:
    def run(ev: Evaluator, node: exp.Binary) -> bool | None:
        value, pattern = ev.eval(node.this), ev.eval(node.expression)
        if value is None or pattern is None:
            return None
        flags = re.S | (re.I if case_insensitive else 0)
        return re.fullmatch(_like_regex(str(pattern)), to_text(value) or "", flags) is not None
    return run


def _like_regex(pattern: str) -> str:
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


def _rlike(ev: Evaluator, node: exp.RegexpLike) -> bool | None:
    value, pattern = ev.eval(node.this), ev.eval(node.expression)
    if value is None or pattern is None:
        return None
    return _regex(str(pattern)).search(to_text(value) or "") is not None


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    """A compiled RLIKE pattern; one that does not compile (from a column, say) fails the run in one line."""
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise UnsupportedSql(f"invalid regular expression {_clip(pattern)} in RLIKE: {exc}") from None


def _arith(op: Callable[[Any, Any], Any]) -> Callable[[Evaluator, exp.Binary], Any]:
    def run(ev: Evaluator, node: exp.Binary) -> Any:
        a, b = ev.eval(node.this), ev.eval(node.expression)
        if a is None or b is None:
            return None
        a, b = _number(a), _number(b)
        if a is None or b is None:
            return None
        if isinstance(a, float) or isinstance(b, float):
            a, b = float(a), float(b)
        elif isinstance(a, Decimal) or isinstance(b, Decimal):
            a, b = Decimal(a), Decimal(b)
        try:
            return op(a, b)
        except (ZeroDivisionError, InvalidOperation):
            return None  # Spark without ANSI mode: division by zero is NULL
    return run


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        return value
    if isinstance(value, str):
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            return None
    return None


def _divide(a: Any, b: Any) -> Any:
    """Spark's `/`: integers give a double, decimals a decimal; by zero, NULL."""
    return None if b == 0 else a / b


def _int_divide(a: Any, b: Any) -> Any:
    return None if b == 0 else int((Decimal(a) / Decimal(b)).to_integral_value(rounding=ROUND_DOWN))


def _modulo(a: Any, b: Any) -> Any:
    if b == 0:
        return None
    if isinstance(a, float) or isinstance(b, float):
        return math.fmod(a, b)
    rest = Decimal(a) % Decimal(b)
    return rest if isinstance(a, Decimal) or isinstance(b, Decimal) else int(rest)


def _neg(ev: Evaluator, node: exp.Neg) -> Any:
    value = _number(ev.eval(node.this))
    return None if value is None else -value


def _concat(ev: Evaluator, node: exp.Expression) -> Any:
    parts = ev.args(node)
    if any(p is None for p in parts):
        return None
    return "".join(to_text(p) or "" for p in parts)


def _dpipe(ev: Evaluator, node: exp.DPipe) -> Any:
    a, b = ev.eval(node.this), ev.eval(node.expression)
    return None if a is None or b is None else (to_text(a) or "") + (to_text(b) or "")


def _concat_ws(ev: Evaluator, node: exp.ConcatWs) -> Any:
    values = ev.args(node)
    if not values or values[0] is None:
        return None
    return str(values[0]).join(to_text(v) or "" for v in values[1:] if v is not None)


def _coalesce(ev: Evaluator, node: exp.Coalesce) -> Any:
    for child in [node.this, *node.expressions]:
        value = ev.eval(child)
        if value is not None:
            return value
    return None


def _case(ev: Evaluator, node: exp.Case) -> Any:
    subject = node.this
    base = ev.eval(subject) if subject is not None else None
    for branch in node.args.get("ifs") or []:
        cond = branch.this
        hit = _order(base, ev.eval(cond)) == 0 if subject is not None else ev.eval(cond) is True
        if hit:
            return ev.eval(branch.args["true"])
    default = node.args.get("default")
    return ev.eval(default) if default is not None else None


def _if(ev: Evaluator, node: exp.If) -> Any:
    if ev.eval(node.this) is True:
        return ev.eval(node.args["true"])
    other = node.args.get("false")
    return ev.eval(other) if other is not None else None


def _text_fn(fn: Callable[[str], Any]) -> Callable[[Evaluator, exp.Func], Any]:
    def run(ev: Evaluator, node: exp.Func) -> Any:
        value = ev.eval(node.this)
        return None if value is None else fn(to_text(value) or "")
    return run


def _substring(ev: Evaluator, node: exp.Substring) -> Any:
    value = ev.eval(node.this)
    start = ev.eval(node.args["start"]) if node.args.get("start") is not None else 1
    length = ev.eval(node.args["length"]) if node.args.get("length") is not None else None
    if value is None or start is None or (node.args.get("length") is not None and length is None):
        return None
    text = to_text(value) or ""
    begin = int(start) - 1 if int(start) > 0 else max(len(text) + int(start), 0)
    return text[begin:] if length is None else text[begin:begin + max(int(length), 0)]


def _abs(ev: Evaluator, node: exp.Abs) -> Any:
    value = _number(ev.eval(node.this))
    return None if value is None else abs(value)


def _round(ev: Evaluator, node: exp.Round) -> Any:
    value = _number(ev.eval(node.this))
    digits = ev.eval(node.args["decimals"]) if node.args.get("decimals") is not None else 0
    if value is None or digits is None:
        return None
    rounded = Decimal(str(value)).quantize(Decimal(1).scaleb(-int(digits)), rounding=ROUND_HALF_UP)
    return float(rounded) if isinstance(value, float) else (int(rounded) if isinstance(value, int) else rounded)


def _cast(ev: Evaluator, node: exp.Cast) -> Any:
    value = ev.eval(node.this)
    return cast_value(value, _sql_type(node.to))


_SPARK_TYPES = {"TEXT": "VARCHAR(2147483647)", "VARCHAR": "VARCHAR(2147483647)", "CHAR": "VARCHAR(2147483647)",
                "TINYINT": "SMALLINT", "DOUBLE": "DOUBLE", "FLOAT": "REAL", "TIMESTAMPTZ": "TIMESTAMP",
                "TIMESTAMPNTZ": "TIMESTAMP", "DATETIME": "TIMESTAMP", "BINARY": "VARBINARY(2147483647)"}


def _sql_type(data_type: exp.DataType) -> SqlType:
    name = data_type.this.name if hasattr(data_type.this, "name") else str(data_type.this)
    params = [p.sql("spark") for p in data_type.expressions]
    text = _SPARK_TYPES.get(name, name)
    if params and name not in _SPARK_TYPES:
        text = f"{name}({','.join(params)})"
    try:
        return parse_type(text)
    except TypeError_:
        raise UnsupportedSql(f"CAST to {data_type.sql('spark')}") from None


def _now(ev: Evaluator, node: exp.Expression) -> Any:
    if ev.now is None:
        raise UnsupportedSql(f"{node.sql('spark')} has no time here")
    return ev.now


_HANDLERS: dict[type[exp.Expression], Callable[[Evaluator, Any], Any]] = {
    exp.Column: lambda ev, n: _column(ev.row, n.name),
    exp.Literal: _literal,
    exp.Null: lambda ev, n: None,
    exp.Boolean: lambda ev, n: bool(n.this),
    exp.Paren: lambda ev, n: ev.eval(n.this),
    exp.And: _kleene(False),
    exp.Or: _kleene(True),
    exp.Not: _not,
    exp.EQ: _compare_op(lambda o: o == 0),
    exp.NEQ: _compare_op(lambda o: o != 0),
    exp.GT: _compare_op(lambda o: o > 0),
    exp.GTE: _compare_op(lambda o: o >= 0),
    exp.LT: _compare_op(lambda o: o < 0),
    exp.LTE: _compare_op(lambda o: o <= 0),
    exp.NullSafeEQ: lambda ev, n: (lambda a, b: a is None and b is None or (
        a is not None and b is not None and _order(a, b) == 0))(ev.eval(n.this), ev.eval(n.expression)),
    exp.Is: _is,
    exp.In: _in,
    exp.Between: _between,
    exp.Like: _like(False),
    exp.ILike: _like(True),
    exp.RegexpLike: _rlike,
    exp.Add: _arith(lambda a, b: a + b),
    exp.Sub: _arith(lambda a, b: a - b),
    exp.Mul: _arith(lambda a, b: a * b),
    exp.Div: _arith(_divide),
    exp.IntDiv: _arith(_int_divide),
    exp.Mod: _arith(_modulo),
    exp.Neg: _neg,
    exp.Concat: _concat,
    exp.DPipe: _dpipe,
    exp.ConcatWs: _concat_ws,
    exp.Coalesce: _coalesce,
    exp.Case: _case,
    exp.If: _if,
    exp.Upper: _text_fn(str.upper),
    exp.Lower: _text_fn(str.lower),
    exp.Trim: _text_fn(str.strip),
    exp.Length: _text_fn(len),
    exp.Substring: _substring,
    exp.Abs: _abs,
    exp.Round: _round,
    exp.Cast: _cast,
    exp.TryCast: _cast,
    exp.CurrentTimestamp: _now,
}

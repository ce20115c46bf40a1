"""The reference evaluator of Spark SQL scalar expressions over one row, on sqlglot's syntax tree.

Used for `where` clauses and `expression` methods in the pure-Python
reference. It evaluates exactly the allow-list (`engine.sql.allowlist`) with
Spark's ANSI semantics (`spark.sql.ansi.enabled`, which the pipeline sets):
SQL's three-valued logic (NULL propagates; `FALSE AND NULL` is FALSE, which
sqlglot's own executor gets wrong), division and remainder by zero, a `cast`
of text that is not a number and an integer cast that overflows are errors
(`SqlRuntimeError`), `try_cast` gives NULL instead, `substring` counts
positions as Spark does (0 is 1, negatives from the end), `trim` takes off
spaces only, and text meets a number by an exact cast of the text. The
functions added later (NULL tests, greatest/least, floor/ceil/sign, date
parts and arithmetic, text search and padding) compute their values in
`scalars`; `isnull`, `isnotnull`, `nvl2` and `nullif` are replaced by the
expressions Spark replaces them by (`_as_spark_replaces`), so that they fold
as Spark folds them.
Nothing is passed to `eval`. Expressions outside the allow-list raise
`UnsupportedSql`, so a run fails loudly instead of guessing.

A DECIMAL quotient is rounded to the scale Spark's type of it has, where
the row's column types tell it (`decimals`). A DOUBLE or FLOAT becomes text
as the JVM writes it (`1.0E10`, `casts.sql_text`), a FLOAT is 32 bits
(`floats.Float32`), DATE and TIMESTAMP casts read text as Spark does
(`datetimes`). A Python error on a row (an overflow, a domain error) is that
row's `SqlRuntimeError`, never a crash. Not modelled: the scale of a
DECIMAL product wider than 28 digits (Python keeps 28), overflow of integer
arithmetic (Python integers do not overflow), arithmetic on a DATE (an
error here), and text compared with a column that is NULL on the row
(Spark still casts the text to the column's type, and fails if it is not a
number; the reference, which does not know the column's type, gives NULL),
and a part without columns that cannot be computed (`cast('x' as bigint)`,
`5 div 0`): Spark's optimizer may compute it, and fail, even where the row
never reaches it; the reference fails only where it is reached.
The property test (tests/sql/) keeps to integers, text and booleans there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine.limits import MAX_SQL_DEPTH
from engine.model.types import SqlType, TypeFamily
from engine.run.values import compare
from engine.sql import (
    arithmetic,
    casts,  # the module: engine.sql.casts imports engine.run.values, which may be loading
    scalars,
)
from engine.sql.allowlist import allowlist_problem, mark_written_names
from engine.sql.decimals import decimal_type, half_up, quotient
from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.floats import Float32, as_double, spark_float_text, to_float32
from engine.sql.folding import is_static_false, mark_static_nulls, one_value, reads_a_column, static_failure
from engine.sql.parse import limit_problem, tree_depth
from engine.sql.patterns import compiled_regex, java_matches, java_replacement, like_regex


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
    refused = allowlist_problem(tree, text)
    if refused:
        raise UnsupportedSql(f"{_clip(text)} {refused}")
    mark_written_names(tree, text)
    tree = rewritten(tree, _as_spark_replaces)
    fold = lambda node: Evaluator({}).eval(node)  # noqa: E731
    mark_static_nulls(tree, fold)
    failure = static_failure(tree, fold, SqlRuntimeError)
    if failure is not None:  # Spark fails the query before any row: so does every row here
        tree.meta["fails"] = str(failure)
    return tree


def rewritten(tree: exp.Expression, rewrite: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """`tree`, changed in place, with `rewrite` applied to every node, children first, so a node `rewrite`
    replaces still has its children rewritten (sqlglot's `transform` skips a new node's)."""
    nodes: list[exp.Expression] = list(tree.walk(bfs=False))  # type: ignore[arg-type]
    for node in reversed(nodes):  # every child before its parent
        new = rewrite(node)
        if new is not node:
            if node is tree:
                return new
            node.replace(new)
    return tree


def _as_spark_replaces(node: exp.Expression) -> exp.Expression:
    """The functions Spark replaces by other expressions before it optimizes (RuntimeReplaceable), replaced
    so here too, so that the reference folds and skips them as Spark's optimizer does (`folding`: an `if`
    whose branches are both NULL is NULL, a NULL condition is FALSE...), and Spark is given the same:
    `isnull(x)` is `x IS NULL`, `isnotnull(x)` `NOT x IS NULL`, `nvl2(x, a, b)` `if(x IS NOT NULL, a, b)`,
    `nullif(a, b)` `if(a = b, NULL, a)`."""
    if isinstance(node, exp.Anonymous) and node.name.lower() in ("isnull", "isnotnull"):
        null = exp.Is(this=exp.Paren(this=node.expressions[0]), expression=exp.Null())
        return exp.Paren(this=null if node.name.lower() == "isnull" else exp.Not(this=null))
    if isinstance(node, exp.Nvl2):  # (parenthesized: sqlglot writes `a = b IS NULL` for `a = (b IS NULL)`)
        test = exp.Not(this=exp.Is(this=exp.Paren(this=node.this), expression=exp.Null()))
        return exp.If(this=test, true=node.args.get("true"), false=node.args.get("false") or exp.Null())
    if isinstance(node, exp.Nullif):
        same = exp.EQ(this=exp.Paren(this=node.this.copy()), expression=exp.Paren(this=node.expression))
        return exp.If(this=same, true=exp.Null(), false=node.this)
    return node


def _clip(text: str) -> str:
    return repr(text if len(text) <= 60 else f"{text[:57]}...")


def evaluate_sql(text: str, row: Mapping[str, Any], now: datetime | None = None,
                 types: Mapping[str, SqlType] | None = None) -> Any:
    """The value of `text` on `row` (column name -> value; a missing column is NULL). `types` are the
    row's column types, which decide the scale of a DECIMAL quotient as in Spark (`decimals`)."""
    return Evaluator(row, now, types).eval(parse_sql(text))


def predicate_holds(text: str, row: Mapping[str, Any], now: datetime | None = None,
                    types: Mapping[str, SqlType] | None = None) -> bool:
    """A `where` clause on a row: only TRUE holds; FALSE and NULL do not."""
    return evaluate_sql(text, row, now, types) is True


def _column(row: Mapping[str, Any], name: str) -> Any:
    """A column's value; identifiers are case-insensitive, a column the row lacks is NULL."""
    if name in row:
        return row[name]
    return next((v for k, v in row.items() if k.lower() == name.lower()), None)


class Evaluator:
    """Evaluates one tree against one row."""

    def __init__(self, row: Mapping[str, Any], now: datetime | None = None,
                 types: Mapping[str, SqlType] | None = None) -> None:
        self.row, self.now, self.types = row, now, types or {}

    def eval(self, node: exp.Expression) -> Any:
        if node.meta:
            if node.meta.get("null"):
                return None
            if node.meta.get("false"):
                return False
            if node.meta.get("fails"):
                raise SqlRuntimeError(node.meta["fails"])
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise UnsupportedSql(f"the reference does not evaluate {node.key.upper()}: {node.sql('spark')}")
        try:
            return handler(self, node)
        except UnsupportedSql:  # SqlRuntimeError too: already the evaluator's own
            raise
        except (ArithmeticError, ValueError) as exc:  # OverflowError, decimal's InvalidOperation, math domain
            raise SqlRuntimeError(f"{_clip(node.sql('spark'))} fails on this row: {type(exc).__name__}: "
                                  f"{exc}") from None

    def args(self, node: exp.Expression) -> list[Any]:
        return [self.eval(e) for e in node.expressions]


def _literal(ev: Evaluator, node: exp.Literal) -> Any:
    if node.is_string:
        return node.this
    text = node.this
    if re.fullmatch(r"[+-]?\d+", text, re.ASCII):
        return int(text)
    return Decimal(text) if re.fullmatch(r"[+-]?\d*\.?\d*", text, re.ASCII) else float(text)


def _operands(ev: Evaluator, node: exp.Expr, divisor_first: bool = False) -> tuple[Any, Any] | None:
    """Both operands of a binary operator, or None when one is NULL, in Spark's order of evaluation: the
    left one first, and a NULL there leaves the right one unevaluated (so `NULL + 1/0` is NULL); for
    `/`, DIV and `%`, the divisor first."""
    first, second = (node.expression, node.this) if divisor_first else (node.this, node.expression)
    a = ev.eval(first)
    if a is None:
        return None
    b = ev.eval(second)
    if b is None:
        return None
    return (b, a) if divisor_first else (a, b)


def _compare_op(test: Callable[[int], bool]) -> Callable[[Evaluator, exp.Binary], bool | None]:
    def run(ev: Evaluator, node: exp.Binary) -> bool | None:
        pair = _operands(ev, node)
        order = None if pair is None else _order(*pair)
        return None if order is None else test(order)
    return run


def _order(a: Any, b: Any) -> int | None:
    """SQL comparison with Spark's implicit casts: text meets number or timestamp by parsing the text, a
    DECIMAL meets a DOUBLE as a double; and Spark's order of doubles: NaN equals NaN, above every number."""
    if a is None or b is None:
        return None
    a, b = _coerce_pair(a, b)
    if isinstance(a, float) or isinstance(b, float):
        single = isinstance(a, Float32) and isinstance(b, Float32)  # FLOAT meets FLOAT as FLOAT
        if isinstance(a, Decimal | int | float) and not isinstance(a, bool):
            a = float(a) if single else as_double(a)
        if isinstance(b, Decimal | int | float) and not isinstance(b, bool):
            b = float(b) if single else as_double(b)
        if isinstance(a, float) and isinstance(b, float):
            if math.isnan(a) or math.isnan(b):
                return (not math.isnan(b)) - (not math.isnan(a))
            return (a > b) - (a < b)
    return compare(a, b)


def _coerce_pair(a: Any, b: Any) -> tuple[Any, Any]:
    """Text meeting another type is cast to it, as Spark's ANSI mode does: text that does not read as
    that type is an error (`'abc' = 1` fails; `'10' > 9` is true)."""
    for x, y, swap in ((a, b, False), (b, a, True)):
        if isinstance(x, str) and not isinstance(y, str):
            converted: Any
            if isinstance(y, datetime):
                converted = casts.cast_text(x, "TIMESTAMP")
            elif isinstance(y, date):
                converted = casts.cast_text(x, "DATE")
            elif isinstance(y, bool):
                converted = casts.cast_text(x, "BOOLEAN")
            elif isinstance(y, int):
                converted = casts.cast_text(x, "BIGINT")
            elif isinstance(y, float):
                converted = casts.cast_text(x, "DOUBLE")
            elif isinstance(y, Decimal):
                converted = casts.cast_text(x, "DECIMAL")
            else:
                return a, b
            return (y, converted) if swap else (converted, y)
    if isinstance(a, datetime) != isinstance(b, datetime) and isinstance(a, date) and isinstance(b, date):
        return casts.cast_to(a, "TIMESTAMP"), casts.cast_to(b, "TIMESTAMP")  # a DATE meets a TIMESTAMP
    return a, b


def _kleene(stop: bool) -> Callable[[Evaluator, exp.Binary], bool | None]:
    """AND (stop=False) and OR (stop=True) in three-valued logic: `stop` on either side decides.

    A side that reads no column is a constant Spark folds before anything runs (ConstantFolding, then
    BooleanSimplification: `x AND FALSE` is FALSE): when it is `stop`, the other side is never evaluated, so
    it cannot fail. A constant that fails is left unfolded, as Spark leaves it."""
    def run(ev: Evaluator, node: exp.Binary) -> bool | None:
        for side in (node.this, node.expression):
            if not stop and is_static_false(side):  # a condition's part that is FALSE whatever the row
                return False
            if not reads_a_column(side):
                try:
                    if ev.eval(side) is stop:
                        return bool(stop)
                except SqlRuntimeError:
                    pass
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
    """`x BETWEEN a AND b`: `x >= a AND x <= b`, which Spark (4.3) evaluates as an AND: once `x` is not
    NULL, `b` only where `x >= a` is not FALSE (the property test found `0 BETWEEN 2 AND cast('' as bigint)`
    FALSE in Spark)."""
    value = ev.eval(node.this)
    if value is None:
        return None
    low = ev.eval(node.args["low"])
    above = None if low is None else _order(value, low)
    if above is not None and above < 0:
        return False
    high = ev.eval(node.args["high"])
    below = None if high is None else _order(value, high)
    if below is not None and below > 0:
        return False
    return None if above is None or below is None else True


def _like(case_insensitive: bool) -> Callable[[Evaluator, exp.Binary], bool | None]:
    """LIKE and ILIKE; sqlglot reads `NOT LIKE` as a LIKE with `negate` set, not as a NOT around it."""
    def run(ev: Evaluator, node: exp.Binary) -> bool | None:
        pair = _operands(ev, node)
        if pair is None:
            return None
        value, pattern = pair
        text, pattern = _text(value), str(pattern)
        if case_insensitive:  # Spark's ILIKE is LIKE of both sides lowered (`ſ` is no `s`, `ı` no `I`)
            text, pattern = text.lower(), pattern.lower()
        matches = re.fullmatch(like_regex(pattern), text, re.S) is not None
        return not matches if node.args.get("negate") else matches
    return run


def _text(value: Any) -> str:
    """A non-NULL value as Spark's SQL reads it as text (`casts.sql_text`)."""
    return casts.sql_text(value) or ""


def _rlike(ev: Evaluator, node: exp.RegexpLike) -> bool | None:
    pair = _operands(ev, node)
    if pair is None:
        return None
    value, pattern = pair
    return compiled_regex(str(pattern)).search(_text(value)) is not None


def _regexp_replace(ev: Evaluator, node: exp.RegexpReplace) -> Any:
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
    value, begin = _text(text), int(position) - 1
    if begin and begin >= len(value):  # Spark searches from the first position even in empty text
        return value
    region = value[begin:]  # Spark's matcher: the region from begin on, whose `$` still sees a `\r` before it
    regex = compiled_regex(str(pattern), begin > 0 and value[begin - 1] == "\r")
    matches = java_matches(regex, region)
    if not matches:  # Java reads the replacement at a match only: no match, no error
        return value
    pieces = java_replacement(_text(replacement), regex.groups, regex.groupindex)
    out, done = [value[:begin]], 0
    for match in matches:
        out.append(region[done:match.start()])
        out.extend(p if isinstance(p, str) else (match.group(p) or "") for p in pieces)
        done = match.end()
    out.append(region[done:])
    return "".join(out)


def _arith(op: Callable[[Any, Any], Any], divisor_first: bool = False) -> Callable[[Evaluator, exp.Binary], Any]:
    def run(ev: Evaluator, node: exp.Binary) -> Any:
        pair = _operands(ev, node, divisor_first)
        if pair is None:
            return None
        a, b = pair
        a, b = _number(a), _number(b)
        if a is None or b is None:
            return None
        if isinstance(a, float) or isinstance(b, float):
            if isinstance(a, Float32) and isinstance(b, Float32) and op is not arithmetic.divide:
                return to_float32(op(float(a), float(b)))  # FLOAT with FLOAT stays FLOAT
            return op(as_double(a), as_double(b))  # with anything else, or `/`: DOUBLE
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            a, b = Decimal(a), Decimal(b)
        if op is arithmetic.divide and isinstance(a, Decimal) and b != 0:
            spark_type = decimal_type(node, ev.types)  # Spark's scale for it, where the types tell
            if spark_type is not None:
                return quotient(a, b, spark_type[1])
        return op(a, b)
    return run


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        return value
    if isinstance(value, str):  # text in arithmetic is cast to a double (ANSI: an error if it is not one)
        return casts.cast_text(value, "DOUBLE")
    if isinstance(value, date) and not isinstance(value, datetime):  # Spark: `d + 1` is date_add, `d - d` ...
        raise UnsupportedSql("the reference does not evaluate arithmetic on a DATE")
    return None


def _neg(ev: Evaluator, node: exp.Neg) -> Any:
    value = _number(ev.eval(node.this))
    return None if value is None else _same_type(value, -value)


def _same_type(value: Any, result: Any) -> Any:
    """`result` as a FLOAT where `value` is one (Python's float operations give a plain float)."""
    return to_float32(result) if isinstance(value, Float32) else result


def _concat(ev: Evaluator, node: exp.Expression) -> Any:
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
    return "".join(_text(p) for p in parts)


def _dpipe(ev: Evaluator, node: exp.DPipe) -> Any:
    a = ev.eval(node.this)
    if a is None:  # as `_concat`: the right side is never evaluated
        return None
    b = ev.eval(node.expression)
    return None if b is None else _text(a) + _text(b)


def _concat_ws(ev: Evaluator, node: exp.ConcatWs) -> Any:
    values = ev.args(node)
    if not values or values[0] is None:
        return None
    return _text(values[0]).join(_text(v) for v in values[1:] if v is not None)


def _coalesce(ev: Evaluator, node: exp.Coalesce) -> Any:
    for child in [node.this, *node.expressions]:
        value = ev.eval(child)
        if value is not None:
            return value
    return None


def _case(ev: Evaluator, node: exp.Case) -> Any:
    same = one_value(node)  # then its conditions are never evaluated, as in Spark
    if same is not None:
        return ev.eval(same)  # type: ignore[arg-type]
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
    same = one_value(node)
    if same is not None:
        return ev.eval(same)  # type: ignore[arg-type]
    if ev.eval(node.this) is True:
        return ev.eval(node.args["true"])
    other = node.args.get("false")
    return ev.eval(other) if other is not None else None


def _case_conversion(ev: Evaluator, node: exp.Func, convert: Callable[[str], str]) -> Any:
    """upper/lower of the innermost operand of a chain of them, as Spark's optimizer simplifies it
    (SimplifyCaseConversionExpressions: `lower(upper(x))` is `lower(x)`, which differs for 'ß'). A chain
    that reads no column is a constant, folded whole first (ConstantFolding): every step applies."""
    inner = node.this
    if not reads_a_column(node):
        value = ev.eval(inner)
        return None if value is None else convert(_text(value))
    while isinstance(inner, (exp.Upper, exp.Lower, exp.Paren)):
        inner = inner.this
    value = ev.eval(inner)
    return None if value is None else convert(_text(value))


def _text_fn(fn: Callable[[str], Any]) -> Callable[[Evaluator, exp.Func], Any]:
    def run(ev: Evaluator, node: exp.Func) -> Any:
        value = ev.eval(node.this)
        return None if value is None else fn(_text(value))
    return run


def _substring(ev: Evaluator, node: exp.Substring) -> Any:
    value = ev.eval(node.this)
    if value is None:
        return None
    start = ev.eval(node.args["start"]) if node.args.get("start") is not None else 1
    length = ev.eval(node.args["length"]) if node.args.get("length") is not None else None
    if value is None or start is None or (node.args.get("length") is not None and length is None):
        return None
    return spark_substring(_text(value), int(start), None if length is None else int(length))


def spark_substring(text: str, pos: int, length: int | None) -> str:
    """Spark's `substring(text, pos, length)`: positions count from 1, 0 counts as 1, a negative one
    from the end; the window is cut to the text, so `substring('abc', -5, 3)` is 'a'."""
    begin = pos - 1 if pos > 0 else len(text) + pos if pos < 0 else 0
    end = len(text) if length is None else begin + length
    begin = max(begin, 0)
    return text[begin:end] if begin < end else ""


def _abs(ev: Evaluator, node: exp.Abs) -> Any:
    value = _number(ev.eval(node.this))
    return None if value is None else _same_type(value, abs(value))


def _round(ev: Evaluator, node: exp.Round) -> Any:
    """`round(x, d)`, half away from zero. Spark rounds a DOUBLE (a FLOAT as the double it widens to) through
    the JVM's text of it (`BigDecimal.valueOf`), so this does too; NaN and the infinities stay as they are."""
    value = _number(ev.eval(node.this))
    digits = ev.eval(node.args["decimals"]) if node.args.get("decimals") is not None else 0
    if value is None or digits is None:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return value
        rounded = half_up(Decimal(spark_float_text(float(value))), int(digits))
        return _same_type(value, float(rounded) + 0.0)  # + 0.0: the JVM's decimal has no negative zero
    rounded = half_up(Decimal(value), int(digits))
    return int(rounded) if isinstance(value, int) else rounded



def _cast(ev: Evaluator, node: exp.Cast) -> Any:
    """`cast` (ANSI: a value that does not convert is an error) and `try_cast` (it becomes NULL)."""
    value = ev.eval(node.this)
    try:
        return casts.spark_cast(value, node.to)
    except SqlRuntimeError:
        if isinstance(node, exp.TryCast) and node.args.get("safe"):
            return None
        raise


def _now(ev: Evaluator, node: exp.Expression) -> Any:
    if ev.now is None:
        raise UnsupportedSql(f"{node.sql('spark')} has no time here")
    return ev.now


def _today(ev: Evaluator, node: exp.CurrentDate) -> date:
    """`current_date()`: the day of the run's current time (`now`) in the session time zone, UTC."""
    moment = _now(ev, node)
    return moment.astimezone(UTC).date() if isinstance(moment, datetime) else moment


def _written(node: exp.Expression) -> str | None:
    return node.meta.get("written") if node.meta else None


def _extreme(pick_greatest: bool) -> Callable[[Evaluator, exp.Func], Any]:
    """`greatest`/`least`: NULLs skipped (NULL only when all are), the arguments widened to one type."""
    def run(ev: Evaluator, node: exp.Func) -> Any:
        nodes = [node.this, *node.expressions]
        values = [ev.eval(n) for n in nodes]
        scale = max((_scale(n, v, ev) for n, v in zip(nodes, values, strict=True)), default=0)
        kinds = {_static_kind(n, ev.types) for n in nodes}  # an argument NULL on this row still widens the rest
        if "double" in kinds:
            values = [float(v) if isinstance(v, int | Decimal) and not isinstance(v, bool) else v for v in values]
        if "timestamp" in kinds:
            values = [casts.cast_to(v, "TIMESTAMP") if isinstance(v, date) else v for v in values]
        present = scalars.widened(values, scale)
        best = None
        for value in present:
            if best is None:
                best = value
                continue
            order = _order(value, best)
            if order is not None and (order > 0 if pick_greatest else order < 0):
                best = value
        return best
    return run


def _static_kind(node: exp.Expression, types: Mapping[str, SqlType]) -> str | None:
    """"double" or "timestamp" where `node` is certainly of that Spark type whatever the row: a column of an
    approximate type (the pipeline holds REAL, FLOAT and DOUBLE as a DOUBLE) or of a date or time type (held
    as a TIMESTAMP, `engine.spark.types`), a cast to one, a literal such as 1e3 or 2D, the current time."""
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    if isinstance(node, exp.Column):
        found = types.get(node.name) or next((t for k, t in types.items() if k.lower() == node.name.lower()), None)
        family = None if found is None else found.family
        return "double" if family is TypeFamily.APPROX_NUMERIC else "timestamp" if family is TypeFamily.DATETIME \
            else None
    if isinstance(node, exp.Cast | exp.TryCast):
        to = node.to.this
        return "double" if to is exp.DataType.Type.DOUBLE else "timestamp" if to in (
            exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPTZ) else None
    if isinstance(node, exp.CurrentTimestamp):
        return "timestamp"
    if isinstance(node, exp.Literal) and not node.is_string and not re.fullmatch(r"[+-]?\d*\.?\d*", node.this):
        return "double"
    return None


def _scale(node: exp.Expression, value: Any, ev: Evaluator) -> int:
    """The DECIMAL scale of an argument's type, where the types tell it, else its value's."""
    known = decimal_type(node, ev.types)
    if known is not None:
        return known[1]
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        return -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return 0


def _number_fn(fn: Callable[[Any], Any]) -> Callable[[Evaluator, exp.Func], Any]:
    def run(ev: Evaluator, node: exp.Func) -> Any:
        return fn(ev.eval(node.this))
    return run


def _to_date(ev: Evaluator, node: exp.TsOrDsToDate) -> Any:
    """`to_date(x)` as written (a number's text is read as a DATE), or the DATE sqlglot puts around the
    argument of `year`, `datediff`... (Spark's implicit cast: a number is refused)."""
    return scalars.date_of(ev.eval(node.this), explicit=_written(node) == "to_date")


def _date_field(field: str) -> Callable[[Evaluator, exp.Func], Any]:
    """`year`, `month`, `day`: of the DATE the argument reads as (sqlglot wraps it in a TsOrDsToDate)."""
    def run(ev: Evaluator, node: exp.Func) -> Any:
        value = ev.eval(node.this)
        day = value if value is None or isinstance(value, date) and not isinstance(value, datetime) \
            else scalars.date_of(value, explicit=False)
        return None if day is None else getattr(day, field)
    return run


def _time_field(field: str) -> Callable[[Evaluator, exp.Func], Any]:
    """`hour`, `minute`, `second` (whole seconds) of the TIMESTAMP the argument reads as, in UTC."""
    def run(ev: Evaluator, node: exp.Func) -> Any:
        moment = scalars.timestamp_of(ev.eval(node.this))
        return None if moment is None else getattr(moment, field)
    return run


def _datediff(ev: Evaluator, node: exp.DateDiff) -> Any:
    """`datediff(end, start)`: days from `start` to `end`; a NULL `end` leaves `start` unevaluated."""
    pair = _operands(ev, node)
    if pair is None:
        return None
    end, start = (scalars.date_of(v, explicit=False) for v in pair)
    assert end is not None and start is not None
    return (end - start).days


def _date_add(ev: Evaluator, node: exp.TsOrDsAdd) -> Any:
    """`date_add(d, n)` and `date_sub(d, n)` (which sqlglot reads as `date_add(d, n * -1)`; Spark is given
    `date_sub(d, n)`, `engine.sql.spark`)."""
    start = ev.eval(node.this)
    if start is None:
        return None
    days_node = node.expression
    subtract = _written(node) == "date_sub" and isinstance(days_node, exp.Mul)
    days = scalars.day_count(ev.eval(days_node.this if subtract else days_node))
    if days is None:
        return None
    day = scalars.date_of(start, explicit=False)
    assert day is not None
    return day - timedelta(days=days) if subtract else day + timedelta(days=days)


def _text_test(test: Callable[[str, str], bool]) -> Callable[[Evaluator, exp.Binary], Any]:
    """`startswith`, `endswith`, `contains`: NULL when either is; numbers are read as their text."""
    def run(ev: Evaluator, node: exp.Binary) -> Any:
        pair = _operands(ev, node)
        return None if pair is None else test(_text(pair[0]), _text(pair[1]))
    return run


def _str_position(ev: Evaluator, node: exp.StrPosition) -> Any:
    """`instr(s, sub)` (Spark is given INSTR: `s` first, a NULL one leaves `sub` unevaluated) and
    `locate(sub, s[, pos])`, `position(sub IN s)` (LOCATE: the position first, a NULL one is 0; then `sub`,
    then `s`)."""
    if _written(node) == "instr":
        value = ev.eval(node.this)
        if value is None:
            return None
        sub = ev.eval(node.args["substr"])
        return None if sub is None else scalars.locate(_text(sub), _text(value), 1)
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
    return scalars.locate(_text(sub), _text(value), int(casts.cast_to(position, "INT")))


def _pad(ev: Evaluator, node: exp.Pad) -> Any:
    """`lpad`/`rpad(s, length[, pad])`, the pad a space by default; NULL when any is."""
    fill_node = node.args.get("fill_pattern")
    values = [ev.eval(node.this), ev.eval(node.expression), ev.eval(fill_node) if fill_node is not None else " "]
    if any(v is None for v in values):
        return None
    text, length, fill = values
    return scalars.pad(_text(text), int(casts.cast_to(length, "INT")), _text(fill), bool(node.args.get("is_left")))


def _trim(ev: Evaluator, node: exp.Trim) -> Any:
    """`trim`, `ltrim`, `rtrim`: spaces only (not tabs), as Spark's."""
    value = ev.eval(node.this)
    if value is None:
        return None
    text, side = _text(value), node.args.get("position")
    return text.lstrip(" ") if side == "LEADING" else text.rstrip(" ") if side == "TRAILING" else text.strip(" ")


def _replace(ev: Evaluator, node: exp.Replace) -> Any:
    """`replace(s, search[, replacement])`, the replacement '' by default; NULL when any is."""
    given = node.args.get("replacement")
    values = [ev.eval(node.this), ev.eval(node.expression), ev.eval(given) if given is not None else ""]
    if any(v is None for v in values):
        return None
    return scalars.replace(*(_text(v) for v in values))


def _left(ev: Evaluator, node: exp.Left) -> Any:
    """`left(s, n)`: Spark's `substring(s, 1, n)`."""
    pair = _operands(ev, node)
    return None if pair is None else spark_substring(_text(pair[0]), 1, int(casts.cast_to(pair[1], "INT")))


def _right(ev: Evaluator, node: exp.Right) -> Any:
    """`right(s, n)`: Spark's `if(isnull(s), NULL, if(n <= 0, '', substring(s, -n)))`."""
    pair = _operands(ev, node)
    if pair is None:
        return None
    length = int(casts.cast_to(pair[1], "INT"))
    return "" if length <= 0 else spark_substring(_text(pair[0]), -length, None)


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
    exp.NullSafeNEQ: lambda ev, n: not _HANDLERS[exp.NullSafeEQ](ev, n),
    exp.Is: _is,
    exp.In: _in,
    exp.Between: _between,
    exp.Like: _like(False),
    exp.ILike: _like(True),
    exp.RegexpLike: _rlike,
    exp.RegexpReplace: _regexp_replace,
    exp.Add: _arith(lambda a, b: a + b),
    exp.Sub: _arith(lambda a, b: a - b),
    exp.Mul: _arith(lambda a, b: a * b),
    exp.Div: _arith(arithmetic.divide, divisor_first=True),
    exp.IntDiv: _arith(arithmetic.int_divide, divisor_first=True),
    exp.Mod: _arith(arithmetic.remainder, divisor_first=True),
    exp.Neg: _neg,
    exp.Concat: _concat,
    exp.DPipe: _dpipe,
    exp.ConcatWs: _concat_ws,
    exp.Coalesce: _coalesce,
    exp.Case: _case,
    exp.If: _if,
    exp.Upper: lambda ev, n: _case_conversion(ev, n, str.upper),
    exp.Lower: lambda ev, n: _case_conversion(ev, n, str.lower),
    exp.Trim: _trim,
    exp.Length: _text_fn(len),
    exp.Substring: _substring,
    exp.Abs: _abs,
    exp.Round: _round,
    exp.Cast: _cast,
    exp.TryCast: _cast,
    exp.CurrentTimestamp: _now,
    exp.CurrentDate: _today,
    exp.Greatest: _extreme(True),
    exp.Least: _extreme(False),
    exp.Floor: _number_fn(lambda v: scalars.floor_or_ceil(v, up=False)),
    exp.Ceil: _number_fn(lambda v: scalars.floor_or_ceil(v, up=True)),
    exp.Sign: _number_fn(scalars.sign),
    exp.TsOrDsToDate: _to_date,
    exp.Year: _date_field("year"),
    exp.Month: _date_field("month"),
    exp.Day: _date_field("day"),
    exp.DayOfMonth: _date_field("day"),
    exp.Hour: _time_field("hour"),
    exp.Minute: _time_field("minute"),
    exp.Second: _time_field("second"),
    exp.DateDiff: _datediff,
    exp.TsOrDsAdd: _date_add,
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

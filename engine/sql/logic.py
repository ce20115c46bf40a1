"""Comparison and three-valued logic in the reference evaluator, as Spark's ANSI mode has them.

SQL's three-valued logic (NULL propagates; `FALSE AND NULL` is FALSE, which sqlglot's own executor gets
wrong), Spark's implicit casts where text meets another type (`'10' > 9` is true, `'abc' = 1` an error),
and Spark's order of doubles (NaN equals NaN, above every number).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlglot import exp

from engine.core.values import compare
from engine.sql import casts
from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.floats import Float32, as_double
from engine.sql.folding import is_static_false, reads_a_column
from engine.sql.operands import Handler, RowEvaluator, operands


def order(a: Any, b: Any) -> int | None:
    """SQL comparison with Spark's implicit casts: text meets number or timestamp by parsing the text, a
    DECIMAL meets a DOUBLE as a double; and Spark's order of doubles: NaN equals NaN, above every number."""
    if a is None or b is None:
        return None
    a, b = coerce_pair(a, b)
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


def coerce_pair(a: Any, b: Any) -> tuple[Any, Any]:
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


def _compare_op(test: Callable[[int], bool]) -> Handler:
    def run(ev: RowEvaluator, node: exp.Binary) -> bool | None:
        pair = operands(ev, node)
        found = None if pair is None else order(*pair)
        return None if found is None else test(found)
    return run


def _null_safe_equal(ev: RowEvaluator, node: exp.Binary) -> bool:
    a, b = ev.eval(node.this), ev.eval(node.expression)
    return a is None and b is None or (a is not None and b is not None and order(a, b) == 0)


def _kleene(stop: bool) -> Handler:
    """AND (stop=False) and OR (stop=True) in three-valued logic: `stop` on either side decides.

    A side that reads no column is a constant Spark folds before anything runs (ConstantFolding, then
    BooleanSimplification: `x AND FALSE` is FALSE): when it is `stop`, the other side is never evaluated, so
    it cannot fail. A constant that fails is left unfolded, as Spark leaves it. Not so while ConstantFolding
    itself evaluates a constant (`RowEvaluator.first_fold`): it evaluates the left side first, as Spark's
    interpreted AND and OR do."""
    def run(ev: RowEvaluator, node: exp.Binary) -> bool | None:
        for side in () if ev.first_fold else (node.this, node.expression):
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


def _not(ev: RowEvaluator, node: exp.Not) -> bool | None:
    value = ev.eval(node.this)
    return None if value is None else not value


def _is(ev: RowEvaluator, node: exp.Is) -> bool:
    value = ev.eval(node.this)
    target = node.expression
    if isinstance(target, exp.Null):
        return value is None
    if isinstance(target, exp.Boolean):
        return value is target.this
    raise UnsupportedSql(f"IS {target.sql('spark')}")


def _in(ev: RowEvaluator, node: exp.In) -> bool | None:
    if node.args.get("query") is not None:
        raise UnsupportedSql("IN with a subquery")
    value = ev.eval(node.this)
    if value is None:
        return None
    saw_null = False
    for item in node.expressions:
        found = order(value, ev.eval(item))
        if found == 0:
            return True
        saw_null = saw_null or found is None
    return None if saw_null else False


def _between(ev: RowEvaluator, node: exp.Between) -> bool | None:
    """`x BETWEEN a AND b`: `x >= a AND x <= b`, which Spark (4.3) evaluates as an AND: once `x` is not
    NULL, `b` only where `x >= a` is not FALSE (the property test found `0 BETWEEN 2 AND cast('' as bigint)`
    FALSE in Spark)."""
    value = ev.eval(node.this)
    if value is None:
        return None
    low = ev.eval(node.args["low"])
    above = None if low is None else order(value, low)
    if above is not None and above < 0:
        return False
    high = ev.eval(node.args["high"])
    below = None if high is None else order(value, high)
    if below is not None and below > 0:
        return False
    return None if above is None or below is None else True


HANDLERS: dict[type[exp.Expr], Handler] = {
    exp.And: _kleene(False),
    exp.Or: _kleene(True),
    exp.Not: _not,
    exp.EQ: _compare_op(lambda o: o == 0),
    exp.NEQ: _compare_op(lambda o: o != 0),
    exp.GT: _compare_op(lambda o: o > 0),
    exp.GTE: _compare_op(lambda o: o >= 0),
    exp.LT: _compare_op(lambda o: o < 0),
    exp.LTE: _compare_op(lambda o: o <= 0),
    exp.NullSafeEQ: _null_safe_equal,
    exp.NullSafeNEQ: lambda ev, n: not _null_safe_equal(ev, n),
    exp.Is: _is,
    exp.In: _in,
    exp.Between: _between,
}

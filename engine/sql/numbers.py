"""Numbers in the reference evaluator: literals, arithmetic (a DECIMAL quotient at the scale of Spark's type
of it, `decimals`; a FLOAT with a FLOAT stays 32 bits, `floats`), `abs`, `round`, `floor`, `ceil`, `sign`,
`greatest`/`least` (their arguments widened to one type), and `cast`/`try_cast` (`casts`)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlglot import exp

from engine.core.types import SqlType, TypeFamily
from engine.sql import arithmetic, casts, scalars
from engine.sql.coercion import static_type
from engine.sql.decimals import decimal_type, half_up, quotient
from engine.sql.errors import SqlRuntimeError, UnsupportedSql
from engine.sql.floats import Float32, as_double, spark_float_text, to_float32
from engine.sql.logic import order
from engine.sql.operands import Handler, RowEvaluator, operands


def _literal(ev: RowEvaluator, node: exp.Literal) -> Any:
    if node.is_string:
        return node.this
    text = node.this
    if re.fullmatch(r"[+-]?\d+", text, re.ASCII):
        return int(text)
    return Decimal(text) if re.fullmatch(r"[+-]?\d*\.?\d*", text, re.ASCII) else float(text)


def _arith(op: Callable[[Any, Any], Any], divisor_first: bool = False) -> Handler:
    def run(ev: RowEvaluator, node: exp.Binary) -> Any:
        pair = operands(ev, node, divisor_first)
        if pair is None:
            return None
        a, b = pair
        a, b = number(a), number(b)
        if a is None or b is None:
            return None
        if isinstance(a, float) or isinstance(b, float):
            if isinstance(a, Float32) and isinstance(b, Float32) and op is not arithmetic.divide:
                return to_float32(op(float(a), float(b)))  # FLOAT with FLOAT stays FLOAT
            return op(as_double(a), as_double(b))  # with anything else, or `/`: DOUBLE
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            a, b = Decimal(a), Decimal(b)
        if op is arithmetic.divide and isinstance(a, Decimal) and b != 0:
            scale = _quotient_scale(node, ev)  # Spark's scale for it, where the types tell
            if scale is not None:
                return quotient(a, b, scale)
        return op(a, b)
    return run


def _quotient_scale(node: exp.Binary, ev: RowEvaluator) -> int | None:
    """The scale of Spark's DECIMAL type of a quotient, from the operands' types (a conditional's: the type
    its branches are widened to, `coercion`); None where they do not tell."""
    known = decimal_type(node, ev.types)
    if known is not None:
        return known[1]
    found = static_type(node, ev.types)
    return found.scale if found is not None and found.name == "decimal" else None


def number(value: Any) -> Any:
    """A value as arithmetic reads it: text as a DOUBLE (ANSI: an error if it is not one); a BOOLEAN is
    no number (None)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        return value
    if isinstance(value, str):  # text in arithmetic is cast to a double (ANSI: an error if it is not one)
        return casts.cast_text(value, "DOUBLE")
    if isinstance(value, date) and not isinstance(value, datetime):  # Spark: `d + 1` is date_add, `d - d` ...
        raise UnsupportedSql("the reference does not evaluate arithmetic on a DATE")
    return None


def _neg(ev: RowEvaluator, node: exp.Neg) -> Any:
    value = number(ev.eval(node.this))
    return None if value is None else _same_type(value, -value)


def _same_type(value: Any, result: Any) -> Any:
    """`result` as a FLOAT where `value` is one (Python's float operations give a plain float)."""
    return to_float32(result) if isinstance(value, Float32) else result


def _abs(ev: RowEvaluator, node: exp.Abs) -> Any:
    value = number(ev.eval(node.this))
    return None if value is None else _same_type(value, abs(value))


def _round(ev: RowEvaluator, node: exp.Round) -> Any:
    """`round(x, d)`, half away from zero. Spark rounds a DOUBLE (a FLOAT as the double it widens to) through
    the JVM's text of it (`BigDecimal.valueOf`), so this does too; NaN and the infinities stay as they are."""
    value = number(ev.eval(node.this))
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


def _cast(ev: RowEvaluator, node: exp.Cast) -> Any:
    """`cast` (ANSI: a value that does not convert is an error) and `try_cast` (it becomes NULL)."""
    value = ev.eval(node.this)
    try:
        return casts.spark_cast(value, node.to)
    except SqlRuntimeError:
        if isinstance(node, exp.TryCast) and node.args.get("safe"):
            return None
        raise


def _extreme(pick_greatest: bool) -> Handler:
    """`greatest`/`least`: NULLs skipped (NULL only when all are), the arguments widened to one type."""
    def run(ev: RowEvaluator, node: exp.Func) -> Any:
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
            found = order(value, best)
            if found is not None and (found > 0 if pick_greatest else found < 0):
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


def _scale(node: exp.Expression, value: Any, ev: RowEvaluator) -> int:
    """The DECIMAL scale of an argument's type, where the types tell it, else its value's."""
    known = decimal_type(node, ev.types)
    if known is not None:
        return known[1]
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        return -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return 0


def _number_fn(fn: Callable[[Any], Any]) -> Handler:
    def run(ev: RowEvaluator, node: exp.Func) -> Any:
        return fn(ev.eval(node.this))
    return run


HANDLERS: dict[type[exp.Expr], Handler] = {
    exp.Literal: _literal,
    exp.Null: lambda ev, n: None,
    exp.Boolean: lambda ev, n: bool(n.this),
    exp.Add: _arith(lambda a, b: a + b),
    exp.Sub: _arith(lambda a, b: a - b),
    exp.Mul: _arith(lambda a, b: a * b),
    exp.Div: _arith(arithmetic.divide, divisor_first=True),
    exp.IntDiv: _arith(arithmetic.int_divide, divisor_first=True),
    exp.Mod: _arith(arithmetic.remainder, divisor_first=True),
    exp.Neg: _neg,
    exp.Abs: _abs,
    exp.Round: _round,
    exp.Cast: _cast,
    exp.TryCast: _cast,
    exp.Greatest: _extreme(True),
    exp.Least: _extreme(False),
    exp.Floor: _number_fn(lambda v: scalars.floor_or_ceil(v, up=False)),
    exp.Ceil: _number_fn(lambda v: scalars.floor_or_ceil(v, up=True)),
    exp.Sign: _number_fn(scalars.sign),
}

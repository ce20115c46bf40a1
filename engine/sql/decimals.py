"""The DECIMAL type Spark gives an expression, from the column types it reads: the result scale of `/`.

Python's `Decimal` divides to 28 significant digits where Spark rounds a quotient to the scale of its
result type, which depends on the operands' declared precision and scale, not on their values:
`DECIMAL(12,2) / 3` is DECIMAL(16,6), so `125.62 / 3` is 41.873333 in Spark (and `1.00 / 3 >
0.3333333333333` is FALSE there). The rules are Spark's `DecimalPrecision` with precision loss allowed
(its default): an integral column takes part as DECIMAL(10,0) (INT), DECIMAL(20,0) (BIGINT) or
DECIMAL(5,0) (SMALLINT), an integral literal as the fewest digits that hold it, and a result wider than
38 digits keeps at least 6 digits of scale.

`decimal_type` answers None where it cannot tell (a function, a text column, a DOUBLE): the evaluator
then keeps Python's arithmetic, as it did before.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

from sqlglot import exp

from engine.core.types import SqlType, TypeFamily

MAX_PRECISION = 38
MINIMUM_ADJUSTED_SCALE = 6
_INTEGRAL = {"SMALLINT": 5, "INTEGER": 10, "INT": 10, "SERIAL": 10, "BIGINT": 20, "SERIAL8": 20}

_WIDE = Context(prec=2 * MAX_PRECISION + 4, rounding=ROUND_HALF_UP)  # holds any quotient Spark's scales keep

Dec = tuple[int, int, bool]
"""(precision, scale, whether a DECIMAL: False for an integral type, which is a DECIMAL only beside one)."""


def decimal_type(node: exp.Expr, types: Mapping[str, SqlType]) -> Dec | None:
    """Spark's type of `node` as (precision, scale, is a DECIMAL), for a numeric type without fraction
    error (an integral or DECIMAL one); None for any other type, or one this cannot tell."""
    if isinstance(node, exp.Paren):
        return decimal_type(node.this, types)
    if isinstance(node, exp.Column):
        return _column(node.name, types)
    if isinstance(node, exp.Literal):
        return None if node.is_string else _literal(node.this)
    if isinstance(node, exp.Neg):
        return decimal_type(node.this, types)
    if isinstance(node, exp.Cast | exp.TryCast):
        return _cast(node.to)
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Mod):
        left, right = decimal_type(node.this, types), decimal_type(node.expression, types)
        if left is None or right is None or not (left[2] or right[2]):
            return None  # not DECIMAL arithmetic (integers, or a type this does not follow)
        return _result(type(node), left[:2], right[:2])
    return None


def result_type(op: type[exp.Expr], left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int]:
    """Spark's DECIMAL(precision, scale) of `left op right` (+, -, *, /, %), of the operands' (precision, scale)."""
    precision, scale, _ = _result(op, left, right)
    return precision, scale


def literal_type(text: str) -> Dec | None:
    """An integer or decimal literal's type in DECIMAL arithmetic: its fewest digits (DecimalType.fromLiteral)."""
    return _literal(text)


def quotient(a: Decimal, b: Decimal, scale: int) -> Decimal:
    """`a / b` (b not 0) as Spark gives a DECIMAL quotient: rounded half up to its type's `scale`."""
    return _WIDE.divide(a, b).quantize(Decimal(1).scaleb(-scale), context=_WIDE)


def _column(name: str, types: Mapping[str, SqlType]) -> Dec | None:
    t = types.get(name) or next((v for k, v in types.items() if k.lower() == name.lower()), None)
    if t is None or t.family is not TypeFamily.EXACT_NUMERIC:
        return None
    if t.name in _INTEGRAL:
        return _INTEGRAL[t.name], 0, False
    if t.precision is None or t.precision > MAX_PRECISION:
        return None  # Spark holds it as text (`engine.spark.types.rep`)
    return t.precision, t.scale or 0, True


def _literal(text: str) -> Dec | None:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if "e" in text.lower():
        return None  # a DOUBLE in Spark
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    scale = max(-exponent, 0)
    if scale == 0:
        return max(len(digits) + max(exponent, 0), 1), 0, False  # an integral literal: its fewest digits
    return max(len(digits), scale), scale, True


def _cast(to: exp.DataType) -> Dec | None:
    name = to.this.name
    if name == "DECIMAL":
        params = [int(p.name) for p in to.expressions] if to.expressions else []
        precision = params[0] if params else 10
        scale = params[1] if len(params) > 1 else 0
        return precision, scale, True
    digits = {"INT": 10, "BIGINT": 20, "SMALLINT": 5, "TINYINT": 3}.get(name)
    return (digits, 0, False) if digits else None


def _result(op: type[exp.Expr], a: tuple[int, ...], b: tuple[int, ...]) -> Dec:
    (p1, s1), (p2, s2) = a, b
    if op is exp.Div:
        scale = max(MINIMUM_ADJUSTED_SCALE, s1 + p2 + 1)
        return (*adjust(p1 - s1 + s2 + scale, scale), True)
    if op is exp.Mul:
        return (*adjust(p1 + p2 + 1, s1 + s2), True)
    if op is exp.Mod:
        return (*adjust(min(p1 - s1, p2 - s2) + max(s1, s2), max(s1, s2)), True)
    scale = max(s1, s2)
    return (*adjust(max(p1 - s1, p2 - s2) + scale + 1, scale), True)


def adjust(precision: int, scale: int) -> tuple[int, int]:
    """Spark's `DecimalType.adjustPrecisionScale`: a type wider than 38 digits gives up scale, keeping at
    least 6 digits of it (or all it had, if fewer)."""
    if precision <= MAX_PRECISION:
        return precision, scale
    int_digits = precision - scale
    min_scale = min(scale, MINIMUM_ADJUSTED_SCALE)
    return MAX_PRECISION, max(MAX_PRECISION - int_digits, min_scale)


def half_up(number: Decimal, digits: int) -> Decimal:
    """`number` rounded half up to `digits` places after the point (before it when negative), with all the
    digits that takes (the default context holds 28: `round` of 1E308 would fail)."""
    places = max(28, number.adjusted() + digits + 3)
    return number.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=Context(prec=places))

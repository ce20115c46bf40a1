"""Spark's `/`, `DIV` and `%` on the evaluator's Python numbers, under ANSI (an error by zero)."""

from __future__ import annotations

import math
from decimal import ROUND_DOWN, Context, Decimal
from typing import Any

from engine.sql.errors import SqlRuntimeError


def divide(a: Any, b: Any) -> Any:
    """Spark's `/`: integers give a double, decimals a decimal; by zero, an error (ANSI)."""
    if b == 0:
        raise SqlRuntimeError("[DIVIDE_BY_ZERO] division by zero")
    return float(a) / float(b) if isinstance(a, int) and isinstance(b, int) else a / b


def int_divide(a: Any, b: Any) -> Any:
    """Spark's `DIV`: the quotient rounded toward zero, exactly; by zero, an error (ANSI)."""
    if b == 0:
        raise SqlRuntimeError("[DIVIDE_BY_ZERO] division by zero in DIV")
    return int((Decimal(a) / Decimal(b)).to_integral_value(rounding=ROUND_DOWN))


def remainder(a: Any, b: Any) -> Any:
    """Spark's `%`: the sign of the dividend, exactly for integers and decimals; by zero, an error (ANSI)."""
    if b == 0:
        raise SqlRuntimeError("[REMAINDER_BY_ZERO] remainder by zero")
    if isinstance(a, float) or isinstance(b, float):
        if math.isinf(a) or math.isnan(a) or math.isnan(b):  # the JVM's % gives NaN; Python's fmod fails
            return math.nan
        return math.fmod(a, b)
    dividend, divisor = Decimal(a), Decimal(b)  # exactly, however many digits the quotient has (not 28)
    rest = Context(prec=max(28, dividend.adjusted() - divisor.adjusted() + 3)).remainder(dividend, divisor)
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        return rest if rest else rest.copy_abs()  # Spark holds no negative zero: -3.00 % 3 is 0.00
    return int(rest)

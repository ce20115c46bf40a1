"""`CAST` with Spark's ANSI semantics, for the reference evaluator.

A value that does not convert is a `SqlRuntimeError` (the evaluator turns it into NULL for `try_cast`):
text cast to an integer must be a whole number (`'2.7'` is an error, `' 12 '` is 12), a number outside
the integer type's range or a DECIMAL's precision is an error, a fraction cast to an integer is
truncated, text cast to BOOLEAN is one of t/true/y/yes/1 or f/false/n/no/0 (any case).
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from engine.run.values import ValueDecodeError, parse_timestamp, to_text
from engine.sql.errors import SqlRuntimeError

INTEGER_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
TRUE_TEXT = ("t", "true", "y", "yes", "1")
FALSE_TEXT = ("f", "false", "n", "no", "0")
_WHOLE = re.compile(r"[+-]?\d+")
_SPACE = "".join(chr(c) for c in range(33))  # Spark trims every character up to the space off cast text
_WIDE = Context(prec=100)
"""Wide enough to quantize any DECIMAL(38, s) value (the default context holds 28 digits)."""
_NAMES = {"INT": "INT", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "BIGINT": "BIGINT", "BOOLEAN": "BOOLEAN",
          "DOUBLE": "DOUBLE", "FLOAT": "DOUBLE", "DECIMAL": "DECIMAL", "TEXT": "STRING", "VARCHAR": "STRING",
          "CHAR": "STRING", "TIMESTAMP": "TIMESTAMP"}


def spark_cast(value: Any, data_type: exp.DataType) -> Any:
    """`CAST(value AS data_type)` for a type of the allow-list; NULL stays NULL."""
    name = _NAMES.get(data_type.this.name)
    if name is None:
        raise SqlRuntimeError(f"cannot cast to {data_type.sql('spark')}")
    params = [int(p.sql("spark")) for p in data_type.expressions] if name == "DECIMAL" else []
    precision, scale = (params + [10, 0][len(params):])[:2] if name == "DECIMAL" else (0, 0)
    return cast_to(value, name, precision, scale)


def cast_text(text: str, name: str) -> Any:
    """Text cast to one of BIGINT, DOUBLE, DECIMAL (unbounded), BOOLEAN or TIMESTAMP, as when it meets
    a value of that type in a comparison."""
    return cast_to(text, name, 38, 18) if name != "DECIMAL" else _decimal_text(text)


def cast_to(value: Any, name: str, precision: int = 10, scale: int = 0) -> Any:
    if value is None:
        return None
    if name == "STRING":
        return to_text(value)
    if name in INTEGER_BITS:
        return _integer(value, name)
    if name == "BOOLEAN":
        return _boolean(value)
    if name == "DOUBLE":
        return _double(value)
    if name == "DECIMAL":
        return _decimal(value, precision, scale)
    if name == "TIMESTAMP":
        if isinstance(value, datetime):
            return value
        if isinstance(value, str):
            try:
                return parse_timestamp(value)
            except ValueDecodeError:
                raise _invalid(value, name) from None
    raise SqlRuntimeError(f"cannot cast {type(value).__name__} to {name}")


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        text = value.strip(_SPACE)
        if not _WHOLE.fullmatch(text):
            raise _invalid(value, name)
        whole = int(text)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _overflow(value, name)
        whole = int(value)  # truncated toward zero
    elif isinstance(value, (int, Decimal)):
        whole = int(Decimal(value).to_integral_value(rounding=ROUND_DOWN))
    else:
        raise SqlRuntimeError(f"cannot cast {type(value).__name__} to {name}")
    bits = INTEGER_BITS[name]
    if not -(2 ** (bits - 1)) <= whole < 2 ** (bits - 1):
        raise _overflow(value, name)
    return whole


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, Decimal)):
        return value != 0
    if isinstance(value, str):
        text = value.strip(_SPACE).lower()
        if text in TRUE_TEXT or text in FALSE_TEXT:
            return text in TRUE_TEXT
    raise _invalid(value, "BOOLEAN")


def _double(value: Any) -> float:
    if isinstance(value, str):
        text = value.strip(_SPACE)
        if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?", text):
            return float(text.rstrip("dDfF"))
        special = {"nan": math.nan, "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf,
                   "inf": math.inf, "+inf": math.inf, "-inf": -math.inf}
        if text.lower() in special:
            return special[text.lower()]
        raise _invalid(value, "DOUBLE")
    if isinstance(value, (bool, int, float, Decimal)):
        return float(value)
    raise SqlRuntimeError(f"cannot cast {type(value).__name__} to DOUBLE")


def _decimal_text(text: str) -> Decimal:
    try:
        number = Decimal(text.strip(_SPACE))
    except InvalidOperation:
        raise _invalid(text, "DECIMAL") from None
    if not number.is_finite():
        raise _invalid(text, "DECIMAL")
    return number


def _decimal(value: Any, precision: int, scale: int) -> Decimal:
    if isinstance(value, str):
        number = _decimal_text(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _overflow(value, f"DECIMAL({precision},{scale})")
        number = Decimal(repr(value))
    elif isinstance(value, (bool, int, Decimal)):
        number = Decimal(int(value)) if isinstance(value, bool) else Decimal(value)
    else:
        raise SqlRuntimeError(f"cannot cast {type(value).__name__} to DECIMAL")
    if number and number.adjusted() >= precision - scale + 1:  # far too large: not worth quantizing
        raise _overflow(value, f"DECIMAL({precision},{scale})")
    rounded = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=_WIDE)
    if rounded and rounded.adjusted() >= precision - scale:
        raise _overflow(value, f"DECIMAL({precision},{scale})")
    return rounded if rounded else rounded.copy_abs()  # Spark holds no negative zero


def _invalid(value: Any, name: str) -> SqlRuntimeError:
    shown = str(value) if len(str(value)) <= 40 else f"{str(value)[:37]}..."
    return SqlRuntimeError(f"[CAST_INVALID_INPUT] the value {shown!r} cannot be cast to {name}")


def _overflow(value: Any, name: str) -> SqlRuntimeError:
    return SqlRuntimeError(f"[CAST_OVERFLOW] the value {value!r} does not fit {name}")

"""`CAST` with Spark's ANSI semantics, for the reference evaluator, and how Spark renders a value as text.

A value that does not convert is a `SqlRuntimeError` (the evaluator turns it into NULL for `try_cast`):
text cast to an integer must be a whole number (`'2.7'` is an error, `' 12 '` is 12), a number outside
the integer type's range or a DECIMAL's precision is an error, a fraction cast to an integer is
truncated, text cast to BOOLEAN is one of t/true/y/yes/1 or f/false/n/no/0 (any case). A FLOAT is a 32-bit
`floats.Float32`; DATE and TIMESTAMP follow `datetimes` (a TIMESTAMP meets numbers as seconds since the
epoch). A DOUBLE becomes a DECIMAL through its text, as Spark's does (`floats.spark_float_text`).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from engine.core.values import to_text
from engine.sql.datetimes import epoch_micros, epoch_seconds, invalid, to_date, to_timestamp
from engine.sql.errors import SqlRuntimeError
from engine.sql.floats import Float32, as_double, integral_float32, spark_float_text, to_float32

INTEGER_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
TRUE_TEXT = ("t", "true", "y", "yes", "1")
FALSE_TEXT = ("f", "false", "n", "no", "0")
_WHOLE = re.compile(r"[+-]?\d+", re.ASCII)  # Spark reads ASCII digits only (not `١٢`)
_SPACE = "".join(chr(c) for c in range(33))  # Spark trims every character up to the space off cast text
_TRIM_ALL = _SPACE + "\x7f"
"""What Spark trims off text cast to an integer or a BOOLEAN (`UTF8String.trimAll`: whitespace and ISO
controls, DEL too); a DOUBLE, FLOAT or DECIMAL keeps a DEL, and is no number."""
_WIDE = Context(prec=100)
"""Wide enough to quantize any DECIMAL(38, s) value (the default context holds 28 digits)."""
_NAMES = {"INT": "INT", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "BIGINT": "BIGINT", "BOOLEAN": "BOOLEAN",
          "DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "DECIMAL": "DECIMAL", "TEXT": "STRING", "VARCHAR": "STRING",
          "CHAR": "STRING", "TIMESTAMP": "TIMESTAMP", "TIMESTAMPTZ": "TIMESTAMP", "DATE": "DATE"}
"""sqlglot's type names (it reads Spark's TIMESTAMP as TIMESTAMPTZ) as the casts below name them."""


def spark_cast(value: Any, data_type: exp.DataType) -> Any:
    """`CAST(value AS data_type)` for a type of the allow-list; NULL stays NULL."""
    name = _NAMES.get(data_type.this.name)
    if name is None:
        raise SqlRuntimeError(f"cannot cast to {data_type.sql('spark')}")
    params = [int(p.sql("spark")) for p in data_type.expressions] if name == "DECIMAL" else []
    precision, scale = (params + [10, 0][len(params):])[:2] if name == "DECIMAL" else (0, 0)
    return cast_to(value, name, precision, scale)


def cast_text(text: str, name: str) -> Any:
    """Text cast to one of BIGINT, DOUBLE, DECIMAL (unbounded), BOOLEAN, TIMESTAMP or DATE, as when it
    meets a value of that type in a comparison."""
    return cast_to(text, name, 38, 18) if name != "DECIMAL" else _decimal_text(text)


def cast_to(value: Any, name: str, precision: int = 10, scale: int = 0) -> Any:
    if value is None:
        return None
    if name == "STRING":
        return sql_text(value)
    if name in INTEGER_BITS:
        return _integer(value, name)
    if name == "BOOLEAN":
        return _boolean(value)
    if name == "DOUBLE":
        return _double(value)
    if name == "FLOAT":
        return _float(value)
    if name == "DECIMAL":
        return _decimal(value, precision, scale)
    if name == "TIMESTAMP":
        return to_timestamp(value)
    if name == "DATE":
        return to_date(value)
    raise SqlRuntimeError(f"cannot cast {type(value).__name__} to {name}")


def sql_text(value: Any) -> str | None:
    """A value as Spark's SQL renders it as text (a cast to STRING, `concat`, `length`, `LIKE`...): a DOUBLE
    or FLOAT as the JVM writes it (`1.0E-4`, `100.0`), a TIMESTAMP with a four-digit year; the rest as the
    run renders values (`values.to_text`), which is already Spark's style for them."""
    if isinstance(value, float):
        return spark_float_text(value)
    if isinstance(value, datetime):
        moment = value.astimezone(UTC)
        text = f"{moment.year:04d}-{moment:%m-%d %H:%M:%S}"
        return f"{text}.{moment.microsecond:06d}".rstrip("0") if moment.microsecond else text
    if isinstance(value, date):
        return value.isoformat()
    return to_text(value)


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, datetime):  # whole seconds since the epoch, as Spark casts a TIMESTAMP
        value = epoch_seconds(value)
    if isinstance(value, str):
        text = value.strip(_TRIM_ALL)
        if not _WHOLE.fullmatch(text):
            raise invalid(value, name)
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
        text = value.strip(_TRIM_ALL).lower()
        if text in TRUE_TEXT or text in FALSE_TEXT:
            return text in TRUE_TEXT
    raise invalid(value, "BOOLEAN")


def _double(value: Any) -> float:
    if isinstance(value, str):
        text = value.strip(_SPACE)
        if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?", text, re.ASCII):
            return float(text.rstrip("dDfF"))
        special = {"nan": math.nan, "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf,
                   "inf": math.inf, "+inf": math.inf, "-inf": -math.inf}
        if text.lower() in special:
            return special[text.lower()]
        raise invalid(value, "DOUBLE")
    if isinstance(value, float):
        return as_double(value)
    if isinstance(value, (bool, int, Decimal)):
        return float(value)
    if isinstance(value, datetime):  # seconds since the epoch, with the fraction
        return epoch_micros(value) / 1e6
    raise SqlRuntimeError(f"cannot cast {type(value).__name__} to DOUBLE")


def _float(value: Any) -> Float32:
    """CAST(... AS FLOAT): Spark's FLOAT is 32 bits, so the value is rounded to the nearest 32-bit float;
    text and decimals in one rounding, as the JVM reads them."""
    if isinstance(value, str):
        _double(value)  # the same text is accepted, the same is refused
        text = value.strip(_SPACE).rstrip("dDfF")
        if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text, re.ASCII):
            return to_float32(Decimal(text))
        return to_float32(_double(value))
    if isinstance(value, Decimal):
        return to_float32(value)
    if isinstance(value, bool):
        return to_float32(float(value))
    if isinstance(value, int):
        return integral_float32(value)
    return to_float32(_double(value))


def _decimal_text(text: str) -> Decimal:
    trimmed = text.strip(_SPACE)
    if "_" in trimmed or trimmed != trimmed.strip():  # Python's Decimal takes `1_0` and other blanks, Spark not
        raise invalid(text, "DECIMAL")
    try:
        number = Decimal(trimmed)
    except InvalidOperation:
        raise invalid(text, "DECIMAL") from None
    if not number.is_finite():
        raise invalid(text, "DECIMAL")
    return number


def _decimal(value: Any, precision: int, scale: int) -> Decimal:
    if isinstance(value, str):
        number = _decimal_text(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _overflow(value, f"DECIMAL({precision},{scale})")
        number = Decimal(spark_float_text(float(value)))  # a FLOAT as the double it widens to
    elif isinstance(value, (bool, int, Decimal)):
        number = Decimal(int(value)) if isinstance(value, bool) else Decimal(value)
    elif isinstance(value, datetime):  # through the seconds as a DOUBLE, as Spark casts a TIMESTAMP
        number = Decimal(spark_float_text(epoch_micros(value) / 1e6))
    else:
        raise SqlRuntimeError(f"cannot cast {type(value).__name__} to DECIMAL")
    if number and number.adjusted() >= precision - scale + 1:  # far too large: not worth quantizing
        raise _overflow(value, f"DECIMAL({precision},{scale})")
    rounded = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=_WIDE)
    if rounded and rounded.adjusted() >= precision - scale:
        raise _overflow(value, f"DECIMAL({precision},{scale})")
    return rounded if rounded else rounded.copy_abs()  # Spark holds no negative zero


def _overflow(value: Any, name: str) -> SqlRuntimeError:
    return SqlRuntimeError(f"[CAST_OVERFLOW] the value {value!r} does not fit {name}")

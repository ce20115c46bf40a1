"""The values of the allow-list's scalar functions beyond the first ones, as Spark 4's ANSI mode gives them.

Each was checked against Spark (tests/sql/test_reference_equals_spark.py). What surprised:

- `floor` and `ceil` of a DOUBLE are a BIGINT, and one outside BIGINT (1e20, an infinity) is an error
  (ARITHMETIC_OVERFLOW), not the JVM's saturated long; NaN is 0. Of a DECIMAL(p, s) they are a
  DECIMAL(p - s + 1, 0); of an integer, the integer.
- `sign` is always a DOUBLE (`sign(5)` is 1.0), and keeps -0.0 and NaN.
- `greatest` and `least` skip NULLs, and widen their arguments to one type: an integer and a DECIMAL
  give a DECIMAL of the largest scale (`greatest(3, 2.50)` is 3.00), a FLOAT and an integer a DOUBLE, a
  DATE and a TIMESTAMP a TIMESTAMP; NaN is above every number. Text with a number is refused by Spark
  (DATA_DIFF_TYPES) where `=` would cast the text.
- `lpad`/`rpad` to a length at most the text's cut the text to that length (from its start, both), and an
  empty pad leaves a shorter text as it is.
- `instr(s, '')` is 1 (also of ''); `locate(sub, s, pos)` is 0 for a position below 1 or NULL (not NULL),
  and 1 for an empty `sub` whatever the position above 0, even past the end.
- `replace` of an empty search string leaves the text as it is.
- `initcap` upper-cases (as Unicode's full title case: 'ß' is 'Ss', 'ﬁ' 'Fi') the first character of each
  word, words split at spaces only (not tabs, not '-'), and lower-cases the rest with the whole text as
  context (a final 'Σ' is 'ς').
- `hour`, `minute` and `second` of text read it as a TIMESTAMP (a time without a date is today's); `year`,
  `month` and `day` as a DATE; `to_date` of a number reads the number's text (`to_date(2020)` is
  2020-01-01), where `year(5)` is refused by Spark's analysis.
- `date_add`/`date_sub` take an INT number of days only (a BIGINT column is refused by the analysis), so
  Spark is given the days cast to INT, which the reference follows.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from typing import Any

from engine.sql import casts
from engine.sql.datetimes import to_date, to_timestamp
from engine.sql.errors import SqlRuntimeError
from engine.sql.floats import Float32, as_double

_LONG = 2 ** 63
_WIDE = Context(prec=100)


def floor_or_ceil(value: Any, up: bool) -> Any:
    """Spark's `floor` (up=False) or `ceil` of a number (text is read as a DOUBLE); NULL stays NULL."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise SqlRuntimeError(f"{'ceil' if up else 'floor'} of a BOOLEAN: Spark refuses it")
    if isinstance(value, str):
        value = casts.cast_text(value, "DOUBLE")
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal):
        rounded = value.quantize(Decimal(1), rounding=ROUND_CEILING if up else ROUND_FLOOR, context=_WIDE)
        return rounded if rounded else rounded.copy_abs()  # Spark holds no negative zero
    number = as_double(value)
    if math.isnan(number):
        return 0
    if math.isinf(number):
        raise _overflow()
    whole = math.ceil(number) if up else math.floor(number)
    if not -_LONG <= whole < _LONG:
        raise _overflow()
    return whole


def sign(value: Any) -> Any:
    """Spark's `sign`/`signum`: -1.0, 0.0 or 1.0 as a DOUBLE, whatever the number's type; -0.0 and NaN stay."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise SqlRuntimeError("sign of a BOOLEAN: Spark refuses it")
    if isinstance(value, str):
        value = casts.cast_text(value, "DOUBLE")
    number = as_double(value) if isinstance(value, float) else float(value)
    if math.isnan(number) or number == 0:
        return number if isinstance(value, float) else 0.0  # a DOUBLE's -0.0 stays; no other type has one
    return math.copysign(1.0, number)


def _overflow() -> SqlRuntimeError:
    return SqlRuntimeError("[ARITHMETIC_OVERFLOW] the value does not fit a BIGINT")


def widened(values: list[Any], scale: int) -> list[Any]:
    """The non-NULL arguments of `greatest`/`least` as the one type Spark widens them to; `scale` is the
    largest DECIMAL scale among the arguments' types (values of a DECIMAL type take it)."""
    present = [v for v in values if v is not None]
    texts = [v for v in present if isinstance(v, str)]
    if texts and len(texts) < len(present):
        raise SqlRuntimeError("greatest/least of text and another type: Spark refuses it (DATA_DIFF_TYPES)")
    if any(isinstance(v, datetime) for v in present):
        return [to_timestamp(v) for v in present]
    if all(isinstance(v, bool) for v in present) or texts or any(isinstance(v, date) for v in present):
        return present
    if any(isinstance(v, bool) for v in present):
        raise SqlRuntimeError("greatest/least of a BOOLEAN and a number: Spark refuses it (DATA_DIFF_TYPES)")
    if any(isinstance(v, float) for v in present):
        if all(isinstance(v, Float32) for v in present):
            return present
        return [as_double(v) if isinstance(v, float) else float(v) for v in present]
    if any(isinstance(v, Decimal) for v in present) or scale > 0:
        step = Decimal(1).scaleb(-scale)
        return [Decimal(v).quantize(step, context=_WIDE) for v in present]
    return present


def pad(text: str, length: int, fill: str, left: bool) -> str:
    """Spark's `lpad`/`rpad` (UTF8String.lpad/rpad): a text at least `length` long is cut to it."""
    missing = length - len(text)
    if missing <= 0 or not fill:
        return text[:max(length, 0)]
    filler = (fill * (missing // len(fill) + 1))[:missing]
    return filler + text if left else text + filler


def locate(sub: str, text: str, position: int) -> int:
    """Spark's `locate(sub, text, position)` once none is NULL: 1-based, 0 when not found or when the
    position is below 1; an empty `sub` is found at 1 (UTF8String.indexOf gives 0 for it, at any start)."""
    if position < 1:
        return 0
    if not sub:
        return 1
    return text.find(sub, position - 1) + 1


def replace(text: str, search: str, replacement: str) -> str:
    """Spark's `replace`: every occurrence, left to right; an empty search string changes nothing."""
    return text.replace(search, replacement) if search else text


def initcap(text: str) -> str:
    """Spark 4's `initcap`: each character after a space (or first) in full title case, the others lower
    case, in the context of the whole text (Unicode's final sigma)."""
    lowered = text.lower()
    out: list[str] = []
    for i, char in enumerate(text):
        if i == 0 or text[i - 1] == " ":
            out.append(char.title())
        elif char == "Σ":  # final or not depends on what surrounds it: Python's lower of the whole text knows
            out.append(lowered[len(text[:i].lower())])
        else:
            out.append(char.lower())
    return "".join(out)


def day_count(value: Any) -> int | None:
    """The days of `date_add`/`date_sub`, which Spark is given as `CAST(n AS INT)` (`engine.sql.spark`: its
    analysis takes nothing wider than an INT there): the ANSI cast's value, or its error (text that is not a
    whole number, a number outside INT); a fraction is cut toward zero, as a cast cuts it."""
    return None if value is None else int(casts.cast_to(value, "INT"))


def date_of(value: Any, explicit: bool) -> date | None:
    """A value as the DATE `year`, `datediff`, `date_add`... read it (Spark's implicit cast: text as a DATE
    cast reads it, a TIMESTAMP's day in UTC) or `to_date(x)` (explicit: a number's text too)."""
    if value is None:
        return None
    if isinstance(value, bool | int | float | Decimal):
        if not explicit:
            raise SqlRuntimeError(f"a number ({casts.sql_text(value)}) where Spark takes a DATE")
        value = casts.sql_text(value)
    return to_date(value)


def timestamp_of(value: Any) -> datetime | None:
    """A value as the TIMESTAMP `hour`, `minute`, `second` read it, in UTC; a number is refused."""
    if value is None:
        return None
    if isinstance(value, bool | int | float | Decimal):
        raise SqlRuntimeError(f"a number ({casts.sql_text(value)}) where Spark takes a TIMESTAMP")
    return to_timestamp(value).astimezone(UTC)

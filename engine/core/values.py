"""Column values in a run: how data files are typed, rendered, cast and compared.

One Python representation per type family, used by every stage:

| family | value |
|---|---|
| character, character large objects (TEXT, CLOB, LONG) | `str` |
| integer types (SMALLINT ... SERIAL8) | `int` |
| DECIMAL / NUMERIC / NUMBER | `decimal.Decimal`, quantized to the scale when one is given (`UNBOUNDED_SCALE`) |
| REAL / FLOAT / DOUBLE | `float` |
| DATE / TIMESTAMP / TIMESTAMPTZ / DATETIME | `datetime` in UTC, to the microsecond (an Oracle DATE has a time) |
| BIT / BOOLEAN | `bool` |
| binary, binary large objects (BLOB, BYTE, LONG RAW) | `bytes` (hex text in JSON and CSV) |
| UDT / complex | the JSON value, opaque |

NULL is `None`. Large objects are compared by the SHA-256 of their content
(`comparable`), as a replicate compares them without shipping both copies.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from datetime import UTC, date, datetime
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Any

from engine.core.types import SqlType, TypeFamily

BINARY_LOBS = ("BLOB", "BYTE", "LONG RAW")
INTEGER_TYPES = ("SMALLINT", "INTEGER", "INT", "BIGINT", "SERIAL", "SERIAL8")
INTEGER_BITS = {"SMALLINT": 16, "INTEGER": 32, "INT": 32, "SERIAL": 32, "BIGINT": 64, "SERIAL8": 64}
"""The width of each integer type: a value outside its two's-complement range does not fit."""
REAL_MAX = 3.4028234663852886e38
"""The largest finite REAL (4-byte float)."""
MAX_UNBOUNDED_DIGITS = 1000
"""Digits either side of the point a DECIMAL(p) without a scale takes (one without precision takes far
fewer: `UNBOUNDED_WHOLE_DIGITS`)."""
UNBOUNDED_WHOLE_DIGITS, UNBOUNDED_SCALE = 28, 10
"""A DECIMAL/NUMERIC/NUMBER without precision is carried as DECIMAL(38,10), the widest decimal Spark and
Parquet hold: at most 28 digits before the point and 10 after (trailing zeros of the fraction aside). A value
with more does not fit: a reject, never a rounded value nor a failed run."""
SUB_MICROSECOND = "has sub-microsecond digits; a TIMESTAMP holds microseconds"
"""Why a timestamp value with non-zero digits beyond the microsecond does not fit (never truncated)."""
_FRACTION = re.compile(r"[T ]\d\d:\d\d:\d\d[.,](\d{7,})", re.ASCII)
_EXACT = Context(prec=MAX_UNBOUNDED_DIGITS * 2 + 10)
"""Arithmetic wide enough to quantize any accepted DECIMAL exactly (the default context keeps 28 digits)."""


def quantized(value: int | Decimal, scale: int) -> Decimal:
    """`value` at `scale` digits after the point, rounded half away from zero as SQL's casts round, exactly
    whatever its digits."""
    return Decimal(value).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=_EXACT)


class ValueDecodeError(ValueError):
    """A value that does not read as its column's type."""


def parse_timestamp(text: str) -> datetime:
    """ISO 8601 text (`2026-01-05T10:00:00Z`, `2026-01-05 10:00:00`, `2026-01-05`) as a UTC datetime.

    Text without an offset is read as UTC.
    """
    src = text.strip()
    if not src:
        raise ValueDecodeError("empty timestamp")
    try:
        value = datetime.fromisoformat(src)
    except ValueError:
        raise ValueDecodeError(f"not an ISO 8601 timestamp: {_short(text)!r}") from None
    return as_utc(value)


def as_utc(value: datetime) -> datetime:
    """`value` in UTC (naive is read as UTC); `ValueDecodeError` when UTC cannot hold it
    (`0001-01-01T00:00:00+14:00` is in the year 0 in UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError):
        raise ValueDecodeError(f"{value.isoformat()} is outside the years 1-9999 in UTC") from None


def is_binary(t: SqlType) -> bool:
    return t.family is TypeFamily.BINARY or (t.family is TypeFamily.LARGE_OBJECT and t.name in BINARY_LOBS)


def is_textual(t: SqlType) -> bool:
    return t.family is TypeFamily.CHARACTER or (t.family is TypeFamily.LARGE_OBJECT and not is_binary(t))


def decode_value(raw: Any, t: SqlType | None) -> Any:
    """A JSON (or Parquet-native) value typed by column type `t`; `t` None keeps it as given.

    Raises `ValueDecodeError` with a short reason.
    """
    if raw is None or t is None:
        return raw
    family = t.family
    if is_textual(t):
        if isinstance(raw, str):
            return check_length(raw, t)
        if isinstance(raw, (int, float, Decimal)) and not isinstance(raw, bool):
            return check_length(to_text(raw) or "", t)
        raise ValueDecodeError(f"expected text for {t}, got {_kind(raw)}")
    if family is TypeFamily.EXACT_NUMERIC:
        return _exact(raw, t)
    if family is TypeFamily.APPROX_NUMERIC:
        if isinstance(raw, bool):
            raise ValueDecodeError(f"expected a number for {t}, got a boolean")
        if isinstance(raw, (int, float, Decimal, str)):
            return _approx(raw, t)
        raise ValueDecodeError(f"expected a number for {t}, got {_kind(raw)}")
    if family is TypeFamily.DATETIME:
        if isinstance(raw, datetime):
            if getattr(raw, "nanosecond", 0):  # a pandas Timestamp of a nanosecond Parquet column
                raise ValueDecodeError(f"{_short(str(raw))!r} {SUB_MICROSECOND}")
            return as_utc(raw)
        if isinstance(raw, date):
            return datetime(raw.year, raw.month, raw.day, tzinfo=UTC)
        if isinstance(raw, str):
            fraction = _FRACTION.search(raw)
            if fraction is not None and fraction[1][6:].strip("0"):  # fromisoformat would cut them off
                raise ValueDecodeError(f"{_short(raw)!r} {SUB_MICROSECOND}")
            return parse_timestamp(raw)
        raise ValueDecodeError(f"expected a timestamp for {t}, got {_kind(raw)}")
    if family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return _boolean(raw, t)
    if is_binary(t):
        if isinstance(raw, (bytes, bytearray)):
            return check_bytes(bytes(raw), t)
        if isinstance(raw, str):
            return check_bytes(_hex(raw), t)
        raise ValueDecodeError(f"expected hex text for {t}, got {_kind(raw)}")
    return raw  # UDT and complex values are opaque


def check_length(text: str, t: SqlType) -> str:
    """`text` when it fits the length of a CHAR/VARCHAR/NCHAR/NVARCHAR/VARCHAR2 column (in characters)."""
    if t.family is TypeFamily.CHARACTER and t.length is not None and len(text) > t.length:
        raise ValueDecodeError(f"{len(text)} characters do not fit {t} ({_short(text)!r})")
    return text


def check_bytes(data: bytes, t: SqlType) -> bytes:
    """`data` when it fits the length of a BINARY/VARBINARY/RAW column (in bytes)."""
    if t.family is TypeFamily.BINARY and t.length is not None and len(data) > t.length:
        raise ValueDecodeError(f"{len(data)} bytes do not fit {t} ({_short(data.hex())!r})")
    return data


def _approx(raw: int | float | Decimal | str, t: SqlType) -> float:
    """A REAL/FLOAT/DOUBLE value; a finite number too large for the type does not fit (NaN and the
    infinities, which those types hold, pass)."""
    try:
        value = float(_numeric_text(raw, special=True)) if isinstance(raw, str) else float(raw)
    except ValueError:
        raise ValueDecodeError(f"not a number: {_short(str(raw))!r}") from None
    except OverflowError:
        value = math.inf
    limit = REAL_MAX if t.name == "REAL" else sys.float_info.max
    written_infinite = isinstance(raw, float) or (isinstance(raw, str) and "inf" in raw.lower())
    if (math.isinf(value) and not written_infinite) or (math.isfinite(value) and abs(value) > limit):
        raise ValueDecodeError(f"{_short(str(raw))} is out of range for {t}")
    return value


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_SPECIAL = re.compile(r"[+-]?(inf|infinity|nan)", re.IGNORECASE)


def _numeric_text(raw: str, special: bool = False) -> str:
    """`raw` stripped when it is a plain decimal number (ASCII digits, an optional point and exponent;
    `special`: also inf/infinity/nan); Python would also take `1_000` or other scripts' digits."""
    text = raw.strip()
    if _NUMBER.fullmatch(text) or (special and _SPECIAL.fullmatch(text)):
        return text
    raise ValueDecodeError(f"not a number: {_short(raw)!r}")


def _short(text: str, limit: int = 60) -> str:
    """`text` cut for a reason line."""
    return text if len(text) <= limit else text[:limit] + "..."


def decode_text(text: str, t: SqlType | None) -> Any:
    """A CSV cell typed by column type `t`: the empty cell is NULL; UDT/complex cells hold JSON."""
    if text == "":
        return None
    if t is not None and t.family in (TypeFamily.UDT, TypeFamily.COMPLEX):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text
    return decode_value(text, t)


def _exact(raw: Any, t: SqlType) -> int | Decimal:
    if type(raw) is int and t.name in INTEGER_TYPES:  # the common case, without a Decimal (same result)
        bits = INTEGER_BITS.get(t.name, 64)
        if -(2 ** (bits - 1)) <= raw < 2 ** (bits - 1):
            return raw
    elif (type(raw) is Decimal and t.scale is not None and t.precision is not None and raw.is_finite() and raw
          and raw.as_tuple().exponent == -t.scale and raw.adjusted() < t.precision - t.scale):
        return raw  # already of the column's scale and within its precision (same result)
    if isinstance(raw, bool):
        raise ValueDecodeError(f"expected a number for {t}, got a boolean")
    try:
        if isinstance(raw, float):
            if not math.isfinite(raw):
                raise ValueDecodeError(f"{raw} is not a finite number")
            number = Decimal(repr(raw))
        elif isinstance(raw, (int, Decimal)):
            number = Decimal(raw)
        elif isinstance(raw, str):
            number = Decimal(_numeric_text(raw))
        else:
            raise ValueDecodeError(f"expected a number for {t}, got {_kind(raw)}")
    except (InvalidOperation, ValueError):
        raise ValueDecodeError(f"not a number: {_short(str(raw))!r}") from None
    if not number.is_finite():
        raise ValueDecodeError(f"{_short(str(raw))!r} is not a finite number")
    shown = _short(str(raw))
    if t.name in INTEGER_TYPES:
        if number.adjusted() > 20:  # far beyond any integer type: not worth writing out
            raise ValueDecodeError(f"{shown} is out of range for {t}")
        if number != number.to_integral_value(context=_EXACT):
            raise ValueDecodeError(f"{shown!r} is not a whole number ({t})")
        bits = INTEGER_BITS.get(t.name, 64)
        whole = int(number)
        if not -(2 ** (bits - 1)) <= whole < 2 ** (bits - 1):
            raise ValueDecodeError(f"{shown} is out of range for {t} ({-(2 ** (bits - 1))} to {2 ** (bits - 1) - 1})")
        return whole
    if t.precision is not None and number and number.adjusted() >= t.precision - (t.scale or 0):
        raise ValueDecodeError(f"{shown} does not fit {t}")
    if t.precision is None and not unbounded_fits(number):
        raise ValueDecodeError(f"{shown} does not fit an unbounded {t} (at most {UNBOUNDED_WHOLE_DIGITS} digits "
                               f"before the point and {UNBOUNDED_SCALE} after)")
    if t.scale is None and number and abs(number.adjusted()) > MAX_UNBOUNDED_DIGITS:  # else quantized below
        raise ValueDecodeError(f"{shown} is out of range for {t}")
    if t.scale is not None:
        number = number.quantize(Decimal(1).scaleb(-t.scale), rounding=ROUND_HALF_UP, context=_EXACT)
    if t.precision is not None and number.copy_abs() >= Decimal(10) ** (t.precision - (t.scale or 0)):
        raise ValueDecodeError(f"{shown} does not fit {t}")
    return number if number else number.copy_abs()  # no column holds a negative zero (-0.00 is 0.00)


def unbounded_fits(number: Decimal) -> bool:
    """Whether a finite number fits a DECIMAL without precision (`UNBOUNDED_WHOLE_DIGITS`): trailing zeros of
    its fraction do not count (`1.50000000000000` fits), in time linear in its digits whatever its exponent."""
    if not number:
        return True
    if number.adjusted() >= UNBOUNDED_WHOLE_DIGITS:
        return False
    _, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    trailing = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return exponent + trailing >= -UNBOUNDED_SCALE


def _boolean(raw: Any, t: SqlType) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str) and raw.strip().lower() in ("true", "false", "0", "1", "t", "f"):
        return raw.strip().lower() in ("true", "1", "t")
    raise ValueDecodeError(f"expected a boolean for {t}, got {raw!r}")


def _hex(text: str) -> bytes:
    src = text.strip()
    src = src[2:] if src[:2].lower() == "0x" else src
    try:
        return bytes.fromhex(src)
    except ValueError:
        raise ValueDecodeError(f"not hex text: {text[:40]!r}") from None


def _kind(raw: Any) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean", str: "text"}.get(type(raw), type(raw).__name__)


# --- rendering -------------------------------------------------------------


def to_text(value: Any) -> str | None:
    """A value as text, the way `concat` and casts to character render it (Spark's style)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        text = value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
        return f"{text}.{value.microsecond:06d}".rstrip("0") if value.microsecond else text
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def to_json_value(value: Any) -> Any:
    """A value as plain JSON: timestamps ISO 8601 with `Z`, decimals as exact text, bytes as hex, a double
    that is no finite number as the text a DOUBLE column reads it from (`NaN`, `Infinity`, `-Infinity`:
    JSON has no such number, and a bare `NaN` is a line no JSON reader takes)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    return str(value)


def row_to_json(row: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if row is None else {k: to_json_value(v) for k, v in row.items()}


# --- casts -----------------------------------------------------------------


class ConversionError(ValueError):
    """A value that cannot take a column's type."""


def cast_value(value: Any, t: SqlType) -> Any:
    """`cast` with Spark's try-cast semantics: a fraction cast to an integer type is truncated, and a
    value that cannot be converted becomes NULL. A cast to CHAR/VARCHAR renders the value whatever its
    length, as Spark's cast does."""
    if value is not None and is_textual(t):
        return to_text(value)
    if t.name in INTEGER_TYPES and value is not None and not isinstance(value, (bool, datetime)):
        try:
            number = Decimal(value.strip()) if isinstance(value, str) else _as_decimal(value)
        except (InvalidOperation, TypeError):
            return None
        if number is None or not number.is_finite() or number.adjusted() > 20:  # no integer type holds 10^21
            return None
        value = int(number.to_integral_value(rounding=ROUND_DOWN))
    try:
        return conform(value, t)
    except ConversionError:
        return None


def conform(value: Any, t: SqlType | None) -> Any:
    """`value` converted to column type `t` (text parses, numbers widen or narrow exactly, text renders).

    Raises `ConversionError` when the value cannot take the type.
    """
    if value is None or t is None:
        return value
    if is_textual(t):
        try:
            return check_length(to_text(value) or "", t)
        except ValueDecodeError as exc:
            raise ConversionError(str(exc)) from None
    if is_binary(t) and isinstance(value, str):
        try:
            return check_bytes(_hex(value), t)
        except ValueDecodeError as exc:
            raise ConversionError(str(exc)) from None
    if t.family is TypeFamily.EXACT_NUMERIC and isinstance(value, datetime):
        raise ConversionError(f"a timestamp cannot be {t}")
    source = value
    if isinstance(value, str) and t.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        source = value.strip()
    try:
        return decode_value(source, t)
    except ValueDecodeError as exc:
        raise ConversionError(str(exc)) from None


# --- comparison ------------------------------------------------------------


def comparable(value: Any, t: SqlType | None = None) -> Any:
    """The form a value is compared in: the SHA-256 of a large object's content, the value otherwise."""
    if value is None or t is None or t.family is not TypeFamily.LARGE_OBJECT:
        return _canonical(value)
    data = value if isinstance(value, (bytes, bytearray)) else str(value).encode("utf-8")
    return ("sha256", hashlib.sha256(data).hexdigest())


def _canonical(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, default=str)
    return value


_PLAIN = (str, int, bool)


def same_value(a: Any, b: Any, t: SqlType | None = None) -> bool:
    """Null-safe equality (NULL equals NULL), numbers compared by value, large objects by hash."""
    if a is None or b is None:
        return a is None and b is None
    kind = type(a)
    if kind is type(b) and kind in _PLAIN:  # text, an integer: equal as themselves (a large object's hash too)
        return bool(a == b)
    left, right = comparable(a, t), comparable(b, t)
    if isinstance(left, float) and isinstance(right, float) and not (math.isfinite(left) and math.isfinite(right)):
        return left == right or (left != left and right != right)  # NaN equals NaN, as in Spark and PostgreSQL
    if isinstance(left, float) or isinstance(right, float):
        order = compare(left, right)
        return order == 0
    try:
        return bool(left == right)
    except TypeError:
        return False


def compare(a: Any, b: Any) -> int | None:
    """-1, 0 or 1 for two non-NULL values of one kind; None when they cannot be ordered."""
    if isinstance(a, bool) != isinstance(b, bool):
        return None
    if _is_number(a) and _is_number(b):
        x, y = _as_decimal(a), _as_decimal(b)
        if x is None or y is None:
            return None
        return (x > y) - (x < y)
    if type(a) is not type(b) and not (isinstance(a, datetime) and isinstance(b, datetime)):
        return None
    try:
        return int((a > b) - (a < b))
    except TypeError:
        return None


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _as_decimal(v: Any) -> Decimal | None:
    if isinstance(v, float):
        return Decimal(v) if math.isfinite(v) else None
    return Decimal(v)

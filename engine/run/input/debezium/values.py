"""Debezium values as the record decoder takes them (`envelope`): by the wrapper's logical type where
there is one (`DEBEZIUM_TYPES`), else by the model column's type, as Debezium's defaults write them.

A Decimal's unscaled bytes are bounded before they are decoded (`MAX_DECIMAL_BYTES`): a longer value is a
reject with that reason, whatever its size, in time linear in the line.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.core.types import SqlType, TypeFamily
from engine.core.values import INTEGER_TYPES, SUB_MICROSECOND, is_binary
from engine.run.input.records import shown

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
TIMESTAMP_UNITS = {"org.apache.kafka.connect.data.Timestamp": 1_000, "io.debezium.time.Timestamp": 1_000,
                   "io.debezium.time.MicroTimestamp": 1_000_000, "io.debezium.time.NanoTimestamp": 1_000_000_000}
"""Logical timestamp types: a count of this many units a second since 1970-01-01T00:00:00 UTC."""
DATE_TYPES = ("org.apache.kafka.connect.data.Date", "io.debezium.time.Date")
"""Logical date types: days since 1970-01-01."""
TIME_UNITS = {"org.apache.kafka.connect.data.Time": 1_000, "io.debezium.time.Time": 1_000,
              "io.debezium.time.MicroTime": 1_000_000, "io.debezium.time.NanoTime": 1_000_000_000}
"""Logical time-of-day types: units since midnight."""
DECIMAL = "org.apache.kafka.connect.data.Decimal"
VARIABLE_DECIMAL = "io.debezium.data.VariableScaleDecimal"
ZONED = ("io.debezium.time.ZonedTimestamp", "io.debezium.time.ZonedTime")
MAX_DECIMAL_BYTES = 16
"""Unscaled bytes of a Decimal: 16 hold every 38-digit number (`limits.MAX_INT_DIGITS`, DECIMAL(38), the widest
exact number of the DBMSs Mapwright maps between). Longer bytes are refused before they are decoded: turning
n bytes into a number costs n squared (a 2.7 MB value had held a run for six minutes)."""
_MAX_DECIMAL_BASE64 = 4 * -(-MAX_DECIMAL_BYTES // 3)
"""Base64 characters of `MAX_DECIMAL_BYTES` bytes (24)."""
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
DEBEZIUM_TYPES = (*TIMESTAMP_UNITS, *DATE_TYPES, *TIME_UNITS, DECIMAL, VARIABLE_DECIMAL, *ZONED)


class Unusable(ValueError):
    """A value (or event) that cannot be read; the message is the reject's reason."""


def read_value(value: Any, schema: dict[str, Any] | None, t: SqlType | None, dbms: str = "") -> Any:
    """A value as the record decoder takes it: by its logical type when the wrapper gives one, else by
    the column's type (`by_column_type`); `Unusable` when it cannot be read so."""
    if value is None:
        return None
    name = (schema or {}).get("name")
    if name in DEBEZIUM_TYPES:
        return by_logical_type(value, name, schema or {})
    if schema is not None and schema.get("type") == "bytes" and isinstance(value, str):
        return _base64(value) if t is None or is_binary(t) else value
    return by_column_type(value, t, dbms)


def by_logical_type(value: Any, name: str, schema: dict[str, Any]) -> Any:
    """A value of a Debezium or Kafka Connect logical type as a Python value."""
    if name == DECIMAL:
        if isinstance(value, str):
            parameters = schema.get("parameters")
            scale = integer_of(parameters.get("scale", 0)) if isinstance(parameters, dict) else None
            if scale is None:
                raise Unusable(f"Decimal without a whole-number scale: {shown(schema.get('parameters'))}")
            return scaled(_decimal_bytes(value), scale)
        return value  # the JSON converter's decimal.format=NUMERIC
    if name == VARIABLE_DECIMAL:
        if not (isinstance(value, dict) and integer_of(value.get("scale")) is not None
                and isinstance(value.get("value"), str)):
            raise Unusable(f"VariableScaleDecimal must be {{scale, value}}, got {shown(value)}")
        return scaled(_decimal_bytes(value["value"]), integer_of(value["scale"]) or 0)
    if name in TIMESTAMP_UNITS:
        return exact_instant(_count(value, name), TIMESTAMP_UNITS[name], name)
    if name in DATE_TYPES:
        return instant(_count(value, name) * 86_400, 1, name)
    if name in TIME_UNITS:
        return _time_of_day(_count(value, name), TIME_UNITS[name])
    return value  # ZonedTimestamp / ZonedTime: ISO 8601 text the column type reads


def by_column_type(value: Any, t: SqlType | None, dbms: str = "") -> Any:
    """A value with no logical type, read by the column's type as Debezium's defaults write it:
    a DATE as days since 1970 (Oracle's DATE, which holds a time, in milliseconds); a TIMESTAMP as
    milliseconds, microseconds or nanoseconds since 1970 by its fractional precision (`fraction_digits`);
    text as ISO 8601; a DECIMAL from a number or numeric text, else from base64
    bytes (decimal.handling.mode=precise) with the column's scale; binary from base64."""
    if t is None or isinstance(value, bool):
        return value
    if t.family is TypeFamily.DATETIME and isinstance(value, int):
        if t.name == "DATE" and dbms != "oracle":
            return instant(value * 86_400, 1, "a DATE")
        digits = fraction_digits(t, dbms)
        per_second = 1_000 if digits <= 3 else 1_000_000 if digits <= 6 else 1_000_000_000
        return exact_instant(value, per_second, f"a {t.name}")
    if t.family is TypeFamily.EXACT_NUMERIC and t.name not in INTEGER_TYPES and isinstance(value, str) \
            and not _numeric(value):
        if len(value) > _MAX_DECIMAL_BASE64 and _BASE64.fullmatch(value):
            _decimal_bytes(value)  # too long: refused with its reason
        try:
            return scaled(_base64(value), t.scale or 0)
        except Unusable:
            return value  # the decoder names what is wrong with it
    if is_binary(t) and isinstance(value, str):
        return _base64(value)
    return value


def fraction_digits(t: SqlType, dbms: str) -> int:
    """Fractional-second digits a DATE/TIMESTAMP/DATETIME column's values carry, by Debezium's adaptive
    time precision: its precision when the type has one, else the DBMS's default for it (SQL Server's
    datetime2 7, its and MySQL's DATETIME 3, Oracle's DATE 3, any other TIMESTAMP 6)."""
    if t.precision is not None:
        return t.precision
    if t.name == "DATE" or (t.name == "DATETIME" and dbms in ("mssql", "mysql")):
        return 3
    if t.name == "TIMESTAMP" and dbms == "mssql":
        return 7
    return 6


def scaled(unscaled: bytes, scale: int) -> Decimal:
    """A Kafka Connect Decimal: big-endian two's-complement unscaled integer bytes and a scale. At most
    `MAX_DECIMAL_BYTES` bytes are read, so the cost is bounded whatever the input."""
    if not unscaled:
        raise Unusable("empty Decimal bytes")
    if len(unscaled) > MAX_DECIMAL_BYTES:
        raise _too_long(f"{len(unscaled)} bytes")
    try:
        return Decimal(int.from_bytes(unscaled, "big", signed=True)).scaleb(-scale)
    except ArithmeticError:  # a scale beyond what any decimal holds (decimal.InvalidOperation)
        raise Unusable(f"Decimal scale {shown(scale)} is out of range") from None


def _decimal_bytes(text: str) -> bytes:
    """A Decimal's unscaled bytes from base64, refused by their length before they are decoded."""
    if len(text) > _MAX_DECIMAL_BASE64:
        raise _too_long(f"{len(text)} base64 characters")
    return _base64(text)


def _too_long(size: str) -> Unusable:
    return Unusable(f"Decimal of {size}: longer than the {MAX_DECIMAL_BYTES} bytes of a 38-digit number "
                     f"(DECIMAL(38) is the widest a replicated DBMS holds)")


def _base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Unusable(f"not base64: {shown(text)}") from None


def _numeric(text: str) -> bool:
    try:
        Decimal(text.strip())
    except InvalidOperation:
        return False
    return bool(text.strip())


def integer_of(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    digits = value.strip().removeprefix("-").removeprefix("+") if isinstance(value, str) else ""
    if digits.isascii() and digits.isdigit() and len(digits) <= 40:
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)  # a JSON number as the records read it (`3.0`, `1E+2`)
    return None


def _count(value: Any, name: str) -> int:
    count = integer_of(value)
    if count is None:
        raise Unusable(f"{name.rsplit('.', 1)[-1]} must be a whole number, got {shown(value)}")
    return count


def exact_instant(count: int, per_second: int, what: str) -> datetime:
    """`instant` of a column value: a count with non-zero digits beyond the microsecond (a NanoTimestamp's
    `...123456789`) does not fit, where `instant` would cut them off."""
    if per_second > 1_000_000 and count % (per_second // 1_000_000):
        raise Unusable(f"{what} {count} {SUB_MICROSECOND}")
    return instant(count, per_second, what)


def instant(count: int, per_second: int, what: str) -> datetime:
    seconds, rest = divmod(count, per_second)
    try:
        return EPOCH + timedelta(seconds=seconds, microseconds=rest * 1_000_000 // per_second)
    except OverflowError:
        raise Unusable(f"{what} {count} is outside the years 1-9999") from None


def _time_of_day(count: int, per_second: int) -> str:
    if not 0 <= count < 86_400 * per_second:
        raise Unusable(f"time of day {count} is not within one day")
    if per_second > 1_000_000 and count % (per_second // 1_000_000):
        raise Unusable(f"time of day {count} {SUB_MICROSECOND}")
    micros = count * 1_000_000 // per_second
    return (datetime.min + timedelta(microseconds=micros)).time().isoformat()


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")

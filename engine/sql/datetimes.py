"""Spark's DATE and TIMESTAMP casts for the reference evaluator, in the session time zone UTC.

A TIMESTAMP is a timezone-aware `datetime` in UTC and a DATE a `date`, as the run holds them. Text is read
the way Spark's cast reads it (not ISO 8601 as `values.parse_timestamp` reads a data file): a year of 4 to
7 digits, then optionally `-month`, `-day` (one or two digits each), a space or `T` and `hour[:minute[:
second[.fraction][zone]]]`, the zone (`Z`, `UTC`, `GMT+01:00`, `+0100`, `Europe/Paris`, `PST`) only after the
seconds; a fraction past microseconds is cut off. A DATE takes anything after the day's space or `T`. Text
that does not read is Spark's ANSI error, CAST_INVALID_INPUT. Text with a time and no date (`10:00`,
`10:00:01.5 UTC`, or `T10` with the `T` first, before any space) is a TIMESTAMP at that time today: today
in its zone, or in UTC without one, as Spark's `LocalDate.now` has it. Such a value depends on the day of
the run (`datetime.now`), on Spark as here; as a DATE such text does not read. Not modelled: years outside
1-9999 (Spark holds them; a Python `datetime` does not): an error here.

Numbers meet timestamps as seconds since the epoch: a TIMESTAMP cast to BIGINT is its whole seconds
(rounded down), to DOUBLE its seconds with the fraction; a number cast to TIMESTAMP is that many seconds.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.sql.errors import SqlRuntimeError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SPACE = "".join(chr(c) for c in range(33)) + "\x7f"  # Spark trims whitespace and ISO controls, DEL too
_DATE = r"(?P<sign>[+-])?(?P<year>\d{4,7})(?:-(?P<month>\d{1,2})(?:-(?P<day>\d{1,2}))?)?"
_ZONE = (r"\s*(?P<zone>Z|[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?|(?:UTC|GMT|UT)(?:[+-]\d{1,2}(?::?\d{2})?)?"
         r"|[A-Za-z][\w/+-]*)")
_TIME = (r"(?P<hour>\d{1,2})(?::(?P<minute>\d{1,2})(?::(?P<second>\d{1,2})(?:\.(?P<fraction>\d*))?"
         rf"(?:{_ZONE})?)?)?")  # Spark reads a zone after the seconds only: `2020-01-01 01:02Z` is no timestamp
_TIMESTAMP_TEXT = re.compile(rf"{_DATE}(?:[ T]{_TIME})?", re.ASCII)  # Spark: ASCII digits
_TIME_TEXT = re.compile(rf"(?:T|(?=\d{{1,2}}:)){_TIME}", re.ASCII)
"""A time without a date: after a `T`, or `hour:minute...` (Spark's `parseTimestampString`)."""
_DATE_TEXT = re.compile(rf"{_DATE}(?:[ T].*)?", re.S | re.ASCII)
_OFFSET = re.compile(r"(?P<sign>[+-])(?P<hours>\d{1,2})(?::?(?P<minutes>\d{2})(?::?(?P<seconds>\d{2}))?)?", re.ASCII)
MICROS = 1_000_000
SHORT_ZONES = {
    "ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis", "IST": "Asia/Kolkata",
    "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan", "NST": "Pacific/Auckland",
    "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico", "PST": "America/Los_Angeles",
    "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh", "EST": "-05:00", "MST": "-07:00", "HST": "-10:00",
}
"""The JVM's three-letter zone names (`ZoneId.SHORT_IDS`), which Spark reads as these zones."""
_LONG = 2 ** 63


def to_timestamp(value: Any) -> datetime:
    """CAST(value AS TIMESTAMP) under ANSI: from text, a DATE (its midnight), or seconds since the epoch."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        return _timestamp_text(value)
    if isinstance(value, bool):
        raise SqlRuntimeError("cannot cast BOOLEAN to TIMESTAMP")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise invalid(value, "TIMESTAMP")
        micros_float = value * MICROS
        if not -_LONG <= micros_float < _LONG:
            raise SqlRuntimeError(f"[CAST_OVERFLOW] the value {value!r} does not fit TIMESTAMP")
        return _from_micros(int(micros_float), value)
    if isinstance(value, int):
        return _from_micros(value * MICROS, value)
    if isinstance(value, Decimal):
        return _from_micros(int(value * MICROS), value)
    raise SqlRuntimeError(f"cannot cast {type(value).__name__} to TIMESTAMP")


def to_date(value: Any) -> date:
    """CAST(value AS DATE) under ANSI: from text, or a TIMESTAMP's day in UTC; numbers do not cast."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        match = _DATE_TEXT.fullmatch(value.strip(_SPACE))
        if match is None:
            raise invalid(value, "DATE")
        return _day(match, value, "DATE")
    raise SqlRuntimeError(f"cannot cast {type(value).__name__} to DATE")


def epoch_micros(value: datetime) -> int:
    """A TIMESTAMP as microseconds since the epoch (exactly)."""
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * MICROS + delta.microseconds


def epoch_seconds(value: datetime) -> int:
    """A TIMESTAMP cast to an integer: whole seconds since the epoch, rounded down (Spark's floorDiv)."""
    return epoch_micros(value) // MICROS


def invalid(value: Any, name: str) -> SqlRuntimeError:
    shown = str(value) if len(str(value)) <= 40 else f"{str(value)[:37]}..."
    return SqlRuntimeError(f"[CAST_INVALID_INPUT] the value {shown!r} cannot be cast to {name}")


def _from_micros(micros: int, value: Any) -> datetime:
    try:
        return EPOCH + timedelta(microseconds=micros)
    except OverflowError:
        raise SqlRuntimeError(f"the value {value!r} as a TIMESTAMP is outside the years 1-9999, which the "
                              "reference does not hold") from None


def _timestamp_text(text: str) -> datetime:
    """Text as a TIMESTAMP; a time without a date is today's (`_time_text`)."""
    match = _TIMESTAMP_TEXT.fullmatch(text.strip(_SPACE))
    if match is None:
        return _time_text(text)
    day = _day(match, text, "TIMESTAMP")
    return _instant(day, match, text)


def _time_text(text: str) -> datetime:
    """A time without a date (`10:00`, `T10`, `10:00:01.5 Europe/Paris`) at today's date in its zone, or in
    UTC without one, as Spark gives it (`LocalDate.now(zone)`): the value depends on the day it is read.
    Spark takes the `T` form only with the `T` first in the text, before any space (its `j == 0`)."""
    trimmed = text.strip(_SPACE)
    match = _TIME_TEXT.fullmatch(trimmed) if trimmed[:1] != "T" or text[:1] == "T" else None
    if match is None:
        raise invalid(text, "TIMESTAMP")
    return _instant(datetime.now(_zone(match["zone"], text)).date(), match, text)


def _instant(day: date, match: re.Match[str], text: str) -> datetime:
    """The day at the time `match` read, in its zone (UTC without one), as a TIMESTAMP in UTC."""
    fraction = (match["fraction"] or "")[:6].ljust(6, "0")
    try:
        local = datetime(day.year, day.month, day.day, int(match["hour"] or 0), int(match["minute"] or 0),
                         int(match["second"] or 0), int(fraction), tzinfo=_zone(match["zone"], text))
    except ValueError:
        raise invalid(text, "TIMESTAMP") from None
    try:
        return local.astimezone(UTC)
    except OverflowError:
        raise _outside(text) from None


def _day(match: re.Match[str], text: str, name: str) -> date:
    if match["sign"] == "-" or len(match["year"]) > 4:
        raise _outside(text)
    try:
        return date(int(match["year"]), int(match["month"] or 1), int(match["day"] or 1))
    except ValueError:  # month 13, February 30th, the year 0
        if int(match["year"]) == 0:
            raise _outside(text) from None
        raise invalid(text, name) from None


def _zone(name: str | None, text: str) -> tzinfo:
    """A zone as Spark reads one after a time: an offset, Z, UTC/GMT/UT with an offset, or a region."""
    if name is None or name in ("Z", "UTC", "GMT", "UT"):
        return UTC
    name = SHORT_ZONES.get(name, name)
    offset = _OFFSET.fullmatch(name.removeprefix("UTC").removeprefix("GMT").removeprefix("UT"))
    if offset is not None:
        hours, minutes, seconds = (int(offset[k] or 0) for k in ("hours", "minutes", "seconds"))
        if hours > 18 or minutes > 59 or seconds > 59:
            raise invalid(text, "TIMESTAMP")
        sign = -1 if offset["sign"] == "-" else 1
        return timezone(sign * timedelta(hours=hours, minutes=minutes, seconds=seconds))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid(text, "TIMESTAMP") from None


def _outside(text: str) -> SqlRuntimeError:
    return SqlRuntimeError(f"the value {text[:40]!r} is outside the years 1-9999, which the reference does "
                           "not hold as a TIMESTAMP or DATE")

"""TY005: a target column fed a value of an incompatible or narrower type.

`value_type` follows a column map's method tree and gives the SQL type of
what it produces, or None where that cannot be known (an expression, a
system value without a fixed type, an unknown column). `narrowing` compares
that type with the target column's and says why the value may not fit, or
None when it always fits. The rule suggests the cast that makes the
conversion explicit; the designer shows that text as is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, time
from decimal import Decimal

from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)
from engine.model.schema import Mapping, Table
from engine.model.types import SqlType, TypeFamily, parse_type
from engine.rules.findings import Finding, Location
from engine.rules.registry import emits

CHAR, EXACT, APPROX, DATETIME = (TypeFamily.CHARACTER, TypeFamily.EXACT_NUMERIC,
                                 TypeFamily.APPROX_NUMERIC, TypeFamily.DATETIME)
INTEGER_DIGITS = {"SMALLINT": 5, "INTEGER": 10, "SERIAL": 10, "BIGINT": 19, "SERIAL8": 19}
UNBOUNDED_DECIMAL_DIGITS = 38  # NUMBER / DECIMAL without a precision (Oracle's maximum)
APPROX_DIGITS = {"REAL": 6, "FLOAT": 15, "DOUBLE": 15}
APPROX_MAX = {"REAL": Decimal("3.4028235e38"), "FLOAT": Decimal("1.7976931348623157e308"),
              "DOUBLE": Decimal("1.7976931348623157e308")}
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
DATETIME_TEXT = {"DATE": 10, "TIMESTAMP": 26, "DATETIME": 26}
CHARACTER_LOBS = ("TEXT", "CLOB", "LONG")
BINARY_LOBS = ("BLOB", "BYTE", "LONG RAW")


@emits("TY005")
def type_compatibility(mapping: Mapping, source: Table, target: Table) -> Iterator[Finding]:
    """TY005 for each mapped target column whose value may not convert or fit."""
    for target_col, method in mapping.columns.items():
        column = target.column(target_col)
        produced = value_type(method, source)
        if column is None or produced is None:
            continue
        wanted = column.sql_type
        why = constant_fits(method.value, wanted) if isinstance(method, Constant) else narrowing(produced, wanted)
        if why is None:
            continue
        origin = describe(method, source)
        yield Finding("TY005", f"{target_col} is {wanted} but is fed {origin}: {why}; "
                      f"suggested cast: cast({_expr(method)} as {wanted})",
                      Location(mapping=mapping.id, table=target.key, column=target_col))


# --- what a method produces ------------------------------------------------------


def value_type(method: Method, source: Table) -> SqlType | None:
    """The SQL type `method` produces from `source`'s columns; None when it cannot be typed."""
    if isinstance(method, Column):
        col = source.column(method.input)
        return col.sql_type if col is not None else None
    if isinstance(method, Cast):
        return parse_type(method.type)  # the model validated it on load
    if isinstance(method, Concat):
        widths = [text_width(value_type(m, source)) for m in method.inputs]
        known = None if None in widths else sum(w or 0 for w in widths) + len(method.sep) * (len(widths) - 1)
        return _varchar(known)
    if isinstance(method, (Substring, Split, Upper, Lower, Trim)):
        return _text_part(method, source)
    if isinstance(method, Constant):
        return _constant_type(method.value)
    if isinstance(method, System) and method.name == "commit_ts":
        return SqlType("TIMESTAMP", DATETIME)
    return None  # expression, or a system value whose type depends on the run


def _text_part(method: Substring | Split | Upper | Lower | Trim, source: Table) -> SqlType | None:
    inner = value_type(method.input, source)
    if inner is None:
        return None
    if isinstance(method, (Upper, Lower, Trim)) and inner.family is CHAR:
        return inner if not isinstance(method, Trim) else _varchar(inner.length)
    if isinstance(method, Split):
        return _varchar(None)  # a part's length depends on the data: text, of unknown length
    width = text_width(inner)
    if isinstance(method, Substring) and width is not None:
        width = max(width - method.start + 1, 0)
        width = min(width, method.length) if method.length is not None else width
    elif isinstance(method, Substring) and method.length is not None:
        width = method.length
    return _varchar(width)


def constant_fits(value: str | int | float | bool | None, dst: SqlType) -> str | None:
    """Why a constant may not convert to or fit in `dst`: its own text and digits, not a type's bounds."""
    if value is None or isinstance(value, bool):
        return None if value is None else narrowing(SqlType("BOOLEAN", TypeFamily.BOOLEAN), dst)
    text = value if isinstance(value, str) else str(value)
    if dst.family is CHAR:
        return _longer(len(text), dst.length, "characters")
    if dst.family in (EXACT, APPROX) and isinstance(value, str) and _beyond_decimal_range(text):
        return f"{_clip(text)} is beyond the range of any number"
    number = _as_decimal(text)
    if dst.family is EXACT and number is not None:
        return _constant_into_exact(text, number, dst)
    if dst.family is APPROX and number is not None:
        limit = APPROX_MAX[dst.name]
        return f"{_clip(text)} is beyond the range of {dst} (about {limit:.1e})" if abs(number) > limit else None
    if dst.family is DATETIME and isinstance(value, str):
        return None if _is_iso_datetime(value, dst) else f"{value!r} is not an ISO date or timestamp"
    return narrowing(_constant_type(value) or _varchar(len(text)), dst)


def _is_iso_datetime(text: str, dst: SqlType) -> bool:
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        return False
    return dst.name != "DATE" or parsed.time() == time(0)


def _as_decimal(text: str) -> Decimal | None:
    try:
        number = Decimal(text.strip())
    except ArithmeticError:  # InvalidOperation, and any other signal of the decimal module
        return None
    return number if number.is_finite() else None


def _beyond_decimal_range(text: str) -> bool:
    """A number in form whose exponent the decimal module cannot even hold (`1e999999999999999999999`)."""
    return _NUMBER.fullmatch(text.strip()) is not None and _as_decimal(text) is None


def _constant_into_exact(text: str, number: Decimal, dst: SqlType) -> str | None:
    """Why a numeric constant does not fit `dst`: too many digits before the point, or decimal places cut."""
    before, after = _decimal_shape(number)
    room = integer_digits(dst)
    if room is not None and before > room:
        return f"{_clip(text)} has {before:,} digits before the point, {dst} holds {room}"
    if after > (dst.scale or 0):
        return f"{_clip(text)} has {after:,} decimal places, {dst} keeps {dst.scale or 0}"
    return None


def _decimal_shape(number: Decimal) -> tuple[int, int]:
    """(digits before the point, digits after it) of a finite decimal, trailing zeros aside.

    Read from the digits and the exponent, never through the decimal context: `normalize()` overflows on
    `1e9999999` and rounds `1e-9999999` to zero, both beyond the context's exponent range."""
    _, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)  # finite numbers only
    significant = "".join(map(str, digits)).rstrip("0")
    if not significant:
        return 0, 0
    exponent += len(digits) - len(significant)
    return max(len(significant) + exponent, 0), max(-exponent, 0)


def _clip(text: str) -> str:
    return text if len(text) <= 30 else f"{text[:27]}..."


def _constant_type(value: str | int | float | bool | None) -> SqlType | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return SqlType("BOOLEAN", TypeFamily.BOOLEAN)
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return SqlType("DECIMAL", EXACT, precision=max(digits, 1), scale=0)
    if isinstance(value, float):
        return SqlType("DOUBLE", APPROX)
    return _varchar(max(len(value), 1))


def text_width(t: SqlType | None) -> int | None:
    """Characters the value takes rendered as text (concat renders non-character inputs); None if unbounded."""
    if t is None:
        return None
    if t.family in (CHAR, TypeFamily.BINARY):
        return t.length
    if t.family is EXACT:
        digits = integer_digits(t)
        if digits is None:
            return None
        scale = t.scale or 0
        return digits + scale + 1 + (1 if scale else 0)  # sign, and the point when there is a scale
    if t.family is DATETIME:
        return DATETIME_TEXT[t.name]
    if t.family is APPROX:
        return 24  # shortest round-trip text of a double, with sign and exponent
    if t.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return 5
    return None


def _varchar(length: int | None) -> SqlType:
    return SqlType("VARCHAR", CHAR, length=length)


def integer_digits(t: SqlType) -> int | None:
    """Digits before the decimal point an exact numeric type holds."""
    if t.name in INTEGER_DIGITS:
        return INTEGER_DIGITS[t.name]
    if t.precision is None:
        return UNBOUNDED_DECIMAL_DIGITS
    return t.precision - (t.scale or 0)


# --- does it fit -------------------------------------------------------------------


def narrowing(src: SqlType, dst: SqlType) -> str | None:
    """Why a `src` value may not convert to or fit in `dst`; None when it always does."""
    if src.family in (TypeFamily.UDT, TypeFamily.COMPLEX) or dst.family in (TypeFamily.UDT, TypeFamily.COMPLEX):
        return None  # TY001's business; the rule does not look inside user and complex types
    if dst.family is CHAR:
        return _into_text(src, dst)
    if src.family is CHAR or (src.family is TypeFamily.LARGE_OBJECT and src.name in CHARACTER_LOBS):
        return None if _is_text_lob(dst) else f"text may not convert to {dst}"
    if dst.family is EXACT:
        return _into_exact(src, dst)
    if dst.family is APPROX:
        return _into_approx(src, dst)
    if dst.family is DATETIME:
        if src.family is not DATETIME:
            return f"{src} does not convert to a date or time"
        return "the time of day is lost" if src.name != "DATE" and dst.name == "DATE" else None
    if dst.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return None if src.family in (TypeFamily.BOOLEAN, TypeFamily.BIT) else f"{src} is not a truth value"
    if dst.family is TypeFamily.BINARY:
        if src.family is not TypeFamily.BINARY:
            return f"{src} is not binary data"
        return _longer(src.length, dst.length, "bytes")
    if dst.family is TypeFamily.LARGE_OBJECT:
        if dst.name in BINARY_LOBS:
            ok = src.family is TypeFamily.BINARY or src.name in BINARY_LOBS
            return None if ok else f"{src} is not binary data"
        return None
    return None


def _into_text(src: SqlType, dst: SqlType) -> str | None:
    if src.family is TypeFamily.LARGE_OBJECT:
        return f"a large object may be longer than {dst.length} characters"
    width = text_width(src)
    if width is None or dst.length is None:
        return None
    return _longer(width, dst.length, "characters")


def _into_exact(src: SqlType, dst: SqlType) -> str | None:
    if src.family is APPROX:
        return "a floating-point value may lose its fraction or not fit"
    if src.family in (TypeFamily.BOOLEAN, TypeFamily.BIT):
        return None
    if src.family is not EXACT:
        return f"{src} does not convert to a number"
    have, want = integer_digits(src), integer_digits(dst)
    if have is not None and want is not None and have > want:
        return f"it holds up to {have} digits before the point, {dst} only {want}"
    if (src.scale or 0) > (dst.scale or 0):
        return f"its {src.scale} decimal places are cut to {dst.scale or 0}"
    return None


def _into_approx(src: SqlType, dst: SqlType) -> str | None:
    if src.family is APPROX:
        keep = APPROX_DIGITS[dst.name]
        return f"{src} keeps more digits than {dst} ({keep})" if APPROX_DIGITS[src.name] > keep else None
    if src.family is not EXACT:
        return None if src.family in (TypeFamily.BOOLEAN, TypeFamily.BIT) else f"{src} does not convert to a number"
    digits = (integer_digits(src) or 0) + (src.scale or 0)
    keep = APPROX_DIGITS[dst.name]
    return f"{src} has up to {digits} digits and {dst} keeps about {keep}" if digits > keep else None


def _longer(have: int | None, limit: int | None, unit: str) -> str | None:
    if have is None or limit is None or have <= limit:
        return None
    return f"values up to {have} {unit} may be cut to {limit}"


def _is_text_lob(t: SqlType) -> bool:
    return t.family is TypeFamily.LARGE_OBJECT and t.name in CHARACTER_LOBS


# --- words for the message ---------------------------------------------------------


def describe(method: Method, source: Table) -> str:
    """`VARCHAR2(30) from hq.ORDERS.NOTE`, or `VARCHAR(13) from concat(...)`."""
    produced = value_type(method, source)
    shown = str(produced) if produced is not None and not _unsized_text(produced) else "text"
    if isinstance(method, Column):
        return f"{shown} from {source.key}.{method.input}"
    return f"{shown} from {_expr(method)}"


def _unsized_text(t: SqlType) -> bool:
    return t.family is CHAR and t.length is None


def _expr(method: Method) -> str:
    """A short, readable rendering of a method tree: NAME, concat(REGION, CUST_NO), substring(NOTE, 1, 10)."""
    if isinstance(method, Column):
        return method.input
    if isinstance(method, Constant):
        return repr(method.value)
    if isinstance(method, System):
        return f"system({method.name})"
    if isinstance(method, Cast):
        return f"cast({_expr(method.input)} as {method.type})"
    if isinstance(method, Substring):
        tail = f", {method.length}" if method.length is not None else ""
        return f"substring({_expr(method.input)}, {method.start}{tail})"
    if isinstance(method, Split):
        return f"split({_expr(method.input)}, {method.sep!r}, {method.index})"
    inputs = method.inputs_of()
    return f"{method.method}({', '.join(_expr(m) for m in inputs)})"

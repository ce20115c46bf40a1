"""TY005: a target column fed a value of an incompatible or narrower type.

`value_type` follows a column map's method tree and gives the SQL type of
what it produces, or None where that cannot be known (an expression, a
system value without a fixed type, an unknown column). `narrowing`
(`engine.core.narrowing`, which `engine.reversibility` asks too) compares
that type with the target column's and says why the value may not fit, or
None when it always fits. The rule suggests the cast that makes the
conversion explicit; the designer shows that text as is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, time
from decimal import Decimal
from typing import assert_never

from engine.core.narrowing import integer_digits, longer, narrowing, text_width, varchar
from engine.core.types import SqlType, TypeFamily, parse_type
from engine.model.methods import (
    Cast,
    Column,
    Concat,
    Constant,
    Expression,
    Lower,
    Method,
    Split,
    Substring,
    System,
    Trim,
    Upper,
)
from engine.model.schema import Mapping, Table
from engine.rules.findings import Finding, Location
from engine.rules.registry import emits

CHAR, EXACT, APPROX, DATETIME = (TypeFamily.CHARACTER, TypeFamily.EXACT_NUMERIC,
                                 TypeFamily.APPROX_NUMERIC, TypeFamily.DATETIME)
APPROX_MAX = {"REAL": Decimal("3.4028235e38"), "FLOAT": Decimal("1.7976931348623157e308"),
              "DOUBLE": Decimal("1.7976931348623157e308")}
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


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
    match method:
        case Column():
            col = source.column(method.input)
            return col.sql_type if col is not None else None
        case Cast():
            return parse_type(method.type)  # the model validated it on load
        case Concat():
            widths = [text_width(value_type(m, source)) for m in method.inputs]
            known = None if None in widths else sum(w or 0 for w in widths) + len(method.sep) * (len(widths) - 1)
            return varchar(known)
        case Substring() | Split() | Upper() | Lower() | Trim():
            return _text_part(method, source)
        case Constant():
            return _constant_type(method.value)
        case System():
            return SqlType("TIMESTAMP", DATETIME) if method.name == "commit_ts" else None  # others: the run's
        case Expression():
            return None
        case _:
            assert_never(method)


def _text_part(method: Substring | Split | Upper | Lower | Trim, source: Table) -> SqlType | None:
    inner = value_type(method.input, source)
    if inner is None:
        return None
    if isinstance(method, (Upper, Lower, Trim)) and inner.family is CHAR:
        return inner if not isinstance(method, Trim) else varchar(inner.length)
    if isinstance(method, Split):
        return varchar(None)  # a part's length depends on the data: text, of unknown length
    width = text_width(inner)
    if isinstance(method, Substring) and width is not None:
        width = max(width - method.start + 1, 0)
        width = min(width, method.length) if method.length is not None else width
    elif isinstance(method, Substring) and method.length is not None:
        width = method.length
    return varchar(width)


def constant_fits(value: str | int | float | bool | None, dst: SqlType) -> str | None:
    """Why a constant may not convert to or fit in `dst`: its own text and digits, not a type's bounds."""
    if value is None or isinstance(value, bool):
        return None if value is None else narrowing(SqlType("BOOLEAN", TypeFamily.BOOLEAN), dst)
    text = value if isinstance(value, str) else str(value)
    if dst.family is CHAR:
        return longer(len(text), dst.length, "characters")
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
    return narrowing(_constant_type(value) or varchar(len(text)), dst)


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
    return varchar(max(len(value), 1))


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

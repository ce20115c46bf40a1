"""Whether the values of one column type fit another: `narrowing(src, dst)` says why a value may not.

TY005 (`engine.rules.typecompat`) reports it on a column map, and `engine.reversibility` asks it whether a
cast and its opposite give the value back; both sit above this module, which knows types only.
"""

from __future__ import annotations

from engine.core.types import SqlType, TypeFamily
from engine.core.values import BINARY_LOBS

CHAR, EXACT, APPROX, DATETIME = (TypeFamily.CHARACTER, TypeFamily.EXACT_NUMERIC,
                                 TypeFamily.APPROX_NUMERIC, TypeFamily.DATETIME)
INTEGER_DIGITS = {"SMALLINT": 5, "INTEGER": 10, "SERIAL": 10, "BIGINT": 19, "SERIAL8": 19}
UNBOUNDED_DECIMAL_DIGITS = 38  # NUMBER / DECIMAL without a precision (Oracle's maximum)
APPROX_DIGITS = {"REAL": 6, "FLOAT": 15, "DOUBLE": 15}
DATETIME_TEXT = {"DATE": 10, "TIMESTAMP": 26, "DATETIME": 26}
CHARACTER_LOBS = ("TEXT", "CLOB", "LONG")


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


def varchar(length: int | None) -> SqlType:
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
        return longer(src.length, dst.length, "bytes")
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
    return longer(width, dst.length, "characters")


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


def longer(have: int | None, limit: int | None, unit: str) -> str | None:
    if have is None or limit is None or have <= limit:
        return None
    return f"values up to {have} {unit} may be cut to {limit}"


def _is_text_lob(t: SqlType) -> bool:
    return t.family is TypeFamily.LARGE_OBJECT and t.name in CHARACTER_LOBS

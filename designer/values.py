"""A model's JSON values in text fields: shown in full, and read back keeping their JSON type.

A priority of 40 stays the integer 40 (not 40.0), 1234567 is shown as it is (not 1.23457e+06), and a
constant or default that is a number stays a number when its cell is edited; text that is not a finite
number is refused where a number is required, and so is a number no model file may hold (an integer of
more than 38 digits, `1e400`: the loader's limits, `engine.limits`), with the loader's own reason.
"""

from __future__ import annotations

import math
import re
from typing import Any

from engine.limits import MAX_INT_DIGITS

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class OutOfRange(ValueError):
    """Text that reads as a number, but one no model file may hold."""

JsonScalar = str | int | float | bool | None


def value_text(value: JsonScalar) -> str:
    """How a field shows `value`: integers in full, floats as the shortest text that reads back the same."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def parse_number(text: str) -> int | float:
    """`text` as the number the user wrote: `40` an integer, `2.5` or `1e3` a float. A ValueError says why
    `text` is no finite number (`inf`, `nan` are not), an `OutOfRange` why it is one a model file may not hold
    (an integer of more than 38 digits, `1e999`), in the words the loader would use."""
    stripped = text.strip()
    if _INTEGER.fullmatch(stripped):
        digits = len(stripped.lstrip("+-").lstrip("0")) or 1
        if digits > MAX_INT_DIGITS:
            raise OutOfRange(f"an integer of {digits} digits is out of range (at most {MAX_INT_DIGITS})")
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        number = float(stripped)
    except ValueError:
        raise ValueError(f"not a number: {_clip(stripped)!r}") from None
    if not math.isfinite(number):
        if _DECIMAL.fullmatch(stripped):
            raise OutOfRange(f"{_clip(stripped)} is out of range for a number")
        raise ValueError(f"not a finite number: {_clip(stripped)!r}")
    return number


def parse_integer(text: str, what: str) -> int | None:
    """An optional whole-number field (`what` names it in the reason): empty is None."""
    if not text.strip():
        return None
    try:
        number = parse_number(text)
    except OutOfRange as exc:
        raise ValueError(f"{what}: {exc}") from None
    except ValueError:
        number = math.nan
    if not isinstance(number, int):  # int()'s own message ("invalid literal for int() with base 10") names neither
        raise ValueError(f"{what}: not a whole number: {_clip(text.strip())!r}")
    return number


def optional_number(text: str) -> int | float | None:
    """An optional number field: empty is None."""
    return parse_number(text) if text.strip() else None


def parse_like(text: str, current: Any) -> JsonScalar:
    """The text of an edited field as a value of `current`'s JSON type: a number stays a number and a boolean
    a boolean when the text reads as one; anything else (and any edit of a string) is a string.
    The text `current` is shown as gives `current` back unchanged. A number no model file may hold, written
    where a number is, raises `OutOfRange`."""
    if text == value_text(current):
        return current  # type: ignore[no-any-return]
    if isinstance(current, bool):
        lowered = text.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
    elif isinstance(current, int | float):
        try:
            return parse_number(text)
        except OutOfRange:
            raise  # a number was meant: it is refused, not kept as the text of its digits
        except ValueError:
            pass
    return text


def _clip(text: str) -> str:
    """A value quoted in a reason, cut to a line's length."""
    return text if len(text) <= 40 else f"{text[:37]}..."

"""A model's JSON values in text fields: shown in full, and read back keeping their JSON type.

A priority of 40 stays the integer 40 (not 40.0), 1234567 is shown as it is (not 1.23457e+06), and a
constant or default that is a number stays a number when its cell is edited; text that is not a finite
number is refused where a number is required.
"""

from __future__ import annotations

import math
from typing import Any

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
    `text` is no finite number (`inf`, `nan` and `1e999` are not)."""
    stripped = text.strip()
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        number = float(stripped)
    except ValueError:
        raise ValueError(f"not a number: {stripped!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"not a finite number: {stripped!r}")
    return number


def optional_number(text: str) -> int | float | None:
    """An optional number field: empty is None."""
    return parse_number(text) if text.strip() else None


def parse_like(text: str, current: Any) -> JsonScalar:
    """The text of an edited field as a value of `current`'s JSON type: a number stays a number and a boolean
    a boolean when the text reads as one; anything else (and any edit of a string) is a string.
    The text `current` is shown as gives `current` back unchanged."""
    if text == value_text(current):
        return current  # type: ignore[no-any-return]
    if isinstance(current, bool):
        lowered = text.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
    elif isinstance(current, int | float):
        try:
            return parse_number(text)
        except ValueError:
            pass
    return text

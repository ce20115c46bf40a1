"""Input validated against its pydantic declaration, its faults by field (docs/contract.md §4).

A run's inputs are declared as pydantic types (`records.RecordDoc`, `debezium.envelope.PayloadDoc`, `schedule.LinkDoc`);
the contract words each fault in its own way and tells the first, in an order partly set by lookups in the
model between fields (an unknown site before a bad op). `validated` gives the value as declared, or the first
fault of each field by name, so that a decoder tells them in that order with the contract's words.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

T = TypeVar("T")


def validated(adapter: TypeAdapter[T], value: object) -> tuple[T | None, dict[str | int, ErrorDetails]]:
    """(`value` as declared, no faults), or (None, the first fault of each top-level field, by its name; the
    key `""` for a fault of the value as a whole)."""
    try:
        return adapter.validate_python(value), {}
    except ValidationError as exc:
        faults: dict[str | int, ErrorDetails] = {}
        for error in exc.errors(include_url=False):
            faults.setdefault(error["loc"][0] if error["loc"] else "", error)
        return None, faults

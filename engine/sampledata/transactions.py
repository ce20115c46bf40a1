"""What the generator writes down: transactions at one site, each a list of row operations."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

Row = dict[str, Any]
Key = tuple[Any, ...]


@dataclass
class Op:
    """One operation of a transaction on one table (`"srv.T"`), images in the table's columns."""

    table: str
    op: str
    before: Row | None = None
    after: Row | None = None


@dataclass
class Txn:
    """A transaction committed at one site; `defect` says how its one record is to be malformed."""

    site: str
    at: datetime
    ops: list[Op]
    defect: str | None = None
    id: str = ""


def update(table: str, before: Row, **changes: Any) -> Op:
    """An update of `before` that sets `changes`."""
    return Op(table, "U", before, {**before, **changes})

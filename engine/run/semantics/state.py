"""The rows of the tables at one site while a run applies changes, with lookups and undo.

A row remembers the site that last wrote it (`writer`): site priority
compares the origin of a change with it (a snapshot row was last written by
its own site; a local commit makes the local site the writer; an applied
remote change makes its origin the writer).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from engine.run.input.keys import hashable
from engine.run.semantics.context import TablePlan

Row = dict[str, Any]


@dataclass(frozen=True)
class RowState:
    values: Row
    writer: str


def key_of(values: Row, columns: Sequence[str]) -> tuple[Any, ...]:
    return tuple(hashable(values.get(c)) for c in columns)


class UndoLog:
    """What changed since a savepoint, while `active`."""

    def __init__(self) -> None:
        self.active = False
        self.entries: list[tuple[TableState, int, RowState | None]] = []


class TableState:
    """A table's rows by internal row id, with indexes built on demand for the column sets looked up."""

    def __init__(self, plan: TablePlan, undo: UndoLog | None = None) -> None:
        self.plan = plan
        self.rows: dict[int, RowState] = {}
        self._next = 0
        self._indexes: dict[tuple[str, ...], dict[tuple[Any, ...], set[int]]] = {}
        self._undo = undo

    def __iter__(self) -> Iterator[tuple[int, RowState]]:
        return iter(sorted(self.rows.items()))

    def find(self, columns: Sequence[str], values: Sequence[Any]) -> list[int]:
        """Row ids whose `columns` equal `values`, NULL matching NULL; in insertion order."""
        cols = tuple(columns)
        index = self._indexes.get(cols)
        if index is None:
            index = self._indexes[cols] = {}
            for rowid, row in self.rows.items():
                index.setdefault(key_of(row.values, cols), set()).add(rowid)
        return sorted(index.get(tuple(hashable(v) for v in values), ()))

    def put(self, rowid: int | None, row: RowState) -> int:
        """Insert (rowid None) or replace a row; returns its id."""
        if rowid is None:
            rowid = self._next
            self._next += 1
        previous = self.rows.get(rowid)
        self._record(rowid, previous)
        if previous is not None:
            self._unindex(rowid, previous)
        self.rows[rowid] = row
        for cols, index in self._indexes.items():
            index.setdefault(key_of(row.values, cols), set()).add(rowid)
        return rowid

    def delete(self, rowid: int) -> None:
        previous = self.rows.pop(rowid)
        self._record(rowid, previous)
        self._unindex(rowid, previous)

    def restore(self, rowid: int, previous: RowState | None) -> None:
        """Put back what a row was before a change (None: it did not exist), without recording undo."""
        current = self.rows.pop(rowid, None)
        if current is not None:
            self._unindex(rowid, current)
        if previous is not None:
            self.rows[rowid] = previous
            for cols, index in self._indexes.items():
                index.setdefault(key_of(previous.values, cols), set()).add(rowid)

    def _record(self, rowid: int, previous: RowState | None) -> None:
        if self._undo is not None and self._undo.active:
            self._undo.entries.append((self, rowid, previous))

    def _unindex(self, rowid: int, row: RowState) -> None:
        for cols, index in self._indexes.items():
            ids = index.get(key_of(row.values, cols))
            if ids is not None:
                ids.discard(rowid)


class SiteState:
    """The tables of every site a fold touches, by (site, table key), with a transaction savepoint."""

    def __init__(self, plans: dict[str, TablePlan]) -> None:
        self.plans = plans
        self.tables: dict[tuple[str, str], TableState] = {}
        self._undo = UndoLog()

    def table(self, site: str, table_key: str) -> TableState:
        key = (site, table_key)
        state = self.tables.get(key)
        if state is None:
            state = self.tables[key] = TableState(self.plans[table_key], self._undo)
        return state

    def begin(self) -> None:
        """Start recording changes so that `rollback` can undo them."""
        self._undo.entries.clear()
        self._undo.active = True

    def rollback(self) -> None:
        """Undo every change since `begin`."""
        for table, rowid, previous in reversed(self._undo.entries):
            table.restore(rowid, previous)
        self.end()

    def end(self) -> None:
        """Stop recording; what changed stays."""
        self._undo.entries.clear()
        self._undo.active = False

"""Table models over the plain records of a run directory (conflicts, error queue, rejects, convergence).

Every model is a `QAbstractTableModel` adapter over a list of dicts: `data()` formats a cell only when a
view asks for it, so 100,000 conflicts cost one list, not one item per row. Sorting permutes row
numbers with Python's `sorted` (one key per record) instead of letting a proxy compare rows pairwise
through `data()`, which would be millions of calls.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, TypeAlias

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from designer.labels import plain_tip

Record = Mapping[str, Any]
Index: TypeAlias = QModelIndex | QPersistentModelIndex

RECORD_ROLE = Qt.ItemDataRole.UserRole + 1
"""`data(index, RECORD_ROLE)`: the whole record (dict) behind the row."""

HIGHLIGHT = QColor(255, 170, 0, 110)
"""Translucent amber: blends with the palette's base colour, so it reads on light and dark themes."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while building many objects that form no cycles (decoded
    JSON, sort keys): otherwise every few thousand allocations it walks all live records again, which
    doubles the time to load or sort 100,000 conflicts."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def highlight_brush() -> QBrush:
    return QBrush(HIGHLIGHT)


def cell_text(value: Any) -> str:
    """A value as one line of text: rows and keys as `COL=value, ...`, lists comma-separated."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_inner(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_inner(v) for v in value)
    return json.dumps(value)


def _inner(value: Any) -> str:
    return "NULL" if value is None else value if isinstance(value, str) else json.dumps(value, default=str)


NUMERIC_TEXT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
"""A number written as text: how a run directory writes a DECIMAL (exact, so never a JSON number)."""
INSTANT_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}.*)?")
"""A date or timestamp in ISO 8601: how a run directory writes one (`...10:00:00Z`, `...10:00:00.5Z`)."""
NUMBER, NOT_A_NUMBER, INSTANT, TEXT, ROW, NULL = range(6)


def sort_key(value: Any) -> tuple[int, Any]:
    """Numbers numerically (DECIMALs, written as text, too), then instants in time order, then text, then
    rows and keys (by their values), NULL last (ascending). A run directory writes DECIMALs and timestamps
    as text, and text order is wrong for both: `10.5` before `9.25`, `10:00:00.5Z` before `10:00:00Z`."""
    if isinstance(value, str):
        return _text_key(value)
    if isinstance(value, dict | list | tuple):
        return (ROW, tuple([sort_key(v) for v in (value.values() if isinstance(value, dict) else value)]))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (NUMBER, value) if value == value else (NOT_A_NUMBER, 0)  # NaN equals nothing, itself neither
    if value is None:
        return (NULL, "")
    return (TEXT, cell_text(value))


def _text_key(text: str) -> tuple[int, Any]:
    if NUMERIC_TEXT.fullmatch(text):
        try:
            return (NUMBER, Decimal(text))
        except InvalidOperation:  # an exponent beyond what Decimal holds
            return (TEXT, text)
    if INSTANT_TEXT.fullmatch(text):
        try:
            when = datetime.fromisoformat(text)
        except ValueError:
            return (TEXT, text)
        return (INSTANT, when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC))
    return (TEXT, text)


@dataclass(frozen=True)
class Column:
    """One table column: the record field it shows (or a function deriving the value) and its title."""

    key: str
    title: str
    derive: Callable[[Record], Any] | None = None

    def of(self, record: Record) -> Any:
        return self.derive(record) if self.derive else record.get(self.key)


def is_diverged(mapping: Record) -> bool:
    """A convergence entry with diverged keys."""
    return bool(mapping.get("diverged"))


def _status(mapping: Record) -> str:
    return "diverged" if is_diverged(mapping) else "converged"


CONFLICT_COLUMNS = (Column("site", "Site"), Column("origin", "Origin"), Column("table", "Table"),
                    Column("dkey", "Key"), Column("type", "Type"), Column("outcome", "Outcome"),
                    Column("method", "Method"), Column("column_group", "Group"), Column("delivered_at", "Delivered"))
"""Where and what first, then how it ended; the column group (a list of columns, often long) late."""
QUEUE_COLUMNS = (Column("site", "Site"), Column("origin", "Origin"), Column("table", "Table"), Column("op", "Op"),
                 Column("txn", "Txn"), Column("seq", "Seq"), Column("mapping", "Mapping"),
                 Column("delivered_at", "Delivered"), Column("reason", "Reason"))
REJECT_COLUMNS = (Column("file", "File"), Column("line", "Line"), Column("reason", "Reason"), Column("raw", "Raw"))
CONVERGENCE_COLUMNS = (Column("mapping", "Mapping"), Column("compared", "Compared"),
                       Column("diverged", "Diverged"), Column("status", "Status", _status))
EXAMPLE_COLUMNS = (Column("dkey", "Key"), Column("source", "Source"), Column("target", "Target"))
NAME_VALUE_COLUMNS = (Column("name", "Name"), Column("value", "Value"))


class RecordTableModel(QAbstractTableModel):
    """Rows are records (dicts), columns are `Column`s; sortable, with search text for `RecordFilterProxy`."""

    def __init__(self, columns: Sequence[Column], records: Sequence[Record] = (),
                 highlight: Callable[[Record], bool] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = tuple(columns)
        self._highlight = highlight
        self._records: list[Record] = list(records)
        self._order: list[int] = list(range(len(self._records)))
        self._search: dict[bool, list[str]] = {}
        self._sorted_by: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)

    # --- the data ----------------------------------------------------------------------------------
    def set_records(self, records: Sequence[Record]) -> None:
        self.beginResetModel()
        self._records = list(records)
        self._order = list(range(len(self._records)))
        self._search = {}
        self._sorted_by = (-1, Qt.SortOrder.AscendingOrder)
        self.endResetModel()

    @property
    def records(self) -> Sequence[Record]:
        """All records in their original (file) order."""
        return self._records

    def record(self, row: int) -> Record:
        return self._records[self._order[row]]

    def record_index(self, row: int) -> int:
        """The record shown at `row`, as an index into `records`."""
        return self._order[row]

    def distinct(self, key: str) -> list[str]:
        return sorted({cell_text(r.get(key)) for r in self._records})

    def search_texts(self, case_sensitive: bool) -> list[str]:
        """Per record, its cells' text joined (lower-cased unless `case_sensitive`); built on first use."""
        if case_sensitive not in self._search:
            with collector_paused():
                texts = self._search.get(True) or ["\x1f".join(cell_text(c.of(r)) for c in self.columns)
                                                    for r in self._records]
                self._search[case_sensitive] = texts if case_sensitive else [t.lower() for t in texts]
        return self._search[case_sensitive]

    # --- QAbstractItemModel -----------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(self._order)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        record = self._records[self._order[index.row()]]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(self.columns[index.column()].of(record))
        if role == Qt.ItemDataRole.ToolTipRole:  # a captured value may be anything, markup too
            return plain_tip(cell_text(self.columns[index.column()].of(record)))
        if role == RECORD_ROLE:
            return record
        if role == Qt.ItemDataRole.TextAlignmentRole:
            value = self.columns[index.column()].of(record)
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            return int((Qt.AlignmentFlag.AlignRight if numeric else Qt.AlignmentFlag.AlignLeft)
                       | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and self._highlight is not None and self._highlight(record):
            return highlight_brush()
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].title
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by `column` (-1: back to file order), keeping persistent indexes (the selection) on their record."""
        if (column, order) == self._sorted_by:  # QTableView.sortByColumn asks twice
            return
        self._sorted_by = (column, order)
        self.layoutAboutToBeChanged.emit()
        records = self._records
        if 0 <= column < len(self.columns):
            of = self.columns[column].of
            with collector_paused():
                keys = [sort_key(of(r)) for r in records]
            order_ = sorted(range(len(records)), key=keys.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)
        else:
            order_ = list(range(len(records)))
        persistent = self.persistentIndexList()
        if persistent:
            row_of = {record: row for row, record in enumerate(order_)}
            moved = [self.index(row_of[self._order[i.row()]], i.column()) for i in persistent]
            self._order = order_
            self.changePersistentIndexList(persistent, moved)
        else:
            self._order = order_
        self.layoutChanged.emit()
